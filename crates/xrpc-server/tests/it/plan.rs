//! EXEC_PLAN_READ end to end on the SQLite engine: upstream's documented plan shapes, bad plans,
//! the plan digest cache, and a differential test (random plans give what the equivalent SQL gives
//! through the same node).

use crate::common;

use std::cell::RefCell;

use bytes::Bytes;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use xrpc_client::Param;
use xrpc_client::plan::{Aggregate, Expr, Operand, Plan, placeholder};
use xrpc_proto::messages::{ClientType, pb};
use xrpc_proto::value::Value;

use common::{Client, Outcome, TestNode, text};

const SID: u64 = 1;

fn run(client: &mut Client, request: &pb::exec_plan::ExecPlan) -> Outcome {
    client.send(SID, ClientType::ExecPlanRead, request);
    client.read_outcome(SID)
}

fn run_plan(client: &mut Client, plan: &Plan, params: &[Param]) -> Outcome {
    run(client, &plan.request(params))
}

fn sql(client: &mut Client, statement: &str) -> Outcome {
    let outcome = client.query(SID, statement);
    assert!(outcome.error.is_none(), "{statement}: {:?}", outcome.error);
    outcome
}

/// A column as a client compares it: name, X type, MySQL type.
type ColumnKey = (String, i32, u32);

/// What a client compares: column names and types, and the rows.
fn result_of(outcome: &Outcome) -> (Vec<ColumnKey>, Vec<Vec<Value>>) {
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let columns = outcome
        .columns
        .iter()
        .map(|c| {
            (
                String::from_utf8_lossy(c.name.as_deref().unwrap_or_default()).into_owned(),
                c.r#type,
                c.original_type as u32,
            )
        })
        .collect();
    (columns, outcome.rows.clone())
}

fn users_node() -> (TestNode, Client) {
    users_node_on(TestNode::start())
}

/// [`users_node`] on `node`.
fn users_node_on(node: TestNode) -> (TestNode, Client) {
    let mut client = node.client();
    client.new_session(SID);
    sql(
        &mut client,
        "CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR(40), age INT, \
         balance DECIMAL(10,2))",
    );
    sql(&mut client, "CREATE UNIQUE INDEX uk_email ON users (email)");
    sql(&mut client, "CREATE INDEX by_age ON users (age)");
    sql(
        &mut client,
        "INSERT INTO users VALUES (1, 'a@x', 30, 10.50), (2, 'b@x', 25, 0.00), \
         (3, 'c@x', 30, 99.99), (4, 'd@x', NULL, 5.25), (5, 'e@x', 41, NULL)",
    );
    (node, client)
}

#[test]
fn point_get_by_primary_key_matches_sql() {
    let (_node, mut client) = users_node();
    let plan = Plan::get("users").key([("id", placeholder(0))]).build();
    let got = run_plan(&mut client, &plan, &[3i64.into()]);
    let want = sql(&mut client, "SELECT * FROM users WHERE id = 3");
    assert_eq!(result_of(&got), result_of(&want));
    assert_eq!(got.rows.len(), 1);
    // A key that matches nothing: metadata and no rows, like the SQL.
    let none = run_plan(&mut client, &plan, &[42i64.into()]);
    assert_eq!(
        result_of(&none),
        result_of(&sql(&mut client, "SELECT * FROM users WHERE id = 42"))
    );
    assert!(none.rows.is_empty());
}

#[test]
fn point_get_by_unique_secondary_key_matches_sql() {
    let (_node, mut client) = users_node();
    let plan = Plan::get("users")
        .index("uk_email")
        .key([("email", placeholder(0))])
        .build()
        .project(["id", "balance"]);
    let got = run_plan(&mut client, &plan, &["c@x".into()]);
    let want = sql(
        &mut client,
        "SELECT id, balance FROM users WHERE email = 'c@x'",
    );
    assert_eq!(result_of(&got), result_of(&want));
    assert_eq!(got.rows[0][0], Value::Sint(3));
}

#[test]
fn a_plan_may_name_the_schema() {
    let (_node, mut client) = users_node();
    let plan = Plan::get("users")
        .schema("main")
        .key([("id", 1i64)])
        .build();
    let got = run_plan(&mut client, &plan, &[]);
    assert_eq!(
        result_of(&got),
        result_of(&sql(&mut client, "SELECT * FROM main.users WHERE id = 1"))
    );
    let elsewhere = Plan::get("users")
        .schema("nope")
        .key([("id", 1i64)])
        .build();
    let err = run_plan(&mut client, &elsewhere, &[]).error.unwrap();
    assert_eq!(
        (err.code, err.msg.as_str()),
        (1146, "Table 'nope.users' doesn't exist"),
        "as MySQL answers a read of a table in an unknown database"
    );
}

#[test]
fn feedback_names_the_index_read_in_fetch_done() {
    let (_node, mut client) = users_node();
    let fetch_done = |client: &mut Client, plan: &Plan, feed_back: Option<bool>| {
        let outcome = run(
            client,
            &pb::exec_plan::ExecPlan {
                feed_back,
                ..plan.request(&[])
            },
        );
        outcome
            .messages
            .iter()
            .find_map(|m| match m {
                xrpc_proto::messages::ServerMessage::FetchDone(done) => Some(done.clone()),
                _ => None,
            })
            .expect("a FetchDone")
    };
    let by_email = Plan::get("users")
        .index("uk_email")
        .key([("email", "a@x")])
        .build();
    let done = fetch_done(&mut client, &by_email, Some(true));
    assert_eq!(done.chosen_index.as_deref(), Some(&b"uk_email"[..]));
    assert_eq!(done.examined_row_count, None, "not guessed");
    let scan = Plan::table_scan("users").aggregate(Aggregate::Count, "n", Expr::star());
    let done = fetch_done(&mut client, &scan, Some(true));
    assert_eq!(done.chosen_index.as_deref(), Some(&b"PRIMARY"[..]));
    let done = fetch_done(&mut client, &by_email, None);
    assert_eq!(done.chosen_index, None, "feedback only when asked");
}

#[test]
fn batch_get_returns_each_lookup_in_order_with_sql_types() {
    let (_node, mut client) = users_node();
    let plan = Plan::get("users")
        .key([("id", 5i64)])
        .key([("id", 1i64)])
        .key([("id", 99i64)])
        .key([("id", 5i64)])
        .build();
    let got = run_plan(&mut client, &plan, &[]);
    let (got_columns, got_rows) = result_of(&got);
    let (want_columns, mut want_rows) =
        result_of(&sql(&mut client, "SELECT * FROM users WHERE id = 5"));
    want_rows.extend(result_of(&sql(&mut client, "SELECT * FROM users WHERE id = 1")).1);
    want_rows.extend(result_of(&sql(&mut client, "SELECT * FROM users WHERE id = 5")).1);
    assert_eq!(
        got_columns, want_columns,
        "a UNION ALL keeps the declared types"
    );
    assert_eq!(got_rows, want_rows);
}

#[test]
fn range_with_filter_and_projection_matches_sql() {
    let (_node, mut client) = users_node();
    let plan = Plan::range("users")
        .index("by_age")
        .from_key([("age", placeholder(0))])
        .to_key([("age", placeholder(1))])
        .build()
        .filter(Expr::col("balance").gt(placeholder(2)))
        .project(["email", "age"]);
    let got = run_plan(
        &mut client,
        &plan,
        &[25i64.into(), 30i64.into(), 1i64.into()],
    );
    let want = sql(
        &mut client,
        "SELECT email, age FROM users WHERE age >= 25 AND age <= 30 AND balance > 1 \
         ORDER BY age, id",
    );
    assert_eq!(result_of(&got), result_of(&want));
    assert_eq!(got.rows.len(), 2);
    // Reverse: from 30 downward, no end key.
    let reverse = Plan::range("users")
        .index("by_age")
        .from_key([("age", 30i64)])
        .reverse(true)
        .build()
        .project(["id"]);
    let got = run_plan(&mut client, &reverse, &[]);
    let want = sql(
        &mut client,
        "SELECT id FROM users WHERE age <= 30 ORDER BY age DESC, id DESC",
    );
    assert_eq!(result_of(&got), result_of(&want));
}

#[test]
fn count_over_a_range_and_aggregate_null_rules_match_sql() {
    let (_node, mut client) = users_node();
    let range = || Plan::range("users").from_key([("id", 2i64)]).build();
    let got = run_plan(
        &mut client,
        &range().aggregate(Aggregate::Count, "n", Expr::star()),
        &[],
    );
    let want = sql(&mut client, "SELECT COUNT(*) AS n FROM users WHERE id >= 2");
    assert_eq!(result_of(&got), result_of(&want));
    assert_eq!(got.rows, [[Value::Sint(4)]]);
    // COUNT(col) skips NULLs; SUM over no rows is NULL, COUNT over no rows is 0.
    for (function, expr, column, sql_text) in [
        (
            Aggregate::Count,
            "age",
            "n",
            "SELECT COUNT(age) AS n FROM users WHERE id >= 2",
        ),
        (
            Aggregate::Sum,
            "balance",
            "s",
            "SELECT SUM(balance) AS s FROM users WHERE id >= 2",
        ),
        (
            Aggregate::Max,
            "age",
            "m",
            "SELECT MAX(age) AS m FROM users WHERE id >= 2",
        ),
        (
            Aggregate::Avg,
            "age",
            "a",
            "SELECT AVG(age) AS a FROM users WHERE id >= 2",
        ),
        (
            Aggregate::CountDistinct,
            "age",
            "d",
            "SELECT COUNT(DISTINCT age) AS d FROM users WHERE id >= 2",
        ),
    ] {
        let got = run_plan(
            &mut client,
            &range().aggregate(function, column, Expr::col(expr)),
            &[],
        );
        assert_eq!(
            result_of(&got),
            result_of(&sql(&mut client, sql_text)),
            "{sql_text}"
        );
    }
    let empty = Plan::range("users").from_key([("id", 100i64)]).build();
    let sum = run_plan(
        &mut client,
        &empty
            .clone()
            .aggregate(Aggregate::Sum, "s", Expr::col("age")),
        &[],
    );
    assert_eq!(sum.rows, [[Value::Null]]);
    let count = run_plan(
        &mut client,
        &empty.aggregate(Aggregate::Count, "n", Expr::col("age")),
        &[],
    );
    assert_eq!(count.rows, [[Value::Sint(0)]]);
}

#[test]
fn bad_plans_get_clear_errors_and_the_session_stays_usable() {
    let (_node, mut client) = users_node();
    let get = |key: &str| Plan::get("users").key([(key, 1i64)]).build();
    let cases: Vec<(pb::exec_plan::ExecPlan, u32, &str)> = vec![
        (Plan::table_scan("nope").request(&[]), 1146, "doesn't exist"),
        (get("nope").request(&[]), 1054, "Unknown column 'nope'"),
        (
            Plan::table_scan_by("users", None, Some("no_such_index"), false).request(&[]),
            1176,
            "Key 'no_such_index' doesn't exist in table 'users'",
        ),
        (
            Plan::table_scan("users").project([9u32]).request(&[]),
            1054,
            "Unknown column '#9'",
        ),
        (
            Plan::get("users")
                .key([("id", placeholder(3))])
                .build()
                .request(&[]),
            1210,
            "placeholder 3 has no parameter",
        ),
        (
            pb::exec_plan::ExecPlan {
                plan: Some(Box::new(pb::exec_plan::AnyPlan {
                    plan_type: 6,
                    ..Default::default()
                })),
                ..Default::default()
            },
            1210,
            "unknown plan_type 6",
        ),
        (
            pb::exec_plan::ExecPlan {
                plan: Some(Box::new(pb::exec_plan::AnyPlan {
                    plan_type: pb::exec_plan::any_plan::PlanType::Get as i32,
                    ..Default::default()
                })),
                ..Default::default()
            },
            1210,
            "without its GET node",
        ),
        (
            pb::exec_plan::ExecPlan::default(),
            1210,
            "needs plan or plan_digest",
        ),
        (
            {
                let mut plan = Plan::table_scan("users");
                for _ in 0..40 {
                    plan = plan.filter(Expr::value(1i64));
                }
                plan.request(&[])
            },
            1210,
            "nested more than 32 levels",
        ),
        (
            Plan::table_scan("users")
                .filter(Expr::call("sleep", [Expr::value(1i64)]))
                .request(&[]),
            1235,
            "the function 'sleep'",
        ),
        (
            pb::exec_plan::ExecPlan {
                snapshot_seq: Some(5),
                ..Plan::table_scan("users").request(&[])
            },
            1235,
            "snapshot_seq",
        ),
    ];
    for (request, code, words) in cases {
        let outcome = run(&mut client, &request);
        let err = outcome.error.unwrap_or_else(|| panic!("{words}: no error"));
        assert_eq!(err.code, code, "{words}: {}", err.msg);
        assert!(err.msg.contains(words), "{words}: {}", err.msg);
        // The session goes on.
        assert_eq!(
            client.query(SID, "SELECT COUNT(*) FROM users").scalar(),
            &Value::Sint(5)
        );
    }
}

#[test]
fn plans_see_schema_changes_at_once() {
    let (node, mut client) = users_node();
    let by_email = |index: &str| {
        Plan::get("users")
            .index(index)
            .key([("email", "b@x")])
            .build()
            .project(["id"])
    };
    // The shape is kept from the first plan on; a new index must still be found.
    assert_eq!(
        run_plan(&mut client, &by_email("uk_email"), &[]).rows,
        [[Value::Sint(2)]]
    );
    assert_eq!(
        run_plan(&mut client, &by_email("by_email2"), &[]).error_code(),
        Some(1176)
    );
    sql(&mut client, "CREATE INDEX by_email2 ON users (email)");
    assert_eq!(
        run_plan(&mut client, &by_email("by_email2"), &[]).rows,
        [[Value::Sint(2)]]
    );
    sql(&mut client, "ALTER TABLE users ADD COLUMN note VARCHAR(10)");
    let scan = run_plan(&mut client, &Plan::table_scan("users"), &[]);
    assert_eq!(scan.columns.len(), 5, "the added column is read");
    sql(&mut client, "DROP INDEX by_email2 ON users");
    assert_eq!(
        run_plan(&mut client, &by_email("by_email2"), &[]).error_code(),
        Some(1176)
    );
    // DDL in an open transaction commits it first and runs outside it, as MySQL's implicit
    // commit does: another session sees it at once.
    let mut other = node.client();
    other.new_session(SID);
    assert_eq!(
        run_plan(&mut other, &by_email("uk_email"), &[]).rows,
        [[Value::Sint(2)]]
    );
    sql(&mut client, "BEGIN");
    sql(
        &mut client,
        "CREATE INDEX by_age_email ON users (age, email)",
    );
    let by_age = Plan::get("users")
        .index("by_age_email")
        .key([("age", 25i64)])
        .build()
        .project(["id"]);
    assert_eq!(run_plan(&mut client, &by_age, &[]).rows, [[Value::Sint(2)]]);
    assert_eq!(run_plan(&mut other, &by_age, &[]).rows, [[Value::Sint(2)]]);
    sql(&mut client, "COMMIT");
    // A ROLLBACK after DDL has nothing of it to undo: gone for everyone.
    sql(&mut client, "BEGIN");
    sql(&mut client, "DROP INDEX by_age_email ON users");
    assert_eq!(run_plan(&mut other, &by_age, &[]).error_code(), Some(1176));
    sql(&mut client, "ROLLBACK");
    assert_eq!(run_plan(&mut client, &by_age, &[]).error_code(), Some(1176));
    assert_eq!(run_plan(&mut other, &by_age, &[]).error_code(), Some(1176));
}

#[test]
fn a_failed_plan_cascades_like_a_failed_statement() {
    let (_node, mut client) = users_node();
    let failed = run_plan(&mut client, &Plan::table_scan("nope"), &[]);
    assert_eq!(failed.error_code(), Some(1146));
    // reset_error = false: answered with the stored error, without running.
    let cascaded = run(
        &mut client,
        &pb::exec_plan::ExecPlan {
            reset_error: Some(false),
            ..Plan::get("users").key([("id", 1i64)]).build().request(&[])
        },
    );
    assert_eq!(cascaded.error_code(), Some(1146));
    // The default resets it.
    let ok = run_plan(
        &mut client,
        &Plan::get("users").key([("id", 1i64)]).build(),
        &[],
    );
    assert_eq!(ok.rows.len(), 1);
}

#[test]
fn plan_digests_are_cached_and_a_miss_asks_for_the_whole_plan() {
    let (_node, mut client) = users_node();
    let digest = Bytes::from_static(b"0123456789abcdef");
    let plan = Plan::get("users").key([("id", placeholder(0))]).build();
    let full = pb::exec_plan::ExecPlan {
        plan_digest: Some(digest.clone()),
        ..plan.request(&[1i64.into()])
    };
    assert_eq!(run(&mut client, &full).rows.len(), 1);
    let digest_only = |key: i64, digest: Bytes| pb::exec_plan::ExecPlan {
        plan: None,
        plan_digest: Some(digest),
        ..plan.request(&[key.into()])
    };
    let hit = run(&mut client, &digest_only(2, digest.clone()));
    assert_eq!(hit.rows[0][0], Value::Sint(2));
    let miss = run(&mut client, &digest_only(2, Bytes::from_static(b"unknown")));
    assert_eq!(miss.error_code(), Some(8000));
    let status = sql(&mut client, "SHOW STATUS LIKE 'xrpc_plan_%'");
    let status: Vec<(String, String)> = status
        .rows
        .iter()
        .map(|row| (text(&row[0]), text(&row[1])))
        .collect();
    let get = |name: &str| {
        status
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{name} missing from {status:?}"))
    };
    assert_eq!(get("xrpc_plan_hit"), "1");
    assert_eq!(get("xrpc_plan_miss"), "1");
    assert_eq!(get("xrpc_plan_evict"), "0");
}

/// The compiled-plan cache's counters from `SHOW STATUS`, in the order
/// hit, miss, compilations, invalidated, evict, expired, entries.
fn compiled_counters(client: &mut Client) -> [u64; 7] {
    let status = sql(client, "SHOW STATUS LIKE 'xrpc_plan_compil%'");
    let get = |name: &str| -> u64 {
        let row = status
            .rows
            .iter()
            .find(|row| text(&row[0]) == name)
            .unwrap_or_else(|| panic!("{name} missing from SHOW STATUS"));
        text(&row[1]).parse().unwrap()
    };
    [
        "xrpc_plan_compiled_hit",
        "xrpc_plan_compiled_miss",
        "xrpc_plan_compilations",
        "xrpc_plan_compiled_invalidated",
        "xrpc_plan_compiled_evict",
        "xrpc_plan_compiled_expired",
        "xrpc_plan_compiled_entries",
    ]
    .map(get)
}

#[test]
fn compiled_plan_counters_count_per_node_and_an_alter_invalidates() {
    let (_node, mut client) = users_node();
    let other = TestNode::start();
    let mut other_client = other.client();
    other_client.new_session(SID);
    // The users table's DDL ran before any plan was kept: nothing to invalidate yet.
    assert_eq!(compiled_counters(&mut client), [0; 7]);
    let plan = Plan::get("users").key([("id", placeholder(0))]).build();
    assert_eq!(run_plan(&mut client, &plan, &[1i64.into()]).rows.len(), 1);
    assert_eq!(run_plan(&mut client, &plan, &[2i64.into()]).rows.len(), 1);
    // One miss that compiled, one hit; one plan kept.
    assert_eq!(compiled_counters(&mut client), [1, 1, 1, 0, 0, 0, 1]);
    sql(&mut client, "ALTER TABLE users ADD COLUMN note VARCHAR(10)");
    assert_eq!(compiled_counters(&mut client), [1, 1, 1, 1, 0, 0, 0]);
    let altered = run_plan(&mut client, &plan, &[1i64.into()]);
    assert_eq!(
        altered.columns.len(),
        5,
        "compiled afresh with the new column"
    );
    assert_eq!(compiled_counters(&mut client), [1, 2, 2, 1, 0, 0, 1]);
    // Another node in the same process counts its own plans only: a failed compile there (no
    // such table) is its miss and compilation, not this node's.
    assert_eq!(compiled_counters(&mut other_client), [0; 7]);
    let failed = run_plan(&mut other_client, &plan, &[1i64.into()]);
    assert_eq!(failed.error_code(), Some(1146));
    assert_eq!(compiled_counters(&mut other_client), [0, 1, 1, 0, 0, 0, 0]);
    assert_eq!(compiled_counters(&mut client), [1, 2, 2, 1, 0, 0, 1]);
}

#[test]
fn compiled_plans_follow_schema_changes_and_evicted_digests_miss() {
    // One plan kept at a time, so a second digest evicts the first.
    let node = TestNode::start_with(|_, shared| {
        shared.plan_cache = xrpc_server::cache::RequestCache::new(1, 1, 1 << 20);
    });
    let mut client = node.client();
    client.new_session(SID);
    sql(
        &mut client,
        "CREATE TABLE kv (id BIGINT PRIMARY KEY, v INT)",
    );
    sql(&mut client, "INSERT INTO kv VALUES (1, 10), (2, 20)");
    let plan = Plan::get("kv").key([("id", placeholder(0))]).build();
    let digest = plan.digest();
    let whole = |key: i64| plan.request_with_digest(&digest, &[key.into()]);
    let by_digest = |key: Param| Plan::request_by_digest(&digest, &[key]);
    assert_eq!(
        run(&mut client, &whole(1)).rows,
        [[Value::Sint(1), Value::Sint(10)]]
    );
    // The compiled form serves other parameters, and a NULL key (IS NULL) too.
    assert_eq!(
        run(&mut client, &by_digest(2i64.into())).rows,
        [[Value::Sint(2), Value::Sint(20)]]
    );
    assert!(run(&mut client, &by_digest(Param::Null)).rows.is_empty());
    assert_eq!(
        run(&mut client, &by_digest(1i64.into())).rows[0][1],
        Value::Sint(10)
    );
    // ALTER: the digest-only plan reads the new shape.
    sql(&mut client, "ALTER TABLE kv ADD COLUMN note VARCHAR(10)");
    let altered = run(&mut client, &by_digest(1i64.into()));
    assert_eq!(altered.columns.len(), 3, "the added column is read");
    sql(&mut client, "ALTER TABLE kv DROP COLUMN note");
    assert_eq!(run(&mut client, &by_digest(1i64.into())).columns.len(), 2);
    // DROP: 1146, and a table created again under the name is read as it is now.
    sql(&mut client, "DROP TABLE kv");
    assert_eq!(
        run(&mut client, &by_digest(1i64.into())).error_code(),
        Some(1146)
    );
    sql(
        &mut client,
        "CREATE TABLE kv (id BIGINT PRIMARY KEY, v TEXT, w INT)",
    );
    sql(&mut client, "INSERT INTO kv VALUES (1, 'one', 7)");
    assert_eq!(
        run(&mut client, &by_digest(1i64.into())).rows,
        [[Value::Sint(1), Value::Bytes("one".into()), Value::Sint(7)]]
    );
    // Another plan's digest evicts this one: digest-only now misses (8000), though its compiled
    // form may still be kept, and the whole plan puts it back.
    let other = Plan::get("kv").key([("id", 1i64)]).build();
    assert_eq!(
        run(
            &mut client,
            &other.request_with_digest(&other.digest(), &[])
        )
        .rows
        .len(),
        1
    );
    assert_eq!(
        run(&mut client, &by_digest(1i64.into())).error_code(),
        Some(8000)
    );
    assert_eq!(run(&mut client, &whole(1)).rows.len(), 1);
    assert_eq!(run(&mut client, &by_digest(1i64.into())).rows.len(), 1);
}

#[test]
fn plan_results_honour_chunks_and_flow_control() {
    let (_node, mut client) = users_node();
    let request = pb::exec_plan::ExecPlan {
        chunk_result: Some(true),
        ..Plan::table_scan("users").request(&[])
    };
    let chunked = run(&mut client, &request);
    assert!(
        chunked
            .messages
            .iter()
            .any(|m| matches!(m, xrpc_proto::messages::ServerMessage::Chunk(_)))
    );
    let want = sql(&mut client, "SELECT * FROM users ORDER BY id");
    assert_eq!(chunked.rows, want.rows);
    // A token of 0 bytes stops after the first row until the client offers more.
    let request = pb::exec_plan::ExecPlan {
        token: Some(0),
        ..Plan::table_scan("users").request(&[])
    };
    client.send(SID, ClientType::ExecPlanRead, &request);
    let mut rows = 0;
    loop {
        match client.recv_on(SID).expect("connection open") {
            xrpc_proto::messages::ServerMessage::Row(_) => rows += 1,
            xrpc_proto::messages::ServerMessage::TokenDone(_) => {
                client.send(
                    SID,
                    ClientType::TokenOffer,
                    &pb::sql::TokenOffer {
                        token: Some(1 << 20),
                    },
                );
            }
            xrpc_proto::messages::ServerMessage::StmtExecuteOk(_) => break,
            xrpc_proto::messages::ServerMessage::Error(err) => panic!("{err:?}"),
            _ => {}
        }
    }
    assert_eq!(rows, 5);
}

// ---- the differential test ----

/// Tables of the differential test: `(name, columns, primary key, indexes (name, columns))`.
/// Columns are `(name, is_text)`.
struct TableSpec {
    name: &'static str,
    columns: &'static [(&'static str, bool)],
    primary: &'static [&'static str],
    indexes: &'static [(&'static str, &'static [&'static str])],
    ddl: &'static [&'static str],
}

const TABLES: &[TableSpec] = &[
    TableSpec {
        name: "r1",
        columns: &[
            ("id", false),
            ("a", false),
            ("b", true),
            ("u", false),
            ("d", false),
        ],
        primary: &["id"],
        indexes: &[("ab", &["a", "b"]), ("uq", &["u"])],
        ddl: &[
            "CREATE TABLE r1 (id BIGINT PRIMARY KEY, a INT, b VARCHAR(8), u INT, d DECIMAL(8,2))",
            "CREATE INDEX ab ON r1 (a, b)",
            "CREATE UNIQUE INDEX uq ON r1 (u)",
        ],
    },
    TableSpec {
        name: "r2",
        columns: &[("p", false), ("q", true), ("v", false)],
        primary: &["p", "q"],
        indexes: &[("by_v", &["v"])],
        ddl: &[
            "CREATE TABLE r2 (p INT, q VARCHAR(4), v INT, PRIMARY KEY (p, q))",
            "CREATE INDEX by_v ON r2 (v)",
        ],
    },
];

/// Small values, so that keys, ranges and filters hit rows often.
fn key_value(is_text: bool, n: i64) -> Param {
    if is_text {
        Param::Str(["", "a", "b", "bb", "c"][n.rem_euclid(5) as usize].to_owned())
    } else {
        Param::Int(n)
    }
}

fn sql_literal(param: &Param) -> String {
    match param {
        Param::Int(n) => n.to_string(),
        Param::Str(s) => format!("'{s}'"),
        Param::Null => "NULL".into(),
        other => panic!("unexpected literal {other:?}"),
    }
}

fn fill(client: &mut Client) {
    for table in TABLES {
        for ddl in table.ddl {
            sql(client, ddl);
        }
    }
    // Deterministic data with NULLs and duplicates in the secondary indexes.
    let mut seed = 7u64;
    let mut next = |m: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    for id in 0..40i64 {
        let a = if next(6) == 0 {
            "NULL".to_owned()
        } else {
            next(5).to_string()
        };
        let b = if next(6) == 0 {
            "NULL".to_owned()
        } else {
            sql_literal(&key_value(true, next(5) as i64))
        };
        let d = format!("{}.{}", next(100), next(100));
        sql(
            client,
            &format!(
                "INSERT INTO r1 VALUES ({id}, {a}, {b}, {}, {d})",
                1000 - id * 3
            ),
        );
    }
    for p in 0..6i64 {
        for q in 0..5i64 {
            if next(3) == 0 {
                continue;
            }
            let v = if next(5) == 0 {
                "NULL".to_owned()
            } else {
                next(4).to_string()
            };
            sql(
                client,
                &format!(
                    "INSERT INTO r2 VALUES ({p}, {}, {v})",
                    sql_literal(&key_value(true, q))
                ),
            );
        }
    }
}

/// A random plan over one of [`TABLES`], described so both the plan and the SQL can be built.
#[derive(Debug, Clone)]
struct Case {
    table: usize,
    /// 0 = primary key, i > 0 = indexes[i - 1].
    index: usize,
    access: Access,
    /// (column, operator, value seed)
    filter: Option<(usize, &'static str, i64)>,
    /// Column subset (indexes into the table's columns), if projected.
    project: Option<Vec<usize>>,
    aggregate: Option<(usize, usize)>,
    /// Values go as placeholders rather than literals.
    use_placeholders: bool,
}

#[derive(Debug, Clone)]
enum Access {
    /// Lookups: each a prefix length and value seeds.
    Get(Vec<(usize, Vec<i64>)>),
    Range {
        from: Option<(usize, Vec<i64>)>,
        to: Option<(usize, Vec<i64>)>,
        reverse: bool,
    },
    Scan {
        reverse: bool,
    },
}

fn prefix() -> impl Strategy<Value = (usize, Vec<i64>)> {
    (1usize..=2, proptest::collection::vec(-1i64..7, 2))
}

fn case() -> impl Strategy<Value = Case> {
    let access = prop_oneof![
        proptest::collection::vec(prefix(), 1..4).prop_map(Access::Get),
        (
            proptest::option::of(prefix()),
            proptest::option::of(prefix()),
            any::<bool>()
        )
            .prop_map(|(from, to, reverse)| Access::Range { from, to, reverse }),
        any::<bool>().prop_map(|reverse| Access::Scan { reverse }),
    ];
    (
        0..TABLES.len(),
        0usize..3,
        access,
        proptest::option::of((
            0usize..5,
            prop_oneof![
                Just("=="),
                Just("!="),
                Just("<"),
                Just(">="),
                Just("is_null")
            ],
            -1i64..7,
        )),
        proptest::option::of(proptest::collection::vec(0usize..5, 1..4)),
        proptest::option::of((0usize..8, 0usize..5)),
        any::<bool>(),
    )
        .prop_map(
            |(table, index, access, filter, project, aggregate, use_placeholders)| Case {
                table,
                index,
                access,
                filter,
                project,
                aggregate,
                use_placeholders,
            },
        )
}

/// Aggregates: the plan's, the SQL function, whether DISTINCT.
const AGGREGATES: [(Aggregate, &str, bool); 8] = [
    (Aggregate::Count, "COUNT", false),
    (Aggregate::CountDistinct, "COUNT", true),
    (Aggregate::Sum, "SUM", false),
    (Aggregate::SumDistinct, "SUM", true),
    (Aggregate::Avg, "AVG", false),
    (Aggregate::AvgDistinct, "AVG", true),
    (Aggregate::Min, "MIN", false),
    (Aggregate::Max, "MAX", false),
];

/// Builds the plan, its parameters, and the SQL statements whose concatenated results are the
/// expected answer (one per lookup for a GET with several keys).
fn build(case: &Case) -> (Plan, Vec<Param>, Vec<String>) {
    let spec = &TABLES[case.table];
    let (index_name, key): (Option<&str>, Vec<&str>) = match case.index % (spec.indexes.len() + 1) {
        0 => (None, spec.primary.to_vec()),
        i => (Some(spec.indexes[i - 1].0), spec.indexes[i - 1].1.to_vec()),
    };
    let is_text = |column: &str| spec.columns.iter().any(|(c, t)| *c == column && *t);
    let mut params: Vec<Param> = Vec::new();
    let operand = |value: Param, params: &mut Vec<Param>| -> Operand {
        if case.use_placeholders {
            params.push(value);
            placeholder(params.len() as u32 - 1)
        } else {
            Operand::Value(value)
        }
    };
    let mut order: Vec<String> = key.iter().map(|c| c.to_string()).collect();
    for column in spec.primary {
        if !key.contains(column) {
            order.push(column.to_string());
        }
    }
    let key_parts = |(len, seeds): &(usize, Vec<i64>)| -> Vec<(&str, Param)> {
        key.iter()
            .take((*len).min(key.len()))
            .zip(seeds)
            .map(|(c, n)| (*c, key_value(is_text(c), *n)))
            .collect()
    };
    // The WHERE of the SQL for the access path (per lookup for GETs), and the plan.
    let (plan, access_conditions, direction): (Plan, Vec<Vec<String>>, &str) = match &case.access {
        Access::Get(lookups) => {
            let mut get = Plan::get(spec.name);
            if let Some(index) = index_name {
                get = get.index(index);
            }
            let mut conditions = Vec::new();
            for lookup in lookups {
                let parts = key_parts(lookup);
                conditions.push(
                    parts
                        .iter()
                        .map(|(c, v)| format!("{c} = {}", sql_literal(v)))
                        .collect::<Vec<_>>(),
                );
                let parts: Vec<(&str, Operand)> = parts
                    .into_iter()
                    .map(|(c, v)| (c, operand(v, &mut params)))
                    .collect();
                get = get.key(parts);
            }
            (get.build(), conditions, "")
        }
        Access::Range { from, to, reverse } => {
            let mut range = Plan::range(spec.name).reverse(*reverse);
            if let Some(index) = index_name {
                range = range.index(index);
            }
            let mut conditions = Vec::new();
            for (bound, is_from) in [(from, true), (to, false)] {
                let Some(bound) = bound else { continue };
                let parts = key_parts(bound);
                // Lexicographic comparison spelled out, independent of row values.
                let lower = is_from != *reverse;
                let (strict, last) = if lower { (">", ">=") } else { ("<", "<=") };
                let mut alternatives = Vec::new();
                for i in 0..parts.len() {
                    let mut terms: Vec<String> = parts[..i]
                        .iter()
                        .map(|(c, v)| format!("{c} = {}", sql_literal(v)))
                        .collect();
                    let op = if i + 1 == parts.len() { last } else { strict };
                    terms.push(format!("{} {op} {}", parts[i].0, sql_literal(&parts[i].1)));
                    alternatives.push(format!("({})", terms.join(" AND ")));
                }
                conditions.push(format!("({})", alternatives.join(" OR ")));
                let parts: Vec<(&str, Operand)> = parts
                    .into_iter()
                    .map(|(c, v)| (c, operand(v, &mut params)))
                    .collect();
                range = if is_from {
                    range.from_key(parts)
                } else {
                    range.to_key(parts)
                };
            }
            (
                range.build(),
                vec![conditions],
                if *reverse { " DESC" } else { "" },
            )
        }
        Access::Scan { reverse } => (
            Plan::table_scan_by(spec.name, None, index_name, *reverse),
            vec![Vec::new()],
            if *reverse { " DESC" } else { "" },
        ),
    };
    let mut plan = plan;
    let mut filter_sql = None;
    if let Some((column, op, seed)) = case.filter {
        let (column, text_column) = spec.columns[column % spec.columns.len()];
        let value = key_value(text_column, seed);
        filter_sql = Some(if op == "is_null" {
            plan = plan.filter(Expr::col(column).is_null());
            format!("{column} IS NULL")
        } else {
            let sql_op = match op {
                "==" => "=",
                "!=" => "<>",
                other => other,
            };
            let literal = sql_literal(&value);
            plan = plan.filter(Expr::op(
                op,
                [Expr::col(column), Expr::value(operand(value, &mut params))],
            ));
            format!("{column} {sql_op} {literal}")
        });
    }
    let mut columns: Vec<&str> = spec.columns.iter().map(|(c, _)| *c).collect();
    if let Some(project) = &case.project {
        columns = project
            .iter()
            .map(|i| spec.columns[i % spec.columns.len()].0)
            .collect();
        plan = plan.project(columns.iter().copied());
    }
    let mut select = columns.join(", ");
    let mut aggregated = false;
    if let Some((function, column)) = case.aggregate {
        let (aggregate, sql_function, distinct) = AGGREGATES[function];
        let column = columns[column % columns.len()];
        plan = plan.aggregate(aggregate, "agg", Expr::col(column));
        let distinct = if distinct { "DISTINCT " } else { "" };
        select = format!("{sql_function}({distinct}{column}) AS agg");
        aggregated = true;
    }
    let order_by = order
        .iter()
        .map(|c| format!("{c}{direction}"))
        .collect::<Vec<_>>()
        .join(", ");
    let statement = |conditions: &[String]| {
        let mut all: Vec<String> = conditions.to_vec();
        all.extend(filter_sql.clone());
        let mut text = format!("SELECT {select} FROM {}", spec.name);
        if !all.is_empty() {
            text.push_str(&format!(" WHERE {}", all.join(" AND ")));
        }
        if !aggregated {
            text.push_str(&format!(" ORDER BY {order_by}"));
        }
        text
    };
    let statements = if aggregated && access_conditions.len() > 1 {
        // An aggregate over several lookups: over all their rows, a row found twice counted twice.
        let lookups = access_conditions
            .iter()
            .map(|c| format!("SELECT * FROM {} WHERE {}", spec.name, c.join(" AND ")))
            .collect::<Vec<_>>()
            .join(" UNION ALL ");
        let mut text = format!("SELECT {select} FROM ({lookups}) AS lookups");
        if let Some(filter) = &filter_sql {
            text.push_str(&format!(" WHERE {filter}"));
        }
        vec![text]
    } else {
        access_conditions.iter().map(|c| statement(c)).collect()
    };
    (plan, params, statements)
}

#[test]
fn random_plans_give_what_the_equivalent_sql_gives() {
    let node = TestNode::start();
    differential(node.client(), 600);
}

/// The same differential test on the `mysql` engine, in front of a private MariaDB.
#[test]
fn random_plans_give_what_the_equivalent_sql_gives_on_the_mysql_engine() {
    use mysql::prelude::Queryable;
    let db = xrpc_testkit::MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
    db.admin().query_drop("CREATE DATABASE t").unwrap();
    let engine = std::sync::Arc::new(
        xrpc_server::engine::mysql::MysqlEngine::connect(
            &db.url_db("t"),
            xrpc_server::engine::mysql::PoolOptions::default(),
        )
        .unwrap(),
    );
    let node = TestNode::start_with_engine(engine.clone(), |_, _| {});
    differential(node.client(), 300);
    // Upstream's point get by unique key, and an unknown index, on this engine too.
    let mut client = node.client();
    client.new_session(SID);
    let plan = Plan::get("r1")
        .index("uq")
        .key([("u", placeholder(0))])
        .build();
    let driven = || {
        engine
            .driver()
            .map_or(0, |d| d.depth_distribution().iter().sum::<u64>())
    };
    let before = driven();
    let got = run_plan(&mut client, &plan, &[997i64.into()]);
    let want = sql(&mut client, "SELECT * FROM r1 WHERE u = 997");
    assert_eq!(result_of(&got), result_of(&want));
    assert_eq!(got.rows.len(), 1);
    assert!(
        driven() >= before + 2,
        "the plan's statement went through the event-loop driver, as the SQL did"
    );
    // The feedback of a plan answered on the event loop names the index it read.
    let fed_back = run(
        &mut client,
        &pb::exec_plan::ExecPlan {
            feed_back: Some(true),
            ..plan.request(&[997i64.into()])
        },
    );
    let chosen = fed_back.messages.iter().find_map(|m| match m {
        xrpc_proto::messages::ServerMessage::FetchDone(done) => done.chosen_index.clone(),
        _ => None,
    });
    assert_eq!(chosen.as_deref(), Some(&b"uq"[..]));
    let missing = run_plan(
        &mut client,
        &Plan::table_scan_by("r1", None, Some("nope"), false),
        &[],
    );
    assert_eq!(missing.error_code(), Some(1176));
    let no_table = run_plan(&mut client, &Plan::table_scan("nope"), &[]);
    assert_eq!(no_table.error_code(), Some(1146));
    schema_changes_behind_the_node_are_seen(&db, &mut client);
}

/// On the `mysql` engine table shapes are kept for a second (see `plan::catalog`); a change
/// made directly on the backend within that second is seen as soon as a plan fails as the stale
/// shape would make it fail.
fn schema_changes_behind_the_node_are_seen(db: &xrpc_testkit::MariaDb, client: &mut Client) {
    use mysql::prelude::Queryable;
    let mut admin = db.admin();
    admin
        .query_drop("CREATE TABLE t.behind (id INT PRIMARY KEY, a INT)")
        .unwrap();
    admin
        .query_drop("INSERT INTO t.behind VALUES (1, 10), (2, 20)")
        .unwrap();
    let get = |columns: &[&str]| {
        Plan::get("behind")
            .key([("id", 2i64)])
            .build()
            .project(columns.to_vec())
    };
    // The shape is read and kept.
    assert_eq!(
        run_plan(client, &get(&["a"]), &[]).rows,
        [[Value::Sint(20)]]
    );
    // A column and an index added behind the node: the kept shape knows neither, so the plan is
    // compiled again from a fresh one.
    admin
        .query_drop("ALTER TABLE t.behind ADD COLUMN b INT NOT NULL DEFAULT 7, ADD INDEX by_a (a)")
        .unwrap();
    assert_eq!(run_plan(client, &get(&["b"]), &[]).rows, [[Value::Sint(7)]]);
    let by_a = Plan::get("behind")
        .index("by_a")
        .key([("a", 10i64)])
        .build()
        .project(["id"]);
    assert_eq!(run_plan(client, &by_a, &[]).rows, [[Value::Sint(1)]]);
    // A column dropped behind the node: the backend refuses the plan built from the kept shape
    // (1054), and the next plan reads the shape again (a scan gets the two columns left).
    admin
        .query_drop("ALTER TABLE t.behind DROP COLUMN b")
        .unwrap();
    assert_eq!(run_plan(client, &get(&["b"]), &[]).error_code(), Some(1054));
    let scan = run_plan(client, &Plan::table_scan("behind"), &[]);
    assert_eq!(scan.error_code(), None, "{:?}", scan.error);
    assert_eq!(scan.columns.len(), 2);
    // Dropped and created again with other columns.
    admin.query_drop("DROP TABLE t.behind").unwrap();
    assert_eq!(run_plan(client, &get(&["a"]), &[]).error_code(), Some(1146));
    admin
        .query_drop("CREATE TABLE t.behind (id INT PRIMARY KEY, z INT)")
        .unwrap();
    admin
        .query_drop("INSERT INTO t.behind VALUES (2, 5)")
        .unwrap();
    assert_eq!(run_plan(client, &get(&["z"]), &[]).rows, [[Value::Sint(5)]]);
    assert_eq!(run_plan(client, &get(&["a"]), &[]).error_code(), Some(1054));
}

/// Fills [`TABLES`] through `client` and compares random plans with their SQL (a plan that
/// fails must fail as its SQL does): `PROPTEST_CASES` cases, `default_cases` without it.
fn differential(mut client: Client, default_cases: u32) {
    client.new_session(SID);
    fill(&mut client);
    let client = RefCell::new(client);
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default_cases);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let compared = std::cell::Cell::new(0u32);
    runner
        .run(&case(), |case| {
            let (plan, params, statements) = build(&case);
            if statements.is_empty() {
                return Ok(());
            }
            let mut client = client.borrow_mut();
            let got = run_plan(&mut client, &plan, &params);
            if let Some(err) = &got.error {
                // A plan the node refuses is refused as its SQL is, with the same error.
                let sql_err = client.query(SID, &statements[0]).error;
                if sql_err
                    .as_ref()
                    .is_some_and(|e| (e.code, &e.msg) == (err.code, &err.msg))
                {
                    return Ok(());
                }
                return Err(TestCaseError::fail(format!(
                    "the plan failed: {} {}; SQL {statements:?}: {sql_err:?}",
                    err.code, err.msg
                )));
            }
            let mut want_rows = Vec::new();
            let mut want_columns = None;
            for statement in &statements {
                let outcome = client.query(SID, statement);
                if let Some(err) = &outcome.error {
                    return Err(TestCaseError::fail(format!("{statement}: {}", err.msg)));
                }
                let (columns, rows) = result_of(&outcome);
                want_columns.get_or_insert(columns);
                want_rows.extend(rows);
            }
            let (got_columns, got_rows) = result_of(&got);
            prop_assert_eq!(
                Some(got_columns),
                want_columns,
                "columns of {:?}",
                statements
            );
            prop_assert_eq!(got_rows, want_rows, "rows of {:?}", statements);
            compared.set(compared.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(
        compared.get() > cases * 9 / 10,
        "only {} of {cases} cases were compared",
        compared.get()
    );
}
