//! Random inputs a failed test can repeat.
//!
//! [`seeded_rng`] seeds a generator from `XRPC_TEST_SEED` when it is set, else from the clock,
//! and prints the seed to the test's output, which the test harness shows when the test fails:
//! `XRPC_TEST_SEED=<seed> cargo test …` then walks the same inputs again.

use std::time::{SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand::rngs::StdRng;

/// The environment variable that fixes the seed of every [`seeded_rng`].
pub const SEED_VAR: &str = "XRPC_TEST_SEED";

/// A generator for one test's random inputs; see the module docs.
pub fn seeded_rng() -> StdRng {
    let seed = std::env::var(SEED_VAR)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos() as u64)
        });
    eprintln!("random inputs from seed {seed}: {SEED_VAR}={seed} repeats them");
    StdRng::seed_from_u64(seed)
}
