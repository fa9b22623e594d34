//! Error types, one per operation: submitting a command, cancelling one, connecting, and
//! decoding what the server sent. A statement's own failure is not a Rust error of this crate
//! but an outcome the server reports: [`StatementError`].

use std::fmt;

/// MySQL's client error for a connection that broke while a statement was in flight.
pub const CR_SERVER_LOST: u16 = 2013;
/// MySQL's error for an interrupted statement (`KILL QUERY`, or withdrawn before it was sent).
pub const ER_QUERY_INTERRUPTED: u16 = 1317;

/// How a statement failed: the server's ERR packet, or a failure the state machine reports in
/// MySQL's terms (2013 for a lost connection, 1317 for a statement withdrawn before it was sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementError {
    /// The MySQL error code.
    pub code: u16,
    /// The five-character SQL state (`HY000` when the server sent none).
    pub sql_state: String,
    /// The server's message.
    pub message: String,
}

impl StatementError {
    /// 2013 (`HY000`) "Lost connection to MySQL server during query": the transport closed or the
    /// server's bytes stopped making sense while the statement was in flight or queued.
    pub fn connection_lost() -> Self {
        Self {
            code: CR_SERVER_LOST,
            sql_state: "HY000".to_owned(),
            message: "Lost connection to MySQL server during query".to_owned(),
        }
    }

    /// 1317 (`70100`) "Query execution was interrupted": withdrawn before any of it was sent.
    pub fn interrupted() -> Self {
        Self {
            code: ER_QUERY_INTERRUPTED,
            sql_state: "70100".to_owned(),
            message: "Query execution was interrupted".to_owned(),
        }
    }

    pub(crate) fn from_server(err: &mysql_common::packets::ServerError<'_>) -> Self {
        Self {
            code: err.error_code(),
            sql_state: err
                .sql_state_ref()
                .map_or_else(|| "HY000".to_owned(), |state| state.as_str().into_owned()),
            message: err.message_str().into_owned(),
        }
    }
}

impl fmt::Display for StatementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code, self.sql_state, self.message
        )
    }
}

impl std::error::Error for StatementError {}

/// Why a command was not accepted by [`Connection::submit_query`](crate::Connection::submit_query)
/// and its siblings. Nothing was queued and no event will name the tag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitError {
    /// The handshake has not finished yet.
    #[error("the connection is not ready: the handshake has not finished")]
    NotReady,
    /// The connection is closed (or COM_QUIT was queued).
    #[error("the connection is closed")]
    Closed,
    /// As many commands as the configured depth are already in flight.
    #[error("the pipeline is full ({depth} commands in flight)")]
    PipelineFull {
        /// The configured depth.
        depth: usize,
    },
    /// Another command in flight carries the same tag.
    #[error("tag {0} is already in flight")]
    DuplicateTag(u64),
}

/// Why [`Connection::cancel`](crate::Connection::cancel) could not act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CancelError {
    /// No command in flight carries the tag (it ended already, or was never submitted).
    #[error("no command with tag {0} is in flight")]
    NotInFlight(u64),
}

/// Why the handshake failed; reported by [`CloseReason::Connect`](crate::CloseReason::Connect).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    /// The server refused the connection or the login (1040 too many connections, 1045 access
    /// denied, 1049 unknown database, …).
    #[error("the server refused the connection: {0}")]
    Refused(StatementError),
    /// The server speaks a protocol version other than 10, or without CLIENT_PROTOCOL_41.
    #[error("unsupported server protocol: {0}")]
    UnsupportedProtocol(String),
    /// The account uses an authentication plugin this crate does not implement.
    #[error("unsupported authentication plugin {0:?}")]
    UnsupportedAuthPlugin(String),
    /// caching_sha2_password asked for full authentication, which needs TLS or the server's RSA
    /// key; only its fast path (a password the server has cached) is implemented.
    #[error(
        "caching_sha2_password full authentication is not supported (it needs TLS or the \
         server's RSA key); the fast path works once the server has cached the password"
    )]
    FullAuthenticationRequired,
    /// The handshake did not finish before its deadline.
    #[error("the handshake did not finish in time")]
    Timeout,
    /// The transport closed during the handshake.
    #[error("the server closed the connection during the handshake")]
    TransportClosed,
    /// The server's handshake bytes do not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// Bytes from the server that do not follow the protocol. Fatal: the connection closes and every
/// command in flight fails with 2013.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A packet's sequence id is not the next one.
    #[error("packet sequence id {found}, expected {expected}")]
    Sequence {
        /// The id the conversation is at.
        expected: u8,
        /// The id the packet carries.
        found: u8,
    },
    /// A packet longer than the configured maximum.
    #[error("a packet of {len} bytes or more exceeds the maximum of {max}")]
    TooLarge {
        /// The length known so far.
        len: usize,
        /// The configured maximum.
        max: usize,
    },
    /// A packet that does not parse as what the conversation expects at this point.
    #[error("malformed {what} packet: {reason}")]
    Malformed {
        /// What was expected (`handshake`, `OK`, `column definition`, `row`, …).
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A packet the conversation does not expect at this point.
    #[error("unexpected packet (first byte {first:#04x}) {during}")]
    Unexpected {
        /// Its first byte (0 for an empty packet).
        first: u8,
        /// Where in the conversation.
        during: &'static str,
    },
}

impl DecodeError {
    pub(crate) fn malformed(what: &'static str, reason: impl fmt::Display) -> Self {
        Self::Malformed {
            what,
            reason: reason.to_string(),
        }
    }

    pub(crate) fn unexpected(payload: &[u8], during: &'static str) -> Self {
        Self::Unexpected {
            first: payload.first().copied().unwrap_or(0),
            during,
        }
    }
}
