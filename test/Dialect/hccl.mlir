// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// HCCL collectives; HcomBroadcast carries heterogeneous tensors in slots.

// CHECK-LABEL: func.func @collectives
func.func @collectives(%arg0: tensor<128xf16>, %arg1: tensor<4x4xf32>) {
  %g:2 = "ascend.data"(%arg0) {name = "grad"} : (tensor<128xf16>) -> (tensor<128xf16>, !ascend.ctrl)
  %p:2 = "ascend.data"(%arg1) {name = "param"} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, !ascend.ctrl)
  // CHECK: "ascend.hcom_all_reduce"(%{{.*}}) {fusion = 1 : i64, group = "hccl_world_group", name = "allreduce", reduction = "sum"}
  %ar:2 = "ascend.hcom_all_reduce"(%g#0) {name = "allreduce", reduction = "sum", group = "hccl_world_group", fusion = 1 : i64} : (tensor<128xf16>) -> (tensor<128xf16>, !ascend.ctrl)
  // CHECK: "ascend.hcom_broadcast"({{.*}}){{.*}} : (tensor<128xf16>, tensor<4x4xf32>, !ascend.ctrl) -> (tensor<128xf16>, tensor<4x4xf32>, !ascend.ctrl)
  %bc:3 = "ascend.hcom_broadcast"(%ar#0, %p#0, %ar#1) {name = "broadcast", root_rank = 0 : i64, group = "hccl_world_group", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<128xf16>, tensor<4x4xf32>, !ascend.ctrl) -> (tensor<128xf16>, tensor<4x4xf32>, !ascend.ctrl)
  // CHECK: "ascend.hcom_all_gather"({{.*}}) -> (tensor<1024xf16>, !ascend.ctrl)
  %ag:2 = "ascend.hcom_all_gather"(%bc#0) {name = "allgather", rank_size = 8 : i64, group = "hccl_world_group"} : (tensor<128xf16>) -> (tensor<1024xf16>, !ascend.ctrl)
  // CHECK: "ascend.hcom_reduce_scatter"({{.*}}) -> (tensor<16xf16>, !ascend.ctrl)
  %rs:2 = "ascend.hcom_reduce_scatter"(%g#0) {name = "reducescatter", reduction = "sum", rank_size = 8 : i64, group = "hccl_world_group", _parallel_group = "-1"} : (tensor<128xf16>) -> (tensor<16xf16>, !ascend.ctrl)
  return
}
