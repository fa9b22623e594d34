#!/usr/bin/env bash
# Brings up and measures every PEER of the benchmark suite (not xrpc itself) in one go.
#
#   bench/peers.sh [--smoke|--quick|--full] [--reps N] [--time S] [--out FILE] [--only LIST]
#
#   --smoke  each peer once, 2 s, one concurrency (echo: 4 conns x 16 in flight = 64;
#            point select: 8 threads): checks that every peer installs, starts and parses
#   --quick  echo cases 1x1 4x16 4x128, point select at 2 64 1024; 3 s each, 1 repetition
#   --full   echo cases 1x1 4x16 4x128 64x8 1024x1, point select at 2 8 64 256 1024 2048 4096;
#            5 s (echo) / 10 s (sysbench) each, 3 repetitions
#   --only   comma-separated subset of: sockperf,redis,grpc-go,tonic,mariadb
#
# Echo case NxM = N connections with M requests in flight on each (as in xrpc-net's echo_bench);
# Redis gets the same total in flight (-c N*M, or -c N*M/16 with -P 16). Every JSON line goes to
# stdout and to FILE (default target/bench-reports/peers-<UTC time>.jsonl); a machine line and one
# version line per peer come first. MariaDB is started here and stopped on exit (by pid); the
# echo scripts stop their own servers. Exits 1 if any peer failed or printed an unusable line.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SUITE=quick
REPS=""
TIME=""
OUT=""
ONLY="sockperf,redis,grpc-go,tonic,mariadb"
while [ $# -gt 0 ]; do
    case "$1" in
    --smoke) SUITE=smoke && shift ;;
    --quick) SUITE=quick && shift ;;
    --full) SUITE=full && shift ;;
    --reps) REPS=$2 && shift 2 ;;
    --time) TIME=$2 && shift 2 ;;
    --out) OUT=$2 && shift 2 ;;
    --only) ONLY=$2 && shift 2 ;;
    *) bench_die "unknown option $1" ;;
    esac
done
case "$SUITE" in
smoke) ECHO_CASES=(4x16) SQL_CONC=(8) ECHO_T=2 SQL_T=2 R=1 ;;
quick) ECHO_CASES=(1x1 4x16 4x128) SQL_CONC=(2 64 1024) ECHO_T=3 SQL_T=3 R=1 ;;
full) ECHO_CASES=(1x1 4x16 4x128 64x8 1024x1) SQL_CONC=(2 8 64 256 1024 2048 4096) ECHO_T=5 SQL_T=10 R=3 ;;
esac
R=${REPS:-$R}
[ -n "$TIME" ] && ECHO_T=$TIME && SQL_T=$TIME
want() { [[ ",$ONLY," == *",$1,"* ]]; }

OUT=${OUT:-$BENCH_REPORTS/peers-$(date -u +%Y%m%dT%H%M%SZ).jsonl}
mkdir -p "$(dirname "$OUT")"
: >"$OUT"
export BENCH_OUT=$OUT
T0=$SECONDS
FAILED=()
EXPECT=()

# Stop MariaDB (the only server that outlives its script) however this exits.
bench_own mariadb

# run LABEL CMD...: runs one peer script; a failure is recorded and the suite goes on.
run() {
    local label=$1
    shift
    if ! "$@"; then
        FAILED+=("$label")
        bench_emit "$(bench_json meta=failure peer="$label" cmd="$(bench_quote "$@")")"
    fi
}

bench_log "peers: $SUITE suite, $R repetition(s), results in ${OUT#"$BENCH_DIR"/}"
bench_emit "$(bench_machine_json)" "$(bench_json meta=suite suite="$SUITE" reps="$R" echo_time_s="$ECHO_T" sql_time_s="$SQL_T")"

# Installs first, so that the timings below are the measurements alone.
pkgs=()
want sockperf && pkgs+=(sockperf)
want redis && pkgs+=(redis-server redis-tools)
want mariadb && pkgs+=(mariadb-server mariadb-client sysbench)
bench_apt_install "${pkgs[@]}"
want grpc-go && bench_build_grpc_go
want tonic && bench_build_tonic
bench_log "installs and builds took $((SECONDS - T0)) s"

want sockperf && bench_emit "$(bench_version_json sockperf "$(bench_pkg_version sockperf)" source=debian)"
want redis && bench_emit "$(bench_version_json redis "$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')" package="$(bench_pkg_version redis-server)" source=debian)"
want grpc-go && bench_emit "$(bench_version_json grpc-go "$(awk '$1 == "google.golang.org/grpc" {print $2} $1 == "require" && $2 == "google.golang.org/grpc" {print $3}' "$BENCH_DIR/peers/grpc-go/go.mod" | head -1)" go="$(go env GOVERSION)" source=go-module-proxy)"
want tonic && bench_emit "$(bench_version_json tonic "$(awk '/^name = "tonic"$/ {getline; gsub(/"/, "", $3); print $3}' "$BENCH_DIR/peers/tonic-echo/Cargo.lock" | head -1)" rustc="$(rustc --version | awk '{print $2}')" source=crates.io)"
want mariadb && bench_emit "$(bench_version_json mariadb "$(mariadbd --version | awk '{print $3}')" package="$(bench_pkg_version mariadb-server)" source=debian)" \
    "$(bench_version_json sysbench "$(sysbench --version | awk '{print $2}')" package="$(bench_pkg_version sysbench)" source=debian)"

for ((rep = 1; rep <= R; rep++)); do
    export BENCH_TAGS="rep=$rep suite=$SUITE"
    if want sockperf; then
        run sockperf "$BENCH_DIR/sockperf.sh" --time "$ECHO_T"
        EXPECT+=(sockperf)
    fi
    for case in "${ECHO_CASES[@]}"; do
        conns=${case%x*} inflight=${case#*x}
        total=$((conns * inflight))
        if want redis; then
            run redis "$BENCH_DIR/redis.sh" --inflight "$total" --time "$ECHO_T"
            EXPECT+=(redis)
            if [ "$total" -ge 16 ] && [ $((total % 16)) -eq 0 ]; then
                run redis-P16 "$BENCH_DIR/redis.sh" --inflight "$total" --pipeline 16 --time "$ECHO_T"
                EXPECT+=(redis-P16)
            fi
        fi
        if want grpc-go; then
            run grpc-go-workers0 "$BENCH_DIR/grpc-go.sh" --workers 0 --conns "$conns" --inflight "$inflight" --time "$ECHO_T"
            run "grpc-go-workers$BENCH_SERVER_NCPU" "$BENCH_DIR/grpc-go.sh" --workers cores --conns "$conns" --inflight "$inflight" --time "$ECHO_T"
            EXPECT+=(grpc-go-workers0 "grpc-go-workers$BENCH_SERVER_NCPU")
        fi
        if want tonic; then
            run tonic "$BENCH_DIR/tonic.sh" --conns "$conns" --inflight "$inflight" --time "$ECHO_T"
            # The same server under grpc-go's client, which is the lighter load generator.
            [ "$SUITE" != smoke ] && run tonic-goclient "$BENCH_DIR/tonic.sh" --client grpc-go --conns "$conns" --inflight "$inflight" --time "$ECHO_T"
            EXPECT+=(tonic)
        fi
    done
    if want mariadb; then
        for mode in one-thread-per-connection pool-of-threads; do
            if ! "$BENCH_DIR/mariadb.sh" start "$mode"; then
                FAILED+=("mariadb-$mode")
                bench_emit "$(bench_json meta=failure peer="mariadb-$mode" cmd="bench/mariadb.sh start $mode")"
                continue
            fi
            run sysbench-prepare "$BENCH_DIR/sysbench.sh" prepare
            for c in "${SQL_CONC[@]}"; do
                run "sysbench-$mode" "$BENCH_DIR/sysbench.sh" point-select --threads "$c" --time "$SQL_T"
            done
            EXPECT+=("mariadb-$mode")
        done
        "$BENCH_DIR/mariadb.sh" stop
    fi
done
unset BENCH_TAGS

bench_log "peers: $SUITE suite took $((SECONDS - T0)) s"
mapfile -t EXPECT < <(printf '%s\n' "${EXPECT[@]}" | sort -u)
rc=0
python3 "$BENCH_PY" check "$OUT" "${EXPECT[@]}" || rc=1
if [ "${#FAILED[@]}" -gt 0 ]; then
    bench_log "failed: ${FAILED[*]}"
    rc=1
fi
exit "$rc"
