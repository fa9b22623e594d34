//! End-to-end: a node on the `mysql` engine in front of a real MariaDB (started per test by
//! `xrpc_testkit`), over real TCP with the raw-frame client.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Client, Outcome, TestNode, arg_sint, arg_text, kill_query, sql_stmt, text};
use mysql::prelude::Queryable;
use xrpc_proto::messages::{ClientType, pb};
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};
use xrpc_server::engine::mysql::{MysqlEngine, PoolOptions};
use xrpc_testkit::MariaDb;

/// The high bit of a sid: an auto-commit session.
const AUTO: u64 = 0x8000_0000_0000_0000;

/// A MariaDB with database `t`, an engine on it and a node on the engine. Dropped in field
/// order: the node, the engine, then the server.
struct Fixture {
    node: TestNode,
    engine: Arc<MysqlEngine>,
    db: MariaDb,
}

impl Fixture {
    fn new(pool_size: usize) -> Self {
        Self::with_options(PoolOptions {
            size: pool_size,
            ..PoolOptions::default()
        })
    }

    fn with_options(options: PoolOptions) -> Self {
        let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
        db.admin().query_drop("CREATE DATABASE t").unwrap();
        let engine = Arc::new(MysqlEngine::connect(&db.url_db("t"), options).unwrap());
        let node = TestNode::start_with_engine(engine.clone(), |_, _| {});
        Self { node, engine, db }
    }

    fn client(&self) -> Client {
        self.node.client()
    }

    /// Backend connections held by sessions.
    fn pinned(&self) -> u64 {
        self.engine.stats().driver.pinned
    }
}

/// A client with sessions `sids` open.
fn client_with_sessions(fixture: &Fixture, sids: &[u64]) -> Client {
    let mut client = fixture.client();
    for &sid in sids {
        client.new_session(sid);
    }
    client
}

fn ok(outcome: Outcome) -> Outcome {
    assert!(
        outcome.error.is_none(),
        "request failed: {:?}",
        outcome.error
    );
    outcome
}

fn query_args(client: &mut Client, sid: u64, sql: &str, args: Vec<pb::datatypes::Any>) -> Outcome {
    let mut stmt = sql_stmt(sql);
    stmt.args = args;
    client.send_sql(sid, stmt);
    client.read_outcome(sid)
}

fn error_of(outcome: &Outcome) -> (u32, String, String) {
    let err = outcome
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("expected an error, got {outcome:?}"));
    (err.code, err.sql_state.clone(), err.msg.clone())
}

fn close_session(client: &mut Client, sid: u64) {
    client.send(
        sid,
        ClientType::SessionClose,
        &pb::session::Close::default(),
    );
    match client.recv_on(sid) {
        Some(xrpc_proto::messages::ServerMessage::Ok(_)) => {}
        other => panic!("SESS_CLOSE on {sid} answered {other:?}"),
    }
}

/// Waits (bounded) until `condition` holds.
fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn statements_round_trip_and_backend_errors_keep_their_codes() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1]);
    ok(c.query(
        1,
        "CREATE TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL UNIQUE, qty INT)",
    ));
    let inserted = ok(query_args(
        &mut c,
        1,
        "INSERT INTO items (name, qty) VALUES (?, ?), (?, ?)",
        vec![
            arg_text("it's a \"test\" \\ ?"),
            arg_sint(3),
            arg_text("b"),
            arg_sint(-1),
        ],
    ));
    assert_eq!(inserted.rows_affected(), Some(2));
    assert_eq!(inserted.last_insert_id(), Some(1));
    let found = ok(query_args(
        &mut c,
        1,
        "SELECT id, name, qty FROM items WHERE name = ?",
        vec![arg_text("it's a \"test\" \\ ?")],
    ));
    assert_eq!(
        found.rows,
        vec![vec![
            Value::Sint(1),
            Value::Bytes(Bytes::from_static(b"it's a \"test\" \\ ?")),
            Value::Sint(3)
        ]]
    );
    let names: Vec<_> = found
        .columns
        .iter()
        .map(|c| String::from_utf8_lossy(c.name.as_deref().unwrap_or_default()).into_owned())
        .collect();
    assert_eq!(names, ["id", "name", "qty"]);
    let id = &found.columns[0];
    assert_eq!(
        String::from_utf8_lossy(id.table.as_deref().unwrap_or_default()),
        "items"
    );
    assert_eq!(
        String::from_utf8_lossy(id.schema.as_deref().unwrap_or_default()),
        "t"
    );
    // NOT NULL, primary key, auto increment.
    assert_eq!(id.flags.unwrap_or(0) & 0x0130, 0x0130, "{id:?}");
    let updated = ok(query_args(
        &mut c,
        1,
        "UPDATE items SET qty = qty + ? WHERE qty < 0",
        vec![arg_sint(10)],
    ));
    assert_eq!(updated.rows_affected(), Some(1));
    assert_eq!(
        ok(c.query(1, "DELETE FROM items WHERE id = 2")).rows_affected(),
        Some(1)
    );
    assert_eq!(
        ok(c.query(1, "SELECT last_insert_id()")).scalar(),
        &Value::Uint(1)
    );

    // The backend's errors, code, state and message as MariaDB words them.
    let (code, state, msg) = error_of(&c.query(1, "SELECT * FROM nope"));
    assert_eq!((code, state.as_str()), (1146, "42S02"));
    assert_eq!(msg, "Table 't.nope' doesn't exist");
    let (code, state, _) = error_of(&c.query(1, "SELEKT 1"));
    assert_eq!((code, state.as_str()), (1064, "42000"));
    let (code, state, msg) = error_of(&query_args(
        &mut c,
        1,
        "INSERT INTO items (name) VALUES (?)",
        vec![arg_text("it's a \"test\" \\ ?")],
    ));
    assert_eq!((code, state.as_str()), (1062, "23000"));
    assert!(msg.contains("Duplicate entry 'it"), "{msg}");
    let (code, _, _) = error_of(&query_args(&mut c, 1, "SELECT ?", vec![]));
    assert_eq!(code, 1210);
    // MySQL's own SQL reaches the backend unchanged.
    ok(c.query(1, "CREATE DATABASE other"));
    let tables = ok(c.query(
        1,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 't'",
    ));
    assert_eq!(tables.rows.len(), 1);
    let create = ok(c.query(1, "SHOW CREATE TABLE items"));
    assert!(text(&create.rows[0][1]).contains("AUTO_INCREMENT"));
    // The session still works after all those errors, on the auto-commit sid too.
    assert_eq!(
        ok(c.query(AUTO | 1, "SELECT COUNT(*) FROM items")).scalar(),
        &Value::Sint(1)
    );
    wait_for("no connection is held", || fx.pinned() == 0);
}

#[test]
fn connection_id_names_the_xrpc_session_not_the_backend_connection() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1, 2]);
    let sql = "SELECT connection_id(), @@pseudo_thread_id";
    let a = ok(c.query(1, sql));
    let b = ok(c.query(2, sql));
    // Each session keeps its own number, whichever backend connection runs its statement.
    assert_ne!(a.rows[0][0], b.rows[0][0]);
    assert_eq!(ok(c.query(1, sql)).rows[0][0], a.rows[0][0]);
    assert_ne!(a.rows[0][0], a.rows[0][1]);
}

/// The text values of column `col` of a result.
fn column_texts(outcome: &Outcome, col: usize) -> Vec<String> {
    outcome.rows.iter().map(|r| text(&r[col])).collect()
}

#[test]
fn system_variables_and_status_are_the_backends_except_the_nodes_own() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1]);
    let mut admin = fx.db.admin();

    // SELECT @@name reaches the backend, with the session's own value.
    ok(c.query(1, "SET sql_mode = 'ANSI_QUOTES'"));
    assert_eq!(
        text(ok(c.query(1, "SELECT @@sql_mode")).scalar()),
        "ANSI_QUOTES"
    );
    // The version, however it is read, is the backend's with the node's suffix.
    let backend_version: String = admin.query_first("SELECT @@version").unwrap().unwrap();
    let version = format!("{backend_version}-xrpc-{}", env!("CARGO_PKG_VERSION"));
    for sql in [
        "SELECT VERSION()",
        "select version ( )",
        "SELECT @@version",
        "SELECT @@global.version",
        "SELECT @@SESSION.VERSION",
    ] {
        let out = ok(c.query(1, sql));
        assert_eq!(text(out.scalar()), version, "{sql}");
        // The column keeps the name MySQL gives it.
        assert_eq!(
            String::from_utf8_lossy(out.columns[0].name.as_deref().unwrap_or_default()),
            sql.strip_prefix("SELECT ")
                .or(sql.strip_prefix("select "))
                .unwrap(),
            "{sql}"
        );
    }
    let shown = ok(c.query(1, "SHOW GLOBAL VARIABLES LIKE 'version'"));
    assert_eq!(column_texts(&shown, 1), std::slice::from_ref(&version));
    let untouched = ok(c.query(
        1,
        "SELECT 'version()', @@version_comment = @@global.version_comment, \
         VERSION() LIKE '%-xrpc-%'",
    ));
    assert_eq!(text(&untouched.rows[0][0]), "version()");
    assert_eq!(untouched.rows[0][2], Value::Sint(1));
    // connection_id() keeps its name too.
    let id = ok(c.query(1, "SELECT connection_id()"));
    assert_eq!(id.columns[0].name.as_deref(), Some(&b"connection_id()"[..]));
    let backend_max: Option<u64> = admin.query_first("SELECT @@max_connections").unwrap();
    assert_eq!(
        ok(c.query(1, "select @@max_connections")).scalar(),
        &Value::Uint(backend_max.unwrap()),
        "the node's own max_connections must not shadow the backend's"
    );
    // A mix of the node's names and the backend's goes to the backend, which knows only its own.
    let err = error_of(&c.query(1, "SELECT @@version, @@xrpc_max_sessions"));
    assert_eq!(err.0, 1193, "{err:?}");

    // The node's own names stay the node's.
    assert_eq!(
        ok(c.query(1, "SELECT @@xrpc_max_sessions")).scalar(),
        &Value::Sint(100_000)
    );
    ok(c.query(1, "SET GLOBAL xrpc_max_queued_messages = 64"));
    assert_eq!(
        ok(c.query(1, "select @@global.xrpc_max_queued_messages")).scalar(),
        &Value::Sint(64)
    );
    ok(c.query(1, "CALL xrpc.perf_hist('all')"));
    let err = error_of(&c.query(1, "SET GLOBAL xrpc_max_sessions = 5, max_connections = 5"));
    assert_eq!(err.0, 1210, "{err:?}");

    // SHOW VARIABLES: the backend's rows, then the node's own ones in the same result set.
    let shown = ok(c.query(1, "SHOW VARIABLES LIKE 'innodb_buffer_pool_size'"));
    assert_eq!(column_texts(&shown, 0), ["innodb_buffer_pool_size"]);
    let shown = ok(c.query(
        1,
        "SHOW SESSION VARIABLES WHERE Variable_name IN ('sql_mode', 'xrpc_engine', 'new_rpc')",
    ));
    assert_eq!(
        column_texts(&shown, 0),
        ["sql_mode", "new_rpc", "xrpc_engine"]
    );
    assert_eq!(column_texts(&shown, 1)[0], "ANSI_QUOTES");
    let all = ok(c.query(1, "SHOW VARIABLES"));
    let names = column_texts(&all, 0);
    assert!(names.iter().any(|n| n == "xrpc_backend_pool_size"));
    assert!(names.iter().any(|n| n == "innodb_page_size"));
    let versions: Vec<String> = all
        .rows
        .iter()
        .filter(|row| text(&row[0]) == "version")
        .map(|row| text(&row[1]))
        .collect();
    assert_eq!(
        versions,
        [version],
        "version is listed once, with the suffix"
    );

    // SHOW STATUS: the backend's counters and the node's.
    let status = ok(c.query(
        1,
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Uptime', 'xrpc_sql_hit')",
    ));
    assert_eq!(column_texts(&status, 0), ["Uptime", "xrpc_sql_hit"]);
    let node_status = ok(c.query(1, "SHOW STATUS LIKE 'xrpc\\_net\\_connections'"));
    assert_eq!(column_texts(&node_status, 0), ["xrpc_net_connections"]);
}

fn bytes(b: &'static [u8]) -> Value {
    Value::Bytes(Bytes::from_static(b))
}

#[test]
fn every_type_round_trips_with_edge_values_and_nulls() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1]);
    // Zero dates need a permissive sql_mode; the SET is replayed on whichever connection runs
    // the session's next statement.
    ok(c.query(1, "SET SESSION sql_mode = '', time_zone = '+00:00'"));
    ok(c.query(
        1,
        "CREATE TABLE ty (ti TINYINT, tu TINYINT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, \
         zf INT(5) UNSIGNED ZEROFILL, yr YEAR, fl FLOAT, db DOUBLE, dc DECIMAL(65,30), d DATE, \
         dt DATETIME(6), ts TIMESTAMP(6) NULL DEFAULT NULL, tm TIME(6), bt BIT(64), en ENUM('a','b'), \
         st SET('x','y','z'), vc VARCHAR(10), ch CHAR(3), bl BLOB, vb VARBINARY(8), js JSON, tx TEXT, \
         sm SMALLINT, mu MEDIUMINT UNSIGNED, du DECIMAL(65,0) UNSIGNED, tp TIME, g GEOMETRY)",
    ));
    let decimal = "-99999999999999999999999999999999999.999999999999999999999999999999";
    ok(c.query(
        1,
        &format!(
            "INSERT INTO ty VALUES (-128, 255, -9223372036854775808, 18446744073709551615, 42, 2155, \
             3.5, -1.7976931348623157e308, {decimal}, '0000-00-00', '0000-00-00 00:00:00', \
             '2038-01-19 03:14:07.999999', '-838:59:59', b'{}', 'b', 'z,x', 'héllo', 'ab', X'00FF', \
             X'0102', '{{\"a\": 1}}', '', -32768, 16777215, {}, '838:59:59', \
             ST_GeomFromText('POINT(1 2)'))",
            "1".repeat(64),
            "9".repeat(65)
        ),
    ));
    ok(c.query(1, "INSERT INTO ty () VALUES ()"));
    let out = ok(c.query(1, "SELECT * FROM ty"));
    let collation = |i: usize| out.columns[i].collation.unwrap_or(0);
    let types: Vec<_> = out
        .columns
        .iter()
        .map(|col| ColumnType::try_from(col.r#type as u32).unwrap())
        .collect();
    use ColumnType::*;
    assert_eq!(
        types,
        [
            Sint, Uint, Sint, Uint, Uint, Uint, Float, Double, Decimal, DateTime, DateTime,
            DateTime, Time, Bit, Enum, Set, Bytes, Bytes, Bytes, Bytes, Bytes, Bytes, Sint, Uint,
            Decimal, Time, Bytes
        ]
    );
    // Content types as MySQL's X Plugin sends them: DATE 1 and DATETIME 2 on DATETIME columns,
    // GEOMETRY 1 on BYTES; MariaDB's JSON is LONGTEXT on the wire, so plain BYTES here (a MySQL
    // backend's JSON type gets 2, see the engine's unit tests).
    let content: Vec<Option<u32>> = out.columns.iter().map(|col| col.content_type).collect();
    let mut expected = vec![None; 27];
    expected[9] = Some(1);
    expected[10] = Some(2);
    expected[11] = Some(2);
    expected[26] = Some(1);
    assert_eq!(content, expected);
    assert_eq!(out.columns[26].original_type, 255, "GEOMETRY");
    assert_eq!(collation(26), 63, "GEOMETRY is binary");
    assert_eq!(collation(18), 63, "BLOB is binary");
    assert_eq!(collation(19), 63, "VARBINARY is binary");
    assert_ne!(collation(16), 63, "VARCHAR is text");
    assert_eq!(out.columns[4].flags.unwrap_or(0) & 1, 1, "ZEROFILL");
    assert_eq!(out.columns[8].fractional_digits, Some(30));
    assert_eq!(out.columns[9].original_type, 10, "DATE");
    assert_eq!(out.columns[11].original_type, 7, "TIMESTAMP");
    assert_eq!(out.columns[14].original_type, 247, "ENUM");
    assert_eq!(out.columns[15].original_type, 248, "SET");
    assert_eq!(
        out.rows[0],
        vec![
            Value::Sint(-128),
            Value::Uint(255),
            Value::Sint(i64::MIN),
            Value::Uint(u64::MAX),
            Value::Uint(42),
            Value::Uint(2155),
            Value::Float(3.5),
            Value::Double(-1.797_693_134_862_315_7e308),
            Value::Decimal(XDecimal::parse(decimal).unwrap()),
            Value::DateTime(XDateTime::date(0, 0, 0).unwrap()),
            Value::DateTime(XDateTime::new(0, 0, 0, 0, 0, 0, 0).unwrap()),
            Value::DateTime(XDateTime::new(2038, 1, 19, 3, 14, 7, 999_999).unwrap()),
            Value::Time(XTime::new(true, 838, 59, 59, 0).unwrap()),
            Value::Bit(u64::MAX),
            Value::Enum(bytes::Bytes::from_static(b"b")),
            Value::Set(vec![
                bytes::Bytes::from_static(b"x"),
                bytes::Bytes::from_static(b"z")
            ]),
            bytes("héllo".as_bytes()),
            bytes(b"ab"),
            bytes(b"\x00\xff"),
            bytes(b"\x01\x02"),
            bytes(br#"{"a": 1}"#),
            bytes(b""),
            Value::Sint(-32768),
            Value::Uint(16_777_215),
            Value::Decimal(XDecimal::parse(&"9".repeat(65)).unwrap()),
            Value::Time(XTime::new(false, 838, 59, 59, 0).unwrap()),
            // SRID 0, then the WKB of POINT(1 2): byte order, type 1, x and y as doubles.
            bytes(b"\0\0\0\0\x01\x01\0\0\0\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\x40"),
        ]
    );
    assert_eq!(out.rows[1], vec![Value::Null; 27]);
    // The same through chunk results.
    let mut chunked = sql_stmt("SELECT * FROM ty");
    chunked.chunk_result = Some(true);
    c.send_sql(1, chunked);
    let mut chunks = ok(c.read_outcome(1));
    // A chunk packs DATETIME, and a zero one packs to 0, which reads back without its time part.
    assert_eq!(
        chunks.rows[0][10],
        Value::DateTime(XDateTime::date(0, 0, 0).unwrap())
    );
    chunks.rows[0][10] = out.rows[0][10].clone();
    assert_eq!(chunks.rows, out.rows);
    // Arguments of every type come back as they went.
    let back = ok(query_args(
        &mut c,
        1,
        "SELECT ?, ?, ?, ?",
        vec![
            arg_sint(i64::MIN),
            arg_text("a'b\\c"),
            arg_sint(0),
            arg_text(""),
        ],
    ));
    assert_eq!(
        back.rows[0],
        vec![
            Value::Sint(i64::MIN),
            bytes(b"a'b\\c"),
            Value::Sint(0),
            bytes(b"")
        ]
    );
}

/// A probe's single value, minus its error code, or NULL when it returned no rows.
fn seen(outcome: &Outcome) -> Value {
    match &outcome.error {
        Some(err) => Value::Sint(-i64::from(err.code)),
        None if outcome.columns.is_empty() => Value::Null,
        None => outcome.scalar().clone(),
    }
}

#[test]
fn no_state_leaks_between_sessions_sharing_a_pool_of_three() {
    // One connection held by the session with state, one shared, one for the others'
    // statements that need a connection of their own.
    let fx = Fixture::new(3);
    let mut c = client_with_sessions(&fx, &[21, 22, 23, 24]);
    let others = [21, 22, 23, 24];
    ok(c.query(21, "CREATE TABLE tx (x INT) ENGINE=InnoDB"));
    // Each kind of state: (statements that create it in session 1, a probe, what session 1
    // sees, what every other session sees).
    type Probe = (&'static [&'static str], &'static str, Value, Value);
    let cases: Vec<Probe> = vec![
        (
            &["SET @secret = 42"],
            "SELECT @secret",
            Value::Sint(42),
            Value::Null,
        ),
        (
            &["SELECT @picked := 7"],
            "SELECT @picked",
            Value::Sint(7),
            Value::Null,
        ),
        (
            &[
                "CREATE TEMPORARY TABLE tmp (x INT)",
                "INSERT INTO tmp VALUES (7)",
            ],
            // Others get 1146: the table does not exist for them.
            "SELECT COUNT(*) FROM tmp",
            Value::Sint(1),
            Value::Sint(-1146),
        ),
        (
            &["BEGIN", "INSERT INTO tx VALUES (1)"],
            "SELECT COUNT(*) FROM tx",
            Value::Sint(1),
            Value::Sint(0),
        ),
        (
            &["XA START 'xid1'", "INSERT INTO tx VALUES (1)"],
            "SELECT COUNT(*) FROM tx",
            Value::Sint(1),
            Value::Sint(0),
        ),
        (
            // One-shot, for the next transaction: a write in it is refused with 1792.
            &["SET TRANSACTION READ ONLY"],
            "DELETE FROM tx WHERE x = 99",
            Value::Sint(-1792),
            Value::Null,
        ),
        (
            &["LOCK TABLES tx READ"],
            "SELECT COUNT(*) FROM information_schema.processlist WHERE 0",
            Value::Sint(0),
            Value::Sint(0),
        ),
        (
            &["SET autocommit = 0", "INSERT INTO tx VALUES (1)"],
            "SELECT COUNT(*) FROM tx",
            Value::Sint(1),
            Value::Sint(0),
        ),
        (
            &["PREPARE ps FROM 'SELECT 5'"],
            "SELECT COUNT(*) FROM information_schema.processlist WHERE 0",
            Value::Sint(0),
            Value::Sint(0),
        ),
        (
            &["SELECT GET_LOCK('named', 0)"],
            "SELECT IFNULL(IS_USED_LOCK('named') = @@pseudo_thread_id, 0)",
            Value::Sint(1),
            Value::Sint(0),
        ),
        (
            &["SET SESSION time_zone = '+05:00'"],
            // Not `SELECT @@…` alone: the node's admin SQL answers that itself.
            "SELECT CAST(@@time_zone AS CHAR)",
            bytes(b"+05:00"),
            bytes(b"SYSTEM"),
        ),
        (
            &["USE other_db"],
            "SELECT DATABASE()",
            bytes(b"other_db"),
            bytes(b"t"),
        ),
    ];
    ok(c.query(21, "CREATE DATABASE other_db"));
    for (index, (setup, probe, own, theirs)) in cases.into_iter().enumerate() {
        let sid = 100 + index as u64;
        c.new_session(sid);
        let pool = |fx: &Fixture| format!("{setup:?}: {:?}", fx.engine.stats());
        for sql in setup {
            let out = c.query(sid, sql);
            assert!(
                out.error.is_none(),
                "{sql}: {:?} ({})",
                out.error,
                pool(&fx)
            );
        }
        // Many statements of other sessions, on the same small pool.
        for _ in 0..3 {
            for other in others {
                let out = c.query(other, probe);
                assert_eq!(
                    seen(&out),
                    theirs,
                    "{setup:?} leaked into session {other} ({})",
                    pool(&fx)
                );
            }
        }
        assert_eq!(
            seen(&c.query(sid, probe)),
            own,
            "{setup:?}: the session lost its own state"
        );
        if setup[0].starts_with("PREPARE") {
            assert_eq!(ok(c.query(sid, "EXECUTE ps")).scalar(), &Value::Sint(5));
            for other in others {
                assert_eq!(
                    error_of(&c.query(other, "EXECUTE ps")).0,
                    1243,
                    "a prepared statement leaked"
                );
            }
        }
        close_session(&mut c, sid);
        // The connection it held was reset before going back: nobody sees the state now.
        for other in others {
            assert_eq!(
                seen(&c.query(other, probe)),
                theirs,
                "{setup:?} survived the session's end"
            );
        }
        // SESS_CLOSE's OK goes out before the session gives its connection back.
        wait_for("the closed session's connection is unpinned", || {
            fx.pinned() == 0
        });
        let stats = fx.engine.stats();
        assert!(stats.driver.connections <= 3, "{stats:?}");
    }
    // Nothing was left uncommitted.
    assert_eq!(
        ok(c.query(21, "SELECT COUNT(*) FROM tx")).scalar(),
        &Value::Sint(0)
    );
}

#[test]
fn a_set_alone_does_not_pin_and_is_replayed_on_another_connection() {
    // Two for sessions' own statements, one for the shared rotation.
    let fx = Fixture::new(3);
    let mut c = client_with_sessions(&fx, &[1, 2]);
    ok(c.query(
        1,
        "SET NAMES utf8mb4, SESSION sql_mode = 'ANSI_QUOTES', time_zone = '-03:00'",
    ));
    wait_for("the connection is given back", || fx.pinned() == 0);
    // Session 2 holds one connection in a transaction, so session 1's statements land on
    // whichever is free; its variables follow it.
    ok(c.query(2, "BEGIN"));
    ok(c.query(2, "SELECT 1"));
    assert_eq!(fx.pinned(), 1);
    let row = ok(c.query(
        1,
        "SELECT CAST(@@sql_mode AS CHAR), CAST(@@time_zone AS CHAR)",
    ))
    .rows
    .remove(0);
    assert_eq!(row, vec![bytes(b"ANSI_QUOTES"), bytes(b"-03:00")]);
    ok(c.query(2, "COMMIT"));
    wait_for("the connection is given back", || fx.pinned() == 0);
    let row = ok(c.query(
        2,
        "SELECT @@sql_mode = 'ANSI_QUOTES', CAST(@@time_zone AS CHAR)",
    ))
    .rows
    .remove(0);
    assert_eq!(row, vec![Value::Sint(0), bytes(b"SYSTEM")]);
    let row = ok(c.query(
        1,
        "SELECT CAST(@@sql_mode AS CHAR), CAST(@@time_zone AS CHAR)",
    ))
    .rows
    .remove(0);
    assert_eq!(row, vec![bytes(b"ANSI_QUOTES"), bytes(b"-03:00")]);
}

#[test]
fn a_full_pool_makes_sessions_wait_for_a_connection_of_their_own_then_fail_clearly() {
    let fx = Fixture::with_options(PoolOptions {
        size: 2,
        driver_connections: 2,
        wait_timeout: Duration::from_millis(1500),
        ..PoolOptions::default()
    });
    let mut c = client_with_sessions(&fx, &[1, 2, 3]);
    ok(c.query(1, "BEGIN"));
    ok(c.query(1, "SELECT 1"));
    // The other connection is the last of the shared rotation: a transaction cannot take it.
    let started = Instant::now();
    let (code, state, msg) = error_of(&c.query(2, "BEGIN"));
    let waited = started.elapsed();
    assert_eq!((code, state.as_str()), (7009, "HY000"), "{msg}");
    assert!(msg.contains("xrpc_backend_pool_size"), "{msg}");
    assert!(
        waited >= Duration::from_millis(1400),
        "gave up after {waited:?}"
    );
    assert!(waited < Duration::from_secs(8), "waited {waited:?}");
    assert_eq!(fx.engine.stats().driver.queue_timeouts, 1);
    // A session that waits gets a connection as soon as one is given back, and sessions that
    // hold nothing are served meanwhile.
    c.send_sql(2, sql_stmt("BEGIN"));
    wait_for("session 2 waits for a connection", || {
        fx.engine.stats().driver.pin_queued == 1
    });
    assert_eq!(ok(c.query(3, "SELECT 3")).scalar(), &Value::Sint(3));
    ok(c.query(1, "COMMIT"));
    ok(c.read_outcome(2));
    assert_eq!(ok(c.query(2, "SELECT 4")).scalar(), &Value::Sint(4));
    ok(c.query(2, "COMMIT"));
    wait_for("no connection is held", || fx.pinned() == 0);
    let stats = fx.engine.stats();
    assert_eq!(
        (
            stats.driver.connections,
            stats.driver.queued,
            stats.driver.pin_queued
        ),
        (2, 0, 0),
        "{stats:?}"
    );
}

#[test]
fn kill_query_stops_a_backend_sleep_and_keeps_the_session() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1]);
    let started = Instant::now();
    c.send_sql(1, sql_stmt("SELECT SLEEP(10)"));
    fx.node.wait_until_a_statement_runs();
    // Wait until the backend runs it, so the kill goes through KILL QUERY on the backend.
    let mut admin = fx.db.admin();
    wait_for("the backend runs the sleep", || {
        admin
            .query_first::<u64, _>("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '%SELECT SLEEP(10)'")
            .unwrap()
            == Some(1)
    });
    kill_query(&mut c, 1);
    let outcome = c.read_outcome(1);
    let elapsed = started.elapsed();
    // MariaDB answers a killed SLEEP with 1 (interrupted sleep) or with 1317.
    match &outcome.error {
        Some(err) => assert_eq!((err.code, err.sql_state.as_str()), (1317, "70100")),
        None => assert_eq!(outcome.scalar(), &Value::Sint(1)),
    }
    assert!(
        elapsed < Duration::from_secs(8),
        "the kill took {elapsed:?}"
    );
    assert_eq!(ok(c.query(1, "SELECT 4")).scalar(), &Value::Sint(4));
}

#[test]
fn the_authentication_schema_is_the_default_database_of_the_connections_sessions() {
    let fx = Fixture::new(2);
    fx.db.admin().query_drop("CREATE DATABASE other").unwrap();
    let mut c = fx.node.client_in("other");
    c.new_session(1);
    let database = "SELECT database()";
    assert_eq!(text(ok(c.query(1, database)).scalar()), "other");
    assert_eq!(text(ok(c.query(AUTO | 1, database)).scalar()), "other");
    ok(c.query(1, "CREATE TABLE in_other (x INT)"));
    let count: Option<u64> = fx
        .db
        .admin()
        .query_first("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'other' AND table_name = 'in_other'")
        .unwrap();
    assert_eq!(
        count,
        Some(1),
        "the table went to the authentication schema"
    );
    // A request's schema_name and the session's USE still win.
    let mut stmt = sql_stmt(database);
    stmt.schema_name = Some("t".into());
    c.send_sql(1, stmt);
    assert_eq!(text(ok(c.read_outcome(1)).scalar()), "t");
    ok(c.query(1, "USE t"));
    assert_eq!(text(ok(c.query(1, database)).scalar()), "t");
    // Another connection, without a schema, keeps the URL's database on the same pool.
    let mut plain = client_with_sessions(&fx, &[1]);
    assert_eq!(text(ok(plain.query(1, database)).scalar()), "t");
    assert_eq!(text(ok(plain.query(AUTO | 2, database)).scalar()), "t");
    // An unknown authentication schema is the backend's 1049 at the first statement.
    let mut bad = fx.node.client_in("no_such_db");
    let err = error_of(&bad.query(AUTO | 1, database));
    assert_eq!(err.0, 1049, "{err:?}");
}

#[test]
fn show_status_reports_the_backend_connections_and_statements() {
    let fx = Fixture::with_options(PoolOptions {
        size: 2,
        driver_connections: 2,
        wait_timeout: Duration::from_millis(200),
        ..PoolOptions::default()
    });
    let mut c = client_with_sessions(&fx, &[1, 2]);
    let backend_status = |c: &mut Client| -> std::collections::HashMap<String, u64> {
        let rows = ok(c.query(1, "SHOW GLOBAL STATUS LIKE 'xrpc\\_backend\\_%'"));
        rows.rows
            .iter()
            .map(|r| (text(&r[0]), text(&r[1]).parse().unwrap()))
            .collect()
    };
    ok(c.query(1, "SELECT 1"));
    wait_for("both connections are logged in", || {
        fx.engine.stats().driver.connections == 2
    });
    let before = backend_status(&mut c);
    let mut names: Vec<_> = before.keys().cloned().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "xrpc_backend_connect_errors",
            "xrpc_backend_connections",
            "xrpc_backend_connections_closed_idle",
            "xrpc_backend_connections_expired",
            "xrpc_backend_connections_opened",
            "xrpc_backend_connections_parked",
            "xrpc_backend_connections_pinned",
            "xrpc_backend_errors",
            "xrpc_backend_helps",
            "xrpc_backend_lost",
            "xrpc_backend_pin_queued",
            "xrpc_backend_pipeline_depth_1",
            "xrpc_backend_pipeline_depth_16",
            "xrpc_backend_pipeline_depth_2",
            "xrpc_backend_pipeline_depth_32",
            "xrpc_backend_pipeline_depth_4",
            "xrpc_backend_pipeline_depth_64",
            "xrpc_backend_pipeline_depth_8",
            "xrpc_backend_pipeline_depth_over_64",
            "xrpc_backend_queue_timeouts",
            "xrpc_backend_queued",
            "xrpc_backend_statements",
        ]
    );
    assert_eq!(before["xrpc_backend_connections"], 2);
    assert_eq!(before["xrpc_backend_connections_pinned"], 0);
    assert_eq!(before["xrpc_backend_queue_timeouts"], 0);
    assert_eq!(before["xrpc_backend_lost"], 0);
    assert!(before["xrpc_backend_statements"] >= 1, "{before:?}");

    // The sid-1 session holds a connection; the sid-2 one cannot take the last of the shared
    // rotation and gives up.
    ok(c.query(1, "BEGIN"));
    assert_eq!(error_of(&c.query(2, "BEGIN")).0, 7009);
    error_of(&c.query(1, "SELECT * FROM no_such_table"));
    let after = backend_status(&mut c);
    assert_eq!(after["xrpc_backend_connections_pinned"], 1);
    assert_eq!(after["xrpc_backend_queue_timeouts"], 1);
    assert_eq!(
        after["xrpc_backend_errors"],
        before["xrpc_backend_errors"] + 1
    );
    assert!(
        after["xrpc_backend_statements"] >= before["xrpc_backend_statements"] + 2,
        "{after:?}"
    );
    assert_eq!(
        fx.engine.stats().driver.queue_timeouts,
        1,
        "the rows are the engine's own counters"
    );
    ok(c.query(1, "ROLLBACK"));
}

#[test]
fn sql_kill_names_xrpc_sessions_by_connection_id() {
    let fx = Fixture::new(4);
    common::check_sql_kill(&fx.node, "SELECT SLEEP(60)");
    // Both kills reached the backend statement (or stopped it before it was sent).
    let mut admin = fx.db.admin();
    wait_for("no killed sleep is left on the backend", || {
        admin
            .query_first::<u64, _>(
                "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '%SELECT SLEEP(60)'",
            )
            .unwrap()
            == Some(0)
    });
}

#[test]
fn a_lost_backend_connection_is_2013_and_the_session_stays_usable() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1]);
    ok(c.query(1, "BEGIN"));
    c.send_sql(1, sql_stmt("SELECT SLEEP(10)"));
    let mut admin = fx.db.admin();
    let mut thread = None;
    wait_for("the backend runs the sleep", || {
        thread = admin
            .query_first::<u64, _>(
                "SELECT id FROM information_schema.processlist WHERE info LIKE '%SELECT SLEEP(10)'",
            )
            .unwrap();
        thread.is_some()
    });
    admin
        .query_drop(format!("KILL CONNECTION {}", thread.unwrap()))
        .unwrap();
    let (code, state, msg) = error_of(&c.read_outcome(1));
    assert_eq!((code, state.as_str()), (2013, "HY000"), "{msg}");
    assert!(msg.contains("Lost connection"), "{msg}");
    assert_eq!(ok(c.query(1, "SELECT 5")).scalar(), &Value::Sint(5));
    wait_for("the lost connection is counted", || {
        fx.engine.stats().driver.lost == 1
    });
    assert_eq!(fx.pinned(), 0);
}

#[test]
fn a_kill_that_comes_before_the_statement_reaches_the_backend_is_not_lost() {
    use xrpc_server::engine::EngineConn;
    use xrpc_server::result::CollectedResult;
    let fx = Fixture::new(2);
    let mut handle = fx.engine.handle();
    // The session registered the statement (and so its interrupter), and the kill came before
    // the engine sent anything.
    handle.interrupter().interrupt();
    let mut sink = CollectedResult::default();
    let err = handle
        .execute("SELECT SLEEP(5)", &[], None, &mut sink)
        .unwrap_err();
    assert_eq!((err.code, err.sql_state.as_str()), (1317, "70100"));
    // The kill was for that statement only.
    let mut sink = CollectedResult::default();
    handle.execute("SELECT 6", &[], None, &mut sink).unwrap();
    assert_eq!(sink.rows, vec![vec![Value::Sint(6)]]);
}

#[test]
fn a_backend_restart_gives_clear_errors_at_once_then_the_pool_reconnects() {
    let mut fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1, 2]);
    ok(c.query(1, "CREATE TABLE r (x INT)"));
    ok(c.query(1, "BEGIN"));
    ok(c.query(1, "INSERT INTO r VALUES (1)"));
    assert_eq!(ok(c.query(2, "SELECT 1")).scalar(), &Value::Sint(1));
    fx.db.stop();
    for sid in [1, 2, 2] {
        let started = Instant::now();
        let (code, state, msg) = error_of(&c.query(sid, "SELECT COUNT(*) FROM r"));
        assert!(
            [2003, 2013].contains(&code) && state == "HY000",
            "{code} {state} {msg}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{:?}",
            started.elapsed()
        );
    }
    fx.db.restart().unwrap_or_else(|err| panic!("{err}"));
    wait_for("a connection is back", || {
        fx.engine.stats().driver.connections > 0
    });
    // The transaction died with its connection, as with any MySQL client; both sessions work.
    assert_eq!(
        ok(c.query(1, "SELECT COUNT(*) FROM r")).scalar(),
        &Value::Sint(0)
    );
    assert_eq!(ok(c.query(2, "SELECT 2")).scalar(), &Value::Sint(2));
    let stats = fx.engine.stats();
    assert!(stats.driver.lost >= 2, "{stats:?}");
    assert!(stats.driver.opened > 2, "reconnected: {stats:?}");
    wait_for("no connection is held", || fx.pinned() == 0);
}

#[test]
fn the_binary_fronts_mariadb_with_the_engine_setting() {
    let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
    db.admin().query_drop("CREATE DATABASE t").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let url = db.url_db("t");
    let server = common::ServerProcess::spawn(
        dir.path(),
        &log,
        &["--engine", &url, "--backend-pool-size", "3"],
    );
    let mut c = server.client();
    c.new_session(1);
    let vars = ok(c.query(1, "SHOW VARIABLES LIKE 'xrpc_engine'"));
    let shown = format!(
        "mysql://{0}:***@127.0.0.1:{1}/t",
        xrpc_testkit::USER,
        db.port()
    );
    assert_eq!(
        text(&vars.rows[0][1]),
        shown,
        "the URL without its password"
    );
    let pool = ok(c.query(1, "SHOW VARIABLES LIKE 'xrpc_backend_pool_size'"));
    assert_eq!(text(&pool.rows[0][1]), "3");
    // `version` is the backend's, with the node's suffix.
    let version = ok(c.query(1, "SHOW VARIABLES LIKE 'version'"));
    let version = text(&version.rows[0][1]);
    let backend: String = db.admin().query_first("SELECT @@version").unwrap().unwrap();
    assert_eq!(
        version,
        format!("{backend}-xrpc-{}", env!("CARGO_PKG_VERSION"))
    );
    ok(c.query(1, "CREATE TABLE via_binary (x INT)"));
    ok(c.query(1, "INSERT INTO via_binary VALUES (5)"));
    let count: Option<u64> = db
        .admin()
        .query_first("SELECT COUNT(*) FROM t.via_binary WHERE x = 5")
        .unwrap();
    assert_eq!(count, Some(1), "the row went to the backend");
    drop(server);

    // A refused login stops start-up with one clear line that does not show the password.
    let mut cmd = common::server_command();
    cmd.arg("--listen")
        .arg(format!("127.0.0.1:{}", common::free_port()))
        .arg("--data-dir")
        .arg(dir.path())
        .arg("--engine")
        .arg(format!("mysql://nobody:s3cret@127.0.0.1:{}/t", db.port()))
        .stdin(std::process::Stdio::null());
    let out = cmd.output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| panic!("no error line in {stderr}"));
    assert!(
        line.contains("1045") && line.contains("nobody:***@"),
        "{line}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
}

#[test]
fn a_100_mib_backend_result_streams_with_a_small_token_in_bounded_server_memory() {
    // Under 1 MiB of token the statement runs inline: its worker waits while the worker that
    // reads the backend hands it the rows, a bounded amount at a time.
    streams_100_mib_in_bounded_memory(64);
}

#[test]
fn a_100_mib_backend_result_streams_through_the_driver_in_bounded_server_memory() {
    // From 1 MiB of token the statement is submitted: the driver's reading worker waits for
    // the offers.
    streams_100_mib_in_bounded_memory(1024);
}

/// Streams 100 MiB from MariaDB to a client that offers `token_kib` KiB at every TOKEN_DONE,
/// and checks the node's memory grew by less than 16 MiB.
fn streams_100_mib_in_bounded_memory(token_kib: i32) {
    const ROWS: u64 = 102_400;
    const ROW_BYTES: u64 = 1024;
    const MAX_GROWTH: u64 = 16 * 1024 * 1024;
    let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
    let dir = tempfile::tempdir().unwrap();
    let server = common::ServerProcess::spawn(
        dir.path(),
        &dir.path().join("server.log"),
        &["--engine", &db.url(), "--log", "warn"],
    );
    let pid = server.pid();
    let mut c = server.client();
    c.new_session(1);
    // MariaDB's sequence engine makes the rows; the warm-up has the same shape.
    let sql = |n: u64| format!("SELECT seq, REPEAT('x', {ROW_BYTES}) FROM mysql.seq_1_to_{n}");
    assert_eq!(ok(c.query(1, &sql(1000))).rows.len(), 1000);
    let baseline = common::rss_bytes(Some(pid));
    let started = Instant::now();
    let mut stmt = sql_stmt(&sql(ROWS));
    stmt.token = Some(token_kib);
    c.send_sql(1, stmt);
    let (mut rows, mut row_bytes, mut token_dones, mut peak) = (0u64, 0u64, 0u64, baseline);
    loop {
        match c.recv_on(1).expect("the connection stays open") {
            xrpc_proto::messages::ServerMessage::Row(row) => {
                rows += 1;
                row_bytes += row.field.iter().map(|f| f.len() as u64).sum::<u64>();
            }
            xrpc_proto::messages::ServerMessage::TokenDone(_) => {
                token_dones += 1;
                if token_dones % 16 == 0 {
                    peak = peak.max(common::rss_bytes(Some(pid)));
                }
                c.send(
                    1,
                    ClientType::TokenOffer,
                    &pb::sql::TokenOffer {
                        token: Some(token_kib),
                    },
                );
            }
            xrpc_proto::messages::ServerMessage::StmtExecuteOk(_) => break,
            xrpc_proto::messages::ServerMessage::Error(err) => {
                panic!("the stream failed after {rows} rows: {err:?}")
            }
            _ => {}
        }
    }
    peak = peak.max(common::rss_bytes(Some(pid)));
    let growth = peak.saturating_sub(baseline);
    eprintln!(
        "mysql engine: streamed {:.1} MiB ({rows} rows) with token = {token_kib} KiB: {token_dones} \
         TOKEN_DONE, xrpc RSS {:.1} MiB at start, peak growth {:.1} MiB, in {:?}",
        row_bytes as f64 / 1048576.0,
        baseline as f64 / 1048576.0,
        growth as f64 / 1048576.0,
        started.elapsed()
    );
    assert_eq!(rows, ROWS);
    assert!(row_bytes >= ROWS * ROW_BYTES);
    assert!(token_dones >= ROWS * ROW_BYTES / (token_kib as u64 * 1024) / 2);
    assert!(growth < MAX_GROWTH, "xrpc's RSS grew by {growth} bytes");
}

#[test]
fn a_connection_the_backend_drops_is_replaced_before_statements_find_it() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1]);
    wait_for("both connections are logged in", || {
        fx.engine.stats().driver.connections == 2
    });
    let first = ok(c.query(1, "SELECT 0 + @@pseudo_thread_id"))
        .rows
        .remove(0);
    let Value::Uint(thread) = first[0] else {
        panic!("{first:?}")
    };
    // The backend drops an idle connection: the node sees its socket close at once and opens
    // another, so no statement finds it dead.
    fx.db
        .admin()
        .query_drop(format!("KILL CONNECTION {thread}"))
        .unwrap();
    wait_for("the dropped connection is replaced", || {
        let stats = fx.engine.stats().driver;
        stats.lost == 1 && stats.connections == 2
    });
    for _ in 0..20 {
        let row = ok(c.query(1, "SELECT 0 + @@pseudo_thread_id"))
            .rows
            .remove(0);
        assert_ne!(row, first);
    }
}

#[test]
fn a_connection_past_its_lifetime_is_replaced_once_quiet() {
    let fx = Fixture::with_options(PoolOptions {
        size: 2,
        lifetime: Duration::from_millis(200),
        ..PoolOptions::default()
    });
    let mut c = client_with_sessions(&fx, &[1]);
    let thread = |c: &mut Client| {
        ok(c.query(1, "SELECT 0 + @@pseudo_thread_id"))
            .rows
            .remove(0)
    };
    let first = thread(&mut c);
    wait_for("every connection is replaced", || {
        fx.engine.stats().driver.expired >= 2
    });
    for _ in 0..20 {
        assert_ne!(thread(&mut c), first);
    }
    assert_eq!(fx.engine.stats().driver.lost, 0);
}

#[test]
fn a_backend_refusing_connections_is_a_clear_error_not_a_crash() {
    // MariaDB's max_connections cannot go below 10, and an account with SUPER gets one more:
    // the engine's account here has neither, its two connections and the fillers take all ten.
    const MAX_CONNECTIONS: usize = 10;
    const FILLERS: usize = MAX_CONNECTIONS - 2;
    let db = MariaDb::start_with(&["--max-connections=10"]).unwrap_or_else(|err| panic!("{err}"));
    let mut admin = db.admin();
    admin
        .query_drop("CREATE USER app@'%' IDENTIFIED BY 'pw'")
        .unwrap();
    admin.query_drop("GRANT SELECT ON *.* TO app@'%'").unwrap();
    drop(admin);
    let url = format!("mysql://app:pw@127.0.0.1:{}", db.port());
    let engine = Arc::new(
        MysqlEngine::connect(
            &url,
            PoolOptions {
                driver_connections: 2,
                size: 4,
                ..PoolOptions::default()
            },
        )
        .unwrap(),
    );
    let fillers: Vec<mysql::Conn> = (0..FILLERS)
        .map(|_| mysql::Conn::new(mysql::Opts::from_url(&url).unwrap()).unwrap())
        .collect();
    let node = TestNode::start_with_engine(engine.clone(), |_, _| {});
    let mut c = node.client();
    for sid in 1..=6 {
        c.new_session(sid);
    }
    ok(c.query(1, "BEGIN"));
    ok(c.query(1, "SELECT 1"));
    // The sid-2 session's transaction needs a third connection, which the backend refuses.
    let started = Instant::now();
    let (code, state, msg) = error_of(&c.query(2, "BEGIN"));
    assert_eq!((code, state.as_str()), (1040, "08004"), "{msg}");
    assert!(msg.contains("Too many connections"), "{msg}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(engine.stats().driver.connect_errors, 1);
    // Sessions that hold nothing are served on the connection that is logged in.
    assert_eq!(ok(c.query(3, "SELECT 3")).scalar(), &Value::Sint(3));

    // A second of transactions that all need a new connection: each gets the same clear error
    // at once, and the backend sees one connect attempt per backoff pause (100 ms doubling),
    // not one per statement.
    let storm = Instant::now();
    let mut refused = 0u64;
    while storm.elapsed() < Duration::from_secs(1) {
        for sid in 3..=6 {
            c.send_sql(sid, sql_stmt("BEGIN"));
        }
        for sid in 3..=6 {
            let (code, _, msg) = error_of(&c.read_outcome(sid));
            assert_eq!(code, 1040, "{msg}");
            refused += 1;
        }
    }
    let attempts = engine.stats().driver.connect_errors;
    eprintln!("{refused} statements refused in 1 s with {attempts} connect attempts");
    assert!(refused >= 20, "{refused}");
    // 100 + 200 + 400 ms pauses fit in a second: about four attempts.
    assert!(
        attempts <= 8,
        "{attempts} connect attempts for {refused} statements"
    );

    // Once the backend has room again, everyone is served: the next attempt after the pause
    // connects.
    drop(fillers);
    ok(c.query(1, "COMMIT"));
    wait_for("a refused session is served again", || {
        c.query(3, "BEGIN").error.is_none()
    });
    ok(c.query(3, "ROLLBACK"));
    for sid in 4..=6 {
        assert_eq!(ok(c.query(sid, "SELECT 4")).scalar(), &Value::Sint(4));
    }
    let stats = engine.stats();
    assert!(stats.driver.connections <= 4, "{stats:?}");
}

/// What one load thread of [`a_backend_restart_under_load_leaves_no_statement_unanswered`] saw.
#[derive(Debug, Default)]
struct LoadCounts {
    sent: std::sync::atomic::AtomicU64,
    answered: std::sync::atomic::AtomicU64,
    ok: std::sync::atomic::AtomicU64,
    errors: std::sync::atomic::AtomicU64,
    /// Errors on a statement sent inside an open transaction.
    errors_in_transaction: std::sync::atomic::AtomicU64,
    /// The slowest answer, in milliseconds.
    slowest_ms: std::sync::atomic::AtomicU64,
    /// Error codes seen, for the report.
    codes: parking_lot::Mutex<std::collections::BTreeMap<u32, u64>>,
}

#[test]
fn a_backend_restart_under_load_leaves_no_statement_unanswered() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    /// Load threads, one client connection each: a third run auto-commit selects, a third
    /// plain inserts on a session, a third hold transactions.
    const THREADS: usize = 12;
    const POOL: usize = 4;
    let mut fx = Fixture::new(POOL);
    ok(client_with_sessions(&fx, &[1]).query(
        1,
        "CREATE TABLE load_rows (id INT AUTO_INCREMENT PRIMARY KEY, who INT) ENGINE=InnoDB",
    ));
    let stop = Arc::new(AtomicBool::new(false));
    let counts: Vec<Arc<LoadCounts>> = (0..THREADS).map(|_| Arc::default()).collect();
    let threads: Vec<_> = counts
        .iter()
        .enumerate()
        .map(|(i, counts)| {
            let counts = Arc::clone(counts);
            let stop = Arc::clone(&stop);
            let mut client = fx.client();
            std::thread::spawn(move || {
                let sid = if i % 3 == 0 { AUTO | 1 } else { 1 };
                if sid == 1 {
                    client.new_session(sid);
                }
                let mut in_transaction = false;
                let mut step = 0u64;
                while !stop.load(Relaxed) {
                    let sql = match (i % 3, step % 4) {
                        (0, _) => "SELECT COUNT(*) FROM load_rows".to_owned(),
                        (1, _) => format!("INSERT INTO load_rows (who) VALUES ({i})"),
                        (_, 0) => "BEGIN".to_owned(),
                        (_, 1) => format!("INSERT INTO load_rows (who) VALUES ({i})"),
                        (_, 2) => format!("SELECT COUNT(*) FROM load_rows WHERE who = {i}"),
                        _ => "COMMIT".to_owned(),
                    };
                    counts.sent.fetch_add(1, Relaxed);
                    let started = Instant::now();
                    // The client's read timeout (20 s) panics this thread if no answer comes.
                    let outcome = client.query(sid, &sql);
                    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    counts.slowest_ms.fetch_max(ms, Relaxed);
                    counts.answered.fetch_add(1, Relaxed);
                    match &outcome.error {
                        None => {
                            counts.ok.fetch_add(1, Relaxed);
                            in_transaction = sql == "BEGIN" || (in_transaction && sql != "COMMIT");
                            step += 1;
                        }
                        Some(err) => {
                            *counts.codes.lock().entry(err.code).or_default() += 1;
                            counts.errors.fetch_add(1, Relaxed);
                            if in_transaction {
                                counts.errors_in_transaction.fetch_add(1, Relaxed);
                            }
                            // The transaction died with its connection: start a new one.
                            in_transaction = false;
                            step = 0;
                        }
                    }
                }
                // Nothing left pinned or borrowed once the sessions close.
                if sid == 1 {
                    close_session(&mut client, sid);
                }
            })
        })
        .collect();
    let all = |what: &str, f: &dyn Fn(&LoadCounts) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !counts.iter().all(|c| f(c)) {
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    all("every thread has run statements", &|c| {
        c.ok.load(Relaxed) >= 20
    });
    // A session of the test's own holds a transaction across the outage.
    let mut holder = client_with_sessions(&fx, &[1]);
    ok(holder.query(1, "BEGIN"));
    ok(holder.query(1, "INSERT INTO load_rows (who) VALUES (99)"));
    let before = fx.engine.stats();
    let stopped_at = Instant::now();
    fx.db.stop();
    let errors_at_stop: Vec<u64> = counts.iter().map(|c| c.errors.load(Relaxed)).collect();
    // Every thread notices the outage (a statement fails) before the backend comes back.
    let deadline = Instant::now() + Duration::from_secs(30);
    while counts
        .iter()
        .zip(&errors_at_stop)
        .any(|(c, &at_stop)| c.errors.load(Relaxed) == at_stop)
    {
        assert!(
            Instant::now() < deadline,
            "a thread never noticed the outage"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    fx.db.restart().unwrap_or_else(|err| panic!("{err}"));
    let outage = stopped_at.elapsed();
    let during = fx.engine.stats();
    let ok_at_restart: Vec<u64> = counts.iter().map(|c| c.ok.load(Relaxed)).collect();
    let lost_answers = || -> u64 {
        counts
            .iter()
            .map(|c| c.codes.lock().get(&2013).copied().unwrap_or(0))
            .sum()
    };
    let lost_at_restart = lost_answers();
    // The transaction died with its connection: its next statement says so, as 2013, and the
    // session carries on without it.
    let (code, state, msg) = error_of(&holder.query(1, "INSERT INTO load_rows (who) VALUES (99)"));
    assert_eq!((code, state.as_str()), (2013, "HY000"), "{msg}");
    assert!(msg.contains("transaction"), "{msg}");
    let back_at = Instant::now();
    all("every thread carries on after the restart", &|c| {
        let i = counts
            .iter()
            .position(|x| std::ptr::eq(x.as_ref(), c))
            .unwrap();
        c.ok.load(Relaxed) >= ok_at_restart[i] + 20
    });
    let recovered_in = back_at.elapsed();
    // The node sees every connection the restart broke close at once and opens new ones, so
    // once the backend is back no statement of the load finds a dead connection.
    assert_eq!(lost_answers(), lost_at_restart, "2013 after the restart");
    stop.store(true, Relaxed);
    for thread in threads {
        thread
            .join()
            .unwrap_or_else(|_| panic!("a load thread died: a statement got no answer"));
    }
    let mut codes = std::collections::BTreeMap::new();
    for (i, c) in counts.iter().enumerate() {
        let (sent, answered) = (c.sent.load(Relaxed), c.answered.load(Relaxed));
        assert_eq!(sent, answered, "thread {i}: a statement got no answer");
        assert!(c.errors.load(Relaxed) >= 1, "thread {i} {c:?}");
        for (code, n) in c.codes.lock().iter() {
            *codes.entry(*code).or_insert(0) += n;
        }
    }
    let slowest = counts
        .iter()
        .map(|c| c.slowest_ms.load(Relaxed))
        .max()
        .unwrap();
    let stats = fx.engine.stats();
    let connect_attempts_in_outage = during.driver.connect_errors - before.driver.connect_errors;
    eprintln!(
        "outage {outage:?}, recovered in {recovered_in:?}, slowest answer {slowest} ms, \
         error codes {codes:?}, connect attempts refused during the outage \
         {connect_attempts_in_outage}, stats {stats:?}"
    );
    // Lost connections are 2013, refused connects 2003: nothing else, nothing vague.
    assert!(
        codes.keys().all(|code| [2003, 2013].contains(code)),
        "{codes:?}"
    );
    // Answers came at once, not after a hang (the statement timeout and pool wait are 10 s).
    assert!(slowest < 5_000, "slowest answer {slowest} ms");
    // No retry storm: connect attempts back off (100 ms doubling to 5 s), at most one per pause
    // per pool slot, however many statements arrived.
    let pauses = (outage.as_millis() / 100) as u64 + 1;
    let bound = (pauses.ilog2() as u64 + 2) * POOL as u64;
    assert!(
        connect_attempts_in_outage <= bound,
        "{connect_attempts_in_outage} connect attempts in {outage:?} (bound {bound})"
    );
    assert!(stats.driver.opened > before.driver.opened, "{stats:?}");
    // No worker stuck, nothing held: a fresh session is answered at once.
    wait_for("the node runs no statement", || {
        fx.node.node().shared().running_statements() == 0
    });
    wait_for("no connection is held", || fx.pinned() == 0);
    assert_eq!(
        ok(holder.query(1, "SELECT COUNT(*) FROM load_rows WHERE who = 99")).scalar(),
        &Value::Sint(0),
        "the lost transaction's row is gone"
    );
    let in_transaction: u64 = counts
        .iter()
        .map(|c| c.errors_in_transaction.load(Relaxed))
        .sum();
    eprintln!("load threads' statements that failed inside a transaction: {in_transaction}");
}

#[test]
fn after_a_backend_restart_no_statement_finds_a_dead_connection() {
    const POOL: usize = 4;
    let mut fx = Fixture::new(POOL);
    // One connection stays in the shared rotation.
    let sids: Vec<u64> = (1..POOL as u64).collect();
    let mut holder = client_with_sessions(&fx, &sids);
    // Transactions at once take every other connection; their commits give them back.
    for &sid in &sids {
        ok(holder.query(sid, "BEGIN"));
    }
    for &sid in &sids {
        ok(holder.query(sid, "COMMIT"));
    }
    wait_for("every connection is logged in", || {
        fx.engine.stats().driver.connections == POOL as u64
    });
    // Without load: the connections die with the backend, and the node sees each close.
    fx.db.stop();
    wait_for("every connection is seen lost", || {
        fx.engine.stats().driver.connections == 0
    });
    let (code, _, msg) = error_of(&holder.query(1, "SELECT 1"));
    assert!([2003, 2013].contains(&code), "{code} {msg}");
    fx.db.restart().unwrap_or_else(|err| panic!("{err}"));
    wait_for("the connections are back", || {
        fx.engine.stats().driver.connections >= 2
    });
    for n in 0..20 {
        let sql = format!("SELECT {n}");
        assert_eq!(ok(holder.query(1, &sql)).scalar(), &Value::Sint(n));
    }
}

#[test]
fn pool_settings_change_at_runtime_and_held_connections_are_not_yanked() {
    let fx = Fixture::new(2);
    let mut c = client_with_sessions(&fx, &[1, 2, 3, 4]);
    let admin = AUTO | 9;
    let var = |c: &mut Client, name: &str| -> Value {
        ok(c.query(admin, &format!("SELECT @@{name}")))
            .scalar()
            .clone()
    };
    // The node shows the options the engine runs with, and the documented defaults.
    assert_eq!(var(&mut c, "xrpc_backend_pool_size"), Value::Sint(2));
    assert_eq!(
        var(&mut c, "xrpc_backend_connection_lifetime"),
        Value::Sint(1_800_000)
    );
    assert_eq!(
        var(&mut c, "xrpc_backend_connect_timeout"),
        Value::Sint(5000)
    );
    let (code, _, msg) = error_of(&c.query(admin, "SET GLOBAL xrpc_backend_pool_size = 1"));
    assert_eq!(code, 1231, "{msg}");
    let (code, _, msg) =
        error_of(&c.query(admin, "SET GLOBAL xrpc_backend_connect_timeout = 1000"));
    assert_eq!(code, 1238, "{msg}");

    // Growing: a session waiting for a connection of its own is served as soon as the pool
    // grows.
    ok(c.query(1, "CREATE TABLE g (x INT) ENGINE=InnoDB"));
    ok(c.query(1, "BEGIN"));
    ok(c.query(1, "INSERT INTO g VALUES (1)"));
    let started = Instant::now();
    c.send_sql(2, sql_stmt("BEGIN"));
    wait_for("session 2 waits for a connection", || {
        fx.engine.stats().driver.pin_queued == 1
    });
    ok(c.query(admin, "SET GLOBAL xrpc_backend_pool_size = 3"));
    ok(c.read_outcome(2));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "served after {:?}, not at the 10 s wait timeout",
        started.elapsed()
    );
    ok(c.query(2, "INSERT INTO g VALUES (2)"));
    let stats = fx.engine.stats().driver;
    assert_eq!((stats.connections, stats.pinned), (3, 2), "{stats:?}");

    // Shrinking: the connections the transactions hold stay with their sessions until the
    // transactions end; then the pool is back at its size.
    ok(c.query(admin, "SET GLOBAL xrpc_backend_pool_size = 2"));
    for sid in [1, 2] {
        let own = ok(c.query(sid, "SELECT COUNT(*) FROM g")).scalar().clone();
        assert_eq!(
            own,
            Value::Sint(1),
            "session {sid} still sees its own transaction"
        );
    }
    assert_eq!(fx.engine.stats().driver.pinned, 2);
    for sid in [1, 2] {
        ok(c.query(sid, "COMMIT"));
    }
    wait_for("the pool shrinks to its size", || {
        let stats = fx.engine.stats().driver;
        stats.connections == 2 && stats.pinned == 0
    });
    assert_eq!(
        ok(c.query(4, "SELECT COUNT(*) FROM g")).scalar(),
        &Value::Sint(2)
    );

    // Lifetime: once it is shorter than the connections' age, they are replaced.
    let thread = |c: &mut Client| {
        ok(c.query(4, "SELECT 0 + @@pseudo_thread_id"))
            .rows
            .remove(0)
    };
    let first = thread(&mut c);
    let expired = fx.engine.stats().driver.expired;
    ok(c.query(admin, "SET GLOBAL xrpc_backend_connection_lifetime = 1"));
    wait_for("the connections are replaced", || {
        fx.engine.stats().driver.expired >= expired + 2
    });
    ok(c.query(
        admin,
        "SET GLOBAL xrpc_backend_connection_lifetime = 1800000",
    ));
    assert_ne!(thread(&mut c), first);
}

/// A node over a pool of 4 whose session 1 holds the named lock `leader`, and the outcomes of 64
/// other sessions of one connection polling it with `GET_LOCK('leader', 0)` twice, all sent at
/// once.
fn sixty_four_sessions_poll_a_held_named_lock() -> (Fixture, Client, Vec<Outcome>) {
    let fx = Fixture::with_options(PoolOptions {
        size: 4,
        wait_timeout: Duration::from_secs(2),
        ..PoolOptions::default()
    });
    let mut holder = client_with_sessions(&fx, &[1]);
    assert_eq!(
        ok(holder.query(1, "SELECT GET_LOCK('leader', 0)")).scalar(),
        &Value::Sint(1)
    );
    let pollers: Vec<u64> = (100..164).collect();
    let mut c = client_with_sessions(&fx, &pollers);
    let mut outcomes = Vec::new();
    for _ in 0..2 {
        let burst = common::sql_burst(
            pollers
                .iter()
                .map(|&sid| (sid, "SELECT GET_LOCK('leader', 0)")),
        );
        c.send_raw(&burst);
        outcomes.extend(pollers.iter().map(|&sid| c.read_outcome(sid)));
    }
    (fx, holder, outcomes)
}

#[test]
fn sessions_polling_a_named_lock_another_holds_do_not_take_the_pool() {
    let (_fx, _holder, outcomes) = sixty_four_sessions_poll_a_held_named_lock();
    let answers: Vec<Result<Value, u32>> = outcomes
        .iter()
        .map(|o| {
            o.error
                .as_ref()
                .map_or_else(|| Ok(o.rows[0][0].clone()), |e| Err(e.code))
        })
        .collect();
    assert_eq!(
        answers,
        vec![Ok(Value::Sint(0)); 128],
        "no 7009, no lock granted"
    );
}

#[test]
fn the_holder_of_a_named_lock_keeps_it_while_others_poll() {
    let (_fx, mut holder, _) = sixty_four_sessions_poll_a_held_named_lock();
    let mine = "SELECT IFNULL(IS_USED_LOCK('leader') = @@pseudo_thread_id, 0)";
    assert_eq!(ok(holder.query(1, mine)).scalar(), &Value::Sint(1));
}

#[test]
fn releasing_the_last_named_lock_gives_the_connection_back_to_the_pool() {
    let (fx, mut holder, _) = sixty_four_sessions_poll_a_held_named_lock();
    // The pollers' connections count until their resets are answered.
    wait_for("only the holder's connection is pinned", || {
        fx.pinned() == 1
    });
    ok(holder.query(1, "SELECT GET_LOCK('second', 0)"));
    ok(holder.query(1, "SELECT RELEASE_LOCK('leader')"));
    assert_eq!(fx.pinned(), 1, "'second' is still held");
    ok(holder.query(1, "SELECT RELEASE_LOCK('second')"));
    // A driver connection counts as pinned until its reset is answered.
    wait_for("the holder's connection is given back", || fx.pinned() == 0);
}
