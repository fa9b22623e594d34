//! Storage statistics: information_schema.TABLES' TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH and
//! AVG_ROW_LENGTH, STATISTICS' CARDINALITY, and SHOW TABLE STATUS's columns of the same.
//!
//! MySQL's are the storage engine's estimates (InnoDB samples pages; its TABLE_ROWS may be off
//! by half); the node's are exact when read, as MyISAM's are: the table's row count, the bytes of
//! the pages of its b-tree and of its indexes' (SQLite's `dbstat`), and for an index prefix the
//! count of its distinct values (NULLs as one value, InnoDB's `nulls_equal`). They are computed
//! by SQL functions the catalog's views call, so only a statement that reads a statistic pays
//! for it, and only for the rows its WHERE keeps: `SELECT * FROM information_schema.TABLES`
//! counts every table's rows, as MyISAM would read them.
//!
//! # Safety
//!
//! The functions run queries on the connection that calls them: SQLite allows statements on a
//! connection from inside a function it runs (they only read). They cannot do it through
//! rusqlite: the `Connection` its `Context::get_connection` wraps the handle in removes the
//! connection's hooks and authorizer when it is dropped. So they run their one-value queries
//! through SQLite's C API ([`query_i64`]) on the handle of the connection they are registered
//! on ([`Handle`]). Invariants: the handle is that connection's, which owns the functions and
//! outlives every call of them; SQLite calls them on the thread that steps a statement of that
//! connection, so the handle is used by one thread at a time; each statement prepared is
//! finalized before the function returns; texts passed to SQLite are Rust strings with their
//! lengths.

use std::ffi::{CStr, c_int};

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::{Connection, ffi};

use super::quote;

/// The handle of the connection the functions are registered on.
#[derive(Clone, Copy)]
struct Handle(*mut ffi::sqlite3);

// SAFETY: SQLite calls the functions only on the thread stepping a statement of the
// connection the handle is (module docs), one at a time.
unsafe impl Send for Handle {}

/// Registers `xrpc_table_statistic(database, table, what)` (`what`: `rows`, `data`, `index`,
/// `avg_row`) and `xrpc_index_cardinality(database, table, columns)` (`columns`: the index
/// prefix's column names, separated by the character 1, as the catalog's rows list them).
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8;
    // SAFETY: the handle of `conn`, which owns the functions (module docs).
    let handle = Handle(unsafe { conn.handle() });
    conn.create_scalar_function("xrpc_table_statistic", 3, flags, move |ctx| {
        let (db, table, what) = (text(ctx, 0)?, text(ctx, 1)?, text(ctx, 2)?);
        match what.as_str() {
            "rows" => row_count(handle, &db, &table),
            "data" => table_bytes(handle, &db, &table),
            "index" => index_bytes(handle, &db, &table),
            "avg_row" => {
                let rows = row_count(handle, &db, &table)?;
                let data = table_bytes(handle, &db, &table)?;
                Ok(if rows == 0 { 0 } else { data / rows })
            }
            other => Err(rusqlite::Error::UserFunctionError(
                format!("no table statistic {other}").into(),
            )),
        }
    })?;
    conn.create_scalar_function("xrpc_index_cardinality", 3, flags, move |ctx| {
        let (db, table, columns) = (text(ctx, 0)?, text(ctx, 1)?, text(ctx, 2)?);
        let columns: Vec<String> = columns.split('\u{1}').map(quote).collect();
        let sql = format!(
            "SELECT count(*) FROM (SELECT DISTINCT {} FROM {}.{})",
            columns.join(", "),
            quote(&db),
            quote(&table)
        );
        query_i64(handle, &sql, &[])
    })?;
    Ok(())
}

fn text(ctx: &Context<'_>, i: usize) -> rusqlite::Result<String> {
    ctx.get::<String>(i)
}

fn row_count(handle: Handle, db: &str, table: &str) -> rusqlite::Result<i64> {
    let sql = format!("SELECT count(*) FROM {}.{}", quote(db), quote(table));
    query_i64(handle, &sql, &[])
}

fn table_bytes(handle: Handle, db: &str, table: &str) -> rusqlite::Result<i64> {
    query_i64(
        handle,
        "SELECT coalesce(sum(pgsize), 0) FROM dbstat(?1) WHERE name = ?2",
        &[db, table],
    )
}

/// The bytes of the table's indexes (a PRIMARY KEY's too where SQLite keeps it apart from the
/// table's b-tree, as it does but for an INTEGER one).
fn index_bytes(handle: Handle, db: &str, table: &str) -> rusqlite::Result<i64> {
    let sql = format!(
        "SELECT coalesce(sum(pgsize), 0) FROM dbstat(?1) WHERE name IN \
         (SELECT name FROM {}.sqlite_schema WHERE type = 'index' AND tbl_name = ?2)",
        quote(db)
    );
    query_i64(handle, &sql, &[db, table])
}

/// The first column of the first row of `sql` with `args` bound to `?1`, `?2`, … as text; 0
/// without a row.
fn query_i64(handle: Handle, sql: &str, args: &[&str]) -> rusqlite::Result<i64> {
    let db = handle.0;
    let mut stmt: *mut ffi::sqlite3_stmt = std::ptr::null_mut();
    let length = c_int::try_from(sql.len()).map_err(|_| failure("statement too long"))?;
    // SAFETY: `db` is the calling connection's open handle (module docs); `sql` is valid for
    // `length` bytes.
    let rc = unsafe {
        ffi::sqlite3_prepare_v2(
            db,
            sql.as_ptr().cast(),
            length,
            &mut stmt,
            std::ptr::null_mut(),
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(error_of(db));
    }
    let result = (|| {
        for (i, arg) in args.iter().enumerate() {
            let length = c_int::try_from(arg.len()).map_err(|_| failure("argument too long"))?;
            // SAFETY: `stmt` was prepared above and is not finalized yet; SQLITE_TRANSIENT
            // makes SQLite copy the text before `arg` is dropped.
            let rc = unsafe {
                ffi::sqlite3_bind_text(
                    stmt,
                    c_int::try_from(i + 1).unwrap_or(c_int::MAX),
                    arg.as_ptr().cast(),
                    length,
                    ffi::SQLITE_TRANSIENT(),
                )
            };
            if rc != ffi::SQLITE_OK {
                return Err(error_of(db));
            }
        }
        // SAFETY: as above.
        match unsafe { ffi::sqlite3_step(stmt) } {
            // SAFETY: the statement has a row, and column 0.
            ffi::SQLITE_ROW => Ok(unsafe { ffi::sqlite3_column_int64(stmt, 0) }),
            ffi::SQLITE_DONE => Ok(0),
            _ => Err(error_of(db)),
        }
    })();
    // SAFETY: `stmt` was prepared above and is finalized once, here.
    unsafe { ffi::sqlite3_finalize(stmt) };
    result
}

/// The connection's last error, as the function's.
fn error_of(db: *mut ffi::sqlite3) -> rusqlite::Error {
    // SAFETY: `db` is an open handle; SQLite's message is a NUL-terminated string it owns,
    // copied before the next call on the handle.
    let message = unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(db)) }
        .to_string_lossy()
        .into_owned();
    failure(&message)
}

fn failure(message: &str) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(message.to_owned().into())
}
