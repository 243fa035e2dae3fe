// Tensors whose sizes add up past what the static plan can place (1 PiB) are an error at
// the op that crosses the limit, before any offset is summed: two 4 EiB outputs panicked on
// an add overflow (debug), aborted (release --ge-compile) or gave a negative memory_size
// (release --mem-assign).
// RUN: not ge-opt --mem-assign %s 2>&1 | FileCheck %s
// RUN: not ge-opt --ge-compile %s 2>&1 | FileCheck %s
// RUN: not ge-opt --ge-mem-plan-pipeline %s 2>&1 | FileCheck %s
// RUN: not ge-opt --ge-compile %S/Inputs/workspace-overflow.ge 2>&1 | FileCheck %s --check-prefix=GE

// CHECK-NOT: panicked
// CHECK: workspace-overflow.mlir:[[@LINE+3]]:10: error: mem-assign: node 'x': output 0 (f32[1152921504606846976], 4611686018427387936 bytes) brings the graph's static tensors past 1125899906842624 bytes (1 PiB), the most the static plan places: its offsets and workspace total would overflow
// GE: workspace-overflow.ge:2:3: error: mem-assign: node 'x': output 0 {{.*}} past 1125899906842624 bytes
func.func @main(%arg0: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<1152921504606846976xf32>) -> (tensor<1152921504606846976xf32>, !ascend.ctrl)
  %1:2 = "ascend.relu"(%0#0) {name = "a"} : (tensor<1152921504606846976xf32>) -> (tensor<1152921504606846976xf32>, !ascend.ctrl)
  %2:2 = "ascend.relu"(%0#0) {name = "b"} : (tensor<1152921504606846976xf32>) -> (tensor<1152921504606846976xf32>, !ascend.ctrl)
  %3:2 = "ascend.add"(%1#0, %2#0) {name = "c"} : (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>) -> (tensor<1152921504606846976xf32>, !ascend.ctrl)
  return %3#0 : tensor<1152921504606846976xf32>
}
