#!/usr/bin/env bash
# The fused --ge-mem-plan-pipeline against the five static-plan flags run one by one (used by
# mem-plan-fused.test): for every family and seed, both must print byte-identical IR, and
# with remarks on, identical diagnostics; --verify-mem-plan must accept the fused plan.
# Every fourth seed runs after --stream-alloc (streams and events constrain the plan), every
# third with remarks=true on every pass.
# Then the same comparison (IR, diagnostics with remarks, exit status) on every hand-written
# memory test input in TESTDIR (split at `// -----`): layout conflicts of every checker,
# zero-copy offsets, error cases.
# Usage: mem-plan-fused.sh OUTDIR SEEDS OPS TESTDIR
set -euo pipefail
dir=$1 seeds=$2 ops=$3 tests=$4
compared=0 streamed=0 remarked=0 copies=0
for family in transformer resnet wide-dag control-flow; do
    for ((seed = 1; seed <= seeds; seed++)); do
        file=$dir/$family-$seed.mlir
        ge-gen --family "$family" --ops "$ops" --seed "$seed" -o "$file"
        if ((seed % 4 == 0)); then
            ge-opt "$file" --stream-alloc=max-stream-normal=2048,max-events=1048576 -o "$file.s.mlir"
            mv "$file.s.mlir" "$file"
            streamed=$((streamed + 1))
        fi
        opt=""
        if ((seed % 3 == 0)); then
            opt="=remarks=true"
            remarked=$((remarked + 1))
        fi
        separate=(--inplace-support-check$opt --mem-layout-conflict$opt --mem-inplace$opt
            --mem-assign --set-io-offset$opt)
        ge-opt "$file" "${separate[@]}" -o "$dir/separate.mlir" 2>"$dir/separate.err"
        ge-opt "$file" --ge-mem-plan-pipeline$opt -o "$dir/fused.mlir" 2>"$dir/fused.err"
        if ! diff -q "$dir/separate.mlir" "$dir/fused.mlir" >/dev/null; then
            echo "IR DIFFERS: $family seed $seed"
            diff "$dir/separate.mlir" "$dir/fused.mlir" | head -20
            exit 1
        fi
        if ! diff -q "$dir/separate.err" "$dir/fused.err" >/dev/null; then
            echo "DIAGNOSTICS DIFFER: $family seed $seed"
            diff "$dir/separate.err" "$dir/fused.err" | head -20
            exit 1
        fi
        if ! out=$(ge-opt "$dir/fused.mlir" --verify-mem-plan -o /dev/null 2>&1); then
            echo "VERIFY FAILED: $family seed $seed: $out"
            exit 1
        fi
        copies=$((copies + $(grep -c 'inserted_by = "mem-layout-conflict"' "$dir/fused.mlir" || true)))
        compared=$((compared + 1))
    done
done
echo "compared $compared graphs ($streamed after stream allocation, $remarked with remarks)"
((copies > 0)) && echo "some graphs had layout copies"
files=0
for file in "$tests"/*.ge "$tests"/*.mlir; do
    set +e
    ge-opt --split-input-file "$file" --inplace-support-check=remarks=true \
        --mem-layout-conflict=remarks=true --mem-inplace=remarks=true --mem-assign \
        --set-io-offset=remarks=true >"$dir/separate.out" 2>&1
    separate=$?
    ge-opt --split-input-file "$file" --ge-mem-plan-pipeline=remarks=true >"$dir/fused.out" 2>&1
    fused=$?
    set -e
    if ((separate != fused)) || ! diff -q "$dir/separate.out" "$dir/fused.out" >/dev/null; then
        echo "DIFFERS: $file (exit $separate vs $fused)"
        diff "$dir/separate.out" "$dir/fused.out" | head -20
        exit 1
    fi
    files=$((files + 1))
done
echo "compared $files test inputs"
