//! End-to-end: the operator's counters in `SHOW STATUS` (statements by kind, errors by code class,
//! rows sent, sessions, the engine's statements and round trips) move by exactly the load sent.

use crate::common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Client, EngineKind, TestNode, text};
use xrpc_client::plan::{Plan, placeholder};
use xrpc_proto::frame::{HeaderFormat, encode_frame};
use xrpc_proto::messages::{ClientType, ServerMessage, pb};

/// Every `SHOW STATUS` row as numbers (non-numeric ones left out), and how many rows it had.
fn status(client: &mut Client, sid: u64) -> (HashMap<String, u64>, u64) {
    let outcome = client.query(sid, "SHOW STATUS");
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let values = outcome
        .rows
        .iter()
        .filter_map(|row| Some((text(&row[0]), text(&row[1]).parse().ok()?)))
        .collect();
    (values, outcome.rows.len() as u64)
}

/// How much each named counter moved between two `status` reads.
fn moved<'a>(
    before: &'a HashMap<String, u64>,
    after: &'a HashMap<String, u64>,
) -> impl Fn(&str) -> u64 + 'a {
    move |name| {
        let value = |map: &HashMap<String, u64>| {
            *map.get(name)
                .unwrap_or_else(|| panic!("SHOW STATUS has no {name}"))
        };
        value(after) - value(before)
    }
}

const INSERTS: u64 = 3;
const SELECTS: u64 = 4;
const FAILING_SELECTS: u64 = 2;

/// Runs the known load on session 1: `INSERTS` inserts into `t`, `SELECTS` selects of its rows,
/// `FAILING_SELECTS` selects of a missing table (1146), one digest-only request that misses the
/// cache (6000), and one AUTO_SP savepoint.
fn run_load(client: &mut Client) {
    for i in 0..INSERTS {
        let outcome = client.query(1, &format!("insert into t values ({i})"));
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
    }
    for _ in 0..SELECTS {
        assert_eq!(
            client.query(1, "select a from t").rows.len() as u64,
            INSERTS
        );
    }
    for _ in 0..FAILING_SELECTS {
        let outcome = client.query(1, "select * from no_such_table");
        assert_eq!(outcome.error.map(|e| e.code), Some(1146));
    }
    client.send_sql(
        1,
        pb::sql::StmtExecute {
            stmt_digest: Some(Bytes::from_static(b"never sent")),
            ..Default::default()
        },
    );
    assert_eq!(client.read_outcome(1).error.map(|e| e.code), Some(6000));
}

fn statements_errors_and_rows_move_by_exactly_the_load(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let created = client.query(1, "create table t (a int primary key)");
    assert!(created.error.is_none(), "{:?}", created.error);
    let (before, before_rows) = status(&mut client, 1);
    run_load(&mut client);
    let (after, _) = status(&mut client, 1);
    let moved = moved(&before, &after);
    let expected = [
        ("xrpc_com_insert", INSERTS),
        ("xrpc_com_select", SELECTS + FAILING_SELECTS),
        // The first SHOW STATUS: a request counts once its answer is written.
        ("xrpc_com_admin", 1),
        ("xrpc_com_update", 0),
        ("xrpc_com_delete", 0),
        ("xrpc_com_ddl", 0),
        ("xrpc_com_transaction", 0),
        ("xrpc_com_plan", 0),
        ("xrpc_com_other", 0),
        ("xrpc_questions", INSERTS + SELECTS + FAILING_SELECTS + 1),
        ("xrpc_errors_server", FAILING_SELECTS),
        ("xrpc_errors_cache_miss", 1),
        ("xrpc_errors_client", 0),
        ("xrpc_errors_node", 0),
        ("xrpc_errors", FAILING_SELECTS + 1),
        ("xrpc_rows_sent", SELECTS * INSERTS + before_rows),
        ("xrpc_sessions_opened", 0),
        ("xrpc_sessions_closed", 0),
    ];
    let actual: Vec<(&str, u64)> = expected.iter().map(|&(n, _)| (n, moved(n))).collect();
    assert_eq!(actual, expected, "counters moved by other than the load");
    match engine {
        // Each statement SQLite steps: the inserts and the selects; the failing selects never
        // compile, and SHOW STATUS is the node's.
        EngineKind::Sqlite => assert_eq!(moved("xrpc_engine_statements"), INSERTS + SELECTS),
        // Every statement reaches the backend, the first SHOW STATUS included (the backend's
        // rows come first); the backend failed the failing selects.
        EngineKind::Mysql => {
            let sent = INSERTS + SELECTS + FAILING_SELECTS + 1;
            assert_eq!(
                (
                    moved("xrpc_backend_statements"),
                    moved("xrpc_backend_errors")
                ),
                (sent, FAILING_SELECTS)
            );
        }
    }
}

fn plans_and_savepoints_count_as_their_kinds(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    for statement in [
        "create table t (a int primary key)",
        "insert into t values (1)",
        "begin",
    ] {
        let outcome = client.query(1, statement);
        assert!(outcome.error.is_none(), "{statement}: {:?}", outcome.error);
    }
    let (before, _) = status(&mut client, 1);
    let plan = Plan::get("t").key([("a", placeholder(0))]).build();
    client.send(1, ClientType::ExecPlanRead, &plan.request(&[1i64.into()]));
    assert_eq!(client.read_outcome(1).rows.len(), 1);
    client.send(
        1,
        ClientType::AutoSp,
        &pb::exec_plan::AutoSp {
            op: pb::exec_plan::auto_sp::Operation::Set as i32,
            sp_name: Bytes::from_static(b"sp1"),
            reset_error: None,
        },
    );
    // Counted as run whether the engine takes it or not (the savepoint's answer is the
    // engine's; the counters are checked here, not the answer).
    let savepoint_failed = u64::from(client.read_outcome(1).error.is_some());
    let (after, _) = status(&mut client, 1);
    let moved = moved(&before, &after);
    assert_eq!(
        (
            moved("xrpc_com_plan"),
            moved("xrpc_com_transaction"),
            moved("xrpc_com_admin"),
            moved("xrpc_questions"),
            moved("xrpc_errors"),
        ),
        (1, 1, 1, 3, savepoint_failed)
    );
}

on_both_engines!(
    statements_errors_and_rows_move_by_exactly_the_load,
    plans_and_savepoints_count_as_their_kinds,
);

/// Polls `SHOW STATUS` on `sid` until `name` reaches `value` (bounded).
fn wait_for_status(client: &mut Client, sid: u64, name: &str, value: u64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (now, _) = status(client, sid);
        if now[name] == value {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{name} stayed {} instead of reaching {value}",
            now[name]
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sessions_opened_and_closed_are_counted_with_the_fatal_that_ends_one() {
    let node = TestNode::start();
    let mut observer = node.client();
    observer.new_session(1);
    let (before, _) = status(&mut observer, 1);
    let mut client = node.client();
    for sid in 1..=3 {
        client.new_session(sid);
    }
    client.send(1, ClientType::SessionClose, &pb::session::Close::default());
    assert!(matches!(client.recv_on(1), Some(ServerMessage::Ok(_))));
    client.send(
        2,
        ClientType::KillSession,
        &pb::session::KillSession {
            r#type: pb::session::kill_session::KillType::Connection as i32,
            x_session_id: 0,
        },
    );
    let Some(ServerMessage::Error(killed)) = client.recv_on(2) else {
        panic!("SESS_KILL CONNECTION answers with its FATAL");
    };
    assert_eq!(killed.code, 7005);
    // The killed session is counted as it ends, which may be a moment after its FATAL went out.
    wait_for_status(
        &mut observer,
        1,
        "xrpc_sessions_closed",
        before["xrpc_sessions_closed"] + 2,
    );
    let (after, _) = status(&mut observer, 1);
    let moved = moved(&before, &after);
    assert_eq!(
        (
            moved("xrpc_sessions_opened"),
            moved("xrpc_sessions_closed"),
            moved("xrpc_errors_node"),
        ),
        (3, 2, 1)
    );
    // The third session ends with its connection.
    drop(client);
    wait_for_status(
        &mut observer,
        1,
        "xrpc_sessions_closed",
        before["xrpc_sessions_closed"] + 3,
    );
}

/// Errors of a connection rather than a session count in their own class, `connection`: a
/// refused authentication and a frame that cannot be decoded (which ends its connection) move
/// `xrpc_errors_connection`, and `xrpc_errors` with it; no session class moves.
#[test]
fn connection_errors_are_counted_in_their_own_class() {
    let node = TestNode::start();
    let mut observer = node.client();
    observer.new_session(1);
    let (before, _) = status(&mut observer, 1);

    let mut refused = Client::connect(node.addr());
    let err = refused
        .authenticate("nobody", "guess")
        .expect_err("an unknown user is refused");
    assert_eq!(err.code, 1045);

    let mut garbled = node.client();
    let mut frame = Vec::new();
    encode_frame(
        &mut frame,
        HeaderFormat::Standard,
        1,
        ClientType::ExecSql.id(),
        b"\xff\xff\xff",
    );
    garbled.send_raw(&frame);
    let Some(ServerMessage::Error(fatal)) = garbled.recv_on(0) else {
        panic!("an undecodable frame is answered with an error on sid 0");
    };
    assert_eq!(fatal.severity, Some(1));

    let (after, _) = status(&mut observer, 1);
    let moved = moved(&before, &after);
    assert_eq!(
        (
            moved("xrpc_errors_connection"),
            moved("xrpc_errors"),
            moved("xrpc_errors_server") + moved("xrpc_errors_xprotocol"),
        ),
        (2, 2, 0)
    );
}
