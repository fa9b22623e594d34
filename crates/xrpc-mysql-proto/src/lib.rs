//! Sans-IO client side of the MySQL protocol for one backend connection: bytes and time in,
//! events out. No sockets, no threads, no clock; the caller (a driver) owns the transport and
//! passes in what it read, what time it is, and when the transport closed.
//!
//! `mysql_common` (the codec layer under the `mysql` and `mysql_async` crates) decodes and
//! encodes the packets: the handshake and its response, the auth plugins' scrambles, OK and ERR
//! packets with their session-state tracker data, column definitions and rows. This crate frames
//! packets itself (the private `packet` module) and keeps the conversation's state:
//! [`Connection`].
//!
//! # What it speaks
//!
//! - **Login**: protocol 10 with CLIENT_PROTOCOL_41; `mysql_native_password`, and
//!   `caching_sha2_password`'s fast path (the server has the password cached; full
//!   authentication needs TLS or RSA and fails with [`ConnectError::FullAuthenticationRequired`]);
//!   an auth switch to either. CLIENT_SESSION_TRACK is negotiated, so OK packets carry the
//!   trackers' data ([`OkInfo::session_changes`]) once the driver turns the trackers on (for
//!   example `SET session_track_schema = ON, session_track_state_change = ON,
//!   session_track_system_variables = '*'`); CLIENT_DEPRECATE_EOF, so result sets end with an OK
//!   packet that carries them too (with the old EOF packets when a server lacks it);
//!   CLIENT_MULTI_RESULTS (and CLIENT_MULTI_STATEMENTS unless turned off).
//! - **Commands**: COM_QUERY (text protocol), COM_INIT_DB, COM_RESET_CONNECTION, COM_PING,
//!   COM_QUIT. No server-side prepared statements, no LOCAL INFILE, no TLS, no compression.
//!
//! # Call order
//!
//! ```text
//! let mut conn = Connection::new(config, now);       // the transport has just connected
//! loop {
//!     write conn.pending_output() to the transport; conn.consume_output(written);
//!     read n bytes   -> conn.handle_input(&buf[..n]) // skip reading while conn.buffered_bytes()
//!                                                    // is over budget (backpressure)
//!     end of stream or an I/O error -> conn.handle_close()
//!     at conn.poll_timeout()        -> conn.handle_timeout(now)
//!     while let Some(event) = conn.poll_event() { act on it }
//!     submit commands (after Event::Connected): conn.submit_query(tag, sql, deadline), …
//! }                                                  // until Event::Closed
//! ```
//!
//! Any order of these calls is safe; the state machine never blocks and never calls out. Output
//! produced by a submit or by a poll (auth answers) is appended to `pending_output`, so the
//! driver writes after submitting and after polling. Many submits before one write put many
//! commands in one write: that is the pipelining.
//!
//! # Design and invariants
//!
//! - **A FIFO of commands in flight.** Each submitted command gets an entry at the back of the
//!   pipeline (up to [`Config::max_depth`]) and its packet at the end of the output. The server
//!   answers commands in the order it received them, so answers are matched in order: the
//!   front entry owns every packet that arrives until its answer ends, then the next one does.
//!   Each entry tracks its own packet sequence id (each command restarts the count at 0), so a
//!   byte stream out of step with the pipeline is a fatal decode error, never a mismatched answer.
//! - **One terminal event per command.** Every command accepted by a submit ends with exactly
//!   one [`Event::Done`] or [`Event::Failed`], and nothing about it comes after that: the
//!   server's OK or ERR; 1317 when it is withdrawn before any of its bytes were sent
//!   ([`Connection::cancel`], or its deadline); 2013 "Lost connection to MySQL server during
//!   query" (`HY000`) for every command still in flight when the transport closes or the
//!   server's bytes stop decoding — in submission order, before the one [`Event::Closed`]. A
//!   command refused by a submit gets no event at all.
//! - **An error ends only its own command.** An ERR answer is the whole answer of its COM_QUERY
//!   (or of a multi-statement's remaining statements); the server reads the next command and
//!   answers it, so the entries behind are untouched.
//! - **Never reading past a command's end.** Input is only buffered by
//!   [`Connection::handle_input`]; [`Connection::poll_event`] decodes one packet at a time, and
//!   only as the front entry's state expects (OK/ERR/column count, column definitions, rows, the
//!   end of a result set, the next result when SERVER_MORE_RESULTS_EXISTS is set). The bytes of
//!   the next answer stay in the buffer until the current one has ended. Undecoded packets are
//!   decoded at close too, so answers that arrived whole before a connection broke are not lost.
//! - **Streaming and backpressure.** Rows come out one per [`Event::Row`] as they are decoded,
//!   each a zero-copy slice of the receive buffer checked to hold one value per column; nothing
//!   buffers a whole result. A caller that stops polling stops decoding; the received bytes
//!   then accumulate and [`Connection::buffered_bytes`] tells the driver when to stop reading
//!   the socket. Because answers are in order, a slow consumer of one answer holds up the
//!   answers behind it: an answer that passes [`Config::large_result_bytes`] is reported once
//!   ([`Event::LargeResult`]) and [`Connection::accepts_more`] turns false until it ends, so a
//!   driver stops pipelining behind it.
//! - **Column definitions decoded once per distinct set.** A result set whose definition
//!   packets are byte for byte those of one of the connection's recent result sets gets that
//!   [`ColumnSet`] again (an `Arc` clone) instead of a fresh decode, and what the driver derived
//!   from it ([`ColumnSet::derived`]) with it: a connection that runs the same statements over
//!   and over decodes their columns once (the `columns` module; at most [`KEPT_SETS`] sets of at
//!   most [`KEPT_SET_BYTES`] each).
//! - **Time is an argument.** Deadlines (the handshake's, [`Config::connect_timeout`], and each
//!   query's) are compared with the `now` passed to [`Connection::handle_timeout`];
//!   [`Connection::poll_timeout`] says when the next one is due.
//!
//! # Kill
//!
//! A command whose bytes have not been handed to the transport is withdrawn locally (1317). One
//! that was sent cannot be taken back: its answer will come, in order. The state machine then
//! returns a [`KillTarget`] ([`Event::KillRequired`] at its deadline, or from
//! [`Connection::cancel`]), and the driver stops it from a side connection:
//!
//! - `KILL QUERY <thread_id>` ([`KillTarget::kill_query_sql`]) stops whatever the backend
//!   connection runs when the kill lands. With several statements pipelined that may be the
//!   one after the target, so it is only safe when the target is the only command in flight, or
//!   is answering ([`CommandState::Answering`]) and nothing is queued behind it.
//! - MariaDB's `KILL QUERY ID <query_id>` ([`kill_query_id_sql`]) stops exactly one statement.
//!   The protocol never tells the client a statement's query id; the server shows it in
//!   `information_schema.PROCESSLIST.QUERY_ID` while the statement runs. With
//!   [`Config::mark_statements`] each query is sent after a comment naming it
//!   ([`KillTarget::marker`]), which `PROCESSLIST.INFO` shows, so the side connection reads the
//!   target's id with [`KillTarget::query_id_lookup_sql`]: no row means the statement has not
//!   started yet (look again) or has ended (nothing to kill, and the state machine will have
//!   produced its terminal event). A `KILL QUERY ID` that arrives after its statement ended
//!   fails with 1957 and touches nothing else. The killed statement's answer is its ERR (1317,
//!   `70100`).
//!
//! # Errors
//!
//! One type per operation: [`SubmitError`] for a refused submit, [`CancelError`] for a cancel of
//! an unknown tag, [`ConnectError`] for a failed handshake and [`DecodeError`] for bytes that
//! break the protocol (both reported by [`Event::Closed`]). A statement's failure is data, a
//! [`StatementError`] (code, SQL state, message) in [`Event::Failed`].

mod columns;
mod conn;
mod error;
mod event;
mod packet;

pub use columns::{ColumnSet, KEPT_SET_BYTES, KEPT_SETS};
pub use conn::{Cancelled, CommandState, Config, Connection};
pub use error::{
    CR_SERVER_LOST, CancelError, ConnectError, DecodeError, ER_QUERY_INTERRUPTED, StatementError,
    SubmitError,
};
pub use event::{
    CloseReason, Event, KillTarget, OkInfo, SessionChange, Tag, TextRow, kill_query_id_sql,
};
pub use mysql_common;
