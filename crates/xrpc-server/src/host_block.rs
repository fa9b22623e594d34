//! Blocking client addresses that fail authentication too often: MySQL's `max_connect_errors`.
//!
//! Every failed authentication counts against the client's IP address; a successful one resets
//! its count. At `xrpc_max_connect_errors` failures in a row the address is blocked: its new
//! connections get FATAL 1129 on sid 0 before they may try a password, and connections it
//! already has are refused the same way at their next AuthenticateStart. The block ends after
//! `xrpc_host_block_time` (never, when 0) or at `FLUSH HOSTS`. Other addresses are not affected,
//! so the right password from elsewhere works at once.
//!
//! # Invariants
//!
//! - The table holds at most [`MAX_TRACKED_HOSTS`] addresses, so a client spraying failures from
//!   many addresses cannot grow it without bound: when it is full, addresses that are not blocked
//!   are forgotten first, and if every tracked address is blocked a new one is not tracked (and
//!   the event is reported to the caller, which logs it).
//! - Loopback addresses count like any other: a node reached through a local proxy sees every
//!   client as the proxy's address, and then one bad client blocks them all, as in MySQL with
//!   a proxy in front. Raise `xrpc_max_connect_errors` there.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// The most addresses tracked at once (failure counts and blocks).
pub const MAX_TRACKED_HOSTS: usize = 65_536;

/// One address's record.
#[derive(Debug, Clone, Copy)]
struct HostEntry {
    /// Failed authentications since the last success (or the last block's end).
    failures: u32,
    /// When the address was blocked, if it is.
    blocked_at: Option<Instant>,
}

/// What [`HostBlocker::failed`] did with a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Counted; the address is not blocked (yet).
    Counted,
    /// This failure blocked the address.
    Blocked,
    /// The table is full of blocked addresses; this one is not tracked.
    NotTracked,
}

/// The node's table of failing and blocked client addresses.
#[derive(Debug, Default)]
pub struct HostBlocker {
    hosts: Mutex<HashMap<IpAddr, HostEntry>>,
}

impl HostBlocker {
    /// Whether `ip` is blocked now; a block older than `block_time` (`None`: blocks never end by
    /// themselves) ends here, and the address starts over with no failures.
    pub fn is_blocked(&self, ip: IpAddr, block_time: Option<Duration>) -> bool {
        let mut hosts = self.hosts.lock();
        let Some(entry) = hosts.get(&ip) else {
            return false;
        };
        match (entry.blocked_at, block_time) {
            (None, _) => false,
            (Some(at), Some(block_time)) if at.elapsed() >= block_time => {
                hosts.remove(&ip);
                false
            }
            (Some(_), _) => true,
        }
    }

    /// Counts a failed authentication from `ip`, blocking it at `max_errors` failures in a row.
    pub fn failed(&self, ip: IpAddr, max_errors: u32) -> Failure {
        let mut hosts = self.hosts.lock();
        if !hosts.contains_key(&ip) && hosts.len() >= MAX_TRACKED_HOSTS {
            hosts.retain(|_, entry| entry.blocked_at.is_some());
            if hosts.len() >= MAX_TRACKED_HOSTS {
                return Failure::NotTracked;
            }
        }
        let entry = hosts.entry(ip).or_insert(HostEntry {
            failures: 0,
            blocked_at: None,
        });
        if entry.blocked_at.is_some() {
            return Failure::Counted;
        }
        entry.failures = entry.failures.saturating_add(1);
        if entry.failures >= max_errors.max(1) {
            entry.blocked_at = Some(Instant::now());
            Failure::Blocked
        } else {
            Failure::Counted
        }
    }

    /// A successful authentication from `ip`: its failures are forgotten.
    pub fn succeeded(&self, ip: IpAddr) {
        let mut hosts = self.hosts.lock();
        if hosts
            .get(&ip)
            .is_some_and(|entry| entry.blocked_at.is_none())
        {
            hosts.remove(&ip);
        }
    }

    /// `FLUSH HOSTS`: forgets every address, blocked or counting. Returns how many were blocked.
    pub fn flush(&self) -> usize {
        let mut hosts = self.hosts.lock();
        let blocked = hosts.values().filter(|e| e.blocked_at.is_some()).count();
        hosts.clear();
        blocked
    }

    /// Addresses blocked now (expired blocks included until their address is next seen).
    pub fn blocked(&self) -> usize {
        self.hosts
            .lock()
            .values()
            .filter(|e| e.blocked_at.is_some())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn the_nth_failure_in_a_row_blocks_only_that_address() {
        let hosts = HostBlocker::default();
        assert_eq!(hosts.failed(A, 3), Failure::Counted);
        assert_eq!(hosts.failed(A, 3), Failure::Counted);
        assert!(!hosts.is_blocked(A, None));
        assert_eq!(hosts.failed(A, 3), Failure::Blocked);
        assert!(hosts.is_blocked(A, None));
        assert!(!hosts.is_blocked(B, None));
        assert_eq!(hosts.blocked(), 1);
    }

    #[test]
    fn a_success_resets_the_count_but_not_a_block() {
        let hosts = HostBlocker::default();
        hosts.failed(A, 2);
        hosts.succeeded(A);
        assert_eq!(hosts.failed(A, 2), Failure::Counted);
        assert_eq!(hosts.failed(A, 2), Failure::Blocked);
        hosts.succeeded(A);
        assert!(
            hosts.is_blocked(A, None),
            "a block ends only by time or FLUSH HOSTS"
        );
    }

    #[test]
    fn flush_and_block_time_end_a_block() {
        let hosts = HostBlocker::default();
        hosts.failed(A, 1);
        hosts.failed(B, 1);
        assert_eq!(hosts.flush(), 2);
        assert!(!hosts.is_blocked(A, None));
        hosts.failed(A, 1);
        assert!(hosts.is_blocked(A, Some(Duration::from_secs(3600))));
        assert!(!hosts.is_blocked(A, Some(Duration::ZERO)), "expired");
        assert_eq!(hosts.failed(A, 2), Failure::Counted, "starts over");
    }

    #[test]
    fn the_table_stays_bounded() {
        let hosts = HostBlocker::default();
        for i in 0..MAX_TRACKED_HOSTS as u32 {
            hosts.failed(IpAddr::V4(Ipv4Addr::from(i)), 1);
        }
        assert_eq!(hosts.blocked(), MAX_TRACKED_HOSTS);
        let new = IpAddr::V4(Ipv4Addr::from(u32::MAX));
        assert_eq!(hosts.failed(new, 1), Failure::NotTracked);
        assert!(!hosts.is_blocked(new, None));
        hosts.flush();
        // Counting (not blocked) entries make room for new ones.
        for i in 0..MAX_TRACKED_HOSTS as u32 {
            hosts.failed(IpAddr::V4(Ipv4Addr::from(i)), 5);
        }
        assert_eq!(hosts.failed(new, 1), Failure::Blocked);
    }
}
