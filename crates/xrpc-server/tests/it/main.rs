//! The node's end-to-end tests, one binary: each module is a specification of one part of the
//! node's behaviour, driven over its TCP port (`common` starts nodes and speaks raw frames).
//! The fail-point tests (feature `failpoints`) and the memory measurements, which need a process
//! of their own, are separate binaries.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod admin;
mod admission;
mod binlog;
mod catalog;
mod corpus_sqlite;
mod counters;
mod differential_mariadb;
mod durability;
mod engine_mysql;
mod engine_mysql_driver;
mod engine_sqlite;
mod faults;
mod lifecycle;
mod lock_wait;
mod metrics_http;
mod node;
mod plan;
mod protocol;
mod session_database;
mod statement_cache;
mod tls;
