//! A node started per test, and the raw-frame test client of `xrpc-testkit` (re-exported), which
//! speaks frames directly through `xrpc-proto`, so tests can send exactly what they mean,
//! malformed input included, and see every frame the node sends back.

#![allow(dead_code, unreachable_pub)]

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use xrpc_net::NetConfig;
use xrpc_proto::messages::{ClientType, ServerMessage, pb};
use xrpc_proto::value::Value;
use xrpc_server::engine::Engine;
use xrpc_server::engine::sqlite::SqliteOptions;
use xrpc_server::node::NodeShared;
use xrpc_server::server::{Node, NodeBuilder};
use xrpc_server::users::{HostRule, UserConfig};
use xrpc_server::vars::SetValue;
pub use xrpc_testkit::client::*;

/// A node on an ephemeral loopback port with its data in a temporary directory.
pub struct TestNode {
    pub node: Option<Node>,
    pub dir: tempfile::TempDir,
}

/// The engine an end-to-end test runs on: suites written once run on both
/// ([`on_both_engines!`](crate::on_both_engines)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// The embedded SQLite engine, in the node's temporary directory.
    Sqlite,
    /// The `mysql` engine on a fresh database of the binary's shared MariaDB
    /// ([`xrpc_testkit::shared_database`]), with a pool of 4.
    Mysql,
}

/// Runs each named test, a `fn(EngineKind)`, once per engine: as `on_sqlite::name` and
/// `on_mysql::name`.
#[macro_export]
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $name() {
                super::$name($crate::common::EngineKind::Sqlite)
            })*
        }
        mod on_mysql {
            $(#[test]
            fn $name() {
                super::$name($crate::common::EngineKind::Mysql)
            })*
        }
    };
}

impl TestNode {
    pub fn start() -> Self {
        Self::start_with(|_, _| {})
    }

    /// A node on `engine` (see [`EngineKind`]).
    pub fn start_engine(engine: EngineKind) -> Self {
        match engine {
            EngineKind::Sqlite => Self::start(),
            EngineKind::Mysql => {
                let url = xrpc_testkit::shared_database().unwrap_or_else(|err| panic!("{err}"));
                // The suites shared with SQLite run with the event-loop driver on: what it
                // answers must be what the pool answers.
                let options = xrpc_server::engine::mysql::PoolOptions {
                    size: 4,
                    driver_connections: 2,
                    ..Default::default()
                };
                let engine = xrpc_server::engine::mysql::MysqlEngine::connect(&url, options)
                    .unwrap_or_else(|err| panic!("{err:?}"));
                Self::start_with_engine(Arc::new(engine), |_, _| {})
            }
        }
    }

    /// Starts a node after letting `tune` adjust the framework config and the shared state.
    pub fn start_with(tune: impl FnOnce(&mut NetConfig, &mut NodeShared) + 'static) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let builder =
            NodeBuilder::sqlite(&dir.path().join("xrpc.db"), SqliteOptions::default()).unwrap();
        Self::start_on(dir, builder, tune)
    }

    /// Starts a node on `engine` (the mysql engine's tests use it).
    pub fn start_with_engine(
        engine: Arc<dyn Engine>,
        tune: impl FnOnce(&mut NetConfig, &mut NodeShared) + 'static,
    ) -> Self {
        Self::start_on(tempfile::tempdir().unwrap(), NodeBuilder::new(engine), tune)
    }

    /// Starts a node on SQLite opened with `options`.
    pub fn start_with_sqlite(
        options: SqliteOptions,
        tune: impl FnOnce(&mut NetConfig, &mut NodeShared) + 'static,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let builder = NodeBuilder::sqlite(&dir.path().join("xrpc.db"), options).unwrap();
        Self::start_on(dir, builder, tune)
    }

    fn start_on(
        dir: tempfile::TempDir,
        builder: NodeBuilder,
        tune: impl FnOnce(&mut NetConfig, &mut NodeShared) + 'static,
    ) -> Self {
        let node = builder
            .loopback("127.0.0.1:0".parse().unwrap())
            .users(vec![
                UserConfig::builtin_root(),
                UserConfig::with_password("app", "s3cret", vec![HostRule::Localhost]),
            ])
            .tune(tune)
            .start()
            .unwrap();
        Self {
            node: Some(node),
            dir,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.node.as_ref().unwrap().local_addr()
    }

    pub fn node(&self) -> &Node {
        self.node.as_ref().unwrap()
    }

    /// Waits until a statement runs: a kill or a drain is about a running statement, and one sent
    /// a moment ago may still be queued on a loaded machine.
    pub fn wait_until_a_statement_runs(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.node().shared().running_statements() == 0 {
            assert!(Instant::now() < deadline, "the statement never started");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// A connected client authenticated as root, naming `schema` in the authentication data.
    pub fn client_in(&self, schema: &str) -> Client {
        let mut client = Client::connect(self.addr());
        client
            .authenticate_in("root", "", schema)
            .expect("root authenticates");
        client
    }

    /// A connected, authenticated client as root.
    pub fn client(&self) -> Client {
        let mut client = Client::connect(self.addr());
        client.authenticate("root", "").expect("root authenticates");
        client
    }
}

impl Drop for TestNode {
    fn drop(&mut self) {
        if let Some(node) = self.node.take() {
            node.shutdown();
        }
    }
}

/// Sets a variable as `SET GLOBAL` would.
pub fn set_var(shared: &NodeShared, name: &str, value: i64) {
    shared.vars.set_global(name, &SetValue::Int(value)).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The real binary as a child process, and memory readings

/// A loopback port that was free a moment ago (bound to port 0, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Who listens on TCP `port` (any address, IPv4 or IPv6), as far as process `pid` is concerned:
/// the socket inodes of `/proc/net/tcp{,6}` in state LISTEN on that port, matched against the
/// process's open file descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    /// Nobody listens on the port, or only other processes do.
    NotPid,
    /// Only `pid` listens on it.
    OnlyPid,
    /// `pid` and another process both listen on it (SO_REUSEPORT lets sockets of the same user
    /// share a port): connections would be split between them.
    Shared,
}

/// See [`Listener`].
pub fn listener_on(pid: u32, port: u16) -> Listener {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) =
                (fields.get(1), fields.get(3), fields.get(9))
            else {
                continue;
            };
            let local_port = local
                .rsplit(':')
                .next()
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if local_port == Some(port) && *state == "0A" {
                inodes.push(format!("socket:[{inode}]"));
            }
        }
    }
    let owned: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.filter_map(Result::ok)
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .map(|target| target.to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let ours = inodes.iter().filter(|inode| owned.contains(inode)).count();
    match (ours, inodes.len() - ours) {
        (0, _) => Listener::NotPid,
        (_, 0) => Listener::OnlyPid,
        _ => Listener::Shared,
    }
}

/// A command for the `xrpc-server` binary built with this test.
pub fn server_command() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_xrpc-server"))
}

/// The resident set size of a process (`VmRSS` in `/proc/<pid>/status`), in bytes; `None` reads
/// this process.
pub fn rss_bytes(pid: Option<u32>) -> u64 {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/status"),
        None => "/proc/self/status".to_owned(),
    };
    let status = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .unwrap_or_else(|| panic!("no VmRSS in {path}"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad VmRSS line {line:?}"));
    kib * 1024
}

/// The `xrpc-server` binary running as a child process, its stderr going to a log file. It is
/// killed with SIGKILL on drop if still running.
pub struct ServerProcess {
    pub child: std::process::Child,
    pub addr: SocketAddr,
    pub log: std::path::PathBuf,
}

impl ServerProcess {
    /// Starts the binary on a free loopback port with its data in `data_dir` and its log in
    /// `log`, plus `extra` arguments, and waits until it accepts connections. Retries on another
    /// port if the chosen one was taken in the meantime.
    pub fn spawn(data_dir: &Path, log: &Path, extra: &[&str]) -> Self {
        Self::start_on_a_free_port(log, Duration::from_secs(20), |addr| {
            let mut cmd = server_command();
            cmd.arg("--listen")
                .arg(addr.to_string())
                .arg("--data-dir")
                .arg(data_dir)
                .args(extra);
            cmd
        })
        .unwrap_or_else(|text| panic!("xrpc-server did not start: {text}"))
    }

    /// [`ServerProcess::start`] with the command `build` makes for a free loopback port,
    /// retried on another port (up to 5 times) when another process took the chosen one.
    pub fn start_on_a_free_port(
        log: &Path,
        within: Duration,
        build: impl Fn(SocketAddr) -> std::process::Command,
    ) -> Result<Self, String> {
        let mut last = String::new();
        for _ in 0..5 {
            let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
            match Self::start(build(addr), addr, log, within) {
                Ok(server) => return Ok(server),
                Err(text) if text.contains("cannot listen") => last = text,
                Err(text) => return Err(text),
            }
        }
        Err(format!("no free port in 5 attempts; last: {last}"))
    }

    /// Runs `cmd` with stderr appended to `log` and waits up to `within` until `addr` accepts.
    /// On failure returns the log (the child is killed if it still runs).
    pub fn start(
        mut cmd: std::process::Command,
        addr: SocketAddr,
        log: &Path,
        within: Duration,
    ) -> Result<Self, String> {
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("spawn xrpc-server");
        let mut server = Self {
            child,
            addr,
            log: log.to_owned(),
        };
        let deadline = Instant::now() + within;
        loop {
            // The child itself must hold the listening socket: with ports picked by
            // `free_port`, another test's server (or MariaDB) may have taken the port meanwhile,
            // and then a successful connect would reach that one while ours fails to bind.
            match listener_on(server.child.id(), addr.port()) {
                Listener::OnlyPid
                    if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() =>
                {
                    return Ok(server);
                }
                Listener::Shared => {
                    server.kill9();
                    return Err(format!(
                        "cannot listen on {addr} alone: another process listens there too"
                    ));
                }
                _ => {}
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                return Err(format!("exited with {status}; log:\n{}", server.log_text()));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "not accepting on {addr} after {within:?}; log:\n{}",
                    server.log_text()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The `addr=` of the first log line containing `message` (e.g. the port a listener given
    /// port 0 bound), waiting up to 20 s for the line to be written.
    pub fn logged_addr(&self, message: &str) -> SocketAddr {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = self.log_text();
            let found = text
                .lines()
                .find(|line| line.contains(message))
                .and_then(|line| line.split_once("addr=")?.1.split_whitespace().next())
                .and_then(|addr| addr.parse().ok());
            if let Some(addr) = found {
                return addr;
            }
            assert!(
                Instant::now() < deadline,
                "no log line {message:?} with an addr= after 20 s; log:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A connected, authenticated client as root.
    pub fn client(&self) -> Client {
        let mut client = Client::connect(self.addr);
        client.authenticate("root", "").expect("root authenticates");
        client
    }

    /// Sends SIGTERM (through `kill(1)`).
    pub fn sigterm(&self) {
        let status = std::process::Command::new("kill")
            .arg("-TERM")
            .arg(self.pid().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM {} failed", self.pid());
    }

    /// `kill -9` and reap.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The exit status, waiting at most `within`; `None` if it still runs.
    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// What the server logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill9();
        }
    }
}

/// A session's `connection_id()`.
pub fn connection_id(client: &mut Client, sid: u64) -> u64 {
    match client.query(sid, "SELECT connection_id()").scalar() {
        Value::Sint(n) => u64::try_from(*n).unwrap(),
        Value::Uint(n) => *n,
        other => panic!("connection_id() is {other:?}"),
    }
}

/// SQL `KILL` on any engine: `KILL QUERY n` interrupts session `n`'s running statement and keeps
/// the session, `KILL [CONNECTION] n` ends it as SESS_KILL does (FATAL 7005 last, then gone,
/// uncounted), both from another connection; an unknown id is 1094. `long_statement` must run
/// far longer than 10 s unless interrupted.
pub fn check_sql_kill(node: &TestNode, long_statement: &str) {
    let mut victim = node.client();
    victim.new_session(1);
    victim.new_session(2);
    let (id1, id2) = (connection_id(&mut victim, 1), connection_id(&mut victim, 2));
    let mut killer = node.client();
    killer.new_session(1);
    let killer_id = connection_id(&mut killer, 1);
    let worker_sessions = |c: &mut Client| {
        let status = c.query(1, "SHOW STATUS LIKE 'xrpc_worker_sessions'");
        text(&status.rows[0][1])
    };
    assert_eq!(worker_sessions(&mut killer), "3");

    let err = killer.query(1, "KILL QUERY 999999").error.expect("1094");
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.msg.as_str()),
        (1094, "HY000", "Unknown thread id: 999999")
    );

    // KILL QUERY: the statement ends (with 1317 where the engine reports it), the session stays.
    let started = Instant::now();
    victim.send_sql(1, sql_stmt(long_statement));
    node.wait_until_a_statement_runs();
    let killed = killer.query(1, &format!("KILL QUERY {id1}"));
    assert!(killed.error.is_none(), "{:?}", killed.error);
    let outcome = victim.read_outcome(1);
    if let Some(err) = &outcome.error {
        assert_eq!((err.code, err.sql_state.as_str()), (1317, "70100"));
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the kill took {:?}",
        started.elapsed()
    );
    assert_eq!(victim.query(1, "SELECT 3").scalar(), &Value::Sint(3));

    // KILL CONNECTION (the default): FATAL 7005 is the session's last frame; its neighbour lives.
    victim.send_sql(2, sql_stmt(long_statement));
    node.wait_until_a_statement_runs();
    let killed = killer.query(1, &format!("KILL {id2}"));
    assert!(killed.error.is_none(), "{:?}", killed.error);
    let Some(ServerMessage::Error(err)) = victim.recv_on(2) else {
        panic!("expected FATAL on the killed session");
    };
    assert_eq!(
        (err.code, err.sql_state.as_str(), err.severity),
        (7005, "70100", Some(1))
    );
    assert_eq!(
        victim.query(2, "SELECT 1").error.unwrap().msg,
        "Session not found."
    );
    let again = killer.query(1, &format!("KILL CONNECTION {id2}"));
    assert_eq!(again.error.map(|e| e.code), Some(1094));
    // The session is uncounted once its connection's handler took it out.
    let deadline = Instant::now() + Duration::from_secs(10);
    while worker_sessions(&mut killer) != "2" {
        assert!(
            Instant::now() < deadline,
            "the killed session stays counted"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(victim.query(1, "SELECT 4").scalar(), &Value::Sint(4));
    victim.new_session(2);
    assert_eq!(victim.query(2, "SELECT 5").scalar(), &Value::Sint(5));

    // A session may kill itself.
    killer.send_sql(1, sql_stmt(&format!("KILL {killer_id}")));
    let Some(ServerMessage::Error(err)) = killer.recv_on(1) else {
        panic!("expected FATAL on the session that killed itself");
    };
    assert_eq!((err.code, err.severity), (7005, Some(1)));

    // As MySQL: another user's session needs the privilege (root has it, `app` has not): 1095,
    // and the session lives on. A user may kill its own sessions, on any connection.
    let mut app = Client::connect(node.addr());
    app.authenticate("app", "s3cret")
        .expect("app authenticates");
    app.new_session(1);
    app.new_session(2);
    let mut app_other = Client::connect(node.addr());
    app_other
        .authenticate("app", "s3cret")
        .expect("app authenticates");
    app_other.new_session(1);
    let root_id = connection_id(&mut victim, 1);
    for kill in [format!("KILL QUERY {root_id}"), format!("KILL {root_id}")] {
        let err = app.query(1, &kill).error.expect("1095");
        assert_eq!(
            (err.code, err.sql_state.as_str(), err.msg),
            (
                1095,
                "HY000",
                format!("You are not owner of thread {root_id}")
            )
        );
    }
    assert_eq!(victim.query(1, "SELECT 6").scalar(), &Value::Sint(6));
    let app_own = connection_id(&mut app_other, 1);
    let killed = app.query(1, &format!("KILL {app_own}"));
    assert!(killed.error.is_none(), "{:?}", killed.error);
    let Some(ServerMessage::Error(err)) = app_other.recv_on(1) else {
        panic!("expected FATAL on app's own killed session");
    };
    assert_eq!(err.code, 7005);
    let app_second = connection_id(&mut app, 2);
    let killed = victim.query(1, &format!("KILL {app_second}"));
    assert!(
        killed.error.is_none(),
        "root kills app's session: {:?}",
        killed.error
    );
    let Some(ServerMessage::Error(err)) = app.recv_on(2) else {
        panic!("expected FATAL on the session root killed");
    };
    assert_eq!(err.code, 7005);
}

/// A `SHOW STATUS` value, read on session `sid` of `client`.
pub fn status_value(client: &mut Client, sid: u64, name: &str) -> String {
    let outcome = client.query(sid, &format!("SHOW STATUS LIKE '{name}'"));
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.rows.len(), 1, "no status row {name}");
    text(&outcome.rows[0][1])
}

/// Open file descriptors of process `pid` (`/proc/<pid>/fd`).
pub fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/fd: {e}"))
        .count()
}

/// Threads of process `pid` (`Threads:` in `/proc/<pid>/status`).
pub fn thread_count(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("a Threads line")
}

/// The next frame on `sid`, which must be an error.
pub fn error_on(client: &mut Client, sid: u64) -> pb::Error {
    match client.recv_on(sid) {
        Some(ServerMessage::Error(err)) => err,
        other => panic!("expected an error on sid {sid:#x}, got {other:?}"),
    }
}

/// Sends SESS_NEW on `sid` without waiting for its answer.
pub fn send_new_session(client: &mut Client, sid: u64) {
    client.send(
        sid,
        ClientType::NewSession,
        &pb::session::NewSession::default(),
    );
}

/// Sends SESS_CLOSE on `sid` without waiting for its answer.
pub fn send_session_close(client: &mut Client, sid: u64) {
    client.send(
        sid,
        ClientType::SessionClose,
        &pb::session::Close::default(),
    );
}

/// Sends SESS_KILL of type QUERY on `sid` (the statement it runs, or its next one) without
/// waiting for an answer (a kill has none; the statement ends with 1317).
pub fn kill_query(client: &mut Client, sid: u64) {
    client.send(
        sid,
        ClientType::KillSession,
        &pb::session::KillSession {
            r#type: pb::session::kill_session::KillType::Query as i32,
            x_session_id: 0,
        },
    );
}

/// Polls `condition` every 10 ms until it holds, failing with `what` after `within`.
pub fn wait_until(within: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !condition() {
        assert!(Instant::now() < deadline, "{what} (waited {within:?})");
        std::thread::sleep(Duration::from_millis(10));
    }
}
