#!/usr/bin/env bash
# Sets up, builds, and runs the whole path on the bundled example: import a GE graph written
# in the .ge format, run GE's compile-time memory and stream passes in GE's order
# (--ge-compile: memory conflicts, stream allocation, the static memory plan and its
# verifier), lower it to per-stream task lists (--lower-to-tasks), check that stock mlir-opt
# reads both results with our IRDL dialects, then run the task lists with ge-run on the
# bundled device simulator (two ranks, three training iterations, four seeded schedules)
# and check every output and variable bit for bit against the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
cargo build --release --workspace
GE_OPT=target/release/ge-opt
GE_RUN=target/release/ge-run
MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
example=examples/allreduce_step.ge

echo "== $example"
cat "$example"
echo "== ge-opt --ge-compile --mlir-pass-statistics $example"
"$GE_OPT" --ge-compile --stream-alloc-summary=target/demo-streams.json \
  --mlir-pass-statistics "$example" -o target/demo.mlir
cat target/demo.mlir
echo "== stream allocation summary (target/demo-streams.json)"
cat target/demo-streams.json
echo
echo "== ge-opt --lower-to-tasks: the per-stream task lists"
"$GE_OPT" --lower-to-tasks target/demo.mlir -o target/demo-tasks.mlir
cat target/demo-tasks.mlir
echo "== stock mlir-opt reads both with our IRDL dialects"
"$MLIR_OPT" --irdl-file=dialects/ascend.irdl.mlir target/demo.mlir -o /dev/null
"$MLIR_OPT" --irdl-file=dialects/ascend_task.irdl.mlir target/demo-tasks.mlir -o /dev/null
echo "ok"
echo "== ge-run --check: run on the simulator, compare with the reference interpreter"
"$GE_RUN" "$example" --ranks 2 --iterations 3 --schedules 4 --check \
  --output-dir target/demo-out --trace target/demo-trace.json
echo "== ge-run on the lowered module itself (no compile step)"
"$GE_RUN" target/demo-tasks.mlir --iterations 3
echo "== outputs in target/demo-out, a Chrome trace (chrome://tracing, Perfetto) in target/demo-trace.json"
