#!/usr/bin/env bash
# A/B of two node builds on the mysql engine, interleaved (base, head, head, base): `select 1`
# and point select (sbtest1, 1000 rows) at 8 and 1024 clients, node and MariaDB on CPU 0, the
# load generator on CPU 1. Binaries: /tmp/ab-bin-base and /tmp/ab-bin-head (release builds).
set -euo pipefail
MDB=/tmp/ab-one-path/mdb
rm -rf /tmp/ab-one-path; mkdir -p $MDB
mariadb-install-db --no-defaults --datadir=$MDB/data --user=root > $MDB/install.log 2>&1
taskset -c 0 mariadbd --no-defaults --user=root --datadir=$MDB/data --socket=$MDB/sock --port=33998 \
  --skip-grant-tables --max-connections=2000 > $MDB/log 2>&1 &
MPID=$!
NPID=""
trap 'kill $MPID 2>/dev/null; [ -n "$NPID" ] && kill $NPID 2>/dev/null || true' EXIT
for i in $(seq 50); do mariadb -S $MDB/sock -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
mariadb -S $MDB/sock -e 'create database sbtest'
out=/tmp/ab-one-path/results.txt; : > $out
prepared=""
for build in base head head base; do
  bin=/tmp/ab-bin-$build
  rm -rf /tmp/ab-one-path/data; mkdir -p /tmp/ab-one-path/data
  taskset -c 0 $bin/xrpc-server --listen 127.0.0.1:33770 --data-dir /tmp/ab-one-path/data --log warn \
    --engine mysql://root@127.0.0.1:33998/sbtest --backend-pool-size 8 > /tmp/ab-one-path/node.log 2>&1 &
  NPID=$!
  for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/33770) 2>/dev/null && break; sleep 0.1; done
  if [ -z "$prepared" ]; then
    $bin/xrpc bench prepare --target xrpc://root@127.0.0.1:33770 --table-size 1000 >> $out 2>&1
    prepared=1
  fi
  for workload in select1 point-select; do
    echo "== $build $workload" >> $out
    taskset -c 1 $bin/xrpc bench --target xrpc://root@127.0.0.1:33770 --workload $workload \
      -c 8,1024 -d 4 --warmup 1 --server-pid $NPID --also-server-pid $MPID >> $out 2>&1 || true
  done
  kill $NPID; wait $NPID 2>/dev/null || true
  NPID=""
done
cat $out
