//! The node's system variables: every tunable, plus the MySQL variables the PolarDB-X client reads.
//!
//! # The table
//!
//! [`VarId`] and the static definitions behind [`VarId::def`] are generated from one table (the
//! `variables!` invocation below), so an id and its definition cannot drift apart. Each
//! [`VarDef`] has a name, a [`VarKind`] (ON/OFF, integer with an inclusive range, one of a list,
//! free text), a default and an [`Access`] class:
//!
//! - [`Access::Dynamic`]: `SET GLOBAL` changes it, and readers see the new value at their next read
//!   (the session layer reads `max_queued_messages` for every push, for example).
//! - [`Access::Applied`]: a component copied the value at start-up (the `xrpc-net` framework keeps
//!   its `NetConfig` in an `Arc`), so a change takes effect only through an applier registered with
//!   [`Variables::on_change`](crate::var_store::Variables::on_change). Until one is registered, `SET GLOBAL` refuses it as read-only rather
//!   than pretending: `SHOW VARIABLES` never shows a value that is not in force.
//! - [`Access::Startup`]: settable by flag, environment or file (see `config.rs`), read-only at
//!   runtime (group counts, queue capacity, TCP buffers…).
//! - [`Access::ReadOnly`]: not configurable: MySQL compatibility variables and derived values.
//!
//! Names follow the XRPC article's parameter table with `xrpc_` in place of `polarx_rpc_`. Every
//! `xrpc_` variable that is not read-only is also a start-up setting whose key is the name without
//! the prefix (`xrpc_max_queued_messages` ⇔ `max_queued_messages` in the file, the flag
//! `--max-queued-messages` and `XRPC_MAX_QUEUED_MESSAGES`). Parameters of the article that do not
//! apply to xrpc are left out rather than shown without effect: `enable_thread_pool_log` (xrpc logs
//! with `tracing` filters), `mcs_spin_cnt` and `session_poll_rwlock_spin_cnt` (xrpc has no spin
//! locks of that kind), `epoll_group_dynamic_threads` (`xrpc-net` starts no extra workers
//! up front) and `rpc_use_legacy_port` (there is no other port).
//!
//!
//! This module holds the definitions only. The live values are in [`crate::var_store`], and the
//! typed getters shared by the live values and the start-up configuration are the provided
//! methods of [`crate::settings::Settings`].

use std::borrow::Cow;
use std::fmt;

use xrpc_proto::codes;

use crate::result::SqlError;

/// The `version` the node reports: MySQL 8.0 syntax level, then xrpc and its crate version.
pub const VERSION: &str = concat!("8.0.32-xrpc-", env!("CARGO_PKG_VERSION"));

/// The choices of `xrpc_sqlite_synchronous`, SQLite's `PRAGMA synchronous` levels.
pub const SQLITE_SYNCHRONOUS: &[&str] = &["OFF", "NORMAL", "FULL", "EXTRA"];

/// A variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarValue {
    /// An ON/OFF variable.
    Bool(bool),
    /// An integer variable.
    Int(i64),
    /// A choice (its canonical spelling) or text.
    Str(Cow<'static, str>),
}

impl VarValue {
    /// The value of an ON/OFF variable.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            VarValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value of an integer variable.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            VarValue::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The value of a choice or text variable.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            VarValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for VarValue {
    /// Renders the value as `SHOW VARIABLES` does: `ON`/`OFF`, decimal, or the text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarValue::Bool(true) => f.write_str("ON"),
            VarValue::Bool(false) => f.write_str("OFF"),
            VarValue::Int(n) => write!(f, "{n}"),
            VarValue::Str(s) => f.write_str(s),
        }
    }
}

/// What values a variable takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// ON or OFF.
    Bool,
    /// An integer in `min..=max`.
    Int {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// One of a list, matched case-insensitively and stored in the list's spelling.
    Choice(&'static [&'static str]),
    /// Any text.
    Text,
}

impl VarKind {
    /// The allowed values, as SET GLOBAL's error message shows them: `16..=4096`, `ON, OFF`.
    pub fn allowed(&self) -> String {
        match self {
            VarKind::Bool => "ON, OFF".to_owned(),
            VarKind::Int { min, max } => format!("{min}..={max}"),
            VarKind::Choice(list) => list.join(", "),
            VarKind::Text => "any text".to_owned(),
        }
    }

    /// What a start-up value must be, for the configuration error line
    /// (`… must be between 16 and 4096, got 5`).
    pub fn expected(&self) -> String {
        match self {
            VarKind::Bool => "ON or OFF".to_owned(),
            VarKind::Int { min, max } => format!("between {min} and {max}"),
            VarKind::Choice(list) => format!("one of {}", list.join(", ")),
            VarKind::Text => "text".to_owned(),
        }
    }
}

/// Who may change a variable, and when. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Start-up setting; `SET GLOBAL` changes it and readers see it at their next read.
    Dynamic,
    /// Start-up setting; `SET GLOBAL` changes it only once an applier is registered with
    /// [`Variables::on_change`](crate::var_store::Variables::on_change).
    Applied,
    /// Start-up setting only.
    Startup,
    /// Not configurable.
    ReadOnly,
}

/// A value of `SET GLOBAL name = value`, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetValue {
    /// `DEFAULT`: the variable's default.
    Default,
    /// An integer literal or product of integer literals.
    Int(i64),
    /// An unquoted word (`ON`, `FULL`).
    Word(String),
    /// A quoted string.
    Text(String),
}

impl fmt::Display for SetValue {
    /// Renders the value as the user wrote it, for error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetValue::Default => f.write_str("DEFAULT"),
            SetValue::Int(n) => write!(f, "{n}"),
            SetValue::Word(s) | SetValue::Text(s) => f.write_str(s),
        }
    }
}

/// Checks a text value against a grammar of its own; `Err` says what is wrong.
pub type Validator = fn(&str) -> Result<(), String>;

/// The definition of one variable.
#[derive(Debug)]
pub struct VarDef {
    /// The name, lower case.
    pub name: &'static str,
    /// The values it takes.
    pub kind: VarKind,
    /// The default (for an alias, its target's).
    pub default: VarValue,
    /// Who may change it.
    pub access: Access,
    /// For an alias, the variable it stands for.
    pub alias_of: Option<VarId>,
    /// One line: what it does, with its unit.
    pub help: &'static str,
    /// For a text setting with a grammar of its own: checks a value, `Err` saying what is wrong.
    pub validate: Option<Validator>,
}

impl VarDef {
    /// The start-up setting key (`max_queued_messages`), for `xrpc_` variables that are not
    /// read-only.
    pub fn config_key(&self) -> Option<&'static str> {
        if self.access == Access::ReadOnly || self.alias_of.is_some() {
            return None;
        }
        self.name.strip_prefix("xrpc_")
    }

    /// Parses a start-up value from a flag, the environment or the file: `ON`/`OFF`/`TRUE`/
    /// `FALSE`/`1`/`0` for ON/OFF variables, integers with an optional `K`, `M` or `G` suffix
    /// (powers of 1024), choices case-insensitively. `None` when it is not a valid value.
    pub fn parse_setting(&self, text: &str) -> Option<VarValue> {
        let text = text.trim();
        let value = match self.kind {
            VarKind::Bool => VarValue::Bool(parse_bool(text)?),
            VarKind::Int { .. } => VarValue::Int(parse_int_with_suffix(text)?),
            VarKind::Choice(list) => VarValue::Str(Cow::Borrowed(
                list.iter().find(|c| c.eq_ignore_ascii_case(text))?,
            )),
            VarKind::Text => VarValue::Str(Cow::Owned(text.to_owned())),
        };
        self.check(&value).then_some(value)
    }

    /// Converts a `SET GLOBAL` value: ON/OFF variables take `ON`, `OFF`, `TRUE`, `FALSE`, `1` and
    /// `0`, quoted or not; integer variables take integers (also quoted); choices take their names.
    /// `None` when it is not a valid value, in range.
    pub fn coerce(&self, value: &SetValue) -> Option<VarValue> {
        let converted = match (value, self.kind) {
            (SetValue::Default, _) => self.default.clone(),
            (SetValue::Int(n), VarKind::Bool) => match n {
                0 => VarValue::Bool(false),
                1 => VarValue::Bool(true),
                _ => return None,
            },
            (SetValue::Word(s) | SetValue::Text(s), VarKind::Bool) => {
                VarValue::Bool(parse_bool(s)?)
            }
            (SetValue::Int(n), VarKind::Int { .. }) => VarValue::Int(*n),
            (SetValue::Text(s), VarKind::Int { .. }) => VarValue::Int(s.trim().parse().ok()?),
            (SetValue::Word(_), VarKind::Int { .. }) => return None,
            (SetValue::Word(s) | SetValue::Text(s), VarKind::Choice(list)) => VarValue::Str(
                Cow::Borrowed(list.iter().find(|c| c.eq_ignore_ascii_case(s))?),
            ),
            (SetValue::Int(_), VarKind::Choice(_)) => return None,
            (SetValue::Word(s) | SetValue::Text(s), VarKind::Text) => {
                VarValue::Str(Cow::Owned(s.clone()))
            }
            (SetValue::Int(n), VarKind::Text) => VarValue::Str(Cow::Owned(n.to_string())),
        };
        self.check(&converted).then_some(converted)
    }

    /// Whether `value` is of this variable's kind and in its range.
    pub fn check(&self, value: &VarValue) -> bool {
        if let (Some(validate), VarValue::Str(text)) = (self.validate, value)
            && validate(text).is_err()
        {
            return false;
        }
        match (self.kind, value) {
            (VarKind::Bool, VarValue::Bool(_)) | (VarKind::Text, VarValue::Str(_)) => true,
            (VarKind::Int { min, max }, VarValue::Int(n)) => (min..=max).contains(n),
            (VarKind::Choice(list), VarValue::Str(s)) => list.contains(&s.as_ref()),
            _ => false,
        }
    }

    /// Compile-time constructor of an ON/OFF variable.
    const fn flag(name: &'static str, default: bool, access: Access, help: &'static str) -> Self {
        Self {
            name,
            kind: VarKind::Bool,
            default: VarValue::Bool(default),
            access,
            alias_of: None,
            help,
            validate: None,
        }
    }

    /// Compile-time constructor of an integer variable.
    const fn int(
        name: &'static str,
        min: i64,
        max: i64,
        default: i64,
        access: Access,
        help: &'static str,
    ) -> Self {
        Self {
            name,
            kind: VarKind::Int { min, max },
            default: VarValue::Int(default),
            access,
            alias_of: None,
            help,
            validate: None,
        }
    }

    /// Compile-time constructor of a choice variable.
    const fn choice(
        name: &'static str,
        list: &'static [&'static str],
        default: &'static str,
        access: Access,
        help: &'static str,
    ) -> Self {
        Self {
            name,
            kind: VarKind::Choice(list),
            default: VarValue::Str(Cow::Borrowed(default)),
            access,
            alias_of: None,
            help,
            validate: None,
        }
    }

    /// Compile-time constructor of a read-only text variable.
    const fn text(name: &'static str, value: &'static str, help: &'static str) -> Self {
        Self {
            name,
            kind: VarKind::Text,
            default: VarValue::Str(Cow::Borrowed(value)),
            access: Access::ReadOnly,
            alias_of: None,
            help,
            validate: None,
        }
    }

    /// Compile-time constructor of a settable text variable; `validate`, if any, checks values.
    const fn setting_text(
        name: &'static str,
        default: &'static str,
        access: Access,
        validate: Option<Validator>,
        help: &'static str,
    ) -> Self {
        Self {
            name,
            kind: VarKind::Text,
            default: VarValue::Str(Cow::Borrowed(default)),
            access,
            alias_of: None,
            help,
            validate,
        }
    }

    /// Compile-time constructor of an alias; kind and default repeat the target's (a test checks).
    const fn alias(name: &'static str, target: VarId, kind: VarKind, default: VarValue) -> Self {
        Self {
            name,
            kind,
            default,
            access: Access::ReadOnly,
            alias_of: Some(target),
            help: "MySQL's name for the variable it aliases.",
            validate: None,
        }
    }
}

/// Generates [`VarId`] and the definition table from one list, in the same order.
macro_rules! variables {
    ($($id:ident => $ctor:ident($name:literal $(, $arg:expr)* $(,)?),)*) => {
        /// Identifies a variable; see [`VarId::def`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum VarId {
            $(
                #[doc = concat!("`", $name, "`")]
                $id,
            )*
        }

        impl VarId {
            /// Every variable, in table order.
            pub const ALL: &'static [VarId] = &[$(VarId::$id,)*];
        }

        /// The definitions, indexed by `VarId as usize`.
        static VAR_DEFS: &[VarDef] = &[$(VarDef::$ctor($name $(, $arg)*),)*];
    };
}

use Access::{Applied, Dynamic, ReadOnly, Startup};

variables! {
    // Read by the session layer and the cache at every use.
    MaxQueuedMessages => int("xrpc_max_queued_messages", 16, 4096, 128, Dynamic,
        "Requests queued per session; one more gets FATAL and removes the session."),
    MaxSessions => int("xrpc_max_sessions", 1, 10_000_000, 100_000, Dynamic,
        "Sessions on the node; SESS_NEW beyond it gets FATAL."),
    AuthMaxFailures => int("xrpc_auth_max_failures", 1, 1000, 10, Dynamic,
        "Failed authentications after which a connection is closed."),
    // Connection admission (MySQL's names are aliases, below).
    MaxConnectErrors => int("xrpc_max_connect_errors", 1, 1_000_000, 100, Dynamic,
        "Failed authentications in a row from one client address after which that address is blocked: its new connections get FATAL 1129 until xrpc_host_block_time passes or FLUSH HOSTS. A successful authentication from the address resets its count."),
    HostBlockTime => int("xrpc_host_block_time", 0, 31_536_000, 600, Dynamic,
        "Seconds an address blocked by xrpc_max_connect_errors stays blocked; 0 keeps it blocked until FLUSH HOSTS."),
    ConnectTimeout => int("xrpc_connect_timeout", 2, 31_536_000, 10, Dynamic,
        "Seconds a new connection may take to authenticate; then it gets FATAL 1043 and is closed."),
    MaxConnections => int("xrpc_max_connections", 1, 100_000, 1024, Dynamic,
        "Client connections; one more is refused with 1040, except one extra kept for root. Keep it below the fd limit."),
    RequireSecureTransport => flag("xrpc_require_secure_transport", false, Dynamic,
        "Whether a connection must switch to TLS (CapabilitiesSet tls) before it authenticates; a plain one gets FATAL 3159 at AuthenticateStart. OFF by default: the PolarDB-X client never asks for TLS."),
    SharedSessionLifetime => int("xrpc_shared_session_lifetime", 1000, 3_600_000, 60_000, Dynamic,
        "Milliseconds a pooled shared session (auto-commit sids) lives before it is replaced."),
    CtxRefreshTime => int("xrpc_epoll_group_ctx_refresh_time", 1000, 60_000, 10_000, Dynamic,
        "Milliseconds between each epoll group's sweeps that free expired shared sessions."),
    RequestCacheMaxLength => int("xrpc_request_cache_max_length", 128, 1 << 30, 1 << 20, Dynamic,
        "Bytes: the longest statement the digest cache keeps."),
    WorkQueueSpill => flag("xrpc_work_queue_spill", true, Dynamic,
        "Whether a session that finds its group's work queue full waits in its connection's spill list until a worker frees up (ON; on a group whose workers share one CPU it runs at once on the worker that received it), or is failed with FATAL 'Work queue overflow.' as PolarDB-X does (OFF)."),
    ChunkResultDefault => flag("xrpc_chunk_result_default", false, Dynamic,
        "Whether a request that does not set chunk_result gets chunk results."),
    EnablePerfHist => flag("xrpc_enable_perf_hist", false, Dynamic,
        "Whether the per-stage latency histograms record (they read the clock at every stage of every request). Until it is ON, CALL xrpc.perf_hist('all') and the xrpc_stage_duration_seconds metrics stay empty; the counters of SHOW STATUS and /metrics count either way."),
    // The binary log (binlog/): the process's log is reconfigured by an applier the node registers.
    Binlog => setting_text("xrpc_binlog", "", Applied, Some(crate::binlog::config::validate),
        "What the binary log records (docs/PROTOCOL.md, \"Binary log\"): * for every frame, type names, -TYPE, {m:N} or {h} limits, user=, peer=; empty is off. SET GLOBAL at runtime."),
    BinlogDir => setting_text("xrpc_binlog_dir", "", Startup, None,
        "Directory of the binary log's files; empty means binlog/ under the data directory."),
    BinlogMaxFileSize => int("xrpc_binlog_max_file_size", 4096, 1 << 40, 64 << 20, Startup,
        "Bytes after which the binary log starts a new file."),
    BinlogMaxFiles => int("xrpc_binlog_max_files", 1, 100_000, 8, Startup,
        "Binary log files kept; the oldest is deleted when a new one would exceed it."),
    BinlogQueueEntries => int("xrpc_binlog_queue_entries", 64, 16_777_216, 65_536, Startup,
        "Entries the binary log's queue holds before new ones are dropped (and counted)."),
    // Copied into the running framework or engine; dynamic once an applier is registered.
    EnableTasker => flag("xrpc_enable_tasker", true, Applied,
        "Whether epoll groups may add workers beyond the base ones."),
    ShrinkTime => int("xrpc_epoll_group_dynamic_threads_shrink_time", 1000, 600_000, 10_000, Applied,
        "Milliseconds an extra worker lingers without pressure before it exits."),
    TaskerExtendStep => int("xrpc_epoll_group_tasker_extend_step", 1, 50, 2, Applied,
        "Workers added at once when a group's queue is deep."),
    TaskerMultiply => int("xrpc_epoll_group_tasker_multiply", 1, 50, 3, Applied,
        "A queue is deep when it holds more than this many tasks per worker."),
    DeadlockCheckInterval => int("xrpc_epoll_group_thread_deadlock_check_interval", 1, 10_000, 500, Applied,
        "Milliseconds between watchdog checks for stuck groups."),
    ScaleThresh => int("xrpc_epoll_group_thread_scale_thresh", 0, 100, 2, Applied,
        "Stalled workers, beyond the extra ones, that add a worker (capped at threads per group - 1)."),
    NetWriteTimeout => int("xrpc_net_write_timeout", 1, 7_200_000, 10_000, Applied,
        "Milliseconds a send may wait for a slow client before its connection is closed."),
    MaxAllowedPacket => int("xrpc_max_allowed_packet", 4096, 1 << 30, 64 << 20, Applied,
        "Bytes: the largest frame accepted; a larger one gets FATAL 1153 and closes the connection."),
    SqliteBusyTimeout => int("xrpc_sqlite_busy_timeout", 0, 3_600_000, 5000, Applied,
        "Milliseconds a statement waits for an SQLite lock before failing with 1205."),
    // The mysql engine's backend pool, applied by the engine (`Engine::bind_variables`).
    BackendPoolSize => int("xrpc_backend_pool_size", 2, 4096, 16, Applied,
        "mysql engine: most connections to the backend server, those of the shared rotation and those sessions hold; opened by demand beyond xrpc_backend_driver_connections; at least 2. SET GLOBAL at runtime resizes: a larger size opens connections for waiting statements at once; a smaller one closes the connections above it as they become quiet (never one with a statement in flight or held by a session)."),
    BackendWaitTimeout => int("xrpc_backend_wait_timeout", 0, 3_600_000, 10_000, Applied,
        "mysql engine: milliseconds a statement waits for room on a backend connection, or a session for a connection of its own, before failing with 7009."),
    BackendConnectionLifetime => int("xrpc_backend_connection_lifetime", 1, 2_592_000_000, 1_800_000, Applied,
        "mysql engine: milliseconds a backend connection lives; an older one is replaced once nothing runs on it and no session holds it, so the backend's per-connection memory and settings do not age forever."),
    // Start-up only.
    BackendConnectTimeout => int("xrpc_backend_connect_timeout", 100, 3_600_000, 5000, Startup,
        "mysql engine: milliseconds a connect and login to the backend may take before it fails with 2003."),
    BackendDriverConnections => int("xrpc_backend_driver_connections", 2, 256, 8, Startup,
        "mysql engine: backend connections opened at the start, driven by the node's epoll groups (more by demand, up to xrpc_backend_pool_size): plain SELECT, INSERT, UPDATE and DELETE of sessions that hold no backend state are pipelined on shared connections, any other statement runs on a connection of the session's own, brought to its database and variables first (kept while a transaction, user variables or other state pin it, reset when given back; waiting in order for one to come free when none can be taken). At least 2: a kill of a statement in flight goes out on another connection."),
    EngineWait => int("xrpc_engine_wait", 0, 3600, 0, Startup,
        "mysql engine: seconds start-up keeps retrying an unreachable backend (orchestrated start-up); 0 fails at once."),
    SqliteBeginImmediate => flag("xrpc_sqlite_begin_immediate", false, Startup,
        "Whether BEGIN takes SQLite's write lock at once: read-write transactions then queue for the lock instead of failing with 1205 when two upgrade at the same time; read-only ones (START TRANSACTION READ ONLY) stay deferred."),
    SqliteMaxPageCount => int("xrpc_sqlite_max_page_count", 0, 4_294_967_294, 0, Startup,
        "SQLite PRAGMA max_page_count: the most pages (4 KiB each) the database may grow to; a write beyond it fails with 1114 'The table is full' while reads go on. 0 means SQLite's own limit."),
    SqliteMmapSize => int("xrpc_sqlite_mmap_size", 0, 2_147_418_112, 0, Startup,
        "SQLite PRAGMA mmap_size: bytes of each database file read through a memory map instead of read calls into every connection's page cache (faster reads under load; mapped pages count in the RSS, and an I/O error on a mapped page stops the node with SIGBUS instead of failing one statement). 0, the default, leaves it off."),
    SqliteSynchronous => choice("xrpc_sqlite_synchronous", SQLITE_SYNCHRONOUS, "FULL", Startup,
        "SQLite PRAGMA synchronous; FULL makes every acknowledged commit survive power loss."),
    RequestCacheInstances => int("xrpc_request_cache_instances", 1, 128, 16, Startup,
        "Shards of the digest cache."),
    RequestCacheNumber => int("xrpc_request_cache_number", 128, 16_384, 1024, Startup,
        "Entries of the digest cache, over all shards."),
    DrainTimeout => int("xrpc_drain_timeout", 0, 3_600_000, 10_000, Startup,
        "Milliseconds a shutdown lets running statements finish before closing connections."),
    GalaxyProtocol => flag("xrpc_galaxy_protocol", false, Startup,
        "Whether frames use the 14-byte galaxy header."),
    GalaxyVersion => int("xrpc_galaxy_version", 0, 127, 0, Startup,
        "The galaxy header's version byte; frames with another are refused."),
    EpollGroups => int("xrpc_epoll_groups", 0, 128, 0, Startup,
        "Epoll groups; 0 derives them from the allowed cores and threads per group."),
    EpollExtraGroups => int("xrpc_epoll_extra_groups", 0, 32, 0, Startup,
        "Groups added to the configured or derived number."),
    MinAutoEpollGroups => int("xrpc_min_auto_epoll_groups", 1, 128, 1, Startup,
        "Least number of groups when derived from the cores."),
    EpollThreadsPerGroup => int("xrpc_epoll_threads_per_group", 1, 128, 4, Startup,
        "Base workers per epoll group."),
    EpollGroupMaxThreads => int("xrpc_epoll_group_max_threads", 0, 4096, 0, Startup,
        "Most workers per group, base included; 0 means 16 times the base workers."),
    EpollEventsPerThread => int("xrpc_epoll_events_per_thread", 1, 16, 4, Startup,
        "Events one epoll_wait takes."),
    EpollTimeout => int("xrpc_epoll_timeout", 1, 60_000, 10_000, Startup,
        "Milliseconds of the longest single epoll_wait."),
    EpollWorkQueueCapacity => int("xrpc_epoll_work_queue_capacity", 128, 4096, 256, Startup,
        "Tasks each group's work queue holds; beyond it sessions spill (see work_queue_spill)."),
    MaxEpollWaitTotalThreads => int("xrpc_max_epoll_wait_total_threads", 0, 128, 0, Startup,
        "Workers of all groups inside epoll_wait at once; 0 means every base worker (one per group whose workers all run on one CPU)."),
    MaxCachedOutputBufferPages => int("xrpc_max_cached_output_buffer_pages", 1, 256, 64, Startup,
        "4 KiB output pages kept for reuse per epoll group."),
    BindCores => flag("xrpc_bind_cores", true, Startup,
        "Whether workers are pinned to cores of their group."),
    ForceAllCores => flag("xrpc_force_all_cores", false, Startup,
        "Whether to bind to every online CPU rather than the allowed set."),
    MultiAffinityInGroup => flag("xrpc_multi_affinity_in_group", false, Startup,
        "Whether base workers float over all cores of their group instead of one each."),
    TcpFixedDealingBuf => int("xrpc_tcp_fixed_dealing_buf", 4096, 65_536, 4096, Startup,
        "Bytes of each connection's fixed receive buffer."),
    TcpKeepAlive => int("xrpc_tcp_keep_alive", 1, 7200, 30, Startup,
        "Seconds of TCP keepalive idle time."),
    TcpListenQueue => int("xrpc_tcp_listen_queue", 128, 4096, 128, Startup,
        "Listen backlog."),
    TcpRecvBuf => int("xrpc_tcp_recv_buf", 0, 2 << 20, 0, Startup,
        "SO_RCVBUF bytes; 0 keeps the system default."),
    TcpSendBuf => int("xrpc_tcp_send_buf", 0, 2 << 20, 0, Startup,
        "SO_SNDBUF bytes; 0 keeps the system default."),
    // Derived and compatibility variables.
    RpcPort => int("rpc_port", 0, 65_535, 33_660, ReadOnly,
        "The port the node listens on (from the listen setting)."),
    XrpcEngine => text("xrpc_engine", "sqlite",
        "The engine that runs SQL."),
    Datadir => text("datadir", "./xrpc-data",
        "The directory of the node's data."),
    NewRpc => flag("new_rpc", true, ReadOnly,
        "ON: the node speaks XRPC (the PolarDB-X client enables chunks and caches on it)."),
    Version => text("version", VERSION,
        "MySQL-compatible version: 8.0 syntax level, then xrpc's version."),
    VersionComment => text("version_comment", "xrpc data node (PolarDB-X RPC protocol, SQL on SQLite)",
        "What the node is."),
    CharacterSetClient => text("character_set_client", "utf8mb4", "Statements are UTF-8."),
    CharacterSetConnection => text("character_set_connection", "utf8mb4", "Literals are UTF-8."),
    CharacterSetResults => text("character_set_results", "utf8mb4", "Results are UTF-8."),
    CharacterSetServer => text("character_set_server", "utf8mb4", "Text is stored as UTF-8."),
    CharacterSetDatabase => text("character_set_database", "utf8mb4", "Text is stored as UTF-8."),
    CollationConnection => text("collation_connection", "utf8mb4_general_ci", "Collation of text columns (id 45)."),
    CollationServer => text("collation_server", "utf8mb4_general_ci", "Collation of text columns (id 45)."),
    CollationDatabase => text("collation_database", "utf8mb4_general_ci", "Collation of text columns (id 45)."),
    TimeZone => text("time_zone", "SYSTEM", "Times are in the system time zone."),
    SystemTimeZone => text("system_time_zone", "UTC", "SQLite's clock functions are UTC."),
    TransactionIsolation => text("transaction_isolation", "REPEATABLE-READ",
        "MySQL's default level; a session's SET changes its own. SQLite runs every level one \
        way: one writer at a time, a transaction's reads see one snapshot."),
    TxIsolation => text("tx_isolation", "REPEATABLE-READ", "Old name of transaction_isolation."),
    InnodbMarkDistributed => flag("innodb_mark_distributed", false, ReadOnly,
        "No distributed-transaction marking (PolarDB-X client reads it)."),
    OptFlashbackArea => flag("opt_flashback_area", false, ReadOnly,
        "No flashback area (PolarDB-X client reads it)."),
    Autocommit => flag("autocommit", true, ReadOnly,
        "Sessions start in autocommit mode; SET autocommit changes a session's own."),
    MaxAllowedPacketAlias => alias("max_allowed_packet", VarId::MaxAllowedPacket,
        VarKind::Int { min: 4096, max: 1 << 30 }, VarValue::Int(64 << 20)),
    ConnectTimeoutAlias => alias("connect_timeout", VarId::ConnectTimeout,
        VarKind::Int { min: 2, max: 31_536_000 }, VarValue::Int(10)),
    MaxConnectErrorsAlias => alias("max_connect_errors", VarId::MaxConnectErrors,
        VarKind::Int { min: 1, max: 1_000_000 }, VarValue::Int(100)),
    MaxConnectionsAlias => alias("max_connections", VarId::MaxConnections,
        VarKind::Int { min: 1, max: 100_000 }, VarValue::Int(1024)),
    RequireSecureTransportAlias => alias("require_secure_transport", VarId::RequireSecureTransport,
        VarKind::Bool, VarValue::Bool(false)),
    LowerCaseTableNames => int("lower_case_table_names", 0, 2, 0, ReadOnly,
        "Table names are stored as given."),
    SqlMode => text("sql_mode",
        "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
        "MariaDB's default, which the SQLite engine acts under (strict writes, || as OR); it \
        refuses modes that change how statements read or compute."),
    ReadOnlyMode => flag("read_only", false, ReadOnly, "The node accepts writes."),
    AutoIncrementIncrement => int("auto_increment_increment", 1, 1, 1, ReadOnly,
        "AUTO_INCREMENT ids step by 1 (SQLite's rowid)."),
    AutoIncrementOffset => int("auto_increment_offset", 1, 1, 1, ReadOnly,
        "AUTO_INCREMENT ids start at 1."),
    DefaultStorageEngine => text("default_storage_engine", "InnoDB",
        "What a translated table without ENGINE reports as its engine."),
    SqlAutoIsNull => flag("sql_auto_is_null", false, ReadOnly,
        "`WHERE id IS NULL` never finds the last inserted row (ORMs read it at connect)."),
}

impl VarId {
    /// The variable's definition.
    pub fn def(self) -> &'static VarDef {
        &VAR_DEFS[self as usize]
    }

    /// The variable named `name`, case-insensitively.
    pub fn lookup(name: &str) -> Option<VarId> {
        VarId::ALL
            .iter()
            .copied()
            .find(|id| id.def().name.eq_ignore_ascii_case(name))
    }

    /// The variable whose start-up setting key is `key` (`max_queued_messages`).
    pub fn by_config_key(key: &str) -> Option<VarId> {
        VarId::ALL
            .iter()
            .copied()
            .find(|id| id.def().config_key() == Some(key))
    }

    /// The variable an alias stands for, or itself.
    pub fn target(self) -> VarId {
        self.def().alias_of.unwrap_or(self)
    }
}

/// Parses ON/OFF/TRUE/FALSE/1/0, case-insensitively.
fn parse_bool(text: &str) -> Option<bool> {
    const TRUE: &[&str] = &["ON", "TRUE", "1"];
    const FALSE: &[&str] = &["OFF", "FALSE", "0"];
    let text = text.trim();
    if TRUE.iter().any(|t| t.eq_ignore_ascii_case(text)) {
        Some(true)
    } else if FALSE.iter().any(|t| t.eq_ignore_ascii_case(text)) {
        Some(false)
    } else {
        None
    }
}

/// Parses an integer with an optional `K`/`M`/`G` suffix (powers of 1024), as MySQL option files
/// allow.
pub(crate) fn parse_int_with_suffix(text: &str) -> Option<i64> {
    let (digits, shift) = match text.as_bytes().last()? {
        b'k' | b'K' => (&text[..text.len() - 1], 10),
        b'm' | b'M' => (&text[..text.len() - 1], 20),
        b'g' | b'G' => (&text[..text.len() - 1], 30),
        _ => (text, 0),
    };
    let n: i64 = digits.trim().parse().ok()?;
    n.checked_mul(1 << shift)
}

/// Whether `name` is one of the node's own variables: an `xrpc_` tunable, or `new_rpc` and
/// `rpc_port`, which describe the node's RPC server (on a PolarDB-X data node its RPC plugin
/// defines them). On an engine with its own server variables ([`crate::engine::Engine::
/// owns_system_variables`]) the node answers only these; every other name is the backend's.
pub fn is_node_own(name: &str) -> bool {
    name.get(..5)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("xrpc_"))
        || name.eq_ignore_ascii_case("new_rpc")
        || name.eq_ignore_ascii_case("rpc_port")
}

/// The 1193 error for `name`.
pub(crate) fn unknown_variable(name: &str) -> SqlError {
    SqlError::new(
        &codes::UNKNOWN_SYSTEM_VARIABLE,
        format!("Unknown system variable '{name}'"),
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn table_is_consistent() {
        let mut names = HashSet::new();
        let mut keys = HashSet::new();
        for (i, &id) in VarId::ALL.iter().enumerate() {
            assert_eq!(id as usize, i);
            let def = id.def();
            assert!(names.insert(def.name), "duplicate {}", def.name);
            assert_eq!(def.name, def.name.to_ascii_lowercase());
            assert!(def.check(&def.default), "{} default out of range", def.name);
            if let Some(key) = def.config_key() {
                assert!(keys.insert(key));
                assert!(def.name.starts_with("xrpc_"));
            }
            if let Some(target) = def.alias_of {
                assert_eq!(target.def().kind, def.kind, "{}", def.name);
                assert_eq!(target.def().default, def.default, "{}", def.name);
                assert!(target.def().alias_of.is_none());
            }
        }
        // The article's parameters that apply here are all present.
        for name in [
            "xrpc_enable_perf_hist",
            "xrpc_enable_tasker",
            "xrpc_epoll_events_per_thread",
            "xrpc_epoll_extra_groups",
            "xrpc_epoll_group_ctx_refresh_time",
            "xrpc_epoll_group_dynamic_threads_shrink_time",
            "xrpc_epoll_group_tasker_extend_step",
            "xrpc_epoll_group_tasker_multiply",
            "xrpc_epoll_group_thread_deadlock_check_interval",
            "xrpc_epoll_group_thread_scale_thresh",
            "xrpc_epoll_groups",
            "xrpc_epoll_threads_per_group",
            "xrpc_epoll_timeout",
            "xrpc_epoll_work_queue_capacity",
            "xrpc_force_all_cores",
            "xrpc_galaxy_protocol",
            "xrpc_galaxy_version",
            "xrpc_max_allowed_packet",
            "xrpc_max_cached_output_buffer_pages",
            "xrpc_max_epoll_wait_total_threads",
            "xrpc_max_queued_messages",
            "xrpc_min_auto_epoll_groups",
            "xrpc_multi_affinity_in_group",
            "xrpc_net_write_timeout",
            "xrpc_request_cache_instances",
            "xrpc_request_cache_max_length",
            "xrpc_request_cache_number",
            "xrpc_shared_session_lifetime",
            "xrpc_tcp_fixed_dealing_buf",
            "xrpc_tcp_keep_alive",
            "xrpc_tcp_listen_queue",
            "xrpc_tcp_recv_buf",
            "xrpc_tcp_send_buf",
            "rpc_port",
            "new_rpc",
            "version",
            "character_set_client",
            "character_set_results",
            "time_zone",
            "system_time_zone",
            "transaction_isolation",
            "innodb_mark_distributed",
            "opt_flashback_area",
        ] {
            assert!(VarId::lookup(name).is_some(), "{name} missing");
        }
    }

    #[test]
    fn choices_are_case_insensitive_and_canonical() {
        let def = VarId::SqliteSynchronous.def();
        assert_eq!(
            def.parse_setting("normal"),
            Some(VarValue::Str(Cow::Borrowed("NORMAL")))
        );
        assert_eq!(def.parse_setting("sometimes"), None);
        assert_eq!(
            VarId::MaxAllowedPacket.def().parse_setting("64M"),
            Some(VarValue::Int(64 << 20))
        );
        assert_eq!(
            VarId::MaxAllowedPacket.def().parse_setting("2G"),
            None,
            "out of range after the suffix"
        );
    }
}
