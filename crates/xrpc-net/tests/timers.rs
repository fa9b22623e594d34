//! Timers fire in order and cancel correctly: a randomized run of the timer heap against brute
//! force, with a virtual clock (the heap never reads the real one).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::Rng;
use xrpc_net::timer::{TimerHeap, TimerId};

#[derive(Debug, Clone, Copy)]
struct Spec {
    /// Deadline offset from t0, in microseconds.
    at: u64,
    /// Period in microseconds, for repeating timers.
    period: Option<u64>,
    /// When the timer is cancelled, if it is.
    cancelled_at: Option<u64>,
}

/// Brute force: the clock readings (`steps`) at which a timer fires. A cancel at `c` applies
/// before the pop of the first step at or after `c`.
fn expected_firings(s: &Spec, steps: &[u64]) -> Vec<u64> {
    let mut fired = Vec::new();
    let mut deadline = s.at;
    let mut prev = 0;
    for &now in steps {
        if s.cancelled_at.is_some_and(|c| c > prev && c <= now) {
            break;
        }
        prev = now;
        if deadline > now {
            continue;
        }
        fired.push(now);
        match s.period {
            // The first slot on the timer's own grid strictly after `now`.
            Some(p) => deadline += ((now - deadline) / p + 1) * p,
            None => break,
        }
    }
    fired
}

#[test]
fn timers_fire_in_order_and_cancel_correctly() {
    const TIMERS: usize = 2_000;
    const END: u64 = 100_000;
    let mut rng = xrpc_testkit::rng::seeded_rng();
    let t0 = Instant::now();
    let us = Duration::from_micros;

    let mut specs = Vec::with_capacity(TIMERS);
    for _ in 0..TIMERS {
        let at = rng.gen_range(0..END);
        let period = rng.gen_bool(0.1).then(|| rng.gen_range(500..20_000));
        // A third of the timers are cancelled at some point of the run (some after they fired).
        let cancelled_at = rng.gen_bool(0.33).then(|| rng.gen_range(1..END));
        specs.push(Spec {
            at,
            period,
            cancelled_at,
        });
    }
    // Uneven clock steps; a few are long enough for repeating timers to fall several periods behind.
    let mut steps = Vec::new();
    let mut now = 0;
    while now < END + 40_000 {
        now += if rng.gen_bool(0.05) {
            rng.gen_range(5_000..30_000)
        } else {
            rng.gen_range(1..700)
        };
        steps.push(now);
    }

    let mut heap = TimerHeap::new();
    let ids: Vec<TimerId> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| heap.schedule(t0 + us(s.at), s.period.map(us), i))
        .collect();
    let index_of: HashMap<TimerId, usize> =
        ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    assert_eq!(index_of.len(), TIMERS, "ids are unique");

    // The deadline each timer is currently waiting for, to check the order within a pop.
    let mut deadline: Vec<u64> = specs.iter().map(|s| s.at).collect();
    let mut fired_at: Vec<Vec<u64>> = vec![Vec::new(); TIMERS];
    let mut cancelled = vec![false; TIMERS];
    let mut out = Vec::new();
    let mut prev = 0;
    for &now in &steps {
        for (i, s) in specs.iter().enumerate() {
            if s.cancelled_at.is_some_and(|c| c > prev && c <= now) {
                let still_scheduled = s.period.is_some() || fired_at[i].is_empty();
                assert_eq!(heap.cancel(ids[i]), still_scheduled, "cancel of timer {i}");
                assert!(!heap.cancel(ids[i]), "second cancel of timer {i}");
                cancelled[i] = true;
            }
        }
        prev = now;

        out.clear();
        heap.pop_due(t0 + us(now), &mut out);
        let mut last_deadline = 0;
        for (id, item) in &out {
            let i = index_of[id];
            assert_eq!(i, *item);
            assert!(!cancelled[i], "cancelled timer {i} fired");
            assert!(deadline[i] <= now, "timer {i} fired early");
            assert!(
                deadline[i] >= last_deadline,
                "timers within one pop come out by deadline"
            );
            last_deadline = deadline[i];
            if let Some(p) = specs[i].period {
                deadline[i] += ((now - deadline[i]) / p + 1) * p;
            }
            fired_at[i].push(now);
        }
        // Nothing due is left behind, and the next deadline belongs to a live timer.
        if let Some(next) = heap.next_deadline() {
            assert!(next > t0 + us(now));
            let live_min = (0..TIMERS)
                .filter(|&i| !cancelled[i] && (specs[i].period.is_some() || fired_at[i].is_empty()))
                .map(|i| deadline[i])
                .min();
            assert_eq!(Some(next), live_min.map(|d| t0 + us(d)));
        }
    }

    for (i, s) in specs.iter().enumerate() {
        assert_eq!(fired_at[i], expected_firings(s, &steps), "timer {i}: {s:?}");
    }
    let live = (0..TIMERS)
        .filter(|&i| specs[i].period.is_some() && !cancelled[i])
        .count();
    assert_eq!(heap.len(), live, "only uncancelled repeating timers remain");
}

#[test]
fn due_timers_come_out_sorted_with_ties_in_scheduling_order() {
    let t0 = Instant::now();
    let mut rng = xrpc_testkit::rng::seeded_rng();
    let mut heap = TimerHeap::new();
    let mut expected = Vec::new();
    for i in 0..5_000usize {
        // Few distinct deadlines, so ties are common.
        let at = rng.gen_range(0..50u64);
        heap.schedule(t0 + Duration::from_millis(at), None, i);
        expected.push((at, i));
    }
    expected.sort(); // by deadline, then by scheduling order (i increases with scheduling)
    let mut out = Vec::new();
    heap.pop_due(t0 + Duration::from_millis(100), &mut out);
    let got: Vec<usize> = out.into_iter().map(|(_, i)| i).collect();
    let want: Vec<usize> = expected.into_iter().map(|(_, i)| i).collect();
    assert_eq!(got, want);
    assert!(heap.is_empty());
}
