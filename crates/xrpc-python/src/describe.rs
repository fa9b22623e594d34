//! What a finished or running statement tells the cursor: PEP 249's `description`, `rowcount`
//! and `lastrowid`, shared by both transports.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use xrpc_client::{Column, ExecResult, Value};

use crate::convert;

/// X-protocol column flag: the column is `NOT NULL`.
const FLAG_NOT_NULL: u32 = 0x0010;

/// `description`: one 7-tuple per column (name, type code, display size, internal size,
/// precision, scale, null_ok). The type code is MySQL's field type (`FIELD_TYPE` numbers), which
/// the type objects `STRING`, `BINARY`, `NUMBER`, `DATETIME` and `ROWID` compare equal to.
pub(crate) fn description<'py>(
    py: Python<'py>,
    columns: Option<&[Column]>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let Some(columns) = columns else {
        return Ok(None);
    };
    let items = columns
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.original_type,
                c.length,
                c.length,
                c.length,
                c.fractional_digits,
                c.flags & FLAG_NOT_NULL == 0,
            )
                .into_pyobject(py)
                .map(Bound::into_any)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items).map(Some)
}

/// Rows as a list of tuples.
pub(crate) fn rows<'py>(
    py: Python<'py>,
    columns: &[Column],
    rows: &[Vec<Value>],
) -> PyResult<Bound<'py, PyList>> {
    let tuples = rows
        .iter()
        .map(|r| convert::row(py, columns, r))
        .collect::<PyResult<Vec<Bound<'py, PyTuple>>>>()?;
    PyList::new(py, tuples)
}

/// `rowcount` and `lastrowid` once the statement has ended: the rows of a result set, or the
/// rows a change affected.
pub(crate) fn counts(outcome: &ExecResult, rows_seen: u64) -> (i64, Option<u64>) {
    let rowcount = if outcome.result_set.is_some() {
        rows_seen
    } else {
        outcome.rows_affected
    };
    (
        i64::try_from(rowcount).unwrap_or(i64::MAX),
        outcome.last_insert_id.filter(|id| *id != 0),
    )
}
