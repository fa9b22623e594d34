//! Typed builders for EXEC_PLAN_READ plans: reads a compute node pushes down instead of SQL.
//!
//! A [`Plan`] starts at a read of a table (a point [`Plan::get`], a [`Plan::range`] or a full
//! [`Plan::table_scan`]) and is wrapped by the nodes above it: [`Plan::project`] (TABLE_PROJECT,
//! a column subset), [`Plan::compute`] (PROJECT, computed columns), [`Plan::filter`] and
//! [`Plan::aggregate`]. Values are literals or [`placeholder`]s, which the request's parameters
//! fill, so one plan serves every key. The node's semantics are in `docs/PROTOCOL.md`
//! ("EXEC_PLAN_READ").
//!
//! ```
//! use xrpc_client::plan::{Aggregate, Expr, Plan, placeholder};
//!
//! // SELECT name FROM users WHERE id = ?  (a point get by primary key)
//! let by_id = Plan::get("users").key([("id", placeholder(0))]).build().project(["name"]);
//! // SELECT COUNT(*) FROM orders WHERE (user_id) BETWEEN 10 AND 20 AND total > 100
//! let count = Plan::range("orders")
//!     .index("by_user")
//!     .from_key([("user_id", 10i64)])
//!     .to_key([("user_id", 20i64)])
//!     .build()
//!     .filter(Expr::col("total").gt(100i64))
//!     .aggregate(Aggregate::Count, "n", Expr::star());
//! assert_eq!(count.into_proto().plan_type, 9);
//! # let _ = by_id;
//! ```

use bytes::Bytes;
use xrpc_proto::messages::pb;

use crate::Param;

use pb::datatypes as dt;
use pb::exec_plan as ep;
use pb::expr as ex;

/// A value in a plan: a literal, or a placeholder for the request's parameter at a position.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A literal value.
    Value(Param),
    /// The request parameter at this 0-based position.
    Placeholder(u32),
}

impl<T: Into<Param>> From<T> for Operand {
    fn from(value: T) -> Self {
        Operand::Value(value.into())
    }
}

/// The request parameter at 0-based `position`.
pub fn placeholder(position: u32) -> Operand {
    Operand::Placeholder(position)
}

impl Operand {
    fn to_scalar(&self) -> dt::Scalar {
        match self {
            Operand::Value(param) => param_scalar(param),
            Operand::Placeholder(position) => dt::Scalar {
                r#type: dt::scalar::Type::VPlaceholder as i32,
                v_position: Some(*position),
                ..Default::default()
            },
        }
    }
}

/// The Scalar a parameter or literal is sent as.
pub fn param_scalar(param: &Param) -> dt::Scalar {
    param
        .to_any()
        .scalar
        .expect("Param::to_any always builds a scalar")
}

fn string_scalar(text: &str) -> dt::Scalar {
    dt::Scalar {
        r#type: dt::scalar::Type::VString as i32,
        v_string: Some(dt::scalar::String {
            value: Bytes::copy_from_slice(text.as_bytes()),
            collation: None,
        }),
        ..Default::default()
    }
}

/// A column named or numbered (0-based) in a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldRef {
    /// By name.
    Name(String),
    /// By 0-based index.
    Index(u32),
}

impl From<&str> for FieldRef {
    fn from(name: &str) -> Self {
        FieldRef::Name(name.to_owned())
    }
}

impl From<String> for FieldRef {
    fn from(name: String) -> Self {
        FieldRef::Name(name)
    }
}

impl From<u32> for FieldRef {
    fn from(index: u32) -> Self {
        FieldRef::Index(index)
    }
}

impl FieldRef {
    fn to_scalar(&self) -> dt::Scalar {
        match self {
            FieldRef::Name(name) => string_scalar(name),
            FieldRef::Index(index) => dt::Scalar {
                r#type: dt::scalar::Type::VUint as i32,
                v_unsigned_int: Some(u64::from(*index)),
                ..Default::default()
            },
        }
    }
}

fn get_expr<F: Into<FieldRef>, V: Into<Operand>>(
    keys: impl IntoIterator<Item = (F, V)>,
) -> ep::GetExpr {
    ep::GetExpr {
        keys: keys
            .into_iter()
            .map(|(field, value)| ep::KeyExpr {
                field: field.into().to_scalar(),
                value: value.into().to_scalar(),
            })
            .collect(),
    }
}

fn table_info(table: &str, schema: Option<&str>) -> ep::TableInfo {
    ep::TableInfo {
        version: None,
        name: string_scalar(table),
        schema_name: schema.map(string_scalar),
    }
}

fn index_info(index: Option<&str>, use_parts: Option<i32>) -> Option<ep::IndexInfo> {
    match (index, use_parts) {
        (None, None) => None,
        (index, use_parts) => Some(ep::IndexInfo {
            name: string_scalar(index.unwrap_or("PRIMARY")),
            use_parts,
        }),
    }
}

/// An aggregate function of [`Plan::aggregate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// COUNT (with [`Expr::star`], `COUNT(*)`).
    Count,
    /// COUNT(DISTINCT …).
    CountDistinct,
    /// SUM.
    Sum,
    /// SUM(DISTINCT …).
    SumDistinct,
    /// AVG.
    Avg,
    /// AVG(DISTINCT …).
    AvgDistinct,
    /// MIN.
    Min,
    /// MAX.
    Max,
}

impl Aggregate {
    fn proto(self) -> ep::aggr::AggrType {
        use ep::aggr::AggrType as T;
        match self {
            Aggregate::Count => T::CountFunc,
            Aggregate::CountDistinct => T::CountDistinctFunc,
            Aggregate::Sum => T::SumFunc,
            Aggregate::SumDistinct => T::SumDistinctFunc,
            Aggregate::Avg => T::AvgFunc,
            Aggregate::AvgDistinct => T::AvgDistinctFunc,
            Aggregate::Min => T::MinFunc,
            Aggregate::Max => T::MaxFunc,
        }
    }
}

/// An expression of a FILTER, PROJECT or AGGR node (`expr.proto`).
#[derive(Debug, Clone, PartialEq)]
pub struct Expr(pub ex::Expr);

impl Expr {
    fn of_type(ty: ex::expr::Type) -> ex::Expr {
        ex::Expr {
            r#type: ty as i32,
            ..Default::default()
        }
    }

    /// The input column `name`.
    pub fn col(name: &str) -> Self {
        let mut expr = Self::of_type(ex::expr::Type::Ident);
        expr.identifier = Some(ex::ColumnIdentifier {
            name: Some(name.to_owned()),
            ..Default::default()
        });
        Expr(expr)
    }

    /// `*`, for `COUNT(*)`.
    pub fn star() -> Self {
        Self::col("*")
    }

    /// The input column at 0-based `index` (a REF).
    pub fn column_ref(index: u32) -> Self {
        let mut expr = Self::of_type(ex::expr::Type::Ref);
        expr.ref_id = Some(index);
        Expr(expr)
    }

    /// A literal, or a placeholder.
    pub fn value(value: impl Into<Operand>) -> Self {
        match value.into() {
            Operand::Value(param) => {
                let mut expr = Self::of_type(ex::expr::Type::Literal);
                expr.literal = Some(param_scalar(&param));
                Expr(expr)
            }
            Operand::Placeholder(position) => {
                let mut expr = Self::of_type(ex::expr::Type::Placeholder);
                expr.position = Some(position);
                Expr(expr)
            }
        }
    }

    /// The operator `name` (X protocol names: `==`, `&&`, `in`, `between`, …) over `params`.
    pub fn op(name: &str, params: impl IntoIterator<Item = Expr>) -> Self {
        let mut expr = Self::of_type(ex::expr::Type::Operator);
        expr.operator = Some(ex::Operator {
            name: name.to_owned(),
            param: params.into_iter().map(|p| p.0).collect(),
        });
        Expr(expr)
    }

    /// The function `name` over `params`.
    pub fn call(name: &str, params: impl IntoIterator<Item = Expr>) -> Self {
        let mut expr = Self::of_type(ex::expr::Type::FuncCall);
        expr.function_call = Some(ex::FunctionCall {
            name: ex::Identifier {
                name: name.to_owned(),
                schema_name: None,
            },
            param: params.into_iter().map(|p| p.0).collect(),
        });
        Expr(expr)
    }

    fn binary(self, name: &str, other: impl Into<ExprOrValue>) -> Self {
        Self::op(name, [self, other.into().0])
    }

    /// `self = other`.
    pub fn eq(self, other: impl Into<ExprOrValue>) -> Self {
        self.binary("==", other)
    }
    /// `self <> other`.
    pub fn ne(self, other: impl Into<ExprOrValue>) -> Self {
        self.binary("!=", other)
    }
    /// `self < other`.
    pub fn lt(self, other: impl Into<ExprOrValue>) -> Self {
        self.binary("<", other)
    }
    /// `self <= other`.
    pub fn le(self, other: impl Into<ExprOrValue>) -> Self {
        self.binary("<=", other)
    }
    /// `self > other`.
    pub fn gt(self, other: impl Into<ExprOrValue>) -> Self {
        self.binary(">", other)
    }
    /// `self >= other`.
    pub fn ge(self, other: impl Into<ExprOrValue>) -> Self {
        self.binary(">=", other)
    }
    /// `self AND other`.
    pub fn and(self, other: Expr) -> Self {
        self.binary("&&", other)
    }
    /// `self OR other`.
    pub fn or(self, other: Expr) -> Self {
        self.binary("||", other)
    }
    /// `NOT self`.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Self::op("not", [self])
    }
    /// `self IS NULL`.
    pub fn is_null(self) -> Self {
        Self::op("is", [self, Expr::value(Param::Null)])
    }
}

/// An operand of a comparison: an [`Expr`] or a value.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprOrValue(Expr);

impl From<Expr> for ExprOrValue {
    fn from(expr: Expr) -> Self {
        ExprOrValue(expr)
    }
}

impl<T: Into<Operand>> From<T> for ExprOrValue {
    fn from(value: T) -> Self {
        ExprOrValue(Expr::value(value))
    }
}

/// A plan tree, ready to send with [`Plan::request`].
#[derive(Debug, Clone, PartialEq)]
pub struct Plan(ep::AnyPlan);

impl Plan {
    /// Point lookups in `table` (GET): add one [`GetBuilder::key`] per lookup.
    pub fn get(table: &str) -> GetBuilder {
        GetBuilder {
            table: table.to_owned(),
            schema: None,
            index: None,
            keys: Vec::new(),
        }
    }

    /// A range of `table` in index order (RANGE_SCAN).
    pub fn range(table: &str) -> RangeBuilder {
        RangeBuilder {
            table: table.to_owned(),
            schema: None,
            index: None,
            use_parts: None,
            from: None,
            to: None,
            reverse: false,
        }
    }

    /// All of `table` in primary key order (TABLE_SCAN); see [`Plan::table_scan_by`].
    pub fn table_scan(table: &str) -> Plan {
        Self::table_scan_by(table, None, None, false)
    }

    /// All of `table` in `index` order (the primary key when `None`), descending if `reverse`.
    pub fn table_scan_by(
        table: &str,
        schema: Option<&str>,
        index: Option<&str>,
        reverse: bool,
    ) -> Plan {
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::TableScan as i32,
            table_scan_plan: Some(ep::TableScanPlan {
                table_info: table_info(table, schema),
                index_info: index_info(index, None),
                reverse: reverse.then_some(true),
            }),
            ..Default::default()
        })
    }

    /// Only these columns of the child, in this order (TABLE_PROJECT).
    pub fn project<F: Into<FieldRef>>(self, fields: impl IntoIterator<Item = F>) -> Plan {
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::TableProject as i32,
            table_project: Some(Box::new(ep::TableProject {
                sub_read_plan: Box::new(self.0),
                fields: fields.into_iter().map(|f| f.into().to_scalar()).collect(),
            })),
            ..Default::default()
        })
    }

    /// Computed columns, each named (PROJECT).
    pub fn compute<'a>(self, outputs: impl IntoIterator<Item = (&'a str, Expr)>) -> Plan {
        let (fields, exprs): (Vec<_>, Vec<_>) = outputs
            .into_iter()
            .map(|(name, expr)| (string_scalar(name), expr.0))
            .unzip();
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::Project as i32,
            project: Some(Box::new(ep::Project {
                sub_read_plan: Box::new(self.0),
                fields,
                exprs,
            })),
            ..Default::default()
        })
    }

    /// The child's rows for which `condition` is true (FILTER).
    pub fn filter(self, condition: Expr) -> Plan {
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::Filter as i32,
            filter: Some(Box::new(ep::Filter {
                sub_read_plan: Box::new(self.0),
                expr: condition.0,
            })),
            ..Default::default()
        })
    }

    /// One row, one column `name`: `function` over `argument` for the child's rows (AGGR).
    pub fn aggregate(self, function: Aggregate, name: &str, argument: Expr) -> Plan {
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::Aggr as i32,
            aggr: Some(Box::new(ep::Aggr {
                sub_read_plan: Box::new(self.0),
                r#type: function.proto() as i32,
                field: string_scalar(name),
                expr: argument.0,
            })),
            ..Default::default()
        })
    }

    /// The plan as its protobuf message.
    pub fn into_proto(self) -> ep::AnyPlan {
        self.0
    }

    /// An EXEC_PLAN_READ request for this plan with `params` filling its placeholders.
    pub fn request(&self, params: &[Param]) -> ep::ExecPlan {
        ep::ExecPlan {
            plan: Some(Box::new(self.0.clone())),
            parameters: params.iter().map(param_scalar).collect(),
            ..Default::default()
        }
    }

    /// The plan's digest: the first 16 bytes of the SHA-1 of its encoding, as for statements.
    /// Any stable name would do; the server only matches it.
    pub fn digest(&self) -> Bytes {
        let encoded = prost::Message::encode_to_vec(&self.0);
        Bytes::copy_from_slice(&crate::proto::statement_digest(&encoded))
    }

    /// A request that also carries `digest` ([`Plan::digest`]), which makes the node keep the
    /// plan under it: later requests may then send [`Plan::request_by_digest`].
    pub fn request_with_digest(&self, digest: &Bytes, params: &[Param]) -> ep::ExecPlan {
        ep::ExecPlan {
            plan_digest: Some(digest.clone()),
            ..self.request(params)
        }
    }

    /// A request that sends only `digest`, for a plan the node keeps (sent before with
    /// [`Plan::request_with_digest`]). A node that no longer has it answers
    /// `PLAN_CACHE_MISS`; then send the whole plan again, as a compute node does.
    pub fn request_by_digest(digest: &Bytes, params: &[Param]) -> ep::ExecPlan {
        ep::ExecPlan {
            plan_digest: Some(digest.clone()),
            parameters: params.iter().map(param_scalar).collect(),
            ..Default::default()
        }
    }
}

impl From<Plan> for ep::AnyPlan {
    fn from(plan: Plan) -> Self {
        plan.0
    }
}

/// Builds a GET; see [`Plan::get`].
#[derive(Debug, Clone)]
pub struct GetBuilder {
    table: String,
    schema: Option<String>,
    index: Option<String>,
    keys: Vec<ep::GetExpr>,
}

impl GetBuilder {
    /// The table's schema (the session's when not set); it does not switch the session's.
    pub fn schema(mut self, schema: &str) -> Self {
        self.schema = Some(schema.to_owned());
        self
    }

    /// Looks up through this index (`PRIMARY`, or not set, for the primary key).
    pub fn index(mut self, index: &str) -> Self {
        self.index = Some(index.to_owned());
        self
    }

    /// One lookup: equalities on key parts (a prefix of the index), AND-ed.
    pub fn key<F: Into<FieldRef>, V: Into<Operand>>(
        mut self,
        parts: impl IntoIterator<Item = (F, V)>,
    ) -> Self {
        self.keys.push(get_expr(parts));
        self
    }

    /// The GET plan.
    pub fn build(self) -> Plan {
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::Get as i32,
            get_plan: Some(ep::GetPlan {
                table_info: table_info(&self.table, self.schema.as_deref()),
                index_info: index_info(self.index.as_deref(), None),
                keys: self.keys,
            }),
            ..Default::default()
        })
    }
}

/// Builds a RANGE_SCAN; see [`Plan::range`].
#[derive(Debug, Clone)]
pub struct RangeBuilder {
    table: String,
    schema: Option<String>,
    index: Option<String>,
    use_parts: Option<i32>,
    from: Option<ep::GetExpr>,
    to: Option<ep::GetExpr>,
    reverse: bool,
}

impl RangeBuilder {
    /// The table's schema (the session's when not set); it does not switch the session's.
    pub fn schema(mut self, schema: &str) -> Self {
        self.schema = Some(schema.to_owned());
        self
    }

    /// Scans this index (the primary key when not set).
    pub fn index(mut self, index: &str) -> Self {
        self.index = Some(index.to_owned());
        self
    }

    /// Uses only the first `parts` key parts.
    pub fn use_parts(mut self, parts: i32) -> Self {
        self.use_parts = Some(parts);
        self
    }

    /// Where the scan starts (inclusive): a prefix of the index.
    pub fn from_key<F: Into<FieldRef>, V: Into<Operand>>(
        mut self,
        parts: impl IntoIterator<Item = (F, V)>,
    ) -> Self {
        self.from = Some(get_expr(parts));
        self
    }

    /// Where the scan stops (inclusive): a prefix of the index. Without it, the end of the index.
    pub fn to_key<F: Into<FieldRef>, V: Into<Operand>>(
        mut self,
        parts: impl IntoIterator<Item = (F, V)>,
    ) -> Self {
        self.to = Some(get_expr(parts));
        self
    }

    /// Scans downward: the start key is then the upper bound.
    pub fn reverse(mut self, reverse: bool) -> Self {
        self.reverse = reverse;
        self
    }

    /// The RANGE_SCAN plan.
    pub fn build(self) -> Plan {
        Plan(ep::AnyPlan {
            plan_type: ep::any_plan::PlanType::RangeScan as i32,
            range_scan: Some(ep::RangeScan {
                table_info: Some(table_info(&self.table, self.schema.as_deref())),
                index_info: index_info(self.index.as_deref(), self.use_parts),
                key: self.from,
                end_key: self.to,
                reverse: self.reverse.then_some(true),
                ..Default::default()
            }),
            ..Default::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_get_by_placeholder_has_the_shape_upstream_sends() {
        let plan = Plan::get("t").key([("id", placeholder(0))]).build();
        let request = plan.request(&[7i64.into()]);
        let get = request.plan.unwrap().get_plan.unwrap();
        assert_eq!(get.index_info, None, "no index means the primary key");
        let key = &get.keys[0].keys[0];
        assert_eq!(key.value.r#type, dt::scalar::Type::VPlaceholder as i32);
        assert_eq!(key.value.v_position, Some(0));
        assert_eq!(request.parameters[0].v_signed_int, Some(7));
    }

    #[test]
    fn nodes_nest_child_first() {
        let plan = Plan::table_scan("t")
            .filter(Expr::col("a").gt(1i64))
            .project([1u32])
            .into_proto();
        assert_eq!(plan.plan_type, ep::any_plan::PlanType::TableProject as i32);
        let project = plan.table_project.unwrap();
        assert_eq!(project.fields[0].v_unsigned_int, Some(1));
        assert_eq!(
            project.sub_read_plan.plan_type,
            ep::any_plan::PlanType::Filter as i32
        );
    }
}
