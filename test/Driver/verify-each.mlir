// --verify-each (mlir-opt's flag): MLIR verifies the IR after every pass unless it is
// false; the output does not depend on it, and a value that is not a bool is refused.
// RUN: ge-opt %s --ascend-topo-order | FileCheck %s
// RUN: ge-opt %s --ascend-topo-order --verify-each | FileCheck %s
// RUN: ge-opt %s --ascend-topo-order --verify-each=false | FileCheck %s
// RUN: not ge-opt %s --ascend-topo-order --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: ge-opt --help | FileCheck %s --check-prefix=HELP

// CHECK: "ascend.relu"{{.*}}topo_id = 0
// BAD: invalid value 'maybe' for '--verify-each
// HELP: --verify-each

func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.relu"(%arg0) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
