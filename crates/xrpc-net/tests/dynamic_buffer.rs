//! A packet larger than the fixed receive buffer grows a dynamic buffer, which is freed once it
//! has been idle for `dynamic_buf_shrink`, even if no more data arrives on the connection.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use parking_lot::Mutex;
use xrpc_bench::echo::{EchoConn, EchoHandler};
use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, Server, UnitId, WeakConnRef};

/// Echo that remembers its connections.
struct Tracking {
    conns: Arc<Mutex<Vec<WeakConnRef>>>,
}

impl Handler for Tracking {
    type Conn = EchoConn;

    fn on_connect(&self, conn: &ConnRef) -> EchoConn {
        self.conns.lock().push(conn.downgrade());
        EchoHandler.on_connect(conn)
    }

    fn on_frames(
        &self,
        conn: &ConnRef,
        state: &EchoConn,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        EchoHandler.on_frames(conn, state, frames, runnable)
    }

    fn run_unit(&self, conn: &ConnRef, state: &EchoConn, unit: UnitId, cx: &RunContext<'_>) {
        EchoHandler.run_unit(conn, state, unit, cx)
    }
}

#[test]
fn dynamic_buffer_grows_for_a_large_packet_and_shrinks_when_idle() {
    let conns = Arc::new(Mutex::new(Vec::new()));
    let cfg = NetConfig {
        dynamic_buf_shrink: Duration::from_millis(200),
        ..test_config()
    };
    let server = Server::start(
        cfg,
        Tracking {
            conns: conns.clone(),
        },
    )
    .unwrap();
    let mut s = connect(server.local_addr());
    let big = vec![7u8; 100_000];
    write_all(&mut s, &frame(1, 2, &big));
    assert_eq!(read_frame(&mut s).unwrap().2, big);
    let conn = conns.lock()[0].upgrade().unwrap();
    assert!(wait_until(Duration::from_secs(1), || conn
        .recv_dynamic_capacity()
        .is_some_and(|c| c >= 100_000)));
    // Idle: the shrink timer frees it after ~200 ms.
    assert!(
        wait_until(Duration::from_secs(3), || conn.recv_dynamic_capacity()
            == Some(0)),
        "dynamic buffer still holds {:?} bytes",
        conn.recv_dynamic_capacity()
    );
    // Small frames keep working on the fixed buffer.
    write_all(&mut s, &frame(2, 2, b"small"));
    assert_eq!(read_frame(&mut s).unwrap().2, b"small");
    drop(conn);
    server.shutdown();
}

#[test]
fn a_packet_over_max_packet_is_a_frame_error_that_closes_the_connection() {
    let cfg = NetConfig {
        frame: xrpc_net::FrameConfig::new(xrpc_net::HeaderFormat::Standard, 8192).unwrap(),
        ..test_config()
    };
    let server = Server::start(cfg, EchoHandler).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 2, b"ok"));
    assert_eq!(read_frame(&mut s).unwrap().2, b"ok");
    // Only the header is needed for the server to refuse it.
    let header = &frame(1, 2, &vec![0; 9000])[..13];
    write_all(&mut s, header);
    assert!(read_frame(&mut s).is_err(), "the connection was closed");
    assert!(wait_until(Duration::from_secs(5), || server
        .stats()
        .connections
        == 0));
    server.shutdown();
}

/// Echo whose connections start limited to 64-byte packets; a frame of type 9 lifts the limit.
struct Limited;

impl Handler for Limited {
    type Conn = EchoConn;

    fn on_connect(&self, conn: &ConnRef) -> EchoConn {
        conn.limit_max_packet(Some(64));
        EchoHandler.on_connect(conn)
    }

    fn on_frames(
        &self,
        conn: &ConnRef,
        state: &EchoConn,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        let lifts = frames.clone().any(|f| f.type_id == 9);
        EchoHandler.on_frames(conn, state, frames, runnable);
        if lifts {
            conn.limit_max_packet(None);
        }
    }

    fn run_unit(&self, conn: &ConnRef, state: &EchoConn, unit: UnitId, cx: &RunContext<'_>) {
        EchoHandler.run_unit(conn, state, unit, cx)
    }
}

#[test]
fn a_connection_limit_refuses_from_the_header_and_lifting_it_applies_to_the_next_frame() {
    let server = Server::start(test_config(), Limited).unwrap();
    // Over the connection's own limit: refused from the header alone.
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 2, &[0; 100])[..13]);
    assert!(read_frame(&mut s).is_err(), "the connection was closed");
    // The lifting frame and a large one in one write: the large one is judged by the new limit.
    let mut s = connect(server.local_addr());
    let big = vec![5u8; 10_000];
    let mut both = frame(1, 9, b"lift");
    both.extend(frame(1, 2, &big));
    write_all(&mut s, &both);
    assert_eq!(read_frame(&mut s).unwrap().2, b"lift");
    assert_eq!(read_frame(&mut s).unwrap().2, big);
    server.shutdown();
}
