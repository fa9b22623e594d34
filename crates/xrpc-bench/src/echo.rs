//! An echo [`Handler`]: every frame goes back with the same sid, type and payload.
//!
//! It is the article's echo-server benchmark and a small model of how the server crate drives
//! sessions: frames are appended to a per-connection output buffer under a short lock, the
//! connection's single unit is reported runnable only when it was idle (the article's notify set),
//! and the unit drains the buffer in a loop until it finds it empty, so one runner at a time sends
//! and replies keep their order. Since an echoed frame is byte-for-byte the request frame, the
//! handler copies the raw frames once from the receive buffer and never re-encodes them.

use std::io;
use std::net::SocketAddr;

use parking_lot::Mutex;
use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, Server, UnitId};

/// The framework serving [`EchoHandler`].
pub type EchoServer = Server<EchoHandler>;

/// Starts an echo server with the framework's default configuration on an ephemeral loopback
/// port, its workers pinned to cores or not; [`Server::local_addr`] tells where.
pub fn start_loopback(bind_cores: bool) -> io::Result<EchoServer> {
    let cfg = NetConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        bind_cores,
        ..NetConfig::default()
    };
    Server::start(cfg, EchoHandler)
}

/// The echo handler.
#[derive(Debug, Default, Clone, Copy)]
pub struct EchoHandler;

/// Per-connection echo state.
#[derive(Debug, Default)]
pub struct EchoConn {
    out: Mutex<EchoOut>,
}

#[derive(Debug, Default)]
struct EchoOut {
    pending: Vec<u8>,
    /// Spare buffer swapped in while the runner sends, so steady state allocates nothing.
    spare: Vec<u8>,
    /// The unit is queued or running.
    scheduled: bool,
}

impl Handler for EchoHandler {
    type Conn = EchoConn;

    fn on_connect(&self, _conn: &ConnRef) -> EchoConn {
        EchoConn::default()
    }

    fn on_frames(
        &self,
        _conn: &ConnRef,
        state: &EchoConn,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        let raw = frames.take_raw();
        let mut out = state.out.lock();
        out.pending.extend_from_slice(raw);
        if !out.scheduled {
            out.scheduled = true;
            runnable.push(UnitId(0));
        }
    }

    fn run_unit(&self, conn: &ConnRef, state: &EchoConn, _unit: UnitId, _cx: &RunContext<'_>) {
        drain(conn, state);
    }

    fn on_queue_full(&self, conn: &ConnRef, state: &EchoConn, _unit: UnitId) {
        // Nobody will run the unit from the queue; echo on this thread instead of stranding the
        // replies the client is waiting for.
        drain(conn, state);
    }
}

/// Sends everything pending until the buffer is found empty; only the scheduled runner calls it.
fn drain(conn: &ConnRef, state: &EchoConn) {
    loop {
        let mut buf = {
            let mut out = state.out.lock();
            if out.pending.is_empty() {
                out.scheduled = false;
                return;
            }
            let spare = std::mem::take(&mut out.spare);
            std::mem::replace(&mut out.pending, spare)
        };
        if conn.send(&buf).is_err() {
            let mut out = state.out.lock();
            out.pending.clear();
            out.scheduled = false;
            return;
        }
        buf.clear();
        let mut out = state.out.lock();
        if out.spare.capacity() < buf.capacity() {
            out.spare = buf;
        }
    }
}
