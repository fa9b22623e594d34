//! The session's current database, as the PolarDB-X compute node relies on it, on both engines:
//! a request's `schema_name` switches it as `USE` does and it stays switched; an auto-commit sid
//! has no session to remember it; the schema of the authentication data is where every session
//! of the connection starts.

use crate::common;

use common::{Client, EngineKind, TestNode, sql_stmt, text};
use xrpc_client::plan::Plan;
use xrpc_proto::messages::ClientType;

const AUTO: u64 = 0x8000_0000_0000_0000;

on_both_engines!(
    schema_name_switches_the_sessions_database_for_later_statements,
    a_table_created_after_schema_name_lands_in_that_database,
    use_after_schema_name_wins,
    schema_name_leaves_other_sessions_of_the_connection_alone,
    an_unknown_schema_name_is_1049_and_leaves_the_database_as_it_was,
    schema_name_on_an_auto_commit_sid_lasts_for_its_request,
    a_plan_after_schema_name_reads_the_sessions_database,
    the_authentication_schema_is_where_every_session_starts,
    an_unknown_authentication_schema_is_1049_at_the_first_statement,
    use_of_a_real_database_works_after_an_unknown_authentication_schema,
);

fn database(client: &mut Client, sid: u64) -> String {
    let outcome = client.query(sid, "select database()");
    assert_eq!(outcome.error, None);
    text(outcome.scalar())
}

fn ok(client: &mut Client, sid: u64, sql: &str) {
    let outcome = client.query(sid, sql);
    assert_eq!(outcome.error, None, "{sql}");
}

/// Runs `sql` on `sid` with `schema_name = schema`.
fn query_in(client: &mut Client, sid: u64, schema: &str, sql: &str) -> common::Outcome {
    let mut stmt = sql_stmt(sql);
    stmt.schema_name = Some(schema.into());
    client.send_sql(sid, stmt);
    client.read_outcome(sid)
}

/// A node on `engine`, a client with session 1, the database sessions start in (`main`, or the
/// engine URL's) and a second database, `<home>_shop`, made for the test.
fn setup(engine: EngineKind) -> (TestNode, Client, String, String) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client();
    client.new_session(1);
    let home = database(&mut client, 1);
    let shop = format!("{home}_shop");
    ok(&mut client, 1, &format!("create database {shop}"));
    (node, client, home, shop)
}

fn schema_name_switches_the_sessions_database_for_later_statements(engine: EngineKind) {
    let (_node, mut client, _home, shop) = setup(engine);
    let first = query_in(&mut client, 1, &shop, "select database()");
    assert_eq!(text(first.scalar()), shop);
    let later: Vec<String> = (0..3).map(|_| database(&mut client, 1)).collect();
    assert_eq!(later, [shop.as_str(); 3]);
}

fn a_table_created_after_schema_name_lands_in_that_database(engine: EngineKind) {
    let (_node, mut client, home, shop) = setup(engine);
    assert_eq!(query_in(&mut client, 1, &shop, "select 1").error, None);
    ok(&mut client, 1, "create table t (a int)");
    ok(&mut client, 1, "insert into t values (7)");
    let there = client.query(1, &format!("select a from {shop}.t"));
    assert_eq!(there.rows, [[xrpc_proto::value::Value::Sint(7)]]);
    let home_t = client.query(1, &format!("select a from {home}.t"));
    assert_eq!(home_t.error_code(), Some(1146), "t is not in {home}");
}

fn use_after_schema_name_wins(engine: EngineKind) {
    let (_node, mut client, home, shop) = setup(engine);
    assert_eq!(query_in(&mut client, 1, &shop, "select 1").error, None);
    ok(&mut client, 1, &format!("use {home}"));
    assert_eq!(database(&mut client, 1), home);
}

fn schema_name_leaves_other_sessions_of_the_connection_alone(engine: EngineKind) {
    let (_node, mut client, home, shop) = setup(engine);
    client.new_session(2);
    assert_eq!(query_in(&mut client, 1, &shop, "select 1").error, None);
    let others: Vec<String> = (0..3).map(|_| database(&mut client, 2)).collect();
    assert_eq!(others, [home.as_str(); 3]);
}

fn an_unknown_schema_name_is_1049_and_leaves_the_database_as_it_was(engine: EngineKind) {
    let (_node, mut client, _home, shop) = setup(engine);
    ok(&mut client, 1, &format!("use {shop}"));
    let refused = query_in(&mut client, 1, "no_such_db", "select 1");
    assert_eq!(refused.error_code(), Some(1049));
    assert_eq!(database(&mut client, 1), shop);
}

fn schema_name_on_an_auto_commit_sid_lasts_for_its_request(engine: EngineKind) {
    let (_node, mut client, home, shop) = setup(engine);
    let first = query_in(&mut client, AUTO | 1, &shop, "select database()");
    assert_eq!(first.error, None);
    assert_eq!(text(first.scalar()), shop);
    // The same auto-commit sid again, and a session opened afterwards: both in the home database.
    assert_eq!(
        [database(&mut client, AUTO | 1), database(&mut client, 1)],
        [home.as_str(); 2]
    );
}

fn a_plan_after_schema_name_reads_the_sessions_database(engine: EngineKind) {
    let (_node, mut client, _home, shop) = setup(engine);
    ok(
        &mut client,
        1,
        &format!("create table {shop}.items (id bigint primary key, name varchar(10))"),
    );
    ok(
        &mut client,
        1,
        &format!("insert into {shop}.items values (1, 'pen')"),
    );
    assert_eq!(query_in(&mut client, 1, &shop, "select 1").error, None);
    let plan = Plan::get("items").key([("id", 1i64)]).build();
    client.send(1, ClientType::ExecPlanRead, &plan.request(&[]));
    let outcome = client.read_outcome(1);
    assert_eq!(outcome.error, None);
    assert_eq!(text(&outcome.rows[0][1]), "pen");
}

fn the_authentication_schema_is_where_every_session_starts(engine: EngineKind) {
    let (node, _client, _home, shop) = setup(engine);
    let mut client = node.client_in(&shop);
    client.new_session(1);
    client.new_session(2);
    assert_eq!(
        [
            database(&mut client, 1),
            database(&mut client, 2),
            database(&mut client, AUTO | 3)
        ],
        [shop.as_str(); 3]
    );
}

fn an_unknown_authentication_schema_is_1049_at_the_first_statement(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut client = node.client_in("no_such_db");
    client.new_session(1);
    assert_eq!(client.query(1, "select 1").error_code(), Some(1049));
}

fn use_of_a_real_database_works_after_an_unknown_authentication_schema(engine: EngineKind) {
    let node = TestNode::start_engine(engine);
    let mut other = node.client();
    other.new_session(1);
    let home = database(&mut other, 1);
    let mut client = node.client_in("no_such_db");
    client.new_session(1);
    assert_eq!(client.query(1, "select 1").error_code(), Some(1049));
    let used = client.query(1, &format!("use {home}"));
    assert_eq!((used.error_code(), database(&mut client, 1)), (None, home));
}
