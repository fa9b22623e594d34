#!/usr/bin/env bash
# A/B of two node builds on the mysql engine, interleaved (base, head, head, base, base, head):
# `select 1` and point select (sbtest1, 1000 rows) at 8 and 1024 clients, 4 s steps, node and
# MariaDB on CPU 0, the load generator on CPU 1. Binaries: /tmp/ab-bin-base and /tmp/ab-bin-head
# (release builds). Each line: the node's own CPU per statement (`server_own_cpu_us_per_request`),
# the node's and MariaDB's together, and the generator's.
#
# Allocations per statement (the `mallocs/stmt` lines of results.txt) were counted with a perf
# uprobe on glibc's malloc in the node over 3 s of the same load at 1024 clients, divided by the
# change of `xrpc_backend_statements` over those 3 s:
#   perf probe -x /lib/x86_64-linux-gnu/libc.so.6 malloc
#   perf stat -e probe_libc:malloc -p <node pid> -- sleep 3
set -euo pipefail
W=/tmp/ab-allocs
MDB=$W/mdb
rm -rf $W; mkdir -p $MDB
mariadb-install-db --no-defaults --datadir=$MDB/data --user=root > $MDB/install.log 2>&1
taskset -c 0 mariadbd --no-defaults --user=root --datadir=$MDB/data --socket=$MDB/sock --port=33998 \
  --skip-grant-tables --max-connections=2000 > $MDB/log 2>&1 &
MPID=$!
NPID=""
trap 'kill $MPID 2>/dev/null; [ -n "$NPID" ] && kill $NPID 2>/dev/null || true' EXIT
for _ in $(seq 50); do mariadb -S $MDB/sock -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
mariadb -S $MDB/sock -e 'create database sbtest'
prepared=""
for build in base head head base base head; do
  bin=/tmp/ab-bin-$build
  rm -rf $W/data; mkdir -p $W/data
  taskset -c 0 $bin/xrpc-server --listen 127.0.0.1:33770 --data-dir $W/data --log warn \
    --engine mysql://root@127.0.0.1:33998/sbtest --backend-pool-size 8 > $W/node.log 2>&1 &
  NPID=$!
  for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/33770) 2>/dev/null && break; sleep 0.1; done
  if [ -z "$prepared" ]; then
    $bin/xrpc bench prepare --target xrpc://root@127.0.0.1:33770 --table-size 1000 > /dev/null
    prepared=1
  fi
  for workload in select1 point-select; do
    taskset -c 1 $bin/xrpc bench --target xrpc://root@127.0.0.1:33770 --workload $workload \
      -c 8,1024 -d 4 --warmup 1 --server-pid $NPID --also-server-pid $MPID --json $W/out.json \
      > /dev/null 2>&1 || true
    python3 - "$build" "$workload" "$W/out.json" <<'PY'
import json, sys
build, workload, path = sys.argv[1:]
for m in json.load(open(path))["measurements"]:
    print(f"{build:5} {workload:13} c={m['concurrency']:5} qps={m['qps']:8.0f} "
          f"node={m.get('server_own_cpu_us_per_request') or 0:6.2f} "
          f"total={m.get('server_cpu_us_per_request') or 0:6.2f} "
          f"gen={m.get('client_cpu_us_per_request') or 0:5.2f}")
PY
  done
  kill $NPID; wait $NPID 2>/dev/null || true
  NPID=""
done
