//! The SQLite engine's databases and its authorizer through the `Engine`/`EngineConn` traits:
//! client statements cannot reach files (every spelling tried leaves the file system untouched),
//! databases are files under the data directory that survive a restart, the attach limit is a
//! clear error, and the current database never stays behind on a pooled connection.

use xrpc_engine::result::{CollectedResult, SqlError};
use xrpc_engine::{Engine, EngineConn};
use xrpc_engine_sqlite::{SqliteEngine, SqliteOptions};
use xrpc_proto::value::Value;

fn open(dir: &std::path::Path) -> SqliteEngine {
    SqliteEngine::open(&dir.join("xrpc.db"), SqliteOptions::default()).unwrap()
}

pub(crate) fn run(conn: &mut dyn EngineConn, sql: &str) -> Result<CollectedResult, SqlError> {
    let mut result = CollectedResult::default();
    conn.execute(sql, &[], None, &mut result)?;
    Ok(result)
}

pub(crate) fn ok(conn: &mut dyn EngineConn, sql: &str) -> Vec<Vec<Value>> {
    run(conn, sql)
        .unwrap_or_else(|err| panic!("{sql}: {err}"))
        .rows
}

fn text(s: &str) -> Value {
    Value::Bytes(bytes::Bytes::copy_from_slice(s.as_bytes()))
}

/// Every file under `dir`, recursively.
fn files(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.display().to_string());
        }
    }
    out.sort();
    out
}

#[test]
fn client_statements_cannot_reach_files() {
    let data = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let engine = open(data.path());
    let mut conn = engine.acquire().unwrap();
    let p = outside.path().join("x.db");
    let p = p.display();
    ok(&mut *conn, "create table t (a int)");
    ok(&mut *conn, "create table log (f text)");
    let refused = [
        format!("ATTACH DATABASE '{p}' AS x"),
        format!("attach '{p}' as x"),
        format!("/* hint */ Attach Database '{p}' || '' AS x"),
        format!("ATTACH (SELECT '{p}') AS x"),
        format!("ATTACH 'file:{p}?mode=rwc' AS x"),
        "ATTACH ':memory:' AS m".to_owned(),
        "DETACH DATABASE information_schema".to_owned(),
        "detach main".to_owned(),
        "PRAGMA database_list".to_owned(),
        "pragma main.journal_mode = DELETE".to_owned(),
        "PRAGMA writable_schema = ON".to_owned(),
        "PRAGMA foreign_keys = OFF".to_owned(),
        "PRAGMA \"main\".schema_version".to_owned(),
        "select * from pragma_database_list".to_owned(),
        "select count(*) from pragma_database_list".to_owned(),
        "select file from main.pragma_database_list".to_owned(),
        "WITH d AS (SELECT file FROM pragma_database_list) SELECT * FROM d".to_owned(),
        "select (select file from pragma_database_list limit 1)".to_owned(),
        "insert into log select file from pragma_database_list".to_owned(),
        "select load_extension('/nonexistent/x')".to_owned(),
        format!("VACUUM INTO '{p}'"),
        format!("  /* c */ vacuum main into '{p}'"),
        "vacuum".to_owned(),
    ];
    // SQLite's statements are no MySQL (1064), its table-valued pragmas are tables MySQL does
    // not have (1146), its functions functions MySQL does not have (1305).
    for sql in &refused {
        let err = run(&mut *conn, sql).expect_err(sql);
        let expected = if sql.contains("pragma_database_list") {
            (1146, "42S02")
        } else if sql.contains("load_extension") {
            (1305, "42000")
        } else {
            (1064, "42000")
        };
        assert_eq!((err.code, err.sql_state.as_str()), expected, "{sql}: {err}");
    }
    // Nor do the objects a client creates reach them.
    let err = run(
        &mut *conn,
        "create view leak as select file from pragma_database_list",
    )
    .expect_err("the view");
    assert_eq!(err.code, 1146, "{err}");
    let err = run(
        &mut *conn,
        "create trigger tr after insert on t for each row insert into log select file from pragma_database_list",
    )
    .expect_err("the trigger");
    assert_eq!(err.code, 1235, "{err}");
    assert_eq!(
        ok(&mut *conn, "select count(*) from log"),
        [[Value::Sint(0)]]
    );
    assert!(
        files(outside.path()).is_empty(),
        "{:?}",
        files(outside.path())
    );
    // The connection still works, and SQLite's own harmless functions still run.
    assert_eq!(ok(&mut *conn, "select 1 + 1"), [[Value::Sint(2)]]);
}

#[test]
fn databases_are_files_under_the_data_dir_and_survive_a_restart() {
    let data = tempfile::tempdir().unwrap();
    {
        let engine = open(data.path());
        let mut conn = engine.acquire().unwrap();
        ok(&mut *conn, "create database app");
        ok(&mut *conn, "create table app.t (a int)");
        ok(&mut *conn, "insert into app.t values (7)");
        for bad in [
            "create database `../evil`",
            "create database `a/b`",
            "create database `a\\b`",
            "create database `..`",
            "create database `x.db`",
            "use `../app`",
        ] {
            let err = run(&mut *conn, bad).expect_err(bad);
            assert!(matches!(err.code, 1102 | 1049), "{bad}: {err}");
        }
        engine.release(conn);
        // Shutdown's checkpoint empties every database's log, not only main's.
        engine.checkpoint().unwrap();
        let wal = data.path().join("databases/app.db-wal");
        assert_eq!(std::fs::metadata(&wal).map_or(0, |m| m.len()), 0);
    }
    let all = files(data.path());
    assert!(
        all.iter()
            .all(|f| f.starts_with(&data.path().display().to_string())),
        "{all:?}"
    );
    assert!(
        all.iter().any(|f| f.ends_with("databases/app.db")),
        "{all:?}"
    );
    assert!(!all.iter().any(|f| f.contains("evil")), "{all:?}");

    let engine = open(data.path());
    let mut conn = engine.acquire().unwrap();
    assert_eq!(ok(&mut *conn, "select a from app.t"), [[Value::Sint(7)]]);
    assert_eq!(
        ok(&mut *conn, "show databases"),
        [[text("app")], [text("information_schema")], [text("main")]]
    );
}

#[test]
fn past_the_attach_limit_create_database_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let engine = open(data.path());
    let max = engine.max_databases();
    assert!(max >= 1);
    let mut conn = engine.acquire().unwrap();
    for n in 0..max {
        ok(&mut *conn, &format!("create database d{n}"));
    }
    let err = run(&mut *conn, "create database one_too_many").unwrap_err();
    assert_eq!((err.code, err.sql_state.as_str()), (1235, "42000"), "{err}");
    assert!(err.message.contains("SQLITE_MAX_ATTACHED"), "{err}");
    assert!(!data.path().join("databases/one_too_many.db").exists());
    // Every one of them is usable from a new connection.
    let mut other = engine.open_conn().unwrap();
    ok(&mut other, &format!("create table d{}.t (a int)", max - 1));
    ok(&mut other, "drop database d0");
    ok(&mut *conn, "create database again");
}

#[test]
fn the_current_database_is_the_sessions_and_never_stays_on_a_connection() {
    let data = tempfile::tempdir().unwrap();
    let engine = open(data.path());
    let mut conn = engine.acquire().unwrap();
    ok(&mut *conn, "create database app");
    ok(&mut *conn, "use app");
    assert_eq!(
        conn.take_session_schema_change(),
        Some(Some("app".to_owned()))
    );
    // The session layer hands it back before the next statement.
    conn.set_session_schema(Some("app"));
    ok(&mut *conn, "create table t (a int)");
    ok(&mut *conn, "insert into t values (1)");
    assert_eq!(ok(&mut *conn, "select database()"), [[text("app")]]);
    assert_eq!(
        ok(&mut *conn, "select count(*) from app.t"),
        [[Value::Sint(1)]]
    );
    assert!(
        run(&mut *conn, "select * from main.t").is_err(),
        "t is in app"
    );
    assert!(!conn.holds_session_state());
    engine.release(conn);
    // Another session borrows the same pooled connection and names no database.
    let mut conn = engine.acquire().unwrap();
    conn.set_session_schema(None);
    assert_eq!(ok(&mut *conn, "select database()"), [[text("main")]]);
    assert_eq!(ok(&mut *conn, "show tables").len(), 0, "main has no tables");
    // A request's schema_name wins over the session's database, and becomes it, as USE does.
    conn.set_session_schema(Some("app"));
    let mut result = CollectedResult::default();
    conn.execute("select database()", &[], Some("main"), &mut result)
        .unwrap();
    assert_eq!(result.rows, [[text("main")]]);
    assert_eq!(
        conn.take_session_schema_change(),
        Some(Some("main".to_owned()))
    );
    // DROP DATABASE of the current database leaves the session without one.
    conn.set_session_schema(Some("app"));
    ok(&mut *conn, "drop database app");
    assert_eq!(conn.take_session_schema_change(), Some(None));
}
