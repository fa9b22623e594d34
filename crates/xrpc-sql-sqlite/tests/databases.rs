//! Several databases on one connection: each MySQL database is a SQLite database attached under
//! its name (the current one of the harness is SQLite's `main`), and every table a translation
//! names is in the database the statement names, else in the current one.

mod common;

use common::{Node, Outcome};

fn rows(node: &mut Node, sql: &str) -> Vec<Vec<Option<String>>> {
    match node.run(sql) {
        Outcome::Rows { rows, .. } => rows,
        other => panic!("{sql}: {other}"),
    }
}

fn ok(node: &mut Node, sql: &str) -> u64 {
    match node.run(sql) {
        Outcome::Affected(n) => n,
        other => panic!("{sql}: {other}"),
    }
}

fn error(node: &mut Node, sql: &str) -> u16 {
    match node.run(sql) {
        Outcome::Error(code, _) => code,
        other => panic!("{sql}: {other}"),
    }
}

fn text(values: &[&str]) -> Vec<Vec<Option<String>>> {
    values.iter().map(|v| vec![Some(v.to_string())]).collect()
}

/// The harness's current database `corpus` (SQLite's `main`) and an attached `other`, each
/// with a table `t` of one row naming its database.
fn two_databases() -> Node {
    let mut node = Node::new();
    node.attach("other");
    ok(
        &mut node,
        "CREATE TABLE t (id INT PRIMARY KEY, db VARCHAR(10))",
    );
    ok(
        &mut node,
        "CREATE TABLE other.t (id INT PRIMARY KEY, db VARCHAR(10))",
    );
    ok(&mut node, "INSERT INTO t VALUES (1, 'corpus')");
    ok(&mut node, "INSERT INTO other.t VALUES (1, 'other')");
    node
}

#[test]
fn a_table_created_in_another_database_is_in_its_file() {
    let node = two_databases();
    assert_eq!(
        node.sqlite_objects("other"),
        vec![("table".to_string(), "t".to_string())]
    );
}

#[test]
fn unqualified_names_are_the_current_database() {
    let mut node = two_databases();
    assert_eq!(rows(&mut node, "SELECT db FROM t"), text(&["corpus"]));
}

#[test]
fn qualified_names_are_their_database() {
    let mut node = two_databases();
    assert_eq!(rows(&mut node, "SELECT db FROM other.t"), text(&["other"]));
    assert_eq!(
        rows(&mut node, "SELECT db FROM corpus.t"),
        text(&["corpus"])
    );
}

#[test]
fn use_changes_where_unqualified_names_are() {
    let mut node = two_databases();
    ok(&mut node, "USE other");
    assert_eq!(rows(&mut node, "SELECT db FROM t"), text(&["other"]));
}

#[test]
fn a_join_reads_both_databases() {
    let mut node = two_databases();
    assert_eq!(
        rows(
            &mut node,
            "SELECT CONCAT(a.db, '+', b.db) FROM corpus.t AS a JOIN other.t AS b ON a.id = b.id"
        ),
        text(&["corpus+other"])
    );
}

#[test]
fn writes_change_only_the_named_database() {
    let mut node = two_databases();
    assert_eq!(ok(&mut node, "UPDATE other.t SET db = 'changed'"), 1);
    assert_eq!(ok(&mut node, "DELETE FROM other.t WHERE id = 1 LIMIT 1"), 1);
    assert_eq!(rows(&mut node, "SELECT db FROM t"), text(&["corpus"]));
}

#[test]
fn insert_select_copies_between_databases() {
    let mut node = two_databases();
    assert_eq!(
        ok(
            &mut node,
            "INSERT INTO other.t SELECT id + 1, db FROM corpus.t"
        ),
        1
    );
    assert_eq!(
        rows(&mut node, "SELECT db FROM other.t ORDER BY id"),
        text(&["other", "corpus"])
    );
}

#[test]
fn keys_auto_increment_and_triggers_live_in_the_tables_database() {
    let mut node = Node::new();
    node.attach("other");
    ok(
        &mut node,
        "CREATE TABLE other.k (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE, n INT, \
         KEY by_n (n), at DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP) \
         AUTO_INCREMENT = 10",
    );
    ok(&mut node, "CREATE INDEX by_both ON other.k (n, u)");
    let objects = node.sqlite_objects("other");
    for (kind, name) in [
        ("index", "k.by_n"),
        ("index", "k.by_both"),
        ("index", "k.u"),
        ("table", "k"),
        ("trigger", "k.at.on_update"),
    ] {
        assert!(
            objects.contains(&(kind.to_string(), name.to_string())),
            "{kind} {name} in {objects:?}"
        );
    }
    assert!(node.sqlite_objects("main").is_empty());
    assert_eq!(
        ok(
            &mut node,
            "INSERT INTO other.k (u, n) VALUES (1, 1), (2, 2)"
        ),
        2
    );
    assert_eq!(rows(&mut node, "SELECT LAST_INSERT_ID()"), text(&["10"]));
    assert_eq!(error(&mut node, "INSERT INTO other.k (u) VALUES (1)"), 1062);
    assert_eq!(ok(&mut node, "UPDATE other.k SET n = 5 WHERE u = 1"), 1);
    ok(&mut node, "TRUNCATE TABLE other.k");
    ok(&mut node, "INSERT INTO other.k (u) VALUES (7)");
    assert_eq!(rows(&mut node, "SELECT id FROM other.k"), text(&["1"]));
    ok(&mut node, "DROP INDEX by_both ON other.k");
    assert!(
        !node
            .sqlite_objects("other")
            .contains(&("index".to_string(), "k.by_both".to_string()))
    );
}

#[test]
fn a_foreign_key_within_another_database_is_enforced() {
    let mut node = Node::new();
    node.attach("other");
    ok(&mut node, "CREATE TABLE other.parent (id INT PRIMARY KEY)");
    ok(
        &mut node,
        "CREATE TABLE other.child (id INT PRIMARY KEY, p INT, \
         FOREIGN KEY (p) REFERENCES parent (id))",
    );
    assert_eq!(
        error(&mut node, "INSERT INTO other.child VALUES (1, 5)"),
        1452
    );
}

#[test]
fn a_foreign_key_across_databases_is_refused() {
    let mut node = two_databases();
    assert_eq!(
        error(
            &mut node,
            "CREATE TABLE other.child (id INT PRIMARY KEY, p INT, \
             FOREIGN KEY (p) REFERENCES corpus.t (id))"
        ),
        1235
    );
}

#[test]
fn rename_stays_in_the_tables_database() {
    let mut node = two_databases();
    ok(&mut node, "RENAME TABLE other.t TO other.u");
    assert_eq!(rows(&mut node, "SELECT db FROM other.u"), text(&["other"]));
    ok(&mut node, "ALTER TABLE other.u RENAME TO other.v");
    assert_eq!(rows(&mut node, "SELECT db FROM other.v"), text(&["other"]));
}

#[test]
fn rename_to_another_database_is_refused() {
    let mut node = two_databases();
    assert_eq!(
        error(&mut node, "RENAME TABLE other.t TO corpus.moved"),
        1235
    );
}

#[test]
fn alter_table_changes_the_named_databases_table() {
    let mut node = two_databases();
    ok(&mut node, "ALTER TABLE other.t ADD COLUMN extra INT");
    assert_eq!(
        rows(&mut node, "SELECT COUNT(extra) FROM other.t"),
        text(&["0"])
    );
    assert_eq!(error(&mut node, "SELECT extra FROM t"), 1054);
}

#[test]
fn a_table_in_a_database_that_does_not_exist_is_refused() {
    let mut node = two_databases();
    assert_eq!(error(&mut node, "CREATE TABLE nowhere.t (id INT)"), 1049);
}

#[test]
fn a_dropped_table_is_gone_from_its_database_only() {
    let mut node = two_databases();
    ok(&mut node, "DROP TABLE other.t");
    assert_eq!(error(&mut node, "SELECT db FROM other.t"), 1146);
    assert_eq!(rows(&mut node, "SELECT db FROM t"), text(&["corpus"]));
}
