//! `xrpc`: the command-line client of xrpc data nodes (shell, exec, status) and the benchmark
//! load generator (`xrpc bench`), and the binary log reader (`xrpc binlog`). See the library's docs for each command.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xrpc_cli::bench::{self, BenchCmd, BenchSub};
use xrpc_cli::binlog::{self, BinlogArgs};
use xrpc_cli::conn::ConnArgs;
use xrpc_cli::shell::{self, ExecArgs, ShellArgs};
use xrpc_cli::status;

/// mimalloc instead of glibc's malloc. `xrpc bench`'s drivers allocate and free a few small
/// objects per request (the client core's request and result, row vectors, frame bodies); at 1024
/// clients glibc's `malloc`/`free` (with `malloc_consolidate` and `unlink_chunk`) were about a
/// fifth of the xrpc driver's CPU, and mimalloc took its client CPU per `select 1` from 2.1–2.3 to
/// 1.8 µs (docs/BENCHMARKS.md, "The load generator against a leaner one"). Every driver of the
/// binary (xrpc, mysql://, echo) gets the same allocator, so comparisons between them stay fair.
/// The library, and the node (`xrpc-server` keeps glibc's, see docs/MEMORY.md), are unaffected.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The xrpc client: SQL shell, scripted statements, node status and benchmarks.
#[derive(Debug, Parser)]
#[command(name = "xrpc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Interactive SQL (or SQL from stdin when it is not a terminal).
    Shell(ShellArgs),
    /// Run statements given as an argument and print their results.
    Exec(ExecArgs),
    /// Show the connection (id, database, user, server version, protocol, TLS, uptime), then the
    /// node's status variables and stage histograms.
    Status(ConnArgs),
    /// Measure throughput and latency of xrpc nodes, echo servers and MySQL peers.
    Bench(Box<BenchCmd>),
    /// Print a node's binary log files as JSON lines (docs/PROTOCOL.md, "Binary log").
    Binlog(BinlogArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match &cli.command {
        Command::Shell(args) => shell::run_shell(args),
        Command::Exec(args) => shell::run_exec(args),
        Command::Status(args) => match status::run(args) {
            Ok(text) => {
                print!("{text}");
                0
            }
            Err(err) => {
                eprintln!("{err}");
                1
            }
        },
        Command::Bench(cmd) => match &cmd.sub {
            Some(BenchSub::Prepare(args)) => bench::prepare::run(args),
            None => bench::run(&cmd.run),
        },
        Command::Binlog(args) => binlog::run(args),
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
