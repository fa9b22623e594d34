//! The embedded SQLite engine (`rusqlite`, bundled SQLite): MySQL statements run by their
//! translation from the parse tree (`xrpc_sql_sqlite`).
//!
//! # Connections and the pool
//!
//! [`SqliteEngine`] keeps a pool of idle [`SqliteConn`]s (a `parking_lot` mutex around a `Vec`,
//! at most [`SqliteOptions::max_idle`] of them). [`Engine::acquire`] pops one or opens a new one;
//! [`Engine::release`] resets it if it still holds session state, removes its wait hook and
//! pushes it back, or drops it when the pool is full. The database is opened in WAL mode
//! (persistent in the file), so readers never block the writer. Each connection sets
//! `synchronous` (FULL by default: an acknowledged commit survives `kill -9` and power loss),
//! `foreign_keys`, its prepared-statement cache capacity, the busy handler below, MySQL's
//! function library (`xrpc_sql_sqlite::register`, which the translations call) and the
//! named-lock functions over the engine's registry (`named_locks`).
//!
//! The prepared-statement cache is bounded by bytes as well as by count: only statements of at
//! most [`CACHED_STATEMENT_MAX_LEN`] bytes are cached, so one connection's cache holds at most
//! `statement_cache_capacity × CACHED_STATEMENT_MAX_LEN` bytes of SQL (1 MiB by default) and
//! their compiled forms. A longer statement is compiled for its run and freed after it: a client
//! sending a few 30 MiB statements no longer leaves them resident in every pooled connection.
//! Besides the cache, a connection keeps its last client statement prepared (`kept`): the next
//! request with the same text binds and steps it again without the cache's two hash lookups.
//!
//! Connections older than `xrpc_shared_session_lifetime` are closed on release instead of pooled,
//! and swept from the pool periodically. Their age is read from a [`Clock`] ([`SystemClock`]
//! unless [`SqliteEngine::open_with_clock`] is given another), so tests move time instead of
//! sleeping.
//!
//! # Lock waits
//!
//! SQLite's busy handler is a plain `fn` pointer, so it cannot capture the connection. Instead
//! every statement runs inside a `BusyScope` that puts the connection's busy timeout, wait hook
//! and interrupt flag into a thread-local; the handler (the same for every connection) reads it.
//! On the first busy callback of a statement the handler calls the wait hook
//! ([`EngineConn::set_wait_hook`], the session passes `GroupHandle::enter_wait`) and keeps the
//! returned guard in the thread-local until the scope ends with the statement. It then sleeps
//! in short steps (1 ms growing to 50 ms) until the lock frees, the busy timeout runs out (→
//! 1205) or the statement is killed (→ 1317; the kill flag is checked at every step, so a kill
//! lands within 50 ms even while waiting).
//!
//! SQLite calls the handler only for a connection with no read transaction open: a deferred
//! transaction that has read gets SQLITE_BUSY (1205) on its first write at once while another
//! connection holds the write lock or has committed since that read (its snapshot is stale). The engine does not retry that statement: the transaction's earlier reads saw the
//! old snapshot, so only the client can redo the transaction. `begin_immediate` avoids the case
//! by taking the write lock at BEGIN (docs/PROTOCOL.md, "Lock waits").
//!
//! # MySQL statements
//!
//! Every request's text is read once by the node's MySQL front end (`xrpc_sql`, through its
//! process-wide parse cache; the `front` module); the session hands its parse in
//! ([`EngineConn::execute_parsed`]), so the engine does not look the text up again: a text that does not parse is MySQL's 1064,
//! an empty one 1065, and one holding several statements is refused with 1064 before anything
//! runs, because the protocol allows one result set per request. SQLite's own `PRAGMA`,
//! `ATTACH` and `VACUUM` are 1064 (the `authorizer` refuses their nested forms). The session
//! statements are the engine's own; they return no result set and 0 rows affected:
//!
//! - `BEGIN [WORK]`, `START TRANSACTION […]` open a transaction (deferred by default, or
//!   immediate with [`SqliteOptions::begin_immediate`]; `READ ONLY` is always deferred). As in
//!   MySQL, a BEGIN inside a transaction commits it first.
//! - `COMMIT [WORK]`, `ROLLBACK [WORK]` end the open transaction; without one they do nothing.
//!   `SAVEPOINT s`, `ROLLBACK TO s` and `RELEASE SAVEPOINT s` are SQLite's savepoints.
//! - `SET autocommit = 0` makes the next statement (other than COMMIT, ROLLBACK and SET) open a
//!   transaction implicitly, lasting until COMMIT or ROLLBACK; `SET autocommit = 1` commits an
//!   open transaction when autocommit was 0. Values: 0/1, ON/OFF, TRUE/FALSE, DEFAULT;
//!   anything else is 1231.
//! - `SET NAMES`, `SET … TRANSACTION …` and the other system variables are the `front` and
//!   `variables` modules': kept per session, accepted without effect, or refused. `SET @user =
//!   value` keeps the value as `SELECT value` gives it, as session state (see `translated`).
//! - A statement MySQL commits implicitly (DDL but a temporary table's) commits the open
//!   transaction first and runs outside one, so SQLite's transactional DDL is never seen.
//!
//! The `catalog` module's MySQL statements (SHOW, DESCRIBE, CREATE/DROP DATABASE, the refused
//! admin statements) the engine answers itself, with queries of its own on the
//! `information_schema` it rebuilds. Every other statement runs by its translation from the
//! parse tree (`xrpc_sql_sqlite::translate`; `information_schema`'s tables too, rebuilt first):
//! the `translated` module has the design (the MySQL table definitions kept in each database
//! file, the session state the function library reads, result metadata from the translation's
//! types). A call of `CONCAT` or `CONCAT_WS` with fewer arguments than MySQL takes is MySQL's
//! 1582, decided from the tree (the `arity` module).
//!
//! The differential corpus of `xrpc-sql-sqlite` runs against this engine too (the server's
//! `corpus_sqlite` test); the silent differences the engine still has are listed there, each
//! with its reason.
//!
//! # Schemas
//!
//! MySQL databases are SQLite files attached by the node (`databases`): `main` is the default,
//! every other one `data_dir/databases/<name>.db`. A statement runs in the request's
//! `schema_name`, else the session's current database (`USE` or an earlier `schema_name`, kept
//! by the session layer and handed in with [`EngineConn::set_session_schema`]), else the schema
//! of the connection's authentication data ([`EngineConn::set_default_schema`]), else `main`;
//! an unknown one is 1049 "Unknown database". A `schema_name` is reported back as a change of
//! the session's database ([`EngineConn::take_session_schema_change`]), as `USE` is. The
//! translation names every table with its database, so unqualified names are found in it
//! (after the session's temporary tables). `DATABASE()` returns it, in lower case.
//! `CREATE/DROP DATABASE`, `USE`, the SHOW statements, `information_schema` and MySQL's errors
//! for XA, CALL and the other statements SQLite has no counterpart for are the `catalog`
//! module's; what client statements may not do (ATTACH, PRAGMA, …) the `authorizer` module's.
//!
//! # Column types
//!
//! A translated statement's result columns are typed from the translation (its types, and the
//! kept MySQL definition of a table column): the `translated` module's table. The queries the
//! engine runs for the catalog statements are typed as SQLite declares their columns: a column
//! with a declared type takes its X type, MySQL type, length and fractional digits from the
//! declaration, read as MySQL DDL (`types::classify_decl`), never from the values; the same
//! reading describes the columns of a table without a kept definition in SHOW COLUMNS and
//! `information_schema`. An expression column (no declaration, or one naming no MySQL type) is
//! typed from the first rows: up to 64 rows or 256 KiB are read ahead before the metadata when
//! some column needs it.
//!
//! | declared type | X type | MySQL type | length | fractional digits |
//! | --- | --- | --- | --- | --- |
//! | TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT (INTEGER is BIGINT, SQLite's rowid idiom) | SINT | TINY, SHORT, INT24, LONG, LONGLONG | 4, 6, 9, 11, 20 | 0 |
//! | the same `UNSIGNED` (or ZEROFILL) | UINT | the same | 3, 5, 8, 10, 20 | 0 |
//! | BOOL, BOOLEAN | SINT | TINY | 1 | 0 |
//! | YEAR | UINT | YEAR (13) | 4 | 0 |
//! | BIT(n) | BIT | BIT | n | 0 |
//! | FLOAT (FLOAT(p ≤ 24)) | FLOAT | FLOAT | 12 | 31 |
//! | DOUBLE, REAL, FLOAT(p > 24) | DOUBLE | DOUBLE | 22 | 31 |
//! | DECIMAL(p,s), NUMERIC, DEC, FIXED (alone: (10,0)) | DECIMAL | NEWDECIMAL | p + 2 (p + 1 when s = 0) | s |
//! | DATE | DATETIME | DATE | 10 | 0 |
//! | DATETIME(fsp), TIMESTAMP(fsp) | DATETIME | DATETIME, TIMESTAMP | 19 (+ fsp + 1) | fsp |
//! | TIME(fsp) | TIME | TIME | 10 (+ fsp + 1) | fsp |
//! | CHAR(n) | BYTES, collation 45 | STRING | 4n | 0 |
//! | VARCHAR(n), TEXT family, CLOB, JSON | BYTES, collation 45 | VAR_STRING | 4n or the type's bytes | 0 |
//! | ENUM(…), SET(…) (see `enumset`) | ENUM, SET, collation 45 | ENUM (247), SET (248) | 4 × the longest member, or 4 × all members and commas | 0 |
//! | BINARY(n), VARBINARY(n) | BYTES, collation 63 | STRING, VAR_STRING | n | 0 |
//! | BLOB family | BYTES, collation 63 | BLOB | the type's bytes | 0 |
//!
//! Expression columns: only INTEGER values → SINT (LONGLONG); INTEGER and REAL, or REAL →
//! DOUBLE; any BLOB → BYTES binary (BLOB, 63); otherwise TEXT → BYTES text (VAR_STRING, 45). A
//! column NULL in every row of a result that ended within the read-ahead is MySQL's `select
//! null`: BYTES with MySQL type NULL (6), collation 63; NULL in every read-ahead row of a longer
//! result, BYTES text.
//!
//! A value is sent exactly or not at all. Declared columns send what MySQL would have stored
//! (`types::convert`): a DECIMAL rounded half away from zero to its scale, a CHAR without
//! trailing spaces, a BINARY(n) padded with zero bytes, a YEAR of 1–99 widened, fractional
//! seconds beyond the declared precision truncated. A stored value that is not of the column's
//! type (written by another tool, or a later row of an expression column of another type) ends
//! the result with ERROR 1366 naming the value, the column, the row and the type; the rows
//! before it have been sent.
//!
//! A table column of a catalog query carries `original_name`, `table` and `original_table`,
//! `schema` (its database) and MySQL's flags from the declaration (see the `origin` module); a
//! translated statement's table columns carry the translation's origins (see `translated`).
//!
//! # Warnings
//!
//! What the function library warns about while a statement runs (MySQL's warnings and notes)
//! is handed to the sink after the rows ([`ResultSink::warning`]: the encoder sends WARNING
//! notices) and kept for `SHOW WARNINGS`. A statement that fails leaves the warnings it raised
//! and then its error (Level `Error`) in the session's diagnostics, for `SHOW WARNINGS`, `SHOW
//! ERRORS` and `@@error_count`.
//!
//! # Insert ids
//!
//! An INSERT that generates AUTO_INCREMENT values reports the first one as GENERATED_INSERT_ID,
//! as MySQL does for a multi-row insert, and makes it `LAST_INSERT_ID()`; one of explicit values
//! reports the last row's value and leaves `LAST_INSERT_ID()` as it is; `LAST_INSERT_ID(expr)`
//! reports `expr`. The counters are InnoDB's: values a failed or rolled-back insert reserved are
//! not handed out again (see `translated`).
//!
//! # Arguments
//!
//! `?` placeholders bind `args` in order, and their count must match (else 1210; the arguments
//! of a statement without placeholders are not read). Sint, Bit and
//! Uint up to `i64::MAX` bind as INTEGER, a larger Uint or Bit as the TEXT of its digits (exact
//! in a BIGINT UNSIGNED column); Double as REAL; Float as the REAL of its shortest decimal form
//! (0.1f32 is 0.1); Bytes and Enum as TEXT when valid UTF-8, else BLOB (the protocol's strings
//! and octets both arrive as Bytes, and TEXT compares equal to TEXT columns); Set as its items
//! joined by `,`; Decimal, DateTime (`YYYY-MM-DD[ HH:MM:SS[.ffffff]]`) and Time
//! (`[-]HH:MM:SS[.ffffff]`) as TEXT; Null as NULL.
//!
//! # Errors
//!
//! A translation's refusal and an error of MySQL's function library keep their MySQL code, SQL
//! state and message (1235 for what the node does not cover, 1366, 1264, 1292, 1406, 1265 and
//! 3140 for a write that does not fit its column, 1365 for a division by zero in a write, …).
//! SQLite's own errors map as follows:
//!
//! | SQLite | code | SQL state |
//! | --- | --- | --- |
//! | UNIQUE or PRIMARY KEY constraint | 1062 DUP_ENTRY | 23000 |
//! | NOT NULL constraint (MySQL's message) | 1048 BAD_NULL | 23000 |
//! | FOREIGN KEY constraint: of a DELETE, else | 1451 ROW_IS_REFERENCED, 1452 NO_REFERENCED_ROW | 23000 |
//! | a text that does not parse as MySQL (MySQL's message, from the front end); several statements; SQLite's syntax error | 1064 PARSE_ERROR | 42000 |
//! | a text with no statement ("Query was empty") | 1065 EMPTY_QUERY | 42000 |
//! | no such table | 1146 NO_SUCH_TABLE | 42S02 |
//! | no such table of `information_schema` | 1109 UNKNOWN_TABLE | 42S02 |
//! | no such column | 1054 BAD_FIELD | 42S22 |
//! | no such function | 1305 SP_DOES_NOT_EXIST | 42000 |
//! | a function or collation SQL stored by a node that ran statements as their text names (`xrpc_…`) | 1235 NOT_SUPPORTED_YET | 42000 |
//! | an aggregate where none may be | 1111 INVALID_GROUP_FUNC_USE | HY000 |
//! | SQLITE_BUSY / SQLITE_LOCKED (busy timeout ran out, or a stale snapshot) | 1205 LOCK_WAIT_TIMEOUT | HY000 |
//! | SQLITE_INTERRUPT, or busy while killed | 1317 QUERY_INTERRUPTED | 70100 |
//! | SQLITE_FULL (a full disk, or `max_page_count`) | 1114 TABLE_FULL | HY000 |
//! | wrong argument count or unbindable argument | 1210 WRONG_ARGUMENTS | HY000 |
//! | `CONCAT()`, `CONCAT_WS(x)`: fewer arguments than MySQL's function takes (`arity`) | 1582 WRONG_PARAMCOUNT_TO_NATIVE_FCT | 42000 |
//! | anything else | 1105 ENGINE_ERROR | HY000 |
//!
//! # Session state
//!
//! [`EngineConn::holds_session_state`] is true while a transaction is open, under
//! `autocommit = 0`, while temp objects exist, while the session holds user variables, named
//! locks or a system variable other than its default (`sql_mode`, `time_zone`, …); temp objects
//! are re-read only after CREATE and DROP statements. Attached databases are the node's, the
//! same on every connection, and not session state. [`EngineConn::reset`] rolls back, restores
//! the defaults, forgets the session's current database, variables and counts, releases its
//! named locks and drops every temp trigger, view and table.

// `busy` reads the running connection's kill flag from this file's `Shared`, so the two import
// each other: the handler is a plain `fn` with no way to be handed the connection (see "Lock waits"
// above), and the flag is connection state that belongs here.
mod arity;
mod authorizer;
mod busy;
// `catalog` adds the MySQL statements' methods to `SqliteConn` (they run the node's catalog
// queries through the connection's own prepare, stream and error mapping), and this file calls
// them: a file-level circle, kept because the alternative is a trait over every private part of
// the connection that the catalog needs.
mod catalog;
mod databases;
mod front;
mod information;
mod kept;
mod memo;
mod named_locks;
mod origin;
mod shape;
mod sql_mode;
mod statistics;
mod translated;
mod types;
mod variables;

use std::cell::{Cell, RefCell};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rusqlite::functions::FunctionFlags;
use rusqlite::limits::Limit;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{
    CachedStatement, Connection, ErrorCode, InterruptHandle, OpenFlags, Statement, ffi,
};
use xrpc_proto::codes;
use xrpc_proto::value::Value;

use self::authorizer::ClientSql;
use self::busy::{BusyScope, busy_handler};
use self::databases::{Attached, Databases};
use self::front::{BeginMode, Request, SavepointOp, SqlInfo};
use self::types::stored::Shown;
use self::types::{Arg, Conv, LOOKAHEAD_BYTES, LOOKAHEAD_ROWS};
use xrpc_engine::result::{ColumnInfo, ExecSummary, ResultSink, SqlError, SqlWarning};
use xrpc_engine::{Engine, EngineConn, Interrupt, WaitHook};

/// SQLite's `synchronous` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// No syncs: fastest, and a power loss may lose recent commits or corrupt the database.
    Off,
    /// In WAL mode, commits are durable once the WAL is checkpointed; a power loss may lose the
    /// last commits, never consistency.
    Normal,
    /// The WAL is synced at every commit: an acknowledged commit survives a crash or power loss.
    #[default]
    Full,
    /// FULL, and the directory is synced too.
    Extra,
}

impl Synchronous {
    /// The pragma value, as `PRAGMA synchronous` reads back (0–3).
    pub const fn level(self) -> i64 {
        match self {
            Synchronous::Off => 0,
            Synchronous::Normal => 1,
            Synchronous::Full => 2,
            Synchronous::Extra => 3,
        }
    }

    /// The setting's name.
    pub const fn name(self) -> &'static str {
        match self {
            Synchronous::Off => "OFF",
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
            Synchronous::Extra => "EXTRA",
        }
    }
}

impl fmt::Display for Synchronous {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `synchronous` value that is not OFF, NORMAL, FULL or EXTRA (or 0–3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid synchronous setting {0:?}: expected OFF, NORMAL, FULL or EXTRA")]
pub struct ParseSynchronousError(pub String);

impl FromStr for Synchronous {
    type Err = ParseSynchronousError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Synchronous::Off,
            Synchronous::Normal,
            Synchronous::Full,
            Synchronous::Extra,
        ]
        .into_iter()
        .find(|v| s.eq_ignore_ascii_case(v.name()) || s == v.level().to_string())
        .ok_or_else(|| ParseSynchronousError(s.to_owned()))
    }
}

/// The longest statement (bytes of SQL) kept in a connection's prepared-statement cache; see
/// the module docs. Statements the PolarDB-X client repeats are short; long ones (bulk inserts
/// with literal values) rarely repeat and would pin their size in memory.
pub const CACHED_STATEMENT_MAX_LEN: usize = 16 * 1024;

/// How [`SqliteEngine`] opens and pools connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteOptions {
    /// `PRAGMA synchronous`; FULL by default.
    pub synchronous: Synchronous,
    /// How long a statement waits for a lock before failing with 1205; 5 s by default.
    pub busy_timeout: Duration,
    /// Most idle connections kept in the pool; more are closed on release. 32 by default.
    pub max_idle: usize,
    /// Prepared statements cached per connection; 64 by default.
    pub statement_cache_capacity: usize,
    /// `PRAGMA foreign_keys`; on by default, as MySQL (InnoDB) enforces them.
    pub foreign_keys: bool,
    /// Whether BEGIN takes the write lock at once (`BEGIN IMMEDIATE`). Off by default: a deferred
    /// transaction lets readers run concurrently, but one that reads and then writes after
    /// another connection committed fails with 1205 (SQLite's stale snapshot).
    pub begin_immediate: bool,
    /// What the SQL function `version()` returns.
    pub server_version: String,
    /// `PRAGMA max_page_count`: the most pages the database may grow to (a size cap of pages
    /// times `page_size`, 4 KiB by default). `None` leaves SQLite's limit (about 4 billion
    /// pages). A write that would pass it fails with 1114, as one on a full disk does.
    pub max_page_count: Option<u32>,
    /// `PRAGMA mmap_size`: bytes of each database file SQLite reads through a memory map instead
    /// of `pread` into every connection's own page cache. 0 (the default) leaves it off. On a
    /// read-heavy load it saves a system call and a page copy per page read, and the page-cache
    /// mutex (a point select on a 100 000-row table at 1024 clients: 14–16 → 11 µs of server CPU
    /// per request); the mapped pages count in the process's RSS, as page cache shared by every
    /// connection, and an I/O error on a mapped page is a SIGBUS rather than an error.
    pub mmap_size: u64,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self {
            synchronous: Synchronous::Full,
            busy_timeout: Duration::from_secs(5),
            max_idle: 32,
            statement_cache_capacity: 64,
            foreign_keys: true,
            begin_immediate: false,
            server_version: format!("8.0.32-xrpc-{}", env!("CARGO_PKG_VERSION")),
            max_page_count: None,
            mmap_size: 0,
        }
    }
}

/// Where the engine reads the time that ages its connections (`xrpc_shared_session_lifetime`):
/// [`SystemClock`] in production; a test that depends on lifetimes passes its own to
/// [`SqliteEngine::open_with_clock`] and moves it forward instead of sleeping, as the client core
/// takes `now` from its caller.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant; never goes backwards.
    fn now(&self) -> Instant;
}

/// The monotonic system clock, `Instant::now`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// The SQLite engine: a database file and a pool of connections to it.
pub struct SqliteEngine {
    path: PathBuf,
    options: Arc<SqliteOptions>,
    /// Stamps connections when they open and ages them.
    clock: Arc<dyn Clock>,
    pool: Mutex<Vec<Box<dyn EngineConn>>>,
    opened: AtomicU64,
    /// Statements the connections stepped (`xrpc_engine_statements`; see `SqliteConn::stepped`).
    stepped: Arc<xrpc_net::StripedCounters<1>>,
    /// Connections handed out by `acquire` and not yet given back to `release`: at rest (no
    /// statement running, no session holding one) it is 0, whatever happened to the clients.
    borrowed: AtomicU64,
    /// Milliseconds a connection may live before it is closed rather than pooled; 0 is forever.
    lifetime_ms: AtomicU64,
    /// The databases besides `main` (see `databases`).
    databases: Arc<Databases>,
    /// The sessions' named locks (see `named_locks`).
    named_locks: Arc<named_locks::NamedLocks>,
}

impl SqliteEngine {
    /// Opens (creating if needed) the database at `path` in WAL mode. The parent directory must
    /// exist.
    pub fn open(path: &Path, options: SqliteOptions) -> Result<Self, SqlError> {
        Self::open_with_clock(path, options, Arc::new(SystemClock))
    }

    /// [`open`](Self::open) with connection ages read from `clock`.
    pub fn open_with_clock(
        path: &Path,
        options: SqliteOptions,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, SqlError> {
        // SQLite's compile-time limit of attached databases, less the node's information_schema.
        let attachable = Connection::open_in_memory()
            .map(|conn| conn.limit(Limit::SQLITE_LIMIT_ATTACHED))
            .map_err(|err| map_error(err, false))?;
        let max_databases = usize::try_from(attachable - 1).unwrap_or(0);
        let engine = Self {
            path: path.to_owned(),
            options: Arc::new(options),
            clock,
            pool: Mutex::new(Vec::new()),
            opened: AtomicU64::new(0),
            stepped: Arc::default(),
            borrowed: AtomicU64::new(0),
            lifetime_ms: AtomicU64::new(0),
            databases: Arc::new(Databases::open(path, max_databases)?),
            named_locks: Arc::default(),
        };
        let first = engine.open_conn()?;
        // Reading the schema checks the file header and the schema pages, so a file that is not
        // a database, or one whose schema is damaged, stops start-up here instead of failing
        // every statement later. (Damage inside a table is found when that page is read; the
        // statement then fails with the engine's "database disk image is malformed".)
        first
            .conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|err| map_error(err, false))?;
        let mode: String = first
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(|err| map_error(err, false))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(SqlError::new(
                &codes::ENGINE_ERROR,
                format!(
                    "{}: cannot use WAL journal mode (got {mode})",
                    path.display()
                ),
            ));
        }
        engine.pool.lock().push(Box::new(first));
        Ok(engine)
    }

    /// Opens a new connection, outside the pool.
    pub fn open_conn(&self) -> Result<SqliteConn, SqlError> {
        let conn = SqliteConn::open(
            &self.path,
            Arc::clone(&self.options),
            self.clock.now(),
            Arc::clone(&self.databases),
            Arc::clone(&self.stepped),
            Arc::clone(&self.named_locks),
        )?;
        self.opened.fetch_add(1, Ordering::Relaxed);
        Ok(conn)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The options the engine was opened with.
    pub fn options(&self) -> &SqliteOptions {
        &self.options
    }

    /// Idle connections in the pool.
    pub fn idle_connections(&self) -> usize {
        self.pool.lock().len()
    }

    /// The directory of the databases created with CREATE DATABASE (`databases/` beside the
    /// main file).
    pub fn databases_dir(&self) -> PathBuf {
        self.databases
            .path("x")
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Most databases besides `main` (SQLite's limit of attached databases, less one).
    pub fn max_databases(&self) -> usize {
        self.databases.max()
    }

    /// Connections opened since the engine started.
    pub fn connections_opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed)
    }

    fn is_expired(&self, conn: &dyn EngineConn) -> bool {
        let lifetime = self.lifetime_ms.load(Ordering::Relaxed);
        lifetime > 0
            && self.clock.now().saturating_duration_since(conn.opened_at())
                >= Duration::from_millis(lifetime)
    }
}

impl fmt::Debug for SqliteEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteEngine")
            .field("path", &self.path)
            .field("options", &self.options)
            .field("idle", &self.idle_connections())
            .field("opened", &self.connections_opened())
            .finish()
    }
}

impl Engine for SqliteEngine {
    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn sees_all_schema_changes(&self) -> bool {
        // The database file is the node's: other processes do not change it.
        true
    }

    fn version(&self) -> String {
        format!("SQLite {}", rusqlite::version())
    }

    fn acquire(&self) -> Result<Box<dyn EngineConn>, SqlError> {
        let idle = self.pool.lock().pop();
        let conn: Box<dyn EngineConn> = match idle {
            Some(conn) => conn,
            None => Box::new(self.open_conn()?),
        };
        self.borrowed.fetch_add(1, Ordering::Relaxed);
        Ok(conn)
    }

    fn status_rows(&self) -> Vec<(String, String)> {
        [
            ("idle", self.idle_connections() as u64),
            ("borrowed", self.borrowed.load(Ordering::Relaxed)),
            ("opened", self.connections_opened()),
            ("statements", self.stepped.sum()[0]),
        ]
        .into_iter()
        .map(|(name, value)| (format!("xrpc_engine_{name}"), value.to_string()))
        .collect()
    }

    fn release(&self, mut conn: Box<dyn EngineConn>) {
        self.borrowed.fetch_sub(1, Ordering::Relaxed);
        if self.is_expired(conn.as_ref()) {
            return;
        }
        if conn.holds_session_state()
            && let Err(err) = conn.reset()
        {
            tracing::warn!(%err, "closing an engine connection that could not be reset");
            return;
        }
        conn.set_wait_hook(None);
        let mut pool = self.pool.lock();
        if pool.len() < self.options.max_idle {
            pool.push(conn);
        } else {
            // Closing a connection takes a moment; not under the pool lock.
            drop(pool);
            drop(conn);
        }
    }

    fn set_connection_lifetime(&self, lifetime: Duration) {
        let ms = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
        self.lifetime_ms.store(ms, Ordering::Relaxed);
    }

    fn sweep_expired(&self) -> usize {
        let expired: Vec<Box<dyn EngineConn>> = {
            let mut pool = self.pool.lock();
            let (old, young): (Vec<_>, Vec<_>) = std::mem::take(&mut *pool)
                .into_iter()
                .partition(|conn| self.is_expired(conn.as_ref()));
            *pool = young;
            old
        };
        // Closed outside the pool lock: closing a connection takes a moment.
        expired.len()
    }

    fn checkpoint(&self) -> Result<(), SqlError> {
        let mut conn = self.open_conn()?;
        let _scope = BusyScope::enter(self.options.busy_timeout, None, None);
        // Without a schema name the PRAGMA checkpoints every attached database too.
        conn.sync_databases()?;
        let (busy, log, done): (i64, i64, i64) = conn
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
            .map_err(|err| map_error(err, false))?;
        if busy != 0 {
            return Err(SqlError::new(
                &codes::LOCK_WAIT_TIMEOUT,
                format!("WAL checkpoint blocked by another connection ({done} of {log} frames)"),
            ));
        }
        Ok(())
    }
}

/// State shared between a connection, its SQL functions and its interrupter.
#[derive(Debug)]
struct Shared {
    connection_id: AtomicU64,
    /// Set by a kill; cleared when a statement ends, by a reset and by `Interrupt::clear`, never
    /// when a statement starts (see [`Interrupt`]).
    interrupted: AtomicBool,
    /// Whether the session this connection serves took a named lock (GET_LOCK) since its last
    /// reset: only then is the engine's registry asked whether it holds one.
    took_named_lock: AtomicBool,
}

use xrpc_engine::MAX_WARNINGS;

/// One SQLite connection with its MySQL-compatibility state.
pub struct SqliteConn {
    /// Column flags of tables read by this connection (see `origin`). Declared before `conn`
    /// so that it is dropped first: it holds prepared statements of `conn`, and a connection
    /// with a statement left unfinalized does not close.
    keys: origin::KeyCache<shape::ResultShape>,
    /// The vectors results are streamed through, reused.
    stream_buffers: shape::StreamBuffers,
    /// The last client statement, kept prepared for the next (see `kept`). Declared before
    /// `conn` for the same reason as `keys`, and because it borrows `conn`.
    kept: Option<kept::LastStatement>,
    conn: kept::OwnedConn,
    /// The engine's count of statements stepped: each statement of a translation as SQLite runs
    /// it (`translated`), each query answering a catalog statement (`run_query`) and each
    /// statement the engine runs for clients (`exec`: BEGIN, COMMIT, ROLLBACK, savepoints, the
    /// savepoints around DDL); the engine's reads of SQLite's catalog are not counted.
    stepped: Arc<xrpc_net::StripedCounters<1>>,
    opened_at: Instant,
    options: Arc<SqliteOptions>,
    shared: Arc<Shared>,
    interrupter: Arc<SqliteInterrupter>,
    wait_hook: Option<WaitHook>,
    /// `SET autocommit = 0` is in force.
    autocommit_off: bool,
    /// The last transaction opened is read-only (`START TRANSACTION READ ONLY`, or any but
    /// `START TRANSACTION READ WRITE` in a read-only session).
    read_only_transaction: Cell<bool>,
    /// `SET SESSION TRANSACTION READ ONLY` (or `tx_read_only = 1`) is in force: every
    /// transaction but `START TRANSACTION READ WRITE`'s is read-only, and so is every statement
    /// outside one (session state).
    session_read_only: bool,
    /// `SET sql_safe_updates = 1` is in force (session state).
    safe_updates: bool,
    /// `SET sql_select_limit = n` is in force (session state): a SELECT without a LIMIT of its
    /// own at the top returns at most n rows.
    select_limit: Option<u64>,
    /// `SET max_join_size = n` is in force (session state): a query that may examine more
    /// rows is refused (see `translated::bound_join_size`).
    max_join_size: Option<u64>,
    /// The open transaction was opened by a statement under `autocommit = 0`, not by BEGIN.
    implicit_transaction: Cell<bool>,
    /// The open transaction's savepoints as MySQL has them, oldest first: a name set again
    /// replaces the earlier one, where SQLite would keep both.
    savepoints: RefCell<Vec<String>>,
    /// Temp tables, views or triggers exist.
    has_temp: bool,
    /// A statement of the open transaction may have created or dropped a temporary table,
    /// which MySQL's ROLLBACK keeps as it is (see `keep_temporary_tables`).
    temp_ddl_in_transaction: bool,
    /// `SET FOREIGN_KEY_CHECKS = 0` is in force (session state).
    foreign_key_checks_off: bool,
    /// The session's `sql_mode` as MariaDB shows it, when a SET gave one (session state; see
    /// the `sql_mode` module).
    sql_mode: Option<String>,
    /// The session's `time_zone` as MariaDB shows it, when a SET gave one other than SYSTEM
    /// (the system's offset: see `sql_mode::time_zone`).
    time_zone: Option<String>,
    /// The session's isolation level as `@@tx_isolation` shows it, when a SET gave one other
    /// than REPEATABLE-READ. SQLite runs every level as it runs transactions (see
    /// docs/PROTOCOL.md, "The SQLite engine"); the level is kept to be read back.
    isolation: Option<&'static str>,
    /// `SET unique_checks = 0` is in force (session state). Unique keys are still checked, as
    /// InnoDB may check them too: the variable only allows skipping the check.
    unique_checks_off: bool,
    /// The databases the node attached to this connection (see `databases`).
    attached: Attached,
    /// The engine's databases.
    databases: Arc<Databases>,
    /// The engine's named locks, which this connection's session may hold.
    named_locks: Arc<named_locks::NamedLocks>,
    /// What the authorizer refuses client statements (see `authorizer`).
    guard: Arc<authorizer::Guard>,
    /// The session's current database (`USE` or a request's `schema_name`), handed in before
    /// each statement.
    session_schema: Option<String>,
    /// The schema of the connection's authentication data: the database of a session that has
    /// chosen none, handed in before each statement.
    default_schema: Option<String>,
    /// The statement's database, lower case ([`set_schema`](Self::set_schema)).
    schema: Arc<str>,
    /// A change of the session's current database by the last statement, for the session layer.
    schema_change: Option<Option<String>>,
    /// The catalog version `information_schema` was last rebuilt at (see `catalog`).
    catalog_built: Option<Vec<i64>>,
    /// The temporary table (its database and name) SHOW COLUMNS is describing, whose rows the
    /// catalog holds for that statement only (see `catalog`).
    describing_temporary: Option<(String, String)>,
    /// The translated views (database, name) with a column that is not a table column as
    /// declared, as of the last rebuild: MySQL describes such a column by a type the node does
    /// not derive (see `catalog`).
    undescribed_views: Vec<(String, String)>,
    /// A table has CHECK constraints, which `information_schema.TABLE_CONSTRAINTS` does not
    /// list (see `catalog`).
    unlisted_checks: bool,
    /// A table has CHECK constraints without the form MariaDB prints them in, which
    /// `information_schema.CHECK_CONSTRAINTS` cannot list (see `catalog`).
    unshown_checks: bool,
    /// The session's diagnostics while one of its statements runs (for `SHOW WARNINGS`):
    /// handed in and taken back by the session layer around every statement, so empty between
    /// them (see [`EngineConn::set_session_warnings`]).
    last_warnings: Vec<SqlWarning>,
    /// The notes of the translated statement running (`Translation::notes`), reported with
    /// its warnings when it succeeds.
    statement_notes: Vec<SqlWarning>,
    /// The warnings the running statement raised before it failed, for the session's
    /// diagnostics.
    failed_warnings: Vec<SqlWarning>,
    /// How this connection classified the statements it ran (see `memo`).
    texts: memo::TextMemo,
    /// The kept catalog and the translations of this connection (see `translated`).
    kept_catalog: translated::KeptCatalog,
    /// The session's user variables and the previous statement's counts, which the function
    /// library reads.
    session: xrpc_sql_sqlite::SessionState,
    /// The last query's FOUND_ROWS() came from its SQL_CALC_FOUND_ROWS count.
    counted: bool,
    /// A translated DDL statement changed kept definitions in the open transaction (or in the
    /// statement running): the engine-wide generation is bumped before every session
    /// statement the engine runs (COMMIT among them) and after every statement until the
    /// transaction is over (see `translated`, "Translations").
    definitions_pending: std::cell::Cell<bool>,
}

impl SqliteConn {
    fn open(
        path: &Path,
        options: Arc<SqliteOptions>,
        opened_at: Instant,
        databases: Arc<Databases>,
        stepped: Arc<xrpc_net::StripedCounters<1>>,
        named_locks: Arc<named_locks::NamedLocks>,
    ) -> Result<Self, SqlError> {
        let map = |err| map_error(err, false);
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(map)?;
        conn.busy_handler(Some(busy_handler)).map_err(map)?;
        conn.pragma_update(None, "synchronous", options.synchronous.name())
            .map_err(map)?;
        conn.pragma_update(None, "foreign_keys", options.foreign_keys)
            .map_err(map)?;
        if let Some(pages) = options.max_page_count {
            // The pragma answers with the limit in force, so it is a query, not an update.
            let _: i64 = conn
                .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |row| {
                    row.get(0)
                })
                .map_err(map)?;
        }
        if options.mmap_size > 0 {
            // Answers with the size in force, so a query; with no schema named it covers every
            // database, attached later ones too.
            let _: i64 = conn
                .query_row(
                    &format!("PRAGMA mmap_size = {}", options.mmap_size),
                    [],
                    |row| row.get(0),
                )
                .map_err(map)?;
        }
        conn.set_prepared_statement_cache_capacity(options.statement_cache_capacity);
        let shared = Arc::new(Shared {
            connection_id: AtomicU64::new(0),
            interrupted: AtomicBool::new(false),
            took_named_lock: AtomicBool::new(false),
        });
        // The interrupt flag is the kill's source of truth, and `sqlite3_interrupt` alone can miss:
        // SQLite forgets it when a statement starts with no other running. So the VM polls the
        // flag too (an atomic load every `PROGRESS_OPS` instructions).
        // The same callback writes the answers this worker deferred before the statement began
        // (`xrpc_net::turn`): a statement that runs long does not hold them back. It costs one
        // thread-local access when there are none.
        let flag = std::panic::AssertUnwindSafe(Arc::clone(&shared));
        conn.progress_handler(
            PROGRESS_OPS,
            Some(move || {
                xrpc_net::flush_deferred_sends();
                flag.interrupted.load(Ordering::Acquire)
            }),
        );
        let session = xrpc_sql_sqlite::SessionState::default();
        session.set_version(&options.server_version);
        xrpc_sql_sqlite::register(&conn, &session).map_err(map)?;
        register_named_locks(&conn, &shared, &named_locks).map_err(map)?;
        statistics::register(&conn).map_err(map)?;
        conn.create_collation(
            information::CI_NAME_COLLATION,
            information::compare_names_ci,
        )
        .map_err(map)?;
        conn.execute("ATTACH DATABASE ':memory:' AS information_schema", [])
            .map_err(map)?;
        conn.execute_batch(information::INFORMATION_SCHEMA_DDL)
            .map_err(map)?;
        let guard = Arc::new(authorizer::Guard::default());
        authorizer::install(&conn, &guard);
        let interrupter = Arc::new(SqliteInterrupter {
            handle: conn.get_interrupt_handle(),
            shared: Arc::clone(&shared),
        });
        Ok(Self {
            conn: kept::OwnedConn::new(conn),
            stepped,
            kept: None,
            schema: Arc::from("main"),
            opened_at,
            options,
            shared,
            interrupter,
            wait_hook: None,
            autocommit_off: false,
            read_only_transaction: Cell::new(false),
            session_read_only: false,
            implicit_transaction: Cell::new(false),
            select_limit: None,
            max_join_size: None,
            safe_updates: false,
            savepoints: RefCell::new(Vec::new()),
            has_temp: false,
            temp_ddl_in_transaction: false,
            foreign_key_checks_off: false,
            sql_mode: None,
            time_zone: None,
            isolation: None,
            unique_checks_off: false,
            attached: Attached::default(),
            databases,
            named_locks,
            guard,
            session_schema: None,
            default_schema: None,
            schema_change: None,
            catalog_built: None,
            describing_temporary: None,
            undescribed_views: Vec::new(),
            unlisted_checks: false,
            unshown_checks: false,
            keys: origin::KeyCache::default(),
            stream_buffers: shape::StreamBuffers::default(),
            last_warnings: Vec::new(),
            statement_notes: Vec::new(),
            failed_warnings: Vec::new(),
            texts: memo::TextMemo::default(),
            kept_catalog: translated::KeptCatalog::default(),
            session,
            counted: false,
            definitions_pending: std::cell::Cell::new(false),
        })
    }

    /// The underlying rusqlite connection (tests and diagnostics).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Whether `SET autocommit = 0` is in force.
    pub fn autocommit_off(&self) -> bool {
        self.autocommit_off
    }

    /// Whether SQLite has a transaction open.
    pub fn in_transaction(&self) -> bool {
        !self.conn.is_autocommit()
    }

    fn map(&self, err: rusqlite::Error) -> SqlError {
        self.guard
            .take_refusal()
            .unwrap_or_else(|| map_error(err, self.shared.interrupted.load(Ordering::Acquire)))
    }

    fn exec(&self, sql: &str) -> Result<(), SqlError> {
        if self.definitions_pending.get() {
            self.databases.definitions_changed();
        }
        self.stepped.add(0, 1);
        self.conn.execute_batch(sql).map_err(|err| self.map(err))
    }

    /// Opens a transaction, as BEGIN does (one `autocommit = 0` opens is marked so after).
    fn begin(&self, mode: BeginMode) -> Result<(), SqlError> {
        self.implicit_transaction.set(false);
        self.read_only_transaction.set(match mode {
            BeginMode::ReadOnly => true,
            BeginMode::ReadWrite => false,
            BeginMode::Default => self.session_read_only,
        });
        self.savepoints.borrow_mut().clear();
        self.exec(match mode {
            BeginMode::Default if self.options.begin_immediate => "BEGIN IMMEDIATE",
            BeginMode::Default | BeginMode::ReadOnly | BeginMode::ReadWrite => "BEGIN DEFERRED",
        })
    }

    /// Checks the statement's database (`schema_name`, else the session's current database,
    /// else the authentication schema, else `main`) and makes it what `database()` returns. A
    /// `schema_name` becomes the session's current database, as `USE` does.
    fn use_schema(&mut self, schema: Option<&str>) -> Result<(), SqlError> {
        let (name, switch) = match schema {
            None | Some("") => (
                self.session_schema
                    .as_deref()
                    .or(self.default_schema.as_deref())
                    .unwrap_or("main"),
                false,
            ),
            Some(name) => (name, true),
        };
        let known = name.eq_ignore_ascii_case("main")
            || name.eq_ignore_ascii_case("temp")
            || name.eq_ignore_ascii_case(catalog::INFORMATION_SCHEMA)
            || self
                .attached
                .names
                .iter()
                .any(|(a, _)| a.eq_ignore_ascii_case(name));
        if !known {
            return Err(SqlError::new(
                &codes::BAD_DB,
                format!("Unknown database '{name}'"),
            ));
        }
        if switch {
            let lower = name.to_ascii_lowercase();
            if !self.schema.eq_ignore_ascii_case(&lower) {
                self.set_schema(&lower);
            }
            self.session_schema = Some(lower.clone());
            self.schema_change = Some(Some(lower));
        } else if !self.schema.eq_ignore_ascii_case(name) {
            let name = name.to_ascii_lowercase();
            self.set_schema(&name);
        }
        Ok(())
    }

    /// Makes `name` (lower case) the statement's database.
    fn set_schema(&mut self, name: &str) {
        self.schema = Arc::from(name);
    }

    /// Attaches the databases created and detaches those dropped since this connection last
    /// looked (see `databases`); not inside a transaction, where SQLite can do neither.
    fn sync_databases(&mut self) -> Result<(), SqlError> {
        if self.attached.generation == self.databases.generation() || self.in_transaction() {
            return Ok(());
        }
        let (generation, wanted) = self.databases.snapshot();
        let stale: Vec<String> = self
            .attached
            .names
            .iter()
            .filter(|have| !wanted.contains(have))
            .map(|(name, _)| name.clone())
            .collect();
        for name in stale {
            self.conn
                .execute("DETACH DATABASE ?1", [&name])
                .map_err(|err| self.map(err))?;
            self.attached.names.retain(|(n, _)| *n != name);
        }
        for entry in wanted {
            if self.attached.names.contains(&entry) {
                continue;
            }
            let path = self.databases.path(&entry.0);
            let path = path.to_str().ok_or_else(|| {
                SqlError::new(
                    &codes::ENGINE_ERROR,
                    format!("the data directory's path is not UTF-8: {}", path.display()),
                )
            })?;
            self.conn
                .execute("ATTACH DATABASE ?1 AS ?2", [path, &entry.0])
                .map_err(|err| self.map(err))?;
            self.attached.names.push(entry);
        }
        self.attached.generation = generation;
        Ok(())
    }

    /// Re-reads whether temp objects exist. (Attached databases are the node's, not session
    /// state: clients cannot attach.)
    fn refresh_state(&mut self) {
        // The kept definitions of temporary tables, and SQLite's AUTOINCREMENT sequence, are
        // not the session's objects: they stay when its last temporary table is dropped.
        let temp: rusqlite::Result<bool> = self.conn.query_row(
            &format!(
                "SELECT EXISTS (SELECT 1 FROM temp.sqlite_master WHERE name <> '{}' \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\')",
                authorizer::CATALOG_TABLE
            ),
            [],
            |row| row.get(0),
        );
        // When in doubt, keep the connection with its session.
        self.has_temp = temp.unwrap_or(true);
    }

    /// Prepares, binds and runs a query the node wrote (the catalog statements' answers),
    /// streaming its rows with column types given by `hints`.
    fn run_query(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
        hints: &[shape::ColumnHint],
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let interrupted = || self.shared.interrupted.load(Ordering::Acquire);
        let map = |err| map_error(err, interrupted());
        // The authorizer checks what the statement does while it is compiled, and while it
        // runs (SQLite recompiles a statement whose schema changed).
        let guard = Arc::clone(&self.guard);
        let client = ClientSql::enter(&guard);
        let map = |err| guard.take_refusal().unwrap_or_else(|| map(err));
        // SAFETY: every statement prepared from `conn` here is dropped before the connection:
        // in this function, or kept in `self.kept`, which `SqliteConn` drops before `conn`.
        let conn = unsafe { self.conn.for_kept_statement() };
        // The last statement kept for the next one (see `kept`), else the cache's.
        let mut kept: Option<(String, CachedStatement<'static>)> = None;
        let mut cached: Option<CachedStatement<'static>> = None;
        let mut uncached: Option<Statement<'static>> = None;
        let stmt: &mut Statement<'static> = if sql.len() > CACHED_STATEMENT_MAX_LEN {
            uncached.insert(conn.prepare(sql).map_err(map)?)
        } else if self.options.statement_cache_capacity == 0 {
            cached.insert(conn.prepare_cached(sql).map_err(map)?)
        } else {
            let taken = kept::LastStatement::take(&mut self.kept, conn, sql).map_err(map)?;
            &mut kept.insert(taken).1
        };
        for (index, arg) in args.iter().enumerate() {
            stmt.raw_bind_parameter(index + 1, arg).map_err(map)?;
        }
        // A kill that came while preparing: SQLite forgets it when the statement starts.
        if interrupted() {
            return Err(SqlError::new(
                &codes::QUERY_INTERRUPTED,
                codes::QUERY_INTERRUPTED.message,
            ));
        }
        self.stepped.add(0, 1);
        let columns = Columns {
            hints,
            sql,
            guard: &guard,
            keys: &mut self.keys,
            conn: &self.conn,
            buffers: &mut self.stream_buffers,
        };
        stream(stmt, sink, &self.schema, columns, &map)?;
        // Kept for the next statement, back to the cache, or freed (all reset by now).
        if let Some((text, stmt)) = kept {
            kept::LastStatement::keep(&mut self.kept, text, stmt);
        }
        drop((cached, uncached));
        drop(client);
        Ok(ExecSummary {
            has_result_set: true,
            ..ExecSummary::default()
        })
    }

    /// Drops every temp trigger, view and table (SQLite's own `sqlite_sequence` cannot be
    /// dropped; it loses a table's row with the table).
    fn drop_temp_objects(&self) -> Result<(), SqlError> {
        let objects: Vec<(String, String)> = self
            .conn
            .prepare(
                "SELECT type, name FROM temp.sqlite_master WHERE type IN ('trigger', 'view', 'table') \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY CASE type WHEN 'trigger' THEN 0 WHEN 'view' THEN 1 ELSE 2 END",
            )
            .and_then(|mut stmt| {
                stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(|err| self.map(err))?;
        for (kind, name) in objects {
            let sql = format!(
                "DROP {} IF EXISTS temp.{}",
                kind.to_ascii_uppercase(),
                quote(&name)
            );
            self.exec(&sql)?;
        }
        Ok(())
    }
}

impl fmt::Debug for SqliteConn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteConn")
            .field("connection_id", &self.shared.connection_id)
            .field("in_transaction", &self.in_transaction())
            .field("autocommit_off", &self.autocommit_off)
            .field("has_temp", &self.has_temp)
            .field("attached", &self.attached)
            .field("wait_hook", &self.wait_hook.is_some())
            .finish()
    }
}

impl EngineConn for SqliteConn {
    fn describe_table(
        &mut self,
        schema: Option<&str>,
        table: &str,
    ) -> Result<xrpc_engine::shape::TableShape, SqlError> {
        // The node's own PRAGMAs: run uncached and outside the client check (see
        // `authorizer`), so a client can neither run them nor reuse their statements.
        let conn = &self.conn;
        let map = |err| map_error(err, false);
        let mut pragma_rows = |sql: &str| -> Result<Vec<Vec<Value>>, SqlError> {
            let mut stmt = conn.prepare(sql).map_err(map)?;
            let width = stmt.column_count();
            let mut rows = stmt.raw_query();
            let mut out = Vec::new();
            while let Some(row) = rows.next().map_err(map)? {
                let mut values = Vec::with_capacity(width);
                for index in 0..width {
                    values.push(match row.get_ref(index).map_err(map)? {
                        ValueRef::Null => Value::Null,
                        ValueRef::Integer(i) => Value::Sint(i),
                        ValueRef::Real(f) => Value::Double(f),
                        ValueRef::Text(t) | ValueRef::Blob(t) => {
                            Value::Bytes(bytes::Bytes::copy_from_slice(t))
                        }
                    });
                }
                out.push(values);
            }
            Ok(out)
        };
        let mut shape = xrpc_engine::shape::describe_sqlite(&mut pragma_rows, schema, table)?;
        if let Some(indexes) = self.kept_indexes(schema, table) {
            // SQLite's index names are per database ("table.name"); plans name MySQL's.
            shape.indexes = indexes;
        }
        Ok(shape)
    }

    fn opened_at(&self) -> Instant {
        self.opened_at
    }

    fn execute(
        &mut self,
        sql: &str,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        self.execute_with(sql, None, args, schema, sink)
    }

    fn execute_parsed(
        &mut self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        self.execute_with(sql, Some(script), args, schema, sink)
    }

    fn holds_session_state(&self) -> bool {
        self.in_transaction()
            || self.autocommit_off
            || self.has_temp
            || self.foreign_key_checks_off
            || self.sql_mode.is_some()
            || self.time_zone.is_some()
            || self.isolation.is_some()
            || self.session_read_only
            || self.select_limit.is_some()
            || self.max_join_size.is_some()
            || self.safe_updates
            || self.unique_checks_off
            || (self.shared.took_named_lock.load(Ordering::Relaxed)
                && self
                    .named_locks
                    .holds_any(self.shared.connection_id.load(Ordering::Relaxed)))
            || self.session.has_variables()
    }

    fn interrupter(&self) -> Arc<dyn Interrupt> {
        self.interrupter.clone()
    }

    fn set_connection_id(&mut self, id: u64) {
        if self.shared.connection_id.swap(id, Ordering::Relaxed) != id {
            // Another session's variables and counts are not this one's.
            self.session.forget();
            self.session.set_connection_id(id);
        }
    }

    fn reset(&mut self) -> Result<(), SqlError> {
        self.reset_state()
    }

    fn set_session_schema(&mut self, schema: Option<&str>) {
        if self.session_schema.as_deref() != schema {
            self.session_schema = schema.map(str::to_owned);
        }
        self.schema_change = None;
    }

    fn take_session_schema_change(&mut self) -> Option<Option<String>> {
        self.schema_change.take()
    }

    fn set_default_schema(&mut self, schema: Option<&str>) {
        if self.default_schema.as_deref() != schema {
            self.default_schema = schema.map(str::to_owned);
        }
    }

    fn set_session_warnings(&mut self, warnings: Vec<SqlWarning>) {
        self.last_warnings = warnings;
    }

    fn take_session_warnings(&mut self) -> Vec<SqlWarning> {
        std::mem::take(&mut self.last_warnings)
    }

    fn set_wait_hook(&mut self, hook: Option<WaitHook>) {
        self.set_hook(hook);
    }
}

/// Whether `sql` is a query without a LIMIT of its own at the top, which `sql_select_limit`
/// cuts (asked only while one is set).
fn is_unlimited_query(sql: &str, script: Option<&xrpc_sql::Script>) -> bool {
    let parsed_here;
    let script = match script {
        Some(script) => script,
        None => {
            parsed_here = xrpc_sql::parse_cached(sql, &front::OPTIONS);
            &parsed_here
        }
    };
    matches!(
        script.first().and_then(|p| p.as_ref().ok()).and_then(|p| p.statement()),
        Some(xrpc_sql::ast::Statement::Query(query)) if query.limit_clause.is_none()
    )
}

impl SqliteConn {
    /// [`EngineConn::execute`], with the front end's parse of `sql` when the caller has it.
    fn execute_with(
        &mut self,
        sql: &str,
        script: Option<&xrpc_sql::Script>,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        self.failed_warnings.clear();
        // Never cleared here: a kill that came before the statement started is for it (see
        // `Interrupt`).
        let result = if self.shared.interrupted.load(Ordering::Acquire) {
            Err(SqlError::new(
                &codes::QUERY_INTERRUPTED,
                codes::QUERY_INTERRUPTED.message,
            ))
        } else if self.commit_fails(sql) {
            // Fail point `xrpc_engine_commit` (feature `failpoints`): COMMIT fails as a commit
            // that cannot write does, and the transaction is rolled back.
            self.exec("ROLLBACK")?;
            Err(SqlError::new(
                &codes::ENGINE_ERROR,
                "fail point xrpc_engine_commit: the transaction was rolled back",
            ))
        } else {
            let mut counting = translated::CountingSink {
                inner: sink,
                rows: 0,
                limit: self
                    .select_limit
                    .filter(|_| is_unlimited_query(sql, script)),
                cut: false,
            };
            let result = self.execute_statement(sql, script, args, schema, &mut counting);
            let (rows, cut) = (counting.rows, counting.cut);
            self.report_counts(&result, rows, cut);
            result
        };
        // The statement is over: a kill that came during it was for it.
        self.shared.interrupted.store(false, Ordering::Release);
        self.publish_definitions();
        if let Err(err) = &result {
            // MySQL's diagnostics after a failed statement: the warnings it raised before
            // failing, then its error (`SHOW WARNINGS`, `SHOW ERRORS`, `@@error_count`).
            let mut diagnostics = std::mem::take(&mut self.failed_warnings);
            diagnostics.truncate(MAX_WARNINGS - 1);
            diagnostics.push(SqlWarning {
                level: xrpc_engine::result::WarningLevel::Error,
                code: err.code,
                message: err.message.clone(),
            });
            self.last_warnings = diagnostics;
        }
        result
    }

    /// After a statement: a change of kept definitions that is committed (or rolled back) is
    /// announced once more, for translations made while it was committing.
    fn publish_definitions(&self) {
        if self.definitions_pending.get() {
            self.databases.definitions_changed();
            if !self.in_transaction() {
                self.definitions_pending.set(false);
            }
        }
    }

    /// Whether the fail point `xrpc_engine_commit` fails `sql`, a COMMIT of an open transaction.
    #[cfg_attr(not(feature = "failpoints"), allow(unused_variables))]
    fn commit_fails(&self, sql: &str) -> bool {
        fail::fail_point!("xrpc_engine_commit", |_| {
            let script = xrpc_sql::parse_cached(sql, &front::OPTIONS);
            let commit = front::single(&script)
                .and_then(front::request)
                .is_ok_and(|request| request == Request::Commit);
            self.in_transaction() && commit
        });
        false
    }

    /// Runs one statement; [`EngineConn::execute`] without the interrupt flag's bookkeeping.
    fn execute_statement(
        &mut self,
        sql: &str,
        script: Option<&xrpc_sql::Script>,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        // The wait hook is lent to the scope for the statement and handed back after it.
        let scope = BusyScope::enter(
            self.options.busy_timeout,
            self.wait_hook.take(),
            Some(&self.shared),
        );
        let result = self.execute_in_scope(sql, script, args, schema, sink);
        self.wait_hook = scope.finish();
        result
    }

    /// [`execute_statement`](Self::execute_statement) inside its busy scope.
    fn execute_in_scope(
        &mut self,
        sql: &str,
        given: Option<&xrpc_sql::Script>,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        // The text is parsed once for the whole node (the parse cache), unless the caller did.
        let parsed_here;
        let script: &xrpc_sql::Script = match given {
            Some(given) => given,
            None => {
                parsed_here = xrpc_sql::parse_cached(sql, &front::OPTIONS);
                &parsed_here
            }
        };
        let parsed = front::single(script)?;
        // A text kept by the memo was classified before as a statement the translation runs
        // (`catalog::of` left it alone); any other is classified here.
        let known = self.texts.sql_info(sql);
        let (request, mysql) = match known {
            Some(info) => (Request::Sql(info), None),
            None => {
                let request = front::request(parsed)?;
                if let (Request::Sql(_), Some(statement)) = (&request, parsed.statement()) {
                    arity::check(statement)?;
                }
                let mysql = match request {
                    // The statements the translation runs that the catalog would refuse.
                    Request::Sql(_) if parsed.statement().is_some_and(translated::runs_itself) => {
                        None
                    }
                    Request::Sql(_) | Request::Catalog => catalog::of(parsed),
                    Request::Use(ref name) => Some(Ok(catalog::Stmt::Use(name.clone()))),
                    _ => None,
                };
                (request, mysql)
            }
        };
        // MySQL clears the diagnostics at the start of every statement but the diagnostic
        // ones (SHOW WARNINGS and ERRORS, their COUNT(*), SELECT @@warning_count), whatever
        // the statement's outcome; one with warnings leaves them (`run_translated`).
        if !matches!(&mysql, Some(Ok(stmt)) if stmt.is_diagnostic()) {
            self.last_warnings.clear();
        }
        self.sync_databases()?;
        self.use_schema(schema)?;
        if let Some(stmt) = mysql {
            return self.run_mysql(stmt?, sink);
        }
        let Request::Sql(info) = request else {
            if let Request::Set(_) = request
                && let Some(xrpc_sql::Session::Set(assignments)) =
                    parsed.statement().and_then(xrpc_sql::Session::of)
            {
                self.set_user_variables(&assignments)?;
            }
            return self.run_request(request);
        };
        if known.is_none() {
            self.texts.keep_sql_info(sql, info);
        }
        self.open_transaction_for(info)?;
        let reads = info.catalog.in_database(&self.schema);
        if reads.any {
            // Its rows are rebuilt for the statements that name it; a view's readers do not.
            if matches!(
                parsed.statement(),
                Some(
                    xrpc_sql::ast::Statement::CreateView(_)
                        | xrpc_sql::ast::Statement::AlterView { .. }
                )
            ) {
                return Err(SqlError::new(
                    &codes::NOT_SUPPORTED_YET,
                    "This version of MySQL doesn't yet support 'a view of information_schema'",
                ));
            }
            self.refresh_catalog()?;
            self.refuse_undescribed_views(reads)?;
        }
        self.run_translated(sql, parsed, args, info, sink)
    }

    /// Makes the transaction state what MySQL has when a statement starts: a statement that
    /// commits implicitly ends the open transaction and runs outside one, as MySQL commits
    /// after it too; any other opens one when autocommit is off.
    fn open_transaction_for(&mut self, info: SqlInfo) -> Result<(), SqlError> {
        let read_only = if self.in_transaction() {
            self.read_only_transaction.get()
        } else {
            self.session_read_only
        };
        // A read-only session refuses DDL too, temporary tables' included (MariaDB's check is
        // by statement, before the implicit commit).
        if (read_only && (info.modifies_rows || info.locks_for_update))
            || (self.session_read_only && (info.state_change || info.implicit_commit))
        {
            return Err(SqlError::new(
                &codes::READ_ONLY_TRANSACTION,
                "Cannot execute statement in a READ ONLY transaction",
            ));
        }
        if info.implicit_commit {
            if self.in_transaction() {
                self.exec("COMMIT")?;
            }
        } else if self.autocommit_off && !self.in_transaction() {
            self.begin(BeginMode::Default)?;
            self.implicit_transaction.set(true);
        }
        self.session.set_in_transaction(if !self.in_transaction() {
            Some(false)
        } else if self.implicit_transaction.get() {
            None
        } else {
            Some(true)
        });
        Ok(())
    }

    /// The auto-increment counters of the node's databases (`main` and the attached ones):
    /// (database, table, last value). Temporary tables' are left out.
    fn sequences(&self) -> Vec<(String, String, i64)> {
        let mut found = Vec::new();
        let schemas =
            std::iter::once("main").chain(self.attached.names.iter().map(|(n, _)| n.as_str()));
        for schema in schemas {
            let read = self
                .conn
                .prepare(&format!(
                    "SELECT name, seq FROM {}.sqlite_sequence",
                    quote(schema)
                ))
                .and_then(|mut stmt| {
                    stmt.query_map([], |row| Ok((schema.to_owned(), row.get(0)?, row.get(1)?)))?
                        .collect::<Result<Vec<_>, _>>()
                });
            // A database without AUTO_INCREMENT tables has no sqlite_sequence.
            found.extend(read.unwrap_or_default());
        }
        found
    }

    /// Puts back the counters a rollback took back (`before`, from [`Self::sequences`]): InnoDB
    /// never hands out an auto-increment value twice, whatever was rolled back. Writes only
    /// when a counter went back.
    fn keep_sequences(&self, before: &[(String, String, i64)]) -> Result<(), SqlError> {
        let now = self.sequences();
        for (schema, table, seq) in before {
            let current = now
                .iter()
                .find(|(s, t, _)| s == schema && t == table)
                .map(|(_, _, v)| *v);
            if current.is_some_and(|v| v >= *seq) {
                continue;
            }
            let keep = xrpc_sql_sqlite::Reservation {
                schema: schema.clone(),
                table: table.clone(),
                rows: 0,
                renumber_column: None,
                limit: None,
            };
            self.exec(&keep.sql(*seq))?;
        }
        Ok(())
    }

    /// The temporary tables' schema objects (type, name, table, SQL; tables first) and kept
    /// definitions (name, definition), for [`Self::keep_temporary_tables`].
    fn temporary_tables(&self) -> TemporaryTables {
        let objects = self
            .conn
            .prepare(
                "SELECT type, name, tbl_name, sql FROM temp.sqlite_master \
                 WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
                 ORDER BY type <> 'table', rowid",
            )
            .and_then(|mut stmt| {
                stmt.query_map([], |row| {
                    Ok(TempObject {
                        kind: row.get(0)?,
                        name: row.get(1)?,
                        table: row.get(2)?,
                        sql: row.get(3)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()
            })
            .unwrap_or_default();
        let kept = self
            .conn
            .prepare(&format!(
                "SELECT name, definition FROM temp.{}",
                quote(authorizer::CATALOG_TABLE)
            ))
            .and_then(|mut stmt| {
                stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<Result<Vec<_>, _>>()
            })
            // No temporary table was ever made on this connection.
            .unwrap_or_default();
        TemporaryTables { objects, kept }
    }

    /// Puts back the temporary tables a rollback took back (`before`, from
    /// [`Self::temporary_tables`]): MySQL neither undoes CREATE TEMPORARY TABLE nor DROP
    /// TEMPORARY TABLE, which commit nothing, when the transaction around them rolls back
    /// (their rows it does undo). A table created in the rolled-back part is made again, empty,
    /// with its indexes, triggers and kept definition; one dropped there is dropped again.
    fn keep_temporary_tables(&mut self, before: &TemporaryTables) -> Result<(), SqlError> {
        let now = self.temporary_tables();
        let tables = |state: &TemporaryTables| -> Vec<String> {
            state
                .objects
                .iter()
                .filter(|o| o.kind == "table")
                .map(|o| o.name.clone())
                .collect()
        };
        let (was, is) = (tables(before), tables(&now));
        for object in &before.objects {
            if is.contains(&object.table) {
                continue;
            }
            // SQLite keeps a temporary table's SQL without TEMP; an index or trigger goes to
            // its table's schema by itself.
            let sql = match object.sql.strip_prefix("CREATE TABLE ") {
                Some(rest) => format!("CREATE TEMP TABLE {rest}"),
                None => object.sql.clone(),
            };
            self.exec(&sql)?;
        }
        for (name, definition) in &before.kept {
            if !now.kept.iter().any(|(n, _)| n == name) {
                self.conn
                    .execute(
                        &format!(
                            "INSERT INTO temp.{} (name, definition) VALUES (?1, ?2)",
                            quote(authorizer::CATALOG_TABLE)
                        ),
                        rusqlite::params![name, definition],
                    )
                    .map_err(|err| map_error(err, false))?;
            }
        }
        for name in is.iter().filter(|n| !was.contains(n)) {
            if name == authorizer::CATALOG_TABLE {
                continue;
            }
            self.exec(&format!("DROP TABLE temp.{}", quote(name)))?;
            self.conn
                .execute(
                    &format!(
                        "DELETE FROM temp.{} WHERE name = lower(?1)",
                        quote(authorizer::CATALOG_TABLE)
                    ),
                    [name],
                )
                .map_err(|err| map_error(err, false))?;
        }
        self.refresh_state();
        Ok(())
    }

    /// Runs a session statement (all [`Request`]s but [`Request::Sql`], [`Request::Use`] and
    /// [`Request::Catalog`], which `execute_in_scope` runs).
    fn run_request(&mut self, request: Request) -> Result<ExecSummary, SqlError> {
        let done = ExecSummary::default();
        match request {
            Request::Begin(mode) => {
                if self.in_transaction() {
                    self.exec("COMMIT")?;
                }
                self.begin(mode)?;
            }
            Request::Commit => {
                if self.in_transaction() {
                    self.exec("COMMIT")?;
                }
                self.temp_ddl_in_transaction = false;
            }
            Request::Rollback => {
                self.kept_catalog.forget();
                if self.in_transaction() {
                    let sequences = self.sequences();
                    let temporary = self
                        .temp_ddl_in_transaction
                        .then(|| self.temporary_tables());
                    self.exec("ROLLBACK")?;
                    self.keep_sequences(&sequences)?;
                    if let Some(before) = temporary {
                        self.keep_temporary_tables(&before)?;
                    }
                }
                self.temp_ddl_in_transaction = false;
            }
            Request::Savepoint { sql, name, op } => {
                self.kept_catalog.forget();
                if self.autocommit_off && !self.in_transaction() {
                    self.begin(BeginMode::Default)?;
                    self.implicit_transaction.set(true);
                }
                let missing = || {
                    SqlError::new(
                        &codes::SP_DOES_NOT_EXIST,
                        format!("SAVEPOINT {name} does not exist"),
                    )
                };
                // Outside a transaction MySQL's savepoint ends with its statement, where SQLite's
                // would open a transaction that lasts until its RELEASE.
                if !self.in_transaction() {
                    return match op {
                        SavepointOp::Set => Ok(done),
                        SavepointOp::RollbackTo | SavepointOp::Release => Err(missing()),
                    };
                }
                {
                    let mut savepoints = self.savepoints.borrow_mut();
                    let at = savepoints
                        .iter()
                        .position(|s| s.eq_ignore_ascii_case(&name));
                    match (op, at) {
                        (SavepointOp::Set, _) => {
                            savepoints.retain(|s| !s.eq_ignore_ascii_case(&name));
                            savepoints.push(name.clone());
                        }
                        (_, None) => return Err(missing()),
                        // ROLLBACK TO keeps the savepoint, RELEASE drops it; both drop the later
                        // ones.
                        (SavepointOp::RollbackTo, Some(at)) => savepoints.truncate(at + 1),
                        (SavepointOp::Release, Some(at)) => savepoints.truncate(at),
                    }
                }
                let sequences = (op == SavepointOp::RollbackTo).then(|| self.sequences());
                let temporary = (op == SavepointOp::RollbackTo && self.temp_ddl_in_transaction)
                    .then(|| self.temporary_tables());
                self.exec(&sql)?;
                if let Some(sequences) = sequences {
                    self.keep_sequences(&sequences)?;
                }
                if let Some(before) = temporary {
                    self.keep_temporary_tables(&before)?;
                }
            }
            Request::Set(front::SessionSet {
                autocommit,
                foreign_key_checks,
                sql_mode,
                time_zone,
                isolation,
                unique_checks,
                read_only,
                next_read_write,
                select_limit,
                max_join_size,
                safe_updates,
                checks,
            }) => {
                if next_read_write && self.session_read_only {
                    return Err(SqlError::new(
                        &codes::NOT_SUPPORTED_YET,
                        "This version doesn't yet support 'SET TRANSACTION READ WRITE' for the \
                         next transaction of a read-only session on the SQLite engine; START \
                         TRANSACTION READ WRITE opens one",
                    ));
                }
                for check in checks {
                    self.check_user_value(&check)?;
                }
                if let Some(setting) = foreign_key_checks {
                    self.set_foreign_key_checks(setting)?;
                }
                if let Some(setting) = sql_mode {
                    let mode = self.text_setting(setting, "sql_mode", sql_mode::normalize)?;
                    self.sql_mode = (mode != sql_mode::DEFAULT).then_some(mode);
                    // Translations kept so far read @@sql_mode as it was.
                    self.kept_catalog.forget();
                }
                if let Some(setting) = time_zone {
                    let zone = self.text_setting(setting, "time_zone", sql_mode::time_zone)?;
                    self.time_zone = (zone != "SYSTEM").then_some(zone);
                    self.kept_catalog.forget();
                }
                if let Some(level) = isolation {
                    self.isolation = (level != "REPEATABLE-READ").then_some(level);
                    self.kept_catalog.forget();
                }
                if let Some(setting) = unique_checks {
                    self.unique_checks_off = !self.boolean_setting(setting, "unique_checks")?;
                    self.kept_catalog.forget();
                }
                if let Some(read_only) = read_only {
                    self.session_read_only = read_only;
                    self.kept_catalog.forget();
                }
                if let Some(on) = safe_updates {
                    self.safe_updates = on;
                    self.kept_catalog.forget();
                }
                if let Some(limit) = select_limit {
                    self.select_limit = limit;
                    self.kept_catalog.forget();
                }
                if let Some(limit) = max_join_size {
                    self.max_join_size = limit;
                    self.kept_catalog.forget();
                }
                if let Some(on) = autocommit {
                    if on && self.autocommit_off && self.in_transaction() {
                        self.exec("COMMIT")?;
                    }
                    self.set_autocommit(on);
                }
            }
            Request::Sql(_) | Request::Use(_) | Request::Catalog => {
                unreachable!("execute_in_scope runs SQL, USE, XA and the catalog's itself")
            }
        }
        Ok(done)
    }

    /// `SET FOREIGN_KEY_CHECKS`: SQLite's `PRAGMA foreign_keys` for this connection, session
    /// state while off. SQLite ignores the pragma inside a transaction, so a change there is
    /// refused rather than left without effect.
    fn set_foreign_key_checks(&mut self, setting: front::Setting) -> Result<(), SqlError> {
        let on = self.boolean_setting(setting, "foreign_key_checks")?;
        if on != self.foreign_key_checks_off {
            return Ok(());
        }
        if self.in_transaction() {
            return Err(SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                "This version of MySQL doesn't yet support 'SET FOREIGN_KEY_CHECKS inside a \
                 transaction' on the SQLite engine",
            ));
        }
        let enforce = on && self.options.foreign_keys;
        self.conn
            .execute_batch(if enforce {
                "PRAGMA foreign_keys = ON"
            } else {
                "PRAGMA foreign_keys = OFF"
            })
            .map_err(|err| self.map(err))?;
        self.foreign_key_checks_off = !on;
        // Translations kept so far read @@foreign_key_checks as it was.
        self.kept_catalog.forget();
        Ok(())
    }

    /// The value a boolean session variable `variable` is set to: the literal's, or the user
    /// variable's as MySQL reads it (1, 0, ON, OFF), else MySQL's 1231.
    fn boolean_setting(&self, setting: front::Setting, variable: &str) -> Result<bool, SqlError> {
        use rusqlite::types::Value as V;
        let name = match setting {
            front::Setting::Value(on) => return Ok(on),
            front::Setting::Variable(name) => name,
        };
        match self.session.get(&name) {
            V::Integer(1) => Ok(true),
            V::Integer(0) => Ok(false),
            V::Text(t) if t.eq_ignore_ascii_case("on") || t == "1" => Ok(true),
            V::Text(t) if t.eq_ignore_ascii_case("off") || t == "0" => Ok(false),
            other => {
                let shown = user_value_text(other);
                Err(SqlError::new(
                    &codes::WRONG_VALUE_FOR_VAR,
                    format!("Variable '{variable}' can't be set to the value of '{shown}'"),
                ))
            }
        }
    }

    /// `SET name = @user` of a variable accepted at some values only: the user variable's
    /// value must be one of them (1235 otherwise, as for a literal).
    fn check_user_value(&self, check: &front::ValueCheck) -> Result<(), SqlError> {
        let value = user_value_text(self.session.get(&check.user_variable));
        if variables::accepts(check.allowed, &value) {
            return Ok(());
        }
        Err(SqlError::new(
            &codes::NOT_SUPPORTED_YET,
            format!(
                "This version doesn't yet support 'SET {} = @{}' (the value '{value}') on the \
                 SQLite engine",
                check.variable, check.user_variable
            ),
        ))
    }

    /// `SET autocommit`: kept here and in the session state the function library reads
    /// `@@autocommit` from when a statement runs (it changes too often to be part of kept
    /// translations, which would then be made again after every change).
    fn set_autocommit(&mut self, on: bool) {
        self.autocommit_off = !on;
        self.session.set_autocommit(on);
    }

    /// The new value of `SET name = setting` (`sql_mode` or `time_zone`) as MariaDB shows it,
    /// checked by `check`; DEFAULT is the default's. A value that is not a literal is
    /// evaluated as `SELECT value` would be.
    fn text_setting(
        &mut self,
        setting: front::TextSetting,
        name: &str,
        check: fn(&str) -> Result<String, SqlError>,
    ) -> Result<String, SqlError> {
        use rusqlite::types::Value as V;
        let expr = match setting {
            front::TextSetting::Default => {
                return check(if name == "sql_mode" {
                    sql_mode::DEFAULT
                } else {
                    "SYSTEM"
                });
            }
            front::TextSetting::Mode(value) => return Ok(value),
            front::TextSetting::Expr(expr) => expr,
        };
        let what = format!("SET {name} = {expr}");
        match self.evaluate(&expr, &what)? {
            V::Text(t) => check(&t),
            V::Integer(n) => check(&n.to_string()),
            V::Blob(b) => check(&String::from_utf8_lossy(&b)),
            V::Null => check("NULL"),
            V::Real(r) => check(&r.to_string()),
        }
    }

    /// Rolls back and drops session state; [`EngineConn::reset`].
    fn reset_state(&mut self) -> Result<(), SqlError> {
        // A reset is not a statement anyone can kill: a leftover flag must not stop its ROLLBACK.
        self.shared.interrupted.store(false, Ordering::Release);
        let _scope = BusyScope::enter(self.options.busy_timeout, None, Some(&self.shared));
        if self.in_transaction() {
            self.exec("ROLLBACK")?;
        }
        self.set_autocommit(true);
        self.sql_mode = None;
        self.time_zone = None;
        self.isolation = None;
        self.session_read_only = false;
        self.select_limit = None;
        self.max_join_size = None;
        self.safe_updates = false;
        self.unique_checks_off = false;
        self.session_schema = None;
        self.session.forget();
        self.kept_catalog.forget();
        if self.shared.took_named_lock.swap(false, Ordering::Relaxed) {
            self.named_locks
                .release_all(self.shared.connection_id.load(Ordering::Relaxed));
        }
        self.drop_temp_objects()?;
        if self.foreign_key_checks_off {
            self.set_foreign_key_checks(front::Setting::Value(true))?;
        }
        self.refresh_state();
        self.publish_definitions();
        if self.holds_session_state() {
            return Err(SqlError::new(
                &codes::ENGINE_ERROR,
                "the connection still holds session state after a reset",
            ));
        }
        Ok(())
    }

    fn set_hook(&mut self, hook: Option<WaitHook>) {
        self.wait_hook = hook;
    }
}

/// What a result's metadata is made of besides the statement: the query's hints, column
/// origins and the flags of their tables.
struct Columns<'a> {
    hints: &'a [shape::ColumnHint],
    /// The statement's text, by which its column origins are found and cached.
    sql: &'a str,
    /// The client check, lifted while the origins' PRAGMAs run.
    guard: &'a authorizer::Guard,
    keys: &'a mut origin::KeyCache<shape::ResultShape>,
    conn: &'a Connection,
    buffers: &'a mut shape::StreamBuffers,
}

/// Streams a query's rows into the sink: reads ahead as the column types need, sends the
/// metadata, then every row. The metadata and conversions come from the shape kept for the
/// statement when it still fits (see `shape`).
///
/// The first row is stepped before anything else: a statement that fails there answers with
/// its error alone, and a statement prepared before a schema change (rusqlite's cache keeps
/// them) is prepared again by SQLite at its first step, so only then are its columns, their
/// names and declared types, current. Read before, they were the old table's.
fn stream(
    stmt: &mut Statement<'_>,
    sink: &mut dyn ResultSink,
    schema: &str,
    columns: Columns<'_>,
    map: &dyn Fn(rusqlite::Error) -> SqlError,
) -> Result<(), SqlError> {
    let Columns {
        hints,
        guard,
        keys,
        conn,
        sql,
        buffers,
    } = columns;
    // The shape kept for the statement, if it still fits its columns, else a new basis.
    let mut find_shape = |statement: &Statement<'_>| {
        let sqlite_columns = statement.columns();
        let width = sqlite_columns.len();
        let lookup = |keys: &mut origin::KeyCache<shape::ResultShape>| {
            guard.as_node(|| keys.lookup_with_shape(conn, sql, width))
        };
        let (mut decoration, mut kept) = lookup(keys);
        if kept
            .as_ref()
            .is_some_and(|shape| !shape.basis().matches(&sqlite_columns, hints, schema))
        {
            // The same text has other columns now (a view declared anew, in a database whose
            // `schema_version` the decoration does not read): their origins may differ too.
            keys.forget(sql);
            (decoration, kept) = lookup(keys);
        }
        let kept = kept.filter(|shape| shape.basis().matches(&sqlite_columns, hints, schema));
        let basis = match &kept {
            Some(shape) => Arc::clone(shape.basis()),
            None => Arc::new(shape::ShapeBasis::new(&sqlite_columns, hints, schema)),
        };
        (decoration, kept, basis)
    };
    let mut rows = stmt.raw_query();
    let Some(first_row) = rows.next().map_err(map)? else {
        // No row: the statement is reset, and as current as a stepped one.
        drop(rows);
        let (decoration, kept, basis) = find_shape(stmt);
        let shape = settle_shape(keys, sql, &decoration, kept, basis, &[], true);
        sink.metadata_kept(&shape.infos, &shape.encoded)?;
        return Ok(());
    };
    let (decoration, kept, basis) = find_shape(first_row.as_ref());
    let width = basis.width();
    // With a column typed from its values, up to LOOKAHEAD_ROWS rows (or LOOKAHEAD_BYTES) are
    // read ahead into `window`, each row's values one after another; without one, the first
    // row is sent straight from SQLite's memory.
    let (mut window, mut out) = buffers.take();
    let mut ended = false;
    let first = if basis.reads_ahead() {
        let mut window_bytes = 0;
        let mut row = first_row;
        loop {
            for index in 0..width {
                let value = SqlValue::from(row.get_ref(index).map_err(map)?);
                window_bytes += match &value {
                    SqlValue::Text(s) => s.len(),
                    SqlValue::Blob(b) => b.len(),
                    _ => 8,
                };
                window.push(value);
            }
            if window.len() >= LOOKAHEAD_ROWS * width || window_bytes >= LOOKAHEAD_BYTES {
                break;
            }
            match rows.next().map_err(map)? {
                Some(next) => row = next,
                None => {
                    ended = true;
                    break;
                }
            }
        }
        None
    } else {
        Some(first_row)
    };
    let shape = settle_shape(keys, sql, &decoration, kept, basis, &window, ended);
    sink.metadata_kept(&shape.infos, &shape.encoded)?;
    let (infos, convs) = (&shape.infos, &shape.convs);
    let convert = |index: usize, row: u64, value: ValueRef<'_>| {
        types::convert(convs[index], value)
            .map_err(|_| does_not_fit(&infos[index], convs[index], row, value))
    };
    // A row SQLite still holds (the first one without a read-ahead, or any after the window).
    let convert_stepped = |out: &mut Vec<_>, row_number: u64, row: &rusqlite::Row<'_>| {
        out.clear();
        for index in 0..width {
            out.push(convert(
                index,
                row_number,
                row.get_ref(index).map_err(map)?,
            )?);
        }
        Ok::<(), SqlError>(())
    };
    let mut row_number = 0;
    if let Some(row) = first {
        row_number += 1;
        convert_stepped(&mut out, row_number, row)?;
        sink.row(&out)?;
    }
    for values in window.chunks_exact(width.max(1)) {
        row_number += 1;
        out.clear();
        for (index, value) in values.iter().enumerate() {
            out.push(convert(index, row_number, value.into())?);
        }
        sink.row(&out)?;
    }
    window.clear();
    if !ended {
        while let Some(row) = rows.next().map_err(map)? {
            row_number += 1;
            convert_stepped(&mut out, row_number, row)?;
            sink.row(&out)?;
        }
    }
    buffers.give_back(window, out);
    Ok(())
}

/// The kept shape if it fits this read-ahead (`window`; `ended`: the result ended within it),
/// else a shape planned on `basis` and kept for the next run of `sql`.
fn settle_shape(
    keys: &mut origin::KeyCache<shape::ResultShape>,
    sql: &str,
    decoration: &Arc<origin::Decoration>,
    kept: Option<Arc<shape::ResultShape>>,
    basis: Arc<shape::ShapeBasis>,
    window: &[SqlValue],
    ended: bool,
) -> Arc<shape::ResultShape> {
    if let Some(shape) = kept.filter(|shape| shape.fits(window, ended)) {
        return shape;
    }
    let shape = Arc::new(shape::ResultShape::plan(basis, window, ended, decoration));
    keys.keep_shape(sql, decoration, Arc::clone(&shape));
    shape
}

/// The error that ends a result when a stored value does not fit the type its column was sent
/// with (a table written before it had strict checks, or an expression whose later rows change
/// type): 1366, naming the value, the column, the row and the type.
fn does_not_fit(column: &ColumnInfo, conv: Conv, row: u64, value: ValueRef<'_>) -> SqlError {
    let noun = match conv {
        Conv::Declared(kind) => kind.value_noun(),
        Conv::Sint => "integer",
        Conv::Double => "double",
        Conv::Bytes => "string",
    };
    SqlError::new(
        &codes::INCORRECT_VALUE,
        format!(
            "Incorrect {noun} value: '{}' stored in column '{}' at row {row}: it does not fit the \
             column's type {} (MySQL type {}), so the result ends here",
            Shown(value),
            column.name,
            column.x_type,
            column.mysql_type
        ),
    )
}

impl Drop for SqliteConn {
    fn drop(&mut self) {
        // A connection closed with its session (not reset) still lets the session's locks go.
        if self.shared.took_named_lock.load(Ordering::Relaxed) {
            self.named_locks
                .release_all(self.shared.connection_id.load(Ordering::Relaxed));
        }
    }
}

/// The temporary tables of a connection at one moment (see `keep_temporary_tables`).
struct TemporaryTables {
    objects: Vec<TempObject>,
    kept: Vec<(String, String)>,
}

/// One object of SQLite's `temp` schema.
struct TempObject {
    kind: String,
    name: String,
    table: String,
    sql: String,
}

/// `my_get_lock(name, timeout)`, `my_release_lock(name)`, `my_is_free_lock(name)`,
/// `my_is_used_lock(name)` and `my_release_all_locks()`: MySQL's named-lock functions over the
/// engine's registry, for the session the connection serves (see `named_locks`).
fn register_named_locks(
    conn: &Connection,
    shared: &Arc<Shared>,
    locks: &Arc<named_locks::NamedLocks>,
) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8;
    // A NULL or empty name is NULL, as in MariaDB.
    let name_of = |ctx: &rusqlite::functions::Context<'_>| -> rusqlite::Result<Option<String>> {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            ValueRef::Integer(i) => Some(i.to_string()),
            ValueRef::Real(f) => Some(f.to_string()),
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        }
        .filter(|name| !name.is_empty()))
    };
    let (s, l) = (Arc::clone(shared), Arc::clone(locks));
    conn.create_scalar_function("my_get_lock", 2, flags, move |ctx| {
        let Some(name) = name_of(ctx)? else {
            return Ok(None);
        };
        let seconds = match ctx.get_raw(1) {
            ValueRef::Null => None,
            ValueRef::Integer(i) => Some(i as f64),
            ValueRef::Real(f) => Some(f),
            ValueRef::Text(t) | ValueRef::Blob(t) => {
                Some(double_prefix(&String::from_utf8_lossy(t)))
            }
        };
        // MariaDB: a timeout of -1 or less (or NULL) is NULL with warning 1411; a fraction
        // above -1 waits no time.
        let timeout = match seconds {
            Some(s) if s > -1.0 => Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX),
            other => {
                let shown = other.map_or_else(|| "NULL".to_owned(), |s| format!("{}", s.round()));
                xrpc_sql_sqlite::raise_warning(
                    1411,
                    &format!("Incorrect timeout value: '{shown}' for function get_lock"),
                );
                return Ok(None);
            }
        };
        let session = s.connection_id.load(Ordering::Relaxed);
        s.took_named_lock.store(true, Ordering::Relaxed);
        Ok(Some(i64::from(l.get(
            &name,
            session,
            Some(timeout),
            &mut busy::keep_waiting,
        ))))
    })?;
    let (s, l) = (Arc::clone(shared), Arc::clone(locks));
    conn.create_scalar_function("my_release_lock", 1, flags, move |ctx| {
        let Some(name) = name_of(ctx)? else {
            return Ok(None);
        };
        Ok(l.release(&name, s.connection_id.load(Ordering::Relaxed))
            .map(i64::from))
    })?;
    let l = Arc::clone(locks);
    conn.create_scalar_function("my_is_free_lock", 1, flags, move |ctx| {
        Ok(name_of(ctx)?.map(|name| i64::from(l.holder(&name).is_none())))
    })?;
    let l = Arc::clone(locks);
    conn.create_scalar_function("my_is_used_lock", 1, flags, move |ctx| {
        Ok(name_of(ctx)?
            .and_then(|name| l.holder(&name))
            .map(|session| session as i64))
    })?;
    let (s, l) = (Arc::clone(shared), Arc::clone(locks));
    conn.create_scalar_function("my_release_all_locks", 0, flags, move |_| {
        Ok(l.release_all(s.connection_id.load(Ordering::Relaxed)) as i64)
    })
}

/// A string read as a DOUBLE as MySQL reads it: its longest numeric prefix (0 for none), with
/// warning 1292 when that is not the whole string.
fn double_prefix(text: &str) -> f64 {
    let trimmed = text.trim_start();
    let value = (0..=trimmed.len())
        .rev()
        .filter(|&end| trimmed.is_char_boundary(end))
        .find_map(|end| {
            let prefix = &trimmed[..end];
            // Rust reads "inf" and "nan", which MySQL does not.
            let digits = prefix.bytes().any(|b| b.is_ascii_digit())
                && prefix
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
            digits
                .then(|| prefix.parse::<f64>().ok().map(|v| (end, v)))
                .flatten()
        });
    let (end, value) = value.unwrap_or((0, 0.0));
    if trimmed[end..].trim_end() != "" || end == 0 {
        xrpc_sql_sqlite::raise_warning(
            1292,
            &format!("Truncated incorrect DOUBLE value: '{text}'"),
        );
    }
    value
}

/// An SQL identifier in double quotes.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Maps a rusqlite error onto the wire error table; `interrupted` says whether the statement
/// was killed (a busy wait cut short by a kill reports as interrupted).
/// A user variable's value as a SET of a system variable reads it (`NULL` for none).
fn user_value_text(value: rusqlite::types::Value) -> String {
    use rusqlite::types::Value as V;
    match value {
        V::Null => "NULL".to_owned(),
        V::Integer(i) => i.to_string(),
        V::Real(r) => r.to_string(),
        V::Text(t) => t,
        V::Blob(b) => String::from_utf8_lossy(&b).into_owned(),
    }
}

fn map_error(err: rusqlite::Error, interrupted: bool) -> SqlError {
    // A refusal raised by the function library in SQL run outside a translation (a view's
    // stand-in read by the catalog).
    if let Some(refusal) =
        translated::library_error(&err).filter(|e| e.code == codes::NOT_SUPPORTED_YET.code)
    {
        return refusal;
    }
    let (sqlite, message) = match &err {
        rusqlite::Error::SqliteFailure(e, msg) => {
            (Some(*e), msg.clone().unwrap_or_else(|| e.to_string()))
        }
        rusqlite::Error::SqlInputError { error, msg, .. } => (Some(*error), msg.clone()),
        rusqlite::Error::InvalidParameterCount(..)
        | rusqlite::Error::InvalidParameterName(_)
        | rusqlite::Error::ToSqlConversionFailure(_) => {
            return SqlError::new(&codes::WRONG_ARGUMENTS, err.to_string());
        }
        rusqlite::Error::MultipleStatement => {
            return SqlError::new(&codes::PARSE_ERROR, err.to_string());
        }
        _ => (None, err.to_string()),
    };
    let Some(e) = sqlite else {
        return SqlError::new(&codes::ENGINE_ERROR, message);
    };
    let code = match e.code {
        ErrorCode::ConstraintViolation
            if matches!(
                e.extended_code,
                ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            ) =>
        {
            &codes::DUP_ENTRY
        }
        ErrorCode::ConstraintViolation if e.extended_code == ffi::SQLITE_CONSTRAINT_NOTNULL => {
            // SQLite says "NOT NULL constraint failed: t.c"; MySQL "Column 'c' cannot be null".
            let column = message.rsplit(['.', ' ']).next().unwrap_or("");
            return SqlError::new(
                &codes::BAD_NULL,
                format!("Column '{column}' cannot be null"),
            );
        }
        ErrorCode::ConstraintViolation if e.extended_code == ffi::SQLITE_CONSTRAINT_FOREIGNKEY => {
            // SQLite does not say which side failed; a DELETE's failure is the parent's
            // (`parent_row_error`), any other the child's.
            return SqlError::new(
                &codes::NO_REFERENCED_ROW,
                "Cannot add or update a child row: a foreign key constraint fails",
            );
        }
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked if interrupted => {
            &codes::QUERY_INTERRUPTED
        }
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => &codes::LOCK_WAIT_TIMEOUT,
        ErrorCode::OperationInterrupted => &codes::QUERY_INTERRUPTED,
        // A full disk, or the size cap of `max_page_count`: MySQL's "The table is full".
        ErrorCode::DiskFull => {
            return SqlError::new(
                &codes::TABLE_FULL,
                format!("The table is full: the database cannot grow ({message})"),
            );
        }
        ErrorCode::Unknown => {
            if message.contains("syntax error")
                || message.starts_with("incomplete input")
                || message.starts_with("unrecognized token")
            {
                &codes::PARSE_ERROR
            } else if let Some(table) = message
                .strip_prefix("no such table: ")
                .and_then(|name| name.split_at_checked(catalog::INFORMATION_SCHEMA.len() + 1))
                .filter(|(schema, _)| schema.eq_ignore_ascii_case("information_schema."))
                .map(|(_, table)| table)
            {
                return SqlError::new(
                    &codes::UNKNOWN_TABLE,
                    format!("Unknown table '{table}' in information_schema"),
                );
            } else if message.starts_with("no such table") {
                &codes::NO_SUCH_TABLE
            } else if let Some(name) = message
                .strip_prefix("no such function: ")
                .or_else(|| message.strip_prefix("no such collation sequence: "))
                .filter(|name| name.starts_with("xrpc_"))
            {
                // Named by SQL that nodes which ran statements as their text stored (a view,
                // trigger or index of a table without a kept definition): the node no longer
                // has it. No client statement names it: the translation would refuse it first.
                return SqlError::new(
                    &codes::NOT_SUPPORTED_YET,
                    format!(
                        "This version doesn't yet support '{name}', which SQL stored by a node \
                         that ran statements as their text names, on the SQLite engine"
                    ),
                );
            } else if let Some(function) = message.strip_prefix("no such function: ") {
                // MySQL's answer for an unknown function, which the compute node probes with.
                return SqlError::new(
                    &codes::SP_DOES_NOT_EXIST,
                    format!("FUNCTION {function} does not exist"),
                );
            } else if message.starts_with("misuse of aggregate") {
                // An aggregate in WHERE or inside another aggregate.
                return SqlError::new(
                    &codes::INVALID_GROUP_FUNC_USE,
                    "Invalid use of group function",
                );
            } else if message.starts_with("no such column") {
                &codes::BAD_FIELD
            } else {
                &codes::ENGINE_ERROR
            }
        }
        _ => &codes::ENGINE_ERROR,
    };
    SqlError::new(code, message)
}

/// A foreign-key failure of a statement that can only fail a parent row's (a DELETE, an UPDATE
/// of a table only referenced) is MySQL's 1451 (a parent row still referenced); `map_error`
/// gave every foreign-key failure 1452, the child's, since SQLite does not say which side failed.
fn parent_row_error(err: SqlError, parent_side: bool) -> SqlError {
    if parent_side && err.code == codes::NO_REFERENCED_ROW.code {
        SqlError::new(
            &codes::ROW_IS_REFERENCED,
            "Cannot delete or update a parent row: a foreign key constraint fails",
        )
    } else {
        err
    }
}

/// VM instructions between two polls of the interrupt flag: a kill lands within microseconds,
/// and the poll costs an atomic load per thousand instructions.
const PROGRESS_OPS: std::ffi::c_int = 1000;

/// Interrupts the statement running on one connection.
struct SqliteInterrupter {
    handle: InterruptHandle,
    shared: Arc<Shared>,
}

impl fmt::Debug for SqliteInterrupter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteInterrupter")
            .field("interrupted", &self.shared.interrupted)
            .finish()
    }
}

impl Interrupt for SqliteInterrupter {
    fn interrupt(&self) {
        // The flag first: a statement blocked in the busy handler sees it at its next step.
        self.shared.interrupted.store(true, Ordering::Release);
        self.handle.interrupt();
    }

    fn clear(&self) {
        self.shared.interrupted.store(false, Ordering::Release);
    }
}
