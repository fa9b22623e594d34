//! A blocking raw-frame client for tests of a node: it speaks frames directly through
//! `xrpc-proto`, so a test can send exactly what it means, malformed input included, and see
//! every frame the node sends back.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use bytes::Bytes;
use xrpc_proto::auth::{Challenge, mysql41_client_response};
use xrpc_proto::frame::{
    FrameConfig, FrameDecoder, HeaderFormat, encode_frame, encode_message_frame,
};
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_proto::value::{ColumnType, Value, decode_row_field};

/// A decoded server frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub sid: u64,
    pub message: ServerMessage,
}

/// One finished request, as the client sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    pub columns: Vec<pb::resultset::ColumnMetaData>,
    pub rows: Vec<Vec<Value>>,
    pub notices: Vec<pb::notice::SessionStateChanged>,
    pub error: Option<pb::Error>,
    /// Every message of the request, in order.
    pub messages: Vec<ServerMessage>,
}

impl Outcome {
    pub fn rows_affected(&self) -> Option<u64> {
        self.notice_value(pb::notice::session_state_changed::Parameter::RowsAffected)
    }

    pub fn last_insert_id(&self) -> Option<u64> {
        self.notice_value(pb::notice::session_state_changed::Parameter::GeneratedInsertId)
    }

    fn notice_value(&self, param: pb::notice::session_state_changed::Parameter) -> Option<u64> {
        self.notices
            .iter()
            .find(|n| n.param == param as i32)
            .and_then(|n| n.value.as_ref())
            .and_then(|v| v.v_unsigned_int)
    }

    pub fn error_code(&self) -> Option<u32> {
        self.error.as_ref().map(|e| e.code)
    }

    /// The single value of a one-row, one-column result.
    pub fn scalar(&self) -> &Value {
        assert!(self.error.is_none(), "request failed: {:?}", self.error);
        assert_eq!(self.rows.len(), 1, "expected one row: {:?}", self.rows);
        &self.rows[0][0]
    }
}

/// A blocking raw-frame client.
pub struct Client {
    stream: TcpStream,
    decoder: FrameDecoder,
    pending: std::collections::VecDeque<Reply>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("peer", &self.stream.peer_addr().ok())
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Self {
            stream,
            decoder: FrameDecoder::new(FrameConfig::default()),
            pending: Default::default(),
        }
    }

    /// Connects from `source` (a loopback address such as 127.0.0.2, so tests can play several
    /// client hosts), with the socket's receive buffer set to `recv_buffer` bytes when given (a
    /// small one makes the server's sends block as soon as the client stops reading).
    pub fn connect_with(
        addr: SocketAddr,
        source: Option<std::net::IpAddr>,
        recv_buffer: Option<usize>,
    ) -> Self {
        let socket = socket2::Socket::new(
            socket2::Domain::for_address(addr),
            socket2::Type::STREAM,
            None,
        )
        .unwrap();
        if let Some(ip) = source {
            socket
                .bind(&SocketAddr::new(ip, 0).into())
                .unwrap_or_else(|e| panic!("bind {ip}: {e}"));
        }
        if let Some(bytes) = recv_buffer {
            socket.set_recv_buffer_size(bytes).unwrap();
        }
        socket.connect(&addr.into()).unwrap();
        let stream: TcpStream = socket.into();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Self {
            stream,
            decoder: FrameDecoder::new(FrameConfig::default()),
            pending: Default::default(),
        }
    }

    /// Drops the connection with a TCP reset (SO_LINGER 0), as a client that crashed or whose
    /// host vanished does: the server sees ECONNRESET instead of an orderly close.
    pub fn reset(self) {
        socket2::SockRef::from(&self.stream)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
        drop(self);
    }

    /// Reads from the socket until at least `bytes` more arrived (frames are not decoded), so a
    /// test can stop reading in the middle of a result.
    pub fn read_some(&mut self, bytes: usize) {
        let mut buf = vec![0u8; 64 * 1024];
        let mut got = 0;
        while got < bytes {
            match self.stream.read(&mut buf) {
                Ok(0) => panic!("the server closed the connection"),
                Ok(n) => got += n,
                Err(e) => panic!("read failed: {e}"),
            }
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    pub fn send<M: prost::Message>(&mut self, sid: u64, kind: ClientType, message: &M) {
        let mut buf = Vec::new();
        encode_message_frame(&mut buf, HeaderFormat::Standard, sid, kind.id(), message);
        self.send_raw(&buf);
    }

    pub fn send_frame(&mut self, sid: u64, type_id: u8, body: &[u8]) {
        let mut buf = Vec::new();
        encode_frame(&mut buf, HeaderFormat::Standard, sid, type_id, body);
        self.send_raw(&buf);
    }

    /// The next frame, or `None` if the server closed the connection.
    pub fn recv(&mut self) -> Option<Reply> {
        if let Some(reply) = self.pending.pop_front() {
            return Some(reply);
        }
        loop {
            if let Some(frame) = self.decoder.next_frame().expect("server framing") {
                let message =
                    ServerMessage::decode(frame.type_id, frame.body).expect("server message");
                return Some(Reply {
                    sid: frame.sid,
                    message,
                });
            }
            let mut buf = [0u8; 64 * 1024];
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.decoder.feed(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return None,
                Err(e) => panic!("read failed: {e}"),
            }
        }
    }

    /// The next frame on `sid`; frames for other sids are kept for later.
    pub fn recv_on(&mut self, sid: u64) -> Option<ServerMessage> {
        let mut other = Vec::new();
        let found = loop {
            match self.recv() {
                Some(reply) if reply.sid == sid => break Some(reply.message),
                Some(reply) => other.push(reply),
                None => break None,
            }
        };
        for reply in other.into_iter().rev() {
            self.pending.push_front(reply);
        }
        found
    }

    /// Whether the server closed the connection (reads until EOF, at most `within`).
    pub fn is_closed_by_server(&mut self, within: Duration) -> bool {
        self.stream.set_read_timeout(Some(within)).unwrap();
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            match self.recv() {
                None => return true,
                Some(_) => continue,
            }
        }
        false
    }

    pub fn authenticate(&mut self, user: &str, password: &str) -> Result<(), pb::Error> {
        self.authenticate_in(user, password, "")
    }

    /// Authenticates naming `schema` in the authentication data.
    pub fn authenticate_in(
        &mut self,
        user: &str,
        password: &str,
        schema: &str,
    ) -> Result<(), pb::Error> {
        self.send(
            0,
            ClientType::AuthenticateStart,
            &pb::session::AuthenticateStart {
                mech_name: "MYSQL41".into(),
                ..Default::default()
            },
        );
        let challenge = match self.recv_on(0) {
            Some(ServerMessage::AuthenticateContinue(c)) => c.auth_data,
            other => panic!("expected a challenge, got {other:?}"),
        };
        let challenge = Challenge::from_bytes(challenge.as_ref().try_into().unwrap());
        self.send(
            0,
            ClientType::AuthenticateContinue,
            &pb::session::AuthenticateContinue {
                auth_data: Bytes::from(mysql41_client_response(
                    schema,
                    user,
                    password.as_bytes(),
                    &challenge,
                )),
            },
        );
        match self.recv_on(0) {
            Some(ServerMessage::AuthenticateOk(_)) => Ok(()),
            Some(ServerMessage::Error(e)) => Err(e),
            other => panic!("unexpected auth reply {other:?}"),
        }
    }

    /// Authenticates, or returns `None` when the connection ends first (a test that injects
    /// faults expects that).
    pub fn try_authenticate(
        &mut self,
        user: &str,
        password: &str,
    ) -> Option<Result<(), pb::Error>> {
        let mut start = Vec::new();
        encode_message_frame(
            &mut start,
            HeaderFormat::Standard,
            0,
            ClientType::AuthenticateStart.id(),
            &pb::session::AuthenticateStart {
                mech_name: "MYSQL41".into(),
                ..Default::default()
            },
        );
        self.stream.write_all(&start).ok()?;
        let challenge = match self.recv_on(0)? {
            ServerMessage::AuthenticateContinue(c) => c.auth_data,
            ServerMessage::Error(e) => return Some(Err(e)),
            other => panic!("expected a challenge, got {other:?}"),
        };
        let challenge = Challenge::from_bytes(challenge.as_ref().try_into().unwrap());
        let mut answer = Vec::new();
        encode_message_frame(
            &mut answer,
            HeaderFormat::Standard,
            0,
            ClientType::AuthenticateContinue.id(),
            &pb::session::AuthenticateContinue {
                auth_data: Bytes::from(mysql41_client_response(
                    "",
                    user,
                    password.as_bytes(),
                    &challenge,
                )),
            },
        );
        self.stream.write_all(&answer).ok()?;
        match self.recv_on(0)? {
            ServerMessage::AuthenticateOk(_) => Some(Ok(())),
            ServerMessage::Error(e) => Some(Err(e)),
            other => panic!("unexpected auth reply {other:?}"),
        }
    }

    /// Sends a message, returning the error instead of panicking when the server is gone.
    pub fn try_send<M: prost::Message>(
        &mut self,
        sid: u64,
        kind: ClientType,
        message: &M,
    ) -> std::io::Result<()> {
        let mut buf = Vec::new();
        encode_message_frame(&mut buf, HeaderFormat::Standard, sid, kind.id(), message);
        self.stream.write_all(&buf)
    }

    pub fn new_session(&mut self, sid: u64) {
        self.send(
            sid,
            ClientType::NewSession,
            &pb::session::NewSession::default(),
        );
        match self.recv_on(sid) {
            Some(ServerMessage::Ok(_)) => {}
            other => panic!("SESS_NEW on {sid} answered {other:?}"),
        }
    }

    pub fn send_sql(&mut self, sid: u64, stmt: pb::sql::StmtExecute) {
        self.send(sid, ClientType::ExecSql, &stmt);
    }

    /// Reads one request's answer on `sid`: up to StmtExecuteOk or an Error.
    pub fn read_outcome(&mut self, sid: u64) -> Outcome {
        let mut outcome = Outcome::default();
        let mut types = Vec::new();
        let mut assembler: Option<xrpc_proto::chunk::ChunkAssembler> = None;
        loop {
            let message = self.recv_on(sid).expect("connection closed mid-request");
            outcome.messages.push(message.clone());
            match message {
                ServerMessage::ColumnMetaData(column) => {
                    types.push(ColumnType::try_from(column.r#type as u32).unwrap());
                    outcome.columns.push(column);
                }
                ServerMessage::Row(row) => {
                    let values = row
                        .field
                        .iter()
                        .zip(&types)
                        .map(|(field, ty)| decode_row_field(*ty, field).unwrap())
                        .collect();
                    outcome.rows.push(values);
                }
                ServerMessage::Chunk(chunk) => {
                    let assembler = assembler.get_or_insert_with(|| {
                        xrpc_proto::chunk::ChunkAssembler::new(types.clone())
                    });
                    if let Some(decoded) = assembler.push(&chunk).unwrap() {
                        outcome.rows.extend(decoded.into_rows());
                    }
                }
                ServerMessage::Notice(frame) => {
                    if frame.r#type == 3 {
                        let payload = frame.payload.unwrap_or_default();
                        outcome
                            .notices
                            .push(xrpc_proto::messages::decode_message(payload).unwrap());
                    }
                }
                ServerMessage::FetchDone(_) | ServerMessage::TokenDone(_) => {}
                ServerMessage::StmtExecuteOk(_) => return outcome,
                ServerMessage::Error(err) => {
                    outcome.error = Some(err);
                    return outcome;
                }
                other => panic!("unexpected message in a result: {other:?}"),
            }
        }
    }

    pub fn query(&mut self, sid: u64, sql: &str) -> Outcome {
        self.send_sql(sid, sql_stmt(sql));
        self.read_outcome(sid)
    }
}

/// A StmtExecute for `sql`.
pub fn sql_stmt(sql: &str) -> pb::sql::StmtExecute {
    pb::sql::StmtExecute {
        stmt: Some(Bytes::copy_from_slice(sql.as_bytes())),
        ..Default::default()
    }
}

/// One buffer of ExecSql frames, one per `(sid, sql)` in order: sent with one write, it makes
/// every request runnable in the same receive pass.
pub fn sql_burst<S: AsRef<str>>(requests: impl IntoIterator<Item = (u64, S)>) -> Vec<u8> {
    let mut burst = Vec::new();
    for (sid, sql) in requests {
        xrpc_proto::frame::encode_message_frame(
            &mut burst,
            xrpc_proto::HeaderFormat::Standard,
            sid,
            ClientType::ExecSql.id(),
            &sql_stmt(sql.as_ref()),
        );
    }
    burst
}

/// A StmtExecute argument.
pub fn arg_sint(value: i64) -> pb::datatypes::Any {
    pb::datatypes::Any {
        r#type: pb::datatypes::any::Type::Scalar as i32,
        scalar: Some(pb::datatypes::Scalar {
            r#type: pb::datatypes::scalar::Type::VSint as i32,
            v_signed_int: Some(value),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A text StmtExecute argument.
pub fn arg_text(value: &str) -> pb::datatypes::Any {
    pb::datatypes::Any {
        r#type: pb::datatypes::any::Type::Scalar as i32,
        scalar: Some(pb::datatypes::Scalar {
            r#type: pb::datatypes::scalar::Type::VString as i32,
            v_string: Some(pb::datatypes::scalar::String {
                value: Bytes::copy_from_slice(value.as_bytes()),
                collation: None,
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Text of a BYTES value.
pub fn text(value: &Value) -> String {
    match value {
        Value::Bytes(b) => String::from_utf8(b.to_vec()).unwrap(),
        other => panic!("not text: {other:?}"),
    }
}

impl Client {
    /// Sends EXEC_SQL, returning the error instead of panicking when the server is gone.
    pub fn try_send_sql(&mut self, sid: u64, stmt: &pb::sql::StmtExecute) -> std::io::Result<()> {
        let mut buf = Vec::new();
        encode_message_frame(
            &mut buf,
            HeaderFormat::Standard,
            sid,
            ClientType::ExecSql.id(),
            stmt,
        );
        self.stream.write_all(&buf)
    }

    /// Sets the socket read timeout (20 s by default).
    pub fn set_read_timeout(&mut self, timeout: Duration) {
        self.stream.set_read_timeout(Some(timeout)).unwrap();
    }
}
