// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// Functional control flow: subgraphs are private functions named by symbol attributes;
// data inputs and outputs sit in slots (they may all differ in type).

// CHECK-LABEL: func.func @main
func.func @main(%arg0: tensor<i1>, %arg1: tensor<8xf32>, %arg2: tensor<i32>, %arg3: tensor<2x?xf16>) -> (tensor<8xf32>, tensor<2x?xf16>) {
  %c:2 = "ascend.data"(%arg0) {name = "pred"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %x:2 = "ascend.data"(%arg1) {name = "x"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %n:2 = "ascend.data"(%arg2) {name = "n"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %h:2 = "ascend.data"(%arg3) {name = "h"} : (tensor<2x?xf16>) -> (tensor<2x?xf16>, !ascend.ctrl)
  // CHECK: "ascend.if"({{.*}}) {else_branch = @else_fn, name = "if", operandSegmentSizes = array<i32: 1, 1, 1, 0
  %if:3 = "ascend.if"(%c#0, %x#0, %h#0) {name = "if", then_branch = @then_fn, else_branch = @else_fn, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i1>, tensor<8xf32>, tensor<2x?xf16>) -> (tensor<8xf32>, tensor<2x?xf16>, !ascend.ctrl)
  // CHECK: "ascend.case"({{.*}}) {branches = [@then_fn, @else_fn, @then_fn], name = "case"
  %case:3 = "ascend.case"(%n#0, %x#0, %h#0, %if#2) {name = "case", branches = [@then_fn, @else_fn, @then_fn], operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i32>, tensor<8xf32>, tensor<2x?xf16>, !ascend.ctrl) -> (tensor<8xf32>, tensor<2x?xf16>, !ascend.ctrl)
  // CHECK: "ascend.while"({{.*}}) {body = @body_fn, cond = @cond_fn, name = "while"
  %wh:3 = "ascend.while"(%n#0, %case#0) {name = "while", cond = @cond_fn, body = @body_fn, parallel_iterations = 10 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>, !ascend.ctrl)
  // CHECK: "ascend.partitioned_call"({{.*}}) {f = @callee, name = "call"
  %call:2 = "ascend.partitioned_call"(%wh#1) {name = "call", f = @callee, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  return %call#0, %if#1 : tensor<8xf32>, tensor<2x?xf16>
}

// CHECK-LABEL: func.func private @then_fn
func.func private @then_fn(%arg0: tensor<8xf32>, %arg1: tensor<2x?xf16>) -> (tensor<8xf32>, tensor<2x?xf16>) {
  %a:2 = "ascend.data"(%arg0) {name = "then_fn_a", _parent_node_index = 1 : i64} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %b:2 = "ascend.data"(%arg1) {name = "then_fn_b", _parent_node_index = 2 : i64} : (tensor<2x?xf16>) -> (tensor<2x?xf16>, !ascend.ctrl)
  %r:2 = "ascend.relu"(%a#0) {name = "then_fn_relu"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  return %r#0, %b#0 : tensor<8xf32>, tensor<2x?xf16>
}

// CHECK-LABEL: func.func private @else_fn
func.func private @else_fn(%arg0: tensor<8xf32>, %arg1: tensor<2x?xf16>) -> (tensor<8xf32>, tensor<2x?xf16>) {
  %a:2 = "ascend.data"(%arg0) {name = "else_fn_a", _parent_node_index = 1 : i64} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %b:2 = "ascend.data"(%arg1) {name = "else_fn_b", _parent_node_index = 2 : i64} : (tensor<2x?xf16>) -> (tensor<2x?xf16>, !ascend.ctrl)
  %r:2 = "ascend.relu"(%a#0) {name = "else_fn_relu"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  return %r#0, %b#0 : tensor<8xf32>, tensor<2x?xf16>
}

// CHECK-LABEL: func.func private @cond_fn
func.func private @cond_fn(%arg0: tensor<i32>, %arg1: tensor<8xf32>) -> tensor<i1> {
  %i:2 = "ascend.data"(%arg0) {name = "cond_i"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %t:2 = "ascend.op"(%i#0) {name = "less", type = "Less", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i32>) -> (tensor<i1>, !ascend.ctrl)
  return %t#0 : tensor<i1>
}

// CHECK-LABEL: func.func private @body_fn
func.func private @body_fn(%arg0: tensor<i32>, %arg1: tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>) {
  %i:2 = "ascend.data"(%arg0) {name = "body_i"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %v:2 = "ascend.data"(%arg1) {name = "body_v"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %g:2 = "ascend.gelu"(%v#0) {name = "body_gelu"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  return %i#0, %g#0 : tensor<i32>, tensor<8xf32>
}

// CHECK-LABEL: func.func private @callee
func.func private @callee(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %v:2 = "ascend.data"(%arg0) {name = "callee_v"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  return %v#0 : tensor<8xf32>
}
