//! Failures as the mysql client reports them: `ERROR 1146 (42S02): Table 'x.t' doesn't exist`.
//!
//! A node's error keeps its code, SQL state and message exactly as sent, whatever the engine
//! behind the node and whatever the severity (a FATAL that ended the session prints as `ERROR`
//! too, as the mysql client prints every server error). A failure on the client's side gets the
//! mysql client's own code for it, all with SQL state `HY000`:
//!
//! | code | when |
//! |---|---|
//! | 2003 | the TCP connection or the handshake failed, or timed out |
//! | 2013 | the connection or session was lost while a statement ran |
//! | 2026 | TLS could not be set up (the reason follows) |
//! | 2027 | the node broke the protocol |
//! | 2000 | anything else |

use std::fmt;

use xrpc_client::ClientError;

/// The mysql client's `CR_UNKNOWN_ERROR`.
const CR_UNKNOWN_ERROR: u32 = 2000;
/// `CR_CONN_HOST_ERROR`.
const CR_CONN_HOST_ERROR: u32 = 2003;
/// `CR_SERVER_LOST`.
const CR_SERVER_LOST: u32 = 2013;
/// `CR_SSL_CONNECTION_ERROR`.
const CR_SSL_CONNECTION_ERROR: u32 = 2026;
/// `CR_MALFORMED_PACKET`.
const CR_MALFORMED_PACKET: u32 = 2027;
/// The SQL state of every client-side error.
const CLIENT_SQL_STATE: &str = "HY000";

/// What the client was doing when it failed: the same I/O error means "cannot connect" before
/// the session exists and "lost connection" after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Connecting, switching to TLS, authenticating.
    Connecting,
    /// Running a statement on an open session.
    Running,
}

/// A failure in the mysql client's terms; `Display` is `ERROR code (state): message`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MysqlError {
    /// The server's code, or the mysql client's for a client-side failure.
    pub code: u32,
    /// The five-character SQL state.
    pub sql_state: String,
    /// The text after the colon.
    pub message: String,
}

impl MysqlError {
    /// `err` as the mysql client would report it, in `phase`, against the node at `addr`.
    pub fn from_client(err: &ClientError, phase: Phase, addr: &str) -> Self {
        if let Some(server) = err.server() {
            return Self {
                code: server.code(),
                sql_state: server.sql_state().to_owned(),
                message: server.message().to_owned(),
            };
        }
        let (code, message) = if err.is_tls() {
            (
                CR_SSL_CONNECTION_ERROR,
                format!("SSL connection error: {err}"),
            )
        } else if err.is_protocol() {
            (CR_MALFORMED_PACKET, format!("Malformed packet: {err}"))
        } else if err.is_io() || err.is_timeout() || err.is_connection_lost() {
            match phase {
                Phase::Connecting => (
                    CR_CONN_HOST_ERROR,
                    format!("Can't connect to xrpc node on '{addr}' ({err})"),
                ),
                Phase::Running => (
                    CR_SERVER_LOST,
                    format!("Lost connection to xrpc node during query ({err})"),
                ),
            }
        } else if err.is_session_closed() {
            (
                CR_SERVER_LOST,
                format!("Lost connection to xrpc node during query ({err})"),
            )
        } else {
            (CR_UNKNOWN_ERROR, format!("Unknown error: {err}"))
        };
        Self {
            code,
            sql_state: CLIENT_SQL_STATE.to_owned(),
            message,
        }
    }
}

impl fmt::Display for MysqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code, self.sql_state, self.message
        )
    }
}
