//! MySQL forms MariaDB does not have, so the differential corpus cannot hold them: each is
//! checked against the answer MySQL documents.

mod common;

use common::{Node, Outcome};

fn rows(node: &mut Node, sql: &str) -> Vec<Vec<Option<String>>> {
    match node.run(sql) {
        Outcome::Rows { rows, .. } => rows,
        other => panic!("{sql}: {other}"),
    }
}

fn documents() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE docs (id INT PRIMARY KEY, body TEXT)");
    node.run(r#"INSERT INTO docs VALUES (1, '{"name": "Ann", "tags": ["a", "b"]}')"#);
    node
}

#[test]
fn arrow_is_json_extract() {
    let mut node = documents();
    assert_eq!(
        rows(&mut node, "SELECT body->'$.name', body->'$.tags' FROM docs"),
        vec![vec![Some(r#""Ann""#.into()), Some(r#"["a", "b"]"#.into())]]
    );
}

#[test]
fn long_arrow_is_the_unquoted_value() {
    let mut node = documents();
    assert_eq!(
        rows(&mut node, "SELECT body->>'$.name' FROM docs"),
        vec![vec![Some("Ann".into())]]
    );
}

/// MySQL 8.0.16+ enforces CHECK constraints with error 3819 naming the constraint (MariaDB
/// answers its own 4025), and names an unnamed one `table_chk_n`.
fn checked() -> Node {
    let mut node = Node::new();
    node.run(
        "CREATE TABLE acct (id INT PRIMARY KEY, balance INT CHECK (balance >= 0), \
         lo INT, hi INT, CONSTRAINT ordered CHECK (lo <= hi))",
    );
    node.run("INSERT INTO acct VALUES (1, 5, 1, 2)");
    node
}

fn error(node: &mut Node, sql: &str) -> (u16, String) {
    match node.run(sql) {
        Outcome::Error(code, message) => (code, message),
        other => panic!("{sql}: {other}"),
    }
}

#[test]
fn an_insert_violating_an_unnamed_check_is_3819_naming_it_table_chk_1() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "INSERT INTO acct VALUES (2, -1, 1, 2)"),
        (3819, "Check constraint 'acct_chk_1' is violated.".into())
    );
}

#[test]
fn an_update_violating_a_named_check_is_3819_naming_it() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "UPDATE acct SET lo = 3"),
        (3819, "Check constraint 'ordered' is violated.".into())
    );
    assert_eq!(
        rows(&mut node, "SELECT lo FROM acct"),
        vec![vec![Some("1".into())]]
    );
}

#[test]
fn a_check_that_is_not_enforced_lets_rows_through() {
    let mut node = Node::new();
    node.run("CREATE TABLE loose (n INT, CHECK (n > 0) NOT ENFORCED)");
    assert!(matches!(
        node.run("INSERT INTO loose VALUES (-1)"),
        Outcome::Affected(1)
    ));
}

#[test]
fn insert_ignore_into_a_checked_table_is_refused() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "INSERT IGNORE INTO acct VALUES (2, -1, 1, 2)").0,
        1235
    );
}
