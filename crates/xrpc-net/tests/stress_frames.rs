//! 200 connections × 10k frames written in random partial writes (with some frames larger than the
//! fixed receive buffer): the server sees every frame of every connection exactly once and in
//! order.

mod common;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use common::*;
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use xrpc_net::{ConnRef, FrameBatch, Handler, RunContext, Server, UnitId};

const CONNS: usize = 200;
const FRAMES: u32 = 10_000;
const CLIENT_THREADS: usize = 8;
/// Frame type of data frames; the body starts with the u32 sequence number.
const DATA: u8 = 1;
/// Frame type that asks for the verdict.
const DONE: u8 = 2;

#[derive(Default)]
struct Seq {
    next: u32,
    errors: u32,
    done: bool,
}

struct Checker {
    frames: Arc<AtomicU64>,
}

impl Handler for Checker {
    type Conn = Mutex<Seq>;

    fn on_connect(&self, _conn: &ConnRef) -> Self::Conn {
        Mutex::new(Seq::default())
    }

    fn on_frames(
        &self,
        _conn: &ConnRef,
        state: &Self::Conn,
        frames: &mut FrameBatch<'_>,
        runnable: &mut Vec<UnitId>,
    ) {
        let mut st = state.lock();
        for f in frames {
            match f.type_id {
                DATA => {
                    let seq = u32::from_le_bytes(f.body[..4].try_into().unwrap());
                    // The first and last padding bytes carry the sequence too (checking all of them is slow in
                    // debug builds).
                    let pad = &f.body[4..];
                    let pad_ok = pad.first().is_none_or(|&b| b == seq as u8)
                        && pad.last().is_none_or(|&b| b == seq as u8);
                    if seq != st.next || !pad_ok {
                        st.errors += 1;
                    }
                    st.next = seq.wrapping_add(1);
                    self.frames.fetch_add(1, Ordering::Relaxed);
                }
                DONE => {
                    st.done = true;
                    runnable.push(UnitId(0));
                }
                _ => st.errors += 1,
            }
        }
    }

    fn run_unit(&self, conn: &ConnRef, state: &Self::Conn, _unit: UnitId, _cx: &RunContext<'_>) {
        let (next, errors) = {
            let st = state.lock();
            (st.next, st.errors)
        };
        let mut body = next.to_le_bytes().to_vec();
        body.extend(errors.to_le_bytes());
        let _ = conn.send(&frame(0, DONE, &body));
    }
}

fn data_frame(seq: u32, rng: &mut impl Rng) -> Vec<u8> {
    // One frame in 400 is larger than the 4 KiB fixed buffer.
    let pad = if rng.gen_ratio(1, 400) {
        rng.gen_range(4_200..20_000)
    } else {
        rng.gen_range(0..48)
    };
    let mut body = seq.to_le_bytes().to_vec();
    body.resize(4 + pad, seq as u8);
    frame(u64::from(seq), DATA, &body)
}

#[test]
fn frames_are_neither_lost_duplicated_nor_reordered_with_random_partial_writes() {
    let frames = Arc::new(AtomicU64::new(0));
    let cfg = xrpc_net::NetConfig {
        threads_per_group: 3,
        ..test_config()
    };
    let server = Server::start(
        cfg,
        Checker {
            frames: frames.clone(),
        },
    )
    .unwrap();
    let addr = server.local_addr();
    let threads: Vec<_> = (0..CLIENT_THREADS)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(t as u64);
                let mut conns: Vec<_> = (0..CONNS / CLIENT_THREADS)
                    .map(|_| (connect(addr), 0u32, Vec::<u8>::new()))
                    .collect();
                // Round-robin over this thread's connections, each write a random prefix of what
                // that connection has encoded, so frames are split at arbitrary points.
                loop {
                    let mut busy = false;
                    for (s, seq, pending) in conns.iter_mut() {
                        while pending.len() < 1024 && *seq < FRAMES {
                            pending.extend(data_frame(*seq, &mut rng));
                            *seq += 1;
                        }
                        if pending.is_empty() {
                            continue;
                        }
                        busy = true;
                        let n = rng.gen_range(1..=pending.len().min(1500));
                        s.write_all(&pending[..n]).unwrap();
                        pending.drain(..n);
                    }
                    if !busy {
                        break;
                    }
                }
                for (s, _, _) in conns.iter_mut() {
                    write_all(s, &frame(0, DONE, b""));
                }
                for (s, _, _) in conns.iter_mut() {
                    let (_, ty, body) = read_frame(s).unwrap();
                    assert_eq!(ty, DONE);
                    let next = u32::from_le_bytes(body[..4].try_into().unwrap());
                    let errors = u32::from_le_bytes(body[4..8].try_into().unwrap());
                    assert_eq!(errors, 0, "lost, duplicated or reordered frames");
                    assert_eq!(next, FRAMES, "the server saw every frame");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        frames.load(Ordering::Relaxed),
        CONNS as u64 * u64::from(FRAMES)
    );
    server.shutdown();
}
