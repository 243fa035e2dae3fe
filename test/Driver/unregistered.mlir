// Tests --allow-unregistered-dialect: unknown ops are an error by default, accepted with
// the flag (and then left without topo_id, as they are not ascend ops).
// RUN: not ge-opt %s 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: ge-opt %s --allow-unregistered-dialect --ascend-topo-order | FileCheck %s

// ERR: unregistered.mlir:[[@LINE+4]]:15: error: operation being parsed with an unregistered dialect
// CHECK: "mystery.op"() : () -> ()
// CHECK: {name = "a", topo_id = 0 : i64}
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  "mystery.op"() : () -> ()
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
