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
//!
//! # The listener slots
//!
//! [`ListenerSlots`] counts the workers inside `epoll_wait`, up to a cap; a worker that finds
//! the slots taken waits on the group's eventfd only. On a one-CPU group the cap is one (see
//! `group.rs`, "One CPU: one listener"): then a socket event that arrives while the listener is
//! busy waits in epoll's ready list for the listener's next `epoll_wait` (no wake-up, no context
//! switch), and the danger is an event held up while the listener runs a unit that blocks or runs
//! long and every other worker sleeps on the eventfd. So a worker that leaves the slot for such a
//! unit checks whether somebody took the slot over and, if not, wakes an eventfd sleeper
//! ([`ListenerSlots::must_hand_over`]), which takes the free slot. The same store-buffer argument
//! as above applies:
//!
//! | sleeper | former listener |
//! |---|---|
//! | `waiting += 1`, `fence(SeqCst)` (`begin_wait`) | `listening -= 1` (`leave`) |
//! | `listening` read: the slot is taken, so wait on the eventfd | … `fence(SeqCst)` (`must_hand_over`) |
//! | | if `listening == 0` and `waiting > 0`: write the eventfd |
//!
//! Either the sleeper's read sees the slot free (and it takes it), or the former listener's read
//! sees the sleeper's `waiting` increment (and its eventfd write wakes the sleeper, which goes
//! round its loop and takes the free slot). The slot is taken with a compare-and-swap that never
//! counts a worker it refuses, so a refused worker cannot make `listening` look taken after the
//! listener left. The loom model `loom_a_leaving_listener_never_leaves_events_unheard` checks it.

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

/// Number of workers inside `epoll_wait` (the group's listeners), at most a cap; see the
/// [module docs](self), "The listener slots".
#[derive(Debug, Default)]
pub(crate) struct ListenerSlots {
    listening: AtomicUsize,
}

impl ListenerSlots {
    /// No listener.
    pub(crate) fn new() -> Self {
        Self {
            listening: AtomicUsize::new(0),
        }
    }

    /// Takes a slot if fewer than `cap` are taken. A worker that gets one waits in `epoll_wait`
    /// and calls [`ListenerSlots::leave`] when it returns; one that does not waits on the eventfd.
    /// Call after [`Waiters::begin_wait`].
    #[inline]
    pub(crate) fn try_enter(&self, cap: usize) -> bool {
        self.listening
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < cap).then_some(n + 1)
            })
            .is_ok()
    }

    /// Gives the slot taken by [`ListenerSlots::try_enter`] back.
    #[inline]
    pub(crate) fn leave(&self) {
        self.listening.fetch_sub(1, Ordering::AcqRel);
    }

    /// Called by a worker that left its slot and is about to block or run long: whether nobody
    /// listens while some worker waits (on the eventfd), so that the caller must write the
    /// eventfd to hand the listening over.
    #[inline]
    pub(crate) fn must_hand_over(&self, waiters: &Waiters) -> bool {
        fence(Ordering::SeqCst);
        self.listening.load(Ordering::SeqCst) == 0 && waiters.waiting.load(Ordering::SeqCst) > 0
    }

    /// Workers inside `epoll_wait` now (a snapshot, for the watchdog).
    #[inline]
    pub(crate) fn count(&self) -> usize {
        self.listening.load(Ordering::Relaxed)
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

    /// The listener (holding the one slot) leaves it to run a unit that blocks and calls the
    /// hand-over check; two other workers go to sleep meanwhile, each taking the slot if it is
    /// free and otherwise waiting on the eventfd. Whatever the interleaving, if nobody holds the
    /// slot at the end while a worker sleeps on the eventfd, the eventfd was written: the sleeper
    /// wakes and takes the slot, so no socket event waits for the blocked unit.
    #[test]
    fn loom_a_leaving_listener_never_leaves_events_unheard() {
        struct Group {
            waiters: Waiters,
            slots: ListenerSlots,
            eventfd: AtomicUsize,
        }
        loom::model(|| {
            let g = Arc::new(Group {
                waiters: Waiters::new(),
                slots: ListenerSlots::new(),
                eventfd: AtomicUsize::new(0),
            });
            // The listener is in epoll_wait: it announced its wait and holds the slot.
            g.waiters.begin_wait();
            assert!(g.slots.try_enter(1));
            let listener = {
                let g = g.clone();
                thread::spawn(move || {
                    // An event: it leaves epoll_wait, then runs a unit that blocks.
                    g.slots.leave();
                    g.waiters.end_wait();
                    if g.slots.must_hand_over(&g.waiters) {
                        g.eventfd.fetch_add(1, Ordering::Release);
                    }
                })
            };
            let sleepers: Vec<_> = (0..2)
                .map(|_| {
                    let g = g.clone();
                    thread::spawn(move || {
                        g.waiters.begin_wait();
                        // true: waits on the eventfd (stays counted as waiting).
                        !g.slots.try_enter(1)
                    })
                })
                .collect();
            listener.join().unwrap();
            let on_eventfd = sleepers
                .into_iter()
                .map(|s| s.join().unwrap())
                .filter(|&on_eventfd| on_eventfd)
                .count();
            if on_eventfd > 0 && g.slots.count() == 0 {
                assert!(
                    g.eventfd.load(Ordering::Acquire) > 0,
                    "nobody listens, a worker sleeps on the eventfd and nobody woke it"
                );
            }
            assert!(g.slots.count() <= 1, "the cap holds");
        });
    }
}
