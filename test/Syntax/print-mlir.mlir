// Tests printing hand-written MLIR as .ge: ops without `name` get `<mnemonic>_<n>`, names
// already taken are skipped, and the result imports again.
// RUN: ge-opt %s --emit ge | FileCheck %s
// RUN: ge-opt %s --emit ge -o %t.ge
// RUN: ge-opt %t.ge --emit ge | diff %t.ge -

// CHECK:      graph main {
// CHECK-NEXT:   data_0 = Data() {index = 0} : f32[2]
// CHECK-NEXT:   add_1 = Add(data_0, data_0) : f32[2]
// CHECK-NEXT:   add_0 = Add(add_1, data_0, ^data_0) : f32[2]
// CHECK-NEXT:   return add_0
// CHECK-NEXT: }
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %r:2 = "ascend.add"(%x#0, %x#0) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  %q:2 = "ascend.add"(%r#0, %x#0, %x#1) {name = "add_0"} : (tensor<2xf32>, tensor<2xf32>, !ascend.ctrl) -> (tensor<2xf32>, !ascend.ctrl)
  return %q#0 : tensor<2xf32>
}
