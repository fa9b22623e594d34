//! The backend connection's state machine fed arbitrary server bytes, from the greeting on or
//! after a login with queries in flight, either as plain input or as a script that interleaves
//! the server's bytes with the driver's calls (queries with deadlines, resets, pings, database
//! changes, cancels, partial writes, timeouts). It must never panic; every command accepted must
//! get exactly one terminal event by the time the transport closes, nothing about a command may
//! come after its terminal event, and nothing may come after `Closed`.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use xrpc_mysql_proto::mysql_common::constants::{CapabilityFlags, StatusFlags};
use xrpc_mysql_proto::mysql_common::packets::HandshakePacket;
use xrpc_mysql_proto::mysql_common::proto::MySerialize;
use xrpc_mysql_proto::{Config, Connection, Event, Tag};

/// A greeting and the OK that ends the login (packets 0 and 2).
fn login() -> Vec<u8> {
    let caps = CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_SESSION_TRACK
        | CapabilityFlags::CLIENT_DEPRECATE_EOF;
    let greeting = HandshakePacket::new(
        10,
        &b"5.5.5-10.11.6-MariaDB"[..],
        1,
        *b"abcdefgh",
        Some(&b"ijklmnopqrst\0"[..]),
        caps,
        45,
        StatusFlags::SERVER_STATUS_AUTOCOMMIT,
        Some(&b"mysql_native_password"[..]),
    );
    let mut payload = Vec::new();
    greeting.serialize(&mut payload);
    let mut out = (payload.len() as u32).to_le_bytes().to_vec();
    out[3] = 0;
    out.extend_from_slice(&payload);
    out.extend_from_slice(&[7, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]);
    out
}

/// Which commands were accepted and what has been seen of them.
#[derive(Default)]
struct Ledger {
    /// Per tag: accepted, and terminal events seen.
    commands: Vec<(bool, u32)>,
    closed: bool,
}

impl Ledger {
    fn record(&mut self, event: Event) {
        assert!(!self.closed, "an event after Closed: {event:?}");
        if let Some(tag) = event.tag() {
            let (accepted, terminal) = self
                .commands
                .get_mut(tag.0 as usize)
                .unwrap_or_else(|| panic!("an event for a tag never submitted: {event:?}"));
            assert!(*accepted, "an event for a refused command: {event:?}");
            assert_eq!(*terminal, 0, "an event after the terminal one: {event:?}");
            if event.is_terminal() {
                *terminal += 1;
            }
        }
        self.closed = matches!(event, Event::Closed { .. });
    }

    fn drain(&mut self, conn: &mut Connection) {
        while let Some(event) = conn.poll_event() {
            self.record(event);
        }
    }
}

/// Runs `script` against `conn`: each step is an operation byte and an argument byte.
fn run_script(conn: &mut Connection, ledger: &mut Ledger, start: Instant, script: &[u8]) {
    let mut now = start;
    let mut rest = script;
    while let [op, arg, tail @ ..] = rest {
        rest = tail;
        let arg = *arg;
        let tag = Tag(ledger.commands.len() as u64);
        match op % 8 {
            // Server bytes: the next `arg` bytes of the script.
            0..=2 => {
                let n = usize::from(arg).min(rest.len());
                let (input, tail) = rest.split_at(n);
                rest = tail;
                conn.handle_input(input);
            }
            3 => {
                let deadline =
                    (arg & 0x80 != 0).then(|| now + Duration::from_millis(u64::from(arg & 0x7f)));
                let accepted = conn.submit_query(tag, b"select 1", deadline).is_ok();
                ledger.commands.push((accepted, 0));
            }
            4 => {
                let accepted = match arg % 3 {
                    0 => conn.submit_reset(tag),
                    1 => conn.submit_ping(tag),
                    _ => conn.submit_init_db(tag, "db"),
                }
                .is_ok();
                ledger.commands.push((accepted, 0));
            }
            5 if !ledger.commands.is_empty() => {
                let target = usize::from(arg) % ledger.commands.len();
                let _ = conn.cancel(Tag(target as u64));
            }
            6 => {
                let pending = conn.pending_output().len();
                conn.consume_output(pending * usize::from(arg) / 255);
            }
            7 => {
                now += Duration::from_millis(u64::from(arg));
                conn.handle_timeout(now);
            }
            _ => {}
        }
        ledger.drain(conn);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, data)) = data.split_first() else {
        return;
    };
    let mut config = Config::new("fuzz", "fuzz");
    config.max_packet_size = 1 << 20;
    config.large_result_bytes = 4096;
    config.max_depth = 8;
    config.mark_statements = mode & 2 == 2;
    let start = Instant::now();
    let mut conn = Connection::new(config, start);
    let mut ledger = Ledger::default();
    if mode & 1 == 1 {
        conn.handle_input(&login());
        while conn.poll_event().is_some() {}
        for _ in 0..u64::from(mode >> 2) % 8 + 1 {
            let tag = Tag(ledger.commands.len() as u64);
            conn.submit_query(tag, b"select 1", None).unwrap();
            ledger.commands.push((true, 0));
        }
        let out = conn.pending_output().len();
        conn.consume_output(out);
    }
    if mode & 2 == 2 {
        run_script(&mut conn, &mut ledger, start, data);
    } else {
        // Input in pieces whose sizes come from the data itself.
        for piece in data.chunks(usize::from(mode).max(1)) {
            conn.handle_input(piece);
            ledger.drain(&mut conn);
        }
    }
    let out = conn.pending_output().len();
    conn.consume_output(out);
    conn.handle_close();
    ledger.drain(&mut conn);
    assert!(conn.is_closed());
    assert!(ledger.closed, "Closed was the last event");
    assert!(
        ledger
            .commands
            .iter()
            .all(|&(accepted, terminal)| terminal == u32::from(accepted)),
        "terminal events per command: {:?}",
        ledger.commands
    );
});
