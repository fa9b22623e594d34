//! `GROUP BY … WITH ROLLUP`, which SQLite lacks, as the UNION ALL of its grouping levels.
//!
//! `SELECT items FROM … GROUP BY g1, …, gn WITH ROLLUP [HAVING h] [LIMIT …]` becomes a query
//! over a derived table of n + 1 members: member k groups by g1…gk, and the grouping
//! expressions it drops are NULL outside aggregates in its items and HAVING, as MySQL shows
//! them in a super-aggregate row. The member of all rows keeps its row only when there are
//! rows (MySQL adds no total to an empty result). Rows come in MySQL's order (the groups'
//! order, each group's super-aggregate row after its rows) by hidden level and key columns
//! the outer query sorts by and does not show. The rewritten query is text parsed again, so
//! it is translated as any query is.
//!
//! ORDER BY with ROLLUP is MySQL's 1221. A query with `*`, DISTINCT, `?` arguments, INTO or
//! locking is refused (1235); so is ROLLUP in a UNION's member.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, GroupByExpr, GroupByWithModifier, Ident, Query, SelectItem, SetExpr, Statement, Value,
    Visit, VisitMut, Visitor, VisitorMut,
};

use crate::error::{TranslateError, unsupported};

type Result<T> = std::result::Result<T, TranslateError>;

/// The statement with each query that groups WITH ROLLUP rewritten; `None` when it has none.
pub(crate) fn rewrite(statement: &Statement) -> Result<Option<Statement>> {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            if rollup_of(query).is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    if statement.visit(&mut Finder).is_continue() {
        return Ok(None);
    }
    struct Rewriter;
    impl VisitorMut for Rewriter {
        type Break = TranslateError;
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<TranslateError> {
            if rollup_of(query).is_none() {
                return ControlFlow::Continue(());
            }
            match rewrite_query(query) {
                Ok(rewritten) => {
                    *query = rewritten;
                    ControlFlow::Continue(())
                }
                Err(err) => ControlFlow::Break(err),
            }
        }
    }
    let mut rewritten = statement.clone();
    match VisitMut::visit(&mut rewritten, &mut Rewriter) {
        ControlFlow::Break(err) => Err(err),
        ControlFlow::Continue(()) => Ok(Some(rewritten)),
    }
}

/// The grouping expressions of a query whose SELECT groups WITH ROLLUP.
fn rollup_of(query: &Query) -> Option<&[Expr]> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    match &select.group_by {
        GroupByExpr::Expressions(exprs, modifiers)
            if modifiers.contains(&GroupByWithModifier::Rollup) =>
        {
            Some(exprs)
        }
        _ => None,
    }
}

/// A select item: its expression, its name as a result column, its column in the derived
/// table of grouping levels, and the grouping expression it is (by position or alias) if any.
struct Item {
    expr: Expr,
    name: String,
    column: String,
    grouping: Option<usize>,
}

fn rewrite_query(query: &Query) -> Result<Query> {
    let exprs = rollup_of(query).expect("a ROLLUP query");
    let SetExpr::Select(select) = query.body.as_ref() else {
        unreachable!("rollup_of found a SELECT");
    };
    if query.order_by.is_some() {
        return Err(TranslateError::RollupOrderBy);
    }
    let GroupByExpr::Expressions(_, modifiers) = &select.group_by else {
        unreachable!("rollup_of found expressions");
    };
    if modifiers.len() != 1 {
        return unsupported("GROUP BY with several modifiers");
    }
    if select.distinct.is_some()
        || select.into.is_some()
        || !query.locks.is_empty()
        || query.fetch.is_some()
        || query.for_clause.is_some()
        || has_placeholder(query)
    {
        return unsupported("GROUP BY … WITH ROLLUP with DISTINCT, INTO, locking or ? arguments");
    }
    let mut items = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        let (expr, name) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            SelectItem::UnnamedExpr(expr) => (
                expr,
                match expr {
                    Expr::Identifier(id) => id.value.clone(),
                    Expr::CompoundIdentifier(ids) => {
                        ids.last().map(|i| i.value.clone()).unwrap_or_default()
                    }
                    other => other.to_string(),
                },
            ),
            _ => return unsupported("GROUP BY … WITH ROLLUP of *"),
        };
        // The derived table's columns need names of their own: a second item of a name takes
        // a hidden one, shown under its name by the outer query.
        let column = if items
            .iter()
            .any(|i: &Item| i.name.eq_ignore_ascii_case(&name))
        {
            format!("__rollup_item_{}", items.len())
        } else {
            name.clone()
        };
        items.push(Item {
            expr: expr.clone(),
            name,
            column,
            grouping: None,
        });
    }
    // Each grouping expression as an expression of the rows: a position or an item's alias
    // (that is not a column of the rows' own name) names the item.
    let mut groupings = Vec::with_capacity(exprs.len());
    for (g, e) in exprs.iter().enumerate() {
        let item = match e {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => {
                    let at: usize = n.parse().unwrap_or(0);
                    if at == 0 || at > items.len() {
                        return unsupported("GROUP BY a position out of the items");
                    }
                    Some(at - 1)
                }
                _ => None,
            },
            Expr::Identifier(id) => items.iter().position(|i| {
                i.name.eq_ignore_ascii_case(&id.value)
                    && !matches!(&i.expr, Expr::Identifier(c) if c.value.eq_ignore_ascii_case(&id.value))
            }),
            _ => None,
        };
        match item {
            Some(at) => {
                items[at].grouping.get_or_insert(g);
                groupings.push(items[at].expr.clone());
            }
            None => groupings.push(e.clone()),
        }
    }
    let n = groupings.len();
    let from = select
        .from
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let mut members = Vec::with_capacity(n + 1);
    for level in (0..=n).rev() {
        let dropped = &groupings[level..];
        let mut columns = Vec::with_capacity(items.len() + n + 1);
        for item in &items {
            let value = match item.grouping {
                Some(g) if g >= level => "NULL".to_string(),
                _ if level == n => item.expr.to_string(),
                _ => super_value(&nullify(&item.expr, dropped))?,
            };
            columns.push(format!("{value} AS {}", quoted(&item.column)));
        }
        columns.push(format!("{level} AS __rollup_level"));
        // An aggregate in every member: the total's `HAVING COUNT(*) > 0` needs an aggregate
        // query, which items without aggregates do not make.
        columns.push("COUNT(*) AS __rollup_rows".into());
        for (i, g) in groupings.iter().enumerate() {
            let key = if i < level {
                g.to_string()
            } else {
                "NULL".into()
            };
            columns.push(format!("{key} AS __rollup_key_{i}"));
        }
        let mut member = format!("SELECT {}", columns.join(", "));
        if !from.is_empty() {
            member.push_str(&format!(" FROM {from}"));
        }
        if let Some(w) = &select.selection {
            member.push_str(&format!(" WHERE {w}"));
        }
        if level > 0 {
            // The expressions, not positions: a member's items are not the query's.
            let keys: Vec<String> = groupings[..level].iter().map(ToString::to_string).collect();
            member.push_str(&format!(" GROUP BY {}", keys.join(", ")));
        }
        let mut having: Vec<String> = Vec::new();
        if let Some(h) = &select.having {
            let h = nullify(h, dropped);
            let aliases: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
            if level < n
                && columns_outside_aggregates(&h)
                    .iter()
                    .any(|c| !aliases.iter().any(|a| a.eq_ignore_ascii_case(c)))
            {
                return unsupported("GROUP BY … WITH ROLLUP with a column in HAVING");
            }
            having.push(format!("({h})"));
        }
        if level == 0 {
            having.push("COUNT(*) > 0".into());
        }
        if !having.is_empty() {
            member.push_str(&format!(" HAVING {}", having.join(" AND ")));
        }
        members.push(member);
    }
    let names: Vec<String> = items
        .iter()
        .map(|i| {
            if i.column == i.name {
                quoted(&i.name)
            } else {
                format!("{} AS {}", quoted(&i.column), quoted(&i.name))
            }
        })
        .collect();
    let order: Vec<String> = (0..n)
        .map(|i| format!("(__rollup_level < {}), __rollup_key_{i}", i + 1))
        .collect();
    let mut text = String::new();
    if let Some(with) = &query.with {
        text.push_str(&format!("{with} "));
    }
    text.push_str(&format!(
        "SELECT {} FROM ({}) AS __rollup ORDER BY {}",
        names.join(", "),
        members.join(" UNION ALL "),
        order.join(", ")
    ));
    if let Some(limit) = &query.limit_clause {
        text.push_str(&format!("{limit}"));
    }
    let parsed = xrpc_sql::parse_one_statement(&text, &xrpc_sql::Options::default())
        .map_err(|_| TranslateError::Unsupported("GROUP BY … WITH ROLLUP of this query".into()))?;
    match parsed.statement() {
        Some(Statement::Query(q)) => Ok(q.as_ref().clone()),
        _ => unsupported("GROUP BY … WITH ROLLUP of this query"),
    }
}

/// A super-aggregate row's value of an item: MySQL shows the value of the last group it adds
/// up, which is the value any of its rows has when they all have one. An item without
/// aggregates is checked for that when the statement runs (`__ROLLUP_ONE_VALUE`, 1235 when
/// the rows differ, as bytes); one mixing aggregates with columns is refused.
fn super_value(e: &Expr) -> Result<String> {
    if matches!(e, Expr::Value(_)) {
        return Ok(e.to_string());
    }
    let columns = columns_outside_aggregates(e);
    if !has_aggregate(e) {
        if columns.is_empty() {
            return Ok(e.to_string());
        }
        return Ok(format!(
            "__ROLLUP_ONE_VALUE(COUNT(DISTINCT CAST({e} AS BINARY)) > 1 \
             OR (COUNT({e}) > 0 AND COUNT({e}) < COUNT(*)), {e})"
        ));
    }
    if columns.is_empty() {
        Ok(e.to_string())
    } else {
        unsupported("GROUP BY … WITH ROLLUP of an item mixing aggregates and columns")
    }
}

/// Whether an expression calls an aggregate.
fn has_aggregate(e: &Expr) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f)
                    if crate::library::is_aggregate(&f.name.to_string().to_ascii_uppercase()) =>
                {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    e.visit(&mut Finder).is_break()
}

/// The names of the columns an expression reads outside aggregates.
fn columns_outside_aggregates(e: &Expr) -> Vec<String> {
    let mut outside = e.clone();
    let mut aside = Aside(Vec::new());
    let _ = VisitMut::visit(&mut outside, &mut aside);
    struct Columns(Vec<String>);
    impl Visitor for Columns {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Identifier(id) if !id.value.starts_with(ASIDE) => {
                    self.0.push(id.value.clone());
                }
                Expr::CompoundIdentifier(ids) => {
                    self.0.extend(ids.last().map(|i| i.value.clone()));
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let mut columns = Columns(Vec::new());
    let _ = outside.visit(&mut columns);
    columns.0
}

/// The name an aggregate set aside takes, with its number.
const ASIDE: &str = "__rollup_aggregate_";

/// Aggregates set aside (each replaced by a column named [`ASIDE`] and its number) while the
/// rest of an expression is read or rewritten.
struct Aside(Vec<Expr>);

impl VisitorMut for Aside {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e
            && crate::library::is_aggregate(&f.name.to_string().to_ascii_uppercase())
        {
            let at = self.0.len();
            self.0.push(std::mem::replace(
                e,
                Expr::Identifier(Ident::new(format!("{ASIDE}{at}"))),
            ));
        }
        ControlFlow::Continue(())
    }
}

/// A name as a quoted identifier.
fn quoted(name: &str) -> String {
    Ident::with_quote('`', name).to_string()
}

/// Whether a query has a `?` argument.
fn has_placeholder(query: &Query) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_value(&mut self, value: &sqlparser::ast::ValueWithSpan) -> ControlFlow<()> {
            if matches!(value.value, Value::Placeholder(_)) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    query.visit(&mut Finder).is_break()
}

/// `e` with the dropped grouping expressions NULL outside aggregates: a column by its name, any
/// other expression as written.
fn nullify(e: &Expr, dropped: &[Expr]) -> Expr {
    struct Drop<'a>(&'a [Expr]);
    impl VisitorMut for Drop<'_> {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            // A column as (its table's name or alias if written, its name). `t.a` and `u.a`
            // are two columns; `a` is the one of them it can name (MySQL refuses it when it
            // could name both).
            let column = |e: &Expr| match e {
                Expr::Identifier(id) => Some((None, id.value.to_ascii_lowercase())),
                Expr::CompoundIdentifier(ids) => {
                    let mut names = ids.iter().rev().map(|i| i.value.to_ascii_lowercase());
                    let name = names.next()?;
                    Some((names.next(), name))
                }
                _ => None,
            };
            let is_dropped = self.0.iter().any(|g| match (column(g), column(e)) {
                (Some((table_g, a)), Some((table_e, b))) => {
                    a == b && (table_g.is_none() || table_e.is_none() || table_g == table_e)
                }
                (None, None) => g == e,
                _ => false,
            });
            if is_dropped {
                *e = Expr::value(Value::Null);
            }
            ControlFlow::Continue(())
        }
    }
    struct Back(Vec<Option<Expr>>);
    impl VisitorMut for Back {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            if let Expr::Identifier(id) = e
                && let Some(at) = id.value.strip_prefix(ASIDE)
                && let Ok(at) = at.parse::<usize>()
                && let Some(original) = self.0.get_mut(at).and_then(Option::take)
            {
                *e = original;
            }
            ControlFlow::Continue(())
        }
    }
    let mut out = e.clone();
    let mut aside = Aside(Vec::new());
    let _ = VisitMut::visit(&mut out, &mut aside);
    let _ = VisitMut::visit(&mut out, &mut Drop(dropped));
    let _ = VisitMut::visit(&mut out, &mut Back(aside.0.into_iter().map(Some).collect()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(text: &str) -> Statement {
        xrpc_sql::parse_one_statement(text, &xrpc_sql::Options::default())
            .unwrap()
            .statement()
            .unwrap()
            .clone()
    }

    #[test]
    fn only_rollup_queries_are_rewritten() {
        assert_eq!(
            rewrite(&statement("SELECT a, SUM(b) FROM t GROUP BY a")).unwrap(),
            None
        );
        let rewritten = rewrite(&statement("SELECT a, SUM(b) FROM t GROUP BY a WITH ROLLUP"))
            .unwrap()
            .unwrap()
            .to_string();
        assert!(rewritten.contains("UNION ALL"), "{rewritten}");
        assert!(!rewritten.contains("ROLLUP "), "{rewritten}");
    }

    #[test]
    fn order_by_with_rollup_is_mysqls_wrong_usage() {
        let err = rewrite(&statement(
            "SELECT a, SUM(b) FROM t GROUP BY a WITH ROLLUP ORDER BY a",
        ))
        .unwrap_err();
        assert_eq!(err.code(), 1221);
        let err = rewrite(&statement(
            "SELECT a, SUM(b) FROM t WHERE a = ? GROUP BY a WITH ROLLUP",
        ))
        .unwrap_err();
        assert_eq!(err.code(), 1235);
    }
}
