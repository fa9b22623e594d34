//! When the group's task queue is full, dispatch tells the handler which units could not be
//! queued instead of dropping them; and the one-CPU rules of `group.rs`: a worker runs the units
//! it queued itself, and one worker at a time listens, handing the listening over when it blocks,
//! runs long or is caught by the watchdog, so that no event waits for a busy unit.

mod common;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::*;
use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, Server, UnitId};

const UNITS: u64 = 200;
const CAPACITY: usize = 128;

#[derive(Default)]
struct Counts {
    ran: AtomicUsize,
    refused: AtomicUsize,
}

/// One frame makes `UNITS` units runnable at once. `run_here`: what
/// `run_here_when_queue_full` answers; `busy`: how long each unit keeps its worker's CPU.
struct Fanout(Arc<Counts>, bool, Duration);

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
        let start = Instant::now();
        while start.elapsed() < self.2 {
            std::hint::spin_loop();
        }
        self.0.ran.fetch_add(1, Ordering::SeqCst);
    }

    fn on_queue_full(&self, _: &ConnRef, _: &(), _: UnitId) {
        self.0.refused.fetch_add(1, Ordering::SeqCst);
    }

    fn run_here_when_queue_full(&self, _: &ConnRef, _: &()) -> bool {
        self.1
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
    let server = Server::start(cfg, Fanout(counts.clone(), false, Duration::ZERO)).unwrap();
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
fn on_one_cpu_units_that_find_the_queue_full_run_on_the_receiving_worker() {
    let cpu = xrpc_net::affinity::allowed_cpus().unwrap()[0];
    xrpc_net::affinity::pin_current_thread(&[cpu]).unwrap();
    let counts = Arc::new(Counts::default());
    let cfg = NetConfig {
        threads_per_group: 1,
        enable_tasker: false,
        work_queue_capacity: CAPACITY,
        ..test_config()
    };
    let server = Server::start(cfg, Fanout(counts.clone(), true, Duration::ZERO)).unwrap();
    assert!(server.groups()[0].single_cpu());
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, b"fan out"));
    // 128 are queued; the others, the last among them, run where they were received.
    assert!(wait_until(Duration::from_secs(5), || {
        counts.ran.load(Ordering::SeqCst) == UNITS as usize
    }));
    let st = server.stats();
    assert_eq!(counts.refused.load(Ordering::SeqCst), 0);
    assert_eq!(st.run_queued, CAPACITY as u64);
    assert_eq!(st.run_inline, UNITS - CAPACITY as u64);
    assert_eq!(st.queue_full_total, UNITS - 1 - CAPACITY as u64);
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
    let server = Server::start(cfg, Fanout(counts.clone(), true, Duration::ZERO)).unwrap();
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

/// Runs `UNITS` busy units queued at once, the watchdog looking every 5 ms, and returns the
/// extra workers started because the queue was deep.
fn workers_started_by_a_deep_queue() -> u64 {
    let counts = Arc::new(Counts::default());
    let cfg = NetConfig {
        threads_per_group: 1,
        work_queue_capacity: 1024,
        deadlock_check_interval: Duration::from_millis(5),
        ..test_config()
    };
    let server =
        Server::start(cfg, Fanout(counts.clone(), true, Duration::from_millis(1))).unwrap();
    let mut s = connect(server.local_addr());
    write_all(&mut s, &frame(1, 1, b"busy"));
    assert!(wait_until(Duration::from_secs(30), || {
        counts.ran.load(Ordering::SeqCst) == UNITS as usize
    }));
    let started = server.stats().threads_by_queue;
    server.shutdown();
    started
}

#[test]
fn on_one_cpu_a_deep_queue_that_moves_starts_no_worker() {
    let cpu = xrpc_net::affinity::allowed_cpus().unwrap()[0];
    xrpc_net::affinity::pin_current_thread(&[cpu]).unwrap();
    assert_eq!(workers_started_by_a_deep_queue(), 0);
}

#[test]
fn on_several_cpus_a_deep_queue_starts_workers() {
    if xrpc_net::affinity::allowed_cpus().unwrap().len() < 2 {
        return;
    }
    assert!(workers_started_by_a_deep_queue() > 0);
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
        if unit.0.is_multiple_of(10) {
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

/// What a request of [`Mixed`] does, from the first byte of its body.
const ANSWER: u8 = 0;
/// Blocks inside `enter_wait` until [`Flags::release`] is set.
const BLOCK_UNTIL_RELEASED: u8 = 1;
/// Spins, calling the long unit's checkpoint, until [`Flags::release`] is set.
const SPIN_WITH_CHECKPOINTS: u8 = 2;
/// Spins without a checkpoint until [`Flags::release`] is set.
const SPIN_WITHOUT_CHECKPOINTS: u8 = 3;
/// Blocks inside `enter_wait` for one millisecond (stands for I/O to an engine).
const BLOCK_BRIEFLY: u8 = 4;
/// Spins for one millisecond, calling the checkpoint.
const SPIN_BRIEFLY: u8 = 5;
/// Sets [`Flags::release`], then answers.
const RELEASE: u8 = 6;
/// Calls the checkpoint twice and answers: a short statement whose VM count crossed SQLite's
/// progress interval.
const SHORT_WITH_CHECKPOINTS: u8 = 7;

/// How long a held unit waits for its release before it gives up (and the test fails).
const HOLD_LIMIT: Duration = Duration::from_secs(5);

#[derive(Default)]
struct Flags {
    release: AtomicBool,
    /// Units holding their worker now.
    holding: AtomicUsize,
    /// A held unit that gave up waiting for its release.
    gave_up: AtomicBool,
}

impl Flags {
    /// Holds the worker until released (or [`HOLD_LIMIT`]), calling `between` while it waits.
    fn hold(&self, mut between: impl FnMut()) {
        self.holding.fetch_add(1, Ordering::SeqCst);
        let deadline = Instant::now() + HOLD_LIMIT;
        while !self.release.load(Ordering::SeqCst) {
            if Instant::now() >= deadline {
                self.gave_up.store(true, Ordering::SeqCst);
                break;
            }
            between();
        }
        self.holding.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Every request is one unit, run in order per connection; it does what its first body byte
/// says, then answers with the request's sid and kind.
struct Mixed(Arc<Flags>);

impl Handler for Mixed {
    type Conn = parking_lot::Mutex<VecDeque<(u64, u8)>>;

    fn on_connect(&self, _conn: &ConnRef) -> Self::Conn {
        Default::default()
    }

    fn on_frames(
        &self,
        _: &ConnRef,
        pending: &Self::Conn,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        for f in frames {
            pending.lock().push_back((f.sid, f.body[0]));
            runnable.push(UnitId(0));
        }
    }

    fn run_unit(&self, conn: &ConnRef, pending: &Self::Conn, _: UnitId, cx: &RunContext<'_>) {
        let Some((sid, kind)) = pending.lock().pop_front() else {
            return;
        };
        let flags = &self.0;
        match kind {
            BLOCK_UNTIL_RELEASED => {
                let _stall = cx.enter_wait();
                flags.hold(std::thread::yield_now);
            }
            SPIN_WITH_CHECKPOINTS => flags.hold(xrpc_net::flush_deferred_sends),
            SPIN_WITHOUT_CHECKPOINTS => flags.hold(std::hint::spin_loop),
            BLOCK_BRIEFLY => {
                let _stall = cx.enter_wait();
                std::thread::sleep(Duration::from_millis(1));
            }
            SPIN_BRIEFLY => {
                let until = Instant::now() + Duration::from_millis(1);
                while Instant::now() < until {
                    xrpc_net::flush_deferred_sends();
                }
            }
            RELEASE => flags.release.store(true, Ordering::SeqCst),
            SHORT_WITH_CHECKPOINTS => {
                xrpc_net::flush_deferred_sends();
                xrpc_net::flush_deferred_sends();
            }
            _ => {}
        }
        conn.send_deferred(&frame(sid, kind, b"done")).unwrap();
    }
}

/// A one-CPU group of four workers whose watchdog looks every `watchdog` (pinning this thread
/// makes the group one-CPU: its workers inherit the mask).
fn one_cpu_server(flags: &Arc<Flags>, watchdog: Duration) -> Server<Mixed> {
    let cpu = xrpc_net::affinity::allowed_cpus().unwrap()[0];
    xrpc_net::affinity::pin_current_thread(&[cpu]).unwrap();
    let cfg = NetConfig {
        threads_per_group: 4,
        deadlock_check_interval: watchdog,
        ..test_config()
    };
    let server = Server::start(cfg, Mixed(flags.clone())).unwrap();
    assert!(server.groups()[0].single_cpu());
    server
}

/// On a one-CPU server whose watchdog looks every `watchdog`, connection `held` gets a unit that
/// holds its worker (`kind`); connection `other` then sends a request that releases it, which a
/// worker must read while the unit holds the listener: the listening was handed over.
fn other_connection_is_heard_while_a_unit_holds_the_listener(kind: u8, watchdog: Duration) {
    let flags = Arc::new(Flags::default());
    let server = one_cpu_server(&flags, watchdog);
    let mut held = connect(server.local_addr());
    let mut other = connect(server.local_addr());
    // Every worker goes to sleep first: one listens, three wait on the eventfd.
    assert!(wait_until(Duration::from_secs(5), || server
        .stats()
        .waiting_threads
        == 4));
    write_all(&mut held, &frame(1, 1, &[kind]));
    assert!(wait_until(Duration::from_secs(5), || flags
        .holding
        .load(Ordering::SeqCst)
        == 1));
    write_all(&mut other, &frame(2, 1, &[RELEASE]));
    assert_eq!(read_frame(&mut other).unwrap().0, 2);
    assert_eq!(read_frame(&mut held).unwrap().0, 1);
    assert!(
        !flags.gave_up.load(Ordering::SeqCst),
        "the release was read only after the held unit gave up"
    );
    assert!(server.stats().listener_handovers >= 1);
    server.shutdown();
}

#[test]
fn on_one_cpu_a_listener_that_blocks_hands_the_listening_over() {
    // The watchdog looks too rarely to be what hands the listening over here.
    other_connection_is_heard_while_a_unit_holds_the_listener(
        BLOCK_UNTIL_RELEASED,
        Duration::from_secs(10),
    );
}

#[test]
fn on_one_cpu_a_long_unit_hands_the_listening_over_at_its_checkpoint() {
    other_connection_is_heard_while_a_unit_holds_the_listener(
        SPIN_WITH_CHECKPOINTS,
        Duration::from_secs(10),
    );
}

#[test]
fn on_one_cpu_the_watchdog_hands_the_listening_over_from_a_long_unit_without_checkpoints() {
    other_connection_is_heard_while_a_unit_holds_the_listener(
        SPIN_WITHOUT_CHECKPOINTS,
        Duration::from_millis(50),
    );
}

#[test]
fn on_one_cpu_no_request_is_stranded_while_units_block_and_run_long() {
    const CONNECTIONS: usize = 8;
    const REQUESTS: u64 = 100;
    let flags = Arc::new(Flags::default());
    // A watchdog too slow to rescue anything within the clients' read timeout.
    let server = one_cpu_server(&flags, Duration::from_secs(10));
    let addr = server.local_addr();
    let clients: Vec<_> = (0..CONNECTIONS)
        .map(|c| {
            std::thread::spawn(move || {
                let mut s = connect(addr);
                for i in 0..REQUESTS {
                    let kind = match (i + c as u64) % 6 {
                        1 => BLOCK_BRIEFLY,
                        4 => SPIN_BRIEFLY,
                        _ => ANSWER,
                    };
                    write_all(&mut s, &frame(i + 1, 1, &[kind]));
                    let (sid, answered, _) = read_frame(&mut s).expect("answered in time");
                    assert_eq!((sid, answered), (i + 1, kind));
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let st = server.stats();
    assert_eq!(st.frames_received, CONNECTIONS as u64 * REQUESTS);
    server.shutdown();
}

#[test]
fn on_one_cpu_the_checkpoints_of_short_units_do_not_hand_the_listening_over() {
    const REQUESTS: u64 = 200;
    let flags = Arc::new(Flags::default());
    let server = one_cpu_server(&flags, Duration::from_secs(10));
    let mut s = connect(server.local_addr());
    assert!(wait_until(Duration::from_secs(5), || server
        .stats()
        .waiting_threads
        == 4));
    for i in 0..REQUESTS {
        write_all(&mut s, &frame(i + 1, 1, &[SHORT_WITH_CHECKPOINTS]));
        assert_eq!(read_frame(&mut s).unwrap().0, i + 1);
    }
    // Each unit leaves the listener slot empty while three workers sleep, so a checkpoint that
    // handed over at once would wake one per request; only a unit descheduled for a millisecond
    // between its two checkpoints (a loaded machine) may.
    let handovers = server.stats().listener_handovers;
    assert!(
        handovers <= REQUESTS / 10,
        "{handovers} hand-overs for {REQUESTS} short units"
    );
    server.shutdown();
}
