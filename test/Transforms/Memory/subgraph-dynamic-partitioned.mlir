// SubgraphPass (notes B.16): GE's `NodeUtils::IsDynamicShape` is the root graph's
// `_dynamic_shape_partitioned` attribute. When the root says so, it decides: `true` makes
// the While dynamic (its cond Datas get a copy) even when every tensor is static; `false`
// keeps it static even beside a dynamic tensor. Without the attribute the tensors decide
// (subgraph-while-dynamic.ge).
// RUN: ge-opt %s --split-input-file --subgraph-isolate | FileCheck %s
// CHECK-LABEL: func.func private @cond
// CHECK-NEXT: "ascend.data"
// CHECK-NEXT: "ascend.op"({{.*}}name = "cond_input_Memcpy"{{.*}}type = "Identity"
// CHECK-LABEL: func.func private @body
// CHECK: name = "body_input_Memcpy"
// CHECK: // -----
// CHECK-LABEL: func.func private @cond
// CHECK-NEXT: "ascend.data"
// CHECK-NEXT: "ascend.op"({{.*}}name = "l"{{.*}}type = "Less"
// CHECK-LABEL: func.func private @body
// CHECK: name = "body_input_Memcpy"
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) attributes {_dynamic_shape_partitioned = true} {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.while"(%0#0) {body = @body, cond = @cond, name = "w", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %2:2 = "ascend.data"(%arg1) {index = 1 : i64, name = "d"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %1#0, %2#0 : tensor<4xf32>, tensor<2xf32>
}
func.func private @cond(%arg0: tensor<4xf32>) -> tensor<i1> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.op"(%0#0, %0#0) {name = "l", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, type = "Less"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<i1>, !ascend.ctrl)
  return %1#0 : tensor<i1>
}
func.func private @body(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "r"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %1#0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<?xf32>) -> (tensor<4xf32>, tensor<?xf32>) attributes {_dynamic_shape_partitioned = false} {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.while"(%0#0) {body = @body, cond = @cond, name = "w", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %2:2 = "ascend.data"(%arg1) {index = 1 : i64, name = "d"} : (tensor<?xf32>) -> (tensor<?xf32>, !ascend.ctrl)
  return %1#0, %2#0 : tensor<4xf32>, tensor<?xf32>
}
func.func private @cond(%arg0: tensor<4xf32>) -> tensor<i1> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.op"(%0#0, %0#0) {name = "l", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, type = "Less"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<i1>, !ascend.ctrl)
  return %1#0 : tensor<i1>
}
func.func private @body(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "r"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %1#0 : tensor<4xf32>
}
