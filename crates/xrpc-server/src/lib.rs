//! The xrpc data node: sessions multiplexed over connections, SQL on an engine (embedded SQLite by
//! default, or a fronted MariaDB/MySQL), admin SQL and metrics.
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
//! * **Plans** ([`plan`], the `xrpc-plan` crate): EXEC_PLAN_READ plans compiled into one SQL
//!   statement, which the session runs like a prepared EXEC_SQL; table shapes come from the engine.
//! * **Admin SQL** ([`admin`]): `SHOW VARIABLES`/`STATUS`, `SET GLOBAL`, `SELECT @@…` and
//!   `CALL xrpc.perf_hist`, answered before the engine sees the statement.
//! * **Engine** ([`engine`]): the `xrpc-engine` contract and the SQLite and `mysql` engine
//!   crates; results flow through the sinks of [`result`] into the frame writers of [`encode`].
//! * **Settings**: the variable table ([`vars`]), the live store ([`var_store`]), typed getters
//!   shared with the start-up configuration ([`settings`]), and the configuration itself
//!   ([`config`]: flags, environment, TOML file).
//! * **Metrics** ([`metrics`]): the Prometheus endpoint; the request counters it and `SHOW STATUS`
//!   list (statements by kind, errors by class, rows, sessions) are in [`counters`].
//! * **Binary log** ([`binlog`]): the frames a config string selects, queued for a background
//!   writer; its hooks are one-line calls in `conn`, `encode` and `session`.
//!
//! Imports between top-level modules point one way (`scripts/module_circles.py` checks it in CI):
//! `server` → `conn` → `session` → `engine`, `encode`, `flow`; all of them → `node` → `admin`,
//! `auth`, `cache`, `var_store` → `settings` → `vars` → `binlog`; `conn`, `node` and `admin` →
//! `host_block` (a leaf); `config` → `users`, `var_store`. The node's registry of sessions sees
//! them through [`node::RegisteredSession`], so `node` does not import `session`.

pub mod admin;
pub mod auth;
pub mod binlog;
pub mod cache;
pub mod config;
pub mod conn;
pub mod counters;
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
