//! The server: groups, listeners, the watchdog, observability and graceful shutdown.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::affinity::CpuTopology;
use crate::config::NetConfig;
use crate::conn::Factory;
use crate::conn::handler::Handler;
use crate::group::{ConnFactory, Group, GroupHandle, SpawnReason, WatchState};
use crate::hist::PerfHistograms;
use crate::metrics::Exposition;
use crate::stats::{NetCounters, NetStats};
use crate::sys;

/// A running XRPC network framework serving one [`Handler`].
///
/// Dropping the server shuts it down like [`Server::shutdown`].
pub struct Server<H: Handler> {
    handler: Arc<H>,
    groups: Vec<GroupHandle>,
    cfg: Arc<NetConfig>,
    counters: Arc<NetCounters>,
    perf: Arc<PerfHistograms>,
    local_addr: SocketAddr,
    watchdog: Option<JoinHandle<()>>,
    watchdog_stop: Arc<(Mutex<bool>, Condvar)>,
    stopped: bool,
}

impl<H: Handler> std::fmt::Debug for Server<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("local_addr", &self.local_addr)
            .field("groups", &self.groups.len())
            .finish_non_exhaustive()
    }
}

/// The number of groups for `cfg` on `cpus` allowed CPUs.
fn group_count(cfg: &NetConfig, cpus: usize) -> usize {
    if cfg.groups > 0 {
        return cfg.groups;
    }
    cpus.div_ceil(cfg.threads_per_group)
        .max(cfg.min_auto_groups)
        .max(1)
}

impl<H: Handler> Server<H> {
    /// Binds the listeners, starts every group's base workers and the watchdog.
    pub fn start(cfg: NetConfig, handler: H) -> io::Result<Self> {
        cfg.validate()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let topo = if cfg.force_all_cores {
            CpuTopology::detect_online()
        } else {
            CpuTopology::detect()
        }
        .ok();
        let ncpus = topo.as_ref().map_or(1, |t| t.len().max(1));
        let ngroups = group_count(&cfg, ncpus);
        let cfg = Arc::new(cfg);
        let counters = Arc::new(NetCounters::new());
        let perf = Arc::new(PerfHistograms::new(cfg.perf_hist));
        let handler = Arc::new(handler);
        let factory: Arc<dyn ConnFactory> = Arc::new(Factory {
            handler: handler.clone(),
            next_id: Arc::new(AtomicU64::new(1)),
        });

        // The first listener picks the port when 0 was asked; the others share it.
        let mut addr = cfg.listen;
        let mut listeners = Vec::with_capacity(ngroups);
        for _ in 0..ngroups {
            let fd = sys::listen_reuseport(addr, cfg.listen_backlog as i32)?;
            if addr.port() == 0 {
                addr = sys::local_addr(std::os::fd::AsFd::as_fd(&fd))?;
            }
            listeners.push(fd);
        }
        let mut groups = Vec::with_capacity(ngroups);
        for (id, listener) in listeners.into_iter().enumerate() {
            let cpus = topo
                .as_ref()
                .map(|t| t.group_cpus(id, ngroups))
                .unwrap_or_default();
            groups.push(Group::create(
                id,
                cfg.clone(),
                Some(listener),
                factory.clone(),
                counters.clone(),
                perf.clone(),
                cpus,
            )?);
        }
        let mut server = Server {
            handler,
            groups,
            cfg: cfg.clone(),
            counters,
            perf,
            local_addr: addr,
            watchdog: None,
            watchdog_stop: Arc::new((Mutex::new(false), Condvar::new())),
            stopped: false,
        };
        for g in &server.groups {
            for i in 0..cfg.threads_per_group {
                if !g.spawn_worker(SpawnReason::Base(i)) {
                    return Err(io::Error::other("cannot start a worker thread"));
                }
            }
        }
        let groups = server.groups.clone();
        let stop = server.watchdog_stop.clone();
        let interval = cfg.deadlock_check_interval;
        let rebind = cfg.bind_cores && !cfg.force_all_cores;
        server.watchdog = Some(
            std::thread::Builder::new()
                .name("xrpc-watchdog".into())
                .spawn(move || watchdog_main(groups, stop, interval, topo, rebind))?,
        );
        Ok(server)
    }

    /// The address the listeners are bound to (with the real port if 0 was configured).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The handler.
    pub fn handler(&self) -> &Arc<H> {
        &self.handler
    }

    /// The configuration in force.
    pub fn config(&self) -> &NetConfig {
        &self.cfg
    }

    /// The epoll groups.
    pub fn groups(&self) -> &[GroupHandle] {
        &self.groups
    }

    /// The live counters.
    pub fn counters(&self) -> &NetCounters {
        &self.counters
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> NetStats {
        self.counters.snapshot()
    }

    /// The per-stage histograms (switch them with `perf().set_enabled(..)`).
    pub fn perf(&self) -> &PerfHistograms {
        &self.perf
    }

    /// Counters and histograms in the Prometheus text format ([`crate::metrics`]), every name
    /// prefixed with `prefix_`.
    pub fn prometheus(&self, prefix: &str) -> String {
        let mut exp = Exposition::new();
        self.stats().write_metrics(&mut exp, prefix);
        self.perf.write_metrics(&mut exp, prefix);
        exp.render()
    }

    /// Stops accepting connections: every group's listener is closed, so a connection attempt
    /// from now on is refused by the kernel. A connection accepted before it returns has been
    /// registered (the handler's `on_connect` ran) and stays open. Idempotent; [`Server::shutdown`]
    /// does it too.
    pub fn stop_accepting(&self) {
        for g in &self.groups {
            g.stop_accepting();
        }
    }

    /// Shuts down gracefully: stops accepting, lets running and queued units finish for up to
    /// `shutdown_grace`, finishes every connection, runs the `on_close` callbacks and joins every
    /// thread. Units blocked forever keep their worker, and so this call, waiting. The fd of a
    /// connection whose [`crate::ConnRef`] the handler still holds is closed when that handle drops.
    pub fn shutdown(mut self) {
        self.shutdown_inner();
    }

    fn shutdown_inner(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        {
            let (lock, cv) = &*self.watchdog_stop;
            *lock.lock() = true;
            cv.notify_all();
        }
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
        }
        self.stop_accepting();
        let deadline = Instant::now() + self.cfg.shutdown_grace;
        while Instant::now() < deadline && self.groups.iter().any(GroupHandle::busy) {
            std::thread::sleep(Duration::from_millis(2));
        }
        for g in &self.groups {
            for conn in g.0.table.all() {
                conn.conn_ref().fin();
            }
        }
        for g in &self.groups {
            g.stop();
        }
        for g in &self.groups {
            g.join_workers();
        }
        for g in &self.groups {
            g.drain_after_stop();
        }
    }
}

impl<H: Handler> Drop for Server<H> {
    fn drop(&mut self) {
        self.shutdown_inner();
    }
}

fn watchdog_main(
    groups: Vec<GroupHandle>,
    stop: Arc<(Mutex<bool>, Condvar)>,
    interval: Duration,
    mut topo: Option<CpuTopology>,
    rebind: bool,
) {
    let mut states: Vec<WatchState> = groups.iter().map(|_| WatchState::default()).collect();
    let (lock, cv) = &*stop;
    loop {
        {
            let mut stopped = lock.lock();
            if *stopped {
                return;
            }
            cv.wait_for(&mut stopped, interval);
            if *stopped {
                return;
            }
        }
        for (g, st) in groups.iter().zip(states.iter_mut()) {
            g.watchdog_tick(st);
        }
        if rebind
            && let Some(t) = &topo
            && t.allowed_set_changed()
            && let Ok(new) = CpuTopology::detect()
        {
            for g in &groups {
                g.set_cpus(new.group_cpus(g.id(), groups.len()));
            }
            topo = Some(new);
        }
    }
}
