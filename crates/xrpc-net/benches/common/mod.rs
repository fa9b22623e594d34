//! What the micro-benchmarks of this crate share: one criterion configuration, short enough for a
//! shared two-core machine (0.5 s warm-up, 2 s measurement, 20 samples per case).

use std::time::Duration;

use criterion::Criterion;

/// The criterion configuration of every benchmark here.
pub(crate) fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}
