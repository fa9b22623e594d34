//! The `xrpc-server` binary: the data node on embedded SQLite.
//!
//! With no arguments it listens on 127.0.0.1:33660 and keeps its data in `./xrpc-data/xrpc.db`.
//! `xrpc-server --help` lists every setting. SIGTERM or SIGINT drains the node and exits 0.

use std::process::ExitCode;
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use xrpc_server::config::ServerConfig;
use xrpc_server::metrics::{self, MetricsServer};
use xrpc_server::server::NodeBuilder;

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
            // One line, on stderr where the log goes too (not through the log as well, which
            // would print it twice), whatever the log filter says.
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
    // Caught before the node starts, so a signal during start-up drains it once it runs.
    let mut signals = catch_termination()?;
    let node = NodeBuilder::from_config(config)
        .and_then(NodeBuilder::start)
        .map_err(|e| e.to_string())?;
    let shared = Arc::clone(node.shared());
    tracing::info!(
        addr = %node.local_addr(),
        data = %config.db_path().display(),
        users = config.users.len(),
        "xrpc data node ready"
    );

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

    wait_for_termination(&mut signals);
    tracing::info!("draining");
    if let Some(metrics) = metrics {
        metrics.shutdown();
    }
    node.shutdown();
    tracing::info!("stopped");
    Ok(())
}

/// SIGTERM and SIGINT, caught from now on: their handler only writes to a self-pipe, which
/// [`wait_for_termination`] reads.
fn catch_termination() -> Result<Signals, String> {
    Signals::new([SIGTERM, SIGINT]).map_err(|e| format!("cannot install the signal handler: {e}"))
}

/// Blocks (in the kernel, without polling) until SIGTERM or SIGINT arrives.
fn wait_for_termination(signals: &mut Signals) {
    if let Some(signal) = signals.forever().next() {
        tracing::info!(signal, "termination signal received");
    }
}
