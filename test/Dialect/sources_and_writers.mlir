// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// Graph inputs, constants and variables, copies, and writers with ref outputs.

// CHECK-LABEL: func.func @sources_and_writers
func.func @sources_and_writers(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: "ascend.data"(%arg0) {index = 0 : i64, name = "x"}
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.ref_data"(%arg1)
  %rd:2 = "ascend.ref_data"(%arg1) {name = "rd", index = 1 : i64} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.const"() {name = "c", value = dense<1.000000e+00> : tensor<16xf32>}
  %c:2 = "ascend.const"() {name = "c", value = dense<1.0> : tensor<16xf32>} : () -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.constant"
  %k:2 = "ascend.constant"() {name = "k", value = dense<2.0> : tensor<16xf32>} : () -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.variable"() {name = "var"} : () -> (tensor<16xf32>, !ascend.ctrl)
  %v:2 = "ascend.variable"() {name = "var"} : () -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.identity"
  %i:2 = "ascend.identity"(%x#0) {name = "id", _cannot_be_deleted = true} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.identity_n"({{.*}}){{.*}} : (tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<i32>, !ascend.ctrl)
  %idx:2 = "ascend.const"() {name = "idx", value = dense<3> : tensor<i32>} : () -> (tensor<i32>, !ascend.ctrl)
  %in:3 = "ascend.identity_n"(%x#0, %idx#0) {name = "idn", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<i32>, !ascend.ctrl)
  // CHECK: "ascend.memcpy"
  %mc:2 = "ascend.memcpy"(%i#0) {name = "mc"} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.memcpy_async"
  %ma:2 = "ascend.memcpy_async"(%mc#0) {name = "ma"} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.memcpy_addr_async"
  %mz:2 = "ascend.memcpy_addr_async"(%ma#0) {name = "mz"} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.read_variable_op"
  %rv:2 = "ascend.read_variable_op"(%v#0) {name = "read"} : (tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.assign"({{.*}}) {name = "assign"} : (tensor<16xf32>, tensor<16xf32>, !ascend.ctrl) -> (tensor<16xf32>, !ascend.ctrl)
  %as:2 = "ascend.assign"(%v#0, %c#0, %rv#1) {name = "assign"} : (tensor<16xf32>, tensor<16xf32>, !ascend.ctrl) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.assign_add"
  %aa:2 = "ascend.assign_add"(%as#0, %k#0) {name = "assign_add"} : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.assign_sub"
  %ab:2 = "ascend.assign_sub"(%aa#0, %k#0) {name = "assign_sub"} : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.apply_momentum"
  %am:2 = "ascend.apply_momentum"(%ab#0, %rd#0, %idx#0, %x#0, %idx#0) {name = "momentum", use_nesterov = false} : (tensor<16xf32>, tensor<16xf32>, tensor<i32>, tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, !ascend.ctrl)
  // CHECK: "ascend.atomic_addr_clean"() {name = "clean"} : () -> !ascend.ctrl
  %cl = "ascend.atomic_addr_clean"() {name = "clean"} : () -> !ascend.ctrl
  // MemSet is the other atomic-clean op: no data, only the control result.
  // CHECK: "ascend.mem_set"(%{{.*}}) {name = "memset"} : (!ascend.ctrl) -> !ascend.ctrl
  %ms = "ascend.mem_set"(%cl) {name = "memset"} : (!ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.scatter_add"
  %sa:2 = "ascend.scatter_add"(%am#0, %idx#0, %x#0, %ms) {name = "scatter"} : (tensor<16xf32>, tensor<i32>, tensor<16xf32>, !ascend.ctrl) -> (tensor<16xf32>, !ascend.ctrl)
  // NoOp has no data either: it only joins control edges.
  // CHECK: "ascend.no_op"(%{{.*}}#1, %{{.*}}#1) {name = "join"} : (!ascend.ctrl, !ascend.ctrl) -> !ascend.ctrl
  %nop = "ascend.no_op"(%sa#1, %mz#1) {name = "join"} : (!ascend.ctrl, !ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.no_op"() {name = "lonely"} : () -> !ascend.ctrl
  %nop2 = "ascend.no_op"() {name = "lonely"} : () -> !ascend.ctrl
  return %sa#0 : tensor<16xf32>
}
