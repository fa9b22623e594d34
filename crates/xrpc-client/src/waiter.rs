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

    /// Whether the slot has been completed (its value may already be taken).
    pub(crate) fn is_done(&self) -> bool {
        self.state.lock().done
    }

    /// Parks until completed or until `deadline`; takes the value.
    pub(crate) fn wait_until(&self, deadline: Option<Instant>) -> Option<T> {
        let mut state = self.state.lock();
        loop {
            if let Some(value) = state.value.take() {
                return Some(value);
            }
            if state.done {
                return None;
            }
            match deadline {
                Some(deadline) => {
                    if self.cond.wait_until(&mut state, deadline).timed_out() {
                        return state.value.take();
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
        assert_eq!(waiter.wait_until(None), Some(7));
        thread.join().unwrap();
        // Taken once; a second completion is ignored.
        waiter.complete(8);
        assert_eq!(waiter.wait_until(Some(Instant::now())), None);
        assert!(waiter.is_done());
    }

    #[test]
    fn deadlines_and_row_signals() {
        let waiter: Waiter<u8> = Waiter::new();
        let soon = Instant::now() + Duration::from_millis(5);
        assert_eq!(waiter.wait_until(Some(soon)), None);
        assert_eq!(waiter.wait_signal(Some(soon)), Signal::TimedOut);
        waiter.signal_rows();
        assert_eq!(waiter.wait_signal(None), Signal::Rows);
        waiter.clear_rows();
        waiter.complete(1);
        assert_eq!(waiter.wait_signal(None), Signal::Done);
    }
}
