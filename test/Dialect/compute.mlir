// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// Everyday compute ops: fixed groups, optional inputs (segment sizes), several results,
// homogeneous variadics and heterogeneous slots; static, dynamic (`?`) and unranked tensors.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  %y:2 = "ascend.data"(%arg1) {name = "y", index = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.add"(%{{.*}}#0, %{{.*}}#0) {name = "add"}
  %a:2 = "ascend.add"(%x#0, %y#0) {name = "add"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.sub"
  %s:2 = "ascend.sub"(%a#0, %y#0, %x#1) {name = "sub"} : (tensor<4x8xf32>, tensor<4x8xf32>, !ascend.ctrl) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.mul"
  %m:2 = "ascend.mul"(%s#0, %y#0) {name = "mul"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.real_div"
  %d:2 = "ascend.real_div"(%m#0, %y#0) {name = "div"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.relu"({{.*}}) {name = "relu"} : (tensor<4x8xf32>, !ascend.ctrl, !ascend.ctrl) -> (tensor<4x8xf32>, !ascend.ctrl)
  %r:2 = "ascend.relu"(%d#0, %a#1, %m#1) {name = "relu"} : (tensor<4x8xf32>, !ascend.ctrl, !ascend.ctrl) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.gelu"
  %g:2 = "ascend.gelu"(%r#0) {name = "gelu"} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.softmax"
  %sm:2 = "ascend.softmax"(%g#0) {name = "softmax", axes = [-1]} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  // CHECK: "ascend.cast"({{.*}}){{.*}} : (tensor<4x8xf32>) -> (tensor<4x8xf16>, !ascend.ctrl)
  %c:2 = "ascend.cast"(%sm#0) {name = "cast", dst_type = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf16>, !ascend.ctrl)
  // CHECK: "ascend.add_n"({{.*}}) {name = "addn", operandSegmentSizes = array<i32: 3, 0>}
  %n:2 = "ascend.add_n"(%sm#0, %g#0, %r#0) {name = "addn", operandSegmentSizes = array<i32: 3, 0>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, !ascend.ctrl)
  return %n#0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @matmul_conv_norm
func.func @matmul_conv_norm(%arg0: tensor<?x64xf16>, %arg1: tensor<64x32xf16>, %arg2: tensor<32xf16>,
                            %arg3: tensor<1x3x224x224xf16>, %arg4: tensor<8x3x3x3xf16>) {
  %x:2 = "ascend.data"(%arg0) {name = "x"} : (tensor<?x64xf16>) -> (tensor<?x64xf16>, !ascend.ctrl)
  %w:2 = "ascend.data"(%arg1) {name = "w"} : (tensor<64x32xf16>) -> (tensor<64x32xf16>, !ascend.ctrl)
  %b:2 = "ascend.data"(%arg2) {name = "b"} : (tensor<32xf16>) -> (tensor<32xf16>, !ascend.ctrl)
  // CHECK: "ascend.mat_mul"({{.*}}) {name = "mm", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<?x64xf16>, tensor<64x32xf16>) -> (tensor<?x32xf16>, !ascend.ctrl)
  %mm:2 = "ascend.mat_mul"(%x#0, %w#0) {name = "mm", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<?x64xf16>, tensor<64x32xf16>) -> (tensor<?x32xf16>, !ascend.ctrl)
  // CHECK: "ascend.mat_mul"({{.*}}) {name = "mm_bias", operandSegmentSizes = array<i32: 1, 1, 1, 1>, transpose_x1 = false}
  %mb:2 = "ascend.mat_mul"(%x#0, %w#0, %b#0, %mm#1) {name = "mm_bias", transpose_x1 = false, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<?x64xf16>, tensor<64x32xf16>, tensor<32xf16>, !ascend.ctrl) -> (tensor<?x32xf16>, !ascend.ctrl)
  // CHECK: "ascend.batch_mat_mul"
  %bm:2 = "ascend.batch_mat_mul"(%mb#0, %mm#0) {name = "bmm", operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<?x32xf16>, tensor<?x32xf16>) -> (tensor<?x?xf16>, !ascend.ctrl)
  %im:2 = "ascend.data"(%arg3) {name = "image"} : (tensor<1x3x224x224xf16>) -> (tensor<1x3x224x224xf16>, !ascend.ctrl)
  %f:2 = "ascend.data"(%arg4) {name = "filter"} : (tensor<8x3x3x3xf16>) -> (tensor<8x3x3x3xf16>, !ascend.ctrl)
  // CHECK: "ascend.conv2d"({{.*}}) {name = "conv", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, pads = [1, 1, 1, 1], strides = [1, 1, 1, 1]}
  %cv:2 = "ascend.conv2d"(%im#0, %f#0) {name = "conv", strides = [1, 1, 1, 1], pads = [1, 1, 1, 1], operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x3x224x224xf16>, tensor<8x3x3x3xf16>) -> (tensor<1x8x224x224xf16>, !ascend.ctrl)
  // CHECK: "ascend.layer_norm"({{.*}}) -> (tensor<?x32xf16>, tensor<?x1xf32>, tensor<?x1xf32>, !ascend.ctrl)
  %ln:4 = "ascend.layer_norm"(%mb#0, %b#0, %b#0) {name = "ln"} : (tensor<?x32xf16>, tensor<32xf16>, tensor<32xf16>) -> (tensor<?x32xf16>, tensor<?x1xf32>, tensor<?x1xf32>, !ascend.ctrl)
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%arg0: tensor<*xf32>, %arg1: tensor<2xi64>, %arg2: tensor<4x6xf32>) {
  %u:2 = "ascend.data"(%arg0) {name = "u"} : (tensor<*xf32>) -> (tensor<*xf32>, !ascend.ctrl)
  %sh:2 = "ascend.data"(%arg1) {name = "sh"} : (tensor<2xi64>) -> (tensor<2xi64>, !ascend.ctrl)
  %t:2 = "ascend.data"(%arg2) {name = "t"} : (tensor<4x6xf32>) -> (tensor<4x6xf32>, !ascend.ctrl)
  // CHECK: "ascend.reshape"({{.*}}) {name = "reshape"} : (tensor<*xf32>, tensor<2xi64>) -> (tensor<?x?xf32>, !ascend.ctrl)
  %rs:2 = "ascend.reshape"(%u#0, %sh#0) {name = "reshape"} : (tensor<*xf32>, tensor<2xi64>) -> (tensor<?x?xf32>, !ascend.ctrl)
  // CHECK: "ascend.transpose"
  %tp:2 = "ascend.transpose"(%t#0, %sh#0) {name = "transpose"} : (tensor<4x6xf32>, tensor<2xi64>) -> (tensor<6x4xf32>, !ascend.ctrl)
  // CHECK: "ascend.reduce_sum"
  %rd:2 = "ascend.reduce_sum"(%u#0, %sh#0) {name = "sum", keep_dims = false} : (tensor<*xf32>, tensor<2xi64>) -> (tensor<*xf32>, !ascend.ctrl)
  // CHECK: "ascend.gather"
  %ga:2 = "ascend.gather"(%t#0, %sh#0) {name = "gather"} : (tensor<4x6xf32>, tensor<2xi64>) -> (tensor<2x6xf32>, !ascend.ctrl)
  %dim:2 = "ascend.const"() {name = "dim", value = dense<0> : tensor<i32>} : () -> (tensor<i32>, !ascend.ctrl)
  // Heterogeneous inputs land in slots; the overflow group stays empty.
  // CHECK: "ascend.concat_v2"({{.*}}) {N = 2 : i64, name = "concat_v2", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0>}
  %cc:2 = "ascend.concat_v2"(%t#0, %ga#0, %dim#0) {name = "concat_v2", N = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0>} : (tensor<4x6xf32>, tensor<2x6xf32>, tensor<i32>) -> (tensor<6x6xf32>, !ascend.ctrl)
  // CHECK: "ascend.concat"
  %c1:2 = "ascend.concat"(%dim#0, %t#0, %ga#0) {name = "concat", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<i32>, tensor<4x6xf32>, tensor<2x6xf32>) -> (tensor<6x6xf32>, !ascend.ctrl)
  // A homogeneous variadic result group beside the single ctrl result needs no segments.
  // CHECK: "ascend.split"({{.*}}) {name = "split", num_split = 2 : i64} : (tensor<i32>, tensor<4x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, !ascend.ctrl)
  %sp:3 = "ascend.split"(%dim#0, %t#0) {name = "split", num_split = 2 : i64} : (tensor<i32>, tensor<4x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, !ascend.ctrl)
  // CHECK: "ascend.split_v"({{.*}}) -> (tensor<1x6xf32>, tensor<3x6xf32>, !ascend.ctrl)
  %sv:3 = "ascend.split_v"(%t#0, %sh#0, %dim#0) {name = "split_v", num_split = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4x6xf32>, tensor<2xi64>, tensor<i32>) -> (tensor<1x6xf32>, tensor<3x6xf32>, !ascend.ctrl)
  return
}
