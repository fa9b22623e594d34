//! The async transport on tokio (cargo feature `async`): the same sans-IO core and the same API
//! shape as [`crate::blocking`], with `async fn`s.
//!
//! # Design
//!
//! Each [`Connection`] runs two tasks on the runtime it was created in:
//!
//! - the **reader** owns the read half. It waits for bytes, for the core's next timer (the
//!   heartbeat) and for shutdown, feeds the core, and wakes the futures waiting on each request.
//!   Reads of up to 64 KiB carry batches of frames.
//! - the **writer** owns the write half. Any code that gives the core something to send notifies
//!   it; it swaps the core's output buffer out and writes it whole, repeating until the buffer is
//!   empty. Everything issued between two of its wake-ups goes out in one write, so many sessions'
//!   requests share each syscall.
//!
//! With [`ConnectOptions::tls`] the socket switches to TLS before either task starts
//! ([`crate::tls`]; the handshake runs on `tokio-rustls`), and the two tasks own the halves of
//! the TLS stream instead of the socket's; nothing else differs.
//!
//! A request with a timeout is awaited with `tokio::time::timeout_at` at the core's deadline; when
//! it elapses, the awaiting task fires the core's timers itself, which fails the request and queues
//! `SESS_KILL QUERY`. Dropping a request's future does not cancel the statement; its reply is
//! discarded when it arrives (and the session is dirty until then).
//!
//! Connections and sessions must be used inside a tokio runtime with the time and I/O drivers
//! enabled.

use std::collections::VecDeque;
use std::fmt;
use std::future::poll_fn;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::Mutex;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, ToSocketAddrs};
use tokio::sync::Notify;

use crate::driver::{Driven, Issued, PipelinePending, Reply, deliver};
use crate::error::ClientError;
pub use crate::options::ConnectOptions;
use crate::proto::{ClientConnection, StreamRead};
use crate::types::{Column, ExecOptions, ExecResult, KillKind, Param, ResultSet, SessionId};
use crate::waiter::{Signal, Waiter};

/// One TCP connection to a data node, driven by tokio tasks. Cloning gives another handle.
///
/// ```no_run
/// use xrpc_client::aio::Connection;
/// use xrpc_client::ConnectOptions;
///
/// # async fn run() -> Result<(), xrpc_client::ClientError> {
/// let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", "")).await?;
/// let mut session = conn.session()?;
/// let rs = session.query("select 1").await?;
/// println!("{:?}", rs.rows);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
    /// Held, never read: its drop stops the tasks.
    _guard: Arc<Guard>,
}

struct Guard {
    inner: Arc<Inner>,
}

/// The socket, or the TLS stream over it.
enum Transport {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

struct Inner {
    state: Mutex<Driven>,
    /// Wakes the writer task.
    write: Notify,
    /// Wakes the reader task to stop.
    stop: Notify,
    handshake: Waiter<Result<(), ClientError>>,
    broken: AtomicBool,
    peer: SocketAddr,
    query_timeout: Option<Duration>,
}

impl Connection {
    /// Connects, authenticates and starts the connection's tasks on the current runtime.
    pub async fn connect(
        addr: impl ToSocketAddrs,
        options: ConnectOptions,
    ) -> Result<Self, ClientError> {
        let config = options.client_config()?;
        let stream =
            match tokio::time::timeout(options.connect_timeout, TcpStream::connect(addr)).await {
                Ok(stream) => stream?,
                Err(_) => return Err(ClientError::timeout("connect", options.connect_timeout)),
            };
        stream.set_nodelay(true)?;
        let peer = stream.peer_addr()?;
        // The switch to TLS comes first, so the core's first frame already goes out encrypted.
        let stream = match &options.tls {
            Some(tls) => Transport::Tls(Box::new(
                crate::tls::negotiate_async(
                    stream,
                    tls,
                    &config.frame,
                    peer.ip(),
                    options.connect_timeout,
                )
                .await?,
            )),
            None => Transport::Plain(stream),
        };
        let now = Instant::now();
        let inner = Arc::new(Inner {
            state: Mutex::new(Driven::new(ClientConnection::new(config, now))),
            write: Notify::new(),
            stop: Notify::new(),
            handshake: Waiter::new(),
            broken: AtomicBool::new(false),
            peer,
            query_timeout: options.query_timeout,
        });
        match stream {
            Transport::Tls(tls) => {
                let (read, write) = tokio::io::split(*tls);
                tokio::spawn(Arc::clone(&inner).read_loop(read));
                tokio::spawn(Arc::clone(&inner).write_loop(write));
            }
            Transport::Plain(stream) => {
                let (read, write) = stream.into_split();
                tokio::spawn(Arc::clone(&inner).read_loop(read));
                tokio::spawn(Arc::clone(&inner).write_loop(write));
            }
        }
        inner.write.notify_one();
        let conn = Connection {
            _guard: Arc::new(Guard {
                inner: Arc::clone(&inner),
            }),
            inner,
        };
        let deadline = now + options.connect_timeout;
        loop {
            let waiting = poll_fn(|cx| conn.inner.handshake.poll_take(cx));
            match tokio::time::timeout_at(deadline.into(), waiting).await {
                Ok(Some(Ok(()))) => return Ok(conn),
                Ok(Some(Err(err))) => return Err(err),
                Ok(None) => return Err(ClientError::usage("the handshake result was taken")),
                Err(_) => conn.inner.drive_timers(),
            }
        }
    }

    /// Opens a new session; SESS_NEW goes out with its first statement.
    pub fn session(&self) -> Result<Session, ClientError> {
        let sid = self.inner.state.lock().core.open_session()?;
        Ok(Session {
            conn: self.clone(),
            sid,
            timeout: self.inner.query_timeout,
            closed: false,
        })
    }

    /// Runs one statement on an auto-commit sid and returns its rows.
    pub async fn query_once(&self, sql: &str) -> Result<ResultSet, ClientError> {
        self.execute_once(sql, &[])
            .await
            .map(ExecResult::into_result_set)
    }

    /// Runs one statement with arguments on an auto-commit sid.
    pub async fn execute_once(&self, sql: &str, args: &[Param]) -> Result<ExecResult, ClientError> {
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
        self.inner.write.notify_one();
        self.inner.wait(&waiter, deadline).await
    }

    /// Whether the connection is lost.
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

    /// Sessions open on this connection.
    pub fn session_count(&self) -> usize {
        self.inner.state.lock().core.session_count()
    }

    /// Closes the connection now: every session and request on it fails.
    pub fn close(&self) {
        self.inner.with_core(ClientConnection::close);
        self.inner.stop.notify_one();
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
        self.inner.stop.notify_one();
    }
}

impl Inner {
    /// Runs `f` on the core, delivers the events, and wakes the writer.
    fn with_core<R>(&self, f: impl FnOnce(&mut ClientConnection) -> R) -> R {
        let (result, wakes) = {
            let mut state = self.state.lock();
            let result = f(&mut state.core);
            (result, state.drain(&self.broken))
        };
        deliver(wakes, &self.handshake);
        self.write.notify_one();
        result
    }

    fn drive_timers(&self) {
        self.with_core(|core| core.handle_timeout(Instant::now()));
    }

    async fn wait(&self, waiter: &Waiter<Reply>, mut deadline: Option<Instant>) -> Reply {
        loop {
            let waiting = poll_fn(|cx| waiter.poll_take(cx));
            let outcome = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline.into(), waiting).await.ok(),
                None => Some(waiting.await),
            };
            match outcome {
                Some(Some(reply)) => return reply,
                Some(None) => return Err(ClientError::usage("the reply was already taken")),
                None => {
                    self.drive_timers();
                    deadline = Some(Instant::now() + Duration::from_millis(1));
                }
            }
        }
    }

    async fn read_loop(self: Arc<Self>, mut read: impl AsyncRead + Unpin) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let next = self.state.lock().core.poll_timeout();
            let timer = async {
                match next {
                    Some(t) => tokio::time::sleep_until(t.into()).await,
                    None => std::future::pending().await,
                }
            };
            let input = tokio::select! {
                read = read.read(&mut buf) => Some(read),
                () = timer => None,
                () = self.stop.notified() => break,
            };
            let now = Instant::now();
            let closed = {
                let mut state = self.state.lock();
                match input {
                    Some(Ok(0)) => state.core.handle_eof(),
                    Some(Ok(n)) => state.core.handle_input(&buf[..n], now),
                    Some(Err(err)) => state.core.handle_io_error(err),
                    None => {}
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
            self.write.notify_one();
            if closed {
                break;
            }
        }
        self.broken.store(true, Ordering::Release);
        // The writer may be parked; wake it so it sees the closed core and exits.
        self.write.notify_one();
    }

    async fn write_loop(self: Arc<Self>, mut write: impl AsyncWrite + Unpin) {
        let mut buf = Vec::with_capacity(64 * 1024);
        loop {
            self.write.notified().await;
            loop {
                let (has, closed) = {
                    let mut state = self.state.lock();
                    (state.core.swap_transmit(&mut buf), state.core.is_closed())
                };
                if closed {
                    let _ = write.shutdown().await;
                    return;
                }
                if !has {
                    break;
                }
                // A TLS stream may keep records back until flushed; a TCP one flushes for free.
                let written = match write.write_all(&buf).await {
                    Ok(()) => write.flush().await,
                    Err(err) => Err(err),
                };
                if let Err(err) = written {
                    self.with_core(|core| core.handle_io_error(err));
                    self.stop.notify_one();
                    return;
                }
            }
        }
    }
}

/// A session on an async [`Connection`]. Dropping it closes the session.
///
/// ```no_run
/// # use xrpc_client::aio::Connection;
/// # use xrpc_client::ConnectOptions;
/// # async fn run(conn: Connection) -> Result<(), xrpc_client::ClientError> {
/// let mut session = conn.session()?;
/// let done = session.execute("insert into t values (?)", &[7i64.into()]).await?;
/// assert_eq!(done.rows_affected, 1);
/// # Ok(())
/// # }
/// ```
pub struct Session {
    conn: Connection,
    sid: SessionId,
    timeout: Option<Duration>,
    closed: bool,
}

impl Session {
    /// Runs a statement and returns its rows.
    pub async fn query(&mut self, sql: &str) -> Result<ResultSet, ClientError> {
        self.execute(sql, &[])
            .await
            .map(ExecResult::into_result_set)
    }

    /// Runs a statement with arguments.
    pub async fn execute(&mut self, sql: &str, args: &[Param]) -> Result<ExecResult, ClientError> {
        let opts = self.default_options();
        self.execute_with(sql, args, &opts).await
    }

    /// Runs a statement with explicit options.
    pub async fn execute_with(
        &mut self,
        sql: &str,
        args: &[Param],
        opts: &ExecOptions,
    ) -> Result<ExecResult, ClientError> {
        let Issued {
            waiter, deadline, ..
        } = self.issue(sql, args, opts)?;
        self.conn.inner.write.notify_one();
        self.conn.inner.wait(&waiter, deadline).await
    }

    /// Runs an EXEC_PLAN_READ plan (see [`crate::plan`]) with `params` filling its placeholders.
    pub async fn execute_plan(
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
        self.conn.inner.write.notify_one();
        self.conn
            .inner
            .wait(&waiter, deadline)
            .await
            .map(ExecResult::into_result_set)
    }

    /// Runs a query and hands its rows out as they arrive, with flow control following the
    /// caller's reading speed.
    ///
    /// ```no_run
    /// # async fn run(mut session: xrpc_client::aio::Session) -> Result<(), xrpc_client::ClientError> {
    /// let mut rows = session.query_stream("select * from big")?;
    /// while let Some(row) = rows.next().await {
    ///     println!("{:?}", row?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn query_stream(&mut self, sql: &str) -> Result<RowStream<'_>, ClientError> {
        let opts = self.default_options().stream(true);
        self.start_stream(sql, &[], opts)
    }

    /// [`query_stream`](Self::query_stream) with arguments and options, returning a stream that
    /// does not borrow the session (see `crate::blocking::Session::query_stream_owned`).
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
        self.conn.inner.write.notify_one();
        Ok(RowStream {
            conn: self.conn.clone(),
            sid: self.sid,
            id,
            waiter,
            deadline,
            rows: VecDeque::new(),
            finished: false,
            outcome: None,
            _session: PhantomData,
        })
    }

    /// Starts a pipeline of statements sent together and read back in order.
    ///
    /// ```no_run
    /// # async fn run(mut session: xrpc_client::aio::Session) -> Result<(), xrpc_client::ClientError> {
    /// let mut results = session.pipeline().push("select 1").push("select 2").send()?;
    /// while let Some(result) = results.next_result().await {
    ///     println!("{:?}", result?.into_result_set().rows);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn pipeline(&mut self) -> Pipeline<'_> {
        Pipeline::new(self)
    }

    /// Sets the timeout of later statements (`None`: wait for ever).
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// Kills the session's running statement, which fails with ERROR 1317.
    pub fn kill_query(&self) -> Result<(), ClientError> {
        let sid = self.sid;
        self.conn
            .inner
            .with_core(|core| core.kill(sid, KillKind::Query))
    }

    /// The session id.
    pub fn id(&self) -> SessionId {
        self.sid
    }

    /// Whether nothing is in flight or unread, no transaction is open and no error is stored.
    pub fn is_clean(&self) -> bool {
        !self.conn.is_broken() && self.conn.inner.state.lock().core.is_session_clean(self.sid)
    }

    /// Closes the session.
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
            .finish_non_exhaustive()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close_now();
    }
}

/// Statements to send together on a [`Session`]; see [`Session::pipeline`].
pub type Pipeline<'s> = crate::pipeline::Pipeline<'s, Session>;

impl<'s> Pipeline<'s> {
    /// Sends every statement in one write; the results are read with
    /// [`PipelineResults::next_result`].
    pub fn send(self) -> Result<PipelineResults<'s>, ClientError> {
        let session = self.session;
        let base = session.default_options();
        let issued = session.conn.inner.state.lock().issue_pipeline(
            session.sid,
            &self.items,
            &base,
            Instant::now(),
        );
        session.conn.inner.write.notify_one();
        let pending = issued?;
        Ok(PipelineResults { session, pending })
    }
}

/// Results of a pipeline, in the order the statements were pushed.
#[derive(Debug)]
pub struct PipelineResults<'s> {
    session: &'s mut Session,
    pending: PipelinePending,
}

impl PipelineResults<'_> {
    /// The next result; `None` once every result was read.
    pub async fn next_result(&mut self) -> Option<Result<ExecResult, ClientError>> {
        let (waiter, deadline) = self.pending.pop_front()?;
        Some(self.session.conn.inner.wait(&waiter, deadline).await)
    }

    /// Results not read yet.
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }
}

/// Rows of a streamed query; see [`Session::query_stream`] and [`Session::query_stream_owned`].
pub struct RowStream<'s> {
    conn: Connection,
    sid: SessionId,
    id: crate::RequestId,
    waiter: Arc<Waiter<Reply>>,
    deadline: Option<Instant>,
    rows: VecDeque<Vec<crate::Value>>,
    finished: bool,
    outcome: Option<ExecResult>,
    /// Ties a stream from [`Session::query_stream`] to the session's borrow.
    _session: PhantomData<&'s mut Session>,
}

impl RowStream<'_> {
    /// The next row; `None` at the end.
    pub async fn next(&mut self) -> Option<Result<Vec<crate::Value>, ClientError>> {
        loop {
            if let Some(row) = self.rows.pop_front() {
                return Some(Ok(row));
            }
            if self.finished {
                return None;
            }
            self.waiter.clear_rows();
            let read = self.conn.inner.state.lock().core.take_rows(self.id);
            match read {
                StreamRead::Rows(rows) => {
                    // Taking rows may have released a flow-control offer.
                    self.conn.inner.write.notify_one();
                    self.rows.extend(rows);
                }
                StreamRead::Finished => {
                    self.finished = true;
                    match self.conn.inner.wait(&self.waiter, self.deadline).await {
                        Ok(outcome) => self.outcome = Some(outcome),
                        Err(err) => return Some(Err(err)),
                    }
                }
                StreamRead::Pending => {
                    let signal = poll_fn(|cx| self.waiter.poll_signal(cx));
                    let outcome = match self.deadline {
                        Some(deadline) => tokio::time::timeout_at(deadline.into(), signal)
                            .await
                            .unwrap_or(Signal::TimedOut),
                        None => signal.await,
                    };
                    if outcome == Signal::TimedOut {
                        self.conn.inner.drive_timers();
                    }
                }
            }
        }
    }

    /// The result's columns, once the first rows have arrived (or, from the outcome, once the
    /// query has ended).
    pub fn columns(&self) -> Option<Vec<Column>> {
        if let Some(rs) = self.outcome.as_ref().and_then(|o| o.result_set.as_ref()) {
            return Some(rs.columns.clone());
        }
        let state = self.conn.inner.state.lock();
        state.core.stream_columns(self.id).map(<[Column]>::to_vec)
    }

    /// What the statement returned besides its rows (rows affected, last insert id, warnings;
    /// the result set holds the columns only), once every row has been read.
    pub fn outcome(&self) -> Option<&ExecResult> {
        self.outcome.as_ref()
    }

    /// Whether [`next`](Self::next) has something at hand (a row, or the end) rather than having
    /// to wait for the server; a caller can read what has arrived without waiting for more.
    pub fn is_ready(&self) -> bool {
        !self.rows.is_empty()
            || self.finished
            || self.conn.inner.state.lock().core.stream_ready(self.id)
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
