//! Per-stage latency histograms: log-scale buckets, lock-free striped updates, runtime switch.
//!
//! # Buckets
//!
//! Durations are recorded in whole nanoseconds into log-linear buckets with **4 sub-buckets per
//! power of two** (2 bits of precision after the leading one, so a bucket is at most 25% wide
//! relative to its lower bound):
//!
//! - values 0..8 ns each have their own bucket (indices 0..8);
//! - a value `v` in `[2^m, 2^(m+1))` with `3 <= m <= 36` falls in one of four equal sub-buckets of
//!   width `2^(m-2)`, index `4·(m-2) + (v >> (m-2))`;
//! - everything from `2^37` ns (about 137 s) up goes to one overflow bucket.
//!
//! That is [`BUCKETS`] = 145 buckets covering 1 ns to about 137 s; [`bucket_bounds`] gives each
//! bucket's `[lower, upper)` in nanoseconds.
//!
//! # Striping
//!
//! A [`Histogram`] holds several shards, each a cache-padded block of counters (one per bucket,
//! plus sum, min and max). A thread picks a shard once, round-robin at its first record, and keeps
//! it in a thread-local, so workers running on different cores rarely write the same cache line.
//! [`Histogram::record`] is a handful of `Relaxed` atomic operations: no lock, no allocation.
//! [`Histogram::snapshot`] sums the shards.
//!
//! These counters use `std` atomics directly rather than `crate::loom`: they publish nothing to
//! other threads, and their exact interleaving is irrelevant. For the same reason a snapshot taken
//! while threads record is not an atomic cut (its `sum` may include a record whose bucket count it
//! missed), and [`Histogram::reset`] racing with records may keep or lose those records; both are
//! fine for diagnostics.
//!
//! # Stages
//!
//! [`PerfHistograms`] keeps one histogram per [`Stage`] of a request's path through the framework
//! and a switch, off by default as in the XRPC article (`polarx_rpc_enable_perf_hist`). While it is
//! off, [`PerfHistograms::record`] costs one `Relaxed` load, and [`PerfHistograms::start`] does not
//! read the clock.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use crate::metrics::{Exposition, HistogramSeries};

/// Sub-bucket bits: 2 bits, 4 sub-buckets per power of two.
const SUB_BITS: u32 = 2;
/// Values from `2^MAX_POW` ns up go to the overflow bucket.
const MAX_POW: u32 = 37;
/// Index of the overflow bucket.
const OVERFLOW: usize = ((MAX_POW - SUB_BITS + 1) << SUB_BITS) as usize;
/// The number of buckets, including the overflow bucket.
pub const BUCKETS: usize = OVERFLOW + 1;

/// The bucket that a duration of `ns` nanoseconds falls in.
#[inline]
pub fn bucket_index(ns: u64) -> usize {
    if ns < (1 << (SUB_BITS + 1)) {
        return ns as usize;
    }
    let m = 63 - ns.leading_zeros();
    if m >= MAX_POW {
        return OVERFLOW;
    }
    let shift = m - SUB_BITS;
    (((shift as u64) << SUB_BITS) + (ns >> shift)) as usize
}

/// The `[lower, upper)` nanosecond bounds of bucket `index`; the overflow bucket's upper bound is
/// `u64::MAX`.
///
/// # Panics
///
/// Panics if `index >= BUCKETS`.
pub fn bucket_bounds(index: usize) -> (u64, u64) {
    assert!(index < BUCKETS, "bucket index out of range");
    if index == OVERFLOW {
        return (1 << MAX_POW, u64::MAX);
    }
    if index < (1 << (SUB_BITS + 1)) {
        return (index as u64, index as u64 + 1);
    }
    let shift = (index >> SUB_BITS) as u32 - 1;
    let sub = (index & ((1 << SUB_BITS) - 1)) as u64;
    let lower = ((1 << SUB_BITS) + sub) << shift;
    (lower, lower + (1 << shift))
}

/// One stripe of counters, written mostly by the threads assigned to it.
#[derive(Debug)]
struct Shard {
    counts: [AtomicU64; BUCKETS],
    sum_ns: AtomicU64,
    min_ns: AtomicU64,
    max_ns: AtomicU64,
}

impl Shard {
    fn new() -> Self {
        Self {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_ns: AtomicU64::new(0),
            min_ns: AtomicU64::new(u64::MAX),
            max_ns: AtomicU64::new(0),
        }
    }

    fn reset(&self) {
        for c in &self.counts {
            c.store(0, Ordering::Relaxed);
        }
        self.sum_ns.store(0, Ordering::Relaxed);
        self.min_ns.store(u64::MAX, Ordering::Relaxed);
        self.max_ns.store(0, Ordering::Relaxed);
    }
}

/// A concurrent log-scale latency histogram; see the [module docs](self).
#[derive(Debug)]
pub struct Histogram {
    shards: Box<[CachePadded<Shard>]>,
}

impl Histogram {
    /// Creates a histogram with one shard per available CPU, rounded up to a power of two and
    /// clamped to 4..=32.
    pub fn new() -> Self {
        let cpus = std::thread::available_parallelism().map_or(4, |n| n.get());
        Self::with_shards(cpus.clamp(4, 32))
    }

    /// Creates a histogram with `shards` stripes (rounded up to a power of two, at least 1).
    pub fn with_shards(shards: usize) -> Self {
        let n = shards.max(1).next_power_of_two();
        Self {
            shards: (0..n).map(|_| CachePadded::new(Shard::new())).collect(),
        }
    }

    /// Records one duration (saturating at `u64::MAX` nanoseconds, about 584 years).
    #[inline]
    pub fn record(&self, d: Duration) {
        self.record_ns(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Records one duration given in nanoseconds.
    #[inline]
    pub fn record_ns(&self, ns: u64) {
        let shard = &self.shards[thread_shard_hint() & (self.shards.len() - 1)];
        shard.counts[bucket_index(ns)].fetch_add(1, Ordering::Relaxed);
        shard.sum_ns.fetch_add(ns, Ordering::Relaxed);
        // Plain loads first: min and max rarely change, so most records skip the read-modify-write.
        if ns < shard.min_ns.load(Ordering::Relaxed) {
            shard.min_ns.fetch_min(ns, Ordering::Relaxed);
        }
        if ns > shard.max_ns.load(Ordering::Relaxed) {
            shard.max_ns.fetch_max(ns, Ordering::Relaxed);
        }
    }

    /// Sums the shards into a plain snapshot.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut snap = HistogramSnapshot::empty();
        for shard in self.shards.iter() {
            for (total, c) in snap.counts.iter_mut().zip(&shard.counts) {
                *total += c.load(Ordering::Relaxed);
            }
            snap.sum_ns = snap
                .sum_ns
                .saturating_add(shard.sum_ns.load(Ordering::Relaxed));
            snap.min_ns = snap.min_ns.min(shard.min_ns.load(Ordering::Relaxed));
            snap.max_ns = snap.max_ns.max(shard.max_ns.load(Ordering::Relaxed));
        }
        snap
    }

    /// Zeroes every counter. Records racing with the reset may be kept or lost.
    pub fn reset(&self) {
        for shard in self.shards.iter() {
            shard.reset();
        }
    }

    /// The number of shards.
    pub fn shards(&self) -> usize {
        self.shards.len()
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Round-robin source of shard hints for threads that record for the first time.
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's shard hint; `usize::MAX` until its first record.
    static SHARD_HINT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// This thread's shard hint, assigned on first use. Shared by all histograms and striped
/// counters ([`crate::stats::StripedCounters`]), so a thread writes the same stripe index
/// everywhere.
#[inline]
pub(crate) fn thread_shard_hint() -> usize {
    SHARD_HINT
        .try_with(|hint| {
            let v = hint.get();
            if v != usize::MAX {
                return v;
            }
            let v = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) & (usize::MAX >> 1);
            hint.set(v);
            v
        })
        .unwrap_or(0)
}

/// The merged counts of a [`Histogram`] at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistogramSnapshot {
    counts: Box<[u64; BUCKETS]>,
    sum_ns: u64,
    /// `u64::MAX` while empty.
    min_ns: u64,
    max_ns: u64,
}

/// One non-empty bucket of a [`HistogramSnapshot`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    /// Inclusive lower bound.
    pub lower: Duration,
    /// Exclusive upper bound; `Duration::MAX` for the overflow bucket.
    pub upper: Duration,
    /// Number of records in `[lower, upper)`.
    pub count: u64,
}

impl HistogramSnapshot {
    /// A snapshot with no records.
    pub fn empty() -> Self {
        Self {
            counts: Box::new([0; BUCKETS]),
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// The number of records.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// The sum of all recorded durations.
    pub fn sum(&self) -> Duration {
        Duration::from_nanos(self.sum_ns)
    }

    /// The smallest recorded duration.
    pub fn min(&self) -> Option<Duration> {
        (!self.is_empty()).then(|| Duration::from_nanos(self.min_ns))
    }

    /// The largest recorded duration.
    pub fn max(&self) -> Option<Duration> {
        (!self.is_empty()).then(|| Duration::from_nanos(self.max_ns))
    }

    /// The mean recorded duration.
    pub fn mean(&self) -> Option<Duration> {
        let n = self.count();
        (n > 0).then(|| Duration::from_nanos(self.sum_ns / n))
    }

    /// The `q` quantile (`q` in `0.0..=1.0`, clamped): the inclusive upper bound of the bucket that
    /// holds the `ceil(q·count)`-th smallest record, clamped to the observed min and max, so the
    /// error is at most one bucket width (25%). The first and last ranks return the exact min and
    /// max. Zero when empty.
    pub fn percentile(&self, q: f64) -> Duration {
        let n = self.count();
        if n == 0 {
            return Duration::ZERO;
        }
        let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        // The extremes are known exactly.
        if rank == 1 {
            return Duration::from_nanos(self.min_ns);
        }
        if rank == n {
            return Duration::from_nanos(self.max_ns);
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (_, upper) = bucket_bounds(i);
                let ns = upper
                    .saturating_sub(1)
                    .clamp(self.min_ns, self.max_ns.max(self.min_ns));
                return Duration::from_nanos(ns);
            }
        }
        Duration::from_nanos(self.max_ns)
    }

    /// The non-empty buckets, lowest first.
    pub fn buckets(&self) -> impl Iterator<Item = Bucket> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &count)| {
                let (lower, upper) = bucket_bounds(i);
                Bucket {
                    lower: Duration::from_nanos(lower),
                    upper: if upper == u64::MAX {
                        Duration::MAX
                    } else {
                        Duration::from_nanos(upper)
                    },
                    count,
                }
            })
    }

    /// The raw count of bucket `index` (see [`bucket_bounds`]).
    pub fn bucket_count(&self, index: usize) -> u64 {
        self.counts[index]
    }

    /// Adds `other`'s records to this snapshot.
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.sum_ns = self.sum_ns.saturating_add(other.sum_ns);
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// This snapshot as one Prometheus histogram series with `labels`, in seconds.
    ///
    /// Bucket boundaries are the powers of two from 2 ns to 2^37 ns; `le` is the largest whole
    /// nanosecond below each, in seconds, so every `le` count is exact. The overflow bucket is
    /// the `+Inf` one, which is the total count.
    pub fn prometheus_series(&self, labels: Vec<(String, String)>) -> HistogramSeries {
        let mut cumulative = 0u64;
        let mut buckets = Vec::new();
        for (i, &c) in self.counts[..OVERFLOW].iter().enumerate() {
            cumulative += c;
            let (_, upper) = bucket_bounds(i);
            if upper.is_power_of_two() && upper >= 2 {
                buckets.push(((upper - 1) as f64 / 1e9, cumulative));
            }
        }
        HistogramSeries {
            labels,
            buckets,
            sum: self.sum_ns as f64 / 1e9,
            count: cumulative + self.counts[OVERFLOW],
        }
    }
}

impl Default for HistogramSnapshot {
    fn default() -> Self {
        Self::empty()
    }
}

/// A stage of a request's path through the framework, each with its own histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Time a task waited in the group's work queue, from push to pop.
    WorkQueue,
    /// Receiving and processing the first packet of a readiness event.
    RecvFirst,
    /// Receiving and decoding everything a readiness event delivered.
    RecvAll,
    /// Decoding the frames of one receive.
    Decode,
    /// From a request being decoded to its unit starting to run.
    Schedule,
    /// Running a unit of work.
    Run,
}

impl Stage {
    /// Every stage, in path order.
    pub const ALL: [Stage; 6] = [
        Stage::WorkQueue,
        Stage::RecvFirst,
        Stage::RecvAll,
        Stage::Decode,
        Stage::Schedule,
        Stage::Run,
    ];

    /// The stage's name as used in `CALL xrpc.perf_hist(...)` and metric labels.
    pub const fn name(self) -> &'static str {
        match self {
            Stage::WorkQueue => "work_queue",
            Stage::RecvFirst => "recv_first",
            Stage::RecvAll => "recv_all",
            Stage::Decode => "decode",
            Stage::Schedule => "schedule",
            Stage::Run => "run",
        }
    }

    /// Parses a [`name`](Self::name), ignoring ASCII case and accepting spaces or dashes for `_`.
    pub fn from_name(name: &str) -> Option<Stage> {
        let norm: String = name
            .trim()
            .chars()
            .map(|c| match c {
                ' ' | '-' => '_',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        Stage::ALL.into_iter().find(|s| s.name() == norm)
    }

    /// Position in [`Stage::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One row of [`PerfHistograms::render_table`]: a non-empty bucket of one stage.
#[derive(Debug, Clone, PartialEq)]
pub struct HistRow {
    /// [`Stage::name`].
    pub stage: &'static str,
    /// Inclusive lower bound of the bucket.
    pub lower: Duration,
    /// Exclusive upper bound of the bucket (`Duration::MAX` for the overflow bucket).
    pub upper: Duration,
    /// Records in the bucket.
    pub count: u64,
    /// `count` as a percentage of the stage's records.
    pub percent: f64,
    /// Percentage of the stage's records in this bucket and all lower ones.
    pub cumulative_percent: f64,
}

/// The per-stage histograms of the framework, with a runtime on/off switch.
#[derive(Debug)]
pub struct PerfHistograms {
    enabled: AtomicBool,
    hists: [Histogram; 6],
}

impl PerfHistograms {
    /// Creates the histograms, recording only if `enabled`.
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled: AtomicBool::new(enabled),
            hists: std::array::from_fn(|_| Histogram::new()),
        }
    }

    /// Switches recording on or off.
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::Relaxed);
    }

    /// Whether records are kept.
    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Records `d` for `stage`; a no-op while disabled.
    #[inline]
    pub fn record(&self, stage: Stage, d: Duration) {
        if self.is_enabled() {
            self.hists[stage.index()].record(d);
        }
    }

    /// The current time if recording is enabled, so that a disabled build skips the clock read.
    /// Pair it with [`record_since`](Self::record_since).
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        self.is_enabled().then(Instant::now)
    }

    /// Records the time since `start` for `stage`, if `start` is `Some` and recording is enabled.
    #[inline]
    pub fn record_since(&self, stage: Stage, start: Option<Instant>) {
        if let Some(t) = start {
            self.record(stage, t.elapsed());
        }
    }

    /// The histogram of one stage.
    pub fn histogram(&self, stage: Stage) -> &Histogram {
        &self.hists[stage.index()]
    }

    /// A snapshot of one stage.
    pub fn snapshot(&self, stage: Stage) -> HistogramSnapshot {
        self.histogram(stage).snapshot()
    }

    /// Zeroes every stage (`CALL xrpc.perf_hist('reset')`).
    pub fn reset(&self) {
        for h in &self.hists {
            h.reset();
        }
    }

    /// Rows for a SQL result set: the non-empty buckets of `stage`, or of every stage if `None`
    /// (`CALL xrpc.perf_hist('all')`), lowest bucket first within each stage.
    pub fn render_table(&self, stage: Option<Stage>) -> Vec<HistRow> {
        let stages = match stage {
            Some(s) => vec![s],
            None => Stage::ALL.to_vec(),
        };
        let mut rows = Vec::new();
        for stage in stages {
            let snap = self.snapshot(stage);
            let total = snap.count();
            if total == 0 {
                continue;
            }
            let mut cumulative = 0;
            for b in snap.buckets() {
                cumulative += b.count;
                rows.push(HistRow {
                    stage: stage.name(),
                    lower: b.lower,
                    upper: b.upper,
                    count: b.count,
                    percent: 100.0 * b.count as f64 / total as f64,
                    cumulative_percent: 100.0 * cumulative as f64 / total as f64,
                });
            }
        }
        rows
    }

    /// Adds every stage to `exp` as one histogram family `{prefix}_stage_duration_seconds` with
    /// a `stage` label, plus a gauge `{prefix}_perf_hist_enabled`.
    pub fn write_metrics(&self, exp: &mut Exposition, prefix: &str) {
        let series = Stage::ALL
            .iter()
            .map(|&stage| {
                self.snapshot(stage)
                    .prometheus_series(vec![("stage".to_owned(), stage.name().to_owned())])
            })
            .collect();
        exp.histogram(
            &format!("{prefix}_stage_duration_seconds"),
            "Time spent in each stage of the request path (recorded while perf_hist is enabled).",
            series,
        );
        exp.gauge(
            &format!("{prefix}_perf_hist_enabled"),
            "Whether the stage histograms are recording.",
            f64::from(u8::from(self.is_enabled())),
        );
    }
}

impl Default for PerfHistograms {
    fn default() -> Self {
        Self::new(false)
    }
}

/// Formats a duration compactly for tables: `850ns`, `12.5us`, `3.02ms`, `1.20s`, `inf`.
pub fn format_duration(d: Duration) -> String {
    if d == Duration::MAX {
        return "inf".to_owned();
    }
    let ns = d.as_nanos();
    let (value, unit) = match ns {
        0..1_000 => return format!("{ns}ns"),
        1_000..1_000_000 => (ns as f64 / 1e3, "us"),
        1_000_000..1_000_000_000 => (ns as f64 / 1e6, "ms"),
        _ => (ns as f64 / 1e9, "s"),
    };
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_log_scaled() {
        let mut expect_lower = 0;
        for i in 0..OVERFLOW {
            let (lo, hi) = bucket_bounds(i);
            assert_eq!(
                lo, expect_lower,
                "bucket {i} starts where the previous ended"
            );
            assert!(hi > lo);
            if lo >= 8 {
                // Width is a quarter of the enclosing power of two: at most 25% of the lower bound.
                assert!((hi - lo) * 4 <= lo, "bucket {i} [{lo},{hi}) too wide");
            }
            assert_eq!(bucket_index(lo), i);
            assert_eq!(bucket_index(hi - 1), i);
            expect_lower = hi;
        }
        assert_eq!(expect_lower, 1 << MAX_POW);
        assert_eq!(bucket_index(1 << MAX_POW), OVERFLOW);
        assert_eq!(bucket_index(u64::MAX), OVERFLOW);
        assert_eq!(BUCKETS, 145);
        // 100 s is inside the regular range.
        assert!(bucket_index(100_000_000_000) < OVERFLOW);
    }

    #[test]
    fn record_and_snapshot() {
        let h = Histogram::with_shards(4);
        for ns in [5, 100, 100, 1_000, 1_000_000] {
            h.record(Duration::from_nanos(ns));
        }
        let s = h.snapshot();
        assert_eq!(s.count(), 5);
        assert_eq!(s.sum(), Duration::from_nanos(1_001_205));
        assert_eq!(s.min(), Some(Duration::from_nanos(5)));
        assert_eq!(s.max(), Some(Duration::from_millis(1)));
        assert_eq!(s.mean(), Some(Duration::from_nanos(200_241)));
        let buckets: Vec<_> = s.buckets().collect();
        assert_eq!(buckets.len(), 4);
        assert_eq!(buckets[1].count, 2);
        assert!(buckets[1].lower <= Duration::from_nanos(100));
        assert!(buckets[1].upper > Duration::from_nanos(100));
        h.reset();
        let s = h.snapshot();
        assert!(s.is_empty());
        assert_eq!(s.min(), None);
        assert_eq!(s.percentile(0.5), Duration::ZERO);
    }

    #[test]
    fn percentiles_are_within_one_bucket() {
        let h = Histogram::with_shards(1);
        for us in 1..=1000 {
            h.record(Duration::from_micros(us));
        }
        let s = h.snapshot();
        for (q, exact) in [(0.5, 500u64), (0.9, 900), (0.99, 990)] {
            let got = s.percentile(q).as_micros() as u64;
            assert!(
                got >= exact && got <= exact * 5 / 4 + 1,
                "p{q}: {got} vs {exact}"
            );
        }
        assert_eq!(s.percentile(0.0), Duration::from_micros(1));
        assert_eq!(s.percentile(1.0), Duration::from_micros(1000));
        assert_eq!(s.percentile(7.0), Duration::from_micros(1000));
    }

    #[test]
    fn shards_merge_across_threads() {
        let h = Histogram::with_shards(8);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let h = &h;
                s.spawn(move || {
                    for i in 0..1000 {
                        h.record_ns(t * 1000 + i);
                    }
                });
            }
        });
        let s = h.snapshot();
        assert_eq!(s.count(), 4000);
        assert_eq!(s.min(), Some(Duration::ZERO));
        assert_eq!(s.max(), Some(Duration::from_nanos(3999)));
        assert_eq!(s.sum(), Duration::from_nanos((0..4000).sum()));
    }

    #[test]
    fn huge_durations_saturate_into_overflow() {
        let h = Histogram::with_shards(1);
        h.record(Duration::MAX);
        h.record(Duration::from_secs(200));
        let s = h.snapshot();
        assert_eq!(s.bucket_count(OVERFLOW), 2);
        let b: Vec<_> = s.buckets().collect();
        assert_eq!(b[0].upper, Duration::MAX);
    }

    #[test]
    fn stage_names_round_trip() {
        let names: Vec<_> = Stage::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "work_queue",
                "recv_first",
                "recv_all",
                "decode",
                "schedule",
                "run"
            ]
        );
        for s in Stage::ALL {
            assert_eq!(Stage::from_name(s.name()), Some(s));
            assert_eq!(Stage::ALL[s.index()], s);
        }
        assert_eq!(Stage::from_name("Work Queue"), Some(Stage::WorkQueue));
        assert_eq!(Stage::from_name("RECV-ALL"), Some(Stage::RecvAll));
        assert_eq!(Stage::from_name("all"), None);
    }

    #[test]
    fn disabled_records_nothing() {
        let p = PerfHistograms::new(false);
        assert!(p.start().is_none());
        p.record(Stage::Run, Duration::from_micros(3));
        assert!(p.snapshot(Stage::Run).is_empty());
        p.set_enabled(true);
        assert!(p.is_enabled());
        p.record(Stage::Run, Duration::from_micros(3));
        let t = p.start();
        assert!(t.is_some());
        p.record_since(Stage::Decode, t);
        assert_eq!(p.snapshot(Stage::Run).count(), 1);
        assert_eq!(p.snapshot(Stage::Decode).count(), 1);
        p.reset();
        assert!(p.snapshot(Stage::Run).is_empty());
    }

    #[test]
    fn table_rows_have_percentages() {
        let p = PerfHistograms::new(true);
        for _ in 0..3 {
            p.record(Stage::Run, Duration::from_nanos(100));
        }
        p.record(Stage::Run, Duration::from_micros(10));
        p.record(Stage::Decode, Duration::from_nanos(50));
        let rows = p.render_table(Some(Stage::Run));
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].stage, "run");
        assert_eq!(rows[0].count, 3);
        assert!((rows[0].percent - 75.0).abs() < 1e-9);
        assert!((rows[1].cumulative_percent - 100.0).abs() < 1e-9);
        let all = p.render_table(None);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].stage, "decode", "stages in path order");
    }

    #[test]
    fn prometheus_text_is_cumulative() {
        let p = PerfHistograms::new(true);
        p.record(Stage::Run, Duration::from_nanos(3));
        p.record(Stage::Run, Duration::from_micros(1));
        p.record(Stage::Run, Duration::from_secs(500));
        let mut exp = Exposition::new();
        p.write_metrics(&mut exp, "xrpc");
        let text = exp.render();
        assert!(text.contains("# TYPE xrpc_stage_duration_seconds histogram"));
        assert!(
            text.contains("xrpc_stage_duration_seconds_bucket{stage=\"run\",le=\"0.000000003\"} 1")
        );
        assert!(
            text.contains("xrpc_stage_duration_seconds_bucket{stage=\"run\",le=\"0.000001023\"} 2")
        );
        assert!(
            text.contains(
                "xrpc_stage_duration_seconds_bucket{stage=\"run\",le=\"137.438953471\"} 2"
            )
        );
        assert!(text.contains("xrpc_stage_duration_seconds_bucket{stage=\"run\",le=\"+Inf\"} 3"));
        assert!(text.contains("xrpc_stage_duration_seconds_count{stage=\"run\"} 3"));
        assert!(text.contains("xrpc_stage_duration_seconds_count{stage=\"decode\"} 0"));
        assert!(text.contains("xrpc_perf_hist_enabled 1"));
        // Counts never decrease along the buckets of one series.
        let mut last = 0;
        for line in text.lines().filter(|l| l.contains("_bucket{stage=\"run\"")) {
            let n: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
            assert!(n >= last);
            last = n;
        }
    }

    #[test]
    fn durations_format_compactly() {
        assert_eq!(format_duration(Duration::from_nanos(850)), "850ns");
        assert_eq!(format_duration(Duration::from_nanos(12_500)), "12.5us");
        assert_eq!(format_duration(Duration::from_micros(3_020)), "3.02ms");
        assert_eq!(format_duration(Duration::from_millis(1_200)), "1.20s");
        assert_eq!(format_duration(Duration::from_secs(150)), "150s");
        assert_eq!(format_duration(Duration::MAX), "inf");
    }
}
