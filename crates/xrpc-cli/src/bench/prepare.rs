//! `xrpc bench prepare`: creates and fills sysbench's `sbtest1` on every target.
//!
//! As sysbench's `oltp_common.lua` prepare does: drop the table, create it, insert ids
//! `1..=table_size` with `k` uniform in `1..=table_size` and `c`/`pad` from the digit templates,
//! then create the secondary index `k_1` on `k` (after the rows, which is faster than
//! maintaining it). Rows go in multi-row `INSERT`s of [`ROWS_PER_INSERT`], [`INSERTS_PER_TXN`] of
//! them per transaction, so a node that syncs every commit is not dominated by fsyncs. The values
//! are seeded, so every target gets the same table.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::Target;
use super::workload::{CREATE_INDEX, CREATE_TABLE, Rng, sysbench_c, sysbench_pad};

/// Rows per `INSERT` statement.
pub const ROWS_PER_INSERT: u64 = 1000;
/// `INSERT`s per transaction.
pub const INSERTS_PER_TXN: u64 = 10;

/// `xrpc bench prepare` options.
#[derive(Debug, Clone, clap::Args)]
pub struct PrepareArgs {
    /// Where to create the table: `xrpc://[user[:pass]@]host:port[/db]` or
    /// `mysql://user:pass@host:port/db`; repeatable.
    #[arg(long = "target", default_value = "xrpc://127.0.0.1:33660")]
    pub targets: Vec<String>,
    /// Rows to insert.
    #[arg(long, default_value_t = 100_000)]
    pub table_size: u64,
    /// TLS for the xrpc targets.
    #[command(flatten)]
    pub tls: crate::conn::TlsArgs,
}

/// Runs `xrpc bench prepare`; the exit code.
pub fn run(args: &PrepareArgs) -> i32 {
    for spec in &args.targets {
        let target = match Target::parse(spec).and_then(|t| t.with_tls(&args.tls)) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("ERROR: {e}");
                return 2;
            }
        };
        match prepare(&target, args.table_size) {
            Ok(took) => println!(
                "{}: sbtest1 created with {} rows in {:.1} s",
                target.name(),
                args.table_size,
                took.as_secs_f64()
            ),
            Err(e) => {
                eprintln!("ERROR: {}: {e}", target.name());
                return 1;
            }
        }
    }
    0
}

/// Creates and fills the table on one target.
pub fn prepare(target: &Target, table_size: u64) -> Result<Duration, String> {
    let started = Instant::now();
    let mut exec = target.executor()?;
    let bar = ProgressBar::new(table_size).with_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} rows {per_sec} {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("prepare {}", target.name()));
    exec("DROP TABLE IF EXISTS sbtest1")?;
    exec(CREATE_TABLE)?;
    let mut rng = Rng::new(0x5b7e_5700);
    let mut id = 1;
    let mut sql = String::new();
    while id <= table_size {
        exec("BEGIN")?;
        for _ in 0..INSERTS_PER_TXN {
            if id > table_size {
                break;
            }
            let last = (id + ROWS_PER_INSERT - 1).min(table_size);
            sql.clear();
            sql.push_str("INSERT INTO sbtest1 (id, k, c, pad) VALUES ");
            for row in id..=last {
                if row > id {
                    sql.push(',');
                }
                let k = rng.range(1, table_size as i64);
                let c = sysbench_c(&mut rng);
                let pad = sysbench_pad(&mut rng);
                let _ = write!(sql, "({row},{k},'{c}','{pad}')");
            }
            exec(&sql)?;
            bar.inc(last - id + 1);
            id = last + 1;
        }
        exec("COMMIT")?;
    }
    bar.set_message("index");
    exec(CREATE_INDEX)?;
    bar.finish_and_clear();
    Ok(started.elapsed())
}
