//! What the running statement's callbacks leave for the engine to read when it ends: the error
//! an `xrpc_check`-style function failed it with, the first row it inserted, the first id it
//! generated and its warnings.
//!
//! SQLite calls the node's functions, triggers' checks and the update hook from inside
//! `sqlite3_step`, so these are written through the connection's shared state and read back
//! after the statement. Most statements (every plain query without a cast or arithmetic that
//! warns) touch none of them, and locking and clearing four mutexes before and after each
//! statement was a visible share of a `select 1`. So every write also raises one `touched`
//! flag, and the engine's per-statement clearing and reading skip the mutexes while it is down.
//!
//! Invariant: a note is only ever written through these methods (the fields are private to
//! this module), each of which raises `touched` after writing; `touched` is lowered only by
//! [`StatementNotes::start`], which clears every note. So with `touched` down every note is
//! empty, and skipping them reads what locking them would have. Everything runs on the thread
//! stepping the connection's statement (callbacks are synchronous), so the flag needs no
//! ordering beyond `Relaxed`.

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use xrpc_engine::result::{SqlError, SqlWarning};

use xrpc_engine::MAX_WARNINGS;

/// See the module docs.
#[derive(Debug, Default)]
pub(crate) struct StatementNotes {
    /// Raised by every write below; lowered by `start` (see the module docs' invariant).
    touched: AtomicBool,
    /// The error a node function failed the running statement with: SQLite only passes its
    /// text on.
    error: Mutex<Option<SqlError>>,
    /// The first row the running statement inserted: (database, table, rowid).
    first_insert: Mutex<Option<(String, String, i64)>>,
    /// The first id the running statement generated (not written explicitly).
    first_generated: Mutex<Option<i64>>,
    /// The running statement's warnings, at most [`MAX_WARNINGS`] of them.
    warnings: Mutex<Vec<SqlWarning>>,
}

impl StatementNotes {
    fn touch(&self) {
        self.touched.store(true, Ordering::Relaxed);
    }

    fn touched(&self) -> bool {
        self.touched.load(Ordering::Relaxed)
    }

    /// Clears every note before a statement runs; free when the last statement left none.
    pub(crate) fn start(&self) {
        if self.touched.swap(false, Ordering::Relaxed) {
            self.error.lock().take();
            self.first_insert.lock().take();
            self.first_generated.lock().take();
            self.warnings.lock().clear();
        }
    }

    /// Records the error that fails the running statement (the first one a caller takes wins:
    /// a later `fail` replaces an earlier one nobody took).
    pub(crate) fn fail(&self, err: SqlError) {
        *self.error.lock() = Some(err);
        self.touch();
    }

    /// The recorded error, taken.
    pub(crate) fn take_error(&self) -> Option<SqlError> {
        if !self.touched() {
            return None;
        }
        self.error.lock().take()
    }

    /// Records a warning of the running statement, past [`MAX_WARNINGS`] dropped.
    pub(crate) fn warn(&self, warning: SqlWarning) {
        let mut warnings = self.warnings.lock();
        if warnings.len() < MAX_WARNINGS {
            warnings.push(warning);
        }
        drop(warnings);
        self.touch();
    }

    /// The recorded warnings, taken.
    pub(crate) fn take_warnings(&self) -> Vec<SqlWarning> {
        if !self.touched() {
            return Vec::new();
        }
        std::mem::take(&mut *self.warnings.lock())
    }

    /// Drops the recorded warnings (an earlier statement that failed before taking them).
    pub(crate) fn clear_warnings(&self) {
        if self.touched() {
            self.warnings.lock().clear();
        }
    }

    /// Records an inserted row (the update hook): kept if it is the statement's first, and as
    /// its first generated id too when `generated`.
    pub(crate) fn inserted(&self, database: &str, table: &str, rowid: i64, generated: bool) {
        {
            let mut first = self.first_insert.lock();
            if first.is_none() {
                *first = Some((database.to_owned(), table.to_owned(), rowid));
            }
        }
        if generated {
            self.first_generated.lock().get_or_insert(rowid);
        }
        self.touch();
    }

    /// The statement's first inserted row, taken.
    pub(crate) fn take_first_insert(&self) -> Option<(String, String, i64)> {
        if !self.touched() {
            return None;
        }
        self.first_insert.lock().take()
    }

    /// The statement's first generated id, taken.
    pub(crate) fn take_first_generated(&self) -> Option<i64> {
        if !self.touched() {
            return None;
        }
        self.first_generated.lock().take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xrpc_engine::result::WarningLevel;
    use xrpc_proto::codes;

    fn warning(n: u32) -> SqlWarning {
        SqlWarning {
            level: WarningLevel::Warning,
            code: n,
            message: format!("w{n}"),
        }
    }

    #[test]
    fn notes_written_are_read_back_and_start_clears_them() {
        let notes = StatementNotes::default();
        notes.start();
        assert_eq!(notes.take_error(), None);
        assert!(notes.take_warnings().is_empty());
        notes.warn(warning(1));
        notes.inserted("main", "t", 7, true);
        notes.fail(SqlError::new(&codes::ENGINE_ERROR, "boom"));
        assert_eq!(notes.take_warnings(), vec![warning(1)]);
        assert_eq!(
            notes.take_first_insert(),
            Some(("main".into(), "t".into(), 7))
        );
        assert_eq!(notes.take_first_generated(), Some(7));
        assert_eq!(notes.take_error().map(|e| e.message), Some("boom".into()));
        // Left behind by a statement that did not take them: the next start clears them.
        notes.warn(warning(2));
        notes.inserted("main", "t", 8, false);
        notes.start();
        assert!(notes.take_warnings().is_empty());
        assert_eq!(notes.take_first_insert(), None);
        assert_eq!(notes.take_first_generated(), None);
        // Touched again after a start: seen again.
        notes.warn(warning(3));
        assert_eq!(notes.take_warnings(), vec![warning(3)]);
    }

    #[test]
    fn only_the_first_insert_and_generated_id_are_kept_and_warnings_are_capped() {
        let notes = StatementNotes::default();
        notes.inserted("main", "t", 1, false);
        notes.inserted("main", "t", 2, true);
        notes.inserted("main", "t", 3, true);
        assert_eq!(
            notes.take_first_insert(),
            Some(("main".into(), "t".into(), 1))
        );
        assert_eq!(notes.take_first_generated(), Some(2));
        for n in 0..MAX_WARNINGS as u32 + 5 {
            notes.warn(warning(n));
        }
        assert_eq!(notes.take_warnings().len(), MAX_WARNINGS);
        notes.clear_warnings();
        assert!(notes.take_warnings().is_empty());
    }
}
