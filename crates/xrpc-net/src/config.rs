//! Tunables of the framework, named after the XRPC variables they mirror.
//!
//! Every field documents its XRPC variable, range and default. [`NetConfig::validate`] checks the
//! ranges; the server crate maps its configuration file, command line and `SET GLOBAL` onto this
//! struct.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use xrpc_proto::FrameConfig;

/// Configuration of a [`crate::Server`].
#[derive(Debug, Clone)]
pub struct NetConfig {
    /// Address every group's listener binds (with `SO_REUSEPORT`). Port 0 picks a free port once and
    /// every group shares it.
    pub listen: SocketAddr,
    /// Frame format and `max_allowed_packet` (`polarx_rpc_max_allowed_packet`, 4 KiB–1 GiB,
    /// default 64 MiB).
    pub frame: FrameConfig,
    /// Number of epoll groups (`polarx_rpc_epoll_groups`, 0–128). 0 computes it from the allowed
    /// cores: `max(min_auto_groups, cores / threads_per_group)` rounded up, at least 1.
    pub groups: usize,
    /// Lower bound for the computed group count (`polarx_rpc_min_auto_epoll_groups`, 1–128). The
    /// XRPC default of 16/32 suits 64-core machines; this crate defaults to 1.
    pub min_auto_groups: usize,
    /// Base workers per group (`polarx_rpc_epoll_threads_per_group`, 1–128, default 4).
    pub threads_per_group: usize,
    /// Events taken by one `epoll_wait` (`polarx_rpc_epoll_events_per_thread`, 1–16, default 4).
    pub events_per_thread: usize,
    /// Longest single `epoll_wait` (`polarx_rpc_epoll_timeout`, 1 ms–60 s, default 10 s).
    pub epoll_timeout: Duration,
    /// Most workers of one group inside `epoll_wait` at once
    /// (`polarx_rpc_max_epoll_wait_total_threads` / groups). 0 means `threads_per_group`, or 1 on
    /// a group whose workers all run on one CPU (`group.rs`, "One CPU: one listener"). The others
    /// wait on the group's eventfd only.
    pub max_epoll_waiters: usize,
    /// Task queue capacity per group (`polarx_rpc_epoll_work_queue_capacity`, 128–4096, default
    /// 256).
    pub work_queue_capacity: usize,
    /// Whether the pool may grow beyond the base workers (`polarx_rpc_enable_tasker`, default on).
    pub enable_tasker: bool,
    /// Stalled workers needed, beyond the extra workers already running, to add one
    /// (`polarx_rpc_epoll_group_thread_scale_thresh`, 0–base−1, default 2).
    pub scale_thresh: usize,
    /// Watchdog period (`polarx_rpc_epoll_group_thread_deadlock_check_interval`, 1 ms–10 s, default
    /// 500 ms).
    pub deadlock_check_interval: Duration,
    /// Workers added at once when the queue is deep (`polarx_rpc_epoll_group_tasker_extend_step`,
    /// 1–50, default 2).
    pub tasker_extend_step: usize,
    /// The queue is deep when pending tasks exceed this factor times the workers
    /// (`polarx_rpc_epoll_group_tasker_multiply`, 1–50, default 3).
    pub tasker_multiply: usize,
    /// An extra worker exits after this long without work
    /// (`polarx_rpc_epoll_group_dynamic_threads_shrink_time`, 1–600 s, default 10 s; tests may go
    /// lower).
    pub shrink_time: Duration,
    /// Most workers of one group, base included. 0 means `threads_per_group * 16`.
    pub max_threads_per_group: usize,
    /// Per-connection fixed receive buffer (`polarx_rpc_tcp_fixed_dealing_buf`, 4–64 KiB, default
    /// 4 KiB).
    pub fixed_recv_buf: usize,
    /// The dynamic receive buffer is freed once empty and this long after the last large packet
    /// (10 s in XRPC).
    pub dynamic_buf_shrink: Duration,
    /// Longest wait for a socket to take more output (`polarx_rpc_net_write_timeout`, default
    /// 10 s).
    pub net_write_timeout: Duration,
    /// TCP keepalive idle time (`polarx_rpc_tcp_keep_alive`, 1–7200 s, default 30 s); `None` turns
    /// keepalive off.
    pub tcp_keepalive: Option<Duration>,
    /// Listen backlog (`polarx_rpc_tcp_listen_queue`, 128–4096, default 128).
    pub listen_backlog: u32,
    /// `SO_SNDBUF` (`polarx_rpc_tcp_send_buf`, 0–2 MiB, 0 = system default).
    pub tcp_send_buf: usize,
    /// `SO_RCVBUF` (`polarx_rpc_tcp_recv_buf`, 0–2 MiB, 0 = system default).
    pub tcp_recv_buf: usize,
    /// Output pages kept for reuse per group (`polarx_rpc_max_cached_output_buffer_pages` scaled to
    /// a group, default 64). Only buffers of at least 1 KiB are ever kept.
    pub cached_output_pages: usize,
    /// Whether workers are pinned to cores (the inverse of no binding; default on).
    pub bind_cores: bool,
    /// Pin base workers to every core of their group instead of one each
    /// (`polarx_rpc_multi_affinity_in_group`, default off).
    pub multi_affinity_in_group: bool,
    /// Bind to all CPUs of the machine rather than the allowed set (`polarx_rpc_force_all_cores`,
    /// default off).
    pub force_all_cores: bool,
    /// How long [`crate::Server::shutdown`] lets running units finish before closing connections.
    pub shutdown_grace: Duration,
    /// Whether the per-stage histograms start enabled (`polarx_rpc_enable_perf_hist`, default
    /// off; switchable at runtime).
    pub perf_hist: bool,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 33660)),
            frame: FrameConfig::default(),
            groups: 0,
            min_auto_groups: 1,
            threads_per_group: 4,
            events_per_thread: 4,
            epoll_timeout: Duration::from_secs(10),
            max_epoll_waiters: 0,
            work_queue_capacity: 256,
            enable_tasker: true,
            scale_thresh: 2,
            deadlock_check_interval: Duration::from_millis(500),
            tasker_extend_step: 2,
            tasker_multiply: 3,
            shrink_time: Duration::from_secs(10),
            max_threads_per_group: 0,
            fixed_recv_buf: 4096,
            dynamic_buf_shrink: Duration::from_secs(10),
            net_write_timeout: Duration::from_secs(10),
            tcp_keepalive: Some(Duration::from_secs(30)),
            listen_backlog: 128,
            tcp_send_buf: 0,
            tcp_recv_buf: 0,
            cached_output_pages: 64,
            bind_cores: true,
            multi_affinity_in_group: false,
            force_all_cores: false,
            shutdown_grace: Duration::from_secs(5),
            perf_hist: false,
        }
    }
}

/// A configuration value outside its range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Name of the field.
    pub field: &'static str,
    /// Allowed range, as text.
    pub range: &'static str,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} must be in {}", self.field, self.range)
    }
}

impl std::error::Error for ConfigError {}

impl NetConfig {
    /// Checks every range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn check(ok: bool, field: &'static str, range: &'static str) -> Result<(), ConfigError> {
            if ok {
                Ok(())
            } else {
                Err(ConfigError { field, range })
            }
        }
        let ms = |d: Duration| d.as_millis();
        check(self.groups <= 128, "groups", "0..=128")?;
        check(
            (1..=128).contains(&self.min_auto_groups),
            "min_auto_groups",
            "1..=128",
        )?;
        check(
            (1..=128).contains(&self.threads_per_group),
            "threads_per_group",
            "1..=128",
        )?;
        check(
            (1..=16).contains(&self.events_per_thread),
            "events_per_thread",
            "1..=16",
        )?;
        check(
            (1..=60_000).contains(&ms(self.epoll_timeout)),
            "epoll_timeout",
            "1 ms..=60 s",
        )?;
        check(
            (128..=4096).contains(&self.work_queue_capacity),
            "work_queue_capacity",
            "128..=4096",
        )?;
        check(
            self.scale_thresh <= 100,
            "scale_thresh",
            "0..=100 (capped at threads_per_group - 1)",
        )?;
        check(
            (1..=10_000).contains(&ms(self.deadlock_check_interval)),
            "deadlock_check_interval",
            "1 ms..=10 s",
        )?;
        check(
            (1..=50).contains(&self.tasker_extend_step),
            "tasker_extend_step",
            "1..=50",
        )?;
        check(
            (1..=50).contains(&self.tasker_multiply),
            "tasker_multiply",
            "1..=50",
        )?;
        check(
            (1..=600_000).contains(&ms(self.shrink_time)),
            "shrink_time",
            "1 ms..=600 s",
        )?;
        check(
            (4096..=65536).contains(&self.fixed_recv_buf),
            "fixed_recv_buf",
            "4096..=65536",
        )?;
        check(
            (1..=7_200_000).contains(&ms(self.net_write_timeout)),
            "net_write_timeout",
            "1 ms..=7200 s",
        )?;
        check(
            (128..=4096).contains(&self.listen_backlog),
            "listen_backlog",
            "128..=4096",
        )?;
        check(
            self.tcp_send_buf <= 2 * 1024 * 1024,
            "tcp_send_buf",
            "0..=2 MiB",
        )?;
        check(
            self.tcp_recv_buf <= 2 * 1024 * 1024,
            "tcp_recv_buf",
            "0..=2 MiB",
        )?;
        Ok(())
    }

    /// The scale threshold actually used: at most `threads_per_group - 1`.
    pub(crate) fn effective_scale_thresh(&self) -> usize {
        self.scale_thresh
            .min(self.threads_per_group.saturating_sub(1))
    }

    /// The worker cap per group actually used.
    pub(crate) fn effective_max_threads(&self) -> usize {
        if self.max_threads_per_group == 0 {
            self.threads_per_group * 16
        } else {
            self.max_threads_per_group.max(self.threads_per_group)
        }
    }

    /// The epoll waiter cap per group actually used.
    pub(crate) fn effective_max_waiters(&self) -> usize {
        if self.max_epoll_waiters == 0 {
            self.threads_per_group
        } else {
            self.max_epoll_waiters
        }
    }
}
