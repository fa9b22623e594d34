//! `DEFAULT CURRENT_TIMESTAMP(n)` and `ON UPDATE CURRENT_TIMESTAMP(n)` of a DATETIME(n) or
//! TIMESTAMP(n) column store the current time with the column's fraction digits. Another
//! number of digits than the column's (MariaDB cuts to the fewer, MySQL 8 refuses with 1067)
//! is refused.

mod common;

use common::{Node, Outcome};

fn one_value(node: &mut Node, sql: &str) -> Option<String> {
    match node.run(sql) {
        Outcome::Rows { rows, .. } => rows[0][0].clone(),
        other => panic!("{sql}: {other}"),
    }
}

#[test]
fn a_default_of_the_current_time_has_the_columns_fraction_digits() {
    let mut node = Node::new();
    node.run("CREATE TABLE t (id INT, a DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3))");
    node.run("INSERT INTO t (id) VALUES (1)");
    assert_eq!(
        one_value(&mut node, "SELECT LENGTH(a) FROM t"),
        Some("23".into())
    );
}

#[test]
fn an_update_sets_the_current_time_with_the_columns_fraction_digits() {
    let mut node = Node::new();
    node.run(
        "CREATE TABLE t (id INT, n INT, a DATETIME(6) NOT NULL DEFAULT '2001-01-01 00:00:00' \
         ON UPDATE CURRENT_TIMESTAMP(6))",
    );
    node.run("INSERT INTO t (id, n) VALUES (1, 1)");
    node.run("UPDATE t SET n = 2");
    assert_eq!(
        one_value(
            &mut node,
            "SELECT LENGTH(a) > 19 AND a > '2020-01-01' FROM t"
        ),
        Some("1".into())
    );
}

#[test]
fn a_default_of_other_fraction_digits_than_the_columns_is_refused() {
    let mut node = Node::new();
    assert!(matches!(
        node.run("CREATE TABLE t (a DATETIME(3) DEFAULT CURRENT_TIMESTAMP)"),
        Outcome::Error(1235, _)
    ));
}
