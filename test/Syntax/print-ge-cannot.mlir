// What `.ge` cannot say is an error at the op it concerns, and nothing is printed: the
// format promises an exact round trip, so a comment line in a graph that would read back
// as another graph is not an answer. Each case in its own split.
// RUN: not ge-opt %s --split-input-file --emit ge 2> %t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.err

// A node name that is not UTF-8 cannot be written; a made-up name would be another node's.
// CHECK: print-ge-cannot.mlir:[[@LINE+2]]:{{[0-9]+}}: error: cannot print as .ge: node name "x\FF" is not UTF-8 (printed as `data_0`)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x\FF"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %r:2 = "ascend.relu"(%x#0) {name = "r"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %r#0 : tensor<2xf32>
}

// -----

// `.ge` reads graph inputs through Data nodes only.
// CHECK: print-ge-cannot.mlir:[[@LINE+2]]:{{[0-9]+}}: error: cannot print as .ge: `r` uses function argument 0 directly; .ge reads graph inputs through Data nodes
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = "ascend.relu"(%a) {name = "r"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %r#0 : tensor<2xf32>
}

// -----

// Only `ascend` ops are nodes.
// CHECK: print-ge-cannot.mlir:[[@LINE+3]]:{{[0-9]+}}: error: cannot print as .ge: op `arith.constant` is not an `ascend` op
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %c = arith.constant 1 : i32
  return %x#0 : tensor<2xf32>
}

// -----

// A graph .ge can say prints, in the same run as the failing ones.
// OUT-NOT: cannot print
// OUT: graph main {
// OUT-NEXT: x = Data() {index = 0} : f32[2]
// OUT-NEXT: return x
// OUT-NOT: cannot print
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %x#0 : tensor<2xf32>
}

// -----

// A graph names each node once: a second `x` cannot be written as itself.
// CHECK: print-ge-cannot.mlir:[[@LINE+4]]:{{[0-9]+}}: error: node name `x` is used twice in @main (first by the op at {{.*}}); GE identifies nodes by name
// CHECK-NOT: error
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %r:2 = "ascend.relu"(%x#0) {name = "x"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %r#0 : tensor<2xf32>
}
