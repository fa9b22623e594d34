//! A fake xrpc server built from `xrpc-proto` alone, for testing the client without the real one.
//!
//! [`FakeServer`] is sans-IO like the client core: bytes in, decoded client messages queued, reply
//! bytes out. Tests either script it message by message (`recv`, `send`, the result helpers), or
//! let [`FakeServer::auto_respond`] answer with a tiny built-in behaviour that the transport tests
//! run behind a real socket:
//!
//! | statement | answer |
//! |---|---|
//! | `select <n>` | one SINT column `n`, one row |
//! | `rows <n>` | one SINT column, rows 0..n |
//! | `insert …` | ROWS_AFFECTED 1, GENERATED_INSERT_ID 7 |
//! | `error` | ERROR 1064 (42000) |
//! | `sleep` | nothing until SESS_KILL QUERY, then ERROR 1317 |
//! | `crash` | the connection is dropped (see `crashed`) |
//! | anything else | ROWS_AFFECTED 0 |
//!
//! Auto mode also implements the digest cache (miss → 6000), cascading errors (`reset_error =
//! false` after a failure returns the stored error), SESS_NEW/SESS_CLOSE/KILL CONNECTION, and
//! answers CapabilitiesGet. The password it accepts is [`PASSWORD`].

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test binary uses a different part"
)]

pub mod tcp;

use std::collections::{HashMap, HashSet, VecDeque};

use bytes::Bytes;
use prost::Message;
use xrpc_proto::auth::{Challenge, Mysql41Response, PasswordHash};
use xrpc_proto::chunk::ChunkEncoder;
use xrpc_proto::frame::{FrameConfig, FrameDecoder, HeaderFormat};
use xrpc_proto::messages::pb::{
    self, connection, datatypes as dt, notice, resultset as rs, session, sql,
};
use xrpc_proto::messages::{ClientMessage, ServerMessage};
use xrpc_proto::value::{ColumnType, Value, encode_row_field};

/// The password auto mode accepts (for any user).
pub const PASSWORD: &str = "secret";

#[derive(Debug)]
pub struct FakeServer {
    decoder: FrameDecoder,
    format: HeaderFormat,
    pub received: VecDeque<(u64, ClientMessage)>,
    out: Vec<u8>,
    pub challenge: Challenge,
    // Auto mode state.
    sessions: HashSet<u64>,
    stored_error: HashMap<u64, pb::Error>,
    cache: HashMap<Bytes, Bytes>,
    /// Sids with a `sleep` statement running.
    pub sleeping: HashSet<u64>,
    /// Requests queued behind a sleeping statement, as the real server queues a session's work.
    backlog: HashMap<u64, VecDeque<ClientMessage>>,
    pub crashed: bool,
    pub probes: usize,
    pub misses: usize,
    pub authenticated: bool,
}

impl Default for FakeServer {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeServer {
    pub fn new() -> Self {
        Self {
            decoder: FrameDecoder::new(FrameConfig::default()),
            format: HeaderFormat::Standard,
            received: VecDeque::new(),
            out: Vec::new(),
            challenge: Challenge::from_random(*b"0123456789abcdefghij"),
            sessions: HashSet::new(),
            stored_error: HashMap::new(),
            cache: HashMap::new(),
            sleeping: HashSet::new(),
            backlog: HashMap::new(),
            crashed: false,
            probes: 0,
            misses: 0,
            authenticated: false,
        }
    }

    /// Decodes client bytes into `received`.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.decoder.feed(bytes);
        while let Some(frame) = self.decoder.next_frame().expect("client framing") {
            let message = ClientMessage::decode(frame.type_id, frame.body).expect("client message");
            self.received.push_back((frame.sid, message));
        }
    }

    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    pub fn send(&mut self, sid: u64, message: ServerMessage) {
        let mut body = Vec::new();
        message.encode(&mut body);
        xrpc_proto::frame::encode_frame(&mut self.out, self.format, sid, message.type_id(), &body);
    }

    /// The next received message; panics when there is none.
    pub fn recv(&mut self) -> (u64, ClientMessage) {
        self.received.pop_front().expect("the client sent nothing")
    }

    pub fn recv_all(&mut self) -> Vec<(u64, ClientMessage)> {
        self.received.drain(..).collect()
    }

    /// The next message, which must be EXEC_SQL; returns the sid and the request.
    pub fn recv_exec(&mut self) -> (u64, sql::StmtExecute) {
        match self.recv() {
            (sid, ClientMessage::ExecSql(exec)) => (sid, exec),
            other => panic!("expected EXEC_SQL, got {other:?}"),
        }
    }

    // ---- reply helpers ----

    pub fn ok(&mut self, sid: u64) {
        self.send(sid, ServerMessage::Ok(pb::Ok::default()));
    }

    pub fn error(&mut self, sid: u64, fatal: bool, code: u32, state: &str, msg: &str) {
        self.send(sid, ServerMessage::Error(error(fatal, code, state, msg)));
    }

    pub fn exec_ok(&mut self, sid: u64) {
        self.send(sid, ServerMessage::StmtExecuteOk(sql::StmtExecuteOk {}));
    }

    pub fn state_notice(
        &mut self,
        sid: u64,
        param: notice::session_state_changed::Parameter,
        value: u64,
    ) {
        let payload = notice::SessionStateChanged {
            param: param as i32,
            value: Some(dt::Scalar {
                r#type: dt::scalar::Type::VUint as i32,
                v_unsigned_int: Some(value),
                ..Default::default()
            }),
        }
        .encode_to_vec();
        self.send(
            sid,
            ServerMessage::Notice(notice::Frame {
                r#type: 3,
                scope: Some(notice::frame::Scope::Local as i32),
                payload: Some(payload.into()),
            }),
        );
    }

    /// A statement without a result set: ROWS_AFFECTED, then StmtExecuteOk.
    pub fn affected(&mut self, sid: u64, rows: u64) {
        self.state_notice(
            sid,
            notice::session_state_changed::Parameter::RowsAffected,
            rows,
        );
        self.exec_ok(sid);
    }

    pub fn metadata(&mut self, sid: u64, columns: &[(&str, ColumnType)]) {
        for (name, ty) in columns {
            self.send(sid, ServerMessage::ColumnMetaData(meta(name, *ty)));
        }
    }

    pub fn row(&mut self, sid: u64, values: &[Value]) {
        self.send(sid, ServerMessage::Row(row(values)));
    }

    pub fn fetch_done(&mut self) -> ServerMessage {
        ServerMessage::FetchDone(rs::FetchDone::default())
    }

    /// A whole result in ROW messages.
    pub fn result(&mut self, sid: u64, columns: &[(&str, ColumnType)], rows: &[Vec<Value>]) {
        self.metadata(sid, columns);
        for values in rows {
            self.row(sid, values);
        }
        let done = self.fetch_done();
        self.send(sid, done);
        self.exec_ok(sid);
    }

    /// A whole result in CHUNK messages, split by column beyond 10 columns.
    pub fn chunk_result(&mut self, sid: u64, columns: &[(&str, ColumnType)], rows: &[Vec<Value>]) {
        self.metadata(sid, columns);
        let types: Vec<ColumnType> = columns.iter().map(|c| c.1).collect();
        let mut encoder = ChunkEncoder::new(&types);
        for values in rows {
            if encoder.push_row(values).expect("row fits the columns") {
                for chunk in encoder.take_messages() {
                    self.send(sid, ServerMessage::Chunk(chunk));
                }
            }
        }
        for chunk in encoder.take_messages() {
            self.send(sid, ServerMessage::Chunk(chunk));
        }
        let done = self.fetch_done();
        self.send(sid, done);
        self.exec_ok(sid);
    }

    pub fn token_done(&mut self, sid: u64) {
        self.send(
            sid,
            ServerMessage::TokenDone(rs::TokenDone {
                token_left: Some(-1),
            }),
        );
    }

    // ---- handshake ----

    /// Answers the capabilities probe and AuthenticateStart that a new client sends first.
    pub fn answer_handshake_start(&mut self) {
        let (sid, probe) = self.recv();
        assert_eq!(sid, 0);
        assert!(
            matches!(probe, ClientMessage::CapabilitiesGet(_)),
            "{probe:?}"
        );
        self.capabilities();
        let (sid, start) = self.recv();
        assert_eq!(sid, 0);
        let ClientMessage::AuthenticateStart(start) = start else {
            panic!("expected AuthenticateStart, got {start:?}")
        };
        assert_eq!(start.mech_name, "MYSQL41");
        self.challenge_client();
    }

    pub fn capabilities(&mut self) {
        self.send(
            0,
            ServerMessage::Capabilities(connection::Capabilities {
                capabilities: vec![connection::Capability {
                    name: "polarx_rpc".into(),
                    value: dt::Any {
                        r#type: dt::any::Type::Scalar as i32,
                        scalar: Some(dt::Scalar {
                            r#type: dt::scalar::Type::VUint as i32,
                            v_unsigned_int: Some(1),
                            ..Default::default()
                        }),
                        obj: None,
                        array: None,
                    },
                }],
            }),
        );
    }

    pub fn challenge_client(&mut self) {
        let challenge = Bytes::copy_from_slice(self.challenge.as_bytes());
        self.send(
            0,
            ServerMessage::AuthenticateContinue(session::AuthenticateContinue {
                auth_data: challenge,
            }),
        );
    }

    /// Reads the client's AuthenticateContinue and checks it against `password`.
    pub fn check_auth_response(&mut self, password: &str) -> (Mysql41Response, bool) {
        let (sid, message) = self.recv();
        assert_eq!(sid, 0);
        let ClientMessage::AuthenticateContinue(cont) = message else {
            panic!("expected AuthenticateContinue, got {message:?}")
        };
        let response = Mysql41Response::parse(&cont.auth_data).expect("MYSQL41 response");
        let hash = PasswordHash::from_password(password.as_bytes());
        let ok = hash.verify(&self.challenge, response.scramble.as_ref());
        (response, ok)
    }

    pub fn auth_ok(&mut self) {
        self.send(
            0,
            ServerMessage::AuthenticateOk(session::AuthenticateOk { auth_data: None }),
        );
    }

    // ---- auto mode ----

    /// Makes auto mode treat `sid` as open, for sessions whose SESS_NEW a test consumed itself.
    pub fn adopt_session(&mut self, sid: u64) {
        self.sessions.insert(sid);
    }

    /// Answers everything received so far with the built-in behaviour (see the module docs).
    pub fn auto_respond(&mut self) {
        while let Some((sid, message)) = self.received.pop_front() {
            if self.crashed {
                return;
            }
            self.auto_one(sid, message);
        }
    }

    fn auto_one(&mut self, sid: u64, message: ClientMessage) {
        match message {
            ClientMessage::CapabilitiesGet(_) => {
                self.probes += 1;
                self.capabilities();
            }
            ClientMessage::AuthenticateStart(_) => self.challenge_client(),
            ClientMessage::AuthenticateContinue(cont) => {
                let response = Mysql41Response::parse(&cont.auth_data).expect("MYSQL41 response");
                let hash = PasswordHash::from_password(PASSWORD.as_bytes());
                if hash.verify(&self.challenge, response.scramble.as_ref()) {
                    self.authenticated = true;
                    self.auth_ok();
                } else {
                    self.error(0, false, 1045, "28000", "Access denied");
                }
            }
            ClientMessage::NewSession(_) => {
                self.sessions.insert(sid);
                self.ok(sid);
            }
            message @ (ClientMessage::ExecSql(_) | ClientMessage::SessionClose(_))
                if self.sleeping.contains(&sid) =>
            {
                self.backlog.entry(sid).or_default().push_back(message);
            }
            ClientMessage::SessionClose(_) => {
                self.sessions.remove(&sid);
                self.ok(sid);
            }
            ClientMessage::KillSession(kill) => {
                if kill.r#type == session::kill_session::KillType::Connection as i32 {
                    self.sessions.remove(&sid);
                    self.sleeping.remove(&sid);
                    self.error(sid, true, 7005, "70100", "Session is killing.");
                } else if self.sleeping.remove(&sid) {
                    let err = error(false, 1317, "70100", "Query execution was interrupted");
                    self.stored_error.insert(sid, err.clone());
                    self.send(sid, ServerMessage::Error(err));
                    // The session's queued work runs now.
                    for message in self.backlog.remove(&sid).unwrap_or_default() {
                        self.auto_one(sid, message);
                    }
                }
            }
            ClientMessage::TokenOffer(_) => {}
            ClientMessage::ExecSql(exec) => self.auto_exec(sid, exec),
            other => panic!("auto mode cannot answer {other:?}"),
        }
    }

    fn auto_exec(&mut self, sid: u64, exec: sql::StmtExecute) {
        let auto_commit = xrpc_proto::frame::is_auto_commit_sid(sid);
        if !auto_commit && !self.sessions.contains(&sid) {
            self.error(sid, true, 7002, "HY000", "Session not found.");
            return;
        }
        let stmt = match (&exec.stmt, &exec.stmt_digest) {
            (Some(stmt), Some(digest)) => {
                self.cache.insert(digest.clone(), stmt.clone());
                stmt.clone()
            }
            (Some(stmt), None) => stmt.clone(),
            (None, Some(digest)) => match self.cache.get(digest) {
                Some(stmt) => stmt.clone(),
                None => {
                    self.misses += 1;
                    self.error(sid, false, 6000, "HY000", "SQL digest not found in cache");
                    return;
                }
            },
            (None, None) => {
                self.error(sid, false, 1064, "42000", "empty statement");
                return;
            }
        };
        if exec.reset_error == Some(false)
            && let Some(err) = self.stored_error.get(&sid).cloned()
        {
            self.send(sid, ServerMessage::Error(err));
            return;
        }
        self.stored_error.remove(&sid);
        let text = String::from_utf8_lossy(&stmt).into_owned();
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["select", n, ..] if n.parse::<i64>().is_ok() => {
                let n: i64 = n.parse().expect("checked");
                self.result(sid, &[("n", ColumnType::Sint)], &[vec![Value::Sint(n)]]);
            }
            ["rows", n] => {
                let n: i64 = n.parse().expect("row count");
                let rows: Vec<Vec<Value>> = (0..n).map(|i| vec![Value::Sint(i)]).collect();
                self.result(sid, &[("i", ColumnType::Sint)], &rows);
            }
            ["insert", ..] => {
                self.state_notice(
                    sid,
                    notice::session_state_changed::Parameter::RowsAffected,
                    1,
                );
                self.state_notice(
                    sid,
                    notice::session_state_changed::Parameter::GeneratedInsertId,
                    7,
                );
                self.exec_ok(sid);
            }
            ["error", ..] => {
                let err = error(false, 1064, "42000", "You have an error in your SQL syntax");
                self.stored_error.insert(sid, err.clone());
                self.send(sid, ServerMessage::Error(err));
            }
            ["sleep"] => {
                self.sleeping.insert(sid);
            }
            ["crash"] => self.crashed = true,
            _ => self.affected(sid, 0),
        }
    }
}

pub fn error(fatal: bool, code: u32, state: &str, msg: &str) -> pb::Error {
    pb::Error {
        severity: Some(i32::from(fatal)),
        code,
        msg: msg.into(),
        sql_state: state.into(),
    }
}

pub fn meta(name: &str, ty: ColumnType) -> rs::ColumnMetaData {
    use rs::column_meta_data::OriginalType as O;
    let original = match ty {
        ColumnType::Sint => O::MysqlTypeLonglong,
        ColumnType::Uint => O::MysqlTypeLonglong,
        ColumnType::Double => O::MysqlTypeDouble,
        ColumnType::Float => O::MysqlTypeFloat,
        ColumnType::Bytes => O::MysqlTypeVarString,
        ColumnType::Time => O::MysqlTypeTime,
        ColumnType::DateTime => O::MysqlTypeDatetime,
        ColumnType::Set => O::MysqlTypeSet,
        ColumnType::Enum => O::MysqlTypeEnum,
        ColumnType::Bit => O::MysqlTypeBit,
        ColumnType::Decimal => O::MysqlTypeNewdecimal,
    };
    rs::ColumnMetaData {
        r#type: ty.as_u32() as i32,
        original_type: original as i32,
        name: Some(Bytes::copy_from_slice(name.as_bytes())),
        collation: (ty == ColumnType::Bytes).then_some(33),
        ..Default::default()
    }
}

pub fn row(values: &[Value]) -> rs::Row {
    rs::Row {
        field: values
            .iter()
            .map(|v| {
                let mut field = Vec::new();
                encode_row_field(v, &mut field);
                Bytes::from(field)
            })
            .collect(),
    }
}

/// Encodes one server message as a frame (for tests that split bytes themselves).
pub fn frame(sid: u64, message: &ServerMessage) -> Vec<u8> {
    let mut out = Vec::new();
    let mut body = Vec::new();
    message.encode(&mut body);
    xrpc_proto::frame::encode_frame(
        &mut out,
        HeaderFormat::Standard,
        sid,
        message.type_id(),
        &body,
    );
    out
}
