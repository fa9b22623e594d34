//! The blocking client, pool and cluster against real `xrpc-server` nodes started in-process
//! (loopback port 0). The tests whose SQL holds on every engine run on
//! both (`on_both_engines!`): SQLite in a temporary directory, and the `mysql` engine in front of
//! the binary's one MariaDB; the others (SQLite's own types and locks) on SQLite.
//!
//! Timing: the node shares two CPUs with other tests of this binary (MariaDB starting, statements
//! that burn a CPU until killed), so the tests wait for what they can observe (the node's count of
//! running statements, an error's kind) with deadlines far beyond any normal run, and only bound a
//! duration where the bound is the property: a timeout that fires after its deadline and long
//! before the endless statement could end by itself.
//!
//! Connection failures and hung peers are staged with `real::Proxy`, a TCP relay in front of a node
//! that can cut or freeze its connections; restarting a node on the same port covers the process
//! going away.

mod real;

use std::time::{Duration, Instant};

use real::{APP_PASSWORD, Engine, Proxy, TestNode, wait_until};
use xrpc_client::ConnectOptions;
use xrpc_client::blocking::Connection;
use xrpc_client::cluster::Cluster;
use xrpc_client::pool::{Pool, PoolOptions};
use xrpc_client::{ColumnType, ExecOptions, Param, Value};
use xrpc_proto::value::{XDateTime, XDecimal, XTime};

fn options() -> ConnectOptions {
    ConnectOptions::new("app", APP_PASSWORD)
}

fn pool(addr: String) -> Pool {
    Pool::new(addr, PoolOptions::new(options()).max_connections(1))
}

fn int(value: &Value) -> i64 {
    match value {
        Value::Sint(n) => *n,
        other => panic!("not a SINT: {other:?}"),
    }
}

fn bytes(text: &str) -> Value {
    Value::Bytes(bytes::Bytes::copy_from_slice(text.as_bytes()))
}

fn decimal(text: &str) -> Value {
    Value::Decimal(XDecimal::parse(text).unwrap())
}

fn date(y: u32, m: u32, d: u32) -> Value {
    Value::DateTime(XDateTime::date(y, m, d).unwrap())
}

fn datetime(y: u32, mo: u32, d: u32, h: u32, mi: u32, s: u32, us: u32) -> Value {
    Value::DateTime(XDateTime::new(y, mo, d, h, mi, s, us).unwrap())
}

fn time(negative: bool, h: u32, m: u32, s: u32) -> Value {
    Value::Time(XTime::new(negative, h, m, s, 0).unwrap())
}

/// `select count(*) from c` where `c` counts to `n`: roughly `n / 3` µs of SQLite work.
fn counting(n: u64) -> String {
    format!(
        "with recursive c(i) as (select 1 union all select i + 1 from c where i < {n}) \
         select count(*) from c"
    )
}

/// Runs each named test, a `fn(Engine)`, once per engine: as `on_sqlite::name` and
/// `on_mysql::name`.
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $name() {
                super::$name(super::Engine::Sqlite)
            })*
        }
        mod on_mysql {
            $(#[test]
            fn $name() {
                super::$name(super::Engine::Mysql)
            })*
        }
    };
}

on_both_engines!(
    pipelines_run_in_order_and_a_failed_set_cascades,
    concurrent_pipelines_share_one_connection,
    a_connection_cut_mid_query_fails_its_sessions_and_the_pool_reconnects,
    a_node_restarted_mid_query_fails_the_statement_and_the_pool_recovers,
    results_much_larger_than_the_token_arrive_whole_and_in_order,
    a_slow_stream_reader_stalls_the_node_and_reading_resumes_it,
    digest_hits_and_transparent_resends_on_a_miss,
    a_timed_out_statement_is_killed_and_the_session_goes_on,
);

/// Far beyond any normal run, far below [`Engine::endless`]'s hour: what the tests give a node to
/// reach a state they wait for.
const PATIENCE: Duration = Duration::from_secs(30);

/// `rows` rows of `(i, i as text zero-padded to width)`, `i` from 1 (a SINT on both engines).
fn padded_rows(engine: Engine, rows: u64, width: usize) -> String {
    match engine {
        Engine::Sqlite => format!(
            "with recursive c(i) as (select 1 union all select i + 1 from c where i < {rows}) \
             select i, lpad(i, {width}, '0') from c"
        ),
        // MariaDB's sequence engine; its seq is unsigned, cast to compare as SINT.
        Engine::Mysql => format!(
            "select cast(seq as signed), lpad(seq, {width}, '0') from seq_1_to_{rows} order by seq"
        ),
    }
}

/// Whether MariaDB still runs an [`Engine::endless`] statement in this node's database, as its
/// process list says (asked on a connection of its own to the node; the backend's connections
/// all use the node's one account, so the list shows them). A kill that stopped the statement on the node but never reached MariaDB
/// would leave it burning a CPU for an hour, starving every other test of the binary. On SQLite
/// the statement runs inside the node, and the node's own count of running statements covers it.
fn backend_runs_endless(engine: Engine, node: &TestNode) -> bool {
    match engine {
        Engine::Sqlite => false,
        Engine::Mysql => {
            let conn = Connection::connect(node.addr(), options()).unwrap();
            let rs = conn
                .session()
                .unwrap()
                // The node's driver tags each statement with a leading comment naming it (for
                // KILL QUERY ID), so the text is matched anywhere but in this query itself.
                .query(
                    "select count(*) from information_schema.processlist \
                     where db = database() and info like '%from seq_1_to_1000000 a%' \
                     and info not like '%processlist%'",
                )
                .unwrap();
            rs.rows[0][0] != Value::Sint(0)
        }
    }
}

// ---- every result type ----

const ALL_TYPES: &str = "create table all_types (id integer primary key, i bigint, r real, \
                         s text, b blob, d decimal(10,2), dt date, ts datetime(6), tm time, \
                         vc varchar(20), bi bigint, f double)";

/// Every type the SQLite engine produces (SINT, DOUBLE, BYTES text and binary, DECIMAL, DATE and
/// DATETIME, TIME, the NULL column), in 12 columns with NULLs, read as rows, as chunks and on an
/// auto-commit sid: the same typed values each time.
#[test]
fn every_result_type_as_rows_chunks_and_auto_commit() {
    let node = TestNode::start();
    let pool = pool(node.addr_string());
    let mut session = pool.session().unwrap();
    session.query(ALL_TYPES).unwrap();
    let insert = "insert into all_types values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    let first: Vec<Param> = vec![
        1i64.into(),
        (-42i64).into(),
        2.5f64.into(),
        "héllo".into(),
        vec![0u8, 0xff, 1].into(),
        "12.5".into(),
        "2024-02-29".into(),
        "2024-02-29 13:14:15".into(),
        "-12:34:56".into(),
        "abc".into(),
        9_007_199_254_740_993i64.into(),
        (-0.125f64).into(),
    ];
    assert_eq!(session.execute(insert, &first).unwrap().rows_affected, 1);
    let mut nulls = vec![Param::Null; 12];
    nulls[0] = 2i64.into();
    session.execute(insert, &nulls).unwrap();
    session
        .query(
            "insert into all_types values (3, 9223372036854775807, -1e300, '', x'', '-0.05', \
             '1970-01-01', '2038-01-19 03:14:07.123456', '838:59:59', '', \
             -9223372036854775808, 0.0)",
        )
        .unwrap();

    let expected = vec![
        vec![
            Value::Sint(1),
            Value::Sint(-42),
            Value::Double(2.5),
            bytes("héllo"),
            Value::Bytes(bytes::Bytes::from_static(&[0, 0xff, 1])),
            decimal("12.50"),
            date(2024, 2, 29),
            datetime(2024, 2, 29, 13, 14, 15, 0),
            time(true, 12, 34, 56),
            bytes("abc"),
            Value::Sint(9_007_199_254_740_993),
            Value::Double(-0.125),
        ],
        std::iter::once(Value::Sint(2))
            .chain(std::iter::repeat_n(Value::Null, 11))
            .collect(),
        vec![
            Value::Sint(3),
            Value::Sint(i64::MAX),
            Value::Double(-1e300),
            bytes(""),
            bytes(""),
            decimal("-0.05"),
            date(1970, 1, 1),
            datetime(2038, 1, 19, 3, 14, 7, 123_456),
            time(false, 838, 59, 59),
            bytes(""),
            Value::Sint(i64::MIN),
            Value::Double(0.0),
        ],
    ];
    let select = "select * from all_types order by id";
    let rows = session.query(select).unwrap();
    assert_eq!(rows.rows, expected);
    let types: Vec<ColumnType> = rows.columns.iter().map(|c| c.ty).collect();
    use ColumnType::*;
    assert_eq!(
        types,
        [
            Sint, Sint, Double, Bytes, Bytes, Decimal, DateTime, DateTime, Time, Bytes, Sint,
            Double
        ]
    );
    let names: Vec<&str> = rows.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "id", "i", "r", "s", "b", "d", "dt", "ts", "tm", "vc", "bi", "f"
        ]
    );
    let col = |name: &str| &rows.columns[rows.column_index(name).unwrap()];
    assert!(col("b").is_binary() && !col("s").is_binary());
    assert_eq!(col("d").fractional_digits, Some(2));
    // DATE and DATETIME share the X type; the MySQL type and `has_time` tell them apart.
    assert_eq!((col("dt").original_type, col("ts").original_type), (10, 12));
    assert_eq!(rows.text(0, 3), Some("héllo"));

    let chunks = session
        .execute_with(select, &[], &ExecOptions::default().chunk_result(true))
        .unwrap()
        .into_result_set();
    assert_eq!(chunks, rows, "chunks decode to the same columns and values");
    let once = pool.query_once(select).unwrap();
    assert_eq!(once, rows, "an auto-commit sid returns the same result");

    // Expressions without a declared type: SINT, DOUBLE, text, MySQL's `select null`, binary.
    let exprs = session
        .query("select 7, 0.5e0, 'x', null, unhex('00ff')")
        .unwrap();
    assert_eq!(
        exprs.rows,
        vec![vec![
            Value::Sint(7),
            Value::Double(0.5),
            bytes("x"),
            Value::Null,
            Value::Bytes(bytes::Bytes::from_static(&[0, 0xff])),
        ]]
    );
    assert_eq!(exprs.columns[3].original_type, 6, "MYSQL_TYPE_NULL");
}

/// Thousands of rows of every type with scattered NULLs: the chunked result (several chunks) is
/// the row result, value for value.
#[test]
fn many_rows_as_chunks_equal_rows() {
    let node = TestNode::start();
    let pool = pool(node.addr_string());
    let mut session = pool.session().unwrap();
    session
        .query(
            "create table wide (i integer, r real, s text, b blob, d decimal(12,2), dt date, \
             ts datetime, tm time, n integer, t2 text, r2 real)",
        )
        .unwrap();
    session
        .query(
            "insert into wide with recursive c(i) as (select 1 union all select i + 1 from c \
             where i < 3000) select i, \
             case when i % 7 = 0 then null else i / 8.0 end, \
             case when i % 5 = 0 then null else concat('row-', i) end, \
             case when i % 11 = 0 then null else unhex(repeat(hex(i % 240 + 16), i % 17)) end, \
             i * 0.25, \
             date_add('2000-01-01', interval i day), \
             case when i % 3 = 0 then null else date_add('2000-01-01 00:00:00', interval i * 61 second) end, \
             maketime(i % 24, i % 60, (i * 7) % 60), \
             null, 'same', -i from c",
        )
        .unwrap();
    let select = "select * from wide order by i";
    let rows = session.query(select).unwrap();
    assert_eq!(rows.rows.len(), 3000);
    let chunks = session
        .execute_with(select, &[], &ExecOptions::default().chunk_result(true))
        .unwrap()
        .into_result_set();
    assert_eq!(chunks, rows);
    for (n, row) in rows.rows.iter().enumerate() {
        let i = n as i64 + 1;
        assert_eq!(row[0], Value::Sint(i));
        let quarter = format!("{}.{:02}", i / 4, (i % 4) * 25);
        assert_eq!(row[4], decimal(&quarter), "row {i}");
        assert_eq!(row[2].is_null(), i % 5 == 0, "row {i}");
        assert_eq!(row[1].is_null(), i % 7 == 0, "row {i}");
        assert_eq!(row[8], Value::Null);
        assert_eq!(row[10], Value::Double(-(i as f64)));
        let Value::Time(t) = &row[7] else {
            panic!("row {i}: {:?}", row[7])
        };
        assert_eq!(
            (t.hours(), t.minutes(), t.seconds()),
            ((i % 24) as u32, (i % 60) as u32, ((i * 7) % 60) as u32)
        );
    }
}

// ---- pipelining ----

/// Statements sent together come back in order; a fire-and-forget statement that fails makes the
/// next one fail with its error instead of running, and the one after runs normally.
fn pipelines_run_in_order_and_a_failed_set_cascades(engine: Engine) {
    let node = TestNode::start_on(engine);
    let pool = pool(node.addr_string());
    let mut session = pool.session().unwrap();
    session
        .query("create table p (id integer primary key auto_increment, v text)")
        .unwrap();

    let mut pipeline = session.pipeline().fire_and_forget("set names utf8mb4");
    for i in 1..=50i64 {
        pipeline =
            pipeline.push_with_args("insert into p (v) values (?)", vec![format!("v{i}").into()]);
    }
    let mut results = pipeline
        .push("select count(*), max(v) from p")
        .send()
        .unwrap();
    assert_eq!(results.remaining(), 51);
    for i in 1..=50u64 {
        let done = results.next_result().unwrap().unwrap();
        assert_eq!((done.rows_affected, done.last_insert_id), (1, Some(i)));
    }
    let last = results.next_result().unwrap().unwrap().into_result_set();
    assert_eq!(last.rows, vec![vec![Value::Sint(50), bytes("v9")]]);
    assert!(results.next_result().is_none());

    let results: Vec<_> = session
        .pipeline()
        .fire_and_forget("set global no_such_variable = 1")
        .push("insert into p (v) values ('must not run')")
        .push("select count(*) from p")
        .send()
        .unwrap()
        .collect();
    let err = results[0].as_ref().unwrap_err();
    assert_eq!(
        err.code(),
        Some(1193),
        "the failed SET's error cascades: {err}"
    );
    assert!(err.to_string().contains("no_such_variable"), "{err}");
    let count = results[1].as_ref().unwrap().clone().into_result_set();
    assert_eq!(
        count.rows,
        vec![vec![Value::Sint(50)]],
        "the insert did not run"
    );
    assert!(session.is_clean());
}

/// Many threads pipeline on sessions of one shared connection at once.
fn concurrent_pipelines_share_one_connection(engine: Engine) {
    let node = TestNode::start_on(engine);
    let conn = Connection::connect(node.addr(), options()).unwrap();
    std::thread::scope(|scope| {
        for t in 0..6i64 {
            let conn = conn.clone();
            scope.spawn(move || {
                let mut session = conn.session().unwrap();
                for round in 0..5i64 {
                    let mut pipeline = session.pipeline();
                    for k in 0..20i64 {
                        pipeline = pipeline.push(format!("select {t}, {round}, {k}"));
                    }
                    for (k, result) in pipeline.send().unwrap().enumerate() {
                        let rs = result.unwrap().into_result_set();
                        assert_eq!(
                            rs.rows,
                            vec![vec![
                                Value::Sint(t),
                                Value::Sint(round),
                                Value::Sint(k as i64)
                            ]]
                        );
                    }
                }
            });
        }
    });
    let sessions = || {
        node.shared()
            .counters
            .total_sessions
            .load(std::sync::atomic::Ordering::Acquire)
    };
    assert!(
        wait_until(PATIENCE, || sessions() == 0),
        "every session was closed: {} left",
        sessions()
    );
}

// ---- pool reuse ----

/// Live sessions on the node, as its counter says.
fn node_sessions(node: &TestNode) -> usize {
    node.shared()
        .counters
        .worker_sessions
        .load(std::sync::atomic::Ordering::Acquire)
}

/// A clean session comes back with its sid; one left in a transaction, with a stored error, with
/// unread results or with an unfinished stream is closed on the node (which rolls back) and never
/// handed out again.
#[test]
fn pool_reuses_clean_sessions_and_never_dirty_ones() {
    let node = TestNode::start();
    let pool = pool(node.addr_string());
    pool.query_once("create table r (id integer primary key)")
        .unwrap();

    let sid = {
        let mut s = pool.session().unwrap();
        s.query("select 1").unwrap();
        s.id()
    };
    assert_eq!(pool.status().idle_sessions, 1);
    let mut s = pool.session().unwrap();
    assert_eq!(s.id(), sid, "the clean session is reused");

    // Left in a transaction holding SQLite's write lock.
    s.execute("begin", &[]).unwrap();
    s.execute("insert into r values (1)", &[]).unwrap();
    assert!(s.in_transaction() && !s.is_clean());
    drop(s);
    assert_eq!(pool.status().idle_sessions, 0, "not pooled");
    assert!(
        wait_until(Duration::from_secs(2), || pool.status().sessions == 0
            && node_sessions(&node) == 0),
        "the node closed the session: {:?}",
        pool.status()
    );
    let mut s = pool.session().unwrap();
    assert_ne!(s.id(), sid, "a dirty session is never handed out again");
    assert_eq!(
        s.query("select count(*) from r").unwrap().rows[0][0],
        Value::Sint(0),
        "closing rolled the transaction back"
    );
    let started = Instant::now();
    s.execute("insert into r values (2)", &[]).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "the write lock was released"
    );

    // A stored error.
    let sid2 = s.id();
    let err = s.query("select * from no_such_table").unwrap_err();
    assert_eq!(err.code(), Some(1146));
    drop(s);
    assert_eq!(pool.status().idle_sessions, 0);

    // Unread pipeline results.
    let mut s = pool.session().unwrap();
    let sid3 = s.id();
    assert_ne!(sid3, sid2);
    let results = s
        .pipeline()
        .push("select 1")
        .push(counting(300_000))
        .send()
        .unwrap();
    drop(results);
    drop(s);
    assert_eq!(pool.status().idle_sessions, 0);

    // A stream dropped before its end (20 MB: far from done when the handle goes).
    let mut s = pool.session().unwrap();
    let sid4 = s.id();
    assert_ne!(sid4, sid3);
    {
        let mut stream = s
            .query_stream(
                "with recursive c(i) as (select 1 union all select i + 1 from c where i < 20000) \
                 select i, lpad(i, 1000, '0') from c",
            )
            .unwrap();
        assert_eq!(stream.next().unwrap().unwrap()[0], Value::Sint(1));
    }
    assert!(!s.is_clean());
    drop(s);
    assert_eq!(pool.status().idle_sessions, 0);

    assert!(
        wait_until(Duration::from_secs(5), || pool.status().sessions == 0
            && node_sessions(&node) == 0),
        "every dirty session was closed on the node: {:?}",
        pool.status()
    );
    let mut s = pool.session().unwrap();
    assert!(![sid, sid2, sid3, sid4].contains(&s.id()));
    assert_eq!(
        s.query("select count(*) from r").unwrap().rows[0][0],
        Value::Sint(1)
    );
    drop(s);
    assert_eq!(pool.status().idle_sessions, 1);
    assert_eq!(pool.status().connections, 1, "one connection served it all");
}

// ---- broken connections ----

/// The connection under a pool breaks while two statements run on it: both fail with a
/// connection-lost error naming the cause, as does an idle session's next statement, the node
/// stops the statements, and the pool's next session connects again.
///
/// The node's count of running statements is what the test waits on: both statements are
/// running before the cut, and none is after it. How long the failures take is not asserted: on a
/// loaded machine (MariaDB starting in this binary, each SQLite statement burning a CPU) the
/// statements' own threads may wait seconds for a CPU, and the property is that they fail with
/// the right error, not how fast.
fn a_connection_cut_mid_query_fails_its_sessions_and_the_pool_reconnects(engine: Engine) {
    let node = TestNode::start_on(engine);
    let proxy = Proxy::start(node.addr());
    let pool = pool(proxy.addr_string());
    let mut idle = pool.session().unwrap();
    idle.query("select 1").unwrap();
    let running: Vec<_> = (0..2)
        .map(|_| {
            let mut s = pool.session().unwrap();
            std::thread::spawn(move || s.query(engine.endless()).unwrap_err())
        })
        .collect();
    assert!(
        wait_until(PATIENCE, || node.shared().running_statements() == 2),
        "both statements run on the node"
    );
    if engine == Engine::Mysql {
        assert!(
            wait_until(PATIENCE, || backend_runs_endless(engine, &node)),
            "the backend's process list shows them (so its later absence means something)"
        );
    }
    proxy.cut();
    for thread in running {
        let err = thread.join().unwrap();
        assert!(err.is_connection_lost(), "{err}");
        assert!(err.to_string().contains("closed the connection"), "{err}");
    }
    let err = idle.query("select 1").unwrap_err();
    assert!(err.is_connection_lost(), "{err}");
    assert!(
        wait_until(PATIENCE, || node.shared().running_statements() == 0),
        "the node interrupted the statements of the lost connection"
    );
    drop(idle);
    assert!(
        wait_until(PATIENCE, || !backend_runs_endless(engine, &node)),
        "the backend stopped them too"
    );

    assert_eq!(
        pool.status().connections,
        0,
        "the broken connection is dropped"
    );
    let mut s = pool.session().unwrap();
    assert_eq!(s.query("select 5").unwrap().rows[0][0], Value::Sint(5));
    assert_eq!(proxy.accepted(), 2, "one reconnection");
    assert_eq!(pool.status().connections, 1);
}

/// The node itself goes away mid-query and comes back on the same port with the same data: the
/// running statement is interrupted by the drain (1317), an idle session of the same connection
/// fails with a connection-lost error, and the pool reconnects.
fn a_node_restarted_mid_query_fails_the_statement_and_the_pool_recovers(engine: Engine) {
    let mut node = TestNode::start_on(engine);
    let pool = pool(node.addr_string());
    pool.query_once("create table kept (v integer)").unwrap();
    pool.query_once("insert into kept values (7)").unwrap();
    let mut idle = pool.session().unwrap();
    idle.query("select 1").unwrap();
    let running = {
        let mut s = pool.session().unwrap();
        std::thread::spawn(move || s.query(engine.endless()).unwrap_err())
    };
    assert!(wait_until(PATIENCE, || {
        node.shared().running_statements() == 1
    }));
    let started = Instant::now();
    node.restart();
    // The drain gives the statement its 100 ms grace and then interrupts it, instead of waiting
    // for it to end (an hour); the bound leaves room for a loaded machine.
    assert!(started.elapsed() < PATIENCE, "{:?}", started.elapsed());
    // The drain gave the statement its grace, then interrupted it, before closing.
    let err = running.join().unwrap();
    assert!(err.is_interrupted(), "{err}");
    assert!(
        wait_until(PATIENCE, || !backend_runs_endless(engine, &node)),
        "the drain stopped the statement on the backend"
    );
    let err = idle.query("select 1").unwrap_err();
    assert!(err.is_connection_lost(), "{err}");
    drop(idle);
    assert_eq!(pool.status().connections, 0, "the old connection is gone");
    let rows = pool.query_once("select v from kept").unwrap();
    assert_eq!(rows.rows, vec![vec![Value::Sint(7)]]);
    let mut s = pool.session().unwrap();
    assert_eq!(s.query("select 2").unwrap().rows[0][0], Value::Sint(2));
}

// ---- heartbeat ----

/// With a short interval the client probes an idle connection and the node answers; once the
/// peer hangs (the relay freezes), five unanswered probes declare the connection lost, and the
/// pool connects again.
#[test]
fn heartbeats_keep_an_idle_connection_and_drop_a_hung_one() {
    let node = TestNode::start();
    let proxy = Proxy::start(node.addr());
    let mut opts = options().heartbeat_interval(Some(Duration::from_millis(100)));
    opts.heartbeat_timeout = Duration::from_millis(100);
    let pool = Pool::new(
        proxy.addr_string(),
        PoolOptions::new(opts).max_connections(1),
    );
    let conn = {
        let mut s = pool.session().unwrap();
        s.query("select 1").unwrap();
        s.connection().clone()
    };
    let (up, down) = (proxy.bytes_up(), proxy.bytes_down());
    // CapabilitiesGet is a 9-byte frame; each answer is larger. Three probes sent and answered
    // on an idle connection, which stays up meanwhile.
    assert!(
        wait_until(Duration::from_secs(5), || {
            proxy.bytes_up() - up >= 3 * 9 && proxy.bytes_down() - down >= 3 * 9
        }),
        "three probes sent ({} bytes) and answered ({} bytes)",
        proxy.bytes_up() - up,
        proxy.bytes_down() - down
    );
    assert!(!conn.is_broken());

    proxy.freeze(true);
    let frozen = Instant::now();
    assert!(
        wait_until(Duration::from_secs(3), || conn.is_broken()),
        "a hung peer is dropped"
    );
    let took = frozen.elapsed();
    // 100 ms idle, then five probes 100 ms apart.
    assert!(took >= Duration::from_millis(500), "{took:?}");
    let err = conn.broken_error().unwrap();
    assert!(err.is_connection_lost(), "{err}");
    assert!(err.to_string().contains("5 heartbeats"), "{err}");

    proxy.cut();
    proxy.freeze(false);
    let mut s = pool.session().unwrap();
    assert_eq!(s.query("select 3").unwrap().rows[0][0], Value::Sint(3));
    assert_eq!(proxy.accepted(), 2);
}

// ---- flow control ----

/// 5 MB under a 16 KiB budget (about 400 TokenDone/TokenOffer rounds, most of them offered
/// early), as rows and as chunks, and 300 KB under 1 KiB arrive whole and in order.
fn results_much_larger_than_the_token_arrive_whole_and_in_order(engine: Engine) {
    let node = TestNode::start_on(engine);
    let proxy = Proxy::start(node.addr());
    let conn = Connection::connect(proxy.addr(), options()).unwrap();
    let mut session = conn.session().unwrap();
    let cases = [
        (5000u64, 1000usize, 16u32, false),
        (5000, 1000, 16, true),
        (300, 1000, 1, false),
    ];
    for (rows, width, token, chunks) in cases {
        let sql = padded_rows(engine, rows, width);
        let up = proxy.bytes_up();
        let rs = session
            .execute_with(
                &sql,
                &[],
                &ExecOptions::default()
                    .token_kib(Some(token))
                    .chunk_result(chunks),
            )
            .unwrap()
            .into_result_set();
        assert_eq!(rs.rows.len() as u64, rows);
        for (n, row) in rs.rows.iter().enumerate() {
            let i = n as i64 + 1;
            assert_eq!(row[0], Value::Sint(i));
            assert_eq!(row[1], bytes(&format!("{i:0width$}")));
        }
        // Each TokenOffer is a frame of 15 bytes or so: the client kept offering.
        let offers = (rows * width as u64) / (u64::from(token) * 1024);
        let sent = proxy.bytes_up() - up;
        assert!(
            sent >= offers * 10,
            "{sent} bytes sent for {rows} rows under {token} KiB"
        );
    }
}

/// A streamed query whose reader stops: the node stops at the budget (10 MiB) instead of sending
/// the whole 24 MB, and resumes as the reader catches up.
fn a_slow_stream_reader_stalls_the_node_and_reading_resumes_it(engine: Engine) {
    let node = TestNode::start_on(engine);
    let proxy = Proxy::start(node.addr());
    let conn = Connection::connect(proxy.addr(), options()).unwrap();
    let mut session = conn.session().unwrap();
    let rows = 24_000i64;
    let mut stream = session
        .query_stream(&padded_rows(engine, rows as u64, 1000))
        .unwrap();
    let budget = u64::from(xrpc_client::DEFAULT_TOKEN_KIB) * 1024;
    assert!(
        wait_until(Duration::from_secs(5), || proxy.bytes_down() >= budget),
        "the first 10 MiB arrive"
    );
    // Then the transfer stops: nothing moves for 150 ms.
    let mut last = proxy.bytes_down();
    let stalled = wait_until(Duration::from_secs(5), || {
        std::thread::sleep(Duration::from_millis(150));
        let now = proxy.bytes_down();
        std::mem::replace(&mut last, now) == now
    });
    assert!(stalled, "the transfer stalls");
    assert!(
        (budget..budget + 1024 * 1024).contains(&last),
        "the node stopped at the 10 MiB budget, after {last} bytes"
    );
    let mut expected = 1;
    for row in stream.by_ref() {
        let row = row.unwrap();
        assert_eq!(row[0], Value::Sint(expected));
        expected += 1;
    }
    assert_eq!(expected, rows + 1);
    assert!(proxy.bytes_down() > 24_000_000);
    drop(stream);
    assert!(session.is_clean());
}

// ---- digest cache ----

/// A statement sent before goes as its digest alone: the node answers from its cache. When the
/// node cannot have it (its cache keeps nothing this long), the client resends the statement on
/// the 6000 miss transparently, in a pipeline too, with the results in order.
fn digest_hits_and_transparent_resends_on_a_miss(engine: Engine) {
    let node = TestNode::start_on(engine);
    let cache = &node.shared().cache;
    let conn = Connection::connect(node.addr(), options()).unwrap();
    let mut session = conn.session().unwrap();
    let long = |n: i64| {
        format!(
            "select {n} as n, 'a statement that is well over one hundred and twenty-eight bytes \
             long, so that the digest cache is in play' as padding"
        )
    };
    assert!(long(1).len() > 128);
    for _ in 0..3 {
        assert_eq!(session.query(&long(1)).unwrap().rows[0][0], Value::Sint(1));
    }
    assert_eq!(
        (cache.hits(), cache.misses()),
        (2, 0),
        "sent once, then by digest"
    );

    session
        .query("set global xrpc_request_cache_max_length = 128")
        .unwrap();
    assert_eq!(cache.max_len(), 128);
    for _ in 0..3 {
        assert_eq!(session.query(&long(2)).unwrap().rows[0][0], Value::Sint(2));
    }
    assert_eq!(
        cache.misses(),
        2,
        "two digest-only sends missed and were resent"
    );

    // The digest-only head misses; the statements held behind it follow the resend in order.
    let results: Vec<i64> = session
        .pipeline()
        .push(long(2))
        .push("select 10")
        .push(long(2))
        .push_with_args("select ?", vec![11i64.into()])
        .send()
        .unwrap()
        .map(|r| int(&r.unwrap().into_result_set().rows[0][0]))
        .collect();
    assert_eq!(results, [2, 10, 2, 11]);
    assert_eq!(cache.misses(), 3);
    assert!(session.is_clean(), "a miss leaves no stored error");
}

// ---- timeouts ----

/// A statement over its timeout fails with a timeout error, not before its deadline; the
/// client's `SESS_KILL QUERY` stops it on the node (the node's count of running statements drops
/// to zero, where the statement would otherwise run for an hour), so the session's next statement
/// runs.
///
/// The session's 200 ms timeout applies to the endless statement only: the statements that check
/// the session go on run without it, since on a loaded machine even `select 9` may take longer
/// (this binary starts MariaDB while SQLite's endless statements each burn a CPU).
fn a_timed_out_statement_is_killed_and_the_session_goes_on(engine: Engine) {
    let node = TestNode::start_on(engine);
    let pool = pool(node.addr_string());
    let mut session = pool.session().unwrap();
    let timeout = Duration::from_millis(200);
    for attempt in 0..2 {
        session.set_timeout(Some(timeout));
        let started = Instant::now();
        let err = session.query(engine.endless()).unwrap_err();
        let took = started.elapsed();
        assert!(err.is_timeout(), "attempt {attempt}: {err}");
        assert!(took >= timeout, "attempt {attempt}: {took:?}");
        assert!(
            wait_until(PATIENCE, || node.shared().running_statements() == 0
                && !backend_runs_endless(engine, &node)),
            "attempt {attempt}: the kill stopped the statement on the node"
        );
        session.set_timeout(None);
        assert_eq!(
            session.query("select 9").unwrap().rows[0][0],
            Value::Sint(9)
        );
    }
    assert!(session.is_clean());

    // A per-request timeout, with the session's own lifted.
    session.set_timeout(None);
    let err = session
        .execute_with(
            engine.endless(),
            &[],
            &ExecOptions::default().timeout(Duration::from_millis(150)),
        )
        .unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert_eq!(
        session.query("select 4").unwrap().rows[0][0],
        Value::Sint(4)
    );
    drop(session);
    assert_eq!(pool.status().idle_sessions, 1, "still clean, so pooled");
}

// ---- cluster ----

/// Two nodes behind a shard-routing cluster: every key's row lands on `node_for(key)`, each node
/// holds exactly its keys, and reads by key find them.
#[test]
fn the_cluster_routes_every_key_to_its_node() {
    let nodes = [TestNode::start(), TestNode::start()];
    let cluster = Cluster::new(
        nodes.iter().map(TestNode::addr_string),
        PoolOptions::new(options()),
    )
    .unwrap();
    assert_eq!(cluster.len(), 2);
    for i in 0..2 {
        cluster
            .pool(i)
            .unwrap()
            .query_once("create table kv (k integer primary key, v text)")
            .unwrap();
    }
    let mut expected: [Vec<i64>; 2] = [Vec::new(), Vec::new()];
    for key in 0..60i64 {
        let shard = key.to_be_bytes();
        expected[cluster.node_for(&shard)].push(key);
        if key % 2 == 0 {
            let mut session = cluster.session(&shard).unwrap();
            assert_eq!(
                session.connection().peer_addr(),
                nodes[cluster.node_for(&shard)].addr()
            );
            session
                .execute(
                    "insert into kv values (?, ?)",
                    &[key.into(), format!("v{key}").into()],
                )
                .unwrap();
        } else {
            cluster
                .execute_once(
                    &shard,
                    "insert into kv values (?, ?)",
                    &[key.into(), format!("v{key}").into()],
                )
                .unwrap();
        }
    }
    assert!(expected.iter().all(|keys| keys.len() >= 15), "{expected:?}");
    for (i, keys) in expected.iter().enumerate() {
        let held: Vec<i64> = cluster
            .pool(i)
            .unwrap()
            .query_once("select k from kv order by k")
            .unwrap()
            .rows
            .iter()
            .map(|row| int(&row[0]))
            .collect();
        assert_eq!(&held, keys, "node {i} holds exactly its keys");
    }
    for key in [0i64, 1, 17, 59] {
        let shard = key.to_be_bytes();
        let found = cluster
            .execute_once(&shard, "select v from kv where k = ?", &[key.into()])
            .unwrap()
            .into_result_set();
        assert_eq!(found.rows, vec![vec![bytes(&format!("v{key}"))]]);
    }
}

#[test]
fn plans_built_with_the_typed_builder_run_on_a_session() {
    use xrpc_client::plan::{Aggregate, Expr, Plan, placeholder};
    let node = TestNode::start();
    let pool = pool(node.addr_string());
    let mut session = pool.session().unwrap();
    session
        .query("create table kv (k bigint primary key, v varchar(10), n int)")
        .unwrap();
    session.query("create unique index by_v on kv (v)").unwrap();
    session
        .query("insert into kv values (1, 'one', 10), (2, 'two', 20), (3, 'three', NULL)")
        .unwrap();
    let by_key = Plan::get("kv")
        .key([("k", placeholder(0))])
        .build()
        .project(["v"]);
    let rows = session.execute_plan(&by_key, &[2i64.into()]).unwrap();
    assert_eq!(rows.rows, [[bytes("two")]]);
    let by_v = Plan::get("kv").index("by_v").key([("v", "three")]).build();
    assert_eq!(
        int(&session.execute_plan(&by_v, &[]).unwrap().rows[0][0]),
        3
    );
    let range = Plan::range("kv")
        .from_key([("k", 2i64)])
        .build()
        .filter(Expr::col("n").is_null().not())
        .aggregate(Aggregate::Sum, "total", Expr::col("n"));
    let total = session.execute_plan(&range, &[]).unwrap();
    assert_eq!(total.columns[0].name, "total");
    let sql = session
        .query("select sum(n) as total from kv where k >= 2 and n is not null")
        .unwrap();
    assert_eq!(
        total.rows, sql.rows,
        "what the same SQL gives on this engine"
    );
    assert_eq!(int(&total.rows[0][0]), 20);
    // A plan error is a server error; the session goes on.
    let err = session
        .execute_plan(&Plan::table_scan("missing"), &[])
        .unwrap_err();
    assert_eq!(err.server().map(|e| e.code()), Some(1146), "{err}");
    assert_eq!(int(&session.query("select 1").unwrap().rows[0][0]), 1);
}
