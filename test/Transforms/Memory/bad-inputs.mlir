// Inputs the memory passes refuse, each with a located error and exit 1 (no crash):
// the pass nested under func.func, a missing root function, a node without a name, a
// graph input read by a non-Data op, a non-GE op in a graph, a subgraph with two parents.
// RUN: ge-opt %s --split-input-file --mem-rw-conflict --verify-diagnostics
// RUN: not ge-opt %s --split-input-file --mem-rw-conflict 2>&1 | FileCheck %s
// RUN: not ge-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-lint))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not ge-opt %s --split-input-file --ge-memory-pipeline=root=nosuch 2>&1 | FileCheck %s --check-prefix=ROOT
// CHECK: bad-inputs.mlir:15:10: error: mem-rw-conflict: a GE node needs a `name` attribute
// NESTED: error: graph-lint: runs on the builtin.module (a GE graph with its subgraphs), not on a nested op
// ROOT: bad-inputs.mlir:[[@LINE+2]]:1: error: ge-memory-pipeline: no function @nosuch in the module, the root graph (it has @main)

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{a GE node needs a `name` attribute}}
  %a:2 = "ascend.relu"(%x#0) : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{function argument 0 is read by `a`; only a Data node may read a graph input}}
  %a:2 = "ascend.relu"(%arg0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{`arith.addf` is not a GE node}}
  %s = arith.addf %x#0, %x#0 : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

module {
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %p1:2 = "ascend.partitioned_call"(%x#0) {name = "p1", f = @sub, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{subgraph @sub is referenced by `p1` and by `p2`; a GE subgraph has one parent}}
  %p2:2 = "ascend.partitioned_call"(%p1#0) {name = "p2", f = @sub, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %p2#0 : tensor<4xf32>
}
func.func private @sub(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.data"(%arg0) {name = "a", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
}
