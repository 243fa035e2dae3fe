#!/usr/bin/env bash
# Validates ge-gen output with stock mlir-opt: every family, several seeds, at OPS ops, must
# be accepted by `mlir-opt --irdl-file=$IRDL`. If GE_OPT is set (a ge-opt that reads .ge),
# the .ge version is also imported with `ge-opt --emit mlir` and the result re-checked by
# mlir-opt, and must have the same number of ascend ops.
#
#   tools/ge-gen/check.sh                       # IRDL=dialects/ascend.irdl.mlir, OPS=1000
#   IRDL=/tmp/x.irdl.mlir OPS=5000 SEEDS="1 2" GE_OPT=target/debug/ge-opt tools/ge-gen/check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

IRDL=${IRDL:-dialects/ascend.irdl.mlir}
OPS=${OPS:-1000}
SEEDS=${SEEDS:-"0 1 2"}
FAMILIES=${FAMILIES:-"transformer resnet wide-dag control-flow"}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
GE_GEN=${GE_GEN:-}
if [[ -z $GE_GEN ]]; then
    cargo build --quiet --bin ge-gen
    GE_GEN=target/debug/ge-gen
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for family in $FAMILIES; do
    for seed in $SEEDS; do
        f="$tmp/$family-$seed"
        "$GE_GEN" --family "$family" --ops "$OPS" --seed "$seed" -o "$f.mlir"
        n=$(grep -c ' = "ascend\.' "$f.mlir" || true)
        status="ok"
        if ! "$MLIR_OPT" --irdl-file="$IRDL" "$f.mlir" -o /dev/null 2>"$f.err"; then
            status="REJECTED by mlir-opt: $(head -c 300 "$f.err")"
            fail=1
        elif [[ -n ${GE_OPT:-} ]]; then
            "$GE_GEN" --family "$family" --ops "$OPS" --seed "$seed" --format ge -o "$f.ge"
            if ! "$GE_OPT" --emit mlir "$f.ge" -o "$f.imported.mlir" 2>"$f.err"; then
                status=".ge import FAILED: $(head -c 300 "$f.err")"
                fail=1
            elif ! "$MLIR_OPT" --irdl-file="$IRDL" "$f.imported.mlir" -o /dev/null 2>"$f.err"; then
                status="imported .ge REJECTED by mlir-opt: $(head -c 300 "$f.err")"
                fail=1
            else
                m=$("$MLIR_OPT" --irdl-file="$IRDL" --mlir-print-op-generic "$f.imported.mlir" | grep -c '"ascend\.' || true)
                if [[ $m != "$n" ]]; then
                    status="imported .ge has $m ascend ops, .mlir has $n"
                    fail=1
                else
                    status="ok (.mlir and .ge)"
                fi
            fi
        fi
        printf "%-13s seed %-3s %7s ops  %s\n" "$family" "$seed" "$n" "$status"
    done
done
exit $fail
