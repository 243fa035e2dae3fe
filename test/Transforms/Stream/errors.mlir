// Structural errors of --stream-alloc, each located at the op or function concerned.
// RUN: not ge-opt %s --split-input-file --stream-alloc 2>&1 | FileCheck %s
// RUN: not ge-opt %s --split-input-file --stream-alloc=root=nope 2>&1 | FileCheck %s --check-prefix=ROOT

// The missing root is reported at the module's first function (the implicit module is at
// line 0), naming the functions the module has.
// ROOT: errors.mlir:[[@LINE+3]]:1: error: stream-alloc: no function @nope in the module, the root graph (it has @main); see option `root`

// CHECK: errors.mlir:[[@LINE+2]]:10: error: stream-alloc: attribute `_stream_label` must be a string, got 3 : i64
func.func @main(%arg0: tensor<4xf32>) {
  %a:2 = "ascend.relu"(%arg0) {name = "a", _stream_label = 3 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}

// -----
// A task count a stream's sum could overflow on: an error, not a wrapped counter.
// CHECK: errors.mlir:[[@LINE+2]]:10: error: stream-alloc: attribute `_node_sqe_num` must be a task count from 0 to 2147483647, got 9223372036854775807 : i64
func.func @main(%arg0: tensor<4xf32>) {
  %a:2 = "ascend.relu"(%arg0) {name = "a", _node_sqe_num = 9223372036854775807 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}

// -----
// CHECK: errors.mlir:[[@LINE+2]]:10: error: stream-alloc: attribute `_hccl_task_num` must be a task count from 0 to 2147483647, got -1 : i64
func.func @main(%arg0: tensor<4xf32>) {
  %a:2 = "ascend.hcom_all_reduce"(%arg0) {name = "a", _hccl_task_num = -1 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}

// -----
// CHECK: errors.mlir:[[@LINE+1]]:1: error: stream-alloc: @main has several blocks; a GE graph is a single-block function
func.func @main(%arg0: tensor<4xf32>) {
  cf.br ^bb1
^bb1:
  return
}

// -----
// CHECK: errors.mlir:[[@LINE+4]]:10: error: stream-alloc: @sub is already the root graph or a subgraph of another node; a GE subgraph has one parent
func.func @main(%arg0: tensor<4xf32>) {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %p:2 = "ascend.partitioned_call"(%x#0) {name = "p", f = @sub, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %q:2 = "ascend.partitioned_call"(%x#0) {name = "q", f = @sub, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}
func.func private @sub(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %d:2 = "ascend.data"(%arg0) {name = "d", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %d#0 : tensor<4xf32>
}

// -----
// Duplicate node names in one graph: GE keys nodes by name (event renumbering, errors).
// CHECK: errors.mlir:[[@LINE+3]]:10: error: node name `a` is used twice in @main (first by the op at loc({{.*}}errors.mlir":[[@LINE+2]]:10)); GE identifies nodes by name
func.func @main(%arg0: tensor<4xf32>) {
  %a:2 = "ascend.relu"(%arg0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.relu"(%a#0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}
