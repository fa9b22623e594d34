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

#[test]
fn a_check_that_is_not_enforced_lets_rows_through() {
    let mut node = Node::new();
    node.run("CREATE TABLE loose (n INT, CHECK (n > 0) NOT ENFORCED)");
    assert!(matches!(
        node.run("INSERT INTO loose VALUES (-1)"),
        Outcome::Affected(1)
    ));
}
