//! Values that cross the client's API: ids, statement parameters, options and typed results.
//!
//! Results are fully typed: each [`Column`] carries its X-protocol [`ColumnType`], and every cell is
//! an [`xrpc_proto::value::Value`] (`Sint`, `Uint`, `Double`, `Float`, `Bytes`, `Decimal`, `DateTime`,
//! `Time`, `Set`, `Enum`, `Bit` or `Null`), whether it arrived in ROW or CHUNK messages.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use xrpc_proto::messages::pb;
use xrpc_proto::messages::pb::datatypes as dt;
use xrpc_proto::value::{ColumnType, Value};

/// The flow-control budget requests carry unless told otherwise: 10 MiB, in KiB as on the wire.
///
/// The PolarDB-X client uses the same figure for its own probes. The server pauses a result after
/// this many bytes and waits for a `TokenOffer`, which the client sends early, at 4/5 of the
/// budget, whenever the caller keeps up.
pub const DEFAULT_TOKEN_KIB: u32 = 10 * 1024;

/// A session id on one connection. Ids with the top bit set are auto-commit sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub(crate) u64);

impl SessionId {
    /// The sid as it appears in frame headers.
    pub fn raw(self) -> u64 {
        self.0
    }

    /// Whether this is an auto-commit sid (top bit set): no SESS_NEW, one statement, no state.
    pub fn is_auto_commit(self) -> bool {
        xrpc_proto::frame::is_auto_commit_sid(self.0)
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_auto_commit() {
            write!(f, "auto-commit sid {:#x}", self.0)
        } else {
            write!(f, "sid {}", self.0)
        }
    }
}

/// One request issued on a connection; unique for the connection's lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub(crate) u64);

impl RequestId {
    /// The number behind the id.
    pub fn raw(self) -> u64 {
        self.0
    }
}

/// A statement argument, sent as an X-protocol `Any` scalar in `StmtExecute.args`.
///
/// ```
/// use xrpc_client::Param;
///
/// let args: Vec<Param> = vec![42i64.into(), "alice".into(), Param::Null];
/// assert_eq!(args.len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// SQL NULL.
    Null,
    /// A signed integer (`V_SINT`).
    Int(i64),
    /// An unsigned integer (`V_UINT`).
    UInt(u64),
    /// A double (`V_DOUBLE`).
    Double(f64),
    /// A float (`V_FLOAT`).
    Float(f32),
    /// A boolean (`V_BOOL`).
    Bool(bool),
    /// Text (`V_STRING`).
    Str(String),
    /// Raw bytes (`V_OCTETS`).
    Bytes(Bytes),
}

impl Param {
    pub(crate) fn to_any(&self) -> dt::Any {
        use dt::scalar::Type;
        let mut scalar = dt::Scalar::default();
        let ty = match self {
            Param::Null => Type::VNull,
            Param::Int(v) => {
                scalar.v_signed_int = Some(*v);
                Type::VSint
            }
            Param::UInt(v) => {
                scalar.v_unsigned_int = Some(*v);
                Type::VUint
            }
            Param::Double(v) => {
                scalar.v_double = Some(*v);
                Type::VDouble
            }
            Param::Float(v) => {
                scalar.v_float = Some(*v);
                Type::VFloat
            }
            Param::Bool(v) => {
                scalar.v_bool = Some(*v);
                Type::VBool
            }
            Param::Str(s) => {
                scalar.v_string = Some(dt::scalar::String {
                    value: Bytes::copy_from_slice(s.as_bytes()),
                    collation: None,
                });
                Type::VString
            }
            Param::Bytes(b) => {
                scalar.v_octets = Some(dt::scalar::Octets {
                    value: b.clone(),
                    content_type: None,
                });
                Type::VOctets
            }
        };
        scalar.r#type = ty as i32;
        dt::Any {
            r#type: dt::any::Type::Scalar as i32,
            scalar: Some(scalar),
            obj: None,
            array: None,
        }
    }
}

macro_rules! param_from {
    ($($t:ty => $variant:ident via $conv:expr),* $(,)?) => {
        $(impl From<$t> for Param {
            fn from(v: $t) -> Self {
                Param::$variant($conv(v))
            }
        })*
    };
}

param_from! {
    i64 => Int via |v| v,
    i32 => Int via i64::from,
    u64 => UInt via |v| v,
    u32 => UInt via u64::from,
    f64 => Double via |v| v,
    f32 => Float via |v| v,
    bool => Bool via |v| v,
    String => Str via |v| v,
    &str => Str via str::to_owned,
    Bytes => Bytes via |v| v,
    Vec<u8> => Bytes via Bytes::from,
}

impl<T: Into<Param>> From<Option<T>> for Param {
    fn from(v: Option<T>) -> Self {
        v.map_or(Param::Null, Into::into)
    }
}

/// Per-request options of `EXEC_SQL`.
///
/// ```
/// use std::time::Duration;
/// use xrpc_client::ExecOptions;
///
/// let opts = ExecOptions::default()
///     .timeout(Duration::from_secs(2))
///     .chunk_result(true)
///     .schema("sbtest");
/// assert_eq!(opts.token_kib, Some(10 * 1024));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOptions {
    /// `schema_name`: the database to run in. The node switches the session to it as `USE` does,
    /// so later requests without a schema run there too (on an auto-commit sid it applies to
    /// this request only); an unknown one fails with 1049 and leaves the session where it was.
    /// `None` keeps the session's current database.
    pub schema: Option<String>,
    /// Flow-control budget in KiB; `None` disables flow control (`token = -1`). Ignored by the
    /// server on auto-commit sids, so it is not sent there.
    pub token_kib: Option<u32>,
    /// Ask for CHUNK (columnar) results instead of ROWs. Refused on auto-commit sids.
    pub chunk_result: bool,
    /// Kill the statement (SESS_KILL QUERY) and fail the request with a timeout error after this.
    pub timeout: Option<Duration>,
    /// Use the digest cache: send only the 16-byte digest for statements already sent on this
    /// connection (see the `proto` module docs).
    pub use_digest: bool,
    /// Fire and forget: no event is reported for this request; a failure is kept as the session's
    /// stored error and cascades to the next request, which is sent with `reset_error = false`.
    pub fire_and_forget: bool,
    /// Stream rows: rows are queued for [`crate::proto::ClientConnection::take_rows`] instead of
    /// being collected into the result, and flow control follows the caller's reading speed.
    pub stream: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        Self {
            schema: None,
            token_kib: Some(DEFAULT_TOKEN_KIB),
            chunk_result: false,
            timeout: None,
            use_digest: true,
            fire_and_forget: false,
            stream: false,
        }
    }
}

impl ExecOptions {
    /// Sets the per-request timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for chunk (columnar) results.
    pub fn chunk_result(mut self, on: bool) -> Self {
        self.chunk_result = on;
        self
    }

    /// Runs in this schema, and switches the session to it (see [`ExecOptions::schema`]).
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = Some(schema.into());
        self
    }

    /// Sets the flow-control budget in KiB (`None`: no flow control).
    pub fn token_kib(mut self, token: Option<u32>) -> Self {
        self.token_kib = token;
        self
    }

    /// Turns the digest cache on or off for this request.
    pub fn use_digest(mut self, on: bool) -> Self {
        self.use_digest = on;
        self
    }

    /// Marks the request fire-and-forget.
    pub fn fire_and_forget(mut self, on: bool) -> Self {
        self.fire_and_forget = on;
        self
    }

    /// Streams rows instead of collecting them.
    pub fn stream(mut self, on: bool) -> Self {
        self.stream = on;
        self
    }
}

/// One column of a result set, from its `ColumnMetaData`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column's label.
    pub name: String,
    /// The name in the table, if the column is one.
    pub original_name: String,
    /// The table (or alias).
    pub table: String,
    /// The schema.
    pub schema: String,
    /// The X-protocol type that selects the value encoding.
    pub ty: ColumnType,
    /// The MySQL field type (`MYSQL_TYPE_*`).
    pub original_type: i32,
    /// The collation id; 63 is binary.
    pub collation: Option<u64>,
    /// Digits after the decimal point (DECIMAL, DOUBLE, TIME, DATETIME).
    pub fractional_digits: Option<u32>,
    /// Display length.
    pub length: Option<u32>,
    /// X-protocol column flags.
    pub flags: u32,
}

impl Column {
    pub(crate) fn from_pb(meta: &pb::resultset::ColumnMetaData) -> Result<Self, String> {
        let ty = u32::try_from(meta.r#type)
            .ok()
            .and_then(|t| ColumnType::try_from(t).ok())
            .ok_or_else(|| format!("unknown column type {}", meta.r#type))?;
        let text = |b: &Option<Bytes>| {
            b.as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default()
        };
        Ok(Self {
            name: text(&meta.name),
            original_name: text(&meta.original_name),
            table: text(&meta.table),
            schema: text(&meta.schema),
            ty,
            original_type: meta.original_type,
            collation: meta.collation,
            fractional_digits: meta.fractional_digits,
            length: meta.length,
            flags: meta.flags.unwrap_or(0),
        })
    }

    /// Whether BYTES values of this column are binary (collation 63) rather than text.
    pub fn is_binary(&self) -> bool {
        self.collation == Some(63)
    }
}

/// A result set: its columns and every row, typed.
///
/// ```no_run
/// # use xrpc_client::ConnectOptions;
/// # use xrpc_client::blocking::Connection;
/// # let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
/// let rs = conn.query_once("select 1 as one, 'a' as letter")?;
/// assert_eq!(rs.column_index("letter"), Some(1));
/// for row in &rs.rows {
///     println!("{:?}", row);
/// }
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultSet {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The rows, each with one value per column.
    pub rows: Vec<Vec<Value>>,
}

impl ResultSet {
    /// The index of the first column named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The value at `row`, `column` as text, when it is BYTES or ENUM and valid UTF-8.
    pub fn text(&self, row: usize, column: usize) -> Option<&str> {
        match self.rows.get(row)?.get(column)? {
            Value::Bytes(b) | Value::Enum(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }

    /// Whether the result has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A warning notice that came with a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// NOTE 1, WARNING 2, ERROR 3.
    pub level: i32,
    /// The MySQL warning code.
    pub code: u32,
    /// The text.
    pub message: String,
}

/// Everything a statement returned: an optional result set, and the notices that followed it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExecResult {
    /// The result set, for statements that return one. For a streamed request it holds the columns
    /// only; the rows were handed out as they arrived.
    pub result_set: Option<ResultSet>,
    /// `ROWS_AFFECTED` from the SessionStateChanged notice (0 when absent).
    pub rows_affected: u64,
    /// `GENERATED_INSERT_ID`, when the statement generated one.
    pub last_insert_id: Option<u64>,
    /// Warning notices, in order.
    pub warnings: Vec<Warning>,
}

impl ExecResult {
    /// The result set, or an empty one for statements without rows.
    pub fn into_result_set(self) -> ResultSet {
        self.result_set.unwrap_or_default()
    }
}

/// What `SESS_KILL` kills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KillKind {
    /// The running statement, which ends with ERROR 1317; the session stays.
    Query,
    /// The session, which ends with FATAL 7005.
    Connection,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_become_typed_scalars() {
        let any = Param::from("x").to_any();
        let scalar = any.scalar.unwrap();
        assert_eq!(scalar.r#type, dt::scalar::Type::VString as i32);
        assert_eq!(&scalar.v_string.unwrap().value[..], b"x");
        let null = Param::from(None::<i64>).to_any().scalar.unwrap();
        assert_eq!(null.r#type, dt::scalar::Type::VNull as i32);
        let int = Param::from(-3i32).to_any().scalar.unwrap();
        assert_eq!(int.v_signed_int, Some(-3));
    }

    #[test]
    fn auto_commit_sids_display_in_hex() {
        let sid = SessionId(xrpc_proto::frame::AUTO_COMMIT_SID_BIT | 5);
        assert!(sid.is_auto_commit());
        assert_eq!(sid.to_string(), "auto-commit sid 0x8000000000000005");
        assert_eq!(SessionId(7).to_string(), "sid 7");
    }
}
