#!/usr/bin/env bash
# Sets up, builds, and runs every test: cargo unit/integration tests, then the lit suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
# The onnx package in a venv, with which the ONNX tests make their models (test/Onnx).
bash tools/setup-onnx.sh >/dev/null
# Every crate of the workspace: ge-opt, ge-gen, ge-run, ge-translate and the simulator's
# libascendcl.so / libhccl.so, which lit's ge-run tests load from target/debug.
cargo build --workspace
# The API docs build without a warning (a broken intra-doc link fails the run).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace --all-targets 2>&1 | tee target/cargo-test.log
lit-22 -sv test/ 2>&1 | tee target/lit.log

# One closing line for the whole run, counted from both runners.
read -r cargo_pass cargo_fail < <(awk '/^test result:/ {p+=$4; f+=$6} END {print p+0, f+0}' target/cargo-test.log)
lit_pass=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' target/lit.log | tail -1)
lit_fail=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' target/lit.log | tail -1)
echo "$((cargo_pass + ${lit_pass:-0})) passed, $((cargo_fail + ${lit_fail:-0})) failed"
