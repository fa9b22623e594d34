//! The fake server behind a real socket: one thread per accepted connection, auto mode.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;

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
        let (probes, misses) = (fake.probes, fake.misses);
        fake.auto_respond();
        shared
            .probes
            .fetch_add(fake.probes - probes, Ordering::AcqRel);
        shared
            .misses
            .fetch_add(fake.misses - misses, Ordering::AcqRel);
        let out = fake.take_output();
        if !out.is_empty() && stream.write_all(&out).is_err() {
            return;
        }
        if fake.crashed {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
    }
}
