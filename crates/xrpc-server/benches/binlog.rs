//! The binary log's cost per frame: off (the hooks' one relaxed load and branch), and on with
//! `{h}` and `*` into a sink that discards (the copy, the sequence number and the queue offer).
//!
//! The node's hooks (`binlog::received`, `binlog::sent`, …) are `if binlog::enabled() { … }`
//! around an out-of-line call; `off` measures exactly that check against the process's flag.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xrpc_proto::binlog::BinlogEntry;
use xrpc_server::binlog::{self, Binlog, Direction, Sink};

struct Discard;

impl Sink for Discard {
    fn write(&mut self, _: &BinlogEntry) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn per_frame(c: &mut Criterion) {
    let mut g = c.benchmark_group("binlog_per_frame");
    g.throughput(Throughput::Elements(1));
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    let body = vec![7u8; 100];
    let peer = Some("127.0.0.1:4000".parse().unwrap());

    assert!(!binlog::enabled());
    g.bench_function("off", |b| {
        b.iter(|| {
            if binlog::enabled() {
                binlog::global().record_frame(
                    1,
                    peer,
                    Direction::Received,
                    1,
                    101,
                    black_box(&body),
                );
            }
        })
    });

    for config in ["*{h}", "*"] {
        let log = Binlog::new(1 << 16);
        log.install_sink(Box::new(Discard));
        log.configure(config).unwrap();
        g.bench_function(format!("on {config} (100-byte payload)"), |b| {
            b.iter(|| log.record_frame(1, peer, Direction::Received, 1, 101, black_box(&body)))
        });
        log.flush();
    }
    g.finish();
}

criterion_group!(benches, per_frame);
criterion_main!(benches);
