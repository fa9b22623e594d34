//! Comparisons SQLite can answer from an index: a column compared with a value whose type gives
//! MySQL's answer under SQLite's own operators (an integer column with an integer, a text
//! column with a string under the column's collation, a DECIMAL column with an integer) is
//! emitted as a plain comparison, so `EXPLAIN QUERY PLAN` shows a search of the primary key or
//! an index. `?` arguments count as the literals they stand for, by the class of their value.
//! Where the types differ (a string with a number, a date with a string) the comparison keeps
//! MySQL's conversion, and the answers with arguments are MariaDB's with the literals.

mod common;

use common::{Node, Outcome, mariadb_database, mariadb_outcome, same};

use rusqlite::types::Value as SqlValue;

const SETUP: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, k INT, name VARCHAR(20), \
     code VARCHAR(20) COLLATE utf8mb4_bin, d DECIMAL(10,2), dt DATE, x DOUBLE, \
     KEY k_idx (k), KEY name_idx (name), KEY code_idx (code), KEY d_idx (d), KEY dt_idx (dt))",
    "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, t_id INT, KEY t_idx (t_id))",
    "INSERT INTO t VALUES (1, 10, 'Abc', 'Abc', 1.50, '2020-01-01', 1.5), \
     (2, 20, 'b', 'b', 2, '2020-01-02', 2), (3, 30, 'abc  ', 'abc', 2.25, '2021-06-30', -1), \
     (4, NULL, NULL, NULL, NULL, NULL, NULL), (12, 40, '12', '1abc', 12, '2020-01-01', 12)",
    "INSERT INTO a (t_id) VALUES (1), (2), (3), (12)",
];

fn node() -> Node {
    let mut node = Node::new();
    for statement in SETUP {
        node.run(statement);
    }
    node
}

fn int(i: i64) -> SqlValue {
    SqlValue::Integer(i)
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(s.into())
}

/// SQLite's plan of the statement's one SQLite statement.
fn plan(text: &str, args: &[SqlValue]) -> String {
    let mut plans = node().plan(text, args);
    assert_eq!(plans.len(), 1, "{text}: {plans:?}");
    let (sql, plan) = plans.remove(0);
    format!("{plan}    [{sql}]")
}

#[track_caller]
fn assert_plan(text: &str, args: &[SqlValue], expected: &str) {
    let plan = plan(text, args);
    assert!(plan.starts_with(expected), "{text}: {plan}");
}

#[test]
fn an_integer_key_with_an_integer_argument_is_searched() {
    assert_plan(
        "SELECT k FROM t WHERE id = ?",
        &[int(1)],
        "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)",
    );
}

#[test]
fn an_integer_column_with_an_integer_argument_is_searched_by_its_index() {
    assert_plan(
        "SELECT name FROM t WHERE k = ?",
        &[int(10)],
        "SEARCH t USING INDEX t.k_idx (k=?)",
    );
}

#[test]
fn a_general_ci_column_with_a_string_argument_is_searched_by_its_index() {
    assert_plan(
        "SELECT k FROM t WHERE name = ?",
        &[text("ABC")],
        "SEARCH t USING INDEX t.name_idx (name=?)",
    );
}

#[test]
fn a_bin_column_with_a_string_argument_is_searched_by_its_index() {
    assert_plan(
        "SELECT k FROM t WHERE code = ?",
        &[text("abc")],
        "SEARCH t USING INDEX t.code_idx (code=?)",
    );
}

#[test]
fn a_decimal_column_with_an_integer_is_searched_by_its_index() {
    assert_plan(
        "SELECT k FROM t WHERE d = ?",
        &[int(2)],
        "SEARCH t USING INDEX t.d_idx (d=?)",
    );
}

#[test]
fn a_decimal_column_with_an_integer_literal_is_searched_by_its_index() {
    assert_plan(
        "SELECT k FROM t WHERE d >= 2",
        &[],
        "SEARCH t USING INDEX t.d_idx (d>?)",
    );
}

#[test]
fn a_range_of_arguments_is_searched() {
    assert_plan(
        "SELECT k FROM t WHERE id BETWEEN ? AND ?",
        &[int(1), int(3)],
        "SEARCH t USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
    );
}

#[test]
fn an_inequality_with_an_argument_is_searched() {
    assert_plan(
        "SELECT k FROM t WHERE k > ? ORDER BY k",
        &[int(10)],
        "SEARCH t USING COVERING INDEX t.k_idx (k>?)",
    );
}

#[test]
fn a_list_of_arguments_is_searched() {
    assert_plan(
        "SELECT k FROM t WHERE id IN (?, ?, ?)",
        &[int(1), int(3), int(12)],
        "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)",
    );
}

#[test]
fn a_list_of_strings_is_searched_by_the_index() {
    assert_plan(
        "SELECT k FROM t WHERE name IN (?, ?)",
        &[text("abc"), text("B")],
        "SEARCH t USING INDEX t.name_idx (name=?)",
    );
}

#[test]
fn ordering_by_an_indexed_text_column_reads_the_index_in_order() {
    assert_plan(
        "SELECT name FROM t ORDER BY name LIMIT 2",
        &[],
        "SCAN t USING COVERING INDEX t.name_idx",
    );
}

#[test]
fn a_join_on_integer_keys_searches_both_tables() {
    assert_plan(
        "SELECT t.k FROM a JOIN t ON t.id = a.t_id WHERE a.id = ?",
        &[int(2)],
        "SEARCH a USING INTEGER PRIMARY KEY (rowid=?); SEARCH t USING INTEGER PRIMARY KEY (rowid=?)",
    );
}

#[test]
fn an_update_and_a_delete_by_key_search_it() {
    for statement in [
        "UPDATE t SET k = k + 1 WHERE id = ?",
        "DELETE FROM t WHERE id = ?",
    ] {
        assert_plan(
            statement,
            &[int(2)],
            "SEARCH main.t USING INTEGER PRIMARY KEY (rowid=?)",
        );
    }
}

#[test]
fn an_argument_of_unknown_type_is_compared_when_the_statement_runs() {
    let plan = node().plan("SELECT k FROM t WHERE id = ?", &[]);
    assert!(plan[0].0.contains("my_dyn_cmp"), "{plan:?}");
}

/// A statement's arguments as the literals MySQL substitutes for them.
fn with_literals(statement: &str, args: &[SqlValue]) -> String {
    let mut args = args.iter();
    statement
        .split('?')
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                return part.to_owned();
            }
            let literal = match args.next().expect("an argument per ?") {
                SqlValue::Null => "NULL".to_owned(),
                SqlValue::Integer(i) => i.to_string(),
                SqlValue::Real(f) => format!("{f:e}"),
                SqlValue::Text(s) => format!("'{}'", s.replace('\'', "''")),
                SqlValue::Blob(b) => format!(
                    "X'{}'",
                    b.iter().map(|x| format!("{x:02X}")).collect::<String>()
                ),
            };
            format!("{literal}{part}")
        })
        .collect()
}

#[test]
fn arguments_compare_as_mariadb_compares_the_literals() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the comparisons");
    let mut maria = mariadb_database(&server, "indexes");
    let mut node = node();
    for statement in SETUP {
        mariadb_outcome(&mut maria, statement);
    }
    let null = SqlValue::Null;
    let real = SqlValue::Real;
    let cases: Vec<(&str, Vec<SqlValue>)> = vec![
        ("SELECT id FROM t WHERE id = ?", vec![int(1)]),
        ("SELECT id FROM t WHERE id = ?", vec![text("1abc")]),
        ("SELECT id FROM t WHERE id = ?", vec![text(" 12")]),
        ("SELECT id FROM t WHERE id = ?", vec![text("12.0")]),
        ("SELECT id FROM t WHERE id = ?", vec![real(1.0)]),
        ("SELECT id FROM t WHERE id = ?", vec![real(1.5)]),
        ("SELECT id FROM t WHERE id = ?", vec![null.clone()]),
        ("SELECT id FROM t WHERE id < ?", vec![text("3x")]),
        ("SELECT id FROM t WHERE k >= ?", vec![int(20)]),
        ("SELECT id FROM t WHERE name = ?", vec![text("ABC")]),
        ("SELECT id FROM t WHERE name = ?", vec![text("abc   ")]),
        ("SELECT id FROM t WHERE name = ?", vec![text("abç")]),
        ("SELECT id FROM t WHERE name = ?", vec![int(12)]),
        ("SELECT id FROM t WHERE name = ?", vec![null.clone()]),
        ("SELECT id FROM t WHERE name > ?", vec![text("B")]),
        ("SELECT id FROM t WHERE code = ?", vec![text("abc")]),
        ("SELECT id FROM t WHERE code = ?", vec![text("ABC")]),
        ("SELECT id FROM t WHERE code = ?", vec![text("abc ")]),
        ("SELECT id FROM t WHERE code = ?", vec![int(1)]),
        ("SELECT id FROM t WHERE code < ?", vec![text("a")]),
        ("SELECT id FROM t WHERE d = ?", vec![int(2)]),
        ("SELECT id FROM t WHERE d = ?", vec![int(12)]),
        ("SELECT id FROM t WHERE d = ?", vec![text("2.0")]),
        ("SELECT id FROM t WHERE d = ?", vec![real(2.25)]),
        ("SELECT id FROM t WHERE d > ?", vec![int(1)]),
        ("SELECT id FROM t WHERE d < ?", vec![int(-1)]),
        ("SELECT id FROM t WHERE d = 12", vec![]),
        ("SELECT id FROM t WHERE 2 <= d", vec![]),
        ("SELECT id FROM t WHERE dt = ?", vec![text("2020-01-01")]),
        ("SELECT id FROM t WHERE dt = ?", vec![text("2020-1-1")]),
        (
            "SELECT id FROM t WHERE dt < ?",
            vec![text("2020-06-01 10:00:00")],
        ),
        ("SELECT id FROM t WHERE x = ?", vec![int(2)]),
        ("SELECT id FROM t WHERE x = ?", vec![text("1.5")]),
        ("SELECT id FROM t WHERE x < ?", vec![real(1.75)]),
        (
            "SELECT id FROM t WHERE id BETWEEN ? AND ?",
            vec![int(2), text("12")],
        ),
        (
            "SELECT id FROM t WHERE name BETWEEN ? AND ?",
            vec![text("A"), text("B")],
        ),
        (
            "SELECT id FROM t WHERE id IN (?, ?, ?)",
            vec![int(1), text("3"), null.clone()],
        ),
        (
            "SELECT id FROM t WHERE id NOT IN (?, ?)",
            vec![int(1), int(3)],
        ),
        (
            "SELECT id FROM t WHERE name IN (?, ?)",
            vec![text("ABC"), int(12)],
        ),
        (
            "SELECT id FROM t WHERE code IN (?, ?)",
            vec![text("abc"), text("B")],
        ),
        ("SELECT id FROM t WHERE ? = name", vec![text("b ")]),
        ("SELECT id FROM t WHERE ? = 1", vec![text("1abc")]),
        ("SELECT id FROM t WHERE ? = ?", vec![text("a"), text("A ")]),
        ("SELECT id FROM t WHERE ? > ?", vec![int(10), text("9")]),
        (
            "SELECT t.id FROM a JOIN t ON t.id = a.t_id WHERE a.id = ?",
            vec![text("2")],
        ),
        (
            "SELECT id FROM t WHERE id > ? ORDER BY name, id LIMIT ?",
            vec![int(0), int(3)],
        ),
        (
            "SELECT id FROM t WHERE (id, name) <= (?, ?) ORDER BY id",
            vec![int(3), text("b")],
        ),
        (
            "SELECT id FROM t WHERE (name, id) > (?, ?) ORDER BY name, id",
            vec![text("ABC"), int(1)],
        ),
        (
            "SELECT id FROM t WHERE (d, id) < (?, ?)",
            vec![null.clone(), int(3)],
        ),
        (
            "SELECT id, CASE k WHEN ? THEN 'x' ELSE 'y' END FROM t",
            vec![text("10")],
        ),
        (
            "SELECT JSON_ARRAY(?, ?, ?, ?)",
            vec![int(5), real(1.75), text("5"), null.clone()],
        ),
        (
            "SELECT JSON_SET('{}', '$.a', ?, '$.b', ?), JSON_OBJECT('k', ?)",
            vec![int(-3), text("x"), real(0.5)],
        ),
        (
            "SELECT DATE_ADD('2020-01-01', INTERVAL ? HOUR_MINUTE)",
            vec![text("1:30")],
        ),
    ];
    let mut differences = Vec::new();
    for (statement, args) in &cases {
        let literal = with_literals(statement, args);
        // A column named by an expression with `?` is named as written, with the `?`, which
        // the statement with literals is not: the names are left out of the comparison.
        let expected = unnamed(mariadb_outcome(&mut maria, &literal));
        let got = unnamed(node.run_with_args(statement, args));
        if !same(&literal, &expected, &got) {
            differences.push(format!(
                "{statement} {args:?}\n  MariaDB ({literal}): {expected}\n  node: {got}"
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// The outcome without its column names.
fn unnamed(outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Rows { columns, rows } => Outcome::Rows {
            columns: vec![String::new(); columns.len()],
            rows,
        },
        other => other,
    }
}
