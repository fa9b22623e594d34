//! `xrpc-echo`: the XRPC framework serving the echo handler (the article's echo-server benchmark).
//!
//! ```text
//! xrpc-echo [--listen 127.0.0.1:33660] [--threads-per-group 4] [--groups 0] [--no-bind]
//!           [--seconds N]
//! ```
//!
//! Runs until killed, or for `--seconds`, then prints the counters in Prometheus text.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use xrpc_bench::echo::EchoHandler;
use xrpc_net::{NetConfig, Server};

/// Serves the echo handler on the XRPC framework: every frame goes back unchanged.
#[derive(Debug, Parser)]
#[command(name = "xrpc-echo", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value_t = NetConfig::default().listen)]
    listen: SocketAddr,
    /// Worker threads per epoll group.
    #[arg(long, default_value_t = NetConfig::default().threads_per_group)]
    threads_per_group: usize,
    /// Epoll groups; 0 follows the allowed cores.
    #[arg(long, default_value_t = NetConfig::default().groups)]
    groups: usize,
    /// Do not pin workers to cores.
    #[arg(long)]
    no_bind: bool,
    /// Stop after this many seconds and print the counters (default: run until killed).
    #[arg(long)]
    seconds: Option<u64>,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let cfg = NetConfig {
        listen: args.listen,
        threads_per_group: args.threads_per_group,
        groups: args.groups,
        bind_cores: !args.no_bind,
        ..NetConfig::default()
    };
    let server = Server::start(cfg, EchoHandler)?;
    eprintln!(
        "xrpc-echo listening on {} with {} group(s)",
        server.local_addr(),
        server.groups().len()
    );
    match args.seconds {
        Some(s) => std::thread::sleep(Duration::from_secs(s)),
        None => loop {
            std::thread::park();
        },
    }
    print!("{}", server.prometheus("xrpc"));
    server.shutdown();
    Ok(())
}
