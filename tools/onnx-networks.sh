#!/usr/bin/env bash
# The real-network table: ResNet, MobileNet, BERT, GPT-2 and ViT shapes as users export
# them (tools/onnx-networks.py, small widths), each imported, compiled, lowered and run on
# the simulator. Per model: ONNX nodes and GE ops; --ge-compile time against mlir-opt's
# parse + print of the same imported module (best of RUNS); streams; events against their
# minimum (the transitive reduction on the physical streams); Identity copies inserted;
# the memory plan's peak against the max-live lower bound; the simulated makespan against
# the same model on one stream; and that `ge-run --check` (race detector on, SCHEDULES
# schedules) is bit-identical to the reference interpreter and that the outputs match
# onnx's ReferenceEvaluator. Exit 1 if a model fails any of those.
#
#   PROFILE=release RUNS=5 SCHEDULES=4 MODELS=resnet,mobilenet,bert,gpt2,vit \
#     bash tools/onnx-networks.sh
#
# OPTIONS: --ge-compile options for every compile and run, as `ge-opt --ge-compile=OPTIONS`
# takes them: OPTIONS='max-parallel={AIcoreEngine:4}' is GE's ge.streamMaxParallelNum (by
# default each engine gets one dependency stream, so these single-engine networks get one).
set -euo pipefail
cd "$(dirname "$0")/.."

PROFILE=${PROFILE:-release}
RUNS=${RUNS:-5}
SCHEDULES=${SCHEDULES:-4}
MODELS=${MODELS:-resnet,mobilenet,bert,gpt2,vit}
IRDL=${IRDL:-dialects/ascend.irdl.mlir}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
OUT=${OUT:-$(mktemp -d /tmp/onnx-networks.XXXXXX)}
BIN=${CARGO_TARGET_DIR:-target}/$PROFILE
OPTIONS=${OPTIONS:-}
compile=--ge-compile${OPTIONS:+=$OPTIONS}

if [[ ${BUILD:-1} == 1 ]]; then
    flag=()
    [[ $PROFILE == release ]] && flag=(--release)
    cargo build "${flag[@]}" -q --bin ge-opt --bin ge-run --bin ge-translate
    cargo build "${flag[@]}" -q -p ascend-sim # a library: --bin selections leave it out
fi
export GE_SIM_LIB_DIR=$PWD/$BIN
python=$(bash tools/setup-onnx.sh | tail -1)
"$python" tools/onnx-networks.py "$OUT" --models "$MODELS" >/dev/null

# best wall time in seconds of RUNS runs of a command
best() {
    "$python" - "$RUNS" "$@" <<'EOF'
import subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
print(f"{min(times):.3f}")
EOF
}
stat() { sed -n "s/^ *(S) *\([0-9]*\) $2 .*/\1/p" "$1" | head -1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $PROFILE build, best of $RUNS, $compile"
printf '| %-9s | %5s | %6s | %8s | %8s | %7s | %13s | %10s | %20s | %22s | %s |\n' \
    model nodes GE-ops "compile" mlir-opt streams "events (min)" identities \
    "peak / lower bound" "makespan / one stream" "checks"
printf '|%s|\n' "-----------|-------|--------|----------|----------|---------|---------------|------------|----------------------|------------------------|--------"
failed=0
IFS=, read -ra models <<<"$MODELS"
for m in "${models[@]}"; do
    onnx=$OUT/$m.onnx mlir=$OUT/$m.mlir
    inputs=()
    for pb in "$OUT/$m".input_*.pb; do
        name=$("$python" -c 'import onnx,sys; t=onnx.TensorProto(); t.ParseFromString(open(sys.argv[1],"rb").read()); print(t.name)' "$pb")
        inputs+=(--input "$name=$pb")
    done
    nodes=$("$python" -c 'import onnx,sys; print(len(onnx.load(sys.argv[1]).graph.node))' "$onnx")
    "$BIN/ge-translate" --import-onnx "$onnx" -o "$mlir"
    ops=$(grep -c ' = "ascend\.' "$mlir" || true)
    t_compile=$(best "$BIN/ge-opt" "$compile" "$mlir" -o /dev/null)
    t_mlir=$(best "$MLIR_OPT" --irdl-file="$IRDL" "$mlir" -o /dev/null)
    sf=$OUT/$m.stats
    "$BIN/ge-opt" "$compile" "$mlir" --mlir-pass-statistics -o /dev/null 2>"$sf"
    run=$OUT/$m.run
    checks=ok
    if ! "$BIN/ge-run" "$onnx" "${inputs[@]}" --pipeline-options "$OPTIONS" --check --schedules "$SCHEDULES" --report \
        --output-dir "$OUT/$m.out" >"$run" 2>&1; then
        checks="ge-run --check FAILED"
        failed=1
    elif ! grep -q "race check: no races" "$run" ||
        [[ $(grep -c "match the reference bit for bit" "$run") != "$SCHEDULES" ]]; then
        checks="not bit-identical or racy"
        failed=1
    elif ! "$python" tools/onnx-networks.py "$OUT" --compare "$m" "$OUT/$m.out" >"$OUT/$m.cmp"; then
        checks="differs from onnx"
        failed=1
    else
        checks="bit-identical x$SCHEDULES, race-free, = onnx"
    fi
    report=$(grep -m1 "report: makespan" "$run" || true)
    makespan=$(sed -n 's/.*report: makespan \([0-9.]* [a-z]*\);.*/\1/p' <<<"$report")
    one=$(sed -n 's/.*one stream \([0-9.]* [a-z]*\) (speed-up \([0-9.]*x\)).*/\1 (\2)/p' <<<"$report")
    peak=$(stat "$sf" workspace-bytes) lb=$(stat "$sf" lower-bound-bytes)
    printf '| %-9s | %5s | %6s | %7ss | %7ss | %7s | %13s | %10s | %20s | %22s | %s |\n' \
        "$m" "$nodes" "$ops" "$t_compile" "$t_mlir" "$(stat "$sf" num-streams)" \
        "$(stat "$sf" num-events) ($(stat "$sf" num-events-minimal-physical))" \
        "$(stat "$sf" num-identities-inserted)" "$peak / $lb B" "$makespan / $one" "$checks"
done
echo "# work files: $OUT"
exit $failed
