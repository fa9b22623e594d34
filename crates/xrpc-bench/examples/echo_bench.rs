//! The echo benchmark: xrpc-net against a raw single-threaded epoll loop (the practical limit) and
//! a tokio server (what a Rust user would pick), all with the same framing, in one invocation.
//!
//! ```text
//! cargo run --release -p xrpc-bench --example echo-bench -- \
//!     [--duration 3] [--warmup 1] [--cases 1x1,4x16,4x128,64x8,1024x1] \
//!     [--servers xrpc,raw,tokio] [--payload 16] [--server-threads 1] [--no-pin] [--json FILE] \
//!     [--repeat 1] [--xrpc-events 4] [--xrpc-recv-buf 4096] [--xrpc-no-tasker] [--xrpc-no-bind]
//! ```
//!
//! With `--repeat R` each case runs R times, the servers taking turns, and the run with the
//! median QPS is reported (useful on a shared machine).
//!
//! Each case `NxM` opens N connections and keeps M requests in flight on each. The load generator
//! is [`xrpc_bench::loadgen`] (shared with `xrpc bench --workload echo`): one thread running its own
//! edge-triggered epoll loop that matches each response with the send time of the oldest
//! outstanding request on its connection (echo keeps order) and sends as many new requests as it
//! received answers, in one write. Latencies go to an hdrhistogram; warm-up traffic is not
//! measured.
//!
//! On a machine with at least two CPUs the servers run on CPU 0 and the load generator on CPU 1
//! (`--no-pin` turns this off), so every server gets the same single core. `--server-threads`
//! sets xrpc's `threads_per_group` and tokio's worker threads; the raw loop is single-threaded by
//! definition.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{ArgAction, Parser};
use hdrhistogram::Histogram;
use xrpc_bench::echo::EchoHandler;
use xrpc_bench::loadgen::{self, EchoLoad};
use xrpc_bench::poll::{self, Epoll, Events, RecvResult};
use xrpc_net::{NetConfig, Server};
use xrpc_proto::frame::{FrameConfig, FrameHeader};

/// Runs the echo benchmark: xrpc-net against a raw epoll loop and a tokio server.
#[derive(Debug, Clone, Parser)]
#[command(name = "echo-bench")]
struct Opts {
    /// Seconds measured per case and server.
    #[arg(long, default_value = "3", value_parser = seconds)]
    duration: Duration,
    /// Seconds of unmeasured traffic before each measurement.
    #[arg(long, default_value = "1", value_parser = seconds)]
    warmup: Duration,
    /// Cases `NxM`: N connections with M frames in flight on each, comma-separated.
    #[arg(long, default_value = "1x1,4x16,4x128,64x8,1024x1", value_delimiter = ',', value_parser = case)]
    cases: Vec<(usize, usize)>,
    /// Servers to measure, comma-separated.
    #[arg(long, default_value = "xrpc,raw,tokio", value_delimiter = ',',
          value_parser = ["xrpc", "raw", "tokio"])]
    servers: Vec<String>,
    /// Body bytes per frame.
    #[arg(long, default_value_t = 16)]
    payload: usize,
    /// xrpc's `threads_per_group` and tokio's worker threads.
    #[arg(long, default_value_t = 1)]
    server_threads: usize,
    /// Do not pin the servers to CPU 0 and the load generator to CPU 1.
    #[arg(long = "no-pin", action = ArgAction::SetFalse)]
    pin: bool,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<String>,
    /// xrpc's `events_per_thread`.
    #[arg(long, default_value_t = 4)]
    xrpc_events: usize,
    /// xrpc's fixed receive buffer, in bytes.
    #[arg(long, default_value_t = 4096)]
    xrpc_recv_buf: usize,
    /// Turn xrpc's dynamic pool (tasker) off.
    #[arg(long = "xrpc-no-tasker", action = ArgAction::SetFalse)]
    xrpc_tasker: bool,
    /// Do not pin xrpc's workers to cores.
    #[arg(long = "xrpc-no-bind", action = ArgAction::SetFalse)]
    xrpc_bind: bool,
    /// Runs per case and server; the run with the median QPS is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    repeat: u64,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// Parses a non-negative number of seconds, fractions allowed.
fn seconds(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|e| format!("{s:?} is not a number of seconds: {e}"))?;
    Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?} is not a duration: {e}"))
}

/// Parses a case `NxM` with N and M at least 1.
fn case(s: &str) -> Result<(usize, usize), String> {
    let (n, m) = s
        .split_once('x')
        .ok_or_else(|| format!("case {s:?} is not NxM"))?;
    let count = |part: &str| match part.parse::<usize>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!("case {s:?}: {part:?} is not a positive count")),
    };
    Ok((count(n)?, count(m)?))
}

/// Length of the prefix of `buf` made of complete frames.
fn complete_prefix(buf: &[u8], cfg: &FrameConfig) -> usize {
    let hl = cfg.format.header_len();
    let mut pos = 0;
    while let Ok(Some(h)) = FrameHeader::parse(&buf[pos..], cfg) {
        let wire = hl + h.body_len as usize;
        if buf.len() - pos < wire {
            break;
        }
        pos += wire;
    }
    pos
}

// ---------------------------------------------------------------------------------------------
// Servers.

/// A running server under test.
enum Running {
    Xrpc(Server<EchoHandler>),
    Raw(Arc<AtomicBool>, std::thread::JoinHandle<()>),
    Tokio(tokio::runtime::Runtime),
}

impl Running {
    fn stop(self) {
        match self {
            Running::Xrpc(s) => s.shutdown(),
            Running::Raw(stop, t) => {
                stop.store(true, Ordering::Release);
                t.join().unwrap();
            }
            Running::Tokio(rt) => rt.shutdown_timeout(Duration::from_secs(1)),
        }
    }
}

fn start_server(kind: &str, opts: &Opts) -> (Running, SocketAddr) {
    let threads = opts.server_threads;
    let any = SocketAddr::from(([127, 0, 0, 1], 0));
    match kind {
        "xrpc" => {
            let cfg = NetConfig {
                listen: any,
                groups: 1,
                threads_per_group: threads,
                events_per_thread: opts.xrpc_events,
                fixed_recv_buf: opts.xrpc_recv_buf,
                enable_tasker: opts.xrpc_tasker,
                bind_cores: opts.xrpc_bind,
                listen_backlog: 4096,
                ..NetConfig::default()
            };
            let s = Server::start(cfg, EchoHandler).expect("start xrpc");
            let addr = s.local_addr();
            (Running::Xrpc(s), addr)
        }
        "raw" => {
            let l = TcpListener::bind(any).unwrap();
            l.set_nonblocking(true).unwrap();
            let addr = l.local_addr().unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            let st = stop.clone();
            let t = std::thread::spawn(move || raw_server(l, &st));
            (Running::Raw(stop, t), addr)
        }
        "tokio" => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(threads)
                .enable_all()
                .build()
                .unwrap();
            let l = rt.block_on(tokio::net::TcpListener::bind(any)).unwrap();
            let addr = l.local_addr().unwrap();
            rt.spawn(tokio_server(l));
            (Running::Tokio(rt), addr)
        }
        other => panic!("unknown server {other}"),
    }
}

/// The practical limit: one thread, level-triggered epoll, one read and one write per readiness,
/// no framework.
fn raw_server(listener: TcpListener, stop: &AtomicBool) {
    const LISTENER: u64 = u64::MAX;
    let cfg = FrameConfig::default();
    let ep = Epoll::new().unwrap();
    ep.add_level_read(listener.as_fd(), LISTENER).unwrap();
    let mut conns: Vec<Option<(TcpStream, Vec<u8>, usize)>> = Vec::new();
    let mut events = Events::with_capacity(256);
    while !stop.load(Ordering::Acquire) {
        let n = ep
            .wait(&mut events, Some(Duration::from_millis(50)))
            .unwrap();
        for i in 0..n {
            let (token, _) = events.get(i);
            if token == LISTENER {
                while let Ok((s, _)) = listener.accept() {
                    s.set_nodelay(true).unwrap();
                    s.set_nonblocking(true).unwrap();
                    let slot = conns.iter().position(Option::is_none).unwrap_or_else(|| {
                        conns.push(None);
                        conns.len() - 1
                    });
                    ep.add_level_read(s.as_fd(), slot as u64).unwrap();
                    conns[slot] = Some((s, vec![0; 64 * 1024], 0));
                }
                continue;
            }
            let slot = token as usize;
            let Some((s, buf, filled)) = conns[slot].as_mut() else {
                continue;
            };
            let close = match poll::recv(s.as_fd(), &mut buf[*filled..]) {
                RecvResult::Data(n) => {
                    *filled += n;
                    let end = complete_prefix(&buf[..*filled], &cfg);
                    let ok = end == 0 || write_blocking(s, &buf[..end]);
                    buf.copy_within(end..*filled, 0);
                    *filled -= end;
                    if *filled == buf.len() {
                        buf.resize(buf.len() * 2, 0);
                    }
                    !ok
                }
                RecvResult::WouldBlock | RecvResult::Interrupted => false,
                RecvResult::Eof | RecvResult::Error(_) => true,
            };
            if close {
                let (s, _, _) = conns[slot].take().unwrap();
                let _ = ep.delete(s.as_fd());
            }
        }
    }
}

fn write_blocking(s: &mut TcpStream, mut data: &[u8]) -> bool {
    while !data.is_empty() {
        match s.write(data) {
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if !matches!(
                    poll::poll_writable(s.as_fd(), Duration::from_secs(10)),
                    Ok(true)
                ) {
                    return false;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

/// The tokio reference: a task per connection that answers the complete frames of each read.
async fn tokio_server(listener: tokio::net::TcpListener) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    loop {
        let Ok((mut s, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let _ = s.set_nodelay(true);
            let cfg = FrameConfig::default();
            let mut buf = vec![0u8; 64 * 1024];
            let mut filled = 0;
            loop {
                let n = match s.read(&mut buf[filled..]).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                filled += n;
                let end = complete_prefix(&buf[..filled], &cfg);
                if end > 0 {
                    if s.write_all(&buf[..end]).await.is_err() {
                        return;
                    }
                    buf.copy_within(end..filled, 0);
                    filled -= end;
                }
                if filled == buf.len() {
                    buf.resize(buf.len() * 2, 0);
                }
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Load generator: the shared closed loop in `xrpc_bench::loadgen`.

#[derive(Debug, Clone)]
struct CaseResult {
    server: String,
    conns: usize,
    inflight: usize,
    qps: f64,
    p50_us: f64,
    p99_us: f64,
    p999_us: f64,
    max_us: f64,
    requests: u64,
}

/// Latencies of the measured window, from the shared generator.
struct Hist(Histogram<u64>);

impl loadgen::Recorder for Hist {
    fn start(&mut self, _now: Instant) {
        self.0.reset();
    }

    fn record(&mut self, latency_ns: u64) {
        let _ = self.0.record(latency_ns.max(1));
    }
}

/// Runs one case through [`xrpc_bench::loadgen`], the generator `xrpc bench --workload echo` uses.
fn run_case(
    server: &str,
    addr: SocketAddr,
    conns: usize,
    inflight: usize,
    opts: &Opts,
) -> CaseResult {
    let load = EchoLoad {
        addr,
        connections: conns,
        inflight,
        payload: opts.payload,
        warmup: opts.warmup,
        duration: opts.duration,
    };
    let mut hist = Hist(Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap());
    let report = loadgen::run_echo(&load, &mut hist).expect("echo load");
    let hist = hist.0;
    let us = |ns: u64| ns as f64 / 1000.0;
    CaseResult {
        server: server.to_owned(),
        conns,
        inflight,
        qps: report.qps(),
        p50_us: us(hist.value_at_quantile(0.50)),
        p99_us: us(hist.value_at_quantile(0.99)),
        p999_us: us(hist.value_at_quantile(0.999)),
        max_us: us(hist.max()),
        requests: report.requests,
    }
}

fn main() {
    let opts = Opts::parse();
    let cpus = xrpc_net::affinity::allowed_cpus().unwrap_or_default();
    let pin = opts.pin && cpus.len() >= 2;
    if pin {
        // Servers (started from this thread) inherit CPU 0; the load generator moves to CPU 1.
        xrpc_net::affinity::pin_current_thread(&cpus[..1]).unwrap();
    }
    let client_cpu = cpus.get(1).copied();
    let mut results = Vec::new();
    for &(conns, inflight) in &opts.cases {
        // Servers take turns within each repetition, so slow phases of a shared machine hit all
        // of them; the run with the median QPS is reported.
        let mut runs: Vec<Vec<CaseResult>> = vec![Vec::new(); opts.servers.len()];
        for _ in 0..opts.repeat {
            for (si, server) in opts.servers.iter().enumerate() {
                let (running, addr) = start_server(server, &opts);
                let o = opts.clone();
                let name = server.clone();
                let r = std::thread::spawn(move || {
                    if pin {
                        xrpc_net::affinity::pin_current_thread(&[client_cpu.unwrap()]).unwrap();
                    }
                    run_case(&name, addr, conns, inflight, &o)
                })
                .join()
                .unwrap();
                if let Running::Xrpc(s) = &running {
                    let st = s.stats();
                    eprintln!(
                        "      xrpc: inline {} queued {} extra threads started {}/{}/{} (stall/queue/watchdog) eventfd writes {}",
                        st.run_inline,
                        st.run_queued,
                        st.threads_by_stall,
                        st.threads_by_queue,
                        st.watchdog_wakeups,
                        st.eventfd_notifies
                    );
                }
                running.stop();
                eprintln!(
                    "{:>5} {:>4}x{:<4} qps {:>10.0}  p50 {:>8.1}us  p99 {:>8.1}us  p999 {:>8.1}us",
                    r.server, r.conns, r.inflight, r.qps, r.p50_us, r.p99_us, r.p999_us
                );
                runs[si].push(r);
                // Let TIME_WAIT sockets and threads settle between runs.
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        for mut r in runs {
            r.sort_by(|a, b| a.qps.total_cmp(&b.qps));
            results.push(r[r.len() / 2].clone());
        }
    }

    println!(
        "| case | server | QPS | p50 (µs) | p99 (µs) | xrpc/limit | xrpc/tokio |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for &(conns, inflight) in &opts.cases {
        let find = |s: &str| {
            results
                .iter()
                .find(|r| r.server == s && r.conns == conns && r.inflight == inflight)
        };
        let x = find("xrpc").map(|r| r.qps);
        for r in results
            .iter()
            .filter(|r| r.conns == conns && r.inflight == inflight)
        {
            let (lim, tok) = if r.server == "xrpc" {
                let ratio = |o: Option<&CaseResult>| match (x, o) {
                    (Some(x), Some(o)) if o.qps > 0.0 => format!("{:.2}", x / o.qps),
                    _ => "-".into(),
                };
                (ratio(find("raw")), ratio(find("tokio")))
            } else {
                (String::new(), String::new())
            };
            println!(
                "| {}×{} | {} | {:.0} | {:.1} | {:.1} | {} | {} |",
                conns, inflight, r.server, r.qps, r.p50_us, r.p99_us, lim, tok
            );
        }
    }
    if let Some(path) = &opts.json {
        let json: Vec<_> = results
            .iter()
            .map(|r| {
                serde_json::json!({
                    "server": r.server, "conns": r.conns, "inflight": r.inflight,
                    "qps": r.qps, "p50_us": r.p50_us, "p99_us": r.p99_us,
                    "p999_us": r.p999_us, "max_us": r.max_us, "requests": r.requests,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "duration_s": opts.duration.as_secs_f64(),
            "warmup_s": opts.warmup.as_secs_f64(),
            "payload": opts.payload,
            "server_threads": opts.server_threads,
            "repeat": opts.repeat,
            "xrpc_events_per_thread": opts.xrpc_events,
            "xrpc_fixed_recv_buf": opts.xrpc_recv_buf,
            "xrpc_bind_cores": opts.xrpc_bind,
            "pinned": pin,
            "results": json,
        });
        std::fs::File::create(path)
            .and_then(|mut f| f.write_all(serde_json::to_string_pretty(&doc).unwrap().as_bytes()))
            .expect("write json");
    }
    let _ = std::io::stdout().flush();
}
