#!/usr/bin/env bash
# tonic unary echo (1-byte payload): what a Rust user would pick for RPC.
#
#   bench/tonic.sh [--threads N] [--conns 4] [--inflight 16] [--time 2] [--warmup 0.5] [--client tonic|grpc-go]
#
# Builds bench/peers/tonic-echo (its own Cargo project, crates from crates.io pinned by its
# Cargo.lock; target dir target/bench-peers/tonic-echo, or $CARGO_TARGET_DIR), starts `tonic-echo server -threads N`
# (tokio workers, default: the number of server CPUs) on 127.0.0.1:$BENCH_TONIC_PORT (50161) on
# the server CPUs and drives it from the load-generator CPUs with tonic-echo's own client
# (default) or, with --client grpc-go, with bench/peers/grpc-go's client (same method and codec).
# Prints one JSON line: workload "echo", target "tonic", concurrency = conns x inflight,
# connections = conns, qps, p50/p99/p999 µs, errors, loadgen.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PORT=${BENCH_TONIC_PORT:-50161}
THREADS=$BENCH_SERVER_NCPU
CONNS=4
INFLIGHT=16
TIME=2
WARMUP=0.5
CLIENT=tonic
while [ $# -gt 0 ]; do
    case "$1" in
    --threads) THREADS=$2 && shift 2 ;;
    --conns) CONNS=$2 && shift 2 ;;
    --inflight) INFLIGHT=$2 && shift 2 ;;
    --time) TIME=$2 && shift 2 ;;
    --warmup) WARMUP=$2 && shift 2 ;;
    --client) CLIENT=$2 && shift 2 ;;
    *) bench_die "unknown option $1 (usage: $0 [--threads N] [--conns C] [--inflight M] [--time S] [--warmup S] [--client tonic|grpc-go])" ;;
    esac
done

bench_build_tonic
SRC=$BENCH_DIR/peers/tonic-echo
BIN=$BENCH_TONIC_ECHO
VERSION=$(awk '/^name = "tonic"$/ {getline; gsub(/"/, "", $3); print $3}' "$SRC/Cargo.lock" | head -1)

client_threads=$(bench_expand_cpus "$BENCH_CLIENT_CPUSET" | wc -w)
[ "$BENCH_CLIENT_CPUSET" = all ] && client_threads=$(nproc)
case "$CLIENT" in
tonic) client=("${BENCH_CLIENT_PREFIX[@]}" "$BIN" client -addr "127.0.0.1:$PORT" -conns "$CONNS" -inflight "$INFLIGHT"
    -duration "$TIME" -warmup "$WARMUP" -payload 1 -threads "$client_threads" -target tonic) ;;
grpc-go)
    bench_build_grpc_go
    client=("${BENCH_CLIENT_PREFIX[@]}" "$BENCH_GRPC_ECHO" client -addr "127.0.0.1:$PORT" -conns "$CONNS"
        -inflight "$INFLIGHT" -duration "${TIME}s" -warmup "${WARMUP}s" -payload 1 -target tonic) ;;
*) bench_die "--client is tonic or grpc-go" ;;
esac

bench_require_free_port "$PORT" BENCH_TONIC_PORT
bench_raise_nofile >/dev/null
bench_own tonic
server=("${BENCH_SERVER_PREFIX[@]}" "$BIN" server -addr "127.0.0.1:$PORT" -threads "$THREADS")
bench_start tonic "$BENCH_RUN/tonic-server.log" "${server[@]}"
bench_wait_port "$PORT" 20 "$BENCH_LAST_PID" || bench_die "tonic-echo server did not start (see $BENCH_RUN/tonic-server.log)"

bench_log "tonic echo: $THREADS server threads, $CONNS conns x $INFLIGHT in flight, ${TIME}s, $CLIENT client"
SERVER_PID=$BENCH_LAST_PID
bench_server_cpu_begin "$SERVER_PID"
line=$("${client[@]}" 2>"$BENCH_RUN/tonic-client.log") || {
    tail -20 "$BENCH_RUN/tonic-client.log" >&2
    bench_die "$CLIENT client failed"
}
server_cpu=()
read -ra server_cpu < <(bench_server_cpu_end "$SERVER_PID") || true
bench_stop tonic
bench_emit "$(printf '%s\n' "$line" | python3 "$BENCH_PY" merge server_threads="$THREADS" "${server_cpu[@]}" version="$VERSION" \
    server_cpus="$BENCH_SERVER_CPUSET" client_cpus="$BENCH_CLIENT_CPUSET" \
    server_cmd="$(bench_quote "${server[@]}")" cmd="$(bench_quote "${client[@]}")")"
