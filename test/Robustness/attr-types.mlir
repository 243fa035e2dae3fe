// The attributes the passes read are type-checked after parsing, each a located error:
// read leniently, `_input_mutable = "false"` and `= 3` were both true, `stream_id = "x"`
// and a negative `event_id` were ignored, an offset below -1 meant "none", and a
// non-integer or missing `memory_size` made --verify-mem-plan skip its bounds check.
// RUN: not ge-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not ge-opt %S/Inputs/attr-types.ge 2>&1 | FileCheck %s --check-prefix=GE
// RUN: ge-opt --ge-compile %S/Inputs/two-nodes.ge | sed -e 's/memory_size = [0-9]* : i64, //' | not ge-opt --verify-mem-plan - 2>&1 | FileCheck %s --check-prefix=NOSIZE

// CHECK: attr-types.mlir:[[@LINE+3]]:10: error: 'ascend.hcom_all_reduce' "ar": `_input_mutable` must be `true` or `false`, got `"false"`
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.hcom_all_reduce"(%0#0) {_input_mutable = "false", group = "g", name = "ar", reduction = "sum"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %1#0 : tensor<4xf32>
}

// -----

// CHECK: attr-types.mlir:[[@LINE+3]]:10: error: 'ascend.hcom_all_reduce' "ar": `_input_mutable` must be `true` or `false`, got `3 : i64`
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.hcom_all_reduce"(%0#0) {_input_mutable = 3, group = "g", name = "ar", reduction = "sum"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %1#0 : tensor<4xf32>
}

// -----

// CHECK: attr-types.mlir:[[@LINE+3]]:10: error: 'ascend.relu' "a": `stream_id` must be an integer, got `"x"`
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "a", stream_id = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %1#0 : tensor<4xf32>
}

// -----

// CHECK: attr-types.mlir:[[@LINE+4]]:8: error: 'ascend.send' "s": `event_id` must be an integer of at least 0, got -2
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x", stream_id = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "a", stream_id = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %s = "ascend.send"(%1#1) {event_id = -2 : i64, name = "s", stream_id = 0 : i64} : (!ascend.ctrl) -> !ascend.ctrl
  return %1#0 : tensor<4xf32>
}

// -----

// CHECK: attr-types.mlir:[[@LINE+1]]:1: error: @main: `memory_size` must be the workspace size in bytes (an integer from 0 up), got `"big"`
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {memory_size = "big"} {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %0#0 : tensor<4xf32>
}

// -----

// CHECK: attr-types.mlir:[[@LINE+3]]:3: error: 'func.return': `input_offset` must be a list of byte offsets (integers, -1 for none), got the element `-5 : i64`
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return {input_offset = [-5]} %0#0 : tensor<4xf32>
}

// GE: attr-types.ge:3:43: error: `ar`: `_input_mutable` must be `true` or `false`, got `"false"`
// GE: attr-types.ge:4:{{[0-9]+}}: error: `b`: `_input_mutable` must be `true` or `false`, got `3 : i64`
// NOSIZE: error: verify-mem-plan: the root graph has workspace offsets but no integer `memory_size` (the workspace size --mem-assign writes): the plan's bounds cannot be checked
