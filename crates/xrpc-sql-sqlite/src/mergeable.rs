//! Whether MySQL merges a view's SELECT into the statements that read the view: only such a
//! view is written through (the `through` module), and only such a view may be declared
//! `ALGORITHM=MERGE` without MySQL's warning. A union, LIMIT, DISTINCT, GROUP BY, HAVING, an
//! aggregate or window function of the SELECT's own level, or no table make it one MySQL
//! materializes instead.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, GroupByExpr, Query, SetExpr, Visit, Visitor};

/// Finds an aggregate or window function of a query's own level (not of its subqueries).
struct AggregateFinder {
    depth: usize,
}

impl Visitor for AggregateFinder {
    type Break = ();
    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        match e {
            Expr::Function(f)
                if self.depth == 0
                    && (f.over.is_some()
                        || crate::library::is_aggregate(
                            &f.name.to_string().to_ascii_uppercase(),
                        )) =>
            {
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

/// Whether MySQL merges a view of this SELECT into the statement that reads it, and so may
/// write through it: not a union, not LIMITed, not DISTINCT, grouping, aggregating or
/// windowing, and reading a table.
pub(crate) fn mergeable(query: &Query) -> bool {
    if query.limit_clause.is_some() || query.fetch.is_some() {
        return false;
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return !matches!(query.body.as_ref(), SetExpr::SetOperation { .. });
    };
    let grouped = match &select.group_by {
        GroupByExpr::Expressions(e, m) => !e.is_empty() || !m.is_empty(),
        GroupByExpr::All(_) => true,
    };
    let aggregating = select
        .projection
        .iter()
        .any(|item| item.visit(&mut AggregateFinder { depth: 0 }).is_break());
    select.distinct.is_none()
        && !grouped
        && select.having.is_none()
        && !aggregating
        && !select.from.is_empty()
}
