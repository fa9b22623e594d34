//! Every statement of a mysqldump is read: a dump made by MariaDB 10.11's `mysqldump` of a
//! schema with keys, foreign keys, a CHECK constraint, generated and JSON columns, a MyISAM
//! table, a trigger, a view, a function, a procedure and an event, and the same schema in the
//! form MySQL 8.0's `mysqldump` writes (`_binary` strings, `/*!80000 … */` and `/*!80016 … */`
//! comments, the GTID and binary log settings). The stored programs (functions, procedures,
//! events), which sqlparser's tree cannot hold, are refused by kind (1235); everything else,
//! the trigger and the view included, parses.

use xrpc_sql::ast::Statement;
use xrpc_sql::{Kind, Options, ParseError, parse};

/// The statements a client sends for a dump, split as the `mysql` command-line client splits
/// them: at the current delimiter at the end of a line, which `DELIMITER` lines change.
fn client_statements(dump: &str) -> Vec<String> {
    let mut delimiter = ";".to_string();
    let mut statements = Vec::new();
    let mut current = String::new();
    for line in dump.lines() {
        if let Some(new) = line
            .get(..10)
            .filter(|start| start.eq_ignore_ascii_case("DELIMITER "))
            .and_then(|_| line[10..].split_whitespace().next())
        {
            delimiter = new.to_string();
            continue;
        }
        let trimmed = line.trim_end();
        if let Some(body) = trimmed.strip_suffix(delimiter.as_str()) {
            current.push_str(body);
            statements.push(std::mem::take(&mut current));
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    assert!(
        current
            .lines()
            .all(|l| l.trim().is_empty() || l.starts_with("--")),
        "text after the last delimiter: {current}"
    );
    statements
}

/// The statements of a dump the parser's tree cannot hold, refused by kind with 1235.
const STORED_PROGRAMS: &[&str] = &[
    "CREATE EVENT",
    "CREATE FUNCTION",
    "CREATE PROCEDURE",
    "DROP EVENT",
];

/// Reads every statement of the dump: the kinds of those read, and the kinds refused.
fn read_all(dump: &str) -> (Vec<Kind>, Vec<&'static str>) {
    let mut kinds = Vec::new();
    let mut refused = Vec::new();
    let mut failed = Vec::new();
    for statement in client_statements(dump) {
        let parsed = parse(&statement, &Options::default());
        assert_eq!(parsed.len(), 1, "one statement in {statement}");
        match &parsed[0] {
            Ok(parsed) => kinds.push(parsed.kind),
            // A versioned comment for a later server runs nothing.
            Err(ParseError::Empty) => {}
            Err(ParseError::Unsupported { what }) => refused.push(*what),
            Err(err) => failed.push(format!("{}\n{err}", statement.trim())),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    refused.sort_unstable();
    refused.dedup();
    (kinds, refused)
}

fn keys_statements(dump: &str) -> usize {
    client_statements(dump)
        .iter()
        .filter(|text| text.contains("DISABLE KEYS") || text.contains("ENABLE KEYS"))
        .map(|text| {
            let parsed = parse(text, &Options::default()).remove(0).unwrap();
            assert!(
                matches!(parsed.statement(), Some(Statement::AlterTable(alter)) if alter.operations.is_empty()),
                "{text}"
            );
        })
        .count()
}

#[test]
fn a_mariadb_dump_is_read_whole() {
    let dump = include_str!("dumps/mariadb-10.11.sql");
    let (kinds, refused) = read_all(dump);
    assert_eq!(refused, STORED_PROGRAMS);
    assert!(kinds.len() > 100, "{} statements", kinds.len());
    assert_eq!(keys_statements(dump), 10);
    for kind in [Kind::Ddl, Kind::Insert, Kind::Set, Kind::Use, Kind::Admin] {
        assert!(kinds.contains(&kind), "{kind:?}");
    }
}

#[test]
fn a_mysql_8_dump_is_read_whole() {
    let dump = include_str!("dumps/mysql-8.0.sql");
    let (kinds, refused) = read_all(dump);
    assert_eq!(refused, STORED_PROGRAMS);
    assert!(kinds.len() > 100, "{} statements", kinds.len());
    assert_eq!(keys_statements(dump), 10);
    for kind in [Kind::Ddl, Kind::Insert, Kind::Set, Kind::Use, Kind::Admin] {
        assert!(kinds.contains(&kind), "{kind:?}");
    }
}
