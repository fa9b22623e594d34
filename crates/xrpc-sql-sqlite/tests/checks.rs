//! CHECK constraints fail as MariaDB's do: error 4025 naming a column's check `table.column`,
//! an unnamed table check `CONSTRAINT_n`, a named one by its name; the first failing check in
//! MariaDB's order (the columns' checks in column order, then the table's) is the one named.
//! (MySQL 8 answers 3819 and names unnamed checks `table_chk_n`.)

mod common;

use common::{Node, Outcome};

fn rows(node: &mut Node, sql: &str) -> Vec<Vec<Option<String>>> {
    match node.run(sql) {
        Outcome::Rows { rows, .. } => rows,
        other => panic!("{sql}: {other}"),
    }
}

fn checked() -> Node {
    let mut node = Node::new();
    node.run(
        "CREATE TABLE acct (id INT PRIMARY KEY, balance INT CHECK (balance >= 0), \
         lo INT, hi INT, CONSTRAINT ordered CHECK (lo <= hi), CHECK (hi < 100))",
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

fn failed(name: &str) -> (u16, String) {
    (
        4025,
        format!("CONSTRAINT `{name}` failed for `corpus`.`acct`"),
    )
}

#[test]
fn an_insert_violating_a_columns_check_is_4025_naming_table_and_column() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "INSERT INTO acct VALUES (2, -1, 1, 2)"),
        failed("acct.balance")
    );
}

#[test]
fn an_update_violating_a_named_check_is_4025_naming_it() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "UPDATE acct SET lo = 3"),
        failed("ordered")
    );
}

#[test]
fn an_update_violating_a_check_leaves_the_row_as_it_was() {
    let mut node = checked();
    node.run("UPDATE acct SET lo = 3");
    assert_eq!(
        rows(&mut node, "SELECT lo FROM acct"),
        vec![vec![Some("1".into())]]
    );
}

#[test]
fn an_unnamed_table_check_is_named_constraint_n() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "UPDATE acct SET hi = 200"),
        failed("CONSTRAINT_1")
    );
}

#[test]
fn a_columns_check_fails_before_the_tables() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "INSERT INTO acct VALUES (2, -1, 5, 1)"),
        failed("acct.balance")
    );
}

#[test]
fn insert_ignore_into_a_checked_table_is_refused() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "INSERT IGNORE INTO acct VALUES (2, -1, 1, 2)").0,
        1235
    );
}

#[test]
fn checks_are_kept_as_mariadb_prints_them_in_declaration_order() {
    let node = checked();
    let shown: Vec<(String, Option<String>, String)> = node
        .definition("acct")
        .checks_shown
        .into_iter()
        .map(|c| (c.name, c.column, c.clause))
        .collect();
    assert_eq!(
        shown,
        [
            (
                "balance".into(),
                Some("balance".into()),
                "`balance` >= 0".into()
            ),
            ("ordered".into(), None, "`lo` <= `hi`".into()),
            ("CONSTRAINT_1".into(), None, "`hi` < 100".into()),
        ]
    );
}

#[test]
fn renaming_a_column_forgets_the_printed_checks_that_name_it() {
    let mut node = checked();
    node.run("ALTER TABLE acct RENAME COLUMN lo TO low");
    assert!(node.definition("acct").checks_shown.is_empty());
}

#[test]
fn dropping_a_column_a_check_reads_with_another_is_1054() {
    let mut node = checked();
    assert_eq!(
        error(&mut node, "ALTER TABLE acct DROP COLUMN hi"),
        (1054, "Unknown column 'hi' in 'CHECK'".to_owned())
    );
}

#[test]
fn dropping_a_column_drops_the_checks_that_read_only_it() {
    let mut node = checked();
    node.run("ALTER TABLE acct DROP COLUMN balance");
    assert!(matches!(
        node.run("INSERT INTO acct VALUES (2, 1, 2)"),
        Outcome::Affected(1)
    ));
    assert_eq!(
        node.definition("acct")
            .checks_shown
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["ordered", "CONSTRAINT_1"]
    );
}

#[test]
fn after_rename_table_a_check_names_the_new_table() {
    let mut node = checked();
    node.run("RENAME TABLE acct TO ledger");
    let renamed = |name: &str| {
        (
            4025,
            format!("CONSTRAINT `{name}` failed for `corpus`.`ledger`"),
        )
    };
    assert_eq!(
        error(&mut node, "INSERT INTO ledger VALUES (2, -1, 1, 2)"),
        renamed("ledger.balance")
    );
    assert_eq!(
        error(&mut node, "UPDATE ledger SET lo = 3"),
        renamed("ordered")
    );
    assert_eq!(
        rows(&mut node, "SELECT id, balance, lo, hi FROM ledger"),
        vec![vec![
            Some("1".into()),
            Some("5".into()),
            Some("1".into()),
            Some("2".into())
        ]]
    );
}

#[test]
fn after_alter_table_rename_a_check_names_the_new_table() {
    let mut node = checked();
    node.run("ALTER TABLE acct RENAME TO ledger");
    assert_eq!(
        error(&mut node, "UPDATE ledger SET hi = 200"),
        (
            4025,
            "CONSTRAINT `CONSTRAINT_1` failed for `corpus`.`ledger`".to_owned()
        )
    );
}
