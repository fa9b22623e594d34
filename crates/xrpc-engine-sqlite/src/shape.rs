//! The result shape a repeated statement reuses: its columns' metadata and conversions.
//!
//! # Design
//!
//! Before the first row of a result goes out, `stream` works out what each column is: SQLite's
//! name and declared type, the cast hints of the statement's text, the declared MySQL type of an
//! AUTO_INCREMENT column and the origins and flags of table columns (`origin`), and, for an
//! expression column, the storage classes of the values read ahead. For `select 1` that took
//! about a third of the node's CPU per request (a dozen allocations and as many passes), four
//! times what SQLite spends running the statement. The outcome is the same every time the same
//! text runs against the same schema, so it is kept.
//!
//! A shape is kept per statement text, beside the statement's origins in
//! [`origin::KeyCache`](super::origin::KeyCache): it goes with them when the `schema_version` of
//! a database its columns come from changes, or when the cache starts over. It is reused only
//! when everything it was built from is as it was:
//! - SQLite's column names and declared types, read from the prepared statement on every run
//!   (they can change without a `schema_version` change of the databases the columns come
//!   from: a temporary view redefined over the same table);
//! - the cast hints of the text (compared, as two texts may rewrite to the same SQL);
//! - the current database, which the metadata of a declared column names;
//! - for every expression column, the [`runtime_signature`] of this run's read-ahead.
//!
//! The first three make up the [`ShapeBasis`]; a result whose read-ahead differs builds a new
//! shape on the same basis. Nothing is kept for a text too long for the origins' cache (the
//! decoration then is new on every run, and so the shape could never be found again).
//!
//! # Invariant
//!
//! A kept shape's `infos` and `convs` are exactly what building them afresh from this run would
//! give (`stream`'s tests build both ways and compare).

use std::sync::Arc;

use rusqlite::Column;
use rusqlite::types::Value as SqlValue;
use xrpc_proto::value::Value;

use super::cast::{self, ColumnHint};
use super::origin::Decoration;
use super::rewrite;
use super::types::{self, Conv, DeclKind, runtime_signature};
use xrpc_engine::result::ColumnInfo;
use xrpc_engine::result::KeptMetadata;

/// What a statement's columns are before any value is read: the part of a shape that depends
/// on the statement, its text and the schema only.
#[derive(Debug)]
pub(crate) struct ShapeBasis {
    /// SQLite's name and declared type of each column, as built from.
    sqlite_columns: Vec<(Box<str>, Option<Box<str>>)>,
    /// The text's cast hints, as built from.
    hints: Vec<ColumnHint>,
    /// The current database, as built from.
    schema: Box<str>,
    /// The columns' names, with the hints applied.
    names: Vec<String>,
    /// The columns' kinds, with the hints and the declared AUTO_INCREMENT types applied.
    kinds: Vec<DeclKind>,
    /// The columns a hint typed: expressions, whose `schema` stays empty.
    hinted: Vec<usize>,
}

impl ShapeBasis {
    /// The basis of a statement with `columns`, `hints` and `decoration`, run in `schema`.
    pub(crate) fn new(
        columns: &[Column<'_>],
        hints: &[ColumnHint],
        schema: &str,
        decoration: &Decoration,
    ) -> Self {
        let (mut names, mut kinds): (Vec<String>, Vec<DeclKind>) = columns
            .iter()
            .map(|c| {
                let name = rewrite::literal_column_name(c.name()).into_owned();
                (name, types::classify_decl(c.decl_type()))
            })
            .unzip();
        let hinted = cast::apply_hints(hints, &mut names, &mut kinds);
        // An AUTO_INCREMENT column, which SQLite declares INTEGER, takes the MySQL type it was
        // declared with.
        for (kind, declared) in kinds.iter_mut().zip(decoration.declared_types()) {
            if let Some(declared) = declared {
                *kind = types::classify_decl(Some(declared));
            }
        }
        Self {
            sqlite_columns: columns
                .iter()
                .map(|c| (c.name().into(), c.decl_type().map(Into::into)))
                .collect(),
            hints: hints.to_vec(),
            schema: schema.into(),
            names,
            kinds,
            hinted,
        }
    }

    /// Whether this basis was built from these columns, hints and current database.
    pub(crate) fn matches(
        &self,
        columns: &[Column<'_>],
        hints: &[ColumnHint],
        schema: &str,
    ) -> bool {
        *self.schema == *schema
            && self.hints == hints
            && self.sqlite_columns.len() == columns.len()
            && self
                .sqlite_columns
                .iter()
                .zip(columns)
                .all(|((name, decl), c)| **name == *c.name() && decl.as_deref() == c.decl_type())
    }

    /// The number of columns.
    pub(crate) fn width(&self) -> usize {
        self.kinds.len()
    }

    /// Whether a column's type depends on the values read ahead.
    pub(crate) fn reads_ahead(&self) -> bool {
        self.kinds.iter().any(|k| k.needs_values())
    }
}

/// A statement's result metadata and conversions, and what they were built from.
#[derive(Debug)]
pub(crate) struct ResultShape {
    basis: Arc<ShapeBasis>,
    /// Per column: the read-ahead's [`runtime_signature`] for an expression column, `None` for
    /// a column with a type of its own.
    signatures: Vec<Option<u8>>,
    pub(crate) infos: Vec<ColumnInfo>,
    pub(crate) convs: Vec<Conv>,
    /// What the session's encoder made of `infos`, for the next result of this shape.
    pub(crate) encoded: KeptMetadata,
}

impl ResultShape {
    /// Plans the columns of `basis` for a result whose read-ahead is `window` (`ended`: the
    /// result ended within it) and decorates them.
    pub(crate) fn plan(
        basis: Arc<ShapeBasis>,
        window: &[SqlValue],
        ended: bool,
        decoration: &Decoration,
    ) -> Self {
        let width = basis.kinds.len();
        let plans = types::plan_columns(
            basis.names.clone(),
            &basis.kinds,
            window,
            ended,
            &basis.schema,
        );
        let (mut infos, convs): (Vec<ColumnInfo>, Vec<Conv>) =
            plans.into_iter().map(|p| (p.info, p.conv)).unzip();
        for &index in &basis.hinted {
            // A cast's column is an expression, not a table column.
            infos[index].schema.clear();
        }
        decoration.apply(&mut infos);
        let signatures = basis
            .kinds
            .iter()
            .enumerate()
            .map(|(index, kind)| {
                kind.needs_values()
                    .then(|| runtime_signature(window, width, index, ended))
            })
            .collect();
        Self {
            basis,
            signatures,
            infos,
            convs,
            encoded: KeptMetadata::default(),
        }
    }

    /// The basis this shape was planned on.
    pub(crate) fn basis(&self) -> &Arc<ShapeBasis> {
        &self.basis
    }

    /// Whether planning for this read-ahead would give this shape.
    pub(crate) fn fits(&self, window: &[SqlValue], ended: bool) -> bool {
        let width = self.signatures.len();
        self.signatures
            .iter()
            .enumerate()
            .all(|(index, signature)| {
                signature.is_none_or(|s| s == runtime_signature(window, width, index, ended))
            })
    }
}

/// The vectors a result is streamed through, kept by the connection from one result to the
/// next so that a short result allocates none. Each is empty between results.
#[derive(Debug, Default)]
pub(crate) struct StreamBuffers {
    /// The values read ahead.
    pub(crate) window: Vec<SqlValue>,
    /// One row's converted values.
    pub(crate) row: Vec<Value>,
}

/// The most values a kept buffer may have room for: a wide or long read-ahead gives its
/// memory back rather than holding it for the connection's life.
const MAX_KEPT_VALUES: usize = 1024;

impl StreamBuffers {
    /// Takes the buffers for one result; [`StreamBuffers::give_back`] returns them.
    pub(crate) fn take(&mut self) -> (Vec<SqlValue>, Vec<Value>) {
        (
            std::mem::take(&mut self.window),
            std::mem::take(&mut self.row),
        )
    }

    /// Keeps the buffers of a finished result, emptied, unless they grew large.
    pub(crate) fn give_back(&mut self, mut window: Vec<SqlValue>, mut row: Vec<Value>) {
        window.clear();
        row.clear();
        if window.capacity() <= MAX_KEPT_VALUES {
            self.window = window;
        }
        if row.capacity() <= MAX_KEPT_VALUES {
            self.row = row;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bytes::Bytes;
    use xrpc_proto::value::{ColumnType, Value};

    use crate::SqliteEngine;
    use xrpc_engine::result::CollectedResult;
    use xrpc_engine::{Engine, EngineConn};

    fn run(conn: &mut dyn EngineConn, sql: &str, args: &[Value]) -> CollectedResult {
        let mut out = CollectedResult::default();
        conn.execute(sql, args, None, &mut out)
            .unwrap_or_else(|err| panic!("{sql}: {err}"));
        out
    }

    /// Runs `sql` twice on `warm` (the second run finds the shape the first one kept) and once
    /// on a connection of a newly opened engine, which has kept nothing: all three answer alike.
    fn same_as_fresh(
        path: &Path,
        warm: &mut dyn EngineConn,
        sql: &str,
        args: &[Value],
    ) -> CollectedResult {
        let first = run(warm, sql, args);
        let again = run(warm, sql, args);
        let engine = SqliteEngine::open(path, Default::default()).unwrap();
        let mut fresh_conn = engine.acquire().unwrap();
        let fresh = run(&mut *fresh_conn, sql, args);
        assert_eq!(
            first, fresh,
            "{sql} {args:?}: first run against a fresh connection"
        );
        assert_eq!(
            again, fresh,
            "{sql} {args:?}: kept shape against a fresh connection"
        );
        fresh
    }

    fn column_types(result: &CollectedResult) -> Vec<ColumnType> {
        let columns = result.columns.as_ref().expect("a result set");
        columns.iter().map(|c| c.x_type).collect()
    }

    #[test]
    fn a_kept_shape_answers_as_a_fresh_one_would() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shape.db");
        let engine = SqliteEngine::open(&path, Default::default()).unwrap();
        let mut warm = engine.acquire().unwrap();
        let warm = &mut *warm;
        same_as_fresh(&path, warm, "select 1", &[]);
        same_as_fresh(&path, warm, "select 1 as one, 'x', null, 2.5", &[]);

        // The same text with values of other types: the expression column's type follows them.
        let mut typed =
            |value: Value| column_types(&same_as_fresh(&path, warm, "select ?", &[value]));
        assert_eq!(typed(Value::Sint(7)), [ColumnType::Sint]);
        assert_eq!(
            typed(Value::Bytes(Bytes::from_static(b"seven"))),
            [ColumnType::Bytes]
        );
        assert_eq!(typed(Value::Double(7.5)), [ColumnType::Double]);
        let null = typed(Value::Null);
        assert_eq!(typed(Value::Sint(7)), [ColumnType::Sint], "and back again");
        assert_ne!(null, [ColumnType::Sint]);

        // A table column: its declaration, origin and flags; then the table is declared anew
        // under the same name and the same text reads the new declaration.
        run(
            warm,
            "create table t (id INT PRIMARY KEY, a INT NOT NULL)",
            &[],
        );
        run(warm, "insert into t values (1, 10)", &[]);
        let before = same_as_fresh(&path, warm, "select id, a from t", &[]);
        run(warm, "drop table t", &[]);
        run(
            warm,
            "create table t (id INT PRIMARY KEY, a VARCHAR(10))",
            &[],
        );
        run(warm, "insert into t values (1, 'ten')", &[]);
        let after = same_as_fresh(&path, warm, "select id, a from t", &[]);
        assert_ne!(before.columns, after.columns);
        assert_eq!(column_types(&after), [ColumnType::Sint, ColumnType::Bytes]);

        // The current database is part of a declared column's metadata.
        run(warm, "create database other", &[]);
        run(
            warm,
            "create table other.t (id INT PRIMARY KEY, a INT NOT NULL)",
            &[],
        );
        let mut in_main = CollectedResult::default();
        warm.execute("select id from t", &[], None, &mut in_main)
            .unwrap();
        let mut in_other = CollectedResult::default();
        warm.execute("select id from t", &[], Some("other"), &mut in_other)
            .unwrap();
        let schema = |r: &CollectedResult| r.columns.as_ref().unwrap()[0].schema.clone();
        assert_ne!(schema(&in_main), schema(&in_other));
        assert_eq!(schema(&in_other), "other");
    }

    /// A temporary view redefined over the same table changes a text's columns without
    /// changing the `schema_version` of the database they come from: SQLite's column names and
    /// declared types, read on every run, catch it.
    #[test]
    fn a_view_redefined_under_the_same_name_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        // Views are the text path's (the translation refuses them).
        let options = crate::SqliteOptions {
            translate: false,
            ..Default::default()
        };
        let engine = SqliteEngine::open(&dir.path().join("view.db"), options).unwrap();
        let mut conn = engine.acquire().unwrap();
        let conn = &mut *conn;
        run(conn, "create table t (a INT NOT NULL, b VARCHAR(10))", &[]);
        run(conn, "insert into t values (1, 'one')", &[]);
        run(conn, "create temporary view v as select a as c from t", &[]);
        for _ in 0..2 {
            assert_eq!(
                column_types(&run(conn, "select c from v", &[])),
                [ColumnType::Sint]
            );
        }
        run(conn, "drop view v", &[]);
        run(conn, "create temporary view v as select b as c from t", &[]);
        let result = run(conn, "select c from v", &[]);
        assert_eq!(column_types(&result), [ColumnType::Bytes]);
        assert_eq!(
            result.rows,
            [vec![Value::Bytes(Bytes::from_static(b"one"))]]
        );

        // An expression column that becomes a table column: its origin is looked up again.
        run(conn, "create view w as select 1 + 1 as c", &[]);
        for _ in 0..2 {
            let result = run(conn, "select c from w", &[]);
            assert_eq!(result.columns.as_ref().unwrap()[0].original_table, "");
        }
        run(conn, "drop view w", &[]);
        run(conn, "create temporary view w as select a as c from t", &[]);
        let result = run(conn, "select c from w", &[]);
        let column = &result.columns.as_ref().unwrap()[0];
        assert_eq!(column_types(&result), [ColumnType::Sint]);
        assert_eq!(
            (&*column.original_table, &*column.original_name),
            ("t", "a")
        );
    }
}
