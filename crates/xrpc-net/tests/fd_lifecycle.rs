//! Opening and closing 10k connections returns the fd count to its baseline, and shutting the
//! server down closes every fd it opened and joins every thread it started.

mod common;

use std::time::Duration;

use common::*;
use xrpc_bench::echo::EchoHandler;
use xrpc_net::Server;

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn opening_and_closing_10k_connections_returns_the_fd_count_to_baseline() {
    const TOTAL: usize = 10_000;
    const BATCH: usize = 100;
    let fds_before_server = fd_count();
    let threads_before_server = thread_count();
    // Each batch connects before the workers have accepted the previous one: with the default
    // backlog (128) the kernel drops SYNs and every drop costs a one-second retransmission.
    let config = xrpc_net::NetConfig {
        listen_backlog: 4096,
        ..test_config()
    };
    let server = Server::start(config, EchoHandler).unwrap();
    let baseline = fd_count();
    let addr = server.local_addr();
    for batch in 0..TOTAL / BATCH {
        let mut conns: Vec<_> = (0..BATCH).map(|_| connect(addr)).collect();
        // Every tenth batch also exchanges a frame, so both idle and used connections close.
        if batch % 10 == 0 {
            for (i, c) in conns.iter_mut().enumerate() {
                write_all(c, &frame(i as u64, 1, b"x"));
            }
            for (i, c) in conns.iter_mut().enumerate() {
                assert_eq!(read_frame(c).unwrap().0, i as u64);
            }
        }
        drop(conns);
    }
    // A batch's last connections may still wait in the kernel's accept queue when the
    // earlier ones are closed (they hold no fd of the server yet): wait until all were taken.
    assert!(
        wait_until(Duration::from_secs(10), || {
            let st = server.stats();
            st.accepted_total == TOTAL as u64
                && st.connections == 0
                && st.closing == 0
                && fd_count() == baseline
        }),
        "fds {} (baseline {baseline}), {:?}",
        fd_count(),
        server.stats()
    );
    let st = server.stats();
    assert_eq!(st.accepted_total, TOTAL as u64);
    assert_eq!(st.closed_total, TOTAL as u64);

    // Connections still open at shutdown are finished and their fds closed too.
    let mut open: Vec<_> = (0..10).map(|_| connect(addr)).collect();
    write_all(&mut open[0], &frame(1, 1, b"y"));
    read_frame(&mut open[0]).unwrap();
    server.shutdown();
    drop(open);
    assert_eq!(fd_count(), fds_before_server, "the server leaked fds");
    assert_eq!(
        thread_count(),
        threads_before_server,
        "the server leaked threads"
    );
}
