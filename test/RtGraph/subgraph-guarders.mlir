// RUN: ge-opt --split-input-file --rt-subgraph-guarders %s | FileCheck %s
// RUN: ge-opt --split-input-file --rt-subgraph-guarders %s -o %t.once
// RUN: ge-opt --split-input-file --rt-subgraph-guarders %t.once -o %t.twice
// RUN: diff %t.once %t.twice
//
// CalcSubgraphGuardersPolicy, one rule per case.

// A branch output guarded inside the branch: the guarder leaves the branch, the parent
// output gets one (right after the cond); the other branch, which returns an unguarded
// inner_data at that index, gets an IdentityAddr plus-ref (alignment).
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = "ascend_rt.cond"
// CHECK-NEXT: "ascend_rt.guarder"(%[[R]]) {release_index = 0 : i64, type = "FreeMemory"}
// CHECK: func.func private @then
// CHECK-NOT: ascend_rt.guarder
// CHECK: %[[V:.*]] = "ascend_rt.node"
// CHECK-NOT: ascend_rt.guarder
// CHECK: "ascend_rt.inner_netoutput"(%[[V]])
// CHECK: func.func private @else
// CHECK: %[[D:.*]] = "ascend_rt.inner_data"
// CHECK: %[[I:.*]] = "ascend_rt.identity_addr"(%[[D]]) {name = "c_IdentityAddr_1"}
// CHECK-NEXT: "ascend_rt.inner_netoutput"(%[[I]])
module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %r = "ascend_rt.cond"(%p, %x) {name = "c", type = "If", branches = [@then, @else]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @then() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "relu", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.guarder"(%1) {type = "FreeMemory", release_index = 0 : i64} : (!ascend_rt.tensor) -> ()
    "ascend_rt.inner_netoutput"(%1) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @else() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

// An outer guarded tensor passing straight through both branches (inner_data marked
// guarder_outside): a guarder on the parent output, a plus-ref in each branch.
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = "ascend_rt.cond"
// CHECK-NEXT: "ascend_rt.guarder"(%[[R]])
// CHECK: func.func private @a
// CHECK: "ascend_rt.identity_addr"
// CHECK: func.func private @b
// CHECK: "ascend_rt.identity_addr"
module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %v = "ascend_rt.node"(%x) {name = "v", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.guarder"(%v) {type = "FreeMemory", release_index = 0 : i64} : (!ascend_rt.tensor) -> ()
    %r = "ascend_rt.cond"(%p, %v) {name = "c", type = "If", branches = [@a, @b]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @a() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64, guarder_outside = "FreeMemory"} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @b() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64, guarder_outside = "FreeMemory"} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

// One guarded value returned at two outputs: the guarder is removed once, the second
// output gets the plus-ref; both parent outputs are guarded.
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]]:2 = "ascend_rt.cond"
// CHECK-NEXT: "ascend_rt.guarder"(%[[R]]#0)
// CHECK-NEXT: "ascend_rt.guarder"(%[[R]]#1)
// CHECK: func.func private @t
// CHECK: %[[V:.*]] = "ascend_rt.node"
// CHECK-NEXT: %[[I:.*]] = "ascend_rt.identity_addr"(%[[V]])
// CHECK-NEXT: "ascend_rt.inner_netoutput"(%[[V]], %[[I]])
module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %r:2 = "ascend_rt.cond"(%p, %x) {name = "c", type = "If", branches = [@t, @e]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> (!ascend_rt.tensor, !ascend_rt.tensor)
    "ascend_rt.netoutput"(%r#0, %r#1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @t() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "relu", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.guarder"(%1) {type = "FreeMemory", release_index = 0 : i64} : (!ascend_rt.tensor) -> ()
    "ascend_rt.inner_netoutput"(%1, %1) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
  func.func private @e() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "neg", type = "Neg"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.guarder"(%1) {type = "FreeMemory", release_index = 0 : i64} : (!ascend_rt.tensor) -> ()
    %2 = "ascend_rt.node"(%0) {name = "abs", type = "Abs"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.guarder"(%2) {type = "FreeMemory", release_index = 0 : i64} : (!ascend_rt.tensor) -> ()
    "ascend_rt.inner_netoutput"(%1, %2) : (!ascend_rt.tensor, !ascend_rt.tensor) -> ()
    return
  }
}

// -----

// Negative: nothing guarded anywhere (a guarder on a value the branch does not return
// stays), no parent guarder, no plus-ref.
// CHECK-LABEL: func.func @main
// CHECK-NOT: ascend_rt.guarder
// CHECK: func.func private @t
// CHECK: "ascend_rt.guarder"
// CHECK-NOT: identity_addr
module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    %x = "ascend_rt.data"() {name = "x", index = 1 : i64} : () -> !ascend_rt.tensor
    %r = "ascend_rt.cond"(%p, %x) {name = "c", type = "If", branches = [@t, @e]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @t() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    %1 = "ascend_rt.node"(%0) {name = "tmp", type = "Relu"} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.guarder"(%1) {type = "FreeMemory", release_index = 0 : i64} : (!ascend_rt.tensor) -> ()
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
  func.func private @e() {
    %0 = "ascend_rt.inner_data"() {index = 0 : i64} : () -> !ascend_rt.tensor
    "ascend_rt.inner_netoutput"(%0) : (!ascend_rt.tensor) -> ()
    return
  }
}
