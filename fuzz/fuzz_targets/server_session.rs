//! Drives the node's session state machine in memory with arbitrary frame bytes and checks what
//! it answers.
//!
//! One node state (`NodeShared` on SQLite in a temporary database, `max_queued_messages` at its
//! minimum of 16 so queue overflow is reachable, a 20 ms lock wait so two sessions that block each
//! other do not stall the run) is built once per process. Each input is a byte stream: its steps
//! encoded as frames (sessions opened, EXEC_SQL from a menu of statements with arguments, digests,
//! chunked results and flow control, plans, savepoints, kills, token offers, closes, GET_TSO,
//! refused messages, bodies that may not decode), then a barrier statement on every session sid it
//! used, a truncated frame or raw garbage. The harness decodes the stream as the node's receive
//! path does and routes each session frame as `conn` routes it: SESS_NEW, kills, token offers and
//! GET_TSO at once, requests pushed onto their session's queue, a session that became runnable run
//! on a thread of its own (as a framework worker would run it) writing its frames through the
//! node's in-memory [`SessionConn`], [`MemoryConn`]. No socket and no framework: an input costs
//! the statements it runs.
//!
//! What must hold, or the run aborts:
//! - no panic anywhere (libFuzzer's panic hook aborts on a panic in any thread);
//! - every frame sent is on sid 0 or on a sid some frame of the input named;
//! - no sid gets more terminal answers (OK, ERROR, StmtExecuteOk, ResultTSO) than the frames sent
//!   on it could ask for; with a well-framed input, a sid that saw no FATAL ending a live session
//!   gets at least one per request (kills and token offers may go unanswered, as the protocol
//!   says): none is lost (a stream that cannot be read on ends the connection, and the answers
//!   still to come with it);
//! - every run ends within a few seconds (the harness answers TOKEN_DONE with budget, as a client
//!   would): no session stalls;
//! - with a well-framed input, every session sid stays usable or is closed with an error frame:
//!   its last frame is the barrier's StmtExecuteOk, or a FATAL;
//! - once the harness drops the connection's sessions, the node's session count and running
//!   statements are zero: nothing is left half-removed.
#![no_main]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use xrpc_client::Param;
use xrpc_client::plan::{Aggregate, Expr, Plan};
use xrpc_proto::frame::{
    CONNECTION_SID, FrameConfig, FrameDecoder, HeaderFormat, encode_frame, encode_message_frame,
    is_auto_commit_sid,
};
use xrpc_proto::messages::{ClientMessage, ClientType, ServerMessage, ServerType, pb};
use xrpc_proto::{Severity, WireError, codes};
use xrpc_server::auth::Accounts;
use xrpc_server::cache::RequestCache;
use xrpc_server::conn::not_supported_on_a_session;
use xrpc_server::encode::write_error;
use xrpc_server::engine::sqlite::{SqliteEngine, SqliteOptions, Synchronous};
use xrpc_server::node::NodeShared;
use xrpc_server::session::{MemoryConn, Pushed, Request, RunOutcome, Session, SessionConn};
use xrpc_server::var_store::Variables;
use xrpc_server::vars::SetValue;

/// How long the runs an input started may take to end once every frame is routed.
const PATIENCE: Duration = Duration::from_secs(4);
const FORMAT: HeaderFormat = HeaderFormat::Standard;
const BARRIER: &str = "select 'barrier'";

struct Fixture {
    node: NodeShared,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temporary directory");
        let options = SqliteOptions {
            synchronous: Synchronous::Off,
            busy_timeout: Duration::from_millis(20),
            ..SqliteOptions::default()
        };
        let engine = SqliteEngine::open(&dir.path().join("fuzz.db"), options).expect("database");
        let vars = Arc::new(Variables::new());
        vars.set_global("xrpc_max_queued_messages", &SetValue::Int(16))
            .expect("xrpc_max_queued_messages");
        let node = NodeShared::new(
            Arc::new(engine),
            RequestCache::default(),
            Accounts::new(Vec::new()),
            vars,
            FORMAT,
        );
        let conn = MemoryConn::default();
        let session = Session::new(1, 1, false);
        for sql in [
            "create table t (id integer primary key, v text, n int)",
            "insert into t values (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)",
        ] {
            assert!(matches!(
                session.push(Request::Sql(Box::new(sql_request(sql))), 16),
                Pushed::Runnable | Pushed::Queued
            ));
        }
        session.run(&conn, &node);
        session.shut_down(&node);
        for (_, message) in conn.new_messages(&mut Reader::new()) {
            assert!(
                !matches!(message, ServerMessage::Error(_)),
                "set-up failed: {message:?}"
            );
        }
        Fixture { node, _dir: dir }
    })
}

/// The router's own answers, and reading what a [`MemoryConn`] got.
trait Wire {
    fn new_messages(&self, reader: &mut Reader) -> Vec<(u64, ServerMessage)>;
    fn error(&self, sid: u64, err: &WireError);
    fn fatal(&self, sid: u64, code: &codes::ErrorCode);
    fn message<M: prost::Message>(&self, sid: u64, kind: ServerType, message: &M);
}

impl Wire for MemoryConn {
    /// The frames sent since the last call, decoded through `reader`; the node's framing and
    /// messages must be valid.
    fn new_messages(&self, reader: &mut Reader) -> Vec<(u64, ServerMessage)> {
        reader.offset = self.with_sent(|out| {
            reader.decoder.feed(&out[reader.offset..]);
            out.len()
        });
        let mut messages = Vec::new();
        while let Some(frame) = reader
            .decoder
            .next_frame()
            .expect("the node's framing is valid")
        {
            let message = ServerMessage::decode(frame.type_id, frame.body)
                .expect("the node's messages decode");
            messages.push((frame.sid, message));
        }
        messages
    }

    fn error(&self, sid: u64, err: &WireError) {
        let mut out = Vec::new();
        write_error(&mut out, FORMAT, sid, err);
        self.send(&out);
    }

    fn fatal(&self, sid: u64, code: &codes::ErrorCode) {
        self.error(
            sid,
            &WireError::from_code(code).with_severity(Severity::Fatal),
        );
    }

    fn message<M: prost::Message>(&self, sid: u64, kind: ServerType, message: &M) {
        let mut out = Vec::new();
        encode_message_frame(&mut out, FORMAT, sid, kind.id(), message);
        self.send(&out);
    }
}

/// Where a reader of a [`MemoryConn`] got to.
struct Reader {
    decoder: FrameDecoder,
    offset: usize,
}

impl Reader {
    fn new() -> Self {
        Self {
            decoder: FrameDecoder::new(FrameConfig::default()),
            offset: 0,
        }
    }
}

/// One connection's sessions, routed as the node's connection handler routes them.
struct Router<'a> {
    node: &'a NodeShared,
    conn: &'a MemoryConn,
    sessions: Mutex<HashMap<u64, Arc<Session>>>,
}

impl Router<'_> {
    fn session(&self, sid: u64) -> Option<Arc<Session>> {
        self.sessions.lock().unwrap().get(&sid).cloned()
    }

    /// Removes `session` if it is still the one under its sid.
    fn remove(&self, session: &Arc<Session>) {
        let removed = {
            let mut sessions = self.sessions.lock().unwrap();
            match sessions.get(&session.sid()) {
                Some(current) if Arc::ptr_eq(current, session) => sessions.remove(&session.sid()),
                _ => None,
            }
        };
        if let Some(session) = removed {
            self.node.session_removed(&*session);
            session.shut_down(self.node);
        }
    }

    fn end_session(&self, session: &Arc<Session>, code: &codes::ErrorCode) {
        session.send_last_fatal(self.conn, self.node, &WireError::from_code(code));
        self.remove(session);
    }

    /// What a framework worker does with a runnable session.
    fn run(&self, session: &Arc<Session>) {
        let outcome = session.run(self.conn, self.node);
        if outcome == RunOutcome::Closed || session.is_gone() {
            self.remove(session);
        }
    }

    /// Routes one session frame; returns the session to schedule, if it became runnable.
    fn route(&self, sid: u64, message: ClientMessage) -> Option<Arc<Session>> {
        let request = match message {
            ClientMessage::NewSession(_) => {
                self.new_session(sid);
                return None;
            }
            ClientMessage::KillSession(kill) => {
                match self.session(sid) {
                    None => self.conn.fatal(sid, &codes::SESSION_NOT_FOUND),
                    Some(session)
                        if kill.r#type
                            == pb::session::kill_session::KillType::Connection as i32 =>
                    {
                        self.end_session(&session, &codes::SESSION_KILLED)
                    }
                    Some(session) => session.kill_query(),
                }
                return None;
            }
            ClientMessage::TokenOffer(offer) => {
                match self.session(sid) {
                    Some(session) => session.offer_tokens(offer.token.unwrap_or(-1)),
                    None => self.conn.fatal(sid, &codes::SESSION_NOT_FOUND),
                }
                return None;
            }
            ClientMessage::GetTso(request) => {
                let ts = self.node.tso.next(request.batch_count.max(1) as u32);
                let reply = pb::exec_plan::ResultTso { error_no: 0, ts };
                self.conn.message(sid, ServerType::Tso, &reply);
                return None;
            }
            ClientMessage::ExecSql(stmt) => Request::Sql(Box::new(stmt)),
            ClientMessage::ExecPlanRead(plan) => Request::Plan(Box::new(plan)),
            ClientMessage::AutoSp(sp) => Request::Savepoint(sp),
            ClientMessage::SessionClose(_) => Request::Close,
            other => {
                self.conn.error(sid, &not_supported_on_a_session(&other));
                return None;
            }
        };
        let Some(session) = self.session(sid) else {
            self.conn.fatal(sid, &codes::SESSION_NOT_FOUND);
            return None;
        };
        match session.push(request, self.node.max_queued_messages()) {
            Pushed::Runnable => Some(session),
            Pushed::Queued => None,
            Pushed::Gone(_) => {
                self.conn.fatal(sid, &codes::SESSION_NOT_FOUND);
                None
            }
            Pushed::Overflow => {
                self.end_session(&session, &codes::SESSION_QUEUE_OVERFLOW);
                None
            }
        }
    }

    fn new_session(&self, sid: u64) {
        if let Some(existing) = self.session(sid) {
            if existing.is_gone() {
                self.remove(&existing);
            } else {
                self.end_session(&existing, &codes::DUPLICATE_SESSION);
                return;
            }
        }
        let Some(number) = self.node.session_added(false) else {
            self.conn.fatal(sid, &codes::TOO_MANY_SESSIONS);
            return;
        };
        let session = Arc::new(Session::new(sid, number, false));
        self.sessions.lock().unwrap().insert(sid, session);
        self.conn.message(sid, ServerType::Ok, &pb::Ok::default());
    }

    /// The end of the connection: every session is removed.
    fn close(&self) {
        self.conn.close();
        let sessions: Vec<_> = self.sessions.lock().unwrap().drain().collect();
        for (_, session) in sessions {
            self.node.session_removed(&*session);
            session.shut_down(self.node);
        }
    }
}

/// The statements a request may carry; the fuzzer picks by index.
const STATEMENTS: &[&str] = &[
    "select 1",
    "select id, v, n from t order by id",
    "select ?, ?",
    "update t set n = n + 1 where id = 1",
    "begin",
    "commit",
    "rollback",
    "select * from missing_table",
    "selec oops",
    // A few milliseconds of work: something for a kill to hit.
    "with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000) select count(*) from c",
    // Enough rows to exhaust a small flow-control budget.
    "with recursive c(x) as (select 1 union all select x + 1 from c where x < 400) select x, 'row padding' from c",
    "set autocommit = 0",
    "set autocommit = 1",
    "select @@max_queued_messages",
    "select connection_id()",
    "kill query 999999999",
    "savepoint s1",
    "create temporary table tmp (x int)",
    "insert into t (v, n) values ('new', 1)",
    "delete from t where id > 3",
    "use missing_db",
    "show warnings",
];

#[derive(Debug, Arbitrary)]
struct Script {
    ending: Ending,
    /// Last, so that it takes the rest of the input (`arbitrary_take_rest`): a script is as long
    /// as its input allows, not cut short by a "one more?" coin toss per step.
    steps: Vec<Step>,
}

#[derive(Debug, Arbitrary, Clone, Copy)]
struct Sid(u8);

impl Sid {
    fn wire(self) -> u64 {
        u64::from(self.0 % 4) + 1
    }
}

#[derive(Debug, Arbitrary)]
enum Digest {
    None,
    /// Text and digest: the node caches the text under the digest.
    Both(bool),
    /// Digest only: a hit or a 6000 miss.
    Only(bool),
}

#[derive(Debug, Arbitrary)]
enum Step {
    NewSession(Sid),
    Sql {
        sid: Sid,
        statement: u8,
        args: Vec<i64>,
        token: Option<i8>,
        reset_error: Option<bool>,
        chunk_result: bool,
        feed_back: bool,
        digest: Digest,
    },
    Plan {
        sid: Sid,
        kind: u8,
        key: i64,
        token: Option<i8>,
        chunk_result: bool,
    },
    Savepoint {
        sid: Sid,
        op: u8,
        name: bool,
        reset_error: Option<bool>,
    },
    Kill {
        sid: Sid,
        connection: bool,
    },
    TokenOffer {
        sid: Sid,
        token: i16,
    },
    Close(Sid),
    GetTso(Sid),
    /// A message a session does not take (session reset, X StmtExecute, CRUD, expectations,
    /// Galaxy prepare, file operations, connection-level messages).
    Refused {
        sid: Sid,
        type_id: u8,
    },
    /// A well-framed frame whose type and body are arbitrary: it may decode, or end the
    /// connection.
    Body {
        sid: Sid,
        type_id: u8,
        body: Vec<u8>,
    },
}

#[derive(Debug, Arbitrary)]
enum Ending {
    /// A barrier statement on every session sid used, then every answer is awaited.
    Barrier,
    /// The first bytes of a frame.
    Truncated { sid: Sid, cut: u8 },
    /// Arbitrary bytes (at most 256).
    Garbage(Vec<u8>),
}

fn frame<M: prost::Message>(out: &mut Vec<u8>, sid: u64, kind: ClientType, message: &M) {
    encode_message_frame(out, FORMAT, sid, kind.id(), message);
}

fn sql_request(sql: &str) -> pb::sql::StmtExecute {
    pb::sql::StmtExecute {
        stmt: Some(Bytes::copy_from_slice(sql.as_bytes())),
        ..Default::default()
    }
}

fn sint(value: i64) -> pb::datatypes::Any {
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

fn plan_for(kind: u8) -> Plan {
    match kind % 4 {
        0 => Plan::get("t")
            .key([("id", xrpc_client::plan::placeholder(0))])
            .build(),
        1 => Plan::table_scan("t"),
        2 => Plan::table_scan("t").aggregate(Aggregate::Count, "n", Expr::star()),
        _ => Plan::table_scan("missing_table"),
    }
}

/// Appends the frames of `step` to `out`.
fn encode_step(step: &Step, out: &mut Vec<u8>) {
    match step {
        Step::NewSession(sid) => frame(
            out,
            sid.wire(),
            ClientType::NewSession,
            &pb::session::NewSession::default(),
        ),
        Step::Sql {
            sid,
            statement,
            args,
            token,
            reset_error,
            chunk_result,
            feed_back,
            digest,
        } => {
            let sql = STATEMENTS[usize::from(*statement) % STATEMENTS.len()];
            let digest_bytes =
                |second: bool| Bytes::from_static(if second { b"digest-2" } else { b"digest-1" });
            let (stmt, stmt_digest) = match digest {
                Digest::None => (Some(Bytes::copy_from_slice(sql.as_bytes())), None),
                Digest::Both(d) => (
                    Some(Bytes::copy_from_slice(sql.as_bytes())),
                    Some(digest_bytes(*d)),
                ),
                Digest::Only(d) => (None, Some(digest_bytes(*d))),
            };
            let request = pb::sql::StmtExecute {
                stmt,
                stmt_digest,
                args: args.iter().take(4).map(|v| sint(*v)).collect(),
                token: token.map(i32::from),
                reset_error: *reset_error,
                chunk_result: Some(*chunk_result),
                feed_back: Some(*feed_back),
                ..Default::default()
            };
            frame(out, sid.wire(), ClientType::ExecSql, &request);
        }
        Step::Plan {
            sid,
            kind,
            key,
            token,
            chunk_result,
        } => {
            let request = pb::exec_plan::ExecPlan {
                token: token.map(i32::from),
                chunk_result: Some(*chunk_result),
                ..plan_for(*kind).request(&[Param::from(*key)])
            };
            frame(out, sid.wire(), ClientType::ExecPlanRead, &request);
        }
        Step::Savepoint {
            sid,
            op,
            name,
            reset_error,
        } => {
            let request = pb::exec_plan::AutoSp {
                op: i32::from(op % 4),
                sp_name: Bytes::from_static(if *name { b"s1" } else { b"s2" }),
                reset_error: *reset_error,
            };
            frame(out, sid.wire(), ClientType::AutoSp, &request);
        }
        Step::Kill { sid, connection } => {
            let kind = if *connection { 2 } else { 1 };
            frame(
                out,
                sid.wire(),
                ClientType::KillSession,
                &pb::session::KillSession {
                    r#type: kind,
                    x_session_id: 0,
                },
            );
        }
        Step::TokenOffer { sid, token } => frame(
            out,
            sid.wire(),
            ClientType::TokenOffer,
            &pb::sql::TokenOffer {
                token: Some(i32::from(*token)),
            },
        ),
        Step::Close(sid) => frame(
            out,
            sid.wire(),
            ClientType::SessionClose,
            &pb::session::Close::default(),
        ),
        Step::GetTso(sid) => frame(
            out,
            sid.wire(),
            ClientType::GetTso,
            &pb::exec_plan::GetTso {
                leader_name: Bytes::from_static(b"fuzz"),
                batch_count: 1,
            },
        ),
        Step::Refused { sid, type_id } => {
            let type_id = [
                1u8, 3, 4, 5, 6, 12, 17, 18, 19, 20, 24, 25, 102, 116, 117, 118,
            ][usize::from(*type_id) % 16];
            let body: &[u8] = match type_id {
                // Bodies that decode: X StmtExecute and Galaxy prepare need their required fields.
                12 => b"\x0a\x08select 1",
                _ => b"",
            };
            encode_frame(out, FORMAT, sid.wire(), type_id, body);
        }
        Step::Body { sid, type_id, body } => {
            encode_frame(
                out,
                FORMAT,
                sid.wire(),
                *type_id,
                &body[..body.len().min(256)],
            );
        }
    }
}

/// What the input's frames asked of each sid, as the router saw them.
#[derive(Default, Debug)]
struct Asked {
    /// Every sid a routed frame named.
    named: BTreeSet<u64>,
    /// Per sid: frames that must each get an answer of their own unless a FATAL that ends a live
    /// session answers them together.
    requests: BTreeMap<u64, usize>,
    /// Per sid: frames that may get one answer (kills and token offers: none when the session
    /// exists, FATAL 7002 when it does not).
    maybe: BTreeMap<u64, usize>,
    /// Whether every frame was well framed and decodable: otherwise the connection ended (with a
    /// FATAL on sid 0) at the first that was not.
    well_formed: bool,
}

#[derive(Default, Debug)]
/// What one sid got back.
struct Seen {
    /// Terminal frames: OK, ERROR (FATAL included), StmtExecuteOk, ResultTSO.
    answers: usize,
    /// A FATAL ended a live session on the sid: it answers every request still outstanding.
    fatal: bool,
    /// The barrier's row arrived; its StmtExecuteOk is next.
    barrier_row: bool,
    /// The last frame was the barrier's StmtExecuteOk.
    barrier_done: bool,
    /// The last frame was a FATAL.
    ended_fatal: bool,
    /// TOKEN_DONE frames: each drew an offer from the harness.
    offers: usize,
    /// The last frames' types (with an error's code), for the report of a broken invariant.
    last: std::collections::VecDeque<String>,
}

fn is_terminal(message: &ServerMessage) -> bool {
    matches!(
        message,
        ServerMessage::Ok(_)
            | ServerMessage::Error(_)
            | ServerMessage::StmtExecuteOk(_)
            | ServerMessage::Tso(_)
    )
}

fn is_fatal(message: &ServerMessage) -> bool {
    matches!(message, ServerMessage::Error(e) if e.severity == Some(Severity::Fatal.as_u32() as i32))
}

/// FATALs that answer one frame (no session under the sid; SESS_NEW refused) rather than end a
/// live session.
fn is_one_frame_fatal(message: &ServerMessage) -> bool {
    matches!(message, ServerMessage::Error(e)
        if e.code == codes::SESSION_NOT_FOUND.code || e.code == codes::TOO_MANY_SESSIONS.code)
}

/// Tallies `message` on `sid`.
fn see(seen: &mut BTreeMap<u64, Seen>, sid: u64, message: &ServerMessage) {
    let entry = seen.entry(sid).or_default();
    if entry.last.len() == 16 {
        entry.last.pop_front();
    }
    entry.last.push_back(match message {
        ServerMessage::Error(e) => format!("ERROR {} severity {:?}", e.code, e.severity),
        other => other.message_type().name().to_owned(),
    });
    entry.barrier_done = false;
    entry.ended_fatal = false;
    match message {
        ServerMessage::Row(row)
            if row.field.first().map(|f| f.as_ref()) == Some(&b"barrier\0"[..]) =>
        {
            entry.barrier_row = true;
        }
        ServerMessage::StmtExecuteOk(_) if entry.barrier_row => {
            entry.barrier_row = false;
            entry.barrier_done = true;
        }
        ServerMessage::TokenDone(_) => entry.offers += 1,
        _ => {}
    }
    if is_terminal(message) {
        entry.answers += 1;
        if is_fatal(message) {
            entry.ended_fatal = true;
            entry.barrier_row = false;
            if !is_one_frame_fatal(message) {
                entry.fatal = true;
            }
        }
    }
}

fuzz_target!(|script: Script| {
    let node = &fixture().node;
    if std::env::var_os("XRPC_FUZZ_SCRIPT").is_some() {
        eprintln!("{script:?}");
    }
    let mut input = Vec::new();
    for step in script.steps.iter().take(64) {
        encode_step(step, &mut input);
    }
    let barrier = matches!(script.ending, Ending::Barrier);
    match &script.ending {
        Ending::Barrier => {
            for sid in 1..=4 {
                frame(&mut input, sid, ClientType::ExecSql, &sql_request(BARRIER));
            }
        }
        Ending::Truncated { sid, cut } => {
            let mut whole = Vec::new();
            frame(
                &mut whole,
                sid.wire(),
                ClientType::ExecSql,
                &sql_request("select 1"),
            );
            input.extend_from_slice(&whole[..usize::from(*cut) % whole.len()]);
        }
        Ending::Garbage(bytes) => input.extend_from_slice(&bytes[..bytes.len().min(256)]),
    }

    let conn = MemoryConn::default();
    let router = Router {
        node,
        conn: &conn,
        sessions: Mutex::new(HashMap::new()),
    };
    let mut asked = Asked {
        well_formed: true,
        ..Asked::default()
    };
    let mut seen: BTreeMap<u64, Seen> = BTreeMap::new();
    std::thread::scope(|scope| {
        let mut runs = Vec::new();
        let mut decoder = FrameDecoder::new(FrameConfig::default());
        decoder.feed(&input);
        loop {
            let frame = match decoder.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => {
                    asked.well_formed &= decoder.buffered() == 0;
                    break;
                }
                Err(err) => {
                    // The connection ends after one FATAL on sid 0.
                    conn.error(0, &err.to_wire());
                    asked.well_formed = false;
                    break;
                }
            };
            asked.named.insert(frame.sid);
            let message = match ClientMessage::decode(frame.type_id, frame.body) {
                Ok(message) => message,
                Err(err) => {
                    conn.error(0, &err.to_wire());
                    asked.well_formed = false;
                    break;
                }
            };
            if frame.sid == CONNECTION_SID || is_auto_commit_sid(frame.sid) {
                // The connection handler's (authentication, capabilities, auto-commit sessions),
                // which this target does not reach.
                continue;
            }
            let counter = match message {
                ClientMessage::KillSession(_) | ClientMessage::TokenOffer(_) => &mut asked.maybe,
                _ => &mut asked.requests,
            };
            *counter.entry(frame.sid).or_default() += 1;
            if let Some(session) = router.route(frame.sid, message) {
                let router = &router;
                runs.push(scope.spawn(move || router.run(&session)));
            }
        }
        if !asked.well_formed {
            router.close();
        }
        // Every run must end; a result waiting for budget gets plenty, as a client would give.
        let deadline = Instant::now() + PATIENCE;
        let mut answered_offers: BTreeMap<u64, usize> = BTreeMap::new();
        let mut reader = Reader::new();
        loop {
            let done = runs.iter().all(|run| run.is_finished());
            for (sid, message) in conn.new_messages(&mut reader) {
                see(&mut seen, sid, &message);
            }
            for (sid, s) in &seen {
                let answered = answered_offers.entry(*sid).or_default();
                if s.offers > *answered {
                    *answered = s.offers;
                    if let Some(session) = router.session(*sid) {
                        session.offer_tokens(1 << 20);
                    }
                }
            }
            if done {
                assert_eq!(
                    reader.decoder.buffered(),
                    0,
                    "the node sent a partial frame"
                );
                break;
            }
            assert!(
                Instant::now() < deadline,
                "session runs still going {PATIENCE:?} after the last frame: a session stalled"
            );
            std::thread::yield_now();
        }
    });

    for (sid, s) in &seen {
        if *sid == CONNECTION_SID {
            // The harness's own FATAL for a stream that cannot be read on.
            continue;
        }
        assert!(
            asked.named.contains(sid),
            "the node answered sid {sid:#x}, which no frame named"
        );
        let most = asked.requests.get(sid).copied().unwrap_or(0)
            + asked.maybe.get(sid).copied().unwrap_or(0);
        assert!(
            s.answers <= most,
            "sid {sid:#x}: {} answers to {most} frames that may be answered",
            s.answers
        );
    }
    // A stream that cannot be read on ends the connection at once, and with it every answer
    // still to come; otherwise none may be lost.
    for (sid, wanted) in asked.requests.iter().filter(|_| asked.well_formed) {
        let s = seen.get(sid);
        let answered = s.map_or(0, |s| s.answers);
        assert!(
            s.is_some_and(|s| s.fatal) || answered >= *wanted,
            "sid {sid:#x}: {answered} of {wanted} requests answered"
        );
    }
    if barrier && asked.well_formed {
        for sid in 1..=4 {
            let s = seen.get(&sid);
            assert!(
                s.is_some_and(|s| s.barrier_done || s.ended_fatal),
                "sid {sid}: the last frame is neither the barrier's answer nor a FATAL: {s:?}"
            );
        }
    }

    router.close();
    let sessions = node.counters.total_sessions.load(Ordering::Acquire);
    let workers = node.counters.worker_sessions.load(Ordering::Acquire);
    let running = node.running_statements();
    assert!(
        sessions == 0 && workers == 0 && running == 0,
        "the node did not return to idle after the connection ended: {sessions} sessions \
         ({workers} opened with SESS_NEW), {running} running statements"
    );
});
