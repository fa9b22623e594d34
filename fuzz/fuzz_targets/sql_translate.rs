//! Any text through the MySQL front end and the SQLite translation, run on SQLite: the front end
//! and the translation never panic, and SQL the translation produced always prepares on SQLite
//! (a statement it cannot translate must be refused, never passed on as SQL SQLite rejects).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rusqlite::Connection;
use xrpc_sql::{Options, Session};
use xrpc_sql_sqlite::{MemoryCatalog, SessionState, register, translate};

/// The schema every input starts with, so that statements have tables to name.
const SCHEMA: &[&str] = &[
    "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL DEFAULT '', \
     price DECIMAL(8,2), born DATE, seen DATETIME, n BIGINT, f DOUBLE, b VARBINARY(8), KEY k (name))",
    "CREATE TABLE u (id INT PRIMARY KEY, t_id INT, note TEXT COLLATE utf8mb4_bin, \
     FOREIGN KEY (t_id) REFERENCES t (id) ON DELETE CASCADE)",
    "INSERT INTO t (name, price, born, seen, n, f) VALUES ('a', 1.50, '2024-01-02', '2024-01-02 03:04:05', 7, 0.5), ('B', NULL, NULL, NULL, -1, 1e3)",
    "INSERT INTO u VALUES (1, 1, 'x'), (2, 2, 'Y')",
];

fn setup() -> (Connection, MemoryCatalog) {
    let conn = Connection::open_in_memory().expect("in-memory SQLite");
    register(&conn, &SessionState::default()).expect("function library");
    let mut catalog = MemoryCatalog::new(Some("fuzz"));
    for text in SCHEMA {
        let parsed =
            xrpc_sql::parse_one_statement(text, &Options::default()).expect("schema parses");
        let t =
            translate(parsed.statement().expect("not XA"), &catalog).expect("schema translates");
        for sql in &t.sql {
            conn.execute_batch(sql).expect("schema runs");
        }
        if let Some(change) = &t.change {
            catalog.apply(change);
        }
    }
    // Bound the work of one input: deep joins and long strings end early.
    conn.progress_handler(10_000, Some(|| true));
    (conn, catalog)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (conn, mut catalog) = setup();
    for parsed in xrpc_sql::parse(&text, &Options::default()) {
        let Ok(parsed) = parsed else { break };
        let Some(statement) = parsed.statement() else {
            continue;
        };
        if Session::of(statement).is_some() {
            continue;
        }
        let Ok(translation) = translate(statement, &catalog) else {
            continue;
        };
        for sql in &translation.sql {
            if let Err(err) = conn.prepare(sql) {
                let interrupted = matches!(&err, rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::OperationInterrupted);
                assert!(
                    interrupted,
                    "SQLite rejects the translation of {:?}:\n{sql}\n{err}",
                    parsed.text
                );
            }
            // Running it may fail as MySQL would (strict writes, constraints); it must not panic.
            let _ = conn.execute_batch(sql);
        }
        // SQL_CALC_FOUND_ROWS's count runs after the statement.
        if let Some(count) = &translation.found_rows {
            if let Err(err) = conn.prepare(count) {
                let interrupted = matches!(&err, rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::OperationInterrupted);
                assert!(
                    interrupted,
                    "SQLite rejects the row count of {:?}:\n{count}\n{err}",
                    parsed.text
                );
            }
        }
        if let Some(change) = &translation.change {
            catalog.apply(change);
        }
    }
});
