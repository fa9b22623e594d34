//! The Prometheus endpoint: a tiny HTTP/1.1 server on its own thread, off by default.
//!
//! `--metrics 127.0.0.1:9633` starts a [`MetricsServer`]. It answers `GET /metrics` (and `HEAD`)
//! with the text exposition format 0.0.4, rendered by [`render`]: the node's status variables,
//! the framework's counters and the per-stage histograms, the same numbers as `SHOW STATUS` and
//! `CALL xrpc.perf_hist`. Any other path gets 404, another method on `/metrics` 405, and a request
//! that is not HTTP 400.
//!
//! # Design
//!
//! - One thread, one request per connection (`Connection: close`), served in turn. Reads and
//!   writes have a 2 s timeout and the request head is capped at 8 KiB, so a slow or hostile
//!   client delays the next scrape by at most a few seconds and never holds memory. The endpoint
//!   shares nothing with the data path but the status source, which reads atomics.
//! - The listener blocks in `accept`. [`MetricsServer::shutdown`] (also run on drop) sets a flag
//!   and connects to the listener once to wake it; the thread sees the flag, exits, and is joined.
//!   Should that connection fail, the thread is left detached rather than blocking shutdown.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use xrpc_net::hist::PerfHistograms;
use xrpc_net::metrics::{CONTENT_TYPE, Exposition, metric_name};

use crate::admin::StatusSource;

/// Read and write timeout of one scrape.
const IO_TIMEOUT: Duration = Duration::from_secs(2);
/// Largest request head read.
const MAX_REQUEST: usize = 8 * 1024;

/// How a status variable of `SHOW STATUS` is exported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatusKind {
    /// A level read at scrape time; the metric keeps the status name.
    Gauge,
    /// A total since start; the metric is the status name plus `_total`.
    Counter,
}

/// The node's status variables with their Prometheus type and help, in `SHOW STATUS` order.
const STATUS_METRICS: &[(&str, StatusKind, &str)] = &[
    (
        "xrpc_inited",
        StatusKind::Gauge,
        "1 once the node serves (SHOW STATUS ON), 0 before (OFF).",
    ),
    (
        "xrpc_tcp_connections",
        StatusKind::Gauge,
        "Open client TCP connections.",
    ),
    (
        "xrpc_tcp_closing",
        StatusKind::Gauge,
        "Connections shut down and waiting for delayed release.",
    ),
    (
        "xrpc_worker_sessions",
        StatusKind::Gauge,
        "Sessions opened with SESS_NEW and not yet closed.",
    ),
    (
        "xrpc_total_sessions",
        StatusKind::Gauge,
        "Live sessions, auto-commit ones included.",
    ),
    (
        "xrpc_threads",
        StatusKind::Gauge,
        "Running framework workers, base and extra.",
    ),
    (
        "xrpc_sql_hit",
        StatusKind::Counter,
        "Digest-only statements found in the digest cache.",
    ),
    (
        "xrpc_sql_miss",
        StatusKind::Counter,
        "Digest-only statements not found in the digest cache (answered with error 6000).",
    ),
    (
        "xrpc_sql_evict",
        StatusKind::Counter,
        "Statements evicted from the digest cache.",
    ),
    // The mysql engine's backend pool (engine/mysql/pool.rs, `PoolStats::status_rows`).
    (
        "xrpc_backend_open",
        StatusKind::Gauge,
        "Open backend connections.",
    ),
    (
        "xrpc_backend_idle",
        StatusKind::Gauge,
        "Backend connections in the pool, unused.",
    ),
    (
        "xrpc_backend_borrowed",
        StatusKind::Gauge,
        "Backend connections running a statement.",
    ),
    (
        "xrpc_backend_pinned",
        StatusKind::Gauge,
        "Backend connections held by a session's state.",
    ),
    (
        "xrpc_backend_waits",
        StatusKind::Counter,
        "Statements that waited for a backend connection.",
    ),
    (
        "xrpc_backend_wait_time_us",
        StatusKind::Counter,
        "Microseconds statements waited for a backend connection.",
    ),
    (
        "xrpc_backend_wait_timeouts",
        StatusKind::Counter,
        "Waits for a backend connection that timed out (error 7009).",
    ),
    (
        "xrpc_backend_connects",
        StatusKind::Counter,
        "Backend connections opened.",
    ),
    (
        "xrpc_backend_reconnects",
        StatusKind::Counter,
        "Backend connections opened again after a loss.",
    ),
    (
        "xrpc_backend_connect_errors",
        StatusKind::Counter,
        "Failed attempts to open a backend connection.",
    ),
    (
        "xrpc_backend_lost",
        StatusKind::Counter,
        "Backend connections lost while in use.",
    ),
    (
        "xrpc_backend_errors",
        StatusKind::Counter,
        "Statements the backend failed.",
    ),
];

/// The metrics text, rendered once by [`xrpc_net::metrics::Exposition`]: the status variables
/// (`xrpc_*`, numeric ones only, `ON`/`OFF` as 1/0) typed by `STATUS_METRICS` (counters get
/// `_total`; a variable missing from the table is exported as a gauge, the type that claims
/// nothing about monotonicity), the framework counters (`xrpc_net_*`, gauges and `_total`
/// counters) and the stage histograms (`xrpc_stage_duration_seconds`).
pub fn render(status: &dyn StatusSource, hist: &PerfHistograms) -> String {
    let mut exp = Exposition::new();
    for (name, value) in status.status().into_iter().chain(status.engine_status()) {
        let number = match value.as_str() {
            "ON" => 1.0,
            "OFF" => 0.0,
            v => match v.parse::<f64>() {
                Ok(n) if n.is_finite() => n,
                _ => continue,
            },
        };
        let metric = metric_name(&name);
        match STATUS_METRICS.iter().find(|(known, _, _)| *known == name) {
            Some((_, StatusKind::Counter, help)) => exp.counter(&metric, help, number),
            Some((_, StatusKind::Gauge, help)) => exp.gauge(&metric, help, number),
            None => exp.gauge(
                &metric,
                &format!("Status variable {name} (SHOW STATUS)."),
                number,
            ),
        }
    }
    status.net_stats().write_metrics(&mut exp, "xrpc_net");
    hist.write_metrics(&mut exp, "xrpc");
    exp.render()
}

/// The running endpoint. See the [module docs](self).
#[derive(Debug)]
pub struct MetricsServer {
    local_addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Binds `addr` and serves `GET /metrics` with the text `render` returns, on a thread named
    /// `xrpc-metrics`.
    pub fn start<F>(addr: SocketAddr, render: F) -> io::Result<Self>
    where
        F: Fn() -> String + Send + 'static,
    {
        let listener = TcpListener::bind(addr)?;
        let local_addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        let thread = std::thread::Builder::new()
            .name("xrpc-metrics".into())
            .spawn(move || serve(listener, &thread_stop, &render))?;
        Ok(Self {
            local_addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address bound (with the real port when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting and joins the thread.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        self.stop.store(true, Ordering::Release);
        // Wake the blocking accept; an unspecified bind address is reachable on loopback.
        let mut wake = self.local_addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake.ip() {
                IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
            });
        }
        match TcpStream::connect_timeout(&wake, IO_TIMEOUT) {
            Ok(_) => {
                let _ = thread.join();
            }
            Err(err) => {
                tracing::warn!(addr = %wake, error = %err, "cannot wake the metrics thread; leaving it detached");
            }
        }
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// The accept loop.
fn serve(listener: TcpListener, stop: &AtomicBool, render: &dyn Fn() -> String) {
    for conn in listener.incoming() {
        if stop.load(Ordering::Acquire) {
            return;
        }
        match conn {
            Ok(stream) => {
                if let Err(err) = answer(stream, render) {
                    tracing::debug!(error = %err, "metrics request failed");
                }
            }
            Err(err) => {
                // Out of descriptors and the like: back off rather than spin.
                tracing::warn!(error = %err, "metrics accept failed");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// Reads one request head and writes one response.
fn answer(mut stream: TcpStream, render: &dyn Fn() -> String) -> io::Result<()> {
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let (method, target, version) = (parts.next(), parts.next(), parts.next());
    let (status, body, allow) = match (method, target, version) {
        (Some(method), Some(target), Some(v)) if v.starts_with("HTTP/") => {
            let path = target.split('?').next().unwrap_or_default();
            match (method, path) {
                ("GET" | "HEAD", "/metrics") => ("200 OK", render(), false),
                (_, "/metrics") => ("405 Method Not Allowed", "GET only\n".to_owned(), true),
                _ => (
                    "404 Not Found",
                    "not found; try /metrics\n".to_owned(),
                    false,
                ),
            }
        }
        _ => ("400 Bad Request", "bad request\n".to_owned(), false),
    };
    let content_type = if status.starts_with("200") {
        CONTENT_TYPE
    } else {
        "text/plain; charset=utf-8"
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if allow {
        response.push_str("Allow: GET, HEAD\r\n");
    }
    response.push_str("\r\n");
    if method != Some("HEAD") {
        response.push_str(&body);
    }
    stream.write_all(response.as_bytes())?;
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use xrpc_net::hist::Stage;
    use xrpc_net::stats::NetStats;

    use super::*;

    struct FakeStatus;

    impl StatusSource for FakeStatus {
        fn status(&self) -> Vec<(String, String)> {
            vec![
                ("xrpc_inited".into(), "ON".into()),
                ("xrpc_tcp_connections".into(), "4".into()),
                ("xrpc_engine".into(), "sqlite".into()),
                ("xrpc_sql_hit".into(), "12".into()),
                ("weird-name".into(), "1".into()),
            ]
        }

        fn net_stats(&self) -> NetStats {
            NetStats {
                accepted_total: 9,
                ..NetStats::default()
            }
        }
    }

    /// A node on the mysql engine: its backend pool's rows are typed metrics too.
    struct FakeBackendStatus;

    impl StatusSource for FakeBackendStatus {
        fn status(&self) -> Vec<(String, String)> {
            vec![("xrpc_inited".into(), "ON".into())]
        }

        fn engine_status(&self) -> Vec<(String, String)> {
            vec![
                ("xrpc_backend_open".into(), "3".into()),
                ("xrpc_backend_waits".into(), "7".into()),
            ]
        }

        fn net_stats(&self) -> NetStats {
            NetStats::default()
        }
    }

    #[test]
    fn backend_pool_rows_are_exported() {
        let body = render(&FakeBackendStatus, &PerfHistograms::new(false));
        assert!(
            body.contains("# TYPE xrpc_backend_open gauge\nxrpc_backend_open 3\n"),
            "{body}"
        );
        assert!(
            body.contains("# TYPE xrpc_backend_waits_total counter\nxrpc_backend_waits_total 7\n"),
            "{body}"
        );
    }

    fn start() -> MetricsServer {
        let hist = Arc::new(PerfHistograms::new(true));
        hist.record(Stage::Run, Duration::from_micros(5));
        MetricsServer::start("127.0.0.1:0".parse().unwrap(), move || {
            render(&FakeStatus, &hist)
        })
        .unwrap()
    }

    fn request(addr: SocketAddr, head: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let mut out = String::new();
        stream.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn metrics_endpoint_serves_200() {
        let server = start();
        let response = request(
            server.local_addr(),
            "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        );
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert!(head.contains("Content-Type: text/plain; version=0.0.4"));
        assert!(head.contains(&format!("Content-Length: {}", body.len())));
        assert!(body.contains("# TYPE xrpc_inited gauge\nxrpc_inited 1\n"));
        assert!(body.contains("# TYPE xrpc_tcp_connections gauge\nxrpc_tcp_connections 4\n"));
        assert!(body.contains("# TYPE xrpc_sql_hit_total counter\nxrpc_sql_hit_total 12\n"));
        assert!(
            !body.contains("xrpc_engine"),
            "non-numeric status is skipped"
        );
        assert!(body.contains("# TYPE weird_name gauge\nweird_name 1\n"));
        assert!(
            body.contains("# TYPE xrpc_net_accepted_total counter\nxrpc_net_accepted_total 9\n")
        );
        assert!(body.contains("xrpc_stage_duration_seconds_count{stage=\"run\"} 1\n"));
        assert!(body.contains("xrpc_perf_hist_enabled 1"));
        // Every sample line is `name[{labels}] number`.
        for line in body.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
        server.shutdown();
    }

    #[test]
    fn other_paths_get_404_and_other_methods_405() {
        let server = start();
        let addr = server.local_addr();
        assert!(request(addr, "GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 Not Found\r\n"));
        assert!(
            request(addr, "GET /metricsx HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 404 Not Found")
        );
        let post = request(addr, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        assert!(
            post.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
            "{post}"
        );
        assert!(post.contains("Allow: GET, HEAD\r\n"));
        assert!(request(addr, "garbage\r\n\r\n").starts_with("HTTP/1.1 400 Bad Request"));
        let head = request(addr, "HEAD /metrics?x=1 HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 200 OK"));
        assert!(head.ends_with("\r\n\r\n"), "HEAD has no body");
        drop(server);
    }

    #[test]
    fn a_silent_client_does_not_block_shutdown_forever() {
        let server = start();
        let addr = server.local_addr();
        // A client that connects and says nothing holds the thread for at most the read timeout.
        let _idle = TcpStream::connect(addr).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        server.shutdown();
        assert!(started.elapsed() < IO_TIMEOUT * 3);
        assert!(TcpStream::connect(addr).is_err(), "listener closed");
    }
}
