//! The xrpc data node: sessions multiplexed over connections, SQL on embedded SQLite, admin SQL and
//! metrics.
//!
//! # Module map
//!
//! A request's path, from the framework (`xrpc-net`) down to the engine and back:
//!
//! * **Start and drain** ([`server`]): [`server::NodeBuilder`] wires an engine, accounts,
//!   variables and the request cache into the shared state and starts the framework with the
//!   connection handler; [`server::Node::shutdown`] drains. The binary and every test harness start
//!   nodes through it.
//! * **Shared state** ([`node`]): [`node::NodeShared`], what every connection and session reaches
//!   for: the engine, the request cache ([`cache`]), accounts, live variables, session counters,
//!   the timestamp oracle and the registry of running statements.
//! * **Connections** ([`conn`]): the framework's handler; decodes frames, authenticates
//!   ([`auth`] over the accounts of [`users`], with addresses that fail too often blocked by
//!   [`host_block`]) and routes requests to sessions.
//! * **Sessions** ([`session`]): a session's queue and its run loop, one statement at a time,
//!   under `xrpc_net::RunGate` (checked by loom there); flow control of large results ([`flow`]).
//! * **Plans** ([`plan`]): EXEC_PLAN_READ plans compiled into one SQL statement, which the
//!   session runs like a prepared EXEC_SQL; table shapes come from the engine ([`plan::catalog`]).
//! * **Admin SQL** ([`admin`]): `SHOW VARIABLES`/`STATUS`, `SET GLOBAL`, `SELECT @@…` and
//!   `CALL xrpc.perf_hist`, answered before the engine sees the statement.
//! * **Engine** ([`engine`]): the [`engine::Engine`] contract and the embedded SQLite engine;
//!   results flow through the sinks of [`result`] into the frame writers of [`encode`].
//! * **Settings**: the variable table ([`vars`]), the live store ([`var_store`]), typed getters
//!   shared with the start-up configuration ([`settings`]), and the configuration itself
//!   ([`config`]: flags, environment, TOML file).
//! * **Metrics** ([`metrics`]): the Prometheus endpoint.
//! * **Binary log** ([`binlog`]): the frames a config string selects, queued for a background
//!   writer; its hooks are one-line calls in `conn`, `encode` and `session`.
//!
//! Imports between files point one way: `server` → `conn` → `session` → `engine`, `encode`,
//! `flow`, `result`; all of them → `node` → `admin`, `auth`, `cache`, `var_store` → `settings` →
//! `vars`; `conn`, `node` and `admin` → `host_block` (a leaf); `config` → `users`, `var_store`. The one file-level circle left is between
//! `engine/sqlite.rs` and its child `engine/sqlite/busy.rs`, explained where `busy` is declared.

pub mod admin;
pub mod auth;
pub mod binlog;
pub mod cache;
pub mod config;
pub mod conn;
pub mod encode;
pub mod engine;
pub mod flow;
pub mod host_block;
pub mod metrics;
pub mod node;
pub mod peer_log;
pub mod server;
pub mod session;
pub mod settings;
pub mod tls;
pub mod users;
pub mod var_store;
pub mod vars;

pub use xrpc_engine::result;
pub use xrpc_plan as plan;
