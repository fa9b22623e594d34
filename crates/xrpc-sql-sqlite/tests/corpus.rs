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

use common::Node;
use xrpc_testkit::differential::{Class, Report, compare, corpus_scripts};

#[test]
fn the_corpus_answers_as_mariadb_does() {
    let report = on_nodes(include_str!("corpus/scripts.sql"), "corpus");
    assert_eq!(report.count(Class::Silent), 0, "{report}");
}

/// Views (`tests/corpus/views.sql`): every statement answers as MariaDB's, a refusal included.
#[test]
fn views_answer_as_mariadb_does() {
    let report = on_nodes(include_str!("corpus/views.sql"), "views");
    assert_eq!(report.identical_scripts, report.scripts, "{report}");
}

/// Runs the scripts of `text` on fresh nodes and on a MariaDB, and prints the report.
fn on_nodes(text: &str, database_prefix: &str) -> Report {
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the differential corpus");
    let scripts = corpus_scripts(text);
    let report = compare(&server, &scripts, database_prefix, |_| {
        let mut node = Node::new();
        move |statement: &str| node.run(statement)
    });
    println!("{report}");
    report
}
