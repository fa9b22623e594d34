//! Encodes a statement's result as server frames for one session, and every other frame the node
//! writes.
//!
//! This is the only module that builds frames. A request's path reads in one direction: the
//! connection handler (`conn.rs`) receives and decodes, the session (`session.rs`) runs it on the
//! engine, and the frames are built here: `write_*` append frames to a buffer (a session's output,
//! which goes out through the session's send gate so that nothing follows its last frame), and
//! `send_*` build and send at once the frames that belong to no session (connection-level
//! replies, errors for a sid without a session).
//!
//! [`ResultEncoder`] is the session layer's [`ResultSink`]: an engine pushes column metadata and
//! rows into it, and it appends the frames to the session's output through [`FrameOutput`]. After
//! the statement returns, [`ResultEncoder::finish_result`] closes the result. The frame sequence is
//! the one the PolarDB-X Java client requires (docs/PROTOCOL.md, section 5):
//!
//! ```text
//! query:            ColumnMetaData × n, Row × rows (or Chunk × k), FetchDone, [notices], StmtExecuteOk
//! no result set:    Notice ROWS_AFFECTED (always, even 0), [Notice GENERATED_INSERT_ID], StmtExecuteOk
//! error:            Error, and nothing after it                      (write_error)
//! ```
//!
//! # Invariants
//!
//! - Every frame is complete in the output buffer before [`FrameOutput::maybe_flush`] or
//!   [`FrameOutput::row_done`] is called, so a flush never cuts a frame.
//! - After each ROW frame, and after each group of CHUNK frames, the encoder calls `maybe_flush`
//!   and then `row_done` with the bytes just written. `row_done` may block for flow control; an
//!   implementation must have flushed what it counts before it waits, or the client never sees the
//!   data it would offer tokens for.
//! - A row must match the metadata (arity, and each value `Null` or of its column's X type);
//!   otherwise [`SinkError::Malformed`] and nothing of that row is written.
//! - The ROWS_AFFECTED notice has scope LOCAL set explicitly (the proto default is GLOBAL), and is
//!   written for every statement without a result set.
//! - In chunk mode a chunk is sent when the [`ChunkEncoder`] reports it full (4096 rows or a 4 KiB
//!   column) and at [`ResultEncoder::finish_result`]; a chunk wider than 10 columns goes out as
//!   several CHUNK messages with the same `row_count`.

use bytes::Bytes;
use xrpc_net::{ConnRef, SendError};
use xrpc_proto::chunk::ChunkEncoder;
use xrpc_proto::codes;
use xrpc_proto::frame::{HeaderFormat, encode_message_frame, put_header};
use xrpc_proto::messages::ServerType;
use xrpc_proto::messages::pb;
use xrpc_proto::messages::pb::datatypes::{Scalar, scalar};
use xrpc_proto::messages::pb::notice::{self, SessionStateChanged, session_state_changed};
use xrpc_proto::messages::pb::resultset::{ColumnMetaData, FetchDone};
use xrpc_proto::value::{ColumnType, Value, encode_row_field, put_varint, varint_len};
use xrpc_proto::{Severity, WireError};

use crate::result::{ColumnInfo, EncodedColumns, ExecSummary, KeptMetadata, ResultSink, SinkError};

/// The catalog every column reports, as MySQL does.
const CATALOG: &[u8] = b"def";

/// Where result frames go: the session's output pages.
pub trait FrameOutput {
    /// The buffer frames are appended to.
    fn buf(&mut self) -> &mut Vec<u8>;

    /// Called after each complete row or chunk; the session flushes once enough is buffered
    /// (≥ 5 pages of 4 KiB).
    fn maybe_flush(&mut self) -> Result<(), SinkError>;

    /// Flow control: `bytes` were just produced for one row (or one chunk). May block waiting for
    /// a TOKEN_OFFER; must flush before it blocks.
    fn row_done(&mut self, bytes: usize) -> Result<(), SinkError>;

    /// One result row was accepted for encoding (in chunk mode, before its chunk is written):
    /// for the node's count of rows sent. Nothing by default.
    fn row_encoded(&mut self) {}
}

/// A plain buffer: no flushing and no flow control (tests and internal use).
impl FrameOutput for Vec<u8> {
    fn buf(&mut self) -> &mut Vec<u8> {
        self
    }

    fn maybe_flush(&mut self) -> Result<(), SinkError> {
        Ok(())
    }

    fn row_done(&mut self, _bytes: usize) -> Result<(), SinkError> {
        Ok(())
    }
}

/// A borrowed output: what the session's worker encodes into.
impl<T: FrameOutput + ?Sized> FrameOutput for &mut T {
    fn buf(&mut self) -> &mut Vec<u8> {
        (**self).buf()
    }

    fn maybe_flush(&mut self) -> Result<(), SinkError> {
        (**self).maybe_flush()
    }

    fn row_done(&mut self, bytes: usize) -> Result<(), SinkError> {
        (**self).row_done(bytes)
    }

    fn row_encoded(&mut self) {
        (**self).row_encoded();
    }
}

/// Encodes one statement's result for one session, into an output it borrows (the worker's)
/// or owns (a statement answered on the event loop carries its own).
#[derive(Debug)]
pub struct ResultEncoder<O: FrameOutput> {
    out: O,
    format: HeaderFormat,
    sid: u64,
    chunked: bool,
    compact: bool,
    /// What FetchDone carries (EXEC_PLAN_READ feedback); empty otherwise.
    fetch_done: FetchDone,
    types: Vec<ColumnType>,
    chunk: Option<ChunkEncoder>,
    metadata_sent: bool,
    rows: u64,
    /// Row fields encoded back to back, and their lengths; reused from row to row.
    scratch: Vec<u8>,
    lens: Vec<usize>,
    /// WARNING notices to send after the result (encoded frames).
    warnings: Vec<u8>,
}

/// The per-statement buffers of an encoder whose result finished (column types, row scratch),
/// kept per thread for the next one: a worker encodes one result at a time, and a small result
/// would otherwise allocate all three again for every request. (Given back by `finish_result`
/// rather than a `Drop`, which would make every encoder borrow its output to the end of its
/// scope; a result that fails just frees them.)
#[derive(Default)]
struct SpareBuffers {
    types: Vec<ColumnType>,
    scratch: Vec<u8>,
    lens: Vec<usize>,
}

/// Buffers larger than this (a result with a very long row) are freed rather than kept.
const MAX_SPARE_SCRATCH: usize = 64 * 1024;

thread_local! {
    static SPARE_BUFFERS: std::cell::Cell<SpareBuffers> = std::cell::Cell::new(SpareBuffers::default());
}

impl<O: FrameOutput> ResultEncoder<O> {
    /// An encoder writing frames for session `sid` in the connection's header format, as ROW
    /// messages or, with `chunked`, as CHUNK messages.
    pub fn new(out: O, format: HeaderFormat, sid: u64, chunked: bool) -> Self {
        let spare = SPARE_BUFFERS
            .try_with(|cell| cell.take())
            .unwrap_or_default();
        Self {
            out,
            format,
            sid,
            chunked,
            compact: false,
            fetch_done: FetchDone::default(),
            types: spare.types,
            chunk: None,
            metadata_sent: false,
            rows: 0,
            scratch: spare.scratch,
            lens: spare.lens,
            warnings: Vec::new(),
        }
    }

    /// The output, once the result is finished.
    pub fn into_output(self) -> O {
        self.out
    }

    /// Sends compact metadata (`StmtExecute.compact_metadata`): types, collation and sizes, but
    /// no names.
    pub fn compact_metadata(mut self, compact: bool) -> Self {
        self.compact = compact;
        self
    }

    /// Makes FetchDone carry `fetch_done` (a plan's feedback: the index it read).
    pub fn set_fetch_done(&mut self, fetch_done: FetchDone) {
        self.fetch_done = fetch_done;
    }

    /// Whether column metadata has been written.
    pub fn metadata_sent(&self) -> bool {
        self.metadata_sent
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Closes a successful statement: sends any pending chunk, FetchDone when there was a result
    /// set, the rows-affected and insert-id notices, and StmtExecuteOk.
    pub fn finish_result(&mut self, summary: &ExecSummary) -> Result<(), SinkError> {
        self.send_chunk()?;
        let has_result_set = summary.has_result_set || self.metadata_sent;
        let buf = self.out.buf();
        if has_result_set {
            encode_message_frame(
                buf,
                self.format,
                self.sid,
                ServerType::FetchDone.id(),
                &self.fetch_done,
            );
        } else {
            write_state_notice(
                buf,
                self.format,
                self.sid,
                session_state_changed::Parameter::RowsAffected,
                summary.rows_affected,
            );
        }
        if let Some(id) = summary.last_insert_id {
            write_state_notice(
                buf,
                self.format,
                self.sid,
                session_state_changed::Parameter::GeneratedInsertId,
                id,
            );
        }
        buf.append(&mut self.warnings);
        encode_message_frame(
            buf,
            self.format,
            self.sid,
            ServerType::StmtExecuteOk.id(),
            &pb::sql::StmtExecuteOk::default(),
        );
        self.keep_buffers();
        Ok(())
    }

    /// Hands the per-statement buffers to the thread's next encoder (see `SpareBuffers`); the
    /// result is over, so no row may follow.
    fn keep_buffers(&mut self) {
        if self.scratch.capacity() > MAX_SPARE_SCRATCH || self.types.capacity() > MAX_SPARE_SCRATCH
        {
            return;
        }
        let mut spare = SpareBuffers {
            types: std::mem::take(&mut self.types),
            scratch: std::mem::take(&mut self.scratch),
            lens: std::mem::take(&mut self.lens),
        };
        spare.types.clear();
        spare.scratch.clear();
        spare.lens.clear();
        // `try_with`: a thread being torn down keeps nothing.
        let _ = SPARE_BUFFERS.try_with(|cell| cell.set(spare));
    }

    fn check_row(&self, row: &[Value]) -> Result<(), SinkError> {
        if !self.metadata_sent {
            return Err(SinkError::Malformed("a row before the metadata".into()));
        }
        if row.len() != self.types.len() {
            return Err(SinkError::Malformed(format!(
                "{} values for {} columns",
                row.len(),
                self.types.len()
            )));
        }
        for (index, (value, &ty)) in row.iter().zip(&self.types).enumerate() {
            if let Some(got) = value.column_type()
                && got != ty
            {
                return Err(SinkError::Malformed(format!(
                    "column {index} is {ty} but the value is {got}"
                )));
            }
        }
        Ok(())
    }

    /// Writes one ROW frame. The Row message (`repeated bytes field = 1`) is written by hand so
    /// that no per-field `Bytes` is allocated: each field is tag `0x0a`, a varint length and the
    /// row form of the value (empty for NULL).
    fn write_row_frame(&mut self, row: &[Value]) -> usize {
        self.scratch.clear();
        self.lens.clear();
        for value in row {
            let start = self.scratch.len();
            encode_row_field(value, &mut self.scratch);
            self.lens.push(self.scratch.len() - start);
        }
        let body_len: usize = self
            .lens
            .iter()
            .map(|&len| 1 + varint_len(len as u64) + len)
            .sum();
        let buf = self.out.buf();
        let start = buf.len();
        buf.reserve(self.format.header_len() + body_len);
        put_header(buf, self.format, self.sid, ServerType::Row.id(), body_len);
        let mut at = 0;
        for &len in &self.lens {
            buf.push(0x0a);
            put_varint(len as u64, buf);
            buf.extend_from_slice(&self.scratch[at..at + len]);
            at += len;
        }
        buf.len() - start
    }

    /// Sends the chunk being built, if it has rows.
    fn send_chunk(&mut self) -> Result<(), SinkError> {
        let Some(chunk) = self.chunk.as_mut() else {
            return Ok(());
        };
        let messages = chunk.take_messages();
        if messages.is_empty() {
            return Ok(());
        }
        let buf = self.out.buf();
        let start = buf.len();
        for message in &messages {
            encode_message_frame(buf, self.format, self.sid, ServerType::Chunk.id(), message);
        }
        let written = buf.len() - start;
        self.out.maybe_flush()?;
        self.out.row_done(written)
    }
}

impl<O: FrameOutput> ResultEncoder<O> {
    /// What follows the COLUMN_META_DATA frames of `columns`, however they were written.
    fn metadata_written(&mut self, columns: &[ColumnInfo]) -> Result<(), SinkError> {
        self.types.clear();
        self.types.extend(columns.iter().map(|c| c.x_type));
        if self.chunked {
            self.chunk = Some(ChunkEncoder::new(&self.types));
        }
        self.metadata_sent = true;
        self.out.maybe_flush()
    }
}

impl<O: FrameOutput> ResultSink for ResultEncoder<O> {
    fn metadata(&mut self, columns: &[ColumnInfo]) -> Result<(), SinkError> {
        if self.metadata_sent {
            return Err(SinkError::Malformed("metadata sent twice".into()));
        }
        let buf = self.out.buf();
        for column in columns {
            write_column_meta_data(buf, self.format, self.sid, column, self.compact);
        }
        self.metadata_written(columns)
    }

    fn metadata_kept(
        &mut self,
        columns: &[ColumnInfo],
        kept: &KeptMetadata,
    ) -> Result<(), SinkError> {
        if self.metadata_sent {
            return Err(SinkError::Malformed("metadata sent twice".into()));
        }
        let encoded = kept
            .flavour(self.compact)
            .get_or_init(|| encode_columns(self.format, columns, self.compact));
        if encoded.format != self.format {
            return self.metadata(columns);
        }
        write_encoded_columns(encoded, self.out.buf(), self.sid);
        self.metadata_written(columns)
    }

    fn warning(&mut self, warning: &crate::result::SqlWarning) -> Result<(), SinkError> {
        write_warning_notice(&mut self.warnings, self.format, self.sid, warning);
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SinkError> {
        self.check_row(row)?;
        self.rows += 1;
        self.out.row_encoded();
        if let Some(chunk) = self.chunk.as_mut() {
            let full = chunk
                .push_row(row)
                .map_err(|err| SinkError::Malformed(err.to_string()))?;
            if full {
                self.send_chunk()?;
            }
            return Ok(());
        }
        let written = self.write_row_frame(row);
        self.out.maybe_flush()?;
        self.out.row_done(written)
    }
}

/// Encodes `columns` as COLUMN_META_DATA frames with sid 0, for a [`KeptMetadata`] slot: the
/// same bytes [`write_column_meta_data`] writes, so a repeated result costs one copy
/// ([`write_encoded_columns`]).
fn encode_columns(format: HeaderFormat, columns: &[ColumnInfo], compact: bool) -> EncodedColumns {
    let mut frames = Vec::new();
    let mut starts = Vec::with_capacity(columns.len());
    for column in columns {
        starts.push(frames.len());
        write_column_meta_data(&mut frames, format, 0, column, compact);
    }
    EncodedColumns {
        format,
        frames,
        starts,
    }
}

/// Appends kept frames to `out` for session `sid`: every header begins with the sid.
fn write_encoded_columns(encoded: &EncodedColumns, out: &mut Vec<u8>, sid: u64) {
    let base = out.len();
    out.extend_from_slice(&encoded.frames);
    for start in &encoded.starts {
        out[base + start..base + start + 8].copy_from_slice(&sid.to_le_bytes());
    }
}

/// The ColumnMetaData message for a column; every text field as bytes.
pub fn column_meta_data(column: &ColumnInfo, compact: bool) -> ColumnMetaData {
    let text = |s: &str| (!compact).then(|| Bytes::copy_from_slice(s.as_bytes()));
    ColumnMetaData {
        r#type: column.x_type.as_u32() as i32,
        original_type: column.mysql_type as i32,
        name: text(&column.name),
        original_name: text(&column.original_name),
        table: text(&column.table),
        original_table: text(&column.original_table),
        schema: text(&column.schema),
        catalog: (!compact).then(|| Bytes::from_static(CATALOG)),
        collation: Some(column.collation),
        fractional_digits: Some(column.fractional_digits),
        length: Some(column.length),
        flags: Some(column.flags),
        content_type: column.content_type(),
        original_flags: None,
    }
}

/// Appends the COLUMN_META_DATA frame of `column`: the bytes prost writes for
/// [`column_meta_data`]'s message (fields in tag order, the optional ones only when present),
/// encoded straight from the column's strings. Building the message instead would copy each
/// name into a `Bytes` and have prost clone it again while encoding (`Bytes` built from a
/// `Vec` allocates its shared header on the first clone): about ten allocations per column,
/// on every query's path.
pub fn write_column_meta_data(
    out: &mut Vec<u8>,
    format: HeaderFormat,
    sid: u64,
    column: &ColumnInfo,
    compact: bool,
) {
    use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};
    use prost::encoding::{int32, uint32, uint64};

    fn bytes_len(tag: u32, data: &[u8]) -> usize {
        key_len(tag) + encoded_len_varint(data.len() as u64) + data.len()
    }
    fn put_bytes(out: &mut Vec<u8>, tag: u32, data: &[u8]) {
        encode_key(tag, WireType::LengthDelimited, out);
        encode_varint(data.len() as u64, out);
        out.extend_from_slice(data);
    }
    let field_type = column.x_type.as_u32() as i32;
    let original_type = column.mysql_type as i32;
    // Tags 3 to 8, present unless compact.
    let texts: [&[u8]; 6] = [
        column.name.as_bytes(),
        column.original_name.as_bytes(),
        column.table.as_bytes(),
        column.original_table.as_bytes(),
        column.schema.as_bytes(),
        CATALOG,
    ];
    let content_type = column.content_type();
    let mut len = int32::encoded_len(1, &field_type)
        + int32::encoded_len(2, &original_type)
        + uint64::encoded_len(9, &column.collation)
        + uint32::encoded_len(10, &column.fractional_digits)
        + uint32::encoded_len(11, &column.length)
        + uint32::encoded_len(12, &column.flags)
        + content_type.map_or(0, |c| uint32::encoded_len(13, &c));
    if !compact {
        len += (3..)
            .zip(texts)
            .map(|(tag, t)| bytes_len(tag, t))
            .sum::<usize>();
    }
    out.reserve(len + 16);
    put_header(out, format, sid, ServerType::ColumnMetaData.id(), len);
    int32::encode(1, &field_type, out);
    int32::encode(2, &original_type, out);
    if !compact {
        for (tag, text) in (3..).zip(texts) {
            put_bytes(out, tag, text);
        }
    }
    uint64::encode(9, &column.collation, out);
    uint32::encode(10, &column.fractional_digits, out);
    uint32::encode(11, &column.length, out);
    uint32::encode(12, &column.flags, out);
    if let Some(c) = content_type {
        uint32::encode(13, &c, out);
    }
}

/// Appends an ERROR frame.
pub fn write_error(out: &mut Vec<u8>, format: HeaderFormat, sid: u64, err: &WireError) {
    let message = pb::Error {
        severity: Some(err.severity.as_u32() as i32),
        code: err.code,
        msg: err.message.clone(),
        sql_state: err.sql_state.clone(),
    };
    encode_message_frame(out, format, sid, ServerType::Error.id(), &message);
}

/// Appends an OK frame, with a message when `msg` is not empty.
pub fn write_ok(out: &mut Vec<u8>, format: HeaderFormat, sid: u64, msg: &str) {
    let message = pb::Ok {
        msg: (!msg.is_empty()).then(|| msg.to_owned()),
        connection_id: None,
    };
    encode_message_frame(out, format, sid, ServerType::Ok.id(), &message);
}

/// Appends a TOKEN_DONE frame carrying the (negative) flow-control budget left.
pub fn write_token_done(out: &mut Vec<u8>, format: HeaderFormat, sid: u64, left: i64) {
    let message = pb::resultset::TokenDone {
        token_left: Some(i32::try_from(left).unwrap_or(i32::MIN)),
    };
    encode_message_frame(out, format, sid, ServerType::TokenDone.id(), &message);
}

/// Appends a SessionStateChanged notice with an unsigned value, scope LOCAL.
pub fn write_state_notice(
    out: &mut Vec<u8>,
    format: HeaderFormat,
    sid: u64,
    param: session_state_changed::Parameter,
    value: u64,
) {
    let payload = SessionStateChanged {
        param: param as i32,
        value: Some(Scalar {
            r#type: scalar::Type::VUint as i32,
            v_unsigned_int: Some(value),
            ..Default::default()
        }),
    };
    let frame = notice::Frame {
        r#type: notice::frame::Type::SessionStateChanged as u32,
        scope: Some(notice::frame::Scope::Local as i32),
        payload: Some(Bytes::from(prost::Message::encode_to_vec(&payload))),
    };
    encode_message_frame(out, format, sid, ServerType::Notice.id(), &frame);
}

/// Writes a WARNING notice (`Frame{type: WARNING(1), scope: LOCAL}` around `Warning{level, code,
/// msg}`), as MySQL's X plugin sends one per warning of a statement, before StmtExecuteOk.
pub fn write_warning_notice(
    out: &mut Vec<u8>,
    format: HeaderFormat,
    sid: u64,
    warning: &crate::result::SqlWarning,
) {
    let payload = notice::Warning {
        level: Some(warning.level as i32),
        code: warning.code,
        msg: warning.message.clone(),
    };
    let frame = notice::Frame {
        r#type: notice::frame::Type::Warning as u32,
        scope: Some(notice::frame::Scope::Local as i32),
        payload: Some(Bytes::from(prost::Message::encode_to_vec(&payload))),
    };
    encode_message_frame(out, format, sid, ServerType::Notice.id(), &frame);
}

/// Sends `frames` on `conn` whole, through the binary log's hook. Every frame the node sends goes
/// through here. A failed send has already finished the connection (the framework does it).
///
/// Fail point `xrpc_send` (feature `failpoints`): the send fails as a broken socket's would, and
/// the connection is finished.
pub(crate) fn send_frames(conn: &ConnRef, frames: &[u8]) -> Result<(), SendError> {
    send_frames_with(conn, frames, ConnRef::send)
}

/// Like [`send_frames`], but the frames may wait for the end of the worker's turn and go out in
/// one write with other answers on the connection ([`ConnRef::send_deferred`]): for the last
/// flush of a session's answer. Order with every other send on the connection is kept.
pub(crate) fn send_frames_deferred(conn: &ConnRef, frames: &[u8]) -> Result<(), SendError> {
    send_frames_with(conn, frames, ConnRef::send_deferred)
}

/// Like [`send_frames_deferred`], but never written in the call ([`ConnRef::send_at_turn_end`]):
/// for a completion on the worker that reads a backend socket, which must not wait for a client.
pub(crate) fn send_frames_at_turn_end(conn: &ConnRef, frames: &[u8]) -> Result<(), SendError> {
    send_frames_with(conn, frames, ConnRef::send_at_turn_end)
}

/// The fail point and the binary log's hook every send passes, then `send`.
fn send_frames_with(
    conn: &ConnRef,
    frames: &[u8],
    send: fn(&ConnRef, &[u8]) -> Result<(), SendError>,
) -> Result<(), SendError> {
    fail::fail_point!("xrpc_send", |_| {
        conn.fin();
        Err(SendError::Io(std::io::Error::other("fail point xrpc_send")))
    });
    crate::binlog::sent(conn, frames); // binlog hook
    send(conn, frames)
}

/// Encodes one message and sends it at once, outside any session's output (connection-level
/// replies: capabilities, authentication, SESS_NEW's OK, TSO).
pub fn send_message<M: prost::Message>(
    conn: &ConnRef,
    format: HeaderFormat,
    sid: u64,
    message_type: ServerType,
    message: &M,
) {
    let mut buf = Vec::with_capacity(32 + message.encoded_len());
    encode_message_frame(&mut buf, format, sid, message_type.id(), message);
    let _ = send_frames(conn, &buf);
}

/// Sends an error on `sid` straight away, outside any session (unknown sid, refused SESS_NEW,
/// requests before authentication). A session's own errors go through its output instead, so
/// that they can never follow the session's last frame.
pub fn send_error(conn: &ConnRef, format: HeaderFormat, sid: u64, err: &WireError) {
    let mut buf = Vec::with_capacity(64 + err.message.len());
    write_error(&mut buf, format, sid, err);
    let _ = send_frames(conn, &buf);
}

/// Sends FATAL `code` on `sid`, outside any session.
pub fn send_fatal(conn: &ConnRef, format: HeaderFormat, sid: u64, code: &codes::ErrorCode) {
    send_error(
        conn,
        format,
        sid,
        &WireError::from_code(code).with_severity(Severity::Fatal),
    );
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use xrpc_proto::chunk::ChunkAssembler;
    use xrpc_proto::messages::ServerMessage;
    use xrpc_proto::value::{XDecimal, decode_row_field};
    use xrpc_proto::{FrameConfig, FrameDecoder, Severity};

    use super::*;
    use crate::result::{COLLATION_BINARY, COLLATION_UTF8MB4, mysql_type};

    const SID: u64 = 42;

    fn decode_all(bytes: &[u8], format: HeaderFormat) -> Vec<ServerMessage> {
        let mut decoder = FrameDecoder::new(FrameConfig::new(format, 64 << 20).unwrap());
        decoder.feed(bytes);
        let mut messages = Vec::new();
        while let Some(frame) = decoder.next_frame().unwrap() {
            assert_eq!(frame.sid, SID);
            messages.push(ServerMessage::decode(frame.type_id, frame.body).unwrap());
        }
        assert_eq!(decoder.buffered(), 0, "no partial frame left");
        messages
    }

    fn names(messages: &[ServerMessage]) -> Vec<&'static str> {
        messages.iter().map(|m| m.message_type().name()).collect()
    }

    fn state(message: &ServerMessage) -> (i32, u64) {
        let ServerMessage::Notice(frame) = message else {
            panic!("not a notice: {message:?}")
        };
        assert_eq!(frame.r#type, 3);
        assert_eq!(frame.scope, Some(notice::frame::Scope::Local as i32));
        let state = SessionStateChanged::decode(frame.payload.clone().unwrap()).unwrap();
        let value = state.value.unwrap();
        assert_eq!(value.r#type, scalar::Type::VUint as i32);
        (state.param, value.v_unsigned_int.unwrap())
    }

    /// Records what the encoder asks of the session.
    #[derive(Debug, Default)]
    struct Recorder {
        buf: Vec<u8>,
        flushes: usize,
        row_bytes: Vec<usize>,
        refuse_after: Option<usize>,
    }

    impl FrameOutput for Recorder {
        fn buf(&mut self) -> &mut Vec<u8> {
            &mut self.buf
        }

        fn maybe_flush(&mut self) -> Result<(), SinkError> {
            self.flushes += 1;
            Ok(())
        }

        fn row_done(&mut self, bytes: usize) -> Result<(), SinkError> {
            self.row_bytes.push(bytes);
            match self.refuse_after {
                Some(n) if self.row_bytes.len() >= n => Err(SinkError::Interrupted),
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn query_frames() {
        let mut out = Recorder::default();
        let columns = [ColumnInfo::bigint("id"), ColumnInfo::text("name")];
        let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, false);
        enc.metadata(&columns).unwrap();
        enc.row(&[Value::Sint(-1), Value::Bytes(Bytes::from_static(b"ab"))])
            .unwrap();
        enc.row(&[Value::Sint(7), Value::Null]).unwrap();
        enc.finish_result(&ExecSummary {
            has_result_set: true,
            rows_affected: 0,
            last_insert_id: None,
        })
        .unwrap();
        assert_eq!(enc.rows(), 2);
        let messages = decode_all(&out.buf, HeaderFormat::Standard);
        assert_eq!(
            names(&messages),
            [
                "RESULTSET_COLUMN_META_DATA",
                "RESULTSET_COLUMN_META_DATA",
                "RESULTSET_ROW",
                "RESULTSET_ROW",
                "RESULTSET_FETCH_DONE",
                "SQL_STMT_EXECUTE_OK"
            ]
        );
        let ServerMessage::ColumnMetaData(meta) = &messages[1] else {
            unreachable!()
        };
        assert_eq!(meta.r#type, ColumnType::Bytes as i32);
        assert_eq!(meta.original_type, mysql_type::VAR_STRING as i32);
        assert_eq!(meta.name.as_deref(), Some(&b"name"[..]));
        assert_eq!(meta.catalog.as_deref(), Some(&b"def"[..]));
        assert_eq!(meta.collation, Some(COLLATION_UTF8MB4));
        let ServerMessage::Row(row) = &messages[2] else {
            unreachable!()
        };
        assert_eq!(
            decode_row_field(ColumnType::Sint, &row.field[0]).unwrap(),
            Value::Sint(-1)
        );
        assert_eq!(&row.field[1][..], b"ab\0");
        let ServerMessage::Row(row) = &messages[3] else {
            unreachable!()
        };
        assert!(row.field[1].is_empty(), "NULL is an empty field");
        // One flush check after the metadata and after each row; flow control sees each row's
        // whole frame (13-byte header + body).
        assert_eq!(out.flushes, 3);
        assert_eq!(out.row_bytes.len(), 2);
        assert_eq!(out.row_bytes[0], 13 + 2 + 1 + 2 + 3);
    }

    #[test]
    fn dml_frames_always_carry_rows_affected() {
        for (summary, expected) in [
            (
                ExecSummary {
                    has_result_set: false,
                    rows_affected: 0,
                    last_insert_id: None,
                },
                vec![(4, 0)],
            ),
            (
                ExecSummary {
                    has_result_set: false,
                    rows_affected: 3,
                    last_insert_id: Some(17),
                },
                vec![(4, 3), (3, 17)],
            ),
        ] {
            let mut out = Vec::new();
            let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, false);
            enc.finish_result(&summary).unwrap();
            let messages = decode_all(&out, HeaderFormat::Standard);
            let last = messages.len() - 1;
            assert!(matches!(messages[last], ServerMessage::StmtExecuteOk(_)));
            let notices: Vec<_> = messages[..last].iter().map(state).collect();
            assert_eq!(notices, expected);
        }
    }

    #[test]
    fn an_encoder_after_a_finished_result_encodes_as_a_fresh_one() {
        // The second result reuses the first's buffers (`SpareBuffers`, same thread): its
        // bytes must not depend on what they held.
        let encode = |columns: &[ColumnInfo], rows: &[Vec<Value>]| {
            let mut out = Vec::new();
            let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, false);
            enc.metadata(columns).unwrap();
            for row in rows {
                enc.row(row).unwrap();
            }
            enc.finish_result(&ExecSummary {
                has_result_set: true,
                rows_affected: 0,
                last_insert_id: None,
            })
            .unwrap();
            out
        };
        let wide: Vec<ColumnInfo> = (0..3).map(|i| ColumnInfo::text(format!("t{i}"))).collect();
        let long = Value::Bytes(vec![b'x'; 300].into());
        let narrow = [ColumnInfo::bigint("n")];
        let narrow_rows = [vec![Value::Sint(7)], vec![Value::Null]];
        let fresh =
            std::thread::scope(|s| s.spawn(|| encode(&narrow, &narrow_rows)).join().unwrap());
        encode(&wide, &[vec![long.clone(), Value::Null, long]]);
        assert_eq!(encode(&narrow, &narrow_rows), fresh);
    }

    #[test]
    fn error_and_ok_frames() {
        let mut out = Vec::new();
        let err = WireError::with_message(&xrpc_proto::codes::DUP_ENTRY, "UNIQUE failed");
        write_error(&mut out, HeaderFormat::Galaxy { version: 3 }, SID, &err);
        write_ok(&mut out, HeaderFormat::Galaxy { version: 3 }, SID, "bye");
        let messages = decode_all(&out, HeaderFormat::Galaxy { version: 3 });
        let ServerMessage::Error(e) = &messages[0] else {
            panic!("{messages:?}")
        };
        assert_eq!(e.severity, Some(Severity::Error.as_u32() as i32));
        assert_eq!(
            (e.code, &*e.sql_state, &*e.msg),
            (1062, "23000", "UNIQUE failed")
        );
        let ServerMessage::Ok(ok) = &messages[1] else {
            panic!()
        };
        assert_eq!(ok.msg.as_deref(), Some("bye"));
    }

    #[test]
    fn chunk_mode_splits_twelve_columns_into_two_messages() {
        let mut columns: Vec<ColumnInfo> = (0..11)
            .map(|i| ColumnInfo::bigint(format!("c{i}")))
            .collect();
        let mut decimal = ColumnInfo::new("d", ColumnType::Decimal, mysql_type::NEWDECIMAL);
        decimal.collation = COLLATION_BINARY;
        columns.push(decimal);
        let rows: Vec<Vec<Value>> = (0..5i64)
            .map(|r| {
                let mut row: Vec<Value> = (0..11)
                    .map(|c| {
                        if (r + c) % 4 == 0 {
                            Value::Null
                        } else {
                            Value::Sint(r * 100 + c)
                        }
                    })
                    .collect();
                row.push(Value::Decimal(XDecimal::parse(&format!("{r}.25")).unwrap()));
                row
            })
            .collect();
        let mut out = Recorder::default();
        let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, true);
        enc.metadata(&columns).unwrap();
        for row in &rows {
            enc.row(row).unwrap();
        }
        enc.finish_result(&ExecSummary {
            has_result_set: true,
            ..Default::default()
        })
        .unwrap();
        // Rows are only counted once the chunk goes out, at the end.
        assert_eq!(out.row_bytes.len(), 1);
        let messages = decode_all(&out.buf, HeaderFormat::Standard);
        let mut expected = vec!["RESULTSET_COLUMN_META_DATA"; 12];
        expected.extend(["RESULTSET_CHUNK", "RESULTSET_CHUNK"]);
        expected.extend(["RESULTSET_FETCH_DONE", "SQL_STMT_EXECUTE_OK"]);
        assert_eq!(names(&messages), expected);
        let mut assembler = ChunkAssembler::new(columns.iter().map(|c| c.x_type).collect());
        let ServerMessage::Chunk(first) = &messages[12] else {
            unreachable!()
        };
        let ServerMessage::Chunk(second) = &messages[13] else {
            unreachable!()
        };
        assert_eq!((first.row_count, first.columns.len()), (5, 10));
        assert_eq!((second.row_count, second.columns.len()), (5, 2));
        assert!(assembler.push(first).unwrap().is_none());
        let decoded = assembler.push(second).unwrap().unwrap();
        assert_eq!(decoded.into_rows(), rows);
    }

    #[test]
    fn chunk_is_sent_when_full() {
        let columns = [ColumnInfo::text("s")];
        let mut out = Recorder::default();
        let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, true);
        enc.metadata(&columns).unwrap();
        let value = Value::Bytes(Bytes::from(vec![b'x'; 1000]));
        for _ in 0..10 {
            enc.row(std::slice::from_ref(&value)).unwrap();
        }
        enc.finish_result(&ExecSummary {
            has_result_set: true,
            ..Default::default()
        })
        .unwrap();
        let messages = decode_all(&out.buf, HeaderFormat::Standard);
        let counts: Vec<u32> = messages
            .iter()
            .filter_map(|m| match m {
                ServerMessage::Chunk(c) => Some(c.row_count),
                _ => None,
            })
            .collect();
        // A 4 KiB column fills after 5 rows of ~1 KiB.
        assert_eq!(counts, [5, 5]);
        assert_eq!(out.row_bytes.len(), 2);
    }

    #[test]
    fn malformed_rows_are_refused() {
        let mut out = Vec::new();
        let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, false);
        assert!(matches!(
            enc.row(&[Value::Sint(1)]),
            Err(SinkError::Malformed(_))
        ));
        enc.metadata(&[ColumnInfo::bigint("a")]).unwrap();
        assert!(matches!(
            enc.row(&[Value::Double(1.0)]),
            Err(SinkError::Malformed(_))
        ));
        assert!(matches!(enc.row(&[]), Err(SinkError::Malformed(_))));
        assert!(enc.metadata(&[ColumnInfo::bigint("a")]).is_err());
        let len = out.len();
        assert_eq!(decode_all(&out[..len], HeaderFormat::Standard).len(), 1);
    }

    #[test]
    fn flow_control_refusal_stops_the_stream() {
        let mut out = Recorder {
            refuse_after: Some(2),
            ..Default::default()
        };
        let mut enc = ResultEncoder::new(&mut out, HeaderFormat::Standard, SID, false);
        enc.metadata(&[ColumnInfo::bigint("a")]).unwrap();
        enc.row(&[Value::Sint(1)]).unwrap();
        assert_eq!(enc.row(&[Value::Sint(2)]), Err(SinkError::Interrupted));
    }

    #[test]
    fn column_metadata_is_written_as_prost_writes_the_message() {
        let mut named = ColumnInfo::bigint("id");
        named.original_name = "id".into();
        named.table = "t".into();
        named.original_table = "sbtest1".into();
        named.schema = "sbtest".into();
        named.length = 20;
        named.flags = 0x10;
        let mut date = ColumnInfo::new("d", ColumnType::DateTime, mysql_type::DATE);
        date.fractional_digits = 6;
        let long_name = ColumnInfo::binary("n".repeat(300));
        for column in [named, date, long_name, ColumnInfo::binary("")] {
            for compact in [false, true] {
                for format in [HeaderFormat::Standard, HeaderFormat::Galaxy { version: 1 }] {
                    let mut direct = Vec::new();
                    write_column_meta_data(&mut direct, format, SID, &column, compact);
                    let mut via_prost = Vec::new();
                    encode_message_frame(
                        &mut via_prost,
                        format,
                        SID,
                        ServerType::ColumnMetaData.id(),
                        &column_meta_data(&column, compact),
                    );
                    assert_eq!(direct, via_prost, "{column:?}, compact {compact}");
                }
            }
        }
    }

    /// Kept metadata, encoded once by the first result and copied by the next ones, writes
    /// the bytes `metadata` writes for each session: every frame carries that session's sid.
    #[test]
    fn kept_metadata_writes_what_metadata_writes() {
        let mut id = ColumnInfo::bigint("id");
        id.schema = "sbtest".into();
        let columns = [id, ColumnInfo::binary("name"), ColumnInfo::double("d")];
        for format in [HeaderFormat::Standard, HeaderFormat::Galaxy { version: 1 }] {
            let kept = KeptMetadata::default();
            for (sid, compact) in [
                (7, false),
                (1 << 40, false),
                (9, true),
                (7, false),
                (11, true),
            ] {
                let encode = |kept: Option<&KeptMetadata>| {
                    let mut out = Recorder::default();
                    let mut enc =
                        ResultEncoder::new(&mut out, format, sid, false).compact_metadata(compact);
                    match kept {
                        Some(kept) => enc.metadata_kept(&columns, kept).unwrap(),
                        None => enc.metadata(&columns).unwrap(),
                    }
                    enc.row(&[Value::Sint(1), Value::Null, Value::Double(0.5)])
                        .unwrap();
                    enc.finish_result(&ExecSummary::default()).unwrap();
                    out.buf
                };
                assert_eq!(
                    encode(Some(&kept)),
                    encode(None),
                    "{format:?}, sid {sid}, compact {compact}"
                );
            }
        }
    }

    #[test]
    fn compact_metadata_has_no_names() {
        let meta = column_meta_data(&ColumnInfo::binary("b"), true);
        assert_eq!(meta.name, None);
        assert_eq!(meta.catalog, None);
        assert_eq!(meta.collation, Some(COLLATION_BINARY));
        assert_eq!(meta.original_type, mysql_type::BLOB as i32);
    }
}
