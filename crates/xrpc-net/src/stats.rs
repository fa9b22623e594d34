//! Status counters of the framework: what `SHOW STATUS` lists and the metrics endpoint exports.
//!
//! [`NetCounters`] is a block of `AtomicU64`s updated with `Relaxed` operations from any thread.
//! They order nothing (the scheduling logic keeps its own synchronized state) and so use `std`
//! atomics, not `crate::loom`. [`NetCounters::snapshot`] copies them into a plain [`NetStats`];
//! since each field is read separately, a snapshot is not an atomic cut across fields.
//!
//! Each field is either a **gauge** (a level that goes up and down, such as open connections) or a
//! **counter** (a monotonic total since start). The kind decides the Prometheus type and, for
//! counters, the `_total` suffix of the metric name ([`NetStats::write_metrics`], rendered by
//! [`crate::metrics`]). All fields are declared once, in the `net_stats!` table below, which
//! generates both structs and their listings.
//!
//! [`NetCounters`] are shared cache lines, fine for events per connection or per read. Counters
//! bumped by every request on any worker use [`StripedCounters`] instead: each thread writes its
//! own cache-padded stripe (the stripe index the stage histograms use, `hist`), and only a reader
//! sums the stripes, so no cache line travels between cores per request.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use crate::metrics::Exposition;

/// `N` counters striped over threads: cheap to add to from any thread, summed when read.
///
/// A thread adds to its own stripe (picked once per thread, round-robin, shared with the stage
/// histograms), with `Relaxed` `fetch_add`s that stay on a cache line no other core writes while
/// there are no more threads than stripes; with more, threads share a stripe and stay exact.
/// [`StripedCounters::sum`] reads every stripe: like [`NetCounters::snapshot`] it is not an
/// atomic cut across counters, but each counter only grows.
#[derive(Debug)]
pub struct StripedCounters<const N: usize> {
    stripes: Box<[CachePadded<[AtomicU64; N]>]>,
}

impl<const N: usize> StripedCounters<N> {
    /// Zeroed counters with one stripe per available CPU, rounded up to a power of two and
    /// clamped to 4..=32 (as the stage histograms).
    pub fn new() -> Self {
        let cpus = std::thread::available_parallelism().map_or(4, |n| n.get());
        let stripes = cpus.clamp(4, 32).next_power_of_two();
        Self {
            stripes: (0..stripes)
                .map(|_| CachePadded::new(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect(),
        }
    }

    /// This thread's stripe, for several adds in a row.
    #[inline]
    pub fn stripe(&self) -> &[AtomicU64; N] {
        &self.stripes[crate::hist::thread_shard_hint() & (self.stripes.len() - 1)]
    }

    /// Adds `n` to counter `index`.
    #[inline]
    pub fn add(&self, index: usize, n: u64) {
        self.stripe()[index].fetch_add(n, Ordering::Relaxed);
    }

    /// Every counter, summed over the stripes.
    pub fn sum(&self) -> [u64; N] {
        let mut total = [0u64; N];
        for stripe in self.stripes.iter() {
            for (sum, counter) in total.iter_mut().zip(stripe.iter()) {
                *sum = sum.wrapping_add(counter.load(Ordering::Relaxed));
            }
        }
        total
    }
}

impl<const N: usize> Default for StripedCounters<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// Declares the fields once and generates [`NetCounters`], [`NetStats`] and their listings.
macro_rules! net_stats {
    ($($kind:ident $name:ident : $help:literal,)*) => {
        /// The framework's live counters; update with `Relaxed` atomics (see the [module docs](self)).
        #[derive(Debug, Default)]
        pub struct NetCounters {
            $(
                #[doc = $help]
                pub $name: AtomicU64,
            )*
        }

        impl NetCounters {
            /// Creates zeroed counters.
            pub const fn new() -> Self {
                Self { $($name: AtomicU64::new(0),)* }
            }

            /// Copies every field.
            pub fn snapshot(&self) -> NetStats {
                NetStats { $($name: self.$name.load(Ordering::Relaxed),)* }
            }
        }

        /// A plain copy of [`NetCounters`] at one moment.
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct NetStats {
            $(
                #[doc = $help]
                pub $name: u64,
            )*
        }

        impl NetStats {
            /// Name, kind and help of every field, in declaration order.
            pub const DESCRIPTORS: &'static [MetricDesc] = &[
                $(MetricDesc { name: stringify!($name), kind: MetricKind::$kind, help: $help },)*
            ];

            fn values(&self) -> [u64; Self::DESCRIPTORS.len()] {
                [$(self.$name,)*]
            }
        }
    };
}

net_stats! {
    Gauge connections: "Open TCP connections.",
    Gauge closing: "Connections shut down and waiting for delayed release.",
    Gauge base_threads: "Running base workers.",
    Gauge extra_threads: "Running extra (dynamically added) workers.",
    Gauge waiting_threads: "Workers waiting for work: in epoll_wait, or on the eventfd when the epoll_wait slots are taken.",
    Gauge stalled_threads: "Workers inside a handler's blocking section (enter_wait).",
    Counter accepted_total: "Connections accepted.",
    Counter closed_total: "Connections closed.",
    Counter tasks_queued: "Tasks pushed to a group's work queue.",
    Counter queue_full_total: "Tasks refused because the work queue was full.",
    Counter run_inline: "Units run inline on the thread that received their request.",
    Counter run_queued: "Units run from the work queue.",
    Counter waits: "Blocking sections entered by handlers (enter_wait).",
    Counter eventfd_notifies: "Eventfd writes to wake a waiting worker.",
    Counter wakeups_skipped: "Tasks a worker of the group queued for itself without waking another: every worker of the group runs on one CPU.",
    Counter threads_by_stall: "Extra workers started because workers were stalled.",
    Counter threads_by_queue: "Extra workers started because the queue was deep.",
    Counter threads_exited: "Extra workers that exited after shrink_time without pressure.",
    Counter watchdog_wakeups: "Workers the watchdog forced because no progress was seen.",
    Counter listener_handovers: "Eventfd writes by which a worker of a one-CPU group that stopped listening to block, run long or exit woke a sleeping worker to listen instead.",
    Counter batch_handovers: "Events of an epoll_wait batch that a worker about to block queued for other workers instead of handling them after its wait.",
    Counter timers_fired: "Timer callbacks run.",
    Counter frames_received: "Frames decoded from connections.",
    Counter bytes_received: "Bytes read from sockets.",
    Counter bytes_sent: "Bytes written to sockets.",
    Counter sends_deferred: "Answers deferred to the end of a worker's turn, to share one write with the other answers on their connection.",
    Counter deferred_writes: "Writes of a connection's deferred answers (at the end of a worker's turn, every 64 tasks, at a blocking section, past 64 KiB, or before an immediate send), each one vectored write.",
    Counter write_timeouts: "Connections closed by net_write_timeout.",
}

/// Whether a field is a level or a monotonic total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// A level that goes up and down.
    Gauge,
    /// A monotonic total since start.
    Counter,
}

/// Describes one field of [`NetStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricDesc {
    /// The field name, also the `SHOW STATUS` name.
    pub name: &'static str,
    /// Gauge or counter.
    pub kind: MetricKind,
    /// One-line description, the Prometheus help text.
    pub help: &'static str,
}

impl NetCounters {
    /// Adds one to a counter or gauge.
    #[inline]
    pub fn incr(field: &AtomicU64) {
        field.fetch_add(1, Ordering::Relaxed);
    }

    /// Subtracts one from a gauge, saturating at zero so a stray double decrement cannot wrap.
    #[inline]
    pub fn decr(field: &AtomicU64) {
        let _ = field.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| v.checked_sub(1));
    }

    /// Adds `n` to a counter or gauge.
    #[inline]
    pub fn add(field: &AtomicU64, n: u64) {
        field.fetch_add(n, Ordering::Relaxed);
    }
}

impl NetStats {
    /// The fields as `(name, value)` pairs in declaration order, for `SHOW STATUS`.
    pub fn rows(&self) -> Vec<(&'static str, u64)> {
        Self::DESCRIPTORS
            .iter()
            .zip(self.values())
            .map(|(d, v)| (d.name, v))
            .collect()
    }

    /// Adds every field to `exp` as `{prefix}_{name}`, a gauge or a counter (whose name gets
    /// `_total` unless it already ends with it).
    pub fn write_metrics(&self, exp: &mut Exposition, prefix: &str) {
        for (d, v) in Self::DESCRIPTORS.iter().zip(self.values()) {
            let name = format!("{prefix}_{}", d.name);
            match d.kind {
                MetricKind::Gauge => exp.gauge(&name, d.help, v as f64),
                MetricKind::Counter => exp.counter(&name, d.help, v as f64),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn striped_counters_sum_every_thread() {
        let counters = std::sync::Arc::new(StripedCounters::<2>::new());
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let counters = std::sync::Arc::clone(&counters);
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        counters.add(0, 1);
                    }
                    counters.add(1, 5);
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(counters.sum(), [8000, 40]);
    }

    #[test]
    fn snapshot_copies_fields() {
        let c = NetCounters::new();
        NetCounters::incr(&c.connections);
        NetCounters::incr(&c.connections);
        NetCounters::decr(&c.connections);
        NetCounters::decr(&c.closing); // saturates at zero
        NetCounters::add(&c.bytes_sent, 4096);
        let s = c.snapshot();
        assert_eq!(s.connections, 1);
        assert_eq!(s.closing, 0);
        assert_eq!(s.bytes_sent, 4096);
        assert_eq!(s.clone(), s);
    }

    #[test]
    fn rows_list_every_field_in_order() {
        let c = NetCounters::new();
        c.tasks_queued.store(7, Ordering::Relaxed);
        let rows = c.snapshot().rows();
        assert_eq!(rows.len(), NetStats::DESCRIPTORS.len());
        assert_eq!(rows[0], ("connections", 0));
        assert!(rows.contains(&("tasks_queued", 7)));
        for required in [
            "connections",
            "closing",
            "base_threads",
            "extra_threads",
            "tasks_queued",
            "run_inline",
            "run_queued",
            "waits",
            "threads_by_stall",
            "threads_by_queue",
            "watchdog_wakeups",
            "accepted_total",
            "closed_total",
            "queue_full_total",
        ] {
            assert!(
                rows.iter().any(|(n, _)| *n == required),
                "{required} missing"
            );
        }
    }

    #[test]
    fn prometheus_types_gauges_and_counters() {
        let c = NetCounters::new();
        c.connections.store(3, Ordering::Relaxed);
        c.run_inline.store(5, Ordering::Relaxed);
        c.accepted_total.store(9, Ordering::Relaxed);
        let mut exp = Exposition::new();
        c.snapshot().write_metrics(&mut exp, "xrpc");
        let text = exp.render();
        assert!(text.contains("# HELP xrpc_connections Open TCP connections.\n"));
        assert!(text.contains("# TYPE xrpc_connections gauge\nxrpc_connections 3\n"));
        assert!(text.contains("# TYPE xrpc_run_inline_total counter\nxrpc_run_inline_total 5\n"));
        // No doubled suffix.
        assert!(text.contains("# TYPE xrpc_accepted_total counter\nxrpc_accepted_total 9\n"));
        assert!(!text.contains("_total_total"));
        let samples = text.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(samples, NetStats::DESCRIPTORS.len());
    }
}
