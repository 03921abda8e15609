#!/usr/bin/env bash
# fuzz.sh — run one cargo-fuzz target for N minutes (docs/FUZZING.md).
#
#   scripts/fuzz.sh TARGET [MINUTES]     # TARGET: tool_args | getitems | cdp_message | daemon_frames
#   scripts/fuzz.sh all [MINUTES]        # each target in turn, MINUTES each
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). New inputs that
# widen coverage go to fuzz/corpus-work/TARGET (not kept); the kept seeds in fuzz/corpus/TARGET
# are only read. A crash is written to fuzz/artifacts/TARGET/: copy it to
# fuzz/regressions/TARGET/ so the crate's `tests/fuzz.rs` replays it, and fix the bug.
# The last line printed is the summary recorded in docs/FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
targets=(tool_args getitems cdp_message daemon_frames)
target="${1:?usage: scripts/fuzz.sh TARGET|all [MINUTES]}"
minutes="${2:-5}"
if [[ "$target" == all ]]; then
    for t in "${targets[@]}"; do "../scripts/fuzz.sh" "$t" "$minutes"; done
    exit 0
fi
[[ " ${targets[*]} " == *" $target "* ]] || { echo "unknown target $target (${targets[*]})" >&2; exit 2; }
mkdir -p "corpus-work/$target" "corpus/$target" "artifacts/$target"
log="artifacts/$target/last-run.log"
# -s none: the code under test is safe Rust, so AddressSanitizer adds cost and finds nothing
# a panic would not; coverage guidance and debug assertions (overflow checks) stay on.
set +e
cargo +nightly fuzz run -s none "$target" "corpus-work/$target" "corpus/$target" -- \
    -max_total_time=$((minutes * 60)) -max_len=8192 -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
execs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
crashes=$(find "artifacts/$target" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
echo "fuzz $target: ${minutes} min, ${execs} execs, ${crashes} crash/timeout/oom inputs, exit ${status}"
exit "$status"
