// RUN: ge-opt %s --split-input-file --verify-diagnostics
// RUN: not ge-opt %s --split-input-file 2>&1 | FileCheck %s

// Tests that two nodes of one graph with one name are rejected when a .mlir module is
// read, before any pass: GE identifies nodes by name. The error is at the second node and
// names where the first is.

// CHECK: duplicate-node-names.mlir:{{[0-9]+}}:{{[0-9]+}}: error: node name `x` is used twice in @main (first by the op at loc("{{.*}}duplicate-node-names.mlir":{{[0-9]+}}:{{[0-9]+}}))
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{node name `x` is used twice in @main}}
  %y:2 = "ascend.relu"(%x#0) {name = "x", operandSegmentSizes = array<i32: 1, 0>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %y#0 : tensor<4xf32>
}

// -----

// Names only need to be unique within a graph: a subgraph may reuse a name of its parent.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %y:2 = "ascend.partitioned_call"(%x#0) {f = @callee, name = "y", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %y#0 : tensor<4xf32>
}
func.func private @callee(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %x#0 : tensor<4xf32>
}
