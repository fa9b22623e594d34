//! SQLite's busy handler and the per-thread state it reads: how a statement waits for a lock (see
//! "Lock waits" in the [parent module](super)).
//!
//! The handler reads the running connection's kill flag from the parent's `Shared`: a child
//! module reading its parent's private connection state, the one import back up to `sqlite.rs`.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{Shared, SqliteOptions};
use crate::engine::WaitHook;

/// What the busy handler needs to know about the statement running on this thread.
struct BusyState {
    timeout: Duration,
    hook: Option<WaitHook>,
    shared: Option<Arc<Shared>>,
    /// When the current lock wait started.
    started: Option<Instant>,
    /// Whether this statement has already called its hook.
    hooked: bool,
    /// The hook's guard, held until the statement ends.
    guard: Option<Box<dyn Any>>,
}

impl BusyState {
    fn new(timeout: Duration, hook: Option<WaitHook>, shared: Option<Arc<Shared>>) -> Self {
        Self {
            timeout,
            hook,
            shared,
            started: None,
            hooked: false,
            guard: None,
        }
    }
}

thread_local! {
    /// The running statement's busy settings; the default outside any scope.
    static BUSY: RefCell<BusyState> = RefCell::new(BusyState::new(
        SqliteOptions::default().busy_timeout,
        None,
        None,
    ));
}

/// Installs a statement's busy settings for its thread; restores the previous ones, dropping
/// the wait guard if one was taken, when dropped.
pub(super) struct BusyScope {
    previous: Option<BusyState>,
}

impl BusyScope {
    pub(super) fn enter(
        timeout: Duration,
        hook: Option<WaitHook>,
        shared: Option<Arc<Shared>>,
    ) -> Self {
        let state = BusyState::new(timeout, hook, shared);
        let previous = BUSY.with(|cell| std::mem::replace(&mut *cell.borrow_mut(), state));
        Self {
            previous: Some(previous),
        }
    }
}

impl Drop for BusyScope {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            let finished = BUSY.with(|cell| std::mem::replace(&mut *cell.borrow_mut(), previous));
            // The guard (if any) drops here, outside the RefCell borrow.
            drop(finished);
        }
    }
}

/// Sleep steps while waiting for a lock: short at first, for the common brief wait, then 50 ms,
/// which also bounds how long a kill takes to land.
const BUSY_STEPS_MS: [u64; 10] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50];

/// The busy handler of every connection: `count` is how many times it was called for the
/// current lock wait. Returns whether SQLite should try again.
pub(super) fn busy_handler(count: i32) -> bool {
    let step = BUSY.with(|cell| {
        let mut state = cell.borrow_mut();
        if state
            .shared
            .as_ref()
            .is_some_and(|s| s.interrupted.load(Ordering::Acquire))
        {
            return None;
        }
        let now = Instant::now();
        let started = match state.started {
            Some(started) if count > 0 => started,
            _ => {
                state.started = Some(now);
                now
            }
        };
        let left = state
            .timeout
            .checked_sub(now - started)
            .filter(|d| !d.is_zero())?;
        let hook = if state.hooked {
            None
        } else {
            state.hooked = true;
            state.hook.clone()
        };
        let index = usize::try_from(count)
            .unwrap_or(0)
            .min(BUSY_STEPS_MS.len() - 1);
        Some((hook, left.min(Duration::from_millis(BUSY_STEPS_MS[index]))))
    });
    let Some((hook, sleep)) = step else {
        return false;
    };
    if let Some(hook) = hook {
        // Called outside the borrow: the hook is foreign code.
        let guard = hook();
        BUSY.with(|cell| cell.borrow_mut().guard = Some(guard));
    }
    std::thread::sleep(sleep);
    true
}
