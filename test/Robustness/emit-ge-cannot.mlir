// What `.ge` cannot say about a function's interface is an error at the op, not a module
// that reads back as another one: `func.return` attributes (a compiled module's
// `input_offset`) were dropped, an argument no Data reads vanished from the signature, a
// returned control token printed as `return ^x` and two Data nodes on one argument as a
// duplicate index, both of which the importer rejects.
// RUN: not ge-opt %s --split-input-file --emit ge 2>&1 | FileCheck %s

// CHECK: emit-ge-cannot.mlir:[[@LINE+4]]:3: error: cannot print as .ge: the `func.return` of graph `main` has attributes (`foo`, `input_offset`); .ge's `return` has none
// CHECK-NOT: graph main
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return {input_offset = [-1], foo = "bar"} %0#0 : tensor<4xf32>
}

// -----

// CHECK: emit-ge-cannot.mlir:[[@LINE+1]]:1: error: cannot print as .ge: argument 1 of function `main` is read by no Data node; .ge's graph inputs are its Data nodes, so the argument would vanish
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<8xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %1#0 : tensor<4xf32>
}

// -----

// CHECK: emit-ge-cannot.mlir:[[@LINE+3]]:3: error: cannot print as .ge: the `func.return` of graph `main` returns a control token (operand 0); a .ge graph's outputs are data values
func.func @main(%arg0: tensor<4xf32>) -> !ascend.ctrl {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %0#1 : !ascend.ctrl
}

// -----

// CHECK: emit-ge-cannot.mlir:[[@LINE+3]]:10: error: cannot print as .ge: Data `y` reads function argument 0, which Data `x` reads already; .ge reads each graph input through one Data node
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %5:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "y"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %0#0 : tensor<4xf32>
}
