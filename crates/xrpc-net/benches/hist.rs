//! Histogram record-path micro-benchmarks: one thread, two threads on one histogram, and the
//! cost of a disabled `PerfHistograms::record`.

mod common;

use std::hint::black_box;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xrpc_net::hist::{Histogram, PerfHistograms, Stage};

fn record(c: &mut Criterion) {
    let mut g = c.benchmark_group("hist");
    g.throughput(Throughput::Elements(1));

    let h = Histogram::new();
    let mut ns = 1u64;
    g.bench_function("record", |b| {
        b.iter(|| {
            // Spread values over many buckets, as real latencies do.
            ns = ns
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            h.record(black_box(Duration::from_nanos(ns >> 40)));
        })
    });

    let perf = PerfHistograms::new(false);
    g.bench_function("perf_record_disabled", |b| {
        b.iter(|| perf.record(Stage::Run, black_box(Duration::from_nanos(1_000))))
    });
    g.bench_function("perf_start_record_since_disabled", |b| {
        b.iter(|| {
            let t = perf.start();
            perf.record_since(Stage::Run, black_box(t));
        })
    });
    let perf_on = PerfHistograms::new(true);
    g.bench_function("perf_start_record_since_enabled", |b| {
        b.iter(|| {
            let t = perf_on.start();
            perf_on.record_since(Stage::Run, black_box(t));
        })
    });

    // Two threads on one histogram: each lands on its own shard.
    const THREADS: u64 = 2;
    g.bench_function("record_2_threads", |b| {
        b.iter_custom(|iters| {
            let h = Histogram::new();
            let start = Instant::now();
            thread::scope(|s| {
                for t in 0..THREADS {
                    let h = &h;
                    s.spawn(move || {
                        for i in 0..iters / THREADS {
                            h.record_ns(black_box(i * 37 + t));
                        }
                    });
                }
            });
            start.elapsed()
        })
    });

    g.bench_function("snapshot", |b| b.iter(|| black_box(h.snapshot().count())));
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = record
}
criterion_main!(benches);
