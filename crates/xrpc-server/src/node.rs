//! The data node's shared state: what every connection and session reaches for.
//!
//! [`NodeShared`] holds the engine, the request cache, accounts, live settings, session counters,
//! the timestamp oracle and the registry of running statements, and answers `SHOW STATUS`. It
//! knows nothing of the framework's handler: starting and draining the node live in
//! [`crate::server`], which depends on this module and on the connection handler, never the
//! other way round.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use xrpc_net::group::GroupHandle;
use xrpc_net::handler::UnitId;
use xrpc_net::hist::PerfHistograms;
use xrpc_net::stats::NetStats;
use xrpc_net::{ConnRef, WeakConnRef};
use xrpc_proto::frame::HeaderFormat;

use crate::admin::{
    self, AdminContext, AdminOutcome, KillOutcome, KillScope, SessionKiller, StatusSource,
};
use crate::auth::Accounts;
use crate::cache::RequestCache;
use crate::engine::{Engine, Interrupt};
use crate::host_block::HostBlocker;
use crate::result::ResultSink;
use crate::settings::Settings;
use crate::var_store::Variables;
use crate::vars::VarId;

/// Session counters, for limits and `SHOW STATUS`.
#[derive(Debug, Default)]
pub struct SessionCounters {
    /// Sessions opened with SESS_NEW and not yet removed.
    pub worker_sessions: AtomicUsize,
    /// Every live session, auto-commit ones included.
    pub total_sessions: AtomicUsize,
    /// Sessions ever created; numbers `connection_id()`.
    pub created: AtomicU64,
}

/// A monotonic timestamp oracle in the PolarDB-X layout: milliseconds since the epoch shifted left by
/// 22 bits, plus a logical counter in the low bits.
#[derive(Debug, Default)]
pub struct Tso {
    last: Mutex<u64>,
}

impl Tso {
    const LOGICAL_BITS: u32 = 22;

    /// Reserves `batch` consecutive timestamps and returns the first.
    pub fn next(&self, batch: u32) -> u64 {
        let physical = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut last = self.last.lock();
        let candidate = physical << Self::LOGICAL_BITS;
        let first = if candidate > *last {
            candidate
        } else {
            *last + 1
        };
        *last = first + u64::from(batch.max(1)) - 1;
        first
    }
}

/// State shared by every connection and session of the node.
pub struct NodeShared {
    /// Where SQL runs.
    pub engine: Arc<dyn Engine>,
    /// Statement digests → statements.
    pub cache: RequestCache,
    /// Plan digests → plans (EXEC_PLAN_READ), encoded as `AnyPlan`; same sizes as `cache`.
    pub plan_cache: RequestCache,
    /// Table shapes for the plan compiler, kept while no schema changes (engines that see them all).
    pub plan_shapes: crate::plan::catalog::ShapeCache,
    /// Variables: settings, live ones included (`SET GLOBAL`).
    pub vars: Arc<Variables>,
    /// Who may connect.
    pub accounts: Accounts,
    /// Frame header layout.
    pub format: HeaderFormat,
    /// Session counters.
    pub counters: SessionCounters,
    /// Statements, errors, rows and sessions, for `SHOW STATUS` and the metrics.
    pub requests: crate::counters::RequestCounters,
    /// Timestamp oracle for GET_TSO.
    pub tso: Tso,
    /// The TLS configuration new handshakes use (disabled unless the node has a certificate).
    pub tls: crate::tls::TlsContext,
    /// Client addresses that failed authentication too often (`xrpc_max_connect_errors`).
    pub hosts: HostBlocker,
    draining: AtomicBool,
    groups: OnceLock<Vec<GroupHandle>>,
    /// The interrupters of the statements running now, by session number, for the drain. Sharded
    /// by session number, because every statement registers here: one mutex would be a node-wide
    /// lock on the hot path.
    running: Box<[RunningShard]>,
    /// Set by [`NodeShared::interrupt_running`]: from then on a statement is interrupted as it
    /// registers, so none that starts while the drain interrupts is missed.
    interrupting_all: AtomicBool,
    /// The live sessions opened with SESS_NEW, by number (`connection_id()`), for SQL `KILL`.
    /// Sharded like `running`; registered at SESS_NEW, removed with the session.
    sessions: Box<[SessionShard]>,
    /// When the node was built: `SHOW STATUS`'s `Uptime` counts from here.
    born: Instant,
}

impl std::fmt::Debug for NodeShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeShared")
            .field("engine", &self.engine.name())
            .field("format", &self.format)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl NodeShared {
    /// Shared state around an engine.
    pub fn new(
        engine: Arc<dyn Engine>,
        cache: RequestCache,
        accounts: Accounts,
        vars: Arc<Variables>,
        format: HeaderFormat,
    ) -> Self {
        use crate::plan::catalog::ShapeKeeping;
        let shape_keeping = if engine.sees_all_schema_changes() {
            ShapeKeeping::UntilSchemaChange
        } else {
            engine
                .plan_shape_lifetime()
                .map_or(ShapeKeeping::Never, ShapeKeeping::For)
        };
        Self {
            engine,
            cache,
            plan_cache: RequestCache::default(),
            plan_shapes: crate::plan::catalog::ShapeCache::new(shape_keeping),
            vars,
            accounts,
            format,
            counters: SessionCounters::default(),
            requests: crate::counters::RequestCounters::default(),
            tso: Tso::default(),
            tls: crate::tls::TlsContext::disabled(),
            hosts: HostBlocker::default(),
            draining: AtomicBool::new(false),
            born: Instant::now(),
            groups: OnceLock::new(),
            running: (0..RUNNING_SHARDS).map(|_| Mutex::default()).collect(),
            interrupting_all: AtomicBool::new(false),
            sessions: (0..RUNNING_SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    /// Whether the node is draining: queued requests are answered with an error instead of run.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// The per-session queue bound in force.
    pub fn max_queued_messages(&self) -> usize {
        self.vars.max_queued_messages()
    }

    /// The node-wide session bound in force.
    pub fn max_sessions(&self) -> usize {
        self.vars.max_sessions()
    }

    /// Failed authentications tolerated per connection.
    pub fn auth_max_failures(&self) -> u32 {
        self.vars.auth_max_failures()
    }

    /// Counts a new session, unless a normal session would exceed `max_sessions`. Returns the
    /// session's number.
    pub fn session_added(&self, auto_commit: bool) -> Option<u64> {
        if !auto_commit {
            let max = self.max_sessions();
            let admitted = self
                .counters
                .worker_sessions
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < max).then_some(n + 1)
                })
                .is_ok();
            if !admitted {
                return None;
            }
            self.requests.session_opened();
        }
        self.counters.total_sessions.fetch_add(1, Ordering::AcqRel);
        Some(self.counters.created.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Registers a session opened with SESS_NEW on `conn`, so SQL `KILL` can find it by number.
    /// (Auto-commit sessions live for one request and are not registered.)
    pub(crate) fn session_opened<S: RegisteredSession + 'static>(
        &self,
        session: &Arc<S>,
        conn: &ConnRef,
    ) {
        let weak: Weak<S> = Arc::downgrade(session);
        let entry: (Weak<dyn RegisteredSession>, _) = (weak, conn.downgrade());
        self.session_shard(session.number())
            .lock()
            .insert(session.number(), entry);
    }

    /// Uncounts a removed or closed session (and forgets it for `KILL`); only the first call
    /// for a session counts.
    pub fn session_removed(&self, session: &(impl RegisteredSession + ?Sized)) {
        if !session.take_counted() {
            return;
        }
        if !session.is_auto_commit() {
            self.requests.session_closed();
            self.counters.worker_sessions.fetch_sub(1, Ordering::AcqRel);
            self.session_shard(session.number())
                .lock()
                .remove(&session.number());
        }
        self.counters.total_sessions.fetch_sub(1, Ordering::AcqRel);
    }

    /// The framework runs with `groups`: the node counts as inited, and the settings that act on
    /// the engine and the cache start to apply (see [`crate::server::Node::start`]).
    pub(crate) fn started(self: &Arc<Self>, groups: Vec<GroupHandle>) {
        self.engine.started(&groups);
        let _ = self.groups.set(groups);
        self.start_shared_session_refresh();
        self.apply_request_cache_max_length();
    }

    /// From now on queued requests are answered with an error instead of run.
    pub(crate) fn begin_drain(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Applies `xrpc_shared_session_lifetime` to the engine's pooled connections (which serve
    /// auto-commit sids and borrowing sessions), now and on every `SET GLOBAL`, and sweeps expired
    /// idle ones every `xrpc_epoll_group_ctx_refresh_time` from a timer on the first group.
    fn start_shared_session_refresh(self: &Arc<Self>) {
        self.engine
            .set_connection_lifetime(self.vars.shared_session_lifetime());
        let weak = Arc::downgrade(self);
        self.vars.on_change(VarId::SharedSessionLifetime, move |_| {
            if let Some(node) = weak.upgrade() {
                node.engine
                    .set_connection_lifetime(node.vars.shared_session_lifetime());
            }
        });
        let Some(group) = self.groups().first() else {
            return;
        };
        // The sweep interval itself can change at runtime, so the timer ticks every second and
        // sweeps once the configured interval has passed.
        let weak = Arc::downgrade(self);
        let last_sweep = Mutex::new(Instant::now());
        group.schedule_timer(
            Duration::from_secs(1),
            Some(Duration::from_secs(1)),
            move |_| {
                let Some(node) = weak.upgrade() else {
                    return;
                };
                let mut last = last_sweep.lock();
                if last.elapsed() >= node.vars.ctx_refresh_time() {
                    *last = Instant::now();
                    let closed = node.engine.sweep_expired();
                    if closed > 0 {
                        tracing::debug!(closed, "closed expired pooled engine connections");
                    }
                }
            },
        );
    }

    fn session_shard(&self, number: u64) -> &SessionShard {
        &self.sessions[(number % RUNNING_SHARDS as u64) as usize]
    }

    fn running_shard(&self, number: u64) -> &RunningShard {
        &self.running[(number % RUNNING_SHARDS as u64) as usize]
    }

    /// Session `number` starts running a statement that `interrupt` stops. The session has
    /// already cleared `interrupt` (see [`crate::session`]), so an interrupt from here on lands.
    pub(crate) fn statement_started(&self, number: u64, interrupt: Arc<dyn Interrupt>) {
        let mut shard = self.running_shard(number).lock();
        // Read under the shard lock that `interrupt_running` takes after setting the flag: the
        // statement is either in its snapshot or sees the flag here.
        if self.interrupting_all.load(Ordering::SeqCst) {
            interrupt.interrupt();
        }
        shard.insert(number, interrupt);
    }

    /// Session `number`'s statement ended.
    pub(crate) fn statement_ended(&self, number: u64) {
        self.running_shard(number).lock().remove(&number);
    }

    /// Statements running now, over every session.
    pub fn running_statements(&self) -> usize {
        self.running.iter().map(|shard| shard.lock().len()).sum()
    }

    /// Interrupts every running statement (each ends with 1317), and every statement that starts
    /// from now on; returns how many were running.
    pub(crate) fn interrupt_running(&self) -> usize {
        self.interrupting_all.store(true, Ordering::SeqCst);
        let running: Vec<_> = self
            .running
            .iter()
            .flat_map(|shard| shard.lock().values().cloned().collect::<Vec<_>>())
            .collect();
        for interrupt in &running {
            interrupt.interrupt();
        }
        running.len()
    }

    /// Applies `SET GLOBAL xrpc_request_cache_max_length` to the request cache.
    fn apply_request_cache_max_length(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        self.vars
            .on_change(VarId::RequestCacheMaxLength, move |value| {
                if let (Some(node), Some(len)) = (weak.upgrade(), value.as_int()) {
                    node.cache
                        .set_max_len(usize::try_from(len).unwrap_or(usize::MAX));
                }
            });
    }

    /// The framework's groups, once the node runs.
    pub fn groups(&self) -> &[GroupHandle] {
        self.groups.get().map_or(&[], Vec::as_slice)
    }

    /// Answers `script` if it is the node's own SQL (SHOW VARIABLES, SET GLOBAL, CALL xrpc.perf_hist, …);
    /// see [`AdminOutcome`] for what the engine then runs.
    /// `user` runs it (`None`: the node itself).
    pub fn try_admin(
        &self,
        script: &xrpc_sql::Script,
        user: Option<&str>,
        sink: &mut dyn ResultSink,
    ) -> AdminOutcome {
        static IDLE: OnceLock<PerfHistograms> = OnceLock::new();
        let hist = match self.groups().first() {
            Some(group) => group.perf(),
            None => IDLE.get_or_init(|| PerfHistograms::new(false)),
        };
        let ctx = AdminContext {
            vars: &self.vars,
            status: self,
            hist,
            sessions: self,
            user,
            hosts: &self.hosts,
            engine_owns_variables: self.engine.owns_system_variables(),
            tls: &self.tls,
        };
        admin::try_admin(script, &ctx, sink)
    }
}

impl StatusSource for NodeShared {
    fn status(&self) -> Vec<(String, String)> {
        let net = self.net_stats();
        let cache = &self.cache;
        let load = |counter: &AtomicUsize| counter.load(Ordering::Relaxed).to_string();
        let mut rows = vec![
            (
                "xrpc_inited".into(),
                if self.groups.get().is_some() {
                    "ON"
                } else {
                    "OFF"
                }
                .into(),
            ),
            ("xrpc_tcp_connections".into(), net.connections.to_string()),
            ("xrpc_tcp_closing".into(), net.closing.to_string()),
            (
                "xrpc_worker_sessions".into(),
                load(&self.counters.worker_sessions),
            ),
            (
                "xrpc_total_sessions".into(),
                load(&self.counters.total_sessions),
            ),
            (
                "xrpc_threads".into(),
                (net.base_threads + net.extra_threads).to_string(),
            ),
            (
                "xrpc_blocked_hosts".into(),
                self.hosts.blocked().to_string(),
            ),
            ("xrpc_sql_hit".into(), cache.hits().to_string()),
            ("xrpc_sql_miss".into(), cache.misses().to_string()),
            ("xrpc_sql_evict".into(), cache.evictions().to_string()),
            ("xrpc_plan_hit".into(), self.plan_cache.hits().to_string()),
            (
                "xrpc_plan_miss".into(),
                self.plan_cache.misses().to_string(),
            ),
            (
                "xrpc_plan_evict".into(),
                self.plan_cache.evictions().to_string(),
            ),
            // The process's binary log (one per process; see binlog/).
            (
                "xrpc_binlog_written".into(),
                crate::binlog::global().written().to_string(),
            ),
            (
                "xrpc_binlog_dropped".into(),
                crate::binlog::global().dropped().to_string(),
            ),
        ];
        // MySQL's name, so that clients that show a server's uptime find the node's. An engine
        // that owns the status variables (the `mysql` engine) lists its backend's `Uptime`.
        if !self.engine.owns_system_variables() {
            rows.push(("Uptime".into(), self.born.elapsed().as_secs().to_string()));
        }
        // The compiled-plan cache (plan/catalog.rs, "Counters"), apart from the digest cache above.
        let compiled = self.plan_shapes.compiled_counters();
        rows.extend(
            [
                ("xrpc_plan_compiled_hit", compiled.hits),
                ("xrpc_plan_compiled_miss", compiled.misses),
                ("xrpc_plan_compilations", compiled.compilations),
                ("xrpc_plan_compiled_evict", compiled.evictions),
                ("xrpc_plan_compiled_invalidated", compiled.invalidations),
                ("xrpc_plan_compiled_expired", compiled.expirations),
                ("xrpc_plan_compiled_entries", compiled.entries),
            ]
            .map(|(name, value)| (name.to_owned(), value.to_string())),
        );
        rows
    }

    fn engine_status(&self) -> Vec<(String, String)> {
        self.engine.status_rows()
    }

    fn request_totals(&self) -> crate::counters::RequestTotals {
        self.requests.totals()
    }

    fn net_stats(&self) -> NetStats {
        self.groups()
            .first()
            .map_or_else(NetStats::default, |group| group.counters().snapshot())
    }
}

impl SessionKiller for NodeShared {
    fn kill(&self, number: u64, scope: KillScope, requester: Option<&str>) -> KillOutcome {
        let entry = self.session_shard(number).lock().get(&number).cloned();
        let Some((session, conn)) = entry else {
            return KillOutcome::Unknown;
        };
        let (Some(session), Some(conn)) = (session.upgrade(), conn.upgrade()) else {
            return KillOutcome::Unknown;
        };
        if session.is_gone() {
            return KillOutcome::Unknown;
        }
        if let Some(requester) = requester
            && session.user() != Some(requester)
            && !self.accounts.is_connection_admin(requester)
        {
            return KillOutcome::NotOwner;
        }
        match scope {
            KillScope::Query => session.kill_query(),
            KillScope::Connection => {
                // As SESS_KILL CONNECTION: the FATAL is the session's last frame, then it is
                // removed. Only its connection's handler may take it out of the connection's map:
                // running it as a unit of its connection finds it gone and does.
                session.kill_connection(&conn, self);
                let unit = UnitId(session.sid());
                if conn.schedule(unit).is_err() {
                    // The work queue is full: try again in a moment, as the spill does.
                    let weak = conn.downgrade();
                    conn.group()
                        .schedule_timer(Duration::from_millis(1), None, move |_| {
                            if let Some(conn) = weak.upgrade() {
                                let _ = conn.schedule(unit);
                            }
                        });
                }
            }
        }
        KillOutcome::Done
    }
}

/// One shard of the session registry: sessions and their connections by session number.
type SessionShard = Mutex<HashMap<u64, (Weak<dyn RegisteredSession>, WeakConnRef)>>;

/// What the node's session registry needs of a session (the session layer's `Session`): its
/// identity and owner for SQL `KILL`, and the kills themselves. The registry holds sessions
/// weakly, so a closed session is gone from it even before it is removed.
pub trait RegisteredSession: Send + Sync {
    /// The session's number (`connection_id()`).
    fn number(&self) -> u64;
    /// The session's id on its connection.
    fn sid(&self) -> u64;
    /// The account the session authenticated as.
    fn user(&self) -> Option<&str>;
    /// Whether the session lives for one request only (and is never registered).
    fn is_auto_commit(&self) -> bool;
    /// Whether the session was closed or killed.
    fn is_gone(&self) -> bool;
    /// True the first time it is called: the session is uncounted exactly once.
    fn take_counted(&self) -> bool;
    /// `KILL QUERY`: interrupts the running statement.
    fn kill_query(&self);
    /// `KILL CONNECTION`: the session's last frame is the FATAL `SESSION_KILLED`, then it shuts
    /// down; its connection's handler takes it out of the connection's map.
    fn kill_connection(&self, conn: &ConnRef, node: &NodeShared);
}

/// Shards of the running-statement registry.
const RUNNING_SHARDS: usize = 16;

/// One shard of the running-statement registry: interrupters by session number. Every statement
/// inserts and removes its entry, so the map hashes with foldhash (a few ns per u64 key) rather
/// than SipHash (about 20); session numbers are the node's own, so no client chooses the keys.
type RunningShard = Mutex<HashMap<u64, Arc<dyn Interrupt>, foldhash::fast::RandomState>>;
