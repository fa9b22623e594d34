//! The echo load generator: a closed loop of fixed-size frames over N connections, M in flight on
//! each, driven by one thread.
//!
//! It is the client half of the article's echo-server benchmark, shared by the `echo-bench`
//! example and `xrpc bench --workload echo`. The thread runs its own edge-triggered epoll loop:
//! per readiness it reads everything the socket has, matches each complete answer with the send
//! time of the oldest request outstanding on that connection (an echo server keeps order), hands
//! the latency to a [`Recorder`], and sends as many new requests as it received answers, in one
//! write. So the number in flight stays exactly `connections × inflight`.
//!
//! # Invariants
//!
//! - Every connection always has `inflight` requests outstanding, each with its send instant in
//!   a FIFO; an answer pops exactly one.
//! - Nothing is recorded during the warm-up: [`Recorder::start`] marks the end of it, and only
//!   answers that arrive afterwards reach [`Recorder::record`].
//! - The loop wakes at least every 5 ms ([`Recorder::tick`]), so the run ends within 5 ms of its
//!   deadline even when no answer arrives.
//!
//! The generator measures only what it is asked to; histograms, intervals and CPU accounting are
//! the caller's, through the [`Recorder`], so this crate needs no statistics dependency.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use xrpc_proto::frame::{FrameConfig, FrameHeader, HeaderFormat, encode_frame};

use crate::poll::{self, Epoll, Errno, Events, RecvResult};

/// How long the loop may sleep in `epoll_wait` before checking its deadline.
const TICK: Duration = Duration::from_millis(5);

/// What to run: where, how many connections, how many frames in flight on each, for how long.
#[derive(Debug, Clone)]
pub struct EchoLoad {
    /// The echo server.
    pub addr: SocketAddr,
    /// TCP connections to open.
    pub connections: usize,
    /// Frames kept in flight on each connection.
    pub inflight: usize,
    /// Body bytes of each frame.
    pub payload: usize,
    /// Traffic before measuring starts.
    pub warmup: Duration,
    /// How long to measure.
    pub duration: Duration,
}

/// Where the generator reports; see the [module docs](self).
pub trait Recorder {
    /// The warm-up is over at `now`; measuring starts.
    fn start(&mut self, now: Instant);
    /// One answer arrived after `latency_ns` nanoseconds (only while measuring).
    fn record(&mut self, latency_ns: u64);
    /// Called on every turn of the loop, at least every 5 ms, with the current time.
    fn tick(&mut self, _now: Instant) {}
}

/// What a run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EchoReport {
    /// Answers received while measuring.
    pub requests: u64,
    /// How long measuring lasted.
    pub elapsed: Duration,
}

impl EchoReport {
    /// Answers per second.
    pub fn qps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }
}

struct Client {
    stream: TcpStream,
    sent: VecDeque<Instant>,
    buf: Vec<u8>,
    filled: usize,
    out: Vec<u8>,
}

/// Runs the load on the calling thread until the warm-up and the measurement are over.
///
/// Fails if a connection cannot be opened or the server closes one during the run.
///
/// ```no_run
/// use std::time::Duration;
/// use xrpc_bench::loadgen::{EchoLoad, Recorder, run_echo};
///
/// struct Count(u64);
/// impl Recorder for Count {
///     fn start(&mut self, _: std::time::Instant) {}
///     fn record(&mut self, _latency_ns: u64) {
///         self.0 += 1;
///     }
/// }
///
/// let load = EchoLoad {
///     addr: "127.0.0.1:33660".parse().unwrap(),
///     connections: 4,
///     inflight: 16,
///     payload: 16,
///     warmup: Duration::from_secs(1),
///     duration: Duration::from_secs(3),
/// };
/// let report = run_echo(&load, &mut Count(0))?;
/// println!("{:.0} answers/s", report.qps());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn run_echo(load: &EchoLoad, recorder: &mut impl Recorder) -> io::Result<EchoReport> {
    let cfg = FrameConfig::default();
    let header_len = cfg.format.header_len();
    let body = vec![0x5a; load.payload];
    let mut request = Vec::new();
    encode_frame(&mut request, HeaderFormat::Standard, 1, 1, &body);
    let ep = Epoll::new()?;
    let mut clients = Vec::with_capacity(load.connections);
    for i in 0..load.connections {
        let s = TcpStream::connect(load.addr)?;
        s.set_nodelay(true)?;
        s.set_nonblocking(true)?;
        ep.add_edge_read(s.as_fd(), i as u64)?;
        clients.push(Client {
            stream: s,
            sent: VecDeque::with_capacity(load.inflight),
            buf: vec![0; 64 * 1024],
            filled: 0,
            out: Vec::with_capacity(request.len() * load.inflight),
        });
    }
    let start = Instant::now();
    for c in &mut clients {
        for _ in 0..load.inflight {
            c.out.extend_from_slice(&request);
            c.sent.push_back(start);
        }
        write_all(&mut c.stream, &c.out)?;
        c.out.clear();
    }
    let mut events = Events::with_capacity(256);
    let warm_end = start + load.warmup;
    let end = warm_end + load.duration;
    let mut measuring = false;
    let mut count = 0u64;
    let mut measure_start = warm_end;
    loop {
        let now = Instant::now();
        if !measuring && now >= warm_end {
            measuring = true;
            count = 0;
            // The window starts at the deadline, not when this thread saw it: on a loaded
            // machine it may see it late (even after `end`), and the answers that arrived
            // meanwhile are still counted below.
            measure_start = warm_end;
            recorder.start(now);
        }
        recorder.tick(now);
        if now >= end {
            break;
        }
        let n = ep.wait(&mut events, Some(TICK))?;
        for i in 0..n {
            let (token, _) = events.get(i);
            let c = &mut clients[token as usize];
            loop {
                let want = c.buf.len() - c.filled;
                let got = match poll::recv(c.stream.as_fd(), &mut c.buf[c.filled..]) {
                    RecvResult::Data(n) => n,
                    RecvResult::Interrupted => continue,
                    RecvResult::WouldBlock => break,
                    RecvResult::Eof => {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "the echo server closed a connection",
                        ));
                    }
                    RecvResult::Error(e) => return Err(e),
                };
                c.filled += got;
                let now = Instant::now();
                let mut pos = 0;
                let mut answered = 0;
                while let Ok(Some(h)) = FrameHeader::parse(&c.buf[pos..c.filled], &cfg) {
                    let wire = header_len + h.body_len as usize;
                    if c.filled - pos < wire {
                        break;
                    }
                    pos += wire;
                    answered += 1;
                    let sent = c.sent.pop_front().ok_or_else(|| {
                        io::Error::new(
                            io::ErrorKind::InvalidData,
                            "the echo server answered a request never sent",
                        )
                    })?;
                    if measuring {
                        recorder.record(now.duration_since(sent).as_nanos() as u64);
                        count += 1;
                    }
                }
                c.buf.copy_within(pos..c.filled, 0);
                c.filled -= pos;
                if c.filled == c.buf.len() {
                    // A frame larger than the buffer: grow so it can complete.
                    c.buf.resize(c.buf.len() * 2, 0);
                }
                for _ in 0..answered {
                    c.out.extend_from_slice(&request);
                    c.sent.push_back(now);
                }
                if !c.out.is_empty() {
                    send_all(&c.stream, &c.out)?;
                    c.out.clear();
                }
                if got < want {
                    // Short read: the socket is drained (edge-triggered).
                    break;
                }
            }
        }
    }
    Ok(EchoReport {
        requests: count,
        elapsed: measure_start.elapsed().max(Duration::from_millis(1)),
    })
}

/// Writes all of `data` to a non-blocking stream, waiting for room when it is full.
fn write_all(s: &mut TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match s.write(data) {
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if !poll::poll_writable(s.as_fd(), Duration::from_secs(10))? {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the echo server stopped reading for 10 s",
                    ));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The same with `sendmsg(MSG_NOSIGNAL)`, for the hot loop.
fn send_all(s: &TcpStream, data: &[u8]) -> io::Result<()> {
    let mut written = 0;
    while written < data.len() {
        match poll::send(s.as_fd(), &data[written..]) {
            Ok(n) => written += n,
            Err(Errno::AGAIN | Errno::INTR) => {
                let _ = poll::poll_writable(s.as_fd(), Duration::from_secs(1));
            }
            Err(e) => return Err(io::Error::from_raw_os_error(e.raw_os_error())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xrpc_net::{NetConfig, Server};

    use crate::echo::EchoHandler;

    #[derive(Default)]
    struct Count {
        started: bool,
        recorded: u64,
    }

    impl Recorder for Count {
        fn start(&mut self, _now: Instant) {
            self.started = true;
        }
        fn record(&mut self, latency_ns: u64) {
            assert!(self.started, "recorded during the warm-up");
            assert!(latency_ns > 0);
            self.recorded += 1;
        }
    }

    #[test]
    fn closed_loop_against_the_echo_server_counts_every_answer() {
        let cfg = NetConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            groups: 1,
            threads_per_group: 1,
            bind_cores: false,
            ..NetConfig::default()
        };
        let server = Server::start(cfg, EchoHandler).unwrap();
        let load = EchoLoad {
            addr: server.local_addr(),
            connections: 2,
            inflight: 4,
            payload: 16,
            warmup: Duration::from_millis(50),
            duration: Duration::from_millis(200),
        };
        let mut count = Count::default();
        let report = run_echo(&load, &mut count).unwrap();
        server.shutdown();
        assert!(report.requests > 0);
        assert_eq!(report.requests, count.recorded);
        assert!(report.elapsed >= Duration::from_millis(195));
    }
}
