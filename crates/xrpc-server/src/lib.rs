//! The xrpc data node: sessions multiplexed over connections, SQL on embedded SQLite, admin SQL and metrics.

pub mod auth;
pub mod engine;
pub mod flow;
pub mod result;
