//! Assembling one request's replies into an [`ExecResult`].
//!
//! The server answers a statement with `ColumnMetaData × n`, then `Row`s or `Chunk`s, `FetchDone`,
//! notices, and `StmtExecuteOk`. The builder takes those messages one at a time:
//!
//! - metadata must come before any row or chunk; a second result set
//!   (`FETCH_DONE_MORE_RESULTSETS`) is not supported, since xrpc never sends one;
//! - rows are decoded with [`decode_row_field`] by column type; chunks go through a
//!   [`ChunkAssembler`], which reassembles chunks split by column (10 columns per message) and
//!   yields rows once all columns of a chunk have arrived;
//! - `SessionStateChanged` notices give `rows_affected` and `last_insert_id`; warnings are kept.
//!
//! A malformed value does not desynchronise the stream: the builder records the first failure,
//! ignores further data, and the request still ends at its `StmtExecuteOk` or `Error`, reporting
//! the failure then.

use bytes::Bytes;
use xrpc_proto::chunk::ChunkAssembler;
use xrpc_proto::messages::decode_message;
use xrpc_proto::messages::pb::{notice, resultset as rs};
use xrpc_proto::value::{ColumnType, Value, decode_row_field};

use crate::error::ClientError;
use crate::types::{Column, ExecResult, ResultSet, Warning};

/// Notice type of a warning.
const NOTICE_WARNING: u32 = 1;
/// Notice type of SessionStateChanged.
const NOTICE_SESSION_STATE_CHANGED: u32 = 3;

#[derive(Debug, Default)]
pub(crate) struct ResultBuilder {
    columns: Vec<Column>,
    types: Vec<ColumnType>,
    /// Rows decoded so far; a streaming request drains them after every message.
    pub(crate) rows: Vec<Vec<Value>>,
    rows_started: bool,
    fetch_done: bool,
    assembler: Option<ChunkAssembler>,
    rows_affected: u64,
    last_insert_id: Option<u64>,
    warnings: Vec<Warning>,
    failure: Option<ClientError>,
}

impl ResultBuilder {
    /// Whether any column metadata arrived; a digest miss counts only before it.
    pub(crate) fn has_metadata(&self) -> bool {
        !self.columns.is_empty()
    }

    /// The columns received so far.
    pub(crate) fn columns(&self) -> &[Column] {
        &self.columns
    }

    fn fail(&mut self, message: String) {
        if self.failure.is_none() {
            self.failure = Some(ClientError::protocol(message));
        }
    }

    pub(crate) fn column(&mut self, meta: &rs::ColumnMetaData) {
        if self.failure.is_some() || !self.check_column_order() {
            return;
        }
        match Column::from_pb(meta) {
            Ok(column) => self.push_column(column),
            Err(message) => self.fail(message),
        }
    }

    /// Takes one column, decoded here or taken from the connection's cache of metadata bodies.
    pub(crate) fn push_column(&mut self, column: Column) {
        if self.failure.is_some() || !self.check_column_order() {
            return;
        }
        self.types.push(column.ty);
        self.columns.push(column);
    }

    /// Metadata is only valid before any row: fails the result otherwise. Returns whether it was.
    fn check_column_order(&mut self) -> bool {
        if self.rows_started || self.fetch_done {
            self.fail("column metadata after rows; multiple result sets are not supported".into());
            return false;
        }
        true
    }

    pub(crate) fn row(&mut self, row: &rs::Row) {
        if self.failure.is_some() {
            return;
        }
        self.rows_started = true;
        if row.field.len() != self.types.len() {
            return self.fail(format!(
                "row has {} fields but the result has {} columns",
                row.field.len(),
                self.types.len()
            ));
        }
        let mut values = Vec::with_capacity(self.types.len());
        for (index, (field, &ty)) in row.field.iter().zip(&self.types).enumerate() {
            match decode_row_field(ty, field) {
                Ok(value) => values.push(share_bytes(value, field)),
                Err(err) => return self.fail(format!("column {index}: {err}")),
            }
        }
        self.rows.push(values);
    }

    pub(crate) fn chunk(&mut self, chunk: &rs::Chunk) {
        if self.failure.is_some() {
            return;
        }
        if self.types.is_empty() {
            return self.fail("chunk before column metadata".into());
        }
        self.rows_started = true;
        let types = &self.types;
        let assembler = self
            .assembler
            .get_or_insert_with(|| ChunkAssembler::new(types.clone()));
        match assembler.push(chunk) {
            Ok(Some(decoded)) => self.rows.extend(decoded.into_rows()),
            Ok(None) => {}
            Err(err) => self.fail(format!("chunk: {err}")),
        }
    }

    pub(crate) fn fetch_done(&mut self) {
        if self
            .assembler
            .as_ref()
            .is_some_and(ChunkAssembler::is_pending)
        {
            self.fail("result ended in the middle of a column-split chunk".into());
        }
        self.fetch_done = true;
    }

    pub(crate) fn more_resultsets(&mut self) {
        self.fail("the server sent several result sets for one request; xrpc never does".into());
    }

    pub(crate) fn notice(&mut self, frame: &notice::Frame) {
        let Some(payload) = frame.payload.clone() else {
            return;
        };
        match frame.r#type {
            NOTICE_SESSION_STATE_CHANGED => {
                let Ok(state) = decode_message::<notice::SessionStateChanged>(payload) else {
                    return self.fail("undecodable SessionStateChanged notice".into());
                };
                use notice::session_state_changed::Parameter;
                let value = state.value.as_ref().and_then(|s| {
                    s.v_unsigned_int
                        .or_else(|| s.v_signed_int.and_then(|v| u64::try_from(v).ok()))
                });
                match Parameter::try_from(state.param) {
                    Ok(Parameter::RowsAffected) => self.rows_affected = value.unwrap_or(0),
                    Ok(Parameter::GeneratedInsertId) => self.last_insert_id = value,
                    _ => {}
                }
            }
            NOTICE_WARNING => {
                if let Ok(w) = decode_message::<notice::Warning>(payload) {
                    self.warnings.push(Warning {
                        level: w.level.unwrap_or(2),
                        code: w.code,
                        message: w.msg,
                    });
                }
            }
            _ => {}
        }
    }

    /// Finishes at `StmtExecuteOk`.
    pub(crate) fn finish(self) -> Result<ExecResult, ClientError> {
        if let Some(err) = self.failure {
            return Err(err);
        }
        let result_set = (!self.columns.is_empty()).then(|| ResultSet {
            columns: self.columns,
            rows: self.rows,
        });
        Ok(ExecResult {
            result_set,
            rows_affected: self.rows_affected,
            last_insert_id: self.last_insert_id,
            warnings: self.warnings,
        })
    }
}

/// Row BYTES values are decoded from a `Bytes` slice of the frame; re-slicing the field keeps them
/// zero-copy when the decoder copied.
fn share_bytes(value: Value, field: &Bytes) -> Value {
    match value {
        Value::Bytes(b) if b.len() + 1 == field.len() => Value::Bytes(field.slice(..b.len())),
        other => other,
    }
}
