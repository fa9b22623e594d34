//! The SQLite engine through the `Engine`/`EngineConn` traits: type mapping, arguments, MySQL
//! transaction statements, functions, error codes, schemas, kills, lock waits and session state.
//!
//! The tests of behaviour the `Engine` contract promises on every engine (transaction statements
//! and the session state they pin, a kill that comes before its statement) run on both
//! (`on_both_engines!`): on SQLite and on the `mysql` engine in front of a fresh database of the
//! binary's one MariaDB ([`xrpc_testkit::shared_database`]). The rest is SQLite's own.

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use xrpc_proto::value::{ColumnType, Value, XDateTime, XDecimal, XTime};
use xrpc_server::engine::sqlite::{Clock, SqliteEngine, SqliteOptions, Synchronous};
use xrpc_server::engine::{Engine, EngineConn, Interrupt, WaitHook};
use xrpc_server::result::{
    COLLATION_BINARY, COLLATION_UTF8MB4, CollectedResult, ColumnInfo, ExecSummary, ResultSink,
    SinkError, SqlError, mysql_type,
};

fn engine_with(options: SqliteOptions) -> (tempfile::TempDir, SqliteEngine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("test.db"), options).unwrap();
    (dir, engine)
}

fn engine() -> (tempfile::TempDir, SqliteEngine) {
    engine_with(SqliteOptions::default())
}

/// The engines the tests of the `Engine` contract run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sqlite,
    Mysql,
}

/// What must outlive an engine of [`engine_on`]: SQLite's directory, or the epoll groups the
/// mysql engine's backend connections run on.
/// Dropped after the engine (declared before it by its callers), so the groups shut down
/// last.
#[allow(dead_code)]
enum Keep {
    Dir(tempfile::TempDir),
    Groups(xrpc_net::Server<xrpc_net::NoClients>),
}

/// An engine of `kind`, with what must outlive it; the mysql engine's driver runs on epoll
/// groups of its own, as a node would start it.
fn engine_on(kind: Kind) -> (Keep, Box<dyn Engine>) {
    match kind {
        Kind::Sqlite => {
            let (dir, engine) = engine();
            (Keep::Dir(dir), Box::new(engine))
        }
        Kind::Mysql => {
            let url = xrpc_testkit::shared_database().unwrap_or_else(|err| panic!("{err}"));
            let options = xrpc_server::engine::mysql::PoolOptions {
                size: 4,
                ..Default::default()
            };
            let engine = xrpc_server::engine::mysql::MysqlEngine::connect(&url, options)
                .unwrap_or_else(|err| panic!("{err:?}"));
            let groups = xrpc_net::Server::start(
                xrpc_net::NetConfig {
                    listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                    groups: 1,
                    threads_per_group: 2,
                    bind_cores: false,
                    ..xrpc_net::NetConfig::default()
                },
                xrpc_net::NoClients,
            )
            .unwrap();
            engine.started(groups.groups());
            (Keep::Groups(groups), Box::new(engine))
        }
    }
}

/// Runs each named test, a `fn(Kind)`, once per engine: as `on_sqlite::name` and
/// `on_mysql::name`.
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $name() {
                super::$name(super::Kind::Sqlite)
            })*
        }
        mod on_mysql {
            $(#[test]
            fn $name() {
                super::$name(super::Kind::Mysql)
            })*
        }
    };
}

on_both_engines!(
    autocommit_off_opens_transactions_implicitly,
    start_transaction_commit_and_rollback,
    a_kill_before_the_statement_is_for_it_and_clear_forgets_it,
);

fn exec_args(
    conn: &mut dyn EngineConn,
    sql: &str,
    args: &[Value],
) -> Result<(CollectedResult, ExecSummary), SqlError> {
    let mut result = CollectedResult::default();
    let summary = conn.execute(sql, args, None, &mut result)?;
    assert_eq!(summary.has_result_set, result.columns.is_some(), "{sql}");
    Ok((result, summary))
}

fn exec(conn: &mut dyn EngineConn, sql: &str) -> (CollectedResult, ExecSummary) {
    exec_args(conn, sql, &[]).unwrap_or_else(|err| panic!("{sql}: {err}"))
}

fn rows(conn: &mut dyn EngineConn, sql: &str) -> Vec<Vec<Value>> {
    exec(conn, sql).0.rows
}

fn err(conn: &mut dyn EngineConn, sql: &str) -> SqlError {
    match exec_args(conn, sql, &[]) {
        Ok(_) => panic!("{sql} succeeded"),
        Err(err) => err,
    }
}

fn count(conn: &mut dyn EngineConn, table: &str) -> i64 {
    match &rows(conn, &format!("select count(*) from {table}"))[0][0] {
        Value::Sint(n) => *n,
        other => panic!("{other:?}"),
    }
}

fn text(s: &str) -> Value {
    Value::Bytes(Bytes::copy_from_slice(s.as_bytes()))
}

fn dec(s: &str) -> Value {
    Value::Decimal(XDecimal::parse(s).unwrap())
}

/// (X type, MySQL type, collation) of each column.
fn shapes(columns: &[ColumnInfo]) -> Vec<(ColumnType, u32, u64)> {
    columns
        .iter()
        .map(|c| (c.x_type, c.mysql_type, c.collation))
        .collect()
}

/// A PRAGMA read on a connection of the engine's, outside the pool: clients cannot run PRAGMAs.
fn pragma(engine: &SqliteEngine, name: &str) -> rusqlite::types::Value {
    let conn = engine.open_conn().unwrap();
    conn.connection()
        .query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
        .unwrap()
}

#[test]
fn synchronous_is_full_and_journal_is_wal_by_default() {
    use rusqlite::types::Value as Sql;
    let (_dir, engine) = engine();
    assert_eq!(
        pragma(&engine, "synchronous"),
        Sql::Integer(Synchronous::Full.level())
    );
    assert_eq!(pragma(&engine, "journal_mode"), Sql::Text("wal".into()));
    assert_eq!(pragma(&engine, "foreign_keys"), Sql::Integer(1));

    let (_dir, engine) = engine_with(SqliteOptions {
        synchronous: Synchronous::Normal,
        ..SqliteOptions::default()
    });
    assert_eq!(pragma(&engine, "synchronous"), Sql::Integer(1));
    assert_eq!("extra".parse::<Synchronous>().unwrap(), Synchronous::Extra);
    assert!("fast".parse::<Synchronous>().is_err());
}

#[test]
fn mmap_is_off_by_default_and_covers_attached_databases_when_set() {
    use rusqlite::types::Value as Sql;
    let (_dir, engine) = engine();
    assert_eq!(pragma(&engine, "mmap_size"), Sql::Integer(0));

    let (_dir, engine) = engine_with(SqliteOptions {
        mmap_size: 1 << 20,
        ..SqliteOptions::default()
    });
    assert_eq!(pragma(&engine, "mmap_size"), Sql::Integer(1 << 20));
    let mut conn = engine.acquire().unwrap();
    exec(&mut *conn, "create database other");
    exec(
        &mut *conn,
        "create table other.t (id int primary key, v varchar(8))",
    );
    exec(&mut *conn, "insert into other.t values (1, 'mapped')");
    assert_eq!(
        rows(&mut *conn, "select v from other.t where id = 1"),
        vec![vec![Value::Bytes("mapped".into())]]
    );
    engine.release(conn);
    let mut conn = engine.open_conn().unwrap();
    // A statement attaches the databases created since the connection opened.
    exec(&mut conn, "select 1");
    let attached: i64 = conn
        .connection()
        .query_row("PRAGMA other.mmap_size", [], |row| row.get(0))
        .unwrap();
    assert_eq!(
        attached,
        1 << 20,
        "an attached database is mapped as main is"
    );
}

#[test]
fn declared_types_map_to_x_types() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(
        &mut *conn,
        "create table t (i INTEGER, ti TINYINT, b BOOLEAN, r REAL, d DECIMAL(10,2), \
         n NUMERIC(6,3), v VARCHAR(10), tx TEXT, bl BLOB, vb VARBINARY(4), dt DATETIME, \
         ts TIMESTAMP(3), da DATE, tm TIME(1), ub BIGINT UNSIGNED, y YEAR, bt BIT(4), fl FLOAT, \
         c CHAR(4), bn BINARY(3), j JSON)",
    );
    exec(
        &mut *conn,
        "insert into t values (-7, 1, 1, 2.5, 3.14159, '12.500', 'héllo', '', x'00ff', x'01', \
         '2024-02-29 13:14:15', '2024-01-02 03:04:05.678', '2024-12-31', '-12:34:56.5', \
         9223372036854775807, 24, 9, 0.1, 'ab  ', x'61', '[1, 2]')",
    );
    exec(
        &mut *conn,
        "insert into t values (null, null, null, null, null, null, null, null, null, null, null, \
         null, null, null, null, null, null, null, null, null, null)",
    );
    let (result, summary) = exec(&mut *conn, "select * from t");
    assert!(summary.has_result_set);
    let cols = result.columns.unwrap();
    use ColumnType as X;
    use mysql_type as M;
    assert_eq!(
        shapes(&cols),
        [
            (X::Sint, M::LONG, COLLATION_BINARY),
            (X::Sint, M::TINY, COLLATION_BINARY),
            (X::Sint, M::TINY, COLLATION_BINARY),
            (X::Double, M::DOUBLE, COLLATION_BINARY),
            (X::Decimal, M::NEWDECIMAL, COLLATION_BINARY),
            (X::Decimal, M::NEWDECIMAL, COLLATION_BINARY),
            (X::Bytes, M::VAR_STRING, COLLATION_UTF8MB4),
            // TEXT is MySQL's BLOB type of a character set.
            (X::Bytes, M::BLOB, COLLATION_UTF8MB4),
            (X::Bytes, M::BLOB, COLLATION_BINARY),
            (X::Bytes, M::VAR_STRING, COLLATION_BINARY),
            (X::DateTime, M::DATETIME, COLLATION_BINARY),
            (X::DateTime, M::TIMESTAMP, COLLATION_BINARY),
            (X::DateTime, M::DATE, COLLATION_BINARY),
            (X::Time, M::TIME, COLLATION_BINARY),
            (X::Uint, M::LONGLONG, COLLATION_BINARY),
            (X::Uint, M::YEAR, COLLATION_BINARY),
            (X::Bit, M::BIT, COLLATION_BINARY),
            (X::Float, M::FLOAT, COLLATION_BINARY),
            (X::Bytes, M::STRING, COLLATION_UTF8MB4),
            (X::Bytes, M::STRING, COLLATION_BINARY),
            (X::Bytes, M::BLOB, COLLATION_UTF8MB4),
        ]
    );
    assert_eq!(cols[0].name, "i");
    assert_eq!(cols[0].schema, "main");
    assert_eq!(cols[4].fractional_digits, 2);
    assert_eq!(cols[4].length, 12);
    // The scale is the declared one, not the values'.
    assert_eq!(cols[5].fractional_digits, 3);
    assert_eq!(cols[6].length, 40);
    assert_eq!(cols[10].fractional_digits, 0);
    assert_eq!(cols[11].fractional_digits, 3);
    assert_eq!(cols[13].fractional_digits, 1);
    assert_eq!(cols[16].length, 4);
    assert_eq!(
        result.rows[0],
        [
            Value::Sint(-7),
            Value::Sint(1),
            Value::Sint(1),
            Value::Double(2.5),
            dec("3.14"),
            dec("12.500"),
            text("héllo"),
            text(""),
            Value::Bytes(Bytes::from_static(b"\x00\xff")),
            Value::Bytes(Bytes::from_static(b"\x01")),
            Value::DateTime(XDateTime::new(2024, 2, 29, 13, 14, 15, 0).unwrap()),
            Value::DateTime(XDateTime::new(2024, 1, 2, 3, 4, 5, 678_000).unwrap()),
            Value::DateTime(XDateTime::date(2024, 12, 31).unwrap()),
            Value::Time(XTime::new(true, 12, 34, 56, 500_000).unwrap()),
            Value::Uint(i64::MAX as u64),
            Value::Uint(2024),
            Value::Bit(9),
            Value::Float(0.1),
            text("ab"),
            Value::Bytes(Bytes::from_static(b"a\0\0")),
            text("[1, 2]"),
        ]
    );
    assert!(result.rows[1].iter().all(Value::is_null));
}

#[test]
fn expression_columns_are_typed_as_mysql_types_them() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let (result, _) = exec(
        &mut *conn,
        "select 1 as a, 1.5, 'x', unhex('00'), null, 9223372036854775807, -0.0",
    );
    let cols = result.columns.unwrap();
    assert_eq!(cols[0].name, "a");
    assert_eq!(cols[0].schema, "", "expressions have no schema");
    assert_eq!(
        shapes(&cols),
        [
            (ColumnType::Sint, mysql_type::LONGLONG, COLLATION_BINARY),
            (
                ColumnType::Decimal,
                mysql_type::NEWDECIMAL,
                COLLATION_BINARY
            ),
            (ColumnType::Bytes, mysql_type::VAR_STRING, COLLATION_UTF8MB4),
            (ColumnType::Bytes, mysql_type::VAR_STRING, COLLATION_BINARY),
            (ColumnType::Bytes, mysql_type::NULL, COLLATION_BINARY),
            (ColumnType::Sint, mysql_type::LONGLONG, COLLATION_BINARY),
            (
                ColumnType::Decimal,
                mysql_type::NEWDECIMAL,
                COLLATION_BINARY
            ),
        ]
    );
    assert_eq!(cols[1].fractional_digits, 1);
    assert_eq!(
        result.rows,
        [[
            Value::Sint(1),
            dec("1.5"),
            text("x"),
            Value::Bytes(Bytes::from_static(b"\x00")),
            Value::Null,
            Value::Sint(i64::MAX),
            dec("0.0"),
        ]]
    );

    // A UNION's column has the type that holds every branch's values.
    let (result, _) = exec(
        &mut *conn,
        "select 1 union all select 2.5 union all select null",
    );
    assert_eq!(result.columns.unwrap()[0].x_type, ColumnType::Decimal);
    assert_eq!(result.rows, [[dec("1.0")], [dec("2.5")], [Value::Null]]);
    let (result, _) = exec(&mut *conn, "select 1 union all select 'b'");
    assert_eq!(
        shapes(&result.columns.unwrap()),
        [(ColumnType::Bytes, mysql_type::VAR_STRING, COLLATION_UTF8MB4)]
    );
    assert_eq!(result.rows, [[text("1")], [text("b")]]);
    // Text beside binary strings: MySQL's answer is a binary column, which is not implemented.
    let e = err(&mut *conn, "select 'a' union all select unhex('ff')");
    assert_eq!((e.code, &*e.sql_state), (1235, "42000"), "{e}");
}

/// An expression column is sent with the type MySQL gives the expression, so a value past the
/// first rows that differs from them still fits: a CASE of integers and a fraction is DECIMAL
/// with one digit in every row.
#[test]
fn an_expression_column_holds_every_row_of_its_type() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(&mut *conn, "create table n (k INT PRIMARY KEY)");
    exec(
        &mut *conn,
        "insert into n with recursive c(x) as (select 1 union all select x + 1 from c \
         where x < 100) select x from c",
    );
    let (result, _) = exec(
        &mut *conn,
        "select case when k = 99 then 7.9 else k end as v from n order by k",
    );
    let cols = result.columns.unwrap();
    assert_eq!(
        shapes(&cols),
        [(
            ColumnType::Decimal,
            mysql_type::NEWDECIMAL,
            COLLATION_BINARY
        )]
    );
    assert_eq!(cols[0].fractional_digits, 1);
    assert_eq!(result.rows.len(), 100);
    assert_eq!(result.rows[0], [dec("1.0")]);
    assert_eq!(result.rows[97], [dec("98.0")]);
    assert_eq!(result.rows[98], [dec("7.9")]);
    assert_eq!(result.rows[99], [dec("100.0")]);
}

/// A table in the database file that the node did not create (another tool made it, so it has
/// no MySQL definition): its values are never sent converted; a statement naming it is refused.
#[test]
fn a_table_made_by_another_tool_is_refused() {
    let (_dir, engine) = engine();
    {
        let raw = engine.open_conn().unwrap();
        raw.connection()
            .execute_batch(
                "create table m (d DATE, i INTEGER, f DOUBLE); \
                 insert into m values ('2000-01-01', 1, 1.5), ('garbage', 'text!', x'00');",
            )
            .unwrap();
    }
    let mut conn = engine.acquire().unwrap();
    for sql in [
        "select d from m",
        "select count(*) from m",
        "insert into m values ('2000-01-02', 2, 2.5)",
    ] {
        let e = err(&mut *conn, sql);
        assert_eq!((e.code, &*e.sql_state), (1235, "42000"), "{sql}: {e}");
        assert!(e.message.contains("table m,"), "names the table: {e}");
    }
    // The connection goes on with the node's own tables.
    exec(&mut *conn, "create table own (d DATE)");
    assert_eq!(count(&mut *conn, "own"), 0);
}

#[test]
fn null_columns_of_long_results_are_text() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let (result, _) = exec(
        &mut *conn,
        "with recursive c(x) as (select 1 union all select x + 1 from c where x < 100) \
         select case when x = 100 then 'late' end from c",
    );
    assert_eq!(
        shapes(&result.columns.unwrap()),
        [(ColumnType::Bytes, mysql_type::VAR_STRING, COLLATION_UTF8MB4)]
    );
    assert_eq!(result.rows.len(), 100);
    assert_eq!(result.rows[99], [text("late")]);
}

#[test]
fn arguments_bind_in_order() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(
        &mut *conn,
        "create table a (i INTEGER, u BIGINT, r REAL, f REAL, s TEXT, b BLOB, d DECIMAL(6,2), \
         dt DATETIME(6), tm TIME, n TEXT)",
    );
    let args = [
        Value::Sint(-5),
        Value::Uint(u64::try_from(i64::MAX).unwrap()),
        Value::Double(0.25),
        Value::Float(0.1),
        text("héllo"),
        Value::Bytes(Bytes::from_static(b"\xff\xfe")),
        dec("-1.5"),
        Value::DateTime(XDateTime::new(2020, 5, 6, 7, 8, 9, 10).unwrap()),
        Value::Time(XTime::new(false, 100, 0, 1, 0).unwrap()),
        Value::Null,
    ];
    let (_, summary) = exec_args(
        &mut *conn,
        "insert into a values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &args,
    )
    .unwrap();
    assert_eq!(summary.rows_affected, 1);
    assert_eq!(
        rows(&mut *conn, "select * from a"),
        [[
            Value::Sint(-5),
            Value::Sint(i64::MAX),
            Value::Double(0.25),
            Value::Double(0.1),
            text("héllo"),
            Value::Bytes(Bytes::from_static(b"\xff\xfe")),
            dec("-1.50"),
            Value::DateTime(XDateTime::new(2020, 5, 6, 7, 8, 9, 10).unwrap()),
            Value::Time(XTime::new(false, 100, 0, 1, 0).unwrap()),
            Value::Null,
        ]]
    );
    // Text is stored as text, bytes as a blob.
    let stored: (String, String) = engine
        .open_conn()
        .unwrap()
        .connection()
        .query_row("select typeof(s), typeof(b) from a", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!(stored, ("text".to_owned(), "blob".to_owned()));
    // Text arguments compare equal to text columns.
    let (result, _) =
        exec_args(&mut *conn, "select i from a where s = ?", &[text("héllo")]).unwrap();
    assert_eq!(result.rows, [[Value::Sint(-5)]]);

    let wrong = exec_args(&mut *conn, "select ?, ?", &[Value::Sint(1)]).unwrap_err();
    assert_eq!((wrong.code, &*wrong.sql_state), (1210, "HY000"));
    // V_UINT above 2^63-1 binds as its exact digits.
    let (result, _) = exec_args(
        &mut *conn,
        "select ? = 18446744073709551615",
        &[Value::Uint(u64::MAX)],
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Sint(1)]]);
    // A BIGINT UNSIGNED column holds values up to 2^63-1: one past them is refused, never
    // stored as another value.
    exec(&mut *conn, "create table big (u BIGINT UNSIGNED)");
    let e = exec_args(
        &mut *conn,
        "insert into big values (?)",
        &[Value::Uint(u64::MAX)],
    )
    .unwrap_err();
    assert_eq!((e.code, &*e.sql_state), (1235, "42000"), "{e}");
    exec_args(
        &mut *conn,
        "insert into big values (?)",
        &[Value::Uint(i64::MAX as u64)],
    )
    .unwrap();
    let (result, _) = exec_args(
        &mut *conn,
        "select u from big where u = ?",
        &[Value::Uint(i64::MAX as u64)],
    )
    .unwrap();
    assert_eq!(result.rows, [[Value::Uint(i64::MAX as u64)]]);
}

#[test]
fn dml_summaries_count_rows_and_insert_ids() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let (_, s) = exec(
        &mut *conn,
        "create table t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    );
    assert_eq!(s, ExecSummary::default());
    let (_, s) = exec(&mut *conn, "insert into t (v) values (10), (20), (30)");
    assert_eq!(
        s,
        ExecSummary {
            has_result_set: false,
            rows_affected: 3,
            last_insert_id: Some(1)
        }
    );
    // As in MySQL: the first id of a multi-row insert, in the notice and in LAST_INSERT_ID().
    assert_eq!(
        rows(&mut *conn, "select last_insert_id()"),
        [[Value::Sint(1)]]
    );
    // A table without an AUTO_INCREMENT column reports no id.
    exec(&mut *conn, "create table plain (v INT)");
    let (_, s) = exec(&mut *conn, "insert into plain values (1), (2)");
    assert_eq!((s.rows_affected, s.last_insert_id), (2, None));
    let (_, s) = exec(&mut *conn, "insert into t (id, v) values (40, 1)");
    assert_eq!(
        s.last_insert_id,
        Some(40),
        "an explicit id is reported as MySQL does"
    );
    exec(&mut *conn, "delete from t where id = 40");
    // Another connection recreates a table without an id column: no id from it any more.
    exec(
        &mut *conn,
        "create table swap (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    );
    assert_eq!(
        exec(&mut *conn, "insert into swap (v) values (1)")
            .1
            .last_insert_id,
        Some(1)
    );
    let mut other = engine.acquire().unwrap();
    exec(&mut *other, "drop table swap");
    exec(&mut *other, "create table swap (v INT)");
    assert_eq!(
        exec(&mut *conn, "insert into swap (v) values (1)")
            .1
            .last_insert_id,
        None
    );
    engine.release(other);
    let (_, s) = exec(&mut *conn, "update t set v = v + 1 where v >= 20");
    assert_eq!((s.rows_affected, s.last_insert_id), (2, None));
    let (_, s) = exec(&mut *conn, "update t set v = 0 where v > 1000");
    assert_eq!(s.rows_affected, 0);
    // DDL after DML reports 0, not the previous statement's count.
    let (_, s) = exec(&mut *conn, "create index tv on t (v)");
    assert_eq!(s.rows_affected, 0);
    let (_, s) = exec(&mut *conn, "delete from t");
    assert_eq!(s.rows_affected, 3);
    let (result, s) = exec(&mut *conn, "select * from t");
    assert!(s.has_result_set && result.rows.is_empty());
    assert_eq!(s.rows_affected, 0);
    // The table is empty, but the counter goes on past the highest id it held (40).
    let (_, s) = exec(&mut *conn, "insert into t (v) values (5)");
    assert_eq!((s.rows_affected, s.last_insert_id), (1, Some(41)));
    assert_eq!(rows(&mut *conn, "select id from t"), [[Value::Sint(41)]]);
}

fn autocommit_off_opens_transactions_implicitly(kind: Kind) {
    let (_dir, engine) = engine_on(kind);
    let mut a = engine.acquire().unwrap();
    let mut b = engine.acquire().unwrap();
    exec(&mut *a, "create table t (v INTEGER)");
    assert!(!a.holds_session_state());

    let (_, s) = exec(&mut *a, "SET autocommit = 0");
    assert_eq!(s, ExecSummary::default());
    assert!(
        a.holds_session_state(),
        "autocommit = 0 pins the connection"
    );
    exec(&mut *a, "insert into t values (1)");
    assert_eq!(count(&mut *b, "t"), 0, "not committed yet");
    exec(&mut *a, "COMMIT");
    assert_eq!(count(&mut *b, "t"), 1);
    assert!(a.holds_session_state());

    // The next statement opens the next transaction; ROLLBACK ends it.
    exec(&mut *a, "insert into t values (2)");
    exec(&mut *a, "rollback work;");
    assert_eq!(count(&mut *b, "t"), 1);

    // Going back to autocommit = 1 commits what is open.
    exec(&mut *a, "insert into t values (3)");
    exec(&mut *a, "set @@session.autocommit = ON");
    assert_eq!(count(&mut *b, "t"), 2);
    assert!(!a.holds_session_state());
    exec(&mut *a, "insert into t values (4)");
    assert_eq!(count(&mut *b, "t"), 3, "autocommit again");

    // SET statements never open a transaction.
    exec(&mut *a, "set autocommit=0");
    exec(&mut *a, "SET NAMES utf8mb4");
    exec(
        &mut *a,
        "SET SESSION sql_mode = 'STRICT_TRANS_TABLES', time_zone = 'SYSTEM'",
    );
    assert!(a.holds_session_state());
    let bad = err(&mut *a, "set autocommit = 2");
    assert_eq!((bad.code, &*bad.sql_state), (1231, "42000"));
    a.reset().unwrap();
    assert!(!a.holds_session_state());
}

fn start_transaction_commit_and_rollback(kind: Kind) {
    let (_dir, engine) = engine_on(kind);
    let mut a = engine.acquire().unwrap();
    let mut b = engine.acquire().unwrap();
    exec(&mut *a, "create table t (v INTEGER)");
    exec(&mut *a, "START TRANSACTION");
    assert!(a.holds_session_state());
    exec(&mut *a, "insert into t values (1)");
    exec(&mut *a, "ROLLBACK");
    assert!(!a.holds_session_state());
    assert_eq!(count(&mut *b, "t"), 0);

    exec(&mut *a, "begin work");
    exec(&mut *a, "insert into t values (1)");
    // As in MySQL, BEGIN inside a transaction commits it first.
    exec(&mut *a, "start transaction read write");
    assert_eq!(count(&mut *b, "t"), 1);
    exec(&mut *a, "insert into t values (2)");
    exec(&mut *a, "COMMIT WORK ;");
    assert_eq!(count(&mut *b, "t"), 2);
    // COMMIT and ROLLBACK without a transaction do nothing.
    exec(&mut *a, "commit");
    exec(&mut *a, "rollback");
    exec(
        &mut *a,
        "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT",
    );
    assert_eq!(count(&mut *a, "t"), 2);
    // MySQL has no END: a syntax error, which leaves the transaction open.
    assert_eq!(err(&mut *a, "end").code, 1064);
    assert!(a.holds_session_state());
    exec(&mut *a, "commit");
    assert!(!a.holds_session_state());
}

#[test]
fn connection_id_database_and_version() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    conn.set_connection_id(4242);
    let (result, _) = exec(&mut *conn, "select connection_id()");
    assert_eq!(result.columns.unwrap()[0].x_type, ColumnType::Sint);
    assert_eq!(result.rows, [[Value::Sint(4242)]]);
    assert_eq!(
        rows(&mut *conn, "SELECT database(), version()"),
        [[text("main"), text(&engine.options().server_version)]]
    );
    assert!(engine.version().starts_with("SQLite 3."));
    assert_eq!(engine.name(), "sqlite");
}

#[test]
fn error_codes_follow_mysql() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(
        &mut *conn,
        "create table t (id INTEGER PRIMARY KEY, u TEXT UNIQUE, nn TEXT NOT NULL)",
    );
    exec(&mut *conn, "insert into t values (1, 'a', 'x')");
    let cases: &[(&str, u32, &str, &str)] = &[
        // MySQL's code and state; the message names the key's columns, not the value.
        ("insert into t values (1, 'b', 'x')", 1062, "23000", "t.id"),
        ("insert into t values (2, 'a', 'x')", 1062, "23000", "t.u"),
        ("selec 1", 1064, "42000", "near 'selec 1' at line 1"),
        ("select (1", 1064, "42000", "near '' at line 1"),
        ("select 1; select 2", 1064, "42000", "several"),
        (" ; ", 1065, "42000", "Query was empty"),
        (
            "select * from nope",
            1146,
            "42S02",
            "Table 'main.nope' doesn't exist",
        ),
        ("select nope from t", 1054, "42S22", "Unknown column 'nope'"),
        (
            "insert into t (id, nn) values (cast('garbage' as date), 1)",
            1292,
            "22007",
            "Incorrect datetime value: 'garbage'",
        ),
        (
            "insert into t values (3, 'c', null)",
            1048,
            "23000",
            "Column 'nn' cannot be null",
        ),
    ];
    for &(sql, code, state, words) in cases {
        let e = err(&mut *conn, sql);
        assert_eq!((e.code, &*e.sql_state), (code, state), "{sql}: {e}");
        assert!(e.message.contains(words), "{sql}: {e}");
        assert_eq!(e.to_wire().code, code);
    }
    // A trailing semicolon, or a semicolon in a literal, is still one statement.
    assert_eq!(rows(&mut *conn, "select ';' ; "), [[text(";")]]);
    // The connection stays usable after every error.
    assert_eq!(count(&mut *conn, "t"), 1);
}

#[test]
fn schema_names_select_databases() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let mut result = CollectedResult::default();
    let e = conn
        .execute("select 1", &[], Some("shop"), &mut result)
        .unwrap_err();
    assert_eq!(
        (e.code, &*e.sql_state, &*e.message),
        (1049, "42000", "Unknown database 'shop'")
    );
    assert!(conn.execute("select 1", &[], Some(""), &mut result).is_ok());
    assert!(
        conn.execute("select 1", &[], Some("main"), &mut result)
            .is_ok()
    );

    exec(&mut *conn, "create database shop");
    assert!(
        !conn.holds_session_state(),
        "databases are the node's, not the session's"
    );
    exec(&mut *conn, "create table shop.items (name TEXT)");
    let mut result = CollectedResult::default();
    conn.execute(
        "insert into items values ('pen')",
        &[],
        Some("shop"),
        &mut result,
    )
    .unwrap();
    let mut result = CollectedResult::default();
    conn.execute(
        "select database(), name from shop.items",
        &[],
        Some("SHOP"),
        &mut result,
    )
    .unwrap();
    assert_eq!(result.rows, [[text("shop"), text("pen")]]);
    assert_eq!(result.columns.unwrap()[1].schema, "shop");
    // The unqualified name was written in shop, not main.
    assert!(err(&mut *conn, "select * from main.items").code == 1146);

    exec(&mut *conn, "drop database shop");
    let e = conn
        .execute(
            "select 1",
            &[],
            Some("shop"),
            &mut CollectedResult::default(),
        )
        .unwrap_err();
    assert_eq!(e.code, 1049);
}

#[test]
fn temporary_tables_hold_session_state_until_reset() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(&mut *conn, "create table base (v INTEGER)");
    assert!(!conn.holds_session_state());
    exec(&mut *conn, "create temporary table scratch (v INTEGER)");
    assert!(conn.holds_session_state());
    exec(&mut *conn, "drop table scratch");
    assert!(!conn.holds_session_state());

    exec(&mut *conn, "create temporary table scratch (v INTEGER)");
    exec(&mut *conn, "insert into scratch values (1)");
    exec(&mut *conn, "begin");
    exec(&mut *conn, "insert into base values (1)");
    assert!(conn.holds_session_state());
    conn.reset().unwrap();
    assert!(!conn.holds_session_state());
    assert_eq!(count(&mut *conn, "base"), 0, "reset rolled back");
    assert_eq!(
        err(&mut *conn, "select count(*) from scratch").code,
        1146,
        "temporary tables dropped"
    );

    // Released with state, a connection is reset before it is pooled.
    exec(&mut *conn, "create temporary table again (v INTEGER)");
    exec(&mut *conn, "begin");
    engine.release(conn);
    let mut conn = engine.acquire().unwrap();
    assert!(!conn.holds_session_state());
    assert_eq!(err(&mut *conn, "select count(*) from again").code, 1146);
}

#[test]
fn pool_reuses_idle_connections() {
    let (_dir, engine) = engine_with(SqliteOptions {
        max_idle: 2,
        ..SqliteOptions::default()
    });
    assert_eq!(engine.idle_connections(), 1);
    let conns: Vec<_> = (0..4).map(|_| engine.acquire().unwrap()).collect();
    assert_eq!(engine.connections_opened(), 4);
    for conn in conns {
        engine.release(conn);
    }
    assert_eq!(engine.idle_connections(), 2);
    let mut conn = engine.acquire().unwrap();
    exec(&mut *conn, "select 1");
    engine.release(conn);
    assert_eq!(
        engine.connections_opened(),
        4,
        "no new connection was needed"
    );
}

/// Interrupts every 50 ms, from 200 ms on, until `done` is set: a single early interrupt could land
/// before the statement starts (a no-op) on a loaded machine and leave the test waiting.
fn keep_interrupting(
    interrupter: Arc<dyn Interrupt>,
) -> (
    Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<()>,
) {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killer = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            while !done.load(Ordering::SeqCst) {
                interrupter.interrupt();
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    (done, killer)
}

#[test]
fn interrupt_stops_a_long_query() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let interrupter = conn.interrupter();
    let (done, killer) = keep_interrupting(interrupter);
    let started = Instant::now();
    let e = err(
        &mut *conn,
        "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c",
    );
    done.store(true, Ordering::SeqCst);
    killer.join().unwrap();
    assert_eq!((e.code, &*e.sql_state), (1317, "70100"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // The session stays usable, and an old kill does not hit the next statement.
    assert_eq!(rows(&mut *conn, "select 2"), [[Value::Sint(2)]]);
}

fn a_kill_before_the_statement_is_for_it_and_clear_forgets_it(kind: Kind) {
    let (_dir, engine) = engine_on(kind);
    let mut conn = engine.acquire().unwrap();
    // A kill that lands between the session publishing the interrupter and the engine starting
    // stops the statement: starting does not clear the flag.
    // (Bounded, a second or so, so that a lost kill fails the test instead of hanging it.)
    conn.interrupter().interrupt();
    let e = err(
        &mut *conn,
        match kind {
            Kind::Sqlite => {
                "with recursive c(x) as (select 1 union all select x + 1 from c \
                 where x < 2000000) select count(*) from c"
            }
            Kind::Mysql => "select count(*) from seq_1_to_2000 a, seq_1_to_2000 b",
        },
    );
    assert_eq!(e.code, 1317, "{e}");
    // Consumed by the statement it stopped.
    assert_eq!(rows(&mut *conn, "select 1"), [[Value::Sint(1)]]);
    // A kill meant for a statement that is over is forgotten by `clear`, as the session does
    // when it registers the next one.
    conn.interrupter().interrupt();
    conn.interrupter().clear();
    assert_eq!(rows(&mut *conn, "select 2"), [[Value::Sint(2)]]);
}

/// A wait hook that counts the waits it marks and the guards dropped.
fn counting_hook() -> (WaitHook, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    struct Guard(Arc<AtomicUsize>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let entered = Arc::new(AtomicUsize::new(0));
    let left = Arc::new(AtomicUsize::new(0));
    let (e, l) = (Arc::clone(&entered), Arc::clone(&left));
    let hook: WaitHook = Arc::new(move || {
        e.fetch_add(1, Ordering::SeqCst);
        Box::new(Guard(Arc::clone(&l))) as Box<dyn Any>
    });
    (hook, entered, left)
}

#[test]
fn lock_wait_runs_inside_the_wait_hook() {
    let (_dir, engine) = engine();
    let mut holder = engine.acquire().unwrap();
    let mut waiter = engine.acquire().unwrap();
    exec(&mut *holder, "create table t (v INTEGER)");
    exec(&mut *holder, "begin");
    exec(&mut *holder, "insert into t values (1)");
    assert!(holder.holds_session_state());

    let (hook, entered, left) = counting_hook();
    waiter.set_wait_hook(Some(hook));
    let waiting = std::thread::spawn(move || {
        let result = exec_args(&mut *waiter, "insert into t values (2)", &[]);
        (result, Instant::now(), waiter)
    });
    // The hook is called on the first busy callback: wait for it rather than for a guessed time.
    let deadline = Instant::now() + Duration::from_secs(10);
    while entered.load(Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < deadline,
            "the waiter never reached the lock wait"
        );
        std::thread::yield_now();
    }
    assert_eq!(left.load(Ordering::SeqCst), 0, "the waiter still waits");
    let commit_started = Instant::now();
    exec(&mut *holder, "commit");
    let (result, finished, mut waiter) = waiting.join().unwrap();
    let (_, summary) = result.unwrap();
    assert_eq!(summary.rows_affected, 1);
    assert!(
        finished >= commit_started,
        "the insert finished before the lock it waited for was released"
    );
    assert_eq!(entered.load(Ordering::SeqCst), 1, "one wait, one hook call");
    assert_eq!(
        left.load(Ordering::SeqCst),
        1,
        "the guard ends with the statement"
    );
    assert_eq!(count(&mut *waiter, "t"), 2);
    // Statements that do not wait never call the hook.
    exec(&mut *waiter, "insert into t values (3)");
    assert_eq!(entered.load(Ordering::SeqCst), 1);
    engine.release(waiter);
}

#[test]
fn lock_wait_times_out_with_1205() {
    let (_dir, engine) = engine_with(SqliteOptions {
        busy_timeout: Duration::from_millis(200),
        ..SqliteOptions::default()
    });
    let mut holder = engine.acquire().unwrap();
    let mut waiter = engine.acquire().unwrap();
    exec(&mut *holder, "create table t (v INTEGER)");
    exec(&mut *holder, "begin");
    exec(&mut *holder, "insert into t values (0)");
    let (hook, entered, left) = counting_hook();
    waiter.set_wait_hook(Some(hook));
    let started = Instant::now();
    let e = err(&mut *waiter, "insert into t values (1)");
    assert_eq!((e.code, &*e.sql_state), (1205, "HY000"), "{e}");
    assert!(e.message.contains("locked"), "SQLite's words: {e}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(190) && waited < Duration::from_secs(2),
        "{waited:?}"
    );
    assert_eq!(
        (entered.load(Ordering::SeqCst), left.load(Ordering::SeqCst)),
        (1, 1)
    );
    // Reads are not blocked by the writer (WAL).
    assert_eq!(count(&mut *waiter, "t"), 0);
}

#[test]
fn kill_during_lock_wait_is_1317() {
    let (_dir, engine) = engine();
    let mut holder = engine.acquire().unwrap();
    let mut waiter = engine.acquire().unwrap();
    exec(&mut *holder, "create table t (v INTEGER)");
    exec(&mut *holder, "begin");
    exec(&mut *holder, "insert into t values (0)");
    let interrupter = waiter.interrupter();
    let (done, killer) = keep_interrupting(interrupter);
    let started = Instant::now();
    let e = err(&mut *waiter, "insert into t values (1)");
    done.store(true, Ordering::SeqCst);
    killer.join().unwrap();
    assert_eq!(e.code, 1317, "{e}");
    assert!(
        started.elapsed() < Duration::from_millis(4500),
        "the kill lands before the 5 s timeout"
    );
    exec(&mut *holder, "commit");
    exec(&mut *waiter, "insert into t values (1)");
}

/// A sink that refuses rows after the first few, as a killed stream does.
#[derive(Debug, Default)]
struct RefusingSink {
    rows: usize,
}

impl ResultSink for RefusingSink {
    fn metadata(&mut self, _columns: &[ColumnInfo]) -> Result<(), SinkError> {
        Ok(())
    }

    fn row(&mut self, _row: &[Value]) -> Result<(), SinkError> {
        self.rows += 1;
        if self.rows > 3 {
            Err(SinkError::Interrupted)
        } else {
            Ok(())
        }
    }
}

#[test]
fn sink_errors_stop_the_statement() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    let mut sink = RefusingSink::default();
    let e = conn
        .execute(
            "with recursive c(x) as (select 1 union all select x + 1 from c) select x from c",
            &[],
            None,
            &mut sink,
        )
        .unwrap_err();
    assert_eq!(e.code, 1317);
    assert_eq!(sink.rows, 4);
    assert_eq!(rows(&mut *conn, "select 1"), [[Value::Sint(1)]]);
}

#[test]
fn checkpoint_truncates_the_wal() {
    let (dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(&mut *conn, "create table t (v LONGBLOB)");
    exec(&mut *conn, "insert into t values (repeat('x', 100000))");
    engine.release(conn);
    let wal = dir.path().join("test.db-wal");
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    engine.checkpoint().unwrap();
    assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
}

/// A clock the test moves by hand.
#[derive(Debug)]
struct ManualClock(std::sync::Mutex<Instant>);

impl ManualClock {
    fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.0.lock().unwrap()
    }
}

#[test]
fn pooled_connections_are_replaced_after_their_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock(std::sync::Mutex::new(Instant::now())));
    let engine = SqliteEngine::open_with_clock(
        &dir.path().join("test.db"),
        SqliteOptions::default(),
        Arc::clone(&clock) as Arc<dyn Clock>,
    )
    .unwrap();
    // Without a lifetime, a released connection is pooled and reused.
    let conn = engine.acquire().unwrap();
    engine.release(conn);
    let idle = engine.idle_connections();
    assert!(idle >= 1);

    engine.set_connection_lifetime(Duration::from_millis(30));
    clock.advance(Duration::from_millis(29));
    assert_eq!(engine.sweep_expired(), 0, "younger than the lifetime");
    clock.advance(Duration::from_millis(1));
    // Expired idle connections are swept, from the lifetime on...
    assert_eq!(engine.sweep_expired(), idle);
    assert_eq!(engine.idle_connections(), 0);
    // ...and an expired connection in use is closed on release instead of pooled.
    let conn = engine.acquire().unwrap();
    clock.advance(Duration::from_millis(30));
    engine.release(conn);
    assert_eq!(engine.idle_connections(), 0);
    // A young one is still pooled.
    let conn = engine.acquire().unwrap();
    engine.release(conn);
    assert_eq!(engine.idle_connections(), 1);
}

#[test]
fn explain_of_a_statement_is_refused_as_unsupported() {
    let (_dir, engine) = engine();
    let mut conn = engine.acquire().unwrap();
    exec(&mut *conn, "create table ex (a int primary key)");
    let codes: Vec<u32> = [
        "explain select * from ex",
        "EXPLAIN QUERY PLAN select * from ex where a = 1",
    ]
    .iter()
    .map(|sql| err(&mut *conn, sql).code)
    .collect();
    assert_eq!(codes, [1235, 1235]);
}

/// A view redefined, dropped or created on one connection is read as it now is on another
/// that read it before, and a reopened engine still has it.
#[test]
fn a_view_changed_on_one_connection_is_read_anew_on_another() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.db");
    {
        let engine = SqliteEngine::open(&path, SqliteOptions::default()).unwrap();
        let mut a = engine.acquire().unwrap();
        let mut b = engine.acquire().unwrap();
        exec(&mut *a, "create table t (a int, price decimal(6,2))");
        exec(&mut *a, "insert into t values (1, 1.25), (2, 2.50)");
        exec(&mut *a, "create view v as select a, price from t");
        assert_eq!(rows(&mut *b, "select sum(price) from v"), [[dec("3.75")]]);
        exec(
            &mut *a,
            "create or replace view v as select a, price * 2 as price from t",
        );
        assert_eq!(rows(&mut *b, "select sum(price) from v"), [[dec("7.50")]]);
        exec(&mut *a, "drop view v");
        assert_eq!(err(&mut *b, "select sum(price) from v").code, 1146);
        exec(&mut *a, "create view v as select a from t where a > 1");
        assert_eq!(rows(&mut *b, "select count(*) from v"), [[Value::Sint(1)]]);
    }
    let engine = SqliteEngine::open(&path, SqliteOptions::default()).unwrap();
    let mut c = engine.acquire().unwrap();
    assert_eq!(rows(&mut *c, "select * from v"), [[Value::Sint(2)]]);
}
