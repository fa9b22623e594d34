#!/usr/bin/env python3
"""JSON functions and output parsers for the bench/ scripts (standard library only).

    benchjson.py json key=value ... [key:=RAW_JSON ...]
        one JSON object; a value that parses as a number becomes a number
    benchjson.py merge key=value ... < line.json
        adds fields to a JSON object read from stdin (existing keys are overwritten)
    benchjson.py check FILE [TARGET ...]
        checks every measurement line of FILE (schema fields present, qps > 0) and that each
        TARGET (a target name, or WORKLOAD:TARGET) has at least one; prints a summary table to stderr; exits 1 on a failure
    benchjson.py sysbench|sockperf|redis key=value ... < tool-output
        parses the tool's text output into one measurement line; key=value pairs are the
        fields the output does not carry (workload, target, concurrency, connections, ...)
    benchjson.py echobench key=value ... < echo-bench.json
        one measurement line per server of crates/xrpc-net's `echo-bench --json` (targets xrpc,
        raw-epoll, tokio; concurrency = conns x inflight)
    benchjson.py xrpcbench [port:PORT=TARGET ...] key=value ... < xrpc-bench.json
        one measurement line per step of `xrpc bench --json`; xrpc:// targets become "xrpc",
        mysql:// targets on PORT become TARGET (e.g. port:13306=mariadb-pool-of-threads)
    benchjson.py assemble LINES.jsonl > results.json
        folds the meta lines into one "meta" object and the measurement lines into
        "measurements": the shape of bench/results/*.json

Every measurement line has at least: workload, target, concurrency, connections, qps,
p50_us, p99_us, p999_us, errors (latencies in microseconds; a percentile the tool cannot give
is null).
"""

import json
import re
import sys

SCHEMA = ["workload", "target", "concurrency", "connections", "qps", "p50_us", "p99_us", "p999_us", "errors"]


def typed(v):
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", v):
        return float(v)
    return v


# Fields that stay strings even when they look like numbers.
STRING_KEYS = {"server_cpus", "client_cpus", "version", "package", "cmd", "server_cmd", "mode", "kernel", "target"}


def kv(args):
    out = {}
    for a in args:
        if ":=" in a and a.index(":=") + 1 == a.index("="):
            k, v = a.split(":=", 1)
            out[k] = json.loads(v)
        else:
            k, _, v = a.partition("=")
            out[k] = v if k in STRING_KEYS else typed(v)
    return out


def server_cpu(obj):
    """Server CPU per request from a peer script's server_cpu_s over server_window_s (lib.sh's
    bench_server_cpu_end): the server's cores busy over the load generator's run, divided by
    its QPS. Lines that carry the figure already (xrpc bench's) are left alone."""
    if obj.get("server_cpu_us_per_request") is None and obj.get("server_cpu_s") is not None \
            and obj.get("server_window_s") and obj.get("qps"):
        cores = obj["server_cpu_s"] / obj["server_window_s"]
        obj["server_cores"] = round(cores, 3)
        obj["server_cpu_us_per_request"] = round(cores / obj["qps"] * 1e6, 2)


def emit(obj):
    """Measurement lines get the schema fields first, in order."""
    if "workload" in obj:
        server_cpu(obj)
        ordered = {k: obj.get(k) for k in SCHEMA}
        ordered.update({k: v for k, v in obj.items() if k not in ordered})
        obj = ordered
    print(json.dumps(obj, separators=(",", ":")))


def r1(x):
    return None if x is None else round(float(x), 1)


def fail(msg, text):
    sys.stderr.write(f"benchjson: {msg}\n--- output was ---\n{text[-3000:]}\n")
    sys.exit(1)


def parse_sysbench(text):
    """sysbench 1.0 `run` output with --histogram=on."""
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)", text)
    if not m:
        fail("no 'queries: N (X per sec.)' in sysbench output", text)
    out = {"qps": round(float(m.group(2)), 1), "requests": int(m.group(1))}
    errs = re.search(r"ignored errors:\s+(\d+)", text)
    reconn = re.search(r"reconnects:\s+(\d+)", text)
    out["errors"] = (int(errs.group(1)) if errs else 0) + (int(reconn.group(1)) if reconn else 0)
    tps = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    if tps:
        out["tps"] = round(float(tps.group(1)), 1)
    t = re.search(r"total time:\s+([\d.]+)s", text)
    if t:
        out["duration_s"] = float(t.group(1))
    # Histogram lines: "       0.087 |**********                               1234"
    buckets = []
    hist = text.split("Latency histogram", 1)
    if len(hist) == 2:
        for line in hist[1].splitlines():
            hm = re.match(r"^\s*([\d.]+)\s+\|[*\s]*?(\d+)\s*$", line)
            if hm:
                buckets.append((float(hm.group(1)), int(hm.group(2))))
            elif buckets and line.strip() == "":
                break
    total = sum(c for _, c in buckets)
    if total:
        def pct(q):
            need, acc = q * total, 0
            for v, c in buckets:
                acc += c
                if acc >= need:
                    return v * 1000.0  # ms -> us
            return buckets[-1][0] * 1000.0
        out.update(p50_us=r1(pct(0.50)), p99_us=r1(pct(0.99)), p999_us=r1(pct(0.999)))
    else:
        # No histogram: fall back on the summary (avg and the --percentile line).
        p = re.search(r"(\d+)th percentile:\s+([\d.]+)", text)
        out.update(p50_us=None, p99_us=None, p999_us=None)
        if p and p.group(1) == "99":
            out["p99_us"] = r1(float(p.group(2)) * 1000)
    avg = re.search(r"avg:\s+([\d.]+)", text)
    if avg:
        out["avg_us"] = r1(float(avg.group(1)) * 1000)
    return out


def parse_sockperf(text):
    """sockperf 3.x ping-pong output (use --full-rtt so latencies are round trips)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    m = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; SentMessages=(\d+); ReceivedMessages=(\d+)", text)
    if not m:
        fail("no '[Valid Duration]' line in sockperf output", text)
    run, sent, recv = float(m.group(1)), int(m.group(2)), int(m.group(3))
    out = {"qps": round(recv / run, 1) if run > 0 else 0.0, "requests": recv, "duration_s": run}
    d = re.search(r"# dropped messages = (\d+)", text)
    out["errors"] = (int(d.group(1)) if d else 0) + max(0, sent - recv)
    pcts = {float(p): float(v) for p, v in re.findall(r"percentile\s+([\d.]+)\s+=\s+([\d.]+)", text)}
    out["p50_us"] = r1(pcts.get(50.0))
    out["p99_us"] = r1(pcts.get(99.0))
    out["p999_us"] = r1(pcts.get(99.9))
    rtt = re.search(r"(?:avg-rtt|avg-lat)=([\d.]+)", text)
    if rtt:
        out["avg_us"] = r1(rtt.group(1))
    out["latency"] = "rtt" if "Round trip" in text or "avg-rtt" in text else "one-way (rtt/2)"
    return out


def parse_redis(text):
    """redis-benchmark 7.x plain output (not --csv, which lacks p99.9) for one test."""
    text = text.replace("\r", "\n")
    m = re.search(r"throughput summary:\s+([\d.]+) requests per second", text)
    if not m:
        fail("no 'throughput summary' in redis-benchmark output", text)
    out = {"qps": round(float(m.group(1)), 1)}
    n = re.search(r"(\d+) requests completed in ([\d.]+) seconds", text)
    if n:
        out["requests"] = int(n.group(1))
        out["duration_s"] = float(n.group(2))
    s = re.search(r"avg\s+min\s+p50\s+p95\s+p99\s+max\s*\n\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text)
    if not s:
        fail("no latency summary in redis-benchmark output", text)
    avg, _mn, p50, _p95, p99, _mx = (float(x) for x in s.groups())
    out.update(p50_us=r1(p50 * 1000), p99_us=r1(p99 * 1000), avg_us=r1(avg * 1000))
    # p99.9: the first line of the percentile distribution at or above 99.9% (an upper bound;
    # the distribution is printed at halving steps: ..., 99.805%, 99.902%, ...).
    p999 = None
    dist = text.split("Latency by percentile distribution:", 1)
    if len(dist) == 2:
        for p, v in re.findall(r"^([\d.]+)% <= ([\d.]+) milliseconds", dist[1].split("Cumulative distribution", 1)[0], re.M):
            if float(p) >= 99.9:
                p999 = float(v) * 1000
                break
    out["p999_us"] = r1(p999)
    out["errors"] = 0
    return out


ECHO_TARGETS = {"xrpc": "xrpc", "raw": "raw-epoll", "tokio": "tokio"}


def convert_echobench(doc, extra):
    for r in doc["results"]:
        obj = {
            "workload": "echo",
            "target": ECHO_TARGETS.get(r["server"], r["server"]),
            "case": f"{r['conns']}x{r['inflight']}",
            "concurrency": r["conns"] * r["inflight"],
            "connections": r["conns"],
            "qps": round(r["qps"], 1),
            "p50_us": r1(r["p50_us"]),
            "p99_us": r1(r["p99_us"]),
            "p999_us": r1(r["p999_us"]),
            "errors": 0,
            "loadgen": "echo-bench",
            "requests": r.get("requests"),
            "max_us": r1(r.get("max_us")),
            "duration_s": doc.get("duration_s"),
            "warmup_s": doc.get("warmup_s"),
            "payload_bytes": doc.get("payload"),
            "server_threads": doc.get("server_threads"),
            "pinned": doc.get("pinned"),
        }
        if r["server"] == "xrpc":
            obj["xrpc_bind_cores"] = doc.get("xrpc_bind_cores")
        obj.update(extra)
        emit(obj)


def convert_xrpcbench(doc, ports, extra):
    workloads = {"point-select": "point_select", "read-write": "read_write"}
    for r in doc["results"]:
        name = r["target"]
        if name.startswith("xrpc://") or name.startswith("echo://"):
            target = "xrpc"
        else:
            m = re.search(r":(\d+)(/|$)", name.split("@")[-1])
            target = ports.get(m.group(1), name) if m else name
        obj = {k: r.get(k) for k in SCHEMA}
        obj.update(
            workload=workloads.get(r["workload"], r["workload"]),
            target=target,
            url=name,
            loadgen="xrpc bench",
            version=(doc.get("versions", {}).get("targets", {}) or {}).get(name),
        )
        for k in ("p90_us", "max_us", "tps", "requests", "lost_clients", "threads", "pipeline_depth",
                  "client_cpu", "client_cores", "client_cpu_us_per_request", "server_pid",
                  "server_cpu_us_per_request", "server_cores", "duration_s", "intervals_qps", "first_error"):
            if k in r:
                obj[k] = r[k]
        obj["warmup_s"] = doc.get("settings", {}).get("warmup_s")
        obj["cmd"] = " ".join(doc.get("command", []))
        obj.update(extra)
        emit(obj)


def assemble(path):
    meta = {"versions": {}, "servers": [], "failures": [], "commands": [], "load": []}
    measurements = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            obj = json.loads(line)
            if "workload" in obj:
                measurements.append(obj)
                continue
            kind = obj.pop("meta", None)
            if kind == "version":
                meta["versions"][obj.pop("peer")] = obj
            elif kind == "server":
                meta["servers"].append(obj)
            elif kind == "failure":
                meta["failures"].append(obj)
            elif kind == "command":
                meta["commands"].append(obj)
            elif kind == "load":
                meta["load"].append(obj)
            elif kind is not None:
                meta.setdefault(kind, {}).update(obj)
    print(json.dumps({"meta": meta, "measurements": measurements}, indent=1))


def check(path, targets):
    rows, bad = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                bad.append(f"line {n}: not JSON ({e})")
                continue
            if "workload" not in obj:
                continue
            missing = [k for k in SCHEMA if k not in obj]
            if missing:
                bad.append(f"line {n}: {obj.get('target')} lacks {', '.join(missing)}")
            elif not isinstance(obj["qps"], (int, float)) or obj["qps"] <= 0:
                bad.append(f"line {n}: {obj['target']} has qps {obj['qps']}")
            rows.append(obj)
    seen = {r.get("target") for r in rows} | {f"{r.get('workload')}:{r.get('target')}" for r in rows}
    bad += [f"no measurement for {t}" for t in targets if t not in seen]
    fmt = "{:<14} {:<36} {:>6} {:>6} {:>11} {:>10} {:>10} {:>10} {:>6}\n"
    sys.stderr.write(fmt.format("workload", "target", "conc", "conns", "qps", "p50_us", "p99_us", "p999_us", "errors"))
    for r in rows:
        sys.stderr.write(fmt.format(*(str(r.get(k)) for k in SCHEMA)))
    for b in bad:
        sys.stderr.write(f"FAILED: {b}\n")
    sys.stderr.write(f"{len(rows)} measurements, {len(bad)} problems\n")
    return 1 if bad else 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "json":
        print(json.dumps(kv(args), separators=(",", ":")))
    elif cmd == "merge":
        line = sys.stdin.read().strip().splitlines()
        if not line:
            sys.exit("benchjson merge: no input line")
        obj = json.loads(line[-1])
        obj.update(kv(args))
        emit(obj)
    elif cmd == "echobench":
        convert_echobench(json.load(sys.stdin), kv(args))
    elif cmd == "xrpcbench":
        ports = dict(a[5:].split("=", 1) for a in args if a.startswith("port:"))
        convert_xrpcbench(json.load(sys.stdin), ports, kv([a for a in args if not a.startswith("port:")]))
    elif cmd == "assemble":
        assemble(args[0])
    elif cmd == "check":
        sys.exit(check(args[0], args[1:]))
    elif cmd in ("sysbench", "sockperf", "redis"):
        text = sys.stdin.read()
        obj = kv(args)
        obj.update({"sysbench": parse_sysbench, "sockperf": parse_sockperf, "redis": parse_redis}[cmd](text))
        emit(obj)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
