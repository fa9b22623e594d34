//! Statements: queries with their name scopes, the DML forms and the DDL forms.

use crate::dates::{ZERO_DATE, ZERO_IN_DATE};
use sqlparser::ast::{
    AlterTableOperation, AlterView, AlterViewOperation, AssignmentTarget, BinaryOperator,
    ColumnOption, CreateIndex, CreateTable, CreateTableOptions, CreateView, CreateViewAlgorithm,
    DataType, Delete, Expr, FromTable, GranteeName, GroupByExpr, Insert, JoinConstraint,
    JoinOperator, LimitClause, ObjectName, ObjectNamePart, ObjectType, OnInsert, OrderByExpr,
    OrderByKind, Query, ReferentialAction, Select, SelectItem, SelectItemQualifiedWildcardKind,
    SetExpr, SetOperator, SetQuantifier, Statement, TableConstraint, TableFactor, TableObject,
    TableWithJoins, Update,
};

use crate::error::{TranslateError, unsupported};
use crate::typed::{Strength, Typed, as_text, group_key, ident, quote, truth, unify};
use crate::types::{
    ArgClass, BIN_COLLATION, Catalog, Collation, Column, ColumnType, DECIMAL_COLLATION, Generated,
    Index, ShownCheck, SystemValue, TEMP_SCHEMA, Table, Ty, View,
};
use crate::{Affected, CatalogChange, Origin, OutColumn, Translation};

use sqlparser::ast::visit_expressions;
use sqlparser::tokenizer::Location;
use std::ops::ControlFlow;

type Result<T> = std::result::Result<T, TranslateError>;

/// A table or derived table in a FROM clause, by the name it is referred to.
#[derive(Debug, Clone)]
struct Source {
    name: String,
    columns: Vec<SourceColumn>,
}

/// A column a [`Source`] offers.
#[derive(Debug, Clone)]
struct SourceColumn {
    name: String,
    ty: Ty,
    /// An UNSIGNED integer.
    unsigned: bool,
    /// The table column it is, if it is one.
    origin: Option<Origin>,
    /// A column of a table (not of a derived table): SQLite holds its values with the
    /// affinity and collation of its declaration.
    stored: bool,
    /// An ENUM column's members: its values sort and compute by their index.
    members: Option<Vec<String>>,
    /// A SET column's members: its values sort and compute by their bit mask.
    set_members: Option<Vec<String>>,
    /// The type of a column read only where its text is what MySQL reads ("ENUM", "TIME"; see
    /// `Translator::enum_ok`).
    restricted: Option<&'static str>,
    /// A select item reading this column is named by the column's name, not as written: a
    /// view's column, and a derived table's column that is a table's column (MySQL merges
    /// them and names the item by the field it reaches).
    names_the_item: bool,
}

impl Source {
    /// The columns of the catalog's `table`, seen under `name` (the table's name or its alias).
    fn of_table(name: String, table: &Table) -> Self {
        let columns = table
            .columns
            .iter()
            .map(|c| SourceColumn {
                name: c.name.clone(),
                ty: c.ty.ty(),
                unsigned: c.ty.is_unsigned(),
                origin: Some(Origin {
                    database: table.database.clone(),
                    table: name.clone(),
                    original_table: table.name.clone(),
                    column: c.name.clone(),
                    flags: table.flags_of(&c.name),
                }),
                stored: true,
                members: match &c.ty {
                    ColumnType::Enum { values, .. } => Some(values.clone()),
                    _ => None,
                },
                set_members: match &c.ty {
                    ColumnType::Set { values, .. } => Some(values.clone()),
                    _ => None,
                },
                restricted: match &c.ty {
                    ColumnType::Enum { .. } => Some("ENUM"),
                    ColumnType::Set { .. } => Some("SET"),
                    ColumnType::Time { .. } => Some("TIME"),
                    ColumnType::Bit { .. } => Some("BIT"),
                    _ => None,
                },
                names_the_item: false,
            })
            .collect();
        Self { name, columns }
    }

    /// A derived table's or common table expression's columns under `name`: a column that is
    /// a table's column stays one, seen under the new name.
    fn of_query(name: String, names: Vec<String>, columns: &[OutColumn]) -> Self {
        let columns = names
            .into_iter()
            .zip(columns)
            .map(|(n, c)| SourceColumn {
                name: n,
                ty: c.ty,
                unsigned: c.unsigned || c.origin.as_ref().is_some_and(|o| o.flags.unsigned),
                origin: c.origin.clone().map(|o| Origin {
                    table: name.clone(),
                    ..o
                }),
                stored: false,
                members: None,
                set_members: None,
                restricted: None,
                names_the_item: c.origin.is_some(),
            })
            .collect();
        Self { name, columns }
    }
}

/// The names one SELECT sees.
#[derive(Debug, Default)]
struct Scope {
    sources: Vec<Source>,
    /// Columns joined with USING: one name for the columns of both sides.
    using: Vec<String>,
    /// The select list's aliases, for ORDER BY and HAVING.
    outputs: Vec<(String, Ty)>,
    /// The select list's types by position, for ORDER BY 1.
    positions: Vec<Ty>,
    /// The positions (from 0) and names of the select items that are ENUM columns.
    enum_items: Vec<usize>,
    enum_names: Vec<String>,
    /// A single-table UPDATE's scope: its expressions read the columns assigned before them
    /// with their new values (`Translator::assigned`).
    assigns: bool,
}

/// The translation of one statement against a catalog.
pub(crate) struct Translator<'a> {
    pub(crate) catalog: &'a dyn Catalog,
    /// The statement as the client wrote it, when the translation has it: a result column
    /// that is an expression is named by its text (see `result_name`).
    pub(crate) written: Option<&'a xrpc_sql::Parsed>,
    scopes: Vec<Scope>,
    /// In INSERT, REPLACE and UPDATE values: conversions fail as strict mode does.
    pub(crate) strict: bool,
    /// In the SELECT of an INSERT … SELECT (not IGNORE): a CAST's warning is an error, as
    /// strict mode makes it (MySQL's `abort_on_warning` for the whole statement).
    pub(crate) strict_source: bool,
    pub(crate) in_aggregate: bool,
    /// The clause being translated, for MySQL's "Unknown column … in '…'".
    clause: &'static str,
    /// The table of an INSERT's ON DUPLICATE KEY UPDATE, for `VALUES(col)`.
    pub(crate) excluded: Option<Table>,
    /// The row alias of the INSERT whose ON DUPLICATE KEY UPDATE is translated (`VALUES (…) AS
    /// new`): `new.c` is `VALUES(c)`.
    row_alias: Option<String>,
    /// The comparison translated next is a condition of a WHERE's (or an inner join's ON's)
    /// top level that asks for a name (see [`Translator::where_condition`]).
    pub(crate) name_lookup: bool,
    /// Common table expressions in reach.
    ctes: Vec<Source>,
    /// Alias every select item `c0`, `c1`, … (the source of an INSERT … SELECT).
    numbered: bool,
    /// Alias every select item by its name (a derived table's columns).
    named: bool,
    /// In a single-table UPDATE: the columns assigned so far, by table and column, with their
    /// new values (MySQL's later assignments read them).
    assigned: Vec<(String, String, Typed)>,
    /// The table column the last column reference resolved to, for a select item's origin.
    last_origin: Option<Origin>,
    /// The name of the column the last column reference resolved to, when it names the select
    /// item (`SourceColumn::names_the_item`).
    last_item_name: Option<String>,
    /// Column definitions may carry CHECK (in CREATE TABLE, which translates them).
    checks_allowed: bool,
    /// The next expression, if it is a column reference, may be an ENUM column: set by the
    /// contexts where MySQL reads an ENUM as its text (a top-level select item, a comparison
    /// with a string literal, IS NULL, GROUP BY) or where its index order is emitted (ORDER
    /// BY). Anywhere else an ENUM column is refused: MySQL would compute with its index.
    pub(crate) enum_ok: bool,
    /// The base tables read so far, as SQLite names them (`Translation::reads`).
    pub(crate) tables_read: Vec<String>,
    /// The next expression, if it is a column reference, may be a TIME column: the argument of
    /// a function that reads it as a TIME (HOUR, TIME_TO_SEC, TIME_FORMAT, …), which reads the
    /// text it is kept as the way MySQL reads the time.
    pub(crate) time_ok: bool,
    /// The next expression, if it is a column reference, may be a BIT column: where MySQL
    /// reads it as its number (arithmetic, a comparison, SUM, AVG, COUNT, HEX, BIN) or sends
    /// it as a BIT (a select item), or sorts or groups by it. Elsewhere MySQL reads a BIT as a
    /// binary string, and a BIT column is refused.
    pub(crate) bit_ok: bool,
    /// The members of the ENUM column the last column reference resolved to.
    last_members: Option<Vec<String>>,
    /// The members of the SET column the last column reference resolved to.
    last_set_members: Option<Vec<String>>,
    /// The last column reference resolved to an ENUM, SET or TIME column.
    pub(crate) last_restricted: bool,
    /// Queries entered (1: the statement's own query).
    depth: u32,
    /// Inside a UNION's members.
    in_union: u32,
    /// The columns the next SELECT's items are stored into (a recursive common table
    /// expression's recursive member: its rows take the types of the first member's).
    stored_items: Option<Vec<Column>>,
    /// The types of the arguments, by where their `?` starts in the text (in text order).
    arg_types: Vec<(Location, Ty)>,
    /// A `?` was given its argument's type.
    pub(crate) typed_args: bool,
    /// Where every `?` starts, in text order: a `?` is emitted as `?N`, its number in the
    /// text, so the translation may use an argument twice (empty: emitted as `?`).
    placeholder_starts: Vec<Location>,
    /// In a view's SELECT: the database its unqualified table names are in.
    view_names_in: Option<String>,
    /// Translating the SELECT of a CREATE VIEW.
    creating_view: bool,
    /// The views being expanded, outermost first (`db.v`), against a view that names itself.
    expanding: Vec<String>,
}

impl<'a> Translator<'a> {
    pub(crate) fn new(catalog: &'a dyn Catalog) -> Self {
        Self {
            catalog,
            written: None,
            scopes: Vec::new(),
            strict: false,
            strict_source: false,
            in_aggregate: false,
            clause: "field list",
            excluded: None,
            row_alias: None,
            name_lookup: false,
            ctes: Vec::new(),
            numbered: false,
            named: false,
            assigned: Vec::new(),
            last_origin: None,
            last_item_name: None,
            checks_allowed: false,
            enum_ok: false,
            tables_read: Vec::new(),
            time_ok: false,
            bit_ok: false,
            last_members: None,
            last_restricted: false,
            last_set_members: None,
            depth: 0,
            in_union: 0,
            stored_items: None,
            arg_types: Vec::new(),
            typed_args: false,
            placeholder_starts: Vec::new(),
            view_names_in: None,
            creating_view: false,
            expanding: Vec::new(),
        }
    }

    /// A translator whose `?` arguments, in text order, have these classes. They are left
    /// untyped when the placeholders cannot be told apart by where they start.
    pub(crate) fn with_args(
        catalog: &'a dyn Catalog,
        statement: &Statement,
        args: &[ArgClass],
    ) -> Self {
        let mut translator = Self::new(catalog);
        if args.is_empty() {
            return translator;
        }
        let mut starts = Vec::with_capacity(args.len());
        let _ = visit_expressions(statement, |e| {
            if let Expr::Value(v) = e
                && matches!(&v.value, sqlparser::ast::Value::Placeholder(p) if p == "?")
            {
                starts.push(v.span.start);
            }
            ControlFlow::<()>::Continue(())
        });
        starts.sort_unstable();
        let distinct = starts.windows(2).all(|w| w[0] != w[1]);
        let located = starts.first().is_none_or(|s| s.line > 0);
        if starts.len() == args.len() && distinct && located {
            translator.placeholder_starts = starts.clone();
            if args.iter().any(|a| *a != ArgClass::Unknown) {
                translator.arg_types = starts
                    .into_iter()
                    .zip(args.iter().map(|a| a.ty()))
                    .collect();
            }
        }
        translator
    }

    /// The new value of a column a single-table UPDATE assigned before the expression being
    /// translated, when the reference names it: in the UPDATE's own expressions. In a
    /// subquery a name of the subquery's own tables is theirs; one that reaches the UPDATE's
    /// assigned column is refused (which value MySQL's subquery reads is not the translation's
    /// to guess).
    fn assigned_value(&self, qualifier: Option<&str>, name: &str) -> Result<Option<Typed>> {
        let Some((_, _, value)) = self.assigned.iter().find(|(table, column, _)| {
            column.eq_ignore_ascii_case(name)
                && qualifier.is_none_or(|q| q.eq_ignore_ascii_case(table))
        }) else {
            return Ok(None);
        };
        // Not in sight (a derived table does not see the enclosing names).
        let Some(update_scope) = self.scopes.iter().position(|s| s.assigns) else {
            return Ok(None);
        };
        if update_scope + 1 == self.scopes.len() {
            return Ok(Some(value.clone()));
        }
        let inner = self.scopes[update_scope + 1..].iter().any(|scope| {
            scope.sources.iter().any(|s| {
                qualifier.is_none_or(|q| q.eq_ignore_ascii_case(&s.name))
                    && s.columns.iter().any(|c| c.name.eq_ignore_ascii_case(name))
            })
        });
        if inner {
            Ok(None)
        } else {
            unsupported(format!(
                "a subquery reading the column '{name}' the UPDATE assigns before it"
            ))
        }
    }

    /// The argument `?` that starts at `start`: typed [`Ty::Dyn`], bound to its value's type
    /// when that is known.
    pub(crate) fn placeholder(&mut self, start: Location) -> Typed {
        let bound = self
            .arg_types
            .binary_search_by(|(at, _)| at.cmp(&start))
            .ok()
            .map(|i| self.arg_types[i].1)
            .filter(|ty| *ty != Ty::Dyn);
        self.typed_args |= bound.is_some();
        Typed {
            bound,
            ..Typed::new(self.placeholder_sql(start), Ty::Dyn)
        }
    }

    /// Whether `e` is NULL before the statement runs: the literal, or a `?` argument bound to
    /// NULL (its class says so).
    fn is_null_value(&self, e: &Expr) -> bool {
        match e {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Null => true,
                sqlparser::ast::Value::Placeholder(p) if p == "?" => self
                    .arg_types
                    .binary_search_by(|(at, _)| at.cmp(&v.span.start))
                    .is_ok_and(|i| self.arg_types[i].1 == Ty::Null),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether the session's `sql_mode` holds `word`.
    fn sql_mode_has(&self, word: &str) -> bool {
        self.catalog
            .system_variable("sql_mode")
            .is_some_and(|mode| match mode {
                crate::types::SystemValue::Text(mode) => mode.split(',').any(|w| w == word),
                crate::types::SystemValue::Int(_) => false,
            })
    }

    /// The zero dates the session's `sql_mode` refuses in a strict write, as flags of a store
    /// function's strictness (`ZERO_DATE`, `ZERO_IN_DATE`).
    pub(crate) fn zero_date_flags(&self) -> i32 {
        i32::from(self.sql_mode_has("NO_ZERO_DATE")) * ZERO_DATE
            + i32::from(self.sql_mode_has("NO_ZERO_IN_DATE")) * ZERO_IN_DATE
    }

    /// Whether every `?` is written as its number (`placeholder_sql`), so an argument may be
    /// repeated in the translation.
    pub(crate) fn placeholders_numbered(&self) -> bool {
        !self.placeholder_starts.is_empty()
    }

    /// The SQL of the `?` that starts at `start`: `?N`, its number in the text, when the
    /// placeholders are told apart (so the same argument may appear twice), else `?`.
    fn placeholder_sql(&self, start: Location) -> String {
        match self.placeholder_starts.binary_search(&start) {
            Ok(index) => format!("?{}", index + 1),
            Err(_) => "?".to_owned(),
        }
    }

    pub(crate) fn statement(&mut self, statement: &Statement) -> Result<Translation> {
        match statement {
            Statement::Query(q) => {
                // SQL_CALC_FOUND_ROWS on the outermost SELECT: the same query without its
                // LIMIT, counted. INTO on it: the variables the engine sets from the row.
                let mut query = q.clone();
                let (calc, into) = match query.body.as_mut() {
                    SetExpr::Select(s) => (
                        s.select_modifiers
                            .as_mut()
                            .is_some_and(|m| std::mem::take(&mut m.sql_calc_found_rows)),
                        s.into.take(),
                    ),
                    _ => (false, None),
                };
                let into: Vec<String> = match into {
                    None => Vec::new(),
                    Some(into) if !into.table && !into.temporary && !into.unlogged => into
                        .targets
                        .iter()
                        .map(|t| match t {
                            Expr::Identifier(id) if id.value.len() > 1 => id
                                .value
                                .strip_prefix('@')
                                .map(str::to_string)
                                .ok_or_else(|| TranslateError::Unsupported(format!("INTO {t}"))),
                            other => unsupported(format!("INTO {other}")),
                        })
                        .collect::<Result<_>>()?,
                    Some(into) => return unsupported(format!("SELECT {into}")),
                };
                let (sql, columns) = self.query(&query)?;
                if !into.is_empty() && into.len() != columns.len() {
                    return Err(TranslateError::SelectColumns);
                }
                let found_rows = if calc {
                    query.limit_clause = None;
                    let (all, _) = self.query(&query)?;
                    Some(format!("SELECT count(*) FROM ({all})"))
                } else {
                    None
                };
                Ok(Translation {
                    sql: vec![sql],
                    columns,
                    affected: Affected::None,
                    change: None,
                    reserves: None,
                    explicit_auto_increment: false,
                    found_rows,
                    into,
                    suspends_foreign_keys: false,
                    foreign_key_failure_is_parents: false,
                    notes: Vec::new(),
                    reads: Vec::new(),
                })
            }
            Statement::Insert(insert) => {
                let view = match &insert.table {
                    TableObject::TableName(name) => self.target_view(name),
                    _ => None,
                };
                match view {
                    Some(view) => {
                        let rewritten = self.insert_through(insert, &view)?;
                        self.insert(&rewritten).map_err(|err| match err {
                            TranslateError::NoDefault(_) => TranslateError::ViewNoDefault(format!(
                                "{}.{}",
                                view.database, view.name
                            )),
                            other => other,
                        })
                    }
                    None => self.insert(insert),
                }
            }
            Statement::Update(update) => {
                let view = match &update.table.relation {
                    TableFactor::Table { name, .. } if update.table.joins.is_empty() => {
                        self.target_view(name)
                    }
                    _ => None,
                };
                match view {
                    Some(view) => {
                        let rewritten = self.update_through(update, &view)?;
                        self.update(&rewritten)
                    }
                    None => self.update(update),
                }
            }
            Statement::Delete(delete) => {
                let view = match &delete.from {
                    FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)
                        if delete.tables.is_empty() && from.len() == 1 =>
                    {
                        match &from[0].relation {
                            TableFactor::Table { name, .. } => self.target_view(name),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                match view {
                    Some(view) => {
                        let rewritten = self.delete_through(delete, &view)?;
                        self.delete(&rewritten)
                    }
                    None => self.delete(delete),
                }
            }
            Statement::CreateTable(create) => self.create_table(create),
            Statement::CreateIndex(create) => self.create_index(create),
            Statement::CreateView(create) => self.create_view(create),
            Statement::AlterView(alter) => self.alter_view(alter),
            Statement::Drop {
                object_type,
                if_exists,
                names,
                table,
                temporary,
                ..
            } => self.drop(*object_type, *if_exists, *temporary, names, table.as_ref()),
            Statement::Truncate(truncate) => {
                let [target] = truncate.table_names.as_slice() else {
                    return unsupported("TRUNCATE of several tables");
                };
                let table = self.object(&target.name)?;
                if table.view.is_some() {
                    return Err(TranslateError::NoSuchTable(format!(
                        "{}.{}",
                        table.database, table.name
                    )));
                }
                let mut sql = vec![format!("DELETE FROM {}", self.sqlite_table(&table))];
                // Only a table with an AUTO_INCREMENT column has a counter to start over (and
                // a database without one has no sqlite_sequence at all).
                if table.columns.iter().any(|c| c.auto_increment) {
                    sql.push(format!(
                        "DELETE FROM {}.sqlite_sequence WHERE name = {}",
                        self.table_schema(&table),
                        quote(&table.name)
                    ));
                }
                Ok(Translation { sql, ..nothing() })
            }
            Statement::RenameTable(renames) => {
                let mut sql = Vec::new();
                let mut changes = Vec::new();
                // MySQL renames one pair after another: a later pair sees the names the earlier
                // ones gave and freed (`a TO tmp, b TO a, tmp TO b` swaps two tables).
                let mut renamed: Vec<Table> = Vec::new();
                let mut freed: Vec<(String, String)> = Vec::new();
                for rename in renames {
                    let (database, name) = self.located(&rename.old_name)?;
                    let earlier = renamed.iter().position(|t| {
                        t.database.eq_ignore_ascii_case(&database)
                            && t.name.eq_ignore_ascii_case(&name)
                    });
                    let from = match earlier {
                        Some(at) => renamed.remove(at),
                        None if freed.iter().any(|(d, n)| {
                            d.eq_ignore_ascii_case(&database) && n.eq_ignore_ascii_case(&name)
                        }) =>
                        {
                            return Err(TranslateError::NoSuchTable(format!("{database}.{name}")));
                        }
                        None => self.object(&rename.old_name)?,
                    };
                    if from.temporary {
                        return unsupported("RENAME TABLE of a temporary table");
                    }
                    let (to_database, to) = self.located(&rename.new_name)?;
                    let taken_earlier = renamed.iter().any(|t| {
                        t.database.eq_ignore_ascii_case(&to_database)
                            && t.name.eq_ignore_ascii_case(&to)
                    });
                    let freed_earlier = freed.iter().position(|(d, n)| {
                        d.eq_ignore_ascii_case(&to_database) && n.eq_ignore_ascii_case(&to)
                    });
                    let to = match freed_earlier {
                        _ if taken_earlier => return Err(TranslateError::TableExists(to)),
                        Some(at) if to_database.eq_ignore_ascii_case(&from.database) => {
                            freed.remove(at);
                            to
                        }
                        _ => self.rename_target(&from, &rename.new_name)?,
                    };
                    freed.push((from.database.clone(), from.name.clone()));
                    if from.view.is_some() {
                        // The view's SQLite stand-in is made again under the new name.
                        let renamed = Table {
                            name: to.clone(),
                            ..from.clone()
                        };
                        sql.push(format!("DROP VIEW {}", self.sqlite_table(&from)));
                        sql.push(self.view_marker_sql(&renamed));
                    } else {
                        sql.push(format!(
                            "ALTER TABLE {} RENAME TO {}",
                            self.sqlite_table(&from),
                            ident(&to)
                        ));
                    }
                    let checks_renamed = (renames.len() == 1 && from.view.is_none())
                        .then(|| self.checks_under_new_name(&from, &to))
                        .flatten();
                    changes.push(CatalogChange::Rename {
                        database: from.database.clone(),
                        from: from.name.clone(),
                        to: to.clone(),
                    });
                    if let Some((renamed, changed)) = checks_renamed {
                        sql.extend(self.rebuild_keeping_rows(&renamed, &changed));
                        changes.push(CatalogChange::Replace(changed));
                    }
                    renamed.push(Table {
                        name: to.clone(),
                        ..from
                    });
                }
                Ok(ddl(sql, CatalogChange::Several(changes)))
            }
            Statement::AlterTable(alter) => self.alter_table(&alter.name, &alter.operations),
            // SQLite's one writer already keeps other sessions out while a statement writes;
            // the locks of a dump's restore have nothing to add.
            Statement::LockTables { tables } => {
                for t in tables {
                    self.object(&ObjectName::from(vec![t.table.clone()]))?;
                }
                Ok(nothing())
            }
            Statement::UnlockTables => Ok(nothing()),
            other => unsupported(format!("statement {}", first_words(&other.to_string()))),
        }
    }

    /// For a table renamed to `to` whose CHECK constraints name it in their error (MariaDB's
    /// 4025 names the table): the table under its new name as SQLite has it after the rename,
    /// and the same with the constraints naming the new name, to build it again with. `None`
    /// when it has no such constraint, is temporary, or other tables' foreign keys reference it
    /// (building it again would drop their parent): the error then keeps the old name.
    fn checks_under_new_name(&self, from: &Table, to: &str) -> Option<(Table, Table)> {
        // The last arguments of `my_check_constraint`: the database and table, after the name
        // the error shows, which is `table.column` for a column's check.
        let named = |table: &str| format!(", {}, {}))", quote(&from.database), quote(table));
        let column_named = |table: &str, column: &str| {
            format!(", {}{}", quote(&format!("{table}.{column}")), named(table))
        };
        let old_suffix = named(&from.name);
        if from.temporary
            || !from
                .checks
                .iter()
                .any(|(_, sql)| sql.ends_with(&old_suffix))
        {
            return None;
        }
        if self
            .referenced_rebuild(from, "RENAME TABLE", &[])
            .unwrap_or(true)
        {
            return None;
        }
        let renamed = Table {
            name: to.to_owned(),
            ..from.clone()
        };
        let mut changed = renamed.clone();
        for (name, sql) in &mut changed.checks {
            if let Some(head) = sql.strip_suffix(&column_named(&from.name, name)) {
                *sql = format!("{head}{}", column_named(to, name));
            } else if let Some(head) = sql.strip_suffix(&old_suffix) {
                *sql = format!("{head}{}", named(to));
            }
        }
        Some((renamed, changed))
    }

    /// A table name's database (the one it names, else the current one) and table.
    fn located(&self, name: &ObjectName) -> Result<(String, String)> {
        let mut parts = name_parts(name)?;
        match parts.len() {
            1 => {
                let database = match &self.view_names_in {
                    Some(database) => database.clone(),
                    None => self
                        .catalog
                        .current_schema()
                        .ok_or(TranslateError::NoDatabase)?,
                };
                Ok((database, parts.remove(0)))
            }
            2 => {
                let table = parts.remove(1);
                Ok((parts.remove(0), table))
            }
            _ => unsupported(format!("table name {name}")),
        }
    }

    /// The catalog's table a name names, with its database: 1347 for a view.
    fn table(&self, name: &ObjectName) -> Result<Table> {
        let found = self.object(name)?;
        if found.view.is_some() {
            return Err(TranslateError::WrongObject(
                format!("{}.{}", found.database, found.name),
                "BASE TABLE",
            ));
        }
        Ok(found)
    }

    /// The view a single-table write names as its target, if it names one (see `through`).
    fn target_view(&self, name: &ObjectName) -> Option<Table> {
        self.object(name).ok().filter(|t| t.view.is_some())
    }

    /// The table a write names: a view is refused (MySQL writes through a simple view to its
    /// table; the translation does not).
    /// Whether other tables' foreign keys reference `table` and it has none of its own (see
    /// [`Translation::foreign_key_failure_is_parents`]).
    fn only_referenced(&self, table: &Table) -> bool {
        table.foreign_keys.is_empty()
            && self
                .catalog
                .tables(&table.database)
                .unwrap_or_default()
                .iter()
                .flat_map(|t| &t.foreign_keys)
                .filter_map(|fk| foreign_key_parts(fk))
                .any(|(_, parent, _)| parent.eq_ignore_ascii_case(&table.name))
    }

    fn write_target(&self, name: &ObjectName, statement: &str) -> Result<Table> {
        let found = self.object(name)?;
        if found.view.is_some() {
            return unsupported(format!("{statement} of the view {}", found.name));
        }
        Ok(found)
    }

    /// The catalog's table or view a name names, with its database. Inside a view's SELECT
    /// only the database's own tables and views count: at the view's creation a temporary
    /// table is MySQL's 1352, when the view is read it is not seen.
    fn object(&self, name: &ObjectName) -> Result<Table> {
        let (database, table) = self.located(name)?;
        let found = if self.view_names_in.is_some() && !self.creating_view {
            self.catalog.base_table(&database, &table)
        } else {
            self.catalog.table(Some(&database), &table)
        };
        let mut found =
            found.ok_or_else(|| TranslateError::NoSuchTable(format!("{database}.{table}")))?;
        if self.creating_view && found.temporary {
            return Err(TranslateError::ViewTemporary(found.name));
        }
        if found.database.is_empty() {
            found.database = database;
        }
        Ok(found)
    }

    /// The new name of a table renamed: in the same database (SQLite cannot move a table to
    /// another database file), and free.
    fn rename_target(&self, from: &Table, to: &ObjectName) -> Result<String> {
        let (database, to) = self.located(to)?;
        if !database.eq_ignore_ascii_case(&from.database) {
            return unsupported("RENAME TABLE to another database");
        }
        if self.catalog.table(Some(&database), &to).is_some() {
            return Err(TranslateError::TableExists(to));
        }
        Ok(to)
    }

    /// Whether a select item may be an ENUM column: in the statement's own query, not a UNION
    /// (elsewhere the values would reach a context that no longer knows they are an ENUM's).
    fn enum_items_allowed(&self) -> bool {
        self.depth == 1 && self.in_union == 0 && !self.numbered && !self.named
    }

    /// The SQLite schema a MySQL database is attached under, quoted.
    fn schema(&self, database: &str) -> String {
        ident(&self.catalog.sqlite_schema(database))
    }

    /// The SQLite schema a table is in: [`TEMP_SCHEMA`] for a temporary table.
    fn table_schema_name(&self, table: &Table) -> String {
        if table.temporary {
            TEMP_SCHEMA.to_owned()
        } else {
            self.catalog.sqlite_schema(&table.database)
        }
    }

    /// [`Self::table_schema_name`], quoted.
    fn table_schema(&self, table: &Table) -> String {
        ident(&self.table_schema_name(table))
    }

    /// A table's name in SQLite: `"schema"."table"`.
    fn sqlite_table(&self, table: &Table) -> String {
        format!("{}.{}", self.table_schema(table), ident(&table.name))
    }

    // ---- names -------------------------------------------------------------------------

    /// A column reference: `c`, `t.c` or `db.t.c`.
    pub(crate) fn column(&mut self, names: &[&str]) -> Result<Typed> {
        let (qualifier, name) = match names {
            [c] => (None, *c),
            [t, c] => (Some(*t), *c),
            [_, t, c] => (Some(*t), *c),
            _ => return unsupported(format!("name {}", names.join("."))),
        };
        if let Some(value) = self.assigned_value(qualifier, name)? {
            return Ok(value);
        }
        for scope in self.scopes.iter().rev() {
            let mut found: Vec<(&Source, &SourceColumn)> = Vec::new();
            for source in &scope.sources {
                if qualifier.is_some_and(|q| !q.eq_ignore_ascii_case(&source.name)) {
                    continue;
                }
                if let Some(column) = source
                    .columns
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(name))
                {
                    found.push((source, column));
                }
            }
            let using =
                qualifier.is_none() && scope.using.iter().any(|u| u.eq_ignore_ascii_case(name));
            match found.as_slice() {
                [] => {}
                [(source, column), ..] if found.len() == 1 || using => {
                    let sql = if using {
                        ident(name)
                    } else {
                        format!("{}.{}", ident(&source.name), ident(name))
                    };
                    self.last_origin = column.origin.clone();
                    self.last_item_name = column.names_the_item.then(|| column.name.clone());
                    let read_as_time = std::mem::take(&mut self.time_ok) && column.ty == Ty::Time;
                    let bit = column.restricted == Some("BIT");
                    if bit {
                        if !std::mem::take(&mut self.bit_ok) {
                            return unsupported(format!("BIT column '{name}' in an expression"));
                        }
                    } else if let Some(kind) = column.restricted.filter(|_| !read_as_time) {
                        if !std::mem::take(&mut self.enum_ok) {
                            return unsupported(format!("{kind} column '{name}' in an expression"));
                        }
                        self.last_restricted = true;
                        self.last_members.clone_from(&column.members);
                        self.last_set_members.clone_from(&column.set_members);
                    }
                    return Ok(Typed {
                        strength: Strength::Column,
                        unsigned: column.unsigned,
                        stored: column.stored,
                        bit,
                        ..Typed::new(sql, column.ty)
                    });
                }
                _ => {
                    return Err(TranslateError::Ambiguous(
                        name.to_string(),
                        self.clause_for_ambiguity(),
                    ));
                }
            }
            if qualifier.is_none()
                && matches!(
                    self.clause,
                    "order clause" | "having clause" | "group statement"
                )
                && let Some((alias, ty)) = scope
                    .outputs
                    .iter()
                    .find(|(a, _)| a.eq_ignore_ascii_case(name))
            {
                if scope
                    .enum_names
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(alias))
                {
                    return unsupported(format!("ENUM or TIME column '{alias}' by its alias"));
                }
                return Ok(Typed::new(ident(alias), *ty));
            }
        }
        // The row alias of an ON DUPLICATE KEY UPDATE, unless a source of that name (a
        // subquery's) hides it.
        if let (Some(qualifier), Some(alias)) = (qualifier, &self.row_alias)
            && qualifier.eq_ignore_ascii_case(alias)
            && self.excluded.is_some()
        {
            return self.excluded_column(name);
        }
        let shown = names.join(".");
        Err(TranslateError::UnknownColumn(shown, self.clause))
    }

    fn clause_for_ambiguity(&self) -> &'static str {
        self.clause
    }

    /// `VALUES(col)` in ON DUPLICATE KEY UPDATE: the row that was to be inserted.
    pub(crate) fn excluded_column(&mut self, name: &str) -> Result<Typed> {
        let table = self
            .excluded
            .as_ref()
            .expect("called in ON DUPLICATE KEY UPDATE");
        let column = table
            .column(name)
            .ok_or_else(|| TranslateError::UnknownColumn(name.to_string(), "field list"))?;
        Ok(Typed::new(
            format!("excluded.{}", ident(&column.name)),
            column.ty.ty(),
        ))
    }

    // ---- queries -----------------------------------------------------------------------

    /// A subquery in an expression: it sees the enclosing scopes.
    pub(crate) fn subquery(&mut self, q: &Query) -> Result<(String, Vec<OutColumn>)> {
        let saved = (self.clause, self.in_aggregate, self.numbered, self.named);
        (self.in_aggregate, self.numbered, self.named) = (false, false, false);
        let out = self.query(q);
        (self.clause, self.in_aggregate, self.numbered, self.named) = saved;
        out
    }

    pub(crate) fn query(&mut self, q: &Query) -> Result<(String, Vec<OutColumn>)> {
        self.depth += 1;
        let out = self.query_at_depth(q);
        self.depth -= 1;
        out
    }

    fn query_at_depth(&mut self, q: &Query) -> Result<(String, Vec<OutColumn>)> {
        if q.fetch.is_some() || q.for_clause.is_some() || !q.pipe_operators.is_empty() {
            return unsupported("query clause");
        }
        let ctes_before = self.ctes.len();
        let mut prefix = String::new();
        if let Some(with) = &q.with {
            let mut parts = Vec::new();
            for cte in &with.cte_tables {
                let alias: Vec<String> = cte
                    .alias
                    .columns
                    .iter()
                    .map(|c| c.name.value.clone())
                    .collect();
                let (sql, columns) = match with
                    .recursive
                    .then(|| recursive_parts(&cte.alias.name.value, &cte.query))
                    .flatten()
                {
                    Some((anchor, op, member)) => {
                        self.recursive_cte(&cte.alias.name.value, &alias, anchor, op, member)?
                    }
                    None => self.subquery(&cte.query)?,
                };
                let names: Vec<String> = if alias.is_empty() {
                    columns.iter().map(|c| c.name.clone()).collect()
                } else {
                    alias
                };
                parts.push(format!(
                    "{}({}) AS ({sql})",
                    ident(&cte.alias.name.value),
                    names
                        .iter()
                        .map(|n| ident(n))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                self.ctes.push(Source::of_query(
                    cte.alias.name.value.clone(),
                    names,
                    &columns,
                ));
            }
            prefix = format!("WITH {} ", parts.join(", "));
        }
        let order: &[OrderByExpr] = match &q.order_by {
            None => &[],
            Some(o) => match &o.kind {
                OrderByKind::Expressions(items) => items,
                OrderByKind::All(_) => return unsupported("ORDER BY ALL"),
            },
        };
        let limit = self.limit(q.limit_clause.as_ref())?;
        let result = match q.body.as_ref() {
            SetExpr::Select(select) => self.select(select, order, &limit),
            body => {
                let (sql, columns) = self.set_expr(body)?;
                let mut items = Vec::new();
                for item in order {
                    items.push(self.output_order(item, &columns)?);
                }
                let order_sql = if items.is_empty() {
                    String::new()
                } else {
                    format!(" ORDER BY {}", items.join(", "))
                };
                Ok((format!("{sql}{order_sql}{limit}"), columns))
            }
        };
        self.ctes.truncate(ctes_before);
        let (sql, columns) = result?;
        Ok((format!("{prefix}{sql}"), columns))
    }

    /// A recursive common table expression `name`: the first member (`anchor`) decides the
    /// columns' types, as in MySQL, and every row of the recursive `member` is stored into them
    /// as a strict-mode write is (a value out of a column's range is 1264, too long 1406), so
    /// the rows the recursion reads are the ones MySQL's would.
    fn recursive_cte(
        &mut self,
        name: &str,
        alias: &[String],
        anchor: &Select,
        op: &'static str,
        member: &Select,
    ) -> Result<(String, Vec<OutColumn>)> {
        self.in_union += 1;
        let first = self.select(anchor, &[], "");
        self.in_union -= 1;
        let (anchor_sql, anchor_columns) = first?;
        let names: Vec<String> = if alias.is_empty() {
            anchor_columns.iter().map(|c| c.name.clone()).collect()
        } else if alias.len() == anchor_columns.len() {
            alias.to_vec()
        } else {
            return unsupported(format!(
                "common table expression '{name}' naming another number of columns than it has"
            ));
        };
        let mut stored = Vec::new();
        // A `*` item stands for several columns, all of them table columns.
        let items = (anchor.projection.len() == anchor_columns.len()).then_some(&anchor.projection);
        for (index, (column, column_name)) in anchor_columns.iter().zip(&names).enumerate() {
            let item = items.and_then(|items| items.get(index));
            let ty = self.anchor_type(column, item).ok_or_else(|| {
                TranslateError::Unsupported(format!(
                    "WITH RECURSIVE whose column '{column_name}' is not a table column or a \
                     literal in its first member"
                ))
            })?;
            if op == "UNION" && matches!(ty.ty(), Ty::Str(_) | Ty::Decimal(_)) {
                return unsupported("recursive UNION DISTINCT of text or decimal columns");
            }
            stored.push(Column::undeclared(column_name.clone(), ty));
        }
        let columns: Vec<OutColumn> = names
            .iter()
            .zip(&stored)
            .zip(&anchor_columns)
            .map(|((n, c), a)| OutColumn {
                name: n.clone(),
                ty: c.ty.ty(),
                origin: a.origin.clone(),
                unsigned: a.unsigned,
            })
            .collect();
        self.ctes
            .push(Source::of_query(name.to_owned(), names, &columns));
        self.stored_items = Some(stored);
        self.in_union += 1;
        let recursive = self.select(member, &[], "");
        self.in_union -= 1;
        self.stored_items = None;
        self.ctes.pop();
        let (member_sql, member_columns) = recursive?;
        if member_columns.len() != columns.len() {
            return Err(TranslateError::Unsupported(
                "UNION of selects with different column counts".into(),
            ));
        }
        Ok((format!("{anchor_sql} {op} {member_sql}"), columns))
    }

    /// The MySQL column type a recursive common table expression's column takes from its first
    /// member's item: a table column's declared type, or a literal's (an integer of up to nine
    /// digits is INT, a longer one BIGINT, a string VARCHAR of its length, an approximate
    /// number DOUBLE).
    fn anchor_type(&self, column: &OutColumn, item: Option<&SelectItem>) -> Option<ColumnType> {
        if let Some(origin) = &column.origin {
            let table = self
                .catalog
                .table(Some(&origin.database), &origin.original_table)?;
            return Some(table.column(&origin.column)?.ty.clone());
        }
        let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) = item? else {
            return None;
        };
        let literal = match e {
            Expr::UnaryOp {
                op: sqlparser::ast::UnaryOperator::Minus,
                expr,
            } => match expr.as_ref() {
                Expr::Value(v) => &v.value,
                _ => return None,
            },
            Expr::Value(v) => &v.value,
            _ => return None,
        };
        match (literal, column.ty) {
            (sqlparser::ast::Value::Number(n, _), Ty::Int)
                if n.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Some(if n.len() <= 9 {
                    ColumnType::Int {
                        min: i32::MIN.into(),
                        max: i32::MAX.into(),
                    }
                } else {
                    ColumnType::Int {
                        min: i64::MIN,
                        max: i64::MAX,
                    }
                })
            }
            (sqlparser::ast::Value::Number(..), Ty::Double) => Some(ColumnType::Double),
            (
                sqlparser::ast::Value::SingleQuotedString(text)
                | sqlparser::ast::Value::DoubleQuotedString(text),
                Ty::Str(collation),
            ) => Some(ColumnType::VarChar {
                length: u32::try_from(text.chars().count()).ok()?,
                collation,
            }),
            _ => None,
        }
    }

    fn limit(&mut self, clause: Option<&LimitClause>) -> Result<String> {
        let number = |e: &Expr| -> Result<String> {
            match e {
                Expr::Value(v) => match &v.value {
                    // Past SQLite's signed 64 bits (MySQL's documented "all rows" is
                    // 18446744073709551615): more rows than any table holds, as i64::MAX is.
                    sqlparser::ast::Value::Number(n, _) if n.parse::<u64>().is_ok() => {
                        Ok(n.parse::<i64>().map_or(i64::MAX.to_string(), |_| n.clone()))
                    }
                    sqlparser::ast::Value::Placeholder(p) if p == "?" => {
                        Ok(self.placeholder_sql(v.span.start))
                    }
                    other => unsupported(format!("LIMIT {other}")),
                },
                other => unsupported(format!("LIMIT {other}")),
            }
        };
        Ok(match clause {
            None => String::new(),
            Some(LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    return unsupported("LIMIT BY");
                }
                let limit = match limit {
                    Some(l) => number(l)?,
                    None => "-1".into(),
                };
                match offset {
                    Some(o) => format!(" LIMIT {limit} OFFSET {}", number(&o.value)?),
                    None => format!(" LIMIT {limit}"),
                }
            }
            Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
                format!(" LIMIT {} OFFSET {}", number(limit)?, number(offset)?)
            }
        })
    }

    /// A member of a UNION (no ORDER BY of its own at this level).
    fn set_expr(&mut self, body: &SetExpr) -> Result<(String, Vec<OutColumn>)> {
        match body {
            SetExpr::Select(select) => self.select(select, &[], ""),
            SetExpr::Query(q) => {
                let (sql, columns) = self.subquery(q)?;
                Ok((format!("SELECT * FROM ({sql})"), columns))
            }
            SetExpr::SetOperation { .. } => {
                self.in_union += 1;
                let tree = self.set_tree(body);
                self.in_union -= 1;
                let tree = tree?;
                let types = tree.column_types()?;
                let members = tree.members();
                // A column every member reads from the same table column keeps its declared
                // type (an INT stays MySQL's LONG).
                let same_origin = |i: usize| {
                    let first = members[0].get(i)?.origin.as_ref()?;
                    members
                        .iter()
                        .all(|m| {
                            m.get(i).and_then(|c| c.origin.as_ref()).is_some_and(|o| {
                                (&o.database, &o.original_table, &o.column)
                                    == (&first.database, &first.original_table, &first.column)
                            })
                        })
                        .then(|| first.clone())
                };
                let columns: Vec<OutColumn> = tree
                    .first_columns()
                    .iter()
                    .zip(&types)
                    .enumerate()
                    .map(|(i, (c, ty))| OutColumn {
                        origin: same_origin(i),
                        ..OutColumn::computed(c.name.clone(), *ty)
                    })
                    .collect();
                Ok((tree.render(&columns)?, columns))
            }
            SetExpr::Values(_) => unsupported("VALUES as a query"),
            other => unsupported(format!("query {}", first_words(&other.to_string()))),
        }
    }

    /// A set operation's members, translated, in the shape of its operators.
    fn set_tree(&mut self, body: &SetExpr) -> Result<SetTree> {
        let SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } = body
        else {
            let (sql, columns) = self.set_expr(body)?;
            return Ok(SetTree::Member(sql, columns));
        };
        let op = match (op, set_quantifier) {
            (SetOperator::Union, SetQuantifier::All) => "UNION ALL",
            (SetOperator::Union, SetQuantifier::None | SetQuantifier::Distinct) => "UNION",
            (SetOperator::Intersect, SetQuantifier::None | SetQuantifier::Distinct) => "INTERSECT",
            (
                SetOperator::Except | SetOperator::Minus,
                SetQuantifier::None | SetQuantifier::Distinct,
            ) => "EXCEPT",
            (other, q) => return unsupported(format!("{other} {q}")),
        };
        let left = self.set_tree(left)?;
        let right = self.set_tree(right)?;
        Ok(SetTree::Operation(op, Box::new(left), Box::new(right)))
    }

    /// ORDER BY over a UNION's result: positions and output names.
    fn output_order(&mut self, item: &OrderByExpr, columns: &[OutColumn]) -> Result<String> {
        let dir = direction(item);
        let index = match &item.expr {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Number(n, _) => n
                    .parse::<usize>()
                    .ok()
                    .filter(|i| (1..=columns.len()).contains(i))
                    .map(|i| i - 1),
                _ => None,
            },
            Expr::Identifier(id) => columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(&id.value)),
            _ => None,
        };
        let Some(i) = index else {
            return unsupported("ORDER BY of a UNION by an expression");
        };
        Ok(format!("{}{}{dir}", i + 1, collate_suffix(columns[i].ty)))
    }

    /// An ORDER BY item in a select's scope (output aliases first, as MySQL resolves them).
    pub(crate) fn order_item(&mut self, item: &OrderByExpr, _select_level: bool) -> Result<String> {
        let saved = self.clause;
        self.clause = "order clause";
        let dir = direction(item);
        let out = (|| -> Result<String> {
            if let Expr::Value(v) = &item.expr
                && let sqlparser::ast::Value::Number(n, _) = &v.value
            {
                let positions = self
                    .scopes
                    .last()
                    .map(|s| s.positions.clone())
                    .unwrap_or_default();
                let Some(i) = n
                    .parse::<usize>()
                    .ok()
                    .filter(|i| (1..=positions.len()).contains(i))
                else {
                    return Err(TranslateError::UnknownColumn(n.clone(), "order clause"));
                };
                if self
                    .scopes
                    .last()
                    .is_some_and(|s| s.enum_items.contains(&(i - 1)))
                {
                    return unsupported("ORDER BY the position of an ENUM or TIME column");
                }
                return Ok(format!("{i}{}{dir}", collate_suffix(positions[i - 1])));
            }
            if let Expr::Identifier(id) = &item.expr {
                let alias = self.scopes.last().and_then(|s| {
                    s.outputs
                        .iter()
                        .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
                        .cloned()
                });
                if let Some((alias, ty)) = alias {
                    if self
                        .scopes
                        .last()
                        .is_some_and(|s| s.enum_names.iter().any(|n| n == &alias))
                    {
                        return unsupported("ORDER BY an ENUM or TIME column by its alias");
                    }
                    return Ok(format!("{}{}{dir}", ident(&alias), collate_suffix(ty)));
                }
            }
            self.last_members = None;
            self.last_set_members = None;
            self.enum_ok = is_column_reference(&item.expr);
            self.bit_ok = is_column_reference(&item.expr);
            let t = self.expr(&item.expr)?;
            if let Some(key) = self.member_order(&t.sql) {
                return Ok(format!("{key}{dir}"));
            }
            Ok(format!("{}{}{dir}", t.sql, collate_suffix(t.ty)))
        })();
        self.clause = saved;
        out
    }

    /// A SELECT's WHERE (or an inner join's ON, which MariaDB reads as more of it). A condition
    /// of its top level that compares a column of the query's own tables with a constant by
    /// `=`, `<=>` or `IN` of one value is a lookup: MariaDB opens only the
    /// `information_schema` rows of the database or table of that name, byte for byte, so a
    /// name ([`Collation::Name`]) compares byte for byte there ([`Collation::Exact`]) and as
    /// `utf8mb3_general_ci` anywhere else. For other columns the condition is translated as
    /// any.
    fn where_condition(&mut self, w: &Expr) -> Result<Typed> {
        let mut conjuncts = Vec::new();
        top_level_conjuncts(w, &mut conjuncts);
        let lookups: Vec<bool> = conjuncts
            .iter()
            .map(|c| lookup_column(c).is_some_and(|col| self.is_local(col)))
            .collect();
        if !lookups.contains(&true) {
            return self.expr(w);
        }
        let mut parts = Vec::with_capacity(conjuncts.len());
        for (conjunct, lookup) in conjuncts.into_iter().zip(lookups) {
            self.name_lookup = lookup;
            let part = self.expr(conjunct);
            self.name_lookup = false;
            parts.push(part?);
        }
        let sql = parts.iter().map(truth).collect::<Vec<_>>().join(" AND ");
        let refs: Vec<&Typed> = parts.iter().collect();
        Ok(Typed::with_parts(format!("({sql})"), Ty::Int, &refs))
    }

    /// Whether a column reference names a column of the innermost query's own sources (not
    /// an outer query's, which a correlated subquery reads as a value) that is an
    /// `information_schema` table's column as it is (not a value computed from one).
    fn is_local(&self, column: &Expr) -> bool {
        let Some(scope) = self.scopes.last() else {
            return false;
        };
        let has = |source: &Source, name: &str| {
            source.columns.iter().any(|c| {
                c.name.eq_ignore_ascii_case(name)
                    && c.origin.as_ref().is_some_and(|o| {
                        o.database.eq_ignore_ascii_case("information_schema")
                            && o.column.eq_ignore_ascii_case(&c.name)
                    })
            })
        };
        match column {
            Expr::Nested(inner) => self.is_local(inner),
            Expr::Identifier(id) => scope.sources.iter().any(|s| has(s, &id.value)),
            Expr::CompoundIdentifier(ids) => match ids.as_slice() {
                [.., table, name] => scope
                    .sources
                    .iter()
                    .any(|s| s.name.eq_ignore_ascii_case(&table.value) && has(s, &name.value)),
                _ => false,
            },
            _ => false,
        }
    }

    /// The sort key of the ENUM or SET column the expression just translated (`sql`) read,
    /// as MySQL sorts it: an ENUM by its members' order ('' first), a SET by its bit mask;
    /// `None` for any other expression. Taken: the column is forgotten.
    pub(crate) fn member_order(&mut self, sql: &str) -> Option<String> {
        if let Some(members) = self.last_set_members.take() {
            self.last_members = None;
            return Some(format!(
                "my_set_bits({sql}, {})",
                quote(&members.join("\u{1f}"))
            ));
        }
        let members = self.last_members.take()?;
        let whens: Vec<String> = members
            .iter()
            .enumerate()
            .map(|(i, m)| format!(" WHEN {} THEN {}", quote(m), i + 1))
            .collect();
        Some(format!(
            "CASE {sql} COLLATE {BIN_COLLATION}{} ELSE 0 END",
            whens.concat()
        ))
    }

    /// Forgets that the expression just translated read an ENUM or SET column: it was read as
    /// a value (a function's argument), so what contains it is no ENUM or SET, which ORDER BY
    /// and the select list would treat as the column (sorted by the members' order).
    pub(crate) fn forget_restricted(&mut self) {
        self.last_restricted = false;
        self.last_members = None;
        self.last_set_members = None;
    }

    fn select(
        &mut self,
        s: &Select,
        order: &[OrderByExpr],
        limit: &str,
    ) -> Result<(String, Vec<OutColumn>)> {
        if s.into.is_some() {
            return unsupported("SELECT … INTO");
        }
        if s.top.is_some()
            || !s.lateral_views.is_empty()
            || s.prewhere.is_some()
            || s.qualify.is_some()
            || !s.named_window.is_empty()
            || !s.connect_by.is_empty()
            || !s.cluster_by.is_empty()
            || !s.distribute_by.is_empty()
            || !s.sort_by.is_empty()
            || s.exclude.is_some()
        {
            return unsupported("SELECT clause");
        }
        if let Some(modifiers) = &s.select_modifiers
            && modifiers.sql_calc_found_rows
        {
            return unsupported("SQL_CALC_FOUND_ROWS");
        }
        self.scopes.push(Scope::default());
        let out = self.select_in_scope(s, order, limit);
        self.scopes.pop();
        out
    }

    fn select_in_scope(
        &mut self,
        s: &Select,
        order: &[OrderByExpr],
        limit: &str,
    ) -> Result<(String, Vec<OutColumn>)> {
        let stored = self.stored_items.take();
        let mut from_sql = Vec::new();
        // `FROM DUAL` is MySQL's FROM of no table.
        let dual = matches!(s.from.as_slice(), [twj] if twj.joins.is_empty() && matches!(
            &twj.relation,
            TableFactor::Table { name, alias: None, .. }
                if name.0.len() == 1 && name.to_string().eq_ignore_ascii_case("dual")
        ));
        for twj in s.from.iter().filter(|_| !dual) {
            from_sql.push(self.table_with_joins(twj)?);
        }
        self.clause = "field list";
        let distinct = match &s.distinct {
            None | Some(sqlparser::ast::Distinct::All) => false,
            Some(sqlparser::ast::Distinct::Distinct) => true,
            Some(sqlparser::ast::Distinct::On(_)) => return unsupported("DISTINCT ON"),
        };
        let mut items = Vec::new();
        let mut columns = Vec::new();
        let mut any_aggregate = false;
        let written_items = if s
            .projection
            .iter()
            .any(|item| matches!(item, SelectItem::UnnamedExpr(e) if !is_column_reference(e)))
        {
            let spans: Vec<_> = s
                .projection
                .iter()
                .map(sqlparser::ast::Spanned::span)
                .collect();
            self.written
                .and_then(|parsed| parsed.select_items_written(s.select_token.0.span, &spans))
        } else {
            None
        };
        for (index, item) in s.projection.iter().enumerate() {
            match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    self.last_origin = None;
                    self.last_item_name = None;
                    self.last_restricted = false;
                    self.enum_ok = self.enum_items_allowed() && is_column_reference(e);
                    self.bit_ok = self.enum_items_allowed() && is_column_reference(e);
                    let t = self.expr(e)?;
                    if t.bytes_literal {
                        // MySQL sends a BIT-value literal's bytes; MariaDB a hexadecimal's.
                        return unsupported(format!(
                            "a hexadecimal or bit-value literal as the result {e}"
                        ));
                    }
                    if std::mem::take(&mut self.last_restricted) {
                        let scope = self.scopes.last_mut().expect("in a select");
                        scope.enum_items.push(items.len());
                        if let SelectItem::ExprWithAlias { alias, .. } = item {
                            scope.enum_names.push(alias.value.clone());
                        }
                    }
                    let origin = if is_column_reference(e) {
                        self.last_origin.take()
                    } else {
                        None
                    };
                    any_aggregate |= t.aggregate;
                    let source_name = self.last_item_name.take();
                    let name = match item {
                        SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                        _ if is_column_reference(e) && source_name.is_some() => {
                            source_name.unwrap_or_default()
                        }
                        _ => result_name(
                            e,
                            written_items.as_ref().and_then(|w| w.get(index).copied()),
                        ),
                    };
                    items.push((
                        t.sql.clone(),
                        t.ty,
                        name.clone(),
                        matches!(item, SelectItem::ExprWithAlias { .. }),
                    ));
                    columns.push(OutColumn {
                        name,
                        ty: t.ty,
                        origin,
                        unsigned: t.unsigned,
                    });
                }
                SelectItem::Wildcard(_) => {
                    let scope = self.scopes.last().expect("in a select");
                    if scope.sources.is_empty() {
                        return Err(TranslateError::Unsupported("* without tables".into()));
                    }
                    let mut seen_using = Vec::new();
                    let enums_allowed = self.enum_items_allowed();
                    let mut enum_items = Vec::new();
                    for source in &scope.sources {
                        for column in &source.columns {
                            let (c, ty) = (&column.name, &column.ty);
                            if let Some(kind) = column.restricted {
                                if !enums_allowed {
                                    return unsupported(format!(
                                        "{kind} column '{c}' in a derived table, union or subquery"
                                    ));
                                }
                                enum_items.push(items.len());
                            }
                            let merged = scope.using.iter().any(|u| u.eq_ignore_ascii_case(c));
                            if merged {
                                if seen_using
                                    .iter()
                                    .any(|u: &String| u.eq_ignore_ascii_case(c))
                                {
                                    continue;
                                }
                                seen_using.push(c.clone());
                                items.push((ident(c), *ty, c.clone(), false));
                            } else {
                                items.push((
                                    format!("{}.{}", ident(&source.name), ident(c)),
                                    *ty,
                                    c.clone(),
                                    false,
                                ));
                            }
                            columns.push(OutColumn {
                                name: c.clone(),
                                ty: *ty,
                                origin: column.origin.clone(),
                                unsigned: column.unsigned,
                            });
                        }
                    }
                    self.scopes
                        .last_mut()
                        .expect("in a select")
                        .enum_items
                        .extend(enum_items);
                }
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(name),
                    _,
                ) => {
                    let qualifier = last_name(name)?;
                    let scope = self.scopes.last().expect("in a select");
                    let Some(source) = scope
                        .sources
                        .iter()
                        .find(|s| s.name.eq_ignore_ascii_case(&qualifier))
                    else {
                        return Err(TranslateError::NoSuchTable(qualifier));
                    };
                    if !self.enum_items_allowed()
                        && let Some(c) = source.columns.iter().find(|c| c.restricted.is_some())
                    {
                        return unsupported(format!(
                            "{} column '{}' in a derived table, union or subquery",
                            c.restricted.unwrap_or_default(),
                            c.name
                        ));
                    }
                    let at = items.len();
                    let enum_items: Vec<usize> = source
                        .columns
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| c.restricted.is_some())
                        .map(|(i, _)| at + i)
                        .collect();
                    self.scopes
                        .last_mut()
                        .expect("in a select")
                        .enum_items
                        .extend(enum_items);
                    let scope = self.scopes.last().expect("in a select");
                    let source = scope
                        .sources
                        .iter()
                        .find(|s| s.name.eq_ignore_ascii_case(&qualifier))
                        .expect("found above");
                    for column in &source.columns {
                        items.push((
                            format!("{}.{}", ident(&source.name), ident(&column.name)),
                            column.ty,
                            column.name.clone(),
                            false,
                        ));
                        columns.push(OutColumn {
                            name: column.name.clone(),
                            ty: column.ty,
                            origin: column.origin.clone(),
                            unsigned: column.unsigned,
                        });
                    }
                }
                other => return unsupported(format!("select item {other}")),
            }
        }
        let outputs: Vec<(String, Ty)> = items
            .iter()
            .filter(|(_, _, _, aliased)| *aliased)
            .map(|(_, ty, name, _)| (name.clone(), *ty))
            .collect();
        let scope = self.scopes.last_mut().expect("in a select");
        scope.outputs = outputs;
        scope.positions = items.iter().map(|(_, ty, _, _)| *ty).collect();
        let mut sql = String::from("SELECT ");
        if distinct {
            sql.push_str("DISTINCT ");
        }
        let rendered: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, (expr, ty, name, aliased))| {
                let key = if distinct {
                    group_key(&Typed::new(expr.clone(), *ty))
                } else if let Some(column) = stored.as_ref().and_then(|c| c.get(i)) {
                    store(&Typed::new(expr.clone(), *ty), column, true, false, true)
                } else {
                    expr.clone()
                };
                if self.numbered {
                    format!("{key} AS {}", ident(&format!("c{i}")))
                } else if *aliased || distinct || self.named {
                    format!("{key} AS {}", ident(name))
                } else {
                    key
                }
            })
            .collect();
        sql.push_str(&rendered.join(", "));
        if !from_sql.is_empty() {
            sql.push_str(" FROM ");
            sql.push_str(&from_sql.join(", "));
        }
        if let Some(w) = &s.selection {
            self.clause = "where clause";
            let t = self.where_condition(w)?;
            if t.aggregate {
                return Err(TranslateError::GroupFunction);
            }
            sql.push_str(&format!(" WHERE {}", truth(&t)));
        }
        match &s.group_by {
            GroupByExpr::Expressions(exprs, modifiers) => {
                if !modifiers.is_empty() {
                    return unsupported("GROUP BY … WITH ROLLUP");
                }
                if !exprs.is_empty() {
                    self.clause = "group statement";
                    let mut keys = Vec::new();
                    for e in exprs {
                        self.enum_ok = is_column_reference(e);
                        self.bit_ok = is_column_reference(e);
                        let t = self.expr(e)?;
                        keys.push(group_key(&t));
                    }
                    sql.push_str(&format!(" GROUP BY {}", keys.join(", ")));
                }
            }
            GroupByExpr::All(_) => return unsupported("GROUP BY ALL"),
        }
        if let Some(h) = &s.having {
            self.clause = "having clause";
            let t = self.expr(h)?;
            sql.push_str(&format!(" HAVING {}", truth(&t)));
        }
        let _ = any_aggregate;
        if !order.is_empty() {
            let mut parts = Vec::new();
            for item in order {
                parts.push(self.order_item(item, true)?);
            }
            sql.push_str(&format!(" ORDER BY {}", parts.join(", ")));
        }
        sql.push_str(limit);
        Ok((sql, columns))
    }

    fn table_with_joins(&mut self, twj: &TableWithJoins) -> Result<String> {
        let mut sql = self.table_factor(&twj.relation)?;
        for join in &twj.joins {
            let right = self.table_factor(&join.relation)?;
            let (kind, constraint) = match &join.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::StraightJoin(c) => {
                    ("JOIN", c)
                }
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => ("LEFT JOIN", c),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => ("RIGHT JOIN", c),
                JoinOperator::CrossJoin(c) => ("CROSS JOIN", c),
                other => {
                    return unsupported(
                        format!("join {other:?}")
                            .split('(')
                            .next()
                            .unwrap_or("join")
                            .to_string(),
                    );
                }
            };
            let on = match constraint {
                JoinConstraint::None => String::new(),
                JoinConstraint::On(e) => {
                    self.clause = "on clause";
                    // MariaDB reads an inner join's ON as more of the WHERE.
                    let t = if matches!(kind, "JOIN" | "CROSS JOIN") {
                        self.where_condition(e)?
                    } else {
                        self.expr(e)?
                    };
                    format!(" ON {}", truth(&t))
                }
                JoinConstraint::Using(names) => {
                    let mut cols = Vec::new();
                    for n in names {
                        let c = last_name(n)?;
                        self.scopes
                            .last_mut()
                            .expect("in a select")
                            .using
                            .push(c.clone());
                        cols.push(ident(&c));
                    }
                    format!(" USING ({})", cols.join(", "))
                }
                JoinConstraint::Natural | JoinConstraint::UsingAlias(..) => {
                    return unsupported("NATURAL JOIN");
                }
            };
            sql = format!("{sql} {kind} {right}{on}");
        }
        Ok(sql)
    }

    fn table_factor(&mut self, factor: &TableFactor) -> Result<String> {
        match factor {
            TableFactor::Table {
                name,
                alias,
                args: None,
                with_hints,
                version: None,
                partitions,
                ..
            } if with_hints.is_empty() && partitions.is_empty() => {
                if let Some(a) = alias
                    && !a.columns.is_empty()
                {
                    return unsupported("table alias with columns");
                }
                let table_name = last_name(name)?;
                let cte = (name.0.len() == 1)
                    .then(|| {
                        self.ctes
                            .iter()
                            .rev()
                            .find(|c| c.name.eq_ignore_ascii_case(&table_name))
                            .cloned()
                    })
                    .flatten();
                let refer = alias
                    .as_ref()
                    .map_or(table_name.clone(), |a| a.name.value.clone());
                let (sql_name, source) = match cte {
                    Some(cte) => (
                        ident(&cte.name),
                        Source {
                            name: refer.clone(),
                            columns: cte.columns,
                        },
                    ),
                    None => {
                        let table = self.object(name)?;
                        if table.view.is_some() {
                            let (sql, columns) = self.view_query(&table)?;
                            let names = columns.iter().map(|c| c.name.clone()).collect();
                            let mut source = Source::of_query(refer.clone(), names, &columns);
                            for column in &mut source.columns {
                                column.names_the_item = true;
                            }
                            (format!("({sql})"), source)
                        } else {
                            let sql_name = self.sqlite_table(&table);
                            self.tables_read.push(sql_name.clone());
                            (sql_name, Source::of_table(refer.clone(), &table))
                        }
                    }
                };
                let scope = self.scopes.last_mut().expect("in a select");
                if scope
                    .sources
                    .iter()
                    .any(|s| s.name.eq_ignore_ascii_case(&refer))
                {
                    return unsupported(format!("table '{refer}' named twice"));
                }
                scope.sources.push(source);
                Ok(format!("{sql_name} AS {}", ident(&refer)))
            }
            TableFactor::Derived {
                lateral: false,
                subquery,
                alias: Some(alias),
                ..
            } => {
                // A derived table does not see the enclosing query's names.
                let saved = std::mem::take(&mut self.scopes);
                let flags = (self.clause, self.in_aggregate, self.numbered, self.named);
                (self.in_aggregate, self.numbered, self.named) = (false, false, true);
                let result = self.query(subquery);
                (self.clause, self.in_aggregate, self.numbered, self.named) = flags;
                self.scopes = saved;
                let (sql, columns) = result?;
                let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                let refer = alias.name.value.clone();
                self.scopes
                    .last_mut()
                    .expect("in a select")
                    .sources
                    .push(Source::of_query(refer.clone(), names, &columns));
                if !alias.columns.is_empty() {
                    return unsupported("derived table column list");
                }
                Ok(format!("({sql}) AS {}", ident(&refer)))
            }
            TableFactor::Derived { alias: None, .. } => Err(TranslateError::Unsupported(
                "derived table without an alias".into(),
            )),
            TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => Ok(format!("({})", self.table_with_joins(table_with_joins)?)),
            other => unsupported(format!("FROM {other}")),
        }
    }

    // ---- DML ---------------------------------------------------------------------------

    fn insert(&mut self, insert: &Insert) -> Result<Translation> {
        let replace = insert.replace_into;
        if insert.returning.is_some() || insert.partitioned.is_some() {
            return unsupported("INSERT clause");
        }
        let TableObject::TableName(name) = &insert.table else {
            return unsupported("INSERT into a table function");
        };
        let table = self.write_target(name, "INSERT")?;
        // MySQL 8's row alias, `VALUES (…) AS new ON DUPLICATE KEY UPDATE c = new.c`: the
        // alias names the row that was to be inserted, as VALUES(c) does.
        let row_alias = match &insert.insert_alias {
            None => None,
            Some(alias) if alias.col_aliases.as_ref().is_some_and(|c| !c.is_empty()) => {
                return unsupported("INSERT … AS alias (column aliases)");
            }
            Some(alias) => {
                let alias = last_name(&alias.row_alias)?;
                if alias.eq_ignore_ascii_case(&table.name) {
                    return unsupported(format!("INSERT … AS {alias} naming the table itself"));
                }
                Some(alias)
            }
        };
        let ignore = insert.ignore;
        if ignore && !table.checks.is_empty() {
            // MySQL skips a row that fails a CHECK under IGNORE; SQLite would fail the statement.
            return unsupported("INSERT IGNORE into a table with CHECK constraints");
        }
        self.strict = !ignore;
        // Under NO_AUTO_VALUE_ON_ZERO (as a dump restores) an AUTO_INCREMENT column keeps a 0.
        let zero_generates = !self.sql_mode_has("NO_AUTO_VALUE_ON_ZERO");
        // The target columns, in the order values are given.
        let mut targets: Vec<Column> = Vec::new();
        let named: Vec<String> = if insert.assignments.is_empty() {
            insert
                .columns
                .iter()
                .map(last_name)
                .collect::<Result<_>>()?
        } else {
            insert
                .assignments
                .iter()
                .map(|a| match &a.target {
                    AssignmentTarget::ColumnName(n) => last_name(n),
                    AssignmentTarget::Tuple(_) => unsupported("tuple assignment"),
                })
                .collect::<Result<_>>()?
        };
        if named.is_empty() {
            targets = table.columns.clone();
        } else {
            for n in &named {
                let c = table
                    .column(n)
                    .ok_or_else(|| TranslateError::UnknownColumn(n.clone(), "field list"))?;
                if targets.iter().any(|t| t.name.eq_ignore_ascii_case(&c.name)) {
                    return Err(TranslateError::ColumnTwice(c.name.clone()));
                }
                targets.push(c.clone());
            }
        }
        // A generated column takes only DEFAULT, which leaves it to compute its value: it is
        // no target of SQLite's INSERT.
        let generated_value = |c: &Column, e: &Expr| {
            (!is_default_keyword(e))
                .then(|| TranslateError::GeneratedValue(c.name.clone(), table.name.clone()))
        };
        let computed: Vec<bool> = targets.iter().map(|c| c.generated.is_some()).collect();
        // Columns left out must have a default (strict mode), or get the implicit one.
        let mut implicit: Vec<(Column, String)> = Vec::new();
        for c in &table.columns {
            if targets.iter().any(|t| t.name == c.name)
                || c.has_default
                || c.auto_increment
                || !c.not_null
            {
                continue;
            }
            if !ignore {
                return Err(TranslateError::NoDefault(c.name.clone()));
            }
            implicit.push((c.clone(), implicit_default(&c.ty)));
        }
        // The AUTO_INCREMENT column takes generated values when the insert leaves it out, or
        // gives it only NULL, DEFAULT, 0 (unless NO_AUTO_VALUE_ON_ZERO) or a NULL argument:
        // MySQL then reports the first generated value, as for a column left out. Other values
        // given to it are explicit (`explicit_auto_increment` below).
        let auto_target = targets.iter().position(|c| c.auto_increment);
        let generated_by_every_row = auto_target.is_some_and(|i| {
            let generates = |e: &Expr| {
                is_default_keyword(e)
                    || self.is_null_value(e)
                    || (zero_generates && is_zero_literal(e))
            };
            if !insert.assignments.is_empty() {
                return generates(&insert.assignments[i].value);
            }
            match insert.source.as_deref().map(|q| q.body.as_ref()) {
                Some(SetExpr::Values(v)) => {
                    v.rows.iter().all(|row| row.get(i).is_some_and(generates))
                }
                Some(SetExpr::Select(select)) => match select.projection.get(i) {
                    Some(
                        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. },
                    ) => !is_default_keyword(e) && generates(e),
                    _ => false,
                },
                _ => false,
            }
        });
        let generated_column = table.columns.iter().find(|c| {
            c.auto_increment
                && (generated_by_every_row || !targets.iter().any(|t| t.name == c.name))
        });
        // Values given to the AUTO_INCREMENT column that are not all generating are all
        // explicit: a row whose value turns out NULL (or 0, which generates) when the
        // statement runs is refused (`my_explicit_auto`), since MySQL would then report the
        // generated value, which SQLite does not tell apart from the explicit ones.
        let explicit_auto_increment = auto_target.is_some() && generated_column.is_none();
        let zero_dates = self.zero_date_flags();
        let store_value = |t: &Typed, c: &Column, strict: bool, row: usize| {
            let value = store_row(t, c, strict, ignore, zero_generates, row, zero_dates);
            if explicit_auto_increment && c.auto_increment {
                format!("my_explicit_auto({value})")
            } else {
                value
            }
        };
        // An upsert, or an INSERT IGNORE, may leave rows out: its inserted rows are numbered
        // as InnoDB numbers them afterwards (see `Reservation::renumber_column`).
        let renumbered = (ignore || matches!(insert.on, Some(OnInsert::DuplicateKeyUpdate(_))))
            .then(|| generated_column.map(|c| c.name.clone()))
            .flatten();
        // NULL into an integer primary key that is not AUTO_INCREMENT: SQLite's rowid would
        // take the next number where MySQL refuses it (1048).
        let rowid_alias = match table.primary_key.as_slice() {
            [key] => table
                .column(key)
                .filter(|c| matches!(c.ty, ColumnType::Int { .. }) && !c.auto_increment)
                .map(|c| c.name.clone()),
            _ => None,
        };
        let replace_or_key =
            |c: &Column| replace || rowid_alias.as_deref() == Some(c.name.as_str());
        self.scopes.push(Scope::default());
        let rows_sql = if !insert.assignments.is_empty() {
            let mut values = Vec::new();
            for (a, c) in insert.assignments.iter().zip(&targets) {
                if c.generated.is_some() {
                    match generated_value(c, &a.value) {
                        Some(err) => return Err(err),
                        None => continue,
                    }
                }
                let t = self.expr(&a.value)?;
                values.push(replace_store(
                    store_value(&t, c, self.strict, 1),
                    c,
                    replace_or_key(c),
                ));
            }
            format!("VALUES ({})", values.join(", "))
        } else {
            let Some(source) = &insert.source else {
                return unsupported("INSERT without values");
            };
            match source.body.as_ref() {
                SetExpr::Values(values)
                    if source.order_by.is_none() && source.limit_clause.is_none() =>
                {
                    let mut rows = Vec::new();
                    for (i, row) in values.rows.iter().enumerate() {
                        if row.len() != targets.len() {
                            self.scopes.pop();
                            return Err(TranslateError::ValueCount(i + 1));
                        }
                        let mut cells = Vec::new();
                        for (e, c) in row.iter().zip(&targets) {
                            if c.generated.is_some() {
                                match generated_value(c, e) {
                                    Some(err) => return Err(err),
                                    None => continue,
                                }
                            }
                            if is_default_keyword(e) {
                                match default_of(c, ignore) {
                                    Ok(value) => cells.push(value),
                                    Err(err) => {
                                        self.scopes.pop();
                                        return Err(err);
                                    }
                                }
                                continue;
                            }
                            let t = self.expr(e)?;
                            cells.push(replace_store(
                                store_value(&t, c, self.strict, i + 1),
                                c,
                                replace_or_key(c),
                            ));
                        }
                        cells.extend(implicit.iter().map(|(_, v)| v.clone()));
                        rows.push(format!("({})", cells.join(", ")));
                    }
                    format!("VALUES {}", rows.join(", "))
                }
                _ => {
                    if !implicit.is_empty() {
                        self.scopes.pop();
                        return unsupported("INSERT IGNORE … SELECT leaving out NOT NULL columns");
                    }
                    if computed.contains(&true) {
                        return unsupported("INSERT … SELECT into a generated column");
                    }
                    let saved = std::mem::take(&mut self.scopes);
                    self.numbered = true;
                    self.strict = false;
                    self.strict_source = !ignore;
                    let result = self.query(source);
                    self.strict_source = false;
                    self.numbered = false;
                    self.strict = !ignore;
                    self.scopes = saved;
                    let (sql, columns) = result?;
                    if columns.len() != targets.len() {
                        self.scopes.pop();
                        return Err(TranslateError::ValueCount(1));
                    }
                    let cells: Vec<String> = columns
                        .iter()
                        .zip(&targets)
                        .enumerate()
                        .map(|(i, (oc, c))| {
                            let t = Typed::new(format!("s.{}", ident(&format!("c{i}"))), oc.ty);
                            replace_store(store_value(&t, c, self.strict, 1), c, replace_or_key(c))
                        })
                        .collect();
                    format!("SELECT {} FROM ({sql}) AS s WHERE true", cells.join(", "))
                }
            }
        };
        let mut column_names: Vec<String> = targets
            .iter()
            .zip(&computed)
            .filter(|(_, computed)| !**computed)
            .map(|(c, _)| ident(&c.name))
            .collect();
        column_names.extend(implicit.iter().map(|(c, _)| ident(&c.name)));
        let verb = match (replace, ignore) {
            (true, _) => "INSERT OR REPLACE",
            (false, true) => "INSERT OR IGNORE",
            (false, false) => "INSERT",
        };
        let target = self.sqlite_table(&table);
        // REPLACE notes the table's row count before it (the source reads the table, so SQLite
        // evaluates it before the first row is written) for MySQL's affected rows.
        let rows_sql = if replace {
            format!(
                "SELECT * FROM ({rows_sql}) WHERE my_replace_before((SELECT count(*) FROM {target}))"
            )
        } else {
            rows_sql
        };
        let mut sql = format!(
            "{verb} INTO {target} ({}) {rows_sql}",
            column_names.join(", ")
        );
        let mut affected = Affected::Changes;
        match &insert.on {
            None => {}
            Some(OnInsert::DuplicateKeyUpdate(assignments)) => {
                self.scopes
                    .last_mut()
                    .expect("pushed")
                    .sources
                    .push(Source::of_table(table.name.clone(), &table));
                self.excluded = Some(table.clone());
                self.row_alias = row_alias;
                self.strict = true;
                let mut sets = Vec::new();
                let mut same = Vec::new();
                for a in assignments {
                    let AssignmentTarget::ColumnName(n) = &a.target else {
                        return unsupported("tuple assignment");
                    };
                    let n = last_name(n)?;
                    let c = table
                        .column(&n)
                        .ok_or_else(|| TranslateError::UnknownColumn(n.clone(), "field list"))?
                        .clone();
                    if c.generated.is_some() {
                        return Err(generated_assignment(&c, &a.value, &table));
                    }
                    let t = self.expr(&a.value)?;
                    let value = store(&t, &c, true, false, true);
                    same.push(format!(
                        "my_same({}.{}, {value})",
                        ident(&table.name),
                        ident(&c.name)
                    ));
                    sets.push(format!("{} = {value}", ident(&c.name)));
                }
                self.excluded = None;
                self.row_alias = None;
                // A row updated with new values counts twice, as MySQL counts it; an update that
                // changes nothing is no update.
                let updated_auto = match (explicit_auto_increment, auto_target) {
                    (true, Some(i)) => format!(
                        " AND my_explicit_auto_updated({}.{})",
                        ident(&table.name),
                        ident(&targets[i].name)
                    ),
                    _ => String::new(),
                };
                sql.push_str(&format!(
                    " ON CONFLICT DO UPDATE SET {} WHERE NOT ({}) AND my_upsert_updated(){updated_auto}",
                    sets.join(", "),
                    same.join(" AND ")
                ));
                affected = Affected::ChangesPlusUpserts;
            }
            Some(OnInsert::OnConflict(_)) => return unsupported("ON CONFLICT"),
            Some(_) => return unsupported("INSERT … ON"),
        }
        self.scopes.pop();
        // A VALUES or SET insert that leaves the AUTO_INCREMENT column out reserves one value a
        // row (an ignored or updating row's value goes to the next row inserted, see
        // `renumbered`).
        let auto_left_out = generated_column.is_some();
        let rows = match insert.source.as_deref().map(|q| q.body.as_ref()) {
            None => Some(1),
            Some(SetExpr::Values(v)) => Some(v.rows.len() as u64),
            Some(_) => None,
        };
        let reserves = match rows {
            // Numbering the inserted rows again is an UPDATE, which would fire the table's ON
            // UPDATE CURRENT_TIMESTAMP triggers on rows MySQL only inserted.
            Some(rows)
                if auto_left_out
                    && rows > 1
                    && renumbered.is_some()
                    && table.columns.iter().any(|c| c.on_update_now)
                    && !self.catalog.on_update_skips_renumbering(&table) =>
            {
                return unsupported(
                    "INSERT IGNORE or ON DUPLICATE KEY UPDATE of several rows into an \
                     AUTO_INCREMENT table with an ON UPDATE CURRENT_TIMESTAMP column",
                );
            }
            Some(rows) if auto_left_out => Some(crate::Reservation {
                schema: self.table_schema_name(&table),
                table: table.name.clone(),
                rows,
                renumber_column: renumbered.clone(),
                limit: auto_limit(generated_column),
            }),
            // An INSERT … SELECT reserves nothing ahead (its row count is not known); when no
            // row can be left out, its first generated value is still reported.
            None if auto_left_out && renumbered.is_none() => Some(crate::Reservation {
                schema: self.table_schema_name(&table),
                table: table.name.clone(),
                rows: 0,
                renumber_column: None,
                limit: auto_limit(generated_column),
            }),
            _ => None,
        };
        let mut sql = vec![sql];
        if replace {
            // Inserted (`changes()` of the REPLACE) plus deleted rows, from the row counts
            // before and after; this statement itself deletes nothing (`rowid = NULL`).
            sql.push(format!(
                "DELETE FROM {target} WHERE rowid = \
                 (SELECT my_replace_count((SELECT count(*) FROM {target}), changes()))"
            ));
            affected = Affected::ChangesPlusUpserts;
        }
        Ok(Translation {
            sql,
            columns: Vec::new(),
            affected,
            change: None,
            reserves,
            explicit_auto_increment,
            found_rows: None,
            into: Vec::new(),
            suspends_foreign_keys: false,
            foreign_key_failure_is_parents: false,
            notes: Vec::new(),
            reads: Vec::new(),
        })
    }

    /// `SET sql_safe_updates = 1` is in force.
    fn safe_updates(&self) -> bool {
        self.catalog.system_variable("sql_safe_updates") == Some(SystemValue::Int(1))
    }

    /// Under `sql_safe_updates`, MariaDB runs an UPDATE or DELETE of `table` (named `refer`)
    /// only when its optimizer reads the rows through an index, or a LIMIT bounds it
    /// (`limited`): otherwise 1175. That choice is the optimizer's, so the node follows it only
    /// where it is certain: a WHERE with an equality of a one-column primary or unique key to a
    /// literal runs; a WHERE naming no column an index leads with is 1175; any other WHERE (a
    /// range, a non-unique index, an OR, an expression of a key) is refused with 1235.
    fn safe_update(
        &self,
        table: &Table,
        refer: &str,
        selection: Option<&Expr>,
        limited: bool,
    ) -> Result<()> {
        if limited || !self.safe_updates() {
            return Ok(());
        }
        let Some(selection) = selection else {
            return Err(TranslateError::SafeUpdate);
        };
        let one_column_keys: Vec<&str> = std::iter::once(&table.primary_key)
            .chain(
                table
                    .indexes
                    .iter()
                    .filter(|i| i.unique)
                    .map(|i| &i.columns),
            )
            .filter(|columns| columns.len() == 1)
            .map(|columns| columns[0].as_str())
            .collect();
        let leading: Vec<&str> = std::iter::once(&table.primary_key)
            .chain(table.indexes.iter().map(|i| &i.columns))
            .filter_map(|columns| columns.first())
            .map(String::as_str)
            .collect();
        let column = |e: &Expr| -> Option<String> {
            match e {
                Expr::Identifier(id) => Some(id.value.clone()),
                Expr::CompoundIdentifier(ids) if ids.len() == 2 => ids[0]
                    .value
                    .eq_ignore_ascii_case(refer)
                    .then(|| ids[1].value.clone()),
                Expr::Nested(inner) => match inner.as_ref() {
                    Expr::Identifier(id) => Some(id.value.clone()),
                    _ => None,
                },
                _ => None,
            }
        };
        let literal = |e: &Expr| match e {
            Expr::Value(_) => true,
            Expr::UnaryOp { expr, .. } => matches!(expr.as_ref(), Expr::Value(_)),
            _ => false,
        };
        let is_key = |e: &Expr| {
            column(e).is_some_and(|c| one_column_keys.iter().any(|k| k.eq_ignore_ascii_case(&c)))
        };
        let mut conjuncts = vec![selection];
        while let Some(c) = conjuncts.pop() {
            match c {
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::And,
                    right,
                } => {
                    conjuncts.push(left);
                    conjuncts.push(right);
                }
                Expr::Nested(inner) => conjuncts.push(inner),
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                } if (is_key(left) && literal(right)) || (literal(left) && is_key(right)) => {
                    return Ok(());
                }
                _ => {}
            }
        }
        let names_leading = visit_expressions(selection, |e| {
            let name = match e {
                Expr::Identifier(id) => Some(&id.value),
                Expr::CompoundIdentifier(ids) => ids.last().map(|i| &i.value),
                _ => None,
            };
            if name.is_some_and(|n| leading.iter().any(|l| l.eq_ignore_ascii_case(n))) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break();
        if names_leading {
            unsupported(
                "UPDATE or DELETE under sql_safe_updates whose WHERE MariaDB's optimizer may or \
                 may not read through an index",
            )
        } else {
            Err(TranslateError::SafeUpdate)
        }
    }

    fn update(&mut self, update: &Update) -> Result<Translation> {
        if update.from.is_some() || update.returning.is_some() {
            return unsupported("UPDATE … FROM");
        }
        if !update.table.joins.is_empty() {
            return self.multi_update(update);
        }
        let TableFactor::Table { name, alias, .. } = &update.table.relation else {
            return unsupported("UPDATE of a derived table");
        };
        let table = self.write_target(name, "UPDATE")?;
        let refer = alias
            .as_ref()
            .map_or(table.name.clone(), |a| a.name.value.clone());
        self.safe_update(
            &table,
            &refer,
            update.selection.as_ref(),
            update.limit.is_some(),
        )?;
        self.scopes.push(Scope {
            sources: vec![Source::of_table(refer.clone(), &table)],
            assigns: true,
            ..Scope::default()
        });
        let out = self.update_in_scope(update, &table, &refer);
        self.scopes.pop();
        out
    }

    fn update_in_scope(
        &mut self,
        update: &Update,
        table: &Table,
        refer: &str,
    ) -> Result<Translation> {
        self.strict = true;
        self.clause = "field list";
        let mut sets = Vec::new();
        let mut same = Vec::new();
        for a in &update.assignments {
            let AssignmentTarget::ColumnName(n) = &a.target else {
                return unsupported("tuple assignment");
            };
            let n = last_name(n)?;
            let c = table
                .column(&n)
                .ok_or_else(|| TranslateError::UnknownColumn(n.clone(), "field list"))?
                .clone();
            if c.generated.is_some() {
                return Err(generated_assignment(&c, &a.value, table));
            }
            // MySQL evaluates a single-table UPDATE's assignments left to right, each reading
            // the new values of the columns assigned before it; SQLite reads the old ones, so
            // the earlier values are written into the later expressions.
            let value = if is_default_keyword(&a.value) {
                default_of(&c, false)?
            } else {
                let t = self.expr(&a.value)?;
                store(&t, &c, true, false, true)
            };
            let stored = Typed {
                strength: Strength::Column,
                unsigned: c.ty.is_unsigned(),
                ..Typed::new(format!("({value})"), c.ty.ty())
            };
            self.assigned
                .retain(|(_, column, _)| !column.eq_ignore_ascii_case(&c.name));
            self.assigned
                .push((refer.to_string(), c.name.clone(), stored));
        }
        // A column assigned twice takes its last value, which already reads the first.
        for (_, column, value) in std::mem::take(&mut self.assigned) {
            same.push(format!("my_same({}, {})", ident(&column), value.sql));
            sets.push(format!("{} = {}", ident(&column), value.sql));
        }
        // The WHERE is strict too: MySQL aborts an UPDATE on a conversion's warning wherever
        // it is raised (`WHERE name = 12` over a name 'abc' is 1292).
        let mut filter = Vec::new();
        if let Some(w) = &update.selection {
            self.clause = "where clause";
            let t = self.expr(w)?;
            filter.push(truth(&t));
        }
        self.strict = false;
        let target = self.sqlite_table(table);
        let limited = self.limited_rows(
            refer,
            &target,
            &filter,
            &update.order_by,
            update.limit.as_ref(),
        )?;
        let mut conditions = match limited {
            Some(rows) => vec![rows],
            None => filter,
        };
        conditions.push(format!("NOT ({})", same.join(" AND ")));
        let alias = if refer != table.name {
            format!(" AS {}", ident(refer))
        } else {
            String::new()
        };
        Ok(Translation {
            sql: vec![format!(
                "UPDATE {target}{alias} SET {} WHERE {}",
                sets.join(", "),
                conditions.join(" AND ")
            )],
            columns: Vec::new(),
            affected: Affected::Changes,
            change: None,
            reserves: None,
            explicit_auto_increment: false,
            found_rows: None,
            into: Vec::new(),
            suspends_foreign_keys: false,
            foreign_key_failure_is_parents: self.only_referenced(table),
            notes: Vec::new(),
            reads: Vec::new(),
        })
    }

    /// `UPDATE a JOIN b ON … SET a.x = … WHERE …` (inner joins, one table updated) as SQLite's
    /// `UPDATE a SET x = … FROM b WHERE on AND where`.
    fn multi_update(&mut self, update: &Update) -> Result<Translation> {
        if self.safe_updates() {
            return unsupported("a multi-table UPDATE under sql_safe_updates");
        }
        if !update.order_by.is_empty() || update.limit.is_some() {
            return unsupported("multi-table UPDATE with ORDER BY or LIMIT");
        }
        let twj = &update.table;
        let mut relations = vec![&twj.relation];
        let mut conditions = Vec::new();
        for join in &twj.joins {
            match &join.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::CrossJoin(c)
                | JoinOperator::StraightJoin(c) => match c {
                    JoinConstraint::On(e) => conditions.push(e),
                    JoinConstraint::None => {}
                    _ => return unsupported("multi-table UPDATE with USING"),
                },
                _ => return unsupported("multi-table UPDATE with an outer join"),
            }
            relations.push(&join.relation);
        }
        // The updated table: the one every assignment names.
        let mut target: Option<String> = None;
        for a in &update.assignments {
            let AssignmentTarget::ColumnName(n) = &a.target else {
                return unsupported("tuple assignment");
            };
            let parts = name_parts(n)?;
            let [qualifier, _] = parts.as_slice() else {
                return unsupported("multi-table UPDATE with an unqualified assignment");
            };
            match &target {
                Some(t) if !t.eq_ignore_ascii_case(qualifier) => {
                    return unsupported("multi-table UPDATE of several tables");
                }
                _ => target = Some(qualifier.clone()),
            }
        }
        let Some(target) = target else {
            return unsupported("UPDATE without assignments");
        };
        self.scopes.push(Scope::default());
        let out = (|| -> Result<Translation> {
            let mut target_sql = None;
            let mut others = Vec::new();
            let mut target_table = None;
            for relation in relations {
                let sql = self.table_factor(relation)?;
                let TableFactor::Table { name, alias, .. } = relation else {
                    return unsupported("multi-table UPDATE of a derived table");
                };
                let refer = alias.as_ref().map_or_else(
                    || last_name(name).unwrap_or_default(),
                    |a| a.name.value.clone(),
                );
                if refer.eq_ignore_ascii_case(&target) {
                    target_table = Some(self.write_target(name, "UPDATE")?);
                    target_sql = Some(sql);
                } else {
                    others.push(sql);
                }
            }
            let (Some(target_sql), Some(table)) = (target_sql, target_table) else {
                return Err(TranslateError::NoSuchTable(target.clone()));
            };
            self.strict = true;
            self.clause = "field list";
            let mut sets = Vec::new();
            let mut same = Vec::new();
            let mut assigned: Vec<String> = Vec::new();
            for a in &update.assignments {
                let AssignmentTarget::ColumnName(n) = &a.target else {
                    return unsupported("tuple assignment");
                };
                let column_name = last_name(n)?;
                let c = table
                    .column(&column_name)
                    .ok_or_else(|| {
                        TranslateError::UnknownColumn(column_name.clone(), "field list")
                    })?
                    .clone();
                if c.generated.is_some() {
                    return Err(generated_assignment(&c, &a.value, &table));
                }
                // MySQL leaves the order of a multi-table UPDATE's assignments open (MariaDB
                // reads the old values, a single-table UPDATE the new ones); SQLite reads the
                // old ones. An assignment that may read a column assigned before it has no one
                // answer.
                if let Some(read) = assigned
                    .iter()
                    .find(|column| may_read_column(&a.value, &target, &table.name, column))
                {
                    return unsupported(format!(
                        "a multi-table UPDATE assignment reading the column '{read}' assigned before it"
                    ));
                }
                assigned.push(c.name.clone());
                let t = self.expr(&a.value)?;
                let value = store(&t, &c, true, false, true);
                same.push(format!(
                    "my_same({}.{}, {value})",
                    ident(&target),
                    ident(&c.name)
                ));
                sets.push(format!("{} = {value}", ident(&c.name)));
            }
            // The join's conditions and the WHERE are strict too (see `update_in_scope`).
            self.clause = "on clause";
            let mut filter = Vec::new();
            for c in conditions {
                filter.push(truth(&self.expr(c)?));
            }
            if let Some(w) = &update.selection {
                self.clause = "where clause";
                filter.push(truth(&self.expr(w)?));
            }
            self.strict = false;
            filter.push(format!("NOT ({})", same.join(" AND ")));
            let from = if others.is_empty() {
                String::new()
            } else {
                format!(" FROM {}", others.join(", "))
            };
            Ok(Translation {
                sql: vec![format!(
                    "UPDATE {target_sql} SET {}{from} WHERE {}",
                    sets.join(", "),
                    filter.join(" AND ")
                )],
                columns: Vec::new(),
                affected: Affected::Changes,
                change: None,
                reserves: None,
                explicit_auto_increment: false,
                found_rows: None,
                into: Vec::new(),
                suspends_foreign_keys: false,
                foreign_key_failure_is_parents: self.only_referenced(&table),
                notes: Vec::new(),
                reads: Vec::new(),
            })
        })();
        self.scopes.pop();
        out
    }

    /// `rowid IN (SELECT rowid … ORDER BY … LIMIT n)` for UPDATE and DELETE with ORDER BY or
    /// LIMIT; `None` without them.
    fn limited_rows(
        &mut self,
        refer: &str,
        target: &str,
        filter: &[String],
        order: &[OrderByExpr],
        limit: Option<&Expr>,
    ) -> Result<Option<String>> {
        if order.is_empty() && limit.is_none() {
            return Ok(None);
        }
        let mut parts = Vec::new();
        for item in order {
            parts.push(self.order_item(item, false)?);
        }
        let order_sql = if parts.is_empty() {
            String::new()
        } else {
            format!(" ORDER BY {}", parts.join(", "))
        };
        let limit_sql = match limit {
            None => String::new(),
            Some(e) => self.limit(Some(&LimitClause::LimitOffset {
                limit: Some(e.clone()),
                offset: None,
                limit_by: Vec::new(),
            }))?,
        };
        let where_sql = if filter.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", filter.join(" AND "))
        };
        Ok(Some(format!(
            "rowid IN (SELECT {r}.rowid FROM {target} AS {r}{where_sql}{order_sql}{limit_sql})",
            r = ident(refer)
        )))
    }

    fn delete(&mut self, delete: &Delete) -> Result<Translation> {
        if delete.returning.is_some() || delete.using.is_some() {
            return unsupported("DELETE … USING");
        }
        let from = match &delete.from {
            FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => f,
        };
        let [twj] = from.as_slice() else {
            return self.multi_delete(delete, from);
        };
        if !delete.tables.is_empty() || !twj.joins.is_empty() {
            return self.multi_delete(delete, from);
        }
        let TableFactor::Table { name, alias, .. } = &twj.relation else {
            return unsupported("DELETE from a derived table");
        };
        let table = self.write_target(name, "DELETE")?;
        let refer = alias
            .as_ref()
            .map_or(table.name.clone(), |a| a.name.value.clone());
        // A DELETE's LIMIT counts only beside a WHERE (MariaDB refuses `DELETE … LIMIT n`).
        self.safe_update(
            &table,
            &refer,
            delete.selection.as_ref(),
            delete.limit.is_some() && delete.selection.is_some(),
        )?;
        self.scopes.push(Scope {
            sources: vec![Source::of_table(refer.clone(), &table)],
            ..Scope::default()
        });
        let out = (|| -> Result<Translation> {
            let mut filter = Vec::new();
            if let Some(w) = &delete.selection {
                self.clause = "where clause";
                filter.push(truth(&self.expr(w)?));
            }
            let target = self.sqlite_table(&table);
            let conditions = match self.limited_rows(
                &refer,
                &target,
                &filter,
                &delete.order_by,
                delete.limit.as_ref(),
            )? {
                Some(rows) => vec![rows],
                None => filter,
            };
            let where_sql = if conditions.is_empty() {
                String::new()
            } else {
                format!(" WHERE {}", conditions.join(" AND "))
            };
            let alias = if refer != table.name {
                format!(" AS {}", ident(&refer))
            } else {
                String::new()
            };
            Ok(Translation {
                sql: vec![format!("DELETE FROM {target}{alias}{where_sql}")],
                columns: Vec::new(),
                affected: Affected::Changes,
                change: None,
                reserves: None,
                explicit_auto_increment: false,
                found_rows: None,
                into: Vec::new(),
                suspends_foreign_keys: false,
                foreign_key_failure_is_parents: false,
                notes: Vec::new(),
                reads: Vec::new(),
            })
        })();
        self.scopes.pop();
        out
    }

    /// `DELETE a FROM a JOIN b ON … WHERE …`: the rows of `a` the join selects.
    /// `DELETE a FROM a JOIN b …` and `DELETE a, b FROM t a, t b …`: the rows each target
    /// finds in the join, chosen before any is deleted. Targets in several tables are refused
    /// (a later table's rows would be chosen after the earlier ones' deletes).
    fn multi_delete(&mut self, delete: &Delete, from: &[TableWithJoins]) -> Result<Translation> {
        if self.safe_updates() {
            return unsupported("a multi-table DELETE under sql_safe_updates");
        }
        if delete.tables.is_empty() {
            return unsupported("multi-table DELETE");
        }
        if !delete.order_by.is_empty() || delete.limit.is_some() {
            return unsupported("multi-table DELETE with ORDER BY or LIMIT");
        }
        let targets: Vec<String> = delete.tables.iter().map(last_name).collect::<Result<_>>()?;
        self.scopes.push(Scope::default());
        let out = (|| -> Result<Translation> {
            let mut joined = Vec::new();
            for twj in from {
                joined.push(self.table_with_joins(twj)?);
            }
            let from_sql = joined.join(", ");
            let scope = self.scopes.last().expect("pushed");
            for target in &targets {
                if !scope
                    .sources
                    .iter()
                    .any(|s| s.name.eq_ignore_ascii_case(target))
                {
                    return Err(TranslateError::UnknownTargetTable(target.clone()));
                }
            }
            // The table each target names: a FROM table under that name or alias.
            let factors = from.iter().flat_map(|twj| {
                std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation))
            });
            let table_of = |target: &str| {
                factors.clone().find_map(|f| match f {
                    TableFactor::Table { name, alias, .. }
                        if alias
                            .as_ref()
                            .map_or_else(
                                || last_name(name).unwrap_or_default(),
                                |a| a.name.value.clone(),
                            )
                            .eq_ignore_ascii_case(target) =>
                    {
                        Some(name.clone())
                    }
                    _ => None,
                })
            };
            let mut table_name: Option<ObjectName> = None;
            for target in &targets {
                let name = table_of(target)
                    .ok_or_else(|| TranslateError::Unsupported("DELETE target".into()))?;
                match &table_name {
                    Some(first) if !same_table(&self.located(first)?, &self.located(&name)?) => {
                        return unsupported("DELETE from several tables");
                    }
                    _ => table_name = Some(name),
                }
            }
            let table = self.write_target(&table_name.expect("a target"), "DELETE")?;
            let where_sql = match &delete.selection {
                Some(w) => {
                    self.clause = "where clause";
                    format!(" WHERE {}", truth(&self.expr(w)?))
                }
                None => String::new(),
            };
            let chosen: Vec<String> = targets
                .iter()
                .map(|t| format!("SELECT {}.rowid FROM {from_sql}{where_sql}", ident(t)))
                .collect();
            Ok(Translation {
                sql: vec![format!(
                    "DELETE FROM {} WHERE rowid IN ({})",
                    self.sqlite_table(&table),
                    chosen.join(" UNION ")
                )],
                affected: Affected::Changes,
                ..nothing()
            })
        })();
        self.scopes.pop();
        out
    }

    // ---- DDL ---------------------------------------------------------------------------

    fn create_table(&mut self, create: &CreateTable) -> Result<Translation> {
        if let Some(
            sqlparser::ast::CreateTableLikeKind::Plain(like)
            | sqlparser::ast::CreateTableLikeKind::Parenthesized(like),
        ) = &create.like
            && create.query.is_none()
            && !create.or_replace
            && create.columns.is_empty()
            && create.constraints.is_empty()
        {
            return self.create_table_like(create, &like.name);
        }
        if let Some(query) = &create.query
            && create.like.is_none()
            && !create.or_replace
            && create.columns.is_empty()
            && create.constraints.is_empty()
        {
            return self.create_table_as(create, query);
        }
        if create.query.is_some() || create.like.is_some() || create.or_replace {
            return unsupported("CREATE TABLE form");
        }
        let Some((database, name)) = self.new_table(create)? else {
            return Ok(already_exists(create));
        };
        let options = table_options(&create.table_options)?;
        let default_collation = options
            .iter()
            .find(|(k, _)| k.contains("COLLATE"))
            .and_then(|(_, v)| Collation::from_mysql_name(v))
            .unwrap_or(Collation::Ci);
        let mut table = Table {
            database: database.clone(),
            name: name.clone(),
            options,
            temporary: create.temporary,
            ..Table::default()
        };
        let schema = self.table_schema(&table);
        let mut primary: Vec<String> = Vec::new();
        let mut indexes: Vec<DeclaredKey> = Vec::new();
        // Where a foreign key's own index is: made only where no other key starts with its
        // columns, as InnoDB does.
        let mut fk_indexes: Vec<usize> = Vec::new();
        // A JSON column's validity check, a check of the column as MariaDB makes it.
        let json_checks: Vec<sqlparser::ast::CheckConstraint> = create
            .columns
            .iter()
            .filter(|d| matches!(d.data_type, DataType::JSON))
            .map(|d| sqlparser::ast::CheckConstraint {
                name: None,
                expr: Box::new(Expr::Function(sqlparser::ast::Function {
                    name: ObjectName(vec![ObjectNamePart::Identifier(
                        sqlparser::ast::Ident::new("json_valid"),
                    )]),
                    uses_odbc_syntax: false,
                    parameters: sqlparser::ast::FunctionArguments::None,
                    args: sqlparser::ast::FunctionArguments::List(
                        sqlparser::ast::FunctionArgumentList {
                            duplicate_treatment: None,
                            args: vec![sqlparser::ast::FunctionArg::Unnamed(
                                sqlparser::ast::FunctionArgExpr::Expr(Expr::Identifier(
                                    d.name.clone(),
                                )),
                            )],
                            clauses: Vec::new(),
                        },
                    ),
                    filter: None,
                    null_treatment: None,
                    over: None,
                    within_group: Vec::new(),
                })),
                no_inherit: false,
                enforced: None,
            })
            .collect();
        // Each with the column it is declared with: a column's checks come first, in the
        // columns' order, as MariaDB evaluates them.
        let mut checks: Vec<(Option<&str>, &sqlparser::ast::CheckConstraint)> = Vec::new();
        let mut json_checks = json_checks.iter();
        for def in &create.columns {
            if matches!(def.data_type, DataType::JSON) {
                checks.extend(
                    json_checks
                        .next()
                        .map(|c| (Some(def.name.value.as_str()), c)),
                );
            }
            self.checks_allowed = true;
            let column = self.column_def(def, default_collation);
            self.checks_allowed = false;
            let (column, _, pk, unique) = column?;
            checks.extend(def.options.iter().filter_map(|o| match &o.option {
                ColumnOption::Check(c) => Some((Some(def.name.value.as_str()), c)),
                _ => None,
            }));
            if table.column(&column.name).is_some() {
                return Err(TranslateError::DuplicateColumn(column.name));
            }
            if pk {
                if !primary.is_empty() {
                    return Err(TranslateError::MultiplePrimaryKey);
                }
                primary.push(column.name.clone());
            }
            if unique {
                indexes.push((
                    Some(column.name.clone()),
                    vec![column.name.clone()],
                    true,
                    Vec::new(),
                ));
            }
            table.columns.push(column);
        }
        for constraint in &create.constraints {
            match constraint {
                TableConstraint::PrimaryKey(pk) => {
                    if !primary.is_empty() {
                        return Err(TranslateError::MultiplePrimaryKey);
                    }
                    primary = index_columns(&pk.columns, true)?;
                }
                TableConstraint::Unique(u) => {
                    let n = u
                        .name
                        .as_ref()
                        .or(u.index_name.as_ref())
                        .map(|i| i.value.clone());
                    indexes.push((n, index_columns(&u.columns, true)?, true, Vec::new()));
                }
                TableConstraint::Index(i) => {
                    indexes.push((
                        i.name.as_ref().map(|n| n.value.clone()),
                        index_columns(&i.columns, false)?,
                        false,
                        index_prefixes(&i.columns),
                    ));
                }
                TableConstraint::ForeignKey(_) if create.temporary => {
                    return unsupported("a foreign key of a temporary table");
                }
                TableConstraint::ForeignKey(fk) => {
                    self.foreign_key(&mut table, &database, &name, fk)?;
                    fk_indexes.push(indexes.len());
                    indexes.push((
                        fk.index_name
                            .as_ref()
                            .or(fk.name.as_ref())
                            .map(|n| n.value.clone()),
                        fk.columns.iter().map(|c| c.value.clone()).collect(),
                        false,
                        Vec::new(),
                    ));
                }
                TableConstraint::Check(c) => checks.push((None, c)),
                other => {
                    return unsupported(format!("constraint {}", first_words(&other.to_string())));
                }
            }
        }
        let covered: Vec<usize> = fk_indexes
            .iter()
            .copied()
            .filter(|&at| {
                let fk = &indexes[at].1;
                let starts_with = |key: &[String]| {
                    key.len() >= fk.len()
                        && key.iter().zip(fk).all(|(k, c)| k.eq_ignore_ascii_case(c))
                };
                starts_with(&primary)
                    || indexes
                        .iter()
                        .enumerate()
                        .any(|(i, other)| !fk_indexes.contains(&i) && starts_with(&other.1))
            })
            .collect();
        // Which of the remaining indexes were made for a foreign key (InnoDB's generated ones).
        let mut generated: Vec<bool> = (0..indexes.len())
            .map(|i| fk_indexes.contains(&i))
            .collect();
        for at in covered.into_iter().rev() {
            indexes.remove(at);
            generated.remove(at);
        }
        self.generated_columns(&mut table, &create.columns)?;
        (table.checks, table.checks_shown) = self.checks(&table, &checks)?;
        for p in &primary {
            let Some(c) = table
                .columns
                .iter_mut()
                .find(|c| c.name.eq_ignore_ascii_case(p))
            else {
                return Err(TranslateError::KeyColumn(p.clone()));
            };
            if c.generated.is_some() {
                return unsupported("a generated column in the PRIMARY KEY");
            }
            c.not_null = true;
            // A key column has no implicit NULL default: leaving it out is 1364.
            c.has_default = c.default.is_some();
            table.primary_key.push(c.name.clone());
        }
        // The AUTO_INCREMENT column must be the integer primary key (SQLite's rowid).
        let auto: Vec<usize> = (0..table.columns.len())
            .filter(|&i| table.columns[i].auto_increment)
            .collect();
        let rowid_key = match auto.as_slice() {
            [] => false,
            [i] if primary.len() == 1
                && primary[0].eq_ignore_ascii_case(&table.columns[*i].name)
                && matches!(table.columns[*i].ty, ColumnType::Int { .. }) =>
            {
                true
            }
            _ => {
                return unsupported(
                    "AUTO_INCREMENT on a column that is not the integer primary key",
                );
            }
        };
        let mut sql = vec![create_table_sql(&schema, &name, &table)];
        for (at, (index_name, columns, unique, prefixes)) in indexes.into_iter().enumerate() {
            let index_name =
                index_name.unwrap_or_else(|| columns.first().cloned().unwrap_or_default());
            let index_name = unique_index_name(&table, &index_name);
            for c in &columns {
                if table.column(c).is_none() {
                    return Err(TranslateError::KeyColumn(c.clone()));
                }
            }
            let index = Index {
                sqlite_name: format!("{name}.{index_name}"),
                name: index_name,
                unique,
                columns: declared_names(&table, &columns),
                prefixes,
                generated: generated[at],
            };
            sql.push(create_index_sql(&schema, &name, &index));
            table.indexes.push(index);
        }
        if let Some((_, start)) = table.options.iter().find(|(k, _)| k == "AUTO_INCREMENT") {
            let Ok(start) = start.parse::<i64>() else {
                return unsupported(format!("AUTO_INCREMENT = {start}"));
            };
            if !rowid_key {
                return unsupported("AUTO_INCREMENT = n without an AUTO_INCREMENT column");
            }
            sql.push(format!(
                "INSERT INTO {schema}.sqlite_sequence (name, seq) VALUES ({}, {})",
                quote(&name),
                start - 1
            ));
        }
        sql.extend(on_update_triggers(&table, &schema));
        Ok(ddl(sql, CatalogChange::Create(table)))
    }

    /// The database and name of the table a CREATE TABLE makes: 1049 for an unknown database,
    /// 1050 when it exists (`None` with IF NOT EXISTS: nothing to do).
    fn new_table(&self, create: &CreateTable) -> Result<Option<(String, String)>> {
        let (database, name) = self.located(&create.name)?;
        if !self.catalog.has_database(&database) {
            return Err(TranslateError::UnknownDatabase(database));
        }
        let existing = if create.temporary {
            // SQLite's `temp` schema holds one table of a name, whatever its database.
            match self.catalog.temporary_table(&name) {
                Some(t) if !t.database.eq_ignore_ascii_case(&database) => {
                    return unsupported(
                        "temporary tables of one name in two databases of a session",
                    );
                }
                found => found,
            }
        } else {
            match self.catalog.table(Some(&database), &name) {
                // MySQL would create the table its temporary table of that name hides.
                Some(t) if t.temporary => {
                    return unsupported("CREATE TABLE of the name of a temporary table");
                }
                found => found,
            }
        };
        if existing.is_some() {
            if create.if_not_exists {
                return Ok(None);
            }
            return Err(TranslateError::TableExists(name));
        }
        Ok(Some((database, name)))
    }

    /// `CREATE TABLE t LIKE source`: the source's columns, keys, indexes and options, as MySQL
    /// copies them: not its foreign keys (their indexes stay, as plain indexes) nor its
    /// AUTO_INCREMENT counter. A source with CHECK constraints is refused: MySQL names the
    /// copies anew where MariaDB keeps their names.
    fn create_table_like(
        &mut self,
        create: &CreateTable,
        source: &ObjectName,
    ) -> Result<Translation> {
        let (database, _) = self.located(&create.name)?;
        if !self.catalog.has_database(&database) {
            return Err(TranslateError::UnknownDatabase(database));
        }
        let mut table = self.object(source)?;
        if table.view.is_some() {
            return unsupported("CREATE TABLE … LIKE a view");
        }
        let Some((database, name)) = self.new_table(create)? else {
            return Ok(already_exists(create));
        };
        if !table.checks.is_empty() {
            return unsupported("CREATE TABLE … LIKE a table with CHECK constraints");
        }
        table.database = database.clone();
        table.name = name.clone();
        table.temporary = create.temporary;
        table.foreign_keys.clear();
        table.foreign_keys_shown.clear();
        table.options.retain(|(k, _)| k != "AUTO_INCREMENT");
        for index in &mut table.indexes {
            index.sqlite_name = format!("{name}.{}", index.name);
        }
        let schema = self.table_schema(&table);
        let mut sql = vec![create_table_sql(&schema, &name, &table)];
        sql.extend(
            table
                .indexes
                .iter()
                .map(|index| create_index_sql(&schema, &name, index)),
        );
        sql.extend(on_update_triggers(&table, &schema));
        Ok(ddl(sql, CatalogChange::Create(table)))
    }

    /// `CREATE TABLE t AS SELECT …` of one table's plain columns (no join, union or computed
    /// column, whose types MySQL derives by rules this does not follow): each column as declared
    /// with its NULL-ability, collation, comment and default, as MySQL keeps them, without keys
    /// or ON UPDATE; what was AUTO_INCREMENT defaults to 0. The rows follow in the same statement, whose affected rows they are.
    fn create_table_as(&mut self, create: &CreateTable, query: &Query) -> Result<Translation> {
        let Some((database, name)) = self.new_table(create)? else {
            return Ok(already_exists(create));
        };
        let single_table = match query.body.as_ref() {
            SetExpr::Select(select) => select.from.len() == 1 && select.from[0].joins.is_empty(),
            _ => false,
        };
        if !single_table || query.with.is_some() {
            return unsupported("CREATE TABLE … AS a query that is not of one table");
        }
        let (select_sql, out) = self.query(query)?;
        let mut table = Table {
            database: database.clone(),
            name: name.clone(),
            options: table_options(&create.table_options)?,
            temporary: create.temporary,
            ..Table::default()
        };
        for column in &out {
            let Some(origin) = &column.origin else {
                return unsupported(format!(
                    "CREATE TABLE … AS a query with the computed column '{}'",
                    column.name
                ));
            };
            // MariaDB's information_schema columns are NOT NULL utf8mb3 text with defaults,
            // which the catalog here does not declare.
            if origin.database.eq_ignore_ascii_case("information_schema") {
                return unsupported("CREATE TABLE … AS a query of information_schema");
            }
            let source = self
                .catalog
                .table(Some(&origin.database), &origin.original_table)
                .ok_or_else(|| {
                    TranslateError::NoSuchTable(format!(
                        "{}.{}",
                        origin.database, origin.original_table
                    ))
                })?;
            let Some(declared) = source.column(&origin.column) else {
                return Err(TranslateError::UnknownColumn(
                    origin.column.clone(),
                    "field list",
                ));
            };
            if declared.on_update_now {
                return unsupported("CREATE TABLE … AS a column with ON UPDATE");
            }
            let mut copy = declared.clone();
            copy.name = column.name.clone();
            if copy.auto_increment {
                // What was AUTO_INCREMENT is a plain NOT NULL column defaulting to 0.
                copy.auto_increment = false;
                copy.has_default = true;
                copy.default = Some(implicit_default(&copy.ty));
            }
            if table.column(&copy.name).is_some() {
                return Err(TranslateError::DuplicateColumn(copy.name));
            }
            table.columns.push(copy);
        }
        let schema = self.table_schema(&table);
        let names: Vec<String> = table.columns.iter().map(|c| ident(&c.name)).collect();
        let sql = vec![
            create_table_sql(&schema, &name, &table),
            format!(
                "INSERT INTO {schema}.{} ({}) {select_sql}",
                ident(&name),
                names.join(", ")
            ),
        ];
        Ok(Translation {
            affected: Affected::Changes,
            ..ddl(sql, CatalogChange::Create(table))
        })
    }

    /// The expressions of `table`'s generated columns (declared by `defs`), over its columns
    /// as MySQL reads them and converted to the column's type as a strict write converts; each
    /// with the form MariaDB prints back, without which it is refused.
    fn generated_columns(
        &mut self,
        table: &mut Table,
        defs: &[sqlparser::ast::ColumnDef],
    ) -> Result<()> {
        for def in defs {
            let Some(expr) = def.options.iter().find_map(|o| match &o.option {
                ColumnOption::Generated {
                    generation_expr: Some(e),
                    ..
                } => Some(e),
                _ => None,
            }) else {
                continue;
            };
            let Some(shown) = crate::shown::expression(expr, table) else {
                return unsupported(format!("the generated column expression {expr}"));
            };
            self.scopes.push(Scope {
                sources: vec![Source::of_table(table.name.clone(), table)],
                using: table.columns.iter().map(|c| c.name.clone()).collect(),
                ..Scope::default()
            });
            self.clause = "generated column";
            let value = self.expr(expr);
            self.scopes.pop();
            let value = value?;
            if value.aggregate {
                return Err(TranslateError::GroupFunction);
            }
            let column = table
                .columns
                .iter_mut()
                .find(|c| c.name == def.name.value)
                .expect("declared above");
            let sql = store(&value, column, true, false, false);
            let generated = column.generated.as_mut().expect("declared generated");
            generated.sql = sql;
            generated.shown = shown;
        }
        Ok(())
    }

    /// The enforced CHECK constraints as SQLite's: the condition as MySQL reads it, failing
    /// with MariaDB's 4025 when false, each with the column it is declared with (`None`: a
    /// table's). Named as MariaDB names them: a column's by the column (`t.c` in the error), an
    /// unnamed table's `CONSTRAINT_n`. With them, the checks as MariaDB prints them back
    /// (empty when one has no known printed form: see `shown`).
    fn checks(
        &mut self,
        table: &Table,
        checks: &[(Option<&str>, &sqlparser::ast::CheckConstraint)],
    ) -> Result<TranslatedChecks> {
        let mut out = Vec::new();
        let mut printed = Some(Vec::new());
        let mut unnamed = 0;
        for (column, check) in checks {
            let (name, shown) = match (&check.name, column) {
                (Some(n), _) => (n.value.clone(), n.value.clone()),
                (None, Some(column)) => (column.to_string(), format!("{}.{column}", table.name)),
                (None, None) => {
                    unnamed += 1;
                    let n = format!("CONSTRAINT_{unnamed}");
                    (n.clone(), n)
                }
            };
            if check.enforced == Some(false) {
                printed = None;
                continue;
            }
            let column_level = match (&check.name, column) {
                (None, Some(column)) => Some(Some((*column).to_owned())),
                (Some(_), Some(_)) => None,
                (_, None) => Some(None),
            };
            let clause = crate::shown::check_clause(&check.expr, table);
            printed = match (printed, column_level, clause) {
                (Some(mut list), Some(column), Some(clause)) => {
                    list.push(ShownCheck {
                        name: name.clone(),
                        column,
                        clause,
                        columns: crate::shown::columns_read(&check.expr, table),
                    });
                    Some(list)
                }
                _ => None,
            };
            // The columns are named unqualified, as SQLite's CHECK needs: every one is merged
            // as if joined with USING.
            self.scopes.push(Scope {
                sources: vec![Source::of_table(table.name.clone(), table)],
                using: table.columns.iter().map(|c| c.name.clone()).collect(),
                ..Scope::default()
            });
            self.clause = "check constraint";
            let condition = self.expr(&check.expr);
            self.scopes.pop();
            let condition = condition?;
            if condition.aggregate {
                return Err(TranslateError::GroupFunction);
            }
            out.push((
                name.clone(),
                format!(
                    "CONSTRAINT {} CHECK (my_check_constraint({}, {}, {}, {}))",
                    ident(&name),
                    truth(&condition),
                    quote(&shown),
                    quote(&table.database),
                    quote(&table.name)
                ),
            ));
        }
        Ok((out, printed.unwrap_or_default()))
    }

    /// One column definition: the catalog column, its SQLite definition, whether it is the
    /// primary key and whether it is UNIQUE.
    fn column_def(
        &mut self,
        def: &sqlparser::ast::ColumnDef,
        default_collation: Collation,
    ) -> Result<(Column, String, bool, bool)> {
        let mut collation = default_collation;
        for o in &def.options {
            if let ColumnOption::Collation(c) = &o.option {
                collation = Collation::from_mysql_name(&c.to_string())
                    .ok_or_else(|| TranslateError::Unsupported(format!("COLLATE {c}")))?;
            }
            if let ColumnOption::CharacterSet(cs) = &o.option
                && cs.to_string().eq_ignore_ascii_case("binary")
            {
                collation = Collation::Bin;
            }
        }
        // MariaDB's JSON is LONGTEXT in utf8mb4_bin that a CHECK keeps valid (added by
        // create_table, the one place checks are made).
        let json = matches!(def.data_type, DataType::JSON);
        if json && !self.checks_allowed {
            return unsupported("column type JSON outside CREATE TABLE");
        }
        let ty = if json {
            Ok(ColumnType::VarChar {
                length: u32::MAX,
                collation: Collation::Bin,
            })
        } else {
            column_type(&def.data_type, collation)
        };
        let ty = ty.map_err(|err| match err {
            TranslateError::TooBigPrecision(_) => {
                TranslateError::TooBigPrecision(def.name.value.clone())
            }
            other => other,
        })?;
        let mut column = Column {
            name: def.name.value.clone(),
            ty,
            not_null: false,
            has_default: false,
            auto_increment: false,
            on_update_now: false,
            comment: None,
            default: None,
            declared: if json {
                "LONGTEXT".to_owned()
            } else {
                mysql_declared(&def.data_type.to_string())
            },
            generated: None,
        };
        let (mut pk, mut unique) = (false, false);
        let mut nullable_declared = false;
        for o in &def.options {
            match &o.option {
                ColumnOption::Null => nullable_declared = true,
                ColumnOption::NotNull => column.not_null = true,
                ColumnOption::Default(e) => {
                    column.has_default = true;
                    column.default = Some(self.default_value(e, &column)?);
                }
                ColumnOption::PrimaryKey(_) => pk = true,
                ColumnOption::Unique(_) => unique = true,
                ColumnOption::Comment(c) => column.comment = Some(c.clone()),
                ColumnOption::OnUpdate(e) if now_fsp(e).is_some() => {
                    if now_fsp(e) != Some(column.ty.fsp()) {
                        return unsupported(
                            "ON UPDATE CURRENT_TIMESTAMP of other fraction digits than the column's",
                        );
                    }
                    column.on_update_now = true;
                }
                ColumnOption::DialectSpecific(tokens)
                    if tokens
                        .iter()
                        .any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
                {
                    column.auto_increment = true;
                }
                ColumnOption::Collation(_) | ColumnOption::CharacterSet(_) => {}
                // Translated with the table's other checks (create_table).
                ColumnOption::Check(_) if self.checks_allowed => {}
                // Translated once every column is known (create_table), as it may read any.
                ColumnOption::Generated {
                    generation_expr: Some(_),
                    sequence_options: None,
                    generation_expr_mode,
                    ..
                } if self.checks_allowed => {
                    column.generated = Some(Generated {
                        sql: String::new(),
                        shown: String::new(),
                        stored: matches!(
                            generation_expr_mode,
                            Some(sqlparser::ast::GeneratedExpressionMode::Stored)
                        ),
                    });
                }
                other => return unsupported(format!("column option {other}")),
            }
        }
        let _ = nullable_declared;
        if column.generated.is_some() {
            if column.not_null
                || column.has_default
                || column.auto_increment
                || column.on_update_now
                || pk
            {
                return unsupported(
                    "a generated column with NOT NULL, DEFAULT, AUTO_INCREMENT, ON UPDATE or \
                     PRIMARY KEY",
                );
            }
            if matches!(column.ty, ColumnType::Enum { .. } | ColumnType::Set { .. }) || json {
                return unsupported("a generated ENUM, SET or JSON column");
            }
        }
        if !column.not_null && !column.has_default {
            // A nullable column without DEFAULT defaults to NULL.
            column.has_default = true;
        }
        if matches!(column.ty, ColumnType::Enum { .. }) && column.not_null && !column.has_default {
            // A NOT NULL ENUM without DEFAULT defaults to its first member.
            column.has_default = true;
            column.default = Some(implicit_default(&column.ty));
        }
        let sql = column_head(&column);
        Ok((column, sql, pk, unique))
    }

    /// A column DEFAULT as SQLite's: the value stored as MySQL stores it.
    fn default_value(&mut self, e: &Expr, column: &Column) -> Result<String> {
        if let Some(fsp) = now_fsp(e) {
            let ColumnType::DateTime { fsp: digits, .. } = column.ty else {
                return unsupported("DEFAULT CURRENT_TIMESTAMP on this type");
            };
            if fsp != digits {
                return unsupported(
                    "DEFAULT CURRENT_TIMESTAMP of other fraction digits than the column's",
                );
            }
            return Ok(format!("({})", now_sql(fsp)));
        }
        self.scopes.push(Scope::default());
        let t = self.expr(e);
        self.scopes.pop();
        let t = t?;
        if t.ty == Ty::Null {
            return Ok("NULL".into());
        }
        // The default is a constant: kept as MySQL stores it in the column.
        crate::value::constant_default(e, &column.ty).map_err(|refused| match refused {
            crate::value::DefaultRefused::Invalid => {
                TranslateError::InvalidDefault(column.name.clone())
            }
            crate::value::DefaultRefused::NotKept => {
                TranslateError::Unsupported(format!("DEFAULT {e}"))
            }
        })
    }

    fn create_index(&mut self, create: &CreateIndex) -> Result<Translation> {
        let table = self.table(&create.table_name)?;
        let Some(name) = &create.name else {
            return unsupported("CREATE INDEX without a name");
        };
        let index_name = last_name(name)?;
        if table
            .indexes
            .iter()
            .any(|i| i.name.eq_ignore_ascii_case(&index_name))
        {
            return Err(TranslateError::DuplicateKey(index_name));
        }
        let columns = index_columns(&create.columns, create.unique)?;
        for c in &columns {
            if table.column(c).is_none() {
                return Err(TranslateError::KeyColumn(c.clone()));
            }
        }
        let index = Index {
            sqlite_name: format!("{}.{index_name}", table.name),
            name: index_name,
            unique: create.unique,
            columns: declared_names(&table, &columns),
            prefixes: index_prefixes(&create.columns),
            generated: false,
        };
        let schema = self.table_schema(&table);
        let mut sql = vec![create_index_sql(&schema, &table.name, &index)];
        let mut changed = table.clone();
        sql.extend(drop_served_generated(&mut changed, &index, &schema));
        changed.indexes.push(index);
        Ok(ddl(sql, CatalogChange::Replace(changed)))
    }

    // ---- views ------------------------------------------------------------------------

    /// `CREATE [OR REPLACE] VIEW v [(columns)] AS SELECT …`: the SELECT is translated now (so a
    /// missing table or column is MySQL's error at once) and kept as MySQL text with the
    /// column types it gave; SQLite holds a stand-in view of the name ([`Self::view_marker_sql`]).
    fn create_view(&mut self, create: &CreateView) -> Result<Translation> {
        if create.materialized
            || create.temporary
            || create.or_alter
            || create.secure
            || create.if_not_exists
            || create.with_no_schema_binding
            || create.copy_grants
            || create.to.is_some()
            || create.comment.is_some()
            || !create.cluster_by.is_empty()
            || !matches!(create.options, CreateTableOptions::None)
        {
            return unsupported(format!(
                "CREATE VIEW clause in {}",
                first_words(&create.to_string())
            ));
        }
        // The node has no users of its own to run a view as: DEFINER may name only the
        // session's, and SQL SECURITY and ALGORITHM change nothing a SELECT reads (TEMPTABLE
        // makes the view one MySQL does not write through).
        if let Some(definer) = create.params.as_ref().and_then(|p| p.definer.as_ref())
            && !matches!(definer, GranteeName::ObjectName(n)
                if n.to_string().eq_ignore_ascii_case("CURRENT_USER"))
        {
            return unsupported(format!("CREATE VIEW with DEFINER={definer}"));
        }
        if create
            .columns
            .iter()
            .any(|c| c.data_type.is_some() || c.options.is_some())
        {
            return unsupported("CREATE VIEW column list with types or options");
        }
        let columns: Vec<String> = create
            .columns
            .iter()
            .map(|c| c.name.value.clone())
            .collect();
        let mode = if create.or_replace {
            ViewMode::Replace
        } else {
            ViewMode::Create
        };
        let algorithm = create.params.as_ref().and_then(|p| p.algorithm.as_ref());
        // MySQL keeps MERGE only for a SELECT it can merge, with a warning otherwise.
        if matches!(algorithm, Some(CreateViewAlgorithm::Merge))
            && !crate::mergeable::mergeable(&create.query)
        {
            return unsupported(
                "CREATE ALGORITHM=MERGE VIEW of a SELECT MySQL does not merge (its warning 1354)",
            );
        }
        let temptable = matches!(algorithm, Some(CreateViewAlgorithm::TempTable));
        self.define_view(&create.name, &columns, &create.query, mode, temptable)
    }

    /// `ALTER VIEW v [(columns)] AS SELECT …`: a new definition of a view that exists.
    fn alter_view(&mut self, alter: &AlterView) -> Result<Translation> {
        match &alter.operation {
            AlterViewOperation::As {
                columns,
                query,
                with_options,
            } if !alter.materialized && !alter.if_exists && with_options.is_empty() => {
                let columns: Vec<String> = columns.iter().map(|c| c.value.clone()).collect();
                self.define_view(&alter.name, &columns, query, ViewMode::Alter, false)
            }
            _ => unsupported(format!("ALTER VIEW {}", alter.name)),
        }
    }

    /// A view's definition (CREATE, CREATE OR REPLACE, ALTER): see [`Self::create_view`].
    fn define_view(
        &mut self,
        view_name: &ObjectName,
        column_list: &[String],
        select: &Query,
        mode: ViewMode,
        temptable: bool,
    ) -> Result<Translation> {
        let (database, name) = self.located(view_name)?;
        if !self.catalog.has_database(&database) {
            return Err(TranslateError::UnknownDatabase(database));
        }
        let replaced = match (self.catalog.base_table(&database, &name), mode) {
            (Some(t), ViewMode::Replace | ViewMode::Alter) if t.view.is_none() => {
                return Err(TranslateError::WrongObject(
                    format!("{database}.{name}"),
                    "VIEW",
                ));
            }
            (Some(_), ViewMode::Create) => return Err(TranslateError::TableExists(name)),
            (None, ViewMode::Alter) => {
                return Err(TranslateError::NoSuchTable(format!("{database}.{name}")));
            }
            (found, _) => found,
        };
        let mut variable = false;
        let _ = visit_expressions(select, |e| {
            variable |= match e {
                Expr::Value(v) => matches!(v.value, sqlparser::ast::Value::Placeholder(_)),
                Expr::Identifier(id) => {
                    id.quote_style.is_none()
                        && id.value.starts_with('@')
                        && !id.value.starts_with("@@")
                }
                _ => false,
            };
            ControlFlow::<()>::Continue(())
        });
        if variable {
            return Err(TranslateError::ViewVariable);
        }
        let names_in = self.catalog.current_schema();
        let columns = self.view_select_columns(select, &database, &name, &names_in)?;
        // Reading the view translates its kept text, where an expression is named as the tree
        // prints it (`a + 1`), while MySQL names the view's column as the item is written
        // (`a+1`): `selected` holds the names reading it gives, found by translating that text.
        let written = self.written.take();
        let printed = |this: &mut Self, query: &Query| -> Result<Vec<String>> {
            if written.is_none() {
                return Ok(columns.iter().map(|c| c.name.clone()).collect());
            }
            let printed = this.view_select_columns(query, &database, &name, &names_in)?;
            Ok(printed.into_iter().map(|c| c.name).collect())
        };
        let named = if column_list.is_empty() {
            crate::view_names::view_column_names(select, &columns).and_then(|(names, aliased)| {
                let selected = printed(self, aliased.as_ref().unwrap_or(select))?;
                Ok((selected, names, aliased))
            })
        } else if column_list.len() != columns.len() {
            Err(TranslateError::ViewColumnCount)
        } else {
            printed(self, select).map(|selected| (selected, Vec::new(), None))
        };
        self.written = written;
        let (selected, names, stored) = named?;
        let (selected, names, stored) = if column_list.is_empty() {
            (selected, names, stored)
        } else {
            if let Some(name) = first_duplicate(&selected) {
                return unsupported(format!(
                    "a view column list over a SELECT with two columns named '{name}'"
                ));
            }
            (selected, column_list.to_vec(), None)
        };
        if let Some(name) = first_duplicate(&names) {
            return Err(TranslateError::DuplicateColumn(name));
        }
        let stored = stored.as_ref().unwrap_or(select);
        let query = stored.to_string();
        if parse_view_query(&query).as_ref() != Some(stored) {
            return unsupported("a view whose SELECT does not print back as written");
        }
        let nullable = declared_columns(select, &|name| self.reads_outer_join(name, 0));
        // A SELECT's aggregate of a table column, which MySQL describes by its own rules
        // (not in a common table expression's scope, where a name may not be the table's).
        let one_select = match select.body.as_ref() {
            SetExpr::Select(s) if select.with.is_none() => Some(s.as_ref()),
            _ => None,
        };
        let items = one_select.and_then(|s| crate::view_names::projected(s, columns.len()));
        let table_of = |name: &ObjectName| {
            let (database, table) = self.located(name).ok()?;
            self.catalog.base_table(&database, &table)
        };
        let union = crate::view_types::union_columns(select, &names, &table_of);
        let view_columns = columns
            .iter()
            .zip(&names)
            .enumerate()
            .map(|(at, (c, n))| {
                let aggregate = match (one_select, items.as_ref().map(|i| i[at])) {
                    (
                        Some(s),
                        Some(crate::view_names::Projected::Item(
                            _,
                            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. },
                        )),
                    ) => crate::view_types::aggregate_column(s, e, n, &table_of),
                    _ => union.as_ref().and_then(|u| u[at].clone()),
                };
                // The translation computes SUM of integers as integers, which print as
                // MySQL's DECIMAL of scale 0 does.
                let same_values = |column: &Column| {
                    column.ty.ty() == c.ty || (column.ty.ty() == Ty::Decimal(0) && c.ty == Ty::Int)
                };
                match aggregate {
                    Some(column) if same_values(&column) => column,
                    _ => self.view_column(c, n, nullable.as_deref()),
                }
            })
            .collect();
        let view = Table {
            database: database.clone(),
            name: name.clone(),
            columns: view_columns,
            view: Some(View {
                query,
                names_in: names_in.unwrap_or(database),
                selected,
                temptable,
            }),
            ..Table::default()
        };
        let mut sql = Vec::new();
        if let Some(old) = &replaced {
            sql.push(format!("DROP VIEW {}", self.sqlite_table(old)));
        }
        sql.push(self.view_marker_sql(&view));
        Ok(ddl(
            sql,
            if replaced.is_some() {
                CatalogChange::Replace(view)
            } else {
                CatalogChange::Create(view)
            },
        ))
    }

    /// SQLite's stand-in for a view: a view of its name and column names. It holds the name
    /// in SQLite's schema (which changes the database's schema version, by which the engine
    /// notices changed definitions); translated statements never read it, they read the
    /// view's SELECT translated ([`Self::view_query`]), since a SQLite view outside `temp`
    /// may not name the tables of another database, and an expression's MySQL type would not
    /// survive SQLite's view. A statement that reads it all the same (SQL run as text) fails
    /// with 1235 (`my_view_stand_in`) rather than reading no rows.
    fn view_marker_sql(&self, view: &Table) -> String {
        let columns: Vec<String> = view
            .columns
            .iter()
            .map(|c| format!("NULL AS {}", ident(&c.name)))
            .collect();
        format!(
            "CREATE VIEW {} AS SELECT {} WHERE my_view_stand_in({})",
            self.sqlite_table(view),
            columns.join(", "),
            quote(&format!("{}.{}", view.database, view.name))
        )
    }

    /// Whether a FROM item's name names a view whose SELECT has an outer join, in it or in the
    /// views it reads (or whose SELECT no longer reads back): its columns may be nullable where
    /// their tables' are not.
    fn reads_outer_join(&self, name: &ObjectName, depth: usize) -> bool {
        let Ok((database, table)) = self.located(name) else {
            return false;
        };
        let Some(view) = self.catalog.base_table(&database, &table) else {
            return false;
        };
        let Some(definition) = &view.view else {
            return false;
        };
        let Some(query) = parse_view_query(&definition.query) else {
            return true;
        };
        // Views nest as deep as MySQL lets them be defined; the bound only stops a cycle the
        // catalog should not hold.
        depth > 64
            || has_outer_join(&query, &|inner| {
                let inner = match inner.0.as_slice() {
                    [part] => match part.as_ident() {
                        Some(table) => ObjectName::from(vec![
                            sqlparser::ast::Ident::new(definition.names_in.clone()),
                            table.clone(),
                        ]),
                        None => return true,
                    },
                    _ => inner.clone(),
                };
                self.reads_outer_join(&inner, depth + 1)
            })
    }

    /// A view's column as the catalog keeps it: a table column's declaration (under the
    /// view's name for it), or for an expression one of its MySQL type without a declared
    /// type (catalog statements cannot describe it as MySQL would). A SELECT without
    /// [`declared_columns`] has no declared types (MySQL describes a union's column by the
    /// types of all its members); a column of a FROM item an outer join makes nullable
    /// (`nullable`) is its declaration made nullable, as MySQL describes it.
    fn view_column(&self, column: &OutColumn, name: &str, nullable: Option<&[String]>) -> Column {
        let declared = nullable.and_then(|nullable| {
            let origin = column.origin.as_ref()?;
            let declared = self
                .catalog
                .base_table(&origin.database, &origin.original_table)?
                .column(&origin.column)?
                .clone();
            let outer = nullable
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&origin.table));
            Some(Column {
                not_null: declared.not_null && !outer,
                ..declared
            })
        });
        match declared {
            Some(c) if c.ty.ty() == column.ty => Column {
                name: name.to_owned(),
                ..c
            },
            _ => Column::undeclared(name.to_owned(), column_type_of(column.ty)),
        }
    }

    /// A view's SELECT translated as a derived table's, in the view's database and without
    /// temporary tables, under the view's column names: MySQL's 1356 if it no longer
    /// translates (a table or column gone).
    /// The columns of a view's SELECT, translated as the view `database.name` being made.
    fn view_select_columns(
        &mut self,
        select: &Query,
        database: &str,
        name: &str,
        names_in: &Option<String>,
    ) -> Result<Vec<OutColumn>> {
        let saved = (self.view_names_in.clone(), self.creating_view, self.named);
        (self.view_names_in, self.creating_view, self.named) = (names_in.clone(), true, true);
        // A SELECT that reads the view itself, through other views, is MySQL's 1146 for it.
        self.expanding.push(format!("{database}.{name}"));
        let result = self.query(select);
        self.expanding.pop();
        (self.view_names_in, self.creating_view, self.named) = saved;
        Ok(result?.1)
    }

    fn view_query(&mut self, view: &Table) -> Result<(String, Vec<OutColumn>)> {
        // The view's SELECT is another text than the statement's.
        let written = self.written.take();
        let result = self.view_query_of_kept_text(view);
        self.written = written;
        result
    }

    fn view_query_of_kept_text(&mut self, view: &Table) -> Result<(String, Vec<OutColumn>)> {
        let definition = view.view.as_ref().expect("a view");
        let shown = format!("{}.{}", view.database, view.name);
        if self
            .expanding
            .iter()
            .any(|v| v.eq_ignore_ascii_case(&shown))
        {
            return Err(TranslateError::NoSuchTable(shown));
        }
        let Some(query) = parse_view_query(&definition.query) else {
            return Err(TranslateError::InvalidView(shown));
        };
        let rewritten = crate::rollup::rewrite(&Statement::Query(Box::new(query.clone())))?;
        let query = match rewritten {
            Some(Statement::Query(q)) => *q,
            _ => query,
        };
        // The view's SELECT sees none of the statement's names: its scopes, common table
        // expressions, an UPDATE's assigned values or an upsert's VALUES().
        let scopes = std::mem::take(&mut self.scopes);
        let ctes = std::mem::take(&mut self.ctes);
        let assigned = std::mem::take(&mut self.assigned);
        let excluded = self.excluded.take();
        let flags = (
            self.clause,
            self.in_aggregate,
            self.numbered,
            self.named,
            self.view_names_in.replace(definition.names_in.clone()),
            self.creating_view,
        );
        (
            self.in_aggregate,
            self.numbered,
            self.named,
            self.creating_view,
        ) = (false, false, true, false);
        self.expanding.push(shown.clone());
        let result = self.query(&query);
        self.expanding.pop();
        (
            self.clause,
            self.in_aggregate,
            self.numbered,
            self.named,
            self.view_names_in,
            self.creating_view,
        ) = flags;
        self.scopes = scopes;
        self.ctes = ctes;
        self.assigned = assigned;
        self.excluded = excluded;
        let (sql, columns) = result.map_err(|err| match err {
            TranslateError::Unsupported(_) | TranslateError::InvalidView(_) => err,
            // A view that reads itself: the error of the view being defined.
            TranslateError::NoSuchTable(ref name)
                if self.expanding.iter().any(|v| v.eq_ignore_ascii_case(name)) =>
            {
                err
            }
            _ => TranslateError::InvalidView(shown.clone()),
        })?;
        // The columns the SELECT gave at the view's creation, found by name.
        let mut picked = Vec::with_capacity(view.columns.len());
        for (selected, column) in definition.selected.iter().zip(&view.columns) {
            let Some(found) = columns
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(selected))
            else {
                return Err(TranslateError::InvalidView(shown));
            };
            picked.push(OutColumn {
                name: column.name.clone(),
                ..found.clone()
            });
        }
        let as_selected = columns.len() == picked.len()
            && columns.iter().zip(&picked).all(|(c, p)| c.name == p.name);
        if as_selected {
            return Ok((sql, picked));
        }
        let items: Vec<String> = definition
            .selected
            .iter()
            .zip(&picked)
            .map(|(selected, column)| format!("{} AS {}", ident(selected), ident(&column.name)))
            .collect();
        Ok((format!("SELECT {} FROM ({sql})", items.join(", ")), picked))
    }

    fn drop(
        &mut self,
        object_type: ObjectType,
        if_exists: bool,
        temporary: bool,
        names: &[ObjectName],
        on: Option<&ObjectName>,
    ) -> Result<Translation> {
        match object_type {
            ObjectType::Table => {
                let mut sql = Vec::new();
                let mut changes = Vec::new();
                let mut missing = Vec::new();
                let mut views = Vec::new();
                for n in names {
                    // The database as MySQL names it in messages (a table's own may be its
                    // SQLite schema).
                    let shown = |t: &Table| {
                        let database = self.located(n).map_or_else(|_| t.database.clone(), |l| l.0);
                        format!("{database}.{}", t.name)
                    };
                    match self.object(n) {
                        // DROP TEMPORARY TABLE drops only the session's temporary tables.
                        Ok(t) if temporary && !t.temporary => missing.push(shown(&t)),
                        // MySQL drops the tables named with it and fails (or, with IF EXISTS,
                        // notes) on the view.
                        Ok(t) if t.view.is_some() => views.push(shown(&t)),
                        Ok(t) => {
                            sql.push(format!("DROP TABLE {}", self.sqlite_table(&t)));
                            changes.push(CatalogChange::Drop {
                                database: t.database,
                                table: t.name,
                                temporary: t.temporary,
                            });
                        }
                        Err(TranslateError::NoSuchTable(shown)) => missing.push(shown),
                        Err(other) => return Err(other),
                    }
                }
                if !missing.is_empty() && !if_exists {
                    return Err(TranslateError::UnknownTable(missing.join(",")));
                }
                if let Some(view) = views.first()
                    && !if_exists
                {
                    if !changes.is_empty() {
                        return unsupported("DROP TABLE naming tables and a view");
                    }
                    return Err(TranslateError::IsView(view.clone()));
                }
                let mut notes = Vec::new();
                if !missing.is_empty() {
                    notes.push((1051, format!("Unknown table '{}'", missing.join(","))));
                }
                notes.extend(views.iter().map(|v| (1965, format!("'{v}' is a view"))));
                Ok(Translation {
                    notes,
                    ..ddl(sql, CatalogChange::Several(changes))
                })
            }
            ObjectType::View => {
                let mut sql = Vec::new();
                let mut changes = Vec::new();
                let mut missing = Vec::new();
                for n in names {
                    let (database, name) = self.located(n)?;
                    match self.catalog.base_table(&database, &name) {
                        Some(t) if t.view.is_some() => {
                            sql.push(format!("DROP VIEW {}", self.sqlite_table(&t)));
                            changes.push(CatalogChange::Drop {
                                database: t.database,
                                table: t.name,
                                temporary: false,
                            });
                        }
                        _ => missing.push(format!("{database}.{name}")),
                    }
                }
                if !missing.is_empty() && !if_exists {
                    // MySQL drops the views that exist and names the others.
                    if !changes.is_empty() {
                        return unsupported("DROP VIEW naming views that do not exist");
                    }
                    return Err(TranslateError::UnknownView(missing.join(",")));
                }
                let notes = if missing.is_empty() {
                    Vec::new()
                } else {
                    vec![(4092, format!("Unknown VIEW: '{}'", missing.join(",")))]
                };
                Ok(Translation {
                    notes,
                    ..ddl(sql, CatalogChange::Several(changes))
                })
            }
            ObjectType::Index => {
                let (Some(on), [index]) = (on, names) else {
                    return unsupported("DROP INDEX without ON table");
                };
                let table = self.table(on)?;
                let index_name = last_name(index)?;
                self.drop_index(table, &index_name)
            }
            other => unsupported(format!("DROP {other}")),
        }
    }

    fn drop_index(&mut self, table: Table, index_name: &str) -> Result<Translation> {
        let Some(at) = table
            .indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(index_name))
        else {
            return Err(TranslateError::NoSuchIndex(index_name.to_string()));
        };
        let schema = self.table_schema(&table);
        let mut changed = table;
        let index = changed.indexes.remove(at);
        Ok(ddl(
            vec![format!("DROP INDEX {schema}.{}", ident(&index.sqlite_name))],
            CatalogChange::Replace(changed),
        ))
    }

    fn alter_table(
        &mut self,
        name: &ObjectName,
        operations: &[AlterTableOperation],
    ) -> Result<Translation> {
        let table = self.table(name)?;
        if table.temporary {
            return unsupported("ALTER TABLE of a temporary table");
        }
        match operations {
            // `ALTER TABLE t DISABLE | ENABLE KEYS` (the front end reads it without changes):
            // SQLite, like InnoDB, keeps every index current, so there is nothing to pause.
            [] => Ok(nothing()),
            [op] => self.alter_one(table, op),
            several => self.alter_several(table, several),
        }
    }

    /// Several changes in one ALTER TABLE, made in order, each to the table the ones before it
    /// left (the engine runs a DDL translation all or nothing, so one that fails on the rows
    /// leaves the table as it was). The statement counts the rows copied when any change copies
    /// the table, as MySQL's copying ALTER does; renaming the table must be alone.
    fn alter_several(
        &mut self,
        mut table: Table,
        operations: &[AlterTableOperation],
    ) -> Result<Translation> {
        let mut sql = Vec::new();
        let mut affected = Affected::Zero;
        let mut suspends_foreign_keys = false;
        for op in operations {
            let one = self.alter_one(table, op)?;
            let Some(CatalogChange::Replace(changed)) = one.change else {
                return unsupported("ALTER TABLE renaming the table with other changes");
            };
            if one.affected == Affected::Changes {
                // Every copy of a rebuild copies the table's rows, and SQLite's count of the
                // last one stays the statement's through the DDL after it.
                affected = Affected::Changes;
            }
            suspends_foreign_keys |= one.suspends_foreign_keys;
            sql.extend(one.sql);
            table = changed;
        }
        Ok(Translation {
            affected,
            suspends_foreign_keys,
            ..ddl(sql, CatalogChange::Replace(table))
        })
    }

    /// One change of ALTER TABLE.
    fn alter_one(&mut self, table: Table, op: &AlterTableOperation) -> Result<Translation> {
        let quoted = self.sqlite_table(&table);
        let mut changed = table.clone();
        let default_collation = Collation::Ci;
        let sql = match op {
            AlterTableOperation::AddColumn {
                column_def,
                column_position,
                ..
            } => {
                let (column, def, pk, unique) = self.column_def(column_def, default_collation)?;
                if pk || unique || column.auto_increment || column.on_update_now {
                    return unsupported("ADD COLUMN with a key, AUTO_INCREMENT or ON UPDATE");
                }
                if table.column(&column.name).is_some() {
                    return Err(TranslateError::DuplicateColumn(column.name));
                }
                if let Some(position) = column_position {
                    return self.add_column_at(table, column, position);
                }
                let def = if column.not_null && !def.contains(" DEFAULT ") {
                    // MySQL fills existing rows with the type's implicit default.
                    format!("{def} NOT NULL DEFAULT {}", implicit_default(&column.ty))
                } else if column.not_null {
                    format!("{def} NOT NULL")
                } else {
                    def
                };
                changed.columns.push(column);
                vec![format!("ALTER TABLE {quoted} ADD COLUMN {def}")]
            }
            AlterTableOperation::DropColumn {
                column_names,
                if_exists: false,
                ..
            } => {
                let [c] = column_names.as_slice() else {
                    return unsupported("DROP COLUMN of several columns");
                };
                let Some(at) = changed
                    .columns
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(&c.value))
                else {
                    return Err(TranslateError::NoSuchIndex(c.value.clone()));
                };
                if changed.columns.iter().any(|c| c.generated.is_some()) {
                    return unsupported("DROP COLUMN of a table with generated columns");
                }
                // MariaDB drops the checks that read only the column with it (a JSON column's
                // validity check among them), and refuses to drop a column another check reads
                // too; SQLite cannot drop a column a CHECK names, so the table is rebuilt.
                let named = ident(&changed.columns[at].name).to_ascii_lowercase();
                if changed
                    .checks
                    .iter()
                    .any(|(_, sql)| sql.to_ascii_lowercase().contains(&named))
                {
                    return self.drop_checked_column(table, at);
                }
                let column = changed.columns.remove(at);
                vec![format!(
                    "ALTER TABLE {quoted} DROP COLUMN {}",
                    ident(&column.name)
                )]
            }
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let Some(c) = changed
                    .columns
                    .iter_mut()
                    .find(|x| x.name.eq_ignore_ascii_case(&old_column_name.value))
                else {
                    return Err(TranslateError::UnknownColumn(
                        old_column_name.value.clone(),
                        "field list",
                    ));
                };
                c.name = new_column_name.value.clone();
                if changed.columns.iter().any(|c| c.generated.is_some()) {
                    return unsupported("RENAME COLUMN of a table with generated columns");
                }
                // The printed checks name the old column; SHOW CREATE TABLE refuses without
                // them rather than write it.
                changed.checks_shown.clear();
                let keys =
                    changed
                        .primary_key
                        .iter_mut()
                        .chain(changed.indexes.iter_mut().flat_map(|i| {
                            i.columns
                                .iter_mut()
                                .chain(i.prefixes.iter_mut().map(|(c, _)| c))
                        }));
                for key in keys {
                    if key.eq_ignore_ascii_case(&old_column_name.value) {
                        key.clone_from(&new_column_name.value);
                    }
                }
                vec![format!(
                    "ALTER TABLE {quoted} RENAME COLUMN {} TO {}",
                    ident(&old_column_name.value),
                    ident(&new_column_name.value)
                )]
            }
            AlterTableOperation::RenameTable { table_name } => {
                let to = match table_name {
                    sqlparser::ast::RenameTableNameKind::As(n)
                    | sqlparser::ast::RenameTableNameKind::To(n) => {
                        self.rename_target(&table, n)?
                    }
                };
                let mut sql = vec![format!("ALTER TABLE {quoted} RENAME TO {}", ident(&to))];
                let rename = CatalogChange::Rename {
                    database: table.database.clone(),
                    from: table.name.clone(),
                    to: to.clone(),
                };
                let change = match self.checks_under_new_name(&table, &to) {
                    Some((renamed, changed)) => {
                        sql.extend(self.rebuild_keeping_rows(&renamed, &changed));
                        CatalogChange::Several(vec![rename, CatalogChange::Replace(changed)])
                    }
                    None => rename,
                };
                return Ok(ddl(sql, change));
            }
            AlterTableOperation::AddConstraint {
                constraint: TableConstraint::Index(i),
                ..
            } => {
                let columns = index_columns(&i.columns, false)?;
                let prefixes = index_prefixes(&i.columns);
                // MySQL names an unnamed index after its first column (`a`, then `a_2`, …).
                let name = match &i.name {
                    Some(n) => n.value.clone(),
                    None => unique_index_name(&table, columns.first().map_or("", String::as_str)),
                };
                return self.add_index(table, &name, columns, prefixes, false);
            }
            AlterTableOperation::AddConstraint {
                constraint: TableConstraint::Unique(u),
                ..
            } => {
                let columns = index_columns(&u.columns, true)?;
                let name = match u.name.as_ref().or(u.index_name.as_ref()) {
                    Some(n) => n.value.clone(),
                    None => unique_index_name(&table, columns.first().map_or("", String::as_str)),
                };
                return self.add_index(table, &name, columns, Vec::new(), true);
            }
            AlterTableOperation::DropIndex { name } => {
                return self.drop_index(table, &name.value);
            }
            AlterTableOperation::DropForeignKey {
                name,
                drop_behavior: None,
            } => return self.drop_foreign_key(table, &name.value),
            AlterTableOperation::ModifyColumn {
                col_name,
                data_type,
                options,
                column_position,
            } => {
                return self.rebuild_column(
                    table,
                    &col_name.value,
                    &column_definition(col_name, data_type, options),
                    column_position.as_ref(),
                );
            }
            AlterTableOperation::ChangeColumn {
                old_name,
                new_name,
                data_type,
                options,
                column_position,
            } => {
                return self.rebuild_column(
                    table,
                    &old_name.value,
                    &column_definition(new_name, data_type, options),
                    column_position.as_ref(),
                );
            }
            AlterTableOperation::AddConstraint {
                constraint: TableConstraint::ForeignKey(fk),
                ..
            } => return self.add_foreign_key(table, fk),
            AlterTableOperation::AddConstraint {
                constraint: TableConstraint::PrimaryKey(pk),
                ..
            } => {
                let columns = index_columns(&pk.columns, true)?;
                return self.set_primary_key(table, Some(columns));
            }
            AlterTableOperation::DropPrimaryKey {
                drop_behavior: None,
            } => {
                return self.set_primary_key(table, None);
            }
            AlterTableOperation::AlterColumn {
                column_name,
                op:
                    op @ (sqlparser::ast::AlterColumnOperation::SetDefault { .. }
                    | sqlparser::ast::AlterColumnOperation::DropDefault),
            } => return self.alter_default(table, &column_name.value, op),
            other => {
                return unsupported(format!("ALTER TABLE {}", first_words(&other.to_string())));
            }
        };
        Ok(ddl(sql, CatalogChange::Replace(changed)))
    }

    /// A foreign key of table `name` in `database`: its SQLite constraint and the text SHOW
    /// CREATE TABLE gives it (an unnamed one is `<table>_ibfk_<n>`, numbered past the table's
    /// others), both added to `table`.
    fn foreign_key(
        &mut self,
        table: &mut Table,
        database: &str,
        name: &str,
        fk: &sqlparser::ast::ForeignKeyConstraint,
    ) -> Result<()> {
        let action = |a: &Option<ReferentialAction>| {
            a.as_ref()
                .map(|a| a.to_string())
                .unwrap_or_else(|| "NO ACTION".into())
        };
        let own: Vec<String> = fk.columns.iter().map(|c| ident(&c.value)).collect();
        let theirs: Vec<String> = fk
            .referred_columns
            .iter()
            .map(|c| ident(&c.value))
            .collect();
        // An unqualified parent is in the new table's database, as MySQL resolves
        // it; SQLite's REFERENCES names a table of the same database file.
        let (target_database, target) = if fk.foreign_table.0.len() == 1 {
            (database.to_string(), last_name(&fk.foreign_table)?)
        } else {
            self.located(&fk.foreign_table)?
        };
        if !target_database.eq_ignore_ascii_case(database) {
            return unsupported("a foreign key to a table of another database");
        }
        if target != name
            && self.catalog.foreign_key_checks()
            && self.catalog.table(Some(database), &target).is_none()
        {
            return unsupported("a foreign key to a missing table");
        }
        table.foreign_keys.push(format!(
            "FOREIGN KEY ({}) REFERENCES {} ({}) ON DELETE {} ON UPDATE {}",
            own.join(", "),
            ident(&target),
            theirs.join(", "),
            action(&fk.on_delete),
            action(&fk.on_update)
        ));
        let constraint = match &fk.name {
            Some(n) => n.value.clone(),
            None => {
                let prefix = format!("{name}_ibfk_");
                let next = table
                    .foreign_keys_shown
                    .iter()
                    .filter_map(|shown| {
                        let rest = shown.strip_prefix("CONSTRAINT `")?;
                        let (n, _) = rest.split_once('`')?;
                        n.strip_prefix(&prefix)?.parse::<u32>().ok()
                    })
                    .max()
                    .unwrap_or(0)
                    + 1;
                format!("{prefix}{next}")
            }
        };
        let listed = |columns: &[sqlparser::ast::Ident]| {
            columns
                .iter()
                .map(|c| backquoted(&c.value))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut shown = format!(
            "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
            backquoted(&constraint),
            listed(&fk.columns),
            backquoted(&target),
            listed(&fk.referred_columns)
        );
        // RESTRICT, InnoDB's default, is not written.
        for (clause, a) in [("DELETE", &fk.on_delete), ("UPDATE", &fk.on_update)] {
            if let Some(a) = a
                && *a != ReferentialAction::Restrict
            {
                shown.push_str(&format!(" ON {clause} {a}"));
            }
        }
        table.foreign_keys_shown.push(shown);
        Ok(())
    }

    /// `ALTER TABLE … ADD [CONSTRAINT name] FOREIGN KEY …`: SQLite keeps foreign keys in a
    /// table's declaration, so the table is built again with the rows as they are (a row
    /// without its parent fails the copy while checks are on); the key's index is made unless
    /// another key starts with its columns. MySQL counts the rows it copies.
    fn add_foreign_key(
        &mut self,
        table: Table,
        fk: &sqlparser::ast::ForeignKeyConstraint,
    ) -> Result<Translation> {
        // The copy must check the new key on every row, which it does only while foreign keys
        // are enforced.
        if self.referenced_rebuild(&table, "ADD FOREIGN KEY", &[])? {
            return unsupported("ADD FOREIGN KEY to a table other tables' foreign keys reference");
        }
        let mut changed = table.clone();
        let database = table.database.clone();
        self.foreign_key(&mut changed, &database, &table.name, fk)?;
        let columns: Vec<String> = fk.columns.iter().map(|c| c.value.clone()).collect();
        for c in &columns {
            if table.column(c).is_none() {
                return Err(TranslateError::KeyColumn(c.clone()));
            }
        }
        let starts_with = |key: &[String]| {
            key.len() >= columns.len()
                && key
                    .iter()
                    .zip(&columns)
                    .all(|(k, c)| k.eq_ignore_ascii_case(c))
        };
        // A key another index (not one generated for a foreign key) serves has none of its
        // own; otherwise it gets its generated index, which replaces the generated ones it
        // serves, as InnoDB's does.
        if !starts_with(&table.primary_key)
            && !table
                .indexes
                .iter()
                .any(|i| !i.generated && starts_with(&i.columns))
        {
            changed.indexes.retain(|i| {
                !(i.generated && starts_with(&i.columns) && i.columns.len() == columns.len())
            });
            let wanted = fk
                .index_name
                .as_ref()
                .or(fk.name.as_ref())
                .map_or_else(|| columns[0].clone(), |n| n.value.clone());
            let index_name = unique_index_name(&changed, &wanted);
            changed.indexes.push(Index {
                sqlite_name: format!("{}.{index_name}", table.name),
                name: index_name,
                unique: false,
                columns: declared_names(&table, &columns),
                prefixes: Vec::new(),
                generated: true,
            });
        }
        let sql = self.rebuild_keeping_rows(&table, &changed);
        Ok(Translation {
            affected: Affected::Changes,
            ..ddl(sql, CatalogChange::Replace(changed))
        })
    }

    /// `ALTER TABLE … DROP FOREIGN KEY name`: SQLite keeps foreign keys in a table's
    /// declaration, so the table is built again without it, with the rows as they are; the
    /// key's index stays, as InnoDB keeps it, and MySQL drops the key in place (no rows
    /// counted). A name no foreign key of the table has is 1091.
    fn drop_foreign_key(&mut self, table: Table, name: &str) -> Result<Translation> {
        let named = |shown: &String| {
            shown
                .strip_prefix("CONSTRAINT `")
                .and_then(|rest| rest.split_once('`'))
                .is_some_and(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        let Some(at) = table.foreign_keys_shown.iter().position(named) else {
            return Err(TranslateError::NoSuchForeignKey(name.to_string()));
        };
        if table.foreign_keys.len() != table.foreign_keys_shown.len() {
            return unsupported("DROP FOREIGN KEY of a table whose keys the catalog does not pair");
        }
        let suspends_foreign_keys = self.referenced_rebuild(&table, "DROP FOREIGN KEY", &[])?;
        let mut changed = table.clone();
        changed.foreign_keys.remove(at);
        changed.foreign_keys_shown.remove(at);
        let sql = self.rebuild_keeping_rows(&table, &changed);
        Ok(Translation {
            affected: Affected::Zero,
            suspends_foreign_keys,
            ..ddl(sql, CatalogChange::Replace(changed))
        })
    }

    /// Whether other tables' foreign keys reference `table`, so that building it again runs
    /// with foreign key enforcement suspended ([`Translation::suspends_foreign_keys`]). The
    /// rebuild's copy then checks no key, so the columns it converts (`changing`) may be
    /// neither ones those keys reference nor the table's own foreign key columns (1235 naming
    /// `what`): every other column is copied as it is.
    fn referenced_rebuild(&self, table: &Table, what: &str, changing: &[&str]) -> Result<bool> {
        let Some(others) = self.catalog.tables(&table.database) else {
            return unsupported(format!("{what} on a catalog that cannot list its tables"));
        };
        let referenced: Vec<String> = others
            .iter()
            .filter(|t| !t.name.eq_ignore_ascii_case(&table.name))
            .flat_map(|t| t.foreign_keys.iter())
            .filter_map(|declared| foreign_key_parts(declared))
            .filter(|(_, parent, _)| parent.eq_ignore_ascii_case(&table.name))
            .flat_map(|(_, _, theirs)| theirs)
            .collect();
        if referenced.is_empty() {
            return Ok(false);
        }
        let own = table
            .foreign_keys
            .iter()
            .filter_map(|declared| foreign_key_parts(declared))
            .flat_map(|(own, _, _)| own);
        let keyed: Vec<String> = referenced.into_iter().chain(own).collect();
        if changing
            .iter()
            .any(|c| keyed.iter().any(|k| k.eq_ignore_ascii_case(c)))
        {
            return unsupported(format!(
                "{what} of a foreign key column in a table other tables' foreign keys reference"
            ));
        }
        Ok(true)
    }

    /// `ALTER TABLE … ALTER COLUMN c SET DEFAULT v | DROP DEFAULT`: SQLite keeps a column's
    /// default in its declaration, so the table is built again with the rows as they are. A
    /// nullable column without a default defaults to NULL, as in MariaDB; MySQL changes only
    /// the definition and counts no rows.
    fn alter_default(
        &mut self,
        table: Table,
        name: &str,
        op: &sqlparser::ast::AlterColumnOperation,
    ) -> Result<Translation> {
        let Some(at) = table
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
        else {
            return Err(TranslateError::UnknownColumn(
                name.to_string(),
                "field list",
            ));
        };
        // Only the declaration changes: every row is copied as it is.
        let suspends_foreign_keys = self.referenced_rebuild(&table, "ALTER COLUMN", &[])?;
        let mut changed = table.clone();
        let old = table.columns[at].clone();
        if old.auto_increment {
            return unsupported("ALTER COLUMN … DEFAULT of the AUTO_INCREMENT column");
        }
        let column = &mut changed.columns[at];
        match op {
            sqlparser::ast::AlterColumnOperation::SetDefault { value } => {
                let default = self.default_value(value, &old)?;
                column.default = (default != "NULL").then_some(default);
                if column.default.is_none() && column.not_null {
                    return Err(TranslateError::InvalidDefault(old.name.clone()));
                }
                column.has_default = true;
            }
            _ => {
                column.default = None;
                column.has_default = !column.not_null;
            }
        }
        let sql = self.rebuild_keeping_rows(&table, &changed);
        Ok(Translation {
            affected: Affected::Zero,
            suspends_foreign_keys,
            ..ddl(sql, CatalogChange::Replace(changed))
        })
    }

    /// `ALTER TABLE … MODIFY/CHANGE COLUMN`: SQLite cannot change a column's declaration, so
    /// the table is built again from the catalog's definition with the new column: created
    /// under a temporary name, filled with the rows (the changed column's values stored as an
    /// UPDATE would store them, failing as strict mode does), its AUTO_INCREMENT sequence moved
    /// over, the old table dropped and the new one renamed, then its indexes and triggers
    /// created again. Dropping a table other tables' foreign keys reference would act on
    /// theirs, so that is refused, as is a change of the column's keys or AUTO_INCREMENT.
    fn rebuild_column(
        &mut self,
        table: Table,
        old_name: &str,
        def: &sqlparser::ast::ColumnDef,
        position: Option<&sqlparser::ast::MySQLColumnPosition>,
    ) -> Result<Translation> {
        let Some(at) = table
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(old_name))
        else {
            return Err(TranslateError::UnknownColumn(
                old_name.to_string(),
                "field list",
            ));
        };
        let old = table.columns[at].clone();
        let collation = table
            .options
            .iter()
            .find(|(k, _)| k.contains("COLLATE"))
            .and_then(|(_, v)| Collation::from_mysql_name(v))
            .unwrap_or(Collation::Ci);
        let (mut column, _, pk, unique) = self.column_def(def, collation)?;
        if pk || unique {
            return unsupported("MODIFY COLUMN with a key");
        }
        if column.auto_increment != old.auto_increment
            || (column.auto_increment && !matches!(column.ty, ColumnType::Int { .. }))
        {
            return unsupported("MODIFY COLUMN changing AUTO_INCREMENT");
        }
        let renamed = !column.name.eq_ignore_ascii_case(&old.name);
        if renamed && table.column(&column.name).is_some() {
            return Err(TranslateError::DuplicateColumn(column.name));
        }
        let suspends_foreign_keys =
            self.referenced_rebuild(&table, "MODIFY COLUMN", &[old.name.as_str()])?;
        if renamed
            && table.foreign_keys.iter().any(|f| {
                f.to_ascii_lowercase()
                    .contains(&ident(&old.name).to_ascii_lowercase())
            })
        {
            return unsupported("CHANGE COLUMN renaming a column of a foreign key");
        }
        if !table.checks.is_empty() && (renamed || column.ty != old.ty) {
            return unsupported("MODIFY COLUMN of a table with CHECK constraints");
        }
        if table.columns.iter().any(|c| c.generated.is_some()) {
            return unsupported("MODIFY or CHANGE COLUMN of a table with generated columns");
        }
        let is_old = |c: &String| c.eq_ignore_ascii_case(&old.name);
        if table.primary_key.iter().any(is_old) {
            column.not_null = true;
            column.has_default = column.default.is_some() || column.auto_increment;
        }
        let mut changed = table.clone();
        changed.columns.remove(at);
        let to = match position {
            None => at,
            Some(sqlparser::ast::MySQLColumnPosition::First) => 0,
            Some(sqlparser::ast::MySQLColumnPosition::After(after)) => {
                changed
                    .columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(&after.value))
                    .ok_or_else(|| {
                        TranslateError::UnknownColumn(after.value.clone(), "field list")
                    })?
                    + 1
            }
        };
        changed.columns.insert(to, column.clone());
        let keys = changed
            .primary_key
            .iter_mut()
            .chain(changed.indexes.iter_mut().flat_map(|i| {
                i.columns
                    .iter_mut()
                    .chain(i.prefixes.iter_mut().map(|(c, _)| c))
            }));
        for key in keys {
            if is_old(key) {
                key.clone_from(&column.name);
            }
        }
        let source = Typed {
            strength: Strength::Column,
            unsigned: old.ty.is_unsigned(),
            ..Typed::new(ident(&old.name), old.ty.ty())
        };
        let (targets, values): (Vec<String>, Vec<String>) = changed
            .columns
            .iter()
            .map(|c| {
                let value = if c.name == column.name && c.not_null {
                    // A NULL the column may no longer hold is MySQL's truncation, at its row.
                    format!(
                        "my_alter_not_null({}, {}, \"xrpc_row\")",
                        store(&source, c, true, false, true),
                        quote(&c.name)
                    )
                } else if c.name == column.name {
                    store(&source, c, true, false, true)
                } else {
                    ident(&c.name)
                };
                (ident(&c.name), value)
            })
            .unzip();
        let sql = self.rebuild_sql(&table, &changed, &targets, &values);
        // MySQL counts the rows of a change that copies the table; one that changes only the
        // column's name, default or comment, or lengthens a VARCHAR whose length prefix stays
        // one byte (or two), is done in place and counts none.
        let in_place_type = match (&old.ty, &column.ty) {
            (
                ColumnType::VarChar {
                    length: a,
                    collation: x,
                },
                ColumnType::VarChar {
                    length: b,
                    collation: y,
                },
            ) => x == y && b >= a && ((*a <= 63) == (*b <= 63)),
            (
                ColumnType::Enum {
                    values: a,
                    collation: x,
                },
                ColumnType::Enum {
                    values: b,
                    collation: y,
                },
            ) => x == y && b.starts_with(a),
            (a, b) => a == b,
        };
        let copies = !in_place_type || column.not_null != old.not_null || to != at;
        Ok(Translation {
            affected: if copies {
                Affected::Changes
            } else {
                Affected::Zero
            },
            suspends_foreign_keys,
            ..ddl(sql, CatalogChange::Replace(changed))
        })
    }

    /// The statements that build `table` again as `changed`: created under a temporary name,
    /// filled with `values` (SQL over the old table's row, and `"xrpc_row"`, its number) for
    /// the `targets` columns, the AUTO_INCREMENT sequence moved over, the old table dropped and
    /// the new one renamed, its indexes and triggers created again.
    fn rebuild_sql(
        &self,
        table: &Table,
        changed: &Table,
        targets: &[String],
        values: &[String],
    ) -> Vec<String> {
        let schema = self.schema(&table.database);
        let building = format!("{}.rebuild", table.name);
        // A generated column computes its value itself.
        let (targets, values): (Vec<&String>, Vec<&String>) = targets
            .iter()
            .zip(values)
            .filter(|(target, _)| {
                !changed
                    .columns
                    .iter()
                    .any(|c| c.generated.is_some() && ident(&c.name) == **target)
            })
            .unzip();
        let targets: Vec<String> = targets.into_iter().cloned().collect();
        let values: Vec<String> = values.into_iter().cloned().collect();
        // The copy is the last statement that changes rows, so the statement's count is the
        // rows copied (the DDL after it leaves SQLite's count as it is). The AUTO_INCREMENT
        // sequence moves to the new table first, so the copy keeps it at no less than it was.
        let mut sql = vec![
            format!("DROP TABLE IF EXISTS {schema}.{}", ident(&building)),
            create_table_sql(&schema, &building, changed),
        ];
        if rowid_key(table).is_some() {
            sql.push(format!(
                "DELETE FROM {schema}.sqlite_sequence WHERE name = {}",
                quote(&building)
            ));
            sql.push(format!(
                "UPDATE {schema}.sqlite_sequence SET name = {} WHERE name = {}",
                quote(&building),
                quote(&table.name)
            ));
        }
        sql.push(format!(
            "INSERT INTO {schema}.{} ({}) SELECT {} FROM \
             (SELECT *, row_number() OVER (ORDER BY rowid) AS \"xrpc_row\" FROM {})",
            ident(&building),
            targets.join(", "),
            values.join(", "),
            self.sqlite_table(table)
        ));
        sql.push(format!("DROP TABLE {}", self.sqlite_table(table)));
        sql.push(format!(
            "ALTER TABLE {schema}.{} RENAME TO {}",
            ident(&building),
            ident(&table.name)
        ));
        sql.extend(
            changed
                .indexes
                .iter()
                .map(|i| create_index_sql(&schema, &changed.name, i)),
        );
        sql.extend(on_update_triggers(changed, &schema));
        sql
    }

    /// The statements that build `table` again as `changed` with every column's values as they
    /// are ([`Self::rebuild_sql`]).
    fn rebuild_keeping_rows(&self, table: &Table, changed: &Table) -> Vec<String> {
        let targets: Vec<String> = changed.columns.iter().map(|c| ident(&c.name)).collect();
        self.rebuild_sql(table, changed, &targets, &targets)
    }

    /// `ADD COLUMN … FIRST/AFTER c`: SQLite adds columns only at the end, so the table is
    /// built again with the new column in its place, holding its default (or the type's
    /// implicit one for a NOT NULL column without one, as MySQL fills existing rows). MySQL
    /// adds it in place: no rows counted.
    fn add_column_at(
        &mut self,
        table: Table,
        column: Column,
        position: &sqlparser::ast::MySQLColumnPosition,
    ) -> Result<Translation> {
        // The table's CHECK constraints go with it: none can name the new column, so the
        // copied rows meet them as they did.
        let suspends_foreign_keys =
            self.referenced_rebuild(&table, "ADD COLUMN … FIRST/AFTER", &[])?;
        let at = match position {
            sqlparser::ast::MySQLColumnPosition::First => 0,
            sqlparser::ast::MySQLColumnPosition::After(after) => {
                table
                    .columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(&after.value))
                    .ok_or_else(|| {
                        TranslateError::UnknownColumn(after.value.clone(), "field list")
                    })?
                    + 1
            }
        };
        let filled = match &column.default {
            Some(default) => default.clone(),
            None if column.not_null => implicit_default(&column.ty),
            None => "NULL".into(),
        };
        let mut changed = table.clone();
        changed.columns.insert(at, column.clone());
        let (targets, values): (Vec<String>, Vec<String>) = changed
            .columns
            .iter()
            .map(|c| {
                let value = if c.name == column.name {
                    filled.clone()
                } else {
                    ident(&c.name)
                };
                (ident(&c.name), value)
            })
            .unzip();
        let sql = self.rebuild_sql(&table, &changed, &targets, &values);
        Ok(Translation {
            suspends_foreign_keys,
            ..ddl(sql, CatalogChange::Replace(changed))
        })
    }

    /// `DROP COLUMN` of the `at`th column of `table`, which a CHECK reads: the checks that
    /// read only it go with it, as MariaDB drops them, and the table is built again without
    /// them; a check that reads another column too is MariaDB's 1054. Without the columns each
    /// check reads (a definition kept before they were), it is refused.
    fn drop_checked_column(&mut self, table: Table, at: usize) -> Result<Translation> {
        let column = table.columns[at].name.clone();
        let known = table.checks_shown.len() == table.checks.len()
            && table.checks_shown.iter().all(|c| !c.columns.is_empty());
        if !known {
            return unsupported("DROP COLUMN of a column a CHECK constraint reads");
        }
        let reads = |c: &ShownCheck| c.columns.iter().any(|r| r.eq_ignore_ascii_case(&column));
        if table
            .checks_shown
            .iter()
            .any(|c| reads(c) && c.columns.len() > 1)
        {
            return Err(TranslateError::UnknownColumn(column, "CHECK"));
        }
        let keyed = table
            .primary_key
            .iter()
            .any(|k| k.eq_ignore_ascii_case(&column))
            || table
                .indexes
                .iter()
                .any(|i| i.columns.iter().any(|c| c.eq_ignore_ascii_case(&column)))
            || table.foreign_keys.iter().any(|f| {
                f.to_ascii_lowercase()
                    .contains(&ident(&column).to_ascii_lowercase())
            });
        if keyed {
            return unsupported("DROP COLUMN of a key's column that a CHECK constraint reads");
        }
        let suspends_foreign_keys =
            self.referenced_rebuild(&table, "DROP COLUMN", &[column.as_str()])?;
        let mut changed = table.clone();
        changed.columns.remove(at);
        let kept: Vec<bool> = table.checks_shown.iter().map(|c| !reads(c)).collect();
        let mut keep = kept.iter();
        changed
            .checks
            .retain(|_| *keep.next().expect("one per check"));
        let mut keep = kept.iter();
        changed
            .checks_shown
            .retain(|_| *keep.next().expect("one per check"));
        let sql = self.rebuild_keeping_rows(&table, &changed);
        Ok(Translation {
            suspends_foreign_keys,
            ..ddl(sql, CatalogChange::Replace(changed))
        })
    }

    /// `ADD PRIMARY KEY (columns)` (`Some`) or `DROP PRIMARY KEY` (`None`): the table built
    /// again with the new key. A key's columns become NOT NULL and stay so when it is dropped,
    /// as in MySQL; the foreign keys' generated indexes the new key starts with are dropped, as
    /// InnoDB drops them. Adding one where there is one is MySQL's 1068; dropping one an
    /// AUTO_INCREMENT column needs is refused.
    fn set_primary_key(
        &mut self,
        table: Table,
        columns: Option<Vec<String>>,
    ) -> Result<Translation> {
        let mut changed = table.clone();
        match columns {
            Some(columns) => {
                if !table.primary_key.is_empty() {
                    return Err(TranslateError::MultiplePrimaryKey);
                }
                for c in &columns {
                    let Some(column) = changed
                        .columns
                        .iter_mut()
                        .find(|x| x.name.eq_ignore_ascii_case(c))
                    else {
                        return Err(TranslateError::KeyColumn(c.clone()));
                    };
                    if column.generated.is_some() {
                        return unsupported("a generated column in the PRIMARY KEY");
                    }
                    column.not_null = true;
                    column.has_default = column.default.is_some() || column.auto_increment;
                }
                if columns.is_empty() {
                    return unsupported("ADD PRIMARY KEY without columns");
                }
                changed.primary_key = declared_names(&table, &columns);
                // The key serves the foreign keys' generated indexes it starts with, as a
                // secondary index would.
                let key = Index {
                    sqlite_name: String::new(),
                    name: "PRIMARY".into(),
                    unique: true,
                    columns: changed.primary_key.clone(),
                    prefixes: Vec::new(),
                    generated: false,
                };
                let schema = self.table_schema(&table);
                let _ = drop_served_generated(&mut changed, &key, &schema);
            }
            None => {
                if table.primary_key.is_empty() {
                    return Err(TranslateError::NoSuchIndex("PRIMARY".into()));
                }
                if table.columns.iter().any(|c| c.auto_increment) {
                    return unsupported(
                        "DROP PRIMARY KEY of a table with an AUTO_INCREMENT column",
                    );
                }
                changed.primary_key.clear();
            }
        }
        let suspends_foreign_keys =
            self.referenced_rebuild(&table, "ADD or DROP PRIMARY KEY", &[])?;
        // InnoDB adds a primary key in place (0 rows affected) but copies the table to drop
        // one (every row affected), as the rebuild's copy counts them.
        let dropped = changed.primary_key.is_empty();
        let sql = self.rebuild_keeping_rows(&table, &changed);
        let translation = ddl(sql, CatalogChange::Replace(changed));
        Ok(Translation {
            suspends_foreign_keys,
            affected: if dropped {
                Affected::Changes
            } else {
                translation.affected
            },
            ..translation
        })
    }

    fn add_index(
        &mut self,
        table: Table,
        name: &str,
        columns: Vec<String>,
        prefixes: Vec<(String, u32)>,
        unique: bool,
    ) -> Result<Translation> {
        if table
            .indexes
            .iter()
            .any(|i| i.name.eq_ignore_ascii_case(name))
        {
            return Err(TranslateError::DuplicateKey(name.to_string()));
        }
        for c in &columns {
            if table.column(c).is_none() {
                return Err(TranslateError::KeyColumn(c.clone()));
            }
        }
        let index = Index {
            sqlite_name: format!("{}.{name}", table.name),
            name: name.to_string(),
            unique,
            columns: declared_names(&table, &columns),
            prefixes,
            generated: false,
        };
        let schema = self.table_schema(&table);
        let mut sql = vec![create_index_sql(&schema, &table.name, &index)];
        let mut changed = table;
        sql.extend(drop_served_generated(&mut changed, &index, &schema));
        changed.indexes.push(index);
        Ok(ddl(sql, CatalogChange::Replace(changed)))
    }
}

/// Drops from `table` the indexes generated for its foreign keys that `index` now serves (its
/// columns start with theirs), as InnoDB drops them: the SQL that drops them.
fn drop_served_generated(table: &mut Table, index: &Index, schema: &str) -> Vec<String> {
    let served = |i: &Index| {
        i.generated
            && i.columns.len() <= index.columns.len()
            && i.columns
                .iter()
                .zip(&index.columns)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
    };
    let sql = table
        .indexes
        .iter()
        .filter(|i| served(i))
        .map(|i| format!("DROP INDEX {schema}.{}", ident(&i.sqlite_name)))
        .collect();
    table.indexes.retain(|i| !served(i));
    sql
}

/// Whether `expr` may read column `column` of the table an UPDATE names `refer` (its alias, or
/// `table`, its name): an unqualified name of the column anywhere in it, subqueries included,
/// or one qualified by either name. Errs towards yes.
fn may_read_column(expr: &Expr, refer: &str, table: &str, column: &str) -> bool {
    let found = sqlparser::ast::visit_expressions(expr, |e| {
        let reads = match e {
            Expr::Identifier(name) => name.value.eq_ignore_ascii_case(column),
            Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [.., qualifier, name] => {
                    name.value.eq_ignore_ascii_case(column)
                        && (qualifier.value.eq_ignore_ascii_case(refer)
                            || qualifier.value.eq_ignore_ascii_case(table))
                }
                _ => false,
            },
            _ => false,
        };
        if reads {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    found.is_break()
}

/// The parts of a foreign key as the translation declares it (`FOREIGN KEY ("a", …)
/// REFERENCES "p" ("id", …) …`): its columns, the parent table and the parent's columns.
fn foreign_key_parts(declared: &str) -> Option<(Vec<String>, String, Vec<String>)> {
    let (own, rest) = quoted_list(declared.strip_prefix("FOREIGN KEY (")?)?;
    let (parent, rest) = quoted_ident(rest.strip_prefix(" REFERENCES ")?)?;
    let (theirs, _) = quoted_list(rest.strip_prefix(" (")?)?;
    Some((own, parent, theirs))
}

/// A double-quoted identifier as [`ident`] writes it at the start of `text`, and the rest.
fn quoted_ident(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '"' {
            name.push(c);
        } else if body[at + 1..].starts_with('"') {
            name.push('"');
            chars.next();
        } else {
            return Some((name, &body[at + 1..]));
        }
    }
    None
}

/// `"a", "b")` at the start of `text`: the names, and the rest after the parenthesis.
fn quoted_list(mut text: &str) -> Option<(Vec<String>, &str)> {
    let mut names = Vec::new();
    loop {
        let (name, rest) = quoted_ident(text)?;
        names.push(name);
        match rest.strip_prefix(", ") {
            Some(next) => text = next,
            None => return Some((names, rest.strip_prefix(')')?)),
        }
    }
}

/// CREATE TABLE IF NOT EXISTS of a table that exists: nothing to do, and MySQL's note.
fn already_exists(create: &CreateTable) -> Translation {
    let name = create
        .name
        .0
        .last()
        .map(|part| part.to_string().trim_matches('`').to_string())
        .unwrap_or_default();
    Translation {
        notes: vec![(1050, format!("Table '{name}' already exists"))],
        ..nothing()
    }
}

/// A statement SQLite has nothing to do for.
fn nothing() -> Translation {
    Translation {
        sql: Vec::new(),
        columns: Vec::new(),
        affected: Affected::Zero,
        change: None,
        reserves: None,
        explicit_auto_increment: false,
        found_rows: None,
        into: Vec::new(),
        suspends_foreign_keys: false,
        foreign_key_failure_is_parents: false,
        notes: Vec::new(),
        reads: Vec::new(),
    }
}

fn ddl(sql: Vec<String>, change: CatalogChange) -> Translation {
    Translation {
        sql,
        columns: Vec::new(),
        affected: Affected::Zero,
        change: Some(change),
        reserves: None,
        explicit_auto_increment: false,
        found_rows: None,
        into: Vec::new(),
        suspends_foreign_keys: false,
        foreign_key_failure_is_parents: false,
        notes: Vec::new(),
        reads: Vec::new(),
    }
}

/// How a view's definition treats a view of its name.
#[derive(Debug, Clone, Copy)]
enum ViewMode {
    /// CREATE VIEW: none may exist.
    Create,
    /// CREATE OR REPLACE VIEW: a view's definition is replaced.
    Replace,
    /// ALTER VIEW: the view must exist.
    Alter,
}

/// A view's SELECT parsed from its kept text.
pub(crate) fn parse_view_query(text: &str) -> Option<Query> {
    let parsed = xrpc_sql::parse_one_statement(text, &xrpc_sql::Options::default()).ok()?;
    match parsed.statement() {
        Some(Statement::Query(q)) => Some(q.as_ref().clone()),
        _ => None,
    }
}

/// When a query's columns are its tables' columns as declared, the names (as the query refers
/// to them) of the FROM items whose columns an outer join makes nullable; `None` when they are
/// not (a set operation, a derived table with an outer join of its own, a FROM item that is
/// not a table, derived table or join of them, or a RIGHT JOIN whose USING or NATURAL columns
/// come from its right side).
fn declared_columns(
    query: &Query,
    outer_join_view: &dyn Fn(&ObjectName) -> bool,
) -> Option<Vec<String>> {
    type OuterJoinView<'a> = &'a dyn Fn(&ObjectName) -> bool;
    fn factor(
        f: &TableFactor,
        nullable: &mut Vec<String>,
        outer_join_view: OuterJoinView,
    ) -> Option<Vec<String>> {
        match f {
            // A view's column is known nullable only from the view's own SELECT.
            TableFactor::Table { name, .. } if outer_join_view(name) => None,
            TableFactor::Table { name, alias, .. } => {
                Some(vec![crate::from::refer_name(name, alias.as_ref())?])
            }
            TableFactor::Derived {
                subquery,
                alias: Some(alias),
                ..
            } if declared_columns(subquery, outer_join_view)?.is_empty() => {
                Some(vec![alias.name.value.clone()])
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => joined(table_with_joins, nullable, outer_join_view),
            _ => None,
        }
    }
    fn joined(
        twj: &TableWithJoins,
        nullable: &mut Vec<String>,
        outer_join_view: OuterJoinView,
    ) -> Option<Vec<String>> {
        let mut names = factor(&twj.relation, nullable, outer_join_view)?;
        for join in &twj.joins {
            let right = factor(&join.relation, nullable, outer_join_view)?;
            match &join.join_operator {
                inner if crate::from::is_inner_join(inner) => {}
                JoinOperator::Left(_) | JoinOperator::LeftOuter(_) => {
                    nullable.extend(right.iter().cloned());
                }
                JoinOperator::Right(c) | JoinOperator::RightOuter(c)
                    if !matches!(c, JoinConstraint::Using(_) | JoinConstraint::Natural) =>
                {
                    nullable.extend(names.iter().cloned());
                }
                _ => return None,
            }
            names.extend(right);
        }
        Some(names)
    }
    match query.body.as_ref() {
        SetExpr::Select(select) => {
            let mut nullable = Vec::new();
            for twj in &select.from {
                joined(twj, &mut nullable, outer_join_view)?;
            }
            Some(nullable)
        }
        SetExpr::Query(q) => declared_columns(q, outer_join_view),
        _ => None,
    }
}

/// Whether a query has an outer join anywhere (in a subquery or derived table too), or reads
/// a table for which `outer_join_view` holds.
fn has_outer_join(query: &Query, outer_join_view: &dyn Fn(&ObjectName) -> bool) -> bool {
    struct Finder<'a>(&'a dyn Fn(&ObjectName) -> bool);
    fn outer(twj: &TableWithJoins) -> bool {
        let nested = |f: &TableFactor| match f {
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => outer(table_with_joins),
            _ => false,
        };
        nested(&twj.relation)
            || twj
                .joins
                .iter()
                .any(|j| nested(&j.relation) || !crate::from::is_inner_join(&j.join_operator))
    }
    impl sqlparser::ast::Visitor for Finder<'_> {
        type Break = ();
        fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
            if select.from.iter().any(outer) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
        fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
            if (self.0)(relation) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    sqlparser::ast::Visit::visit(query, &mut Finder(outer_join_view)).is_break()
}

/// The first name that appears twice (case-insensitive, as MySQL's column names compare).
fn first_duplicate(names: &[String]) -> Option<String> {
    names.iter().enumerate().find_map(|(i, n)| {
        names[..i]
            .iter()
            .any(|m| m.eq_ignore_ascii_case(n))
            .then(|| n.clone())
    })
}

/// A column type holding an expression's values, for a view's computed column.
fn column_type_of(ty: Ty) -> ColumnType {
    match ty {
        Ty::Int => ColumnType::Int {
            min: i64::MIN,
            max: i64::MAX,
        },
        Ty::Decimal(scale) => ColumnType::Decimal {
            precision: 65,
            scale,
            unsigned: false,
        },
        Ty::Double => ColumnType::Double,
        Ty::Float => ColumnType::Float,
        Ty::Bytes => ColumnType::Bytes {
            length: u32::MAX,
            fixed: false,
        },
        Ty::Date => ColumnType::Date,
        Ty::DateTime => ColumnType::DateTime {
            fsp: 6,
            timestamp: false,
        },
        Ty::Time => ColumnType::Time { fsp: 6 },
        Ty::Str(collation) => ColumnType::VarChar {
            length: u32::MAX,
            collation,
        },
        Ty::Null | Ty::Dyn => ColumnType::VarChar {
            length: u32::MAX,
            collation: Collation::Ci,
        },
    }
}

/// A set operation (UNION, INTERSECT, EXCEPT) of translated members. MySQL gives each column
/// of the result one type from all the members' (the first member names it), and converts
/// every member's values to it; [`SetTree::render`] does so where a member's type differs.
enum SetTree {
    Member(String, Vec<OutColumn>),
    Operation(&'static str, Box<SetTree>, Box<SetTree>),
}

impl SetTree {
    fn first_columns(&self) -> &[OutColumn] {
        match self {
            SetTree::Member(_, columns) => columns,
            SetTree::Operation(_, left, _) => left.first_columns(),
        }
    }

    fn members(&self) -> Vec<&[OutColumn]> {
        match self {
            SetTree::Member(_, columns) => vec![columns],
            SetTree::Operation(_, left, right) => {
                let mut all = left.members();
                all.extend(right.members());
                all
            }
        }
    }

    /// The type of each column of the result: every member's, unified.
    fn column_types(&self) -> Result<Vec<Ty>> {
        let members = self.members();
        let width = members[0].len();
        if members.iter().any(|m| m.len() != width) {
            return Err(TranslateError::Unsupported(
                "UNION of selects with different column counts".into(),
            ));
        }
        Ok((0..width)
            .map(|i| members.iter().fold(Ty::Null, |t, m| unify(t, m[i].ty)))
            .collect())
    }

    /// The SQL of the operation, whose result has `columns` (names and types).
    fn render(&self, columns: &[OutColumn]) -> Result<String> {
        let (op, left, right) = match self {
            SetTree::Member(sql, own) => return member_as(sql, own, columns),
            SetTree::Operation(op, left, right) => {
                (*op, left.render(columns)?, right.render(columns)?)
            }
        };
        let by_collation = columns
            .iter()
            .any(|c| matches!(c.ty, Ty::Str(_) | Ty::Decimal(_)));
        if !by_collation || op == "UNION ALL" {
            return Ok(format!("{left} {op} {right}"));
        }
        if op != "UNION" {
            return unsupported(format!("{op} of text or decimal columns"));
        }
        // MySQL removes duplicates under each column's collation and keeps the first of equal
        // rows, in the order rows come: group the rows of UNION ALL by collation-aware keys and
        // keep each group's first.
        let names: Vec<String> = (0..columns.len()).map(|i| format!("c{i}")).collect();
        let list = names
            .iter()
            .map(|n| ident(n))
            .collect::<Vec<_>>()
            .join(", ");
        let keys = names
            .iter()
            .zip(columns)
            .map(|(n, c)| format!("{}{}", ident(n), compare_suffix(c.ty)))
            .collect::<Vec<_>>()
            .join(", ");
        // Under the result's names: a derived table's columns are read by them.
        let shown = names
            .iter()
            .zip(columns)
            .map(|(n, c)| format!("{} AS {}", ident(n), ident(&c.name)))
            .collect::<Vec<_>>()
            .join(", ");
        Ok(format!(
            "SELECT {shown} FROM (WITH u({list}) AS ({left} UNION ALL {right}) \
             SELECT {list}, min(n) AS first FROM (SELECT *, row_number() OVER () AS n FROM u) \
             GROUP BY {keys})"
        ))
    }
}

/// A set operation's member with its values converted to the result's column types, under
/// the result's names (the first member's: SQLite names a compound's columns by it).
fn member_as(sql: &str, own: &[OutColumn], result: &[OutColumn]) -> Result<String> {
    let mut converted = Vec::with_capacity(own.len());
    let mut any = false;
    for (i, (column, to)) in own.iter().zip(result).enumerate() {
        let c = format!("c{i}");
        let value = match (column.ty, to.ty) {
            (from, to) if from == to => c.clone(),
            (Ty::Null, _) | (Ty::Decimal(_), Ty::Decimal(_)) | (Ty::Int, Ty::Double) => c.clone(),
            (Ty::Date, Ty::Str(_)) => c.clone(),
            // Decimal text at the union's scale, so it orders among the decimals.
            (Ty::Int, Ty::Decimal(s)) => format!("my_dec_key({c}, {s})"),
            (Ty::Decimal(_), Ty::Double) => format!("my_cast_double({c})"),
            // Text is text; the union's collation compares it.
            (Ty::Str(_), Ty::Str(_)) => c.clone(),
            (Ty::Int, Ty::Str(_)) => format!("CAST({c} AS TEXT)"),
            (from @ (Ty::Decimal(_) | Ty::Double), Ty::Str(_)) => {
                format!("my_text({c}, '{}')", from.code())
            }
            _ => return unsupported("UNION of columns of these different types"),
        };
        any |= value != c;
        converted.push(format!("{value} AS {}", ident(&to.name)));
    }
    if !any {
        return Ok(sql.to_owned());
    }
    let list = (0..own.len())
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(format!(
        "SELECT * FROM (WITH __member({list}) AS ({sql}) SELECT {} FROM __member)",
        converted.join(", ")
    ))
}

fn direction(item: &OrderByExpr) -> &'static str {
    match item.options.sort {
        Some(sqlparser::ast::OrderBySort::Desc) => " DESC",
        _ => "",
    }
}

/// The collation an ORDER BY of a value of this type needs.
fn collate_suffix(ty: Ty) -> String {
    match ty {
        Ty::Str(c) => format!(" COLLATE {}", c.order_name()),
        Ty::Decimal(_) => format!(" COLLATE {DECIMAL_COLLATION}"),
        _ => String::new(),
    }
}

/// The COLLATE clause that compares values of `ty` for equality (UNION's duplicates).
fn compare_suffix(ty: Ty) -> String {
    match ty {
        Ty::Str(c) => format!(" COLLATE {}", c.sqlite_name()),
        other => collate_suffix(other),
    }
}

fn name_parts(name: &ObjectName) -> Result<Vec<String>> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
            other => unsupported(format!("name {other}")),
        })
        .collect()
}

fn last_name(name: &ObjectName) -> Result<String> {
    name_parts(name)?
        .pop()
        .ok_or_else(|| TranslateError::Unsupported("empty name".into()))
}

/// The conditions ANDed at the top of `e` (through parentheses), in order.
fn top_level_conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            top_level_conjuncts(left, out);
            top_level_conjuncts(right, out);
        }
        Expr::Nested(inner) => top_level_conjuncts(inner, out),
        other => out.push(other),
    }
}

/// The column a condition compares with a constant by `=`, `<=>` or `IN` of one value (a
/// lookup by that value, see `Translator::where_condition`), if it is one. A user variable
/// counts as a constant.
fn lookup_column(e: &Expr) -> Option<&Expr> {
    let constant = |e: &Expr| {
        visit_expressions(e, |x| match x {
            Expr::Identifier(id) if id.quote_style.is_none() && id.value.starts_with('@') => {
                ControlFlow::Continue(())
            }
            Expr::Identifier(_)
            | Expr::CompoundIdentifier(_)
            | Expr::Subquery(_)
            | Expr::Exists { .. }
            | Expr::In {
                target: sqlparser::ast::InTarget::Subquery(_),
                ..
            } => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
        .is_continue()
    };
    let is_column = |e: &Expr| {
        is_column_reference(e)
            && !matches!(e, Expr::Identifier(id) if id.quote_style.is_none() && id.value.starts_with('@'))
    };
    match e {
        Expr::Nested(inner) => lookup_column(inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq | BinaryOperator::Spaceship,
            right,
        } => {
            if is_column(left) && constant(right) {
                Some(left)
            } else if is_column(right) && constant(left) {
                Some(right)
            } else {
                None
            }
        }
        Expr::In {
            expr,
            target: sqlparser::ast::InTarget::List(list),
            negated: false,
            ..
        } => (list.len() == 1 && is_column(expr) && constant(&list[0])).then_some(expr.as_ref()),
        _ => None,
    }
}

/// Whether an expression is a column reference (in parentheses or not).
pub(crate) fn is_column_reference(e: &Expr) -> bool {
    match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        Expr::Nested(inner) => is_column_reference(inner),
        _ => false,
    }
}

/// Whether two (database, table) names are one table (names are case-insensitive).
fn same_table(a: &(String, String), b: &(String, String)) -> bool {
    a.0.eq_ignore_ascii_case(&b.0) && a.1.eq_ignore_ascii_case(&b.1)
}

fn first_words(text: &str) -> String {
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fraction digits of `CURRENT_TIMESTAMP[([n])]`, `NOW([n])` or `LOCALTIMESTAMP[([n])]`
/// as a DEFAULT or ON UPDATE (0 without `n`); `None` for another expression.
fn now_fsp(e: &Expr) -> Option<u8> {
    let text = e.to_string().to_ascii_uppercase();
    let (name, rest) = text.split_at(text.find('(').unwrap_or(text.len()));
    if !matches!(name, "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIMESTAMP") {
        return None;
    }
    match rest {
        "" if name != "NOW" => Some(0),
        "()" => Some(0),
        _ => rest
            .strip_prefix('(')?
            .strip_suffix(')')?
            .parse::<u8>()
            .ok()
            .filter(|fsp| *fsp <= 6),
    }
}

/// SQLite's current local time as MySQL's DATETIME text with `fsp` fraction digits (SQLite
/// keeps milliseconds: digits past the third are 0). `'now'` is one moment per statement.
fn now_sql(fsp: u8) -> String {
    match fsp {
        0 => "datetime('now', 'localtime')".into(),
        _ => format!(
            "substr(strftime('%Y-%m-%d %H:%M:%f', 'now', 'localtime') || '000', 1, {})",
            20 + u32::from(fsp)
        ),
    }
}

/// The columns of a key. A column prefix `c(n)` only narrows what a plain index stores, so
/// it indexes the whole column; a unique key on a prefix would refuse other rows than MySQL.
fn index_columns(columns: &[sqlparser::ast::IndexColumn], unique: bool) -> Result<Vec<String>> {
    columns
        .iter()
        .map(|c| match &c.column.expr {
            Expr::Identifier(id) => Ok(id.value.clone()),
            Expr::Function(f) if !unique && prefix_length(f) => match f.name.0.as_slice() {
                [ObjectNamePart::Identifier(id)] => Ok(id.value.clone()),
                _ => unsupported(format!("index on {f}")),
            },
            other => unsupported(format!("index on {other}")),
        })
        .collect()
}

/// The column prefixes of a key's parts (`c(191)`), as [`Index::prefixes`] keeps them.
fn index_prefixes(columns: &[sqlparser::ast::IndexColumn]) -> Vec<(String, u32)> {
    columns
        .iter()
        .filter_map(|c| match &c.column.expr {
            Expr::Function(f) if prefix_length(f) => {
                let [ObjectNamePart::Identifier(id)] = f.name.0.as_slice() else {
                    return None;
                };
                let sqlparser::ast::FunctionArguments::List(list) = &f.args else {
                    return None;
                };
                let [
                    sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
                        Expr::Value(v),
                    )),
                ] = list.args.as_slice()
                else {
                    return None;
                };
                let sqlparser::ast::Value::Number(n, _) = &v.value else {
                    return None;
                };
                Some((id.value.clone(), n.parse().ok()?))
            }
            _ => None,
        })
        .collect()
}

/// Whether a key part parsed as a call is a column prefix: `c(191)`.
fn prefix_length(f: &sqlparser::ast::Function) -> bool {
    let sqlparser::ast::FunctionArguments::List(list) = &f.args else {
        return false;
    };
    matches!(
        list.args.as_slice(),
        [sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
            Expr::Value(v)
        ))] if matches!(&v.value, sqlparser::ast::Value::Number(n, _) if n.parse::<u32>().is_ok())
    ) && list.clauses.is_empty()
        && list.duplicate_treatment.is_none()
}

fn unique_index_name(table: &Table, wanted: &str) -> String {
    if !table
        .indexes
        .iter()
        .any(|i| i.name.eq_ignore_ascii_case(wanted))
    {
        return wanted.to_string();
    }
    (2..)
        .map(|n| format!("{wanted}_{n}"))
        .find(|n| !table.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n)))
        .expect("some suffix is free")
}

fn table_options(options: &CreateTableOptions) -> Result<Vec<(String, String)>> {
    let list = match options {
        CreateTableOptions::None => return Ok(Vec::new()),
        CreateTableOptions::With(l)
        | CreateTableOptions::Options(l)
        | CreateTableOptions::Plain(l)
        | CreateTableOptions::TableProperties(l) => l,
    };
    list.iter()
        .map(|o| {
            let text = o.to_string();
            // `name = value`, or `name value` as MySQL also takes (`COMMENT 'x'`).
            let at = text
                .find(['=', '\''])
                .or_else(|| text.rfind(' '))
                .unwrap_or(text.len());
            let (k, v) = text.split_at(at);
            (
                k.trim().to_ascii_uppercase(),
                v.trim_start_matches('=')
                    .trim()
                    .trim_matches('\'')
                    .to_string(),
            )
        })
        .map(|(k, v)| {
            if k == "ENGINE" {
                storage_engine(&v)?;
            }
            Ok((k, v))
        })
        .collect()
}

/// Checks a table's `ENGINE`: one whose tables keep their rows through transactions and
/// restarts (InnoDB, and MyISAM and Aria as old schemas and dumps name them) is kept as a name;
/// MySQL's others would not hold rows as SQLite does (MEMORY loses them at a restart, BLACKHOLE
/// drops them), so they are refused; an unknown one is MySQL's 1286.
fn storage_engine(name: &str) -> Result<()> {
    const KEPT: &[&str] = &["InnoDB", "MyISAM", "Aria"];
    const OTHERS: &[&str] = &[
        "MEMORY",
        "HEAP",
        "BLACKHOLE",
        "CSV",
        "ARCHIVE",
        "MRG_MyISAM",
        "MERGE",
        "FEDERATED",
        "EXAMPLE",
        "NDB",
        "NDBCLUSTER",
        "SEQUENCE",
        "PERFORMANCE_SCHEMA",
        "ROCKSDB",
        "SPIDER",
        "CONNECT",
        "S3",
        "ColumnStore",
        "MyRocks",
    ];
    if KEPT.iter().any(|e| e.eq_ignore_ascii_case(name)) {
        Ok(())
    } else if OTHERS.iter().any(|e| e.eq_ignore_ascii_case(name)) {
        unsupported(format!("ENGINE={name}"))
    } else {
        Err(TranslateError::UnknownEngine(name.to_string()))
    }
}

/// A column's MySQL type from its declaration.
fn column_type(data_type: &DataType, collation: Collation) -> Result<ColumnType> {
    if let DataType::Enum(members, _) = data_type {
        let mut values: Vec<String> = Vec::new();
        for m in members {
            let sqlparser::ast::EnumMember::Name(name) = m else {
                return unsupported(format!("column type {data_type}"));
            };
            // MySQL drops a member's trailing spaces.
            let name = name.trim_end_matches(' ').to_string();
            if values
                .iter()
                .any(|v| crate::collation::compare(collation, v, &name).is_eq())
            {
                return unsupported(format!("column type {data_type} with a member twice"));
            }
            values.push(name);
        }
        return Ok(ColumnType::Enum { values, collation });
    }
    if let DataType::Set(members) = data_type {
        let mut values: Vec<String> = Vec::new();
        for m in members {
            let name = m.trim_end_matches(' ').to_string();
            if name.contains(',')
                || values
                    .iter()
                    .any(|v| crate::collation::compare(collation, v, &name).is_eq())
            {
                return unsupported(format!("column type {data_type}"));
            }
            values.push(name);
        }
        if values.len() > 62 {
            return unsupported(format!("column type {data_type}"));
        }
        return Ok(ColumnType::Set { values, collation });
    }
    let text = data_type.to_string().to_ascii_uppercase();
    let unsigned = text.contains("UNSIGNED");
    let nums: Vec<u32> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|p| p.parse().ok())
        .collect();
    let base: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let int = |bits: u32| {
        if unsigned {
            // BIGINT UNSIGNED holds up to i64::MAX here: a larger value MySQL keeps is refused
            // (1235) rather than stored differently (`my_store_int`).
            Ok(ColumnType::Int {
                min: 0,
                max: if bits == 64 {
                    i64::MAX
                } else {
                    (1i64 << bits) - 1
                },
            })
        } else {
            Ok(ColumnType::Int {
                min: if bits == 64 {
                    i64::MIN
                } else {
                    -(1i64 << (bits - 1))
                },
                max: if bits == 64 {
                    i64::MAX
                } else {
                    (1i64 << (bits - 1)) - 1
                },
            })
        }
    };
    Ok(match base.as_str() {
        "TINYINT" | "BOOL" | "BOOLEAN" => int(8)?,
        "SMALLINT" => int(16)?,
        "MEDIUMINT" => int(24)?,
        "INT" | "INTEGER" => int(32)?,
        "BIGINT" => int(64)?,
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let (p, s) = match nums.as_slice() {
                [] => (10, 0),
                [p] => (*p, 0),
                [p, s, ..] => (*p, *s),
            };
            if p > 65 || s > 30 || s > p {
                return unsupported(format!("column type {text}"));
            }
            ColumnType::Decimal {
                precision: p as u8,
                scale: s as u8,
                unsigned,
            }
        }
        // DOUBLE(M,D) and FLOAT(M,D) round each value to D digits, and MySQL shows them and
        // what is computed from them with D digits: refused below. FLOAT(p) is FLOAT up to 24
        // bits of precision and DOUBLE up to 53.
        "DOUBLE" | "REAL" if !unsigned && nums.is_empty() => ColumnType::Double,
        "FLOAT" if !unsigned && nums.is_empty() => ColumnType::Float,
        "FLOAT" if !unsigned && nums.len() == 1 && nums[0] <= 24 => ColumnType::Float,
        "FLOAT" if !unsigned && nums.len() == 1 && nums[0] <= 53 => ColumnType::Double,
        "CHAR" | "CHARACTER" => ColumnType::Char {
            length: nums.first().copied().unwrap_or(1),
            collation,
        },
        "VARCHAR" => ColumnType::VarChar {
            length: nums.first().copied().unwrap_or(255),
            collation,
        },
        "TINYTEXT" => ColumnType::VarChar {
            length: 255,
            collation,
        },
        "TEXT" => ColumnType::VarChar {
            length: 65_535,
            collation,
        },
        "MEDIUMTEXT" => ColumnType::VarChar {
            length: 16_777_215,
            collation,
        },
        "LONGTEXT" => ColumnType::VarChar {
            length: u32::MAX,
            collation,
        },
        "BINARY" | "VARBINARY" => ColumnType::Bytes {
            length: nums.first().copied().unwrap_or(1),
            fixed: base == "BINARY",
        },
        // A BLOB(n) is the smallest BLOB type that holds n bytes, as MySQL makes it.
        "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" => ColumnType::Bytes {
            length: match (base.as_str(), nums.first().copied()) {
                ("TINYBLOB", _) => 255,
                ("BLOB", None) => 65_535,
                ("BLOB", Some(n)) if n <= 255 => 255,
                ("BLOB", Some(n)) if n <= 65_535 => 65_535,
                ("BLOB", Some(n)) if n <= 16_777_215 => 16_777_215,
                ("MEDIUMBLOB", _) => 16_777_215,
                _ => u32::MAX,
            },
            fixed: false,
        },
        "BIT" if !unsigned && nums.len() <= 1 => {
            let width = nums.first().copied().unwrap_or(1);
            if !(1..=63).contains(&width) {
                return unsupported(format!("column type {text}"));
            }
            ColumnType::Bit { width: width as u8 }
        }
        "YEAR" if !unsigned && (nums.is_empty() || nums == [4]) => ColumnType::Year,
        "DATE" => ColumnType::Date,
        "TIME" | "DATETIME" | "TIMESTAMP" if nums.len() <= 1 => {
            let fsp = nums.first().copied().unwrap_or(0);
            if fsp > 6 {
                // The column's name is the caller's to fill in.
                return Err(TranslateError::TooBigPrecision(String::new()));
            }
            let fsp = fsp as u8;
            if base == "TIME" {
                ColumnType::Time { fsp }
            } else {
                ColumnType::DateTime {
                    fsp,
                    timestamp: base == "TIMESTAMP",
                }
            }
        }
        _ => return unsupported(format!("column type {text}")),
    })
}

/// The value MySQL stores for a NOT NULL column an INSERT IGNORE leaves out or gives NULL.
fn implicit_default(ty: &ColumnType) -> String {
    match ty {
        ColumnType::Enum { values, .. } => return quote(values.first().map_or("", String::as_str)),
        ColumnType::Set { .. } => return "''".into(),
        _ => {}
    }
    match ty {
        ColumnType::Int { .. }
        | ColumnType::Bit { .. }
        | ColumnType::Double
        | ColumnType::Float => "0",
        // MySQL's 0000, which the translation does not store (see `ColumnType::Year`).
        ColumnType::Year => "my_store_year(0, 1, '', 'i')",
        ColumnType::Decimal { .. } => "'0'",
        ColumnType::Char { .. } | ColumnType::VarChar { .. } => "''",
        ColumnType::Bytes { .. } => "X''",
        ColumnType::Date => "'0000-00-00'",
        ColumnType::DateTime { .. } => "'0000-00-00 00:00:00'",
        ColumnType::Time { fsp: 0 } => "'00:00:00'",
        ColumnType::Time { fsp } => {
            return format!("'00:00:00.{}'", "0".repeat(usize::from(*fsp)));
        }
        ColumnType::Enum { .. } | ColumnType::Set { .. } => unreachable!("answered above"),
    }
    .to_string()
}

/// The keyword `DEFAULT` in place of a value.
/// The longest result column name MySQL sends, in bytes.
const NAME_MAX_BYTES: usize = 255;

/// The name of a result column that is not aliased, as MySQL gives it: a column reference's
/// name as written in the query (the column's name for `t.c`, the whole name for
/// `@@session.x`), a string literal's value without its leading spaces (also in parentheses),
/// any other expression's text as written (`written`, else as the tree prints it); at most
/// 255 bytes.
fn result_name(e: &Expr, written: Option<&str>) -> String {
    fn string_value(e: &Expr) -> Option<String> {
        match e {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::SingleQuotedString(s)
                | sqlparser::ast::Value::DoubleQuotedString(s)
                | sqlparser::ast::Value::NationalStringLiteral(s) => Some(s.clone()),
                _ => None,
            },
            // `_utf8mb4'x'`.
            Expr::Prefixed { value, .. } => string_value(value),
            _ => None,
        }
    }
    let mut inner = e;
    while let Expr::Nested(nested) = inner {
        inner = nested;
    }
    let mut name = match e {
        Expr::Identifier(id) => id.value.clone(),
        Expr::CompoundIdentifier(ids)
            if ids[0].quote_style.is_none() && ids[0].value.starts_with("@@") =>
        {
            ids.iter()
                .map(|i| i.value.as_str())
                .collect::<Vec<_>>()
                .join(".")
        }
        Expr::CompoundIdentifier(ids) => ids.last().map(|i| i.value.clone()).unwrap_or_default(),
        _ => match string_value(inner) {
            Some(value) => value.trim_start_matches([' ', '\t', '\n', '\r']).to_owned(),
            None if inner != e && matches!(inner, Expr::Value(_)) => inner.to_string(),
            None => written.map_or_else(|| e.to_string(), str::to_owned),
        },
    };
    if name.len() > NAME_MAX_BYTES {
        let mut end = NAME_MAX_BYTES;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    name
}

/// The AUTO_INCREMENT column's name and largest value, when its type holds less than BIGINT.
fn auto_limit(column: Option<&Column>) -> Option<(String, i64)> {
    match column.map(|c| (c, &c.ty)) {
        Some((c, ColumnType::Int { max, .. })) if *max < i64::MAX => Some((c.name.clone(), *max)),
        _ => None,
    }
}

/// The literal `0`, which generates an AUTO_INCREMENT value unless NO_AUTO_VALUE_ON_ZERO.
fn is_zero_literal(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(&v.value, sqlparser::ast::Value::Number(n, _) if n == "0"))
}

fn is_default_keyword(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT"))
}

/// `DEFAULT` as an inserted or assigned value: the column's default as the table declares it (already
/// stored as the column holds it); NULL for a nullable column without one and for the
/// AUTO_INCREMENT column (which then takes the next value); a NOT NULL column without one is
/// 1364, or its implicit default under IGNORE.
fn default_of(c: &Column, ignore: bool) -> Result<String> {
    match &c.default {
        Some(default) => Ok(default.clone()),
        None if c.auto_increment || !c.not_null => Ok("NULL".into()),
        None if ignore => Ok(implicit_default(&c.ty)),
        None => Err(TranslateError::NoDefault(c.name.clone())),
    }
}

/// A recursive common table expression's first member, its UNION and its recursive member:
/// `query` is one SELECT, UNION [ALL], and one SELECT that names `name`. Anything else is
/// translated as a plain common table expression (one that names itself is then unknown).
fn recursive_parts<'q>(
    name: &str,
    query: &'q Query,
) -> Option<(&'q Select, &'static str, &'q Select)> {
    if query.with.is_some() || query.order_by.is_some() || query.limit_clause.is_some() {
        return None;
    }
    let SetExpr::SetOperation {
        left,
        op: SetOperator::Union,
        set_quantifier,
        right,
    } = query.body.as_ref()
    else {
        return None;
    };
    let (SetExpr::Select(anchor), SetExpr::Select(member)) = (left.as_ref(), right.as_ref()) else {
        return None;
    };
    let op = match set_quantifier {
        SetQuantifier::All => "UNION ALL",
        SetQuantifier::None | SetQuantifier::Distinct => "UNION",
        _ => return None,
    };
    let names_itself =
        sqlparser::ast::visit_relations(member.as_ref(), |relation| match relation.0.as_slice() {
            [ObjectNamePart::Identifier(id)] if id.value.eq_ignore_ascii_case(name) => {
                std::ops::ControlFlow::Break(())
            }
            _ => std::ops::ControlFlow::Continue(()),
        })
        .is_break();
    names_itself.then_some((anchor.as_ref(), op, member.as_ref()))
}

/// A value as stored into a column: converted to its type, failing as strict mode does.
/// `zero_generates`: a 0 for an AUTO_INCREMENT column takes the next id, as it does unless
/// the session's sql_mode has NO_AUTO_VALUE_ON_ZERO.
fn store(t: &Typed, c: &Column, strict: bool, ignore: bool, zero_generates: bool) -> String {
    store_row(t, c, strict, ignore, zero_generates, 1, 0)
}

/// [`store`] of a value of row `row` of a VALUES list: the functions' messages name the row,
/// as MySQL's do (`at row 3`), from the column name they are given, which carries it after a
/// unit separator (the function library takes it off, `functions::with_row`).
fn store_row(
    t: &Typed,
    c: &Column,
    strict: bool,
    ignore: bool,
    zero_generates: bool,
    row: usize,
    zero_dates: i32,
) -> String {
    let s = i32::from(strict);
    // A date column's strictness carries the zero dates the mode refuses.
    let date_s = if strict { s + zero_dates } else { s };
    let name = if row > 1 {
        quote(&format!("{}{}{row}", c.name, crate::ROW_MARK))
    } else {
        quote(&c.name)
    };
    let value = match &c.ty {
        ColumnType::Int { min, max } => {
            format!("my_store_int({}, {min}, {max}, {s}, {name})", t.sql)
        }
        ColumnType::Year => format!("my_store_year({}, {s}, {name}, '{}')", t.sql, t.ty.code()),
        ColumnType::Bit { width } => format!(
            "my_store_bit({}, {width}, {s}, {name}, '{}')",
            t.sql,
            t.ty.code()
        ),
        ColumnType::Decimal {
            precision,
            scale,
            unsigned: false,
        } => format!("my_store_dec({}, {precision}, {scale}, {s}, {name})", t.sql),
        // MySQL refuses (or makes 0 of) a negative value before it rounds to the scale.
        ColumnType::Decimal {
            precision,
            scale,
            unsigned: true,
        } => format!(
            "my_store_dec(my_store_udec({}, {s}, {name}), {precision}, {scale}, {s}, {name})",
            t.sql
        ),
        ColumnType::Double | ColumnType::Float => format!(
            "my_store_double({}, {s}, {name}, {})",
            t.sql,
            i32::from(c.ty == ColumnType::Float)
        ),
        ColumnType::Char { length, .. } | ColumnType::VarChar { length, .. } => format!(
            "my_store_str({}, {length}, {}, {s}, {name}, '{}')",
            t.sql,
            i32::from(matches!(c.ty, ColumnType::Char { .. })),
            t.ty.code()
        ),
        ColumnType::Bytes { length, fixed } => format!(
            "my_store_bytes(CAST({} AS BLOB), {length}, {}, {s}, {name})",
            as_text(t),
            i32::from(*fixed)
        ),
        ColumnType::Date => format!("my_store_date({}, 0, {date_s}, {name}, 'date')", t.sql),
        ColumnType::DateTime { fsp, timestamp } => format!(
            "my_store_date({}, {fsp}, {date_s}, {name}, '{}')",
            t.sql,
            if *timestamp { "timestamp" } else { "datetime" }
        ),
        ColumnType::Time { fsp } => format!("my_store_time({}, {fsp}, {s}, {name})", t.sql),
        ColumnType::Enum { values, collation } => format!(
            "my_store_enum({}, {}, {}, {s}, {name})",
            t.sql,
            quote(&values.join("\u{1f}")),
            i32::from(collation.folds_case())
        ),
        ColumnType::Set { values, collation } => format!(
            "my_store_set({}, {}, {}, {s}, {name})",
            t.sql,
            quote(&values.join("\u{1f}")),
            i32::from(collation.folds_case())
        ),
    };
    let value = if c.auto_increment && zero_generates {
        format!("nullif({value}, 0)")
    } else {
        value
    };
    if ignore && c.not_null && !c.auto_increment {
        format!("coalesce({value}, {})", implicit_default(&c.ty))
    } else {
        value
    }
}

/// A REPLACE's stored value (or one into an integer primary key, SQLite's rowid): NULL into a
/// NOT NULL column is MySQL's error, where SQLite's REPLACE would store the column's default
/// (and the rowid take the next number).
fn replace_store(value: String, c: &Column, checked: bool) -> String {
    if checked && c.not_null && !c.auto_increment {
        format!("my_not_null({value}, {})", quote(&c.name))
    } else {
        value
    }
}

/// A column definition of MODIFY/CHANGE COLUMN's parts.
fn column_definition(
    name: &sqlparser::ast::Ident,
    data_type: &DataType,
    options: &[ColumnOption],
) -> sqlparser::ast::ColumnDef {
    sqlparser::ast::ColumnDef {
        name: name.clone(),
        data_type: data_type.clone(),
        options: options
            .iter()
            .map(|o| sqlparser::ast::ColumnOptionDef {
                name: None,
                option: o.clone(),
            })
            .collect(),
    }
}

/// A column's SQLite definition without NOT NULL: name, type and DEFAULT.
fn column_head(column: &Column) -> String {
    let mut sql = format!("{} {}", ident(&column.name), column.ty.sqlite_decl());
    if let Some(default) = &column.default {
        sql.push_str(&format!(" DEFAULT {default}"));
    }
    if let Some(generated) = &column.generated {
        sql.push_str(&format!(" GENERATED ALWAYS AS ({}) STORED", generated.sql));
    }
    sql
}

/// The AUTO_INCREMENT column that is SQLite's rowid (`INTEGER PRIMARY KEY AUTOINCREMENT`).
fn rowid_key(table: &Table) -> Option<&Column> {
    match table.primary_key.as_slice() {
        [key] => table.column(key).filter(|c| c.auto_increment),
        _ => None,
    }
}

/// `CREATE TABLE "schema"."name" (…)` of a catalog table: its columns, primary key and foreign
/// keys (indexes and triggers are statements of their own).
fn create_table_sql(schema: &str, name: &str, table: &Table) -> String {
    let rowid = rowid_key(table).map(|c| c.name.clone());
    let mut defs: Vec<String> = table
        .columns
        .iter()
        .map(|c| {
            if rowid.as_deref() == Some(c.name.as_str()) {
                format!("{} INTEGER PRIMARY KEY AUTOINCREMENT", ident(&c.name))
            } else if c.not_null {
                format!("{} NOT NULL", column_head(c))
            } else {
                column_head(c)
            }
        })
        .collect();
    if !table.primary_key.is_empty() && rowid.is_none() {
        let cols: Vec<String> = table.primary_key.iter().map(|p| ident(p)).collect();
        defs.push(format!("PRIMARY KEY ({})", cols.join(", ")));
    }
    defs.extend(table.foreign_keys.iter().cloned());
    defs.extend(table.checks.iter().map(|(_, sql)| sql.clone()));
    format!(
        "CREATE TABLE {schema}.{} ({})",
        ident(name),
        defs.join(", ")
    )
}

/// `CREATE [UNIQUE] INDEX "schema"."t.name" ON "t" (…)`: SQLite names the index's database
/// and takes the table from it.
fn create_index_sql(schema: &str, table: &str, index: &Index) -> String {
    format!(
        "CREATE {}INDEX {schema}.{} ON {} ({})",
        if index.unique { "UNIQUE " } else { "" },
        ident(&index.sqlite_name),
        ident(table),
        index
            .columns
            .iter()
            .map(|c| ident(c))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Key column names as the table declares them.
fn declared_names(table: &Table, columns: &[String]) -> Vec<String> {
    columns
        .iter()
        .map(|c| {
            table
                .column(c)
                .map_or_else(|| c.clone(), |d| d.name.clone())
        })
        .collect()
}

/// `ON UPDATE CURRENT_TIMESTAMP` as a trigger: when a row changes and the column was not set,
/// it becomes the current time, unless the engine is numbering an insert's rows again
/// (`my_renumbering()`: rows MySQL only inserted). The trigger lives in the table's database
/// (`schema`), and the names inside it are unqualified, as SQLite requires: they name that
/// database's tables.
fn on_update_triggers(table: &Table, schema: &str) -> Vec<String> {
    table
        .columns
        .iter()
        .filter(|c| c.on_update_now)
        .map(|c| {
            let others: Vec<String> = table
                .columns
                .iter()
                .filter(|o| o.name != c.name)
                .map(|o| format!("NOT my_same(NEW.{n}, OLD.{n})", n = ident(&o.name)))
                .collect();
            let changed = if others.is_empty() { "0".to_string() } else { others.join(" OR ") };
            format!(
                "CREATE TRIGGER {schema}.{} AFTER UPDATE ON {t} FOR EACH ROW WHEN my_same(NEW.{col}, OLD.{col}) AND ({changed}) AND my_renumbering() = 0 \
                 BEGIN UPDATE {t} SET {col} = {now} WHERE rowid = NEW.rowid; END",
                ident(&format!("{}.{}.on_update", table.name, c.name)),
                t = ident(&table.name),
                col = ident(&c.name),
                now = now_sql(c.ty.fsp())
            )
        })
        .collect()
}

/// A column's declared type as MySQL names it: `INTEGER` is `INT` (SQLite's readers of a
/// declaration take a bare INTEGER for its 64-bit rowid type).
fn mysql_declared(declared: &str) -> String {
    match declared.get(..7) {
        Some(head) if head.eq_ignore_ascii_case("INTEGER") => format!("INT{}", &declared[7..]),
        _ => declared.to_owned(),
    }
}

/// A key CREATE TABLE declares: its name (if given), columns, UNIQUE, and column prefixes.
type DeclaredKey = (Option<String>, Vec<String>, bool, Vec<(String, u32)>);

/// A MySQL identifier as SHOW CREATE TABLE writes it.
fn backquoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// An UPDATE's assignment to a generated column: MySQL's 1906 for a value; `SET c = DEFAULT`,
/// which MySQL takes as writing nothing, is refused.
fn generated_assignment(c: &Column, value: &Expr, table: &Table) -> TranslateError {
    if is_default_keyword(value) {
        TranslateError::Unsupported(format!(
            "an UPDATE of the generated column {} to DEFAULT",
            c.name
        ))
    } else {
        TranslateError::GeneratedValue(c.name.clone(), table.name.clone())
    }
}

/// A table's checks as SQLite's constraints (name, SQL) and as MariaDB prints them back.
type TranslatedChecks = (Vec<(String, String)>, Vec<ShownCheck>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_key_parts_reads_the_declared_form_back() {
        let declared = format!(
            "FOREIGN KEY ({}, {}) REFERENCES {} ({}, {}) ON DELETE CASCADE ON UPDATE RESTRICT",
            ident("a"),
            ident("odd\", name"),
            ident("parent table"),
            ident("id"),
            ident("k)")
        );
        assert_eq!(
            foreign_key_parts(&declared),
            Some((
                vec!["a".to_string(), "odd\", name".to_string()],
                "parent table".to_string(),
                vec!["id".to_string(), "k)".to_string()]
            ))
        );
    }

    fn parsed_expr(text: &str) -> Expr {
        sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
            .try_with_sql(text)
            .unwrap()
            .parse_expr()
            .unwrap()
    }

    #[test]
    fn now_fsp_reads_the_current_time_forms_a_default_takes() {
        for (text, fsp) in [
            ("CURRENT_TIMESTAMP", Some(0)),
            ("current_timestamp()", Some(0)),
            ("CURRENT_TIMESTAMP(3)", Some(3)),
            ("NOW(6)", Some(6)),
            ("NOW()", Some(0)),
            ("LOCALTIMESTAMP", Some(0)),
            ("NOW(7)", None),
            ("NOW", None),
            ("CURDATE()", None),
        ] {
            assert_eq!(now_fsp(&parsed_expr(text)), fsp, "{text}");
        }
    }

    #[test]
    fn foreign_key_parts_is_none_for_another_form() {
        assert_eq!(foreign_key_parts("CHECK (\"a\" > 0)"), None);
        assert_eq!(foreign_key_parts("FOREIGN KEY (\"a\" REFERENCES"), None);
    }
}
