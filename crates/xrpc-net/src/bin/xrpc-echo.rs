//! `xrpc-echo`: the XRPC framework serving the echo handler (the article's echo-server benchmark).
//!
//! ```text
//! xrpc-echo [--listen 127.0.0.1:33660] [--threads-per-group 4] [--groups 0] [--no-bind]
//!           [--seconds N]
//! ```
//!
//! Runs until killed, or for `--seconds`, then prints the counters in Prometheus text.

use std::time::Duration;

use xrpc_net::echo::EchoHandler;
use xrpc_net::{NetConfig, Server};

fn main() -> std::io::Result<()> {
    let mut cfg = NetConfig::default();
    let mut seconds = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&arg));
        match arg.as_str() {
            "--listen" => cfg.listen = value().parse().unwrap_or_else(|_| usage("--listen")),
            "--threads-per-group" => {
                cfg.threads_per_group = value()
                    .parse()
                    .unwrap_or_else(|_| usage("--threads-per-group"))
            }
            "--groups" => cfg.groups = value().parse().unwrap_or_else(|_| usage("--groups")),
            "--no-bind" => cfg.bind_cores = false,
            "--seconds" => {
                seconds = Some(
                    value()
                        .parse::<u64>()
                        .unwrap_or_else(|_| usage("--seconds")),
                )
            }
            _ => usage(&arg),
        }
    }
    let server = Server::start(cfg, EchoHandler)?;
    eprintln!(
        "xrpc-echo listening on {} with {} group(s)",
        server.local_addr(),
        server.groups().len()
    );
    match seconds {
        Some(s) => std::thread::sleep(Duration::from_secs(s)),
        None => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
    }
    print!("{}", server.prometheus("xrpc"));
    server.shutdown();
    Ok(())
}

fn usage(arg: &str) -> ! {
    eprintln!(
        "bad argument {arg}\nusage: xrpc-echo [--listen ADDR] [--threads-per-group N] [--groups N] [--no-bind] [--seconds N]"
    );
    std::process::exit(2)
}
