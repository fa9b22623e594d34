//! The compiler against a fixed catalog: the SQL and arguments each node produces, and the
//! errors of bad plans. End-to-end behaviour (the same rows as SQL) is in the node's `tests/it/plan.rs`.

use std::collections::HashMap;

use xrpc_client::Param;
use xrpc_client::plan::{Aggregate, Expr, Operand, Plan, placeholder};
use xrpc_proto::codes;
use xrpc_proto::messages::pb;
use xrpc_proto::value::Value;

use super::*;

/// `t(id PK, k UNIQUE "uk", a, b)` with index `ab(a, b)`, and `nopk(x)` without a primary key.
struct FixedCatalog(HashMap<String, TableShape>);

impl FixedCatalog {
    fn new() -> Self {
        let mut tables = HashMap::new();
        tables.insert(
            "t".to_owned(),
            TableShape {
                columns: ["id", "k", "a", "b"].map(String::from).to_vec(),
                primary_key: Some(vec!["id".into()]),
                indexes: vec![
                    IndexShape {
                        name: "uk".into(),
                        columns: vec!["k".into()],
                    },
                    IndexShape {
                        name: "ab".into(),
                        columns: vec!["a".into(), "b".into()],
                    },
                ],
            },
        );
        tables.insert(
            "nopk".to_owned(),
            TableShape {
                columns: vec!["x".into()],
                primary_key: None,
                indexes: Vec::new(),
            },
        );
        Self(tables)
    }
}

impl Catalog for FixedCatalog {
    fn table(
        &mut self,
        _schema: Option<&str>,
        name: &str,
    ) -> Result<std::sync::Arc<TableShape>, SqlError> {
        self.0
            .get(name)
            .cloned()
            .map(std::sync::Arc::new)
            .ok_or_else(|| {
                SqlError::new(
                    &codes::NO_SUCH_TABLE,
                    format!("Table '{name}' doesn't exist"),
                )
            })
    }
}

fn compile_with(plan: Plan, params: &[Param]) -> Result<CompiledPlan, PlanError> {
    let request = plan.request(params);
    compile(
        &request.plan.unwrap(),
        &request.parameters,
        &mut FixedCatalog::new(),
    )
}

fn ok(plan: Plan, params: &[Param]) -> CompiledPlan {
    compile_with(plan, params).unwrap()
}

fn code_of(plan: Plan, params: &[Param]) -> u32 {
    let err = compile_with(plan, params).unwrap_err();
    SqlError::from(err).code
}

#[test]
fn point_get_by_primary_key_binds_the_placeholder() {
    let compiled = ok(
        Plan::get("t").key([("id", placeholder(0))]).build(),
        &[5i64.into()],
    );
    assert_eq!(
        compiled.sql,
        "SELECT `t`.`id`, `t`.`k`, `t`.`a`, `t`.`b` FROM `t` AS `t` WHERE (`t`.`id` = ?)"
    );
    assert_eq!(compiled.args, [Value::Sint(5)]);
}

#[test]
fn only_lookups_of_one_row_each_go_without_order_by() {
    // A NULL primary key part may match several rows (SQLite admits them): ordered.
    let null_key = ok(Plan::get("t").key([("id", Param::Null)]).build(), &[]);
    assert!(
        null_key
            .sql
            .ends_with("WHERE (`t`.`id` IS NULL) ORDER BY `t`.`id`"),
        "{}",
        null_key.sql
    );
    // Several full primary-key lookups: in lookup order, nothing else to order.
    let several = ok(
        Plan::get("t")
            .key([("id", 1i64)])
            .key([("id", 2i64)])
            .build(),
        &[],
    );
    assert!(
        several.sql.ends_with("AS `t` ORDER BY `t`.`xrpc lookup`"),
        "{}",
        several.sql
    );
    // A full key of a secondary index is not known to be unique: ordered.
    let secondary = ok(
        Plan::get("t")
            .index("AB")
            .key([("a", 1i64), ("b", 2i64)])
            .build(),
        &[],
    );
    assert!(secondary.sql.contains(" ORDER BY "), "{}", secondary.sql);
}

#[test]
fn a_get_by_secondary_index_orders_by_index_then_primary_key() {
    let compiled = ok(
        Plan::get("t")
            .index("AB")
            .key([("b", 2i64), ("a", 1i64)])
            .build()
            .project(["b", "id"]),
        &[],
    );
    assert_eq!(
        compiled.sql,
        "SELECT `t`.`b`, `t`.`id` FROM `t` AS `t` \
         WHERE (`t`.`a` = ? AND `t`.`b` = ?) ORDER BY `t`.`a`, `t`.`b`, `t`.`id`"
    );
    assert_eq!(compiled.args, [Value::Sint(1), Value::Sint(2)], "key order");
}

#[test]
fn several_lookups_are_a_numbered_union_in_lookup_order() {
    let compiled = ok(
        Plan::get("t")
            .key([("id", 3i64)])
            .key([("id", Param::Null)])
            .build(),
        &[],
    );
    assert!(
        compiled.sql.contains(
            "FROM (SELECT 0 AS `xrpc lookup`, `t`.* FROM `t` AS `t` WHERE `t`.`id` = ? \
             UNION ALL SELECT 1 AS `xrpc lookup`, `t`.* FROM `t` AS `t` WHERE `t`.`id` IS NULL) \
             AS `t` ORDER BY `t`.`xrpc lookup`, `t`.`id`"
        ),
        "{}",
        compiled.sql
    );
    assert_eq!(compiled.args, [Value::Sint(3)]);
}

#[test]
fn ranges_bound_a_prefix_and_reverse_swaps_the_bounds() {
    let forward = ok(
        Plan::range("t")
            .index("ab")
            .from_key([("a", 1i64)])
            .to_key([("a", 2i64), ("b", 3i64)])
            .build(),
        &[],
    );
    assert!(
        forward
            .sql
            .ends_with("WHERE (`t`.`a` >= ?) AND ((`t`.`a`, `t`.`b`) <= (?, ?)) ORDER BY `t`.`a`, `t`.`b`, `t`.`id`"),
        "{}",
        forward.sql
    );
    assert_eq!(
        forward.args,
        [Value::Sint(1), Value::Sint(2), Value::Sint(3)]
    );
    let reverse = ok(
        Plan::range("t")
            .from_key([("id", 9i64)])
            .reverse(true)
            .build(),
        &[],
    );
    assert!(
        reverse
            .sql
            .ends_with("WHERE (`t`.`id` <= ?) ORDER BY `t`.`id` DESC"),
        "{}",
        reverse.sql
    );
}

#[test]
fn filter_and_compute_inline_their_inputs() {
    let compiled = ok(
        Plan::table_scan("t")
            .compute([("s", Expr::op("+", [Expr::col("a"), Expr::value(1i64)]))])
            .filter(Expr::col("s").gt(placeholder(0))),
        &[10i64.into()],
    );
    assert_eq!(
        compiled.sql,
        "SELECT (((`t`.`a`)) + (?)) AS `s` FROM `t` AS `t` \
         WHERE (((((((`t`.`a`)) + (?)))) > (?))) ORDER BY `t`.`id`"
    );
    assert_eq!(
        compiled.args,
        [Value::Sint(1), Value::Sint(1), Value::Sint(10)],
        "an inlined expression brings its arguments each time it appears"
    );
}

#[test]
fn count_star_over_a_range_drops_the_order() {
    let compiled = ok(
        Plan::range("t").from_key([("id", 1i64)]).build().aggregate(
            Aggregate::Count,
            "n",
            Expr::star(),
        ),
        &[],
    );
    assert_eq!(
        compiled.sql,
        "SELECT COUNT(*) AS `n` FROM `t` AS `t` WHERE (`t`.`id` >= ?)"
    );
}

#[test]
fn a_node_over_an_aggregate_reads_it_as_a_derived_table() {
    let compiled = ok(
        Plan::table_scan("t")
            .aggregate(Aggregate::SumDistinct, "s", Expr::col("a"))
            .filter(Expr::col("s").is_null().not()),
        &[],
    );
    assert_eq!(
        compiled.sql,
        "SELECT `xrpc_d1`.`s` AS `s` FROM (SELECT SUM(DISTINCT (`t`.`a`)) AS `s` FROM `t` AS `t`) \
         AS `xrpc_d1` WHERE ((NOT ((((`xrpc_d1`.`s`)) IS NULL))))"
    );
}

#[test]
fn fields_by_index_and_refs() {
    let compiled = ok(
        Plan::table_scan("t")
            .project([3u32, 0u32])
            .compute([("x", Expr::column_ref(1))]),
        &[],
    );
    assert!(
        compiled.sql.starts_with("SELECT (`t`.`id`) AS `x`"),
        "{}",
        compiled.sql
    );
    assert_eq!(code_of(Plan::table_scan("t").project([4u32]), &[]), 1054);
    assert_eq!(
        code_of(
            Plan::table_scan("t").compute([("x", Expr::column_ref(9))]),
            &[]
        ),
        1054
    );
    assert_eq!(code_of(Plan::table_scan("t").project(["nope"]), &[]), 1054);
    assert_eq!(
        code_of(Plan::get("t").key([(7u32, 1i64)]).build(), &[]),
        1054,
        "a key field index out of the table's columns"
    );
}

#[test]
fn catalog_errors_keep_their_codes() {
    assert_eq!(code_of(Plan::table_scan("missing"), &[]), 1146);
    assert_eq!(
        code_of(Plan::table_scan_by("t", None, Some("nope"), false), &[]),
        1176
    );
    assert_eq!(
        code_of(Plan::table_scan("nopk"), &[]),
        1235,
        "no primary key to read by"
    );
}

#[test]
fn bad_key_shapes_are_refused() {
    // b without a: not a prefix of ab.
    assert_eq!(
        code_of(Plan::get("t").index("ab").key([("b", 1i64)]).build(), &[]),
        1210
    );
    // a column outside the index.
    assert_eq!(
        code_of(Plan::get("t").key([("k", 1i64)]).build(), &[]),
        1210
    );
    // use_parts limits the usable parts.
    assert_eq!(
        code_of(
            Plan::range("t")
                .index("ab")
                .use_parts(1)
                .from_key([("a", 1i64), ("b", 1i64)])
                .build(),
            &[]
        ),
        1210
    );
    assert_eq!(
        code_of(Plan::range("t").use_parts(2).build(), &[]),
        1210,
        "more parts than the key has"
    );
    assert_eq!(code_of(Plan::get("t").build(), &[]), 1210, "no key at all");
    assert_eq!(
        code_of(
            Plan::range("t").from_key([("id", Param::Null)]).build(),
            &[]
        ),
        1235
    );
}

#[test]
fn placeholders_need_their_parameters() {
    let plan = Plan::get("t").key([("id", placeholder(1))]).build();
    let err = compile_with(plan, &[1i64.into()]).unwrap_err();
    assert_eq!(
        err,
        PlanError::Malformed("placeholder 1 has no parameter (1 given)".into())
    );
    let filter = Plan::table_scan("t").filter(Expr::col("a").eq(placeholder(0)));
    assert_eq!(code_of(filter, &[]), 1210);
}

#[test]
fn unknown_nodes_and_missing_children_are_malformed() {
    let mut plan = pb::exec_plan::AnyPlan {
        plan_type: 7,
        ..Default::default()
    };
    let err = compile(&plan, &[], &mut FixedCatalog::new()).unwrap_err();
    assert_eq!(err, PlanError::Malformed("unknown plan_type 7".into()));
    plan.plan_type = pb::exec_plan::any_plan::PlanType::Filter as i32;
    let err = compile(&plan, &[], &mut FixedCatalog::new()).unwrap_err();
    assert_eq!(
        err,
        PlanError::Malformed("plan_type FILTER without its FILTER node".into())
    );
}

#[test]
fn absurd_depth_is_refused_before_any_work() {
    let mut plan = Plan::table_scan("t");
    for _ in 0..MAX_PLAN_DEPTH {
        plan = plan.filter(Expr::value(1i64));
    }
    let err = compile_with(plan, &[]).unwrap_err();
    assert!(
        matches!(err, PlanError::Malformed(ref m) if m.contains("nested")),
        "{err}"
    );
    let mut expr = Expr::value(1i64);
    for _ in 0..MAX_EXPR_DEPTH {
        expr = expr.not();
    }
    assert_eq!(code_of(Plan::table_scan("t").filter(expr), &[]), 1210);
}

#[test]
fn unsupported_expressions_are_refused_not_guessed() {
    for expr in [
        Expr::op("/", [Expr::col("a"), Expr::value(2i64)]),
        Expr::op("xor", [Expr::col("a"), Expr::value(2i64)]),
        Expr::call("length", [Expr::col("a")]),
        Expr::call("sleep", [Expr::value(1i64)]),
    ] {
        assert_eq!(code_of(Plan::table_scan("t").filter(expr), &[]), 1235);
    }
    let mut variable = Expr::value(1i64);
    variable.0.r#type = pb::expr::expr::Type::Variable as i32;
    assert_eq!(code_of(Plan::table_scan("t").filter(variable), &[]), 1235);
}

#[test]
fn flags_are_refused_and_names_may_be_placeholders() {
    let mut plan = Plan::range("t").build().into_proto();
    plan.range_scan.as_mut().unwrap().flag = Some(1);
    let err = compile(&plan, &[], &mut FixedCatalog::new()).unwrap_err();
    assert_eq!(SqlError::from(err).code, 1235);

    let mut plan = Plan::table_scan("ignored").into_proto();
    plan.table_scan_plan.as_mut().unwrap().table_info.name = pb::datatypes::Scalar {
        r#type: pb::datatypes::scalar::Type::VPlaceholder as i32,
        v_position: Some(0),
        ..Default::default()
    };
    let params = [xrpc_client::plan::param_scalar(&"t".into())];
    let compiled = compile(&plan, &params, &mut FixedCatalog::new()).unwrap();
    assert!(compiled.sql.contains("FROM `t` AS `t`"));
    assert_eq!(compiled.args, Vec::<Value>::new());
}

#[test]
fn identifiers_are_quoted() {
    assert_eq!(quote("a`b"), "`a``b`");
}

/// Compiles `plan` with `params`, and binds the result to `other` params.
fn rebind(plan: Plan, params: &[Param], other: &[Param]) -> (CompiledPlan, Option<Vec<Value>>) {
    let compiled = ok(plan, params);
    let other: Vec<Scalar> = other.iter().map(xrpc_client::plan::param_scalar).collect();
    let bound = compiled.bind(&other);
    (compiled, bound)
}

#[test]
fn a_compiled_plan_binds_other_parameters_where_the_sql_stays_the_same() {
    let plan = || {
        Plan::get("t")
            .index("ab")
            .key([("a", placeholder(0)), ("b", Operand::from(7i64))])
            .build()
            .filter(Expr::col("k").gt(placeholder(1)))
    };
    let (compiled, bound) = rebind(
        plan(),
        &[1i64.into(), 2i64.into()],
        &[3i64.into(), "x".into()],
    );
    assert_eq!(compiled.arg_params, [Some(0), None, Some(1)]);
    assert!(compiled.shaping.is_empty());
    assert_eq!(
        bound.unwrap(),
        [Value::Sint(3), Value::Sint(7), Value::Bytes("x".into())],
        "parameters rebound, the plan's literal kept"
    );
    // Compiling with the new parameters gives exactly what binding gave.
    let fresh = ok(plan(), &[3i64.into(), "x".into()]);
    assert_eq!(fresh.sql, compiled.sql);
    assert_eq!(
        fresh.args,
        [Value::Sint(3), Value::Sint(7), Value::Bytes("x".into())]
    );
    // A NULL would be spelled into the text (IS NULL, the NULL keyword): compile afresh.
    assert_eq!(
        rebind(
            plan(),
            &[1i64.into(), 2i64.into()],
            &[Param::Null, 2i64.into()]
        )
        .1,
        None
    );
    assert_eq!(
        rebind(
            plan(),
            &[1i64.into(), 2i64.into()],
            &[1i64.into(), Param::Null]
        )
        .1,
        None
    );
    // A missing parameter: compile afresh, which gives the error.
    assert_eq!(
        rebind(plan(), &[1i64.into(), 2i64.into()], &[1i64.into()]).1,
        None
    );
}

#[test]
fn a_parameter_spelled_into_the_sql_must_be_the_same_to_rebind() {
    let plan = || Plan::get("t").key([("id", placeholder(0))]).build();
    let (compiled, bound) = rebind(plan(), &[Param::Null], &[Param::Null]);
    assert!(
        compiled.sql.contains("`t`.`id` IS NULL"),
        "{}",
        compiled.sql
    );
    assert_eq!(compiled.shaping, [(0, Value::Null)]);
    assert_eq!(bound, Some(Vec::new()));
    assert_eq!(rebind(plan(), &[Param::Null], &[5i64.into()]).1, None);
    // A field named by a placeholder: the name is part of the text.
    let mut request = Plan::get("t")
        .key([("id", 5i64)])
        .build()
        .request(&["id".into()]);
    let key = &mut request
        .plan
        .as_mut()
        .unwrap()
        .get_plan
        .as_mut()
        .unwrap()
        .keys[0]
        .keys[0];
    key.field = Scalar {
        r#type: ScalarType::VPlaceholder as i32,
        v_position: Some(0),
        ..Default::default()
    };
    let compiled = compile(
        request.plan.as_ref().unwrap(),
        &request.parameters,
        &mut FixedCatalog::new(),
    )
    .unwrap();
    assert_eq!(compiled.shaping, [(0, Value::Bytes("id".into()))]);
    assert_eq!(
        compiled.bind(&request.parameters),
        Some(vec![Value::Sint(5)])
    );
    let other = [xrpc_client::plan::param_scalar(&"k".into())];
    assert_eq!(compiled.bind(&other), None);
}
