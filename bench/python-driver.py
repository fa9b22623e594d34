#!/usr/bin/env python3
"""The Python driver next to PyMySQL: select 1 and a point select from one Python process.

    bench/python-driver.py [--seconds 3] [--concurrency 1,64,1024] [--out FILE]

Starts a release xrpc-server (SQLite engine; `XRPC_SERVER_BIN`, else target/release) and a
private MariaDB (as the pytest suite does, on free loopback ports in temporary directories),
loads a 10 000-row sbtest-style table into both, and then, for each workload and concurrency,
runs for a fixed time:

- `xrpc threads`: the DB-API module, one thread and connection (session) per client;
- `xrpc asyncio`: `xrpc.aio`, one task and connection (session) per client;
- `pymysql threads`: PyMySQL against MariaDB directly, one thread and MySQL connection per client.

It reports QPS and the client process's CPU time per request (user + system over the window,
all threads), one JSON object per line on stdout and, with `--out`, in a file. Needs the `xrpc`
package (release build: `pip install ./python`) and `pymysql` in the running Python.
"""

import argparse
import asyncio
import json
import os
import platform
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pymysql

import xrpc
import xrpc.aio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "tests"))
import conftest  # noqa: E402  - the suite's node and MariaDB starters

ROWS = 10_000
WORKLOADS = {
    "select1": ("SELECT 1", lambda i: None),
    "point-select": ("SELECT c FROM sbtest1 WHERE id = ?", lambda i: (i % ROWS + 1,)),
}


def cpu():
    t = os.times()
    return t.user + t.system


def load(cursor, placeholder):
    cursor.execute("DROP TABLE IF EXISTS sbtest1")
    cursor.execute(
        "CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, "
        "c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL)"
    )
    sql = f"INSERT INTO sbtest1 VALUES ({', '.join([placeholder] * 4)})"
    batch = [(i, i * 7 % ROWS, f"{i:0120d}", f"{i:060d}") for i in range(1, ROWS + 1)]
    cursor.executemany(sql, batch)


def run_threads(connect, sql, params, placeholder_sql, clients, seconds):
    sql = placeholder_sql(sql)
    conns = [connect() for _ in range(clients)]
    counts = [0] * clients
    stop = threading.Event()
    start = threading.Barrier(clients + 1)

    def work(n):
        cur = conns[n].cursor()
        i = n
        start.wait()
        while not stop.is_set():
            cur.execute(sql, params(i))
            cur.fetchall()
            counts[n] += 1
            i += clients

    threads = [threading.Thread(target=work, args=(n,), daemon=True) for n in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    began, cpu0 = time.perf_counter(), cpu()
    time.sleep(seconds)
    total = sum(counts)
    elapsed, used = time.perf_counter() - began, cpu() - cpu0
    stop.set()
    for t in threads:
        t.join()
    for c in conns:
        c.close()
    return total, elapsed, used


def run_asyncio(kwargs, sql, params, clients, seconds):
    async def main():
        conns = [await xrpc.aio.connect(**kwargs, autocommit=True) for _ in range(clients)]
        counts = [0] * clients
        stop = asyncio.Event()
        ready = 0
        go = asyncio.Event()

        async def work(n):
            nonlocal ready
            cur = conns[n].cursor()
            i = n
            ready += 1
            if ready == clients:
                go.set()
            await go.wait()
            while not stop.is_set():
                await cur.execute(sql, params(i))
                await cur.fetchall()
                counts[n] += 1
                i += clients

        tasks = [asyncio.create_task(work(n)) for n in range(clients)]
        await go.wait()
        began, cpu0 = time.perf_counter(), cpu()
        await asyncio.sleep(seconds)
        total = sum(counts)
        elapsed, used = time.perf_counter() - began, cpu() - cpu0
        stop.set()
        await asyncio.gather(*tasks)
        for c in conns:
            await c.close()
        return total, elapsed, used

    return asyncio.run(main())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", default="1,64,1024")
    parser.add_argument("--out")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]

    if "XRPC_SERVER_BIN" not in os.environ:
        target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
        os.environ["XRPC_SERVER_BIN"] = str(target / "release" / "xrpc-server")
    node = conftest.Node(settings="max_connections = 4096")
    mariadb = conftest.MariaDb(extra=("--max-connections=2000",))
    try:
        xrpc_kwargs = node.kwargs()
        with xrpc.connect(**xrpc_kwargs, autocommit=True) as conn:
            load(conn.cursor(), "?")
        my_kwargs = dict(host="127.0.0.1", port=mariadb.port, user=conftest.MARIADB_USER,
                         password=conftest.MARIADB_USER, database=conftest.MARIADB_DATABASE,
                         autocommit=True)
        with pymysql.connect(**my_kwargs) as conn:
            load(conn.cursor(), "%s")

        meta = {
            "when": datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "seconds": args.seconds,
        }
        out = open(args.out, "w") if args.out else None
        for workload, (sql, params) in WORKLOADS.items():
            for clients in levels:
                runs = {
                    "xrpc threads": lambda: run_threads(
                        lambda: xrpc.connect(**xrpc_kwargs, autocommit=True), sql, params,
                        lambda s: s, clients, args.seconds),
                    "xrpc asyncio": lambda: run_asyncio(xrpc_kwargs, sql, params, clients,
                                                        args.seconds),
                    "pymysql threads": lambda: run_threads(
                        lambda: pymysql.connect(**my_kwargs), sql, params,
                        lambda s: s.replace("?", "%s"), clients, args.seconds),
                }
                for client, run in runs.items():
                    total, elapsed, used = run()
                    line = dict(meta, workload=workload, client=client, concurrency=clients,
                                requests=total, qps=round(total / elapsed, 1),
                                client_cpu_us_per_request=round(used / max(total, 1) * 1e6, 1))
                    print(json.dumps(line), flush=True)
                    if out:
                        out.write(json.dumps(line) + "\n")
                        out.flush()
    finally:
        node.stop()
        mariadb.stop()


if __name__ == "__main__":
    main()
