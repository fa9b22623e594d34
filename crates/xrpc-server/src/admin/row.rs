//! Building the rows of admin result sets.

use bytes::Bytes;
use xrpc_proto::value::Value;

/// A text value (admin SQL sends names and values as utf8mb4 text).
pub(super) fn text(s: impl Into<String>) -> Value {
    Value::Bytes(Bytes::from(s.into()))
}
