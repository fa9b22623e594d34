//! The differential corpus of `xrpc-sql-sqlite` (`tests/corpus/scripts.sql`) against the node on
//! its SQLite engine: every script runs statement by statement on a fresh node and on a fresh
//! MariaDB database, and each statement's outcome is compared as `xrpc_testkit::differential`
//! compares them (values as MySQL's text, the column count, the affected rows, the error code).
//!
//! The node must never answer where MariaDB answers otherwise or fails: any silent difference
//! fails the test, except the ones listed in [`KNOWN`], each with the reason it is still there.
//! The report prints the share of identical scripts and every difference.

use crate::common;

use xrpc_proto::value::Value;
use xrpc_testkit::differential::{Class, Outcome, compare, corpus_scripts};

use common::TestNode;

/// Silent differences the node still has: (script, statement, why). An entry that no longer
/// differs fails the test too, so the list only shrinks.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "text comparison under the default collation",
        "SELECT 'a' = 'A', 'a' = 'a ', 'abc' < 'ABD', 'é' = 'e'",
        "SQLite compares text bytewise; utf8mb4's default collation ignores case, accents and trailing spaces",
    ),
    (
        "grouping and ordering",
        "SELECT region, SUM(amount) FROM sales GROUP BY region ORDER BY region",
        "GROUP BY and ORDER BY on text are bytewise, not under the case-insensitive default collation",
    ),
    (
        "string functions",
        "SELECT CONCAT('a', 'b', 'c'), CONCAT('a', NULL), CONCAT('x', 1, 2.50)",
        "a DECIMAL literal reaches SQLite as REAL: 2.50 reads back as 2.5",
    ),
    (
        "numeric functions",
        "SELECT ABS(-5), ABS(-2.50), ABS(5)",
        "a DECIMAL literal reaches SQLite as REAL: -2.50 reads back as 2.5",
    ),
    (
        "JSON documents",
        "SELECT JSON_OBJECT('a', 1, 'b', 'x', 'c', NULL, 'd', 1.50, 'e', JSON_ARRAY(1, 2))",
        "SQLite's JSON text has no space after ',' and ':', and 1.50 is REAL",
    ),
    (
        "decimals",
        "SELECT SUM(price), AVG(price), MIN(price), MAX(price) FROM prices",
        "SUM and AVG of a DECIMAL column add in REAL and lose the column's scale",
    ),
    (
        "more numbers",
        "SELECT 3 / 4, 3.0 / 4, 3 / 4.0, 1 / 7, 2 / 3 * 3, 100 / 3 / 3",
        "a quotient's DECIMAL scale (div_precision_increment) is lost once it feeds more arithmetic",
    ),
    (
        "decimal division",
        "SELECT a / b, a / n, n / b, b / 1000000 FROM amounts ORDER BY n",
        "division of DECIMAL columns computes in REAL, without MySQL's result scale",
    ),
    (
        "HEX and CONV of numbers",
        "SELECT HEX(18446744073709551616), HEX(-18446744073709551616), HEX(99999999999999999999), HEX(1e30), HEX(-9223372036854775809), HEX(9223372036854775808)",
        "HEX of a number beyond BIGINT hexes its text; MySQL clamps it to 64 bits",
    ),
    (
        "column types and their text",
        "SELECT CONCAT('[', c, ']'), CONCAT('[', vc, ']'), LENGTH(c), LENGTH(vc) FROM typed",
        "CHAR(n) values keep their trailing spaces; MySQL strips them on read",
    ),
    (
        "updates that change nothing and limits",
        "UPDATE items SET qty = qty",
        "affected rows count the rows matched; MySQL counts the rows changed",
    ),
    (
        "REPLACE and its affected rows",
        "REPLACE INTO kv (k, v) VALUES ('a', 2)",
        "a REPLACE that deletes the old row counts 1; MySQL counts the delete and the insert",
    ),
    (
        "strict conversions in writes",
        "UPDATE nums SET n = label + 1 WHERE id = 1",
        "arithmetic on a text column in a write converts without strict mode's 1292",
    ),
];

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
        Value::Double(v) => v.to_string(),
        Value::Float(v) => v.to_string(),
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
        columns: reply.columns.len(),
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
    let report = compare(&server, &scripts, "node_corpus", |_| {
        let node = TestNode::start();
        let mut client = node.client();
        client.new_session(1);
        move |statement: &str| {
            let _node = &node;
            outcome(client.query(1, statement))
        }
    });
    println!("{report}");
    let unknown: Vec<String> = report
        .differences
        .iter()
        .filter(|d| d.class == Class::Silent)
        .filter(|d| {
            !KNOWN
                .iter()
                .any(|(script, statement, _)| d.script == *script && d.statement == *statement)
        })
        .map(|d| d.to_string())
        .collect();
    let gone: Vec<&str> = KNOWN
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
