//! The MySQL statements a MySQL client sends that SQLite does not know, recognised before SQLite
//! sees the text.
//!
//! Matching is on whole words, case-insensitive, after leading whitespace and comments and before
//! trailing whitespace and `;`. Anything not recognised here goes to SQLite unchanged, so SQLite's
//! own error (usually a syntax error, 1064) reports what is wrong.
//!
//! | statement | meaning |
//! | --- | --- |
//! | `BEGIN [WORK \| TRANSACTION]`, `START TRANSACTION [READ ONLY \| READ WRITE \| WITH CONSISTENT SNAPSHOT, …]` | [`Compat::Begin`] |
//! | `BEGIN DEFERRED \| IMMEDIATE \| EXCLUSIVE [TRANSACTION]` (SQLite's own) | [`Compat::Begin`] with that mode |
//! | `COMMIT [WORK \| TRANSACTION]`, `END [TRANSACTION]` | [`Compat::Commit`] |
//! | `ROLLBACK [WORK \| TRANSACTION]` (not `ROLLBACK … TO …`, which SQLite runs) | [`Compat::Rollback`] |
//! | `SET NAMES …`, `SET CHARACTER SET …`, `SET [scope] TRANSACTION …` | [`Compat::Set`] without effect |
//! | `SET [GLOBAL \| SESSION \| LOCAL \| @@…] name = value [, …]` | [`Compat::Set`]; only a session `autocommit` has an effect |
//! | `SET … sql_mode = '…PIPES_AS_CONCAT…'` (or ANSI, ORACLE, POSTGRESQL, MSSQL, DB2, MAXDB) | [`Compat::UnsupportedSqlMode`]: refused, `\|\|` stays OR |

/// How a transaction starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BeginMode {
    /// `BEGIN`/`START TRANSACTION`: the engine's configured default.
    Default,
    /// `START TRANSACTION READ ONLY`: always deferred, since it never writes.
    ReadOnly,
    /// `BEGIN DEFERRED`.
    Deferred,
    /// `BEGIN IMMEDIATE`.
    Immediate,
    /// `BEGIN EXCLUSIVE`.
    Exclusive,
}

/// What a statement is, for the engine's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SqlInfo {
    /// INSERT or REPLACE: may generate an insert id.
    pub(crate) insert: bool,
    /// CREATE, DROP, ATTACH or DETACH: may create or drop temp objects or attached databases.
    pub(crate) state_change: bool,
    /// Whether `autocommit = 0` opens a transaction before it. SQLite refuses ATTACH, DETACH and
    /// VACUUM inside a transaction, and PRAGMAs are settings rather than data.
    pub(crate) implicit_txn: bool,
    /// CREATE TABLE or ALTER TABLE: the strict-write triggers are generated afterwards.
    pub(crate) table_ddl: TableDdl,
}

/// A statement that creates or alters tables (see the `strict` module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableDdl {
    /// Neither.
    None,
    /// `CREATE [TEMP | TEMPORARY] TABLE …`.
    Create,
    /// `ALTER TABLE …`.
    Alter,
}

/// A classified statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Compat {
    /// Nothing but whitespace, comments and `;`.
    Empty,
    /// SQL for SQLite.
    Sql(SqlInfo),
    /// Start a transaction.
    Begin(BeginMode),
    /// Commit the open transaction, if any.
    Commit,
    /// Roll back the open transaction, if any.
    Rollback,
    /// A SET statement; `autocommit` is the new session autocommit, when it sets one.
    Set {
        /// The session `autocommit` value it assigns, if it assigns one.
        autocommit: Option<bool>,
    },
    /// `SET autocommit = <not a boolean>`; carries the value as written.
    BadAutocommit(String),
    /// `SET sql_mode = '…'` with a mode that makes `||` concatenation (PIPES_AS_CONCAT, or a
    /// combination mode holding it): the engine answers `||` as OR, so it refuses the mode
    /// rather than give other values than MySQL would under it. Carries the mode's name.
    UnsupportedSqlMode(String),
}

/// `sql_mode` words that make `||` string concatenation (MySQL's and MariaDB's combination
/// modes that include PIPES_AS_CONCAT).
const CONCAT_MODES: &[&str] = &[
    "PIPES_AS_CONCAT",
    "ANSI",
    "ORACLE",
    "POSTGRESQL",
    "MSSQL",
    "DB2",
    "MAXDB",
];

/// Classifies one statement.
pub(crate) fn classify(sql: &str) -> Compat {
    let text = trim_statement(sql);
    if text.is_empty() {
        return Compat::Empty;
    }
    let first = first_word(text);
    let keyword = |word: &str| first.eq_ignore_ascii_case(word);
    let words = || text.split_ascii_whitespace();
    let matches = |pattern: &[&str]| {
        let mut it = words();
        pattern
            .iter()
            .all(|p| it.next().is_some_and(|w| w.eq_ignore_ascii_case(p)))
            && it.next().is_none()
    };
    if keyword("begin") {
        if matches(&["begin"]) || matches(&["begin", "work"]) || matches(&["begin", "transaction"])
        {
            return Compat::Begin(BeginMode::Default);
        }
        for (word, mode) in [
            ("deferred", BeginMode::Deferred),
            ("immediate", BeginMode::Immediate),
            ("exclusive", BeginMode::Exclusive),
        ] {
            if matches(&["begin", word]) || matches(&["begin", word, "transaction"]) {
                return Compat::Begin(mode);
            }
        }
    } else if keyword("start") {
        if let Some(mode) = start_transaction(text) {
            return Compat::Begin(mode);
        }
    } else if keyword("commit") || keyword("end") {
        if matches(&[first])
            || matches(&[first, "work"]) && keyword("commit")
            || matches(&[first, "transaction"])
        {
            return Compat::Commit;
        }
    } else if keyword("rollback") {
        if matches(&["rollback"])
            || matches(&["rollback", "work"])
            || matches(&["rollback", "transaction"])
        {
            return Compat::Rollback;
        }
    } else if keyword("set") {
        if let Some(set) = set_statement(&text[first.len()..]) {
            return set;
        }
    }
    let second = words()
        .nth(1)
        .map(|w| w.split('(').next().unwrap_or(w))
        .unwrap_or("");
    let third = words().nth(2).unwrap_or("");
    let table_ddl = if keyword("create")
        && (second.eq_ignore_ascii_case("table")
            || (second.eq_ignore_ascii_case("temp") || second.eq_ignore_ascii_case("temporary"))
                && third.eq_ignore_ascii_case("table"))
    {
        TableDdl::Create
    } else if keyword("alter") && second.eq_ignore_ascii_case("table") {
        TableDdl::Alter
    } else {
        TableDdl::None
    };
    Compat::Sql(SqlInfo {
        table_ddl,
        insert: keyword("insert") || keyword("replace"),
        state_change: keyword("create")
            || keyword("drop")
            || keyword("attach")
            || keyword("detach"),
        implicit_txn: !(keyword("attach")
            || keyword("detach")
            || keyword("vacuum")
            || keyword("pragma")),
    })
}

/// Strips leading whitespace and comments, and trailing whitespace and `;`.
pub(crate) fn trim_statement(sql: &str) -> &str {
    let mut text = sql;
    loop {
        text = text.trim_start();
        if let Some(rest) = text.strip_prefix("/*") {
            match rest.find("*/") {
                Some(end) => text = &rest[end + 2..],
                None => return "",
            }
        } else if let Some(rest) = text.strip_prefix("--").or_else(|| text.strip_prefix('#')) {
            match rest.find('\n') {
                Some(end) => text = &rest[end + 1..],
                None => return "",
            }
        } else {
            break;
        }
    }
    text.trim_end_matches(|c: char| c == ';' || c.is_whitespace())
}

/// The first word: letters, digits and `_`.
fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// `START TRANSACTION [characteristic [, characteristic]…]`.
fn start_transaction(text: &str) -> Option<BeginMode> {
    let mut words = text
        .split(|c: char| c.is_ascii_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    let start = words.next()?;
    let transaction = words.next()?;
    if !start.eq_ignore_ascii_case("start") || !transaction.eq_ignore_ascii_case("transaction") {
        return None;
    }
    let mut read_only = false;
    let rest: Vec<&str> = words.collect();
    let mut i = 0;
    while i < rest.len() {
        let pair = |a: &str, b: &str| {
            rest[i].eq_ignore_ascii_case(a)
                && rest.get(i + 1).is_some_and(|w| w.eq_ignore_ascii_case(b))
        };
        if pair("read", "only") {
            read_only = true;
            i += 2;
        } else if pair("read", "write") {
            i += 2;
        } else if pair("with", "consistent")
            && rest
                .get(i + 2)
                .is_some_and(|w| w.eq_ignore_ascii_case("snapshot"))
        {
            i += 3;
        } else {
            return None;
        }
    }
    Some(if read_only {
        BeginMode::ReadOnly
    } else {
        BeginMode::Default
    })
}

/// The part of a SET statement after `SET`. `None` when it is not one we understand (SQLite then
/// reports the syntax error).
fn set_statement(rest: &str) -> Option<Compat> {
    let rest = rest.trim_start();
    let mut words = rest.split_ascii_whitespace();
    let first = words.next()?;
    let second = words.next();
    let is = |w: Option<&str>, k: &str| w.is_some_and(|w| w.eq_ignore_ascii_case(k));
    if is(Some(first), "names")
        || is(Some(first), "charset")
        || is(Some(first), "character") && is(second, "set")
        || is(Some(first), "transaction")
        || ["session", "global", "local"]
            .iter()
            .any(|s| is(Some(first), s))
            && is(second, "transaction")
    {
        return Some(Compat::Set { autocommit: None });
    }
    let mut autocommit = None;
    for item in split_top_level(rest) {
        let (lhs, rhs) = split_assignment(item)?;
        let (name, global) = variable_name(lhs)?;
        if name.eq_ignore_ascii_case("sql_mode") {
            let concat = rhs
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .find(|w| CONCAT_MODES.iter().any(|m| m.eq_ignore_ascii_case(w)));
            if let Some(mode) = concat {
                return Some(Compat::UnsupportedSqlMode(mode.to_ascii_uppercase()));
            }
        }
        if name.eq_ignore_ascii_case("autocommit") && !global {
            match parse_bool(rhs) {
                Some(value) => autocommit = Some(value),
                None => return Some(Compat::BadAutocommit(rhs.trim().to_owned())),
            }
        }
    }
    Some(Compat::Set { autocommit })
}

/// Splits on commas outside quotes and parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(q) => {
                if c == '\\' && q != '`' {
                    chars.next();
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    items.push(&text[start..i]);
                    start = i + 1;
                }
                _ => {}
            },
        }
    }
    items.push(&text[start..]);
    items
}

/// `lhs = rhs` or `lhs := rhs`, split at the first `=` outside quotes.
fn split_assignment(item: &str) -> Option<(&str, &str)> {
    let mut quote: Option<char> = None;
    for (i, c) in item.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '\'' | '"' | '`') => quote = Some(c),
            None if c == '=' => {
                let lhs = item[..i].strip_suffix(':').unwrap_or(&item[..i]);
                return Some((lhs.trim(), &item[i + 1..]));
            }
            None => {}
        }
    }
    None
}

/// The variable an assignment names, and whether it is global. Accepts `name`, `@user_var`,
/// `@@name`, `@@session.name`, `@@local.name`, `@@global.name`, `@@persist.name` and the
/// `SESSION`/`LOCAL`/`GLOBAL`/`PERSIST`/`PERSIST_ONLY` word forms.
fn variable_name(lhs: &str) -> Option<(&str, bool)> {
    let lower_starts =
        |s: &str, p: &str| s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p);
    let mut words = lhs.split_ascii_whitespace();
    let first = words.next()?;
    let (name, global) = match words.next() {
        Some(name) => {
            let global = if ["session", "local"]
                .iter()
                .any(|s| first.eq_ignore_ascii_case(s))
            {
                false
            } else if ["global", "persist", "persist_only"]
                .iter()
                .any(|s| first.eq_ignore_ascii_case(s))
            {
                true
            } else {
                return None;
            };
            (name, global)
        }
        None => {
            if let Some(rest) = first.strip_prefix("@@") {
                let mut global = false;
                let mut name = rest;
                for (prefix, is_global) in [
                    ("session.", false),
                    ("local.", false),
                    ("global.", true),
                    ("persist.", true),
                    ("persist_only.", true),
                ] {
                    if lower_starts(rest, prefix) {
                        name = &rest[prefix.len()..];
                        global = is_global;
                        break;
                    }
                }
                (name, global)
            } else {
                (first, false)
            }
        }
    };
    if words.next().is_some() || name.is_empty() {
        return None;
    }
    Some((name.trim_matches('`'), global))
}

/// MySQL's boolean spellings for a system variable, quoted or not.
fn parse_bool(value: &str) -> Option<bool> {
    let value = value.trim();
    let value = value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value);
    ["1", "on", "true", "default"]
        .iter()
        .any(|t| value.eq_ignore_ascii_case(t))
        .then_some(true)
        .or_else(|| {
            ["0", "off", "false"]
                .iter()
                .any(|f| value.eq_ignore_ascii_case(f))
                .then_some(false)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(autocommit: Option<bool>) -> Compat {
        Compat::Set { autocommit }
    }

    #[test]
    fn transactions() {
        for sql in [
            "begin",
            "BEGIN;",
            " Begin Work ; ",
            "begin transaction",
            "START TRANSACTION",
            "start transaction read write",
            "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE;",
            "/* hint */ start\ttransaction",
        ] {
            assert_eq!(classify(sql), Compat::Begin(BeginMode::Default), "{sql}");
        }
        assert_eq!(
            classify("start transaction read only"),
            Compat::Begin(BeginMode::ReadOnly)
        );
        assert_eq!(
            classify("begin immediate transaction"),
            Compat::Begin(BeginMode::Immediate)
        );
        for sql in [
            "commit",
            "COMMIT WORK;",
            "end",
            "END TRANSACTION",
            "commit transaction",
        ] {
            assert_eq!(classify(sql), Compat::Commit, "{sql}");
        }
        for sql in ["rollback", "ROLLBACK WORK ;", "rollback transaction"] {
            assert_eq!(classify(sql), Compat::Rollback, "{sql}");
        }
        for sql in [
            "rollback to savepoint a",
            "end work",
            "start transaction read",
            "beginning",
            "committed",
        ] {
            assert!(matches!(classify(sql), Compat::Sql(_)), "{sql}");
        }
    }

    #[test]
    fn set_statements() {
        assert_eq!(classify("SET autocommit = 0"), set(Some(false)));
        assert_eq!(classify("set autocommit=1;"), set(Some(true)));
        assert_eq!(classify("SET @@autocommit = OFF"), set(Some(false)));
        assert_eq!(classify("SET @@session.autocommit='ON'"), set(Some(true)));
        assert_eq!(classify("set session autocommit := true"), set(Some(true)));
        assert_eq!(
            classify("SET sql_mode = 'a,b', autocommit = 0, @x = (1, 2)"),
            set(Some(false))
        );
        assert_eq!(classify("SET GLOBAL autocommit = 0"), set(None));
        assert_eq!(classify("set @@global.autocommit = 0"), set(None));
        assert_eq!(classify("SET NAMES utf8mb4 COLLATE utf8mb4_bin"), set(None));
        assert_eq!(classify("set character set utf8"), set(None));
        assert_eq!(
            classify("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            set(None)
        );
        assert_eq!(classify("SET time_zone = '+08:00'"), set(None));
        assert_eq!(
            classify("SET autocommit = 5"),
            Compat::BadAutocommit("5".into())
        );
        assert!(matches!(classify("SET garbage"), Compat::Sql(_)));
        assert_eq!(
            classify("SET SESSION sql_mode = 'STRICT_TRANS_TABLES,pipes_as_concat'"),
            Compat::UnsupportedSqlMode("PIPES_AS_CONCAT".into())
        );
        assert_eq!(
            classify("set @@sql_mode = 'ANSI'"),
            Compat::UnsupportedSqlMode("ANSI".into())
        );
        assert_eq!(
            classify("SET sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES'"),
            set(None)
        );
    }

    #[test]
    fn plain_sql_and_empty() {
        assert_eq!(classify("  ;; "), Compat::Empty);
        assert_eq!(classify("-- only a comment"), Compat::Empty);
        assert_eq!(
            classify("insert into t values (1)"),
            Compat::Sql(SqlInfo {
                insert: true,
                state_change: false,
                implicit_txn: true,
                table_ddl: TableDdl::None,
            })
        );
        assert_eq!(
            classify("ATTACH 'x.db' AS x"),
            Compat::Sql(SqlInfo {
                insert: false,
                state_change: true,
                implicit_txn: false,
                table_ddl: TableDdl::None,
            })
        );
        assert_eq!(
            classify("create temp table t(a)"),
            Compat::Sql(SqlInfo {
                insert: false,
                state_change: true,
                implicit_txn: true,
                table_ddl: TableDdl::Create,
            })
        );
        assert!(matches!(
            classify("ALTER TABLE t ADD COLUMN c INT"),
            Compat::Sql(SqlInfo {
                table_ddl: TableDdl::Alter,
                ..
            })
        ));
        assert_eq!(trim_statement("/* a */ -- b\n select 1 ; \n"), "select 1");
    }
}
