//! End-to-end: the `mysql` engine answering statements through its event-loop driver
//! (`xrpc_backend_driver_connections`): statements of many sessions pipelined on two backend
//! connections, each answered to its own session, kills, a session whose client reads slowly,
//! and sessions with state (transactions, user variables, named locks, a database switch) on a
//! driver connection of their own, given back reset.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Client, Outcome, TestNode, arg_sint, kill_query, send_session_close, sql_stmt, text};
use mysql::prelude::Queryable;
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_proto::value::Value;
use xrpc_server::engine::mysql::{MysqlEngine, PoolOptions};
use xrpc_testkit::MariaDb;

/// The high bit of a sid: an auto-commit session.
const AUTO: u64 = 0x8000_0000_0000_0000;

/// A MariaDB with database `t`, an engine whose driver opens two connections (the fewest), and
/// a node on it.
/// Dropped in field order: the node, the engine, then the server.
struct Fixture {
    node: TestNode,
    engine: Arc<MysqlEngine>,
    _db: MariaDb,
}

impl Fixture {
    /// Two driver connections opened at the start, up to four by demand.
    fn new() -> Self {
        Self::with_backend_connections(2, 4)
    }

    /// `opened` driver connections opened at the start, up to `most` by demand.
    fn with_backend_connections(opened: usize, most: usize) -> Self {
        let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
        db.admin().query_drop("CREATE DATABASE t").unwrap();
        let options = PoolOptions {
            size: most,
            driver_connections: opened,
            ..PoolOptions::default()
        };
        let engine = Arc::new(MysqlEngine::connect(&db.url_db("t"), options).unwrap());
        let node = TestNode::start_with_engine(engine.clone(), |_, _| {});
        let fx = Self {
            node,
            engine,
            _db: db,
        };
        wait_for("the driver logged in", || {
            fx.engine.driver().is_some_and(|d| d.connected() == opened)
        });
        fx
    }

    /// Driver connections pinned to a session now (given back ones count until their reset).
    fn driver_pinned(&self) -> u64 {
        self.engine.stats().driver.pinned
    }

    /// A row of the driver's `SHOW STATUS` (`xrpc_backend_<name>`).
    fn driver_status(&self, name: &str) -> u64 {
        let rows = self.engine.stats().status_rows();
        let name = format!("xrpc_backend_{name}");
        rows.iter()
            .find(|(row, _)| *row == name)
            .map_or(0, |(_, value)| value.parse().unwrap())
    }

    /// Statements the driver has placed on its connections so far.
    fn driven(&self) -> u64 {
        self.engine
            .driver()
            .map_or(0, |d| d.depth_distribution().iter().sum())
    }
}

/// Waits (bounded) until `condition` holds.
fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Runs `statements` on session `sid` one after another, each expected to succeed.
fn run_all(client: &mut Client, sid: u64, statements: &[&str]) {
    for sql in statements {
        let outcome = client.query(sid, sql);
        assert!(outcome.error.is_none(), "{sql}: {:?}", outcome.error);
    }
}

fn first_value(outcome: &Outcome) -> Value {
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    outcome.rows[0][0].clone()
}

fn error_code(outcome: &Outcome) -> u32 {
    outcome
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("expected an error, got {outcome:?}"))
        .code
}

fn select_arg(client: &mut Client, sid: u64, sql: &str, value: i64) {
    let mut stmt = sql_stmt(sql);
    stmt.args = vec![arg_sint(value)];
    client.send_sql(sid, stmt);
}

#[test]
fn many_sessions_pipelined_on_two_backend_connections_each_get_their_own_answers() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    let sids: Vec<u64> = (1..=48).collect();
    for &sid in &sids {
        c.new_session(sid);
    }
    let before = fx.driven();
    for round in 0..4_i64 {
        for &sid in &sids {
            select_arg(
                &mut c,
                sid,
                "SELECT ? + 0, CONNECTION_ID()",
                i64::try_from(sid).unwrap() * 1000 + round,
            );
        }
        for &sid in &sids {
            let outcome = c.read_outcome(sid);
            let number = i64::try_from(sid).unwrap() * 1000 + round;
            assert_eq!(
                (first_value(&outcome), outcome.rows.len()),
                (Value::Sint(number), 1),
                "session {sid}, round {round}"
            );
        }
    }
    assert!(
        fx.driven() - before >= 4 * 48,
        "the statements went through the driver"
    );
}

#[test]
fn auto_commit_sids_get_their_own_answers_through_the_driver() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    let before = fx.driven();
    for sid in 1..=32_u64 {
        select_arg(
            &mut c,
            AUTO | sid,
            "SELECT ? + 0",
            i64::try_from(sid).unwrap(),
        );
    }
    for sid in 1..=32_u64 {
        let outcome = c.read_outcome(AUTO | sid);
        assert_eq!(
            first_value(&outcome),
            Value::Sint(i64::try_from(sid).unwrap())
        );
    }
    assert!(fx.driven() - before >= 32);
}

#[test]
fn an_error_in_one_pipelined_statement_leaves_its_neighbours_intact() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    for sid in 1..=9 {
        c.new_session(sid);
    }
    for sid in 1..=9_u64 {
        if sid == 5 {
            c.send_sql(sid, sql_stmt("SELECT * FROM no_such_table"));
        } else {
            select_arg(&mut c, sid, "SELECT ? + 0", i64::try_from(sid).unwrap());
        }
    }
    let answers: Vec<Result<Value, u32>> = (1..=9)
        .map(|sid| {
            let outcome = c.read_outcome(sid);
            match outcome.error {
                Some(err) => Err(err.code),
                None => Ok(outcome.rows[0][0].clone()),
            }
        })
        .collect();
    let expected: Vec<Result<Value, u32>> = (1..=9)
        .map(|sid| {
            if sid == 5 {
                Err(1146)
            } else {
                Ok(Value::Sint(sid))
            }
        })
        .collect();
    assert_eq!(answers, expected);
}

#[test]
fn inserts_through_the_driver_report_their_ids_to_their_session() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    let created = c.query(
        1,
        "CREATE TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, owner INT)",
    );
    assert!(created.error.is_none(), "{:?}", created.error);
    let before = fx.driven();
    select_arg(&mut c, 1, "INSERT INTO items (owner) VALUES (?)", 1);
    let first = c.read_outcome(1);
    select_arg(&mut c, 2, "INSERT INTO items (owner) VALUES (?)", 2);
    let second = c.read_outcome(2);
    let mine = c.query(1, "SELECT LAST_INSERT_ID()");
    assert_eq!(
        (
            first.last_insert_id(),
            second.last_insert_id(),
            first_value(&mine),
            fx.driven() - before >= 3
        ),
        (Some(1), Some(2), Value::Uint(1), true)
    );
}

#[test]
fn a_killed_statement_waiting_for_room_on_the_driver_gets_1317_at_once() {
    let fx = Fixture::with_backend_connections(2, 2);
    let mut c = fx.node.client();
    // Sixteen sleeps fill each connection's pipeline; the next statement waits in the driver's
    // queue until a connection's first sleep ends, a second after it began (the kill comes
    // long before). Each connection runs its sixteen one after the other.
    let sleepers: Vec<u64> = (1..=32).collect();
    for &sid in &sleepers {
        c.new_session(sid);
        c.send_sql(sid, sql_stmt("SELECT SLEEP(1)"));
    }
    c.new_session(33);
    let driver = fx.engine.driver().unwrap();
    wait_for("the sleeps were placed", || {
        driver.depth_distribution().iter().sum::<u64>() >= 32
    });
    let started = Instant::now();
    c.send_sql(33, sql_stmt("SELECT 33"));
    wait_for("the statement waits in the driver's queue", || {
        driver.queued() == 1
    });
    kill_query(&mut c, 33);
    let killed = c.read_outcome(33);
    let waited = started.elapsed();
    assert_eq!(error_code(&killed), 1317);
    assert!(waited < Duration::from_secs(2), "answered after {waited:?}");
    for &sid in &sleepers {
        assert_eq!(first_value(&c.read_outcome(sid)), Value::Sint(0));
    }
    // The session goes on.
    assert_eq!(text(&first_value(&c.query(33, "SELECT 'after'"))), "after");
}

#[test]
fn a_killed_running_statement_gets_1317_and_a_neighbour_is_answered() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    let started = Instant::now();
    c.send_sql(1, sql_stmt("SELECT SLEEP(20)"));
    let driver = fx.engine.driver().unwrap();
    wait_for("the sleep was placed", || {
        driver.depth_distribution().iter().sum::<u64>() >= 1
    });
    c.send_sql(2, sql_stmt("SELECT 'behind'"));
    // Give the sleep time to start on the backend, then kill it.
    std::thread::sleep(Duration::from_millis(200));
    kill_query(&mut c, 1);
    let killed = c.read_outcome(1);
    let behind = c.read_outcome(2);
    assert_eq!(
        (error_code(&killed), text(&first_value(&behind)).as_str()),
        (1317, "behind")
    );
    assert!(started.elapsed() < Duration::from_secs(15));
}

/// Rows of a recursive count, enough to spend a small token budget many times over.
const MANY_ROWS: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) \
                         SELECT x, REPEAT('r', 200) FROM c";

/// Five rounds of `SELECT ?` on 16 auto-commit sids, each answer checked against its session:
/// 80 statements of sessions that hold nothing.
fn five_rounds_of_sixteen_auto_commit_statements(c: &mut Client) {
    for round in 0..5_i64 {
        for sid in 1..=16_u64 {
            let value = i64::try_from(sid).unwrap() * 10 + round;
            select_arg(c, AUTO | sid, "SELECT ? + 0", value);
        }
        for sid in 1..=16_u64 {
            let value = i64::try_from(sid).unwrap() * 10 + round;
            assert_eq!(first_value(&c.read_outcome(AUTO | sid)), Value::Sint(value));
        }
    }
}

#[test]
fn a_slow_reader_on_one_session_does_not_stall_the_others() {
    let fx = Fixture::new();
    let mut slow = fx.node.client();
    slow.new_session(1);
    // A one-KiB token and no offer: the session's result stops after its first rows.
    let mut stmt = sql_stmt(MANY_ROWS);
    stmt.token = Some(1);
    slow.send_sql(1, stmt);
    let mut c = fx.node.client();
    let before = fx.driven();
    five_rounds_of_sixteen_auto_commit_statements(&mut c);
    assert!(fx.driven() - before >= 80);
    // The slow session is still waiting for its tokens; a kill ends it.
    kill_query(&mut slow, 1);
    assert_eq!(error_code(&slow.read_outcome(1)), 1317);
}

/// A result of 3000 rows of a KiB each: three times a 1 MiB token.
const THREE_MIB: &str = "SELECT seq, REPEAT('t', 1024) FROM mysql.seq_1_to_3000";

#[test]
fn a_flow_controlled_result_goes_through_the_driver_and_waits_for_its_offer_alone() {
    const TOKEN_KIB: i32 = 1024;
    let fx = Fixture::new();
    let mut streaming = fx.node.client();
    streaming.new_session(1);
    let before = fx.driven();
    let mut stmt = sql_stmt(THREE_MIB);
    stmt.token = Some(TOKEN_KIB);
    streaming.send_sql(1, stmt);
    let mut rows = 0_u64;
    loop {
        match streaming.recv_on(1).expect("the connection stays open") {
            ServerMessage::Row(_) => rows += 1,
            ServerMessage::TokenDone(_) => break,
            ServerMessage::ColumnMetaData(_) => {}
            other => panic!("expected columns, rows, then TOKEN_DONE, got {other:?}"),
        }
    }
    // The reading worker now waits for the offer; other sessions are answered meanwhile.
    let mut c = fx.node.client();
    five_rounds_of_sixteen_auto_commit_statements(&mut c);
    let offer = pb::sql::TokenOffer {
        token: Some(TOKEN_KIB),
    };
    streaming.send(1, ClientType::TokenOffer, &offer);
    loop {
        match streaming.recv_on(1).expect("the connection stays open") {
            ServerMessage::Row(_) => rows += 1,
            ServerMessage::TokenDone(_) => streaming.send(1, ClientType::TokenOffer, &offer),
            ServerMessage::StmtExecuteOk(_) => break,
            ServerMessage::Error(err) => panic!("the stream failed after {rows} rows: {err:?}"),
            _ => {}
        }
    }
    assert_eq!(
        (rows, fx.driven() - before >= 81),
        (3000, true),
        "all rows, and every statement through the driver"
    );
}

#[test]
fn statements_of_a_session_that_holds_state_stay_on_its_own_connection() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    run_all(
        &mut c,
        1,
        &[
            "CREATE TABLE pinned (x INT)",
            "BEGIN",
            "INSERT INTO pinned VALUES (1)",
        ],
    );
    let before = fx.driven();
    // Inside the transaction the session sees its own row; another session (through the
    // driver) does not until the commit.
    let own = first_value(&c.query(1, "SELECT COUNT(*) FROM pinned"));
    let other_before = first_value(&c.query(2, "SELECT COUNT(*) FROM pinned"));
    let driven_in_transaction = fx.driven() - before;
    assert!(c.query(1, "COMMIT").error.is_none());
    let other_after = first_value(&c.query(2, "SELECT COUNT(*) FROM pinned"));
    // A user variable pins the session too: its value is read back on the same connection.
    assert!(c.query(1, "SET @mine = 41").error.is_none());
    let variable = first_value(&c.query(1, "SELECT @mine + 1"));
    assert_eq!(
        (
            own,
            other_before,
            other_after,
            driven_in_transaction,
            variable
        ),
        (
            Value::Sint(1),
            Value::Sint(0),
            Value::Sint(1),
            1,
            Value::Sint(42)
        )
    );
}

#[test]
fn a_transaction_holds_a_driver_connection_of_its_own_until_it_commits() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    run_all(
        &mut c,
        1,
        &[
            "CREATE TABLE own (x INT)",
            "BEGIN",
            "INSERT INTO own VALUES (1)",
        ],
    );
    let during = fx.driver_pinned();
    // Meanwhile another session's statements go on through the shared connection.
    let other = first_value(&c.query(2, "SELECT COUNT(*) FROM own"));
    assert!(c.query(1, "COMMIT").error.is_none());
    wait_for("the connection is given back", || fx.driver_pinned() == 0);
    let after = first_value(&c.query(2, "SELECT COUNT(*) FROM own"));
    assert_eq!((during, other, after), (1, Value::Sint(0), Value::Sint(1)));
}

#[test]
fn a_user_variable_keeps_its_driver_connection_until_the_session_closes() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    assert!(c.query(1, "SET @v = 7").error.is_none());
    let value = first_value(&c.query(1, "SELECT @v * 6"));
    let during = fx.driver_pinned();
    send_session_close(&mut c, 1);
    wait_for("the connection is given back", || fx.driver_pinned() == 0);
    // Reset before anyone else runs there: a new session does not see the variable.
    c.new_session(2);
    let unset = first_value(&c.query(2, "SELECT @v IS NULL"));
    assert_eq!((value, during, unset), (Value::Sint(42), 1, Value::Sint(1)));
}

#[test]
fn a_statement_that_may_leave_state_but_did_not_gives_its_driver_connection_back() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    // Not one of the plain statements the shared connections take: it runs on a connection of
    // its own, whose OK packet shows nothing left there.
    let shown = first_value(&c.query(1, "SHOW DATABASES LIKE 't'"));
    wait_for("the connection is given back", || fx.driver_pinned() == 0);
    assert_eq!(text(&shown), "t");
}

#[test]
fn a_database_switch_on_a_driver_connection_never_reaches_another_session() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    assert!(c.query(1, "CREATE DATABASE elsewhere").error.is_none());
    assert!(c.query(1, "USE elsewhere").error.is_none());
    wait_for("the connection is given back", || fx.driver_pinned() == 0);
    let seen: Vec<String> = (0..8)
        .map(|_| text(&first_value(&c.query(2, "SELECT DATABASE()"))))
        .collect();
    let own = text(&first_value(&c.query(1, "SELECT DATABASE()")));
    assert_eq!(
        (seen, own),
        (vec!["t".to_owned(); 8], "elsewhere".to_owned())
    );
}

#[test]
fn a_kill_stops_a_statement_on_a_pinned_connection_and_its_transaction_goes_on() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    run_all(
        &mut c,
        1,
        &[
            "CREATE TABLE k (x INT)",
            "BEGIN",
            "INSERT INTO k VALUES (1)",
        ],
    );
    let started = Instant::now();
    c.send_sql(1, sql_stmt("SELECT SLEEP(20)"));
    // Give the sleep time to start on the backend, then kill it.
    std::thread::sleep(Duration::from_millis(200));
    kill_query(&mut c, 1);
    let killed = error_code(&c.read_outcome(1));
    let waited = started.elapsed();
    // Still in its transaction, on its connection: it sees its own uncommitted row.
    let own = first_value(&c.query(1, "SELECT COUNT(*) FROM k"));
    assert_eq!((killed, own, fx.driver_pinned()), (1317, Value::Sint(1), 1));
    assert!(
        waited < Duration::from_secs(15),
        "answered after {waited:?}"
    );
}

#[test]
fn statements_a_pinned_session_runs_inline_use_its_driver_connection() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    assert!(c.query(1, "BEGIN").error.is_none());
    // SHOW VARIABLES gets the isolation variable under both its names, and the node's version.
    let shown = c.query(
        1,
        "SHOW VARIABLES WHERE Variable_name IN ('tx_isolation', 'transaction_isolation', 'version')",
    );
    let mut names: Vec<String> = shown.rows.iter().map(|row| text(&row[0])).collect();
    names.sort();
    let version = shown
        .rows
        .iter()
        .find(|row| text(&row[0]) == "version")
        .map(|row| text(&row[1]))
        .unwrap_or_default();
    // A named lock outlives the transaction: the connection stays the session's until it is
    // released.
    let locked = first_value(&c.query(1, "SELECT GET_LOCK('dpin', 0)"));
    assert!(c.query(1, "COMMIT").error.is_none());
    let held_after_commit = fx.driver_pinned();
    let released = first_value(&c.query(1, "SELECT RELEASE_LOCK('dpin')"));
    wait_for("the connection is given back", || fx.driver_pinned() == 0);
    assert_eq!(
        (
            names,
            version.contains("-xrpc-"),
            locked,
            held_after_commit,
            released
        ),
        (
            vec![
                "transaction_isolation".to_owned(),
                "tx_isolation".to_owned(),
                "version".to_owned()
            ],
            true,
            Value::Sint(1),
            1,
            Value::Sint(1)
        )
    );
}

#[test]
fn show_status_reports_the_driver_connections_and_pipeline_depths() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    for n in 0..10 {
        select_arg(&mut c, 1, "SELECT ? + 0", n);
        first_value(&c.read_outcome(1));
    }
    let status = c.query(1, "SHOW GLOBAL STATUS LIKE 'xrpc\\_backend\\_%'");
    assert!(status.error.is_none(), "{:?}", status.error);
    let row = |name: &str| -> u64 {
        status
            .rows
            .iter()
            .find(|r| text(&r[0]) == name)
            .map(|r| text(&r[1]).parse().unwrap())
            .unwrap_or_else(|| panic!("SHOW STATUS lacks {name}"))
    };
    let depths: u64 = status
        .rows
        .iter()
        .filter(|r| text(&r[0]).starts_with("xrpc_backend_pipeline_depth_"))
        .map(|r| text(&r[1]).parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        (row("xrpc_backend_connections"), depths >= 10),
        (2, true),
        "{:?}",
        status.rows
    );
}

#[test]
fn a_session_with_variables_and_another_database_runs_on_the_driver_not_the_pool() {
    // Connections to spare: the blocking pool is only for when none can be taken.
    let fx = Fixture::with_backend_connections(4, 4);
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    run_all(
        &mut c,
        1,
        &[
            "CREATE DATABASE other",
            "CREATE TABLE other.marks (x INT)",
            "SET SESSION sql_mode = 'ANSI_QUOTES', time_zone = '-03:00'",
            "USE other",
            "INSERT INTO marks VALUES (7)",
        ],
    );
    // Each statement is brought level on a connection of its own, which goes back reset: the
    // neighbour sees the URL's database and the server's variables.
    let own: Vec<String> = c
        .query(
            1,
            "SELECT CAST(@@sql_mode AS CHAR), CAST(@@time_zone AS CHAR), DATABASE(), \
             (SELECT CAST(SUM(x) AS CHAR) FROM marks)",
        )
        .rows[0]
        .iter()
        .map(text)
        .collect();
    wait_for("the connection is given back", || fx.driver_pinned() == 0);
    let neighbour = text(&first_value(
        &c.query(2, "SELECT CONCAT(@@time_zone, ' ', DATABASE())"),
    ));
    assert_eq!(
        (own, neighbour),
        (
            vec![
                "ANSI_QUOTES".to_owned(),
                "-03:00".to_owned(),
                "other".to_owned(),
                "7".to_owned()
            ],
            "SYSTEM t".to_owned(),
        )
    );
}

#[test]
fn nothing_runs_behind_a_levelling_statement_that_fails() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    c.new_session(2);
    run_all(
        &mut c,
        1,
        &[
            "CREATE TABLE t.kept (x INT)",
            "CREATE DATABASE gone",
            "USE gone",
        ],
    );
    // The connection the first session left in `gone` is parked there for a while, then reset.
    wait_for("no connection is parked", || {
        fx.driver_status("connections_parked") == 0
    });
    assert!(c.query(2, "DROP DATABASE gone").error.is_none());
    // The first session's database is switched to before its statement, in the same query: the
    // switch fails, and the insert behind it never runs.
    let failed = error_code(&c.query(1, "INSERT INTO t.kept VALUES (1)"));
    let rows = first_value(&c.query(2, "SELECT COUNT(*) FROM t.kept"));
    assert_eq!((failed, rows), (1049, Value::Sint(0)));
}

#[test]
fn a_kill_stops_a_statement_sent_behind_its_levelling_statements() {
    let fx = Fixture::new();
    let mut c = fx.node.client();
    c.new_session(1);
    assert!(
        c.query(1, "SET SESSION time_zone = '+02:00'")
            .error
            .is_none()
    );
    let started = Instant::now();
    c.send_sql(1, sql_stmt("SELECT SLEEP(20)"));
    wait_for("the sleep was sent on a connection of its own", || {
        fx.driver_pinned() == 1
    });
    // Give the sleep time to start on the backend, then kill it.
    std::thread::sleep(Duration::from_millis(200));
    kill_query(&mut c, 1);
    let killed = c.read_outcome(1);
    let waited = started.elapsed();
    let zone = text(&first_value(&c.query(1, "SELECT @@time_zone")));
    assert_eq!((error_code(&killed), zone), (1317, "+02:00".to_owned()));
    assert!(
        waited < Duration::from_secs(15),
        "answered after {waited:?}"
    );
}

#[test]
fn schema_changes_run_on_the_driver_not_the_pool() {
    let fx = Fixture::with_backend_connections(4, 4);
    let mut c = fx.node.client();
    c.new_session(1);
    run_all(
        &mut c,
        1,
        &[
            "CREATE TABLE ddl (x INT)",
            "ALTER TABLE ddl ADD COLUMN y INT",
            "CREATE INDEX ddl_y ON ddl (y)",
            "INSERT INTO ddl VALUES (1, 2)",
        ],
    );
    let sum = first_value(&c.query(1, "SELECT x + y FROM ddl"));
    assert_eq!(sum, Value::Sint(3));
}

/// A fixture whose driver has three connections at most, two of them held by sessions 1 and 2
/// in transactions: the third stays in the shared rotation, so a session that needs a
/// connection of its own waits in the driver's pin queue.
fn every_spare_connection_held() -> (Fixture, Client) {
    let fx = Fixture::with_backend_connections(2, 3);
    let mut c = fx.node.client();
    for sid in [1, 2] {
        c.new_session(sid);
        assert!(c.query(sid, "BEGIN").error.is_none());
        assert!(c.query(sid, "SELECT 1").error.is_none());
    }
    wait_for("both transactions hold a connection", || {
        fx.driver_pinned() == 2
    });
    (fx, c)
}

#[test]
fn sessions_waiting_for_a_connection_of_their_own_are_served_in_turn_without_the_pool() {
    let (fx, mut c) = every_spare_connection_held();
    let waiting: Vec<u64> = (10..42).collect();
    for &sid in &waiting {
        c.new_session(sid);
        // Not a statement for the shared rotation: it needs a connection of its own.
        c.send_sql(sid, sql_stmt("SHOW DATABASES LIKE 't'"));
    }
    let driver = fx.engine.driver().unwrap();
    wait_for("all of them wait for a connection", || {
        driver.pin_queued() == waiting.len()
    });
    assert!(c.query(1, "COMMIT").error.is_none());
    let answers: Vec<String> = waiting
        .iter()
        .map(|&sid| text(&first_value(&c.read_outcome(sid))))
        .collect();
    assert_eq!(answers, vec!["t".to_owned(); waiting.len()]);
}

#[test]
fn a_killed_statement_waiting_for_a_connection_of_its_own_gets_1317_at_once() {
    let (fx, mut c) = every_spare_connection_held();
    c.new_session(3);
    let started = Instant::now();
    c.send_sql(3, sql_stmt("SHOW DATABASES LIKE 't'"));
    let driver = fx.engine.driver().unwrap();
    wait_for("it waits for a connection", || driver.pin_queued() == 1);
    kill_query(&mut c, 3);
    let killed = error_code(&c.read_outcome(3));
    let waited = started.elapsed();
    assert_eq!((killed, driver.pin_queued()), (1317, 0));
    assert!(waited < Duration::from_secs(2), "answered after {waited:?}");
}

/// The backend's count of a `Com_…` status variable.
fn backend_count(fx: &Fixture, name: &str) -> u64 {
    let row: Option<(String, u64)> = fx
        ._db
        .admin()
        .query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
        .unwrap();
    row.map_or(0, |(_, count)| count)
}

#[test]
fn a_connection_given_back_at_a_sessions_level_serves_its_next_statements_without_a_set() {
    let fx = Fixture::with_backend_connections(4, 4);
    let mut c = fx.node.client();
    c.new_session(1);
    assert!(
        c.query(1, "SET SESSION time_zone = '+02:00'")
            .error
            .is_none()
    );
    assert!(c.query(1, "USE mysql").error.is_none());
    let (sets, switches) = (
        backend_count(&fx, "Com_set_option"),
        backend_count(&fx, "Com_change_db"),
    );
    let zones: Vec<String> = (0..10)
        .map(|_| {
            text(&first_value(
                &c.query(1, "SELECT CONCAT(@@time_zone, DATABASE())"),
            ))
        })
        .collect();
    // At most the first statement levels a connection; the others find it parked as it was.
    let levelled = backend_count(&fx, "Com_set_option") - sets
        + backend_count(&fx, "Com_change_db")
        - switches;
    assert_eq!(zones, vec!["+02:00mysql".to_owned(); 10]);
    assert!(levelled <= 2, "{levelled} USE or SET for 10 statements");
}

#[test]
fn a_parked_connection_never_serves_a_session_at_another_level() {
    let fx = Fixture::with_backend_connections(4, 4);
    let mut c = fx.node.client();
    for (sid, zone) in [(1, "+02:00"), (2, "+05:00")] {
        c.new_session(sid);
        let set = format!("SET SESSION time_zone = '{zone}'");
        assert!(c.query(sid, &set).error.is_none());
    }
    c.new_session(3);
    let mut seen = Vec::new();
    for _ in 0..5 {
        for sid in [1, 2, 3] {
            seen.push(text(&first_value(&c.query(sid, "SELECT @@time_zone"))));
        }
    }
    let expected: Vec<String> = (0..5)
        .flat_map(|_| ["+02:00", "+05:00", "SYSTEM"].map(str::to_owned))
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn a_named_lock_taken_after_waiting_for_a_connection_stays_with_its_session() {
    let (fx, mut c) = every_spare_connection_held();
    c.new_session(3);
    c.new_session(4);
    c.send_sql(3, sql_stmt("SELECT GET_LOCK('after_wait', 0)"));
    let driver = fx.engine.driver().unwrap();
    wait_for("it waits for a connection", || driver.pin_queued() == 1);
    assert!(c.query(1, "COMMIT").error.is_none());
    let taken = first_value(&c.read_outcome(3));
    // The connection that took the lock is the session's until it releases it.
    let held = first_value(&c.query(4, "SELECT IS_USED_LOCK('after_wait') IS NOT NULL"));
    let released = first_value(&c.query(3, "SELECT RELEASE_LOCK('after_wait')"));
    assert_eq!(
        (taken, held, released),
        (Value::Sint(1), Value::Sint(1), Value::Sint(1))
    );
}

#[test]
fn a_connection_a_failed_request_may_have_left_state_on_is_reset_not_parked() {
    let fx = Fixture::with_backend_connections(4, 4);
    let mut c = fx.node.client();
    for sid in [1, 2] {
        c.new_session(sid);
        assert!(c.query(sid, "USE mysql").error.is_none());
    }
    // The first statement leaves a user variable; the second fails, and its error packet
    // says nothing of what the first left.
    let failed = c.query(1, "SET @leak = 1; SELECT no_such_column FROM no_such_table");
    // The first session moves to the URL's database, so its next statement takes the shared
    // rotation and gives up the connection it ran on.
    let mut moved = sql_stmt("SELECT 1");
    moved.schema_name = Some("t".into());
    c.send_sql(1, moved);
    assert!(c.read_outcome(1).error.is_none());
    let unset = first_value(&c.query(2, "SELECT @leak IS NULL"));
    assert_eq!((error_code(&failed), unset), (1146, Value::Sint(1)));
}

#[test]
fn statements_run_inline_by_more_sessions_than_workers_are_all_answered() {
    // Each worker that runs a statement inline (DDL) waits for its answer; with every worker of
    // the group waiting, the waiting ones read the backend connections themselves.
    const SESSIONS: u64 = 16;
    let db = MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
    db.admin().query_drop("CREATE DATABASE t").unwrap();
    let options = PoolOptions {
        size: 4,
        driver_connections: 2,
        ..PoolOptions::default()
    };
    let engine = Arc::new(MysqlEngine::connect(&db.url_db("t"), options).unwrap());
    let node = TestNode::start_with_engine(engine.clone(), |net, _| {
        net.groups = 1;
        net.threads_per_group = 2;
        net.max_threads_per_group = 3;
    });
    let mut c = node.client();
    for sid in 1..=SESSIONS {
        c.new_session(sid);
    }
    for sid in 1..=SESSIONS {
        c.send_sql(sid, sql_stmt(&format!("CREATE TABLE inline_{sid} (x INT)")));
    }
    let failed: Vec<(u64, Option<u32>)> = (1..=SESSIONS)
        .map(|sid| (sid, c.read_outcome(sid).error.map(|e| e.code)))
        .filter(|(_, code)| code.is_some())
        .collect();
    assert_eq!(failed, vec![]);
    assert!(engine.stats().driver.helps > 0, "{:?}", engine.stats());
}
