//! The load of `scripts/soak.sh`: a mixed workload against one xrpc node for a given time, with the
//! node process's resident memory, fds and threads sampled as it runs, and a verdict.
//!
//! ```text
//! cargo run --release -p xrpc-client --example soak -- ADDR SECONDS SERVER_PID [SAMPLE_SECONDS]
//! ```
//!
//! Workers, each on its own thread: point reads and single-row writes through a session pool,
//! transactions (two updates, then COMMIT or ROLLBACK), statements killed from another thread
//! after a random delay (`SESS_KILL QUERY`), statements cut by the client's timeout, session churn
//! (open, one query, close, over a few pooled connections) and connection churn (connect,
//! authenticate, one query on an auto-commit sid, disconnect).
//!
//! Every sample prints one line: seconds, resident KiB, fds, threads, statements done, errors by
//! code. At the end it prints a verdict and exits 1 when a criterion fails:
//! - resident memory grows less than 5 % over the second half (its highest sample there against
//!   the sample at the half);
//! - the fds return to their value before the load (after the load stops, within 30 s), apart
//!   from the database files of the engine's connection pool, which stay within its bound;
//! - no error appears that the load did not provoke: 1317 (kills and the timeout's kill), the
//!   client's own timeout, and nothing else.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use xrpc_client::blocking::Connection;
use xrpc_client::pool::{Pool, PoolOptions};
use xrpc_client::{ClientError, ConnectOptions, Param};

/// Rows in the soak table.
const ROWS: i64 = 10_000;
/// A statement that runs long enough to be killed or timed out (about a second unless stopped).
const SLOW: &str = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000000) \
                    select count(*) from n";
/// The codes the load provokes on purpose: 1317, a killed statement.
const PROVOKED: &[u32] = &[1317];

/// What the workers count.
#[derive(Default)]
struct Tally {
    done: AtomicU64,
    /// Errors by label: `1317`, `client-timeout`, `io`, …
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Tally {
    fn record(&self, result: Result<(), ClientError>) {
        match result {
            Ok(()) => {
                self.done.fetch_add(1, Ordering::Relaxed);
            }
            Err(err) => {
                let label = if err.is_timeout() {
                    "client-timeout".to_owned()
                } else if let Some(code) = err.code() {
                    code.to_string()
                } else {
                    format!("client: {err}")
                };
                *self.errors.lock().entry(label).or_default() += 1;
            }
        }
    }

    fn unprovoked(&self) -> Vec<(String, u64)> {
        self.errors
            .lock()
            .iter()
            .filter(|(label, _)| {
                label.as_str() != "client-timeout"
                    && !PROVOKED.iter().any(|code| code.to_string() == **label)
            })
            .map(|(label, n)| (label.clone(), *n))
            .collect()
    }
}

/// One worker's step, repeated until the soak ends.
type Work = Box<dyn Fn(&mut Rng) -> Result<(), ClientError> + Send>;

/// A small xorshift generator: the load needs spread, not quality.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The most fds the SQLite engine's pool may hold: 32 idle connections (its `max_idle`) of two
/// files each (the database and its WAL) and the shared-memory file, plus the connections of the
/// load's statements running at once (fewer than 16).
const MAX_ENGINE_FDS: usize = (32 + 16) * 2 + 1;

/// Resident KiB, fds (the engine's database files apart) and threads of process `pid`.
fn sample(pid: u32) -> (u64, Fds, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let mut fds = Fds::default();
    for fd in std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let target = std::fs::read_link(fd.path()).unwrap_or_default();
        let name = target.to_string_lossy();
        if name.ends_with(".db") || name.ends_with(".db-wal") || name.ends_with(".db-shm") {
            fds.engine += 1;
        } else {
            fds.other += 1;
        }
    }
    (field("VmRSS:"), fds, field("Threads:") as usize)
}

/// A process's fds: the SQLite engine's database files, which grow with its connection pool
/// (bounded by [`MAX_ENGINE_FDS`]), and the others (sockets, the log, epoll), which must return
/// to their value before the load.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Fds {
    engine: usize,
    other: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: soak ADDR SECONDS SERVER_PID [SAMPLE_SECONDS]");
        std::process::exit(2);
    }
    let addr = args[0].clone();
    let seconds: u64 = args[1].parse().expect("SECONDS is a number");
    let pid: u32 = args[2].parse().expect("SERVER_PID is a number");
    let every = Duration::from_secs(
        args.get(3)
            .map_or(5, |s| s.parse().expect("SAMPLE_SECONDS")),
    );
    let connect = ConnectOptions::new("root", "");
    let pool = Pool::new(
        addr.clone(),
        PoolOptions::new(connect.clone()).max_connections(4),
    );

    let mut setup = pool.session().expect("connect to the node");
    setup
        .execute("drop table if exists soak", &[])
        .expect("drop");
    setup
        .execute(
            "create table soak (id integer primary key, v integer not null)",
            &[],
        )
        .expect("create");
    setup
        .execute(
            &format!(
                "insert into soak with recursive n(i) as (select 1 union all select i + 1 from n \
                 where i < {ROWS}) select i, 0 from n"
            ),
            &[],
        )
        .expect("fill");
    drop(setup);

    let (_, fds_before, threads_before) = sample(pid);
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    let mut spawn = |name: &str, seed: u64, work: Work| {
        let (tally, stop) = (Arc::clone(&tally), Arc::clone(&stop));
        workers.push(
            std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(move || {
                    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
                    while !stop.load(Ordering::Relaxed) {
                        tally.record(work(&mut rng));
                    }
                })
                .expect("spawn a worker"),
        );
    };

    for i in 0..4 {
        let pool = pool.clone();
        spawn(
            "point-read",
            i,
            Box::new(move |rng| {
                let mut s = pool.session()?;
                let id = 1 + rng.below(ROWS as u64) as i64;
                let rows = s
                    .execute("select v from soak where id = ?", &[Param::from(id)])?
                    .into_result_set()
                    .rows;
                assert_eq!(rows.len(), 1, "row {id} is missing");
                Ok(())
            }),
        );
    }
    for i in 0..2 {
        let pool = pool.clone();
        spawn(
            "write",
            10 + i,
            Box::new(move |rng| {
                let mut s = pool.session()?;
                let id = 1 + rng.below(ROWS as u64) as i64;
                s.execute("update soak set v = v + 1 where id = ?", &[Param::from(id)])?;
                Ok(())
            }),
        );
    }
    {
        let pool = pool.clone();
        spawn(
            "transaction",
            20,
            Box::new(move |rng| {
                let mut s = pool.session()?;
                let (a, b) = (
                    1 + rng.below(ROWS as u64) as i64,
                    1 + rng.below(ROWS as u64) as i64,
                );
                s.execute("begin", &[])?;
                let body = s
                    .execute("update soak set v = v - 1 where id = ?", &[Param::from(a)])
                    .and_then(|_| {
                        s.execute("update soak set v = v + 1 where id = ?", &[Param::from(b)])
                    });
                if body.is_err() || rng.below(4) == 0 {
                    s.execute("rollback", &[])?;
                    body.map(|_| ())
                } else {
                    s.execute("commit", &[]).map(|_| ())
                }
            }),
        );
    }
    {
        let pool = pool.clone();
        spawn(
            "kill",
            30,
            Box::new(move |rng| {
                let mut s = pool.session()?;
                let kill = s.kill_handle();
                let delay = Duration::from_millis(rng.below(200));
                let killer = std::thread::spawn(move || {
                    std::thread::sleep(delay);
                    kill.kill_query()
                });
                let result = s.query(SLOW).map(|_| ());
                killer.join().expect("the killer thread")?;
                result
            }),
        );
    }
    {
        let pool = pool.clone();
        spawn(
            "timeout",
            40,
            Box::new(move |rng| {
                let mut s = pool.session()?;
                s.set_timeout(Some(Duration::from_millis(20 + rng.below(200))));
                let result = s.query(SLOW).map(|_| ());
                s.set_timeout(None);
                result
            }),
        );
    }
    {
        let churn = Pool::new(
            addr.clone(),
            PoolOptions::new(connect.clone()).max_connections(2),
        );
        spawn(
            "session-churn",
            50,
            Box::new(move |_| {
                let mut s = churn.session()?;
                s.query("select 1")?;
                s.close();
                Ok(())
            }),
        );
    }
    {
        let (addr, connect) = (addr.clone(), connect.clone());
        spawn(
            "connection-churn",
            60,
            Box::new(move |_| {
                let conn = Connection::connect(addr.as_str(), connect.clone())?;
                conn.query_once("select 1")?;
                conn.close();
                Ok(())
            }),
        );
    }

    println!("# seconds rss_kib fds(other+engine) threads statements errors");
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let half = started + Duration::from_secs(seconds / 2);
    let mut rss_at_half = None;
    let mut max_rss_second_half = 0;
    while Instant::now() < deadline {
        std::thread::sleep(every.min(deadline.saturating_duration_since(Instant::now())));
        let (rss, fds, threads) = sample(pid);
        let now = Instant::now();
        if now >= half {
            rss_at_half.get_or_insert(rss);
            max_rss_second_half = max_rss_second_half.max(rss);
        }
        println!(
            "{:.0} {rss} {}+{} {threads} {} {:?}",
            started.elapsed().as_secs_f64(),
            fds.other,
            fds.engine,
            tally.done.load(Ordering::Relaxed),
            tally.errors.lock()
        );
    }
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.join().expect("a worker panicked");
    }
    drop(pool);

    // The load's connections are closed: the node's fds come back.
    let settle = Instant::now();
    let fds_after = loop {
        let (_, fds, _) = sample(pid);
        if fds.other <= fds_before.other || settle.elapsed() > Duration::from_secs(30) {
            break fds;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (_, _, threads_after) = sample(pid);
    let rss_at_half = rss_at_half.unwrap_or(max_rss_second_half);
    let growth = if rss_at_half == 0 {
        0.0
    } else {
        (max_rss_second_half as f64 / rss_at_half as f64 - 1.0) * 100.0
    };
    let unprovoked = tally.unprovoked();
    println!(
        "# verdict: {} statements in {seconds} s; resident {rss_at_half} KiB at the half, at most \
         {max_rss_second_half} KiB after ({growth:+.1} %); fds {fds_before:?} before, {fds_after:?} \
         after; threads {threads_before} before, {threads_after} after; errors {:?}",
        tally.done.load(Ordering::Relaxed),
        tally.errors.lock()
    );
    let mut failed = Vec::new();
    if growth >= 5.0 {
        failed.push(format!(
            "resident memory grew {growth:.1} % over the second half"
        ));
    }
    if fds_after.other > fds_before.other {
        failed.push(format!(
            "fds did not return: {} before, {} after (the engine's database files apart)",
            fds_before.other, fds_after.other
        ));
    }
    if fds_after.engine > MAX_ENGINE_FDS {
        failed.push(format!(
            "the engine holds {} fds, more than its pool's bound {MAX_ENGINE_FDS}",
            fds_after.engine
        ));
    }
    if !unprovoked.is_empty() {
        failed.push(format!("errors the load did not provoke: {unprovoked:?}"));
    }
    if tally.done.load(Ordering::Relaxed) == 0 {
        failed.push("no statement completed".to_owned());
    }
    if failed.is_empty() {
        println!("# PASS");
    } else {
        println!("# FAIL: {}", failed.join("; "));
        std::process::exit(1);
    }
}
