//! What both transports share: the core behind its lock, the request slots, and the step that
//! turns the core's events into wake-ups.
//!
//! A transport calls [`Driven::drain`] with the lock held, right after any input to the core, and
//! [`deliver`] once the lock is released, so woken callers never contend for a lock the waker
//! still holds.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use bytes::Bytes;

use crate::error::ClientError;
use crate::proto::{ClientConnection, Event};
use crate::types::{ExecOptions, ExecResult, Param, RequestId, SessionId};
use crate::waiter::Waiter;

/// A request's outcome, as its waiter receives it.
pub(crate) type Reply = Result<ExecResult, ClientError>;

/// The core and the slots of the requests issued on it, under one lock.
#[derive(Debug)]
pub(crate) struct Driven {
    pub(crate) core: ClientConnection,
    pub(crate) waiters: HashMap<RequestId, Arc<Waiter<Reply>>>,
}

/// One statement of a pipeline: its text, its arguments, and whether its result is read back.
pub(crate) type PipelineItem = (String, Vec<Param>, bool);

/// The requests of a pipeline whose results are read back, in order, with their deadlines.
pub(crate) type PipelinePending = VecDeque<(Arc<Waiter<Reply>>, Option<Instant>)>;

/// A request just issued: its id, its slot, and when to fire the core's timers for it.
#[derive(Debug)]
pub(crate) struct Issued {
    pub(crate) id: RequestId,
    pub(crate) waiter: Arc<Waiter<Reply>>,
    pub(crate) deadline: Option<Instant>,
}

/// A wake-up to deliver once the lock is released.
#[derive(Debug)]
pub(crate) enum Wake {
    Done(Arc<Waiter<Reply>>, Reply),
    Rows(Arc<Waiter<Reply>>),
    Handshake(Result<(), ClientError>),
}

impl Driven {
    pub(crate) fn new(core: ClientConnection) -> Self {
        Self {
            core,
            waiters: HashMap::new(),
        }
    }

    /// Issues one statement on `sid` and registers its waiter.
    pub(crate) fn issue(
        &mut self,
        sid: SessionId,
        sql: &str,
        args: &[Param],
        opts: &ExecOptions,
        now: Instant,
    ) -> Result<Issued, ClientError> {
        let id = self
            .core
            .execute(sid, Bytes::copy_from_slice(sql.as_bytes()), args, opts, now)?;
        let waiter = Arc::new(Waiter::new());
        self.waiters.insert(id, Arc::clone(&waiter));
        Ok(Issued {
            id,
            waiter,
            deadline: opts.timeout.map(|t| now + t),
        })
    }

    /// Issues every statement of a pipeline on `sid` and registers a waiter for each one whose
    /// result is read back. Both transports send the pipeline with one write afterwards.
    pub(crate) fn issue_pipeline(
        &mut self,
        sid: SessionId,
        items: &[PipelineItem],
        base: &ExecOptions,
        now: Instant,
    ) -> Result<PipelinePending, ClientError> {
        let mut pending = VecDeque::with_capacity(items.len());
        for (sql, args, fire_and_forget) in items {
            let opts = ExecOptions {
                fire_and_forget: *fire_and_forget,
                ..base.clone()
            };
            let id = self.core.execute(
                sid,
                Bytes::copy_from_slice(sql.as_bytes()),
                args,
                &opts,
                now,
            )?;
            if !fire_and_forget {
                let waiter = Arc::new(Waiter::new());
                self.waiters.insert(id, Arc::clone(&waiter));
                pending.push_back((waiter, opts.timeout.map(|t| now + t)));
            }
        }
        Ok(pending)
    }

    /// Turns the core's pending events into wake-ups; sets `broken` when the connection is lost.
    pub(crate) fn drain(&mut self, broken: &AtomicBool) -> Vec<Wake> {
        let mut wakes = Vec::new();
        while let Some(event) = self.core.poll_event() {
            match event {
                Event::Completed { id, result, .. } => {
                    // No waiter: nobody waits for it any more (a dropped pipeline or future).
                    if let Some(waiter) = self.waiters.remove(&id) {
                        wakes.push(Wake::Done(waiter, result));
                    }
                }
                Event::RowsReady { id, .. } => {
                    if let Some(waiter) = self.waiters.get(&id) {
                        wakes.push(Wake::Rows(Arc::clone(waiter)));
                    }
                }
                Event::Authenticated => wakes.push(Wake::Handshake(Ok(()))),
                Event::AuthFailed(err) => wakes.push(Wake::Handshake(Err(err))),
                Event::ConnectionLost(err) => {
                    broken.store(true, Ordering::Release);
                    wakes.push(Wake::Handshake(Err(err)));
                }
                Event::SessionClosed { .. } => {}
            }
        }
        wakes
    }
}

/// Delivers wake-ups; call without the lock.
pub(crate) fn deliver(wakes: Vec<Wake>, handshake: &Waiter<Result<(), ClientError>>) {
    for wake in wakes {
        match wake {
            Wake::Done(waiter, result) => waiter.complete(result),
            Wake::Rows(waiter) => waiter.signal_rows(),
            Wake::Handshake(result) => handshake.complete(result),
        }
    }
}
