//! The lock-free receive gate: one reader per connection, and no lost wake-up.
//!
//! This is the protocol of the XRPC article ("TCP Context Lock-free Packet Reception Design").
//! Sockets are edge-triggered, so each new segment produces one event, delivered to one of the
//! threads in `epoll_wait`, and two segments of the same request may wake two different threads.
//! The gate makes sure that exactly one of them reads while the other returns at once to serve other
//! sockets, and that the data the second one was woken for is still read:
//!
//! ```text
//! loop {
//!     if !try_lock() {
//!         swap(recheck, true) (acq_rel); fence(SeqCst);   // the article: a release store
//!         if !try_lock() { break }          // the holder will see `recheck`
//!     }
//!     loop {
//!         swap(recheck, false) (acq_rel);     // the article: a relaxed store
//!         match pass() { More => continue, Drained => {}, Stop => { unlock; return } }
//!         if !recheck (acquire) { break }
//!     }
//!     unlock (release); fence(SeqCst);
//!     if !recheck (acquire) { break }       // someone knocked after our last pass
//! }
//! ```
//!
//! # Invariants
//!
//! 1. `lock` is true exactly while one thread is inside `drive` between a successful `try_lock` and
//!    the matching unlock; only that thread touches `data`. This is what makes the `UnsafeCell`
//!    access sound (cited as "invariant 1" below).
//! 2. No lost wake-up: a thread that fails the second `try_lock` has stored `recheck = true` and
//!    then executed a SeqCst fence; the holder, after its unlock, executes a SeqCst fence and loads
//!    `recheck`. By the fence rules either the failing thread's second `try_lock` observes the
//!    unlock (and it becomes the reader), or the holder's load observes `true` (and it reads again).
//!    A knock that lands while the holder is inside its pass is seen by the inner loop's load.
//! 3. Every write to `recheck` is a read-modify-write: knocks are `swap(true)` (release) and the
//!    holder clears with `swap(false)` (acquire) before each pass, and a pass that found more data
//!    loops without writing `recheck`. The article uses plain stores (a relaxed clear, a release
//!    knock, and `recheck = true` after a successful read). With plain stores the loom model below
//!    finds lost wake-ups that are legal in the C++/Rust memory model (x86 and the kernel's socket
//!    locking hide them in practice): a knock overwritten by the holder's own `true`, or followed
//!    by another knock, is never *read* by the holder, so nothing orders the knocking thread's
//!    data before the holder's next read. With RMWs, the knocks form one release sequence, so the
//!    first holder swap after a knock in `recheck`'s modification order synchronizes with it and
//!    its pass sees the data; if no swap follows the knock, the fence pair of invariant 2 applies.
//!
//! Both properties are checked by the loom model at the bottom of this file.

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};

/// What one pass of the reader found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Data was read and more may be waiting: read again.
    More,
    /// The source is drained for now (a short read or `EAGAIN`).
    Drained,
    /// The connection is finished: leave without rechecking.
    Stop,
}

/// A try-lock with a recheck flag around the receive state of one connection.
pub(crate) struct RecvGate<T> {
    lock: AtomicBool,
    recheck: AtomicBool,
    data: UnsafeCell<T>,
}

// SAFETY: `data` is only reached by the thread holding `lock` (invariant 1), so sharing the gate
// between threads is sharing a mutex; `T: Send` is what a mutex needs.
unsafe impl<T: Send> Sync for RecvGate<T> {}
// SAFETY: moving the gate moves `T`.
unsafe impl<T: Send> Send for RecvGate<T> {}

impl<T> RecvGate<T> {
    /// A gate around `data`, unlocked.
    pub(crate) fn new(data: T) -> Self {
        Self {
            lock: AtomicBool::new(false),
            recheck: AtomicBool::new(false),
            data: UnsafeCell::new(data),
        }
    }

    #[inline]
    fn try_lock(&self) -> bool {
        !self.lock.load(Ordering::Relaxed)
            && self
                .lock
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    }

    #[inline]
    fn unlock(&self) {
        self.lock.store(false, Ordering::Release);
    }

    /// Runs the receive protocol: if this thread wins the lock it calls `pass` until the source is
    /// drained and nobody knocked; otherwise it leaves a knock for the holder and returns `false`
    /// at once. Returns whether this thread ran at least one pass.
    pub(crate) fn drive(&self, mut pass: impl FnMut(&mut T) -> Pass) -> bool {
        let mut ran = false;
        loop {
            if !self.try_lock() {
                // Knock (invariant 3: an RMW, so that knocks form one release sequence).
                self.recheck.swap(true, Ordering::AcqRel);
                fence(Ordering::SeqCst);
                if !self.try_lock() {
                    return ran;
                }
            }
            ran = true;
            loop {
                // Clear before reading; reading a knock here synchronizes with it (invariant 3).
                self.recheck.swap(false, Ordering::AcqRel);
                // SAFETY: this thread holds `lock` (invariant 1), so the access is exclusive.
                let outcome = self.data.with_mut(|p| pass(unsafe { &mut *p }));
                match outcome {
                    // The article stores `recheck = true` here; looping directly is equivalent
                    // and cannot absorb a knock without reading it (invariant 3).
                    Pass::More => continue,
                    Pass::Drained => {}
                    Pass::Stop => {
                        self.unlock();
                        return true;
                    }
                }
                if !self.recheck.load(Ordering::Acquire) {
                    break;
                }
            }
            self.unlock();
            fence(Ordering::SeqCst);
            if !self.recheck.load(Ordering::Acquire) {
                return ran;
            }
        }
    }

    /// Runs `f` on the data if the lock is free now; never waits and leaves no knock.
    pub(crate) fn try_with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        if !self.try_lock() {
            return None;
        }
        // SAFETY: this thread holds `lock` (invariant 1), so the access is exclusive.
        let r = self.data.with_mut(|p| f(unsafe { &mut *p }));
        self.unlock();
        Some(r)
    }
}

impl<T> std::fmt::Debug for RecvGate<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecvGate")
            .field("locked", &self.lock.load(Ordering::Relaxed))
            .field("recheck", &self.recheck.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_knock_while_locked_makes_the_holder_pass_again() {
        let gate = RecvGate::new(0u32);
        let mut nested = false;
        let ran = gate.drive(|n| {
            *n += 1;
            if !nested {
                nested = true;
                // Another "thread" arriving while the lock is held only leaves a knock.
                assert!(!gate.drive(|_| unreachable!("two readers at once")));
            }
            Pass::Drained
        });
        assert!(ran);
        assert_eq!(
            gate.try_with(|n| *n),
            Some(2),
            "the knock caused a second pass"
        );
    }

    #[test]
    fn stop_releases_the_lock() {
        let gate = RecvGate::new(());
        assert!(gate.drive(|_| Pass::Stop));
        assert!(gate.try_with(|_| ()).is_some());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::loom::sync::Arc;
    use crate::loom::sync::atomic::AtomicUsize;
    use crate::loom::thread;

    /// A socket: `arrived` bytes were delivered, the gate's data counts what was consumed.
    struct Sock {
        arrived: AtomicUsize,
        gate: RecvGate<usize>,
    }

    /// Runs `f` under loom with a preemption bound of 3 (tokio's CI uses 2–3).
    ///
    /// Without a bound loom reports "exceeded maximum number of branches": an adversarial
    /// scheduler can make two threads trade the gate forever, each one's knock landing just as the
    /// other unlocks, so each sees a knock and retries. Every round of that ping-pong performs a
    /// real pass (a `read` that returns `EAGAIN`), so it is a livelock only under a scheduler that
    /// never lets either thread run two steps alone, which no kernel is; the same holds for the
    /// article's protocol. Safety (no lost wake-up, one reader) is checked for every interleaving
    /// within the bound, which is where the plain-store version of the protocol fails.
    fn model(f: impl Fn() + Sync + Send + 'static) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(f);
    }

    fn reader_pass(sock: &Sock, consumed: &mut usize) -> Pass {
        // One "read": takes everything that arrived so far; like a short read it reports the
        // socket drained, relying on the next arrival's edge for anything later.
        let now = sock.arrived.load(Ordering::SeqCst);
        if now > *consumed {
            *consumed = now;
        }
        Pass::Drained
    }

    /// Two segments arrive, each followed by its edge event handled on its own thread, while a
    /// third thread is still reading from an earlier event. At the end every byte was consumed
    /// (no lost wake-up), and loom's `UnsafeCell` tracking proves no two readers overlapped.
    #[test]
    fn loom_recv_gate_no_lost_wakeup_and_single_reader() {
        model(|| {
            let sock = Arc::new(Sock {
                arrived: AtomicUsize::new(0),
                gate: RecvGate::new(0),
            });
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    let sock = sock.clone();
                    thread::spawn(move || {
                        sock.arrived.fetch_add(1, Ordering::SeqCst);
                        sock.gate.drive(|c| reader_pass(&sock, c));
                    })
                })
                .collect();
            // A reader woken by an earlier event.
            sock.gate.drive(|c| reader_pass(&sock, c));
            for h in handles {
                h.join().unwrap();
            }
            let consumed = sock.gate.try_with(|c| *c).expect("gate left locked");
            assert_eq!(consumed, 2, "a segment was left unread");
        });
    }

    /// The reader reports `More` after data, so it loops until a pass finds nothing; a knock during
    /// that loop must still be honoured.
    #[test]
    fn loom_recv_gate_more_then_drained() {
        model(|| {
            let sock = Arc::new(Sock {
                arrived: AtomicUsize::new(0),
                gate: RecvGate::new(0),
            });
            let pass = |sock: &Sock, c: &mut usize| {
                let now = sock.arrived.load(Ordering::SeqCst);
                if now > *c {
                    *c = now;
                    Pass::More
                } else {
                    Pass::Drained
                }
            };
            let s2 = sock.clone();
            let t = thread::spawn(move || {
                s2.arrived.fetch_add(1, Ordering::SeqCst);
                s2.gate.drive(|c| pass(&s2, c));
            });
            sock.arrived.fetch_add(1, Ordering::SeqCst);
            sock.gate.drive(|c| pass(&sock, c));
            t.join().unwrap();
            assert_eq!(sock.gate.try_with(|c| *c), Some(2));
        });
    }
}
