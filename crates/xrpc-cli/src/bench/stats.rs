//! Measuring one step: the shared clock and counters, latency histograms, CPU accounting, and the
//! machine description recorded with every result.
//!
//! # One step
//!
//! A step is one target at one concurrency. Its [`StepClock`] fixes three instants before any
//! load thread starts: the start, the end of the warm-up (`measure_from`) and the end
//! (`measure_until`). Every load thread records into its own [`Recorder`] only the requests that
//! complete inside the measured window, so there is no shared lock on the hot path; the threads
//! merge their recorders when they finish. The one shared write is [`StepClock::completed`], a
//! relaxed counter bumped once per batch of completions, which the main thread samples every
//! second for the per-interval figures and the progress bar.
//!
//! # CPU share
//!
//! Each load thread reads its own CPU clock (`CLOCK_THREAD_CPUTIME_ID`) when the measured window
//! opens and when it closes; the sum over the threads, divided by the window and the number of
//! cores, is the load generator's share of the machine (`client_cpu`: 0.5 on two cores means one
//! core busy). This counts exactly the generator's threads even when an echo server runs in the
//! same process. The process as a whole is also read from `/proc/self/stat` (utime + stime) and
//! reported as `process_cpu`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

/// Latencies are recorded in nanoseconds, from 1 ns to 60 s, with 3 significant digits.
const HIST_MAX_NS: u64 = 60_000_000_000;

/// The instants of a step and its live completion counter; see the [module docs](self).
#[derive(Debug)]
pub struct StepClock {
    /// When the load started.
    pub start: Instant,
    /// When the warm-up ends and measuring starts.
    pub measure_from: Instant,
    /// When measuring ends; load threads stop issuing at the next event boundary.
    pub measure_until: Instant,
    /// Requests completed so far, warm-up included (relaxed; for progress and intervals).
    pub completed: AtomicU64,
}

impl StepClock {
    /// A step starting now.
    pub fn new(warmup: Duration, duration: Duration) -> Self {
        let start = Instant::now();
        Self {
            start,
            measure_from: start + warmup,
            measure_until: start + warmup + duration,
            completed: AtomicU64::new(0),
        }
    }

    /// Whether `now` lies in the measured window.
    pub fn measuring(&self, now: Instant) -> bool {
        now >= self.measure_from && now < self.measure_until
    }

    /// Adds completions to the live counter.
    pub fn add_completed(&self, n: u64) {
        if n > 0 {
            self.completed.fetch_add(n, Ordering::Relaxed);
        }
    }
}

/// One load thread's measurements.
#[derive(Debug)]
pub struct Recorder {
    /// Request latencies in the measured window, in nanoseconds.
    pub hist: Histogram<u64>,
    /// Requests completed in the window (successes and failures).
    pub requests: u64,
    /// Events (transactions) completed in the window.
    pub events: u64,
    /// Failed requests in the window.
    pub errors: u64,
    /// The first error seen (warm-up included), to show the user what went wrong.
    pub first_error: Option<String>,
    /// Clients whose session or connection ended during the step, so that they stopped issuing
    /// (the effective concurrency dropped).
    pub lost_clients: u64,
    /// CPU time of the thread inside the window.
    pub cpu: Duration,
    cpu_mark: Option<Duration>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Self {
            hist: Histogram::new_with_bounds(1, HIST_MAX_NS, 3).expect("valid histogram bounds"),
            requests: 0,
            events: 0,
            errors: 0,
            first_error: None,
            lost_clients: 0,
            cpu: Duration::ZERO,
            cpu_mark: None,
        }
    }

    /// Records a completed request; `ends_event` when it completed an event (a transaction).
    pub fn record(&mut self, latency: Duration, ok: bool, ends_event: bool) {
        self.requests += 1;
        if ends_event {
            self.events += 1;
        }
        if !ok {
            self.errors += 1;
        }
        // Values above the bound are clamped rather than lost.
        let _ = self
            .hist
            .record((latency.as_nanos() as u64).clamp(1, HIST_MAX_NS));
    }

    /// Remembers an error message (the first one only).
    pub fn note_error(&mut self, message: impl FnOnce() -> String) {
        if self.first_error.is_none() {
            self.first_error = Some(message());
        }
    }

    /// Starts the thread's CPU clock for the window (idempotent).
    pub fn cpu_start(&mut self) {
        if self.cpu_mark.is_none() {
            self.cpu_mark = Some(thread_cpu());
        }
    }

    /// Stops it (idempotent).
    pub fn cpu_stop(&mut self) {
        if let Some(mark) = self.cpu_mark.take() {
            self.cpu += thread_cpu().saturating_sub(mark);
        }
    }

    /// Adds another thread's measurements.
    pub fn merge(&mut self, other: &Recorder) {
        let _ = self.hist.add(&other.hist);
        self.requests += other.requests;
        self.events += other.events;
        self.errors += other.errors;
        self.lost_clients += other.lost_clients;
        self.cpu += other.cpu;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
    }
}

/// Samples buffered by a thread that has no recorder of its own (see `mysql`).
#[derive(Debug, Default)]
pub struct Batch {
    samples: Vec<(Duration, bool, bool)>,
    first_error: Option<String>,
    /// Clients lost (their connection failed).
    pub lost_clients: u64,
}

impl Batch {
    /// Buffers one completed request.
    pub fn push(&mut self, latency: Duration, ok: bool, ends_event: bool) {
        self.samples.push((latency, ok, ends_event));
    }

    /// Keeps the first error message.
    pub fn note_error(&mut self, message: String) {
        if self.first_error.is_none() {
            self.first_error = Some(message);
        }
    }

    /// Samples buffered.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// Where the load threads of a step leave their measurements: a few recorder shards, each behind
/// its own lock, merged once the step is over.
#[derive(Debug)]
pub struct Collector {
    shards: Vec<Mutex<Recorder>>,
}

impl Collector {
    /// A collector for `threads` load threads (at most 16 shards).
    pub fn new(threads: usize) -> Self {
        Self {
            shards: (0..threads.clamp(1, 16))
                .map(|_| Mutex::new(Recorder::new()))
                .collect(),
        }
    }

    fn shard(&self, thread: usize) -> std::sync::MutexGuard<'_, Recorder> {
        // A panicking load thread poisons nothing worth refusing: counts stay consistent.
        self.shards[thread % self.shards.len()]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a thread's whole recorder.
    pub fn merge(&self, thread: usize, rec: &Recorder) {
        self.shard(thread).merge(rec);
    }

    /// Moves a thread's buffered samples (and `cpu` more thread time) into its shard.
    pub fn merge_batch(&self, thread: usize, batch: &mut Batch, cpu: Duration) {
        let mut shard = self.shard(thread);
        for &(latency, ok, ends_event) in &batch.samples {
            shard.record(latency, ok, ends_event);
        }
        batch.samples.clear();
        if let Some(e) = batch.first_error.take() {
            shard.note_error(|| e);
        }
        shard.cpu += cpu;
        shard.lost_clients += std::mem::take(&mut batch.lost_clients);
    }

    /// Everything merged.
    pub fn total(&self) -> Recorder {
        let mut total = Recorder::new();
        for s in &self.shards {
            total.merge(&s.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        }
        total
    }
}

/// CPU time of the calling thread.
pub fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.max(0) as u32)
}

/// CPU time (user + system) of the whole process, from `/proc/self/stat`.
pub fn process_cpu() -> Option<Duration> {
    stat_cpu("/proc/self/stat")
}

/// CPU time (user + system) of process `pid`, from `/proc/<pid>/stat`; `None` when it does not
/// run (or is not readable).
pub fn pid_cpu(pid: u32) -> Option<Duration> {
    stat_cpu(&format!("/proc/{pid}/stat"))
}

/// The summed CPU time of `pids` (`--server-pid`), or `None` if any of them cannot be read: a
/// sum that silently left a process out would understate the server's cost.
pub fn pids_cpu(pids: &[u32]) -> Option<Duration> {
    pids.iter().map(|&pid| pid_cpu(pid)).sum()
}

fn stat_cpu(path: &str) -> Option<Duration> {
    cpu_of_stat_line(&std::fs::read_to_string(path).ok()?)
}

/// utime + stime of one `/proc/<pid>/stat` line.
fn cpu_of_stat_line(stat: &str) -> Option<Duration> {
    // The command name may hold spaces and parentheses; the fields start after the last ')'.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_nanos(
        ticks.saturating_mul(1_000_000_000) / clock_ticks_per_second(),
    ))
}

/// `sysconf(_SC_CLK_TCK)`: the kernel's USER_HZ, 100 on every Linux architecture this runs on.
fn clock_ticks_per_second() -> u64 {
    100
}

/// Cores this process may run on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The machine, recorded with every result: core count, CPU model, kernel, memory.
pub fn machine() -> serde_json::Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_owned());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_owned());
    let mem_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|v| v.parse::<u64>().ok());
    serde_json::json!({
        "nproc": cores(),
        "cpu_model": model,
        "kernel": kernel,
        "mem_total_kib": mem_kib,
        "arch": std::env::consts::ARCH,
    })
}

/// The summary of a step's merged recorder.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Percentiles {
    /// Median latency, µs.
    pub p50_us: f64,
    /// 90th percentile, µs.
    pub p90_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// 99.9th percentile, µs.
    pub p999_us: f64,
    /// Largest latency, µs.
    pub max_us: f64,
}

impl Percentiles {
    /// Reads the percentiles off a histogram of nanoseconds.
    pub fn of(hist: &Histogram<u64>) -> Self {
        let us = |ns: u64| (ns as f64 / 1000.0 * 10.0).round() / 10.0;
        if hist.is_empty() {
            return Self {
                p50_us: 0.0,
                p90_us: 0.0,
                p99_us: 0.0,
                p999_us: 0.0,
                max_us: 0.0,
            };
        }
        Self {
            p50_us: us(hist.value_at_quantile(0.50)),
            p90_us: us(hist.value_at_quantile(0.90)),
            p99_us: us(hist.value_at_quantile(0.99)),
            p999_us: us(hist.value_at_quantile(0.999)),
            max_us: us(hist.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorders_merge_counts_and_histograms() {
        let mut a = Recorder::new();
        a.record(Duration::from_micros(10), true, true);
        a.record(Duration::from_micros(20), false, false);
        let mut b = Recorder::new();
        b.record(Duration::from_micros(1000), true, true);
        b.note_error(|| "boom".into());
        a.merge(&b);
        assert_eq!((a.requests, a.events, a.errors), (3, 2, 1));
        assert_eq!(a.first_error.as_deref(), Some("boom"));
        let p = Percentiles::of(&a.hist);
        assert!((p.p50_us - 20.0).abs() < 0.1, "{p:?}");
        assert!((p.max_us - 1000.0).abs() < 1.0, "{p:?}");
    }

    #[test]
    fn cpu_clocks_advance_with_work() {
        // Spin until this thread has really been given 30 ms of CPU, however long a loaded
        // machine takes to give it (bounded): the recorder must then report at least that much.
        let before = process_cpu().expect("/proc/self/stat");
        let mut r = Recorder::new();
        r.cpu_start();
        let thread_start = thread_cpu();
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut x = 0u64;
        while thread_cpu().saturating_sub(thread_start) < Duration::from_millis(30) {
            assert!(Instant::now() < deadline, "30 ms of CPU not given in 20 s");
            for _ in 0..10_000 {
                x = x.wrapping_add(std::hint::black_box(1));
            }
        }
        r.cpu_stop();
        assert!(x > 0);
        assert!(r.cpu >= Duration::from_millis(30), "{:?}", r.cpu);
        assert!(process_cpu().unwrap() >= before);
    }

    #[test]
    fn stat_lines_give_utime_plus_stime() {
        // pid (comm with ") spaces") state ppid … utime=250 stime=50 at fields 14 and 15.
        let line = "42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 4 0 1000 0 0";
        assert_eq!(cpu_of_stat_line(line), Some(Duration::from_secs(3)));
        assert_eq!(cpu_of_stat_line("42 (x) S 1"), None);
    }

    #[test]
    fn another_process_cpu_is_read_by_pid_and_a_missing_one_is_none() {
        let me = std::process::id();
        let mine = pid_cpu(me).expect("our own /proc/<pid>/stat");
        assert!(pids_cpu(&[me, me]).unwrap() >= mine * 2);
        // Pid 0 never names a process in /proc.
        assert_eq!(pid_cpu(0), None);
        assert_eq!(pids_cpu(&[me, 0]), None);
    }
}
