//! `xrpc bench`: one load generator for xrpc nodes, xrpc-net echo servers and their MySQL peers.
//!
//! # Runs and steps
//!
//! A run is one workload ([`workload`]) against one or more targets, one after another, each at
//! every concurrency of the sweep. One target at one concurrency is a *step*: fresh connections,
//! a warm-up, the measured window, and a drain (no transaction is cut off). Steps never overlap,
//! so each has the machine to itself.
//!
//! | target | driver | model |
//! |---|---|---|
//! | `xrpc://[user[:pass]@]host:port[/db]` | [`xrpc`] | a few threads multiplexing sessions over the sans-IO client core |
//! | `mysql://user:pass@host:port/db` | [`mysql`] | one blocking thread and TCP connection per client (the article's JDBC baseline; never the Unix socket the `mysql` crate would switch to on 127.0.0.1, unless the URL says `prefer_socket=true`) |
//! | `--workload echo` with an xrpc address or `--spawn-echo` | [`echo`] | closed-loop frames through [`xrpc_bench::loadgen`] |
//!
//! # Start-up
//!
//! Load threads connect first and then wait at a [`Gate`]; the main thread opens it once all have
//! connected, and only then fixes the step's clock, so connecting thousands of clients never eats
//! into the warm-up or the window.
//!
//! # What is measured
//!
//! Each request's latency is the time from issuing it to reading its last reply byte, recorded
//! only for requests that complete inside the window (see [`stats`]). QPS counts statements;
//! for `read-write` TPS counts transactions (20 statements each, `BEGIN` and `COMMIT` included).
//! Errors count failed statements in the window; a client whose session or connection the target
//! ends (a FATAL error, a dropped connection) stops and is counted in `lost_clients`, since the
//! concurrency actually applied is then lower than asked. Per-second QPS inside the window is kept (`intervals_qps`),
//! and the generator's own CPU share is reported with every step. For a target on this machine
//! the server's own CPU time per request in the window is reported too ([`server`]): the process
//! is named by `--server-pid` or found from the target's listening port.
//!
//! # Output
//!
//! An indicatif progress bar per step on stderr (hidden when stderr is not a terminal, where one
//! line per finished step is printed instead), then a table on stdout ([`render_table`]): QPS,
//! p50 and p99 in µs, errors and the server's CPU per request per target × concurrency, with each
//! target's QPS ratio to the first target, in at most 100 columns; `--wide` adds connections,
//! p90 and p999, the generator's CPU share and CPU per request, and the ratio to the best target
//! at that concurrency. `--json FILE` writes every measurement with the machine and versions;
//! `--plot FILE.png|svg` draws QPS and p99 against concurrency ([`plot`]); both say on stderr
//! where they wrote.

pub mod echo;
pub mod mysql;
pub mod plot;
pub mod prepare;
pub mod server;
pub mod stats;
pub mod workload;
pub mod xrpc;

use std::io::IsTerminal;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Barrier, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use percent_encoding::percent_decode_str;
use url::Url;
use xrpc_client::blocking::Connection;

use self::stats::{Collector, Percentiles, StepClock, cores, pids_cpu, process_cpu};
use self::workload::Workload;
use self::xrpc::XrpcAddr;
use crate::conn::TlsArgs;
use crate::format::{Align, grid};

/// `xrpc bench` and its `prepare` subcommand.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchCmd {
    #[command(subcommand)]
    pub sub: Option<BenchSub>,
    #[command(flatten)]
    pub run: BenchArgs,
}

/// Subcommands of `xrpc bench`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum BenchSub {
    /// Create and fill sysbench's sbtest1 table on the targets.
    Prepare(prepare::PrepareArgs),
}

/// `xrpc bench` options.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// What each client does.
    #[arg(long, short = 'w', value_enum, default_value_t = Workload::Select1)]
    pub workload: Workload,
    /// A target: `xrpc://[user[:pass]@]host:port[/db]` or `mysql://user:pass@host:port/db`;
    /// percent-encode `@`, `:` and `/` in a user, password or database (`p%40ss` is `p@ss`).
    /// A mysql:// target is reached over TCP (add `?prefer_socket=true` to let the driver
    /// switch to the server's Unix socket). Repeat to compare targets; they run one after another. Default: xrpc://127.0.0.1:33660.
    #[arg(long = "target")]
    pub targets: Vec<String>,
    /// With `--workload echo`: start an xrpc-net echo server in this process and measure it.
    #[arg(long)]
    pub spawn_echo: bool,
    /// Pin the in-process echo server's workers to cores (xrpc-net's default; off here).
    #[arg(long)]
    pub echo_bind_cores: bool,
    /// Concurrent clients (echo: frames in flight); a comma-separated list is a sweep.
    #[arg(long, short = 'c', value_delimiter = ',', default_value = "1")]
    pub concurrency: Vec<usize>,
    /// TCP connections per xrpc (or echo) target; sessions are spread over them.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Load-generator threads for xrpc and echo targets (default: half the cores, at least 1).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Measured seconds per step.
    #[arg(long, short = 'd', default_value_t = 10.0)]
    pub duration: f64,
    /// Warm-up seconds per step, not measured.
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,
    /// Statements each xrpc client keeps in flight on its session.
    #[arg(long, default_value_t = 1)]
    pub pipeline_depth: usize,
    /// Ask xrpc targets for chunk (columnar) results.
    #[arg(long)]
    pub chunk: bool,
    /// Ids to pick from (default: `MAX(id)` of each target's sbtest1).
    #[arg(long)]
    pub table_size: Option<u64>,
    /// Echo frame body bytes.
    #[arg(long, default_value_t = 16)]
    pub payload: usize,
    /// The pid of each `--target`'s server process, in order (comma-separated or repeated), for
    /// the server CPU per request; `0`, or a target without one here, means: find the process
    /// listening on the target's port on this machine.
    #[arg(long, value_delimiter = ',')]
    pub server_pid: Vec<u32>,
    /// Another process whose CPU time counts as the server's in every step (repeatable), e.g. the
    /// MariaDB behind an xrpc node on the mysql engine: the figure is then the sum of both.
    #[arg(long = "also-server-pid")]
    pub also_server_pids: Vec<u32>,
    /// Write every measurement, the machine and the versions as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Draw QPS and p99 against concurrency (`.png` or `.svg`); every measured concurrency is
    /// labelled on the (logarithmic) axis. Its path is printed on stderr once written.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Print every column of the result table: also connections, p90 and p999, the generator's
    /// CPU share and CPU per request, and the ratio to the best target. Without it the table fits
    /// 100 columns (target, clients, QPS, TPS for read-write, p50, p99, errors, server CPU per
    /// request, ratio to the first target), long target names becoming #1, #2… with a legend.
    #[arg(long)]
    pub wide: bool,
    /// TLS for the xrpc targets (the name checked is each target's host).
    #[command(flatten)]
    pub tls: TlsArgs,
}

/// A parsed target.
#[derive(Debug, Clone)]
pub enum Target {
    /// An xrpc node.
    Xrpc {
        /// For tables and JSON (no password).
        name: String,
        /// Connection settings.
        addr: XrpcAddr,
    },
    /// MySQL or MariaDB.
    Mysql {
        /// For tables and JSON (no password).
        name: String,
        /// The URL for the `mysql` crate.
        url: String,
    },
    /// An echo server.
    Echo {
        /// For tables and JSON.
        name: String,
        /// Its address.
        addr: SocketAddr,
    },
}

impl Target {
    /// Parses `xrpc://…`, `mysql://…` or a bare `host[:port]` (xrpc), with the `url` crate: user,
    /// password and database may be percent-encoded (`p%40ss` is `p@ss`).
    pub fn parse(spec: &str) -> Result<Self, String> {
        let unknown = || {
            format!(
                "unknown target '{spec}': use xrpc://[user[:pass]@]host[:port][/db] or mysql://user:pass@host:port/db"
            )
        };
        let with_scheme = if spec.contains("://") {
            spec.to_owned()
        } else {
            format!("xrpc://{spec}")
        };
        let url = Url::parse(&with_scheme).map_err(|e| format!("target '{spec}': {e}"))?;
        let host = match url.host_str() {
            Some(host) if !host.is_empty() => host.to_owned(),
            _ => return Err(format!("target '{spec}' has no host")),
        };
        let mut redacted = url.clone();
        // Only a URL without a host refuses a password change, and this one has a host.
        let _ = redacted.set_password(None);
        match url.scheme() {
            "mysql" => Ok(Target::Mysql {
                name: redacted.to_string(),
                url: spec.to_owned(),
            }),
            "xrpc" => {
                let decode = |part: &str, what: &str| {
                    percent_decode_str(part)
                        .decode_utf8()
                        .map(|s| s.into_owned())
                        .map_err(|e| format!("target '{spec}': the {what} is not UTF-8: {e}"))
                };
                let hostport = format!("{host}:{}", url.port().unwrap_or(33660));
                let user = match url.username() {
                    "" => "root".to_owned(),
                    user => decode(user, "user")?,
                };
                let password = decode(url.password().unwrap_or(""), "password")?;
                let db = url.path().trim_start_matches('/');
                let db = (!db.is_empty())
                    .then(|| decode(db, "database"))
                    .transpose()?;
                let mut name = format!("xrpc://{hostport}");
                if let Some(db) = &db {
                    name.push('/');
                    name.push_str(db);
                }
                Ok(Target::Xrpc {
                    name,
                    addr: XrpcAddr {
                        addr: hostport,
                        host: host.clone(),
                        user,
                        password,
                        schema: db,
                        tls: None,
                    },
                })
            }
            _ => Err(unknown()),
        }
    }

    /// The target with the TLS the flags ask for: xrpc targets switch to TLS (and are named
    /// `xrpc+tls://…`); the flags apply to nothing else.
    pub fn with_tls(self, tls: &TlsArgs) -> Result<Self, String> {
        if !tls.wanted() {
            return Ok(self);
        }
        match self {
            Target::Xrpc { name, mut addr } => {
                addr.tls = tls.options(&addr.host).map_err(|e| e.to_string())?;
                Ok(Target::Xrpc {
                    name: name.replacen("xrpc://", "xrpc+tls://", 1),
                    addr,
                })
            }
            other => Err(format!(
                "{}: --tls and the other --tls-* flags apply to xrpc:// targets only",
                other.name()
            )),
        }
    }

    /// The target's name in output.
    pub fn name(&self) -> &str {
        match self {
            Target::Xrpc { name, .. } | Target::Mysql { name, .. } | Target::Echo { name, .. } => {
                name
            }
        }
    }

    /// A function that runs one SQL statement on a fresh connection to the target.
    pub fn executor(&self) -> Result<Executor, String> {
        match self {
            Target::Xrpc { addr, .. } => {
                let conn = Connection::connect(addr.addr.as_str(), addr.connect_options())
                    .map_err(|e| e.to_string())?;
                let mut session = conn.session().map_err(|e| e.to_string())?;
                Ok(Box::new(move |sql| {
                    session
                        .execute(sql, &[])
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                }))
            }
            Target::Mysql { url, .. } => {
                let mut conn = mysql::connect(url)?;
                Ok(Box::new(move |sql| {
                    mysql::execute(&mut conn, sql, Vec::new()).map_err(|e| e.to_string())
                }))
            }
            Target::Echo { .. } => Err("an echo server runs no SQL".into()),
        }
    }

    /// The target's socket address, when it resolves.
    pub fn socket_addr(&self) -> Option<SocketAddr> {
        match self {
            Target::Xrpc { addr, .. } => server::resolve(&addr.addr),
            Target::Mysql { url, .. } => {
                let url = Url::parse(url).ok()?;
                let host = url
                    .host_str()?
                    .trim_start_matches('[')
                    .trim_end_matches(']');
                server::resolve(&format!("{host}:{}", url.port().unwrap_or(3306))).or_else(|| {
                    server::resolve(&format!("[{host}]:{}", url.port().unwrap_or(3306)))
                })
            }
            Target::Echo { addr, .. } => Some(*addr),
        }
    }

    /// The local process serving the target: `given` if any, else the one listening on its port
    /// when the target is on this machine.
    pub fn server_pid(&self, given: Option<u32>) -> Option<u32> {
        if let Some(pid) = given.filter(|&p| p != 0) {
            return Some(pid);
        }
        let addr = self.socket_addr()?;
        server::is_local(&addr)
            .then(|| server::pid_listening_on(addr.port()))
            .flatten()
    }
}

/// Runs one SQL statement on a target's connection.
pub type Executor = Box<dyn FnMut(&str) -> Result<(), String>>;

/// What one step runs.
#[derive(Debug, Clone)]
pub struct StepSpec {
    /// The workload.
    pub workload: Workload,
    /// Clients (echo: frames in flight).
    pub concurrency: usize,
    /// Connections for xrpc and echo targets.
    pub connections: usize,
    /// Load threads for xrpc and echo targets.
    pub threads: usize,
    /// Statements in flight per xrpc client.
    pub pipeline_depth: usize,
    /// Chunk results.
    pub chunk: bool,
    /// Ids range over `1..=table_size`.
    pub table_size: u64,
    /// Echo body bytes.
    pub payload: usize,
}

/// Where a step's load threads wait until all have connected, and where they find the step's
/// clock and collector; see the [module docs](self).
#[derive(Debug)]
pub struct Gate {
    ready: Barrier,
    go: Barrier,
    clock: OnceLock<StepClock>,
    /// Where the threads leave their measurements.
    pub collector: Collector,
    /// Sockets whose reads may block without a timeout; see [`Gate::watch`].
    watched: Mutex<Vec<TcpStream>>,
}

impl Gate {
    /// A gate for `threads` load threads and the main thread.
    pub fn new(threads: usize) -> Self {
        Self {
            ready: Barrier::new(threads + 1),
            go: Barrier::new(threads + 1),
            clock: OnceLock::new(),
            collector: Collector::new(threads),
            watched: Mutex::new(Vec::new()),
        }
    }

    /// Hands the main thread a handle of a socket that a load thread reads without a timeout: if
    /// the load threads are still running when the drain's time is up, the main thread shuts it
    /// down, which ends the blocked read (the node stopped answering).
    pub fn watch(&self, socket: TcpStream) {
        self.watched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(socket);
    }

    /// Shuts every watched socket down (both directions); errors mean it is closed already.
    fn shut_watched(&self) {
        for socket in self
            .watched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = socket.shutdown(std::net::Shutdown::Both);
        }
    }

    /// A load thread is ready; returns the clock once the main thread has opened the gate.
    pub fn arrive(&self) -> &StepClock {
        self.ready.wait();
        self.go.wait();
        self.clock
            .get()
            .expect("the clock is set before the gate opens")
    }

    /// Waits for every load thread, then starts the step's clock and lets them go.
    pub fn open(&self, warmup: Duration, duration: Duration) -> &StepClock {
        self.ready.wait();
        let _ = self.clock.set(StepClock::new(warmup, duration));
        self.go.wait();
        self.clock.get().expect("just set")
    }
}

/// A step's load threads and the gate they wait at.
pub type Started = (Arc<Gate>, Vec<JoinHandle<Result<(), String>>>);

/// Spawns `threads` load threads named `{name}-{i}` (with `stack` bytes of stack if given), each
/// running `body(i, &gate)`; they are expected to connect, call [`Gate::arrive`], run, and leave
/// their measurements in the gate's collector.
pub fn spawn_load<F>(threads: usize, name: &str, stack: Option<usize>, body: F) -> Started
where
    F: Fn(usize, &Gate) -> Result<(), String> + Send + Sync + 'static,
{
    let gate = Arc::new(Gate::new(threads));
    let body = Arc::new(body);
    let handles = (0..threads)
        .map(|t| {
            let gate = Arc::clone(&gate);
            let body = Arc::clone(&body);
            let mut builder = std::thread::Builder::new().name(format!("{name}-{t}"));
            if let Some(bytes) = stack {
                builder = builder.stack_size(bytes);
            }
            builder
                .spawn(move || body(t, &gate))
                .expect("spawn a load thread")
        })
        .collect();
    (gate, handles)
}

/// One measurement: a target at one concurrency.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measurement {
    /// Workload name.
    pub workload: &'static str,
    /// Target name (no password).
    pub target: String,
    /// Clients (echo: requested frames in flight).
    pub concurrency: usize,
    /// Connections used (mysql: one per client).
    pub connections: usize,
    /// Load threads.
    pub threads: usize,
    /// Echo only: frames actually in flight (connections × per-connection depth).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inflight: Option<usize>,
    /// Statements in flight per client.
    pub pipeline_depth: usize,
    /// Statements (or echo frames) per second.
    pub qps: f64,
    /// Events (transactions) per second.
    pub tps: f64,
    /// Latency percentiles.
    #[serde(flatten)]
    pub latency: Percentiles,
    /// Failed statements in the window.
    pub errors: u64,
    /// Statements completed in the window.
    pub requests: u64,
    /// Clients whose session or connection ended during the step (warm-up included).
    pub lost_clients: u64,
    /// The load generator's CPU share of the machine (1.0 = every core busy).
    pub client_cpu: f64,
    /// The same in cores.
    pub client_cores: f64,
    /// The whole process's CPU share, from /proc/self/stat (includes an in-process echo server).
    pub process_cpu: Option<f64>,
    /// The load generator's CPU time per request completed in the window, µs.
    pub client_cpu_us_per_request: Option<f64>,
    /// The server process measured (given or found from the port; none for a remote target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_pid: Option<u32>,
    /// The server's CPU time (user + system) per request completed in the window, µs.
    pub server_cpu_us_per_request: Option<f64>,
    /// The server's CPU time over the window, in cores (1.0 = one core busy).
    pub server_cores: Option<f64>,
    /// With `--also-server-pid`: the target's own process's share of
    /// `server_cpu_us_per_request` (the node's, when a database runs behind it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_own_cpu_us_per_request: Option<f64>,
    /// Measured seconds.
    pub duration_s: f64,
    /// QPS in each second of the window.
    pub intervals_qps: Vec<f64>,
    /// The first error seen, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// Facts about a target found before its steps: its version and table size.
struct Probe {
    version: Option<String>,
    table_size: u64,
}

fn probe(target: &Target, args: &BenchArgs) -> Result<Probe, String> {
    let needs_table = args.workload.needs_table();
    let missing = |e: String| {
        format!(
            "sbtest1 is not readable ({e}); run `xrpc bench prepare --target {}` first",
            target.name()
        )
    };
    let (version, max_id) = match target {
        Target::Echo { .. } => (
            Some(format!("xrpc-net {}", env!("CARGO_PKG_VERSION"))),
            None,
        ),
        Target::Xrpc { addr, .. } => {
            let conn = Connection::connect(addr.addr.as_str(), addr.connect_options())
                .map_err(|e| format!("cannot connect: {e}"))?;
            let version = conn
                .query_once("SELECT @@version")
                .ok()
                .and_then(|rs| rs.text(0, 0).map(str::to_owned));
            let max_id = if needs_table && args.table_size.is_none() {
                let rs = conn
                    .query_once("SELECT MAX(id) FROM sbtest1")
                    .map_err(|e| missing(e.to_string()))?;
                rs.rows
                    .first()
                    .and_then(|r| r.first())
                    .and_then(|v| match v {
                        xrpc_client::Value::Sint(i) => u64::try_from(*i).ok(),
                        xrpc_client::Value::Uint(u) => Some(*u),
                        _ => None,
                    })
            } else {
                None
            };
            (version.map(|v| format!("xrpc {v}")), max_id)
        }
        Target::Mysql { url, .. } => {
            use ::mysql::prelude::Queryable;
            let mut conn = mysql::connect(url)?;
            let version = mysql::version(&mut conn);
            let max_id = if needs_table && args.table_size.is_none() {
                conn.query_first::<Option<u64>, _>("SELECT MAX(id) FROM sbtest1")
                    .map_err(|e| missing(e.to_string()))?
                    .flatten()
            } else {
                None
            };
            (version, max_id)
        }
    };
    if needs_table && args.table_size.is_none() && max_id.unwrap_or(0) == 0 {
        return Err(missing("it is empty".into()));
    }
    Ok(Probe {
        version,
        table_size: args.table_size.or(max_id).unwrap_or(100_000),
    })
}

/// Runs one step and measures it.
fn run_step(
    target: &Target,
    spec: &StepSpec,
    args: &BenchArgs,
    show: bool,
    server_pid: Option<u32>,
) -> Result<Measurement, String> {
    let warmup = Duration::from_secs_f64(args.warmup.max(0.0));
    let duration = Duration::from_secs_f64(args.duration.max(0.1));
    let (gate, handles) = match target {
        Target::Xrpc { addr, .. } => xrpc::start(addr, spec),
        Target::Mysql { url, .. } => mysql::start(url, spec),
        Target::Echo { addr, .. } => echo::start(*addr, spec),
    };
    let threads = handles.len();
    let bar = if show {
        ProgressBar::new((warmup + duration).as_millis() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix:.bold} [{bar:30}] {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("{} c={}", target.name(), spec.concurrency));
    bar.set_message("connecting");
    let clock = gate.open(warmup, duration);
    let mut intervals = Vec::new();
    let mut proc_start = None;
    let mut server_start = None;
    let mut own_start = None;
    let mut mark: Option<(Instant, u64)> = None;
    let mut last: (Instant, u64) = (clock.start, 0);
    let mut live_qps = 0.0;
    let proc_end = loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = Instant::now();
        let done = clock.completed.load(std::sync::atomic::Ordering::Relaxed);
        let since = now.duration_since(last.0).as_secs_f64();
        if since >= 0.5 {
            live_qps = (done - last.1) as f64 / since;
            last = (now, done);
        }
        bar.set_position(now.duration_since(clock.start).as_millis() as u64);
        let phase = if now < clock.measure_from {
            "warm-up"
        } else {
            "measuring"
        };
        bar.set_message(format!("{phase} {live_qps:.0} qps"));
        if now >= clock.measure_from && mark.is_none() {
            proc_start = process_cpu();
            server_start = server_pid.and_then(|pid| server_cpu_with_companions(pid, args));
            own_start = server_pid.and_then(|pid| pids_cpu(&[pid]));
            mark = Some((now, done));
        }
        if let Some((t, n)) = mark {
            // Per-second intervals inside the window.
            if now.duration_since(t) >= Duration::from_secs(1) || now >= clock.measure_until {
                let secs = now.duration_since(t).as_secs_f64();
                if secs >= 0.5 {
                    intervals.push(((done - n) as f64 / secs).round());
                }
                mark = Some((now, done));
            }
        }
        if now >= clock.measure_until {
            break (
                process_cpu(),
                server_pid.and_then(|pid| server_cpu_with_companions(pid, args)),
                server_pid.and_then(|pid| pids_cpu(&[pid])),
            );
        }
    };
    let (proc_end, server_end, own_end) = proc_end;
    bar.set_message("draining");
    // A load thread blocked in a read without a timeout (xrpc's single-connection driver) would
    // wait for ever on a node that stopped answering: after the drain's time, end its read.
    let give_up = clock.measure_until + xrpc::DRAIN_TIMEOUT + Duration::from_secs(1);
    while !handles.iter().all(|h| h.is_finished()) {
        if Instant::now() >= give_up {
            gate.shut_watched();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut thread_errors = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => thread_errors.push(e),
            Err(_) => thread_errors.push("a load thread panicked".into()),
        }
    }
    bar.finish_and_clear();
    let total = gate.collector.total();
    if total.requests == 0
        && let Some(e) = thread_errors.first().or(total.first_error.as_ref())
    {
        return Err(e.clone());
    }
    let window = clock
        .measure_until
        .duration_since(clock.measure_from)
        .as_secs_f64();
    let cores = cores() as f64;
    // An in-process server shares the process with the generator threads: take theirs out.
    let generator_cpu = if server_pid == Some(std::process::id()) {
        total.cpu
    } else {
        Duration::ZERO
    };
    let server_cpu = server_start
        .zip(server_end)
        .map(|(a, b)| b.saturating_sub(a).saturating_sub(generator_cpu));
    // With companions, the target's own share (the node's, when MariaDB is behind it).
    let own_cpu = own_start
        .zip(own_end)
        .filter(|_| !args.also_server_pids.is_empty())
        .map(|(a, b)| b.saturating_sub(a).saturating_sub(generator_cpu));
    let (connections, inflight) = match target {
        Target::Mysql { .. } => (spec.concurrency, None),
        Target::Echo { .. } => {
            let (c, per) = echo::layout(spec);
            (c, Some(c * per))
        }
        Target::Xrpc { .. } => (spec.connections.clamp(1, spec.concurrency.max(1)), None),
    };
    Ok(Measurement {
        workload: spec.workload.name(),
        target: target.name().to_owned(),
        concurrency: spec.concurrency,
        connections,
        threads,
        inflight,
        pipeline_depth: if matches!(target, Target::Xrpc { .. }) {
            spec.pipeline_depth
        } else {
            1
        },
        qps: (total.requests as f64 / window).round(),
        tps: (total.events as f64 / window).round(),
        latency: Percentiles::of(&total.hist),
        errors: total.errors,
        requests: total.requests,
        lost_clients: total.lost_clients,
        client_cpu: round3(total.cpu.as_secs_f64() / (window * cores)),
        client_cores: round3(total.cpu.as_secs_f64() / window),
        process_cpu: proc_start
            .zip(proc_end)
            .map(|(a, b)| round3(b.saturating_sub(a).as_secs_f64() / (window * cores))),
        client_cpu_us_per_request: server::cpu_us_per_request(
            total.cpu,
            Duration::ZERO,
            total.requests,
        ),
        server_pid,
        server_cpu_us_per_request: server_cpu
            .and_then(|cpu| server::cpu_us_per_request(cpu, Duration::ZERO, total.requests)),
        server_cores: server_cpu.map(|cpu| round3(cpu.as_secs_f64() / window)),
        server_own_cpu_us_per_request: own_cpu
            .and_then(|cpu| server::cpu_us_per_request(cpu, Duration::ZERO, total.requests)),
        duration_s: window,
        intervals_qps: intervals,
        first_error: total
            .first_error
            .or_else(|| thread_errors.into_iter().next()),
    })
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Runs `xrpc bench`; the exit code.
pub fn run(args: &BenchArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ERROR: {e}");
            2
        }
    }
}

fn run_inner(args: &BenchArgs) -> Result<i32, String> {
    if args.concurrency.is_empty() || args.concurrency.contains(&0) {
        return Err("--concurrency takes positive numbers".into());
    }
    if args.workload == Workload::Echo && args.tls.wanted() {
        return Err("the echo workload speaks no TLS: drop the --tls flags".into());
    }
    let mut targets = Vec::new();
    let mut specs = args.targets.clone();
    if specs.is_empty() && !(args.workload == Workload::Echo && args.spawn_echo) {
        specs.push("xrpc://127.0.0.1:33660".into());
    }
    for spec in &specs {
        let t = Target::parse(spec)?;
        let t = t.with_tls(&args.tls)?;
        targets.push(match (args.workload, t) {
            (Workload::Echo, Target::Xrpc { addr, .. }) => {
                let sock = addr
                    .addr
                    .to_socket_addrs()
                    .map_err(|e| format!("{}: {e}", addr.addr))?
                    .next()
                    .ok_or_else(|| format!("{} resolves to nothing", addr.addr))?;
                Target::Echo {
                    name: format!("echo://{}", addr.addr),
                    addr: sock,
                }
            }
            (Workload::Echo, Target::Mysql { name, .. }) => {
                return Err(format!(
                    "{name}: the echo workload needs an echo server, not MySQL"
                ));
            }
            (workload, Target::Mysql { name, .. }) if workload.sends_plans() => {
                return Err(format!(
                    "{name}: the {} workload sends EXEC_PLAN_READ plans, which only xrpc targets \
                     take; compare with point-select there",
                    workload.name()
                ));
            }
            (_, t) => t,
        });
    }
    if args.spawn_echo && args.workload != Workload::Echo {
        return Err("--spawn-echo goes with --workload echo".into());
    }
    let echo_server = if args.spawn_echo {
        let server = echo::spawn_server(args.echo_bind_cores)
            .map_err(|e| format!("start the echo server: {e}"))?;
        targets.insert(
            0,
            Target::Echo {
                name: "echo://in-process".into(),
                addr: server.local_addr(),
            },
        );
        Some(server)
    } else {
        None
    };
    let threads = args.threads.unwrap_or_else(|| (cores() / 2).max(1));
    let show = std::io::stderr().is_terminal();
    let started_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    eprintln!(
        "xrpc bench: {} on {} target(s), concurrency {:?}, {} s after {} s warm-up, {} connection(s), {} thread(s), pipeline depth {}, {} cores",
        args.workload.name(),
        targets.len(),
        args.concurrency,
        args.duration,
        args.warmup,
        args.connections,
        threads,
        args.pipeline_depth,
        cores()
    );
    let mut results: Vec<Measurement> = Vec::new();
    let mut versions = serde_json::Map::new();
    let mut failed = false;
    let given_pids = args.server_pid.clone();
    let first_given = usize::from(args.spawn_echo);
    for (i, target) in targets.iter().enumerate() {
        let given = i
            .checked_sub(first_given)
            .and_then(|j| given_pids.get(j).copied());
        let server_pid = if args.spawn_echo && i == 0 {
            Some(std::process::id())
        } else {
            target.server_pid(given)
        };
        match server_pid {
            Some(pid) => eprintln!("  {}: server pid {pid}", target.name()),
            None => eprintln!(
                "  {}: no local server process found; no server CPU figure (see --server-pid)",
                target.name()
            ),
        }
        let probe = match probe(target, args) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("ERROR: {}: {e}", target.name());
                failed = true;
                continue;
            }
        };
        versions.insert(target.name().to_owned(), probe.version.clone().into());
        for &c in &args.concurrency {
            let spec = StepSpec {
                workload: args.workload,
                concurrency: c,
                connections: args.connections.max(1),
                threads,
                pipeline_depth: args.pipeline_depth.max(1),
                chunk: args.chunk,
                table_size: probe.table_size,
                payload: args.payload,
            };
            match run_step(target, &spec, args, show, server_pid) {
                Ok(m) => {
                    eprintln!(
                        "  {} c={}: {:.0} qps, p50 {} µs, p99 {} µs, {} errors, {} clients lost, client CPU {:.0}% ({}), server CPU {}",
                        m.target,
                        m.concurrency,
                        m.qps,
                        m.latency.p50_us,
                        m.latency.p99_us,
                        m.errors,
                        m.lost_clients,
                        m.client_cpu * 100.0,
                        m.client_cpu_us_per_request
                            .map_or("-".into(), |us| format!("{us:.2} µs/request")),
                        m.server_cpu_us_per_request
                            .map_or("-".into(), |us| format!("{us:.2} µs/request")),
                    );
                    if let Some(e) = &m.first_error {
                        eprintln!("    first error: {e}");
                    }
                    failed |= m.requests == 0;
                    results.push(m);
                }
                Err(e) => {
                    eprintln!("ERROR: {} c={c}: {e}", target.name());
                    failed = true;
                }
            }
        }
    }
    if let Some(server) = echo_server {
        server.shutdown();
    }
    print!("{}", render_table(&results, args.workload, args.wide));
    if let Some(path) = &args.json {
        let doc = serde_json::json!({
            "tool": "xrpc bench",
            "started_at_unix": started_at,
            "command": std::env::args().collect::<Vec<_>>(),
            "machine": stats::machine(),
            "versions": {
                "xrpc-cli": env!("CARGO_PKG_VERSION"),
                "rustc": env!("XRPC_RUSTC_VERSION"),
                "targets": versions,
            },
            "settings": {
                "workload": args.workload.name(),
                "duration_s": args.duration,
                "warmup_s": args.warmup,
                "connections": args.connections,
                "threads": threads,
                "pipeline_depth": args.pipeline_depth,
                "chunk": args.chunk,
            },
            "results": results,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("measurements written to {}", path.display());
    }
    if let Some(path) = &args.plot {
        let mut lines: Vec<plot::Line> = Vec::new();
        for m in &results {
            let point = (m.concurrency as f64, m.qps, m.latency.p99_us);
            match lines.iter_mut().find(|l| l.name == m.target) {
                Some(l) => l.points.push(point),
                None => lines.push(plot::Line {
                    name: m.target.clone(),
                    points: vec![point],
                }),
            }
        }
        for l in &mut lines {
            l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let title = format!("xrpc bench {} ({} cores)", args.workload.name(), cores());
        plot::plot(path, &title, &lines)?;
        eprintln!("plot written to {}", path.display());
    }
    Ok(i32::from(failed))
}

/// The widest the result table gets without `--wide`, in columns.
pub const TABLE_COLUMNS: usize = 100;

/// A latency in µs for the table: one decimal below 1 ms, whole µs above, where the tenth no
/// longer matters and the column stays narrow.
fn micros(us: f64) -> String {
    if us < 1000.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

/// The final table, with ratios when there are several targets.
///
/// By default it fits [`TABLE_COLUMNS`]: target, clients, QPS (and TPS), p50 and p99, errors,
/// the server's CPU per request and the ratio to the first target; target names that would widen
/// it beyond that become `#1`, `#2`… with a legend above the table. `wide` adds the connections,
/// p90 and p999, the generator's CPU share and CPU per request, and the ratio to the best target,
/// and keeps the names.
pub fn render_table(results: &[Measurement], workload: Workload, wide: bool) -> String {
    let mut names: Vec<&str> = Vec::new();
    for m in results {
        if !names.contains(&m.target.as_str()) {
            names.push(&m.target);
        }
    }
    let table = table_with_names(results, workload, wide, &names);
    let too_wide = table.lines().any(|l| l.chars().count() > TABLE_COLUMNS);
    if wide || !too_wide {
        return table;
    }
    let labels: Vec<String> = (1..=names.len()).map(|i| format!("#{i}")).collect();
    let mut out = String::new();
    for (label, name) in labels.iter().zip(&names) {
        out.push_str(&format!("{label}  {name}\n"));
    }
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let short: Vec<Measurement> = results
        .iter()
        .map(|m| {
            let i = names.iter().position(|n| *n == m.target).unwrap_or(0);
            Measurement {
                target: labels[i].to_owned(),
                ..m.clone()
            }
        })
        .collect();
    out.push_str(&table_with_names(&short, workload, wide, &labels));
    out
}

/// The table itself; `names` are the targets in order of appearance, the first being the base of
/// the `× first` ratio.
fn table_with_names(
    results: &[Measurement],
    workload: Workload,
    wide: bool,
    names: &[&str],
) -> String {
    let many = names.len() > 1;
    let first = names.first().copied().unwrap_or_default();
    let read_write = workload == Workload::ReadWrite;
    let per_request = |us: Option<f64>| us.map_or("-".into(), |us| format!("{us:.2}"));
    // The QPS of `m`'s concurrency divided by that of the first target, or of the best one.
    let ratio = |m: &Measurement, best: bool| {
        let same = results.iter().filter(|o| o.concurrency == m.concurrency);
        let base = if best {
            same.map(|o| o.qps).reduce(f64::max)
        } else {
            same.clone().find(|o| o.target == first).map(|o| o.qps)
        };
        match base {
            Some(b) if b > 0.0 => format!("{:.2}", m.qps / b),
            _ => "-".into(),
        }
    };
    type Cell<'c> = Box<dyn Fn(&Measurement) -> String + 'c>;
    // Each column: its header, whether the table shows it, and its cell.
    let columns: Vec<(&str, bool, Cell<'_>)> = vec![
        ("target", true, Box::new(|m| m.target.clone())),
        ("clients", true, Box::new(|m| m.concurrency.to_string())),
        ("conns", wide, Box::new(|m| m.connections.to_string())),
        ("QPS", true, Box::new(|m| format!("{:.0}", m.qps))),
        ("TPS", read_write, Box::new(|m| format!("{:.0}", m.tps))),
        ("p50 µs", true, Box::new(|m| micros(m.latency.p50_us))),
        ("p90 µs", wide, Box::new(|m| micros(m.latency.p90_us))),
        ("p99 µs", true, Box::new(|m| micros(m.latency.p99_us))),
        ("p999 µs", wide, Box::new(|m| micros(m.latency.p999_us))),
        (
            "errors",
            true,
            Box::new(|m| {
                if m.lost_clients > 0 {
                    format!("{} ({} lost)", m.errors, m.lost_clients)
                } else {
                    m.errors.to_string()
                }
            }),
        ),
        (
            "client CPU",
            wide,
            Box::new(|m| format!("{:.1}%", m.client_cpu * 100.0)),
        ),
        (
            "client µs/req",
            wide,
            Box::new(|m| per_request(m.client_cpu_us_per_request)),
        ),
        (
            "server µs/req",
            true,
            Box::new(|m| per_request(m.server_cpu_us_per_request)),
        ),
        ("× first", many, Box::new(|m| ratio(m, false))),
        ("× best", many && wide, Box::new(|m| ratio(m, true))),
    ];
    let shown: Vec<&(&str, bool, Cell<'_>)> = columns.iter().filter(|c| c.1).collect();
    let headers: Vec<&str> = shown.iter().map(|c| c.0).collect();
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|m| shown.iter().map(|c| (c.2)(m)).collect())
        .collect();
    let align: Vec<Align> = (0..headers.len())
        .map(|i| if i == 0 { Align::Left } else { Align::Right })
        .collect();
    grid(&headers, &rows, &align)
}

/// The CPU time of the target's server process plus every `--also-server-pid` process; `None`
/// when any of them cannot be read, since a sum that left one out would understate the cost.
fn server_cpu_with_companions(pid: u32, args: &BenchArgs) -> Option<Duration> {
    let mut pids = vec![pid];
    pids.extend_from_slice(&args.also_server_pids);
    pids_cpu(&pids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_ends_a_read_blocked_without_a_timeout_on_a_watched_socket() {
        use std::io::Read;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        // The peer stays open and silent: only the gate can end the read.
        let (_silent_peer, _) = listener.accept().unwrap();
        let gate = Gate::new(1);
        gate.watch(client.try_clone().unwrap());
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8];
            client.read(&mut buf)
        });
        gate.shut_watched();
        assert_eq!(reader.join().unwrap().unwrap(), 0, "the read sees EOF");
    }

    #[test]
    fn targets_parse_with_defaults_and_hide_passwords() {
        let Target::Xrpc { name, addr } = Target::parse("xrpc://app:s3cret@db1:4000/shop").unwrap()
        else {
            panic!("xrpc");
        };
        assert_eq!(name, "xrpc://db1:4000/shop");
        assert_eq!(
            (addr.user.as_str(), addr.password.as_str()),
            ("app", "s3cret")
        );
        assert_eq!(addr.schema.as_deref(), Some("shop"));
        let Target::Xrpc { addr, .. } = Target::parse("127.0.0.1").unwrap() else {
            panic!("bare host");
        };
        assert_eq!(
            (addr.addr.as_str(), addr.user.as_str()),
            ("127.0.0.1:33660", "root")
        );
        let m = Target::parse("mysql://root:pw@127.0.0.1:3306/sbtest").unwrap();
        assert_eq!(m.name(), "mysql://root@127.0.0.1:3306/sbtest");
        assert!(Target::parse("http://x").is_err());
        assert!(Target::parse("xrpc://").is_err());
    }

    #[test]
    fn target_user_info_and_database_are_percent_decoded() {
        let Target::Xrpc { name, addr } =
            Target::parse("xrpc://app%40corp:p%40ss%3Aw%2Fd@[::1]:4000/my%20db").unwrap()
        else {
            panic!("xrpc");
        };
        assert_eq!(
            (addr.user.as_str(), addr.password.as_str()),
            ("app@corp", "p@ss:w/d")
        );
        assert_eq!(addr.addr, "[::1]:4000");
        assert_eq!(addr.schema.as_deref(), Some("my db"));
        assert_eq!(name, "xrpc://[::1]:4000/my db");
        let m = Target::parse("mysql://root:p%40ss@db:3306/sbtest").unwrap();
        assert_eq!(
            m.name(),
            "mysql://root@db:3306/sbtest",
            "no password in names"
        );
    }

    /// A measurement with figures as wide as a run's get: a seven-digit QPS, latencies of
    /// hundreds of milliseconds, lost clients.
    fn measured(target: &str, concurrency: usize, qps: f64) -> Measurement {
        Measurement {
            workload: "read-write",
            target: target.to_owned(),
            concurrency,
            connections: 4,
            threads: 2,
            inflight: None,
            pipeline_depth: 1,
            qps,
            tps: qps / 20.0,
            latency: stats::Percentiles {
                p50_us: 123_456.7,
                p90_us: 234_567.8,
                p99_us: 345_678.9,
                p999_us: 456_789.0,
                max_us: 567_890.1,
            },
            errors: 12_345,
            requests: 1,
            lost_clients: 17,
            client_cpu: 0.4567,
            client_cores: 0.9,
            process_cpu: None,
            client_cpu_us_per_request: Some(12.34),
            server_pid: Some(1),
            server_cpu_us_per_request: Some(1234.56),
            server_cores: Some(1.0),
            server_own_cpu_us_per_request: None,
            duration_s: 10.0,
            intervals_qps: Vec::new(),
            first_error: None,
        }
    }

    fn widest_line(table: &str) -> usize {
        table.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn the_table_fits_100_columns_by_default() {
        let results: Vec<Measurement> = [
            "xrpc://127.0.0.1:33660",
            "mysql://root@127.0.0.1:3306/sbtest",
            "xrpc://bench-node-with-a-long-name.example.com:33660/sbtest",
        ]
        .iter()
        .flat_map(|t| [1, 64, 1024].map(|c| measured(t, c, 1_234_567.0)))
        .collect();
        for workload in [Workload::Select1, Workload::ReadWrite] {
            for n in [1, 3, 9] {
                let table = render_table(&results[..n], workload, false);
                assert!(
                    widest_line(&table) <= TABLE_COLUMNS,
                    "{} columns:\n{table}",
                    widest_line(&table)
                );
            }
        }
        // The default table keeps the figures read most.
        let table = render_table(&results[..1], Workload::Select1, false);
        for header in [
            "| target",
            "| clients",
            "| QPS",
            "| p50 µs",
            "| p99 µs",
            "| errors",
        ] {
            assert!(table.contains(header), "{header} in\n{table}");
        }
        assert!(table.contains("| server µs/req"), "{table}");
        assert!(!table.contains("p999"), "{table}");
    }

    #[test]
    fn long_target_names_become_numbered_with_a_legend() {
        let results = [
            measured("mysql://root@127.0.0.1:3306/sbtest", 64, 1000.0),
            measured(
                "xrpc://bench-node-with-a-long-name.example.com:33660/sbtest",
                64,
                2000.0,
            ),
        ];
        let table = render_table(&results, Workload::ReadWrite, false);
        assert!(
            table.starts_with(
                "#1  mysql://root@127.0.0.1:3306/sbtest\n\
                 #2  xrpc://bench-node-with-a-long-name.example.com:33660/sbtest\n+"
            ),
            "{table}"
        );
        assert!(table.contains("| #2     |"), "{table}");
        // The ratio to the first target: 2000 / 1000.
        assert!(table.contains("|    2.00 |"), "{table}");
    }

    #[test]
    fn wide_adds_the_rarely_read_columns_and_keeps_the_names() {
        let results = [
            measured("xrpc://127.0.0.1:33660", 8, 1000.0),
            measured("mysql://root@127.0.0.1:3306/sbtest", 8, 500.0),
        ];
        let table = render_table(&results, Workload::Select1, true);
        for header in [
            "| conns",
            "| p90 µs",
            "| p999 µs",
            "| client CPU",
            "| client µs/req",
            "| × best",
        ] {
            assert!(table.contains(header), "{header} in\n{table}");
        }
        assert!(
            table.contains("| mysql://root@127.0.0.1:3306/sbtest |"),
            "{table}"
        );
        assert!(widest_line(&table) > TABLE_COLUMNS, "{table}");
    }
}
