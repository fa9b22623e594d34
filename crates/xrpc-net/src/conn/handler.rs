//! The interface between the framework and the protocol above it.
//!
//! The framework owns sockets, threads and scheduling; a [`Handler`] owns meaning. For each
//! connection the handler creates a state ([`Handler::on_connect`]). Every receive pass hands it the
//! complete frames just decoded ([`Handler::on_frames`]), and the handler answers which *units* —
//! logical sessions, in the server — became runnable. The framework then runs those units
//! ([`Handler::run_unit`]): the last unit of the last event of an `epoll_wait` batch inline on the
//! receiving thread, every other one as a task in the group's queue.
//!
//! # Call order for one connection
//!
//! 1. `on_connect` once, before the socket is registered.
//! 2. `on_frames` any number of times, never concurrently with itself (the receive gate admits one
//!    reader), always in stream order.
//! 3. `run_unit` for units reported by `on_frames` or by [`crate::ConnRef::schedule`], on any
//!    worker, possibly concurrently for different units *and for the same unit*: a unit that must
//!    run single-threaded protects itself (XRPC sessions use a try-lock with recheck, like the
//!    receive gate).
//! 4. `on_queue_full` instead of `run_unit` when a unit could not be queued.
//! 5. `on_frame_error` when the stream lost its framing, and `on_tls_error` when a TLS session
//!    failed, just before the connection is finished.
//! 6. `on_close` exactly once, after `fin()`, on a worker thread, never nested inside another
//!    callback of the same thread. `run_unit` calls already running may still be in progress, and
//!    queued ones still run afterwards (with [`crate::ConnRef::is_closed`] true).
//!
//! # Where this module sits
//!
//! The contract names what a handler is given: a [`ConnRef`] (defined in `conn.rs`, this
//! module's parent) and a [`RunContext`] with its [`UnitId`], which `group.rs` defines, since
//! the group runs units, and this module re-exports. The dependencies point one way: the
//! connection drives a handler and knows its group; the group knows connections only through
//! its own task traits, and the end of a worker's turn (`turn.rs`) knows neither, holding the
//! connections and outbound sockets it writes and kicks as trait objects of its own.

use xrpc_proto::{FrameConfig, FrameError, FrameHeader};

use crate::conn::ConnRef;
pub use crate::group::{RunContext, UnitId};

/// The protocol logic run by the framework.
pub trait Handler: Send + Sync + 'static {
    /// Per-connection state, owned by the framework and dropped after `on_close`, once no task
    /// refers to the connection.
    ///
    /// It must not hold a strong [`ConnRef`] to its own connection: that would keep the socket open
    /// after the connection is finished. Hold a [`crate::WeakConnRef`] instead.
    type Conn: Send + Sync + 'static;

    /// A connection was accepted. Runs on the accepting worker before any frame can arrive.
    fn on_connect(&self, conn: &ConnRef) -> Self::Conn;

    /// Complete frames arrived. Take them from `frames` (frames not taken are dropped) and push the
    /// units that became runnable into `runnable`, each once. The frames borrow the connection's
    /// receive buffer: copy what must outlive the call.
    fn on_frames(
        &self,
        conn: &ConnRef,
        state: &Self::Conn,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    );

    /// Runs a unit.
    fn run_unit(&self, conn: &ConnRef, state: &Self::Conn, unit: UnitId, cx: &RunContext<'_>);

    /// A runnable unit could not be queued because the group's task queue is full. The handler
    /// should fail the unit's pending work with a clear error rather than drop it.
    fn on_queue_full(&self, conn: &ConnRef, state: &Self::Conn, unit: UnitId) {
        let _ = (conn, state, unit);
    }

    /// Whether a unit that finds the task queue full runs at once on the worker that received it
    /// when the group runs on one CPU, instead of going to [`Handler::on_queue_full`]: there a
    /// full queue means a busy CPU, and the unit would only wait its turn elsewhere. Return false
    /// to see every unit that could not be queued (a handler that fails them, as PolarDB-X does).
    fn run_here_when_queue_full(&self, conn: &ConnRef, state: &Self::Conn) -> bool {
        let _ = (conn, state);
        true
    }

    /// The stream lost its framing (`err`); the connection is finished right after this returns.
    /// This is the place to send `err.to_wire()` on sid 0.
    fn on_frame_error(&self, conn: &ConnRef, state: &Self::Conn, err: &FrameError) {
        let _ = (conn, state, err);
    }

    /// The TLS session failed (a bad handshake, an unknown certificate authority, a corrupt
    /// record): rustls's alert has been sent and the connection is finished right after this
    /// returns. This is the place to log it.
    fn on_tls_error(&self, conn: &ConnRef, state: &Self::Conn, err: &rustls::Error) {
        let _ = (conn, state, err);
    }

    /// The connection was finished. Called once.
    fn on_close(&self, conn: &ConnRef, state: &Self::Conn) {
        let _ = (conn, state);
    }

    /// `accept` failed on a group's listener, typically because the process is out of file
    /// descriptors (`EMFILE`/`ENFILE`) or memory. The framework retries after 50 ms; this is the
    /// place to log it (rate-limited: it repeats while the shortage lasts).
    fn on_accept_error(&self, err: &std::io::Error) {
        let _ = err;
    }
}

/// One decoded frame, borrowing the receive buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRef<'a> {
    /// Session id.
    pub sid: u64,
    /// Message type id.
    pub type_id: u8,
    /// The message body, without the header.
    pub body: &'a [u8],
}

impl FrameRef<'_> {
    /// Copies the frame into an owned [`xrpc_proto::Frame`].
    pub fn to_owned_frame(&self) -> xrpc_proto::Frame {
        xrpc_proto::Frame {
            sid: self.sid,
            type_id: self.type_id,
            body: bytes::Bytes::copy_from_slice(self.body),
        }
    }
}

/// The complete frames of one receive pass, in stream order. Headers were validated when the batch
/// was cut, so iterating cannot fail. Cloning it gives an independent cursor (to peek ahead).
#[derive(Debug, Clone)]
pub struct FrameBatch<'a> {
    buf: &'a [u8],
    config: &'a FrameConfig,
    count: usize,
}

impl<'a> FrameBatch<'a> {
    /// A batch of `count` complete, validated frames laid out back to back in `buf`.
    pub(crate) fn new(buf: &'a [u8], config: &'a FrameConfig, count: usize) -> Self {
        Self { buf, config, count }
    }

    /// Frames not yet taken.
    pub fn remaining(&self) -> usize {
        self.count
    }

    /// Bytes of the frames not yet taken, headers included.
    pub fn remaining_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The raw bytes of every frame not yet taken, headers included, and marks them all taken.
    /// Useful to forward or echo frames without re-encoding them.
    pub fn take_raw(&mut self) -> &'a [u8] {
        self.count = 0;
        std::mem::take(&mut self.buf)
    }
}

impl<'a> Iterator for FrameBatch<'a> {
    type Item = FrameRef<'a>;

    fn next(&mut self) -> Option<FrameRef<'a>> {
        if self.count == 0 {
            return None;
        }
        let header = match FrameHeader::parse(self.buf, self.config) {
            Ok(Some(h)) => h,
            // The batch was validated when it was cut.
            _ => unreachable!("a validated frame batch failed to parse"),
        };
        let hl = self.config.format.header_len();
        let end = hl + header.body_len as usize;
        let body = &self.buf[hl..end];
        self.buf = &self.buf[end..];
        self.count -= 1;
        Some(FrameRef {
            sid: header.sid,
            type_id: header.type_id,
            body,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }
}

impl ExactSizeIterator for FrameBatch<'_> {}

/// The handler of a server that takes no client traffic: its groups serve only outbound
/// sockets (a backend driver's, [`crate::GroupHandle::register_outbound`]). A connection is
/// accepted and kept with no state; its frames are read and dropped, and it has no units.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoClients;

impl Handler for NoClients {
    type Conn = ();
    fn on_connect(&self, _: &ConnRef) {}
    fn on_frames(&self, _: &ConnRef, _: &(), _: &mut FrameBatch<'_>, _: &mut Vec<UnitId>) {}
    fn run_unit(&self, _: &ConnRef, _: &(), _: UnitId, _: &RunContext<'_>) {}
}
