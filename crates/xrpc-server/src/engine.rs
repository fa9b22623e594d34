//! The engines the node runs on: the contract ([`xrpc_engine`]) and the two engines, SQLite
//! ([`sqlite`], the default) and a fronted MariaDB/MySQL ([`mysql`]).

pub use xrpc_engine::*;
pub use xrpc_engine_mysql as mysql;
pub use xrpc_engine_sqlite as sqlite;
