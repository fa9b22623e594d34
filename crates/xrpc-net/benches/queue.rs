//! Task queue micro-benchmarks: the uncontended push/pop path, and contended producers/consumers,
//! with a `Mutex<VecDeque>` as the baseline a lock-free queue has to beat.

mod common;

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xrpc_net::queue::TaskQueue;

const CAP: usize = 256;

fn uncontended(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue/uncontended");
    g.throughput(Throughput::Elements(1));
    let q = TaskQueue::new(CAP);
    g.bench_function("push_pop", |b| {
        b.iter(|| {
            q.push(black_box(1usize)).unwrap();
            black_box(q.pop())
        })
    });
    let m = Mutex::new(VecDeque::with_capacity(CAP));
    g.bench_function("push_pop_mutex_vecdeque", |b| {
        b.iter(|| {
            m.lock().unwrap().push_back(black_box(1usize));
            black_box(m.lock().unwrap().pop_front())
        })
    });
    g.throughput(Throughput::Elements(CAP as u64));
    g.bench_function("fill_drain_256", |b| {
        b.iter(|| {
            for i in 0..CAP {
                q.push(i).unwrap();
            }
            while let Some(v) = q.pop() {
                black_box(v);
            }
        })
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("pop_empty", |b| b.iter(|| black_box(q.pop())));
    g.finish();
}

/// Moves `items` through a queue with `producers` + `consumers` threads; returns the wall time.
fn run_contended<Q: Sync>(
    queue: &Q,
    push: impl Fn(&Q, usize) -> bool + Sync,
    pop: impl Fn(&Q) -> Option<usize> + Sync,
    producers: usize,
    consumers: usize,
    items: u64,
) -> Duration {
    let items = items as usize;
    let start = Instant::now();
    thread::scope(|s| {
        for p in 0..producers {
            let push = &push;
            s.spawn(move || {
                let n = items / producers + usize::from(p < items % producers);
                for i in 0..n {
                    while !push(queue, i) {
                        thread::yield_now();
                    }
                }
            });
        }
        for c in 0..consumers {
            let pop = &pop;
            s.spawn(move || {
                let n = items / consumers + usize::from(c < items % consumers);
                for _ in 0..n {
                    loop {
                        if let Some(v) = pop(queue) {
                            black_box(v);
                            break;
                        }
                        thread::yield_now();
                    }
                }
            });
        }
    });
    start.elapsed()
}

fn contended(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue/contended");
    g.throughput(Throughput::Elements(1));
    for (p, n) in [(1, 1), (2, 2)] {
        g.bench_function(format!("{p}p{n}c"), |b| {
            b.iter_custom(|iters| {
                let q = TaskQueue::new(CAP);
                run_contended(&q, |q, v| q.push(v).is_ok(), |q| q.pop(), p, n, iters)
            })
        });
        g.bench_function(format!("{p}p{n}c_mutex_vecdeque"), |b| {
            b.iter_custom(|iters| {
                let q = Mutex::new(VecDeque::with_capacity(CAP));
                run_contended(
                    &q,
                    |q, v| {
                        let mut q = q.lock().unwrap();
                        if q.len() < CAP {
                            q.push_back(v);
                            true
                        } else {
                            false
                        }
                    },
                    |q| q.lock().unwrap().pop_front(),
                    p,
                    n,
                    iters,
                )
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = uncontended, contended
}
criterion_main!(benches);
