//! The binary log of the protocol: the frames a config string selects, with their connection,
//! in order, written by a background thread to a [`Sink`] (by default rotating files).
//!
//! # Design
//!
//! - **One log per process**, like gRPC's binary log: [`global`] is what the connection code
//!   records into, and `SET GLOBAL xrpc_binlog` on any node of the process reconfigures it. The
//!   node's hooks are the free functions of this module ([`received`], [`sent`], [`opened`],
//!   [`closed`], [`authenticated`], [`auth_refused`]); each is `#[inline]` and begins with one
//!   relaxed load of a static flag, so with the log off a frame costs that load and a branch
//!   (see `benches/binlog_off.rs`).
//! - **Never on the request path's critical section**: with the log on, a hook copies what the
//!   config keeps of the payload (never more, and never a reference into the caller's buffer,
//!   which may be a pooled page reused as soon as the send returns; gRPC's notes make the same
//!   point about reused buffers), assigns a sequence number and offers the entry to a bounded queue
//!   ([`writer`]). A full queue drops the entry and counts it (`xrpc_binlog_dropped` in
//!   `SHOW STATUS` and the metrics); a request never waits for the log.
//! - **Secrets are never logged**: the payloads of SESS_AUTHENTICATE_START/CONTINUE (both
//!   directions: user name with password hash or PLAIN password, and the server's scramble) are
//!   withheld whatever the config; the entry keeps their length. Authentication results are
//!   entries of their own, with the user name and, on refusal, the error the client got.
//! - **Per-connection state** (the user once authenticated, the header format) is kept only while
//!   the log is on, in a map keyed by connection id. A connection that opened before the log was
//!   switched on is logged with the node's header format and without a user.
//!
//! The entry is [`xrpc_proto::binlog::BinlogEntry`], documented in `docs/PROTOCOL.md` ("Binary
//! log"); the config grammar is in [`config`].

pub mod config;
pub mod entry;
pub mod sink;
pub mod writer;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::{Mutex, RwLock};
use xrpc_net::ConnRef;
use xrpc_proto::HeaderFormat;
use xrpc_proto::binlog::{BinlogEntry, EntryKind};

pub use config::{BinlogConfig, ConfigError, Direction, PayloadLimit};
pub use sink::{FileSink, Sink};
use writer::{Counters, Writer};

/// Entries the queue holds before new ones are dropped.
pub const DEFAULT_QUEUE_CAPACITY: usize = 65_536;

/// Why the log could not be switched on.
#[derive(Debug, thiserror::Error)]
pub enum BinlogError {
    /// The config string is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The default file sink could not be opened.
    #[error("cannot open the binlog directory {}: {source}", dir.display())]
    Sink {
        /// The directory.
        dir: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The writer thread could not be started.
    #[error("cannot start the binlog writer thread: {0}")]
    Thread(std::io::Error),
}

/// What the log keeps about a connection while it is on.
#[derive(Debug, Clone)]
struct ConnInfo {
    format: HeaderFormat,
    user: Option<Arc<str>>,
}

/// A binary log. The node records into [`global`]; tests and tools may make their own.
pub struct Binlog {
    on: AtomicBool,
    /// The process-wide flag the hooks load, for the global log only.
    mirror: Option<&'static AtomicBool>,
    config: RwLock<Option<Arc<BinlogConfig>>>,
    writer: OnceLock<Writer>,
    /// A sink installed before the writer started; otherwise a [`FileSink`] in `dir`.
    installed: Mutex<Option<Box<dyn Sink>>>,
    dir: Mutex<PathBuf>,
    /// The default file sink's rotation size and file count.
    file_limits: Mutex<(u64, usize)>,
    default_format: Mutex<HeaderFormat>,
    sequence: AtomicU64,
    counters: Arc<Counters>,
    conns: RwLock<HashMap<u64, ConnInfo>>,
    /// Entries the queue holds; read when the writer starts.
    capacity: AtomicUsize,
}

impl std::fmt::Debug for Binlog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binlog")
            .field("config", &self.config.read())
            .finish_non_exhaustive()
    }
}

/// Where the default file sink writes until [`Binlog::set_dir`] names a directory: `binlog/` in
/// the node's default data directory (`config::DEFAULT_DATA_DIR`). The node sets the directory
/// from its configuration before it starts, so this is what programs that drive a log of their
/// own get.
pub const DEFAULT_DIR: &str = "./xrpc-data/binlog";

static ENABLED: AtomicBool = AtomicBool::new(false);
static GLOBAL: OnceLock<Binlog> = OnceLock::new();

/// The process's binary log, off until configured.
pub fn global() -> &'static Binlog {
    GLOBAL.get_or_init(|| Binlog::build(DEFAULT_QUEUE_CAPACITY, Some(&ENABLED)))
}

/// Whether the process's binary log is on: the one relaxed load every hook starts with.
#[inline(always)]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Hook: the node received a frame.
#[inline]
pub fn received(conn: &ConnRef, sid: u64, type_id: u8, body: &[u8]) {
    if enabled() {
        global().record_frame(
            conn.id(),
            conn.peer_addr(),
            Direction::Received,
            sid,
            type_id,
            body,
        );
    }
}

/// Hook: the node handed `frames` (whole frames) to the connection.
#[inline]
pub fn sent(conn: &ConnRef, frames: &[u8]) {
    if enabled() {
        global().record_sent(conn.id(), conn.peer_addr(), frames);
    }
}

/// Hook: a connection was accepted by a node framing in `format`.
#[inline]
pub fn opened(conn: &ConnRef, format: HeaderFormat) {
    if enabled() {
        global().record_open(conn.id(), conn.peer_addr(), format);
    }
}

/// Hook: a connection ended.
#[inline]
pub fn closed(conn: &ConnRef) {
    if enabled() {
        global().record_close(conn.id(), conn.peer_addr());
    }
}

/// Hook: a connection authenticated as `user`.
#[inline]
pub fn authenticated(conn: &ConnRef, user: &str) {
    if enabled() {
        global().record_auth(conn.id(), conn.peer_addr(), Ok(user));
    }
}

/// Hook: an authentication attempt was refused with `message` (the error the client gets).
#[inline]
pub fn auth_refused(conn: &ConnRef, message: &str) {
    if enabled() {
        global().record_auth(conn.id(), conn.peer_addr(), Err(message));
    }
}

impl Binlog {
    /// A log of its own (not the one the node's hooks record into), off, with a queue of
    /// `capacity` entries; for tests and programs that drive [`Binlog::record_frame`] themselves.
    pub fn new(capacity: usize) -> Self {
        Self::build(capacity, None)
    }

    fn build(capacity: usize, mirror: Option<&'static AtomicBool>) -> Self {
        Self {
            on: AtomicBool::new(false),
            mirror,
            config: RwLock::new(None),
            writer: OnceLock::new(),
            installed: Mutex::new(None),
            dir: Mutex::new(PathBuf::from(DEFAULT_DIR)),
            file_limits: Mutex::new((sink::DEFAULT_MAX_FILE_BYTES, sink::DEFAULT_MAX_FILES)),
            default_format: Mutex::new(HeaderFormat::Standard),
            sequence: AtomicU64::new(0),
            counters: Arc::default(),
            conns: RwLock::new(HashMap::new()),
            capacity: AtomicUsize::new(capacity),
        }
    }

    /// The directory of the default file sink (`--binlog-dir`); takes effect if the log has not
    /// been switched on yet.
    pub fn set_dir(&self, dir: &Path) {
        *self.dir.lock() = dir.to_owned();
    }

    /// The default file sink's limits (`xrpc_binlog_max_file_size`, `xrpc_binlog_max_files`)
    /// and the queue's capacity (`xrpc_binlog_queue_entries`); like [`Binlog::set_dir`], they
    /// take effect if the log has not been switched on yet.
    pub fn set_limits(&self, max_file_bytes: u64, max_files: usize, queue_entries: usize) {
        *self.file_limits.lock() = (max_file_bytes, max_files);
        self.capacity.store(queue_entries, Ordering::Relaxed);
    }

    /// The header format of connections the log did not see open (the node's own, set at start).
    pub fn set_default_format(&self, format: HeaderFormat) {
        *self.default_format.lock() = format;
    }

    /// Installs `sink` in place of the default file sink: at once if the writer is running,
    /// otherwise when the log is switched on.
    pub fn install_sink(&self, sink: Box<dyn Sink>) {
        match self.writer.get() {
            Some(writer) => writer.replace_sink(sink),
            None => *self.installed.lock() = Some(sink),
        }
    }

    /// Switches the log to `text` (empty: off). An invalid string changes nothing.
    pub fn configure(&self, text: &str) -> Result<(), BinlogError> {
        let Some(config) = BinlogConfig::parse(text)? else {
            self.set_on(false);
            *self.config.write() = None;
            self.conns.write().clear();
            return Ok(());
        };
        self.start_writer()?;
        *self.config.write() = Some(Arc::new(config));
        self.set_on(true);
        Ok(())
    }

    fn start_writer(&self) -> Result<(), BinlogError> {
        if self.writer.get().is_some() {
            return Ok(());
        }
        let sink: Box<dyn Sink> = match self.installed.lock().take() {
            Some(sink) => sink,
            None => {
                let dir = self.dir.lock().clone();
                let (max_file_bytes, max_files) = *self.file_limits.lock();
                Box::new(
                    FileSink::new(&dir, max_file_bytes, max_files)
                        .map_err(|source| BinlogError::Sink { dir, source })?,
                )
            }
        };
        let capacity = self.capacity.load(Ordering::Relaxed);
        let writer = Writer::start(sink, capacity, Arc::clone(&self.counters))
            .map_err(BinlogError::Thread)?;
        // Two racing first configurations: the loser's writer (and sink) is dropped unused.
        let _ = self.writer.set(writer);
        Ok(())
    }

    fn set_on(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
        if let Some(flag) = self.mirror {
            flag.store(on, Ordering::Relaxed);
        }
    }

    /// The config in force, if the log is on.
    pub fn config(&self) -> Option<Arc<BinlogConfig>> {
        self.config.read().clone()
    }

    /// Entries the sink accepted so far.
    pub fn written(&self) -> u64 {
        self.counters.written.load(Ordering::Relaxed)
    }

    /// Entries lost so far: the queue was full or the sink failed.
    pub fn dropped(&self) -> u64 {
        self.counters.dropped.load(Ordering::Relaxed)
    }

    /// Waits until every entry made so far is written and the sink flushed.
    pub fn flush(&self) {
        if let Some(writer) = self.writer.get() {
            writer.flush();
        }
    }

    /// The config and the connection's state, if the log is on and selects the connection.
    fn selected(
        &self,
        conn_id: u64,
        peer: Option<SocketAddr>,
    ) -> Option<(Arc<BinlogConfig>, Option<ConnInfo>)> {
        if !self.on.load(Ordering::Relaxed) {
            return None;
        }
        let config = self.config.read().clone()?;
        if !config.selects_peer(peer) {
            return None;
        }
        let info = self.conns.read().get(&conn_id).cloned();
        let user = info.as_ref().and_then(|i| i.user.as_deref());
        if !config.selects_user(user) {
            return None;
        }
        Some((config, info))
    }

    fn offer(&self, mut entry: BinlogEntry, conn_id: u64, peer: Option<SocketAddr>) {
        let Some(writer) = self.writer.get() else {
            return;
        };
        entry.sequence = self.sequence.fetch_add(1, Ordering::Relaxed) + 1;
        entry.timestamp_ns = entry::now_ns();
        entry.connection_id = conn_id;
        entry.peer = peer.map(|p| p.to_string()).unwrap_or_default();
        writer.offer(entry);
    }

    /// Records a frame of connection `conn_id`.
    pub fn record_frame(
        &self,
        conn_id: u64,
        peer: Option<SocketAddr>,
        direction: Direction,
        sid: u64,
        type_id: u8,
        body: &[u8],
    ) {
        let Some((config, info)) = self.selected(conn_id, peer) else {
            return;
        };
        let Some(limit) = config.limit(direction, type_id) else {
            return;
        };
        let mut entry = entry::frame_entry(direction, sid, type_id, body, limit);
        entry.user = user_of(info.as_ref());
        self.offer(entry, conn_id, peer);
    }

    /// Records every frame of `frames`, a buffer the node sent on connection `conn_id`.
    pub fn record_sent(&self, conn_id: u64, peer: Option<SocketAddr>, frames: &[u8]) {
        let Some((config, info)) = self.selected(conn_id, peer) else {
            return;
        };
        let format = info
            .as_ref()
            .map_or_else(|| *self.default_format.lock(), |i| i.format);
        let user = user_of(info.as_ref());
        for frame in entry::sent_frames(frames, format) {
            if let Some(limit) = config.limit(Direction::Sent, frame.type_id) {
                let mut entry = entry::frame_entry(
                    Direction::Sent,
                    frame.sid,
                    frame.type_id,
                    frame.body,
                    limit,
                );
                entry.user.clone_from(&user);
                self.offer(entry, conn_id, peer);
            }
        }
    }

    /// Records that connection `conn_id` opened, framing in `format`.
    pub fn record_open(&self, conn_id: u64, peer: Option<SocketAddr>, format: HeaderFormat) {
        if !self.on.load(Ordering::Relaxed) {
            return;
        }
        self.conns
            .write()
            .insert(conn_id, ConnInfo { format, user: None });
        self.record_event(conn_id, peer, EntryKind::ConnectionOpen, "");
    }

    /// Records that connection `conn_id` closed, and forgets it.
    pub fn record_close(&self, conn_id: u64, peer: Option<SocketAddr>) {
        self.record_event(conn_id, peer, EntryKind::ConnectionClose, "");
        self.conns.write().remove(&conn_id);
    }

    /// Records an authentication result: `Ok(user)`, or `Err(message)` with the refusal.
    pub fn record_auth(&self, conn_id: u64, peer: Option<SocketAddr>, result: Result<&str, &str>) {
        match result {
            Ok(user) => {
                let format = *self.default_format.lock();
                self.conns
                    .write()
                    .entry(conn_id)
                    .or_insert(ConnInfo { format, user: None })
                    .user = Some(Arc::from(user));
                self.record_event(conn_id, peer, EntryKind::AuthOk, "");
            }
            Err(message) => self.record_event(conn_id, peer, EntryKind::AuthFailed, message),
        }
    }

    fn record_event(&self, conn_id: u64, peer: Option<SocketAddr>, kind: EntryKind, detail: &str) {
        let Some((_, info)) = self.selected(conn_id, peer) else {
            return;
        };
        let entry = BinlogEntry {
            kind: kind as i32,
            user: user_of(info.as_ref()),
            detail: detail.to_owned(),
            ..Default::default()
        };
        self.offer(entry, conn_id, peer);
    }
}

fn user_of(info: Option<&ConnInfo>) -> String {
    info.and_then(|i| i.user.as_deref())
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use xrpc_proto::messages::{ClientType, ServerType};

    use super::*;

    /// A sink that keeps entries in memory.
    #[derive(Clone, Default)]
    struct Memory(Arc<Mutex<Vec<BinlogEntry>>>);

    impl Sink for Memory {
        fn write(&mut self, entry: &BinlogEntry) -> std::io::Result<()> {
            self.0.lock().push(entry.clone());
            Ok(())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn log_with(config: &str) -> (Binlog, Memory) {
        let log = Binlog::new(1024);
        let memory = Memory::default();
        log.install_sink(Box::new(memory.clone()));
        log.configure(config).unwrap();
        (log, memory)
    }

    const PEER: Option<SocketAddr> = Some(SocketAddr::V4(std::net::SocketAddrV4::new(
        std::net::Ipv4Addr::LOCALHOST,
        4000,
    )));

    #[test]
    fn user_filter_starts_at_authentication() {
        let (log, memory) = log_with("*,user=app");
        log.record_open(1, PEER, HeaderFormat::Standard);
        log.record_frame(
            1,
            PEER,
            Direction::Received,
            0,
            ClientType::CapabilitiesGet.id(),
            b"",
        );
        log.record_auth(1, PEER, Ok("app"));
        log.record_frame(
            1,
            PEER,
            Direction::Received,
            5,
            ClientType::ExecSql.id(),
            b"sql",
        );
        log.record_open(2, PEER, HeaderFormat::Standard);
        log.record_auth(2, PEER, Ok("root"));
        log.record_frame(
            2,
            PEER,
            Direction::Received,
            5,
            ClientType::ExecSql.id(),
            b"sql",
        );
        log.record_close(1, PEER);
        log.flush();
        let kinds: Vec<(u64, EntryKind, String)> = memory
            .0
            .lock()
            .iter()
            .map(|e| (e.connection_id, e.kind(), e.user.clone()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (1, EntryKind::AuthOk, "app".into()),
                (1, EntryKind::Received, "app".into()),
                (1, EntryKind::ConnectionClose, "app".into()),
            ]
        );
    }

    #[test]
    fn off_records_nothing_and_sequences_are_dense() {
        let (log, memory) = log_with("ERROR");
        log.record_sent(1, PEER, &{
            let mut buf = bytes::BytesMut::new();
            xrpc_proto::frame::encode_frame(
                &mut buf,
                HeaderFormat::Standard,
                3,
                ServerType::Row.id(),
                b"r",
            );
            xrpc_proto::frame::encode_frame(
                &mut buf,
                HeaderFormat::Standard,
                3,
                ServerType::Error.id(),
                b"e",
            );
            buf
        });
        log.configure("").unwrap();
        log.record_frame(1, PEER, Direction::Sent, 3, ServerType::Error.id(), b"e");
        log.flush();
        let entries = memory.0.lock().clone();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            (entries[0].sequence, entries[0].type_id, entries[0].sid),
            (1, 1, 3)
        );
        assert_eq!(entries[0].peer, "127.0.0.1:4000");
        assert!(log.configure("NOPE").is_err());
        assert!(log.config().is_none(), "an invalid string changes nothing");
    }
}
