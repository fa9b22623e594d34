//! The `mysql` engine: a MariaDB or MySQL server that xrpc fronts (`--engine
//! mysql://user:password@host:port[/database]`).
//!
//! # Handles and the pool
//!
//! [`Engine::acquire`] returns a [`MysqlConn`], a cheap handle that holds no backend connection:
//! acquiring never blocks. Each statement borrows a backend connection from the bounded
//! [`pool::Pool`] (at most [`PoolOptions::size`], waiting up to [`PoolOptions::wait_timeout`] for
//! one, then 7009) and gives it back when it ends, unless the connection now holds state that
//! pins it to the session ([`state::PinState`]). The handle itself keeps the session variables the
//! session changed (the current database is the session layer's, handed in before every statement
//! with [`EngineConn::set_session_schema`] and reported back when `USE` or a request's
//! `schema_name` changed it); [`EngineConn::holds_session_state`] is true while it keeps
//! anything, so the session layer keeps the handle (not a backend connection) between
//! statements, exactly as it keeps an SQLite connection with a transaction open.
//!
//! # Session state, learnt from the backend
//!
//! Every backend connection runs [`pool::TRACKING_INIT`] when it opens and after every
//! COM_RESET_CONNECTION: `session_track_state_change`, `session_track_schema`,
//! `session_track_system_variables = '*'` and `session_track_transaction_info = CHARACTERISTICS`
//! (the state and the characteristics), with
//! CLIENT_SESSION_TRACK negotiated. After each statement the engine reads the tracker data of its
//! final OK packet ([`state::Changes`]):
//!
//! - the transaction state (`T_______`, `I___W___`, `_______L` for LOCK TABLES, …): while it is
//!   not all `_` the connection is pinned; the pin ends when the backend reports `________`;
//! - `autocommit`: OFF pins until it is ON again;
//! - the transaction characteristics: a `SET TRANSACTION …` for the next transaction only pins
//!   until that transaction ends (the tracker then reports them empty); XA transactions pin
//!   from `XA START` through `XA PREPARE` until `XA COMMIT`/`XA ROLLBACK`, as their state stays
//!   open;
//! - any other session variable, and the current database: recorded on the handle (the database
//!   for the session layer) and on the connection, not pinned. The next connection the session borrows gets them back: a
//!   connection whose own changed variables all match the session's is brought level with one
//!   `SET SESSION a = …, b = …`, any other is reset first (COM_RESET_CONNECTION) and then SET;
//!   the database is switched with COM_INIT_DB only when it differs. Changing a
//!   `session_track_*` variable pins, since the engine would go blind;
//! - the state-change flag, when no variable, database or transaction change explains it: user
//!   variables, temporary tables, server-side prepared statements. These pin until the session
//!   ends, since the backend does not report their end.
//!
//! Two gaps of the trackers are closed by a lexical check of the statement (outside literals and
//! comments). Named locks, which no tracker reports: after a statement naming `GET_LOCK`,
//! `RELEASE_LOCK` or `RELEASE_ALL_LOCKS` the engine asks the backend which of the names it used
//! (a literal or a `?` argument), and of those held before, the connection holds
//! ([`state::track_named_locks`]), and pins exactly while it holds one; a `GET_LOCK` of any other
//! expression pins until the session ends. And statements that return
//! rows end with the old EOF packet (the `mysql` crate does not negotiate CLIENT_DEPRECATE_EOF),
//! which carries no tracker data, so a row-returning statement that names a user variable
//! (`SELECT @a := 1`, `SELECT … INTO @a`) pins. A request that yields several results (a CALL, or
//! several statements) pins too, since only the last OK packet's data is read.
//!
//! A pinned connection goes back to the pool only through a reset ([`pool::Pool::give_back`]
//! resets any connection whose state pins it, and closes it when the reset fails), so a dirty
//! connection never serves another session. [`EngineConn::reset`] (session closed, killed, its
//! connection lost, node drain) gives the held connection back that way and forgets the
//! recorded variables.
//!
//! # Statements
//!
//! The text protocol only: `?` arguments are interpolated client-side as escaped literals
//! ([`types::write_literal`], as JDBC does by default; `NO_BACKSLASH_ESCAPES` in the session's or
//! global `sql_mode` switches to doubling quotes only), so no server-side prepared statement ever
//! pins a connection. `connection_id()` becomes the xrpc session number and `last_insert_id()` the
//! session's last generated id, since both would otherwise name whichever pooled connection runs
//! the statement; `VERSION()` and `@@version` become the node's version (the backend's, suffixed
//! `-xrpc-<version>`), and so does the `version` row of `SHOW VARIABLES`. A result column named
//! by such a replacement gets the original text back as its name. Rows stream from `query_iter` into the sink as they arrive; nothing is buffered
//! whole. A request yields one result: further results are read and dropped.
//!
//! # Column types (as MySQL's X Plugin maps them)
//!
//! | MySQL type | X type | notes |
//! | --- | --- | --- |
//! | TINYINT … BIGINT | SINT, or UINT when UNSIGNED | ZEROFILL → flag `0x0001` |
//! | YEAR | UINT | |
//! | FLOAT, DOUBLE | FLOAT, DOUBLE | UNSIGNED → flag `0x0001` |
//! | DECIMAL | DECIMAL | UNSIGNED → flag `0x0001` |
//! | DATE | DATETIME without time | original type DATE, content type DATE (1) |
//! | DATETIME, TIMESTAMP | DATETIME | TIMESTAMP → flag `0x0001`; content type DATETIME (2) |
//! | TIME | TIME | negative and > 24 h kept |
//! | BIT | BIT | |
//! | ENUM, SET | ENUM, SET | sent as STRING with a flag by the text protocol |
//! | CHAR/BINARY | BYTES | flag `0x0001` (right-padded) |
//! | JSON | BYTES | content type JSON (2); MariaDB's JSON is LONGTEXT on the wire, so plain BYTES |
//! | GEOMETRY | BYTES | content type GEOMETRY (1), collation 63; MySQL's internal format (SRID + WKB) |
//! | VARCHAR, TEXT, BLOB, NULL | BYTES | |
//!
//! BYTES, ENUM and SET keep the backend's collation (63 only for binary data); every other type
//! gets 63. Names, original names, table, original table, schema, length and fractional digits
//! are the backend's; NOT NULL, primary key, unique key, multiple key and AUTO_INCREMENT flags
//! are mapped. Content types follow from the X and MySQL types
//! ([`ColumnInfo::content_type`](xrpc_engine::result::ColumnInfo::content_type)), on both engines.
//!
//! # Errors
//!
//! Backend errors keep their code, SQL state and message. A connection that breaks during a
//! statement (I/O or protocol error) is closed and the statement gets 2013 (HY000) "Lost
//! connection…"; whatever state it held is gone and the session stays usable. A connect failure is
//! the server's own error when it answered (1045, 1040), else 2003.
//!
//! # Kill
//!
//! [`Interrupt::interrupt`](xrpc_engine::Interrupt::interrupt) sets a flag under the lock that
//! also publishes the backend thread id when the statement is sent: a kill that comes before
//! the statement is sent fails it with 1317 without sending it (also while it waits for a
//! connection); one that comes after sends `KILL QUERY <thread id>` on a separate connection,
//! opened on a short-lived thread so the receive path never blocks on the backend. MariaDB
//! forgets a `KILL QUERY` that finds the thread idle, so that thread then watches the backend
//! thread's `COMMAND` in the process list until the statement is over and, if it saw it idle
//! (the kill overtook the statement), kills again once the statement runs.
//!
//! # On the event loop
//!
//! With [`PoolOptions::driver_connections`] above 0 (the default; at least 2 are opened),
//! [`Engine::started`] starts the [`driver`] on the node's epoll groups, and
//! [`EngineConn::submittable`] hands it the statements of sessions that hold no state on the
//! pool ([`EngineConn::submit`]): no worker waits for their answer, which reaches the session's
//! completion on the worker that reads it.
//!
//! - A statement that cannot leave state (one plain SELECT, INSERT, UPDATE or DELETE whose
//!   rewritten text names no user variable, named lock or `SHOW VARIABLES`) of a session that
//!   holds nothing, has no recorded variables and is in the URL's database, goes into the
//!   shared rotation, pipelined between other sessions' statements.
//! - Any other statement goes to a driver connection of the session's own: the one it holds,
//!   else one taken now ([`driver::Driver::pin_sparing`], which leaves one connection to the
//!   shared rotation), else the first to come free ([`driver::Driver::pin_when_free`]: the
//!   driver's pin queue, where no thread waits; 7009 after the wait timeout, 1317 when
//!   killed). It is brought level with the session first: the statements that switch its
//!   database and `SET SESSION` the session's recorded variables go in the same COM_QUERY,
//!   before the statement ([`driver::Pinned::submit_behind`]; the server runs nothing after one
//!   that fails, so the statement never runs on a connection left unlevel, and both carry the
//!   kill's marker). What must follow the statement (which named locks the connection holds,
//!   the isolation variable's other name for `SHOW VARIABLES`) is pipelined right behind it,
//!   and its answer completes the session's. The trackers of the OK packet (the pool's
//!   [`state::apply`]) decide whether the session keeps that connection (a transaction, user
//!   variables, …, as above) or gives it back at once (reset, and switched back to the URL's
//!   database, or parked at the session's database and variables when it only holds those,
//!   for the next statement at that level: see the driver's "Parking"); a pin takes a
//!   connection parked at the session's level before any other. A session that keeps one
//!   sends all its statements there until nothing pins it or it ends.
//! - What the session layer runs inline (DDL, a small flow-control token, the catalog reads of
//!   a plan compile) takes the same way, with the worker waiting inside the stall guard; the
//!   rows reach it from the reading worker a bounded amount at a time (the reader waits for
//!   room), so a large result costs the node a buffer however slowly the client reads.
//! - The completion records what the trackers said in state shared with the handle, which
//!   takes it (variables, database) when the session next runs.
//!
//! So a statement that may leave state never runs where another session's statement follows
//! it before its OK packet has been read. A kill cancels a submitted statement in the driver
//! (see the driver's "Kill"), on a pinned connection as on a shared one, and one waiting in the
//! pin queue. The driver opens [`PoolOptions::driver_connections`] connections at the start and
//! more by demand, up to [`PoolOptions::size`] in all. While the driver runs, the blocking path
//! below serves nothing; it serves everything when the driver is off
//! (`driver_connections = 0`).
//!
//! # Blocking
//!
//! The blocking path's client (the `mysql` crate) is synchronous. Each statement runs inside the session's wait hook
//! (`GroupHandle::enter_wait`, the framework's stall guard): a worker waiting on the backend (for
//! a free connection, the statement, or its rows) counts as stalled and the epoll group adds a
//! worker, up to its maximum, instead of starving other sessions.

pub mod conn;
pub mod driver;
pub mod pool;
pub mod state;
pub mod types;

use std::sync::Arc;
use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::{Opts, OptsBuilder};
use xrpc_proto::codes;

pub use self::conn::MysqlConn;
pub use self::pool::{PoolOptions, PoolStats};
use xrpc_engine::result::SqlError;
use xrpc_engine::{Engine, EngineConn, EngineVariables};

/// A `mysql://` engine URL that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid engine URL {url:?}: {reason} (expected mysql://user:password@host:port[/database])"
)]
pub struct UrlError {
    /// The URL, with any password replaced by `***`.
    pub url: String,
    /// What is wrong.
    pub reason: String,
}

/// Parses `mysql://user:password@host:port[/database]`.
pub fn parse_url(url: &str) -> Result<Opts, UrlError> {
    Opts::from_url(url).map_err(|err| UrlError {
        url: redact_url(url),
        reason: err.to_string(),
    })
}

/// The URL without its password, for logs and `SHOW VARIABLES`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((userinfo, host)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

/// The `mysql` engine.
#[derive(Debug)]
pub struct MysqlEngine {
    shared: Arc<conn::Shared>,
    version: String,
    description: String,
}

impl MysqlEngine {
    /// Connects once to check the backend and the account, reads its version and `sql_mode`,
    /// and keeps that connection as the pool's first.
    pub fn connect(url: &str, options: PoolOptions) -> Result<Self, SqlError> {
        let opts =
            parse_url(url).map_err(|e| SqlError::new(&codes::WRONG_ARGUMENTS, e.to_string()))?;
        let default_schema = opts.get_db_name().map(str::to_owned);
        let pool = pool::Pool::new(OptsBuilder::from_opts(opts).into(), options);
        let mut conn = pool.connect_unpooled()?;
        let (version, sql_mode): (String, String) = conn
            .query_first("SELECT VERSION(), @@GLOBAL.sql_mode")
            .map_err(|err| pool::connect_error(pool.opts(), &err))?
            .unwrap_or_default();
        let isolation_names: Vec<String> = conn
            .query_map(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN \
                 ('transaction_isolation', 'tx_isolation')",
                |(name, _value): (String, String)| name,
            )
            .map_err(|err| pool::connect_error(pool.opts(), &err))?;
        drop(conn);
        let backslash_escapes = !sql_mode
            .to_ascii_uppercase()
            .contains("NO_BACKSLASH_ESCAPES");
        Ok(Self {
            shared: Arc::new(conn::Shared {
                pool,
                backslash_escapes,
                default_schema,
                version: format!("{version}-xrpc-{}", env!("CARGO_PKG_VERSION")),
                variable_alias: types::VariableAlias::for_backend(&isolation_names),
                driver: std::sync::OnceLock::new(),
            }),
            version,
            description: redact_url(url),
        })
    }

    /// The URL without its password.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The pool's counters.
    pub fn stats(&self) -> PoolStats {
        self.shared.pool.stats()
    }

    /// The pool's options in force.
    pub fn pool_options(&self) -> PoolOptions {
        self.shared.pool.options()
    }

    /// A new handle, typed (tests and diagnostics).
    pub fn handle(&self) -> MysqlConn {
        MysqlConn::new(Arc::clone(&self.shared))
    }
}

impl Engine for MysqlEngine {
    fn name(&self) -> &'static str {
        "mysql"
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn owns_system_variables(&self) -> bool {
        true
    }

    fn status_rows(&self) -> Vec<(String, String)> {
        let mut rows = self.stats().status_rows();
        if let Some(driver) = self.shared.driver.get() {
            rows.extend(driver.status_rows());
        }
        rows
    }

    fn acquire(&self) -> Result<Box<dyn EngineConn>, SqlError> {
        Ok(Box::new(self.handle()))
    }

    fn release(&self, mut conn: Box<dyn EngineConn>) {
        // A handle is cheap; the backend connection it may hold goes back to the pool, reset
        // when it holds state.
        conn.set_wait_hook(None);
        if conn.holds_session_state() {
            let _ = conn.reset();
        }
        drop(conn);
    }

    fn checkpoint(&self) -> Result<(), SqlError> {
        // Durability is the backend's business.
        Ok(())
    }

    fn sweep_expired(&self) -> usize {
        self.shared.pool.sweep_expired()
    }

    fn started(&self, groups: &[xrpc_net::GroupHandle]) {
        let connections = self.shared.pool.options().driver_connections;
        if connections == 0 || groups.is_empty() {
            return;
        }
        // A kill of a statement in flight goes out on another of the driver's connections.
        let opened = connections.max(MIN_DRIVER_CONNECTIONS);
        // Sessions take connections of their own (transactions, variables) besides the shared
        // rotation: up to the pool's size in all, opened by demand beyond the first ones.
        let most = self.shared.pool.options().size.max(opened);
        match self.driver_options(most) {
            Ok(mut options) => {
                options.min_connections = Some(opened);
                let _ = self
                    .shared
                    .driver
                    .set(driver::Driver::start(groups, options));
            }
            Err(err) => {
                tracing::warn!(%err, "the backend driver cannot start; statements use the pool");
            }
        }
    }

    fn submits(&self) -> bool {
        self.shared.driver.get().is_some()
    }

    fn stopping(&self) {
        if let Some(driver) = self.shared.driver.get() {
            driver.close();
        }
    }

    fn bind_variables(&self, vars: &dyn EngineVariables) {
        let options = self.shared.pool.options();
        let millis = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let size = i64::try_from(options.size).unwrap_or(i64::MAX);
        for (name, value) in [
            (POOL_SIZE, size),
            (WAIT_TIMEOUT, millis(options.wait_timeout)),
            (CONNECTION_LIFETIME, millis(options.lifetime)),
            (PING_AFTER_IDLE, millis(options.ping_after_idle)),
            (CONNECT_TIMEOUT, millis(options.connect_timeout)),
            (
                DRIVER_CONNECTIONS,
                i64::try_from(options.driver_connections).unwrap_or(i64::MAX),
            ),
        ] {
            if let Err(err) = vars.set_int(name, value) {
                // Options from code (tests) may lie outside the variable's range: the pool
                // keeps them, the variable shows its default.
                tracing::debug!(%err, "a backend pool option is outside its variable's range");
            }
        }
        for name in [
            POOL_SIZE,
            WAIT_TIMEOUT,
            CONNECTION_LIFETIME,
            PING_AFTER_IDLE,
        ] {
            let shared = Arc::downgrade(&self.shared);
            vars.on_int_change(
                name,
                Box::new(move |n| {
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    let n = u64::try_from(n).unwrap_or(0);
                    let mut options = shared.pool.options();
                    match name {
                        POOL_SIZE => options.size = usize::try_from(n).unwrap_or(usize::MAX),
                        WAIT_TIMEOUT => options.wait_timeout = Duration::from_millis(n),
                        CONNECTION_LIFETIME => options.lifetime = Duration::from_millis(n),
                        _ => options.ping_after_idle = Duration::from_millis(n),
                    }
                    shared.pool.set_options(options);
                }),
            );
        }
    }

    fn plan_shape_lifetime(&self) -> Option<Duration> {
        // Describing a table costs two information_schema queries, more than a point read;
        // other clients of the backend may change its schema, so a shape is kept this long at
        // most (see crate::plan::catalog).
        Some(PLAN_SHAPE_LIFETIME)
    }
}

/// The node's variables that show the backend pool's options ([`PoolOptions`]), all in
/// milliseconds but the size; all but the connect timeout are changed by `SET GLOBAL`.
const POOL_SIZE: &str = "xrpc_backend_pool_size";
const WAIT_TIMEOUT: &str = "xrpc_backend_wait_timeout";
const CONNECTION_LIFETIME: &str = "xrpc_backend_connection_lifetime";
const PING_AFTER_IDLE: &str = "xrpc_backend_ping_after_idle";
const CONNECT_TIMEOUT: &str = "xrpc_backend_connect_timeout";
const DRIVER_CONNECTIONS: &str = "xrpc_backend_driver_connections";

/// The fewest connections the driver opens when it is on: `KILL QUERY ID` of a statement in
/// flight on one goes out on another.
const MIN_DRIVER_CONNECTIONS: usize = 2;

/// How long a plan's table shape is kept (see [`Engine::plan_shape_lifetime`]).
const PLAN_SHAPE_LIFETIME: Duration = Duration::from_secs(1);

/// How long [`MysqlEngine::connect_waiting`] sleeps between attempts, at most.
const CONNECT_RETRY_MAX: Duration = Duration::from_secs(2);

impl MysqlEngine {
    /// The driver's options: the pool's backend and account, `connections` connections.
    fn driver_options(&self, connections: usize) -> std::io::Result<driver::DriverOptions> {
        use std::net::ToSocketAddrs;
        let opts = self.shared.pool.opts();
        let addr = (opts.get_ip_or_hostname().as_ref(), opts.get_tcp_port())
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| std::io::Error::other("the backend's host name has no address"))?;
        let mut config = xrpc_mysql_proto::Config::new(
            opts.get_user().unwrap_or_default(),
            opts.get_pass().unwrap_or_default(),
        );
        config.database = self.shared.default_schema.clone();
        config.connect_timeout = self.shared.pool.options().connect_timeout;
        let mut options = driver::DriverOptions::new(addr, config);
        options.connections = connections;
        // A statement waits for the driver as long as it would wait for a pooled connection.
        options.queue_timeout = self.shared.pool.options().wait_timeout;
        Ok(options)
    }

    /// The event-loop driver, once the node started it (tests, diagnostics).
    pub fn driver(&self) -> Option<&driver::Driver> {
        self.shared.driver.get()
    }

    /// [`MysqlEngine::connect`], retried with backoff for up to `wait` while the backend is
    /// unreachable (orchestrated start-up); a refused login fails at once.
    pub fn connect_waiting(
        url: &str,
        options: PoolOptions,
        wait: Duration,
    ) -> Result<Self, SqlError> {
        let deadline = std::time::Instant::now() + wait;
        let mut pause = Duration::from_millis(100);
        loop {
            match Self::connect(url, options.clone()) {
                Err(err)
                    if err.code == codes::BACKEND_UNREACHABLE.code
                        && std::time::Instant::now() + pause < deadline =>
                {
                    tracing::info!(%err, "waiting for the backend");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(CONNECT_RETRY_MAX);
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_redact() {
        let opts = parse_url("mysql://app:s3cret@127.0.0.1:3307/shop").unwrap();
        assert_eq!(opts.get_user(), Some("app"));
        assert_eq!(opts.get_pass(), Some("s3cret"));
        assert_eq!(opts.get_tcp_port(), 3307);
        assert_eq!(opts.get_db_name(), Some("shop"));
        assert_eq!(
            redact_url("mysql://app:s3cret@127.0.0.1:3307/shop"),
            "mysql://app:***@127.0.0.1:3307/shop"
        );
        assert_eq!(redact_url("mysql://app@h/db"), "mysql://app@h/db");
        let err = parse_url("postgres://x@y").unwrap_err();
        assert!(!err.to_string().contains("s3cret"));
        let err = parse_url("mysql://u:pw@h:notaport").unwrap_err();
        assert!(!err.url.contains("pw"), "{err}");
    }

    #[test]
    fn an_unreachable_backend_is_one_clear_error() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let err = MysqlEngine::connect(
            &format!("mysql://root@127.0.0.1:{port}"),
            PoolOptions {
                connect_timeout: Duration::from_secs(1),
                ..PoolOptions::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.code, codes::BACKEND_UNREACHABLE.code);
        assert!(err.message.contains(&port.to_string()), "{}", err.message);
    }

    #[test]
    fn start_up_may_wait_for_the_backend_then_gives_up_clearly() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let started = std::time::Instant::now();
        let err = MysqlEngine::connect_waiting(
            &format!("mysql://root@127.0.0.1:{port}"),
            PoolOptions::default(),
            Duration::from_millis(700),
        )
        .unwrap_err();
        let waited = started.elapsed();
        assert_eq!(err.code, codes::BACKEND_UNREACHABLE.code);
        // Retried with backoff (100, 200, 400 ms) until the next pause would pass the wait.
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
    }
}
