//! Drives a real data node with sequences of frames over several sessions and checks what it
//! answers.
//!
//! One node (SQLite on a temporary database, `max_queued_messages` at its minimum of 16 so queue
//! overflow is reachable, a 20 ms lock wait so two sessions that block each other do not stall
//! the run) is started once per process on 127.0.0.1. Each input opens one loopback connection,
//! authenticates as root (unless the input asks not to), sends its steps as one write (sessions
//! opened, EXEC_SQL from a menu of statements with arguments, digests, chunked results and flow
//! control, plans, savepoints, kills, token offers, closes, GET_TSO, refused X Protocol messages,
//! bodies that may not decode, authentication messages on sid 0), then ends in one of four ways:
//! a barrier statement on every session sid it used, CON_CLOSE, a truncated frame, or raw garbage.
//! A real connection, rather than the handler in isolation, because the handler is written against
//! the framework's connection object; on loopback an input costs well under a millisecond.
//!
//! What must hold, or the run aborts:
//! - no panic anywhere in the node (libFuzzer's panic hook aborts on a panic in any thread);
//! - every frame the node sends is on sid 0 or on a sid that some frame of the input named (the
//!   harness decodes its own byte stream as the node does, so garbage that happens to form a
//!   header counts as naming its sid);
//! - no session sid gets more terminal answers (OK, ERROR, StmtExecuteOk, ResultTSO) than the
//!   frames sent on it could ask for; a sid that saw no FATAL gets at least one per request
//!   (kills and token offers may go unanswered, as the protocol says), i.e. none is lost;
//! - with a well-framed input, the node either answers the barrier of every session sid or
//!   closes the connection after a FATAL on sid 0 (or the OK of CON_CLOSE): it never goes silent;
//! - once the harness closes its socket, the node's session count, connection count and running
//!   statements return to zero within a few seconds: nothing is left half-removed.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use xrpc_client::Param;
use xrpc_client::plan::{Aggregate, Expr, Plan};
use xrpc_net::NetConfig;
use xrpc_proto::auth::{Challenge, mysql41_client_response};
use xrpc_proto::frame::{
    FrameConfig, FrameDecoder, HeaderFormat, encode_frame, encode_message_frame,
};
use xrpc_proto::messages::{ClientMessage, ClientType, ServerMessage, pb};
use xrpc_server::engine::sqlite::{SqliteOptions, Synchronous};
use xrpc_server::server::{Node, NodeBuilder};
use xrpc_server::users::UserConfig;
use xrpc_server::vars::SetValue;

/// How long the node may take to answer every barrier, or to drop a closed connection's sessions.
const PATIENCE: Duration = Duration::from_secs(4);
/// How long the connection must stay quiet before a sid whose session ended with a FATAL, whose
/// barrier answer therefore cannot be told apart, counts as answered.
const QUIET: Duration = Duration::from_millis(30);
const AUTO: u64 = 0x8000_0000_0000_0000;
const BARRIER: &str = "select 'barrier'";

struct Fixture {
    node: Node,
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
        let node = NodeBuilder::sqlite(&dir.path().join("fuzz.db"), options)
            .expect("database")
            .loopback("127.0.0.1:0".parse().unwrap())
            .users(vec![UserConfig::builtin_root()])
            .tune(|_net: &mut NetConfig, shared| {
                for (name, value) in [
                    ("xrpc_max_queued_messages", 16),
                    ("max_connect_errors", 1_000_000),
                ] {
                    shared
                        .vars
                        .set_global(name, &SetValue::Int(value))
                        .expect(name);
                }
            })
            .start()
            .expect("node starts");
        let fixture = Fixture { node, _dir: dir };
        let mut setup = Conn::open(fixture.node.local_addr());
        assert!(setup.authenticate(), "root authenticates");
        let mut out = Vec::new();
        frame(
            &mut out,
            1,
            ClientType::NewSession,
            &pb::session::NewSession::default(),
        );
        for sql in [
            "create table t (id integer primary key, v text, n int)",
            "insert into t values (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)",
        ] {
            frame(&mut out, 1, ClientType::ExecSql, &sql_request(sql));
        }
        setup.stream.write_all(&out).unwrap();
        let mut terminal = 0;
        while terminal < 3 {
            let reply = setup
                .next(Instant::now() + PATIENCE)
                .expect("set-up answered");
            match reply.1 {
                ServerMessage::Error(e) => panic!("set-up failed: {e:?}"),
                ServerMessage::Ok(_) | ServerMessage::StmtExecuteOk(_) => terminal += 1,
                _ => {}
            }
        }
        drop(setup);
        wait_for_idle(&fixture.node);
        fixture
    })
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
];

#[derive(Debug, Arbitrary)]
struct Script {
    authenticate: bool,
    ending: Ending,
    /// Close with a TCP reset instead of a FIN.
    reset: bool,
    /// Last, so that it takes the rest of the input (`arbitrary_take_rest`): a script is as long
    /// as its input allows, not cut short by a "one more?" coin toss per step.
    steps: Vec<Step>,
}

#[derive(Debug, Arbitrary, Clone, Copy)]
enum Sid {
    Normal(u8),
    AutoCommit(bool),
    Connection,
}

impl Sid {
    fn wire(self) -> u64 {
        match self {
            Sid::Normal(n) => u64::from(n % 4) + 1,
            Sid::AutoCommit(second) => AUTO | u64::from(second),
            Sid::Connection => 0,
        }
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
    CapabilitiesGet,
    CapabilitiesSet(bool),
    AuthenticateStart {
        mech: u8,
        user: bool,
    },
    AuthenticateContinue(Vec<u8>),
    /// A MySQL X message the node refuses (session reset, X StmtExecute, CRUD, expectations,
    /// Galaxy prepare, file operations).
    Refused {
        sid: Sid,
        type_id: u8,
    },
    /// A well-framed frame whose type and body are arbitrary: it may decode, or end the
    /// connection with FATAL 5000 or 1047.
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
    /// CON_CLOSE: OK "bye!", then the node closes.
    ConnectionClose,
    /// The first bytes of a frame, then the harness closes.
    Truncated { sid: Sid, cut: u8 },
    /// Arbitrary bytes (at most 256), then the harness closes.
    Garbage(Vec<u8>),
}

fn frame<M: prost::Message>(out: &mut Vec<u8>, sid: u64, kind: ClientType, message: &M) {
    encode_message_frame(out, HeaderFormat::Standard, sid, kind.id(), message);
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
        Step::TokenOffer { sid, token } => {
            frame(
                out,
                sid.wire(),
                ClientType::TokenOffer,
                &pb::sql::TokenOffer {
                    token: Some(i32::from(*token)),
                },
            );
        }
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
        Step::CapabilitiesGet => frame(
            out,
            0,
            ClientType::CapabilitiesGet,
            &pb::connection::CapabilitiesGet::default(),
        ),
        Step::CapabilitiesSet(tls) => {
            let value = pb::datatypes::Any {
                r#type: pb::datatypes::any::Type::Scalar as i32,
                scalar: Some(pb::datatypes::Scalar {
                    r#type: pb::datatypes::scalar::Type::VBool as i32,
                    v_bool: Some(*tls),
                    ..Default::default()
                }),
                ..Default::default()
            };
            let set = pb::connection::CapabilitiesSet {
                capabilities: pb::connection::Capabilities {
                    capabilities: vec![pb::connection::Capability {
                        name: "tls".into(),
                        value,
                    }],
                },
            };
            frame(out, 0, ClientType::CapabilitiesSet, &set);
        }
        Step::AuthenticateStart { mech, user } => {
            let start = pb::session::AuthenticateStart {
                mech_name: ["MYSQL41", "PLAIN", "SHA256_MEMORY"][usize::from(*mech) % 3].into(),
                auth_data: Some(Bytes::from_static(if *user {
                    b"\0root\0"
                } else {
                    b"\0nobody\0x"
                })),
                ..Default::default()
            };
            frame(out, 0, ClientType::AuthenticateStart, &start);
        }
        Step::AuthenticateContinue(data) => {
            let answer = pb::session::AuthenticateContinue {
                auth_data: Bytes::copy_from_slice(&data[..data.len().min(64)]),
            };
            frame(out, 0, ClientType::AuthenticateContinue, &answer);
        }
        Step::Refused { sid, type_id } => {
            let type_id =
                [6u8, 12, 17, 18, 19, 20, 24, 25, 102, 116, 117, 118][usize::from(*type_id) % 12];
            let body: &[u8] = match type_id {
                // Bodies that decode: X StmtExecute and Galaxy prepare need their required fields.
                12 => b"\x0a\x08select 1",
                _ => b"",
            };
            encode_frame(out, HeaderFormat::Standard, sid.wire(), type_id, body);
        }
        Step::Body { sid, type_id, body } => {
            encode_frame(
                out,
                HeaderFormat::Standard,
                sid.wire(),
                *type_id,
                &body[..body.len().min(256)],
            );
        }
    }
}

/// What the input's frames ask of each sid, decoded from the bytes sent as the node decodes them.
#[derive(Default, Debug)]
struct Asked {
    /// Every sid some decodable header named.
    named: BTreeSet<u64>,
    /// Per session sid: frames that must each get an answer of their own unless a FATAL that ends
    /// a live session answers them together.
    requests: BTreeMap<u64, usize>,
    /// Per session sid: frames that may get one answer (kills and token offers: none when the
    /// session exists, FATAL 7002 when it does not; before authentication, ERROR 1045).
    maybe: BTreeMap<u64, usize>,
    /// Whether the stream stays well framed with every body decodable: then the node must keep
    /// answering until the barrier or close the connection with a FATAL.
    well_formed: bool,
}

fn asked_of(bytes: &[u8]) -> Asked {
    let mut asked = Asked {
        well_formed: true,
        ..Asked::default()
    };
    let mut decoder = FrameDecoder::new(FrameConfig::default());
    decoder.feed(bytes);
    loop {
        match decoder.next_frame() {
            Ok(Some(frame)) => {
                asked.named.insert(frame.sid);
                let message = match ClientMessage::decode(frame.type_id, frame.body) {
                    Ok(message) => message,
                    Err(_) => {
                        // The node answers FATAL on sid 0 and reads nothing further.
                        asked.well_formed = false;
                        break;
                    }
                };
                if frame.sid == 0 {
                    continue;
                }
                let counter = match message {
                    ClientMessage::KillSession(_) | ClientMessage::TokenOffer(_) => {
                        &mut asked.maybe
                    }
                    _ => &mut asked.requests,
                };
                *counter.entry(frame.sid).or_default() += 1;
            }
            Ok(None) => {
                if decoder.buffered() > 0 {
                    asked.well_formed = false;
                }
                break;
            }
            Err(_) => {
                asked.well_formed = false;
                break;
            }
        }
    }
    asked
}

/// One client connection.
struct Conn {
    stream: TcpStream,
    decoder: FrameDecoder,
    closed: bool,
}

impl Conn {
    fn open(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).expect("connect to the node");
        stream.set_nodelay(true).unwrap();
        Self {
            stream,
            decoder: FrameDecoder::new(FrameConfig::default()),
            closed: false,
        }
    }

    /// The next frame before `deadline`, or `None` when the node closed the connection or the
    /// deadline passed (`closed` tells which).
    fn next(&mut self, deadline: Instant) -> Option<(u64, ServerMessage)> {
        loop {
            if let Some(frame) = self
                .decoder
                .next_frame()
                .expect("the node's framing is valid")
            {
                let message = ServerMessage::decode(frame.type_id, frame.body)
                    .expect("the node's messages decode");
                return Some((frame.sid, message));
            }
            if self.closed {
                return None;
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            self.stream.set_read_timeout(Some(deadline - now)).unwrap();
            let mut buf = [0u8; 64 * 1024];
            match self.stream.read(&mut buf) {
                Ok(0) => self.closed = true,
                Ok(n) => self.decoder.feed(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return None;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => self.closed = true,
            }
        }
    }

    fn authenticate(&mut self) -> bool {
        let mut out = Vec::new();
        let start = pb::session::AuthenticateStart {
            mech_name: "MYSQL41".into(),
            ..Default::default()
        };
        frame(&mut out, 0, ClientType::AuthenticateStart, &start);
        self.stream.write_all(&out).unwrap();
        let deadline = Instant::now() + PATIENCE;
        let Some((0, ServerMessage::AuthenticateContinue(challenge))) = self.next(deadline) else {
            return false;
        };
        let Ok(challenge) = <[u8; 20]>::try_from(challenge.auth_data.as_ref()) else {
            return false;
        };
        let response = mysql41_client_response("", "root", b"", &Challenge::from_bytes(challenge));
        out.clear();
        frame(
            &mut out,
            0,
            ClientType::AuthenticateContinue,
            &pb::session::AuthenticateContinue {
                auth_data: Bytes::from(response),
            },
        );
        self.stream.write_all(&out).unwrap();
        matches!(
            self.next(deadline),
            Some((0, ServerMessage::AuthenticateOk(_)))
        )
    }
}

/// Waits until the node holds no session, no connection and no running statement.
fn wait_for_idle(node: &Node) {
    let shared = node.shared();
    let deadline = Instant::now() + PATIENCE;
    let mut spins = 0u32;
    loop {
        let sessions = shared.counters.total_sessions.load(Ordering::Acquire);
        let workers = shared.counters.worker_sessions.load(Ordering::Acquire);
        let connections = node.server().handler().connections();
        let running = shared.running_statements();
        if sessions == 0 && workers == 0 && connections == 0 && running == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the node did not return to idle after the connection closed: {sessions} sessions \
             ({workers} opened with SESS_NEW), {connections} connections, {running} running statements"
        );
        spins += 1;
        if spins < 200 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
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
    matches!(message, ServerMessage::Error(e) if e.severity == Some(1))
}

fn is_one_frame_fatal(message: &ServerMessage) -> bool {
    matches!(message, ServerMessage::Error(e) if e.code == 7002 || e.code == 1040)
}

#[derive(Default, Debug)]
/// What one sid got back.
struct Seen {
    /// Terminal frames: OK, ERROR (FATAL included), StmtExecuteOk, ResultTSO.
    answers: usize,
    /// A FATAL ended a live session on the sid: answers from then on cannot be counted exactly.
    fatal: bool,
    /// The barrier's row arrived; its StmtExecuteOk is next.
    barrier_row: bool,
    /// The barrier statement was answered.
    barrier_done: bool,
}

fuzz_target!(|script: Script| {
    let fixture = fixture();
    let node = &fixture.node;
    // Inputs that fail authentication must not get 127.0.0.1 blocked for the ones after them.
    node.shared().hosts.flush();
    if std::env::var_os("XRPC_FUZZ_SCRIPT").is_some() {
        eprintln!("{script:?}");
    }
    let t0 = Instant::now();
    let mut conn = Conn::open(node.local_addr());
    let authenticated = script.authenticate && conn.authenticate();

    let mut out = Vec::new();
    for step in script.steps.iter().take(64) {
        encode_step(step, &mut out);
    }
    let session_sids: BTreeSet<u64> = asked_of(&out)
        .named
        .into_iter()
        .filter(|sid| *sid != 0)
        .collect();
    let mut await_answers = false;
    match &script.ending {
        Ending::Barrier => {
            for sid in &session_sids {
                frame(&mut out, *sid, ClientType::ExecSql, &sql_request(BARRIER));
            }
            await_answers = true;
        }
        Ending::ConnectionClose => {
            frame(
                &mut out,
                0,
                ClientType::ConnectionClose,
                &pb::connection::Close::default(),
            );
            await_answers = true;
        }
        Ending::Truncated { sid, cut } => {
            let mut whole = Vec::new();
            frame(
                &mut whole,
                sid.wire(),
                ClientType::ExecSql,
                &sql_request("select 1"),
            );
            out.extend_from_slice(&whole[..usize::from(*cut) % whole.len()]);
        }
        Ending::Garbage(bytes) => out.extend_from_slice(&bytes[..bytes.len().min(256)]),
    }
    let asked = asked_of(&out);
    // A barrier or CON_CLOSE after a frame that ends the connection is never read.
    let await_answers = await_answers && asked.well_formed;

    if conn.stream.write_all(&out).is_err() {
        // The node closed first (say, after an undecodable frame early in a large input).
        conn.closed = true;
    }
    if !await_answers {
        let _ = conn.stream.shutdown(std::net::Shutdown::Write);
    }

    let mut seen: BTreeMap<u64, Seen> = BTreeMap::new();
    // Token offers the harness itself sent, per sid: each may draw a FATAL 7002 when the session
    // is gone by the time it arrives.
    let mut offers: BTreeMap<u64, usize> = BTreeMap::new();
    let mut fatal_on_connection = false;
    let mut bye = false;
    let deadline = Instant::now() + PATIENCE;
    let mut last_frame = Instant::now();
    loop {
        let fatal_sids_quiet = last_frame.elapsed() >= QUIET;
        let all_settled = session_sids.iter().all(|sid| {
            let s = seen.get(sid);
            s.is_some_and(|s| s.barrier_done)
                || (s.is_some_and(|s| s.fatal) && fatal_sids_quiet)
                || (s.is_none_or(|s| !s.fatal)
                    && s.map_or(0, |s| s.answers) >= asked.requests.get(sid).copied().unwrap_or(0))
        });
        if await_answers && !matches!(script.ending, Ending::ConnectionClose) && all_settled {
            break;
        }
        if await_answers && matches!(script.ending, Ending::ConnectionClose) && bye && conn.closed {
            break;
        }
        let wait_until = if await_answers {
            deadline
        } else {
            deadline.min(Instant::now() + QUIET)
        };
        let Some((sid, message)) = conn.next(wait_until.min(Instant::now() + QUIET)) else {
            if conn.closed {
                break;
            }
            if Instant::now() >= wait_until {
                break;
            }
            continue;
        };
        last_frame = Instant::now();
        assert!(
            sid == 0 || asked.named.contains(&sid),
            "the node answered sid {sid:#x}, which no frame named: {message:?}"
        );
        if sid == 0 {
            fatal_on_connection |= is_fatal(&message);
            bye |= matches!(&message, ServerMessage::Ok(ok) if ok.msg.as_deref() == Some("bye!"));
            continue;
        }
        let entry = seen.entry(sid).or_default();
        match &message {
            ServerMessage::Row(row)
                if row.field.first().map(|f| f.as_ref()) == Some(&b"barrier\0"[..]) =>
            {
                entry.barrier_row = true;
            }
            ServerMessage::StmtExecuteOk(_) if entry.barrier_row => entry.barrier_done = true,
            ServerMessage::TokenDone(_) => {
                // A result waits for more budget: give it plenty, as a client would.
                let mut offer = Vec::new();
                frame(
                    &mut offer,
                    sid,
                    ClientType::TokenOffer,
                    &pb::sql::TokenOffer {
                        token: Some(1 << 20),
                    },
                );
                let _ = conn.stream.write_all(&offer);
                *offers.entry(sid).or_default() += 1;
            }
            _ => {}
        }
        if is_terminal(&message) {
            entry.answers += 1;
            // 7002 (no session) and 1040 (SESS_NEW refused) answer one frame each; any other FATAL
            // ends a live session and answers all its outstanding requests at once.
            if is_fatal(&message) && !is_one_frame_fatal(&message) {
                entry.fatal = true;
            }
            if is_fatal(&message) {
                entry.barrier_row = false;
            }
        }
    }

    // Never more answers than the frames asked for.
    for (sid, s) in &seen {
        let most = asked.requests.get(sid).copied().unwrap_or(0)
            + asked.maybe.get(sid).copied().unwrap_or(0)
            + offers.get(sid).copied().unwrap_or(0);
        assert!(
            s.answers <= most,
            "sid {sid:#x}: {} answers to {most} frames that may be answered",
            s.answers
        );
    }
    if await_answers && authenticated {
        if conn.closed {
            // The node may end the connection only with a FATAL on sid 0, or after CON_CLOSE.
            assert!(
                fatal_on_connection || bye,
                "the node closed the connection without a FATAL on sid 0 (or CON_CLOSE's OK)"
            );
        } else if !matches!(script.ending, Ending::ConnectionClose) {
            // Every request on a sid that no FATAL ended got its answer, the barrier included.
            for sid in &session_sids {
                let s = seen.get(sid);
                let answered = s.map_or(0, |s| s.answers);
                let wanted = asked.requests.get(sid).copied().unwrap_or(0);
                assert!(
                    s.is_some_and(|s| s.fatal || s.barrier_done) || answered >= wanted,
                    "sid {sid:#x}: {answered} of {wanted} requests answered within {PATIENCE:?}"
                );
            }
        }
    }

    if script.reset {
        let _ = socket2::SockRef::from(&conn.stream).set_linger(Some(Duration::ZERO));
    }
    let t1 = t0.elapsed();
    if std::env::var_os("XRPC_FUZZ_TRACE").is_some() {
        eprintln!("before drop: closed by node = {}", conn.closed);
    }
    let barriers_done = seen.values().filter(|s| s.barrier_done).count();
    drop(conn);
    wait_for_idle(node);
    if std::env::var_os("XRPC_FUZZ_TRACE").is_some() {
        eprintln!(
            "TRACE barriers={}/{} steps={} ending={:?} await={} auth={} talk={:?} idle={:?}",
            barriers_done,
            session_sids.len(),
            script.steps.len(),
            std::mem::discriminant(&script.ending),
            await_answers,
            authenticated,
            t1,
            t0.elapsed() - t1
        );
    }
});
