//! The result shape a repeated catalog query reuses: its columns' metadata and conversions.
//!
//! # Design
//!
//! The engine answers the catalog statements (SHOW, DESCRIBE, …) with queries of its own
//! (`run_query`). Before the first row of such a result goes out, `stream` works out what each
//! column is: SQLite's name and declared type, the query's hints ([`ColumnHint`]), the origins
//! and flags of table columns (`origin`), and, for an expression column, the storage classes of
//! the values read ahead: a dozen allocations and as many passes. The outcome is the same every
//! time the same text runs against the same schema, so it is kept.
//!
//! A shape is kept per statement text, beside the statement's origins in
//! [`origin::KeyCache`](super::origin::KeyCache): it goes with them when the `schema_version` of
//! a database its columns come from changes, or when the cache starts over. It is reused only
//! when everything it was built from is as it was:
//! - SQLite's column names and declared types, read from the prepared statement on every run
//!   (they can change without a `schema_version` change of the databases the columns come
//!   from: a temporary view redefined over the same table);
//! - the query's hints;
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

use super::origin::Decoration;
use super::types::{self, Conv, DeclKind, runtime_signature};
use xrpc_engine::result::ColumnInfo;
use xrpc_engine::result::KeptMetadata;

/// The type of a result column SQLite declares none for, given by the query's writer (the
/// catalog's `Code` and counts are MySQL's INT UNSIGNED).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColumnHint {
    /// Which column (0-based).
    pub(crate) index: usize,
    /// The kind its values are read as.
    pub(crate) kind: DeclKind,
}

/// What a statement's columns are before any value is read: the part of a shape that depends
/// on the statement, its text and the schema only.
#[derive(Debug)]
pub(crate) struct ShapeBasis {
    /// SQLite's name and declared type of each column, as built from.
    sqlite_columns: Vec<(Box<str>, Option<Box<str>>)>,
    /// The query's hints, as built from.
    hints: Vec<ColumnHint>,
    /// The current database, as built from.
    schema: Box<str>,
    /// The columns' names.
    names: Vec<String>,
    /// The columns' kinds, with the hints applied.
    kinds: Vec<DeclKind>,
    /// The columns a hint typed: expressions, whose `schema` stays empty.
    hinted: Vec<usize>,
}

impl ShapeBasis {
    /// The basis of a statement with `columns` and `hints`, run in `schema`.
    pub(crate) fn new(columns: &[Column<'_>], hints: &[ColumnHint], schema: &str) -> Self {
        let names = columns.iter().map(|c| c.name().to_owned()).collect();
        let mut kinds: Vec<DeclKind> = columns
            .iter()
            .map(|c| types::classify_decl(c.decl_type()))
            .collect();
        let mut hinted = Vec::new();
        for hint in hints {
            if let Some(kind) = kinds.get_mut(hint.index)
                && matches!(kind, DeclKind::Runtime)
            {
                *kind = hint.kind;
                hinted.push(hint.index);
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
            // A hinted column is an expression, not a table column.
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
