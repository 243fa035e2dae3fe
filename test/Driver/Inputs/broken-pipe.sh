#!/usr/bin/env bash
# Used by broken-pipe.test: runs `ge-opt FILE | head -n 1` in a real shell pipeline (lit's
# own shell buffers a pipeline stage's output, so the reader never closes early there) and
# prints ge-opt's exit status, then what it wrote to stderr.
# Usage: broken-pipe.sh FILE.mlir ERRFILE
set -uo pipefail
ge-opt "$1" 2>"$2" | head -n 1
echo "ge-opt exit status ${PIPESTATUS[0]}"
