// RUN: ge-opt %s --split-input-file --verify-diagnostics
// RUN: not ge-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=VALID

// Tests that subgraph references of .mlir input are checked after parsing: IRDL only knows
// the attributes are symbol references; ge-opt checks that they name functions of the
// module, that signatures match the parent op, and that no graph is its own subgraph.

// A dangling symbol.
func.func @main(%arg0: tensor<i1>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %c:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "c"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %x:2 = "ascend.data"(%arg1) {index = 1 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{subgraph symbol @nope (attribute `else_branch`) of 'ascend.if' "y" does not name a function in this module}}
  %y:2 = "ascend.if"(%c#0, %x#0) {then_branch = @t, else_branch = @nope, name = "y", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %y#0 : tensor<4xf32>
}
func.func private @t(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

// A branch whose inputs and results do not match the If (the condition is not passed on).
func.func @main(%arg0: tensor<i1>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %c:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "c"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %x:2 = "ascend.data"(%arg1) {index = 1 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+2 {{subgraph @e (attribute `else_branch`) takes (tensor<4xf16>) but 'ascend.if' "y" passes (tensor<4xf32>)}}
  // expected-error @+1 {{subgraph @e (attribute `else_branch`) returns (tensor<4xf16>) but 'ascend.if' "y" produces (tensor<4xf32>)}}
  %y:2 = "ascend.if"(%c#0, %x#0) {then_branch = @t, else_branch = @e, name = "y", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %y#0 : tensor<4xf32>
}
func.func private @t(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
func.func private @e(%arg0: tensor<4xf16>) -> tensor<4xf16> {
  %a:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf16>) -> (tensor<4xf16>, !ascend.ctrl)
  return %a#0 : tensor<4xf16>
}

// -----

// A While condition must return exactly one predicate.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{while condition @c must return one predicate, it returns ()}}
  %w:2 = "ascend.while"(%x#0) {body = @b, cond = @c, name = "w", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %w#0 : tensor<4xf32>
}
func.func private @c(%arg0: tensor<4xf32>) {
  %a:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}
func.func private @b(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

// A graph that is its own subgraph, through another one.
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %p:2 = "ascend.partitioned_call"(%x#0) {f = @a, name = "p", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %p#0 : tensor<4xf32>
}
func.func private @a(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %q:2 = "ascend.partitioned_call"(%x#0) {f = @b, name = "q", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %q#0 : tensor<4xf32>
}
func.func private @b(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // expected-error @+1 {{subgraph @a is its own subgraph: @a -> @b -> @a}}
  %r:2 = "ascend.partitioned_call"(%x#0) {f = @a, name = "r", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %r#0 : tensor<4xf32>
}

// -----

// A sound module: nested PartitionedCalls with matching signatures are accepted.
// VALID: func.func private @inner
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %p:2 = "ascend.partitioned_call"(%x#0) {f = @outer, name = "p", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %p#0 : tensor<4xf32>
}
func.func private @outer(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %q:2 = "ascend.partitioned_call"(%x#0) {f = @inner, name = "q", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %q#0 : tensor<4xf32>
}
func.func private @inner(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %x#0 : tensor<4xf32>
}
