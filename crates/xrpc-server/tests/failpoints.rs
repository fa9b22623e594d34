//! Injected faults at the node's fail points (feature `failpoints`): receive, send, engine execute
//! and engine commit. Every fault ends in a clear error or a closed connection; afterwards the
//! node's connection, session and engine-connection counts are back at their baseline, and every
//! write the node acknowledged is there.
//!
//! Run with `cargo test -p xrpc-server --features failpoints --test failpoints`. Fail points are
//! process-wide, so each test holds a [`fail::FailScenario`], which runs them one at a time.

#![cfg(feature = "failpoints")]

mod common;

use std::time::{Duration, Instant};

use common::{Client, Outcome, TestNode, sql_stmt, status_value, wait_until};
use xrpc_proto::codes;
use xrpc_proto::messages::{ServerMessage, pb};
use xrpc_proto::value::Value;

/// One request's end, or `None` when the connection closed first.
fn try_outcome(client: &mut Client, sid: u64) -> Option<Result<(), pb::Error>> {
    loop {
        match client.recv_on(sid)? {
            ServerMessage::StmtExecuteOk(_) => return Some(Ok(())),
            ServerMessage::Error(err) => return Some(Err(err)),
            _ => {}
        }
    }
}

/// Runs `sql` on `sid`; `None` when the connection closed first.
fn try_query(client: &mut Client, sid: u64, sql: &str) -> Option<Result<(), pb::Error>> {
    client.try_send_sql(sid, &sql_stmt(sql)).ok()?;
    try_outcome(client, sid)
}

fn ok(outcome: Outcome) {
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
}

/// A node with a table `t` and an observer connection (session 1) to read its status.
fn node_with_table() -> (TestNode, Client) {
    let node = TestNode::start();
    let mut observer = node.client();
    observer.new_session(1);
    ok(observer.query(1, "create table t (id integer primary key, v text)"));
    (node, observer)
}

/// Waits until only the observer's connection and session are left and no engine connection is
/// borrowed.
fn back_at_baseline(observer: &mut Client) {
    wait_until(
        Duration::from_secs(20),
        "the node did not return to its baseline",
        || {
            status_value(observer, 1, "xrpc_tcp_connections") == "1"
                && status_value(observer, 1, "xrpc_worker_sessions") == "1"
                && status_value(observer, 1, "xrpc_total_sessions") == "1"
                && status_value(observer, 1, "xrpc_engine_borrowed") == "0"
        },
    );
}

fn count(observer: &mut Client, sql: &str) -> i64 {
    match observer.query(1, sql).scalar() {
        Value::Sint(n) => *n,
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn a_receive_fault_closes_that_connection_only() {
    let scenario = fail::FailScenario::setup();
    let (node, mut observer) = node_with_table();
    let mut victim = node.client();
    victim.new_session(1);
    ok(victim.query(1, "begin"));
    ok(victim.query(1, "insert into t values (1, 'uncommitted')"));
    fail::cfg("xrpc_recv", "1*return").unwrap();
    assert_eq!(
        try_query(&mut victim, 1, "commit"),
        None,
        "the connection ends"
    );
    fail::remove("xrpc_recv");
    back_at_baseline(&mut observer);
    assert_eq!(
        count(&mut observer, "select count(*) from t"),
        0,
        "never committed"
    );
    ok(observer.query(1, "insert into t values (2, 'lock is free')"));
    scenario.teardown();
}

#[test]
fn a_send_fault_closes_the_connection_and_frees_its_sessions() {
    let scenario = fail::FailScenario::setup();
    let (node, mut observer) = node_with_table();
    let mut victim = node.client();
    victim.new_session(1);
    victim.new_session(2);
    ok(victim.query(2, "begin"));
    ok(victim.query(2, "insert into t values (1, 'uncommitted')"));
    fail::cfg("xrpc_send", "1*return").unwrap();
    // The answer cannot be sent: the connection ends, and the open transaction with it.
    assert_eq!(try_query(&mut victim, 1, "select 1"), None);
    fail::remove("xrpc_send");
    back_at_baseline(&mut observer);
    assert_eq!(count(&mut observer, "select count(*) from t"), 0);
    ok(observer.query(1, "insert into t values (2, 'lock is free')"));
    scenario.teardown();
}

#[test]
fn an_engine_execute_fault_is_a_clear_error_and_the_session_goes_on() {
    let scenario = fail::FailScenario::setup();
    let (node, mut observer) = node_with_table();
    let mut client = node.client();
    client.new_session(1);
    ok(client.query(1, "begin"));
    ok(client.query(1, "insert into t values (1, 'kept')"));
    fail::cfg("xrpc_engine_execute", "1*return").unwrap();
    let err = client
        .query(1, "insert into t values (2, 'failed')")
        .error
        .expect("the injected fault");
    fail::remove("xrpc_engine_execute");
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.msg.as_str()),
        (
            codes::ENGINE_ERROR.code,
            "HY000",
            "fail point xrpc_engine_execute"
        )
    );
    ok(client.query(1, "commit"));
    assert_eq!(count(&mut observer, "select count(*) from t"), 1);
    assert_eq!(
        count(&mut observer, "select count(*) from t where id = 1"),
        1
    );
    drop(client);
    back_at_baseline(&mut observer);
    scenario.teardown();
}

#[test]
fn a_commit_fault_rolls_back_and_says_so() {
    let scenario = fail::FailScenario::setup();
    let (node, mut observer) = node_with_table();
    let mut client = node.client();
    client.new_session(1);
    ok(client.query(1, "begin"));
    ok(client.query(1, "insert into t values (1, 'rolled back')"));
    fail::cfg("xrpc_engine_commit", "1*return").unwrap();
    let err = client.query(1, "commit").error.expect("the injected fault");
    fail::remove("xrpc_engine_commit");
    assert_eq!(err.code, codes::ENGINE_ERROR.code);
    assert!(err.msg.contains("rolled back"), "{}", err.msg);
    assert_eq!(count(&mut observer, "select count(*) from t"), 0);
    // The session is usable, outside any transaction.
    ok(client.query(1, "insert into t values (2, 'after')"));
    assert_eq!(count(&mut observer, "select count(*) from t"), 1);
    drop(client);
    back_at_baseline(&mut observer);
    scenario.teardown();
}

/// Every fail point at once, at random, under a write load that reconnects whenever its
/// connection ends: every acknowledged commit is there afterwards, and nothing is left behind.
#[test]
fn random_faults_lose_nothing_acknowledged() {
    const ROUNDS: i64 = 400;
    const BUDGET: Duration = Duration::from_secs(20);
    let scenario = fail::FailScenario::setup();
    let (node, mut observer) = node_with_table();
    for (point, action) in [
        ("xrpc_recv", "3%return"),
        ("xrpc_send", "3%return"),
        ("xrpc_engine_execute", "5%return"),
        ("xrpc_engine_commit", "10%return"),
    ] {
        fail::cfg(point, action).unwrap();
    }
    let started = Instant::now();
    let mut acknowledged = Vec::new();
    let (mut errors, mut closed) = (0u32, 0u32);
    let mut client: Option<Client> = None;
    for id in 0..ROUNDS {
        if started.elapsed() > BUDGET {
            break;
        }
        let session = match client.as_mut() {
            Some(session) => session,
            None => {
                // Connecting itself may meet a fault; try again until a session is open.
                let mut fresh = Client::connect(node.addr());
                match fresh.try_authenticate("root", "") {
                    Some(Ok(())) => {}
                    Some(Err(err)) => panic!("root refused: {err:?}"),
                    None => {
                        closed += 1;
                        continue;
                    }
                }
                let opened = fresh.try_send(
                    1,
                    xrpc_proto::messages::ClientType::NewSession,
                    &pb::session::NewSession::default(),
                );
                match opened.ok().and_then(|()| fresh.recv_on(1)) {
                    Some(ServerMessage::Ok(_)) => client.insert(fresh),
                    _ => {
                        closed += 1;
                        continue;
                    }
                }
            }
        };
        let steps = [
            "begin".to_owned(),
            format!("insert into t values ({id}, 'v{id}')"),
            "commit".to_owned(),
        ];
        let mut committed = true;
        for step in &steps {
            match try_query(session, 1, step) {
                Some(Ok(())) => {}
                Some(Err(err)) => {
                    errors += 1;
                    assert_eq!(err.code, codes::ENGINE_ERROR.code, "{err:?}");
                    assert!(err.msg.starts_with("fail point"), "{err:?}");
                    // Leave no transaction open behind a failed step.
                    let _ = try_query(session, 1, "rollback");
                    committed = false;
                    break;
                }
                None => {
                    closed += 1;
                    client = None;
                    committed = false;
                    break;
                }
            }
        }
        if committed {
            acknowledged.push(id);
        }
    }
    for point in [
        "xrpc_recv",
        "xrpc_send",
        "xrpc_engine_execute",
        "xrpc_engine_commit",
    ] {
        fail::remove(point);
    }
    drop(client);
    back_at_baseline(&mut observer);
    for id in &acknowledged {
        assert_eq!(
            count(
                &mut observer,
                &format!("select count(*) from t where id = {id}")
            ),
            1,
            "acknowledged commit {id} is lost"
        );
    }
    eprintln!(
        "random_faults_lose_nothing_acknowledged: {} commits acknowledged, {errors} injected \
         errors, {closed} connections closed by injected faults, in {:?}",
        acknowledged.len(),
        started.elapsed()
    );
    assert!(
        acknowledged.len() > 50 && errors > 5 && closed > 5,
        "too few faults to mean anything"
    );
    scenario.teardown();
}
