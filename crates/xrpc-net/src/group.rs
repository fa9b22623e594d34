//! Epoll groups and their workers: the event loop, the task queue, timers and the dynamic pool.
//!
//! A group is one epoll instance with its own listener (`SO_REUSEPORT`), eventfd, bounded
//! lock-free task queue, timer heap and connection table, served by equal, stateless workers.
//!
//! # The worker loop
//!
//! ```text
//! loop {
//!     pop and run tasks until the queue is empty
//!     run due timers if this worker wins the timer try-lock
//!     run deferred on_close callbacks
//!     (extra workers) exit after shrink_time without work
//!     waiting += 1; fence; if the queue is not empty { waiting -= 1; continue }   // crate::wake
//!     epoll_wait(events_per_thread, min(epoll_timeout, next timer))   // or, with every listener
//!     waiting -= 1                                                     // slot taken, poll the eventfd
//!     for each event: eventfd -> reset it first; listener -> accept all; socket -> receive + dispatch;
//!                     outbound socket -> its handler (`outbound`)
//! }
//! ```
//!
//! Receiving and dispatch live in [`crate::conn`]: the last runnable unit of the last event of a
//! batch runs inline; every other one becomes a task, and a push writes the eventfd only when some
//! worker is waiting (`wake.rs`).
//!
//! # A blocking handler in a batch
//!
//! The events of one `epoll_wait` are handled one after another by the worker that took them,
//! and the sockets are edge-triggered: an event still in a batch reaches no other worker. A
//! handler may block (a backend socket's handler delivering rows to a session that waits for its
//! client's token offer, a send to a full socket), and the events behind it in its batch would
//! wait with it; when one of them carries what the blocked handler waits for (that client's
//! offer), nothing ever wakes it. So a worker that enters a blocking section
//! ([`GroupHandle::enter_wait`]) first queues the events of its batch it has not handled, one task
//! each, and wakes a worker for them (the stall count starts one if none is free). Invariant: **a
//! worker blocks in `enter_wait` holding no event of its batch**, except those a full queue
//! refused, which wait for the end of its wait as before. The events stay in a thread-local
//! (`BATCH_LEFT`) rather than in the worker's array for that reason alone; handing one over
//! costs a task, and nothing while no handler blocks.
//!
//! # One CPU: no hand-off
//!
//! When every worker of a group can run only on one CPU (the group has one CPU and its workers are
//! bound to it, or the process may use one CPU at all), waking a second worker for the tasks a
//! worker queues while handling its events buys no parallelism: the woken worker would only take
//! turns with the pusher on that CPU, at the price of an eventfd write, an epoll wake-up and two
//! context switches per hand-off (a third of the node's CPU at 4096 clients in a profile of
//! `select 1`). So a push made *on one of the group's own workers* (dispatch after a receive, a
//! session's spill going back to the queue, a timer) wakes nobody there: the worker runs the task
//! itself when it returns to the top of its loop. Nothing is stranded: the pusher is awake and
//! pops the queue (or sees it non-empty after announcing its wait) before it can sleep. Workers
//! know their group through a thread-local set when they start; a push from any other thread
//! wakes a waiting worker as usual. A unit that blocks still lets the others run: its
//! `enter_wait` starts an extra worker, which begins by popping the queue, and the watchdog forces
//! one if the queue's head stops moving. The price is fairness on that one CPU: tasks queued
//! behind a long unit that does not block wait for it to end, where a woken worker would have
//! taken turns with it.
//!
//! # One CPU: one listener
//!
//! For the same reason a one-CPU group lets one worker at a time wait in `epoll_wait` (the
//! *listener*; the others wait on the eventfd), unless `max_epoll_waiters` sets the cap. With
//! every base worker in `epoll_wait`, a request that arrived while one worker was answering
//! another connection woke a second worker, which preempted the first on the same CPU: at 2
//! clients the node made 1.8 context switches per `select 1` against MariaDB's 1.2, with no
//! parallelism to show for them. With one listener the event waits in
//! epoll's ready list and the busy worker takes it with its next `epoll_wait`, without sleeping.
//! Invariant: **while no worker listens, a worker is running and returns to the top of its loop
//! (where it takes the free slot) without blocking and without running long** — or it hands the
//! listening over first: a worker that leaves the slot and then
//!
//! * enters a blocking section ([`GroupHandle::enter_wait`]),
//! * reaches a checkpoint of a unit that has run for `LONG_UNIT` (1 ms;
//!   [`crate::flush_deferred_sends`], which the server calls from SQLite's progress callback
//!   every 1000 VM instructions), or
//! * exits (an extra worker's shrink, a handler panic)
//!
//! writes the eventfd if nobody listens and some worker sleeps on it
//! (`ListenerSlots::must_hand_over` in `wake.rs`); the woken worker takes the free slot. A long
//! unit with no checkpoint is the remaining case: the watchdog writes the eventfd when a group has
//! sleepers, no listener and no loop progress over one `deadlock_check_interval`. The slot
//! protocol has a loom model (`wake.rs`); the one-CPU tests in `tests/queue_full.rs` check the
//! hand-overs at a blocking section, at a long unit's checkpoint and by the watchdog (not the one at
//! a worker's exit), that short units' checkpoints do not hand over, and that no request is
//! stranded among connections whose units block and run long.
//!
//! # The dynamic pool
//!
//! * **Stalls.** A handler about to block calls [`GroupHandle::enter_wait`]; the guard counts the
//!   worker as stalled until dropped. When `stalled > workers - base + scale_thresh` an extra worker
//!   starts at once.
//! * **Watchdog.** Every `deadlock_check_interval` a watchdog thread looks at each group. If the
//!   queue is non-empty and its head has not moved, or no worker is waiting and no worker loop
//!   advanced, it forces one extra worker (deadlock prevention: every worker may be blocked on
//!   something only a queued task can release). If pending tasks exceed `tasker_multiply ×
//!   workers`, it adds up to `tasker_extend_step` workers, unless the group runs on one CPU
//!   (there, a deep queue that moves means a busy CPU, which more workers cannot relieve).
//! * **Shrink.** An extra worker that found no work for `shrink_time` exits. Workers are reused, never
//!   spawned per request (gRPC-Go #3204), and the total is capped.

pub mod outbound;

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::config::NetConfig;
use crate::hist::{PerfHistograms, Stage};
use crate::loom::sync::Mutex as SyncMutex;
use crate::loom::sync::atomic::{AtomicBool as SyncBool, AtomicU64 as SyncU64};
use crate::pages::PagePool;
use crate::queue::TaskQueue;
use crate::stats::NetCounters;
use crate::sys::{self, Epoll, EventFd, Events, Ready};
use crate::table::ConnTable;
use crate::timer::{TimerHeap, TimerId};
use crate::wake::{ListenerSlots, Waiters};

/// Token of the group's eventfd in its epoll set.
const EVENTFD_TOKEN: u64 = u64::MAX;
/// Token of the group's listener in its epoll set.
const LISTENER_TOKEN: u64 = u64::MAX - 1;

/// A timer callback.
pub(crate) type TimerFn = Arc<dyn Fn(&GroupHandle) + Send + Sync>;

/// What the framework needs from a connection, with the handler type erased.
pub(crate) trait ConnTask: Send + Sync {
    /// The connection's shared part.
    fn conn_ref(&self) -> &crate::ConnRef;
    /// A readiness event arrived: receive, decode, dispatch.
    fn on_event(&self, me: &Arc<dyn ConnTask>, ready: Ready, cx: &mut EventCx<'_>);
    /// Runs one unit.
    fn run_unit(&self, unit: UnitId, cx: &RunContext<'_>);
    /// Calls the handler's `on_close`.
    fn closed(&self);
    /// Frees the dynamic receive buffer if it is idle; used by the shrink timer.
    fn shrink_recv(&self, now: Instant) -> ShrinkOutcome;
    /// Capacity of the dynamic receive buffer, if the receive gate is free.
    fn dynamic_capacity(&self) -> Option<usize>;
}

/// Result of a dynamic-buffer shrink attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShrinkOutcome {
    /// Nothing left to shrink.
    Done,
    /// Try again at this instant (the buffer is in use, busy, or not idle long enough).
    RetryAt(Instant),
}

/// Creates connections for accepted sockets.
pub(crate) trait ConnFactory: Send + Sync {
    /// Builds the connection (calling the handler's `on_connect`) for a reserved table token.
    fn create(
        &self,
        group: &GroupHandle,
        fd: OwnedFd,
        peer: Option<std::net::SocketAddr>,
        token: u64,
    ) -> Arc<dyn ConnTask>;

    /// `accept` failed; reported to the handler's `on_accept_error`.
    fn accept_failed(&self, err: &std::io::Error);
}

/// A queued piece of work.
pub(crate) enum Task {
    /// Run `unit` of `conn`.
    Unit {
        conn: Arc<dyn ConnTask>,
        unit: UnitId,
        /// When it became runnable (histograms on) and when it was queued.
        since: Option<Instant>,
    },
    /// Run a closure.
    Call(Box<dyn FnOnce(&GroupHandle) + Send>, Option<Instant>),
}

/// Per-event scratch handed to [`ConnTask::on_event`].
pub(crate) struct EventCx<'a> {
    pub(crate) group: &'a GroupHandle,
    /// Whether this is the last event of the `epoll_wait` batch.
    pub(crate) last_event: bool,
    pub(crate) runnable: &'a mut Vec<UnitId>,
}

/// Why a worker is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpawnReason {
    Base(usize),
    Stall,
    Queue,
    Watchdog,
}

/// One epoll group. Shared through [`GroupHandle`].
pub(crate) struct Group {
    pub(crate) id: usize,
    pub(crate) cfg: Arc<NetConfig>,
    pub(crate) epoll: Epoll,
    eventfd: EventFd,
    listener: Mutex<Option<OwnedFd>>,
    factory: Arc<dyn ConnFactory>,
    pub(crate) queue: TaskQueue<Task>,
    waiters: Waiters,
    /// Workers inside `epoll_wait` (module docs, "One CPU: one listener").
    listeners: ListenerSlots,
    /// Every worker of the group can run only on one CPU (see the module docs, "One CPU").
    single_cpu: AtomicBool,
    timers: Mutex<TimerHeap<TimerFn>>,
    /// Next timer deadline in ns since `epoch`, `u64::MAX` if none. Written under `timers`; read
    /// without it as a hint (a stale value costs one early wake-up or one try-lock).
    next_deadline: SyncU64,
    epoch: Instant,
    pub(crate) table: ConnTable<dyn ConnTask>,
    /// Sockets the node opened itself, driven by the workers (`crate::outbound`).
    pub(crate) outbound: ConnTable<dyn outbound::OutboundTask>,
    /// Finished connections whose `on_close` a worker has yet to run.
    closing: Deferred<Arc<dyn ConnTask>>,
    pub(crate) counters: Arc<NetCounters>,
    pub(crate) perf: Arc<PerfHistograms>,
    pub(crate) pages: PagePool,
    workers: AtomicUsize,
    stalled: AtomicUsize,
    /// Worker-loop iterations and tasks run; the watchdog checks that it advances.
    loops: AtomicU64,
    /// Units running right now (for graceful shutdown).
    pub(crate) running: AtomicUsize,
    /// Connections holding bytes deferred to the end of a worker's turn (`turn.rs`), counted
    /// so that a graceful shutdown waits for them as for running units.
    pub(crate) deferred: AtomicUsize,
    stopping: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
    cpus: Mutex<Arc<[usize]>>,
    cpu_gen: AtomicU64,
    worker_seq: AtomicUsize,
}

/// A handle to an epoll group: push tasks, schedule timers, mark blocking sections, take output
/// pages, read counters. Cheap to clone.
#[derive(Clone)]
pub struct GroupHandle(pub(crate) Arc<Group>);

impl std::fmt::Debug for GroupHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupHandle")
            .field("id", &self.0.id)
            .field("workers", &self.0.workers.load(Ordering::Relaxed))
            .field("queued", &self.0.queue.len())
            .finish()
    }
}

/// A task could not be queued because the group's queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueFull;

impl std::fmt::Display for QueueFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the group's task queue is full")
    }
}

impl std::error::Error for QueueFull {}

/// Marks a blocking section of a handler; the worker counts as stalled until the guard drops.
#[must_use = "the worker counts as stalled only while the guard lives"]
pub struct WaitGuard {
    group: GroupHandle,
}

impl std::fmt::Debug for WaitGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitGuard")
            .field("group", &self.group.0.id)
            .finish()
    }
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        let g = &self.group.0;
        g.stalled.fetch_sub(1, Ordering::AcqRel);
        NetCounters::decr(&g.counters.stalled_threads);
    }
}

impl Group {
    #[allow(
        clippy::too_many_arguments,
        reason = "internal constructor called once per group"
    )]
    pub(crate) fn create(
        id: usize,
        cfg: Arc<NetConfig>,
        listener: Option<OwnedFd>,
        factory: Arc<dyn ConnFactory>,
        counters: Arc<NetCounters>,
        perf: Arc<PerfHistograms>,
        cpus: Vec<usize>,
    ) -> io::Result<GroupHandle> {
        let epoll = Epoll::new()?;
        let eventfd = EventFd::new()?;
        epoll.add_edge_read(eventfd.as_fd(), EVENTFD_TOKEN)?;
        if let Some(l) = &listener {
            epoll.add_edge_read(l.as_fd(), LISTENER_TOKEN)?;
        }
        let single_cpu = AtomicBool::new(runs_on_one_cpu(&cfg, &cpus));
        let group = Group {
            id,
            single_cpu,
            pages: PagePool::new(cfg.cached_output_pages),
            queue: TaskQueue::new(cfg.work_queue_capacity),
            cfg,
            epoll,
            eventfd,
            listener: Mutex::new(listener),
            factory,
            waiters: Waiters::new(),
            listeners: ListenerSlots::new(),
            timers: Mutex::new(TimerHeap::new()),
            next_deadline: SyncU64::new(u64::MAX),
            epoch: Instant::now(),
            table: ConnTable::new(),
            outbound: ConnTable::new(),
            closing: Deferred::new(),
            counters,
            perf,
            workers: AtomicUsize::new(0),
            stalled: AtomicUsize::new(0),
            loops: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            deferred: AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
            cpus: Mutex::new(cpus.into()),
            cpu_gen: AtomicU64::new(0),
            worker_seq: AtomicUsize::new(0),
        };
        Ok(GroupHandle(Arc::new(group)))
    }

    fn ns_since_epoch(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch)
            .as_nanos()
            .min(u128::from(u64::MAX - 1)) as u64
    }

    fn wake_one(&self) {
        NetCounters::incr(&self.counters.eventfd_notifies);
        self.eventfd.notify();
    }

    fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// Most workers inside `epoll_wait` at once: the configured cap, or on a one-CPU group one
    /// (module docs, "One CPU: one listener").
    fn listener_cap(&self) -> usize {
        if self.cfg.max_epoll_waiters == 0 && self.single_cpu.load(Ordering::Relaxed) {
            1
        } else {
            self.cfg.effective_max_waiters()
        }
    }

    /// Called by a worker of the group that is not listening and may not come back to its loop
    /// soon (it blocks, runs long or exits): on a one-CPU group, wakes an eventfd sleeper to
    /// listen if nobody does (module docs, "One CPU: one listener").
    fn hand_over_listening(&self) {
        if self.single_cpu.load(Ordering::Relaxed)
            && !self.is_stopping()
            && self.listeners.must_hand_over(&self.waiters)
        {
            NetCounters::incr(&self.counters.listener_handovers);
            self.wake_one();
        }
    }
}

impl GroupHandle {
    /// The group's index.
    pub fn id(&self) -> usize {
        self.0.id
    }

    /// The framework's configuration.
    pub fn config(&self) -> &NetConfig {
        &self.0.cfg
    }

    /// The server-wide counters.
    pub fn counters(&self) -> &NetCounters {
        &self.0.counters
    }

    /// The server-wide per-stage histograms.
    pub fn perf(&self) -> &PerfHistograms {
        &self.0.perf
    }

    /// The group's output page pool.
    pub fn pages(&self) -> &PagePool {
        &self.0.pages
    }

    /// Workers currently running in this group (base and extra).
    pub fn workers(&self) -> usize {
        self.0.workers.load(Ordering::Relaxed)
    }

    /// Tasks waiting in the queue.
    pub fn queued(&self) -> usize {
        self.0.queue.len()
    }

    /// Whether the queue is full now: a push would fail unless a worker pops first. A handler
    /// holding units back from a full queue (a spill list) checks it before taking one out.
    pub fn is_queue_full(&self) -> bool {
        self.0.queue.is_full()
    }

    /// The group whose worker the calling thread is; `None` on any other thread. A completion
    /// that must block runs on whichever worker read its answer, maybe of another group than its
    /// session's: that worker's group is the one to count it as stalled.
    pub fn of_this_worker() -> Option<GroupHandle> {
        WORKER_OF.with(|w| w.get().and_then(std::sync::Weak::upgrade).map(GroupHandle))
    }

    /// Whether every worker of the group is inside a blocking section ([`GroupHandle::enter_wait`])
    /// now. The group adds a worker for stalls up to its maximum, so this holds only there; and
    /// then nobody polls the group's sockets, runs its tasks or fires its timers until a wait
    /// ends. A thread that waits for what only those sockets bring (an outbound socket's answer)
    /// must drive them itself meanwhile ([`OutboundSocket::kick`](crate::OutboundSocket::kick)).
    pub fn all_workers_waiting(&self) -> bool {
        let g = &self.0;
        g.stalled.load(Ordering::Acquire) >= g.workers.load(Ordering::Acquire)
    }

    /// Marks the start of a blocking section (a lock wait, a flow-control wait, I/O to an engine).
    /// While the guard lives the worker counts as stalled, and enough stalls start an extra worker
    /// at once so that the group keeps serving other connections. The sends this thread deferred
    /// ([`crate::ConnRef::send_deferred`]) are written first, so that no answer waits for the
    /// blocking section.
    pub fn enter_wait(&self) -> WaitGuard {
        crate::turn::flush_noted();
        self.enter_wait_holding_send_lock()
    }

    /// [`GroupHandle::enter_wait`] without writing the deferred sends: for a send that blocks
    /// while it holds its connection's send lock (writing other connections' deferred bytes there
    /// could deadlock against a thread doing the same the other way round).
    pub(crate) fn enter_wait_holding_send_lock(&self) -> WaitGuard {
        let g = &self.0;
        if self.on_own_worker() {
            self.hand_over_batch();
            g.hand_over_listening();
        }
        NetCounters::incr(&g.counters.waits);
        NetCounters::incr(&g.counters.stalled_threads);
        let stalled = g.stalled.fetch_add(1, Ordering::AcqRel) + 1;
        if g.cfg.enable_tasker && !g.is_stopping() {
            let workers = g.workers.load(Ordering::Acquire);
            let base = g.cfg.threads_per_group;
            if stalled > workers.saturating_sub(base) + g.cfg.effective_scale_thresh() {
                self.spawn_worker(SpawnReason::Stall);
            }
        }
        WaitGuard {
            group: self.clone(),
        }
    }

    /// Handles one event of an `epoll_wait` batch; `last_event`: the batch has no other left,
    /// so the last unit it makes runnable runs here (module docs, "The worker loop").
    fn handle_event(&self, token: u64, ready: Ready, last_event: bool, runnable: &mut Vec<UnitId>) {
        match token {
            EVENTFD_TOKEN => {}
            LISTENER_TOKEN => self.accept_all(),
            token if token & outbound::OUTBOUND_TOKEN_FLAG != 0 => self.outbound_event(token),
            token => {
                if let Some(conn) = self.0.table.get(token) {
                    let mut cx = EventCx {
                        group: self,
                        last_event,
                        runnable,
                    };
                    conn.on_event(&conn, ready, &mut cx);
                }
            }
        }
    }

    /// Queues the events of this worker's batch not handled yet, each for another worker, and
    /// wakes one: this worker is about to block (module docs, "A blocking handler in a batch").
    /// An event the full queue refuses stays in the batch, for this worker after its wait.
    fn hand_over_batch(&self) {
        let left: Vec<(u64, Ready)> = BATCH_LEFT.with(|left| left.borrow_mut().drain(..).collect());
        if left.is_empty() {
            return;
        }
        let mut refused = Vec::new();
        for (token, ready) in left {
            let task = Task::Call(
                Box::new(move |group: &GroupHandle| {
                    group.handle_event(token, ready, true, &mut Vec::new());
                }),
                self.0.perf.start(),
            );
            if self.push(task).is_err() {
                refused.push((token, ready));
            } else {
                NetCounters::incr(&self.0.counters.batch_handovers);
            }
        }
        BATCH_LEFT.with(|left| left.borrow_mut().extend(refused));
        // A push from one of the group's own workers wakes nobody on a one-CPU group: this one
        // is about to block, so someone must run the tasks.
        self.0.wake_one();
    }

    /// Queues a closure to run on one of the group's workers. If the queue is full the closure is
    /// dropped unrun and `QueueFull` is returned.
    pub fn push_task<F>(&self, f: F) -> Result<(), QueueFull>
    where
        F: FnOnce(&GroupHandle) + Send + 'static,
    {
        self.push(Task::Call(Box::new(f), self.0.perf.start()))
            .map_err(|_| QueueFull)
    }

    /// Pushes a task and wakes a waiting worker if there is one, unless the pusher is one of
    /// this group's workers and they all run on one CPU (module docs, "One CPU").
    pub(crate) fn push(&self, task: Task) -> Result<(), Task> {
        let g = &self.0;
        if let Err(task) = g.queue.push(task) {
            NetCounters::incr(&g.counters.queue_full_total);
            return Err(task);
        }
        NetCounters::incr(&g.counters.tasks_queued);
        if g.single_cpu.load(Ordering::Relaxed) && self.on_own_worker() {
            NetCounters::incr(&g.counters.wakeups_skipped);
        } else if g.waiters.must_notify() {
            g.wake_one();
        }
        Ok(())
    }

    /// Whether the calling thread is one of this group's workers.
    fn on_own_worker(&self) -> bool {
        WORKER_OF.with(|w| {
            w.get()
                .is_some_and(|weak| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(&self.0)))
        })
    }

    /// Whether every worker of the group runs on one CPU, so that a worker runs the tasks it
    /// queues itself.
    pub fn single_cpu(&self) -> bool {
        self.0.single_cpu.load(Ordering::Relaxed)
    }

    /// Schedules `f` to run once after `after`, then every `period` if given. Timers run on
    /// whichever worker wins the timer try-lock, outside the lock; keep them short.
    pub fn schedule_timer<F>(&self, after: Duration, period: Option<Duration>, f: F) -> TimerId
    where
        F: Fn(&GroupHandle) + Send + Sync + 'static,
    {
        self.schedule_timer_at(Instant::now() + after, period, Arc::new(f))
    }

    pub(crate) fn schedule_timer_at(
        &self,
        deadline: Instant,
        period: Option<Duration>,
        f: TimerFn,
    ) -> TimerId {
        let g = &self.0;
        let (id, earliest) = {
            let mut timers = g.timers.lock();
            let id = timers.schedule(deadline, period, f);
            let next = timers
                .next_deadline()
                .map_or(u64::MAX, |d| g.ns_since_epoch(d));
            let before = g.next_deadline.swap(next, Ordering::AcqRel);
            (id, next < before)
        };
        // A timer earlier than every other shortens some waiter's timeout: wake one.
        if earliest && g.waiters.must_notify() {
            g.wake_one();
        }
        id
    }

    /// Cancels a timer; returns whether it was still pending.
    pub fn cancel_timer(&self, id: TimerId) -> bool {
        let g = &self.0;
        let mut timers = g.timers.lock();
        let was = timers.cancel(id);
        let next = timers
            .next_deadline()
            .map_or(u64::MAX, |d| g.ns_since_epoch(d));
        g.next_deadline.store(next, Ordering::Release);
        was
    }

    /// Runs due timers if this thread wins the try-lock. Returns whether any ran.
    fn run_timers(&self, due: &mut Vec<(TimerId, TimerFn)>) -> bool {
        let g = &self.0;
        let now = Instant::now();
        if g.next_deadline.load(Ordering::Acquire) > g.ns_since_epoch(now) {
            return false;
        }
        {
            let Some(mut timers) = g.timers.try_lock() else {
                return false;
            };
            timers.pop_due(now, due);
            let next = timers
                .next_deadline()
                .map_or(u64::MAX, |d| g.ns_since_epoch(d));
            g.next_deadline.store(next, Ordering::Release);
        }
        let ran = !due.is_empty();
        for (_, f) in due.drain(..) {
            NetCounters::incr(&g.counters.timers_fired);
            f(self);
        }
        ran
    }

    /// Time until the next timer, if any.
    fn timer_timeout(&self, now: Instant) -> Option<Duration> {
        let g = &self.0;
        let next = g.next_deadline.load(Ordering::Acquire);
        if next == u64::MAX {
            return None;
        }
        Some(Duration::from_nanos(
            next.saturating_sub(g.ns_since_epoch(now)),
        ))
    }

    /// Queues `conn` for its `on_close` callback on a worker.
    pub(crate) fn defer_close(&self, conn: Arc<dyn ConnTask>) {
        let g = &self.0;
        g.closing.push(conn);
        if g.waiters.must_notify() {
            g.wake_one();
        }
    }

    /// Runs the deferred `on_close` callbacks.
    pub(crate) fn run_closing(&self) {
        let g = &self.0;
        for conn in g.closing.take() {
            conn.closed();
            NetCounters::decr(&g.counters.connections);
            NetCounters::incr(&g.counters.closed_total);
        }
    }

    fn run_task(&self, task: Task) {
        let g = &self.0;
        g.loops.fetch_add(1, Ordering::Relaxed);
        match task {
            Task::Unit { conn, unit, since } => {
                if let Some(t) = since {
                    g.perf.record(Stage::WorkQueue, t.elapsed());
                    g.perf.record(Stage::Schedule, t.elapsed());
                }
                NetCounters::incr(&g.counters.run_queued);
                let cx = RunContext {
                    group: self,
                    inline: false,
                    runnable_since: since,
                };
                run_unit_counted(self, &*conn, unit, &cx);
            }
            Task::Call(f, since) => {
                g.perf.record_since(Stage::WorkQueue, since);
                unit_starts();
                g.running.fetch_add(1, Ordering::AcqRel);
                f(self);
                g.running.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }

    /// Starts a worker unless the group is stopping or at its cap. Returns whether one started.
    pub(crate) fn spawn_worker(&self, reason: SpawnReason) -> bool {
        let g = &self.0;
        if g.is_stopping() {
            return false;
        }
        let base = matches!(reason, SpawnReason::Base(_));
        let cap = g.cfg.effective_max_threads();
        let mut cur = g.workers.load(Ordering::Acquire);
        loop {
            if !base && cur >= cap {
                return false;
            }
            match g
                .workers
                .compare_exchange_weak(cur, cur + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => cur = now,
            }
        }
        let c = &g.counters;
        match reason {
            SpawnReason::Base(_) => NetCounters::incr(&c.base_threads),
            SpawnReason::Stall => {
                NetCounters::incr(&c.extra_threads);
                NetCounters::incr(&c.threads_by_stall);
            }
            SpawnReason::Queue => {
                NetCounters::incr(&c.extra_threads);
                NetCounters::incr(&c.threads_by_queue);
            }
            SpawnReason::Watchdog => {
                NetCounters::incr(&c.extra_threads);
                NetCounters::incr(&c.watchdog_wakeups);
            }
        }
        let seq = g.worker_seq.fetch_add(1, Ordering::Relaxed);
        let name = format!("xrpc-g{}-w{}", g.id, seq);
        let handle = self.clone();
        let spawned = std::thread::Builder::new()
            .name(name)
            .spawn(move || worker_main(handle, reason));
        match spawned {
            Ok(join) => {
                let mut threads = g.threads.lock();
                threads.retain(|t| !t.is_finished());
                threads.push(join);
                true
            }
            Err(_) => {
                g.workers.fetch_sub(1, Ordering::AcqRel);
                let gauge = if base {
                    &c.base_threads
                } else {
                    &c.extra_threads
                };
                NetCounters::decr(gauge);
                false
            }
        }
    }

    /// Accepts every pending connection on the group's listener.
    fn accept_all(&self) {
        let g = &self.0;
        let listener = g.listener.lock();
        let Some(listener) = listener.as_ref() else {
            return;
        };
        let opts = sys::SocketOptions {
            keepalive: g.cfg.tcp_keepalive,
            send_buffer: g.cfg.tcp_send_buf,
            recv_buffer: g.cfg.tcp_recv_buf,
        };
        loop {
            match sys::accept(listener.as_fd(), &opts) {
                sys::Accepted::Conn(fd, peer) => self.register(fd, peer),
                sys::Accepted::WouldBlock => return,
                sys::Accepted::Error(err) => {
                    g.factory.accept_failed(&err);
                    // Out of fds or memory: the edge is consumed, so retry from a timer.
                    self.schedule_timer(Duration::from_millis(50), None, |g| g.accept_all());
                    return;
                }
            }
        }
    }

    /// Adds an accepted socket to the group.
    pub(crate) fn register(&self, fd: OwnedFd, peer: Option<std::net::SocketAddr>) {
        let g = &self.0;
        let Some(token) = g.table.reserve() else {
            return; // table full: dropping `fd` closes it
        };
        NetCounters::incr(&g.counters.connections);
        NetCounters::incr(&g.counters.accepted_total);
        let conn = g.factory.create(self, fd, peer, token);
        g.table.fill(token, conn.clone());
        let r = conn.conn_ref();
        if r.is_closed() {
            // `on_connect` already called `fin()`, which found the slot still empty.
            if let Some(conn) = g.table.remove(token) {
                self.defer_close(conn);
            }
        } else if g.epoll.add_edge_read(r.fd(), token).is_err() {
            r.fin();
        }
    }

    /// Removes the listener so that no new connection is accepted.
    pub(crate) fn stop_accepting(&self) {
        let g = &self.0;
        if let Some(l) = g.listener.lock().take() {
            let _ = g.epoll.delete(l.as_fd());
        }
    }

    /// Marks the group stopping and wakes every worker (each one passes the wake on).
    pub(crate) fn stop(&self) {
        self.0.stopping.store(true, Ordering::Release);
        self.0.wake_one();
    }

    /// Joins every worker thread that has been started. Call after [`GroupHandle::stop`].
    pub(crate) fn join_workers(&self) {
        loop {
            let threads = std::mem::take(&mut *self.0.threads.lock());
            if threads.is_empty() {
                return;
            }
            for t in threads {
                let _ = t.join();
            }
        }
    }

    /// After the workers are gone: runs leftover close callbacks, drops queued tasks and timers.
    pub(crate) fn drain_after_stop(&self) {
        let g = &self.0;
        self.close_outbound();
        self.run_closing();
        while let Some(task) = g.queue.pop() {
            drop(task);
        }
        g.timers.lock().clear();
        self.run_closing();
    }

    /// Whether any unit is running or queued.
    pub(crate) fn busy(&self) -> bool {
        self.0.running.load(Ordering::Acquire) > 0
            || !self.0.queue.is_empty()
            || self.0.deferred.load(Ordering::Acquire) > 0
    }

    /// Replaces the group's CPU set; workers re-pin themselves.
    pub(crate) fn set_cpus(&self, cpus: Vec<usize>) {
        self.0
            .single_cpu
            .store(runs_on_one_cpu(&self.0.cfg, &cpus), Ordering::Relaxed);
        *self.0.cpus.lock() = cpus.into();
        self.0.cpu_gen.fetch_add(1, Ordering::AcqRel);
        // The listener cap may have grown (one CPU no longer): every eventfd sleeper wakes
        // (`ppoll` wakes them all), re-pins itself and takes a free slot.
        self.0.wake_one();
    }

    /// The watchdog's periodic check.
    pub(crate) fn watchdog_tick(&self, st: &mut WatchState) {
        let g = &self.0;
        let pops = g.queue.pops();
        let loops = g.loops.load(Ordering::Relaxed);
        let pending = g.queue.len();
        let waiting = g.waiters.count();
        let head_stuck = pending > 0 && pops == st.last_pops;
        let loops_stuck = loops == st.last_loops;
        let no_progress = waiting == 0 && loops_stuck;
        st.last_pops = pops;
        st.last_loops = loops;
        if loops_stuck && g.listeners.count() == 0 {
            // A long unit with no checkpoint holds the listening of a one-CPU group (module
            // docs, "One CPU: one listener"): wake a sleeper to listen.
            g.hand_over_listening();
        }
        if !g.cfg.enable_tasker || g.is_stopping() {
            return;
        }
        if head_stuck || no_progress {
            self.spawn_worker(SpawnReason::Watchdog);
        } else if pending > g.cfg.tasker_multiply * g.workers.load(Ordering::Acquire)
            && !g.single_cpu.load(Ordering::Relaxed)
        {
            // On one CPU a deep queue of tasks that make progress is a busy CPU, which another
            // worker cannot relieve: it would only take turns with the others (stalls and a
            // stuck queue still grow the pool, above).
            for _ in 0..g.cfg.tasker_extend_step {
                if !self.spawn_worker(SpawnReason::Queue) {
                    break;
                }
            }
        }
    }
}

/// Watchdog memory of one group between ticks.
#[derive(Debug, Default)]
pub(crate) struct WatchState {
    last_pops: u64,
    last_loops: u64,
}

/// Runs a unit with the `running` count and the run histogram.
pub(crate) fn run_unit_counted(
    group: &GroupHandle,
    conn: &dyn ConnTask,
    unit: UnitId,
    cx: &RunContext<'_>,
) {
    let g = &group.0;
    unit_starts();
    g.running.fetch_add(1, Ordering::AcqRel);
    let t = g.perf.start();
    conn.run_unit(unit, cx);
    g.perf.record_since(Stage::Run, t);
    g.running.fetch_sub(1, Ordering::AcqRel);
}

/// Whether the workers of a group on `cpus` can run only on one CPU: they are bound to its one
/// CPU, or the process may run on one CPU at all.
fn runs_on_one_cpu(cfg: &NetConfig, cpus: &[usize]) -> bool {
    let allowed = std::thread::available_parallelism().map_or(usize::MAX, |n| n.get());
    (cfg.bind_cores && cpus.len() == 1) || allowed == 1
}

fn pin(group: &GroupHandle, reason: SpawnReason) {
    let g = &group.0;
    if !g.cfg.bind_cores {
        return;
    }
    let cpus = g.cpus.lock().clone();
    if cpus.is_empty() {
        return;
    }
    let _ = match reason {
        SpawnReason::Base(i) if !g.cfg.multi_affinity_in_group => {
            crate::affinity::pin_current_thread(&[cpus[i % cpus.len()]])
        }
        _ => crate::affinity::pin_current_thread(&cpus),
    };
}

/// How long a unit runs before its checkpoint hands the listening of a one-CPU group over (module
/// docs, "One CPU: one listener"). SQLite calls the checkpoint every 1000 VM instructions *of a
/// prepared statement's lifetime*, so even `select 1` reaches it about once in 250 executions;
/// handing over there would wake a sleeper for nothing. A hand-over costs an eventfd write and a
/// wake-up (tens of microseconds); a millisecond bounds that to a few percent of a long unit and
/// bounds how long other connections' requests wait for it.
pub(crate) const LONG_UNIT: Duration = Duration::from_millis(1);

std::thread_local! {
    /// The group whose worker this thread is (unset on any other thread); see the module docs,
    /// "One CPU". Weak, so that a finished worker's thread-locals never keep the group (its epoll
    /// and eventfd) alive past the last handle.
    static WORKER_OF: std::cell::OnceCell<std::sync::Weak<Group>> = const { std::cell::OnceCell::new() };
    /// Units and task closures this worker has started; tells the checkpoint a new unit began.
    static UNITS_STARTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// The unit of this worker's last checkpoint and when it first (or last handed over) saw it.
    static CHECKPOINT: std::cell::Cell<(u64, Option<Instant>)> = const { std::cell::Cell::new((0, None)) };
    /// The events of this worker's last `epoll_wait` not handled yet (module docs, "A blocking
    /// handler in a batch"); empty outside the loop over a batch.
    static BATCH_LEFT: std::cell::RefCell<std::collections::VecDeque<(u64, Ready)>> =
        const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
}

/// The next event of this worker's batch, and whether it is the batch's last.
fn next_of_batch() -> Option<(u64, Ready, bool)> {
    BATCH_LEFT.with(|left| {
        let mut left = left.borrow_mut();
        let (token, ready) = left.pop_front()?;
        Some((token, ready, left.is_empty()))
    })
}

/// Notes that this worker starts a unit (or a task closure), for the checkpoint.
fn unit_starts() {
    UNITS_STARTED.with(|n| n.set(n.get().wrapping_add(1)));
}

/// Identifies a runnable unit of a connection (a session id, in the server). Its meaning is the
/// handler's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitId(pub u64);

/// What [`crate::Handler::run_unit`] knows about where it runs.
#[derive(Debug)]
pub struct RunContext<'a> {
    pub(crate) group: &'a GroupHandle,
    pub(crate) inline: bool,
    pub(crate) runnable_since: Option<Instant>,
}

impl<'a> RunContext<'a> {
    /// Whether the unit runs inline on the thread that received its frames (rather than from the
    /// task queue).
    pub fn is_inline(&self) -> bool {
        self.inline
    }

    /// The group this unit runs in: timers, tasks, wait guards, output pages, counters.
    pub fn group(&self) -> &'a GroupHandle {
        self.group
    }

    /// Marks a blocking section; see [`GroupHandle::enter_wait`].
    pub fn enter_wait(&self) -> WaitGuard {
        self.group.enter_wait()
    }

    /// When the unit became runnable, if the histograms are on.
    pub fn runnable_since(&self) -> Option<Instant> {
        self.runnable_since
    }
}

/// Writes the deferred output of every connection this thread deferred bytes on (the turn's
/// end, `turn.rs`), each with one vectored write. Cheap when there is none (one thread-local
/// access). A handler may call it from a long computation so that answers deferred earlier in
/// the turn go out now.
///
/// It is also the long unit's checkpoint: on a worker of a one-CPU group, where one worker at a
/// time listens for the group's events, a unit that has run for a millisecond wakes a sleeping
/// worker to listen if nobody does ("One CPU: one listener" above), so that other connections'
/// requests are read while the long unit runs. That costs a clock read per call.
pub fn flush_deferred_sends() {
    crate::turn::flush_noted();
    long_unit_checkpoint();
}

/// The checkpoint of a long unit on a worker ([`crate::flush_deferred_sends`]): on a one-CPU
/// group, once the unit has run for [`LONG_UNIT`] since its first checkpoint, hands the listening
/// over if nobody listens, and again at most every [`LONG_UNIT`] (module docs, "One CPU: one
/// listener"). Nothing on any other thread.
pub(crate) fn long_unit_checkpoint() {
    WORKER_OF.with(|w| {
        let Some(group) = w.get().and_then(std::sync::Weak::upgrade) else {
            return;
        };
        if !group.single_cpu.load(Ordering::Relaxed) {
            return;
        }
        let unit = UNITS_STARTED.with(std::cell::Cell::get);
        let now = Instant::now();
        CHECKPOINT.with(|c| match c.get() {
            (seen, Some(since)) if seen == unit => {
                if now.duration_since(since) >= LONG_UNIT {
                    group.hand_over_listening();
                    c.set((unit, Some(now)));
                }
            }
            _ => c.set((unit, Some(now))),
        });
    });
}

/// The body of every worker thread.
fn worker_main(group: GroupHandle, reason: SpawnReason) {
    let g = &*group.0;
    WORKER_OF.with(|w| {
        let _ = w.set(Arc::downgrade(&group.0));
    });
    crate::turn::enable();
    let extra = !matches!(reason, SpawnReason::Base(_));
    let _exit = WorkerExit { g, extra };
    let mut cpu_gen = g.cpu_gen.load(Ordering::Acquire);
    pin(&group, reason);
    let mut events = Events::with_capacity(g.cfg.events_per_thread);
    let mut due = Vec::new();
    let mut runnable = Vec::new();
    let mut last_work = Instant::now();
    loop {
        if g.is_stopping() {
            break;
        }
        let gen_now = g.cpu_gen.load(Ordering::Acquire);
        if gen_now != cpu_gen {
            cpu_gen = gen_now;
            pin(&group, reason);
        }
        let mut worked = false;
        let mut since_flush = 0;
        while let Some(task) = g.queue.pop() {
            worked = true;
            group.run_task(task);
            if g.is_stopping() {
                break;
            }
            since_flush += 1;
            if since_flush == crate::turn::FLUSH_EVERY_TASKS {
                since_flush = 0;
                crate::turn::flush_noted();
            }
        }
        worked |= group.run_timers(&mut due);
        group.run_closing();
        let now = Instant::now();
        if extra {
            if worked {
                last_work = now;
            } else if now.duration_since(last_work) >= g.cfg.shrink_time {
                break;
            }
        }
        g.loops.fetch_add(1, Ordering::Relaxed);
        // The end of the turn: the answers deferred since the last flush go out now, before
        // this worker may sleep (crate::turn).
        crate::turn::flush_noted();

        // Announce the wait, then re-check the queue (crate::wake).
        g.waiters.begin_wait();
        NetCounters::incr(&g.counters.waiting_threads);
        if !g.queue.is_empty() || g.is_stopping() {
            g.waiters.end_wait();
            NetCounters::decr(&g.counters.waiting_threads);
            continue;
        }
        let mut timeout = g.cfg.epoll_timeout;
        if let Some(t) = group.timer_timeout(now) {
            timeout = timeout.min(t);
        }
        if extra {
            let left = g
                .cfg
                .shrink_time
                .saturating_sub(now.duration_since(last_work));
            timeout = timeout.min(left.max(Duration::from_millis(1)));
        }
        let n = if g.listeners.try_enter(g.listener_cap()) {
            let n = g.epoll.wait(&mut events, Some(timeout)).unwrap_or(0);
            g.listeners.leave();
            n
        } else {
            if g.eventfd.wait_readable(Some(timeout)) {
                g.eventfd.reset();
            }
            0
        };
        g.waiters.end_wait();
        NetCounters::decr(&g.counters.waiting_threads);
        if n > 0 {
            last_work = Instant::now();
        }
        // A woken worker resets the eventfd before anything else, so that pushes made while it
        // handles its events produce fresh edges and wake further workers.
        if (0..n).any(|i| events.get(i).0 == EVENTFD_TOKEN) {
            g.eventfd.reset();
        }
        if n == 1 {
            // Nothing could wait behind it (light load: the common case).
            let (token, ready) = events.get(0);
            group.handle_event(token, ready, true, &mut runnable);
            continue;
        }
        BATCH_LEFT.with(|left| {
            left.borrow_mut().extend(
                (0..n)
                    .map(|i| events.get(i))
                    .filter(|e| e.0 != EVENTFD_TOKEN),
            );
        });
        // One at a time from the thread-local, not from `events`: a handler that blocks hands
        // the rest to other workers (`GroupHandle::enter_wait`).
        while let Some((token, ready, last_event)) = next_of_batch() {
            group.handle_event(token, ready, last_event, &mut runnable);
        }
    }
}

/// Keeps the worker accounting right however the worker ends, a handler panic included.
struct WorkerExit<'a> {
    g: &'a Group,
    extra: bool,
}

impl Drop for WorkerExit<'_> {
    fn drop(&mut self) {
        let g = self.g;
        crate::turn::flush_noted();
        g.hand_over_listening();
        // Pass a stop wake-up on to the next sleeper.
        if g.is_stopping() {
            g.wake_one();
        }
        g.workers.fetch_sub(1, Ordering::AcqRel);
        let gauge = if self.extra {
            if !g.is_stopping() {
                NetCounters::incr(&g.counters.threads_exited);
            }
            &g.counters.extra_threads
        } else {
            &g.counters.base_threads
        };
        NetCounters::decr(gauge);
    }
}

/// A list handed from any thread to the workers, with a flag that lets a worker skip the lock
/// when the list is empty: [`push`](Self::push) appends under the lock, then raises the flag;
/// [`take`](Self::take) lowers the flag, then empties the list under the lock.
///
/// An item is never stranded: the flag is raised after every append, and lowered only before a
/// take that sees every append whose flag store it consumed. A take may find the list empty (its
/// items were taken by an earlier take that ran between the append and the flag store); that costs
/// one lock. The synchronisation goes through `crate::loom` and has a model
/// (`loom_deferred_never_strands_an_item`).
#[derive(Debug)]
struct Deferred<T> {
    list: SyncMutex<Vec<T>>,
    pending: SyncBool,
}

impl<T> Deferred<T> {
    fn new() -> Self {
        Self {
            list: SyncMutex::new(Vec::new()),
            pending: SyncBool::new(false),
        }
    }

    fn push(&self, item: T) {
        self.list
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(item);
        self.pending.store(true, Ordering::Release);
    }

    /// Everything pushed so far that no earlier `take` returned; empty without locking when the
    /// flag is down.
    fn take(&self) -> Vec<T> {
        if !self.pending.load(Ordering::Acquire) || !self.pending.swap(false, Ordering::AcqRel) {
            return Vec::new();
        }
        std::mem::take(
            &mut *self
                .list
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::Deferred;
    use crate::loom::sync::Arc;
    use crate::loom::thread;

    /// Two pushers race a taker; whatever the interleaving, every item is taken exactly once by
    /// the taker or by a final take that runs after the pushers are done.
    #[test]
    fn loom_deferred_never_strands_an_item() {
        loom::model(|| {
            let deferred = Arc::new(Deferred::new());
            let pushers: Vec<_> = [1u32, 2]
                .into_iter()
                .map(|item| {
                    let deferred = Arc::clone(&deferred);
                    thread::spawn(move || deferred.push(item))
                })
                .collect();
            let mut taken = deferred.take();
            for pusher in pushers {
                pusher.join().unwrap();
            }
            taken.extend(deferred.take());
            taken.sort_unstable();
            assert_eq!(taken, [1, 2]);
            assert!(deferred.take().is_empty(), "nothing is taken twice");
        });
    }
}
