//! Timers of a running group fire in deadline order on the workers, cancelled ones never fire, a
//! repeating timer repeats until cancelled, and an early timer wakes a sleeping worker at once.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use parking_lot::Mutex;
use xrpc_bench::echo::EchoHandler;
use xrpc_net::{NetConfig, Server};

#[test]
fn timers_fire_in_order_and_cancel_correctly() {
    // A long epoll timeout: only the timer logic can make workers wake on time.
    let cfg = NetConfig {
        epoll_timeout: Duration::from_secs(30),
        ..test_config()
    };
    let server = Server::start(cfg, EchoHandler).unwrap();
    let group = server.groups()[0].clone();
    let fired: Arc<Mutex<Vec<(usize, Instant)>>> = Arc::default();
    let start = Instant::now();
    let delays_ms = [120u64, 30, 90, 60, 150, 10, 75, 45, 105, 135];
    let mut ids = Vec::new();
    for (i, &d) in delays_ms.iter().enumerate() {
        let fired = fired.clone();
        ids.push(
            group.schedule_timer(Duration::from_millis(d), None, move |_| {
                fired.lock().push((i, Instant::now()));
            }),
        );
    }
    // Cancel two of them, one of which is the earliest.
    assert!(group.cancel_timer(ids[5]));
    assert!(group.cancel_timer(ids[2]));
    assert!(!group.cancel_timer(ids[2]), "cancel is idempotent");

    let ticks = Arc::new(Mutex::new(0u32));
    let t = ticks.clone();
    let repeating = group.schedule_timer(
        Duration::from_millis(20),
        Some(Duration::from_millis(20)),
        move |_| *t.lock() += 1,
    );

    assert!(wait_until(Duration::from_secs(5), || fired.lock().len() == 8));
    std::thread::sleep(Duration::from_millis(50));
    let got = fired.lock().clone();
    assert_eq!(got.len(), 8, "cancelled timers fired: {got:?}");
    let order: Vec<usize> = got.iter().map(|&(i, _)| i).collect();
    let mut expected: Vec<usize> = (0..delays_ms.len()).filter(|&i| i != 5 && i != 2).collect();
    expected.sort_by_key(|&i| delays_ms[i]);
    assert_eq!(order, expected, "timers fired out of deadline order");
    for &(i, at) in &got {
        let due = Duration::from_millis(delays_ms[i]);
        let late = at.duration_since(start).saturating_sub(due);
        assert!(at.duration_since(start) >= due, "timer {i} fired early");
        assert!(
            late < Duration::from_millis(500),
            "timer {i} fired {late:?} late"
        );
    }

    assert!(
        *ticks.lock() >= 3,
        "repeating timer ticked {} times",
        ticks.lock()
    );
    assert!(group.cancel_timer(repeating));
    std::thread::sleep(Duration::from_millis(30));
    let after_cancel = *ticks.lock();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        *ticks.lock(),
        after_cancel,
        "a cancelled repeating timer kept firing"
    );
    assert!(server.stats().timers_fired >= 8 + 3);
    server.shutdown();
}
