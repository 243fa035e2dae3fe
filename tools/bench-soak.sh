#!/usr/bin/env bash
# The differential soak's benchmark run: N random graphs (every ge-gen family, random
# option sets) x 8 schedules each through ge-run --check (race detector on, reference
# comparison), niced; prints the soak's summary with its throughput in graphs per minute
# and the machine's load before and after. Failures are kept unshrunk (shrink one with
# tools/soak.py --shrink FILE.ge) so the throughput is the soak's own.
# Usage: tools/bench-soak.sh [graphs] [seed] [min-ops] [max-ops]   (release build unless PROFILE=debug;
# MINUTES=M stops after M minutes and reports the graphs run by then)
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=${1:-2000}
seed=${2:-1}
min_ops=${3:-50}
max_ops=${4:-400}
profile=${PROFILE:-release}
if [ "$profile" = release ]; then
  cargo build --release -p ascend-sim >/dev/null && cargo build --release -p ge-mlir --bin ge-run --bin ge-gen >/dev/null
fi
out=$(mktemp -d)
echo "$(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $graphs graphs x 8 schedules, ops $min_ops..$max_ops, seed $seed, $profile build"
nice -n 10 python3 tools/soak.py --graphs "$graphs" --seed "$seed" --min-ops "$min_ops" \
  --max-ops "$max_ops" --schedules 8 --bin "target/$profile" --out "$out" --no-shrink ${MINUTES:+--minutes "$MINUTES"} \
  | tee "$out/soak.log" | tail -1
echo "$(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg); failures (if any) in $out"
