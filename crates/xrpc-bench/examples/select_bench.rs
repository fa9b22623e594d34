//! The lean reference generator for `SELECT 1` on an xrpc node: raw frames, no client core.
//!
//! ```text
//! taskset -c 1 cargo run --release -p xrpc-bench --example select-bench -- \
//!     --addr 127.0.0.1:33660 [--clients 1024] [--connections 4] [--duration 3] [--warmup 1] \
//!     [--user root] [--password ''] [--server-pid PID]
//! ```
//!
//! It is the yardstick `xrpc bench` is checked against (`xrpc bench` should report at least 95%
//! of what a leaner generator reaches for the same node and shape). It does the least a
//! closed-loop client can: each connection authenticates (MYSQL41) blocking, then every client owns
//! one session whose `SESS_NEW` and `EXEC_SQL "select 1"` frames are encoded once, up front. On the
//! hot path nothing is decoded but frame headers: the frame of type 17 (`StmtExecuteOk`) on a sid
//! completes that client's request, which is answered by appending the same pre-encoded `EXEC_SQL`
//! frame to its connection's output; an `ERROR` frame ends the run with its message. Sids are
//! `1..=k` per connection, so a sid indexes a vector; there is no hashing and no allocation per
//! request.
//!
//! The loop is the one `xrpc bench`'s driver uses, so the two compare like for like: one thread,
//! edge-triggered epoll over all connections, every ready socket read until it would block, and
//! that connection's new requests written with one `send` before the next ready socket is read.
//! With a single connection it blocks in `recvfrom` instead of `epoll_wait` (one system call fewer
//! per request), with a 5 ms receive timeout. It reports
//! QPS, p50/p99, its own CPU per request (thread CPU time) and, with `--server-pid`, the server
//! process's CPU per request (utime + stime from `/proc/PID/stat`).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use clap::Parser;
use hdrhistogram::Histogram;
use xrpc_bench::poll::{self, Epoll, Errno, Events, RecvResult};
use xrpc_proto::auth::{CHALLENGE_LEN, Challenge, MECH_MYSQL41, mysql41_client_response};
use xrpc_proto::frame::{CONNECTION_SID, FrameConfig, FrameHeader, put_header};
use xrpc_proto::messages::pb::{session as pb_session, sql};
use xrpc_proto::messages::{ClientMessage, ServerMessage, ServerType};

/// Closed-loop `SELECT 1` over raw xrpc frames.
#[derive(Debug, Parser)]
#[command(name = "select-bench")]
struct Opts {
    /// The node, `host:port`.
    #[arg(long, default_value = "127.0.0.1:33660")]
    addr: String,
    /// Concurrent clients, one session and one request in flight each.
    #[arg(long, default_value_t = 1)]
    clients: usize,
    /// TCP connections the clients are spread over (client `c` on connection `c mod N`).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// Measured seconds.
    #[arg(long, default_value_t = 3.0)]
    duration: f64,
    /// Unmeasured seconds before.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Account.
    #[arg(long, default_value = "root")]
    user: String,
    /// Password.
    #[arg(long, default_value = "")]
    password: String,
    /// The node's pid, to report its CPU per request.
    #[arg(long)]
    server_pid: Option<u32>,
}

/// One connection: its socket, unread bytes, output, and the frames of its clients.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    filled: usize,
    out: Vec<u8>,
    /// Client index of sid `s` is `first_client + s - 1`.
    first_client: usize,
}

/// One client: its pre-encoded request and when it was sent.
struct Client {
    exec: Vec<u8>,
    sent: Instant,
}

fn main() {
    let opts = Opts::parse();
    if let Err(e) = run(&opts) {
        eprintln!("select-bench: {e}");
        std::process::exit(1);
    }
}

fn frame(sid: u64, message: &ClientMessage) -> Vec<u8> {
    let mut out = Vec::new();
    put_header(
        &mut out,
        FrameConfig::default().format,
        sid,
        message.type_id(),
        message.encoded_len(),
    );
    message.encode(&mut out);
    out
}

/// Reads whole frames, blocking, until one of type `want` arrives on sid 0.
fn await_frame(stream: &mut TcpStream, want: ServerType) -> io::Result<ServerMessage> {
    let cfg = FrameConfig::default();
    let hlen = cfg.format.header_len();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        while let Some(h) = FrameHeader::parse(&buf, &cfg).map_err(io::Error::other)? {
            let wire = hlen + h.body_len as usize;
            if buf.len() < wire {
                break;
            }
            let body = bytes_of(&buf[hlen..wire]);
            let message = ServerMessage::decode(h.type_id, body).map_err(io::Error::other)?;
            buf.drain(..wire);
            if let ServerMessage::Error(e) = &message {
                return Err(io::Error::other(format!("handshake refused: {}", e.msg)));
            }
            if h.type_id == want.id() {
                return Ok(message);
            }
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "closed in the handshake",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn bytes_of(b: &[u8]) -> bytes::Bytes {
    bytes::Bytes::copy_from_slice(b)
}

fn connect(opts: &Opts) -> io::Result<TcpStream> {
    let mut stream = TcpStream::connect(&opts.addr)?;
    stream.set_nodelay(true)?;
    stream.write_all(&frame(
        CONNECTION_SID,
        &ClientMessage::AuthenticateStart(pb_session::AuthenticateStart {
            mech_name: MECH_MYSQL41.to_owned(),
            auth_data: None,
            initial_response: None,
        }),
    ))?;
    let ServerMessage::AuthenticateContinue(c) =
        await_frame(&mut stream, ServerType::AuthenticateContinue)?
    else {
        unreachable!("await_frame returns the type asked for")
    };
    let challenge = <[u8; CHALLENGE_LEN]>::try_from(&c.auth_data[..])
        .map_err(|_| io::Error::other("challenge of the wrong length"))?;
    let response = mysql41_client_response(
        "",
        &opts.user,
        opts.password.as_bytes(),
        &Challenge::from_bytes(challenge),
    );
    stream.write_all(&frame(
        CONNECTION_SID,
        &ClientMessage::AuthenticateContinue(pb_session::AuthenticateContinue {
            auth_data: response.into(),
        }),
    ))?;
    await_frame(&mut stream, ServerType::AuthenticateOk)?;
    Ok(stream)
}

fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.max(0) as u32)
}

/// utime + stime of a process, in clock ticks (100 per second on Linux).
fn process_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

fn run(opts: &Opts) -> io::Result<()> {
    let nconn = opts.connections.clamp(1, opts.clients.max(1));
    let cfg = FrameConfig::default();
    let hlen = cfg.format.header_len();
    let exec_of = |sid: u64| {
        frame(
            sid,
            &ClientMessage::ExecSql(sql::StmtExecute {
                stmt: Some("select 1".into()),
                ..Default::default()
            }),
        )
    };
    let ep = Epoll::new()?;
    let mut conns = Vec::with_capacity(nconn);
    let mut clients: Vec<Client> = Vec::with_capacity(opts.clients);
    let start = Instant::now();
    for i in 0..nconn {
        let stream = connect(opts)?;
        let first_client = clients.len();
        let mut out = Vec::new();
        for (k, _) in (i..opts.clients).step_by(nconn).enumerate() {
            let sid = k as u64 + 1;
            out.extend_from_slice(&frame(
                sid,
                &ClientMessage::NewSession(pb_session::NewSession {}),
            ));
            let exec = exec_of(sid);
            out.extend_from_slice(&exec);
            clients.push(Client { exec, sent: start });
        }
        if nconn > 1 {
            stream.set_nonblocking(true)?;
            ep.add_edge_read(stream.as_fd(), i as u64)?;
        } else {
            // One connection: block in read, waking at least every 5 ms to check the clock.
            stream.set_read_timeout(Some(Duration::from_millis(5)))?;
        }
        conns.push(Conn {
            stream,
            buf: vec![0; 256 * 1024],
            filled: 0,
            out,
            first_client,
        });
    }
    let now = Instant::now();
    for client in &mut clients {
        client.sent = now;
    }
    for c in &mut conns {
        send_all(c)?;
    }
    let warm_end = now + Duration::from_secs_f64(opts.warmup);
    let end = warm_end + Duration::from_secs_f64(opts.duration);
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("valid bounds");
    let mut measuring = false;
    let (mut cpu0, mut ticks0) = (Duration::ZERO, None);
    let mut events = Events::with_capacity(256);
    let mut ready = Vec::with_capacity(nconn);
    loop {
        let now = Instant::now();
        if !measuring && now >= warm_end {
            measuring = true;
            cpu0 = thread_cpu();
            ticks0 = opts.server_pid.and_then(process_ticks);
        }
        if now >= end {
            break;
        }
        ready.clear();
        if nconn == 1 {
            ready.push(0);
        } else {
            let n = ep.wait(&mut events, Some(Duration::from_millis(5)))?;
            ready.extend((0..n).map(|i| events.get(i).0 as usize));
        }
        for &ci in &ready {
            let c = &mut conns[ci];
            loop {
                let want = c.buf.len() - c.filled;
                let got = match poll::recv(c.stream.as_fd(), &mut c.buf[c.filled..]) {
                    RecvResult::Data(n) => n,
                    RecvResult::Interrupted => continue,
                    RecvResult::WouldBlock => break,
                    RecvResult::Eof => {
                        return Err(io::Error::other("the node closed a connection"));
                    }
                    RecvResult::Error(e) => return Err(e),
                };
                c.filled += got;
                let now = Instant::now();
                let mut pos = 0;
                while let Some(h) =
                    FrameHeader::parse(&c.buf[pos..c.filled], &cfg).map_err(io::Error::other)?
                {
                    let wire = hlen + h.body_len as usize;
                    if c.filled - pos < wire {
                        break;
                    }
                    if h.type_id == ServerType::StmtExecuteOk.id() {
                        let client = &mut clients[c.first_client + h.sid as usize - 1];
                        if measuring {
                            let _ = hist.record(now.duration_since(client.sent).as_nanos() as u64);
                        }
                        client.sent = now;
                        c.out.extend_from_slice(&client.exec);
                    } else if h.type_id == ServerType::Error.id() {
                        let body = bytes_of(&c.buf[pos + hlen..pos + wire]);
                        let msg = ServerMessage::decode(h.type_id, body)
                            .map(|m| format!("{m:?}"))
                            .unwrap_or_else(|e| e.to_string());
                        return Err(io::Error::other(format!("sid {}: {msg}", h.sid)));
                    }
                    pos += wire;
                }
                c.buf.copy_within(pos..c.filled, 0);
                c.filled -= pos;
                if c.filled == c.buf.len() {
                    c.buf.resize(c.buf.len() * 2, 0);
                }
                // Level-style for a blocking socket: one read per turn.
                if got < want || nconn == 1 {
                    break;
                }
            }
            // This connection's next requests go out before the next connection is read, as
            // `xrpc bench`'s driver does: the node works on them meanwhile.
            send_all(c)?;
        }
    }
    let cpu = thread_cpu().saturating_sub(cpu0);
    let ticks = match (ticks0, opts.server_pid.and_then(process_ticks)) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let secs = opts.duration.max(1e-3);
    let n = hist.len();
    let per_req = |d: f64| if n > 0 { d * 1e6 / n as f64 } else { 0.0 };
    println!(
        "clients {} connections {nconn}: qps {:.0} p50 {:.1} us p99 {:.1} us client {:.2} us/req{}",
        opts.clients,
        n as f64 / secs,
        hist.value_at_quantile(0.5) as f64 / 1e3,
        hist.value_at_quantile(0.99) as f64 / 1e3,
        per_req(cpu.as_secs_f64()),
        ticks
            .map(|t| format!(" server {:.2} us/req", per_req(t as f64 / 100.0)))
            .unwrap_or_default()
    );
    Ok(())
}

/// Writes a connection's output: `sendmsg` without blocking, waiting for room only when full.
fn send_all(c: &mut Conn) -> io::Result<()> {
    let mut written = 0;
    while written < c.out.len() {
        match poll::send(c.stream.as_fd(), &c.out[written..]) {
            Ok(n) => written += n,
            Err(Errno::AGAIN | Errno::INTR) => {
                poll::poll_writable(c.stream.as_fd(), Duration::from_secs(1))?;
            }
            Err(e) => return Err(io::Error::from_raw_os_error(e.raw_os_error())),
        }
    }
    c.out.clear();
    Ok(())
}
