//! The per-session state machine of the client core: a session's requests in flight and held
//! back, and what each server reply does to the request at the head.
//!
//! [`ClientConnection`](super::ClientConnection) owns the session table and the connection-wide
//! state ([`Shared`]); it routes every frame on a sid here. A [`Session`] keeps its requests in the
//! order the server runs them (see the [module docs of `proto`](super) for the rules: SESS_NEW
//! riding with the first request, cascading errors, digest-only sends holding later requests,
//! timeouts killing the head); an [`Exec`] assembles one statement's replies into its result and
//! keeps its flow-control budget.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use xrpc_proto::codes;
use xrpc_proto::messages::pb::{exec_plan, session as pb_session, sql};
use xrpc_proto::messages::{ClientMessage, ServerMessage, ServerType};

use super::result::ResultBuilder;
use super::stmt::{Digest, TxEffect};
use super::{Event, Shared};
use crate::error::{ClientError, ServerError};
use crate::types::{Column, ExecResult, KillKind, RequestId, SessionId};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Open {
    /// Nothing sent yet: SESS_NEW goes out with the first request.
    Unsent,
    /// SESS_NEW sent; the server's OK has not arrived.
    Sent,
    /// Open (auto-commit sids start here).
    Confirmed,
}

#[derive(Debug)]
pub(super) struct Session {
    pub(super) auto_commit: bool,
    pub(super) open: Open,
    /// SESS_CLOSE is queued; no more requests.
    pub(super) closing: bool,
    /// Sent, in order; the head is the one the server answers.
    pub(super) inflight: VecDeque<Request>,
    /// Issued but held back behind a digest-only request awaiting its first reply.
    pub(super) held: VecDeque<Request>,
    pub(super) holding: bool,
    /// The last request issued was fire-and-forget: the next one carries `reset_error = false`.
    pub(super) ff_chain: bool,
    pub(super) last_error: Option<ClientError>,
    pub(super) in_tx: bool,
    pub(super) autocommit_off: bool,
}

#[derive(Debug)]
pub(super) struct Request {
    pub(super) id: RequestId,
    pub(super) body: Body,
    pub(super) deadline: Option<(Instant, Duration)>,
    /// Failed with a timeout already; its replies are consumed silently.
    pub(super) timed_out: bool,
    pub(super) kill_sent: bool,
}

#[derive(Debug)]
pub(super) enum Body {
    Exec(Box<Exec>),
    Close,
}

#[derive(Debug)]
pub(super) struct Exec {
    /// The full message, `stmt` included; a digest-only send takes `stmt` out for the encoding.
    /// Unused (default) for a plan.
    pub(super) msg: sql::StmtExecute,
    /// EXEC_PLAN_READ instead of EXEC_SQL: the plan request, sent whole (never digest-only).
    pub(super) plan: Option<Box<exec_plan::ExecPlan>>,
    pub(super) digest: Option<Digest>,
    pub(super) digest_only: bool,
    pub(super) fire_and_forget: bool,
    pub(super) stream: bool,
    pub(super) tx: TxEffect,
    pub(super) builder: ResultBuilder,
    pub(super) replied: bool,
    /// Flow-control budget in KiB, if any.
    pub(super) token: Option<u32>,
    /// Reply bytes since the last offer.
    pub(super) used: u64,
    pub(super) offer_owed: bool,
    /// Bytes of the row messages whose rows have not been moved to the stream yet.
    pub(super) row_bytes: usize,
}

/// One reply on a session: a decoded message, or a column whose `ColumnMetaData` body the
/// connection has decoded before (see `Shared::cached_column`), which skips decoding it again.
pub(super) enum Reply {
    Message(ServerMessage),
    Column(Column),
}

impl Reply {
    fn message_type(&self) -> ServerType {
        match self {
            Reply::Message(m) => m.message_type(),
            Reply::Column(_) => ServerType::ColumnMetaData,
        }
    }
}

/// What one reply did to the head request.
pub(super) enum Step {
    Continue,
    Done(Result<ExecResult, ClientError>),
    Resend,
}

impl Session {
    pub(super) fn new(auto_commit: bool) -> Self {
        Self {
            auto_commit,
            open: if auto_commit {
                Open::Confirmed
            } else {
                Open::Unsent
            },
            closing: false,
            inflight: VecDeque::new(),
            held: VecDeque::new(),
            holding: false,
            ff_chain: false,
            last_error: None,
            in_tx: false,
            autocommit_off: false,
        }
    }

    /// Takes a new request in issue order: fixes its `reset_error` and sends or holds it.
    pub(super) fn enqueue(&mut self, sid: u64, mut request: Request, s: &mut Shared) {
        if let Body::Exec(exec) = &mut request.body {
            if self.ff_chain {
                exec.msg.reset_error = Some(false);
                if let Some(plan) = &mut exec.plan {
                    plan.reset_error = Some(false);
                }
            }
            self.ff_chain = exec.fire_and_forget;
            match exec.tx {
                // Dirty from the moment it is issued, whatever the outcome.
                TxEffect::Begin => self.in_tx = true,
                TxEffect::AutocommitOff => self.autocommit_off = true,
                TxEffect::None | TxEffect::End | TxEffect::AutocommitOn => {}
            }
        }
        if self.holding {
            self.held.push_back(request);
        } else {
            self.transmit(sid, request, s);
        }
    }

    pub(super) fn transmit(&mut self, sid: u64, mut request: Request, s: &mut Shared) {
        if self.open == Open::Unsent {
            s.send(sid, &ClientMessage::NewSession(pb_session::NewSession {}));
            self.open = Open::Sent;
        }
        match &mut request.body {
            Body::Close => s.send(sid, &ClientMessage::SessionClose(pb_session::Close {})),
            Body::Exec(exec) => {
                let digest_only = exec
                    .digest
                    .is_some_and(|d| s.digests.contains(&d) && self.inflight.is_empty());
                if digest_only {
                    exec.digest_only = true;
                    self.holding = true;
                    let stmt = exec.msg.stmt.take();
                    s.send_exec(sid, &exec.msg);
                    exec.msg.stmt = stmt;
                } else {
                    send_full(sid, exec, s);
                }
            }
        }
        self.inflight.push_back(request);
    }

    /// Handles one reply; returns whether the session is gone.
    pub(super) fn on_message(
        &mut self,
        sid: u64,
        reply: Reply,
        wire_len: usize,
        s: &mut Shared,
    ) -> bool {
        if let Reply::Message(ServerMessage::Error(err)) = &reply {
            let err = ServerError::from_pb(err);
            if err.is_fatal() {
                let reason = format!("the server ended {}: {err}", SessionId(sid));
                return self.end(sid, ClientError::session_closed(reason, Some(err)), s);
            }
        }
        if self.open == Open::Sent {
            self.open = Open::Confirmed;
            match reply {
                Reply::Message(ServerMessage::Ok(_)) => return false,
                Reply::Message(ServerMessage::Error(err)) => {
                    let err = ServerError::from_pb(&err);
                    let reason = format!("the server refused {}: {err}", SessionId(sid));
                    return self.end(sid, ClientError::session_closed(reason, Some(err)), s);
                }
                other => {
                    let reason = format!(
                        "the first reply on {} was {} instead of OK",
                        SessionId(sid),
                        other.message_type()
                    );
                    return self.end(sid, ClientError::protocol(reason), s);
                }
            }
        }
        let Some(head) = self.inflight.front_mut() else {
            // Nothing is waiting: a stray reply, which has nobody to go to.
            return false;
        };
        let id = head.id;
        let step = match &mut head.body {
            Body::Close => {
                return match reply {
                    Reply::Message(ServerMessage::Ok(_)) => {
                        let head = self.inflight.pop_front().expect("head exists");
                        let _ = head;
                        self.fail_all(sid, &ClientError::session_closed("closed", None), s);
                        s.events.push_back(Event::SessionClosed {
                            sid: SessionId(sid),
                            error: None,
                        });
                        true
                    }
                    Reply::Message(ServerMessage::Error(err)) => {
                        let err = ServerError::from_pb(&err);
                        let reason = format!("closing {} failed: {err}", SessionId(sid));
                        self.end(sid, ClientError::session_closed(reason, Some(err)), s)
                    }
                    _ => false,
                };
            }
            Body::Exec(exec) => exec.on_message(reply, wire_len),
        };
        match step {
            Step::Continue => {
                let Body::Exec(exec) = &mut head.body else {
                    unreachable!("close handled above")
                };
                let first_reply = !exec.replied;
                exec.replied = true;
                if exec.stream && !exec.builder.rows.is_empty() {
                    if let Some(buf) = s.streams.get_mut(&id) {
                        if buf.columns.is_empty() {
                            buf.columns = exec.builder.columns().to_vec();
                        }
                        buf.rows.extend(exec.builder.rows.drain(..));
                        buf.unread_bytes += exec.row_bytes;
                        if !buf.notified {
                            buf.notified = true;
                            s.events.push_back(Event::RowsReady {
                                sid: SessionId(sid),
                                id,
                            });
                        }
                    } else {
                        exec.builder.rows.clear();
                    }
                    exec.row_bytes = 0;
                } else if head.timed_out {
                    exec.builder.rows.clear();
                }
                let auto_commit = self.auto_commit;
                s.maybe_offer(sid, id, exec, auto_commit);
                let release = first_reply && exec.digest_only;
                if release {
                    self.release_held(sid, s);
                }
                false
            }
            Step::Resend => {
                let Body::Exec(exec) = &mut head.body else {
                    unreachable!("close handled above")
                };
                // Same request, now in full; it stays at the head, and nothing was sent behind it.
                exec.digest_only = false;
                exec.replied = false;
                exec.used = 0;
                exec.offer_owed = false;
                exec.builder = ResultBuilder::default();
                send_full(sid, exec, s);
                self.release_held(sid, s);
                false
            }
            Step::Done(result) => {
                let request = self.inflight.pop_front().expect("head exists");
                let Body::Exec(exec) = &request.body else {
                    unreachable!("close handled above")
                };
                match &result {
                    Ok(_) => {
                        self.last_error = None;
                        match exec.tx {
                            TxEffect::End => self.in_tx = false,
                            TxEffect::AutocommitOn => {
                                self.in_tx = false;
                                self.autocommit_off = false;
                            }
                            TxEffect::None | TxEffect::Begin | TxEffect::AutocommitOff => {}
                        }
                    }
                    Err(err) => self.last_error = Some(err.clone()),
                }
                let was_digest_only = exec.digest_only && !exec.replied;
                s.complete(sid, &request, result);
                if was_digest_only {
                    self.release_held(sid, s);
                }
                self.kill_timed_out_head(sid, s);
                self.auto_commit && self.inflight.is_empty() && self.held.is_empty()
            }
        }
    }

    pub(super) fn release_held(&mut self, sid: u64, s: &mut Shared) {
        self.holding = false;
        while !self.holding {
            let Some(request) = self.held.pop_front() else {
                break;
            };
            self.transmit(sid, request, s);
        }
    }

    /// A request that timed out while queued is killed once it is the one running.
    pub(super) fn kill_timed_out_head(&mut self, sid: u64, s: &mut Shared) {
        if self.auto_commit {
            return;
        }
        if let Some(head) = self.inflight.front_mut()
            && head.timed_out
            && !head.kill_sent
        {
            head.kill_sent = true;
            s.send_kill(sid, KillKind::Query);
        }
    }

    /// Ends the session with `err`; returns `true` (the session is gone).
    pub(super) fn end(&mut self, sid: u64, err: ClientError, s: &mut Shared) -> bool {
        self.fail_all(sid, &err, s);
        s.events.push_back(Event::SessionClosed {
            sid: SessionId(sid),
            error: Some(err),
        });
        true
    }

    pub(super) fn fail_all(&mut self, sid: u64, err: &ClientError, s: &mut Shared) {
        for request in self.inflight.drain(..).chain(self.held.drain(..)) {
            s.streams.remove(&request.id);
            if matches!(request.body, Body::Close) {
                if let Some((deadline, _)) = request.deadline {
                    s.deadlines.remove(&(deadline, request.id.0, sid));
                }
                continue;
            }
            s.complete(sid, &request, Err(err.clone()));
        }
    }
}

pub(super) fn send_full(sid: u64, exec: &mut Exec, s: &mut Shared) {
    if let Some(d) = exec.digest {
        if s.digests.len() >= s.config.digest_capacity {
            s.digests.clear();
        }
        s.digests.insert(d);
    }
    match &exec.plan {
        Some(plan) => s.send_plan(sid, plan),
        None => s.send_exec(sid, &exec.msg),
    }
}

impl Exec {
    pub(super) fn on_message(&mut self, reply: Reply, wire_len: usize) -> Step {
        self.used += wire_len as u64;
        let message = match reply {
            Reply::Column(column) => {
                self.builder.push_column(column);
                return Step::Continue;
            }
            Reply::Message(message) => message,
        };
        match message {
            ServerMessage::ColumnMetaData(meta) => self.builder.column(&meta),
            ServerMessage::Row(row) => {
                self.row_bytes += wire_len;
                self.builder.row(&row);
            }
            ServerMessage::Chunk(chunk) => {
                self.row_bytes += wire_len;
                self.builder.chunk(&chunk);
            }
            ServerMessage::FetchDone(_) | ServerMessage::FetchSuspended(_) => {
                self.builder.fetch_done();
            }
            ServerMessage::FetchDoneMoreResultsets(_)
            | ServerMessage::FetchDoneMoreOutParams(_) => {
                self.builder.more_resultsets();
            }
            ServerMessage::Notice(frame) => self.builder.notice(&frame),
            ServerMessage::TokenDone(_) => self.offer_owed = true,
            ServerMessage::StmtExecuteOk(_) => {
                return Step::Done(std::mem::take(&mut self.builder).finish());
            }
            ServerMessage::Error(err) => {
                let err = ServerError::from_pb(&err);
                if err.code() == codes::SQL_CACHE_MISS.code
                    && self.digest_only
                    && !self.replied
                    && !self.builder.has_metadata()
                {
                    return Step::Resend;
                }
                return Step::Done(Err(ClientError::server_error(err)));
            }
            // Connection-level replies on a session sid answer nothing this request asked.
            _ => {}
        }
        Step::Continue
    }
}
