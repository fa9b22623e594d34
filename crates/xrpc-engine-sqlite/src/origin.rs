//! Where a result column comes from, and the flags its declaration gives it.
//!
//! # Design
//!
//! SQLite knows, for a result column that is a table column (directly, or through a view or a
//! subquery), its database, table and column name (`sqlite3_column_database_name`,
//! `sqlite3_column_table_name`, `sqlite3_column_origin_name`; the bundled SQLite is built with
//! `SQLITE_ENABLE_COLUMN_METADATA`). rusqlite 0.32 does not expose these, nor a statement's
//! handle, so [`origins`] finds the statement among the connection's prepared statements
//! (`sqlite3_next_stmt`) by its SQL text: every statement prepared from the same text on the
//! same connection has the same result columns and origins, so any match answers.
//!
//! The flags come from the table's declaration ([`KeyCache`]): NOT NULL (declared, or a
//! primary key column, as MySQL reports it), PRIMARY KEY, UNIQUE KEY (a column of a unique
//! index or UNIQUE constraint), MULTIPLE KEY (the first column of a non-unique index) and
//! AUTO_INCREMENT (SQLite's rowid alias, which is what MySQL's AUTO_INCREMENT becomes). They
//! are read with `PRAGMA table_info` and `PRAGMA index_list` / `index_info` and cached per
//! connection and table until the database's `schema_version` changes. What a statement's
//! columns got is cached by its SQL text too, checked against the `schema_version` of each
//! database its columns come from, so a repeated statement does not search the prepared
//! statements again.
//!
//! `schema_version` is read per query, so it must be cheap: it is read by a
//! `PRAGMA <database>.schema_version` prepared once per connection and database and kept
//! outside rusqlite's statement cache ([`VersionProbe`]). Preparing it per query cost about a
//! third of a 6-column point select's engine CPU. Stepping a kept statement reads the schema
//! cookie from the database file's header, so a change made by another connection is seen (when
//! the cookie changed, SQLite prepares the PRAGMA again itself, under the node's authority as
//! the lookup runs with the client check lifted).
//!
//! SQLite does not report a table's alias: `table` is the table's name, like `original_table`.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char};
use std::ptr::NonNull;
use std::sync::Arc;

use rusqlite::{Connection, ffi};

use xrpc_engine::result::{ColumnInfo, column_flags};

/// A result column's table column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) database: String,
    pub(crate) table: String,
    pub(crate) column: String,
}

/// A C string SQLite returned, copied; `None` for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid for the duration of the call.
unsafe fn owned(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: not NULL, and NUL-terminated and valid per the caller's contract.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// The origins of the `width` result columns of the statement prepared from `sql` on `conn`
/// (which must be prepared and alive); `None` for an expression column. All `None` when no
/// such statement is found.
pub(crate) fn origins(conn: &Connection, sql: &str, width: usize) -> Vec<Option<Origin>> {
    let mut out = vec![None; width];
    // SAFETY: `handle` is the live connection, used only by this thread for the duration of
    // the call (connections are opened NO_MUTEX and owned by one session at a time); the
    // statement pointers `sqlite3_next_stmt` returns are valid until finalized, which nothing
    // does during this call; every string SQLite returns is copied before the next call.
    unsafe {
        let db = conn.handle();
        let mut stmt = ffi::sqlite3_next_stmt(db, std::ptr::null_mut());
        while !stmt.is_null() {
            let text = ffi::sqlite3_sql(stmt);
            let same = !text.is_null() && CStr::from_ptr(text).to_bytes() == sql.as_bytes();
            if same && usize::try_from(ffi::sqlite3_column_count(stmt)) == Ok(width) {
                for (i, slot) in out.iter_mut().enumerate() {
                    let i = i as std::ffi::c_int;
                    let database = owned(ffi::sqlite3_column_database_name(stmt, i));
                    let table = owned(ffi::sqlite3_column_table_name(stmt, i));
                    let column = owned(ffi::sqlite3_column_origin_name(stmt, i));
                    if let (Some(database), Some(table), Some(column)) = (database, table, column) {
                        *slot = Some(Origin {
                            database,
                            table,
                            column,
                        });
                    }
                }
                return out;
            }
            stmt = ffi::sqlite3_next_stmt(db, stmt);
        }
    }
    out
}

/// Column flags per table, read from the declarations (see the module docs), and what a
/// statement's columns got from them, per SQL text; with each text, the last result shape `S`
/// built on its decoration (`shape::ResultShape`), which this cache keeps without reading.
#[derive(Debug)]
pub(crate) struct KeyCache<S> {
    /// (database, table) → (schema_version read at, column name lowercased → flags).
    tables: HashMap<(String, String), (i64, HashMap<String, u32>)>,
    /// SQL text → its columns' origins and flags, with the `schema_version` of each database
    /// they come from: a repeated statement costs one `schema_version` read per database
    /// instead of a search of the prepared statements and a table lookup per column.
    /// The last result shape built for the text (`shape`) goes with its decoration.
    statements: HashMap<String, KeptStatement<S>, foldhash::fast::RandomState>,
    /// The kept `schema_version` reads, per database.
    probes: Probes,
}

impl<S> Default for KeyCache<S> {
    fn default() -> Self {
        Self {
            tables: HashMap::default(),
            statements: HashMap::default(),
            probes: Probes::default(),
        }
    }
}

/// What is kept per statement text: its decoration and the last result shape built on it.
#[derive(Debug)]
struct KeptStatement<S> {
    decoration: Arc<Decoration>,
    shape: Option<Arc<S>>,
}

/// A prepared `PRAGMA <database>.schema_version` of one connection.
///
/// It is kept outside rusqlite's statement cache on purpose: a statement in that cache is
/// found by its text, so a client sending the same text would run it without the authorizer's
/// check, which SQLite runs only when it prepares a statement. Nothing but [`KeyCache`] can
/// reach this one. It is finalized when dropped, which must happen before the connection is
/// closed (`SqliteConn` declares its `keys` before its `conn` for that: a connection with a
/// statement left unfinalized does not close).
#[derive(Debug)]
struct VersionProbe {
    /// The connection it was prepared on: it answers for that connection only.
    db: *mut ffi::sqlite3,
    stmt: NonNull<ffi::sqlite3_stmt>,
}

// SAFETY: the statement is used only through `&mut KeyCache`, which belongs to one
// connection, itself used by one thread at a time (connections are opened NO_MUTEX and owned
// by one session at a time); a SQLite statement may move between threads as long as it is not
// used by two at once, like its connection.
unsafe impl Send for VersionProbe {}

impl VersionProbe {
    /// Prepares the read of `database`'s `schema_version` on `conn`; `None` when SQLite refuses
    /// (no such database, or the authorizer's check is not lifted).
    fn prepare(conn: &Connection, database: &str) -> Option<Self> {
        let sql = CString::new(format!("PRAGMA {}.schema_version", crate::quote(database))).ok()?;
        let mut stmt = std::ptr::null_mut();
        // SAFETY: `db` is the live connection, used only by this thread for the duration of the
        // call (see the `Send` impl); `sql` is NUL-terminated, which a length of -1 reads up to;
        // `stmt` is a valid place for the new statement, finalized below if preparing fails.
        unsafe {
            let db = conn.handle();
            let rc = ffi::sqlite3_prepare_v3(
                db,
                sql.as_ptr(),
                -1,
                ffi::SQLITE_PREPARE_PERSISTENT,
                &mut stmt,
                std::ptr::null_mut(),
            );
            if rc != ffi::SQLITE_OK {
                ffi::sqlite3_finalize(stmt);
                return None;
            }
            NonNull::new(stmt).map(|stmt| Self { db, stmt })
        }
    }

    /// The database's `schema_version` now; `None` when it cannot be read.
    fn read(&mut self) -> Option<i64> {
        // SAFETY: `stmt` is a live statement of the live connection it was prepared on (the
        // caller checks the connection), used by this thread only (see the `Send` impl); the
        // column is read while the row is current, and the reset leaves it ready for the next
        // read and ends the read transaction it began in autocommit mode.
        unsafe {
            let stmt = self.stmt.as_ptr();
            let version = (ffi::sqlite3_step(stmt) == ffi::SQLITE_ROW)
                .then(|| ffi::sqlite3_column_int64(stmt, 0));
            let reset = ffi::sqlite3_reset(stmt);
            version.filter(|_| reset == ffi::SQLITE_OK)
        }
    }
}

impl Drop for VersionProbe {
    fn drop(&mut self) {
        // SAFETY: the statement is live and finalized once, here; its connection is still open
        // (see the type's docs).
        unsafe { ffi::sqlite3_finalize(self.stmt.as_ptr()) };
    }
}

/// The kept `schema_version` reads of one connection, by database name.
#[derive(Debug, Default)]
struct Probes(Vec<(String, VersionProbe)>);

/// Databases whose probe is kept; the probes start over when there are more (a connection
/// has `main`, `temp`, `information_schema` and the node's attached databases).
const MAX_PROBES: usize = 32;

impl Probes {
    /// A database's `schema_version` (-1 when it cannot be read, which never matches a cache).
    fn version(&mut self, conn: &Connection, database: &str) -> i64 {
        // SAFETY: only the handle's address is read, to tell connections apart.
        let db = unsafe { conn.handle() };
        let at = match self
            .0
            .iter()
            .position(|(name, probe)| probe.db == db && name == database)
        {
            Some(at) => at,
            None => {
                let Some(probe) = VersionProbe::prepare(conn, database) else {
                    return -1;
                };
                if self.0.len() >= MAX_PROBES {
                    self.0.clear();
                }
                self.0.push((database.to_owned(), probe));
                self.0.len() - 1
            }
        };
        match self.0[at].1.read() {
            Some(version) => version,
            None => {
                // Detached, or refused: prepared again next time.
                self.0.swap_remove(at);
                -1
            }
        }
    }

    /// How many probes are kept (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// What [`KeyCache::lookup`] finds for one statement's columns: each column's origin and
/// flags.
#[derive(Debug, Clone)]
pub(crate) struct Decoration {
    versions: Vec<(String, i64)>,
    columns: Vec<Option<(Origin, u32)>>,
}

impl Decoration {
    /// Fills `table`, `original_table`, `original_name`, `schema` and the flags of `infos`.
    pub(crate) fn apply(&self, infos: &mut [ColumnInfo]) {
        for (column, info) in self.columns.iter().zip(infos.iter_mut()) {
            let Some((origin, flags)) = column else {
                continue;
            };
            info.table.clone_from(&origin.table);
            info.original_table.clone_from(&origin.table);
            info.original_name.clone_from(&origin.column);
            info.schema.clone_from(&origin.database);
            info.flags |= flags;
        }
    }
}

/// Statements whose decoration is kept; the cache starts over when it is full.
const MAX_DECORATED_STATEMENTS: usize = 1024;

/// The longest SQL text kept as a key: a statement can be tens of megabytes (a long literal),
/// and such a one is not worth holding on to.
const MAX_DECORATED_SQL_LEN: usize = 16 << 10;

impl<S> KeyCache<S> {
    /// Fills `table`, `original_table`, `original_name`, `schema` and the flags of the columns
    /// of the statement prepared from `sql` on `conn` (which must be prepared and alive). Runs
    /// PRAGMAs: call it with the client check lifted (`authorizer::Guard::as_node`).
    #[cfg(test)]
    pub(crate) fn decorate(&mut self, conn: &Connection, sql: &str, infos: &mut [ColumnInfo]) {
        self.lookup(conn, sql, infos.len()).apply(infos);
    }

    /// What [`KeyCache::decorate`] fills in, for a statement of `width` columns, without
    /// filling it in yet. Runs PRAGMAs, as `decorate` does.
    #[cfg(test)]
    pub(crate) fn lookup(&mut self, conn: &Connection, sql: &str, width: usize) -> Arc<Decoration> {
        self.lookup_with_shape(conn, sql, width).0
    }

    /// What [`KeyCache::decorate`] fills in (as `lookup`), and the result shape kept with the decoration, if any: still
    /// valid for the decoration, to be checked against the rest of its basis (see `shape`).
    pub(crate) fn lookup_with_shape(
        &mut self,
        conn: &Connection,
        sql: &str,
        width: usize,
    ) -> (Arc<Decoration>, Option<Arc<S>>) {
        let probes = &mut self.probes;
        let cached = self.statements.get(sql).filter(|kept| {
            let d = &kept.decoration;
            d.columns.len() == width
                && d.versions
                    .iter()
                    .all(|(db, v)| *v >= 0 && probes.version(conn, db) == *v)
        });
        match cached {
            Some(kept) => (Arc::clone(&kept.decoration), kept.shape.clone()),
            None => {
                let origins = origins(conn, sql, width);
                let mut versions: Vec<(String, i64)> = Vec::new();
                let mut columns = Vec::with_capacity(origins.len());
                for origin in origins {
                    let Some(origin) = origin else {
                        columns.push(None);
                        continue;
                    };
                    let version = match versions.iter().find(|(db, _)| *db == origin.database) {
                        Some(&(_, v)) => v,
                        None => {
                            let v = self.probes.version(conn, &origin.database);
                            versions.push((origin.database.clone(), v));
                            v
                        }
                    };
                    let flags = self.flags(conn, &origin, version);
                    columns.push(Some((origin, flags)));
                }
                let decoration = Arc::new(Decoration { versions, columns });
                if sql.len() <= MAX_DECORATED_SQL_LEN {
                    if self.statements.len() >= MAX_DECORATED_STATEMENTS {
                        self.statements.clear();
                    }
                    self.statements.insert(
                        sql.to_owned(),
                        KeptStatement {
                            decoration: Arc::clone(&decoration),
                            shape: None,
                        },
                    );
                }
                (decoration, None)
            }
        }
    }

    /// Drops what is kept for `sql`: its next lookup finds its origins again.
    pub(crate) fn forget(&mut self, sql: &str) {
        self.statements.remove(sql);
    }

    /// Keeps `shape`, built on `decoration`, for the next run of `sql`, if `decoration` is the
    /// one kept for it (a text too long to keep has none).
    pub(crate) fn keep_shape(&mut self, sql: &str, decoration: &Arc<Decoration>, shape: Arc<S>) {
        if let Some(kept) = self.statements.get_mut(sql)
            && Arc::ptr_eq(&kept.decoration, decoration)
        {
            kept.shape = Some(shape);
        }
    }

    /// A column's flags.
    fn flags(&mut self, conn: &Connection, origin: &Origin, version: i64) -> u32 {
        let key = (origin.database.clone(), origin.table.clone());
        let fresh = self
            .tables
            .get(&key)
            .is_some_and(|(v, _)| *v == version && version >= 0);
        if !fresh {
            let flags = read_flags(conn, &origin.database, &origin.table).unwrap_or_default();
            self.tables.insert(key.clone(), (version, flags));
        }
        let column = origin.column.to_lowercase();
        self.tables
            .get(&key)
            .and_then(|(_, flags)| flags.get(&column).copied())
            .unwrap_or(0)
    }
}

/// Every column's flags in one table.
fn read_flags(
    conn: &Connection,
    database: &str,
    table: &str,
) -> rusqlite::Result<HashMap<String, u32>> {
    let q = crate::quote;
    // (name, declared type, notnull, pk position), generated columns included
    let columns: Vec<(String, String, bool, i64)> = conn
        .prepare(&format!("PRAGMA {}.table_xinfo({})", q(database), q(table)))?
        .query_map([], |row| {
            Ok((row.get(1)?, row.get(2)?, row.get(3)?, row.get(5)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut flags: HashMap<String, u32> = HashMap::new();
    let keys = columns.iter().filter(|c| c.3 > 0).count();
    for (name, decl, not_null, pk) in &columns {
        let mut f = 0;
        if *not_null || *pk > 0 {
            f |= column_flags::NOT_NULL;
        }
        if *pk > 0 {
            f |= column_flags::PRIMARY_KEY;
            if keys == 1 && decl.eq_ignore_ascii_case("INTEGER") {
                f |= column_flags::AUTO_INCREMENT;
            }
        }
        flags.insert(name.to_lowercase(), f);
    }
    // (index name, unique, origin: c CREATE INDEX, u UNIQUE, pk PRIMARY KEY)
    let indexes: Vec<(String, bool, String)> = conn
        .prepare(&format!("PRAGMA {}.index_list({})", q(database), q(table)))?
        .query_map([], |row| Ok((row.get(1)?, row.get(2)?, row.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (index, unique, origin) in indexes {
        if origin == "pk" {
            continue;
        }
        let members: Vec<Option<String>> = conn
            .prepare(&format!("PRAGMA {}.index_info({})", q(database), q(&index)))?
            .query_map([], |row| row.get(2))?
            .collect::<rusqlite::Result<_>>()?;
        for (position, member) in members.iter().enumerate() {
            let Some(member) = member else { continue };
            let entry = flags.entry(member.to_lowercase()).or_default();
            if unique {
                *entry |= column_flags::UNIQUE_KEY;
            } else if position == 0 {
                *entry |= column_flags::MULTIPLE_KEY;
            }
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_columns_have_origins_and_flags() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "create table t (id INTEGER PRIMARY KEY, a INT NOT NULL, b TEXT UNIQUE, c INT);
             create index tc on t (c, a);",
        )
        .unwrap();
        let sql = "select id, a, b, c, c + 1 as e from t x";
        let stmt = conn.prepare(sql).unwrap();
        let found = origins(&conn, sql, 5);
        let names: Vec<Option<&str>> = found
            .iter()
            .map(|o| o.as_ref().map(|o| o.column.as_str()))
            .collect();
        assert_eq!(names, [Some("id"), Some("a"), Some("b"), Some("c"), None]);
        assert_eq!(found[0].as_ref().unwrap().table, "t");
        assert_eq!(found[0].as_ref().unwrap().database, "main");
        let mut cache = KeyCache::<()>::default();
        let mut infos: Vec<ColumnInfo> =
            (0..5).map(|i| ColumnInfo::text(format!("c{i}"))).collect();
        cache.decorate(&conn, sql, &mut infos);
        drop(stmt);
        let flags: Vec<u32> = infos.iter().map(|i| i.flags).collect();
        assert_eq!(
            flags,
            [
                column_flags::NOT_NULL | column_flags::PRIMARY_KEY | column_flags::AUTO_INCREMENT,
                column_flags::NOT_NULL,
                column_flags::UNIQUE_KEY,
                column_flags::MULTIPLE_KEY,
                0
            ]
        );
        assert_eq!(infos[1].original_table, "t");
        assert_eq!(infos[1].original_name, "a");
        // A statement that is not prepared has no origins.
        assert_eq!(origins(&conn, "select a from t", 1), [None]);
        // The decoration is kept per SQL text: found again without the statement prepared,
        // until the schema changes.
        let mut again: Vec<ColumnInfo> =
            (0..5).map(|i| ColumnInfo::text(format!("c{i}"))).collect();
        cache.decorate(&conn, sql, &mut again);
        assert_eq!(again[1].original_name, "a");
        conn.execute_batch("create table u (x int)").unwrap();
        let mut after_ddl: Vec<ColumnInfo> =
            (0..5).map(|i| ColumnInfo::text(format!("c{i}"))).collect();
        cache.decorate(&conn, sql, &mut after_ddl);
        assert_eq!(
            after_ddl[1].original_name, "",
            "looked up again, and not prepared now"
        );
    }

    /// Another connection changing the schema between two identical statements is seen: the
    /// kept `schema_version` read sees the new cookie, and the flags are read again.
    #[test]
    fn schema_change_by_another_connection_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.db");
        let a = Connection::open(&path).unwrap();
        let b = Connection::open(&path).unwrap();
        a.execute_batch("create table t (id INTEGER PRIMARY KEY, a INT NOT NULL)")
            .unwrap();
        let sql = "select id, a from t";
        let mut cache = KeyCache::<()>::default();
        let decorate = |cache: &mut KeyCache<()>| {
            let stmt = a.prepare(sql).unwrap();
            let mut infos: Vec<ColumnInfo> =
                (0..2).map(|i| ColumnInfo::text(format!("c{i}"))).collect();
            cache.decorate(&a, sql, &mut infos);
            drop(stmt);
            infos.iter().map(|i| i.flags).collect::<Vec<u32>>()
        };
        let before = decorate(&mut cache);
        assert_eq!(before[1], column_flags::NOT_NULL);
        assert_eq!(decorate(&mut cache), before, "found in the cache");
        assert_eq!(cache.probes.len(), 1, "one kept read, of main");
        b.execute_batch("drop table t; create table t (id INTEGER PRIMARY KEY, a INT UNIQUE)")
            .unwrap();
        let after = decorate(&mut cache);
        assert_eq!(
            after[1],
            column_flags::UNIQUE_KEY,
            "the other connection's change is seen"
        );
        assert_eq!(cache.probes.len(), 1, "the kept read is reused");
        // A database that goes away: no version, and nothing cached for it.
        a.execute_batch("attach ':memory:' as other; create table other.u (x int not null)")
            .unwrap();
        assert!(cache.probes.version(&a, "other") >= 0);
        a.execute_batch("detach other").unwrap();
        assert_eq!(cache.probes.version(&a, "other"), -1);
        assert_eq!(
            cache.probes.len(),
            1,
            "the detached database's read is dropped"
        );
    }
}
