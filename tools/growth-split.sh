#!/usr/bin/env bash
# Where a pass's growth comes from: MLIR's attribute uniquer, the kernel's page faults or
# our own code.
#
# The target: a pass grows no faster than n^1.10 from 10k to 1M ops. The benchmark
# scripts time the whole pass; this one samples it (perf, call graphs) on the small graph
# SMALL_RUNS times and on the big graph once, with the profiling build, and splits the
# samples inside the pass into those under MLIR's `StorageUniquer` (uniquing the attribute
# dictionaries, strings and integers the write-back creates), those in the kernel's
# page-fault path (the first touch of memory new to the process; on a VM with free page
# reporting they cost a host fault too, and the header says whether it is on) and the
# rest (our analyses, our model builds and every other MLIR call). `tools/growth-split.py`
# prints the growth factor and exponent of each part. Sampling at one rate makes sample counts proportional
# to CPU time; expect about ±0.02 in an exponent between runs.
#
# Environment:
#   FAMILIES="resnet transformer wide-dag control-flow"  SMALL=10000 BIG=1000000 SEED=1
#   PASSES="stream plan"      stream = --stream-alloc (STREAM_OPTIONS as bench-stream.sh),
#                             plan = --ge-mem-plan-pipeline
#   SMALL_RUNS=100 FREQ=999   runs of the small graph per recording; sampling rate (Hz)
#   VERIFY=0                  1 = record with MLIR's verification after the pass and split it
#                             too (growth-split.py --verifier: a line for it, one for both)
#   GE_OPT (a profiling build; default: cargo build --profile profiling), GE_GEN, OUT
# Needs `perf` (apt-get install -y linux-perf) and permission to use it (root, or
# kernel.perf_event_paranoid <= 1). Takes about 3 min per family and pass.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=growth-split.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh

FAMILIES=${FAMILIES:-"resnet transformer wide-dag control-flow"}
PASSES=${PASSES:-"stream plan"}
SMALL=${SMALL:-10000}
BIG=${BIG:-1000000}
SEED=${SEED:-1}
SMALL_RUNS=${SMALL_RUNS:-100}
FREQ=${FREQ:-999}
VERIFY=${VERIFY:-0}
OUT=${OUT:-bench-out}
STREAM_OPTIONS=${STREAM_OPTIONS:-max-stream-normal=2048,max-events=1048576}

command -v perf >/dev/null || bench_die "perf missing (apt-get install -y linux-perf)"
if [[ -z ${GE_OPT:-} ]]; then
    echo "building ge-opt (profiling profile)" >&2
    cargo build --profile profiling --quiet --bin ge-opt
    GE_OPT=target/profiling/ge-opt
fi
bench_build_bins
mkdir -p "$OUT"
no_verify=(--verify-each=false) split_verifier=()
if [[ $VERIFY == 1 ]]; then
    no_verify=() split_verifier=(--verifier)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# record NAME FILE RUNS FLAGS...: perf samples of RUNS runs, as text in $tmp/NAME.txt
record() {
    local name=$1 file=$2 runs=$3
    shift 3
    perf record -q -F "$FREQ" --call-graph dwarf,8192 -o "$tmp/$name.data" -- \
        bash -c 'f=$1; n=$2; shift 2; for ((i = 0; i < n; i++)); do "$@" "$f" -o /dev/null || exit; done' \
        _ "$file" "$runs" "$GE_OPT" "$@" "${no_verify[@]}" >/dev/null 2>"$tmp/$name.err" ||
        bench_die "perf record failed: $(head -c 2000 "$tmp/$name.err")"
    perf script -i "$tmp/$name.data" --no-inline -F comm,ip,sym >"$tmp/$name.txt" 2>/dev/null
    rm -f "$tmp/$name.data"
}

results="$OUT/growth-split-$(date +%Y%m%d-%H%M%S).txt"
{
    echo "# pass samples split into MLIR's StorageUniquer, page faults and the rest, $SMALL ops x$SMALL_RUNS vs $BIG ops x1"
    echo "# ge-opt=$GE_OPT seed=$SEED verify=$VERIFY; $(bench_machine)"
} | tee "$results"
for pass in $PASSES; do
    case $pass in
        stream) flags=("--stream-alloc=$STREAM_OPTIONS") symbol="StreamAlloc as" ;;
        plan) flags=(--ge-mem-plan-pipeline) symbol="MemPlanPipeline as" ;;
        *) bench_die "unknown pass '$pass' (stream or plan)" ;;
    esac
    for family in $FAMILIES; do
        small=$(bench_graph "$family" "$SMALL" "$SEED" "$OUT")
        big=$(bench_graph "$family" "$BIG" "$SEED" "$OUT")
        record small "$small" "$SMALL_RUNS" "${flags[@]}"
        record big "$big" 1 "${flags[@]}"
        python3 tools/growth-split.py --pass "$symbol" --big "$tmp/big.txt" --small "$tmp/small.txt" \
            --small-runs "$SMALL_RUNS" --ratio "$(awk -v a="$BIG" -v b="$SMALL" 'BEGIN { print a / b }')" \
            --label "$pass/$family" "${split_verifier[@]}" | tee -a "$results"
    done
done
echo "results: $results" >&2
