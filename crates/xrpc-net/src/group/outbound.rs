//! Outbound sockets: the client side of the framework.
//!
//! A node that fronts another server (a MariaDB backend) holds connections it opened itself. They
//! are driven by the same epoll groups and workers as client connections, so that no worker ever
//! sleeps in `read` waiting for the other server: the socket is registered edge-triggered for
//! input *and* output in a group's epoll set ([`GroupHandle::connect_outbound`],
//! [`GroupHandle::register_outbound`]), and its [`SocketHandler`] is called by whichever worker
//! takes an event for it, and by any thread that has new output for it ([`OutboundSocket::kick`]).
//!
//! # One caller at a time, no lost readiness
//!
//! Every call of [`SocketHandler::on_ready`] goes through the socket's drive gate, the receive
//! gate of client connections (`gate.rs`: a try-lock with a recheck flag). A thread that finds
//! the gate taken leaves a knock and returns at once; the holder calls the handler again before
//! it lets go. So the handler never runs on two threads at once for one socket, a thread never
//! waits for another's pass, and an event or a kick that lands during a pass is never lost: the
//! pass after it sees the new bytes or the new output. A kick from a thread that queued output is
//! therefore enough to get it written, by that thread if the gate is free, by the holder if not.
//!
//! # The handler's duty
//!
//! Sockets are edge-triggered, so a pass must consume what readiness it was given: read with
//! [`OutboundIo::read`] until it returns `WouldBlock` (or the end of stream), and write pending
//! output with [`OutboundIo::write`] until it is all gone or `WouldBlock` (a later output edge
//! calls the handler again when the send buffer drains). A pass must not block. Returning
//! [`Progress::Close`] closes the socket. A handler may stop reading early on purpose when the
//! thread it runs on must not take more input now (it would wait for itself: the thread that
//! kicked the socket is the one that consumes what the handler produces) by returning
//! [`Progress::Handover`]: another worker of the group calls it again at once, from the task
//! queue, since no new edge would come for input already in the socket.
//!
//! # Lifetime
//!
//! The socket's state lives in an `Arc` held by its [`OutboundSocket`] handles and by the group's
//! outbound table while it is open. [`OutboundSocket::close`] (idempotent) shuts the socket down,
//! removes it from the epoll set and from the table; a stale event that was already returned by
//! `epoll_wait` finds its token retired (as for client connections, `table.rs`) and is dropped.
//! The fd closes when the last handle drops. Tokens of outbound sockets carry a flag bit
//! (`OUTBOUND_TOKEN_FLAG`) in their low half, which no client connection's token has (their
//! indexes stay below 2^20).

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::GroupHandle;
use crate::gate::{Pass, RecvGate};
use crate::sys::{self, IoSlice};

/// Marks the epoll token of an outbound socket (bit 31 of the slot index half).
pub(crate) const OUTBOUND_TOKEN_FLAG: u64 = 1 << 31;

/// What a pass of the handler leaves behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The socket is drained for now (reads ended in `WouldBlock`, output written or blocked).
    Idle,
    /// The connection is finished: close the socket.
    Close,
    /// Input was left unread on purpose; another worker calls the handler again (module docs,
    /// "The handler's duty").
    Handover,
}

/// Drives one outbound socket; see the [module docs](self).
pub trait SocketHandler: Send + Sync + 'static {
    /// Reads and writes what the socket allows now. Called by one thread at a time: a worker
    /// of the socket's group after an event, or a thread that called [`OutboundSocket::kick`].
    fn on_ready(&self, io: &OutboundIo<'_>, group: &GroupHandle) -> Progress;
}

/// A handler shared with other owners (the driver that queues output for it) drives its socket
/// as itself.
impl<H: SocketHandler> SocketHandler for Arc<H> {
    fn on_ready(&self, io: &OutboundIo<'_>, group: &GroupHandle) -> Progress {
        (**self).on_ready(io, group)
    }
}

/// The I/O a handler's pass may do on its socket.
#[derive(Debug)]
pub struct OutboundIo<'a> {
    fd: BorrowedFd<'a>,
}

impl OutboundIo<'_> {
    /// Reads what is available: `Ok(0)` at the end of stream, `WouldBlock` when nothing is
    /// there now, the connect's failure (such as `ConnectionRefused`) on a socket that never
    /// connected.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        sys::read_retrying(self.fd, buf)
    }

    /// Writes as much of `bufs` as the socket takes now; `WouldBlock` when its send buffer is
    /// full (the handler is called again once it drains). Never raises `SIGPIPE`.
    pub fn write(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        sys::write_retrying(self.fd, bufs)
    }

    /// The socket's pending error, if any (`SO_ERROR`; read once).
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        sys::take_socket_error(self.fd)
    }
}

/// The group's view of an outbound socket, with the handler type erased: its kick
/// ([`OutboundSocket::kick`]) and identity are the turn's view of it.
pub(crate) trait OutboundTask: crate::turn::Kick {
    /// A readiness event arrived.
    fn on_event(&self, group: &GroupHandle);
    /// Closes the socket (group shutdown).
    fn close(&self);
}

struct Outbound<H> {
    fd: OwnedFd,
    token: u64,
    group: GroupHandle,
    gate: RecvGate<()>,
    closed: AtomicBool,
    handler: H,
}

/// A handle to an outbound socket driven by a group. Cheap to clone.
pub struct OutboundSocket<H>(Arc<Outbound<H>>);

impl<H> Clone for OutboundSocket<H> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<H> std::fmt::Debug for OutboundSocket<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutboundSocket")
            .field("token", &self.0.token)
            .field("group", &self.0.group.id())
            .field("closed", &self.0.closed.load(Ordering::Relaxed))
            .finish()
    }
}

impl<H: SocketHandler> OutboundSocket<H> {
    /// The handler.
    pub fn handler(&self) -> &H {
        &self.0.handler
    }

    /// The group whose workers drive the socket.
    pub fn group(&self) -> &GroupHandle {
        &self.0.group
    }

    /// Whether the socket was closed.
    pub fn is_closed(&self) -> bool {
        self.0.closed.load(Ordering::Acquire)
    }

    /// Calls the handler on this thread now, or, if another thread is inside it, makes that
    /// thread call it once more before it lets go. For a thread that queued output for the
    /// socket: the output is written without waiting for an event.
    pub fn kick(&self) {
        self.0.drive(&self.0.group);
    }

    /// [`OutboundSocket::kick`] at the end of this worker's turn (`turn.rs`), once for
    /// every kick of the turn: output queued by several callers in one turn goes out in one
    /// write, and the other server reads it in one read. On a thread that is not one of the
    /// framework's workers it kicks now.
    pub fn kick_at_turn_end(&self) {
        if crate::turn::is_active() {
            crate::turn::note_kick(Arc::clone(&self.0) as Arc<dyn crate::turn::Kick>);
        } else {
            self.kick();
        }
    }

    /// Shuts the socket down and takes it out of its group; idempotent. A handler's pass that
    /// is under way finishes; no new one starts.
    pub fn close(&self) {
        self.0.close();
    }
}

impl<H: SocketHandler> Outbound<H> {
    fn drive(&self, group: &GroupHandle) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let mut close = false;
        let mut handover = false;
        self.gate.drive(|_| {
            if self.closed.load(Ordering::Acquire) {
                return Pass::Stop;
            }
            let io = OutboundIo {
                fd: self.fd.as_fd(),
            };
            match self.handler.on_ready(&io, group) {
                Progress::Idle => Pass::Drained,
                Progress::Close => {
                    close = true;
                    Pass::Stop
                }
                Progress::Handover => {
                    // A knock meanwhile is served by the worker this hands over to.
                    handover = true;
                    Pass::Stop
                }
            }
        });
        if close {
            self.close();
        } else if handover {
            self.hand_over();
        }
    }

    /// Has another worker of the group drive the socket again ([`Progress::Handover`]): a task,
    /// with a worker woken for it even when this thread is one of the group's own (it is about
    /// to wait for what that worker reads); a timer retries while the queue is full.
    fn hand_over(&self) {
        let token = self.token | OUTBOUND_TOKEN_FLAG;
        let pushed = self
            .group
            .push_task(move |group| group.outbound_event(token))
            .is_ok();
        if pushed {
            self.group.0.wake_one();
        } else {
            self.group
                .schedule_timer(std::time::Duration::from_millis(1), None, move |group| {
                    group.outbound_event(token)
                });
        }
    }
}

impl<H> Outbound<H> {
    fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let g = &self.group.0;
        sys::shutdown(self.fd.as_fd());
        let _ = g.epoll.delete(self.fd.as_fd());
        g.outbound.remove(self.token);
    }
}

impl<H: SocketHandler> crate::turn::Kick for Outbound<H> {
    fn kick(&self) {
        self.drive(&self.group);
    }

    fn addr(&self) -> *const () {
        (self as *const Self).cast()
    }
}

impl<H: SocketHandler> OutboundTask for Outbound<H> {
    fn on_event(&self, group: &GroupHandle) {
        self.drive(group);
    }

    fn close(&self) {
        Outbound::close(self);
    }
}

impl GroupHandle {
    /// Starts a non-blocking TCP connect to `addr` and registers the socket in this group with
    /// `handler`. Returns at once; the handler is called when the socket becomes writable (the
    /// connect is done) or reports the connect's failure on its first read or write.
    pub fn connect_outbound<H: SocketHandler>(
        &self,
        addr: SocketAddr,
        handler: H,
    ) -> io::Result<OutboundSocket<H>> {
        let fd = sys::connect_nonblocking(addr)?;
        self.register_outbound(fd, handler)
    }

    /// Registers a connected (or connecting) non-blocking stream socket in this group's epoll
    /// set, edge-triggered for input, output and hang-up, driven by `handler` (module docs).
    pub fn register_outbound<H: SocketHandler>(
        &self,
        fd: OwnedFd,
        handler: H,
    ) -> io::Result<OutboundSocket<H>> {
        let g = &self.0;
        let slot = g
            .outbound
            .reserve()
            .ok_or_else(|| io::Error::other("the group's outbound table is full"))?;
        let socket = OutboundSocket(Arc::new(Outbound {
            fd,
            token: slot,
            group: self.clone(),
            gate: RecvGate::new(()),
            closed: AtomicBool::new(false),
            handler,
        }));
        g.outbound.fill(slot, socket.0.clone());
        if let Err(e) = g
            .epoll
            .add_edge_read_write(socket.0.fd.as_fd(), slot | OUTBOUND_TOKEN_FLAG)
        {
            socket.close();
            return Err(e);
        }
        Ok(socket)
    }

    /// Routes an epoll event whose token carries [`OUTBOUND_TOKEN_FLAG`].
    pub(crate) fn outbound_event(&self, token: u64) {
        if let Some(socket) = self.0.outbound.get(token & !OUTBOUND_TOKEN_FLAG) {
            socket.on_event(self);
        }
    }

    /// Closes every outbound socket of the group (its shutdown), so that none keeps the group
    /// alive through its handle.
    pub(crate) fn close_outbound(&self) {
        for socket in self.0.outbound.all() {
            socket.close();
        }
    }
}
