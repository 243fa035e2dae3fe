// Inputs --mem-layout-conflict refuses, with a located error and exit 1: the pass nested
// under func.func, a missing root function, a node without a name, a bad option value.
// RUN: ge-opt %s --split-input-file --mem-layout-conflict --verify-diagnostics
// RUN: not ge-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mem-layout-conflict))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not ge-opt %s --split-input-file --mem-layout-conflict=root=nosuch 2>&1 | FileCheck %s --check-prefix=ROOT
// RUN: not ge-opt %s --mem-layout-conflict=offline=maybe 2>&1 | FileCheck %s --check-prefix=OPTION
// NESTED: error: mem-layout-conflict: runs on the builtin.module (a GE graph with its subgraphs), not on a nested op
// ROOT: layout-bad-inputs.mlir:[[@LINE+3]]:1: error: mem-layout-conflict: no function @nosuch in the module, the root graph (it has @main)
// OPTION: option 'offline'

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{mem-layout-conflict: a GE node needs a `name` attribute}}
  %a:2 = "ascend.relu"(%x#0) : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{function argument 0 is read by `a`; only a Data node may read a graph input}}
  %a:2 = "ascend.relu"(%arg0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
