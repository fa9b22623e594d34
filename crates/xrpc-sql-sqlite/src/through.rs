//! Writes through a view: INSERT, REPLACE, UPDATE and DELETE naming a view that MySQL lets
//! them change, as the same statement on the view's table.
//!
//! A view is written through here when its SELECT reads one table
//! (`SELECT a, b AS c, a * 2 AS d FROM t [AS x] [WHERE …]`, or `SELECT * FROM t …`): no
//! DISTINCT, GROUP BY, HAVING, ORDER BY, LIMIT, union, subquery or common table expression;
//! the table a base table (never one a temporary table of its name hides) or a view written
//! through the same way (its names then read through it, its WHERE added); its columns the
//! table's as they are or expressions of them (an aggregate makes the view one MySQL cannot
//! write through, below), no table column shown twice. The statement is rewritten onto the
//! table: a view column's name becomes the table column or the expression it is (a name the
//! view does not have is MySQL's 1054, whether or not the table has it), the view's WHERE is
//! added to an UPDATE's or DELETE's (an INSERT ignores it, as MySQL does without CHECK
//! OPTION), and the result is translated as any statement on the table. Writing a computed
//! column is MySQL's 1348, and an INSERT without a column list into a view with one 1471.
//!
//! A view of an inner join of base tables (`JOIN … ON`, `CROSS JOIN`) is written through as
//! MySQL writes a join view: an UPDATE of the columns of one of its tables becomes a
//! multi-table UPDATE of the view's FROM, an INSERT naming the columns of one table an INSERT
//! into that table; columns of several tables (or, to an INSERT, a computed column) are MySQL's
//! 1393, an INSERT without a column list 1394, and any DELETE 1395.
//!
//! A view MySQL cannot write through at all (ALGORITHM=TEMPTABLE, a union, LIMIT, DISTINCT,
//! GROUP BY, HAVING, an aggregate or window function of its own, no table, or a view over such
//! a view) is MySQL's
//! 1288 for UPDATE and DELETE and 1471 for INSERT and REPLACE, naming the view the statement
//! writes. Anything else naming a view as its target is 1235: a statement with a subquery (its
//! names would have to be told apart from the view's), a multi-table form, ON DUPLICATE KEY
//! UPDATE, a view of an outer join or a join with USING, an UPDATE of a join view with ORDER
//! BY or LIMIT, a view over a join view.

use sqlparser::ast::{
    AssignmentTarget, Delete, Expr, FromTable, GroupByExpr, Ident, Insert, Join, JoinConstraint,
    JoinOperator, ObjectName, Query, SelectItem, SetExpr, Statement, TableFactor, TableObject,
    Update, Visit, Visitor, visit_expressions_mut,
};
use std::ops::ControlFlow;

use crate::error::{TranslateError, unsupported};
use crate::translate::Translator;
use crate::types::Table;

type Result<T> = std::result::Result<T, TranslateError>;

/// A view written through: its table and how its names map onto the table's.
struct Through {
    /// The table, qualified with its database.
    table: ObjectName,
    /// The view's columns: its name, what it is over the table, and the table column's name
    /// when it is one.
    columns: Vec<(String, Expr, Option<String>)>,
    /// The view's WHERE.
    condition: Option<Expr>,
    /// The view's FROM, its table named with its database (and under the view's alias for it,
    /// so the view's WHERE and columns read as written).
    relation: TableFactor,
    /// A join view's joins after [`Through::relation`], their tables named with their
    /// databases; empty for a view of one table.
    joins: Vec<Join>,
    /// A join view's columns' tables, as the view names them (its alias for each), parallel to
    /// [`Through::columns`]: `None` for a computed column. Empty for a view of one table.
    owners: Vec<Option<String>>,
    /// A join view's tables: the name the view refers to each by, and its name qualified with
    /// its database. Empty for a view of one table.
    joined: Vec<(String, ObjectName)>,
}

impl Through {
    /// What view column `name` is over the table.
    fn read(&self, name: &str) -> Result<Expr> {
        self.columns
            .iter()
            .find(|(view, _, _)| view.eq_ignore_ascii_case(name))
            .map(|(_, e, _)| e.clone())
            .ok_or_else(|| TranslateError::UnknownColumn(name.to_owned(), "field list"))
    }

    /// The table column behind view column `name`, which a write sets: MySQL's 1348 for a
    /// computed one.
    fn column(&self, name: &str) -> Result<&str> {
        let (view, _, column) = self
            .columns
            .iter()
            .find(|(view, _, _)| view.eq_ignore_ascii_case(name))
            .ok_or_else(|| TranslateError::UnknownColumn(name.to_owned(), "field list"))?;
        column
            .as_deref()
            .ok_or_else(|| TranslateError::NotUpdatable(view.clone()))
    }

    /// Rewrites an expression of the statement, which names the view's columns (bare or
    /// qualified by `qualifier`, the name the statement gives the view), onto the table's.
    fn expr(&self, e: &mut Expr, qualifier: &str) -> Result<()> {
        let mut failure = None;
        let _ = visit_expressions_mut(e, |e| {
            let result = match e {
                Expr::Identifier(id)
                    if !(id.quote_style.is_none()
                        && (id.value.starts_with('@') || is_keyword_value(&id.value))) =>
                {
                    self.read(&id.value).map(|r| *e = r)
                }
                Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
                    if ids[0].value.eq_ignore_ascii_case(qualifier) {
                        self.read(&ids[1].value).map(|r| *e = r)
                    } else {
                        Err(TranslateError::UnknownColumn(e.to_string(), "field list"))
                    }
                }
                Expr::CompoundIdentifier(_) => unsupported(format!("name {e} through a view")),
                _ => Ok(()),
            };
            match result {
                Ok(()) => ControlFlow::Continue(()),
                Err(err) => {
                    failure = Some(err);
                    ControlFlow::Break(())
                }
            }
        });
        failure.map_or(Ok(()), Err)
    }

    /// The statement's WHERE onto the table, and the view's.
    fn selection(&self, selection: Option<&Expr>, qualifier: &str) -> Result<Option<Expr>> {
        let mut mine = selection.cloned();
        if let Some(e) = &mut mine {
            self.expr(e, qualifier)?;
        }
        Ok(match (mine, self.condition.clone()) {
            (Some(a), Some(b)) => Some(Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(a))),
                op: sqlparser::ast::BinaryOperator::And,
                right: Box::new(Expr::Nested(Box::new(b))),
            }),
            (a, b) => a.or(b),
        })
    }

    /// The table under the view's name for it.
    fn relation(&self) -> TableFactor {
        self.relation.clone()
    }
}

/// `CURRENT_TIMESTAMP` and the like, which parse as names.
fn is_keyword_value(name: &str) -> bool {
    [
        "CURRENT_TIMESTAMP",
        "CURRENT_DATE",
        "CURRENT_TIME",
        "DEFAULT",
    ]
    .iter()
    .any(|k| k.eq_ignore_ascii_case(name))
}

/// Whether `node` (not itself a query) holds a query: a subquery.
fn has_subquery<V: Visit>(node: &V) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
    }
    node.visit(&mut Finder).is_break()
}

impl Translator<'_> {
    /// How `view` is written through, or 1235 naming what stops it.
    fn through(&self, view: &Table, statement: &'static str) -> Result<Through> {
        let definition = view.view.as_ref().expect("a view");
        let refuse =
            |why: &str| unsupported(format!("{statement} of the view {}, {why}", view.name));
        let Ok(parsed) =
            xrpc_sql::parse_one_statement(&definition.query, &xrpc_sql::Options::default())
        else {
            return refuse("whose SELECT does not read back");
        };
        let Some(Statement::Query(query)) = parsed.statement() else {
            return refuse("whose SELECT does not read back");
        };
        if definition.temptable || !crate::mergeable::mergeable(query) {
            return Err(TranslateError::ViewNotUpdatable(
                view.name.clone(),
                statement,
            ));
        }
        let Query {
            with: None,
            body,
            order_by: None,
            limit_clause: None,
            fetch: None,
            locks,
            for_clause: None,
            ..
        } = query.as_ref()
        else {
            return refuse("which orders, limits or has common table expressions");
        };
        let SetExpr::Select(select) = body.as_ref() else {
            return refuse("which is not one SELECT");
        };
        let plain = locks.is_empty()
            && select.distinct.is_none()
            && select.top.is_none()
            && select.into.is_none()
            && select.having.is_none()
            && select.qualify.is_none()
            && select.named_window.is_empty()
            && select.lateral_views.is_empty()
            && matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
            && select.from.len() == 1
            && !has_subquery(select.as_ref());
        if plain && !select.from[0].joins.is_empty() {
            return self.join_through(view, definition, select, statement);
        }
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = &select.from[0].relation
        else {
            return refuse("which does not read one table");
        };
        if !plain {
            return refuse("which is not its table's columns as they are");
        }
        let (database, table) = self.view_source(view, definition, name, statement)?;
        let refer = alias
            .as_ref()
            .map_or_else(|| table.name.clone(), |a| a.name.value.clone());
        let invalid = || TranslateError::InvalidView(format!("{}.{}", view.database, view.name));
        // A view over another view is written through to that one's table: this view's
        // names read through the other's.
        let inner = if table.view.is_some() {
            // MySQL names the view the statement writes, not the one it reads.
            let inner = self.through(&table, statement).map_err(|err| match err {
                TranslateError::ViewNotUpdatable(_, statement) => {
                    TranslateError::ViewNotUpdatable(view.name.clone(), statement)
                }
                other => other,
            })?;
            if !inner.joins.is_empty() {
                return refuse("which reads a join view");
            }
            Some(inner)
        } else {
            // The rewritten statement would name the temporary table, which the view never
            // reads.
            if self.hidden_by_temporary(&database, &table) {
                return refuse("whose table a temporary table of its name hides");
            }
            None
        };
        let source = |name: &str| -> Result<(Expr, Option<String>)> {
            match &inner {
                Some(inner) => Ok((
                    inner.read(name).map_err(|_| invalid())?,
                    inner.column(name).ok().map(str::to_owned),
                )),
                None => {
                    let declared = table.column(name).ok_or_else(invalid)?;
                    Ok((
                        Expr::CompoundIdentifier(vec![
                            Ident::new(refer.clone()),
                            Ident::new(declared.name.clone()),
                        ]),
                        Some(declared.name.clone()),
                    ))
                }
            }
        };
        let mut bases: Vec<(Expr, Option<String>)> = Vec::new();
        for item in &select.projection {
            let expr = match item {
                SelectItem::Wildcard(_) if select.projection.len() == 1 => {
                    for c in &definition.selected {
                        bases.push(source(c)?);
                    }
                    continue;
                }
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return refuse("which is not its table's columns as they are"),
            };
            let column = match expr {
                Expr::Identifier(id) => Some(&id.value),
                Expr::CompoundIdentifier(ids)
                    if ids.len() == 2 && ids[0].value.eq_ignore_ascii_case(&refer) =>
                {
                    Some(&ids[1].value)
                }
                _ => None,
            };
            match column {
                Some(column) => bases.push(source(column)?),
                None => {
                    let mut read = expr.clone();
                    if let Some(inner) = &inner {
                        inner.expr(&mut read, &refer).map_err(|_| invalid())?;
                    }
                    bases.push((Expr::Nested(Box::new(read)), None));
                }
            }
        }
        if bases.len() != view.columns.len() {
            return Err(invalid());
        }
        let shown: Vec<&String> = bases.iter().filter_map(|(_, c)| c.as_ref()).collect();
        if shown
            .iter()
            .enumerate()
            .any(|(i, b)| shown[..i].iter().any(|o| o.eq_ignore_ascii_case(b)))
        {
            return refuse("which shows a column twice");
        }
        let columns = view
            .columns
            .iter()
            .zip(bases)
            .map(|(c, (read, column))| (c.name.clone(), read, column))
            .collect();
        if let Some(inner) = inner {
            return Ok(Through {
                condition: inner
                    .selection(select.selection.as_ref(), &refer)
                    .map_err(|_| invalid())?,
                relation: inner.relation,
                table: inner.table,
                columns,
                joins: Vec::new(),
                owners: Vec::new(),
                joined: Vec::new(),
            });
        }
        let qualified = ObjectName::from(vec![
            Ident::new(table.database.clone()),
            Ident::new(table.name.clone()),
        ]);
        let mut relation = select.from[0].relation.clone();
        if let TableFactor::Table { name, .. } = &mut relation {
            *name = qualified.clone();
        }
        Ok(Through {
            relation,
            table: qualified,
            columns,
            condition: select.selection.clone(),
            joins: Vec::new(),
            owners: Vec::new(),
            joined: Vec::new(),
        })
    }

    /// The table or view a view's FROM names, found in the view's database unless qualified:
    /// 1235 for a name that is not `t` or `db.t`, 1356 when there is none.
    fn view_source(
        &self,
        view: &Table,
        definition: &crate::types::View,
        name: &ObjectName,
        statement: &'static str,
    ) -> Result<(String, Table)> {
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|p| p.as_ident().map(|i| i.value.clone()))
            .collect();
        let (database, table_name) = match parts.as_slice() {
            [t] => (definition.names_in.clone(), t.clone()),
            [d, t] => (d.clone(), t.clone()),
            _ => {
                return unsupported(format!(
                    "{statement} of the view {}, whose table is not named plainly",
                    view.name
                ));
            }
        };
        let table = self
            .catalog
            .base_table(&database, &table_name)
            .ok_or_else(|| {
                TranslateError::InvalidView(format!("{}.{}", view.database, view.name))
            })?;
        Ok((database, table))
    }

    /// Whether a temporary table of its name hides `table` from a statement (the rewritten
    /// statement would name the temporary table, which the view never reads).
    fn hidden_by_temporary(&self, database: &str, table: &Table) -> bool {
        self.catalog
            .table(Some(database), &table.name)
            .is_some_and(|t| t.temporary)
    }

    /// How a view of an inner join of base tables is written through: each column the table
    /// column it names (qualified by the view's name for its table, or found in the one table
    /// that has it) or an expression of them.
    fn join_through(
        &self,
        view: &Table,
        definition: &crate::types::View,
        select: &sqlparser::ast::Select,
        statement: &'static str,
    ) -> Result<Through> {
        let refuse = |why: &str| {
            TranslateError::Unsupported(format!("{statement} of the view {}, {why}", view.name))
        };
        let invalid = || TranslateError::InvalidView(format!("{}.{}", view.database, view.name));
        let from = &select.from[0];
        let mut tables: Vec<(String, Table, ObjectName)> = Vec::new();
        let mut factor = |f: &TableFactor| -> Result<TableFactor> {
            let TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } = f
            else {
                return Err(refuse("which joins something other than tables"));
            };
            let (database, table) = self.view_source(view, definition, name, statement)?;
            if table.view.is_some() {
                return Err(refuse("which joins a view"));
            }
            if self.hidden_by_temporary(&database, &table) {
                return Err(refuse("whose table a temporary table of its name hides"));
            }
            let refer = alias
                .as_ref()
                .map_or_else(|| table.name.clone(), |a| a.name.value.clone());
            let qualified = ObjectName::from(vec![
                Ident::new(table.database.clone()),
                Ident::new(table.name.clone()),
            ]);
            let mut out = f.clone();
            if let TableFactor::Table { name, .. } = &mut out {
                *name = qualified.clone();
            }
            tables.push((refer, table, qualified));
            Ok(out)
        };
        let relation = factor(&from.relation)?;
        let mut joins = Vec::with_capacity(from.joins.len());
        for join in &from.joins {
            match &join.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::CrossJoin(c)
                | JoinOperator::StraightJoin(c)
                    if matches!(c, JoinConstraint::On(_) | JoinConstraint::None) => {}
                _ => return Err(refuse("which is not an inner join ON conditions")),
            }
            joins.push(Join {
                relation: factor(&join.relation)?,
                ..join.clone()
            });
        }
        let mut columns = Vec::new();
        let mut owners = Vec::new();
        for item in &select.projection {
            let (expr, name) = match item {
                SelectItem::UnnamedExpr(e) => (e, None),
                SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
                _ => return Err(refuse("which is not its tables' columns as they are")),
            };
            let named = match expr {
                Expr::Identifier(id) => Some((None, &id.value)),
                Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
                    Some((Some(&ids[0].value), &ids[1].value))
                }
                _ => None,
            };
            match named {
                Some((qualifier, column)) => {
                    let mut found = tables.iter().filter(|(refer, table, _)| {
                        qualifier.is_none_or(|q| q.eq_ignore_ascii_case(refer))
                            && table.column(column).is_some()
                    });
                    let (Some((refer, table, _)), None) = (found.next(), found.next()) else {
                        return Err(invalid());
                    };
                    let declared = table.column(column).expect("found").name.clone();
                    columns.push((
                        name.unwrap_or_else(|| column.clone()),
                        Expr::CompoundIdentifier(vec![
                            Ident::new(refer.clone()),
                            Ident::new(declared.clone()),
                        ]),
                        Some(declared),
                    ));
                    owners.push(Some(refer.clone()));
                }
                None => {
                    columns.push((
                        name.unwrap_or_default(),
                        Expr::Nested(Box::new(expr.clone())),
                        None,
                    ));
                    owners.push(None);
                }
            }
        }
        if columns.len() != view.columns.len() {
            return Err(invalid());
        }
        let columns = view
            .columns
            .iter()
            .zip(columns)
            .map(|(c, (_, read, column))| (c.name.clone(), read, column))
            .collect();
        let joined: Vec<(String, ObjectName)> = tables
            .into_iter()
            .map(|(refer, _, qualified)| (refer, qualified))
            .collect();
        Ok(Through {
            table: joined[0].1.clone(),
            columns,
            condition: select.selection.clone(),
            relation,
            joins,
            owners,
            joined,
        })
    }

    /// The table of a join view that every named column is of (`names`, the view's column
    /// names): MySQL's 1393 when they are of several. A computed column is 1348 to an UPDATE,
    /// and to an INSERT (`inserting`) of no one table: 1393.
    fn join_target(
        &self,
        view: &Table,
        through: &Through,
        names: &[String],
        inserting: bool,
    ) -> Result<String> {
        let several = || TranslateError::JoinViewTables(format!("{}.{}", view.database, view.name));
        let mut target: Option<&String> = None;
        for name in names {
            let at = through
                .columns
                .iter()
                .position(|(view_column, _, _)| view_column.eq_ignore_ascii_case(name))
                .ok_or_else(|| TranslateError::UnknownColumn(name.clone(), "field list"))?;
            let Some(owner) = &through.owners[at] else {
                return Err(if inserting {
                    several()
                } else {
                    TranslateError::NotUpdatable(name.clone())
                });
            };
            match target {
                Some(t) if !t.eq_ignore_ascii_case(owner) => return Err(several()),
                _ => target = Some(owner),
            }
        }
        match target {
            Some(target) => Ok(target.clone()),
            None => unsupported("a write through a join view naming no column"),
        }
    }

    /// INSERT or REPLACE into a view, as into its table.
    pub(crate) fn insert_through(&self, insert: &Insert, view: &Table) -> Result<Insert> {
        let what = if insert.replace_into {
            "REPLACE"
        } else {
            "INSERT"
        };
        // MySQL's INSERT and REPLACE find a view it cannot write through not insertable.
        let through = self.through(view, what).map_err(|err| match err {
            TranslateError::ViewNotUpdatable(..) => {
                TranslateError::NotInsertable(view.name.clone())
            }
            other => other,
        })?;
        if insert.on.is_some() || insert.table_alias.is_some() || has_subquery(&insert.assignments)
        {
            return unsupported(format!("{what} of the view {} with this clause", view.name));
        }
        if !through.joins.is_empty() {
            return self.insert_through_join(insert, view, &through);
        }
        // MySQL's INSERT naming a computed column finds the view not insertable.
        let column = |name: &str| {
            through.column(name).map_err(|err| match err {
                TranslateError::NotUpdatable(_) => TranslateError::NotInsertable(view.name.clone()),
                other => other,
            })
        };
        let mut out = insert.clone();
        out.table = TableObject::TableName(through.table.clone());
        out.columns = if insert.columns.is_empty() && insert.assignments.is_empty() {
            through
                .columns
                .iter()
                .map(|(_, _, c)| {
                    c.as_ref()
                        .map(|c| ObjectName::from(vec![Ident::new(c.clone())]))
                        .ok_or_else(|| TranslateError::NotInsertable(view.name.clone()))
                })
                .collect::<Result<_>>()?
        } else {
            insert
                .columns
                .iter()
                .map(|c| {
                    let name = c.to_string();
                    let name =
                        c.0.last()
                            .and_then(|p| p.as_ident())
                            .map_or(name, |i| i.value.clone());
                    column(&name).map(|c| ObjectName::from(vec![Ident::new(c)]))
                })
                .collect::<Result<_>>()?
        };
        for a in &mut out.assignments {
            let AssignmentTarget::ColumnName(n) = &a.target else {
                return unsupported(format!("{what} of the view {} with this clause", view.name));
            };
            let name =
                n.0.last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.clone())
                    .unwrap_or_default();
            a.target =
                AssignmentTarget::ColumnName(ObjectName::from(vec![Ident::new(column(&name)?)]));
        }
        Ok(out)
    }

    /// INSERT or REPLACE into a join view: into the one table whose columns it names (MySQL's
    /// 1393 for several, 1394 without a column list).
    fn insert_through_join(
        &self,
        insert: &Insert,
        view: &Table,
        through: &Through,
    ) -> Result<Insert> {
        let shown = format!("{}.{}", view.database, view.name);
        if insert.columns.is_empty() && insert.assignments.is_empty() {
            return Err(TranslateError::JoinViewInsertList(shown));
        }
        let last = |n: &ObjectName| {
            n.0.last()
                .and_then(|p| p.as_ident())
                .map_or_else(|| n.to_string(), |i| i.value.clone())
        };
        let mut names: Vec<String> = insert.columns.iter().map(last).collect();
        for a in &insert.assignments {
            let AssignmentTarget::ColumnName(n) = &a.target else {
                return unsupported(format!("INSERT of the view {} with this clause", view.name));
            };
            names.push(last(n));
        }
        let target = self.join_target(view, through, &names, true)?;
        let table = through
            .joined
            .iter()
            .find(|(refer, _)| refer.eq_ignore_ascii_case(&target))
            .map(|(_, qualified)| qualified.clone())
            .expect("a join view's column is of one of its tables");
        let mut out = insert.clone();
        out.table = TableObject::TableName(table);
        out.columns = insert
            .columns
            .iter()
            .map(|c| {
                through
                    .column(&last(c))
                    .map(|c| ObjectName::from(vec![Ident::new(c)]))
            })
            .collect::<Result<_>>()?;
        for a in &mut out.assignments {
            let AssignmentTarget::ColumnName(n) = &a.target else {
                unreachable!("checked above");
            };
            a.target = AssignmentTarget::ColumnName(ObjectName::from(vec![Ident::new(
                through.column(&last(n))?,
            )]));
        }
        Ok(out)
    }

    /// UPDATE of a view, as of its table's rows the view shows.
    pub(crate) fn update_through(&self, update: &Update, view: &Table) -> Result<Update> {
        let through = self.through(view, "UPDATE")?;
        let joined = !through.joins.is_empty();
        if !update.table.joins.is_empty()
            || update.from.is_some()
            || has_subquery(update)
            || (joined && (!update.order_by.is_empty() || update.limit.is_some()))
        {
            return unsupported(format!("UPDATE of the view {} with this clause", view.name));
        }
        let target = if joined {
            let names: Vec<String> = update
                .assignments
                .iter()
                .filter_map(|a| match &a.target {
                    AssignmentTarget::ColumnName(n) => {
                        n.0.last()
                            .and_then(|p| p.as_ident())
                            .map(|i| i.value.clone())
                    }
                    AssignmentTarget::Tuple(_) => None,
                })
                .collect();
            Some(self.join_target(view, &through, &names, false)?)
        } else {
            None
        };
        let qualifier = match &update.table.relation {
            TableFactor::Table { alias: Some(a), .. } => a.name.value.clone(),
            _ => view.name.clone(),
        };
        let mut out = update.clone();
        out.table.relation = through.relation();
        for a in &mut out.assignments {
            let AssignmentTarget::ColumnName(n) = &a.target else {
                return unsupported("tuple assignment");
            };
            let parts: Vec<&Ident> = n.0.iter().filter_map(|p| p.as_ident()).collect();
            let name = match parts.as_slice() {
                [c] => &c.value,
                [q, c] if q.value.eq_ignore_ascii_case(&qualifier) => &c.value,
                _ => return Err(TranslateError::UnknownColumn(n.to_string(), "field list")),
            };
            let column = Ident::new(through.column(name)?);
            a.target = AssignmentTarget::ColumnName(ObjectName::from(match &target {
                // A multi-table UPDATE names the updated table's column with its table.
                Some(target) => vec![Ident::new(target.clone()), column],
                None => vec![column],
            }));
            through.expr(&mut a.value, &qualifier)?;
        }
        out.table.joins.clone_from(&through.joins);
        out.selection = through.selection(update.selection.as_ref(), &qualifier)?;
        for item in &mut out.order_by {
            through.expr(&mut item.expr, &qualifier)?;
        }
        Ok(out)
    }

    /// DELETE from a view, as from its table's rows the view shows.
    pub(crate) fn delete_through(&self, delete: &Delete, view: &Table) -> Result<Delete> {
        let through = self.through(view, "DELETE")?;
        if !through.joins.is_empty() {
            return Err(TranslateError::JoinViewDelete(format!(
                "{}.{}",
                view.database, view.name
            )));
        }
        let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) = &delete.from;
        if !delete.tables.is_empty()
            || delete.using.is_some()
            || from.len() != 1
            || !from[0].joins.is_empty()
            || has_subquery(delete)
        {
            return unsupported(format!("DELETE of the view {} with this clause", view.name));
        }
        let qualifier = match &from[0].relation {
            TableFactor::Table { alias: Some(a), .. } => a.name.value.clone(),
            _ => view.name.clone(),
        };
        let mut out = delete.clone();
        let mut relation = from[0].clone();
        relation.relation = through.relation();
        out.from = match &delete.from {
            FromTable::WithFromKeyword(_) => FromTable::WithFromKeyword(vec![relation]),
            FromTable::WithoutKeyword(_) => FromTable::WithoutKeyword(vec![relation]),
        };
        out.selection = through.selection(delete.selection.as_ref(), &qualifier)?;
        for item in &mut out.order_by {
            through.expr(&mut item.expr, &qualifier)?;
        }
        Ok(out)
    }
}
