//! The sans-IO client core: one [`ClientConnection`] per TCP connection, with no I/O and no clock.
//!
//! The core is a deterministic state machine in the manner of `quinn-proto`. It never touches a
//! socket and never reads the time; the transport ([`crate::blocking`], `crate::aio`) or a test
//! feeds it bytes and instants and carries out what it asks for.
//!
//! # Call order
//!
//! ```text
//!          ┌─────────────────────────── transport loop ───────────────────────────┐
//!  bytes → │ handle_input(bytes, now)        requests → open_session / execute /  │
//!  timer → │ handle_timeout(now)                         kill / close_session     │
//!  EOF   → │ handle_eof() / handle_io_error(e)                                    │
//!          │ then, until each returns None:                                       │
//!          │   poll_transmit()  → write these bytes to the socket (all sessions)  │
//!          │   poll_event()     → wake whoever waits for the request / session    │
//!          │   poll_timeout()   → call handle_timeout at this instant             │
//!          └──────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Every input may produce output, so a transport polls all three outputs after each input. The
//! bytes of many requests and sessions accumulate in one buffer between polls, so one `write`
//! carries all of them.
//!
//! A minimal single-threaded driver (the real ones are [`crate::blocking`] and `crate::aio`):
//!
//! ```no_run
//! use std::io::{ErrorKind, Read, Write};
//! use std::net::TcpStream;
//! use std::time::{Duration, Instant};
//! use xrpc_client::ExecOptions;
//! use xrpc_client::proto::{ClientConfig, ClientConnection, Event};
//!
//! let mut socket = TcpStream::connect("127.0.0.1:33660")?;
//! let mut conn = ClientConnection::new(ClientConfig::new("root", ""), Instant::now());
//! let sid = conn.open_session()?;
//! let id = conn.execute(sid, "select 1", &[], &ExecOptions::default(), Instant::now())?;
//! let mut buf = vec![0u8; 64 * 1024];
//! loop {
//!     while let Some(bytes) = conn.poll_transmit() {
//!         socket.write_all(&bytes)?;
//!     }
//!     while let Some(event) = conn.poll_event() {
//!         if let Event::Completed { id: done, result, .. } = event {
//!             if done == id {
//!                 println!("{:?}", result?.into_result_set().rows);
//!                 return Ok(());
//!             }
//!         }
//!     }
//!     let wait = conn.poll_timeout().map(|t| {
//!         t.saturating_duration_since(Instant::now()).max(Duration::from_millis(1))
//!     });
//!     socket.set_read_timeout(wait)?;
//!     match socket.read(&mut buf) {
//!         Ok(0) => conn.handle_eof(),
//!         Ok(n) => conn.handle_input(&buf[..n], Instant::now()),
//!         Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
//!             conn.handle_timeout(Instant::now())
//!         }
//!         Err(e) => conn.handle_io_error(e),
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Connection
//!
//! [`ClientConnection::new`] queues the capabilities probe and `AuthenticateStart{MYSQL41}` on sid 0.
//! The server's 20-byte challenge is answered with `schema \0 user \0 *<scramble hex>`, or with no
//! scramble at all for an empty password; `AuthenticateOk` gives [`Event::Authenticated`]. A refusal
//! gives [`Event::AuthFailed`]; the connection stays open and [`ClientConnection::authenticate`] may
//! retry. Requests issued before authentication are buffered and go out right after
//! `AuthenticateOk`, so a transport can pipeline its first statement behind the handshake.
//!
//! # Sessions and requests
//!
//! - [`open_session`](ClientConnection::open_session) allocates a sid and sends nothing: SESS_NEW
//!   rides along with the first request, in the same buffer, without waiting for its OK. The
//!   server's first frame on the sid must be that OK (or a FATAL, which fails the session).
//! - Each session keeps its requests in flight in order; the server runs them in order, so every
//!   frame on a sid belongs to the oldest request still in flight. `StmtExecuteOk` ends a request
//!   successfully; an `Error` ends it with that error; a FATAL `Error` ends the session and every
//!   request on it (on sid 0, the whole connection).
//! - [`execute_once`](ClientConnection::execute_once) runs a statement on a fresh auto-commit sid
//!   (top bit set): no SESS_NEW, no state, forgotten once answered.
//!
//! # Cascading errors
//!
//! The server stores each session's last error. A request marked
//! [`fire_and_forget`](crate::ExecOptions::fire_and_forget) reports nothing; the request after it
//! (fire-and-forget or not) is sent with `reset_error = false`, so if anything in the chain failed,
//! the server answers it with the stored error instead of running it in the wrong state. The core
//! mirrors the stored error per session ([`ClientConnection::session_last_error`]): set by any
//! failure, cleared by any success.
//!
//! # Flow control
//!
//! A request with a `token` budget of `T` KiB counts the wire bytes of its replies. `TokenDone` is
//! answered with `TokenOffer{T}`, which resets the server's budget. The core offers early, once
//! 4/5 of the budget has been used, when the local unread queue is short: for a collected result
//! the queue is always empty; for a [streamed](crate::ExecOptions::stream) one it is the rows not
//! yet taken by [`take_rows`](ClientConnection::take_rows), and "short" means under 1/5 of the
//! budget. Otherwise even the answer to `TokenDone` waits until the caller has read enough, which
//! is how a slow reader slows the server down.
//!
//! # Digest cache
//!
//! A statement of [`digest_min_len`](ClientConfig::digest_min_len) to 1 MiB bytes is sent the first
//! time with its digest (16 bytes of SHA-1, see `stmt`), which makes the server cache it. Later it is
//! sent as the digest alone, provided the session has nothing else in flight; requests issued while
//! such a digest-only request awaits its first reply are held locally. If the first reply is
//! `Error{ERROR, 6000}` (before any metadata), the full statement is resent transparently and the
//! held requests follow it; either way the order in which the server runs the session's requests
//! is the order in which they were issued. The set of digests sent is per connection, and is
//! cleared when it reaches [`digest_capacity`](ClientConfig::digest_capacity).
//!
//! # Column metadata
//!
//! A statement run again gets byte-identical `ColumnMetaData` frames, so the connection keeps each
//! distinct metadata body it has decoded (up to 1 024, then it forgets them all) with its
//! [`Column`], and a frame whose body it has seen is not decoded again: the column is cloned. Only
//! bodies that decode go into the cache; anything else takes the ordinary path, which reports it.
//!
//! # Timeouts and heartbeat
//!
//! A request whose [`timeout`](crate::ExecOptions::timeout) passes fails at once with a timeout
//! error. If it is the one running, the core sends `SESS_KILL{QUERY}` on its sid (a request that
//! times out while queued behind another is killed when it reaches the head); its remaining replies
//! are consumed silently. Auto-commit sids cannot be killed; their replies are discarded. When no
//! frame has arrived for [`heartbeat_interval`](ClientConfig::heartbeat_interval) (10 s), the core
//! sends `CapabilitiesGet` on sid 0. Any frame received proves the connection alive; a probe with no
//! frame at all within [`heartbeat_timeout`](ClientConfig::heartbeat_timeout) counts as one failure
//! and is repeated, and after [`heartbeat_max_failures`](ClientConfig::heartbeat_max_failures)
//! (5) failures in a row the connection is declared lost.
//!
//! # Invariants
//!
//! - The core never blocks, allocates per frame only what the decoded values need, and its output
//!   depends only on its inputs: the same inputs at the same instants give the same bytes and events.
//! - Every request issued ends in exactly one [`Event::Completed`] (fire-and-forget requests in
//!   none), whether it succeeds, fails, times out, or its session or connection dies.
//! - Once the connection is lost, every call that would send fails with the same
//!   connection-lost error, and no bytes are produced.
//!
//! # Files
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`ClientConnection`]: the handshake, the session table, routing frames by sid, deadlines, heartbeat, streams |
//! | `session.rs` | one session's state machine: its requests in flight and held, and what each reply does to the head request |
//! | `result.rs` | assembling a result set from metadata, rows and chunks |
//! | `stmt.rs` | statement digests and the transaction effect of a statement |

mod result;
mod session;
mod stmt;

/// The digest the client sends for a statement (16 bytes of its SHA-1); plans use it too.
pub(crate) fn statement_digest(stmt: &[u8]) -> stmt::Digest {
    stmt::digest(stmt)
}

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::io;
use std::time::{Duration, Instant};

use bytes::Bytes;
use xrpc_proto::auth::{CHALLENGE_LEN, Challenge, MECH_MYSQL41, mysql41_client_response};
use xrpc_proto::frame::{AUTO_COMMIT_SID_BIT, CONNECTION_SID, encode_message_frame, put_header};
use xrpc_proto::messages::pb::{connection, exec_plan, session as pb_session, sql};
use xrpc_proto::messages::{ClientMessage, ClientType, ServerMessage, ServerType};
use xrpc_proto::{FrameConfig, FrameDecoder, HeaderFormat};

use self::result::ResultBuilder;
use self::session::{Body, Exec, Open, Reply, Request, Session};
use self::stmt::Digest;
use crate::error::{ClientError, ServerError};
use crate::types::{Column, ExecOptions, ExecResult, KillKind, Param, RequestId, SessionId};

/// The largest statement the server caches under its digest (`request_cache_max_length`).
const MAX_CACHED_STMT: usize = 1024 * 1024;
/// Distinct `ColumnMetaData` bodies a connection remembers decoded before it forgets them all.
const COLUMN_CACHE_CAPACITY: usize = 1024;
/// Sessions ended by the server whose reason is kept before the record is cleared.
const ENDED_CAPACITY: usize = 4096;
/// Largest `ColumnMetaData` body worth remembering (a real one is well under 200 bytes).
const COLUMN_CACHE_MAX_BODY: usize = 512;

/// Configuration of one [`ClientConnection`].
///
/// ```
/// use xrpc_client::proto::ClientConfig;
///
/// let config = ClientConfig::new("app", "secret").schema("shop");
/// assert_eq!(config.heartbeat_max_failures, 5);
/// ```
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Account name.
    pub user: String,
    /// Password; empty sends no scramble.
    pub password: String,
    /// Default schema, sent in the authentication response: every session of the connection
    /// starts in it (the node answers 1049 to each statement while it names no database the node
    /// has). Empty: the node's default database.
    pub schema: String,
    /// Header format and `max_allowed_packet`, which must match the server's.
    pub frame: FrameConfig,
    /// Probe an idle connection after this long without a frame; `None` disables the heartbeat.
    pub heartbeat_interval: Option<Duration>,
    /// How long a probe may go unanswered before it counts as a failure.
    pub heartbeat_timeout: Duration,
    /// Failed probes in a row after which the connection is declared lost.
    pub heartbeat_max_failures: u32,
    /// Deadline for the handshake (capabilities and authentication), from [`ClientConnection::new`].
    pub handshake_timeout: Option<Duration>,
    /// Send `CapabilitiesGet` before authenticating.
    pub probe_capabilities: bool,
    /// Use the digest cache at all.
    pub digest_cache: bool,
    /// Statements shorter than this are always sent in full: their digest would save nothing.
    pub digest_min_len: usize,
    /// Digests remembered per connection before the set is cleared.
    pub digest_capacity: usize,
}

impl ClientConfig {
    /// A configuration with the defaults: standard header, 64 MiB packets, heartbeat every 10 s with
    /// 5 failures allowed, 10 s handshake, digest cache for statements of 64 bytes or more.
    pub fn new(user: impl Into<String>, password: impl Into<String>) -> Self {
        Self {
            user: user.into(),
            password: password.into(),
            schema: String::new(),
            frame: FrameConfig::default(),
            heartbeat_interval: Some(Duration::from_secs(10)),
            heartbeat_timeout: Duration::from_secs(10),
            heartbeat_max_failures: 5,
            handshake_timeout: Some(Duration::from_secs(10)),
            probe_capabilities: true,
            digest_cache: true,
            digest_min_len: 64,
            digest_capacity: 16 * 1024,
        }
    }

    /// Sets the default schema.
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = schema.into();
        self
    }
}

/// Something the transport must act on, from [`ClientConnection::poll_event`].
#[derive(Debug)]
pub enum Event {
    /// The server accepted the credentials; buffered requests are on their way.
    Authenticated,
    /// The server refused the credentials. Every request issued so far failed with the same error;
    /// the connection is open and [`ClientConnection::authenticate`] may try again.
    AuthFailed(ClientError),
    /// A request ended.
    Completed {
        /// The session it ran on.
        sid: SessionId,
        /// The request.
        id: RequestId,
        /// What it returned.
        result: Result<ExecResult, ClientError>,
    },
    /// Rows of a streamed request are waiting in [`ClientConnection::take_rows`]. Sent once until
    /// the rows are taken.
    RowsReady {
        /// The session it runs on.
        sid: SessionId,
        /// The request.
        id: RequestId,
    },
    /// A session ended: closed by the client (`error` is `None`), or ended by a FATAL error or by
    /// the loss of the connection.
    SessionClosed {
        /// The session.
        sid: SessionId,
        /// Why, unless it was a clean close.
        error: Option<ClientError>,
    },
    /// The connection is unusable; the transport should close the socket. Every session has failed.
    ConnectionLost(ClientError),
}

/// What [`ClientConnection::take_rows`] found.
#[derive(Debug, PartialEq)]
pub enum StreamRead {
    /// Rows, in order.
    Rows(Vec<Vec<xrpc_proto::value::Value>>),
    /// No rows yet; wait for [`Event::RowsReady`] or [`Event::Completed`].
    Pending,
    /// The request ended and every row was taken (or it failed; see its [`Event::Completed`]).
    Finished,
}

/// The client side of one xrpc connection, without I/O. See the [module docs](self).
///
/// ```
/// use std::time::Instant;
/// use xrpc_client::proto::{ClientConfig, ClientConnection};
/// use xrpc_client::ExecOptions;
///
/// let now = Instant::now();
/// let mut conn = ClientConnection::new(ClientConfig::new("root", ""), now);
/// let sid = conn.open_session()?;
/// let id = conn.execute(sid, "select 1", &[], &ExecOptions::default(), now)?;
/// // The capabilities probe and AuthenticateStart are ready to go; the SESS_NEW and EXEC_SQL
/// // follow as soon as the server has accepted the credentials.
/// let bytes = conn.poll_transmit().expect("handshake bytes");
/// assert!(!bytes.is_empty());
/// # let _ = id;
/// # Ok::<(), xrpc_client::ClientError>(())
/// ```
#[derive(Debug)]
pub struct ClientConnection {
    sessions: SessionMap,
    s: Shared,
}

/// The session table. Every frame received and every request issued looks its sid up here, so it
/// hashes with foldhash rather than SipHash (a few ns instead of tens per lookup); the keys are sids
/// this client chose, so there is no hash flooding to defend against.
type SessionMap = HashMap<u64, Session, foldhash::fast::RandomState>;

/// Everything but the session table, so a session and the connection state can be borrowed together.
#[derive(Debug)]
struct Shared {
    config: ClientConfig,
    format: HeaderFormat,
    decoder: FrameDecoder,
    out: Vec<u8>,
    /// Session frames issued before authentication completed.
    pre_auth: Vec<u8>,
    events: VecDeque<Event>,
    phase: Phase,
    closed: Option<ClientError>,
    next_sid: u64,
    next_auto_sid: u64,
    next_request: u64,
    /// Request deadlines: (deadline, request, sid).
    deadlines: BTreeSet<(Instant, u64, u64)>,
    digests: HashSet<Digest>,
    heartbeat: Heartbeat,
    handshake_deadline: Option<Instant>,
    streams: HashMap<RequestId, StreamBuf>,
    /// `ColumnMetaData` bodies already decoded, and their columns (see [`Shared::cached_column`]).
    columns: HashMap<Bytes, Column, foldhash::fast::RandomState>,
    /// Why the server ended sessions (a FATAL such as a kill) that the client has not closed
    /// yet, so a later request on one fails with that reason rather than "does not exist".
    ended: HashMap<u64, ClientError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitChallenge,
    AwaitAuthOk,
    AuthFailed,
    Ready,
    Closed,
}

#[derive(Debug)]
struct Heartbeat {
    last_rx: Instant,
    probe_at: Option<Instant>,
    failures: u32,
}

#[derive(Debug, Default)]
struct StreamBuf {
    sid: u64,
    columns: Vec<Column>,
    rows: VecDeque<Vec<xrpc_proto::value::Value>>,
    unread_bytes: usize,
    done: bool,
    notified: bool,
}

impl ClientConnection {
    /// A connection in its handshake: the capabilities probe (if configured) and
    /// `AuthenticateStart{MYSQL41}` are queued for [`poll_transmit`](Self::poll_transmit).
    pub fn new(config: ClientConfig, now: Instant) -> Self {
        let mut s = Shared {
            format: config.frame.format,
            decoder: FrameDecoder::new(config.frame),
            out: Vec::with_capacity(4096),
            pre_auth: Vec::new(),
            events: VecDeque::new(),
            phase: Phase::AwaitChallenge,
            closed: None,
            next_sid: 1,
            next_auto_sid: 1,
            next_request: 1,
            deadlines: BTreeSet::new(),
            digests: HashSet::new(),
            heartbeat: Heartbeat {
                last_rx: now,
                probe_at: None,
                failures: 0,
            },
            handshake_deadline: config.handshake_timeout.map(|t| now + t),
            streams: HashMap::new(),
            columns: HashMap::default(),
            ended: HashMap::new(),
            config,
        };
        if s.config.probe_capabilities {
            s.send(
                CONNECTION_SID,
                &ClientMessage::CapabilitiesGet(connection::CapabilitiesGet {}),
            );
        }
        s.send_auth_start();
        Self {
            sessions: SessionMap::default(),
            s,
        }
    }

    /// Retries authentication after [`Event::AuthFailed`], with other credentials.
    pub fn authenticate(
        &mut self,
        user: impl Into<String>,
        password: impl Into<String>,
        now: Instant,
    ) -> Result<(), ClientError> {
        self.s.check_open()?;
        if self.s.phase != Phase::AuthFailed {
            return Err(ClientError::usage(
                "authenticate is only for retrying after a refusal",
            ));
        }
        self.s.config.user = user.into();
        self.s.config.password = password.into();
        self.s.handshake_deadline = self.s.config.handshake_timeout.map(|t| now + t);
        self.s.send_auth_start();
        Ok(())
    }

    // ---- inputs ----

    /// Feeds bytes read from the socket; any split is fine.
    pub fn handle_input(&mut self, data: &[u8], now: Instant) {
        if self.s.phase == Phase::Closed {
            return;
        }
        self.s.decoder.feed(data);
        loop {
            let frame = match self.s.decoder.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(err) => {
                    self.fail_connection(ClientError::protocol(format!(
                        "the server's byte stream lost its framing: {err}"
                    )));
                    break;
                }
            };
            // Any frame at all proves the peer alive.
            self.s.heartbeat = Heartbeat {
                last_rx: now,
                probe_at: None,
                failures: 0,
            };
            let wire_len = self.s.format.header_len() + frame.body.len();
            if frame.sid != CONNECTION_SID
                && frame.type_id == ServerType::ColumnMetaData.id()
                && let Some(column) = self.s.cached_column(&frame.body)
            {
                self.on_session_message(frame.sid, Reply::Column(column), wire_len);
                continue;
            }
            let message = match ServerMessage::decode(frame.type_id, frame.body) {
                Ok(message) => message,
                Err(err) => {
                    self.fail_connection(ClientError::protocol(format!(
                        "undecodable message on sid {}: {err}",
                        frame.sid
                    )));
                    break;
                }
            };
            if frame.sid == CONNECTION_SID {
                self.on_connection_message(message);
            } else {
                self.on_session_message(frame.sid, Reply::Message(message), wire_len);
            }
            if self.s.phase == Phase::Closed {
                break;
            }
        }
    }

    /// Fires whatever is due at `now`: request timeouts, the heartbeat, the handshake deadline.
    /// Calling it early or twice is harmless.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.s.phase == Phase::Closed {
            return;
        }
        if let Some(deadline) = self.s.handshake_deadline
            && now >= deadline
            && matches!(self.s.phase, Phase::AwaitChallenge | Phase::AwaitAuthOk)
        {
            let after = self.s.config.handshake_timeout.unwrap_or_default();
            self.fail_connection(ClientError::timeout("handshake", after));
            return;
        }
        while let Some(&(deadline, request, sid)) = self.s.deadlines.first() {
            if deadline > now {
                break;
            }
            self.s.deadlines.pop_first();
            self.expire(sid, RequestId(request));
        }
        if self.s.phase == Phase::Ready
            && let Some(interval) = self.s.config.heartbeat_interval
        {
            let hb = &self.s.heartbeat;
            let due = match hb.probe_at {
                Some(at) => at + self.s.config.heartbeat_timeout,
                None => hb.last_rx + interval,
            };
            if now >= due {
                if self.s.heartbeat.probe_at.is_some() {
                    self.s.heartbeat.failures += 1;
                    let max = self.s.config.heartbeat_max_failures;
                    if self.s.heartbeat.failures >= max {
                        self.fail_connection(ClientError::connection_lost(
                            format!("no answer to {max} heartbeats in a row"),
                            None,
                        ));
                        return;
                    }
                }
                self.s.heartbeat.probe_at = Some(now);
                self.s.send(
                    CONNECTION_SID,
                    &ClientMessage::CapabilitiesGet(connection::CapabilitiesGet {}),
                );
            }
        }
    }

    /// The server closed the stream.
    pub fn handle_eof(&mut self) {
        self.fail_connection(ClientError::connection_lost(
            "the server closed the connection",
            None,
        ));
    }

    /// Reading or writing the socket failed.
    pub fn handle_io_error(&mut self, err: io::Error) {
        self.fail_connection(ClientError::connection_lost(
            format!("socket error: {err}"),
            None,
        ));
    }

    /// Closes the connection from the client side: every session fails with a connection-lost error
    /// saying so, and the transport should close the socket.
    pub fn close(&mut self) {
        self.fail_connection(ClientError::connection_lost(
            "the connection was closed by the client",
            None,
        ));
    }

    // ---- outputs ----

    /// Bytes to write to the socket, for every session at once, or `None` when there are none.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        if self.s.out.is_empty() {
            None
        } else {
            Some(std::mem::take(&mut self.s.out))
        }
    }

    /// Swaps the pending output into `buf` (cleared first), so writers can reuse two buffers.
    /// Returns whether there was anything.
    pub fn swap_transmit(&mut self, buf: &mut Vec<u8>) -> bool {
        buf.clear();
        std::mem::swap(buf, &mut self.s.out);
        !buf.is_empty()
    }

    /// Whether [`poll_transmit`](Self::poll_transmit) has bytes.
    pub fn has_transmit(&self) -> bool {
        !self.s.out.is_empty()
    }

    /// The next event, in the order they happened.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.s.events.pop_front()
    }

    /// When [`handle_timeout`](Self::handle_timeout) should next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let s = &self.s;
        let mut next = s.deadlines.first().map(|d| d.0);
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n| n.min(t)));
        match s.phase {
            Phase::Closed | Phase::AuthFailed => {}
            Phase::AwaitChallenge | Phase::AwaitAuthOk => {
                if let Some(t) = s.handshake_deadline {
                    consider(t);
                }
            }
            Phase::Ready => {
                if let Some(interval) = s.config.heartbeat_interval {
                    consider(match s.heartbeat.probe_at {
                        Some(at) => at + s.config.heartbeat_timeout,
                        None => s.heartbeat.last_rx + interval,
                    });
                }
            }
        }
        next
    }

    // ---- state ----

    /// Whether authentication succeeded.
    pub fn is_authenticated(&self) -> bool {
        self.s.phase == Phase::Ready
    }

    /// Whether the connection is lost; see [`closed_error`](Self::closed_error).
    pub fn is_closed(&self) -> bool {
        self.s.phase == Phase::Closed
    }

    /// Why the connection was lost.
    pub fn closed_error(&self) -> Option<&ClientError> {
        self.s.closed.as_ref()
    }

    /// Normal (not auto-commit) sessions that exist on this connection.
    pub fn session_count(&self) -> usize {
        self.sessions.values().filter(|s| !s.auto_commit).count()
    }

    /// Requests issued and not yet ended, over all sessions.
    pub fn requests_in_flight(&self) -> usize {
        self.sessions
            .values()
            .map(|s| s.inflight.len() + s.held.len())
            .sum()
    }

    /// Whether the session exists and is not closing.
    pub fn session_is_open(&self, sid: SessionId) -> bool {
        self.sessions.get(&sid.0).is_some_and(|s| !s.closing)
    }

    /// Whether the session may be handed to another user: it exists, nothing is in flight or
    /// unread, no transaction is open, and the server holds no stored error for it.
    pub fn is_session_clean(&self, sid: SessionId) -> bool {
        let Some(session) = self.sessions.get(&sid.0) else {
            return false;
        };
        !session.closing
            && session.inflight.is_empty()
            && session.held.is_empty()
            && session.last_error.is_none()
            && !session.in_tx
            && !session.autocommit_off
            && !self.s.streams.values().any(|b| b.sid == sid.0)
    }

    /// The error the server holds for the session (the last failure, not yet overwritten by a
    /// success).
    pub fn session_last_error(&self, sid: SessionId) -> Option<&ClientError> {
        self.sessions.get(&sid.0)?.last_error.as_ref()
    }

    /// Whether the client has opened a transaction on the session (`BEGIN`, or
    /// `SET autocommit = 0`) that it has not ended.
    pub fn in_transaction(&self, sid: SessionId) -> bool {
        self.sessions
            .get(&sid.0)
            .is_some_and(|s| s.in_tx || s.autocommit_off)
    }

    // ---- requests ----

    /// Allocates a new session. Nothing is sent until its first request, which SESS_NEW precedes.
    pub fn open_session(&mut self) -> Result<SessionId, ClientError> {
        self.s.check_open()?;
        let mut sid = self.s.next_sid;
        while sid == CONNECTION_SID || self.sessions.contains_key(&sid) {
            sid = (sid + 1) & !AUTO_COMMIT_SID_BIT;
        }
        self.s.next_sid = (sid + 1) & !AUTO_COMMIT_SID_BIT;
        self.sessions.insert(sid, Session::new(false));
        Ok(SessionId(sid))
    }

    /// Issues a statement on a session. The result arrives as [`Event::Completed`] (or, for a
    /// fire-and-forget request, not at all).
    pub fn execute(
        &mut self,
        sid: SessionId,
        stmt: impl Into<Bytes>,
        args: &[Param],
        opts: &ExecOptions,
        now: Instant,
    ) -> Result<RequestId, ClientError> {
        self.s.check_open()?;
        let stmt = stmt.into();
        let Some(session) = self.sessions.get_mut(&sid.0) else {
            return Err(self.s.missing_session(sid));
        };
        if session.closing {
            return Err(ClientError::session_closed(
                format!("{sid} is closing"),
                None,
            ));
        }
        let exec = self.s.new_exec(stmt, args, opts, session.auto_commit)?;
        Ok(self.issue(sid, exec, opts, now))
    }

    /// Issues an EXEC_PLAN_READ on a session (see [`crate::plan`] for building `plan`). The result
    /// arrives as [`Event::Completed`], like a statement's. Plans are always sent whole.
    pub fn execute_plan(
        &mut self,
        sid: SessionId,
        plan: exec_plan::ExecPlan,
        opts: &ExecOptions,
        now: Instant,
    ) -> Result<RequestId, ClientError> {
        self.s.check_open()?;
        let Some(session) = self.sessions.get(&sid.0) else {
            return Err(self.s.missing_session(sid));
        };
        if session.closing {
            return Err(ClientError::session_closed(
                format!("{sid} is closing"),
                None,
            ));
        }
        if session.auto_commit {
            return Err(ClientError::usage(
                "plans need a session: the server accepts only EXEC_SQL on auto-commit sids",
            ));
        }
        let exec = self.s.new_plan_exec(plan, opts, false);
        Ok(self.issue(sid, exec, opts, now))
    }

    /// Queues `exec` on the session `sid` (checked by the caller) and returns its id.
    fn issue(&mut self, sid: SessionId, exec: Exec, opts: &ExecOptions, now: Instant) -> RequestId {
        let session = self
            .sessions
            .get_mut(&sid.0)
            .expect("the caller checked that the session exists");
        let id = self.s.next_request_id();
        let request = Request {
            id,
            body: Body::Exec(Box::new(exec)),
            deadline: opts.timeout.map(|t| (now + t, t)),
            timed_out: false,
            kill_sent: false,
        };
        if let Some((deadline, _)) = request.deadline {
            self.s.deadlines.insert((deadline, id.0, sid.0));
        }
        if opts.stream {
            self.s.streams.insert(
                id,
                StreamBuf {
                    sid: sid.0,
                    ..StreamBuf::default()
                },
            );
        }
        session.enqueue(sid.0, request, &mut self.s);
        id
    }

    /// Runs one statement on a fresh auto-commit sid: no SESS_NEW, no session state, no flow
    /// control, no chunks and no digest-only sends, as the server requires there.
    pub fn execute_once(
        &mut self,
        stmt: impl Into<Bytes>,
        args: &[Param],
        opts: &ExecOptions,
        now: Instant,
    ) -> Result<(SessionId, RequestId), ClientError> {
        self.s.check_open()?;
        let mut n = self.s.next_auto_sid;
        while self.sessions.contains_key(&(AUTO_COMMIT_SID_BIT | n)) {
            n = (n + 1) & !AUTO_COMMIT_SID_BIT;
        }
        self.s.next_auto_sid = (n + 1) & !AUTO_COMMIT_SID_BIT;
        let sid = SessionId(AUTO_COMMIT_SID_BIT | n);
        self.sessions.insert(sid.0, Session::new(true));
        let opts = ExecOptions {
            token_kib: None,
            chunk_result: false,
            use_digest: false,
            fire_and_forget: false,
            ..opts.clone()
        };
        match self.execute(sid, stmt, args, &opts, now) {
            Ok(id) => Ok((sid, id)),
            Err(err) => {
                self.sessions.remove(&sid.0);
                Err(err)
            }
        }
    }

    /// Sends SESS_KILL for the session. `Query` interrupts the running statement, which then ends
    /// with ERROR 1317; `Connection` ends the session with FATAL 7005.
    pub fn kill(&mut self, sid: SessionId, kind: KillKind) -> Result<(), ClientError> {
        self.s.check_open()?;
        if sid.is_auto_commit() {
            return Err(ClientError::usage(
                "auto-commit sids cannot be killed; the server accepts only EXEC_SQL on them",
            ));
        }
        let Some(session) = self.sessions.get_mut(&sid.0) else {
            return Err(ClientError::session_closed(
                format!("{sid} does not exist on this connection"),
                None,
            ));
        };
        if session.open == Open::Unsent {
            // The server has never heard of it.
            if kind == KillKind::Connection {
                self.sessions.remove(&sid.0);
                self.s.events.push_back(Event::SessionClosed {
                    sid,
                    error: Some(ClientError::session_closed(
                        format!("{sid} was killed"),
                        None,
                    )),
                });
            }
            return Ok(());
        }
        self.s.send_kill(sid.0, kind);
        Ok(())
    }

    /// Closes a session: SESS_CLOSE is queued behind its requests, and [`Event::SessionClosed`]
    /// follows the server's OK. A session the server never heard of goes at once.
    pub fn close_session(&mut self, sid: SessionId) -> Result<(), ClientError> {
        let Some(session) = self.sessions.get_mut(&sid.0) else {
            self.s.ended.remove(&sid.0);
            return Ok(());
        };
        if session.auto_commit || session.closing {
            return Ok(());
        }
        if session.open == Open::Unsent {
            self.sessions.remove(&sid.0);
            self.s
                .events
                .push_back(Event::SessionClosed { sid, error: None });
            return Ok(());
        }
        self.s.check_open()?;
        session.closing = true;
        let id = self.s.next_request_id();
        let request = Request {
            id,
            body: Body::Close,
            deadline: None,
            timed_out: false,
            kill_sent: false,
        };
        session.enqueue(sid.0, request, &mut self.s);
        Ok(())
    }

    /// Takes the rows a streamed request has received so far. Taking rows may let a flow-control
    /// offer go out, so poll for transmits afterwards.
    pub fn take_rows(&mut self, id: RequestId) -> StreamRead {
        let Some(buf) = self.s.streams.get_mut(&id) else {
            return StreamRead::Finished;
        };
        if buf.rows.is_empty() {
            if buf.done {
                self.s.streams.remove(&id);
                return StreamRead::Finished;
            }
            buf.notified = false;
            return StreamRead::Pending;
        }
        let rows: Vec<_> = buf.rows.drain(..).collect();
        buf.unread_bytes = 0;
        buf.notified = false;
        let sid = buf.sid;
        // The reader caught up: an offer held back for it may go now.
        if let Some(session) = self.sessions.get_mut(&sid)
            && let Some(head) = session.inflight.front_mut()
            && head.id == id
            && let Body::Exec(exec) = &mut head.body
        {
            self.s.maybe_offer(sid, id, exec, session.auto_commit);
        }
        StreamRead::Rows(rows)
    }

    /// Whether [`take_rows`](Self::take_rows) would answer without waiting for the server: the
    /// streamed request has rows to take, or has ended.
    pub fn stream_ready(&self, id: RequestId) -> bool {
        self.s
            .streams
            .get(&id)
            .is_none_or(|b| !b.rows.is_empty() || b.done)
    }

    /// The columns of a streamed request, once its first rows have arrived.
    pub fn stream_columns(&self, id: RequestId) -> Option<&[Column]> {
        self.s
            .streams
            .get(&id)
            .map(|b| b.columns.as_slice())
            .filter(|c| !c.is_empty())
    }

    /// Stops streaming a request: rows still to come are dropped, and flow control no longer waits
    /// for the reader. The request still ends with [`Event::Completed`].
    pub fn drop_stream(&mut self, id: RequestId) {
        if let Some(buf) = self.s.streams.remove(&id)
            && let Some(session) = self.sessions.get_mut(&buf.sid)
            && let Some(head) = session.inflight.front_mut()
            && head.id == id
            && let Body::Exec(exec) = &mut head.body
        {
            exec.stream = false;
            self.s.maybe_offer(buf.sid, id, exec, session.auto_commit);
        }
    }

    // ---- internals ----

    fn on_connection_message(&mut self, message: ServerMessage) {
        match message {
            ServerMessage::AuthenticateContinue(challenge)
                if self.s.phase == Phase::AwaitChallenge =>
            {
                let Ok(bytes) = <[u8; CHALLENGE_LEN]>::try_from(&challenge.auth_data[..]) else {
                    return self.fail_connection(ClientError::protocol(format!(
                        "MYSQL41 challenge of {} bytes instead of {CHALLENGE_LEN}",
                        challenge.auth_data.len()
                    )));
                };
                let c = &self.s.config;
                let response = mysql41_client_response(
                    &c.schema,
                    &c.user,
                    c.password.as_bytes(),
                    &Challenge::from_bytes(bytes),
                );
                self.s.phase = Phase::AwaitAuthOk;
                self.s.send(
                    CONNECTION_SID,
                    &ClientMessage::AuthenticateContinue(pb_session::AuthenticateContinue {
                        auth_data: Bytes::from(response),
                    }),
                );
            }
            ServerMessage::AuthenticateOk(_) if self.s.phase == Phase::AwaitAuthOk => {
                self.s.phase = Phase::Ready;
                self.s.handshake_deadline = None;
                let pre_auth = std::mem::take(&mut self.s.pre_auth);
                self.s.out.extend_from_slice(&pre_auth);
                self.s.events.push_back(Event::Authenticated);
            }
            ServerMessage::Error(err) => {
                let err = ServerError::from_pb(&err);
                if err.is_fatal() {
                    let reason = format!("the server ended the connection: {err}");
                    return self.fail_connection(ClientError::connection_lost(reason, Some(err)));
                }
                if matches!(self.s.phase, Phase::AwaitChallenge | Phase::AwaitAuthOk) {
                    let err = ClientError::auth(err);
                    self.s.phase = Phase::AuthFailed;
                    self.s.handshake_deadline = None;
                    self.s.pre_auth.clear();
                    self.fail_all_sessions(&err);
                    self.s.events.push_back(Event::AuthFailed(err));
                }
                // An ERROR on sid 0 at any other time answers nothing we wait for.
            }
            // Capabilities answer the probe or a heartbeat; receiving any frame already counted.
            _ => {}
        }
    }

    fn on_session_message(&mut self, sid: u64, reply: Reply, wire_len: usize) {
        // A frame for a session that is gone (killed, failed, or a late reply) has nobody to go to.
        let Some(session) = self.sessions.get_mut(&sid) else {
            return;
        };
        if session.on_message(sid, reply, wire_len, &mut self.s) {
            self.sessions.remove(&sid);
            // A session the server ended keeps its reason until the client closes it.
            if let Some(Event::SessionClosed {
                error: Some(err), ..
            }) = self.s.events.back()
            {
                if self.s.ended.len() >= ENDED_CAPACITY {
                    self.s.ended.clear();
                }
                self.s.ended.insert(sid, err.clone());
            }
        }
    }

    fn expire(&mut self, sid: u64, id: RequestId) {
        let Some(session) = self.sessions.get_mut(&sid) else {
            return;
        };
        if let Some(pos) = session.held.iter().position(|r| r.id == id) {
            let request = session.held.remove(pos).expect("position is in range");
            self.s.streams.remove(&id);
            self.s.report_timeout(sid, &request);
            return;
        }
        let Some(pos) = session.inflight.iter().position(|r| r.id == id) else {
            return;
        };
        let request = &mut session.inflight[pos];
        request.timed_out = true;
        self.s.streams.remove(&id);
        self.s.report_timeout(sid, request);
        if pos == 0 {
            session.kill_timed_out_head(sid, &mut self.s);
        }
        // Nobody reads the rows any more; offers must not wait for them.
        if let Body::Exec(exec) = &mut session.inflight[pos].body {
            exec.stream = false;
            if pos == 0 {
                self.s.maybe_offer(sid, id, exec, session.auto_commit);
            }
        }
    }

    fn fail_connection(&mut self, err: ClientError) {
        if self.s.phase == Phase::Closed {
            return;
        }
        self.s.phase = Phase::Closed;
        self.s.closed = Some(err.clone());
        self.s.out.clear();
        self.s.pre_auth.clear();
        self.fail_all_sessions(&err.for_session());
        self.s.deadlines.clear();
        self.s.streams.clear();
        self.s.events.push_back(Event::ConnectionLost(err));
    }

    fn fail_all_sessions(&mut self, err: &ClientError) {
        let mut sids: Vec<u64> = self.sessions.keys().copied().collect();
        // Deterministic event order, whatever the hash map's.
        sids.sort_unstable();
        for sid in sids {
            let mut session = self.sessions.remove(&sid).expect("listed above");
            session.fail_all(sid, err, &mut self.s);
            self.s.events.push_back(Event::SessionClosed {
                sid: SessionId(sid),
                error: Some(err.clone()),
            });
        }
    }
}

impl Shared {
    /// The column a `ColumnMetaData` body describes. A statement run again gets byte-identical
    /// metadata, so each distinct body is decoded (protobuf, then UTF-8 names) once per connection
    /// and later results clone the column; a body that does not decode gives `None`, and the
    /// caller decodes it the ordinary way, which reports the error. The key is a copy, so the
    /// cache never pins the read buffer the frame came from; it is cleared when full.
    fn cached_column(&mut self, body: &Bytes) -> Option<Column> {
        if let Some(column) = self.columns.get(body) {
            return Some(column.clone());
        }
        if body.len() > COLUMN_CACHE_MAX_BODY {
            return None;
        }
        let ServerMessage::ColumnMetaData(meta) =
            ServerMessage::decode(ServerType::ColumnMetaData.id(), body.clone()).ok()?
        else {
            return None;
        };
        let column = Column::from_pb(&meta).ok()?;
        if self.columns.len() >= COLUMN_CACHE_CAPACITY {
            self.columns.clear();
        }
        self.columns
            .insert(Bytes::copy_from_slice(body), column.clone());
        Some(column)
    }

    /// The error of a request on a session that is not in the table: the server's reason if it
    /// ended the session, else "does not exist".
    fn missing_session(&self, sid: SessionId) -> ClientError {
        match self.ended.get(&sid.0) {
            Some(reason) => reason.clone(),
            None => ClientError::session_closed(
                format!("{sid} does not exist on this connection"),
                None,
            ),
        }
    }

    fn check_open(&self) -> Result<(), ClientError> {
        match &self.closed {
            Some(err) => Err(err.clone()),
            None => Ok(()),
        }
    }

    fn next_request_id(&mut self) -> RequestId {
        let id = RequestId(self.next_request);
        self.next_request += 1;
        id
    }

    /// Appends a frame; session frames wait in `pre_auth` until authentication succeeds.
    fn send(&mut self, sid: u64, message: &ClientMessage) {
        let format = self.format;
        let out = self.out_for(sid);
        put_header(out, format, sid, message.type_id(), message.encoded_len());
        message.encode(out);
    }

    /// Appends an EXEC_SQL frame, encoding the request in place rather than cloning it into a
    /// [`ClientMessage`].
    fn send_exec(&mut self, sid: u64, exec: &sql::StmtExecute) {
        let format = self.format;
        let out = self.out_for(sid);
        encode_message_frame(out, format, sid, ClientType::ExecSql.id(), exec);
    }

    fn out_for(&mut self, sid: u64) -> &mut Vec<u8> {
        if sid != CONNECTION_SID && self.phase != Phase::Ready {
            &mut self.pre_auth
        } else {
            &mut self.out
        }
    }

    fn send_auth_start(&mut self) {
        self.phase = Phase::AwaitChallenge;
        self.send(
            CONNECTION_SID,
            &ClientMessage::AuthenticateStart(pb_session::AuthenticateStart {
                mech_name: MECH_MYSQL41.to_owned(),
                auth_data: None,
                initial_response: None,
            }),
        );
    }

    fn send_kill(&mut self, sid: u64, kind: KillKind) {
        use pb_session::kill_session::KillType;
        let ty = match kind {
            KillKind::Query => KillType::Query,
            KillKind::Connection => KillType::Connection,
        };
        self.send(
            sid,
            &ClientMessage::KillSession(pb_session::KillSession {
                r#type: ty as i32,
                x_session_id: sid,
            }),
        );
    }

    /// An EXEC_PLAN_READ request: `plan` with the options' token and chunking applied.
    fn new_plan_exec(
        &self,
        mut plan: exec_plan::ExecPlan,
        opts: &ExecOptions,
        auto_commit: bool,
    ) -> Exec {
        let token = if auto_commit { None } else { opts.token_kib };
        plan.token = token.map(|t| i32::try_from(t).unwrap_or(i32::MAX));
        plan.chunk_result = (opts.chunk_result && !auto_commit).then_some(true);
        Exec {
            msg: sql::StmtExecute::default(),
            plan: Some(Box::new(plan)),
            digest: None,
            digest_only: false,
            fire_and_forget: opts.fire_and_forget,
            stream: opts.stream,
            tx: stmt::TxEffect::None,
            builder: ResultBuilder::default(),
            replied: false,
            token,
            used: 0,
            offer_owed: false,
            row_bytes: 0,
        }
    }

    /// Appends an EXEC_PLAN_READ frame.
    fn send_plan(&mut self, sid: u64, plan: &exec_plan::ExecPlan) {
        let format = self.format;
        let out = self.out_for(sid);
        encode_message_frame(out, format, sid, ClientType::ExecPlanRead.id(), plan);
    }

    fn new_exec(
        &self,
        stmt: Bytes,
        args: &[Param],
        opts: &ExecOptions,
        auto_commit: bool,
    ) -> Result<Exec, ClientError> {
        // Header, type byte and the message's own overhead are well under 1 KiB for any sane
        // argument list; a statement this close to the limit would be refused with a FATAL that
        // closes the whole connection, so refuse it here instead.
        let limit = self.config.frame.max_packet as usize;
        if stmt.len() + 1024 > limit {
            return Err(ClientError::usage(format!(
                "statement of {} bytes exceeds max_packet ({limit} bytes)",
                stmt.len()
            )));
        }
        let digest = (self.config.digest_cache
            && opts.use_digest
            && !auto_commit
            && (self.config.digest_min_len..=MAX_CACHED_STMT).contains(&stmt.len()))
        .then(|| stmt::digest(&stmt));
        let token = if auto_commit { None } else { opts.token_kib };
        let tx = stmt::tx_effect(&stmt);
        let msg = sql::StmtExecute {
            stmt: Some(stmt),
            args: args.iter().map(Param::to_any).collect(),
            schema_name: opts.schema.clone(),
            token: token.map(|t| i32::try_from(t).unwrap_or(i32::MAX)),
            stmt_digest: digest.map(|d| Bytes::copy_from_slice(&d)),
            chunk_result: (opts.chunk_result && !auto_commit).then_some(true),
            ..Default::default()
        };
        Ok(Exec {
            msg,
            plan: None,
            digest,
            digest_only: false,
            fire_and_forget: opts.fire_and_forget,
            stream: opts.stream,
            tx,
            builder: ResultBuilder::default(),
            replied: false,
            token,
            used: 0,
            offer_owed: false,
            row_bytes: 0,
        })
    }

    /// Sends a TokenOffer for the head request if one is owed or due and the reader keeps up.
    fn maybe_offer(&mut self, sid: u64, id: RequestId, exec: &mut Exec, auto_commit: bool) {
        let Some(token) = exec.token else { return };
        if auto_commit {
            return;
        }
        let budget = u64::from(token) * 1024;
        let unread = if exec.stream {
            self.streams.get(&id).map_or(0, |b| b.unread_bytes as u64)
        } else {
            0
        };
        let short = unread == 0 || unread * 5 < budget;
        if !short {
            return;
        }
        let early = budget > 0 && exec.used * 5 >= budget * 4;
        if exec.offer_owed || early {
            exec.offer_owed = false;
            exec.used = 0;
            self.send(
                sid,
                &ClientMessage::TokenOffer(sql::TokenOffer {
                    token: Some(i32::try_from(token).unwrap_or(i32::MAX)),
                }),
            );
        }
    }

    fn report_timeout(&mut self, sid: u64, request: &Request) {
        let fire_and_forget = matches!(&request.body, Body::Exec(e) if e.fire_and_forget);
        if fire_and_forget || matches!(request.body, Body::Close) {
            return;
        }
        let after = request.deadline.map_or(Duration::ZERO, |d| d.1);
        self.events.push_back(Event::Completed {
            sid: SessionId(sid),
            id: request.id,
            result: Err(ClientError::timeout("query", after)),
        });
    }

    fn complete(&mut self, sid: u64, request: &Request, result: Result<ExecResult, ClientError>) {
        if let Some((deadline, _)) = request.deadline {
            self.deadlines.remove(&(deadline, request.id.0, sid));
        }
        if let Some(buf) = self.streams.get_mut(&request.id) {
            buf.done = true;
            if result.is_err() {
                // The error is the answer; rows before it are not worth handing out.
                buf.rows.clear();
                buf.unread_bytes = 0;
            }
            if !buf.notified {
                buf.notified = true;
            }
        }
        let fire_and_forget = matches!(&request.body, Body::Exec(e) if e.fire_and_forget);
        if request.timed_out || fire_and_forget {
            return;
        }
        self.events.push_back(Event::Completed {
            sid: SessionId(sid),
            id: request.id,
            result,
        });
    }
}
