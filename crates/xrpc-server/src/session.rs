//! Sessions: the logical units that many clients multiplex over one connection.
//!
//! A session is named by its sid on its connection. It owns a bounded command queue and runs its
//! requests one at a time, in order, on whichever worker the framework gives it. Different sessions
//! run in parallel.
//!
//! # Single-threaded execution without a blocking lock
//!
//! Like the receive gate in `xrpc-net`, a session runs under a try-lock with recheck
//! ([`Session::run`], through `xrpc_net::RunGate`, which has the protocol and its loom model):
//! a worker that finds the session already running leaves at once, and the
//! runner drains the queue and rechecks it after releasing the lock, so no pushed request is ever
//! stranded. The receive path reports a session runnable only when its queue was empty before the
//! push, which bounds the number of tasks per session to one in flight plus one recheck.
//!
//! # State
//!
//! - The queue holds decoded requests; [`Session::push`] refuses more than `max_queued_messages`.
//! - The session remembers its last error for cascading (`reset_error = false`), and keeps an engine
//!   connection only while that connection holds session state (see [`crate::engine`]).
//! - Kill and close come from the receive path, concurrently with a running request: they set
//!   flags, interrupt the engine and cancel a flow-control wait; the runner cleans up.
//! - Everything a session sends goes through its *send gate* (`Session::send_gated`): the
//!   gate's mutex is held across the `send`, and once the session has sent its last frame
//!   ([`Session::send_last`]: FATAL for kill, overflow or drain, OK for SESS_CLOSE) or has been
//!   removed, the gate drops whatever a still-running statement flushes. So the last frame is the
//!   last one the client ever sees on the sid for this session, whatever the race between the
//!   receive path ending it and a worker finishing its statement; a client may reuse the sid at
//!   once.
//! - The gate's closed flag (`is_gone`) and its run lock form a Dekker pair (each side stores one
//!   flag, then reads the other), so both use `SeqCst`: whichever of the remover and the runner comes last sees the other's flag and
//!   gives the engine connection back; `release_engine` takes it out of an `Option`, so doing it twice
//!   is harmless.
//!
//! # Which statement a KILL QUERY stops
//!
//! A `SESS_KILL QUERY` is meant for the oldest request of the session that is not answered when
//! the kill arrives: the one being handled (until its answer's last frame is about to go out), or
//! else the first one queued. Requests are numbered as they are taken from the queue, and the kill
//! records the number of the one it is meant for (its *target*), so:
//!
//! - a kill that arrives before its request's statement is registered (still queued, or taken
//!   from the queue but not yet on the engine) stops it deterministically: the statement does not
//!   run and fails with 1317;
//! - a kill that arrives after registration interrupts the engine (see
//!   [`crate::engine::Interrupt`]): the statement fails with 1317 at its next check, unless it
//!   finishes first, in which case the kill came too late, as in MySQL;
//! - a kill that arrives when nothing is queued or running does nothing, and no kill ever reaches
//!   a request received after it: a later request has a higher number than any recorded target.
//!
//! Registration clears the engine's interrupt flag and publishes its interrupter under the same
//! lock (`KillState`) that a kill takes to read the target and call the interrupter, so no kill
//! falls between the two. Each kill stops at most one request; requests pipelined behind it run.
//!
//! # Suspended requests
//!
//! On a node's connection ([`Session::run_resumable`]) a statement the engine can answer on the
//! event loop ([`EngineConn::submittable`]; the `mysql` engine's driver) is submitted instead of
//! run: the session marks itself suspended, registers the statement for kills as any other, and
//! hands the engine a completion that owns the request's encoder and output; the runner then
//! leaves the session without taking the next request, and a worker the receive path sends
//! leaves at once too. The completion runs on whichever worker reads the answer: it encodes the
//! rows, ends the request (the counters, the stored error, `request_done`), sends the answer's
//! last frames through the session's send gate as an inline answer's last flush goes (deferred to
//! the end of that worker's turn, together with the other answers it read for the same client
//! connection), clears the suspension, and schedules the session on its connection's group only
//! when a request waits in its queue (or the session was removed meanwhile, so its run releases
//! the engine): a client that sends one statement at a time costs no hand-off to another worker.
//! The session sends nothing while suspended, so answers keep request order. A client whose
//! socket is full makes that write wait as an inline answer's does (up to
//! `xrpc_net_write_timeout`), at the end of the reading worker's turn, after the backend
//! connection's answers of the turn were handed out: the statements pipelined behind on that
//! backend connection are read by other workers meanwhile. Auto-commit sids are not retired
//! while suspended.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use xrpc_net::{ConnRef, GroupHandle, UnitId};
use xrpc_proto::codes;
use xrpc_proto::messages::pb;
use xrpc_proto::value::Value;
use xrpc_proto::{Severity, WireError};

use crate::admin::AdminOutcome;
use crate::counters::StatementKind;
use crate::encode::{FrameOutput, ResultEncoder, write_error, write_ok, write_token_done};
use crate::engine::Completion;
use crate::engine::{EngineConn, Interrupt, WaitHook};
use crate::flow::FlowControl;
use crate::node::{NodeShared, RegisteredSession};
use crate::result::{ExecSummary, ResultSink, SinkError, SqlError};
use crate::settings::Settings;
use xrpc_net::RunGate;

/// Bytes buffered before the output is flushed mid-result: five 4 KiB pages.
const FLUSH_THRESHOLD: usize = 5 * 4096;
/// How often a flow-control wait checks that the client is still there.
const FLOW_POLL: Duration = Duration::from_millis(100);

/// A decoded request waiting in a session's queue.
#[derive(Debug)]
pub enum Request {
    /// EXEC_SQL.
    Sql(Box<pb::sql::StmtExecute>),
    /// EXEC_PLAN_READ.
    Plan(Box<pb::exec_plan::ExecPlan>),
    /// AUTO_SP.
    Savepoint(pb::exec_plan::AutoSp),
    /// SESS_CLOSE: answered with OK once every earlier request is done.
    Close,
}

/// What [`Session::push`] did.
#[derive(Debug)]
pub enum Pushed {
    /// The queue was empty: the session must be scheduled.
    Runnable,
    /// Queued behind earlier requests; whoever runs the session will get to it.
    Queued,
    /// The queue is full; the session must be failed.
    Overflow,
    /// The session was removed before the request arrived; the request comes back unqueued.
    Gone(Request),
}

#[derive(Default)]
struct Core {
    engine: Option<Box<dyn EngineConn>>,
    last_error: Option<WireError>,
    /// The engine connection holds a transaction in which a statement that may change a schema
    /// ran: the node's plan shape cache is told again when it ends (see `plan::catalog`).
    schema_dirty: bool,
    /// The session's diagnostics (`SHOW WARNINGS`): kept here, not on the engine connection,
    /// so that they follow the session across pooled connections and no session reads
    /// another's ([`EngineConn::set_session_warnings`]).
    warnings: Vec<crate::result::SqlWarning>,
    /// The database `USE` or a request's `schema_name` chose, handed to the engine connection
    /// before every statement
    /// ([`EngineConn::set_session_schema`]). Here rather than under a lock of its own so that
    /// a statement reads it in the lock that takes the engine connection, and stores a change
    /// in the lock that stores the statement's warnings.
    current_schema: Option<Arc<str>>,
}

/// One logical session.
pub struct Session {
    sid: u64,
    /// The number `connection_id()` returns.
    number: u64,
    /// The schema of the connection's authentication data: the engine's default database for
    /// this session (see [`EngineConn::set_default_schema`]).
    default_schema: Option<Arc<str>>,
    /// The user the session's connection authenticated as: who owns it for SQL `KILL`.
    user: Option<Arc<str>>,
    auto_commit: bool,
    queue: Mutex<VecDeque<Request>>,
    /// The run lock, and (closed) whether the session was removed: close, kill, overflow,
    /// connection end.
    gate: RunGate,
    core: Mutex<Core>,
    flow: FlowControl,
    /// Which request a KILL QUERY is meant for, and the interrupter of the running statement.
    /// Taken after the queue lock when both are held.
    kill: Mutex<KillState>,
    /// `kill.target == kill.taken` once a request was taken, stored under the kill lock by the
    /// only two places that change either (a kill, and taking a request from the queue), so the
    /// runner's early check of whether its request was killed (`is_killed`) need not take the
    /// lock: a kill that set the target before the check is seen, as under the lock.
    killed_current: AtomicBool,
    /// Whether an engine statement of the running request set the core's `warnings` (else a
    /// failure of the request happened before the engine, and its error replaces them: see
    /// `record_error`); cleared when each request ends. Only the runner reads or writes it, one
    /// request at a time under the run gate, so it needs no lock (an atomic only because the
    /// session is shared).
    warnings_set: AtomicBool,
    /// Whether the core holds a `last_error`, kept with it under the core lock: a request that
    /// succeeds after one that did too need not take the lock to clear it, and a `reset_error =
    /// false` request need not take it to find none.
    has_last_error: AtomicBool,
    /// The send gate: `true` once the session's last frame went out. Held across every send.
    ended: Mutex<bool>,
    /// Whether the node still counts this session against `max_sessions`: cleared once, by
    /// whichever of SESS_CLOSE (before its OK) and the removal comes first.
    counted: std::sync::atomic::AtomicBool,
    /// The wait hook handed to the engine connection before every statement: made once, on the
    /// first statement (a session stays on its connection, so on its group).
    wait_hook: std::sync::OnceLock<crate::engine::WaitHook>,
    /// A statement of the request being handled was submitted to the engine
    /// ([`EngineConn::submit`]) and is not answered yet: no later request runs (the runner
    /// leaves, and so does any worker the receive path sends) until its completion ends the
    /// request, clears this and schedules the session again. See "Suspended requests".
    suspended: AtomicBool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("sid", &self.sid)
            .field("auto_commit", &self.auto_commit)
            .field("queued", &self.queue.lock().len())
            .field("gone", &self.gate.is_closed())
            .finish()
    }
}

impl Session {
    /// A new session for `sid`.
    pub fn new(sid: u64, number: u64, auto_commit: bool) -> Self {
        Self {
            sid,
            number,
            default_schema: None,
            user: None,
            auto_commit,
            queue: Mutex::new(VecDeque::new()),
            gate: RunGate::new(),
            core: Mutex::new(Core::default()),
            flow: FlowControl::default(),
            kill: Mutex::new(KillState::default()),
            killed_current: AtomicBool::new(false),
            warnings_set: AtomicBool::new(false),
            has_last_error: AtomicBool::new(false),
            ended: Mutex::new(false),
            counted: std::sync::atomic::AtomicBool::new(true),
            wait_hook: std::sync::OnceLock::new(),
            suspended: AtomicBool::new(false),
        }
    }

    /// Makes `schema` (the connection's authentication schema) the session's default database.
    pub fn with_default_schema(mut self, schema: Option<Arc<str>>) -> Self {
        self.default_schema = schema;
        self
    }

    /// Makes `user` the session's owner.
    pub fn with_user(mut self, user: Option<Arc<str>>) -> Self {
        self.user = user;
        self
    }

    /// The user the session's connection authenticated as.
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// Sends `frames` through the send gate: dropped, with [`SinkError::Interrupted`], once the
    /// session has sent its last frame or was removed. `deferred` lets the frames wait for the end
    /// of the worker's turn (the last flush of an answer; see `xrpc_net::turn`): the gate's
    /// order holds either way, as the connection keeps deferred and immediate bytes in call order.
    fn send_gated<C: SessionConn>(
        &self,
        conn: &C,
        frames: &[u8],
        deferred: bool,
    ) -> Result<(), SinkError> {
        self.send_through_gate(|| {
            if deferred {
                conn.send_deferred(frames)
            } else {
                conn.send(frames)
            }
        })
    }

    /// Runs `send` (true: sent) under the send gate, unless the session has sent its last frame
    /// or was removed ([`SinkError::Interrupted`]).
    fn send_through_gate(&self, send: impl FnOnce() -> bool) -> Result<(), SinkError> {
        let ended = self.ended.lock();
        if *ended || self.is_gone() {
            return Err(SinkError::Interrupted);
        }
        let sent = send();
        drop(ended);
        if sent {
            Ok(())
        } else {
            Err(SinkError::Disconnected)
        }
    }

    /// Sends the session's last frame, written by `write`, and closes the send gate behind it.
    /// Returns false, sending nothing, if the session already sent its last frame. Call it before
    /// removing the session, then remove it: a statement still running ends without another word.
    pub fn send_last<C: SessionConn>(&self, conn: &C, write: impl FnOnce(&mut Vec<u8>)) -> bool {
        let mut ended = self.ended.lock();
        if *ended {
            return false;
        }
        *ended = true;
        let mut frame = Vec::with_capacity(128);
        write(&mut frame);
        conn.send(&frame);
        true
    }

    /// Ends the session with FATAL `err` (severity forced to FATAL), counted in the node's
    /// errors; see [`Session::send_last`].
    pub fn send_last_fatal<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        err: &WireError,
    ) -> bool {
        let err = err.clone().with_severity(Severity::Fatal);
        // Counted before the frame goes out, so a client that reads the FATAL finds it counted.
        self.send_last(conn, |out| {
            node.requests.error(err.code);
            write_error(out, node.format, self.sid, &err)
        })
    }

    /// The session's number: what `connection_id()` returns and SQL `KILL` names.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The session id.
    pub fn sid(&self) -> u64 {
        self.sid
    }

    /// Whether this is a shared auto-commit session.
    pub fn is_auto_commit(&self) -> bool {
        self.auto_commit
    }

    /// Takes the session out of the node's count; `true` only the first time.
    pub(crate) fn take_counted(&self) -> bool {
        self.counted
            .swap(false, std::sync::atomic::Ordering::AcqRel)
    }

    /// Whether the session was removed.
    pub fn is_gone(&self) -> bool {
        self.gate.is_closed()
    }

    /// Whether a request is queued or running.
    pub fn is_busy(&self) -> bool {
        self.gate.is_running() || self.is_suspended() || !self.queue.lock().is_empty()
    }

    /// Whether a submitted statement holds the session (see `suspended`).
    fn is_suspended(&self) -> bool {
        self.suspended.load(Ordering::SeqCst)
    }

    /// Appends a request, refusing more than `max_queued` waiting requests.
    pub fn push(&self, request: Request, max_queued: usize) -> Pushed {
        let mut queue = self.queue.lock();
        // Checked under the queue lock, which `retire_if_idle` and `shut_down` also take, so a
        // request is either queued before the session goes or refused: never queued and dropped.
        if self.is_gone() {
            return Pushed::Gone(request);
        }
        if queue.len() >= max_queued {
            return Pushed::Overflow;
        }
        let was_empty = queue.is_empty();
        queue.push_back(request);
        if was_empty {
            Pushed::Runnable
        } else {
            Pushed::Queued
        }
    }

    /// Marks an idle session removed; returns false, leaving it alone, if a request is queued or
    /// running. Auto-commit sessions retire this way after each request.
    pub fn retire_if_idle(&self) -> bool {
        let queue = self.queue.lock();
        if !queue.is_empty() || self.gate.is_running() || self.is_suspended() {
            return false;
        }
        self.gate.close();
        true
    }

    /// The client's TOKEN_OFFER, handled at once by the receive path.
    pub fn offer_tokens(&self, token: i32) {
        self.flow.offer(token);
    }

    /// KILL QUERY: stops the request being handled, or else the first one queued (it ends with
    /// 1317); does nothing when the session is idle. The session stays. See the module docs.
    pub fn kill_query(&self) {
        {
            let queue = self.queue.lock();
            let mut kill = self.kill.lock();
            if kill.handling {
                kill.target = kill.taken;
                self.killed_current.store(true, Ordering::SeqCst);
                if let Some(interrupt) = &kill.running {
                    interrupt.interrupt();
                }
            } else if !queue.is_empty() {
                kill.target = kill.taken + 1;
                self.killed_current.store(false, Ordering::SeqCst);
            } else {
                return;
            }
        }
        // The flag holds until the next request begins; a request that began before this kill
        // (and so may be waiting for tokens) is the one the kill is for.
        self.flow.cancel();
    }

    /// Whether a kill was meant for the request being handled: read without the kill lock (see
    /// `killed_current`); `register_statement` checks again under it.
    fn is_killed(&self) -> bool {
        self.killed_current.load(Ordering::SeqCst)
    }

    /// Marks the session removed and stops whatever it runs. Requests still queued are dropped
    /// unanswered, as the session no longer exists for the client. The engine connection is given
    /// back by whoever holds the run lock next.
    pub fn shut_down(&self, node: &NodeShared) {
        {
            let mut queue = self.queue.lock();
            queue.clear();
            if !self.gate.close() {
                return;
            }
        }
        self.kill_query();
        // If nobody runs the session, clean up here; otherwise the runner does on its way out.
        self.try_release_after_gone(node);
    }

    fn release_engine(&self, node: &NodeShared) {
        let mut core = self.core.lock();
        if std::mem::take(&mut core.schema_dirty) {
            node.plan_shapes.schema_may_have_changed();
        }
        let held = core.engine.take();
        drop(core);
        if let Some(mut engine) = held {
            match engine.reset() {
                Ok(()) => node.engine.release(engine),
                Err(err) => {
                    tracing::warn!(sid = self.sid, %err, "dropping an engine connection that failed to reset")
                }
            }
        }
    }

    /// Runs queued requests until the queue is empty; returns at once if another worker runs the
    /// session. Returns whether the session finished (closed) during the run.
    pub fn run<C: SessionConn>(&self, conn: &C, node: &NodeShared) -> RunOutcome {
        self.run_with(conn, node, None)
    }

    /// [`Session::run`] on a node's connection, where a statement may be submitted to the engine
    /// and answered on the event loop (the session is then suspended; see "Suspended requests").
    pub fn run_resumable(self: &Arc<Self>, conn: &ConnRef, node: &Arc<NodeShared>) -> RunOutcome {
        let resume = Resume {
            session: Arc::clone(self),
            node: Arc::clone(node),
            conn: conn.clone(),
        };
        self.run_with(conn, node, Some(&resume))
    }

    fn run_with<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        resume: Option<&Resume>,
    ) -> RunOutcome {
        let mut outcome = RunOutcome::Idle;
        self.gate.run(
            || loop {
                if self.is_gone() {
                    self.queue.lock().clear();
                    self.release_engine(node);
                    break;
                }
                if self.is_suspended() {
                    // The completion of the submitted statement schedules the session again.
                    break;
                }
                let Some(request) = self.take_request() else {
                    break;
                };
                if node.is_draining() {
                    let err = WireError::with_message(
                        &codes::SERVER_SHUTDOWN,
                        "Server shutdown in progress; request not run",
                    );
                    self.send_last_fatal(conn, node, &err);
                    self.queue.lock().clear();
                    self.request_done();
                    outcome = RunOutcome::Closed;
                    break;
                }
                let closed = self.handle(conn, node, request, resume);
                if closed {
                    // SESS_CLOSE ends the session with `send_last`, without an answer of its
                    // own; every other request's answer already did this before its last frame
                    // (`run_cascading`, `send_error_now`), so the kill lock is not taken again for it.
                    self.request_done();
                    outcome = RunOutcome::Closed;
                } else {
                    debug_assert!(
                        self.is_suspended() || !self.kill.lock().handling,
                        "a request ended without marking itself done"
                    );
                }
            },
            // Recheck: a request pushed after the last pop saw a non-empty queue or a running
            // session and did not schedule us, so it is ours to run (unless a submitted
            // statement holds the session: its completion schedules it).
            || !self.is_suspended() && !self.queue.lock().is_empty(),
            || self.release_engine(node),
        );
        outcome
    }

    /// Takes the next request from the queue and numbers it, under the queue lock, so a kill sees
    /// the request either queued or taken, never neither.
    fn take_request(&self) -> Option<Request> {
        let mut queue = self.queue.lock();
        let request = queue.pop_front()?;
        let mut kill = self.kill.lock();
        kill.taken += 1;
        kill.handling = true;
        self.killed_current
            .store(kill.target == kill.taken, Ordering::SeqCst);
        Some(request)
    }

    /// The request taken last is answered (or about to be: call it before its last frame goes
    /// out): a kill from now on is for a later one, or none.
    fn request_done(&self) {
        self.kill.lock().handling = false;
    }

    fn try_release_after_gone(&self, node: &NodeShared) {
        self.gate.cleanup_if_idle(|| self.release_engine(node));
    }

    /// Handles one request; returns true if it closed the session. (The `run` stage histogram is
    /// recorded by the framework around the whole run of the session.)
    fn handle<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        request: Request,
        resume: Option<&Resume>,
    ) -> bool {
        match request {
            Request::Close => {
                // Under the queue lock, which `push` and `shut_down` take too: a request or a
                // SESS_NEW that arrives meanwhile finds the session gone only after the OK and
                // the answers below went out, so the sid's frames stay in request order.
                let mut queue = self.queue.lock();
                self.gate.close();
                // Reset and pooled before the OK: once the client reads it, the session's state
                // (an open transaction, locks, temporary tables) is gone on every engine.
                self.release_engine(node);
                // Uncounted before the OK too, so a client that reads it may open a session
                // in its place even at `max_sessions`.
                node.session_removed(self);
                self.send_last(conn, |out| write_ok(out, node.format, self.sid, "bye"));
                // Requests pipelined behind the close get what a request on a sid without a
                // session gets.
                for _ in queue.drain(..) {
                    let err = WireError::from_code(&codes::SESSION_NOT_FOUND)
                        .with_severity(Severity::Fatal);
                    let mut frame = Vec::with_capacity(128);
                    write_error(&mut frame, node.format, self.sid, &err);
                    conn.send(&frame);
                }
                drop(queue);
                true
            }
            Request::Sql(stmt) => {
                // Read in its box: moving a StmtExecute out copies some 300 bytes.
                self.exec_sql(conn, node, stmt, resume);
                false
            }
            Request::Plan(plan) => {
                self.exec_plan(conn, node, *plan, resume);
                false
            }
            Request::Savepoint(sp) => {
                self.savepoint(conn, node, &sp);
                false
            }
        }
    }

    fn exec_sql<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        mut stmt: Box<pb::sql::StmtExecute>,
        resume: Option<&Resume>,
    ) {
        if self.auto_commit
            && (stmt.chunk_result == Some(true)
                || stmt.feed_back == Some(true)
                || stmt.stmt.is_none())
        {
            let err = WireError::with_message(
                &codes::UNSUPPORTED_OPTION,
                "Auto-commit sessions do not support chunk results, feedback or digest-only requests",
            );
            self.send_error_now(conn, node, &err);
            return;
        }
        // A digest-only request that misses the cache is answered before anything runs and does not
        // touch the stored error: the client resends the full statement next.
        // Moved out, not cloned: a clone of a `Bytes` made from a `Vec` allocates its shared
        // header, and the request is not used again.
        let text = match (stmt.stmt.take(), &stmt.stmt_digest) {
            (Some(text), Some(digest)) => {
                node.cache.insert(digest.clone(), text.clone());
                text
            }
            (Some(text), None) => text,
            (None, Some(digest)) => match node.cache.get(digest) {
                Some(text) => text,
                None => {
                    let err = WireError::from_code(&codes::SQL_CACHE_MISS);
                    self.send_error_now(conn, node, &err);
                    return;
                }
            },
            (None, None) => {
                let err = SqlError::new(
                    &codes::WRONG_ARGUMENTS,
                    "StmtExecute needs stmt or stmt_digest",
                );
                self.finish_request(conn, node, Err(err));
                return;
            }
        };
        let (token, chunk) = self.result_mode(node, stmt.token, stmt.chunk_result);
        let schema = stmt.schema_name.take().filter(|s| !s.is_empty());
        self.run_cascading(conn, node, stmt.reset_error, |session, out| {
            session.begin_flow(token)?;
            let sql = std::str::from_utf8(&text).map_err(|_| {
                SqlError::new(&codes::WRONG_ARGUMENTS, "statement is not valid UTF-8")
            })?;
            let script = xrpc_sql::parse_cached(sql, &xrpc_sql::Options::default());
            out.kind = Some(StatementKind::of_script(&script));
            let args = stmt
                .args
                .iter()
                .map(value_of_arg)
                .collect::<Result<Vec<_>, _>>()?;
            let conn = out.conn;
            // An engine that cannot submit is not asked; see `SUBMIT_MIN_TOKEN_KIB` for
            // flow-controlled requests.
            let submit = resume
                .filter(|_| submits_under_token(token) && node.engine.submits())
                .map(|resume| SubmitTo {
                    resume,
                    chunk,
                    kind: out.kind,
                    plan: None,
                });
            let mut encoder = ResultEncoder::new(&mut *out, node.format, session.sid, chunk);
            let answer = session.execute(
                conn,
                node,
                sql,
                &script,
                &args,
                schema.as_deref(),
                &mut encoder,
                submit,
            )?;
            match answer {
                Answer::Now(summary) => {
                    encoder.finish_result(&summary).map_err(SqlError::from)?;
                }
                Answer::Later => {
                    drop(encoder);
                    out.suspended = true;
                }
            }
            Ok(())
        });
    }

    /// The token and the chunk mode a result request asks for: an auto-commit sid always gets
    /// rows without flow control.
    fn result_mode(
        &self,
        node: &NodeShared,
        token: Option<i32>,
        chunk_result: Option<bool>,
    ) -> (i32, bool) {
        if self.auto_commit {
            return (-1, false);
        }
        let chunk = chunk_result.unwrap_or_else(|| node.vars.chunk_result_default());
        (token.unwrap_or(-1), chunk)
    }

    /// Checks a request's token (-1 for none, else at least 0) and starts flow control with it.
    fn begin_flow(&self, token: i32) -> Result<(), SqlError> {
        if token < -1 {
            return Err(SqlError::new(
                &codes::INVALID_TOKEN,
                format!("token must be -1 or at least 0, got {token}"),
            ));
        }
        self.flow.begin(token);
        Ok(())
    }

    /// EXEC_PLAN_READ: the plan (or the one cached under its digest) is compiled into one SQL
    /// statement on the session's engine connection and run like a prepared EXEC_SQL, through the
    /// same encoder. See [`crate::plan`].
    fn exec_plan<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        request: pb::exec_plan::ExecPlan,
        resume: Option<&Resume>,
    ) {
        // As for EXEC_SQL: a digest-only request that misses is answered before anything runs and
        // leaves the stored error alone; the client resends the whole plan.
        // The compiled-plan cache's key is the digest, or the encoded plan when it has none; a
        // digest-only request decodes its plan only if the compiled form is not kept.
        let (key, encoded, plan) = match (request.plan, request.plan_digest) {
            (Some(plan), Some(digest)) => {
                let encoded = bytes::Bytes::from(prost::Message::encode_to_vec(&*plan));
                node.plan_cache.insert(digest.clone(), encoded.clone());
                (digest, encoded, Some(plan))
            }
            (Some(plan), None) => {
                let encoded = bytes::Bytes::from(prost::Message::encode_to_vec(&*plan));
                (encoded.clone(), encoded, Some(plan))
            }
            (None, Some(digest)) => match node.plan_cache.get(&digest) {
                Some(encoded) => (digest, encoded, None),
                None => {
                    let err = WireError::from_code(&codes::PLAN_CACHE_MISS);
                    self.send_error_now(conn, node, &err);
                    return;
                }
            },
            (None, None) => {
                let err = SqlError::new(
                    &codes::WRONG_ARGUMENTS,
                    "bad plan: ExecPlan needs plan or plan_digest",
                );
                self.finish_request(conn, node, Err(err));
                return;
            }
        };
        let refused = if request.snapshot_seq.is_some() || request.commit_seq.is_some() {
            Some("snapshot_seq and commit_seq (the node keeps no global timestamps)")
        } else if request.query_via_flashback_area == Some(true) {
            Some("query_via_flashback_area")
        } else if request.use_cts_transaction == Some(true) {
            Some("use_cts_transaction")
        } else if !request.session_variables.is_empty() {
            Some("session_variables on EXEC_PLAN_READ (send SET through EXEC_SQL)")
        } else {
            None
        };
        if let Some(what) = refused {
            let err = SqlError::new(
                &codes::NOT_SUPPORTED_YET,
                format!("This version doesn't yet support {what}"),
            );
            self.run_cascading(conn, node, request.reset_error, |_, _| Err(err));
            return;
        }
        let (token, chunk) = self.result_mode(node, request.token, request.chunk_result);
        let compact = request.compact_metadata == Some(true);
        let feedback = request.feed_back == Some(true);
        let params = request.parameters;
        self.run_cascading(conn, node, request.reset_error, |session, out| {
            out.kind = Some(StatementKind::Plan);
            session.begin_flow(token)?;
            let conn = out.conn;
            let mut encoder = ResultEncoder::new(&mut *out, node.format, session.sid, chunk)
                .compact_metadata(compact);
            // The database a plan without a schema reads: part of the shape cache's key.
            let (use_cache, session_schema) = {
                let core = session.core.lock();
                let schema = core.current_schema.clone();
                (
                    !core.schema_dirty,
                    schema.or_else(|| session.default_schema.clone()),
                )
            };
            if session.is_killed() {
                return Err(interrupted());
            }
            let request = crate::plan::catalog::PlanRequest {
                key: &key,
                encoded: &encoded,
                plan: plan.as_deref(),
                params: &params,
            };
            let compile = |engine: &mut dyn EngineConn| {
                crate::plan::catalog::compile_cached(
                    &node.plan_shapes,
                    engine,
                    use_cache,
                    session_schema.as_deref(),
                    request,
                )
            };
            // The upstream's feedback: the index read. The engine does not say how many rows
            // it examined, so `examined_row_count` stays absent rather than guessed.
            let fetch_done = |prepared: &crate::plan::catalog::PreparedPlan| {
                feedback.then(|| pb::resultset::FetchDone {
                    examined_row_count: None,
                    chosen_index: Some(prepared.compiled.index.clone().into_bytes().into()),
                })
            };
            // As a statement is (see `exec_sql`): an engine that submits gets the compiled
            // plan's statement after the compile (whose catalog reads on a miss run inline).
            let submit = resume.filter(|_| submits_under_token(token) && node.engine.submits());
            let (prepared, summary) = match submit {
                Some(resume) => {
                    let prepared =
                        session.with_engine(conn, node, &mut encoder, false, |engine, _| {
                            Ok(compile(engine)?)
                        })?;
                    let submit = SubmitTo {
                        resume,
                        chunk,
                        kind: Some(StatementKind::Plan),
                        plan: Some(PlanAnswer {
                            compact,
                            fetch_done: fetch_done(&prepared),
                            from_kept_shapes: prepared.used_cache,
                        }),
                    };
                    let (sql, args) = (&prepared.compiled.sql, &prepared.args);
                    let script = xrpc_sql::parse_cached(sql, &xrpc_sql::Options::default());
                    if session.try_submit(conn, node, submit, sql, &script, args, None)? {
                        drop(encoder);
                        out.suspended = true;
                        return Ok(());
                    }
                    let summary =
                        session.with_engine(conn, node, &mut encoder, false, |engine, sink| {
                            run_compiled(node, engine, &prepared, sink)
                        })?;
                    (prepared, summary)
                }
                None => session.with_engine(conn, node, &mut encoder, false, |engine, sink| {
                    let prepared = compile(engine)?;
                    let summary = run_compiled(node, engine, &prepared, sink)?;
                    Ok((prepared, summary))
                })?,
            };
            if let Some(fetch_done) = fetch_done(&prepared) {
                encoder.set_fetch_done(fetch_done);
            }
            encoder.finish_result(&summary).map_err(SqlError::from)?;
            Ok(())
        });
    }

    fn savepoint<C: SessionConn>(&self, conn: &C, node: &NodeShared, sp: &pb::exec_plan::AutoSp) {
        // Backquoted, MySQL's identifier quote: MySQL and MariaDB read a double-quoted name as a
        // string unless ANSI_QUOTES is set, and SQLite accepts backquotes too.
        let name = String::from_utf8_lossy(&sp.sp_name).replace('`', "``");
        let sql = match pb::exec_plan::auto_sp::Operation::try_from(sp.op) {
            Ok(pb::exec_plan::auto_sp::Operation::Set) => format!("SAVEPOINT `{name}`"),
            Ok(pb::exec_plan::auto_sp::Operation::Release) => {
                format!("RELEASE SAVEPOINT `{name}`")
            }
            Ok(pb::exec_plan::auto_sp::Operation::Rollback) => {
                format!("ROLLBACK TO SAVEPOINT `{name}`")
            }
            Err(_) => {
                let err = SqlError::new(
                    &codes::WRONG_ARGUMENTS,
                    format!("unknown AUTO_SP operation {}", sp.op),
                );
                self.finish_request(conn, node, Err(err));
                return;
            }
        };
        self.run_cascading(conn, node, sp.reset_error, |session, out| {
            out.kind = Some(StatementKind::Transaction);
            session.flow.begin(-1);
            let conn = out.conn;
            let mut encoder = ResultEncoder::new(out, node.format, session.sid, false);
            let script = xrpc_sql::parse_cached(&sql, &xrpc_sql::Options::default());
            let answer =
                session.execute(conn, node, &sql, &script, &[], None, &mut encoder, None)?;
            if let Answer::Now(summary) = answer {
                encoder.finish_result(&summary).map_err(SqlError::from)?;
            }
            Ok(())
        });
    }

    /// Runs `body` unless the cascading-error rule answers for it, then records its outcome.
    fn run_cascading<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        reset_error: Option<bool>,
        body: impl FnOnce(&Self, &mut SessionOutput<'_, C>) -> Result<(), SqlError>,
    ) {
        if reset_error == Some(false) && self.has_last_error.load(Ordering::Relaxed) {
            let stored = self.core.lock().last_error.clone();
            if let Some(err) = stored {
                self.send_error_now(conn, node, &err);
                return;
            }
        }
        let mut out = SessionOutput::new(conn, node, self);
        let result = body(self, &mut out);
        if out.suspended && result.is_ok() {
            // The completion of the submitted statement ends the request.
            return;
        }
        let (kind, rows) = (out.kind, out.rows);
        self.end_request(node, &mut out, kind, rows, result, |out| {
            let _ = out.finish();
        });
    }

    /// Ends a request with `result`, its answer's last frames written into `out` and sent by
    /// `finish`: the error frame and diagnostics of a failure, the node's counters, the stored
    /// error for cascading.
    fn end_request<O: FrameOutput>(
        &self,
        node: &NodeShared,
        out: &mut O,
        kind: Option<StatementKind>,
        rows: u64,
        result: Result<(), SqlError>,
        finish: impl FnOnce(&mut O),
    ) {
        if let Err(err) = &result {
            // Whatever part of a result went out, the error ends the request; nothing follows it.
            write_error(out.buf(), node.format, self.sid, &err.to_wire());
            self.record_error(err);
        }
        // Counted before the answer goes out: a client that reads it then sees it counted.
        let error = result.as_ref().err().map(|err| err.code);
        node.requests.request_done(kind, rows, error);
        // Before the last frame goes out: a client that sends its next statement and a kill as
        // soon as it reads this answer means the kill for that statement, not this one.
        self.request_done();
        finish(out);
        // Requests of a session run one at a time: the next one starts with the flag clear.
        self.warnings_set.store(false, Ordering::Relaxed);
        if result.is_err() || self.has_last_error.load(Ordering::Relaxed) {
            let mut core = self.core.lock();
            core.last_error = result.err().map(|e| e.to_wire());
            self.has_last_error
                .store(core.last_error.is_some(), Ordering::Relaxed);
        }
    }

    /// Puts a failed request's error in the session's diagnostics (`SHOW ERRORS`,
    /// `@@error_count`) as the engine does for its own: after the warnings of the statement
    /// that ran, or alone when the request failed before reaching the engine (a refusal of the
    /// admin path or of the session layer), replacing the previous statement's list.
    fn record_error(&self, err: &SqlError) {
        let row = crate::result::SqlWarning {
            level: crate::result::WarningLevel::Error,
            code: err.code,
            message: err.message.clone(),
        };
        let mut core = self.core.lock();
        if !self.warnings_set.load(Ordering::Relaxed) {
            core.warnings = vec![row];
        } else if core.warnings.last() != Some(&row) {
            let keep = crate::engine::MAX_WARNINGS - 1;
            core.warnings.truncate(keep);
            core.warnings.push(row);
        }
    }

    fn finish_request<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        result: Result<(), SqlError>,
    ) {
        self.run_cascading(conn, node, None, |_, _| result);
    }

    /// Runs one statement on the session's engine connection, borrowing one if it holds none.
    /// `script` is `sql` as the front end read it. With `submit`, a statement the engine can
    /// answer on the event loop is submitted instead ([`Answer::Later`]).
    #[allow(clippy::too_many_arguments)]
    fn execute<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
        sink: &mut dyn ResultSink,
        submit: Option<SubmitTo<'_>>,
    ) -> Result<Answer, SqlError> {
        if self.is_killed() {
            return Err(interrupted());
        }
        let mut node_rows = Vec::new();
        if args.is_empty() {
            match node.try_admin(script, self.user(), sink) {
                AdminOutcome::Answered(result) => return result.map(Answer::Now),
                AdminOutcome::EngineThenRows(rows) => node_rows = rows,
                AdminOutcome::Engine => {}
            }
        }
        let changes_schema = crate::plan::catalog::may_change_schema(script);
        if let Some(submit) = submit
            && node_rows.is_empty()
            && !changes_schema
            && self.try_submit(conn, node, submit, sql, script, args, schema)?
        {
            return Ok(Answer::Later);
        }
        // `USE db` chooses the database itself, so the authentication schema, which may name a
        // database that does not exist (the node accepts such a connect, where MySQL refuses it),
        // must not fail it before it runs.
        let chooses_database = schema.is_none()
            && matches!(script.as_slice(), [Ok(parsed)] if parsed.kind == xrpc_sql::Kind::Use);
        self.with_engine(conn, node, sink, changes_schema, |engine, sink| {
            if chooses_database {
                engine.set_default_schema(None);
            }
            execute_on(engine, sql, Some(script), args, schema, sink).and_then(|summary| {
                // The node's own rows of a SHOW the engine answered follow the engine's rows.
                for row in node_rows.iter().filter(|_| summary.has_result_set) {
                    sink.row(row)?;
                }
                Ok(summary)
            })
        })
        .map(Answer::Now)
    }

    /// Takes the session's engine connection (or borrows one) and hands it what it needs before
    /// a statement; also returns whether the session held it.
    fn prepare_engine<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
    ) -> Result<(Box<dyn EngineConn>, bool), SqlError> {
        let (held, warnings, current) = {
            let mut core = self.core.lock();
            (
                core.engine.take(),
                std::mem::take(&mut core.warnings),
                core.current_schema.clone(),
            )
        };
        let was_held = held.is_some();
        let mut engine = match held {
            Some(engine) => engine,
            None => node.engine.acquire()?,
        };
        engine.set_connection_id(self.number);
        engine.set_default_schema(self.default_schema.as_deref());
        engine.set_session_schema(current.as_deref());
        engine.set_session_warnings(warnings);
        // A lock wait blocks this worker; inside the guard the pool counts it as stalled and grows
        // instead of deadlocking when every worker waits on a lock held by a queued session.
        let hook = self.wait_hook.get_or_init(|| conn.wait_hook());
        engine.set_wait_hook(Some(Arc::clone(hook)));
        Ok((engine, was_held))
    }

    /// Gives an engine connection back as it was before a statement that did not run: the
    /// session keeps it if it held it, else the pool gets it; the diagnostics go back too.
    fn put_back_engine(&self, node: &NodeShared, mut engine: Box<dyn EngineConn>, was_held: bool) {
        let warnings = engine.take_session_warnings();
        let mut core = self.core.lock();
        core.warnings = warnings;
        if was_held {
            core.engine = Some(engine);
        } else {
            drop(core);
            node.engine.release(engine);
        }
    }

    /// Submits the statement to the engine if it takes it ([`EngineConn::submittable`]):
    /// registered for kills as any statement, the session suspended until the completion ends
    /// the request. Returns false, having changed nothing, when the engine runs it inline.
    #[allow(clippy::too_many_arguments)]
    fn try_submit<C: SessionConn>(
        &self,
        conn: &C,
        node: &NodeShared,
        submit: SubmitTo<'_>,
        sql: &str,
        script: &xrpc_sql::Script,
        args: &[Value],
        schema: Option<&str>,
    ) -> Result<bool, SqlError> {
        let (mut engine, was_held) = self.prepare_engine(conn, node)?;
        if !engine.submittable(sql, script, args, schema) {
            self.put_back_engine(node, engine, was_held);
            return Ok(false);
        }
        let Some(interrupter) = self.register_statement(&*engine) else {
            self.put_back_engine(node, engine, was_held);
            return Err(interrupted());
        };
        node.statement_started(self.number, interrupter);
        // Set before the statement can be answered (perhaps on another worker before `submit`
        // returns): its completion clears it.
        self.suspended.store(true, Ordering::SeqCst);
        self.warnings_set.store(true, Ordering::Relaxed);
        let resume = submit.resume;
        let output = OwnedOutput {
            session: Arc::clone(&resume.session),
            conn: resume.conn.clone(),
            format: node.format,
            buf: Vec::with_capacity(OUTPUT_CAPACITY),
            rows: 0,
            failed: false,
        };
        let mut encoder = ResultEncoder::new(output, node.format, self.sid, submit.chunk);
        let mut from_kept_shapes = false;
        if let Some(plan) = submit.plan {
            encoder = encoder.compact_metadata(plan.compact);
            if let Some(fetch_done) = plan.fetch_done {
                encoder.set_fetch_done(fetch_done);
            }
            from_kept_shapes = plan.from_kept_shapes;
        }
        let pending = Pending {
            resume: resume.clone(),
            encoder,
            kind: submit.kind,
            from_kept_shapes,
        };
        engine.submit(sql, args, schema, Box::new(pending));
        // The handle holds no backend state (the engine submits only then); the session keeps
        // it (not an auto-commit sid) when it holds other state, or for what a write may set on
        // it when answered, the id `last_insert_id()` returns. Nothing else runs the session
        // before this is done: the next request waits for the run gate, which this worker holds.
        let schema_change = engine
            .take_session_schema_change()
            .filter(|_| !self.auto_commit);
        let warnings = engine.take_session_warnings();
        let mut core = self.core.lock();
        if let Some(change) = schema_change {
            core.current_schema = change.map(Arc::from);
        }
        core.warnings = warnings;
        let may_set_state =
            engine.holds_session_state() || submit.kind != Some(StatementKind::Select);
        let keep = may_set_state || node.engine.sessions_keep_connections();
        if keep && !self.auto_commit && !self.is_gone() {
            core.engine = Some(engine);
        } else {
            drop(core);
            node.engine.release(engine);
        }
        Ok(true)
    }

    /// Runs `run` on the session's engine connection, borrowing one if it holds none, as one
    /// registered statement (a kill interrupts it); keeps or gives back the connection after.
    /// `changes_schema`: the statement may change a schema, which the plan shape cache is told.
    fn with_engine<C: SessionConn, T>(
        &self,
        conn: &C,
        node: &NodeShared,
        sink: &mut dyn ResultSink,
        changes_schema: bool,
        run: impl FnOnce(&mut dyn EngineConn, &mut dyn ResultSink) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        // No kill check of its own here: the callers check just before (a kill that comes
        // later is caught by `register_statement`, which is the check that counts).
        let (mut engine, was_held) = self.prepare_engine(conn, node)?;
        let Some(interrupter) = self.register_statement(&*engine) else {
            // A kill meant for this request came first: the statement does not run, and the
            // session is left as it was (a held connection stays held: whoever holds the run
            // lock gives it back if the session is gone; the diagnostics are the previous
            // statement's, which the request's error then replaces).
            self.put_back_engine(node, engine, was_held);
            return Err(interrupted());
        };
        node.statement_started(self.number, interrupter);
        let result = run(&mut *engine, sink);
        node.statement_ended(self.number);
        self.kill.lock().running = None;
        // An auto-commit sid keeps no state: its USE or schema_name lasts for the request only.
        let schema_change = engine
            .take_session_schema_change()
            .filter(|_| !self.auto_commit);
        let holds_state = engine.holds_session_state();
        let keep = (holds_state || node.engine.sessions_keep_connections())
            && !self.auto_commit
            && !self.is_gone();
        {
            // After the statement, whatever its outcome; again when a transaction that ran one
            // ends, as only then do other sessions see its DDL.
            let mut core = self.core.lock();
            core.warnings = engine.take_session_warnings();
            self.warnings_set.store(true, Ordering::Relaxed);
            if let Some(change) = schema_change {
                core.current_schema = change.map(Arc::from);
            }
            if changes_schema {
                node.plan_shapes.schema_may_have_changed();
                core.schema_dirty |= holds_state;
            } else if core.schema_dirty && !holds_state {
                core.schema_dirty = false;
                node.plan_shapes.schema_may_have_changed();
            }
            if keep {
                core.engine = Some(engine);
            } else {
                drop(core);
                // An auto-commit or removed session cannot keep state: the pool rolls it back
                // (and closes the connection if that fails) before pooling it.
                node.engine.release(engine);
            }
        }
        if holds_state && self.auto_commit && result.is_ok() {
            // BEGIN, START TRANSACTION, SET autocommit = 0 or a temporary table would
            // silently vanish with the pooled session: say so instead of answering OK.
            return Err(SqlError::new(
                &codes::UNSUPPORTED_OPTION,
                "An auto-commit sid keeps no state between requests, so it cannot open a transaction \
                 (BEGIN, START TRANSACTION, SET autocommit = 0) or create a temporary table; the \
                 statement was rolled back. Open a session with SESS_NEW for that",
            ));
        }
        result
    }

    /// Publishes `engine`'s interrupter for kills, after clearing any interrupt left from an
    /// earlier statement, and returns it (for the node's list of running statements); returns
    /// `None`, publishing nothing, if a kill was meant for this request. Under the kill lock, so
    /// a kill either came before (and is judged by its target) or finds the interrupter and lands
    /// on this statement.
    fn register_statement(&self, engine: &dyn EngineConn) -> Option<Arc<dyn Interrupt>> {
        let mut kill = self.kill.lock();
        if kill.target == kill.taken {
            return None;
        }
        let interrupter = engine.interrupter();
        interrupter.clear();
        kill.running = Some(Arc::clone(&interrupter));
        Some(interrupter)
    }

    /// Answers the request with `err` at once, counted in the node's errors; for a request
    /// answered before it runs.
    fn send_error_now<C: SessionConn>(&self, conn: &C, node: &NodeShared, err: &WireError) {
        let mut out = SessionOutput::new(conn, node, self);
        write_error(out.buf(), node.format, self.sid, err);
        node.requests.error(err.code);
        self.request_done();
        let _ = out.finish();
    }
}

impl RegisteredSession for Session {
    fn number(&self) -> u64 {
        self.number
    }

    fn sid(&self) -> u64 {
        self.sid
    }

    fn user(&self) -> Option<&str> {
        Session::user(self)
    }

    fn is_auto_commit(&self) -> bool {
        self.auto_commit
    }

    fn is_gone(&self) -> bool {
        Session::is_gone(self)
    }

    fn take_counted(&self) -> bool {
        Session::take_counted(self)
    }

    fn kill_query(&self) {
        Session::kill_query(self);
    }

    fn kill_connection(&self, conn: &ConnRef, node: &NodeShared) {
        let err = WireError::from_code(&codes::SESSION_KILLED);
        self.send_last_fatal(conn, node, &err);
        self.shut_down(node);
    }
}

/// What a KILL QUERY needs to know about the session's requests; see the module docs.
#[derive(Default)]
struct KillState {
    /// Requests taken from the queue so far: the one being handled, if any, is number `taken`.
    taken: u64,
    /// Whether request `taken` is still being handled.
    handling: bool,
    /// The number of the request the last kill was meant for; 0 before any kill.
    target: u64,
    /// The interrupter of the engine statement running now.
    running: Option<Arc<dyn Interrupt>>,
}

/// The error of a killed statement.
fn interrupted() -> SqlError {
    SqlError::new(&codes::QUERY_INTERRUPTED, codes::QUERY_INTERRUPTED.message)
}

/// What a statement's answer is, from [`Session::execute`].
enum Answer {
    /// It ran: its result went into the sink.
    Now(ExecSummary),
    /// It was submitted: its completion answers and ends the request.
    Later,
}

/// What a session needs to end a request and run again from another worker: itself, its node
/// and its connection, owned.
#[derive(Clone)]
struct Resume {
    session: Arc<Session>,
    node: Arc<NodeShared>,
    conn: ConnRef,
}

impl Resume {
    /// Lets the session run its next request: clears the suspension, then queues the session on
    /// its connection's group if a request waits (or it was removed, so its run releases the
    /// engine), retrying from a timer while the group's queue is full. A request pushed after
    /// the queue was found empty sees the suspension cleared and is run by its receiver.
    fn resume(self) {
        self.session.suspended.store(false, Ordering::SeqCst);
        if self.session.is_gone() || !self.session.queue.lock().is_empty() {
            Self::schedule(&self.conn, self.session.sid);
        }
    }

    fn schedule(conn: &ConnRef, sid: u64) {
        if conn.schedule(UnitId(sid)).is_err() && !conn.is_closed() {
            let group = conn.group().clone();
            let conn = conn.clone();
            group.schedule_timer(RESCHEDULE_RETRY, None, move |_| Self::schedule(&conn, sid));
        }
    }
}

/// The most bytes of a submitted statement's answer buffered for the session (see
/// `OwnedOutput`).
const SUBMITTED_BUFFER: usize = 256 * 1024;

/// The smallest token (KiB) under which a flow-controlled request is submitted; a smaller one
/// runs inline. A submitted statement's rows are read by the worker that reads its backend
/// connection, and when the token runs out that worker waits for the client's TOKEN_OFFER
/// while statements pipelined behind it on that connection wait too. The engine stops placing
/// statements behind one whose result has passed 1 MiB (`xrpc_mysql_proto::Config::
/// large_result_bytes`); with at least that much token, a result that makes its client wait for
/// tokens is always one nothing new is pipelined behind. Clients send 10 MiB by default.
const SUBMIT_MIN_TOKEN_KIB: i32 = 1024;

/// Whether a request with `token` (KiB, -1 for none) may be submitted.
fn submits_under_token(token: i32) -> bool {
    !(0..SUBMIT_MIN_TOKEN_KIB).contains(&token)
}

/// How long a completion waits to schedule its session again when the group's queue is full.
const RESCHEDULE_RETRY: Duration = Duration::from_millis(1);

/// How a statement may be submitted ([`Session::execute`]).
struct SubmitTo<'a> {
    resume: &'a Resume,
    /// The request asks for CHUNK messages.
    chunk: bool,
    kind: Option<StatementKind>,
    /// What a compiled plan's answer needs beyond a statement's.
    plan: Option<PlanAnswer>,
}

/// A submitted plan's answer: its metadata form, its feedback, and whether it was compiled from
/// kept shapes (an engine error they explain must drop them, as on the inline path).
struct PlanAnswer {
    compact: bool,
    fetch_done: Option<pb::resultset::FetchDone>,
    from_kept_shapes: bool,
}

/// A submitted statement's answer in the making: its own output and encoder, and what it needs
/// to end the request on whichever worker reads the answer.
struct Pending {
    resume: Resume,
    encoder: ResultEncoder<OwnedOutput>,
    kind: Option<StatementKind>,
    /// A plan compiled from kept shapes: see [`PlanAnswer`].
    from_kept_shapes: bool,
}

impl Completion for Pending {
    fn sink(&mut self) -> &mut dyn ResultSink {
        &mut self.encoder
    }

    fn done(self: Box<Self>, result: Result<ExecSummary, SqlError>) {
        let Pending {
            resume,
            mut encoder,
            kind,
            from_kept_shapes,
        } = *self;
        if let Err(err) = &result {
            forget_stale_shapes(&resume.node, from_kept_shapes, err);
        }
        let result =
            result.and_then(|summary| encoder.finish_result(&summary).map_err(SqlError::from));
        let mut out = encoder.into_output();
        let session = &resume.session;
        let node = &resume.node;
        session.kill.lock().running = None;
        let rows = out.rows;
        // A drain closes the connections once no statement runs: the answer of the last ones
        // (an interrupted statement's 1317) is written before this statement counts as ended,
        // not left for the end of this worker's turn.
        let draining = node.is_draining();
        session.end_request(node, &mut out, kind, rows, result.map(|_| ()), |out| {
            if !out.failed && !out.buf.is_empty() {
                let _ = session.send_through_gate(|| {
                    let sent = if draining {
                        crate::encode::send_frames(&resume.conn, &out.buf)
                    } else {
                        crate::encode::send_frames_at_turn_end(&resume.conn, &out.buf)
                    };
                    sent.is_ok()
                });
            }
        });
        node.statement_ended(session.number);
        resume.resume();
    }
}

/// The output of a submitted statement: frames accumulate here, up to `SUBMITTED_BUFFER` bytes,
/// and the completion leaves them to the session's next run to send; a larger result goes out
/// through the session's send gate from the reading worker each time that much is buffered.
/// Under flow control the reading worker sends TOKEN_DONE when the token runs out and waits for
/// the client's offer, counted as stalled in its own group (see `SUBMIT_MIN_TOKEN_KIB`).
struct OwnedOutput {
    session: Arc<Session>,
    conn: ConnRef,
    format: xrpc_proto::HeaderFormat,
    buf: Vec<u8>,
    rows: u64,
    failed: bool,
}

impl std::fmt::Debug for OwnedOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedOutput")
            .field("buffered", &self.buf.len())
            .finish()
    }
}

impl OwnedOutput {
    fn send(&mut self) -> Result<(), SinkError> {
        if self.failed {
            self.buf.clear();
            return Err(SinkError::Disconnected);
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        let result = self.session.send_gated(&self.conn, &self.buf, false);
        self.buf.clear();
        result.inspect_err(|_| self.failed = true)
    }
}

impl FrameOutput for OwnedOutput {
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    fn maybe_flush(&mut self) -> Result<(), SinkError> {
        if self.buf.len() >= SUBMITTED_BUFFER {
            self.send()
        } else if self.failed {
            Err(SinkError::Disconnected)
        } else {
            Ok(())
        }
    }

    fn row_done(&mut self, bytes: usize) -> Result<(), SinkError> {
        if self.session.is_gone() {
            return Err(SinkError::Interrupted);
        }
        let Some(left) = self.session.flow.consume(bytes) else {
            return self.maybe_flush();
        };
        write_token_done(&mut self.buf, self.format, self.session.sid, left);
        self.send()?;
        // This worker may belong to another group than the session's connection (the backend
        // socket's); its own group must count it as stalled to keep serving its connections.
        let _stalled = GroupHandle::of_this_worker().map(|group| group.enter_wait());
        let conn = &self.conn;
        self.session
            .flow
            .wait_for_offer(FLOW_POLL, || !conn.is_closed())
    }

    fn row_encoded(&mut self) {
        self.rows += 1;
    }
}

/// Whether a run ended the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// The session is still there.
    Idle,
    /// The session closed (SESS_CLOSE, or the node is draining).
    Closed,
}

/// Converts a StmtExecute argument into a value to bind.
fn value_of_arg(any: &pb::datatypes::Any) -> Result<Value, SqlError> {
    use pb::datatypes::scalar::Type;
    let bad = |what: &str| {
        SqlError::new(
            &codes::WRONG_ARGUMENTS,
            format!("unsupported statement argument: {what}"),
        )
    };
    if any.r#type != pb::datatypes::any::Type::Scalar as i32 {
        return Err(bad("only scalars can be bound"));
    }
    let scalar = any
        .scalar
        .as_ref()
        .ok_or_else(|| bad("SCALAR without a scalar"))?;
    let missing = || bad("scalar without its value");
    Ok(match Type::try_from(scalar.r#type) {
        Ok(Type::VSint) => Value::Sint(scalar.v_signed_int.ok_or_else(missing)?),
        Ok(Type::VUint) => Value::Uint(scalar.v_unsigned_int.ok_or_else(missing)?),
        Ok(Type::VNull) => Value::Null,
        Ok(Type::VOctets) => {
            Value::Bytes(scalar.v_octets.as_ref().ok_or_else(missing)?.value.clone())
        }
        Ok(Type::VDouble) => Value::Double(scalar.v_double.ok_or_else(missing)?),
        Ok(Type::VFloat) => Value::Float(scalar.v_float.ok_or_else(missing)?),
        Ok(Type::VBool) => Value::Sint(i64::from(scalar.v_bool.ok_or_else(missing)?)),
        Ok(Type::VString) => {
            Value::Bytes(scalar.v_string.as_ref().ok_or_else(missing)?.value.clone())
        }
        _ => return Err(bad("placeholders, identifiers and raw strings")),
    })
}

thread_local! {
    /// The output buffer of the request a worker thread runs, kept for its next request: taking
    /// it from the group's page pool and giving it back cost two locks per request. A request
    /// runs on one thread from start to end, so the buffer never leaves it; an output made while
    /// another is open on the thread (none is today) finds the slot empty and allocates its own.
    static SPARE_OUTPUT: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The initial capacity of a request's output buffer.
const OUTPUT_CAPACITY: usize = 4096;
/// A thread keeps its output buffer only up to this capacity (a result with a very long row
/// frees it): `FLUSH_THRESHOLD` plus room for the row that crossed it.
const MAX_SPARE_OUTPUT: usize = 64 * 1024;

/// Where a session's frames go: the narrow view of its connection the session layer needs. The
/// node's connections are `xrpc_net::ConnRef`s; the session's unit tests use an in-memory one.
/// The session layer is generic over it, so the node's path has no dynamic call per frame.
pub trait SessionConn {
    /// Held while the worker blocks (a flow-control wait), so the pool counts it as stalled.
    type Wait;

    /// Sends `frames` now; false if the connection is gone (the send finished it).
    fn send(&self, frames: &[u8]) -> bool;

    /// Sends `frames`, which may wait for the end of the worker's turn to share one write with
    /// other answers on the connection (`xrpc_net::turn`); order with every other send is kept.
    fn send_deferred(&self, frames: &[u8]) -> bool;

    /// Whether the connection is finished.
    fn is_closed(&self) -> bool;

    /// Marks a blocking section of the calling worker until the returned guard drops.
    fn enter_wait(&self) -> Self::Wait;

    /// The engine's lock-wait hook: [`SessionConn::enter_wait`] as a shareable function.
    fn wait_hook(&self) -> WaitHook;
}

impl SessionConn for ConnRef {
    type Wait = xrpc_net::WaitGuard;

    #[inline]
    fn send(&self, frames: &[u8]) -> bool {
        crate::encode::send_frames(self, frames).is_ok()
    }

    #[inline]
    fn send_deferred(&self, frames: &[u8]) -> bool {
        crate::encode::send_frames_deferred(self, frames).is_ok()
    }

    #[inline]
    fn is_closed(&self) -> bool {
        ConnRef::is_closed(self)
    }

    fn enter_wait(&self) -> xrpc_net::WaitGuard {
        self.group().enter_wait()
    }

    fn wait_hook(&self) -> WaitHook {
        let group = self.group().clone();
        Arc::new(move || Box::new(group.enter_wait()))
    }
}

/// A [`SessionConn`] in memory: it keeps every frame sent, in order, until it is closed. The
/// session's unit tests and the server fuzz target drive sessions through it, with no socket and
/// no framework thread; a worker's blocking sections are not counted.
#[derive(Debug, Default)]
pub struct MemoryConn {
    out: Mutex<Vec<u8>>,
    closed: AtomicBool,
}

impl MemoryConn {
    /// Calls `read` with every byte sent so far (under the lock that sends take).
    pub fn with_sent<R>(&self, read: impl FnOnce(&[u8]) -> R) -> R {
        read(&self.out.lock())
    }

    /// Closes the connection: from now on every send fails, as on a finished connection.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }
}

impl SessionConn for MemoryConn {
    type Wait = ();

    fn send(&self, frames: &[u8]) -> bool {
        if self.is_closed() {
            return false;
        }
        self.out.lock().extend_from_slice(frames);
        true
    }

    fn send_deferred(&self, frames: &[u8]) -> bool {
        self.send(frames)
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn enter_wait(&self) {}

    fn wait_hook(&self) -> WaitHook {
        Arc::new(|| Box::new(()))
    }
}

/// A session's output for one request: frames accumulate in the worker thread's buffer and go
/// out under the connection's send lock at `FLUSH_THRESHOLD` and at the end; rows are charged to
/// flow control.
pub struct SessionOutput<'a, C: SessionConn> {
    conn: &'a C,
    node: &'a NodeShared,
    session: &'a Session,
    buf: Vec<u8>,
    failed: bool,
    /// The kind of statement the request runs, once known (for the node's counters).
    kind: Option<StatementKind>,
    /// Result rows encoded into this answer.
    rows: u64,
    /// The request's statement was submitted: its completion answers it.
    suspended: bool,
}

impl<C: SessionConn> std::fmt::Debug for SessionOutput<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOutput")
            .field("buffered", &self.buf.len())
            .finish()
    }
}

impl<'a, C: SessionConn> SessionOutput<'a, C> {
    fn new(conn: &'a C, node: &'a NodeShared, session: &'a Session) -> Self {
        Self {
            conn,
            node,
            session,
            buf: take_output_buffer(),
            failed: false,
            kind: None,
            rows: 0,
            suspended: false,
        }
    }

    /// Sends what is buffered now: mid-result, and before a flow-control wait.
    fn flush(&mut self) -> Result<(), SinkError> {
        self.send(false)
    }

    /// Sends the end of the answer, deferred to the end of the worker's turn so that the answers
    /// of the sessions it runs meanwhile on the connection share one write (`xrpc_net::turn`).
    fn finish(&mut self) -> Result<(), SinkError> {
        self.send(true)
    }

    fn send(&mut self, deferred: bool) -> Result<(), SinkError> {
        if self.failed {
            self.buf.clear();
            return Err(SinkError::Disconnected);
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        let result = self.session.send_gated(self.conn, &self.buf, deferred);
        self.buf.clear();
        result.inspect_err(|_| self.failed = true)
    }
}

impl<C: SessionConn> FrameOutput for SessionOutput<'_, C> {
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    fn row_encoded(&mut self) {
        self.rows += 1;
    }

    fn maybe_flush(&mut self) -> Result<(), SinkError> {
        if self.buf.len() >= FLUSH_THRESHOLD {
            self.flush()
        } else if self.failed {
            Err(SinkError::Disconnected)
        } else {
            Ok(())
        }
    }

    fn row_done(&mut self, bytes: usize) -> Result<(), SinkError> {
        if self.session.is_gone() {
            return Err(SinkError::Interrupted);
        }
        let Some(left) = self.session.flow.consume(bytes) else {
            return self.maybe_flush();
        };
        write_token_done(&mut self.buf, self.node.format, self.session.sid, left);
        self.flush()?;
        // The wait blocks this worker; counting it as stalled lets the pool grow instead of starving.
        let _stalled = self.conn.enter_wait();
        let conn = self.conn;
        self.session
            .flow
            .wait_for_offer(FLOW_POLL, || !conn.is_closed())
    }
}

impl<C: SessionConn> Drop for SessionOutput<'_, C> {
    fn drop(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        if buf.capacity() <= MAX_SPARE_OUTPUT {
            buf.clear();
            // `try_with`: a thread being torn down keeps nothing.
            let _ = SPARE_OUTPUT.try_with(|spare| spare.set(buf));
        }
    }
}

/// The thread's spare output buffer, empty, or a new one.
fn take_output_buffer() -> Vec<u8> {
    let mut buf = SPARE_OUTPUT
        .try_with(|spare| spare.take())
        .unwrap_or_default();
    if buf.capacity() == 0 {
        buf.reserve(OUTPUT_CAPACITY);
    }
    buf
}

/// Runs a compiled plan's statement on `engine` ([`forget_stale_shapes`] after an error).
fn run_compiled(
    node: &NodeShared,
    engine: &mut dyn EngineConn,
    prepared: &crate::plan::catalog::PreparedPlan,
    sink: &mut dyn ResultSink,
) -> Result<ExecSummary, SqlError> {
    let result = execute_on(
        engine,
        &prepared.compiled.sql,
        None,
        &prepared.args,
        None,
        sink,
    );
    if let Err(err) = &result {
        forget_stale_shapes(node, prepared.used_cache, err);
    }
    result
}

/// After a plan's statement failed: an error a stale kept shape or compiled plan explains
/// (the table or a column went away behind it) drops the kept shapes, so the next request
/// reads them again.
fn forget_stale_shapes(node: &NodeShared, from_kept_shapes: bool, err: &SqlError) {
    if from_kept_shapes
        && (err.code == codes::BAD_FIELD.code || err.code == codes::NO_SUCH_TABLE.code)
    {
        node.plan_shapes.schema_may_have_changed();
    }
}

/// Runs `sql` on `engine`, with its parse (`script`) when the front end read it.
///
/// Fail point `xrpc_engine_execute` (feature `failpoints`): the statement fails with 1105 before
/// the engine sees it, as an engine error would.
fn execute_on(
    engine: &mut dyn EngineConn,
    sql: &str,
    script: Option<&xrpc_sql::Script>,
    args: &[Value],
    schema: Option<&str>,
    sink: &mut dyn ResultSink,
) -> Result<ExecSummary, SqlError> {
    fail::fail_point!("xrpc_engine_execute", |_| Err(SqlError::new(
        &codes::ENGINE_ERROR,
        "fail point xrpc_engine_execute"
    )));
    match script {
        Some(script) => engine.execute_parsed(sql, script, args, schema, sink),
        None => engine.execute(sql, args, schema, sink),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queued(session: &Session, requests: usize) {
        for _ in 0..requests {
            let request = Request::Sql(Box::default());
            assert!(!matches!(session.push(request, 16), Pushed::Gone(_)));
        }
    }

    /// `is_killed` reads a mirror of the kill state rather than taking the kill lock: it must say
    /// what the kill state says at every step a kill can land on.
    #[test]
    fn the_lock_free_kill_check_follows_the_kill_state() {
        let session = Session::new(1, 1, false);

        // A kill of a queued request is seen once that request is taken, and by it only.
        queued(&session, 2);
        session.kill_query();
        assert!(session.take_request().is_some());
        assert!(session.is_killed(), "the request the kill was meant for");
        session.request_done();
        assert!(session.take_request().is_some());
        assert!(!session.is_killed(), "the request queued behind it");

        // A kill of the request being handled is seen at once.
        session.kill_query();
        assert!(session.is_killed(), "the request being handled");
        session.request_done();

        // A kill while the session is idle reaches no later request.
        session.kill_query();
        queued(&session, 1);
        assert!(session.take_request().is_some());
        assert!(!session.is_killed(), "a request received after the kill");
        session.request_done();

        // After a kill of the running request, a kill of a queued one clears the mirror until
        // that request is taken.
        queued(&session, 1);
        assert!(session.take_request().is_some());
        session.kill_query();
        assert!(session.is_killed());
        session.request_done();
        queued(&session, 1);
        session.kill_query();
        assert!(!session.is_killed(), "nothing is being handled");
        assert!(session.take_request().is_some());
        assert!(
            session.is_killed(),
            "the queued request the kill was meant for"
        );
    }

    /// The session state machine driven in memory: a connection that records every frame the
    /// session sends, a node on a SQLite engine in a temporary directory, and requests pushed
    /// and run as the receive path pushes and runs them. No socket, no framework thread.
    mod in_memory {
        use std::time::{Duration, Instant};

        use bytes::Bytes;
        use xrpc_proto::messages::ServerMessage;
        use xrpc_proto::{FrameConfig, FrameDecoder, HeaderFormat};

        use super::*;
        use crate::auth::Accounts;
        use crate::cache::RequestCache;
        use crate::engine::sqlite::{SqliteEngine, SqliteOptions};
        use crate::var_store::Variables;

        const SID: u64 = 7;

        impl MemoryConn {
            /// Every message sent so far.
            fn messages(&self) -> Vec<ServerMessage> {
                let mut decoder =
                    FrameDecoder::new(FrameConfig::new(HeaderFormat::Standard, 64 << 20).unwrap());
                self.with_sent(|out| decoder.feed(out));
                let mut messages = Vec::new();
                while let Some(frame) = decoder.next_frame().unwrap() {
                    assert_eq!(frame.sid, SID);
                    messages.push(ServerMessage::decode(frame.type_id, frame.body).unwrap());
                }
                messages
            }

            /// Waits (bounded) until a message of type `name` was sent.
            fn wait_for(&self, name: &str) {
                let deadline = Instant::now() + Duration::from_secs(10);
                while !self
                    .messages()
                    .iter()
                    .any(|m| m.message_type().name() == name)
                {
                    assert!(Instant::now() < deadline, "no {name} within 10 s");
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }

        fn node(dir: &tempfile::TempDir) -> NodeShared {
            let engine =
                SqliteEngine::open(&dir.path().join("xrpc.db"), SqliteOptions::default()).unwrap();
            NodeShared::new(
                Arc::new(engine),
                RequestCache::default(),
                Accounts::new(Vec::new()),
                Arc::new(Variables::new()),
                HeaderFormat::Standard,
            )
        }

        fn sql_with(text: &str, edit: impl FnOnce(&mut pb::sql::StmtExecute)) -> Request {
            let mut stmt = pb::sql::StmtExecute {
                stmt: Some(Bytes::copy_from_slice(text.as_bytes())),
                ..Default::default()
            };
            edit(&mut stmt);
            Request::Sql(Box::new(stmt))
        }

        fn sql(text: &str) -> Request {
            sql_with(text, |_| {})
        }

        fn push(session: &Session, request: Request) {
            assert!(matches!(
                session.push(request, 16),
                Pushed::Runnable | Pushed::Queued
            ));
        }

        /// What each request got, in order: its rows' first fields (as sent: text with the X
        /// Protocol's trailing NUL), or its error code.
        fn answers(messages: &[ServerMessage]) -> Vec<Result<Vec<Vec<u8>>, u32>> {
            let mut answers = Vec::new();
            let mut rows = Vec::new();
            for message in messages {
                match message {
                    ServerMessage::Row(row) => rows.push(row.field[0].to_vec()),
                    ServerMessage::StmtExecuteOk(_) | ServerMessage::Ok(_) => {
                        answers.push(Ok(std::mem::take(&mut rows)));
                    }
                    ServerMessage::Error(err) => {
                        rows.clear();
                        answers.push(Err(err.code));
                    }
                    _ => {}
                }
            }
            answers
        }

        fn text_rows(values: &[&str]) -> Result<Vec<Vec<u8>>, u32> {
            Ok(values
                .iter()
                .map(|v| format!("{v}\0").into_bytes())
                .collect())
        }

        #[test]
        fn queued_requests_are_answered_in_order() {
            let dir = tempfile::tempdir().unwrap();
            let node = node(&dir);
            let conn = MemoryConn::default();
            let session = Session::new(SID, 1, false);
            for text in ["select 'a'", "select 'b'", "select 'c'"] {
                push(&session, sql(text));
            }
            assert!(matches!(session.run(&conn, &node), RunOutcome::Idle));
            assert_eq!(
                answers(&conn.messages()),
                [text_rows(&["a"]), text_rows(&["b"]), text_rows(&["c"])]
            );
        }

        #[test]
        fn an_error_cascades_to_requests_that_keep_it() {
            let dir = tempfile::tempdir().unwrap();
            let node = node(&dir);
            let conn = MemoryConn::default();
            let session = Session::new(SID, 1, false);
            push(&session, sql("select * from no_such_table"));
            push(
                &session,
                sql_with("select 'kept'", |s| s.reset_error = Some(false)),
            );
            push(&session, sql("select 'reset'"));
            session.run(&conn, &node);
            assert_eq!(
                answers(&conn.messages()),
                [
                    Err(codes::NO_SUCH_TABLE.code),
                    Err(codes::NO_SUCH_TABLE.code),
                    text_rows(&["reset"])
                ]
            );
        }

        #[test]
        fn a_kill_stops_the_oldest_unanswered_request_only() {
            let dir = tempfile::tempdir().unwrap();
            let node = node(&dir);
            let conn = MemoryConn::default();
            let session = Session::new(SID, 1, false);
            push(&session, sql("select 'first'"));
            push(&session, sql("select 'second'"));
            session.kill_query();
            session.run(&conn, &node);
            assert_eq!(
                answers(&conn.messages()),
                [Err(codes::QUERY_INTERRUPTED.code), text_rows(&["second"])]
            );
        }

        /// Rows 1..=n, enough to spend a zero token budget on the first one.
        const COUNTED: &str = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 50) select x from c";

        #[test]
        fn a_spent_budget_waits_for_the_offer_and_then_finishes() {
            let dir = tempfile::tempdir().unwrap();
            let node = node(&dir);
            let conn = MemoryConn::default();
            let session = Session::new(SID, 1, false);
            push(&session, sql_with(COUNTED, |s| s.token = Some(0)));
            std::thread::scope(|scope| {
                let runner = scope.spawn(|| session.run(&conn, &node));
                conn.wait_for("RESULTSET_TOKEN_DONE");
                session.offer_tokens(1024);
                runner.join().unwrap();
            });
            let messages = conn.messages();
            let rows = messages
                .iter()
                .filter(|m| matches!(m, ServerMessage::Row(_)))
                .count();
            assert_eq!(
                (rows, messages.last().map(|m| m.message_type().name())),
                (50, Some("SQL_STMT_EXECUTE_OK"))
            );
        }

        #[test]
        fn a_kill_ends_a_flow_control_wait_with_1317() {
            let dir = tempfile::tempdir().unwrap();
            let node = node(&dir);
            let conn = MemoryConn::default();
            let session = Session::new(SID, 1, false);
            push(&session, sql_with(COUNTED, |s| s.token = Some(0)));
            push(&session, sql("select 'after'"));
            std::thread::scope(|scope| {
                let runner = scope.spawn(|| session.run(&conn, &node));
                conn.wait_for("RESULTSET_TOKEN_DONE");
                session.kill_query();
                runner.join().unwrap();
            });
            assert_eq!(
                answers(&conn.messages()),
                [Err(codes::QUERY_INTERRUPTED.code), text_rows(&["after"])]
            );
        }

        #[test]
        fn close_answers_after_earlier_requests_and_ends_the_session() {
            let dir = tempfile::tempdir().unwrap();
            let node = node(&dir);
            let conn = MemoryConn::default();
            let session = Session::new(SID, 1, false);
            push(&session, sql("select 'before'"));
            push(&session, Request::Close);
            let outcome = session.run(&conn, &node);
            let names: Vec<_> = conn
                .messages()
                .iter()
                .map(|m| m.message_type().name())
                .collect();
            assert_eq!(
                (
                    matches!(outcome, RunOutcome::Closed),
                    answers(&conn.messages()),
                    names.last().copied(),
                    matches!(session.push(sql("select 1"), 16), Pushed::Gone(_)),
                ),
                (
                    true,
                    vec![text_rows(&["before"]), Ok(Vec::new())],
                    Some("OK"),
                    true
                )
            );
        }
    }
}
