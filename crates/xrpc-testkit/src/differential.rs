//! The differential corpus's harness, shared by every side it runs against: the corpus's script
//! format, a statement's outcome as text (values as MySQL's text protocol shows them, the column
//! count, the affected rows, the error code), MariaDB's outcome, the comparison of two outcomes,
//! and the comparison of whole scripts with its report.
//!
//! A statement refused with MySQL's unsupported-feature error (1235) is a refusal; one that
//! answers where MariaDB answers differently, or answers where MariaDB fails, is a silent
//! difference. A script stops being compared at its first statement that is not identical (what
//! follows may depend on state that now differs).

use std::fmt;

use mysql::prelude::Queryable;

/// What one statement did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Rows {
        /// The column names, as the client reads them.
        columns: Vec<String>,
        rows: Vec<Vec<Option<String>>>,
    },
    Affected(u64),
    Error(u16, String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rows { columns, rows } => {
                write!(f, "{} columns {columns:?}: ", columns.len())?;
                let shown: Vec<String> = rows
                    .iter()
                    .take(6)
                    .map(|r| {
                        let cells: Vec<String> = r
                            .iter()
                            .map(|c| c.clone().unwrap_or_else(|| "NULL".into()))
                            .collect();
                        format!("({})", cells.join(", "))
                    })
                    .collect();
                write!(
                    f,
                    "{}{}",
                    shown.join(" "),
                    if rows.len() > 6 { " …" } else { "" }
                )
            }
            Self::Affected(n) => write!(f, "{n} rows affected"),
            Self::Error(code, message) => write!(f, "error {code}: {message}"),
        }
    }
}

/// The corpus: scripts separated by `-- script: name` lines, one statement a line; other lines
/// starting with `--` are comments.
pub fn corpus_scripts(text: &str) -> Vec<(String, Vec<String>)> {
    let mut scripts: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("-- script:") {
            scripts.push((name.trim().to_string(), Vec::new()));
        } else if !line.is_empty() && !line.starts_with("--") {
            let statement = line.strip_suffix(';').unwrap_or(line).to_string();
            scripts
                .last_mut()
                .expect("a statement before the first script line")
                .1
                .push(statement);
        }
    }
    scripts
}

/// A statement's outcome on MariaDB (text protocol: every value as MySQL's text).
pub fn mariadb_outcome(conn: &mut mysql::Conn, statement: &str) -> Outcome {
    let result = conn.query_iter(statement);
    let mut result = match result {
        Ok(r) => r,
        Err(err) => return mysql_error(err),
    };
    let mut outcome = None;
    while let Some(set) = result.iter() {
        let columns: Vec<String> = set
            .columns()
            .as_ref()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect();
        if columns.is_empty() {
            let affected = set.affected_rows();
            for _ in set {}
            outcome.get_or_insert(Outcome::Affected(affected));
            continue;
        }
        let mut rows = Vec::new();
        for row in set {
            match row {
                Ok(row) => rows.push(
                    row.unwrap()
                        .into_iter()
                        .map(|v| match v {
                            mysql::Value::NULL => None,
                            mysql::Value::Bytes(b) => {
                                Some(String::from_utf8_lossy(&b).into_owned())
                            }
                            other => Some(other.as_sql(true).trim_matches('\'').to_string()),
                        })
                        .collect(),
                ),
                Err(err) => return mysql_error(err),
            }
        }
        outcome.get_or_insert(Outcome::Rows { columns, rows });
    }
    outcome.unwrap_or(Outcome::Affected(0))
}

fn mysql_error(err: mysql::Error) -> Outcome {
    match err {
        mysql::Error::MySqlError(e) => Outcome::Error(e.code, e.message),
        other => Outcome::Error(0, other.to_string()),
    }
}

/// A column name with the database it names left out: SHOW TABLES calls its column
/// `Tables_in_<database>`, and the two sides' databases have different names.
fn without_database(name: &str) -> std::borrow::Cow<'_, str> {
    match name.strip_prefix("Tables_in_") {
        Some(rest) => {
            let pattern = rest.find(' ').map_or("", |at| &rest[at..]);
            format!("Tables_in_<database>{pattern}").into()
        }
        None => name.into(),
    }
}

/// The storage statistics of information_schema.TABLES and STATISTICS, SHOW TABLE STATUS and
/// SHOW INDEX: estimates of the storage engine, times of the server's clock and the version of
/// its table format (MySQL 8's 10, MariaDB's 11), which no two servers share. In a result with
/// an `AVG_ROW_LENGTH` or `CARDINALITY` column their columns are compared by name; their values
/// are not.
const STATISTICS: &[&str] = &[
    "TABLE_ROWS",
    "Rows",
    "AVG_ROW_LENGTH",
    "DATA_LENGTH",
    "MAX_DATA_LENGTH",
    "INDEX_LENGTH",
    "DATA_FREE",
    "CREATE_TIME",
    "UPDATE_TIME",
    "CHECK_TIME",
    "MAX_INDEX_LENGTH",
    "VERSION",
    "CARDINALITY",
];

/// `rows` with the values of the [`STATISTICS`] columns left out.
fn without_statistics(
    columns: &[String],
    rows: &[Vec<Option<String>>],
) -> Vec<Vec<Option<String>>> {
    let named = |name: &str| columns.iter().any(|c| c.eq_ignore_ascii_case(name));
    if !named("AVG_ROW_LENGTH") && !named("CARDINALITY") {
        return rows.to_vec();
    }
    let statistic: Vec<bool> = columns
        .iter()
        .map(|c| STATISTICS.iter().any(|s| s.eq_ignore_ascii_case(c)))
        .collect();
    rows.iter()
        .map(|row| {
            row.iter()
                .zip(&statistic)
                .map(|(value, &statistic)| if statistic { None } else { value.clone() })
                .collect()
        })
        .collect()
}

/// `outcome` with every value that is the name `from` (MariaDB's database for the script)
/// written `to` (the other side's): the two sides' databases have different names.
fn with_database_named(outcome: Outcome, from: &str, to: &str) -> Outcome {
    match outcome {
        Outcome::Rows { columns, rows } => Outcome::Rows {
            columns,
            rows: rows
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .map(|v| v.map(|v| if v == from { to.to_owned() } else { v }))
                        .collect()
                })
                .collect(),
        },
        other => other,
    }
}

/// Whether two outcomes are the same, allowing another row order when the query has none.
pub fn same(statement: &str, mariadb: &Outcome, node: &Outcome) -> bool {
    match (mariadb, node) {
        (Outcome::Error(a, _), Outcome::Error(b, _)) => a == b,
        (
            Outcome::Rows {
                columns: a,
                rows: ra,
            },
            Outcome::Rows {
                columns: b,
                rows: rb,
            },
        ) if a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(a, b)| without_database(a) == without_database(b)) =>
        {
            let (ra, rb) = (&without_statistics(a, ra), &without_statistics(b, rb));
            if ra == rb {
                return true;
            }
            if statement.to_ascii_uppercase().contains("ORDER BY") {
                return false;
            }
            let (mut x, mut y) = (ra.clone(), rb.clone());
            x.sort();
            y.sort();
            x == y
        }
        (a, b) => a == b,
    }
}

/// A connection to a fresh database on the server, under MySQL's default collation.
pub fn mariadb_database(server: &crate::MariaDb, name: &str) -> mysql::Conn {
    server
        .admin()
        .query_drop(format!(
            "CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
        ))
        .unwrap();
    let mut conn = mysql::Conn::new(
        mysql::OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(server.port())
            .user(Some(crate::USER))
            .pass(Some(crate::USER))
            .db_name(Some(name))
            .prefer_socket(false),
    )
    .unwrap();
    conn.query_drop("SET NAMES utf8mb4 COLLATE utf8mb4_general_ci")
        .unwrap();
    conn
}

/// How a statement that is not identical differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The side refused it with MySQL's unsupported-feature error (1235).
    Refused,
    /// The side failed with another error than MariaDB's.
    DifferentError,
    /// The side answered, and MariaDB answered otherwise or failed.
    Silent,
}

/// A script's first statement that is not identical.
#[derive(Debug, Clone)]
pub struct Difference {
    pub class: Class,
    pub script: String,
    /// The statement's position in its script, from 1.
    pub line: usize,
    pub statement: String,
    pub mariadb: Outcome,
    pub side: Outcome,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let class = match self.class {
            Class::Refused => "refused",
            Class::DifferentError => "different error",
            Class::Silent => "SILENT DIFFERENCE",
        };
        write!(
            f,
            "[{class}] {} #{}: {}\n    MariaDB: {}\n    node:    {}",
            self.script, self.line, self.statement, self.mariadb, self.side
        )
    }
}

/// The comparison of a corpus.
#[derive(Debug, Default)]
pub struct Report {
    pub scripts: usize,
    pub identical_scripts: usize,
    pub statements: usize,
    pub identical: usize,
    /// Statements not compared after their script's first difference.
    pub skipped: usize,
    pub differences: Vec<Difference>,
}

impl Report {
    pub fn count(&self, class: Class) -> usize {
        self.differences.iter().filter(|d| d.class == class).count()
    }

    /// The share of scripts whose every statement is identical, in percent.
    pub fn identical_share(&self) -> f64 {
        100.0 * self.identical_scripts as f64 / self.scripts.max(1) as f64
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.differences {
            writeln!(f, "{d}")?;
        }
        write!(
            f,
            "corpus: {}/{} scripts identical ({:.0}%); {} statements compared, {} identical, \
             {} refused (1235), {} with a different error, {} silent differences, {} not \
             compared after a script's first difference",
            self.identical_scripts,
            self.scripts,
            self.identical_share(),
            self.statements,
            self.identical,
            self.count(Class::Refused),
            self.count(Class::DifferentError),
            self.count(Class::Silent),
            self.skipped
        )
    }
}

/// The database a fresh side's statements run in (the node's default).
const SIDE_DATABASE: &str = "main";

/// Runs every script on a fresh MariaDB database and on a fresh side made by `side` (given the
/// script's number), statement by statement, and compares the outcomes; MariaDB's database's
/// name in a value reads as the side's (`main`, the node's default).
pub fn compare<S: FnMut(&str) -> Outcome>(
    server: &crate::MariaDb,
    scripts: &[(String, Vec<String>)],
    database_prefix: &str,
    mut side: impl FnMut(usize) -> S,
) -> Report {
    let mut report = Report {
        scripts: scripts.len(),
        ..Report::default()
    };
    for (n, (name, lines)) in scripts.iter().enumerate() {
        let database = format!("{database_prefix}{n}");
        let mut maria = mariadb_database(server, &database);
        let mut run = side(n);
        let mut all_same = true;
        for (i, statement) in lines.iter().enumerate() {
            if !all_same {
                report.skipped += 1;
                continue;
            }
            report.statements += 1;
            let expected = with_database_named(
                mariadb_outcome(&mut maria, statement),
                &database,
                SIDE_DATABASE,
            );
            let got = run(statement);
            if same(statement, &expected, &got) {
                report.identical += 1;
                continue;
            }
            all_same = false;
            let class = match &got {
                Outcome::Error(1235, _) => Class::Refused,
                Outcome::Error(..) => Class::DifferentError,
                _ => Class::Silent,
            };
            report.differences.push(Difference {
                class,
                script: name.clone(),
                line: i + 1,
                statement: statement.clone(),
                mariadb: expected,
                side: got,
            });
        }
        if all_same {
            report.identical_scripts += 1;
        }
    }
    report
}
