//! Statement text read as MySQL reads it: comments, versioned comments, one statement per
//! request, and MySQL's errors for what is not a MySQL statement.

use xrpc_engine::Engine;
use xrpc_engine_sqlite::{SqliteEngine, SqliteOptions};
use xrpc_proto::value::Value;

use super::databases::{ok, run};

fn engine() -> (tempfile::TempDir, SqliteEngine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("xrpc.db"), SqliteOptions::default()).unwrap();
    (dir, engine)
}

#[test]
fn a_hash_comment_ends_at_the_line_end() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    assert_eq!(ok(&mut *conn, "SELECT 1 # the first\n"), [[Value::Sint(1)]]);
}

#[test]
fn a_mysqldump_header_runs_as_set_names() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let result = run(&mut *conn, "/*!40101 SET NAMES utf8mb4 */").unwrap();
    assert!(result.rows.is_empty());
}

#[test]
fn a_comment_for_a_later_version_is_an_empty_query() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, "/*!99999 SELECT 1 */").unwrap_err();
    assert_eq!(
        (err.code, &*err.sql_state, &*err.message),
        (1065, "42000", "Query was empty")
    );
}

#[test]
fn a_request_with_two_statements_runs_neither() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    ok(&mut *conn, "CREATE TABLE t (a INT)");
    let err = run(
        &mut *conn,
        "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)",
    )
    .unwrap_err();
    assert_eq!(err.code, 1064, "{err}");
    assert_eq!(ok(&mut *conn, "SELECT count(*) FROM t"), [[Value::Sint(0)]]);
}

/// A trigger body's semicolons are the trigger's: the statement is read whole, as a trigger
/// (which the engine does not run: MySQL's 1235 naming it), not cut at the first `;` into a
/// syntax error.
#[test]
fn a_trigger_body_is_one_statement_with_its_semicolons() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    ok(&mut *conn, "CREATE TABLE t (a INT)");
    ok(&mut *conn, "CREATE TABLE log (a INT)");
    let err = run(
        &mut *conn,
        "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW BEGIN \
         INSERT INTO log VALUES (new.a); INSERT INTO log VALUES (new.a + 1); END",
    )
    .expect_err("a trigger");
    assert_eq!(err.code, 1235, "{err}");
    assert!(err.message.contains("CREATE TRIGGER tr"), "{err}");
}

#[test]
fn start_transaction_with_consistent_snapshot_opens_a_transaction() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    ok(&mut *conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    assert!(conn.holds_session_state());
}

#[test]
fn sqlites_own_transaction_modes_are_mysql_syntax_errors() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, "BEGIN IMMEDIATE").unwrap_err();
    assert_eq!((err.code, &*err.sql_state), (1064, "42000"), "{err}");
}

#[test]
fn the_sessions_sql_mode_and_time_zone_read_back_as_mariadb_shows_them() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let text = |s: &str| Value::Bytes(bytes::Bytes::copy_from_slice(s.as_bytes()));
    let read = "SELECT @@sql_mode, @@SESSION.time_zone";
    assert_eq!(
        ok(&mut *conn, read),
        [[
            text(
                "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
            ),
            text("SYSTEM")
        ]]
    );
    let result = run(&mut *conn, read).unwrap();
    let names: Vec<&str> = result
        .columns
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["@@sql_mode", "@@SESSION.time_zone"]);
    run(
        &mut *conn,
        "SET SESSION sql_mode = 'no_engine_substitution,traditional'",
    )
    .unwrap();
    assert_eq!(
        ok(&mut *conn, "SELECT @@sql_mode"),
        [[text(
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
             ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
        )]]
    );
    assert!(conn.holds_session_state());
    let err = run(&mut *conn, "SET sql_mode = 'ANSI_QUOTES'").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    let err = run(&mut *conn, "SET sql_mode = 'NO_SUCH_MODE'").unwrap_err();
    assert_eq!(err.code, 1231, "{err}");
    let err = run(&mut *conn, "SET time_zone = '+25:00'").unwrap_err();
    assert_eq!(err.code, 1298, "{err}");
    conn.reset().unwrap();
    assert!(!conn.holds_session_state());
}
