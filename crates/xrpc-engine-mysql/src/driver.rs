//! The backend driver on the event loop: backend connections whose sockets are registered in the
//! node's epoll groups ([`xrpc_net::outbound`]), each an [`xrpc_mysql_proto::Connection`] state
//! machine, with the statements of many submitters pipelined on each.
//!
//! # Design
//!
//! - **No thread waits on the backend.** [`Driver::submit`] puts a statement into a backend
//!   connection's state machine and kicks its socket: the submitting thread writes the bytes if
//!   the socket's gate is free, or leaves them to the thread that holds it. The answer is read by
//!   whichever worker of the socket's group takes the readability event, and handed to the
//!   statement's [`Completion`] on that worker.
//! - **Pipelining up to a depth.** A statement goes to the open connection with the fewest
//!   commands in flight among those that accept more (below [`DriverOptions::max_depth`], and
//!   not streaming a large result: `Connection::accepts_more`). Answers are matched in order by
//!   the state machine; each command ends with exactly one terminal event, so each completion
//!   gets exactly one [`Completion::on_done`]. When no connection has room the statement waits
//!   in the driver's queue, in submission order, and goes out as soon as a command ends
//!   anywhere. Submit and the drain after a command ends both decide under the queue's lock,
//!   so a statement never waits while a connection has room.
//! - **Only statements that need no session state.** Every statement is written onto a shared
//!   connection, between other submitters' statements: the caller submits only statements of
//!   sessions that hold no backend state. A statement that leaves state on its connection is
//!   the caller's to detect from the OK data ([`crate::state`]) before it relies on the driver
//!   for that session again; the driver resets nothing by itself.
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
//!   [`DriverOptions::reconnect_max`] while connects fail, and is reset by a login.
//! - **Completions run on the reading worker,** in answer order: columns and rows under the
//!   connection's lock, the terminal call after it; they must not block (a session pushes rows into its output buffer and flow control holds
//!   its sink, not the worker), or every statement pipelined behind them waits.
//!
//! The depth each statement found its connection at (itself included) is counted
//! ([`Driver::depth_distribution`]).

use std::collections::{HashMap, VecDeque};
use std::io::{ErrorKind, IoSlice};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use xrpc_mysql_proto::mysql_common::packets::Column;
use xrpc_mysql_proto::{
    Cancelled, Config, Connection, Event, OkInfo, StatementError, Tag, TextRow, kill_query_id_sql,
};
use xrpc_net::{GroupHandle, OutboundIo, OutboundSocket, Progress, SocketHandler};

use crate::pool::TRACKING_INIT;

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
    /// Backend connections.
    pub connections: usize,
    /// Most statements in flight on one backend connection.
    pub max_depth: usize,
    /// First pause before reconnecting a lost connection.
    pub reconnect_min: Duration,
    /// Longest pause between reconnects.
    pub reconnect_max: Duration,
}

impl DriverOptions {
    /// Options for `addr` with `config`, 4 connections, depth 16, reconnects after 100 ms up to
    /// 5 s (the blocking pool's connect backoff).
    pub fn new(addr: SocketAddr, config: Config) -> Self {
        Self {
            addr,
            config,
            connections: 4,
            max_depth: 16,
            reconnect_min: Duration::from_millis(100),
            reconnect_max: Duration::from_secs(5),
        }
    }
}

/// Receives one statement's answer, on the worker that reads it.
pub trait Completion: Send + 'static {
    /// The first result's columns.
    fn on_columns(&mut self, columns: &Arc<[Column]>);
    /// One row of the first result.
    fn on_row(&mut self, row: &TextRow);
    /// The terminal event: the final OK data or the error (the server's, 1317 when cancelled,
    /// 2013 when the connection was lost). Called exactly once.
    fn on_done(self: Box<Self>, outcome: Result<OkInfo, StatementError>);
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
            .field("connections", &self.shared.opts.connections)
            .finish()
    }
}

struct Shared {
    opts: DriverOptions,
    groups: Vec<GroupHandle>,
    slots: Vec<Mutex<Slot>>,
    waiting: Mutex<VecDeque<Waiting>>,
    next_id: AtomicU64,
    /// [`Driver::close`] was called: no reconnects, no new statements.
    closing: AtomicBool,
    depths: [AtomicU64; DEPTH_BUCKETS.len()],
}

#[derive(Default)]
struct Slot {
    socket: Option<OutboundSocket<Arc<Backend>>>,
    backoff: Option<Duration>,
}

struct Waiting {
    id: u64,
    sql: Vec<u8>,
    completion: Box<dyn Completion>,
}

struct Backend {
    slot: usize,
    shared: Weak<Shared>,
    state: Mutex<BackendState>,
}

struct BackendState {
    conn: Connection,
    /// Statements in flight by tag (the tag is the statement id).
    answers: HashMap<u64, Answer>,
    buf: Box<[u8]>,
    logged_in: bool,
}

struct Answer {
    completion: Box<dyn Completion>,
    /// The first result ended: later results are dropped.
    first_result_done: bool,
}

/// Ids of the driver's own statements (tracker set-up, kill lookups) have this bit set.
const INTERNAL: u64 = 1 << 63;

impl Driver {
    /// Opens `opts.connections` backend connections, spread over `groups` (at least one), and
    /// returns at once; statements submitted before a login wait in the driver's queue.
    ///
    /// # Panics
    ///
    /// If `groups` is empty.
    pub fn start(groups: &[GroupHandle], mut opts: DriverOptions) -> Self {
        assert!(!groups.is_empty(), "the driver needs an epoll group");
        opts.connections = opts.connections.max(1);
        opts.max_depth = opts.max_depth.max(1);
        opts.config.max_depth = opts.max_depth + 2;
        opts.config.mark_statements = true;
        let shared = Arc::new(Shared {
            slots: (0..opts.connections)
                .map(|_| Mutex::new(Slot::default()))
                .collect(),
            opts,
            groups: groups.to_vec(),
            waiting: Mutex::new(VecDeque::new()),
            next_id: AtomicU64::new(1),
            closing: AtomicBool::new(false),
            depths: Default::default(),
        });
        for slot in 0..shared.slots.len() {
            Shared::connect(&shared, slot);
        }
        Self { shared }
    }

    /// Submits `sql`; its answer goes to `completion` on the worker that reads it.
    pub fn submit(&self, sql: &str, completion: Box<dyn Completion>) -> StatementId {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let waiting = Waiting {
            id,
            sql: sql.as_bytes().to_vec(),
            completion,
        };
        let placed = {
            let mut queue = self.shared.waiting.lock();
            if self.shared.closing.load(Ordering::Acquire) {
                drop(queue);
                waiting
                    .completion
                    .on_done(Err(StatementError::connection_lost()));
                return StatementId(id);
            }
            if queue.is_empty() {
                match self.shared.place(waiting) {
                    Ok(socket) => Some(socket),
                    Err(back) => {
                        queue.push_back(back);
                        None
                    }
                }
            } else {
                queue.push_back(waiting);
                None
            }
        };
        // Written after the queue's lock is let go: the kick may run the handler on this
        // thread, and the handler drains the queue.
        if let Some(socket) = placed {
            socket.kick();
        }
        StatementId(id)
    }

    /// Stops a submitted statement; see the module docs, "Kill".
    pub fn cancel(&self, id: StatementId) -> CancelOutcome {
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
        for slot in 0..self.shared.slots.len() {
            let Some(socket) = self.shared.socket(slot) else {
                continue;
            };
            let backend = socket.handler();
            let cancelled = {
                let mut st = backend.state.lock();
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
        (0..self.shared.slots.len())
            .filter_map(|slot| self.shared.socket(slot))
            .filter(|socket| socket.handler().state.lock().logged_in)
            .count()
    }

    /// Statements waiting in the driver's queue for room on a connection.
    pub fn queued(&self) -> usize {
        self.shared.waiting.lock().len()
    }

    /// Closes every backend connection (their statements in flight end with 2013), ends the
    /// statements waiting in the driver's queue with 2013 too, and stops reconnecting.
    pub fn close(&self) {
        self.shared.closing.store(true, Ordering::Release);
        for slot in &self.shared.slots {
            let socket = {
                let mut slot = slot.lock();
                slot.backoff = None;
                slot.socket.take()
            };
            if let Some(socket) = socket {
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
    }
}

impl Shared {
    fn socket(&self, slot: usize) -> Option<OutboundSocket<Arc<Backend>>> {
        self.slots[slot].lock().socket.clone()
    }

    /// Opens the connection of `slot` (again).
    fn connect(me: &Arc<Self>, slot: usize) {
        let group = &me.groups[slot % me.groups.len()];
        let backend = Arc::new(Backend {
            slot,
            shared: Arc::downgrade(me),
            state: Mutex::new(BackendState {
                conn: Connection::new(me.opts.config.clone(), Instant::now()),
                answers: HashMap::new(),
                buf: vec![0; 64 * 1024].into_boxed_slice(),
                logged_in: false,
            }),
        });
        // The slot stays locked until the socket is in it: a worker that finds the connection
        // closed (a refused connect is reported at once) looks for it there to reconnect.
        let mut guard = me.slots[slot].lock();
        match group.connect_outbound(me.opts.addr, backend) {
            Ok(socket) => {
                guard.socket = Some(socket.clone());
                drop(guard);
                Self::arm_timer(&socket);
            }
            Err(_) => {
                drop(guard);
                Self::reconnect_later(me, slot);
            }
        }
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
            let weak = Arc::downgrade(&socket.handler().clone());
            let socket = socket.clone();
            let after = at.saturating_duration_since(Instant::now());
            socket
                .group()
                .clone()
                .schedule_timer(after, None, move |_| {
                    if weak.upgrade().is_some() {
                        socket
                            .handler()
                            .state
                            .lock()
                            .conn
                            .handle_timeout(Instant::now());
                        socket.kick();
                    }
                });
        }
    }

    /// Puts a statement on the open connection with the fewest commands in flight that accepts
    /// more and returns that connection's socket, to be kicked once the waiting queue's lock is
    /// let go; gives the statement back when no connection has room. Called under that lock.
    fn place(&self, waiting: Waiting) -> Result<OutboundSocket<Arc<Backend>>, Waiting> {
        let mut best: Option<(usize, OutboundSocket<Arc<Backend>>)> = None;
        for slot in 0..self.slots.len() {
            let Some(socket) = self.socket(slot) else {
                continue;
            };
            let depth = {
                let st = socket.handler().state.lock();
                if !st.logged_in
                    || !st.conn.accepts_more()
                    || st.conn.in_flight() >= self.opts.max_depth
                {
                    continue;
                }
                st.conn.in_flight()
            };
            if best.as_ref().is_none_or(|(d, _)| depth < *d) {
                best = Some((depth, socket));
            }
        }
        let Some((_, socket)) = best else {
            return Err(waiting);
        };
        let depth = {
            let mut st = socket.handler().state.lock();
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
                    first_result_done: false,
                },
            );
            st.conn.in_flight()
        };
        let bucket = DEPTH_BUCKETS
            .iter()
            .position(|&b| depth <= b)
            .unwrap_or(DEPTH_BUCKETS.len() - 1);
        self.depths[bucket].fetch_add(1, Ordering::Relaxed);
        Ok(socket)
    }

    /// Moves waiting statements onto connections while they have room, then kicks the
    /// connections that got one.
    fn drain_waiting(&self) {
        let mut kick: Vec<OutboundSocket<Arc<Backend>>> = Vec::new();
        {
            let mut queue = self.waiting.lock();
            while let Some(next) = queue.pop_front() {
                match self.place(next) {
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
        }
        for socket in kick {
            socket.kick();
        }
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
                    first_result_done: false,
                },
            );
        }
        socket.kick();
        true
    }

    /// Looks the marked statement `target` (on `target_slot`) up and kills it from another
    /// logged-in connection; looks again every millisecond while it has not started.
    fn kill_by_query_id(self: &Arc<Self>, target_slot: usize, target: u64, lookup: String) {
        let side = (0..self.slots.len())
            .map(|i| (target_slot + 1 + i) % self.slots.len())
            .find(|&slot| {
                slot != target_slot
                    && self
                        .socket(slot)
                        .is_some_and(|s| s.handler().state.lock().logged_in)
            });
        let Some(side) = side else {
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
        self.socket(slot)
            .is_some_and(|s| s.handler().state.lock().answers.contains_key(&target))
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
    fn on_columns(&mut self, _: &Arc<[Column]>) {}

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
    fn on_columns(&mut self, _: &Arc<[Column]>) {}
    fn on_row(&mut self, _: &TextRow) {}
    fn on_done(self: Box<Self>, _: Result<OkInfo, StatementError>) {}
}

impl SocketHandler for Backend {
    fn on_ready(&self, io: &OutboundIo<'_>, _group: &GroupHandle) -> Progress {
        let Some(shared) = self.shared.upgrade() else {
            return Progress::Close;
        };
        let mut room = false;
        let mut logged_in_now = false;
        // Terminal completions run after the connection's lock is let go (still inside this
        // pass, so in answer order): one may submit again (a kill's look-up does).
        let mut finished: Vec<(Box<dyn Completion>, Result<OkInfo, StatementError>)> = Vec::new();
        let closed = {
            let mut guard = self.state.lock();
            let st = &mut *guard;
            // Write what is pending.
            while !st.conn.pending_output().is_empty() {
                match io.write(&[IoSlice::new(st.conn.pending_output())]) {
                    Ok(n) => st.conn.consume_output(n),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(_) => {
                        st.conn.handle_close();
                        break;
                    }
                }
            }
            // Read what arrived.
            loop {
                match io.read(&mut st.buf) {
                    Ok(0) => {
                        st.conn.handle_close();
                        break;
                    }
                    Ok(n) => st.conn.handle_input(&st.buf[..n]),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(_) => {
                        st.conn.handle_close();
                        break;
                    }
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
                                    first_result_done: false,
                                },
                            );
                        }
                        st.logged_in = true;
                        logged_in_now = true;
                    }
                    Event::Columns { tag, columns } => {
                        if let Some(a) = st.answers.get_mut(&tag.0)
                            && !a.first_result_done
                        {
                            a.completion.on_columns(&columns);
                        }
                    }
                    Event::Row { tag, row } => {
                        if let Some(a) = st.answers.get_mut(&tag.0)
                            && !a.first_result_done
                        {
                            a.completion.on_row(&row);
                        }
                    }
                    Event::ResultEnd { tag, .. } => {
                        if let Some(a) = st.answers.get_mut(&tag.0) {
                            a.first_result_done = true;
                        }
                    }
                    Event::Done { tag, ok } => {
                        room = true;
                        if let Some(a) = st.answers.remove(&tag.0) {
                            finished.push((a.completion, Ok(ok)));
                        }
                    }
                    Event::Failed { tag, error } => {
                        room = true;
                        if let Some(a) = st.answers.remove(&tag.0) {
                            finished.push((a.completion, Err(error)));
                        }
                    }
                    Event::LargeResult { .. } | Event::KillRequired { .. } => {}
                    Event::Closed { .. } => {}
                }
            }
            // Output produced while polling (auth answers, the trackers) goes out now.
            while !st.conn.pending_output().is_empty() {
                match io.write(&[IoSlice::new(st.conn.pending_output())]) {
                    Ok(n) => st.conn.consume_output(n),
                    Err(_) => break,
                }
            }
            st.conn.is_closed()
        };
        for (completion, outcome) in finished {
            completion.on_done(outcome);
        }
        if logged_in_now {
            shared.slots[self.slot].lock().backoff = None;
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
            }
            return Progress::Close;
        }
        if room || logged_in_now {
            shared.drain_waiting();
        }
        Progress::Idle
    }
}
