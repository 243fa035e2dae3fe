// `--set-io-offset`, HCOM output (`continuous_output` with `_is_connected_to_netoutput`):
// output c = 1 (the first connected index) is the base (offset 1024); the pairs go to the
// c-th node the outputs feed (GE GetOutDataNodes().at(c): r, NetOutput, NetOutput -> the
// NetOutput), one per consumer of any output, except NetOutput inputs fed by other outputs
// than c: r (input offset 0, relative -1024) and NetOutput input 1 (1024, relative 0), not
// NetOutput input 0.
// RUN: ge-opt %s --set-io-offset=remarks=true 2>&1 | FileCheck %s
// CHECK: remark: set-io-offset: hcom-output: continuous output 0 of `ar` goes to `r` input 0: basic 1024, relative -1024
// CHECK: remark: set-io-offset: hcom-output: continuous output 1 of `ar` goes to `NetOutput` input 1: basic 1024, relative 0
// CHECK-NOT: remark
// CHECK: return {_zero_copy_basic_offset = [1024, 1024], _zero_copy_relative_offset = [-1024, 0], input_offset = [0, 1024, 2048]}
module {
  func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x", output_offset = [-1]} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
    %1:3 = "ascend.op"(%0#0) {_is_connected_to_netoutput = [1], continuous_output = true, input_offset = [-1], name = "ar", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, output_offset = [0, 1024], resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, type = "HcomAllToAll"} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
    %2:2 = "ascend.relu"(%1#0) {input_offset = [0], name = "r", output_offset = [2048]} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
    return {input_offset = [0, 1024, 2048]} %1#0, %1#1, %2#0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
