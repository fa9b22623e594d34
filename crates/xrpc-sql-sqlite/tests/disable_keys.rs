//! `ALTER TABLE … DISABLE | ENABLE KEYS`, which every mysqldump wraps a table's rows in: SQLite
//! keeps its indexes current as InnoDB does, so both change nothing and the rows stay readable.

mod common;

use common::{Node, Outcome};

#[test]
fn disable_and_enable_keys_change_nothing() {
    let mut node = Node::new();
    node.run("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10), KEY k (name))");
    assert_eq!(
        node.run("/*!40000 ALTER TABLE `t` DISABLE KEYS */"),
        Outcome::Affected(0)
    );
    node.run("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    assert_eq!(
        node.run("/*!40000 ALTER TABLE `t` ENABLE KEYS */"),
        Outcome::Affected(0)
    );
    assert!(matches!(
        node.run("SELECT id FROM t WHERE name = 'b'"),
        Outcome::Rows { rows, .. } if rows == vec![vec![Some("2".to_string())]]
    ));
}

#[test]
fn disable_keys_of_a_missing_table_is_1146() {
    let mut node = Node::new();
    assert!(matches!(
        node.run("ALTER TABLE nosuch DISABLE KEYS"),
        Outcome::Error(1146, _)
    ));
}
