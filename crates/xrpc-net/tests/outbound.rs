//! Outbound sockets driven by a group's workers: output queued by any thread is written without
//! blocking it and continued on writability, input is read by whichever worker wakes, the handler
//! never runs on two threads at once, and the end of the peer, a refused connect and a server
//! shutdown each close the socket.

mod common;

use std::io::{ErrorKind, IoSlice, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use parking_lot::Mutex;
use xrpc_bench::echo::EchoHandler;
use xrpc_net::{GroupHandle, OutboundIo, Progress, Server, SocketHandler};

const WAIT: Duration = Duration::from_secs(20);

/// Writes what is queued, reads what comes, and records where and how it ran.
#[derive(Default)]
struct Pump {
    out: Mutex<Vec<u8>>,
    received: Mutex<Vec<u8>>,
    inside: AtomicUsize,
    overlaps: AtomicUsize,
    /// Bytes written by passes that ran on a worker of the group.
    written_on_worker: AtomicUsize,
    /// Bytes read by passes that ran on a worker of the group.
    read_on_worker: AtomicUsize,
    /// Writes that took bytes.
    writes: AtomicUsize,
    eof: AtomicBool,
    error: Mutex<Option<ErrorKind>>,
}

impl Pump {
    fn queue(&self, bytes: &[u8]) {
        self.out.lock().extend_from_slice(bytes);
    }
}

fn on_worker() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with("xrpc-g"))
}

impl SocketHandler for Pump {
    fn on_ready(&self, io: &OutboundIo<'_>, _group: &GroupHandle) -> Progress {
        if self.inside.fetch_add(1, Ordering::AcqRel) != 0 {
            self.overlaps.fetch_add(1, Ordering::Relaxed);
        }
        let progress = self.pass(io);
        self.inside.fetch_sub(1, Ordering::AcqRel);
        progress
    }
}

impl Pump {
    fn pass(&self, io: &OutboundIo<'_>) -> Progress {
        let worker = on_worker();
        {
            let mut out = self.out.lock();
            while !out.is_empty() {
                match io.write(&[IoSlice::new(&out)]) {
                    Ok(n) => {
                        out.drain(..n);
                        self.writes.fetch_add(1, Ordering::Relaxed);
                        if worker {
                            self.written_on_worker.fetch_add(n, Ordering::Relaxed);
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => {
                        *self.error.lock() = Some(e.kind());
                        return Progress::Close;
                    }
                }
            }
        }
        let mut buf = [0u8; 16 * 1024];
        loop {
            match io.read(&mut buf) {
                Ok(0) => {
                    self.eof.store(true, Ordering::Release);
                    return Progress::Close;
                }
                Ok(n) => {
                    self.received.lock().extend_from_slice(&buf[..n]);
                    if worker {
                        self.read_on_worker.fetch_add(n, Ordering::Relaxed);
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Progress::Idle,
                Err(e) => {
                    *self.error.lock() = Some(e.kind());
                    return Progress::Close;
                }
            }
        }
    }
}

/// A peer on a thread of its own: accepts one connection and runs `serve` on it.
fn peer(serve: impl FnOnce(TcpStream) + Send + 'static) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        if let Ok((stream, _)) = listener.accept() {
            serve(stream);
        }
    });
    addr
}

fn echo(mut stream: TcpStream) {
    let mut buf = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if stream.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }
    }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn output_past_the_send_buffer_is_finished_by_a_worker_on_writability() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let data = pattern(8 << 20, 7);
    let (got_tx, got_rx) = std::sync::mpsc::channel();
    let addr = peer(move |mut stream| {
        // Read nothing for a while: the node's first write fills the socket's buffers and
        // must stop at WouldBlock rather than wait.
        std::thread::sleep(Duration::from_millis(300));
        let mut all = Vec::new();
        let _ = stream.read_to_end(&mut all);
        let _ = got_tx.send(all);
    });
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    pump.queue(&data);
    let started = std::time::Instant::now();
    socket.kick();
    assert!(
        started.elapsed() < Duration::from_millis(250),
        "the kick returned without waiting for the peer"
    );
    assert!(wait_until(WAIT, || pump.out.lock().is_empty()));
    socket.close();
    let got = got_rx.recv_timeout(WAIT).expect("the peer read to the end");
    assert!(got == data, "the peer got every byte in order");
    assert!(
        pump.written_on_worker.load(Ordering::Relaxed) > 0,
        "the rest was written by a worker woken by writability"
    );
    server.shutdown();
}

#[test]
fn answers_are_read_by_the_groups_workers() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let data = pattern(1 << 20, 3);
    let len = data.len();
    let addr = peer(move |mut stream| {
        let mut request = vec![0u8; len];
        if stream.read_exact(&mut request).is_ok() {
            // Answer after the kick has long returned: only an event can bring the answer in.
            std::thread::sleep(Duration::from_millis(100));
            let _ = stream.write_all(&request);
        }
    });
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    pump.queue(&data);
    socket.kick();
    assert!(wait_until(WAIT, || pump.received.lock().len() == data.len()));
    assert!(
        *pump.received.lock() == data,
        "the answer came back in order"
    );
    assert_eq!(
        pump.read_on_worker.load(Ordering::Relaxed),
        data.len(),
        "the answer was read by the group's workers"
    );
    server.shutdown();
}

#[test]
fn kicks_at_the_end_of_a_turn_write_what_the_turn_queued_in_one_write() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let addr = peer(echo);
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    let (unwritten_tx, unwritten_rx) = std::sync::mpsc::channel();
    let (p, s) = (pump.clone(), socket.clone());
    // A timer's callback runs on a worker, inside its turn.
    server.groups()[0].schedule_timer(Duration::from_millis(10), None, move |_| {
        for part in [&b"one "[..], b"two ", b"three"] {
            p.queue(part);
            s.kick_at_turn_end();
        }
        let _ = unwritten_tx.send(p.out.lock().len());
    });
    assert_eq!(
        unwritten_rx.recv_timeout(WAIT).unwrap(),
        13,
        "nothing was written before the turn ended"
    );
    assert!(wait_until(WAIT, || pump.received.lock().len() == 13));
    assert_eq!(&pump.received.lock()[..], b"one two three");
    assert_eq!(
        pump.writes.load(Ordering::Relaxed),
        1,
        "one write for three kicks"
    );
    server.shutdown();
}

#[test]
fn kicks_from_many_threads_never_overlap_and_lose_no_output() {
    const THREADS: usize = 8;
    const KICKS: usize = 2000;
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let addr = peer(echo);
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    let kickers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (pump, socket) = (pump.clone(), socket.clone());
            std::thread::spawn(move || {
                for _ in 0..KICKS {
                    pump.queue(&[t as u8]);
                    socket.kick();
                }
            })
        })
        .collect();
    for k in kickers {
        k.join().unwrap();
    }
    assert!(
        wait_until(WAIT, || pump.received.lock().len() == THREADS * KICKS),
        "every byte queued before a kick came back: {} of {}",
        pump.received.lock().len(),
        THREADS * KICKS
    );
    let mut counts = [0usize; THREADS];
    for &b in pump.received.lock().iter() {
        counts[b as usize] += 1;
    }
    assert_eq!(counts, [KICKS; THREADS]);
    assert_eq!(
        pump.overlaps.load(Ordering::Relaxed),
        0,
        "one pass at a time"
    );
    server.shutdown();
}

#[test]
fn the_end_of_the_peer_closes_the_socket_after_its_last_bytes() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let addr = peer(|mut stream| {
        let _ = stream.write_all(b"bye");
    });
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    assert!(wait_until(WAIT, || socket.is_closed()));
    assert_eq!(&*pump.received.lock(), b"bye");
    assert!(pump.eof.load(Ordering::Acquire));
    server.shutdown();
}

#[test]
fn a_refused_connect_reaches_the_handler_and_closes_the_socket() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let addr = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    assert!(wait_until(WAIT, || socket.is_closed()));
    assert_eq!(*pump.error.lock(), Some(ErrorKind::ConnectionRefused));
    server.shutdown();
}

#[test]
fn a_server_shutdown_closes_its_outbound_sockets() {
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let (ended_tx, ended_rx) = std::sync::mpsc::channel();
    let addr = peer(move |stream| {
        echo(stream);
        let _ = ended_tx.send(());
    });
    let pump = Arc::new(Pump::default());
    let socket = server.groups()[0]
        .connect_outbound(addr, pump.clone())
        .unwrap();
    server.shutdown();
    assert!(socket.is_closed());
    ended_rx
        .recv_timeout(WAIT)
        .expect("the peer saw the end of the connection");
}

/// The two handlers of the batch test: `Blocker` waits (inside `enter_wait`) until `Releaser`
/// has read its bytes.
#[derive(Default)]
struct Release {
    released: Mutex<bool>,
    changed: parking_lot::Condvar,
    /// Passes of each handler so far: [blocker, releaser].
    passes: [AtomicUsize; 2],
}

/// Reads everything the socket has; whether it read anything.
fn drain(io: &OutboundIo<'_>) -> bool {
    let mut buf = [0u8; 4096];
    let mut read = false;
    while let Ok(n) = io.read(&mut buf) {
        if n == 0 {
            break;
        }
        read = true;
    }
    read
}

/// Its second field: 0 while it has not blocked and come back, 1 once released, 2 when its wait
/// ran out.
struct Blocker(Arc<Release>, Arc<AtomicUsize>);

impl SocketHandler for Blocker {
    fn on_ready(&self, io: &OutboundIo<'_>, group: &GroupHandle) -> Progress {
        self.0.passes[0].fetch_add(1, Ordering::SeqCst);
        if drain(io) {
            let _stalled = group.enter_wait();
            let mut released = self.0.released.lock();
            let deadline = std::time::Instant::now() + WAIT;
            while !*released {
                if self
                    .0
                    .changed
                    .wait_until(&mut released, deadline)
                    .timed_out()
                {
                    break;
                }
            }
            self.1
                .store(if *released { 1 } else { 2 }, Ordering::SeqCst);
        }
        Progress::Idle
    }
}

struct Releaser(Arc<Release>);

impl SocketHandler for Releaser {
    fn on_ready(&self, io: &OutboundIo<'_>, _group: &GroupHandle) -> Progress {
        self.0.passes[1].fetch_add(1, Ordering::SeqCst);
        if drain(io) {
            *self.0.released.lock() = true;
            self.0.changed.notify_all();
        }
        Progress::Idle
    }
}

#[test]
fn a_handler_that_blocks_leaves_the_rest_of_its_batch_to_other_workers() {
    use std::os::unix::net::UnixStream;
    // One worker, so that one `epoll_wait` returns both events; the watchdog stays out of the
    // way while the worker is held.
    let server = Server::start(
        xrpc_net::NetConfig {
            threads_per_group: 1,
            deadlock_check_interval: Duration::from_secs(5),
            ..test_config()
        },
        EchoHandler,
    )
    .unwrap();
    let group = server.groups()[0].clone();
    let release = Arc::new(Release::default());
    let outcome = Arc::new(AtomicUsize::new(0));
    let (blocker_end, mut blocker_peer) = UnixStream::pair().unwrap();
    let (releaser_end, mut releaser_peer) = UnixStream::pair().unwrap();
    blocker_end.set_nonblocking(true).unwrap();
    releaser_end.set_nonblocking(true).unwrap();
    let blocker = group
        .register_outbound(
            blocker_end.into(),
            Blocker(release.clone(), outcome.clone()),
        )
        .unwrap();
    let releaser = group
        .register_outbound(releaser_end.into(), Releaser(release.clone()))
        .unwrap();
    // The first (writable) events of both are handled before the worker is held.
    assert!(wait_until(WAIT, || release
        .passes
        .iter()
        .all(|p| p.load(Ordering::SeqCst) > 0)));
    let (held_tx, held_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    group
        .push_task(move |_| {
            let _ = held_tx.send(());
            let _ = go_rx.recv_timeout(WAIT);
        })
        .unwrap();
    held_rx
        .recv_timeout(WAIT)
        .expect("the worker runs the task");
    // While no worker waits in epoll: both become readable, the blocker first, so that one
    // batch holds the blocker's event and then the releaser's.
    blocker_peer.write_all(b"block").unwrap();
    releaser_peer.write_all(b"release").unwrap();
    go_tx.send(()).unwrap();
    assert!(wait_until(WAIT * 2, || outcome.load(Ordering::SeqCst) != 0));
    assert_eq!(
        outcome.load(Ordering::SeqCst),
        1,
        "the releaser's event, behind the blocked handler in its batch, was handled by another worker"
    );
    blocker.close();
    releaser.close();
    server.shutdown();
}

/// Hands over while it runs on the thread that kicked it; counts the passes on workers.
struct HandsOver {
    kicker: std::thread::ThreadId,
    on_kicker: AtomicUsize,
    on_worker: AtomicUsize,
}

impl SocketHandler for HandsOver {
    fn on_ready(&self, _io: &OutboundIo<'_>, _group: &GroupHandle) -> Progress {
        if std::thread::current().id() == self.kicker {
            self.on_kicker.fetch_add(1, Ordering::SeqCst);
            return Progress::Handover;
        }
        if on_worker() {
            self.on_worker.fetch_add(1, Ordering::SeqCst);
        }
        Progress::Idle
    }
}

#[test]
fn a_handler_that_hands_over_is_called_again_by_a_worker() {
    use std::os::unix::net::UnixStream;
    let server = Server::start(test_config(), EchoHandler).unwrap();
    let (end, _peer) = UnixStream::pair().unwrap();
    end.set_nonblocking(true).unwrap();
    let handler = Arc::new(HandsOver {
        kicker: std::thread::current().id(),
        on_kicker: AtomicUsize::new(0),
        on_worker: AtomicUsize::new(0),
    });
    let socket = server.groups()[0]
        .register_outbound(end.into(), handler.clone())
        .unwrap();
    // The registration's own event is a worker's pass; the kick's hand-over must bring another.
    assert!(wait_until(WAIT, || handler
        .on_worker
        .load(Ordering::SeqCst)
        >= 1));
    let before = handler.on_worker.load(Ordering::SeqCst);
    socket.kick();
    assert_eq!(handler.on_kicker.load(Ordering::SeqCst), 1);
    assert!(
        wait_until(WAIT, || handler.on_worker.load(Ordering::SeqCst) > before),
        "a worker drove the socket after the kicker handed over"
    );
    socket.close();
    server.shutdown();
}
