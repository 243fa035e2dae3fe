#!/usr/bin/env bash
# Property check of the static-plan memory passes on ge-gen graphs (used by
# mem-plan-generated.test): for every family and seed, the in-place chain and the static
# plan run (every fourth seed after --stream-alloc, so several streams constrain reuse),
# --verify-mem-plan must accept the plan, and the plan's peak must lie between its max-live
# lower bound and its no-reuse upper bound (read from mem-assign's remark).
# Usage: mem-plan-generated.sh OUTDIR SEEDS OPS
set -euo pipefail
dir=$1 seeds=$2 ops=$3
checked=0 streamed=0
for family in transformer resnet wide-dag control-flow; do
    for ((seed = 1; seed <= seeds; seed++)); do
        file=$dir/$family-$seed.mlir
        ge-gen --family "$family" --ops "$ops" --seed "$seed" -o "$file"
        flags=(--inplace-support-check --mem-inplace --mem-assign --verify-mem-plan)
        if ((seed % 4 == 0)); then
            flags=(--stream-alloc=max-stream-normal=2048,max-events=1048576 "${flags[@]}")
            streamed=$((streamed + 1))
        fi
        if ! out=$(ge-opt "$file" "${flags[@]}" -o /dev/null 2>&1); then
            echo "FAILED: $family seed $seed: $out"
            exit 1
        fi
        read -r w l u < <(sed -n 's/.*workspace \([0-9]*\) bytes.*lower bound \([0-9]*\) bytes.*upper bound \([0-9]*\) bytes.*/\1 \2 \3/p' <<<"$out")
        if [[ -z ${u:-} ]] || ((l > w || w > u)); then
            echo "BOUNDS: $family seed $seed: workspace ${w:-?}, lower ${l:-?}, upper ${u:-?}"
            exit 1
        fi
        checked=$((checked + 1))
    done
done
echo "checked $checked plans ($streamed after stream allocation)"
