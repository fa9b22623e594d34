//! Typed getters over the variables, shared by the live values and the start-up configuration.
//!
//! [`Settings`] has four required methods that read one variable's slot by kind, and provides a
//! getter per variable the node reads by name (`max_sessions()`, `frame_config()`, …).
//! [`crate::var_store::Variables`] implements it over the live values, and
//! [`crate::config::ServerConfig`] over the start-up ones, so both read a variable the same way
//! and the getters are written once. Values are within their kind's range (both stores check
//! them before storing), so the casts below are exact.

use std::time::Duration;

use xrpc_proto::{FrameConfig, HeaderFormat};

use crate::vars::VarId;

/// Typed access to variable values; implement the four `read_*` methods, get the rest.
pub trait Settings {
    /// The value of an ON/OFF variable; `false` for another kind.
    fn read_bool(&self, id: VarId) -> bool;

    /// The value of an integer variable (never negative in this table); 0 for another kind.
    fn read_int(&self, id: VarId) -> i64;

    /// The value of a choice variable; empty for another kind.
    fn read_choice(&self, id: VarId) -> &'static str;

    /// The value of a text variable; empty for another kind.
    fn read_text(&self, id: VarId) -> String;

    /// `xrpc_binlog`: the binary log's config string (empty: off).
    fn binlog(&self) -> String {
        self.read_text(VarId::Binlog)
    }

    /// `xrpc_binlog_dir`: the binary log's directory (empty: `binlog/` in the data directory).
    fn binlog_dir(&self) -> String {
        self.read_text(VarId::BinlogDir)
    }

    /// `xrpc_binlog_max_file_size`, `xrpc_binlog_max_files` and `xrpc_binlog_queue_entries`:
    /// the binary log's rotation size in bytes, files kept and queue capacity in entries.
    fn binlog_limits(&self) -> (u64, usize, usize) {
        (
            self.read_int(VarId::BinlogMaxFileSize) as u64,
            self.read_int(VarId::BinlogMaxFiles) as usize,
            self.read_int(VarId::BinlogQueueEntries) as usize,
        )
    }

    /// `xrpc_work_queue_spill`.
    fn work_queue_spill(&self) -> bool {
        self.read_bool(VarId::WorkQueueSpill)
    }

    /// `xrpc_enable_perf_hist`.
    fn perf_hist_enabled(&self) -> bool {
        self.read_bool(VarId::EnablePerfHist)
    }

    /// `xrpc_max_queued_messages`.
    fn max_queued_messages(&self) -> usize {
        self.read_int(VarId::MaxQueuedMessages) as usize
    }

    /// `xrpc_max_sessions`.
    fn max_sessions(&self) -> usize {
        self.read_int(VarId::MaxSessions) as usize
    }

    /// `xrpc_auth_max_failures`.
    fn auth_max_failures(&self) -> u32 {
        self.read_int(VarId::AuthMaxFailures) as u32
    }

    /// `xrpc_max_connect_errors`: failed authentications in a row that block an address.
    fn max_connect_errors(&self) -> u32 {
        self.read_int(VarId::MaxConnectErrors) as u32
    }

    /// `xrpc_host_block_time`: how long a blocked address stays blocked (`None`: until
    /// `FLUSH HOSTS`).
    fn host_block_time(&self) -> Option<Duration> {
        match self.read_int(VarId::HostBlockTime) {
            0 => None,
            secs => Some(Duration::from_secs(secs as u64)),
        }
    }

    /// `xrpc_sqlite_max_page_count`: the SQLite database's size cap in pages (`None`: none).
    fn sqlite_max_page_count(&self) -> Option<u32> {
        match self.read_int(VarId::SqliteMaxPageCount) {
            0 => None,
            pages => u32::try_from(pages).ok(),
        }
    }

    /// `xrpc_sqlite_mmap_size`: bytes of each SQLite database read through a memory map (0: off).
    fn sqlite_mmap_size(&self) -> u64 {
        u64::try_from(self.read_int(VarId::SqliteMmapSize)).unwrap_or(0)
    }

    /// `xrpc_backend_pool_size`: backend connections of the mysql engine.
    fn backend_pool_size(&self) -> usize {
        self.read_int(VarId::BackendPoolSize) as usize
    }

    /// `xrpc_backend_wait_timeout`: how long a statement waits for room on a backend
    /// connection.
    fn backend_wait_timeout(&self) -> Duration {
        Duration::from_millis(self.read_int(VarId::BackendWaitTimeout).max(0) as u64)
    }

    /// `xrpc_backend_connection_lifetime`: how long a backend connection lives.
    fn backend_connection_lifetime(&self) -> Duration {
        millis(self.read_int(VarId::BackendConnectionLifetime))
    }

    /// `xrpc_backend_driver_connections`: backend connections the mysql engine opens at the
    /// start.
    fn backend_driver_connections(&self) -> usize {
        usize::try_from(self.read_int(VarId::BackendDriverConnections)).unwrap_or(2)
    }

    /// `xrpc_backend_connect_timeout`: how long a TCP connect to the backend may take.
    fn backend_connect_timeout(&self) -> Duration {
        millis(self.read_int(VarId::BackendConnectTimeout))
    }

    /// `xrpc_engine_wait`: how long start-up waits for the backend to accept connections.
    fn engine_wait(&self) -> Duration {
        Duration::from_secs(self.read_int(VarId::EngineWait).unsigned_abs())
    }

    /// `xrpc_connect_timeout` (MySQL's `connect_timeout`).
    fn connect_timeout(&self) -> Duration {
        Duration::from_secs(self.read_int(VarId::ConnectTimeout) as u64)
    }

    /// `xrpc_require_secure_transport` (MySQL's `require_secure_transport`).
    fn require_secure_transport(&self) -> bool {
        self.read_bool(VarId::RequireSecureTransport)
    }

    /// `xrpc_max_connections` (MySQL's `max_connections`).
    fn max_connections(&self) -> usize {
        self.read_int(VarId::MaxConnections) as usize
    }

    /// `xrpc_shared_session_lifetime`.
    fn shared_session_lifetime(&self) -> Duration {
        millis(self.read_int(VarId::SharedSessionLifetime))
    }

    /// `xrpc_epoll_group_ctx_refresh_time`.
    fn ctx_refresh_time(&self) -> Duration {
        millis(self.read_int(VarId::CtxRefreshTime))
    }

    /// `xrpc_request_cache_max_length`.
    fn request_cache_max_length(&self) -> usize {
        self.read_int(VarId::RequestCacheMaxLength) as usize
    }

    /// `xrpc_request_cache_instances`.
    fn request_cache_instances(&self) -> usize {
        self.read_int(VarId::RequestCacheInstances) as usize
    }

    /// `xrpc_request_cache_number`.
    fn request_cache_number(&self) -> usize {
        self.read_int(VarId::RequestCacheNumber) as usize
    }

    /// `xrpc_chunk_result_default`.
    fn chunk_result_default(&self) -> bool {
        self.read_bool(VarId::ChunkResultDefault)
    }

    /// `xrpc_net_write_timeout`.
    fn net_write_timeout(&self) -> Duration {
        millis(self.read_int(VarId::NetWriteTimeout))
    }

    /// `xrpc_max_allowed_packet`.
    fn max_allowed_packet(&self) -> u32 {
        self.read_int(VarId::MaxAllowedPacket) as u32
    }

    /// `xrpc_sqlite_synchronous`: `OFF`, `NORMAL`, `FULL` or `EXTRA`, ready for the PRAGMA.
    fn sqlite_synchronous(&self) -> &'static str {
        self.read_choice(VarId::SqliteSynchronous)
    }

    /// `xrpc_sqlite_begin_immediate`.
    fn sqlite_begin_immediate(&self) -> bool {
        self.read_bool(VarId::SqliteBeginImmediate)
    }

    /// `xrpc_sqlite_busy_timeout`.
    fn sqlite_busy_timeout(&self) -> Duration {
        millis(self.read_int(VarId::SqliteBusyTimeout))
    }

    /// `xrpc_drain_timeout`.
    fn drain_timeout(&self) -> Duration {
        millis(self.read_int(VarId::DrainTimeout))
    }

    /// The frame format (`xrpc_galaxy_protocol`, `xrpc_galaxy_version`) and
    /// `xrpc_max_allowed_packet`.
    fn frame_config(&self) -> FrameConfig {
        frame_config(
            self.read_bool(VarId::GalaxyProtocol),
            self.read_int(VarId::GalaxyVersion),
            self.read_int(VarId::MaxAllowedPacket),
        )
    }
}

/// A non-negative millisecond count as a duration.
pub(crate) fn millis(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

/// The frame configuration for checked values.
fn frame_config(galaxy: bool, version: i64, max_packet: i64) -> FrameConfig {
    let format = if galaxy {
        HeaderFormat::Galaxy {
            version: version as u8,
        }
    } else {
        HeaderFormat::Standard
    };
    FrameConfig {
        format,
        max_packet: max_packet as u32,
    }
}
