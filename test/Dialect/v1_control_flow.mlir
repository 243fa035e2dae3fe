// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// V1 (dataflow) control flow: Switch forwards its data to one of two outputs of the data's
// type; SwitchN to one of a homogeneous variadic list of outputs picked by an index.
// RefSwitch has Switch's groups; LoopCond passes its loop predicate on.

// CHECK-LABEL: func.func @switches
func.func @switches(%arg0: tensor<4xf32>, %arg1: tensor<i1>, %arg2: tensor<i32>, %arg3: tensor<2x?xf16>) -> (tensor<4xf32>, tensor<2x?xf16>) {
  %x:2 = "ascend.data"(%arg0) {name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %p:2 = "ascend.data"(%arg1) {name = "pred"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %n:2 = "ascend.data"(%arg2) {name = "n"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %h:2 = "ascend.data"(%arg3) {name = "h"} : (tensor<2x?xf16>) -> (tensor<2x?xf16>, !ascend.ctrl)
  // CHECK: "ascend.switch"(%{{.*}}#0, %{{.*}}#0) {name = "switch"} : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
  %sw:3 = "ascend.switch"(%x#0, %p#0) {name = "switch"} : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
  // Any tensor type (here dynamic f16); control inputs follow the data.
  // CHECK: "ascend.switch"({{.*}}) {name = "switch_h"} : (tensor<2x?xf16>, tensor<i1>, !ascend.ctrl) -> (tensor<2x?xf16>, tensor<2x?xf16>, !ascend.ctrl)
  %rs:3 = "ascend.switch"(%h#0, %p#0, %sw#2) {name = "switch_h"} : (tensor<2x?xf16>, tensor<i1>, !ascend.ctrl) -> (tensor<2x?xf16>, tensor<2x?xf16>, !ascend.ctrl)
  // CHECK: "ascend.switch_n"(%{{.*}}#1, %{{.*}}#0) {name = "switch_n"} : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
  %sn:4 = "ascend.switch_n"(%sw#1, %n#0) {name = "switch_n"} : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
  // CHECK: "ascend.switch_n"({{.*}}) {name = "switch_n_none"} : (tensor<4xf32>, tensor<i32>) -> !ascend.ctrl
  %s0 = "ascend.switch_n"(%sw#0, %n#0) {name = "switch_n_none"} : (tensor<4xf32>, tensor<i32>) -> !ascend.ctrl
  // CHECK: "ascend.ref_switch"(%{{.*}}#0, %{{.*}}#0) {name = "ref_switch"} : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
  %rw:3 = "ascend.ref_switch"(%x#0, %p#0) {name = "ref_switch"} : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl)
  // CHECK: "ascend.loop_cond"(%{{.*}}#0) {name = "loop_cond"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %lc:2 = "ascend.loop_cond"(%p#0) {name = "loop_cond"} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  return %sn#2, %rs#1 : tensor<4xf32>, tensor<2x?xf16>
}

// Loop entry and back edge: Enter and NextIteration forward one value of any tensor type
// (RefEnter / RefNextIteration are generic `ascend.op`s with that `type`).
// CHECK-LABEL: func.func @loop_edges
func.func @loop_edges(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // CHECK: "ascend.enter"(%{{.*}}#0) {frame_name = "loop", name = "enter"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %e:2 = "ascend.enter"(%x#0) {frame_name = "loop", name = "enter"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // CHECK: "ascend.next_iteration"(%{{.*}}#0, %{{.*}}#1) {name = "next"} : (tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  %n:2 = "ascend.next_iteration"(%e#0, %e#1) {name = "next"} : (tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  return %n#0 : tensor<4xf32>
}
