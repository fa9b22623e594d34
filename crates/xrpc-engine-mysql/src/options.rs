//! How the engine opens and keeps its backend connections ([`PoolOptions`]), the statement
//! every connection runs first, and the error of a statement that found no room in time.

use std::time::Duration;

/// The statement run on every new backend connection (and again after every
/// COM_RESET_CONNECTION): the session trackers the engine learns session state from.
pub const TRACKING_INIT: &str = "SET SESSION session_track_state_change = ON, \
     session_track_schema = ON, session_track_system_variables = '*', \
     session_track_transaction_info = 'CHARACTERISTICS'";

/// The message of [`xrpc_proto::codes::BACKEND_BUSY`]: no backend connection had room for a statement
/// within `waited`, with `size` connections at most.
pub(crate) fn backend_busy_message(waited: Duration, size: usize) -> String {
    format!(
        "No backend connection became free within {} ms: all {size} are busy \
         (xrpc_backend_pool_size); retry, or raise the pool size",
        waited.as_millis()
    )
}

/// How the engine opens and keeps its backend connections (those of the event-loop driver,
/// [`crate::driver`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most backend connections open at once; 16 by default.
    pub size: usize,
    /// How long a TCP connect and login may take; 5 s by default.
    pub connect_timeout: Duration,
    /// How long a statement waits for room on a connection (or a session for a connection of
    /// its own) before it fails with 7009; 10 s by default.
    pub wait_timeout: Duration,
    /// A connection open this long is replaced once nothing runs on it; 30 min by default.
    pub lifetime: Duration,
    /// Backend connections opened at the start, more by demand up to [`PoolOptions::size`];
    /// 8 by default, at least 2 (a kill of a statement in flight goes out on another
    /// connection).
    pub driver_connections: usize,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            size: 16,
            connect_timeout: Duration::from_secs(5),
            wait_timeout: Duration::from_secs(10),
            lifetime: Duration::from_secs(30 * 60),
            driver_connections: 8,
        }
    }
}
