//! The client statement a connection ran last, kept prepared between requests.
//!
//! Clients repeat a few statements over and over, and a pooled connection mostly runs the same
//! text again. rusqlite's `prepare_cached` takes a statement out of its LRU cache by hashing the
//! text, and its `CachedStatement` puts it back when dropped (clearing its bindings, hashing the
//! text again and relinking the LRU): about 3.5 % of the node's CPU for `select 1`. So a
//! connection holds on to the `CachedStatement` of its last client statement ([`LastStatement`])
//! and, when the next statement has the same text, binds and steps it again with no cache
//! traffic at all (one comparison of the text). A different text gives the kept statement back
//! to rusqlite's cache (its ordinary drop) and takes its own from there, as before.
//!
//! What stays true:
//! - The kept statement was prepared by `prepare_cached` under the client check (`authorizer`),
//!   like every statement in rusqlite's cache; only the statements of a translation
//!   (`translated`) and the queries answering a catalog statement (`run_query`), which run under
//!   that check, take or keep one. So the node's own statements still never reach a client, and
//!   a statement SQLite recompiles (schema change) is checked again.
//! - It is reset between uses: its rows were read through `Rows` or `raw_execute`, both of
//!   which reset the statement; every placeholder is bound again before each run (the engine
//!   refuses a run whose argument count differs).
//! - It is one statement more than the cache's capacity, and only texts the cache would keep
//!   (at most `CACHED_STATEMENT_MAX_LEN` bytes) are kept; with a cache capacity of 0 nothing is.
//! - A `CachedStatement` borrows the connection. The connection lives behind [`OwnedConn`], at
//!   one heap address for its whole life and only ever lent out shared, and the kept statement
//!   is dropped before it (`SqliteConn` declares its `kept` field before its `conn`), so the
//!   borrow is valid for as long as the statement exists.

use std::ops::Deref;
use std::ptr::NonNull;

use rusqlite::{CachedStatement, Connection};

/// A connection owned at a fixed heap address and only ever lent out shared (`&Connection`),
/// so that statements borrowing it can be kept beside it (see the module docs).
pub(crate) struct OwnedConn(NonNull<Connection>);

// SAFETY: `OwnedConn` owns its `Connection` as a `Box` would (it frees it on drop and hands out
// no other owner), and `Connection` is `Send`; moving the owner to another thread moves the
// connection with it. It is not `Sync`, as `Connection` is not.
unsafe impl Send for OwnedConn {}

impl OwnedConn {
    pub(crate) fn new(conn: Connection) -> Self {
        Self(NonNull::from(Box::leak(Box::new(conn))))
    }

    /// The connection, for statements that outlive the borrow of `self` (kept in a
    /// [`LastStatement`] beside it).
    ///
    /// # Safety
    /// The caller drops every borrow made from the returned reference before this `OwnedConn`
    /// is dropped.
    pub(crate) unsafe fn for_kept_statement(&self) -> &'static Connection {
        // SAFETY: the connection is alive and never moves until `self` drops (it is on the heap
        // and `self` hands out no `&mut`); the caller promises the borrow ends before that.
        unsafe { self.0.as_ref() }
    }
}

impl Deref for OwnedConn {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // SAFETY: the pointer came from `Box::leak` in `new` and is freed only in `drop`; only
        // shared borrows of the connection are ever made.
        unsafe { self.0.as_ref() }
    }
}

impl Drop for OwnedConn {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::leak` in `new`, is freed only here, once; every
        // statement kept beside it was dropped before (the owner's field order).
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

/// The connection's last client statement with its text (see the module docs).
pub(crate) struct LastStatement {
    /// The text, in a buffer reused for the next text kept (no allocation per new text that
    /// fits).
    sql: String,
    stmt: CachedStatement<'static>,
}

// SAFETY: the statement is used only through `&mut SqliteConn`, which owns it and its
// connection and is used by one thread at a time (connections are opened NO_MUTEX and owned by
// one session at a time); a SQLite statement may move between threads with its connection as
// long as the two are not used by two threads at once.
unsafe impl Send for LastStatement {}

impl LastStatement {
    /// Takes the statement kept in `slot` if it was prepared from `sql`; otherwise gives it
    /// back to rusqlite's cache and prepares (or takes from the cache) `sql`'s on `conn`, the
    /// connection whose statements `slot` keeps.
    pub(crate) fn take(
        slot: &mut Option<LastStatement>,
        conn: &'static Connection,
        sql: &str,
    ) -> rusqlite::Result<(String, CachedStatement<'static>)> {
        let mut text = match slot.take() {
            Some(last) if last.sql == sql => return Ok((last.sql, last.stmt)),
            Some(last) => {
                // Back to rusqlite's cache before preparing: the same statement could be there.
                drop(last.stmt);
                last.sql
            }
            None => String::new(),
        };
        let stmt = conn.prepare_cached(sql)?;
        text.clear();
        text.push_str(sql);
        Ok((text, stmt))
    }

    /// Keeps `stmt`, prepared from `sql`, for the next statement.
    pub(crate) fn keep(
        slot: &mut Option<LastStatement>,
        sql: String,
        stmt: CachedStatement<'static>,
    ) {
        *slot = Some(LastStatement { sql, stmt });
    }
}

impl std::fmt::Debug for LastStatement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastStatement")
            .field("sql", &self.sql)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_reuses_the_kept_statement_and_another_text_returns_it_to_the_cache() {
        let owner = OwnedConn::new(Connection::open_in_memory().unwrap());
        // SAFETY: `slot` and every statement are dropped before `owner` (explicitly, below).
        let conn = unsafe { owner.for_kept_statement() };
        conn.set_prepared_statement_cache_capacity(4);
        let mut slot = None;
        let count = |conn: &Connection| {
            // Statements prepared on the connection, kept or cached alike.
            let mut n = 0;
            // SAFETY: reads the connection's statement list on this thread while no statement
            // is being prepared or finalized.
            unsafe {
                let mut stmt =
                    rusqlite::ffi::sqlite3_next_stmt(conn.handle(), std::ptr::null_mut());
                while !stmt.is_null() {
                    n += 1;
                    stmt = rusqlite::ffi::sqlite3_next_stmt(conn.handle(), stmt);
                }
            }
            n
        };
        for round in 0..3 {
            let (sql, mut stmt) = LastStatement::take(&mut slot, conn, "select ?1").unwrap();
            stmt.raw_bind_parameter(1, round).unwrap();
            let got: i64 = stmt.raw_query().next().unwrap().unwrap().get(0).unwrap();
            assert_eq!(got, round);
            LastStatement::keep(&mut slot, sql, stmt);
            assert_eq!(count(conn), 1, "one statement, reused");
        }
        let (sql, stmt) = LastStatement::take(&mut slot, conn, "select 2").unwrap();
        LastStatement::keep(&mut slot, sql, stmt);
        assert_eq!(count(conn), 2, "the first went back to the cache, not away");
        let (sql, stmt) = LastStatement::take(&mut slot, conn, "select ?1").unwrap();
        assert_eq!(
            count(conn),
            2,
            "taken back from the cache, not prepared again"
        );
        LastStatement::keep(&mut slot, sql, stmt);
        drop(slot);
        drop(owner);
    }
}
