# shellcheck shell=bash disable=SC2034  # (the variables set here are for the scripts that source it)
# Functions shared by the bench/ scripts. Source it: `. "$(dirname "$0")/lib.sh"`.
#
# Conventions:
# - measurement and meta results are JSON lines on stdout (bench_emit), also appended to
#   $BENCH_OUT when set; everything else (progress, logs) goes to stderr;
# - every background server is started by bench_start, which records "name pid starttime" in
#   $BENCH_RUN/pids, and stopped by pid (bench_stop / bench_stop_all), never by name;
# - scratch state (data directories, sockets, logs) lives in $BENCH_RUN: target/bench-run/
#   (kept between runs, so MariaDB's sbtest table is made once; `cargo clean` removes it), or the
#   directory BENCH_RUN_DIR names (run-all.sh --smoke makes a temporary one and removes it);
# - reports a run points to go to target/bench-reports/ (or bench/results/ for a full run);
# - built peers (grpc-echo, tonic-echo) go to target/ too, never into the source tree;
# - pinning: when the machine has >= 2 CPUs and BENCH_PIN is not 0, servers run on
#   $BENCH_SERVER_CPUS (default: the first allowed CPU) and load generators on
#   $BENCH_CLIENT_CPUS (default: the other allowed CPUs), like crates/xrpc-net's echo_bench.

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BENCH_ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BENCH_RUN="${BENCH_RUN_DIR:-$BENCH_ROOT/target/bench-run}"
BENCH_REPORTS="$BENCH_ROOT/target/bench-reports"
BENCH_PIDS="$BENCH_RUN/pids"
BENCH_PY="$BENCH_DIR/benchjson.py"
mkdir -p "$BENCH_RUN"

bench_log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
bench_die() {
    bench_log "ERROR: $*"
    exit 1
}

# bench_emit LINE...: prints JSON lines to stdout and appends them to $BENCH_OUT if set. The
# key=value pairs in $BENCH_TAGS (e.g. "rep=2 suite=quick") are added to every line.
bench_emit() {
    local line
    for line in "$@"; do
        if [ -n "${BENCH_TAGS:-}" ]; then
            # shellcheck disable=SC2086
            line=$(printf '%s\n' "$line" | python3 "$BENCH_PY" merge $BENCH_TAGS)
        fi
        printf '%s\n' "$line"
        if [ -n "${BENCH_OUT:-}" ]; then printf '%s\n' "$line" >>"$BENCH_OUT"; fi
    done
}

# bench_json key=value...: one JSON object; values that look like numbers become numbers,
# key:=JSON takes a raw JSON value.
bench_json() { python3 "$BENCH_PY" json "$@"; }

# ---------------------------------------------------------------------------------------------
# Packages.

bench_apt_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# bench_apt_install PKG...: installs the missing ones (no recommends), running apt-get update at
# most once per suite run (BENCH_APT_UPDATED is exported to child scripts). Services that the
# packages would start are held back with a temporary policy-rc.d when none is in place.
bench_apt_install() {
    local missing=() p
    for p in "$@"; do bench_apt_installed "$p" || missing+=("$p"); done
    [ "${#missing[@]}" -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || bench_die "need root (or sudo) to install ${missing[*]}"
        sudo="sudo"
    fi
    local t0=$SECONDS log="$BENCH_RUN/apt.log"
    if [ -z "${BENCH_APT_UPDATED:-}" ]; then
        bench_log "apt-get update"
        $sudo apt-get update -q >>"$log" 2>&1 || bench_die "apt-get update failed (see $log)"
        export BENCH_APT_UPDATED=1
    fi
    local policy=/usr/sbin/policy-rc.d made_policy=""
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy" && made_policy=1
    fi
    bench_log "apt-get install ${missing[*]}"
    local rc=0
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1 || rc=$?
    [ -n "$made_policy" ] && $sudo rm -f "$policy"
    [ "$rc" -eq 0 ] || bench_die "apt-get install ${missing[*]} failed (see $log)"
    bench_log "installed ${missing[*]} in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------------------------
# CPUs and pinning.

# bench_expand_cpus "0-2,5" -> "0 1 2 5"
bench_expand_cpus() {
    local part cpus=() parts a b i
    IFS=',' read -ra parts <<<"$1"
    for part in "${parts[@]}"; do
        if [[ "$part" == *-* ]]; then
            a=${part%-*} b=${part#*-}
            for ((i = a; i <= b; i++)); do cpus+=("$i"); done
        elif [ -n "$part" ]; then
            cpus+=("$part")
        fi
    done
    echo "${cpus[*]}"
}

bench_setup_cpus() {
    local allowed
    allowed=$(bench_expand_cpus "$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)")
    read -ra BENCH_ALLOWED_CPUS <<<"$allowed"
    BENCH_SERVER_PREFIX=()
    BENCH_CLIENT_PREFIX=()
    BENCH_SERVER_NCPU=${#BENCH_ALLOWED_CPUS[@]}
    BENCH_SERVER_CPUSET="all"
    BENCH_CLIENT_CPUSET="all"
    if [ "${BENCH_PIN:-1}" != 0 ] && [ "${#BENCH_ALLOWED_CPUS[@]}" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
        BENCH_SERVER_CPUSET=${BENCH_SERVER_CPUS:-${BENCH_ALLOWED_CPUS[0]}}
        local rest
        rest=$(
            IFS=,
            echo "${BENCH_ALLOWED_CPUS[*]:1}"
        )
        BENCH_CLIENT_CPUSET=${BENCH_CLIENT_CPUS:-$rest}
        BENCH_SERVER_PREFIX=(taskset -c "$BENCH_SERVER_CPUSET")
        BENCH_CLIENT_PREFIX=(taskset -c "$BENCH_CLIENT_CPUSET")
        local s
        read -ra s <<<"$(bench_expand_cpus "$BENCH_SERVER_CPUSET")"
        BENCH_SERVER_NCPU=${#s[@]}
    fi
}
bench_setup_cpus

# ---------------------------------------------------------------------------------------------
# Ports and processes.

bench_port_listening() {
    if command -v ss >/dev/null 2>&1; then
        ss -Htln "sport = :$1" 2>/dev/null | grep -q .
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}

# bench_wait_port PORT [TIMEOUT_S] [PID]: waits until 127.0.0.1:PORT listens; fails early if PID dies.
bench_wait_port() {
    local port=$1 timeout=${2:-30} pid=${3:-} i
    for ((i = 0; i < timeout * 10; i++)); do
        bench_port_listening "$port" && return 0
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            bench_log "process $pid exited before port $port opened"
            return 1
        fi
        sleep 0.1
    done
    bench_log "port $port did not open within ${timeout} s"
    return 1
}

bench_require_free_port() {
    if bench_port_listening "$1"; then bench_die "port $1 is already in use (set $2 to another port)"; fi
}

# bench_proc_start PID: the process's start time in clock ticks since boot (field 22 of
# /proc/PID/stat); with the pid it names one process, so a reused pid is never mistaken for it.
bench_proc_start() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $20}'; }

# bench_start NAME LOGFILE CMD...: starts CMD in the background (output to LOGFILE), records
# "NAME PID STARTTIME" in $BENCH_PIDS and sets BENCH_LAST_PID. Background commands of a
# non-interactive shell ignore SIGINT, and the server outlives the script until stopped by pid.
bench_start() {
    local name=$1 log=$2
    shift 2
    mkdir -p "$(dirname "$log")"
    "$@" </dev/null >"$log" 2>&1 &
    BENCH_LAST_PID=$!
    echo "$name $BENCH_LAST_PID $(bench_proc_start "$BENCH_LAST_PID")" >>"$BENCH_PIDS"
    bench_log "started $name (pid $BENCH_LAST_PID, log ${log#"$BENCH_ROOT"/})"
}

# bench_pid_alive PID [STARTTIME]: the pid runs and is still the process recorded for it.
bench_pid_alive() {
    kill -0 "$1" 2>/dev/null || return 1
    [ -z "${2:-}" ] || [ "$(bench_proc_start "$1")" = "$2" ]
}

# bench_pids_of NAME: the recorded pids of NAME that still run.
bench_pids_of() {
    [ -f "$BENCH_PIDS" ] || return 0
    local n p c
    while read -r n p c; do
        if [ "$n" = "$1" ] && bench_pid_alive "$p" "$c"; then echo "$p"; fi
    done <"$BENCH_PIDS"
    return 0
}

bench_forget_pid() {
    [ -f "$BENCH_PIDS" ] || return 0
    awk -v p="$1" '$2 != p' "$BENCH_PIDS" >"$BENCH_PIDS.tmp" && mv "$BENCH_PIDS.tmp" "$BENCH_PIDS"
    [ -s "$BENCH_PIDS" ] || rm -f "$BENCH_PIDS"
}

# bench_stop_pid PID [STARTTIME]: SIGTERM, up to 15 s for it to exit, then SIGKILL.
bench_stop_pid() {
    local pid=$1 start=${2:-} i
    if bench_pid_alive "$pid" "$start"; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 150; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            bench_log "pid $pid ignored SIGTERM; SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    bench_forget_pid "$pid"
}

# bench_stop NAME: stops every recorded pid of NAME.
bench_stop() {
    [ -f "$BENCH_PIDS" ] || return 0
    local n p c
    while read -r n p c; do
        if [ "$n" = "$1" ]; then
            bench_log "stopping $n (pid $p)"
            bench_stop_pid "$p" "$c"
        fi
    done < <(cat "$BENCH_PIDS")
}

# bench_stop_all: stops every process recorded in $BENCH_PIDS, newest first.
bench_stop_all() {
    [ -f "$BENCH_PIDS" ] || return 0
    local n p c
    while read -r n p c; do
        bench_log "stopping $n (pid $p)"
        bench_stop_pid "$p" "$c"
    done < <(tac "$BENCH_PIDS")
}

# bench_own NAME...: stop these servers when this script exits, however it exits.
BENCH_OWNED=()
bench_own() {
    BENCH_OWNED+=("$@")
    trap 'bench__cleanup' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
bench__cleanup() {
    local n
    for n in "${BENCH_OWNED[@]}"; do bench_stop "$n"; done
}

# bench_raise_nofile: raises the soft open-file limit of this shell to the hard limit (capped at
# 1048576) and prints the result.
bench_raise_nofile() {
    local hard
    hard=$(ulimit -Hn)
    [ "$hard" = unlimited ] && hard=1048576
    [ "$hard" -gt 1048576 ] && hard=1048576
    ulimit -n "$hard" 2>/dev/null || true
    ulimit -n
}

# ---------------------------------------------------------------------------------------------
# The peers built from source: bench/peers/grpc-go (Go module proxy) and bench/peers/tonic-echo
# (crates.io).

BENCH_GRPC_ECHO=$BENCH_ROOT/target/bench-peers/grpc-echo
BENCH_TONIC_TARGET=${CARGO_TARGET_DIR:-$BENCH_ROOT/target/bench-peers/tonic-echo}
# release for measurements; the smoke (run-all.sh --smoke) builds dev, which only has to start
# and answer, in half the time.
BENCH_TONIC_PROFILE=${BENCH_TONIC_PROFILE:-release}
if [ "$BENCH_TONIC_PROFILE" = dev ]; then
    BENCH_TONIC_ECHO=$BENCH_TONIC_TARGET/debug/tonic-echo
else
    BENCH_TONIC_ECHO=$BENCH_TONIC_TARGET/$BENCH_TONIC_PROFILE/tonic-echo
fi

# bench_build_grpc_go: go build into target/bench-peers/grpc-echo when the sources changed.
bench_build_grpc_go() {
    local src=$BENCH_DIR/peers/grpc-go t0=$SECONDS
    if ! command -v go >/dev/null 2>&1; then
        [ -x /usr/local/go/bin/go ] && export PATH="$PATH:/usr/local/go/bin"
        command -v go >/dev/null 2>&1 ||
            bench_die "go is not installed (Debian's golang-go is too old for google.golang.org/grpc; Go >= 1.26 is needed, as google.golang.org/grpc v1.85 requires)"
    fi
    if [ -x "$BENCH_GRPC_ECHO" ] && [ -z "$(find "$src" -newer "$BENCH_GRPC_ECHO" \( -name '*.go' -o -name 'go.*' \) | head -1)" ]; then
        return 0
    fi
    bench_log "building grpc-echo (go build; modules from the Go module proxy)"
    mkdir -p "$(dirname "$BENCH_GRPC_ECHO")"
    (cd "$src" && GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -o "$BENCH_GRPC_ECHO" .) >"$BENCH_RUN/grpc-go-build.log" 2>&1 ||
        bench_die "go build failed (see $BENCH_RUN/grpc-go-build.log)"
    bench_log "built grpc-echo in $((SECONDS - t0)) s"
}

# bench_build_tonic: cargo build --locked of bench/peers/tonic-echo in $BENCH_TONIC_PROFILE (a no-op
# when fresh).
bench_build_tonic() {
    local src=$BENCH_DIR/peers/tonic-echo t0=$SECONDS
    if ! command -v cargo >/dev/null 2>&1; then
        [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$PATH:$HOME/.cargo/bin"
        command -v cargo >/dev/null 2>&1 || bench_die "cargo is not installed"
    fi
    CARGO_TARGET_DIR=$BENCH_TONIC_TARGET CARGO_PROFILE_DEV_DEBUG=false \
        cargo build --profile "$BENCH_TONIC_PROFILE" --locked --quiet --manifest-path "$src/Cargo.toml" >"$BENCH_RUN/tonic-build.log" 2>&1 ||
        bench_die "cargo build of tonic-echo failed (see $BENCH_RUN/tonic-build.log)"
    if [ $((SECONDS - t0)) -gt 2 ]; then bench_log "built tonic-echo in $((SECONDS - t0)) s"; fi
}

# ---------------------------------------------------------------------------------------------
# Records.

# Server CPU per request. bench_server_cpu_begin PID before the load generator runs,
# bench_server_cpu_end PID after: it prints `server_cpu_s=… server_window_s=…`, the server's
# utime + stime (fields 14 and 15 of /proc/PID/stat, after the command name) and the wall time
# between the two calls, for bench_emit's key=value list. benchjson.py turns them into
# server_cores (server_cpu_s / server_window_s) and server_cpu_us_per_request (server_cores / qps),
# the figure least disturbed by a shared machine. Empty output when the pid is unreadable.
bench_cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }
bench_server_cpu_begin() {
    BENCH__CPU0=$(bench_cpu_ticks "$1")
    BENCH__T0=$(date +%s.%N)
}
bench_server_cpu_end() {
    local t1 cpu1
    cpu1=$(bench_cpu_ticks "$1")
    t1=$(date +%s.%N)
    [ -n "$cpu1" ] && [ -n "${BENCH__CPU0:-}" ] || return 0
    awk -v a="$BENCH__CPU0" -v b="$cpu1" -v t0="$BENCH__T0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
        'BEGIN {printf "server_cpu_s=%.2f server_window_s=%.3f\n", (b - a) / hz, t1 - t0}'
}

bench_machine_json() {
    local cpu
    cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
    [ -n "$cpu" ] || cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)
    bench_json meta=machine nproc="$(nproc)" kernel="$(uname -r)" arch="$(uname -m)" \
        cpu_model="$cpu" mem_kib="$(awk '/^MemTotal/ {print $2}' /proc/meminfo)" \
        os="$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")" \
        date="$(date -u +%Y-%m-%dT%H:%M:%SZ)" server_cpus="$BENCH_SERVER_CPUSET" client_cpus="$BENCH_CLIENT_CPUSET"
}

bench_pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }

# bench_version_json PEER VERSION [key=value...]
bench_version_json() {
    local peer=$1 version=$2
    shift 2
    bench_json meta=version peer="$peer" version="$version" "$@"
}

# bench_quote CMD...: the command as one shell-quoted string, for the records.
bench_quote() {
    local quoted="" a
    for a in "$@"; do quoted+="$(printf '%q' "$a") "; done
    echo "${quoted% }"
}

# bench_peer_version_json PEER: the meta:version line of one peer (sockperf, redis, grpc-go,
# tonic, mariadb, sysbench), as peers.sh prints them.
bench_peer_version_json() {
    case "$1" in
    sockperf) bench_version_json sockperf "$(bench_pkg_version sockperf)" source=debian ;;
    redis) bench_version_json redis "$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')" package="$(bench_pkg_version redis-server)" source=debian ;;
    grpc-go) bench_version_json grpc-go "$(awk '$1 == "google.golang.org/grpc" {print $2} $1 == "require" && $2 == "google.golang.org/grpc" {print $3}' "$BENCH_DIR/peers/grpc-go/go.mod" | head -1)" go="$(go env GOVERSION)" source=go-module-proxy ;;
    tonic) bench_version_json tonic "$(awk '/^name = "tonic"$/ {getline; gsub(/"/, "", $3); print $3}' "$BENCH_DIR/peers/tonic-echo/Cargo.lock" | head -1)" rustc="$(rustc --version | awk '{print $2}')" source=crates.io ;;
    mariadb) bench_version_json mariadb "$(mariadbd --version | awk '{print $3}')" package="$(bench_pkg_version mariadb-server)" source=debian ;;
    sysbench) bench_version_json sysbench "$(sysbench --version | awk '{print $2}')" package="$(bench_pkg_version sysbench)" source=debian ;;
    *) bench_die "no version rule for $1" ;;
    esac
}
