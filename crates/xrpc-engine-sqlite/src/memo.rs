//! A connection's memo of what the text passes made of the SQL it ran.
//!
//! Before SQLite sees a statement, it is parsed (`front`) and its text goes through several
//! passes: whether the engine runs it itself (`catalog::parse`), then MySQL's string escapes,
//! casts, the arithmetic and exact-number rewrites and the column hints they leave (`run`). Each
//! pass is a pure function of the text, and clients repeat a few statements (with `?`
//! placeholders) over and over, so a connection keeps their outcome by text and a repeated
//! statement skips them: about a fifth of the server's CPU for `select 1` at high concurrency.
//!
//! Invariants:
//! - Only outcomes that depend on nothing but the text are kept: a statement SQLite runs
//!   ([`Request::Sql`](super::front::Request::Sql)) with its [`SqlInfo`], and the rewritten text
//!   with its hints. Statements the engine runs itself, and texts whose passes fail, are not
//!   kept; they take the passes every time, as before.
//! - The text a rewrite is kept under is the one `run` receives (after `databases::qualify`,
//!   which depends on the session's database), so a change of database never meets a stale
//!   rewrite.
//! - A classified text also carries its rewrite once `run` has made it for that same text (no
//!   qualification in between), so a repeated statement finds both with one lookup; the
//!   rewrite is a pure function of the text, so it is the one the rewrites map keeps for it.
//! - With the translation (`translated`) only the classification is kept: a known text skips
//!   the front end's classification, the arity check and `catalog::parse`, and is translated
//!   (or its kept translation found) from the parse tree.
//! - Bounded: texts longer than [`MAX_TEXT_LEN`] are not kept, and a memo that holds
//!   [`CAPACITY`] texts of a kind is emptied before it takes another, so a connection keeps at
//!   most `2 × CAPACITY × MAX_TEXT_LEN` bytes of keys (and their rewrites). A workload with
//!   more distinct texts than that pays the passes as it did without the memo.

use std::collections::HashMap;
use std::sync::Arc;

use super::cast::ColumnHint;
use super::front::SqlInfo;

/// The longest text kept: longer statements are rarely repeated verbatim.
pub(crate) const MAX_TEXT_LEN: usize = 2048;

/// Texts kept of each kind before the memo is emptied.
pub(crate) const CAPACITY: usize = 128;

type Map<V> = HashMap<Box<str>, V, foldhash::fast::RandomState>;

/// What `run`'s passes made of a statement's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rewrite {
    /// The text SQLite runs; `None` when it is the text itself.
    pub(crate) sql: Option<String>,
    /// The result columns the casts and arithmetic typed or named.
    pub(crate) hints: Vec<ColumnHint>,
}

/// See the module docs.
#[derive(Debug, Default)]
pub(crate) struct TextMemo {
    classified: Map<Known>,
    rewrites: Map<Arc<Rewrite>>,
}

/// What the memo knows of a text SQLite runs.
#[derive(Debug, Clone)]
pub(crate) struct Known {
    pub(crate) info: SqlInfo,
    /// The text's rewrite, once `run` has made it for this very text.
    pub(crate) rewrite: Option<Arc<Rewrite>>,
}

impl TextMemo {
    /// The kept classification of `sql`, a statement SQLite runs, with its rewrite when kept.
    pub(crate) fn known(&self, sql: &str) -> Option<Known> {
        self.classified.get(sql).cloned()
    }

    /// The kept classification of `sql` alone.
    #[cfg(test)]
    pub(crate) fn sql_info(&self, sql: &str) -> Option<SqlInfo> {
        self.classified.get(sql).map(|known| known.info)
    }

    /// Keeps `info` as the classification of `sql`, which `catalog::parse` left to SQLite and
    /// the front end found to be one [`Request::Sql`](super::front::Request::Sql) statement.
    pub(crate) fn keep_sql_info(&mut self, sql: &str, info: SqlInfo) {
        keep(
            &mut self.classified,
            sql,
            Known {
                info,
                rewrite: None,
            },
        );
    }

    /// The kept rewrite of `sql`, or `make`'s, kept when it succeeds.
    pub(crate) fn rewrite<E>(
        &mut self,
        sql: &str,
        make: impl FnOnce(&str) -> Result<Rewrite, E>,
    ) -> Result<Arc<Rewrite>, E> {
        if let Some(rewrite) = self.rewrites.get(sql) {
            return Ok(Arc::clone(rewrite));
        }
        let rewrite = Arc::new(make(sql)?);
        keep(&mut self.rewrites, sql, Arc::clone(&rewrite));
        if let Some(known) = self.classified.get_mut(sql) {
            known.rewrite = Some(Arc::clone(&rewrite));
        }
        Ok(rewrite)
    }

    /// Texts kept, of both kinds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.classified.len() + self.rewrites.len()
    }
}

fn keep<V>(map: &mut Map<V>, sql: &str, value: V) {
    if sql.len() > MAX_TEXT_LEN {
        return;
    }
    if map.len() >= CAPACITY {
        map.clear();
    }
    map.insert(sql.into(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::TableDdl;

    fn info() -> SqlInfo {
        SqlInfo {
            insert: false,
            state_change: false,
            writes: false,
            implicit_commit: false,
            modifies_rows: false,
            locks_for_update: false,
            table_ddl: TableDdl::None,
            catalog: Default::default(),
        }
    }

    #[test]
    fn a_rewrite_is_made_once_per_text_and_failures_are_not_kept() {
        let mut memo = TextMemo::default();
        let mut made = 0;
        let mut make = |sql: &str| {
            made += 1;
            if sql.contains("bad") {
                Err("refused")
            } else {
                Ok(Rewrite {
                    sql: Some(format!("{sql} -- rewritten")),
                    hints: Vec::new(),
                })
            }
        };
        let first = memo.rewrite("select 1", &mut make).unwrap();
        let again = memo.rewrite("select 1", &mut make).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(again.sql.as_deref(), Some("select 1 -- rewritten"));
        assert_eq!(memo.rewrite("select bad", &mut make), Err("refused"));
        assert_eq!(memo.rewrite("select bad", &mut make), Err("refused"));
        assert_eq!(made, 3, "select 1 once, the failing text every time");
    }

    #[test]
    fn a_classified_text_carries_its_rewrite_once_made() {
        let mut memo = TextMemo::default();
        memo.keep_sql_info("select 1", info());
        assert!(memo.known("select 1").unwrap().rewrite.is_none());
        let make = |sql: &str| -> Result<Rewrite, ()> {
            Ok(Rewrite {
                sql: Some(format!("{sql} -- rewritten")),
                hints: Vec::new(),
            })
        };
        let made = memo.rewrite("select 1", make).unwrap();
        let known = memo.known("select 1").unwrap();
        assert_eq!(known.info, info());
        assert!(Arc::ptr_eq(&known.rewrite.unwrap(), &made));
        // A rewrite of a text nobody classified is kept by itself only.
        memo.rewrite("select 2", make).unwrap();
        assert!(memo.known("select 2").is_none());
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
