#!/usr/bin/env bash
# Stream-allocation benchmark: `ge-opt --stream-alloc` against stock `mlir-opt` parsing and
# printing the same file (the target: the pass should cost no more than reading the graph).
#
# For every family and size, generates FILE.mlir with ge-gen (into bench-out/) and
# measures, round-robin and best of RUNS:
#   mlir     mlir-opt --irdl-file=$IRDL FILE.mlir -o /dev/null        (parse + verify + print)
#   plain    ge-opt FILE.mlir -o /dev/null                             (same, our driver)
#   alloc    ge-opt FILE.mlir --stream-alloc --mlir-timing -o /dev/null
#   own      the same with --verify-each=false
# `pass` is the StreamAlloc line of MLIR's timing report (the pass alone: view, decisions,
# IR rewrite, and MLIR's verification after it); `pass x` = pass / mlir, both best of the
# runs (target <= 1.00); `spread` = best pass / worst mlir - worst pass / best mlir, the
# range the noise of a shared machine allows; `total x` = alloc / mlir (the output
# is bigger: every op gains its stream attributes, plus the Send/Recv ops). One extra run
# with --mlir-pass-statistics gives the streams and events: `ge` is GE's event count after
# its three rules, `min` the transitive-reduction minimum on the logical streams, `min ph`
# the minimum on the physical streams (plus the split cuts nothing else orders), `final`
# the ids written (equal to `min ph` when nothing else — attached streams, loops — adds
# events). `n^k` is the growth exponent of the pass time between consecutive sizes,
# `mlir n^k` the same for mlir-opt's parse+print (the memory hierarchy bends both). `own s`
# is the pass without MLIR's verification after it (--verify-each=false: the pass's own
# work; the verifier is MLIR's, and mlir-opt's parse already ran it once), `own k` its
# growth exponent from the first size.
#
# Environment (defaults keep a run around 5 min on 2 busy cores):
#   FAMILIES="transformer wide-dag"   any of: transformer resnet wide-dag control-flow
#   SIZES="10000 100000"              requested op counts (add 1000000 for the 1M row)
#   RUNS=3                            runs per measurement (best is kept)
#   BIG_SIZE=1000000 BIG_RUNS=1       sizes >= BIG_SIZE use BIG_RUNS runs
#   SEED=1                            ge-gen seed
#   PASS_OPTIONS="max-stream-normal=2048,max-events=1048576"
#                                     --stream-alloc options. The 1M-op transformer passes
#                                     GE's stub limit of 1024 streams (1406 after the split)
#                                     and the device's 65536 events (213174): the pass stops
#                                     with a clean error. The limits are lifted here only to
#                                     time it.
#   IRDL=dialects/ascend.irdl.mlir    IRDL file for mlir-opt
#   MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
#   GE_OPT, GE_GEN                    use these binaries instead of building release ones
#   OUT=bench-out                     where graphs and the result table go
#   REGEN=0                           1 = regenerate graphs even if present
set -euo pipefail
cd "$(dirname "$0")/.."

FAMILIES=${FAMILIES:-"transformer wide-dag"}
SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-3}
BIG_SIZE=${BIG_SIZE:-1000000}
BIG_RUNS=${BIG_RUNS:-1}
SEED=${SEED:-1}
PASS_OPTIONS=${PASS_OPTIONS-max-stream-normal=2048,max-events=1048576}
IRDL=${IRDL:-dialects/ascend.irdl.mlir}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
OUT=${OUT:-bench-out}
REGEN=${REGEN:-0}

die() { echo "bench-stream.sh: $*" >&2; exit 1; }

[[ -x /usr/bin/time ]] || die "GNU time missing: apt-get install -y time"
[[ -x $MLIR_OPT ]] || die "mlir-opt not found at $MLIR_OPT"
[[ -f $IRDL ]] || die "IRDL file $IRDL not found"

bins=()
[[ -n ${GE_OPT:-} ]] || bins+=(--bin ge-opt)
[[ -n ${GE_GEN:-} ]] || bins+=(--bin ge-gen)
if ((${#bins[@]})); then
    echo "building release ${bins[*]}" >&2
    cargo build --release --quiet "${bins[@]}"
fi
GE_OPT=${GE_OPT:-target/release/ge-opt}
GE_GEN=${GE_GEN:-target/release/ge-gen}
mkdir -p "$OUT"
errors="$OUT/stream-errors.log"
: >"$errors"

flag=--stream-alloc
[[ -n $PASS_OPTIONS ]] && flag="--stream-alloc=$PASS_OPTIONS"

declare -A best worst
# timed KEY CMD...: wall time of one run, best kept per KEY; a failure marks KEY as FAIL.
# For KEY=alloc the pass time is read from the timing report (stderr) as KEY=pass.
timed() {
    local key=$1; shift
    [[ ${best[$key]:-} == FAIL ]] && return
    local tf ef t t0
    tf=$(mktemp)
    ef=$(mktemp)
    t0=$EPOCHREALTIME
    if /usr/bin/time -f "%e" -o "$tf" "$@" >/dev/null 2>"$ef"; then
        t=$(LC_ALL=C awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
        keep "$key" "$t"
        if [[ $key == alloc ]]; then
            keep pass "$(awk '/StreamAlloc$/ { print $1; exit }' "$ef")"
        elif [[ $key == own_run ]]; then
            keep own "$(awk '/StreamAlloc$/ { print $1; exit }' "$ef")"
        fi
    else
        { echo "== FAILED: $*"; head -c 4000 "$ef"; } >>"$errors"
        best[$key]=FAIL
    fi
    rm -f "$tf" "$ef"
}
keep() {
    local key=$1 t=$2
    [[ -z $t ]] && { best[$key]=FAIL; return; }
    if [[ -z ${best[$key]:-} ]] || awk -v a="$t" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
        best[$key]=$t
    fi
    if [[ -z ${worst[$key]:-} ]] || awk -v a="$t" -v b="${worst[$key]}" 'BEGIN { exit !(a > b) }'; then
        worst[$key]=$t
    fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "FAIL" || b == "FAIL" || a == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
growth() { awk -v t1="$1" -v t2="$2" -v n1="$3" -v n2="$4" 'BEGIN { if (t1 == "" || t2 == "" || t1 + 0 == 0 || n1 == n2) print "-"; else printf "%.2f", log(t2 / t1) / log(n2 / n1) }'; }
stat() { awk -v name="$2" '$3 == name { print $2; exit }' "$1"; }

results="$OUT/stream-results-$(date +%Y%m%d-%H%M%S).txt"
failed=0
{
    echo "# ge-opt --stream-alloc vs mlir-opt parse+verify+print, best of $RUNS runs (sizes >= $BIG_SIZE: $BIG_RUNS)"
    echo "# $("$MLIR_OPT" --version | grep -m1 -i version | sed 's/^ *//'); $(bench_machine)"
    echo "# ge-opt=$GE_OPT seed=$SEED pass flag: $flag"
    printf "%-12s %8s | %7s %7s %7s %7s | %6s %11s %7s %5s %6s | %7s %5s | %5s %5s %5s | %7s %7s %7s %7s\n" \
        family ops "mlir s" "plain s" "alloc s" "pass s" "pass x" "spread" "total x" "n^k" "mlir" "own s" "own k" \
        main phys split "ge ev" "min ev" "min ph" "final"
} | tee "$results"

for family in $FAMILIES; do
    prev_t="" prev_n="" prev_m="" first_n="" first_o=""
    for size in $SIZES; do
        file="$OUT/$family-$size-s$SEED.mlir"
        if [[ $REGEN == 1 || ! -s $file ]]; then
            "$GE_GEN" --family "$family" --ops "$size" --seed "$SEED" --format mlir -o "$file"
        fi
        ops=$(grep -c ' = "ascend\.' "$file" || true)
        runs=$RUNS
        ((size >= BIG_SIZE)) && runs=$BIG_RUNS
        best=()
        worst=()
        for ((i = 0; i < runs; i++)); do
            timed mlir "$MLIR_OPT" --irdl-file="$IRDL" "$file" -o /dev/null
            timed plain "$GE_OPT" "$file" -o /dev/null
            timed alloc "$GE_OPT" "$file" "$flag" --mlir-timing -o /dev/null
            timed own_run "$GE_OPT" "$file" "$flag" --verify-each=false --mlir-timing -o /dev/null
        done
        sf=$(mktemp)
        if ! "$GE_OPT" "$file" "$flag" --mlir-pass-statistics -o /dev/null 2>"$sf"; then
            { echo "== FAILED statistics: $file"; head -c 4000 "$sf"; } >>"$errors"
            failed=1
        fi
        mt=${best[mlir]:-FAIL} pt=${best[plain]:-FAIL} at=${best[alloc]:-FAIL} st=${best[pass]:-FAIL}
        ot=${best[own]:-FAIL}
        [[ "$mt $pt $at $st $ot" == *FAIL* ]] && failed=1
        [[ -z $first_n ]] && first_n=$ops first_o=$ot
        k=$(growth "$prev_t" "$st" "$prev_n" "$ops")
        km=$(growth "$prev_m" "$mt" "$prev_n" "$ops")
        spread="$(ratio "$st" "${worst[mlir]:-FAIL}")-$(ratio "${worst[pass]:-FAIL}" "$mt")"
        printf "%-12s %8s | %7s %7s %7s %7s | %6s %11s %7s %5s %6s | %7s %5s | %5s %5s %5s | %7s %7s %7s %7s\n" \
            "$family" "$ops" "$mt" "$pt" "$at" "$st" "$(ratio "$st" "$mt")" "$spread" "$(ratio "$at" "$mt")" "$k" "$km" \
            "$ot" "$(growth "$first_o" "$ot" "$first_n" "$ops")" \
            "$(stat "$sf" num-main-streams)" "$(stat "$sf" num-streams)" "$(stat "$sf" num-split-streams)" \
            "$(stat "$sf" num-events-ge)" "$(stat "$sf" num-events-minimal)" \
            "$(stat "$sf" num-events-minimal-physical)" "$(stat "$sf" num-events)" |
            tee -a "$results"
        rm -f "$sf"
        prev_t=$st prev_n=$ops prev_m=$mt
    done
done
echo "# table saved to $results" >&2
if ((failed)); then
    echo "bench-stream.sh: some runs FAILED; see $errors" >&2
    exit 1
fi
