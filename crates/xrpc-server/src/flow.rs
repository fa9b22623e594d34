//! Token flow control for one session's result streaming.
//!
//! A request's `token` (KiB) sets a byte budget; `-1` disables it. The encoder reports the bytes of
//! every row it flushes ([`FlowControl::consume`]). When the budget goes negative the session sends
//! TOKEN_DONE and blocks ([`FlowControl::wait_for_offer`]) until the client's TOKEN_OFFER resets the
//! budget ([`FlowControl::offer`]) — resets, never adds — or the wait is cancelled by a kill or
//! the connection closing.
//!
//! # Invariants
//!
//! - `offer` may arrive at any time, before, during or after the wait (clients offer early at 4/5
//!   of their budget); it always takes effect, and a waiter wakes on it.
//! - `cancel` wakes a waiter, which returns [`SinkError::Interrupted`]; the flag holds until the
//!   next request calls `begin`, so a kill that races with the start of a wait is never lost.
//! - The budget is an atomic so that the per-row path takes no lock; the mutex only orders the
//!   sleep against `offer` and `cancel`.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::result::SinkError;

/// Budget value that means "flow control off".
const DISABLED: i64 = i64::MAX;

/// One session's flow-control state.
#[derive(Debug)]
pub struct FlowControl {
    budget: AtomicI64,
    cancelled: AtomicBool,
    lock: Mutex<()>,
    offered: Condvar,
}

impl Default for FlowControl {
    fn default() -> Self {
        Self {
            budget: AtomicI64::new(DISABLED),
            cancelled: AtomicBool::new(false),
            lock: Mutex::new(()),
            offered: Condvar::new(),
        }
    }
}

impl FlowControl {
    /// Starts a request: `token` KiB of budget, or none when negative.
    pub fn begin(&self, token: i32) {
        self.cancelled.store(false, Ordering::SeqCst);
        self.budget.store(budget_of(token), Ordering::SeqCst);
    }

    /// Whether the current request runs under flow control.
    pub fn is_enabled(&self) -> bool {
        self.budget.load(Ordering::Relaxed) != DISABLED
    }

    /// Subtracts flushed bytes. Returns the budget left when it went negative, which is when the
    /// session must send TOKEN_DONE and wait.
    pub fn consume(&self, bytes: usize) -> Option<i64> {
        if !self.is_enabled() {
            return None;
        }
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        let left = self.budget.fetch_sub(bytes, Ordering::SeqCst) - bytes;
        (left < 0).then_some(left)
    }

    /// The client's TOKEN_OFFER: resets the budget to `token` KiB. Negative offers are ignored.
    pub fn offer(&self, token: i32) {
        if token < 0 {
            return;
        }
        let _guard = self.lock.lock();
        self.budget.store(budget_of(token), Ordering::SeqCst);
        self.offered.notify_all();
    }

    /// Interrupts a wait (kill query, connection closed).
    pub fn cancel(&self) {
        let _guard = self.lock.lock();
        self.cancelled.store(true, Ordering::SeqCst);
        self.offered.notify_all();
    }

    /// Blocks until the budget is non-negative again. `still_connected` is polled every `poll` so a
    /// vanished client does not park the worker forever.
    pub fn wait_for_offer(
        &self,
        poll: Duration,
        still_connected: impl Fn() -> bool,
    ) -> Result<(), SinkError> {
        let mut guard = self.lock.lock();
        loop {
            if self.cancelled.load(Ordering::SeqCst) {
                return Err(SinkError::Interrupted);
            }
            if self.budget.load(Ordering::SeqCst) >= 0 {
                return Ok(());
            }
            if !still_connected() {
                return Err(SinkError::Disconnected);
            }
            self.offered.wait_for(&mut guard, poll);
        }
    }
}

fn budget_of(token: i32) -> i64 {
    if token < 0 {
        DISABLED
    } else {
        i64::from(token) * 1024
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;

    use super::*;

    #[test]
    fn disabled_by_default_and_by_minus_one() {
        let flow = FlowControl::default();
        assert_eq!(flow.consume(1 << 40), None);
        flow.begin(-1);
        assert!(!flow.is_enabled());
        assert_eq!(flow.consume(1 << 40), None);
    }

    #[test]
    fn budget_is_token_kib_and_goes_negative_after_it() {
        let flow = FlowControl::default();
        flow.begin(1);
        assert_eq!(flow.consume(1000), None);
        assert_eq!(flow.consume(24), None);
        assert_eq!(flow.consume(1), Some(-1));
    }

    #[test]
    fn zero_token_stops_after_the_first_row() {
        let flow = FlowControl::default();
        flow.begin(0);
        assert_eq!(flow.consume(10), Some(-10));
    }

    #[test]
    fn an_offer_resets_rather_than_adds() {
        let flow = FlowControl::default();
        flow.begin(2);
        flow.consume(100);
        flow.offer(1);
        assert_eq!(flow.consume(1024), None);
        assert_eq!(flow.consume(1), Some(-1));
    }

    #[test]
    fn an_offer_wakes_the_waiter() {
        let flow = Arc::new(FlowControl::default());
        flow.begin(0);
        flow.consume(5);
        let waiter = {
            let flow = Arc::clone(&flow);
            thread::spawn(move || flow.wait_for_offer(Duration::from_millis(50), || true))
        };
        thread::sleep(Duration::from_millis(20));
        flow.offer(4);
        assert_eq!(waiter.join().unwrap(), Ok(()));
    }

    #[test]
    fn an_early_offer_means_no_wait() {
        let flow = FlowControl::default();
        flow.begin(0);
        flow.consume(5);
        flow.offer(1);
        assert_eq!(
            flow.wait_for_offer(Duration::from_millis(1), || true),
            Ok(())
        );
    }

    #[test]
    fn negative_offers_are_ignored() {
        let flow = FlowControl::default();
        flow.begin(0);
        flow.consume(5);
        flow.offer(-3);
        assert_eq!(
            flow.wait_for_offer(Duration::from_millis(1), || false),
            Err(SinkError::Disconnected)
        );
    }

    #[test]
    fn cancel_interrupts_the_waiter_even_if_it_comes_first() {
        let flow = FlowControl::default();
        flow.begin(0);
        flow.consume(5);
        flow.cancel();
        assert_eq!(
            flow.wait_for_offer(Duration::from_millis(1), || true),
            Err(SinkError::Interrupted)
        );
        // The next request starts clean.
        flow.begin(1);
        assert_eq!(flow.consume(10), None);
    }
}
