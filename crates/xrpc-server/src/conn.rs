//! The connection handler: what the data node does with each frame the framework decodes.
//!
//! The framework (`xrpc-net`) calls [`NodeHandler::on_frames`] on the receiving thread, in stream
//! order, never concurrently for one connection. Connection-level work is done right there:
//! the capabilities probe, the switch to TLS, authentication, SESS_NEW, SESS_KILL, TOKEN_OFFER and GET_TSO are answered
//! at once, so a kill or a token offer never waits behind the session it is about. Everything else
//! is pushed onto its session's queue, and the sessions whose queue was empty are reported runnable;
//! the framework then runs them inline or from its task queue ([`NodeHandler::run_unit`]).
//!
//! # Invariants
//!
//! - A session is in its connection's map from SESS_NEW (or its first auto-commit request) until it
//!   is removed, exactly once, by close, kill, overflow or the end of the connection; the node's
//!   session count moves only at insertion and removal.
//! - The first frame the server sends on a new session is its OK or a FATAL error.
//! - A frame that cannot be decoded ends the connection after one FATAL error on sid 0; other
//!   connections are untouched.
//! - FATAL has one meaning: on sid 0 the connection ends, on any other sid that sid's session is
//!   gone (or never existed). A live session is ended only through [`Session::send_last`], so its
//!   FATAL (or SESS_CLOSE's OK) is the last frame the client sees from it; requests still queued
//!   are not run and get no answer of their own; the FATAL answers them all.
//! - A connection switches to TLS only before it authenticates, only when the CapabilitiesSet
//!   `tls` is the last frame of its batch (so no byte after it was read in the clear), and the OK
//!   that answers it is the last frame sent in the clear. PLAIN authentication is accepted only
//!   over TLS, and with `require_secure_transport` ON no plain connection authenticates at all.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use rand::RngCore;
use xrpc_net::ConnRef;
use xrpc_net::handler::{FrameBatch, FrameRef, Handler, RunContext, UnitId};
use xrpc_net::timer::TimerId;
use xrpc_proto::codes;
use xrpc_proto::frame::{CONNECTION_SID, is_auto_commit_sid};
use xrpc_proto::messages::{ClientMessage, ServerType, pb};
use xrpc_proto::{FrameError, Severity, WireError};

use xrpc_proto::auth::MECH_PLAIN;

use crate::auth::{AuthStep, Authenticator};
use crate::encode::{send_error, send_fatal, send_message};
use crate::host_block::Failure;
use crate::node::NodeShared;
use crate::peer_log::{PeerEvent, PeerLog};
use crate::session::{Pushed, Request, RunOutcome, Session};
use crate::settings::Settings;

/// The largest frame (`length`: type byte plus body) accepted before a connection authenticates.
/// Authentication messages and the capabilities probe take a few hundred bytes; a larger header is
/// refused with FATAL 1153 before anything is read or reserved for its body, so an unauthenticated
/// client cannot make the node buffer up to `max_allowed_packet`.
pub const PRE_AUTH_MAX_PACKET: u32 = 4096;

/// The account that may take the connection slot kept free beyond `max_connections`.
pub const RESERVED_SLOT_USER: &str = "root";

/// The data node's [`Handler`].
#[derive(Debug)]
pub struct NodeHandler {
    node: Arc<NodeShared>,
    /// Client connections now open (counted at accept, uncounted at close).
    connections: AtomicUsize,
    /// Rate limits the log lines that clients can provoke.
    peer_log: Arc<PeerLog>,
}

impl NodeHandler {
    /// A handler serving `node`.
    pub fn new(node: Arc<NodeShared>) -> Self {
        Self {
            node,
            connections: AtomicUsize::new(0),
            peer_log: Arc::default(),
        }
    }

    /// Client connections now open.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }
}

/// Per-connection state.
#[derive(Debug)]
pub struct ConnState {
    peer: Option<SocketAddr>,
    auth: Mutex<Authenticator>,
    /// Shared with the `connect_timeout` timer.
    authenticated: Arc<AtomicBool>,
    /// The `connect_timeout` timer, cancelled when the connection authenticates or closes: a
    /// pending one holds its closure, and through a weak reference the connection's memory, for
    /// the whole timeout (10 s by default), which a storm of short connections multiplies.
    connect_timer: Mutex<Option<TimerId>>,
    /// Admitted into the slot beyond `max_connections`: only [`RESERVED_SLOT_USER`] may stay.
    reserved_slot: bool,
    /// The connection's sessions by sid, looked up twice per request (when its frame arrives
    /// and when its session runs). Hashed with foldhash rather than SipHash: a few ns instead
    /// of about 20 per lookup of a u64 key, and still seeded per map, so a client cannot
    /// choose sids that collide (and only its own connection's map could suffer if it did).
    sessions: RwLock<SessionMap>,
    spill: Arc<Spill>,
    /// The schema named in the authentication data, when not empty: its sessions' default
    /// database.
    schema: std::sync::OnceLock<Arc<str>>,
    /// The authenticated user, owner of the connection's sessions (for SQL `KILL`).
    user: std::sync::OnceLock<Arc<str>>,
}

/// A connection's sessions by sid (see `ConnState::sessions`).
type SessionMap = HashMap<u64, Arc<Session>, foldhash::fast::RandomState>;

/// Sessions that became runnable while their group's work queue was full.
///
/// They wait here, in order, instead of being failed, and go back to the queue as soon as it has
/// room: whenever a session of this connection finishes a run, and from a 1 ms timer while any
/// are waiting (a connection whose sessions all spilled has no run to piggyback on). A session is
/// runnable at most once at a time, so the list never holds more entries than the connection has
/// sessions.
#[derive(Debug, Default)]
struct Spill {
    units: Mutex<VecDeque<UnitId>>,
    /// How many units `units` holds, changed under its lock: `drain`, which runs after every run
    /// of a session, reads it without the lock and returns at once when nothing waits (nearly
    /// always). A unit pushed just after that read is not stranded: `push` arms the timer.
    waiting: AtomicUsize,
    timer_armed: AtomicBool,
}

impl Spill {
    fn push(self: &Arc<Self>, conn: &ConnRef, unit: UnitId) {
        {
            let mut units = self.units.lock();
            units.push_back(unit);
            self.waiting.store(units.len(), Ordering::Release);
        }
        self.arm(conn);
    }

    /// Moves waiting units to the work queue until it is full again or none wait.
    fn drain(self: &Arc<Self>, conn: &ConnRef) {
        while self.waiting.load(Ordering::Acquire) != 0 {
            if conn.group().is_queue_full() {
                // Taking a unit out only to put it back costs two locks and a refused push, on
                // every run while a burst of requests overflows the queue (4096 clients).
                self.arm(conn);
                return;
            }
            let unit = {
                let mut units = self.units.lock();
                let unit = units.pop_front();
                self.waiting.store(units.len(), Ordering::Release);
                unit
            };
            let Some(unit) = unit else {
                return;
            };
            if conn.schedule(unit).is_err() {
                {
                    let mut units = self.units.lock();
                    units.push_front(unit);
                    self.waiting.store(units.len(), Ordering::Release);
                }
                self.arm(conn);
                return;
            }
        }
    }

    fn arm(self: &Arc<Self>, conn: &ConnRef) {
        if self.timer_armed.swap(true, Ordering::AcqRel) {
            return;
        }
        let spill = Arc::clone(self);
        let weak = conn.downgrade();
        conn.group()
            .schedule_timer(Duration::from_millis(1), None, move |_| {
                spill.timer_armed.store(false, Ordering::Release);
                if let Some(conn) = weak.upgrade().filter(|c| !c.is_closed()) {
                    spill.drain(&conn);
                }
            });
    }
}

impl ConnState {
    fn session(&self, sid: u64) -> Option<Arc<Session>> {
        self.sessions.read().get(&sid).cloned()
    }

    fn default_schema(&self) -> Option<Arc<str>> {
        self.schema.get().cloned()
    }

    fn peer_ip(&self) -> Option<std::net::IpAddr> {
        self.peer.map(|p| p.ip())
    }
}

impl NodeHandler {
    /// Removes `session` from its connection if it is still the one under its sid.
    fn remove(&self, state: &ConnState, session: &Arc<Session>) {
        let removed = {
            let mut sessions = state.sessions.write();
            match sessions.get(&session.sid()) {
                Some(current) if Arc::ptr_eq(current, session) => sessions.remove(&session.sid()),
                _ => None,
            }
        };
        if let Some(session) = removed {
            self.node.session_removed(&*session);
            session.shut_down(&self.node);
        }
    }

    /// Ends `session` with FATAL `code` as its last frame, then removes it. Whatever its running
    /// statement still produces is dropped by the session's send gate.
    fn end_session(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        session: &Arc<Session>,
        code: &codes::ErrorCode,
    ) {
        session.send_last_fatal(conn, &self.node, &WireError::from_code(code));
        self.remove(state, session);
    }

    fn on_frame(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        frame: FrameRef<'_>,
        last_in_batch: bool,
        runnable: &mut Vec<UnitId>,
    ) {
        let format = self.node.format;
        let sid = frame.sid;
        crate::binlog::received(conn, sid, frame.type_id, frame.body); // binlog hook
        // Decoded from the receive buffer itself: the statement text is the only copy made.
        let message = match ClientMessage::decode_slice(frame.type_id, frame.body) {
            Ok(message) => message,
            Err(err) => {
                if let Some(suppressed) = self.peer_log.admit(state.peer_ip(), PeerEvent::BadFrame)
                {
                    tracing::warn!(peer = ?state.peer, sid, type_id = frame.type_id, %err, suppressed, "closing connection on an undecodable frame");
                }
                // It ends the connection, so it goes on sid 0 (docs/PROTOCOL.md, "FATAL").
                self.node.requests.connection_error();
                send_error(conn, format, CONNECTION_SID, &err.to_wire());
                conn.fin();
                return;
            }
        };
        if sid == CONNECTION_SID {
            self.on_connection_message(conn, state, message, last_in_batch);
            return;
        }
        if !state.authenticated.load(Ordering::Acquire) {
            send_error(conn, format, sid, &Authenticator::not_authenticated());
            return;
        }
        if is_auto_commit_sid(sid) {
            self.on_auto_commit_message(conn, state, sid, message, runnable);
            return;
        }
        match message {
            ClientMessage::NewSession(_) => self.new_session(conn, state, sid),
            ClientMessage::KillSession(kill) => self.kill_session(conn, state, sid, &kill),
            ClientMessage::TokenOffer(offer) => match state.session(sid) {
                Some(session) => session.offer_tokens(offer.token.unwrap_or(-1)),
                None => send_fatal(conn, format, sid, &codes::SESSION_NOT_FOUND),
            },
            ClientMessage::GetTso(request) => self.get_tso(conn, sid, &request),
            ClientMessage::ExecSql(stmt) => {
                self.enqueue(conn, state, sid, Request::Sql(Box::new(stmt)), runnable)
            }
            ClientMessage::ExecPlanRead(plan) => {
                self.enqueue(conn, state, sid, Request::Plan(Box::new(plan)), runnable)
            }
            ClientMessage::AutoSp(sp) => {
                self.enqueue(conn, state, sid, Request::Savepoint(sp), runnable)
            }
            ClientMessage::SessionClose(_) => {
                self.enqueue(conn, state, sid, Request::Close, runnable)
            }
            other => send_error(conn, format, sid, &not_supported_on_a_session(&other)),
        }
    }

    fn on_connection_message(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        message: ClientMessage,
        last_in_batch: bool,
    ) {
        let format = self.node.format;
        match message {
            ClientMessage::CapabilitiesGet(_) => {
                let mut capabilities = vec![pb::connection::Capability {
                    name: "polarx_rpc".into(),
                    value: any_uint(1),
                }];
                if self.node.tls.is_enabled() {
                    // As the X Protocol does: present when the node can switch, true once it has.
                    capabilities.push(pb::connection::Capability {
                        name: "tls".into(),
                        value: any_bool(conn.is_tls()),
                    });
                }
                let reply = pb::connection::Capabilities { capabilities };
                send_message(
                    conn,
                    format,
                    CONNECTION_SID,
                    ServerType::Capabilities,
                    &reply,
                );
            }
            ClientMessage::CapabilitiesSet(set) => {
                self.set_capabilities(conn, state, &set, last_in_batch);
            }
            ClientMessage::AuthenticateStart(start) => {
                // An address blocked since this connection opened may not try again on it.
                if self.is_blocked(state) {
                    self.refuse_blocked(conn, state);
                    return;
                }
                if !conn.is_tls()
                    && self.node.vars.require_secure_transport()
                    && !state.authenticated.load(Ordering::Acquire)
                {
                    if let Some(suppressed) =
                        self.peer_log.admit(state.peer_ip(), PeerEvent::AuthFailed)
                    {
                        tracing::info!(peer = ?state.peer, suppressed, "refusing a plain connection: require_secure_transport is ON");
                    }
                    self.node.requests.connection_error();
                    send_fatal(
                        conn,
                        format,
                        CONNECTION_SID,
                        &codes::SECURE_TRANSPORT_REQUIRED,
                    );
                    conn.fin();
                    return;
                }
                let step = if conn.is_tls() && start.mech_name.eq_ignore_ascii_case(MECH_PLAIN) {
                    state.auth.lock().start_plain(&start, &self.node.accounts)
                } else {
                    let mut random = [0u8; 20];
                    rand::thread_rng().fill_bytes(&mut random);
                    state.auth.lock().start(&start, random)
                };
                self.auth_step(conn, state, step);
            }
            ClientMessage::AuthenticateContinue(answer) => {
                let step = state.auth.lock().continue_(&answer, &self.node.accounts);
                self.auth_step(conn, state, step);
            }
            ClientMessage::ConnectionClose(_) => {
                // The X Protocol's connection close, before or after authentication: OK, then
                // the node closes (the PolarDB-X client itself just closes its socket).
                send_message(
                    conn,
                    format,
                    CONNECTION_SID,
                    ServerType::Ok,
                    &pb::Ok {
                        msg: Some("bye!".into()),
                        connection_id: None,
                    },
                );
                conn.fin();
            }
            other if !state.authenticated.load(Ordering::Acquire) => {
                let _ = other;
                send_error(
                    conn,
                    format,
                    CONNECTION_SID,
                    &Authenticator::not_authenticated(),
                );
            }
            other => {
                let err = WireError::with_message(
                    &codes::UNEXPECTED_MESSAGE,
                    format!("{} is not supported on sid 0", other.message_type().name()),
                );
                send_error(conn, format, CONNECTION_SID, &err);
            }
        }
    }

    /// CapabilitiesSet: `tls = true` switches the connection to TLS (the X Protocol's way); no other
    /// capability can be set. The list is checked whole before anything changes.
    fn set_capabilities(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        set: &pb::connection::CapabilitiesSet,
        last_in_batch: bool,
    ) {
        let format = self.node.format;
        let capabilities = &set.capabilities.capabilities;
        if let Some(unknown) = capabilities.iter().find(|c| c.name != "tls") {
            let err = WireError::with_message(
                &codes::CAPABILITY_NOT_FOUND,
                format!("Capability '{}' doesn't exist", unknown.name),
            );
            send_error(conn, format, CONNECTION_SID, &err);
            return;
        }
        let ok = pb::Ok {
            msg: None,
            connection_id: None,
        };
        if capabilities.is_empty() {
            send_message(conn, format, CONNECTION_SID, ServerType::Ok, &ok);
            return;
        }
        let refuse = |why: &str| {
            let err = WireError::with_message(
                &codes::CAPABILITIES_PREPARE_FAILED,
                format!("Capability prepare failed for 'tls': {why}"),
            );
            send_error(conn, format, CONNECTION_SID, &err);
        };
        if !capabilities.iter().all(|c| any_is_true(&c.value)) {
            return refuse("only tls = true can be set");
        }
        let Some(config) = self.node.tls.server_config() else {
            return refuse("the node has no certificate (start it with --tls-cert and --tls-key)");
        };
        if conn.is_tls() {
            return refuse("the connection already uses TLS");
        }
        if state.authenticated.load(Ordering::Acquire) {
            return refuse("TLS must be set before authentication");
        }
        if !last_in_batch {
            return refuse("wait for the answer to CapabilitiesSet before sending anything else");
        }
        let mut reply = Vec::with_capacity(32);
        xrpc_proto::frame::encode_message_frame(
            &mut reply,
            format,
            CONNECTION_SID,
            ServerType::Ok.id(),
            &ok,
        );
        crate::binlog::sent(conn, &reply); // binlog hook
        match conn.start_tls(config, &reply) {
            Ok(()) => tracing::debug!(peer = ?state.peer, "switched to TLS"),
            Err(err) => {
                tracing::warn!(peer = ?state.peer, %err, "cannot switch a connection to TLS; closing it");
                self.node.requests.connection_error();
                conn.fin();
            }
        }
    }

    fn auth_step(&self, conn: &ConnRef, state: &ConnState, step: AuthStep) {
        let format = self.node.format;
        match step {
            AuthStep::Challenge(challenge) => {
                let reply = pb::session::AuthenticateContinue {
                    auth_data: challenge.into(),
                };
                send_message(
                    conn,
                    format,
                    CONNECTION_SID,
                    ServerType::AuthenticateContinue,
                    &reply,
                );
            }
            AuthStep::Authenticated { user, schema } => {
                if state.reserved_slot && user != RESERVED_SLOT_USER {
                    self.refuse_connection(conn, state, "only root may use the reserved slot");
                    return;
                }
                if !schema.is_empty() {
                    let _ = state.schema.set(schema.into());
                }
                let _ = state.user.set(user.as_str().into());
                if let Some(ip) = state.peer_ip() {
                    self.node.hosts.succeeded(ip);
                }
                conn.limit_max_packet(None);
                crate::binlog::authenticated(conn, &user); // binlog hook
                state.authenticated.store(true, Ordering::Release);
                cancel_connect_timer(conn, state);
                tracing::debug!(peer = ?state.peer, %user, "authenticated");
                send_message(
                    conn,
                    format,
                    CONNECTION_SID,
                    ServerType::AuthenticateOk,
                    &pb::session::AuthenticateOk::default(),
                );
            }
            AuthStep::Refused(err) => {
                self.count_auth_failure(state);
                if let Some(suppressed) =
                    self.peer_log.admit(state.peer_ip(), PeerEvent::AuthFailed)
                {
                    tracing::info!(peer = ?state.peer, message = %err.message, suppressed, "authentication refused");
                }
                crate::binlog::auth_refused(conn, &err.message); // binlog hook
                self.node.requests.connection_error();
                send_error(conn, format, CONNECTION_SID, &err);
            }
            AuthStep::RefusedAndClose(err) => {
                self.count_auth_failure(state);
                if let Some(suppressed) =
                    self.peer_log.admit(state.peer_ip(), PeerEvent::AuthFailed)
                {
                    tracing::warn!(peer = ?state.peer, message = %err.message, suppressed, "closing connection after failed authentications");
                }
                crate::binlog::auth_refused(conn, &err.message); // binlog hook
                self.node.requests.connection_error();
                send_error(conn, format, CONNECTION_SID, &err);
                conn.fin();
            }
        }
    }

    fn new_session(&self, conn: &ConnRef, state: &ConnState, sid: u64) {
        let format = self.node.format;
        if let Some(existing) = state.session(sid) {
            if existing.is_gone() {
                // Closed (SESS_CLOSE ran) but not yet taken out of the map: the sid is free.
                self.remove(state, &existing);
            } else {
                // The client believes the sid is free, so its view and ours differ: end the
                // session it forgot (FATAL always means the sid's session is gone).
                self.end_session(conn, state, &existing, &codes::DUPLICATE_SESSION);
                return;
            }
        }
        let Some(number) = self.node.session_added(false) else {
            let err = WireError::with_message(
                &codes::TOO_MANY_SESSIONS,
                format!(
                    "Too many sessions (max_sessions = {})",
                    self.node.max_sessions()
                ),
            );
            send_error(conn, format, sid, &err);
            return;
        };
        let session = Arc::new(
            Session::new(sid, number, false)
                .with_default_schema(state.default_schema())
                .with_user(state.user.get().cloned()),
        );
        self.node.session_opened(&session, conn);
        state.sessions.write().insert(sid, session);
        send_message(conn, format, sid, ServerType::Ok, &pb::Ok::default());
    }

    fn kill_session(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        sid: u64,
        kill: &pb::session::KillSession,
    ) {
        let format = self.node.format;
        let Some(session) = state.session(sid) else {
            send_fatal(conn, format, sid, &codes::SESSION_NOT_FOUND);
            return;
        };
        if kill.r#type == pb::session::kill_session::KillType::Connection as i32 {
            self.end_session(conn, state, &session, &codes::SESSION_KILLED);
        } else {
            // The running statement ends with its own ERROR; the kill itself has no reply.
            session.kill_query();
        }
    }

    fn get_tso(&self, conn: &ConnRef, sid: u64, request: &pb::exec_plan::GetTso) {
        let ts = self.node.tso.next(request.batch_count.max(1) as u32);
        let reply = pb::exec_plan::ResultTso { error_no: 0, ts };
        send_message(conn, self.node.format, sid, ServerType::Tso, &reply);
    }

    fn enqueue(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        sid: u64,
        request: Request,
        runnable: &mut Vec<UnitId>,
    ) {
        let format = self.node.format;
        // Pushed under the map's read lock, without cloning the session's `Arc` (two atomic
        // operations per request); only an overflow, which removes the session, needs one.
        let sessions = state.sessions.read();
        let Some(session) = sessions.get(&sid) else {
            drop(sessions);
            send_fatal(conn, format, sid, &codes::SESSION_NOT_FOUND);
            return;
        };
        match session.push(request, self.node.max_queued_messages()) {
            Pushed::Runnable => runnable.push(UnitId(sid)),
            Pushed::Queued => {}
            Pushed::Gone(_) => {
                drop(sessions);
                send_fatal(conn, format, sid, &codes::SESSION_NOT_FOUND);
            }
            Pushed::Overflow => {
                let session = Arc::clone(session);
                drop(sessions);
                self.end_session(conn, state, &session, &codes::SESSION_QUEUE_OVERFLOW);
            }
        }
    }

    fn on_auto_commit_message(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        sid: u64,
        message: ClientMessage,
        runnable: &mut Vec<UnitId>,
    ) {
        let format = self.node.format;
        let ClientMessage::ExecSql(stmt) = message else {
            let err = WireError::with_message(
                &codes::UNEXPECTED_MESSAGE,
                format!(
                    "{} is not supported on an auto-commit sid; only EXEC_SQL is",
                    message.message_type().name()
                ),
            );
            send_error(conn, format, sid, &err);
            return;
        };
        let request = Request::Sql(Box::new(stmt));
        // A session that retired since the lookup refuses the push; a fresh one takes it.
        let session = match state.session(sid).filter(|s| !s.is_gone()) {
            Some(session) => session,
            None => match self.new_auto_commit_session(conn, state, sid) {
                Some(session) => session,
                None => return,
            },
        };
        // Pipelined requests queue behind each other as on a normal session, so the answers
        // follow request order; the shared session retires once its queue is empty.
        let max_queued = self.node.max_queued_messages();
        let (session, pushed) = match session.push(request, max_queued) {
            Pushed::Gone(request) => match self.new_auto_commit_session(conn, state, sid) {
                Some(fresh) => {
                    let pushed = fresh.push(request, max_queued);
                    (fresh, pushed)
                }
                None => return,
            },
            other => (session, other),
        };
        match pushed {
            Pushed::Runnable => runnable.push(UnitId(sid)),
            Pushed::Queued => {}
            Pushed::Overflow => {
                self.end_session(conn, state, &session, &codes::SESSION_QUEUE_OVERFLOW)
            }
            Pushed::Gone(_) => send_fatal(conn, format, sid, &codes::SESSION_NOT_FOUND),
        }
    }
}

impl NodeHandler {
    /// Whether the connection's client address is blocked (see [`crate::host_block`]).
    fn is_blocked(&self, state: &ConnState) -> bool {
        state.peer_ip().is_some_and(|ip| {
            self.node
                .hosts
                .is_blocked(ip, self.node.vars.host_block_time())
        })
    }

    /// Counts a failed authentication against the client's address, which may block it.
    fn count_auth_failure(&self, state: &ConnState) {
        let Some(ip) = state.peer_ip() else {
            return;
        };
        let max_errors = self.node.vars.max_connect_errors();
        match self.node.hosts.failed(ip, max_errors) {
            Failure::Counted => {}
            Failure::Blocked => {
                tracing::warn!(%ip, max_connect_errors = max_errors, block_time = ?self.node.vars.host_block_time(), "blocking a client address after failed authentications in a row; FLUSH HOSTS unblocks it");
            }
            Failure::NotTracked => {
                if let Some(suppressed) = self.peer_log.admit(Some(ip), PeerEvent::AuthFailed) {
                    tracing::warn!(%ip, suppressed, "the blocked-host table is full of blocked addresses; failures from new ones are not counted until FLUSH HOSTS or their blocks expire");
                }
            }
        }
    }

    /// Refuses a connection from a blocked address: FATAL 1129 on sid 0, then close.
    fn refuse_blocked(&self, conn: &ConnRef, state: &ConnState) {
        let host = state
            .peer_ip()
            .map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
        if let Some(suppressed) = self.peer_log.admit(state.peer_ip(), PeerEvent::Refused) {
            tracing::info!(peer = ?state.peer, suppressed, "refusing a connection from a blocked address");
        }
        let err = WireError::with_message(
            &codes::HOST_BLOCKED,
            format!(
                "Host '{host}' is blocked because of many connection errors; unblock with 'FLUSH HOSTS'"
            ),
        );
        self.node.requests.connection_error();
        send_error(conn, self.node.format, CONNECTION_SID, &err);
        conn.fin();
    }

    /// Refuses a connection over `max_connections`: FATAL 1040 on sid 0, then close.
    fn refuse_connection(&self, conn: &ConnRef, state: &ConnState, why: &str) {
        let max = self.node.vars.max_connections();
        if let Some(suppressed) = self.peer_log.admit(state.peer_ip(), PeerEvent::Refused) {
            tracing::warn!(peer = ?state.peer, max_connections = max, suppressed, "refusing a connection: {why}");
        }
        let err = WireError::with_message(
            &codes::TOO_MANY_SESSIONS,
            format!("Too many connections (max_connections = {max}; {why})"),
        )
        .with_severity(Severity::Fatal);
        self.node.requests.connection_error();
        send_error(conn, self.node.format, CONNECTION_SID, &err);
        conn.fin();
    }

    /// Closes `conn` at `connect_timeout` unless it has authenticated by then.
    fn arm_connect_timeout(&self, conn: &ConnRef, state: &ConnState) {
        let timer = self.connect_timeout_timer(conn, state);
        *state.connect_timer.lock() = Some(timer);
    }

    fn connect_timeout_timer(&self, conn: &ConnRef, state: &ConnState) -> TimerId {
        let timeout = self.node.vars.connect_timeout();
        let weak = conn.downgrade();
        let authenticated = Arc::clone(&state.authenticated);
        let peer = state.peer;
        let peer_log = Arc::clone(&self.peer_log);
        let format = self.node.format;
        let node = Arc::clone(&self.node);
        conn.group().schedule_timer(timeout, None, move |_| {
            if authenticated.load(Ordering::Acquire) {
                return;
            }
            let Some(conn) = weak.upgrade().filter(|c| !c.is_closed()) else {
                return;
            };
            if let Some(suppressed) =
                peer_log.admit(peer.map(|p| p.ip()), PeerEvent::ConnectTimeout)
            {
                tracing::info!(
                    ?peer,
                    ?timeout,
                    suppressed,
                    "closing a connection that did not authenticate within connect_timeout"
                );
            }
            let err = WireError::with_message(
                &codes::HANDSHAKE_TIMEOUT,
                format!(
                    "Bad handshake: no authentication within connect_timeout ({} s)",
                    timeout.as_secs()
                ),
            );
            node.requests.connection_error();
            send_error(&conn, format, CONNECTION_SID, &err);
            conn.fin();
        })
    }

    /// A new auto-commit session for `sid`, counted; `None` (after answering) at the session limit.
    fn new_auto_commit_session(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        sid: u64,
    ) -> Option<Arc<Session>> {
        let Some(number) = self.node.session_added(true) else {
            let err = WireError::with_message(&codes::TOO_MANY_SESSIONS, "Too many sessions")
                .with_severity(Severity::Error);
            send_error(conn, self.node.format, sid, &err);
            return None;
        };
        let session = Arc::new(
            Session::new(sid, number, true)
                .with_default_schema(state.default_schema())
                .with_user(state.user.get().cloned()),
        );
        let replaced = state.sessions.write().insert(sid, Arc::clone(&session));
        if let Some(old) = replaced {
            // The retired session's removal raced with this insert; count it out here.
            if old.is_gone() {
                self.node.session_removed(&*old);
            }
        }
        Some(session)
    }
}

impl Handler for NodeHandler {
    type Conn = ConnState;

    fn on_connect(&self, conn: &ConnRef) -> ConnState {
        let peer = conn.peer_addr();
        tracing::debug!(peer = ?peer, "connection accepted");
        crate::binlog::opened(conn, self.node.format); // binlog hook
        // Counted here and uncounted in `on_close`, which the framework calls once for every
        // connection, refused ones included.
        let open = self.connections.fetch_add(1, Ordering::AcqRel) + 1;
        let max = self.node.vars.max_connections();
        let state = ConnState {
            peer,
            auth: Mutex::new(Authenticator::new(
                peer.map(|p| p.ip()),
                self.node.auth_max_failures(),
            )),
            authenticated: Arc::new(AtomicBool::new(false)),
            connect_timer: Mutex::new(None),
            reserved_slot: open == max + 1,
            sessions: RwLock::new(SessionMap::default()),
            spill: Arc::default(),
            schema: std::sync::OnceLock::new(),
            user: std::sync::OnceLock::new(),
        };
        if open > max + 1 {
            self.refuse_connection(conn, &state, "no free slot");
            return state;
        }
        if self.is_blocked(&state) {
            self.refuse_blocked(conn, &state);
            return state;
        }
        conn.limit_max_packet(Some(PRE_AUTH_MAX_PACKET));
        self.arm_connect_timeout(conn, &state);
        state
    }

    fn on_frames(
        &self,
        conn: &ConnRef,
        state: &ConnState,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        // Fail point `xrpc_recv` (feature `failpoints`): the read fails as a broken socket's
        // would, and the connection ends; the frames read are not acted on.
        fail::fail_point!("xrpc_recv", |_| conn.fin());
        while let Some(frame) = frames.next() {
            if conn.is_closed() {
                break;
            }
            let last_in_batch = frames.remaining() == 0;
            self.on_frame(conn, state, frame, last_in_batch, runnable);
        }
    }

    fn run_unit(&self, conn: &ConnRef, state: &ConnState, unit: UnitId, _cx: &RunContext<'_>) {
        let Some(session) = state.session(unit.0) else {
            return;
        };
        let outcome = session.run_resumable(conn, &self.node);
        state.spill.drain(conn);
        if outcome == RunOutcome::Closed
            || session.is_gone()
            || (session.is_auto_commit() && session.retire_if_idle())
        {
            self.remove(state, &session);
        }
    }

    fn run_here_when_queue_full(&self, _conn: &ConnRef, _state: &ConnState) -> bool {
        // With the spill off a full queue fails the session, as PolarDB-X does, on any group.
        self.node.vars.work_queue_spill()
    }

    fn on_queue_full(&self, conn: &ConnRef, state: &ConnState, unit: UnitId) {
        if self.node.vars.work_queue_spill() {
            state.spill.push(conn, unit);
            return;
        }
        if let Some(session) = state.session(unit.0) {
            tracing::warn!(peer = ?state.peer, sid = unit.0, "work queue full; failing the session");
            self.end_session(conn, state, &session, &codes::WORK_QUEUE_OVERFLOW);
        }
    }

    fn on_frame_error(&self, conn: &ConnRef, state: &ConnState, err: &FrameError) {
        if let Some(suppressed) = self.peer_log.admit(state.peer_ip(), PeerEvent::BadFrame) {
            tracing::warn!(peer = ?state.peer, %err, suppressed, "closing connection on a framing error");
        }
        let mut wire = err.to_wire();
        if let FrameError::PacketTooLarge { length, .. } = err
            && !state.authenticated.load(Ordering::Acquire)
        {
            wire.message = format!(
                "Got a packet of {length} bytes before authentication; at most {PRE_AUTH_MAX_PACKET} are accepted until the connection authenticates"
            );
        }
        // It ends the connection, so it goes on sid 0 whatever sid the header named.
        self.node.requests.connection_error();
        send_error(conn, self.node.format, CONNECTION_SID, &wire);
    }

    fn on_tls_error(&self, _conn: &ConnRef, state: &ConnState, err: &xrpc_net::rustls::Error) {
        self.node.requests.connection_error();
        if let Some(suppressed) = self.peer_log.admit(state.peer_ip(), PeerEvent::TlsFailed) {
            tracing::info!(peer = ?state.peer, %err, suppressed, "closing a connection whose TLS session failed");
        }
    }

    fn on_accept_error(&self, err: &std::io::Error) {
        if let Some(suppressed) = self.peer_log.admit(None, PeerEvent::AcceptFailed) {
            tracing::error!(%err, suppressed, open_connections = self.connections(), "cannot accept connections (out of file descriptors? raise the fd limit or lower max_connections); retrying every 50 ms");
        }
    }

    fn on_close(&self, conn: &ConnRef, state: &ConnState) {
        crate::binlog::closed(conn); // binlog hook
        cancel_connect_timer(conn, state);
        self.connections.fetch_sub(1, Ordering::AcqRel);
        let sessions: Vec<Arc<Session>> = state.sessions.write().drain().map(|(_, s)| s).collect();
        tracing::debug!(peer = ?state.peer, sessions = sessions.len(), "connection closed");
        for session in sessions {
            self.node.session_removed(&*session);
            session.shut_down(&self.node);
        }
    }
}

/// The error for a message a session does not take, answered on its sid (the session stays).
pub fn not_supported_on_a_session(message: &ClientMessage) -> WireError {
    WireError::with_message(
        &codes::UNEXPECTED_MESSAGE,
        format!(
            "{} is not supported on a session",
            message.message_type().name()
        ),
    )
}

/// An `Any` holding a boolean scalar.
fn any_bool(value: bool) -> pb::datatypes::Any {
    pb::datatypes::Any {
        r#type: pb::datatypes::any::Type::Scalar as i32,
        scalar: Some(pb::datatypes::Scalar {
            r#type: pb::datatypes::scalar::Type::VBool as i32,
            v_bool: Some(value),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Whether an `Any` is a scalar true: a boolean, or a non-zero integer (clients differ).
fn any_is_true(value: &pb::datatypes::Any) -> bool {
    use pb::datatypes::scalar::Type;
    let Some(scalar) = &value.scalar else {
        return false;
    };
    match Type::try_from(scalar.r#type) {
        Ok(Type::VBool) => scalar.v_bool == Some(true),
        Ok(Type::VUint) => scalar.v_unsigned_int.is_some_and(|v| v != 0),
        Ok(Type::VSint) => scalar.v_signed_int.is_some_and(|v| v != 0),
        _ => false,
    }
}

/// Cancels the connection's `connect_timeout` timer, if it is still pending.
fn cancel_connect_timer(conn: &ConnRef, state: &ConnState) {
    if let Some(timer) = state.connect_timer.lock().take() {
        conn.group().cancel_timer(timer);
    }
}

/// An `Any` holding an unsigned scalar.
fn any_uint(value: u64) -> pb::datatypes::Any {
    pb::datatypes::Any {
        r#type: pb::datatypes::any::Type::Scalar as i32,
        scalar: Some(pb::datatypes::Scalar {
            r#type: pb::datatypes::scalar::Type::VUint as i32,
            v_unsigned_int: Some(value),
            ..Default::default()
        }),
        ..Default::default()
    }
}
