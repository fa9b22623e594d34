#!/usr/bin/env python3
"""The report of bench/engine-mysql.sh: its JSON lines in, a Markdown section out (standard library).

    bench/engine_mysql_report.py bench/results/engine-mysql.jsonl --out bench/results/engine-mysql.md

Figures are medians over the rounds; ratios (xrpc ÷ the best direct MariaDB mode, point-get ÷
point-select) are computed within each round (same minutes of a shared machine) and their median
is reported with [min–max] when there are several rounds. The targets (the article's table on the
`mysql` engine, plan push-down against SQL) are checked against those medians and reported met or
NOT met. The explanations written by hand live in bench/analysis/engine-mysql.md, which
bench/report.py puts after this section.
"""

import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

DIRECT = ["mariadb-one-thread-per-connection", "mariadb-pool-of-threads"]
LABELS = {
    "mariadb-one-thread-per-connection": "MariaDB one-thread-per-connection",
    "mariadb-pool-of-threads": "MariaDB pool-of-threads",
    "mariadb-one-thread-per-connection-sysbench": "one-thread-per-connection (sysbench)",
    "mariadb-pool-of-threads-sysbench": "pool-of-threads (sysbench)",
    "xrpc-mysql": "xrpc → MariaDB",
    "xrpc-sqlite": "xrpc (SQLite)",
}
WORKLOADS = {"select1": "`select 1`", "point-select": "point select"}


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    if len(values) == 1:
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def qps(v):
    if v is None:
        return "–"
    return f"{v / 1000:.1f}k" if v >= 10000 else f"{v:.0f}"


def us(v):
    if v is None:
        return "–"
    if v >= 10000:
        return f"{v / 1000:.0f} ms"
    if v >= 1000:
        return f"{v / 1000:.1f} ms"
    return f"{v:.0f} µs"


def ratio(v):
    return "–" if v is None else f"{v:.2f}"


def cpu(v):
    return "–" if v is None else f"{v:.1f}"


def status(ok):
    return "not measured" if ok is None else ("**met**" if ok else "**NOT met**")


def split_table(w, cell, workload, concs):
    """Server CPU through xrpc split into the node's and MariaDB's, beside MariaDB's direct
    (one-thread-per-connection, the instance xrpc fronts), with the paths the node's statements
    took and the driver's pipeline depths. Returns MariaDB's CPU through xrpc ÷ direct per
    concurrency, one ratio per round."""
    xrows = {c: cell[("table", workload, c, "xrpc-mysql")] for c in concs}
    if not any(r.get("node_cpu_us_per_request") is not None for rs in xrows.values() for r in rs.values()):
        return {}
    w("Server CPU per statement through xrpc, split, beside MariaDB's direct; of the statements the node "
      "sent MariaDB (`xrpc_backend_statements`, the steps' warm-up included), those its event-loop driver "
      "placed; the driver's pipeline depths (the depth each statement found its backend connection at, "
      "itself included):")
    w("")
    w("| clients | node µs | MariaDB through xrpc µs | MariaDB direct µs | MariaDB through ÷ direct | "
      "statements on the driver / all | mean pipeline depth |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    ratios = {}
    for c in concs:
        rs = xrows[c]
        direct = cell[("table", workload, c, "mariadb-one-thread-per-connection")]
        node = med([r.get("node_cpu_us_per_request") for r in rs.values()])
        through = {rnd: r["server_cpu_us_per_request"] - r["node_cpu_us_per_request"] for rnd, r in rs.items()
                   if r.get("server_cpu_us_per_request") is not None and r.get("node_cpu_us_per_request") is not None}
        ratios[c] = [through[rnd] / direct[rnd]["server_cpu_us_per_request"] for rnd in through
                     if direct.get(rnd) and direct[rnd].get("server_cpu_us_per_request")]
        driven = sum(r.get("driver_statements") or 0 for r in rs.values())
        every = sum(r.get("backend_statements") or 0 for r in rs.values())
        w(f"| {c} | {cpu(node)} | {cpu(med(list(through.values())))} | "
          f"{cpu(med([r.get('server_cpu_us_per_request') for r in direct.values()]))} | "
          f"{spread(ratios[c], ratio)} | {driven} / {every} | {mean_depth(rs.values())} |")
    w("")
    return ratios


def mean_depth(rows):
    """The mean of the driver's depth buckets (each bucket at its upper bound, `over_64` at 65):
    an upper estimate."""
    total = count = 0
    for r in rows:
        for bucket, n in (r.get("pipeline_depths") or {}).items():
            bound = 65 if bucket.startswith("over_") else int(bucket)
            total += bound * n
            count += n
    return "–" if not count else f"≤ {total / count:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    lines = [json.loads(line) for line in open(a.jsonl) if line.strip()]
    run = next((x for x in lines if x.get("meta") == "run"), {})
    end = next((x for x in lines if x.get("meta") == "end"), {})
    rows = [x for x in lines if "meta" not in x and not x.get("failed")]
    failed = [x for x in lines if x.get("failed")]
    # cell[(part, workload, conc, target)][round] = row
    cell = defaultdict(dict)
    for r in rows:
        cell[(r["part"], r["workload"], r["concurrency"], r["target"])][r["round"]] = r

    L = []
    w = L.append
    targets = []
    w("## The `mysql` engine: the article's table on one MariaDB")
    w("")
    w(f"`bench/engine-mysql.sh --{run.get('suite')}`, "
      f"{run.get('rounds')} round(s) of {run.get('duration_s')} s steps after {run.get('warmup_s')} s warm-up, "
      f"commit `{run.get('commit')}`, backend {run.get('engine_version')}. Servers on CPU {run.get('server_cpus')} "
      f"(MariaDB and xrpc-server share it), load generators on CPU {run.get('client_cpus')}. Load average at the "
      f"start {run.get('loadavg')}, at the end {end.get('loadavg')}; each step's is in the results file.")
    w("")
    w("The same MariaDB reached directly (one connection and one thread per client, both `thread_handling` "
      "modes) and through `xrpc-server --engine mysql://…` in front of the one-thread-per-connection instance "
      f"(`xrpc bench`'s sessions over 4 TCP connections; the node's backend connections, at most "
      f"{run.get('pool_size')}, `xrpc_backend_driver_connections` of them opened at the start, 8 by default). **Server CPU** is µs of CPU (utime + stime from `/proc/<pid>/stat`) per completed "
      "statement over the measured window: MariaDB's for a direct target, MariaDB's plus xrpc-server's through "
      "xrpc. **Backend connections** are the node's after the step (`xrpc_backend_connections`; connections "
      "opened during the step in brackets when any). Ratios are xrpc ÷ the best direct mode under the same load generator, "
      "taken per round.")
    w("")
    for workload, title in WORKLOADS.items():
        concs = sorted({k[2] for k in cell if k[0] == "table" and k[1] == workload})
        if not concs:
            continue
        cols = ["mariadb-one-thread-per-connection", "mariadb-pool-of-threads", "xrpc-mysql"]
        if workload == "point-select":
            cols += ["mariadb-one-thread-per-connection-sysbench", "mariadb-pool-of-threads-sysbench"]
        w(f"### {title}")
        w("")
        w("| clients | " + " | ".join(f"{LABELS[c]} QPS" for c in cols) +
          " | xrpc ÷ best direct | p99 xrpc ÷ best direct | backend connections |")
        w("|---:|" + "---:|" * len(cols) + "---:|---:|---:|")
        per_conc = {}
        for c in concs:
            qcells = [spread([r["qps"] for r in cell[("table", workload, c, t)].values()], qps) for t in cols]
            qr, pr = [], []
            for rnd, x in cell[("table", workload, c, "xrpc-mysql")].items():
                best = max((cell[("table", workload, c, d)].get(rnd) for d in DIRECT
                            if cell[("table", workload, c, d)].get(rnd)), key=lambda r: r["qps"], default=None)
                if best and best["qps"]:
                    qr.append(x["qps"] / best["qps"])
                    if best.get("p99_us"):
                        pr.append(x["p99_us"] / best["p99_us"])
            per_conc[c] = (qr, pr)
            xs = list(cell[("table", workload, c, "xrpc-mysql")].values())
            opened = sum(x.get("backend_connects") or 0 for x in xs)
            backend = "–" if not xs else (
                f"{max(x.get('driver_connections') or 0 for x in xs)}" + (f" (+{opened})" if opened else ""))
            w(f"| {c} | " + " | ".join(qcells) + f" | {spread(qr, ratio)} | {spread(pr, ratio)} | {backend} |")
        w("")
        w("p50 / p99, and server CPU µs per statement (median over rounds):")
        w("")
        w("| clients | " + " | ".join(LABELS[c] for c in cols) + " |")
        w("|---:|" + "---|" * len(cols))
        for c in concs:
            cells = []
            for t in cols:
                rs = list(cell[("table", workload, c, t)].values())
                if not rs:
                    cells.append("–")
                    continue
                errs = sum((r.get("errors") or 0) for r in rs)
                lost = sum((r.get("lost_clients") or 0) for r in rs)
                tail = (f"; {errs} errors" if errs else "") + (f", {lost} lost" if lost else "")
                cells.append(f"{us(med([r.get('p50_us') for r in rs]))} / {us(med([r.get('p99_us') for r in rs]))}; "
                             f"{cpu(med([r.get('server_cpu_us_per_request') for r in rs]))} µs{tail}")
            w(f"| {c} | " + " | ".join(cells) + " |")
        w("")
        mariadb_ratio = split_table(w, cell, workload, concs)
        for c, floor in ((8, 1.0), (1024, 2.0), (4096, 2.0)):
            if c in per_conc and not (workload == "point-select" and c == 1024):
                qr, _ = per_conc[c]
                targets.append((f"{title} at {c}: xrpc ≥ {floor:g}× the best direct mode's QPS",
                                f"{spread(qr, ratio)}×", None if not qr else med(qr) >= floor))
        if 4096 in per_conc:
            _, pr = per_conc[4096]
            targets.append((f"{title} at 4096: xrpc's p99 ≤ the best direct mode's", f"{spread(pr, ratio)}×",
                            None if not pr else med(pr) <= 1))
        if 1024 in concs:
            node = med([r.get("node_cpu_us_per_request") for r in cell[("table", workload, 1024, "xrpc-mysql")].values()])
            targets.append((f"{title} at 1024: the node's CPU per statement ≤ 5 µs", f"{cpu(node)} µs",
                            None if node is None else node <= 5))
            targets.append((f"{title} at 1024: MariaDB's CPU per statement through xrpc ≤ 0.6× direct",
                            f"{spread(mariadb_ratio.get(1024, []), ratio)}×",
                            None if not mariadb_ratio.get(1024) else med(mariadb_ratio[1024]) <= 0.6))

    plan_concs = sorted({k[2] for k in cell if k[0] == "plans"})
    if plan_concs:
        w("### Plan push-down: point-get against point select")
        w("")
        w("`xrpc bench --workload point-get` (a GET plan on `sbtest1`'s primary key with the id as placeholder, "
          "projected to `c`, through EXEC_PLAN_READ) against `--workload point-select` (`SELECT c FROM sbtest1 "
          "WHERE id=?` with the id as argument, through EXEC_SQL), interleaved, on each engine. Server CPU is "
          "xrpc-server's (SQLite) or xrpc-server's plus MariaDB's (mysql engine), µs per request.")
        w("")
        w("| engine | clients | point select QPS | point-get QPS | get ÷ select | CPU µs/req select | CPU µs/req get | "
          "CPU get ÷ select | p99 select / get |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for engine in ["xrpc-sqlite", "xrpc-mysql"]:
            for c in plan_concs:
                sel = cell[("plans", "point-select", c, engine)]
                get = cell[("plans", "point-get", c, engine)]
                if not sel and not get:
                    continue
                qr = [get[r]["qps"] / sel[r]["qps"] for r in get if r in sel and sel[r]["qps"]]
                cr = [get[r]["server_cpu_us_per_request"] / sel[r]["server_cpu_us_per_request"]
                      for r in get if r in sel and sel[r].get("server_cpu_us_per_request")
                      and get[r].get("server_cpu_us_per_request") is not None]
                w(f"| {LABELS[engine]} | {c} | {spread([r['qps'] for r in sel.values()], qps)} | "
                  f"{spread([r['qps'] for r in get.values()], qps)} | {spread(qr, ratio)} | "
                  f"{cpu(med([r.get('server_cpu_us_per_request') for r in sel.values()]))} | "
                  f"{cpu(med([r.get('server_cpu_us_per_request') for r in get.values()]))} | {spread(cr, ratio)} | "
                  f"{us(med([r.get('p99_us') for r in sel.values()]))} / {us(med([r.get('p99_us') for r in get.values()]))} |")
                if qr:
                    targets.append((f"point-get ≥ 1.1× point select, {LABELS[engine]}, {c} clients",
                                    f"{spread(qr, ratio)}× (CPU per request {spread(cr, ratio)}×)", med(qr) >= 1.1))
        w("")

    if targets:
        w("### Targets")
        w("")
        w("| target | measured | status |")
        w("|---|---|---|")
        for text, measured, ok in targets:
            w(f"| {text} | {measured} | {status(ok)} |")
        w("")
    if failed:
        w("Failed steps: " + ", ".join(f"{x['target']} {x['workload']} c={x['concurrency']} (round {x['round']})"
                                       for x in failed) + ".")
        w("")
    with open(a.out, "w") as f:
        f.write("\n".join(L).rstrip() + "\n")
    missed = sum(1 for _, _, ok in targets if ok is False)
    sys.stderr.write(f"engine-mysql report: {a.out}: {len(rows)} steps, {len(targets)} targets, {missed} not met\n")


if __name__ == "__main__":
    main()
