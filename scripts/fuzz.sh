#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time each: scripts/fuzz.sh [seconds-per-target] [target...]
#
# XRPC_FUZZ_BUILD=dev builds the targets unoptimised: 2.3 minutes instead of 5.5 on 2 cores (the
# server target links the whole node), for about a twentieth of the executions per second. CI's
# smoke run uses it, because there the point is that every target builds and survives a first
# burst of inputs; real fuzzing runs optimised (the default).
#
# cargo-fuzz needs unstable compiler flags; RUSTC_BOOTSTRAP=1 lets the installed stable toolchain accept them,
# and `-s none` skips AddressSanitizer, which needs a nightly standard library. The decoders contain no unsafe
# code, so panics, aborts, timeouts and out-of-memory are what the runs look for; server_session also aborts
# when the node's answers or session counts break its invariants (docs/RELIABILITY.md, "Fuzzing the server").
# mysql_backend_decoder aborts when a command accepted on the backend connection (queries, resets, pings, database
# changes, interleaved with cancels, partial writes and timeouts) does not end with exactly one terminal event, or
# anything follows that event or Closed (xrpc-mysql-proto's invariants). Every `[[bin]]` of fuzz/Cargo.toml is a target.
#
# The build goes to the workspace's target/fuzz/ (XRPC_FUZZ_TARGET_DIR to change it), so that `cargo clean`
# removes it; the corpora and any crash artifacts stay in fuzz/corpus/ and fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
target_dir="${XRPC_FUZZ_TARGET_DIR:-$(cd .. && pwd)/target/fuzz}"

seconds="${1:-60}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^xrpc-fuzz$')
fi

export RUSTC_BOOTSTRAP=1
export CARGO_INCREMENTAL=0
# A debug build of cargo-fuzz itself: it only drives cargo, and builds in half the time.
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked --debug
case "${XRPC_FUZZ_BUILD:-release}" in
    release) mode=(-O --target-dir "$target_dir") ;;
    dev) mode=(--dev --target-dir "$target_dir") && export CARGO_PROFILE_DEV_DEBUG=false ;;
    *) echo "XRPC_FUZZ_BUILD must be release or dev" >&2 && exit 2 ;;
esac

# One build for every target: they share the dependency graph.
if [ "${#targets[@]}" -gt 1 ]; then
    cargo fuzz build -s none "${mode[@]}" >/dev/null 2>&1 || cargo fuzz build -s none "${mode[@]}"
fi

for target in "${targets[@]}"; do
    cargo fuzz build -s none "${mode[@]}" "$target" >/dev/null 2>&1 || cargo fuzz build -s none "${mode[@]}" "$target"
    printf '\n==> %s for %ss\n' "$target" "$seconds"
    mkdir -p "corpus/$target"
    # server_session's inputs are scripts: libFuzzer's slow growth of the input length would keep a
    # short run at a step or two, so it starts at full length.
    extra=()
    [ "$target" = server_session ] && extra=(-len_control=0 -max_len=4096)
    cargo fuzz run -s none "${mode[@]}" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        "${extra[@]}" 2>&1 |
        grep -E '^(stat::number_of_executed_units|stat::new_units_added|INFO: Running|==[0-9]+== ERROR|SUMMARY|thread .* panicked|Done )' || true
    # One pattern at a time: `ls a b c` fails as soon as one kind is missing, which hid every crash.
    if compgen -G "artifacts/$target/crash-*" >/dev/null || compgen -G "artifacts/$target/oom-*" >/dev/null ||
        compgen -G "artifacts/$target/timeout-*" >/dev/null; then
        echo "FAILED: $target left artifacts in fuzz/artifacts/$target" >&2
        exit 1
    fi
done
echo "all fuzz targets ran without a crash"
