//! The `echo` workload: frames against an xrpc-net echo server, through the shared closed-loop
//! generator [`xrpc_bench::loadgen`] (the same one the `echo-bench` example uses).
//!
//! The concurrency is the number of frames in flight. They are spread over `connections`
//! connections (fewer if the concurrency is smaller), `concurrency / connections` on each, and the
//! connections over the driver threads, each running one generator loop. `--spawn-echo` starts
//! an echo server inside this process (xrpc-bench's [`EchoHandler`](xrpc_bench::echo::EchoHandler) with its default
//! configuration) for the run; the CPU share reported is still the generator threads' own. Its
//! workers float over the cores unless `--echo-bind-cores` pins them as xrpc-net does by default:
//! on a machine whose cores the generator (and anything else) shares, a pinned worker waits for
//! its one core even when another is idle, which shows up as millisecond tails at low load.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use xrpc_bench::echo::{self, EchoServer};
use xrpc_bench::loadgen::{self, EchoLoad};

use super::stats::{Recorder, StepClock};
use super::{Started, StepSpec, spawn_load};

/// The echo layout of a step: connections and frames in flight on each.
pub fn layout(spec: &StepSpec) -> (usize, usize) {
    let connections = spec.connections.clamp(1, spec.concurrency.max(1));
    (connections, (spec.concurrency / connections).max(1))
}

/// Starts an in-process echo server on a loopback port, its workers pinned to cores or not.
pub fn spawn_server(bind_cores: bool) -> std::io::Result<EchoServer> {
    echo::start_loopback(bind_cores)
}

/// Bridges the generator's callbacks to a step's recorder and live counter.
struct Bridge<'a> {
    rec: Recorder,
    clock: &'a StepClock,
    unreported: u64,
}

impl loadgen::Recorder for Bridge<'_> {
    fn start(&mut self, _now: Instant) {
        self.rec.cpu_start();
    }

    fn record(&mut self, latency_ns: u64) {
        self.rec
            .record(Duration::from_nanos(latency_ns), true, true);
        self.unreported += 1;
    }

    fn tick(&mut self, _now: Instant) {
        self.clock
            .add_completed(std::mem::take(&mut self.unreported));
    }
}

/// Starts the generator threads of one step.
pub fn start(addr: SocketAddr, spec: &StepSpec) -> Started {
    let (connections, inflight) = layout(spec);
    let threads = spec.threads.clamp(1, connections);
    let payload = spec.payload;
    spawn_load(threads, "bench-echo", None, move |t, gate| {
        // Connections split as evenly as possible; thread t takes its share.
        let mine = connections / threads + usize::from(t < connections % threads);
        let clock = gate.arrive();
        let now = Instant::now();
        let load = EchoLoad {
            addr,
            connections: mine,
            inflight,
            payload,
            warmup: clock.measure_from.saturating_duration_since(now),
            duration: clock
                .measure_until
                .saturating_duration_since(clock.measure_from),
        };
        let mut bridge = Bridge {
            rec: Recorder::new(),
            clock,
            unreported: 0,
        };
        let result = loadgen::run_echo(&load, &mut bridge);
        bridge.rec.cpu_stop();
        gate.collector.merge(t, &bridge.rec);
        result.map(|_| ()).map_err(|e| format!("echo load: {e}"))
    })
}
