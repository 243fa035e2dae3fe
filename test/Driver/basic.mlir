// Tests that ge-opt parses, verifies and prints ascend IR like mlir-opt, and that stock
// mlir-opt with the shipped IRDL accepts what ge-opt prints.
// RUN: ge-opt %s | FileCheck %s
// RUN: ge-opt %s | mlir-opt --irdl-file=%irdl | FileCheck %s
// MLIR runs on one thread unless --mlir-threading; the output is the same either way, and
// a pipeline nested under the function runs on a threaded context too.
// RUN: ge-opt %s --mlir-disable-threading | FileCheck %s
// RUN: ge-opt %s --mlir-threading | FileCheck %s
// RUN: ge-opt %s --mlir-threading=false | FileCheck %s
// RUN: ge-opt %s --mlir-threading --pass-pipeline='builtin.module(func.func(ascend-topo-order))' | FileCheck %s --check-prefix=TOPO
// RUN: not ge-opt %s --mlir-threading=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
// TOPO: "ascend.add"{{.*}}topo_id = 0
// BAD: invalid value 'sometimes' for '--mlir-threading

// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %0:2 = "ascend.add"(%arg0, %arg0) {name = "a"}
// CHECK-NEXT:      %1:2 = "ascend.add"(%0#0, %0#0, %0#1) {name = "b"}
// CHECK-NEXT:      return %1#0 : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   topo_id
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.add"(%a#0, %a#0, %a#1) {name = "b"} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  return %b#0 : tensor<4xf32>
}
