//! The entry point of admin SQL ([`try_admin`], with what it reads: [`AdminContext`] and
//! [`StatusSource`]), and the executor that runs a parsed statement: reads and sets variables,
//! lists status, filters SHOW output.

use xrpc_net::hist::PerfHistograms;
use xrpc_net::stats::NetStats;
use xrpc_proto::codes;
use xrpc_proto::value::Value;

use super::like::like;
use super::parse::{self, Col, Cond, Filter, KillScope, Stmt};
use super::perf_hist::perf_hist;
use super::row::text;
use crate::host_block::HostBlocker;
use crate::result::{ColumnInfo, ExecSummary, ResultSink, SqlError};
use crate::var_store::Variables;
use crate::vars::{VarId, VarKind, VarValue, is_node_own, unknown_variable};

/// Where `SHOW STATUS` and the metrics endpoint get the node's status. The node implements it.
pub trait StatusSource: Send + Sync {
    /// The node's status variables, each `(name, value)`: `xrpc_inited` (`ON`/`OFF`),
    /// `xrpc_tcp_connections`, `xrpc_tcp_closing`, `xrpc_worker_sessions`, `xrpc_total_sessions`,
    /// `xrpc_threads`, `xrpc_sql_hit`, `xrpc_sql_miss`, `xrpc_sql_evict`, ….
    fn status(&self) -> Vec<(String, String)>;

    /// The framework's counters; `SHOW STATUS` lists them as `xrpc_net_<name>`, and the metrics
    /// endpoint exports them with their gauge or counter types.
    fn net_stats(&self) -> NetStats;

    /// The engine's status rows ([`crate::engine::Engine::status_rows`]), for `SHOW STATUS`
    /// and the metrics endpoint. None by default.
    fn engine_status(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// The request counters ([`crate::counters`]): `SHOW STATUS` lists their rows, the metrics
    /// endpoint their labelled families. Zero by default.
    fn request_totals(&self) -> crate::counters::RequestTotals {
        crate::counters::RequestTotals::default()
    }
}

/// Interrupts or ends sessions by their `connection_id()`, for SQL `KILL`. The node implements it.
pub trait SessionKiller: Send + Sync {
    /// Applies `scope` to the live session numbered `number` (interrupts its running statement,
    /// or ends it as SESS_KILL CONNECTION does), on behalf of `requester` (`None`: the node
    /// itself). As MySQL: a user may kill its own sessions; another user's only with
    /// `connection_admin`.
    fn kill(&self, number: u64, scope: KillScope, requester: Option<&str>) -> KillOutcome;
}

/// What [`SessionKiller::kill`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillOutcome {
    /// The session was interrupted or ended.
    Done,
    /// No live session has that number (1094).
    Unknown,
    /// The session belongs to another user and the requester lacks `connection_admin` (1095).
    NotOwner,
}

/// What admin SQL reads and changes.
#[derive(Clone, Copy)]
pub struct AdminContext<'a> {
    /// The live variables.
    pub vars: &'a Variables,
    /// The node's status.
    pub status: &'a dyn StatusSource,
    /// The framework's stage histograms (`xrpc_enable_perf_hist` switches them).
    pub hist: &'a PerfHistograms,
    /// The node's sessions, for `KILL`.
    pub sessions: &'a dyn SessionKiller,
    /// The user running the statement (`None`: the node itself), whom `KILL` checks.
    pub user: Option<&'a str>,
    /// Blocked client addresses, for `FLUSH HOSTS`.
    pub hosts: &'a HostBlocker,
    /// The engine has its own system variables and status
    /// ([`crate::engine::Engine::owns_system_variables`]): admin SQL then answers only the node's
    /// own names and leaves the rest to the engine.
    pub engine_owns_variables: bool,
    /// The node's TLS, for `ALTER INSTANCE RELOAD TLS`.
    pub tls: &'a crate::tls::TlsContext,
}

/// What [`try_admin`] made of a statement.
#[derive(Debug)]
pub enum AdminOutcome {
    /// Not the node's to answer: the engine runs it.
    Engine,
    /// `SHOW VARIABLES` or `SHOW STATUS` on an engine with its own variables: the engine runs
    /// it, and these rows (the node's own names that pass the statement's filter, as
    /// `Variable_name`, `Value` text pairs) follow the engine's rows in the same result set.
    EngineThenRows(Vec<[Value; 2]>),
    /// The node answered: the result set (if any) went into the sink.
    Answered(Result<ExecSummary, SqlError>),
}

impl std::fmt::Debug for AdminContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminContext").finish_non_exhaustive()
    }
}

/// Runs `script` (a statement text as the front end read it, [`xrpc_sql::parse_cached`]) if it
/// is admin SQL, pushing any result set into `sink`; see [`AdminOutcome`].
pub fn try_admin(
    script: &xrpc_sql::Script,
    ctx: &AdminContext<'_>,
    sink: &mut dyn ResultSink,
) -> AdminOutcome {
    let stmt = match parse::parse(script) {
        None => return AdminOutcome::Engine,
        Some(Ok(stmt)) => stmt,
        Some(Err(err)) => return AdminOutcome::Answered(Err(err)),
    };
    // `warning_count` and `error_count` count the session's diagnostics, which the engine
    // keeps with the statements that made them; the others are session settings the engine
    // keeps (`SET FOREIGN_KEY_CHECKS = 0` on SQLite) or reports as it runs statements.
    if let Stmt::SelectVars { ref items, .. } = stmt
        && items.iter().any(|i| {
            ENGINE_SESSION_VARIABLES
                .iter()
                .any(|name| i.name.eq_ignore_ascii_case(name))
        })
    {
        return AdminOutcome::Engine;
    }
    if ctx.engine_owns_variables {
        match stmt {
            Stmt::ShowVariables(filter) => {
                let rows = ctx
                    .vars
                    .snapshot()
                    .into_iter()
                    .filter(|(name, _)| is_node_own(name))
                    .map(|(name, value)| (name.to_owned(), value.to_string()));
                return AdminOutcome::EngineThenRows(filtered(rows, filter.as_ref()));
            }
            Stmt::ShowStatus(filter) => {
                return AdminOutcome::EngineThenRows(filtered(
                    status_rows(ctx).into_iter(),
                    filter.as_ref(),
                ));
            }
            Stmt::SelectVars { ref items, .. } if !items.iter().all(|i| is_node_own(&i.name)) => {
                return AdminOutcome::Engine;
            }
            Stmt::SetGlobal(ref assignments) => {
                let own = assignments
                    .iter()
                    .filter(|(name, _)| is_node_own(name))
                    .count();
                if own == 0 {
                    return AdminOutcome::Engine;
                }
                if own < assignments.len() {
                    return AdminOutcome::Answered(Err(SqlError::new(
                        &codes::WRONG_ARGUMENTS,
                        "SET GLOBAL cannot mix the node's own variables (xrpc_…) with the \
                         backend's in one statement; set them in two",
                    )));
                }
            }
            _ => {}
        }
    }
    AdminOutcome::Answered(execute(stmt, ctx, sink))
}

/// The variables whose session value only the engine knows: a `SELECT @@…` naming one is the
/// engine's.
const ENGINE_SESSION_VARIABLES: &[&str] = &[
    "autocommit",
    "tx_isolation",
    "transaction_isolation",
    "tx_read_only",
    "transaction_read_only",
    "in_transaction",
    "sql_select_limit",
    "max_join_size",
    "sql_big_selects",
    "sql_safe_updates",
    "warning_count",
    "error_count",
    "foreign_key_checks",
    "unique_checks",
    "sql_notes",
    "sql_mode",
    "time_zone",
];

/// The node's status rows and the framework's counters (`xrpc_net_<name>`), sorted by name.
fn status_rows(ctx: &AdminContext<'_>) -> Vec<(String, String)> {
    let mut rows = ctx.status.status();
    rows.extend(ctx.status.request_totals().status_rows());
    rows.extend(ctx.status.engine_status());
    rows.extend(
        ctx.status
            .net_stats()
            .rows()
            .into_iter()
            .map(|(name, value)| (format!("xrpc_net_{name}"), value.to_string())),
    );
    rows.sort_by_cached_key(|(name, _)| name.to_ascii_lowercase());
    rows
}

/// The `(name, value)` rows that pass `filter`, as text rows.
fn filtered(
    rows: impl Iterator<Item = (String, String)>,
    filter: Option<&Filter>,
) -> Vec<[Value; 2]> {
    rows.filter(|(name, value)| match filter {
        None => true,
        Some(Filter::Like(pattern)) => like(pattern, name),
        Some(Filter::Where(cond)) => cond.eval(name, value),
    })
    .map(|(name, value)| [text(name), text(value)])
    .collect()
}

/// The two columns of `SHOW VARIABLES` and `SHOW STATUS`.
fn name_value_columns() -> [ColumnInfo; 2] {
    [ColumnInfo::text("Variable_name"), ColumnInfo::text("Value")]
}

fn execute(
    stmt: Stmt,
    ctx: &AdminContext<'_>,
    sink: &mut dyn ResultSink,
) -> Result<ExecSummary, SqlError> {
    let result_set = ExecSummary {
        has_result_set: true,
        ..ExecSummary::default()
    };
    match stmt {
        Stmt::ShowVariables(filter) => {
            let rows = ctx
                .vars
                .snapshot()
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value.to_string()));
            show(rows, filter.as_ref(), sink)?;
            Ok(result_set)
        }
        Stmt::ShowStatus(filter) => {
            show(status_rows(ctx).into_iter(), filter.as_ref(), sink)?;
            Ok(result_set)
        }
        Stmt::SetGlobal(assignments) => {
            let prepared = assignments
                .iter()
                .map(|(name, value)| ctx.vars.prepare_set(name, value))
                .collect::<Result<Vec<_>, _>>()?;
            // An applier may still refuse a value (xrpc_binlog with a directory the node cannot
            // create): the assignments before it stay made, as in MySQL, where a multi-variable
            // SET that fails part-way does not undo the ones already made.
            for (id, value) in prepared {
                let perf_hist = (id == VarId::EnablePerfHist).then(|| value.as_bool());
                ctx.vars.commit_set(id, value)?;
                if let Some(on) = perf_hist {
                    ctx.hist.set_enabled(on.unwrap_or(false));
                }
            }
            Ok(ExecSummary::default())
        }
        Stmt::SelectVars { items, limit } => {
            let mut columns = Vec::with_capacity(items.len());
            let mut row = Vec::with_capacity(items.len());
            for item in &items {
                let id = VarId::lookup(&item.name).ok_or_else(|| unknown_variable(&item.name))?;
                let (column, value) = match (id.target().def().kind, ctx.vars.get(id)) {
                    (_, VarValue::Bool(b)) => {
                        (ColumnInfo::bigint(&item.label), Value::Sint(i64::from(b)))
                    }
                    (VarKind::Int { .. }, VarValue::Int(n)) => {
                        (ColumnInfo::bigint(&item.label), Value::Sint(n))
                    }
                    (_, other) => (ColumnInfo::text(&item.label), text(other.to_string())),
                };
                columns.push(column);
                row.push(value);
            }
            sink.metadata(&columns)?;
            if limit != Some(0) {
                sink.row(&row)?;
            }
            Ok(result_set)
        }
        Stmt::PerfHist(arg) => perf_hist(&arg, ctx.hist, sink),
        Stmt::ReloadTls => match ctx.tls.reload() {
            Ok(()) => Ok(ExecSummary::default()),
            Err(err) => Err(SqlError::new(
                &codes::TLS_RELOAD_FAILED,
                format!("Failed to reload TLS; the previous certificate stays in force: {err}"),
            )),
        },
        Stmt::FlushHosts => {
            let unblocked = ctx.hosts.flush();
            if unblocked > 0 {
                tracing::info!(unblocked, "FLUSH HOSTS unblocked client addresses");
            }
            Ok(ExecSummary::default())
        }
        Stmt::Kill { scope, id } => match ctx.sessions.kill(id, scope, ctx.user) {
            KillOutcome::Done => Ok(ExecSummary::default()),
            KillOutcome::Unknown => Err(SqlError::new(
                &codes::UNKNOWN_THREAD_ID,
                format!("Unknown thread id: {id}"),
            )),
            KillOutcome::NotOwner => Err(SqlError::new(
                &codes::NOT_OWNER_OF_THREAD,
                format!("You are not owner of thread {id}"),
            )),
        },
    }
}

/// Sends the `(name, value)` rows that pass `filter`.
fn show(
    rows: impl Iterator<Item = (String, String)>,
    filter: Option<&Filter>,
    sink: &mut dyn ResultSink,
) -> Result<(), SqlError> {
    sink.metadata(&name_value_columns())?;
    for row in filtered(rows, filter) {
        sink.row(&row)?;
    }
    Ok(())
}

impl Cond {
    fn eval(&self, name: &str, value: &str) -> bool {
        let col = |c: Col| if c == Col::Name { name } else { value };
        match self {
            Cond::Or(a, b) => a.eval(name, value) || b.eval(name, value),
            Cond::And(a, b) => a.eval(name, value) && b.eval(name, value),
            Cond::Not(c) => !c.eval(name, value),
            Cond::Eq(c, s) => col(*c).to_lowercase() == s.to_lowercase(),
            Cond::Like(c, p) => like(p, col(*c)),
            Cond::In(c, list) => {
                let v = col(*c).to_lowercase();
                list.iter().any(|s| s.to_lowercase() == v)
            }
        }
    }
}
