// Tests that --verify-diagnostics fails, mlir-opt style, on unexpected, missing,
// wrong-kind and malformed expectations, while still printing the good chunks.
// RUN: not ge-opt %s --split-input-file --verify-diagnostics 2>&1 >/dev/null | FileCheck %s
// RUN: not ge-opt %s --split-input-file --verify-diagnostics 2>/dev/null | FileCheck %s --check-prefix=OUT

// CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+12]]:8: error: unexpected error: op expects exactly 2 results, but got 1
// CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+12]]:6: error: expected error "never emitted" was not produced
// CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+18]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+17]]:6: error: expected warning "op expects" was not produced
// CHECK: verify-diagnostics-mismatch.mlir:[[@LINE+23]]:4: error: expected-error needs its message as '{{[{][{]}}...{{[}][}]}}' at the end of the line
// CHECK-NOT: error:

// OUT: // -----
// OUT: // -----
// OUT: // -----
// OUT-NEXT: module {
func.func @unexpected(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{never emitted}}
  return %a : tensor<4xf32>
}

// -----

func.func @wrong_kind(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{op expects}}
  %a = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// expected-error {{unterminated
func.func @malformed() {
  return
}

// -----

func.func @fine() {
  return
}
