//! MySQL's `AUTO_INCREMENT` in `CREATE TABLE` on SQLite.
//!
//! SQLite generates ids only for its rowid alias, a column declared exactly `INTEGER PRIMARY
//! KEY`; with `AUTOINCREMENT` it never reuses an id, even after the largest row is deleted,
//! which is what MySQL 8 (whose counter persists) does. [`rewrite`] turns MySQL's forms
//!
//! - `id INT AUTO_INCREMENT PRIMARY KEY` (the words in any order, `NOT NULL` and `UNSIGNED`
//!   allowed), and
//! - `id BIGINT NOT NULL AUTO_INCREMENT, …, PRIMARY KEY (id)`
//!
//! into `id INTEGER PRIMARY KEY AUTOINCREMENT` (the table's `PRIMARY KEY (id)` removed), so the
//! column generates MySQL's ids: NULL or no value takes the next id (the largest ever used plus
//! one), an explicit id is kept and moves the counter past it, and the insert reports the first
//! generated id. The column's declared type becomes `INTEGER`; the MySQL type it was declared
//! with is kept in a comment next to it (`id INTEGER /*xrpc_declared:INT UNSIGNED*/ PRIMARY
//! KEY AUTOINCREMENT`, which SQLite stores with the table: [`declared_type`]), from which the
//! column's metadata (INT, UNSIGNED, length) and its range checks are taken.
//!
//! An AUTO_INCREMENT column that cannot be the rowid alias (not an integer type, not the only
//! primary key column, or a second one) is refused with 1235 rather than created without ids.
//! Ids SQLite generates are marked by a trigger, so that `LAST_INSERT_ID()` changes only for
//! them and not for an explicit id, as in MySQL (the insert notice reports the first id either
//! way, as MySQL's OK packet does). An explicit id of -1 counts as generated (SQLite shows a
//! generated id as -1 to BEFORE triggers).
//!
//! SQLite counts ids past the declared MySQL type (a `TINYINT` column's next id after 127 is
//! 128). The strict-write triggers (`strict::trigger_sql`) therefore check the id after the
//! insert or update: an id the declared type cannot hold was generated and is refused with
//! MariaDB's 167 `22003` "Out of range value for column 'id' at row n" (the statement stores
//! nothing), an explicit -1 that does not fit with 1264. SHOW COLUMNS, information_schema and
//! SHOW CREATE TABLE show the declared type.
//!
//! Inserting 0 into the column stores 0 in SQLite where MySQL (without `NO_AUTO_VALUE_ON_ZERO`)
//! would generate an id; a generated trigger refuses it (1235, see [`zero_trigger_sql`]).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;

use super::Shared;
use crate::tokens::{Tok, Token, tokens};
use crate::types::strict::{ident, literal};
use xrpc_engine::result::SqlError;
use xrpc_proto::codes;

/// Integer type names MySQL allows AUTO_INCREMENT on.
const INTEGER_TYPES: &[&str] = &[
    "TINYINT",
    "SMALLINT",
    "MEDIUMINT",
    "INT",
    "INTEGER",
    "BIGINT",
    "INT1",
    "INT2",
    "INT3",
    "INT4",
    "INT8",
    "MIDDLEINT",
];

/// Type words dropped with the type.
const TYPE_WORDS: &[&str] = &["UNSIGNED", "SIGNED", "ZEROFILL"];

fn unsupported(what: &str) -> SqlError {
    SqlError::new(
        &codes::NOT_SUPPORTED_YET,
        format!("This version doesn't yet support '{what}' on the SQLite engine"),
    )
}

/// The rewritten `CREATE TABLE` and the AUTO_INCREMENT column's name; `Ok(None)` when the
/// statement has no AUTO_INCREMENT column.
pub(crate) fn rewrite(sql: &str) -> Result<Option<(String, String)>, SqlError> {
    if !xrpc_engine::lex::contains_ignore_case(sql, "AUTO_INCREMENT") {
        return Ok(None);
    }
    let Some(toks) = tokens(sql) else {
        return Ok(None);
    };
    let word =
        |t: &Token, w: &str| t.tok == Tok::Word && sql[t.start..t.end].eq_ignore_ascii_case(w);
    let Some(open) = toks.iter().position(|t| t.tok == Tok::Punct(b'(')) else {
        return Ok(None);
    };
    if !toks.first().is_some_and(|t| word(t, "CREATE"))
        || !toks[..open].iter().any(|t| word(t, "TABLE"))
    {
        return Ok(None);
    }
    // Definitions: token ranges between depth-1 commas.
    let mut defs: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut close = None;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => {
                depth -= 1;
                if depth == 0 {
                    defs.push((start, i));
                    close = Some(i);
                    break;
                }
            }
            Tok::Punct(b',') if depth == 1 => {
                defs.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    if close.is_none() {
        return Ok(None);
    }
    let auto: Vec<usize> = defs
        .iter()
        .enumerate()
        .filter(|(_, (a, b))| toks[*a..*b].iter().any(|t| word(t, "AUTO_INCREMENT")))
        .map(|(n, _)| n)
        .collect();
    let &[column_def] = auto.as_slice() else {
        return Err(unsupported("more than one AUTO_INCREMENT column"));
    };
    let (a, b) = defs[column_def];
    let def = &toks[a..b];
    let name_token = def[0];
    let name = sql[name_token.start..name_token.end]
        .trim_matches(['`', '"', '[', ']'])
        .to_owned();
    let type_ok = def
        .get(1)
        .is_some_and(|t| INTEGER_TYPES.iter().any(|w| word(t, w)));
    if !type_ok {
        return Err(unsupported(
            "AUTO_INCREMENT on a column that is not of an integer type",
        ));
    }
    // The table's other primary keys.
    let names_column = |t: &Token| {
        matches!(t.tok, Tok::Word | Tok::QuotedIdent)
            && sql[t.start..t.end]
                .trim_matches(['`', '"', '[', ']'])
                .eq_ignore_ascii_case(&name)
    };
    let mut table_key = None;
    for (n, &(da, db)) in defs.iter().enumerate() {
        let d = &toks[da..db];
        let Some(pk) = d.iter().position(|t| word(t, "PRIMARY")) else {
            continue;
        };
        if n == column_def {
            continue;
        }
        let table_constraint = word(&d[0], "PRIMARY") || word(&d[0], "CONSTRAINT");
        if !table_constraint {
            return Err(unsupported(
                "AUTO_INCREMENT on a column that is not the primary key",
            ));
        }
        // PRIMARY KEY ( name ): exactly the AUTO_INCREMENT column.
        let columns: Vec<&Token> = d[pk..]
            .iter()
            .skip_while(|t| t.tok != Tok::Punct(b'('))
            .skip(1)
            .take_while(|t| t.tok != Tok::Punct(b')'))
            .collect();
        if columns.len() != 1 || !names_column(columns[0]) {
            return Err(unsupported(
                "AUTO_INCREMENT on a column that is not the only primary key column",
            ));
        }
        table_key = Some(n);
    }
    let inline_key = def.iter().any(|t| word(t, "PRIMARY"));
    if table_key.is_none() && !inline_key {
        return Err(unsupported(
            "AUTO_INCREMENT on a column that is not the primary key",
        ));
    }
    // The column: name, INTEGER PRIMARY KEY AUTOINCREMENT, then its other constraints.
    let mut rest = String::new();
    let mut i = 2;
    // Skip the type's `(n)` and type words.
    if def.get(i).map(|t| t.tok) == Some(Tok::Punct(b'(')) {
        while i < def.len() && def[i].tok != Tok::Punct(b')') {
            i += 1;
        }
        i += 1;
    }
    while i < def.len() {
        let t = &def[i];
        let skip = if TYPE_WORDS.iter().any(|w| word(t, w)) || word(t, "AUTO_INCREMENT") {
            1
        } else if (word(t, "PRIMARY") && def.get(i + 1).is_some_and(|k| word(k, "KEY")))
            || (word(t, "NOT") && def.get(i + 1).is_some_and(|k| word(k, "NULL")))
        {
            2
        } else {
            0
        };
        if skip > 0 {
            i += skip;
            continue;
        }
        rest.push(' ');
        rest.push_str(&sql[t.start..t.end]);
        i += 1;
    }
    // The declared type, kept in a comment SQLite stores with the table (see
    // [`declared_type`]): the type word, its `(n)`, and UNSIGNED / SIGNED / ZEROFILL.
    let mut declared = sql[def[1].start..def[1].end].to_ascii_uppercase();
    if def.get(2).map(|t| t.tok) == Some(Tok::Punct(b'('))
        && let Some(end) = def.iter().position(|t| t.tok == Tok::Punct(b')'))
    {
        declared.push_str(&sql[def[2].start..def[end].end]);
    }
    for t in def.iter().skip(2) {
        if TYPE_WORDS.iter().any(|w| word(t, w)) {
            declared.push(' ');
            declared.push_str(&sql[t.start..t.end].to_ascii_uppercase());
        }
    }
    let column = format!(
        "{} INTEGER {DECLARED_OPEN}{declared}{DECLARED_CLOSE} PRIMARY KEY AUTOINCREMENT{rest}",
        &sql[name_token.start..name_token.end]
    );
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    let mut edits: Vec<(usize, usize, String)> = vec![(def[0].start, def[b - a - 1].end, column)];
    if let Some(n) = table_key {
        // Remove the definition and the comma before it.
        let (da, db) = defs[n];
        let comma = toks[da - 1].start;
        edits.push((comma, toks[db - 1].end, String::new()));
    }
    edits.sort_by_key(|e| e.0);
    for (from, to, text) in edits {
        out.push_str(&sql[copied..from]);
        out.push_str(&text);
        copied = to;
    }
    out.push_str(&sql[copied..]);
    Ok(Some((out, name)))
}

/// The comment around an AUTO_INCREMENT column's declared MySQL type in the `CREATE TABLE`
/// SQLite stores: `id INTEGER /*xrpc_declared:INT UNSIGNED*/ PRIMARY KEY AUTOINCREMENT`.
const DECLARED_OPEN: &str = "/*xrpc_declared:";
const DECLARED_CLOSE: &str = "*/";

/// The declared MySQL type of a table's AUTO_INCREMENT column, from the comment [`rewrite`]
/// leaves in the table's SQL (`sql` is `sqlite_master.sql`); `None` for tables created
/// without one (before this, or as SQLite's own `INTEGER PRIMARY KEY`).
pub(crate) fn declared_type(sql: &str) -> Option<&str> {
    let start = sql.find(DECLARED_OPEN)? + DECLARED_OPEN.len();
    let len = sql[start..].find(DECLARED_CLOSE)?;
    Some(&sql[start..start + len])
}

/// [`declared_type`] of a table, read from its database's `sqlite_master`.
pub(crate) fn read_declared_type(conn: &Connection, schema: &str, table: &str) -> Option<String> {
    let sql: String = conn
        .prepare(&format!(
            "SELECT sql FROM {}.sqlite_master WHERE type = 'table' AND name = ?1",
            ident(schema)
        ))
        .and_then(|mut stmt| stmt.query_row([table], |row| row.get(0)))
        .ok()?;
    declared_type(&sql).map(str::to_owned)
}

/// The triggers of a table just created whose rowid alias generates ids: one marking each
/// row whose id SQLite generates (for `LAST_INSERT_ID()`), and, when the table was declared
/// with MySQL's AUTO_INCREMENT (`refuse_zero`), one refusing an explicit 0. Empty when the
/// table has no rowid alias.
pub(crate) fn trigger_sql(
    conn: &Connection,
    schema: &str,
    table: &str,
    refuse_zero: bool,
) -> rusqlite::Result<Vec<String>> {
    let columns: Vec<(String, String, i64)> = conn
        .prepare(&format!(
            "PRAGMA {}.table_info({})",
            ident(schema),
            ident(table)
        ))?
        .query_map([], |row| Ok((row.get(1)?, row.get(2)?, row.get(5)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let keys: Vec<&(String, String, i64)> = columns.iter().filter(|c| c.2 > 0).collect();
    let [(column, decl, _)] = keys.as_slice() else {
        return Ok(Vec::new());
    };
    if !decl.eq_ignore_ascii_case("INTEGER") {
        return Ok(Vec::new());
    }
    // In a BEFORE INSERT trigger, SQLite shows a rowid it is about to generate as -1.
    let mut out = vec![format!(
        "CREATE TRIGGER {}.{} BEFORE INSERT ON {} FOR EACH ROW WHEN NEW.{} = -1 BEGIN \
         SELECT xrpc_id_generated(); END",
        ident(schema),
        ident(&generated_trigger_name(table)),
        ident(table),
        ident(column),
    )];
    if refuse_zero {
        out.push(zero_trigger_sql(schema, table, column));
    }
    Ok(out)
}

/// The name of a table's trigger marking generated ids.
pub(crate) fn generated_trigger_name(table: &str) -> String {
    format!("{}autoinc_{table}", crate::types::strict::TRIGGER_PREFIX)
}

/// Registers `xrpc_id_generated()`, which the generated-id trigger calls before SQLite inserts
/// a row with an id it generates; the engine's update hook then records that row's id.
pub(crate) fn register(conn: &Connection, shared: &Arc<Shared>) -> rusqlite::Result<()> {
    let s = Arc::clone(shared);
    conn.create_scalar_function(
        "xrpc_id_generated",
        0,
        FunctionFlags::SQLITE_UTF8,
        move |_| {
            s.generating.store(true, Ordering::Relaxed);
            Ok(rusqlite::types::Null)
        },
    )
}

/// The trigger refusing an explicit 0 in a table's AUTO_INCREMENT column (MySQL would generate
/// an id for it; SQLite would store 0).
pub(crate) fn zero_trigger_sql(schema: &str, table: &str, column: &str) -> String {
    format!(
        "CREATE TRIGGER {}.{} BEFORE INSERT ON {} FOR EACH ROW WHEN NEW.{} = 0 BEGIN \
         SELECT RAISE(ABORT, {}); END",
        ident(schema),
        ident(&zero_trigger_name(table)),
        ident(table),
        ident(column),
        literal(&format!(
            "xrpc: 0 written to AUTO_INCREMENT column '{column}': MySQL would generate an id \
             for it, SQLite would store 0; write NULL or leave the column out"
        )),
    )
}

/// The name of a table's zero-refusing trigger.
pub(crate) fn zero_trigger_name(table: &str) -> String {
    format!("{}zero_{table}", crate::types::strict::TRIGGER_PREFIX)
}

/// The message prefix of the zero trigger's error (mapped to 1235).
pub(crate) const ZERO_MESSAGE_PREFIX: &str = "xrpc: 0 written to AUTO_INCREMENT column";

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(sql: &str) -> String {
        rewrite(sql).unwrap().unwrap().0
    }

    #[test]
    fn mysql_forms_become_the_rowid_alias() {
        assert_eq!(
            rw("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v TEXT)"),
            "CREATE TABLE t (id INTEGER /*xrpc_declared:INT*/ PRIMARY KEY AUTOINCREMENT, v TEXT)"
        );
        assert_eq!(
            rw(
                "create table t (id bigint(20) unsigned not null auto_increment, v int, primary key (id))"
            ),
            "create table t (id INTEGER /*xrpc_declared:BIGINT(20) UNSIGNED*/ PRIMARY KEY \
             AUTOINCREMENT, v int)"
        );
        assert_eq!(
            rw("create table t (`id` int primary key auto_increment unique)"),
            "create table t (`id` INTEGER /*xrpc_declared:INT*/ PRIMARY KEY AUTOINCREMENT unique)"
        );
        assert_eq!(
            rewrite("create table t (id integer primary key)").unwrap(),
            None
        );
        assert_eq!(
            declared_type(&rw(
                "create table t (id mediumint unsigned auto_increment primary key)"
            )),
            Some("MEDIUMINT UNSIGNED")
        );
    }

    #[test]
    fn columns_that_cannot_be_the_rowid_alias_are_refused() {
        for sql in [
            "create table t (id int auto_increment, v int)",
            "create table t (id int auto_increment, v int, primary key (id, v))",
            "create table t (id double auto_increment primary key)",
            "create table t (a int auto_increment primary key, b int auto_increment)",
        ] {
            assert_eq!(rewrite(sql).unwrap_err().code, 1235, "{sql}");
        }
    }
}
