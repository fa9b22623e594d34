//! FLOAT and DOUBLE declarations: `FLOAT(p)` is FLOAT up to 24 bits of precision and DOUBLE up
//! to 53, as MySQL reads it; `FLOAT(M,D)` and `DOUBLE(M,D)` round every value to D digits and
//! show what is computed from them with D digits, which the node does not, so they are refused
//! rather than kept as plain FLOAT and DOUBLE. (MariaDB's answers to `FLOAT(p)` are in the
//! differential corpus.)

mod common;

use common::{Node, Outcome};

fn created(sql: &str) -> Outcome {
    Node::new().run(sql)
}

#[test]
fn double_with_digits_is_refused() {
    let outcome = created("CREATE TABLE t (d DOUBLE(10,2))");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}

#[test]
fn float_with_digits_is_refused() {
    let outcome = created("CREATE TABLE t (f FLOAT(7,2))");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}

#[test]
fn float_of_more_than_53_bits_is_refused() {
    let outcome = created("CREATE TABLE t (f FLOAT(54))");
    assert!(matches!(outcome, Outcome::Error(_, _)), "{outcome}");
}

#[test]
fn float_of_25_to_53_bits_is_a_double() {
    let mut node = Node::new();
    node.run("CREATE TABLE t (id INT PRIMARY KEY, f FLOAT(30))");
    node.run("INSERT INTO t VALUES (1, 0.1)");
    match node.run("SELECT f = 0.1 FROM t") {
        Outcome::Rows { rows, .. } => assert_eq!(rows, vec![vec![Some("1".to_owned())]]),
        other => panic!("{other}"),
    }
}
