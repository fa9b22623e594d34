//! The state machine's own CPU per `select 1`: submit, encode, decode the answer (column count,
//! column definition, one row, the closing OK) and deliver its events, with no I/O at all.
//!
//! `cargo run --release -p xrpc-mysql-proto --example decode_cost [statements]`

use std::time::Instant;

use bytes::{BufMut, BytesMut};
use xrpc_mysql_proto::mysql_common::constants::{CapabilityFlags, ColumnType, StatusFlags};
use xrpc_mysql_proto::mysql_common::packets::{Column, HandshakePacket};
use xrpc_mysql_proto::mysql_common::proto::MySerialize;
use xrpc_mysql_proto::{Config, Connection, Event, Tag};

const DEPTH: u64 = 64;

fn frame(out: &mut BytesMut, seq: u8, payload: &[u8]) {
    out.put_uint_le(payload.len() as u64, 3);
    out.put_u8(seq);
    out.extend_from_slice(payload);
}

/// A MariaDB-like greeting and the OK that ends the login.
fn login() -> BytesMut {
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
    let mut out = BytesMut::new();
    frame(&mut out, 0, &payload);
    frame(&mut out, 2, &[0, 0, 0, 2, 0, 0, 0]);
    out
}

/// MariaDB's answer to `select 1`.
fn answer() -> BytesMut {
    let mut column = Vec::new();
    Column::new(ColumnType::MYSQL_TYPE_LONG)
        .with_name(b"1")
        .with_column_length(1)
        .serialize(&mut column);
    let mut out = BytesMut::new();
    frame(&mut out, 1, &[1]);
    frame(&mut out, 2, &column);
    frame(&mut out, 3, b"\x011");
    frame(&mut out, 4, &[0xfe, 0, 0, 2, 0, 0, 0]);
    out
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .map_or(10_000_000, |n| n.parse().expect("statements"));
    let mut conn = Connection::new(Config::new("bench", "bench"), Instant::now());
    conn.handle_input(&login());
    while conn.poll_event().is_some() {}
    let batch: Vec<u8> = (0..DEPTH).flat_map(|_| answer()).collect();

    let started = Instant::now();
    let (mut answered, mut tag) = (0u64, 0u64);
    while answered < count {
        for _ in 0..DEPTH {
            conn.submit_query(Tag(tag), b"select 1", None)
                .expect("submit");
            tag += 1;
        }
        let written = conn.pending_output().len();
        conn.consume_output(written);
        conn.handle_input(&batch);
        while let Some(event) = conn.poll_event() {
            match event {
                Event::Done { .. } => answered += 1,
                Event::Columns { .. } | Event::Row { .. } => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    let elapsed = started.elapsed();
    println!(
        "{answered} select 1 answers, {DEPTH} deep: {:.0} ns per statement",
        elapsed.as_nanos() as f64 / answered as f64
    );
}
