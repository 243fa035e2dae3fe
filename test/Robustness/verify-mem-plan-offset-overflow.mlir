// Offsets read back from the IR are checked before any sum is formed: an offset whose end
// address does not fit in 64 bits is an error at its op (it panicked on an add overflow in
// debug builds and was accepted in release builds; with streams the inverted range aborted
// in a BTreeMap).
// RUN: not ge-opt --verify-mem-plan %s 2>&1 | FileCheck %s
// RUN: not ge-opt --verify-mem-plan %S/Inputs/verify-mem-plan-cross-stream-overflow.mlir 2>&1 | FileCheck %s --check-prefix=STREAMS

// CHECK-NOT: panicked
// CHECK: verify-mem-plan-offset-overflow.mlir:[[@LINE+3]]:10: error: verify-mem-plan: `a` output 0 at offset 9223372036854775296 with 4128 bytes ends past the largest address (i64 overflow)
func.func @main(%arg0: tensor<1024xf32>) -> tensor<1024xf32> attributes {memory_size = 4608 : i64} {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, input_offset = [-1], name = "x", output_offset = [-1]} : (tensor<1024xf32>) -> (tensor<1024xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {input_offset = [-1], name = "a", output_offset = [9223372036854775296]} : (tensor<1024xf32>) -> (tensor<1024xf32>, !ascend.ctrl)
  return {input_offset = [9223372036854775296]} %1#0 : tensor<1024xf32>
}

// STREAMS-NOT: panicked
// STREAMS: verify-mem-plan-cross-stream-overflow.mlir:11:12: error: verify-mem-plan: `grad` output 0 at offset 9223372036854775296 with 16416 bytes ends past the largest address (i64 overflow)
// STREAMS-NOT: panicked
