//! Starting and draining the data node: [`NodeBuilder`] wires an engine, accounts, variables and
//! the request cache into a [`NodeShared`] and starts the framework with the connection handler;
//! [`Node`] is the running node, and [`Node::shutdown`] drains it.
//!
//! The binary and every test harness (this crate's, the client's, the CLI's) start nodes through
//! the builder, so they run the same wiring. This module sits on top of the server's modules:
//! it depends on [`crate::conn`] (the handler) and [`crate::node`] (the shared state), and
//! neither depends on it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use xrpc_net::{NetConfig, Server};
use xrpc_proto::codes;

use crate::auth::Accounts;
use crate::cache::RequestCache;
use crate::config::{EngineChoice, ServerConfig};
use crate::conn::NodeHandler;
use crate::engine::Engine;
use crate::engine::mysql::{MysqlEngine, PoolOptions};
use crate::engine::sqlite::{ParseSynchronousError, SqliteEngine, SqliteOptions};
use crate::node::NodeShared;
use crate::result::SqlError;
use crate::settings::Settings;
use crate::tls::TlsContext;
use crate::users::UserConfig;
use crate::var_store::Variables;
use crate::vars::{VarId, VarValue};

/// How long a drain waits, after interrupting the statements still running, for them to end and
/// answer 1317 before it closes the connections. A statement notices the interrupt within its
/// engine's check interval (milliseconds); the bound only matters for one that never does.
const INTERRUPT_SETTLE: Duration = Duration::from_secs(2);

/// Why a node could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The data directory could not be created.
    #[error("cannot create data directory {}: {source}", path.display())]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A setting's value is not usable.
    #[error("{name}: {message}")]
    Setting {
        /// The setting's name.
        name: &'static str,
        /// What is wrong with its value.
        message: String,
    },
    /// The engine could not open the database.
    #[error("cannot open {}: {message}", path.display())]
    OpenEngine {
        /// The database file.
        path: PathBuf,
        /// The engine's error message.
        message: String,
    },
    /// The backend of the mysql engine could not be used (unreachable, refused login, …).
    #[error("cannot use the backend {backend}: {message} ({code} {sql_state})")]
    Backend {
        /// The backend URL, without its password.
        backend: String,
        /// The error's message.
        message: String,
        /// The MySQL error code.
        code: u32,
        /// The SQL state.
        sql_state: String,
    },
    /// The TLS certificate, key or client authorities could not be loaded.
    #[error("{0}")]
    Tls(#[from] crate::tls::TlsLoadError),
    /// The binary log could not be switched on.
    #[error("binlog: {0}")]
    Binlog(#[from] crate::binlog::BinlogError),
    /// The framework could not listen.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// What the OS said.
        source: std::io::Error,
    },
}

/// A last adjustment of the framework settings and the shared state before the node starts.
type Tune = Box<dyn FnOnce(&mut NetConfig, &mut NodeShared)>;

/// How to start a node. Every part has the server's default except the engine; tests usually set
/// [`loopback`](Self::loopback) and their accounts.
pub struct NodeBuilder {
    engine: Arc<dyn Engine>,
    net: NetConfig,
    users: Vec<UserConfig>,
    vars: Arc<Variables>,
    cache: RequestCache,
    tls: TlsContext,
    tune: Option<Tune>,
}

impl std::fmt::Debug for NodeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeBuilder")
            .field("engine", &self.engine.name())
            .field("listen", &self.net.listen)
            .field("users", &self.users.len())
            .finish_non_exhaustive()
    }
}

impl NodeBuilder {
    /// A node over `engine` with the default framework settings, variables and request cache, and
    /// the built-in `root` account (no password, local connections only).
    pub fn new(engine: Arc<dyn Engine>) -> Self {
        Self {
            engine,
            net: NetConfig::default(),
            users: vec![UserConfig::builtin_root()],
            vars: Arc::new(Variables::new()),
            cache: RequestCache::default(),
            tls: TlsContext::disabled(),
            tune: None,
        }
    }

    /// A node over an SQLite database at `db`, opened with `options`.
    pub fn sqlite(db: &Path, options: SqliteOptions) -> Result<Self, StartError> {
        let engine = SqliteEngine::open(db, options).map_err(|e| StartError::OpenEngine {
            path: db.to_owned(),
            message: e.message,
        })?;
        Ok(Self::new(Arc::new(engine)))
    }

    /// The node `config` describes, as the `xrpc-server` binary runs it: the data directory is
    /// created if missing and the SQLite database in it opened with the configured options.
    pub fn from_config(config: &ServerConfig) -> Result<Self, StartError> {
        std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
            path: config.data_dir.clone(),
            source,
        })?;
        let vars = Arc::new(config.variables());
        let _ = vars.set_internal(
            VarId::XrpcEngine,
            VarValue::Str(config.engine.describe().into()),
        );
        let builder = match &config.engine {
            EngineChoice::Sqlite => {
                let options = SqliteOptions {
                    synchronous: config.sqlite_synchronous().parse().map_err(
                        |e: ParseSynchronousError| StartError::Setting {
                            name: "sqlite_synchronous",
                            message: e.to_string(),
                        },
                    )?,
                    busy_timeout: config.sqlite_busy_timeout(),
                    begin_immediate: config.sqlite_begin_immediate(),
                    max_page_count: config.sqlite_max_page_count(),
                    mmap_size: config.sqlite_mmap_size(),
                    ..SqliteOptions::default()
                };
                Self::sqlite(&config.db_path(), options)?
            }
            EngineChoice::Mysql(url) => {
                let options = PoolOptions {
                    size: config.backend_pool_size(),
                    connect_timeout: config.backend_connect_timeout(),
                    wait_timeout: config.backend_wait_timeout(),
                    lifetime: config.backend_connection_lifetime(),
                    driver_connections: config.backend_driver_connections(),
                };
                let engine = MysqlEngine::connect_waiting(url, options, config.engine_wait())
                    .map_err(|e| StartError::Backend {
                        backend: config.engine.describe(),
                        message: e.message,
                        code: e.code,
                        sql_state: e.sql_state,
                    })?;
                // Clients see the backend's version, as they would connecting to it directly.
                let _ = vars.set_internal(
                    VarId::VersionComment,
                    VarValue::Str(
                        format!(
                            "xrpc data node (PolarDB-X RPC protocol, SQL on {})",
                            engine.version()
                        )
                        .into(),
                    ),
                );
                let _ = vars.set_internal(
                    VarId::Version,
                    VarValue::Str(
                        format!("{}-xrpc-{}", engine.version(), env!("CARGO_PKG_VERSION")).into(),
                    ),
                );
                Self::new(Arc::new(engine))
            }
        };
        let binlog_dir = match config.binlog_dir() {
            dir if dir.is_empty() => config.data_dir.join("binlog"),
            dir => PathBuf::from(dir),
        };
        crate::binlog::global().set_dir(&binlog_dir);
        let (max_file_bytes, max_files, queue_entries) = config.binlog_limits();
        crate::binlog::global().set_limits(max_file_bytes, max_files, queue_entries);
        let tls = match config.tls_files() {
            Some(files) => TlsContext::load(files)?,
            None => TlsContext::disabled(),
        };
        Ok(builder
            .tls(tls)
            .net(config.net_config())
            .users(config.users.clone())
            .vars(vars)
            .request_cache(RequestCache::new(
                config.request_cache_instances(),
                config.request_cache_number(),
                config.request_cache_max_length(),
            )))
    }

    /// The framework's settings, replacing the defaults.
    pub fn net(mut self, net: NetConfig) -> Self {
        self.net = net;
        self
    }

    /// Adjusts the framework's settings in place.
    pub fn tune_net(mut self, tune: impl FnOnce(&mut NetConfig)) -> Self {
        tune(&mut self.net);
        self
    }

    /// Listens on `listen` (port 0: a free one) with one group of two workers: the shape every
    /// in-process test node has, small enough for a loaded machine.
    pub fn loopback(self, listen: SocketAddr) -> Self {
        self.tune_net(|net| {
            net.listen = listen;
            net.groups = 1;
            net.threads_per_group = 2;
        })
    }

    /// The accounts that may connect, replacing the built-in `root`.
    pub fn users(mut self, users: Vec<UserConfig>) -> Self {
        self.users = users;
        self
    }

    /// The variables the node runs with.
    pub fn vars(mut self, vars: Arc<Variables>) -> Self {
        self.vars = vars;
        self
    }

    /// TLS for clients that ask for it ([`crate::tls`]); disabled by default.
    pub fn tls(mut self, tls: TlsContext) -> Self {
        self.tls = tls;
        self
    }

    /// The statement-digest cache.
    pub fn request_cache(mut self, cache: RequestCache) -> Self {
        self.cache = cache;
        self
    }

    /// Lets `tune` adjust the framework settings and the shared state just before the node starts
    /// (tests set variables here).
    pub fn tune(mut self, tune: impl FnOnce(&mut NetConfig, &mut NodeShared) + 'static) -> Self {
        self.tune = Some(Box::new(tune));
        self
    }

    /// Starts the node: the framework listens, and the read-only `rpc_port` variable says on
    /// which port.
    pub fn start(self) -> Result<Node, StartError> {
        let Self {
            engine,
            mut net,
            users,
            vars,
            cache,
            tls,
            tune,
        } = self;
        // The process's binary log: SET GLOBAL xrpc_binlog reconfigures it, and a start-up value
        // switches it on (an empty one leaves alone what another node of the process set).
        let binlog = crate::binlog::global();
        binlog.set_default_format(net.frame.format);
        let config = vars.binlog();
        if !config.is_empty() {
            binlog.configure(&config)?;
        }
        // The grammar was checked before the change; the sink can still fail (a directory the
        // node cannot create or open): then the statement fails and the variable keeps the config
        // in force, so SHOW VARIABLES never shows a log that is not being written.
        vars.try_on_change(VarId::Binlog, |value| {
            let text = value.as_str().unwrap_or_default();
            crate::binlog::global().configure(text).map_err(|err| {
                tracing::warn!(%err, "binlog: cannot switch to the new config; it stays as it was");
                SqlError::new(
                    &codes::WRONG_VALUE_FOR_VAR,
                    format!("Variable 'xrpc_binlog' can't be set to the value of '{text}': {err}"),
                )
            })
        });
        engine.bind_variables(vars.as_ref());
        let mut shared =
            NodeShared::new(engine, cache, Accounts::new(users), vars, net.frame.format);
        shared.tls = tls;
        if let Some(tune) = tune {
            tune(&mut net, &mut shared);
        }
        let addr = net.listen;
        Node::start(net, Arc::new(shared)).map_err(|source| StartError::Listen { addr, source })
    }
}

/// A running data node.
#[derive(Debug)]
pub struct Node {
    shared: Arc<NodeShared>,
    server: Option<Server<NodeHandler>>,
}

impl Node {
    /// Starts serving `shared` with the framework configured by `net`. [`NodeBuilder`] is the
    /// usual way in.
    pub fn start(net: NetConfig, shared: Arc<NodeShared>) -> std::io::Result<Self> {
        let server = Server::start(net, NodeHandler::new(Arc::clone(&shared)))?;
        shared.started(server.groups().to_vec());
        let port = server.local_addr().port();
        let _ = shared
            .vars
            .set_internal(VarId::RpcPort, VarValue::Int(i64::from(port)));
        Ok(Self {
            shared,
            server: Some(server),
        })
    }

    /// The address the node listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.server().local_addr()
    }

    /// The shared state.
    pub fn shared(&self) -> &Arc<NodeShared> {
        &self.shared
    }

    /// Reads the TLS certificate, key and client authorities again; new handshakes use them, and
    /// on error the previous ones stay in force (SIGHUP and `ALTER INSTANCE RELOAD TLS` call it).
    pub fn reload_tls(&self) -> Result<(), crate::tls::TlsReloadError> {
        self.shared.tls.reload()
    }

    /// The framework.
    pub fn server(&self) -> &Server<NodeHandler> {
        self.server.as_ref().expect("running")
    }

    /// Drains and stops: stops accepting (the listener closes, so new connections are refused),
    /// answers each session's queued requests with FATAL 1053 (the session is removed), lets
    /// running statements finish for up to the framework's `shutdown_grace`
    /// (`xrpc_drain_timeout`) and interrupts those still running (1317), closes every
    /// connection, joins every worker, and checkpoints the engine.
    pub fn shutdown(mut self) {
        // Listening stops first: a connection accepted while the node drains would only be
        // served errors (and then closed). The framework accepts and registers under the
        // listener's lock, so every connection it took has been through `on_connect` when this
        // returns, and is drained like the others.
        if let Some(server) = &self.server {
            server.stop_accepting();
        }
        self.shared.begin_drain();
        tracing::info!("no longer accepting connections");
        if let Some(server) = self.server.take() {
            // The framework joins its workers after its grace, and runs the connections' close
            // callbacks (which kill their statements) only after that join: a statement still
            // running would keep its worker, and so this call, waiting until it ends by itself.
            // So statements get the same grace here, then are interrupted, once: a statement that
            // is just starting is interrupted as it registers (see `interrupt_running`).
            let deadline = Instant::now() + server.config().shutdown_grace;
            while Instant::now() < deadline && self.shared.running_statements() > 0 {
                std::thread::sleep(Duration::from_millis(10));
            }
            self.shared.interrupt_running();
            // An interrupted statement still has to notice the flag and send its 1317; until it
            // has, closing its connection would turn that answer into "connection lost". The
            // framework's own grace (below) is short in tests and a loaded machine can take
            // longer, so wait for the interrupted statements here, bounded.
            let settled_by = Instant::now() + INTERRUPT_SETTLE;
            while Instant::now() < settled_by && self.shared.running_statements() > 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            // Statements still waiting on the engine's event-loop sockets end (lost connection)
            // while the workers that would read their answers still run.
            self.shared.engine.stopping();
            server.shutdown();
        }
        if let Err(err) = self.shared.engine.checkpoint() {
            tracing::warn!(%err, "checkpoint at shutdown failed");
        }
    }
}
