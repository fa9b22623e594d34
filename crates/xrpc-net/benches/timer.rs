//! Timer heap micro-benchmarks: scheduling, cancelling, and popping due one-shot and repeating
//! timers. Time is virtual (the heap never reads the clock), so only the heap's work is measured.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng, rngs::StdRng};
use xrpc_net::timer::TimerHeap;

const N: usize = 1_000;

fn deadlines(t0: Instant) -> Vec<Instant> {
    let mut rng = StdRng::seed_from_u64(7);
    (0..N)
        .map(|_| t0 + Duration::from_micros(rng.gen_range(0..1_000_000)))
        .collect()
}

fn timer(c: &mut Criterion) {
    let t0 = Instant::now();
    let ds = deadlines(t0);
    let end = t0 + Duration::from_secs(2);
    let mut g = c.benchmark_group("timer");
    g.throughput(Throughput::Elements(N as u64));

    g.bench_function("schedule_1000", |b| {
        b.iter_batched_ref(
            TimerHeap::<u64>::new,
            |h| {
                for (i, &d) in ds.iter().enumerate() {
                    black_box(h.schedule(d, None, i as u64));
                }
            },
            BatchSize::SmallInput,
        )
    });

    g.bench_function("pop_due_1000", |b| {
        b.iter_batched_ref(
            || {
                let mut h = TimerHeap::new();
                for (i, &d) in ds.iter().enumerate() {
                    h.schedule(d, None, i as u64);
                }
                (h, Vec::with_capacity(N))
            },
            |(h, out)| {
                h.pop_due(end, out);
                black_box(out.len())
            },
            BatchSize::SmallInput,
        )
    });

    g.bench_function("schedule_cancel_1000", |b| {
        let mut h = TimerHeap::new();
        let mut ids = Vec::with_capacity(N);
        b.iter(|| {
            ids.clear();
            for (i, &d) in ds.iter().enumerate() {
                ids.push(h.schedule(d, None, i as u64));
            }
            for &id in &ids {
                black_box(h.cancel(id));
            }
        })
    });

    // 1000 repeating timers with the same 1 ms period: each step pops and re-inserts all of them.
    g.bench_function("pop_due_repeating_1000", |b| {
        let period = Duration::from_millis(1);
        let mut h = TimerHeap::new();
        for (i, &d) in ds.iter().enumerate() {
            h.schedule(t0 + (d - t0) / 1000, Some(period), i as u64);
        }
        let mut now = t0 + period;
        let mut out = Vec::with_capacity(N);
        b.iter(|| {
            out.clear();
            h.pop_due(now, &mut out);
            now += period;
            black_box(out.len())
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = timer
}
criterion_main!(benches);
