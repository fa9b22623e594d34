#!/usr/bin/env bash
# The whole benchmark suite in one command: xrpc against its peers, same machine,
# same run, three tables (echo, `select 1`, point select).
#
#   bench/run-all.sh [--smoke|--quick|--full] [--reps N]        (default: --full)
#
#   --full   echo cases 1x1 4x16 4x128 64x16 1024x1; select 1 and point select at
#            2 8 64 256 1024 2048 4096 clients; 3 repetitions            (about 45-55 min here)
#   --quick  echo cases 1x1 4x16 4x128; the same SQL sweep with shorter steps; 1 repetition
#                                                                         (about 8-9 min here)
#   --smoke  each peer once: echo 4x16, SQL at 8 clients, 2 s steps, debug builds of the xrpc
#            binaries and of tonic-echo; checks that every peer starts and that its output parses. Its scratch
#            state (data directories, sockets, server logs) lives in a temporary directory that is
#            removed on exit; its results and reports go to target/bench-reports/smoke-<UTC time>/
#            (never docs/ or bench/results/). CI runs this.
#
# What it does, in order:
#   1. builds xrpc-server, the xrpc CLI and xrpc-net's echo-bench example (release; dev for
#      --smoke), installs the Debian peers (apt), builds bench/peers/grpc-go (Go module proxy)
#      and bench/peers/tonic-echo (crates.io);
#   2. starts xrpc-server and two private MariaDB instances, one per thread_handling mode
#      (one-thread-per-connection on $BENCH_MARIADB_PORT 13306, pool-of-threads on
#      $BENCH_MARIADB_POOL_PORT 13307), so that one `xrpc bench` invocation drives all three
#      targets; creates sysbench's sbtest1 (100000 rows) on each (kept between runs in
#      target/bench-run/, except for --smoke);
#   3. per repetition: the echo table (echo-bench's xrpc / raw epoll / tokio, sockperf, Redis at
#      the same shape as each case N x M: N clients with -P M, grpc-go with NumStreamWorkers 0 and
#      = server cores, tonic), then
#      `xrpc bench --workload select1` over the three targets, then `xrpc bench --workload
#      point-select` over the three and `sysbench oltp_point_select` against both MariaDBs;
#   4. stops every server it started (by pid, also on failure or interruption), assembles the
#      JSON lines into one results file, checks that every expected peer has a usable
#      measurement, and generates the report with bench/report.py.
#
# Outputs (not --smoke): bench/results/<UTC time>.json and bench/results/latest.json (one
# object per measurement plus a "meta" object), docs/BENCHMARKS.md and docs/img/*.png; the
# logs in target/bench-run/run-<UTC time>/.
# Exit status 1 if any peer failed to start or measure, or produced output that did not parse.
#
# Servers run on $BENCH_SERVER_CPUS and load generators on $BENCH_CLIENT_CPUS (lib.sh; on this
# 2-core machine CPU 0 and CPU 1). Nothing binds anything but 127.0.0.1.
set -euo pipefail

# The smoke's scratch state goes to a temporary directory (lib.sh reads BENCH_RUN_DIR, and every
# bench/ script this one runs inherits it), removed by the EXIT trap below.
SMOKE_SCRATCH=""
for a in "$@"; do
    if [ "$a" = --smoke ]; then
        SMOKE_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/xrpc-bench-smoke.XXXXXX")
        export BENCH_RUN_DIR=$SMOKE_SCRATCH BENCH_TONIC_PROFILE=dev
    fi
done
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$BENCH_DIR/.." && pwd)
SUITE=full
REPS=""
ARGS=("$@")
while [ $# -gt 0 ]; do
    case "$1" in
    --smoke) SUITE=smoke && shift ;;
    --quick) SUITE=quick && shift ;;
    --full) SUITE=full && shift ;;
    --reps) REPS=$2 && shift 2 ;;
    *) bench_die "unknown option $1 (usage: $0 [--smoke|--quick|--full] [--reps N])" ;;
    esac
done

# Durations (seconds) and sweeps per suite. Steps: T measured after W of warm-up.
SQL_ALL=(2 8 64 256 1024 2048 4096)
case "$SUITE" in
smoke) ECHO_CASES=(4x16) SQL_CONC=(8) ECHO_T=2 ECHO_W=0.5 SQL_T=2 SQL_W=0.5 R=1 PROFILE=dev ;;
quick) ECHO_CASES=(1x1 4x16 4x128) SQL_CONC=("${SQL_ALL[@]}") ECHO_T=2 ECHO_W=0.5 SQL_T=2 SQL_W=1 R=1 PROFILE=release ;;
full) ECHO_CASES=(1x1 4x16 4x128 64x16 1024x1) SQL_CONC=("${SQL_ALL[@]}") ECHO_T=4 ECHO_W=1 SQL_T=4 SQL_W=1 R=3 PROFILE=release ;;
esac
R=${REPS:-$R}

XPORT=${BENCH_XRPC_PORT:-13360}
OTPC_PORT=${BENCH_MARIADB_PORT:-13306}
POOL_PORT=${BENCH_MARIADB_POOL_PORT:-13307}
ROWS=100000
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
T0=$SECONDS

if [ "$SUITE" = smoke ]; then
    OUTDIR=$BENCH_REPORTS/smoke-$STAMP
    RESULTS=$OUTDIR/results.json
    REPORT=$OUTDIR/BENCHMARKS.md
    IMG=$OUTDIR/img
else
    OUTDIR=$BENCH_RUN/run-$STAMP
    RESULTS=$BENCH_DIR/results/$STAMP.json
    REPORT=$ROOT/docs/BENCHMARKS.md
    IMG=$OUTDIR/img
fi
mkdir -p "$OUTDIR" "$IMG"
LINES=$OUTDIR/lines.jsonl
: >"$LINES"
export BENCH_OUT=$LINES
FAILED=()
EXPECT=()

# Every server this script starts is stopped when it exits, however it exits.
bench_own xrpc-server mariadb-otpc mariadb-pool
# shellcheck disable=SC2317  # (called by the EXIT trap)
finish() {
    local rc=$?
    bench__cleanup
    if [ -n "$SMOKE_SCRATCH" ]; then
        # The servers' logs outlive the scratch directory when something failed.
        if [ "$rc" -ne 0 ]; then
            (cd "$SMOKE_SCRATCH" && find . -name '*.log' -size -20M -exec cp --parents {} "$OUTDIR/" \;) 2>/dev/null || true
        fi
        rm -rf "$SMOKE_SCRATCH"
    fi
    [ "$rc" -eq 0 ] || bench_log "run-all: exit $rc; logs and results in ${OUTDIR#"$ROOT"/}"
}
trap finish EXIT

emit_meta() { bench_emit "$(bench_json "$@")" >/dev/null; }
loadavg() { emit_meta meta=load at="$1" loadavg="$(cut -d' ' -f1-3 /proc/loadavg)" time="$(date -u +%H:%M:%S)"; }

# run LABEL BOUND_S CMD...: one measurement command, bounded in time; a failure is recorded and
# the suite goes on. The command's JSON lines reach $LINES through BENCH_OUT.
run() {
    local label=$1 bound=$2
    shift 2
    if ! timeout -k 10 "$bound" "$@" >/dev/null; then
        FAILED+=("$label")
        emit_meta meta=failure peer="$label" cmd="$(bench_quote "$@")"
        bench_log "FAILED: $label"
    fi
}

bench_log "run-all: $SUITE suite, $R repetition(s); work files in $OUTDIR"
bench_raise_nofile >/dev/null

# ---------------------------------------------------------------------------------------------
# 1. Builds and installs.

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$PATH:$HOME/.cargo/bin"; fi
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="$PATH:/usr/local/go/bin"; fi
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
if [ "$PROFILE" = release ]; then BIN=$TARGET_DIR/release; else BIN=$TARGET_DIR/debug; fi
if [ "$PROFILE" = dev ]; then
    # The same package and feature selection as `cargo test --workspace`, so that after it (as in
    # scripts/test.sh) this is a no-op; a narrower -p selection unifies features differently and
    # rebuilt a minute of dependencies.
    BUILD1=(cargo build --locked --profile dev --workspace --bins --examples)
    BUILD2=(true)
else
    BUILD1=(cargo build --locked --profile "$PROFILE" -p xrpc-server -p xrpc-cli --bins)
    BUILD2=(cargo build --locked --profile "$PROFILE" -p xrpc-bench --example echo-bench)
fi
bench_log "building xrpc ($PROFILE): ${BUILD1[*]}; ${BUILD2[*]}"
t=$SECONDS
(cd "$ROOT" && "${BUILD1[@]}" && "${BUILD2[@]}") >"$OUTDIR/cargo-build.log" 2>&1 || {
    tail -30 "$OUTDIR/cargo-build.log" >&2
    bench_die "cargo build failed"
}
bench_log "built xrpc in $((SECONDS - t)) s"
t=$SECONDS
bench_apt_install sockperf redis-server redis-tools mariadb-server mariadb-client sysbench
bench_build_grpc_go
bench_build_tonic
bench_log "peers installed and built in $((SECONDS - t)) s"

emit_meta meta=suite suite="$SUITE" reps="$R" echo_cases="${ECHO_CASES[*]}" sql_concurrency="${SQL_CONC[*]}" \
    echo_time_s="$ECHO_T" echo_warmup_s="$ECHO_W" sql_time_s="$SQL_T" sql_warmup_s="$SQL_W" \
    command="bench/run-all.sh${ARGS[*]:+ ${ARGS[*]}}" started="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    git_commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    git_dirty="$(if git -C "$ROOT" diff --quiet HEAD -- crates Cargo.toml Cargo.lock 2>/dev/null; then echo no; else echo yes; fi)" \
    build="$(bench_quote "${BUILD1[@]}"); $(bench_quote "${BUILD2[@]}")" profile="$PROFILE"
bench_emit "$(bench_machine_json)" >/dev/null
bench_emit "$(bench_version_json xrpc "$("$BIN/xrpc-server" --version | awk '{print $NF}')" \
    rustc="$(rustc --version | awk '{print $2}')" profile="$PROFILE" source=this-repository)" >/dev/null
for p in sockperf redis grpc-go tonic mariadb sysbench; do bench_emit "$(bench_peer_version_json "$p")" >/dev/null; done

# ---------------------------------------------------------------------------------------------
# 2. The SQL servers: xrpc-server and MariaDB in both thread_handling modes, each with sbtest1.

mkdir -p "$BENCH_RUN/xrpc-data"
bench_require_free_port "$XPORT" BENCH_XRPC_PORT
XSERVER=("${BENCH_SERVER_PREFIX[@]}" "$BIN/xrpc-server" --listen "127.0.0.1:$XPORT"
    --data-dir "$BENCH_RUN/xrpc-data" --log warn)
bench_start xrpc-server "$BENCH_RUN/xrpc-server.log" "${XSERVER[@]}"
bench_wait_port "$XPORT" 30 "$BENCH_LAST_PID" || bench_die "xrpc-server did not start (see $BENCH_RUN/xrpc-server.log)"
emit_meta meta=server peer=xrpc instance=xrpc-server port="$XPORT" pid="$BENCH_LAST_PID" \
    server_cpus="$BENCH_SERVER_CPUSET" settings="defaults (see xrpc-server --help)" cmd="$(bench_quote "${XSERVER[@]}")"
XURL="xrpc://root@127.0.0.1:$XPORT"
xrows=$("$BIN/xrpc" exec -P "$XPORT" -f csv "select count(*) from sbtest1" 2>/dev/null | tail -1 || true)
if [ "$xrows" != "$ROWS" ]; then
    bench_log "xrpc bench prepare: sbtest1 with $ROWS rows on xrpc"
    timeout -k 10 600 "$BIN/xrpc" bench prepare --target "$XURL" --table-size "$ROWS" >"$OUTDIR/xrpc-prepare.log" 2>&1 ||
        bench_die "xrpc bench prepare failed (see $OUTDIR/xrpc-prepare.log)"
fi
emit_meta meta=command name=xrpc-prepare cmd="$(bench_quote "$BIN/xrpc" bench prepare --target "$XURL" --table-size "$ROWS") (skipped when sbtest1 already has $ROWS rows)"

MARIADB_UP=()
for spec in "mariadb-otpc:$OTPC_PORT:one-thread-per-connection" "mariadb-pool:$POOL_PORT:pool-of-threads"; do
    IFS=: read -r name port mode <<<"$spec"
    if BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port timeout -k 10 300 "$BENCH_DIR/mariadb.sh" start "$mode" >/dev/null &&
        BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port timeout -k 10 600 "$BENCH_DIR/sysbench.sh" prepare >/dev/null; then
        MARIADB_UP+=("$name:$port:$mode")
    else
        FAILED+=("mariadb-$mode")
        emit_meta meta=failure peer="mariadb-$mode" cmd="BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port bench/mariadb.sh start $mode"
    fi
done
SQL_TARGETS=(--target "$XURL")
PORTMAP=()
for spec in "${MARIADB_UP[@]}"; do
    IFS=: read -r name port mode <<<"$spec"
    SQL_TARGETS+=(--target "mysql://bench:bench@127.0.0.1:$port/sbtest")
    PORTMAP+=("port:$port=mariadb-$mode")
done

# ---------------------------------------------------------------------------------------------
# 3. The measurements.

conc_list=$(
    IFS=,
    echo "${SQL_CONC[*]}"
)
cases_list=$(
    IFS=,
    echo "${ECHO_CASES[*]}"
)
n_sql_targets=$((${#SQL_TARGETS[@]} / 2))
# A generous bound for one xrpc bench sweep: per step, warm-up + window + 60 s of connecting
# and draining.
SWEEP_BOUND=$(awk -v n="$n_sql_targets" -v c="${#SQL_CONC[@]}" -v t="$SQL_T" -v w="$SQL_W" 'BEGIN {print int(n * c * (t + w + 60) + 60)}')

# xrpc_bench WORKLOAD REP: one xrpc bench invocation over every SQL target.
xrpc_bench() {
    local workload=$1 rep=$2 json=$OUTDIR/xrpc-bench-$1-r$2.json plot=()
    [ "$rep" -eq "$R" ] && plot=(--plot "$IMG/$workload.png")
    local cmd=("${BENCH_CLIENT_PREFIX[@]}" "$BIN/xrpc" bench --workload "$workload" "${SQL_TARGETS[@]}"
        --concurrency "$conc_list" --duration "$SQL_T" --warmup "$SQL_W" --json "$json" "${plot[@]}")
    bench_log "xrpc bench $workload over $n_sql_targets targets at $conc_list (rep $rep)"
    local rc=0
    timeout -k 10 "$SWEEP_BOUND" "${cmd[@]}" >"$OUTDIR/xrpc-bench-$workload-r$rep.log" 2>&1 || rc=$?
    if [ -s "$json" ]; then
        python3 "$BENCH_PY" xrpcbench "${PORTMAP[@]}" rep="$rep" suite="$SUITE" cmd="$(bench_quote "${cmd[@]}")" \
            client_cpus="$BENCH_CLIENT_CPUSET" server_cpus="$BENCH_SERVER_CPUSET" <"$json" >>"$LINES" ||
            rc=1
    fi
    if [ "$rc" -ne 0 ]; then
        tail -20 "$OUTDIR/xrpc-bench-$workload-r$rep.log" >&2 || true
        FAILED+=("xrpc-bench-$workload")
        emit_meta meta=failure peer="xrpc-bench-$workload" cmd="$(bench_quote "${cmd[@]}")"
        bench_log "FAILED: xrpc bench $workload (exit $rc)"
    fi
}

for ((rep = 1; rep <= R; rep++)); do
    export BENCH_TAGS="rep=$rep suite=$SUITE"

    # Echo.
    loadavg "echo r$rep"
    eb_json=$OUTDIR/echo-bench-r$rep.json
    eb=("$BIN/examples/echo-bench" --duration "$ECHO_T" --warmup "$ECHO_W" --cases "$cases_list" --payload 1 --json "$eb_json")
    [ "${BENCH_PIN:-1}" = 0 ] && eb+=(--no-pin)
    bench_log "echo-bench (xrpc, raw epoll, tokio) at $cases_list (rep $rep)"
    if timeout -k 10 $((${#ECHO_CASES[@]} * 3 * (${ECHO_T%.*} + 10) + 60)) "${eb[@]}" >"$OUTDIR/echo-bench-r$rep.log" 2>&1 &&
        python3 "$BENCH_PY" echobench rep="$rep" suite="$SUITE" cmd="$(bench_quote "${eb[@]}")" \
            server_cpus="${BENCH_ALLOWED_CPUS[0]}" client_cpus="${BENCH_ALLOWED_CPUS[1]:-all}" <"$eb_json" >>"$LINES"; then
        :
    else
        tail -20 "$OUTDIR/echo-bench-r$rep.log" >&2 || true
        FAILED+=(echo-bench)
        emit_meta meta=failure peer=echo-bench cmd="$(bench_quote "${eb[@]}")"
    fi
    EXPECT+=(echo:xrpc echo:raw-epoll echo:tokio)

    BENCH_TAGS="rep=$rep suite=$SUITE case=1x1" run sockperf 120 "$BENCH_DIR/sockperf.sh" --time "$ECHO_T"
    EXPECT+=(echo:sockperf)
    for case in "${ECHO_CASES[@]}"; do
        conns=${case%x*} inflight=${case#*x}
        total=$((conns * inflight))
        export BENCH_TAGS="rep=$rep suite=$SUITE case=$case"
        # Redis at the same shape: $conns clients, each with $inflight pipelined (-P) requests.
        redis_target=redis
        [ "$inflight" -gt 1 ] && redis_target=redis-P$inflight
        run "$redis_target" 300 "$BENCH_DIR/redis.sh" --inflight "$total" --pipeline "$inflight" --time "$ECHO_T"
        EXPECT+=("echo:$redis_target")
        run grpc-go-workers0 120 "$BENCH_DIR/grpc-go.sh" --workers 0 --conns "$conns" --inflight "$inflight" --time "$ECHO_T" --warmup "$ECHO_W"
        run "grpc-go-workers$BENCH_SERVER_NCPU" 120 "$BENCH_DIR/grpc-go.sh" --workers cores --conns "$conns" --inflight "$inflight" --time "$ECHO_T" --warmup "$ECHO_W"
        EXPECT+=(echo:grpc-go-workers0 "echo:grpc-go-workers$BENCH_SERVER_NCPU")
        run tonic 120 "$BENCH_DIR/tonic.sh" --conns "$conns" --inflight "$inflight" --time "$ECHO_T" --warmup "$ECHO_W"
        EXPECT+=(echo:tonic)
        if [ "$SUITE" != smoke ]; then
            # The tonic server under grpc-go's client, the lighter load generator (README).
            BENCH_TAGS="$BENCH_TAGS target=tonic-goclient" \
                run tonic-goclient 120 "$BENCH_DIR/tonic.sh" --client grpc-go --conns "$conns" --inflight "$inflight" --time "$ECHO_T" --warmup "$ECHO_W"
        fi
    done

    export BENCH_TAGS="rep=$rep suite=$SUITE"

    # select 1.
    loadavg "select1 r$rep"
    xrpc_bench select1 "$rep"
    EXPECT+=(select1:xrpc)

    # Point select.
    loadavg "point_select r$rep"
    xrpc_bench point-select "$rep"
    EXPECT+=(point_select:xrpc)
    for spec in "${MARIADB_UP[@]}"; do
        IFS=: read -r name port mode <<<"$spec"
        for c in "${SQL_CONC[@]}"; do
            BENCH_TAGS="rep=$rep suite=$SUITE target=mariadb-$mode" BENCH_MARIADB_NAME=$name BENCH_MARIADB_PORT=$port \
                run "sysbench-$mode" $((${SQL_T%.*} + 120)) "$BENCH_DIR/sysbench.sh" point-select --threads "$c" --time "$SQL_T"
        done
    done
done
unset BENCH_TAGS
# The article's table on one engine and plan push-down: bench/engine-mysql.sh, on the MariaDB
# instances above; its report reaches docs/BENCHMARKS.md through report.py.
EM=("$BENCH_DIR/engine-mysql.sh" "--$SUITE")
if [ "$SUITE" = smoke ]; then EM+=(--out-dir "$OUTDIR/engine-mysql"); fi
XRPC_BIN_DIR=$BIN run engine-mysql 3600 "${EM[@]}"
loadavg end
for mode in one-thread-per-connection pool-of-threads; do EXPECT+=("select1:mariadb-$mode" "point_select:mariadb-$mode"); done

# ---------------------------------------------------------------------------------------------
# 4. Stop the servers, assemble, check, report.

bench_stop xrpc-server
bench_stop mariadb-otpc
bench_stop mariadb-pool
emit_meta meta=suite_end finished="$(date -u +%Y-%m-%dT%H:%M:%SZ)" elapsed_s="$((SECONDS - T0))"

mkdir -p "$(dirname "$RESULTS")"
python3 "$BENCH_PY" assemble "$LINES" >"$RESULTS"
rc=0
mapfile -t EXPECT < <(printf '%s\n' "${EXPECT[@]}" | sort -u)
python3 "$BENCH_PY" check "$LINES" "${EXPECT[@]}" || rc=1
if [ "${#FAILED[@]}" -gt 0 ]; then
    bench_log "failed: ${FAILED[*]}"
    rc=1
fi

if [ "$SUITE" = smoke ]; then
    python3 "$BENCH_DIR/report.py" "$RESULTS" --out "$REPORT" --img-dir "$IMG" --sections-dir "$OUTDIR/engine-mysql" --analysis-dir '' || rc=1
    bench_log "results: ${RESULTS#"$ROOT"/}; report: ${REPORT#"$ROOT"/}; engine report: ${OUTDIR#"$ROOT"/}/engine-mysql/engine-mysql.md"
else
    cp "$RESULTS" "$BENCH_DIR/results/latest.json"
    mkdir -p "$ROOT/docs/img"
    for f in "$IMG"/*.png; do [ -e "$f" ] && cp "$f" "$ROOT/docs/img/"; done
    python3 "$BENCH_DIR/report.py" "$BENCH_DIR/results/latest.json" --out "$REPORT" --img-dir "$ROOT/docs/img" || rc=1
    bench_log "results: ${RESULTS#"$ROOT"/}, bench/results/latest.json; report: docs/BENCHMARKS.md"
fi
bench_log "run-all: $SUITE suite took $((SECONDS - T0)) s (exit $rc)"
exit "$rc"
