#!/bin/sh
# Builds ge-opt and the mlir-opt plugin (debug) and runs the lit suite. Extra arguments go to lit
# (e.g. `test/run.sh --filter topo`).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cargo build --bin ge-opt
# The plugin too: test/Plugin compares the two and refuses a plugin older than its sources.
cargo build -p ge-mlir-c
exec lit-22 -sv "$@" test/
