#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time each: scripts/fuzz.sh [seconds-per-target] [target...]
#
# cargo-fuzz needs unstable compiler flags; RUSTC_BOOTSTRAP=1 lets the installed stable toolchain accept them,
# and `-s none` skips AddressSanitizer, which needs a nightly standard library. The decoders contain no unsafe
# code, so panics, aborts, timeouts and out-of-memory are what the runs look for.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^xrpc-fuzz$')
fi

export RUSTC_BOOTSTRAP=1
export CARGO_INCREMENTAL=0
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked

for target in "${targets[@]}"; do
    cargo fuzz build -s none -O "$target" >/dev/null 2>&1
    printf '\n==> %s for %ss\n' "$target" "$seconds"
    mkdir -p "corpus/$target"
    cargo fuzz run -s none -O "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1 |
        grep -E '^(stat::number_of_executed_units|stat::new_units_added|INFO: Running|==[0-9]+== ERROR|SUMMARY|thread .* panicked|Done )' || true
    if ls "artifacts/$target"/crash-* "artifacts/$target"/oom-* "artifacts/$target"/timeout-* >/dev/null 2>&1; then
        echo "FAILED: $target left artifacts in fuzz/artifacts/$target" >&2
        exit 1
    fi
done
echo "all fuzz targets ran without a crash"
