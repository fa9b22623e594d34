//! The OS layer: the one module of this crate that makes system calls.
//!
//! Everything above this module speaks in [`OwnedFd`]s, tokens and [`Duration`]s; everything in it
//! is a thin wrapper over one or two calls of [`rustix`] (epoll, eventfd, `read`, `sendmsg`,
//! `poll`, `shutdown`) or [`socket2`] (listening sockets and socket options). The layout follows
//! mio's `src/sys` in spirit: every OS call of the crate is here, `OwnedFd` is the boundary, and
//! there is no `unsafe` at all, because both crates already expose safe interfaces for every call
//! this crate needs. (CPU affinity, `sched_{get,set}affinity` through rustix, lives with its
//! topology logic in [`crate::affinity`].)
//!
//! # What the OS layer provides
//!
//! | item | calls | guarantees |
//! |---|---|---|
//! | [`Epoll`] | `epoll_create1`, `epoll_ctl`, `epoll_wait` | close-on-exec; `EINTR` from a wait is reported as zero events |
//! | [`EventFd`] | `eventfd`, `write`, `read` | non-blocking; `notify` never blocks and never fails for lack of room (the counter saturates far above any real use) |
//! | [`listen_reuseport`] | `socket`, `setsockopt(SO_REUSEADDR, SO_REUSEPORT)`, `bind`, `listen` | non-blocking, close-on-exec listening socket; several of them may share one address |
//! | [`accept`] | `accept4` + `setsockopt` | the accepted socket is non-blocking, close-on-exec, `TCP_NODELAY`, with keepalive and buffer sizes applied |
//! | [`recv`], [`send_vectored`] | `read`, `sendmsg(MSG_NOSIGNAL)` | `EINTR` is returned to the caller; a closed peer is an `EPIPE` error, never a `SIGPIPE` |
//! | [`poll_writable`] | `poll(POLLOUT)` | waits at most the given timeout |
//! | [`SocketIo`] | `read`, `sendmsg(MSG_NOSIGNAL)` | `std::io` view of a socket for rustls; `EAGAIN` is `WouldBlock`, nothing is retried |
//! | [`shutdown`] | `shutdown(SHUT_RDWR)` | the peer sees EOF and the socket stops producing data; the fd stays open until its `OwnedFd` drops |
//! | [`connect_nonblocking`] | `socket`, `setsockopt(TCP_NODELAY)`, `connect` | a non-blocking, close-on-exec socket whose connect is under way (`EINPROGRESS` is success); the outcome shows as writability, or an error on the first read or write |
//! | [`Epoll::add_edge_read_write`] | `epoll_ctl` | edge-triggered for input, output and hang-up: an outbound socket's readiness both ways |
//!
//! # Edge-triggered semantics
//!
//! Sockets are registered with `EPOLLET`: an event is reported once per *change*, so the reader
//! must consume the socket until `read` returns fewer bytes than asked (for a stream socket this
//! means the receive queue is empty, `epoll(7)`) or `EAGAIN`. A new edge is generated for every new
//! segment that arrives afterwards. Spurious events are possible (an event can be reported for data
//! that another thread already consumed), so every consumer treats an event as a hint and tolerates
//! `EAGAIN`.
//!
//! The eventfd is registered edge-triggered too: every `write` to it generates a new edge, and
//! `epoll_wait` wakes one thread per edge. A thread that takes the eventfd event resets the counter
//! ([`EventFd::reset`]) before doing anything else, so that later pushes produce fresh edges.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, epoll};
use rustix::io::Errno;
use rustix::net::{SendAncillaryBuffer, SendFlags};
use socket2::{Domain, Protocol, SockRef, Socket, TcpKeepalive, Type};

pub(crate) use std::io::IoSlice;

/// Converts a rustix error into `std::io::Error`.
#[inline]
fn err(e: Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

/// Converts a timeout to a timespec; `None` waits forever.
fn timespec(timeout: Option<Duration>) -> Option<rustix::time::Timespec> {
    timeout.map(|d| rustix::time::Timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as i64,
        tv_nsec: i64::from(d.subsec_nanos()),
    })
}

/// Readiness reported for one registered fd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ready(u32);

impl Ready {
    /// The peer closed its half, or the socket hung up or failed.
    #[inline]
    pub(crate) fn is_closed(self) -> bool {
        self.0
            & (epoll::EventFlags::RDHUP.bits()
                | epoll::EventFlags::HUP.bits()
                | epoll::EventFlags::ERR.bits())
            != 0
    }
}

/// An epoll instance.
#[derive(Debug)]
pub(crate) struct Epoll {
    fd: OwnedFd,
}

impl Epoll {
    /// Creates a close-on-exec epoll instance.
    pub(crate) fn new() -> io::Result<Self> {
        let fd = epoll::create(epoll::CreateFlags::CLOEXEC).map_err(err)?;
        Ok(Self { fd })
    }

    /// Registers `fd` edge-triggered for input and hang-up, reporting `token`.
    pub(crate) fn add_edge_read(&self, fd: BorrowedFd<'_>, token: u64) -> io::Result<()> {
        let flags = epoll::EventFlags::IN | epoll::EventFlags::RDHUP | epoll::EventFlags::ET;
        epoll::add(&self.fd, fd, epoll::EventData::new_u64(token), flags).map_err(err)
    }

    /// Registers `fd` edge-triggered for input, output and hang-up, reporting `token`: the
    /// interest of an outbound socket, which is written from whatever thread has output for it
    /// and continued from the event loop when the socket drains its send buffer.
    pub(crate) fn add_edge_read_write(&self, fd: BorrowedFd<'_>, token: u64) -> io::Result<()> {
        let flags = epoll::EventFlags::IN
            | epoll::EventFlags::OUT
            | epoll::EventFlags::RDHUP
            | epoll::EventFlags::ET;
        epoll::add(&self.fd, fd, epoll::EventData::new_u64(token), flags).map_err(err)
    }

    /// Removes `fd` from the interest list.
    pub(crate) fn delete(&self, fd: BorrowedFd<'_>) -> io::Result<()> {
        epoll::delete(&self.fd, fd).map_err(err)
    }

    /// Waits up to `timeout` (`None`: forever) and fills `events`; returns the number filled.
    ///
    /// `EINTR` is reported as zero events, so callers simply loop.
    pub(crate) fn wait(&self, events: &mut Events, timeout: Option<Duration>) -> io::Result<usize> {
        let ts = timespec(timeout);
        match epoll::wait(&self.fd, &mut events.buf[..], ts.as_ref()) {
            Ok(n) => {
                events.len = n;
                Ok(n)
            }
            Err(Errno::INTR) => {
                events.len = 0;
                Ok(0)
            }
            Err(e) => {
                events.len = 0;
                Err(err(e))
            }
        }
    }
}

/// A reusable buffer of epoll events.
pub(crate) struct Events {
    buf: Vec<epoll::Event>,
    len: usize,
}

impl Events {
    /// Room for `capacity` events per wait (at least one).
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let empty = epoll::Event {
            flags: epoll::EventFlags::empty(),
            data: epoll::EventData::new_u64(0),
        };
        Self {
            buf: vec![empty; capacity.max(1)],
            len: 0,
        }
    }

    /// The `i`-th event of the last wait: its token and readiness.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> (u64, Ready) {
        let ev = self.buf[..self.len][i];
        let flags = ev.flags;
        let data = ev.data;
        (data.u64(), Ready(flags.bits()))
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("capacity", &self.buf.len())
            .field("len", &self.len)
            .finish()
    }
}

/// A non-blocking eventfd used to wake threads waiting in epoll.
#[derive(Debug)]
pub(crate) struct EventFd {
    fd: OwnedFd,
}

impl EventFd {
    /// Creates a non-blocking, close-on-exec eventfd with counter zero.
    pub(crate) fn new() -> io::Result<Self> {
        let flags = rustix::event::EventfdFlags::NONBLOCK | rustix::event::EventfdFlags::CLOEXEC;
        let fd = rustix::event::eventfd(0, flags).map_err(err)?;
        Ok(Self { fd })
    }

    /// Adds one to the counter, which makes the fd readable and produces a new edge.
    pub(crate) fn notify(&self) {
        loop {
            match rustix::io::write(&self.fd, &1u64.to_ne_bytes()) {
                // EAGAIN: the counter is at its maximum, so the fd is readable already.
                Ok(_) | Err(Errno::AGAIN) => return,
                Err(Errno::INTR) => continue,
                Err(_) => return,
            }
        }
    }

    /// Resets the counter to zero; returns whether it was non-zero.
    pub(crate) fn reset(&self) -> bool {
        let mut buf = [0u8; 8];
        loop {
            match rustix::io::read(&self.fd, &mut buf) {
                Ok(_) => return true,
                Err(Errno::INTR) => continue,
                Err(_) => return false,
            }
        }
    }

    /// Waits until the counter is non-zero or `timeout` passes; returns whether it is non-zero.
    pub(crate) fn wait_readable(&self, timeout: Option<Duration>) -> bool {
        let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
        let ts = timespec(timeout);
        matches!(rustix::event::poll(&mut fds, ts.as_ref()), Ok(n) if n > 0)
    }
}

impl AsFd for EventFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Options applied to every accepted socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SocketOptions {
    /// TCP keepalive idle time; `None` leaves keepalive off.
    pub(crate) keepalive: Option<Duration>,
    /// `SO_SNDBUF` in bytes; 0 keeps the system default.
    pub(crate) send_buffer: usize,
    /// `SO_RCVBUF` in bytes; 0 keeps the system default.
    pub(crate) recv_buffer: usize,
}

/// Creates a non-blocking listening socket on `addr` with `SO_REUSEADDR` and `SO_REUSEPORT`, so
/// that several listeners (one per epoll group) can share the address and the kernel spreads the
/// incoming connections over them.
pub(crate) fn listen_reuseport(addr: SocketAddr, backlog: i32) -> io::Result<OwnedFd> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_cloexec(true)?;
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(backlog)?;
    Ok(socket.into())
}

/// The local address a socket is bound to.
pub(crate) fn local_addr(fd: BorrowedFd<'_>) -> io::Result<SocketAddr> {
    SockRef::from(&fd)
        .local_addr()?
        .as_socket()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not an inet socket"))
}

/// The outcome of one `accept`.
#[derive(Debug)]
pub(crate) enum Accepted {
    /// A new connection, configured, with its peer address.
    Conn(OwnedFd, Option<SocketAddr>),
    /// The accept queue is empty.
    WouldBlock,
    /// A failure that concerns only this attempt (the peer reset before accept, fd limits): the
    /// listener is still fine, but the caller should stop draining for now. The error is kept so
    /// the handler can report running out of fds.
    Error(io::Error),
}

/// Accepts one connection from a non-blocking listener and applies `opts`, `TCP_NODELAY`,
/// non-blocking mode and close-on-exec.
pub(crate) fn accept(listener: BorrowedFd<'_>, opts: &SocketOptions) -> Accepted {
    let flags = rustix::net::SocketFlags::NONBLOCK | rustix::net::SocketFlags::CLOEXEC;
    let fd = loop {
        match rustix::net::accept_with(listener, flags) {
            Ok(fd) => break fd,
            Err(Errno::INTR) => continue,
            Err(Errno::AGAIN) => return Accepted::WouldBlock,
            // The connection died in the queue; try the next one.
            Err(Errno::CONNABORTED) => continue,
            Err(e) => return Accepted::Error(err(e)),
        }
    };
    let sock = SockRef::from(&fd);
    // Option failures are not fatal for the connection: they only tune it.
    let _ = sock.set_tcp_nodelay(true);
    if let Some(idle) = opts.keepalive {
        let ka = TcpKeepalive::new().with_time(idle).with_interval(idle);
        let _ = sock.set_tcp_keepalive(&ka);
    }
    if opts.send_buffer > 0 {
        let _ = sock.set_send_buffer_size(opts.send_buffer);
    }
    if opts.recv_buffer > 0 {
        let _ = sock.set_recv_buffer_size(opts.recv_buffer);
    }
    let peer = sock.peer_addr().ok().and_then(|a| a.as_socket());
    Accepted::Conn(fd, peer)
}

/// The outcome of one `read`.
#[derive(Debug)]
pub(crate) enum RecvResult {
    /// This many bytes were read (never zero).
    Data(usize),
    /// The peer closed its half of the connection.
    Eof,
    /// No data now.
    WouldBlock,
    /// Interrupted by a signal; the caller retries.
    Interrupted,
    /// A fatal error; the connection is finished (which error it was does not matter).
    Error,
}

/// Reads what is available into `buf`.
#[inline]
pub(crate) fn recv(fd: BorrowedFd<'_>, buf: &mut [u8]) -> RecvResult {
    match rustix::io::read(fd, buf) {
        Ok(0) => RecvResult::Eof,
        Ok(n) => RecvResult::Data(n),
        Err(Errno::AGAIN) => RecvResult::WouldBlock,
        Err(Errno::INTR) => RecvResult::Interrupted,
        Err(_) => RecvResult::Error,
    }
}

/// Writes as much of `bufs` as the socket takes now, with `MSG_NOSIGNAL`.
#[inline]
pub(crate) fn send_vectored(fd: BorrowedFd<'_>, bufs: &[IoSlice<'_>]) -> Result<usize, Errno> {
    let mut control = SendAncillaryBuffer::default();
    rustix::net::sendmsg(fd, bufs, &mut control, SendFlags::NOSIGNAL)
}

/// Waits up to `timeout` for the socket to accept more data. Returns `Ok(true)` when writable (or
/// failed, which the next send reports), `Ok(false)` on timeout.
pub(crate) fn poll_writable(fd: BorrowedFd<'_>, timeout: Duration) -> Result<bool, Errno> {
    let mut fds = [PollFd::from_borrowed_fd(
        fd,
        PollFlags::OUT | PollFlags::ERR,
    )];
    let ts = timespec(Some(timeout));
    loop {
        match rustix::event::poll(&mut fds, ts.as_ref()) {
            Ok(n) => return Ok(n > 0),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Shuts both directions of a socket down. Errors (the socket is already disconnected) are
/// ignored: the only goal is that no more data flows.
pub(crate) fn shutdown(fd: BorrowedFd<'_>) {
    let _ = rustix::net::shutdown(fd, rustix::net::Shutdown::Both);
}

/// Starts a non-blocking TCP connect to `addr` and returns the socket at once (non-blocking,
/// close-on-exec, `TCP_NODELAY`). `EINPROGRESS` is the normal outcome on loopback too: the
/// connect completes in the background and the socket becomes writable (or reports the failure,
/// such as `ECONNREFUSED`, on its first read or write).
pub(crate) fn connect_nonblocking(addr: SocketAddr) -> io::Result<OwnedFd> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_cloexec(true)?;
    socket.set_nonblocking(true)?;
    let _ = socket.set_tcp_nodelay(true);
    match socket.connect(&addr.into()) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(Errno::INPROGRESS.raw_os_error()) => {}
        Err(e) => return Err(e),
    }
    Ok(socket.into())
}

/// Reads what is available into `buf` as `std::io` reports it: `Ok(0)` at end of stream,
/// `WouldBlock` when nothing is there now; `EINTR` is retried here.
pub(crate) fn read_retrying(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match rustix::io::read(fd, &mut *buf) {
            Ok(n) => return Ok(n),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(err(e)),
        }
    }
}

/// Writes as much of `bufs` as the socket takes now (`sendmsg(MSG_NOSIGNAL)`), as `std::io`
/// reports it: `WouldBlock` when the send buffer is full; `EINTR` is retried here.
pub(crate) fn write_retrying(fd: BorrowedFd<'_>, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
    loop {
        match send_vectored(fd, bufs) {
            Ok(n) => return Ok(n),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(err(e)),
        }
    }
}

/// The pending error of a socket (`SO_ERROR`), cleared by the read: how a failed non-blocking
/// connect is reported.
pub(crate) fn take_socket_error(fd: BorrowedFd<'_>) -> io::Result<Option<io::Error>> {
    SockRef::from(&fd).take_error()
}

/// Re-exported errno type, for callers that match on send errors.
pub(crate) use rustix::io::Errno as SysErrno;

/// A connected socket as [`io::Read`] and [`io::Write`], for TLS: `read` and
/// `sendmsg(MSG_NOSIGNAL)` without retries, so `EAGAIN` comes back as
/// [`io::ErrorKind::WouldBlock`] and `EINTR` as [`io::ErrorKind::Interrupted`].
pub(crate) struct SocketIo<'a>(pub(crate) BorrowedFd<'a>);

impl io::Read for SocketIo<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        rustix::io::read(self.0, buf).map_err(io::Error::from)
    }
}

impl io::Write for SocketIo<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        send_vectored(self.0, &[IoSlice::new(buf)]).map_err(io::Error::from)
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        send_vectored(self.0, bufs).map_err(io::Error::from)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
