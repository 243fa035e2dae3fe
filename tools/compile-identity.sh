#!/usr/bin/env bash
# `ge-opt --ge-compile` prints the same bytes after a speed change as before it: for every
# family and size, the sha256 of the output (IR on stdout, diagnostics on stderr) of
#   $GE_OPT --ge-compile=$COMPILE_OPTIONS            (models handed on, verified per chain)
#   $GE_OPT ... --share-models=false                 (every pass reads the IR, verified each)
#   $BASE_GE_OPT --ge-compile=$COMPILE_OPTIONS       (another build, e.g. the tree before the
#                                                     change; only when BASE_GE_OPT is set)
# One line per graph: `same` when all agree, else `DIFFERENT` and the hashes; exit 1 on any
# difference.
#
# Environment:
#   FAMILIES="transformer resnet wide-dag control-flow"  SIZES="10000 100000"  SEED=1
#   COMPILE_OPTIONS="max-stream-normal=4096,max-events=1048576"
#   GE_OPT, GE_GEN (default: release builds, built when missing)  BASE_GE_OPT  OUT=bench-out
set -euo pipefail
cd "$(dirname "$0")/.."

FAMILIES=${FAMILIES:-"transformer resnet wide-dag control-flow"}
SIZES=${SIZES:-"10000 100000"}
SEED=${SEED:-1}
COMPILE_OPTIONS=${COMPILE_OPTIONS:-"max-stream-normal=4096,max-events=1048576"}
OUT=${OUT:-bench-out}
BASE_GE_OPT=${BASE_GE_OPT:-}

BENCH_NAME=compile-identity.sh
# shellcheck source=tools/bench-lib.sh
source tools/bench-lib.sh
bench_build_bins
mkdir -p "$OUT"

# digest FILE CMD...: sha256 of stdout and stderr together, and the exit status.
digest() {
    local file=$1 status=0
    shift
    "$@" --ge-compile="$COMPILE_OPTIONS" "$file" -o - >"$OUT/identity.out" 2>"$OUT/identity.err" ||
        status=$?
    echo "$status:$(cat "$OUT/identity.out" "$OUT/identity.err" | sha256sum | cut -c1-16)"
}

different=0
for family in $FAMILIES; do
    for size in $SIZES; do
        file=$(bench_graph "$family" "$size" "$SEED" "$OUT")
        shared=$(digest "$file" "$GE_OPT")
        unshared=$(digest "$file" "$GE_OPT" --share-models=false)
        line="shared $shared unshared $unshared"
        verdict=same
        [[ $shared == "$unshared" ]] || verdict=DIFFERENT
        if [[ -n $BASE_GE_OPT ]]; then
            base=$(digest "$file" "$BASE_GE_OPT")
            line+=" base $base"
            [[ $shared == "$base" ]] || verdict=DIFFERENT
        fi
        [[ $verdict == same ]] || different=1
        printf "%-9s %-12s %8s  %s\n" "$verdict" "$family" "$size" "$line"
    done
done
rm -f "$OUT/identity.out" "$OUT/identity.err"
exit "$different"
