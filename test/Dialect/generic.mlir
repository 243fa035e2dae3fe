// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// The generic op carries any GE type the table does not name: heterogeneous inputs and
// outputs in slots, GE value names for ref relations, GE attributes as discardable ones.

// CHECK-LABEL: func.func @generic
func.func @generic(%arg0: tensor<8xf32>, %arg1: tensor<*xi64>) -> tensor<8xf32> {
  %a:2 = "ascend.data"(%arg0) {name = "a"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %b:2 = "ascend.data"(%arg1) {name = "b"} : (tensor<*xi64>) -> (tensor<*xi64>, !ascend.ctrl)
  // CHECK: "ascend.op"(%{{.*}}#0, %{{.*}}#0) {_input_mutable = true, input_names = ["var", "indices"], name = "custom", operandSegmentSizes = array<i32: 1, 1, 0,
  // CHECK-SAME: output_names = ["var", "aux"]
  // CHECK-SAME: type = "MyScatterWithAux"
  // CHECK-SAME: (tensor<8xf32>, tensor<*xi64>) -> (tensor<8xf32>, tensor<?xf16>, !ascend.ctrl)
  %g:3 = "ascend.op"(%a#0, %b#0) {name = "custom", type = "MyScatterWithAux", input_names = ["var", "indices"], output_names = ["var", "aux"], _input_mutable = true, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<8xf32>, tensor<*xi64>) -> (tensor<8xf32>, tensor<?xf16>, !ascend.ctrl)
  // A generic op with no data at all, only control.
  // CHECK: "ascend.op"(%{{.*}}#2) {name = "noop", operandSegmentSizes = {{.*}}, resultSegmentSizes = {{.*}}, type = "NoOp"} : (!ascend.ctrl) -> !ascend.ctrl
  %n = "ascend.op"(%g#2) {name = "noop", type = "NoOp", operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (!ascend.ctrl) -> !ascend.ctrl
  return %g#0 : tensor<8xf32>
}
