//! Databases, the catalog and MySQL's answers for what SQLite cannot do, end to end: one table of
//! statements with the result or the error code and SQL state each must give, run in order on
//! one session of a node, and the same table run against a real MariaDB over the classic
//! protocol (`xrpc_testkit::MariaDb`), so the expectations are a MySQL-family server's and not
//! written from memory. Rows marked [`Maria::Skip`] are where the node answers differently on
//! purpose (SQLite cannot do XA, `main` is the node's default database, …) and are checked on
//! the node only; [`Maria::CodeOnly`] rows compare the outcome but not the rows (MariaDB's
//! SHOW INDEX reports cardinalities, its SHOW CREATE TABLE its own DDL).

use crate::common;

use mysql::prelude::Queryable;
use xrpc_proto::value::Value;

use common::{Client, TestNode};

/// What a statement must give.
#[derive(Debug, Clone)]
enum Expect {
    /// Success with no result set, or one whose rows are not checked.
    Ok,
    /// Exactly these column names and rows (cells as text, `NULL` for NULL).
    Rows(&'static [&'static str], &'static [&'static [&'static str]]),
    /// This many rows.
    Count(usize),
    /// One row whose cell `column` contains the text.
    Contains(usize, &'static str),
    /// An error: code and SQL state.
    Err(u32, &'static str),
}

/// How the row is checked against MariaDB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Maria {
    Same,
    CodeOnly,
    Skip,
}

use Expect::{Contains, Count, Err, Ok as Done, Rows};
use Maria::{CodeOnly, Same, Skip};

const LONG_NAME: &str =
    "create database aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn table() -> Vec<(&'static str, Expect, Maria)> {
    vec![
        ("create database app", Done, Same),
        ("create database app", Err(1007, "HY000"), Same),
        ("create database if not exists app", Done, Same),
        (
            "create database if not exists App character set utf8mb4",
            Done,
            Skip,
        ),
        (LONG_NAME, Err(1102, "42000"), Same),
        ("create database `a/b`", Err(1102, "42000"), Skip),
        ("create database `..`", Err(1102, "42000"), Skip),
        ("create database main", Err(1007, "HY000"), Skip),
        (
            "create database information_schema",
            Err(1007, "HY000"),
            Skip,
        ),
        ("drop database information_schema", Err(1044, "42000"), Skip),
        ("use nope", Err(1049, "42000"), Same),
        ("drop database nope", Err(1008, "HY000"), Same),
        ("drop database if exists nope", Done, Same),
        (
            "show databases like 'app'",
            Rows(&["Database (app)"], &[&["app"]]),
            Same,
        ),
        (
            "select SCHEMA_NAME from information_schema.SCHEMATA where SCHEMA_NAME like 'ap%'",
            Rows(&["SCHEMA_NAME"], &[&["app"]]),
            Same,
        ),
        ("use app", Done, Same),
        (
            "select database()",
            Rows(&["database()"], &[&["app"]]),
            Same,
        ),
        (
            "create table t (id int primary key, name varchar(64) not null, price decimal(10,2) default 1.50, note text)",
            Done,
            Same,
        ),
        ("create index k_name on t (name)", Done, Same),
        (
            "create table u (code char(3) unique, n bigint unsigned)",
            Done,
            Same,
        ),
        ("insert into t (id, name) values (1, 'pen')", Done, Same),
        (
            "select id, name, price from t",
            Rows(&["id", "name", "price"], &[&["1", "pen", "1.50"]]),
            Same,
        ),
        ("select name from app.t", Rows(&["name"], &[&["pen"]]), Same),
        (
            "show tables",
            Rows(&["Tables_in_app"], &[&["t"], &["u"]]),
            Same,
        ),
        (
            "show tables like 't%'",
            Rows(&["Tables_in_app (t%)"], &[&["t"]]),
            Same,
        ),
        (
            "show full tables from app like 'u'",
            Rows(
                &["Tables_in_app (u)", "Table_type"],
                &[&["u", "BASE TABLE"]],
            ),
            Same,
        ),
        (
            "describe t",
            Rows(
                &["Field", "Type", "Null", "Key", "Default", "Extra"],
                &[
                    &["id", "int(11)", "NO", "PRI", "NULL", ""],
                    &["name", "varchar(64)", "NO", "MUL", "NULL", ""],
                    &["price", "decimal(10,2)", "YES", "", "1.50", ""],
                    &["note", "text", "YES", "", "NULL", ""],
                ],
            ),
            Same,
        ),
        (
            "show columns from u from app",
            Rows(
                &["Field", "Type", "Null", "Key", "Default", "Extra"],
                &[
                    &["code", "char(3)", "YES", "UNI", "NULL", ""],
                    &["n", "bigint(20) unsigned", "YES", "", "NULL", ""],
                ],
            ),
            Same,
        ),
        ("show columns from t like 'n%'", Count(2), Same),
        ("show index from t", Count(2), CodeOnly),
        (
            "show create table t",
            Contains(1, "PRIMARY KEY (`id`)"),
            CodeOnly,
        ),
        (
            "show create table t",
            Contains(1, "KEY `k_name` (`name`)"),
            CodeOnly,
        ),
        (
            "show create database app",
            Contains(1, "CREATE DATABASE `app`"),
            CodeOnly,
        ),
        (
            "select COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY from information_schema.COLUMNS \
             where TABLE_SCHEMA = 'app' and TABLE_NAME = 'u' order by ORDINAL_POSITION",
            Rows(
                &[
                    "COLUMN_NAME",
                    "DATA_TYPE",
                    "COLUMN_TYPE",
                    "IS_NULLABLE",
                    "COLUMN_KEY",
                ],
                &[
                    &["code", "char", "char(3)", "YES", "UNI"],
                    &["n", "bigint", "bigint(20) unsigned", "YES", ""],
                ],
            ),
            Same,
        ),
        (
            "select TABLE_NAME, TABLE_TYPE from information_schema.TABLES where TABLE_SCHEMA = 'app' order by TABLE_NAME",
            Rows(
                &["TABLE_NAME", "TABLE_TYPE"],
                &[&["t", "BASE TABLE"], &["u", "BASE TABLE"]],
            ),
            Same,
        ),
        (
            "select INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE from information_schema.STATISTICS \
             where TABLE_SCHEMA = 'app' and TABLE_NAME = 't' order by NON_UNIQUE",
            Rows(
                &["INDEX_NAME", "SEQ_IN_INDEX", "COLUMN_NAME", "NON_UNIQUE"],
                &[&["PRIMARY", "1", "id", "0"], &["k_name", "1", "name", "1"]],
            ),
            Same,
        ),
        (
            "select count(*) from information_schema.TABLES where TABLE_SCHEMA = 'app' and TABLE_NAME like 'T'",
            Rows(&["count(*)"], &[&["1"]]),
            Same,
        ),
        (
            "select * from information_schema.NOPE",
            Err(1109, "42S02"),
            Same,
        ),
        (
            "select * from INFORMATION_SCHEMA.Nope",
            Err(1109, "42S02"),
            Same,
        ),
        (
            "select count(*), count(FILE_NAME) from INFORMATION_SCHEMA.FILES",
            Rows(&["count(*)", "count(FILE_NAME)"], &[&["0", "0"]]),
            Same,
        ),
        (
            "select * from performance_schema.nope",
            Err(1146, "42S02"),
            Same,
        ),
        (
            "insert into information_schema.TABLES (TABLE_NAME) values ('x')",
            Err(1044, "42000"),
            Same,
        ),
        ("show tables from nope", Err(1049, "42000"), Same),
        ("describe nope", Err(1146, "42S02"), Same),
        ("show index from nope", Err(1146, "42S02"), Same),
        ("select * from nope", Err(1146, "42S02"), Same),
        ("call nope()", Err(1305, "42000"), Same),
        ("call app.nope(1, 'x')", Err(1305, "42000"), Same),
        ("call xrpc.perf_hist('all')", Done, Skip),
        // What a PolarDB-X compute node probes its data nodes with at start-up.
        (
            "call dbms_admin.show_native_procedure()",
            Err(1305, "42000"),
            Same,
        ),
        (
            "call DBMS_XA.FIND_BY_XID('0', '0', 1)",
            Err(1305, "42000"),
            Same,
        ),
        ("select alter_type(1)", Err(1305, "42000"), Same),
        (
            "select 1 from information_schema.tables where table_schema = 'information_schema' and table_name = 'VECTOR_INDEXES'",
            Count(0),
            CodeOnly,
        ),
        (
            "select enabled, timed from performance_schema.setup_instruments_x",
            Err(1146, "42S02"),
            Same,
        ),
        ("xa start 'x1'", Err(1235, "42000"), Skip),
        ("XA RECOVER", Err(1235, "42000"), Skip),
        ("flush tables", Err(1235, "42000"), Skip),
        ("lock tables t read", Done, Same),
        ("unlock tables", Done, Same),
        ("create sequence s", Err(1235, "42000"), Skip),
        ("show processlist", Err(1235, "42000"), Skip),
        ("show engines", Count(1), Skip),
        ("show warnings", Count(0), Skip),
        ("show nonsense", Err(1064, "42000"), Same),
        ("select nonsense from", Err(1064, "42000"), Same),
        ("selec 1", Err(1064, "42000"), Same),
        ("attach database 'x.db' as x", Err(1064, "42000"), Same),
        ("pragma database_list", Err(1064, "42000"), Same),
        (
            "select file from pragma_database_list",
            Err(1146, "42S02"),
            Same,
        ),
        ("vacuum", Err(1064, "42000"), Skip),
        ("use main", Done, Skip),
        (
            "select count(*) from app.t",
            Rows(&["count(*)"], &[&["1"]]),
            Skip,
        ),
        ("show tables", Count(0), Skip),
        ("use app", Done, Same),
        ("drop database app", Done, Same),
        ("drop database app", Err(1008, "HY000"), Same),
        ("show databases like 'app'", Count(0), Same),
        ("select * from app.t", Err(1146, "42S02"), Skip),
    ]
}

/// A cell as text: NULL as `NULL`.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_owned(),
        Value::Sint(v) => v.to_string(),
        Value::Uint(v) => v.to_string(),
        Value::Double(v) => v.to_string(),
        Value::Float(v) => v.to_string(),
        Value::Bytes(b) | Value::Enum(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Decimal(d) => d.to_string(),
        other => format!("{other:?}"),
    }
}

/// What a statement gave: column names and rows, or an error.
type Got = Result<(Vec<String>, Vec<Vec<String>>), (u32, String)>;

fn on_node(client: &mut Client, sql: &str) -> Got {
    let outcome = client.query(1, sql);
    if let Some(err) = outcome.error {
        return Result::Err((err.code, err.sql_state));
    }
    let names = outcome
        .columns
        .iter()
        .map(|c| String::from_utf8_lossy(c.name.as_deref().unwrap_or_default()).into_owned())
        .collect();
    let rows = outcome
        .rows
        .iter()
        .map(|r| r.iter().map(cell).collect())
        .collect();
    Result::Ok((names, rows))
}

fn on_mariadb(conn: &mut mysql::Conn, sql: &str) -> Got {
    let result = conn.query_iter(sql);
    let mut result = match result {
        Result::Ok(result) => result,
        Result::Err(mysql::Error::MySqlError(e)) => {
            return Result::Err((u32::from(e.code), e.state));
        }
        Result::Err(other) => panic!("{sql}: {other}"),
    };
    let names: Vec<String> = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| c.name_str().into_owned())
        .collect();
    let mut rows = Vec::new();
    for row in result.by_ref() {
        let row = match row {
            Result::Ok(row) => row,
            Result::Err(mysql::Error::MySqlError(e)) => {
                return Result::Err((u32::from(e.code), e.state));
            }
            Result::Err(other) => panic!("{sql}: {other}"),
        };
        rows.push(
            row.unwrap()
                .into_iter()
                .map(|v| match v {
                    mysql::Value::NULL => "NULL".to_owned(),
                    mysql::Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                    mysql::Value::Int(i) => i.to_string(),
                    mysql::Value::UInt(u) => u.to_string(),
                    other => format!("{other:?}"),
                })
                .collect(),
        );
    }
    Result::Ok((names, rows))
}

/// Whether `got` is what `expect` says; the reason when not.
fn check(expect: &Expect, got: &Got, compare_rows: bool) -> Result<(), String> {
    match (expect, got) {
        (Err(code, state), Result::Err((c, s))) if code == c && state == s => Result::Ok(()),
        (Err(..), _) | (_, Result::Err(_)) => {
            Result::Err(format!("expected {expect:?}, got {got:?}"))
        }
        (_, Result::Ok(_)) if !compare_rows => Result::Ok(()),
        (Done, Result::Ok(_)) => Result::Ok(()),
        (Rows(names, rows), Result::Ok((n, r))) => {
            let want_rows: Vec<Vec<String>> = rows
                .iter()
                .map(|r| r.iter().map(|c| (*c).to_owned()).collect())
                .collect();
            if n == names && *r == want_rows {
                Result::Ok(())
            } else {
                Result::Err(format!("expected {names:?} {want_rows:?}, got {n:?} {r:?}"))
            }
        }
        (Count(count), Result::Ok((_, r))) if r.len() == *count => Result::Ok(()),
        (Contains(column, text), Result::Ok((_, r)))
            if r.len() == 1 && r[0].get(*column).is_some_and(|c| c.contains(text)) =>
        {
            Result::Ok(())
        }
        _ => Result::Err(format!("expected {expect:?}, got {got:?}")),
    }
}

/// The table's statements on `node`, as failures to meet their expectations.
fn failures_on(node: &TestNode) -> Vec<String> {
    let mut client = node.client();
    client.new_session(1);
    let mut failures = Vec::new();
    for (sql, expect, _) in table() {
        let got = on_node(&mut client, sql);
        if let Result::Err(why) = check(&expect, &got, true) {
            failures.push(format!("{sql}: {why}"));
        }
    }
    failures
}

#[test]
fn the_nodes_own_tables_in_information_schema_are_unknown_to_a_client() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let err = client
        .query(1, "select TABLE_NAME from information_schema.xrpc_tables")
        .error
        .expect("1109");
    assert_eq!(
        (err.code, err.sql_state.as_str()),
        (1109, "42S02"),
        "{}",
        err.msg
    );
}

/// The error `sql` gets on a fresh translating node: its code and message.
fn error_on_a_fresh_node(sql: &str) -> (u32, String) {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    let err = client
        .query(1, sql)
        .error
        .unwrap_or_else(|| panic!("{sql} answered"));
    (err.code, err.msg)
}

/// The TABLE_NAMEs a query's rows hold, as text.
fn names_of(client: &mut Client, sql: &str) -> Vec<String> {
    match on_node(client, sql) {
        Result::Ok((_, rows)) => rows.into_iter().map(|row| row[0].clone()).collect(),
        Result::Err(err) => panic!("{sql}: {err:?}"),
    }
}

/// A fresh node with a session (sid 1) that has run `statements`, each without error.
fn node_after(statements: &[&str]) -> (TestNode, Client) {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    for sql in statements {
        assert!(client.query(1, sql).error.is_none(), "{sql}");
    }
    (node, client)
}

#[test]
fn information_schema_as_the_current_database_is_rebuilt_before_each_statement() {
    let (_node, mut client) = node_after(&[
        "create database app",
        "create table app.t1 (a int)",
        "use information_schema",
    ]);
    let tables = "select TABLE_NAME from TABLES where TABLE_SCHEMA = 'app' order by 1";
    assert_eq!(names_of(&mut client, tables), ["t1"]);
    assert!(
        client
            .query(1, "create table app.t2 (a int)")
            .error
            .is_none()
    );
    assert_eq!(names_of(&mut client, tables), ["t1", "t2"]);
}

/// The node keeps database names in lower case: one asked for by the name it was created with
/// is found (`Laravel`'s hasTable asks with the configured name).
#[test]
fn a_database_created_in_capitals_is_found_by_that_name_in_information_schema() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    for sql in ["create database MyApp", "create table MyApp.posts (a int)"] {
        assert!(client.query(1, sql).error.is_none(), "{sql}");
    }
    let found = "select TABLE_NAME from information_schema.TABLES \
                 where TABLE_SCHEMA = 'MyApp' and TABLE_NAME = 'posts'";
    assert_eq!(names_of(&mut client, found), ["posts"]);
}

#[test]
fn a_view_of_information_schema_is_refused() {
    let (code, msg) = error_on_a_fresh_node(
        "create view tables_now as select TABLE_NAME from information_schema.TABLES",
    );
    assert_eq!(code, 1235, "{msg}");
}

/// MariaDB's information_schema columns are NOT NULL utf8mb3 text with defaults, which the
/// node's catalog does not declare: a table made of them would be declared otherwise.
#[test]
fn a_table_made_from_information_schema_is_refused() {
    let (code, msg) = error_on_a_fresh_node(
        "create table names as select TABLE_NAME from information_schema.TABLES",
    );
    assert_eq!(code, 1235, "{msg}");
}

#[test]
fn mysql_statements_on_the_node() {
    let node = TestNode::start();
    let failures = failures_on(&node);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Nothing was created outside the data directory's own files and `databases/`.
    let mut names: Vec<String> = std::fs::read_dir(node.data_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("xrpc.db") || n == "databases" || n.ends_with(".log")),
        "{names:?}"
    );
}

#[test]
fn mysql_statements_on_mariadb() {
    let mariadb = xrpc_testkit::MariaDb::start().unwrap_or_else(|err| panic!("{err}"));
    let mut conn = mariadb.conn().unwrap();
    let mut failures = Vec::new();
    for (sql, expect, maria) in table() {
        if maria == Skip {
            continue;
        }
        let got = on_mariadb(&mut conn, sql);
        if let Result::Err(why) = check(&expect, &got, maria == Same) {
            failures.push(format!("{sql}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "MariaDB disagrees:\n{}",
        failures.join("\n")
    );
}

/// `USE` is the session's: it lasts across the session's statements, whichever pooled engine
/// connection runs them, and another session borrowing the same connections never sees it.
#[test]
fn use_follows_the_session_and_never_leaks() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    client.new_session(2);
    let database = |client: &mut Client, sid: u64| {
        common::text(client.query(sid, "select database()").scalar())
    };
    assert_eq!(client.query(1, "create database app").error, None);
    assert_eq!(client.query(1, "use app").error, None);
    assert_eq!(client.query(1, "create table t (a int)").error, None);
    assert_eq!(client.query(1, "insert into t values (1)").error, None);
    for _ in 0..10 {
        assert_eq!(database(&mut client, 1), "app");
        assert_eq!(database(&mut client, 2), "main");
    }
    assert_eq!(client.query(2, "select * from t").error_code(), Some(1146));
    assert_eq!(
        client.query(2, "select count(*) from app.t").scalar(),
        &Value::Sint(1)
    );
    // A request's schema_name switches the session's database as USE does.
    let mut stmt = common::sql_stmt("select database()");
    stmt.schema_name = Some("main".into());
    client.send_sql(1, stmt);
    assert_eq!(common::text(client.read_outcome(1).scalar()), "main");
    assert_eq!(database(&mut client, 1), "main");
    assert_eq!(database(&mut client, 2), "main");
    assert_eq!(client.query(1, "use app").error, None);
    // A transaction pins a connection; USE inside it still follows the session afterwards.
    assert_eq!(client.query(1, "begin").error, None);
    assert_eq!(client.query(1, "use main").error, None);
    assert_eq!(client.query(1, "commit").error, None);
    assert_eq!(database(&mut client, 1), "main");
    // Another connection's session starts in main too.
    let mut other = node.client();
    other.new_session(1);
    assert_eq!(database(&mut other, 1), "main");
}

/// The compute node tells "not there" from a failure by the message's words.
#[test]
fn unknown_procedures_are_named_as_mysql_names_them() {
    let node = TestNode::start();
    let mut client = node.client();
    client.new_session(1);
    for (sql, message) in [
        (
            "call DBMS_XA.FIND_BY_XID('0', '0', 1)",
            "PROCEDURE dbms_xa.FIND_BY_XID does not exist",
        ),
        (
            "call dbms_consensus.get_cidx()",
            "PROCEDURE dbms_consensus.get_cidx does not exist",
        ),
        ("call nope()", "PROCEDURE main.nope does not exist"),
        (
            "select alter_type(1)",
            "FUNCTION main.alter_type does not exist",
        ),
    ] {
        let err = client.query(1, sql).error.expect(sql);
        assert_eq!((err.code, err.msg.as_str()), (1305, message), "{sql}");
    }
}

/// information_schema.TABLES' storage statistics are the table's when read: its rows counted,
/// its pages' bytes, its creation time; a view's are NULL.
#[test]
fn table_statistics_count_the_rows_and_pages_of_each_table() {
    let (_node, mut client) = node_after(&[
        "create table t (id int primary key, name varchar(20), key by_name (name))",
        "insert into t values (1, 'a'), (2, 'b'), (3, 'c')",
        "create view v as select id from t",
    ]);
    let row = |client: &mut Client, name: &str| match on_node(
        client,
        &format!(
            "select TABLE_ROWS, DATA_LENGTH > 0, INDEX_LENGTH > 0, CREATE_TIME is not null, \
             UPDATE_TIME from information_schema.TABLES where TABLE_NAME = '{name}'"
        ),
    ) {
        Result::Ok((_, rows)) => rows[0].clone(),
        Result::Err(err) => panic!("{err:?}"),
    };
    assert_eq!(row(&mut client, "t"), ["3", "1", "1", "1", "NULL"]);
    assert_eq!(row(&mut client, "v"), ["NULL", "NULL", "NULL", "0", "NULL"]);
}

/// An index's CARDINALITY is the count of its key prefix's distinct values, in
/// information_schema.STATISTICS and SHOW INDEX alike.
#[test]
fn index_cardinality_counts_the_distinct_values_of_each_key_prefix() {
    let (_node, mut client) = node_after(&[
        "create table t (id int primary key, a int, b int, key ab (a, b))",
        "insert into t values (1, 1, 1), (2, 1, 2), (3, 2, 2), (4, NULL, 5), (5, NULL, 6)",
    ]);
    let statistics = "select concat(INDEX_NAME, SEQ_IN_INDEX, '=', CARDINALITY) \
                      from information_schema.STATISTICS where TABLE_NAME = 't' \
                      order by INDEX_NAME, SEQ_IN_INDEX";
    assert_eq!(
        names_of(&mut client, statistics),
        ["ab1=3", "ab2=5", "PRIMARY1=5"]
    );
    let shown: Vec<String> = match on_node(&mut client, "show index from t") {
        Result::Ok((_, rows)) => rows.into_iter().map(|row| row[6].clone()).collect(),
        Result::Err(err) => panic!("{err:?}"),
    };
    assert_eq!(shown, ["5", "3", "5"]);
}

/// SHOW TABLE STATUS lists information_schema.TABLES' rows of the database under MySQL's
/// column names.
#[test]
fn show_table_status_lists_each_table_with_its_statistics() {
    let (_node, mut client) = node_after(&[
        "create table posts (id int auto_increment primary key, title text) comment 'blog'",
        "insert into posts (title) values ('x'), ('y')",
        "create table tags (id int)",
    ]);
    let (columns, rows) = match on_node(&mut client, "show table status like 'p%'") {
        Result::Ok(result) => result,
        Result::Err(err) => panic!("{err:?}"),
    };
    let at = |name: &str| columns.iter().position(|c| c == name).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        [
            &rows[0][at("Name")],
            &rows[0][at("Rows")],
            &rows[0][at("Auto_increment")],
            &rows[0][at("Comment")]
        ],
        ["posts", "2", "3", "blog"]
    );
    assert_eq!(names_of(&mut client, "show table status").len(), 2);
}
