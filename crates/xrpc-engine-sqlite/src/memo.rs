//! A connection's memo of how it classified the SQL it ran.
//!
//! Before a statement is translated, its parse is classified: whether the engine runs it
//! itself (`catalog::of`), which session statement it is, and otherwise what the translated
//! statement does (`front::request`'s [`SqlInfo`]), after MySQL's argument count check of
//! `CONCAT` (`arity`). Each is a pure function of the text, and clients repeat a few statements
//! (with `?` placeholders) over and over, so a connection keeps the outcome by text and a
//! repeated statement skips them; it is translated (or its kept translation found) from the
//! parse tree.
//!
//! Invariants:
//! - Only outcomes that depend on nothing but the text are kept: a statement the translation
//!   runs ([`Request::Sql`](super::front::Request::Sql)) with its [`SqlInfo`]. Statements the
//!   engine runs itself, and texts whose classification fails, are not kept; they are
//!   classified every time.
//! - Bounded: texts longer than [`MAX_TEXT_LEN`] are not kept, and a memo that holds
//!   [`CAPACITY`] texts is emptied before it takes another, so a connection keeps at most
//!   `CAPACITY × MAX_TEXT_LEN` bytes of keys. A workload with more distinct texts than that
//!   pays the classification as it did without the memo.

use std::collections::HashMap;

use super::front::SqlInfo;

/// The longest text kept: longer statements are rarely repeated verbatim.
pub(crate) const MAX_TEXT_LEN: usize = 2048;

/// Texts kept before the memo is emptied.
pub(crate) const CAPACITY: usize = 128;

/// See the module docs.
#[derive(Debug, Default)]
pub(crate) struct TextMemo {
    classified: HashMap<Box<str>, SqlInfo, foldhash::fast::RandomState>,
}

impl TextMemo {
    /// The kept classification of `sql`, a statement the translation runs.
    pub(crate) fn sql_info(&self, sql: &str) -> Option<SqlInfo> {
        self.classified.get(sql).copied()
    }

    /// Keeps `info` as the classification of `sql`, which `catalog::of` left to the
    /// translation and the front end found to be one
    /// [`Request::Sql`](super::front::Request::Sql) statement.
    pub(crate) fn keep_sql_info(&mut self, sql: &str, info: SqlInfo) {
        if sql.len() > MAX_TEXT_LEN {
            return;
        }
        if self.classified.len() >= CAPACITY {
            self.classified.clear();
        }
        self.classified.insert(sql.into(), info);
    }

    /// Texts kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.classified.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> SqlInfo {
        SqlInfo {
            state_change: false,
            deletes: false,
            implicit_commit: false,
            modifies_rows: false,
            locks_for_update: false,
            catalog: Default::default(),
        }
    }

    #[test]
    fn long_texts_are_not_kept_and_a_full_memo_starts_over() {
        let mut memo = TextMemo::default();
        let long = format!("select '{}'", "x".repeat(MAX_TEXT_LEN));
        memo.keep_sql_info(&long, info());
        assert_eq!(memo.sql_info(&long), None);
        for n in 0..CAPACITY {
            memo.keep_sql_info(&format!("select {n}"), info());
        }
        assert_eq!(memo.len(), CAPACITY);
        assert_eq!(memo.sql_info("select 0"), Some(info()));
        memo.keep_sql_info("select 'one more'", info());
        assert_eq!(memo.len(), 1, "emptied before taking one past the capacity");
        assert_eq!(memo.sql_info("select 'one more'"), Some(info()));
        assert_eq!(memo.sql_info("select 0"), None);
    }
}
