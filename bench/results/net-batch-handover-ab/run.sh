#!/usr/bin/env bash
# A/B of two node builds on the embedded engine, interleaved: `select 1` at 8 and 1024
# sessions, node on CPU 0, load generator on CPU 1; server CPU per request from --server-pid.
# Binaries: /tmp/ab-bin-base and /tmp/ab-bin-head (release builds of the two commits).
set -euo pipefail
out=${1:-/tmp/ab-net/results.txt}; mkdir -p "$(dirname "$out")"; : > "$out"
trap 'kill $NPID 2>/dev/null || true' EXIT
for round in 1 2 3; do
  for build in base head; do
    bin=/tmp/ab-bin-$build
    rm -rf /tmp/ab-net/data; mkdir -p /tmp/ab-net/data
    taskset -c 0 $bin/xrpc-server --listen 127.0.0.1:33771 --data-dir /tmp/ab-net/data --log warn \
      > /tmp/ab-net/node.log 2>&1 &
    NPID=$!
    for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/33771) 2>/dev/null && break; sleep 0.1; done
    echo "== round $round $build" >> "$out"
    taskset -c 1 $bin/xrpc bench --target "xrpc://127.0.0.1:33771" --workload select1 \
      -c 8,1024 -d 3 --warmup 1 --server-pid $NPID >> "$out" 2>&1 || true
    kill $NPID; wait $NPID 2>/dev/null || true
  done
done
cat "$out"
