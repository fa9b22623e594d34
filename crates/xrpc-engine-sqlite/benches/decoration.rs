//! What the column decoration (each column's table, origin names, schema and key flags, read
//! from the declarations) costs a 6-column point SELECT by primary key: the same query with the
//! decoration and without it, on one engine connection.
//!
//! ```sh
//! cargo bench -p xrpc-engine-sqlite --features bench --bench decoration
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use xrpc_engine::Engine;
use xrpc_engine::result::{ColumnInfo, ResultSink, SinkError};
use xrpc_engine_sqlite::SqliteEngine;
use xrpc_proto::value::Value;

/// Counts what it is given, so nothing is optimised away.
struct Discard(usize);

impl ResultSink for Discard {
    fn metadata(&mut self, columns: &[ColumnInfo]) -> Result<(), SinkError> {
        self.0 += columns.len();
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SinkError> {
        self.0 += row.len();
        Ok(())
    }
}

fn decoration(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::open(&dir.path().join("cost.db"), Default::default()).unwrap();
    let mut conn = engine.acquire().unwrap();
    let mut sink = Discard(0);
    conn.execute(
        "create table t6 (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20), c DOUBLE, \
         d DATETIME, e DECIMAL(10,2))",
        &[],
        None,
        &mut sink,
    )
    .unwrap();
    conn.execute("begin", &[], None, &mut sink).unwrap();
    for id in 1..=1000 {
        conn.execute(
            "insert into t6 values (?, ?, 'name', 1.5, '2024-02-29 10:11:12', '12.50')",
            &[Value::Sint(id), Value::Sint(id * 7)],
            None,
            &mut sink,
        )
        .unwrap();
    }
    conn.execute("commit", &[], None, &mut sink).unwrap();
    let sql = "select id, a, b, c, d, e from t6 where id = ?";
    let mut group = c.benchmark_group("point_select_6_columns");
    for (name, skip) in [("decorated", false), ("undecorated", true)] {
        xrpc_engine_sqlite::skip_decoration(skip);
        let mut id = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                id = id % 1000 + 1;
                conn.execute(sql, &[Value::Sint(id)], None, &mut sink)
                    .unwrap()
            })
        });
    }
    xrpc_engine_sqlite::skip_decoration(false);
    group.finish();
    assert!(sink.0 > 0);
}

criterion_group!(benches, decoration);
criterion_main!(benches);
