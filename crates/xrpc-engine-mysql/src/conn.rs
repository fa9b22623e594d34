//! [`MysqlConn`]: a session's handle on the backend, whose statements go to the event-loop driver.
//!
//! See the [module docs](super) for the design.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use xrpc_proto::codes;
use xrpc_proto::value::Value;

use super::driver::{self, Driver, Level, Pinned, StatementId};
use super::state::{self, Changes, PinState};
use super::types::{self, Conv, Rewritten};
use xrpc_engine::result::{ColumnInfo, ExecSummary, ResultSink, SqlError};
use xrpc_engine::{Completion, EngineConn, Interrupt, WaitHook};
use xrpc_mysql_proto::{ColumnSet, OkInfo, StatementError, TextRow};

/// What every handle of one engine shares.
#[derive(Debug)]
pub struct Shared {
    /// The statements sent and those the backend failed.
    pub counters: Counters,
    /// The options in force: the start-up ones, changed at runtime by `SET GLOBAL` of their
    /// variables.
    pub options: Mutex<super::PoolOptions>,
    /// Whether the backend's global `sql_mode` lets a backslash escape in string literals.
    pub backslash_escapes: bool,
    /// The database named in the engine's URL, if any.
    pub default_schema: Option<String>,
    /// What `VERSION()`, `@@version` and `SHOW VARIABLES`' `version` row report: the backend's
    /// version with `-xrpc-<version>` appended.
    pub version: String,
    /// The isolation variable the backend knows by its other name only, if any.
    pub variable_alias: Option<types::VariableAlias>,
    /// The event-loop driver, once the node runs ([`Engine::started`](xrpc_engine::Engine::started)).
    pub driver: OnceLock<Driver>,
}

/// The engine's own counters, beside the driver's.
#[derive(Debug, Default)]
pub struct Counters {
    /// Statements sent to the backend (the clients', as rewritten, and the plan compiler's
    /// catalog reads), striped: every statement adds to it.
    statements: xrpc_net::StripedCounters<1>,
    /// Statements that ended in an error of the backend's, or 2013.
    pub backend_errors: AtomicU64,
}

impl Counters {
    /// Statements sent so far.
    pub fn statements(&self) -> u64 {
        self.statements.sum()[0]
    }

    fn count_statement(&self) {
        self.statements.add(0, 1);
    }
}

/// One session's view of the backend: the session variables and database it set (replayed on
/// whichever connection it runs on), and the driver connection it holds while state pins it.
pub struct MysqlConn {
    shared: Arc<Shared>,
    /// Session variables changed by this session.
    vars: BTreeMap<String, String>,
    /// The session's current database (`USE` or a request's `schema_name`): handed in by the
    /// session layer before every statement and reported back when a statement changed it, so
    /// it is the session's, not the handle's, and does not keep the handle alive.
    schema: Option<String>,
    /// Whether the last statement changed `schema`.
    schema_changed: bool,
    /// The schema of the session's authentication data, if any: used when neither the request
    /// nor `USE` chose one, before the URL's database.
    default_schema: Option<String>,
    connection_id: u64,
    /// The id of the session's last successful INSERT, for `last_insert_id()`; shared with the
    /// completion of a statement answered on the event loop, which sets it.
    last_insert_id: Arc<AtomicU64>,
    /// The statement [`EngineConn::submittable`] accepted, rewritten, for the `submit` after it.
    prepared: Option<Prepared>,
    /// The statements run now are a plan compile's catalog reads
    /// ([`EngineConn::describe_table`]).
    catalog_read: bool,
    /// The session's connection of the driver while its state pins one, and what that
    /// connection reported; replaced (not cleared) by a reset, so that a completion still in
    /// flight updates a state nobody reads any more.
    driver_session: Arc<Mutex<DriverSession>>,
    interrupt: Arc<MysqlInterrupt>,
    wait_hook: Option<WaitHook>,
    opened_at: Instant,
}

impl std::fmt::Debug for MysqlConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlConn")
            .field("connection_id", &self.connection_id)
            .field("vars", &self.vars)
            .field("schema", &self.schema)
            .finish()
    }
}

impl MysqlConn {
    /// A handle with no backend connection yet.
    pub fn new(shared: Arc<Shared>) -> Self {
        let interrupt = Arc::new(MysqlInterrupt {
            shared: Arc::clone(&shared),
            state: Mutex::default(),
        });
        Self {
            shared,
            vars: BTreeMap::new(),
            schema: None,
            schema_changed: false,
            default_schema: None,
            connection_id: 0,
            last_insert_id: Arc::default(),
            prepared: None,
            catalog_read: false,
            driver_session: Arc::default(),
            interrupt,
            wait_hook: None,
            opened_at: Instant::now(),
        }
    }

    /// The backend thread id of the driver connection the session holds, if it holds one
    /// (tests, diagnostics).
    pub fn driver_pinned_thread_id(&self) -> Option<u32> {
        let pin = self.driver_session.lock().pin.clone();
        pin.and_then(|pin| pin.thread_id())
    }

    /// The database a statement runs in: the request's, else the session's current one, else
    /// the authentication data's, else the URL's.
    fn wanted_schema<'a>(&'a self, schema: Option<&'a str>) -> Option<&'a str> {
        schema
            .or(self.schema.as_deref())
            .or(self.default_schema.as_deref())
            .or(self.shared.default_schema.as_deref())
    }

    /// Takes what the completions of the session's statements on the driver recorded (the
    /// session's variables and database as the backend reported them), and gives the driver
    /// connection back when nothing pins it any more.
    fn absorb(&mut self) {
        let unpinned = {
            let mut guard = self.driver_session.lock();
            let ds = &mut *guard;
            if std::mem::take(&mut ds.fresh) {
                self.vars.clone_from(&ds.session_vars);
                if std::mem::take(&mut ds.schema_changed) {
                    self.schema.clone_from(&ds.session_schema);
                    self.schema_changed = true;
                }
            }
            if ds.pin.is_some() && !ds.in_flight && !ds.state.pins() {
                ds.release()
            } else {
                None
            }
        };
        // Given back (parked, or reset) outside the lock: the kick may run the connection's
        // handler, and so completions, on this thread.
        drop(unpinned);
    }

    /// Hands a statement to the driver: into the shared rotation, or onto the session's own
    /// connection (taken now or when one comes free), with its follow-up statement behind it.
    /// A kill from now on cancels it there.
    fn send_to_driver(&mut self, prepared: Prepared, completion: Box<dyn Completion>) {
        let Some(submission) = self.interrupt.begin_submission() else {
            completion.done(Err(SqlError::new(
                &codes::QUERY_INTERRUPTED,
                codes::QUERY_INTERRUPTED.message,
            )));
            return;
        };
        self.shared.counters.count_statement();
        let Prepared {
            mut rewritten,
            route,
            leading,
            adopt_schema,
            follow_up,
        } = prepared;
        let sql = std::mem::take(&mut rewritten.sql);
        let own = !matches!(route, Route::Shared);
        let tracking = own.then(|| {
            let mut ds = self.driver_session.lock();
            ds.session_vars.clone_from(&self.vars);
            ds.session_schema.clone_from(&self.schema);
            ds.in_flight = true;
            Tracking {
                session: Arc::clone(&self.driver_session),
                keep_pin: matches!(
                    follow_up,
                    Some(FollowUp {
                        kind: FollowKind::NamedLocks,
                        ..
                    })
                ),
                levelled: leading.statements > 0,
                adopt_schema,
                rewritten: rewritten.clone(),
            }
        });
        let version_row = rewritten
            .show_variables
            .then(|| self.shared.version.clone());
        let held = follow_up
            .as_ref()
            .map(|_| Arc::new(Mutex::new(Held::Waiting)));
        let answer = Box::new(DriverAnswer {
            completion: Some(completion),
            columns: None,
            row_values: Vec::new(),
            renames: rewritten.renames,
            version_row,
            has_result_set: false,
            more_results: false,
            failure: None,
            interrupt: Arc::clone(&self.interrupt),
            submission,
            last_insert_id: Arc::clone(&self.last_insert_id),
            shared: Arc::clone(&self.shared),
            tracking,
            held: held.clone(),
        });
        let follow_up = follow_up.zip(held).map(|(follow_up, held)| {
            let answer = Box::new(FollowUpAnswer {
                held,
                kind: follow_up.kind,
                session: Arc::clone(&self.driver_session),
                first_row: None,
            });
            (follow_up.sql, answer)
        });
        // Built only for a connection of the session's own: the shared rotation needs neither
        // the levelling nor the session's state.
        let on_own = |sql, answer| OnOwnConnection {
            leading,
            sql,
            answer,
            follow_up,
            session: Arc::clone(&self.driver_session),
            interrupt: Arc::clone(&self.interrupt),
            submission,
        };
        match (route, self.shared.driver.get()) {
            (Route::Shared, Some(driver)) => {
                let id = driver.submit(sql, answer);
                self.interrupt.submitted(submission, id);
            }
            (Route::Own(pin), _) => on_own(sql, answer).send(&pin),
            (Route::OwnWhenFree(level), Some(driver)) => {
                // Known to a kill before the request may be answered (at once, here): the
                // statement's own id replaces it when it is sent.
                let id = driver.new_id();
                self.interrupt.submitted(submission, id);
                driver.pin_when_free(id, SHARED_SPARE, Some(level), Box::new(on_own(sql, answer)));
            }
            (_, None) => {
                // Nothing is routed to the driver while it does not run.
                driver::Completion::on_done(
                    answer,
                    Err(StatementError {
                        code: codes::ENGINE_ERROR.code as u16,
                        sql_state: codes::ENGINE_ERROR.sql_state.to_owned(),
                        message: "the backend driver is not running".to_owned(),
                    }),
                );
            }
        }
    }

    /// The text sent for `sql` (read by the front end as `script`) with this session's
    /// arguments, ids, version and variable names (`types::rewrite_parsed`).
    fn rewrite(
        &self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
    ) -> Result<types::Rewritten, SqlError> {
        types::rewrite_parsed(
            sql,
            script,
            args,
            self.connection_id,
            self.last_insert_id.load(Ordering::Relaxed),
            self.backslash_escapes(),
            Some(&self.shared.version),
            self.shared.variable_alias,
        )
    }

    /// Runs a statement the session layer runs inline on the session's own driver connection
    /// (its own already, taken now, or when one comes free), and streams its answer into `sink`
    /// on this worker, inside the stall guard.
    fn run_inline(
        &mut self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let rewritten = self.rewrite(sql, script, args)?;
        let Some(driver) = self.shared.driver.get().cloned() else {
            return Err(SqlError::new(
                &codes::ENGINE_ERROR,
                "the backend driver is not running",
            ));
        };
        // A catalog read's result is small: it may go into the shared rotation (a small
        // flow-control token's result may be large, and would hold the statements pipelined
        // behind it while its client reads slowly).
        let prepared = if self.catalog_read && self.fits_shared_rotation(&rewritten, script, schema)
        {
            Prepared::shared(rewritten)
        } else {
            self.on_own_connection(&driver, rewritten, script, schema)
        };
        let handoff = Arc::new(Handoff::new());
        self.send_to_driver(
            prepared,
            Box::new(Streamed {
                handoff: Arc::clone(&handoff),
            }),
        );
        // When the client is gone the rest of the result is not wanted: the statement is
        // stopped at once.
        let interrupt = Arc::clone(&self.interrupt);
        let streamed = handoff.receive(sink, &|| interrupt.interrupt(), &|| driver.help());
        let result = handoff.finished();
        self.absorb();
        streamed?;
        result
    }

    /// Whether a statement may go into the shared rotation: the driver's shared connections stay
    /// as they logged in, in the URL's database, with no variables of any session, so a
    /// statement there must come from a session that holds nothing there, leave nothing and
    /// need no statement after it.
    fn fits_shared_rotation(
        &self,
        rewritten: &Rewritten,
        script: &xrpc_sql::Script,
        schema: Option<&str>,
    ) -> bool {
        self.driver_session.lock().pin.is_none()
            && self.vars.is_empty()
            && self.wanted_schema(schema) == self.shared.default_schema.as_deref()
            && leaves_no_state(script)
            && !rewritten.user_variable
            && !rewritten.user_variable_assigned
            && !rewritten.named_lock
            && !rewritten.unnamed_lock
            && !rewritten.show_variables
            && !rewritten.unread
    }

    /// A statement for the session's own driver connection: the one it holds, else one taken
    /// now (leaving one to the shared rotation), else the first to come free (the driver's pin
    /// queue). The connection is brought to the session's database and variables in the same
    /// query; a named-lock question or the isolation variable's other name follows it.
    fn on_own_connection(
        &mut self,
        driver: &Driver,
        rewritten: Rewritten,
        script: &xrpc_sql::Script,
        schema: Option<&str>,
    ) -> Prepared {
        let held = self.driver_session.lock().pin.clone();
        let route = match held {
            Some(pin) => Route::Own(pin),
            None => {
                let level = Level {
                    schema: self.wanted_schema(schema).map(str::to_owned),
                    vars: self.vars.clone(),
                };
                match driver.pin_at(SHARED_SPARE, &level) {
                    Some((pinned, at)) => {
                        Route::Own(self.hold(Some(pinned), at).expect("given a pin"))
                    }
                    None => {
                        self.hold(None, None);
                        Route::OwnWhenFree(level)
                    }
                }
            }
        };
        let leading = self.levelling(self.database_before(script, schema));
        if let (Route::Own(pin), true) = (&route, leading.switches_database) {
            pin.database_changed();
        }
        let follow_up = self.follow_up(&rewritten);
        Prepared {
            route,
            leading,
            adopt_schema: self.switches_schema(schema),
            follow_up,
            rewritten,
        }
    }

    /// What must run right after a statement on the session's own connection: the question of
    /// which named locks it holds, or the row of the isolation variable's other name.
    fn follow_up(&self, rewritten: &Rewritten) -> Option<FollowUp> {
        if rewritten.named_lock {
            let probe = state::named_lock_probe(&mut self.driver_session.lock().state, rewritten);
            return probe.map(|sql| FollowUp {
                sql,
                kind: FollowKind::NamedLocks,
            });
        }
        let alias = self
            .shared
            .variable_alias
            .filter(|_| rewritten.show_variables)?;
        Some(FollowUp {
            sql: alias.probe(rewritten, self.backslash_escapes()),
            kind: FollowKind::VariableAlias {
                missing: alias.missing,
            },
        })
    }

    /// The database a connection must be in before `script` runs: none for a lone `USE`, which
    /// chooses it itself (the session's may be one that does not exist: the node accepts an
    /// unknown authentication schema, where MySQL refuses the connect).
    fn database_before(&self, script: &xrpc_sql::Script, schema: Option<&str>) -> Option<String> {
        let chooses =
            matches!(script.as_slice(), [Ok(parsed)] if parsed.kind == xrpc_sql::Kind::Use);
        (!chooses)
            .then(|| self.wanted_schema(schema).map(str::to_owned))
            .flatten()
    }

    /// The request's `schema_name` when it is not the session's current database.
    fn switches_schema(&self, schema: Option<&str>) -> Option<String> {
        schema
            .filter(|s| self.schema.as_deref() != Some(*s))
            .map(str::to_owned)
    }

    /// What brings the session's driver connection level with the session before a statement
    /// in database `wanted`: a database switch and one `SET SESSION` of the variables that
    /// differ, recorded as done (a failure of either fails the statement behind them, and
    /// [`Tracking::record`] forgets what the connection holds then).
    fn levelling(&self, wanted: Option<String>) -> Levelling {
        let mut leading = Levelling::default();
        let mut guard = self.driver_session.lock();
        let ds = &mut *guard;
        if let Some(wanted) = wanted.filter(|w| ds.backend_schema.as_deref() != Some(w.as_str())) {
            leading.sql = format!("USE {};", quote_identifier(&wanted));
            leading.statements += 1;
            leading.switches_database = true;
            ds.backend_schema = Some(wanted);
        }
        if let Some(set) = state::replay_statement(&ds.backend_vars, &self.vars) {
            leading.sql.push_str(&set);
            leading.sql.push(';');
            leading.statements += 1;
            ds.backend_vars.clone_from(&self.vars);
        }
        leading
    }

    /// Makes `pinned`, if given, the session's own connection, at `at` (parked there by a
    /// session at that level) or as a connection fresh from the shared rotation is (reset, in
    /// the URL's database).
    fn hold(&mut self, pinned: Option<Pinned>, at: Option<Level>) -> Option<Arc<Pinned>> {
        let pinned = pinned.map(Arc::new);
        let mut ds = self.driver_session.lock();
        ds.pin.clone_from(&pinned);
        match at {
            Some(at) => {
                ds.backend_vars = at.vars;
                ds.backend_schema = at.schema;
            }
            None => {
                ds.backend_vars.clear();
                ds.backend_schema.clone_from(&self.shared.default_schema);
            }
        }
        ds.state = PinState::default();
        ds.level_unknown = false;
        pinned
    }

    fn backslash_escapes(&self) -> bool {
        match self.vars.get("sql_mode") {
            Some(mode) => !mode.to_ascii_uppercase().contains("NO_BACKSLASH_ESCAPES"),
            None => self.shared.backslash_escapes,
        }
    }
}

/// Whether a statement, as the front end reads it, can leave nothing on its connection that a
/// later statement of the session (or of another session) would see: one plain SELECT, INSERT,
/// REPLACE, UPDATE or DELETE. User variables, named locks and `SHOW VARIABLES` are judged on the
/// rewritten text ([`Rewritten`]); transactions, SET, temporary tables, CALL, PREPARE, LOCK
/// TABLES, XA and the rest are other kinds.
fn leaves_no_state(script: &xrpc_sql::Script) -> bool {
    matches!(
        script.as_slice(),
        [Ok(parsed)] if parsed.statement().is_some()
            && matches!(
                parsed.kind,
                xrpc_sql::Kind::Select
                    | xrpc_sql::Kind::Insert
                    | xrpc_sql::Kind::Update
                    | xrpc_sql::Kind::Delete
            )
    )
}

/// A result's columns as the session sees them, and how each value converts.
struct MappedColumns {
    infos: Vec<ColumnInfo>,
    convs: Vec<Conv>,
}

impl MappedColumns {
    fn new(columns: &[xrpc_mysql_proto::mysql_common::packets::Column]) -> Self {
        let (infos, convs) = columns.iter().map(types::map_column).unzip();
        Self { infos, convs }
    }
}

/// The driver's completion of one submitted statement: maps columns and converts rows as the
/// crate docs say, into the session's completion, and ends it.
struct DriverAnswer {
    /// Taken when the statement ends.
    completion: Option<Box<dyn Completion>>,
    /// The first result's columns, once they came.
    columns: Option<Arc<MappedColumns>>,
    /// The buffer each row's values are converted into (empty between rows).
    row_values: Vec<Value>,
    renames: Vec<(String, String)>,
    /// For a `SHOW … VARIABLES`: what its `version` row reports.
    version_row: Option<String>,
    has_result_set: bool,
    /// A result ended with another following (a CALL, several statements): only the last
    /// one's tracker data arrives.
    more_results: bool,
    /// The sink refused a row or a value did not convert: the rest of the rows are dropped and
    /// the statement ends with this.
    failure: Option<SqlError>,
    interrupt: Arc<MysqlInterrupt>,
    submission: u64,
    last_insert_id: Arc<AtomicU64>,
    shared: Arc<Shared>,
    /// On the session's own connection: what the statement left there is recorded.
    tracking: Option<Tracking>,
    /// A follow-up statement finishes the answer: it is left here for it.
    held: Option<HeldAnswer>,
}

impl DriverAnswer {
    fn fail(&mut self, err: SqlError) {
        if self.failure.is_none() {
            self.failure = Some(err);
            // Stop the backend too: the rest of the result is not wanted.
            self.interrupt.interrupt();
        }
    }
}

impl driver::Completion for DriverAnswer {
    fn on_columns(&mut self, columns: &Arc<ColumnSet>) {
        if self.failure.is_some() {
            return;
        }
        // Mapped once per distinct column set of a backend connection (the set is reused for
        // the same definitions), not once per statement.
        let mapped = columns
            .derived(|columns| Arc::new(MappedColumns::new(columns)))
            .cloned()
            .unwrap_or_else(|| Arc::new(MappedColumns::new(columns)));
        // A column named by a substituted call or variable gets its written text back.
        let original = |info: &ColumnInfo| {
            info.original_name
                .is_empty()
                .then(|| self.renames.iter().find(|(with, _)| *with == info.name))
                .flatten()
                .map(|(_, original)| original)
        };
        let infos: std::borrow::Cow<'_, [ColumnInfo]> =
            if mapped.infos.iter().any(|info| original(info).is_some()) {
                let mut infos = mapped.infos.clone();
                for (info, mapped) in infos.iter_mut().zip(&mapped.infos) {
                    if let Some(original) = original(mapped) {
                        info.name.clone_from(original);
                    }
                }
                infos.into()
            } else {
                mapped.infos.as_slice().into()
            };
        if infos.len() != 2 {
            self.version_row = None;
        }
        if infos.is_empty() {
            return;
        }
        self.has_result_set = true;
        if let Some(completion) = self.completion.as_mut()
            && let Err(err) = completion.sink().metadata(&infos)
        {
            self.fail(err.into());
        }
        self.columns = Some(mapped);
    }

    fn on_row(&mut self, row: &TextRow) {
        if self.failure.is_some() {
            return;
        }
        let Some(columns) = &self.columns else {
            return;
        };
        // One buffer for the statement's rows; text values share the row's packet.
        let mut values = std::mem::take(&mut self.row_values);
        let converted = columns
            .convs
            .iter()
            .zip(row.values())
            .try_for_each(|(&conv, raw)| {
                values.push(types::convert_in(conv, raw, row.payload())?);
                Ok::<_, SqlError>(())
            });
        if let (Some(version), Ok(())) = (&self.version_row, &converted)
            && matches!(&values[0], Value::Bytes(name) if name.eq_ignore_ascii_case(b"version"))
        {
            values[1] = Value::Bytes(bytes::Bytes::copy_from_slice(version.as_bytes()));
        }
        let result = match (converted, self.completion.as_mut()) {
            (Ok(()), Some(completion)) => completion.sink().row(&values).map_err(SqlError::from),
            (Ok(()), None) => Ok(()),
            (Err(err), _) => Err(err),
        };
        // The values go now: they share the backend connection's receive buffer.
        values.clear();
        self.row_values = values;
        if let Err(err) = result {
            self.fail(err);
        }
    }

    fn on_result_end(&mut self) {
        self.more_results = true;
    }

    fn holds_back(&self) -> bool {
        self.completion
            .as_ref()
            .is_some_and(|completion| completion.holds_back())
    }

    fn on_done(mut self: Box<Self>, outcome: Result<OkInfo, StatementError>) {
        self.interrupt.end_submission(self.submission);
        if let Some(tracking) = &self.tracking {
            // Given back (reset) here, outside the session's lock, when nothing pins it.
            drop(tracking.record(&outcome, self.has_result_set, self.more_results));
        }
        let counters = &self.shared.counters;
        let result = match (self.failure.take(), outcome) {
            (Some(err), _) => Err(err),
            (None, Ok(ok)) => {
                let last_insert_id = ok.last_insert_id.filter(|&id| id > 0);
                if let Some(id) = last_insert_id {
                    self.last_insert_id.store(id, Ordering::Relaxed);
                }
                Ok(ExecSummary {
                    has_result_set: self.has_result_set,
                    rows_affected: ok.affected_rows,
                    last_insert_id,
                })
            }
            (None, Err(err)) if err.code == StatementError::connection_lost().code => {
                counters.backend_errors.fetch_add(1, Ordering::Relaxed);
                // On the session's own connection, its state went with it.
                let state_gone = if self.tracking.is_some() {
                    "; an open transaction and other session state on it are gone"
                } else {
                    ""
                };
                Err(SqlError::new(
                    &codes::BACKEND_LOST,
                    format!(
                        "Lost connection to the backend MySQL server during query ({}){state_gone}",
                        err.message
                    ),
                ))
            }
            (None, Err(err)) => {
                // The driver's own refusals (no room in time, no connection) never reached
                // the backend.
                let refused_by_driver = [&codes::BACKEND_BUSY, &codes::BACKEND_UNREACHABLE]
                    .iter()
                    .any(|code| u32::from(err.code) == code.code);
                if !refused_by_driver {
                    counters.backend_errors.fetch_add(1, Ordering::Relaxed);
                }
                Err(SqlError {
                    code: u32::from(err.code),
                    sql_state: err.sql_state,
                    message: err.message,
                })
            }
        };
        if let Some(completion) = self.completion.take() {
            let completion = match &self.held {
                Some(held) => {
                    let mut held = held.lock();
                    match *held {
                        // The follow-up ended first (the connection was lost): nothing to
                        // add to the answer.
                        Held::FollowUpEnded => Some(completion),
                        _ => {
                            *held = Held::Answer(completion, result.clone());
                            None
                        }
                    }
                }
                None => Some(completion),
            };
            if let Some(completion) = completion {
                completion.done(result);
            }
        }
    }
}

impl Prepared {
    /// A statement of the shared rotation ([`MysqlConn::fits_shared_rotation`]).
    fn shared(rewritten: Rewritten) -> Self {
        Self {
            rewritten,
            route: Route::Shared,
            leading: Levelling::default(),
            adopt_schema: None,
            follow_up: None,
        }
    }
}

/// A statement [`EngineConn::submittable`] accepted, or one run inline, for the driver.
struct Prepared {
    rewritten: Rewritten,
    route: Route,
    /// What brings the session's own connection level with the session first
    /// ([`MysqlConn::levelling`]).
    leading: Levelling,
    /// The request's `schema_name`, when it switches the session's database: the session's
    /// current database once the statement behind the switch ran (see [`Tracking::record`]).
    adopt_schema: Option<String>,
    follow_up: Option<FollowUp>,
}

/// Where a statement goes on the driver.
enum Route {
    /// The shared rotation, pipelined between other sessions' statements.
    Shared,
    /// The session's own connection.
    Own(Arc<Pinned>),
    /// The session's own connection, once one comes free ([`Driver::pin_when_free`]); one
    /// parked at this level first.
    OwnWhenFree(Level),
}

/// A statement of the node's own that runs right after a session's statement on its own
/// connection, whose answer completes the session's.
struct FollowUp {
    sql: String,
    kind: FollowKind,
}

#[derive(Debug, Clone, Copy)]
enum FollowKind {
    /// Which of the named locks it used the connection holds ([`state::named_lock_probe`]):
    /// decides whether the session keeps the connection.
    NamedLocks,
    /// The value of the isolation variable under the name the backend lacks, a row added to
    /// `SHOW VARIABLES` when it passes the statement's filter.
    VariableAlias { missing: &'static str },
}

/// A session's answer waiting for its follow-up statement, and its result so far.
type HeldAnswer = Arc<Mutex<Held>>;

/// Which of a statement and its follow-up ended first.
enum Held {
    /// Neither.
    Waiting,
    /// The statement: its answer, for the follow-up to finish.
    Answer(Box<dyn Completion>, Result<ExecSummary, SqlError>),
    /// The follow-up (both ended at once with 2013): the statement finishes its answer itself.
    FollowUpEnded,
}

/// The completion of a [`FollowUp`]: finishes the session's answer the statement before it left
/// in `held`.
struct FollowUpAnswer {
    held: HeldAnswer,
    kind: FollowKind,
    session: Arc<Mutex<DriverSession>>,
    first_row: Option<Vec<Option<Vec<u8>>>>,
}

impl driver::Completion for FollowUpAnswer {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}

    fn on_row(&mut self, row: &TextRow) {
        if self.first_row.is_none() {
            self.first_row = Some(row.values().map(|v| v.map(<[u8]>::to_vec)).collect());
        }
    }

    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>) {
        let FollowUpAnswer {
            held,
            kind,
            session,
            first_row,
        } = *self;
        let (mut completion, mut result) = {
            let mut held = held.lock();
            match std::mem::replace(&mut *held, Held::FollowUpEnded) {
                Held::Answer(completion, result) => (completion, result),
                _ => return,
            }
        };
        match kind {
            FollowKind::NamedLocks => {
                let answer = outcome.map(|_| {
                    first_row
                        .and_then(|row| row.into_iter().next().flatten())
                        .map(|flags| String::from_utf8_lossy(&flags).into_owned())
                });
                let unpinned = {
                    let mut guard = session.lock();
                    let ds = &mut *guard;
                    state::named_lock_answer(&mut ds.state, answer);
                    if !ds.in_flight && !ds.state.pins() {
                        ds.release()
                    } else {
                        None
                    }
                };
                // Given back (reset) outside the session's lock.
                drop(unpinned);
            }
            FollowKind::VariableAlias { missing } => match (&result, outcome) {
                (Ok(summary), Ok(_)) if summary.has_result_set => {
                    let value = first_row.and_then(|row| row.into_iter().nth(1).flatten());
                    if let Some(value) = value {
                        let row = [
                            Value::Bytes(bytes::Bytes::from_static(missing.as_bytes())),
                            Value::Bytes(bytes::Bytes::from(value)),
                        ];
                        if let Err(err) = completion.sink().row(&row) {
                            result = Err(err.into());
                        }
                    }
                }
                (Ok(_), Err(err)) => result = Err(statement_error(err)),
                _ => {}
            },
        }
        completion.done(result);
    }
}

/// A statement (and its follow-up) for the session's own connection: sent there at once, or
/// once the driver takes a connection for the session ([`driver::PinRequest`]).
struct OnOwnConnection {
    leading: Levelling,
    sql: String,
    answer: Box<DriverAnswer>,
    follow_up: Option<(String, Box<FollowUpAnswer>)>,
    session: Arc<Mutex<DriverSession>>,
    interrupt: Arc<MysqlInterrupt>,
    submission: u64,
}

impl OnOwnConnection {
    fn send(self, pin: &Arc<Pinned>) {
        let (leading, skipped) = (&self.leading.sql, self.leading.statements);
        let id = match self.follow_up {
            Some((then, then_answer)) => {
                pin.submit_pair(leading, skipped, &self.sql, self.answer, &then, then_answer)
            }
            None => pin.submit_behind(leading, skipped, &self.sql, self.answer),
        };
        self.interrupt.submitted(self.submission, id);
    }
}

impl driver::PinRequest for OnOwnConnection {
    fn pinned(self: Box<Self>, pinned: Pinned) {
        let pin = Arc::new(pinned);
        if self.leading.switches_database {
            pin.database_changed();
        }
        // The session's state was made that of a fresh connection when it asked.
        self.session.lock().pin = Some(Arc::clone(&pin));
        self.send(&pin);
    }

    fn failed(self: Box<Self>, error: StatementError) {
        let mut answer = self.answer;
        // Nothing follows: the statement's answer is the session's.
        answer.held = None;
        driver::Completion::on_done(answer, Err(error));
    }
}

/// What a session holds on the driver; see [`MysqlConn::absorb`].
#[derive(Default)]
struct DriverSession {
    /// The session's own connection, while its state pins one (and while a statement that may
    /// leave state runs on it).
    pin: Option<Arc<Pinned>>,
    /// What that connection holds, as its OK packets reported it.
    backend_vars: BTreeMap<String, String>,
    backend_schema: Option<String>,
    state: PinState,
    /// The session's variables and database as of its last statement there.
    session_vars: BTreeMap<String, String>,
    session_schema: Option<String>,
    /// That statement changed the database.
    schema_changed: bool,
    /// The handle has not taken the above yet.
    fresh: bool,
    /// A statement of the session runs there: what it leaves decides whether the session
    /// keeps the connection.
    in_flight: bool,
    /// A levelling statement failed there: what the connection holds is not known, and it
    /// is reset when given back, never parked.
    level_unknown: bool,
}

impl DriverSession {
    /// Gives the session's connection up (dropped by the caller outside the lock): parked at
    /// what it holds, so that the next session there needs no `USE` or `SET`, unless that is
    /// not known.
    fn release(&mut self) -> Option<Arc<Pinned>> {
        let pin = self.pin.take()?;
        if !self.level_unknown {
            pin.park_at(Level {
                schema: self.backend_schema.clone(),
                vars: self.backend_vars.clone(),
            });
        }
        Some(pin)
    }
}

/// The session-state side of a statement on a session's own driver connection.
struct Tracking {
    session: Arc<Mutex<DriverSession>>,
    rewritten: Rewritten,
    /// Named locks are asked about after the statement, which decides then.
    keep_pin: bool,
    /// Levelling statements went before it ([`MysqlConn::levelling`]), recorded as done.
    levelled: bool,
    /// The request's `schema_name`, which becomes the session's database unless switching to
    /// it failed.
    adopt_schema: Option<String>,
}

impl Tracking {
    /// Records what the statement left on the connection, from its OK packet's tracker data, as
    /// [`state::apply`] decides; returns the connection when nothing pins it
    /// any more, to be dropped (given back) outside the lock.
    fn record(
        &self,
        outcome: &Result<OkInfo, StatementError>,
        result_set: bool,
        several_results: bool,
    ) -> Option<Arc<Pinned>> {
        let mut guard = self.session.lock();
        let ds = &mut *guard;
        ds.in_flight = false;
        let switched = match outcome {
            Ok(_) => true,
            // 1049: the switch itself failed (or the statement named another unknown one,
            // which leaves the database as the switch set it: taken as the former).
            Err(err) => {
                u32::from(err.code) != codes::BAD_DB.code
                    && err.code != StatementError::connection_lost().code
            }
        };
        if let Some(schema) = self.adopt_schema.as_ref().filter(|_| switched) {
            ds.session_schema = Some(schema.clone());
            ds.schema_changed = true;
            ds.fresh = true;
        }
        match outcome {
            Ok(ok) => {
                let changes = Changes::from_ok(ok);
                state::apply(
                    state::KnownState {
                        vars: &mut ds.backend_vars,
                        schema: &mut ds.backend_schema,
                        state: &mut ds.state,
                    },
                    &mut ds.session_vars,
                    &mut ds.session_schema,
                    &changes,
                    &self.rewritten,
                    result_set,
                    several_results,
                );
                ds.schema_changed |= changes.schema.is_some();
                ds.fresh = true;
                if let (Some(_), Some(pin)) = (&changes.schema, &ds.pin) {
                    pin.database_changed();
                }
            }
            Err(err) if err.code == StatementError::connection_lost().code => {
                // Whatever state it held is gone with it.
                ds.state = PinState::default();
                ds.backend_vars.clear();
                ds.backend_schema = None;
                ds.fresh = true;
                return ds.pin.take();
            }
            // An error packet carries no tracker data: the state is as it was, but for a
            // levelling statement that may have failed: the next statement levels again.
            Err(_) => {
                if self.levelled {
                    ds.backend_vars.clear();
                    ds.backend_schema = None;
                }
                // Nor is it known what a statement that failed part-way left (a CALL, several
                // statements): the connection is reset when given back, never parked.
                ds.level_unknown = true;
                return None;
            }
        }
        if self.keep_pin || ds.state.pins() {
            None
        } else {
            ds.release()
        }
    }
}

/// `name` as a backquoted identifier.
fn quote_identifier(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A backend error of the driver as the session's error.
fn statement_error(err: StatementError) -> SqlError {
    SqlError {
        code: u32::from(err.code),
        sql_state: err.sql_state,
        message: err.message,
    }
}

/// Driver connections a session's statement leaves to the shared rotation when it takes one of
/// its own: the statements of sessions that hold nothing never wait behind pinned ones.
const SHARED_SPARE: usize = 1;

/// Statements sent before a session's statement on its own driver connection, in the same
/// COM_QUERY, to bring the connection level with the session.
#[derive(Debug, Default)]
struct Levelling {
    /// Each ends with `;`.
    sql: String,
    statements: usize,
    /// One of them is a `USE`.
    switches_database: bool,
}

/// Rows the reading worker hands over before it waits for the waiting worker to take them: a
/// result streamed to a worker that runs the statement inline costs the node this much, however
/// large it is, and the backend waits (its rows stay in the socket) while the client is slow.
const HANDOFF_BYTES: usize = 256 * 1024;

/// How long a worker waiting for an inline statement's answer sleeps before it checks whether it
/// must drive the backend connections itself ([`Driver::help`]).
const HELP_AFTER: std::time::Duration = std::time::Duration::from_millis(5);

/// A statement's answer on its way from the worker that reads it from the backend to the
/// worker that runs the statement inline and waits for it ([`MysqlConn::run_on_pin`]), a
/// bounded amount at a time.
///
/// The reader waits for room (counted as stalled in its own epoll group), except on the
/// waiting worker's own thread: a kick of the connection there may read the answer before the
/// worker starts waiting, and must not wait for itself. There the completion holds back once
/// the hand-off is full ([`Completion::holds_back`]): the connection's handler stops reading and
/// another worker goes on, so the hand-off exceeds its bound by one read at most. After the
/// waiting worker's sink failed (`abandoned`) the reader drops the rest.
struct Handoff {
    state: Mutex<HandoffState>,
    /// The waiting worker sleeps on it.
    ready: Condvar,
    /// The reader sleeps on it.
    room: Condvar,
    receiver: std::thread::ThreadId,
}

#[derive(Default)]
struct HandoffState {
    columns: Option<Vec<ColumnInfo>>,
    rows: std::collections::VecDeque<Vec<Value>>,
    bytes: usize,
    result: Option<Result<ExecSummary, SqlError>>,
    abandoned: bool,
}

impl Handoff {
    fn new() -> Self {
        Self {
            state: Mutex::new(HandoffState::default()),
            ready: Condvar::new(),
            room: Condvar::new(),
            receiver: std::thread::current().id(),
        }
    }

    /// Writes the answer's columns and rows into `sink` as they arrive, until the statement
    /// ends. After a sink error `on_failure` runs, the rest is dropped, and the error is
    /// returned once the statement ended.
    ///
    /// While nothing arrives it calls `help` every [`HELP_AFTER`]: when every worker waits as
    /// this one does, nobody else reads the backend sockets (see [`Driver::help`]).
    fn receive(
        &self,
        sink: &mut dyn ResultSink,
        on_failure: &dyn Fn(),
        help: &dyn Fn(),
    ) -> Result<(), SqlError> {
        // What this worker's turn left for its end (a kick of the connection the answer comes
        // from, answers for its clients) goes out before it sleeps.
        xrpc_net::flush_deferred_sends();
        let mut failed = None;
        loop {
            let (columns, rows, over) = {
                let mut st = self.state.lock();
                while st.columns.is_none() && st.rows.is_empty() && st.result.is_none() {
                    if self.ready.wait_for(&mut st, HELP_AFTER).timed_out() {
                        parking_lot::MutexGuard::unlocked(&mut st, help);
                    }
                }
                let columns = st.columns.take();
                let rows = std::mem::take(&mut st.rows);
                st.bytes = 0;
                let over = st.result.is_some();
                if failed.is_some() {
                    st.abandoned = true;
                }
                self.room.notify_all();
                (columns, rows, over)
            };
            if failed.is_none() {
                let written = columns
                    .map_or(Ok(()), |columns| sink.metadata(&columns))
                    .and_then(|()| rows.iter().try_for_each(|row| sink.row(row)));
                if let Err(err) = written {
                    failed = Some(SqlError::from(err));
                    self.state.lock().abandoned = true;
                    self.room.notify_all();
                    on_failure();
                }
            }
            if over {
                return failed.map_or(Ok(()), Err);
            }
        }
    }

    /// The statement's outcome, once [`Handoff::receive`] returned.
    fn finished(&self) -> Result<ExecSummary, SqlError> {
        let mut st = self.state.lock();
        loop {
            if let Some(result) = st.result.take() {
                return result;
            }
            self.ready.wait(&mut st);
        }
    }
}

/// The completion of a statement run by [`MysqlConn::run_on_pin`]: the reader's side of its
/// [`Handoff`].
struct Streamed {
    handoff: Arc<Handoff>,
}

impl ResultSink for Streamed {
    fn metadata(&mut self, columns: &[ColumnInfo]) -> Result<(), xrpc_engine::result::SinkError> {
        let h = &self.handoff;
        let mut st = h.state.lock();
        if !st.abandoned {
            st.columns = Some(columns.to_vec());
            h.ready.notify_all();
        }
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), xrpc_engine::result::SinkError> {
        let h = &self.handoff;
        let size: usize = row
            .iter()
            .map(|value| match value {
                Value::Bytes(bytes) => bytes.len() + 16,
                _ => 16,
            })
            .sum();
        let mut st = h.state.lock();
        if st.bytes >= HANDOFF_BYTES && !st.abandoned && std::thread::current().id() != h.receiver {
            // This worker reads the backend socket and may belong to another group than the
            // session's connection: its own group must count it as stalled to keep serving
            // its connections (among them, perhaps, the one the receiver waits on).
            let _stalled = xrpc_net::GroupHandle::of_this_worker().map(|group| group.enter_wait());
            while st.bytes >= HANDOFF_BYTES && !st.abandoned {
                h.room.wait(&mut st);
            }
        }
        if !st.abandoned {
            st.rows.push_back(row.to_vec());
            st.bytes += size;
            h.ready.notify_all();
        }
        Ok(())
    }
}

impl Completion for Streamed {
    fn sink(&mut self) -> &mut dyn ResultSink {
        self
    }

    fn holds_back(&self) -> bool {
        let h = &self.handoff;
        std::thread::current().id() == h.receiver && {
            let st = h.state.lock();
            st.bytes >= HANDOFF_BYTES && !st.abandoned
        }
    }

    fn done(self: Box<Self>, result: Result<ExecSummary, SqlError>) {
        let h = &self.handoff;
        h.state.lock().result = Some(result);
        h.ready.notify_all();
    }
}

impl EngineConn for MysqlConn {
    fn describe_table(
        &mut self,
        schema: Option<&str>,
        table: &str,
    ) -> Result<xrpc_engine::shape::TableShape, SqlError> {
        self.catalog_read = true;
        let shape = xrpc_engine::shape::describe_mysql(self, schema, table);
        self.catalog_read = false;
        shape
    }

    fn execute(
        &mut self,
        sql: &str,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        let script = xrpc_sql::parse_cached(sql, &xrpc_sql::Options::default());
        self.execute_parsed(sql, &script, args, schema, sink)
    }

    fn execute_parsed(
        &mut self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> Result<ExecSummary, SqlError> {
        // The worker waits for the answer (a connection of the session's own, the statement,
        // its rows): inside the guard it counts as stalled and the framework adds a worker.
        let _stalled = self.wait_hook.as_ref().map(|hook| hook());
        self.absorb();
        self.run_inline(sql, script, args, schema, sink)
    }

    fn submittable(
        &mut self,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
    ) -> bool {
        self.prepared = None;
        self.absorb();
        let Some(driver) = self.shared.driver.get() else {
            return false;
        };
        let Ok(rewritten) = self.rewrite(sql, script, args) else {
            // The inline path reports the error.
            return false;
        };
        let driver = driver.clone();
        self.prepared = Some(if self.fits_shared_rotation(&rewritten, script, schema) {
            Prepared::shared(rewritten)
        } else {
            // It may leave state on its connection, or needs the session's variables or
            // database, or a statement after it: it goes to a connection of the session's own,
            // so that no other session's statement runs there before its OK packet has told;
            // the completion keeps the connection for the session if the statement left state,
            // else gives it back (reset).
            self.on_own_connection(&driver, rewritten, script, schema)
        });
        true
    }

    fn submit(
        &mut self,
        sql: &str,
        args: &[Value],
        schema: Option<&str>,
        completion: Box<dyn Completion>,
    ) {
        let Some(prepared) = self.prepared.take() else {
            let mut completion = completion;
            let result = self.execute(sql, args, schema, completion.sink());
            completion.done(result);
            return;
        };
        // A `schema_name` is the session's current database from now on, as after `USE` (on a
        // connection of the session's own, once the switch there succeeded: `Tracking::record`).
        if matches!(prepared.route, Route::Shared)
            && let Some(schema) = schema.filter(|s| self.schema.as_deref() != Some(*s))
        {
            self.schema = Some(schema.to_owned());
            self.schema_changed = true;
        }
        self.send_to_driver(prepared, completion);
    }

    fn holds_session_state(&self) -> bool {
        // Without a pinned connection the handle is cheap to keep: it carries what the session
        // changed (variables, the id last_insert_id() returns). The database is the session
        // layer's (`set_session_schema`). A statement in flight on a connection of the
        // session's own may leave state there (a named lock taken by a SELECT), also while it
        // still waits for that connection in the driver's pin queue.
        !self.vars.is_empty() || self.last_insert_id.load(Ordering::Relaxed) != 0 || {
            let ds = self.driver_session.lock();
            ds.pin.is_some() || ds.in_flight || (ds.fresh && !ds.session_vars.is_empty())
        }
    }

    fn interrupter(&self) -> Arc<dyn Interrupt> {
        self.interrupt.clone()
    }

    fn set_connection_id(&mut self, id: u64) {
        self.connection_id = id;
    }

    fn set_default_schema(&mut self, schema: Option<&str>) {
        if self.default_schema.as_deref() != schema {
            self.default_schema = schema.map(str::to_owned);
        }
    }

    fn set_session_schema(&mut self, schema: Option<&str>) {
        self.absorb();
        if self.schema_changed {
            // A statement answered on the event loop changed it after the session asked: the
            // backend's is the session's, reported after the next statement.
            return;
        }
        if self.schema.as_deref() != schema {
            self.schema = schema.map(str::to_owned);
        }
        self.schema_changed = false;
    }

    fn take_session_schema_change(&mut self) -> Option<Option<String>> {
        self.absorb();
        // After DROP DATABASE of the current one the backend reports an empty name: none.
        std::mem::take(&mut self.schema_changed)
            .then(|| self.schema.clone().filter(|s| !s.is_empty()))
    }

    fn opened_at(&self) -> Instant {
        self.opened_at
    }

    fn reset(&mut self) -> Result<(), SqlError> {
        // The driver connection goes back (reset) once the last completion that names it is
        // done; a late one records into the state dropped here.
        self.driver_session = Arc::default();
        self.vars.clear();
        self.schema = None;
        self.last_insert_id.store(0, Ordering::Relaxed);
        self.prepared = None;
        Ok(())
    }

    fn set_wait_hook(&mut self, hook: Option<WaitHook>) {
        self.wait_hook = hook;
    }
}

#[derive(Debug, Default)]
struct KillState {
    /// A kill arrived for the statement being submitted, or for the next one if none is. Cleared
    /// when a statement ends and by `Interrupt::clear`, never when one starts (see
    /// [`Interrupt`]).
    killed: bool,
    /// The number of the statement being handed to the driver or answered by it, if any
    /// ([`MysqlInterrupt::begin_submission`]); numbers only grow, so a late step of an earlier
    /// statement is told apart.
    submission: Option<u64>,
    /// Submissions so far.
    submissions: u64,
    /// The driver's name for the submitted statement, once `Driver::submit` returned.
    submitted: Option<StatementId>,
}

/// `KILL QUERY` for one handle: a flag checked before the statement goes to the driver, and the
/// driver's cancel ([`Driver::cancel`]) once it has it: out of the driver's queues with 1317,
/// or `KILL QUERY ID` of exactly that statement once it runs.
pub struct MysqlInterrupt {
    shared: Arc<Shared>,
    state: Mutex<KillState>,
}

impl std::fmt::Debug for MysqlInterrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlInterrupt")
            .field("state", &*self.state.lock())
            .finish()
    }
}

impl MysqlInterrupt {
    /// A statement is about to go to the driver: its submission number, or `None` if a kill
    /// came first (it then fails with 1317 without being sent).
    fn begin_submission(&self) -> Option<u64> {
        let mut state = self.state.lock();
        if state.killed {
            state.killed = false;
            return None;
        }
        state.submissions += 1;
        state.submission = Some(state.submissions);
        state.submitted = None;
        Some(state.submissions)
    }

    /// `Driver::submit` named submission `submission` `id`: a kill from now on cancels it; one
    /// that came while it was being submitted cancels it now. Nothing if it already ended.
    fn submitted(&self, submission: u64, id: StatementId) {
        let killed = {
            let mut state = self.state.lock();
            if state.submission != Some(submission) {
                return;
            }
            state.submitted = Some(id);
            state.killed
        };
        if killed {
            self.cancel_submitted(id);
        }
    }

    /// Submission `submission` ended: a later kill has nothing to stop.
    fn end_submission(&self, submission: u64) {
        let mut state = self.state.lock();
        if state.submission == Some(submission) {
            state.submission = None;
            state.submitted = None;
            state.killed = false;
        }
    }

    /// Cancels a submitted statement from a short-lived thread: a kill comes from the receive
    /// path under the session's locks, and a cancel may end the statement (1317) at once, which
    /// runs its completion and so takes those locks.
    fn cancel_submitted(&self, id: StatementId) {
        let Some(driver) = self.shared.driver.get().cloned() else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("xrpc-backend-cancel".into())
            .spawn(move || {
                driver.cancel(id);
            });
        if let Err(err) = spawned {
            tracing::warn!(%err, "cannot start the backend cancel thread");
        }
    }
}

impl Interrupt for MysqlInterrupt {
    fn interrupt(&self) {
        let submitted = {
            let mut state = self.state.lock();
            state.killed = true;
            state.submitted
        };
        if let Some(id) = submitted {
            self.cancel_submitted(id);
        }
    }

    fn clear(&self) {
        self.state.lock().killed = false;
    }
}
