//! Encode-path micro-benchmarks: the frames of a one-row result, as a session writes them for
//! `select 1` (one BIGINT column) and for a point select (one CHAR(120) column of a table):
//! ColumnMetaData, Row, FetchDone and StmtExecuteOk into a reused output buffer, through
//! [`ResultEncoder`], the session layer's result sink. This is the node's own share of a
//! `select 1`, without the engine, the network or the scheduler; docs/ARCHITECTURE.md's per-request
//! cost model compares it with the server CPU per request measured end to end.

use std::hint::black_box;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xrpc_proto::frame::HeaderFormat;
use xrpc_proto::value::{ColumnType, Value};
use xrpc_server::encode::ResultEncoder;
use xrpc_server::result::{ColumnInfo, ExecSummary, ResultSink, mysql_type};

fn encode_one_row(columns: &[ColumnInfo], row: &[Value], out: &mut Vec<u8>) -> usize {
    out.clear();
    let mut enc = ResultEncoder::new(&mut *out, HeaderFormat::Standard, 7, false);
    enc.metadata(columns).expect("metadata");
    enc.row(row).expect("row");
    enc.finish_result(&ExecSummary {
        has_result_set: true,
        ..ExecSummary::default()
    })
    .expect("finish");
    out.len()
}

fn encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(1));
    let mut out = Vec::with_capacity(4096);

    let select1 = [ColumnInfo::new("1", ColumnType::Sint, mysql_type::LONGLONG)];
    let one = [Value::Sint(1)];
    assert!(encode_one_row(&select1, &one, &mut out) > 0);
    g.bench_function("select1_one_row", |b| {
        b.iter(|| {
            black_box(encode_one_row(
                black_box(&select1),
                black_box(&one),
                &mut out,
            ))
        })
    });

    let mut c_col = ColumnInfo::new("c", ColumnType::Bytes, mysql_type::STRING);
    c_col.original_name = "c".into();
    c_col.table = "sbtest1".into();
    c_col.original_table = "sbtest1".into();
    c_col.schema = "main".into();
    c_col.length = 480;
    let point = [c_col];
    let value = [Value::Bytes(Bytes::from(vec![b'7'; 120]))];
    g.bench_function("point_select_one_row", |b| {
        b.iter(|| {
            black_box(encode_one_row(
                black_box(&point),
                black_box(&value),
                &mut out,
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, encode);
criterion_main!(benches);
