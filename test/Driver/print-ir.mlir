// Tests --mlir-print-ir-after-all / --mlir-print-ir-before-all: one dump per pass, on
// stderr, named like mlir-opt names them; stdout keeps only the result.
// RUN: ge-opt %s --pass-pipeline='builtin.module(canonicalize, ascend-topo-order)' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// RUN: ge-opt %s --ascend-topo-order --mlir-print-ir-before-all 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: ge-opt %s --ascend-topo-order --mlir-print-ir-after-all 2>/dev/null | FileCheck %s --check-prefix=STDOUT
// Without passes there is nothing to dump.
// RUN: ge-opt %s --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE --allow-empty

// AFTER:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-NEXT: module {
// AFTER-NOT:  topo_id
// AFTER:      // -----// IR Dump After AscendTopoOrder (ascend-topo-order) //----- //
// AFTER-NEXT: module {
// AFTER:      topo_id = 0 : i64

// BEFORE:     // -----// IR Dump Before AscendTopoOrder (ascend-topo-order) //----- //
// BEFORE-NOT: topo_id

// STDOUT-NOT: IR Dump
// STDOUT:     topo_id = 0 : i64

// NONE-NOT: IR Dump
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
