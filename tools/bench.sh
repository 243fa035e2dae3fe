#!/usr/bin/env bash
# Parse+verify+print benchmark: ge-opt against stock mlir-opt on generated GE-like graphs.
#
# For every family and size, generates FILE.mlir and FILE.ge with ge-gen (into bench-out/),
# then measures, in the same run and round-robin over the tools:
#   .mlir row:  mlir-opt --irdl-file=$IRDL FILE.mlir -o /dev/null   vs  ge-opt FILE.mlir -o /dev/null
#   .ge row:    mlir-opt --irdl-file=$IRDL FILE.mlir -o /dev/null   vs  ge-opt --emit mlir FILE.ge -o /dev/null
# Wall time and peak RSS come from /usr/bin/time -f "%e %M"; each cell is the best of the runs.
# Ratios are ge-opt / mlir-opt (the .ge row's target is <= 2.00 in time).
#
# Environment (defaults keep a full run under ~10 min on 2 busy cores):
#   FAMILIES="transformer wide-dag"   any of: transformer resnet wide-dag control-flow
#   SIZES="10000 100000 1000000"      requested op counts
#   RUNS=3                            runs per measurement (best is kept)
#   BIG_SIZE=1000000 BIG_RUNS=1       sizes >= BIG_SIZE use BIG_RUNS runs (a 1M-op parse takes ~30 s)
#   SEED=1                            ge-gen seed
#   IRDL=dialects/ascend.irdl.mlir    IRDL file for mlir-opt
#   MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
#   GE_OPT, GE_GEN                    use these binaries instead of building release ones
#   OUT=bench-out                     where graphs and the result table go
#   REGEN=0                           1 = regenerate graphs even if present
set -euo pipefail
cd "$(dirname "$0")/.."

FAMILIES=${FAMILIES:-"transformer wide-dag"}
SIZES=${SIZES:-"10000 100000 1000000"}
RUNS=${RUNS:-3}
BIG_SIZE=${BIG_SIZE:-1000000}
BIG_RUNS=${BIG_RUNS:-1}
SEED=${SEED:-1}
IRDL=${IRDL:-dialects/ascend.irdl.mlir}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
OUT=${OUT:-bench-out}
REGEN=${REGEN:-0}

BENCH_NAME=bench.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh
if [[ ! -x /usr/bin/time ]]; then
    echo "bench.sh: /usr/bin/time missing, installing package 'time'" >&2
    apt-get install -y time >/dev/null || bench_die "install GNU time: apt-get install -y time"
fi
bench_require "$MLIR_OPT" "$IRDL"
bench_build_bins
mkdir -p "$OUT"

errors="$OUT/errors.log"
: >"$errors"

declare -A best_t best_m

# timed KEY CMD...: runs CMD once under /usr/bin/time and keeps the best wall time and the
# best peak RSS per KEY; a failure marks KEY as FAIL for good (stderr kept in $errors).
# Local rather than bench-lib's bench_timed, which keeps wall time only.
timed() {
    local key=$1; shift
    [[ ${best_t[$key]:-} == FAIL ]] && return
    local t m tf ef
    tf=$(mktemp)
    ef=$(mktemp)
    if /usr/bin/time -f "%e %M" -o "$tf" "$@" >/dev/null 2>"$ef"; then
        read -r t m <"$tf"
        if [[ -z ${best_t[$key]:-} ]] || awk -v a="$t" -v b="${best_t[$key]}" 'BEGIN { exit !(a < b) }'; then
            best_t[$key]=$t
        fi
        if [[ -z ${best_m[$key]:-} ]] || ((m < best_m[$key])); then best_m[$key]=$m; fi
    else
        { echo "== FAILED: $*"; head -c 4000 "$ef"; cat "$tf"; } >>"$errors"
        best_t[$key]=FAIL
        best_m[$key]=FAIL
    fi
    rm -f "$tf" "$ef"
}

mb() { awk -v k="$1" 'BEGIN { if (k == "FAIL") print "FAIL"; else printf "%.1f", k / 1024 }'; }

results="$OUT/results-$(date +%Y%m%d-%H%M%S).txt"
failed=0
{
    echo "# ge-opt vs mlir-opt: parse + verify + print, best of $RUNS runs (sizes >= $BIG_SIZE: $BIG_RUNS)"
    echo "# $("$MLIR_OPT" --version | grep -m1 -i version | sed 's/^ *//'); $(bench_machine)"
    echo "# IRDL=$IRDL  ge-opt=$GE_OPT  seed=$SEED"
    printf "%-13s %9s %6s | %9s %9s | %9s %9s | %6s %6s\n" \
        family ops input "mlir-opt s" "MB" "ge-opt s" "MB" "time x" "rss x"
} | tee "$results"

for family in $FAMILIES; do
    for size in $SIZES; do
        base=$(bench_graph "$family" "$size" "$SEED" "$OUT")
        base=${base%.mlir}
        if [[ $REGEN == 1 || ! -s $base.ge ]]; then
            "$GE_GEN" --family "$family" --ops "$size" --seed "$SEED" --format ge -o "$base.ge"
        fi
        ops=$(bench_ops "$base.mlir")
        runs=$RUNS
        ((size >= BIG_SIZE)) && runs=$BIG_RUNS
        best_t=() best_m=()
        # Round-robin over the tools, so load spikes on a shared machine hit them alike.
        for ((i = 0; i < runs; i++)); do
            timed mlir "$MLIR_OPT" --irdl-file="$IRDL" "$base.mlir" -o /dev/null
            timed ge-opt "$GE_OPT" "$base.mlir" -o /dev/null
            timed ge "$GE_OPT" --emit mlir "$base.ge" -o /dev/null
        done
        mt=${best_t[mlir]} mm=${best_m[mlir]}
        gt=${best_t[ge-opt]} gm=${best_m[ge-opt]}
        et=${best_t[ge]} em=${best_m[ge]}
        [[ "$mt $gt $et" == *FAIL* ]] && failed=1
        for row in ".mlir $gt $gm" ".ge $et $em"; do
            read -r input t m <<<"$row"
            printf "%-13s %9s %6s | %9s %9s | %9s %9s | %6s %6s\n" "$family" "$ops" "$input" \
                "$mt" "$(mb "$mm")" "$t" "$(mb "$m")" "$(bench_ratio "$t" "$mt")" "$(bench_ratio "$m" "$mm")"
        done | tee -a "$results"
    done
done
echo "# table saved to $results" >&2
if ((failed)); then
    echo "bench.sh: some runs FAILED; see $errors" >&2
    exit 1
fi
