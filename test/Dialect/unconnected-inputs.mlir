// RUN: ge-opt %s --split-input-file --verify-diagnostics
// RUN: not ge-opt %s --split-input-file 2>&1 | FileCheck %s

// Tests the rule for unconnected input slots in MLIR (an operand group of size 0 in
// `operandSegmentSizes` before a later operand): only optional inputs (the table's `x?`
// groups) and the generic op's slots may be left unconnected. The `.ge` importer applies
// the same rule. Structure errors (wrong segment count, a single group of size 0, counts
// that do not add up) are IRDL's own, also checked here.

// CHECK: unconnected-inputs.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'ascend.if' "i": input slot 1 (`input0`) of ascend.if (If) cannot be unconnected: it is not an optional input
func.func @main(%c: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %p:2 = "ascend.data"(%c) {index = 0 : i64, name = "p"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %x:2 = "ascend.data"(%a) {index = 1 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{input slot 1 (`input0`) of ascend.if (If) cannot be unconnected}}
  %i:2 = "ascend.if"(%p#0, %x#0) {name = "i", then_branch = @b, else_branch = @b, operandSegmentSizes = array<i32: 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %i#0 : tensor<4xf32>
}
func.func private @b(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %y:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "y"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %y#0 : tensor<4xf32>
}

// -----

// A single group cannot be empty (IRDL).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{element 1 in 'operandSegmentSizes' attribute must be equal to 1}}
  %c:2 = "ascend.conv2d"(%x#0, %x#0) {name = "c", operandSegmentSizes = array<i32: 1, 0, 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %c#0 : tensor<4xf32>
}

// -----

// The segment sizes must add up to the operands (IRDL).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{sum of elements in 'operandSegmentSizes' attribute must be equal to the number of operands}}
  %c:2 = "ascend.conv2d"(%x#0, %x#0) {name = "c", operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %c#0 : tensor<4xf32>
}

// -----

// One entry per operand group (IRDL).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{'operandSegmentSizes' attribute for specifying operand segments must have 5 elements, but got 4}}
  %c:2 = "ascend.conv2d"(%x#0, %x#0, %x#0) {name = "c", operandSegmentSizes = array<i32: 1, 1, 0, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %c#0 : tensor<4xf32>
}

// -----

// Optional slots may be left unconnected: Conv2D without `bias`, with `offset_w`, and the
// generic op with slot 0 empty.
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %c:2 = "ascend.conv2d"(%x#0, %x#0, %x#0) {name = "c", operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %g:2 = "ascend.op"(%c#0) {name = "g", type = "Foo", operandSegmentSizes = array<i32: 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %g#0 : tensor<4xf32>
}
