//! Client for xrpc data nodes: a sans-IO connection core, blocking and tokio transports, a session pool and a shard-routing multi-node client.
//!
//! xrpc speaks the PolarDB-X RPC protocol: many logical sessions multiplexed over a few TCP
//! connections per data node, each frame naming its session id (`docs/PROTOCOL.md`). This crate is
//! the client side, in layers:
//!
//! | module | role |
//! |---|---|
//! | [`proto`] | [`proto::ClientConnection`], the sans-IO state machine of one connection: handshake, sessions, requests, result assembly, cascading errors, flow control, digest cache, timeouts, heartbeat. No I/O, time passed in. |
//! | [`blocking`] | A transport over `std::net::TcpStream`: a reader thread per connection, callers parked per request, coalesced writes. |
//! | `aio` (feature `async`) | The same API on tokio. |
//! | `options`, `pipeline` | [`ConnectOptions`] and the [`Pipeline`] builder, shared by both transports. |
//! | [`plan`] | Typed builders for EXEC_PLAN_READ plans (get by key, range, project, filter, aggregate), sent with `Session::execute_plan`. |
//! | [`tls`] | [`TlsOptions`]: switching a connection to TLS before authenticating (blocking transport). |
//! | [`pool`] | Connections and sessions per data node, reusing only clean sessions. |
//! | [`cluster`] | Several data nodes, one picked per shard key. |
//!
//! ```no_run
//! use xrpc_client::pool::{Pool, PoolOptions};
//! use xrpc_client::ConnectOptions;
//!
//! let pool = Pool::new("127.0.0.1:33660", PoolOptions::new(ConnectOptions::new("root", "")));
//! let mut session = pool.session()?;
//! session.execute("insert into t values (?, ?)", &[1i64.into(), "one".into()])?;
//! let rows = session.query("select * from t")?;
//! println!("{} rows", rows.rows.len());
//! # Ok::<(), xrpc_client::ClientError>(())
//! ```

pub mod blocking;
pub mod cluster;
mod driver;
mod error;
mod options;
mod pipeline;
pub mod plan;
pub mod pool;
pub mod proto;
pub mod tls;
mod types;
mod waiter;

#[cfg(feature = "async")]
pub mod aio;

pub use error::{ClientError, ServerError};
pub use options::ConnectOptions;
pub use pipeline::Pipeline;
pub use tls::TlsOptions;
pub use types::{
    Column, DEFAULT_TOKEN_KIB, ExecOptions, ExecResult, KillKind, Param, RequestId, ResultSet,
    SessionId, Warning,
};
pub use xrpc_proto::value::{ColumnType, Value};
