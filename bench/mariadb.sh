#!/usr/bin/env bash
# A private MariaDB for the benchmarks (Debian's mariadb-server, not the system service).
#
#   bench/mariadb.sh start [one-thread-per-connection|pool-of-threads]   (default: the first)
#   bench/mariadb.sh stop | status | clean
#
# start installs mariadb-server and mariadb-client if missing, creates a data directory with
# mariadb-install-db under target/bench-run/mariadb/ (once; kept between runs so the sysbench table
# survives), and starts mariadbd on 127.0.0.1:$BENCH_MARIADB_PORT (13306) with its own socket,
# the given thread_handling, max_connections 5100 and the open-file limit raised to the hard
# limit. A server already running in another mode is restarted. It creates the database sbtest
# and the user bench/bench, checks `select 1` over TCP as that user and prints one JSON line
# {"meta":"server","peer":"mariadb",...} with the settings in force. The server keeps running
# after start returns; stop (or bench_stop_all) ends it by its recorded pid. clean also deletes
# the data directory.
#
# BENCH_MARIADB_NAME (default "mariadb") names the instance: its directory target/bench-run/<name>/
# and its record in target/bench-run/pids. With different names and ports (BENCH_MARIADB_PORT), two
# instances run side by side; run-all.sh keeps one per thread_handling mode, so that one
# `xrpc bench` invocation can drive both.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PORT=${BENCH_MARIADB_PORT:-13306}
NAME=${BENCH_MARIADB_NAME:-mariadb}
DIR=$BENCH_RUN/$NAME
DATA=$DIR/data
SOCK=$DIR/mariadbd.sock
MODE_FILE=$DIR/mode
MAX_CONN=${BENCH_MARIADB_MAX_CONNECTIONS:-5100}
ME=$(id -un)

root_sql() { mariadb --no-defaults -uroot --socket="$SOCK" -N -B -e "$1"; }

running_pid() { bench_pids_of "$NAME" | head -1; }

start() {
    local mode=${1:-one-thread-per-connection}
    case "$mode" in
    one-thread-per-connection | pool-of-threads) ;;
    *) bench_die "thread_handling must be one-thread-per-connection or pool-of-threads, not $mode" ;;
    esac
    bench_apt_install mariadb-server mariadb-client
    mkdir -p "$DIR"

    local pid
    pid=$(running_pid)
    if [ -n "$pid" ]; then
        if [ "$(cat "$MODE_FILE" 2>/dev/null)" = "$mode" ] && bench_port_listening "$PORT"; then
            bench_log "$NAME already running in $mode (pid $pid)"
            report "$pid" "$mode" "(already running)"
            return 0
        fi
        bench_log "restarting $NAME in $mode"
        bench_stop "$NAME"
    fi
    bench_require_free_port "$PORT" BENCH_MARIADB_PORT

    if [ ! -d "$DATA/mysql" ]; then
        rm -rf "$DATA"
        bench_log "mariadb-install-db into ${DATA#"$BENCH_DIR"/}"
        mariadb-install-db --no-defaults --datadir="$DATA" --user="$ME" \
            --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
            >"$DIR/install.log" 2>&1 || bench_die "mariadb-install-db failed (see $DIR/install.log)"
    fi

    local nofile
    nofile=$(bench_raise_nofile)
    [ "$nofile" -ge $((MAX_CONN + 1000)) ] || bench_log "warning: open-file limit is only $nofile"
    local cmd=(mariadbd --no-defaults --user="$ME"
        --datadir="$DATA" --socket="$SOCK" --pid-file="$DIR/mariadbd.pid" --log-error="$DIR/error.log"
        --bind-address=127.0.0.1 --port="$PORT" --skip-name-resolve
        --thread-handling="$mode" --thread-pool-size="$BENCH_SERVER_NCPU"
        --max-connections="$MAX_CONN" --open-files-limit="$nofile" --table-open-cache=400
        --back-log=4096 --max-prepared-stmt-count=1048576 --max-connect-errors=1000000
        --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2
        --performance-schema=OFF --skip-log-bin)
    echo "$mode" >"$MODE_FILE"
    bench_start "$NAME" "$DIR/mariadbd.out" "${BENCH_SERVER_PREFIX[@]}" "${cmd[@]}"
    pid=$BENCH_LAST_PID
    bench_wait_port "$PORT" 60 "$pid" || {
        tail -20 "$DIR/error.log" >&2 || true
        bench_die "mariadbd did not start"
    }
    # The socket may lag the TCP port by a moment.
    local i
    for ((i = 0; i < 50; i++)); do
        if root_sql 'select 1' >/dev/null 2>&1; then break; fi
        sleep 0.1
    done
    root_sql "CREATE DATABASE IF NOT EXISTS sbtest;
              CREATE USER IF NOT EXISTS 'bench'@'%' IDENTIFIED BY 'bench';
              CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'bench';
              GRANT ALL ON sbtest.* TO 'bench'@'%';
              GRANT ALL ON sbtest.* TO 'bench'@'localhost';" || bench_die "could not create user bench"
    local one
    one=$(mariadb --no-defaults -h127.0.0.1 -P"$PORT" -ubench -pbench -N -B -e 'select 1') || true
    [ "$one" = 1 ] || bench_die "select 1 as bench over 127.0.0.1:$PORT failed"
    report "$pid" "$mode" "$(bench_quote "${BENCH_SERVER_PREFIX[@]}" "${cmd[@]}")"
}

report() {
    local pid=$1 mode=$2 cmdline=$3 vars
    vars=$(root_sql "select @@version, @@thread_handling, @@max_connections, @@open_files_limit, @@thread_pool_size, @@table_open_cache")
    local version handling maxc files pool toc
    read -r version handling maxc files pool toc <<<"$vars"
    [ "$handling" = "$mode" ] || bench_die "thread_handling is $handling, wanted $mode"
    [ "$maxc" -ge 5000 ] || bench_die "max_connections is $maxc (< 5000): raise the open-file limit"
    bench_log "mariadb $version on 127.0.0.1:$PORT: thread_handling=$handling max_connections=$maxc open_files_limit=$files thread_pool_size=$pool"
    bench_emit "$(bench_json meta=server peer=mariadb instance="$NAME" version="$version" package="$(bench_pkg_version mariadb-server)" \
        mode="$handling" host=127.0.0.1 port="$PORT" user=bench database=sbtest pid="$pid" \
        max_connections="$maxc" open_files_limit="$files" thread_pool_size="$pool" table_open_cache="$toc" \
        server_cpus="$BENCH_SERVER_CPUSET" cmd="$cmdline")"
}

stop() {
    bench_stop "$NAME"
}

status() {
    local pid
    pid=$(running_pid)
    if [ -n "$pid" ]; then
        echo "$NAME running: pid $pid, $(cat "$MODE_FILE" 2>/dev/null), 127.0.0.1:$PORT"
    else
        echo "$NAME not running"
        return 1
    fi
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) stop ;;
status) status ;;
clean)
    stop
    rm -rf "$DIR"
    ;;
*)
    echo "usage: $0 start [one-thread-per-connection|pool-of-threads] | stop | status | clean" >&2
    exit 2
    ;;
esac
