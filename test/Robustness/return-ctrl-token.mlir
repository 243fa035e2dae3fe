// A returned control token is not a graph output: the memory model's NetOutput inputs are
// data, and indexing the token as one panicked (index out of bounds) in every memory pass.
// It is an error at the `func.return`, as `return ^x` is in `.ge`.
// RUN: not ge-opt --ge-compile %s 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not ge-opt --mem-symbols %s 2>&1 | FileCheck %s
// RUN: not ge-opt --ge-mem-plan-pipeline %s 2>&1 | FileCheck %s
// RUN: not ge-opt --mem-rw-conflict %s 2>&1 | FileCheck %s

// COMPILE-NOT: panicked
// COMPILE: return-ctrl-token.mlir:[[@LINE+5]]:3: error: ge-memory-pipeline: `func.return` of graph `main` returns a control token (operand 0); a graph's outputs are data values: put the control edge on a node instead
// CHECK-NOT: panicked
// CHECK: return-ctrl-token.mlir:[[@LINE+3]]:3: error: {{[a-z-]+}}: `func.return` of graph `main` returns a control token (operand 0)
func.func @main(%arg0: tensor<4xf32>) -> !ascend.ctrl {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %0#1 : !ascend.ctrl
}
