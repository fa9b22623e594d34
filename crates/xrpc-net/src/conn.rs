//! TCP contexts: the receive path, dispatch, the send path and the connection's lifetime.
//!
//! # Receive path
//!
//! Each connection has a fixed receive buffer (`fixed_recv_buf`, 4 KiB by default) reused for the
//! whole life of the connection, behind the lock-free `RecvGate` (`gate.rs`). One *pass* reads
//! once into the free end of the buffer, cuts every complete frame (validating each header against
//! `max_allowed_packet` before anything is reserved for its body) and hands them to the handler in
//! one [`FrameBatch`], then moves the incomplete tail to the front. A frame too large for the fixed
//! buffer switches the connection to a dynamic buffer sized exactly for that frame (at most
//! `max_allowed_packet`); after the frame is delivered the connection goes back to the fixed
//! buffer, and the dynamic one is freed once it has been unused for `dynamic_buf_shrink` (10 s),
//! either by the next pass or by a timer.
//!
//! Sockets are edge-triggered (see `sys/mod.rs`). A pass that read fewer bytes than it asked for
//! has drained the socket (`epoll(7)`: for stream sockets a short read means the receive queue is
//! empty), so the reader stops without the extra `read` that would return `EAGAIN`; anything that
//! arrives later produces a new edge, whose thread knocks on the gate. When the event carries
//! `EPOLLRDHUP` the reader keeps reading until it sees the end of the stream.
//!
//! # Dispatch
//!
//! The handler reports the units that became runnable during the receive. After the gate is
//! released, the last of them runs inline on this thread if this event is the last of its
//! `epoll_wait` batch (the article's local execution: no queue, no wake-up, warm caches); every
//! other unit becomes a task. A unit that cannot be queued runs at once on this thread if the
//! group runs on one CPU and the handler allows it ([`Handler::run_here_when_queue_full`]: a
//! full queue there means a busy CPU, and the unit's request is still in this CPU's cache);
//! otherwise it is reported to [`Handler::on_queue_full`].
//!
//! # Send path
//!
//! Senders encode into their own buffers ([`crate::OutPages`]) and take the connection's send lock
//! only to write, with one `sendmsg` over all pages. The send blocks: on `EAGAIN` it polls for
//! `POLLOUT` for up to `net_write_timeout`, counting as a blocking section
//! ([`crate::GroupHandle::enter_wait`]) meanwhile; `EINTR` is retried up to ten times. A timeout or
//! any other error finishes this connection only.
//!
//! [`ConnRef::send_deferred`] appends to the bytes kept under the send lock instead of writing, and
//! the worker writes them at the end of its turn (`turn.rs`); every immediate send writes those
//! bytes first, under the same lock hold, so the socket sees the bytes in the order of the calls.
//!
//! # TLS
//!
//! A connection may switch to TLS in-band ([`ConnRef::start_tls`]); see [`crate::tls`] for how the
//! rustls session sits on these paths. The receive and send paths above are those of a plain
//! connection, which pays one `OnceLock` load per pass and per send for the possibility.
//!
//! # Lifetime
//!
//! See `table.rs` for why an `Arc` held per event, per task and per timer, plus a table slot
//! emptied by `fin()`, is the article's reference count with delayed release. `fin()` is idempotent:
//! the first call shuts the socket down, removes it from epoll and from the table, and queues the
//! handler's `on_close` for a worker; the fd itself is closed when the last [`ConnRef`] drops, so
//! its number cannot be reused while any thread might still issue a call on it.

// The handler contract and the deferred sends of a worker's turn are this module's children:
// the contract's calls take a `ConnRef`, the receive path calls the contract, and a deferred send
// is a connection's send finished later. With `group` (whose workers run units and end turns) they
// form the one import pair the framework keeps: a connection and the group that runs it.
pub mod handler;

use std::fmt;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use xrpc_proto::{FrameConfig, FrameHeader};

use crate::conn::handler::{FrameBatch, Handler, RunContext, UnitId};
use crate::gate::{Pass, RecvGate};
use crate::group::{
    ConnFactory, ConnTask, EventCx, GroupHandle, QueueFull, ShrinkOutcome, Task, run_unit_counted,
};
use crate::hist::Stage;
use crate::pages::OutPages;
use crate::stats::NetCounters;
use crate::sys::{self, IoSlice, Ready, RecvResult, SysErrno};
use crate::tls::{StartTlsError, TlsSession};

/// Most slices handed to one `sendmsg`.
const MAX_IOV: usize = 64;
/// `EINTR` retries before a send gives up (XRPC: 10).
const MAX_EINTR: u32 = 10;

/// A shared handle to a connection: send from any thread, finish it, schedule its units.
///
/// Cloning is cheap. The socket stays open until the last `ConnRef` drops, so hold a
/// [`WeakConnRef`] in long-lived structures owned by the connection itself.
#[derive(Clone)]
pub struct ConnRef(Arc<ConnShared>);

/// A weak handle to a connection; see [`ConnRef`].
#[derive(Clone)]
pub struct WeakConnRef(Weak<ConnShared>);

struct ConnShared {
    id: u64,
    fd: OwnedFd,
    peer: Option<SocketAddr>,
    token: u64,
    group: GroupHandle,
    /// The send lock. It guards the bytes deferred to the end of a worker's turn
    /// ([`ConnRef::send_deferred`], `turn.rs`), which every write under it sends first.
    send_lock: Mutex<OutPages>,
    closed: AtomicBool,
    task: OnceLock<Weak<dyn ConnTask>>,
    /// This connection's own, lower `max_allowed_packet`, or 0 for the configured one.
    max_packet: AtomicU32,
    /// Set once, by [`ConnRef::start_tls`], under the send lock.
    tls: OnceLock<TlsSession>,
}

impl crate::turn::DeferredOutput for ConnShared {
    fn write_deferred(self: Arc<Self>) {
        // A failed write has finished the connection; the turn goes on with the others.
        let _ = ConnRef(self).flush_deferred();
    }
}

/// Why a send failed. The connection has been finished, except for [`SendError::Closed`] where it
/// already was.
#[derive(Debug)]
#[non_exhaustive]
pub enum SendError {
    /// The connection was already finished.
    Closed,
    /// The socket took no data for `net_write_timeout`.
    Timeout,
    /// The send was interrupted by signals ten times in a row.
    Interrupted,
    /// Any other error from the socket.
    Io(io::Error),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Closed => f.write_str("connection is closed"),
            SendError::Timeout => f.write_str("net write timeout"),
            SendError::Interrupted => f.write_str("send interrupted 10 times in a row"),
            SendError::Io(e) => write!(f, "send failed: {e}"),
        }
    }
}

impl std::error::Error for SendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SendError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl ConnRef {
    /// A process-unique connection id.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The peer's address, if known.
    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.0.peer
    }

    /// The group serving this connection.
    pub fn group(&self) -> &GroupHandle {
        &self.0.group
    }

    /// Whether `fin()` has been called.
    pub fn is_closed(&self) -> bool {
        self.0.closed.load(Ordering::Acquire)
    }

    /// A weak handle.
    pub fn downgrade(&self) -> WeakConnRef {
        WeakConnRef(Arc::downgrade(&self.0))
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.0.fd.as_fd()
    }

    /// Finishes the connection; idempotent. Shuts the socket down, removes it from epoll and from
    /// the group, and queues [`Handler::on_close`] for a worker. The fd is closed when the last
    /// handle drops.
    pub fn fin(&self) {
        let s = &*self.0;
        if s.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let g = &s.group.0;
        NetCounters::incr(&g.counters.closing);
        if let Some(tls) = s.tls.get() {
            // A courtesy close_notify, so the peer can tell the end from a truncation; only
            // when nobody is sending (`fin` is also called from inside a failing send).
            if let Some(_send) = s.send_lock.try_lock()
                && let Some(mut session) = tls.session.try_lock()
            {
                session.send_close_notify();
                let _ = session.write_tls(&mut sys::SocketIo(s.fd.as_fd()));
            }
        }
        sys::shutdown(s.fd.as_fd());
        let _ = g.epoll.delete(s.fd.as_fd());
        if let Some(task) = g.table.remove(s.token) {
            s.group.defer_close(task);
        }
    }

    /// Lowers `max_allowed_packet` for this connection alone, or with `None` restores the configured
    /// one. A server uses it to refuse large frames before a client authenticates. It applies from
    /// the next header the receive path reads; a header over it is a framing error
    /// ([`Handler::on_frame_error`]), found before any memory is reserved for the body. A limit at
    /// or above the configured one changes nothing.
    pub fn limit_max_packet(&self, limit: Option<u32>) {
        self.0
            .max_packet
            .store(limit.unwrap_or(0), Ordering::Release);
    }

    /// The frame configuration in force for this connection.
    fn frame_config(&self) -> FrameConfig {
        let mut config = self.0.group.0.cfg.frame;
        let limit = self.0.max_packet.load(Ordering::Acquire);
        if limit != 0 && limit < config.max_packet {
            config.max_packet = limit;
        }
        config
    }

    /// Whether the connection runs over TLS ([`ConnRef::start_tls`] succeeded).
    pub fn is_tls(&self) -> bool {
        self.0.tls.get().is_some()
    }

    /// Sends `reply` in the clear, then continues the connection over TLS with `config`: every
    /// later byte in either direction goes through a rustls server session, starting with the
    /// client's handshake.
    ///
    /// Call it only from [`Handler::on_frames`], for the last frame of the batch: the receive path
    /// then knows that no byte after the switching frame was read in the clear. Bytes that arrived
    /// in the same read as that frame (a client that did not wait for `reply`) finish the
    /// connection. A send failure finishes it too.
    pub fn start_tls(
        &self,
        config: Arc<rustls::ServerConfig>,
        reply: &[u8],
    ) -> Result<(), StartTlsError> {
        if self.is_tls() {
            return Err(StartTlsError::AlreadyTls);
        }
        let session = TlsSession::new(config)?;
        let mut deferred = self.0.send_lock.lock();
        if self.is_closed() {
            return Err(SendError::Closed.into());
        }
        self.write_deferred(&mut deferred)?;
        self.write_all_plain(&[IoSlice::new(reply)])?;
        // Under the send lock: every send that takes the lock after this one encrypts.
        let _ = self.0.tls.set(session);
        Ok(())
    }

    /// Queues `unit` of this connection to run on a worker.
    pub fn schedule(&self, unit: UnitId) -> Result<(), QueueFull> {
        if self.0.group.is_queue_full() {
            // As the push would: without taking and dropping a reference to the connection.
            NetCounters::incr(&self.0.group.0.counters.queue_full_total);
            return Err(QueueFull);
        }
        let conn = self.0.task.get().and_then(Weak::upgrade).ok_or(QueueFull)?;
        let since = self.0.group.perf().start();
        self.0
            .group
            .push(Task::Unit { conn, unit, since })
            .map_err(|_| QueueFull)
    }

    /// Sends `data` whole, blocking as described in the [module docs](self).
    pub fn send(&self, data: &[u8]) -> Result<(), SendError> {
        self.send_vectored(&[IoSlice::new(data)])
    }

    /// Sends every slice whole, in order, under the send lock (after any bytes deferred before).
    pub fn send_vectored(&self, bufs: &[IoSlice<'_>]) -> Result<(), SendError> {
        if self.is_closed() {
            return Err(SendError::Closed);
        }
        let mut deferred = self.0.send_lock.lock();
        if self.is_closed() {
            return Err(SendError::Closed);
        }
        self.write_deferred(&mut deferred)?;
        self.write_all(bufs)
    }

    /// Sends `data` by the end of this worker's turn, together with the other answers deferred
    /// on this connection meanwhile, in one vectored write (see `turn.rs` for when the turn ends
    /// and why order is kept). On a thread that is not one of the framework's workers it sends
    /// at once. An error of the later write finishes the connection; this call reports only a
    /// connection already finished.
    pub fn send_deferred(&self, data: &[u8]) -> Result<(), SendError> {
        self.defer(data, true)
    }

    /// [`ConnRef::send_deferred`] that never writes in the call, even when the deferred output
    /// passes [`crate::turn::DEFER_MAX_BYTES`]: for a caller that must not wait for this
    /// connection's client (a completion that runs on the worker reading another socket, whose
    /// handler is held until it returns). The bytes wait for the end of the turn.
    pub fn send_at_turn_end(&self, data: &[u8]) -> Result<(), SendError> {
        self.defer(data, false)
    }

    fn defer(&self, data: &[u8], write_when_full: bool) -> Result<(), SendError> {
        if !crate::turn::is_active() {
            return self.send(data);
        }
        if self.is_closed() {
            return Err(SendError::Closed);
        }
        if data.is_empty() {
            return Ok(());
        }
        {
            let mut deferred = self.0.send_lock.lock();
            if self.is_closed() {
                return Err(SendError::Closed);
            }
            if deferred.is_empty() {
                self.0.group.0.deferred.fetch_add(1, Ordering::AcqRel);
            }
            deferred.extend(self.0.group.pages(), data);
            NetCounters::incr(&self.0.group.0.counters.sends_deferred);
            if write_when_full && deferred.len() >= crate::turn::DEFER_MAX_BYTES {
                return self.write_deferred(&mut deferred);
            }
        }
        crate::turn::note(&self.0, write_when_full);
        Ok(())
    }

    /// Writes the bytes deferred on this connection, if any (see [`ConnRef::send_deferred`]).
    pub(crate) fn flush_deferred(&self) -> Result<(), SendError> {
        let mut deferred = self.0.send_lock.lock();
        self.write_deferred(&mut deferred)
    }

    /// Writes `deferred` (the send lock's contents, so the lock is held) and empties it. On a
    /// finished connection the bytes are dropped.
    fn write_deferred(&self, deferred: &mut OutPages) -> Result<(), SendError> {
        if deferred.is_empty() {
            return Ok(());
        }
        let result = if self.is_closed() {
            Err(SendError::Closed)
        } else {
            NetCounters::incr(&self.0.group.0.counters.deferred_writes);
            self.write_pages(deferred.pages())
        };
        deferred.recycle(self.0.group.pages());
        self.0.group.0.deferred.fetch_sub(1, Ordering::AcqRel);
        result
    }

    /// Writes whole pages, `MAX_IOV` per `sendmsg`; the send lock is held by the caller.
    fn write_pages(&self, pages: &[Vec<u8>]) -> Result<(), SendError> {
        let mut slices = [IoSlice::new(&[]); MAX_IOV];
        for chunk in pages.chunks(MAX_IOV) {
            for (slot, page) in slices.iter_mut().zip(chunk) {
                *slot = IoSlice::new(page);
            }
            self.write_all(&slices[..chunk.len()])?;
        }
        Ok(())
    }

    /// Sends every page of `pages` with vectored writes, then returns the pages to the group's
    /// pool (whether or not the send succeeded).
    pub fn send_pages(&self, pages: &mut OutPages) -> Result<(), SendError> {
        pages.commit();
        let result = if pages.is_empty() {
            Ok(())
        } else if self.is_closed() {
            Err(SendError::Closed)
        } else {
            let mut deferred = self.0.send_lock.lock();
            self.write_deferred(&mut deferred)
                .and_then(|()| self.write_pages(pages.pages()))
        };
        pages.recycle(self.0.group.pages());
        result
    }

    /// Writes everything, through TLS if the connection switched; the send lock is held by the
    /// caller.
    fn write_all(&self, bufs: &[IoSlice<'_>]) -> Result<(), SendError> {
        match self.0.tls.get() {
            None => self.write_all_plain(bufs),
            Some(tls) => self.write_all_tls(tls, bufs),
        }
    }

    /// Encrypts and writes everything; the send lock is held by the caller.
    fn write_all_tls(&self, tls: &TlsSession, bufs: &[IoSlice<'_>]) -> Result<(), SendError> {
        for chunk in bufs.chunks(MAX_IOV) {
            let mut arr = [IoSlice::new(&[]); MAX_IOV];
            arr[..chunk.len()].copy_from_slice(chunk);
            let mut slices: &mut [IoSlice<'_>] = &mut arr[..chunk.len()];
            IoSlice::advance_slices(&mut slices, 0);
            while !slices.is_empty() {
                let mut session = tls.session.lock();
                // rustls takes what fits under its buffer limit; writing to its buffer cannot fail.
                let n = session.writer().write_vectored(slices).unwrap_or(0);
                let stuck = n == 0 && !session.wants_write();
                drop(session);
                if stuck {
                    // Only before the handshake finished: rustls holds the plaintext until then,
                    // and the server sends nothing large before a client has authenticated.
                    self.fin();
                    return Err(SendError::Io(io::Error::other(
                        "TLS send buffer full before the handshake finished",
                    )));
                }
                IoSlice::advance_slices(&mut slices, n);
                self.flush_tls(tls)?;
            }
        }
        Ok(())
    }

    /// Writes every record rustls has queued, blocking like [`ConnRef::send`]; the send lock is
    /// held by the caller. The session lock is released while waiting for the socket.
    fn flush_tls(&self, tls: &TlsSession) -> Result<(), SendError> {
        let g = &self.0.group.0;
        let mut eintr = 0;
        loop {
            let mut session = tls.session.lock();
            if !session.wants_write() {
                return Ok(());
            }
            let written = session.write_tls(&mut sys::SocketIo(self.fd()));
            drop(session);
            match written {
                Ok(n) => {
                    eintr = 0;
                    NetCounters::add(&g.counters.bytes_sent, n as u64);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.wait_writable()?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    eintr += 1;
                    if eintr >= MAX_EINTR {
                        self.fin();
                        return Err(SendError::Interrupted);
                    }
                }
                Err(e) => {
                    self.fin();
                    return Err(SendError::Io(e));
                }
            }
        }
    }

    /// Waits up to `net_write_timeout` for room in the socket's send buffer, as a blocking section;
    /// finishes the connection on a timeout or an error.
    fn wait_writable(&self) -> Result<(), SendError> {
        let g = &self.0.group.0;
        // Not `enter_wait`: that writes this thread's deferred sends, and this thread holds a
        // send lock now.
        let _stall = self.0.group.enter_wait_holding_send_lock();
        match sys::poll_writable(self.fd(), g.cfg.net_write_timeout) {
            Ok(true) => Ok(()),
            Ok(false) => {
                NetCounters::incr(&g.counters.write_timeouts);
                self.fin();
                Err(SendError::Timeout)
            }
            Err(e) => {
                self.fin();
                Err(SendError::Io(io::Error::from_raw_os_error(
                    e.raw_os_error(),
                )))
            }
        }
    }

    /// Writes everything in the clear; the send lock is held by the caller.
    fn write_all_plain(&self, bufs: &[IoSlice<'_>]) -> Result<(), SendError> {
        let s = &*self.0;
        let g = &s.group.0;
        let fd = s.fd.as_fd();
        for chunk in bufs.chunks(MAX_IOV) {
            let mut arr = [IoSlice::new(&[]); MAX_IOV];
            arr[..chunk.len()].copy_from_slice(chunk);
            let mut slices: &mut [IoSlice<'_>] = &mut arr[..chunk.len()];
            IoSlice::advance_slices(&mut slices, 0);
            let mut eintr = 0;
            while !slices.is_empty() {
                match sys::send_vectored(fd, slices) {
                    Ok(n) => {
                        eintr = 0;
                        NetCounters::add(&g.counters.bytes_sent, n as u64);
                        IoSlice::advance_slices(&mut slices, n);
                    }
                    Err(SysErrno::AGAIN) => self.wait_writable()?,
                    Err(SysErrno::INTR) => {
                        eintr += 1;
                        if eintr >= MAX_EINTR {
                            self.fin();
                            return Err(SendError::Interrupted);
                        }
                    }
                    Err(e) => {
                        self.fin();
                        return Err(SendError::Io(io::Error::from_raw_os_error(
                            e.raw_os_error(),
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Bytes held by the connection's dynamic receive buffer, or `None` if a reader holds the
    /// receive gate right now. A diagnostic (and a test hook for the 10-second shrink).
    pub fn recv_dynamic_capacity(&self) -> Option<usize> {
        self.0
            .task
            .get()
            .and_then(Weak::upgrade)
            .and_then(|t| t.dynamic_capacity())
    }
}

impl fmt::Debug for ConnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnRef")
            .field("id", &self.0.id)
            .field("peer", &self.0.peer)
            .field("group", &self.0.group.id())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl WeakConnRef {
    /// The connection, if any handle to it is still alive.
    pub fn upgrade(&self) -> Option<ConnRef> {
        self.0.upgrade().map(ConnRef)
    }
}

impl fmt::Debug for WeakConnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WeakConnRef(..)")
    }
}

impl Drop for ConnShared {
    fn drop(&mut self) {
        // The fd closes right after this, when `self.fd` drops.
        if self.closed.load(Ordering::Acquire) {
            NetCounters::decr(&self.group.0.counters.closing);
        }
    }
}

/// Receive state, owned by whichever thread holds the gate.
struct RecvState {
    fixed: Box<[u8]>,
    /// Bytes of `fixed` holding data; complete frames are cut from the front.
    filled: usize,
    /// Backing store for one frame larger than `fixed`; `dynamic.len()` is its allocated size.
    dynamic: Vec<u8>,
    /// Wire size of the large frame being received into `dynamic`; 0 in fixed mode.
    dyn_need: usize,
    dyn_filled: usize,
    last_large: Option<Instant>,
    shrink_armed: bool,
}

impl RecvState {
    fn new(fixed: usize) -> Self {
        Self {
            fixed: vec![0; fixed].into_boxed_slice(),
            filled: 0,
            dynamic: Vec::new(),
            dyn_need: 0,
            dyn_filled: 0,
            last_large: None,
            shrink_armed: false,
        }
    }
}

/// A connection with its handler state.
pub(crate) struct Conn<H: Handler> {
    conn: ConnRef,
    handler: Arc<H>,
    state: H::Conn,
    gate: RecvGate<RecvState>,
    /// Set by any event that carried `EPOLLRDHUP`, before it knocks on the gate. The thread that
    /// drives the gate reads it instead of only its own event's flags: a short read returns the
    /// bytes before the peer's FIN, not the FIN, so a driver whose own event predates the FIN
    /// would take that read as "drained" and absorb the knock of the event that reported it,
    /// leaving the end of the stream unread and the connection open for good (found by the
    /// `server_session` fuzz target: a partial frame, then FIN).
    peer_closed: AtomicBool,
}

impl<H: Handler> Conn<H> {
    fn weak_task(&self) -> Option<Weak<dyn ConnTask>> {
        self.conn.0.task.get().cloned()
    }

    /// One read of the stream's bytes into `buf`: from the socket, or the plaintext of TLS. The
    /// flag says whether a read shorter than `buf` means the socket is drained, which is true of
    /// the socket only: TLS hands plaintext out a record at a time.
    fn read_some(&self, buf: &mut [u8]) -> (RecvResult, bool) {
        match self.conn.0.tls.get() {
            None => {
                let result = sys::recv(self.conn.fd(), buf);
                if let RecvResult::Data(n) = result {
                    NetCounters::add(&self.conn.0.group.0.counters.bytes_received, n as u64);
                }
                (result, true)
            }
            Some(tls) => (self.tls_recv(tls, buf), false),
        }
    }

    /// Plaintext from the TLS session, reading and processing records from the socket until there
    /// is some, the socket has nothing more (`WouldBlock`) or the stream ends.
    fn tls_recv(&self, tls: &TlsSession, buf: &mut [u8]) -> RecvResult {
        let g = &self.conn.0.group.0;
        loop {
            let mut session = tls.session.lock();
            match session.reader().read(buf) {
                // The peer's close_notify.
                Ok(0) => return RecvResult::Eof,
                Ok(n) => return RecvResult::Data(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // The socket ended without a close_notify.
                Err(_) => return RecvResult::Error,
            }
            let read = match session.read_tls(&mut sys::SocketIo(self.conn.fd())) {
                Ok(0) => return RecvResult::Eof,
                Ok(n) => n,
                Err(e) => {
                    return match e.kind() {
                        io::ErrorKind::WouldBlock => RecvResult::WouldBlock,
                        io::ErrorKind::Interrupted => RecvResult::Interrupted,
                        _ => RecvResult::Error,
                    };
                }
            };
            NetCounters::add(&g.counters.bytes_received, read as u64);
            let processed = session.process_new_packets();
            let wants_write = session.wants_write();
            drop(session);
            if wants_write {
                // Handshake flights and alerts; the lock order is send lock, then session.
                let _send = self.conn.0.send_lock.lock();
                if self.conn.flush_tls(tls).is_err() {
                    return RecvResult::Error;
                }
            }
            if let Err(err) = processed {
                self.handler.on_tls_error(&self.conn, &self.state, &err);
                return RecvResult::Error;
            }
        }
    }

    /// One read and the decoding of everything it completed.
    fn recv_pass(
        &self,
        st: &mut RecvState,
        group: &GroupHandle,
        ready: Ready,
        runnable: &mut Vec<UnitId>,
    ) -> Pass {
        let g = &group.0;
        let frame_cfg = &g.cfg.frame;
        if st.dyn_need > 0 {
            let want = st.dyn_need - st.dyn_filled;
            let (result, short_is_drained) =
                self.read_some(&mut st.dynamic[st.dyn_filled..st.dyn_need]);
            let n = match result {
                RecvResult::Data(n) => n,
                RecvResult::WouldBlock => return Pass::Drained,
                RecvResult::Interrupted => return Pass::More,
                RecvResult::Eof | RecvResult::Error => {
                    self.conn.fin();
                    return Pass::Stop;
                }
            };
            st.dyn_filled += n;
            if st.dyn_filled < st.dyn_need {
                return if n == want || !short_is_drained || self.peer_may_have_closed(ready) {
                    Pass::More
                } else {
                    Pass::Drained
                };
            }
            let t = g.perf.start();
            let need = st.dyn_need;
            st.dyn_need = 0;
            st.dyn_filled = 0;
            let mut batch = FrameBatch::new(&st.dynamic[..need], frame_cfg, 1);
            self.handler
                .on_frames(&self.conn, &self.state, &mut batch, runnable);
            NetCounters::incr(&g.counters.frames_received);
            g.perf.record_since(Stage::Decode, t);
            let now = Instant::now();
            st.last_large = Some(now);
            if !st.shrink_armed
                && let Some(weak) = self.weak_task()
            {
                st.shrink_armed = true;
                arm_shrink_timer(group, weak, now + g.cfg.dynamic_buf_shrink);
            }
            return Pass::More;
        }

        if !st.dynamic.is_empty()
            && let Some(last) = st.last_large
            && last.elapsed() >= g.cfg.dynamic_buf_shrink
        {
            st.dynamic = Vec::new();
        }
        let want = st.fixed.len() - st.filled;
        let was_tls = self.conn.is_tls();
        let (result, short_is_drained) = self.read_some(&mut st.fixed[st.filled..]);
        let n = match result {
            RecvResult::Data(n) => n,
            RecvResult::WouldBlock => return Pass::Drained,
            RecvResult::Interrupted => return Pass::More,
            RecvResult::Eof | RecvResult::Error => {
                self.conn.fin();
                return Pass::Stop;
            }
        };
        st.filled += n;
        let t = g.perf.start();
        let header_len = frame_cfg.format.header_len();
        let buf = &st.fixed[..st.filled];
        let mut pos = 0;
        let mut large = 0usize;
        // Usually one round. The frames a round delivers may raise this connection's own packet
        // limit (authentication does); a frame that failed the old limit is then cut again under
        // the new one instead of failing the connection.
        loop {
            let limits = self.conn.frame_config();
            let start = pos;
            let mut count = 0usize;
            let mut error = None;
            loop {
                match FrameHeader::parse(&buf[pos..], &limits) {
                    Ok(Some(h)) => {
                        let wire = header_len + h.body_len as usize;
                        if buf.len() - pos >= wire {
                            pos += wire;
                            count += 1;
                        } else {
                            if wire > st.fixed.len() {
                                large = wire;
                            }
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            if count > 0 {
                let mut batch = FrameBatch::new(&buf[start..pos], frame_cfg, count);
                self.handler
                    .on_frames(&self.conn, &self.state, &mut batch, runnable);
                NetCounters::add(&g.counters.frames_received, count as u64);
            }
            if let Some(e) = error {
                if count > 0
                    && !self.conn.is_closed()
                    && self.conn.frame_config().max_packet > limits.max_packet
                {
                    continue;
                }
                self.handler.on_frame_error(&self.conn, &self.state, &e);
                self.conn.fin();
                return Pass::Stop;
            }
            break;
        }
        if !was_tls && pos < st.filled && self.conn.is_tls() {
            // Bytes after the frame that switched to TLS were read in the clear: the client did
            // not wait for the switch's reply (crate::tls).
            self.conn.fin();
            return Pass::Stop;
        }
        if pos > 0 {
            st.fixed.copy_within(pos..st.filled, 0);
            st.filled -= pos;
        }
        g.perf.record_since(Stage::Decode, t);
        if large > 0 {
            if st.dynamic.len() < large {
                st.dynamic.resize(large, 0);
            }
            st.dynamic[..st.filled].copy_from_slice(&st.fixed[..st.filled]);
            st.dyn_filled = st.filled;
            st.dyn_need = large;
            st.filled = 0;
            return Pass::More;
        }
        if n == want || !short_is_drained || self.peer_may_have_closed(ready) {
            Pass::More
        } else {
            Pass::Drained
        }
    }

    /// Whether the peer's FIN may be waiting behind the bytes just read: this event or another
    /// one (whose knock this driver absorbed) reported `EPOLLRDHUP`. Then the reader reads on
    /// until it sees the end of the stream.
    fn peer_may_have_closed(&self, ready: Ready) -> bool {
        ready.is_closed() || self.peer_closed.load(Ordering::Acquire)
    }
}

/// Frees a connection's idle dynamic receive buffer at `at`, retrying while it is in use.
fn arm_shrink_timer(group: &GroupHandle, weak: Weak<dyn ConnTask>, at: Instant) {
    let cb = move |g: &GroupHandle| {
        let Some(conn) = weak.upgrade() else { return };
        if conn.conn_ref().is_closed() {
            return;
        }
        if let ShrinkOutcome::RetryAt(t) = conn.shrink_recv(Instant::now()) {
            arm_shrink_timer(g, weak.clone(), t);
        }
    };
    group.schedule_timer_at(at, None, Arc::new(cb));
}

impl<H: Handler> ConnTask for Conn<H> {
    fn conn_ref(&self) -> &ConnRef {
        &self.conn
    }

    fn on_event(&self, me: &Arc<dyn ConnTask>, ready: Ready, cx: &mut EventCx<'_>) {
        if self.conn.is_closed() {
            return;
        }
        let group = cx.group;
        let g = &group.0;
        let t0 = g.perf.start();
        let mut first = true;
        let runnable = &mut *cx.runnable;
        runnable.clear();
        if ready.is_closed() {
            // Before the knock that `drive` may make: the knock's release publishes it.
            self.peer_closed.store(true, Ordering::Release);
        }
        self.gate.drive(|st| {
            let pass = self.recv_pass(st, group, ready, runnable);
            if first {
                first = false;
                g.perf.record_since(Stage::RecvFirst, t0);
            }
            pass
        });
        g.perf.record_since(Stage::RecvAll, t0);
        if runnable.is_empty() {
            return;
        }
        let t_ready = g.perf.start();
        let n = runnable.len();
        let run_here = |unit: UnitId| {
            NetCounters::incr(&g.counters.run_inline);
            let rcx = RunContext {
                group,
                inline: true,
                runnable_since: t_ready,
            };
            run_unit_counted(group, self, unit, &rcx);
        };
        let mut inline = None;
        for (i, unit) in runnable.drain(..).enumerate() {
            if cx.last_event && i + 1 == n {
                inline = Some(unit);
                break;
            }
            let task = Task::Unit {
                conn: me.clone(),
                unit,
                since: t_ready,
            };
            if group.push(task).is_err() {
                if group.single_cpu()
                    && self
                        .handler
                        .run_here_when_queue_full(&self.conn, &self.state)
                {
                    // On one CPU a full queue means the CPU is busy, and the unit would only
                    // wait its turn elsewhere: it runs here, while its request is still in
                    // this CPU's cache.
                    run_here(unit);
                    continue;
                }
                self.handler.on_queue_full(&self.conn, &self.state, unit);
            }
        }
        if let Some(unit) = inline {
            g.perf.record_since(Stage::Schedule, t_ready);
            run_here(unit);
        }
    }

    fn run_unit(&self, unit: UnitId, cx: &RunContext<'_>) {
        self.handler.run_unit(&self.conn, &self.state, unit, cx);
    }

    fn closed(&self) {
        self.handler.on_close(&self.conn, &self.state);
    }

    fn shrink_recv(&self, now: Instant) -> ShrinkOutcome {
        let shrink = self.conn.group().config().dynamic_buf_shrink;
        self.gate
            .try_with(|st| {
                if st.dyn_need > 0 {
                    return ShrinkOutcome::RetryAt(now + shrink);
                }
                match st.last_large {
                    Some(last) if now < last + shrink => ShrinkOutcome::RetryAt(last + shrink),
                    _ => {
                        st.dynamic = Vec::new();
                        st.shrink_armed = false;
                        ShrinkOutcome::Done
                    }
                }
            })
            .unwrap_or(ShrinkOutcome::RetryAt(now + Duration::from_millis(100)))
    }

    fn dynamic_capacity(&self) -> Option<usize> {
        self.gate.try_with(|st| st.dynamic.capacity())
    }
}

/// Builds [`Conn`]s for one handler type.
pub(crate) struct Factory<H: Handler> {
    pub(crate) handler: Arc<H>,
    pub(crate) next_id: Arc<AtomicU64>,
}

impl<H: Handler> ConnFactory for Factory<H> {
    fn accept_failed(&self, err: &io::Error) {
        self.handler.on_accept_error(err);
    }

    fn create(
        &self,
        group: &GroupHandle,
        fd: OwnedFd,
        peer: Option<SocketAddr>,
        token: u64,
    ) -> Arc<dyn ConnTask> {
        let shared = ConnRef(Arc::new(ConnShared {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            fd,
            peer,
            token,
            group: group.clone(),
            send_lock: Mutex::new(OutPages::new()),
            closed: AtomicBool::new(false),
            task: OnceLock::new(),
            max_packet: AtomicU32::new(0),
            tls: OnceLock::new(),
        }));
        let state = self.handler.on_connect(&shared);
        let conn: Arc<dyn ConnTask> = Arc::new(Conn {
            conn: shared.clone(),
            handler: self.handler.clone(),
            state,
            gate: RecvGate::new(RecvState::new(group.config().fixed_recv_buf)),
            peer_closed: AtomicBool::new(false),
        });
        let _ = shared.0.task.set(Arc::downgrade(&conn));
        conn
    }
}
