//! The client's one error type, [`ClientError`], and the server error it may carry.
//!
//! `ClientError` is opaque, in the manner of `tokio::time::error::Error`: callers ask it questions
//! (`is_timeout()`, `is_connection_lost()`, `code()`, …) instead of matching variants, so new kinds
//! can be added without breaking them. It is `Clone` because one event (a broken connection, a
//! FATAL on a session) fails many requests at once and each waiter gets its own copy; the I/O error
//! inside is shared behind an `Arc` for that reason.
//!
//! Whatever the server said is preserved verbatim: severity, code, SQL state and message are
//! available through [`ClientError::server`], and `Display` prints them in MySQL's
//! `ERROR 1064 (42000): …` form.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use xrpc_proto::Severity;
use xrpc_proto::codes;
use xrpc_proto::messages::pb;

/// An `Error` message received from the server: severity, code, SQL state and message, unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    severity: Severity,
    code: u32,
    sql_state: String,
    message: String,
}

impl ServerError {
    /// A server error from its parts; mostly useful in tests and fake servers.
    ///
    /// ```
    /// use xrpc_client::ServerError;
    /// use xrpc_proto::Severity;
    ///
    /// let err = ServerError::new(Severity::Error, 1062, "23000", "Duplicate entry '1'");
    /// assert_eq!(err.to_string(), "ERROR 1062 (23000): Duplicate entry '1'");
    /// ```
    pub fn new(
        severity: Severity,
        code: u32,
        sql_state: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            code,
            sql_state: sql_state.into(),
            message: message.into(),
        }
    }

    pub(crate) fn from_pb(err: &pb::Error) -> Self {
        let severity = Severity::from_u32(err.severity.unwrap_or(0) as u32);
        Self::new(severity, err.code, err.sql_state.clone(), err.msg.clone())
    }

    /// ERROR ended one request; FATAL ended the session (or, on sid 0, the connection).
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// The numeric code, such as 1062 for a duplicate key.
    pub fn code(&self) -> u32 {
        self.code
    }

    /// The five-character SQL state, such as `23000`.
    pub fn sql_state(&self) -> &str {
        &self.sql_state
    }

    /// The server's message text.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the severity is FATAL.
    pub fn is_fatal(&self) -> bool {
        self.severity == Severity::Fatal
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} ({}): {}",
            self.severity, self.code, self.sql_state, self.message
        )
    }
}

impl std::error::Error for ServerError {}

/// What went wrong, privately: the public surface is the predicates on [`ClientError`].
#[derive(Debug, Clone, thiserror::Error)]
enum Kind {
    /// The server answered a request with an `Error`.
    #[error("{0}")]
    Server(ServerError),
    /// The server refused the credentials.
    #[error("authentication failed: {0}")]
    Auth(ServerError),
    /// A deadline passed: a query's timeout, or the connect and handshake timeout.
    #[error("{what} timed out after {after:?}")]
    Timeout { what: &'static str, after: Duration },
    /// The connection is gone; every session on it failed with this.
    #[error("connection lost: {reason}")]
    ConnectionLost {
        reason: String,
        /// A FATAL error the server sent on sid 0 before closing, if that was the cause.
        server: Option<ServerError>,
    },
    /// The session no longer exists (closed, killed, or failed by an earlier FATAL).
    #[error("session closed: {reason}")]
    SessionClosed {
        reason: String,
        server: Option<ServerError>,
    },
    /// The server broke the protocol: a frame or message that cannot be decoded or is out of place.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The socket failed.
    #[error("I/O error: {0}")]
    Io(Arc<io::Error>),
    /// Every connection and session slot of a pool is in use.
    #[error("pool exhausted: {0}")]
    PoolExhausted(String),
    /// The caller asked for something this client cannot do (bad option, unknown session, …).
    #[error("invalid use: {0}")]
    Usage(String),
    /// TLS could not be set up: the server refused the switch (its error is kept), or the
    /// handshake failed (an unknown authority, a name mismatch, an expired certificate, …).
    #[error("TLS: {reason}")]
    Tls {
        reason: String,
        server: Option<ServerError>,
    },
}

/// Every failure of the client, from a SQL error to a lost connection.
///
/// Ask it what happened with the `is_*` predicates, and read the server's code, SQL state and
/// message with [`code`](Self::code), [`sql_state`](Self::sql_state) and [`server`](Self::server).
///
/// ```no_run
/// use xrpc_client::ConnectOptions;
/// use xrpc_client::blocking::Connection;
///
/// let conn = Connection::connect("127.0.0.1:33660", ConnectOptions::new("root", ""))?;
/// let mut session = conn.session()?;
/// match session.query("select * from no_such_table") {
///     Ok(rows) => println!("{} rows", rows.rows.len()),
///     Err(err) if err.code() == Some(1146) => println!("no table: {err}"),
///     Err(err) if err.is_timeout() => println!("too slow"),
///     Err(err) => return Err(err.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct ClientError {
    kind: Box<Kind>,
}

impl ClientError {
    fn new(kind: Kind) -> Self {
        Self {
            kind: Box::new(kind),
        }
    }

    pub(crate) fn server_error(err: ServerError) -> Self {
        Self::new(Kind::Server(err))
    }

    pub(crate) fn auth(err: ServerError) -> Self {
        Self::new(Kind::Auth(err))
    }

    pub(crate) fn timeout(what: &'static str, after: Duration) -> Self {
        Self::new(Kind::Timeout { what, after })
    }

    pub(crate) fn connection_lost(reason: impl Into<String>, server: Option<ServerError>) -> Self {
        Self::new(Kind::ConnectionLost {
            reason: reason.into(),
            server,
        })
    }

    pub(crate) fn session_closed(reason: impl Into<String>, server: Option<ServerError>) -> Self {
        Self::new(Kind::SessionClosed {
            reason: reason.into(),
            server,
        })
    }

    pub(crate) fn protocol(message: impl Into<String>) -> Self {
        Self::new(Kind::Protocol(message.into()))
    }

    pub(crate) fn io(err: io::Error) -> Self {
        Self::new(Kind::Io(Arc::new(err)))
    }

    pub(crate) fn pool_exhausted(message: impl Into<String>) -> Self {
        Self::new(Kind::PoolExhausted(message.into()))
    }

    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self::new(Kind::Usage(message.into()))
    }

    pub(crate) fn tls(reason: impl Into<String>, server: Option<ServerError>) -> Self {
        Self::new(Kind::Tls {
            reason: reason.into(),
            server,
        })
    }

    /// Whether TLS could not be set up (refused by the server, or a failed handshake).
    pub fn is_tls(&self) -> bool {
        matches!(*self.kind, Kind::Tls { .. })
    }

    /// The server's error, when the server sent one: a SQL error, an authentication refusal, or the
    /// FATAL that ended a session or connection.
    pub fn server(&self) -> Option<&ServerError> {
        match &*self.kind {
            Kind::Server(err) | Kind::Auth(err) => Some(err),
            Kind::ConnectionLost { server, .. }
            | Kind::SessionClosed { server, .. }
            | Kind::Tls { server, .. } => server.as_ref(),
            _ => None,
        }
    }

    /// The server's error code, if the server sent one.
    pub fn code(&self) -> Option<u32> {
        self.server().map(ServerError::code)
    }

    /// The server's SQL state, if the server sent one.
    pub fn sql_state(&self) -> Option<&str> {
        self.server().map(ServerError::sql_state)
    }

    /// Whether the server answered the request with an `Error` (of either severity). The session may
    /// still be usable: see [`is_fatal`](Self::is_fatal).
    pub fn is_server(&self) -> bool {
        matches!(&*self.kind, Kind::Server(_))
    }

    /// Whether the server's error was FATAL, so the session (or connection) it arrived on is gone.
    pub fn is_fatal(&self) -> bool {
        self.server().is_some_and(ServerError::is_fatal)
    }

    /// Whether the server refused the credentials.
    pub fn is_auth(&self) -> bool {
        matches!(&*self.kind, Kind::Auth(_))
    }

    /// Whether a deadline passed: a query timeout (the query was killed) or the connect timeout.
    pub fn is_timeout(&self) -> bool {
        matches!(&*self.kind, Kind::Timeout { .. })
    }

    /// Whether the connection broke (I/O failure, end of stream, FATAL on sid 0, failed heartbeats).
    /// Every session on it failed; a pool reconnects on next use.
    pub fn is_connection_lost(&self) -> bool {
        matches!(&*self.kind, Kind::ConnectionLost { .. } | Kind::Io(_))
    }

    /// Whether the session is gone: closed, killed or ended by a FATAL error.
    pub fn is_session_closed(&self) -> bool {
        matches!(&*self.kind, Kind::SessionClosed { .. })
    }

    /// Whether the server broke the protocol.
    pub fn is_protocol(&self) -> bool {
        matches!(&*self.kind, Kind::Protocol(_))
    }

    /// Whether the socket itself failed.
    pub fn is_io(&self) -> bool {
        matches!(&*self.kind, Kind::Io(_))
    }

    /// Whether a pool had no connection or session slot left.
    pub fn is_pool_exhausted(&self) -> bool {
        matches!(&*self.kind, Kind::PoolExhausted(_))
    }

    /// Whether the caller misused the API (unknown session, bad option, …).
    pub fn is_usage(&self) -> bool {
        matches!(&*self.kind, Kind::Usage(_))
    }

    /// Whether this is a duplicate-key error (1062, SQL state 23000).
    pub fn is_duplicate_key(&self) -> bool {
        self.code() == Some(codes::DUP_ENTRY.code)
    }

    /// Whether the statement was interrupted by a kill (1317).
    pub fn is_interrupted(&self) -> bool {
        self.code() == Some(codes::QUERY_INTERRUPTED.code)
    }

    /// The same failure seen by another session of a lost connection: its text names the cause.
    pub(crate) fn for_session(&self) -> ClientError {
        match &*self.kind {
            Kind::ConnectionLost { .. } | Kind::Io(_) => self.clone(),
            _ => Self::connection_lost(self.to_string(), self.server().cloned()),
        }
    }
}

impl From<io::Error> for ClientError {
    fn from(err: io::Error) -> Self {
        Self::io(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_keep_code_state_and_message() {
        let err = ClientError::server_error(ServerError::new(
            Severity::Error,
            1064,
            "42000",
            "near \"selec\": syntax error",
        ));
        assert!(err.is_server() && !err.is_fatal() && !err.is_connection_lost());
        assert_eq!(err.code(), Some(1064));
        assert_eq!(err.sql_state(), Some("42000"));
        assert_eq!(
            err.to_string(),
            "ERROR 1064 (42000): near \"selec\": syntax error"
        );
    }

    #[test]
    fn lost_connections_keep_the_fatal_that_caused_them() {
        let fatal = ServerError::new(Severity::Fatal, 1153, "S1000", "too large");
        let err = ClientError::connection_lost("server closed the connection", Some(fatal));
        assert!(err.is_connection_lost() && err.is_fatal());
        assert_eq!(err.code(), Some(1153));
        assert!(err.to_string().starts_with("connection lost: "));
        let io = ClientError::io(io::Error::from(io::ErrorKind::ConnectionReset));
        assert!(io.is_connection_lost() && io.is_io() && io.code().is_none());
    }

    #[test]
    fn timeouts_say_what_timed_out() {
        let err = ClientError::timeout("query", Duration::from_millis(250));
        assert!(err.is_timeout());
        assert_eq!(err.to_string(), "query timed out after 250ms");
    }
}
