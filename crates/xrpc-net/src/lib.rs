//! The XRPC multi-threaded epoll event and execution framework.
//!
//! This crate is the network and scheduling layer of the data node, after the design in the XRPC
//! article (PolarDB-X proprietary protocol 2.0). It is generic over a connection [`Handler`] and
//! knows nothing about SQL.
//!
//! * **Epoll groups** ([`group`]): each has an epoll fd, an edge-triggered eventfd, a bounded
//!   lock-free task queue ([`queue`]), a min-heap of timers ([`timer`]) and its own `SO_REUSEPORT`
//!   listener. The group count follows the allowed cores and `threads_per_group`.
//! * **Workers** are equal and stateless: any of them may `epoll_wait`, run tasks and run timers.
//!   Under light load the thread woken by the socket receives, decodes and runs the request itself;
//!   under heavy load requests go through the queue.
//! * **Receive path** ([`conn`], `gate.rs`): the article's lock-free try-lock + recheck protocol,
//!   a fixed 4 KiB buffer per connection plus a dynamic buffer for large packets, all complete
//!   frames decoded in one pass.
//! * **Send path** ([`conn`], [`pages`], [`turn`]): a per-connection send lock, vectored writes of
//!   pooled pages, blocking with `poll(POLLOUT)` up to `net_write_timeout`; answers deferred to the
//!   end of a worker's turn go out together, one `sendmsg` per connection.
//! * **Dynamic pool** ([`group`]): `enter_wait` guards, stall-based growth, a watchdog against
//!   deadlocks and deep queues, shrinking after `shrink_time`.
//! * **Outbound sockets** ([`outbound`]): connections the node opens to another server, in the
//!   same epoll sets, their handler called by whichever worker wakes and by threads with output
//!   for them; never a worker asleep in `read`.
//! * **TLS** ([`tls`]): a connection may switch to rustls in-band, on the same socket; plain
//!   connections pay one `OnceLock` load per pass and per send.
//! * **Core binding** ([`affinity`]), **counters** ([`stats`]), **per-stage histograms**
//!   ([`hist`]) and their **Prometheus exposition** ([`metrics`]).
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Mutex;
//! use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, Server, UnitId};
//!
//! /// Echoes every frame back.
//! struct Echo;
//!
//! impl Handler for Echo {
//!     type Conn = Mutex<Vec<u8>>;
//!
//!     fn on_connect(&self, _conn: &ConnRef) -> Self::Conn {
//!         Mutex::new(Vec::new())
//!     }
//!
//!     fn on_frames(&self, _: &ConnRef, out: &Self::Conn, frames: &mut FrameBatch<'_>, runnable: &mut Vec<UnitId>) {
//!         out.lock().unwrap().extend_from_slice(frames.take_raw());
//!         runnable.push(UnitId(0));
//!     }
//!
//!     fn run_unit(&self, conn: &ConnRef, out: &Self::Conn, _: UnitId, _: &RunContext<'_>) {
//!         let bytes = std::mem::take(&mut *out.lock().unwrap());
//!         let _ = conn.send(&bytes);
//!     }
//! }
//!
//! let server = Server::start(NetConfig::default(), Echo)?;
//! println!("listening on {}", server.local_addr());
//! server.shutdown();
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Hot-path rules
//!
//! On the receive, dispatch and send paths: no allocation per frame (buffers are reused), no
//! global lock (the connection table lock is per slot), no clock read unless the histograms are on,
//! no logging.

pub mod affinity;
pub mod config;
pub mod conn;
mod gate;
pub mod group;
pub mod hist;
pub(crate) mod loom;
pub mod metrics;
pub mod pages;
pub mod queue;
pub mod run_gate;
pub mod server;
pub mod stats;
mod sys;
mod table;
pub mod timer;
pub mod tls;
pub mod turn;
mod wake;

pub use config::{ConfigError, NetConfig};
pub use conn::{ConnRef, SendError, WeakConnRef, handler};
pub use group::flush_deferred_sends;
pub use group::outbound::{self, OutboundIo, OutboundSocket, Progress, SocketHandler};
pub use group::{GroupHandle, QueueFull, WaitGuard};
pub use handler::{FrameBatch, FrameRef, Handler, NoClients, RunContext, UnitId};
pub use hist::{PerfHistograms, Stage};
pub use pages::{OutPages, PagePool};
pub use run_gate::RunGate;
/// The rustls this crate links, for building the [`rustls::ServerConfig`] handed to
/// [`ConnRef::start_tls`].
pub use rustls;
pub use server::Server;
pub use stats::{NetCounters, NetStats, StripedCounters};
pub use timer::TimerId;
pub use tls::StartTlsError;
pub use xrpc_proto::{FrameConfig, HeaderFormat};
