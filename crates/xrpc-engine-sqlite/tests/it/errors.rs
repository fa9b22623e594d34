//! MySQL's error codes for what SQLite reports in its own words: foreign-key failures on either
//! side and aggregates where MySQL allows none.

use xrpc_engine::Engine;
use xrpc_engine_sqlite::{SqliteEngine, SqliteOptions};

use super::databases::run;

fn engine() -> (tempfile::TempDir, SqliteEngine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("xrpc.db"), SqliteOptions::default()).unwrap();
    (dir, engine)
}

/// A parent table with row 1 and a child row referencing it.
fn parent_and_child(conn: &mut dyn xrpc_engine::EngineConn) {
    for sql in [
        "CREATE TABLE parent (id INT PRIMARY KEY)",
        "CREATE TABLE child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES parent (id))",
        "INSERT INTO parent VALUES (1)",
        "INSERT INTO child VALUES (1, 1)",
    ] {
        run(conn, sql).unwrap();
    }
}

#[test]
fn a_child_row_without_its_parent_is_1452() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    parent_and_child(&mut *conn);
    let err = run(&mut *conn, "INSERT INTO child VALUES (2, 7)").unwrap_err();
    assert_eq!((err.code, &*err.sql_state), (1452, "23000"), "{err:?}");
}

#[test]
fn deleting_a_referenced_parent_row_is_1451() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    parent_and_child(&mut *conn);
    let err = run(&mut *conn, "DELETE FROM parent WHERE id = 1").unwrap_err();
    assert_eq!((err.code, &*err.sql_state), (1451, "23000"), "{err:?}");
}

#[test]
fn an_aggregate_in_where_is_1111() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    let err = run(&mut *conn, "SELECT a FROM t WHERE COUNT(*) > 1").unwrap_err();
    assert_eq!(
        (err.code, &*err.sql_state, &*err.message),
        (1111, "HY000", "Invalid use of group function")
    );
}
