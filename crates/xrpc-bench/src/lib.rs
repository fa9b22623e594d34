//! Benchmark machinery for the XRPC framework and nodes, kept out of the framework itself.
//!
//! `xrpc-net` is the product; measuring it needs a load generator, an echo server and an OS layer
//! for single-threaded client loops, none of which a user of the framework should see. They live
//! here, and the command-line tool (`xrpc bench`) and the `echo-bench` example use them.
//!
//! | module | what it holds |
//! |---|---|
//! | [`loadgen`] | the closed-loop echo load generator: N connections, M frames in flight on each, one thread |
//! | [`echo`] | the echo [`Handler`](xrpc_net::Handler): every frame goes back unchanged |
//! | [`poll`] | the load drivers' OS layer: epoll, reads and `MSG_NOSIGNAL` writes through `rustix` |
//!
//! Binaries and examples:
//!
//! - `xrpc-echo` (`cargo run --release -p xrpc-bench --bin xrpc-echo -- --help`): the framework
//!   serving [`echo::EchoHandler`], the article's echo-server benchmark.
//! - `echo-bench` (`cargo run --release -p xrpc-bench --example echo-bench -- --help`): the
//!   framework against a raw epoll loop and a tokio server, driven by [`loadgen`].
//! - `select-bench` (`cargo run --release -p xrpc-bench --example select-bench -- --help`): closed-loop
//!   `SELECT 1` against an xrpc node over raw pre-encoded frames, with the loop `xrpc bench`'s
//!   driver uses but no client core: the leaner generator `xrpc bench` is checked against.

pub mod echo;
pub mod loadgen;
pub mod poll;
