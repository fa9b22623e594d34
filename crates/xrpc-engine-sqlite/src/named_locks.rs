//! MySQL's named locks (`GET_LOCK`, `RELEASE_LOCK`, `IS_FREE_LOCK`, `IS_USED_LOCK`,
//! `RELEASE_ALL_LOCKS`): advisory locks of the whole engine, held by sessions.
//!
//! One registry per engine, shared by its connections: a lock is held by the session that
//! took it (its connection id) and counted, as MariaDB counts a lock a session takes again;
//! it is free once released as many times. Names compare as MariaDB compares them,
//! case-insensitively. A lock is not transactional: ROLLBACK keeps it; the session's end
//! (the engine's reset of its connection, or the connection closing) releases all of its
//! locks, and while it holds one the session keeps its connection (it holds session state).
//!
//! `GET_LOCK` with a timeout waits for the lock in steps of at most 50 ms, woken when any lock
//! is released, inside the statement's wait hook (the worker counts as stalled) and ended by
//! a kill, which then ends the statement with 1317.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// The longest a waiting `GET_LOCK` sleeps before it looks at its kill flag again.
const WAIT_STEP: Duration = Duration::from_millis(50);

/// The engine's named locks.
#[derive(Debug, Default)]
pub(crate) struct NamedLocks {
    held: Mutex<HashMap<String, Holder>>,
    released: Condvar,
}

#[derive(Debug, Clone, Copy)]
struct Holder {
    session: u64,
    count: u64,
}

/// How a [`NamedLocks::get`] that waits asks whether to go on waiting: called before each wait
/// step; `false` (the statement was killed) ends the wait.
pub(crate) type KeepWaiting<'a> = &'a mut dyn FnMut() -> bool;

impl NamedLocks {
    /// `GET_LOCK(name, timeout)` for `session`: whether it holds the lock now (`false` when
    /// `timeout` ran out, or the wait was ended). `None` as timeout waits without end.
    pub(crate) fn get(
        &self,
        name: &str,
        session: u64,
        timeout: Option<Duration>,
        keep_waiting: KeepWaiting<'_>,
    ) -> bool {
        let key = key(name);
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut held = self.held.lock();
        loop {
            match held.get_mut(&key) {
                None => {
                    held.insert(key, Holder { session, count: 1 });
                    return true;
                }
                Some(holder) if holder.session == session => {
                    holder.count += 1;
                    return true;
                }
                Some(_) => {}
            }
            let step = match deadline {
                Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left.min(WAIT_STEP),
                    _ => return false,
                },
                None => WAIT_STEP,
            };
            // Foreign code (the wait hook) runs without the registry's lock.
            let go_on = parking_lot::MutexGuard::unlocked(&mut held, &mut *keep_waiting);
            if !go_on {
                return false;
            }
            self.released.wait_for(&mut held, step);
        }
    }

    /// `RELEASE_LOCK(name)` for `session`: `Some(true)` when it held the lock (released once),
    /// `Some(false)` when another session holds it, `None` when nobody does.
    pub(crate) fn release(&self, name: &str, session: u64) -> Option<bool> {
        let key = key(name);
        let mut held = self.held.lock();
        let holder = held.get_mut(&key)?;
        if holder.session != session {
            return Some(false);
        }
        holder.count -= 1;
        if holder.count == 0 {
            held.remove(&key);
            self.released.notify_all();
        }
        Some(true)
    }

    /// The session holding lock `name` (`IS_USED_LOCK`); `None` when it is free
    /// (`IS_FREE_LOCK`).
    pub(crate) fn holder(&self, name: &str) -> Option<u64> {
        self.held.lock().get(&key(name)).map(|h| h.session)
    }

    /// Releases every lock `session` holds (`RELEASE_ALL_LOCKS()`, the session's end): how
    /// many times they had been taken.
    pub(crate) fn release_all(&self, session: u64) -> u64 {
        let mut held = self.held.lock();
        let mut released = 0;
        held.retain(|_, holder| {
            let mine = holder.session == session;
            if mine {
                released += holder.count;
            }
            !mine
        });
        if released > 0 {
            self.released.notify_all();
        }
        released
    }

    /// Whether `session` holds any lock.
    pub(crate) fn holds_any(&self, session: u64) -> bool {
        self.held.lock().values().any(|h| h.session == session)
    }
}

/// Names compare case-insensitively.
fn key(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_wait() -> impl FnMut() -> bool {
        || true
    }

    #[test]
    fn a_lock_taken_twice_by_its_holder_is_free_after_two_releases() {
        let locks = NamedLocks::default();
        assert!(locks.get("m", 1, Some(Duration::ZERO), &mut never_wait()));
        assert!(locks.get("M", 1, Some(Duration::ZERO), &mut never_wait()));
        assert_eq!(locks.release("m", 1), Some(true));
        assert_eq!(locks.holder("m"), Some(1));
        assert_eq!(locks.release("m", 1), Some(true));
        assert_eq!(locks.holder("m"), None);
        assert_eq!(locks.release("m", 1), None);
    }

    #[test]
    fn another_sessions_lock_times_out_and_cannot_be_released() {
        let locks = NamedLocks::default();
        assert!(locks.get("m", 1, Some(Duration::ZERO), &mut never_wait()));
        assert!(!locks.get("m", 2, Some(Duration::from_millis(20)), &mut never_wait()));
        assert_eq!(locks.release("m", 2), Some(false));
    }

    #[test]
    fn a_waiting_get_takes_the_lock_its_holder_releases() {
        let locks = std::sync::Arc::new(NamedLocks::default());
        assert!(locks.get("m", 1, Some(Duration::ZERO), &mut never_wait()));
        let waiter = {
            let locks = std::sync::Arc::clone(&locks);
            std::thread::spawn(move || locks.get("m", 2, None, &mut || true))
        };
        assert_eq!(locks.release_all(1), 1);
        assert!(waiter.join().unwrap());
        assert_eq!(locks.holder("m"), Some(2));
    }

    #[test]
    fn a_wait_ends_when_it_is_told_to_stop() {
        let locks = NamedLocks::default();
        assert!(locks.get("m", 1, Some(Duration::ZERO), &mut never_wait()));
        assert!(!locks.get("m", 2, None, &mut || false));
    }

    #[test]
    fn the_sessions_end_releases_every_count_of_every_lock() {
        let locks = NamedLocks::default();
        for name in ["a", "a", "b"] {
            assert!(locks.get(name, 7, Some(Duration::ZERO), &mut never_wait()));
        }
        assert!(locks.holds_any(7));
        assert_eq!(locks.release_all(7), 3);
        assert!(!locks.holds_any(7));
    }
}
