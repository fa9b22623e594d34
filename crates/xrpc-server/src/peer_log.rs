//! Rate-limited logging of what clients do wrong, per peer address.
//!
//! A client that fails to log in, sends undecodable frames or never authenticates writes a log
//! line each time; a hostile or broken one would flood the log (4,000 failed logins wrote 684 KB).
//! [`PeerLog`] lets one line per peer, kind and [`LOG_INTERVAL`] through and counts the rest; the
//! next line that gets through reports how many were suppressed since the last one.
//!
//! # Invariants
//!
//! - The first event of a (peer, kind) is always logged, so a single failure is never hidden.
//! - Memory is bounded: at most `MAX_TRACKED` (4096) entries; when full, entries idle for longer than
//!   the interval are dropped first, and if none is, the table is cleared (the next events of
//!   every peer are then logged once more, which is the safe side).

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// At most one line per peer and kind in this interval.
pub const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Most (peer, kind) entries tracked at once.
const MAX_TRACKED: usize = 4096;

/// What went wrong, for rate limiting (each kind has its own budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeerEvent {
    /// A failed authentication.
    AuthFailed,
    /// A frame whose body did not decode, or a framing error.
    BadFrame,
    /// A connection closed because it did not authenticate within `connect_timeout`.
    ConnectTimeout,
    /// A connection refused at `max_connections`.
    Refused,
    /// `accept` failed (out of file descriptors or memory); tracked without a peer.
    AcceptFailed,
    /// A TLS handshake or record failed.
    TlsFailed,
}

#[derive(Debug)]
struct Entry {
    last_logged: Instant,
    suppressed: u64,
}

/// Per-peer log rate limiter; see the [module docs](self).
#[derive(Debug)]
pub struct PeerLog {
    interval: Duration,
    entries: Mutex<HashMap<(Option<IpAddr>, PeerEvent), Entry>>,
}

impl Default for PeerLog {
    fn default() -> Self {
        Self::new(LOG_INTERVAL)
    }
}

impl PeerLog {
    /// A limiter letting one line per peer and kind through every `interval`.
    pub fn new(interval: Duration) -> Self {
        Self {
            interval,
            entries: Mutex::default(),
        }
    }

    /// Records one event; returns `Some(n)` when it should be logged, `n` being the events of this
    /// peer and kind suppressed since the last line, or `None` when it is suppressed.
    pub fn admit(&self, peer: Option<IpAddr>, event: PeerEvent) -> Option<u64> {
        self.admit_at(peer, event, Instant::now())
    }

    fn admit_at(&self, peer: Option<IpAddr>, event: PeerEvent, now: Instant) -> Option<u64> {
        let mut entries = self.entries.lock();
        if let Some(entry) = entries.get_mut(&(peer, event)) {
            if now.duration_since(entry.last_logged) < self.interval {
                entry.suppressed += 1;
                return None;
            }
            let suppressed = std::mem::take(&mut entry.suppressed);
            entry.last_logged = now;
            return Some(suppressed);
        }
        if entries.len() >= MAX_TRACKED {
            let interval = self.interval;
            entries.retain(|_, e| now.duration_since(e.last_logged) < interval);
            if entries.len() >= MAX_TRACKED {
                entries.clear();
            }
        }
        entries.insert(
            (peer, event),
            Entry {
                last_logged: now,
                suppressed: 0,
            },
        );
        Some(0)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const A: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)));
    const B: Option<IpAddr> = Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));

    #[test]
    fn one_line_per_interval_with_the_count_of_the_rest() {
        let log = PeerLog::new(Duration::from_secs(10));
        let t0 = Instant::now();
        assert_eq!(log.admit_at(A, PeerEvent::AuthFailed, t0), Some(0));
        for i in 1..1000 {
            let at = t0 + Duration::from_millis(i);
            assert_eq!(log.admit_at(A, PeerEvent::AuthFailed, at), None);
        }
        let later = t0 + Duration::from_secs(10);
        assert_eq!(log.admit_at(A, PeerEvent::AuthFailed, later), Some(999));
        assert_eq!(log.admit_at(A, PeerEvent::AuthFailed, later), None);
    }

    #[test]
    fn peers_and_kinds_have_their_own_budget() {
        let log = PeerLog::new(Duration::from_secs(10));
        let t0 = Instant::now();
        assert_eq!(log.admit_at(A, PeerEvent::AuthFailed, t0), Some(0));
        assert_eq!(log.admit_at(B, PeerEvent::AuthFailed, t0), Some(0));
        assert_eq!(log.admit_at(A, PeerEvent::BadFrame, t0), Some(0));
        assert_eq!(log.admit_at(A, PeerEvent::AuthFailed, t0), None);
    }

    #[test]
    fn the_table_stays_bounded() {
        let log = PeerLog::new(Duration::from_secs(10));
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED as u32 * 3) {
            let peer = Some(IpAddr::V4(Ipv4Addr::from(i)));
            assert_eq!(log.admit_at(peer, PeerEvent::Refused, t0), Some(0));
        }
        assert!(log.entries.lock().len() <= MAX_TRACKED);
    }
}
