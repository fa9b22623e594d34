#!/usr/bin/env bash
# Redis PING through redis-benchmark: a mature single-threaded event-loop server.
#
#   bench/redis.sh [--inflight 64] [--pipeline 1|16] [--time 2] [--requests N]
#
# Installs Debian's redis-server and redis-tools if missing, starts a private redis-server on
# 127.0.0.1:$BENCH_REDIS_PORT (16379; no persistence, data dir target/bench-run/redis) on the server
# CPUs, and runs `redis-benchmark -t ping_mbulk -c C [-P P]` on the load-generator CPUs with
# C = inflight / pipeline connections, so that --inflight requests are outstanding whatever
# the pipeline depth. Without --requests, a short calibration run (also the warm-up) sizes -n
# to last about --time seconds. Stops the server by pid and prints one JSON line: workload
# "echo", target "redis" or "redis-P<P>", concurrency = inflight, connections = C, qps and
# p50/p99 from redis-benchmark's summary, p999 from its percentile distribution (the first
# step at or above 99.9%, an upper bound); the plain output is parsed because --csv has no p99.9.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PORT=${BENCH_REDIS_PORT:-16379}
INFLIGHT=64
PIPE=1
TIME=2
REQUESTS=""
while [ $# -gt 0 ]; do
    case "$1" in
    --inflight) INFLIGHT=$2 && shift 2 ;;
    --pipeline | -P) PIPE=$2 && shift 2 ;;
    --time) TIME=$2 && shift 2 ;;
    --requests | -n) REQUESTS=$2 && shift 2 ;;
    *) bench_die "unknown option $1 (usage: $0 [--inflight N] [--pipeline P] [--time S] [--requests N])" ;;
    esac
done
if [ $((INFLIGHT % PIPE)) -ne 0 ] || [ "$INFLIGHT" -lt "$PIPE" ]; then
    bench_die "--inflight must be a multiple of --pipeline"
fi
CLIENTS=$((INFLIGHT / PIPE))

bench_apt_install redis-server redis-tools
bench_require_free_port "$PORT" BENCH_REDIS_PORT
bench_raise_nofile >/dev/null
mkdir -p "$BENCH_RUN/redis"
bench_own redis
server=("${BENCH_SERVER_PREFIX[@]}" redis-server --port "$PORT" --bind 127.0.0.1 --protected-mode yes
    --save '' --appendonly no --dir "$BENCH_RUN/redis" --daemonize no --maxclients 10000)
bench_start redis "$BENCH_RUN/redis/server.log" "${server[@]}"
bench_wait_port "$PORT" 20 "$BENCH_LAST_PID" || bench_die "redis-server did not start (see $BENCH_RUN/redis/server.log)"
SERVER_PID=$BENCH_LAST_PID

pipe_args=()
[ "$PIPE" -gt 1 ] && pipe_args=(-P "$PIPE")
rb() { "${BENCH_CLIENT_PREFIX[@]}" redis-benchmark -h 127.0.0.1 -p "$PORT" -t ping_mbulk -c "$CLIENTS" "${pipe_args[@]}" "$@"; }
out=$BENCH_RUN/redis/benchmark.log
if [ -z "$REQUESTS" ]; then
    # Calibrate (and warm up): grow -n until a run lasts 0.3 s, then scale it to --time.
    n=$((CLIENTS * 100 > 20000 ? CLIENTS * 100 : 20000))
    while :; do
        rb -n "$n" >"$out" 2>&1 || bench_die "redis-benchmark calibration failed (see $out)"
        read -r secs qps < <(tr '\r' '\n' <"$out" | awk '/requests completed in/ {s=$(NF-1)} /throughput summary/ {q=$3} END {print s+0, q+0}')
        if awk -v s="$secs" 'BEGIN {exit !(s >= 0.3)}' || [ "$n" -ge 5000000 ]; then break; fi
        n=$((n * 8))
    done
    REQUESTS=$(awk -v q="$qps" -v t="$TIME" 'BEGIN {n = int(q * t); if (n < 10000) n = 10000; if (n > 50000000) n = 50000000; print n}')
fi
cmd=("${BENCH_CLIENT_PREFIX[@]}" redis-benchmark -h 127.0.0.1 -p "$PORT" -t ping_mbulk -c "$CLIENTS" "${pipe_args[@]}" -n "$REQUESTS")
bench_log "redis-benchmark ping: $CLIENTS clients x pipeline $PIPE, $REQUESTS requests"
bench_server_cpu_begin "$SERVER_PID"
"${cmd[@]}" >"$out" 2>&1 || {
    tail -20 "$out" >&2
    bench_die "redis-benchmark failed (see $out)"
}
server_cpu=()
read -ra server_cpu < <(bench_server_cpu_end "$SERVER_PID") || true
bench_stop redis
target=redis
[ "$PIPE" -gt 1 ] && target="redis-P$PIPE"
bench_emit "$(python3 "$BENCH_PY" redis workload=echo target="$target" concurrency="$INFLIGHT" connections="$CLIENTS" \
    pipeline="$PIPE" "${server_cpu[@]}" payload_bytes=4 loadgen=redis-benchmark version="$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')" \
    package="$(bench_pkg_version redis-server)" server_cpus="$BENCH_SERVER_CPUSET" client_cpus="$BENCH_CLIENT_CPUSET" \
    server_cmd="$(bench_quote "${server[@]}")" cmd="$(bench_quote "${cmd[@]}")" <"$out")"
