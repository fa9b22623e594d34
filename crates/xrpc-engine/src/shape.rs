//! Table shapes: what the node's plan compiler needs to know about a table, and how each engine
//! reads them from its catalog behind [`EngineConn::describe_table`].
//!
//! - **SQLite** ([`describe_sqlite`]): `PRAGMA table_info` (columns in order, and the primary
//!   key's parts by their `pk` position), `PRAGMA index_list` and `PRAGMA index_info` per index.
//!   The primary key's own index (origin `pk`) is not listed again, and an index on an
//!   expression is left out (it has no column to look up). SQLite names the index of a `UNIQUE`
//!   constraint written inside `CREATE TABLE` `sqlite_autoindex_<table>_<n>`; such an index is
//!   listed under the name MySQL gives an unnamed unique key, its first column (`_2`, `_3`, … on
//!   a clash), so a plan written for MySQL finds it.
//! - **MySQL / MariaDB** ([`describe_mysql`]): `information_schema.COLUMNS` and
//!   `information_schema.STATISTICS` of the table in the request's schema, or in `DATABASE()`
//!   when the plan names none; the index named `PRIMARY` is the primary key.
//!
//! Both run as ordinary statements on the session's engine connection. An unknown table is 1146
//! with MySQL's message.

use xrpc_proto::codes;
use xrpc_proto::value::Value;

use crate::EngineConn;
use crate::result::{CollectedResult, SqlError};

/// What the compiler needs to know about a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableShape {
    /// Columns in table order.
    pub columns: Vec<String>,
    /// The primary key's columns, in key order; `None` when the table has none.
    pub primary_key: Option<Vec<String>>,
    /// Secondary indexes (the primary key not among them).
    pub indexes: Vec<IndexShape>,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexShape {
    /// Its name as MySQL DDL would give it.
    pub name: String,
    /// Its key parts, in order.
    pub columns: Vec<String>,
}

/// Quotes an identifier with backticks (understood by SQLite and MariaDB).
pub fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn rows_of(
    conn: &mut (impl EngineConn + ?Sized),
    sql: &str,
    args: &[Value],
) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut collected = CollectedResult::default();
    conn.execute(sql, args, None, &mut collected)?;
    Ok(collected.rows)
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::Bytes(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
        _ => None,
    }
}

fn int(value: &Value) -> Option<i64> {
    match value {
        Value::Sint(i) => Some(*i),
        Value::Uint(u) => i64::try_from(*u).ok(),
        _ => None,
    }
}

/// MySQL's error for an unknown table (1146), naming it as the statement did.
pub fn no_such_table(schema: Option<&str>, name: &str) -> SqlError {
    let qualified = match schema {
        Some(schema) => format!("{schema}.{name}"),
        None => name.to_owned(),
    };
    SqlError::new(
        &codes::NO_SUCH_TABLE,
        format!("Table '{qualified}' doesn't exist"),
    )
}

/// A string literal for a PRAGMA argument (PRAGMAs take no bound arguments).
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Runs one PRAGMA as the node's own statement and returns its rows.
pub type PragmaRows<'a> = dyn FnMut(&str) -> Result<Vec<Vec<Value>>, SqlError> + 'a;

/// Describes a table of the SQLite engine; see the module docs.
///
/// `pragma_rows` runs one PRAGMA as the node's own statement and returns its rows: clients may
/// not run PRAGMAs (see `engine/sqlite/authorizer.rs`), so the engine runs them outside the
/// client check.
pub fn describe_sqlite(
    pragma_rows: &mut PragmaRows<'_>,
    schema: Option<&str>,
    name: &str,
) -> Result<TableShape, SqlError> {
    let prefix = schema.map(|s| format!("{}.", quote(s))).unwrap_or_default();
    let columns =
        pragma_rows(&format!("PRAGMA {prefix}table_info({})", literal(name))).map_err(|err| {
            // MySQL reads a table of an unknown database as an unknown table.
            if err.message.starts_with("unknown database") {
                no_such_table(schema, name)
            } else {
                err
            }
        })?;
    if columns.is_empty() {
        return Err(no_such_table(schema, name));
    }
    // table_info: cid, name, type, notnull, dflt_value, pk.
    let mut primary: Vec<(i64, String)> = Vec::new();
    let mut names = Vec::with_capacity(columns.len());
    for row in &columns {
        let column = row.get(1).and_then(text).unwrap_or_default();
        let pk = row.get(5).and_then(int).unwrap_or(0);
        if pk > 0 {
            primary.push((pk, column.clone()));
        }
        names.push(column);
    }
    primary.sort();
    let primary_key =
        (!primary.is_empty()).then(|| primary.into_iter().map(|(_, c)| c).collect::<Vec<_>>());
    // index_list: seq, name, unique, origin, partial.
    let list = pragma_rows(&format!("PRAGMA {prefix}index_list({})", literal(name)))?;
    let mut indexes: Vec<IndexShape> = Vec::new();
    let mut autoindexes: Vec<Vec<String>> = Vec::new();
    for row in &list {
        let Some(index) = row.get(1).and_then(text) else {
            continue;
        };
        let origin = row.get(3).and_then(text).unwrap_or_default();
        if origin == "pk" {
            continue;
        }
        // index_info: seqno, cid, name (NULL for an expression).
        let parts = pragma_rows(&format!("PRAGMA {prefix}index_info({})", literal(&index)))?;
        let mut seq_columns: Vec<(i64, Option<String>)> = parts
            .iter()
            .map(|p| {
                (
                    p.first().and_then(int).unwrap_or(0),
                    p.get(2).and_then(text),
                )
            })
            .collect();
        seq_columns.sort_by_key(|(seq, _)| *seq);
        let Some(columns) = seq_columns
            .into_iter()
            .map(|(_, c)| c)
            .collect::<Option<Vec<String>>>()
        else {
            continue;
        };
        if index.starts_with("sqlite_autoindex_") {
            autoindexes.push(columns);
        } else {
            indexes.push(IndexShape {
                name: index,
                columns,
            });
        }
    }
    // index_list lists the newest index first; the constraints of CREATE TABLE in reverse.
    autoindexes.reverse();
    for columns in autoindexes {
        let base = columns[0].clone();
        let mut name = base.clone();
        let mut n = 2;
        while indexes.iter().any(|i| i.name.eq_ignore_ascii_case(&name)) {
            name = format!("{base}_{n}");
            n += 1;
        }
        indexes.push(IndexShape { name, columns });
    }
    Ok(TableShape {
        columns: names,
        primary_key,
        indexes,
    })
}

/// Describes a table of the MySQL engine (MariaDB or MySQL behind it); see the module docs.
pub fn describe_mysql(
    conn: &mut (impl EngineConn + ?Sized),
    schema: Option<&str>,
    name: &str,
) -> Result<TableShape, SqlError> {
    let schema_arg = schema.map_or(Value::Null, |s| {
        Value::Bytes(bytes::Bytes::copy_from_slice(s.as_bytes()))
    });
    let name_arg = Value::Bytes(bytes::Bytes::copy_from_slice(name.as_bytes()));
    let columns = rows_of(
        conn,
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? \
         ORDER BY ORDINAL_POSITION",
        &[schema_arg.clone(), name_arg.clone()],
    )?;
    if columns.is_empty() {
        return Err(no_such_table(schema, name));
    }
    let names: Vec<String> = columns
        .iter()
        .filter_map(|row| row.first().and_then(text))
        .collect();
    let parts = rows_of(
        conn,
        "SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS \
         WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? \
         ORDER BY INDEX_NAME, SEQ_IN_INDEX",
        &[schema_arg, name_arg],
    )?;
    let mut primary_key = None;
    let mut indexes: Vec<IndexShape> = Vec::new();
    let mut current: Option<(String, Option<Vec<String>>)> = None;
    let mut finish = |entry: Option<(String, Option<Vec<String>>)>| {
        // An index with an expression part (COLUMN_NAME NULL) cannot be looked up by columns.
        if let Some((index, Some(columns))) = entry {
            if index == "PRIMARY" {
                primary_key = Some(columns);
            } else {
                indexes.push(IndexShape {
                    name: index,
                    columns,
                });
            }
        }
    };
    for row in &parts {
        let Some(index) = row.first().and_then(text) else {
            continue;
        };
        let column = row.get(1).and_then(text);
        match &mut current {
            Some((name, columns)) if *name == index => {
                if let (Some(columns), Some(column)) = (columns.as_mut(), column) {
                    columns.push(column);
                } else {
                    *columns = None;
                }
            }
            _ => {
                finish(current.take());
                current = Some((index, column.map(|c| vec![c])));
            }
        }
    }
    finish(current.take());
    Ok(TableShape {
        columns: names,
        primary_key,
        indexes,
    })
}
