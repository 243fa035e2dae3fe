// RUN: ge-opt --split-input-file --rt-chain-conflict %s | FileCheck %s
// RUN: ge-opt --split-input-file --rt-chain-conflict %s -o %t.once
// RUN: ge-opt --split-input-file --rt-chain-conflict %t.once -o %t.twice
// RUN: diff %t.once %t.twice
//
// CalcChainConflictSolvePolicy: an If output fed by inner_data 0 in one branch and by
// inner_data 1 in the other is a conflict index: one PointFromInputs per branch, right
// before its inner NetOutput, only for that index. Running twice changes nothing more.

// CHECK-LABEL: func.func @main
// CHECK: func.func private @then
// CHECK: %[[D0:.*]] = "ascend_rt.inner_data"() {index = 0 : i64}
// CHECK: %[[D1:.*]] = "ascend_rt.inner_data"() {index = 1 : i64}
// CHECK: %[[P:.*]] = "ascend_rt.point_from_inputs"(%[[D0]]) {name = "c_PointFromInputs_0"}
// CHECK-NEXT: "ascend_rt.inner_netoutput"(%[[P]], %[[D1]])
// CHECK: func.func private @else
// CHECK: %[[E1:.*]] = "ascend_rt.inner_data"() {index = 1 : i64}
// CHECK: %[[Q:.*]] = "ascend_rt.point_from_inputs"(%[[E1]]) {name = "c_PointFromInputs_1"}
// CHECK-NEXT: "ascend_rt.inner_netoutput"(%[[Q]], %[[E1]])
module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %y = "ascend_rt.data"() {name = "y", index = 2 : i64} : () -> !ascend_rt.tensor
    %r:2 = "ascend_rt.cond"(%p, %x, %y) {name = "c", type = "If", branches = [@then, @else]} : (!ascend_rt.tensor, !ascend_rt.tensor, !ascend_rt.tensor) -> (!ascend_rt.tensor, !ascend_rt.tensor)
    "ascend_rt.netoutput"(%r#0, %r#1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @then() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.inner_data"() {index = 1 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0, %1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @else() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.inner_data"() {index = 1 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%1, %1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
}

// -----

// Negative: a Case whose three branches all return inner_data 0 at output 0 and a
// computed value (-1 everywhere) at output 1: no conflict, nothing inserted.
// CHECK-LABEL: func.func @main
// CHECK-NOT: point_from_inputs
// CHECK: "ascend_rt.inner_netoutput"(%{{.*}}, %{{.*}})
module {
  func.func @main() {
    %k = "ascend_rt.data"() {name = "k", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %r:2 = "ascend_rt.cond"(%k, %x) {name = "c", type = "Case", branches = [@b0, @b1, @b2]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> (!ascend_rt.tensor, !ascend_rt.tensor)
    "ascend_rt.netoutput"(%r#0, %r#1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @b0() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "a", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0, %1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @b1() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "b", type = "Neg"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0, %1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @b2() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "c", type = "Abs"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0, %1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
}

// -----

// A Case output computed in one branch and passed through in another: a conflict.
// CHECK-LABEL: func.func @main
// CHECK: func.func private @c0
// CHECK: "ascend_rt.point_from_inputs"
// CHECK: func.func private @c1
// CHECK: "ascend_rt.point_from_inputs"
module {
  func.func @main() {
    %k = "ascend_rt.data"() {name = "k", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %r = "ascend_rt.cond"(%k, %x) {name = "c", type = "Case", branches = [@c0, @c1]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @c0() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "a", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%1) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @c1() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
}
