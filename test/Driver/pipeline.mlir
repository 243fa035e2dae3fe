// Tests that --pass-pipeline mixes upstream passes with ours, in order, at top level and
// nested, and that pipeline errors are clean errors.
// RUN: ge-opt %s --pass-pipeline='builtin.module(canonicalize, ascend-topo-order, cse)' | FileCheck %s
// RUN: ge-opt %s --pass-pipeline='builtin.module(func.func(canonicalize, ascend-topo-order), symbol-dce)' | FileCheck %s
// RUN: ge-opt %s --pass-pipeline='builtin.module(canonicalize, ascend-topo-order, cse)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: ge-opt %s --pass-pipeline='builtin.module()' | FileCheck %s --check-prefix=EMPTY

// canonicalize removed the dead constant, ascend-topo-order numbered the adds.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     arith.constant
// CHECK:         {name = "a", topo_id = 0 : i64}
// CHECK:         {name = "b", topo_id = 1 : i64}

// ORDER: IR Dump After Canonicalizer (canonicalize)
// ORDER-NOT: topo_id
// ORDER: IR Dump After AscendTopoOrder (ascend-topo-order)
// ORDER: topo_id = 0
// ORDER: IR Dump After CSE (cse)

// EMPTY: arith.constant
// EMPTY-NOT: topo_id

// RUN: not ge-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: ge-opt: error: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not ge-opt %s --pass-pipeline='canonicalize,ascend-topo-order' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: ge-opt: error: expected the pass pipeline to be wrapped in 'builtin.module(...)'
// RUN: not ge-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// UNBALANCED: ge-opt: error: unclosed '(' at offset
// RUN: not ge-opt %s --pass-pipeline='builtin.module(cse)' --ascend-topo-order 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: ge-opt: error: --pass-pipeline cannot be combined with individual pass flags
// RUN: not ge-opt %s --pass-pipeline='builtin.module(canonicalize{no-such-option=1})' 2>&1 | FileCheck %s --check-prefix=UPOPT
// UPOPT: ge-opt: error: {{.*}}no such option no-such-option
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %unused = arith.constant 1 : i32
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.add"(%a#0, %a#0, %a#1) {name = "b"} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  return %b#0 : tensor<4xf32>
}
