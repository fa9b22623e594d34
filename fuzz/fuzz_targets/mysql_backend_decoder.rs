//! The backend connection's decoder fed arbitrary server bytes, from the greeting on or after a
//! login with queries in flight: it must never panic, and every query submitted must get exactly
//! one terminal event by the time the transport closes.
#![no_main]

use std::time::Instant;

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

fuzz_target!(|data: &[u8]| {
    let Some((&mode, data)) = data.split_first() else {
        return;
    };
    let mut config = Config::new("fuzz", "fuzz");
    config.max_packet_size = 1 << 20;
    config.large_result_bytes = 4096;
    let mut conn = Connection::new(config, Instant::now());
    let mut queries = 0;
    if mode & 1 == 1 {
        conn.handle_input(&login());
        while conn.poll_event().is_some() {}
        queries = u64::from(mode >> 1) % 16 + 1;
        for tag in 0..queries {
            conn.submit_query(Tag(tag), b"select 1", None).unwrap();
        }
    }
    let out = conn.pending_output().len();
    conn.consume_output(out);
    let mut terminal = vec![0u32; queries as usize];
    let mut closed = false;
    let mut record = |event: Event| {
        assert!(!closed, "an event after Closed: {event:?}");
        if event.is_terminal() {
            terminal[event.tag().unwrap().0 as usize] += 1;
        }
        closed = matches!(event, Event::Closed { .. });
    };
    // Input in pieces whose sizes come from the data itself.
    for piece in data.chunks(usize::from(mode).max(1)) {
        conn.handle_input(piece);
        while let Some(event) = conn.poll_event() {
            record(event);
        }
    }
    conn.handle_close();
    while let Some(event) = conn.poll_event() {
        record(event);
    }
    assert!(conn.is_closed());
    assert!(terminal.iter().all(|&count| count == 1), "terminal events per query: {terminal:?}");
});
