//! Helpers shared by the integration tests: a test configuration, frame I/O over std sockets and
//! fd counting.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use xrpc_net::NetConfig;
use xrpc_proto::frame::{HeaderFormat, STANDARD_HEADER_LEN, encode_frame};

/// A configuration for tests: an ephemeral port on loopback, one group, no core binding (tests
/// run beside other work), short timers.
pub(crate) fn test_config() -> NetConfig {
    NetConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        groups: 1,
        threads_per_group: 2,
        bind_cores: false,
        deadlock_check_interval: Duration::from_millis(50),
        shutdown_grace: Duration::from_secs(2),
        ..NetConfig::default()
    }
}

/// Encodes one standard frame.
pub(crate) fn frame(sid: u64, type_id: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(STANDARD_HEADER_LEN + body.len());
    encode_frame(&mut out, HeaderFormat::Standard, sid, type_id, body);
    out
}

/// Reads one standard frame: `(sid, type, body)`.
pub(crate) fn read_frame(stream: &mut TcpStream) -> std::io::Result<(u64, u8, Vec<u8>)> {
    let mut header = [0u8; STANDARD_HEADER_LEN];
    stream.read_exact(&mut header)?;
    let sid = u64::from_le_bytes(header[..8].try_into().unwrap());
    let len = u32::from_le_bytes(header[8..12].try_into().unwrap()) as usize;
    let type_id = header[12];
    let mut body = vec![0; len - 1];
    stream.read_exact(&mut body)?;
    Ok((sid, type_id, body))
}

/// Connects with a read timeout so a broken server fails the test instead of hanging it.
pub(crate) fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_nodelay(true).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Writes all of `data`.
pub(crate) fn write_all(stream: &mut TcpStream, data: &[u8]) {
    stream.write_all(data).expect("write");
}

/// Open fds of this process.
pub(crate) fn fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Polls `cond` every millisecond until it holds or `timeout` passes; returns whether it held.
pub(crate) fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
