//! A session's run gate: one runner at a time without a blocking lock, no stranded request, and a
//! clean-up that happens exactly when the last of the runner and the remover is done.
//!
//! Workers of the framework run a session when its queue becomes non-empty. Two of them may be
//! given the same session; the gate lets one run and sends the other away at once, like the
//! connection's receive gate (`RecvGate`). The recheck differs: the receive gate keeps a knock
//! flag because an edge-triggered socket cannot be asked whether data is pending, while a session
//! can look at its queue, so [`RunGate::run`] asks the caller (`pending`) after releasing:
//!
//! ```text
//! loop {
//!     if !CAS(running, false → true) { return }      // someone else runs; they will recheck
//!     drain();
//!     running = false; fence(SeqCst);
//!     if closed { try_exclusive(cleanup); return }     // the Dekker pair below
//!     if !pending() { return }                         // a push after our last pop is ours
//! }
//! ```
//!
//! The second flag, `closed`, marks a removed session. The remover (a kill, a close, the end of
//! the connection) sets it while a runner may be inside `drain`, and whoever of the two comes last
//! must clean up (give the engine connection back) with the gate held.
//!
//! # Invariants
//!
//! 1. `drain` and every `cleanup` run with `running` held by the calling thread, so they never
//!    overlap one another (a plain mutual exclusion; `CAS` acquires, the store releases).
//! 2. No stranded request: the caller's `pending` is evaluated after `running` is released. A
//!    pusher that queued behind a runner either sees its own task's `CAS` succeed (the runner
//!    already left) or its item is in the queue when the runner's `pending` looks (the queue's
//!    mutex orders the push before that look, or the runner's release before the pusher's `CAS`).
//! 3. No missed clean-up (the Dekker pair): the remover stores `closed`, executes a `SeqCst` fence
//!    and tries `CAS(running)`; the runner stores `running = false`, executes a `SeqCst` fence and
//!    loads `closed`. By the fence rules either the runner's load sees `closed` (and it cleans up),
//!    or the remover's `CAS` sees the runner's release (and it cleans up). Both may: the clean-up
//!    must be idempotent (the session's takes the engine connection out of an `Option`). The
//!    fences are explicit, rather than left to `SeqCst` accesses alone, because that is what the
//!    memory model guarantees for a store followed by a load of another location, and what loom
//!    models: it treats `SeqCst` accesses as acquire/release, and with accesses alone it finds
//!    the lost clean-up.
//!
//! The loom model at the bottom checks invariants 1 to 3 on this code through the crate's `loom`
//! shim. The gate lives here rather than in the server, which is its only user, so that the loom
//! build stays this small crate.

use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};

/// The run lock and the removed flag of one session. See the [module docs](self).
#[derive(Debug, Default)]
pub struct RunGate {
    running: AtomicBool,
    closed: AtomicBool,
}

impl RunGate {
    /// An open gate nobody holds.
    pub fn new() -> Self {
        Self::default()
    }

    fn try_enter(&self) -> bool {
        self.running
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    fn leave(&self) {
        self.running.store(false, Ordering::SeqCst);
    }

    /// Whether a runner (or a clean-up) holds the gate now.
    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst)
    }

    /// Whether the gate was closed (the session removed).
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Closes the gate; returns whether this call closed it (false: it already was). A remover
    /// that gets true then calls [`cleanup_if_idle`](Self::cleanup_if_idle): if a runner holds the
    /// gate, the runner cleans up on its way out instead (invariant 3).
    pub fn close(&self) -> bool {
        let closed_now = !self.closed.swap(true, Ordering::SeqCst);
        // Orders the store before a following `cleanup_if_idle`'s read of `running` (invariant 3).
        fence(Ordering::SeqCst);
        closed_now
    }

    /// Runs `cleanup` with the gate held if nobody holds it now; returns whether it ran.
    pub fn cleanup_if_idle(&self, cleanup: impl FnOnce()) -> bool {
        if !self.try_enter() {
            return false;
        }
        cleanup();
        self.leave();
        true
    }

    /// Runs `drain` with the gate held, again for as long as `pending()` says there is more once
    /// the gate is released; returns at once if another thread holds it. When the runner leaves a
    /// closed gate it runs `cleanup` (if nobody took the gate meanwhile). Returns whether `drain`
    /// ran at least once.
    pub fn run(
        &self,
        mut drain: impl FnMut(),
        mut pending: impl FnMut() -> bool,
        cleanup: impl FnOnce(),
    ) -> bool {
        let mut ran = false;
        loop {
            if !self.try_enter() {
                return ran;
            }
            ran = true;
            drain();
            self.leave();
            // Orders the release before the read of `closed` (invariant 3).
            fence(Ordering::SeqCst);
            if self.is_closed() {
                self.cleanup_if_idle(cleanup);
                return ran;
            }
            if !pending() {
                return ran;
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_held_gate_sends_the_second_runner_away() {
        let gate = RunGate::new();
        let inner_ran = Cell::new(false);
        let outer_ran = gate.run(
            || {
                assert!(gate.is_running());
                inner_ran.set(gate.run(|| panic!("two runners"), || false, || {}));
            },
            || false,
            || panic!("not closed"),
        );
        assert!(outer_ran);
        assert!(!inner_ran.get(), "the second runner must not run");
        assert!(!gate.is_running());
    }

    #[test]
    fn pending_work_is_drained_after_release() {
        let gate = RunGate::new();
        let left = Cell::new(3);
        let passes = Cell::new(0);
        gate.run(
            || {
                passes.set(passes.get() + 1);
                left.set(left.get() - 1);
            },
            || left.get() > 0,
            || panic!("not closed"),
        );
        assert_eq!(passes.get(), 3);
    }

    #[test]
    fn closing_while_running_leaves_the_cleanup_to_the_runner() {
        let gate = RunGate::new();
        let cleaned = Cell::new(0);
        gate.run(
            || {
                assert!(gate.close());
                assert!(!gate.close(), "closing twice reports the first only");
                assert!(!gate.cleanup_if_idle(|| cleaned.set(cleaned.get() + 1)));
            },
            || panic!("a closed gate does not recheck"),
            || cleaned.set(cleaned.get() + 1),
        );
        assert_eq!(cleaned.get(), 1);
        assert!(gate.is_closed());
        assert!(gate.cleanup_if_idle(|| cleaned.set(cleaned.get() + 1)));
        assert_eq!(cleaned.get(), 2);
    }
}

/// Loom models: run with
/// `RUSTFLAGS="--cfg loom" cargo test -p xrpc-net --release --lib run_gate::loom_models`.
#[cfg(all(test, loom))]
mod loom_models {
    use std::collections::VecDeque;

    use super::RunGate;
    use crate::loom::cell::UnsafeCell;
    use crate::loom::sync::atomic::{AtomicUsize, Ordering};
    use crate::loom::sync::{Arc, Mutex};
    use crate::loom::thread;

    /// A session reduced to its gate, its queue, and state only the gate holder touches.
    struct Model {
        gate: RunGate,
        queue: Mutex<VecDeque<u32>>,
        /// Requests run; an `UnsafeCell`, so loom reports any access outside the gate.
        ran: UnsafeCell<Vec<u32>>,
        /// The engine connection: `true` while held; released by the clean-up.
        engine: UnsafeCell<bool>,
        cleanups: AtomicUsize,
    }

    impl Model {
        fn new() -> Self {
            Self {
                gate: RunGate::new(),
                queue: Mutex::new(VecDeque::new()),
                ran: UnsafeCell::new(Vec::new()),
                engine: UnsafeCell::new(false),
                cleanups: AtomicUsize::new(0),
            }
        }

        /// What a session's `push` does: queue, and report runnable if the queue was empty.
        fn push(&self, request: u32) -> bool {
            let mut queue = self.queue.lock().unwrap();
            queue.push_back(request);
            queue.len() == 1
        }

        fn cleanup(&self) {
            // SAFETY: the gate is held (invariant 1), so the access is exclusive.
            self.engine.with_mut(|engine| unsafe { *engine = false });
            self.cleanups.fetch_add(1, Ordering::Relaxed);
        }

        /// What a session's `run` does.
        fn run(&self) {
            self.gate.run(
                || {
                    loop {
                        if self.gate.is_closed() {
                            break;
                        }
                        let Some(request) = self.queue.lock().unwrap().pop_front() else {
                            break;
                        };
                        // SAFETY: the gate is held (invariant 1), so the accesses are exclusive.
                        self.engine.with_mut(|engine| unsafe { *engine = true });
                        self.ran.with_mut(|ran| unsafe { (*ran).push(request) });
                    }
                },
                || !self.queue.lock().unwrap().is_empty(),
                || self.cleanup(),
            );
        }
    }

    /// Two pushers race with a runner: every request runs exactly once, one at a time.
    #[test]
    fn no_request_is_stranded_and_runs_never_overlap() {
        loom::model(|| {
            let model = Arc::new(Model::new());
            let pushers: Vec<_> = (1..=2)
                .map(|request| {
                    let model = Arc::clone(&model);
                    thread::spawn(move || {
                        if model.push(request) {
                            model.run();
                        }
                    })
                })
                .collect();
            for pusher in pushers {
                pusher.join().unwrap();
            }
            // SAFETY: every thread has been joined.
            let mut ran = model.ran.with(|ran| unsafe { (*ran).clone() });
            ran.sort_unstable();
            assert_eq!(ran, [1, 2], "a request was stranded or ran twice");
            assert!(!model.gate.is_running());
        });
    }

    /// A remover closes the gate while a runner may hold it: the engine connection is given back
    /// whoever comes last, and never while the runner uses it.
    #[test]
    fn closing_never_misses_the_cleanup() {
        loom::model(|| {
            let model = Arc::new(Model::new());
            assert!(model.push(1));
            let runner = {
                let model = Arc::clone(&model);
                thread::spawn(move || model.run())
            };
            if model.gate.close() {
                model.gate.cleanup_if_idle(|| model.cleanup());
            }
            runner.join().unwrap();
            // SAFETY: the runner has been joined.
            let held = model.engine.with(|engine| unsafe { *engine });
            assert!(!held, "the engine connection was never given back");
            assert!(model.cleanups.load(Ordering::Relaxed) >= 1);
        });
    }
}
