//! The process's TCP connections to each node, shared by every DB-API connection.
//!
//! A DB-API connection is one protocol session. Sessions are opened on a small set of TCP
//! connections per node and login (address, user, password, database, TLS settings): a new
//! session goes to the live connection with the fewest sessions, and another connection is
//! opened only when none exists or every one holds `sessions_per_connection` sessions, up to
//! `connections`. So a process that opens thousands of DB-API connections uses a handful of
//! sockets, and the node runs them as thousands of sessions.
//!
//! Sessions are never reused: closing a DB-API connection closes its session on the node (which
//! rolls back what it left open), and the next `connect` gets a fresh session with no variables,
//! temporary tables or current database left over from someone else.
//!
//! A connection that breaks fails every session on it; it is dropped from the set on the next
//! pick, and a later `connect` opens a new one. Connecting is serialised per set (the gate), so
//! a burst of callers opens one connection, not one each.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;

/// What the pool needs to know about a connection of either transport.
pub(crate) trait Shared: Clone {
    fn sessions(&self) -> usize;
    fn broken(&self) -> bool;
}

impl Shared for xrpc_client::blocking::Connection {
    fn sessions(&self) -> usize {
        self.session_count()
    }
    fn broken(&self) -> bool {
        self.is_broken()
    }
}

impl Shared for xrpc_client::aio::Connection {
    fn sessions(&self) -> usize {
        self.session_count()
    }
    fn broken(&self) -> bool {
        self.is_broken()
    }
}

/// Limits of one set of connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Limits {
    pub(crate) connections: usize,
    pub(crate) sessions_per_connection: usize,
}

/// The connections of one node and login.
#[derive(Debug)]
pub(crate) struct Set<C> {
    limits: Limits,
    conns: Mutex<Vec<C>>,
}

impl<C: Shared> Set<C> {
    fn new(limits: Limits) -> Self {
        Self {
            limits,
            conns: Mutex::new(Vec::new()),
        }
    }

    /// The live connection with the fewest sessions, unless a new one should be opened (none
    /// live, or all at the session limit while there is room for another).
    pub(crate) fn pick(&self) -> Option<C> {
        let mut conns = self.conns.lock();
        conns.retain(|c| !c.broken());
        let (least, count) = conns
            .iter()
            .map(|c| (c, c.sessions()))
            .min_by_key(|(_, n)| *n)?;
        let full = count >= self.limits.sessions_per_connection;
        if full && conns.len() < self.limits.connections {
            return None;
        }
        Some(least.clone())
    }

    /// Adds a connection just opened.
    pub(crate) fn add(&self, conn: C) {
        self.conns.lock().push(conn);
    }

    /// Live connections (for tests and monitoring).
    pub(crate) fn live(&self) -> usize {
        let mut conns = self.conns.lock();
        conns.retain(|c| !c.broken());
        conns.len()
    }
}

/// One set of connections and the gate its connects go through.
type Entry<C, G> = (Arc<Set<C>>, Arc<G>);

/// The sets of one transport, by key, each with its connect gate.
pub(crate) struct Registry<C, G> {
    sets: LazyLock<Mutex<HashMap<String, Entry<C, G>>>>,
}

impl<C: Shared, G: Default> Registry<C, G> {
    pub(crate) const fn new() -> Self {
        Self {
            sets: LazyLock::new(|| Mutex::new(HashMap::new())),
        }
    }

    /// The set for `key`, created with `limits` if it does not exist yet.
    pub(crate) fn set(&self, key: &str, limits: Limits) -> (Arc<Set<C>>, Arc<G>) {
        let mut sets = self.sets.lock();
        let (set, gate) = sets
            .entry(key.to_owned())
            .or_insert_with(|| (Arc::new(Set::new(limits)), Arc::new(G::default())));
        (Arc::clone(set), Arc::clone(gate))
    }

    /// Live connections over every set.
    pub(crate) fn live(&self) -> usize {
        let sets: Vec<_> = self
            .sets
            .lock()
            .values()
            .map(|(s, _)| Arc::clone(s))
            .collect();
        sets.iter().map(|s| s.live()).sum()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    #[derive(Clone, Default)]
    struct Fake(Arc<(AtomicUsize, AtomicBool)>);

    impl Shared for Fake {
        fn sessions(&self) -> usize {
            self.0.0.load(Ordering::Relaxed)
        }
        fn broken(&self) -> bool {
            self.0.1.load(Ordering::Relaxed)
        }
    }

    #[test]
    fn sessions_fill_the_least_loaded_connection_and_open_more_only_when_all_are_full() {
        let set = Set::new(Limits {
            connections: 2,
            sessions_per_connection: 3,
        });
        assert!(set.pick().is_none(), "no connection yet");
        let first = Fake::default();
        set.add(first.clone());
        first.0.0.store(2, Ordering::Relaxed);
        assert!(set.pick().is_some());
        first.0.0.store(3, Ordering::Relaxed);
        assert!(set.pick().is_none(), "full: room for a second connection");
        let second = Fake::default();
        set.add(second.clone());
        second.0.0.store(3, Ordering::Relaxed);
        // Both full and no room: the least loaded one takes it (the node enforces its own limit).
        assert!(set.pick().is_some());
        second.0.1.store(true, Ordering::Relaxed);
        assert!(set.pick().is_none(), "a broken connection leaves room");
        assert_eq!(set.live(), 1);
    }
}
