//! `ALTER TABLE … MODIFY/CHANGE COLUMN` builds the table again; a table other tables reference
//! is rebuilt without acting on their rows, and a change to the columns they reference is
//! refused. (Its answers are in the differential corpus.)

mod common;

use common::{Node, Outcome};

fn run(node: &mut Node, sql: &str) -> Outcome {
    node.run(sql)
}

/// A parent whose child's rows cascade on delete, one row each.
fn referenced(node: &mut Node) {
    run(node, "CREATE TABLE parent (id INT PRIMARY KEY, n INT)");
    run(
        node,
        "CREATE TABLE child (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES parent (id) ON DELETE CASCADE)",
    );
    run(node, "INSERT INTO parent VALUES (1, 1)");
    run(node, "INSERT INTO child VALUES (1, 1)");
}

#[test]
fn a_table_other_tables_reference_is_rebuilt_without_acting_on_their_rows() {
    let mut node = Node::new();
    referenced(&mut node);
    run(&mut node, "ALTER TABLE parent MODIFY n BIGINT");
    assert!(matches!(
        run(&mut node, "SELECT COUNT(*) FROM child"),
        Outcome::Rows { rows, .. } if rows == vec![vec![Some("1".to_string())]]
    ));
}

#[test]
fn a_column_other_tables_reference_is_not_changed() {
    let mut node = Node::new();
    referenced(&mut node);
    assert!(matches!(
        run(&mut node, "ALTER TABLE parent MODIFY id BIGINT NOT NULL"),
        Outcome::Error(1235, _)
    ));
}

#[test]
fn a_child_table_is_rebuilt_with_its_foreign_key() {
    let mut node = Node::new();
    run(&mut node, "CREATE TABLE parent (id INT PRIMARY KEY)");
    run(
        &mut node,
        "CREATE TABLE child (id INT PRIMARY KEY, p INT, n INT, FOREIGN KEY (p) REFERENCES parent (id))",
    );
    assert!(matches!(
        run(&mut node, "ALTER TABLE child MODIFY n BIGINT"),
        Outcome::Affected(0)
    ));
    assert!(matches!(
        run(&mut node, "INSERT INTO child VALUES (1, 9, 1)"),
        Outcome::Error(1452, _)
    ));
}

#[test]
fn a_value_the_new_type_cannot_hold_fails_the_change_and_keeps_the_table() {
    let mut node = Node::new();
    run(
        &mut node,
        "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10))",
    );
    run(&mut node, "INSERT INTO t VALUES (1, 'abc')");
    assert!(matches!(
        run(&mut node, "ALTER TABLE t MODIFY s INT"),
        Outcome::Error(..)
    ));
    assert!(matches!(
        run(&mut node, "SELECT s FROM t"),
        Outcome::Rows { rows, .. } if rows == vec![vec![Some("abc".to_string())]]
    ));
}

/// Several changes run as several SQLite statements, all or nothing: one that fails on the
/// rows after another leaves the table as it was, as MySQL's atomic ALTER TABLE does.
#[test]
fn a_change_that_fails_after_another_leaves_the_table_as_it_was() {
    let mut node = Node::new();
    run(&mut node, "CREATE TABLE t (id INT PRIMARY KEY, a INT)");
    run(&mut node, "INSERT INTO t VALUES (1, 1), (2, 1)");
    assert!(matches!(
        run(
            &mut node,
            "ALTER TABLE t ADD COLUMN b INT, ADD UNIQUE KEY ua (a)"
        ),
        Outcome::Error(1062, _)
    ));
    assert!(matches!(
        run(&mut node, "SELECT b FROM t"),
        Outcome::Error(1054, _)
    ));
}

#[test]
fn a_failed_first_change_leaves_the_others_undone() {
    let mut node = Node::new();
    run(&mut node, "CREATE TABLE t (id INT PRIMARY KEY, a INT)");
    run(&mut node, "INSERT INTO t VALUES (1, NULL)");
    assert!(matches!(
        run(
            &mut node,
            "ALTER TABLE t MODIFY a INT NOT NULL, ADD COLUMN b INT"
        ),
        Outcome::Error(1265, _)
    ));
    assert!(matches!(
        run(&mut node, "SELECT * FROM t"),
        Outcome::Rows { columns, .. } if columns.len() == 2
    ));
    assert!(matches!(
        run(&mut node, "ALTER TABLE t ADD COLUMN b INT"),
        Outcome::Affected(0)
    ));
}
