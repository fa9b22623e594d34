//! MariaDB's CPU per `SELECT 1` through the event-loop driver, one statement at a time on a
//! connection against pipelined, interleaved in rounds on one private server (started by
//! `xrpc-testkit`). A closed loop keeps `OUTSTANDING` statements submitted: each answer submits
//! the next from the worker that read it. Prints one JSON line per run.
//!
//! `cargo run --release -p xrpc-engine-mysql --example driver_depth [statements] [rounds]`

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::time::Instant;

use xrpc_engine_mysql::driver::{Completion, Driver, DriverOptions};
use xrpc_mysql_proto::{ColumnSet, Config, OkInfo, StatementError, TextRow};
use xrpc_net::{NetConfig, NoClients, Server};

const OUTSTANDING: u64 = 16;

/// Submits the next statement when this one ends, until `left` runs out.
struct Loop {
    driver: Driver,
    left: Arc<AtomicU64>,
    done: Sender<()>,
}

impl Completion for Loop {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}
    fn on_row(&mut self, _: &TextRow) {}
    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>) {
        outcome.expect("SELECT 1 succeeds");
        let _ = self.done.send(());
        if self
            .left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok()
        {
            let driver = self.driver.clone();
            driver.submit("SELECT 1", self);
        }
    }
}

/// CPU time of a process so far, in seconds (user + system, from `/proc/<pid>/stat`).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let statements: u64 = args.next().map_or(50_000, |a| a.parse().unwrap());
    let rounds: u32 = args.next().map_or(3, |a| a.parse().unwrap());
    let db = xrpc_testkit::MariaDb::start().expect("MariaDB starts");
    let pid: u32 = std::fs::read_to_string(db.dir().join("mariadbd.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let node = Server::start(
        NetConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            groups: 1,
            bind_cores: false,
            ..NetConfig::default()
        },
        NoClients,
    )
    .unwrap();
    for round in 0..rounds {
        for depth in [1usize, 16] {
            let mut config = Config::new(xrpc_testkit::USER, xrpc_testkit::USER);
            config.database = Some(xrpc_testkit::DATABASE.to_owned());
            let addr: SocketAddr = format!("127.0.0.1:{}", db.port()).parse().unwrap();
            let mut opts = DriverOptions::new(addr, config);
            opts.connections = 1;
            opts.max_depth = depth;
            let driver = Driver::start(node.groups(), opts);
            while driver.connected() < 1 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let (tx, rx) = channel();
            let left = Arc::new(AtomicU64::new(statements - OUTSTANDING));
            let (db_cpu, node_cpu, t) = (
                cpu_seconds(pid),
                cpu_seconds(std::process::id()),
                Instant::now(),
            );
            for _ in 0..OUTSTANDING {
                driver.submit(
                    "SELECT 1",
                    Box::new(Loop {
                        driver: driver.clone(),
                        left: left.clone(),
                        done: tx.clone(),
                    }),
                );
            }
            for _ in 0..statements {
                rx.recv().unwrap();
            }
            let secs = t.elapsed().as_secs_f64();
            let db_us = (cpu_seconds(pid) - db_cpu) * 1e6 / statements as f64;
            let node_us = (cpu_seconds(std::process::id()) - node_cpu) * 1e6 / statements as f64;
            let depths = driver.depth_distribution();
            println!(
                "{{\"round\":{round},\"max_depth\":{depth},\"outstanding\":{OUTSTANDING},\"statements\":{statements},\"qps\":{:.0},\"mariadb_cpu_us_per_stmt\":{db_us:.2},\"driver_process_cpu_us_per_stmt\":{node_us:.2},\"depths_le_1_2_4_8_16_32_64_more\":{depths:?}}}",
                statements as f64 / secs
            );
            driver.close();
        }
    }
    node.shutdown();
}
