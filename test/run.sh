#!/bin/sh
# Builds ge-opt (debug) and runs the lit suite. Extra arguments go to lit
# (e.g. `test/run.sh --filter topo`).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cargo build --bin ge-opt
exec lit-22 -sv "$@" test/
