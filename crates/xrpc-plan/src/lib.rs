//! EXEC_PLAN_READ: the physical plans a compute node pushes down, compiled into one SQL statement.
//!
//! A plan (`exec_plan.proto`: GET, TABLE_SCAN, RANGE_SCAN, TABLE_PROJECT, PROJECT, FILTER, AGGR,
//! with `expr.proto` expressions and placeholders) is not interpreted row by row. [`compile`] turns it into one `SELECT` with `?` arguments, which the session then runs
//! through exactly the path of a prepared EXEC_SQL: the same engine call, the same result encoder
//! (rows or chunks, flow-control tokens, FetchDone, StmtExecuteOk), the same kill and error
//! handling. `docs/ARCHITECTURE.md` says why.
//!
//! # Design
//!
//! - **Sans-IO.** The compiler is pure: a plan, its parameters and a [`Catalog`] (table columns,
//!   primary key and indexes) in; SQL and arguments, or a [`PlanError`], out. The session
//!   implements the catalog over the engine connection ([`catalog`]); the unit tests below use a
//!   fixed one.
//! - **One relation per node.** Every node compiles into a `Rel`: a FROM clause, AND-ed WHERE
//!   conditions, an ORDER BY and a list of named outputs, each an SQL fragment with its own
//!   arguments. FILTER adds a condition, PROJECT and TABLE_PROJECT replace the outputs (a column of
//!   the child is inlined as its fragment), AGGR turns the outputs into one aggregate. Nothing is
//!   wrapped in a derived table while order matters, because MariaDB ignores an ORDER BY inside a
//!   derived table; only a relation already aggregated (one row) is wrapped when a node sits on
//!   top of it.
//! - **Identifiers are quoted with backticks**, which both SQLite and MariaDB accept; values are
//!   always bound as arguments, never spliced into the text.
//!
//! - **Caches.** The session keeps plans by digest (`NodeShared::plan_cache`, for digest-only
//!   requests), table shapes while no schema changes, for at most a second on an engine others
//!   may change too ([`catalog::ShapeCache`]), and compiled plans for as long as their shapes
//!   ([`catalog::compile_cached`]): a compiled plan is a template that [`CompiledPlan::bind`]
//!   fills with another request's parameters when they compile to the same text. The engine's
//!   own prepared-statement cache finds the SQL by text.
//!
//! # Semantics (see docs/PROTOCOL.md, "Plans (EXEC_PLAN_READ)")
//!
//! - Table and index by name, compared case-insensitively as MySQL does for columns and indexes;
//!   an absent index, or `PRIMARY`, is the primary key. A table without a primary key can be read
//!   only through a named index.
//! - `use_parts` limits the key parts a GET or range may constrain (1 ..= the index's parts).
//! - A GetExpr's keys are AND-ed equalities on key parts, which must form a prefix of the index's
//!   (used) parts; a NULL key matches NULL (`IS NULL`), as an index lookup does. Several
//!   GetExprs are several lookups: their rows follow each other in lookup order, each lookup in
//!   index order, and a row that two lookups find comes twice.
//! - Ranges: `key` is where the scan starts and `end_key` where it stops, both inclusive and both
//!   prefixes of the index; a reverse scan goes downward, so there `key` is the upper bound. Rows
//!   come in index order (index parts, then the primary key's other columns), descending when
//!   `reverse`.
//! - KEY_ONLY_RANGE_SCAN cannot occur: `AnyPlan` has no plan type or field for it (upstream's
//!   neither), so no plan can carry one.
//! - A field is a column name or a 0-based index into the child's output columns (for keys, into
//!   the table's columns).
//! - Expressions: IDENT (a child column by name), REF (by index), LITERAL, PLACEHOLDER, OPERATOR
//!   and FUNC_CALL from the lists in [`expr`]; VARIABLE, OBJECT, ARRAY and JSON paths are refused
//!   with 1235. Aggregates keep SQL's NULL rules: COUNT skips NULLs and is 0 over no rows; SUM,
//!   AVG, MIN and MAX ignore NULLs and are NULL over no rows.
//! - `snapshot` (an empty message today) reads in the session's current transaction, which is
//!   what it asks for; a non-zero `flag` is refused with 1235.

pub mod catalog;
pub mod expr;

use std::cell::RefCell;
use std::fmt::Write as _;

use xrpc_proto::codes;
use xrpc_proto::messages::pb;
use xrpc_proto::value::Value;

use xrpc_engine::result::SqlError;

use pb::datatypes::Scalar;
use pb::datatypes::scalar::Type as ScalarType;
use pb::exec_plan as ep;

/// Plans nested deeper than this are refused (a protobuf message cannot be cyclic, but it can be
/// absurdly deep; the compiler recurses once per level). A frame nested much deeper does not even
/// decode: prost stops at 100 message levels (protobuf's usual limit, upstream's too), about 50
/// plan levels, and the connection answers it as any undecodable frame.
pub const MAX_PLAN_DEPTH: usize = 32;
/// Expressions nested deeper than this are refused, for the same reason.
pub const MAX_EXPR_DEPTH: usize = 32;

/// Why a plan could not be compiled. Each variant has the MySQL code a client sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The plan is not well formed: a missing node or field, an unknown plan type, a depth over
    /// the limit, a placeholder without a parameter. 1210.
    #[error("bad plan: {0}")]
    Malformed(String),
    /// A field names no column of its input, or its index is out of range. 1054.
    #[error("Unknown column '{0}' in '{1}'")]
    UnknownColumn(String, String),
    /// The index named is not an index of the table. 1176.
    #[error("Key '{index}' doesn't exist in table '{table}'")]
    UnknownIndex {
        /// The index asked for.
        index: String,
        /// The table.
        table: String,
    },
    /// Something the plan language has but this node refuses rather than answer wrongly. 1235.
    #[error("This version doesn't yet support {0}")]
    Unsupported(String),
    /// The catalog failed: an unknown table (1146), an unknown database, an engine error.
    #[error(transparent)]
    Catalog(SqlError),
}

impl From<PlanError> for SqlError {
    fn from(err: PlanError) -> Self {
        let message = err.to_string();
        match err {
            PlanError::Malformed(_) => SqlError::new(&codes::WRONG_ARGUMENTS, message),
            PlanError::UnknownColumn(..) => SqlError::new(&codes::BAD_FIELD, message),
            PlanError::UnknownIndex { .. } => SqlError::new(&codes::KEY_DOES_NOT_EXIST, message),
            PlanError::Unsupported(_) => SqlError::new(&codes::NOT_SUPPORTED_YET, message),
            PlanError::Catalog(err) => err,
        }
    }
}

fn malformed(message: impl Into<String>) -> PlanError {
    PlanError::Malformed(message.into())
}

pub use xrpc_engine::shape::{IndexShape, TableShape, quote};

/// Where table shapes come from (the engine, in the server; a fixed map in tests).
pub trait Catalog {
    /// The table `name` in `schema` (the session's when `None`). An unknown table is
    /// [`codes::NO_SUCH_TABLE`].
    fn table(
        &mut self,
        schema: Option<&str>,
        name: &str,
    ) -> Result<std::sync::Arc<TableShape>, SqlError>;
}

/// A compiled plan: run `sql` with `args` bound to its `?`s.
///
/// It is also a template for the same plan with other parameters ([`CompiledPlan::bind`]): it
/// records which `?` takes which parameter, and the parameters whose value shaped the SQL text
/// (a table or field name given as a placeholder, a NULL key that became `IS NULL`).
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledPlan {
    /// One SELECT.
    pub sql: String,
    /// One value per `?`, in order.
    pub args: Vec<Value>,
    /// The index the plan reads (`PRIMARY` for the primary key), for FetchDone's feedback.
    pub index: String,
    /// Per `?`: the parameter its value came from, or `None` for a value of the plan itself.
    pub arg_params: Vec<Option<u32>>,
    /// The parameters whose value is part of the SQL text, with that value.
    pub shaping: Vec<(u32, Value)>,
}

impl CompiledPlan {
    /// The arguments for running this plan with `params` instead of the parameters it was
    /// compiled with, or `None` when they would compile to other SQL (a shaping parameter
    /// differs, a bound parameter is NULL or missing or not a value): then compile afresh, which
    /// also gives any error. Invariant: when this returns `Some(args)`, `compile` with `params`
    /// (and the same shapes) yields `self.sql` and `args`.
    pub fn bind(&self, params: &[Scalar]) -> Option<Vec<Value>> {
        let param = |position: u32| {
            let scalar = params.get(position as usize)?;
            if scalar.r#type == ScalarType::VPlaceholder as i32 {
                return None;
            }
            scalar_value(scalar, &[]).ok()
        };
        for (position, value) in &self.shaping {
            if param(*position).as_ref() != Some(value) {
                return None;
            }
        }
        self.args
            .iter()
            .zip(&self.arg_params)
            .map(|(value, source)| match source {
                None => Some(value.clone()),
                Some(position) => param(*position).filter(|v| *v != Value::Null),
            })
            .collect()
    }
}

/// Compiles `plan`, taking placeholders from `params`.
pub fn compile(
    plan: &ep::AnyPlan,
    params: &[Scalar],
    catalog: &mut dyn Catalog,
) -> Result<CompiledPlan, PlanError> {
    let params = Params {
        scalars: params,
        shaping: RefCell::new(Vec::new()),
    };
    let mut compiler = Compiler {
        params: &params,
        catalog,
        depth: 0,
        index: String::new(),
    };
    let rel = compiler.plan(plan)?;
    let index = compiler.index;
    let (sql, args) = rel.into_select();
    let (args, arg_params) = args.into_iter().map(|a| (a.value, a.param)).unzip();
    Ok(CompiledPlan {
        sql,
        args,
        index,
        arg_params,
        shaping: params.shaping.into_inner(),
    })
}

/// A plan's parameters while it compiles, and which of them shaped the SQL text.
pub(crate) struct Params<'a> {
    scalars: &'a [Scalar],
    shaping: RefCell<Vec<(u32, Value)>>,
}

impl Params<'_> {
    /// The value of `scalar` for use in the SQL text (a name, a field): a parameter read this
    /// way is recorded as shaping.
    fn value(&self, scalar: &Scalar) -> Result<Value, PlanError> {
        let (value, param) = self.arg(scalar)?;
        self.shaped(param, &value);
        Ok(value)
    }

    /// The value of `scalar` and the parameter it came from, for binding to a `?`. The caller
    /// calls [`Params::shaped`] if it puts the value into the text after all.
    fn arg(&self, scalar: &Scalar) -> Result<(Value, Option<u32>), PlanError> {
        let value = scalar_value(scalar, self.scalars)?;
        let param = (scalar.r#type == ScalarType::VPlaceholder as i32)
            .then_some(scalar.v_position)
            .flatten();
        Ok((value, param))
    }

    /// Parameter `position` (an expression's PLACEHOLDER), for binding to a `?`.
    fn placeholder(&self, position: u32) -> Result<Value, PlanError> {
        let param = self.scalars.get(position as usize).ok_or_else(|| {
            malformed(format!(
                "placeholder {position} has no parameter ({} given)",
                self.scalars.len()
            ))
        })?;
        scalar_value(param, &[])
    }

    /// Records that parameter `param`'s `value` went into the SQL text.
    fn shaped(&self, param: Option<u32>, value: &Value) {
        if let Some(position) = param {
            self.shaping.borrow_mut().push((position, value.clone()));
        }
    }
}

/// A value bound to a `?`, and the parameter it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// The value.
    pub value: Value,
    /// The parameter, or `None` for a value of the plan itself.
    pub param: Option<u32>,
}

/// An SQL fragment and the arguments of its `?`s, in text order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frag {
    /// SQL text.
    pub sql: String,
    /// Arguments.
    pub args: Vec<Arg>,
}

impl Frag {
    fn text(sql: impl Into<String>) -> Self {
        Self {
            sql: sql.into(),
            args: Vec::new(),
        }
    }

    fn arg(value: Value, param: Option<u32>) -> Self {
        Self {
            sql: "?".into(),
            args: vec![Arg { value, param }],
        }
    }

    fn push(&mut self, other: &Frag) {
        self.sql.push_str(&other.sql);
        self.args.extend(other.args.iter().cloned());
    }
}

/// A named output column of a relation.
#[derive(Debug, Clone, PartialEq)]
struct Output {
    name: String,
    expr: Frag,
}

/// A relation under construction; see the module docs.
#[derive(Debug, Clone, PartialEq)]
struct Rel {
    from: Frag,
    conditions: Vec<Frag>,
    order: Vec<String>,
    outputs: Vec<Output>,
    aggregated: bool,
}

impl Rel {
    /// The SELECT and its arguments.
    fn into_select(self) -> (String, Vec<Arg>) {
        let mut frag = Frag::text("SELECT ");
        for (i, output) in self.outputs.iter().enumerate() {
            if i > 0 {
                frag.sql.push_str(", ");
            }
            frag.push(&output.expr);
            // A column read under its own name is named so by both engines without an alias;
            // the alias would only lengthen the text the `mysql` engine's backend parses on
            // every run.
            let quoted = quote(&output.name);
            let plain_column = output.expr.args.is_empty()
                && output
                    .expr
                    .sql
                    .strip_prefix(TABLE_ALIAS)
                    .and_then(|rest| rest.strip_prefix('.'))
                    == Some(quoted.as_str());
            if !plain_column {
                let _ = write!(frag.sql, " AS {quoted}");
            }
        }
        frag.sql.push_str(" FROM ");
        frag.push(&self.from);
        for (i, condition) in self.conditions.iter().enumerate() {
            frag.sql.push_str(if i == 0 { " WHERE " } else { " AND " });
            frag.sql.push('(');
            frag.push(condition);
            frag.sql.push(')');
        }
        if !self.aggregated && !self.order.is_empty() {
            let _ = write!(frag.sql, " ORDER BY {}", self.order.join(", "));
        }
        (frag.sql, frag.args)
    }

    /// Makes an aggregated relation (one row) the FROM of a new one, so a node can sit on top.
    fn wrapped(self, depth: usize) -> Rel {
        if !self.aggregated {
            return self;
        }
        let alias = format!("xrpc_d{depth}");
        let names: Vec<String> = self.outputs.iter().map(|o| o.name.clone()).collect();
        let (inner, args) = self.into_select();
        let from = Frag {
            sql: format!("({inner}) AS {}", quote(&alias)),
            args,
        };
        Rel {
            from,
            conditions: Vec::new(),
            order: Vec::new(),
            outputs: names
                .into_iter()
                .map(|name| Output {
                    expr: Frag::text(format!("{}.{}", quote(&alias), quote(&name))),
                    name,
                })
                .collect(),
            aggregated: false,
        }
    }

    fn column(&self, field: &Field, context: &str) -> Result<&Output, PlanError> {
        match field {
            Field::Index(index) => self
                .outputs
                .get(*index)
                .ok_or_else(|| PlanError::UnknownColumn(format!("#{index}"), context.to_owned())),
            Field::Name(name) => self
                .outputs
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| PlanError::UnknownColumn(name.clone(), context.to_owned())),
        }
    }
}

/// A field reference: by name or by 0-based index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    Name(String),
    Index(usize),
}

/// The alias of the table a scan or GET reads.
const TABLE_ALIAS: &str = "`t`";
/// The lookup number column of a GET with several lookups.
const LOOKUP_COLUMN: &str = "xrpc lookup";

struct Compiler<'a> {
    params: &'a Params<'a>,
    catalog: &'a mut dyn Catalog,
    depth: usize,
    /// The index of the table read, as MySQL names it.
    index: String,
}

/// A table resolved for a scan or GET.
struct Source {
    /// `schema`.`table` or `table`.
    table_ref: String,
    /// Display name for messages.
    name: String,
    shape: std::sync::Arc<TableShape>,
    /// The chosen index's parts.
    key: Vec<String>,
    /// Parts a key may constrain (`use_parts`).
    usable_parts: usize,
    /// Index parts then the primary key's other columns: the index order.
    order_columns: Vec<String>,
}

impl Compiler<'_> {
    fn plan(&mut self, plan: &ep::AnyPlan) -> Result<Rel, PlanError> {
        self.depth += 1;
        if self.depth > MAX_PLAN_DEPTH {
            return Err(malformed(format!(
                "the plan is nested more than {MAX_PLAN_DEPTH} levels deep"
            )));
        }
        let rel = self.plan_node(plan);
        self.depth -= 1;
        rel
    }

    fn plan_node(&mut self, plan: &ep::AnyPlan) -> Result<Rel, PlanError> {
        use ep::any_plan::PlanType;
        let missing = |what: &str| malformed(format!("plan_type {what} without its {what} node"));
        match PlanType::try_from(plan.plan_type) {
            Ok(PlanType::Get) => self.get(plan.get_plan.as_ref().ok_or_else(|| missing("GET"))?),
            Ok(PlanType::TableScan) => {
                let scan = plan
                    .table_scan_plan
                    .as_ref()
                    .ok_or_else(|| missing("TABLE_SCAN"))?;
                self.range(
                    Some(&scan.table_info),
                    scan.index_info.as_ref(),
                    None,
                    None,
                    scan.reverse.unwrap_or(false),
                )
            }
            Ok(PlanType::RangeScan) => {
                let scan = plan
                    .range_scan
                    .as_ref()
                    .ok_or_else(|| missing("RANGE_SCAN"))?;
                check_flag(scan.flag)?;
                self.range(
                    scan.table_info.as_ref(),
                    scan.index_info.as_ref(),
                    scan.key.as_ref(),
                    scan.end_key.as_ref(),
                    scan.reverse.unwrap_or(false),
                )
            }
            Ok(PlanType::TableProject) => {
                let project = plan
                    .table_project
                    .as_ref()
                    .ok_or_else(|| missing("TABLE_PROJECT"))?;
                let sub = self.sub(&project.sub_read_plan)?;
                self.table_project(sub, &project.fields)
            }
            Ok(PlanType::Project) => {
                let project = plan.project.as_ref().ok_or_else(|| missing("PROJECT"))?;
                let sub = self.sub(&project.sub_read_plan)?;
                self.project(sub, project)
            }
            Ok(PlanType::Filter) => {
                let filter = plan.filter.as_ref().ok_or_else(|| missing("FILTER"))?;
                let mut sub = self.sub(&filter.sub_read_plan)?;
                let condition = expr::compile(&filter.expr, &sub.outputs, self.params, false)?;
                sub.conditions.push(condition);
                Ok(sub)
            }
            Ok(PlanType::Aggr) => {
                let aggr = plan.aggr.as_ref().ok_or_else(|| missing("AGGR"))?;
                let sub = self.sub(&aggr.sub_read_plan)?;
                self.aggregate(sub, aggr)
            }
            Err(_) => Err(malformed(format!("unknown plan_type {}", plan.plan_type))),
        }
    }

    /// A child plan, wrapped if it is aggregated.
    fn sub(&mut self, plan: &ep::AnyPlan) -> Result<Rel, PlanError> {
        let rel = self.plan(plan)?;
        Ok(rel.wrapped(self.depth))
    }

    fn name_of(&self, scalar: &Scalar, what: &str) -> Result<String, PlanError> {
        let value = self.params.value(scalar)?;
        match value {
            Value::Bytes(bytes) => String::from_utf8(bytes.to_vec())
                .map_err(|_| malformed(format!("{what} is not valid UTF-8"))),
            other => Err(malformed(format!("{what} must be a string, got {other:?}"))),
        }
    }

    fn field_of(&self, scalar: &Scalar, what: &str) -> Result<Field, PlanError> {
        match self.params.value(scalar)? {
            Value::Bytes(bytes) => String::from_utf8(bytes.to_vec())
                .map(Field::Name)
                .map_err(|_| malformed(format!("{what} is not valid UTF-8"))),
            Value::Sint(i) if i >= 0 => Ok(Field::Index(i as usize)),
            Value::Uint(u) => Ok(Field::Index(usize::try_from(u).unwrap_or(usize::MAX))),
            other => Err(malformed(format!(
                "{what} must be a column name or a 0-based index, got {other:?}"
            ))),
        }
    }

    fn source(
        &mut self,
        table: Option<&ep::TableInfo>,
        index: Option<&ep::IndexInfo>,
    ) -> Result<Source, PlanError> {
        let table = table.ok_or_else(|| malformed("a scan without table_info"))?;
        let name = self.name_of(&table.name, "table_info.name")?;
        let schema = match &table.schema_name {
            Some(schema) => Some(self.name_of(schema, "table_info.schema_name")?),
            None => None,
        }
        .filter(|s| !s.is_empty());
        if name.is_empty() {
            return Err(malformed("table_info.name is empty"));
        }
        let shape = self
            .catalog
            .table(schema.as_deref(), &name)
            .map_err(PlanError::Catalog)?;
        let table_ref = match &schema {
            Some(schema) => format!("{}.{}", quote(schema), quote(&name)),
            None => quote(&name),
        };
        let display = match &schema {
            Some(schema) => format!("{schema}.{name}"),
            None => name.clone(),
        };
        let index_name = match index {
            Some(index) => Some(self.name_of(&index.name, "index_info.name")?),
            None => None,
        };
        let key = match index_name.as_deref() {
            None => shape.primary_key.clone().ok_or_else(|| {
                PlanError::Unsupported(format!(
                    "reading table '{display}' by primary key: it has none; name an index"
                ))
            })?,
            Some(index) if index.eq_ignore_ascii_case("PRIMARY") => shape
                .primary_key
                .clone()
                .ok_or_else(|| PlanError::UnknownIndex {
                    index: index.to_owned(),
                    table: display.clone(),
                })?,
            Some(index) => shape
                .indexes
                .iter()
                .find(|i| i.name.eq_ignore_ascii_case(index))
                .map(|i| i.columns.clone())
                .ok_or_else(|| PlanError::UnknownIndex {
                    index: index.to_owned(),
                    table: display.clone(),
                })?,
        };
        self.index = match index_name {
            Some(name) if !name.eq_ignore_ascii_case("PRIMARY") => name,
            _ => "PRIMARY".to_owned(),
        };
        let usable_parts = match index.and_then(|i| i.use_parts) {
            None => key.len(),
            Some(parts) if parts >= 1 && (parts as usize) <= key.len() => parts as usize,
            Some(parts) => {
                return Err(malformed(format!(
                    "use_parts {parts} is outside 1..={} for this index",
                    key.len()
                )));
            }
        };
        let mut order_columns = key.clone();
        for column in shape.primary_key.iter().flatten() {
            if !order_columns.iter().any(|c| c.eq_ignore_ascii_case(column)) {
                order_columns.push(column.clone());
            }
        }
        Ok(Source {
            table_ref,
            name: display,
            shape,
            key,
            usable_parts,
            order_columns,
        })
    }

    /// The equalities of one GetExpr, as (key part position, condition).
    fn key_conditions(
        &self,
        source: &Source,
        key: &ep::GetExpr,
        what: &str,
    ) -> Result<Vec<(usize, String, Arg)>, PlanError> {
        let mut parts: Vec<(usize, String, Arg)> = Vec::new();
        for key_expr in &key.keys {
            let column = match self.field_of(&key_expr.field, "a key field")? {
                Field::Index(index) => source
                    .shape
                    .columns
                    .get(index)
                    .cloned()
                    .ok_or_else(|| PlanError::UnknownColumn(format!("#{index}"), what.into()))?,
                Field::Name(name) => source
                    .shape
                    .columns
                    .iter()
                    .find(|c| c.eq_ignore_ascii_case(&name))
                    .cloned()
                    .ok_or_else(|| PlanError::UnknownColumn(name, what.into()))?,
            };
            let position = source.key[..source.usable_parts]
                .iter()
                .position(|c| c.eq_ignore_ascii_case(&column))
                .ok_or_else(|| {
                    malformed(format!(
                        "column '{column}' is not among the {} used key parts of the index \
                         read on '{}'",
                        source.usable_parts, source.name
                    ))
                })?;
            if parts.iter().any(|(p, ..)| *p == position) {
                return Err(malformed(format!(
                    "key part '{column}' appears twice in one key"
                )));
            }
            let (value, param) = self.params.arg(&key_expr.value)?;
            parts.push((position, column, Arg { value, param }));
        }
        parts.sort_by_key(|(p, ..)| *p);
        if parts.iter().enumerate().any(|(i, (p, ..))| i != *p) {
            return Err(malformed(format!(
                "the key parts of {what} must be a prefix of the index ({})",
                source.key.join(", ")
            )));
        }
        Ok(parts)
    }

    fn base(&self, source: &Source, columns: &[String], from: Frag, reverse: bool) -> Rel {
        let direction = if reverse { " DESC" } else { "" };
        Rel {
            from,
            conditions: Vec::new(),
            order: source
                .order_columns
                .iter()
                .map(|c| format!("{TABLE_ALIAS}.{}{direction}", quote(c)))
                .collect(),
            outputs: columns
                .iter()
                .map(|c| Output {
                    name: c.clone(),
                    expr: Frag::text(format!("{TABLE_ALIAS}.{}", quote(c))),
                })
                .collect(),
            aggregated: false,
        }
    }

    fn get(&mut self, get: &ep::GetPlan) -> Result<Rel, PlanError> {
        let source = self.source(Some(&get.table_info), get.index_info.as_ref())?;
        if get.keys.is_empty() {
            return Err(malformed(
                "a GET needs at least one key (a full read is TABLE_SCAN)",
            ));
        }
        let mut lookups = Vec::with_capacity(get.keys.len());
        // Whether every lookup finds at most one row: it sets every part of the primary key to
        // a value (not NULL, which `IS NULL` could match more than once on SQLite, whose
        // non-INTEGER primary keys admit NULLs). Such a lookup needs no ORDER BY, which is
        // parsed and planned by the engine on every run of the statement (the `mysql` engine
        // sends the text each time).
        let mut all_single_row = self.index == "PRIMARY";
        for key in &get.keys {
            if key.keys.is_empty() {
                return Err(malformed("a GET key without key parts"));
            }
            let parts = self.key_conditions(&source, key, "a GET key")?;
            all_single_row &= parts.len() == source.key.len()
                && parts.iter().all(|(.., arg)| arg.value != Value::Null);
            let mut condition = Frag::default();
            for (i, (_, column, arg)) in parts.into_iter().enumerate() {
                if i > 0 {
                    condition.sql.push_str(" AND ");
                }
                let column = format!("{TABLE_ALIAS}.{}", quote(&column));
                if arg.value == Value::Null {
                    self.params.shaped(arg.param, &arg.value);
                    let _ = write!(condition.sql, "{column} IS NULL");
                } else {
                    let _ = write!(condition.sql, "{column} = ?");
                    condition.args.push(arg);
                }
            }
            lookups.push(condition);
        }
        let table_from = Frag::text(format!("{} AS {TABLE_ALIAS}", source.table_ref));
        if lookups.len() == 1 {
            let mut rel = self.base(&source, &source.shape.columns, table_from, false);
            rel.conditions = lookups;
            if all_single_row {
                rel.order.clear();
            }
            return Ok(rel);
        }
        // Several lookups: a UNION ALL numbered by lookup, ordered by that number first.
        let mut from = Frag::text("(");
        for (i, condition) in lookups.iter().enumerate() {
            if i > 0 {
                from.sql.push_str(" UNION ALL ");
            }
            let _ = write!(
                from.sql,
                "SELECT {i} AS {}, {TABLE_ALIAS}.* FROM {} AS {TABLE_ALIAS} WHERE ",
                quote(LOOKUP_COLUMN),
                source.table_ref
            );
            from.push(condition);
        }
        let _ = write!(from.sql, ") AS {TABLE_ALIAS}");
        let mut rel = self.base(&source, &source.shape.columns, from, false);
        if all_single_row {
            rel.order.clear();
        }
        rel.order
            .insert(0, format!("{TABLE_ALIAS}.{}", quote(LOOKUP_COLUMN)));
        Ok(rel)
    }

    fn range(
        &mut self,
        table: Option<&ep::TableInfo>,
        index: Option<&ep::IndexInfo>,
        key: Option<&ep::GetExpr>,
        end_key: Option<&ep::GetExpr>,
        reverse: bool,
    ) -> Result<Rel, PlanError> {
        let source = self.source(table, index)?;
        let columns = source.shape.columns.clone();
        let from = Frag::text(format!("{} AS {TABLE_ALIAS}", source.table_ref));
        let mut rel = self.base(&source, &columns, from, reverse);
        // Forward: key is the lower bound; reverse: the upper one. end_key the other way round.
        for (bound, is_start) in [(key, true), (end_key, false)] {
            let Some(bound) = bound.filter(|b| !b.keys.is_empty()) else {
                continue;
            };
            let what = if is_start {
                "the start key"
            } else {
                "the end key"
            };
            let parts = self.key_conditions(&source, bound, what)?;
            if parts.iter().any(|(.., a)| a.value == Value::Null) {
                return Err(PlanError::Unsupported(format!("NULL in {what} of a range")));
            }
            let lower = is_start != reverse;
            let op = if lower { ">=" } else { "<=" };
            let columns: Vec<String> = parts
                .iter()
                .map(|(_, c, _)| format!("{TABLE_ALIAS}.{}", quote(c)))
                .collect();
            let marks = vec!["?"; parts.len()].join(", ");
            let sql = if parts.len() == 1 {
                format!("{} {op} ?", columns[0])
            } else {
                format!("({}) {op} ({marks})", columns.join(", "))
            };
            rel.conditions.push(Frag {
                sql,
                args: parts.into_iter().map(|(.., a)| a).collect(),
            });
        }
        Ok(rel)
    }

    fn table_project(&mut self, sub: Rel, fields: &[Scalar]) -> Result<Rel, PlanError> {
        if fields.is_empty() {
            return Err(malformed("TABLE_PROJECT without fields"));
        }
        let mut outputs = Vec::with_capacity(fields.len());
        for field in fields {
            let field = self.field_of(field, "a TABLE_PROJECT field")?;
            outputs.push(sub.column(&field, "TABLE_PROJECT")?.clone());
        }
        Ok(Rel { outputs, ..sub })
    }

    fn project(&mut self, sub: Rel, project: &ep::Project) -> Result<Rel, PlanError> {
        if project.exprs.is_empty() {
            return Err(malformed("PROJECT without exprs"));
        }
        if project.fields.len() != project.exprs.len() {
            return Err(malformed(format!(
                "PROJECT has {} fields for {} exprs",
                project.fields.len(),
                project.exprs.len()
            )));
        }
        let mut outputs = Vec::with_capacity(project.exprs.len());
        for (field, expression) in project.fields.iter().zip(&project.exprs) {
            let name = self.name_of(field, "a PROJECT field name")?;
            let expr = expr::compile(expression, &sub.outputs, self.params, false)?;
            outputs.push(Output { name, expr });
        }
        Ok(Rel { outputs, ..sub })
    }

    fn aggregate(&mut self, sub: Rel, aggr: &ep::Aggr) -> Result<Rel, PlanError> {
        use ep::aggr::AggrType;
        let (function, distinct) = match AggrType::try_from(aggr.r#type) {
            Ok(AggrType::CountFunc) => ("COUNT", false),
            Ok(AggrType::CountDistinctFunc) => ("COUNT", true),
            Ok(AggrType::SumFunc) => ("SUM", false),
            Ok(AggrType::SumDistinctFunc) => ("SUM", true),
            Ok(AggrType::AvgFunc) => ("AVG", false),
            Ok(AggrType::AvgDistinctFunc) => ("AVG", true),
            Ok(AggrType::MinFunc) => ("MIN", false),
            Ok(AggrType::MaxFunc) => ("MAX", false),
            Err(_) => return Err(malformed(format!("unknown AGGR type {}", aggr.r#type))),
        };
        let name = self.name_of(&aggr.field, "the AGGR field name")?;
        let star = function == "COUNT" && !distinct;
        let argument = expr::compile(&aggr.expr, &sub.outputs, self.params, star)?;
        let mut expr = Frag::text(format!(
            "{function}({}",
            if distinct { "DISTINCT " } else { "" }
        ));
        expr.push(&argument);
        expr.sql.push(')');
        Ok(Rel {
            outputs: vec![Output { name, expr }],
            order: Vec::new(),
            aggregated: true,
            ..sub
        })
    }
}

fn check_flag(flag: Option<i64>) -> Result<(), PlanError> {
    match flag {
        None | Some(0) => Ok(()),
        Some(flag) => Err(PlanError::Unsupported(format!(
            "scan flag {flag} (only 0 is understood)"
        ))),
    }
}

/// The value of a Scalar, following a V_PLACEHOLDER into `params`.
pub fn scalar_value(scalar: &Scalar, params: &[Scalar]) -> Result<Value, PlanError> {
    if scalar.r#type == ScalarType::VPlaceholder as i32 {
        let position = scalar
            .v_position
            .ok_or_else(|| malformed("V_PLACEHOLDER without v_position"))?;
        let param = params.get(position as usize).ok_or_else(|| {
            malformed(format!(
                "placeholder {position} has no parameter ({} given)",
                params.len()
            ))
        })?;
        if param.r#type == ScalarType::VPlaceholder as i32 {
            return Err(malformed(format!(
                "parameter {position} is itself a placeholder"
            )));
        }
        return scalar_value(param, &[]);
    }
    let missing = |what: &str| malformed(format!("a {what} scalar without its value"));
    Ok(match ScalarType::try_from(scalar.r#type) {
        Ok(ScalarType::VSint) => Value::Sint(scalar.v_signed_int.ok_or_else(|| missing("V_SINT"))?),
        Ok(ScalarType::VUint) => {
            Value::Uint(scalar.v_unsigned_int.ok_or_else(|| missing("V_UINT"))?)
        }
        Ok(ScalarType::VNull) => Value::Null,
        Ok(ScalarType::VOctets) => Value::Bytes(
            scalar
                .v_octets
                .as_ref()
                .ok_or_else(|| missing("V_OCTETS"))?
                .value
                .clone(),
        ),
        Ok(ScalarType::VDouble) => {
            Value::Double(scalar.v_double.ok_or_else(|| missing("V_DOUBLE"))?)
        }
        Ok(ScalarType::VFloat) => Value::Float(scalar.v_float.ok_or_else(|| missing("V_FLOAT"))?),
        Ok(ScalarType::VBool) => {
            Value::Sint(i64::from(scalar.v_bool.ok_or_else(|| missing("V_BOOL"))?))
        }
        Ok(ScalarType::VString) => Value::Bytes(
            scalar
                .v_string
                .as_ref()
                .ok_or_else(|| missing("V_STRING"))?
                .value
                .clone(),
        ),
        Ok(ScalarType::VIdentifier) => Value::Bytes(
            scalar
                .v_identifier
                .as_ref()
                .ok_or_else(|| missing("V_IDENTIFIER"))?
                .value
                .clone(),
        ),
        Ok(ScalarType::VRawString) => {
            return Err(PlanError::Unsupported(
                "V_RAW_STRING values in plans".into(),
            ));
        }
        Ok(ScalarType::VPlaceholder) => unreachable!("handled above"),
        Err(_) => return Err(malformed(format!("unknown scalar type {}", scalar.r#type))),
    })
}

#[cfg(test)]
mod tests;
