//! `CONVERT(… USING utf8mb4)` of binary bytes: their text when they are UTF-8, refused (1235)
//! when they are not, where MariaDB would write `?` for each bad byte with warning 1300.

mod common;

use common::{Node, Outcome};

fn node() -> Node {
    let mut node = Node::new();
    node.run("CREATE TABLE b (id INT PRIMARY KEY, v VARBINARY(8))");
    node.run("INSERT INTO b VALUES (1, 'caf\u{e9}'), (2, X'61FF62')");
    node
}

#[test]
fn utf8_bytes_convert_to_their_text() {
    let mut node = node();
    match node.run("SELECT CONVERT(v USING utf8mb4) FROM b WHERE id = 1") {
        Outcome::Rows { rows, .. } => assert_eq!(rows, [[Some("caf\u{e9}".to_owned())]]),
        other => panic!("{other}"),
    }
}

#[test]
fn bytes_that_are_not_utf8_are_refused() {
    let mut node = node();
    match node.run("SELECT CONVERT(v USING utf8mb4) FROM b WHERE id = 2") {
        Outcome::Error(code, _) => assert_eq!(code, 1235),
        other => panic!("{other}"),
    }
}
