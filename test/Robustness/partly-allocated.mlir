// A module that is only partly stream-allocated (one `_logic_stream_id`, one hand-written
// Send) is an error that says why: `--stream-alloc` used to skip it as "already allocated"
// without a word, and `--ge-compile` then planned memory without streams, exit 0.
// A module the pass allocated itself is still skipped (test/Transforms/Stream/idempotence.ge).
// RUN: not ge-opt --ge-compile --split-input-file %s 2>&1 | FileCheck %s
// RUN: not ge-opt --stream-alloc --split-input-file %s 2>&1 | FileCheck %s

// CHECK: partly-allocated.mlir:[[@LINE+4]]:10: error: stream-alloc: the module is only partly stream-allocated: `b` has a stream or is a sync op, but `x` has no `_logic_stream_id`; give the pass a module without stream attributes and Send/Recv ops, or one it allocated
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %2:2 = "ascend.relu"(%1#0) {name = "b", _logic_stream_id = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %2#0 : tensor<4xf32>
}

// -----

// CHECK: partly-allocated.mlir:[[@LINE+4]]:8: error: stream-alloc: the module is only partly stream-allocated: `s` has a stream or is a sync op, but `x` has no `_logic_stream_id`
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %s = "ascend.send"(%1#1) {event_id = 0 : i64, name = "s"} : (!ascend.ctrl) -> !ascend.ctrl
  return %1#0 : tensor<4xf32>
}
