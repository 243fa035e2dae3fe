#!/usr/bin/env bash
# Sets up, builds, and runs ge-opt's main job on the bundled example: import a GE graph
# written in the .ge format, run GE's compile-time memory and stream passes in GE's order
# (--ge-compile: memory conflicts, stream allocation, the static memory plan and its
# verifier), print the MLIR result, and check that stock mlir-opt accepts it with our IRDL
# dialect.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
cargo build --release --bins
GE_OPT=target/release/ge-opt
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
echo "== the same result as .ge"
"$GE_OPT" --emit ge target/demo.mlir
echo "== stock mlir-opt --irdl-file=dialects/ascend.irdl.mlir accepts the result"
/usr/lib/llvm-22/bin/mlir-opt --irdl-file=dialects/ascend.irdl.mlir target/demo.mlir -o /dev/null
echo "ok"
