//! What both transports share: the core behind its lock, the request slots, and the step that
//! turns the core's events into wake-ups.
//!
//! A transport calls [`Driven::drain`] with the lock held, right after any input to the core, and
//! [`deliver`] once the lock is released, so woken callers never contend for a lock the waker
//! still holds.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::ClientError;
use crate::proto::{ClientConnection, Event};
use crate::types::{ExecResult, RequestId};
use crate::waiter::Waiter;

/// A request's outcome, as its waiter receives it.
pub(crate) type Reply = Result<ExecResult, ClientError>;

/// The core and the slots of the requests issued on it, under one lock.
#[derive(Debug)]
pub(crate) struct Driven {
    pub(crate) core: ClientConnection,
    pub(crate) waiters: HashMap<RequestId, Arc<Waiter<Reply>>>,
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
