//! A pool of connections and sessions for one data node (blocking transport).
//!
//! # Rules
//!
//! - Up to [`max_connections`](PoolOptions::max_connections) TCP connections (default 4), opened
//!   lazily, and up to [`max_sessions_per_connection`](PoolOptions::max_sessions_per_connection)
//!   sessions on each (default 1024), idle ones included. A new session goes to the connection
//!   with the fewest sessions; a new connection is opened only when every live one is full.
//! - A session handle dropped **clean** returns to the idle list: nothing in flight or unread, no
//!   transaction open (the client tracks `BEGIN`, `START TRANSACTION`, `COMMIT`, `ROLLBACK` and
//!   `SET autocommit` as it sends them), and no error stored on the server. Anything else is closed
//!   with SESS_CLOSE, which makes the server roll back, so a dirty session is never handed out
//!   again. Idle sessions are reused last-in first-out, which keeps the working set small.
//! - New sessions need no round trip: SESS_NEW rides along with their first statement.
//! - [`query_once`](Pool::query_once) runs a statement on an auto-commit sid of the least busy
//!   connection: no session is held, and the server runs it in a shared session. When every live
//!   connection is busy and there is room, the pool opens another.
//! - Each connection's reader thread sends the heartbeat (`CapabilitiesGet` after 10 s without a
//!   frame) and declares the connection lost after 5 unanswered probes in a row; idle connections
//!   are therefore checked without any pool thread.
//! - A broken connection fails every session on it with a connection-lost error naming the cause.
//!   The pool drops it (and its idle sessions) on the next call and connects again when it needs
//!   to, so callers recover by retrying.
//! - When every connection and session slot is taken, [`session`](Pool::session) fails at once
//!   with an error whose `is_pool_exhausted()` is true, rather than queueing callers.

use std::fmt;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::blocking::{Connection, Session, SessionHome};
use crate::error::ClientError;
use crate::options::ConnectOptions;
use crate::types::{ExecResult, Param, ResultSet, SessionId};

/// Sizing of a [`Pool`].
///
/// ```
/// use xrpc_client::ConnectOptions;
/// use xrpc_client::pool::PoolOptions;
///
/// let opts = PoolOptions::new(ConnectOptions::new("app", "secret")).max_connections(8);
/// assert_eq!(opts.max_sessions_per_connection, 1024);
/// ```
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// How every connection connects.
    pub connect: ConnectOptions,
    /// TCP connections to the node, at most.
    pub max_connections: usize,
    /// Sessions per connection, at most (idle ones included).
    pub max_sessions_per_connection: usize,
}

impl PoolOptions {
    /// 4 connections of up to 1024 sessions each.
    pub fn new(connect: ConnectOptions) -> Self {
        Self {
            connect,
            max_connections: 4,
            max_sessions_per_connection: 1024,
        }
    }

    /// Sets the connection limit.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Sets the per-connection session limit.
    pub fn max_sessions_per_connection(mut self, n: usize) -> Self {
        self.max_sessions_per_connection = n.max(1);
        self
    }
}

/// Connections and sessions for one data node. Cloning gives another handle to the same pool.
///
/// ```no_run
/// use xrpc_client::ConnectOptions;
/// use xrpc_client::pool::{Pool, PoolOptions};
///
/// let pool = Pool::new("10.0.0.7:33660", PoolOptions::new(ConnectOptions::new("app", "secret")));
/// {
///     let mut session = pool.session()?;
///     session.execute("insert into t values (?)", &[1i64.into()])?;
/// } // clean: back to the pool
/// let count = pool.query_once("select count(*) from t")?;
/// println!("{:?}", count.rows[0][0]);
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
#[derive(Clone)]
pub struct Pool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    addr: String,
    options: PoolOptions,
    state: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    conns: Vec<Connection>,
    idle: Vec<(Connection, SessionId)>,
    /// Connections being opened, counted against the limit.
    connecting: usize,
}

/// A snapshot of a pool, for monitoring and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// Live connections.
    pub connections: usize,
    /// Sessions on live connections, idle ones included.
    pub sessions: usize,
    /// Idle sessions ready for reuse.
    pub idle_sessions: usize,
}

/// Sends dropped clean sessions back to their pool.
struct Home {
    pool: Weak<PoolInner>,
}

impl Pool {
    /// A pool for the node at `addr` (`host:port`). Nothing connects until first use.
    pub fn new(addr: impl Into<String>, options: PoolOptions) -> Self {
        Self {
            inner: Arc::new(PoolInner {
                addr: addr.into(),
                options,
                state: Mutex::new(PoolState::default()),
            }),
        }
    }

    /// The node's address.
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// A clean session: an idle one if there is one, else a new one.
    pub fn session(&self) -> Result<Session, ClientError> {
        let home: Arc<dyn SessionHome> = Arc::new(Home {
            pool: Arc::downgrade(&self.inner),
        });
        let mut state = self.inner.state.lock();
        state.prune();
        // Idle sessions that went bad meanwhile (killed, failed by a FATAL) are closed after the
        // pool lock is released, since closing writes to the socket.
        let mut stale = Vec::new();
        let mut reused = None;
        while let Some((conn, sid)) = state.idle.pop() {
            if conn.is_session_clean(sid) {
                reused = Some(conn.adopt_session(sid, Arc::clone(&home)));
                break;
            }
            stale.push((conn, sid));
        }
        if reused.is_some() || !stale.is_empty() {
            drop(state);
            for (conn, sid) in stale {
                conn.close_session(sid);
            }
            if let Some(session) = reused {
                return Ok(session);
            }
            state = self.inner.state.lock();
        }
        let max = self.inner.options.max_sessions_per_connection;
        let roomiest = state
            .conns
            .iter()
            .map(|c| (c.session_count(), c))
            .filter(|(n, _)| *n < max)
            .min_by_key(|(n, _)| *n)
            .map(|(_, c)| c.clone());
        if let Some(conn) = roomiest {
            drop(state);
            return conn.session_with_home(home);
        }
        drop(state);
        let conn = self.connect_one(|state| {
            ClientError::pool_exhausted(format!(
                "{}: {} connections with {max} sessions each are in use",
                self.inner.addr,
                state.conns.len()
            ))
        })?;
        conn.session_with_home(home)
    }

    /// Runs one statement on an auto-commit sid and returns its rows.
    pub fn query_once(&self, sql: &str) -> Result<ResultSet, ClientError> {
        self.execute_once(sql, &[]).map(ExecResult::into_result_set)
    }

    /// Runs one statement with arguments on an auto-commit sid.
    pub fn execute_once(&self, sql: &str, args: &[Param]) -> Result<ExecResult, ClientError> {
        self.least_busy()?.execute_once(sql, args)
    }

    /// Connections, sessions and idle sessions right now.
    pub fn status(&self) -> PoolStatus {
        let mut state = self.inner.state.lock();
        state.prune();
        PoolStatus {
            connections: state.conns.len(),
            sessions: state.conns.iter().map(Connection::session_count).sum(),
            idle_sessions: state.idle.len(),
        }
    }

    /// The least busy live connection, opening another when all are busy and there is room.
    fn least_busy(&self) -> Result<Connection, ClientError> {
        let mut state = self.inner.state.lock();
        state.prune();
        let best = state
            .conns
            .iter()
            .map(|c| (c.requests_in_flight(), c))
            .min_by_key(|(n, _)| *n)
            .map(|(n, c)| (n, c.clone()));
        let room = state.conns.len() + state.connecting < self.inner.options.max_connections;
        match best {
            Some((0, conn)) => return Ok(conn),
            Some((_, conn)) if !room => return Ok(conn),
            _ => {}
        }
        drop(state);
        let fallback = best.map(|(_, c)| c);
        match self.connect_one(|_| ClientError::pool_exhausted("no connection slot")) {
            Ok(conn) => Ok(conn),
            Err(err) => fallback.ok_or(err),
        }
    }

    /// Opens a connection if the limit allows; `full` builds the error when it does not.
    fn connect_one(
        &self,
        full: impl FnOnce(&PoolState) -> ClientError,
    ) -> Result<Connection, ClientError> {
        {
            let mut state = self.inner.state.lock();
            if state.conns.len() + state.connecting >= self.inner.options.max_connections {
                return Err(full(&state));
            }
            state.connecting += 1;
        }
        // Connecting takes a round trip or more: not under the pool lock.
        let result =
            Connection::connect(self.inner.addr.as_str(), self.inner.options.connect.clone());
        let mut state = self.inner.state.lock();
        state.connecting -= 1;
        let conn = result?;
        state.conns.push(conn.clone());
        Ok(conn)
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("addr", &self.inner.addr)
            .field("status", &self.status())
            .finish()
    }
}

impl PoolState {
    /// Forgets broken connections and the idle sessions on them.
    fn prune(&mut self) {
        self.conns.retain(|c| !c.is_broken());
        self.idle.retain(|(c, _)| !c.is_broken());
    }
}

impl SessionHome for Home {
    fn give_back(&self, conn: Connection, sid: SessionId) {
        match self.pool.upgrade() {
            Some(pool) => {
                let mut state = pool.state.lock();
                if state.conns.iter().any(|c| c.same_as(&conn)) {
                    state.idle.push((conn, sid));
                    return;
                }
                drop(state);
                conn.close_session(sid);
            }
            None => conn.close_session(sid),
        }
    }
}
