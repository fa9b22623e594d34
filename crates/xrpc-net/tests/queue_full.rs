//! When the group's task queue is full, dispatch tells the handler which units could not be
//! queued instead of dropping them.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, Server, UnitId};

const UNITS: u64 = 200;
const CAPACITY: usize = 128;

#[derive(Default)]
struct Counts {
    ran: AtomicUsize,
    refused: AtomicUsize,
}

/// One frame makes `UNITS` units runnable at once.
struct Fanout(Arc<Counts>);

impl Handler for Fanout {
    type Conn = ();

    fn on_connect(&self, _conn: &ConnRef) {}

    fn on_frames(
        &self,
        _: &ConnRef,
        _: &(),
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        for _ in frames {
            runnable.extend((0..UNITS).map(UnitId));
        }
    }

    fn run_unit(&self, _: &ConnRef, _: &(), _: UnitId, _: &RunContext<'_>) {
        self.0.ran.fetch_add(1, Ordering::SeqCst);
    }

    fn on_queue_full(&self, _: &ConnRef, _: &(), _: UnitId) {
        self.0.refused.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_full_task_queue_is_reported_to_the_handler() {
    let counts = Arc::new(Counts::default());
    // One worker, which is busy dispatching while the queue fills, and no pool growth.
    let cfg = NetConfig {
        threads_per_group: 1,
        enable_tasker: false,
        work_queue_capacity: CAPACITY,
        ..test_config()
    };
    let server = Server::start(cfg, Fanout(counts.clone())).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, b"fan out"));
    // The last unit runs inline, 128 are queued, the rest are refused.
    let expected_refused = UNITS as usize - 1 - CAPACITY;
    assert!(wait_until(Duration::from_secs(5), || {
        counts.ran.load(Ordering::SeqCst) == CAPACITY + 1
            && counts.refused.load(Ordering::SeqCst) == expected_refused
    }));
    let st = server.stats();
    assert_eq!(st.queue_full_total, expected_refused as u64);
    assert_eq!(st.run_inline, 1);
    assert_eq!(st.run_queued, CAPACITY as u64);
    server.shutdown();
}

#[test]
fn on_one_cpu_a_worker_runs_the_units_it_queued_without_waking_another() {
    // The process may use one CPU (this thread and the workers it starts inherit the mask), so
    // the group's four workers take turns on it: a hand-off would buy nothing.
    let cpu = xrpc_net::affinity::allowed_cpus().unwrap()[0];
    xrpc_net::affinity::pin_current_thread(&[cpu]).unwrap();
    let counts = Arc::new(Counts::default());
    let cfg = NetConfig {
        threads_per_group: 4,
        work_queue_capacity: 1024,
        ..test_config()
    };
    let server = Server::start(cfg, Fanout(counts.clone())).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, b"fan out"));
    // Every unit runs (none is stranded in the queue by the missing wake-up): the receiving
    // worker runs the last inline and pops the others itself.
    assert!(wait_until(Duration::from_secs(10), || {
        counts.ran.load(Ordering::SeqCst) == UNITS as usize
    }));
    let st = server.stats();
    assert_eq!(st.run_inline, 1);
    assert_eq!(st.wakeups_skipped, UNITS - 1);
    assert_eq!(counts.refused.load(Ordering::SeqCst), 0);
    server.shutdown();
}
