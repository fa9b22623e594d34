//! The xrpc data node: sessions multiplexed over connections, SQL on embedded SQLite, admin SQL and metrics.

pub mod admin;
pub mod auth;
pub mod cache;
pub mod config;
pub mod conn;
pub mod encode;
pub mod engine;
pub mod flow;
pub mod metrics;
pub mod node;
pub mod peer_log;
pub mod result;
pub mod session;
pub mod vars;
