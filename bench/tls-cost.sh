#!/usr/bin/env bash
# What TLS costs a node under load: QPS and server CPU per request for the same workload over
# plain TCP and over TLS, at a few client counts, in one run.
#
#   bench/tls-cost.sh [--rounds N] [--duration S] [--concurrency C1,C2,…] [--workload W]
#
# One release node, started with a certificate made here by openssl (a P-256 authority and a node
# certificate for IP 127.0.0.1), serves every step; plain and TLS clients reach the same port
# (require_secure_transport stays OFF). Steps are interleaved (plain, TLS at each client count,
# then the next round) so that a change in the machine's load touches both alike. Server CPU per
# request is the node's utime + stime (from /proc/<pid>/stat) over the step, divided by the
# statements the load generator completed in it (warm-up included on both sides: the window is
# the whole `xrpc bench` run, whose 4 connections' TLS handshakes are in it too). The node runs
# on one CPU and `xrpc bench` on the others (bench/lib.sh's pinning). Results: a table on
# stdout, JSON lines in bench/results/tls-cost.jsonl, a section in bench/results/tls-cost.md that
# bench/report.py puts into docs/BENCHMARKS.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=3 DURATION=4 CONCURRENCY=1,16,64 WORKLOAD=select1
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --concurrency) CONCURRENCY=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown argument $1 (see --help)" ;;
    esac
done
command -v openssl >/dev/null || bench_die "openssl is needed to make the certificates (apt-get install openssl)"

ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BIN="${XRPC_BIN_DIR:-$ROOT/target/release}"
if [ -z "${XRPC_BIN_DIR:-}" ]; then
    bench_log "building release xrpc-server and xrpc"
    (cd "$ROOT" && cargo build --release -q -p xrpc-server -p xrpc-cli)
fi

DATA="$BENCH_RUN/tls-cost"
rm -rf "$DATA" && mkdir -p "$DATA/pki"
PKI="$DATA/pki"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=xrpc-bench-ca \
    -keyout "$PKI/ca.key" -out "$PKI/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=xrpc-bench-node \
    -keyout "$PKI/node.key" -out "$PKI/node.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$PKI/ext"
openssl x509 -req -in "$PKI/node.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" -CAcreateserial -days 2 \
    -extfile "$PKI/ext" -out "$PKI/node.pem" 2>/dev/null

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Started directly (not through a shell function) so that $! is the node's own pid: taskset execs.
"${BENCH_SERVER_PREFIX[@]}" "$BIN/xrpc-server" --listen "127.0.0.1:$PORT" --data-dir "$DATA/data" --log warn \
    --tls-cert "$PKI/node.pem" --tls-key "$PKI/node.key" 2>"$DATA/server.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    "$BIN/xrpc" exec -P "$PORT" --tls-ca "$PKI/ca.pem" "select 1" >/dev/null 2>&1 && break
    sleep 0.1
done
"$BIN/xrpc" exec -P "$PORT" --tls-ca "$PKI/ca.pem" "select 1" >/dev/null ||
    bench_die "the node does not answer over TLS; see $DATA/server.log"
TARGET="xrpc://127.0.0.1:$PORT"
if [ "$WORKLOAD" != select1 ]; then
    "$BIN/xrpc" bench prepare --target "$TARGET" >/dev/null
fi

# utime and stime, fields 14 and 15 of /proc/<pid>/stat, counted after the command name's ")".
cpu_ticks() { sed 's/.*) //' "/proc/$SERVER/stat" | awk '{print $12 + $13}'; }
TICKS=$(getconf CLK_TCK)
OUT="$BENCH_DIR/results/tls-cost.jsonl"
: >"$OUT"

IFS=, read -ra COUNTS <<<"$CONCURRENCY"
for round in $(seq "$ROUNDS"); do
    for clients in "${COUNTS[@]}"; do
        for transport in plain tls; do
            tls_flags=()
            [ "$transport" = tls ] && tls_flags=(--tls-ca "$PKI/ca.pem")
            json="$DATA/step.json"
            load=$(cut -d' ' -f1 /proc/loadavg)
            before=$(cpu_ticks)
            "${BENCH_CLIENT_PREFIX[@]}" "$BIN/xrpc" bench --target "$TARGET" "${tls_flags[@]}" \
                --workload "$WORKLOAD" -c "$clients" -d "$DURATION" --warmup 1 --json "$json" >/dev/null 2>&1
            after=$(cpu_ticks)
            python3 - "$json" "$before" "$after" "$TICKS" "$round" "$transport" "$DURATION" "$load" >>"$OUT" <<'EOF'
import json, sys
path, before, after, ticks, rnd, transport, duration, load = sys.argv[1:]
step = json.load(open(path))["results"][0]
seconds = float(duration) + 1.0  # measured window plus warm-up, as the CPU window spans both
requests = step["qps"] * seconds
cpu_us = (int(after) - int(before)) / int(ticks) * 1e6
print(json.dumps({
    "round": int(rnd), "transport": transport, "workload": step["workload"],
    "concurrency": step["concurrency"], "qps": round(step["qps"]), "errors": step["errors"],
    "p50_us": step["p50_us"], "p99_us": step["p99_us"],
    "server_cpu_us_per_request": round(cpu_us / requests, 2), "loadavg_1m": float(load),
}))
EOF
            bench_log "round $round c=$clients $transport: $(tail -1 "$OUT")"
        done
    done
done

COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$OUT" "$BENCH_DIR/results/tls-cost.md" "$COMMIT" "$ROUNDS" "$DURATION" "$CONCURRENCY" \
    "$WORKLOAD" "$BENCH_SERVER_CPUSET" "$BENCH_CLIENT_CPUSET" <<'EOF'
import json, os, statistics, sys, time
out, md, commit, rounds, duration, conc, workload, scpu, ccpu = sys.argv[1:]
rows = [json.loads(l) for l in open(out)]
med = lambda rs, k: statistics.median(r[k] for r in rs)
table = ["| clients | plain QPS | TLS QPS | TLS × plain | plain server CPU µs/request | TLS server CPU µs/request | TLS × plain | plain p99 µs | TLS p99 µs | load avg |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for c in [int(x) for x in conc.split(",")]:
    plain = [r for r in rows if r["concurrency"] == c and r["transport"] == "plain"]
    tls = [r for r in rows if r["concurrency"] == c and r["transport"] == "tls"]
    if not plain or not tls:
        continue
    pq, tq = med(plain, "qps"), med(tls, "qps")
    pc, tc = med(plain, "server_cpu_us_per_request"), med(tls, "server_cpu_us_per_request")
    loads = [r["loadavg_1m"] for r in plain + tls]
    table.append(f"| {c} | {pq:.0f} | {tq:.0f} | {tq / pq:.2f} | {pc:.1f} | {tc:.1f} | {tc / pc:.2f} | "
                 f"{med(plain, 'p99_us'):.0f} | {med(tls, 'p99_us'):.0f} | {min(loads):.1f}–{max(loads):.1f} |")
errors = sum(r["errors"] for r in rows)
print("\n".join(table))
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
section = f"""## TLS cost

`bench/tls-cost.sh --rounds {rounds} --duration {duration} --concurrency {conc} --workload {workload}`,
release build of commit `{commit}`, {os.cpu_count()} CPUs
({model}); node on CPU {scpu}, `xrpc bench` (4 connections, sessions multiplexed) on CPU {ccpu}. One node with a
P-256 certificate serves plain and TLS clients on the same port; the steps alternate plain and TLS at each client
count in each of {rounds} rounds, and the table gives medians. Server CPU per request is the node's utime + stime from
`/proc/<pid>/stat` over the step divided by the statements completed (warm-up and the 4 handshakes included).
The load average (1 min, at each step's start) is the machine's, which other work shares; {errors} errors in all.

""" + "\n".join(table) + "\n"
with open(md, "w") as f:
    f.write(section)
EOF
