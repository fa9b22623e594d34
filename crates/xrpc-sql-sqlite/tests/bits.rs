//! BIT(n) columns hold a number, sent as MySQL's BIT. MySQL reads one as a number in
//! arithmetic, comparisons with numbers, SUM, AVG, HEX and BIN, and as a binary string
//! elsewhere: those other uses are refused. Hexadecimal and bit-value literals are binary
//! strings the same way, read as numbers by MySQL where MariaDB reads `X'…'` as a string.
//! YEAR columns hold the year as MySQL reads it from two or four digits.
//! (MariaDB's answers to the allowed forms are in the differential corpus.)

mod common;

use common::{Node, Outcome};

fn flags() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE flags (id INT PRIMARY KEY, b8 BIT(8))");
    node.run("INSERT INTO flags VALUES (1, 65)");
    node
}

fn refused(sql: &str) {
    let outcome = flags().run(sql);
    assert!(
        matches!(outcome, Outcome::Error(1235, _)),
        "{sql}: {outcome}"
    );
}

#[test]
fn a_bit_column_in_a_string_function_is_refused() {
    refused("SELECT CONCAT(b8, 'x') FROM flags");
}

#[test]
fn max_of_a_bit_column_is_refused() {
    refused("SELECT MAX(b8) FROM flags");
}

#[test]
fn a_bit_column_compared_with_a_string_is_refused() {
    refused("SELECT id FROM flags WHERE b8 = 'A'");
}

#[test]
fn a_hexadecimal_literal_in_arithmetic_is_refused() {
    refused("SELECT 0x41 + 1");
}

#[test]
fn a_hexadecimal_literal_compared_with_a_number_is_refused() {
    refused("SELECT id FROM flags WHERE b8 = 0x41");
}

#[test]
fn a_bit_value_literal_as_a_result_is_refused() {
    refused("SELECT b'1000001'");
}

#[test]
fn a_value_past_the_columns_bits_is_1406_in_strict_mode() {
    let outcome = flags().run("INSERT INTO flags VALUES (2, 256)");
    assert!(matches!(outcome, Outcome::Error(1406, _)), "{outcome}");
}

#[test]
fn a_bit_value_literal_stores_its_number() {
    let mut node = flags();
    node.run("INSERT INTO flags VALUES (2, b'101')");
    let outcome = node.run("SELECT b8 + 0 FROM flags WHERE id = 2");
    assert!(
        matches!(&outcome, Outcome::Rows { rows, .. } if rows == &vec![vec![Some("5".to_string())]]),
        "{outcome}"
    );
}

/// MySQL shows the year 0000 with four digits where the integer sent has one: refused.
#[test]
fn the_year_0000_is_refused() {
    let mut node = Node::new();
    node.run("CREATE TABLE y (id INT PRIMARY KEY, y YEAR)");
    let outcome = node.run("INSERT INTO y VALUES (1, '0000')");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}

/// MySQL's bit operators give BIGINT UNSIGNED: a result past BIGINT is refused, where SQLite
/// would show it negative.
#[test]
fn a_bit_operators_result_past_bigint_is_refused() {
    refused("SELECT ~0");
}

#[test]
fn a_bit_operator_on_a_decimal_is_refused() {
    refused("SELECT 5.5 & 1");
}
