// Tests -o: the output goes to the file (stdout stays empty); a failed run leaves no
// output file behind, like mlir-opt.
// RUN: rm -f %t.out
// RUN: ge-opt %s --ascend-topo-order -o %t.out | FileCheck %s --check-prefix=EMPTY --allow-empty
// RUN: FileCheck %s < %t.out
// RUN: rm -f %t.bad
// RUN: printf 'func.func @f() {\n  "ascend.nope"() : () -> ()\n  return\n}\n' > %t.bad.mlir
// RUN: not ge-opt %t.bad.mlir -o %t.bad
// RUN: not ls %t.bad
// Writing into a directory that does not exist is a clean error.
// RUN: not ge-opt %s -o %t.missing-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=NODIR
// So is a write that fails while MLIR prints into the file (a full device), named with
// the OS error.
// RUN: not ge-opt %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL

// EMPTY-NOT: {{.}}
// CHECK: {name = "a", topo_id = 0 : i64}
// NODIR: ge-opt: error: cannot write output file '{{.*}}missing-dir/out.mlir'
// FULL: ge-opt: error: cannot write output file '/dev/full': No space left on device
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
