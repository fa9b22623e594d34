//! The entry point of admin SQL ([`try_admin`], with what it reads: [`AdminContext`] and
//! [`StatusSource`]), and the executor that runs a parsed statement: reads and sets variables,
//! lists status, filters SHOW output.

use xrpc_net::hist::PerfHistograms;
use xrpc_net::stats::NetStats;
use xrpc_proto::value::Value;

use super::like::like;
use super::parse::{self, Col, Cond, Filter, Stmt};
use super::perf_hist::perf_hist;
use super::row::text;
use crate::result::{ColumnInfo, ExecSummary, ResultSink, SqlError};
use crate::var_store::Variables;
use crate::vars::{VarId, VarKind, VarValue, unknown_variable};

/// Where `SHOW STATUS` and the metrics endpoint get the node's status. The node implements it.
pub trait StatusSource: Send + Sync {
    /// The node's status variables, each `(name, value)`: `xrpc_inited` (`ON`/`OFF`),
    /// `xrpc_tcp_connections`, `xrpc_tcp_closing`, `xrpc_worker_sessions`, `xrpc_total_sessions`,
    /// `xrpc_threads`, `xrpc_sql_hit`, `xrpc_sql_miss`, `xrpc_sql_evict`, ….
    fn status(&self) -> Vec<(String, String)>;

    /// The framework's counters; `SHOW STATUS` lists them as `xrpc_net_<name>`, and the metrics
    /// endpoint exports them with their gauge or counter types.
    fn net_stats(&self) -> NetStats;
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
}

impl std::fmt::Debug for AdminContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminContext").finish_non_exhaustive()
    }
}

/// Runs `sql` if it is admin SQL, pushing any result set into `sink`; `None` when it is not, and
/// the engine should run it.
pub fn try_admin(
    sql: &str,
    ctx: &AdminContext<'_>,
    sink: &mut dyn ResultSink,
) -> Option<Result<ExecSummary, SqlError>> {
    let stmt = match parse::parse(sql)? {
        Ok(stmt) => stmt,
        Err(err) => return Some(Err(err)),
    };
    Some(execute(stmt, ctx, sink))
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
            let mut rows = ctx.status.status();
            rows.extend(
                ctx.status
                    .net_stats()
                    .rows()
                    .into_iter()
                    .map(|(name, value)| (format!("xrpc_net_{name}"), value.to_string())),
            );
            rows.sort_by_cached_key(|(name, _)| name.to_ascii_lowercase());
            show(rows.into_iter(), filter.as_ref(), sink)?;
            Ok(result_set)
        }
        Stmt::SetGlobal(assignments) => {
            let prepared = assignments
                .iter()
                .map(|(name, value)| ctx.vars.prepare_set(name, value))
                .collect::<Result<Vec<_>, _>>()?;
            for (id, value) in prepared {
                if id == VarId::EnablePerfHist {
                    ctx.hist.set_enabled(value.as_bool().unwrap_or(false));
                }
                ctx.vars.commit_set(id, value);
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
    }
}

/// Sends the `(name, value)` rows that pass `filter`.
fn show(
    rows: impl Iterator<Item = (String, String)>,
    filter: Option<&Filter>,
    sink: &mut dyn ResultSink,
) -> Result<(), SqlError> {
    sink.metadata(&name_value_columns())?;
    for (name, value) in rows {
        let keep = match filter {
            None => true,
            Some(Filter::Like(pattern)) => like(pattern, &name),
            Some(Filter::Where(cond)) => cond.eval(&name, &value),
        };
        if keep {
            sink.row(&[text(name), text(value)])?;
        }
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
