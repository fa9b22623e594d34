//! The `mysql` engine: a MariaDB or MySQL server that xrpc fronts (`--engine
//! mysql://user:password@host:port[/database]`).
//!
//! # Connections on the event loop
//!
//! [`MysqlEngine::connect`] checks the backend and the account once, on a connection of its own
//! ([`probe`]), and reads the backend's version and global `sql_mode`. When the node starts,
//! [`Engine::started`] starts the [`driver`] on the node's epoll groups: backend connections
//! whose sockets sit in the same epoll sets as the clients', each an
//! [`xrpc_mysql_proto::Connection`] state machine, with the statements of many sessions
//! pipelined on each. It opens [`PoolOptions::driver_connections`] connections at the start
//! (at least 2) and more by demand, up to [`PoolOptions::size`]; both, the wait timeout and the
//! connections' lifetime are the node's variables, and all but the first are changed at
//! runtime (`SET GLOBAL`). No thread waits on the backend for a submitted statement: its answer
//! reaches the session's completion on whichever worker reads it.
//!
//! [`Engine::acquire`] returns a [`MysqlConn`], a cheap handle that holds no backend connection:
//! acquiring never blocks. The handle keeps the session variables the session changed (the
//! current database is the session layer's, handed in before every statement with
//! [`EngineConn::set_session_schema`] and reported back when `USE` or a request's `schema_name`
//! changed it); [`EngineConn::holds_session_state`] is true while it keeps anything or holds a
//! connection. The session layer keeps the handle between statements either way
//! ([`Engine::sessions_keep_connections`]): it is cheap to keep and costs allocations to take
//! anew, and it is given back, reset, when the session ends.
//!
//! - A statement that cannot leave state (one plain SELECT, INSERT, UPDATE or DELETE whose
//!   rewritten text names no user variable, named lock or `SHOW VARIABLES`) of a session that
//!   holds nothing, has no recorded variables and is in the URL's database, goes into the
//!   shared rotation, pipelined between other sessions' statements.
//! - Any other statement goes to a driver connection of the session's own: the one it holds,
//!   else one taken now ([`driver::Driver::pin_sparing`], which leaves one connection to the
//!   shared rotation), else the first to come free ([`driver::Driver::pin_when_free`]: the
//!   driver's pin queue, where no thread waits; 7009 after the wait timeout, 1317 when
//!   killed, the connect error when the connection that would serve it cannot open). It is
//!   brought level with the session first: the statements that switch its database and
//!   `SET SESSION` the session's recorded variables go in the same COM_QUERY, before the
//!   statement ([`driver::Pinned::submit_behind`]; the server runs nothing after one that
//!   fails, so the statement never runs on a connection left unlevel, and both carry the
//!   kill's marker). What must follow the statement (which named locks the connection holds,
//!   the isolation variable's other name for `SHOW VARIABLES`) is pipelined right behind it,
//!   and its answer completes the session's. The trackers of the OK packet
//!   ([`state::apply`]) decide whether the session keeps that connection (a transaction, user
//!   variables, …, below) or gives it back at once (reset, and switched back to the URL's
//!   database, or parked at the session's database and variables when it only holds those,
//!   for the next statement at that level: see the driver's "Parking"); a pin takes a
//!   connection parked at the session's level before any other. A session that keeps one
//!   sends all its statements there until nothing pins it or it ends.
//! - What the session layer runs inline (DDL, a small flow-control token, the catalog reads of
//!   a plan compile) takes the same way (a catalog read, whose result is small, may go into the
//!   shared rotation too), with the worker waiting inside the stall guard
//!   (`GroupHandle::enter_wait`: a worker waiting counts as stalled and the epoll group adds a
//!   worker, up to its maximum); the rows reach it from the reading worker a bounded amount at
//!   a time (the reader waits for room), so a large result costs the node a buffer however
//!   slowly the client reads. When every worker of a group waits so (more sessions run
//!   statements inline than the group may have workers), nobody would read the backend
//!   sockets: a waiting worker that hears nothing for 5 ms drives them itself
//!   ([`driver::Driver::help`]: each socket's handler, then the tick's work).
//! - The completion records what the trackers said in state shared with the handle, which
//!   takes it (variables, database) when the session next runs.
//!
//! So a statement that may leave state never runs where another session's statement follows
//! it before its OK packet has been read, and a connection a session held serves no other
//! session before COM_RESET_CONNECTION (or, parked, only a session at the very same level).
//! [`EngineConn::reset`] (session closed, killed, its connection lost, node drain) gives the
//! held connection back that way and forgets the recorded variables.
//!
//! # Session state, learnt from the backend
//!
//! Every backend connection runs [`options::TRACKING_INIT`] when it opens and after every
//! COM_RESET_CONNECTION: `session_track_state_change`, `session_track_schema`,
//! `session_track_system_variables = '*'` and `session_track_transaction_info = CHARACTERISTICS`
//! (the state and the characteristics), with CLIENT_SESSION_TRACK negotiated. After each
//! statement on a session's own connection the engine reads the tracker data of its final OK
//! packet ([`state::Changes`]):
//!
//! - the transaction state (`T_______`, `I___W___`, `_______L` for LOCK TABLES, …): while it is
//!   not all `_` the connection is pinned; the pin ends when the backend reports `________`;
//! - `autocommit`: OFF pins until it is ON again;
//! - the transaction characteristics: a `SET TRANSACTION …` for the next transaction only pins
//!   until that transaction ends (the tracker then reports them empty); XA transactions pin
//!   from `XA START` through `XA PREPARE` until `XA COMMIT`/`XA ROLLBACK`, as their state stays
//!   open;
//! - any other session variable, and the current database: recorded on the handle (the database
//!   for the session layer), not pinned; the session's next connection is brought level with
//!   them as above. Changing a `session_track_*` variable pins, since the engine would go
//!   blind;
//! - the state-change flag, when no variable, database or transaction change explains it: user
//!   variables, temporary tables, server-side prepared statements. These pin until the session
//!   ends, since the backend does not report their end.
//!
//! Two gaps of the trackers are closed by a lexical check of the statement (outside literals and
//! comments). Named locks, which no tracker reports: after a statement naming `GET_LOCK`,
//! `RELEASE_LOCK` or `RELEASE_ALL_LOCKS` the engine asks the backend which of the names it used
//! (a literal or a `?` argument), and of those held before, the connection holds
//! ([`state::named_lock_probe`]), and pins exactly while it holds one; a `GET_LOCK` of any other
//! expression pins until the session ends. And a statement that returns rows and names a user
//! variable (`SELECT @a := 1`, `SELECT … INTO @a`) pins, as the trackers' data of a result set
//! is not read. A request that yields several results (a CALL, or several statements) pins too,
//! since only the last OK packet's data arrives.
//!
//! # Statements
//!
//! The text protocol only: `?` arguments are interpolated client-side as escaped literals
//! ([`types::write_literal`], as JDBC does by default; `NO_BACKSLASH_ESCAPES` in the session's or
//! global `sql_mode` switches to doubling quotes only), so no server-side prepared statement ever
//! pins a connection. `connection_id()` becomes the xrpc session number and `last_insert_id()` the
//! session's last generated id, since both would otherwise name whichever backend connection runs
//! the statement; `VERSION()` and `@@version` become the node's version (the backend's, suffixed
//! `-xrpc-<version>`), and so does the `version` row of `SHOW VARIABLES`. A result column named
//! by such a replacement gets the original text back as its name. Rows stream into the session's
//! sink as they are read; nothing is buffered whole. A request yields one result: further
//! results are read and dropped.
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
//! statement (I/O or protocol error) is closed and every statement in flight on it gets 2013
//! (HY000) "Lost connection…" (on a session's own connection: its transaction and other state
//! are gone); the session stays usable and the driver reconnects with backoff. A connect failure
//! is the server's own error when it answered (1045, 1040), else 2003.
//!
//! # Kill
//!
//! [`Interrupt::interrupt`](xrpc_engine::Interrupt::interrupt) sets a flag under the lock that
//! also records the driver's name for the submitted statement: a kill that comes before the
//! statement reaches the driver fails it with 1317 without sending it; one that comes after
//! cancels it in the driver (see the driver's "Kill": out of its queues with 1317, or
//! `KILL QUERY ID` of exactly that statement once it runs), from a short-lived thread, as the
//! kill comes from the receive path.

pub mod conn;
pub mod driver;
pub mod options;
pub mod probe;
pub mod state;
pub mod types;
pub mod url;

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use xrpc_proto::codes;

pub use self::conn::MysqlConn;
pub use self::driver::DriverStats;
pub use self::options::PoolOptions;
pub use self::url::{BackendUrl, UrlError, parse_url, redact_url};
use xrpc_engine::result::SqlError;
use xrpc_engine::{Engine, EngineConn, EngineVariables};

/// What `SHOW STATUS` shows of the engine: the driver's connections and queues, and the
/// statements sent and failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BackendStats {
    /// The driver's, all zero before the node starts it.
    pub driver: DriverStats,
    /// Statements sent to the backend: the clients' (as rewritten) and the plan compiler's
    /// catalog reads.
    pub statements: u64,
    /// Statements that failed with the backend's error, or 2013.
    pub errors: u64,
}

impl BackendStats {
    /// The driver's rows ([`DriverStats::status_rows`]), then `xrpc_backend_statements` and
    /// `xrpc_backend_errors`.
    pub fn status_rows(&self) -> Vec<(String, String)> {
        let mut rows = self.driver.status_rows();
        rows.push((
            "xrpc_backend_statements".into(),
            self.statements.to_string(),
        ));
        rows.push(("xrpc_backend_errors".into(), self.errors.to_string()));
        rows
    }
}

/// The `mysql` engine.
#[derive(Debug)]
pub struct MysqlEngine {
    shared: Arc<conn::Shared>,
    url: BackendUrl,
    /// The backend's address, resolved once at start-up.
    addr: SocketAddr,
    version: String,
    description: String,
}

impl MysqlEngine {
    /// Connects once to check the backend and the account, and reads its version and
    /// `sql_mode`; the connections that serve statements open when the node starts
    /// ([`Engine::started`]).
    pub fn connect(url: &str, options: PoolOptions) -> Result<Self, SqlError> {
        let parsed =
            parse_url(url).map_err(|e| SqlError::new(&codes::WRONG_ARGUMENTS, e.to_string()))?;
        let unreachable = |detail: &dyn std::fmt::Display| {
            SqlError::new(
                &codes::BACKEND_UNREACHABLE,
                format!(
                    "Can't connect to the backend MySQL server on '{}' ({detail})",
                    parsed.host_port()
                ),
            )
        };
        let addr = parsed
            .host_port()
            .to_socket_addrs()
            .map_err(|err| unreachable(&err))?
            .next()
            .ok_or_else(|| unreachable(&"the host name has no address"))?;
        let config = login_config(&parsed, &options);
        let probe_error = |err: probe::ProbeError| match err {
            probe::ProbeError::Connect(xrpc_mysql_proto::ConnectError::Refused(refused))
            | probe::ProbeError::Statement(refused) => SqlError {
                code: u32::from(refused.code),
                sql_state: refused.sql_state,
                message: refused.message,
            },
            other => unreachable(&other),
        };
        let mut probe = probe::Probe::connect(addr, config).map_err(probe_error)?;
        let settings = probe
            .query("SELECT VERSION(), @@GLOBAL.sql_mode")
            .map_err(probe_error)?;
        let (version, sql_mode) = match settings.first().map(Vec::as_slice) {
            Some([Some(version), sql_mode]) => {
                (version.clone(), sql_mode.clone().unwrap_or_default())
            }
            _ => return Err(unreachable(&"the backend did not report its version")),
        };
        let isolation_names: Vec<String> = probe
            .query(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN \
                 ('transaction_isolation', 'tx_isolation')",
            )
            .map_err(probe_error)?
            .into_iter()
            .filter_map(|row| row.into_iter().next().flatten())
            .collect();
        drop(probe);
        let backslash_escapes = !sql_mode
            .to_ascii_uppercase()
            .contains("NO_BACKSLASH_ESCAPES");
        Ok(Self {
            shared: Arc::new(conn::Shared {
                counters: conn::Counters::default(),
                options: parking_lot::Mutex::new(options),
                backslash_escapes,
                default_schema: parsed.database.clone(),
                version: format!("{version}-xrpc-{}", env!("CARGO_PKG_VERSION")),
                variable_alias: types::VariableAlias::for_backend(&isolation_names),
                driver: std::sync::OnceLock::new(),
            }),
            url: parsed,
            addr,
            version,
            description: redact_url(url),
        })
    }

    /// The URL without its password.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The engine's gauges and counters.
    pub fn stats(&self) -> BackendStats {
        BackendStats {
            driver: self
                .shared
                .driver
                .get()
                .map(driver::Driver::stats)
                .unwrap_or_default(),
            statements: self.shared.counters.statements(),
            errors: self
                .shared
                .counters
                .backend_errors
                .load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The options in force (changed at runtime by `SET GLOBAL` of their variables).
    pub fn pool_options(&self) -> PoolOptions {
        self.shared.options.lock().clone()
    }

    /// A new handle, typed (tests and diagnostics).
    pub fn handle(&self) -> MysqlConn {
        MysqlConn::new(Arc::clone(&self.shared))
    }
}

/// How every connection to the backend at `url` logs in.
fn login_config(url: &BackendUrl, options: &PoolOptions) -> xrpc_mysql_proto::Config {
    let mut config = xrpc_mysql_proto::Config::new(url.user.clone(), url.password.clone());
    config.database = url.database.clone();
    config.connect_timeout = options.connect_timeout;
    config
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
        self.stats().status_rows()
    }

    fn acquire(&self) -> Result<Box<dyn EngineConn>, SqlError> {
        Ok(Box::new(self.handle()))
    }

    fn sessions_keep_connections(&self) -> bool {
        // A handle holds no backend connection unless state pins one, and acquiring one costs
        // a handful of allocations per statement.
        true
    }

    fn release(&self, mut conn: Box<dyn EngineConn>) {
        // A handle is cheap; the driver connection it may hold goes back, reset.
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

    fn started(&self, groups: &[xrpc_net::GroupHandle]) {
        if groups.is_empty() {
            tracing::warn!("no epoll group to run the backend driver on: statements fail");
            return;
        }
        let options = self.pool_options();
        // Sessions take connections of their own (transactions, variables) besides the shared
        // rotation: up to the pool's size in all, opened by demand beyond the first ones.
        let most = options.size.max(MIN_DRIVER_CONNECTIONS);
        let opened = options
            .driver_connections
            .clamp(MIN_DRIVER_CONNECTIONS, most);
        let mut driver_options =
            driver::DriverOptions::new(self.addr, login_config(&self.url, &options));
        driver_options.connections = most;
        driver_options.min_connections = Some(opened);
        driver_options.queue_timeout = options.wait_timeout;
        driver_options.lifetime = options.lifetime;
        let _ = self
            .shared
            .driver
            .set(driver::Driver::start(groups, driver_options));
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
        let options = self.pool_options();
        let millis = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        for (name, value) in [
            (POOL_SIZE, count(options.size)),
            (WAIT_TIMEOUT, millis(options.wait_timeout)),
            (CONNECTION_LIFETIME, millis(options.lifetime)),
            (CONNECT_TIMEOUT, millis(options.connect_timeout)),
            (DRIVER_CONNECTIONS, count(options.driver_connections)),
        ] {
            if let Err(err) = vars.set_int(name, value) {
                // Options from code (tests) may lie outside the variable's range: the engine
                // keeps them, the variable shows its default.
                tracing::debug!(%err, "a backend option is outside its variable's range");
            }
        }
        for name in [POOL_SIZE, WAIT_TIMEOUT, CONNECTION_LIFETIME] {
            let shared = Arc::downgrade(&self.shared);
            vars.on_int_change(
                name,
                Box::new(move |n| {
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    let n = u64::try_from(n).unwrap_or(0);
                    let mut options = shared.options.lock();
                    let driver = shared.driver.get();
                    match name {
                        POOL_SIZE => {
                            options.size = usize::try_from(n).unwrap_or(usize::MAX);
                            let size = options.size.max(MIN_DRIVER_CONNECTIONS);
                            driver.inspect(|d| d.set_size(size));
                        }
                        WAIT_TIMEOUT => {
                            options.wait_timeout = Duration::from_millis(n);
                            driver.inspect(|d| d.set_queue_timeout(options.wait_timeout));
                        }
                        _ => {
                            options.lifetime = Duration::from_millis(n);
                            driver.inspect(|d| d.set_lifetime(options.lifetime));
                        }
                    }
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

/// The node's variables that show the engine's options ([`PoolOptions`]), all in milliseconds
/// but the counts; the first three are changed by `SET GLOBAL`.
const POOL_SIZE: &str = "xrpc_backend_pool_size";
const WAIT_TIMEOUT: &str = "xrpc_backend_wait_timeout";
const CONNECTION_LIFETIME: &str = "xrpc_backend_connection_lifetime";
const CONNECT_TIMEOUT: &str = "xrpc_backend_connect_timeout";
const DRIVER_CONNECTIONS: &str = "xrpc_backend_driver_connections";

/// The fewest connections the driver opens: `KILL QUERY ID` of a statement in flight on one
/// goes out on another.
const MIN_DRIVER_CONNECTIONS: usize = 2;

/// How long a plan's table shape is kept (see [`Engine::plan_shape_lifetime`]).
const PLAN_SHAPE_LIFETIME: Duration = Duration::from_secs(1);

/// How long [`MysqlEngine::connect_waiting`] sleeps between attempts, at most.
const CONNECT_RETRY_MAX: Duration = Duration::from_secs(2);

impl MysqlEngine {
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
