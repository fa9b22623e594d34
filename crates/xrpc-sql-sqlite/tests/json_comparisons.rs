//! A JSON value compared with or computed with a number: MySQL compares JSON values, MariaDB
//! the text JSON_EXTRACT returns. Both read a JSON number as the number, which the translation does;
//! any other JSON value there (a string, `true`, an object) compares differently in the two and
//! is refused when the statement meets it.

mod common;

use common::{Node, Outcome};

fn jobs() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE jobs (id INT PRIMARY KEY, payload JSON)");
    node.run(
        r#"INSERT INTO jobs VALUES (1, '{"cents": 1299, "rate": 0.5, "job": "a"}'), (2, '{"cents": 5}')"#,
    );
    node
}

#[test]
fn a_json_number_compares_as_the_number() {
    let outcome = jobs().run("SELECT id FROM jobs WHERE JSON_EXTRACT(payload, '$.cents') > 1000");
    assert!(
        matches!(&outcome, Outcome::Rows { rows, .. } if rows == &vec![vec![Some("1".to_string())]]),
        "{outcome}"
    );
}

#[test]
fn a_json_fraction_equals_a_decimal_and_a_missing_path_matches_nothing() {
    let outcome =
        jobs().run("SELECT COUNT(*) FROM jobs WHERE JSON_EXTRACT(payload, '$.rate') = 0.5");
    assert!(
        matches!(&outcome, Outcome::Rows { rows, .. } if rows == &vec![vec![Some("1".to_string())]]),
        "{outcome}"
    );
}

#[test]
fn a_json_string_compared_with_a_number_is_refused() {
    let outcome = jobs().run("SELECT id FROM jobs WHERE JSON_EXTRACT(payload, '$.job') = 0");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}

#[test]
fn a_json_value_compared_with_a_string_is_refused() {
    let outcome = jobs().run("SELECT id FROM jobs WHERE JSON_EXTRACT(payload, '$.job') = 'a'");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}

#[test]
fn a_json_number_in_arithmetic_is_the_number() {
    let outcome = jobs().run("SELECT JSON_EXTRACT(payload, '$.cents') + 1 FROM jobs WHERE id = 2");
    assert!(
        matches!(&outcome, Outcome::Rows { rows, .. } if rows == &vec![vec![Some("6".to_string())]]),
        "{outcome}"
    );
}

#[test]
fn a_json_string_in_arithmetic_is_refused() {
    let outcome = jobs().run("SELECT JSON_EXTRACT(payload, '$.job') + 1 FROM jobs WHERE id = 1");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}
