//! The differential corpus of `xrpc-sql-sqlite` (`tests/corpus/scripts.sql`) against the node on
//! its SQLite engine, which runs every statement by its translation: every script runs statement
//! by statement on a fresh node and on a fresh MariaDB database, and each statement's outcome is compared as `xrpc_testkit::differential`
//! compares them (values as MySQL's text, the column count, the affected rows, the error code).
//!
//! The node must never answer where MariaDB answers otherwise or fails: any silent difference
//! fails the test, except the ones listed in [`KNOWN`], each with the reason it is still there.
//! The report prints the share of identical scripts and every difference.

use crate::common;

use rusqlite::types::ValueRef;
use xrpc_proto::value::Value;
use xrpc_sql_sqlite::{Ty, text_of};
use xrpc_testkit::differential::{Class, Outcome, Report, compare, corpus_scripts};

use common::TestNode;

/// Silent differences the node still has: (script, statement, why). An entry that no longer
/// differs fails the test too, so the list only shrinks.
const KNOWN: &[(&str, &str, &str)] = &[];

/// Silent differences `corpus/apps_dml.sql` still finds: (script, statement, why). An entry that
/// no longer differs fails the test, so the list only shrinks.
const KNOWN_IN_APPLICATIONS: &[(&str, &str, &str)] = &[];

/// A value as MySQL's text protocol shows it; a temporal value's fraction has its column's
/// digits.
fn text(value: &Value, fraction: u32) -> Option<String> {
    let with_fraction = |whole: String, micros: String| {
        if fraction == 0 {
            return whole;
        }
        let micros = format!("{micros:0<6}");
        format!("{whole}.{}", &micros[..fraction.min(6) as usize])
    };
    Some(match value {
        Value::Null => return None,
        Value::Sint(v) => v.to_string(),
        Value::Uint(v) => v.to_string(),
        Value::Double(v) => mysql_real(*v, Ty::Double),
        Value::Float(v) => mysql_real(f64::from(*v), Ty::Float),
        Value::Bytes(b) | Value::Enum(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Time(t) => {
            let shown = t.to_string();
            let (whole, micros) = shown.split_once('.').unwrap_or((&shown, ""));
            with_fraction(whole.to_owned(), micros.to_owned())
        }
        Value::DateTime(t) => {
            let shown = t.to_string();
            let (whole, micros) = shown.split_once('.').unwrap_or((&shown, ""));
            if whole.len() == 10 {
                whole.to_owned()
            } else {
                with_fraction(whole.to_owned(), micros.to_owned())
            }
        }
        Value::Decimal(d) => d.to_string(),
        Value::Set(members) => members
            .iter()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .collect::<Vec<_>>()
            .join(","),
        Value::Bit(v) => {
            let bytes = v.to_be_bytes();
            let first = bytes.iter().position(|&b| b != 0).unwrap_or(7);
            String::from_utf8_lossy(&bytes[first..]).into_owned()
        }
    })
}

/// A DOUBLE or FLOAT as MySQL's text protocol prints it (`1e20`, not Rust's
/// `100000000000000000000`).
fn mysql_real(value: f64, ty: Ty) -> String {
    text_of(ValueRef::Real(value), &ty).unwrap_or_default()
}

fn outcome(reply: xrpc_testkit::client::Outcome) -> Outcome {
    if let Some(err) = reply.error {
        return Outcome::Error(err.code as u16, err.msg);
    }
    if reply.columns.is_empty() {
        return Outcome::Affected(reply.rows_affected().unwrap_or(0));
    }
    let fractions: Vec<u32> = reply
        .columns
        .iter()
        .map(|c| c.fractional_digits.unwrap_or(0))
        .collect();
    Outcome::Rows {
        columns: reply
            .columns
            .iter()
            .map(|c| String::from_utf8_lossy(c.name.as_deref().unwrap_or_default()).into_owned())
            .collect(),
        rows: reply
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .zip(&fractions)
                    .map(|(v, &f)| text(v, f))
                    .collect()
            })
            .collect(),
    }
}

#[test]
fn the_corpus_answers_on_the_sqlite_node_as_on_mariadb() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(include_str!(
        "../../../xrpc-sql-sqlite/tests/corpus/scripts.sql"
    ));
    let report = compare_on_nodes(&server, &scripts, "node_corpus");
    println!("{report}");
    assert_silent_differences_are_known(&report, KNOWN);
}

/// SHOW COLUMNS, DESCRIBE, SHOW CREATE TABLE and information_schema describe a translated table
/// from its kept definition as MariaDB describes the same table (`tests/it/corpus/catalog.sql`).
#[test]
fn catalog_statements_describe_translated_tables_as_mariadb_does() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(include_str!("corpus/catalog.sql"));
    let report = compare_on_nodes(&server, &scripts, "node_catalog");
    println!("{report}");
    assert_eq!(report.identical_scripts, report.scripts, "{report}");
}

/// Views on the node: created, read, listed and described as MariaDB does
/// (`tests/it/corpus/views.sql`), and the corpus of `xrpc-sql-sqlite`'s views.
#[test]
fn views_answer_on_the_node_as_on_mariadb() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let mut scripts = corpus_scripts(include_str!("corpus/views.sql"));
    scripts.extend(corpus_scripts(include_str!(
        "../../../xrpc-sql-sqlite/tests/corpus/views.sql"
    )));
    let report = compare_on_nodes(&server, &scripts, "node_views");
    println!("{report}");
    assert_eq!(report.identical_scripts, report.scripts, "{report}");
}

/// Transactions and session semantics as applications use them (`tests/it/corpus/apps_tx.sql`):
/// statement atomicity, implicit commits, savepoints, autocommit, isolation levels, locking
/// reads, XA, `ROW_COUNT()`/`LAST_INSERT_ID()`; each answers as MariaDB's or is refused.
#[test]
fn transactions_and_sessions_answer_on_the_node_as_on_mariadb() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(include_str!("corpus/apps_tx.sql"));
    let report = compare_on_nodes(&server, &scripts, "node_apps_tx");
    println!("{report}");
    let silent: Vec<(&str, &str)> = report
        .differences
        .iter()
        .filter(|d| d.class == Class::Silent)
        .map(|d| (d.script.as_str(), d.statement.as_str()))
        .collect();
    let known: Vec<(&str, &str)> = KNOWN_TX.iter().map(|(s, t, _)| (*s, *t)).collect();
    assert_eq!(
        silent, known,
        "silent differences other than the known ones:\n{report}"
    );
}

/// Silent differences of `apps_tx.sql` the node still has: (script, statement, why). The list
/// only shrinks: a difference gone or a new one fails the test.
const KNOWN_TX: &[(&str, &str, &str)] = &[(
    "the transaction_isolation name MariaDB 10.11 does not know",
    "SELECT @@transaction_isolation",
    "MySQL 8's name, which the PolarDB-X client reads; MariaDB 10.11 does not have it",
)];

/// What applications send once their schema exists (`tests/it/corpus/apps_dml.sql`): an ORM's
/// CRUD and upserts, a blog's queries, pushed-down reports. A form the node cannot run is refused
/// with MySQL's error; none answers otherwise than MariaDB.
#[test]
fn application_queries_answer_on_the_node_as_on_mariadb() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(include_str!("corpus/apps_dml.sql"));
    let report = compare_on_nodes(&server, &scripts, "node_apps_dml");
    println!("{report}");
    assert_silent_differences_are_known(&report, KNOWN_IN_APPLICATIONS);
}

/// Web applications' everyday statements (`tests/it/corpus/apps_web.sql`): a shop, a forum, a
/// CMS's options and sessions, reports, search, pagination and a job queue. No silent
/// difference.
#[test]
fn web_application_scripts_never_answer_otherwise_than_mariadb() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(include_str!("corpus/apps_web.sql"));
    let report = compare_on_nodes(&server, &scripts, "node_apps_web");
    println!("{report}");
    assert_silent_differences_are_known(&report, &[]);
}

/// Fails when `report` has a silent difference `known` does not list, or `known` lists one that
/// no longer differs (the list only shrinks).
fn assert_silent_differences_are_known(report: &Report, known: &[(&str, &str, &str)]) {
    let unknown: Vec<String> = report
        .differences
        .iter()
        .filter(|d| d.class == Class::Silent)
        .filter(|d| {
            !known
                .iter()
                .any(|(script, statement, _)| d.script == *script && d.statement == *statement)
        })
        .map(|d| d.to_string())
        .collect();
    let gone: Vec<&str> = known
        .iter()
        .filter(|(script, statement, _)| {
            !report.differences.iter().any(|d| {
                d.class == Class::Silent && d.script == *script && d.statement == *statement
            })
        })
        .map(|(_, statement, _)| *statement)
        .collect();
    assert!(
        gone.is_empty(),
        "known differences that no longer differ, to take off the list: {gone:?}"
    );
    assert!(
        unknown.is_empty(),
        "{} silent differences:\n{}",
        unknown.len(),
        unknown.join("\n")
    );
}

/// Runs `scripts` statement by statement on fresh translated SQLite nodes and on MariaDB.
fn compare_on_nodes(
    server: &xrpc_testkit::MariaDb,
    scripts: &[(String, Vec<String>)],
    database_prefix: &str,
) -> xrpc_testkit::differential::Report {
    compare(server, scripts, database_prefix, |_| {
        let node = TestNode::start();
        let mut client = node.client();
        client.new_session(1);
        move |statement: &str| {
            let _node = &node;
            outcome(client.query(1, statement))
        }
    })
}

/// Application schema scripts (`tests/it/corpus/apps_ddl.sql`): the DDL, catalog reads, session
/// variables and dump headers frameworks and tools send. The node answers them as MariaDB does
/// or refuses: a statement it cannot answer alike is an error, never another answer. The
/// report prints the share of identical scripts and every difference.
#[test]
fn application_schema_scripts_never_answer_otherwise_than_mariadb() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(include_str!("corpus/apps_ddl.sql"));
    let report = compare_on_nodes(&server, &scripts, "node_apps_ddl");
    println!("{report}");
    let silent: Vec<String> = report
        .differences
        .iter()
        .filter(|d| d.class == Class::Silent)
        .map(|d| d.to_string())
        .collect();
    assert!(
        silent.is_empty(),
        "{} silent differences:\n{}",
        silent.len(),
        silent.join("\n")
    );
}
