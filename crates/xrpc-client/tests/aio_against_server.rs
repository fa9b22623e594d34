//! The tokio transport against real `xrpc-server` nodes started in-process (feature `async`).
//!
//! Without the feature this file compiles to nothing. Run it with
//! `cargo test -p xrpc-client --features async --test aio_against_server`.
//!
//! The tests of kills, broken connections and plans run on both engines
//! (`on_both_engines_async!`: SQLite, and the `mysql` engine in front of the binary's one
//! MariaDB); as in `against_server.rs`, they wait for what they can observe rather than bound
//! how long a loaded machine takes.

#![cfg(feature = "async")]

mod real;

use std::time::{Duration, Instant};

use real::{APP_PASSWORD, Engine, Proxy, TestNode, wait_until};
use xrpc_client::ConnectOptions;
use xrpc_client::aio::Connection;
use xrpc_client::{ExecOptions, Param, Value};
use xrpc_proto::value::{XDateTime, XDecimal, XTime};

fn options() -> ConnectOptions {
    ConnectOptions::new("app", APP_PASSWORD)
}

fn bytes(text: &str) -> Value {
    Value::Bytes(bytes::Bytes::copy_from_slice(text.as_bytes()))
}

/// Runs each named test, an `async fn(Engine)`, once per engine on a tokio runtime: as
/// `on_sqlite::name` and `on_mysql::name`.
macro_rules! on_both_engines_async {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::Engine::Sqlite).await
            })*
        }
        mod on_mysql {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::Engine::Mysql).await
            })*
        }
    };
}

on_both_engines_async!(
    async_timeout_kills_the_statement_on_the_node,
    async_broken_and_hung_connections,
    async_sessions_run_plans,
);

/// Far beyond any normal run, far below [`Engine::endless`]'s hour.
const PATIENCE: Duration = Duration::from_secs(30);

/// Typed values with NULLs, as rows, as chunks and on an auto-commit sid.
#[tokio::test]
async fn async_result_types_as_rows_chunks_and_auto_commit() {
    let node = TestNode::start();
    let conn = Connection::connect(node.addr(), options()).await.unwrap();
    let mut session = conn.session().unwrap();
    session
        .query(
            "create table t (id integer primary key, r real, s text, b blob, \
             d decimal(10,2), dt date, ts datetime(1), tm time)",
        )
        .await
        .unwrap();
    let insert = "insert into t values (?, ?, ?, ?, ?, ?, ?, ?)";
    let args: Vec<Param> = vec![
        1i64.into(),
        0.5f64.into(),
        "text".into(),
        vec![0u8, 0xfe].into(),
        "-3.1".into(),
        "2001-02-03".into(),
        "2001-02-03 04:05:06.5".into(),
        "-01:02:03".into(),
    ];
    session.execute(insert, &args).await.unwrap();
    let mut nulls = vec![Param::Null; 8];
    nulls[0] = 2i64.into();
    session.execute(insert, &nulls).await.unwrap();
    let expected = vec![
        vec![
            Value::Sint(1),
            Value::Double(0.5),
            bytes("text"),
            Value::Bytes(bytes::Bytes::from_static(&[0, 0xfe])),
            Value::Decimal(XDecimal::parse("-3.10").unwrap()),
            Value::DateTime(XDateTime::date(2001, 2, 3).unwrap()),
            Value::DateTime(XDateTime::new(2001, 2, 3, 4, 5, 6, 500_000).unwrap()),
            Value::Time(XTime::new(true, 1, 2, 3, 0).unwrap()),
        ],
        std::iter::once(Value::Sint(2))
            .chain(std::iter::repeat_n(Value::Null, 7))
            .collect(),
    ];
    let select = "select * from t order by id";
    let rows = session.query(select).await.unwrap();
    assert_eq!(rows.rows, expected);
    let chunks = session
        .execute_with(select, &[], &ExecOptions::default().chunk_result(true))
        .await
        .unwrap()
        .into_result_set();
    assert_eq!(chunks, rows);
    assert_eq!(conn.query_once(select).await.unwrap(), rows);
}

/// Pipelines in order with a cascading failed SET, a stream in order, a result under a small
/// flow-control budget, and a digest miss resent transparently.
#[tokio::test]
async fn async_pipeline_stream_flow_control_and_digest_miss() {
    let node = TestNode::start();
    let conn = Connection::connect(node.addr(), options()).await.unwrap();
    let mut session = conn.session().unwrap();
    let mut results = session
        .pipeline()
        .fire_and_forget("set global no_such_variable = 1")
        .push("select 1")
        .push("select 2")
        .send()
        .unwrap();
    let err = results.next_result().await.unwrap().unwrap_err();
    assert_eq!(err.code(), Some(1193), "{err}");
    let two = results.next_result().await.unwrap().unwrap();
    assert_eq!(two.into_result_set().rows, vec![vec![Value::Sint(2)]]);
    assert!(results.next_result().await.is_none());
    drop(results);

    let mut stream = session
        .query_stream(
            "with recursive c(i) as (select 1 union all select i + 1 from c where i < 3000) \
             select i from c",
        )
        .unwrap();
    let mut expected = 1;
    while let Some(row) = stream.next().await {
        assert_eq!(row.unwrap(), vec![Value::Sint(expected)]);
        expected += 1;
    }
    assert_eq!(expected, 3001);
    drop(stream);

    let big = session
        .execute_with(
            "with recursive c(i) as (select 1 union all select i + 1 from c where i < 2000) \
             select i, lpad(i, 1000, '0') from c",
            &[],
            &ExecOptions::default().token_kib(Some(16)),
        )
        .await
        .unwrap()
        .into_result_set();
    assert_eq!(big.rows.len(), 2000);
    for (n, row) in big.rows.iter().enumerate() {
        let i = n as i64 + 1;
        assert_eq!(row, &vec![Value::Sint(i), bytes(&format!("{i:01000}"))]);
    }

    session
        .query("set global xrpc_request_cache_max_length = 128")
        .await
        .unwrap();
    let long = "select 'this statement is longer than the 128 bytes the node now caches, so each \
                digest-only send misses' as padding, 42 as answer";
    for _ in 0..3 {
        let rs = session.query(long).await.unwrap();
        assert_eq!(rs.rows[0][1], Value::Sint(42));
    }
    assert_eq!(node.shared().cache.misses(), 2);
    assert!(session.is_clean());
}

/// A statement over its timeout fails with a timeout error, not before its deadline, and is
/// killed on the node; the session goes on. The 200 ms timeout applies to the endless statement
/// only: on a loaded machine `select 3` may take longer.
async fn async_timeout_kills_the_statement_on_the_node(engine: Engine) {
    let node = TestNode::start_on(engine);
    let conn = Connection::connect(node.addr(), options()).await.unwrap();
    let mut session = conn.session().unwrap();
    let timeout = Duration::from_millis(200);
    session.set_timeout(Some(timeout));
    let started = Instant::now();
    let err = session.query(engine.endless()).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(started.elapsed() >= timeout, "{:?}", started.elapsed());
    let shared = node.shared().clone();
    let stopped = tokio::task::spawn_blocking(move || {
        wait_until(PATIENCE, || shared.running_statements() == 0)
    })
    .await
    .unwrap();
    assert!(stopped, "the kill stopped the statement on the node");
    session.set_timeout(None);
    assert_eq!(
        session.query("select 3").await.unwrap().rows[0][0],
        Value::Sint(3)
    );
    assert!(session.is_clean());
}

/// A connection cut mid-query fails the statement with a connection-lost error; a frozen peer is
/// dropped by the heartbeat; a new connection works.
async fn async_broken_and_hung_connections(engine: Engine) {
    let node = TestNode::start_on(engine);
    let proxy = Proxy::start(node.addr());
    let conn = Connection::connect(proxy.addr(), options()).await.unwrap();
    let mut session = conn.session().unwrap();
    let running = tokio::spawn(async move { session.query(engine.endless()).await.unwrap_err() });
    let shared = node.shared().clone();
    let started = tokio::task::spawn_blocking(move || {
        wait_until(PATIENCE, || shared.running_statements() == 1)
    })
    .await
    .unwrap();
    assert!(started);
    proxy.cut();
    let err = running.await.unwrap();
    assert!(err.is_connection_lost(), "{err}");
    assert!(conn.is_broken());
    let shared = node.shared().clone();
    let stopped = tokio::task::spawn_blocking(move || {
        wait_until(PATIENCE, || shared.running_statements() == 0)
    })
    .await
    .unwrap();
    assert!(stopped, "the node stopped the lost connection's statement");

    let mut opts = options().heartbeat_interval(Some(Duration::from_millis(100)));
    opts.heartbeat_timeout = Duration::from_millis(100);
    let conn = Connection::connect(proxy.addr(), opts).await.unwrap();
    assert_eq!(conn.query_once("select 1").await.unwrap().rows.len(), 1);
    // Three probes (9-byte frames, larger answers) sent and answered on the idle connection.
    let (up, down) = (proxy.bytes_up(), proxy.bytes_down());
    let deadline = Instant::now() + PATIENCE;
    while proxy.bytes_up() - up < 3 * 9 || proxy.bytes_down() - down < 3 * 9 {
        assert!(
            Instant::now() < deadline,
            "no heartbeats on an idle connection"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(!conn.is_broken(), "answered heartbeats keep it");
    proxy.freeze(true);
    let deadline = Instant::now() + PATIENCE;
    while !conn.is_broken() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let err = conn.broken_error().expect("the hung connection is dropped");
    assert!(err.to_string().contains("heartbeats"), "{err}");
    proxy.freeze(false);

    let conn = Connection::connect(node.addr(), options()).await.unwrap();
    assert_eq!(
        conn.query_once("select 6").await.unwrap().rows[0][0],
        Value::Sint(6)
    );
}

async fn async_sessions_run_plans(engine: Engine) {
    use xrpc_client::plan::{Plan, placeholder};
    let node = TestNode::start_on(engine);
    let conn = Connection::connect(node.addr_string(), options())
        .await
        .unwrap();
    let mut session = conn.session().unwrap();
    session
        .query("create table kv (k bigint primary key, v varchar(10))")
        .await
        .unwrap();
    session
        .query("insert into kv values (1, 'one'), (2, 'two')")
        .await
        .unwrap();
    let plan = Plan::get("kv")
        .key([("k", placeholder(0))])
        .build()
        .project(["v"]);
    let rows = session.execute_plan(&plan, &[2i64.into()]).await.unwrap();
    assert_eq!(rows.rows, [[bytes("two")]]);
}
