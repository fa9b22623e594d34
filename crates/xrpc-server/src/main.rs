//! The `xrpc-server` binary: the data node on embedded SQLite.
//!
//! With no arguments it listens on 127.0.0.1:33660 and keeps its data in `./xrpc-data/xrpc.db`.
//! `xrpc-server --help` lists every setting. SIGTERM or SIGINT drains the node and exits 0.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use xrpc_server::auth::Accounts;
use xrpc_server::cache::RequestCache;
use xrpc_server::config::ServerConfig;
use xrpc_server::engine::sqlite::{SqliteEngine, SqliteOptions};
use xrpc_server::metrics::{self, MetricsServer};
use xrpc_server::node::{Node, NodeShared};
use xrpc_server::vars::{VarId, VarValue, Variables};

fn main() -> ExitCode {
    tune_allocator();
    let config = match ServerConfig::load() {
        Ok(config) => config,
        Err(err) => err.exit(),
    };
    init_logging(&config.log);
    match run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Sends allocations of 256 KiB and more to `mmap`, so they go back to the system when freed.
///
/// glibc raises its mmap threshold each time a large mmapped block is freed (up to 32 MiB), after
/// which large buffers come from the heap and stay resident: six 30 MiB statements left 251 MiB
/// resident on an 11 MiB node. A fixed threshold turns that adjustment off; the same run then ends
/// at 11 MiB, as with jemalloc or mimalloc, without replacing the allocator (docs/MEMORY.md).
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; it runs before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn run(config: &ServerConfig) -> Result<(), String> {
    std::fs::create_dir_all(&config.data_dir).map_err(|e| {
        format!(
            "cannot create data directory {}: {e}",
            config.data_dir.display()
        )
    })?;
    let vars = Arc::new(Variables::from_config(config));

    let options = SqliteOptions {
        synchronous: config
            .sqlite_synchronous()
            .parse()
            .map_err(|e| format!("sqlite_synchronous: {e}"))?,
        busy_timeout: config.sqlite_busy_timeout(),
        begin_immediate: config.sqlite_begin_immediate(),
        ..SqliteOptions::default()
    };
    let db_path = config.db_path();
    let engine = SqliteEngine::open(&db_path, options)
        .map_err(|e| format!("cannot open {}: {}", db_path.display(), e.message))?;

    let cache = RequestCache::new(
        config.request_cache_instances(),
        config.request_cache_number(),
        config.request_cache_max_length(),
    );
    let net = config.net_config();
    let shared = Arc::new(NodeShared::new(
        Arc::new(engine),
        cache,
        Accounts::new(config.users.clone()),
        Arc::clone(&vars),
        net.frame.format,
    ));
    let node = Node::start(net, Arc::clone(&shared))
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let addr = node.local_addr();
    let _ = vars.set_internal(VarId::RpcPort, VarValue::Int(i64::from(addr.port())));
    tracing::info!(%addr, data = %db_path.display(), users = config.users.len(), "xrpc data node ready");

    let metrics = match config.metrics {
        Some(metrics_addr) => {
            let shared = Arc::clone(&shared);
            let groups = node.shared().groups().to_vec();
            let server = MetricsServer::start(metrics_addr, move || {
                let hist = groups.first().map(|g| g.perf());
                match hist {
                    Some(hist) => metrics::render(&*shared, hist),
                    None => String::new(),
                }
            })
            .map_err(|e| format!("cannot serve metrics on {metrics_addr}: {e}"))?;
            tracing::info!(addr = %server.local_addr(), "metrics endpoint ready");
            Some(server)
        }
        None => None,
    };

    wait_for_termination()?;
    tracing::info!("draining");
    if let Some(metrics) = metrics {
        metrics.shutdown();
    }
    node.shutdown();
    tracing::info!("stopped");
    Ok(())
}

/// Blocks until SIGTERM or SIGINT.
fn wait_for_termination() -> Result<(), String> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| format!("cannot install the signal handler: {e}"))?;
    }
    while !stop.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}
