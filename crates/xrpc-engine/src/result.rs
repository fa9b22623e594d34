//! What a statement produces, independent of who runs it and of how it goes on the wire.
//!
//! An engine (SQLite, MariaDB, PostgreSQL) or the node's own admin SQL executes a statement and
//! pushes its result into a [`ResultSink`]: column metadata once, then rows of typed
//! [`Value`]s, and returns an [`ExecSummary`]. The session layer's sink encodes them as
//! ColumnMetaData, Row or Chunk frames, with flow control, into the session's output pages. Keeping
//! this boundary small is what lets engines be added without touching sessions.
//!
//! # Contract
//!
//! - `metadata` is called at most once per statement, before any `row`. A statement without a
//!   result set (DDL, INSERT, …) calls neither.
//! - Every row has exactly one value per column, each `Value::Null` or of the column's X type.
//! - A sink error (the client went away, the statement was killed while waiting for flow-control
//!   tokens) aborts the statement: the producer stops and returns [`SqlError`] built from it.

use std::sync::OnceLock;

use xrpc_proto::codes::{self, ErrorCode};
use xrpc_proto::value::{ColumnType, Value};
use xrpc_proto::{HeaderFormat, Severity, WireError};

/// ColumnMetaData `flags` bits ([`xrpc_proto::column::flags`]).
pub use xrpc_proto::column::flags as column_flags;
pub use xrpc_proto::column::{COLLATION_BINARY, COLLATION_UTF8MB4, content_type, mysql_type};

/// One column of a result set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    /// Name as the client sees it (the alias, if any).
    pub name: String,
    /// Name in the table, when the column is a table column.
    pub original_name: String,
    /// Table alias, when known.
    pub table: String,
    /// Table name, when known.
    pub original_table: String,
    /// Schema (attached database), when known.
    pub schema: String,
    /// The X type: selects the value encoding.
    pub x_type: ColumnType,
    /// The MySQL field type ([`mysql_type`]); the Java client requires a known one.
    pub mysql_type: u32,
    /// Collation id: [`COLLATION_BINARY`] only for binary data, [`COLLATION_UTF8MB4`] for text.
    pub collation: u64,
    /// Digits after the point, for DECIMAL, DOUBLE and time types.
    pub fractional_digits: u32,
    /// Display length.
    pub length: u32,
    /// [`column_flags`].
    pub flags: u32,
}

impl ColumnInfo {
    /// A column of the given types with no table, schema, length or flags.
    pub fn new(name: impl Into<String>, x_type: ColumnType, mysql_type: u32) -> Self {
        let collation = match x_type {
            ColumnType::Bytes | ColumnType::Enum | ColumnType::Set => COLLATION_UTF8MB4,
            _ => COLLATION_BINARY,
        };
        Self {
            name: name.into(),
            original_name: String::new(),
            table: String::new(),
            original_table: String::new(),
            schema: String::new(),
            x_type,
            mysql_type,
            collation,
            fractional_digits: 0,
            length: 0,
            flags: 0,
        }
    }

    /// The ColumnMetaData `content_type`, derived from the X and MySQL types as MySQL's X Plugin
    /// does: DATE → [`content_type::DATE`], DATETIME and TIMESTAMP →
    /// [`content_type::DATETIME`], JSON → [`content_type::JSON`], GEOMETRY →
    /// [`content_type::GEOMETRY`]; none for anything else.
    pub fn content_type(&self) -> Option<u32> {
        match (self.x_type, self.mysql_type) {
            (ColumnType::DateTime, mysql_type::DATE) => Some(content_type::DATE),
            (ColumnType::DateTime, mysql_type::DATETIME | mysql_type::TIMESTAMP) => {
                Some(content_type::DATETIME)
            }
            (ColumnType::Bytes, mysql_type::JSON) => Some(content_type::JSON),
            (ColumnType::Bytes, mysql_type::GEOMETRY) => Some(content_type::GEOMETRY),
            _ => None,
        }
    }

    /// A UTF-8 text column (VARCHAR, utf8mb4): what admin SQL returns.
    pub fn text(name: impl Into<String>) -> Self {
        Self::new(name, ColumnType::Bytes, mysql_type::VAR_STRING)
    }

    /// A BIGINT column.
    pub fn bigint(name: impl Into<String>) -> Self {
        Self::new(name, ColumnType::Sint, mysql_type::LONGLONG)
    }

    /// A BIGINT UNSIGNED column.
    pub fn bigint_unsigned(name: impl Into<String>) -> Self {
        Self::new(name, ColumnType::Uint, mysql_type::LONGLONG)
    }

    /// A DOUBLE column.
    pub fn double(name: impl Into<String>) -> Self {
        Self::new(name, ColumnType::Double, mysql_type::DOUBLE)
    }

    /// A binary column (VARBINARY/BLOB): collation 63, so clients return raw bytes.
    pub fn binary(name: impl Into<String>) -> Self {
        let mut column = Self::new(name, ColumnType::Bytes, mysql_type::BLOB);
        column.collation = COLLATION_BINARY;
        column
    }
}

/// Receives a statement's result set.
pub trait ResultSink {
    /// The result set's columns; called once, before any row.
    fn metadata(&mut self, columns: &[ColumnInfo]) -> Result<(), SinkError>;

    /// [`ResultSink::metadata`] for columns the engine keeps for a repeated statement, with
    /// `kept`, where an encoder may keep what it made of them for the next result of the same
    /// statement. It must end exactly as `metadata(columns)` would.
    fn metadata_kept(
        &mut self,
        columns: &[ColumnInfo],
        kept: &KeptMetadata,
    ) -> Result<(), SinkError> {
        let _ = kept;
        self.metadata(columns)
    }

    /// One row, one value per column.
    fn row(&mut self, row: &[Value]) -> Result<(), SinkError>;

    /// A warning or note about the statement (MySQL's `SHOW WARNINGS` row), given after its
    /// rows. Sinks that have nobody to tell drop it.
    fn warning(&mut self, _warning: &SqlWarning) -> Result<(), SinkError> {
        Ok(())
    }
}

/// What an encoder made of the columns of a result shape the engine keeps for a repeated
/// statement (see [`ResultSink::metadata_kept`]): the COLUMN_META_DATA frames, encoded by the
/// first result of that shape and copied by the next ones. One encoding per flavour (full,
/// compact); the encoder fills each slot once.
#[derive(Debug, Default)]
pub struct KeptMetadata {
    flavours: [OnceLock<EncodedColumns>; 2],
}

impl KeptMetadata {
    /// The slot of the full (`compact == false`) or compact encoding.
    #[inline]
    pub fn flavour(&self, compact: bool) -> &OnceLock<EncodedColumns> {
        &self.flavours[usize::from(compact)]
    }
}

/// COLUMN_META_DATA frames encoded with session id 0, and where each frame starts (an encoder
/// writes the session's id into each header when it copies them).
#[derive(Debug)]
pub struct EncodedColumns {
    /// The header format the frames were encoded with.
    pub format: HeaderFormat,
    /// The frames, back to back.
    pub frames: Vec<u8>,
    /// Where each frame starts in `frames`.
    pub starts: Vec<usize>,
}

/// How serious a [`SqlWarning`] is: MySQL's levels, numbered as the X Protocol's
/// `Warning.level` (NOTE 1, WARNING 2, ERROR 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningLevel {
    /// `Note`: below a warning (an input read with digits dropped that MySQL calls harmless).
    Note = 1,
    /// `Warning`: a value was converted, cut or replaced by NULL.
    Warning = 2,
    /// `Error`: the statement failed (kept in the diagnostics for `SHOW WARNINGS` and
    /// `SHOW ERRORS`; sent as the statement's ERROR, never as a notice).
    Error = 3,
}

impl WarningLevel {
    /// The level as `SHOW WARNINGS` names it.
    pub fn name(self) -> &'static str {
        match self {
            WarningLevel::Note => "Note",
            WarningLevel::Warning => "Warning",
            WarningLevel::Error => "Error",
        }
    }
}

/// A warning a statement raised, as MySQL reports it in a WARNING notice and `SHOW WARNINGS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlWarning {
    pub level: WarningLevel,
    pub code: u32,
    pub message: String,
}

/// Why a sink refused more output. The statement stops and reports it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SinkError {
    /// The connection is closed or the write timed out; nobody is listening any more.
    #[error("the client connection is gone")]
    Disconnected,
    /// The statement was killed while it streamed (for example while waiting for flow-control tokens).
    #[error("Query execution was interrupted")]
    Interrupted,
    /// A row that does not fit the metadata: a bug in the producer, reported rather than sent.
    #[error("result row does not match its metadata: {0}")]
    Malformed(String),
}

/// What a statement did, besides its result set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExecSummary {
    /// Whether the statement produced a result set (metadata was sent).
    pub has_result_set: bool,
    /// Rows inserted, updated or deleted (0 for queries).
    pub rows_affected: u64,
    /// The id generated by an INSERT, if any.
    pub last_insert_id: Option<u64>,
}

/// A failed statement, as the client will see it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code} ({sql_state}): {message}")]
pub struct SqlError {
    /// Wire code, from [`xrpc_proto::codes`] where one fits.
    pub code: u32,
    /// SQL state.
    pub sql_state: String,
    /// Message, keeping the engine's own words.
    pub message: String,
}

impl SqlError {
    /// An error from a table row with a specific message.
    pub fn new(code: &ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code: code.code,
            sql_state: code.sql_state.to_owned(),
            message: message.into(),
        }
    }

    /// The ERROR frame for this failure; SQL errors never end the session.
    pub fn to_wire(&self) -> WireError {
        WireError {
            severity: Severity::Error,
            code: self.code,
            sql_state: self.sql_state.clone(),
            message: self.message.clone(),
        }
    }
}

impl From<SinkError> for SqlError {
    fn from(err: SinkError) -> Self {
        match err {
            SinkError::Interrupted => SqlError::new(&codes::QUERY_INTERRUPTED, err.to_string()),
            SinkError::Disconnected | SinkError::Malformed(_) => {
                SqlError::new(&codes::ENGINE_ERROR, err.to_string())
            }
        }
    }
}

/// A sink that keeps everything in memory: for tests and for admin statements run internally.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CollectedResult {
    /// The columns, if a result set was produced.
    pub columns: Option<Vec<ColumnInfo>>,
    /// The rows.
    pub rows: Vec<Vec<Value>>,
    /// The statement's warnings.
    pub warnings: Vec<SqlWarning>,
}

impl ResultSink for CollectedResult {
    fn metadata(&mut self, columns: &[ColumnInfo]) -> Result<(), SinkError> {
        self.columns = Some(columns.to_vec());
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SinkError> {
        self.rows.push(row.to_vec());
        Ok(())
    }

    fn warning(&mut self, warning: &SqlWarning) -> Result<(), SinkError> {
        self.warnings.push(warning.clone());
        Ok(())
    }
}
