//! The connection state machine. See the [crate docs](crate) for the design and the call order.

use std::collections::VecDeque;
use std::fmt;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use mysql_common::constants::{CapabilityFlags, Command, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{
    AuthPlugin, AuthSwitchRequest, CommonOkPacket, ErrPacket, HandshakePacket, HandshakeResponse,
    OkPacketDeserializer, OkPacketKind, OldEofPacket, ResultSetTerminator,
};
use mysql_common::proto::MySerialize;

use crate::columns::ColumnCache;
use crate::error::{CancelError, ConnectError, DecodeError, StatementError, SubmitError};
use crate::event::{CloseReason, Event, KillTarget, OkInfo, Tag, TextRow};
use crate::packet;

/// How a connection logs in and how far it pipelines.
#[derive(Clone)]
pub struct Config {
    /// The account.
    pub user: String,
    /// Its password (empty for none).
    pub password: String,
    /// The database to start in.
    pub database: Option<String>,
    /// The most commands in flight at once (sent or waiting to be sent, not yet answered);
    /// default 64.
    pub max_depth: usize,
    /// An answer that has taken this many bytes is reported once with [`Event::LargeResult`];
    /// default 1 MiB.
    pub large_result_bytes: usize,
    /// The longest packet accepted from the server; a longer one is a fatal decode error.
    /// Default 1 GiB (MariaDB's and MySQL's largest `max_allowed_packet`).
    pub max_packet_size: usize,
    /// How long the handshake may take from [`Connection::new`]; default 10 s.
    pub connect_timeout: Duration,
    /// Negotiate CLIENT_MULTI_STATEMENTS (several statements in one COM_QUERY); default on.
    pub multi_statements: bool,
    /// Send each query with a leading comment naming it (`/*xrpc-q<n>*/ `), so a side connection
    /// can find its `QUERY_ID` in `information_schema.PROCESSLIST` for `KILL QUERY ID`; default off.
    pub mark_statements: bool,
}

impl Config {
    /// A configuration for `user` with `password` and every default.
    pub fn new(user: impl Into<String>, password: impl Into<String>) -> Self {
        Self {
            user: user.into(),
            password: password.into(),
            database: None,
            max_depth: 64,
            large_result_bytes: 1 << 20,
            max_packet_size: 1 << 30,
            connect_timeout: Duration::from_secs(10),
            multi_statements: true,
            mark_statements: false,
        }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("user", &self.user)
            .field("password", &"***")
            .field("database", &self.database)
            .field("max_depth", &self.max_depth)
            .field("large_result_bytes", &self.large_result_bytes)
            .field("max_packet_size", &self.max_packet_size)
            .field("connect_timeout", &self.connect_timeout)
            .field("multi_statements", &self.multi_statements)
            .field("mark_statements", &self.mark_statements)
            .finish()
    }
}

/// Where a command in flight is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandState {
    /// Not all of its bytes have been handed to the transport; [`Connection::cancel`] still
    /// withdraws it if none has.
    Unsent,
    /// Sent; the server has not begun to answer it (it runs, or waits behind earlier commands).
    Sent,
    /// The server's answer to it has begun (it is the head of the pipeline).
    Answering,
}

/// What [`Connection::cancel`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cancelled {
    /// None of it had been sent: it is withdrawn, and its terminal event is 1317.
    Withdrawn,
    /// It was sent: the server must be asked to stop it; its terminal event comes from the
    /// server's answer.
    KillRequired(KillTarget),
}

/// The state of one backend connection; see the [crate docs](crate).
#[derive(Debug)]
pub struct Connection {
    config: Config,
    phase: Phase,
    recv: BytesMut,
    send: BytesMut,
    /// Bytes handed to the transport so far; commands are located by absolute offsets into the
    /// stream of bytes ever queued.
    sent: u64,
    pipeline: VecDeque<Entry>,
    events: VecDeque<Event>,
    capabilities: CapabilityFlags,
    thread_id: u32,
    logged_in: bool,
    server_version: String,
    status: StatusFlags,
    handshake_deadline: Instant,
    transport_closed: bool,
    quit_queued: bool,
    statements_marked: u64,
    /// The definition packets of the result set being read, until its last one.
    column_packets: Vec<Bytes>,
    /// The connection's recent column sets, reused for identical definitions.
    column_sets: ColumnCache,
}

#[derive(Debug)]
enum Phase {
    Greeting,
    Auth(Auth),
    Ready,
    Closed,
}

#[derive(Debug)]
struct Auth {
    plugin: AuthPlugin<'static>,
    /// The server's packet sequence id expected next.
    seq: u8,
    switched: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Query,
    Other,
}

#[derive(Debug)]
struct Entry {
    tag: Tag,
    kind: Kind,
    /// Absolute offsets of its bytes in the send stream.
    start: u64,
    end: u64,
    deadline: Option<Instant>,
    deadline_fired: bool,
    /// The number of its marker (`/*xrpc-q<n>*/`), when statements are marked.
    marker: Option<u64>,
    /// The server's packet sequence id expected next.
    seq: u8,
    read: Read,
    /// Bytes of its answer taken so far.
    received: usize,
    large_reported: bool,
}

#[derive(Debug)]
enum Read {
    /// Expecting an OK, an ERR or a result set's column count.
    Start,
    /// Column definitions still to come (those read so far are in `Connection::column_packets`).
    Columns { left: usize },
    /// The old EOF packet after the column definitions (no CLIENT_DEPRECATE_EOF).
    ColumnsEof { columns: usize },
    /// Rows, until the packet that ends the result set.
    Rows { columns: usize },
}

/// The comment that marks a statement, so that a kill can find it in the process list.
struct Marker(u64);

/// The longest marker with the space after it: `/*xrpc-q*/ ` and 20 digits.
const MARKER_MAX: usize = 11 + 20;

impl Marker {
    /// Writes the marker and a space into `buf`; returns the bytes written.
    fn write_to(self, buf: &mut [u8; MARKER_MAX]) -> &[u8] {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut n = self.0;
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let parts: [&[u8]; 3] = [b"/*xrpc-q", &digits[at..], b"*/ "];
        let mut len = 0;
        for part in parts {
            buf[len..len + part.len()].copy_from_slice(part);
            len += part.len();
        }
        &buf[..len]
    }
}

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/*xrpc-q{}*/", self.0)
    }
}

/// What one decoding step did.
enum Step {
    Event(Event),
    Progress,
    Blocked,
}

impl Connection {
    /// A connection whose transport has just connected at `now`; the server speaks first.
    pub fn new(config: Config, now: Instant) -> Self {
        let handshake_deadline = now + config.connect_timeout;
        Self {
            config,
            phase: Phase::Greeting,
            recv: BytesMut::with_capacity(16 * 1024),
            send: BytesMut::with_capacity(16 * 1024),
            sent: 0,
            pipeline: VecDeque::new(),
            events: VecDeque::new(),
            capabilities: CapabilityFlags::empty(),
            thread_id: 0,
            logged_in: false,
            server_version: String::new(),
            status: StatusFlags::empty(),
            handshake_deadline,
            transport_closed: false,
            quit_queued: false,
            statements_marked: 0,
            column_packets: Vec::new(),
            column_sets: ColumnCache::default(),
        }
    }

    // ---- bytes and time in ----

    /// Bytes read from the transport. They are only buffered here; [`Connection::poll_event`]
    /// decodes them.
    pub fn handle_input(&mut self, data: &[u8]) {
        if !matches!(self.phase, Phase::Closed) && !self.transport_closed {
            self.recv.extend_from_slice(data);
        }
    }

    /// The transport closed (end of stream, or a read or write error). What was received is
    /// still decoded; then every command without an answer fails with 2013.
    pub fn handle_close(&mut self) {
        self.transport_closed = true;
        self.send.clear();
    }

    /// Time passed: the handshake's deadline and the commands' deadlines that are due fire.
    pub fn handle_timeout(&mut self, now: Instant) {
        if matches!(self.phase, Phase::Greeting | Phase::Auth(_)) {
            if now >= self.handshake_deadline {
                self.abort(CloseReason::Connect(ConnectError::Timeout));
            }
            return;
        }
        let mut index = 0;
        while index < self.pipeline.len() {
            let entry = &mut self.pipeline[index];
            let due = !entry.deadline_fired && entry.deadline.is_some_and(|at| at <= now);
            if due {
                entry.deadline_fired = true;
                let tag = entry.tag;
                match self.stop(index) {
                    Cancelled::Withdrawn => continue,
                    Cancelled::KillRequired(target) => {
                        self.events.push_back(Event::KillRequired { tag, target });
                    }
                }
            }
            index += 1;
        }
    }

    /// When [`Connection::handle_timeout`] must be called next, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self.phase {
            Phase::Greeting | Phase::Auth(_) => Some(self.handshake_deadline),
            Phase::Closed => None,
            Phase::Ready => self
                .pipeline
                .iter()
                .filter(|entry| !entry.deadline_fired)
                .filter_map(|entry| entry.deadline)
                .min(),
        }
    }

    // ---- bytes and events out ----

    /// Bytes to write to the transport (all of them, in order).
    pub fn pending_output(&self) -> &[u8] {
        &self.send
    }

    /// The transport took the first `n` bytes of [`Connection::pending_output`].
    ///
    /// # Panics
    ///
    /// If `n` is more than is pending.
    pub fn consume_output(&mut self, n: usize) {
        assert!(
            n <= self.send.len(),
            "consumed {n} of {} pending bytes",
            self.send.len()
        );
        let _ = self.send.split_to(n);
        self.sent += n as u64;
    }

    /// The next event, decoding buffered input as far as needed for one; `None` when more input
    /// (or time) is needed. Decoding happens only here, one packet at a time, so a caller that
    /// stops polling stops decoding: the bytes stay buffered ([`Connection::buffered_bytes`]).
    pub fn poll_event(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.events.pop_front() {
                return Some(event);
            }
            let step = match &self.phase {
                Phase::Closed => return None,
                Phase::Greeting | Phase::Auth(_) => match self.step_handshake() {
                    Ok(step) => step,
                    Err(err) => {
                        self.abort(CloseReason::Connect(err));
                        continue;
                    }
                },
                Phase::Ready => match self.step_answer() {
                    Ok(step) => step,
                    Err(err) => {
                        self.abort(CloseReason::Protocol(err));
                        continue;
                    }
                },
            };
            match step {
                Step::Event(event) => return Some(event),
                Step::Progress => {}
                Step::Blocked if self.transport_closed => {
                    let reason = match self.phase {
                        Phase::Greeting | Phase::Auth(_) => {
                            CloseReason::Connect(ConnectError::TransportClosed)
                        }
                        _ if self.quit_queued && self.pipeline.is_empty() => CloseReason::Quit,
                        _ => CloseReason::TransportClosed,
                    };
                    self.abort(reason);
                }
                Step::Blocked => return None,
            }
        }
    }

    // ---- commands in ----

    /// Queues a COM_QUERY. Its answer comes out as events tagged `tag`. At `deadline` (checked by
    /// [`Connection::handle_timeout`]) it is withdrawn if still unsent, else
    /// [`Event::KillRequired`] asks the driver to stop it on the server.
    pub fn submit_query(
        &mut self,
        tag: Tag,
        sql: &[u8],
        deadline: Option<Instant>,
    ) -> Result<(), SubmitError> {
        self.submit_query_behind(tag, b"", sql, deadline)
    }

    /// [`Connection::submit_query`] of `sql` behind `leading`, statements (each ending with
    /// `;`) that run first in the same COM_QUERY (CLIENT_MULTI_STATEMENTS): the server runs
    /// nothing after one that fails. With [`Config::mark_statements`] both carry the marker,
    /// since the server shows each statement of a multi-statement query from its own start.
    pub fn submit_query_behind(
        &mut self,
        tag: Tag,
        leading: &[u8],
        sql: &[u8],
        deadline: Option<Instant>,
    ) -> Result<(), SubmitError> {
        self.check_submit(tag)?;
        let marker = self.config.mark_statements.then(|| {
            self.statements_marked += 1;
            self.statements_marked
        });
        // Written on the stack, without the formatting machinery (this runs per statement).
        let mut mark_buf = [0u8; MARKER_MAX];
        let mark = match marker {
            Some(number) => Marker(number).write_to(&mut mark_buf),
            None => &[],
        };
        let before_sql: &[u8] = if leading.is_empty() { &[] } else { mark };
        let parts: [&[u8]; 5] = [&[Command::COM_QUERY as u8], mark, leading, before_sql, sql];
        self.push(tag, Kind::Query, &parts, deadline, marker);
        Ok(())
    }

    /// Queues a COM_INIT_DB (switch the current database); answered by OK or an error.
    pub fn submit_init_db(&mut self, tag: Tag, database: &str) -> Result<(), SubmitError> {
        self.check_submit(tag)?;
        let command = [Command::COM_INIT_DB as u8];
        self.push(
            tag,
            Kind::Other,
            &[&command, database.as_bytes()],
            None,
            None,
        );
        Ok(())
    }

    /// Queues a COM_RESET_CONNECTION (drop all session state, keep the login).
    pub fn submit_reset(&mut self, tag: Tag) -> Result<(), SubmitError> {
        self.check_submit(tag)?;
        self.push(
            tag,
            Kind::Other,
            &[&[Command::COM_RESET_CONNECTION as u8]],
            None,
            None,
        );
        Ok(())
    }

    /// Queues a COM_PING.
    pub fn submit_ping(&mut self, tag: Tag) -> Result<(), SubmitError> {
        self.check_submit(tag)?;
        self.push(tag, Kind::Other, &[&[Command::COM_PING as u8]], None, None);
        Ok(())
    }

    /// Queues a COM_QUIT after whatever is in flight; nothing can be submitted after it. The
    /// commands before it are still answered; then the server closes the transport.
    pub fn quit(&mut self) -> Result<(), SubmitError> {
        self.check_open()?;
        self.quit_queued = true;
        packet::put(&mut self.send, 0, &[Command::COM_QUIT as u8]);
        Ok(())
    }

    /// Stops a command in flight: withdrawn (terminal 1317 at once) if none of it was sent,
    /// otherwise the driver must kill it on the server (see "Kill" in the crate docs).
    pub fn cancel(&mut self, tag: Tag) -> Result<Cancelled, CancelError> {
        let index = self
            .pipeline
            .iter()
            .position(|entry| entry.tag == tag)
            .ok_or(CancelError::NotInFlight(tag.0))?;
        Ok(self.stop(index))
    }

    // ---- state ----

    /// Whether the handshake has finished and the connection is open.
    pub fn is_ready(&self) -> bool {
        matches!(self.phase, Phase::Ready) && !self.quit_queued && !self.transport_closed
    }

    /// Whether [`Event::Closed`] has been produced.
    pub fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Closed)
    }

    /// Whether another command can be submitted now: ready, below the depth limit, and not
    /// streaming a large result (which would delay what is pipelined behind it).
    pub fn accepts_more(&self) -> bool {
        self.is_ready() && self.pipeline.len() < self.config.max_depth && !self.head_is_large()
    }

    /// Commands in flight (sent or not, not yet answered).
    pub fn in_flight(&self) -> usize {
        self.pipeline.len()
    }

    /// Whether the command being answered has been reported with [`Event::LargeResult`].
    pub fn head_is_large(&self) -> bool {
        self.pipeline
            .front()
            .is_some_and(|entry| entry.large_reported)
    }

    /// Received bytes not yet decoded. A driver stops reading the transport while this is above
    /// its budget (for example while a slow consumer is not polling rows).
    pub fn buffered_bytes(&self) -> usize {
        self.recv.len()
    }

    /// Where the command `tag` is, if in flight.
    pub fn command_state(&self, tag: Tag) -> Option<CommandState> {
        let index = self.pipeline.iter().position(|entry| entry.tag == tag)?;
        let entry = &self.pipeline[index];
        Some(if entry.end > self.sent {
            CommandState::Unsent
        } else if index == 0 && (entry.received > 0 || !matches!(entry.read, Read::Start)) {
            CommandState::Answering
        } else {
            CommandState::Sent
        })
    }

    /// The backend's connection id (after [`Event::Connected`]).
    pub fn thread_id(&self) -> Option<u32> {
        self.logged_in.then_some(self.thread_id)
    }

    /// The server's version string (after [`Event::Connected`]).
    pub fn server_version(&self) -> &str {
        &self.server_version
    }

    /// The capabilities both sides agreed on.
    pub fn capabilities(&self) -> CapabilityFlags {
        self.capabilities
    }

    /// The status flags of the last OK packet (in transaction, autocommit, …).
    pub fn status_flags(&self) -> StatusFlags {
        self.status
    }

    // ---- internals: commands ----

    fn check_open(&self) -> Result<(), SubmitError> {
        match self.phase {
            Phase::Ready if !self.quit_queued && !self.transport_closed => Ok(()),
            Phase::Greeting | Phase::Auth(_) if !self.transport_closed => {
                Err(SubmitError::NotReady)
            }
            _ => Err(SubmitError::Closed),
        }
    }

    fn check_submit(&self, tag: Tag) -> Result<(), SubmitError> {
        self.check_open()?;
        if self.pipeline.len() >= self.config.max_depth {
            return Err(SubmitError::PipelineFull {
                depth: self.config.max_depth,
            });
        }
        if self.pipeline.iter().any(|entry| entry.tag == tag) {
            return Err(SubmitError::DuplicateTag(tag.0));
        }
        Ok(())
    }

    /// Queues a command packet made of `parts` and its pipeline entry.
    fn push(
        &mut self,
        tag: Tag,
        kind: Kind,
        parts: &[&[u8]],
        deadline: Option<Instant>,
        marker: Option<u64>,
    ) {
        let start = self.queued();
        let len: usize = parts.iter().map(|part| part.len()).sum();
        let seq = if len < 0xff_ffff {
            // The common case, without joining the parts first.
            self.send.reserve(4 + len);
            self.send.put_uint_le(len as u64, 3);
            self.send.put_u8(0);
            for part in parts {
                self.send.extend_from_slice(part);
            }
            1
        } else {
            packet::put(&mut self.send, 0, &parts.concat())
        };
        self.pipeline.push_back(Entry {
            tag,
            kind,
            start,
            end: self.queued(),
            deadline,
            deadline_fired: false,
            marker,
            seq,
            read: Read::Start,
            received: 0,
            large_reported: false,
        });
    }

    /// The absolute offset of the end of the send stream.
    fn queued(&self) -> u64 {
        self.sent + self.send.len() as u64
    }

    /// Withdraws the command at `index` if none of it was sent, else says how to kill it.
    fn stop(&mut self, index: usize) -> Cancelled {
        let entry = &self.pipeline[index];
        if entry.start < self.sent || self.transport_closed {
            return Cancelled::KillRequired(KillTarget {
                thread_id: self.thread_id,
                marker: entry.marker.map(|number| Marker(number).to_string()),
            });
        }
        let (from, to) = (
            (entry.start - self.sent) as usize,
            (entry.end - self.sent) as usize,
        );
        let len = entry.end - entry.start;
        let tail = self.send.split_off(to);
        self.send.truncate(from);
        self.send.unsplit(tail);
        for later in self.pipeline.iter_mut().skip(index + 1) {
            later.start -= len;
            later.end -= len;
        }
        let entry = self.pipeline.remove(index).expect("index in range");
        self.events.push_back(Event::Failed {
            tag: entry.tag,
            error: StatementError::interrupted(),
        });
        Cancelled::Withdrawn
    }

    /// Ends the connection: every command in flight fails with 2013, in order, then
    /// [`Event::Closed`].
    fn abort(&mut self, reason: CloseReason) {
        for entry in self.pipeline.drain(..) {
            self.events.push_back(Event::Failed {
                tag: entry.tag,
                error: StatementError::connection_lost(),
            });
        }
        self.events.push_back(Event::Closed { reason });
        self.phase = Phase::Closed;
        self.recv = BytesMut::new();
        self.send = BytesMut::new();
    }

    // ---- internals: the handshake ----

    fn step_handshake(&mut self) -> Result<Step, ConnectError> {
        let seq = match &self.phase {
            Phase::Auth(auth) => auth.seq,
            _ => 0,
        };
        let Some(packet) = packet::take(&mut self.recv, seq, self.config.max_packet_size)? else {
            return Ok(Step::Blocked);
        };
        let payload = packet.payload;
        if payload.first() == Some(&0xff) {
            return Err(ConnectError::Refused(parse_err(
                &payload,
                self.capabilities,
            )?));
        }
        let auth = match std::mem::replace(&mut self.phase, Phase::Greeting) {
            Phase::Auth(auth) => auth,
            _ => return self.greet(&payload),
        };
        self.authenticate(auth, &payload, packet.next_seq)
    }

    fn greet(&mut self, payload: &[u8]) -> Result<Step, ConnectError> {
        check_auth_data_len(payload)?;
        let handshake: HandshakePacket<'_> = ParseBuf(payload)
            .parse(())
            .map_err(|err| DecodeError::malformed("handshake", err))?;
        if handshake.protocol_version() != 10 {
            return Err(ConnectError::UnsupportedProtocol(format!(
                "protocol version {}",
                handshake.protocol_version()
            )));
        }
        if !handshake
            .capabilities()
            .contains(CapabilityFlags::CLIENT_PROTOCOL_41)
        {
            return Err(ConnectError::UnsupportedProtocol(
                "no CLIENT_PROTOCOL_41".to_owned(),
            ));
        }
        let mut wanted = CapabilityFlags::CLIENT_PROTOCOL_41
            | CapabilityFlags::CLIENT_SECURE_CONNECTION
            | CapabilityFlags::CLIENT_LONG_PASSWORD
            | CapabilityFlags::CLIENT_LONG_FLAG
            | CapabilityFlags::CLIENT_TRANSACTIONS
            | CapabilityFlags::CLIENT_MULTI_RESULTS
            | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
            | CapabilityFlags::CLIENT_PLUGIN_AUTH
            | CapabilityFlags::CLIENT_SESSION_TRACK
            | CapabilityFlags::CLIENT_DEPRECATE_EOF;
        if self.config.multi_statements {
            wanted |= CapabilityFlags::CLIENT_MULTI_STATEMENTS;
        }
        if self.config.database.is_some() {
            wanted |= CapabilityFlags::CLIENT_CONNECT_WITH_DB;
        }
        self.capabilities = handshake.capabilities() & wanted;
        self.thread_id = handshake.connection_id();
        self.server_version = handshake.server_version_str().into_owned();
        self.status = handshake.status_flags();
        let mut nonce = handshake.scramble_1_ref().to_vec();
        nonce.extend_from_slice(handshake.scramble_2_ref().unwrap_or_default());
        nonce.resize(20, 0);
        let plugin = match handshake.auth_plugin() {
            Some(AuthPlugin::CachingSha2Password) => AuthPlugin::CachingSha2Password,
            // Any other plugin first gets a native answer; the server then switches.
            _ => AuthPlugin::MysqlNativePassword,
        };
        let scramble = scramble(&plugin, &self.config.password, &nonce)?;
        let response = HandshakeResponse::new(
            Some(scramble.as_slice()),
            handshake.server_version_parsed().unwrap_or((0, 0, 0)),
            Some(self.config.user.as_bytes()),
            self.config.database.as_deref().map(str::as_bytes),
            Some(plugin.clone()),
            self.capabilities,
            None,
            u32::try_from(self.config.max_packet_size).unwrap_or(u32::MAX),
        );
        let mut body = Vec::new();
        response.serialize(&mut body);
        let seq = packet::put(&mut self.send, 1, &body);
        self.phase = Phase::Auth(Auth {
            plugin,
            seq,
            switched: false,
        });
        Ok(Step::Progress)
    }

    fn authenticate(
        &mut self,
        mut auth: Auth,
        payload: &[u8],
        next_seq: u8,
    ) -> Result<Step, ConnectError> {
        match payload.first() {
            Some(0x00) => {
                let ok = parse_ok::<CommonOkPacket>(payload, self.capabilities, "OK")?;
                self.status = ok.status;
                self.phase = Phase::Ready;
                self.logged_in = true;
                Ok(Step::Event(Event::Connected {
                    thread_id: self.thread_id,
                    server_version: self.server_version.clone(),
                }))
            }
            Some(0xfe) if !auth.switched => {
                if payload.len() == 1 {
                    return Err(ConnectError::UnsupportedAuthPlugin(
                        "mysql_old_password".to_owned(),
                    ));
                }
                let switch: AuthSwitchRequest<'_> = ParseBuf(payload)
                    .parse(())
                    .map_err(|err| DecodeError::malformed("auth switch", err))?;
                let plugin = switch.auth_plugin().into_owned();
                let data = scramble(&plugin, &self.config.password, switch.plugin_data())?;
                auth = Auth {
                    plugin,
                    seq: packet::put(&mut self.send, next_seq, &data),
                    switched: true,
                };
                self.phase = Phase::Auth(auth);
                Ok(Step::Progress)
            }
            // caching_sha2_password: 0x03 the cached password matched (an OK follows),
            // 0x04 full authentication needed.
            Some(0x01) if matches!(auth.plugin, AuthPlugin::CachingSha2Password) => {
                match payload.get(1) {
                    Some(0x03) => {
                        auth.seq = next_seq;
                        self.phase = Phase::Auth(auth);
                        Ok(Step::Progress)
                    }
                    Some(0x04) => Err(ConnectError::FullAuthenticationRequired),
                    _ => Err(DecodeError::unexpected(payload, "in caching_sha2_password").into()),
                }
            }
            _ => Err(DecodeError::unexpected(payload, "during authentication").into()),
        }
    }

    // ---- internals: answers ----

    fn step_answer(&mut self) -> Result<Step, DecodeError> {
        let max = self.config.max_packet_size;
        let sent = self.sent;
        let Some(entry) = self.pipeline.front_mut().filter(|entry| entry.end <= sent) else {
            return self.unsolicited();
        };
        let Some(packet) = packet::take(&mut self.recv, entry.seq, max)? else {
            return Ok(Step::Blocked);
        };
        entry.seq = packet.next_seq;
        entry.received += packet.wire_len;
        let payload = packet.payload;
        let first = payload.first().copied();
        let tag = entry.tag;
        let kind = entry.kind;
        let capabilities = self.capabilities;
        let deprecate_eof = capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF);
        match (&mut entry.read, first) {
            (_, None) => Err(DecodeError::unexpected(
                &payload,
                "in an answer (empty packet)",
            )),
            (Read::Start, Some(0x00)) => {
                let ok = parse_ok::<CommonOkPacket>(&payload, capabilities, "OK")?;
                Ok(self.end_result(ok))
            }
            (Read::Start | Read::Rows { .. }, Some(0xff)) => {
                let error = parse_err(&payload, capabilities)?;
                self.pipeline.pop_front();
                Ok(Step::Event(Event::Failed { tag, error }))
            }
            (Read::Start, Some(0xfb)) => Err(DecodeError::unexpected(
                &payload,
                "(a LOCAL INFILE request without CLIENT_LOCAL_FILES)",
            )),
            (Read::Start, Some(_)) if kind == Kind::Query => {
                let mut buf = ParseBuf(&payload);
                let count = buf.checked_eat_lenenc_int().filter(|_| buf.is_empty());
                let count = count
                    .filter(|&count| (1..=u64::from(u16::MAX)).contains(&count))
                    .ok_or_else(|| DecodeError::malformed("column count", "not 1 to 65535"))?;
                let left = count as usize;
                entry.read = Read::Columns { left };
                self.column_packets.clear();
                Ok(Step::Progress)
            }
            (Read::Columns { left }, Some(_)) => {
                self.column_packets.push(payload);
                *left -= 1;
                if *left > 0 {
                    return Ok(Step::Progress);
                }
                let columns = self.column_sets.get(&self.column_packets);
                self.column_packets.clear();
                let columns = columns?;
                entry.read = if deprecate_eof {
                    Read::Rows {
                        columns: columns.len(),
                    }
                } else {
                    Read::ColumnsEof {
                        columns: columns.len(),
                    }
                };
                Ok(Step::Event(Event::Columns { tag, columns }))
            }
            (Read::ColumnsEof { columns }, Some(0xfe)) if payload.len() < 9 => {
                entry.read = Read::Rows { columns: *columns };
                Ok(Step::Progress)
            }
            (Read::Rows { .. }, Some(0xfe)) if deprecate_eof && payload.len() < 0xff_ffff => {
                let ok = parse_ok::<ResultSetTerminator>(&payload, capabilities, "result end")?;
                Ok(self.end_result(ok))
            }
            (Read::Rows { .. }, Some(0xfe)) if !deprecate_eof && payload.len() < 9 => {
                let ok = parse_ok::<OldEofPacket>(&payload, capabilities, "EOF")?;
                Ok(self.end_result(ok))
            }
            (Read::Rows { columns }, Some(_)) => {
                let row = TextRow::new(payload, *columns)?;
                if !entry.large_reported && entry.received >= self.config.large_result_bytes {
                    entry.large_reported = true;
                    self.events.push_back(Event::LargeResult { tag });
                }
                Ok(Step::Event(Event::Row { tag, row }))
            }
            (_, Some(_)) => Err(DecodeError::unexpected(&payload, "in an answer")),
        }
    }

    /// An OK or a result set's end: the next result of the same query, or the command's end.
    fn end_result(&mut self, ok: OkInfo) -> Step {
        self.status = ok.status;
        let entry = self.pipeline.front_mut().expect("an answer has a command");
        if entry.kind == Kind::Query && ok.more_results() {
            entry.read = Read::Start;
            return Step::Event(Event::ResultEnd { tag: entry.tag, ok });
        }
        let tag = entry.tag;
        self.pipeline.pop_front();
        Step::Event(Event::Done { tag, ok })
    }

    /// Bytes while no sent command awaits an answer: the server may send an error before it
    /// closes the connection (killed, idle timeout); anything else breaks the protocol.
    fn unsolicited(&mut self) -> Result<Step, DecodeError> {
        let Some(&seq) = self.recv.get(3) else {
            return Ok(Step::Blocked);
        };
        let Some(packet) = packet::take(&mut self.recv, seq, self.config.max_packet_size)? else {
            return Ok(Step::Blocked);
        };
        if packet.payload.first() != Some(&0xff) {
            return Err(DecodeError::unexpected(
                &packet.payload,
                "with no command awaiting an answer",
            ));
        }
        let error = parse_err(&packet.payload, self.capabilities)?;
        self.abort(CloseReason::Server(error));
        Ok(Step::Progress)
    }
}

/// Refuses a greeting whose auth-plugin-data length byte is 128 or more. Servers send 21;
/// `mysql_common` computes `len as i8 - 8`, which overflows for 0x80 to 0x87 (a panic where
/// overflow checks are on, a nonsense length where they are off).
fn check_auth_data_len(payload: &[u8]) -> Result<(), DecodeError> {
    // Protocol version, the NUL-terminated server version, then connection id (4), scramble (8),
    // filler (1), capabilities (2), collation (1), status (2), capabilities (2): the length byte.
    let Some(version_end) = payload.iter().skip(1).position(|&byte| byte == 0) else {
        return Ok(()); // `mysql_common` reports the truncated packet
    };
    match payload.get(1 + version_end + 1 + 20) {
        Some(&len) if len >= 0x80 => Err(DecodeError::malformed(
            "handshake",
            format!("auth-plugin-data length {len}"),
        )),
        _ => Ok(()),
    }
}

/// The authentication data for `plugin`; only the plugins this crate implements.
fn scramble(
    plugin: &AuthPlugin<'_>,
    password: &str,
    nonce: &[u8],
) -> Result<Vec<u8>, ConnectError> {
    match plugin {
        AuthPlugin::MysqlNativePassword | AuthPlugin::CachingSha2Password => {
            let mut data = Vec::new();
            if let Some(generated) = plugin.gen_data(Some(password), nonce) {
                generated.serialize(&mut data);
            }
            Ok(data)
        }
        other => Err(ConnectError::UnsupportedAuthPlugin(
            String::from_utf8_lossy(other.as_bytes()).into_owned(),
        )),
    }
}

fn parse_ok<K: OkPacketKind>(
    payload: &[u8],
    capabilities: CapabilityFlags,
    what: &'static str,
) -> Result<OkInfo, DecodeError> {
    let ok = ParseBuf(payload)
        .parse::<OkPacketDeserializer<'_, K>>(capabilities)
        .map_err(|err| DecodeError::malformed(what, err))?
        .into_inner();
    Ok(OkInfo::from_packet(&ok))
}

fn parse_err(payload: &[u8], capabilities: CapabilityFlags) -> Result<StatementError, DecodeError> {
    // Progress reports are only sent to clients that ask for them; this one does not.
    match ParseBuf(payload).parse::<ErrPacket<'_>>(capabilities) {
        Ok(ErrPacket::Error(err)) => Ok(StatementError::from_server(&err)),
        Ok(ErrPacket::Progress(_)) => Err(DecodeError::unexpected(payload, "(a progress report)")),
        Err(err) => Err(DecodeError::malformed("ERR", err)),
    }
}

#[cfg(test)]
mod tests;
