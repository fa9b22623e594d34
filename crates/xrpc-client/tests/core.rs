//! The sans-IO core against a scripted fake server, with a virtual clock: no sockets, no sleeps.
//!
//! [`Pair`] shuttles bytes between a [`ClientConnection`] and a [`FakeServer`] (see `common`) and
//! collects the client's events; time moves only when a test calls [`Pair::advance`].

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{FakeServer, PASSWORD};
use xrpc_client::proto::{ClientConfig, ClientConnection, Event, StreamRead};
use xrpc_client::{ExecOptions, ExecResult, KillKind, Param, RequestId, SessionId};
use xrpc_proto::messages::ClientMessage;
use xrpc_proto::messages::pb::{notice, session};
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};

struct Pair {
    client: ClientConnection,
    server: FakeServer,
    now: Instant,
    events: Vec<Event>,
}

impl Pair {
    /// A client and a server that has not answered anything yet.
    fn new(config: ClientConfig) -> Self {
        let now = Instant::now();
        Self {
            client: ClientConnection::new(config, now),
            server: FakeServer::new(),
            now,
            events: Vec::new(),
        }
    }

    /// A pair past the handshake, with its events cleared.
    fn connected() -> Self {
        Self::connected_with(config())
    }

    fn connected_with(config: ClientConfig) -> Self {
        let mut pair = Self::new(config);
        pair.reach_auth_response();
        let (_, ok) = pair.server.check_auth_response(PASSWORD);
        assert!(ok);
        pair.server.auth_ok();
        pair.server_to_client();
        assert!(matches!(pair.events.as_slice(), [Event::Authenticated]));
        pair.events.clear();
        pair
    }

    /// Runs the handshake until the server holds the client's `AuthenticateContinue` (read it
    /// with `check_auth_response`).
    fn reach_auth_response(&mut self) {
        self.client_to_server();
        self.server.answer_handshake_start();
        self.server_to_client();
        self.client_to_server();
    }

    /// Opens a session, issues `stmt` on it and lets the server answer everything it can.
    fn open_and_run(&mut self, stmt: &str) -> (SessionId, RequestId) {
        let sid = self.client.open_session().expect("open a session");
        let id = self.exec(sid, stmt);
        self.auto();
        (sid, id)
    }

    /// Moves the client's pending bytes to the server, which decodes them.
    fn client_to_server(&mut self) {
        while let Some(bytes) = self.client.poll_transmit() {
            self.server.feed(&bytes);
        }
    }

    /// Delivers the server's replies and collects the client's events.
    fn server_to_client(&mut self) {
        let bytes = self.server.take_output();
        if !bytes.is_empty() {
            self.client.handle_input(&bytes, self.now);
        }
        self.collect();
    }

    fn collect(&mut self) {
        while let Some(event) = self.client.poll_event() {
            self.events.push(event);
        }
    }

    /// Lets the server answer everything by itself, until nothing moves.
    fn auto(&mut self) {
        loop {
            self.client_to_server();
            if self.server.received.is_empty() {
                break;
            }
            self.server.auto_respond();
            self.server_to_client();
        }
        self.collect();
    }

    /// Moves the virtual clock and fires the client's timers.
    fn advance(&mut self, by: Duration) {
        self.now += by;
        self.client.handle_timeout(self.now);
        self.collect();
    }

    fn exec(&mut self, sid: SessionId, stmt: &str) -> RequestId {
        self.client
            .execute(sid, stmt.to_owned(), &[], &ExecOptions::default(), self.now)
            .expect("execute")
    }

    fn exec_with(&mut self, sid: SessionId, stmt: &str, opts: &ExecOptions) -> RequestId {
        self.client
            .execute(sid, stmt.to_owned(), &[], opts, self.now)
            .expect("execute")
    }

    /// Takes the completion of `id` out of the events.
    fn completion(&mut self, id: RequestId) -> Result<ExecResult, xrpc_client::ClientError> {
        let pos = self
            .events
            .iter()
            .position(|e| matches!(e, Event::Completed { id: got, .. } if *got == id))
            .unwrap_or_else(|| panic!("no completion for {id:?} in {:?}", self.events));
        match self.events.remove(pos) {
            Event::Completed { result, .. } => result,
            _ => unreachable!(),
        }
    }

    fn completions(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Completed { .. }))
            .count()
    }
}

fn config() -> ClientConfig {
    ClientConfig::new("app", PASSWORD).schema("shop")
}

fn long_stmt(tag: &str) -> String {
    format!("select {tag} /* a statement long enough for the digest cache to be worth it */")
}

// ---- handshake ----

#[test]
fn auth_good_password_is_scrambled_and_accepted() {
    let mut pair = Pair::new(config());
    pair.client_to_server();
    pair.server.answer_handshake_start();
    pair.server_to_client();
    assert!(!pair.client.is_authenticated());
    pair.client_to_server();
    let (response, ok) = pair.server.check_auth_response(PASSWORD);
    assert!(ok, "scramble must verify against SHA1(SHA1(pw))");
    assert_eq!(
        (response.schema.as_str(), response.user.as_str()),
        ("shop", "app")
    );
    pair.server.auth_ok();
    pair.server_to_client();
    assert!(pair.client.is_authenticated());
    assert!(matches!(pair.events.as_slice(), [Event::Authenticated]));
}

#[test]
fn auth_empty_password_sends_no_scramble() {
    let mut pair = Pair::new(ClientConfig::new("guest", ""));
    pair.reach_auth_response();
    let (sid, message) = pair.server.recv();
    assert_eq!(sid, 0);
    let ClientMessage::AuthenticateContinue(cont) = message else {
        panic!("{message:?}")
    };
    assert_eq!(&cont.auth_data[..], b"\0guest\0");
}

#[test]
fn auth_bad_password_fails_requests_and_allows_a_retry() {
    let mut pair = Pair::new(ClientConfig::new("app", "wrong"));
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "select 1");
    pair.reach_auth_response();
    let (_, ok) = pair.server.check_auth_response(PASSWORD);
    assert!(!ok);
    // Nothing but the handshake went out: the request waited for authentication.
    assert!(pair.server.received.is_empty());
    pair.server
        .error(0, false, 1045, "28000", "Access denied for user 'app'");
    pair.server_to_client();
    let err = pair.completion(id).unwrap_err();
    assert!(err.is_auth(), "{err}");
    assert_eq!((err.code(), err.sql_state()), (Some(1045), Some("28000")));
    assert!(
        pair.events
            .iter()
            .any(|e| matches!(e, Event::AuthFailed(e) if e.is_auth()))
    );
    assert!(
        !pair.client.is_closed(),
        "the connection stays open for a retry"
    );

    pair.client.authenticate("app", PASSWORD, pair.now).unwrap();
    pair.client_to_server();
    let (sid0, start) = pair.server.recv();
    assert!(sid0 == 0 && matches!(start, ClientMessage::AuthenticateStart(_)));
    pair.server.challenge_client();
    pair.server_to_client();
    pair.client_to_server();
    assert!(pair.server.check_auth_response(PASSWORD).1);
    pair.server.auth_ok();
    pair.server_to_client();
    assert!(pair.client.is_authenticated());
}

#[test]
fn requests_issued_during_the_handshake_follow_auth_ok() {
    let mut pair = Pair::new(config());
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "select 5");
    pair.reach_auth_response();
    assert!(pair.server.check_auth_response(PASSWORD).1);
    assert!(pair.server.received.is_empty());
    pair.server.authenticated = true;
    pair.server.auth_ok();
    pair.server_to_client();
    pair.auto();
    let rs = pair.completion(id).unwrap().into_result_set();
    assert_eq!(rs.rows, vec![vec![Value::Sint(5)]]);
}

#[test]
fn handshake_timeout_loses_the_connection() {
    let mut pair = Pair::new(config());
    pair.client_to_server();
    pair.advance(Duration::from_secs(9));
    assert!(!pair.client.is_closed());
    assert_eq!(
        pair.client.poll_timeout(),
        Some(pair.now + Duration::from_secs(1))
    );
    pair.advance(Duration::from_secs(1));
    assert!(pair.client.is_closed());
    assert!(pair.client.closed_error().unwrap().is_timeout());
}

// ---- sessions ----

#[test]
fn sess_new_rides_along_with_the_first_request() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    assert!(
        pair.client.poll_transmit().is_none(),
        "opening sends nothing"
    );
    let first = pair.exec(sid, "select 1");
    let second = pair.exec(sid, "select 2");
    // All in one transmit, before the server said anything.
    let bytes = pair.client.poll_transmit().unwrap();
    assert!(pair.client.poll_transmit().is_none());
    pair.server.feed(&bytes);
    let frames = pair.server.recv_all();
    let kinds: Vec<_> = frames.iter().map(|(s, m)| (*s, m.type_id())).collect();
    assert_eq!(
        kinds,
        vec![(sid.raw(), 110), (sid.raw(), 101), (sid.raw(), 101)]
    );
    // Replies: OK for SESS_NEW, then the two results.
    pair.server.ok(sid.raw());
    pair.server.result(
        sid.raw(),
        &[("n", ColumnType::Sint)],
        &[vec![Value::Sint(1)]],
    );
    pair.server.result(
        sid.raw(),
        &[("n", ColumnType::Sint)],
        &[vec![Value::Sint(2)]],
    );
    pair.server_to_client();
    assert_eq!(
        pair.completion(first).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(1)]]
    );
    assert_eq!(
        pair.completion(second).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(2)]]
    );
    // A later request sends no SESS_NEW.
    pair.exec(sid, "select 3");
    pair.client_to_server();
    let frames = pair.server.recv_all();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].1.type_id(), 101);
}

#[test]
fn every_frame_is_routed_by_sid() {
    let mut pair = Pair::connected();
    let a = pair.client.open_session().unwrap();
    let b = pair.client.open_session().unwrap();
    let ra = pair.exec(a, "select 10");
    let rb = pair.exec(b, "select 20");
    pair.client_to_server();
    pair.server.recv_all();
    // Interleave the two sessions' replies frame by frame.
    pair.server.ok(b.raw());
    pair.server.ok(a.raw());
    pair.server.metadata(b.raw(), &[("n", ColumnType::Sint)]);
    pair.server.metadata(a.raw(), &[("n", ColumnType::Sint)]);
    pair.server.row(a.raw(), &[Value::Sint(10)]);
    pair.server.row(b.raw(), &[Value::Sint(20)]);
    pair.server.exec_ok(b.raw());
    pair.server.exec_ok(a.raw());
    pair.server_to_client();
    assert_eq!(
        pair.completion(ra).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(10)]]
    );
    assert_eq!(
        pair.completion(rb).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(20)]]
    );
}

#[test]
fn bytes_split_anywhere_give_the_same_results() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "rows 50");
    pair.client_to_server();
    pair.server.auto_respond();
    let bytes = pair.server.take_output();
    for byte in bytes {
        pair.client.handle_input(&[byte], pair.now);
    }
    pair.collect();
    let rows = pair.completion(id).unwrap().into_result_set().rows;
    assert_eq!(rows.len(), 50);
    assert_eq!(rows[49], vec![Value::Sint(49)]);
}

#[test]
fn auto_commit_sids_need_no_sess_new_and_vanish_after_one_statement() {
    let mut pair = Pair::connected();
    let (sid, id) = pair
        .client
        .execute_once(
            "select 9",
            &[],
            &ExecOptions::default().chunk_result(true),
            pair.now,
        )
        .unwrap();
    assert!(sid.is_auto_commit());
    pair.client_to_server();
    let frames = pair.server.recv_all();
    assert_eq!(frames.len(), 1, "no SESS_NEW");
    let (got_sid, ClientMessage::ExecSql(exec)) = &frames[0] else {
        panic!("{frames:?}")
    };
    assert_eq!(*got_sid, sid.raw());
    assert_eq!(exec.token, None, "the server ignores tokens there");
    assert_eq!(exec.chunk_result, None, "the server refuses chunks there");
    assert_eq!(exec.stmt_digest, None);
    pair.server.result(
        sid.raw(),
        &[("n", ColumnType::Sint)],
        &[vec![Value::Sint(9)]],
    );
    pair.server_to_client();
    assert_eq!(
        pair.completion(id).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(9)]]
    );
    assert_eq!(pair.client.session_count(), 0);
    assert_eq!(pair.client.requests_in_flight(), 0);
    let (sid2, _) = pair
        .client
        .execute_once("select 1", &[], &ExecOptions::default(), pair.now)
        .unwrap();
    assert_ne!(sid, sid2, "each one-shot statement gets a fresh sid");
}

#[test]
fn close_session_is_queued_behind_requests() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "select 1");
    pair.client.close_session(sid).unwrap();
    assert!(
        pair.client
            .execute(sid, "select 2", &[], &ExecOptions::default(), pair.now)
            .unwrap_err()
            .is_session_closed()
    );
    pair.client_to_server();
    let kinds: Vec<u8> = pair
        .server
        .received
        .iter()
        .map(|(_, m)| m.type_id())
        .collect();
    assert_eq!(kinds, vec![110, 101, 7]);
    pair.auto();
    assert!(pair.completion(id).is_ok());
    assert!(
        pair.events
            .iter()
            .any(|e| matches!(e, Event::SessionClosed { sid: s, error: None } if *s == sid))
    );
    assert!(!pair.client.session_is_open(sid));

    // A session the server never heard of closes locally.
    let unused = pair.client.open_session().unwrap();
    pair.client.close_session(unused).unwrap();
    assert!(pair.client.poll_transmit().is_none());
}

// ---- results ----

fn every_type() -> (Vec<(&'static str, ColumnType)>, Vec<Vec<Value>>) {
    let columns = vec![
        ("sint", ColumnType::Sint),
        ("uint", ColumnType::Uint),
        ("double", ColumnType::Double),
        ("float", ColumnType::Float),
        ("bytes", ColumnType::Bytes),
        ("time", ColumnType::Time),
        ("datetime", ColumnType::DateTime),
        ("set", ColumnType::Set),
        ("enum", ColumnType::Enum),
        ("bit", ColumnType::Bit),
        ("decimal", ColumnType::Decimal),
        ("text2", ColumnType::Bytes),
    ];
    let row = |i: i64| {
        vec![
            Value::Sint(-i * 1_000_000_007),
            Value::Uint(u64::MAX - i as u64),
            Value::Double(i as f64 * 0.5),
            Value::Float(-(i as f32) * 0.25),
            Value::Bytes(Bytes::from(format!("row {i}"))),
            Value::Time(XTime::new(i % 2 == 1, 838, 59, 58, i as u32).unwrap()),
            Value::DateTime(XDateTime::new(2024, 2, 29, 23, 59, 1, 123_456).unwrap()),
            Value::Set(vec![Bytes::from_static(b"a"), Bytes::from(format!("b{i}"))]),
            Value::Enum(Bytes::from_static(b"medium")),
            Value::Bit(0b1011 + i as u64),
            Value::Decimal(XDecimal::parse(&format!("-{i}.250")).unwrap()),
            if i % 3 == 0 {
                Value::Null
            } else {
                Value::Bytes(Bytes::new())
            },
        ]
    };
    let mut rows: Vec<Vec<Value>> = (0..20).map(row).collect();
    rows.push(vec![Value::Null; columns.len()]);
    (columns, rows)
}

#[test]
fn row_results_decode_every_type() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "select everything");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    let (columns, rows) = every_type();
    pair.server.result(sid.raw(), &columns, &rows);
    pair.server_to_client();
    let rs = pair.completion(id).unwrap().into_result_set();
    let names: Vec<_> = rs.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, columns.iter().map(|c| c.0).collect::<Vec<_>>());
    assert_eq!(rs.columns[4].ty, ColumnType::Bytes);
    assert_eq!(rs.columns[4].collation, Some(33));
    assert_eq!(rs.rows, rows);
    assert_eq!(rs.text(1, 4), Some("row 1"));
}

#[test]
fn metadata_seen_before_gives_the_same_columns_and_keeps_its_order_rule() {
    // The second result's metadata bodies are byte-identical to the first's, so they come from
    // the connection's cache of decoded metadata instead of being decoded again.
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let (columns, rows) = every_type();
    let mut results = Vec::new();
    for round in 0..2 {
        let id = pair.exec(sid, "select everything");
        pair.client_to_server();
        pair.server.recv_all();
        if round == 0 {
            pair.server.ok(sid.raw());
        }
        pair.server.result(sid.raw(), &columns, &rows);
        pair.server_to_client();
        results.push(pair.completion(id).unwrap().into_result_set());
    }
    assert_eq!(results[0].columns, results[1].columns);
    assert_eq!(results[1].rows, rows);
    assert_eq!(results[1].columns[4].collation, Some(33));

    // Cached or not, metadata after a row is a protocol error for that request only.
    let id = pair.exec(sid, "select x");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.metadata(sid.raw(), &columns[..1]);
    pair.server.send(
        sid.raw(),
        xrpc_proto::messages::ServerMessage::Row(xrpc_proto::messages::pb::resultset::Row {
            field: vec![Bytes::from_static(b"\x02")],
        }),
    );
    pair.server.metadata(sid.raw(), &columns[..1]);
    let done = pair.server.fetch_done();
    pair.server.send(sid.raw(), done);
    pair.server.exec_ok(sid.raw());
    pair.server_to_client();
    let err = pair.completion(id).unwrap_err();
    assert!(err.is_protocol(), "{err}");
    assert!(err.to_string().contains("metadata after rows"), "{err}");

    // A cached body as the first reply on a new session is still not the OK it must be.
    let fresh = pair.client.open_session().unwrap();
    let id = pair.exec(fresh, "select y");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.metadata(fresh.raw(), &columns[..1]);
    pair.server_to_client();
    let err = pair.completion(id).unwrap_err();
    assert!(err.to_string().contains("instead of OK"), "{err}");
}

#[test]
fn chunk_results_split_by_column_decode_every_type() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec_with(
        sid,
        "select everything",
        &ExecOptions::default().chunk_result(true),
    );
    pair.client_to_server();
    let (_, exec) = {
        pair.server.recv();
        pair.server.recv_exec()
    };
    assert_eq!(exec.chunk_result, Some(true));
    pair.server.ok(sid.raw());
    let (columns, rows) = every_type();
    assert!(
        columns.len() > 10,
        "twelve columns need two CHUNK messages per chunk"
    );
    pair.server.chunk_result(sid.raw(), &columns, &rows);
    pair.server_to_client();
    let rs = pair.completion(id).unwrap().into_result_set();
    assert_eq!(rs.rows, rows);
}

#[test]
fn many_chunks_of_many_rows_are_assembled_in_order() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec_with(
        sid,
        "select big",
        &ExecOptions::default().chunk_result(true),
    );
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    let rows: Vec<Vec<Value>> = (0..10_000)
        .map(|i| vec![Value::Sint(i), Value::Bytes(Bytes::from(format!("v{i}")))])
        .collect();
    pair.server.chunk_result(
        sid.raw(),
        &[("i", ColumnType::Sint), ("v", ColumnType::Bytes)],
        &rows,
    );
    pair.server_to_client();
    assert_eq!(pair.completion(id).unwrap().into_result_set().rows, rows);
}

#[test]
fn notices_give_rows_affected_and_last_insert_id() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "insert into t values (1)");
    pair.auto();
    let result = pair.completion(id).unwrap();
    assert_eq!(result.rows_affected, 1);
    assert_eq!(result.last_insert_id, Some(7));
    assert!(result.result_set.is_none());
}

#[test]
fn malformed_values_fail_the_request_but_not_the_session() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "select x");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    pair.server
        .metadata(sid.raw(), &[("d", ColumnType::Double)]);
    // Three bytes are no double.
    pair.server.send(
        sid.raw(),
        xrpc_proto::messages::ServerMessage::Row(xrpc_proto::messages::pb::resultset::Row {
            field: vec![Bytes::from_static(b"abc")],
        }),
    );
    let done = pair.server.fetch_done();
    pair.server.send(sid.raw(), done);
    pair.server.exec_ok(sid.raw());
    pair.server_to_client();
    assert!(pair.completion(id).unwrap_err().is_protocol());
    let next = pair.exec(sid, "select 4");
    pair.auto_after_open(sid);
    assert_eq!(
        pair.completion(next).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(4)]]
    );
}

// ---- errors ----

#[test]
fn sql_error_ends_the_request_and_keeps_the_session() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let bad = pair.exec(sid, "error");
    let good = pair.exec(sid, "select 1");
    pair.auto();
    let err = pair.completion(bad).unwrap_err();
    assert!(err.is_server() && !err.is_fatal());
    assert_eq!((err.code(), err.sql_state()), (Some(1064), Some("42000")));
    assert!(pair.completion(good).is_ok());
    // The success cleared the stored error.
    assert!(pair.client.session_last_error(sid).is_none());
    assert!(pair.client.is_session_clean(sid));
}

#[test]
fn cascading_errors_fire_and_forget_then_reset_error_false() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let ff = ExecOptions::default().fire_and_forget(true);
    pair.exec_with(sid, "error in set", &ff);
    pair.exec_with(sid, "set b = 1", &ff);
    let query = pair.exec(sid, "select 1");
    let after = pair.exec(sid, "select 2");
    pair.client_to_server();
    let frames: Vec<_> = pair.server.received.iter().cloned().collect();
    let resets: Vec<Option<bool>> = frames
        .iter()
        .filter_map(|(_, m)| match m {
            ClientMessage::ExecSql(e) => Some(e.reset_error),
            _ => None,
        })
        .collect();
    // The chain head runs normally; everything behind a fire-and-forget request carries false.
    assert_eq!(resets, vec![None, Some(false), Some(false), None]);
    pair.auto();
    // No events for the fire-and-forget requests; the query reports their failure.
    assert_eq!(pair.completions(), 2);
    let err = pair.completion(query).unwrap_err();
    assert_eq!(err.code(), Some(1064));
    // The request after the query ran normally.
    assert!(pair.completion(after).is_ok());
}

#[test]
fn a_failed_fire_and_forget_request_leaves_the_session_dirty() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    pair.exec_with(sid, "error", &ExecOptions::default().fire_and_forget(true));
    pair.auto();
    assert!(pair.events.is_empty());
    assert_eq!(
        pair.client.session_last_error(sid).unwrap().code(),
        Some(1064)
    );
    assert!(!pair.client.is_session_clean(sid));
}

#[test]
fn fatal_on_a_session_fails_its_requests_and_only_that_session() {
    let mut pair = Pair::connected();
    let victim = pair.client.open_session().unwrap();
    let other = pair.client.open_session().unwrap();
    let a = pair.exec(victim, "select 1");
    let b = pair.exec(victim, "select 2");
    let c = pair.exec(other, "select 3");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(victim.raw());
    pair.server.ok(other.raw());
    pair.server.error(
        victim.raw(),
        true,
        7003,
        "HY000",
        "Session max_queued_messages limit exceed.",
    );
    pair.server.result(
        other.raw(),
        &[("n", ColumnType::Sint)],
        &[vec![Value::Sint(3)]],
    );
    pair.server_to_client();
    for id in [a, b] {
        let err = pair.completion(id).unwrap_err();
        assert!(err.is_session_closed() && err.is_fatal(), "{err}");
        assert_eq!(err.code(), Some(7003));
    }
    assert!(pair.completion(c).is_ok());
    assert!(
        pair.events
            .iter()
            .any(|e| matches!(e, Event::SessionClosed { sid, error: Some(_) } if *sid == victim))
    );
    assert!(!pair.client.session_is_open(victim));
    assert!(
        pair.client
            .execute(victim, "select 1", &[], &ExecOptions::default(), pair.now)
            .unwrap_err()
            .is_session_closed()
    );
    assert!(!pair.client.is_closed());
}

#[test]
fn a_request_on_a_session_the_server_ended_fails_with_the_servers_reason() {
    let mut pair = Pair::connected();
    let (sid, id) = pair.open_and_run("select 1");
    assert!(pair.completion(id).is_ok());
    // An idle session killed from elsewhere: the FATAL arrives with nothing in flight.
    pair.server
        .error(sid.raw(), true, 7005, "70100", "Session is killing.");
    pair.server_to_client();
    let err = pair
        .client
        .execute(sid, "select 2", &[], &ExecOptions::default(), pair.now)
        .unwrap_err();
    assert!(err.is_session_closed(), "{err}");
    assert_eq!((err.code(), err.sql_state()), (Some(7005), Some("70100")));
    // Once the client closes it, the sid is simply unknown.
    pair.client.close_session(sid).unwrap();
    let err = pair
        .client
        .execute(sid, "select 3", &[], &ExecOptions::default(), pair.now)
        .unwrap_err();
    assert_eq!(err.code(), None);
}

#[test]
fn fatal_answer_to_sess_new_fails_the_session() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "select 1");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server
        .error(sid.raw(), true, 1040, "08004", "Too many sessions");
    pair.server_to_client();
    let err = pair.completion(id).unwrap_err();
    assert_eq!(err.code(), Some(1040));
    assert!(err.is_session_closed());
}

#[test]
fn kill_connection_ends_the_session_with_the_servers_fatal() {
    let mut pair = Pair::connected();
    let (sid, id) = pair.open_and_run("sleep");
    pair.client.kill(sid, KillKind::Connection).unwrap();
    pair.auto();
    let err = pair.completion(id).unwrap_err();
    assert_eq!((err.code(), err.sql_state()), (Some(7005), Some("70100")));
    assert!(!pair.client.session_is_open(sid));
}

#[test]
fn fatal_on_sid_zero_loses_the_connection() {
    let mut pair = Pair::connected();
    let (_, id) = pair.open_and_run("sleep");
    pair.server.error(
        0,
        true,
        1153,
        "S1000",
        "Got a packet bigger than 'max_allowed_packet' bytes",
    );
    pair.server_to_client();
    let err = pair.completion(id).unwrap_err();
    assert!(err.is_connection_lost(), "{err}");
    assert_eq!(err.code(), Some(1153));
    assert!(pair.client.is_closed());
}

#[test]
fn broken_connection_fails_every_session_clearly() {
    let mut pair = Pair::connected();
    let sids: Vec<SessionId> = (0..3)
        .map(|_| pair.client.open_session().unwrap())
        .collect();
    let ids: Vec<RequestId> = sids.iter().map(|&sid| pair.exec(sid, "sleep")).collect();
    pair.auto();
    pair.client
        .handle_io_error(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
    pair.collect();
    for id in ids {
        let err = pair.completion(id).unwrap_err();
        assert!(err.is_connection_lost(), "{err}");
        assert!(err.to_string().contains("socket error"), "{err}");
    }
    let closed = pair
        .events
        .iter()
        .filter(|e| matches!(e, Event::SessionClosed { error: Some(_), .. }))
        .count();
    assert_eq!(closed, 3);
    assert!(matches!(pair.events.last(), Some(Event::ConnectionLost(_))));
    assert!(pair.client.is_closed());
    let err = pair.client.open_session().unwrap_err();
    assert!(err.is_connection_lost());
    assert!(pair.client.poll_transmit().is_none());
    assert_eq!(pair.client.poll_timeout(), None);
}

#[test]
fn garbage_from_the_server_loses_the_connection() {
    let mut pair = Pair::connected();
    let (sid, id) = pair.open_and_run("sleep");
    // A frame of type 99, which no server message has.
    let mut bytes = Vec::new();
    xrpc_proto::frame::encode_frame(
        &mut bytes,
        xrpc_proto::HeaderFormat::Standard,
        sid.raw(),
        99,
        b"",
    );
    pair.client.handle_input(&bytes, pair.now);
    pair.collect();
    assert!(pair.completion(id).unwrap_err().is_connection_lost());
    assert!(
        pair.client
            .closed_error()
            .unwrap()
            .to_string()
            .contains("undecodable")
    );
}

// ---- flow control ----

#[test]
fn token_done_is_answered_with_a_token_offer() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec_with(
        sid,
        "select many",
        &ExecOptions::default().token_kib(Some(64)),
    );
    pair.client_to_server();
    let (_, exec) = {
        pair.server.recv();
        pair.server.recv_exec()
    };
    assert_eq!(exec.token, Some(64));
    pair.server.ok(sid.raw());
    pair.server.metadata(sid.raw(), &[("n", ColumnType::Sint)]);
    pair.server.row(sid.raw(), &[Value::Sint(1)]);
    pair.server.token_done(sid.raw());
    pair.server_to_client();
    pair.client_to_server();
    let (got, offer) = pair.server.recv();
    assert_eq!(got, sid.raw());
    let ClientMessage::TokenOffer(offer) = offer else {
        panic!("{offer:?}")
    };
    assert_eq!(
        offer.token,
        Some(64),
        "the offer resets the budget to the full token"
    );
    pair.server.row(sid.raw(), &[Value::Sint(2)]);
    let done = pair.server.fetch_done();
    pair.server.send(sid.raw(), done);
    pair.server.exec_ok(sid.raw());
    pair.server_to_client();
    assert_eq!(pair.completion(id).unwrap().into_result_set().rows.len(), 2);
}

/// Sends rows of about 120 wire bytes each.
fn send_fat_rows(server: &mut FakeServer, sid: u64, from: i64, n: i64) {
    for i in from..from + n {
        server.row(
            sid,
            &[Value::Bytes(Bytes::from(vec![
                b'x';
                100 + (i % 2) as usize
            ]))],
        );
    }
}

#[test]
fn offers_early_at_four_fifths_of_the_budget() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    // A 1 KiB budget: the early offer is due at 820 bytes.
    pair.exec_with(
        sid,
        "select fat",
        &ExecOptions::default().token_kib(Some(1)),
    );
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    pair.server.metadata(sid.raw(), &[("b", ColumnType::Bytes)]);
    send_fat_rows(&mut pair.server, sid.raw(), 0, 5);
    pair.server_to_client();
    pair.client_to_server();
    assert!(
        pair.server.received.is_empty(),
        "about 640 bytes: no offer yet"
    );
    send_fat_rows(&mut pair.server, sid.raw(), 5, 2);
    pair.server_to_client();
    pair.client_to_server();
    let offers = pair.server.recv_all();
    assert!(
        matches!(offers.as_slice(), [(_, ClientMessage::TokenOffer(o))] if o.token == Some(1)),
        "{offers:?}"
    );
    // The count restarted: the next offer needs another 4/5 of the budget.
    send_fat_rows(&mut pair.server, sid.raw(), 7, 5);
    pair.server_to_client();
    pair.client_to_server();
    assert!(pair.server.received.is_empty());
    send_fat_rows(&mut pair.server, sid.raw(), 12, 3);
    pair.server_to_client();
    pair.client_to_server();
    assert_eq!(pair.server.recv_all().len(), 1);
}

#[test]
fn a_slow_stream_reader_holds_back_offers_until_it_catches_up() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let opts = ExecOptions::default().token_kib(Some(1)).stream(true);
    let id = pair.exec_with(sid, "select fat", &opts);
    assert!(!pair.client.stream_ready(id), "nothing has arrived yet");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    pair.server.metadata(sid.raw(), &[("b", ColumnType::Bytes)]);
    send_fat_rows(&mut pair.server, sid.raw(), 0, 8);
    pair.server.token_done(sid.raw());
    pair.server_to_client();
    assert!(pair.client.stream_ready(id), "rows to take");
    assert!(
        pair.events
            .iter()
            .any(|e| matches!(e, Event::RowsReady { id: got, .. } if *got == id))
    );
    pair.client_to_server();
    assert!(
        pair.server.received.is_empty(),
        "eight unread rows are not a short queue: no offer, not even for TOKEN_DONE"
    );
    assert_eq!(pair.client.stream_columns(id).unwrap()[0].name, "b");
    let StreamRead::Rows(rows) = pair.client.take_rows(id) else {
        panic!("rows expected")
    };
    assert_eq!(rows.len(), 8);
    pair.client_to_server();
    let offers = pair.server.recv_all();
    assert!(
        matches!(offers.as_slice(), [(_, ClientMessage::TokenOffer(_))]),
        "{offers:?}"
    );
    assert_eq!(pair.client.take_rows(id), StreamRead::Pending);
    assert!(
        !pair.client.stream_ready(id),
        "every row taken, the end not yet here"
    );
    send_fat_rows(&mut pair.server, sid.raw(), 8, 2);
    let done = pair.server.fetch_done();
    pair.server.send(sid.raw(), done);
    pair.server.exec_ok(sid.raw());
    pair.server_to_client();
    let result = pair.completion(id).unwrap();
    assert!(
        result.result_set.unwrap().rows.is_empty(),
        "streamed rows are not collected"
    );
    let StreamRead::Rows(rows) = pair.client.take_rows(id) else {
        panic!("the last rows")
    };
    assert_eq!(rows.len(), 2);
    assert_eq!(pair.client.take_rows(id), StreamRead::Finished);
    assert!(pair.client.is_session_clean(sid));
}

#[test]
fn no_token_means_no_flow_control() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    pair.exec_with(sid, "select fat", &ExecOptions::default().token_kib(None));
    pair.client_to_server();
    let (_, exec) = {
        pair.server.recv();
        pair.server.recv_exec()
    };
    assert_eq!(exec.token, None);
    pair.server.ok(sid.raw());
    pair.server.metadata(sid.raw(), &[("b", ColumnType::Bytes)]);
    send_fat_rows(&mut pair.server, sid.raw(), 0, 50);
    pair.server_to_client();
    assert!(pair.client.poll_transmit().is_none());
}

// ---- digest cache ----

#[test]
fn repeated_statements_are_sent_as_their_digest() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let stmt = long_stmt("1");
    let first = pair.exec(sid, &stmt);
    pair.client_to_server();
    let sent = pair.server.received.back().cloned().unwrap();
    let ClientMessage::ExecSql(exec) = &sent.1 else {
        panic!()
    };
    assert_eq!(exec.stmt.as_deref(), Some(stmt.as_bytes()));
    let digest = exec
        .stmt_digest
        .clone()
        .expect("first send carries the digest");
    assert_eq!(digest.len(), 16);
    pair.auto();
    assert!(pair.completion(first).is_ok());

    let second = pair.exec(sid, &stmt);
    pair.client_to_server();
    let ClientMessage::ExecSql(exec) = &pair.server.received.back().unwrap().1 else {
        panic!()
    };
    assert_eq!(exec.stmt, None, "only the digest");
    assert_eq!(exec.stmt_digest.as_ref(), Some(&digest));
    pair.auto();
    assert!(pair.completion(second).is_ok());
    assert_eq!(pair.server.misses, 0);

    // Short statements always go in full.
    pair.exec(sid, "select 1");
    pair.exec(sid, "select 1");
    pair.client_to_server();
    for (_, m) in pair.server.recv_all() {
        let ClientMessage::ExecSql(exec) = m else {
            panic!()
        };
        assert!(exec.stmt.is_some() && exec.stmt_digest.is_none());
    }
}

#[test]
fn digest_miss_resends_the_full_statement_and_keeps_order() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let stmt = long_stmt("2");
    let warm = pair.exec(sid, &stmt);
    pair.auto();
    assert!(pair.completion(warm).is_ok());
    // The server forgets its cache.
    let mut fresh = FakeServer::new();
    std::mem::swap(&mut fresh, &mut pair.server);
    pair.server.adopt_session(sid.raw());

    let miss = pair.exec(sid, &stmt);
    let behind = pair.exec(sid, "select 8");
    pair.client_to_server();
    let frames = pair.server.recv_all();
    assert_eq!(
        frames.len(),
        1,
        "the request behind a digest-only one is held: {frames:?}"
    );
    let ClientMessage::ExecSql(exec) = &frames[0].1 else {
        panic!()
    };
    assert!(exec.stmt.is_none());
    pair.server.error(
        sid.raw(),
        false,
        6000,
        "HY000",
        "SQL digest not found in cache",
    );
    pair.server_to_client();
    assert!(pair.events.is_empty(), "the miss is not reported");
    pair.client_to_server();
    let frames = pair.server.recv_all();
    let stmts: Vec<Option<Bytes>> = frames
        .iter()
        .map(|(_, m)| match m {
            ClientMessage::ExecSql(e) => e.stmt.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        stmts,
        vec![
            Some(Bytes::from(stmt.clone())),
            Some(Bytes::from_static(b"select 8"))
        ],
        "the full statement first, then the held request"
    );
    for (sid, m) in frames {
        pair.server.received.push_back((sid, m));
    }
    pair.auto();
    let first = pair.completion(miss).unwrap();
    assert_eq!(first.rows_affected, 0);
    assert_eq!(
        pair.completion(behind).unwrap().into_result_set().rows,
        vec![vec![Value::Sint(8)]]
    );
}

#[test]
fn digest_hit_releases_held_requests_at_the_first_reply() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let stmt = long_stmt("3");
    pair.exec(sid, &stmt);
    pair.auto();
    pair.events.clear();
    pair.exec(sid, &stmt);
    pair.exec(sid, "select 1");
    pair.client_to_server();
    assert_eq!(pair.server.received.len(), 1);
    pair.server.auto_respond();
    pair.server_to_client();
    pair.client_to_server();
    assert_eq!(
        pair.server.received.len(),
        1,
        "released after the first reply"
    );
    pair.auto();
    assert_eq!(pair.completions(), 2);
}

// ---- timeouts ----

#[test]
fn query_timeout_kills_the_query_and_fails_the_request() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let opts = ExecOptions::default().timeout(Duration::from_millis(500));
    let id = pair.exec_with(sid, "sleep", &opts);
    pair.auto();
    assert_eq!(
        pair.client.poll_timeout(),
        Some(pair.now + Duration::from_millis(500))
    );
    pair.advance(Duration::from_millis(499));
    assert!(pair.events.is_empty());
    pair.advance(Duration::from_millis(1));
    let err = pair.completion(id).unwrap_err();
    assert!(err.is_timeout(), "{err}");
    pair.client_to_server();
    let (got, kill) = pair.server.recv();
    assert_eq!(got, sid.raw());
    let ClientMessage::KillSession(kill) = kill else {
        panic!("{kill:?}")
    };
    assert_eq!(kill.r#type, session::kill_session::KillType::Query as i32);
    // The server's 1317 for the killed statement is consumed silently.
    pair.server
        .received
        .push_back((sid.raw(), ClientMessage::KillSession(kill)));
    pair.auto();
    assert!(pair.events.is_empty(), "{:?}", pair.events);
    assert!(
        !pair.client.is_session_clean(sid),
        "the stored 1317 makes it dirty"
    );
    let next = pair.exec(sid, "select 6");
    pair.auto();
    assert!(pair.completion(next).is_ok());
    assert!(pair.client.is_session_clean(sid));
}

#[test]
fn a_queued_request_that_times_out_is_killed_when_it_starts() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let running = pair.exec(sid, "sleep");
    let opts = ExecOptions::default().timeout(Duration::from_secs(1));
    let queued = pair.exec_with(sid, "select 1", &opts);
    pair.client_to_server();
    pair.server.auto_respond();
    pair.server_to_client();
    pair.advance(Duration::from_secs(1));
    assert!(pair.completion(queued).unwrap_err().is_timeout());
    pair.client_to_server();
    assert!(
        pair.server.received.is_empty(),
        "a kill now would hit the running statement: {:?}",
        pair.server.received
    );
    // The running statement ends; now the timed-out one is at the head, and is killed.
    pair.server.sleeping.clear();
    pair.server.affected(sid.raw(), 0);
    pair.server_to_client();
    assert!(pair.completion(running).is_ok());
    pair.client_to_server();
    let (_, kill) = pair.server.recv();
    assert!(matches!(kill, ClientMessage::KillSession(_)), "{kill:?}");
}

// ---- heartbeat ----

#[test]
fn heartbeat_probes_after_ten_idle_seconds() {
    let mut pair = Pair::connected();
    assert_eq!(
        pair.client.poll_timeout(),
        Some(pair.now + Duration::from_secs(10))
    );
    pair.advance(Duration::from_secs(9));
    pair.client_to_server();
    assert!(pair.server.received.is_empty());
    pair.advance(Duration::from_secs(1));
    pair.client_to_server();
    let (sid, probe) = pair.server.recv();
    assert_eq!(sid, 0);
    assert!(matches!(probe, ClientMessage::CapabilitiesGet(_)));
    pair.server.capabilities();
    pair.server_to_client();
    // Answered: the next probe is due ten seconds after the answer.
    assert_eq!(
        pair.client.poll_timeout(),
        Some(pair.now + Duration::from_secs(10))
    );
}

#[test]
fn traffic_postpones_the_heartbeat() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    for _ in 0..5 {
        pair.advance(Duration::from_secs(6));
        pair.exec(sid, "select 1");
        pair.auto();
    }
    assert_eq!(pair.server.probes, 0);
}

#[test]
fn five_unanswered_heartbeats_lose_the_connection() {
    let mut pair = Pair::connected();
    let (_, id) = pair.open_and_run("sleep");
    let mut probes = 0;
    for second in 1..=60 {
        pair.advance(Duration::from_secs(1));
        pair.client_to_server();
        probes += pair.server.recv_all().len();
        if second < 60 {
            assert!(!pair.client.is_closed(), "closed early, at {second} s");
        }
    }
    assert_eq!(probes, 5);
    assert!(pair.client.is_closed());
    let err = pair.completion(id).unwrap_err();
    assert!(err.is_connection_lost());
    assert!(err.to_string().contains("heartbeat"), "{err}");
}

// ---- pool hygiene ----

#[test]
fn transactions_make_a_session_dirty_until_they_end() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    pair.exec(sid, "BEGIN");
    assert!(
        !pair.client.is_session_clean(sid),
        "dirty from the moment BEGIN is issued"
    );
    pair.auto();
    assert!(pair.client.in_transaction(sid));
    pair.exec(sid, "insert into t values (1)");
    pair.exec(sid, "COMMIT");
    pair.auto();
    assert!(pair.client.is_session_clean(sid));

    pair.exec(sid, "SET autocommit = 0");
    pair.auto();
    pair.exec(sid, "commit");
    pair.auto();
    assert!(
        !pair.client.is_session_clean(sid),
        "autocommit is still off"
    );
    pair.exec(sid, "set autocommit=1");
    pair.auto();
    assert!(pair.client.is_session_clean(sid));
}

#[test]
fn statement_arguments_are_sent_as_scalars() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    pair.client
        .execute(
            sid,
            "insert into t values (?, ?, ?)",
            &[Param::from(1i64), Param::from("x"), Param::Null],
            &ExecOptions::default().schema("other"),
            pair.now,
        )
        .unwrap();
    pair.client_to_server();
    pair.server.recv();
    let (_, exec) = pair.server.recv_exec();
    assert_eq!(exec.args.len(), 3);
    assert_eq!(exec.schema_name.as_deref(), Some("other"));
    assert_eq!(exec.args[0].scalar.as_ref().unwrap().v_signed_int, Some(1));
}

#[test]
fn oversized_statements_are_refused_locally() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let huge = "x".repeat(64 * 1024 * 1024);
    let err = pair
        .client
        .execute(sid, huge, &[], &ExecOptions::default(), pair.now)
        .unwrap_err();
    assert!(err.is_usage(), "{err}");
    assert!(!pair.client.is_closed());
}

#[test]
fn warnings_are_kept() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "insert ignore");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    let payload = prost::Message::encode_to_vec(&notice::Warning {
        level: Some(2),
        code: 1265,
        msg: "Data truncated".into(),
    });
    pair.server.send(
        sid.raw(),
        xrpc_proto::messages::ServerMessage::Notice(notice::Frame {
            r#type: 1,
            scope: Some(2),
            payload: Some(payload.into()),
        }),
    );
    pair.server.affected(sid.raw(), 1);
    pair.server_to_client();
    let result = pair.completion(id).unwrap();
    assert_eq!(result.warnings.len(), 1);
    assert_eq!(result.warnings[0].code, 1265);
}

impl Pair {
    /// Auto mode for a session whose SESS_NEW this fake server did not see.
    fn auto_after_open(&mut self, sid: SessionId) {
        self.server.adopt_session(sid.raw());
        self.auto();
    }
}

#[test]
fn several_result_sets_fail_the_request_but_not_the_session() {
    use xrpc_proto::messages::ServerMessage;
    use xrpc_proto::messages::pb::resultset as rs;
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let id = pair.exec(sid, "call two_results()");
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.adopt_session(sid.raw());
    pair.server.ok(sid.raw());
    pair.server.metadata(sid.raw(), &[("a", ColumnType::Sint)]);
    pair.server.row(sid.raw(), &[Value::Sint(1)]);
    pair.server.send(
        sid.raw(),
        ServerMessage::FetchDoneMoreResultsets(rs::FetchDoneMoreResultsets {}),
    );
    pair.server.metadata(sid.raw(), &[("b", ColumnType::Sint)]);
    pair.server.row(sid.raw(), &[Value::Sint(2)]);
    let done = pair.server.fetch_done();
    pair.server.send(sid.raw(), done);
    pair.server.exec_ok(sid.raw());
    pair.server_to_client();
    let err = pair.completion(id).unwrap_err();
    assert!(err.is_protocol(), "{err}");
    let next = pair.exec(sid, "select 1");
    pair.auto();
    assert!(pair.completion(next).is_ok());
}

#[test]
fn dropping_a_stream_releases_a_held_back_offer() {
    let mut pair = Pair::connected();
    let sid = pair.client.open_session().unwrap();
    let opts = ExecOptions::default().token_kib(Some(1)).stream(true);
    let id = pair.exec_with(sid, "select fat", &opts);
    pair.client_to_server();
    pair.server.recv_all();
    pair.server.ok(sid.raw());
    pair.server.metadata(sid.raw(), &[("b", ColumnType::Bytes)]);
    send_fat_rows(&mut pair.server, sid.raw(), 0, 8);
    pair.server.token_done(sid.raw());
    pair.server_to_client();
    pair.client_to_server();
    assert!(pair.server.received.is_empty());
    pair.client.drop_stream(id);
    pair.client_to_server();
    let offers = pair.server.recv_all();
    assert!(
        matches!(offers.as_slice(), [(_, ClientMessage::TokenOffer(_))]),
        "{offers:?}"
    );
    let done = pair.server.fetch_done();
    pair.server.send(sid.raw(), done);
    pair.server.exec_ok(sid.raw());
    pair.server_to_client();
    assert!(pair.completion(id).is_ok());
    assert_eq!(pair.client.take_rows(id), StreamRead::Finished);
    assert!(pair.client.is_session_clean(sid));
}
