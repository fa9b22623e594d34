//! The engine contract of the xrpc data node: where SQL actually runs, seen from the node.
//!
//! The node's session layer talks to engines only through [`Engine`] and [`EngineConn`], so that
//! SQLite (the default, `xrpc-engine-sqlite`) and MariaDB/MySQL (`xrpc-engine-mysql`) plug in
//! without touching sessions, and an engine compiles without the node. Besides the two traits
//! this crate holds what both engines and the node's plan compiler share:
//!
//! | module | what it holds |
//! |---|---|
//! | [`result`] | the result sink and column info, SQL errors and warnings, statement summaries |
//! | [`shape`] | table shapes (columns, primary key, indexes) and how each engine's catalog gives them |
//! //!
//! # Connection ownership
//!
//! A session does not own an engine connection while it is idle. It borrows one from the engine's
//! pool for each statement ([`Engine::acquire`]) and gives it back afterwards, unless the connection
//! now holds session state ([`EngineConn::holds_session_state`]: an open transaction, `autocommit =
//! 0`, temp tables), in which case the session keeps it until that state is
//! gone. That is how 100k idle sessions stay cheap.
//!
//! # Statements answered on the event loop
//!
//! An engine whose backend is reached over sockets in the node's epoll groups (the `mysql`
//! engine's driver) may answer a statement without a worker waiting for it: the session layer
//! asks [`EngineConn::submittable`] and, when it says yes, hands the statement to
//! [`EngineConn::submit`] with a [`Completion`] and returns the worker to the event loop. The
//! session is suspended (its queue held) until the completion's [`Completion::done`] runs, on
//! whichever worker reads the answer. Engines that run statements inline (SQLite) never say yes.
//! The engine learns the node's groups from [`Engine::started`].

use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use xrpc_net::GroupHandle;
use xrpc_proto::value::Value;

use crate::result::{ExecSummary, ResultSink, SqlError, SqlWarning};
use crate::shape::TableShape;

pub mod result;
pub mod shape;

/// How many diagnostics a session keeps for `SHOW WARNINGS` (MySQL's `max_error_count`
/// default): a statement's warnings past this are dropped.
pub const MAX_WARNINGS: usize = 64;

/// A source of engine connections.
pub trait Engine: Send + Sync + 'static {
    /// A short name for logs and `SHOW VARIABLES` (`sqlite`, `mysql`, `postgres`).
    fn name(&self) -> &'static str;

    /// The engine's version string, reported as part of `version`.
    fn version(&self) -> String;

    /// Takes an idle connection from the pool, or opens one.
    fn acquire(&self) -> Result<Box<dyn EngineConn>, SqlError>;

    /// Returns a connection that holds no session state to the pool.
    fn release(&self, conn: Box<dyn EngineConn>);

    /// Whether a session keeps its connection between statements even when it holds no session
    /// state (it still gives it back, reset, when it closes). True for an engine whose
    /// connections are not pooled resources but cheap handles (the mysql engine's, which hold a
    /// backend connection only while state pins one): taking one per statement would only cost
    /// its allocations. False (the default) for pooled connections, which other sessions need.
    fn sessions_keep_connections(&self) -> bool {
        false
    }

    /// Makes everything committed so far durable and compacts the log (SQLite: a WAL checkpoint).
    /// Called on shutdown.
    fn checkpoint(&self) -> Result<(), SqlError>;

    /// Whether the engine is a server with its own system variables and status (MySQL, MariaDB).
    /// Then the node's admin SQL answers only the node's own names: `SELECT @@name`, `SET GLOBAL` and `SHOW VARIABLES` /
    /// `SHOW STATUS` of any other name reach the engine, so the node never shadows the backend's
    /// values. When false (SQLite), the node answers every variable it defines itself.
    fn owns_system_variables(&self) -> bool {
        false
    }

    /// Whether every change to the engine's schema goes through this node's sessions (an
    /// embedded engine that owns its files). Then the plan compiler may keep table shapes between
    /// requests, dropping them whenever a session runs DDL;
    /// otherwise (a server other clients also change) it reads them for every plan.
    fn sees_all_schema_changes(&self) -> bool {
        false
    }

    /// For an engine that does not see every schema change: how long the plan compiler may
    /// keep a table shape anyway (also dropped on any schema change this node sees, and when a
    /// plan fails as a stale shape would make it fail). `None`
    /// (the default) reads shapes for every plan.
    fn plan_shape_lifetime(&self) -> Option<Duration> {
        None
    }

    /// The engine's own `SHOW STATUS` rows, `(name, value)`, named `xrpc_<engine part>_…` (the
    /// `mysql` engine: its backend pool, `xrpc_backend_*`; the `sqlite` engine: its connection
    /// pool, `xrpc_engine_idle`, `_borrowed`, `_opened`, and `_statements` stepped). None by default.
    fn status_rows(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Sets how long a pooled connection may live (`xrpc_shared_session_lifetime`): older ones are
    /// closed instead of being pooled again, and by [`Engine::sweep_expired`].
    fn set_connection_lifetime(&self, lifetime: Duration) {
        let _ = lifetime;
    }

    /// Called once as a node starts on this engine, with the node's variables: the engine writes
    /// the settings it was opened with into them (so `SHOW VARIABLES` says what is in force) and
    /// registers the appliers of those it can change at runtime (`SET GLOBAL`). The `mysql`
    /// engine binds its pool's (`xrpc_backend_*`); nothing by default.
    fn bind_variables(&self, vars: &dyn EngineVariables) {
        let _ = vars;
    }

    /// Closes idle connections older than the lifetime; run periodically
    /// (`xrpc_epoll_group_ctx_refresh_time`). Returns how many were closed.
    fn sweep_expired(&self) -> usize {
        0
    }

    /// Called once when the node's event loop runs, with its epoll groups: an engine that
    /// answers statements on the event loop ([`EngineConn::submit`]) opens its sockets there.
    /// Until then, and whenever that path cannot serve, statements run inline. Nothing by
    /// default.
    fn started(&self, groups: &[GroupHandle]) {
        let _ = groups;
    }

    /// Whether a connection may take statements through [`EngineConn::submit`] now (after
    /// [`Engine::started`]). When false, a session does not ask each statement
    /// [`EngineConn::submittable`] and runs it inline at once. False by default.
    fn submits(&self) -> bool {
        false
    }

    /// Called when the node stops: statements submitted and not answered yet end (with the
    /// engine's lost-connection error) and the engine's event-loop sockets close. Nothing by
    /// default.
    fn stopping(&self) {}
}

/// Receives the answer of a statement handed to [`EngineConn::submit`], on whichever thread
/// reads it (a worker of the node's event loop). None of its calls may block: a worker that
/// waited here would hold up every other statement answered on the same backend connection.
pub trait Completion: Send + 'static {
    /// Where the statement's result set goes, under the [`ResultSink`] contract. A sink error
    /// makes the engine drop the rest of the rows; the statement then ends with that error.
    fn sink(&mut self) -> &mut dyn ResultSink;

    /// The statement ended: its summary or its error. Called exactly once.
    fn done(self: Box<Self>, result: Result<ExecSummary, SqlError>);

    /// Whether the engine should stop reading the statement's rows on this thread for now and
    /// have another thread go on: the completion hands its rows to a consumer that waits on this
    /// very thread, so it can neither wait for room nor take more without bound.
    fn holds_back(&self) -> bool {
        false
    }
}

/// One connection to the engine, used by one session at a time.
pub trait EngineConn: Send {
    /// Runs one statement with `?` placeholders bound to `args`, in `schema` when given, pushing
    /// any result set into `sink`.
    ///
    /// The caller has already handled the node's own admin SQL. The engine handles the MySQL
    /// statements a MySQL client sends that it does not itself know (`SET autocommit`, `SET NAMES`,
    /// `START TRANSACTION`, `select connection_id()`, …).
    fn execute(
        &mut self,
        sql: &str,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError>;

    /// Whether [`EngineConn::submit`] would take this statement (run by [`EngineConn::execute`]
    /// otherwise): only when it can be answered on the event loop and leaves no state behind
    /// that the session would need. Asked right before `submit`, after the connection got its
    /// ids and schemas, with `script`, `sql` as the front end parses it (as for
    /// [`EngineConn::execute_parsed`]); false by default.
    fn submittable(
        &mut self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
    ) -> bool {
        let _ = (sql, script, args, schema);
        false
    }

    /// Sends a statement that [`EngineConn::submittable`] accepted, just before, and returns at
    /// once; its result and its end go to `completion` (perhaps before this returns, on this
    /// thread). [`EngineConn::interrupter`] stops it as it stops an `execute`. The default,
    /// for engines that never accept one, runs it inline.
    fn submit(
        &mut self,
        sql: &str,
        args: &[Value],
        schema: Option<&str>,
        mut completion: Box<dyn Completion>,
    ) {
        let result = self.execute(sql, args, schema, completion.sink());
        completion.done(result);
    }

    /// [`execute`](Self::execute) of a text the caller has read already: `script` is `sql` as
    /// the front end parses it (`xrpc_sql::parse_cached` with the default options), so an
    /// engine that reads statements need not look the text up again. By default the parse is
    /// not used.
    fn execute_parsed(
        &mut self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let _ = script;
        self.execute(sql, args, schema, sink)
    }

    /// The columns, primary key and indexes of table `table` in `schema` (the session's database
    /// when `None`), for the node's plan compiler of EXEC_PLAN_READ. Each engine reads
    /// its own catalog ([`shape`]); an unknown table is
    /// [`xrpc_proto::codes::NO_SUCH_TABLE`]. Engines that cannot describe tables refuse plans.
    fn describe_table(
        &mut self,
        schema: Option<&str>,
        table: &str,
    ) -> Result<TableShape, SqlError> {
        let _ = (schema, table);
        Err(SqlError::new(
            &xrpc_proto::codes::NOT_SUPPORTED_YET,
            "EXEC_PLAN_READ on this engine; send SQL instead",
        ))
    }

    /// Whether the connection carries state that must stay with its session (transaction,
    /// `autocommit = 0`, temp tables, attached databases, changed session variables).
    fn holds_session_state(&self) -> bool;

    /// A handle that interrupts the statement running on this connection from another thread.
    fn interrupter(&self) -> Arc<dyn Interrupt>;

    /// Sets the number `connection_id()` returns, so it names the session rather than the pooled
    /// connection.
    fn set_connection_id(&mut self, id: u64);

    /// Sets the database the session works in when neither the request (`schema_name`) nor the
    /// session itself (`USE`, an earlier `schema_name`) chose one: the schema named in the
    /// connection's authentication data, or `None`. Called before every statement, like
    /// [`EngineConn::set_connection_id`]; it is not session state.
    fn set_default_schema(&mut self, schema: Option<&str>) {
        let _ = schema;
    }

    /// Sets the session's current database, chosen by an earlier `USE` or `schema_name`
    /// (`None`: none chosen). Called before every statement, like
    /// [`EngineConn::set_default_schema`]: the session layer keeps it, so it follows the session
    /// across pooled connections and never stays behind on one.
    fn set_session_schema(&mut self, schema: Option<&str>) {
        let _ = schema;
    }

    /// The session's new current database if the last statement changed it (`USE db`, a
    /// request's `schema_name`, or `Some(None)` after DROP DATABASE of the current one); taken
    /// once, after each statement. The session layer keeps it, except on an auto-commit sid,
    /// where it lasts for the request.
    fn take_session_schema_change(&mut self) -> Option<Option<String>> {
        None
    }

    /// Hands in the session's diagnostics (the warnings `SHOW WARNINGS` lists), before every
    /// statement like [`EngineConn::set_session_schema`]; the statement clears or replaces
    /// them as MySQL does, and [`EngineConn::take_session_warnings`] gives them back after it.
    /// The session layer keeps them, so they never stay behind on a pooled connection.
    /// Engines whose backend keeps its own diagnostics (MySQL) ignore them.
    fn set_session_warnings(&mut self, warnings: Vec<SqlWarning>) {
        let _ = warnings;
    }

    /// The session's diagnostics after the statement (see
    /// [`EngineConn::set_session_warnings`]); taken once, after each statement.
    fn take_session_warnings(&mut self) -> Vec<SqlWarning> {
        Vec::new()
    }

    /// When the connection was opened; pooled connections are replaced once they are older than
    /// the engine's connection lifetime.
    fn opened_at(&self) -> Instant {
        Instant::now()
    }

    /// Rolls back any open transaction and drops session state, so the connection can go back to
    /// the pool (a session closed or killed while it held state).
    fn reset(&mut self) -> Result<(), SqlError>;

    /// Installs (or, with `None`, removes) the hook called when a statement starts waiting for a
    /// lock held by another connection. The hook runs on the executing thread, at most once per
    /// statement, and the guard it returns is dropped when the statement finishes; the session
    /// layer passes `GroupHandle::enter_wait`, so a worker blocked on a lock counts as stalled
    /// and the pool grows instead of deadlocking. Engines that never block on locks ignore it.
    /// The hook stays installed until replaced; [`Engine::release`] removes it.
    fn set_wait_hook(&mut self, hook: Option<WaitHook>) {
        let _ = hook;
    }
}

/// Marks a lock wait: called when the wait starts, and the returned guard is held until the
/// statement finishes. See [`EngineConn::set_wait_hook`].
pub type WaitHook = Arc<dyn Fn() -> Box<dyn Any> + Send + Sync>;

/// Interrupts a running statement; `KILL QUERY`.
///
/// # Contract
///
/// An interrupt is a flag on the engine connection, not an event: [`Interrupt::interrupt`] sets
/// it, and the statement running (or the next one to start, if none runs) fails with
/// [`xrpc_proto::codes::QUERY_INTERRUPTED`] at its next check. Engines check the flag when
/// `execute` is entered and keep honouring it until the statement ends — SQLite before each step,
/// every few thousand VM instructions and in lock waits; MySQL before the statement is sent,
/// while it waits for a backend connection, and with `KILL QUERY` on the backend once it runs.
///
/// The flag is cleared only when a statement ends (the kill was for it) and by
/// [`Interrupt::clear`] — never when a statement starts, as a kill that lands between the
/// caller publishing the handle and the engine starting would then be forgotten. The session
/// layer calls `clear` when it registers a statement, under the lock its kills take, so each
/// kill is either cleared there (it was for an earlier statement, and the session layer decided
/// whether it applies to this one) or lands on this statement.
pub trait Interrupt: Send + Sync {
    /// Sets the interrupt flag: the running statement, or else the next one to start, fails with
    /// [`xrpc_proto::codes::QUERY_INTERRUPTED`] at its next check.
    fn interrupt(&self);

    /// Forgets an interrupt that no statement has consumed yet.
    fn clear(&self);
}

/// The node's variables, as an engine sees them in [`Engine::bind_variables`]: integer settings
/// by their `SHOW VARIABLES` name.
pub trait EngineVariables {
    /// Shows `value` as the variable `name`'s value in force; an error when the name is unknown
    /// or the value outside the variable's range (the variable then keeps its value).
    fn set_int(&self, name: &str, value: i64) -> Result<(), SqlError>;

    /// Registers `apply`, run with the new value after every `SET GLOBAL name = value`. Unknown
    /// names are ignored.
    fn on_int_change(&self, name: &str, apply: Box<dyn Fn(i64) + Send + Sync>);
}
