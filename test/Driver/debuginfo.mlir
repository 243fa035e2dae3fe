// Tests --mlir-print-debuginfo: locations name the input as given (the file, or <stdin>,
// or the file again for split chunks, with the file's line numbers).
// RUN: ge-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=FILE
// RUN: ge-opt < %s --mlir-print-debuginfo | FileCheck %s --check-prefix=STDIN --implicit-check-not=ge-opt-
// RUN: ge-opt %s --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=SPLIT --implicit-check-not=ge-opt-
// RUN: ge-opt %s | FileCheck %s --check-prefix=PLAIN

// FILE:  #loc{{[0-9]+}} = loc("{{.*}}debuginfo.mlir":[[@LINE+6]]:10)
// STDIN: #loc{{[0-9]+}} = loc("<stdin>":[[@LINE+5]]:10)
// SPLIT: #loc{{[0-9]+}} = loc("{{.*}}debuginfo.mlir":[[@LINE+9]]:10)
// PLAIN-NOT: loc(

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
// -----
func.func @second(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
