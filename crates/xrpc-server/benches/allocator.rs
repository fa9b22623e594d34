//! A measurement, not a check: how much resident memory the node keeps after large statements
//! and after a storm of connections, under glibc's allocator, after `malloc_trim(0)`, and under
//! jemalloc or mimalloc preloaded. Run it by hand (needs gdb for the trim step and the Debian
//! packages libjemalloc2 and libmimalloc2.0 for the preloads):
//!
//! ```sh
//! cargo bench -p xrpc-server --bench allocator
//! ```
//!
//! The figures it printed are in docs/MEMORY.md. `tests/memory.rs` checks the fix it led to
//! (`large_statements_give_their_memory_back_after_the_client_leaves`).

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::time::Duration;

use common::{Client, ServerProcess, rss_bytes, server_command, sql_stmt};

const MIB: f64 = 1024.0 * 1024.0;

fn rss_mib(server: &ServerProcess) -> f64 {
    rss_bytes(Some(server.pid())) as f64 / MIB
}

/// Calls `malloc_trim(0)` in the server through gdb; false when gdb is missing.
fn trim(server: &ServerProcess) -> bool {
    std::process::Command::new("gdb")
        .args([
            "-p",
            &server.pid().to_string(),
            "-batch",
            "-ex",
            "call (int) malloc_trim(0)",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn settle() {
    // Lets the node finish closing the connections the client just dropped; the figures are
    // read after it, so this is a measurement delay, not synchronisation. XRPC_PROBE_SETTLE_SECS
    // (default 2) lengthens it, e.g. past the 10 s after which extra workers exit.
    let secs = std::env::var("XRPC_PROBE_SETTLE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    std::thread::sleep(Duration::from_secs(secs));
}

fn probe(label: &str, env: &[(&str, &str)]) {
    for (name, value) in env {
        if *name == "LD_PRELOAD" && !Path::new(value).exists() {
            println!("{label}: {value} missing, skipped");
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = ServerProcess::start_on_a_free_port(
        &dir.path().join("server.log"),
        Duration::from_secs(20),
        |addr| {
            let mut cmd = server_command();
            cmd.arg("--listen")
                .arg(addr_string(addr))
                .arg("--data-dir")
                .arg(&data)
                .args(["--log", "warn"]);
            cmd.envs(env.iter().copied());
            cmd
        },
    )
    .unwrap();
    {
        let mut client = server.client();
        client.new_session(1);
        client.query(1, "select 1");
    }
    settle();
    let baseline = rss_mib(&server);

    // Six different 30 MiB statements on one session, then the client leaves.
    {
        let mut client = server.client();
        client.new_session(1);
        for i in 0..6 {
            let sql = format!("select length('{}{i}')", "x".repeat(30 << 20));
            let outcome = client.query(1, &sql);
            assert!(outcome.error.is_none(), "{:?}", outcome.error);
        }
    }
    settle();
    let after_large = rss_mib(&server);
    // The fixed receive buffer's dynamic companion is freed 10 s after its last large frame; the
    // connection is gone here, so that is not what remains.
    let trimmed_large = trim(&server).then(|| rss_mib(&server));

    // A storm: 1,000 connections open at once, each authenticated and running one query.
    {
        let mut clients: Vec<Client> = (0..1000).map(|_| server.client()).collect();
        for client in &mut clients {
            client.send_sql(0x8000_0000_0000_0001, sql_stmt("select 1"));
        }
        for client in &mut clients {
            client.read_outcome(0x8000_0000_0000_0001);
        }
    }
    settle();
    let after_storm = rss_mib(&server);
    let trimmed_storm = trim(&server).then(|| rss_mib(&server));
    let show = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.1}"));
    println!(
        "{label}: baseline {baseline:.1} MiB; after 6 x 30 MiB statements {after_large:.1} \
         (trimmed {}); after 1000-connection storm {after_storm:.1} (trimmed {})",
        show(trimmed_large),
        show(trimmed_storm)
    );
}

fn addr_string(addr: std::net::SocketAddr) -> String {
    addr.to_string()
}

fn main() {
    // The binary sets glibc's mmap threshold itself (main.rs); the tunables cannot undo that, so
    // the figures of plain glibc in docs/MEMORY.md come from a build without it.
    probe("as built (glibc, mmap_threshold 256 KiB)", &[]);
    probe(
        "as built, arena_max 2",
        &[("GLIBC_TUNABLES", "glibc.malloc.arena_max=2")],
    );
    probe(
        "mimalloc 2.0.9 (LD_PRELOAD)",
        &[("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2")],
    );
    probe(
        "jemalloc 5.3 (LD_PRELOAD)",
        &[("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2")],
    );
}
