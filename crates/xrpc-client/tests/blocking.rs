//! The blocking transport, pool and cluster against the fake server behind real sockets.
//!
//! The real `xrpc-server` is not usable yet; these tests exercise the transport machinery (reader
//! thread, parked callers, coalesced writes, timers, pool rules) against `common::FakeServer` in
//! auto mode. The tests against the real server are listed in the crate README.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::PASSWORD;
use common::tcp::TcpFake;
use xrpc_client::ConnectOptions;
use xrpc_client::blocking::Connection;
use xrpc_client::cluster::Cluster;
use xrpc_client::pool::{Pool, PoolOptions};
use xrpc_client::{ExecOptions, Value};

fn options() -> ConnectOptions {
    ConnectOptions::new("app", PASSWORD).connect_timeout(Duration::from_secs(5))
}

#[test]
fn connect_query_and_execute() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let rs = session.query("select 5").unwrap();
    assert_eq!(rs.rows, vec![vec![Value::Sint(5)]]);
    assert_eq!(rs.columns[0].name, "n");
    let done = session
        .execute("insert into t values (?)", &[1i64.into()])
        .unwrap();
    assert_eq!((done.rows_affected, done.last_insert_id), (1, Some(7)));
    let once = conn.query_once("select 6").unwrap();
    assert_eq!(once.rows, vec![vec![Value::Sint(6)]]);
    assert!(session.is_clean());
}

#[test]
fn wrong_password_fails_connect_with_an_auth_error() {
    let server = TcpFake::start();
    let err = Connection::connect(server.addr, ConnectOptions::new("app", "nope")).unwrap_err();
    assert!(err.is_auth(), "{err}");
    assert_eq!(err.code(), Some(1045));
}

#[test]
fn a_silent_server_times_the_handshake_out() {
    let server = TcpFake::start();
    server.shared.silent.store(true, Ordering::Release);
    let started = Instant::now();
    let err = Connection::connect(
        server.addr,
        options().connect_timeout(Duration::from_millis(200)),
    )
    .unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn sql_errors_keep_the_session() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let err = session.query("error").unwrap_err();
    assert_eq!((err.code(), err.sql_state()), (Some(1064), Some("42000")));
    assert!(!session.is_clean(), "the server stores the error");
    assert_eq!(session.query("select 1").unwrap().rows.len(), 1);
    assert!(session.is_clean());
}

#[test]
fn pipelines_return_results_in_order_and_cascade_errors() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let results: Vec<_> = session
        .pipeline()
        .fire_and_forget("set names utf8mb4")
        .push("select 1")
        .push("select 2")
        .push("select 3")
        .send()
        .unwrap()
        .collect();
    let values: Vec<Value> = results
        .into_iter()
        .map(|r| r.unwrap().into_result_set().rows[0][0].clone())
        .collect();
    assert_eq!(values, vec![Value::Sint(1), Value::Sint(2), Value::Sint(3)]);

    let mut results = session
        .pipeline()
        .fire_and_forget("error in a set")
        .push("select 1")
        .push("select 2")
        .send()
        .unwrap();
    assert_eq!(results.remaining(), 2);
    let err = results.next_result().unwrap().unwrap_err();
    assert_eq!(err.code(), Some(1064), "the failed SET cascades: {err}");
    assert!(results.next_result().unwrap().is_ok());
    assert!(results.next_result().is_none());
}

#[test]
fn streamed_rows_arrive_in_order() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let mut stream = session.query_stream("rows 3000").unwrap();
    let mut expected = 0;
    for row in stream.by_ref() {
        assert_eq!(row.unwrap(), vec![Value::Sint(expected)]);
        expected += 1;
    }
    assert_eq!(expected, 3000);
    assert_eq!(stream.columns().unwrap()[0].name, "i");
    drop(stream);
    assert!(session.is_clean());
}

#[test]
fn an_owned_stream_lives_beside_its_session_and_ends_with_the_outcome() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let mut stream = session
        .query_stream_owned("rows 2000", &[], &ExecOptions::default().token_kib(Some(1)))
        .unwrap();
    assert_eq!(stream.next().unwrap().unwrap(), vec![Value::Sint(0)]);
    assert!(stream.outcome().is_none(), "no outcome before the last row");
    // The stream does not borrow the session, which knows a result is still open.
    assert!(!session.is_clean());
    let count = stream.by_ref().count();
    assert_eq!(count, 1999);
    let outcome = stream
        .outcome()
        .expect("the outcome once every row is read");
    assert_eq!(outcome.result_set.as_ref().unwrap().columns[0].name, "i");
    drop(stream);
    assert_eq!(
        session.query("select 2").unwrap().rows[0][0],
        Value::Sint(2)
    );
}

#[test]
fn query_timeout_kills_the_query() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    session.set_timeout(Some(Duration::from_millis(100)));
    let started = Instant::now();
    let err = session.query("sleep").unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert!(started.elapsed() < Duration::from_secs(2));
    // The kill made the fake server answer 1317, which the client swallowed; the session works.
    assert_eq!(
        session.query("select 2").unwrap().rows[0][0],
        Value::Sint(2)
    );
}

#[test]
fn kill_handle_interrupts_from_another_thread() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    // Should the kill miss the statement, the query times out instead of hanging the test.
    session.set_timeout(Some(Duration::from_secs(20)));
    let killer = session.kill_handle();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            server.wait_until("the statement running", |s| {
                s.sleeping.load(Ordering::Acquire) == 1
            });
            killer.kill_query().unwrap();
        });
        let err = session.query("sleep").unwrap_err();
        assert!(err.is_interrupted(), "{err}");
    });
}

#[test]
fn many_threads_share_one_connection() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    std::thread::scope(|scope| {
        for t in 0..8i64 {
            let conn = conn.clone();
            scope.spawn(move || {
                let mut session = conn.session().unwrap();
                for i in 0..100 {
                    let n = t * 1000 + i;
                    let rs = session.query(&format!("select {n}")).unwrap();
                    assert_eq!(rs.rows, vec![vec![Value::Sint(n)]]);
                }
            });
        }
    });
    assert_eq!(server.shared.accepted.load(Ordering::Acquire), 1);
}

#[test]
fn repeated_statements_use_the_digest_cache() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let stmt = "select 77 /* long enough to be worth a digest, which is sixteen bytes */";
    for _ in 0..3 {
        assert_eq!(session.query(stmt).unwrap().rows[0][0], Value::Sint(77));
    }
    assert_eq!(server.shared.misses.load(Ordering::Acquire), 0);
}

#[test]
fn a_broken_connection_fails_every_session() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut a = conn.session().unwrap();
    let mut b = conn.session().unwrap();
    let waiting = std::thread::spawn(move || b.query("sleep").unwrap_err());
    // b's statement is in flight (the server runs it) before the connection breaks.
    server.wait_until("b's statement running", |s| {
        s.sleeping.load(Ordering::Acquire) == 1
    });
    let err = a.query("crash").unwrap_err();
    assert!(err.is_connection_lost(), "{err}");
    assert!(err.to_string().contains("closed the connection"), "{err}");
    let err = waiting.join().unwrap();
    assert!(err.is_connection_lost(), "{err}");
    assert!(conn.is_broken());
    assert!(a.query("select 1").unwrap_err().is_connection_lost());
}

#[test]
fn a_hung_server_is_dropped_after_five_heartbeats() {
    let server = TcpFake::start();
    let mut opts = options().heartbeat_interval(Some(Duration::from_millis(40)));
    opts.heartbeat_timeout = Duration::from_millis(40);
    let conn = Connection::connect(server.addr, opts).unwrap();
    server.wait_until("three probes", |s| s.probes.load(Ordering::Acquire) >= 3);
    assert!(!conn.is_broken(), "answered heartbeats keep it alive");
    server.shared.silent.store(true, Ordering::Release);
    let deadline = Instant::now() + Duration::from_secs(3);
    while !conn.is_broken() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(conn.is_broken());
    let err = conn.broken_error().unwrap();
    assert!(err.to_string().contains("heartbeat"), "{err}");
}

// ---- pool ----

#[test]
fn pool_reuses_clean_sessions_only() {
    let server = TcpFake::start();
    let pool = Pool::new(server.addr.to_string(), PoolOptions::new(options()));
    let sid = {
        let mut s = pool.session().unwrap();
        s.query("select 1").unwrap();
        s.id()
    };
    assert_eq!(pool.status().idle_sessions, 1);
    let dirty = {
        let mut s = pool.session().unwrap();
        assert_eq!(s.id(), sid, "the clean session is reused");
        s.execute("begin", &[]).unwrap();
        assert!(s.in_transaction());
        s.id()
    };
    assert_eq!(
        pool.status().idle_sessions,
        0,
        "a session in a transaction is closed, not pooled"
    );
    let mut s = pool.session().unwrap();
    assert_ne!(s.id(), dirty);
    // A session with a stored error is not reused either.
    let _ = s.query("error");
    drop(s);
    assert_eq!(pool.status().idle_sessions, 0);
    // One connection served all of it.
    assert_eq!(server.shared.accepted.load(Ordering::Acquire), 1);
}

#[test]
fn pool_spreads_sessions_and_reports_exhaustion() {
    let server = TcpFake::start();
    let pool = Pool::new(
        server.addr.to_string(),
        PoolOptions::new(options())
            .max_connections(2)
            .max_sessions_per_connection(2),
    );
    let sessions: Vec<_> = (0..4).map(|_| pool.session().unwrap()).collect();
    assert_eq!(pool.status().connections, 2);
    let err = pool.session().unwrap_err();
    assert!(err.is_pool_exhausted(), "{err}");
    drop(sessions);
    // Never used, hence clean: all four are idle now.
    assert_eq!(pool.status().idle_sessions, 4);
    assert!(pool.session().is_ok());
}

#[test]
fn pool_recovers_from_a_broken_connection() {
    let server = TcpFake::start();
    let pool = Pool::new(server.addr.to_string(), PoolOptions::new(options()));
    let mut s = pool.session().unwrap();
    s.query("select 1").unwrap();
    server.kill_connections();
    let err = s.query("select 1").unwrap_err();
    assert!(err.is_connection_lost(), "{err}");
    drop(s);
    let mut s = pool.session().unwrap();
    assert_eq!(s.query("select 3").unwrap().rows[0][0], Value::Sint(3));
    assert_eq!(server.shared.accepted.load(Ordering::Acquire), 2);
    assert_eq!(pool.status().connections, 1);
}

#[test]
fn pool_query_once_uses_auto_commit_sids() {
    let server = TcpFake::start();
    let pool = Pool::new(server.addr.to_string(), PoolOptions::new(options()));
    for n in 0..5 {
        assert_eq!(
            pool.query_once(&format!("select {n}")).unwrap().rows[0][0],
            Value::Sint(n)
        );
    }
    assert_eq!(pool.status().sessions, 0, "no session is held");
}

#[test]
fn chunked_results_through_the_transport() {
    let server = TcpFake::start();
    let conn = Connection::connect(server.addr, options()).unwrap();
    let mut session = conn.session().unwrap();
    let result = session
        .execute_with("rows 10", &[], &ExecOptions::default().chunk_result(true))
        .unwrap();
    assert_eq!(result.into_result_set().rows.len(), 10);
}

// ---- cluster ----

#[test]
fn cluster_routes_by_shard_key() {
    let nodes = [TcpFake::start(), TcpFake::start()];
    let cluster = Cluster::new(
        nodes.iter().map(|n| n.addr.to_string()),
        PoolOptions::new(options()),
    )
    .unwrap();
    let mut used = [0usize; 2];
    for key in 0u64..20 {
        let node = cluster.node_for(&key.to_be_bytes());
        used[node] += 1;
        let mut session = cluster.session(&key.to_be_bytes()).unwrap();
        assert_eq!(session.connection().peer_addr(), nodes[node].addr);
        session.query("select 1").unwrap();
    }
    assert!(used.iter().all(|&n| n > 0), "{used:?}");
    for node in &nodes {
        assert_eq!(node.shared.accepted.load(Ordering::Acquire), 1);
    }
    assert_eq!(
        cluster.query_once(b"k", "select 4").unwrap().rows[0][0],
        Value::Sint(4)
    );
}
