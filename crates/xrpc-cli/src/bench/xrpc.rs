//! The xrpc target's load driver: a few threads, each multiplexing many sessions over its own
//! connections through the sans-IO [`ClientConnection`].
//!
//! # Why not the blocking pool
//!
//! The blocking transport parks one caller thread per outstanding request, so thousands of
//! concurrent clients would need thousands of threads, and every completion would be a futex wake
//! and a context switch on the load generator's side. On a machine whose cores the server shares,
//! that cost lands in the measurement. Here a client is a small struct, not a thread: one driver
//! thread owns a set of connections and all their sessions, and per turn of its loop it reads
//! every ready socket, feeds the bytes to the core, answers each completion by issuing that
//! client's next statement, and writes that connection's new requests in one `send` before it
//! reads the next ready socket.
//! The CPU the driver threads use is measured and reported (see [`super::stats`]).
//!
//! # Layout
//!
//! With `T` threads and `N` connections, connection `i` belongs to thread `i mod T`, and client
//! `c` (one session each) to connection `c mod N`. Each client keeps up to `pipeline_depth`
//! statements in flight on its session (the server runs a session's statements in order; a depth
//! above the node's `xrpc_max_queued_messages`, 128 by default, gets the session ended with a
//! FATAL error, which the run reports). A failure aborts the transaction in progress when it is
//! seen, so with pipelining a `read-write` client may already have sent statements past the one
//! that failed.
//!
//! A node answers all the sessions of a connection that were ready in one write (at 1024 clients
//! over 4 connections, one `recv` brings the 256 replies of a connection), so a turn typically
//! finds whole connections answered. Their new requests are written connection by connection as
//! each is handled, not after the whole turn: writing them all at the end kept the node idle while
//! the driver handled every connection, then the driver idle while the node answered them all, so
//! node and generator CPU per request added up instead of overlapping (at 1024 clients the QPS
//! was then close to `1 / (server µs + client µs)` per request; docs/BENCHMARKS.md, "The load
//! generator against a leaner one").
//!
//! # TLS
//!
//! With `--tls` each connection switches to TLS (`xrpc_client::tls::negotiate`) while its socket
//! is still blocking, before the core sends anything. Afterwards bytes read go socket → rustls →
//! core, and the core's output goes core → rustls → socket; records the socket does not take stay
//! queued in rustls (which then takes no more plaintext) and are written on the next turn.
//!
//! # Invariants
//!
//! - A client's in-flight queue mirrors its session's requests in order: every
//!   [`Event::Completed`] for a sid pops the head of that client's queue, and its id matches.
//! - After the measured window ends a client issues nothing that starts a new event, and the
//!   thread stops once every in-flight request has completed (or after [`DRAIN_TIMEOUT`]), so no
//!   transaction is left open on the server.
//! - Edge-triggered reads drain each socket until it would block ([`xrpc_bench::poll`] docs); writes
//!   that would block keep their remainder and are retried on the next turn, which then waits at
//!   most 1 ms.
//! - A thread that owns a single plain (not TLS) connection has no epoll: its socket stays
//!   blocking, each turn blocks in one `recvfrom` and drains the rest without waiting, and writes
//!   never block (`MSG_DONTWAIT`). A one-client ping-pong then costs two system calls per request
//!   (`sendto`, `recvfrom`) instead of three, as the MySQL driver's blocking write and read do.
//!   While a request is in flight (and nothing is left to write, and the window is open) the read
//!   waits without a receive timeout, like the MySQL driver's: a reply is coming, and a timed
//!   wait arms a kernel timer on every read. Otherwise the socket has a 5 ms receive timeout, so
//!   the core's timers and the window's end are checked at least that often. (The bench sets no
//!   request timeouts, and the core's heartbeat is due only after 10 s without a frame, which a
//!   reply in flight would end; so waiting for the reply delays no timer that matters.) A node that stops
//!   answering in the middle of the window is not waited for forever: the step's main thread
//!   shuts the socket down once the drain's time is up ([`super::Gate::watch`]), which ends the
//!   read.
//! - One clock reading per turn of a blocking thread: the time its read returned, which stamps
//!   the completions it read and the requests issued in answer to them.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use bytes::Bytes;
use xrpc_bench::poll::{self, Epoll, Errno, Events, RecvResult};
use xrpc_client::proto::{ClientConfig, ClientConnection, Event};
use xrpc_client::{ConnectOptions, ExecOptions, Param, RequestId, SessionId, TlsOptions};

use super::stats::{Recorder, StepClock};
use super::workload::{Arg, Script};
use super::{Started, StepSpec, spawn_load};

/// How long a stopping thread waits for its in-flight requests.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a thread that owns one connection blocks in a read before looking at its clock, when
/// it has no request in flight (with one in flight it waits without a timer).
const BLOCKING_READ_TIMEOUT: Duration = Duration::from_millis(5);
/// How long the switch to TLS may take, for each read and write of it.
const TLS_NEGOTIATION_TIMEOUT: Duration = Duration::from_secs(10);

/// Where an xrpc node is and how to log in.
#[derive(Debug, Clone)]
pub struct XrpcAddr {
    /// `host:port`.
    pub addr: String,
    /// The host alone: the name a TLS certificate is checked against by default.
    pub host: String,
    /// Account.
    pub user: String,
    /// Password.
    pub password: String,
    /// Default schema.
    pub schema: Option<String>,
    /// Switch every connection to TLS before authenticating.
    pub tls: Option<TlsOptions>,
}

impl XrpcAddr {
    /// Options for the blocking client (the probe and `prepare`).
    pub fn connect_options(&self) -> ConnectOptions {
        let mut options = ConnectOptions::new(self.user.clone(), self.password.clone());
        if let Some(s) = &self.schema {
            options = options.schema(s.clone());
        }
        if let Some(tls) = &self.tls {
            options = options.tls(tls.clone());
        }
        options
    }

    fn config(&self) -> ClientConfig {
        let mut config = ClientConfig::new(self.user.clone(), self.password.clone());
        if let Some(s) = &self.schema {
            config = config.schema(s.clone());
        }
        config
    }
}

/// Starts the driver threads of one step; they connect, then wait at the gate.
pub fn start(target: &XrpcAddr, spec: &StepSpec) -> Started {
    let connections = spec.connections.clamp(1, spec.concurrency.max(1));
    let threads = spec.threads.clamp(1, connections);
    let (target, spec) = (target.clone(), spec.clone());
    spawn_load(threads, "bench-xrpc", None, move |t, gate| {
        let conns: Vec<usize> = (t..connections).step_by(threads).collect();
        let driver = Driver::connect(&target, &spec, &conns, connections);
        if let Ok(d) = &driver
            && d.blocking
        {
            // Its reads may wait without a timer: let the main thread end them if the node
            // stops answering (see the module docs).
            let watched = d.conns[0].stream.try_clone().map_err(|e| e.to_string())?;
            gate.watch(watched);
        }
        let clock = gate.arrive();
        let rec = driver?.run(clock, &spec)?;
        gate.collector.merge(t, &rec);
        Ok(())
    })
}

/// One connection of a driver thread.
struct Conn {
    stream: TcpStream,
    core: ClientConnection,
    /// The TLS session every byte goes through, when the target asks for TLS.
    tls: Option<rustls::ClientConnection>,
    /// Bytes taken from the core and not yet fully written (to the socket, or into `tls`).
    out: Vec<u8>,
    written: usize,
    /// Client index by raw sid (foldhash: one lookup per completed request).
    clients: HashMap<u64, usize, foldhash::fast::RandomState>,
    lost: bool,
}

/// One simulated client: a session and its statement stream.
struct Client {
    conn: usize,
    sid: SessionId,
    script: Script,
    inflight: VecDeque<(RequestId, Instant, bool)>,
    dead: bool,
    /// The whole plan went out with its digest on this session: later requests send only the
    /// digest, as a compute node does. Cleared by a failure (a digest the node no longer keeps
    /// answers PLAN_CACHE_MISS), so the next request sends the whole plan again.
    plan_sent: bool,
}

impl Client {
    /// The client's session is gone: it issues nothing more, and the run counts it as lost.
    fn lose(&mut self, rec: &mut Recorder) {
        if !self.dead {
            self.dead = true;
            rec.lost_clients += 1;
        }
    }
}

/// A driver thread's state.
struct Driver {
    epoll: Epoll,
    /// The thread owns one plain connection and blocks in a read on it instead of in epoll.
    blocking: bool,
    /// Whether the blocking socket's receive timeout is set ([`BLOCKING_READ_TIMEOUT`]) or off.
    read_timeout_on: bool,
    /// Requests in flight over all clients (the sum of their `inflight` lengths).
    inflight: usize,
    conns: Vec<Conn>,
    clients: Vec<Client>,
    opts: ExecOptions,
    /// The plan sent instead of each statement's SQL (`point-get`), and its digest.
    plan: Option<(xrpc_client::plan::Plan, Bytes)>,
    rec: Recorder,
}

impl Driver {
    /// Opens this thread's connections and sessions; nothing is sent until [`Driver::run`].
    fn connect(
        target: &XrpcAddr,
        spec: &StepSpec,
        mine: &[usize],
        connections: usize,
    ) -> Result<Self, String> {
        let epoll = Epoll::new().map_err(|e| format!("epoll: {e}"))?;
        let mut conns = Vec::with_capacity(mine.len());
        let mut clients = Vec::new();
        let now = Instant::now();
        let blocking = mine.len() == 1 && target.tls.is_none();
        for (local, &global) in mine.iter().enumerate() {
            let mut stream = TcpStream::connect(&target.addr)
                .map_err(|e| format!("connect to {}: {e}", target.addr))?;
            stream.set_nodelay(true).map_err(|e| e.to_string())?;
            let config = target.config();
            // The switch to TLS is done blocking, before the core sends its first frame.
            let tls = match &target.tls {
                Some(options) => {
                    let peer = stream.peer_addr().map_err(|e| e.to_string())?.ip();
                    let session = xrpc_client::tls::negotiate(
                        &mut stream,
                        options,
                        &config.frame,
                        peer,
                        TLS_NEGOTIATION_TIMEOUT,
                    )
                    .map_err(|e| format!("TLS to {}: {e}", target.addr))?;
                    Some(session)
                }
                None => None,
            };
            if blocking {
                stream
                    .set_read_timeout(Some(BLOCKING_READ_TIMEOUT))
                    .map_err(|e| e.to_string())?;
            } else {
                stream.set_nonblocking(true).map_err(|e| e.to_string())?;
                epoll
                    .add_edge_read(stream.as_fd(), local as u64)
                    .map_err(|e| format!("epoll: {e}"))?;
            }
            let mut core = ClientConnection::new(config, now);
            let mut sids = HashMap::default();
            for c in (global..spec.concurrency).step_by(connections) {
                let sid = core.open_session().map_err(|e| e.to_string())?;
                sids.insert(sid.raw(), clients.len());
                clients.push(Client {
                    conn: local,
                    sid,
                    script: Script::new(spec.workload, spec.table_size, c as u64 + 1),
                    inflight: VecDeque::with_capacity(spec.pipeline_depth),
                    dead: false,
                    plan_sent: false,
                });
            }
            conns.push(Conn {
                stream,
                core,
                tls,
                out: Vec::with_capacity(64 * 1024),
                written: 0,
                clients: sids,
                lost: false,
            });
        }
        Ok(Self {
            epoll,
            blocking,
            read_timeout_on: blocking,
            inflight: 0,
            conns,
            clients,
            opts: ExecOptions::default().chunk_result(spec.chunk),
            plan: spec.workload.sends_plans().then(|| {
                let plan = super::workload::point_get_plan();
                let digest = plan.digest();
                (plan, digest)
            }),
            rec: Recorder::new(),
        })
    }

    /// Runs the load until the window closes and the in-flight requests have drained.
    fn run(mut self, clock: &StepClock, spec: &StepSpec) -> Result<Recorder, String> {
        let depth = spec.pipeline_depth.max(1);
        let now = Instant::now();
        for ci in 0..self.clients.len() {
            self.issue(ci, depth, false, now);
        }
        for c in 0..self.conns.len() {
            self.flush(c);
        }
        let mut events = Events::with_capacity(256);
        let mut buf = vec![0u8; 256 * 1024];
        let mut stopping = false;
        // The time of the last read: a blocking turn starts right after its read returned, so it
        // takes no clock reading of its own (see `read`).
        let mut read_at = Instant::now();
        loop {
            let now = if self.blocking {
                read_at
            } else {
                Instant::now()
            };
            if now >= clock.measure_from && !stopping {
                self.rec.cpu_start();
            }
            if now >= clock.measure_until && !stopping {
                stopping = true;
                self.rec.cpu_stop();
                // Clients idle at an event boundary have nothing left to do.
                for ci in 0..self.clients.len() {
                    self.issue(ci, depth, true, now);
                }
            }
            if stopping
                && (self.clients.iter().all(|c| c.dead || c.inflight.is_empty())
                    || now >= clock.measure_until + DRAIN_TIMEOUT)
            {
                break;
            }
            if self.conns.iter().all(|c| c.lost) {
                break;
            }
            let n = if self.blocking {
                // `read` blocks below: without a timer while a reply is due (module docs).
                let conn = &self.conns[0];
                let timed = self.inflight == 0
                    || stopping
                    || conn.written < conn.out.len()
                    || conn.core.has_transmit();
                if timed != self.read_timeout_on && !conn.lost {
                    let timeout = timed.then_some(BLOCKING_READ_TIMEOUT);
                    poll::set_read_timeout(conn.stream.as_fd(), timeout)
                        .map_err(|e| format!("SO_RCVTIMEO: {e}"))?;
                    self.read_timeout_on = timed;
                }
                1
            } else {
                let wait = self.epoll_wait_limit(now);
                self.epoll
                    .wait(&mut events, Some(wait))
                    .map_err(|e| format!("epoll_wait: {e}"))?
            };
            let mut done = 0u64;
            for i in 0..n {
                let c = if self.blocking {
                    0
                } else {
                    events.get(i).0 as usize
                };
                read_at = self.read(c, &mut buf);
                done += self.dispatch(c, clock, depth, stopping, read_at);
                // This connection's next requests go out before the next connection is read, so
                // the node works on them while this thread handles the other connections' replies
                // (module docs, "Layout").
                self.flush(c);
            }
            // A blocking turn did nothing since its read but handle what it read: the read's time
            // stands (one clock reading per request at one client, not four).
            let now = if self.blocking {
                read_at
            } else {
                Instant::now()
            };
            for c in 0..self.conns.len() {
                if self.conns[c].core.poll_timeout().is_some_and(|t| t <= now) {
                    self.conns[c].core.handle_timeout(now);
                    done += self.dispatch(c, clock, depth, stopping, now);
                }
                self.flush(c);
                if self.conns[c].core.is_closed() && !self.conns[c].lost {
                    // A failed write closed the core: fail its clients now.
                    done += self.dispatch(c, clock, depth, stopping, now);
                }
            }
            clock.add_completed(done);
        }
        self.rec.cpu_stop();
        for c in &mut self.conns {
            c.core.close();
            poll::shutdown(c.stream.as_fd());
        }
        Ok(self.rec)
    }

    /// How long an epoll wait may last: 1 ms while output is pending (a socket that was full),
    /// else 5 ms, and never past a core's next timer.
    fn epoll_wait_limit(&self, now: Instant) -> Duration {
        let pending_out = self.conns.iter().any(|c| {
            !c.lost
                && (c.written < c.out.len()
                    || c.core.has_transmit()
                    || c.tls.as_ref().is_some_and(|t| t.wants_write()))
        });
        let mut wait = if pending_out {
            Duration::from_millis(1)
        } else {
            Duration::from_millis(5)
        };
        for c in &self.conns {
            if let Some(t) = c.core.poll_timeout() {
                wait = wait.min(t.saturating_duration_since(now));
            }
        }
        wait
    }

    /// Reads everything the socket has into the core; returns the time the data was read (or,
    /// when there was none, the time the reads ended). On a blocking socket the first read waits
    /// (up to [`BLOCKING_READ_TIMEOUT`]) and the rest do not.
    ///
    /// The clock is read once per call, right after the first read that returned data: every
    /// later read of the same call only drains bytes that were already queued then, so their
    /// requests completed by that time too. (On this VM a clock reading costs about 0.1 µs, and
    /// at one client there were four per request.)
    fn read(&mut self, c: usize, buf: &mut [u8]) -> Instant {
        let conn = &mut self.conns[c];
        if conn.lost {
            return Instant::now();
        }
        let mut read_at: Option<Instant> = None;
        let mut wait = self.blocking;
        loop {
            let result = if std::mem::take(&mut wait) {
                poll::recv(conn.stream.as_fd(), buf)
            } else {
                poll::recv_nowait(conn.stream.as_fd(), buf)
            };
            match result {
                RecvResult::Data(n) => {
                    let now = *read_at.get_or_insert_with(Instant::now);
                    match &mut conn.tls {
                        None => conn.core.handle_input(&buf[..n], now),
                        Some(tls) => {
                            if let Err(e) = tls_input(tls, &mut conn.core, &buf[..n], now) {
                                conn.core.handle_io_error(e);
                                break;
                            }
                        }
                    }
                    if n < buf.len() {
                        // Short read: drained (edge-triggered).
                        break;
                    }
                }
                RecvResult::Interrupted => {}
                RecvResult::WouldBlock => break,
                RecvResult::Eof => {
                    conn.core.handle_eof();
                    break;
                }
                RecvResult::Error(e) => {
                    conn.core.handle_io_error(e);
                    break;
                }
            }
        }
        read_at.unwrap_or_else(Instant::now)
    }

    /// Handles the core's events for connection `c`; returns the requests completed.
    fn dispatch(
        &mut self,
        c: usize,
        clock: &StepClock,
        depth: usize,
        stopping: bool,
        now: Instant,
    ) -> u64 {
        let mut done = 0;
        let measuring = clock.measuring(now);
        while let Some(event) = self.conns[c].core.poll_event() {
            match event {
                Event::Completed { sid, id, result } => {
                    let Some(&ci) = self.conns[c].clients.get(&sid.raw()) else {
                        continue;
                    };
                    let client = &mut self.clients[ci];
                    let Some((head, sent, counts_event)) = client.inflight.pop_front() else {
                        continue;
                    };
                    self.inflight -= 1;
                    debug_assert_eq!(head, id, "completions arrive in issue order");
                    done += 1;
                    let ok = result.is_ok();
                    if measuring {
                        self.rec.record(
                            now.saturating_duration_since(sent),
                            ok,
                            counts_event && ok,
                        );
                    }
                    if let Err(err) = result {
                        // Kept even from the warm-up: it explains what went wrong.
                        self.rec.note_error(|| err.to_string());
                        client.script.abort();
                        client.plan_sent = false;
                    }
                    self.issue(ci, depth, stopping, now);
                }
                Event::SessionClosed {
                    sid,
                    error: Some(err),
                } => {
                    if let Some(&ci) = self.conns[c].clients.get(&sid.raw()) {
                        self.clients[ci].lose(&mut self.rec);
                        self.rec.note_error(|| format!("session closed: {err}"));
                    }
                }
                Event::ConnectionLost(err) | Event::AuthFailed(err) => {
                    self.conns[c].lost = true;
                    self.rec.note_error(|| err.to_string());
                    for client in self.clients.iter_mut().filter(|cl| cl.conn == c) {
                        client.lose(&mut self.rec);
                        if measuring {
                            self.rec.errors += client.inflight.len() as u64;
                        }
                        self.inflight -= client.inflight.len();
                        client.inflight.clear();
                    }
                }
                _ => {}
            }
        }
        done
    }

    /// Tops client `ci` up to `depth` statements in flight; when `stopping`, only finishes the
    /// event in progress.
    fn issue(&mut self, ci: usize, depth: usize, stopping: bool, now: Instant) {
        let client = &mut self.clients[ci];
        let conn = &mut self.conns[client.conn];
        while !client.dead && client.inflight.len() < depth {
            if stopping && client.script.at_boundary() {
                break;
            }
            let stmt = client.script.next_stmt();
            let counts_event = stmt.counts_event();
            let args: Vec<Param> = stmt
                .args
                .into_iter()
                .map(|a| match a {
                    Arg::Int(v) => Param::Int(v),
                    Arg::Str(s) => Param::Str(s),
                })
                .collect();
            let issued = match &self.plan {
                Some((plan, digest)) => {
                    let request = if client.plan_sent {
                        xrpc_client::plan::Plan::request_by_digest(digest, &args)
                    } else {
                        client.plan_sent = true;
                        plan.request_with_digest(digest, &args)
                    };
                    conn.core.execute_plan(client.sid, request, &self.opts, now)
                }
                None => conn.core.execute(
                    client.sid,
                    Bytes::from_static(stmt.sql.as_bytes()),
                    &args,
                    &self.opts,
                    now,
                ),
            };
            match issued {
                Ok(id) => {
                    client.inflight.push_back((id, now, counts_event));
                    self.inflight += 1;
                }
                Err(err) => {
                    client.lose(&mut self.rec);
                    self.rec.note_error(|| err.to_string());
                }
            }
        }
    }

    /// Writes what connection `c` has to send, as far as the socket takes it.
    fn flush(&mut self, c: usize) {
        let conn = &mut self.conns[c];
        if conn.lost {
            return;
        }
        if conn.tls.is_some() {
            if let Err(e) = conn.flush_tls() {
                conn.core.handle_io_error(e);
            }
            return;
        }
        loop {
            if conn.written == conn.out.len() {
                conn.written = 0;
                if !conn.core.swap_transmit(&mut conn.out) {
                    return;
                }
            }
            match poll::send(conn.stream.as_fd(), &conn.out[conn.written..]) {
                Ok(n) => conn.written += n,
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return,
                Err(e) => {
                    conn.core
                        .handle_io_error(io::Error::from_raw_os_error(e.raw_os_error()));
                    return;
                }
            }
        }
    }
}

impl Conn {
    /// Moves the core's output into the TLS session and the session's records to the socket,
    /// until the socket would block or nothing is left. The session takes plaintext only while
    /// its record buffer has room, so `out` keeps the rest for the next turn.
    fn flush_tls(&mut self) -> io::Result<()> {
        let Some(tls) = self.tls.as_mut() else {
            return Ok(());
        };
        let mut socket = NonBlockingFd(&self.stream);
        loop {
            if tls.wants_write() {
                match tls.write_tls(&mut socket) {
                    Ok(_) => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
            if self.written == self.out.len() {
                self.written = 0;
                if !self.core.swap_transmit(&mut self.out) {
                    return Ok(());
                }
            }
            let taken = tls.writer().write(&self.out[self.written..])?;
            self.written += taken;
            if taken == 0 && !tls.wants_write() {
                return Ok(());
            }
        }
    }
}

/// Feeds `data`, read from the socket, through the TLS session into the core.
fn tls_input(
    tls: &mut rustls::ClientConnection,
    core: &mut ClientConnection,
    mut data: &[u8],
    now: Instant,
) -> io::Result<()> {
    let mut plain = [0u8; 16 * 1024];
    while !data.is_empty() {
        tls.read_tls(&mut data)?;
        tls.process_new_packets()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        loop {
            match tls.reader().read(&mut plain) {
                Ok(0) => {
                    // The node's close_notify: the end of the stream.
                    core.handle_eof();
                    return Ok(());
                }
                Ok(n) => core.handle_input(&plain[..n], now),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// The socket as `io::Write` for rustls, without blocking: a full socket is `WouldBlock`.
struct NonBlockingFd<'a>(&'a TcpStream);

impl io::Write for NonBlockingFd<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        poll::send(self.0.as_fd(), buf).map_err(|e| io::Error::from_raw_os_error(e.raw_os_error()))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
