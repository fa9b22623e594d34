//! End-to-end: the node's own SQL, and the start-up sequence of the PolarDB-X Java client.

use crate::common;

use bytes::Bytes;
use common::{TestNode, sql_stmt, text};
use xrpc_proto::messages::pb;
use xrpc_proto::value::Value;

const AUTO: u64 = 0x8000_0000_0000_0000;

fn variables(outcome: &common::Outcome) -> Vec<(String, String)> {
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    outcome
        .rows
        .iter()
        .map(|row| (text(&row[0]), text(&row[1])))
        .collect()
}

#[test]
fn the_java_client_start_up_sequence_is_answered() {
    let node = TestNode::start();
    let mut client = node.client();
    // What the PolarDB-X client sends on every new connection: two auto-commit sids, token 10240,
    // reset_error true, an empty hint.
    for (sid, sql) in [
        (AUTO | 1, "show variables"),
        (AUTO | 2, "show global variables"),
    ] {
        let mut stmt = sql_stmt(sql);
        stmt.token = Some(10240);
        stmt.reset_error = Some(true);
        stmt.hint = Some(Bytes::new());
        client.send_sql(sid, stmt);
        let outcome = client.read_outcome(sid);
        // The name column must decode as text: a text collation, never 63 (binary).
        assert_ne!(outcome.columns[0].collation, Some(63));
        assert_eq!(
            outcome.columns[0].name.as_deref(),
            Some(&b"Variable_name"[..])
        );
        let vars = variables(&outcome);
        let get = |name: &str| vars.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        assert_eq!(get("new_rpc").as_deref(), Some("ON"), "{sql}");
        for name in [
            "version",
            "character_set_client",
            "character_set_results",
            "time_zone",
            "system_time_zone",
            "transaction_isolation",
            "innodb_mark_distributed",
            "opt_flashback_area",
        ] {
            assert!(get(name).is_some(), "{sql} lacks {name}");
        }
    }
    // The first statement of every new session.
    client.new_session(1);
    let outcome = client.query(1, "select connection_id()");
    assert!(
        matches!(outcome.scalar(), Value::Sint(n) if *n > 0),
        "{outcome:?}"
    );
}

#[test]
fn show_variables_like_filters_by_pattern() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let vars = variables(&client.query(1, "SHOW GLOBAL VARIABLES LIKE 'xrpc_max_queued%'"));
    assert_eq!(
        vars,
        vec![("xrpc_max_queued_messages".to_owned(), "128".to_owned())]
    );
}

#[test]
fn set_global_checks_the_range_and_takes_effect() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let out_of_range = client.query(1, "set global xrpc_max_queued_messages = 5");
    let err = out_of_range.error.expect("out of range");
    assert_eq!((err.code, err.sql_state.as_str()), (1231, "42000"));
    assert!(err.msg.contains("xrpc_max_queued_messages"), "{}", err.msg);

    let ok = client.query(1, "set global xrpc_max_queued_messages = 256");
    assert!(ok.error.is_none(), "{:?}", ok.error);
    let vars = variables(&client.query(1, "show variables like 'xrpc_max_queued_messages'"));
    assert_eq!(vars[0].1, "256");
    assert_eq!(
        node.node().shared().max_queued_messages(),
        256,
        "in force for new requests"
    );

    let unknown = client.query(1, "set global no_such_variable = 1");
    assert_eq!(unknown.error_code(), Some(1193));
    let read_only = client.query(1, "set global xrpc_epoll_threads_per_group = 8");
    assert_eq!(read_only.error_code(), Some(1238));
}

#[test]
fn show_status_reports_sessions_connections_and_cache() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.new_session(2);
    let mut digested = sql_stmt("select 1");
    digested.stmt_digest = Some(Bytes::from_static(b"d1"));
    client.send_sql(1, digested);
    client.read_outcome(1);
    client.send_sql(
        1,
        pb::sql::StmtExecute {
            stmt_digest: Some(Bytes::from_static(b"d1")),
            ..Default::default()
        },
    );
    client.read_outcome(1);
    let vars = variables(&client.query(1, "show global status"));
    let get = |name: &str| {
        vars.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("SHOW STATUS lacks {name}: {vars:?}"))
    };
    assert_eq!(get("xrpc_inited"), "ON");
    assert_eq!(get("xrpc_worker_sessions"), "2");
    assert_eq!(get("xrpc_tcp_connections"), "1");
    assert_eq!(get("xrpc_sql_hit"), "1");
    assert!(get("xrpc_threads").parse::<u64>().unwrap() >= 2);
    let filtered = variables(&client.query(1, "show status like 'xrpc_sql_%'"));
    assert_eq!(filtered.len(), 3, "{filtered:?}");
}

#[test]
fn perf_hist_records_stages_when_enabled_and_resets() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    assert!(
        client
            .query(1, "set global xrpc_enable_perf_hist = ON")
            .error
            .is_none()
    );
    for i in 0..50 {
        client.query(1, &format!("select {i}"));
    }
    let all = client.query(1, "call xrpc.perf_hist('all')");
    assert!(all.error.is_none(), "{:?}", all.error);
    let stages: Vec<String> = all.rows.iter().map(|row| text(&row[0])).collect();
    assert!(stages.iter().any(|s| s == "run"), "{stages:?}");
    let run = client.query(1, "call xrpc.perf_hist('run')");
    assert!(!run.rows.is_empty());
    assert!(
        client
            .query(1, "call xrpc.perf_hist('reset')")
            .error
            .is_none()
    );
    let unknown = client.query(1, "call xrpc.perf_hist('bogus')");
    assert!(unknown.error.is_some());
}

#[test]
fn chunk_result_default_applies_to_requests_that_do_not_choose() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let rows = client.query(1, "select 1, 'a'");
    assert!(
        rows.messages
            .iter()
            .any(|m| matches!(m, xrpc_proto::messages::ServerMessage::Row(_)))
    );
    assert!(
        client
            .query(1, "set global xrpc_chunk_result_default = ON")
            .error
            .is_none()
    );
    let chunks = client.query(1, "select 1, 'a'");
    assert!(
        chunks
            .messages
            .iter()
            .any(|m| matches!(m, xrpc_proto::messages::ServerMessage::Chunk(_)))
    );
    assert_eq!(rows.rows, chunks.rows);
    // An explicit chunk_result = false still gets rows.
    let mut explicit = sql_stmt("select 1, 'a'");
    explicit.chunk_result = Some(false);
    client.send_sql(1, explicit);
    let explicit = client.read_outcome(1);
    assert!(
        explicit
            .messages
            .iter()
            .any(|m| matches!(m, xrpc_proto::messages::ServerMessage::Row(_)))
    );
}
