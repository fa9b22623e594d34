//! The `xrpc-server` binary's life: start-up defaults, invalid settings, `--help`, the metrics
//! endpoint, and the SIGTERM drain.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Client, ServerProcess, arg_sint, free_port, server_command, sql_stmt};
use xrpc_proto::messages::ServerMessage;
use xrpc_proto::value::{ColumnType, Value, decode_row_field};

/// The drain bound the drain test starts the node with (`--drain-timeout`, milliseconds).
const DRAIN_MS: u64 = 5000;
/// A drain bound a statement calibrated to a few seconds finishes inside on a loaded machine.
const ROOMY_DRAIN_MS: u64 = 30_000;

/// A command for the binary with every `XRPC_*` variable of the test's environment removed, so
/// that only what a test sets applies.
fn clean_command() -> Command {
    let mut cmd = server_command();
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("XRPC_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// Runs the binary to completion (at most 20 s) and returns its status, stdout and stderr.
fn run_to_exit(mut cmd: Command) -> (std::process::ExitStatus, String, String) {
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn xrpc-server");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("xrpc-server did not exit within 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn sint(value: &Value) -> i64 {
    match value {
        Value::Sint(v) => *v,
        other => panic!("expected an integer, got {other:?}"),
    }
}

/// A CPU-bound statement that counts to `n`.
fn counting(n: i64) -> String {
    format!(
        "with recursive c(i) as (select 1 union all select i + 1 from c where i < {n}) select count(*) from c"
    )
}

/// The size of [`counting`] that takes about `target` on this machine and build.
fn calibrate(client: &mut Client, sid: u64, target: Duration) -> i64 {
    let mut n = 100_000;
    loop {
        let started = Instant::now();
        let outcome = client.query(sid, &counting(n));
        assert_eq!(sint(outcome.scalar()), n);
        let took = started.elapsed();
        if took >= Duration::from_millis(200) || n >= 1 << 40 {
            let scaled = n as f64 * target.as_secs_f64() / took.as_secs_f64();
            return scaled as i64;
        }
        n *= 4;
    }
}

/// Waits (at most 20 s) until `SHOW STATUS` on `client`'s session 1 reports an engine
/// connection borrowed: a statement of another session is on the engine.
fn wait_until_engine_borrowed(client: &mut Client) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let status = client.query(1, "show status like 'xrpc_engine_borrowed'");
        let borrowed = status
            .rows
            .first()
            .map(|row| common::text(&row[1]))
            .unwrap_or_default();
        if borrowed != "0" && !borrowed.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no engine connection borrowed within 20 s: {status:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// What a draining node sent on one session, in order.
#[derive(Debug, Default)]
struct Drained {
    /// The long statement's answer: its count, or its error code.
    running: Option<Result<i64, u32>>,
    /// Errors that followed it.
    errors: Vec<xrpc_proto::messages::pb::Error>,
    /// Successful answers to queued requests (must stay empty).
    ran: usize,
    /// Whether the connection ended (EOF) after the frames above.
    closed: bool,
}

/// Reads what a draining node sends on `sid`: the running statement's answer, then whatever the
/// queued requests get, until the connection ends.
fn read_drain(client: &mut Client, sid: u64) -> Drained {
    let mut drained = Drained::default();
    let mut column_type = None;
    let mut count = None;
    while drained.running.is_none() {
        match client.recv_on(sid) {
            None => {
                drained.closed = true;
                return drained;
            }
            Some(ServerMessage::ColumnMetaData(column)) => {
                column_type = Some(ColumnType::try_from(column.r#type as u32).unwrap());
            }
            Some(ServerMessage::Row(row)) => {
                let ty = column_type.expect("metadata before rows");
                count = Some(sint(&decode_row_field(ty, &row.field[0]).unwrap()));
            }
            Some(ServerMessage::StmtExecuteOk(_)) => {
                drained.running = Some(Ok(count.expect("a row before StmtExecuteOk")));
            }
            Some(ServerMessage::Error(err)) => drained.running = Some(Err(err.code)),
            Some(_) => {}
        }
    }
    loop {
        match client.recv_on(sid) {
            None => {
                drained.closed = true;
                return drained;
            }
            Some(ServerMessage::StmtExecuteOk(_)) => drained.ran += 1,
            Some(ServerMessage::Error(err)) => drained.errors.push(err),
            Some(_) => {}
        }
    }
}

#[test]
fn sigterm_drains_finishes_the_running_statement_refuses_the_queue_checkpoints_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = ServerProcess::spawn(
        &data,
        &dir.path().join("server.log"),
        &[
            "--drain-timeout",
            &ROOMY_DRAIN_MS.to_string(),
            "--log",
            "info",
        ],
    );
    let mut client = server.client();
    client.new_session(1);
    let created = client.query(1, "create table drained (i integer)");
    assert!(created.error.is_none(), "{:?}", created.error);
    // About 2.5 s of work: SIGTERM comes while it runs. The bound is far above it, because a
    // machine busy with other tests can run it several times slower than calibrated, and the node
    // exits as soon as the statement is answered, not at the bound.
    let n = calibrate(&mut client, 1, Duration::from_millis(2500));

    client.send_sql(1, sql_stmt(&counting(n)));
    const QUEUED: i64 = 5;
    for i in 0..QUEUED {
        let mut insert = sql_stmt("insert into drained (i) values (?)");
        insert.args = vec![arg_sint(i)];
        client.send_sql(1, insert);
    }
    // SIGTERM once the long statement holds an engine connection (the node's own status,
    // read on another connection, says so): from then on the drain lets it finish.
    let mut observer = server.client();
    observer.new_session(1);
    wait_until_engine_borrowed(&mut observer);
    let term_sent = Instant::now();
    server.sigterm();

    client.set_read_timeout(Duration::from_millis(ROOMY_DRAIN_MS + 10_000));
    let drained = read_drain(&mut client, 1);
    let status = server
        .wait_exit(Duration::from_millis(ROOMY_DRAIN_MS + 5_000))
        .unwrap_or_else(|| panic!("still running {ROOMY_DRAIN_MS} ms + 5 s after SIGTERM"));
    let exit_after = term_sent.elapsed();
    let log = server.log_text();

    assert!(
        status.success(),
        "a drained node exits 0, got {status}; log:\n{log}"
    );
    assert!(
        exit_after < Duration::from_millis(ROOMY_DRAIN_MS + 2_000),
        "exit took {exit_after:?}, over the drain bound of {ROOMY_DRAIN_MS} ms"
    );
    assert_eq!(
        (drained.running, drained.ran, drained.errors.is_empty()),
        (Some(Ok(n)), 0, false),
        "the running statement finishes with its result, no queued request runs, and the queue is refused"
    );
    for err in &drained.errors {
        assert_eq!(
            (err.code, err.sql_state.as_str(), err.severity),
            (1053, "08S01", Some(1)),
            "queued requests get FATAL 1053 SERVER_SHUTDOWN: {err:?}"
        );
    }
    assert!(
        drained.closed,
        "the connection closes at the end of the drain"
    );

    assert!(
        log.contains("draining") && !log.contains("checkpoint at shutdown failed"),
        "the node logged its drain and checkpointed cleanly; log:\n{log}"
    );
    let wal = data.join("xrpc.db-wal");
    let wal_len = std::fs::metadata(&wal).map_or(0, |m| m.len());
    assert_eq!(
        wal_len,
        0,
        "the WAL is checkpointed at shutdown ({} is {wal_len} bytes)",
        wal.display()
    );
    let db = rusqlite::Connection::open(data.join("xrpc.db")).unwrap();
    let rows: i64 = db
        .query_row("select count(*) from drained", [], |row| row.get(0))
        .unwrap();
    assert_eq!(rows, 0, "queued inserts were refused, not run");
    eprintln!(
        "drain: running statement {:?}, {} queued requests answered 1053 (of {QUEUED}), connection closed, exit 0 after {exit_after:?}",
        drained.running,
        drained.errors.len()
    );
}

/// A node that drains takes no new connection: once it says it stopped accepting, a connect is
/// refused. Checked while a statement that never ends by itself holds the drain open for its whole
/// bound.
#[test]
fn a_draining_node_refuses_new_connections() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        &dir.path().join("data"),
        &dir.path().join("server.log"),
        &["--drain-timeout", &DRAIN_MS.to_string(), "--log", "info"],
    );
    let mut client = server.client();
    client.new_session(1);
    client.send_sql(
        1,
        sql_stmt("with recursive c(i) as (select 1 union all select i + 1 from c) select count(*) from c"),
    );
    let mut observer = server.client();
    observer.new_session(1);
    wait_until_engine_borrowed(&mut observer);
    server.sigterm();
    common::wait_until(
        Duration::from_millis(DRAIN_MS),
        "the node logs that it stopped accepting connections",
        || {
            server
                .log_text()
                .contains("no longer accepting connections")
        },
    );

    let attempt = TcpStream::connect(server.addr);
    assert!(
        matches!(&attempt, Err(err) if err.kind() == std::io::ErrorKind::ConnectionRefused),
        "a connection made while the node drains: {attempt:?}"
    );
}

#[test]
fn without_arguments_it_listens_on_33660_and_keeps_data_in_dot_xrpc_data() {
    let default_addr: SocketAddr = "127.0.0.1:33660".parse().unwrap();
    match TcpListener::bind(default_addr) {
        Ok(probe) => drop(probe),
        Err(err) => {
            eprintln!(
                "skipped: {default_addr} is not free here ({err}); the no-argument start is not checked"
            );
            return;
        }
    }
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = clean_command();
    cmd.current_dir(cwd.path());
    let mut server = match ServerProcess::start(
        cmd,
        default_addr,
        &cwd.path().join("server.log"),
        Duration::from_secs(20),
    ) {
        Ok(server) => server,
        Err(log) if log.contains("cannot listen") => {
            eprintln!("skipped: {default_addr} was taken before the node bound it");
            return;
        }
        Err(log) => panic!("the node did not start without arguments: {log}"),
    };
    let mut client = server.client();
    client.new_session(1);
    assert_eq!(client.query(1, "select 1").scalar(), &Value::Sint(1));
    assert!(
        cwd.path().join("xrpc-data").join("xrpc.db").is_file(),
        "the database is ./xrpc-data/xrpc.db relative to the working directory"
    );
    drop(client);
    server.sigterm();
    let status = server
        .wait_exit(Duration::from_secs(15))
        .expect("exits after SIGTERM");
    assert!(status.success(), "exit status {status}");
}

/// Checks that an invalid setting stops start-up with one stderr line naming it, its range and
/// the value.
fn assert_refused(mut cmd: Command, what: &str, expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    cmd.current_dir(dir.path())
        .arg("--listen")
        .arg(format!("127.0.0.1:{}", free_port()))
        .arg("--data-dir")
        .arg(dir.path());
    let (status, _, stderr) = run_to_exit(cmd);
    assert!(
        !status.success(),
        "{what}: start-up must fail, got {status}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{what}: exactly one line on stderr, got {stderr:?}"
    );
    for part in expected {
        assert!(
            lines[0].contains(part),
            "{what}: the line {:?} should mention {part:?}",
            lines[0]
        );
    }
}

#[test]
fn an_invalid_flag_value_stops_start_up_with_one_line() {
    let mut cmd = clean_command();
    cmd.args(["--max-queued-messages", "5"]);
    assert_refused(
        cmd,
        "--max-queued-messages 5",
        &["max_queued_messages", "16", "4096", "5"],
    );
}

#[test]
fn an_invalid_environment_value_stops_start_up_with_one_line() {
    let mut cmd = clean_command();
    cmd.env("XRPC_MAX_SESSIONS", "0");
    assert_refused(
        cmd,
        "XRPC_MAX_SESSIONS=0",
        &["max_sessions", "1", "10000000", "0"],
    );
}

/// `GET path` over HTTP/1.0; returns the whole response.
fn http_get(addr: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// The value of the sample `name` in a Prometheus text body.
fn sample(body: &str, name: &str) -> Option<f64> {
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// Runs `promtool check metrics` (Debian's `prometheus` package, which `scripts/test.sh`
/// installs) over `text`; returns its verdict and findings.
fn promtool_check(text: &str) -> (bool, String) {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool runs (apt-get install prometheus; scripts/test.sh does)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let findings = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), findings)
}

#[test]
fn metrics_endpoint_serves_xrpc_counters_after_a_query() {
    let dir = tempfile::tempdir().unwrap();
    // Port 0: the node binds a port no other test can hold and logs it.
    let server = ServerProcess::spawn(
        dir.path(),
        &dir.path().join("server.log"),
        &["--metrics", "127.0.0.1:0"],
    );
    let metrics = server.logged_addr("metrics endpoint ready");
    let mut client = server.client();
    client.new_session(1);
    assert_eq!(client.query(1, "select 1").scalar(), &Value::Sint(1));

    let response = http_get(metrics, "/metrics");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("an HTTP response with a body");
    assert!(
        head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"),
        "GET /metrics answers 200: {head}"
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain"),
        "Prometheus text format: {head}"
    );
    for (name, at_least) in [
        ("xrpc_inited", 1.0),
        ("xrpc_tcp_connections", 1.0),
        ("xrpc_worker_sessions", 1.0),
        ("xrpc_net_accepted_total", 1.0),
        ("xrpc_net_frames_received_total", 4.0),
        ("xrpc_net_bytes_sent_total", 1.0),
        ("xrpc_sql_miss_total", 0.0),
        ("xrpc_stage_duration_seconds_count{stage=\"run\"}", 0.0),
        ("xrpc_statements_total{kind=\"select\"}", 1.0),
        ("xrpc_errors_total{class=\"server\"}", 0.0),
        ("xrpc_rows_sent_total", 1.0),
        ("xrpc_sessions_opened_total", 1.0),
        ("xrpc_engine_statements_total", 1.0),
        ("xrpc_uptime_seconds", 0.0),
    ] {
        let value =
            sample(body, name).unwrap_or_else(|| panic!("/metrics has no sample {name}:\n{body}"));
        assert!(
            value >= at_least,
            "{name} is {value} after one session and a query, expected at least {at_least}"
        );
    }
    assert!(
        body.lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .all(|l| l.starts_with("xrpc_")),
        "every sample is an xrpc_ metric"
    );
    for family in [
        "# TYPE xrpc_inited gauge",
        "# TYPE xrpc_tcp_connections gauge",
        "# TYPE xrpc_sql_hit_total counter",
        "# TYPE xrpc_plan_compiled_hit_total counter",
        "# TYPE xrpc_plan_compiled_entries gauge",
        "# TYPE xrpc_net_accepted_total counter",
        "# TYPE xrpc_stage_duration_seconds histogram",
        "# TYPE xrpc_statements_total counter",
        "# TYPE xrpc_errors_total counter",
    ] {
        assert!(body.contains(family), "/metrics lacks {family:?}:\n{body}");
    }
    assert!(
        !body.contains("untyped"),
        "every family has a type:\n{body}"
    );
    let (ok, findings) = promtool_check(body);
    assert!(
        ok,
        "promtool check metrics rejects /metrics:\n{findings}\n{body}"
    );
    // The check can fail: a counter without `_total` is one of its lint errors.
    let (ok, _) = promtool_check("# HELP x_sent Things.\n# TYPE x_sent counter\nx_sent 1\n");
    assert!(!ok, "promtool accepted a counter without _total");
    let not_found = http_get(metrics, "/nothing");
    assert!(not_found.starts_with("HTTP/1.1 404") || not_found.starts_with("HTTP/1.0 404"));
}

#[test]
fn help_exits_0_and_documents_every_setting() {
    let mut cmd = clean_command();
    cmd.arg("--help");
    let (status, stdout, _) = run_to_exit(cmd);
    assert!(status.success(), "--help exits 0, got {status}");
    // The flags the issue, README and PROTOCOL.md name.
    for flag in [
        "--config",
        "--listen",
        "--data-dir",
        "--metrics",
        "--log",
        "--max-queued-messages",
        "--max-sessions",
        "--max-allowed-packet",
        "--shared-session-lifetime",
        "--net-write-timeout",
        "--auth-max-failures",
        "--epoll-work-queue-capacity",
        "--request-cache-instances",
        "--request-cache-number",
        "--request-cache-max-length",
        "--sqlite-synchronous",
        "--sqlite-busy-timeout",
        "--drain-timeout",
        "127.0.0.1:33660",
        "./xrpc-data",
    ] {
        assert!(stdout.contains(flag), "--help does not mention {flag}");
    }
    // And every flag the configuration declares, each with its environment variable.
    for arg in xrpc_server::config::command().get_arguments() {
        let Some(long) = arg.get_long() else {
            continue;
        };
        if long == "help" || long == "version" {
            continue;
        }
        assert!(
            stdout.contains(&format!("--{long}")),
            "--help does not mention --{long}"
        );
        let env = xrpc_server::config::env_name(arg.get_id().as_str());
        assert!(stdout.contains(&env), "--help does not mention {env}");
    }
}

#[test]
fn start_up_logs_each_account_with_its_hosts_and_never_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    let hash = "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19";
    let config = dir.path().join("node.toml");
    std::fs::write(
        &config,
        format!(
            "[[users]]\nname = \"app\"\npassword_hash = \"{hash}\"\nhosts = [\"10.0.0.0/8\", \"localhost\"]\n"
        ),
    )
    .unwrap();
    let log = dir.path().join("server.log");
    let server = ServerProcess::spawn(
        &dir.path().join("data"),
        &log,
        &["--config", config.to_str().unwrap()],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let line = loop {
        let text = server.log_text();
        if let Some(line) = text.lines().find(|l| l.contains("account")) {
            break line.to_owned();
        }
        assert!(Instant::now() < deadline, "no account line in:\n{text}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        line.contains("user=app")
            && line.contains("10.0.0.0/8,localhost")
            && !server.log_text().contains(&hash[1..]),
        "account line names the user and its hosts, and the log holds no hash: {line}"
    );
}
