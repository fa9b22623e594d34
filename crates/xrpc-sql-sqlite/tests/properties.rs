//! Random expressions over typed columns, each evaluated by MariaDB and by the translation on
//! SQLite: the node answers as MariaDB does, refuses (1235), or fails as MariaDB fails — never a
//! different value. The expressions come from a seeded generator; the seed is printed on failure
//! and `XRPC_PROPERTY_SEED=<seed>` replays it. The default seed is fixed, so the build is
//! deterministic; `XRPC_PROPERTY_SEED=random` explores new expressions.

mod common;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::{Node, Outcome, mariadb_database, mariadb_outcome, same};

/// The table every expression reads, with values of each type and NULLs.
const SETUP: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, i INT, d DECIMAL(8,2), s VARCHAR(12), b VARCHAR(12) COLLATE utf8mb4_bin, dt DATE, f DOUBLE)",
    "INSERT INTO t VALUES (1, 7, 2.50, 'Apple', 'Apple', '2024-01-31', 0.5), (2, -3, -0.05, 'banana ', 'b', '2023-12-01', 1e3), \
     (3, 0, 100.00, '12abc', '12', '2024-02-29', -2.25), (4, NULL, NULL, NULL, NULL, NULL, NULL), (5, 2147483647, 999999.99, 'é', 'E', '2000-01-01', 0.1)",
];

const INT_LEAVES: &[&str] = &["i", "id", "0", "1", "-1", "7", "2", "NULL"];
const NUM_LEAVES: &[&str] = &["d", "f", "1.5", "0.25", "-2.75", "3e0", "NULL"];
const STR_LEAVES: &[&str] = &[
    "s", "b", "'apple'", "'APPLE'", "''", "'x,y'", "'12'", "NULL",
];
const DATE_LEAVES: &[&str] = &["dt", "'2024-03-15'", "'2024-02-29 10:00:00'", "NULL"];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Num,
    Str,
    Date,
    Bool,
}

/// What each kind of expression may be, one of them drawn at random: `{i}`, `{n}`, `{s}`, `{d}` and
/// `{b}` stand for a sub-expression of that kind (int, number, string, date, boolean), `{lo..hi}`
/// for an integer drawn from the range, each filled in from left to right.
const INT_FORMS: &[&str] = &[
    "({i} + {i})",
    "({i} - {i})",
    "({i} * {i})",
    "({n} DIV {i})",
    "({i} MOD {i})",
    "LENGTH({s})",
    "LOCATE({s}, {s})",
    "DATEDIFF({d}, {d})",
    "IFNULL({i}, {i})",
];
const NUM_FORMS: &[&str] = &[
    "({n} + {i})",
    "({n} * {n})",
    "({n} / {i})",
    "ROUND({n}, {0..3})",
    "ABS({n})",
    "TRUNCATE({n}, 1)",
    "({n} - {n})",
];
const STR_FORMS: &[&str] = &[
    "CONCAT({s}, {s})",
    "UPPER({s})",
    "LPAD({s}, {-1..8}, '*')",
    "SUBSTRING({s}, {-3..4}, 2)",
    "REPLACE({s}, 'a', 'o')",
    "CONCAT_WS('-', {s}, {s})",
    "IF({b}, {s}, {s})",
    "DATE_FORMAT({d}, '%Y/%m/%d %W')",
    "REVERSE({s})",
];
const DATE_FORMS: &[&str] = &[
    "DATE_ADD({d}, INTERVAL {-40..40} DAY)",
    "({d} + INTERVAL {-13..13} MONTH)",
    "LAST_DAY({d})",
];
const BOOL_FORMS: &[&str] = &[
    "({s} = {s})",
    "({n} < {i})",
    "({s} LIKE 'a%')",
    "({i} <=> {i})",
    "({b} AND {b})",
    "({s} IN ({s}, {s}))",
];

fn pick<'a>(rng: &mut StdRng, from: &[&'a str]) -> &'a str {
    from[rng.gen_range(0..from.len())]
}

/// An expression of roughly the kind asked for, `depth` levels deep at most.
fn expr(rng: &mut StdRng, kind: Kind, depth: u32) -> String {
    if depth == 0 || rng.gen_bool(0.3) {
        return match kind {
            Kind::Int => pick(rng, INT_LEAVES).into(),
            Kind::Num => pick(rng, NUM_LEAVES).into(),
            Kind::Str => pick(rng, STR_LEAVES).into(),
            Kind::Date => pick(rng, DATE_LEAVES).into(),
            Kind::Bool => format!("{} = {}", pick(rng, INT_LEAVES), pick(rng, INT_LEAVES)),
        };
    }
    let forms = match kind {
        Kind::Int => INT_FORMS,
        Kind::Num => NUM_FORMS,
        Kind::Str => STR_FORMS,
        Kind::Date => DATE_FORMS,
        Kind::Bool => BOOL_FORMS,
    };
    // Drawn as an i32, as the seeds' expressions have always been.
    let form = forms[rng.gen_range(0..forms.len() as i32) as usize];
    fill(rng, form, depth - 1)
}

/// `form` with its placeholders filled in from left to right (see [`INT_FORMS`]).
fn fill(rng: &mut StdRng, form: &str, depth: u32) -> String {
    let mut out = String::new();
    let mut rest = form;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("a closed placeholder");
        let filled = match &rest[open + 1..close] {
            "i" => expr(rng, Kind::Int, depth),
            "n" => expr(rng, Kind::Num, depth),
            "s" => expr(rng, Kind::Str, depth),
            "d" => expr(rng, Kind::Date, depth),
            "b" => expr(rng, Kind::Bool, depth),
            range => {
                let (low, high) = range.split_once("..").expect("a range placeholder");
                let (low, high): (i32, i32) = (low.parse().unwrap(), high.parse().unwrap());
                rng.gen_range(low..high).to_string()
            }
        };
        out.push_str(&filled);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn random_expressions_answer_as_mariadb_does() {
    let seed: u64 = match std::env::var("XRPC_PROPERTY_SEED").as_deref() {
        Ok("random") => rand::random(),
        Ok(s) => s
            .parse()
            .expect("XRPC_PROPERTY_SEED is a number or `random`"),
        Err(_) => 1,
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB for the property test");
    let mut maria = mariadb_database(&server, "properties");
    let mut node = Node::new();
    for statement in SETUP {
        assert!(
            same(
                statement,
                &mariadb_outcome(&mut maria, statement),
                &node.run(statement)
            ),
            "setup: {statement}"
        );
    }
    let (mut identical, mut refused, mut errors) = (0, 0, 0);
    for _ in 0..300 {
        let kind = [Kind::Int, Kind::Num, Kind::Str, Kind::Date, Kind::Bool][rng.gen_range(0..5)];
        let statement = format!("SELECT id, {} FROM t ORDER BY id", expr(&mut rng, kind, 3));
        let expected = mariadb_outcome(&mut maria, &statement);
        let got = node.run(&statement);
        match (&expected, &got) {
            _ if same(&statement, &expected, &got) => identical += 1,
            (_, Outcome::Error(1235, _)) => refused += 1,
            (_, Outcome::Error(..)) => errors += 1,
            _ => panic!(
                "a silent difference (XRPC_PROPERTY_SEED={seed} replays it):\n{statement}\n  MariaDB: {expected}\n  node:    {got}"
            ),
        }
    }
    println!(
        "seed {seed}: {identical} identical, {refused} refused, {errors} with a different error"
    );
}
