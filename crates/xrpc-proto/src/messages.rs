//! The message catalogue: which proto2 message each frame type id carries, in each direction.
//!
//! A frame's type byte selects the body's message, and the same number means different things in the two
//! directions (12 is `SQL_STMT_EXECUTE` from a client and `RESULTSET_COLUMN_META_DATA` from a server). So there
//! are two typed enums, [`ClientMessage`] and [`ServerMessage`], with [`ClientType`] and [`ServerType`] naming
//! their ids. The generated prost structs live in [`pb`], one module per proto package, compiled from
//! `proto/*.proto` by `build.rs`.
//!
//! | id | direction | message | purpose |
//! |---:|---|---|---|
//! | 1 | C→S | `connection::CapabilitiesGet` | capabilities probe; also the idle-connection heartbeat on sid 0 |
//! | 2 | C→S | `connection::CapabilitiesSet` | change capabilities atomically |
//! | 3 | C→S | `connection::Close` | close the connection |
//! | 4 | C→S | `session::AuthenticateStart` | start authentication (mechanism, initial data) |
//! | 5 | C→S | `session::AuthenticateContinue` | the client's answer to the challenge |
//! | 6 | C→S | `session::Reset` | reset the session |
//! | 7 | C→S | `session::Close` | close the session once its queued work is done |
//! | 12 | C→S | `sql::StmtExecute` | X Protocol statement execution (same body as 101) |
//! | 17–20 | C→S | raw bytes | X Protocol CRUD find, insert, update, delete: no engine schema or handler |
//! | 24 | C→S | `expect::Open` | open an expectation block |
//! | 25 | C→S | `expect::Close` | close an expectation block |
//! | 100 | C→S | `exec_plan::ExecPlan` | run a key-value execution plan |
//! | 101 | C→S | `sql::StmtExecute` | run SQL |
//! | 102 | C→S | `sql::GalaxyPrepareExecute` | prepared execution; compute-node client only, no engine handler |
//! | 110 | C→S | `session::NewSession` | create the session named by the header sid |
//! | 111 | C→S | `session::KillSession` | kill the query or the session named by the header sid |
//! | 112 | C→S | `sql::TokenOffer` | reset the flow-control budget |
//! | 113 | C→S | `exec_plan::GetTso` | fetch timestamps from the oracle |
//! | 115 | C→S | `exec_plan::AutoSp` | set, release or roll back a savepoint |
//! | 116–118 | C→S | raw bytes | physical backfill file operations: not modelled |
//! | 0 | S→C | `Ok` | generic success |
//! | 1 | S→C | `Error` | failure; FATAL ends the session (or the connection on sid 0) |
//! | 2 | S→C | `connection::Capabilities` | answer to CapabilitiesGet |
//! | 3 | S→C | `session::AuthenticateContinue` | the server's challenge |
//! | 4 | S→C | `session::AuthenticateOk` | authentication succeeded |
//! | 11 | S→C | `notice::Frame` | warning, rows affected, insert id, variable change |
//! | 12 | S→C | `resultset::ColumnMetaData` | one column of a result set |
//! | 13 | S→C | `resultset::Row` | one row |
//! | 14 | S→C | `resultset::FetchDone` | last result set finished |
//! | 15 | S→C | `resultset::FetchSuspended` | cursor suspended (empty body) |
//! | 16 | S→C | `resultset::FetchDoneMoreResultsets` | another result set follows (fatal to the Java client) |
//! | 17 | S→C | `sql::StmtExecuteOk` | request finished successfully |
//! | 18 | S→C | `resultset::FetchDoneMoreOutParams` | OUT parameters follow |
//! | 19 | S→C | `resultset::TokenDone` | flow-control budget exhausted; waiting for TokenOffer |
//! | 20 | S→C | `exec_plan::ResultTso` | answer to GetTso |
//! | 21 | S→C | `resultset::Chunk` | column-major block of rows |
//! | 22–24 | S→C | raw bytes | replies to the file operations 116–118: not modelled |
//!
//! The ids 127 (`MSG_MAX`, a table bound) and every id not listed are unknown.
//!
//! # Invariants
//!
//! - The id ↔ variant mapping is one-to-one within a direction, except that ids 12 and 101 both carry
//!   `StmtExecute` and stay distinct variants: `decode(id, body)?.type_id() == id` for every known id, and
//!   `decode(m.type_id(), encoding of m) == m` for every message `m`.
//! - `decode` consumes the whole body as one message. Unknown fields are skipped and unknown enum values are
//!   kept as raw `i32`s, so newer peers can add fields without breaking older ones.
//! - prost does not enforce proto2 `required` fields, but the Java client drops messages without them. `decode`
//!   therefore checks every required field, in nested messages too, against a table `build.rs` derives from the
//!   `.proto` files, and reports a missing one as [`MessageError::Body`]. On the encoding side prost always
//!   writes required fields, so an encoded message always has them.
//! - Bytes fields are [`Bytes`]: decoding from a `Bytes` body slices it instead of copying, and the raw-bytes
//!   variants hold the body itself.
//! - An unknown id is [`MessageError::UnknownType`]; a known id with an undecodable body is
//!   [`MessageError::Body`]. The first means the peer speaks another protocol, the second a bad request.

use std::fmt;

use bytes::{BufMut, Bytes};
use prost::{DecodeError, Message, Name};
use thiserror::Error;

/// The prost structs generated from `proto/*.proto`, one module per proto package (`xrpc` is this module,
/// `xrpc.sql` is [`pb::sql`], and so on).
#[allow(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    clippy::all,
    clippy::pedantic,
    rustdoc::all,
    reason = "generated by prost-build; its style is not ours to lint"
)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/xrpc.rs"));

    /// Scalars, Any/Object/Array values and session variables.
    pub mod datatypes {
        include!(concat!(env!("OUT_DIR"), "/xrpc.datatypes.rs"));
    }

    /// Capabilities and connection close.
    pub mod connection {
        include!(concat!(env!("OUT_DIR"), "/xrpc.connection.rs"));
    }

    /// Authentication and session lifetime.
    pub mod session {
        include!(concat!(env!("OUT_DIR"), "/xrpc.session.rs"));
    }

    /// SQL execution, its completion and flow-control tokens.
    pub mod sql {
        include!(concat!(env!("OUT_DIR"), "/xrpc.sql.rs"));
    }

    /// Column metadata, rows, chunks and result-set terminators.
    pub mod resultset {
        include!(concat!(env!("OUT_DIR"), "/xrpc.resultset.rs"));
    }

    /// Notice frames and their payloads.
    pub mod notice {
        include!(concat!(env!("OUT_DIR"), "/xrpc.notice.rs"));
    }

    /// Expression trees used by execution plans.
    pub mod expr {
        include!(concat!(env!("OUT_DIR"), "/xrpc.expr.rs"));
    }

    /// Execution plans, TSO and auto-savepoint requests.
    pub mod exec_plan {
        include!(concat!(env!("OUT_DIR"), "/xrpc.exec_plan.rs"));
    }

    /// X Protocol expectation blocks.
    pub mod expect {
        include!(concat!(env!("OUT_DIR"), "/xrpc.expect.rs"));
    }
}

/// Which way a message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Requests: [`ClientMessage`].
    ClientToServer,
    /// Replies and notices: [`ServerMessage`].
    ServerToClient,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ClientToServer => "client-to-server",
            Self::ServerToClient => "server-to-client",
        })
    }
}

/// Why a frame body could not be turned into a message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MessageError {
    /// The type id is not in the catalogue for that direction: the peer speaks another protocol (or a newer one),
    /// and the stream cannot be trusted further.
    #[error("unknown {direction} message type {type_id}")]
    UnknownType {
        /// The direction whose catalogue was consulted.
        direction: Direction,
        /// The type byte from the frame header.
        type_id: u8,
    },
    /// The type id is known but its body is malformed or lacks a required field.
    #[error("malformed {name} body (type {type_id}): {source}")]
    Body {
        /// The type byte from the frame header.
        type_id: u8,
        /// The catalogue name of the type, such as `EXEC_SQL`.
        name: &'static str,
        /// What prost, or the required-field check, found wrong.
        source: DecodeError,
    },
}

impl MessageError {
    /// The type byte of the frame that failed.
    pub fn type_id(&self) -> u8 {
        match self {
            Self::UnknownType { type_id, .. } | Self::Body { type_id, .. } => *type_id,
        }
    }
}

/// Decodes one catalogue message from `body` and checks its proto2 `required` fields, recursively.
///
/// This is what [`ClientMessage::decode`] and [`ServerMessage::decode`] do for each body; it is public for
/// payloads nested as bytes, such as the `Warning` or `SessionStateChanged` inside a notice frame.
pub fn decode_message<M: Message + Name + Default>(body: Bytes) -> Result<M, DecodeError> {
    let schema = const { schema_index(M::PACKAGE, M::NAME) };
    // Cloning a `Bytes` only bumps a reference count; prost consumes one handle and the check reads the other.
    let message = M::decode(body.clone())?;
    check_required(&body, schema, 0)?;
    Ok(message)
}

/// [`decode_message`] for a body the caller does not own: each bytes field gets its own buffer,
/// copied from `body`, instead of a slice of a shared one. The message, and any error, are the
/// same as [`decode_message`]'s.
///
/// This is what [`ClientMessage::decode_slice`] does for each body. A request whose only bytes
/// field is its statement (the usual EXEC_SQL) costs one allocation this way, where copying the
/// body into a `Bytes` first costs two (the copy, then the shared header its first clone makes).
pub fn decode_message_slice<M: Message + Name + Default>(body: &[u8]) -> Result<M, DecodeError> {
    let schema = const { schema_index(M::PACKAGE, M::NAME) };
    let message = M::decode(body)?;
    check_required(body, schema, 0)?;
    Ok(message)
}

/// Writes a prost message whose length the caller has budgeted for.
fn encode_prost(message: &impl Message, out: &mut impl BufMut) {
    if let Err(err) = message.encode(out) {
        panic!(
            "buffer too small for a {}-byte message body: {err}",
            message.encoded_len()
        );
    }
}

// Helpers for the catalogue macro: a body is either a prost message type or `raw`, the undecoded bytes.
macro_rules! body_type {
    (raw) => {
        Bytes
    };
    ($message:ty) => {
        $message
    };
}

macro_rules! decode_body {
    ((raw), $ty:expr, $body:expr) => {
        Ok::<_, MessageError>($body)
    };
    (($message:ty), $ty:expr, $body:expr) => {
        decode_message::<$message>($body).map_err(|source| MessageError::Body {
            type_id: $ty.id(),
            name: $ty.name(),
            source,
        })
    };
}

macro_rules! decode_slice_body {
    ((raw), $ty:expr, $body:expr) => {
        Ok::<_, MessageError>(Bytes::copy_from_slice($body))
    };
    (($message:ty), $ty:expr, $body:expr) => {
        decode_message_slice::<$message>($body).map_err(|source| MessageError::Body {
            type_id: $ty.id(),
            name: $ty.name(),
            source,
        })
    };
}

macro_rules! encoded_len_body {
    ((raw), $body:expr) => {
        $body.len()
    };
    (($message:ty), $body:expr) => {
        Message::encoded_len($body)
    };
}

macro_rules! encode_body {
    ((raw), $body:expr, $out:expr) => {
        $out.put_slice($body)
    };
    (($message:ty), $body:expr, $out:expr) => {
        encode_prost($body, $out)
    };
}

/// Defines one direction's id enum and message enum from a single table, so the two cannot drift apart.
macro_rules! catalogue {
    (
        $(#[$type_meta:meta])*
        pub enum $Type:ident;
        $(#[$message_meta:meta])*
        pub enum $Message:ident;
        direction = $direction:expr;
        $(
            $(#[$variant_meta:meta])*
            $id:literal $wire_name:literal $Variant:ident($($body:tt)+),
        )+
    ) => {
        $(#[$type_meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $Type {
            $(
                $(#[$variant_meta])*
                $Variant = $id,
            )+
        }

        impl $Type {
            /// Every known id, in ascending order.
            pub const ALL: &'static [Self] = &[$(Self::$Variant),+];

            /// The type for a frame's type byte, if the catalogue has one.
            pub const fn from_id(id: u8) -> Option<Self> {
                match id {
                    $($id => Some(Self::$Variant),)+
                    _ => None,
                }
            }

            /// The type byte.
            pub const fn id(self) -> u8 {
                self as u8
            }

            /// The catalogue name, as in the `.proto` enum (`EXEC_SQL`, `RESULTSET_ROW`, …).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$Variant => $wire_name,)+
                }
            }
        }

        impl TryFrom<u8> for $Type {
            type Error = MessageError;

            fn try_from(type_id: u8) -> Result<Self, MessageError> {
                Self::from_id(type_id).ok_or(MessageError::UnknownType { direction: $direction, type_id })
            }
        }

        impl From<$Type> for u8 {
            fn from(ty: $Type) -> u8 {
                ty.id()
            }
        }

        impl fmt::Display for $Type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        $(#[$message_meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum $Message {
            $(
                $(#[$variant_meta])*
                $Variant(body_type!($($body)+)),
            )+
        }

        impl $Message {
            /// Decodes the body of a frame whose type byte is `type_id`.
            ///
            /// Bytes fields, and the whole body of a raw variant, share `body`'s buffer.
            pub fn decode(type_id: u8, body: Bytes) -> Result<Self, MessageError> {
                let ty = $Type::try_from(type_id)?;
                match ty {
                    $($Type::$Variant => decode_body!(($($body)+), ty, body).map(Self::$Variant),)+
                }
            }

            /// Decodes a body borrowed from the caller's buffer (a receive buffer the frame
            /// decoder reuses): the same message, or the same error, as [`decode`](Self::decode)
            /// of a copy of `body`, with each bytes field (and a raw variant's body) copied into
            /// its own buffer rather than the whole body copied once and shared.
            pub fn decode_slice(type_id: u8, body: &[u8]) -> Result<Self, MessageError> {
                let ty = $Type::try_from(type_id)?;
                match ty {
                    $($Type::$Variant => decode_slice_body!(($($body)+), ty, body).map(Self::$Variant),)+
                }
            }

            /// The catalogue entry of this message.
            pub const fn message_type(&self) -> $Type {
                match self {
                    $(Self::$Variant(_) => $Type::$Variant,)+
                }
            }

            /// The type byte to put in the frame header.
            pub const fn type_id(&self) -> u8 {
                self.message_type().id()
            }

            /// The body's length in bytes, which the frame header's `length` counts plus one for the type byte.
            pub fn encoded_len(&self) -> usize {
                match self {
                    $(Self::$Variant(body) => encoded_len_body!(($($body)+), body),)+
                }
            }

            /// Appends the body (not the header) to `out`.
            ///
            /// # Panics
            ///
            /// If `out` cannot take [`encoded_len`](Self::encoded_len) more bytes, as with
            /// [`BufMut::put_slice`]; growable buffers such as `Vec<u8>` and `BytesMut` always can.
            pub fn encode(&self, out: &mut impl BufMut) {
                match self {
                    $(Self::$Variant(body) => encode_body!(($($body)+), body, out),)+
                }
            }
        }
    };
}

catalogue! {
    /// Type ids of client-to-server messages.
    pub enum ClientType;
    /// A client-to-server message: a request on some session, or a connection-level message on sid 0.
    pub enum ClientMessage;
    direction = Direction::ClientToServer;

    /// Capabilities probe, valid before authentication; clients use it as a heartbeat.
    1 "CON_CAPABILITIES_GET" CapabilitiesGet(pb::connection::CapabilitiesGet),
    /// Atomic capability change.
    2 "CON_CAPABILITIES_SET" CapabilitiesSet(pb::connection::CapabilitiesSet),
    /// Connection close.
    3 "CON_CLOSE" ConnectionClose(pb::connection::Close),
    /// First authentication message.
    4 "SESS_AUTHENTICATE_START" AuthenticateStart(pb::session::AuthenticateStart),
    /// The client's answer to the server's challenge.
    5 "SESS_AUTHENTICATE_CONTINUE" AuthenticateContinue(pb::session::AuthenticateContinue),
    /// Session reset.
    6 "SESS_RESET" SessionReset(pb::session::Reset),
    /// Session close, queued behind the session's earlier work.
    7 "SESS_CLOSE" SessionClose(pb::session::Close),
    /// The X Protocol's statement execution; same body as [`ExecSql`](Self::ExecSql).
    12 "SQL_STMT_EXECUTE" SqlStmtExecute(pb::sql::StmtExecute),
    /// X Protocol CRUD find; the engine has no schema for it, so it stays raw bytes.
    17 "CRUD_FIND" CrudFind(raw),
    /// X Protocol CRUD insert; the engine has no schema for it, so it stays raw bytes.
    18 "CRUD_INSERT" CrudInsert(raw),
    /// X Protocol CRUD update; the engine has no schema for it, so it stays raw bytes.
    19 "CRUD_UPDATE" CrudUpdate(raw),
    /// X Protocol CRUD delete; the engine has no schema for it, so it stays raw bytes.
    20 "CRUD_DELETE" CrudDelete(raw),
    /// Opens an expectation block.
    24 "EXPECT_OPEN" ExpectOpen(pb::expect::Open),
    /// Closes an expectation block.
    25 "EXPECT_CLOSE" ExpectClose(pb::expect::Close),
    /// Key-value execution plan.
    100 "EXEC_PLAN_READ" ExecPlanRead(pb::exec_plan::ExecPlan),
    /// SQL statement.
    101 "EXEC_SQL" ExecSql(pb::sql::StmtExecute),
    /// Prepared execution from the compute-node client; the engine has no handler for it.
    102 "GALAXY_PREPARE_EXECUTE" GalaxyPrepareExecute(pb::sql::GalaxyPrepareExecute),
    /// Creates the session named by the header sid.
    110 "SESS_NEW" NewSession(pb::session::NewSession),
    /// Kills the query or the session named by the header sid; handled ahead of the session's queue.
    111 "SESS_KILL" KillSession(pb::session::KillSession),
    /// Resets the flow-control budget; handled ahead of the session's queue.
    112 "TOKEN_OFFER" TokenOffer(pb::sql::TokenOffer),
    /// Timestamp-oracle request.
    113 "GET_TSO" GetTso(pb::exec_plan::GetTso),
    /// Savepoint set, release or rollback.
    115 "AUTO_SP" AutoSp(pb::exec_plan::AutoSp),
    /// Physical backfill: file information; kept as raw bytes.
    116 "FILE_OPERATION_GET_FILE_INFO" FileGetInfo(raw),
    /// Physical backfill: file data transfer; kept as raw bytes.
    117 "FILE_OPERATION_TRANSFER_FILE_DATA" FileTransferData(raw),
    /// Physical backfill: file management; kept as raw bytes.
    118 "FILE_OPERATION_FILE_MANAGE" FileManage(raw),
}

catalogue! {
    /// Type ids of server-to-client messages.
    pub enum ServerType;
    /// A server-to-client message: a reply, part of a result set, or a notice.
    pub enum ServerMessage;
    direction = Direction::ServerToClient;

    /// Generic success.
    0 "OK" Ok(pb::Ok),
    /// Failure; severity FATAL ends the session, or the connection on sid 0.
    1 "ERROR" Error(pb::Error),
    /// Answer to `CapabilitiesGet`.
    2 "CONN_CAPABILITIES" Capabilities(pb::connection::Capabilities),
    /// The server's authentication challenge.
    3 "SESS_AUTHENTICATE_CONTINUE" AuthenticateContinue(pb::session::AuthenticateContinue),
    /// Authentication succeeded.
    4 "SESS_AUTHENTICATE_OK" AuthenticateOk(pb::session::AuthenticateOk),
    /// Notice frame; its payload is a `Warning`, `SessionVariableChanged` or `SessionStateChanged`.
    11 "NOTICE" Notice(pb::notice::Frame),
    /// One column of a result set's metadata.
    12 "RESULTSET_COLUMN_META_DATA" ColumnMetaData(pb::resultset::ColumnMetaData),
    /// One row.
    13 "RESULTSET_ROW" Row(pb::resultset::Row),
    /// The last result set is finished.
    14 "RESULTSET_FETCH_DONE" FetchDone(pb::resultset::FetchDone),
    /// The cursor is suspended.
    15 "RESULTSET_FETCH_SUSPENDED" FetchSuspended(pb::resultset::FetchSuspended),
    /// Another result set follows.
    16 "RESULTSET_FETCH_DONE_MORE_RESULTSETS" FetchDoneMoreResultsets(pb::resultset::FetchDoneMoreResultsets),
    /// The request finished successfully.
    17 "SQL_STMT_EXECUTE_OK" StmtExecuteOk(pb::sql::StmtExecuteOk),
    /// OUT parameters follow.
    18 "RESULTSET_FETCH_DONE_MORE_OUT_PARAMS" FetchDoneMoreOutParams(pb::resultset::FetchDoneMoreOutParams),
    /// The flow-control budget is spent; the server waits for a `TokenOffer`.
    19 "RESULTSET_TOKEN_DONE" TokenDone(pb::resultset::TokenDone),
    /// Answer to `GetTso`.
    20 "RESULTSET_TSO" Tso(pb::exec_plan::ResultTso),
    /// A column-major block of rows.
    21 "RESULTSET_CHUNK" Chunk(pb::resultset::Chunk),
    /// Reply to file operation 116; kept as raw bytes.
    22 "RESULTSET_GET_FILE_INFO_OK" GetFileInfoOk(raw),
    /// Reply to file operation 117; kept as raw bytes.
    23 "RESULTSET_TRANSFER_FILE_DATA_OK" TransferFileDataOk(raw),
    /// Reply to file operation 118; kept as raw bytes.
    24 "RESULTSET_FILE_MANAGE_OK" FileManageOk(raw),
}

/// Required fields of one message, from the table `build.rs` generates.
#[derive(Debug)]
struct MessageSchema {
    /// Full proto name, such as `xrpc.sql.StmtExecute`.
    name: &'static str,
    /// Field numbers (all below 64) and names of the `required` fields.
    required: &'static [(u32, &'static str)],
    /// Message-typed fields whose messages have required fields somewhere below them: field number and the
    /// index of their schema in `SCHEMAS`.
    nested: &'static [(u32, usize)],
}

mod schemas {
    use super::MessageSchema;

    include!(concat!(env!("OUT_DIR"), "/required.rs"));
}

use schemas::SCHEMAS;

/// Deeper than prost's own recursion limit (100), so a body prost accepted never trips it.
const MAX_NESTING: u32 = 128;

/// The index in `SCHEMAS` of the message `package.name`; evaluated at compile time, where a miss is an error.
const fn schema_index(package: &str, name: &str) -> usize {
    let mut i = 0;
    while i < SCHEMAS.len() {
        if is_full_name(SCHEMAS[i].name, package, name) {
            return i;
        }
        i += 1;
    }
    panic!("message missing from the required-field table");
}

/// Whether `full` is `package` + "." + `name`.
const fn is_full_name(full: &str, package: &str, name: &str) -> bool {
    let (full, package, name) = (full.as_bytes(), package.as_bytes(), name.as_bytes());
    if full.len() != package.len() + 1 + name.len() || full[package.len()] != b'.' {
        return false;
    }
    let mut i = 0;
    while i < package.len() {
        if full[i] != package[i] {
            return false;
        }
        i += 1;
    }
    let mut j = 0;
    while j < name.len() {
        if full[package.len() + 1 + j] != name[j] {
            return false;
        }
        j += 1;
    }
    true
}

/// Walks the wire encoding of one message and fails on the first absent required field.
///
/// Runs after prost has decoded the same bytes, so the framing is already known to be sound; the errors for
/// malformed input here are a second line of defence. Each occurrence of a nested message is checked on its
/// own, which is stricter than checking the merged value when a sender splits one message across repeats.
fn check_required(mut buf: &[u8], schema: usize, depth: u32) -> Result<(), DecodeError> {
    let schema_ref = &SCHEMAS[schema];
    if schema_ref.required.is_empty() && schema_ref.nested.is_empty() {
        return Ok(());
    }
    if depth > MAX_NESTING {
        return Err(DecodeError::new("recursion limit reached"));
    }
    let mut seen: u64 = 0;
    // Fields inside a (deprecated, unknown) group belong to the group, not to this message.
    let mut group_depth: u32 = 0;
    while !buf.is_empty() {
        let key = take_varint(&mut buf)?;
        let number = key >> 3;
        match key & 7 {
            0 => {
                take_varint(&mut buf)?;
            }
            1 => {
                take(&mut buf, 8)?;
            }
            2 => {
                let len = usize::try_from(take_varint(&mut buf)?)
                    .map_err(|_| DecodeError::new("length-delimited field too long"))?;
                let field = take(&mut buf, len)?;
                if group_depth == 0
                    && let Some(&(_, child)) = schema_ref
                        .nested
                        .iter()
                        .find(|&&(n, _)| u64::from(n) == number)
                {
                    check_required(field, child, depth + 1)?;
                }
            }
            3 => {
                group_depth += 1;
                continue;
            }
            4 => {
                group_depth = group_depth
                    .checked_sub(1)
                    .ok_or_else(|| DecodeError::new("unexpected end group"))?;
                continue;
            }
            5 => {
                take(&mut buf, 4)?;
            }
            _ => return Err(DecodeError::new("invalid wire type")),
        }
        if group_depth == 0 && number < 64 {
            seen |= 1 << number;
        }
    }
    for &(number, field) in schema_ref.required {
        if seen & (1 << number) == 0 {
            // `new` and `push` are how prost's own generated code builds its errors; `push` adds the
            // `Message.field` context that prost prints.
            let mut err = DecodeError::new("missing required field");
            err.push(schema_ref.name, field);
            return Err(err);
        }
    }
    Ok(())
}

fn take_varint(buf: &mut &[u8]) -> Result<u64, DecodeError> {
    let mut value: u64 = 0;
    for (i, &byte) in buf.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *buf = &buf[i + 1..];
            return Ok(value);
        }
    }
    Err(DecodeError::new("invalid varint"))
}

fn take<'a>(buf: &mut &'a [u8], len: usize) -> Result<&'a [u8], DecodeError> {
    if buf.len() < len {
        return Err(DecodeError::new("buffer underflow"));
    }
    let (head, tail) = buf.split_at(len);
    *buf = tail;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use proptest::collection::vec;
    use proptest::option::of;
    use proptest::prelude::*;
    use proptest::sample::select;
    use proptest::strategy::Union;

    use super::pb::{
        connection, datatypes as dt, exec_plan as ep, expect, expr as ex, notice, resultset as rs,
    };
    use super::pb::{session, sql};
    use super::*;

    // ---- leaf strategies ----

    fn bytes(max: usize) -> impl Strategy<Value = Bytes> + Clone {
        vec(any::<u8>(), 0..max).prop_map(Bytes::from)
    }

    fn text() -> impl Strategy<Value = String> + Clone {
        "\\PC{0,12}"
    }

    fn enum_value(values: &'static [i32]) -> impl Strategy<Value = i32> + Clone {
        select(values)
    }

    fn scalar() -> BoxedStrategy<dt::Scalar> {
        use dt::scalar::{Octets, String as Text, Type};
        fn of_type(ty: Type) -> dt::Scalar {
            dt::Scalar {
                r#type: ty as i32,
                ..Default::default()
            }
        }
        let text_value =
            (bytes(16), of(any::<u64>())).prop_map(|(value, collation)| Text { value, collation });
        prop_oneof![
            any::<i64>().prop_map(|v| dt::Scalar {
                v_signed_int: Some(v),
                ..of_type(Type::VSint)
            }),
            any::<u64>().prop_map(|v| dt::Scalar {
                v_unsigned_int: Some(v),
                ..of_type(Type::VUint)
            }),
            Just(of_type(Type::VNull)),
            (bytes(16), of(any::<u32>())).prop_map(|(value, content_type)| dt::Scalar {
                v_octets: Some(Octets {
                    value,
                    content_type
                }),
                ..of_type(Type::VOctets)
            }),
            (-1e300f64..1e300).prop_map(|v| dt::Scalar {
                v_double: Some(v),
                ..of_type(Type::VDouble)
            }),
            (-1e30f32..1e30).prop_map(|v| dt::Scalar {
                v_float: Some(v),
                ..of_type(Type::VFloat)
            }),
            any::<bool>().prop_map(|v| dt::Scalar {
                v_bool: Some(v),
                ..of_type(Type::VBool)
            }),
            text_value.clone().prop_map(|v| dt::Scalar {
                v_string: Some(v),
                ..of_type(Type::VString)
            }),
            any::<u32>().prop_map(|v| dt::Scalar {
                v_position: Some(v),
                ..of_type(Type::VPlaceholder)
            }),
            text_value.clone().prop_map(|v| dt::Scalar {
                v_identifier: Some(v),
                ..of_type(Type::VIdentifier)
            }),
            text_value.prop_map(|v| dt::Scalar {
                v_string: Some(v),
                ..of_type(Type::VRawString)
            }),
        ]
        .boxed()
    }

    /// Any values nested at most three levels deep.
    fn any_value() -> BoxedStrategy<dt::Any> {
        use dt::any::Type;
        scalar()
            .prop_map(|s| dt::Any {
                r#type: Type::Scalar as i32,
                scalar: Some(s),
                ..Default::default()
            })
            .prop_recursive(3, 16, 4, |inner| {
                prop_oneof![
                    vec(inner.clone(), 0..4).prop_map(|value| dt::Any {
                        r#type: Type::Array as i32,
                        array: Some(dt::Array { value }),
                        ..Default::default()
                    }),
                    vec((text(), inner), 0..4).prop_map(|fields| dt::Any {
                        r#type: Type::Object as i32,
                        obj: Some(dt::Object {
                            fld: fields
                                .into_iter()
                                .map(|(key, value)| dt::object::ObjectField { key, value })
                                .collect(),
                        }),
                        ..Default::default()
                    }),
                ]
            })
            .boxed()
    }

    fn session_variables() -> impl Strategy<Value = Vec<dt::SessionVariable>> {
        vec(
            (text(), scalar()).prop_map(|(key, value)| dt::SessionVariable { key, value }),
            0..3,
        )
    }

    /// Expressions nested at most three levels deep.
    fn expr() -> BoxedStrategy<ex::Expr> {
        use ex::expr::Type;
        fn of_type(ty: Type) -> ex::Expr {
            ex::Expr {
                r#type: ty as i32,
                ..Default::default()
            }
        }
        let path_item = (enum_value(&[1, 2, 3, 4, 5]), of(text()), of(any::<u32>())).prop_map(
            |(r#type, value, index)| ex::DocumentPathItem {
                r#type,
                value,
                index,
            },
        );
        let column = (vec(path_item, 0..3), of(text()), of(text()), of(text())).prop_map(
            |(document_path, name, table_name, schema_name)| ex::ColumnIdentifier {
                document_path,
                name,
                table_name,
                schema_name,
            },
        );
        let leaf = prop_oneof![
            column.prop_map(|c| ex::Expr {
                identifier: Some(c),
                ..of_type(Type::Ident)
            }),
            scalar().prop_map(|s| ex::Expr {
                literal: Some(s),
                ..of_type(Type::Literal)
            }),
            text().prop_map(|v| ex::Expr {
                variable: Some(v),
                ..of_type(Type::Variable)
            }),
            any::<u32>().prop_map(|p| ex::Expr {
                position: Some(p),
                ..of_type(Type::Placeholder)
            }),
            any::<u32>().prop_map(|r| ex::Expr {
                ref_id: Some(r),
                ..of_type(Type::Ref)
            }),
        ];
        leaf.prop_recursive(3, 16, 3, |inner| {
            let params = vec(inner.clone(), 0..3);
            prop_oneof![
                (text(), of(text()), params.clone()).prop_map(|(name, schema_name, param)| {
                    ex::Expr {
                        function_call: Some(ex::FunctionCall {
                            name: ex::Identifier { name, schema_name },
                            param,
                        }),
                        ..of_type(Type::FuncCall)
                    }
                }),
                (text(), params.clone()).prop_map(|(name, param)| ex::Expr {
                    operator: Some(ex::Operator { name, param }),
                    ..of_type(Type::Operator)
                }),
                vec((text(), inner), 0..3).prop_map(|fields| ex::Expr {
                    object: Some(ex::Object {
                        fld: fields
                            .into_iter()
                            .map(|(key, value)| ex::object::ObjectField { key, value })
                            .collect(),
                    }),
                    ..of_type(Type::Object)
                }),
                params.prop_map(|value| ex::Expr {
                    array: Some(ex::Array { value }),
                    ..of_type(Type::Array)
                }),
            ]
        })
        .boxed()
    }

    fn table_info() -> impl Strategy<Value = ep::TableInfo> + Clone {
        (of(any::<i64>()), scalar(), of(scalar())).prop_map(|(version, name, schema_name)| {
            ep::TableInfo {
                version,
                name,
                schema_name,
            }
        })
    }

    fn index_info() -> impl Strategy<Value = ep::IndexInfo> + Clone {
        (scalar(), of(any::<i32>())).prop_map(|(name, use_parts)| ep::IndexInfo { name, use_parts })
    }

    fn get_expr() -> impl Strategy<Value = ep::GetExpr> + Clone {
        vec(
            (scalar(), scalar()).prop_map(|(field, value)| ep::KeyExpr { field, value }),
            0..3,
        )
        .prop_map(|keys| ep::GetExpr { keys })
    }

    /// Plans nested at most three levels deep, every plan type included.
    fn plan() -> BoxedStrategy<ep::AnyPlan> {
        use ep::any_plan::PlanType;
        fn of_type(ty: PlanType) -> ep::AnyPlan {
            ep::AnyPlan {
                plan_type: ty as i32,
                ..Default::default()
            }
        }
        let leaf = prop_oneof![
            (table_info(), of(index_info()), vec(get_expr(), 0..3)).prop_map(
                |(table_info, index_info, keys)| {
                    ep::AnyPlan {
                        get_plan: Some(ep::GetPlan {
                            table_info,
                            index_info,
                            keys,
                        }),
                        ..of_type(PlanType::Get)
                    }
                }
            ),
            (table_info(), of(index_info()), of(any::<bool>())).prop_map(
                |(table_info, index_info, reverse)| {
                    ep::AnyPlan {
                        table_scan_plan: Some(ep::TableScanPlan {
                            table_info,
                            index_info,
                            reverse,
                        }),
                        ..of_type(PlanType::TableScan)
                    }
                }
            ),
            (
                of(Just(ep::Transaction {})),
                of(table_info()),
                of(index_info()),
                of(get_expr()),
                of(get_expr()),
                of(any::<bool>()),
                of(any::<i64>())
            )
                .prop_map(
                    |(snapshot, table_info, index_info, key, end_key, reverse, flag)| ep::AnyPlan {
                        range_scan: Some(ep::RangeScan {
                            snapshot,
                            table_info,
                            index_info,
                            key,
                            end_key,
                            reverse,
                            flag
                        }),
                        ..of_type(PlanType::RangeScan)
                    }
                ),
        ];
        leaf.prop_recursive(3, 12, 1, |inner| {
            let sub = inner.prop_map(Box::new);
            prop_oneof![
                (sub.clone(), vec(scalar(), 0..3)).prop_map(|(sub_read_plan, fields)| {
                    ep::AnyPlan {
                        table_project: Some(Box::new(ep::TableProject {
                            sub_read_plan,
                            fields,
                        })),
                        ..of_type(PlanType::TableProject)
                    }
                }),
                (sub.clone(), vec(scalar(), 0..3), vec(expr(), 0..3)).prop_map(
                    |(sub_read_plan, fields, exprs)| {
                        ep::AnyPlan {
                            project: Some(Box::new(ep::Project {
                                sub_read_plan,
                                fields,
                                exprs,
                            })),
                            ..of_type(PlanType::Project)
                        }
                    }
                ),
                (sub.clone(), expr()).prop_map(|(sub_read_plan, expr)| ep::AnyPlan {
                    filter: Some(Box::new(ep::Filter {
                        sub_read_plan,
                        expr
                    })),
                    ..of_type(PlanType::Filter)
                }),
                (sub, enum_value(&[1, 2, 3, 4, 5, 6, 7, 8]), scalar(), expr()).prop_map(
                    |(sub_read_plan, r#type, field, expr)| ep::AnyPlan {
                        aggr: Some(Box::new(ep::Aggr {
                            sub_read_plan,
                            r#type,
                            field,
                            expr
                        })),
                        ..of_type(PlanType::Aggr)
                    }
                ),
            ]
        })
        .boxed()
    }

    // ---- request strategies ----

    fn stmt_execute() -> impl Strategy<Value = sql::StmtExecute> {
        (
            (
                of(bytes(64)),
                vec(any_value(), 0..3),
                of(text()),
                of(any::<bool>()),
                of(text()),
                session_variables(),
                of(text()),
                of(any::<i32>()),
            ),
            (
                of(any::<bool>()),
                of(any::<u64>()),
                of(any::<u64>()),
                of(bytes(32)),
                of(bytes(16)),
                of(any::<bool>()),
                of(any::<bool>()),
                of(any::<bool>()),
                of(any::<u64>()),
                of(any::<bool>()),
                of(any::<bool>()),
            ),
        )
            .prop_map(
                |(
                    (
                        stmt,
                        args,
                        namespace,
                        compact_metadata,
                        schema_name,
                        session_variables,
                        encoding,
                        token,
                    ),
                    (
                        reset_error,
                        snapshot_seq,
                        commit_seq,
                        stmt_digest,
                        hint,
                        chunk_result,
                        use_cts_transaction,
                        feed_back,
                        capabilities,
                        mark_distributed,
                        query_via_flashback_area,
                    ),
                )| sql::StmtExecute {
                    stmt,
                    args,
                    namespace,
                    compact_metadata,
                    schema_name,
                    session_variables,
                    encoding,
                    token,
                    reset_error,
                    snapshot_seq,
                    commit_seq,
                    stmt_digest,
                    hint,
                    chunk_result,
                    use_cts_transaction,
                    feed_back,
                    capabilities,
                    mark_distributed,
                    query_via_flashback_area,
                },
            )
    }

    fn exec_plan() -> impl Strategy<Value = ep::ExecPlan> {
        (
            (
                of(Just(ep::Transaction {})),
                of(plan().prop_map(Box::new)),
                of(bytes(32)),
                vec(scalar(), 0..3),
                session_variables(),
                of(any::<i32>()),
                of(any::<bool>()),
                of(any::<bool>()),
                of(any::<u64>()),
            ),
            (
                of(any::<u64>()),
                of(any::<bool>()),
                of(any::<bool>()),
                of(any::<bool>()),
                of(bytes(16)),
                of(bytes(16)),
                of(any::<u64>()),
                of(any::<bool>()),
                of(any::<bool>()),
            ),
        )
            .prop_map(
                |(
                    (
                        transaction,
                        plan,
                        plan_digest,
                        parameters,
                        session_variables,
                        token,
                        reset_error,
                        compact_metadata,
                        snapshot_seq,
                    ),
                    (
                        commit_seq,
                        chunk_result,
                        use_cts_transaction,
                        feed_back,
                        trace_id,
                        audit_str,
                        capabilities,
                        mark_distributed,
                        query_via_flashback_area,
                    ),
                )| ep::ExecPlan {
                    transaction,
                    plan,
                    plan_digest,
                    parameters,
                    session_variables,
                    token,
                    reset_error,
                    compact_metadata,
                    snapshot_seq,
                    commit_seq,
                    chunk_result,
                    use_cts_transaction,
                    feed_back,
                    trace_id,
                    audit_str,
                    capabilities,
                    mark_distributed,
                    query_via_flashback_area,
                },
            )
    }

    fn galaxy_prepare_execute() -> impl Strategy<Value = sql::GalaxyPrepareExecute> {
        let table = (any::<i32>(), of(bytes(8)), bytes(8)).prop_map(
            |(table_index, db_name, table_name)| sql::GalaxyPrepareTableData {
                table_index,
                db_name,
                table_name,
            },
        );
        (
            (
                of(bytes(32)),
                of(bytes(16)),
                of(bytes(16)),
                vec(table, 0..3),
                of(bytes(16)),
                of(any::<i32>()),
            ),
            (
                of(any::<bool>()),
                of(text()),
                session_variables(),
                of(text()),
                of(any::<i32>()),
                of(any::<bool>()),
            ),
            (
                of(any::<u64>()),
                of(any::<u64>()),
                of(any::<bool>()),
                of(enum_value(&[1, 2])),
                of(any::<bool>()),
            ),
        )
            .prop_map(
                |(
                    (stmt, stmt_digest, hint, tables, param, param_num),
                    (compact_metadata, db_name, session_variables, encoding, token, reset_error),
                    (snapshot_seq, commit_seq, use_cts_transaction, result_set_type, feed_back),
                )| sql::GalaxyPrepareExecute {
                    stmt,
                    stmt_digest,
                    hint,
                    tables,
                    param,
                    compact_metadata,
                    db_name,
                    session_variables,
                    encoding,
                    token,
                    reset_error,
                    snapshot_seq,
                    commit_seq,
                    use_cts_transaction,
                    result_set_type,
                    feed_back,
                    param_num,
                },
            )
    }

    fn capabilities() -> impl Strategy<Value = connection::Capabilities> {
        vec(
            (text(), any_value()).prop_map(|(name, value)| connection::Capability { name, value }),
            0..4,
        )
        .prop_map(|capabilities| connection::Capabilities { capabilities })
    }

    /// A populated message of the given type; the exhaustive match keeps every id covered.
    fn client_message_of(ty: ClientType) -> BoxedStrategy<ClientMessage> {
        use ClientMessage as M;
        match ty {
            ClientType::CapabilitiesGet => {
                Just(M::CapabilitiesGet(connection::CapabilitiesGet {})).boxed()
            }
            ClientType::CapabilitiesSet => capabilities()
                .prop_map(|capabilities| {
                    M::CapabilitiesSet(connection::CapabilitiesSet { capabilities })
                })
                .boxed(),
            ClientType::ConnectionClose => Just(M::ConnectionClose(connection::Close {})).boxed(),
            ClientType::AuthenticateStart => (text(), of(bytes(32)), of(bytes(32)))
                .prop_map(|(mech_name, auth_data, initial_response)| {
                    M::AuthenticateStart(session::AuthenticateStart {
                        mech_name,
                        auth_data,
                        initial_response,
                    })
                })
                .boxed(),
            ClientType::AuthenticateContinue => bytes(64)
                .prop_map(|auth_data| {
                    M::AuthenticateContinue(session::AuthenticateContinue { auth_data })
                })
                .boxed(),
            ClientType::SessionReset => Just(M::SessionReset(session::Reset {})).boxed(),
            ClientType::SessionClose => Just(M::SessionClose(session::Close {})).boxed(),
            ClientType::SqlStmtExecute => stmt_execute().prop_map(M::SqlStmtExecute).boxed(),
            ClientType::CrudFind => bytes(32).prop_map(M::CrudFind).boxed(),
            ClientType::CrudInsert => bytes(32).prop_map(M::CrudInsert).boxed(),
            ClientType::CrudUpdate => bytes(32).prop_map(M::CrudUpdate).boxed(),
            ClientType::CrudDelete => bytes(32).prop_map(M::CrudDelete).boxed(),
            ClientType::ExpectOpen => {
                let condition = (any::<u32>(), of(bytes(8)), of(enum_value(&[0, 1]))).prop_map(
                    |(condition_key, condition_value, op)| expect::open::Condition {
                        condition_key,
                        condition_value,
                        op,
                    },
                );
                (of(enum_value(&[0, 1])), vec(condition, 0..3))
                    .prop_map(|(op, cond)| M::ExpectOpen(expect::Open { op, cond }))
                    .boxed()
            }
            ClientType::ExpectClose => Just(M::ExpectClose(expect::Close {})).boxed(),
            ClientType::ExecPlanRead => exec_plan().prop_map(M::ExecPlanRead).boxed(),
            ClientType::ExecSql => stmt_execute().prop_map(M::ExecSql).boxed(),
            ClientType::GalaxyPrepareExecute => galaxy_prepare_execute()
                .prop_map(M::GalaxyPrepareExecute)
                .boxed(),
            ClientType::NewSession => Just(M::NewSession(session::NewSession {})).boxed(),
            ClientType::KillSession => (enum_value(&[1, 2]), any::<u64>())
                .prop_map(|(r#type, x_session_id)| {
                    M::KillSession(session::KillSession {
                        r#type,
                        x_session_id,
                    })
                })
                .boxed(),
            ClientType::TokenOffer => of(any::<i32>())
                .prop_map(|token| M::TokenOffer(sql::TokenOffer { token }))
                .boxed(),
            ClientType::GetTso => (bytes(16), any::<i32>())
                .prop_map(|(leader_name, batch_count)| {
                    M::GetTso(ep::GetTso {
                        leader_name,
                        batch_count,
                    })
                })
                .boxed(),
            ClientType::AutoSp => (enum_value(&[0, 1, 2]), bytes(16), of(any::<bool>()))
                .prop_map(|(op, sp_name, reset_error)| {
                    M::AutoSp(ep::AutoSp {
                        op,
                        sp_name,
                        reset_error,
                    })
                })
                .boxed(),
            ClientType::FileGetInfo => bytes(32).prop_map(M::FileGetInfo).boxed(),
            ClientType::FileTransferData => bytes(32).prop_map(M::FileTransferData).boxed(),
            ClientType::FileManage => bytes(32).prop_map(M::FileManage).boxed(),
        }
    }

    // ---- reply strategies ----

    fn notice_frame() -> impl Strategy<Value = notice::Frame> {
        let warning =
            (of(enum_value(&[1, 2, 3])), any::<u32>(), text()).prop_map(|(level, code, msg)| {
                (1, notice::Warning { level, code, msg }.encode_to_vec())
            });
        let variable = (text(), of(scalar())).prop_map(|(param, value)| {
            (
                2,
                notice::SessionVariableChanged { param, value }.encode_to_vec(),
            )
        });
        let state = (
            enum_value(&[1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12]),
            of(scalar()),
        )
            .prop_map(|(param, value)| {
                (
                    3,
                    notice::SessionStateChanged { param, value }.encode_to_vec(),
                )
            });
        (
            prop_oneof![warning, variable, state],
            of(enum_value(&[1, 2])),
            any::<bool>(),
        )
            .prop_map(|((r#type, payload), scope, with_payload)| notice::Frame {
                r#type,
                scope,
                payload: with_payload.then(|| Bytes::from(payload)),
            })
    }

    fn column_meta_data() -> impl Strategy<Value = rs::ColumnMetaData> {
        const FIELD_TYPES: &[i32] = &[1, 2, 5, 6, 7, 10, 12, 15, 16, 17, 18];
        const MYSQL_TYPES: &[i32] = &[
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 245, 246, 247,
            248, 249, 250, 251, 252, 253, 254, 255,
        ];
        (
            (
                enum_value(FIELD_TYPES),
                enum_value(MYSQL_TYPES),
                of(bytes(8)),
                of(bytes(8)),
                of(bytes(8)),
                of(bytes(8)),
            ),
            (
                of(bytes(8)),
                of(bytes(8)),
                of(any::<u64>()),
                of(any::<u32>()),
                of(any::<u32>()),
                of(any::<u32>()),
            ),
            (of(any::<u32>()), of(any::<u32>())),
        )
            .prop_map(
                |(
                    (r#type, original_type, name, original_name, table, original_table),
                    (schema, catalog, collation, fractional_digits, length, flags),
                    (content_type, original_flags),
                )| rs::ColumnMetaData {
                    r#type,
                    original_type,
                    name,
                    original_name,
                    table,
                    original_table,
                    schema,
                    catalog,
                    collation,
                    fractional_digits,
                    length,
                    flags,
                    content_type,
                    original_flags,
                },
            )
    }

    fn chunk() -> impl Strategy<Value = rs::Chunk> {
        let column = (of(bytes(4)), of(bytes(32)), of(bytes(32))).prop_map(
            |(null_bitmap, fixed, variable)| rs::Column {
                null_bitmap,
                fixed_size_column: fixed.map(|value| rs::FixedSizeColumn { value }),
                variable_size_column: variable.map(|value| rs::VariableSizeColumn { value }),
            },
        );
        (any::<u32>(), vec(column, 0..10))
            .prop_map(|(row_count, columns)| rs::Chunk { row_count, columns })
    }

    /// A populated message of the given type; the exhaustive match keeps every id covered.
    fn server_message_of(ty: ServerType) -> BoxedStrategy<ServerMessage> {
        use ServerMessage as M;
        match ty {
            ServerType::Ok => (of(text()), of(any::<u32>()))
                .prop_map(|(msg, connection_id)| M::Ok(pb::Ok { msg, connection_id }))
                .boxed(),
            ServerType::Error => (of(enum_value(&[0, 1])), any::<u32>(), text(), "[0-9A-Z]{5}")
                .prop_map(|(severity, code, msg, sql_state)| {
                    M::Error(pb::Error {
                        severity,
                        code,
                        msg,
                        sql_state,
                    })
                })
                .boxed(),
            ServerType::Capabilities => capabilities().prop_map(M::Capabilities).boxed(),
            ServerType::AuthenticateContinue => bytes(20)
                .prop_map(|auth_data| {
                    M::AuthenticateContinue(session::AuthenticateContinue { auth_data })
                })
                .boxed(),
            ServerType::AuthenticateOk => of(bytes(20))
                .prop_map(|auth_data| M::AuthenticateOk(session::AuthenticateOk { auth_data }))
                .boxed(),
            ServerType::Notice => notice_frame().prop_map(M::Notice).boxed(),
            ServerType::ColumnMetaData => column_meta_data().prop_map(M::ColumnMetaData).boxed(),
            ServerType::Row => vec(bytes(16), 0..8)
                .prop_map(|field| M::Row(rs::Row { field }))
                .boxed(),
            ServerType::FetchDone => (of(any::<u64>()), of(bytes(16)))
                .prop_map(|(examined_row_count, chosen_index)| {
                    M::FetchDone(rs::FetchDone {
                        examined_row_count,
                        chosen_index,
                    })
                })
                .boxed(),
            ServerType::FetchSuspended => Just(M::FetchSuspended(rs::FetchSuspended {})).boxed(),
            ServerType::FetchDoneMoreResultsets => {
                Just(M::FetchDoneMoreResultsets(rs::FetchDoneMoreResultsets {})).boxed()
            }
            ServerType::StmtExecuteOk => Just(M::StmtExecuteOk(sql::StmtExecuteOk {})).boxed(),
            ServerType::FetchDoneMoreOutParams => {
                Just(M::FetchDoneMoreOutParams(rs::FetchDoneMoreOutParams {})).boxed()
            }
            ServerType::TokenDone => of(any::<i32>())
                .prop_map(|token_left| M::TokenDone(rs::TokenDone { token_left }))
                .boxed(),
            ServerType::Tso => (any::<i32>(), any::<u64>())
                .prop_map(|(error_no, ts)| M::Tso(ep::ResultTso { error_no, ts }))
                .boxed(),
            ServerType::Chunk => chunk().prop_map(M::Chunk).boxed(),
            ServerType::GetFileInfoOk => bytes(32).prop_map(M::GetFileInfoOk).boxed(),
            ServerType::TransferFileDataOk => bytes(32).prop_map(M::TransferFileDataOk).boxed(),
            ServerType::FileManageOk => bytes(32).prop_map(M::FileManageOk).boxed(),
        }
    }

    fn client_message() -> impl Strategy<Value = ClientMessage> {
        Union::new(ClientType::ALL.iter().map(|&ty| client_message_of(ty)))
    }

    fn server_message() -> impl Strategy<Value = ServerMessage> {
        Union::new(ServerType::ALL.iter().map(|&ty| server_message_of(ty)))
    }

    fn encode(message_len: usize, encode: impl FnOnce(&mut Vec<u8>)) -> Bytes {
        let mut out = Vec::new();
        encode(&mut out);
        assert_eq!(out.len(), message_len, "encoded_len disagrees with encode");
        Bytes::from(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn client_messages_round_trip(message in client_message()) {
            let body = encode(message.encoded_len(), |out| message.encode(out));
            let decoded = ClientMessage::decode(message.type_id(), body.clone()).unwrap();
            prop_assert_eq!(&ClientMessage::decode_slice(message.type_id(), &body).unwrap(), &decoded);
            prop_assert_eq!(decoded.message_type(), message.message_type());
            prop_assert_eq!(decoded, message);
        }

        #[test]
        fn server_messages_round_trip(message in server_message()) {
            let body = encode(message.encoded_len(), |out| message.encode(out));
            let decoded = ServerMessage::decode(message.type_id(), body.clone()).unwrap();
            prop_assert_eq!(&ServerMessage::decode_slice(message.type_id(), &body).unwrap(), &decoded);
            prop_assert_eq!(decoded.message_type(), message.message_type());
            prop_assert_eq!(decoded, message);
        }

        #[test]
        fn notice_payloads_decode(frame in notice_frame()) {
            let Some(payload) = frame.payload else { return Ok(()) };
            match frame.r#type {
                1 => { decode_message::<notice::Warning>(payload).unwrap(); }
                2 => { decode_message::<notice::SessionVariableChanged>(payload).unwrap(); }
                3 => { decode_message::<notice::SessionStateChanged>(payload).unwrap(); }
                other => prop_assert!(false, "unexpected notice type {}", other),
            }
        }

        #[test]
        fn arbitrary_bodies_never_panic(type_id in any::<u8>(), body in bytes(64)) {
            // Borrowed or owned, a body decodes to the same message or fails with the same error.
            let client = ClientMessage::decode(type_id, body.clone());
            prop_assert_eq!(ClientMessage::decode_slice(type_id, &body), client);
            let server = ServerMessage::decode(type_id, body.clone());
            prop_assert_eq!(ServerMessage::decode_slice(type_id, &body), server);
        }
    }

    // ---- id tables ----

    #[test]
    fn client_ids_match_the_proto_enum() {
        use pb::client_messages::Type;
        for &ty in ClientType::ALL {
            let proto = Type::try_from(i32::from(ty.id())).unwrap();
            assert_eq!(proto.as_str_name(), ty.name());
            assert_eq!(ClientType::try_from(ty.id()), Ok(ty));
            assert_eq!(u8::from(ty), ty.id());
        }
        for id in 0..=u8::MAX {
            let in_proto = Type::try_from(i32::from(id)).is_ok_and(|t| t != Type::MsgMax);
            assert_eq!(
                ClientType::from_id(id).is_some(),
                in_proto,
                "client id {id}"
            );
        }
    }

    #[test]
    fn server_ids_match_the_proto_enum() {
        use pb::server_messages::Type;
        for &ty in ServerType::ALL {
            let proto = Type::try_from(i32::from(ty.id())).unwrap();
            assert_eq!(proto.as_str_name(), ty.name());
        }
        for id in 0..=u8::MAX {
            assert_eq!(
                ServerType::from_id(id).is_some(),
                Type::try_from(i32::from(id)).is_ok(),
                "server id {id}"
            );
        }
    }

    #[test]
    fn ids_are_listed_in_ascending_order() {
        assert!(ClientType::ALL.windows(2).all(|w| w[0].id() < w[1].id()));
        assert!(ServerType::ALL.windows(2).all(|w| w[0].id() < w[1].id()));
    }

    // ---- errors ----

    #[test]
    fn unknown_type_ids_are_rejected() {
        for id in [0, 8, 13, 114, 119, 127, 255] {
            assert_eq!(
                ClientMessage::decode(id, Bytes::new()),
                Err(MessageError::UnknownType {
                    direction: Direction::ClientToServer,
                    type_id: id
                })
            );
        }
        for id in [5, 10, 25, 100, 255] {
            let err = ServerMessage::decode(id, Bytes::new()).unwrap_err();
            assert_eq!(
                err,
                MessageError::UnknownType {
                    direction: Direction::ServerToClient,
                    type_id: id
                }
            );
            assert_eq!(err.type_id(), id);
        }
        assert_eq!(
            ServerMessage::decode(5, Bytes::new())
                .unwrap_err()
                .to_string(),
            "unknown server-to-client message type 5"
        );
    }

    /// Asserts that `body` fails as a `Body` error naming `field`.
    fn assert_missing(result: Result<impl fmt::Debug, MessageError>, type_id: u8, field: &str) {
        match result {
            Err(MessageError::Body {
                type_id: got,
                source,
                ..
            }) => {
                assert_eq!(got, type_id);
                let text = source.to_string();
                assert!(
                    text.contains("missing required field") && text.contains(field),
                    "{text}"
                );
            }
            other => panic!("expected a missing {field}, got {other:?}"),
        }
    }

    #[test]
    fn missing_required_fields_are_body_errors() {
        // Error with msg and sql_state but no code. prost alone accepts it.
        let body = Bytes::from_static(b"\x1a\x03bad\x22\x05HY000");
        assert!(<pb::Error as Message>::decode(body.clone()).is_ok());
        assert_missing(ServerMessage::decode(1, body), 1, "xrpc.Error.code");

        // ColumnMetaData with type but no original_type.
        assert_missing(
            ServerMessage::decode(12, Bytes::from_static(b"\x08\x07")),
            12,
            "original_type",
        );

        // AuthenticateContinue with no auth_data, in both directions.
        assert_missing(ServerMessage::decode(3, Bytes::new()), 3, "auth_data");
        assert_missing(ClientMessage::decode(5, Bytes::new()), 5, "auth_data");

        // KillSession with a type but no x_session_id.
        assert_missing(
            ClientMessage::decode(111, Bytes::from_static(b"\x08\x02")),
            111,
            "x_session_id",
        );
    }

    #[test]
    fn missing_required_fields_are_found_in_nested_messages() {
        // StmtExecute whose one argument is an Any without its type.
        assert_missing(
            ClientMessage::decode(101, Bytes::from_static(b"\x12\x00")),
            101,
            "xrpc.datatypes.Any.type",
        );
        // Capabilities holding a Capability named "x" without a value.
        assert_missing(
            ServerMessage::decode(2, Bytes::from_static(b"\x0a\x03\x0a\x01x")),
            2,
            "Capability.value",
        );
        // Chunk of one row whose column has a fixed-size part without its value.
        assert_missing(
            ServerMessage::decode(21, Bytes::from_static(b"\x08\x01\x12\x02\x12\x00")),
            21,
            "FixedSizeColumn.value",
        );
        // ExecPlan whose plan is a FILTER over an empty sub-plan, which lacks its plan_type. Hand-written,
        // because prost always writes required fields.
        let filter = b"\x0a\x00\x12\x02\x08\x01";
        let plan = [b"\x08\x05\x32\x06".as_slice(), filter].concat();
        let body = [b"\x12\x0a".as_slice(), &plan].concat();
        assert_missing(
            ClientMessage::decode(100, Bytes::from(body)),
            100,
            "plan_type",
        );
    }

    #[test]
    fn malformed_bodies_are_body_errors() {
        // A length prefix running past the end of the body.
        let err = ClientMessage::decode(101, Bytes::from_static(b"\x0a\x09select 1")).unwrap_err();
        assert!(
            matches!(
                err,
                MessageError::Body {
                    type_id: 101,
                    name: "EXEC_SQL",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("malformed EXEC_SQL body (type 101): "),
            "{err}"
        );
    }

    // ---- known answers ----

    fn encoded(message: &ServerMessage) -> Vec<u8> {
        let mut out = Vec::new();
        message.encode(&mut out);
        out
    }

    #[test]
    fn ok_known_answer() {
        let message = ServerMessage::Ok(pb::Ok {
            msg: Some("bye".into()),
            connection_id: None,
        });
        assert_eq!(encoded(&message), b"\x0a\x03bye");
        assert_eq!(message.type_id(), 0);
    }

    #[test]
    fn stmt_execute_known_answer() {
        let message = ClientMessage::ExecSql(sql::StmtExecute {
            stmt: Some(Bytes::from_static(b"select 1")),
            ..Default::default()
        });
        let mut out = Vec::new();
        message.encode(&mut out);
        assert_eq!(out, b"\x0a\x08select 1");
        assert_eq!(message.type_id(), 101);
        let decoded = ClientMessage::decode(101, Bytes::from(out)).unwrap();
        let ClientMessage::ExecSql(stmt) = decoded else {
            panic!("{decoded:?}")
        };
        // Absent optional fields read back as their proto2 defaults.
        assert_eq!(stmt.namespace(), "sql");
        assert_eq!(stmt.reset_error, None);
    }

    #[test]
    fn fatal_error_known_answer() {
        let message = ServerMessage::Error(pb::Error {
            severity: Some(pb::error::Severity::Fatal as i32),
            code: 1153,
            msg: "x".into(),
            sql_state: "S1000".into(),
        });
        assert_eq!(
            encoded(&message),
            b"\x08\x01\x10\x81\x09\x1a\x01x\x22\x05S1000"
        );
    }

    #[test]
    fn rows_affected_notice_known_answer() {
        let state = notice::SessionStateChanged {
            param: notice::session_state_changed::Parameter::RowsAffected as i32,
            value: Some(dt::Scalar {
                r#type: dt::scalar::Type::VUint as i32,
                v_unsigned_int: Some(1),
                ..Default::default()
            }),
        };
        let payload = state.encode_to_vec();
        assert_eq!(payload, b"\x08\x04\x12\x04\x08\x02\x18\x01");
        let message = ServerMessage::Notice(notice::Frame {
            r#type: notice::frame::Type::SessionStateChanged as u32,
            scope: Some(notice::frame::Scope::Local as i32),
            payload: Some(Bytes::from(payload)),
        });
        assert_eq!(
            encoded(&message),
            b"\x08\x03\x10\x02\x1a\x08\x08\x04\x12\x04\x08\x02\x18\x01"
        );
    }

    #[test]
    fn kill_and_token_known_answers() {
        let mut out = Vec::new();
        ClientMessage::KillSession(session::KillSession {
            r#type: session::kill_session::KillType::Connection as i32,
            x_session_id: 7,
        })
        .encode(&mut out);
        assert_eq!(out, b"\x08\x02\x10\x07");

        // A negative int32 is sign-extended to a ten-byte varint.
        out.clear();
        ClientMessage::TokenOffer(sql::TokenOffer { token: Some(-1) }).encode(&mut out);
        assert_eq!(out, b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
        assert_eq!(sql::TokenOffer::default().token(), -1);
    }

    #[test]
    fn empty_bodies_decode_to_empty_messages() {
        assert_eq!(
            ServerMessage::decode(17, Bytes::new()),
            Ok(ServerMessage::StmtExecuteOk(sql::StmtExecuteOk {}))
        );
        assert_eq!(
            ClientMessage::decode(110, Bytes::new()),
            Ok(ClientMessage::NewSession(session::NewSession {}))
        );
        assert_eq!(
            ClientMessage::decode(1, Bytes::new()).map(|m| m.type_id()),
            Ok(1)
        );
    }

    // ---- zero copy ----

    #[test]
    fn bytes_fields_share_the_body() {
        let body = Bytes::from(
            rs::Row {
                field: vec![Bytes::from_static(b"hello\0")],
            }
            .encode_to_vec(),
        );
        let range = body.as_ptr_range();
        let ServerMessage::Row(row) = ServerMessage::decode(13, body.clone()).unwrap() else {
            unreachable!()
        };
        assert!(range.contains(&row.field[0].as_ptr()));

        let ClientMessage::FileManage(raw) = ClientMessage::decode(118, body.clone()).unwrap()
        else {
            unreachable!()
        };
        assert_eq!(raw.as_ptr(), body.as_ptr());
    }
}
