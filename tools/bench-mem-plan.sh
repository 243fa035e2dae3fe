#!/usr/bin/env bash
# Static-plan benchmark: the symbol-level memory passes (--inplace-support-check,
# --mem-layout-conflict, --mem-inplace, --mem-assign, --set-io-offset), by default fused in
# --ge-mem-plan-pipeline (one model, one write-back, one verification; the same output IR
# as the five flags, see test/Transforms/Memory/mem-plan-fused.test), against stock
# `mlir-opt` parsing and printing the same file, plus the quality of the static plan.
#
# For every family and size: FILE.mlir from ge-gen, then, round-robin, best of RUNS:
#   mlir     mlir-opt --irdl-file=$IRDL FILE.mlir -o /dev/null         (parse + verify + print)
#   passes   ge-opt FILE.mlir $PASSES --mlir-timing -o /dev/null
#   own      the same with --verify-each=false
# As tools/bench-stream.sh does, the passes' cost is read from MLIR's timing report: `pass s`
# is the sum of the lines of the passes in PASSES (the fused pipeline's one line, or the five
# passes', each then building its model from the IR, deciding, writing back and verifying),
# MLIR's verification after each pass included, `pass x` = pass s / mlir s (target <= 1.00). `n^k` is the growth exponent of
# the pass time from the previous size (target <= 1.10), `n^k all` the exponent from the
# first size to this one. `peak/lb` is the plan's peak over its max-live lower bound
# (target <= 1.10) and `peak/ub` over the no-reuse upper bound, from --mem-assign's remark;
# the per-pass seconds follow (with the fused pipeline, one column). `own s` is the passes'
# time without MLIR's verification after them (--verify-each=false: the passes' own work;
# the verifier is MLIR's, and mlir-opt's parse already ran it once), `own k` its growth
# exponent from the first size.
#
# Environment:
#   FAMILIES="transformer resnet wide-dag control-flow"
#   SIZES="10000 100000 1000000"      requested op counts
#   RUNS=3                            runs per measurement (best kept)
#   BIG_SIZE=1000000 BIG_RUNS=1       sizes >= BIG_SIZE use BIG_RUNS runs
#   SEED=1  IRDL=dialects/ascend.irdl.mlir  MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
#   PASSES="--ge-mem-plan-pipeline"   or the five flags, e.g. "--inplace-support-check
#                                     --mem-layout-conflict --mem-inplace --mem-assign --set-io-offset"
#   GE_OPT, GE_GEN                    use these binaries instead of building release ones
#   OUT=bench-out  REGEN=0            where graphs and results go; 1 = regenerate graphs
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=bench-mem-plan.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh

FAMILIES=${FAMILIES:-"transformer resnet wide-dag control-flow"}
SIZES=${SIZES:-"10000 100000 1000000"}
RUNS=${RUNS:-3}
BIG_SIZE=${BIG_SIZE:-1000000}
BIG_RUNS=${BIG_RUNS:-1}
SEED=${SEED:-1}
IRDL=${IRDL:-dialects/ascend.irdl.mlir}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
PASSES=${PASSES:-"--ge-mem-plan-pipeline"}
OUT=${OUT:-bench-out}
# Names of the passes in MLIR's timing report: each flag of PASSES in CamelCase
# (--mem-assign=x -> MemAssign), as ge-opt names them.
REPORT_NAMES=()
for flag in $PASSES; do
    flag=${flag#--} flag=${flag%%=*}
    REPORT_NAMES+=("$(sed -E 's/(^|-)([a-z])/\U\2/g' <<<"$flag")")
done

bench_require "$MLIR_OPT" "$IRDL"
bench_build_bins
mkdir -p "$OUT"
errors="$OUT/mem-plan-errors.log"
: >"$errors"

# pass_seconds STDERR: the sum of the static-plan passes' wall times in a timing report, then
# each pass's own.
pass_seconds() {
    awk -v names="${REPORT_NAMES[*]}" '
        BEGIN { n = split(names, want, " "); for (i = 1; i <= n; i++) t[want[i]] = "" }
        { for (i = 1; i <= n; i++) if ($NF == want[i] && t[want[i]] == "") t[want[i]] = $1 }
        END { s = 0; line = ""; for (i = 1; i <= n; i++) { s += t[want[i]]; line = line " " (t[want[i]] == "" ? "-" : t[want[i]]) }
              printf "%.4f%s\n", s, line }' "$1"
}

results="$OUT/mem-plan-$(date +%Y%m%d-%H%M%S).txt"
failed=0
{
    echo "# ge-opt $PASSES vs mlir-opt parse+verify+print, best of $RUNS runs (sizes >= $BIG_SIZE: $BIG_RUNS)"
    echo "# $("$MLIR_OPT" --version | grep -m1 -i version | sed 's/^ *//'); $(bench_machine)"
    printf "%-12s %8s | %7s %7s | %6s %5s %6s | %7s %6s | %7s %7s | %s\n" \
        family ops "mlir s" "pass s" "pass x" "n^k" "n^k all" "own s" "own k" "peak/lb" "peak/ub" "${REPORT_NAMES[*]} (s)"
} | tee "$results"

for family in $FAMILIES; do
    first_n="" first_t="" first_o="" prev_n="" prev_t=""
    for size in $SIZES; do
        file=$(bench_graph "$family" "$size" "$SEED" "$OUT")
        ops=$(bench_ops "$file")
        runs=$RUNS
        ((size >= BIG_SIZE)) && runs=$BIG_RUNS
        BENCH_BEST=()
        parts="" lb="-" ub="-"
        for ((i = 0; i < runs; i++)); do
            bench_timed mlir "$errors" "$MLIR_OPT" --irdl-file="$IRDL" "$file" -o /dev/null || true
            # shellcheck disable=SC2086
            if bench_timed total "$errors" "$GE_OPT" "$file" $PASSES --mlir-timing -o /dev/null; then
                read -r sum rest < <(pass_seconds "$BENCH_STDERR")
                if [[ -z ${BENCH_BEST[pass]:-} ]] || awk -v a="$sum" -v b="${BENCH_BEST[pass]}" 'BEGIN { exit !(a < b) }'; then
                    parts=$rest
                fi
                bench_keep pass "$sum"
                remark=$(grep -m1 'mem-assign: workspace' "$BENCH_STDERR" || true)
                lb=$(sed -n 's/.*lower bound [0-9]* bytes (peak \([0-9.]*\)x).*/\1/p' <<<"$remark")
                ub=$(sed -n 's/.*upper bound [0-9]* bytes (peak \([0-9.]*\)x).*/\1/p' <<<"$remark")
            fi
            # shellcheck disable=SC2086
            if bench_timed own_total "$errors" "$GE_OPT" "$file" $PASSES --verify-each=false --mlir-timing -o /dev/null; then
                read -r sum _ < <(pass_seconds "$BENCH_STDERR")
                bench_keep own "$sum"
            fi
        done
        mt=${BENCH_BEST[mlir]:-FAIL} st=${BENCH_BEST[pass]:-FAIL} ot=${BENCH_BEST[own]:-FAIL}
        [[ "$mt $st $ot" == *FAIL* ]] && failed=1
        [[ -z $first_n ]] && first_n=$ops first_t=$st first_o=$ot
        printf "%-12s %8s | %7s %7s | %6s %5s %6s | %7s %6s | %7s %7s | %s\n" "$family" "$ops" "$mt" "$st" \
            "$(bench_ratio "$st" "$mt")" "$(bench_growth "$prev_t" "$st" "$prev_n" "$ops")" \
            "$(bench_growth "$first_t" "$st" "$first_n" "$ops")" "$ot" \
            "$(bench_growth "$first_o" "$ot" "$first_n" "$ops")" "${lb:--}" "${ub:--}" "${parts# }" |
            tee -a "$results"
        prev_t=$st prev_n=$ops
    done
done
echo "# table saved to $results" >&2
if ((failed)); then
    echo "bench-mem-plan.sh: some runs FAILED; see $errors" >&2
    exit 1
fi
