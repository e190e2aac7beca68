#!/usr/bin/env bash
# Runs the libFuzzer targets of the 'fuzz' preset for a bounded time each,
# as many at once as there are cores (two on the CI machine; docs/fuzzing.md).
#
#   tests/fuzz/run-fuzzers.sh [--seconds N] [--grow] [--build DIR] [TARGET...]
#   tests/fuzz/run-fuzzers.sh --minimise [--build DIR] [TARGET...]
#
# TARGET is snapshot_reader, frame_parser, filter_query or export_path (all
# four by default). Each run starts from the repository's corpus
# (tests/fuzz/corpus/TARGET) and writes what it finds under
# DIR/fuzz-runs/TARGET: new inputs in new/, a crash, leak or timeout in
# findings/. The repository is never changed, unless --grow: then the new
# inputs that add coverage are merged into its corpus, to be committed.
# Every run appends a line to DIR/fuzz-runs/log.tsv (date, target, seconds,
# executions, new inputs, result), the figures docs/fuzzing.md adds up.
# Exits 1 when any target found a failure, naming the input and the command
# that replays it. --minimise fuzzes nothing: it rewrites each corpus to the
# inputs that keep its coverage (libFuzzer's -merge=1 into an empty folder),
# always keeping the named seeds and findings (any file not named by its
# SHA-1), which docs/fuzzing.md lists as regression inputs.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
seconds=60
grow=0
minimise=0
build="$here/../../build/fuzz"
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a number}"; shift 2;;
        --grow) grow=1; shift;;
        --minimise) minimise=1; shift;;
        --build) build="${2:?--build needs a folder}"; shift 2;;
        -h|--help) sed -n '2,21p' "$0"; exit 0;;
        -*) echo "run-fuzzers: unknown option $1" >&2; exit 2;;
        *) targets+=("$1"); shift;;
    esac
done
case "$seconds" in ''|*[!0-9]*) echo "run-fuzzers: --seconds wants a whole number" >&2; exit 2;; esac
[ ${#targets[@]} -eq 0 ] && targets=(snapshot_reader frame_parser filter_query export_path)
for t in "${targets[@]}"; do
    [ -d "$here/corpus/$t" ] || { echo "run-fuzzers: unknown target $t" >&2; exit 2; }
done
build="$(cd "$build" 2>/dev/null && pwd)" || {
    echo "run-fuzzers: no fuzz build; run: cmake --preset fuzz && cmake --build --preset fuzz" >&2
    exit 2
}

# LeakSanitizer's options for a target. Graphviz and the font stack leak
# inside themselves: tests/graphviz/lsan.supp names exactly those internals,
# and matching needs full malloc stacks, which cost speed: only for the
# target that draws (after what the user set).
lsan_for() {
    local lsan="${LSAN_OPTIONS:-}"
    [ "$1" = export_path ] && \
        lsan="${lsan:+$lsan:}suppressions=$here/../graphviz/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    printf '%s' "$lsan"
}

fuzzer_of() {
    local fuzzer="$build/tests/fuzz/fuzz_$1"
    [ -x "$fuzzer" ] || { echo "run-fuzzers: $fuzzer is missing (cmake --build --preset fuzz)" >&2; return 2; }
    printf '%s' "$fuzzer"
}

# One corpus rewritten to what keeps its coverage, named files always kept.
minimise_one() {
    local target="$1" corpus="$here/corpus/$1" fuzzer
    fuzzer=$(fuzzer_of "$target") || return 2
    local work="$build/fuzz-runs/$target/minimise"
    rm -rf "$work" && mkdir -p "$work/kept"
    find "$corpus" -maxdepth 1 -type f -regextype posix-extended ! -regex '.*/[0-9a-f]{40}' -exec cp {} "$work/kept/" \;
    local before; before=$(ls "$corpus" | wc -l)
    LSAN_OPTIONS="$(lsan_for "$target")" "$fuzzer" -merge=1 -rss_limit_mb=2048 \
        "$work/kept" "$corpus" > "$work/merge.log" 2>&1 \
        || { echo "run-fuzzers: merge failed: $work/merge.log" >&2; return 1; }
    find "$corpus" -maxdepth 1 -type f -delete
    cp "$work/kept/"* "$corpus/"
    echo "run-fuzzers: $target: corpus minimised from $before to $(ls "$corpus" | wc -l) files"
}

# One target: the run, its figures in the log, and what it left behind.
run_one() {
    local target="$1" corpus="$here/corpus/$1" fuzzer
    fuzzer=$(fuzzer_of "$target") || return 2
    local work="$build/fuzz-runs/$1"
    mkdir -p "$work/new" "$work/findings"
    local before; before=$(find "$work/new" -type f | wc -l)
    local lsan; lsan=$(lsan_for "$target")
    # New inputs go to the first folder; the repository's corpus is only read.
    LSAN_OPTIONS="$lsan" "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 \
        -print_final_stats=1 -artifact_prefix="$work/findings/" \
        "$work/new" "$corpus" > "$work/last.log" 2>&1
    local status=$?
    local execs; execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/last.log" | tail -1)
    local found=$(( $(find "$work/new" -type f | wc -l) - before ))
    local result=ok
    [ $status -ne 0 ] && result=failed
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$seconds" "${execs:-0}" \
        "$found" "$result" >> "$build/fuzz-runs/log.tsv"
    echo "run-fuzzers: $target: $seconds s, ${execs:-0} executions, $found new inputs, $result"
    if [ $status -ne 0 ]; then
        grep -E "ERROR|SUMMARY|Test unit written" "$work/last.log" | head -8 >&2
        local finding; finding=$(ls -t "$work/findings" 2>/dev/null | head -1)
        if [ -n "$finding" ]; then
            echo "run-fuzzers: replay with: $fuzzer $work/findings/$finding" >&2
            echo "run-fuzzers: once fixed, add it to $corpus so it stays a test" >&2
        fi
        echo "run-fuzzers: whole output: $work/last.log" >&2
        return 1
    fi
    if [ $grow = 1 ] && [ -n "$(ls -A "$work/new")" ]; then
        LSAN_OPTIONS="$lsan" "$fuzzer" -merge=1 -rss_limit_mb=2048 "$corpus" "$work/new" \
            > "$work/merge.log" 2>&1 || { echo "run-fuzzers: merge failed: $work/merge.log" >&2; return 1; }
        echo "run-fuzzers: $target: corpus now $(ls "$corpus" | wc -l) files"
    fi
}

mkdir -p "$build/fuzz-runs"
if [ $minimise = 1 ]; then
    failed=0
    for t in "${targets[@]}"; do minimise_one "$t" || failed=1; done
    exit $failed
fi
failed=0
running=0
pids=()
for t in "${targets[@]}"; do
    run_one "$t" &
    pids+=($!)
    running=$((running + 1))
    if [ $running -ge "$(nproc)" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
done
while [ $running -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
exit $failed
