// ge-opt output is stock MLIR: stock mlir-opt loads the same IRDL, parses and verifies
// it, and prints it back unchanged.
// RUN: ge-opt %s > %t.ge-opt.mlir
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %t.ge-opt.mlir > %t.mlir-opt.mlir
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %t.mlir-opt.mlir | diff %t.mlir-opt.mlir -
// RUN: FileCheck %s < %t.mlir-opt.mlir

// CHECK-LABEL: func.func @main
func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<i1>) -> tensor<8xf32> {
  // CHECK: "ascend.data"
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %c:2 = "ascend.data"(%arg1) {name = "c", index = 1 : i64} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  // CHECK: "ascend.hcom_all_reduce"
  %ar:2 = "ascend.hcom_all_reduce"(%x#0) {name = "ar", reduction = "sum", group = "hccl_world_group", _stream_label = "hccl"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  // CHECK: "ascend.if"({{.*}}) {else_branch = @br, name = "if"
  %if:2 = "ascend.if"(%c#0, %ar#0, %ar#1) {name = "if", then_branch = @br, else_branch = @br, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i1>, tensor<8xf32>, !ascend.ctrl) -> (tensor<8xf32>, !ascend.ctrl)
  // CHECK: "ascend.send"(%{{.*}}#1) {event_id = 3 : i64
  %s = "ascend.send"(%if#1) {name = "main_Send_3", event_id = 3 : i64} : (!ascend.ctrl) -> !ascend.ctrl
  return %if#0 : tensor<8xf32>
}

// CHECK-LABEL: func.func private @br
func.func private @br(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %v:2 = "ascend.data"(%arg0) {name = "br_v"} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  %o:2 = "ascend.op"(%v#0) {name = "br_custom", type = "Custom", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<8xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  return %o#0 : tensor<8xf32>
}
