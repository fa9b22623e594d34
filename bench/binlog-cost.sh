#!/usr/bin/env bash
# What the binary log costs a node under load: QPS and server CPU per request with the log off,
# with `*` (every frame, whole payloads) and with `*{h}` (headers only), in one run.
#
#   bench/binlog-cost.sh [--rounds N] [--duration S] [--concurrency C] [--workload W]
#
# One release node serves every step; the configuration is switched with
# `SET GLOBAL xrpc_binlog` between steps, and the steps are interleaved (off, *, *{h}, off, …)
# so that a change in the machine's load touches every configuration alike. Server CPU per
# request is the node's utime + stime (from /proc/<pid>/stat) over the step, divided by the
# statements the load generator completed in it (warm-up included on both sides: the window is
# the whole `xrpc bench` run). The load generator (`xrpc bench`) runs on the other CPUs when
# there are at least two (bench/lib.sh's pinning). Results: a table on stdout, JSON lines in
# bench/results/binlog-cost.jsonl.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=3 DURATION=5 CONCURRENCY=64 WORKLOAD=select1
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --concurrency) CONCURRENCY=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown argument $1 (see --help)" ;;
    esac
done

ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BIN="${XRPC_BIN_DIR:-$ROOT/target/release}"
if [ -z "${XRPC_BIN_DIR:-}" ]; then
    bench_log "building release xrpc-server and xrpc"
    (cd "$ROOT" && cargo build --release -q -p xrpc-server -p xrpc-cli)
fi

DATA="$BENCH_RUN/binlog-cost"
rm -rf "$DATA" && mkdir -p "$DATA"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Started directly (not through a shell function) so that $! is the node's own pid: taskset execs.
"${BENCH_SERVER_PREFIX[@]}" "$BIN/xrpc-server" --listen "127.0.0.1:$PORT" --data-dir "$DATA" --log warn \
    --binlog-dir "$DATA/binlog" 2>"$DATA/server.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    "$BIN/xrpc" exec -P "$PORT" "select 1" >/dev/null 2>&1 && break
    sleep 0.1
done
TARGET="xrpc://127.0.0.1:$PORT"
if [ "$WORKLOAD" != select1 ]; then
    "$BIN/xrpc" bench prepare --target "$TARGET" >/dev/null
fi

# utime and stime, fields 14 and 15 of /proc/<pid>/stat, counted after the command name's ")".
cpu_ticks() { sed 's/.*) //' "/proc/$SERVER/stat" | awk '{print $12 + $13}'; }
TICKS=$(getconf CLK_TCK)
OUT="$BENCH_DIR/results/binlog-cost.jsonl"
: >"$OUT"

for round in $(seq "$ROUNDS"); do
    for config in "" "*" "*{h}"; do
        "$BIN/xrpc" exec -P "$PORT" "SET GLOBAL xrpc_binlog = '$config'" >/dev/null
        json="$DATA/step.json"
        before=$(cpu_ticks)
        "${BENCH_CLIENT_PREFIX[@]}" "$BIN/xrpc" bench --target "$TARGET" --workload "$WORKLOAD" \
            -c "$CONCURRENCY" -d "$DURATION" --warmup 1 --json "$json" >/dev/null 2>&1
        after=$(cpu_ticks)
        python3 - "$json" "$before" "$after" "$TICKS" "$round" "${config:-off}" "$DURATION" >>"$OUT" <<'EOF'
import json, sys
path, before, after, ticks, rnd, config, duration = sys.argv[1:]
doc = json.load(open(path))
steps = doc["results"]
step = steps[0]
seconds = float(duration) + 1.0  # measured window plus warm-up, as the CPU window spans both
requests = step["qps"] * seconds
cpu_us = (int(after) - int(before)) / int(ticks) * 1e6
print(json.dumps({
    "round": int(rnd), "binlog": config, "workload": step["workload"],
    "concurrency": step["concurrency"], "qps": round(step["qps"]),
    "p50_us": step["p50_us"], "p99_us": step["p99_us"],
    "server_cpu_us_per_request": round(cpu_us / requests, 2),
}))
EOF
        bench_log "round $round binlog='${config:-off}': $(tail -1 "$OUT")"
    done
done
written=$(du -sb "$DATA/binlog" 2>/dev/null | cut -f1)

COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$OUT" "${written:-0}" "$BENCH_DIR/results/binlog-cost.md" "$COMMIT" \
    "$ROUNDS" "$DURATION" "$CONCURRENCY" "$WORKLOAD" "$BENCH_SERVER_CPUSET" "$BENCH_CLIENT_CPUSET" <<'EOF'
import json, os, statistics, sys, time
out, written, md, commit, rounds, duration, conc, workload, scpu, ccpu = sys.argv[1:]
rows = [json.loads(l) for l in open(out)]
by = {}
for r in rows:
    by.setdefault(r["binlog"], []).append(r)
base = by["off"]
bq = statistics.median(r["qps"] for r in base)
bc = statistics.median(r["server_cpu_us_per_request"] for r in base)
table = ["| binlog | QPS (median) | × off | server CPU µs/request (median) | × off | p99 µs |",
         "|---|---:|---:|---:|---:|---:|"]
for name in ["off", "*", "*{h}"]:
    rs = by[name]
    q = statistics.median(r["qps"] for r in rs)
    c = statistics.median(r["server_cpu_us_per_request"] for r in rs)
    p = statistics.median(r["p99_us"] for r in rs)
    table.append(f"| `{name}` | {q:.0f} | {q / bq:.2f} | {c:.2f} | {c / bc:.2f} | {p:.0f} |")
print("\n".join(table))
print(f"binary log written: {int(written) / 1e6:.1f} MB")
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
section = f"""## Binary log cost

`bench/binlog-cost.sh --rounds {rounds} --duration {duration} --concurrency {conc} --workload {workload}`,
release build of commit `{commit}`, {os.cpu_count()} CPUs
({model}); node on CPU {scpu}, `xrpc bench` on CPU {ccpu}. One node serves every step; `SET GLOBAL xrpc_binlog`
switches the log between steps, interleaved off, `*`, `*{{h}}` in each of {rounds} rounds. Server CPU per request
is the node's utime + stime from `/proc/<pid>/stat` over the step divided by the statements completed (warm-up
included on both sides). {int(written) / 1e6:.0f} MB of log were written.

""" + "\n".join(table) + """

Each `select 1` logs about five entries (the request, metadata, a row, FetchDone, StmtExecuteOk), so the extra
server CPU per request is about five times the per-entry cost of the criterion benchmark. Logging headers only
(`{h}`) saves little: the cost is per entry (clock, entry, queue), not the payload copy.
"""
with open(md, "w") as f:
    f.write(section)
EOF
