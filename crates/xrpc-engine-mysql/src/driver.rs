//! The backend driver on the event loop: backend connections whose sockets are registered in the
//! node's epoll groups ([`xrpc_net::outbound`]), each an [`xrpc_mysql_proto::Connection`] state
//! machine, with the statements of many submitters pipelined on each.
//!
//! # Design
//!
//! - **No thread waits on the backend.** [`Driver::submit`] puts a statement into a backend
//!   connection's state machine and kicks its socket at the end of the submitting worker's turn
//!   (`OutboundSocket::kick_at_turn_end`; at once on any other thread): the statements a turn
//!   places on one connection go out in one write, and the backend reads them in one read. The
//!   kick writes the bytes if the socket's gate is free, or leaves them to the thread that holds
//!   it. The answer is read by whichever worker of the socket's group takes the readability
//!   event, and handed to the statement's [`Completion`] on that worker.
//! - **Pipelining up to a depth, filling before spreading.** A statement goes to the deepest
//!   open connection below [`DriverOptions::fill_depth`] that still holds statements not
//!   written yet (placed in this worker's turn; or whose head statement has run for less than
//!   [`DriverOptions::fill_stall`], zero by default), else to the one with the fewest commands
//!   in flight; either must accept more (below [`DriverOptions::max_depth`], and not streaming
//!   a large result: `Connection::accepts_more`). So the statements a turn places go out
//!   together in one write, and the backend's thread runs them without sleeping and waking
//!   per statement, while a statement never lands behind one that was already sent and may be
//!   slow when another connection has nothing in flight. The connection the last placement
//!   chose is tried first and taken while it can still be filled that way (one worker's turn
//!   filling one connection, the common case), so most placements look at one connection
//!   rather than rank them all.
//!   Answers are matched in order by
//!   the state machine; each command ends with exactly one terminal event, so each completion
//!   gets exactly one [`Completion::on_done`]. When no connection has room the statement waits
//!   in the driver's queue, in submission order, and goes out as soon as a command ends
//!   anywhere. Submit and the drain after a command ends both decide under the queue's lock,
//!   so a statement never waits while a connection has room.
//! - **Queue timeout.** A statement that waits in the driver's queue for
//!   [`DriverOptions::queue_timeout`] ends with 7009 (`xrpc_backend_wait_timeout`; changed at
//!   runtime by [`Driver::set_queue_timeout`]). There is no timer per statement: the queue is in submission order, so
//!   the expired statements are at its front, and they are taken off it whenever the queue's
//!   lock is taken anyway (a submit that finds statements waiting, the drain after a command
//!   ends) and by the driver's periodic tick ([`Driver::tick`], a timer of the first group),
//!   which ends them when no command ends for a while (a backend that hangs or is down).
//! - **Only statements that need no session state, unless pinned.** Every statement submitted
//!   with [`Driver::submit`] is written onto a shared connection, between other submitters'
//!   statements: the caller submits that way only statements of sessions that hold no backend
//!   state. A statement that leaves state on its connection is the caller's to detect from the
//!   OK data ([`crate::state`]). A session that holds state (a transaction, a variable) takes a
//!   connection for itself with [`Driver::pin`]: no statement of the shared rotation is placed
//!   there, the session's statements ([`Pinned::submit`]) go only there, and
//!   [`Pinned::unpin`] gives it back after COM_RESET_CONNECTION and the trackers' set-up, or
//!   closes it (and reconnects its slot) when either fails; no statement is placed behind a
//!   reset that may fail. When none can be taken,
//!   [`Driver::pin_when_free`] queues the session's request in the pin queue, in order: a
//!   connection given back, or one that logs in, serves its front (the tick too); a request
//!   ends with 7009 after the queue timeout, 1317 when cancelled, the connect error during an
//!   outage, so no thread waits for a connection to pin.
//! - **Parking.** A session's connection given back with nothing pinning it but its database
//!   or session variables ([`Pinned::park_at`], a [`Level`]) is parked rather than reset: the
//!   next session at that very level ([`Driver::pin_at`]) takes it as it is, without a `USE`
//!   or a `SET`, so a session that changed a variable costs no reset per statement. A parked
//!   connection is in no rotation; a pin at another level that finds no other connection
//!   resets one back into the rotation (and waits in the pin queue for it), statements waiting
//!   in the driver's queue take the first one back (reset), and the tick resets those parked
//!   for longer than a second. A connection is parked only when its session knows what it
//!   holds: after a statement that failed, it is reset.
//! - **Sizing.** Between [`DriverOptions::min_connections`] (opened at start) and
//!   [`DriverOptions::connections`] the number of open connections follows demand. One more
//!   opens when a statement has to wait in the queue (checked by the submit that queued it, the
//!   drain that left statements waiting, a pin, and the tick), or when the statements placed
//!   since the last tick found their connection at an average depth above
//!   [`DriverOptions::grow_at_depth`]; one at a time: not while another is still logging in or
//!   waiting to reconnect. The tick closes connections beyond the minimum that are neither
//!   pinned nor busy and have had nothing in flight for [`DriverOptions::idle_close_after`]
//!   (taken out of their slot first, so nothing is placed there, then sent COM_QUIT).
//!   [`Driver::set_size`] changes the most at runtime: slots are allocated up to
//!   [`MAX_CONNECTIONS`] at the start, scans cover the largest size set so far, and the tick
//!   closes the quiet connections above a size that shrank (never one with a statement in
//!   flight or held by a session). It also replaces, in the same slot, a quiet connection open
//!   for [`DriverOptions::lifetime`].
//! - **One result per statement.** The completion sees the first result's columns and rows;
//!   further results of the same statement (a CALL, several statements) are read and dropped.
//! - **Kill.** [`Driver::cancel`] removes a statement still waiting in the driver's queue (it
//!   ends at once with 1317), withdraws one whose bytes were not written yet (1317), and kills
//!   one that was sent with MariaDB's `KILL QUERY ID`, which stops exactly that statement and
//!   not the one pipelined behind it: every statement is sent marked (`/*xrpc-q<n>*/`), and
//!   another backend connection of the driver looks the marked statement's query id up in
//!   `information_schema.PROCESSLIST` and kills it (looking again while the statement has not
//!   started). The killed statement's own answer (1317) is its terminal event.
//! - **Faults.** When a connection is lost every statement in flight on it ends with 2013, the
//!   statements waiting in the driver's queue stay queued, and the connection's slot is
//!   reconnected after a pause that doubles from [`DriverOptions::reconnect_min`] up to
//!   [`DriverOptions::reconnect_max`] while connects fail, and is reset by a login. A connect
//!   or login that fails while no connection of the shared rotation is logged in ends the
//!   statements waiting in the queue with 2003 (or the server's refusal, 1040, 1045, …), and
//!   until a login succeeds a statement that finds no room fails so at once: during an outage
//!   nobody waits for the queue timeout. Whatever else is logged in, a session that needs a
//!   connection of its own and finds none to take fails with the last connect error at once
//!   until a login succeeds (the connect that would serve it failed; the slot's next attempt
//!   comes after its pause), so a backend at `max_connections` sees one attempt per pause, not
//!   one per statement.
//!   Locks are taken in one order: the queue's, then a slot's, then a connection's state; a
//!   connection's handler lets its state go before it takes its slot's or the queue's.
//! - **Completions run on the reading worker,** in answer order: columns and rows under the
//!   connection's lock, the terminal call after it. A row may block (a session waiting for its
//!   client's flow-control offer, or a full client socket, inside the stall guard): then the
//!   statements pipelined behind it on that connection wait, and nothing else does. The
//!   connection reads one buffer (64 KiB) at a time and delivers its events before the next
//!   read, so while a row waits the rest of the result stays in the socket, and the server
//!   waits: a result costs the node a buffer, whatever its size. No code
//!   path waits for a connection's lock while holding the queue's or on a timer: placement,
//!   pinning, sizing, status and the kill's look-up take it with `try_lock` and skip a locked
//!   connection; a placement that found nothing but skipped one sets `skipped_busy`, and the
//!   handler drains the queue after letting its lock go. A skipped connection that had nothing
//!   in flight when its lock was last let go (`Backend::idle`, read without the lock) is waited
//!   for that way rather than a statement placed behind one already sent, for a few
//!   milliseconds after the statement was submitted; a statement queued only because a lock
//!   was held opens no connection (the drain that leaves it waiting does).
//!
//! The depth each statement of the shared rotation found its connection at (itself included)
//! is counted ([`Driver::depth_distribution`]); [`Driver::stats`] gives it with the
//! connection and queue counts for `SHOW STATUS`.

use std::collections::{HashMap, VecDeque};
use std::io::{ErrorKind, IoSlice};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use xrpc_mysql_proto::ColumnSet;
use xrpc_mysql_proto::{
    Cancelled, CloseReason, Config, ConnectError, Connection, Event, OkInfo, StatementError, Tag,
    TextRow, kill_query_id_sql,
};
use xrpc_net::{GroupHandle, OutboundIo, OutboundSocket, Progress, SocketHandler};

use xrpc_net::TimerId;
use xrpc_proto::codes;

use crate::options::{TRACKING_INIT, backend_busy_message};

/// Upper bounds of the depth buckets of [`Driver::depth_distribution`].
pub const DEPTH_BUCKETS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, usize::MAX];

/// How the driver reaches its backend and how deep it pipelines.
#[derive(Debug, Clone)]
pub struct DriverOptions {
    /// The backend's address.
    pub addr: SocketAddr,
    /// Login and protocol settings of every connection (`max_depth` is set from
    /// [`DriverOptions::max_depth`], statements are always marked).
    pub config: Config,
    /// Most backend connections open at once (the engine's `xrpc_backend_pool_size`), at most
    /// [`MAX_CONNECTIONS`]; [`Driver::set_size`] changes it at runtime.
    pub connections: usize,
    /// Fewest backend connections kept open; between this and [`DriverOptions::connections`]
    /// the driver opens and closes connections by demand (module docs, "Sizing"). `None` (the
    /// default) is `connections`: a fixed size.
    pub min_connections: Option<usize>,
    /// Another connection opens when the statements placed since the last tick found their
    /// connection at more than this average depth; default 4.
    pub grow_at_depth: usize,
    /// A connection beyond the minimum with nothing in flight for this long is closed;
    /// default 60 s.
    pub idle_close_after: Duration,
    /// Most statements in flight on one backend connection.
    pub max_depth: usize,
    /// A statement goes to a connection below this depth that still holds statements not
    /// written yet (placed in this worker's turn, written at its end), or whose head statement
    /// has run for less than [`DriverOptions::fill_stall`], before it goes to a less busy one:
    /// the one the last placement filled while it qualifies, else the deepest. Statements
    /// written back to back cost the backend less than the same statements on separate
    /// connections, each of whose threads sleeps and wakes per statement. 1 spreads statements
    /// over the connections; default 8.
    pub fill_depth: usize,
    /// Also fill behind a head statement that has run less than this; default zero (only
    /// behind statements not written yet). A statement placed behind one that turns out slow
    /// waits for it, so a longer bound trades a slow statement's neighbours' latency for
    /// deeper pipelines.
    pub fill_stall: Duration,
    /// First pause before reconnecting a lost connection.
    pub reconnect_min: Duration,
    /// Longest pause between reconnects.
    pub reconnect_max: Duration,
    /// How long a statement may wait in the driver's queue for room on a connection (or a
    /// session for a connection of its own) before it ends with 7009; default 10 s;
    /// [`Driver::set_queue_timeout`] changes it at runtime.
    pub queue_timeout: Duration,
    /// A connection open for this long is closed and replaced by the tick once nothing is in
    /// flight on it and no session holds it, so the backend's per-connection memory and
    /// settings do not age forever; default 30 min; [`Driver::set_lifetime`] changes it.
    pub lifetime: Duration,
}

/// The most backend connections a driver may be sized to ([`Driver::set_size`]).
pub const MAX_CONNECTIONS: usize = 4096;

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl DriverOptions {
    /// Options for `addr` with `config`: 4 connections (a fixed size), depth 16, reconnects
    /// after 100 ms up to 5 s, a queue timeout of 10 s, a lifetime of 30 min.
    pub fn new(addr: SocketAddr, config: Config) -> Self {
        Self {
            addr,
            config,
            connections: 4,
            min_connections: None,
            grow_at_depth: 4,
            idle_close_after: Duration::from_secs(60),
            max_depth: 16,
            fill_depth: 8,
            fill_stall: Duration::ZERO,
            reconnect_min: Duration::from_millis(100),
            reconnect_max: Duration::from_secs(5),
            queue_timeout: Duration::from_secs(10),
            lifetime: Duration::from_secs(30 * 60),
        }
    }
}

/// What the driver reports ([`Driver::stats`]); see [`DriverStats::status_rows`] for the names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DriverStats {
    /// Connections logged in.
    pub connections: u64,
    /// Connections held by a session.
    pub pinned: u64,
    /// Connections given back at a session's level ([`Driver::pin_at`]).
    pub parked: u64,
    /// Connects started, reconnects included.
    pub opened: u64,
    /// Connections closed for want of work.
    pub closed_idle: u64,
    /// Connections replaced at the end of their lifetime.
    pub expired: u64,
    /// Connects or logins that failed.
    pub connect_errors: u64,
    /// Logged-in connections that closed unasked (the backend went away or broke the protocol).
    pub lost: u64,
    /// Statements waiting for room.
    pub queued: u64,
    /// Sessions waiting for a connection of their own.
    pub pin_queued: u64,
    /// Statements and sessions that waited for the queue timeout (7009).
    pub queue_timeouts: u64,
    /// Passes of [`Driver::help`]: a worker waiting for an answer drove the connections itself,
    /// every worker of a group being in a wait.
    pub helps: u64,
    /// [`Driver::depth_distribution`].
    pub depths: [u64; DEPTH_BUCKETS.len()],
}

impl DriverStats {
    /// The `SHOW STATUS` rows: `xrpc_backend_connections` (logged in),
    /// `xrpc_backend_connections_pinned`, `xrpc_backend_connections_parked`,
    /// `xrpc_backend_pin_queued`, `xrpc_backend_connections_opened`,
    /// `xrpc_backend_connections_closed_idle`, `xrpc_backend_connections_expired`,
    /// `xrpc_backend_connect_errors`, `xrpc_backend_lost`, `xrpc_backend_queued`,
    /// `xrpc_backend_queue_timeouts` (7009s), `xrpc_backend_helps` ([`Driver::help`]'s passes),
    /// and `xrpc_backend_pipeline_depth_<n>`: the
    /// statements that found their connection at a depth up to `n` and above the bucket
    /// before (`_over_64` for the rest), as [`Driver::depth_distribution`].
    pub fn status_rows(&self) -> Vec<(String, String)> {
        let mut rows: Vec<(String, u64)> = vec![
            ("connections".into(), self.connections),
            ("connections_pinned".into(), self.pinned),
            ("connections_parked".into(), self.parked),
            ("connections_opened".into(), self.opened),
            ("connections_closed_idle".into(), self.closed_idle),
            ("connections_expired".into(), self.expired),
            ("connect_errors".into(), self.connect_errors),
            ("lost".into(), self.lost),
            ("queued".into(), self.queued),
            ("pin_queued".into(), self.pin_queued),
            ("queue_timeouts".into(), self.queue_timeouts),
            ("helps".into(), self.helps),
        ];
        for (i, count) in self.depths.into_iter().enumerate() {
            let bucket = match DEPTH_BUCKETS[i] {
                usize::MAX => format!("over_{}", DEPTH_BUCKETS[i - 1]),
                bound => bound.to_string(),
            };
            rows.push((format!("pipeline_depth_{bucket}"), count));
        }
        rows.into_iter()
            .map(|(name, value)| (format!("xrpc_backend_{name}"), value.to_string()))
            .collect()
    }
}

/// Receives one statement's answer, on the worker that reads it.
pub trait Completion: Send + 'static {
    /// The first result's columns.
    fn on_columns(&mut self, columns: &Arc<ColumnSet>);
    /// One row of the first result.
    fn on_row(&mut self, row: &TextRow);
    /// A result of the statement ended and another follows (a CALL, several statements).
    fn on_result_end(&mut self) {}
    /// The terminal event: the final OK data or the error (the server's, 1317 when cancelled,
    /// 2013 when the connection was lost). Called exactly once.
    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>);
    /// Whether the connection's handler must stop reading on this thread for now and leave the
    /// rest to another worker ([`xrpc_engine::Completion::holds_back`]).
    fn holds_back(&self) -> bool {
        false
    }
}

/// A session's wait for a connection of its own ([`Driver::pin_when_free`]).
pub trait PinRequest: Send + 'static {
    /// A connection was taken for it (on the thread that freed or opened one, outside the
    /// driver's locks): the session's statements go there from now on.
    fn pinned(self: Box<Self>, pinned: Pinned);
    /// None could be taken: 7009 after the queue timeout, 1317 when cancelled, the connect
    /// error while the backend is unreachable, 2013 when the driver closes.
    fn failed(self: Box<Self>, error: StatementError);
}

/// A [`PinRequest`] in the pin queue.
struct PinWaiter {
    id: u64,
    spare: usize,
    level: Option<Level>,
    queued_at: Instant,
    request: Box<dyn PinRequest>,
}

/// Names a submitted statement for [`Driver::cancel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatementId(u64);

/// What [`Driver::cancel`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelOutcome {
    /// It had not reached the backend: it ended with 1317.
    Removed,
    /// It runs on the backend: a `KILL QUERY ID` is on its way; its answer ends it.
    KillSent,
    /// It had already ended.
    NotRunning,
}

/// The backend driver; see the [module docs](self). Cheap to clone.
#[derive(Clone)]
pub struct Driver {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("addr", &self.shared.opts.addr)
            .field("connections", &self.shared.size())
            .finish()
    }
}

struct Shared {
    opts: DriverOptions,
    groups: Vec<GroupHandle>,
    slots: Vec<Mutex<Slot>>,
    waiting: Mutex<VecDeque<Waiting>>,
    /// The last connect failure, while no connection is logged in: a statement of the shared
    /// rotation that finds no room fails with it at once instead of waiting. Cleared by a
    /// login. Taken after the queue's lock when
    /// both are held.
    unreachable: Mutex<Option<StatementError>>,
    /// The last connect or login failure, until a login succeeds (whatever else is logged
    /// in): a session that needs a connection of its own and finds none to take fails with it
    /// at once, as the connect that would serve it failed; the next one comes after the
    /// slot's backoff. Taken after the queue's lock when both are held.
    connect_error: Mutex<Option<StatementError>>,
    next_id: AtomicU64,
    /// [`Driver::close`] was called: no reconnects, no new statements.
    closing: AtomicBool,
    depths: [AtomicU64; DEPTH_BUCKETS.len()],
    /// Depths found by statements placed since the last tick, summed, and their number.
    recent_depth_sum: AtomicU64,
    recent_placed: AtomicU64,
    /// A placement found no room but skipped connections whose state was locked: the handler
    /// that lets such a lock go drains the queue (see [`Shared::place`]).
    skipped_busy: AtomicBool,
    /// The slot of the connection the last placement chose: tried first
    /// ([`Shared::fill_last`]).
    last_placed: AtomicUsize,
    queue_timeouts: AtomicU64,
    connects: AtomicU64,
    idle_closes: AtomicU64,
    connect_errors: AtomicU64,
    lost: AtomicU64,
    /// Passes of [`Driver::help`] that drove the connections.
    helps: AtomicU64,
    /// Slots that are wanted (see [`Slot::wanted`]): at the size, nothing is left to open.
    wanted: AtomicUsize,
    /// Most connections open at once now ([`Driver::set_size`]).
    size: AtomicUsize,
    /// The slots scanned: the largest size set so far (slots above the size are emptied by the
    /// tick, not shrunk away).
    span: AtomicUsize,
    /// [`DriverOptions::queue_timeout`] and [`DriverOptions::lifetime`] as set now, in
    /// microseconds.
    queue_timeout_us: AtomicU64,
    lifetime_us: AtomicU64,
    /// Connections closed at the end of their lifetime (and replaced).
    expired_closes: AtomicU64,
    /// The periodic tick, cancelled when the driver goes.
    tick: Mutex<Option<(GroupHandle, TimerId)>>,
    /// Sessions waiting for a connection of their own ([`Driver::pin_when_free`]), in order.
    /// Taken before the queue's lock when both are held.
    pin_queue: Mutex<VecDeque<PinWaiter>>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some((group, timer)) = self.tick.lock().take() {
            group.cancel_timer(timer);
        }
    }
}

#[derive(Default)]
struct Slot {
    socket: Option<OutboundSocket<Arc<Backend>>>,
    backoff: Option<Duration>,
    /// The slot is meant to hold an open connection (reconnected when lost); false for the
    /// slots above the current size.
    wanted: bool,
}

/// How long a statement waits for a connection skipped for its lock rather than go behind a
/// statement already sent (see [`Shared::place`]).
const PATIENCE: Duration = Duration::from_millis(5);

impl Waiting {
    fn new(id: u64, queued_at: Instant, sql: Vec<u8>, completion: Box<dyn Completion>) -> Self {
        Self {
            id,
            queued_at,
            sql,
            leading: Vec::new(),
            skip_results: 0,
            completion,
        }
    }
}

struct Waiting {
    id: u64,
    /// When it entered the driver's queue (taken under the queue's lock, so the queue is in
    /// this order too).
    queued_at: Instant,
    sql: Vec<u8>,
    /// Statements sent before `sql` in the same COM_QUERY ([`Pinned::submit_behind`]), and
    /// their number: the results the completion does not see.
    leading: Vec<u8>,
    skip_results: usize,
    completion: Box<dyn Completion>,
}

struct Backend {
    slot: usize,
    /// When the connection was opened: it is replaced after [`DriverOptions::lifetime`].
    opened_at: Instant,
    /// Itself, for the completions of its unpinning.
    me: Weak<Backend>,
    shared: Weak<Shared>,
    state: Mutex<BackendState>,
    /// Logged in and open: the state's `logged_in && !conn.is_closed()` as of the last time
    /// either changed, readable without the state's lock (which a handler may hold while it
    /// waits for a client, see `Shared::place`).
    open: AtomicBool,
    /// Nothing in flight, logged in and not pinned, as of the last time its handler or a
    /// placement let the state's lock go: a placement that finds the lock held reads it to
    /// tell whether the connection may be idle (see `Shared::pick_connection`).
    idle: AtomicBool,
}

struct BackendState {
    conn: Connection,
    /// Statements in flight by tag (the tag is the statement id; foldhash, as every statement
    /// inserts and removes one).
    answers: HashMap<u64, Answer, foldhash::fast::RandomState>,
    buf: Box<[u8]>,
    logged_in: bool,
    /// Taken out of the shared rotation by [`Driver::pin`] (until its reset and tracker set-up
    /// after [`Pinned::unpin`] have succeeded).
    pinned: Option<PinState>,
    /// The pinned session's statements waiting for room below the depth limit.
    pinned_waiting: VecDeque<Waiting>,
    /// The pinned session switched the connection's database ([`Pinned::database_changed`]).
    database_changed: bool,
    /// While [`PinState::Parked`]: what it holds, and since when.
    parked_level: Option<(Level, Instant)>,
    /// When a command last ended or was submitted.
    last_active: Instant,
    /// When a command last ended, or a statement was placed on an empty pipeline: the head
    /// statement has run for at most the time since.
    head_since: Instant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PinState {
    /// Its session's statements go here.
    Held,
    /// Given back: the reset and the trackers follow its last statements.
    Unpinning,
    /// The reset and the trackers are on their way.
    Resetting,
    /// Given back without a reset, at the [`Level`] its session left it (`parked_level`):
    /// the next session at that level takes it as it is ([`Driver::pin_at`]); any other pin
    /// resets it first, and so does the shared rotation's need ([`Shared::reclaim_parked`]).
    Parked,
}

/// What a connection given back without a reset holds: the database and session variables its
/// last session brought it to (compared whole; the driver does not read them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Level {
    /// The current database.
    pub schema: Option<String>,
    /// Session variables changed from the server's defaults, as the trackers reported them.
    pub vars: std::collections::BTreeMap<String, String>,
}

struct Answer {
    completion: Box<dyn Completion>,
    /// Results of the command that come before the one its completion sees: the statements a
    /// pinned session's statement is sent behind in one COM_QUERY to bring the connection
    /// level ([`Pinned::submit_behind`]).
    skip_results: usize,
    /// The result the completion sees ended: later results are dropped.
    first_result_done: bool,
}

/// How long a connection stays parked at a session's level ([`PinState::Parked`]) before the
/// tick resets it back into the shared rotation.
const PARKED_FOR: Duration = Duration::from_secs(1);

/// Ids of the driver's own statements (tracker set-up, kill lookups) have this bit set.
const INTERNAL: u64 = 1 << 63;

impl Driver {
    /// Opens `opts.min_connections` backend connections, spread over `groups` (at least one),
    /// starts the periodic tick ([`Driver::tick`]) on the first group, and returns at once;
    /// statements submitted before a login wait in the driver's queue.
    ///
    /// # Panics
    ///
    /// If `groups` is empty.
    pub fn start(groups: &[GroupHandle], mut opts: DriverOptions) -> Self {
        assert!(!groups.is_empty(), "the driver needs an epoll group");
        opts.connections = opts.connections.clamp(1, MAX_CONNECTIONS);
        let min = opts
            .min_connections
            .unwrap_or(opts.connections)
            .clamp(1, opts.connections);
        opts.min_connections = Some(min);
        opts.grow_at_depth = opts.grow_at_depth.max(1);
        opts.max_depth = opts.max_depth.max(1);
        // Room above the depth limit for the driver's own commands: a kill's look-up, and the
        // reset, database switch and tracker set-up behind a pinned session's last statements.
        opts.config.max_depth = opts.max_depth + 3;
        opts.config.mark_statements = true;
        let period = (opts.queue_timeout.min(opts.idle_close_after) / 4)
            .clamp(Duration::from_millis(1), Duration::from_secs(1));
        let shared = Arc::new(Shared {
            slots: (0..MAX_CONNECTIONS)
                .map(|_| Mutex::new(Slot::default()))
                .collect(),
            size: AtomicUsize::new(opts.connections),
            span: AtomicUsize::new(opts.connections),
            queue_timeout_us: AtomicU64::new(micros(opts.queue_timeout)),
            lifetime_us: AtomicU64::new(micros(opts.lifetime)),
            expired_closes: AtomicU64::new(0),
            opts,
            groups: groups.to_vec(),
            waiting: Mutex::new(VecDeque::new()),
            unreachable: Mutex::new(None),
            connect_error: Mutex::new(None),
            next_id: AtomicU64::new(1),
            closing: AtomicBool::new(false),
            depths: Default::default(),
            recent_depth_sum: AtomicU64::new(0),
            recent_placed: AtomicU64::new(0),
            skipped_busy: AtomicBool::new(false),
            last_placed: AtomicUsize::new(0),
            queue_timeouts: AtomicU64::new(0),
            connects: AtomicU64::new(0),
            idle_closes: AtomicU64::new(0),
            connect_errors: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            helps: AtomicU64::new(0),
            wanted: AtomicUsize::new(min),
            tick: Mutex::new(None),
            pin_queue: Mutex::new(VecDeque::new()),
        });
        for slot in 0..min {
            shared.slots[slot].lock().wanted = true;
            Shared::connect(&shared, slot);
        }
        let weak = Arc::downgrade(&shared);
        let group = groups[0].clone();
        let timer = group.schedule_timer(period, Some(period), move |_| {
            if let Some(me) = weak.upgrade()
                && !me.closing.load(Ordering::Acquire)
            {
                Shared::tick(&me, Instant::now());
            }
        });
        *shared.tick.lock() = Some((group, timer));
        Self { shared }
    }

    /// Submits `sql`; its answer goes to `completion` on the worker that reads it.
    pub fn submit(&self, sql: impl Into<Vec<u8>>, completion: Box<dyn Completion>) -> StatementId {
        let sql = sql.into();
        let id = self.shared.new_id();
        let (placed, expired) = {
            let mut queue = self.shared.waiting.lock();
            if self.shared.closing.load(Ordering::Acquire) {
                drop(queue);
                completion.on_done(Err(StatementError::connection_lost()));
                return StatementId(id);
            }
            // One clock read serves the queue's order, the expiry and the placement.
            let now = Instant::now();
            let waiting = Waiting::new(id, now, sql, completion);
            let expired = self.shared.take_expired(&mut queue, now);
            let placed = if queue.is_empty() {
                self.shared.place(waiting, now)
            } else {
                Err(waiting)
            };
            let placed = match placed {
                Ok(socket) => Some(socket),
                Err(back) => {
                    let unreachable = self.shared.unreachable.lock().clone();
                    // A connection that has just logged in clears the outage after its handler
                    // lets its lock go; one that is locked or logged in ends it already.
                    if let Some(error) = unreachable
                        && !self.shared.any_logged_in()
                    {
                        drop(queue);
                        self.shared.time_out(expired);
                        back.completion.on_done(Err(error));
                        return StatementId(id);
                    }
                    queue.push_back(back);
                    None
                }
            };
            (placed, expired)
        };
        // Written after the queue's lock is let go, at the end of this worker's turn: the
        // statements the turn places on one connection go out in one write (and the backend
        // reads them in one read), and the kick's pass, which drains the queue, runs without
        // the lock.
        match placed {
            Some(socket) => socket.kick_at_turn_end(),
            // Queued because a connection's lock was held, not for want of room: the lock's
            // holder drains the queue when it lets it go, and that drain grows the pool if the
            // statement is still left waiting.
            None if self.shared.skipped_busy.load(Ordering::SeqCst) => {}
            None => Shared::grow(&self.shared),
        }
        self.shared.time_out(expired);
        StatementId(id)
    }

    /// Stops a submitted statement; see the module docs, "Kill".
    pub fn cancel(&self, id: StatementId) -> CancelOutcome {
        let waiter = {
            let mut queue = self.shared.pin_queue.lock();
            queue
                .iter()
                .position(|w| w.id == id.0)
                .and_then(|at| queue.remove(at))
        };
        if let Some(waiter) = waiter {
            waiter.request.failed(StatementError::interrupted());
            return CancelOutcome::Removed;
        }
        let removed = {
            let mut queue = self.shared.waiting.lock();
            queue
                .iter()
                .position(|w| w.id == id.0)
                .and_then(|at| queue.remove(at))
        };
        if let Some(waiting) = removed {
            waiting
                .completion
                .on_done(Err(StatementError::interrupted()));
            return CancelOutcome::Removed;
        }
        for slot in 0..self.shared.span() {
            let Some(socket) = self.shared.socket(slot) else {
                continue;
            };
            let backend = socket.handler();
            let cancelled = {
                let mut st = backend.state.lock();
                if let Some(at) = st.pinned_waiting.iter().position(|w| w.id == id.0) {
                    let waiting = st.pinned_waiting.remove(at).expect("position in range");
                    drop(st);
                    waiting
                        .completion
                        .on_done(Err(StatementError::interrupted()));
                    return CancelOutcome::Removed;
                }
                if !st.answers.contains_key(&id.0) {
                    continue;
                }
                st.conn.cancel(Tag(id.0))
            };
            return match cancelled {
                Ok(Cancelled::Withdrawn) => {
                    // The 1317 is an event of the state machine: deliver it.
                    socket.kick();
                    CancelOutcome::Removed
                }
                Ok(Cancelled::KillRequired(target)) => match target.query_id_lookup_sql() {
                    Some(lookup) => {
                        self.shared.kill_by_query_id(slot, id.0, lookup);
                        CancelOutcome::KillSent
                    }
                    None => CancelOutcome::NotRunning,
                },
                Err(_) => CancelOutcome::NotRunning,
            };
        }
        CancelOutcome::NotRunning
    }

    /// How many statements found their connection at each depth (themselves included), by the
    /// upper bounds in [`DEPTH_BUCKETS`].
    pub fn depth_distribution(&self) -> [u64; DEPTH_BUCKETS.len()] {
        std::array::from_fn(|i| self.shared.depths[i].load(Ordering::Relaxed))
    }

    /// Backend connections logged in now.
    pub fn connected(&self) -> usize {
        self.logged_in_sockets().count()
    }

    /// Whether some backend connection is logged in: [`Driver::connected`] stopping at the
    /// first, for the path of every statement.
    pub fn any_connected(&self) -> bool {
        self.logged_in_sockets().next().is_some()
    }

    fn logged_in_sockets(&self) -> impl Iterator<Item = OutboundSocket<Arc<Backend>>> + '_ {
        (0..self.shared.span())
            .filter_map(|slot| self.shared.socket(slot))
            .filter(|socket| socket.handler().is_open())
    }

    /// Statements waiting in the driver's queue for room on a connection.
    pub fn queued(&self) -> usize {
        self.shared.waiting.lock().len()
    }

    /// Sessions waiting for a connection of their own ([`Driver::pin_when_free`]).
    pub fn pin_queued(&self) -> usize {
        self.shared.pin_queue.lock().len()
    }

    /// Takes a logged-in backend connection out of the shared rotation for one session: its
    /// statements ([`Pinned::submit`]) go only there, and no other statement is placed there
    /// until [`Pinned::unpin`] has reset it. The connection with the fewest commands in flight
    /// is taken (statements already on it finish first, in order). `None` when no connection
    /// can be taken now (none logged in, or every one pinned); another one is opened then if
    /// the size allows, so a later call may succeed.
    pub fn pin(&self) -> Option<Pinned> {
        self.pin_sparing(0)
    }

    /// [`Driver::pin`], unless no more than `spare` connections would be left in the shared
    /// rotation: a session that pins then takes another way, and the statements of sessions
    /// that hold nothing never wait behind idle pinned ones. Another connection is opened then
    /// if the size allows.
    pub fn pin_sparing(&self, spare: usize) -> Option<Pinned> {
        Shared::pin_sparing(&self.shared, spare)
    }

    /// [`Driver::pin_sparing`] for a session at `level`: a connection parked at that level is
    /// taken first, as it is (returned with it: the session needs no `USE` or `SET` there);
    /// any other comes fresh (reset, in the configured database). When none can be taken, a
    /// connection parked at another level is reset back into the rotation for a later try.
    pub fn pin_at(&self, spare: usize, level: &Level) -> Option<(Pinned, Option<Level>)> {
        Shared::pin_at(&self.shared, spare, Some(level))
    }

    /// [`Driver::pin_at`] (`level` given) or [`Driver::pin_sparing`], answered with the
    /// connection whatever it holds (the request levels it itself), or, when no connection can
    /// be taken now, `request` waits in the driver's pin queue, in order, until one is given
    /// back or opens (another opens if the size allows): no thread waits for it. It is answered
    /// exactly once: [`PinRequest::pinned`] (here, or on the thread that freed a connection),
    /// or [`PinRequest::failed`] with 7009 after [`DriverOptions::queue_timeout`], 1317 when
    /// [`Driver::cancel`]led by `id` (from [`Driver::new_id`]), the error of a connect that
    /// failed since the last login (2003, or the server's refusal: 1040, 1045, …), 2013 when
    /// the driver closes.
    pub fn pin_when_free(
        &self,
        id: StatementId,
        spare: usize,
        level: Option<Level>,
        request: Box<dyn PinRequest>,
    ) {
        let id = id.0;
        {
            let mut queue = self.shared.pin_queue.lock();
            if self.shared.closing.load(Ordering::Acquire) {
                drop(queue);
                request.failed(StatementError::connection_lost());
                return;
            }
            if queue.is_empty()
                && let Some((pinned, _)) = Shared::pin_at(&self.shared, spare, level.as_ref())
            {
                drop(queue);
                request.pinned(pinned);
                return;
            }
            queue.push_back(PinWaiter {
                id,
                spare,
                level,
                queued_at: Instant::now(),
                request,
            });
        }
        let connect_error = self.shared.connect_error.lock().clone();
        if let Some(error) = connect_error {
            Shared::fail_pin_queue(&self.shared, &error);
        } else {
            // One may have come free between the try above and the push.
            Shared::serve_pin_queue(&self.shared);
        }
    }

    /// A new id for [`Driver::pin_when_free`], known to the caller (for [`Driver::cancel`])
    /// before the request may be answered.
    pub fn new_id(&self) -> StatementId {
        StatementId(self.shared.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// The periodic checks as of `now`, which the driver runs from a timer of its first group
    /// (every quarter of the shorter of the queue timeout and the idle time, between 1 ms and
    /// 1 s): statements queued longer than [`DriverOptions::queue_timeout`] end with 7009, and
    /// the number of connections adapts to demand (module docs, "Sizing").
    pub fn tick(&self, now: Instant) {
        Shared::tick(&self.shared, now);
    }

    /// Drives the connections on this thread when every worker of a group they are in waits
    /// ([`GroupHandle::all_workers_waiting`]): for a thread that waits for an answer (a
    /// statement run inline) while nobody else would read the sockets or run the tick. Each
    /// socket's handler runs here (or once more on the thread inside it), then the tick's work.
    /// Nothing when some worker of each group is free.
    pub fn help(&self) {
        if !self
            .shared
            .groups
            .iter()
            .any(GroupHandle::all_workers_waiting)
        {
            return;
        }
        self.shared.helps.fetch_add(1, Ordering::Relaxed);
        for slot in 0..self.shared.span() {
            if let Some(socket) = self.shared.socket(slot) {
                socket.kick();
            }
        }
        Shared::tick(&self.shared, Instant::now());
    }

    /// Sets the most connections open at once (clamped to 1..=[`MAX_CONNECTIONS`]). A larger
    /// size opens connections by demand at once (statements waiting get one); a smaller one
    /// closes the connections above it as the tick finds them quiet: never one with a
    /// statement in flight or held by a session.
    pub fn set_size(&self, connections: usize) {
        let size = connections.clamp(1, MAX_CONNECTIONS);
        self.shared.size.store(size, Ordering::Release);
        self.shared.span.fetch_max(size, Ordering::AcqRel);
        Shared::grow(&self.shared);
        Shared::serve_pin_queue(&self.shared);
    }

    /// The most connections open at once now.
    pub fn size(&self) -> usize {
        self.shared.size()
    }

    /// Sets how long a statement (or a session's wait for a connection of its own) may wait
    /// for room before it ends with 7009; checked by the tick and whenever the queue is
    /// touched.
    pub fn set_queue_timeout(&self, timeout: Duration) {
        self.shared
            .queue_timeout_us
            .store(micros(timeout), Ordering::Relaxed);
    }

    /// Sets how long a connection lives before the tick replaces it (see
    /// [`DriverOptions::lifetime`]).
    pub fn set_lifetime(&self, lifetime: Duration) {
        self.shared
            .lifetime_us
            .store(micros(lifetime), Ordering::Relaxed);
    }

    /// The `SHOW STATUS` rows of [`Driver::stats`] ([`DriverStats::status_rows`]).
    pub fn status_rows(&self) -> Vec<(String, String)> {
        self.stats().status_rows()
    }

    /// A snapshot of the driver's gauges and counters.
    pub fn stats(&self) -> DriverStats {
        let mut stats = DriverStats::default();
        for slot in 0..self.shared.span() {
            if let Some(socket) = self.shared.socket(slot) {
                stats.connections += u64::from(socket.handler().is_open());
                // Locked: its handler runs (see `Shared::place`); not counted as pinned.
                if let Some(st) = socket.handler().state.try_lock() {
                    let is_parked = st.pinned == Some(PinState::Parked);
                    stats.parked += u64::from(is_parked);
                    stats.pinned += u64::from(st.pinned.is_some() && !is_parked);
                }
            }
        }
        let counter = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let shared = &self.shared;
        stats.opened = counter(&shared.connects);
        stats.closed_idle = counter(&shared.idle_closes);
        stats.expired = counter(&shared.expired_closes);
        stats.connect_errors = counter(&shared.connect_errors);
        stats.lost = counter(&shared.lost);
        stats.queued = self.queued() as u64;
        stats.pin_queued = self.pin_queued() as u64;
        stats.queue_timeouts = counter(&shared.queue_timeouts);
        stats.helps = counter(&shared.helps);
        stats.depths = self.depth_distribution();
        stats
    }

    /// Closes every backend connection (their statements in flight end with 2013), ends the
    /// statements waiting in the driver's queue with 2013 too, stops reconnecting and the
    /// periodic tick.
    pub fn close(&self) {
        self.shared.closing.store(true, Ordering::Release);
        if let Some((group, timer)) = self.shared.tick.lock().take() {
            group.cancel_timer(timer);
        }
        for slot in &self.shared.slots {
            let socket = {
                let mut slot = slot.lock();
                slot.backoff = None;
                slot.socket.take()
            };
            if let Some(socket) = socket {
                socket.handler().open.store(false, Ordering::Release);
                socket.handler().state.lock().conn.handle_close();
                socket.kick();
                socket.close();
            }
        }
        let waiting = std::mem::take(&mut *self.shared.waiting.lock());
        for statement in waiting {
            statement
                .completion
                .on_done(Err(StatementError::connection_lost()));
        }
        Shared::fail_pin_queue(&self.shared, &StatementError::connection_lost());
    }
}

impl Shared {
    /// See [`Driver::pin_sparing`].
    fn pin_sparing(me: &Arc<Self>, spare: usize) -> Option<Pinned> {
        Self::pin_at(me, spare, None).map(|(pinned, _)| pinned)
    }

    /// See [`Driver::pin_at`].
    fn pin_at(
        me: &Arc<Self>,
        spare: usize,
        level: Option<&Level>,
    ) -> Option<(Pinned, Option<Level>)> {
        let pinned = |socket| Pinned {
            shared: me.clone(),
            socket,
            given_back: false,
            park: Mutex::new(None),
        };
        // A connection parked at the wanted level is taken as it is.
        if let Some(level) = level {
            for socket in (0..me.span()).filter_map(|slot| me.socket(slot)) {
                let taken = socket.handler().state.try_lock().and_then(|mut st| {
                    let parked_here = st.logged_in
                        && st.pinned == Some(PinState::Parked)
                        && st.conn.is_ready()
                        && st.parked_level.as_ref().is_some_and(|(at, _)| at == level);
                    if !parked_here {
                        return None;
                    }
                    st.pinned = Some(PinState::Held);
                    st.parked_level.take().map(|(at, _)| at)
                });
                if let Some(at) = taken {
                    return Some((pinned(socket), Some(at)));
                }
            }
        }
        let mut best: Option<(usize, OutboundSocket<Arc<Backend>>)> = None;
        let mut candidates = 0;
        // Under the queue's lock, as `place` decides: a statement is never placed on a
        // connection that is being pinned.
        {
            let _queue = me.waiting.lock();
            for slot in 0..me.span() {
                let Some(socket) = me.socket(slot) else {
                    continue;
                };
                let depth = {
                    // Locked: never waited for, as in `Shared::place`.
                    let Some(st) = socket.handler().state.try_lock() else {
                        continue;
                    };
                    if !st.logged_in || st.pinned.is_some() || !st.conn.is_ready() {
                        continue;
                    }
                    st.conn.in_flight()
                };
                candidates += 1;
                if best.as_ref().is_none_or(|(d, _)| depth < *d) {
                    best = Some((depth, socket));
                }
            }
            if candidates <= spare {
                best = None;
            }
            let held = best.as_ref().is_some_and(|(_, socket)| {
                socket
                    .handler()
                    .state
                    .try_lock()
                    .map(|mut st| st.pinned = Some(PinState::Held))
                    .is_some()
            });
            if !held {
                best = None;
            }
        }
        if let Some((_, socket)) = best {
            // The shared rotation lost a connection: statements may queue now.
            Shared::grow(me);
            return Some((pinned(socket), None));
        }
        // A connection parked at another level goes back into the rotation (reset): the
        // session takes a connection once that reset has succeeded (the pin queue is served
        // then), never behind a reset that may fail.
        Self::reclaim_parked(me, None, true);
        if !me.closing.load(Ordering::Acquire) {
            Shared::open_one(me);
        }
        None
    }

    /// Resets parked connections back into the shared rotation: those parked since before
    /// `parked_before`, or, with `one`, the first one found whatever its age (statements of the
    /// shared rotation wait).
    fn reclaim_parked(me: &Arc<Self>, parked_before: Option<Instant>, one: bool) {
        for socket in (0..me.span()).filter_map(|slot| me.socket(slot)) {
            let backend = socket.handler();
            let reclaimed = backend.state.try_lock().is_some_and(|mut st| {
                let due = st.pinned == Some(PinState::Parked)
                    && st.parked_level.as_ref().is_some_and(|(_, since)| {
                        parked_before.is_none_or(|before| *since < before)
                    });
                if due {
                    st.parked_level = None;
                    st.pinned = Some(PinState::Unpinning);
                    st.pinned_progress(me, &backend.me);
                }
                due
            });
            if reclaimed {
                socket.kick();
                if one {
                    return;
                }
            }
        }
    }

    /// Takes connections for the requests in the pin queue, in order, while any can be taken.
    fn serve_pin_queue(me: &Arc<Self>) {
        loop {
            let served = {
                let mut queue = me.pin_queue.lock();
                let Some(front) = queue.front() else {
                    return;
                };
                let Some((pinned, _)) = Self::pin_at(me, front.spare, front.level.as_ref()) else {
                    return;
                };
                let waiter = queue.pop_front().expect("the front was there");
                (waiter, pinned)
            };
            let (waiter, pinned) = served;
            waiter.request.pinned(pinned);
        }
    }

    /// Fails every request in the pin queue with `error`.
    fn fail_pin_queue(me: &Arc<Self>, error: &StatementError) {
        let failed = std::mem::take(&mut *me.pin_queue.lock());
        for waiter in failed {
            waiter.request.failed(error.clone());
        }
    }

    /// Fails the requests that waited in the pin queue longer than the queue timeout by `now`.
    fn expire_pin_queue(me: &Arc<Self>, now: Instant) {
        let expired: Vec<PinWaiter> = {
            let mut queue = me.pin_queue.lock();
            let mut expired = Vec::new();
            while queue
                .front()
                .is_some_and(|w| now.saturating_duration_since(w.queued_at) >= me.queue_timeout())
            {
                expired.extend(queue.pop_front());
            }
            expired
        };
        if expired.is_empty() {
            return;
        }
        let error = me.timed_out(expired.len());
        for waiter in expired {
            waiter.request.failed(error.clone());
        }
    }

    /// A statement of a submitter, with its id.
    fn statement(&self, sql: &str, completion: Box<dyn Completion>) -> Waiting {
        Waiting::new(self.new_id(), Instant::now(), sql.into(), completion)
    }

    fn new_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    fn socket(&self, slot: usize) -> Option<OutboundSocket<Arc<Backend>>> {
        self.slots[slot].lock().socket.clone()
    }

    /// Opens the connection of `slot` (again).
    fn connect(me: &Arc<Self>, slot: usize) {
        let group = &me.groups[slot % me.groups.len()];
        let backend = Arc::new_cyclic(|weak| Backend {
            slot,
            opened_at: Instant::now(),
            me: weak.clone(),
            shared: Arc::downgrade(me),
            state: Mutex::new(BackendState {
                conn: Connection::new(me.opts.config.clone(), Instant::now()),
                answers: HashMap::default(),
                buf: vec![0; 64 * 1024].into_boxed_slice(),
                logged_in: false,
                pinned: None,
                pinned_waiting: VecDeque::new(),
                parked_level: None,
                database_changed: false,
                last_active: Instant::now(),
                head_since: Instant::now(),
            }),
            open: AtomicBool::new(false),
            idle: AtomicBool::new(false),
        });
        me.connects.fetch_add(1, Ordering::Relaxed);
        // The slot stays locked until the socket is in it: a worker that finds the connection
        // closed (a refused connect is reported at once) looks for it there to reconnect.
        let mut guard = me.slots[slot].lock();
        match group.connect_outbound(me.opts.addr, backend) {
            Ok(socket) => {
                guard.socket = Some(socket.clone());
                drop(guard);
                Self::arm_timer(&socket);
            }
            Err(err) => {
                drop(guard);
                Self::reconnect_later(me, slot);
                Self::connect_failed(me, &err.to_string());
            }
        }
    }

    /// A connect (or its login) failed with `detail`: unless another connection is logged in,
    /// the statements waiting in the queue end with 2003 now, as later ones of the shared
    /// rotation will until a login succeeds ([`Shared::unreachable`]). The server's refusal of
    /// the login (1040, 1045, …) keeps its own code.
    fn connect_failed(me: &Arc<Self>, detail: &str) {
        me.connect_errors.fetch_add(1, Ordering::Relaxed);
        Self::unreachable_now(me, me.unreachable_error(detail));
    }

    /// 2003 for a connect that failed with `detail`.
    fn unreachable_error(&self, detail: &str) -> StatementError {
        StatementError {
            code: codes::BACKEND_UNREACHABLE.code as u16,
            sql_state: codes::BACKEND_UNREACHABLE.sql_state.to_owned(),
            message: format!(
                "Can't connect to the backend MySQL server on '{}' ({detail})",
                self.opts.addr
            ),
        }
    }

    /// See [`Shared::connect_failed`]; `error` is what the statements get.
    fn unreachable_now(me: &Arc<Self>, error: StatementError) {
        *me.connect_error.lock() = Some(error.clone());
        // Sessions waiting for a connection of their own: the one that would serve them did
        // not open. Perhaps reached from a pin under the pin queue's lock (a connect that
        // fails at once): then the pin's caller fails the queue.
        if let Some(queue) = me.pin_queue.try_lock() {
            drop(queue);
            Self::fail_pin_queue(me, &error);
        }
        let failed = {
            // Queue, then slots, then each connection's state: the order `place` takes them.
            let mut queue = me.waiting.lock();
            if me.closing.load(Ordering::Acquire) || me.any_logged_in() {
                return;
            }
            *me.unreachable.lock() = Some(error.clone());
            std::mem::take(&mut *queue)
        };
        for waiting in failed {
            waiting.completion.on_done(Err(error.clone()));
        }
    }

    /// A connection of the shared rotation is logged in: statements wait for room again. Under
    /// the queue's lock, so that a connect failure that did not see this connection cannot set
    /// [`Shared::unreachable`] after it was cleared.
    fn reachable(&self) {
        let _queue = self.waiting.lock();
        *self.unreachable.lock() = None;
        *self.connect_error.lock() = None;
    }

    /// Whether some connection of the shared rotation is logged in and open. Takes each slot's
    /// lock, then its connection's, never both of one slot at once.
    fn any_logged_in(&self) -> bool {
        (0..self.span()).any(|slot| {
            self.socket(slot).is_some_and(|socket| {
                // Locked: its handler runs, so it is not the outage this asks about.
                socket
                    .handler()
                    .state
                    .try_lock()
                    .is_none_or(|st| st.logged_in && !st.conn.is_closed() && st.pinned.is_none())
            })
        })
    }

    /// Schedules the reconnect of `slot` after its backoff, which doubles while connects fail.
    fn reconnect_later(me: &Arc<Self>, slot: usize) {
        let pause = {
            let mut s = me.slots[slot].lock();
            s.socket = None;
            let pause = s.backoff.map_or(me.opts.reconnect_min, |p| {
                (p * 2).min(me.opts.reconnect_max)
            });
            s.backoff = Some(pause);
            pause
        };
        let weak = Arc::downgrade(me);
        me.groups[slot % me.groups.len()].schedule_timer(pause, None, move |_| {
            if let Some(me) = weak.upgrade()
                && !me.closing.load(Ordering::Acquire)
                && me.slots[slot].lock().wanted
            {
                Shared::connect(&me, slot);
            }
        });
    }

    /// Runs the state machine's next deadline (the handshake's) from a timer of the socket's
    /// group.
    fn arm_timer(socket: &OutboundSocket<Arc<Backend>>) {
        let due = socket.handler().state.lock().conn.poll_timeout();
        if let Some(at) = due {
            Self::timeout_at(socket.clone(), at.saturating_duration_since(Instant::now()));
        }
    }

    /// Runs the state machine's deadline after `after` on a timer. A timer runs on a worker, so
    /// it never waits for the connection's lock: when its handler holds it (maybe waiting for a
    /// client, see `Shared::place`), it looks again shortly.
    fn timeout_at(socket: OutboundSocket<Arc<Backend>>, after: Duration) {
        let weak = Arc::downgrade(socket.handler());
        socket
            .group()
            .clone()
            .schedule_timer(after, None, move |_| {
                if weak.upgrade().is_none() {
                    return;
                }
                let handled = socket
                    .handler()
                    .state
                    .try_lock()
                    .map(|mut st| st.conn.handle_timeout(Instant::now()))
                    .is_some();
                if handled {
                    socket.kick();
                } else {
                    Self::timeout_at(socket.clone(), Duration::from_millis(10));
                }
            });
    }

    /// The connection of the shared rotation a statement goes to (module docs, "Pipelining up
    /// to a depth"), and whether a connection was skipped because its state was locked: the
    /// deepest open connection below [`DriverOptions::fill_depth`] with statements not written
    /// yet (or a head younger than [`DriverOptions::fill_stall`]), else the one with the fewest
    /// commands in flight; either must accept more.
    ///
    /// `patient`: rather than behind a statement already sent, wait for a connection skipped for
    /// its lock that had nothing in flight when its lock was last let go (its handler drains
    /// the queue when it lets the lock go); `None` then.
    fn pick_connection(
        &self,
        patient: bool,
        now: Instant,
    ) -> (Option<OutboundSocket<Arc<Backend>>>, bool) {
        // Lower ranks win: a connection to fill ranks by the room it has left, any other after
        // them by its depth.
        type Rank = (bool, usize);
        let mut best: Option<(Rank, OutboundSocket<Arc<Backend>>)> = None;
        let mut skipped = false;
        let mut skipped_idle = false;
        for slot in 0..self.span() {
            // The slot's lock is held while its connection is ranked, so only the best is
            // cloned; the state is only tried, so no lock order arises.
            let slot = self.slots[slot].lock();
            let Some(socket) = slot.socket.as_ref() else {
                continue;
            };
            let rank = {
                let Some(st) = socket.handler().state.try_lock() else {
                    skipped = true;
                    skipped_idle |= socket.handler().idle.load(Ordering::Acquire);
                    continue;
                };
                let depth = st.conn.in_flight();
                if !st.logged_in
                    || st.pinned.is_some()
                    || !st.conn.accepts_more()
                    || depth >= self.opts.max_depth
                {
                    continue;
                }
                let fill = depth > 0
                    && depth < self.opts.fill_depth
                    && (!st.conn.pending_output().is_empty()
                        || now.saturating_duration_since(st.head_since) < self.opts.fill_stall);
                if fill {
                    (false, self.opts.fill_depth - depth)
                } else {
                    (true, depth)
                }
            };
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                best = Some((rank, socket.clone()));
            }
        }
        match best {
            Some(((true, depth), _)) if depth > 0 && skipped_idle && patient => (None, true),
            best => (best.map(|(_, socket)| socket), skipped),
        }
    }

    /// The connection the last placement chose, if a statement may go there without ranking
    /// the others: it holds statements not written yet (placed in this turn) and is below
    /// [`DriverOptions::fill_depth`], so [`Shared::pick_connection`] would fill it too unless
    /// another connection is being filled deeper at the same moment (another worker's turn),
    /// which only decides which of the two fills first.
    fn fill_last(&self) -> Option<OutboundSocket<Arc<Backend>>> {
        let slot = self
            .slots
            .get(self.last_placed.load(Ordering::Relaxed))?
            .lock();
        let socket = slot.socket.as_ref()?;
        let st = socket.handler().state.try_lock()?;
        let depth = st.conn.in_flight();
        let fill = st.logged_in
            && st.pinned.is_none()
            && st.conn.accepts_more()
            && depth > 0
            && depth < self.opts.fill_depth.min(self.opts.max_depth)
            && !st.conn.pending_output().is_empty();
        fill.then(|| socket.clone())
    }

    /// Puts a statement on the connection [`Shared::fill_last`] or [`Shared::pick_connection`] picks and returns that
    /// connection's socket, to be kicked once the waiting queue's lock is
    /// let go; gives the statement back when no connection has room. Called under that lock.
    ///
    /// A connection whose state is locked is skipped, never waited for: its handler may be
    /// delivering rows to a completion that waits for its client (a flow-control offer, a full
    /// socket), and waiting for it here, under the queue's lock, would stop every submitter.
    /// When nothing has room and a connection was skipped, `skipped_busy` is set and the scan
    /// runs once more: a handler checks the flag after letting its lock go and drains the
    /// queue, so a statement queued because a lock was held is placed when it is let go.
    ///
    /// A statement waits for a skipped connection rather than go behind one already sent for
    /// [`PATIENCE`] after it was submitted: a handler holds its lock for microseconds unless
    /// its client is slow, and then the next drain (a command ending anywhere, the tick)
    /// places the statement where it can go.
    fn place(
        &self,
        waiting: Waiting,
        now: Instant,
    ) -> Result<OutboundSocket<Arc<Backend>>, Waiting> {
        let patient = now.saturating_duration_since(waiting.queued_at) < PATIENCE;
        let best = match self.fill_last() {
            Some(socket) => Some(socket),
            None => match self.pick_connection(patient, now) {
                (None, true) => {
                    self.skipped_busy.store(true, Ordering::SeqCst);
                    self.pick_connection(patient, now).0
                }
                (best, _) => best,
            },
        };
        let Some(socket) = best else {
            return Err(waiting);
        };
        let depth = {
            let Some(mut st) = socket.handler().state.try_lock() else {
                self.skipped_busy.store(true, Ordering::SeqCst);
                return Err(waiting);
            };
            if st
                .conn
                .submit_query(Tag(waiting.id), &waiting.sql, None)
                .is_err()
            {
                return Err(waiting);
            }
            st.answers.insert(
                waiting.id,
                Answer {
                    completion: waiting.completion,
                    skip_results: 0,
                    first_result_done: false,
                },
            );
            st.last_active = now;
            if st.conn.in_flight() == 1 {
                st.head_since = st.last_active;
            }
            socket.handler().idle.store(false, Ordering::Release);
            st.conn.in_flight()
        };
        self.last_placed
            .store(socket.handler().slot, Ordering::Relaxed);
        self.recent_depth_sum
            .fetch_add(depth as u64, Ordering::Relaxed);
        self.recent_placed.fetch_add(1, Ordering::Relaxed);
        let bucket = DEPTH_BUCKETS
            .iter()
            .position(|&b| depth <= b)
            .unwrap_or(DEPTH_BUCKETS.len() - 1);
        self.depths[bucket].fetch_add(1, Ordering::Relaxed);
        Ok(socket)
    }

    /// Ends the statements queued longer than the queue timeout, moves waiting statements onto
    /// connections while they have room, kicks the connections that got one, and opens another
    /// connection if statements are left waiting.
    fn drain_waiting(me: &Arc<Self>) {
        let mut kick: Vec<OutboundSocket<Arc<Backend>>> = Vec::new();
        let (expired, left) = {
            let mut queue = me.waiting.lock();
            let now = Instant::now();
            let expired = me.take_expired(&mut queue, now);
            while let Some(next) = queue.pop_front() {
                match me.place(next, now) {
                    Ok(socket) => {
                        if !kick
                            .iter()
                            .any(|k| Arc::ptr_eq(k.handler(), socket.handler()))
                        {
                            kick.push(socket);
                        }
                    }
                    Err(back) => {
                        queue.push_front(back);
                        break;
                    }
                }
            }
            (expired, !queue.is_empty())
        };
        for socket in kick {
            socket.kick_at_turn_end();
        }
        me.time_out(expired);
        if left {
            Self::grow(me);
            // Connections parked for sessions' levels are the shared rotation's first.
            Self::reclaim_parked(me, None, true);
        }
    }

    /// Takes the statements that have waited in `queue` for the queue timeout by `now`: they
    /// are at its front, as the queue is in the order of `queued_at`. Called under the queue's
    /// lock; [`Shared::time_out`] ends them after it.
    fn take_expired(&self, queue: &mut VecDeque<Waiting>, now: Instant) -> Vec<Waiting> {
        let mut expired = Vec::new();
        while queue
            .front()
            .is_some_and(|w| now.saturating_duration_since(w.queued_at) >= self.queue_timeout())
        {
            expired.extend(queue.pop_front());
        }
        expired
    }

    /// Counts `count` waits that ran out, and gives their error: 7009.
    fn timed_out(&self, count: usize) -> StatementError {
        self.queue_timeouts
            .fetch_add(count as u64, Ordering::Relaxed);
        StatementError {
            code: codes::BACKEND_BUSY.code as u16,
            sql_state: codes::BACKEND_BUSY.sql_state.to_owned(),
            message: backend_busy_message(self.queue_timeout(), self.size()),
        }
    }

    /// Ends statements that waited too long with 7009.
    fn time_out(&self, expired: Vec<Waiting>) {
        if expired.is_empty() {
            return;
        }
        let error = self.timed_out(expired.len());
        for waiting in expired {
            waiting.completion.on_done(Err(error.clone()));
        }
    }

    /// Opens one more connection if statements wait and none is being opened already, and
    /// the size allows (module docs, "Sizing").
    fn grow(me: &Arc<Self>) {
        if me.closing.load(Ordering::Acquire) || me.waiting.lock().is_empty() {
            return;
        }
        Self::open_one(me);
    }

    /// Opens the first unwanted slot unless a wanted one has not logged in yet (opening, or
    /// waiting to reconnect): demand opens connections one at a time.
    fn open_one(me: &Arc<Self>) {
        let size = me.size();
        if me.wanted.load(Ordering::Acquire) >= size {
            return;
        }
        let mut free = None;
        for slot in 0..size {
            let (wanted, socket) = {
                let s = me.slots[slot].lock();
                (s.wanted, s.socket.clone())
            };
            if !wanted {
                free = free.or(Some(slot));
                continue;
            }
            let logged_in = socket.is_some_and(|s| s.handler().is_open());
            if !logged_in {
                return;
            }
        }
        let Some(slot) = free else {
            return;
        };
        {
            let mut s = me.slots[slot].lock();
            if s.wanted {
                return;
            }
            s.wanted = true;
            s.backoff = None;
        }
        me.wanted.fetch_add(1, Ordering::AcqRel);
        Self::connect(me, slot);
    }

    /// See [`Driver::tick`].
    fn tick(me: &Arc<Self>, now: Instant) {
        let expired = {
            let mut queue = me.waiting.lock();
            me.take_expired(&mut queue, now)
        };
        me.time_out(expired);
        Self::expire_pin_queue(me, now);
        let unreachable = me.unreachable.lock().clone();
        match unreachable {
            Some(error) if !me.any_logged_in() => Self::fail_pin_queue(me, &error),
            _ => Self::serve_pin_queue(me),
        }
        if let Some(before) = now.checked_sub(PARKED_FOR) {
            Self::reclaim_parked(me, Some(before), false);
        }
        let placed = me.recent_placed.swap(0, Ordering::Relaxed);
        let depth_sum = me.recent_depth_sum.swap(0, Ordering::Relaxed);
        if placed > 0 && depth_sum > placed * me.opts.grow_at_depth as u64 {
            Self::open_one(me);
        } else {
            Self::grow(me);
        }
        Self::close_idle(me, now);
    }

    /// Closes the connections the tick finds quiet (logged in, held by no session, nothing in
    /// flight) that are not wanted any more: those in slots at or above the size (after
    /// [`Driver::set_size`] shrank it), and those beyond the minimum that have had nothing in
    /// flight for [`DriverOptions::idle_close_after`] by `now`; and replaces those open for
    /// their lifetime ([`DriverOptions::lifetime`]) with a fresh connection in the same slot.
    fn close_idle(me: &Arc<Self>, now: Instant) {
        let size = me.size();
        let span = me.span();
        let min = me.opts.min_connections.unwrap_or(size).min(size);
        let lifetime = me.lifetime();
        let mut open = (0..span)
            .filter(|&slot| me.slots[slot].lock().wanted)
            .count();
        let mut above_size = false;
        // The highest slots go first, so the connections kept are the low ones.
        for slot in (0..span).rev() {
            let (socket, renew) = {
                let mut s = me.slots[slot].lock();
                if !s.wanted {
                    continue;
                }
                let quiet = s.socket.as_ref().and_then(|socket| {
                    let backend = socket.handler();
                    let st = backend.state.try_lock()?;
                    (st.logged_in && st.pinned.is_none() && st.conn.in_flight() == 0).then(|| {
                        (
                            now.saturating_duration_since(st.last_active),
                            now.saturating_duration_since(backend.opened_at),
                        )
                    })
                });
                let Some((idle_for, open_for)) = quiet else {
                    above_size |= slot >= size;
                    continue;
                };
                let unwanted = slot >= size || (open > min && idle_for >= me.opts.idle_close_after);
                if !unwanted && open_for < lifetime {
                    continue;
                }
                if unwanted {
                    s.wanted = false;
                    s.backoff = None;
                    me.wanted.fetch_sub(1, Ordering::AcqRel);
                }
                (s.socket.take(), !unwanted)
            };
            let Some(socket) = socket else {
                continue;
            };
            if renew {
                me.expired_closes.fetch_add(1, Ordering::Relaxed);
            } else {
                open -= 1;
                me.idle_closes.fetch_add(1, Ordering::Relaxed);
            }
            // Out of its slot, so nothing is placed on it any more; the quit is written by
            // the kick, and the server closes its end.
            let _ = socket.handler().state.lock().conn.quit();
            socket.kick();
            let group = socket.group().clone();
            group.schedule_timer(Duration::from_millis(100), None, move |_| socket.close());
            if renew && !me.closing.load(Ordering::Acquire) {
                Self::connect(me, slot);
            }
        }
        if !above_size {
            // Nothing is left above the size: scans stop there again.
            let _ = me
                .span
                .compare_exchange(span, size, Ordering::AcqRel, Ordering::Acquire);
            // A size set meanwhile is scanned whatever this found.
            me.span.fetch_max(me.size(), Ordering::AcqRel);
        }
    }

    fn size(&self) -> usize {
        self.size.load(Ordering::Acquire)
    }

    /// The slots that may hold a connection (see the field `span`).
    fn span(&self) -> usize {
        self.span.load(Ordering::Acquire)
    }

    fn queue_timeout(&self) -> Duration {
        Duration::from_micros(self.queue_timeout_us.load(Ordering::Relaxed))
    }

    fn lifetime(&self) -> Duration {
        Duration::from_micros(self.lifetime_us.load(Ordering::Relaxed))
    }

    /// Submits a driver statement on `slot`'s connection directly (no depth check beyond the
    /// state machine's own).
    fn submit_internal(&self, slot: usize, sql: &str, completion: Box<dyn Completion>) -> bool {
        let Some(socket) = self.socket(slot) else {
            return false;
        };
        let id = INTERNAL | self.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut st = socket.handler().state.lock();
            if st.conn.submit_query(Tag(id), sql.as_bytes(), None).is_err() {
                return false;
            }
            st.answers.insert(
                id,
                Answer {
                    completion,
                    skip_results: 0,
                    first_result_done: false,
                },
            );
            socket.handler().idle.store(false, Ordering::Release);
        }
        socket.kick();
        true
    }

    /// Looks the marked statement `target` (on `target_slot`) up and kills it from another
    /// logged-in connection; looks again every millisecond while it has not started, and while
    /// no other connection is logged in.
    fn kill_by_query_id(self: &Arc<Self>, target_slot: usize, target: u64, lookup: String) {
        // A connection of the shared rotation if one is logged in, else a pinned one: the
        // look-up and the kill leave no session state.
        let usable = |slot: usize, pinned_too: bool| {
            slot != target_slot
                && self.socket(slot).is_some_and(|s| {
                    s.handler()
                        .state
                        .try_lock()
                        .is_some_and(|st| st.logged_in && (pinned_too || st.pinned.is_none()))
                })
        };
        let span = self.span().max(target_slot + 1);
        let others = || (0..span).map(|i| (target_slot + 1 + i) % span);
        let side = others()
            .find(|&slot| usable(slot, false))
            .or_else(|| others().find(|&slot| usable(slot, true)));
        let Some(side) = side else {
            // No other connection has logged in yet (start-up, reconnects): try again while the
            // statement runs, so the kill is not lost.
            if self.in_flight(target_slot, target) {
                let weak = Arc::downgrade(self);
                self.groups[target_slot % self.groups.len()].schedule_timer(
                    Duration::from_millis(1),
                    None,
                    move |_| {
                        if let Some(me) = weak.upgrade() {
                            me.kill_by_query_id(target_slot, target, lookup.clone());
                        }
                    },
                );
            }
            return;
        };
        let lookup_done = KillLookup {
            shared: Arc::downgrade(self),
            target_slot,
            target,
            side,
            lookup: lookup.clone(),
            query_id: None,
        };
        self.submit_internal(side, &lookup, Box::new(lookup_done));
    }

    /// Whether statement `target` is still in flight on `slot`.
    fn in_flight(&self, slot: usize, target: u64) -> bool {
        // Locked: its handler runs; asked again later, so taken as still in flight.
        self.socket(slot).is_some_and(|s| {
            s.handler()
                .state
                .try_lock()
                .is_none_or(|st| st.answers.contains_key(&target))
        })
    }
}

/// The lookup of a marked statement's query id; kills it when found.
struct KillLookup {
    shared: Weak<Shared>,
    target_slot: usize,
    target: u64,
    side: usize,
    lookup: String,
    query_id: Option<u64>,
}

impl Completion for KillLookup {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}

    fn on_row(&mut self, row: &TextRow) {
        self.query_id = row
            .get(0)
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse().ok());
    }

    fn on_done(self: Box<Self>, _: Result<OkInfo, StatementError>) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        match self.query_id {
            Some(query_id) => {
                shared.submit_internal(self.side, &kill_query_id_sql(query_id), Box::new(Ignore));
            }
            None if shared.in_flight(self.target_slot, self.target) => {
                // Not started yet (it waits behind others on its connection): look again.
                let group = shared.groups[self.side % shared.groups.len()].clone();
                let again = *self;
                group.schedule_timer(Duration::from_millis(1), None, {
                    let again = Mutex::new(Some(again));
                    move |_| {
                        if let Some(again) = again.lock().take()
                            && let Some(shared) = again.shared.upgrade()
                        {
                            let lookup = again.lookup.clone();
                            shared.submit_internal(again.side, &lookup, Box::new(again));
                        }
                    }
                });
            }
            None => {}
        }
    }
}

/// The completion of a driver statement whose answer does not matter.
struct Ignore;

impl Completion for Ignore {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}
    fn on_row(&mut self, _: &TextRow) {}
    fn on_done(self: Box<Self>, _: Result<OkInfo, StatementError>) {}
}

/// A backend connection taken out of the shared rotation for one session ([`Driver::pin`]).
/// Given back by [`Pinned::unpin`], or when dropped.
pub struct Pinned {
    shared: Arc<Shared>,
    socket: OutboundSocket<Arc<Backend>>,
    given_back: bool,
    /// Given back parked at this level rather than reset ([`Pinned::park_at`]).
    park: Mutex<Option<Level>>,
}

impl std::fmt::Debug for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pinned")
            .field("slot", &self.socket.handler().slot)
            .field("thread_id", &self.thread_id())
            .finish()
    }
}

impl Pinned {
    /// Submits `sql` on the pinned connection, behind the session's earlier statements (which
    /// wait in the session's own queue while [`DriverOptions::max_depth`] are in flight). Ends
    /// at once with 2013 when the connection was lost (its session state with it).
    /// [`Driver::cancel`] stops it as any other.
    pub fn submit(&self, sql: &str, completion: Box<dyn Completion>) -> StatementId {
        self.submit_behind("", 0, sql, completion)
    }

    /// [`Pinned::submit`] of `sql` behind `leading`, `skipped` statements (each ending with `;`)
    /// that bring the connection level first (a database switch, the session's variables), in
    /// one COM_QUERY: the completion sees the results that follow theirs, and the server runs
    /// nothing after a statement that fails, so the session's statement never runs on a
    /// connection left unlevel; its error is then the levelling statement's.
    pub fn submit_behind(
        &self,
        leading: &str,
        skipped: usize,
        sql: &str,
        completion: Box<dyn Completion>,
    ) -> StatementId {
        let mut waiting = self.shared.statement(sql, completion);
        waiting.leading = leading.as_bytes().to_vec();
        waiting.skip_results = skipped;
        let id = waiting.id;
        self.queue([Some(waiting), None]);
        StatementId(id)
    }

    /// [`Pinned::submit_behind`] of a statement and of the `then` statement right after it,
    /// queued together under one lock: nothing can come between them, and when the connection
    /// was lost both end at once with 2013, the statement first.
    pub fn submit_pair(
        &self,
        leading: &str,
        skipped: usize,
        sql: &str,
        completion: Box<dyn Completion>,
        then: &str,
        then_completion: Box<dyn Completion>,
    ) -> StatementId {
        let mut first = self.shared.statement(sql, completion);
        first.leading = leading.as_bytes().to_vec();
        first.skip_results = skipped;
        let second = self.shared.statement(then, then_completion);
        let id = first.id;
        self.queue([Some(first), Some(second)]);
        StatementId(id)
    }

    /// Queues `statements` in order on the pinned connection under one lock (nothing can come
    /// between them) and writes them at once: a pinned connection carries one session's
    /// statements, one at a time, and its caller may wait for the answer on this thread. When
    /// the connection was lost each ends with 2013, in order.
    fn queue(&self, statements: [Option<Waiting>; 2]) {
        let backend = self.socket.handler();
        let refused = {
            let mut st = backend.state.lock();
            if st.pinned == Some(PinState::Held) && st.conn.is_ready() {
                st.pinned_waiting.extend(statements.into_iter().flatten());
                st.pinned_progress(&self.shared, &backend.me);
                None
            } else {
                Some(statements)
            }
        };
        match refused {
            Some(statements) => {
                for waiting in statements.into_iter().flatten() {
                    waiting
                        .completion
                        .on_done(Err(StatementError::connection_lost()));
                }
            }
            None => self.socket.kick(),
        }
    }

    /// The backend's connection id (`CONNECTION_ID()` on the backend).
    pub fn thread_id(&self) -> Option<u32> {
        self.socket.handler().state.lock().conn.thread_id()
    }

    /// The session switched the connection's database: COM_RESET_CONNECTION keeps the current
    /// database, so when the connection is given back it is switched to the configured one
    /// again, or closed (and its slot reconnected) when none is configured.
    pub fn database_changed(&self) {
        self.socket.handler().state.lock().database_changed = true;
    }

    /// Whether the connection is still open: after a loss the session's backend state is gone
    /// and every statement ends with 2013.
    pub fn is_open(&self) -> bool {
        self.socket.handler().state.lock().conn.is_ready()
    }

    /// When given back, park the connection at `level` (what the session left there: its
    /// database and variables, nothing else that pins) instead of resetting it, unless that is
    /// how a fresh connection is: the next session at the same level takes it without a `USE`
    /// or a `SET` ([`Driver::pin_at`]).
    pub fn park_at(&self, level: Level) {
        *self.park.lock() = Some(level);
    }

    /// Gives the connection back: after the session's statements, COM_RESET_CONNECTION and the
    /// session trackers' set-up ([`TRACKING_INIT`]) run on it, and it rejoins the shared
    /// rotation when both succeed; it is closed (and its slot reconnected) when either fails.
    pub fn unpin(mut self) {
        self.give_back();
    }

    fn give_back(&mut self) {
        if std::mem::replace(&mut self.given_back, true) {
            return;
        }
        let backend = self.socket.handler();
        let fresh = |level: &Level| {
            level.vars.is_empty() && level.schema == self.shared.opts.config.database
        };
        let park = self.park.lock().take().filter(|level| !fresh(level));
        {
            let mut st = backend.state.lock();
            if st.pinned != Some(PinState::Held) {
                return;
            }
            match park {
                Some(level) if st.pinned_waiting.is_empty() && st.conn.is_ready() => {
                    st.pinned = Some(PinState::Parked);
                    st.parked_level = Some((level, Instant::now()));
                }
                _ => {
                    st.pinned = Some(PinState::Unpinning);
                    st.pinned_progress(&self.shared, &backend.me);
                }
            }
        }
        self.socket.kick();
        // A session waiting for a connection of its own at the level this one was parked at
        // takes it now.
        Shared::serve_pin_queue(&self.shared);
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        self.give_back();
    }
}

impl BackendState {
    /// Submits the pinned session's waiting statements while fewer than the depth limit are in
    /// flight; once the connection has been given back and they are all submitted, the reset
    /// and the trackers (which fit in the room the state machine keeps above the limit).
    fn pinned_progress(&mut self, shared: &Arc<Shared>, backend: &Weak<Backend>) {
        while self.conn.in_flight() < shared.opts.max_depth {
            let Some(next) = self.pinned_waiting.pop_front() else {
                break;
            };
            if self
                .conn
                .submit_query_behind(Tag(next.id), &next.leading, &next.sql, None)
                .is_err()
            {
                self.pinned_waiting.push_front(next);
                break;
            }
            self.answers.insert(
                next.id,
                Answer {
                    completion: next.completion,
                    skip_results: next.skip_results,
                    first_result_done: false,
                },
            );
            self.last_active = Instant::now();
        }
        if self.pinned != Some(PinState::Unpinning)
            || !self.pinned_waiting.is_empty()
            || self.conn.in_flight() > shared.opts.max_depth
        {
            return;
        }
        let database = shared.opts.config.database.as_deref();
        if self.database_changed && database.is_none() {
            // No database to switch back to: a fresh connection replaces this one once the
            // session's statements are answered.
            let _ = self.conn.quit();
            self.pinned = Some(PinState::Resetting);
            return;
        }
        let reset = INTERNAL | shared.next_id.fetch_add(1, Ordering::Relaxed);
        let init = INTERNAL | shared.next_id.fetch_add(1, Ordering::Relaxed);
        if self.conn.submit_reset(Tag(reset)).is_err() {
            // Closed: the slot's next connection starts unpinned.
            return;
        }
        let reset_failed = Arc::new(AtomicBool::new(false));
        self.answers.insert(
            reset,
            Answer {
                completion: Box::new(ResetDone {
                    failed: reset_failed.clone(),
                }),
                skip_results: 0,
                first_result_done: false,
            },
        );
        if let Some(database) = database.filter(|_| self.database_changed) {
            let switch = INTERNAL | shared.next_id.fetch_add(1, Ordering::Relaxed);
            if self.conn.submit_init_db(Tag(switch), database).is_ok() {
                self.answers.insert(
                    switch,
                    Answer {
                        completion: Box::new(ResetDone {
                            failed: reset_failed.clone(),
                        }),
                        skip_results: 0,
                        first_result_done: false,
                    },
                );
            } else {
                reset_failed.store(true, Ordering::Release);
            }
        }
        self.database_changed = false;
        if self
            .conn
            .submit_query(Tag(init), TRACKING_INIT.as_bytes(), None)
            .is_ok()
        {
            self.answers.insert(
                init,
                Answer {
                    completion: Box::new(Unpinned {
                        shared: Arc::downgrade(shared),
                        backend: backend.clone(),
                        reset_failed,
                    }),
                    skip_results: 0,
                    first_result_done: false,
                },
            );
        }
        self.pinned = Some(PinState::Resetting);
    }
}

/// The reset of a connection given back.
struct ResetDone {
    failed: Arc<AtomicBool>,
}

impl Completion for ResetDone {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}
    fn on_row(&mut self, _: &TextRow) {}
    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>) {
        if outcome.is_err() {
            self.failed.store(true, Ordering::Release);
        }
    }
}

/// The trackers' set-up after the reset of a connection given back: it rejoins the shared
/// rotation, or is closed when either failed.
struct Unpinned {
    shared: Weak<Shared>,
    backend: Weak<Backend>,
    reset_failed: Arc<AtomicBool>,
}

impl Completion for Unpinned {
    fn on_columns(&mut self, _: &Arc<ColumnSet>) {}
    fn on_row(&mut self, _: &TextRow) {}
    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>) {
        let (Some(shared), Some(backend)) = (self.shared.upgrade(), self.backend.upgrade()) else {
            return;
        };
        if outcome.is_ok() && !self.reset_failed.load(Ordering::Acquire) {
            {
                let mut st = backend.state.lock();
                if st.pinned != Some(PinState::Resetting) {
                    return;
                }
                st.pinned = None;
            }
            shared.reachable();
            Shared::drain_waiting(&shared);
            Shared::serve_pin_queue(&shared);
            return;
        }
        // Its state is unknown: close it; the handler's next pass reconnects the slot.
        backend.open.store(false, Ordering::Release);
        backend.state.lock().conn.handle_close();
        if let Some(socket) = shared.socket(backend.slot)
            && Arc::ptr_eq(socket.handler(), &backend)
        {
            socket.kick();
        }
    }
}

impl Backend {
    /// Whether the connection is logged in and open, never waiting for its state.
    fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }
}

impl SocketHandler for Backend {
    fn on_ready(&self, io: &OutboundIo<'_>, _group: &GroupHandle) -> Progress {
        let Some(shared) = self.shared.upgrade() else {
            return Progress::Close;
        };
        let mut room = false;
        let mut logged_in_now = false;
        // Why the connection closed before it logged in, for the statements that waited for it.
        let mut connect_failure: Option<String> = None;
        let mut io_error: Option<std::io::Error> = None;
        let mut refused_login: Option<StatementError> = None;
        // Input left in the socket for another worker (a completion holds back on this thread).
        let mut handover = false;
        // Terminal completions run after the connection's lock is let go (still inside this
        // pass, so in answer order): one may submit again (a kill's look-up does).
        let mut finished: Vec<(Box<dyn Completion>, Result<OkInfo, StatementError>)> = Vec::new();
        // When the pass's first command ended: one clock read for all the pass ends.
        let mut ended_at: Option<Instant> = None;
        let closed = {
            let mut guard = self.state.lock();
            let st = &mut *guard;
            // Write what is pending.
            while !st.conn.pending_output().is_empty() {
                match io.write(&[IoSlice::new(st.conn.pending_output())]) {
                    Ok(n) => st.conn.consume_output(n),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => {
                        io_error = Some(e);
                        st.conn.handle_close();
                        break;
                    }
                }
            }
            // Read what arrived, a buffer at a time, each buffer's events handled before the
            // next read: a completion's row may wait for its client (flow control, a full
            // socket), and until it has, what the server sends stays in the socket, so a fast
            // server's large result does not pile up in the connection's input.
            loop {
                let mut full = false;
                match io.read(&mut st.buf) {
                    Ok(0) => st.conn.handle_close(),
                    Ok(n) => {
                        st.conn.handle_input(&st.buf[..n]);
                        // A short read took all the socket had: what arrives later is a
                        // new edge, so the read that would find nothing is skipped.
                        full = n == st.buf.len();
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => {
                        io_error.get_or_insert(e);
                        st.conn.handle_close();
                    }
                }
                while let Some(event) = st.conn.poll_event() {
                    match event {
                        Event::Connected { .. } => {
                            // The trackers go first; statements pipeline behind them.
                            let id = INTERNAL | shared.next_id.fetch_add(1, Ordering::Relaxed);
                            if st
                                .conn
                                .submit_query(Tag(id), TRACKING_INIT.as_bytes(), None)
                                .is_ok()
                            {
                                st.answers.insert(
                                    id,
                                    Answer {
                                        completion: Box::new(Ignore),
                                        skip_results: 0,
                                        first_result_done: false,
                                    },
                                );
                            }
                            st.logged_in = true;
                            logged_in_now = true;
                        }
                        Event::Columns { tag, columns } => {
                            if let Some(a) = st.answers.get_mut(&tag.0)
                                && a.skip_results == 0
                                && !a.first_result_done
                            {
                                a.completion.on_columns(&columns);
                            }
                        }
                        Event::Row { tag, row } => {
                            if let Some(a) = st.answers.get_mut(&tag.0)
                                && a.skip_results == 0
                                && !a.first_result_done
                            {
                                a.completion.on_row(&row);
                            }
                        }
                        Event::ResultEnd { tag, .. } => {
                            if let Some(a) = st.answers.get_mut(&tag.0) {
                                if a.skip_results > 0 {
                                    a.skip_results -= 1;
                                } else {
                                    a.first_result_done = true;
                                    a.completion.on_result_end();
                                }
                            }
                        }
                        Event::Done { tag, ok } => {
                            room = true;
                            st.last_active = *ended_at.get_or_insert_with(Instant::now);
                            st.head_since = st.last_active;
                            if let Some(a) = st.answers.remove(&tag.0) {
                                finished.push((a.completion, Ok(ok)));
                            }
                        }
                        Event::Failed { tag, error } => {
                            room = true;
                            st.last_active = *ended_at.get_or_insert_with(Instant::now);
                            st.head_since = st.last_active;
                            if let Some(a) = st.answers.remove(&tag.0) {
                                finished.push((a.completion, Err(error)));
                            }
                        }
                        Event::LargeResult { .. } | Event::KillRequired { .. } => {}
                        Event::Closed { reason } => {
                            if !st.logged_in {
                                connect_failure = Some(match (&reason, &io_error) {
                                    (CloseReason::Connect(ConnectError::Refused(refused)), _) => {
                                        // The server's own answer: its code, not 2003.
                                        refused_login = Some(refused.clone());
                                        refused.message.clone()
                                    }
                                    (_, Some(io)) => io.to_string(),
                                    (CloseReason::Connect(err), None) => err.to_string(),
                                    (other, None) => format!("{other:?}"),
                                });
                            }
                        }
                    }
                }
                if !full || st.conn.is_closed() {
                    break;
                }
                if st.answers.values().any(|a| a.completion.holds_back()) {
                    handover = true;
                    break;
                }
            }
            if st.conn.is_closed() {
                finished.extend(
                    st.pinned_waiting
                        .drain(..)
                        .map(|w| (w.completion, Err(StatementError::connection_lost()))),
                );
            } else if st.pinned.is_some() {
                st.pinned_progress(&shared, &self.me);
            }
            // Output produced while polling (auth answers, the trackers, a pinned session's
            // statements) goes out now.
            while !st.conn.pending_output().is_empty() {
                match io.write(&[IoSlice::new(st.conn.pending_output())]) {
                    Ok(n) => st.conn.consume_output(n),
                    Err(_) => break,
                }
            }
            self.open
                .store(st.logged_in && !st.conn.is_closed(), Ordering::Release);
            self.idle.store(
                st.logged_in
                    && !st.conn.is_closed()
                    && st.pinned.is_none()
                    && st.conn.in_flight() == 0,
                Ordering::Release,
            );
            st.conn.is_closed()
        };
        for (completion, outcome) in finished {
            completion.on_done(outcome);
        }
        if logged_in_now {
            shared.slots[self.slot].lock().backoff = None;
            shared.reachable();
        }
        if closed {
            let mine = shared.slots[self.slot]
                .lock()
                .socket
                .as_ref()
                .is_some_and(|s| std::ptr::eq(&**s.handler(), self));
            // Not in its slot: the driver closed it, or a newer connection took the slot.
            if mine {
                Shared::reconnect_later(&shared, self.slot);
                match (refused_login, connect_failure) {
                    (Some(refused), _) => {
                        shared.connect_errors.fetch_add(1, Ordering::Relaxed);
                        Shared::unreachable_now(&shared, refused);
                    }
                    (None, Some(detail)) => Shared::connect_failed(&shared, &detail),
                    (None, None) => {
                        shared.lost.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            return Progress::Close;
        }
        // After the state's lock is let go: a placement that skipped this connection because
        // the lock was held left its statement queued (`Shared::place`).
        if room || logged_in_now || shared.skipped_busy.swap(false, Ordering::SeqCst) {
            Shared::drain_waiting(&shared);
        }
        if logged_in_now {
            Shared::serve_pin_queue(&shared);
        }
        if handover {
            Progress::Handover
        } else {
            Progress::Idle
        }
    }
}
