#!/usr/bin/env bash
# The cost of one request on an xrpc node: server CPU, system calls, context switches and
# eventfd wake-ups per request, at each concurrency, for one or more builds of xrpc-server.
#
#   bench/request-cost.sh [--server NAME=PATH]... [--server-args NAME=ARGS]...
#                         [--mariadb | --mariadb-pid PID] [--concurrency 1,2,8,64,1024,4096]
#                         [--workload select1[,point-select…]] [--duration 4] [--warmup 1] [--rounds 2]
#                         [--perf] [--bench-threads N] [--client NAME=PATH]... [--select-bench PATH]
#                         [--out NAME]
#
# --client NAME=PATH (repeatable) drives every step with each of these `xrpc` binaries in turn,
# against the same node (default: this tree's release `xrpc`, named xrpc), so that builds of the
# load generator are interleaved like builds of the node. --select-bench PATH adds, for select1 on
# xrpc nodes, a run of that select-bench binary (crates/xrpc-bench/examples/select_bench.rs, the
# lean raw-frame generator) against the same node after the xrpc clients, with --bench-threads'
# connections rule (4, fewer with fewer clients); rows carry the generator's name in "client".
#
# --workload takes a comma-separated list; each round runs every workload at every concurrency.
# For a workload other than select1 each node gets sbtest1 with as many rows as bench/sysbench.sh
# prepares (100000): prepared once into a template data directory, copied for every fresh node.
# The first --server prepares it, with its --server-args (a node that translates statements
# keeps the tables' definitions, which every node reads); each set of arguments has its own.
# --mariadb adds the target `mariadb`: the suite's private MariaDB (bench/mariadb.sh, instance
# mariadb-otpc on BENCH_MARIADB_PORT or 13306, one-thread-per-connection, on the server CPU, with
# bench/sysbench.sh's sbtest1), reached directly by `xrpc bench` with mysql://, interleaved with
# the xrpc nodes; its server CPU is mariadbd's. Started and stopped here unless already running.
# --mariadb-pid PID does the same with an instance this tree did not start (a shared one on
# BENCH_MARIADB_PORT with sbtest prepared), which is left alone.
#
# --server-args NAME=ARGS (repeatable) starts the node of --server NAME with these further
# arguments (split at spaces), e.g. --server-args 'head=--sqlite-synchronous=NORMAL'; one build may be
# given twice under two names to compare its settings.
#
# Each --server (default: this tree's target/release/xrpc-server, built if missing) runs as its
# own node with a fresh data directory on the server CPU (bench/lib.sh's pinning), and
# `xrpc bench` (this tree's release build) drives it from the load CPU, one concurrency at a time.
# The servers are interleaved (A B A B … for each round) so that a change in the machine's load
# touches every build alike. Server and client CPU per request come from `xrpc bench --json`
# (the node's utime + stime over the measured window; see `xrpc bench --help`).
#
# With --perf, `perf stat` counts the node's system calls (raw_syscalls:sys_enter), context
# switches and a few system calls by name over the middle of each measured window; each count
# is divided by QPS × the counted seconds. On the request path xrpc-net calls `write` only on
# eventfds (wake-ups), `read` on sockets and eventfds, `sendmsg` to send, `epoll_pwait` and
# `ppoll` (a worker over the epoll waiter cap) to wait.
#
# Results: a table on stdout, one JSON line per step in bench/results/request-cost.jsonl (with
# the load average and the exact command of every step), and the same table in
# bench/results/request-cost.md. --out NAME writes bench/results/NAME.jsonl and NAME.md instead.
# docs/BENCHMARKS.md ("The cost of one request") shows the runs bench/report.py lists in its
# COST_RUNS (bench/results/cost-*.jsonl): to show a new run there, save it under such a name.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ARGS="$*"
declare -A SERVER_ARGS=()
MARIADB_PID_GIVEN="" SERVERS=() CLIENTS=() SELECT_BENCH="" CONC=1,2,8,64,1024,4096 WORKLOAD=select1 DURATION=4 WARMUP=1 ROUNDS=2 PERF=0 THREADS="" MARIADB=0 OUT_NAME=request-cost
while [ $# -gt 0 ]; do
    case "$1" in
    --server) SERVERS+=("$2"); shift 2 ;;
    --server-args) SERVER_ARGS[${2%%=*}]=${2#*=}; shift 2 ;;
    --concurrency) CONC=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --perf) PERF=1; shift ;;
    --mariadb) MARIADB=1; shift ;;
    --mariadb-pid) MARIADB=1; MARIADB_PID_GIVEN=$2; shift 2 ;;
    --out) OUT_NAME=$2; shift 2 ;;
    --bench-threads) THREADS=$2; shift 2 ;;
    --client) CLIENTS+=("$2"); shift 2 ;;
    --select-bench) SELECT_BENCH=$2; shift 2 ;;
    -h | --help) sed -n '2,51p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown argument $1 (see --help)" ;;
    esac
done

ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BIN="${XRPC_BIN_DIR:-$ROOT/target/release}"
if [ ! -x "$BIN/xrpc" ] || { [ "${#SERVERS[@]}" -eq 0 ] && [ ! -x "$BIN/xrpc-server" ]; }; then
    bench_log "building release xrpc-server and xrpc"
    (cd "$ROOT" && cargo build --release -q -p xrpc-server -p xrpc-cli)
fi
[ "${#SERVERS[@]}" -gt 0 ] || SERVERS=("head=$BIN/xrpc-server")
[ "${#CLIENTS[@]}" -gt 0 ] || CLIENTS=("xrpc=$BIN/xrpc")
[ -z "$SELECT_BENCH" ] || [ -x "$SELECT_BENCH" ] || bench_die "--select-bench $SELECT_BENCH is not an executable"
if [ "$PERF" = 1 ] && ! perf stat -e raw_syscalls:sys_enter -- true >/dev/null 2>&1; then
    bench_die "perf stat cannot count raw_syscalls:sys_enter here (perf_event_paranoid?); drop --perf"
fi

OUT="$BENCH_DIR/results/$OUT_NAME.jsonl"
: >"$OUT"
DATA="$BENCH_RUN/request-cost"
SERVER="" MARIADB_OWNED=0
stop_server() {
    if [ -n "$SERVER" ] && [ "$SERVER" != "${MARIADB_PID:-}" ]; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
        SERVER=""
    fi
}
cleanup() {
    stop_server
    [ "$MARIADB_OWNED" = 0 ] || bench_stop mariadb-otpc
}
trap cleanup EXIT
bench_raise_nofile >/dev/null
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
IFS=, read -ra WORKLOADS <<<"$WORKLOAD"

# sbtest1 as bench/sysbench.sh prepares it on MariaDB (its ROWS), so that point selects on both
# search tables of one size.
TABLE_ROWS=100000
TEMPLATE=""
if [ -n "$(printf '%s\n' "${WORKLOADS[@]}" | grep -vx select1 || true)" ]; then
    first=${SERVERS[0]%%=*}
    read -ra extra <<<"${SERVER_ARGS[$first]:-}"
    TEMPLATE="$BENCH_RUN/request-cost-sbtest-$TABLE_ROWS"
    [ "${#extra[@]}" -eq 0 ] || TEMPLATE="$TEMPLATE-$(printf '%s' "${extra[*]}" | md5sum | cut -c1-8)"
    if [ ! -f "$TEMPLATE/.prepared" ]; then
        rm -rf "$TEMPLATE" && mkdir -p "$TEMPLATE"
        PORT=$(free_port)
        path=${SERVERS[0]#*=}
        "$path" --listen "127.0.0.1:$PORT" --data-dir "$TEMPLATE" --log warn "${extra[@]}" 2>"$TEMPLATE.log" &
        SERVER=$!
        bench_wait_port "$PORT" 30 "$SERVER" || bench_die "template node did not start (see $TEMPLATE.log)"
        bench_log "xrpc bench prepare: sbtest1 with $TABLE_ROWS rows in $TEMPLATE"
        "$BIN/xrpc" bench prepare --target "xrpc://127.0.0.1:$PORT" --table-size "$TABLE_ROWS" >/dev/null
        stop_server
        touch "$TEMPLATE/.prepared"
    fi
fi

TARGETS=("${SERVERS[@]}")
if [ "$MARIADB" = 1 ]; then
    MARIADB_PORT=${BENCH_MARIADB_PORT:-13306}
    if [ -n "$MARIADB_PID_GIVEN" ]; then
        # Another tree's instance (e.g. a shared one): used as it is, never started or stopped here.
        MARIADB_PID=$MARIADB_PID_GIVEN
    else
        [ -n "$(bench_pids_of mariadb-otpc)" ] || MARIADB_OWNED=1
        BENCH_MARIADB_NAME=mariadb-otpc BENCH_MARIADB_PORT=$MARIADB_PORT "$BENCH_DIR/mariadb.sh" start one-thread-per-connection >/dev/null
        BENCH_MARIADB_NAME=mariadb-otpc BENCH_MARIADB_PORT=$MARIADB_PORT "$BENCH_DIR/sysbench.sh" prepare >/dev/null
        MARIADB_PID=$(bench_pids_of mariadb-otpc | head -1)
    fi
    TARGETS+=("mariadb=mysql://bench:bench@127.0.0.1:$MARIADB_PORT/sbtest")
fi

IFS=, read -ra LEVELS <<<"$CONC"
for round in $(seq "$ROUNDS"); do
  for workload in "${WORKLOADS[@]}"; do
    for c in "${LEVELS[@]}"; do
        for spec in "${TARGETS[@]}"; do
            name=${spec%%=*} path=${spec#*=}
            rm -rf "$DATA" && mkdir -p "$DATA"
            if [ "${path#mysql://}" != "$path" ]; then
                SERVER=$MARIADB_PID TARGET=$path
            else
                [ "$workload" = select1 ] || cp -a "$TEMPLATE/." "$DATA/"
                PORT=$(free_port)
                # Started directly so that $! is the node's own pid (taskset execs).
                read -ra extra <<<"${SERVER_ARGS[$name]:-}"
                "${BENCH_SERVER_PREFIX[@]}" "$path" --listen "127.0.0.1:$PORT" --data-dir "$DATA" --log warn \
                    "${extra[@]}" 2>"$DATA/server.log" &
                SERVER=$!
                bench_wait_port "$PORT" 30 "$SERVER" || bench_die "$name did not start (see $DATA/server.log)"
                TARGET="xrpc://127.0.0.1:$PORT"
            fi
            gens=("${CLIENTS[@]}")
            if [ -n "$SELECT_BENCH" ] && [ "$workload" = select1 ] && [ "${TARGET#xrpc://}" != "$TARGET" ]; then
                gens+=("select-bench=$SELECT_BENCH")
            fi
            for gen in "${gens[@]}"; do
            gname=${gen%%=*} gpath=${gen#*=}
            json="$DATA/step.json"
            rm -f "$json"
            threads=()
            [ -n "$THREADS" ] && threads=(--threads "$THREADS")
            if [ "$gname" = select-bench ]; then
                conns=$(( c < 4 ? c : 4 ))
                cmd=("${BENCH_CLIENT_PREFIX[@]}" "$gpath" --addr "${TARGET#xrpc://}" --clients "$c" --connections "$conns"
                    --duration "$DURATION" --warmup "$WARMUP" --server-pid "$SERVER")
            else
                cmd=("${BENCH_CLIENT_PREFIX[@]}" "$gpath" bench --target "$TARGET" --server-pid "$SERVER"
                    --workload "$workload" -c "$c" -d "$DURATION" --warmup "$WARMUP" "${threads[@]}" --json "$json")
            fi
            load=$(cut -d' ' -f1-3 /proc/loadavg)
            perf_args=()
            if [ "$PERF" = 1 ]; then
                # Count over the middle of the window: from 0.5 s after the warm-up for duration - 1 s.
                count_s=$(awk -v d="$DURATION" 'BEGIN {print (d > 2 ? d - 1 : d / 2)}')
                ( sleep "$(awk -v w="$WARMUP" 'BEGIN {print w + 0.5}')"
                  perf stat -x, -e raw_syscalls:sys_enter,context-switches,syscalls:sys_enter_write,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_sendmsg,syscalls:sys_enter_ppoll,syscalls:sys_enter_read \
                      -p "$SERVER" -o "$DATA/perf.csv" -- sleep "$count_s" ) &
                perf_pid=$!
                perf_args=(perf_s="$count_s")
            fi
            "${cmd[@]}" >"$DATA/bench.out" 2>"$DATA/bench.err" || { tail -5 "$DATA/bench.err" >&2; bench_die "$gname failed"; }
            if [ "$PERF" = 1 ]; then wait "$perf_pid" || true; fi
            if [ "$gname" = select-bench ]; then
                # select-bench prints one line: "clients N connections K: qps Q p50 P us p99 P us client C us/req server S us/req".
                python3 - "$DATA/bench.out" "$workload" "$c" >"$json" <<'EOF2'
import json, re, sys
line = open(sys.argv[1]).read().strip().splitlines()[-1]
num = lambda k: float(re.search(k + r" ([0-9.]+)", line).group(1))
srv = re.search(r"server ([0-9.]+)", line)
print(json.dumps({"results": [{"workload": sys.argv[2], "concurrency": int(sys.argv[3]), "qps": num("qps"),
    "p50_us": num("p50"), "p99_us": num("p99"), "client_cpu_us_per_request": num("client"),
    "server_cpu_us_per_request": float(srv.group(1)) if srv else None}]}))
EOF2
            fi
            python3 - "$json" "$name" "$gname" "$round" "$load" "$(bench_quote "${cmd[@]}")" "${perf_args[@]}" "$DATA/perf.csv" >>"$OUT" <<'EOF'
import json, sys
path, name, client, rnd, load, cmd = sys.argv[1:7]
rest = sys.argv[7:]
step = json.load(open(path))["results"][0]
row = {"server": name, "client": client, "round": int(rnd), "workload": step["workload"], "concurrency": step["concurrency"],
       "qps": step["qps"], "p50_us": step["p50_us"], "p99_us": step["p99_us"],
       "server_cpu_us": step.get("server_cpu_us_per_request"),
       "client_cpu_us": step.get("client_cpu_us_per_request"), "loadavg": load, "cmd": cmd}
if rest and rest[0].startswith("perf_s="):
    secs = float(rest[0].split("=", 1)[1])
    requests = step["qps"] * secs
    names = {"raw_syscalls:sys_enter": "syscalls", "context-switches": "cswitches",
             "syscalls:sys_enter_write": "write", "syscalls:sys_enter_epoll_pwait": "epoll_pwait",
             "syscalls:sys_enter_sendmsg": "sendmsg", "syscalls:sys_enter_ppoll": "ppoll",
             "syscalls:sys_enter_read": "read"}
    try:
        for line in open(rest[1]):
            f = line.strip().split(",")
            if len(f) > 2 and f[2] in names and f[0].replace(".", "").isdigit() and requests > 0:
                row[names[f[2]] + "_per_request"] = round(float(f[0]) / requests, 3)
    except OSError:
        pass
print(json.dumps(row))
EOF
            bench_log "$(tail -1 "$OUT" | python3 -c 'import json,sys; r=json.load(sys.stdin); r.pop("cmd"); print(r)')"
            done
            stop_server
        done
    done
  done
done

COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$OUT" "$BENCH_DIR/results/$OUT_NAME.md" "bench/request-cost.sh${ARGS:+ $ARGS}" "$COMMIT" \
    "$BENCH_SERVER_CPUSET" "$BENCH_CLIENT_CPUSET" <<'EOF'
import json, os, statistics, sys, time
out_md, command, commit, scpu, ccpu = sys.argv[2:7]
lines = []
print_ = print
def print(s=""):
    lines.append(s)
    print_(s)
rows = [json.loads(l) for l in open(sys.argv[1])]
servers = list(dict.fromkeys((r["server"], r.get("client", "xrpc")) for r in rows))
levels = sorted({r["concurrency"] for r in rows})
extra = [k for k in ("syscalls_per_request", "cswitches_per_request", "write_per_request",
                     "epoll_pwait_per_request", "ppoll_per_request", "sendmsg_per_request", "read_per_request")
         if any(k in r for r in rows)]
workloads = list(dict.fromkeys(r["workload"] for r in rows))
head = ["server", "generator", "workload", "clients", "QPS", "p50 µs", "p99 µs", "server µs/req", "client µs/req"] + [k.replace("_per_request", "/req") for k in extra]
print("| " + " | ".join(head) + " |")
print("|---|" + "---:|" * (len(head) - 1))
def med(rs, k):
    v = [r[k] for r in rs if r.get(k) is not None]
    return statistics.median(v) if v else None
for w, c, (s, g) in ((w, c, s) for w in workloads for c in levels for s in servers):
    rs = [r for r in rows if r["server"] == s and r.get("client", "xrpc") == g and r["concurrency"] == c
          and r["workload"] == w]
    if not rs:
        continue
    cells = [s, g, w, str(c), f"{med(rs, 'qps'):.0f}", f"{med(rs, 'p50_us'):.0f}", f"{med(rs, 'p99_us'):.0f}",
             f"{med(rs, 'server_cpu_us'):.2f}" if med(rs, 'server_cpu_us') is not None else "–",
             f"{med(rs, 'client_cpu_us'):.2f}" if med(rs, 'client_cpu_us') is not None else "–"]
    cells += [f"{med(rs, k):.2f}" if med(rs, k) is not None else "–" for k in extra]
    print("| " + " | ".join(cells) + " |")
loads = [r["loadavg"] for r in rows]
print(f"\nload average at the steps: {loads[0]} … {loads[-1]}")
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
with open(out_md, "w") as f:
    f.write(f"""## The cost of one request

`{command}`, this tree at `{commit}`; {os.cpu_count()} CPUs
({model}), node on CPU {scpu}, `xrpc bench` on CPU {ccpu}. Each build serves each step as its own fresh node; builds
are interleaved. Server and client CPU per request are utime + stime over the measured window divided by the
requests completed in it; the per-request counts (with `--perf`) are `perf stat` counts of the node over the
middle of the window divided by QPS × the seconds counted. Every generator of a step drives the same node,
one after another. Medians over the rounds.

""" + "\n".join(lines) + "\n")
EOF
