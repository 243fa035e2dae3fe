// RUN: ge-opt --split-input-file --verify-diagnostics --rt-chain-conflict %s
//
// Execute graphs the runtime passes refuse, each error at its op (or, for a frame,
// the module, naming the cond and branch).

module {
  func.func @main() {
    // expected-error @+1 {{read-rt: placement `l2` is not host, hbm or p2p}}
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64, placement = "l2"} : () -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%x) : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

module {
  func.func @main() {
    // expected-error @+1 {{read-rt: `arith.constant` is not an ascend_rt op}}
    %x = arith.constant 0 : i32
    return
  }
}

// -----

// expected-error @+1 {{rt-chain-conflict: If `c`: branch `e` has no ascend_rt.inner_netoutput}}
module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    %r = "ascend_rt.cond"(%p, %p) {name = "c", type = "If", branches = [@t, @e]} : (!ascend_rt.tensor, !ascend_rt.tensor) -> !ascend_rt.tensor
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
    return
  }
}

// -----

module {
  func.func @main() {
    %p = "ascend_rt.data"() {name = "p", index = 0 : i64} : () -> !ascend_rt.tensor
    // expected-error @+1 {{read-rt: ascend_rt.identity_addr passes its inputs through: 1 inputs but 2 results}}
    %r:2 = "ascend_rt.identity_addr"(%p) {name = "i"} : (!ascend_rt.tensor) -> (!ascend_rt.tensor, !ascend_rt.tensor)
    return
  }
}

// -----

module {
  func.func @main() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    // expected-error @+1 {{read-rt: `after` names `y`, which is no node of the graph}}
    %r = "ascend_rt.node"(%x) {name = "r", type = "Relu", after = ["y"]} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

module {
  func.func @main() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    // expected-error @+1 {{read-rt: `after` must be a list of node names ("a", ...)}}
    %r = "ascend_rt.node"(%x) {name = "r", type = "Relu", after = [@x]} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
}

// -----

module {
  func.func @main() {
    %x = "ascend_rt.data"() {name = "x", index = 0 : i64} : () -> !ascend_rt.tensor
    // expected-error @+1 {{read-rt: `after` names the node itself (`r`)}}
    %r = "ascend_rt.node"(%x) {name = "r", type = "Relu", after = ["r"]} : (!ascend_rt.tensor) -> !ascend_rt.tensor
    "ascend_rt.netoutput"(%r) : (!ascend_rt.tensor) -> ()
    return
  }
}
