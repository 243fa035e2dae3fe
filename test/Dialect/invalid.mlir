// Stock mlir-opt rejects malformed ascend IR with the generated IRDL alone.
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s -split-input-file -verify-diagnostics

// Add has two single inputs.
func.func @wrong_operand_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects at least 2 operands, but got 1}}
  %a:2 = "ascend.add"(%x) : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// Relu has one data result and the control result.
func.func @wrong_result_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects exactly 2 results, but got 3}}
  %a:3 = "ascend.relu"(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// Every ascend op ends with a control result.
func.func @missing_ctrl_result(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects exactly 2 results, but got 1}}
  %a = "ascend.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Control operands come after all data operands.
func.func @ctrl_in_data_position(%x: tensor<2xf32>) {
  %c = "ascend.stream_active"() : () -> !ascend.ctrl
  // expected-error @+1 {{'!ascend.ctrl' does not satisfy the constraint}}
  %a:2 = "ascend.add"(%c, %x) : (!ascend.ctrl, tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// Extra data operands land in the trailing ctrl_in group and are rejected.
func.func @data_in_ctrl_position(%x: tensor<2xf32>) {
  // expected-error @+1 {{expected base type 'ascend.ctrl' but got 'builtin.tensor'}}
  %a:2 = "ascend.relu"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// Const requires `value`.
func.func @missing_const_value() {
  // expected-error @+1 {{'ascend.const' op attribute "value" is expected but not provided}}
  %c:2 = "ascend.const"() {name = "c"} : () -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// The generic op requires its GE `type`.
func.func @missing_generic_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{'ascend.op' op attribute "type" is expected but not provided}}
  %g:2 = "ascend.op"(%x) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// If requires both branch symbols.
func.func @missing_subgraph_attr(%c: tensor<i1>) {
  // expected-error @+1 {{'ascend.if' op attribute "else_branch" is expected but not provided}}
  %i = "ascend.if"(%c) {then_branch = @f, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i1>) -> !ascend.ctrl
  return
}

// -----

// Subgraph attributes are symbol references, not strings.
func.func @subgraph_attr_not_a_symbol(%x: tensor<2xf32>) {
  // expected-error @+1 {{expected base attribute 'builtin.symbol_ref' but got 'builtin.string'}}
  %w:2 = "ascend.partitioned_call"(%x) {f = "callee", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// AddN's variadic group binds one type (IRDL).
func.func @heterogeneous_homogeneous_variadic(%x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{expected 'tensor<2xf32>' but got 'tensor<3xf32>'}}
  %n:2 = "ascend.add_n"(%x, %y) {operandSegmentSizes = array<i32: 2, 0>} : (tensor<2xf32>, tensor<3xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// Two non-single groups (bias?, ctrl_in*) need operandSegmentSizes.
func.func @missing_segment_sizes(%x: tensor<2x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'operandSegmentSizes' attribute is expected but not provided}}
  %m:2 = "ascend.mat_mul"(%x, %x, %b) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, !ascend.ctrl)
  return
}

// -----

// One entry per IRDL group: x*, ctrl_in*.
func.func @wrong_segment_sizes_length(%x: tensor<2xf32>) {
  // expected-error @+1 {{'operandSegmentSizes' attribute for specifying operand segments must have 2 elements, but got 1}}
  %n:2 = "ascend.add_n"(%x) {operandSegmentSizes = array<i32: 1>} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return
}

// -----

// Identity's x and y share one type (same_type).
func.func @same_type_violated(%x: tensor<2xf32>) {
  // expected-error @+1 {{expected 'tensor<2xf32>' but got 'tensor<4xf32>'}}
  %i:2 = "ascend.identity"(%x) : (tensor<2xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return
}

// -----

// Assign's ref output has its ref input's type.
func.func @ref_output_type_differs(%v: tensor<2xf32>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expected 'tensor<2xf32>' but got 'tensor<2xf16>'}}
  %a:2 = "ascend.assign"(%v, %x) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf16>, !ascend.ctrl)
  return
}

// -----

// Data values are builtin tensors.
func.func @data_not_a_tensor(%x: i32) {
  // expected-error @+1 {{'i32' does not satisfy the constraint}}
  %a:2 = "ascend.relu"(%x) : (i32) -> (i32, !ascend.ctrl)
  return
}

// -----

// Values past the slots share the overflow group's one type.
func.func @slot_overflow_must_be_homogeneous(%x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{expected 'tensor<2xf32>' but got 'tensor<3xf32>'}}
  %a:3 = "ascend.identity_n"(%x, %y) {operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<2xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>, !ascend.ctrl)
  return
}

// -----

// The last result must be the control token.
func.func @ctrl_result_wrong_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{expected base type 'ascend.ctrl' but got 'builtin.tensor'}}
  %a:2 = "ascend.relu"(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}
