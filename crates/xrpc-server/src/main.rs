//! The `xrpc-server` binary: the data node on embedded SQLite.
//!
//! With no arguments it listens on 127.0.0.1:33660 and keeps its data in `./xrpc-data/xrpc.db`.
//! `xrpc-server --help` lists every setting. SIGTERM or SIGINT drains the node and exits 0;
//! SIGHUP reloads the TLS certificate, key and client authorities (`--tls-*`) without a restart.

use std::process::ExitCode;
use std::sync::Arc;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
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

/// How often the heap trimmer looks at the node, and the least time between two trims.
const TRIM_CHECK: std::time::Duration = std::time::Duration::from_secs(1);
const TRIM_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

/// Gives free heap memory back to the system after connection churn: `malloc_trim(0)` once the
/// extra workers started for a burst have exited and connections closed since the last trim, at
/// most every [`TRIM_INTERVAL`].
///
/// A storm of connections leaves its memory free but resident in glibc's per-thread arenas (the
/// extra workers' arenas outlive them), about 50 % above the baseline after 1,000 connections and
/// growing with each storm; no allocator tried avoided it (docs/MEMORY.md). The trim walks every
/// arena, which costs milliseconds on a node of tens of MiB, hence the interval. It is the binary's
/// policy, as [`tune_allocator`] is: a program embedding the node keeps its own allocator policy.
fn start_heap_trimmer(shared: Arc<xrpc_server::node::NodeShared>) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use xrpc_server::admin::StatusSource;
        let spawned = std::thread::Builder::new()
            .name("xrpc-heap-trim".into())
            .spawn(move || {
                let mut trimmed_at = (0, 0);
                let mut last_trim = std::time::Instant::now();
                loop {
                    std::thread::sleep(TRIM_CHECK);
                    let stats = shared.net_stats();
                    let churn = (stats.closed_total, stats.threads_exited);
                    if churn != trimmed_at
                        && stats.extra_threads == 0
                        && last_trim.elapsed() >= TRIM_INTERVAL
                    {
                        // SAFETY: malloc_trim only returns free memory of the allocator's own
                        // arenas to the system; it is thread-safe and takes no pointers.
                        unsafe {
                            libc::malloc_trim(0);
                        }
                        trimmed_at = churn;
                        last_trim = std::time::Instant::now();
                    }
                }
            });
        if let Err(err) = spawned {
            tracing::warn!(%err, "cannot start the heap trimmer; memory freed after connection storms stays resident");
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = shared;
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
    start_heap_trimmer(Arc::clone(&shared));
    tracing::info!(
        addr = %node.local_addr(),
        data = %config.db_path().display(),
        users = config.users.len(),
        "xrpc data node ready"
    );
    // Names and host rules only: a password hash is password-equivalent and never logged.
    for user in &config.users {
        let hosts: Vec<String> = user.hosts.iter().map(ToString::to_string).collect();
        tracing::info!(
            user = %user.name,
            hosts = %hosts.join(","),
            connection_admin = user.connection_admin,
            "account"
        );
    }

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

    wait_for_termination(&mut signals, &node);
    tracing::info!("draining");
    if let Some(metrics) = metrics {
        metrics.shutdown();
    }
    node.shutdown();
    tracing::info!("stopped");
    Ok(())
}

/// SIGTERM, SIGINT and SIGHUP, caught from now on: their handler only writes to a self-pipe,
/// which [`wait_for_termination`] reads.
fn catch_termination() -> Result<Signals, String> {
    Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|e| format!("cannot install the signal handler: {e}"))
}

/// Blocks (in the kernel, without polling) until SIGTERM or SIGINT arrives, reloading TLS at
/// each SIGHUP meanwhile.
fn wait_for_termination(signals: &mut Signals, node: &xrpc_server::server::Node) {
    for signal in signals.forever() {
        if signal == SIGHUP {
            match node.reload_tls() {
                Ok(()) => tracing::info!("SIGHUP: TLS certificate, key and client CA reloaded"),
                Err(err) => {
                    tracing::error!(%err, "SIGHUP: TLS not reloaded; the previous certificate stays in force")
                }
            }
            continue;
        }
        tracing::info!(signal, "termination signal received");
        return;
    }
}
