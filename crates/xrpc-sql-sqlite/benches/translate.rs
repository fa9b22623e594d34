//! What the MySQL front end and the SQLite translation cost per statement: parsing with
//! sqlparser, then binding and translating against a catalog. Callers cache both by statement
//! text, so this is the cost of a statement text the node has not seen before.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use xrpc_sql::Options;
use xrpc_sql_sqlite::{MemoryCatalog, translate};

const SCHEMA: &[&str] = &[
    "CREATE TABLE users (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, login VARCHAR(60) NOT NULL DEFAULT '', \
     email VARCHAR(100) NOT NULL DEFAULT '', created DATETIME, balance DECIMAL(12,2), KEY login_key (login))",
    "CREATE TABLE orders (id INT PRIMARY KEY, user_id INT, total DECIMAL(12,2), placed DATE, KEY (user_id))",
];

const STATEMENTS: &[(&str, &str)] = &[
    ("select_1", "SELECT 1"),
    (
        "point_select",
        "SELECT id, login, email FROM users WHERE id = 42",
    ),
    (
        "insert_upsert",
        "INSERT INTO users (login, email) VALUES ('ann', 'ann@example.com') ON DUPLICATE KEY UPDATE email = VALUES(email)",
    ),
    (
        "update_limit",
        "UPDATE users SET balance = balance + 1.50 WHERE login = 'ann' ORDER BY id LIMIT 1",
    ),
    (
        "join_group",
        "SELECT u.login, COUNT(*), SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id \
         WHERE o.placed >= '2024-01-01' GROUP BY u.login HAVING SUM(o.total) > 100 ORDER BY u.login LIMIT 10",
    ),
    (
        "functions",
        "SELECT CONCAT_WS('-', login, LPAD(id, 6, '0')), DATE_FORMAT(created, '%Y-%m'), IFNULL(balance, 0) FROM users",
    ),
];

fn catalog() -> MemoryCatalog {
    let mut catalog = MemoryCatalog::new(Some("bench"));
    for text in SCHEMA {
        let parsed = xrpc_sql::parse_one_statement(text, &Options::default()).unwrap();
        let t = translate(parsed.statement().unwrap(), &catalog).unwrap();
        catalog.apply(t.change.as_ref().unwrap());
    }
    catalog
}

fn bench(c: &mut Criterion) {
    let catalog = catalog();
    let options = Options::default();
    let mut group = c.benchmark_group("parse");
    for (name, text) in STATEMENTS {
        group.bench_function(*name, |b| {
            b.iter(|| xrpc_sql::parse_one_statement(black_box(text), &options).unwrap())
        });
    }
    group.finish();
    let mut group = c.benchmark_group("parse_translate");
    for (name, text) in STATEMENTS {
        group.bench_function(*name, |b| {
            b.iter(|| {
                let parsed = xrpc_sql::parse_one_statement(black_box(text), &options).unwrap();
                translate(parsed.statement().unwrap(), &catalog).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
