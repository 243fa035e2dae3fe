// Tests reading standard input (no input argument, or `-`), and that diagnostics then
// name <stdin> with the right line.
// RUN: ge-opt --ascend-topo-order < %s | FileCheck %s
// RUN: ge-opt - --ascend-topo-order < %s | FileCheck %s
// RUN: cat %s | ge-opt --ascend-topo-order - | FileCheck %s
// RUN: printf 'func.func @f() {\n  "ascend.nope"() : () -> ()\n  return\n}\n' | not ge-opt 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: {name = "a", topo_id = 0 : i64}
// ERR: <stdin>:2:3: error: unregistered operation 'ascend.nope' found in dialect ('ascend') that does not allow unknown operations
// ERR-NEXT: "ascend.nope"() : () -> ()
// ERR-NEXT: ^
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
