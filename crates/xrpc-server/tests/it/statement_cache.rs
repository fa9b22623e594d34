//! Large statements do not stay resident in the prepared-statement cache (the SQLite engine's
//! module docs, "Connections and the pool"). One test per file: it reads SQLite's process-wide
//! memory counter, which other tests in the same process would disturb.

use rusqlite::ffi;
use xrpc_proto::value::Value;
use xrpc_server::engine::sqlite::{CACHED_STATEMENT_MAX_LEN, SqliteEngine, SqliteOptions};
use xrpc_server::engine::{Engine, EngineConn};
use xrpc_server::result::CollectedResult;

fn sqlite_memory_used() -> i64 {
    // SAFETY: sqlite3_memory_used only reads SQLite's global allocation counter; it is safe to
    // call from any thread at any time.
    unsafe { ffi::sqlite3_memory_used() }
}

fn select(conn: &mut dyn EngineConn, sql: &str) -> Vec<Vec<Value>> {
    let mut result = CollectedResult::default();
    conn.execute(sql, &[], None, &mut result)
        .unwrap_or_else(|err| panic!("{err}"));
    result.rows
}

#[test]
fn large_statements_are_freed_after_their_run_and_small_ones_still_work_repeatedly() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("test.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    assert_eq!(
        select(conn.as_mut(), "select 1"),
        vec![vec![Value::Sint(1)]]
    );
    let baseline = sqlite_memory_used();
    // Six different 4 MiB statements: each compiled form holds its 4 MiB literal.
    const SIZE: usize = 4 << 20;
    for i in 0..6 {
        let sql = format!("select length('{}{i}')", "x".repeat(SIZE));
        assert_eq!(
            select(conn.as_mut(), &sql),
            vec![vec![Value::Sint(SIZE as i64 + 1)]]
        );
    }
    let held = sqlite_memory_used() - baseline;
    assert!(
        held < (4 << 20),
        "{held} bytes still held by SQLite after six 4 MiB statements"
    );
    // Statements up to the bound are still cached and run again and again.
    let small = format!(
        "select length('{}')",
        "y".repeat(CACHED_STATEMENT_MAX_LEN / 2)
    );
    for _ in 0..3 {
        assert_eq!(
            select(conn.as_mut(), &small),
            vec![vec![Value::Sint(CACHED_STATEMENT_MAX_LEN as i64 / 2)]]
        );
    }
    engine.release(conn);
}
