#!/usr/bin/env bash
# The article's table on one engine, and plan push-down against SQL.
#
#   bench/engine-mysql.sh [--full|--quick|--smoke] [--rounds N] [--duration S] [--warmup S]
#                         [--pool-size N] [--only table|plans] [--out-dir DIR]
#                         [--clients "N N …"]
#
#   --full   2 8 64 256 1024 2048 4096 clients, 4 s steps after 1 s warm-up, 2 rounds (default)
#   --quick  8 256 4096 clients (plans: 64 1024 4096), 3 s steps, 1 round
#   --smoke  8 clients, 0.5 s steps, a 1000-row SQLite table, one step per kind of target
#            (MariaDB direct and xrpc with select 1; xrpc and sysbench with point select;
#            point-get on each engine); writes only into --out-dir (default
#            target/bench-reports/engine-mysql-smoke-<UTC time>/), never bench/results/
#            (run-all.sh --smoke runs this; about 18 s with debug builds)
#   --clients  the table's client counts instead of the suite's
#
# The node's other settings come from its environment (XRPC_<VARIABLE>), e.g.
# XRPC_BACKEND_DRIVER_CONNECTIONS=4 for the mysql engine's event-loop driver.
#
# The table: the same Debian MariaDB (bench/mariadb.sh; one instance per
# thread_handling mode, the instances run-all.sh uses) reached
#   - directly, one connection and one thread per client, in both modes, with `xrpc bench` and,
#     for point select, with `sysbench oltp_point_select` as the reference load generator;
#   - through `xrpc-server --engine mysql://…` in front of the one-thread-per-connection instance:
#     `xrpc bench`'s sessions over 4 TCP connections, the node's backend connections at most
#     --pool-size (default 8, all of them opened at the start: xrpc_backend_driver_connections'
#     default).
# Workloads `select 1` and point select. Per concurrency the targets run one after another
# (direct one-thread-per-connection, direct pool-of-threads, xrpc), so a change of the machine's
# load touches all of them alike.
#
# The plans: `point-get` (a GET plan, EXEC_PLAN_READ) against `point-select` (prepared
# SQL) through xrpc on the SQLite engine and on the mysql engine, interleaved.
#
# Server CPU per request: `xrpc bench --server-pid` reads utime + stime of the server processes
# from /proc/<pid>/stat at the start and the end of the measured window and divides by the
# statements completed in it: MariaDB's for a direct target, MariaDB's plus xrpc-server's through
# xrpc. xrpc-server runs on the same CPU as MariaDB (bench/lib.sh's server CPU), the load
# generators on the other. sysbench has no such hook: its figure is MariaDB's CPU over the whole
# sysbench run (connects included) divided by the requests sysbench reports. Through xrpc, the
# node's own share is reported too (the rest is MariaDB's). After each xrpc step the node's
# `SHOW STATUS LIKE 'xrpc_backend%'` gives the backend connections it used, how many statements it
# sent and how many of them went into the shared rotation, and the pipeline depths they found.
#
# Results: JSON lines in bench/results/engine-mysql.jsonl and a report in
# bench/results/engine-mysql.md, which bench/report.py appends to docs/BENCHMARKS.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SUITE=full ROUNDS="" DURATION="" WARMUP="" POOL_SIZE=8 ONLY="" OUT_DIR="" CLIENTS=""
while [ $# -gt 0 ]; do
    case "$1" in
    --full | --quick | --smoke) SUITE=${1#--} && shift ;;
    --rounds) ROUNDS=$2 && shift 2 ;;
    --duration) DURATION=$2 && shift 2 ;;
    --warmup) WARMUP=$2 && shift 2 ;;
    --pool-size) POOL_SIZE=$2 && shift 2 ;;
    --only) ONLY=$2 && shift 2 ;;
    --out-dir) OUT_DIR=$2 && shift 2 ;;
    --clients) CLIENTS=$2 && shift 2 ;;
    -h | --help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//' && exit 0 ;;
    *) bench_die "unknown argument $1 (see --help)" ;;
    esac
done
case "$ONLY" in "" | table | plans) ;; *) bench_die "--only takes table or plans" ;; esac
# Lines go to this script's own files: run-all.sh's BENCH_OUT and BENCH_TAGS do not apply here.
unset BENCH_OUT BENCH_TAGS

case "$SUITE" in
full) CONC=(2 8 64 256 1024 2048 4096) PLAN_CONC=(64 1024 4096) D=4 W=1 R=2 ROWS=100000 ;;
quick) CONC=(8 256 4096) PLAN_CONC=(64 1024 4096) D=3 W=1 R=1 ROWS=100000 ;;
smoke) CONC=(8) PLAN_CONC=(8) D=0.5 W=0.2 R=1 ROWS=1000 ;;
esac
R=${ROUNDS:-$R} D=${DURATION:-$D} W=${WARMUP:-$W}
# shellcheck disable=SC2206 # a list of numbers, split on purpose
[ -z "$CLIENTS" ] || CONC=($CLIENTS)

ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BIN="${XRPC_BIN_DIR:-$ROOT/target/release}"
if [ -z "${XRPC_BIN_DIR:-}" ]; then
    bench_log "building release xrpc-server and xrpc"
    (cd "$ROOT" && cargo build --release -q -p xrpc-server -p xrpc-cli)
fi
XRPC=$BIN/xrpc

if [ "$SUITE" = smoke ]; then
    OUT_DIR=${OUT_DIR:-$BENCH_REPORTS/engine-mysql-smoke-$(date -u +%Y%m%dT%H%M%SZ)}
else
    OUT_DIR=${OUT_DIR:-$BENCH_DIR/results}
fi
mkdir -p "$OUT_DIR"
OUT=$OUT_DIR/engine-mysql.jsonl
MD=$OUT_DIR/engine-mysql.md
WORK=$BENCH_RUN/engine-mysql
rm -rf "$WORK" && mkdir -p "$WORK"
: >"$OUT"

OTPC_PORT=${BENCH_MARIADB_PORT:-13306}
POOL_PORT=${BENCH_MARIADB_POOL_PORT:-13307}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The MariaDB instances: started (and later stopped) here only when not already running, so that
# run-all.sh's instances are reused and left to it.
OWNED=()
mariadb_up() {
    local name=$1 port=$2 mode=$3
    [ -n "$(bench_pids_of "$name")" ] || OWNED+=("$name")
    BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port "$BENCH_DIR/mariadb.sh" start "$mode" >/dev/null
    BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port "$BENCH_DIR/sysbench.sh" prepare >/dev/null
}
XRPC_PIDS=()
cleanup() {
    local p n
    for p in "${XRPC_PIDS[@]}"; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    for n in "${OWNED[@]}"; do bench_stop "$n"; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bench_raise_nofile >/dev/null
mariadb_up mariadb-otpc "$OTPC_PORT" one-thread-per-connection
mariadb_up mariadb-pool "$POOL_PORT" pool-of-threads
OTPC_PID=$(bench_pids_of mariadb-otpc | head -1)
POOL_PID=$(bench_pids_of mariadb-pool | head -1)
OTPC_URL="mysql://bench:bench@127.0.0.1:$OTPC_PORT/sbtest"
POOL_URL="mysql://bench:bench@127.0.0.1:$POOL_PORT/sbtest"

# xrpc-server NAME ARGS...: starts a node on the server CPU (taskset execs, so $! is the node) and
# sets NODE_PID and NODE_PORT.
start_node() {
    local name=$1
    shift
    NODE_PORT=$(free_port)
    mkdir -p "$WORK/$name"
    "${BENCH_SERVER_PREFIX[@]}" "$BIN/xrpc-server" --listen "127.0.0.1:$NODE_PORT" --data-dir "$WORK/$name/data" \
        --log warn "$@" 2>"$WORK/$name/server.log" &
    NODE_PID=$!
    XRPC_PIDS+=("$NODE_PID")
    local i
    for ((i = 0; i < 100; i++)); do
        "$XRPC" exec -P "$NODE_PORT" "select 1" >/dev/null 2>&1 && return 0
        kill -0 "$NODE_PID" 2>/dev/null || break
        sleep 0.1
    done
    tail -5 "$WORK/$name/server.log" >&2
    bench_die "xrpc-server $name did not start (see $WORK/$name/server.log)"
}

# The backend URL carries the password, so it goes to the node in a TOML file only its user can read
# (README, "fronting MariaDB"), never on the command line, where `ps` would show it.
MYSQL_NODE_CONFIG=$WORK/mysql-node.toml
(umask 077 && printf 'engine = "%s"\n' "$OTPC_URL" >"$MYSQL_NODE_CONFIG")
start_node mysql --config "$MYSQL_NODE_CONFIG" --backend-pool-size "$POOL_SIZE"
MYSQL_NODE_PID=$NODE_PID MYSQL_NODE_PORT=$NODE_PORT
XMYSQL_URL="xrpc://root@127.0.0.1:$MYSQL_NODE_PORT"
ENGINE_VERSION=$("$XRPC" exec -P "$MYSQL_NODE_PORT" -f csv "select @@version" | tail -1)

SQLITE_NODE_PID="" SQLITE_NODE_PORT=""
if [ "$ONLY" != table ]; then
    # The SQLite node keeps its sbtest1 between runs (outside $WORK, which each run clears).
    SQLITE_DATA=$BENCH_RUN/engine-mysql-sqlite-$ROWS
    mkdir -p "$SQLITE_DATA"
    NODE_PORT=$(free_port)
    "${BENCH_SERVER_PREFIX[@]}" "$BIN/xrpc-server" --listen "127.0.0.1:$NODE_PORT" --data-dir "$SQLITE_DATA" \
        --log warn 2>"$WORK/sqlite-server.log" &
    NODE_PID=$!
    XRPC_PIDS+=("$NODE_PID")
    for ((i = 0; i < 100; i++)); do
        "$XRPC" exec -P "$NODE_PORT" "select 1" >/dev/null 2>&1 && break
        sleep 0.1
    done
    SQLITE_NODE_PID=$NODE_PID SQLITE_NODE_PORT=$NODE_PORT
    XSQLITE_URL="xrpc://root@127.0.0.1:$SQLITE_NODE_PORT"
    rows=$("$XRPC" exec -P "$SQLITE_NODE_PORT" -f csv "select count(*) from sbtest1" 2>/dev/null | tail -1 || true)
    if [ "$rows" != "$ROWS" ]; then
        bench_log "xrpc bench prepare: sbtest1 with $ROWS rows on the SQLite node"
        "$XRPC" exec -P "$SQLITE_NODE_PORT" "drop table if exists sbtest1" >/dev/null 2>&1 || true
        timeout -k 10 600 "$XRPC" bench prepare --target "$XSQLITE_URL" --table-size "$ROWS" >"$WORK/sqlite-prepare.log" 2>&1 ||
            bench_die "xrpc bench prepare failed (see $WORK/sqlite-prepare.log)"
    fi
fi

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# backend_status PORT: the node's xrpc_backend_* counters as one JSON object.
backend_status() {
    "$XRPC" exec -P "$1" -f csv "SHOW STATUS LIKE 'xrpc_backend%'" 2>/dev/null | python3 -c '
import csv, json, sys
rows = list(csv.reader(sys.stdin))[1:]
print(json.dumps({k.removeprefix("xrpc_backend_"): int(v) for k, v in rows if v.lstrip("-").isdigit()}))'
}

# step PART LABEL WORKLOAD CONC TARGET_URL STATUS_PORT PIDS...: one `xrpc bench` step; appends
# one JSON line to $OUT.
step() {
    local part=$1 label=$2 workload=$3 conc=$4 url=$5 status_port=$6
    shift 6
    local pid_args=() p
    # The first pid is the target's server; the rest (MariaDB behind xrpc) are added to it.
    [ "$#" -gt 0 ] && pid_args+=(--server-pid "$1") && shift
    for p in "$@"; do pid_args+=(--also-server-pid "$p"); done
    local json=$WORK/step.json before="{}" after="{}" load
    load=$(loadavg)
    [ -n "$status_port" ] && before=$(backend_status "$status_port")
    local cmd=("${BENCH_CLIENT_PREFIX[@]}" "$XRPC" bench --workload "$workload" --target "$url"
        -c "$conc" -d "$D" --warmup "$W" "${pid_args[@]}" --json "$json")
    rm -f "$json"
    if ! timeout -k 10 $((${D%.*} + 120)) "${cmd[@]}" >"$WORK/step.log" 2>&1 || [ ! -s "$json" ]; then
        tail -5 "$WORK/step.log" >&2
        python3 -c 'import json,sys; print(json.dumps({"part":sys.argv[1],"target":sys.argv[2],"workload":sys.argv[3],"concurrency":int(sys.argv[4]),"failed":True,"round":int(sys.argv[5])}))' \
            "$part" "$label" "$workload" "$conc" "$ROUND" >>"$OUT"
        bench_log "FAILED: $label $workload c=$conc"
        return 0
    fi
    [ -n "$status_port" ] && after=$(backend_status "$status_port")
    python3 - "$json" "$part" "$label" "$ROUND" "$load" "$before" "$after" "$(bench_quote "${cmd[@]}")" >>"$OUT" <<'EOF'
import json, sys
path, part, label, rnd, load, before, after, cmd = sys.argv[1:]
m = json.load(open(path))["results"][0]
line = {"part": part, "target": label, "workload": m["workload"], "concurrency": m["concurrency"],
        "round": int(rnd), "qps": m["qps"], "p50_us": m["p50_us"], "p99_us": m["p99_us"],
        "p999_us": m.get("p999_us"), "errors": m["errors"], "lost_clients": m["lost_clients"],
        "requests": m["requests"], "server_cpu_us_per_request": m.get("server_cpu_us_per_request"),
        "server_cores": m.get("server_cores"), "client_cores": m.get("client_cores"),
        "loadavg": load, "loadgen": "xrpc bench", "cmd": cmd}
if m.get("server_own_cpu_us_per_request") is not None:
    line["node_cpu_us_per_request"] = m["server_own_cpu_us_per_request"]
before, after = json.loads(before), json.loads(after)
if after:
    delta = lambda key: after.get(key, 0) - before.get(key, 0)
    line["driver_connections"] = after.get("connections")
    line["backend_statements"] = delta("statements")
    depths = {k.removeprefix("pipeline_depth_"): delta(k) for k in after if k.startswith("pipeline_depth_")}
    line["driver_statements"] = sum(depths.values())
    line["pipeline_depths"] = depths
    line["backend_connects"] = delta("connections_opened")
    line["backend_wait_timeouts"] = delta("queue_timeouts")
print(json.dumps(line))
EOF
    bench_log "r$ROUND $label $workload c=$conc: $(python3 -c 'import json,sys; l=json.loads(sys.argv[1]); print(l["qps"], "qps, p99", l["p99_us"], "µs,", l["server_cpu_us_per_request"], "µs CPU/req")' "$(tail -1 "$OUT")")"
}

ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

# sysbench_step LABEL PORT NAME PID CONC: sysbench oltp_point_select against one instance.
sysbench_step() {
    local label=$1 port=$2 name=$3 pid=$4 conc=$5 load t0 t1 line
    load=$(loadavg)
    t0=$(ticks "$pid")
    if ! line=$(BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port BENCH_OUT="" BENCH_TAGS="" timeout -k 10 $((${D%.*} + 120)) \
        "$BENCH_DIR/sysbench.sh" point-select --threads "$conc" --time "$(python3 -c "import math; print(max(1, math.ceil($D)))")" 2>"$WORK/sysbench.log"); then
        tail -5 "$WORK/sysbench.log" >&2
        bench_log "FAILED: sysbench $label c=$conc"
        return 0
    fi
    t1=$(ticks "$pid")
    python3 - "$line" "$label" "$ROUND" "$load" "$t0" "$t1" "$(getconf CLK_TCK)" >>"$OUT" <<'EOF'
import json, sys
raw, label, rnd, load, t0, t1, hz = sys.argv[1:]
m = json.loads(raw)
req = m.get("requests") or 0
print(json.dumps({"part": "table", "target": label, "workload": "point-select", "concurrency": m["concurrency"],
                  "round": int(rnd), "qps": m["qps"], "p50_us": m.get("p50_us"), "p99_us": m.get("p99_us"),
                  "errors": m.get("errors", 0), "requests": req,
                  "server_cpu_us_per_request": round((int(t1) - int(t0)) / int(hz) * 1e6 / req, 3) if req else None,
                  "cpu_window": "whole sysbench run", "loadavg": load, "loadgen": "sysbench", "cmd": m.get("cmd")}))
EOF
}

bench_log "engine-mysql: $SUITE, $R round(s), ${D}s steps after ${W}s warm-up; xrpc backend connections at most $POOL_SIZE; load $(loadavg)"
python3 -c 'import json,sys; print(json.dumps({"meta": "run", "suite": sys.argv[1], "rounds": int(sys.argv[2]), "duration_s": float(sys.argv[3]), "warmup_s": float(sys.argv[4]), "pool_size": int(sys.argv[5]), "server_cpus": sys.argv[6], "client_cpus": sys.argv[7], "engine_version": sys.argv[8], "commit": sys.argv[9], "started": sys.argv[10], "loadavg": sys.argv[11], "rows": int(sys.argv[12])}))' \
    "$SUITE" "$R" "$D" "$W" "$POOL_SIZE" "$BENCH_SERVER_CPUSET" "$BENCH_CLIENT_CPUSET" "$ENGINE_VERSION" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- crates 2>/dev/null || echo +dirty)" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(loadavg)" "$ROWS" >>"$OUT"

for ((ROUND = 1; ROUND <= R; ROUND++)); do
    if [ "$SUITE" = smoke ]; then
        # Each kind of step once, within CI's budget.
        step table mariadb-one-thread-per-connection select1 8 "$OTPC_URL" "" "$OTPC_PID"
        step table xrpc-mysql select1 8 "$XMYSQL_URL" "$MYSQL_NODE_PORT" "$MYSQL_NODE_PID" "$OTPC_PID"
        step table xrpc-mysql point-select 8 "$XMYSQL_URL" "$MYSQL_NODE_PORT" "$MYSQL_NODE_PID" "$OTPC_PID"
        sysbench_step mariadb-one-thread-per-connection-sysbench "$OTPC_PORT" mariadb-otpc "$OTPC_PID" 8
        if [ -n "${XSQLITE_URL:-}" ]; then
            step plans xrpc-sqlite point-get 8 "$XSQLITE_URL" "" "$SQLITE_NODE_PID"
        fi
        step plans xrpc-mysql point-get 8 "$XMYSQL_URL" "$MYSQL_NODE_PORT" "$MYSQL_NODE_PID" "$OTPC_PID"
        continue
    fi
    if [ "$ONLY" != plans ]; then
        for workload in select1 point-select; do
            for c in "${CONC[@]}"; do
                step table mariadb-one-thread-per-connection "$workload" "$c" "$OTPC_URL" "" "$OTPC_PID"
                step table mariadb-pool-of-threads "$workload" "$c" "$POOL_URL" "" "$POOL_PID"
                step table xrpc-mysql "$workload" "$c" "$XMYSQL_URL" "$MYSQL_NODE_PORT" "$MYSQL_NODE_PID" "$OTPC_PID"
                if [ "$workload" = point-select ]; then
                    sysbench_step mariadb-one-thread-per-connection-sysbench "$OTPC_PORT" mariadb-otpc "$OTPC_PID" "$c"
                    sysbench_step mariadb-pool-of-threads-sysbench "$POOL_PORT" mariadb-pool "$POOL_PID" "$c"
                fi
            done
        done
    fi
    if [ "$ONLY" != table ]; then
        for c in "${PLAN_CONC[@]}"; do
            for workload in point-select point-get; do
                step plans xrpc-sqlite "$workload" "$c" "$XSQLITE_URL" "" "$SQLITE_NODE_PID"
            done
            for workload in point-select point-get; do
                step plans xrpc-mysql "$workload" "$c" "$XMYSQL_URL" "$MYSQL_NODE_PORT" "$MYSQL_NODE_PID" "$OTPC_PID"
            done
        done
    fi
done
python3 -c 'import json,sys; print(json.dumps({"meta": "end", "finished": sys.argv[1], "loadavg": sys.argv[2]}))' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(loadavg)" >>"$OUT"

python3 "$BENCH_DIR/engine_mysql_report.py" "$OUT" --out "$MD"
bench_log "engine-mysql: results in $OUT, report in $MD"
