//! The bounded pool of backend connections.
//!
//! At most [`PoolOptions::size`] connections are open at once, idle or borrowed. A borrower that
//! finds none idle opens one if the bound allows, else waits on a condition variable until one is
//! given back or discarded, up to [`PoolOptions::wait_timeout`] (→ [`codes::BACKEND_BUSY`]). An
//! idle connection older than the lifetime is closed instead of lent; one idle longer than
//! [`PoolOptions::ping_after_idle`] is pinged first, and replaced when the ping fails. Once a lent
//! connection is found broken, every connection idle since then is pinged before it is lent too:
//! after a backend restart, statements then get fresh connections instead of each finding a
//! dead idle one (2013).
//!
//! A failed connect starts a backoff: until it ends (100 ms, doubling to 5 s, reset by a
//! successful connect) statements that need a new connection fail at once with the last connect
//! error instead of each trying again, so a backend that is down or at `max_connections` is not
//! hit by a retry storm; once it is back, the next attempt after the pause reconnects.
//!
//! Invariant: `open` counts every connection that exists (idle, borrowed, or being opened), so
//! every path that drops a [`Backend`] outside the pool goes through [`Pool::discard_lent`] (or
//! [`Pool::give_back`], which may discard) and wakes one waiter.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mysql::consts::CapabilityFlags;
use mysql::{Conn, Opts, OptsBuilder};
use parking_lot::{Condvar, Mutex, RwLock};
use xrpc_proto::codes;

use xrpc_engine::result::SqlError;

/// The statement run on every new backend connection (and again after every
/// COM_RESET_CONNECTION): the session trackers the engine learns session state from.
pub const TRACKING_INIT: &str = "SET SESSION session_track_state_change = ON, \
     session_track_schema = ON, session_track_system_variables = '*', \
     session_track_transaction_info = 'CHARACTERISTICS'";

/// The message of [`codes::BACKEND_BUSY`]: no backend connection had room for a statement
/// within `waited`, with `size` connections at most.
pub(crate) fn backend_busy_message(waited: Duration, size: usize) -> String {
    format!(
        "No backend connection became free within {} ms: all {size} are busy \
         (xrpc_backend_pool_size); retry, or raise the pool size",
        waited.as_millis()
    )
}

/// How the pool opens and keeps backend connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most backend connections open at once; 16 by default.
    pub size: usize,
    /// How long a TCP connect may take; 5 s by default.
    pub connect_timeout: Duration,
    /// How long a statement waits for a free connection before failing; 10 s by default.
    pub wait_timeout: Duration,
    /// A connection older than this is closed when given back or found idle; 30 min by default.
    pub lifetime: Duration,
    /// An idle connection unused for longer than this is pinged before it is lent; 5 s by default.
    pub ping_after_idle: Duration,
    /// Backend connections the event-loop driver ([`crate::driver`]) opens at the start: it
    /// answers statements without a worker waiting, those of sessions that need one on a
    /// connection of their own, and opens more by demand up to [`PoolOptions::size`]; 8 by
    /// default; 0 turns it off, and every statement borrows a pooled connection; when on, at
    /// least 2 (a kill of a statement in flight goes out on another connection).
    pub driver_connections: usize,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            size: 16,
            connect_timeout: Duration::from_secs(5),
            wait_timeout: Duration::from_secs(10),
            lifetime: Duration::from_secs(30 * 60),
            ping_after_idle: Duration::from_secs(5),
            driver_connections: 8,
        }
    }
}

/// Counters of the pool, for SHOW STATUS and /metrics.
#[derive(Debug, Default)]
pub struct PoolCounters {
    /// Connections borrowed by sessions (each statement, or pinned).
    pub borrowed: AtomicU64,
    /// Connections held by sessions between statements because of session state.
    pub pinned: AtomicU64,
    /// Times a statement had to wait for a free connection.
    pub waits: AtomicU64,
    /// Total microseconds spent in those waits.
    pub wait_micros: AtomicU64,
    /// Waits by duration, in the buckets of [`WAIT_BUCKETS_MS`].
    pub wait_histogram: [AtomicU64; WAIT_BUCKETS],
    /// Waits that ran out ([`codes::BACKEND_BUSY`]).
    pub wait_timeouts: AtomicU64,
    /// Connections opened, the first ones included.
    pub connects: AtomicU64,
    /// Connections opened to replace one that was lost, failed a ping, or expired.
    pub reconnects: AtomicU64,
    /// Failed attempts to open a connection.
    pub connect_errors: AtomicU64,
    /// Connections lost during a statement or a ping.
    pub lost: AtomicU64,
    /// Statements that ended in an error from the backend.
    pub backend_errors: AtomicU64,
    /// Statements sent and round trips made on pooled connections ([`Pool::count_statement`],
    /// [`Pool::count_round_trips`]), striped: every statement adds to them.
    traffic: xrpc_net::StripedCounters<2>,
}

/// Index of the statements in `PoolCounters::traffic`.
const STATEMENTS: usize = 0;
/// Index of the round trips in `PoolCounters::traffic`.
const ROUND_TRIPS: usize = 1;

/// Round trips of [`Backend::reset`]: COM_RESET_CONNECTION, then [`TRACKING_INIT`].
pub const RESET_ROUND_TRIPS: u64 = 2;

/// A snapshot of the pool: what SHOW STATUS will show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Connections open (idle and borrowed).
    pub open: u64,
    /// Idle connections in the pool.
    pub idle: u64,
    /// Connections lent out (per statement or pinned).
    pub borrowed: u64,
    /// Connections pinned to a session by its state.
    pub pinned: u64,
    /// Waits for a free connection.
    pub waits: u64,
    /// Microseconds spent waiting, in total.
    pub wait_micros: u64,
    /// Waits by duration: bucket `i` counts waits up to [`WAIT_BUCKETS_MS`]`[i]` ms, the last
    /// one longer waits.
    pub wait_histogram: [u64; WAIT_BUCKETS],
    /// Waits that timed out.
    pub wait_timeouts: u64,
    /// Connections opened.
    pub connects: u64,
    /// Replacement connections opened.
    pub reconnects: u64,
    /// Failed connection attempts.
    pub connect_errors: u64,
    /// Connections lost.
    pub lost: u64,
    /// Statements that failed with a backend error.
    pub backend_errors: u64,
    /// Statements sent to the backend: the clients' (as rewritten) and the plan compiler's
    /// catalog reads.
    pub statements: u64,
    /// Commands sent on pooled connections, each one round trip: the statements, and the
    /// resets, database changes, session-variable replays and pings around them (opening a
    /// connection and the side connection of `KILL QUERY` are not counted).
    pub round_trips: u64,
}

impl PoolStats {
    /// The `SHOW STATUS` rows, `xrpc_backend_<name>`: `open`, `idle`, `borrowed`, `pinned`,
    /// `waits`, `wait_time_us` (total), `wait_timeouts`, `connects`, `reconnects`,
    /// `connect_errors`, `lost`, `errors` (statements the backend failed), `statements` and
    /// `round_trips` (see [`PoolStats::round_trips`]). The wait
    /// histogram is left to the metrics endpoint.
    pub fn status_rows(&self) -> Vec<(String, String)> {
        [
            ("open", self.open),
            ("idle", self.idle),
            ("borrowed", self.borrowed),
            ("pinned", self.pinned),
            ("waits", self.waits),
            ("wait_time_us", self.wait_micros),
            ("wait_timeouts", self.wait_timeouts),
            ("connects", self.connects),
            ("reconnects", self.reconnects),
            ("connect_errors", self.connect_errors),
            ("lost", self.lost),
            ("errors", self.backend_errors),
            ("statements", self.statements),
            ("round_trips", self.round_trips),
        ]
        .into_iter()
        .map(|(name, value)| (format!("xrpc_backend_{name}"), value.to_string()))
        .collect()
    }
}

/// One backend connection and what the engine knows of its session state.
pub struct Backend {
    /// The connection.
    pub conn: Conn,
    /// The backend's thread id, for `KILL QUERY`.
    pub thread_id: u32,
    opened_at: Instant,
    last_used: Instant,
    /// Session variables changed from their values on a fresh connection, as the tracker
    /// reported them.
    pub vars: BTreeMap<String, String>,
    /// The current database, once changed from the connection's default.
    pub schema: Option<String>,
    /// State that pins the connection to its session, if any (see [`super::state`]).
    pub state: super::state::PinState,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("thread_id", &self.thread_id)
            .field("vars", &self.vars)
            .field("schema", &self.schema)
            .field("state", &self.state)
            .finish()
    }
}

impl Backend {
    /// Whether the connection is as a fresh one: nothing to reset before another session uses it.
    pub fn is_clean(&self) -> bool {
        self.vars.is_empty() && self.schema.is_none() && !self.state.pins()
    }

    /// COM_RESET_CONNECTION (which rolls back, drops temp tables, user variables, prepared
    /// statements and locks, and restores the session variables and database of a fresh
    /// connection), then the tracking settings again.
    pub fn reset(&mut self) -> Result<(), mysql::Error> {
        self.conn.reset()?;
        self.vars.clear();
        self.schema = None;
        self.state = super::state::PinState::default();
        Ok(())
    }
}

#[derive(Default)]
struct PoolState {
    idle: Vec<Backend>,
    /// Idle, borrowed and being opened.
    open: usize,
    /// Connections lost or expired and not yet replaced: the next ones opened count as
    /// reconnects.
    to_replace: usize,
    /// When a lent connection was last found broken. Idle connections last used before then
    /// are pinged before they are lent: a backend that restarted broke them all, and a statement
    /// should not find that out one idle connection at a time.
    lost_at: Option<Instant>,
}

/// The bounded pool.
pub struct Pool {
    opts: Opts,
    /// Changed at runtime by `SET GLOBAL` (see [`Pool::set_options`]); read at each use.
    options: RwLock<PoolOptions>,
    state: Mutex<PoolState>,
    freed: Condvar,
    backoff: Mutex<Backoff>,
    /// The counters.
    pub counters: PoolCounters,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("options", &*self.options.read())
            .field("stats", &self.stats())
            .finish()
    }
}

/// Upper bounds, in milliseconds, of the buckets of [`PoolStats::wait_histogram`]; the last
/// bucket holds longer waits.
pub const WAIT_BUCKETS_MS: [u64; WAIT_BUCKETS - 1] =
    [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
/// Buckets of the wait histogram.
pub const WAIT_BUCKETS: usize = 13;

fn wait_bucket(micros: u64) -> usize {
    WAIT_BUCKETS_MS
        .iter()
        .position(|&ms| micros <= ms * 1000)
        .unwrap_or(WAIT_BUCKETS - 1)
}

/// The first pause after a failed connect; it doubles up to [`BACKOFF_MAX`].
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// When the next connection attempt may be made.
#[derive(Debug, Default)]
struct Backoff {
    pause: Duration,
    until: Option<Instant>,
    last: Option<SqlError>,
}

/// How often a waiting borrower checks whether its statement was killed.
const WAIT_SLICE: Duration = Duration::from_millis(50);

impl Pool {
    /// A pool connecting with `opts` (user, password, host, port, database); the tracking
    /// settings, connect timeout and capabilities are added here.
    pub fn new(opts: Opts, options: PoolOptions) -> Self {
        let opts = OptsBuilder::from_opts(opts)
            .tcp_connect_timeout(Some(options.connect_timeout))
            .additional_capabilities(CapabilityFlags::CLIENT_SESSION_TRACK)
            .init(vec![TRACKING_INIT])
            .into();
        Self {
            opts,
            options: RwLock::new(options),
            state: Mutex::new(PoolState::default()),
            freed: Condvar::new(),
            backoff: Mutex::new(Backoff::default()),
            counters: PoolCounters::default(),
        }
    }

    /// The options in force.
    pub fn options(&self) -> PoolOptions {
        self.options.read().clone()
    }

    /// Puts new options in force. The connect timeout applies only to the pool's first
    /// connection (it is part of the connection options); the rest apply to the next use.
    /// A larger size wakes the statements waiting for a connection, which may now open one. A
    /// smaller size closes idle connections beyond it at once; borrowed connections are never
    /// taken from their session: each is closed when given back while more are open than the new
    /// size allows.
    pub fn set_options(&self, options: PoolOptions) {
        let size = options.size;
        *self.options.write() = options;
        let surplus: Vec<Backend> = {
            let mut state = self.state.lock();
            let excess = state.open.saturating_sub(size).min(state.idle.len());
            let keep = state.idle.len() - excess;
            state.idle.split_off(keep)
        };
        for backend in surplus {
            self.forget(backend);
        }
        self.freed.notify_all();
    }

    /// The connection options (for the side connection that sends `KILL QUERY`).
    pub fn opts(&self) -> &Opts {
        &self.opts
    }

    /// Opens a connection outside the pool's bound (start-up check, kills).
    pub fn connect_unpooled(&self) -> Result<Conn, SqlError> {
        Conn::new(self.opts.clone()).map_err(|err| {
            self.counters.connect_errors.fetch_add(1, Ordering::Relaxed);
            connect_error(&self.opts, &err)
        })
    }

    /// Lends a connection, opening or waiting for one as needed. `killed` is polled while
    /// waiting: a killed statement stops waiting with 1317.
    pub fn acquire(&self, killed: &dyn Fn() -> bool) -> Result<Backend, SqlError> {
        let mut waited_since: Option<Instant> = None;
        let options = self.options();
        let deadline = Instant::now() + options.wait_timeout;
        let mut state = self.state.lock();
        loop {
            if let Some(mut backend) = state.idle.pop() {
                let state_lost_at = state.lost_at;
                drop(state);
                let suspect = state_lost_at.is_some_and(|lost| backend.last_used <= lost);
                if backend.opened_at.elapsed() >= options.lifetime {
                    self.discard_for_replacement(backend);
                } else if (suspect || backend.last_used.elapsed() >= options.ping_after_idle) && {
                    self.count_round_trips(1);
                    backend.conn.ping().is_err()
                } {
                    self.counters.lost.fetch_add(1, Ordering::Relaxed);
                    self.state.lock().lost_at = Some(Instant::now());
                    self.discard_for_replacement(backend);
                } else {
                    self.lent(waited_since);
                    return Ok(backend);
                }
                state = self.state.lock();
                continue;
            }
            // Read again: a SET GLOBAL may have grown the pool while this statement waited.
            let size = self.options.read().size;
            if state.open < size {
                state.open += 1;
                drop(state);
                return match self.open_backend() {
                    Ok(backend) => {
                        let replacing = {
                            let mut state = self.state.lock();
                            let replacing = state.to_replace > 0;
                            state.to_replace = state.to_replace.saturating_sub(1);
                            replacing
                        };
                        if replacing {
                            self.counters.reconnects.fetch_add(1, Ordering::Relaxed);
                        }
                        self.lent(waited_since);
                        Ok(backend)
                    }
                    Err(err) => {
                        self.forget_one();
                        Err(err)
                    }
                };
            }
            let now = Instant::now();
            if waited_since.is_none() {
                waited_since = Some(now);
                self.counters.waits.fetch_add(1, Ordering::Relaxed);
            }
            if killed() {
                self.record_wait(waited_since);
                return Err(SqlError::new(
                    &codes::QUERY_INTERRUPTED,
                    codes::QUERY_INTERRUPTED.message,
                ));
            }
            if now >= deadline {
                self.record_wait(waited_since);
                self.counters.wait_timeouts.fetch_add(1, Ordering::Relaxed);
                return Err(SqlError::new(
                    &codes::BACKEND_BUSY,
                    backend_busy_message(options.wait_timeout, size),
                ));
            }
            let slice = (deadline - now).min(WAIT_SLICE);
            self.freed.wait_for(&mut state, slice);
        }
    }

    fn lent(&self, waited_since: Option<Instant>) {
        self.record_wait(waited_since);
        self.counters.borrowed.fetch_add(1, Ordering::Relaxed);
    }

    fn record_wait(&self, waited_since: Option<Instant>) {
        if let Some(since) = waited_since {
            let micros = u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
            self.counters
                .wait_micros
                .fetch_add(micros, Ordering::Relaxed);
            self.counters.wait_histogram[wait_bucket(micros)].fetch_add(1, Ordering::Relaxed);
        }
    }

    fn open_backend(&self) -> Result<Backend, SqlError> {
        // After a failed connect, others fail at once with the same error until the backoff
        // pause ends: a backend that is down or full gets one attempt per pause, not a storm.
        {
            let backoff = self.backoff.lock();
            if let (Some(until), Some(last)) = (backoff.until, &backoff.last) {
                let left = until.saturating_duration_since(Instant::now());
                if !left.is_zero() {
                    let mut err = last.clone();
                    err.message = format!(
                        "{} (the next attempt to connect is in {} ms)",
                        err.message,
                        left.as_millis()
                    );
                    return Err(err);
                }
            }
        }
        let conn = match self.connect_unpooled() {
            Ok(conn) => {
                *self.backoff.lock() = Backoff::default();
                conn
            }
            Err(err) => {
                let mut backoff = self.backoff.lock();
                backoff.pause = (backoff.pause * 2).clamp(BACKOFF_MIN, BACKOFF_MAX);
                backoff.until = Some(Instant::now() + backoff.pause);
                backoff.last = Some(err.clone());
                return Err(err);
            }
        };
        self.counters.connects.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        Ok(Backend {
            thread_id: conn.connection_id(),
            conn,
            opened_at: now,
            last_used: now,
            vars: BTreeMap::new(),
            schema: None,
            state: super::state::PinState::default(),
        })
    }

    /// Takes back a lent connection. A connection that still holds session state is reset
    /// first (closed if that fails); an expired one is closed.
    pub fn give_back(&self, mut backend: Backend) {
        self.counters.borrowed.fetch_sub(1, Ordering::Relaxed);
        if backend.state.pins() {
            self.count_round_trips(RESET_ROUND_TRIPS);
            if let Err(err) = backend.reset() {
                tracing::warn!(%err, "closing a backend connection that could not be reset");
                self.forget(backend);
                return;
            }
        }
        let options = self.options();
        if backend.opened_at.elapsed() >= options.lifetime {
            self.forget(backend);
            return;
        }
        backend.last_used = Instant::now();
        let mut state = self.state.lock();
        if state.open > options.size {
            // The pool was shrunk while this connection was lent: it goes now.
            drop(state);
            self.forget(backend);
            return;
        }
        state.idle.push(backend);
        drop(state);
        self.freed.notify_one();
    }

    /// Closes a lent connection that broke; the next one opened counts as a reconnect, and the
    /// idle ones are pinged before they are lent again (they may have broken the same way).
    pub fn discard_lent(&self, backend: Backend) {
        self.counters.borrowed.fetch_sub(1, Ordering::Relaxed);
        self.state.lock().lost_at = Some(Instant::now());
        self.discard_for_replacement(backend);
    }

    /// Closes a connection that broke or expired; the next one opened counts as a reconnect.
    fn discard_for_replacement(&self, backend: Backend) {
        drop(backend);
        let mut state = self.state.lock();
        state.open -= 1;
        state.to_replace += 1;
        drop(state);
        self.freed.notify_one();
    }

    fn forget(&self, backend: Backend) {
        // Closing sends COM_QUIT; not under the lock.
        drop(backend);
        self.forget_one();
    }

    fn forget_one(&self) {
        self.state.lock().open -= 1;
        self.freed.notify_one();
    }

    /// Closes idle connections past their lifetime; returns how many.
    pub fn sweep_expired(&self) -> usize {
        let lifetime = self.options.read().lifetime;
        let expired: Vec<Backend> = {
            let mut state = self.state.lock();
            let (old, young): (Vec<_>, Vec<_>) = std::mem::take(&mut state.idle)
                .into_iter()
                .partition(|b| b.opened_at.elapsed() >= lifetime);
            state.idle = young;
            old
        };
        let closed = expired.len();
        for backend in expired {
            self.forget(backend);
        }
        closed
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> PoolStats {
        let (open, idle) = {
            let state = self.state.lock();
            (state.open as u64, state.idle.len() as u64)
        };
        let c = &self.counters;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let traffic = c.traffic.sum();
        PoolStats {
            open,
            idle,
            borrowed: load(&c.borrowed),
            pinned: load(&c.pinned),
            waits: load(&c.waits),
            wait_micros: load(&c.wait_micros),
            wait_histogram: std::array::from_fn(|i| load(&c.wait_histogram[i])),
            wait_timeouts: load(&c.wait_timeouts),
            connects: load(&c.connects),
            reconnects: load(&c.reconnects),
            connect_errors: load(&c.connect_errors),
            lost: load(&c.lost),
            backend_errors: load(&c.backend_errors),
            statements: traffic[STATEMENTS],
            round_trips: traffic[ROUND_TRIPS],
        }
    }

    /// Counts a statement sent on a pooled connection (one round trip).
    pub fn count_statement(&self) {
        let stripe = self.counters.traffic.stripe();
        stripe[STATEMENTS].fetch_add(1, Ordering::Relaxed);
        stripe[ROUND_TRIPS].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts `n` other commands sent on a pooled connection.
    pub fn count_round_trips(&self, n: u64) {
        self.counters.traffic.add(ROUND_TRIPS, n);
    }
}

/// The error for a failed connect: the server's own error when it answered (1045 access denied,
/// 1040 too many connections, …), else 2003 with the driver's words.
pub fn connect_error(opts: &Opts, err: &mysql::Error) -> SqlError {
    match err {
        mysql::Error::MySqlError(e) => SqlError {
            code: u32::from(e.code),
            sql_state: e.state.clone(),
            message: e.message.clone(),
        },
        other => SqlError::new(
            &codes::BACKEND_UNREACHABLE,
            format!(
                "Can't connect to the backend MySQL server on '{}:{}' ({other})",
                opts.get_ip_or_hostname(),
                opts.get_tcp_port()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_fall_into_their_buckets() {
        assert_eq!(wait_bucket(0), 0);
        assert_eq!(wait_bucket(1000), 0);
        assert_eq!(wait_bucket(1001), 1);
        assert_eq!(wait_bucket(5_000_000), WAIT_BUCKETS - 2);
        assert_eq!(wait_bucket(5_000_001), WAIT_BUCKETS - 1);
    }

    #[test]
    fn a_refused_connect_backs_off_instead_of_retrying_at_once() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let pool = Pool::new(
            Opts::from_url(&format!("mysql://root@127.0.0.1:{port}")).unwrap(),
            PoolOptions::default(),
        );
        let first = pool.acquire(&|| false).unwrap_err();
        assert_eq!(first.code, codes::BACKEND_UNREACHABLE.code);
        let second = pool.acquire(&|| false).unwrap_err();
        assert_eq!(second.code, first.code);
        assert!(
            second.message.contains("next attempt"),
            "{}",
            second.message
        );
        // Only the first one tried.
        assert_eq!(pool.stats().connect_errors, 1);
        assert_eq!(pool.stats().open, 0);
    }
}
