//! A client that stops reading is closed at `net_write_timeout`, and only it: another client keeps
//! getting answers while the server is blocked sending to the first.

mod common;

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use parking_lot::Mutex;
use xrpc_bench::echo::{EchoConn, EchoHandler};
use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, SendError, Server, UnitId};

/// Echo, except that a frame of type 9 makes the connection's unit send 64 MiB.
struct FloodOrEcho {
    echo: EchoHandler,
    results: Arc<Mutex<Vec<(Duration, String)>>>,
}

struct State {
    echo: EchoConn,
    flood: Mutex<bool>,
}

impl Handler for FloodOrEcho {
    type Conn = State;

    fn on_connect(&self, conn: &ConnRef) -> State {
        State {
            echo: self.echo.on_connect(conn),
            flood: Mutex::new(false),
        }
    }

    fn on_frames(
        &self,
        conn: &ConnRef,
        state: &State,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        let mut peek = frames.clone();
        if peek.next().is_some_and(|f| f.type_id == 9) {
            *state.flood.lock() = true;
            runnable.push(UnitId(9));
            return;
        }
        self.echo.on_frames(conn, &state.echo, frames, runnable);
    }

    fn run_unit(&self, conn: &ConnRef, state: &State, unit: UnitId, cx: &RunContext<'_>) {
        if unit != UnitId(9) {
            return self.echo.run_unit(conn, &state.echo, unit, cx);
        }
        let chunk = vec![0u8; 1 << 20];
        let start = Instant::now();
        let mut outcome = String::from("sent everything");
        for _ in 0..64 {
            if let Err(e) = conn.send(&chunk) {
                outcome = format!("{e}");
                assert!(matches!(e, SendError::Timeout), "{e:?}");
                break;
            }
        }
        self.results.lock().push((start.elapsed(), outcome));
    }
}

#[test]
fn a_client_that_stops_reading_is_closed_at_the_write_timeout_while_others_keep_their_throughput() {
    let results = Arc::new(Mutex::new(Vec::new()));
    let cfg = NetConfig {
        net_write_timeout: Duration::from_millis(600),
        tcp_send_buf: 64 * 1024,
        ..test_config()
    };
    let server = Server::start(
        cfg,
        FloodOrEcho {
            echo: EchoHandler,
            results: results.clone(),
        },
    )
    .unwrap();
    let mut sleeper = connect(server.local_addr());
    let mut busy = connect(server.local_addr());
    write_all(&mut sleeper, &frame(1, 9, b"flood me"));
    // While the flood is stuck, the other connection keeps its round trips.
    let start = Instant::now();
    let mut round_trips = 0u32;
    let mut worst = Duration::ZERO;
    while start.elapsed() < Duration::from_millis(500) {
        let t = Instant::now();
        write_all(&mut busy, &frame(2, 1, b"ping"));
        assert_eq!(read_frame(&mut busy).unwrap(), (2, 1, b"ping".to_vec()));
        worst = worst.max(t.elapsed());
        round_trips += 1;
    }
    // Loose bounds for loaded CI machines; the point is that no round trip waits for the stuck
    // send, which lasts 600 ms.
    assert!(round_trips >= 20, "only {round_trips} round trips");
    assert!(
        worst < Duration::from_millis(450),
        "worst round trip {worst:?}"
    );
    // The flood ends with a timeout about 600 ms after the socket filled up.
    assert!(wait_until(Duration::from_secs(5), || !results
        .lock()
        .is_empty()));
    let (took, outcome) = results.lock()[0].clone();
    assert_eq!(outcome, "net write timeout");
    assert!(took >= Duration::from_millis(600), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let st = server.stats();
    assert_eq!(st.write_timeouts, 1);
    // The slow client's connection was finished: after draining what was buffered it sees EOF
    // (or a reset).
    sleeper
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut sink = vec![0u8; 1 << 16];
    loop {
        match sleeper.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    assert!(wait_until(Duration::from_secs(5), || server
        .stats()
        .connections
        == 1));
    // The other connection is still served.
    write_all(&mut busy, &frame(3, 1, b"still"));
    assert_eq!(read_frame(&mut busy).unwrap(), (3, 1, b"still".to_vec()));
    server.shutdown();
}
