//! MariaDB's own CPU per `select 1` on one connection, pipelined 1, 4, 16 and 64 deep.
//!
//! Starts a private MariaDB (`xrpc-testkit`), runs the same number of statements at each depth
//! on one connection through the blocking test driver, and reads `mariadbd`'s user + system CPU
//! time from `/proc/<pid>/stat` around each run (and this process's, the driver's: the state
//! machine plus a blocking read and write per wake-up). Depths are interleaved over several rounds so
//! drift on a shared machine spreads over all of them.
//!
//! `cargo run --release -p xrpc-mysql-proto --example pipeline_cpu [statements-per-run] [rounds]`

#[path = "../tests/driver/mod.rs"]
mod driver;

use std::time::{Duration, Instant};

use driver::Driver;
use xrpc_mysql_proto::{Config, Event, Tag};

const DEPTHS: [usize; 4] = [1, 4, 16, 64];

/// `utime + stime` of a process, in clock ticks.
fn cpu_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // Fields after the command name (which is in parentheses and may contain spaces).
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn clock_ticks_per_second() -> u64 {
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("getconf CLK_TCK");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(100)
}

/// Runs `count` statements keeping `depth` in flight; returns the wall time.
fn run(db: &mut Driver, depth: usize, count: u64) -> Duration {
    let started = Instant::now();
    let (mut submitted, mut answered) = (0u64, 0u64);
    while answered < count {
        while submitted < count && db.conn.in_flight() < depth {
            db.conn
                .submit_query(Tag(submitted), b"select 1", None)
                .expect("submit");
            submitted += 1;
        }
        // At once, so the server finds the next statement waiting whenever it finishes one.
        db.flush();
        match db.next_event() {
            Event::Done { .. } => answered += 1,
            Event::Failed { tag, error } => panic!("statement {tag} failed: {error}"),
            Event::Closed { reason } => panic!("connection closed: {reason:?}"),
            _ => {}
        }
    }
    started.elapsed()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = args
        .next()
        .map_or(100_000, |n| n.parse().expect("statements"));
    let rounds: usize = args.next().map_or(3, |n| n.parse().expect("rounds"));
    let server = xrpc_testkit::MariaDb::start().expect("MariaDB starts");
    let pid = std::fs::read_to_string(server.dir().join("mariadbd.pid")).expect("pid file");
    let pid = pid.trim();
    let mut config = Config::new(xrpc_testkit::USER, xrpc_testkit::USER);
    config.max_depth = 64;
    let mut db = Driver::connect(&format!("127.0.0.1:{}", server.port()), config);
    let hz = clock_ticks_per_second() as f64;
    run(&mut db, 16, count / 10); // warm-up

    let mut ticks = [0u64; DEPTHS.len()];
    let mut own_ticks = [0u64; DEPTHS.len()];
    let mut wall = [Duration::ZERO; DEPTHS.len()];
    for round in 0..rounds {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..DEPTHS.len()).collect()
        } else {
            (0..DEPTHS.len()).rev().collect()
        };
        for index in order {
            let (before, own_before) = (cpu_ticks(pid), cpu_ticks("self"));
            wall[index] += run(&mut db, DEPTHS[index], count);
            ticks[index] += cpu_ticks(pid) - before;
            own_ticks[index] += cpu_ticks("self") - own_before;
        }
    }
    let total = count as f64 * rounds as f64;
    let base = ticks[0] as f64 / total;
    println!("{count} statements x {rounds} rounds per depth, one connection, select 1");
    println!("depth  mariadbd CPU/stmt (us)  vs depth 1  driver CPU/stmt (us)  statements/s");
    for (index, depth) in DEPTHS.iter().enumerate() {
        let per = ticks[index] as f64 / total;
        println!(
            "{depth:>5}  {:>22.2}  {:>9.2}x  {:>20.2}  {:>12.0}",
            per / hz * 1e6,
            per / base,
            own_ticks[index] as f64 / total / hz * 1e6,
            total / wall[index].as_secs_f64()
        );
    }
}
