#!/usr/bin/env bash
# scripts/soak.sh [minutes]: runs an xrpc node under a mixed load for a while and judges it.
#
# Starts xrpc-server (release build by default; XRPC_SOAK_PROFILE=dev uses the debug build) on a free
# loopback port with a fresh data directory, and runs the soak load against it
# (crates/xrpc-client/examples/soak.rs): point reads, writes, transactions, kills, client timeouts,
# session churn and connection churn, for [minutes] (default 10; fractions such as 0.5 allowed).
# Every few seconds it records the node's resident memory, fds and threads, the statements done and
# the errors by code. It passes when resident memory grows less than 5 % over the second half, the
# fds return to their value before the load, no error appears that the load did not provoke (only
# 1317 and the client's timeouts are), and the node then drains on SIGTERM with exit status 0 and no
# panic or ERROR in its log. Exit status 0 on pass, 1 on fail.
#
# The record stays in the directory printed at the end (XRPC_SOAK_DIR to choose it).
set -euo pipefail
cd "$(dirname "$0")/.."

MINUTES=${1:-10}
PROFILE=${XRPC_SOAK_PROFILE:-release}
DURATION=$(awk -v m="$MINUTES" 'BEGIN { s = int(m * 60); if (s < 10) s = 10; print s }')
SAMPLE=$(( DURATION >= 300 ? 10 : 5 ))
TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ "$PROFILE" = release ]; then BIN=$TARGET_DIR/release; else BIN=$TARGET_DIR/debug; fi
WORK=${XRPC_SOAK_DIR:-$(mktemp -d -t xrpc-soak.XXXXXX)}
mkdir -p "$WORK"

log() { printf '==> %s\n' "$*"; }

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
log "building ($PROFILE): xrpc-server and the soak load"
if [ "$PROFILE" = dev ]; then
    # `cargo test --workspace`'s selection, so that after it (as in scripts/test.sh) nothing builds.
    build=(cargo build --locked --profile dev --workspace --bins --examples)
else
    build=(cargo build --locked --profile "$PROFILE" -p xrpc-server --bin xrpc-server -p xrpc-client --example soak)
fi
"${build[@]}" >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; exit 1; }

NODE_PID=
cleanup() {
    if [ -n "$NODE_PID" ] && kill -0 "$NODE_PID" 2>/dev/null; then kill -KILL "$NODE_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

log "starting xrpc-server; data and logs in $WORK"
"$BIN/xrpc-server" --listen 127.0.0.1:0 --data-dir "$WORK/data" --log info 2>"$WORK/node.log" &
NODE_PID=$!
ADDR=
for _ in $(seq 1 300); do
    ADDR=$(sed -n 's/.*xrpc data node ready.*addr=\([0-9.]*:[0-9]*\).*/\1/p' "$WORK/node.log" | head -1)
    [ -n "$ADDR" ] && break
    kill -0 "$NODE_PID" 2>/dev/null || { cat "$WORK/node.log" >&2; echo "soak: the node did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$ADDR" ] || { cat "$WORK/node.log" >&2; echo "soak: the node did not start within 30 s" >&2; exit 1; }

log "soak: ${DURATION} s against $ADDR (pid $NODE_PID), a sample every ${SAMPLE} s"
status=0
"$BIN/examples/soak" "$ADDR" "$DURATION" "$NODE_PID" "$SAMPLE" | tee "$WORK/soak.txt" || status=1

log "draining the node (SIGTERM)"
kill -TERM "$NODE_PID"
node_status=0
wait "$NODE_PID" || node_status=$?
NODE_PID=
if [ "$node_status" -ne 0 ]; then
    echo "soak: FAIL: the node exited with status $node_status on SIGTERM" >&2
    status=1
fi
if grep -E 'panicked| ERROR ' "$WORK/node.log" >&2; then
    echo "soak: FAIL: the node logged the lines above" >&2
    status=1
fi
warnings=$(grep -c ' WARN ' "$WORK/node.log" || true)
log "node log: $warnings warning line(s) (see $WORK/node.log)"
if [ "$status" -eq 0 ]; then log "soak passed; record in $WORK/soak.txt"; else log "soak FAILED; record in $WORK"; fi
exit "$status"
