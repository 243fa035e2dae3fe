// RUN: ge-opt --split-input-file --rt-placement-copies %s | FileCheck %s
// RUN: ge-opt --split-input-file --rt-placement-copies %s -o %t.once
// RUN: ge-opt --split-input-file --rt-placement-copies %t.once -o %t.twice
// RUN: diff %t.once %t.twice
//
// GE's placement copy table, one case per row (kOutputDataCopyer).

// host -> hbm: CopyH2D with a FreeMemory guarder, shared by both device consumers;
// Shape reads no data, so the hbm input of a host Shape needs no copy.
// CHECK-LABEL: func.func @host_to_hbm
// CHECK: %[[X:.*]] = "ascend_rt.data"
// CHECK-NEXT: %[[S:.*]] = "ascend_rt.node"(%[[X]]) {name = "shape", placement = "host", type = "Shape"}
// CHECK-NEXT: %[[C:.*]] = "ascend_rt.node"(%[[S]]) {name = "CopyH2D_shape_0_to_hbm", placement = "hbm", type = "CopyH2D"}
// CHECK-NEXT: "ascend_rt.guarder"(%[[C]]) {release_index = 0 : i64, type = "FreeMemory"}
// CHECK-NEXT: "ascend_rt.node"(%[[X]], %[[C]]) {name = "r1"
// CHECK-NEXT: "ascend_rt.node"(%[[X]], %[[C]]) {name = "r2"
// CHECK-NOT: Copy
// CHECK: return
module {
  func.func @host_to_hbm() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    %s = "ascend_rt.node"(%x) {name = "shape", type = "Shape", placement = "host"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %a = "ascend_rt.node"(%x, %s) {name = "r1", type = "Reshape", placement = "hbm"} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    %b = "ascend_rt.node"(%x, %s) {name = "r2", type = "Reshape", placement = "hbm"} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%a, %b) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
}

// -----

// hbm -> host: SyncStream on the producer's stream, CopyD2H, FreeMemory.
// CHECK-LABEL: func.func @hbm_to_host
// CHECK: %[[V:.*]] = "ascend_rt.node"(%{{.*}}) {name = "relu", placement = "hbm", type = "Relu"}
// CHECK-NEXT: "ascend_rt.node"(%[[V]]) {name = "SyncStream_relu", placement = "hbm", type = "SyncStream"} : (!ascend_rt.tensor) -> ()
// CHECK-NEXT: %[[H:.*]] = "ascend_rt.node"(%[[V]]) {name = "CopyD2H_relu_0_to_host", placement = "host", type = "CopyD2H"}
// CHECK-NEXT: "ascend_rt.guarder"(%[[H]])
// CHECK-NEXT: "ascend_rt.node"(%[[H]]) {name = "h", placement = "host"
module {
  func.func @hbm_to_host() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    %v = "ascend_rt.node"(%x) {name = "relu", type = "Relu", placement = "hbm"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %h = "ascend_rt.node"(%v) {name = "h", type = "Add", placement = "host"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%h) {placement = "host"} : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

// hbm -> p2p and p2p -> hbm: MakeSureTensorAtDevice with a FreeMemory guarder;
// p2p -> host: SyncStream + CopyD2H + FreeMemory.
// CHECK-LABEL: func.func @p2p
// CHECK: %[[V:.*]] = "ascend_rt.node"(%{{.*}}) {name = "v"
// CHECK-NEXT: %[[P:.*]] = "ascend_rt.node"(%[[V]]) {name = "MakeSureTensorAtDevice_v_0_to_p2p", placement = "p2p", type = "MakeSureTensorAtDevice"}
// CHECK-NEXT: "ascend_rt.guarder"(%[[P]])
// CHECK-NEXT: %[[W:.*]] = "ascend_rt.node"(%[[P]]) {name = "w", placement = "p2p"
// CHECK-NEXT: %[[B:.*]] = "ascend_rt.node"(%[[W]]) {name = "MakeSureTensorAtDevice_w_0_to_hbm", placement = "hbm", type = "MakeSureTensorAtDevice"}
// CHECK-NEXT: "ascend_rt.guarder"(%[[B]])
// CHECK-NEXT: "ascend_rt.node"(%[[W]]) {name = "SyncStream_w", placement = "p2p", type = "SyncStream"}
// CHECK-NEXT: %[[H:.*]] = "ascend_rt.node"(%[[W]]) {name = "CopyD2H_w_0_to_host", placement = "host", type = "CopyD2H"}
// CHECK-NEXT: "ascend_rt.guarder"(%[[H]])
// CHECK-NEXT: "ascend_rt.node"(%[[H]]) {name = "on_host"
// CHECK-NEXT: "ascend_rt.node"(%[[B]]) {name = "on_hbm"
module {
  func.func @p2p() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    %v = "ascend_rt.node"(%x) {name = "v", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %w = "ascend_rt.node"(%v) {name = "w", type = "HcomAllReduce", placement = "p2p"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %h = "ascend_rt.node"(%w) {name = "on_host", type = "Add", placement = "host"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %d = "ascend_rt.node"(%w) {name = "on_hbm", type = "Add", placement = "hbm"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%d) : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

// host -> host, hbm -> hbm: no copy at all (the host output goes to a host netoutput).
// CHECK-LABEL: func.func @same_place
// CHECK-NOT: Copy
// CHECK-NOT: SyncStream
// CHECK-NOT: MakeSure
// CHECK: return
module {
  func.func @same_place() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    %s = "ascend_rt.node"(%x) {name = "shape", type = "Shape", placement = "host"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %t = "ascend_rt.node"(%s) {name = "t", type = "Add", placement = "host"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %v = "ascend_rt.node"(%x) {name = "v", type = "Relu", placement = "hbm"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%t) {placement = "host"} : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

// An If reads its predicate on the host: a device predicate is copied there first.
// CHECK-LABEL: func.func @main
// CHECK: %[[P:.*]] = "ascend_rt.node"(%{{.*}}) {name = "pred"
// CHECK-NEXT: "ascend_rt.node"(%[[P]]) {name = "SyncStream_pred"
// CHECK-NEXT: %[[H:.*]] = "ascend_rt.node"(%[[P]]) {name = "CopyD2H_pred_0_to_host"
// CHECK: "ascend_rt.cond"(%[[H]], %{{.*}})
module {
  func.func @main() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    %p = "ascend_rt.node"(%x) {name = "pred", type = "ReduceSum", placement = "hbm"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    %r = "ascend_rt.cond"(%p, %x) {name = "c", type = "If", branches = [@t, @e]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @t() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @e() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
}
