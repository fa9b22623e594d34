//! The fake server behind a real socket: one thread per accepted connection, auto mode.
//!
//! Tests wait on what the server observed ([`TcpFake::wait_until`]: statements sleeping, probes
//! answered) instead of sleeping for a while and hoping it happened.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::FakeServer;

/// A listening fake server. Dropping it stops accepting (open connections live on).
pub struct TcpFake {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
}

#[derive(Default)]
pub struct Shared {
    /// Connections accepted so far.
    pub accepted: AtomicUsize,
    /// When set, connections read but answer nothing (a hung peer).
    pub silent: AtomicBool,
    /// Capabilities probes answered, over all connections.
    pub probes: AtomicUsize,
    /// Digest misses answered, over all connections.
    pub misses: AtomicUsize,
    /// `sleep` statements running now, over all connections.
    pub sleeping: AtomicUsize,
    /// Signalled after every batch a connection handled, for [`TcpFake::wait_until`].
    progress: Condvar,
    progress_lock: Mutex<()>,
    streams: Mutex<Vec<TcpStream>>,
    stop: AtomicBool,
}

impl TcpFake {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared::default());
        let accept_shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stop.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                accept_shared.accepted.fetch_add(1, Ordering::AcqRel);
                accept_shared
                    .streams
                    .lock()
                    .push(stream.try_clone().expect("clone"));
                let conn_shared = Arc::clone(&accept_shared);
                std::thread::spawn(move || serve(stream, &conn_shared));
            }
        });
        Self { addr, shared }
    }

    /// Waits until `cond` holds over the server's counters, re-checking after every batch of
    /// requests a connection handles; panics with `what` after 10 s.
    pub fn wait_until(&self, what: &str, cond: impl Fn(&Shared) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut guard = self.shared.progress_lock.lock();
        while !cond(&self.shared) {
            if self
                .shared
                .progress
                .wait_until(&mut guard, deadline)
                .timed_out()
            {
                assert!(cond(&self.shared), "the fake server never saw {what}");
            }
        }
    }

    /// Drops every open connection, as a crashed server would.
    pub fn kill_connections(&self) {
        for stream in self.shared.streams.lock().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for TcpFake {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        // Wake the accept loop so it sees `stop`.
        let _ = TcpStream::connect(self.addr);
        self.kill_connections();
    }
}

fn serve(mut stream: TcpStream, shared: &Shared) {
    let mut fake = FakeServer::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        fake.feed(&buf[..n]);
        if shared.silent.load(Ordering::Acquire) {
            fake.recv_all();
            continue;
        }
        let (probes, misses, sleeping) = (fake.probes, fake.misses, fake.sleeping.len());
        fake.auto_respond();
        let out = fake.take_output();
        if !out.is_empty() && stream.write_all(&out).is_err() {
            return;
        }
        // Published after the answers are written, so a waiter that sees a probe counted knows
        // its answer is on the way.
        {
            let _guard = shared.progress_lock.lock();
            shared
                .probes
                .fetch_add(fake.probes - probes, Ordering::AcqRel);
            shared
                .misses
                .fetch_add(fake.misses - misses, Ordering::AcqRel);
            shared
                .sleeping
                .fetch_add(fake.sleeping.len(), Ordering::AcqRel);
            shared.sleeping.fetch_sub(sleeping, Ordering::AcqRel);
            shared.progress.notify_all();
        }
        if fake.crashed {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
    }
}
