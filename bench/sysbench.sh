#!/usr/bin/env bash
# sysbench oltp_point_select against the private MariaDB of bench/mariadb.sh.
#
#   bench/sysbench.sh prepare [--force]
#   bench/sysbench.sh point-select [--threads 64] [--time 10] [--target NAME]
#
# Installs Debian's sysbench if missing. prepare creates sbtest.sbtest1 with 100000 rows (1
# table), unless it already holds them (--force drops and recreates it). point-select runs
# `sysbench oltp_point_select --threads N --time T --histogram=on` (one connection per thread)
# on the load-generator CPUs and prints one JSON line: workload "point_select", target
# (default "mariadb-<thread_handling>"; loadgen "sysbench"), concurrency = connections = N, qps,
# p50/p99/p999 in µs computed from sysbench's latency histogram, errors (ignored errors +
# reconnects), plus requests, tps, avg_us, version and the exact command.
# MariaDB must be running (bench/mariadb.sh start ...); BENCH_MARIADB_PORT and
# BENCH_MARIADB_NAME select the instance, as for mariadb.sh.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PORT=${BENCH_MARIADB_PORT:-13306}
TABLES=1
ROWS=100000
CONN=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=bench
    --mysql-password=bench --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")

bench_apt_install sysbench
bench_port_listening "$PORT" || bench_die "MariaDB is not listening on 127.0.0.1:$PORT (run bench/mariadb.sh start)"

rows() {
    mariadb --no-defaults -h127.0.0.1 -P"$PORT" -ubench -pbench -N -B \
        -e "select count(*) from sbtest.sbtest1" 2>/dev/null || echo 0
}

prepare() {
    local force=""
    [ "${1:-}" = "--force" ] && force=1
    if [ -z "$force" ] && [ "$(rows)" = "$ROWS" ]; then
        bench_log "sbtest.sbtest1 already has $ROWS rows"
        return 0
    fi
    bench_log "sysbench prepare: $TABLES table, $ROWS rows"
    sysbench oltp_point_select "${CONN[@]}" cleanup >/dev/null 2>&1 || true
    sysbench oltp_point_select "${CONN[@]}" prepare >"$BENCH_RUN/sysbench-prepare.log" 2>&1 ||
        bench_die "sysbench prepare failed (see $BENCH_RUN/sysbench-prepare.log)"
    [ "$(rows)" = "$ROWS" ] || bench_die "sbtest1 does not have $ROWS rows after prepare"
}

point_select() {
    local threads=64 time=10 target=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --threads) threads=$2 && shift 2 ;;
        --time) time=$2 && shift 2 ;;
        --target) target=$2 && shift 2 ;;
        *) bench_die "unknown option $1" ;;
        esac
    done
    [ "$(rows)" = "$ROWS" ] || bench_die "sbtest1 is not prepared (run bench/sysbench.sh prepare)"
    local mode
    mode=$(cat "$BENCH_RUN/${BENCH_MARIADB_NAME:-mariadb}/mode" 2>/dev/null || echo unknown)
    [ -n "$target" ] || target="mariadb-$mode"
    bench_raise_nofile >/dev/null
    local cmd=("${BENCH_CLIENT_PREFIX[@]}" sysbench oltp_point_select "${CONN[@]}"
        --threads="$threads" --time="$time" --histogram=on --percentile=99 --report-interval=0 run)
    local out="$BENCH_RUN/sysbench-point-select-$threads.log"
    bench_log "sysbench point select: $threads threads, ${time}s, $target"
    # The MariaDB instance's pid, as bench/mariadb.sh recorded it, for the server CPU per request.
    local server_pid server_cpu=()
    server_pid=$(bench_pids_of "${BENCH_MARIADB_NAME:-mariadb}" | head -1)
    [ -n "$server_pid" ] && bench_server_cpu_begin "$server_pid"
    "${cmd[@]}" >"$out" 2>&1 || {
        tail -20 "$out" >&2
        bench_die "sysbench run failed (see $out)"
    }
    [ -z "$server_pid" ] || read -ra server_cpu < <(bench_server_cpu_end "$server_pid") || true
    bench_emit "$(python3 "$BENCH_PY" sysbench workload=point_select target="$target" \
        concurrency="$threads" connections="$threads" loadgen=sysbench "${server_cpu[@]}" \
        version="$(sysbench --version | awk '{print $2}')" server_version="$(bench_pkg_version mariadb-server)" \
        mode="$mode" client_cpus="$BENCH_CLIENT_CPUSET" cmd="$(bench_quote "${cmd[@]}")" <"$out")"
}

case "${1:-}" in
prepare)
    shift
    prepare "$@"
    ;;
point-select)
    shift
    point_select "$@"
    ;;
*)
    echo "usage: $0 prepare [--force] | point-select [--threads N] [--time S] [--target NAME]" >&2
    exit 2
    ;;
esac
