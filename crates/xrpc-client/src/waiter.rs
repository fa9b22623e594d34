//! A completion slot shared by both transports: one request's result, awaited by a parked thread
//! (blocking) or a task (async).
//!
//! The connection's driver fills the slot from the core's events ([`Waiter::complete`], and
//! [`Waiter::signal_rows`] for streamed rows); the caller waits on it. The slot holds a condition
//! variable for threads and a waker for tasks, so the same dispatch code serves both transports.
//!
//! Signals are delivered after the driver has released the connection lock, so a waiter may see a
//! stale "rows ready" flag; callers clear it before looking for rows and treat a wake-up with
//! nothing to take as spurious.

use std::task::{Context, Poll, Waker};
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

#[derive(Debug)]
pub(crate) struct Waiter<T> {
    state: Mutex<State<T>>,
    cond: Condvar,
}

#[derive(Debug)]
struct State<T> {
    value: Option<T>,
    done: bool,
    rows: bool,
    waker: Option<Waker>,
}

/// What [`Waiter::wait_until`] found. "Already taken" and "timed out" are told apart under the
/// slot's lock: checking "is it done?" after a timeout races with a completion that lands
/// in between, and would call a reply nobody has taken "already taken".
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Waited<T> {
    Value(T),
    AlreadyTaken,
    TimedOut,
}

/// Why [`Waiter::wait_signal`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    Rows,
    Done,
    TimedOut,
}

impl<T> Waiter<T> {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(State {
                value: None,
                done: false,
                rows: false,
                waker: None,
            }),
            cond: Condvar::new(),
        }
    }

    /// Fills the slot and wakes the waiter. Only the first completion counts.
    pub(crate) fn complete(&self, value: T) {
        let waker = {
            let mut state = self.state.lock();
            if state.done {
                return;
            }
            state.value = Some(value);
            state.done = true;
            state.waker.take()
        };
        self.cond.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Tells the waiter that rows are ready to take.
    pub(crate) fn signal_rows(&self) {
        let waker = {
            let mut state = self.state.lock();
            state.rows = true;
            state.waker.take()
        };
        self.cond.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Forgets a rows signal, before the caller looks for rows itself.
    pub(crate) fn clear_rows(&self) {
        self.state.lock().rows = false;
    }

    /// Parks until completed or until `deadline`; takes the value.
    pub(crate) fn wait_until(&self, deadline: Option<Instant>) -> Waited<T> {
        let mut state = self.state.lock();
        loop {
            if let Some(value) = state.value.take() {
                return Waited::Value(value);
            }
            if state.done {
                return Waited::AlreadyTaken;
            }
            match deadline {
                Some(deadline) => {
                    if self.cond.wait_until(&mut state, deadline).timed_out() {
                        return match state.value.take() {
                            Some(value) => Waited::Value(value),
                            None if state.done => Waited::AlreadyTaken,
                            None => Waited::TimedOut,
                        };
                    }
                }
                None => self.cond.wait(&mut state),
            }
        }
    }

    /// Parks until rows are signalled, the slot is completed, or `deadline`; takes nothing.
    pub(crate) fn wait_signal(&self, deadline: Option<Instant>) -> Signal {
        let mut state = self.state.lock();
        loop {
            if state.done {
                return Signal::Done;
            }
            if state.rows {
                return Signal::Rows;
            }
            match deadline {
                Some(deadline) => {
                    if self.cond.wait_until(&mut state, deadline).timed_out() {
                        return if state.done {
                            Signal::Done
                        } else if state.rows {
                            Signal::Rows
                        } else {
                            Signal::TimedOut
                        };
                    }
                }
                None => self.cond.wait(&mut state),
            }
        }
    }

    /// The async form of [`wait_until`](Self::wait_until) without a deadline.
    #[cfg_attr(
        not(feature = "async"),
        allow(dead_code, reason = "async transport only")
    )]
    pub(crate) fn poll_take(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = self.state.lock();
        if let Some(value) = state.value.take() {
            return Poll::Ready(Some(value));
        }
        if state.done {
            return Poll::Ready(None);
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// The async form of [`wait_signal`](Self::wait_signal) without a deadline.
    #[cfg_attr(
        not(feature = "async"),
        allow(dead_code, reason = "async transport only")
    )]
    pub(crate) fn poll_signal(&self, cx: &mut Context<'_>) -> Poll<Signal> {
        let mut state = self.state.lock();
        if state.done {
            return Poll::Ready(Signal::Done);
        }
        if state.rows {
            return Poll::Ready(Signal::Rows);
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_parked_thread_gets_the_value() {
        let waiter = Arc::new(Waiter::new());
        let filler = Arc::clone(&waiter);
        let thread = std::thread::spawn(move || filler.complete(7));
        assert_eq!(waiter.wait_until(None), Waited::Value(7));
        thread.join().unwrap();
        // Waited once; a second completion is ignored.
        waiter.complete(8);
        assert_eq!(
            waiter.wait_until(Some(Instant::now())),
            Waited::AlreadyTaken
        );
    }

    /// The soak once saw "the reply was already taken" for a reply nobody had taken: the wait
    /// timed out, the reader completed the slot, and only then did the caller ask whether it was done.
    /// A completion racing a deadline must come back as the value or as a timeout, never as
    /// "already taken".
    #[test]
    fn a_completion_racing_the_deadline_is_never_reported_as_already_taken() {
        for round in 0..2_000u32 {
            let waiter = Arc::new(Waiter::new());
            let filler = Arc::clone(&waiter);
            let thread = std::thread::spawn(move || filler.complete(round));
            let deadline = Instant::now() + Duration::from_micros(u64::from(round % 50));
            let value = match waiter.wait_until(Some(deadline)) {
                Waited::Value(value) => value,
                // What the caller does after a timeout: wait again.
                Waited::TimedOut => match waiter.wait_until(None) {
                    Waited::Value(value) => value,
                    other => panic!("round {round}: completed but reported as {other:?}"),
                },
                Waited::AlreadyTaken => panic!("round {round}: nobody took the value"),
            };
            assert_eq!(value, round);
            thread.join().unwrap();
        }
    }

    #[test]
    fn deadlines_and_row_signals() {
        let waiter: Waiter<u8> = Waiter::new();
        let soon = Instant::now() + Duration::from_millis(5);
        assert_eq!(waiter.wait_until(Some(soon)), Waited::TimedOut);
        assert_eq!(waiter.wait_signal(Some(soon)), Signal::TimedOut);
        waiter.signal_rows();
        assert_eq!(waiter.wait_signal(None), Signal::Rows);
        waiter.clear_rows();
        waiter.complete(1);
        assert_eq!(waiter.wait_signal(None), Signal::Done);
    }
}
