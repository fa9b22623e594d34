//! The waiter count that decides whether pushing a task must write the eventfd.
//!
//! XRPC counts the workers that are about to sleep so that a push writes the eventfd only when
//! somebody could be asleep ("Count the wait status to reduce unnecessary eventfd notify
//! processes"). The danger is a task stranded in the queue while every worker sleeps. The protocol is
//! a Dekker handshake:
//!
//! | pusher | worker |
//! |---|---|
//! | push the task into the queue | `waiting += 1` (`Waiters::begin_wait`) |
//! | `fence(SeqCst)` | `fence(SeqCst)` |
//! | if `waiting > 0`: write the eventfd | if the queue is not empty: `waiting -= 1`, run it; else sleep in `epoll_wait` |
//!
//! By the SeqCst fence rule, either the pusher's load sees the worker's increment (and the eventfd
//! write makes the coming or current `epoll_wait` return: an eventfd write before the wait leaves
//! the fd readable, and the edge is queued), or the worker's emptiness check sees the task. The
//! queue may use any orderings internally; the fences carry the argument.
//!
//! The loom model below checks that no interleaving leaves a task queued, a worker asleep and the
//! eventfd unwritten.

use crate::loom::sync::atomic::{AtomicUsize, Ordering, fence};

/// Number of workers that announced they are about to wait.
#[derive(Debug, Default)]
pub(crate) struct Waiters {
    waiting: AtomicUsize,
}

impl Waiters {
    /// No worker waiting.
    pub(crate) fn new() -> Self {
        Self {
            waiting: AtomicUsize::new(0),
        }
    }

    /// The worker announces that it will sleep. It must check the queue afterwards and call
    /// [`Waiters::end_wait`] when it wakes or decides not to sleep.
    #[inline]
    pub(crate) fn begin_wait(&self) {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// The worker is awake again.
    #[inline]
    pub(crate) fn end_wait(&self) {
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }

    /// After a push: whether some worker may be asleep and the eventfd must be written.
    #[inline]
    pub(crate) fn must_notify(&self) -> bool {
        fence(Ordering::SeqCst);
        self.waiting.load(Ordering::SeqCst) > 0
    }

    /// Workers currently waiting (a snapshot, for the watchdog).
    #[inline]
    pub(crate) fn count(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::loom::sync::Arc;
    use crate::loom::thread;

    struct Model {
        waiters: Waiters,
        /// The queue length, accessed with the weakest orderings a queue could use.
        queued: AtomicUsize,
        /// The eventfd counter.
        eventfd: AtomicUsize,
    }

    /// One pusher and two workers. A worker that finds the queue empty after announcing its wait
    /// "sleeps": the model records it and checks at the end that the eventfd was written whenever a
    /// task is still queued, i.e. the sleeper would be woken.
    #[test]
    fn loom_waiter_count_never_strands_a_task() {
        loom::model(|| {
            let m = Arc::new(Model {
                waiters: Waiters::new(),
                queued: AtomicUsize::new(0),
                eventfd: AtomicUsize::new(0),
            });
            let pusher = {
                let m = m.clone();
                thread::spawn(move || {
                    m.queued.fetch_add(1, Ordering::Release);
                    if m.waiters.must_notify() {
                        m.eventfd.fetch_add(1, Ordering::Release);
                    }
                })
            };
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    let m = m.clone();
                    thread::spawn(move || {
                        m.waiters.begin_wait();
                        // Take a task if one is visible, as `pop` would.
                        let mut cur = m.queued.load(Ordering::Acquire);
                        while cur > 0 {
                            match m.queued.compare_exchange(
                                cur,
                                cur - 1,
                                Ordering::AcqRel,
                                Ordering::Acquire,
                            ) {
                                Ok(_) => {
                                    m.waiters.end_wait();
                                    return false;
                                }
                                Err(now) => cur = now,
                            }
                        }
                        // Sleeps (stays counted as waiting).
                        true
                    })
                })
                .collect();
            pusher.join().unwrap();
            let sleepers = workers
                .into_iter()
                .map(|w| w.join().unwrap())
                .filter(|&slept| slept)
                .count();
            let queued = m.queued.load(Ordering::Acquire);
            let woken = m.eventfd.load(Ordering::Acquire) > 0;
            // A task still queued means both workers went to sleep.
            if queued > 0 {
                assert_eq!(sleepers, 2);
                assert!(
                    woken,
                    "task stranded: every worker asleep and no eventfd write"
                );
            }
        });
    }
}
