//! The state machine against a real MariaDB (started by `xrpc-testkit`), through the blocking
//! driver in `driver/`.

mod driver;

use std::time::{Duration, Instant};

use driver::{Driver, config_from_url};
use xrpc_mysql_proto::{
    Cancelled, CloseReason, ConnectError, Event, SessionChange, Tag, kill_query_id_sql,
};

fn database() -> String {
    xrpc_testkit::shared_database().expect("MariaDB starts")
}

#[test]
fn sixty_four_pipelined_statements_are_answered_in_order() {
    let mut db = Driver::connect_url(&database());
    for tag in 0..64u64 {
        let sql = format!("SELECT {tag}, REPEAT('x', {tag}), CONCAT('statement ', {tag})");
        db.conn
            .submit_query(Tag(tag), sql.as_bytes(), None)
            .unwrap();
    }
    assert_eq!(db.conn.in_flight(), 64);
    // One write carries them all; only then is anything read.
    db.flush();
    for tag in 0..64u64 {
        let answer = db.answer(Tag(tag));
        assert_eq!(
            answer.results,
            [[[
                Some(tag.to_string()),
                Some("x".repeat(tag as usize)),
                Some(format!("statement {tag}"))
            ]]],
            "statement {tag}"
        );
    }
    assert_eq!(db.conn.in_flight(), 0);
}

#[test]
fn an_error_in_the_middle_of_a_pipeline_leaves_its_neighbours_intact() {
    let mut db = Driver::connect_url(&database());
    db.query(0, "CREATE TABLE t (id INT PRIMARY KEY)")
        .expect_ok();
    let statements = [
        "INSERT INTO t VALUES (1)",
        "SELECT COUNT(*) FROM t",
        "INSERT INTO t VALUES (1)",
        "SELECT * FROM no_such_table",
        "INSERT INTO t VALUES (2)",
        "SELECT GROUP_CONCAT(id ORDER BY id) FROM t",
    ];
    for (tag, sql) in (1..).zip(statements) {
        db.conn
            .submit_query(Tag(tag), sql.as_bytes(), None)
            .unwrap();
    }
    let answers: Vec<_> = (1..=6).map(|tag| db.answer(Tag(tag))).collect();
    assert_eq!(answers[0].expect_ok().affected_rows, 1);
    assert_eq!(answers[1].scalar(), Some("1"));
    assert_eq!(
        (
            answers[2].expect_error().code,
            answers[2].expect_error().sql_state.as_str()
        ),
        (1062, "23000")
    );
    assert_eq!(
        (
            answers[3].expect_error().code,
            answers[3].expect_error().sql_state.as_str()
        ),
        (1146, "42S02")
    );
    assert_eq!(answers[4].expect_ok().affected_rows, 1);
    assert_eq!(answers[5].scalar(), Some("1,2"));
}

#[test]
fn session_state_tracking_reports_use_and_set() {
    let url = database();
    let mut db = Driver::connect_url(&url);
    db.query(
        1,
        "SET session_track_schema = ON, session_track_state_change = ON, \
         session_track_system_variables = '*'",
    )
    .expect_ok();
    let used = db.query(2, "USE mysql");
    assert!(
        used.expect_ok()
            .session_changes
            .contains(&SessionChange::Schema("mysql".to_owned())),
        "{:?}",
        used.expect_ok().session_changes
    );
    let set = db.query(3, "SET SESSION sql_mode = 'ANSI_QUOTES'");
    assert!(
        set.expect_ok()
            .session_changes
            .contains(&SessionChange::SystemVariable {
                name: "sql_mode".to_owned(),
                value: "ANSI_QUOTES".to_owned()
            }),
        "{:?}",
        set.expect_ok().session_changes
    );
    // COM_INIT_DB reports the schema the same way.
    let home = config_from_url(&url).1.database.unwrap();
    db.conn.submit_init_db(Tag(4), &home).unwrap();
    let init = db.answer(Tag(4));
    assert!(
        init.expect_ok()
            .session_changes
            .contains(&SessionChange::Schema(home))
    );
    // A transaction shows in the status flags; COM_RESET_CONNECTION ends it.
    assert!(db.query(5, "BEGIN").expect_ok().in_transaction());
    db.conn.submit_reset(Tag(6)).unwrap();
    assert!(!db.answer(Tag(6)).expect_ok().in_transaction());
    assert_eq!(
        db.query(7, "SELECT @@sql_mode = 'ANSI_QUOTES'").scalar(),
        Some("0")
    );
}

#[test]
fn a_multi_statement_query_yields_each_result_then_one_terminal_event() {
    let mut db = Driver::connect_url(&database());
    db.conn
        .submit_query(Tag(1), b"SELECT 1; DO 0; SELECT 'a' UNION SELECT 'b'", None)
        .unwrap();
    db.conn.submit_ping(Tag(2)).unwrap();
    let answer = db.answer(Tag(1));
    assert_eq!(
        answer.results,
        [
            vec![vec![Some("1".to_owned())]],
            vec![vec![Some("a".to_owned())], vec![Some("b".to_owned())]]
        ]
    );
    assert!(!answer.expect_ok().more_results());
    assert!(db.answer(Tag(2)).outcome.unwrap().is_ok());
}

#[test]
fn kill_query_id_stops_the_marked_statement_and_not_the_one_behind_it() {
    let url = database();
    let (address, mut config) = config_from_url(&url);
    config.mark_statements = true;
    let mut db = Driver::connect(&address, config);
    db.conn
        .submit_query(Tag(1), b"SELECT SLEEP(30) FROM DUAL WHERE 1 = 1", None)
        .unwrap();
    db.conn
        .submit_query(Tag(2), b"SELECT 'behind'", None)
        .unwrap();
    db.flush();
    let Ok(Cancelled::KillRequired(target)) = db.conn.cancel(Tag(1)) else {
        panic!("a sent statement needs a kill")
    };
    let lookup = target.query_id_lookup_sql().expect("marked");
    let mut side = Driver::connect_url(&url);
    let started = Instant::now();
    let query_id = loop {
        // The statement shows in the process list once the server runs it.
        if let Some(id) = side.query(100, &lookup).scalar() {
            break id.parse::<u64>().unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never saw it run"
        );
    };
    side.query(101, &kill_query_id_sql(query_id)).expect_ok();
    let killed = db.answer(Tag(1));
    assert!(started.elapsed() < Duration::from_secs(20));
    // MariaDB sends the result's columns, then ERR 1317 in place of the row.
    assert_eq!(
        (
            killed.expect_error().code,
            killed.expect_error().sql_state.as_str()
        ),
        (1317, "70100")
    );
    assert_eq!(db.answer(Tag(2)).scalar(), Some("behind"));
}

#[test]
fn a_killed_backend_connection_gives_every_statement_in_flight_one_terminal_event() {
    let url = database();
    let mut db = Driver::connect_url(&url);
    let thread_id = db.conn.thread_id().unwrap();
    db.conn
        .submit_query(Tag(0), b"SELECT SLEEP(30)", None)
        .unwrap();
    for tag in 1..30 {
        db.conn.submit_query(Tag(tag), b"SELECT 1", None).unwrap();
    }
    db.flush();
    let mut side = Driver::connect_url(&url);
    side.query(100, &format!("KILL CONNECTION {thread_id}"))
        .expect_ok();
    let mut terminal = Vec::new();
    let closed = loop {
        match db.next_event() {
            Event::Closed { reason } => break reason,
            Event::Failed { tag, error } => terminal.push((tag.0, error.code)),
            event => assert!(!event.is_terminal(), "{event:?}"),
        }
    };
    assert_eq!(terminal, (0..30).map(|tag| (tag, 2013)).collect::<Vec<_>>());
    assert_eq!(closed, CloseReason::TransportClosed);
}

#[test]
fn a_wrong_password_closes_with_access_denied() {
    let (address, mut config) = config_from_url(&database());
    config.password = "wrong".to_owned();
    let mut driver = Driver::open(&address, config);
    let Event::Closed {
        reason: CloseReason::Connect(ConnectError::Refused(error)),
    } = driver.next_event()
    else {
        panic!("a wrong password is refused")
    };
    assert_eq!(error.code, 1045);
}
