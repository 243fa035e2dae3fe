// Tests --split-input-file=<marker>: a custom marker splits and joins the output, and the
// default marker is then an ordinary comment.
// RUN: ge-opt %s '--split-input-file=// =====' --ascend-topo-order | FileCheck %s
// RUN: ge-opt %s -split-input-file='// =====' | FileCheck %s --check-prefix=COUNT
// RUN: not ge-opt %s --split-input-file= 2>&1 | FileCheck %s --check-prefix=EMPTY

// CHECK:      {name = "one", topo_id = 0 : i64}
// CHECK:      // =====
// CHECK-NEXT: module {
// CHECK:      {name = "two", topo_id = 0 : i64}
// CHECK:      {name = "three", topo_id = 1 : i64}
// CHECK-NOT:  // =====

// COUNT-COUNT-2: module {
// COUNT-NOT:     module {

// EMPTY: ge-opt: error: --split-input-file=<marker> needs a non-empty marker

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "one"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
// =====
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "two"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
// -----
  %b:2 = "ascend.add"(%a#0, %a#0) {name = "three"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %b#0 : tensor<4xf32>
}
