//! The blocking transport: the sans-IO core over a `std::net::TcpStream`, for threaded callers.
//!
//! # Design
//!
//! One [`Connection`] owns one socket and one [`ClientConnection`]
//! behind a mutex, and one reader thread.
//!
//! - **Reader thread.** It reads up to 64 KiB at a time, so one `read` usually carries a batch of
//!   frames, feeds them to the core, and turns the core's events into wake-ups: each request has a
//!   waiter slot, and only the thread waiting on that request is woken. Wake-ups are delivered
//!   after the connection lock is released. The reader's socket timeout is the core's next timer
//!   (the heartbeat), so it also drives the heartbeat; it never writes while another thread is
//!   writing (see below), so a slow peer cannot stall reading.
//! - **Callers.** A query locks the core, issues the request (which only appends bytes to the
//!   core's output buffer), unlocks, flushes, and parks on its waiter. A caller whose request has
//!   a timeout parks until that deadline, then fires the core's timers itself, which fails the
//!   request and sends `SESS_KILL QUERY`; no thread has to be woken for timers.
//! - **Coalesced writes.** Output of all sessions accumulates in the core's buffer. A flush takes a
//!   writer lock with `try_lock`; the thread that gets it swaps the core's buffer with its own (empty)
//!   one and writes everything pending in one `write_all`, and repeats until the buffer stays empty.
//!   Threads that fail to get the lock return at once: their bytes are already in the buffer and
//!   the holder writes them. After releasing the lock the holder checks once more, so bytes added
//!   between its last swap and its release are never stranded.
//! - **Lifetime.** Clones of a `Connection` and every [`Session`] share a guard; when the last one
//!   is dropped the socket is shut down, which ends the reader thread.
//!
//! - **TLS.** With [`ConnectOptions::tls`] the socket is switched to TLS before the core sends its
//!   first frame ([`crate::tls`]). The rustls session sits behind its own mutex, shared by the
//!   reader (which decrypts what it read, outside the core's lock) and the writer (which
//!   encrypts under the writer lock, so records reach the socket in sequence). Records the reader's
//!   processing produces (alerts, key updates) are written under the writer lock too.
//!
//! A broken socket (read or write error, end of stream), a FATAL on sid 0 or failed heartbeats
//! fail every request and session of the connection with a connection-lost error, and
//! [`Connection::is_broken`] turns true; the pool then replaces the connection.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read, Write};
use std::marker::PhantomData;
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::Mutex;

use crate::driver::{Driven, Issued, PipelinePending, Reply, deliver};
use crate::error::ClientError;
pub use crate::options::ConnectOptions;
use crate::proto::{ClientConnection, StreamRead};
use crate::types::{
    Column, ExecOptions, ExecResult, KillKind, Param, RequestId, ResultSet, SessionId,
};
use crate::waiter::{Signal, Waited, Waiter};

/// One TCP connection to a data node, shared by any number of sessions.
///
/// Cloning is cheap and gives another handle to the same connection.
///
/// ```no_run
/// use xrpc_client::ConnectOptions;
/// use xrpc_client::blocking::Connection;
///
/// let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
/// let rs = conn.query_once("select 1")?;
/// assert_eq!(rs.rows.len(), 1);
/// let mut session = conn.session()?;
/// session.execute("create table t (id integer primary key, v text)", &[])?;
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
    /// Held, never read: its drop is what shuts the socket down.
    _guard: Arc<Guard>,
}

/// Shuts the socket down when the last user handle goes, which ends the reader thread.
struct Guard {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<Driven>,
    writer: Mutex<Writer>,
    /// A handle for `shutdown`, which needs no lock.
    socket: TcpStream,
    peer: SocketAddr,
    handshake: Waiter<Result<(), ClientError>>,
    broken: AtomicBool,
    query_timeout: Option<Duration>,
    /// The TLS session, when the connection switched to TLS.
    tls: Option<Arc<Mutex<rustls::ClientConnection>>>,
}

struct Writer {
    stream: TcpStream,
    buf: Vec<u8>,
    /// Encrypted records on their way to the socket (TLS only).
    records: Vec<u8>,
}

impl Connection {
    /// Connects, authenticates, and starts the reader thread.
    ///
    /// Tries each address `addr` resolves to in turn. Fails with a timeout error if the TCP connect
    /// or the handshake takes longer than [`ConnectOptions::connect_timeout`], and with an auth error
    /// if the server refuses the credentials.
    pub fn connect(addr: impl ToSocketAddrs, options: ConnectOptions) -> Result<Self, ClientError> {
        let config = options.client_config()?;
        let mut last_err = None;
        let mut stream = None;
        for addr in addr.to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, options.connect_timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(err) => last_err = Some(err),
            }
        }
        let mut stream = match (stream, last_err) {
            (Some(stream), _) => stream,
            (None, Some(err)) if err.kind() == io::ErrorKind::TimedOut => {
                return Err(ClientError::timeout("connect", options.connect_timeout));
            }
            (None, Some(err)) => return Err(err.into()),
            (None, None) => {
                return Err(ClientError::usage("the address resolved to nothing"));
            }
        };
        stream.set_nodelay(true)?;
        let peer = stream.peer_addr()?;
        let tls = match &options.tls {
            Some(tls) => Some(Arc::new(Mutex::new(crate::tls::negotiate(
                &mut stream,
                tls,
                &config.frame,
                peer.ip(),
                options.connect_timeout,
            )?))),
            None => None,
        };
        let now = Instant::now();
        let inner = Arc::new(Inner {
            state: Mutex::new(Driven::new(ClientConnection::new(config, now))),
            writer: Mutex::new(Writer {
                stream: stream.try_clone()?,
                buf: Vec::with_capacity(64 * 1024),
                records: Vec::new(),
            }),
            socket: stream.try_clone()?,
            peer,
            handshake: Waiter::new(),
            broken: AtomicBool::new(false),
            query_timeout: options.query_timeout,
            tls,
        });
        let reader = Arc::clone(&inner);
        std::thread::Builder::new()
            .name(format!("xrpc-reader-{peer}"))
            .spawn(move || reader.read_loop(stream))?;
        inner.flush();
        let conn = Connection {
            _guard: Arc::new(Guard {
                inner: Arc::clone(&inner),
            }),
            inner,
        };
        let deadline = now + options.connect_timeout;
        loop {
            match conn.inner.handshake.wait_until(Some(deadline)) {
                Waited::Value(Ok(())) => return Ok(conn),
                Waited::Value(Err(err)) => return Err(err),
                Waited::AlreadyTaken => {
                    return Err(ClientError::usage(
                        "the handshake's outcome was already taken",
                    ));
                }
                // The core's handshake deadline is the same instant: firing its timers fails the
                // connection and completes the handshake slot.
                Waited::TimedOut => conn.inner.drive_timers(),
            }
        }
    }

    /// Opens a new session. Nothing is sent until its first statement, which carries SESS_NEW.
    pub fn session(&self) -> Result<Session, ClientError> {
        let sid = self.inner.state.lock().core.open_session()?;
        Ok(Session {
            conn: self.clone(),
            sid,
            timeout: self.inner.query_timeout,
            home: None,
            closed: false,
        })
    }

    /// Runs one statement on an auto-commit sid and returns its rows.
    pub fn query_once(&self, sql: &str) -> Result<ResultSet, ClientError> {
        self.execute_once(sql, &[]).map(ExecResult::into_result_set)
    }

    /// Runs one statement with arguments on an auto-commit sid.
    pub fn execute_once(&self, sql: &str, args: &[Param]) -> Result<ExecResult, ClientError> {
        let opts = ExecOptions {
            timeout: self.inner.query_timeout,
            ..ExecOptions::default()
        };
        let waiter = Arc::new(Waiter::new());
        let deadline = {
            let mut state = self.inner.state.lock();
            let now = Instant::now();
            let (_, id) = state.core.execute_once(
                Bytes::copy_from_slice(sql.as_bytes()),
                args,
                &opts,
                now,
            )?;
            state.waiters.insert(id, Arc::clone(&waiter));
            opts.timeout.map(|t| now + t)
        };
        self.inner.flush();
        self.inner.wait(&waiter, deadline)
    }

    /// Whether the connection is lost. A lost connection fails every call with the error that
    /// ended it.
    pub fn is_broken(&self) -> bool {
        self.inner.broken.load(Ordering::Acquire)
    }

    /// Why the connection was lost, if it was.
    pub fn broken_error(&self) -> Option<ClientError> {
        self.inner.state.lock().core.closed_error().cloned()
    }

    /// The server's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.inner.peer
    }

    /// The TLS version and cipher suite agreed with the server, such as
    /// `TLSv1_3 TLS13_AES_256_GCM_SHA384` (rustls's names); `None` on a plain connection.
    pub fn tls_cipher(&self) -> Option<String> {
        let tls = self.inner.tls.as_ref()?.lock();
        let version = tls
            .protocol_version()
            .map_or_else(|| "TLS".to_owned(), |v| format!("{v:?}"));
        let suite = tls.negotiated_cipher_suite().map_or_else(
            || "unknown cipher".to_owned(),
            |s| format!("{:?}", s.suite()),
        );
        Some(format!("{version} {suite}"))
    }

    /// Sessions open on this connection.
    pub fn session_count(&self) -> usize {
        self.inner.state.lock().core.session_count()
    }

    /// Requests in flight over all sessions.
    pub fn requests_in_flight(&self) -> usize {
        self.inner.state.lock().core.requests_in_flight()
    }

    /// Closes the connection now: every session and request on it fails.
    pub fn close(&self) {
        self.inner.with_core(ClientConnection::close);
        self.inner.shutdown();
    }

    pub(crate) fn is_session_clean(&self, sid: SessionId) -> bool {
        !self.is_broken() && self.inner.state.lock().core.is_session_clean(sid)
    }

    /// Queues SESS_CLOSE for a session no handle owns any more.
    pub(crate) fn close_session(&self, sid: SessionId) {
        self.inner.with_core(|core| core.close_session(sid)).ok();
    }

    /// Wraps an existing session of this connection in a handle that goes `home` when dropped clean.
    pub(crate) fn adopt_session(&self, sid: SessionId, home: Arc<dyn SessionHome>) -> Session {
        Session {
            conn: self.clone(),
            sid,
            timeout: self.inner.query_timeout,
            home: Some(home),
            closed: false,
        }
    }

    /// Opens a session that returns to `home` when dropped clean.
    pub(crate) fn session_with_home(
        &self,
        home: Arc<dyn SessionHome>,
    ) -> Result<Session, ClientError> {
        let mut session = self.session()?;
        session.home = Some(home);
        Ok(session)
    }

    pub(crate) fn same_as(&self, other: &Connection) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("peer", &self.inner.peer)
            .field("broken", &self.is_broken())
            .finish_non_exhaustive()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.inner.with_core(ClientConnection::close);
        self.inner.shutdown();
    }
}

impl Inner {
    /// Runs `f` on the core, then delivers its events and writes its output.
    fn with_core<R>(&self, f: impl FnOnce(&mut ClientConnection) -> R) -> R {
        let (result, wakes) = {
            let mut state = self.state.lock();
            let result = f(&mut state.core);
            (result, state.drain(&self.broken))
        };
        deliver(wakes, &self.handshake);
        self.flush();
        result
    }

    fn drive_timers(&self) {
        self.with_core(|core| core.handle_timeout(Instant::now()));
    }

    /// Writes everything pending, unless another thread is already doing so (see the module docs).
    fn flush(&self) {
        loop {
            let Some(mut writer) = self.writer.try_lock() else {
                return;
            };
            let Writer {
                stream,
                buf,
                records,
            } = &mut *writer;
            loop {
                if !self.state.lock().core.swap_transmit(buf) {
                    break;
                }
                let written = match &self.tls {
                    None => stream.write_all(buf),
                    Some(tls) => write_through_tls(tls, stream, buf, records),
                };
                if let Err(err) = written {
                    drop(writer);
                    self.with_core(|core| core.handle_io_error(err));
                    self.shutdown();
                    return;
                }
            }
            drop(writer);
            if !self.state.lock().core.has_transmit() {
                return;
            }
        }
    }

    fn shutdown(&self) {
        self.broken.store(true, Ordering::Release);
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// Decrypts what the reader read; returns whether the node closed the TLS session. Records
    /// that the processing produced are written at once.
    fn tls_input(
        &self,
        tls: &Mutex<rustls::ClientConnection>,
        mut data: &[u8],
        plain: &mut Vec<u8>,
    ) -> io::Result<bool> {
        plain.clear();
        let mut closed = false;
        let mut wants_write = false;
        {
            let mut session = tls.lock();
            while !data.is_empty() {
                session.read_tls(&mut data)?;
                let state = session
                    .process_new_packets()
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                closed |= state.peer_has_closed();
                match session.reader().read_to_end(plain) {
                    Ok(_) => closed = true,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
                wants_write |= session.wants_write();
            }
        }
        if wants_write {
            let mut writer = self.writer.lock();
            let Writer {
                stream, records, ..
            } = &mut *writer;
            write_through_tls(tls, stream, &[], records)?;
        }
        Ok(closed)
    }

    fn read_loop(self: Arc<Self>, mut stream: TcpStream) {
        let mut buf = vec![0u8; 64 * 1024];
        let mut plain = Vec::new();
        let mut armed: Option<Instant> = None;
        loop {
            let next = self.state.lock().core.poll_timeout();
            if next != armed {
                // A zero read timeout is an error; a deadline already past fires after 1 ms.
                let timeout = next.map(|t| {
                    t.saturating_duration_since(Instant::now())
                        .max(Duration::from_millis(1))
                });
                if stream.set_read_timeout(timeout).is_err() {
                    break;
                }
                armed = next;
            }
            let mut read = stream.read(&mut buf);
            let mut tls_closed = false;
            if let (Some(tls), Ok(n @ 1..)) = (&self.tls, &read) {
                match self.tls_input(tls, &buf[..*n], &mut plain) {
                    Ok(closed) => tls_closed = closed,
                    Err(err) => read = Err(err),
                }
            }
            let now = Instant::now();
            let closed = {
                let mut state = self.state.lock();
                match read {
                    Ok(0) => state.core.handle_eof(),
                    Ok(_) if self.tls.is_some() => {
                        if !plain.is_empty() {
                            state.core.handle_input(&plain, now);
                        }
                        if tls_closed {
                            state.core.handle_eof();
                        }
                    }
                    Ok(n) => state.core.handle_input(&buf[..n], now),
                    Err(err)
                        if matches!(
                            err.kind(),
                            io::ErrorKind::WouldBlock
                                | io::ErrorKind::TimedOut
                                | io::ErrorKind::Interrupted
                        ) => {}
                    Err(err) => state.core.handle_io_error(err),
                }
                if state.core.poll_timeout().is_some_and(|t| t <= now) {
                    state.core.handle_timeout(now);
                }
                let wakes = state.drain(&self.broken);
                let closed = state.core.is_closed();
                drop(state);
                deliver(wakes, &self.handshake);
                closed
            };
            if closed {
                self.shutdown();
                break;
            }
            self.flush();
        }
    }

    /// Parks on `waiter` until it completes, firing the core's timers at `deadline`.
    fn wait(&self, waiter: &Waiter<Reply>, mut deadline: Option<Instant>) -> Reply {
        loop {
            match waiter.wait_until(deadline) {
                Waited::Value(reply) => return reply,
                Waited::AlreadyTaken => {
                    return Err(ClientError::usage("the reply was already taken"));
                }
                Waited::TimedOut => {}
            }
            self.drive_timers();
            // The timers completed the waiter; if the clock was read a hair early, check again soon.
            deadline = Some(Instant::now() + Duration::from_millis(1));
        }
    }
}

/// Encrypts `plain` and writes the records, with anything else rustls has queued, to `stream`.
fn write_through_tls(
    tls: &Mutex<rustls::ClientConnection>,
    stream: &mut TcpStream,
    plain: &[u8],
    records: &mut Vec<u8>,
) -> io::Result<()> {
    let mut rest = plain;
    loop {
        records.clear();
        {
            let mut session = tls.lock();
            if !rest.is_empty() {
                let n = session.writer().write(rest)?;
                rest = &rest[n..];
            }
            while session.wants_write() {
                session.write_tls(records)?;
            }
        }
        // Written outside the session lock, so the reader can decrypt meanwhile; the writer lock
        // the caller holds keeps the records in order.
        stream.write_all(records)?;
        if rest.is_empty() {
            return Ok(());
        }
    }
}

/// Where a pooled session goes when its handle is dropped clean.
pub(crate) trait SessionHome: Send + Sync {
    fn give_back(&self, conn: Connection, sid: SessionId);
}

/// A session: a sid on a connection, with its own transaction, variables and stored error.
///
/// Statements on one session run one after another, in order. Dropping the handle closes the
/// session, or, for a session from a [`Pool`](crate::pool::Pool) that is clean, returns it to the
/// pool.
///
/// ```no_run
/// use xrpc_client::ConnectOptions;
/// use xrpc_client::blocking::Connection;
///
/// let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
/// let mut session = conn.session()?;
/// session.execute("begin", &[])?;
/// let done = session.execute("update t set v = ? where id = ?", &["x".into(), 1i64.into()])?;
/// session.execute("commit", &[])?;
/// println!("{} row(s) changed", done.rows_affected);
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
pub struct Session {
    conn: Connection,
    sid: SessionId,
    timeout: Option<Duration>,
    home: Option<Arc<dyn SessionHome>>,
    closed: bool,
}

impl Session {
    /// Runs a statement and returns its rows (an empty result for statements without rows).
    pub fn query(&mut self, sql: &str) -> Result<ResultSet, ClientError> {
        self.execute(sql, &[]).map(ExecResult::into_result_set)
    }

    /// Runs a statement with arguments.
    pub fn execute(&mut self, sql: &str, args: &[Param]) -> Result<ExecResult, ClientError> {
        let opts = self.default_options();
        self.execute_with(sql, args, &opts)
    }

    /// Runs a statement with explicit options (chunked results, flow-control budget, schema, …).
    pub fn execute_with(
        &mut self,
        sql: &str,
        args: &[Param],
        opts: &ExecOptions,
    ) -> Result<ExecResult, ClientError> {
        let Issued {
            waiter, deadline, ..
        } = self.issue(sql, args, opts)?;
        self.conn.inner.flush();
        self.conn.inner.wait(&waiter, deadline)
    }

    /// Runs an EXEC_PLAN_READ plan (see [`crate::plan`]) with `params` filling its placeholders.
    ///
    /// ```no_run
    /// # use xrpc_client::ConnectOptions;
    /// # use xrpc_client::blocking::Connection;
    /// use xrpc_client::plan::{Plan, placeholder};
    /// # let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
    /// let mut session = conn.session()?;
    /// let by_id = Plan::get("users").key([("id", placeholder(0))]).build();
    /// let rows = session.execute_plan(&by_id, &[42i64.into()])?;
    /// # Ok::<(), xrpc_client::ClientError>(())
    /// ```
    pub fn execute_plan(
        &mut self,
        plan: &crate::plan::Plan,
        params: &[Param],
    ) -> Result<ResultSet, ClientError> {
        let opts = self.default_options();
        let waiter = Arc::new(Waiter::new());
        let now = Instant::now();
        let deadline = opts.timeout.map(|t| now + t);
        {
            let mut state = self.conn.inner.state.lock();
            let id = state
                .core
                .execute_plan(self.sid, plan.request(params), &opts, now)?;
            state.waiters.insert(id, Arc::clone(&waiter));
        }
        self.conn.inner.flush();
        self.conn
            .inner
            .wait(&waiter, deadline)
            .map(ExecResult::into_result_set)
    }

    /// Runs a query and hands its rows out as they arrive, with flow control following the
    /// caller's reading speed.
    ///
    /// ```no_run
    /// # use xrpc_client::ConnectOptions;
    /// # use xrpc_client::blocking::Connection;
    /// # let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
    /// let mut session = conn.session()?;
    /// for row in session.query_stream("select * from big")? {
    ///     let row = row?;
    ///     println!("{row:?}");
    /// }
    /// # Ok::<(), xrpc_client::ClientError>(())
    /// ```
    pub fn query_stream(&mut self, sql: &str) -> Result<RowStream<'_>, ClientError> {
        let opts = self.default_options().stream(true);
        self.start_stream(sql, &[], opts)
    }

    /// [`query_stream`](Self::query_stream) with arguments and options (timeout, flow-control
    /// budget; `stream` is implied), returning a stream that does not borrow the session: for
    /// callers that keep a session and its open result side by side, such as a language
    /// binding's cursor. Statements issued on the session while the stream is open run after it;
    /// read the stream to its end, or drop it (which discards the rows still to come), before
    /// waiting for them.
    pub fn query_stream_owned(
        &mut self,
        sql: &str,
        args: &[Param],
        opts: &ExecOptions,
    ) -> Result<RowStream<'static>, ClientError> {
        self.start_stream(sql, args, opts.clone().stream(true))
    }

    fn start_stream<'s>(
        &mut self,
        sql: &str,
        args: &[Param],
        opts: ExecOptions,
    ) -> Result<RowStream<'s>, ClientError> {
        let Issued {
            id,
            waiter,
            deadline,
        } = self.issue(sql, args, &opts)?;
        self.conn.inner.flush();
        Ok(RowStream {
            conn: self.conn.clone(),
            sid: self.sid,
            id,
            waiter,
            deadline,
            rows: VecDeque::new(),
            finished: false,
            columns: None,
            outcome: None,
            _session: PhantomData,
        })
    }

    /// Starts a pipeline: statements are sent together, without waiting, and their results read
    /// back in order.
    ///
    /// ```no_run
    /// # use xrpc_client::ConnectOptions;
    /// # use xrpc_client::blocking::Connection;
    /// # let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
    /// let mut session = conn.session()?;
    /// let mut results = session
    ///     .pipeline()
    ///     .fire_and_forget("set names utf8mb4")
    ///     .push("select 1")
    ///     .push("select 2")
    ///     .send()?;
    /// while let Some(result) = results.next_result() {
    ///     println!("{:?}", result?.into_result_set().rows);
    /// }
    /// # Ok::<(), xrpc_client::ClientError>(())
    /// ```
    pub fn pipeline(&mut self) -> Pipeline<'_> {
        Pipeline::new(self)
    }

    /// Sets the timeout of later statements (`None`: wait for ever). A statement that times out
    /// is killed with `SESS_KILL QUERY` and fails with an error whose `is_timeout()` is true.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// A handle that kills this session's running statement from another thread.
    pub fn kill_handle(&self) -> KillHandle {
        KillHandle {
            conn: self.conn.clone(),
            sid: self.sid,
        }
    }

    /// The session id on its connection.
    pub fn id(&self) -> SessionId {
        self.sid
    }

    /// The connection the session lives on.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Whether the session could be reused by someone else: nothing in flight or unread, no open
    /// transaction, no stored error.
    pub fn is_clean(&self) -> bool {
        self.conn.is_session_clean(self.sid)
    }

    /// Whether a transaction the client opened is still open.
    pub fn in_transaction(&self) -> bool {
        self.conn.inner.state.lock().core.in_transaction(self.sid)
    }

    /// Closes the session now instead of returning it to a pool.
    pub fn close(mut self) {
        self.close_now();
    }

    fn close_now(&mut self) {
        if !self.closed {
            self.closed = true;
            let sid = self.sid;
            self.conn
                .inner
                .with_core(|core| core.close_session(sid))
                .ok();
        }
    }

    fn default_options(&self) -> ExecOptions {
        ExecOptions {
            timeout: self.timeout,
            ..ExecOptions::default()
        }
    }

    /// Issues one request under the lock; returns its waiter and the deadline to drive timers at.
    fn issue(
        &mut self,
        sql: &str,
        args: &[Param],
        opts: &ExecOptions,
    ) -> Result<Issued, ClientError> {
        // The lock guard is a temporary of the tail expression: released before returning.
        self.conn
            .inner
            .state
            .lock()
            .issue(self.sid, sql, args, opts, Instant::now())
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("sid", &self.sid)
            .field("peer", &self.conn.inner.peer)
            .field("pooled", &self.home.is_some())
            .finish_non_exhaustive()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        if let Some(home) = self.home.take()
            && self.conn.is_session_clean(self.sid)
        {
            self.closed = true;
            home.give_back(self.conn.clone(), self.sid);
            return;
        }
        // Dirty sessions are never reused: closing rolls back whatever the server still holds.
        self.close_now();
    }
}

/// Kills a session's running statement from another thread.
///
/// ```no_run
/// # use xrpc_client::ConnectOptions;
/// # use xrpc_client::blocking::Connection;
/// # let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
/// let mut session = conn.session()?;
/// let killer = session.kill_handle();
/// std::thread::spawn(move || {
///     std::thread::sleep(std::time::Duration::from_secs(1));
///     let _ = killer.kill_query();
/// });
/// let err = session.query("select slow()").unwrap_err();
/// assert!(err.is_interrupted());
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
#[derive(Debug, Clone)]
pub struct KillHandle {
    conn: Connection,
    sid: SessionId,
}

impl KillHandle {
    /// Interrupts the running statement, which fails with ERROR 1317.
    pub fn kill_query(&self) -> Result<(), ClientError> {
        let sid = self.sid;
        self.conn
            .inner
            .with_core(|core| core.kill(sid, KillKind::Query))
    }

    /// Ends the session on the server.
    pub fn kill_session(&self) -> Result<(), ClientError> {
        let sid = self.sid;
        self.conn
            .inner
            .with_core(|core| core.kill(sid, KillKind::Connection))
    }
}

/// Statements to send together on a [`Session`]; see [`Session::pipeline`].
pub type Pipeline<'s> = crate::pipeline::Pipeline<'s, Session>;

impl<'s> Pipeline<'s> {
    /// Sends every statement, in one write, and returns the results to read in order.
    pub fn send(self) -> Result<PipelineResults<'s>, ClientError> {
        let session = self.session;
        let base = session.default_options();
        let issued = session.conn.inner.state.lock().issue_pipeline(
            session.sid,
            &self.items,
            &base,
            Instant::now(),
        );
        session.conn.inner.flush();
        let pending = issued?;
        Ok(PipelineResults { session, pending })
    }
}

/// Results of a pipeline, read in the order the statements were pushed.
#[derive(Debug)]
pub struct PipelineResults<'s> {
    session: &'s mut Session,
    pending: PipelinePending,
}

impl PipelineResults<'_> {
    /// The next result, waiting for it if needed; `None` once every result was read.
    pub fn next_result(&mut self) -> Option<Result<ExecResult, ClientError>> {
        let (waiter, deadline) = self.pending.pop_front()?;
        Some(self.session.conn.inner.wait(&waiter, deadline))
    }

    /// Results not read yet.
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }
}

impl Iterator for PipelineResults<'_> {
    type Item = Result<ExecResult, ClientError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_result()
    }
}

/// Rows of a streamed query, as they arrive; see [`Session::query_stream`] and
/// [`Session::query_stream_owned`].
pub struct RowStream<'s> {
    conn: Connection,
    sid: SessionId,
    id: RequestId,
    waiter: Arc<Waiter<Reply>>,
    deadline: Option<Instant>,
    rows: VecDeque<Vec<crate::Value>>,
    finished: bool,
    columns: Option<Vec<Column>>,
    outcome: Option<ExecResult>,
    /// Ties a stream from [`Session::query_stream`] to the session's borrow.
    _session: PhantomData<&'s mut Session>,
}

impl RowStream<'_> {
    /// The result's columns, once the first rows have arrived (or the query has ended).
    pub fn columns(&mut self) -> Option<&[Column]> {
        if self.columns.is_none() {
            let state = self.conn.inner.state.lock();
            self.columns = state.core.stream_columns(self.id).map(<[Column]>::to_vec);
        }
        self.columns.as_deref()
    }

    /// What the statement returned besides its rows (rows affected, last insert id, warnings;
    /// the result set holds the columns only), once every row has been read.
    pub fn outcome(&self) -> Option<&ExecResult> {
        self.outcome.as_ref()
    }

    fn fetch(&mut self) -> Option<Result<(), ClientError>> {
        loop {
            self.waiter.clear_rows();
            let read = {
                let mut state = self.conn.inner.state.lock();
                if self.columns.is_none() {
                    self.columns = state.core.stream_columns(self.id).map(<[Column]>::to_vec);
                }
                state.core.take_rows(self.id)
            };
            match read {
                StreamRead::Rows(rows) => {
                    // Taking rows may have released a flow-control offer.
                    self.conn.inner.flush();
                    self.rows.extend(rows);
                    return Some(Ok(()));
                }
                StreamRead::Finished => {
                    self.finished = true;
                    return match self.waiter.wait_until(self.deadline) {
                        Waited::Value(Ok(result)) => {
                            if self.columns.is_none() {
                                self.columns =
                                    result.result_set.as_ref().map(|rs| rs.columns.clone());
                            }
                            self.outcome = Some(result);
                            None
                        }
                        Waited::Value(Err(err)) => Some(Err(err)),
                        Waited::AlreadyTaken | Waited::TimedOut => None,
                    };
                }
                StreamRead::Pending => match self.waiter.wait_signal(self.deadline) {
                    Signal::Rows | Signal::Done => {}
                    Signal::TimedOut => self.conn.inner.drive_timers(),
                },
            }
        }
    }
}

impl Iterator for RowStream<'_> {
    type Item = Result<Vec<crate::Value>, ClientError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.rows.pop_front() {
                return Some(Ok(row));
            }
            if self.finished {
                return None;
            }
            match self.fetch()? {
                Ok(()) => {}
                Err(err) => return Some(Err(err)),
            }
        }
    }
}

impl fmt::Debug for RowStream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RowStream")
            .field("session", &self.sid)
            .field("buffered", &self.rows.len())
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Drop for RowStream<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let id = self.id;
            self.conn.inner.with_core(|core| core.drop_stream(id));
        }
    }
}
