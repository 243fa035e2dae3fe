#!/usr/bin/env bash
# Dynamic memory mode (`ge-run --memory=dynamic`), measured side by side in one run:
#  * peak device memory of GE's run-time allocators (64 KiB pages, per-stream pools)
#    against the static plan's `memory_size` and the compiler's max-live lower bound
#    (mem-assign's remark), and the plan's own host-order max-live, per ge-gen family,
#    with GE's default stream split and with a task limit of 100 (200 for control flow;
#    10-30 streams: the MIF masks bound a dynamic run to 64);
#  * allocator throughput: the plan's allocation sequence through GE's allocators
#    against one aclrtMalloc / aclrtFree per tensor (examples/dynmem_alloc.rs), on the
#    simulator.
# Kernels run as opaque stand-ins (the memory numbers do not depend on the values).
# Usage: [FAMILIES=...] tools/bench-dynmem.sh [ops] [rounds]   (release build unless PROFILE=debug; the
# memory columns do not depend on the build, the throughput ones do)
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-1000}
rounds=${2:-20}
profile=${PROFILE:-release}
build_flag=$([ "$profile" = release ] && echo --release || true)
nice -n 10 cargo build $build_flag -q -p ascend-sim
nice -n 10 cargo build $build_flag -q -p ge-mlir --bin ge-run --bin ge-gen --bin ge-opt --example dynmem_alloc
bin=target/$profile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$profile build; date: $(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-12s %-20s %7s %12s %12s %12s %12s %8s %8s %9s\n' family compile streams memory_size max-live plan-live dyn-peak peak/ms peak/ml allocs
for family in ${FAMILIES:-wide-dag transformer control-flow resnet}; do
  "$bin/ge-gen" --family "$family" --ops "$ops" --seed 1 > "$tmp/$family.mlir"
  # The split counts tasks as GE does: the control-flow family needs 72 streams at 100,
  # over a MIF mask's 64; 200 gives 29.
  split=max-task-normal=100
  [ "$family" = control-flow ] && split=max-task-normal=200
  for options in "" "$split"; do
    flag=--ge-compile${options:+=$options}
    "$bin/ge-opt" "$tmp/$family.mlir" "$flag" --lower-to-tasks -o "$tmp/low.mlir" 2> "$tmp/remarks"
    maxlive=$(grep -o 'max-live lower bound [0-9]*' "$tmp/remarks" | head -1 | grep -o '[0-9]*$' || echo 0)
    memsize=$(grep -o 'memory_size = [0-9]*' "$tmp/low.mlir" | grep -o '[0-9]*$')
    streams=$(grep -o 'stream_num = [0-9]*' "$tmp/low.mlir" | grep -o '[0-9]*$')
    line=$("$bin/ge-run" "$tmp/low.mlir" --memory=dynamic --opaque-kernels | grep 'dynamic memory (rank 0)')
    peak=$(echo "$line" | sed -E 's/.*peak device ([0-9]+) B.*/\1/')
    live=$(echo "$line" | sed -E 's/.*host-order max-live ([0-9]+) B.*/\1/')
    allocs=$(echo "$line" | sed -E 's/.* ([0-9]+) allocations.*/\1/')
    printf '%-12s %-20s %7s %12s %12s %12s %12s %8.2f %8.2f %9s\n' "$family" "${options:-default}" "$streams" \
      "$memsize" "$maxlive" "$live" "$peak" "$(echo "$peak / $memsize" | bc -l)" \
      "$(echo "$peak / ($maxlive + ($maxlive == 0))" | bc -l)" "$allocs"
  done
  # control flow needs run-time decisions: no whole plan to replay
  [ "$family" = control-flow ] && continue
  echo "throughput ($family, default compile):"
  "$bin/ge-opt" "$tmp/$family.mlir" --ge-compile --lower-to-tasks -o "$tmp/low.mlir" 2> /dev/null
  GE_SIM_LIB_DIR="$PWD/$bin" "$bin/examples/dynmem_alloc" "$tmp/low.mlir" "$rounds" | sed 's/^/  /'
done
