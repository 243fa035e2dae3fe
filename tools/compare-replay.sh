#!/usr/bin/env bash
# Output identity of the two ways a pass applies its decisions: rewrite patterns under
# MLIR's walk driver (the default) and the plain loop (GE_MLIR_REPLAY=loop), and, with
# OLD_GE_OPT, a second binary (another build, e.g. main's): the sha256 of ge-opt's output
# (stdout + stderr) and its exit status for every pass that rewrites and --ge-compile on
# each ge-gen family at each size. Prints one line per (family, size, pass) and exits 1 on
# the first difference.
#
#   tools/compare-replay.sh                       sizes 1000 10000, debug binaries
#   SIZES="200" tools/compare-replay.sh           quick
#   OLD_GE_OPT=/path/to/old/ge-opt tools/compare-replay.sh
#   GE_OPT=target/release/ge-opt GE_GEN=target/release/ge-gen tools/compare-replay.sh
set -euo pipefail
BENCH_NAME=compare-replay
cd "$(dirname "$0")/.."
GE_OPT=${GE_OPT:-target/debug/ge-opt}
GE_GEN=${GE_GEN:-target/debug/ge-gen}
SIZES=${SIZES:-1000 10000}
FAMILIES=${FAMILIES:-resnet transformer wide-dag control-flow}
OLD_GE_OPT=${OLD_GE_OPT:-}
[[ -x $GE_OPT && -x $GE_GEN ]] || { echo "$BENCH_NAME: build ge-opt and ge-gen first" >&2; exit 1; }
PASSES=(
    --mem-rw-conflict --hccl-memcpy --hccl-continuous-memcpy --subgraph-isolate
    --atomic-addr-clean --mem-layout-conflict --memcpy-addr-async --inplace-support-check
    --mark-same-addr --ge-memory-pipeline --ge-mem-plan-pipeline --stream-alloc
    --stream-alloc=max-task-normal=64 --ge-compile
)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# sha256 of the output and the exit status of one run.
digest() {
    local status=0
    "$@" >"$dir/out" 2>&1 || status=$?
    echo "$(sha256sum <"$dir/out" | cut -c1-16) exit=$status"
}

differences=0
for family in $FAMILIES; do
    for size in $SIZES; do
        graph=$dir/$family-$size.mlir
        "$GE_GEN" --family "$family" --ops "$size" --format mlir -o "$graph"
        for pass in "${PASSES[@]}"; do
            patterns=$(digest env -u GE_MLIR_REPLAY "$GE_OPT" "$pass" "$graph")
            loop=$(digest env GE_MLIR_REPLAY=loop "$GE_OPT" "$pass" "$graph")
            old=$patterns
            [[ -z $OLD_GE_OPT ]] || old=$(digest env -u GE_MLIR_REPLAY "$OLD_GE_OPT" "$pass" "$graph")
            verdict=same
            [[ $patterns == "$loop" && $patterns == "$old" ]] || { verdict=DIFFERENT; differences=1; }
            printf '%-12s %6s %-34s %s %s\n' "$family" "$size" "$pass" "$patterns" "$verdict"
            [[ $verdict == same ]] || echo "  loop: $loop  old: $old"
        done
    done
done
exit $differences
