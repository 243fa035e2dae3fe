#!/usr/bin/env bash
# Memory-pass benchmark: `ge-opt --ge-memory-pipeline` (the five memory passes in
# GE's order, then GraphLint, then printing) against stock `mlir-opt` parsing and printing
# the same file, on generated graphs.
#
# For every family and size: FILE.mlir from ge-gen (into $OUT), then, round-robin:
#   mlir-opt --irdl-file=$IRDL FILE.mlir -o /dev/null
#   ge-opt $PIPELINE FILE.mlir -o /dev/null    (its W18888 warnings are rendered to a temp file)
# Wall time (microsecond clock), peak RSS and CPU time (/usr/bin/time); each cell is the best
# of $RUNS runs. Prints
# time and RSS ratios (ge-opt / mlir-opt; the target is <= 2.00 for both; `cpu x` is
# the same ratio in user+sys CPU time, which a busy machine disturbs less than wall time), the
# spread of the time ratio over the runs (each run's ge-opt time over the mlir-opt time
# measured right before it: min-max), and the growth exponent of ge-opt's time between
# consecutive sizes and from the first size to the last (target <= 1.10).
#
# Environment:
#   FAMILIES="transformer"        ge-gen families (transformer resnet wide-dag control-flow)
#   SIZES="10000 100000"          op counts (add 1000000 for the 1M row; ~1 min per run)
#   RUNS=3                        runs per measurement (best kept)
#   BIG_SIZE=1000000 BIG_RUNS=1   sizes >= BIG_SIZE use BIG_RUNS runs
#   PIPELINE="--ge-memory-pipeline"  what ge-opt runs (any flags, e.g. "--mem-rw-conflict")
#   SEED=1  IRDL=dialects/ascend.irdl.mlir  MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
#   GE_OPT, GE_GEN                use these binaries instead of building release ones
#   OUT=bench-out                 where graphs and results go
set -euo pipefail
cd "$(dirname "$0")/.."

FAMILIES=${FAMILIES:-"transformer"}
SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-3}
BIG_SIZE=${BIG_SIZE:-1000000}
BIG_RUNS=${BIG_RUNS:-1}
PIPELINE=${PIPELINE:-"--ge-memory-pipeline"}
SEED=${SEED:-1}
IRDL=${IRDL:-dialects/ascend.irdl.mlir}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
OUT=${OUT:-bench-out}

BENCH_NAME=bench-passes.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh
bench_require "$MLIR_OPT" "$IRDL"
bench_build_bins
mkdir -p "$OUT"
errors="$OUT/errors-passes.log"
: >"$errors"

declare -A best_t best_m best_c last_t
# timed KEY CMD...: best wall time and best peak RSS per KEY, and the last run's time (for the
# per-run spread); a failure marks KEY as FAIL. Local rather than bench-lib's bench_timed,
# which keeps wall time only.
timed() {
    local key=$1; shift
    [[ ${best_t[$key]:-} == FAIL ]] && return
    local t m tf ef
    tf=$(mktemp)
    ef=$(mktemp)
    local t0=$EPOCHREALTIME
    if /usr/bin/time -f "%M %U %S" -o "$tf" "$@" >/dev/null 2>"$ef"; then
        local user sys cpu
        t=$(bench_since "$t0")
        read -r m user sys <"$tf"
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        if [[ -z ${best_c[$key]:-} ]] || awk -v a="$cpu" -v b="${best_c[$key]}" 'BEGIN { exit !(a < b) }'; then
            best_c[$key]=$cpu
        fi
        last_t[$key]=$t
        if [[ -z ${best_t[$key]:-} ]] || awk -v a="$t" -v b="${best_t[$key]}" 'BEGIN { exit !(a < b) }'; then
            best_t[$key]=$t
        fi
        if [[ -z ${best_m[$key]:-} ]] || ((m < best_m[$key])); then best_m[$key]=$m; fi
    else
        { echo "== FAILED: $*"; tail -c 4000 "$ef"; cat "$tf"; } >>"$errors"
        best_t[$key]=FAIL best_m[$key]=FAIL
    fi
    rm -f "$tf" "$ef"
}
mb() { awk -v k="$1" 'BEGIN { if (k == "FAIL") print "FAIL"; else printf "%.1f", k / 1024 }'; }

results="$OUT/passes-$(date +%Y%m%d-%H%M%S).txt"
failed=0
{
    echo "# ge-opt $PIPELINE vs mlir-opt parse+print, best of $RUNS runs (sizes >= $BIG_SIZE: $BIG_RUNS)"
    echo "# $("$MLIR_OPT" --version | grep -m1 -i version | sed 's/^ *//'); $(bench_machine)"
    printf "%-12s %8s | %9s %8s | %9s %8s | %6s %6s %6s | %11s | %7s\n" \
        family ops "mlir-opt s" MB "ge-opt s" MB "time x" "cpu x" "rss x" "runs time x" "growth"
} | tee "$results"

for family in $FAMILIES; do
    prev_n="" prev_t="" first_n="" first_t=""
    for size in $SIZES; do
        file=$(bench_graph "$family" "$size" "$SEED" "$OUT")
        ops=$(bench_ops "$file")
        best_t=() best_m=() best_c=() last_t=()
        runs=$RUNS
        ((size >= BIG_SIZE)) && runs=$BIG_RUNS
        lo="" hi=""
        for ((i = 0; i < runs; i++)); do
            timed mlir "$MLIR_OPT" --irdl-file="$IRDL" "$file" -o /dev/null
            # shellcheck disable=SC2086
            timed ge "$GE_OPT" $PIPELINE "$file" -o /dev/null
            r=$(bench_ratio "${last_t[ge]:-FAIL}" "${last_t[mlir]:-FAIL}")
            if [[ $r != - ]]; then
                [[ -z $lo ]] || awk -v a="$r" -v b="$lo" 'BEGIN { exit !(a < b) }' && lo=$r
                [[ -z $hi ]] || awk -v a="$r" -v b="$hi" 'BEGIN { exit !(a > b) }' && hi=$r
            fi
        done
        mt=${best_t[mlir]} mm=${best_m[mlir]} gt=${best_t[ge]} gm=${best_m[ge]}
        [[ "$mt $gt" == *FAIL* ]] && failed=1
        g=-
        [[ -n $prev_n ]] && g=$(bench_growth "$prev_t" "$gt" "$prev_n" "$ops")
        printf "%-12s %8s | %9s %8s | %9s %8s | %6s %6s %6s | %11s | %7s\n" "$family" "$ops" \
            "$mt" "$(mb "$mm")" "$gt" "$(mb "$gm")" "$(bench_ratio "$gt" "$mt")" \
            "$(bench_ratio "${best_c[ge]:-FAIL}" "${best_c[mlir]:-FAIL}")" "$(bench_ratio "$gm" "$mm")" \
            "${lo:--}-${hi:--}" "$g" | tee -a "$results"
        [[ -z $first_n ]] && first_n=$ops first_t=$gt
        prev_n=$ops prev_t=$gt
    done
    if [[ -n $first_n && $prev_n != "$first_n" ]]; then
        printf "%-12s growth of ge-opt time from %s to %s ops: n^%s\n" "$family" "$first_n" "$prev_n" \
            "$(bench_growth "$first_t" "$prev_t" "$first_n" "$prev_n")" | tee -a "$results"
    fi
done
echo "# table saved to $results" >&2
if ((failed)); then
    echo "bench-passes.sh: some runs FAILED; see $errors" >&2
    exit 1
fi
