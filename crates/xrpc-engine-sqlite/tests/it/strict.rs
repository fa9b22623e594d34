//! Strict writes on the SQLite engine, one table per declared MySQL type: the values that must
//! be accepted and read back exactly, and the values that must be refused with MySQL's code and
//! SQL state (1366, 1264, 1292, 1406, 1265, 3140), for INSERT, UPDATE and REPLACE, on the row
//! path and the chunk path alike (both read the same `Value`s through the engine; the chunk
//! encoding of those values is checked in the server's protocol tests).

use bytes::Bytes;
use xrpc_engine::result::{CollectedResult, SqlError, SqlWarning, WarningLevel, mysql_type};
use xrpc_engine::{Engine, EngineConn};
use xrpc_engine_sqlite::{SqliteEngine, SqliteOptions};
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};

/// One declared type: literals that are stored and read back as the given value, and literals
/// refused with (code, SQL state).
struct Case {
    decl: &'static str,
    accepted: Vec<(&'static str, Value)>,
    refused: Vec<(&'static str, u32, &'static str)>,
}

fn text(s: &str) -> Value {
    Value::Bytes(Bytes::copy_from_slice(s.as_bytes()))
}

fn dec(s: &str) -> Value {
    Value::Decimal(XDecimal::parse(s).unwrap())
}

fn date(y: u32, m: u32, d: u32) -> Value {
    Value::DateTime(XDateTime::date(y, m, d).unwrap())
}

fn datetime(y: u32, mo: u32, d: u32, h: u32, mi: u32, s: u32, us: u32) -> Value {
    Value::DateTime(XDateTime::new(y, mo, d, h, mi, s, us).unwrap())
}

fn time(neg: bool, h: u32, m: u32, s: u32, us: u32) -> Value {
    Value::Time(XTime::new(neg, h, m, s, us).unwrap())
}

const INCORRECT: (u32, &str) = (1366, "HY000");
const RANGE: (u32, &str) = (1264, "22003");
const TEMPORAL: (u32, &str) = (1292, "22007");
const TOO_LONG: (u32, &str) = (1406, "22001");
const TRUNCATED: (u32, &str) = (1265, "01000");
/// MariaDB's JSON is a text column with a JSON_VALID check: its refusal is the check's.
const JSON: (u32, &str) = (4025, "23000");

fn refused(
    cases: &[(&'static str, (u32, &'static str))],
) -> Vec<(&'static str, u32, &'static str)> {
    cases
        .iter()
        .map(|&(lit, (code, state))| (lit, code, state))
        .collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            decl: "TINYINT",
            accepted: vec![
                ("-128", Value::Sint(-128)),
                ("127", Value::Sint(127)),
                ("'12'", Value::Sint(12)),
                ("' 7 '", Value::Sint(7)),
                ("1e2", Value::Sint(100)),
                // A number is rounded, as MariaDB stores it.
                ("1.5", Value::Sint(2)),
            ],
            refused: refused(&[
                ("128", RANGE),
                ("-129", RANGE),
                ("'abc'", INCORRECT),
                ("''", INCORRECT),
                ("'12abc'", TRUNCATED),
            ]),
        },
        Case {
            decl: "TINYINT UNSIGNED",
            accepted: vec![("0", Value::Uint(0)), ("255", Value::Uint(255))],
            refused: refused(&[("256", RANGE), ("-1", RANGE)]),
        },
        Case {
            decl: "SMALLINT",
            accepted: vec![
                ("-32768", Value::Sint(-32768)),
                ("32767", Value::Sint(32767)),
            ],
            refused: refused(&[("32768", RANGE)]),
        },
        Case {
            decl: "SMALLINT UNSIGNED",
            accepted: vec![("65535", Value::Uint(65535))],
            refused: refused(&[("65536", RANGE), ("-1", RANGE)]),
        },
        Case {
            decl: "MEDIUMINT",
            accepted: vec![("-8388608", Value::Sint(-8_388_608))],
            refused: refused(&[("8388608", RANGE)]),
        },
        Case {
            decl: "MEDIUMINT UNSIGNED",
            accepted: vec![("16777215", Value::Uint(16_777_215))],
            refused: refused(&[("16777216", RANGE)]),
        },
        Case {
            decl: "INT",
            accepted: vec![
                ("-2147483648", Value::Sint(-2_147_483_648)),
                ("2147483647", Value::Sint(2_147_483_647)),
            ],
            refused: refused(&[("2147483648", RANGE), ("'text!'", INCORRECT)]),
        },
        Case {
            decl: "INT UNSIGNED",
            accepted: vec![("4294967295", Value::Uint(4_294_967_295))],
            refused: refused(&[("4294967296", RANGE), ("-1", RANGE)]),
        },
        Case {
            decl: "BIGINT",
            accepted: vec![
                ("-9223372036854775808", Value::Sint(i64::MIN)),
                ("9223372036854775807", Value::Sint(i64::MAX)),
            ],
            refused: refused(&[("9223372036854775808", RANGE), ("x'01'", INCORRECT)]),
        },
        Case {
            decl: "BIGINT UNSIGNED",
            accepted: vec![
                ("0", Value::Uint(0)),
                ("9223372036854775807", Value::Uint((1 << 63) - 1)),
                ("1.5", Value::Uint(2)),
            ],
            refused: refused(&[("-1", RANGE)]),
        },
        Case {
            decl: "BOOLEAN",
            accepted: vec![("true", Value::Sint(1)), ("0", Value::Sint(0))],
            refused: refused(&[("128", RANGE)]),
        },
        Case {
            decl: "DECIMAL(5,2)",
            accepted: vec![
                ("123.45", dec("123.45")),
                ("-999.99", dec("-999.99")),
                ("'1.005'", dec("1.01")),
                ("7", dec("7.00")),
                ("'-0.001'", dec("0.00")),
            ],
            refused: refused(&[
                ("1000", RANGE),
                ("999.995", RANGE),
                ("'abc'", INCORRECT),
                ("'1.5x'", TRUNCATED),
            ]),
        },
        Case {
            decl: "DECIMAL(65,30)",
            accepted: vec![
                (
                    "12345678901234567890123456789012345.123456789012345678901234567891",
                    dec("12345678901234567890123456789012345.123456789012345678901234567891"),
                ),
                (
                    "-0.000000000000000000000000000001",
                    dec("-0.000000000000000000000000000001"),
                ),
                (
                    "'1.0000000000000000001'",
                    dec("1.000000000000000000100000000000"),
                ),
            ],
            refused: refused(&[("123456789012345678901234567890123456", RANGE)]),
        },
        Case {
            decl: "DECIMAL",
            accepted: vec![("9999999999", dec("9999999999")), ("'0.5'", dec("1"))],
            refused: refused(&[("10000000000", RANGE)]),
        },
        Case {
            decl: "FLOAT",
            accepted: vec![("0.5", Value::Float(0.5)), ("'-2.25'", Value::Float(-2.25))],
            refused: refused(&[("1e39", RANGE), ("'x'", INCORRECT)]),
        },
        Case {
            decl: "DOUBLE",
            accepted: vec![("0.1", Value::Double(0.1)), ("-3", Value::Double(-3.0))],
            refused: refused(&[("'nan'", INCORRECT), ("x'00'", INCORRECT)]),
        },
        Case {
            decl: "CHAR(3)",
            accepted: vec![
                ("'abc'", text("abc")),
                ("'é'", text("é")),
                ("'a  '", text("a")),
            ],
            refused: refused(&[("'abcd'", TOO_LONG), ("x'ff'", INCORRECT)]),
        },
        Case {
            decl: "VARCHAR(4)",
            accepted: vec![
                ("'héll'", text("héll")),
                ("12", text("12")),
                ("''", text("")),
                ("'ab    '", text("ab  ")),
            ],
            refused: refused(&[("'héllo'", TOO_LONG), ("x'c328'", INCORRECT)]),
        },
        Case {
            decl: "TINYTEXT",
            accepted: vec![("'x'", text("x"))],
            refused: refused(&[("repeat('a', 256)", TOO_LONG)]),
        },
        Case {
            decl: "BINARY(3)",
            accepted: vec![
                (
                    "x'010203'",
                    Value::Bytes(Bytes::from_static(b"\x01\x02\x03")),
                ),
                ("x'01'", Value::Bytes(Bytes::from_static(b"\x01\0\0"))),
            ],
            refused: refused(&[("x'01020304'", TOO_LONG)]),
        },
        Case {
            decl: "VARBINARY(2)",
            accepted: vec![
                ("x'ff00'", Value::Bytes(Bytes::from_static(b"\xff\x00"))),
                ("'ab'", Value::Bytes(Bytes::from_static(b"ab"))),
            ],
            // Strings and numbers are bytes of their text, too long here as in MariaDB.
            refused: refused(&[("'abc'", TOO_LONG), ("'0012'", TOO_LONG), ("1.5", TOO_LONG)]),
        },
        Case {
            decl: "BLOB",
            accepted: vec![("12", Value::Bytes(Bytes::from_static(b"12")))],
            refused: vec![],
        },
        Case {
            decl: "DATE",
            accepted: vec![
                ("'2024-02-29'", date(2024, 2, 29)),
                ("'2024-2-9'", date(2024, 2, 9)),
                ("20240101", date(2024, 1, 1)),
                ("'9999-12-31'", date(9999, 12, 31)),
                // MariaDB's default SQL mode keeps dates with zero parts.
                ("'0000-00-00'", date(0, 0, 0)),
                ("'2024-00-10'", date(2024, 0, 10)),
            ],
            refused: refused(&[
                ("'2023-02-29'", TEMPORAL),
                ("'2024-04-31'", TEMPORAL),
                ("'garbage'", TEMPORAL),
                ("1.5", TEMPORAL),
            ]),
        },
        Case {
            decl: "DATETIME(6)",
            accepted: vec![
                (
                    "'2024-02-29 23:59:59.999999'",
                    datetime(2024, 2, 29, 23, 59, 59, 999_999),
                ),
                ("'1000-01-01 00:00:00'", datetime(1000, 1, 1, 0, 0, 0, 0)),
                ("'2024-01-01'", datetime(2024, 1, 1, 0, 0, 0, 0)),
            ],
            refused: refused(&[
                ("'2024-01-01 24:00:00'", TEMPORAL),
                ("'2024-01-01 10:60'", TEMPORAL),
            ]),
        },
        Case {
            decl: "TIMESTAMP",
            accepted: vec![("'2038-01-19 03:14:07'", datetime(2038, 1, 19, 3, 14, 7, 0))],
            refused: refused(&[
                ("'2038-01-19 03:14:08'", TEMPORAL),
                ("'1970-01-01 00:00:00'", TEMPORAL),
            ]),
        },
        Case {
            decl: "TIME(3)",
            accepted: vec![
                ("'-838:59:59.123'", time(true, 838, 59, 59, 123_000)),
                ("'10:30'", time(false, 10, 30, 0, 0)),
                ("'8:0:5'", time(false, 8, 0, 5, 0)),
                ("123456", time(false, 12, 34, 56, 0)),
            ],
            refused: refused(&[("'839:00:00'", TEMPORAL), ("'10:61:00'", TEMPORAL)]),
        },
        Case {
            decl: "YEAR",
            accepted: vec![
                ("2024", Value::Uint(2024)),
                ("69", Value::Uint(2069)),
                ("70", Value::Uint(1970)),
            ],
            refused: refused(&[("1900", RANGE), ("2156", RANGE)]),
        },
        Case {
            decl: "BIT(4)",
            accepted: vec![("15", Value::Bit(15)), ("0", Value::Bit(0))],
            refused: refused(&[("16", TOO_LONG), ("-1", TOO_LONG)]),
        },
        Case {
            decl: "ENUM('a', 'it''s', 'print')",
            accepted: vec![
                ("'a'", Value::Enum(Bytes::from_static(b"a"))),
                ("'it''s'", Value::Enum(Bytes::from_static(b"it's"))),
                ("'print'", Value::Enum(Bytes::from_static(b"print"))),
                // Spellings MySQL normalises, stored as MySQL stores them.
                ("'A'", Value::Enum(Bytes::from_static(b"a"))),
                ("'Print  '", Value::Enum(Bytes::from_static(b"print"))),
                ("2", Value::Enum(Bytes::from_static(b"it's"))),
                ("'3'", Value::Enum(Bytes::from_static(b"print"))),
            ],
            refused: refused(&[
                ("'z'", TRUNCATED),
                ("''", TRUNCATED),
                ("0", TRUNCATED),
                ("4", TRUNCATED),
                ("' a'", TRUNCATED),
            ]),
        },
        Case {
            decl: "SET('x', 'y', 'z')",
            accepted: vec![
                ("''", Value::Set(vec![])),
                (
                    "'x,z'",
                    Value::Set(vec![Bytes::from_static(b"x"), Bytes::from_static(b"z")]),
                ),
                // Spellings MySQL normalises: any order, repeats, case, a bit set.
                (
                    "'z,X,x'",
                    Value::Set(vec![Bytes::from_static(b"x"), Bytes::from_static(b"z")]),
                ),
                ("'Y '", Value::Set(vec![Bytes::from_static(b"y")])),
                (
                    "5",
                    Value::Set(vec![Bytes::from_static(b"x"), Bytes::from_static(b"z")]),
                ),
            ],
            refused: refused(&[("'w'", TRUNCATED), ("'x,w'", TRUNCATED), ("8", TRUNCATED)]),
        },
        Case {
            decl: "JSON",
            accepted: vec![("'{\"a\": [1, 2]}'", text("{\"a\": [1, 2]}"))],
            refused: refused(&[("'{a: 1}'", JSON), ("'[1,'", JSON)]),
        },
    ]
}

fn exec(conn: &mut dyn EngineConn, sql: &str) -> Result<CollectedResult, SqlError> {
    let mut result = CollectedResult::default();
    conn.execute(sql, &[], None, &mut result)?;
    Ok(result)
}

#[test]
fn every_declared_type_accepts_exact_values_and_refuses_others_with_mysql_codes() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("strict.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (index, case) in cases().into_iter().enumerate() {
        let table = format!("t{index}");
        exec(
            conn,
            &format!(
                "create table {table} (k INTEGER PRIMARY KEY, v {})",
                case.decl
            ),
        )
        .unwrap();
        let mut stored = 0;
        for (row, (literal, expected)) in case.accepted.iter().enumerate() {
            let k = row + 1;
            match exec(
                conn,
                &format!("insert into {table} values ({k}, {literal})"),
            ) {
                Ok(_) => stored += 1,
                Err(e) => {
                    wrong.push(format!("{}: {literal} refused: {e}", case.decl));
                    continue;
                }
            }
            let got = exec(conn, &format!("select v from {table} where k = {k}")).unwrap();
            if got.rows != [[expected.clone()]] {
                wrong.push(format!(
                    "{}: {literal} read back as {:?}",
                    case.decl, got.rows
                ));
            }
            checked += 1;
        }
        for (literal, code, state) in &case.refused {
            let what = format!("{}: {literal}", case.decl);
            // INSERT, UPDATE and REPLACE are all checked, with MySQL's code and SQL state.
            for sql in [
                format!("insert into {table} values (1000, {literal})"),
                format!("update {table} set v = {literal} where k = 1"),
                format!("replace into {table} values (1, {literal})"),
            ] {
                match exec(conn, &sql) {
                    Ok(_) => wrong.push(format!("{what} accepted by {sql}")),
                    Err(err)
                        if (err.code, &*err.sql_state) != (*code, *state)
                            || !(err.message.contains("'v'") || err.message.contains(".v`")) =>
                    {
                        wrong.push(format!("{what}: {err}"));
                    }
                    Err(_) => {}
                }
            }
            checked += 1;
        }
        // Nothing refused was stored: the accepted rows are all there is.
        let count = exec(conn, &format!("select count(*) from {table}")).unwrap();
        if count.rows != [[Value::Sint(stored)]] {
            wrong.push(format!("{}: {:?} rows stored", case.decl, count.rows));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 100, "{checked} values checked");
}

#[test]
fn refusals_name_the_row_as_mysql_does() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("rows.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(conn, "create table t (a TINYINT, b VARCHAR(2))").unwrap();
    let err = exec(conn, "insert into t values (1, 'x'), (2, 'y'), (3, 'long')").unwrap_err();
    assert_eq!(err.code, 1406);
    assert_eq!(err.message, "Data too long for column 'b' at row 3");
    // The statement is atomic: no row of it was kept.
    assert_eq!(
        exec(conn, "select count(*) from t").unwrap().rows,
        [[Value::Sint(0)]]
    );
    let err = exec(conn, "insert into t select 300, 'z'").unwrap_err();
    assert_eq!(err.message, "Out of range value for column 'a' at row 1");
    // Bound arguments are checked the same way.
    let mut result = CollectedResult::default();
    let err = conn
        .execute(
            "insert into t values (?, ?)",
            &[Value::Sint(1), Value::Bytes(Bytes::from_static(b"abc"))],
            None,
            &mut result,
        )
        .unwrap_err();
    assert_eq!(err.code, 1406);
}

#[test]
fn alter_table_keeps_and_extends_the_checks() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("alter.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(conn, "create table t (a TINYINT, b INT)").unwrap();
    exec(conn, "alter table t add column c DATE").unwrap();
    exec(conn, "alter table t add column e DECIMAL(40,0)").unwrap();
    exec(
        conn,
        "insert into t (e) values (1234567890123456789012345678901234567890)",
    )
    .unwrap();
    assert_eq!(
        exec(conn, "select e from t").unwrap().rows,
        [[dec("1234567890123456789012345678901234567890")]]
    );
    exec(conn, "delete from t").unwrap();
    assert_eq!(
        exec(conn, "insert into t (c) values ('2024-02-30')")
            .unwrap_err()
            .code,
        1292
    );
    exec(conn, "alter table t drop column b").unwrap();
    exec(conn, "alter table t rename to u").unwrap();
    exec(conn, "alter table u rename column a to aa").unwrap();
    let err = exec(conn, "insert into u (aa) values (1000)").unwrap_err();
    assert_eq!(err.code, 1264);
    assert!(err.message.contains("'aa'"), "{err}");
    exec(conn, "insert into u (aa, c) values (1, '2024-02-29')").unwrap();
    // A failed ALTER leaves the table and its checks as they were.
    assert_eq!(
        exec(
            conn,
            "alter table u modify c DATE, add column d INT NOT NULL, add column d INT"
        )
        .unwrap_err()
        .code,
        1060
    );
    assert_eq!(
        exec(conn, "insert into u (aa) values (1000)")
            .unwrap_err()
            .code,
        1264
    );
}

#[test]
fn exact_numbers_compare_order_and_index_as_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("exact.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(
        conn,
        "create table t (k INTEGER PRIMARY KEY, d DECIMAL(30,10) UNIQUE, u BIGINT UNSIGNED)",
    )
    .unwrap();
    for (k, d, u) in [
        (1, "10", "9223372036854775807"),
        (2, "9.5", "9"),
        (3, "-100.25", "9223372036854775806"),
        (4, "12345678901234567890.0123456789", "0"),
    ] {
        exec(conn, &format!("insert into t values ({k}, {d}, {u})")).unwrap();
    }
    let order = |conn: &mut dyn EngineConn, sql: &str| -> Vec<Value> {
        exec(conn, sql)
            .unwrap()
            .rows
            .into_iter()
            .map(|r| r[0].clone())
            .collect()
    };
    let ks = |v: &[i64]| v.iter().map(|&k| Value::Sint(k)).collect::<Vec<_>>();
    assert_eq!(order(conn, "select k from t order by d"), ks(&[3, 2, 1, 4]));
    assert_eq!(order(conn, "select k from t order by u"), ks(&[4, 2, 3, 1]));
    assert_eq!(
        order(conn, "select k from t where u = 9223372036854775807"),
        ks(&[1])
    );
    assert_eq!(order(conn, "select k from t where d > 9.75"), ks(&[1, 4]));
    assert_eq!(order(conn, "select k from t where d = 9.5000"), ks(&[2]));
    assert_eq!(order(conn, "select k from t where d = '10.0'"), ks(&[1]));
    assert_eq!(
        order(conn, "select d from t where k = 4"),
        [dec("12345678901234567890.0123456789")]
    );
    // Values equal at the column's scale are duplicates, as MySQL stores them rounded.
    let err = exec(conn, "insert into t (k, d) values (5, '9.50000000001')").unwrap_err();
    assert_eq!(err.code, 1062, "{err}");
}

/// Literals SQLite's own decimal-to-double conversion reads one unit in the last place off
/// (found by comparing it with Rust's parser); MySQL reads each as the nearest double. With an
/// exponent, a literal is a DOUBLE however many digits it has.
const MISREAD_BY_SQLITE: &[&str] = &[
    "427703446871307e-20",
    "665705e-31",
    "1547679217e-38",
    "294.3269655",
    "421.493940197613",
    "1.581552523616512e-177",
    "3.184797688015296e277",
    "8.06162190503599e-163",
    "4.3796705401895166e81",
];

#[test]
fn double_literals_are_read_as_the_nearest_double_as_mysql_does() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("reals.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(conn, "create table d (k INTEGER PRIMARY KEY, v DOUBLE)").unwrap();
    for (k, literal) in MISREAD_BY_SQLITE.iter().enumerate() {
        let nearest: f64 = literal.parse().unwrap();
        exec(conn, &format!("insert into d values ({k}, -{literal})")).unwrap();
        let stored = exec(conn, &format!("select v from d where k = {k}")).unwrap();
        assert_eq!(stored.rows, [[Value::Double(-nearest)]], "stored {literal}");
        // A literal with an exponent is a DOUBLE, one without a DECIMAL (MySQL's types); a
        // comparison with the DOUBLE column reads either as the same double. The column keeps
        // its literal name, as MySQL names it.
        let selected = exec(
            conn,
            &format!("select {literal}, v = -{literal} from d where k = {k}"),
        )
        .unwrap();
        let value = if literal.contains('e') {
            Value::Double(nearest)
        } else {
            dec(literal)
        };
        assert_eq!(selected.rows, [[value, Value::Sint(1)]], "{literal}");
        assert_eq!(selected.columns.unwrap()[0].name, *literal);
    }
    // A literal beyond the double range is MySQL's 1367, not infinity.
    let err = exec(conn, "select 1e400").unwrap_err();
    assert_eq!(err.code, 1367, "{err}");
    assert!(err.message.contains("1e400"), "{err}");
}

/// The casts of [`cast_cases`] whose values the engine cannot hold: refused (1235).
const CASTS_REFUSED: &[&str] = &["CAST('900:00:00' AS TIME)", "CAST(-1 AS UNSIGNED)"];

/// MySQL's CAST and CONVERT: (expression, the value MySQL returns). NULL is MySQL's answer with
/// a warning.
fn cast_cases() -> Vec<(&'static str, Value)> {
    vec![
        ("CAST('2024-02-29' AS DATE)", date(2024, 2, 29)),
        ("CAST('2024/2/9' AS DATE)", date(2024, 2, 9)),
        ("CAST('99-12-31' AS DATE)", date(1999, 12, 31)),
        ("CAST(20240229 AS DATE)", date(2024, 2, 29)),
        ("CAST('2024-02-30' AS DATE)", Value::Null),
        ("CAST('garbage' AS DATE)", Value::Null),
        ("CAST('0000-00-00' AS DATE)", date(0, 0, 0)),
        (
            "CAST('2024-02-29T10:11:12.345678' AS DATETIME(3))",
            datetime(2024, 2, 29, 10, 11, 12, 345_000),
        ),
        (
            "CONVERT(20240229123456.5, DATETIME(1))",
            datetime(2024, 2, 29, 12, 34, 56, 500_000),
        ),
        ("CAST('1 02:03:04' AS TIME)", time(false, 26, 3, 4, 0)),
        ("CAST(123456 AS TIME)", time(false, 12, 34, 56, 0)),
        ("CAST('900:00:00' AS TIME)", time(false, 838, 59, 59, 0)),
        ("CAST(1.5 AS SIGNED)", Value::Sint(2)),
        ("CAST('1.5' AS SIGNED)", Value::Sint(1)),
        ("CAST(2.5e0 AS SIGNED)", Value::Sint(2)),
        ("CAST(' 12abc' AS SIGNED INTEGER)", Value::Sint(12)),
        ("CAST(-1 AS UNSIGNED)", Value::Uint(u64::MAX)),
        ("CAST('18446744073709551615' AS SIGNED)", Value::Sint(-1)),
        ("CAST('1234.567' AS DECIMAL(5,2))", dec("999.99")),
        ("CAST('1.005' AS DECIMAL(5,2))", dec("1.01")),
        ("CONVERT('abc', DECIMAL(4,1))", dec("0.0")),
        (
            "CAST(12345678901234567890.5 AS DECIMAL(30,1))",
            dec("12345678901234567890.5"),
        ),
        ("CAST('abcdef' AS CHAR(3))", text("abc")),
        ("CAST(1.5e20 AS CHAR)", text("1.5e20")),
        ("CAST(1.50 AS CHAR)", text("1.50")),
        ("CONVERT('é' USING utf8mb4)", text("é")),
        (
            "CAST('ab' AS BINARY(4))",
            Value::Bytes(Bytes::from_static(b"ab\0\0")),
        ),
        (
            "CONVERT('é' USING binary)",
            Value::Bytes(Bytes::from_static("é".as_bytes())),
        ),
    ]
}

#[test]
fn casts_return_mysqls_values_types_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("casts.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    let mut refused = Vec::new();
    for (expr, expected) in cast_cases() {
        let result = match exec(conn, &format!("select {expr}, {expr} as aliased")) {
            Ok(result) => result,
            Err(err) if err.code == 1235 => {
                refused.push(expr);
                continue;
            }
            Err(err) => panic!("{expr}: {err}"),
        };
        assert_eq!(
            result.rows,
            [[expected.clone(), expected.clone()]],
            "{expr}"
        );
        let columns = result.columns.unwrap();
        assert_eq!(columns[0].name, expr);
        assert_eq!(columns[1].name, "aliased");
    }
    // MySQL's answers the engine cannot hold are refused, never answered otherwise.
    assert_eq!(refused, CASTS_REFUSED);
    // The column types are the target's, as a declared column of that type would have them.
    let result = exec(
        conn,
        "select cast('2024-02-29' as date), cast('1' as decimal(10,3)), cast(1 as unsigned), \
         cast('x' as binary(2))",
    )
    .unwrap();
    let columns = result.columns.unwrap();
    let types: Vec<(ColumnType, u32, u32)> = columns
        .iter()
        .map(|c| (c.x_type, c.mysql_type, c.fractional_digits))
        .collect();
    assert_eq!(
        types,
        [
            (ColumnType::DateTime, mysql_type::DATE, 0),
            (ColumnType::Decimal, mysql_type::NEWDECIMAL, 3),
            (ColumnType::Uint, mysql_type::LONGLONG, 0),
            (ColumnType::Bytes, mysql_type::VAR_STRING, 0),
        ]
    );
    // Inside an expression a temporal value is MySQL's number (the text would read as 2024):
    // each expression gives MariaDB 10.11's value or is refused (1235), never another value.
    let mut refused = Vec::new();
    for (expr, expected) in [
        // A DECIMAL, as MariaDB types it.
        ("-cast('2024-02-29' as date)", dec("-20240229")),
        ("(cast('2024-02-29' as date)) * 1", Value::Sint(20240229)),
        (
            "cast('2024-02-29 10:11:12' as datetime) + 0",
            Value::Sint(20240229101112),
        ),
        (
            "cast('2024-02-29 10:11:12.5' as datetime(1)) + 0",
            Value::Double(20240229101112.5),
        ),
        ("cast('10:11:12.5' as time(1)) * 2", Value::Double(202225.0)),
        ("cast('-10:11:12' as time) + 0", Value::Sint(-101112)),
        ("abs(cast('2024-02-29' as date))", Value::Sint(20240229)),
        (
            "cast(cast('2024-02-29' as date) as signed)",
            Value::Sint(20240229),
        ),
        (
            "cast(cast('2024-02-29' as date) as decimal(12,2))",
            dec("20240229.00"),
        ),
        (
            "cast(cast('10:11:12' as time) as unsigned)",
            Value::Uint(101112),
        ),
        ("cast('2024-02-29' as date) = '2024-2-29'", Value::Sint(1)),
        ("cast('2024-02-29' as date) = 20240229", Value::Sint(1)),
        ("'2024-3-1' > cast('2024-02-29' as date)", Value::Sint(1)),
        ("cast('10:00:00' as time) > '9:00:00'", Value::Sint(1)),
        (
            "cast('-2:00:00' as time) < cast('-1:00:00' as time)",
            Value::Sint(1),
        ),
        ("length(cast('2024-02-29' as date))", Value::Sint(10)),
    ] {
        match exec(conn, &format!("select {expr}")) {
            Ok(result) => assert_eq!(result.rows, [[expected]], "{expr}"),
            Err(err) if err.code == 1235 => refused.push(expr),
            Err(err) => panic!("{expr}: {err}"),
        }
    }
    assert!(refused.len() < 15, "{refused:?}");
    // A conversion MySQL warns about is a warning of the statement (sent as a WARNING notice)
    // and SHOW WARNINGS lists it, until the next statement.
    let result = exec(
        conn,
        "select cast('12abc' as signed), cast('2024-02-30' as date)",
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Sint(12), Value::Null]]);
    let expected = vec![
        SqlWarning {
            level: WarningLevel::Warning,
            code: 1292,
            message: "Truncated incorrect INTEGER value: '12abc'".into(),
        },
        SqlWarning {
            level: WarningLevel::Warning,
            code: 1292,
            message: "Incorrect datetime value: '2024-02-30'".into(),
        },
    ];
    assert_eq!(result.warnings, expected);
    for _ in 0..2 {
        let shown = exec(conn, "show warnings").unwrap();
        assert_eq!(
            shown.rows,
            expected
                .iter()
                .map(|w| vec![text("Warning"), Value::Uint(1292), text(&w.message)])
                .collect::<Vec<_>>()
        );
        // The diagnostic statements keep the list: they count it, as MySQL does.
        let counted = exec(conn, "show count(*) warnings").unwrap();
        assert_eq!(counted.rows, [[Value::Uint(2)]]);
        assert_eq!(counted.columns.unwrap()[0].name, "@@session.warning_count");
        let counted = exec(
            conn,
            "select @@warning_count, @@session.error_count as e, @@LOCAL.warning_count",
        )
        .unwrap();
        assert_eq!(
            counted.rows,
            [[Value::Uint(2), Value::Uint(0), Value::Uint(2)]]
        );
        let names: Vec<_> = counted
            .columns
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["@@warning_count", "e", "@@LOCAL.warning_count"]);
        assert_eq!(
            exec(conn, "show count(*) errors").unwrap().rows,
            [[Value::Uint(0)]]
        );
    }
    // SHOW WARNINGS' Code is MySQL's INT UNSIGNED, with rows or without.
    let columns = exec(conn, "show warnings").unwrap().columns.unwrap();
    assert_eq!(
        (
            columns[1].name.as_str(),
            columns[1].x_type,
            columns[1].mysql_type
        ),
        ("Code", ColumnType::Uint, mysql_type::LONG)
    );
    // Every other statement clears the list, one that fails too.
    exec(conn, "select 1").unwrap();
    assert!(exec(conn, "show warnings").unwrap().rows.is_empty());
    let columns = exec(conn, "show warnings").unwrap().columns.unwrap();
    assert_eq!(columns[1].x_type, ColumnType::Uint);
    assert_eq!(
        exec(conn, "select @@warning_count").unwrap().rows,
        [[Value::Uint(0)]]
    );
    // A failed statement leaves its error (Level `Error`) as MySQL does: SHOW WARNINGS and
    // SHOW ERRORS list it, `error_count` and `warning_count` count it.
    exec(conn, "select cast('1x' as signed)").unwrap();
    let err = exec(conn, "select no_such_column").unwrap_err();
    let error_row = vec![
        text("Error"),
        Value::Uint(u64::from(err.code)),
        text(&err.message),
    ];
    for _ in 0..2 {
        assert_eq!(
            exec(conn, "show warnings").unwrap().rows,
            std::slice::from_ref(&error_row)
        );
        assert_eq!(
            exec(conn, "show errors").unwrap().rows,
            std::slice::from_ref(&error_row)
        );
        assert_eq!(
            exec(conn, "show count(*) errors").unwrap().rows,
            [[Value::Uint(1)]]
        );
        assert_eq!(
            exec(conn, "select @@error_count, @@warning_count")
                .unwrap()
                .rows,
            [[Value::Uint(1), Value::Uint(1)]]
        );
    }
    // Warnings raised before the error stay with it.
    let err = exec(conn, "select cast('1x' as signed), 1e300 DIV 1").unwrap_err();
    assert_eq!(err.code, 1690);
    let shown = exec(conn, "show warnings").unwrap().rows;
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[0][0], text("Warning"));
    assert_eq!(shown[1][..2], [text("Error"), Value::Uint(1690)]);
    // A write's error is recorded too.
    exec(conn, "create table werr (a INT)").unwrap();
    let err = exec(conn, "insert into werr values (1/0)").unwrap_err();
    assert_eq!(err.code, 1365);
    assert_eq!(
        exec(conn, "show warnings").unwrap().rows,
        [[text("Error"), Value::Uint(1365), text("Division by 0")]]
    );
    // SHOW ERRORS lists errors only.
    exec(conn, "select cast('1x' as signed)").unwrap();
    assert!(exec(conn, "show errors").unwrap().rows.is_empty());
    assert_eq!(
        exec(conn, "show count(*) errors").unwrap().rows,
        [[Value::Uint(0)]]
    );
    exec(conn, "select 1").unwrap();
    exec(conn, "select cast('1x' as signed)").unwrap();
    exec(conn, "set autocommit = 1").unwrap();
    assert!(exec(conn, "show warnings").unwrap().rows.is_empty());
    // Another variable with the counts: refused, not answered half.
    let err = exec(conn, "select @@warning_count, @@version").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    // A UNION of casts to one type, and a scalar subquery of one, are typed as the cast.
    for sql in [
        "select cast('2024-02-29' as date) as d union all select cast('2024-3-1' as date)",
        "select (select cast('2024-02-29' as date)) as d union all select '2024-03-01'",
    ] {
        let result = exec(conn, sql).unwrap();
        let columns = result.columns.unwrap();
        assert_eq!(columns[0].name, "d", "{sql}");
        assert_eq!(result.rows.len(), 2, "{sql}");
        if sql.contains("'2024-3-1'") {
            assert_eq!(result.rows[0], [date(2024, 2, 29)], "{sql}");
            assert_eq!(
                (columns[0].x_type, columns[0].mysql_type),
                (ColumnType::DateTime, mysql_type::DATE)
            );
            assert_eq!(result.rows[1], [date(2024, 3, 1)]);
        } else {
            // DATE UNION a string is a string in MySQL.
            assert_eq!(columns[0].x_type, ColumnType::Bytes);
            assert_eq!(result.rows[0], [text("2024-02-29")], "{sql}");
        }
    }
    // A derived table's cast column keeps the cast's type outside it: by name, qualified,
    // aliased, through `*`, and through two levels.
    for sql in [
        "select d from (select cast('2024-02-29' as date) d) t",
        "select t.d as x, 1 from (select cast('2024-02-29' as date) as d, 2 as n) as t",
        "select * from (select cast('2024-02-29' as date) d) t",
        "select d from (select d from (select cast('2024-02-29' as date) d) a) b where d > ''",
    ] {
        let result = exec(conn, sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(result.rows[0][0], date(2024, 2, 29), "{sql}");
        let column = &result.columns.unwrap()[0];
        assert_eq!(
            (column.x_type, column.mysql_type),
            (ColumnType::DateTime, mysql_type::DATE),
            "{sql}"
        );
    }
    let result = exec(
        conn,
        "select n, d from (select cast('1.5' as decimal(5,2)) d, cast(7 as unsigned) n) t",
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Uint(7), dec("1.50")]]);
    // With another table in the FROM clause, a name only one derived table has still resolves.
    let result = exec(
        conn,
        "select d from (select cast('2024-02-29' as date) d) a, (select 1 e) b",
    )
    .unwrap();
    assert_eq!(result.rows, [[date(2024, 2, 29)]]);
    let result = exec(conn, "select (select cast('2024-02-29' as date))").unwrap();
    assert_eq!(result.rows, [[date(2024, 2, 29)]]);
    assert_eq!(
        result.columns.unwrap()[0].name,
        "(select cast('2024-02-29' as date))"
    );
    // Dates compare as dates; what the node cannot convert as MySQL does is refused.
    exec(conn, "create table dates (d DATE, s TEXT)").unwrap();
    exec(conn, "insert into dates values ('2024-01-01', '2024-1-1')").unwrap();
    for (expr, value) in [
        ("select cast(s as date) = d from dates", Value::Sint(1)),
        (
            "select cast(s as date) in ('2024-01-01') from dates",
            Value::Sint(1),
        ),
        (
            "select cast(s as date) = 'garbage' from dates",
            Value::Sint(0),
        ),
    ] {
        let result = exec(conn, expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(result.rows, [[value]], "{expr}");
    }
    for expr in [
        "select cast('2024-02-29 10:11:12.25' as datetime(2)) + 0",
        "select cast(cast('10:11:12' as time) as date)",
    ] {
        let err = exec(conn, expr).unwrap_err();
        assert_eq!(err.code, 1235, "{expr}: {err}");
    }
    // Casts of table columns, with a star before them.
    exec(conn, "create table c (k INT, s VARCHAR(20), n INT)").unwrap();
    exec(conn, "insert into c values (1, '2024-2-9', 20240229)").unwrap();
    let result = exec(conn, "select *, cast(s as date), convert(n, date) d from c").unwrap();
    assert_eq!(result.rows[0][3..], [date(2024, 2, 9), date(2024, 2, 29)]);
}

#[test]
fn casts_refuse_in_writes_and_where_the_answer_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("casts.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(conn, "create table w (k INT, v TEXT, d DECIMAL(5,2))").unwrap();
    // In a write, strict mode makes MySQL's warning an error.
    for (insert, code, state) in [
        (
            "insert into w (k, v) values (1, cast('garbage' as date))",
            1292,
            "22007",
        ),
        (
            "insert into w (k, v) values (1, cast('12abc' as signed))",
            1292,
            "22007",
        ),
        (
            "insert into w (k, v) values (1, cast(1234.5 as decimal(4,1)))",
            1264,
            "22003",
        ),
        (
            "insert into w (k, v) values (1, cast(-1.5 as unsigned))",
            1916,
            "22003",
        ),
    ] {
        let err = exec(conn, insert).unwrap_err();
        assert_eq!(
            (err.code, err.sql_state.as_str()),
            (code, state),
            "{insert}: {err}"
        );
    }
    // A cut string is written, as MySQL does; a valid cast too.
    exec(
        conn,
        "insert into w (k, v, d) values (1, cast('abcdef' as char(2)), '1.5')",
    )
    .unwrap();
    exec(
        conn,
        "update w set v = cast('2024-2-9' as date) where k = 1",
    )
    .unwrap();
    let stored = exec(conn, "select v from w").unwrap();
    assert_eq!(stored.rows, [[text("2024-02-09")]]);
    // A DECIMAL is stored with its scale, as MySQL stores it: every reading of it as text
    // shows the scale.
    let stored = exec(
        conn,
        "select cast(d as char), substr(d, 1), length(d), cast(d as decimal(6,3)) from w",
    )
    .unwrap();
    assert_eq!(
        stored.rows,
        [[text("1.50"), text("1.50"), Value::Sint(4), dec("1.500")]]
    );
    exec(conn, "update w set d = 2.005 where k = 1").unwrap();
    let stored = exec(conn, "select cast(d as char) from w").unwrap();
    assert_eq!(stored.rows, [[text("2.01")]]);
    exec(conn, "update w set d = '1.5' where k = 1").unwrap();
    // A DECIMAL is rounded to an integer, as MySQL rounds it.
    let rounded = exec(conn, "select cast(d as signed) from w").unwrap();
    assert_eq!(rounded.rows, [[Value::Sint(2)]]);
    exec(conn, "create view v as select cast(v as date) from w").unwrap();
    let err = exec(conn, "select cast(v as datetime(7)) from w").unwrap_err();
    assert!(matches!(err.code, 1064 | 1426), "{err}");
}

/// Column metadata from the declaration: names, table, schema and MySQL's flags.
#[test]
fn table_columns_carry_names_and_key_flags() {
    use xrpc_engine::result::column_flags::{NOT_NULL, PRIMARY_KEY};
    const UNIQUE_KEY: u32 = 0x0040;
    const MULTIPLE_KEY: u32 = 0x0080;
    const AUTO_INCREMENT: u32 = 0x0100;
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("meta.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(
        conn,
        "create table m (id INT AUTO_INCREMENT PRIMARY KEY, n VARCHAR(10) NOT NULL, \
         u INT UNIQUE, i INT, e ENUM('a','b'))",
    )
    .unwrap();
    exec(conn, "create index mi on m (i)").unwrap();
    exec(conn, "insert into m (n, u, i, e) values ('x', 1, 2, 'a')").unwrap();
    let result = exec(
        conn,
        "select id, n as alias, u, i, e, i + 1, cast(n as char) from m",
    )
    .unwrap();
    let columns = result.columns.unwrap();
    let got: Vec<(&str, &str, &str, &str, u32)> = columns
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.original_name.as_str(),
                c.original_table.as_str(),
                c.schema.as_str(),
                c.flags,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "id",
                "id",
                "m",
                "main",
                NOT_NULL | PRIMARY_KEY | AUTO_INCREMENT
            ),
            ("alias", "n", "m", "main", NOT_NULL),
            ("u", "u", "m", "main", UNIQUE_KEY),
            ("i", "i", "m", "main", MULTIPLE_KEY),
            ("e", "e", "m", "main", 0),
            ("i + 1", "", "", "", 0),
            ("cast(n as char)", "", "", "", 0),
        ]
    );
    assert_eq!(columns[1].table, "m");
    // The AUTO_INCREMENT column keeps the type it was declared with (SQLite needs INTEGER).
    assert_eq!(
        (columns[0].x_type, columns[0].mysql_type, columns[0].length),
        (ColumnType::Sint, mysql_type::LONG, 11)
    );
    exec(
        conn,
        "create table mu (id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, v INT, PRIMARY KEY (id))",
    )
    .unwrap();
    exec(conn, "insert into mu (v) values (1)").unwrap();
    let result = exec(conn, "select id from mu").unwrap();
    let column = &result.columns.as_ref().unwrap()[0];
    assert_eq!(
        (column.x_type, column.mysql_type, column.length),
        (ColumnType::Uint, mysql_type::SHORT, 5)
    );
    assert_eq!(result.rows, [[Value::Uint(1)]]);
    // …and its range: an explicit id beyond it is refused as MySQL refuses it, -1 too (the
    // check after the insert sees it; SQLite shows a generated id as -1 to the one before).
    for id in ["70000", "-2", "-1"] {
        let err = exec(conn, &format!("insert into mu (id, v) values ({id}, 2)")).unwrap_err();
        assert_eq!(err.code, 1264, "{id}: {err}");
        let err = exec(conn, &format!("update mu set id = {id}")).unwrap_err();
        assert_eq!(err.code, 1264, "update to {id}: {err}");
    }
    // A generated id beyond the declared type is refused at the insert with MariaDB's 167
    // (22003), naming the row, and nothing of the statement is stored; MariaDB checked: a
    // signed column takes an explicit -1.
    exec(
        conn,
        "create table tiny (id TINYINT AUTO_INCREMENT PRIMARY KEY, v INT)",
    )
    .unwrap();
    exec(conn, "insert into tiny values (-1, 0), (126, 0)").unwrap();
    exec(conn, "insert into tiny (v) values (1)").unwrap();
    let err = exec(conn, "insert into tiny (v) values (2)").unwrap_err();
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.message.as_str()),
        (167, "22003", "Out of range value for column 'id' at row 1")
    );
    exec(conn, "delete from tiny where id = 127").unwrap();
    let err = exec(conn, "insert into tiny (v) values (3), (4)").unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (167, "Out of range value for column 'id' at row 1")
    );
    let ids = exec(conn, "select id from tiny order by id").unwrap().rows;
    assert_eq!(ids, [[Value::Sint(-1)], [Value::Sint(126)]]);
    // SHOW COLUMNS and information_schema give the declared type (MariaDB's form, with its
    // display width), not SQLite's INTEGER, and still name the column auto_increment.
    let shown = exec(conn, "show columns from tiny").unwrap().rows;
    assert_eq!(
        (&shown[0][1], &shown[0][5]),
        (&text("tinyint(4)"), &text("auto_increment"))
    );
    let shown = exec(conn, "show columns from mu").unwrap().rows;
    assert_eq!(shown[0][1], text("smallint(5) unsigned"));
    let info = exec(
        conn,
        "select data_type, column_type, extra from information_schema.columns \
         where table_name = 'mu' and column_name = 'id'",
    )
    .unwrap()
    .rows;
    assert_eq!(
        info,
        [[
            text("smallint"),
            text("smallint(5) unsigned"),
            text("auto_increment")
        ]]
    );
    let create = exec(conn, "show create table mu").unwrap().rows;
    let Value::Bytes(ddl) = &create[0][1] else {
        panic!("{create:?}")
    };
    assert!(
        String::from_utf8_lossy(ddl).contains("`id` smallint(5) unsigned NOT NULL AUTO_INCREMENT"),
        "{}",
        String::from_utf8_lossy(ddl)
    );
    // An explicit 0 in an AUTO_INCREMENT column generates an id, as in MySQL.
    exec(conn, "insert into m (id, n) values (0, 'y')").unwrap();
    let generated = exec(conn, "select id from m where n = 'y'").unwrap().rows;
    assert!(
        matches!(generated.as_slice(), [row] if row[0] != Value::Uint(0)),
        "{generated:?}"
    );
    // A column that cannot be SQLite's rowid alias is refused rather than left without ids.
    let err = exec(
        conn,
        "create table bad (a INT AUTO_INCREMENT, b INT, PRIMARY KEY (a, b))",
    )
    .unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
}

/// Division, modulo and strings in arithmetic answer as MySQL (MariaDB 10.11 in strict mode):
/// a zero divisor is NULL with `Warning 1365` in a query and `Error 1365` in a write; `/` of
/// integers is not SQLite's integer division; a string's trailing junk is `Warning 1292`.
#[test]
fn arithmetic_divides_and_converts_strings_as_mysql() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("arith.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    let warning = |code: u32, message: &str| SqlWarning {
        level: WarningLevel::Warning,
        code,
        message: message.into(),
    };
    let by_zero = warning(1365, "Division by 0");
    // (expression, value, X type, MySQL type, fractional digits, warnings)
    let cases: Vec<(&str, Value, ColumnType, u32, Vec<SqlWarning>)> = vec![
        (
            "1/0",
            Value::Null,
            ColumnType::Decimal,
            mysql_type::NEWDECIMAL,
            vec![by_zero.clone()],
        ),
        (
            "7/2",
            dec("3.5000"),
            ColumnType::Decimal,
            mysql_type::NEWDECIMAL,
            vec![],
        ),
        (
            "1.50/2",
            dec("0.750000"),
            ColumnType::Decimal,
            mysql_type::NEWDECIMAL,
            vec![],
        ),
        (
            "5 % 0",
            Value::Null,
            ColumnType::Sint,
            mysql_type::LONGLONG,
            vec![by_zero.clone()],
        ),
        (
            "MOD(5,0)",
            Value::Null,
            ColumnType::Sint,
            mysql_type::LONGLONG,
            vec![by_zero.clone()],
        ),
        (
            "5 DIV 0",
            Value::Null,
            ColumnType::Sint,
            mysql_type::LONGLONG,
            vec![by_zero.clone()],
        ),
        (
            "7 DIV 2",
            Value::Sint(3),
            ColumnType::Sint,
            mysql_type::LONGLONG,
            vec![],
        ),
        (
            "-7 % 2",
            Value::Sint(-1),
            ColumnType::Sint,
            mysql_type::LONGLONG,
            vec![],
        ),
        (
            "7 mod -2",
            Value::Sint(1),
            ColumnType::Sint,
            mysql_type::LONGLONG,
            vec![],
        ),
        (
            "5.5 % 2",
            dec("1.5"),
            ColumnType::Decimal,
            mysql_type::NEWDECIMAL,
            vec![],
        ),
        (
            "'12abc'+0",
            Value::Double(12.0),
            ColumnType::Double,
            mysql_type::DOUBLE,
            vec![warning(1292, "Truncated incorrect DOUBLE value: '12abc'")],
        ),
        (
            "1/'a'",
            Value::Null,
            ColumnType::Double,
            mysql_type::DOUBLE,
            vec![
                warning(1292, "Truncated incorrect DOUBLE value: 'a'"),
                by_zero.clone(),
            ],
        ),
    ];
    for (expr, value, x_type, mysql, warnings) in cases {
        let result =
            exec(conn, &format!("select {expr}")).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(result.rows, [[value]], "{expr}");
        let column = &result.columns.as_ref().unwrap()[0];
        assert_eq!(
            (column.x_type, column.mysql_type),
            (x_type, mysql),
            "{expr}"
        );
        assert_eq!(column.name, expr, "{expr}");
        assert_eq!(result.warnings, warnings, "{expr}");
    }
    // Inside expressions and over columns: MySQL's values (SQLite's would be 3, 1 and NULL
    // without a word).
    exec(
        conn,
        "create table n (a INT, b INT, u BIGINT UNSIGNED, s TEXT)",
    )
    .unwrap();
    exec(
        conn,
        "insert into n values (7, 0, 9223372036854775807, '3x')",
    )
    .unwrap();
    let result = exec(
        conn,
        "select a / 2 * 2, u % 10, u DIV 1, a / b, s / 1, a / 2 as half from n where a / 2 > 3",
    )
    .unwrap();
    assert_eq!(
        result.rows,
        [[
            dec("7.0000"),
            Value::Uint(7),
            Value::Uint(9_223_372_036_854_775_807),
            Value::Null,
            Value::Double(3.0),
            dec("3.5000"),
        ]]
    );
    assert_eq!(result.columns.unwrap()[5].name, "half");
    assert_eq!(
        result.warnings,
        [
            by_zero.clone(),
            warning(1292, "Truncated incorrect DOUBLE value: '3x'")
        ]
    );
    // In a write, strict mode makes them errors, and nothing is written.
    for sql in [
        "insert into n (a) values (1/0)",
        "insert into n (a) values (5 % 0)",
        "insert into n (a) values (5 DIV 0)",
        "update n set a = a / b",
    ] {
        let err = exec(conn, sql).unwrap_err();
        assert_eq!(
            (err.code, err.sql_state.as_str(), err.message.as_str()),
            (1365, "22012", "Division by 0"),
            "{sql}"
        );
    }
    let err = exec(conn, "insert into n (a) values ('12abc' + 0)").unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (1292, "Truncated incorrect DOUBLE value: '12abc'")
    );
    let result = exec(conn, "select a from n").unwrap();
    assert_eq!(result.rows, [[Value::Sint(7)]]);
    exec(conn, "insert into n (a) values (7 DIV 2)").unwrap();
    let result = exec(conn, "select count(*) from n where a = 3").unwrap();
    assert_eq!(result.rows, [[Value::Sint(1)]]);
}

/// MySQL's `||` is OR and `&&` AND (its default sql_mode has no PIPES_AS_CONCAT), with OR's
/// precedence; SQLite's `||` concatenates. Views, triggers, defaults, CHECK constraints and
/// generated columns get MySQL's arithmetic too (SQLite's would give 3 for `7/2` and 1 for
/// `5.5 % 2` without a word), and a view is shown as it was written.
#[test]
fn logical_operators_and_stored_sql_use_mysqls_semantics() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("stored.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    for (expr, value) in [
        ("1 || 0", Value::Sint(1)),
        ("0 || 0", Value::Sint(0)),
        ("1 && 0", Value::Sint(0)),
        ("NULL || 1", Value::Sint(1)),
        ("'a' || 'b'", Value::Sint(0)),
        ("1 = 2 || 3 = 3 && 0", Value::Sint(0)),
        ("'a||b'", text("a||b")),
        ("'12abc' = 12", Value::Sint(1)),
        ("1 = '1.0'", Value::Sint(1)),
        ("'5' > 10", Value::Sint(0)),
    ] {
        let result = exec(conn, &format!("select {expr}")).unwrap();
        assert_eq!(result.rows, [[value]], "{expr}");
        // A string literal's column is named by its value, as MySQL names it.
        let name = expr
            .strip_prefix('\'')
            .and_then(|e| e.strip_suffix('\''))
            .filter(|value| !value.contains('\''))
            .unwrap_or(expr);
        assert_eq!(result.columns.unwrap()[0].name, name);
    }
    // The node has no session sql_mode: a mode making `||` concatenation is refused, not
    // ignored.
    let err = exec(conn, "SET sql_mode = 'PIPES_AS_CONCAT'").unwrap_err();
    assert_eq!(err.code, 1235);
    exec(conn, "SET sql_mode = 'STRICT_TRANS_TABLES'").unwrap();
    exec(conn, "create table t (a INT, b INT)").unwrap();
    exec(conn, "insert into t values (7, 2), (1, 5), (3, 0)").unwrap();
    let result = exec(conn, "select a from t where a = 1 || b = 2 order by a").unwrap();
    assert_eq!(result.rows, [[Value::Sint(1)], [Value::Sint(7)]]);
    let result = exec(
        conn,
        "select a from t where (a > 1 && b > 1) || a = 3 order by a",
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Sint(3)], [Value::Sint(7)]]);

    // A view: MySQL's values, its columns named as written, shown as written.
    let view = "create view v as select a/2, a % 2 as m, 5.5 % 2, a DIV 2, a = 7 || b = 5 from t";
    exec(conn, view).unwrap();
    let result = exec(conn, "select * from v where m = 1 order by 1").unwrap();
    let names: Vec<String> = result
        .columns
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(names, ["a/2", "m", "5.5 % 2", "a DIV 2", "a = 7 || b = 5"]);
    let doubles = |row: &[Value]| -> Vec<f64> {
        row.iter()
            .map(|v| match v {
                Value::Double(d) => *d,
                Value::Sint(i) => *i as f64,
                Value::Decimal(d) => d.to_string().parse().unwrap(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let rows: Vec<Vec<f64>> = result.rows.iter().map(|r| doubles(r)).collect();
    assert_eq!(
        rows,
        [
            vec![0.5, 1.0, 1.5, 0.0, 1.0],
            vec![1.5, 1.0, 1.5, 1.0, 0.0],
            vec![3.5, 1.0, 1.5, 3.0, 1.0]
        ]
    );
    // SHOW CREATE of a view is refused rather than shown in another form than MySQL's.
    let err = exec(conn, "show create table v").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    // A view dividing by zero: NULL and a warning in a query, an error in a write.
    exec(conn, "create view z as select a / b as q from t").unwrap();
    let result = exec(conn, "select q from z").unwrap();
    assert_eq!(
        result.rows,
        [[dec("3.5000")], [dec("0.2000")], [Value::Null]]
    );
    assert_eq!(result.warnings.len(), 1);
    assert_eq!(result.warnings[0].code, 1365);
    exec(conn, "create table log (x DOUBLE)").unwrap();
    let err = exec(conn, "insert into log select q from z").unwrap_err();
    assert_eq!((err.code, err.sql_state.as_str()), (1365, "22012"));

    // A trigger is refused (the engine does not run them), not run otherwise than MySQL.
    let err = exec(
        conn,
        "create trigger tr after insert on t for each row insert into log values (new.a / 2)",
    )
    .unwrap_err();
    assert_eq!(err.code, 1235, "{err}");

    // A CHECK constraint and a generated column compute as MySQL; an expression DEFAULT is
    // refused.
    let err = exec(conn, "create table x (k INT, x DOUBLE DEFAULT (7/2))").unwrap_err();
    assert_eq!(err.code, 1235, "{err}");
    exec(
        conn,
        "create table d (k INT CHECK (k / 2 > 1), h DECIMAL(10,4) AS (k % 2.5))",
    )
    .unwrap();
    exec(conn, "insert into d (k) values (3)").unwrap();
    let result = exec(conn, "select k, h from d").unwrap();
    assert_eq!(result.rows, [[Value::Sint(3), dec("0.5000")]]);
    let err = exec(conn, "insert into d (k) values (2)").unwrap_err();
    assert_eq!(err.code, 4025, "{err}");
}

/// String literals and string functions as MySQL: backslash escapes are decoded before the
/// value is stored (SQLite would keep `\\` and `\n` as written), LIKE escapes with a
/// backslash, LENGTH counts bytes and CONCAT of a NULL is NULL.
#[test]
fn strings_escape_measure_and_concatenate_as_mysql() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("strings.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(conn, "create table s (k INT PRIMARY KEY, v VARCHAR(20))").unwrap();
    exec(
        conn,
        r"insert into s values (1, 'C:\\dir\nx'), (2, 'It\'s'), (3, 'a_b'), (4, 'axb'), (5, 'é')",
    )
    .unwrap();
    let result = exec(
        conn,
        "select v, length(v), char_length(v) from s order by k",
    )
    .unwrap();
    let rows: Vec<(Value, Value, Value)> = result
        .rows
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (text("C:\\dir\nx"), Value::Sint(8), Value::Sint(8)),
            (text("It's"), Value::Sint(4), Value::Sint(4)),
            (text("a_b"), Value::Sint(3), Value::Sint(3)),
            (text("axb"), Value::Sint(3), Value::Sint(3)),
            (text("é"), Value::Sint(2), Value::Sint(1)),
        ]
    );
    let result = exec(conn, r"select k from s where v like 'a\_b'").unwrap();
    assert_eq!(result.rows, [[Value::Sint(3)]]);
    let result = exec(
        conn,
        "select concat(v, NULL), concat(v, '!', k), upper(v) from s where k = 5",
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Null, text("é!5"), text("É")]]);
}

/// DATE, DATETIME(fsp) and TIME values are stored in MySQL's fixed-width form, so ORDER BY,
/// MIN, MAX and equality with a canonical literal are chronological (stored as written,
/// `9:00:00` sorted after `10:00:00` and `2024-2-9` after `2024-10-01`).
#[test]
fn dates_and_times_order_chronologically() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        SqliteEngine::open(&dir.path().join("order.db"), SqliteOptions::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let conn = &mut *conn;
    exec(
        conn,
        "create table tt (k INT PRIMARY KEY, t TIME, d DATE, dt DATETIME(2))",
    )
    .unwrap();
    exec(
        conn,
        "insert into tt values (1, '9:00:00', '2024-2-9', '2024-2-9 1:2:3.5'), \
         (2, '10:00:00', '2024-10-01', '2024-10-01 00:00:00')",
    )
    .unwrap();
    exec(
        conn,
        "insert into tt values (3, '00:30', '2024-02-10', '2024-2-9 10:00')",
    )
    .unwrap();
    for (order, want) in [("t", [3, 1, 2]), ("d", [1, 3, 2]), ("dt", [1, 3, 2])] {
        let result = exec(conn, &format!("select k from tt order by {order}")).unwrap();
        let got: Vec<Value> = result.rows.into_iter().map(|mut r| r.remove(0)).collect();
        let want: Vec<Value> = want.into_iter().map(Value::Sint).collect();
        assert_eq!(got, want, "order by {order}");
    }
    let result = exec(conn, "select min(t), max(d), max(dt) from tt").unwrap();
    assert_eq!(
        result.rows,
        [[
            time(false, 0, 30, 0, 0),
            date(2024, 10, 1),
            datetime(2024, 10, 1, 0, 0, 0, 0)
        ]]
    );
    let result = exec(conn, "select k from tt where d = '2024-02-09'").unwrap();
    assert_eq!(result.rows, [[Value::Sint(1)]]);
    // TIME orders as a duration, negative and beyond 99 hours too (a collation: text would
    // put -02:00:00 after -01:00:00 and 100:00:00 before 20:00:00).
    exec(
        conn,
        "insert into tt (k, t) values (4, '-2:00:00'), (5, '-1:00:00'), (6, '100:00:00'), (7, '20:00:00')",
    )
    .unwrap();
    let result = exec(conn, "select k from tt where k > 3 order by t").unwrap();
    let got: Vec<Value> = result.rows.into_iter().map(|mut r| r.remove(0)).collect();
    assert_eq!(got, [4, 5, 7, 6].map(Value::Sint));
    let result = exec(conn, "select min(t), max(t) from tt").unwrap();
    assert_eq!(
        result.rows,
        [[time(true, 2, 0, 0, 0), time(false, 100, 0, 0, 0)]]
    );
    let result = exec(conn, "select k from tt where t = '20:0:0'").unwrap();
    assert_eq!(result.rows, [[Value::Sint(7)]]);
    exec(conn, "update tt set t = '11:0:0.5' where k = 3").unwrap_or_else(|e| panic!("{e}"));
    let result = exec(
        conn,
        "select k from tt where k <= 3 order by t desc limit 1",
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Sint(3)]]);
}
