// Tests --split-input-file: chunks are processed independently, outputs are joined with
// the marker, a failing chunk does not stop the others, and diagnostics carry the line
// numbers of the whole file.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --ascend-topo-order | FileCheck %s
// RUN: not ge-opt %s --split-input-file --ascend-topo-order 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// Without splitting, the markers are plain comments and the bad op fails the whole file.
// RUN: not ge-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK:      {name = "first", topo_id = 0 : i64}
// CHECK-NEXT: return
// CHECK:      // -----
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK:      {name = "third", topo_id = 0 : i64}

// ERR: split-input-file.mlir:[[@LINE+17]]:10: error: op expects exactly 2 results, but got 1
// ERR-NEXT: %bad = "ascend.add"
// ERR-NEXT: ^
// ERR-NEXT: split-input-file.mlir:[[@LINE+14]]:10: note: see current operation

// WHOLE: split-input-file.mlir:[[@LINE+12]]:10: error: op expects exactly 2 results

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "first"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // The control result is missing: IRDL rejects the op.
  // expected-error @+1 {{op expects exactly 2 results, but got 1}}
  %bad = "ascend.add"(%arg0, %arg0) {name = "second"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %bad : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "third"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
