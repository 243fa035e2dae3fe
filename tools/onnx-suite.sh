#!/usr/bin/env bash
# Imports (ge-translate --import-onnx) and compiles (ge-opt --ge-compile) every ONNX node
# test whose op ge-translate claims (--list-onnx-ops), and, with RUN=1, runs each on the
# simulator with its test_data_set inputs against its expected outputs (`ge-run MODEL
# --input NAME=input_J.pb ... --check output_J.pb`; ge-run is built elsewhere). Prints a
# pass / fail / unsupported count per stage and the failures with their reason.
#
#   bash tools/onnx-suite.sh [OUT_DIR] [FILTER]     (OUT_DIR default target/onnx-node)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/onnx-node}"
filter="${2:-}"
bin="${CARGO_TARGET_DIR:-target}/debug"
python=$(bash tools/setup-onnx.sh | tail -1)
[ -d "$out" ] || "$python" tools/onnx-node-tests.py "$out" >&2
# The cases all of whose node op types ge-translate maps (one python run for all).
claimed_list=$("$bin/ge-translate" --list-onnx-ops | awk '!/^#/ {print $1}' | "$python" -c '
import glob, os, sys, onnx
ops = set(sys.stdin.read().split())
for m in sorted(glob.glob(os.path.join(sys.argv[1], "*", "model.onnx"))):
    g = onnx.load(m, load_external_data=False).graph
    if {n.op_type for n in g.node} <= ops:
        print(os.path.basename(os.path.dirname(m)))
' "$out")
total=$(ls -d "$out"/*/ | wc -l)
imported=0 import_fail=0 compiled=0 compile_fail=0 ran=0 run_fail=0
log="$out/report.txt"; : > "$log"
for case_name in $claimed_list; do
  dir="$out/$case_name"
  [[ -n "$filter" && "$case_name" != *"$filter"* ]] && continue
  model="$dir/model.onnx"
  if ! err=$("$bin/ge-translate" --import-onnx "$model" -o "$dir/model.mlir" 2>&1); then
    import_fail=$((import_fail + 1)); echo "IMPORT $case_name: ${err%%$'\n'*}" >> "$log"; continue
  fi
  imported=$((imported + 1))
  if ! err=$("$bin/ge-opt" --ge-compile "$dir/model.mlir" -o /dev/null 2>&1); then
    compile_fail=$((compile_fail + 1)); echo "COMPILE $case_name: ${err%%$'\n'*}" >> "$log"; continue
  fi
  compiled=$((compiled + 1))
  if [ "${RUN:-0}" = 1 ]; then
    for set in "$dir"/test_data_set_*; do
      args=()
      for f in "$set"/input_*.pb; do
        [ -e "$f" ] && args+=(--input "$("$python" -c 'import onnx,sys; t=onnx.TensorProto(); t.ParseFromString(open(sys.argv[1],"rb").read()); print(t.name)' "$f")=$f")
      done
      for f in "$set"/output_*.pb; do [ -e "$f" ] && args+=(--check "$f"); done
      if "$bin/ge-run" "$model" "${args[@]}" > /dev/null 2>> "$log"; then ran=$((ran + 1)); else
        run_fail=$((run_fail + 1)); echo "RUN $case_name/$(basename "$set")" >> "$log"; fi
    done
  fi
done
echo "cases: $total, of which $(echo "$claimed_list" | wc -w) use only mapped ops"
echo "import: $imported passed, $import_fail failed"
echo "compile: $compiled passed, $compile_fail failed"
[ "${RUN:-0}" = 1 ] && echo "run: $ran passed, $run_fail failed"
echo "failures: $log"
