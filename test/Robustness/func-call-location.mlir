// A subgraph reference the memory passes refuse (here: `func.call` of the root graph) is
// an error at the referencing op; it was reported at 0:0.
// RUN: not ge-opt --ge-compile %s 2>&1 | FileCheck %s
// RUN: not ge-opt --mem-symbols %s 2>&1 | FileCheck %s
// CHECK-NOT: :0:0:
// CHECK: func-call-location.mlir:[[@LINE+4]]:8: error: {{[a-z-]+}}: @main is the root graph and cannot be a subgraph of `func.call`
// CHECK-NOT: :0:0:
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %c = func.call @main(%0#0) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
