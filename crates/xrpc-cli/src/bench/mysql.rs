//! The `mysql://` target: the same workload against MariaDB or MySQL through the `mysql` crate.
//!
//! # What it models
//!
//! The XRPC article's baseline is JDBC to MySQL: one connection per concurrent client, each
//! driven by its own blocking thread. This driver does exactly that: `concurrency` threads (with
//! 256 KiB stacks, so 4096 of them fit), each opening its own `mysql::Conn` and running its
//! [`Script`] statement by statement. Statements with arguments go through the binary protocol
//! as prepared statements (the crate caches them per connection, as sysbench and JDBC with
//! `useServerPrepStmts` do); statements without (`SELECT 1`, `BEGIN`, `COMMIT`) go as text
//! queries. Every row is read off the wire and dropped. There is no pipelining in the classic
//! protocol, so `--pipeline-depth` does not apply here.
//!
//! Thousands of blocking threads cost the load generator context switches; that cost is part of
//! what the article measured for JDBC, and the generator's CPU share is reported with the figures
//! so it can be seen.
//!
//! # Recording
//!
//! A per-thread histogram would cost hundreds of KiB × thousands of threads, so each thread
//! buffers its samples and merges every `FLUSH_EVERY` (128) of them into one of the step's shared
//! recorder shards (`thread mod shards`), under that shard's lock.

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, Params, Value};

use super::stats::{Batch, thread_cpu};
use super::workload::{Arg, Script};
use super::{Started, StepSpec, spawn_load};

/// Samples a thread buffers before merging them into its shard.
const FLUSH_EVERY: usize = 128;
/// Stack size of a client thread.
const STACK: usize = 256 * 1024;

/// Opens one connection, over TCP to the URL's address.
///
/// The `mysql` crate's default (`prefer_socket=true`) asks a server on 127.0.0.1 for its
/// `@@socket` and reconnects through that Unix socket, so the MariaDB side of a comparison would
/// skip the loopback TCP stack every other target pays for (about 5 µs of kernel time per
/// round trip on each side at one client). A URL that says `prefer_socket=true` still gets it.
pub fn connect(url: &str) -> Result<Conn, String> {
    let opts = Opts::from_url(url).map_err(|e| format!("bad mysql URL: {e}"))?;
    let opts = if url.contains("prefer_socket=") {
        opts
    } else {
        OptsBuilder::from_opts(opts).prefer_socket(false).into()
    };
    Conn::new(opts).map_err(|e| format!("mysql connect: {e}"))
}

/// The server's version, for the record.
pub fn version(conn: &mut Conn) -> Option<String> {
    conn.query_first::<String, _>("SELECT VERSION()")
        .ok()
        .flatten()
}

/// Runs one statement, reading and dropping every row.
pub fn execute(conn: &mut Conn, sql: &str, args: Vec<Arg>) -> Result<(), mysql::Error> {
    if args.is_empty() {
        conn.query_drop(sql)
    } else {
        let values: Vec<Value> = args
            .into_iter()
            .map(|a| match a {
                Arg::Int(v) => Value::Int(v),
                Arg::Str(s) => Value::Bytes(s.into_bytes()),
            })
            .collect();
        conn.exec_drop(sql, Params::Positional(values))
    }
}

/// Starts one thread per client; they connect, then wait at the gate.
pub fn start(url: &str, spec: &StepSpec) -> Started {
    let (url, spec) = (url.to_owned(), spec.clone());
    spawn_load(
        spec.concurrency.max(1),
        "bench-mysql",
        Some(STACK),
        move |t, gate| {
            let conn = connect(&url);
            let clock = gate.arrive();
            let mut conn = conn?;
            let mut script = Script::new(spec.workload, spec.table_size, t as u64 + 1);
            let mut batch = Batch::default();
            let mut cpu_mark = None;
            let mut cpu = Duration::ZERO;
            let mut measured = false;
            loop {
                let sent = Instant::now();
                if sent >= clock.measure_from && !measured {
                    measured = true;
                    cpu_mark = Some(thread_cpu());
                }
                if sent >= clock.measure_until {
                    if let Some(m) = cpu_mark.take() {
                        cpu = thread_cpu().saturating_sub(m);
                    }
                    if script.at_boundary() {
                        break;
                    }
                }
                let stmt = script.next_stmt();
                let counts_event = stmt.counts_event();
                let result = execute(&mut conn, stmt.sql, stmt.args);
                let done = Instant::now();
                let failed = result.is_err();
                let lost = matches!(
                    &result,
                    Err(mysql::Error::IoError(_) | mysql::Error::DriverError(_))
                );
                if clock.measuring(done) {
                    batch.push(done - sent, !failed, counts_event && !failed);
                    if let Err(e) = &result {
                        batch.note_error(e.to_string());
                    }
                }
                clock.add_completed(1);
                if failed {
                    script.abort();
                }
                if batch.len() >= FLUSH_EVERY {
                    gate.collector.merge_batch(t, &mut batch, Duration::ZERO);
                }
                if lost {
                    batch.lost_clients += 1;
                    break;
                }
            }
            if let Some(m) = cpu_mark {
                cpu = thread_cpu().saturating_sub(m);
            }
            gate.collector.merge_batch(t, &mut batch, cpu);
            Ok(())
        },
    )
}
