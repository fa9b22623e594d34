//! A multi-table UPDATE (`UPDATE a JOIN b … SET a.x = …, a.y = …`) assigns several columns of
//! one table from the joined rows. MySQL leaves the order of its assignments open, so one that
//! may read a column assigned before it is refused; the others read the rows as they were.

mod common;

use common::{Node, Outcome};

fn joined() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE ta (id INT PRIMARY KEY, a INT, b INT)");
    node.run("CREATE TABLE sb (id INT PRIMARY KEY, x INT)");
    node.run("INSERT INTO ta VALUES (1, 10, 0), (2, 20, 0)");
    node.run("INSERT INTO sb VALUES (1, 5), (2, 7)");
    node
}

#[test]
fn several_columns_are_assigned_from_the_joined_row() {
    let mut node = joined();
    node.run("UPDATE ta JOIN sb ON sb.id = ta.id SET ta.a = ta.a + sb.x, ta.b = sb.x * 2");
    assert!(matches!(
        node.run("SELECT id, a, b FROM ta ORDER BY id"),
        Outcome::Rows { rows, .. } if rows == vec![
            vec![Some("1".into()), Some("15".into()), Some("10".into())],
            vec![Some("2".into()), Some("27".into()), Some("14".into())],
        ]
    ));
}

#[test]
fn an_assignment_reading_a_column_assigned_before_it_is_refused() {
    let mut node = joined();
    assert!(matches!(
        node.run("UPDATE ta t JOIN sb s ON s.id = t.id SET t.a = t.a + s.x, t.b = t.a"),
        Outcome::Error(1235, _)
    ));
}

#[test]
fn an_unqualified_name_of_an_assigned_column_is_refused_too() {
    let mut node = joined();
    assert!(matches!(
        node.run("UPDATE ta JOIN sb ON sb.id = ta.id SET ta.a = 1, ta.b = a + 1"),
        Outcome::Error(1235, _)
    ));
}
