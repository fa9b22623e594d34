#!/usr/bin/env bash
# sockperf TCP ping-pong: the kernel's loopback floor for a 1-in-flight echo.
#
#   bench/sockperf.sh [--time 2] [--msg-size 14]
#
# Installs Debian's sockperf if missing, starts `sockperf server --tcp` on 127.0.0.1:$BENCH_SOCKPERF_PORT
# (11111) on the server CPUs, runs `sockperf ping-pong --tcp --full-rtt --mps=max` for --time
# seconds on the load-generator CPUs, stops the server by pid and prints one JSON line: workload
# "echo", target "sockperf", concurrency = connections = 1, qps = received messages / valid run
# time, p50/p99/p999 round-trip µs from sockperf's percentiles. sockperf's smallest message is
# 14 bytes (its own header), so payload_bytes is 14, not 1.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PORT=${BENCH_SOCKPERF_PORT:-11111}
TIME=2
MSG=14
while [ $# -gt 0 ]; do
    case "$1" in
    --time) TIME=$2 && shift 2 ;;
    --msg-size) MSG=$2 && shift 2 ;;
    *) bench_die "unknown option $1 (usage: $0 [--time S] [--msg-size B])" ;;
    esac
done

bench_apt_install sockperf
bench_require_free_port "$PORT" BENCH_SOCKPERF_PORT
bench_own sockperf
server=("${BENCH_SERVER_PREFIX[@]}" sockperf server --tcp -i 127.0.0.1 -p "$PORT")
bench_start sockperf "$BENCH_RUN/sockperf-server.log" "${server[@]}"
bench_wait_port "$PORT" 20 "$BENCH_LAST_PID" || bench_die "sockperf server did not start (see $BENCH_RUN/sockperf-server.log)"

client=("${BENCH_CLIENT_PREFIX[@]}" sockperf ping-pong --tcp -i 127.0.0.1 -p "$PORT" -t "$TIME" -m "$MSG" --full-rtt --mps=max)
out=$BENCH_RUN/sockperf-client.log
bench_log "sockperf ping-pong --tcp for ${TIME}s"
SERVER_PID=$BENCH_LAST_PID
bench_server_cpu_begin "$SERVER_PID"
"${client[@]}" >"$out" 2>&1 || {
    tail -20 "$out" >&2
    bench_die "sockperf ping-pong failed (see $out)"
}
server_cpu=()
read -ra server_cpu < <(bench_server_cpu_end "$SERVER_PID") || true
bench_stop sockperf
bench_emit "$(python3 "$BENCH_PY" sockperf workload=echo target=sockperf concurrency=1 connections=1 "${server_cpu[@]}" \
    payload_bytes="$MSG" loadgen=sockperf version="$(bench_pkg_version sockperf)" \
    server_cpus="$BENCH_SERVER_CPUSET" client_cpus="$BENCH_CLIENT_CPUSET" \
    server_cmd="$(bench_quote "${server[@]}")" cmd="$(bench_quote "${client[@]}")" <"$out")"
