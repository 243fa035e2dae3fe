#!/usr/bin/env bash
# The race detector's overhead: the same lowered model run by ge-run with the detector
# off and on (target: at most 3x). A lowered model, so compile time is not in the ratio.
# Usage: tools/bench-race.sh [family] [ops] [iterations]   (debug build unless PROFILE=release)
set -euo pipefail
cd "$(dirname "$0")/.."
family=${1:-wide-dag}
ops=${2:-2000}
iters=${3:-10}
profile=${PROFILE:-debug}
bin=target/$profile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/ge-gen" --format ge --family "$family" --ops "$ops" --seed 1 > "$tmp/g.ge"
"$bin/ge-opt" "$tmp/g.ge" --ge-compile --lower-to-tasks -o "$tmp/g.mlir" 2>/dev/null
tasks=$(grep -c 'ascend_task\.' "$tmp/g.mlir" || true)
run() {
  local start end
  start=$(date +%s.%N)
  "$bin/ge-run" "$tmp/g.mlir" --opaque-kernels --iterations "$iters" --race-check="$1" > "$tmp/out.$1" 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
best() { # best of 3
  local b=999999 t
  for _ in 1 2 3; do t=$(run "$1"); b=$(echo "if ($t < $b) $t else $b" | bc -l); done
  echo "$b"
}
off=$(best off)
on=$(best on)
grep -q "race check: no races" "$tmp/out.on" || { echo "detector run did not pass:"; tail -3 "$tmp/out.on"; }
printf '%s --ops %s (%s task lines), %s iterations, %s build\n' "$family" "$ops" "$tasks" "$iters" "$profile"
printf 'detector off: %.3f s   on: %.3f s   ratio: %.2fx (target <= 3x)\n' "$off" "$on" "$(echo "$on / $off" | bc -l)"
