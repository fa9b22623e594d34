//! End-to-end: the data node over real TCP, checked against the flows of `docs/PROTOCOL.md`.

use crate::common;

use std::time::Duration;

use bytes::Bytes;
use common::{Client, EngineKind, TestNode, arg_sint, arg_text, sql_burst, sql_stmt, text};
use xrpc_proto::codes;
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_proto::value::Value;

const AUTO: u64 = 0x8000_0000_0000_0000;

// The tests that reach the engine and hold on every engine run on both: SQLite and the mysql
// engine in front of the binary's one MariaDB (`xrpc_testkit::shared_database`).
on_both_engines!(
    session_lifecycle_new_query_close,
    sess_new_and_first_query_may_be_sent_back_to_back,
    statements_without_result_set_send_rows_affected_local_then_ok,
    query_sends_metadata_rows_fetch_done_then_ok,
    sql_error_sends_error_and_nothing_after_and_the_session_stays_usable,
    cascading_error_returns_the_stored_error_without_running,
    statement_arguments_bind_to_placeholders,
    rows_and_chunks_carry_the_same_values,
    token_flow_control_pauses_until_offered,
    show_variables_lists_the_isolation_level_under_both_names,
    show_variables_where_finds_either_isolation_name,
    both_isolation_variables_read_the_same_value,
    auto_sp_rolls_back_to_a_savepoint_and_releases_it,
);

/// The node's live sessions, auto-commit ones included.
fn total_sessions(node: &TestNode) -> usize {
    node.node()
        .shared()
        .counters
        .total_sessions
        .load(std::sync::atomic::Ordering::Acquire)
}

// ---------------------------------------------------------------------------------------------
// Connection level

#[test]
fn capabilities_probe_works_before_and_after_authentication() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    for round in 0..2 {
        client.send(
            0,
            ClientType::CapabilitiesGet,
            &pb::connection::CapabilitiesGet::default(),
        );
        let Some(ServerMessage::Capabilities(caps)) = client.recv_on(0) else {
            panic!("round {round}: no capabilities");
        };
        assert_eq!(caps.capabilities[0].name, "polarx_rpc");
        let scalar = caps.capabilities[0].value.scalar.as_ref().unwrap();
        assert_eq!(scalar.v_unsigned_int, Some(1));
        if round == 0 {
            client.authenticate("root", "").unwrap();
        }
    }
}

#[test]
fn right_password_authenticates_and_wrong_one_is_access_denied() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    let err = client.authenticate("app", "wrong").unwrap_err();
    assert_eq!((err.code, err.sql_state.as_str()), (1045, "28000"));
    assert_eq!(
        err.severity,
        Some(0),
        "a wrong password is an ERROR, not FATAL"
    );
    // The connection stays open for a retry.
    client.authenticate("app", "s3cret").unwrap();
    client.new_session(1);
    assert_eq!(client.query(1, "select 1").scalar(), &Value::Sint(1));
}

#[test]
fn unknown_user_is_access_denied() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    assert_eq!(client.authenticate("nobody", "").unwrap_err().code, 1045);
}

#[test]
fn requests_before_authentication_are_denied() {
    let node = TestNode::start();
    let mut client = Client::connect(node.addr());
    common::send_new_session(&mut client, 1);
    let err = common::error_on(&mut client, 1);
    assert_eq!(err.code, 1045);
}

#[test]
fn repeated_authentication_failures_close_the_connection() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "xrpc_auth_max_failures", 2);
    });
    let mut client = Client::connect(node.addr());
    assert!(client.authenticate("app", "x").is_err());
    let err = client.authenticate("app", "y").unwrap_err();
    // 1045 again, not MySQL's 1129 ("host blocked"), but FATAL: the connection ends.
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.severity),
        (codes::ACCESS_DENIED.code, "28000", Some(1))
    );
    assert!(client.is_closed_by_server(Duration::from_secs(5)));
}

// ---------------------------------------------------------------------------------------------
// Sessions

fn session_lifecycle_new_query_close(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(7);
    assert_eq!(client.query(7, "select 40 + 2").scalar(), &Value::Sint(42));
    common::send_session_close(&mut client, 7);
    assert!(matches!(client.recv_on(7), Some(ServerMessage::Ok(_))));
    // The sid is gone now.
    client.send_sql(7, sql_stmt("select 1"));
    let err = common::error_on(&mut client, 7);
    assert_eq!(err.msg, "Session not found.");
    assert_eq!(err.severity, Some(1));
}

#[test]
fn unknown_sid_gets_fatal_session_not_found() {
    let node = TestNode::start();
    let mut client = node.client();
    client.send_sql(99, sql_stmt("select 1"));
    let err = common::error_on(&mut client, 99);
    assert_eq!(
        (err.code, err.msg.as_str(), err.sql_state.as_str()),
        (7002, "Session not found.", "HY000")
    );
}

fn sess_new_and_first_query_may_be_sent_back_to_back(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    common::send_new_session(&mut client, 3);
    client.send_sql(3, sql_stmt("select 'x'"));
    assert!(
        matches!(client.recv_on(3), Some(ServerMessage::Ok(_))),
        "OK comes first"
    );
    assert_eq!(text(client.read_outcome(3).scalar()), "x");
}

#[test]
fn duplicate_sess_new_is_fatal() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(5);
    common::send_new_session(&mut client, 5);
    let err = common::error_on(&mut client, 5);
    assert_eq!(err.code, codes::DUPLICATE_SESSION.code);
}

fn statements_without_result_set_send_rows_affected_local_then_ok(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let created = client.query(
        1,
        "create table t (id integer primary key auto_increment, v text)",
    );
    assert_eq!(
        created.rows_affected(),
        Some(0),
        "always a ROWS_AFFECTED notice, even for 0"
    );
    let inserted = client.query(1, "insert into t (v) values ('a'), ('b')");
    assert_eq!(inserted.rows_affected(), Some(2));
    // The first id of a multi-row insert, as MySQL reports it.
    assert_eq!(inserted.last_insert_id(), Some(1));
    // The notice is explicitly LOCAL and comes right before StmtExecuteOk.
    let n = inserted.messages.len();
    assert!(matches!(
        inserted.messages[n - 1],
        ServerMessage::StmtExecuteOk(_)
    ));
    let ServerMessage::Notice(frame) = &inserted.messages[0] else {
        panic!("first message must be the notice: {:?}", inserted.messages);
    };
    assert_eq!(frame.scope, Some(pb::notice::frame::Scope::Local as i32));
}

fn query_sends_metadata_rows_fetch_done_then_ok(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let outcome = client.query(1, "select 1 as a, 'two' as b");
    let kinds: Vec<&str> = outcome
        .messages
        .iter()
        .map(|m| match m {
            ServerMessage::ColumnMetaData(_) => "meta",
            ServerMessage::Row(_) => "row",
            ServerMessage::FetchDone(_) => "done",
            ServerMessage::StmtExecuteOk(_) => "ok",
            ServerMessage::Notice(_) => "notice",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["meta", "meta", "row", "done", "ok"]);
    assert_eq!(
        outcome.columns[1].collation,
        Some(45),
        "text is not binary collation"
    );
}

fn sql_error_sends_error_and_nothing_after_and_the_session_stays_usable(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let failed = client.query(1, "selec 1");
    let err = failed.error.as_ref().unwrap();
    assert_eq!((err.code, err.sql_state.as_str()), (1064, "42000"));
    assert_eq!(err.severity, Some(0));
    assert!(client.query(1, "select * from missing").error_code() == Some(1146));
    // Nothing followed the errors: the next answer is this query's.
    assert_eq!(client.query(1, "select 2").scalar(), &Value::Sint(2));
}

fn cascading_error_returns_the_stored_error_without_running(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    client.query(1, "create table c (v integer)");
    // Fire-and-forget: a failing statement, then a pipelined insert with reset_error = false.
    client.send_sql(1, sql_stmt("insert into nowhere values (1)"));
    let mut guarded = sql_stmt("insert into c values (1)");
    guarded.reset_error = Some(false);
    client.send_sql(1, guarded);
    let first = client.read_outcome(1);
    let second = client.read_outcome(1);
    assert_eq!(first.error_code(), Some(1146));
    assert_eq!(second.error, first.error, "the stored error comes back");
    // The insert did not run.
    assert_eq!(
        client.query(1, "select count(*) from c").scalar(),
        &Value::Sint(0)
    );
    // A request without reset_error runs, and its success clears the stored error.
    let mut after = sql_stmt("select 1");
    after.reset_error = Some(false);
    client.send_sql(1, after);
    assert_eq!(client.read_outcome(1).scalar(), &Value::Sint(1));
}

fn statement_arguments_bind_to_placeholders(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let mut stmt = sql_stmt("select ? + 1, ?");
    stmt.args = vec![arg_sint(41), arg_text("hi")];
    client.send_sql(1, stmt);
    let outcome = client.read_outcome(1);
    assert_eq!(
        outcome.rows,
        vec![vec![
            Value::Sint(42),
            Value::Bytes(Bytes::from_static(b"hi"))
        ]]
    );
}

#[test]
fn ten_thousand_pipelined_requests_answer_in_order() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let total = 10_000;
    let mut sent = 0;
    let mut received = 0;
    // Keep under max_queued_messages (128) in flight.
    while received < total {
        while sent < total && sent - received < 100 {
            client.send_sql(1, sql_stmt(&format!("select {sent}")));
            sent += 1;
        }
        let outcome = client.read_outcome(1);
        assert_eq!(
            outcome.scalar(),
            &Value::Sint(received as i64),
            "answers in order"
        );
        received += 1;
    }
}

#[test]
fn a_thousand_sessions_on_one_connection() {
    let node = TestNode::start();
    let mut client = node.client();
    // In waves below the work queue's capacity (256): a burst of more runnable sessions than the
    // queue holds fails the excess with "Work queue overflow.", as the next test shows.
    for wave in (1..=1000u64).collect::<Vec<_>>().chunks(200) {
        for &sid in wave {
            common::send_new_session(&mut client, sid);
            client.send_sql(sid, sql_stmt(&format!("select {sid}")));
        }
        for &sid in wave {
            assert!(matches!(client.recv_on(sid), Some(ServerMessage::Ok(_))));
            assert_eq!(client.read_outcome(sid).scalar(), &Value::Sint(sid as i64));
        }
    }
    // All thousand are still open and usable.
    for sid in (1..=1000u64).step_by(97) {
        assert_eq!(client.query(sid, "select 1").scalar(), &Value::Sint(1));
    }
}

/// With the spill on, a burst beyond the work queue is served whole: on groups spread over
/// several CPUs the sessions that find the queue full wait in the spill list; on one-CPU groups
/// (bound cores) they run on the worker that received them.
#[test]
fn a_burst_beyond_the_work_queue_spills_and_every_session_is_served() {
    for bind_cores in [false, true] {
        let node = TestNode::start_with(move |net, _| {
            net.work_queue_capacity = 128;
            net.bind_cores = bind_cores;
        });
        let mut client = node.client();
        let sessions = 600u64;
        for sid in 1..=sessions {
            client.new_session(sid);
        }
        client.send_raw(&sql_burst(
            (1..=sessions).map(|sid| (sid, format!("select {sid}"))),
        ));
        for sid in 1..=sessions {
            assert_eq!(
                client.read_outcome(sid).scalar(),
                &Value::Sint(sid as i64),
                "session {sid}, bind_cores {bind_cores}"
            );
        }
    }
}

#[test]
fn answers_of_a_burst_share_writes_and_each_session_keeps_its_order() {
    let node = TestNode::start();
    let mut client = node.client();
    let sessions = 200u64;
    let per_session = 3u64;
    for sid in 1..=sessions {
        client.new_session(sid);
    }
    // One write: every session gets three pipelined requests, so the workers run many sessions
    // of this connection in one turn, and a session's later requests may run on another worker
    // than its first, with its first answer still deferred (xrpc_net::turn).
    let burst = sql_burst((0..per_session).flat_map(|round| {
        (1..=sessions).map(move |sid| (sid, format!("select {}", sid * 10 + round)))
    }));
    let before = node.node().server().stats();
    client.send_raw(&burst);
    for round in 0..per_session {
        for sid in 1..=sessions {
            assert_eq!(
                client.read_outcome(sid).scalar(),
                &Value::Sint((sid * 10 + round) as i64),
                "session {sid}, request {round}: answers in request order"
            );
        }
    }
    let after = node.node().server().stats();
    let deferred = after.sends_deferred - before.sends_deferred;
    let writes = after.deferred_writes - before.deferred_writes;
    assert_eq!(
        deferred,
        sessions * per_session,
        "every answer ends deferred"
    );
    assert!(
        writes * 4 <= deferred,
        "{writes} writes for {deferred} deferred answers"
    );
}

#[test]
fn with_spill_off_a_full_work_queue_fails_the_excess_sessions_with_fatal() {
    let node = TestNode::start_with(|net, shared| {
        net.work_queue_capacity = 128;
        shared
            .vars
            .set_global(
                "xrpc_work_queue_spill",
                &xrpc_server::vars::SetValue::Word("OFF".into()),
            )
            .unwrap();
    });
    let mut client = node.client();
    let sessions = 600u64;
    for sid in 1..=sessions {
        client.new_session(sid);
    }
    // One write makes every session runnable in the same receive pass.
    client.send_raw(&sql_burst((1..=sessions).map(|sid| (sid, "select 1"))));
    let (mut served, mut overflowed) = (0, 0);
    for sid in 1..=sessions {
        let outcome = client.read_outcome(sid);
        match outcome.error {
            None => served += 1,
            Some(err) => {
                assert_eq!(
                    (err.code, err.msg.as_str(), err.severity),
                    (7004, "Work queue overflow.", Some(1))
                );
                overflowed += 1;
            }
        }
    }
    assert!(served >= 128, "served {served}");
    assert!(
        overflowed > 0,
        "a burst of {sessions} must overflow a queue of 128"
    );
    assert_node_still_serves(&node);
}

#[test]
fn queue_overflow_is_fatal_and_removes_the_session() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "xrpc_max_queued_messages", 16);
    });
    let mut client = node.client();
    client.new_session(1);
    // One slow statement keeps the session busy while the queue fills up.
    let slow = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000000) select count(*) from n";
    for _ in 0..40 {
        client.send_sql(1, sql_stmt(slow));
    }
    let mut saw_overflow = false;
    while let Some(message) = client.recv_on(1) {
        if let ServerMessage::Error(err) = message
            && err.code == codes::SESSION_QUEUE_OVERFLOW.code
        {
            assert_eq!(err.msg, "Session max_queued_messages limit exceed.");
            saw_overflow = true;
            break;
        }
    }
    assert!(saw_overflow);
    // Other sessions keep working.
    client.new_session(2);
    assert_eq!(client.query(2, "select 5").scalar(), &Value::Sint(5));
}

#[test]
fn too_many_sessions_is_fatal_on_sess_new() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "xrpc_max_sessions", 3);
    });
    let mut client = node.client();
    for sid in 1..=3 {
        client.new_session(sid);
    }
    common::send_new_session(&mut client, 4);
    let err = common::error_on(&mut client, 4);
    assert_eq!((err.code, err.severity), (1040, Some(1)));
    // A closed session's place is free once its OK is read: at the limit, every close
    // followed at once by a SESS_NEW is admitted.
    let mut open = [1u64, 2, 3];
    for round in 0..300u64 {
        let slot = (round % 3) as usize;
        let (closing, opening) = (open[slot], 4 + round);
        common::send_session_close(&mut client, closing);
        assert!(matches!(
            client.recv_on(closing),
            Some(ServerMessage::Ok(_))
        ));
        client.new_session(opening);
        open[slot] = opening;
    }
}

#[test]
fn kill_query_interrupts_the_statement_and_keeps_the_session() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.send_sql(
        1,
        sql_stmt("with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n"),
    );
    // Kill the statement while it runs (kills that come before it starts: tests/it/faults.rs).
    node.wait_until_a_statement_runs();
    client.send(
        1,
        ClientType::KillSession,
        &pb::session::KillSession {
            r#type: pb::session::kill_session::KillType::Query as i32,
            x_session_id: 0,
        },
    );
    let outcome = client.read_outcome(1);
    let err = outcome.error.expect("the statement ends with an error");
    assert_eq!((err.code, err.sql_state.as_str()), (1317, "70100"));
    assert_eq!(client.query(1, "select 3").scalar(), &Value::Sint(3));
}

#[test]
fn sql_kill_names_sessions_by_connection_id() {
    let node = TestNode::start();
    common::check_sql_kill(
        &node,
        "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n",
    );
}

#[test]
fn kill_connection_removes_the_session_with_fatal() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.send(
        1,
        ClientType::KillSession,
        &pb::session::KillSession {
            r#type: pb::session::kill_session::KillType::Connection as i32,
            x_session_id: 0,
        },
    );
    let err = common::error_on(&mut client, 1);
    assert_eq!(
        (err.msg.as_str(), err.sql_state.as_str(), err.severity),
        ("Session is killing.", "70100", Some(1))
    );
    assert_eq!(
        client.query(1, "select 1").error.unwrap().msg,
        "Session not found."
    );
}

#[test]
fn auto_commit_sids_need_no_sess_new_and_refuse_other_messages() {
    let node = TestNode::start();
    let mut client = node.client();
    assert_eq!(client.query(AUTO | 1, "select 9").scalar(), &Value::Sint(9));
    // Again on the same sid: a fresh shared session each time.
    assert_eq!(
        client.query(AUTO | 1, "select 10").scalar(),
        &Value::Sint(10)
    );
    let mut chunked = sql_stmt("select 1");
    chunked.chunk_result = Some(true);
    client.send_sql(AUTO | 2, chunked);
    assert_eq!(
        client.read_outcome(AUTO | 2).error_code(),
        Some(codes::UNSUPPORTED_OPTION.code)
    );
    common::send_session_close(&mut client, AUTO | 3);
    let err = common::error_on(&mut client, AUTO | 3);
    assert_eq!(err.code, codes::UNEXPECTED_MESSAGE.code);
}

#[test]
fn digest_only_request_misses_then_hits_after_the_full_statement() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let digest = Bytes::from_static(b"digest-of-select-7");
    let only_digest = pb::sql::StmtExecute {
        stmt_digest: Some(digest.clone()),
        ..Default::default()
    };
    client.send_sql(1, only_digest.clone());
    let miss = client.read_outcome(1);
    let err = miss.error.unwrap();
    assert_eq!((err.code, err.severity), (6000, Some(0)));
    assert_eq!(miss.messages.len(), 1, "the miss comes before any metadata");
    let mut full = sql_stmt("select 7");
    full.stmt_digest = Some(digest);
    client.send_sql(1, full);
    assert_eq!(client.read_outcome(1).scalar(), &Value::Sint(7));
    client.send_sql(1, only_digest.clone());
    assert_eq!(client.read_outcome(1).scalar(), &Value::Sint(7));
    // The cache is the node's: another connection finds the statement by its digest alone.
    let mut other = node.client();
    other.new_session(1);
    other.send_sql(1, only_digest);
    assert_eq!(other.read_outcome(1).scalar(), &Value::Sint(7));
}

#[test]
fn a_miss_does_not_set_the_stored_error() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.send_sql(
        1,
        pb::sql::StmtExecute {
            stmt_digest: Some(Bytes::from_static(b"unknown")),
            ..Default::default()
        },
    );
    assert_eq!(client.read_outcome(1).error_code(), Some(6000));
    let mut guarded = sql_stmt("select 1");
    guarded.reset_error = Some(false);
    client.send_sql(1, guarded);
    assert_eq!(client.read_outcome(1).scalar(), &Value::Sint(1));
}

fn rows_and_chunks_carry_the_same_values(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    client.query(
        1,
        // Strings short enough for chunks (a longer one falls back to rows on either engine).
        "create table v (i bigint, r double, t varchar(20), b varbinary(20), n integer)",
    );
    client.query(
        1,
        "insert into v values (-5, 2.5, 'txt', x'00ff', null), (9223372036854775807, -0.0, '', x'', 1)",
    );
    let rows = client.query(1, "select i, r, t, b, n from v order by i");
    let mut chunked = sql_stmt("select i, r, t, b, n from v order by i");
    chunked.chunk_result = Some(true);
    client.send_sql(1, chunked);
    let chunks = client.read_outcome(1);
    assert!(
        chunks
            .messages
            .iter()
            .any(|m| matches!(m, ServerMessage::Chunk(_)))
    );
    assert!(
        !chunks
            .messages
            .iter()
            .any(|m| matches!(m, ServerMessage::Row(_)))
    );
    assert_eq!(rows.rows, chunks.rows);
    assert_eq!(rows.rows.len(), 2);
}

fn token_flow_control_pauses_until_offered(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    // 2000 rows of 100-character text (MariaDB stops recursive CTEs at 1000 iterations by
    // default; its sequence engine makes the rows instead).
    let sql = match engine {
        EngineKind::Sqlite => {
            "with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) \
             select i, lpad(i, 100, '0') from n"
        }
        EngineKind::Mysql => "select seq, lpad(seq, 100, '0') from seq_1_to_2000",
    };
    let mut stmt = sql_stmt(sql);
    stmt.token = Some(1); // 1 KiB
    client.send_sql(1, stmt);
    let mut rows = 0;
    let mut token_dones = 0;
    loop {
        match client.recv_on(1).unwrap() {
            ServerMessage::Row(_) => rows += 1,
            ServerMessage::TokenDone(_) => {
                token_dones += 1;
                client.send(
                    1,
                    ClientType::TokenOffer,
                    &pb::sql::TokenOffer { token: Some(16) },
                );
            }
            ServerMessage::StmtExecuteOk(_) => break,
            ServerMessage::Error(e) => panic!("{e:?}"),
            _ => {}
        }
    }
    assert_eq!(rows, 2000);
    assert!(token_dones >= 10, "only {token_dones} TOKEN_DONE");
}

#[test]
fn token_below_minus_one_is_an_error() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let mut stmt = sql_stmt("select 1");
    stmt.token = Some(-2);
    client.send_sql(1, stmt);
    assert_eq!(
        client.read_outcome(1).error_code(),
        Some(codes::INVALID_TOKEN.code)
    );
}

#[test]
fn get_tso_is_monotonic() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let mut last = 0;
    for _ in 0..3 {
        client.send(
            1,
            ClientType::GetTso,
            &pb::exec_plan::GetTso {
                leader_name: Bytes::new(),
                batch_count: 10,
            },
        );
        let Some(ServerMessage::Tso(tso)) = client.recv_on(1) else {
            panic!("expected a TSO");
        };
        assert!(tso.ts >= last + 10);
        last = tso.ts;
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input: each gets its documented error and the node keeps serving everyone else.

fn assert_node_still_serves(node: &TestNode) {
    let mut other = node.client();
    other.new_session(1);
    assert_eq!(other.query(1, "select 11").scalar(), &Value::Sint(11));
}

#[test]
fn oversized_packet_gets_fatal_1153_and_close() {
    let node = TestNode::start_with(|net, _| net.frame.max_packet = 64 * 1024);
    let mut client = node.client();
    let mut header = Vec::new();
    header.extend_from_slice(&1u64.to_le_bytes());
    header.extend_from_slice(&(64 * 1024 + 2u32).to_le_bytes());
    header.push(101);
    client.send_raw(&header);
    let Some(reply) = client.recv() else {
        panic!("expected FATAL before close");
    };
    assert_eq!(reply.sid, 0, "a connection-ending error goes on sid 0");
    let ServerMessage::Error(err) = reply.message else {
        panic!("expected an error, got {reply:?}");
    };
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.severity),
        (1153, "S1000", Some(1))
    );
    assert!(client.is_closed_by_server(Duration::from_secs(5)));
    assert_node_still_serves(&node);
}

#[test]
fn malformed_body_closes_only_that_connection() {
    let node = TestNode::start();
    let mut client = node.client();
    // A KillSession body without its required fields.
    client.send_frame(1, 111, b"\xff\xff");
    let reply = client.recv().expect("an error before close");
    assert_eq!(reply.sid, 0, "a connection-ending error goes on sid 0");
    let ServerMessage::Error(err) = reply.message else {
        panic!("expected an error");
    };
    assert_eq!(err.code, codes::MALFORMED_FRAME.code);
    assert!(client.is_closed_by_server(Duration::from_secs(5)));
    assert_node_still_serves(&node);
}

#[test]
fn unknown_message_type_closes_only_that_connection() {
    let node = TestNode::start();
    let mut client = node.client();
    client.send_frame(1, 200, b"");
    let ServerMessage::Error(err) = client.recv().unwrap().message else {
        panic!("expected an error");
    };
    assert_eq!((err.code, err.sql_state.as_str()), (1047, "08S01"));
    assert!(client.is_closed_by_server(Duration::from_secs(5)));
    assert_node_still_serves(&node);
}

#[test]
fn zero_length_header_closes_only_that_connection() {
    let node = TestNode::start();
    let mut client = node.client();
    let mut header = Vec::new();
    header.extend_from_slice(&1u64.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    header.push(101);
    client.send_raw(&header);
    let ServerMessage::Error(err) = client.recv().unwrap().message else {
        panic!("expected an error");
    };
    assert_eq!(err.code, codes::MALFORMED_FRAME.code);
    assert!(client.is_closed_by_server(Duration::from_secs(5)));
    assert_node_still_serves(&node);
}

#[test]
fn a_vanished_client_mid_result_does_not_disturb_others() {
    let node = TestNode::start();
    {
        let mut client = node.client();
        client.new_session(1);
        client.send_sql(
            1,
            sql_stmt("with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000) select i, lpad(i, 200, '0') from n"),
        );
        // Dropped without reading.
    }
    assert_node_still_serves(&node);
}

#[test]
fn a_slow_client_is_closed_at_net_write_timeout_while_others_are_served() {
    let node = TestNode::start_with(|net, _| net.net_write_timeout = Duration::from_millis(500));
    let mut slow = node.client();
    slow.new_session(1);
    // A large result the client never reads fills both socket buffers.
    slow.send_sql(
        1,
        sql_stmt("with recursive n(i) as (select 1 union all select i + 1 from n where i < 300000) select i, lpad(i, 500, '0') from n"),
    );
    let started = std::time::Instant::now();
    assert_node_still_serves(&node);
    // Not synchronisation: this is the slowness under test. The client reads nothing for 4x the
    // write timeout; reading sooner would drain the socket and let the node's send go through.
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        slow.is_closed_by_server(Duration::from_secs(10)),
        "closed after the write timeout"
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_node_still_serves(&node);
}

#[test]
fn back_to_back_requests_on_one_auto_commit_sid_are_all_answered_and_counted_out() {
    let node = TestNode::start();
    let mut client = node.client();
    // Each request arrives while the previous one's shared session may be retiring: none may be
    // lost, and every retired session must leave the session count.
    for i in 0..2000 {
        assert_eq!(
            client.query(AUTO | 5, &format!("select {i}")).scalar(),
            &Value::Sint(i)
        );
    }
    common::wait_until(
        Duration::from_secs(5),
        "auto-commit sessions were not counted out",
        || total_sessions(&node) == 0,
    );
}

// ---------------------------------------------------------------------------------------------
// FATAL is a session's last frame

fn kill_connection(client: &mut Client, sid: u64) {
    client.send(
        sid,
        ClientType::KillSession,
        &pb::session::KillSession {
            r#type: pb::session::kill_session::KillType::Connection as i32,
            x_session_id: 0,
        },
    );
}

/// Reads `sid` up to its FATAL, checking that everything before it belongs to the killed
/// statement's answer; returns the FATAL.
fn read_through_fatal(client: &mut Client, sid: u64) -> pb::Error {
    loop {
        match client
            .recv_on(sid)
            .expect("connection closed before the FATAL")
        {
            ServerMessage::Error(err) if err.severity == Some(1) => return err,
            ServerMessage::Error(err) => assert_eq!(
                err.code,
                codes::QUERY_INTERRUPTED.code,
                "only the interrupted statement's error may precede the FATAL"
            ),
            ServerMessage::ColumnMetaData(_)
            | ServerMessage::Row(_)
            | ServerMessage::FetchDone(_)
            | ServerMessage::Notice(_)
            | ServerMessage::StmtExecuteOk(_) => {}
            other => panic!("unexpected frame before the FATAL: {other:?}"),
        }
    }
}

#[test]
fn fatal_is_the_last_frame_of_a_session_killed_at_random_moments() {
    use rand::Rng;
    let node = TestNode::start();
    let mut client = node.client();
    let mut rng = xrpc_testkit::rng::seeded_rng();
    client.new_session(1);
    for round in 0..300u32 {
        // A statement that streams a random number of rows, killed a random moment later.
        let rows = rng.gen_range(1..40_000);
        client.send_sql(
            1,
            sql_stmt(&format!(
                "with recursive n(i) as (select 1 union all select i + 1 from n where i < {rows}) select i from n"
            )),
        );
        std::thread::sleep(Duration::from_micros(rng.gen_range(0..3000)));
        kill_connection(&mut client, 1);
        // The sid is reused at once: anything of the old session arriving after its FATAL would be
        // read as the answer to these.
        common::send_new_session(&mut client, 1);
        client.send_sql(1, sql_stmt(&format!("select {round}")));
        let fatal = read_through_fatal(&mut client, 1);
        assert_eq!(fatal.code, codes::SESSION_KILLED.code);
        match client.recv_on(1) {
            Some(ServerMessage::Ok(_)) => {}
            other => panic!("round {round}: a frame followed the FATAL: {other:?}"),
        }
        assert_eq!(
            client.read_outcome(1).scalar(),
            &Value::Sint(i64::from(round)),
            "round {round}"
        );
    }
}

#[test]
fn queue_overflow_ends_the_session_with_one_fatal_and_later_frames_get_session_not_found() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "xrpc_max_queued_messages", 16);
    });
    let mut client = node.client();
    client.new_session(1);
    let slow =
        "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n";
    client.send_sql(1, sql_stmt(slow));
    node.wait_until_a_statement_runs();
    // Sixteen fill the queue, the 17th overflows, and the last two arrive after the session is gone.
    for i in 0..19 {
        client.send_sql(1, sql_stmt(&format!("select {i}")));
    }
    let fatal = read_through_fatal(&mut client, 1);
    assert_eq!(
        (fatal.code, fatal.msg.as_str()),
        (
            codes::SESSION_QUEUE_OVERFLOW.code,
            "Session max_queued_messages limit exceed."
        )
    );
    for _ in 0..2 {
        let err = common::error_on(&mut client, 1);
        assert_eq!(
            (err.code, err.severity),
            (codes::SESSION_NOT_FOUND.code, Some(1))
        );
    }
    // Nothing else follows on the sid: the next frame is the answer to a new SESS_NEW.
    client.new_session(1);
    assert_eq!(client.query(1, "select 5").scalar(), &Value::Sint(5));
    // The running statement was interrupted, not left to run forever.
    common::wait_until(
        Duration::from_secs(10),
        "the overflowed session's statement still runs",
        || node.node().shared().running_statements() == 0,
    );
}

#[test]
fn duplicate_sess_new_ends_the_existing_session_with_its_fatal() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(5);
    assert_eq!(client.query(5, "begin").error, None);
    common::send_new_session(&mut client, 5);
    let err = common::error_on(&mut client, 5);
    assert_eq!(
        (err.code, err.severity),
        (codes::DUPLICATE_SESSION.code, Some(1))
    );
    // One rule: after FATAL on a sid the session is gone, and the sid is free.
    client.send_sql(5, sql_stmt("select 1"));
    let err = common::error_on(&mut client, 5);
    assert_eq!(err.code, codes::SESSION_NOT_FOUND.code);
    client.new_session(5);
    assert_eq!(client.query(5, "select 6").scalar(), &Value::Sint(6));
}

/// SESS_NEW sent right behind a SESS_CLOSE that is still queued (its session's statement is
/// paused for tokens) is the documented `FATAL 7006`, as on PolarDB-X, where the session stays in
/// the map until its close runs: the close never answers, the sid is free afterwards. Made
/// deterministic by the paused statement, which holds the close in the queue.
#[test]
fn sess_new_behind_a_queued_sess_close_is_7006_and_frees_the_sid() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(3);
    let mut stmt = sql_stmt(
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) \
         select i, lpad(i, 100, '0') from n",
    );
    stmt.token = Some(1); // 1 KiB: paused long before its 200 KB
    client.send_sql(3, stmt);
    while !matches!(client.recv_on(3), Some(ServerMessage::TokenDone(_))) {}
    common::send_session_close(&mut client, 3);
    common::send_new_session(&mut client, 3);
    let err = loop {
        match client.recv_on(3) {
            Some(ServerMessage::Error(err)) => break err,
            Some(ServerMessage::Ok(_)) => panic!("the queued close answered before the FATAL"),
            Some(_) => {}
            None => panic!("the connection ended"),
        }
    };
    assert_eq!(
        (err.code, err.severity),
        (codes::DUPLICATE_SESSION.code, Some(1))
    );
    client.new_session(3);
    assert_eq!(client.query(3, "select 8").scalar(), &Value::Sint(8));
}

/// From SESS_CLOSE's OK on, the sid is free: 1 000 rounds of close, its OK, then SESS_NEW on one
/// sid, each new session answering its own query.
#[test]
fn after_the_close_ok_the_sid_is_free_for_sess_new_every_time() {
    let node = TestNode::start();
    let mut client = node.client();
    for round in 0..1000i64 {
        client.new_session(4);
        assert_eq!(
            client.query(4, &format!("select {round}")).scalar(),
            &Value::Sint(round)
        );
        common::send_session_close(&mut client, 4);
        let Some(ServerMessage::Ok(_)) = client.recv_on(4) else {
            panic!("round {round}: no OK for the close");
        };
    }
}

// ---------------------------------------------------------------------------------------------
// Auto-commit sids

#[test]
fn pipelined_requests_on_an_auto_commit_sid_are_answered_in_order() {
    let node = TestNode::start();
    let mut client = node.client();
    for round in 0..20 {
        // A slow first request makes the later ones arrive while it runs.
        client.send_sql(
            AUTO | 7,
            sql_stmt("with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000) select count(*) from n"),
        );
        for i in 0..10 {
            client.send_sql(AUTO | 7, sql_stmt(&format!("select {}", round * 100 + i)));
        }
        assert_eq!(client.read_outcome(AUTO | 7).scalar(), &Value::Sint(20000));
        for i in 0..10 {
            assert_eq!(
                client.read_outcome(AUTO | 7).scalar(),
                &Value::Sint(round * 100 + i),
                "answers come in request order"
            );
        }
    }
}

#[test]
fn transactions_on_an_auto_commit_sid_are_refused_with_a_reason() {
    let node = TestNode::start();
    let mut client = node.client();
    for sql in [
        "BEGIN",
        "begin work",
        "START TRANSACTION",
        "start transaction read only",
        "SET autocommit = 0",
        "set @@autocommit=OFF",
        "create temporary table t(x int)",
    ] {
        let outcome = client.query(AUTO | 1, sql);
        let err = outcome
            .error
            .unwrap_or_else(|| panic!("{sql} was accepted"));
        assert_eq!(err.code, codes::UNSUPPORTED_OPTION.code, "{sql}");
        assert!(err.msg.contains("SESS_NEW"), "{sql}: {}", err.msg);
    }
    // Statements that leave no state are fine, and the refused ones left none behind.
    for sql in [
        "SET NAMES utf8mb4",
        "COMMIT",
        "ROLLBACK",
        "SET autocommit = 1",
    ] {
        assert_eq!(client.query(AUTO | 1, sql).error, None, "{sql}");
    }
    client.query(AUTO | 1, "create table t(x int)");
    assert_eq!(
        client.query(AUTO | 1, "insert into t values (1)").error,
        None
    );
    // A session on another connection sees the insert: no transaction held it back.
    let mut other = node.client();
    other.new_session(1);
    assert_eq!(
        other.query(1, "select count(*) from t").scalar(),
        &Value::Sint(1)
    );
}

#[test]
fn an_overflow_on_an_auto_commit_sid_is_fatal_and_the_next_request_starts_afresh() {
    let node = TestNode::start_with(|_, shared| {
        common::set_var(shared, "xrpc_max_queued_messages", 16);
    });
    let mut client = node.client();
    let slow =
        "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n";
    client.send_sql(AUTO | 3, sql_stmt(slow));
    node.wait_until_a_statement_runs();
    for i in 0..17 {
        client.send_sql(AUTO | 3, sql_stmt(&format!("select {i}")));
    }
    let fatal = read_through_fatal(&mut client, AUTO | 3);
    assert_eq!(fatal.code, codes::SESSION_QUEUE_OVERFLOW.code);
    // No SESS_NEW on an auto-commit sid: the next request gets a fresh shared session.
    assert_eq!(client.query(AUTO | 3, "select 8").scalar(), &Value::Sint(8));
    common::wait_until(
        Duration::from_secs(10),
        "the overflowed auto-commit session was not counted out",
        || total_sessions(&node) == 0,
    );
}

#[test]
fn requests_pipelined_behind_sess_close_get_session_not_found_and_the_sid_is_free_after_its_ok() {
    let node = TestNode::start();
    let mut client = node.client();
    for round in 0..50 {
        client.new_session(1);
        // Close and two requests without waiting.
        common::send_session_close(&mut client, 1);
        client.send_sql(1, sql_stmt("select 1"));
        client.send_sql(1, sql_stmt("select 2"));
        let Some(ServerMessage::Ok(bye)) = client.recv_on(1) else {
            panic!("round {round}: SESS_CLOSE is answered first");
        };
        assert_eq!(bye.msg.as_deref(), Some("bye"), "round {round}");
        for _ in 0..2 {
            let err = common::error_on(&mut client, 1);
            assert_eq!(err.code, codes::SESSION_NOT_FOUND.code, "round {round}");
        }
        // The sid is free at once after the OK, even if the node has not yet dropped the closed
        // session.
        common::send_new_session(&mut client, 1);
        client.send_sql(1, sql_stmt(&format!("select {round}")));
        let Some(ServerMessage::Ok(new)) = client.recv_on(1) else {
            panic!("round {round}: then the new session's OK");
        };
        assert_eq!(new.msg, None, "round {round}");
        assert_eq!(
            client.read_outcome(1).scalar(),
            &Value::Sint(round),
            "round {round}"
        );
        common::send_session_close(&mut client, 1);
        assert!(matches!(client.recv_on(1), Some(ServerMessage::Ok(_))));
    }
}

/// SHOW WARNINGS lists the session's own diagnostics, never those another session left on a
/// pooled engine connection: the list travels with the session, not with the connection.
#[test]
fn warnings_belong_to_the_session_not_to_the_pooled_connection() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.new_session(2);
    let warned = client.query(1, "select cast('12abc' as signed)");
    assert_eq!(warned.scalar(), &Value::Sint(12));
    // Session 1 holds no transaction: its connection went back to the pool, where the next
    // statement of any session takes it.
    let mut own = client.query(1, "show warnings");
    assert_eq!(own.rows.len(), 1, "{own:?}");
    assert_eq!(own.rows.remove(0)[1], Value::Uint(1292));
    for sid in [2, AUTO | 7] {
        let other = client.query(sid, "show warnings");
        assert!(
            other.error.is_none() && other.rows.is_empty(),
            "{sid}: {other:?}"
        );
        let count = client.query(sid, "select @@warning_count");
        assert_eq!(count.scalar(), &Value::Uint(0), "{sid}");
    }
    // Session 1 still has its list, through the admin path's SELECT @@ too, until its next
    // statement that is not a diagnostic one.
    assert_eq!(
        client.query(1, "select @@session.warning_count").scalar(),
        &Value::Uint(1)
    );
    assert_eq!(
        client.query(1, "show count(*) warnings").scalar(),
        &Value::Uint(1)
    );
    assert_eq!(client.query(1, "show warnings").rows.len(), 1);
    assert!(client.query(1, "select 1").error.is_none());
    assert!(client.query(1, "show warnings").rows.is_empty());
    // A failed statement's error is a diagnostic of its session only, as its warnings are.
    let failed = client.query(1, "select no_such_column");
    let code = failed.error.as_ref().expect("the statement fails").code;
    let mut errors = client.query(1, "show errors");
    assert_eq!(errors.rows.len(), 1, "{errors:?}");
    let row = errors.rows.remove(0);
    assert_eq!(
        row[..2],
        [Value::Bytes("Error".into()), Value::Uint(u64::from(code))]
    );
    assert_eq!(
        client.query(1, "select @@error_count").scalar(),
        &Value::Uint(1)
    );
    assert_eq!(
        client.query(2, "select @@error_count").scalar(),
        &Value::Uint(0)
    );
    assert!(client.query(2, "show errors").rows.is_empty());
    assert_eq!(
        client.query(1, "show count(*) errors").scalar(),
        &Value::Uint(1)
    );
    // An error the node answers before the engine (here the admin path's KILL) is recorded
    // too, in place of the previous statement's list.
    assert!(
        client
            .query(1, "select cast('1x' as signed)")
            .error
            .is_none()
    );
    let failed = client.query(1, "kill 987654");
    assert_eq!(failed.error.as_ref().map(|e| e.code), Some(1094));
    let errors = client.query(1, "show warnings");
    assert_eq!(errors.rows.len(), 1, "{errors:?}");
    assert_eq!(
        errors.rows[0][..2],
        [Value::Bytes("Error".into()), Value::Uint(1094)]
    );
    assert_eq!(
        client.query(1, "select @@error_count").scalar(),
        &Value::Uint(1)
    );
}

// ---------------------------------------------------------------------------------------------
// The variables a compute node reads as it connects

/// `(Variable_name, Value)` of each row of a `SHOW … VARIABLES`.
fn variable_rows(client: &mut Client, sql: &str) -> Vec<(String, String)> {
    let outcome = client.query(1, sql);
    assert_eq!(outcome.error, None, "{sql}");
    outcome
        .rows
        .iter()
        .map(|row| (text(&row[0]), text(&row[1])))
        .collect()
}

fn show_variables_lists_the_isolation_level_under_both_names(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    for scope in ["", "GLOBAL ", "SESSION "] {
        let mut rows = variable_rows(
            &mut client,
            &format!("SHOW {scope}VARIABLES LIKE 't%\\_isolation'"),
        );
        rows.sort();
        let names: Vec<&str> = rows.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["transaction_isolation", "tx_isolation"], "{scope}");
        assert_eq!(rows[0].1, rows[1].1, "{scope}: one value under two names");
    }
}

fn show_variables_where_finds_either_isolation_name(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let found: Vec<Vec<String>> = ["transaction_isolation", "tx_isolation"]
        .iter()
        .map(|name| {
            variable_rows(
                &mut client,
                &format!("SHOW GLOBAL VARIABLES WHERE Variable_name = '{name}'"),
            )
            .into_iter()
            .map(|(name, _)| name)
            .collect()
        })
        .collect();
    assert_eq!(found, [["transaction_isolation"], ["tx_isolation"]]);
}

fn both_isolation_variables_read_the_same_value(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let sql = "SELECT @@transaction_isolation, @@tx_isolation, \
               @@session.transaction_isolation, @@GLOBAL.tx_isolation";
    let outcome = client.query(1, sql);
    assert_eq!(outcome.error, None);
    let values: Vec<String> = outcome.rows[0].iter().map(text).collect();
    let names: Vec<String> = outcome
        .columns
        .iter()
        .map(|c| String::from_utf8_lossy(c.name.as_deref().unwrap_or_default()).into_owned())
        .collect();
    assert_eq!(
        (names, values.iter().all(|v| *v == values[0])),
        (
            vec![
                "@@transaction_isolation".to_owned(),
                "@@tx_isolation".to_owned(),
                "@@session.transaction_isolation".to_owned(),
                "@@GLOBAL.tx_isolation".to_owned()
            ],
            true
        )
    );
}

/// Sends AUTO_SP `op` for the savepoint `name` on `sid` and returns its outcome's error, if any.
fn auto_sp(
    client: &mut Client,
    sid: u64,
    op: pb::exec_plan::auto_sp::Operation,
    name: &'static [u8],
) -> Option<u32> {
    client.send(
        sid,
        ClientType::AutoSp,
        &pb::exec_plan::AutoSp {
            op: op as i32,
            sp_name: Bytes::from_static(name),
            reset_error: None,
        },
    );
    client.read_outcome(sid).error.map(|e| e.code)
}

fn auto_sp_rolls_back_to_a_savepoint_and_releases_it(engine: EngineKind) {
    use pb::exec_plan::auto_sp::Operation;
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    for statement in [
        "create table sp_t (a int primary key)",
        "begin",
        "insert into sp_t values (1)",
    ] {
        let outcome = client.query(1, statement);
        assert!(outcome.error.is_none(), "{statement}: {:?}", outcome.error);
    }
    let set = auto_sp(&mut client, 1, Operation::Set, b"sp`1");
    client.query(1, "insert into sp_t values (2)");
    let rollback = auto_sp(&mut client, 1, Operation::Rollback, b"sp`1");
    let release = auto_sp(&mut client, 1, Operation::Release, b"sp`1");
    let count = client
        .query(1, "select count(*) from sp_t")
        .scalar()
        .clone();
    assert_eq!(
        (set, rollback, release, count),
        (None, None, None, Value::Sint(1)),
        "set, roll back and release succeed, and only the row before the savepoint stays"
    );
}
