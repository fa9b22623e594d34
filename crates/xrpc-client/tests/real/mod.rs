//! Real `xrpc-server` nodes started in-process, and a TCP relay to break or freeze connections.
//!
//! Shared by `against_server.rs` and `aio_against_server.rs`. A node runs on SQLite (in a
//! temporary directory) or on the `mysql` engine in front of a fresh database of the binary's one
//! MariaDB ([`xrpc_testkit::shared_database`], started by the first test that asks for it):
//! [`Engine`] and the `on_both_engines!` macro of `against_server.rs`.

#![allow(dead_code, unreachable_pub)]

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use xrpc_server::engine::mysql::{MysqlEngine, PoolOptions};
use xrpc_server::engine::sqlite::SqliteOptions;
use xrpc_server::node::NodeShared;
use xrpc_server::server::{Node, NodeBuilder, StartError};
use xrpc_server::users::{HostRule, UserConfig};

/// The password of the `app` account every test node has (root has none).
pub const APP_PASSWORD: &str = "s3cret";

/// A query that runs for minutes unless killed: SQLite counts to a billion.
pub const ENDLESS: &str = "with recursive c(i) as (select 1 union all select i + 1 from c \
                           where i < 1000000000) select count(*) from c";

/// The engine a [`TestNode`] runs its SQL on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Embedded SQLite in the node's temporary directory.
    Sqlite,
    /// The `mysql` engine on a fresh database of the binary's shared MariaDB, with a backend pool
    /// of 4.
    Mysql,
}

impl Engine {
    /// A statement that runs for an hour unless killed, and fails when it is: [`ENDLESS`] on
    /// SQLite; on MariaDB a count over a cross join of two sequences, 10^12 rows and nothing
    /// materialised (a killed `SLEEP` or `BENCHMARK` answers a value instead of failing).
    pub fn endless(self) -> &'static str {
        match self {
            Engine::Sqlite => ENDLESS,
            Engine::Mysql => "select count(*) from seq_1_to_1000000 a, seq_1_to_1000000 b",
        }
    }
}

/// How long a stopping node lets running statements finish.
pub const GRACE: Duration = Duration::from_millis(100);

/// A data node on a loopback port, with its data in a temporary directory.
pub struct TestNode {
    node: Option<Node>,
    addr: SocketAddr,
    dir: tempfile::TempDir,
    /// The backend database's URL on the `mysql` engine, kept for [`restart`](Self::restart).
    backend: Option<String>,
}

impl TestNode {
    /// A SQLite node on an ephemeral port.
    pub fn start() -> Self {
        Self::start_on(Engine::Sqlite)
    }

    /// A node on `engine`, on an ephemeral port.
    pub fn start_on(engine: Engine) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let backend = match engine {
            Engine::Sqlite => None,
            Engine::Mysql => {
                Some(xrpc_testkit::shared_database().unwrap_or_else(|err| panic!("{err}")))
            }
        };
        let db = dir.path().join("xrpc.db");
        let node = try_start_node(&db, backend.as_deref(), "127.0.0.1:0".parse().unwrap())
            .unwrap_or_else(|err| panic!("cannot start a node on {engine:?}: {err}"));
        let addr = node.local_addr();
        Self {
            node: Some(node),
            addr,
            dir,
            backend,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn addr_string(&self) -> String {
        self.addr.to_string()
    }

    pub fn shared(&self) -> &Arc<NodeShared> {
        self.node.as_ref().expect("the node runs").shared()
    }

    /// Drains and stops the node: running statements get [`GRACE`], then are interrupted.
    pub fn stop(&mut self) {
        if let Some(node) = self.node.take() {
            node.shutdown();
        }
    }

    /// Starts the node again on the same port, with the same data.
    pub fn restart(&mut self) {
        self.stop();
        let db = self.db_path();
        let deadline = Instant::now() + Duration::from_secs(5);
        // The port is free once the old listener is closed; retry briefly in case it lingers.
        loop {
            match try_start_node(&db, self.backend.as_deref(), self.addr) {
                Ok(node) => {
                    self.node = Some(node);
                    return;
                }
                Err(err) if Instant::now() < deadline => {
                    let _ = err;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(err) => panic!("cannot restart the node on {}: {err}", self.addr),
            }
        }
    }

    fn db_path(&self) -> PathBuf {
        self.dir.path().join("xrpc.db")
    }
}

impl Drop for TestNode {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts a node on SQLite in `db`, or on the `mysql` engine in front of `backend`.
fn try_start_node(
    db: &std::path::Path,
    backend: Option<&str>,
    listen: SocketAddr,
) -> Result<Node, StartError> {
    let builder = match backend {
        None => NodeBuilder::sqlite(db, SqliteOptions::default())?,
        Some(url) => {
            let options = PoolOptions {
                size: 4,
                ..Default::default()
            };
            let engine = MysqlEngine::connect(url, options)
                .unwrap_or_else(|err| panic!("cannot reach the test MariaDB: {err:?}"));
            NodeBuilder::new(Arc::new(engine))
        }
    };
    builder
        .loopback(listen)
        .tune_net(|net| net.shutdown_grace = GRACE)
        .users(vec![
            UserConfig::builtin_root(),
            UserConfig::with_password("app", APP_PASSWORD, vec![HostRule::Localhost]),
        ])
        .start()
}

/// Waits until `cond` holds, for at most `within`; returns whether it did.
pub fn wait_until(within: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A TCP relay in front of a node: every accepted connection is forwarded to the node, byte for
/// byte, and the test can count the bytes, freeze the relay (a hung peer: sockets stay open but
/// nothing moves), or cut every connection (a network failure).
pub struct Proxy {
    addr: SocketAddr,
    state: Arc<ProxyState>,
    accept: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct ProxyState {
    stop: AtomicBool,
    frozen: AtomicBool,
    /// Bytes forwarded from the node to the client.
    down: AtomicU64,
    /// Bytes forwarded from the client to the node.
    up: AtomicU64,
    accepted: AtomicU64,
    /// Both sockets of every connection, for `cut`.
    links: Mutex<Vec<(TcpStream, TcpStream)>>,
}

impl Proxy {
    pub fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(ProxyState::default());
        let st = Arc::clone(&state);
        let accept = std::thread::spawn(move || {
            while !st.stop.load(Ordering::Acquire) {
                match listener.accept() {
                    Ok((client, _)) => {
                        client.set_nonblocking(false).unwrap();
                        let Ok(server) = TcpStream::connect(upstream) else {
                            continue;
                        };
                        client.set_nodelay(true).unwrap();
                        server.set_nodelay(true).unwrap();
                        st.accepted.fetch_add(1, Ordering::AcqRel);
                        st.links
                            .lock()
                            .push((client.try_clone().unwrap(), server.try_clone().unwrap()));
                        relay(
                            &st,
                            client.try_clone().unwrap(),
                            server.try_clone().unwrap(),
                            true,
                        );
                        relay(&st, server, client, false);
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    Err(e) => panic!("proxy accept: {e}"),
                }
            }
        });
        Self {
            addr,
            state,
            accept: Some(accept),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn addr_string(&self) -> String {
        self.addr.to_string()
    }

    /// Bytes forwarded from the node to clients so far.
    pub fn bytes_down(&self) -> u64 {
        self.state.down.load(Ordering::Acquire)
    }

    /// Bytes forwarded from clients to the node so far.
    pub fn bytes_up(&self) -> u64 {
        self.state.up.load(Ordering::Acquire)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.state.accepted.load(Ordering::Acquire)
    }

    /// Stops (or resumes) forwarding in both directions; the sockets stay open.
    pub fn freeze(&self, on: bool) {
        self.state.frozen.store(on, Ordering::Release);
    }

    /// Shuts down both sides of every connection so far: the client and the node each see the
    /// stream end. New connections are still accepted.
    pub fn cut(&self) {
        for (client, server) in self.state.links.lock().drain(..) {
            let _ = client.shutdown(Shutdown::Both);
            let _ = server.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::Release);
        self.cut();
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

/// Copies `from` to `to` on a thread until either side ends; then shuts both down.
fn relay(state: &Arc<ProxyState>, mut from: TcpStream, mut to: TcpStream, upward: bool) {
    let state = Arc::clone(state);
    std::thread::spawn(move || {
        from.set_read_timeout(Some(Duration::from_millis(10)))
            .unwrap();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            if state.stop.load(Ordering::Acquire) {
                break;
            }
            if state.frozen.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    let counter = if upward { &state.up } else { &state.down };
                    counter.fetch_add(n as u64, Ordering::AcqRel);
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => break,
            }
        }
        let _ = from.shutdown(Shutdown::Both);
        let _ = to.shutdown(Shutdown::Both);
    });
}
