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

fn counters() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE counters (name VARCHAR(20) PRIMARY KEY, hits INT NOT NULL)");
    node.run("INSERT INTO counters VALUES ('home', 1)");
    node
}

/// MySQL 8.0.19's row alias (Laravel's upserts on MySQL write it): `new.c` is the value the
/// row would have had, as `VALUES(c)` is.
#[test]
fn an_upserts_row_alias_names_the_row_to_be_inserted() {
    let mut node = counters();
    let upsert = "INSERT INTO counters (name, hits) VALUES ('home', 5), ('about', 7) AS new \
                  ON DUPLICATE KEY UPDATE hits = counters.hits + new.hits";
    let outcome = node.run(upsert);
    assert!(matches!(outcome, Outcome::Affected(3)), "{outcome}");
    assert_eq!(
        rows(&mut node, "SELECT name, hits FROM counters ORDER BY name"),
        vec![
            vec![Some("about".into()), Some("7".into())],
            vec![Some("home".into()), Some("6".into())],
        ]
    );
}

#[test]
fn a_row_alias_with_column_aliases_is_refused() {
    let mut node = counters();
    let upsert = "INSERT INTO counters (name, hits) VALUES ('home', 5) AS new (n, h) \
                  ON DUPLICATE KEY UPDATE hits = h";
    assert!(matches!(node.run(upsert), Outcome::Error(1235, _)));
}

#[test]
fn a_subquerys_table_of_the_row_aliass_name_hides_the_alias() {
    let mut node = counters();
    node.run("CREATE TABLE o (hits INT)");
    node.run("INSERT INTO o VALUES (100)");
    let upsert = "INSERT INTO counters (name, hits) VALUES ('home', 5) AS new \
                  ON DUPLICATE KEY UPDATE hits = (SELECT new.hits FROM o AS new)";
    let outcome = node.run(upsert);
    assert!(matches!(outcome, Outcome::Affected(2)), "{outcome}");
    assert_eq!(
        rows(&mut node, "SELECT hits FROM counters WHERE name = 'home'"),
        vec![vec![Some("100".into())]]
    );
}
