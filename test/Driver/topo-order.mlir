// Tests that --ascend-topo-order numbers every ascend op of every function in program
// order, restarting in each function, skipping non-ascend ops, and honouring start-id in
// both option syntaxes.
// RUN: ge-opt %s --ascend-topo-order | FileCheck %s --check-prefix=ZERO
// RUN: ge-opt %s --ascend-topo-order=start-id=10 | FileCheck %s --check-prefix=TEN
// RUN: ge-opt %s -ascend-topo-order=start-id=10 | FileCheck %s --check-prefix=TEN
// RUN: ge-opt %s --pass-pipeline='builtin.module(ascend-topo-order{start-id=10})' | FileCheck %s --check-prefix=TEN
// RUN: ge-opt %s --pass-pipeline='builtin.module(func.func(ascend-topo-order{start-id=10}))' | FileCheck %s --check-prefix=TEN
// The result is still valid for stock mlir-opt with the IRDL definition.
// RUN: ge-opt %s --ascend-topo-order | mlir-opt --irdl-file=%irdl | FileCheck %s --check-prefix=ZERO

// ZERO-LABEL: func.func @main
// ZERO:         "ascend.add"{{.*}}{name = "a", topo_id = 0 : i64}
// ZERO:         "ascend.add"{{.*}}{name = "b", topo_id = 1 : i64}
// ZERO:         "ascend.add"{{.*}}{name = "c", topo_id = 2 : i64}
// ZERO:         return
// ZERO-LABEL: func.func private @sub
// ZERO:         "ascend.add"{{.*}}{name = "s", topo_id = 0 : i64}
// ZERO-LABEL: func.func private @decl
// ZERO-NOT:   topo_id

// TEN-LABEL: func.func @main
// TEN:         {name = "a", topo_id = 10 : i64}
// TEN:         {name = "b", topo_id = 11 : i64}
// TEN:         {name = "c", topo_id = 12 : i64}
// TEN-LABEL: func.func private @sub
// TEN:         {name = "s", topo_id = 10 : i64}
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.add"(%arg0, %arg0) {name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // A control edge b -> c: c consumes b's control token.
  %c:2 = "ascend.add"(%a#0, %b#0, %b#1) {name = "c"} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  return %c#0 : tensor<4xf32>
}

func.func private @sub(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %s:2 = "ascend.add"(%arg0, %arg0) {name = "s"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %s#0 : tensor<4xf32>
}

func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
