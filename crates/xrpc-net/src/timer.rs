//! The timer heap of one epoll group: one-shot and repeating timers in a min-heap, with logical
//! cancel.
//!
//! # Design
//!
//! The heap is sans-IO: it never reads the clock. The caller passes `now` to [`TimerHeap::pop_due`]
//! and uses [`TimerHeap::next_deadline`] to cut its `epoll_wait` timeout. In the framework the heap
//! sits behind a try-lock; whichever worker wins it pops the due timers into a vector and runs them
//! outside the lock, as the XRPC article describes ("only one thread processes the timer").
//!
//! Timers live in a slab (a `Vec` of entries plus a free list); the binary heap holds small nodes
//! `(deadline, seq, slot)` ordered by deadline and then by `seq`, a counter bumped on every
//! insertion, so timers with equal deadlines fire in the order they were scheduled (a repeating
//! timer's re-insertion counts as a new scheduling).
//!
//! **Cancel is logical.** [`TimerHeap::cancel`] frees the slab entry and leaves the heap node in
//! place; a node whose slab entry no longer carries its `seq` is stale and is discarded when it
//! reaches the top. After every operation that can expose a stale node at the top (`cancel` and
//! `pop_due`), the heap pops stale nodes until the top is live, so **the top of the heap is always a
//! live timer** and [`TimerHeap::next_deadline`] is an exact `O(1)` answer: a cancelled timer never
//! causes a wake-up. Stale nodes buried deeper cost memory only; when they outnumber live timers the
//! heap is rebuilt without them, which keeps the amortized cost of cancel at `O(log n)`.
//!
//! **Repeating timers do not drift.** A timer with period `p` due at `d` is re-inserted at `d + p`,
//! not at `now + p`. If the caller fell so far behind that `d + p` is already past, the timer fires
//! once (missed ticks are not replayed) and is re-inserted at the first `d + k·p` later than `now`.
//!
//! # Invariants
//!
//! 1. A slab entry is live iff it is `Some`; its `seq` equals the `seq` of exactly one heap node,
//!    the one that will fire it.
//! 2. The top of `heap`, if any, is live (1).
//! 3. `stale` is the number of heap nodes whose entry is gone or carries another `seq`.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::time::{Duration, Instant};

/// Identifies a scheduled timer; stays valid across the re-insertions of a repeating timer.
///
/// Ids are never reused within one [`TimerHeap`]: cancelling an id that already fired or was
/// cancelled returns `false` even if its slab slot holds a newer timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId {
    slot: u32,
    /// The heap's `seq` at scheduling time: unique per `schedule` call.
    uid: u64,
}

/// A min-heap of timers carrying items of type `T`; see the [module docs](self).
///
/// ```
/// use std::time::{Duration, Instant};
/// use xrpc_net::timer::TimerHeap;
///
/// let t0 = Instant::now();
/// let mut timers = TimerHeap::new();
/// let tick = timers.schedule(t0 + Duration::from_millis(10), Some(Duration::from_millis(10)), "tick");
/// let once = timers.schedule(t0 + Duration::from_millis(15), None, "once");
/// assert!(timers.cancel(once));
///
/// let mut due = Vec::new();
/// timers.pop_due(t0 + Duration::from_millis(10), &mut due);
/// assert_eq!(due, [(tick, "tick")]);
/// // The repeating timer is back in the heap at its next slot.
/// assert_eq!(timers.next_deadline(), Some(t0 + Duration::from_millis(20)));
/// ```
#[derive(Debug)]
pub struct TimerHeap<T> {
    heap: BinaryHeap<Reverse<Node>>,
    slab: Vec<Option<Entry<T>>>,
    free: Vec<u32>,
    /// Heap nodes whose timer was cancelled (3).
    stale: usize,
    /// Number of live timers.
    live: usize,
    next_seq: u64,
}

/// A heap node: ordered by deadline, then by insertion order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Node {
    deadline: Instant,
    seq: u64,
    slot: u32,
}

#[derive(Debug)]
struct Entry<T> {
    uid: u64,
    /// The `seq` of this timer's current heap node (1).
    seq: u64,
    period: Option<Duration>,
    item: T,
}

impl<T> TimerHeap<T> {
    /// Creates an empty heap.
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            stale: 0,
            live: 0,
            next_seq: 0,
        }
    }

    /// Schedules `item` to fire at `deadline`, and then every `period` if one is given.
    ///
    /// To wake a waiting worker when the new timer is earlier than every other, compare
    /// [`next_deadline`](Self::next_deadline) before and after, or use
    /// [`schedule_is_earliest`](Self::schedule_is_earliest).
    ///
    /// # Panics
    ///
    /// Panics if `period` is `Some(Duration::ZERO)`, or if more than `u32::MAX` timers are live.
    pub fn schedule(&mut self, deadline: Instant, period: Option<Duration>, item: T) -> TimerId {
        assert!(
            period != Some(Duration::ZERO),
            "a repeating timer needs a non-zero period"
        );
        let seq = self.bump_seq();
        let entry = Entry {
            uid: seq,
            seq,
            period,
            item,
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(entry);
                slot
            }
            None => {
                let slot = u32::try_from(self.slab.len()).expect("too many live timers");
                self.slab.push(Some(entry));
                slot
            }
        };
        self.live += 1;
        self.heap.push(Reverse(Node {
            deadline,
            seq,
            slot,
        }));
        TimerId { slot, uid: seq }
    }

    /// Like [`schedule`](Self::schedule), and also says whether the new timer is now the earliest,
    /// which is when a waiter must be woken to shorten its `epoll_wait` timeout.
    pub fn schedule_is_earliest(
        &mut self,
        deadline: Instant,
        period: Option<Duration>,
        item: T,
    ) -> (TimerId, bool) {
        let earliest = self.next_deadline().is_none_or(|d| deadline < d);
        (self.schedule(deadline, period, item), earliest)
    }

    /// Cancels a timer. Returns `false` if it already fired (one-shot) or was cancelled.
    ///
    /// The heap node stays until it surfaces (logical cancel); see the [module docs](self).
    pub fn cancel(&mut self, id: TimerId) -> bool {
        let Some(slot) = self.slab.get_mut(id.slot as usize) else {
            return false;
        };
        if slot.as_ref().is_none_or(|e| e.uid != id.uid) {
            return false;
        }
        *slot = None;
        self.free.push(id.slot);
        self.live -= 1;
        self.stale += 1;
        self.prune_top();
        if self.stale > 64 && self.stale > self.live {
            self.compact();
        }
        true
    }

    /// Whether the timer is still scheduled.
    pub fn contains(&self, id: TimerId) -> bool {
        self.slab
            .get(id.slot as usize)
            .is_some_and(|s| s.as_ref().is_some_and(|e| e.uid == id.uid))
    }

    /// The earliest deadline of a live timer. Never a cancelled timer's (invariant 2).
    #[inline]
    pub fn next_deadline(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse(n)| n.deadline)
    }

    /// The time from `now` to the next deadline (zero if it is due), to bound a wait.
    pub fn timeout(&self, now: Instant) -> Option<Duration> {
        self.next_deadline()
            .map(|d| d.saturating_duration_since(now))
    }

    /// The number of live timers.
    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no timer is live.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Removes every timer.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.slab.clear();
        self.free.clear();
        self.stale = 0;
        self.live = 0;
    }

    fn bump_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Whether a heap node still fires its timer (1).
    fn is_live(&self, node: &Node) -> bool {
        self.slab[node.slot as usize]
            .as_ref()
            .is_some_and(|e| e.seq == node.seq)
    }

    /// Restores invariant 2 by discarding stale nodes at the top.
    fn prune_top(&mut self) {
        while let Some(Reverse(top)) = self.heap.peek() {
            if self.is_live(top) {
                break;
            }
            self.heap.pop();
            self.stale -= 1;
        }
    }

    /// Rebuilds the heap without stale nodes.
    fn compact(&mut self) {
        let slab = &self.slab;
        self.heap.retain(|Reverse(n)| {
            slab[n.slot as usize]
                .as_ref()
                .is_some_and(|e| e.seq == n.seq)
        });
        self.stale = 0;
    }
}

impl<T: Clone> TimerHeap<T> {
    /// Appends to `out` every timer due at `now` (deadline `<= now`), earliest first, ties in
    /// scheduling order.
    ///
    /// One-shot timers are removed and their item moved out; repeating timers yield a clone and are
    /// re-inserted at their next slot after `now`, keeping their phase (see the [module docs](self)).
    pub fn pop_due(&mut self, now: Instant, out: &mut Vec<(TimerId, T)>) {
        while let Some(mut top) = self.heap.peek_mut() {
            let node = top.0;
            if node.deadline > now {
                break;
            }
            let slot = node.slot as usize;
            let Some(entry) = self.slab[slot].as_mut().filter(|e| e.seq == node.seq) else {
                // Stale (3): the timer was cancelled.
                PeekMut::pop(top);
                self.stale -= 1;
                continue;
            };
            let id = TimerId {
                slot: node.slot,
                uid: entry.uid,
            };
            match entry.period.and_then(|p| next_slot(node.deadline, p, now)) {
                Some(next) => {
                    // Re-arm in place: one sift-down instead of a pop and a push.
                    let seq = self.next_seq;
                    self.next_seq += 1;
                    entry.seq = seq;
                    out.push((id, entry.item.clone()));
                    top.0 = Node {
                        deadline: next,
                        seq,
                        slot: node.slot,
                    };
                }
                None => {
                    // One-shot, or a period so long that the next slot is not representable.
                    PeekMut::pop(top);
                    let entry = self.slab[slot].take().expect("checked live");
                    self.free.push(node.slot);
                    self.live -= 1;
                    out.push((id, entry.item));
                }
            }
        }
        self.prune_top();
    }
}

impl<T> Default for TimerHeap<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl Ord for Node {
    fn cmp(&self, other: &Self) -> Ordering {
        self.deadline
            .cmp(&other.deadline)
            .then(self.seq.cmp(&other.seq))
    }
}

impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The first `deadline + k * period` (k >= 1) strictly after `now`, or `None` on overflow.
fn next_slot(deadline: Instant, period: Duration, now: Instant) -> Option<Instant> {
    let next = deadline.checked_add(period)?;
    if next > now {
        return Some(next);
    }
    // Fell behind by at least one period: skip the missed ticks in one step.
    let behind = now.duration_since(deadline).as_nanos();
    let k = behind / period.as_nanos() + 1;
    let total = period.as_nanos().checked_mul(k)?;
    let secs = u64::try_from(total / 1_000_000_000).ok()?;
    let nanos = (total % 1_000_000_000) as u32;
    deadline.checked_add(Duration::new(secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn due<T: Clone>(h: &mut TimerHeap<T>, now: Instant) -> Vec<T> {
        let mut out = Vec::new();
        h.pop_due(now, &mut out);
        out.into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn fires_in_deadline_order() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        for (i, d) in [30, 10, 20, 50, 40].into_iter().enumerate() {
            h.schedule(t0 + ms(d), None, i);
        }
        assert_eq!(h.next_deadline(), Some(t0 + ms(10)));
        assert_eq!(due(&mut h, t0 + ms(5)), Vec::<usize>::new());
        assert_eq!(due(&mut h, t0 + ms(30)), [1, 2, 0]);
        assert_eq!(h.len(), 2);
        assert_eq!(due(&mut h, t0 + ms(100)), [4, 3]);
        assert!(h.is_empty());
        assert_eq!(h.next_deadline(), None);
    }

    #[test]
    fn ties_fire_in_scheduling_order() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        for i in 0..20 {
            h.schedule(t0 + ms(5), None, i);
        }
        assert_eq!(due(&mut h, t0 + ms(5)), (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn cancel_is_logical_and_next_deadline_skips_cancelled() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        let a = h.schedule(t0 + ms(1), None, 'a');
        let b = h.schedule(t0 + ms(2), None, 'b');
        let c = h.schedule(t0 + ms(3), None, 'c');
        assert!(h.cancel(a));
        assert!(!h.cancel(a), "second cancel is a no-op");
        assert_eq!(h.next_deadline(), Some(t0 + ms(2)));
        assert!(h.cancel(c)); // buried node: stays until it surfaces
        assert_eq!(h.len(), 1);
        assert!(h.contains(b) && !h.contains(c));
        assert_eq!(due(&mut h, t0 + ms(10)), ['b']);
        assert!(!h.cancel(b), "a fired one-shot cannot be cancelled");
        assert_eq!(h.next_deadline(), None);
    }

    #[test]
    fn ids_are_not_reused_across_slots() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        let a = h.schedule(t0, None, 1);
        assert!(h.cancel(a));
        let b = h.schedule(t0, None, 2); // reuses a's slot
        assert_ne!(a, b);
        assert!(!h.cancel(a));
        assert!(h.contains(b));
    }

    #[test]
    fn repeating_timer_keeps_phase_and_skips_missed_ticks() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        let id = h.schedule(t0 + ms(10), Some(ms(10)), "tick");
        // Late by 3 ms: fires once, next slot stays on the 10 ms grid.
        assert_eq!(due(&mut h, t0 + ms(13)), ["tick"]);
        assert_eq!(h.next_deadline(), Some(t0 + ms(20)));
        // Late by several periods: fires once, skips to the first slot after now.
        assert_eq!(due(&mut h, t0 + ms(55)), ["tick"]);
        assert_eq!(h.next_deadline(), Some(t0 + ms(60)));
        // Exactly on a slot boundary: the next slot is strictly later.
        assert_eq!(due(&mut h, t0 + ms(60)), ["tick"]);
        assert_eq!(h.next_deadline(), Some(t0 + ms(70)));
        assert!(h.cancel(id));
        assert_eq!(h.next_deadline(), None);
        assert_eq!(due(&mut h, t0 + ms(1000)), Vec::<&str>::new());
    }

    #[test]
    fn repeating_timer_id_is_stable() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        let id = h.schedule(t0 + ms(1), Some(ms(1)), ());
        let mut out = Vec::new();
        for k in 1..=5 {
            h.pop_due(t0 + ms(k), &mut out);
        }
        assert_eq!(out.len(), 5);
        assert!(out.iter().all(|(i, _)| *i == id));
    }

    #[test]
    #[should_panic(expected = "non-zero period")]
    fn zero_period_panics() {
        TimerHeap::new().schedule(Instant::now(), Some(Duration::ZERO), ());
    }

    #[test]
    fn schedule_is_earliest_reports_new_minimum() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        assert!(h.schedule_is_earliest(t0 + ms(10), None, ()).1);
        assert!(!h.schedule_is_earliest(t0 + ms(20), None, ()).1);
        assert!(
            !h.schedule_is_earliest(t0 + ms(10), None, ()).1,
            "a tie is not earlier"
        );
        assert!(h.schedule_is_earliest(t0 + ms(5), None, ()).1);
        assert_eq!(h.timeout(t0), Some(ms(5)));
        assert_eq!(h.timeout(t0 + ms(7)), Some(Duration::ZERO));
    }

    #[test]
    fn many_cancels_compact_the_heap() {
        let t0 = Instant::now();
        let mut h = TimerHeap::new();
        let keep = h.schedule(t0, None, 0);
        let ids: Vec<_> = (1..1000).map(|i| h.schedule(t0 + ms(i), None, i)).collect();
        for id in ids {
            assert!(h.cancel(id));
        }
        assert!(
            h.heap.len() <= 2 * h.len() + 64,
            "heap {} live {}",
            h.heap.len(),
            h.len()
        );
        assert_eq!(due(&mut h, t0 + ms(2000)), [0]);
        assert!(!h.contains(keep));
        assert_eq!(h.heap.len(), 0);
        assert_eq!(h.stale, 0);
    }

    /// Operations for the model test.
    #[derive(Debug, Clone)]
    enum Op {
        Schedule { at: u64, period: Option<u64> },
        Cancel(usize),
        Advance(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..100, prop::option::weighted(0.3, 1u64..30))
                .prop_map(|(at, period)| Op::Schedule { at, period }),
            2 => any::<usize>().prop_map(Op::Cancel),
            3 => (0u64..40).prop_map(Op::Advance),
        ]
    }

    /// A naive model: a list of live timers, scanned in full at every step.
    #[derive(Debug)]
    struct Model {
        /// (id index, deadline, insertion seq, period)
        timers: Vec<(usize, u64, u64, Option<u64>)>,
        seq: u64,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn matches_simple_model(ops in prop::collection::vec(op(), 1..80)) {
            let t0 = Instant::now();
            let mut heap = TimerHeap::new();
            let mut model = Model { timers: Vec::new(), seq: 0 };
            let mut ids: Vec<TimerId> = Vec::new();
            let mut now = 0u64;
            for op in ops {
                match op {
                    Op::Schedule { at, period } => {
                        let deadline = now + at;
                        let idx = ids.len();
                        ids.push(heap.schedule(t0 + ms(deadline), period.map(ms), idx));
                        model.timers.push((idx, deadline, model.seq, period));
                        model.seq += 1;
                    }
                    Op::Cancel(pick) => {
                        if ids.is_empty() { continue; }
                        let idx = pick % ids.len();
                        let expected = model.timers.iter().position(|t| t.0 == idx);
                        prop_assert_eq!(heap.cancel(ids[idx]), expected.is_some());
                        if let Some(pos) = expected { model.timers.remove(pos); }
                    }
                    Op::Advance(by) => {
                        now += by;
                        let mut got = Vec::new();
                        heap.pop_due(t0 + ms(now), &mut got);
                        let got: Vec<usize> = got.into_iter().map(|(id, idx)| {
                            assert_eq!(ids[idx], id);
                            idx
                        }).collect();
                        // Model: fire every due timer in (deadline, seq) order; re-arm repeaters.
                        let mut fired: Vec<_> = model.timers.iter().copied()
                            .filter(|t| t.1 <= now).collect();
                        fired.sort_by_key(|t| (t.1, t.2));
                        model.timers.retain(|t| t.1 > now);
                        let mut want = Vec::new();
                        for (idx, deadline, _, period) in fired {
                            want.push(idx);
                            if let Some(p) = period {
                                let next = deadline + ((now - deadline) / p + 1) * p;
                                model.timers.push((idx, next, model.seq, Some(p)));
                                model.seq += 1;
                            }
                        }
                        prop_assert_eq!(got, want);
                    }
                }
                let model_next = model.timers.iter().map(|t| t.1).min();
                prop_assert_eq!(heap.next_deadline(), model_next.map(|d| t0 + ms(d)));
                prop_assert_eq!(heap.len(), model.timers.len());
            }
        }
    }
}
