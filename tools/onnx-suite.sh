#!/usr/bin/env bash
# The whole ONNX backend test suite against its expected outputs (CI runs a fixed slice:
# test/Onnx/suite.test). Writes the node tests once (tools/onnx-node-tests.py, into
# OUT_DIR), then tools/onnx-suite.py imports, compiles, lowers and runs every case of the
# node tests and of the sets the onnx package ships (simple, pytorch-converted,
# pytorch-operator, light) on the simulator with its inputs, compares with the expected
# outputs at onnx's tolerances, and prints pass / fail / unsupported per set; every case
# with its class and reason goes to OUT_DIR/report.txt. Exit 1 if any claimed case fails.
#
#   bash tools/onnx-suite.sh [OUT_DIR] [FILTER]     (OUT_DIR default target/onnx-node)
#   SETS=node,simple JOBS=2 TIMEOUT=1800 CHECK=1 bash tools/onnx-suite.sh
#
# CHECK=1 also runs `ge-run --check` (bit-identical to the reference interpreter, race
# detector on). PROFILE=release builds and uses release tools (all sets: about 2 minutes on
# 2 cores; the light set's 224x224 CNNs take 2-15 s each).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/onnx-node}"
filter="${2:-}"
PROFILE=${PROFILE:-debug}
SETS=${SETS:-node,simple,pytorch-converted,pytorch-operator,light}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-1800}
bin="${CARGO_TARGET_DIR:-target}/$PROFILE"
if [[ ${BUILD:-1} == 1 ]]; then
    flag=()
    [[ $PROFILE == release ]] && flag=(--release)
    cargo build "${flag[@]}" -q --bin ge-run --bin ge-translate --bin ge-opt || exit 1
    cargo build "${flag[@]}" -q -p ascend-sim || exit 1
fi
export GE_SIM_LIB_DIR=$PWD/$bin
python=$(bash tools/setup-onnx.sh | tail -1)
if [[ ,$SETS, == *,node,* && ! -d $out ]]; then
    "$python" tools/onnx-node-tests.py "$out" >&2 || exit 1
fi
extra=()
[[ ${CHECK:-0} == 1 ]] && extra+=(--check)
start=$(date +%s)
"$python" tools/onnx-suite.py --bin "$bin" --sets "$SETS" --node-dir "$out" --filter "$filter" \
    --jobs "$JOBS" --timeout "$TIMEOUT" --report "$out/report.txt" "${extra[@]}"
status=$?
echo "onnx-suite: $(($(date +%s) - start)) s on $(nproc) cores (load $(cut -d' ' -f1 /proc/loadavg)); every case: $out/report.txt"
exit $status
