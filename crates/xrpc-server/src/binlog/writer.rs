//! The bounded queue between the request path and the sink, and the thread that drains it.
//!
//! # Invariants
//!
//! - [`Writer::offer`] never blocks: a full queue drops the entry and counts it in
//!   [`Counters::dropped`]. Entries carry sequence numbers assigned before the offer, so a reader
//!   sees a dropped entry as a gap.
//! - Only the writer thread touches the sink (through the mutex that [`Writer::replace_sink`]
//!   also takes), so a sink needs no locking of its own and may block.
//! - The sink is flushed whenever the queue runs empty, so a reader of the files lags the node by
//!   at most what the queue holds.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use xrpc_proto::binlog::BinlogEntry;

use super::sink::Sink;

/// Entries written and dropped, for `SHOW STATUS` and the metrics.
#[derive(Debug, Default)]
pub struct Counters {
    /// Entries the sink accepted.
    pub written: AtomicU64,
    /// Entries lost: the queue was full, or the sink failed to write them.
    pub dropped: AtomicU64,
}

enum Item {
    Entry(Box<BinlogEntry>),
    /// Answered once everything queued before it is written and the sink flushed.
    Flush(SyncSender<()>),
}

/// The queue and its writer thread.
pub struct Writer {
    tx: Option<SyncSender<Item>>,
    sink: Arc<Mutex<Box<dyn Sink>>>,
    counters: Arc<Counters>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl Writer {
    /// Starts the writer thread over `sink`, with a queue of `capacity` entries.
    pub fn start(
        sink: Box<dyn Sink>,
        capacity: usize,
        counters: Arc<Counters>,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::sync_channel(capacity.max(1));
        let sink = Arc::new(Mutex::new(sink));
        let thread = {
            let sink = Arc::clone(&sink);
            let counters = Arc::clone(&counters);
            std::thread::Builder::new()
                .name("xrpc-binlog".into())
                .spawn(move || drain(&rx, &sink, &counters))?
        };
        Ok(Self {
            tx: Some(tx),
            sink,
            counters,
            thread: Some(thread),
        })
    }

    /// Queues `entry` if there is room; otherwise drops it and counts it. Never blocks.
    pub fn offer(&self, entry: BinlogEntry) {
        let tx = self.tx.as_ref().expect("open until dropped");
        match tx.try_send(Item::Entry(Box::new(entry))) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.counters.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Waits until every entry queued so far is written and the sink flushed. For tests, tools
    /// and shutdown; never called on the request path.
    pub fn flush(&self) {
        let (ack, done) = mpsc::sync_channel(1);
        let tx = self.tx.as_ref().expect("open until dropped");
        if tx.send(Item::Flush(ack)).is_ok() {
            let _ = done.recv();
        }
    }

    /// Replaces the sink; the old one is flushed first. Entries still queued go to the new one.
    pub fn replace_sink(&self, sink: Box<dyn Sink>) {
        let mut current = self.sink.lock();
        if let Err(err) = current.flush() {
            tracing::warn!(%err, "binlog: flushing the replaced sink failed");
        }
        *current = sink;
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the queue ends the thread once it has written what was queued.
        drop(self.tx.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn drain(rx: &Receiver<Item>, sink: &Mutex<Box<dyn Sink>>, counters: &Counters) {
    let mut last_warning: Option<Instant> = None;
    let mut warn = |err: std::io::Error| {
        if last_warning.is_none_or(|at| at.elapsed() >= Duration::from_secs(10)) {
            last_warning = Some(Instant::now());
            tracing::warn!(%err, "binlog: the sink failed; entries are dropped (counted in xrpc_binlog_dropped)");
        }
    };
    while let Ok(first) = rx.recv() {
        let mut sink = sink.lock();
        let mut item = Some(first);
        while let Some(next) = item.take().or_else(|| rx.try_recv().ok()) {
            match next {
                Item::Entry(entry) => match sink.write(&entry) {
                    Ok(()) => {
                        counters.written.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(err) => {
                        counters.dropped.fetch_add(1, Ordering::Relaxed);
                        warn(err);
                    }
                },
                Item::Flush(ack) => {
                    if let Err(err) = sink.flush() {
                        warn(err);
                    }
                    let _ = ack.send(());
                }
            }
        }
        if let Err(err) = sink.flush() {
            warn(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::Receiver;

    use super::*;

    /// A sink that waits for a go-ahead before each write: as slow as the test wants.
    struct GatedSink {
        go: Receiver<()>,
        written: Arc<Mutex<Vec<u64>>>,
    }

    impl Sink for GatedSink {
        fn write(&mut self, entry: &BinlogEntry) -> std::io::Result<()> {
            self.go
                .recv()
                .map_err(|_| std::io::Error::other("test ended"))?;
            self.written.lock().push(entry.sequence);
            Ok(())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn entry(sequence: u64) -> BinlogEntry {
        BinlogEntry {
            sequence,
            ..Default::default()
        }
    }

    #[test]
    fn a_slow_sink_makes_entries_drop_without_blocking() {
        let (go, gate) = mpsc::channel();
        let written = Arc::new(Mutex::new(Vec::new()));
        let counters = Arc::new(Counters::default());
        let sink = GatedSink {
            go: gate,
            written: Arc::clone(&written),
        };
        let writer = Writer::start(Box::new(sink), 4, Arc::clone(&counters)).unwrap();
        // The thread takes at most one entry out of the queue and then waits at the gate, so of
        // 100 offers at most 4 + 1 are kept; offer() returns at once every time.
        for sequence in 1..=100 {
            writer.offer(entry(sequence));
        }
        let dropped = counters.dropped.load(Ordering::Relaxed);
        assert!((95..=96).contains(&dropped), "dropped {dropped}");
        for _ in 0..100 {
            let _ = go.send(());
        }
        writer.flush();
        let written = written.lock().clone();
        assert_eq!(written.len() as u64 + dropped, 100);
        assert_eq!(
            counters.written.load(Ordering::Relaxed),
            written.len() as u64
        );
        assert!(
            written.windows(2).all(|w| w[0] < w[1]),
            "in order: {written:?}"
        );
        assert_eq!(written[0], 1);
    }

    #[test]
    fn sink_errors_count_as_dropped() {
        struct Failing;
        impl Sink for Failing {
            fn write(&mut self, _: &BinlogEntry) -> std::io::Result<()> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let counters = Arc::new(Counters::default());
        let writer = Writer::start(Box::new(Failing), 16, Arc::clone(&counters)).unwrap();
        for sequence in 1..=3 {
            writer.offer(entry(sequence));
        }
        writer.flush();
        assert_eq!(counters.dropped.load(Ordering::Relaxed), 3);
        assert_eq!(counters.written.load(Ordering::Relaxed), 0);
    }
}
