#!/usr/bin/env bash
# grpc-go unary echo (1-byte payload), with and without grpc.NumStreamWorkers (grpc-go PR #3204).
#
#   bench/grpc-go.sh [--workers N|cores] [--conns 4] [--inflight 16] [--time 2] [--warmup 0.5]
#
# Builds bench/peers/grpc-go (module google.golang.org/grpc from the Go module proxy, pinned by
# go.mod/go.sum) into target/bench-peers/grpc-echo when its sources changed, starts
# `grpc-echo server -workers N` on 127.0.0.1:$BENCH_GRPC_GO_PORT (50151) on the server CPUs
# (--workers 0 = option off, the default; "cores" = the number of server CPUs), runs
# `grpc-echo client` on the load-generator CPUs (--conns connections, --inflight calls
# outstanding on each) and prints one JSON line: workload "echo", target "grpc-go-workers<N>",
# concurrency = conns x inflight, connections = conns, qps, p50/p99/p999 µs, errors.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PORT=${BENCH_GRPC_GO_PORT:-50151}
WORKERS=0
CONNS=4
INFLIGHT=16
TIME=2
WARMUP=0.5
while [ $# -gt 0 ]; do
    case "$1" in
    --workers) WORKERS=$2 && shift 2 ;;
    --conns) CONNS=$2 && shift 2 ;;
    --inflight) INFLIGHT=$2 && shift 2 ;;
    --time) TIME=$2 && shift 2 ;;
    --warmup) WARMUP=$2 && shift 2 ;;
    *) bench_die "unknown option $1 (usage: $0 [--workers N|cores] [--conns C] [--inflight M] [--time S] [--warmup S])" ;;
    esac
done
[ "$WORKERS" = cores ] && WORKERS=$BENCH_SERVER_NCPU

bench_build_grpc_go
SRC=$BENCH_DIR/peers/grpc-go
BIN=$BENCH_GRPC_ECHO
VERSION=$(awk '$1 == "google.golang.org/grpc" {print $2} $1 == "require" && $2 == "google.golang.org/grpc" {print $3}' "$SRC/go.mod" | head -1)

bench_require_free_port "$PORT" BENCH_GRPC_GO_PORT
bench_raise_nofile >/dev/null
bench_own grpc-go
server=("${BENCH_SERVER_PREFIX[@]}" "$BIN" server -addr "127.0.0.1:$PORT" -workers "$WORKERS")
bench_start grpc-go "$BENCH_RUN/grpc-go-server.log" "${server[@]}"
bench_wait_port "$PORT" 20 "$BENCH_LAST_PID" || bench_die "grpc-echo server did not start (see $BENCH_RUN/grpc-go-server.log)"

target="grpc-go-workers$WORKERS"
client=("${BENCH_CLIENT_PREFIX[@]}" "$BIN" client -addr "127.0.0.1:$PORT" -conns "$CONNS" -inflight "$INFLIGHT"
    -duration "${TIME}s" -warmup "${WARMUP}s" -payload 1 -target "$target")
bench_log "grpc-go echo: workers $WORKERS, $CONNS conns x $INFLIGHT in flight, ${TIME}s"
SERVER_PID=$BENCH_LAST_PID
bench_server_cpu_begin "$SERVER_PID"
line=$("${client[@]}" 2>"$BENCH_RUN/grpc-go-client.log") || {
    tail -20 "$BENCH_RUN/grpc-go-client.log" >&2
    bench_die "grpc-echo client failed"
}
server_cpu=()
read -ra server_cpu < <(bench_server_cpu_end "$SERVER_PID") || true
bench_stop grpc-go
bench_emit "$(printf '%s\n' "$line" | python3 "$BENCH_PY" merge server_workers="$WORKERS" "${server_cpu[@]}" version="$VERSION" \
    go="$(go env GOVERSION)" server_cpus="$BENCH_SERVER_CPUSET" client_cpus="$BENCH_CLIENT_CPUSET" \
    server_cmd="$(bench_quote "${server[@]}")" cmd="$(bench_quote "${client[@]}")")"
