#!/usr/bin/env bash
# Growth floor: how fast does the time of the simplest pass that annotates every op grow on
# this machine, next to our passes, measured side by side in one run?
#
# The target: a pass's own time grows no faster than n^1.10 from 10k to 1M ops.
# Any pass that writes an attribute on every op pays MLIR's write-back: one new attribute
# dictionary per op, uniqued in a context-wide table that grows to millions of entries,
# then MLIR's verification of the module. `--ascend-topo-order` does nothing else (a walk
# and one integer attribute per op), so its growth is the floor the memory hierarchy sets
# for such a pass here. For every family and size, best of RUNS, each pass's own time from
# MLIR's timing report:
#   floor    ge-opt FILE --ascend-topo-order                    (the floor pass)
#   stream   ge-opt FILE --stream-alloc=$STREAM_OPTIONS           (streams)
#   plan     ge-opt FILE --ge-mem-plan-pipeline                  (the static plan)
# `k` columns are growth exponents from the first size. With VERIFY=false (the default)
# MLIR's verifier does not run after the passes (`own` in the other scripts); VERIFY=true
# includes it.
#
# Environment:
#   FAMILIES="resnet transformer wide-dag control-flow"  SIZES="10000 100000 1000000"
#   RUNS=3 BIG_SIZE=1000000 BIG_RUNS=2  SEED=1  VERIFY=false  OUT=bench-out
#   STREAM_OPTIONS="max-stream-normal=2048,max-events=1048576"  (as tools/bench-stream.sh)
#   GE_OPT, GE_GEN                    use these binaries instead of building release ones
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=bench-floor.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh

FAMILIES=${FAMILIES:-"resnet transformer wide-dag control-flow"}
SIZES=${SIZES:-"10000 100000 1000000"}
RUNS=${RUNS:-3}
BIG_SIZE=${BIG_SIZE:-1000000}
BIG_RUNS=${BIG_RUNS:-2}
SEED=${SEED:-1}
VERIFY=${VERIFY:-false}
OUT=${OUT:-bench-out}
STREAM_OPTIONS=${STREAM_OPTIONS:-max-stream-normal=2048,max-events=1048576}

bench_build_bins
mkdir -p "$OUT"
errors="$OUT/floor-errors.log"
: >"$errors"

# pass_time KEY REPORT_NAME FLAG: one run of ge-opt with FLAG; keeps the pass's line.
pass_time() {
    local key=$1 name=$2 flag=$3
    if bench_timed "${key}_run" "$errors" "$GE_OPT" "$file" "$flag" --verify-each="$VERIFY" \
        --mlir-timing -o /dev/null; then
        bench_keep "$key" "$(awk -v n="$name" '$NF == n { print $1; exit }' "$BENCH_STDERR")"
    fi
}

results="$OUT/floor-$(date +%Y%m%d-%H%M%S).txt"
{
    echo "# own pass times (verify-each=$VERIFY), best of $RUNS runs (sizes >= $BIG_SIZE: $BIG_RUNS); $(bench_machine)"
    printf "%-12s %8s | %8s %5s | %8s %5s | %8s %5s\n" family ops "floor s" k "stream s" k "plan s" k
} | tee "$results"
for family in $FAMILIES; do
    first_n=""
    declare -A first=()
    for size in $SIZES; do
        file=$(bench_graph "$family" "$size" "$SEED" "$OUT")
        ops=$(bench_ops "$file")
        runs=$RUNS
        ((size >= BIG_SIZE)) && runs=$BIG_RUNS
        BENCH_BEST=()
        for ((i = 0; i < runs; i++)); do
            pass_time floor AscendTopoOrder --ascend-topo-order
            pass_time stream StreamAlloc "--stream-alloc=$STREAM_OPTIONS"
            pass_time plan GeMemPlanPipeline --ge-mem-plan-pipeline
        done
        [[ -z $first_n ]] && first_n=$ops
        row=$(printf "%-12s %8s" "$family" "$ops")
        for key in floor stream plan; do
            t=${BENCH_BEST[$key]:-FAIL}
            [[ -z ${first[$key]:-} ]] && first[$key]=$t
            row+=$(printf " | %8s %5s" "$t" "$(bench_growth "${first[$key]}" "$t" "$first_n" "$ops")")
        done
        echo "$row" | tee -a "$results"
    done
    unset first
done
echo "# table saved to $results" >&2
if grep -q FAIL "$results"; then
    echo "bench-floor.sh: some runs FAILED; see $errors" >&2
    exit 1
fi
