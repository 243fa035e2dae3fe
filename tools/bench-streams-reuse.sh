#!/usr/bin/env bash
# Streams created with and without the reusable stream pool over N model loads in one
# process: ge-run loads a set of lowered models in turn (--models, --loads), each load
# taking its streams from ge_mlir::runtime::streams::ReusableStreamAllocator, with the
# design's reuse by task count (on) or GE's HEAD behaviour, a stream per request (off).
# Both runs in this script, side by side, with their wall times.
# Usage: tools/bench-streams-reuse.sh [loads]   (debug build unless PROFILE=release)
# MODELS: the ge-gen family:ops pairs loaded in turn (no collectives: one rank).
set -euo pipefail
cd "$(dirname "$0")/.."
loads=${1:-100}
models_spec=${MODELS:-control-flow:200 control-flow:500 wide-dag:600}
profile=${PROFILE:-debug}
bin=target/$profile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models=()
# models of different stream counts, lowered once (compile time is not measured)
for spec in $models_spec; do
  family=${spec%%:*}
  ops=${spec##*:}
  name="$family-$ops"
  if "$bin/ge-gen" --format ge --family "$family" --ops "$ops" --seed 1 > "$tmp/$name.ge" 2>/dev/null \
     && "$bin/ge-opt" "$tmp/$name.ge" --ge-compile --lower-to-tasks -o "$tmp/$name.mlir" 2>/dev/null; then
    models+=("$tmp/$name.mlir")
  fi
done
[ ${#models[@]} -gt 0 ] || { echo "no model could be generated"; exit 1; }
# rounds so that the total number of loads is $loads
rounds=$(( (loads + ${#models[@]} - 1) / ${#models[@]} ))
first=${models[0]}
rest=("${models[@]:1}")
run() { # $1 = on|off; prints the stream line and the wall time
  local start end
  start=$(date +%s.%N)
  if [ ${#rest[@]} -gt 0 ]; then
    "$bin/ge-run" "$first" --models "${rest[@]}" --loads "$rounds" --opaque-kernels --stream-reuse "$1" > "$tmp/out.$1"
  else
    "$bin/ge-run" "$first" --loads "$rounds" --opaque-kernels --stream-reuse "$1" > "$tmp/out.$1"
  fi
  end=$(date +%s.%N)
  printf '%s   (%.2f s)\n' "$(grep '^streams' "$tmp/out.$1")" "$(echo "$end - $start" | bc -l)"
}
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $profile build"
for m in "${models[@]}"; do
  printf '  %s: %s streams\n' "$(basename "$m" .mlir)" "$(grep -o 'stream_num = [0-9]*' "$m" | head -1 | cut -d' ' -f3)"
done
echo "$(( rounds * ${#models[@]} )) loads ($rounds rounds over ${#models[@]} models)"
run on
run off
