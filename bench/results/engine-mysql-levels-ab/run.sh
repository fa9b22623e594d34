#!/usr/bin/env bash
# A/B of two node builds on the mysql engine, interleaved: `select 1` of sessions in the
# engine URL's database (the shared rotation) and of sessions whose database is another one
# (each statement needs the session's database on its connection).
set -euo pipefail
# Binaries: /tmp/ab-bin-base and /tmp/ab-bin-head (release builds of the two commits).
MDB=/tmp/ab-vars/mdb
rm -rf $MDB; mkdir -p $MDB
mariadb-install-db --no-defaults --datadir=$MDB/data --user=root > $MDB/install.log 2>&1
taskset -c 0 mariadbd --no-defaults --user=root --datadir=$MDB/data --socket=$MDB/sock --port=33998 \
  --skip-grant-tables --max-connections=2000 > $MDB/log 2>&1 &
MPID=$!
for i in $(seq 50); do mariadb -S $MDB/sock -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
mariadb -S $MDB/sock -e 'create database p; create database q'
trap 'kill $MPID 2>/dev/null; kill $NPID 2>/dev/null || true' EXIT
out=/tmp/ab-vars/results.txt; : > $out
for round in 1 2; do
  for build in base head; do
    bin=/tmp/ab-bin-$build
    rm -rf /tmp/ab-vars/data; mkdir -p /tmp/ab-vars/data
    taskset -c 0 $bin/xrpc-server --listen 127.0.0.1:33770 --data-dir /tmp/ab-vars/data --log warn \
      --engine mysql://root@127.0.0.1:33998/p > /tmp/ab-vars/node.log 2>&1 &
    NPID=$!
    for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/33770) 2>/dev/null && break; sleep 0.1; done
    for shape in same:p other:q; do
      name=${shape%%:*}; db=${shape#*:}
      echo "== round $round $build $name" >> $out
      taskset -c 1 $bin/xrpc bench --target "xrpc://127.0.0.1:33770/$db" --workload select1 \
        -c 8,256 -d 3 --warmup 1 --server-pid $NPID --also-server-pid $MPID >> $out 2>&1 || true
      mariadb -S $MDB/sock -N -e "show global status like 'Questions'" >> $out
    done
    kill $NPID; wait $NPID 2>/dev/null || true
  done
done
cat $out
