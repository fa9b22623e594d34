//! Stress tests for `TaskQueue`, each named for what it proves. Sizes are kept small enough to run
//! in a few seconds in a debug build on two cores; waiting loops yield instead of spinning because
//! the test threads outnumber the cores.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use rand::Rng;
use xrpc_net::queue::TaskQueue;

fn push_wait<T>(q: &TaskQueue<T>, mut v: T) {
    while let Err(back) = q.push(v) {
        v = back;
        thread::yield_now();
    }
}

fn pop_wait<T>(q: &TaskQueue<T>) -> T {
    loop {
        if let Some(v) = q.pop() {
            return v;
        }
        thread::yield_now();
    }
}

/// One producer, one consumer, a tiny ring: every item arrives exactly once and in order.
#[test]
fn spsc() {
    const COUNT: usize = 100_000;
    let q = TaskQueue::new(4);
    thread::scope(|s| {
        s.spawn(|| {
            for i in 0..COUNT {
                assert_eq!(pop_wait(&q), i);
            }
            assert!(q.pop().is_none());
        });
        s.spawn(|| {
            for i in 0..COUNT {
                push_wait(&q, i);
            }
        });
    });
    assert_eq!(q.pops(), COUNT as u64);
}

/// Four producers and four consumers: every pushed item is popped exactly once, and each
/// producer's items reach any single consumer in the order they were pushed.
#[test]
fn mpmc() {
    const COUNT: usize = 20_000;
    const THREADS: usize = 4;
    let q = TaskQueue::<(usize, usize)>::new(8);
    let seen: Vec<AtomicUsize> = (0..COUNT * THREADS).map(|_| AtomicUsize::new(0)).collect();
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                let mut last = [None::<usize>; THREADS];
                for _ in 0..COUNT {
                    let (producer, i) = pop_wait(&q);
                    assert!(last[producer].is_none_or(|l| l < i), "per-producer order");
                    last[producer] = Some(i);
                    seen[producer * COUNT + i].fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        for p in 0..THREADS {
            let q = &q;
            s.spawn(move || {
                for i in 0..COUNT {
                    push_wait(q, (p, i));
                }
            });
        }
    });
    assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    assert!(q.is_empty());
}

/// Items are dropped exactly once: when popped, when a full push hands them back and the caller
/// drops them, or when the queue itself is dropped with items left in it.
#[test]
fn drops() {
    const RUNS: usize = 40;
    static DROPS: AtomicUsize = AtomicUsize::new(0);

    #[derive(Debug)]
    struct DropCounter;
    impl Drop for DropCounter {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::Relaxed);
        }
    }

    let mut rng = xrpc_testkit::rng::seeded_rng();
    for _ in 0..RUNS {
        let steps = rng.gen_range(0..5_000);
        let additional = rng.gen_range(0..32);
        DROPS.store(0, Ordering::Relaxed);
        let q = TaskQueue::new(32);
        thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..steps {
                    drop(pop_wait(&q));
                }
            });
            s.spawn(|| {
                for _ in 0..steps {
                    let mut item = DropCounter;
                    loop {
                        match q.push(item) {
                            Ok(()) => break,
                            Err(back) => {
                                // Not dropped: retried.
                                item = back;
                                thread::yield_now();
                            }
                        }
                    }
                }
            });
        });
        for _ in 0..additional {
            q.push(DropCounter).unwrap();
        }
        assert_eq!(DROPS.load(Ordering::Relaxed), steps);
        drop(q);
        assert_eq!(DROPS.load(Ordering::Relaxed), steps + additional);
    }
}

/// Each thread pushes and then pops: the pop must succeed, because the thread's own completed push
/// is in the queue. A queue that reported "empty" while a concurrent push to an earlier slot was
/// half done would fail here.
#[test]
fn linearizable() {
    const COUNT: usize = 20_000;
    const THREADS: usize = 4;
    for cap in [2, THREADS] {
        let q = TaskQueue::new(cap);
        thread::scope(|s| {
            for t in 0..THREADS {
                let q = &q;
                s.spawn(move || {
                    for i in 0..COUNT {
                        push_wait(q, (t, i));
                        q.pop().expect("a completed push is visible to a later pop");
                    }
                });
            }
        });
        assert!(q.is_empty());
        assert_eq!(q.pops(), (COUNT * THREADS) as u64);
    }
}

/// `len` never exceeds the capacity, and `pops` never goes backwards, while producers and
/// consumers race (what the watchdog relies on).
#[test]
fn len_and_pops_under_contention() {
    const COUNT: usize = 20_000;
    let q = TaskQueue::new(16);
    let done = AtomicUsize::new(0);
    thread::scope(|s| {
        s.spawn(|| {
            for i in 0..COUNT {
                push_wait(&q, i);
            }
            done.fetch_add(1, Ordering::Relaxed);
        });
        s.spawn(|| {
            for _ in 0..COUNT {
                pop_wait(&q);
            }
            done.fetch_add(1, Ordering::Relaxed);
        });
        s.spawn(|| {
            let mut last = 0;
            while done.load(Ordering::Relaxed) < 2 {
                assert!(q.len() <= q.capacity());
                let pops = q.pops();
                assert!(pops >= last);
                last = pops;
                thread::yield_now();
            }
        });
    });
    assert_eq!(q.pops(), COUNT as u64);
    assert_eq!(q.len(), 0);
}
