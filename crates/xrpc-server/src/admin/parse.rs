//! The admin statements, read from the front end's parse tree (`xrpc_sql`).
//!
//! A script is admin SQL only when it is one statement that parses: a script of several, or a
//! text the front end cannot read, is the engine's (which then gives its own answer or error).
//! The statement's [`Kind`] decides before anything else is looked at, so any other statement
//! costs one comparison here.

use xrpc_proto::codes;
use xrpc_sql::ast::{
    BinaryOperator, Expr, FlushType, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    InTarget, KillType, LimitClause, ObjectName, ObjectNamePart, SelectItem as AstItem, SetExpr,
    ShowStatementFilter, Statement, TableFactor, UnaryOperator, Value,
};
use xrpc_sql::{Assignment, Body, Instance, Kind, Parsed, Scope, Script, Session};

use crate::result::SqlError;
use crate::vars::{SetValue, VarId};

/// A parsed admin statement.
#[derive(Debug, PartialEq)]
pub(super) enum Stmt {
    ShowVariables(Option<Filter>),
    ShowStatus(Option<Filter>),
    SetGlobal(Vec<(String, SetValue)>),
    SelectVars {
        items: Vec<SelectItem>,
        limit: Option<u64>,
    },
    PerfHist(String),
    /// `KILL [HARD | SOFT] [QUERY | CONNECTION] n`.
    Kill {
        scope: KillScope,
        id: u64,
    },
    /// `ALTER INSTANCE RELOAD TLS`.
    ReloadTls,
    /// `FLUSH HOSTS`: unblocks every client address blocked by `xrpc_max_connect_errors`.
    FlushHosts,
}

/// What SQL `KILL` stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillScope {
    /// `KILL QUERY n`: the session's running statement; the session stays.
    Query,
    /// `KILL [CONNECTION] n`: the session itself.
    Connection,
}

/// `LIKE 'pat'` or `WHERE cond` of a SHOW.
#[derive(Debug, PartialEq)]
pub(super) enum Filter {
    Like(String),
    Where(Cond),
}

/// One `@@name` of a SELECT.
#[derive(Debug, PartialEq)]
pub(super) struct SelectItem {
    /// The variable name as written.
    pub(super) name: String,
    /// The column name: the alias, or the item as written (`@@global.version`).
    pub(super) label: String,
}

/// A column of SHOW output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Col {
    Name,
    Value,
}

/// A WHERE condition over SHOW output.
#[derive(Debug, PartialEq)]
pub(super) enum Cond {
    Or(Box<Cond>, Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Eq(Col, String),
    Like(Col, String),
    In(Col, Vec<String>),
}

/// Reads `script` if it is admin SQL: `None` when it is not, an error when it is but asks for
/// what the node cannot do.
pub(super) fn parse(script: &Script) -> Option<Result<Stmt, SqlError>> {
    let [Ok(parsed)] = script.as_slice() else {
        return None;
    };
    match parsed.kind {
        Kind::Show => show(parsed.statement()?),
        Kind::Select => select(parsed.statement()?).map(Ok),
        Kind::Set => set(parsed.statement()?),
        Kind::Admin => admin(parsed),
        _ => None,
    }
}

fn syntax_error(detail: &str) -> SqlError {
    SqlError::new(
        &codes::PARSE_ERROR,
        format!("You have an error in your SQL syntax: {detail}"),
    )
}

/// `KILL`, `FLUSH HOSTS`, `CALL xrpc.perf_hist(…)`, `ALTER INSTANCE RELOAD TLS`.
fn admin(parsed: &Parsed) -> Option<Result<Stmt, SqlError>> {
    let statement = match &parsed.body {
        // Without the option a failed reload keeps the old certificate (MySQL's default); with
        // it, MySQL would switch TLS off, which the node never does, so the option is refused.
        Body::Instance(Instance::ReloadTls {
            no_rollback_on_error,
        }) => {
            return Some(if *no_rollback_on_error {
                Err(syntax_error(
                    "NO ROLLBACK ON ERROR is not supported (a failed reload always keeps the \
                     previous certificate)",
                ))
            } else {
                Ok(Stmt::ReloadTls)
            });
        }
        Body::Statement(statement) => statement,
        Body::Xa(_) | Body::Show(_) => return None,
    };
    match statement.as_ref() {
        Statement::Kill { modifier, id } => {
            let scope = match modifier {
                None | Some(KillType::Connection) => KillScope::Connection,
                Some(KillType::Query) => KillScope::Query,
                Some(KillType::Mutation) => return None,
            };
            Some(Ok(Stmt::Kill { scope, id: *id }))
        }
        // Only FLUSH HOSTS is the node's; the other FLUSH forms are the engine's.
        Statement::Flush {
            object_type: FlushType::Hosts,
            location: None,
            channel: None,
            read_lock: false,
            export: false,
            tables,
        } if tables.is_empty() => Some(Ok(Stmt::FlushHosts)),
        Statement::Call(function) if names(&function.name, &["xrpc", "perf_hist"]) => {
            let usage = || {
                SqlError::new(
                    &codes::WRONG_ARGUMENTS,
                    "CALL xrpc.perf_hist takes one argument: 'all', 'reset' or a stage name",
                )
            };
            let FunctionArguments::List(list) = &function.args else {
                return Some(Err(usage()));
            };
            let arg = match list.args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(expr))] if list.clauses.is_empty() => {
                    match expr {
                        Expr::Identifier(ident) => Some(ident.value.clone()),
                        other => string(other),
                    }
                }
                _ => None,
            };
            Some(arg.map(Stmt::PerfHist).ok_or_else(usage))
        }
        _ => None,
    }
}

/// Whether an object name is `parts`, case-insensitively.
fn names(name: &ObjectName, parts: &[&str]) -> bool {
    name.0.len() == parts.len()
        && name.0.iter().zip(parts).all(|(part, want)| {
            matches!(part, ObjectNamePart::Identifier(ident) if ident.value.eq_ignore_ascii_case(want))
        })
}

/// A quoted string.
fn string(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(value) => match &value.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `SHOW [GLOBAL|SESSION|LOCAL] VARIABLES|STATUS [LIKE 'pat' | WHERE cond]`.
fn show(statement: &Statement) -> Option<Result<Stmt, SqlError>> {
    let (filter, variables) = match statement {
        Statement::ShowVariables { filter, .. } => (filter, true),
        Statement::ShowStatus { filter, .. } => (filter, false),
        _ => return None,
    };
    let filter = match filter {
        None => None,
        Some(ShowStatementFilter::Like(pattern)) => Some(Filter::Like(pattern.clone())),
        Some(ShowStatementFilter::Where(condition)) => match cond(condition) {
            Ok(condition) => Some(Filter::Where(condition)),
            Err(err) => return Some(Err(err)),
        },
        // Not MySQL's forms: the engine's to refuse.
        Some(ShowStatementFilter::ILike(_) | ShowStatementFilter::NoKeyword(_)) => return None,
    };
    Some(Ok(if variables {
        Stmt::ShowVariables(filter)
    } else {
        Stmt::ShowStatus(filter)
    }))
}

/// A WHERE condition of SHOW: `Variable_name` or `Value` compared with `=`, `<>`, `[NOT] LIKE`
/// or `[NOT] IN (…)`, combined with AND, OR, NOT and parentheses.
fn cond(expr: &Expr) -> Result<Cond, SqlError> {
    let unsupported = || {
        syntax_error(&format!(
            "SHOW … WHERE takes Variable_name or Value compared with =, <>, LIKE or IN, \
             near '{expr}'"
        ))
    };
    let text = |expr: &Expr| string(expr).ok_or_else(unsupported);
    Ok(match expr {
        Expr::Nested(inner) => cond(inner)?,
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => Cond::Not(Box::new(cond(expr)?)),
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::Or => Cond::Or(Box::new(cond(left)?), Box::new(cond(right)?)),
            BinaryOperator::And => Cond::And(Box::new(cond(left)?), Box::new(cond(right)?)),
            BinaryOperator::Eq => Cond::Eq(column(left)?, text(right)?),
            BinaryOperator::NotEq => Cond::Not(Box::new(Cond::Eq(column(left)?, text(right)?))),
            _ => return Err(unsupported()),
        },
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } => negate(*negated, Cond::Like(column(expr)?, text(pattern)?)),
        Expr::In {
            expr,
            target: InTarget::List(list),
            negated,
            global: false,
        } => negate(
            *negated,
            Cond::In(
                column(expr)?,
                list.iter().map(text).collect::<Result<_, _>>()?,
            ),
        ),
        _ => return Err(unsupported()),
    })
}

fn negate(negated: bool, cond: Cond) -> Cond {
    if negated {
        Cond::Not(Box::new(cond))
    } else {
        cond
    }
}

/// `Variable_name` or `Value`; any other name is MySQL's 1054.
fn column(expr: &Expr) -> Result<Col, SqlError> {
    let Expr::Identifier(Ident { value: column, .. }) = expr else {
        return Err(syntax_error(&format!(
            "expected Variable_name or Value near '{expr}'"
        )));
    };
    if column.eq_ignore_ascii_case("variable_name") {
        Ok(Col::Name)
    } else if column.eq_ignore_ascii_case("value") {
        Ok(Col::Value)
    } else {
        Err(SqlError::new(
            &codes::BAD_FIELD,
            format!("Unknown column '{column}' in 'where clause'"),
        ))
    }
}

/// `SELECT @@… [[AS] alias] [, …] [FROM DUAL] [LIMIT n]`; `None` for any other SELECT.
fn select(statement: &Statement) -> Option<Stmt> {
    let Statement::Query(query) = statement else {
        return None;
    };
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    // Most SELECTs end here: the first item is not a system variable.
    let first = select.projection.first()?;
    variable(first)?;
    let plain_query = query.with.is_none()
        && query.order_by.is_none()
        && query.fetch.is_none()
        && query.locks.is_empty()
        && query.for_clause.is_none();
    let plain_select = select.distinct.is_none()
        && select.top.is_none()
        && select.into.is_none()
        && select.selection.is_none()
        && select.having.is_none()
        && select.named_window.is_empty()
        && select.group_by == xrpc_sql::ast::GroupByExpr::Expressions(Vec::new(), Vec::new());
    let from_dual = match select.from.as_slice() {
        [] => true,
        [table] => {
            table.joins.is_empty()
                && matches!(&table.relation, TableFactor::Table { name, alias: None, args: None, .. }
                    if names(name, &["dual"]))
        }
        _ => false,
    };
    if !(plain_query && plain_select && from_dual) {
        return None;
    }
    let limit = match &query.limit_clause {
        None => None,
        Some(LimitClause::LimitOffset {
            limit: Some(limit),
            offset: None,
            limit_by,
        }) if limit_by.is_empty() => match limit {
            Expr::Value(value) => match &value.value {
                Value::Number(n, false) => Some(n.parse().ok()?),
                _ => return None,
            },
            _ => return None,
        },
        Some(_) => return None,
    };
    let items = select
        .projection
        .iter()
        .map(variable)
        .collect::<Option<Vec<_>>>()?;
    Some(Stmt::SelectVars { items, limit })
}

/// `@@[scope.]name [[AS] alias]`.
fn variable(item: &AstItem) -> Option<SelectItem> {
    let (expr, alias) = match item {
        AstItem::UnnamedExpr(expr) => (expr, None),
        AstItem::ExprWithAlias { expr, alias } => (expr, Some(alias)),
        _ => return None,
    };
    let variable = xrpc_sql::system_variable(expr)?;
    let name = variable.name.to_owned();
    let label = match variable.scope {
        Some(scope) => format!("{scope}.{name}"),
        None => format!("@@{name}"),
    };
    Some(SelectItem {
        name,
        label: alias.map_or(label, |alias| alias.value.clone()),
    })
}

/// `SET [GLOBAL|SESSION] name = value, …` and `SET @@scope.name = value`; `None` for a SET
/// that is the engine's.
fn set(statement: &Statement) -> Option<Result<Stmt, SqlError>> {
    // `SET NAMES`, `SET TRANSACTION …` and the like are not the node's.
    let Session::Set(assignments) = Session::of(statement)? else {
        return None;
    };
    let mut system = Vec::with_capacity(assignments.len());
    for assignment in &assignments {
        match assignment {
            // A SET of a user variable is the engine's, whatever else it sets.
            Assignment::User { .. } => return None,
            Assignment::System { scope, name, value } => system.push((*scope, name, value)),
        }
    }
    if !system.iter().any(|(scope, _, _)| *scope == Scope::Global) {
        // A session SET of one of the node's global tunables is a mistake worth naming; any
        // other session SET is the engine's business.
        let tunable = system.iter().find_map(|(_, name, _)| {
            VarId::lookup(name).filter(|id| id.def().config_key().is_some())
        })?;
        return Some(Err(SqlError::new(
            &codes::GLOBAL_VARIABLE,
            format!(
                "Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL",
                tunable.def().name
            ),
        )));
    }
    if system.iter().any(|(scope, _, _)| *scope != Scope::Global) {
        return Some(Err(syntax_error(
            "a SET that mixes GLOBAL and session assignments is not supported; split it",
        )));
    }
    let mut out = Vec::with_capacity(system.len());
    for (_, name, value) in system {
        let Some(value) = set_value(value) else {
            return Some(Err(syntax_error(&format!(
                "the value of {name} must be a number, a quoted string, ON, OFF or DEFAULT"
            ))));
        };
        out.push((name.clone(), value));
    }
    Some(Ok(Stmt::SetGlobal(out)))
}

/// A SET value: `DEFAULT`, a signed integer or product of integers, a word, a string.
fn set_value(expr: &Expr) -> Option<SetValue> {
    match expr {
        Expr::Identifier(ident) if ident.quote_style.is_none() => {
            Some(if ident.value.eq_ignore_ascii_case("default") {
                SetValue::Default
            } else {
                SetValue::Word(ident.value.clone())
            })
        }
        Expr::Value(value) => match &value.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                Some(SetValue::Text(s.clone()))
            }
            Value::Boolean(b) => Some(SetValue::Word(b.to_string())),
            _ => int_product(expr).map(SetValue::Int),
        },
        _ => int_product(expr).map(SetValue::Int),
    }
}

/// A signed integer, or a product of them.
fn int_product(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::Value(value) => match &value.value {
            Value::Number(n, false) => n.parse().ok(),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => int_product(expr)?.checked_neg(),
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => int_product(expr),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Multiply,
            right,
        } => int_product(left)?.checked_mul(int_product(right)?),
        _ => None,
    }
}
