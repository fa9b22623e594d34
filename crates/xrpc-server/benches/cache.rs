//! Digest-cache micro-benchmarks: a hit, a miss, and an insert that evicts, on the default cache
//! (16 shards, 1024 entries), from one thread. They measure the LRU inside a shard plus the shard
//! lock and hashing, which is what a digest-only request pays.

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xrpc_server::cache::RequestCache;

/// Digests in the working set; the cache holds 1024, so lookups of these all hit.
const HOT: usize = 512;

fn digest(i: usize) -> Bytes {
    // 16 bytes, like the protocol's digests.
    Bytes::from(format!("digest-{i:09}").into_bytes())
}

fn cache(c: &mut Criterion) {
    let mut g = c.benchmark_group("cache");
    g.throughput(Throughput::Elements(1));
    let stmt = Bytes::from_static(b"select c from sbtest1 where id = ?");

    let warm = RequestCache::default();
    let hot: Vec<Bytes> = (0..HOT).map(digest).collect();
    for d in &hot {
        warm.insert(d.clone(), stmt.clone());
    }
    let mut i = 0;
    g.bench_function("get_hit", |b| {
        b.iter(|| {
            i = (i + 1) % HOT;
            black_box(warm.get(&hot[i]))
        })
    });
    let absent = digest(usize::MAX / 2);
    g.bench_function("get_miss", |b| b.iter(|| black_box(warm.get(&absent))));

    // Every insert is a new digest into a full cache: each one evicts.
    let full = RequestCache::default();
    let fresh: Vec<Bytes> = (0..1 << 16).map(digest).collect();
    for d in &fresh[..2048] {
        full.insert(d.clone(), stmt.clone());
    }
    let mut n = 2048;
    g.bench_function("insert_evicting", |b| {
        b.iter(|| {
            n = (n + 1) % fresh.len();
            black_box(full.insert(fresh[n].clone(), stmt.clone()))
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = cache
}
criterion_main!(benches);
