//! ROW_COUNT(), FOUND_ROWS() and LAST_INSERT_ID() answer what the engine reported after the
//! previous statement, and are refused on a connection whose engine reports nothing (a
//! default answer there would be a value MySQL never gives).

use rusqlite::Connection;
use xrpc_sql::Options;
use xrpc_sql_sqlite::{MemoryCatalog, SessionState, error_of, register, translate};

fn query(conn: &Connection, text: &str) -> Result<i64, u16> {
    let parsed = xrpc_sql::parse_one_statement(text, &Options::default()).unwrap();
    let t = translate(parsed.statement().unwrap(), &MemoryCatalog::new(Some("db"))).unwrap();
    conn.query_row(&t.sql[0], [], |r| r.get(0))
        .map_err(|e| error_of(&e).map_or(0, |e| e.code))
}

fn connection(state: &SessionState) -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    register(&conn, state).unwrap();
    conn
}

#[test]
fn counts_the_engine_never_reported_are_refused() {
    let conn = connection(&SessionState::default());
    for f in ["ROW_COUNT()", "FOUND_ROWS()", "LAST_INSERT_ID()"] {
        assert_eq!(query(&conn, &format!("SELECT {f}")), Err(1235), "{f}");
    }
}

#[test]
fn counts_are_the_ones_the_engine_reported() {
    let state = SessionState::default();
    let conn = connection(&state);
    state.set_row_count(3);
    state.set_found_rows(12);
    state.set_last_insert_id(41);
    assert_eq!(query(&conn, "SELECT ROW_COUNT()"), Ok(3));
    assert_eq!(query(&conn, "SELECT FOUND_ROWS()"), Ok(12));
    assert_eq!(query(&conn, "SELECT LAST_INSERT_ID()"), Ok(41));
}

#[test]
fn last_insert_id_is_zero_before_any_generated_value() {
    let state = SessionState::default();
    let conn = connection(&state);
    state.set_row_count(0);
    assert_eq!(query(&conn, "SELECT LAST_INSERT_ID()"), Ok(0));
}
