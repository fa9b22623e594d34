//! Sends deferred to the end of a worker's turn: many small answers, one `sendmsg`.
//!
//! At high concurrency one read brings hundreds of requests for one connection, and the worker then
//! runs their sessions one after another. If each session wrote its answer with its own `sendmsg`,
//! the system call and the loopback TCP transmit behind it would be most of the node's CPU per
//! request (about half of it in a profile of `select 1` at 1024 clients over 4 connections). So a
//! session's *final* flush of an answer ([`crate::ConnRef::send_deferred`]) only
//! appends the bytes to its connection's deferred output, under the send lock, and notes the
//! connection in this thread's list; the worker writes every noted connection's deferred output,
//! each with one vectored write, when its turn ends.
//!
//! # When a turn ends (when deferred bytes are written)
//!
//! - before the worker waits for events (`epoll_wait`, or the eventfd), so no answer waits for the
//!   next event;
//! - after every [`FLUSH_EVERY_TASKS`] tasks run from the queue, so a long queue does not hold the
//!   first answers back until the last task ran;
//! - when the worker enters a blocking section ([`crate::GroupHandle::enter_wait`]: a lock wait,
//!   a flow-control wait, I/O to an engine) and when a handler calls [`crate::flush_deferred_sends`]
//!   (the server does from SQLite's progress callback, so a long statement does not hold back the
//!   answers of the sessions run before it);
//! - when a connection's deferred output reaches [`DEFER_MAX_BYTES`] (written at once by the
//!   sender), and when the worker exits.
//!
//! # Order
//!
//! Deferred bytes sit under the connection's send lock, in the order they were appended, and
//! every immediate send ([`crate::ConnRef::send`], `send_vectored`, `send_pages`) writes the
//! deferred bytes first, under the same lock hold. So the bytes reach the socket in exactly the
//! order their sends were called, whichever thread writes them: a session's answers stay in
//! request order even when its next request runs on another worker, and an immediate FATAL never
//! overtakes an answer deferred before it. Only the *moment* of the write moves, never within a
//! turn past its end.
//!
//! # Kicks of outbound sockets
//!
//! The same holds for the other direction: a worker that queues output for an outbound socket
//! (a statement for a backend) may kick it at the end of its turn
//! ([`crate::OutboundSocket::kick_at_turn_end`]); each socket kicked in a turn is driven once,
//! before the deferred client output is written (the kick's pass may hand out answers that add
//! to it), so the statements of a turn reach the other server in one write.
//!
//! # Where deferral applies
//!
//! Only on the framework's worker threads, which run the flush points above. On any other thread
//! (a test, the shutdown path) `send_deferred` writes at once. The group counts connections with
//! deferred bytes, and a graceful shutdown waits for that count to reach zero like it waits for
//! running units, so no answer is lost between the end of a unit and the end of its turn.

use std::cell::{Cell, RefCell};

use std::sync::Arc;

/// A connection with output deferred to the end of the turn, as this module holds it (the
/// connection type is `conn`'s, which sends through this module).
pub(crate) trait DeferredOutput: Send + Sync {
    /// Writes the bytes deferred on the connection. A failed write has finished that
    /// connection; the others are unaffected.
    fn write_deferred(self: Arc<Self>);
}

/// An outbound socket kicked at the end of the turn, as this module holds it (the socket type is
/// the group's, which drives the turn).
pub(crate) trait Kick: Send + Sync {
    /// Drives the socket on this thread.
    fn kick(&self);
    /// Whether two kicks are one socket.
    fn addr(&self) -> *const ();
}

/// Tasks a worker runs from its queue between two writes of its deferred output.
pub const FLUSH_EVERY_TASKS: usize = 64;
/// A connection's deferred output is written at once when it reaches this size (16 pages).
pub const DEFER_MAX_BYTES: usize = 64 * 1024;
/// More connections noted than this in one turn: the list is written out early (bounds the list).
const MAX_NOTED: usize = 256;

thread_local! {
    /// Whether this thread is a worker that runs the flush points (set for its whole life).
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// Connections this thread deferred bytes on since its last flush.
    static NOTED: RefCell<Vec<Arc<dyn DeferredOutput>>> = const { RefCell::new(Vec::new()) };
    /// Outbound sockets kicked on this thread since its last flush, each once.
    static KICKS: RefCell<Vec<Arc<dyn Kick>>> = const { RefCell::new(Vec::new()) };
}

/// Notes a kick of `socket` for the end of the turn (`OutboundSocket::kick_at_turn_end`).
pub(crate) fn note_kick(socket: Arc<dyn Kick>) {
    KICKS.with(|kicks| {
        let mut kicks = kicks.borrow_mut();
        if !kicks.iter().any(|k| k.addr() == socket.addr()) {
            kicks.push(socket);
        }
    });
}

/// Kicks the sockets noted this turn. A kick's pass may note more (a completion that submits
/// again); they are kicked too before this returns.
fn kick_noted() {
    loop {
        let kicks = KICKS.with(|kicks| std::mem::take(&mut *kicks.borrow_mut()));
        if kicks.is_empty() {
            return;
        }
        for socket in kicks {
            socket.kick();
        }
    }
}

/// Marks the calling thread as a worker whose sends may be deferred.
pub(crate) fn enable() {
    ACTIVE.with(|a| a.set(true));
}

/// Whether sends on this thread may be deferred.
pub(crate) fn is_active() -> bool {
    ACTIVE.with(Cell::get)
}

/// Notes that `conn` holds bytes this thread deferred; past [`MAX_NOTED`] connections the list
/// is written out early. With `may_flush` false the list is never written out here, however long it gets (a caller
/// that must not write in the call; its list is bounded by what one handler pass hands out).
pub(crate) fn note(conn: &Arc<impl DeferredOutput + 'static>, may_flush: bool) {
    let full = NOTED.with(|noted| {
        let mut noted = noted.borrow_mut();
        // Consecutive sends on one connection are the common case; a duplicate further back only
        // costs one more (empty) flush.
        if noted
            .last()
            .is_some_and(|last| std::ptr::addr_eq(Arc::as_ptr(last), Arc::as_ptr(conn)))
        {
            return false;
        }
        noted.push(Arc::clone(conn) as Arc<dyn DeferredOutput>);
        noted.len() >= MAX_NOTED
    });
    if full && may_flush {
        flush_noted();
    }
}

/// Writes the deferred output of every connection this thread deferred bytes on, each with one
/// vectored write, after kicking the outbound sockets noted. Cheap when there is none (one
/// thread-local access). The worker loop's own flush points; handlers reach it through
/// [`crate::flush_deferred_sends`].
pub(crate) fn flush_noted() {
    // First the backend-bound output: its answers may add to the clients' deferred output.
    kick_noted();
    let mut conns = NOTED.with(|noted| std::mem::take(&mut *noted.borrow_mut()));
    if conns.is_empty() {
        return;
    }
    for conn in conns.drain(..) {
        conn.write_deferred();
    }
    // Keep the list's allocation for the next turn (the list was empty while we wrote: a write
    // does not defer).
    NOTED.with(|noted| {
        let mut noted = noted.borrow_mut();
        if noted.is_empty() {
            *noted = conns;
        }
    });
}
