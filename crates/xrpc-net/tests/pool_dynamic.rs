//! The dynamic pool: it grows when handlers block inside `enter_wait`, shrinks back after a short
//! `shrink_time`, and the watchdog breaks a deadlock where every worker waits for a queued task.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use parking_lot::{Condvar, Mutex};
use xrpc_net::{ConnRef, FrameBatch, Handler, NetConfig, RunContext, Server, UnitId};

/// A gate that blocked units wait on.
#[derive(Default)]
struct Latch {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Latch {
    fn wait(&self) {
        let mut open = self.open.lock();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !*open {
            assert!(
                !self.cv.wait_until(&mut open, deadline).timed_out(),
                "latch never opened"
            );
        }
    }

    fn open(&self) {
        *self.open.lock() = true;
        self.cv.notify_all();
    }
}

/// Every frame makes unit 0 runnable; the unit blocks on the latch, inside `enter_wait` or not,
/// then answers.
struct Blocker {
    latch: Arc<Latch>,
    blocked: Arc<AtomicUsize>,
    use_wait_guard: bool,
    /// When this many units are blocked, the last one queues the task that opens the latch.
    release_at: Option<usize>,
}

impl Handler for Blocker {
    type Conn = ();

    fn on_connect(&self, _conn: &ConnRef) {}

    fn on_frames(
        &self,
        _conn: &ConnRef,
        _state: &(),
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        if frames.count() > 0 {
            runnable.push(UnitId(0));
        }
    }

    fn run_unit(&self, conn: &ConnRef, _state: &(), _unit: UnitId, cx: &RunContext<'_>) {
        let n = self.blocked.fetch_add(1, Ordering::SeqCst) + 1;
        if Some(n) == self.release_at {
            let latch = self.latch.clone();
            cx.group()
                .push_task(move |_| latch.open())
                .expect("queue has room");
        }
        if self.use_wait_guard {
            let _stall = cx.enter_wait();
            self.latch.wait();
        } else {
            self.latch.wait();
        }
        self.blocked.fetch_sub(1, Ordering::SeqCst);
        let _ = conn.send(&frame(1, 1, b"done"));
    }
}

fn config() -> NetConfig {
    NetConfig {
        threads_per_group: 2,
        scale_thresh: 1,
        shrink_time: Duration::from_millis(300),
        deadlock_check_interval: Duration::from_millis(50),
        ..test_config()
    }
}

#[test]
fn pool_grows_when_handlers_block_and_shrinks_after_shrink_time() {
    const BLOCKERS: usize = 6;
    let latch = Arc::new(Latch::default());
    let blocked = Arc::new(AtomicUsize::new(0));
    let server = Server::start(
        config(),
        Blocker {
            latch: latch.clone(),
            blocked: blocked.clone(),
            use_wait_guard: true,
            release_at: None,
        },
    )
    .unwrap();
    let mut clients: Vec<_> = (0..BLOCKERS)
        .map(|_| connect(server.local_addr()))
        .collect();
    for c in &mut clients {
        write_all(c, &frame(1, 1, b"block"));
    }
    // Every unit blocks at once: only possible if the pool grew past its 2 base workers.
    assert!(
        wait_until(Duration::from_secs(5), || blocked.load(Ordering::SeqCst)
            == BLOCKERS),
        "only {} of {BLOCKERS} units got a worker",
        blocked.load(Ordering::SeqCst)
    );
    let st = server.stats();
    assert!(st.threads_by_stall >= (BLOCKERS - 1) as u64, "{st:?}");
    assert!(st.extra_threads >= (BLOCKERS - 1) as u64, "{st:?}");
    assert_eq!(st.stalled_threads, BLOCKERS as u64);
    latch.open();
    for c in &mut clients {
        assert_eq!(read_frame(c).unwrap().2, b"done");
    }
    // Without pressure the extra workers exit after shrink_time (300 ms).
    assert!(
        wait_until(Duration::from_secs(5), || server.stats().extra_threads == 0),
        "{:?}",
        server.stats()
    );
    let st = server.stats();
    assert_eq!(st.base_threads, 2);
    assert!(st.threads_exited >= (BLOCKERS - 1) as u64, "{st:?}");
    assert_eq!(server.groups()[0].workers(), 2);
    server.shutdown();
}

#[test]
fn watchdog_completes_a_barrier_that_only_a_queued_task_can_release() {
    let latch = Arc::new(Latch::default());
    let blocked = Arc::new(AtomicUsize::new(0));
    // Two base workers, both blocked without a wait guard; the second one to block queues the
    // task that would release them, and no worker is left to pop it.
    let server = Server::start(
        config(),
        Blocker {
            latch: latch.clone(),
            blocked: blocked.clone(),
            use_wait_guard: false,
            release_at: Some(2),
        },
    )
    .unwrap();
    let mut a = connect(server.local_addr());
    let mut b = connect(server.local_addr());
    write_all(&mut a, &frame(1, 1, b"block"));
    write_all(&mut b, &frame(1, 1, b"block"));
    assert_eq!(read_frame(&mut a).unwrap().2, b"done");
    assert_eq!(read_frame(&mut b).unwrap().2, b"done");
    let st = server.stats();
    assert!(st.watchdog_wakeups >= 1, "{st:?}");
    assert_eq!(st.threads_by_stall, 0, "no wait guard was used: {st:?}");
    server.shutdown();
}
