//! TLS on a connection, started in-band on the same socket.
//!
//! A connection starts in the clear. When the protocol above agrees to switch (in the X Protocol,
//! a CapabilitiesSet with `tls` before authentication), the handler calls
//! [`ConnRef::start_tls`](crate::ConnRef::start_tls) from [`Handler::on_frames`](crate::Handler::on_frames):
//! the reply is sent in the clear, and from then on every byte in either direction goes through a
//! rustls [`ServerConnection`]. The client must wait for that reply before it starts its handshake,
//! as the X Protocol requires; bytes that arrive in the same read as the switching frame are a
//! protocol violation and finish the connection.
//!
//! # What plain connections pay
//!
//! One `OnceLock` load on each receive pass and each send: the session lives in a `OnceLock`
//! beside the socket, set once and never cleared, and the plain paths are the ones they were.
//!
//! # Paths
//!
//! - **Receive** (`conn.rs`, under the receive gate): take the plaintext rustls already holds; when
//!   it holds none, `read_tls` once from the socket and `process_new_packets`. A short plaintext
//!   read says nothing about the socket, so a TLS reader stops only at `EAGAIN`. Records the
//!   processing produced (handshake flights, alerts, key updates) are written at once under the
//!   send lock.
//! - **Send** (under the send lock): the plaintext goes through `writer()` (rustls encrypts it into
//!   its own output buffer, bounded by its buffer limit of 64 KiB), then `write_tls` straight to the
//!   socket. On `EAGAIN` the session lock is released while the sender polls, so the reader keeps
//!   reading; the send lock stays held, which keeps the records in sequence on the wire.
//!
//! # Locks
//!
//! The order is the send lock, then the session lock. The session lock is only ever held for
//! non-blocking work. A reader that must write takes the send lock and may wait behind a sender
//! blocked on a full socket; that happens only for records the reader's processing produced
//! (the handshake, alerts, TLS 1.3 key updates), never for application data.

use std::sync::Arc;

use parking_lot::Mutex;
use rustls::{ServerConfig, ServerConnection};

/// The rustls state of a connection that switched to TLS.
pub(crate) struct TlsSession {
    pub(crate) session: Mutex<ServerConnection>,
}

impl TlsSession {
    pub(crate) fn new(config: Arc<ServerConfig>) -> Result<Self, rustls::Error> {
        Ok(Self {
            session: Mutex::new(ServerConnection::new(config)?),
        })
    }
}

/// Why [`ConnRef::start_tls`](crate::ConnRef::start_tls) did not switch the connection to TLS.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartTlsError {
    /// The connection already runs over TLS.
    #[error("the connection already uses TLS")]
    AlreadyTls,
    /// rustls refused the configuration.
    #[error("cannot start a TLS session: {0}")]
    Rustls(#[from] rustls::Error),
    /// The clear-text reply could not be sent; the connection is finished.
    #[error("cannot send the reply before the TLS handshake: {0}")]
    Send(#[from] crate::SendError),
}
