#!/usr/bin/env bash
# The execution side's numbers (release build; a table, not a test):
#  1. simulator throughput in tasks/s on tiny kernels (a chain of 1-element ops, the model
#     loaded once and run ITER times: the load and the first run are subtracted);
#  2. per ge-gen family at OPS ops: ge-gen, --ge-compile, --lower-to-tasks and ge-run times;
#  3. the simulated makespan against the busiest stream's busy time (no schedule can finish
#     before its busiest stream has run all its tasks: a lower bound, weaker than the
#     critical path) and against the same graph compiled single-stream.
#
# OPS=100000 ITER=20 FAMILIES="transformer wide-dag control-flow resnet" bash tools/bench-run.sh
# ResNet's real shapes (8x3x224x224 images) take hours of real kernel arithmetic: its run
# uses --opaque-kernels only where no kernel exists, so RUN_RESNET=1 is needed to run it.
set -euo pipefail
cd "$(dirname "$0")/.."

OPS=${OPS:-100000}
ITER=${ITER:-20}
TINY=${TINY:-20000}
FAMILIES=${FAMILIES:-"transformer wide-dag control-flow resnet"}
RUN_RESNET=${RUN_RESNET:-0}
OUT=${OUT:-$(mktemp -d /tmp/bench-run.XXXXXX)}

cargo build --release -q --bin ge-opt --bin ge-gen --bin ge-run
# The simulator is a library: `--bin` selections would leave it out.
cargo build --release -q -p ascend-sim
BIN=target/release
export GE_SIM_LIB_DIR=$PWD/$BIN

# seconds of wall time of a command (its output to $OUT/last.out)
wall() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$OUT/last.out" 2>"$OUT/last.err" || { cat "$OUT/last.err" >&2; return 1; }
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

# total tasks run over all schedules printed by ge-run, and the makespans and bounds
summary() {
  python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
def us(v):
    v = v.replace(" ", "")
    for unit, f in (("ms", 1e3), ("µs", 1.0), ("us", 1.0), ("ns", 1e-3), ("s", 1e6)):
        if v.endswith(unit):
            return float(v[: -len(unit)]) * f
    return float(v)
tasks = 0
spans, bounds = [], []
for line in text.splitlines():
    m = re.search(r"makespan ([^;]+); busy: ([^;]*); tasks run: (.*)", line)
    if not m:
        continue
    spans.append(us(m.group(1)))
    # "s0 2000.317 us, s1 ...": a stream label, then its busy time with a unit
    busy = [us(b.split(" ", 1)[1]) for b in m.group(2).split(", ") if " " in b]
    bounds.append(max(busy) if busy else 0.0)
    tasks += sum(int(t.rsplit(" ", 1)[1]) for t in m.group(3).split(", ") if t.strip())
print(tasks, spans[-1] if spans else 0, bounds[-1] if bounds else 0)
EOF
}

echo "# bench-run $(date -u +%FT%TZ) on $(nproc) cores; OPS=$OPS ITER=$ITER; files in $OUT"
echo

# 1. throughput on tiny kernels
{
  echo "graph main {"
  echo "  x = Data() {index = 0} : f32[1]"
  prev=x
  for i in $(seq 1 "$TINY"); do
    echo "  r$i = Relu($prev) : f32[1]"
    prev=r$i
  done
  echo "  return $prev"
  echo "}"
} >"$OUT/tiny.ge"
$BIN/ge-opt --ge-compile --lower-to-tasks "$OUT/tiny.ge" -o "$OUT/tiny.tasks.mlir" 2>/dev/null
t1=$(wall $BIN/ge-run "$OUT/tiny.tasks.mlir" --iterations 1)
read -r n1 _ _ < <(summary "$OUT/last.out")
tn=$(wall $BIN/ge-run "$OUT/tiny.tasks.mlir" --iterations "$ITER")
read -r nn _ _ < <(summary "$OUT/last.out")
python3 - "$t1" "$tn" "$n1" "$nn" "$ITER" <<'EOF'
import sys
t1, tn, n1, nn, it = map(float, sys.argv[1:])
# ge-run reports the tasks of the last schedule's runs; per run the same count.
per_run = n1
extra_runs = it - 1
dt = tn - t1
rate = per_run * extra_runs / dt if dt > 0 else float("nan")
print(f"simulator throughput (chain of {int(per_run)} Relu tasks on f32[1]): {rate:,.0f} tasks/s "
      f"({int(extra_runs)} runs in {dt:.3f} s beyond the first; target >= 1,000,000)")
EOF
echo

# 2. and 3. per family
printf "| family | ops | ge-gen s | --ge-compile s | --lower-to-tasks s | ge-run s | streams | makespan us | busiest stream us | single-stream makespan us |\n"
printf "|---|---|---|---|---|---|---|---|---|---|\n"
for family in $FAMILIES; do
  g=$OUT/$family.mlir
  tgen=$(wall $BIN/ge-gen --family "$family" --ops "$OPS" --seed 1 -o "$g")
  tcomp=$(wall $BIN/ge-opt --ge-compile "$g" -o "$OUT/$family.compiled.mlir")
  tlow=$(wall $BIN/ge-opt --lower-to-tasks "$OUT/$family.compiled.mlir" -o "$OUT/$family.tasks.mlir")
  streams=$(grep -o 'stream_num = [0-9]*' "$OUT/$family.tasks.mlir" | head -1 | grep -o '[0-9]*$' || echo "?")
  if [[ $family == resnet && $RUN_RESNET != 1 ]]; then
    printf "| %s | %s | %s | %s | %s | (RUN_RESNET=1) | %s | | | |\n" "$family" "$OPS" "$tgen" "$tcomp" "$tlow" "$streams"
    continue
  fi
  trun=$(wall $BIN/ge-run "$OUT/$family.tasks.mlir")
  read -r _ span bound < <(summary "$OUT/last.out")
  $BIN/ge-opt --ge-compile=single-stream=true --lower-to-tasks "$g" -o "$OUT/$family.single.mlir" 2>/dev/null
  wall $BIN/ge-run "$OUT/$family.single.mlir" >/dev/null
  read -r _ single _ < <(summary "$OUT/last.out")
  printf "| %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %.1f |\n" \
    "$family" "$OPS" "$tgen" "$tcomp" "$tlow" "$trun" "$streams" "$span" "$bound" "$single"
done
