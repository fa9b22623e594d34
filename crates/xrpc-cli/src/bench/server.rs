//! The target's own CPU: which local process serves a target, and how much CPU it spent per
//! request in a step's measured window.
//!
//! # Why this figure
//!
//! On a machine whose cores are shared (with the load generator, with other work), QPS and
//! latency move with whatever else runs; the CPU time the server itself spends per request moves
//! much less, so it is the figure to judge a change to the server by. It is the server process's
//! utime + stime (fields 14 and 15 of `/proc/<pid>/stat`, dead threads included, read by
//! [`super::stats::pid_cpu`]) when the window opens and when it closes, divided by the requests
//! completed in the window.
//!
//! # Finding the process
//!
//! `--server-pid` names it. Otherwise, for a target on this machine, the process is found from
//! the target's port: the inode of the listening socket on that port in `/proc/net/tcp` or
//! `/proc/net/tcp6` (state `0A`, LISTEN), then the process holding a file descriptor that links
//! to `socket:[inode]`. A target on another host, or a process this user may not inspect, has no
//! figure (`None`), never a guessed one.
//!
//! When the server runs inside this process (`--spawn-echo`), the process's CPU includes the load
//! generator's threads; their own CPU (measured per thread) is subtracted.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

/// Whether `host:port` names this machine (a loopback or unspecified address, or one of ours by
/// resolution to loopback); only such targets have a local process to measure.
pub fn is_local(addr: &SocketAddr) -> bool {
    let ip = addr.ip();
    ip.is_loopback() || ip.is_unspecified() || local_addresses().contains(&ip)
}

/// The addresses of this machine's interfaces that `/proc/net/tcp{,6}` shows for listening
/// sockets bound to one address; used only to tell a local target from a remote one.
fn local_addresses() -> Vec<IpAddr> {
    let mut out = Vec::new();
    for (path, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(
                parse_tcp_table(&text, v6)
                    .into_iter()
                    .map(|s| s.local.ip())
                    .filter(|ip| !ip.is_unspecified()),
            );
        }
    }
    out
}

/// The first address `spec` (`host:port`) resolves to.
pub fn resolve(spec: &str) -> Option<SocketAddr> {
    spec.to_socket_addrs().ok()?.next()
}

/// One row of `/proc/net/tcp{,6}`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SocketRow {
    local: SocketAddr,
    listening: bool,
    inode: u64,
}

/// Parses `/proc/net/tcp` (or `tcp6` when `v6`): `sl local_address rem_address st … inode …`,
/// addresses in hex as the kernel stores them (each 32-bit word in host byte order).
fn parse_tcp_table(text: &str, v6: bool) -> Vec<SocketRow> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (ip_hex, port_hex) = f.get(1)?.split_once(':')?;
            let port = u16::from_str_radix(port_hex, 16).ok()?;
            let ip = parse_hex_ip(ip_hex, v6)?;
            Some(SocketRow {
                local: SocketAddr::new(ip, port),
                listening: *f.get(3)? == "0A",
                inode: f.get(9)?.parse().ok()?,
            })
        })
        .collect()
}

fn parse_hex_ip(hex: &str, v6: bool) -> Option<IpAddr> {
    let words = hex.len() / 8;
    if !hex.len().is_multiple_of(8) || words != if v6 { 4 } else { 1 } {
        return None;
    }
    let mut bytes = Vec::with_capacity(words * 4);
    for w in 0..words {
        let word = u32::from_str_radix(&hex[w * 8..w * 8 + 8], 16).ok()?;
        // The kernel prints each word of the address as a host-order integer.
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    Some(if v6 {
        let arr: [u8; 16] = bytes.try_into().ok()?;
        IpAddr::from(arr)
    } else {
        let arr: [u8; 4] = bytes.try_into().ok()?;
        IpAddr::from(arr)
    })
}

/// The process listening on TCP `port` of this machine, if this user can see it.
pub fn pid_listening_on(port: u16) -> Option<u32> {
    let mut inodes = Vec::new();
    for (path, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        if let Ok(text) = std::fs::read_to_string(path) {
            inodes.extend(
                parse_tcp_table(&text, v6)
                    .into_iter()
                    .filter(|r| r.listening && r.local.port() == port && r.inode != 0)
                    .map(|r| r.inode),
            );
        }
    }
    if inodes.is_empty() {
        return None;
    }
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    let own = std::process::id();
    let mut found = None;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if holds_socket(&entry.path().join("fd"), &wanted) {
            // Our own process holds the socket only when it runs the server (--spawn-echo);
            // prefer another holder (a forked server's parent may hold it too).
            if pid != own {
                return Some(pid);
            }
            found = Some(pid);
        }
    }
    found
}

fn holds_socket(fd_dir: &Path, wanted: &[String]) -> bool {
    let Ok(fds) = std::fs::read_dir(fd_dir) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .ok()
            .and_then(|l| l.to_str().map(|s| wanted.iter().any(|w| w == s)))
            .unwrap_or(false)
    })
}

/// Server CPU per request in µs over a window: `cpu` spent by the server, minus `exclude` (the
/// generator's own threads when they share the process), over `requests`.
pub fn cpu_us_per_request(cpu: Duration, exclude: Duration, requests: u64) -> Option<f64> {
    (requests > 0).then(|| {
        let us = cpu.saturating_sub(exclude).as_secs_f64() * 1e6 / requests as f64;
        (us * 100.0).round() / 100.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr, TcpListener};

    #[test]
    fn tcp_tables_parse_addresses_ports_states_and_inodes() {
        let v4 = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:3420 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0\n   1: 0100007F:3420 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 123457 1 0000000000000000 20 4 30 10 -1\n";
        let rows = parse_tcp_table(v4, false);
        assert_eq!(rows.len(), 2);
        if cfg!(target_endian = "little") {
            assert_eq!(
                rows[0].local,
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 0x3420)
            );
        }
        assert!(rows[0].listening && !rows[1].listening);
        assert_eq!((rows[0].inode, rows[1].inode), (123456, 123457));
        let v6 = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0000000000000000 100 0 0 10 0\n";
        let rows = parse_tcp_table(v6, true);
        assert_eq!(
            rows,
            vec![SocketRow {
                local: SocketAddr::new(Ipv6Addr::UNSPECIFIED.into(), 8080),
                listening: true,
                inode: 999,
            }]
        );
        assert!(parse_tcp_table("header\ngarbage line\n", false).is_empty());
    }

    #[test]
    fn the_process_listening_on_a_port_is_found() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(pid_listening_on(port), Some(std::process::id()));
        drop(listener);
        assert_eq!(pid_listening_on(port), None, "no longer listening");
    }

    #[test]
    fn local_targets_are_told_from_remote_ones() {
        assert!(is_local(&"127.0.0.1:1".parse().unwrap()));
        assert!(is_local(&"[::1]:1".parse().unwrap()));
        assert!(!is_local(&"192.0.2.1:1".parse().unwrap()), "TEST-NET-1");
    }

    #[test]
    fn per_request_cpu_excludes_the_generator_and_needs_requests() {
        let us = cpu_us_per_request(Duration::from_millis(30), Duration::from_millis(10), 4000);
        assert_eq!(us, Some(5.0));
        assert_eq!(
            cpu_us_per_request(Duration::from_secs(1), Duration::ZERO, 0),
            None
        );
    }
}
