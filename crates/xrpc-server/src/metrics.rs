//! The Prometheus endpoint: an HTTP/1.1 server on its own thread, off by default.
//!
//! `--metrics 127.0.0.1:9633` starts a [`MetricsServer`]. It answers `GET /metrics` (and `HEAD`)
//! with the text exposition format 0.0.4, rendered by [`render`]: the node's status variables,
//! the framework's counters and the per-stage histograms, the same numbers as `SHOW STATUS` and
//! `CALL xrpc.perf_hist`. Any other path gets 404, another method on `/metrics` 405 (with
//! `Allow`), and a request that is not HTTP/1.x is answered by hyper (400, or 431 for a head
//! over 8 KiB) before this module sees it.
//!
//! # Design
//!
//! - HTTP is hyper's (`hyper::server::conn::http1`): parsing, framing, HEAD, error answers. This
//!   module owns only the routes and the limits.
//! - One thread runs a one-thread tokio runtime: connections are tasks, not threads, so slow
//!   clients cost a few KiB each, never a thread. Limits: the request head must arrive within
//!   [`IO_TIMEOUT`] (hyper's header read timeout, against clients that trickle bytes), a whole
//!   connection lives at most [`CONNECTION_DEADLINE`] (against clients that never read the
//!   answer), at most [`MAX_CONNECTIONS`] are served at once (more are closed at accept), the
//!   head is at most 8 KiB, and every connection serves one request (`Connection: close`).
//! - The endpoint shares nothing with the data path but the status source, which reads atomics:
//!   whatever arrives on the metrics port, the protocol port is served as before (tested in
//!   `tests/it/metrics_http.rs`).
//! - [`MetricsServer::shutdown`] (also run on drop) signals the accept loop and joins the
//!   thread; dropping the runtime closes the connections still open.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{ALLOW, CONNECTION, CONTENT_TYPE as CONTENT_TYPE_HEADER};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, oneshot};
use xrpc_net::hist::PerfHistograms;
use xrpc_net::metrics::{CONTENT_TYPE, Exposition, metric_name};

use crate::admin::StatusSource;

/// How long a client may take to send its request head.
pub const IO_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one connection may live, answer included.
pub const CONNECTION_DEADLINE: Duration = Duration::from_secs(10);
/// Connections served at once; more are closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 64;
/// Largest request head read (hyper's smallest buffer limit).
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
        "xrpc_blocked_hosts",
        StatusKind::Gauge,
        "Client addresses blocked by xrpc_max_connect_errors.",
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
    (
        "xrpc_plan_hit",
        StatusKind::Counter,
        "Digest-only plans found in the plan digest cache.",
    ),
    (
        "xrpc_plan_miss",
        StatusKind::Counter,
        "Digest-only plans not found in the plan digest cache (answered with error 8000).",
    ),
    (
        "xrpc_plan_evict",
        StatusKind::Counter,
        "Plans evicted from the plan digest cache.",
    ),
    // The compiled-plan cache (plan/catalog.rs, "Counters").
    (
        "xrpc_plan_compiled_hit",
        StatusKind::Counter,
        "Plans run from a kept compiled plan.",
    ),
    (
        "xrpc_plan_compiled_miss",
        StatusKind::Counter,
        "Plans that could have used a kept compiled plan and found none usable.",
    ),
    (
        "xrpc_plan_compilations",
        StatusKind::Counter,
        "Plans compiled into SQL, failed compiles included.",
    ),
    (
        "xrpc_plan_compiled_evict",
        StatusKind::Counter,
        "Compiled plans dropped because the cache was full.",
    ),
    (
        "xrpc_plan_compiled_invalidated",
        StatusKind::Counter,
        "Compiled plans dropped because a schema may have changed.",
    ),
    (
        "xrpc_plan_compiled_expired",
        StatusKind::Counter,
        "Compiled plans dropped because their table shapes outlived the engine's shape lifetime.",
    ),
    (
        "xrpc_plan_compiled_entries",
        StatusKind::Gauge,
        "Compiled plans kept.",
    ),
    // The process's binary log.
    (
        "xrpc_binlog_written",
        StatusKind::Counter,
        "Binary log entries written.",
    ),
    (
        "xrpc_binlog_dropped",
        StatusKind::Counter,
        "Binary log entries dropped because the writer's queue was full.",
    ),
    // The SQLite engine's connection pool (engine/sqlite.rs, `status_rows`).
    (
        "xrpc_engine_idle",
        StatusKind::Gauge,
        "SQLite engine connections in the pool, unused.",
    ),
    (
        "xrpc_engine_borrowed",
        StatusKind::Gauge,
        "SQLite engine connections held by sessions.",
    ),
    (
        "xrpc_engine_opened",
        StatusKind::Counter,
        "SQLite engine connections opened.",
    ),
    (
        "xrpc_engine_statements",
        StatusKind::Counter,
        "SQLite statements stepped: clients' statements as rewritten, and the BEGIN, COMMIT, ROLLBACK, savepoints and trigger DDL the engine runs for them.",
    ),
    // The mysql engine (`BackendStats::status_rows`): its event-loop driver's rows
    // (`DriverStats::status_rows`), whose `xrpc_backend_pipeline_depth_<bucket>` rows are one
    // labelled family (see `render`), and the statements it sent.
    (
        "xrpc_backend_connections",
        StatusKind::Gauge,
        "Backend connections that are logged in.",
    ),
    (
        "xrpc_backend_connections_pinned",
        StatusKind::Gauge,
        "Backend connections held by one session (a transaction, user variables, …).",
    ),
    (
        "xrpc_backend_connections_parked",
        StatusKind::Gauge,
        "Backend connections given back at a session's database and variables, kept for the next session at that level.",
    ),
    (
        "xrpc_backend_connections_opened",
        StatusKind::Counter,
        "Backend connections opened, reconnects included.",
    ),
    (
        "xrpc_backend_connections_closed_idle",
        StatusKind::Counter,
        "Backend connections closed after staying idle beyond the minimum, or above a pool size that shrank.",
    ),
    (
        "xrpc_backend_connections_expired",
        StatusKind::Counter,
        "Backend connections replaced at the end of their lifetime (xrpc_backend_connection_lifetime).",
    ),
    (
        "xrpc_backend_connect_errors",
        StatusKind::Counter,
        "Failed attempts to open a backend connection (connect or login).",
    ),
    (
        "xrpc_backend_lost",
        StatusKind::Counter,
        "Logged-in backend connections that closed unasked (the backend went away or broke the protocol).",
    ),
    (
        "xrpc_backend_queued",
        StatusKind::Gauge,
        "Statements waiting for room on a backend connection.",
    ),
    (
        "xrpc_backend_pin_queued",
        StatusKind::Gauge,
        "Sessions waiting for a backend connection of their own.",
    ),
    (
        "xrpc_backend_queue_timeouts",
        StatusKind::Counter,
        "Statements and sessions that waited past xrpc_backend_wait_timeout (error 7009).",
    ),
    (
        "xrpc_backend_helps",
        StatusKind::Counter,
        "Passes in which a worker waiting for an inline statement's answer drove the backend connections itself, every worker of a group being in a wait.",
    ),
    (
        "xrpc_backend_statements",
        StatusKind::Counter,
        "Statements sent to the backend: clients' statements and the plan compiler's catalog reads.",
    ),
    (
        "xrpc_backend_errors",
        StatusKind::Counter,
        "Statements the backend failed, or lost with their connection (2013).",
    ),
];

/// The prefix of the driver's depth rows, `xrpc_backend_pipeline_depth_<bucket>`, exported as
/// one counter family labelled by `depth`.
const PIPELINE_DEPTH_PREFIX: &str = "xrpc_backend_pipeline_depth_";

/// The metrics text, rendered once by [`xrpc_net::metrics::Exposition`]: the status variables
/// (`xrpc_*`, numeric ones only, `ON`/`OFF` as 1/0) typed by `STATUS_METRICS` (counters get
/// `_total`; a variable missing from the table is exported as a gauge, the type that claims
/// nothing about monotonicity), the framework counters (`xrpc_net_*`, gauges and `_total`
/// counters), the request counters (`xrpc_statements_total{kind}`, `xrpc_errors_total{class}`,
/// …; see [`crate::counters`]) and the stage histograms (`xrpc_stage_duration_seconds`).
pub fn render(status: &dyn StatusSource, hist: &PerfHistograms) -> String {
    let mut exp = Exposition::new();
    let mut depths: Vec<(String, f64)> = Vec::new();
    for (name, value) in status.status().into_iter().chain(status.engine_status()) {
        let number = match value.as_str() {
            "ON" => 1.0,
            "OFF" => 0.0,
            v => match v.parse::<f64>() {
                Ok(n) if n.is_finite() => n,
                _ => continue,
            },
        };
        if name == "Uptime" {
            // MySQL's name in SHOW STATUS; Prometheus's conventions want the unit and the prefix.
            exp.gauge(
                "xrpc_uptime_seconds",
                "Seconds since the node started (SHOW STATUS Uptime).",
                number,
            );
            continue;
        }
        if let Some(bucket) = name.strip_prefix(PIPELINE_DEPTH_PREFIX) {
            depths.push((bucket.to_owned(), number));
            continue;
        }
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
    if !depths.is_empty() {
        let series: Vec<(&str, f64)> = depths.iter().map(|(b, n)| (b.as_str(), *n)).collect();
        exp.labeled_counter(
            "xrpc_backend_pipeline_depth",
            "Statements by the pipeline depth their backend connection had when they joined it, themselves included: up to the `depth` label and above the bucket before it.",
            "depth",
            &series,
        );
    }
    status.request_totals().write_metrics(&mut exp);
    status.net_stats().write_metrics(&mut exp, "xrpc_net");
    hist.write_metrics(&mut exp, "xrpc");
    exp.render()
}

/// The running endpoint. See the [module docs](self).
#[derive(Debug)]
pub struct MetricsServer {
    local_addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Binds `addr` and serves `GET /metrics` with the text `render` returns, on a thread named
    /// `xrpc-metrics`.
    pub fn start<F>(addr: SocketAddr, render: F) -> io::Result<Self>
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let (stop, stopped) = oneshot::channel();
        let render: Arc<dyn Fn() -> String + Send + Sync> = Arc::new(render);
        let thread = std::thread::Builder::new()
            .name("xrpc-metrics".into())
            .spawn(move || runtime.block_on(serve(listener, stopped, render)))?;
        Ok(Self {
            local_addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address bound (with the real port when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting, closes the open connections and joins the thread.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// The accept loop, until `stopped`.
async fn serve(
    listener: std::net::TcpListener,
    mut stopped: oneshot::Receiver<()>,
    render: Arc<dyn Fn() -> String + Send + Sync>,
) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(err) => {
            tracing::error!(error = %err, "metrics endpoint cannot use its listener");
            return;
        }
    };
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(err) => {
                // Out of descriptors and the like: back off rather than spin.
                tracing::warn!(error = %err, "metrics accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tracing::debug!(
                "metrics endpoint busy: {MAX_CONNECTIONS} connections open; closing a new one"
            );
            continue;
        };
        let render = Arc::clone(&render);
        tokio::spawn(async move {
            let _slot = slot;
            let service = service_fn(move |request: Request<Incoming>| {
                let response = respond(request.method(), request.uri().path(), &*render);
                async move { Ok::<_, Infallible>(response) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(IO_TIMEOUT)
                .max_buf_size(MAX_REQUEST)
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), service);
            match tokio::time::timeout(CONNECTION_DEADLINE, connection).await {
                Ok(Ok(())) => {}
                Ok(Err(err)) => tracing::debug!(error = %err, "metrics request failed"),
                Err(_) => tracing::debug!("metrics connection closed at its deadline"),
            }
        });
    }
}

/// The answer to one request: the routes of the [module docs](self).
fn respond(method: &Method, path: &str, render: &dyn Fn() -> String) -> Response<Full<Bytes>> {
    let (status, content_type, body) = match (method, path) {
        (&Method::GET | &Method::HEAD, "/metrics") => (StatusCode::OK, CONTENT_TYPE, render()),
        (_, "/metrics") => (
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "GET only\n".to_owned(),
        ),
        _ => (
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "not found; try /metrics\n".to_owned(),
        ),
    };
    let mut response = Response::builder()
        .status(status)
        .header(CONTENT_TYPE_HEADER, content_type)
        .header(CONNECTION, "close");
    if status == StatusCode::METHOD_NOT_ALLOWED {
        response = response.header(ALLOW, "GET, HEAD");
    }
    response
        .body(Full::new(Bytes::from(body)))
        .expect("a response from valid parts")
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;
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
                ("xrpc_plan_compiled_hit".into(), "5".into()),
                ("xrpc_plan_compiled_entries".into(), "2".into()),
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

    /// A node on the mysql engine: its backend rows are typed metrics too.
    struct FakeBackendStatus;

    impl StatusSource for FakeBackendStatus {
        fn status(&self) -> Vec<(String, String)> {
            vec![("xrpc_inited".into(), "ON".into())]
        }

        fn engine_status(&self) -> Vec<(String, String)> {
            vec![
                ("xrpc_backend_connections".into(), "3".into()),
                ("xrpc_backend_statements".into(), "7".into()),
                ("xrpc_backend_queue_timeouts".into(), "2".into()),
                ("xrpc_backend_pipeline_depth_1".into(), "5".into()),
                ("xrpc_backend_pipeline_depth_2".into(), "4".into()),
                ("xrpc_backend_pipeline_depth_over_64".into(), "0".into()),
            ]
        }

        fn net_stats(&self) -> NetStats {
            NetStats::default()
        }
    }

    #[test]
    fn backend_rows_are_exported() {
        let body = render(&FakeBackendStatus, &PerfHistograms::new(false));
        assert!(
            body.contains("# TYPE xrpc_backend_connections gauge\nxrpc_backend_connections 3\n"),
            "{body}"
        );
        assert!(
            body.contains(
                "# TYPE xrpc_backend_statements_total counter\nxrpc_backend_statements_total 7\n"
            ),
            "{body}"
        );
    }

    #[test]
    fn driver_rows_are_exported_with_the_depths_as_one_labelled_family() {
        let body = render(&FakeBackendStatus, &PerfHistograms::new(false));
        assert!(
            body.contains(
                "# TYPE xrpc_backend_queue_timeouts_total counter\nxrpc_backend_queue_timeouts_total 2\n"
            ),
            "{body}"
        );
        assert!(
            body.contains(
                "# TYPE xrpc_backend_pipeline_depth_total counter\n\
                 xrpc_backend_pipeline_depth_total{depth=\"1\"} 5\n\
                 xrpc_backend_pipeline_depth_total{depth=\"2\"} 4\n\
                 xrpc_backend_pipeline_depth_total{depth=\"over_64\"} 0\n"
            ),
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
        try_request(addr, head).unwrap()
    }

    /// The whole response, or the error of a connection the endpoint reset.
    fn try_request(addr: SocketAddr, head: &str) -> io::Result<String> {
        let mut stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        stream.write_all(head.as_bytes())?;
        let mut out = String::new();
        stream.read_to_string(&mut out)?;
        Ok(out)
    }

    /// The response's head in lower case (hyper writes header names in lower case) and its body.
    fn split(response: &str) -> (String, &str) {
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        (head.to_ascii_lowercase(), body)
    }

    #[test]
    fn metrics_endpoint_serves_200() {
        let server = start();
        let response = request(
            server.local_addr(),
            "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        );
        let (head, body) = split(&response);
        assert!(head.starts_with("http/1.1 200 ok\r\n"), "{head}");
        assert!(head.contains("content-type: text/plain; version=0.0.4"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("connection: close"));
        assert!(body.contains("# TYPE xrpc_inited gauge\nxrpc_inited 1\n"));
        assert!(body.contains("# TYPE xrpc_tcp_connections gauge\nxrpc_tcp_connections 4\n"));
        assert!(body.contains("# TYPE xrpc_sql_hit_total counter\nxrpc_sql_hit_total 12\n"));
        assert!(body.contains(
            "# TYPE xrpc_plan_compiled_hit_total counter\nxrpc_plan_compiled_hit_total 5\n"
        ));
        assert!(
            body.contains(
                "# TYPE xrpc_plan_compiled_entries gauge\nxrpc_plan_compiled_entries 2\n"
            )
        );
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
            request(addr, "GET /metricsx HTTP/1.0\r\n\r\n").starts_with("HTTP/1.0 404 Not Found")
        );
        let post = request(addr, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        assert!(
            post.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
            "{post}"
        );
        assert!(split(&post).0.contains("allow: get, head\r\n"), "{post}");
        let head = request(addr, "HEAD /metrics?x=1 HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
        assert!(head.ends_with("\r\n\r\n"), "HEAD has no body");
        drop(server);
    }

    #[test]
    fn malformed_requests_get_4xx_and_the_endpoint_keeps_serving() {
        let server = start();
        let addr = server.local_addr();
        for garbage in [
            "garbage\r\n\r\n",
            "GET /metrics HTTP/9.9\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n",
            "\u{0}\u{1}\u{2}\u{3}\r\n\r\n",
        ] {
            let response = request(addr, garbage);
            let status: u16 = response
                .get(9..12)
                .and_then(|code| code.parse().ok())
                .unwrap_or(0);
            assert!(
                response.is_empty() || (400..500).contains(&status) || status == 505,
                "{garbage:?} got {response:?}"
            );
        }
        // A head over 8 KiB is refused before it is buffered whole.
        let huge = format!(
            "GET /metrics HTTP/1.1\r\nX-Big: {}\r\n\r\n",
            "a".repeat(64 * 1024)
        );
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let _ = stream.write_all(huge.as_bytes());
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        let out = String::from_utf8_lossy(&out);
        assert!(out.is_empty() || out.starts_with("HTTP/1.1 431"), "{out}");
        // Still serving.
        let ok = request(addr, "GET /metrics HTTP/1.1\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK"), "{ok}");
    }

    #[test]
    fn slow_clients_do_not_delay_a_scrape_and_are_cut_off() {
        let server = start();
        let addr = server.local_addr();
        // Clients that trickle a request head, and clients that say nothing at all.
        let mut trickling: Vec<TcpStream> = (0..8)
            .map(|_| {
                let mut s = TcpStream::connect(addr).unwrap();
                s.write_all(b"GET /metr").unwrap();
                s
            })
            .collect();
        let silent: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(addr).unwrap()).collect();
        // A scrape meanwhile is answered at once, well within the slow clients' time limit.
        let started = Instant::now();
        let ok = request(addr, "GET /metrics HTTP/1.1\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK"), "{ok}");
        assert!(started.elapsed() < IO_TIMEOUT, "{:?}", started.elapsed());
        for s in &mut trickling {
            let _ = s.write_all(b"i");
        }
        // The endpoint closes them at the header read timeout (hyper may answer 408 first).
        for mut s in trickling.into_iter().chain(silent) {
            s.set_read_timeout(Some(IO_TIMEOUT * 3)).unwrap();
            let mut out = Vec::new();
            let started = Instant::now();
            let result = s.read_to_end(&mut out);
            assert!(
                result.is_ok(),
                "closed by the endpoint, not by our timeout: {result:?}"
            );
            assert!(started.elapsed() < IO_TIMEOUT * 3);
            let out = String::from_utf8_lossy(&out);
            assert!(out.is_empty() || out.starts_with("HTTP/1.1 408"), "{out}");
        }
    }

    #[test]
    fn connections_beyond_the_limit_are_closed_at_once() {
        let server = start();
        let addr = server.local_addr();
        let held: Vec<TcpStream> = (0..MAX_CONNECTIONS)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        // Wait until the endpoint has accepted them all: one more is then closed without an
        // answer (EOF), rather than queued behind the slow ones.
        let mut closed_at_once = false;
        for _ in 0..100 {
            let mut extra = TcpStream::connect(addr).unwrap();
            extra
                .set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
            let _ = extra.write_all(b"GET /metrics HTTP/1.1\r\n\r\n");
            let mut out = Vec::new();
            match extra.read_to_end(&mut out) {
                Ok(_) if out.is_empty() => {
                    closed_at_once = true;
                    break;
                }
                // Closed with our request unread: the kernel answers with a reset, not an EOF.
                Err(err)
                    if matches!(
                        err.kind(),
                        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                    ) =>
                {
                    closed_at_once = true;
                    break;
                }
                _ => {}
            }
        }
        assert!(
            closed_at_once,
            "a connection beyond {MAX_CONNECTIONS} must be closed"
        );
        drop(held);
        // Once they go, scrapes are served again.
        let mut served = false;
        for _ in 0..100 {
            let answer = try_request(addr, "GET /metrics HTTP/1.1\r\n\r\n").unwrap_or_default();
            if answer.starts_with("HTTP/1.1 200") {
                served = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(served);
    }

    #[test]
    fn shutdown_closes_open_connections_and_the_listener() {
        let server = start();
        let addr = server.local_addr();
        let mut idle = TcpStream::connect(addr).unwrap();
        idle.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let started = Instant::now();
        server.shutdown();
        assert!(started.elapsed() < IO_TIMEOUT, "{:?}", started.elapsed());
        // Closed: EOF if the endpoint had accepted it, a reset if it was still in the backlog.
        let mut out = Vec::new();
        match idle.read_to_end(&mut out) {
            Ok(_) => assert!(out.is_empty()),
            Err(err) => assert_eq!(err.kind(), io::ErrorKind::ConnectionReset, "{err}"),
        }
        assert!(TcpStream::connect(addr).is_err(), "listener closed");
    }
}
