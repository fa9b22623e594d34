//! The echo handler answers every frame with the same sid, type and payload, for small frames,
//! pipelined frames and frames larger than the fixed receive buffer.

mod common;

use common::*;
use xrpc_bench::echo::EchoHandler;
use xrpc_net::Server;

#[test]
fn echo_returns_each_frame_with_the_same_sid_and_type() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(7, 101, b"hello"));
    assert_eq!(read_frame(&mut s).unwrap(), (7, 101, b"hello".to_vec()));

    // Pipelined: many frames in one write come back in order.
    let mut burst = Vec::new();
    for i in 0..100u64 {
        burst.extend(frame(i, (i % 250) as u8, &i.to_le_bytes()));
    }
    write_all(&mut s, &burst);
    for i in 0..100u64 {
        assert_eq!(
            read_frame(&mut s).unwrap(),
            (i, (i % 250) as u8, i.to_le_bytes().to_vec())
        );
    }

    // Larger than the 4 KiB fixed buffer: goes through the dynamic buffer.
    let big: Vec<u8> = (0..300_000u32).map(|i| i as u8).collect();
    write_all(&mut s, &frame(9, 3, &big));
    write_all(&mut s, &frame(10, 4, b"after"));
    assert_eq!(read_frame(&mut s).unwrap(), (9, 3, big));
    assert_eq!(read_frame(&mut s).unwrap(), (10, 4, b"after".to_vec()));

    let stats = server.stats();
    assert!(stats.frames_received >= 103);
    assert_eq!(stats.connections, 1);
    drop(s);
    assert!(wait_until(std::time::Duration::from_secs(5), || server
        .stats()
        .connections
        == 0));
    server.shutdown();
}

#[test]
fn stage_histograms_switch_on_at_runtime_and_render_as_prometheus() {
    use xrpc_net::Stage;
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, b"off"));
    read_frame(&mut s).unwrap();
    assert_eq!(
        server.perf().snapshot(Stage::Run).count(),
        0,
        "off by default"
    );

    server.perf().set_enabled(true);
    for i in 0..50u64 {
        let runs = server.perf().snapshot(Stage::Run).count();
        write_all(&mut s, &frame(i, 1, b"on"));
        read_frame(&mut s).unwrap();
        // The next frame goes out once this one's run has ended, so that it starts a run (and a
        // schedule) of its own rather than joining one that is still ending; on a loaded machine
        // the worker can be preempted between the send and the end of its run.
        let _ = wait_until(std::time::Duration::from_secs(1), || {
            server.perf().snapshot(Stage::Run).count() > runs
        });
    }
    // Every frame is a read of its own (the client waits for each echo), so the receive stages
    // see all 50. A frame that arrives while the echo unit is still ending (its worker was
    // preempted after sending) joins that run without a schedule or run of its own; on a loaded
    // machine that can be most of them, so those two stages are only required to have switched on.
    for (stage, at_least) in [
        (Stage::RecvFirst, 50),
        (Stage::RecvAll, 50),
        (Stage::Decode, 50),
        (Stage::Schedule, 1),
        (Stage::Run, 1),
    ] {
        assert!(
            wait_until(std::time::Duration::from_secs(2), || server
                .perf()
                .snapshot(stage)
                .count()
                >= at_least),
            "{stage}: {}",
            server.perf().snapshot(stage).count()
        );
    }
    let text = server.prometheus("xrpc");
    assert!(text.contains("xrpc_connections"), "{text}");
    assert!(text.contains("run"), "{text}");
    // The reset drops the 50 samples of every stage. The worker that sent the last echo may still
    // be recording that frame's stages after the client read it (a preempted worker, or a unit
    // that was still ending and sent the echo before the receiving worker recorded its receive),
    // so at most that one frame's sample can land after the reset.
    server.perf().reset();
    for stage in [Stage::RecvFirst, Stage::RecvAll, Stage::Decode, Stage::Run] {
        let left = server.perf().snapshot(stage).count();
        assert!(left <= 1, "{stage}: {left} samples after the reset");
    }
    server.shutdown();
}

/// A handler that refuses every connection from `on_connect`.
struct Refuse;

impl xrpc_net::Handler for Refuse {
    type Conn = ();

    fn on_connect(&self, conn: &xrpc_net::ConnRef) {
        let _ = conn.send(&frame(0, 1, b"bye"));
        conn.fin();
    }

    fn on_frames(
        &self,
        _: &xrpc_net::ConnRef,
        _: &(),
        _: &mut xrpc_net::FrameBatch<'_>,
        _: &mut Vec<xrpc_net::UnitId>,
    ) {
        unreachable!("a refused connection receives nothing");
    }

    fn run_unit(
        &self,
        _: &xrpc_net::ConnRef,
        _: &(),
        _: xrpc_net::UnitId,
        _: &xrpc_net::RunContext<'_>,
    ) {
    }
}

#[test]
fn fin_inside_on_connect_closes_the_connection_once() {
    let server = Server::start(test_config(), Refuse).unwrap();
    for _ in 0..20 {
        let mut s = connect(server.local_addr());
        assert_eq!(read_frame(&mut s).unwrap().2, b"bye");
        assert!(read_frame(&mut s).is_err(), "closed after the greeting");
    }
    assert!(wait_until(std::time::Duration::from_secs(5), || {
        let st = server.stats();
        st.connections == 0 && st.closed_total == 20 && st.closing == 0
    }));
    server.shutdown();
}

/// Answers each frame with `n` frames encoded into output pages and flushed with one vectored
/// write, `n` being the first body byte.
struct Pages;

impl xrpc_net::Handler for Pages {
    type Conn = parking_lot::Mutex<Vec<u8>>;

    fn on_connect(&self, _: &xrpc_net::ConnRef) -> Self::Conn {
        parking_lot::Mutex::new(Vec::new())
    }

    fn on_frames(
        &self,
        _: &xrpc_net::ConnRef,
        counts: &Self::Conn,
        frames: &mut xrpc_net::FrameBatch<'_>,
        runnable: &mut Vec<xrpc_net::UnitId>,
    ) {
        for f in frames {
            counts.lock().push(f.body[0]);
        }
        runnable.push(xrpc_net::UnitId(0));
    }

    fn run_unit(
        &self,
        conn: &xrpc_net::ConnRef,
        counts: &Self::Conn,
        _: xrpc_net::UnitId,
        _: &xrpc_net::RunContext<'_>,
    ) {
        let pool = conn.group().pages();
        let mut out = xrpc_net::OutPages::new();
        for n in std::mem::take(&mut *counts.lock()) {
            for i in 0..u64::from(n) {
                let body = vec![i as u8; 1000];
                let buf = out.frame_buf(pool, 13 + body.len());
                xrpc_proto::frame::encode_frame(
                    buf,
                    xrpc_proto::HeaderFormat::Standard,
                    i,
                    7,
                    &body,
                );
            }
        }
        assert!(out.page_count() > 1 || out.is_empty());
        conn.send_pages(&mut out).unwrap();
        assert!(out.is_empty());
    }
}

#[test]
fn output_pages_go_out_in_one_vectored_send_and_return_to_the_pool() {
    let server = Server::start(test_config(), Pages).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, &[40]));
    for i in 0..40u64 {
        let (sid, ty, body) = read_frame(&mut s).unwrap();
        assert_eq!((sid, ty, body.len()), (i, 7, 1000));
        assert!(body.iter().all(|&b| b == i as u8));
    }
    // 40 KB of frames took about ten 4 KiB pages; they return to the group's pool after the send.
    assert!(wait_until(std::time::Duration::from_secs(2), || server
        .groups()[0]
        .pages()
        .cached()
        >= 5));
    server.shutdown();
}
