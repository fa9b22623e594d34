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

/// One frame makes `UNITS` units runnable; each answers with a deferred frame on its own sid,
/// and every tenth also with an immediate frame right after.
struct Answer;

const DEFERRED: u8 = 1;
const IMMEDIATE: u8 = 2;

impl Handler for Answer {
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

    fn run_unit(&self, conn: &ConnRef, _: &(), unit: UnitId, _: &RunContext<'_>) {
        conn.send_deferred(&frame(unit.0, DEFERRED, &[unit.0 as u8]))
            .unwrap();
        if unit.0 % 10 == 0 {
            conn.send(&frame(unit.0, IMMEDIATE, &[unit.0 as u8]))
                .unwrap();
        }
    }
}

#[test]
fn answers_deferred_in_one_turn_share_writes_and_keep_the_order_of_their_sends() {
    let cfg = NetConfig {
        threads_per_group: 1,
        enable_tasker: false,
        work_queue_capacity: 1024,
        ..test_config()
    };
    let server = Server::start(cfg, Answer).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, b"fan out"));
    // One worker: the last unit runs inline, then the worker runs the others from its queue in
    // order. The bytes arrive in the order of the sends, deferred or not.
    let order = std::iter::once(UNITS - 1).chain(0..UNITS - 1);
    for unit in order {
        let expected: &[u8] = if unit % 10 == 0 {
            &[DEFERRED, IMMEDIATE]
        } else {
            &[DEFERRED]
        };
        for &ty in expected {
            let (sid, got_ty, body) = read_frame(&mut s).unwrap();
            assert_eq!((sid, got_ty, body), (unit, ty, vec![unit as u8]));
        }
    }
    let st = server.stats();
    assert_eq!(st.sends_deferred, UNITS);
    // Deferred answers go out with the next immediate send on the connection (20 of them) or
    // at the latest every FLUSH_EVERY_TASKS tasks and at the end of the turn: far fewer writes
    // than answers.
    let turns = UNITS.div_ceil(xrpc_net::turn::FLUSH_EVERY_TASKS as u64) + 1;
    assert!(
        st.deferred_writes <= UNITS / 10 + turns,
        "{} writes of deferred answers for {UNITS} answers",
        st.deferred_writes
    );
    server.shutdown();
}
