#!/usr/bin/env bash
# Builds Fuzz/ with libFuzzer and AddressSanitizer and runs every target for a fixed number
# of inputs, starting from the committed seeds in Fuzz/Corpus/<target>/ (new corpus entries
# go to a scratch copy, so the repository stays unchanged).
#
# Usage: scripts/fuzz.sh [runs-per-target] [target ...]
#        default 100000 runs (the CI pass); Docs/Security.md reports a 10,000,000-run pass.
#        FEDERATE_FUZZ_CONFIGURATION=release builds with -O (same sanitizers, overflow and
#        bounds checks kept; several times as many inputs per second) in Fuzz/.build-release.
#        FEDERATE_FUZZ_JOBS: targets run at once (default: the number of cores).
# Exit status: non-zero when a target crashes, leaks, times out or fails an invariant;
# libFuzzer's crash-* / leak-* / timeout-* files are then left in Fuzz/artifacts/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-100000}"
shift || true
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    # The slowest first (claims verifies every input as every token kind: 100,000 inputs take
    # about 6 minutes, the twelve others together about 3), so the others run beside it.
    TARGETS=(claims jws jwks x509 discovery token-response callback sealed-pending apple-user apple-notification endpoint-url terminal-text cbor)
fi

cd "$ROOT/Fuzz"
CONFIGURATION="${FEDERATE_FUZZ_CONFIGURATION:-debug}"
case "$CONFIGURATION" in
    debug) SCRATCH_PATH="$ROOT/Fuzz/.build" ;;
    release) SCRATCH_PATH="$ROOT/Fuzz/.build-release" ;;
    *) echo "FEDERATE_FUZZ_CONFIGURATION must be debug or release" >&2; exit 2 ;;
esac
echo "[fuzz] building ($CONFIGURATION, -sanitize=fuzzer,address)" >&2
swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH_PATH" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product FederateFuzz >&2
BIN="$SCRATCH_PATH/$CONFIGURATION/FederateFuzz"

mkdir -p "$ROOT/Fuzz/artifacts"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/federate-fuzz.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
# One target per core at a time (FEDERATE_FUZZ_JOBS, default the number of cores): the same
# inputs, in about half the wall-clock time on two cores.
JOBS="${FEDERATE_FUZZ_JOBS:-$(nproc)}"
run_target() { # $1 = target; writes $SCRATCH/$1.result (a line to print) and $SCRATCH/$1.status
    local target="$1" corpus="$SCRATCH/$1" start execs
    mkdir -p "$corpus"
    cp -R "$ROOT/Fuzz/Corpus/$target/." "$corpus/"
    start=$(date +%s)
    # libFuzzer checks every input for leaks (-detect_leaks=1). LeakSanitizer's own check at
    # exit is off: it reports the fixtures held in globals, whose pointers Swift stores with
    # enum tags in their spare bits, where the scanner cannot recognise them.
    # Allocations made while building the fixtures are suppressed for the same reason (Fuzz/lsan.supp).
    if ASAN_OPTIONS="leak_check_at_exit=0" LSAN_OPTIONS="suppressions=$ROOT/Fuzz/lsan.supp" FEDERATE_FUZZ_TARGET="$target" "$BIN" -runs="$RUNS" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$ROOT/Fuzz/artifacts/$target-" \
        "$corpus" >"$SCRATCH/$target.log" 2>&1; then
        execs=$(sed -n "s/^stat::number_of_executed_units: *//p" "$SCRATCH/$target.log")
        echo "fuzz $target: ok, ${execs:-?} inputs in $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) files" >"$SCRATCH/$target.result"
        echo ok >"$SCRATCH/$target.status"
    else
        { echo "fuzz $target: FAILED (log below; artifacts in Fuzz/artifacts/)"; tail -40 "$SCRATCH/$target.log"; } >"$SCRATCH/$target.result"
        echo failed >"$SCRATCH/$target.status"
    fi
}
running=()
for target in "${TARGETS[@]}"; do
    if [[ ${#running[@]} -ge $JOBS ]]; then
        wait "${running[0]}" || true
        running=("${running[@]:1}")
    fi
    run_target "$target" & running+=($!)
done
wait || true
passed=0
failed=0
for target in "${TARGETS[@]}"; do
    cat "$SCRATCH/$target.result" 2>/dev/null || echo "fuzz $target: FAILED (it did not run to its end)"
    if [[ "$(cat "$SCRATCH/$target.status" 2>/dev/null)" == ok ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
