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
use xrpc_engine::WaitHook;

/// What the busy handler needs to know about the statement running on this thread.
///
/// The state stays in the thread-local between statements, "parked" (`active` down): a worker
/// runs statement after statement, mostly of the same few connections, so a scope that finds
/// its connection's `shared` parked there keeps it instead of cloning the `Arc` and dropping
/// the old one, and takes the wait hook by value from the connection and hands it back at the
/// end (see [`BusyScope::finish`]). Outside a scope the handler ignores what is parked and uses
/// the defaults.
struct BusyState {
    /// Whether a scope is open on this thread.
    active: bool,
    timeout: Duration,
    /// The busy timeout outside any scope.
    default_timeout: Duration,
    hook: Option<WaitHook>,
    /// The running connection's shared state; outside a scope, the last one's (unused).
    shared: Option<Arc<Shared>>,
    /// When the current lock wait started.
    started: Option<Instant>,
    /// Whether this statement has already called its hook.
    hooked: bool,
    /// The hook's guard, held until the statement ends.
    guard: Option<Box<dyn Any>>,
}

impl BusyState {
    fn new(
        active: bool,
        timeout: Duration,
        hook: Option<WaitHook>,
        shared: Option<Arc<Shared>>,
    ) -> Self {
        Self {
            active,
            timeout,
            default_timeout: SqliteOptions::default().busy_timeout,
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
        false,
        SqliteOptions::default().busy_timeout,
        None,
        None,
    ));
}

/// Installs a statement's busy settings for its thread until [`finish`](Self::finish)ed or
/// dropped, which drops the wait guard if one was taken. Scopes nest (an inner one saves the
/// outer one's state and puts it back), though the engine opens one per statement.
pub(super) struct BusyScope {
    /// The enclosing scope's state, when this one is nested.
    previous: Option<BusyState>,
    open: bool,
}

impl BusyScope {
    pub(super) fn enter(
        timeout: Duration,
        hook: Option<WaitHook>,
        shared: Option<&Arc<Shared>>,
    ) -> Self {
        BUSY.with(|cell| {
            let mut state = cell.borrow_mut();
            if state.active {
                let nested = BusyState::new(true, timeout, hook, shared.cloned());
                let previous = std::mem::replace(&mut *state, nested);
                return Self {
                    previous: Some(previous),
                    open: true,
                };
            }
            let parked = matches!((shared, &state.shared), (Some(s), Some(p)) if Arc::ptr_eq(s, p));
            if !parked {
                state.shared = shared.cloned();
            }
            state.active = true;
            state.timeout = timeout;
            state.hook = hook;
            state.started = None;
            state.hooked = false;
            Self {
                previous: None,
                open: true,
            }
        })
    }

    /// Ends the scope: hands back the wait hook given to `enter`, and drops the wait guard.
    pub(super) fn finish(mut self) -> Option<WaitHook> {
        self.close()
    }

    fn close(&mut self) -> Option<WaitHook> {
        if !std::mem::take(&mut self.open) {
            return None;
        }
        let (hook, guard) = BUSY.with(|cell| {
            let mut state = cell.borrow_mut();
            match self.previous.take() {
                Some(previous) => {
                    let mut finished = std::mem::replace(&mut *state, previous);
                    (finished.hook.take(), finished.guard.take())
                }
                None => {
                    state.active = false;
                    (state.hook.take(), state.guard.take())
                }
            }
        });
        // The guard drops here, outside the RefCell borrow: it is the hook's, foreign code.
        drop(guard);
        hook
    }
}

impl Drop for BusyScope {
    fn drop(&mut self) {
        drop(self.close());
    }
}

/// Sleep steps while waiting for a lock: short at first, for the common brief wait, then 50 ms,
/// which also bounds how long a kill takes to land.
const BUSY_STEPS_MS: [u64; 10] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50];

impl BusyState {
    /// Whether the statement of the open scope was killed.
    fn killed(&self) -> bool {
        self.active
            && self
                .shared
                .as_ref()
                .is_some_and(|s| s.interrupted.load(Ordering::Acquire))
    }

    /// The wait hook, the first time the statement waits (`None` after that).
    fn hook_once(&mut self) -> Option<WaitHook> {
        if self.hooked {
            return None;
        }
        self.hooked = true;
        self.hook.clone()
    }
}

/// Calls a statement's wait hook and keeps its guard until the statement ends. Called outside
/// the thread-local's borrow: the hook is foreign code.
fn enter_wait(hook: Option<WaitHook>) {
    if let Some(hook) = hook {
        let guard = hook();
        BUSY.with(|cell| cell.borrow_mut().guard = Some(guard));
    }
}

/// The busy handler of every connection: `count` is how many times it was called for the
/// current lock wait. Returns whether SQLite should try again.
pub(super) fn busy_handler(count: i32) -> bool {
    let step = BUSY.with(|cell| {
        let mut state = cell.borrow_mut();
        if state.killed() {
            return None;
        }
        let timeout = if state.active {
            state.timeout
        } else {
            state.default_timeout
        };
        let now = Instant::now();
        let started = match state.started {
            Some(started) if count > 0 => started,
            _ => {
                state.started = Some(now);
                now
            }
        };
        let left = timeout
            .checked_sub(now - started)
            .filter(|d| !d.is_zero())?;
        let index = usize::try_from(count)
            .unwrap_or(0)
            .min(BUSY_STEPS_MS.len() - 1);
        Some((
            state.hook_once(),
            left.min(Duration::from_millis(BUSY_STEPS_MS[index])),
        ))
    });
    let Some((hook, sleep)) = step else {
        return false;
    };
    enter_wait(hook);
    std::thread::sleep(sleep);
    true
}

/// Whether a statement waiting for something other than SQLite's lock (a named lock) may go
/// on: `false` once it was killed. The first call of a statement calls its wait hook, as the
/// busy handler does, so the worker counts as stalled until the statement ends.
pub(super) fn keep_waiting() -> bool {
    let hook = BUSY.with(|cell| {
        let mut state = cell.borrow_mut();
        (!state.killed()).then(|| state.hook_once())
    });
    match hook {
        None => false,
        Some(hook) => {
            enter_wait(hook);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn active_timeout() -> (bool, Duration) {
        BUSY.with(|cell| {
            let state = cell.borrow();
            (state.active, state.timeout)
        })
    }

    #[test]
    fn a_scope_hands_its_hook_back_and_a_nested_one_restores_the_outer_one() {
        let hook: WaitHook = Arc::new(|| Box::new(()) as Box<dyn Any>);
        let ms = Duration::from_millis;
        let outer = BusyScope::enter(ms(7), Some(Arc::clone(&hook)), None);
        assert_eq!(active_timeout(), (true, ms(7)));
        let inner = BusyScope::enter(ms(9), None, None);
        assert_eq!(active_timeout(), (true, ms(9)));
        assert!(inner.finish().is_none());
        assert_eq!(
            active_timeout(),
            (true, ms(7)),
            "the outer scope's state is back"
        );
        let back = outer.finish().expect("the hook comes back");
        assert!(Arc::ptr_eq(&back, &hook));
        assert!(!active_timeout().0);
        // Dropped rather than finished: closed all the same.
        drop(BusyScope::enter(ms(5), Some(hook), None));
        assert!(!active_timeout().0);
        assert!(BUSY.with(|cell| cell.borrow().hook.is_none()));
    }
}
