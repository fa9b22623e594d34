//! An ENUM, SET or TIME column is refused (1235) where MySQL would read it by its index, bit
//! mask or time and the translation would read its text. (What it answers is in the differential corpus.)

mod common;

use common::{Node, Outcome};

fn node() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE e (id INT PRIMARY KEY, s ENUM('b', 'a'))");
    node.run("INSERT INTO e VALUES (1, 'a'), (2, 'b')");
    node
}

fn refused(sql: &str) {
    let mut node = node();
    let outcome = node.run(sql);
    assert!(
        matches!(outcome, Outcome::Error(1235, _)),
        "{sql}: {outcome}"
    );
}

#[test]
fn arithmetic_on_an_enum_is_refused() {
    refused("SELECT s + 0 FROM e");
}

#[test]
fn an_enum_compared_with_a_number_is_refused() {
    refused("SELECT id FROM e WHERE s = 1");
}

#[test]
fn an_enum_in_a_derived_table_is_refused() {
    refused("SELECT d.s FROM (SELECT s FROM e) AS d ORDER BY d.s");
}

#[test]
fn an_enum_in_a_union_is_refused() {
    refused("SELECT s FROM e UNION SELECT 'x'");
}

#[test]
fn order_by_an_enums_position_or_alias_is_refused() {
    refused("SELECT s FROM e ORDER BY 1");
    refused("SELECT s AS x FROM e ORDER BY x");
}

#[test]
fn an_enum_copied_into_another_table_is_refused() {
    refused("INSERT INTO e (id, s) SELECT id + 10, s FROM e");
}

fn times() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE tm (id INT PRIMARY KEY, t TIME, n INT)");
    node.run("INSERT INTO tm VALUES (1, '10:00:00', 1)");
    node
}

fn time_refused(sql: &str) {
    let mut node = times();
    let outcome = node.run(sql);
    assert!(
        matches!(outcome, Outcome::Error(1235, _)),
        "{sql}: {outcome}"
    );
}

/// A function that would read a TIME column as something else (YEAR takes it as today's
/// date and time) is refused.
#[test]
fn a_function_of_a_time_column_that_reads_no_time_is_refused() {
    time_refused("SELECT YEAR(t) FROM tm");
}

/// HOUR, MINUTE, SECOND, MICROSECOND, TIME_TO_SEC and TIME_FORMAT read the column's text as the
/// time it is, hours past 23 included.
#[test]
fn the_time_functions_read_a_time_column() {
    let mut node = times();
    node.run("INSERT INTO tm VALUES (2, '100:00:01', 2)");
    let outcome = node.run("SELECT HOUR(t), TIME_TO_SEC(t) FROM tm WHERE id = 2");
    assert!(
        matches!(&outcome, Outcome::Rows { rows, .. }
            if rows == &vec![vec![Some("100".to_string()), Some("360001".to_string())]]),
        "{outcome}"
    );
}

#[test]
fn a_time_column_compared_with_another_type_is_refused() {
    time_refused("SELECT id FROM tm WHERE t = n");
}

/// MySQL computes with a SET's bit mask: arithmetic on one is refused.
#[test]
fn arithmetic_on_a_set_is_refused() {
    let mut node = Node::new();
    node.run("CREATE TABLE st (id INT PRIMARY KEY, p SET('a', 'b'))");
    let outcome = node.run("SELECT p + 0 FROM st");
    assert!(matches!(outcome, Outcome::Error(1235, _)), "{outcome}");
}

/// MySQL gives ADDTIME's result the fraction digits of how its arguments were written, which
/// the translation does not follow: a fraction of a second is refused.
#[test]
fn addtime_of_a_fraction_of_a_second_is_refused() {
    time_refused("SELECT ADDTIME(t, '00:00:00.5') FROM tm");
}
