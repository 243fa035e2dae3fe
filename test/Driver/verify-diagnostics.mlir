// Tests --verify-diagnostics: every designator form, notes, and that the run succeeds
// exactly when the diagnostics match the expectations.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

// A parse error and its note, designated from below and above.
func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> { // expected-note {{prior use here}}
  // expected-error @below {{use of value '%arg0' expects different type than prior uses}}
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

func.func @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @above {{op expects exactly 2 results, but got 1}}
  return %a : tensor<4xf32>
}

// -----

// expected-error @+2 {{op expects exactly 2 results}}
func.func @h(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @i(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// expected-error@-1 {{op expects exactly 2 results}}
  return %a : tensor<4xf32>
}

// -----

// A chunk without diagnostics and without expectations passes.
func.func @j(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
