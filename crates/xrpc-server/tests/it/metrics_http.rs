//! The metrics endpoint under abuse while the node serves the protocol: malformed requests,
//! oversized heads, clients that trickle bytes or say nothing, and a flood of connections on the
//! metrics port must not slow the protocol port down, and scrapes keep working afterwards.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::TestNode;
use xrpc_server::metrics::{self, MetricsServer};

fn scrape(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).unwrap();
    out
}

/// One round of everything a hostile or broken client may send; errors are expected and ignored.
/// Every third connection is kept open (idle, or half a request) in `held`.
fn abuse(addr: SocketAddr, round: u64, held: &mut Vec<TcpStream>) {
    let attempts: [&[u8]; 5] = [
        b"garbage\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nbroken header\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
        b"POST /metrics HTTP/1.1\r\nContent-Length: 100000000\r\n\r\nabc",
        b"GET /metr",
    ];
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let _ = stream.write_all(attempts[(round % 5) as usize]);
    if round.is_multiple_of(7) {
        let _ = stream.write_all(&vec![b'a'; 32 * 1024]);
    }
    let mut sink = [0u8; 512];
    let _ = stream.read(&mut sink);
    if round.is_multiple_of(3) {
        held.push(stream);
    }
}

#[test]
fn the_protocol_is_served_whatever_arrives_on_the_metrics_port() {
    let node = TestNode::start();
    let shared = Arc::clone(node.node().shared());
    let groups = shared.groups().to_vec();
    let server = MetricsServer::start("127.0.0.1:0".parse().unwrap(), move || {
        metrics::render(&*shared, groups[0].perf())
    })
    .unwrap();
    let metrics_addr = server.local_addr();
    assert!(scrape(metrics_addr).starts_with("HTTP/1.1 200 OK"));

    let stop = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicU64::new(0));
    let abusers: Vec<_> = (0..3)
        .map(|_| {
            let stop = Arc::clone(&stop);
            let rounds = Arc::clone(&rounds);
            std::thread::spawn(move || {
                let mut held = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let round = rounds.fetch_add(1, Ordering::Relaxed);
                    abuse(metrics_addr, round, &mut held);
                    if round > 3000 {
                        break;
                    }
                }
            })
        })
        .collect();

    // The protocol meanwhile: statements on one session, each timed, at least 300 and until
    // 100 abusive connections were made (at most 30 s).
    let mut client = node.client();
    client.new_session(1);
    let mut slowest = Duration::ZERO;
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut statements = 0;
    for i in 0.. {
        if i >= 300 && rounds.load(Ordering::Relaxed) >= 100 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the abusers made too few connections"
        );
        statements += 1;
        let started = Instant::now();
        let outcome = client.query(1, &format!("select {i} + 1"));
        slowest = slowest.max(started.elapsed());
        assert_eq!(outcome.scalar(), &xrpc_proto::value::Value::Sint(i + 1));
    }
    // A scrape in the middle of the abuse is answered too.
    let during = scrape(metrics_addr);
    stop.store(true, Ordering::Relaxed);
    for abuser in abusers {
        abuser.join().unwrap();
    }
    let abused = rounds.load(Ordering::Relaxed);
    eprintln!("{abused} abusive connections; slowest of {statements} statements: {slowest:?}");
    assert!(during.starts_with("HTTP/1.1 200 OK"), "{during}");
    // Nothing on the metrics port shares a thread or a lock with the protocol.
    assert!(
        slowest < Duration::from_secs(1),
        "a statement took {slowest:?} while the metrics port was abused"
    );
    server.shutdown();
}
