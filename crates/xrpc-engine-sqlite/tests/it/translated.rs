//! Statements run by their translation from the parse tree: the catalog kept in the database
//! file, the node's catalog table out of clients' reach, tables without a definition refused,
//! the session state the function library reads, and kept result shapes (of translations, and
//! of the queries that answer catalog statements).

use std::path::Path;

use bytes::Bytes;
use xrpc_engine::result::CollectedResult;
use xrpc_engine::{Engine, EngineConn};
use xrpc_engine_sqlite::{SqliteEngine, SqliteOptions};
use xrpc_proto::value::{ColumnType, Value};

use super::databases::run;

fn engine_at(dir: &Path) -> SqliteEngine {
    SqliteEngine::open(&dir.join("xrpc.db"), SqliteOptions::default()).unwrap()
}

fn engine() -> (tempfile::TempDir, SqliteEngine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine_at(dir.path());
    (dir, engine)
}

fn rows(conn: &mut dyn EngineConn, sql: &str) -> Vec<Vec<Value>> {
    run(conn, sql)
        .unwrap_or_else(|err| panic!("{sql}: {err}"))
        .rows
}

fn text(s: &str) -> Value {
    Value::Bytes(bytes::Bytes::copy_from_slice(s.as_bytes()))
}

#[test]
fn a_decimal_column_keeps_its_scale_through_sum() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE p (price DECIMAL(10,2))").unwrap();
    run(&mut *conn, "INSERT INTO p VALUES (1.10), (2.25)").unwrap();
    let result = run(&mut *conn, "SELECT SUM(price) FROM p").unwrap();
    let Value::Decimal(sum) = &result.rows[0][0] else {
        panic!("{:?}", result.rows)
    };
    assert_eq!(sum.to_string(), "3.35");
}

#[test]
fn the_definitions_survive_a_restart_and_reach_other_connections() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = engine_at(dir.path());
        let mut conn = engine.acquire().unwrap();
        run(&mut *conn, "CREATE TABLE t (name VARCHAR(10))").unwrap();
        run(&mut *conn, "INSERT INTO t VALUES ('Abc')").unwrap();
        // Another connection reads the definition the first one wrote.
        let mut other = engine.open_conn().unwrap();
        assert_eq!(
            rows(&mut other, "SELECT name FROM t WHERE name = 'ABC'"),
            vec![vec![text("Abc")]]
        );
    }
    let engine = engine_at(dir.path());
    let mut conn = engine.acquire().unwrap();
    // utf8mb4_general_ci, from the kept definition: case-insensitive.
    assert_eq!(
        rows(&mut *conn, "SELECT name FROM t WHERE name = 'aBC'"),
        vec![vec![text("Abc")]]
    );
}

#[test]
fn clients_cannot_reach_the_node_catalog_table() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    // As MySQL answers for a table that does not exist.
    for (sql, code) in [
        ("SELECT * FROM xrpc_catalog", 1146),
        ("DELETE FROM xrpc_catalog", 1146),
        ("DROP TABLE xrpc_catalog", 1051),
    ] {
        let err = run(&mut *conn, sql).unwrap_err();
        assert_eq!(err.code, code, "{sql}: {err}");
    }
    let tables = rows(&mut *conn, "SHOW TABLES");
    assert_eq!(tables, vec![vec![text("t")]]);
}

#[test]
fn a_table_without_a_definition_is_described_from_its_declared_types() {
    let dir = tempfile::tempdir().unwrap();
    // As a node that ran statements as their text left it: AUTO_INCREMENT as SQLite's rowid
    // alias, ENUM members in hex words.
    rusqlite::Connection::open(dir.path().join("xrpc.db"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE legacy (id INTEGER PRIMARY KEY AUTOINCREMENT, \
             a INT NOT NULL DEFAULT 7, e ENUM TEXT x61 x62, v VARCHAR(10) DEFAULT 'é', x)",
        )
        .unwrap();
    let engine = engine_at(dir.path());
    let mut conn = engine.acquire().unwrap();
    let described: Vec<Vec<Value>> = rows(&mut *conn, "SHOW COLUMNS FROM legacy")
        .into_iter()
        .map(|row| row[..5].to_vec())
        .collect();
    let row = |field: &str, ty: &str, null: &str, key: &str, default: Option<&str>| {
        vec![
            text(field),
            text(ty),
            text(null),
            text(key),
            default.map_or(Value::Null, text),
        ]
    };
    assert_eq!(
        described,
        vec![
            row("id", "bigint", "NO", "PRI", None),
            row("a", "int", "NO", "", Some("7")),
            row("e", "enum('a','b')", "YES", "", None),
            row("v", "varchar(10)", "YES", "", Some("é")),
            row("x", "blob", "YES", "", None),
        ]
    );
}

#[test]
fn sql_an_older_node_stored_with_its_functions_is_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = rusqlite::Connection::open(dir.path().join("xrpc.db")).unwrap();
    // The function the older node's division was, which this node does not have.
    file.create_scalar_function("xrpc_div", 3, Default::default(), |_| Ok(0))
        .unwrap();
    file.execute_batch(
        "CREATE TABLE legacy (a INT); CREATE VIEW halves AS SELECT xrpc_div(a, 2, 0) AS h FROM legacy",
    )
    .unwrap();
    drop(file);
    let engine = engine_at(dir.path());
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, "SHOW TABLES").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    assert!(err.message.contains("xrpc_div"), "{err}");
}

#[test]
fn a_table_without_a_definition_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // As a node that ran statements as their text, or another tool, left it.
    rusqlite::Connection::open(dir.path().join("xrpc.db"))
        .unwrap()
        .execute_batch("CREATE TABLE legacy (a INT)")
        .unwrap();
    let engine = engine_at(dir.path());
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, "SELECT a FROM legacy").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    assert!(err.message.contains("legacy"), "{err}");
}

const ON_UPDATE_TABLE: &str = "CREATE TABLE ou (id INT AUTO_INCREMENT PRIMARY KEY, \
     k VARCHAR(5) UNIQUE, n INT, ts TIMESTAMP NOT NULL DEFAULT '2020-01-01 00:00:00' \
     ON UPDATE CURRENT_TIMESTAMP)";
const SEVERAL_UPSERTED: &str = "INSERT INTO ou (k, n, ts) VALUES ('a', 1, '2021-01-01 00:00:00'), \
     ('c', 2, '2021-01-01 00:00:00') ON DUPLICATE KEY UPDATE n = 7";

#[test]
fn rows_numbered_again_after_an_upsert_keep_their_on_update_column() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, ON_UPDATE_TABLE).unwrap();
    run(&mut *conn, "INSERT INTO ou (k, n) VALUES ('a', 1)").unwrap();
    run(&mut *conn, SEVERAL_UPSERTED).unwrap();
    // 'c' is numbered again from the first value the statement reserved, as InnoDB numbers
    // it, and its ts is the one written, not the time of the renumbering.
    assert_eq!(
        rows(
            &mut *conn,
            "SELECT id, CAST(ts AS CHAR) FROM ou WHERE k = 'c'"
        ),
        vec![vec![Value::Sint(2), text("2021-01-01 00:00:00")]]
    );
}

#[test]
fn a_table_whose_on_update_trigger_predates_renumbering_refuses_several_upserted_rows() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = engine_at(dir.path());
        let mut conn = engine.acquire().unwrap();
        run(&mut *conn, ON_UPDATE_TABLE).unwrap();
        run(&mut *conn, "INSERT INTO ou (k, n) VALUES ('a', 1)").unwrap();
    }
    // The trigger as the translation made it before it read `my_renumbering()`.
    let file = rusqlite::Connection::open(dir.path().join("xrpc.db")).unwrap();
    let (name, sql): (String, String) = file
        .query_row(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ou' \
             AND name GLOB '*.on_update'",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    let older = sql.replace(" AND my_renumbering() = 0", "");
    assert_ne!(older, sql);
    file.execute_batch(&format!("DROP TRIGGER \"{name}\"; {older};"))
        .unwrap();
    drop(file);
    let engine = engine_at(dir.path());
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, SEVERAL_UPSERTED).unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn user_variables_are_set_and_read() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "SET @a = 1 + 2").unwrap();
    assert!(conn.holds_session_state());
    assert_eq!(rows(&mut *conn, "SELECT @a"), vec![vec![Value::Sint(3)]]);
    conn.reset().unwrap();
    assert!(!conn.holds_session_state());
}

#[test]
fn row_count_reports_the_previous_statement() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1), (2), (3)").unwrap();
    assert_eq!(
        rows(&mut *conn, "SELECT ROW_COUNT()"),
        vec![vec![Value::Sint(3)]]
    );
}

#[test]
fn another_session_does_not_see_the_counts() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    conn.set_connection_id(1);
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1)").unwrap();
    conn.set_connection_id(2);
    let err = run(&mut *conn, "SELECT ROW_COUNT()").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn an_insert_reports_its_first_generated_id() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT)",
    )
    .unwrap();
    run(&mut *conn, "INSERT INTO t (a) VALUES (1)").unwrap();
    let mut result = CollectedResult::default();
    let summary = conn
        .execute("INSERT INTO t (a) VALUES (2), (3)", &[], None, &mut result)
        .unwrap();
    assert_eq!(
        (summary.rows_affected, summary.last_insert_id),
        (2, Some(2))
    );
}

#[test]
fn last_insert_id_of_an_expression_is_the_statements_insert_id_and_the_next_last_insert_id() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE c (name VARCHAR(8) PRIMARY KEY, n BIGINT)",
    )
    .unwrap();
    run(&mut *conn, "INSERT INTO c VALUES ('hits', 41)").unwrap();
    let mut result = CollectedResult::default();
    let summary = conn
        .execute(
            "UPDATE c SET n = LAST_INSERT_ID(n + 1) WHERE name = 'hits'",
            &[],
            None,
            &mut result,
        )
        .unwrap();
    assert_eq!(
        (
            summary.rows_affected,
            summary.last_insert_id,
            rows(&mut *conn, "SELECT LAST_INSERT_ID()")
        ),
        (1, Some(42), vec![vec![Value::Sint(42)]])
    );
}

#[test]
fn an_insert_after_last_insert_id_of_an_expression_reports_no_insert_id() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    rows(&mut *conn, "SELECT LAST_INSERT_ID('7abc')");
    let mut result = CollectedResult::default();
    let summary = conn
        .execute("INSERT INTO t VALUES (1)", &[], None, &mut result)
        .unwrap();
    assert_eq!(
        (
            summary.last_insert_id,
            rows(&mut *conn, "SELECT LAST_INSERT_ID()")
        ),
        (None, vec![vec![Value::Sint(7)]])
    );
}

#[test]
fn last_insert_id_of_a_negative_value_is_refused() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, "SELECT LAST_INSERT_ID(-1)").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn in_transaction_is_refused_in_a_transaction_autocommit_0_opened() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "SET autocommit = 0").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1)").unwrap();
    let err = run(&mut *conn, "SELECT @@in_transaction").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn found_rows_after_a_query_sql_select_limit_cut_is_refused() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1), (2), (3)").unwrap();
    run(&mut *conn, "SET sql_select_limit = 2").unwrap();
    assert_eq!(rows(&mut *conn, "SELECT a FROM t ORDER BY a").len(), 2);
    let err = run(&mut *conn, "SELECT FOUND_ROWS()").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn a_failed_create_leaves_no_definition() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    let err = run(&mut *conn, "CREATE TABLE t (b INT)").unwrap_err();
    assert_eq!(err.code, 1050, "{err}");
    assert_eq!(
        rows(&mut *conn, "SELECT COUNT(*) FROM t"),
        vec![vec![Value::Sint(0)]]
    );
    let err = run(&mut *conn, "SELECT b FROM t").unwrap_err();
    assert_eq!(err.code, 1054, "{err}");
}

#[test]
fn another_database_keeps_its_own_tables() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE DATABASE app").unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "CREATE TABLE app.t (b VARCHAR(5))").unwrap();
    run(&mut *conn, "INSERT INTO app.t VALUES ('x')").unwrap();
    let mut result = CollectedResult::default();
    conn.execute("SELECT b FROM t", &[], Some("app"), &mut result)
        .unwrap();
    assert_eq!(result.rows, vec![vec![text("x")]]);
    assert_eq!(
        rows(&mut *conn, "SELECT COUNT(*) FROM main.t"),
        vec![vec![Value::Sint(0)]]
    );
}

#[test]
fn a_table_column_carries_its_origin_declared_type_and_flags() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE t (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, d DATETIME(3))",
    )
    .unwrap();
    run(
        &mut *conn,
        "INSERT INTO t (d) VALUES ('2024-01-02 03:04:05.678')",
    )
    .unwrap();
    let result = run(&mut *conn, "SELECT x.id, d FROM t AS x").unwrap();
    let columns = result.columns.unwrap();
    let id = &columns[0];
    assert_eq!(
        (
            &*id.original_name,
            &*id.table,
            &*id.original_table,
            &*id.schema
        ),
        ("id", "x", "t", "main")
    );
    assert_eq!(
        (id.x_type, id.mysql_type),
        (xrpc_proto::value::ColumnType::Uint, 3)
    );
    let key = xrpc_engine::result::column_flags::PRIMARY_KEY
        | xrpc_engine::result::column_flags::AUTO_INCREMENT;
    assert_eq!(id.flags & key, key);
    assert_eq!(result.rows[0][0], Value::Uint(1));
    assert_eq!(columns[1].fractional_digits, 3);
}

#[test]
fn an_enum_column_is_sent_as_mysqls_enum() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (e ENUM('small', 'large'))").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES ('LARGE')").unwrap();
    let result = run(&mut *conn, "SELECT e FROM t").unwrap();
    let column = &result.columns.unwrap()[0];
    assert_eq!(
        (column.x_type, column.mysql_type, column.length),
        (xrpc_proto::value::ColumnType::Enum, 247, 20)
    );
    assert_eq!(
        result.rows,
        vec![vec![Value::Enum(bytes::Bytes::from_static(b"large"))]]
    );
}

#[test]
fn a_set_column_is_sent_as_mysqls_set() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (s SET('a', 'b', 'c'))").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES ('c,a')").unwrap();
    let result = run(&mut *conn, "SELECT s FROM t").unwrap();
    let column = &result.columns.unwrap()[0];
    assert_eq!(
        (column.x_type, column.mysql_type, column.length),
        (xrpc_proto::value::ColumnType::Set, 248, 20)
    );
    let members = vec![
        bytes::Bytes::from_static(b"a"),
        bytes::Bytes::from_static(b"c"),
    ];
    assert_eq!(result.rows, vec![vec![Value::Set(members)]]);
}

#[test]
fn the_current_database_connection_id_and_version_are_answered() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    conn.set_connection_id(7);
    run(&mut *conn, "CREATE DATABASE app").unwrap();
    let mut result = CollectedResult::default();
    conn.execute(
        "SELECT DATABASE(), SCHEMA(), CONNECTION_ID(), VERSION()",
        &[],
        Some("app"),
        &mut result,
    )
    .unwrap();
    assert_eq!(
        result.rows,
        [[
            text("app"),
            text("app"),
            Value::Sint(7),
            text(&SqliteOptions::default().server_version)
        ]]
    );
}

#[test]
fn a_write_in_a_transaction_waits_for_the_lock_another_transaction_holds() {
    let (_dir, engine) = engine();
    let mut holder = engine.acquire().unwrap();
    let mut waiter = engine.acquire().unwrap();
    run(&mut *holder, "CREATE TABLE t (id INT PRIMARY KEY)").unwrap();
    run(&mut *holder, "BEGIN").unwrap();
    run(&mut *holder, "INSERT INTO t VALUES (1)").unwrap();
    let (waiting, waits) = std::sync::mpsc::channel();
    let waiting = std::sync::Mutex::new(waiting);
    waiter.set_wait_hook(Some(std::sync::Arc::new(move || {
        let _ = waiting.lock().unwrap().send(());
        Box::new(()) as Box<dyn std::any::Any>
    })));
    let writer = std::thread::spawn(move || {
        run(&mut *waiter, "BEGIN").unwrap();
        let inserted = waiter.execute(
            "INSERT INTO t VALUES (2)",
            &[],
            None,
            &mut CollectedResult::default(),
        );
        run(&mut *waiter, "COMMIT").unwrap();
        inserted.map(|summary| summary.rows_affected)
    });
    // The lock is released once the waiter waits for it (or at once if it never does).
    let _ = waits.recv_timeout(std::time::Duration::from_secs(10));
    run(&mut *holder, "COMMIT").unwrap();
    assert_eq!(writer.join().unwrap().map_err(|e| e.code), Ok(1));
}

#[test]
fn a_tables_indexes_are_described_by_their_mysql_names() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(20), age INT, \
         UNIQUE KEY uk_email (email), KEY by_age (age, id))",
    )
    .unwrap();
    let mut indexes = conn.describe_table(None, "users").unwrap().indexes;
    indexes.sort_by(|a, b| a.name.cmp(&b.name));
    let named: Vec<(&str, Vec<&str>)> = indexes
        .iter()
        .map(|i| {
            (
                i.name.as_str(),
                i.columns.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        named,
        [("by_age", vec!["age", "id"]), ("uk_email", vec!["email"])]
    );
}

#[test]
fn a_division_by_zero_in_a_query_is_null_with_a_warning_per_value() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let codes =
        |result: &CollectedResult| -> Vec<u32> { result.warnings.iter().map(|w| w.code).collect() };
    let result = run(&mut *conn, "SELECT 1/0, 5 DIV 0, MOD(5, 0), 1.5/0, 1e0/0").unwrap();
    assert_eq!(
        result.rows,
        [[
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null
        ]]
    );
    assert_eq!(codes(&result), [1365; 5]);
    assert_eq!(result.warnings[0].message, "Division by 0");
    run(&mut *conn, "CREATE TABLE w (a INT)").unwrap();
    run(&mut *conn, "INSERT INTO w VALUES (1), (2), (3)").unwrap();
    assert_eq!(
        codes(&run(&mut *conn, "SELECT a/0 FROM w").unwrap()),
        [1365; 3]
    );
    assert_eq!(rows(&mut *conn, "SHOW WARNINGS").len(), 3);
    // The next statement starts without them.
    assert_eq!(
        codes(&run(&mut *conn, "SELECT a FROM w").unwrap()),
        [0u32; 0]
    );
    // In a write it is MySQL's error (strict mode).
    let err = run(&mut *conn, "INSERT INTO w VALUES (1/0)").unwrap_err();
    assert_eq!(err.code, 1365);
}

#[test]
fn an_argument_or_a_variable_in_a_result_has_its_values_type() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let mut result = CollectedResult::default();
    conn.execute(
        "SELECT ? + 1, ?, ?",
        &[Value::Sint(41), text("hi"), Value::Double(0.5)],
        None,
        &mut result,
    )
    .unwrap();
    assert_eq!(
        result.rows,
        [[Value::Sint(42), text("hi"), Value::Double(0.5)]]
    );
    run(&mut *conn, "SET @a = 5").unwrap();
    assert_eq!(rows(&mut *conn, "SELECT @a"), [[Value::Sint(5)]]);
}

#[test]
fn rows_compare_member_by_member() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    assert_eq!(
        rows(
            &mut *conn,
            "SELECT (1, 2) < (1, 3), (2, 0) < (1, 9), (1, NULL) < (2, 2), (1, NULL) = (1, 2)"
        ),
        [[Value::Sint(1), Value::Sint(0), Value::Sint(1), Value::Null]]
    );
    let err = run(&mut *conn, "SELECT (1, 2) = (1, 2, 3)").unwrap_err();
    assert_eq!(err.code, 1241);
}

#[test]
fn sum_distinct_adds_each_value_once() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE amounts (n INT, f DOUBLE)").unwrap();
    run(
        &mut *conn,
        "INSERT INTO amounts VALUES (5, 0.5), (5, 0.5), (7, 1.25), (NULL, NULL)",
    )
    .unwrap();
    assert_eq!(
        rows(
            &mut *conn,
            "SELECT SUM(DISTINCT n), SUM(DISTINCT f) FROM amounts"
        ),
        [[Value::Sint(12), Value::Double(1.75)]]
    );
}

#[test]
fn a_statement_is_translated_for_the_classes_of_its_arguments() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE t (id INT PRIMARY KEY, code VARCHAR(10) COLLATE utf8mb4_bin)",
    )
    .unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1, 'Abc'), (2, 'abc')").unwrap();
    let mut answers = Vec::new();
    for (sql, arg) in [
        // An integer searches the key; '1abc' compares as MySQL's number 1, NULL as nothing.
        ("SELECT id FROM t WHERE id = ?", Value::Sint(1)),
        ("SELECT id FROM t WHERE id = ?", text("1abc")),
        ("SELECT id FROM t WHERE id = ?", Value::Null),
        ("SELECT id FROM t WHERE id = ?", Value::Sint(2)),
        // Text under the column's utf8mb4_bin; a number as MySQL's number.
        ("SELECT id FROM t WHERE code = ?", text("abc")),
        ("SELECT id FROM t WHERE code = ?", Value::Sint(0)),
    ] {
        let mut result = CollectedResult::default();
        conn.execute(sql, std::slice::from_ref(&arg), None, &mut result)
            .unwrap_or_else(|err| panic!("{sql} {arg:?}: {err}"));
        answers.push(result.rows);
    }
    let one = |i: i64| vec![vec![Value::Sint(i)]];
    assert_eq!(
        answers,
        vec![
            one(1),
            one(1),
            vec![],
            one(2),
            one(2),
            vec![vec![Value::Sint(1)], vec![Value::Sint(2)]],
        ]
    );
}

#[test]
fn an_argument_the_translation_uses_twice_binds_once() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE fruit (name VARCHAR(10) PRIMARY KEY, price DECIMAL(10,2))",
    )
    .unwrap();
    run(
        &mut *conn,
        "INSERT INTO fruit VALUES ('pear', 1.50), ('fig', 2)",
    )
    .unwrap();
    // The changed-rows count compares the new value with the old one: the price's `?` is used
    // twice, and binds the same argument both times.
    let summary = conn
        .execute(
            "UPDATE fruit SET price = ? WHERE fruit.name = ?",
            &[text("3.00"), text("pear")],
            None,
            &mut CollectedResult::default(),
        )
        .unwrap();
    assert_eq!(summary.rows_affected, 1);
    let mut result = CollectedResult::default();
    conn.execute(
        "SELECT name, price FROM fruit WHERE price <=> ? ORDER BY name LIMIT ?",
        &[text("3.00"), Value::Sint(5)],
        None,
        &mut result,
    )
    .unwrap();
    assert_eq!(result.rows.len(), 1);
}

#[test]
fn a_time_column_holds_mysqls_whole_range_with_its_fraction_digits_in_duration_order() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE d (t TIME(6))").unwrap();
    run(
        &mut *conn,
        "INSERT INTO d VALUES ('01:02:03'), ('-05:00:00.25'), ('838:59:59'), ('-00:30:00')",
    )
    .unwrap();
    let shown: Vec<String> = rows(&mut *conn, "SELECT t FROM d ORDER BY t")
        .into_iter()
        .map(|row| match &row[0] {
            Value::Time(t) => t.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shown,
        ["-05:00:00.250000", "-00:30:00", "01:02:03", "838:59:59"]
    );
}

#[test]
fn a_time_past_mysqls_range_is_an_incorrect_value() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE d (t TIME)").unwrap();
    let err = run(&mut *conn, "INSERT INTO d VALUES ('839:00:00')").unwrap_err();
    assert_eq!(err.code, 1292, "{err}");
}

#[test]
fn a_time_column_with_seven_fraction_digits_is_too_big_a_precision() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let err = run(&mut *conn, "CREATE TABLE d (t TIME(7))").unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (1426, "Too big precision specified for 't'. Maximum is 6")
    );
}

#[test]
fn a_temporary_table_hides_the_table_of_its_name_until_it_is_dropped() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (v VARCHAR(10))").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES ('base')").unwrap();
    run(&mut *conn, "SELECT v FROM t").unwrap();
    run(&mut *conn, "CREATE TEMPORARY TABLE t (v VARCHAR(10))").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES ('temporary')").unwrap();
    assert_eq!(rows(&mut *conn, "SELECT v FROM t"), [[text("temporary")]]);
    run(&mut *conn, "DROP TEMPORARY TABLE t").unwrap();
    assert_eq!(rows(&mut *conn, "SELECT v FROM t"), [[text("base")]]);
}

#[test]
fn drop_temporary_table_leaves_a_table_that_is_not_temporary() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (v INT)").unwrap();
    let err = run(&mut *conn, "DROP TEMPORARY TABLE t").unwrap_err();
    assert_eq!(err.code, 1051, "{err}");
}

#[test]
fn a_temporary_table_is_session_state_that_a_reset_drops() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TEMPORARY TABLE scratch (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    )
    .unwrap();
    run(&mut *conn, "INSERT INTO scratch (v) VALUES (1), (2)").unwrap();
    assert!(conn.holds_session_state());
    conn.reset().unwrap();
    let err = run(&mut *conn, "SELECT * FROM scratch").unwrap_err();
    assert_eq!(err.code, 1146, "{err}");
}

#[test]
fn a_temporary_table_is_not_seen_by_another_connection() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TEMPORARY TABLE mine (v INT)").unwrap();
    let mut other = engine.open_conn().unwrap();
    let err = run(&mut other, "SELECT * FROM mine").unwrap_err();
    assert_eq!(err.code, 1146, "{err}");
}

#[test]
fn describing_a_temporary_table_describes_it_not_the_table_it_hides() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "CREATE TEMPORARY TABLE t (b TEXT)").unwrap();
    let fields: Vec<Value> = rows(&mut *conn, "DESCRIBE t")
        .into_iter()
        .map(|row| row[0].clone())
        .collect();
    assert_eq!(fields, [text("b")]);
    let err = run(&mut *conn, "SHOW CREATE TABLE t").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    run(&mut *conn, "DROP TEMPORARY TABLE t").unwrap();
    let fields: Vec<Value> = rows(&mut *conn, "DESCRIBE t")
        .into_iter()
        .map(|row| row[0].clone())
        .collect();
    assert_eq!(fields, [text("a")]);
}

fn names_equal_to_abc(conn: &mut dyn EngineConn) -> usize {
    rows(conn, "SELECT name FROM t WHERE name = 'abc'").len()
}

#[test]
fn a_translation_kept_by_one_connection_follows_another_connections_ddl() {
    let (_dir, engine) = engine();
    let mut reader = engine.open_conn().unwrap();
    let mut writer = engine.open_conn().unwrap();
    run(&mut writer, "CREATE TABLE t (name VARCHAR(10))").unwrap();
    run(&mut writer, "INSERT INTO t VALUES ('ABC')").unwrap();
    assert_eq!(names_equal_to_abc(&mut reader), 1);
    run(
        &mut writer,
        "ALTER TABLE t MODIFY name VARCHAR(10) COLLATE utf8mb4_bin",
    )
    .unwrap();
    assert_eq!(names_equal_to_abc(&mut reader), 0);
}

#[test]
fn ddl_inside_a_transaction_commits_it_and_other_connections_follow_at_once() {
    let (_dir, engine) = engine();
    let mut reader = engine.open_conn().unwrap();
    let mut writer = engine.open_conn().unwrap();
    run(&mut writer, "CREATE TABLE t (name VARCHAR(10))").unwrap();
    run(&mut writer, "INSERT INTO t VALUES ('ABC')").unwrap();
    assert_eq!(names_equal_to_abc(&mut reader), 1);
    run(&mut writer, "BEGIN").unwrap();
    run(&mut writer, "INSERT INTO t VALUES ('XYZ')").unwrap();
    run(
        &mut writer,
        "ALTER TABLE t MODIFY name VARCHAR(10) COLLATE utf8mb4_bin",
    )
    .unwrap();
    run(&mut writer, "ROLLBACK").unwrap();
    assert_eq!(
        rows(&mut reader, "SELECT COUNT(*) FROM t"),
        vec![vec![Value::Sint(2)]],
        "the ALTER committed the INSERT before it, as MySQL's implicit commit does"
    );
    assert_eq!(names_equal_to_abc(&mut reader), 0);
}

#[test]
fn a_system_variable_in_an_expression_is_the_translations() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    assert_eq!(
        rows(&mut *conn, "SELECT @@foreign_key_checks > 0"),
        [[Value::Sint(1)]]
    );
}

#[test]
fn foreign_key_checks_off_is_session_state_that_a_reset_turns_on() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE parent (id INT PRIMARY KEY)").unwrap();
    run(
        &mut *conn,
        "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, FOREIGN KEY (parent_id) REFERENCES parent (id))",
    )
    .unwrap();
    run(&mut *conn, "SET FOREIGN_KEY_CHECKS = 0").unwrap();
    run(&mut *conn, "INSERT INTO child VALUES (1, 99)").unwrap();
    assert!(conn.holds_session_state());
    conn.reset().unwrap();
    let err = run(&mut *conn, "INSERT INTO child VALUES (2, 99)").unwrap_err();
    assert_eq!(err.code, 1452, "{err}");
}

#[test]
fn foreign_key_checks_cannot_change_inside_a_transaction() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "BEGIN").unwrap();
    let err = run(&mut *conn, "SET FOREIGN_KEY_CHECKS = 0").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

/// A parent with two children, one row each, whose keys cascade on delete: a rebuild that let
/// SQLite's DROP TABLE act on them would delete the children's rows.
fn referenced_parent(conn: &mut dyn EngineConn) {
    run(
        conn,
        "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL)",
    )
    .unwrap();
    for child in ["child_a", "child_b"] {
        run(
            conn,
            &format!(
                "CREATE TABLE {child} (id INT PRIMARY KEY, parent_id INT, \
                 FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE)"
            ),
        )
        .unwrap();
    }
    run(conn, "INSERT INTO parent VALUES (1, 'one')").unwrap();
    run(conn, "INSERT INTO child_a VALUES (1, 1)").unwrap();
    run(conn, "INSERT INTO child_b VALUES (1, 1)").unwrap();
}

#[test]
fn modify_column_of_a_referenced_table_keeps_the_referencing_rows() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    referenced_parent(&mut *conn);
    run(
        &mut *conn,
        "ALTER TABLE parent MODIFY name VARCHAR(20) NULL",
    )
    .unwrap();
    assert_eq!(
        rows(
            &mut *conn,
            "SELECT (SELECT COUNT(*) FROM child_a) + (SELECT COUNT(*) FROM child_b)"
        ),
        [[Value::Sint(2)]]
    );
}

#[test]
fn foreign_keys_are_enforced_again_after_a_referenced_table_is_rebuilt() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    referenced_parent(&mut *conn);
    run(
        &mut *conn,
        "ALTER TABLE parent ALTER COLUMN name SET DEFAULT 'x'",
    )
    .unwrap();
    let err = run(&mut *conn, "INSERT INTO child_a VALUES (2, 99)").unwrap_err();
    assert_eq!(err.code, 1452, "{err}");
}

#[test]
fn a_rebuilt_referenced_table_still_cascades_to_its_children() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    referenced_parent(&mut *conn);
    run(&mut *conn, "INSERT INTO parent VALUES (2, 'two')").unwrap();
    run(&mut *conn, "INSERT INTO child_b VALUES (2, 2)").unwrap();
    run(&mut *conn, "ALTER TABLE parent ADD COLUMN code INT FIRST").unwrap();
    run(&mut *conn, "DELETE FROM parent WHERE id = 1").unwrap();
    assert_eq!(
        rows(&mut *conn, "SELECT id FROM child_b"),
        [[Value::Sint(2)]]
    );
}

#[test]
fn modify_of_a_column_other_tables_reference_is_refused() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    referenced_parent(&mut *conn);
    let err = run(&mut *conn, "ALTER TABLE parent MODIFY id BIGINT NOT NULL").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn an_insert_refused_for_a_missing_parent_uses_up_its_auto_increment_value() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE parent (id INT PRIMARY KEY)").unwrap();
    run(
        &mut *conn,
        "CREATE TABLE child (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT, \
         FOREIGN KEY (parent_id) REFERENCES parent (id))",
    )
    .unwrap();
    let err = run(&mut *conn, "INSERT INTO child (parent_id) VALUES (9)").unwrap_err();
    assert_eq!(err.code, 1452, "{err}");
    run(&mut *conn, "INSERT INTO child (parent_id) VALUES (NULL)").unwrap();
    assert_eq!(rows(&mut *conn, "SELECT id FROM child"), [[Value::Sint(2)]]);
}

#[test]
fn an_alter_table_change_that_fails_after_another_undoes_both() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (id INT PRIMARY KEY, a INT)").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1, 1), (2, 1)").unwrap();
    let err = run(
        &mut *conn,
        "ALTER TABLE t ADD COLUMN b INT, ADD UNIQUE KEY ua (a)",
    )
    .unwrap_err();
    assert_eq!(err.code, 1062, "{err}");
    let err = run(&mut *conn, "SELECT b FROM t").unwrap_err();
    assert_eq!(err.code, 1054, "{err}");
}

#[test]
fn create_table_if_not_exists_of_a_table_that_exists_notes_1050() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (id INT)").unwrap();
    let result = run(&mut *conn, "CREATE TABLE IF NOT EXISTS t (id INT)").unwrap();
    let notes: Vec<(u32, &str)> = result
        .warnings
        .iter()
        .map(|w| (w.code, w.message.as_str()))
        .collect();
    assert_eq!(notes, [(1050, "Table 't' already exists")]);
}

#[test]
fn drop_table_if_exists_of_missing_tables_notes_1051_naming_them() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let result = run(&mut *conn, "DROP TABLE IF EXISTS a, b").unwrap();
    let notes: Vec<(u32, &str)> = result
        .warnings
        .iter()
        .map(|w| (w.code, w.message.as_str()))
        .collect();
    assert_eq!(notes, [(1051, "Unknown table 'main.a,main.b'")]);
}

#[test]
fn check_constraints_are_refused_while_a_check_has_no_printed_form() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT CHECK (NOT (a <=> 0)))").unwrap();
    let err = run(
        &mut *conn,
        "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS",
    )
    .unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

#[test]
fn check_constraints_list_a_check_as_mariadb_prints_it() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(
        &mut *conn,
        "CREATE TABLE t (a INT CHECK (a > 0 AND a < 10))",
    )
    .unwrap();
    assert_eq!(
        rows(
            &mut *conn,
            "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS"
        ),
        [[text("`a` > 0 and `a` < 10")]]
    );
}

fn sessions(engine: &SqliteEngine) -> (Box<dyn EngineConn>, Box<dyn EngineConn>) {
    let mut a = engine.acquire().unwrap();
    a.set_connection_id(11);
    let mut b = engine.acquire().unwrap();
    b.set_connection_id(12);
    (a, b)
}

#[test]
fn a_named_lock_another_session_holds_is_not_granted_before_the_timeout() {
    let (_dir, engine) = engine();
    let (mut a, mut b) = sessions(&engine);
    rows(&mut *a, "SELECT GET_LOCK('migrations', 0)");
    assert_eq!(
        rows(
            &mut *b,
            "SELECT GET_LOCK('migrations', 0.05), IS_USED_LOCK('migrations'), RELEASE_LOCK('migrations')"
        ),
        [[Value::Sint(0), Value::Sint(11), Value::Sint(0)]]
    );
}

#[test]
fn a_session_holding_a_named_lock_holds_session_state() {
    let (_dir, engine) = engine();
    let (mut a, _b) = sessions(&engine);
    rows(&mut *a, "SELECT GET_LOCK('migrations', 0)");
    assert!(a.holds_session_state());
    rows(&mut *a, "SELECT RELEASE_LOCK('migrations')");
    assert!(!a.holds_session_state());
}

#[test]
fn the_reset_of_a_session_releases_its_named_locks() {
    let (_dir, engine) = engine();
    let (mut a, mut b) = sessions(&engine);
    rows(
        &mut *a,
        "SELECT GET_LOCK('migrations', 0), GET_LOCK('migrations', 0)",
    );
    a.reset().unwrap();
    assert_eq!(
        rows(&mut *b, "SELECT GET_LOCK('migrations', 0)"),
        [[Value::Sint(1)]]
    );
}

#[test]
fn a_waiting_get_lock_is_granted_when_the_holder_releases() {
    let (_dir, engine) = engine();
    let (mut a, mut b) = sessions(&engine);
    rows(&mut *a, "SELECT GET_LOCK('migrations', 0)");
    let waiter = std::thread::spawn(move || rows(&mut *b, "SELECT GET_LOCK('migrations', 30)"));
    rows(&mut *a, "SELECT RELEASE_LOCK('migrations')");
    assert_eq!(waiter.join().unwrap(), [[Value::Sint(1)]]);
}

#[test]
fn a_kill_ends_a_waiting_get_lock_with_1317() {
    let (_dir, engine) = engine();
    let (mut a, mut b) = sessions(&engine);
    rows(&mut *a, "SELECT GET_LOCK('migrations', 0)");
    let interrupter = b.interrupter();
    let waiter = std::thread::spawn(move || run(&mut *b, "SELECT GET_LOCK('migrations', 60)"));
    // A kill that lands before the statement starts is forgotten by it: kill until it ends.
    let started = std::time::Instant::now();
    while !waiter.is_finished() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the kill never landed"
        );
        interrupter.interrupt();
        std::thread::yield_now();
    }
    let err = waiter.join().unwrap().unwrap_err();
    assert_eq!(err.code, 1317, "{err}");
}

#[test]
fn a_query_that_may_examine_more_rows_than_max_join_size_is_refused() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    run(&mut *conn, "CREATE TABLE t (a INT)").unwrap();
    run(&mut *conn, "INSERT INTO t VALUES (1), (2), (3)").unwrap();
    run(&mut *conn, "SET max_join_size = 1010").unwrap();
    assert_eq!(
        rows(&mut *conn, "SELECT COUNT(*) FROM t"),
        [[Value::Sint(3)]]
    );
    let err = run(&mut *conn, "SELECT x.a FROM t x, t y, t z").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

/// `sql` with `args` on `conn`, which must answer.
fn run_with(conn: &mut dyn EngineConn, sql: &str, args: &[Value]) -> CollectedResult {
    let mut out = CollectedResult::default();
    conn.execute(sql, args, None, &mut out)
        .unwrap_or_else(|err| panic!("{sql}: {err}"));
    out
}

/// Runs `sql` twice on `warm` (the second run finds the translation and result shape the first
/// one kept) and once on a connection of a newly opened engine, which has kept nothing: all
/// three answer alike.
fn same_as_fresh(
    path: &Path,
    warm: &mut dyn EngineConn,
    sql: &str,
    args: &[Value],
) -> CollectedResult {
    let first = run_with(warm, sql, args);
    let again = run_with(warm, sql, args);
    let engine = engine_at(path);
    let mut fresh_conn = engine.acquire().unwrap();
    let fresh = run_with(&mut *fresh_conn, sql, args);
    assert_eq!(
        first, fresh,
        "{sql} {args:?}: first run against a fresh connection"
    );
    assert_eq!(
        again, fresh,
        "{sql} {args:?}: kept shape against a fresh connection"
    );
    fresh
}

fn column_types(result: &CollectedResult) -> Vec<ColumnType> {
    let columns = result.columns.as_ref().expect("a result set");
    columns.iter().map(|c| c.x_type).collect()
}

#[test]
fn a_kept_shape_answers_as_a_fresh_one_would() {
    let (dir, engine) = engine();
    let path = dir.path();
    let mut warm = engine.acquire().unwrap();
    let warm = &mut *warm;
    same_as_fresh(path, warm, "select 1", &[]);
    same_as_fresh(path, warm, "select 1 as one, 'x', null, 2.5", &[]);

    // The same text with values of other types: the expression column's type follows them.
    let mut typed = |value: Value| column_types(&same_as_fresh(path, warm, "select ?", &[value]));
    assert_eq!(typed(Value::Sint(7)), [ColumnType::Sint]);
    assert_eq!(
        typed(Value::Bytes(Bytes::from_static(b"seven"))),
        [ColumnType::Bytes]
    );
    assert_eq!(typed(Value::Double(7.5)), [ColumnType::Double]);
    let null = typed(Value::Null);
    assert_eq!(typed(Value::Sint(7)), [ColumnType::Sint], "and back again");
    assert_ne!(null, [ColumnType::Sint]);

    // A table column: its declaration, origin and flags; then the table is declared anew under
    // the same name and the same text reads the new declaration.
    run_with(
        warm,
        "create table t (id INT PRIMARY KEY, a INT NOT NULL)",
        &[],
    );
    run_with(warm, "insert into t values (1, 10)", &[]);
    let before = same_as_fresh(path, warm, "select id, a from t", &[]);
    run_with(warm, "drop table t", &[]);
    run_with(
        warm,
        "create table t (id INT PRIMARY KEY, a VARCHAR(10))",
        &[],
    );
    run_with(warm, "insert into t values (1, 'ten')", &[]);
    let after = same_as_fresh(path, warm, "select id, a from t", &[]);
    assert_ne!(before.columns, after.columns);
    assert_eq!(column_types(&after), [ColumnType::Sint, ColumnType::Bytes]);

    // The current database is part of a declared column's metadata.
    run_with(warm, "create database other", &[]);
    run_with(
        warm,
        "create table other.t (id INT PRIMARY KEY, a INT NOT NULL)",
        &[],
    );
    let mut in_main = CollectedResult::default();
    warm.execute("select id from t", &[], None, &mut in_main)
        .unwrap();
    let mut in_other = CollectedResult::default();
    warm.execute("select id from t", &[], Some("other"), &mut in_other)
        .unwrap();
    let schema = |r: &CollectedResult| r.columns.as_ref().unwrap()[0].schema.clone();
    assert_ne!(schema(&in_main), schema(&in_other));
    assert_eq!(schema(&in_other), "other");
}

#[test]
fn a_kept_catalog_shape_answers_as_a_fresh_one_would() {
    let (dir, engine) = engine();
    let path = dir.path();
    let mut warm = engine.acquire().unwrap();
    let warm = &mut *warm;
    run_with(
        warm,
        "create table t (id INT PRIMARY KEY, a INT NOT NULL)",
        &[],
    );
    let before = same_as_fresh(path, warm, "show columns from t", &[]);
    same_as_fresh(path, warm, "show tables", &[]);

    // The table declared anew under the same name: the same text reads the new columns.
    run_with(warm, "drop table t", &[]);
    run_with(
        warm,
        "create table t (id INT PRIMARY KEY, b VARCHAR(10))",
        &[],
    );
    let after = same_as_fresh(path, warm, "show columns from t", &[]);
    assert_ne!(before.rows, after.rows);

    // A column the query's hint types: SHOW WARNINGS' `Code` is MySQL's INT UNSIGNED.
    run_with(warm, "select 1 / 0", &[]);
    let shown = run_with(warm, "show warnings", &[]);
    assert_eq!(
        column_types(&shown),
        [ColumnType::Bytes, ColumnType::Uint, ColumnType::Bytes]
    );
    assert_eq!(shown.rows[0][1], Value::Uint(1365));
}
