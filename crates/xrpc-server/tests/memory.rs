//! Memory: what an idle session costs, and that a large result streams in bounded memory.
//!
//! Both tests print their figures. To see them, run
//!
//! ```text
//! cargo test -p xrpc-server --test memory -- --nocapture
//! ```
//!
//! The two tests take a common lock, so neither measures while the other allocates.

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{Client, ServerProcess, TestNode, rss_bytes, sql_stmt};
use xrpc_proto::frame::{HeaderFormat, encode_message_frame};
use xrpc_proto::messages::{ClientType, ServerMessage, pb};

static MEASURING: Mutex<()> = Mutex::new(());

const MIB: f64 = 1024.0 * 1024.0;

/// Idle sessions opened for the per-session figure.
const SESSIONS: u64 = 20_000;
/// Connections they are spread over.
const CONNECTIONS: u64 = 4;
/// The bound on server memory per idle session. A session holds no engine connection while idle
/// (see `crate::engine`), so it costs a few hundred bytes of bookkeeping; the bound is generous
/// on purpose, so that allocator noise never fails it.
const MAX_BYTES_PER_SESSION: f64 = 16.0 * 1024.0;

#[test]
fn an_idle_session_costs_little_server_memory() {
    let _serial = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let node = TestNode::start();
    let mut clients: Vec<Client> = (0..CONNECTIONS).map(|_| node.client()).collect();
    // Warm up everything that is allocated once: the engine pool, output pages, a session's first
    // query on each connection.
    for client in &mut clients {
        client.new_session(1);
        let one = client.query(1, "select 1");
        assert!(one.error.is_none(), "{:?}", one.error);
    }
    let before = rss_bytes(None);
    let started = Instant::now();

    let per_connection = SESSIONS / CONNECTIONS;
    for client in &mut clients {
        let mut burst = Vec::new();
        for sid in 2..2 + per_connection {
            encode_message_frame(
                &mut burst,
                HeaderFormat::Standard,
                sid,
                ClientType::NewSession.id(),
                &pb::session::NewSession::default(),
            );
        }
        client.send_raw(&burst);
    }
    for (index, client) in clients.iter_mut().enumerate() {
        for _ in 0..per_connection {
            match client.recv() {
                Some(reply) if matches!(reply.message, ServerMessage::Ok(_)) => {}
                other => panic!("connection {index}: SESS_NEW answered {other:?}"),
            }
        }
    }
    let open_took = started.elapsed();
    let after = rss_bytes(None);

    let sessions = node
        .node()
        .shared()
        .counters
        .worker_sessions
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        sessions as u64,
        SESSIONS + CONNECTIONS,
        "every session is open while measured"
    );
    let per_session = after.saturating_sub(before) as f64 / SESSIONS as f64;
    let line = format!(
        "memory per idle session: {per_session:.0} bytes ({SESSIONS} sessions over {CONNECTIONS} connections, \
         RSS {:.1} MiB -> {:.1} MiB, opened in {open_took:?})",
        before as f64 / MIB,
        after as f64 / MIB
    );
    println!("{line}");
    eprintln!("{line}");
    assert!(
        per_session < MAX_BYTES_PER_SESSION,
        "an idle session costs {per_session:.0} bytes, over the bound of {MAX_BYTES_PER_SESSION} bytes"
    );

    // The sessions are real: one of the last ones still answers.
    let last = 1 + per_connection;
    let answer = clients[3].query(last, "select 2");
    assert!(answer.error.is_none(), "{:?}", answer.error);
}

/// Rows of the streamed result and the size of each row's string.
///
/// 102 400 rows of 1 KiB: 100 MiB of row data (plus a few bytes of id and framing per row). The
/// debug build streams it in a few seconds, well under this file's 60 s budget, so neither the
/// total nor the row shape is reduced for debug builds.
const STREAM_ROWS: u64 = 102_400;
const ROW_BYTES: u64 = 1024;
/// The flow-control budget the client asks for, in KiB.
const TOKEN_KIB: i32 = 64;
/// The bound on the server's RSS growth while it streams.
const MAX_STREAM_GROWTH: u64 = 64 * 1024 * 1024;

#[test]
fn a_100_mib_result_streams_with_a_small_token_in_bounded_server_memory() {
    let _serial = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        dir.path(),
        &dir.path().join("server.log"),
        &["--log", "warn"],
    );
    let pid = server.pid();
    let mut client = server.client();
    client.new_session(1);
    // Warm up with the same statement shape, so the baseline holds the one-off allocations.
    let warm = client.query(
        1,
        &format!(
            "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000) \
             select i, repeat('x', {ROW_BYTES}) from n"
        ),
    );
    assert_eq!(warm.rows.len(), 1000, "{:?}", warm.error);
    let baseline = rss_bytes(Some(pid));
    let started = Instant::now();

    let mut stmt = sql_stmt(&format!(
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < {STREAM_ROWS}) \
         select i, repeat('x', {ROW_BYTES}) from n"
    ));
    stmt.token = Some(TOKEN_KIB);
    client.send_sql(1, stmt);
    let mut rows = 0u64;
    let mut row_bytes = 0u64;
    let mut token_dones = 0u64;
    let mut peak = baseline;
    loop {
        match client.recv_on(1).expect("the connection stays open") {
            ServerMessage::Row(row) => {
                rows += 1;
                row_bytes += row.field.iter().map(|f| f.len() as u64).sum::<u64>();
            }
            ServerMessage::TokenDone(_) => {
                token_dones += 1;
                if token_dones.is_multiple_of(16) {
                    peak = peak.max(rss_bytes(Some(pid)));
                }
                // A slow reader: the server must wait for the offer rather than buffer ahead.
                std::thread::sleep(Duration::from_millis(1));
                client.send(
                    1,
                    ClientType::TokenOffer,
                    &pb::sql::TokenOffer {
                        token: Some(TOKEN_KIB),
                    },
                );
            }
            ServerMessage::StmtExecuteOk(_) => break,
            ServerMessage::Error(err) => panic!("the stream failed after {rows} rows: {err:?}"),
            _ => {}
        }
    }
    peak = peak.max(rss_bytes(Some(pid)));
    let took = started.elapsed();
    let growth = peak.saturating_sub(baseline);
    let line = format!(
        "streaming {:.1} MiB ({rows} rows) with token = {TOKEN_KIB} KiB: {token_dones} TOKEN_DONE, \
         server RSS {:.1} MiB at start, peak growth {:.1} MiB, in {took:?}",
        row_bytes as f64 / MIB,
        baseline as f64 / MIB,
        growth as f64 / MIB
    );
    println!("{line}");
    eprintln!("{line}");

    assert_eq!(rows, STREAM_ROWS, "the client read every row");
    assert!(
        row_bytes >= STREAM_ROWS * ROW_BYTES,
        "at least 100 MiB of row data went through ({row_bytes} bytes)"
    );
    let expected_dones = STREAM_ROWS * ROW_BYTES / (TOKEN_KIB as u64 * 1024);
    assert!(
        token_dones >= expected_dones / 2,
        "flow control paused the stream: {token_dones} TOKEN_DONE, expected about {expected_dones}"
    );
    assert!(
        growth < MAX_STREAM_GROWTH,
        "server RSS grew by {:.1} MiB while streaming, over the {} MiB bound",
        growth as f64 / MIB,
        MAX_STREAM_GROWTH / 1024 / 1024
    );
}

/// Without the node's fixed mmap threshold, glibc kept the memory of large statements resident
/// after the client left (`benches/allocator.rs` measured it).
#[test]
fn large_statements_give_their_memory_back_after_the_client_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(
        &dir.path().join("data"),
        &dir.path().join("server.log"),
        &["--log", "warn"],
    );
    {
        let mut client = server.client();
        client.new_session(1);
        client.query(1, "select 1");
    }
    let baseline = rss_bytes(Some(server.pid())) as f64 / MIB;
    {
        let mut client = server.client();
        // An unoptimised test build of the node takes about 6 s per 30 MiB statement on a quiet
        // machine (its rewrite passes scan every byte) and several times that on a loaded one.
        client.set_read_timeout(Duration::from_secs(120));
        client.new_session(1);
        for i in 0..4 {
            let sql = format!("select length('{}{i}')", "x".repeat(30 << 20));
            let outcome = client.query(1, &sql);
            assert!(outcome.error.is_none(), "{:?}", outcome.error);
        }
    }
    // Without the fixed mmap threshold glibc kept about 40 MiB per statement resident for good.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let now = rss_bytes(Some(server.pid())) as f64 / MIB;
        if now < baseline + 48.0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "resident {now:.1} MiB, baseline {baseline:.1} MiB, after the client left"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
