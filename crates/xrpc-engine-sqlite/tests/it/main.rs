//! The SQLite engine through its contract: MySQL's strict writes and exact reads per type
//! (`strict`), databases, `USE` and the file system a client cannot reach (`databases`), and
//! statement text read as MySQL reads it (`front`), and MySQL's codes for SQLite's errors
//! (`errors`), and statements run by their translation (`translated`).

mod databases;
mod errors;
mod front;
mod strict;
mod translated;

use xrpc_engine_sqlite::SqliteOptions;

/// The SQLite engine running statements as their text (`xrpc_sqlite_translate` OFF): every
/// suite here but `translated` uses SQL and answers of that path (SQLite's functions and
/// recursive queries, its declared types).
pub(crate) fn text_path() -> SqliteOptions {
    SqliteOptions {
        translate: false,
        ..SqliteOptions::default()
    }
}
