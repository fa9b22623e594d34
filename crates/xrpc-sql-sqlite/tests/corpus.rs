//! The differential corpus: every script of `tests/corpus/scripts.sql` runs statement by
//! statement on a real MariaDB and on the translation over an in-memory SQLite with the function
//! library, and each statement's outcome is compared: the result values as text, the column
//! count, the affected rows, the error code.
//!
//! A statement the translation refuses with MySQL's unsupported-feature error (1235) is a
//! refusal; one that answers where MariaDB answers differently, or answers where MariaDB fails,
//! is a silent difference, and any silent difference fails the test. A script stops being
//! compared at its first statement that is not identical (what follows may depend on state that
//! now differs). The report prints the share of identical scripts and every difference.

mod common;

use common::{Node, Outcome, mariadb_database, mariadb_outcome, same};

/// The corpus: scripts separated by `-- script: name` lines, one statement a line.
fn scripts() -> Vec<(String, Vec<String>)> {
    let text = include_str!("corpus/scripts.sql");
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

#[test]
fn the_corpus_answers_as_mariadb_does() {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = scripts();
    let (
        mut identical_scripts,
        mut statements,
        mut identical,
        mut refusals,
        mut errors,
        mut silent,
        mut skipped,
    ) = (0, 0, 0, 0, 0, 0, 0);
    let mut report = Vec::new();
    for (n, (name, lines)) in scripts.iter().enumerate() {
        let mut maria = mariadb_database(&server, &format!("corpus{n}"));
        let mut node = Node::new();
        let mut all_same = true;
        for (i, statement) in lines.iter().enumerate() {
            if !all_same {
                skipped += 1;
                continue;
            }
            statements += 1;
            let expected = mariadb_outcome(&mut maria, statement);
            let got = node.run(statement);
            if same(statement, &expected, &got) {
                identical += 1;
                continue;
            }
            all_same = false;
            let class = match (&expected, &got) {
                (_, Outcome::Error(1235, _)) => {
                    refusals += 1;
                    "refused"
                }
                (_, Outcome::Error(..)) => {
                    errors += 1;
                    "different error"
                }
                _ => {
                    silent += 1;
                    "SILENT DIFFERENCE"
                }
            };
            report.push(format!(
                "[{class}] {name} #{}: {statement}\n    MariaDB: {expected}\n    node:    {got}",
                i + 1
            ));
        }
        if all_same {
            identical_scripts += 1;
        }
    }
    println!("{}", report.join("\n"));
    let summary = format!(
        "corpus: {identical_scripts}/{} scripts identical ({:.0}%); {statements} statements compared, \
         {identical} identical, {refusals} refused (1235), {errors} with a different error, \
         {silent} silent differences, {skipped} not compared after a script's first difference",
        scripts.len(),
        100.0 * identical_scripts as f64 / scripts.len().max(1) as f64
    );
    println!("{summary}");
    assert_eq!(silent, 0, "{summary}\n{}", report.join("\n"));
}
