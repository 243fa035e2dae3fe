#!/usr/bin/env bash
# The main job's speed: `ge-opt --ge-compile` (every GE pass in GE's order, then printing)
# against stock `mlir-opt` parsing, verifying and printing the same file, side by side; then
# the cases that used to grow quadratically.
#
# Table 1, for every family and size, round-robin, best of $RUNS:
#   mlir-opt --irdl-file=$IRDL FILE.mlir -o /dev/null          (MLIR's floor)
#   ge-opt --ge-compile=$COMPILE_OPTIONS FILE.mlir -o /dev/null  (models handed on)
#   ge-opt ... --share-models=false                             (every pass reads the IR;
#                                                                only with UNSHARED=1)
# Wall time (microsecond clock) and peak RSS; the target is ratio <= 2.00 for both. `cpu x`
# is the ratio of user+sys CPU time, which a busy machine disturbs less than wall time.
#
# Table 2 (CASES=1, the default), each pass's own time from `--mlir-timing`, with the
# growth exponent between sizes (1.00 is linear; these were quadratic):
#   chain N    ge-opt --mem-assign on N Relus, each in place on the one before (.ge)
#   nested N   ge-opt --ge-memory-pipeline on N nested PartitionedCall subgraphs (.ge),
#              and --ge-compile on them (StreamAlloc, MemAssign: both were quadratic in
#              the depth, and the split opened a stream per level)
#
# Environment:
#   FAMILIES="transformer resnet wide-dag control-flow"  SIZES="100000"
#   RUNS=3  BIG_SIZE=1000000 BIG_RUNS=1   sizes >= BIG_SIZE use BIG_RUNS runs
#   COMPILE_OPTIONS="max-stream-normal=4096,max-events=1048576"  (the control-flow family
#                  needs more streams than GE's default 1024 past 10k ops)
#   UNSHARED=0     1 adds the --share-models=false column
#   CASES=1  CHAIN_SIZES="20000 40000 80000 160000"  NEST_SIZES="5000 10000 20000"
#   SEED=1  IRDL=dialects/ascend.irdl.mlir  MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
#   GE_OPT, GE_GEN  use these binaries instead of building release ones;  OUT=bench-out
set -euo pipefail
cd "$(dirname "$0")/.."

FAMILIES=${FAMILIES:-"transformer resnet wide-dag control-flow"}
SIZES=${SIZES:-"100000"}
RUNS=${RUNS:-3}
BIG_SIZE=${BIG_SIZE:-1000000}
BIG_RUNS=${BIG_RUNS:-1}
COMPILE_OPTIONS=${COMPILE_OPTIONS:-"max-stream-normal=4096,max-events=1048576"}
UNSHARED=${UNSHARED:-0}
CASES=${CASES:-1}
CHAIN_SIZES=${CHAIN_SIZES:-"20000 40000 80000 160000"}
NEST_SIZES=${NEST_SIZES:-"5000 10000 20000"}
SEED=${SEED:-1}
IRDL=${IRDL:-dialects/ascend.irdl.mlir}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
OUT=${OUT:-bench-out}

BENCH_NAME=bench-compile.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh
bench_require "$MLIR_OPT" "$IRDL"
bench_build_bins
mkdir -p "$OUT"
errors="$OUT/errors-compile.log"
: >"$errors"
compile=--ge-compile
[[ -n $COMPILE_OPTIONS ]] && compile="--ge-compile=$COMPILE_OPTIONS"

declare -A best_t best_m best_c
# timed KEY CMD...: best wall time, best peak RSS (KB) and best CPU time per KEY; a failure
# marks KEY as FAIL (its stderr goes to the error log).
timed() {
    local key=$1; shift
    [[ ${best_t[$key]:-} == FAIL ]] && return
    local t m user sys cpu tf ef t0
    tf=$(mktemp)
    ef=$(mktemp)
    t0=$EPOCHREALTIME
    if /usr/bin/time -f "%M %U %S" -o "$tf" "$@" >/dev/null 2>"$ef"; then
        t=$(bench_since "$t0")
        read -r m user sys <"$tf"
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        if [[ -z ${best_t[$key]:-} ]] || awk -v a="$t" -v b="${best_t[$key]}" 'BEGIN { exit !(a < b) }'; then
            best_t[$key]=$t
        fi
        if [[ -z ${best_c[$key]:-} ]] || awk -v a="$cpu" -v b="${best_c[$key]}" 'BEGIN { exit !(a < b) }'; then
            best_c[$key]=$cpu
        fi
        if [[ -z ${best_m[$key]:-} ]] || ((m < best_m[$key])); then best_m[$key]=$m; fi
    else
        { echo "== FAILED: $*"; tail -c 4000 "$ef"; } >>"$errors"
        best_t[$key]=FAIL best_m[$key]=FAIL best_c[$key]=FAIL
    fi
    rm -f "$tf" "$ef"
}
mb() { awk -v k="$1" 'BEGIN { if (k == "FAIL") print "FAIL"; else printf "%.0f", k / 1024 }'; }

results="$OUT/compile-$(date +%Y%m%d-%H%M%S).txt"
failed=0
{
    echo "# ge-opt $compile vs mlir-opt parse+print, best of $RUNS runs (sizes >= $BIG_SIZE: $BIG_RUNS); $(date -u '+%F %H:%M UTC')"
    echo "# $("$MLIR_OPT" --version | grep -m1 -i version | sed 's/^ *//'); $(bench_machine)"
    header=$(printf "%-12s %8s | %9s %6s | %9s %6s | %6s %6s %6s" family ops "mlir-opt s" MB \
        "compile s" MB "time x" "cpu x" "rss x")
    ((UNSHARED)) && header+=$(printf " | %10s %8s" "unshared s" "time x")
    echo "$header"
} | tee "$results"

for family in $FAMILIES; do
    for size in $SIZES; do
        file=$(bench_graph "$family" "$size" "$SEED" "$OUT")
        ops=$(bench_ops "$file")
        best_t=() best_m=() best_c=()
        runs=$RUNS
        ((size >= BIG_SIZE)) && runs=$BIG_RUNS
        for ((i = 0; i < runs; i++)); do
            timed mlir "$MLIR_OPT" --irdl-file="$IRDL" "$file" -o /dev/null
            timed ge "$GE_OPT" "$compile" "$file" -o /dev/null
            ((UNSHARED)) && timed unshared "$GE_OPT" "$compile" --share-models=false "$file" -o /dev/null
        done
        mt=${best_t[mlir]} gt=${best_t[ge]}
        [[ "$mt $gt" == *FAIL* ]] && failed=1
        row=$(printf "%-12s %8s | %9s %6s | %9s %6s | %6s %6s %6s" "$family" "$ops" \
            "$mt" "$(mb "${best_m[mlir]}")" "$gt" "$(mb "${best_m[ge]}")" \
            "$(bench_ratio "$gt" "$mt")" "$(bench_ratio "${best_c[ge]}" "${best_c[mlir]}")" \
            "$(bench_ratio "${best_m[ge]}" "${best_m[mlir]}")")
        ((UNSHARED)) && row+=$(printf " | %10s %8s" "${best_t[unshared]}" \
            "$(bench_ratio "${best_t[unshared]}" "$mt")")
        echo "$row" | tee -a "$results"
    done
done

# The inputs of table 2, written like the robustness reproducers.
chain_file() {
    local n=$1 f="$OUT/inplace-chain-$1.ge"
    [[ -s $f ]] || awk -v n="$n" 'BEGIN {
        print "graph main {"; print "  x0 = Data() {index = 0} : f32[4]"
        for (i = 1; i < n; i++) printf "  x%d = Relu(x%d) : f32[4]\n", i, i - 1
        printf "  return x%d\n}\n", n - 1 }' >"$f"
    echo "$f"
}
nest_file() {
    local n=$1 f="$OUT/nested-calls-$1.ge"
    [[ -s $f ]] || awk -v m="$n" 'BEGIN {
        for (i = 0; i < m; i++) {
            name = i == 0 ? "main" : "g" i
            printf "graph %s {\n  a = Data() {index = 0} : f32[4]\n", name
            if (i < m - 1) printf "  b = PartitionedCall(a) {f = @g%d} : f32[4]\n  return b\n}\n", i + 1
            else printf "  c = Relu(a) : f32[4]\n  return c\n}\n" } }' >"$f"
    echo "$f"
}
# case_rows LABEL MAKER FLAG TIMING_NAME SIZES: the pass's own time per size, with growth.
case_rows() {
    local label=$1 maker=$2 flag=$3 name=$4 sizes=$5 prev_n="" prev_t="" n f
    for n in $sizes; do
        f=$($maker "$n")
        BENCH_BEST=()
        for ((i = 0; i < RUNS; i++)); do
            if bench_timed run "$errors" "$GE_OPT" "$flag" --mlir-timing "$f" -o /dev/null; then
                bench_keep own "$(awk -v n="$name" '$NF == n { print $1; exit }' "$BENCH_STDERR")"
            fi
        done
        local own=${BENCH_BEST[own]:-FAIL} g=-
        [[ $own == FAIL || ${BENCH_BEST[run]:-FAIL} == FAIL ]] && failed=1
        [[ -n $prev_n ]] && g=$(bench_growth "$prev_t" "$own" "$prev_n" "$n")
        printf "%-8s %8s | %-22s | %9s %9s | %6s\n" "$label" "$n" "$flag" \
            "${BENCH_BEST[run]:-FAIL}" "$own" "$g" | tee -a "$results"
        prev_n=$n prev_t=$own
    done
}
if ((CASES)); then
    {
        echo "# formerly quadratic cases: the pass's own time (--mlir-timing), growth n^k from the size before"
        printf "%-8s %8s | %-22s | %9s %9s | %6s\n" case n pass "run s" "pass s" growth
    } | tee -a "$results"
    case_rows chain chain_file --mem-assign MemAssign "$CHAIN_SIZES"
    case_rows nested nest_file --ge-memory-pipeline GeMemoryPipeline "$NEST_SIZES"
    case_rows nested nest_file --ge-compile StreamAlloc "$NEST_SIZES"
    case_rows nested nest_file --ge-compile MemAssign "$NEST_SIZES"
fi
echo "# table saved to $results" >&2
if ((failed)); then
    echo "bench-compile.sh: some runs FAILED; see $errors" >&2
    exit 1
fi
