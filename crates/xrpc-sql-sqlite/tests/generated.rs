//! Generated columns: SQLite stores each value, computed from the row as MySQL computes it and
//! converted to the column's type; only DEFAULT may be written to one (MariaDB's 1906), and
//! the ALTER TABLE forms that would leave the kept expression behind the table are refused.

mod common;

use common::{Node, Outcome};

fn items() -> Node {
    let mut node = Node::new();
    node.run(
        "CREATE TABLE items (id INT PRIMARY KEY, price DECIMAL(10,2) NOT NULL, qty INT NOT NULL, \
         total DECIMAL(12,2) AS (price * qty) STORED, label VARCHAR(20) AS (CONCAT('item-', id)))",
    );
    node.run("INSERT INTO items (id, price, qty) VALUES (1, 2.50, 4)");
    node
}

fn code(node: &mut Node, sql: &str) -> u16 {
    match node.run(sql) {
        Outcome::Error(code, _) => code,
        other => panic!("{sql}: {other}"),
    }
}

fn rows(node: &mut Node, sql: &str) -> Vec<Vec<Option<String>>> {
    match node.run(sql) {
        Outcome::Rows { rows, .. } => rows,
        other => panic!("{sql}: {other}"),
    }
}

#[test]
fn a_generated_value_follows_the_row_it_is_computed_from() {
    let mut node = items();
    node.run("UPDATE items SET qty = 10");
    assert_eq!(
        rows(&mut node, "SELECT total, label FROM items"),
        [[Some("25.00".to_owned()), Some("item-1".to_owned())]]
    );
}

#[test]
fn a_value_written_to_a_generated_column_is_1906() {
    let mut node = items();
    assert_eq!(
        code(&mut node, "INSERT INTO items VALUES (2, 1, 1, 5, DEFAULT)"),
        1906
    );
}

#[test]
fn an_update_of_a_generated_column_is_1906() {
    let mut node = items();
    assert_eq!(code(&mut node, "UPDATE items SET total = 1"), 1906);
}

#[test]
fn default_leaves_a_generated_column_to_compute_its_value() {
    let mut node = items();
    node.run("INSERT INTO items VALUES (2, 1.50, 2, DEFAULT, DEFAULT)");
    assert_eq!(
        rows(&mut node, "SELECT total FROM items WHERE id = 2"),
        [[Some("3.00".to_owned())]]
    );
}

#[test]
fn altering_the_columns_of_a_table_with_generated_columns_is_refused() {
    for alter in [
        "ALTER TABLE items DROP COLUMN label",
        "ALTER TABLE items RENAME COLUMN qty TO quantity",
        "ALTER TABLE items MODIFY qty BIGINT NOT NULL",
    ] {
        let mut node = items();
        assert_eq!(code(&mut node, alter), 1235, "{alter}");
    }
}

#[test]
fn a_generated_expression_without_a_known_printed_form_is_refused() {
    let mut node = Node::new();
    assert_eq!(
        code(&mut node, "CREATE TABLE r (a INT, b DOUBLE AS (RAND()))"),
        1235
    );
}

#[test]
fn every_function_with_a_known_printed_form_makes_a_generated_column_sqlite_takes() {
    let expressions = [
        "LENGTH(s)",
        "CHAR_LENGTH(s)",
        "LOWER(s)",
        "UPPER(s)",
        "SUBSTRING(s, 2)",
        "SUBSTR(s, 1, 2)",
        "MID(s, 1, 2)",
        "CEIL(n)",
        "FLOOR(n)",
        "ROUND(n)",
        "ROUND(n, 1)",
        "ABS(n)",
        "SIGN(n)",
        "TRIM(s)",
        "LTRIM(s)",
        "RTRIM(s)",
        "LEFT(s, 2)",
        "RIGHT(s, 2)",
        "REPLACE(s, 'a', 'b')",
        "REVERSE(s)",
        "REPEAT(s, 2)",
        "LPAD(s, 5, '0')",
        "RPAD(s, 5, '0')",
        "CONCAT(s, n)",
        "CONCAT_WS('-', s, n)",
        "COALESCE(s, 'x')",
        "GREATEST(n, 1)",
        "LEAST(n, 1)",
        "IFNULL(s, 'x')",
        "NULLIF(n, 1)",
        "IF(n > 1, 'a', 'b')",
        "LOCATE('a', s)",
        "FIELD(s, 'a', 'b')",
        "FIND_IN_SET(s, 'a,b')",
        "HEX(s)",
        "YEAR(d)",
        "MONTH(d)",
        "JSON_VALID(s)",
        "JSON_LENGTH(j)",
        "JSON_TYPE(j)",
        "JSON_UNQUOTE(j)",
        "JSON_EXTRACT(j, '$.a')",
        "CAST(s AS SIGNED)",
        "n DIV 2",
        "n MOD 3",
        "-n",
        "n BETWEEN 1 AND 2",
        "s LIKE 'a%'",
        "s REGEXP 'a'",
        "n IN (1, 2)",
        "s IS NULL",
    ];
    for (i, expression) in expressions.iter().enumerate() {
        let mut node = Node::new();
        let create = format!(
            "CREATE TABLE f{i} (n INT, s VARCHAR(10), d DATE, j JSON, \
             g VARCHAR(100) AS ({expression}) STORED)"
        );
        assert!(
            matches!(node.run(&create), Outcome::Affected(_)),
            "{create}: {}",
            node.run(&create)
        );
        let insert =
            format!("INSERT INTO f{i} (n, s, d, j) VALUES (1, 'ab', '2020-01-02', '{{}}')");
        assert!(
            matches!(node.run(&insert), Outcome::Affected(_)),
            "{expression}: {}",
            node.run(&insert)
        );
    }
}

#[test]
fn a_generated_column_over_any_column_type_is_made_or_refused_never_failed() {
    let types = [
        "INT",
        "BIGINT UNSIGNED",
        "DECIMAL(5,2)",
        "DOUBLE",
        "FLOAT",
        "VARCHAR(10)",
        "CHAR(3)",
        "VARBINARY(8)",
        "TEXT",
        "DATE",
        "DATETIME(3)",
        "TIMESTAMP NULL",
        "TIME",
        "YEAR",
        "BIT(4)",
        "ENUM('a','b')",
        "SET('a','b')",
        "JSON",
    ];
    let expressions = [
        "c",
        "c + 1",
        "c * 2",
        "c / 3",
        "-c",
        "CONCAT(c, 'x')",
        "YEAR(c)",
        "MONTH(c)",
        "ROUND(c, 1)",
        "ABS(c)",
        "LENGTH(c)",
        "UPPER(c)",
        "IFNULL(c, 0)",
        "c > 1",
        "c BETWEEN 1 AND 2",
        "CAST(c AS SIGNED)",
        "COALESCE(c, c)",
        "c LIKE 'a%'",
        "JSON_VALID(c)",
        "HEX(c)",
    ];
    for ty in types {
        for expression in expressions {
            let mut node = Node::new();
            let create = format!("CREATE TABLE g (c {ty}, v VARCHAR(200) AS ({expression}))");
            match node.run(&create) {
                Outcome::Affected(_) => {}
                Outcome::Error(1235 | 1054 | 1064 | 1305, _) => continue,
                other => panic!("{create}: {other}"),
            }
        }
    }
}
