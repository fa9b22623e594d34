//! tonic-echo: a unary gRPC echo peer on tonic for the xrpc benchmark suite, with no .proto and
//! no protoc. Messages are raw bytes through a hand-written codec; the service is a hand-written
//! tower `Service` answering `/echo.Echo/Echo` (the same method as bench/peers/grpc-go, so either
//! client can drive either server).
//!
//! ```text
//! tonic-echo server -addr 127.0.0.1:50161 [-threads N]
//! tonic-echo client -addr 127.0.0.1:50161 [-conns 4] [-inflight 16] [-duration 2] [-warmup 0.5]
//!                   [-payload 1] [-threads N] [-target tonic]
//! ```
//!
//! `-threads` is the tokio worker count (default: the CPUs this process may run on). The client
//! opens `-conns` channels (one HTTP/2 connection each) and keeps `-inflight` calls outstanding on
//! each; it prints one JSON line in the suite's measurement schema.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Buf, BufMut, Bytes};
use hdrhistogram::Histogram;
use tonic::body::Body;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::NamedService;
use tonic::transport::{Endpoint, Server};
use tonic::{Request, Response, Status};

const PATH: &str = "/echo.Echo/Echo";

/// Passes `Bytes` through untouched.
#[derive(Clone, Copy, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;
    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }
    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;
    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        let n = src.remaining();
        Ok(Some(src.copy_to_bytes(n)))
    }
}

#[derive(Clone, Copy)]
struct Echo;

impl tonic::server::UnaryService<Bytes> for Echo {
    type Response = Bytes;
    type Future = std::future::Ready<Result<Response<Bytes>, Status>>;
    fn call(&mut self, req: Request<Bytes>) -> Self::Future {
        std::future::ready(Ok(Response::new(req.into_inner())))
    }
}

#[derive(Clone, Copy)]
struct EchoService;

impl NamedService for EchoService {
    const NAME: &'static str = "echo.Echo";
}

impl Service<http::Request<Body>> for EchoService {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        if req.uri().path() == PATH {
            Box::pin(async move { Ok(tonic::server::Grpc::new(RawCodec).unary(Echo, req).await) })
        } else {
            Box::pin(
                async move { Ok(Status::unimplemented(req.uri().path().to_owned()).into_http()) },
            )
        }
    }
}

struct Opts {
    addr: SocketAddr,
    threads: usize,
    conns: usize,
    inflight: usize,
    duration: Duration,
    warmup: Duration,
    payload: usize,
    target: String,
}

fn parse(args: &[String]) -> Opts {
    let mut o = Opts {
        addr: "127.0.0.1:50161".parse().unwrap(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        conns: 4,
        inflight: 16,
        duration: Duration::from_secs(2),
        warmup: Duration::from_millis(500),
        payload: 1,
        target: "tonic".into(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut v = || {
            it.next()
                .unwrap_or_else(|| die(&format!("{a} needs a value")))
                .clone()
        };
        let secs = |s: String| Duration::from_secs_f64(s.trim_end_matches('s').parse().unwrap());
        match a.trim_start_matches('-') {
            "addr" => o.addr = v().parse().unwrap_or_else(|_| die("bad -addr")),
            "threads" => o.threads = v().parse().unwrap(),
            "conns" => o.conns = v().parse().unwrap(),
            "inflight" => o.inflight = v().parse().unwrap(),
            "duration" => o.duration = secs(v()),
            "warmup" => o.warmup = secs(v()),
            "payload" => o.payload = v().parse::<usize>().unwrap().max(1),
            "target" => o.target = v(),
            other => die(&format!("unknown flag -{other}")),
        }
    }
    o
}

fn die(msg: &str) -> ! {
    eprintln!("tonic-echo: {msg}");
    eprintln!(
        "usage: tonic-echo server|client [-addr A] [-threads N] [-conns C] [-inflight M] [-duration S] [-warmup S] [-payload B] [-target L]"
    );
    std::process::exit(2)
}

/// A multi-thread runtime with `threads` workers; with `current` and one thread, a current-thread
/// runtime, which spares every wake-up a hand-off between the `block_on` thread and a worker (the
/// server's best configuration on one core; the client measured better multi-threaded).
fn runtime(threads: usize, current: bool) -> tokio::runtime::Runtime {
    if threads <= 1 && current {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .enable_all()
            .build()
    }
    .expect("tokio runtime")
}

fn server(o: Opts) {
    eprintln!(
        "tonic-echo server on {}, {} tokio workers",
        o.addr, o.threads
    );
    runtime(o.threads, true).block_on(async move {
        let stop = async {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).unwrap();
            tokio::select! {
                _ = term.recv() => {},
                _ = tokio::signal::ctrl_c() => {},
            }
        };
        Server::builder()
            .tcp_nodelay(true)
            .add_service(EchoService)
            .serve_with_shutdown(o.addr, stop)
            .await
            .expect("serve");
    });
}

fn client(o: Opts) {
    let rt = runtime(o.threads, false);
    let line = rt.block_on(async move {
        let endpoint = Endpoint::from_shared(format!("http://{}", o.addr))
            .unwrap()
            .tcp_nodelay(true)
            .connect_timeout(Duration::from_secs(10));
        let path = http::uri::PathAndQuery::from_static(PATH);
        let body = Bytes::from(vec![0x5a; o.payload]);
        let mut channels = Vec::with_capacity(o.conns);
        for _ in 0..o.conns {
            let ch = endpoint
                .connect()
                .await
                .unwrap_or_else(|e| die(&format!("connect: {e}")));
            // One call to check the server before the clock starts.
            let mut g = tonic::client::Grpc::new(ch.clone());
            g.ready().await.unwrap();
            let r: Response<Bytes> = g
                .unary(Request::new(body.clone()), path.clone(), RawCodec)
                .await
                .unwrap_or_else(|e| die(&format!("first call: {e}")));
            assert_eq!(
                r.get_ref().len(),
                o.payload,
                "echo changed the payload size"
            );
            channels.push(ch);
        }
        let start = Instant::now();
        let warm_end = start + o.warmup;
        let end = warm_end + o.duration;
        let mut tasks = Vec::new();
        for w in 0..o.conns * o.inflight {
            let mut g = tonic::client::Grpc::new(channels[w % o.conns].clone());
            let path = path.clone();
            let body = body.clone();
            tasks.push(tokio::spawn(async move {
                let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
                let mut errors = 0u64;
                loop {
                    let t0 = Instant::now();
                    if t0 >= end {
                        break;
                    }
                    let ok = match g.ready().await {
                        Ok(()) => g
                            .unary::<Bytes, Bytes, _>(
                                Request::new(body.clone()),
                                path.clone(),
                                RawCodec,
                            )
                            .await
                            .map(|r| r.get_ref().len() == body.len())
                            .unwrap_or(false),
                        Err(_) => false,
                    };
                    let t1 = Instant::now();
                    if t1 < warm_end || t1 >= end {
                        continue;
                    }
                    if ok {
                        let _ = hist.record(t1.duration_since(t0).as_nanos() as u64);
                    } else {
                        errors += 1;
                    }
                }
                (hist, errors)
            }));
        }
        let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        let mut errors = 0;
        for t in tasks {
            let (h, e) = t.await.unwrap();
            hist.add(&h).unwrap();
            errors += e;
        }
        let us = |q: f64| (hist.value_at_quantile(q) as f64 / 100.0).round() / 10.0;
        serde_json::json!({
            "workload": "echo",
            "target": o.target,
            "concurrency": o.conns * o.inflight,
            "connections": o.conns,
            "qps": (hist.len() as f64 / o.duration.as_secs_f64()).round(),
            "p50_us": us(0.50),
            "p99_us": us(0.99),
            "p999_us": us(0.999),
            "errors": errors,
            "requests": hist.len(),
            "duration_s": o.duration.as_secs_f64(),
            "payload_bytes": o.payload,
            "loadgen": format!("tonic-echo client ({} tokio workers)", o.threads),
        })
    });
    println!("{line}");
    rt.shutdown_timeout(Duration::from_secs(1));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        die("missing server|client")
    };
    let o = parse(&args[1..]);
    match cmd.as_str() {
        "server" => server(o),
        "client" => client(o),
        other => die(&format!("unknown command {other}")),
    }
}
