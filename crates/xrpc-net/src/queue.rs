//! A bounded lock-free multi-producer multi-consumer array queue: the epoll group's task queue.
//!
//! # Algorithm
//!
//! This is Dmitry Vyukov's bounded MPMC queue
//! (<https://www.1024cores.net/home/lock-free-algorithms/queues/bounded-mpmc-queue>), with the
//! linearizability fix that crossbeam-queue's `ArrayQueue` adds (a push never reports "full" and a pop
//! never reports "empty" only because a concurrent operation on the same slot is half done). The
//! XRPC article names crossbeam's array queue as the model for its task queue.
//!
//! The queue is a ring of `capacity` slots and two counters, `tail` (the next position to push) and
//! `head` (the next position to pop), each on its own cache line so that producers and consumers do
//! not false-share. Positions grow without bound (wrapping at `usize::MAX`, which takes centuries);
//! position `p` lives in slot `p & mask`. Each slot carries a sequence number `seq` that says which
//! position the slot is ready for, and so who may touch it next:
//!
//! | `seq`         | slot state                                  | who may act next                  |
//! | ------------- | ------------------------------------------- | --------------------------------- |
//! | `p`           | empty, ready for the push of position `p`   | the producer that claims `p`      |
//! | `p + 1`       | holds the value pushed at position `p`      | the consumer that claims `p`      |
//! | `p + cap`     | emptied by the pop of `p`                   | the producer of `p + cap`         |
//!
//! A producer reads `tail = p`, checks `seq == p`, claims the position with a CAS `tail: p -> p + 1`,
//! writes the value and publishes it with `seq = p + 1` (Release). A consumer reads `head = p`,
//! checks `seq == p + 1` (Acquire), claims with a CAS `head: p -> p + 1`, moves the value out and
//! hands the slot to the next lap with `seq = p + cap` (Release).
//!
//! When the slot is not ready, the operation distinguishes a real "full"/"empty" from a race: after a
//! `SeqCst` fence it reloads the other counter. The queue is full only if `head + cap == tail` and
//! empty only if `head == tail`; otherwise a concurrent operation has claimed the slot and is a few
//! instructions from publishing it, and the caller backs off and retries. This wait is what makes
//! the queue linearizable (a `pop` after a returned `push` finds the value), at the cost of strict
//! lock-freedom: a thread preempted between its claim and its publish delays others on that slot.
//!
//! # Capacity
//!
//! The capacity is rounded up to a power of two, at least 2, so a position maps to its slot with a
//! mask and the three `seq` states above stay distinct (with one slot, "full for `p`" and "ready for
//! `p + 1`" would both be `p + 1`). The production range 128..=4096 is meant to be configured with
//! powers of two, which are kept exactly; [`TaskQueue::capacity`] reports the rounded value.
//!
//! # Invariants
//!
//! The `// SAFETY:` comments cite these by number.
//!
//! 1. `tail` and `head` only move forward, one position at a time, by a successful CAS. The thread
//!    whose CAS moves `tail` from `p` claims the push of position `p`; the thread whose CAS moves
//!    `head` from `p` claims the pop of `p`. Each position is claimed by at most one producer and at
//!    most one consumer.
//! 2. A producer claims `p` only after it observed `seq == p` with Acquire, so the consumer of the
//!    previous lap (`p - cap`) had finished moving its value out (its Release store of `seq = p`
//!    happens-before the producer's write). No other thread touches the slot until the producer
//!    stores `seq = p + 1`: consumers wait for `p + 1`, producers for a later position.
//! 3. A consumer claims `p` only after it observed `seq == p + 1` with Acquire, which synchronizes
//!    with the producer's Release store after the write, so the slot holds an initialized `T`
//!    written by that producer. No other thread touches the slot until the consumer stores
//!    `seq = p + cap`.
//! 4. Every value written into a slot is moved out exactly once: by the consumer that claims its
//!    position (3), or by `Drop`.
//! 5. With `&mut self` no operation is in flight, so every position in `head..tail` has been fully
//!    pushed and not popped, and `pop` drains them without waiting.
//! 6. Claims (the CAS on `tail` or `head`) are `SeqCst`, and the full/empty checks read the other
//!    counter after a `SeqCst` fence. This puts every claim and every check in the single total
//!    order of `SeqCst` operations, so a check that read a counter value written by some thread's
//!    claim also sees that thread's earlier claims on the other counter. With `Relaxed` claims a
//!    thread could see `head` moved by another thread's pop but not that thread's earlier push,
//!    and report "empty" while a pushed value sat in the queue; loom finds that interleaving
//!    (`loom_push_then_pop_is_linearizable`). On x86 a CAS is a locked instruction whatever its
//!    ordering, so this costs nothing there.
//!
//! # Progress counters
//!
//! `head` counts every successful pop since creation (1), so [`TaskQueue::pops`] is just a load of
//! it: a watchdog that sees the queue non-empty and `pops()` unchanged over an interval knows no
//! worker is taking tasks. [`TaskQueue::pushes`] is the same for `tail`.

use std::fmt;
use std::mem::{self, MaybeUninit};

use crossbeam_utils::CachePadded;

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicUsize, Ordering, fence};

/// One ring slot: the value and the sequence number that says which position it is ready for.
struct Slot<T> {
    seq: AtomicUsize,
    value: UnsafeCell<MaybeUninit<T>>,
}

/// A bounded lock-free MPMC queue of tasks; see the [module docs](self) for the algorithm.
///
/// ```
/// use xrpc_net::queue::TaskQueue;
///
/// let q = TaskQueue::new(2);
/// assert_eq!(q.push(1), Ok(()));
/// assert_eq!(q.push(2), Ok(()));
/// assert_eq!(q.push(3), Err(3)); // full: the value comes back
/// assert_eq!(q.pop(), Some(1));
/// assert_eq!(q.pops(), 1);
/// ```
pub struct TaskQueue<T> {
    /// The next position to pop; also the number of successful pops.
    head: CachePadded<AtomicUsize>,
    /// The next position to push; also the number of successful pushes.
    tail: CachePadded<AtomicUsize>,
    /// `capacity` slots; slot `i` starts ready for position `i`.
    buffer: Box<[Slot<T>]>,
    /// `capacity - 1`, with `capacity` a power of two.
    mask: usize,
}

// SAFETY: the queue hands each `T` from the pushing thread to exactly one popping thread
// (invariants 2-4), so sharing `&TaskQueue<T>` between threads only needs `T: Send`. `Send` is
// derived automatically (the slots own their `T`).
unsafe impl<T: Send> Sync for TaskQueue<T> {}

impl<T> TaskQueue<T> {
    /// Creates a queue that holds at least `capacity` items, rounded up to a power of two (at least 2).
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is zero or above `isize::MAX / 4`.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "capacity must be non-zero");
        // Keeping `cap` far below `isize::MAX` keeps the signed `seq - pos` distance unambiguous.
        assert!(capacity <= (isize::MAX as usize) / 4, "capacity too large");
        let cap = capacity.next_power_of_two().max(2);
        let buffer = (0..cap)
            .map(|i| Slot {
                seq: AtomicUsize::new(i),
                value: UnsafeCell::new(MaybeUninit::uninit()),
            })
            .collect::<Box<[_]>>();
        Self {
            head: CachePadded::new(AtomicUsize::new(0)),
            tail: CachePadded::new(AtomicUsize::new(0)),
            buffer,
            mask: cap - 1,
        }
    }

    /// Appends `value`, or hands it back if the queue is full.
    pub fn push(&self, value: T) -> Result<(), T> {
        let mut backoff = Backoff::new();
        let mut tail = self.tail.load(Ordering::Relaxed);
        loop {
            let slot = &self.buffer[tail & self.mask];
            let seq = slot.seq.load(Ordering::Acquire);
            // Signed distance between what the slot is ready for and the position we want.
            let diff = seq.wrapping_sub(tail) as isize;
            if diff == 0 {
                // SeqCst on success: see invariant 6.
                match self.tail.compare_exchange_weak(
                    tail,
                    tail.wrapping_add(1),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        slot.value.with_mut(|ptr| {
                            // SAFETY: this thread claimed position `tail` (1) after seeing the slot
                            // ready for it, so it has exclusive access to the slot's value until the
                            // store below, and the slot holds no live value to overwrite (2).
                            unsafe { ptr.write(MaybeUninit::new(value)) }
                        });
                        slot.seq.store(tail.wrapping_add(1), Ordering::Release);
                        return Ok(());
                    }
                    Err(current) => {
                        tail = current;
                        backoff.spin();
                    }
                }
            } else if diff < 0 {
                // The slot still belongs to the previous lap: either the queue is full, or the
                // consumer of `tail - cap` has claimed it and not yet released it.
                fence(Ordering::SeqCst);
                let head = self.head.load(Ordering::Relaxed);
                if head.wrapping_add(self.capacity()) == tail {
                    return Err(value);
                }
                backoff.snooze();
                tail = self.tail.load(Ordering::Relaxed);
            } else {
                // Another producer took `tail` since we loaded it.
                backoff.spin();
                tail = self.tail.load(Ordering::Relaxed);
            }
        }
    }

    /// Removes the oldest item, or returns `None` if the queue is empty.
    pub fn pop(&self) -> Option<T> {
        let mut backoff = Backoff::new();
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            let slot = &self.buffer[head & self.mask];
            let seq = slot.seq.load(Ordering::Acquire);
            let diff = seq.wrapping_sub(head.wrapping_add(1)) as isize;
            if diff == 0 {
                // SeqCst on success: see invariant 6.
                match self.head.compare_exchange_weak(
                    head,
                    head.wrapping_add(1),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        let value = slot.value.with(|ptr| {
                            // SAFETY: this thread claimed the pop of `head` (1) after an Acquire
                            // load saw `seq == head + 1`, so the slot holds the initialized value
                            // its producer wrote (3), and nobody else reads or writes it until the
                            // store below. Reading moves the value out; the slot is then treated
                            // as uninitialized, so the value is not dropped twice (4).
                            unsafe { ptr.read().assume_init() }
                        });
                        slot.seq
                            .store(head.wrapping_add(self.capacity()), Ordering::Release);
                        return Some(value);
                    }
                    Err(current) => {
                        head = current;
                        backoff.spin();
                    }
                }
            } else if diff < 0 {
                // The slot has not been published for `head`: either the queue is empty, or its
                // producer has claimed it and not yet written it.
                fence(Ordering::SeqCst);
                let tail = self.tail.load(Ordering::Relaxed);
                if tail == head {
                    return None;
                }
                backoff.snooze();
                head = self.head.load(Ordering::Relaxed);
            } else {
                // Another consumer took `head` since we loaded it.
                backoff.spin();
                head = self.head.load(Ordering::Relaxed);
            }
        }
    }

    /// The number of slots (the requested capacity rounded up to a power of two, at least 2).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.mask + 1
    }

    /// The number of items in the queue at some instant during the call.
    pub fn len(&self) -> usize {
        loop {
            let tail = self.tail.load(Ordering::SeqCst);
            let head = self.head.load(Ordering::SeqCst);
            // A consistent pair: `tail` did not move while `head` was read.
            if self.tail.load(Ordering::SeqCst) == tail {
                return tail.wrapping_sub(head).min(self.capacity());
            }
        }
    }

    /// Whether the queue was empty at some instant during the call.
    pub fn is_empty(&self) -> bool {
        let head = self.head.load(Ordering::SeqCst);
        let tail = self.tail.load(Ordering::SeqCst);
        tail == head
    }

    /// Whether the queue was full at some instant during the call.
    pub fn is_full(&self) -> bool {
        let tail = self.tail.load(Ordering::SeqCst);
        let head = self.head.load(Ordering::SeqCst);
        head.wrapping_add(self.capacity()) == tail
    }

    /// The number of successful pops since creation (monotonic, wrapping only after 2^64).
    ///
    /// A watchdog compares two readings: the same value while [`len`](Self::len) is non-zero means
    /// no worker took a task in between.
    #[inline]
    pub fn pops(&self) -> u64 {
        self.head.load(Ordering::Relaxed) as u64
    }

    /// The number of successful pushes since creation (monotonic, wrapping only after 2^64).
    #[inline]
    pub fn pushes(&self) -> u64 {
        self.tail.load(Ordering::Relaxed) as u64
    }
}

impl<T> Drop for TaskQueue<T> {
    fn drop(&mut self) {
        if mem::needs_drop::<T>() {
            // No operation is in flight under `&mut self`, so this never waits (5).
            while self.pop().is_some() {}
        }
    }
}

impl<T> fmt::Debug for TaskQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskQueue")
            .field("capacity", &self.capacity())
            .field("len", &self.len())
            .field("pops", &self.pops())
            .finish()
    }
}

/// Exponential backoff for retry loops, after crossbeam-utils' `Backoff`.
///
/// `spin` is for lost CAS races (another thread made progress; retry soon). `snooze` is for waiting
/// on a thread that has claimed a slot and not yet published it: it spins briefly, then yields the
/// CPU, since that thread may have been preempted (the machine may have fewer cores than workers).
#[derive(Debug)]
struct Backoff {
    step: u32,
}

impl Backoff {
    /// Spins up to 2^`SPIN_LIMIT` times per step before `snooze` starts yielding.
    const SPIN_LIMIT: u32 = 6;

    fn new() -> Self {
        Self { step: 0 }
    }

    #[inline]
    fn spin(&mut self) {
        #[cfg(loom)]
        crate::loom::thread::yield_now();
        #[cfg(not(loom))]
        for _ in 0..1u32 << self.step.min(Self::SPIN_LIMIT) {
            crate::loom::hint::spin_loop();
        }
        if self.step <= Self::SPIN_LIMIT {
            self.step += 1;
        }
    }

    #[inline]
    fn snooze(&mut self) {
        #[cfg(loom)]
        crate::loom::thread::yield_now();
        #[cfg(not(loom))]
        if self.step <= Self::SPIN_LIMIT {
            for _ in 0..1u32 << self.step {
                crate::loom::hint::spin_loop();
            }
        } else {
            crate::loom::thread::yield_now();
        }
        if self.step <= Self::SPIN_LIMIT + 4 {
            self.step += 1;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::TaskQueue;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn push_pop_fifo() {
        let q = TaskQueue::new(4);
        assert!(q.is_empty());
        for i in 0..4 {
            q.push(i).unwrap();
        }
        assert!(q.is_full());
        assert_eq!(q.len(), 4);
        for i in 0..4 {
            assert_eq!(q.pop(), Some(i));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    #[test]
    fn capacity_rounds_up_to_power_of_two() {
        let cases = [
            (1, 2),
            (2, 2),
            (3, 4),
            (128, 128),
            (200, 256),
            (256, 256),
            (4096, 4096),
        ];
        for (asked, got) in cases {
            assert_eq!(TaskQueue::<u8>::new(asked).capacity(), got, "asked {asked}");
        }
    }

    #[test]
    #[should_panic(expected = "capacity must be non-zero")]
    fn zero_capacity_panics() {
        let _ = TaskQueue::<u8>::new(0);
    }

    #[test]
    fn full_hands_value_back() {
        let q = TaskQueue::new(2);
        q.push("a").unwrap();
        q.push("b").unwrap();
        assert_eq!(q.push("c"), Err("c"));
        assert_eq!(q.pop(), Some("a"));
        q.push("c").unwrap();
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn wraps_around_many_laps() {
        let q = TaskQueue::new(4);
        let mut next_out = 0;
        for i in 0..1000 {
            q.push(i).unwrap();
            if i % 3 == 2 {
                // Keep 1-3 items queued so positions and slots drift against each other.
                while q.len() > 1 {
                    assert_eq!(q.pop(), Some(next_out));
                    next_out += 1;
                }
            }
        }
        while let Some(v) = q.pop() {
            assert_eq!(v, next_out);
            next_out += 1;
        }
        assert_eq!(next_out, 1000);
        assert_eq!(q.pops(), 1000);
        assert_eq!(q.pushes(), 1000);
    }

    #[test]
    fn pops_counts_only_successful_pops() {
        let q = TaskQueue::new(8);
        assert_eq!(q.pops(), 0);
        assert_eq!(q.pop(), None::<u32>);
        assert_eq!(q.pops(), 0);
        q.push(1).unwrap();
        q.push(2).unwrap();
        q.pop().unwrap();
        assert_eq!(q.pops(), 1);
        q.pop().unwrap();
        assert_eq!(q.pop(), None);
        assert_eq!(q.pops(), 2);
    }

    #[test]
    fn drop_drains_remaining_items() {
        let live = Arc::new(AtomicUsize::new(0));
        struct Counted(Arc<AtomicUsize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        let q = TaskQueue::new(8);
        for _ in 0..5 {
            live.fetch_add(1, Ordering::Relaxed);
            q.push(Counted(live.clone())).ok().unwrap();
        }
        drop(q.pop());
        assert_eq!(live.load(Ordering::Relaxed), 4);
        drop(q);
        assert_eq!(live.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn zero_sized_items() {
        let q = TaskQueue::new(3);
        for _ in 0..4 {
            q.push(()).unwrap();
        }
        assert_eq!(q.push(()), Err(()));
        assert_eq!(q.len(), 4);
        while q.pop().is_some() {}
        assert!(q.is_empty());
    }

    #[test]
    fn debug_shows_state() {
        let q = TaskQueue::new(2);
        q.push(1).unwrap();
        let s = format!("{q:?}");
        assert!(s.contains("capacity: 2") && s.contains("len: 1"), "{s}");
    }
}

/// Loom models: small capacities, two or three threads, every interleaving.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::TaskQueue;
    use crate::loom::sync::Arc;
    use crate::loom::sync::atomic::{AtomicUsize, Ordering};
    use crate::loom::thread;

    /// Pushes `v`, yielding while the queue is full.
    fn push_wait(q: &TaskQueue<usize>, mut v: usize) {
        while let Err(back) = q.push(v) {
            v = back;
            thread::yield_now();
        }
    }

    /// Pops one item, yielding while the queue is empty.
    fn pop_wait(q: &TaskQueue<usize>) -> usize {
        loop {
            if let Some(v) = q.pop() {
                return v;
            }
            thread::yield_now();
        }
    }

    /// Two threads each push then pop: both pops succeed (linearizability), and the two values
    /// come out exactly once between them.
    #[test]
    fn loom_push_then_pop_is_linearizable() {
        loom::model(|| {
            let q = Arc::new(TaskQueue::new(2));
            let handles: Vec<_> = (0..2)
                .map(|i| {
                    let q = q.clone();
                    thread::spawn(move || {
                        q.push(i).unwrap();
                        q.pop().expect("a completed push is visible to a later pop")
                    })
                })
                .collect();
            let mut got: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            got.sort_unstable();
            assert_eq!(got, [0, 1]);
            assert!(q.is_empty());
            assert_eq!(q.pops(), 2);
        });
    }

    /// The mirror image: a full queue, and two threads that each pop and then push. Each push must
    /// succeed, because the thread's own completed pop freed a slot.
    #[test]
    fn loom_pop_then_push_is_linearizable() {
        loom::model(|| {
            let q = Arc::new(TaskQueue::new(2));
            q.push(0).unwrap();
            q.push(1).unwrap();
            let handles: Vec<_> = (0..2)
                .map(|i| {
                    let q = q.clone();
                    thread::spawn(move || {
                        let got = q.pop().expect("two items for two pops");
                        q.push(10 + i)
                            .expect("a completed pop frees a slot for a later push");
                        got
                    })
                })
                .collect();
            let mut got: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            got.sort_unstable();
            assert_eq!(got, [0, 1]);
            assert!(q.is_full());
        });
    }

    /// One producer pushes three items through two slots (so it wraps and hits "full"); one consumer
    /// receives them in order.
    #[test]
    fn loom_spsc_wraps_in_order() {
        loom::model(|| {
            let q = Arc::new(TaskQueue::new(2));
            let producer = {
                let q = q.clone();
                thread::spawn(move || {
                    for i in 0..3 {
                        push_wait(&q, i);
                    }
                })
            };
            for i in 0..3 {
                assert_eq!(pop_wait(&q), i);
            }
            producer.join().unwrap();
            assert_eq!(q.pop(), None);
        });
    }

    /// Two producers race for the last free slot: exactly one wins, the loser gets its value back,
    /// and a concurrent consumer never sees a value twice.
    #[test]
    fn loom_race_for_last_slot() {
        loom::model(|| {
            let q = Arc::new(TaskQueue::new(2));
            q.push(10).unwrap();
            let accepted = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..2)
                .map(|i| {
                    let q = q.clone();
                    let accepted = accepted.clone();
                    thread::spawn(move || match q.push(20 + i) {
                        Ok(()) => {
                            accepted.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(v) => assert_eq!(v, 20 + i),
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            assert_eq!(accepted.load(Ordering::Relaxed), 1);
            assert_eq!(q.pop(), Some(10));
            let second = q.pop().unwrap();
            assert!(second == 20 || second == 21);
            assert_eq!(q.pop(), None);
        });
    }

    /// Items left in the queue are dropped exactly once when the last handle goes away on another
    /// thread.
    #[test]
    fn loom_drop_drains() {
        loom::model(|| {
            let item = Arc::new(());
            let q = Arc::new(TaskQueue::new(2));
            q.push(item.clone()).unwrap();
            let other = {
                let q = q.clone();
                thread::spawn(move || {
                    drop(q.pop());
                })
            };
            q.push(item.clone()).unwrap();
            drop(q);
            other.join().unwrap();
            assert_eq!(Arc::strong_count(&item), 1);
        });
    }
}
