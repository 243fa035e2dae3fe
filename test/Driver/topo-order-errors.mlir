// Tests that --ascend-topo-order rejects multi-block functions (program order is not a
// topological order across blocks) with an error on the function, and rejects bad options.
// RUN: ge-opt %s --ascend-topo-order --verify-diagnostics
// RUN: not ge-opt %s --ascend-topo-order 2>&1 | FileCheck %s
// RUN: not ge-opt %s --ascend-topo-order=start-id=ten 2>&1 | FileCheck %s --check-prefix=BADVAL
// RUN: not ge-opt %s --ascend-topo-order=stride=2 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not ge-opt %s --pass-pipeline='builtin.module(ascend-topo-order{stride=2})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// CHECK: topo-order-errors.mlir:[[@LINE+4]]:1: error: ascend-topo-order: function @two has 2 blocks; a GE graph is a single-block function
// CHECK-NEXT: func.func @two
// BADVAL: ge-opt: error: pass 'ascend-topo-order': option 'start-id': 'ten' is not an integer
// BADOPT: ge-opt: error: pass 'ascend-topo-order' has no option 'stride' (options: start-id)
func.func @two(%arg0: tensor<4xf32>) -> tensor<4xf32> { // expected-error {{function @two has 2 blocks}}
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  cf.br ^bb1
^bb1:
  return %a#0 : tensor<4xf32>
}
