// Generated from dialects/ascend.ops.toml by src/dialect/irdl_gen.rs -- do not edit.
// Regenerate with: GE_BLESS=1 cargo test --lib irdl
irdl.dialect @ascend {
  // The control token: one per op, last result; control edges consume it.
  irdl.type @ctrl

  // GE type Data on DNN_VM_GE_LOCAL
  irdl.operation @data {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type RefData on DNN_VM_GE_LOCAL
  irdl.operation @ref_data {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type Const on DNN_VM_GE_LOCAL
  irdl.operation @const {
    %ctrl = irdl.base @ascend::@ctrl
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    %attr_value = irdl.any
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
    irdl.attributes {"value" = %attr_value}
  }

  // GE type Constant on DNN_VM_GE_LOCAL
  irdl.operation @constant {
    %ctrl = irdl.base @ascend::@ctrl
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    %attr_value = irdl.any
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
    irdl.attributes {"value" = %attr_value}
  }

  // GE type Variable on DNN_VM_GE_LOCAL
  irdl.operation @variable {
    %ctrl = irdl.base @ascend::@ctrl
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Identity on DNN_VM_RTS
  irdl.operation @identity {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type IdentityN on DNN_VM_RTS
  irdl.operation @identity_n {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y0_r = irdl.base "!builtin.tensor"
    %out_y0_u = irdl.base "!builtin.unranked_tensor"
    %out_y0 = irdl.any_of(%out_y0_r, %out_y0_u)
    %out_y1_r = irdl.base "!builtin.tensor"
    %out_y1_u = irdl.base "!builtin.unranked_tensor"
    %out_y1 = irdl.any_of(%out_y1_r, %out_y1_u)
    %out_y2_r = irdl.base "!builtin.tensor"
    %out_y2_u = irdl.base "!builtin.unranked_tensor"
    %out_y2 = irdl.any_of(%out_y2_r, %out_y2_u)
    %out_y3_r = irdl.base "!builtin.tensor"
    %out_y3_u = irdl.base "!builtin.unranked_tensor"
    %out_y3 = irdl.any_of(%out_y3_r, %out_y3_u)
    %out_y4_r = irdl.base "!builtin.tensor"
    %out_y4_u = irdl.base "!builtin.unranked_tensor"
    %out_y4 = irdl.any_of(%out_y4_r, %out_y4_u)
    %out_y5_r = irdl.base "!builtin.tensor"
    %out_y5_u = irdl.base "!builtin.unranked_tensor"
    %out_y5 = irdl.any_of(%out_y5_r, %out_y5_u)
    %out_y6_r = irdl.base "!builtin.tensor"
    %out_y6_u = irdl.base "!builtin.unranked_tensor"
    %out_y6 = irdl.any_of(%out_y6_r, %out_y6_u)
    %out_y7_r = irdl.base "!builtin.tensor"
    %out_y7_u = irdl.base "!builtin.unranked_tensor"
    %out_y7 = irdl.any_of(%out_y7_r, %out_y7_u)
    %out_y8_r = irdl.base "!builtin.tensor"
    %out_y8_u = irdl.base "!builtin.unranked_tensor"
    %out_y8 = irdl.any_of(%out_y8_r, %out_y8_u)
    %out_y9_r = irdl.base "!builtin.tensor"
    %out_y9_u = irdl.base "!builtin.unranked_tensor"
    %out_y9 = irdl.any_of(%out_y9_r, %out_y9_u)
    %out_y10_r = irdl.base "!builtin.tensor"
    %out_y10_u = irdl.base "!builtin.unranked_tensor"
    %out_y10 = irdl.any_of(%out_y10_r, %out_y10_u)
    %out_y11_r = irdl.base "!builtin.tensor"
    %out_y11_u = irdl.base "!builtin.unranked_tensor"
    %out_y11 = irdl.any_of(%out_y11_r, %out_y11_u)
    %out_y12_r = irdl.base "!builtin.tensor"
    %out_y12_u = irdl.base "!builtin.unranked_tensor"
    %out_y12 = irdl.any_of(%out_y12_r, %out_y12_u)
    %out_y13_r = irdl.base "!builtin.tensor"
    %out_y13_u = irdl.base "!builtin.unranked_tensor"
    %out_y13 = irdl.any_of(%out_y13_r, %out_y13_u)
    %out_y14_r = irdl.base "!builtin.tensor"
    %out_y14_u = irdl.base "!builtin.unranked_tensor"
    %out_y14 = irdl.any_of(%out_y14_r, %out_y14_u)
    %out_y15_r = irdl.base "!builtin.tensor"
    %out_y15_u = irdl.base "!builtin.unranked_tensor"
    %out_y15 = irdl.any_of(%out_y15_r, %out_y15_u)
    %out_y16_r = irdl.base "!builtin.tensor"
    %out_y16_u = irdl.base "!builtin.unranked_tensor"
    %out_y16 = irdl.any_of(%out_y16_r, %out_y16_u)
    %out_y17_r = irdl.base "!builtin.tensor"
    %out_y17_u = irdl.base "!builtin.unranked_tensor"
    %out_y17 = irdl.any_of(%out_y17_r, %out_y17_u)
    %out_y18_r = irdl.base "!builtin.tensor"
    %out_y18_u = irdl.base "!builtin.unranked_tensor"
    %out_y18 = irdl.any_of(%out_y18_r, %out_y18_u)
    %out_y19_r = irdl.base "!builtin.tensor"
    %out_y19_u = irdl.base "!builtin.unranked_tensor"
    %out_y19 = irdl.any_of(%out_y19_r, %out_y19_u)
    %out_y20_r = irdl.base "!builtin.tensor"
    %out_y20_u = irdl.base "!builtin.unranked_tensor"
    %out_y20 = irdl.any_of(%out_y20_r, %out_y20_u)
    %out_y21_r = irdl.base "!builtin.tensor"
    %out_y21_u = irdl.base "!builtin.unranked_tensor"
    %out_y21 = irdl.any_of(%out_y21_r, %out_y21_u)
    %out_y22_r = irdl.base "!builtin.tensor"
    %out_y22_u = irdl.base "!builtin.unranked_tensor"
    %out_y22 = irdl.any_of(%out_y22_r, %out_y22_u)
    %out_y23_r = irdl.base "!builtin.tensor"
    %out_y23_u = irdl.base "!builtin.unranked_tensor"
    %out_y23 = irdl.any_of(%out_y23_r, %out_y23_u)
    %out_y24_r = irdl.base "!builtin.tensor"
    %out_y24_u = irdl.base "!builtin.unranked_tensor"
    %out_y24 = irdl.any_of(%out_y24_r, %out_y24_u)
    %out_y25_r = irdl.base "!builtin.tensor"
    %out_y25_u = irdl.base "!builtin.unranked_tensor"
    %out_y25 = irdl.any_of(%out_y25_r, %out_y25_u)
    %out_y26_r = irdl.base "!builtin.tensor"
    %out_y26_u = irdl.base "!builtin.unranked_tensor"
    %out_y26 = irdl.any_of(%out_y26_r, %out_y26_u)
    %out_y27_r = irdl.base "!builtin.tensor"
    %out_y27_u = irdl.base "!builtin.unranked_tensor"
    %out_y27 = irdl.any_of(%out_y27_r, %out_y27_u)
    %out_y28_r = irdl.base "!builtin.tensor"
    %out_y28_u = irdl.base "!builtin.unranked_tensor"
    %out_y28 = irdl.any_of(%out_y28_r, %out_y28_u)
    %out_y29_r = irdl.base "!builtin.tensor"
    %out_y29_u = irdl.base "!builtin.unranked_tensor"
    %out_y29 = irdl.any_of(%out_y29_r, %out_y29_u)
    %out_y30_r = irdl.base "!builtin.tensor"
    %out_y30_u = irdl.base "!builtin.unranked_tensor"
    %out_y30 = irdl.any_of(%out_y30_r, %out_y30_u)
    %out_y31_r = irdl.base "!builtin.tensor"
    %out_y31_u = irdl.base "!builtin.unranked_tensor"
    %out_y31 = irdl.any_of(%out_y31_r, %out_y31_u)
    %out_y_rest_r = irdl.base "!builtin.tensor"
    %out_y_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_y_rest = irdl.any_of(%out_y_rest_r, %out_y_rest_u)
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y0: optional %out_y0, y1: optional %out_y1, y2: optional %out_y2, y3: optional %out_y3, y4: optional %out_y4, y5: optional %out_y5, y6: optional %out_y6, y7: optional %out_y7, y8: optional %out_y8, y9: optional %out_y9, y10: optional %out_y10, y11: optional %out_y11, y12: optional %out_y12, y13: optional %out_y13, y14: optional %out_y14, y15: optional %out_y15, y16: optional %out_y16, y17: optional %out_y17, y18: optional %out_y18, y19: optional %out_y19, y20: optional %out_y20, y21: optional %out_y21, y22: optional %out_y22, y23: optional %out_y23, y24: optional %out_y24, y25: optional %out_y25, y26: optional %out_y26, y27: optional %out_y27, y28: optional %out_y28, y29: optional %out_y29, y30: optional %out_y30, y31: optional %out_y31, y_rest: variadic %out_y_rest, ctrl: %ctrl)
  }

  // GE type Memcpy on DNN_VM_RTS
  irdl.operation @memcpy {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type MemcpyAsync on DNN_VM_RTS
  irdl.operation @memcpy_async {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type MemcpyAddrAsync on DNN_VM_RTS
  irdl.operation @memcpy_addr_async {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type ReadVariableOp on DNN_VM_RTS
  irdl.operation @read_variable_op {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type Assign on AIcoreEngine
  irdl.operation @assign {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_value_r = irdl.base "!builtin.tensor"
    %in_value_u = irdl.base "!builtin.unranked_tensor"
    %in_value = irdl.any_of(%in_value_r, %in_value_u)
    irdl.operands(ref: %same0, value: %in_value, ctrl_in: variadic %ctrl)
    irdl.results(ref_out: %same0, ctrl: %ctrl)
  }

  // GE type AssignAdd on AIcoreEngine
  irdl.operation @assign_add {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_value_r = irdl.base "!builtin.tensor"
    %in_value_u = irdl.base "!builtin.unranked_tensor"
    %in_value = irdl.any_of(%in_value_r, %in_value_u)
    irdl.operands(ref: %same0, value: %in_value, ctrl_in: variadic %ctrl)
    irdl.results(ref_out: %same0, ctrl: %ctrl)
  }

  // GE type AssignSub on AIcoreEngine
  irdl.operation @assign_sub {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_value_r = irdl.base "!builtin.tensor"
    %in_value_u = irdl.base "!builtin.unranked_tensor"
    %in_value = irdl.any_of(%in_value_r, %in_value_u)
    irdl.operands(var: %same0, value: %in_value, ctrl_in: variadic %ctrl)
    irdl.results(var_out: %same0, ctrl: %ctrl)
  }

  // GE type ApplyMomentum on AIcoreEngine
  irdl.operation @apply_momentum {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_accum_r = irdl.base "!builtin.tensor"
    %in_accum_u = irdl.base "!builtin.unranked_tensor"
    %in_accum = irdl.any_of(%in_accum_r, %in_accum_u)
    %in_lr_r = irdl.base "!builtin.tensor"
    %in_lr_u = irdl.base "!builtin.unranked_tensor"
    %in_lr = irdl.any_of(%in_lr_r, %in_lr_u)
    %in_grad_r = irdl.base "!builtin.tensor"
    %in_grad_u = irdl.base "!builtin.unranked_tensor"
    %in_grad = irdl.any_of(%in_grad_r, %in_grad_u)
    %in_momentum_r = irdl.base "!builtin.tensor"
    %in_momentum_u = irdl.base "!builtin.unranked_tensor"
    %in_momentum = irdl.any_of(%in_momentum_r, %in_momentum_u)
    irdl.operands(var: %same0, accum: %in_accum, lr: %in_lr, grad: %in_grad, momentum: %in_momentum, ctrl_in: variadic %ctrl)
    irdl.results(var_out: %same0, ctrl: %ctrl)
  }

  // GE type ScatterAdd on AIcoreEngine
  irdl.operation @scatter_add {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_indices_r = irdl.base "!builtin.tensor"
    %in_indices_u = irdl.base "!builtin.unranked_tensor"
    %in_indices = irdl.any_of(%in_indices_r, %in_indices_u)
    %in_updates_r = irdl.base "!builtin.tensor"
    %in_updates_u = irdl.base "!builtin.unranked_tensor"
    %in_updates = irdl.any_of(%in_updates_r, %in_updates_u)
    irdl.operands(var: %same0, indices: %in_indices, updates: %in_updates, ctrl_in: variadic %ctrl)
    irdl.results(var_out: %same0, ctrl: %ctrl)
  }

  // GE type AtomicAddrClean on AIcoreEngine
  irdl.operation @atomic_addr_clean {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type MemSet on AIcoreEngine
  irdl.operation @mem_set {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type NoOp on DNN_VM_GE_LOCAL
  irdl.operation @no_op {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type HcomAllReduce on DNN_HCCL
  irdl.operation @hcom_all_reduce {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type HcomBroadcast on DNN_HCCL
  irdl.operation @hcom_broadcast {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y0_r = irdl.base "!builtin.tensor"
    %out_y0_u = irdl.base "!builtin.unranked_tensor"
    %out_y0 = irdl.any_of(%out_y0_r, %out_y0_u)
    %out_y1_r = irdl.base "!builtin.tensor"
    %out_y1_u = irdl.base "!builtin.unranked_tensor"
    %out_y1 = irdl.any_of(%out_y1_r, %out_y1_u)
    %out_y2_r = irdl.base "!builtin.tensor"
    %out_y2_u = irdl.base "!builtin.unranked_tensor"
    %out_y2 = irdl.any_of(%out_y2_r, %out_y2_u)
    %out_y3_r = irdl.base "!builtin.tensor"
    %out_y3_u = irdl.base "!builtin.unranked_tensor"
    %out_y3 = irdl.any_of(%out_y3_r, %out_y3_u)
    %out_y4_r = irdl.base "!builtin.tensor"
    %out_y4_u = irdl.base "!builtin.unranked_tensor"
    %out_y4 = irdl.any_of(%out_y4_r, %out_y4_u)
    %out_y5_r = irdl.base "!builtin.tensor"
    %out_y5_u = irdl.base "!builtin.unranked_tensor"
    %out_y5 = irdl.any_of(%out_y5_r, %out_y5_u)
    %out_y6_r = irdl.base "!builtin.tensor"
    %out_y6_u = irdl.base "!builtin.unranked_tensor"
    %out_y6 = irdl.any_of(%out_y6_r, %out_y6_u)
    %out_y7_r = irdl.base "!builtin.tensor"
    %out_y7_u = irdl.base "!builtin.unranked_tensor"
    %out_y7 = irdl.any_of(%out_y7_r, %out_y7_u)
    %out_y8_r = irdl.base "!builtin.tensor"
    %out_y8_u = irdl.base "!builtin.unranked_tensor"
    %out_y8 = irdl.any_of(%out_y8_r, %out_y8_u)
    %out_y9_r = irdl.base "!builtin.tensor"
    %out_y9_u = irdl.base "!builtin.unranked_tensor"
    %out_y9 = irdl.any_of(%out_y9_r, %out_y9_u)
    %out_y10_r = irdl.base "!builtin.tensor"
    %out_y10_u = irdl.base "!builtin.unranked_tensor"
    %out_y10 = irdl.any_of(%out_y10_r, %out_y10_u)
    %out_y11_r = irdl.base "!builtin.tensor"
    %out_y11_u = irdl.base "!builtin.unranked_tensor"
    %out_y11 = irdl.any_of(%out_y11_r, %out_y11_u)
    %out_y12_r = irdl.base "!builtin.tensor"
    %out_y12_u = irdl.base "!builtin.unranked_tensor"
    %out_y12 = irdl.any_of(%out_y12_r, %out_y12_u)
    %out_y13_r = irdl.base "!builtin.tensor"
    %out_y13_u = irdl.base "!builtin.unranked_tensor"
    %out_y13 = irdl.any_of(%out_y13_r, %out_y13_u)
    %out_y14_r = irdl.base "!builtin.tensor"
    %out_y14_u = irdl.base "!builtin.unranked_tensor"
    %out_y14 = irdl.any_of(%out_y14_r, %out_y14_u)
    %out_y15_r = irdl.base "!builtin.tensor"
    %out_y15_u = irdl.base "!builtin.unranked_tensor"
    %out_y15 = irdl.any_of(%out_y15_r, %out_y15_u)
    %out_y16_r = irdl.base "!builtin.tensor"
    %out_y16_u = irdl.base "!builtin.unranked_tensor"
    %out_y16 = irdl.any_of(%out_y16_r, %out_y16_u)
    %out_y17_r = irdl.base "!builtin.tensor"
    %out_y17_u = irdl.base "!builtin.unranked_tensor"
    %out_y17 = irdl.any_of(%out_y17_r, %out_y17_u)
    %out_y18_r = irdl.base "!builtin.tensor"
    %out_y18_u = irdl.base "!builtin.unranked_tensor"
    %out_y18 = irdl.any_of(%out_y18_r, %out_y18_u)
    %out_y19_r = irdl.base "!builtin.tensor"
    %out_y19_u = irdl.base "!builtin.unranked_tensor"
    %out_y19 = irdl.any_of(%out_y19_r, %out_y19_u)
    %out_y20_r = irdl.base "!builtin.tensor"
    %out_y20_u = irdl.base "!builtin.unranked_tensor"
    %out_y20 = irdl.any_of(%out_y20_r, %out_y20_u)
    %out_y21_r = irdl.base "!builtin.tensor"
    %out_y21_u = irdl.base "!builtin.unranked_tensor"
    %out_y21 = irdl.any_of(%out_y21_r, %out_y21_u)
    %out_y22_r = irdl.base "!builtin.tensor"
    %out_y22_u = irdl.base "!builtin.unranked_tensor"
    %out_y22 = irdl.any_of(%out_y22_r, %out_y22_u)
    %out_y23_r = irdl.base "!builtin.tensor"
    %out_y23_u = irdl.base "!builtin.unranked_tensor"
    %out_y23 = irdl.any_of(%out_y23_r, %out_y23_u)
    %out_y24_r = irdl.base "!builtin.tensor"
    %out_y24_u = irdl.base "!builtin.unranked_tensor"
    %out_y24 = irdl.any_of(%out_y24_r, %out_y24_u)
    %out_y25_r = irdl.base "!builtin.tensor"
    %out_y25_u = irdl.base "!builtin.unranked_tensor"
    %out_y25 = irdl.any_of(%out_y25_r, %out_y25_u)
    %out_y26_r = irdl.base "!builtin.tensor"
    %out_y26_u = irdl.base "!builtin.unranked_tensor"
    %out_y26 = irdl.any_of(%out_y26_r, %out_y26_u)
    %out_y27_r = irdl.base "!builtin.tensor"
    %out_y27_u = irdl.base "!builtin.unranked_tensor"
    %out_y27 = irdl.any_of(%out_y27_r, %out_y27_u)
    %out_y28_r = irdl.base "!builtin.tensor"
    %out_y28_u = irdl.base "!builtin.unranked_tensor"
    %out_y28 = irdl.any_of(%out_y28_r, %out_y28_u)
    %out_y29_r = irdl.base "!builtin.tensor"
    %out_y29_u = irdl.base "!builtin.unranked_tensor"
    %out_y29 = irdl.any_of(%out_y29_r, %out_y29_u)
    %out_y30_r = irdl.base "!builtin.tensor"
    %out_y30_u = irdl.base "!builtin.unranked_tensor"
    %out_y30 = irdl.any_of(%out_y30_r, %out_y30_u)
    %out_y31_r = irdl.base "!builtin.tensor"
    %out_y31_u = irdl.base "!builtin.unranked_tensor"
    %out_y31 = irdl.any_of(%out_y31_r, %out_y31_u)
    %out_y_rest_r = irdl.base "!builtin.tensor"
    %out_y_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_y_rest = irdl.any_of(%out_y_rest_r, %out_y_rest_u)
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y0: optional %out_y0, y1: optional %out_y1, y2: optional %out_y2, y3: optional %out_y3, y4: optional %out_y4, y5: optional %out_y5, y6: optional %out_y6, y7: optional %out_y7, y8: optional %out_y8, y9: optional %out_y9, y10: optional %out_y10, y11: optional %out_y11, y12: optional %out_y12, y13: optional %out_y13, y14: optional %out_y14, y15: optional %out_y15, y16: optional %out_y16, y17: optional %out_y17, y18: optional %out_y18, y19: optional %out_y19, y20: optional %out_y20, y21: optional %out_y21, y22: optional %out_y22, y23: optional %out_y23, y24: optional %out_y24, y25: optional %out_y25, y26: optional %out_y26, y27: optional %out_y27, y28: optional %out_y28, y29: optional %out_y29, y30: optional %out_y30, y31: optional %out_y31, y_rest: variadic %out_y_rest, ctrl: %ctrl)
  }

  // GE type HcomAllGather on DNN_HCCL
  irdl.operation @hcom_all_gather {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type HcomReduceScatter on DNN_HCCL
  irdl.operation @hcom_reduce_scatter {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type If on DNN_VM_GE_LOCAL
  irdl.operation @if {
    %ctrl = irdl.base @ascend::@ctrl
    %in_cond_r = irdl.base "!builtin.tensor"
    %in_cond_u = irdl.base "!builtin.unranked_tensor"
    %in_cond = irdl.any_of(%in_cond_r, %in_cond_u)
    %in_input0_r = irdl.base "!builtin.tensor"
    %in_input0_u = irdl.base "!builtin.unranked_tensor"
    %in_input0 = irdl.any_of(%in_input0_r, %in_input0_u)
    %in_input1_r = irdl.base "!builtin.tensor"
    %in_input1_u = irdl.base "!builtin.unranked_tensor"
    %in_input1 = irdl.any_of(%in_input1_r, %in_input1_u)
    %in_input2_r = irdl.base "!builtin.tensor"
    %in_input2_u = irdl.base "!builtin.unranked_tensor"
    %in_input2 = irdl.any_of(%in_input2_r, %in_input2_u)
    %in_input3_r = irdl.base "!builtin.tensor"
    %in_input3_u = irdl.base "!builtin.unranked_tensor"
    %in_input3 = irdl.any_of(%in_input3_r, %in_input3_u)
    %in_input4_r = irdl.base "!builtin.tensor"
    %in_input4_u = irdl.base "!builtin.unranked_tensor"
    %in_input4 = irdl.any_of(%in_input4_r, %in_input4_u)
    %in_input5_r = irdl.base "!builtin.tensor"
    %in_input5_u = irdl.base "!builtin.unranked_tensor"
    %in_input5 = irdl.any_of(%in_input5_r, %in_input5_u)
    %in_input6_r = irdl.base "!builtin.tensor"
    %in_input6_u = irdl.base "!builtin.unranked_tensor"
    %in_input6 = irdl.any_of(%in_input6_r, %in_input6_u)
    %in_input7_r = irdl.base "!builtin.tensor"
    %in_input7_u = irdl.base "!builtin.unranked_tensor"
    %in_input7 = irdl.any_of(%in_input7_r, %in_input7_u)
    %in_input8_r = irdl.base "!builtin.tensor"
    %in_input8_u = irdl.base "!builtin.unranked_tensor"
    %in_input8 = irdl.any_of(%in_input8_r, %in_input8_u)
    %in_input9_r = irdl.base "!builtin.tensor"
    %in_input9_u = irdl.base "!builtin.unranked_tensor"
    %in_input9 = irdl.any_of(%in_input9_r, %in_input9_u)
    %in_input10_r = irdl.base "!builtin.tensor"
    %in_input10_u = irdl.base "!builtin.unranked_tensor"
    %in_input10 = irdl.any_of(%in_input10_r, %in_input10_u)
    %in_input11_r = irdl.base "!builtin.tensor"
    %in_input11_u = irdl.base "!builtin.unranked_tensor"
    %in_input11 = irdl.any_of(%in_input11_r, %in_input11_u)
    %in_input12_r = irdl.base "!builtin.tensor"
    %in_input12_u = irdl.base "!builtin.unranked_tensor"
    %in_input12 = irdl.any_of(%in_input12_r, %in_input12_u)
    %in_input13_r = irdl.base "!builtin.tensor"
    %in_input13_u = irdl.base "!builtin.unranked_tensor"
    %in_input13 = irdl.any_of(%in_input13_r, %in_input13_u)
    %in_input14_r = irdl.base "!builtin.tensor"
    %in_input14_u = irdl.base "!builtin.unranked_tensor"
    %in_input14 = irdl.any_of(%in_input14_r, %in_input14_u)
    %in_input15_r = irdl.base "!builtin.tensor"
    %in_input15_u = irdl.base "!builtin.unranked_tensor"
    %in_input15 = irdl.any_of(%in_input15_r, %in_input15_u)
    %in_input16_r = irdl.base "!builtin.tensor"
    %in_input16_u = irdl.base "!builtin.unranked_tensor"
    %in_input16 = irdl.any_of(%in_input16_r, %in_input16_u)
    %in_input17_r = irdl.base "!builtin.tensor"
    %in_input17_u = irdl.base "!builtin.unranked_tensor"
    %in_input17 = irdl.any_of(%in_input17_r, %in_input17_u)
    %in_input18_r = irdl.base "!builtin.tensor"
    %in_input18_u = irdl.base "!builtin.unranked_tensor"
    %in_input18 = irdl.any_of(%in_input18_r, %in_input18_u)
    %in_input19_r = irdl.base "!builtin.tensor"
    %in_input19_u = irdl.base "!builtin.unranked_tensor"
    %in_input19 = irdl.any_of(%in_input19_r, %in_input19_u)
    %in_input20_r = irdl.base "!builtin.tensor"
    %in_input20_u = irdl.base "!builtin.unranked_tensor"
    %in_input20 = irdl.any_of(%in_input20_r, %in_input20_u)
    %in_input21_r = irdl.base "!builtin.tensor"
    %in_input21_u = irdl.base "!builtin.unranked_tensor"
    %in_input21 = irdl.any_of(%in_input21_r, %in_input21_u)
    %in_input22_r = irdl.base "!builtin.tensor"
    %in_input22_u = irdl.base "!builtin.unranked_tensor"
    %in_input22 = irdl.any_of(%in_input22_r, %in_input22_u)
    %in_input23_r = irdl.base "!builtin.tensor"
    %in_input23_u = irdl.base "!builtin.unranked_tensor"
    %in_input23 = irdl.any_of(%in_input23_r, %in_input23_u)
    %in_input24_r = irdl.base "!builtin.tensor"
    %in_input24_u = irdl.base "!builtin.unranked_tensor"
    %in_input24 = irdl.any_of(%in_input24_r, %in_input24_u)
    %in_input25_r = irdl.base "!builtin.tensor"
    %in_input25_u = irdl.base "!builtin.unranked_tensor"
    %in_input25 = irdl.any_of(%in_input25_r, %in_input25_u)
    %in_input26_r = irdl.base "!builtin.tensor"
    %in_input26_u = irdl.base "!builtin.unranked_tensor"
    %in_input26 = irdl.any_of(%in_input26_r, %in_input26_u)
    %in_input27_r = irdl.base "!builtin.tensor"
    %in_input27_u = irdl.base "!builtin.unranked_tensor"
    %in_input27 = irdl.any_of(%in_input27_r, %in_input27_u)
    %in_input28_r = irdl.base "!builtin.tensor"
    %in_input28_u = irdl.base "!builtin.unranked_tensor"
    %in_input28 = irdl.any_of(%in_input28_r, %in_input28_u)
    %in_input29_r = irdl.base "!builtin.tensor"
    %in_input29_u = irdl.base "!builtin.unranked_tensor"
    %in_input29 = irdl.any_of(%in_input29_r, %in_input29_u)
    %in_input30_r = irdl.base "!builtin.tensor"
    %in_input30_u = irdl.base "!builtin.unranked_tensor"
    %in_input30 = irdl.any_of(%in_input30_r, %in_input30_u)
    %in_input31_r = irdl.base "!builtin.tensor"
    %in_input31_u = irdl.base "!builtin.unranked_tensor"
    %in_input31 = irdl.any_of(%in_input31_r, %in_input31_u)
    %in_input_rest_r = irdl.base "!builtin.tensor"
    %in_input_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_input_rest = irdl.any_of(%in_input_rest_r, %in_input_rest_u)
    %out_output0_r = irdl.base "!builtin.tensor"
    %out_output0_u = irdl.base "!builtin.unranked_tensor"
    %out_output0 = irdl.any_of(%out_output0_r, %out_output0_u)
    %out_output1_r = irdl.base "!builtin.tensor"
    %out_output1_u = irdl.base "!builtin.unranked_tensor"
    %out_output1 = irdl.any_of(%out_output1_r, %out_output1_u)
    %out_output2_r = irdl.base "!builtin.tensor"
    %out_output2_u = irdl.base "!builtin.unranked_tensor"
    %out_output2 = irdl.any_of(%out_output2_r, %out_output2_u)
    %out_output3_r = irdl.base "!builtin.tensor"
    %out_output3_u = irdl.base "!builtin.unranked_tensor"
    %out_output3 = irdl.any_of(%out_output3_r, %out_output3_u)
    %out_output4_r = irdl.base "!builtin.tensor"
    %out_output4_u = irdl.base "!builtin.unranked_tensor"
    %out_output4 = irdl.any_of(%out_output4_r, %out_output4_u)
    %out_output5_r = irdl.base "!builtin.tensor"
    %out_output5_u = irdl.base "!builtin.unranked_tensor"
    %out_output5 = irdl.any_of(%out_output5_r, %out_output5_u)
    %out_output6_r = irdl.base "!builtin.tensor"
    %out_output6_u = irdl.base "!builtin.unranked_tensor"
    %out_output6 = irdl.any_of(%out_output6_r, %out_output6_u)
    %out_output7_r = irdl.base "!builtin.tensor"
    %out_output7_u = irdl.base "!builtin.unranked_tensor"
    %out_output7 = irdl.any_of(%out_output7_r, %out_output7_u)
    %out_output8_r = irdl.base "!builtin.tensor"
    %out_output8_u = irdl.base "!builtin.unranked_tensor"
    %out_output8 = irdl.any_of(%out_output8_r, %out_output8_u)
    %out_output9_r = irdl.base "!builtin.tensor"
    %out_output9_u = irdl.base "!builtin.unranked_tensor"
    %out_output9 = irdl.any_of(%out_output9_r, %out_output9_u)
    %out_output10_r = irdl.base "!builtin.tensor"
    %out_output10_u = irdl.base "!builtin.unranked_tensor"
    %out_output10 = irdl.any_of(%out_output10_r, %out_output10_u)
    %out_output11_r = irdl.base "!builtin.tensor"
    %out_output11_u = irdl.base "!builtin.unranked_tensor"
    %out_output11 = irdl.any_of(%out_output11_r, %out_output11_u)
    %out_output12_r = irdl.base "!builtin.tensor"
    %out_output12_u = irdl.base "!builtin.unranked_tensor"
    %out_output12 = irdl.any_of(%out_output12_r, %out_output12_u)
    %out_output13_r = irdl.base "!builtin.tensor"
    %out_output13_u = irdl.base "!builtin.unranked_tensor"
    %out_output13 = irdl.any_of(%out_output13_r, %out_output13_u)
    %out_output14_r = irdl.base "!builtin.tensor"
    %out_output14_u = irdl.base "!builtin.unranked_tensor"
    %out_output14 = irdl.any_of(%out_output14_r, %out_output14_u)
    %out_output15_r = irdl.base "!builtin.tensor"
    %out_output15_u = irdl.base "!builtin.unranked_tensor"
    %out_output15 = irdl.any_of(%out_output15_r, %out_output15_u)
    %out_output16_r = irdl.base "!builtin.tensor"
    %out_output16_u = irdl.base "!builtin.unranked_tensor"
    %out_output16 = irdl.any_of(%out_output16_r, %out_output16_u)
    %out_output17_r = irdl.base "!builtin.tensor"
    %out_output17_u = irdl.base "!builtin.unranked_tensor"
    %out_output17 = irdl.any_of(%out_output17_r, %out_output17_u)
    %out_output18_r = irdl.base "!builtin.tensor"
    %out_output18_u = irdl.base "!builtin.unranked_tensor"
    %out_output18 = irdl.any_of(%out_output18_r, %out_output18_u)
    %out_output19_r = irdl.base "!builtin.tensor"
    %out_output19_u = irdl.base "!builtin.unranked_tensor"
    %out_output19 = irdl.any_of(%out_output19_r, %out_output19_u)
    %out_output20_r = irdl.base "!builtin.tensor"
    %out_output20_u = irdl.base "!builtin.unranked_tensor"
    %out_output20 = irdl.any_of(%out_output20_r, %out_output20_u)
    %out_output21_r = irdl.base "!builtin.tensor"
    %out_output21_u = irdl.base "!builtin.unranked_tensor"
    %out_output21 = irdl.any_of(%out_output21_r, %out_output21_u)
    %out_output22_r = irdl.base "!builtin.tensor"
    %out_output22_u = irdl.base "!builtin.unranked_tensor"
    %out_output22 = irdl.any_of(%out_output22_r, %out_output22_u)
    %out_output23_r = irdl.base "!builtin.tensor"
    %out_output23_u = irdl.base "!builtin.unranked_tensor"
    %out_output23 = irdl.any_of(%out_output23_r, %out_output23_u)
    %out_output24_r = irdl.base "!builtin.tensor"
    %out_output24_u = irdl.base "!builtin.unranked_tensor"
    %out_output24 = irdl.any_of(%out_output24_r, %out_output24_u)
    %out_output25_r = irdl.base "!builtin.tensor"
    %out_output25_u = irdl.base "!builtin.unranked_tensor"
    %out_output25 = irdl.any_of(%out_output25_r, %out_output25_u)
    %out_output26_r = irdl.base "!builtin.tensor"
    %out_output26_u = irdl.base "!builtin.unranked_tensor"
    %out_output26 = irdl.any_of(%out_output26_r, %out_output26_u)
    %out_output27_r = irdl.base "!builtin.tensor"
    %out_output27_u = irdl.base "!builtin.unranked_tensor"
    %out_output27 = irdl.any_of(%out_output27_r, %out_output27_u)
    %out_output28_r = irdl.base "!builtin.tensor"
    %out_output28_u = irdl.base "!builtin.unranked_tensor"
    %out_output28 = irdl.any_of(%out_output28_r, %out_output28_u)
    %out_output29_r = irdl.base "!builtin.tensor"
    %out_output29_u = irdl.base "!builtin.unranked_tensor"
    %out_output29 = irdl.any_of(%out_output29_r, %out_output29_u)
    %out_output30_r = irdl.base "!builtin.tensor"
    %out_output30_u = irdl.base "!builtin.unranked_tensor"
    %out_output30 = irdl.any_of(%out_output30_r, %out_output30_u)
    %out_output31_r = irdl.base "!builtin.tensor"
    %out_output31_u = irdl.base "!builtin.unranked_tensor"
    %out_output31 = irdl.any_of(%out_output31_r, %out_output31_u)
    %out_output_rest_r = irdl.base "!builtin.tensor"
    %out_output_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_output_rest = irdl.any_of(%out_output_rest_r, %out_output_rest_u)
    %attr_then_branch = irdl.base "#builtin.symbol_ref"
    %attr_else_branch = irdl.base "#builtin.symbol_ref"
    irdl.operands(cond: %in_cond, input0: optional %in_input0, input1: optional %in_input1, input2: optional %in_input2, input3: optional %in_input3, input4: optional %in_input4, input5: optional %in_input5, input6: optional %in_input6, input7: optional %in_input7, input8: optional %in_input8, input9: optional %in_input9, input10: optional %in_input10, input11: optional %in_input11, input12: optional %in_input12, input13: optional %in_input13, input14: optional %in_input14, input15: optional %in_input15, input16: optional %in_input16, input17: optional %in_input17, input18: optional %in_input18, input19: optional %in_input19, input20: optional %in_input20, input21: optional %in_input21, input22: optional %in_input22, input23: optional %in_input23, input24: optional %in_input24, input25: optional %in_input25, input26: optional %in_input26, input27: optional %in_input27, input28: optional %in_input28, input29: optional %in_input29, input30: optional %in_input30, input31: optional %in_input31, input_rest: variadic %in_input_rest, ctrl_in: variadic %ctrl)
    irdl.results(output0: optional %out_output0, output1: optional %out_output1, output2: optional %out_output2, output3: optional %out_output3, output4: optional %out_output4, output5: optional %out_output5, output6: optional %out_output6, output7: optional %out_output7, output8: optional %out_output8, output9: optional %out_output9, output10: optional %out_output10, output11: optional %out_output11, output12: optional %out_output12, output13: optional %out_output13, output14: optional %out_output14, output15: optional %out_output15, output16: optional %out_output16, output17: optional %out_output17, output18: optional %out_output18, output19: optional %out_output19, output20: optional %out_output20, output21: optional %out_output21, output22: optional %out_output22, output23: optional %out_output23, output24: optional %out_output24, output25: optional %out_output25, output26: optional %out_output26, output27: optional %out_output27, output28: optional %out_output28, output29: optional %out_output29, output30: optional %out_output30, output31: optional %out_output31, output_rest: variadic %out_output_rest, ctrl: %ctrl)
    irdl.attributes {"then_branch" = %attr_then_branch, "else_branch" = %attr_else_branch}
  }

  // GE type Case on DNN_VM_GE_LOCAL
  irdl.operation @case {
    %ctrl = irdl.base @ascend::@ctrl
    %in_branch_index_r = irdl.base "!builtin.tensor"
    %in_branch_index_u = irdl.base "!builtin.unranked_tensor"
    %in_branch_index = irdl.any_of(%in_branch_index_r, %in_branch_index_u)
    %in_input0_r = irdl.base "!builtin.tensor"
    %in_input0_u = irdl.base "!builtin.unranked_tensor"
    %in_input0 = irdl.any_of(%in_input0_r, %in_input0_u)
    %in_input1_r = irdl.base "!builtin.tensor"
    %in_input1_u = irdl.base "!builtin.unranked_tensor"
    %in_input1 = irdl.any_of(%in_input1_r, %in_input1_u)
    %in_input2_r = irdl.base "!builtin.tensor"
    %in_input2_u = irdl.base "!builtin.unranked_tensor"
    %in_input2 = irdl.any_of(%in_input2_r, %in_input2_u)
    %in_input3_r = irdl.base "!builtin.tensor"
    %in_input3_u = irdl.base "!builtin.unranked_tensor"
    %in_input3 = irdl.any_of(%in_input3_r, %in_input3_u)
    %in_input4_r = irdl.base "!builtin.tensor"
    %in_input4_u = irdl.base "!builtin.unranked_tensor"
    %in_input4 = irdl.any_of(%in_input4_r, %in_input4_u)
    %in_input5_r = irdl.base "!builtin.tensor"
    %in_input5_u = irdl.base "!builtin.unranked_tensor"
    %in_input5 = irdl.any_of(%in_input5_r, %in_input5_u)
    %in_input6_r = irdl.base "!builtin.tensor"
    %in_input6_u = irdl.base "!builtin.unranked_tensor"
    %in_input6 = irdl.any_of(%in_input6_r, %in_input6_u)
    %in_input7_r = irdl.base "!builtin.tensor"
    %in_input7_u = irdl.base "!builtin.unranked_tensor"
    %in_input7 = irdl.any_of(%in_input7_r, %in_input7_u)
    %in_input8_r = irdl.base "!builtin.tensor"
    %in_input8_u = irdl.base "!builtin.unranked_tensor"
    %in_input8 = irdl.any_of(%in_input8_r, %in_input8_u)
    %in_input9_r = irdl.base "!builtin.tensor"
    %in_input9_u = irdl.base "!builtin.unranked_tensor"
    %in_input9 = irdl.any_of(%in_input9_r, %in_input9_u)
    %in_input10_r = irdl.base "!builtin.tensor"
    %in_input10_u = irdl.base "!builtin.unranked_tensor"
    %in_input10 = irdl.any_of(%in_input10_r, %in_input10_u)
    %in_input11_r = irdl.base "!builtin.tensor"
    %in_input11_u = irdl.base "!builtin.unranked_tensor"
    %in_input11 = irdl.any_of(%in_input11_r, %in_input11_u)
    %in_input12_r = irdl.base "!builtin.tensor"
    %in_input12_u = irdl.base "!builtin.unranked_tensor"
    %in_input12 = irdl.any_of(%in_input12_r, %in_input12_u)
    %in_input13_r = irdl.base "!builtin.tensor"
    %in_input13_u = irdl.base "!builtin.unranked_tensor"
    %in_input13 = irdl.any_of(%in_input13_r, %in_input13_u)
    %in_input14_r = irdl.base "!builtin.tensor"
    %in_input14_u = irdl.base "!builtin.unranked_tensor"
    %in_input14 = irdl.any_of(%in_input14_r, %in_input14_u)
    %in_input15_r = irdl.base "!builtin.tensor"
    %in_input15_u = irdl.base "!builtin.unranked_tensor"
    %in_input15 = irdl.any_of(%in_input15_r, %in_input15_u)
    %in_input16_r = irdl.base "!builtin.tensor"
    %in_input16_u = irdl.base "!builtin.unranked_tensor"
    %in_input16 = irdl.any_of(%in_input16_r, %in_input16_u)
    %in_input17_r = irdl.base "!builtin.tensor"
    %in_input17_u = irdl.base "!builtin.unranked_tensor"
    %in_input17 = irdl.any_of(%in_input17_r, %in_input17_u)
    %in_input18_r = irdl.base "!builtin.tensor"
    %in_input18_u = irdl.base "!builtin.unranked_tensor"
    %in_input18 = irdl.any_of(%in_input18_r, %in_input18_u)
    %in_input19_r = irdl.base "!builtin.tensor"
    %in_input19_u = irdl.base "!builtin.unranked_tensor"
    %in_input19 = irdl.any_of(%in_input19_r, %in_input19_u)
    %in_input20_r = irdl.base "!builtin.tensor"
    %in_input20_u = irdl.base "!builtin.unranked_tensor"
    %in_input20 = irdl.any_of(%in_input20_r, %in_input20_u)
    %in_input21_r = irdl.base "!builtin.tensor"
    %in_input21_u = irdl.base "!builtin.unranked_tensor"
    %in_input21 = irdl.any_of(%in_input21_r, %in_input21_u)
    %in_input22_r = irdl.base "!builtin.tensor"
    %in_input22_u = irdl.base "!builtin.unranked_tensor"
    %in_input22 = irdl.any_of(%in_input22_r, %in_input22_u)
    %in_input23_r = irdl.base "!builtin.tensor"
    %in_input23_u = irdl.base "!builtin.unranked_tensor"
    %in_input23 = irdl.any_of(%in_input23_r, %in_input23_u)
    %in_input24_r = irdl.base "!builtin.tensor"
    %in_input24_u = irdl.base "!builtin.unranked_tensor"
    %in_input24 = irdl.any_of(%in_input24_r, %in_input24_u)
    %in_input25_r = irdl.base "!builtin.tensor"
    %in_input25_u = irdl.base "!builtin.unranked_tensor"
    %in_input25 = irdl.any_of(%in_input25_r, %in_input25_u)
    %in_input26_r = irdl.base "!builtin.tensor"
    %in_input26_u = irdl.base "!builtin.unranked_tensor"
    %in_input26 = irdl.any_of(%in_input26_r, %in_input26_u)
    %in_input27_r = irdl.base "!builtin.tensor"
    %in_input27_u = irdl.base "!builtin.unranked_tensor"
    %in_input27 = irdl.any_of(%in_input27_r, %in_input27_u)
    %in_input28_r = irdl.base "!builtin.tensor"
    %in_input28_u = irdl.base "!builtin.unranked_tensor"
    %in_input28 = irdl.any_of(%in_input28_r, %in_input28_u)
    %in_input29_r = irdl.base "!builtin.tensor"
    %in_input29_u = irdl.base "!builtin.unranked_tensor"
    %in_input29 = irdl.any_of(%in_input29_r, %in_input29_u)
    %in_input30_r = irdl.base "!builtin.tensor"
    %in_input30_u = irdl.base "!builtin.unranked_tensor"
    %in_input30 = irdl.any_of(%in_input30_r, %in_input30_u)
    %in_input31_r = irdl.base "!builtin.tensor"
    %in_input31_u = irdl.base "!builtin.unranked_tensor"
    %in_input31 = irdl.any_of(%in_input31_r, %in_input31_u)
    %in_input_rest_r = irdl.base "!builtin.tensor"
    %in_input_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_input_rest = irdl.any_of(%in_input_rest_r, %in_input_rest_u)
    %out_output0_r = irdl.base "!builtin.tensor"
    %out_output0_u = irdl.base "!builtin.unranked_tensor"
    %out_output0 = irdl.any_of(%out_output0_r, %out_output0_u)
    %out_output1_r = irdl.base "!builtin.tensor"
    %out_output1_u = irdl.base "!builtin.unranked_tensor"
    %out_output1 = irdl.any_of(%out_output1_r, %out_output1_u)
    %out_output2_r = irdl.base "!builtin.tensor"
    %out_output2_u = irdl.base "!builtin.unranked_tensor"
    %out_output2 = irdl.any_of(%out_output2_r, %out_output2_u)
    %out_output3_r = irdl.base "!builtin.tensor"
    %out_output3_u = irdl.base "!builtin.unranked_tensor"
    %out_output3 = irdl.any_of(%out_output3_r, %out_output3_u)
    %out_output4_r = irdl.base "!builtin.tensor"
    %out_output4_u = irdl.base "!builtin.unranked_tensor"
    %out_output4 = irdl.any_of(%out_output4_r, %out_output4_u)
    %out_output5_r = irdl.base "!builtin.tensor"
    %out_output5_u = irdl.base "!builtin.unranked_tensor"
    %out_output5 = irdl.any_of(%out_output5_r, %out_output5_u)
    %out_output6_r = irdl.base "!builtin.tensor"
    %out_output6_u = irdl.base "!builtin.unranked_tensor"
    %out_output6 = irdl.any_of(%out_output6_r, %out_output6_u)
    %out_output7_r = irdl.base "!builtin.tensor"
    %out_output7_u = irdl.base "!builtin.unranked_tensor"
    %out_output7 = irdl.any_of(%out_output7_r, %out_output7_u)
    %out_output8_r = irdl.base "!builtin.tensor"
    %out_output8_u = irdl.base "!builtin.unranked_tensor"
    %out_output8 = irdl.any_of(%out_output8_r, %out_output8_u)
    %out_output9_r = irdl.base "!builtin.tensor"
    %out_output9_u = irdl.base "!builtin.unranked_tensor"
    %out_output9 = irdl.any_of(%out_output9_r, %out_output9_u)
    %out_output10_r = irdl.base "!builtin.tensor"
    %out_output10_u = irdl.base "!builtin.unranked_tensor"
    %out_output10 = irdl.any_of(%out_output10_r, %out_output10_u)
    %out_output11_r = irdl.base "!builtin.tensor"
    %out_output11_u = irdl.base "!builtin.unranked_tensor"
    %out_output11 = irdl.any_of(%out_output11_r, %out_output11_u)
    %out_output12_r = irdl.base "!builtin.tensor"
    %out_output12_u = irdl.base "!builtin.unranked_tensor"
    %out_output12 = irdl.any_of(%out_output12_r, %out_output12_u)
    %out_output13_r = irdl.base "!builtin.tensor"
    %out_output13_u = irdl.base "!builtin.unranked_tensor"
    %out_output13 = irdl.any_of(%out_output13_r, %out_output13_u)
    %out_output14_r = irdl.base "!builtin.tensor"
    %out_output14_u = irdl.base "!builtin.unranked_tensor"
    %out_output14 = irdl.any_of(%out_output14_r, %out_output14_u)
    %out_output15_r = irdl.base "!builtin.tensor"
    %out_output15_u = irdl.base "!builtin.unranked_tensor"
    %out_output15 = irdl.any_of(%out_output15_r, %out_output15_u)
    %out_output16_r = irdl.base "!builtin.tensor"
    %out_output16_u = irdl.base "!builtin.unranked_tensor"
    %out_output16 = irdl.any_of(%out_output16_r, %out_output16_u)
    %out_output17_r = irdl.base "!builtin.tensor"
    %out_output17_u = irdl.base "!builtin.unranked_tensor"
    %out_output17 = irdl.any_of(%out_output17_r, %out_output17_u)
    %out_output18_r = irdl.base "!builtin.tensor"
    %out_output18_u = irdl.base "!builtin.unranked_tensor"
    %out_output18 = irdl.any_of(%out_output18_r, %out_output18_u)
    %out_output19_r = irdl.base "!builtin.tensor"
    %out_output19_u = irdl.base "!builtin.unranked_tensor"
    %out_output19 = irdl.any_of(%out_output19_r, %out_output19_u)
    %out_output20_r = irdl.base "!builtin.tensor"
    %out_output20_u = irdl.base "!builtin.unranked_tensor"
    %out_output20 = irdl.any_of(%out_output20_r, %out_output20_u)
    %out_output21_r = irdl.base "!builtin.tensor"
    %out_output21_u = irdl.base "!builtin.unranked_tensor"
    %out_output21 = irdl.any_of(%out_output21_r, %out_output21_u)
    %out_output22_r = irdl.base "!builtin.tensor"
    %out_output22_u = irdl.base "!builtin.unranked_tensor"
    %out_output22 = irdl.any_of(%out_output22_r, %out_output22_u)
    %out_output23_r = irdl.base "!builtin.tensor"
    %out_output23_u = irdl.base "!builtin.unranked_tensor"
    %out_output23 = irdl.any_of(%out_output23_r, %out_output23_u)
    %out_output24_r = irdl.base "!builtin.tensor"
    %out_output24_u = irdl.base "!builtin.unranked_tensor"
    %out_output24 = irdl.any_of(%out_output24_r, %out_output24_u)
    %out_output25_r = irdl.base "!builtin.tensor"
    %out_output25_u = irdl.base "!builtin.unranked_tensor"
    %out_output25 = irdl.any_of(%out_output25_r, %out_output25_u)
    %out_output26_r = irdl.base "!builtin.tensor"
    %out_output26_u = irdl.base "!builtin.unranked_tensor"
    %out_output26 = irdl.any_of(%out_output26_r, %out_output26_u)
    %out_output27_r = irdl.base "!builtin.tensor"
    %out_output27_u = irdl.base "!builtin.unranked_tensor"
    %out_output27 = irdl.any_of(%out_output27_r, %out_output27_u)
    %out_output28_r = irdl.base "!builtin.tensor"
    %out_output28_u = irdl.base "!builtin.unranked_tensor"
    %out_output28 = irdl.any_of(%out_output28_r, %out_output28_u)
    %out_output29_r = irdl.base "!builtin.tensor"
    %out_output29_u = irdl.base "!builtin.unranked_tensor"
    %out_output29 = irdl.any_of(%out_output29_r, %out_output29_u)
    %out_output30_r = irdl.base "!builtin.tensor"
    %out_output30_u = irdl.base "!builtin.unranked_tensor"
    %out_output30 = irdl.any_of(%out_output30_r, %out_output30_u)
    %out_output31_r = irdl.base "!builtin.tensor"
    %out_output31_u = irdl.base "!builtin.unranked_tensor"
    %out_output31 = irdl.any_of(%out_output31_r, %out_output31_u)
    %out_output_rest_r = irdl.base "!builtin.tensor"
    %out_output_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_output_rest = irdl.any_of(%out_output_rest_r, %out_output_rest_u)
    %attr_branches = irdl.base "#builtin.array"
    irdl.operands(branch_index: %in_branch_index, input0: optional %in_input0, input1: optional %in_input1, input2: optional %in_input2, input3: optional %in_input3, input4: optional %in_input4, input5: optional %in_input5, input6: optional %in_input6, input7: optional %in_input7, input8: optional %in_input8, input9: optional %in_input9, input10: optional %in_input10, input11: optional %in_input11, input12: optional %in_input12, input13: optional %in_input13, input14: optional %in_input14, input15: optional %in_input15, input16: optional %in_input16, input17: optional %in_input17, input18: optional %in_input18, input19: optional %in_input19, input20: optional %in_input20, input21: optional %in_input21, input22: optional %in_input22, input23: optional %in_input23, input24: optional %in_input24, input25: optional %in_input25, input26: optional %in_input26, input27: optional %in_input27, input28: optional %in_input28, input29: optional %in_input29, input30: optional %in_input30, input31: optional %in_input31, input_rest: variadic %in_input_rest, ctrl_in: variadic %ctrl)
    irdl.results(output0: optional %out_output0, output1: optional %out_output1, output2: optional %out_output2, output3: optional %out_output3, output4: optional %out_output4, output5: optional %out_output5, output6: optional %out_output6, output7: optional %out_output7, output8: optional %out_output8, output9: optional %out_output9, output10: optional %out_output10, output11: optional %out_output11, output12: optional %out_output12, output13: optional %out_output13, output14: optional %out_output14, output15: optional %out_output15, output16: optional %out_output16, output17: optional %out_output17, output18: optional %out_output18, output19: optional %out_output19, output20: optional %out_output20, output21: optional %out_output21, output22: optional %out_output22, output23: optional %out_output23, output24: optional %out_output24, output25: optional %out_output25, output26: optional %out_output26, output27: optional %out_output27, output28: optional %out_output28, output29: optional %out_output29, output30: optional %out_output30, output31: optional %out_output31, output_rest: variadic %out_output_rest, ctrl: %ctrl)
    irdl.attributes {"branches" = %attr_branches}
  }

  // GE type While on DNN_VM_GE_LOCAL
  irdl.operation @while {
    %ctrl = irdl.base @ascend::@ctrl
    %in_input0_r = irdl.base "!builtin.tensor"
    %in_input0_u = irdl.base "!builtin.unranked_tensor"
    %in_input0 = irdl.any_of(%in_input0_r, %in_input0_u)
    %in_input1_r = irdl.base "!builtin.tensor"
    %in_input1_u = irdl.base "!builtin.unranked_tensor"
    %in_input1 = irdl.any_of(%in_input1_r, %in_input1_u)
    %in_input2_r = irdl.base "!builtin.tensor"
    %in_input2_u = irdl.base "!builtin.unranked_tensor"
    %in_input2 = irdl.any_of(%in_input2_r, %in_input2_u)
    %in_input3_r = irdl.base "!builtin.tensor"
    %in_input3_u = irdl.base "!builtin.unranked_tensor"
    %in_input3 = irdl.any_of(%in_input3_r, %in_input3_u)
    %in_input4_r = irdl.base "!builtin.tensor"
    %in_input4_u = irdl.base "!builtin.unranked_tensor"
    %in_input4 = irdl.any_of(%in_input4_r, %in_input4_u)
    %in_input5_r = irdl.base "!builtin.tensor"
    %in_input5_u = irdl.base "!builtin.unranked_tensor"
    %in_input5 = irdl.any_of(%in_input5_r, %in_input5_u)
    %in_input6_r = irdl.base "!builtin.tensor"
    %in_input6_u = irdl.base "!builtin.unranked_tensor"
    %in_input6 = irdl.any_of(%in_input6_r, %in_input6_u)
    %in_input7_r = irdl.base "!builtin.tensor"
    %in_input7_u = irdl.base "!builtin.unranked_tensor"
    %in_input7 = irdl.any_of(%in_input7_r, %in_input7_u)
    %in_input8_r = irdl.base "!builtin.tensor"
    %in_input8_u = irdl.base "!builtin.unranked_tensor"
    %in_input8 = irdl.any_of(%in_input8_r, %in_input8_u)
    %in_input9_r = irdl.base "!builtin.tensor"
    %in_input9_u = irdl.base "!builtin.unranked_tensor"
    %in_input9 = irdl.any_of(%in_input9_r, %in_input9_u)
    %in_input10_r = irdl.base "!builtin.tensor"
    %in_input10_u = irdl.base "!builtin.unranked_tensor"
    %in_input10 = irdl.any_of(%in_input10_r, %in_input10_u)
    %in_input11_r = irdl.base "!builtin.tensor"
    %in_input11_u = irdl.base "!builtin.unranked_tensor"
    %in_input11 = irdl.any_of(%in_input11_r, %in_input11_u)
    %in_input12_r = irdl.base "!builtin.tensor"
    %in_input12_u = irdl.base "!builtin.unranked_tensor"
    %in_input12 = irdl.any_of(%in_input12_r, %in_input12_u)
    %in_input13_r = irdl.base "!builtin.tensor"
    %in_input13_u = irdl.base "!builtin.unranked_tensor"
    %in_input13 = irdl.any_of(%in_input13_r, %in_input13_u)
    %in_input14_r = irdl.base "!builtin.tensor"
    %in_input14_u = irdl.base "!builtin.unranked_tensor"
    %in_input14 = irdl.any_of(%in_input14_r, %in_input14_u)
    %in_input15_r = irdl.base "!builtin.tensor"
    %in_input15_u = irdl.base "!builtin.unranked_tensor"
    %in_input15 = irdl.any_of(%in_input15_r, %in_input15_u)
    %in_input16_r = irdl.base "!builtin.tensor"
    %in_input16_u = irdl.base "!builtin.unranked_tensor"
    %in_input16 = irdl.any_of(%in_input16_r, %in_input16_u)
    %in_input17_r = irdl.base "!builtin.tensor"
    %in_input17_u = irdl.base "!builtin.unranked_tensor"
    %in_input17 = irdl.any_of(%in_input17_r, %in_input17_u)
    %in_input18_r = irdl.base "!builtin.tensor"
    %in_input18_u = irdl.base "!builtin.unranked_tensor"
    %in_input18 = irdl.any_of(%in_input18_r, %in_input18_u)
    %in_input19_r = irdl.base "!builtin.tensor"
    %in_input19_u = irdl.base "!builtin.unranked_tensor"
    %in_input19 = irdl.any_of(%in_input19_r, %in_input19_u)
    %in_input20_r = irdl.base "!builtin.tensor"
    %in_input20_u = irdl.base "!builtin.unranked_tensor"
    %in_input20 = irdl.any_of(%in_input20_r, %in_input20_u)
    %in_input21_r = irdl.base "!builtin.tensor"
    %in_input21_u = irdl.base "!builtin.unranked_tensor"
    %in_input21 = irdl.any_of(%in_input21_r, %in_input21_u)
    %in_input22_r = irdl.base "!builtin.tensor"
    %in_input22_u = irdl.base "!builtin.unranked_tensor"
    %in_input22 = irdl.any_of(%in_input22_r, %in_input22_u)
    %in_input23_r = irdl.base "!builtin.tensor"
    %in_input23_u = irdl.base "!builtin.unranked_tensor"
    %in_input23 = irdl.any_of(%in_input23_r, %in_input23_u)
    %in_input24_r = irdl.base "!builtin.tensor"
    %in_input24_u = irdl.base "!builtin.unranked_tensor"
    %in_input24 = irdl.any_of(%in_input24_r, %in_input24_u)
    %in_input25_r = irdl.base "!builtin.tensor"
    %in_input25_u = irdl.base "!builtin.unranked_tensor"
    %in_input25 = irdl.any_of(%in_input25_r, %in_input25_u)
    %in_input26_r = irdl.base "!builtin.tensor"
    %in_input26_u = irdl.base "!builtin.unranked_tensor"
    %in_input26 = irdl.any_of(%in_input26_r, %in_input26_u)
    %in_input27_r = irdl.base "!builtin.tensor"
    %in_input27_u = irdl.base "!builtin.unranked_tensor"
    %in_input27 = irdl.any_of(%in_input27_r, %in_input27_u)
    %in_input28_r = irdl.base "!builtin.tensor"
    %in_input28_u = irdl.base "!builtin.unranked_tensor"
    %in_input28 = irdl.any_of(%in_input28_r, %in_input28_u)
    %in_input29_r = irdl.base "!builtin.tensor"
    %in_input29_u = irdl.base "!builtin.unranked_tensor"
    %in_input29 = irdl.any_of(%in_input29_r, %in_input29_u)
    %in_input30_r = irdl.base "!builtin.tensor"
    %in_input30_u = irdl.base "!builtin.unranked_tensor"
    %in_input30 = irdl.any_of(%in_input30_r, %in_input30_u)
    %in_input31_r = irdl.base "!builtin.tensor"
    %in_input31_u = irdl.base "!builtin.unranked_tensor"
    %in_input31 = irdl.any_of(%in_input31_r, %in_input31_u)
    %in_input_rest_r = irdl.base "!builtin.tensor"
    %in_input_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_input_rest = irdl.any_of(%in_input_rest_r, %in_input_rest_u)
    %out_output0_r = irdl.base "!builtin.tensor"
    %out_output0_u = irdl.base "!builtin.unranked_tensor"
    %out_output0 = irdl.any_of(%out_output0_r, %out_output0_u)
    %out_output1_r = irdl.base "!builtin.tensor"
    %out_output1_u = irdl.base "!builtin.unranked_tensor"
    %out_output1 = irdl.any_of(%out_output1_r, %out_output1_u)
    %out_output2_r = irdl.base "!builtin.tensor"
    %out_output2_u = irdl.base "!builtin.unranked_tensor"
    %out_output2 = irdl.any_of(%out_output2_r, %out_output2_u)
    %out_output3_r = irdl.base "!builtin.tensor"
    %out_output3_u = irdl.base "!builtin.unranked_tensor"
    %out_output3 = irdl.any_of(%out_output3_r, %out_output3_u)
    %out_output4_r = irdl.base "!builtin.tensor"
    %out_output4_u = irdl.base "!builtin.unranked_tensor"
    %out_output4 = irdl.any_of(%out_output4_r, %out_output4_u)
    %out_output5_r = irdl.base "!builtin.tensor"
    %out_output5_u = irdl.base "!builtin.unranked_tensor"
    %out_output5 = irdl.any_of(%out_output5_r, %out_output5_u)
    %out_output6_r = irdl.base "!builtin.tensor"
    %out_output6_u = irdl.base "!builtin.unranked_tensor"
    %out_output6 = irdl.any_of(%out_output6_r, %out_output6_u)
    %out_output7_r = irdl.base "!builtin.tensor"
    %out_output7_u = irdl.base "!builtin.unranked_tensor"
    %out_output7 = irdl.any_of(%out_output7_r, %out_output7_u)
    %out_output8_r = irdl.base "!builtin.tensor"
    %out_output8_u = irdl.base "!builtin.unranked_tensor"
    %out_output8 = irdl.any_of(%out_output8_r, %out_output8_u)
    %out_output9_r = irdl.base "!builtin.tensor"
    %out_output9_u = irdl.base "!builtin.unranked_tensor"
    %out_output9 = irdl.any_of(%out_output9_r, %out_output9_u)
    %out_output10_r = irdl.base "!builtin.tensor"
    %out_output10_u = irdl.base "!builtin.unranked_tensor"
    %out_output10 = irdl.any_of(%out_output10_r, %out_output10_u)
    %out_output11_r = irdl.base "!builtin.tensor"
    %out_output11_u = irdl.base "!builtin.unranked_tensor"
    %out_output11 = irdl.any_of(%out_output11_r, %out_output11_u)
    %out_output12_r = irdl.base "!builtin.tensor"
    %out_output12_u = irdl.base "!builtin.unranked_tensor"
    %out_output12 = irdl.any_of(%out_output12_r, %out_output12_u)
    %out_output13_r = irdl.base "!builtin.tensor"
    %out_output13_u = irdl.base "!builtin.unranked_tensor"
    %out_output13 = irdl.any_of(%out_output13_r, %out_output13_u)
    %out_output14_r = irdl.base "!builtin.tensor"
    %out_output14_u = irdl.base "!builtin.unranked_tensor"
    %out_output14 = irdl.any_of(%out_output14_r, %out_output14_u)
    %out_output15_r = irdl.base "!builtin.tensor"
    %out_output15_u = irdl.base "!builtin.unranked_tensor"
    %out_output15 = irdl.any_of(%out_output15_r, %out_output15_u)
    %out_output16_r = irdl.base "!builtin.tensor"
    %out_output16_u = irdl.base "!builtin.unranked_tensor"
    %out_output16 = irdl.any_of(%out_output16_r, %out_output16_u)
    %out_output17_r = irdl.base "!builtin.tensor"
    %out_output17_u = irdl.base "!builtin.unranked_tensor"
    %out_output17 = irdl.any_of(%out_output17_r, %out_output17_u)
    %out_output18_r = irdl.base "!builtin.tensor"
    %out_output18_u = irdl.base "!builtin.unranked_tensor"
    %out_output18 = irdl.any_of(%out_output18_r, %out_output18_u)
    %out_output19_r = irdl.base "!builtin.tensor"
    %out_output19_u = irdl.base "!builtin.unranked_tensor"
    %out_output19 = irdl.any_of(%out_output19_r, %out_output19_u)
    %out_output20_r = irdl.base "!builtin.tensor"
    %out_output20_u = irdl.base "!builtin.unranked_tensor"
    %out_output20 = irdl.any_of(%out_output20_r, %out_output20_u)
    %out_output21_r = irdl.base "!builtin.tensor"
    %out_output21_u = irdl.base "!builtin.unranked_tensor"
    %out_output21 = irdl.any_of(%out_output21_r, %out_output21_u)
    %out_output22_r = irdl.base "!builtin.tensor"
    %out_output22_u = irdl.base "!builtin.unranked_tensor"
    %out_output22 = irdl.any_of(%out_output22_r, %out_output22_u)
    %out_output23_r = irdl.base "!builtin.tensor"
    %out_output23_u = irdl.base "!builtin.unranked_tensor"
    %out_output23 = irdl.any_of(%out_output23_r, %out_output23_u)
    %out_output24_r = irdl.base "!builtin.tensor"
    %out_output24_u = irdl.base "!builtin.unranked_tensor"
    %out_output24 = irdl.any_of(%out_output24_r, %out_output24_u)
    %out_output25_r = irdl.base "!builtin.tensor"
    %out_output25_u = irdl.base "!builtin.unranked_tensor"
    %out_output25 = irdl.any_of(%out_output25_r, %out_output25_u)
    %out_output26_r = irdl.base "!builtin.tensor"
    %out_output26_u = irdl.base "!builtin.unranked_tensor"
    %out_output26 = irdl.any_of(%out_output26_r, %out_output26_u)
    %out_output27_r = irdl.base "!builtin.tensor"
    %out_output27_u = irdl.base "!builtin.unranked_tensor"
    %out_output27 = irdl.any_of(%out_output27_r, %out_output27_u)
    %out_output28_r = irdl.base "!builtin.tensor"
    %out_output28_u = irdl.base "!builtin.unranked_tensor"
    %out_output28 = irdl.any_of(%out_output28_r, %out_output28_u)
    %out_output29_r = irdl.base "!builtin.tensor"
    %out_output29_u = irdl.base "!builtin.unranked_tensor"
    %out_output29 = irdl.any_of(%out_output29_r, %out_output29_u)
    %out_output30_r = irdl.base "!builtin.tensor"
    %out_output30_u = irdl.base "!builtin.unranked_tensor"
    %out_output30 = irdl.any_of(%out_output30_r, %out_output30_u)
    %out_output31_r = irdl.base "!builtin.tensor"
    %out_output31_u = irdl.base "!builtin.unranked_tensor"
    %out_output31 = irdl.any_of(%out_output31_r, %out_output31_u)
    %out_output_rest_r = irdl.base "!builtin.tensor"
    %out_output_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_output_rest = irdl.any_of(%out_output_rest_r, %out_output_rest_u)
    %attr_cond = irdl.base "#builtin.symbol_ref"
    %attr_body = irdl.base "#builtin.symbol_ref"
    irdl.operands(input0: optional %in_input0, input1: optional %in_input1, input2: optional %in_input2, input3: optional %in_input3, input4: optional %in_input4, input5: optional %in_input5, input6: optional %in_input6, input7: optional %in_input7, input8: optional %in_input8, input9: optional %in_input9, input10: optional %in_input10, input11: optional %in_input11, input12: optional %in_input12, input13: optional %in_input13, input14: optional %in_input14, input15: optional %in_input15, input16: optional %in_input16, input17: optional %in_input17, input18: optional %in_input18, input19: optional %in_input19, input20: optional %in_input20, input21: optional %in_input21, input22: optional %in_input22, input23: optional %in_input23, input24: optional %in_input24, input25: optional %in_input25, input26: optional %in_input26, input27: optional %in_input27, input28: optional %in_input28, input29: optional %in_input29, input30: optional %in_input30, input31: optional %in_input31, input_rest: variadic %in_input_rest, ctrl_in: variadic %ctrl)
    irdl.results(output0: optional %out_output0, output1: optional %out_output1, output2: optional %out_output2, output3: optional %out_output3, output4: optional %out_output4, output5: optional %out_output5, output6: optional %out_output6, output7: optional %out_output7, output8: optional %out_output8, output9: optional %out_output9, output10: optional %out_output10, output11: optional %out_output11, output12: optional %out_output12, output13: optional %out_output13, output14: optional %out_output14, output15: optional %out_output15, output16: optional %out_output16, output17: optional %out_output17, output18: optional %out_output18, output19: optional %out_output19, output20: optional %out_output20, output21: optional %out_output21, output22: optional %out_output22, output23: optional %out_output23, output24: optional %out_output24, output25: optional %out_output25, output26: optional %out_output26, output27: optional %out_output27, output28: optional %out_output28, output29: optional %out_output29, output30: optional %out_output30, output31: optional %out_output31, output_rest: variadic %out_output_rest, ctrl: %ctrl)
    irdl.attributes {"cond" = %attr_cond, "body" = %attr_body}
  }

  // GE type PartitionedCall on DNN_VM_GE_LOCAL
  irdl.operation @partitioned_call {
    %ctrl = irdl.base @ascend::@ctrl
    %in_args0_r = irdl.base "!builtin.tensor"
    %in_args0_u = irdl.base "!builtin.unranked_tensor"
    %in_args0 = irdl.any_of(%in_args0_r, %in_args0_u)
    %in_args1_r = irdl.base "!builtin.tensor"
    %in_args1_u = irdl.base "!builtin.unranked_tensor"
    %in_args1 = irdl.any_of(%in_args1_r, %in_args1_u)
    %in_args2_r = irdl.base "!builtin.tensor"
    %in_args2_u = irdl.base "!builtin.unranked_tensor"
    %in_args2 = irdl.any_of(%in_args2_r, %in_args2_u)
    %in_args3_r = irdl.base "!builtin.tensor"
    %in_args3_u = irdl.base "!builtin.unranked_tensor"
    %in_args3 = irdl.any_of(%in_args3_r, %in_args3_u)
    %in_args4_r = irdl.base "!builtin.tensor"
    %in_args4_u = irdl.base "!builtin.unranked_tensor"
    %in_args4 = irdl.any_of(%in_args4_r, %in_args4_u)
    %in_args5_r = irdl.base "!builtin.tensor"
    %in_args5_u = irdl.base "!builtin.unranked_tensor"
    %in_args5 = irdl.any_of(%in_args5_r, %in_args5_u)
    %in_args6_r = irdl.base "!builtin.tensor"
    %in_args6_u = irdl.base "!builtin.unranked_tensor"
    %in_args6 = irdl.any_of(%in_args6_r, %in_args6_u)
    %in_args7_r = irdl.base "!builtin.tensor"
    %in_args7_u = irdl.base "!builtin.unranked_tensor"
    %in_args7 = irdl.any_of(%in_args7_r, %in_args7_u)
    %in_args8_r = irdl.base "!builtin.tensor"
    %in_args8_u = irdl.base "!builtin.unranked_tensor"
    %in_args8 = irdl.any_of(%in_args8_r, %in_args8_u)
    %in_args9_r = irdl.base "!builtin.tensor"
    %in_args9_u = irdl.base "!builtin.unranked_tensor"
    %in_args9 = irdl.any_of(%in_args9_r, %in_args9_u)
    %in_args10_r = irdl.base "!builtin.tensor"
    %in_args10_u = irdl.base "!builtin.unranked_tensor"
    %in_args10 = irdl.any_of(%in_args10_r, %in_args10_u)
    %in_args11_r = irdl.base "!builtin.tensor"
    %in_args11_u = irdl.base "!builtin.unranked_tensor"
    %in_args11 = irdl.any_of(%in_args11_r, %in_args11_u)
    %in_args12_r = irdl.base "!builtin.tensor"
    %in_args12_u = irdl.base "!builtin.unranked_tensor"
    %in_args12 = irdl.any_of(%in_args12_r, %in_args12_u)
    %in_args13_r = irdl.base "!builtin.tensor"
    %in_args13_u = irdl.base "!builtin.unranked_tensor"
    %in_args13 = irdl.any_of(%in_args13_r, %in_args13_u)
    %in_args14_r = irdl.base "!builtin.tensor"
    %in_args14_u = irdl.base "!builtin.unranked_tensor"
    %in_args14 = irdl.any_of(%in_args14_r, %in_args14_u)
    %in_args15_r = irdl.base "!builtin.tensor"
    %in_args15_u = irdl.base "!builtin.unranked_tensor"
    %in_args15 = irdl.any_of(%in_args15_r, %in_args15_u)
    %in_args16_r = irdl.base "!builtin.tensor"
    %in_args16_u = irdl.base "!builtin.unranked_tensor"
    %in_args16 = irdl.any_of(%in_args16_r, %in_args16_u)
    %in_args17_r = irdl.base "!builtin.tensor"
    %in_args17_u = irdl.base "!builtin.unranked_tensor"
    %in_args17 = irdl.any_of(%in_args17_r, %in_args17_u)
    %in_args18_r = irdl.base "!builtin.tensor"
    %in_args18_u = irdl.base "!builtin.unranked_tensor"
    %in_args18 = irdl.any_of(%in_args18_r, %in_args18_u)
    %in_args19_r = irdl.base "!builtin.tensor"
    %in_args19_u = irdl.base "!builtin.unranked_tensor"
    %in_args19 = irdl.any_of(%in_args19_r, %in_args19_u)
    %in_args20_r = irdl.base "!builtin.tensor"
    %in_args20_u = irdl.base "!builtin.unranked_tensor"
    %in_args20 = irdl.any_of(%in_args20_r, %in_args20_u)
    %in_args21_r = irdl.base "!builtin.tensor"
    %in_args21_u = irdl.base "!builtin.unranked_tensor"
    %in_args21 = irdl.any_of(%in_args21_r, %in_args21_u)
    %in_args22_r = irdl.base "!builtin.tensor"
    %in_args22_u = irdl.base "!builtin.unranked_tensor"
    %in_args22 = irdl.any_of(%in_args22_r, %in_args22_u)
    %in_args23_r = irdl.base "!builtin.tensor"
    %in_args23_u = irdl.base "!builtin.unranked_tensor"
    %in_args23 = irdl.any_of(%in_args23_r, %in_args23_u)
    %in_args24_r = irdl.base "!builtin.tensor"
    %in_args24_u = irdl.base "!builtin.unranked_tensor"
    %in_args24 = irdl.any_of(%in_args24_r, %in_args24_u)
    %in_args25_r = irdl.base "!builtin.tensor"
    %in_args25_u = irdl.base "!builtin.unranked_tensor"
    %in_args25 = irdl.any_of(%in_args25_r, %in_args25_u)
    %in_args26_r = irdl.base "!builtin.tensor"
    %in_args26_u = irdl.base "!builtin.unranked_tensor"
    %in_args26 = irdl.any_of(%in_args26_r, %in_args26_u)
    %in_args27_r = irdl.base "!builtin.tensor"
    %in_args27_u = irdl.base "!builtin.unranked_tensor"
    %in_args27 = irdl.any_of(%in_args27_r, %in_args27_u)
    %in_args28_r = irdl.base "!builtin.tensor"
    %in_args28_u = irdl.base "!builtin.unranked_tensor"
    %in_args28 = irdl.any_of(%in_args28_r, %in_args28_u)
    %in_args29_r = irdl.base "!builtin.tensor"
    %in_args29_u = irdl.base "!builtin.unranked_tensor"
    %in_args29 = irdl.any_of(%in_args29_r, %in_args29_u)
    %in_args30_r = irdl.base "!builtin.tensor"
    %in_args30_u = irdl.base "!builtin.unranked_tensor"
    %in_args30 = irdl.any_of(%in_args30_r, %in_args30_u)
    %in_args31_r = irdl.base "!builtin.tensor"
    %in_args31_u = irdl.base "!builtin.unranked_tensor"
    %in_args31 = irdl.any_of(%in_args31_r, %in_args31_u)
    %in_args_rest_r = irdl.base "!builtin.tensor"
    %in_args_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_args_rest = irdl.any_of(%in_args_rest_r, %in_args_rest_u)
    %out_output0_r = irdl.base "!builtin.tensor"
    %out_output0_u = irdl.base "!builtin.unranked_tensor"
    %out_output0 = irdl.any_of(%out_output0_r, %out_output0_u)
    %out_output1_r = irdl.base "!builtin.tensor"
    %out_output1_u = irdl.base "!builtin.unranked_tensor"
    %out_output1 = irdl.any_of(%out_output1_r, %out_output1_u)
    %out_output2_r = irdl.base "!builtin.tensor"
    %out_output2_u = irdl.base "!builtin.unranked_tensor"
    %out_output2 = irdl.any_of(%out_output2_r, %out_output2_u)
    %out_output3_r = irdl.base "!builtin.tensor"
    %out_output3_u = irdl.base "!builtin.unranked_tensor"
    %out_output3 = irdl.any_of(%out_output3_r, %out_output3_u)
    %out_output4_r = irdl.base "!builtin.tensor"
    %out_output4_u = irdl.base "!builtin.unranked_tensor"
    %out_output4 = irdl.any_of(%out_output4_r, %out_output4_u)
    %out_output5_r = irdl.base "!builtin.tensor"
    %out_output5_u = irdl.base "!builtin.unranked_tensor"
    %out_output5 = irdl.any_of(%out_output5_r, %out_output5_u)
    %out_output6_r = irdl.base "!builtin.tensor"
    %out_output6_u = irdl.base "!builtin.unranked_tensor"
    %out_output6 = irdl.any_of(%out_output6_r, %out_output6_u)
    %out_output7_r = irdl.base "!builtin.tensor"
    %out_output7_u = irdl.base "!builtin.unranked_tensor"
    %out_output7 = irdl.any_of(%out_output7_r, %out_output7_u)
    %out_output8_r = irdl.base "!builtin.tensor"
    %out_output8_u = irdl.base "!builtin.unranked_tensor"
    %out_output8 = irdl.any_of(%out_output8_r, %out_output8_u)
    %out_output9_r = irdl.base "!builtin.tensor"
    %out_output9_u = irdl.base "!builtin.unranked_tensor"
    %out_output9 = irdl.any_of(%out_output9_r, %out_output9_u)
    %out_output10_r = irdl.base "!builtin.tensor"
    %out_output10_u = irdl.base "!builtin.unranked_tensor"
    %out_output10 = irdl.any_of(%out_output10_r, %out_output10_u)
    %out_output11_r = irdl.base "!builtin.tensor"
    %out_output11_u = irdl.base "!builtin.unranked_tensor"
    %out_output11 = irdl.any_of(%out_output11_r, %out_output11_u)
    %out_output12_r = irdl.base "!builtin.tensor"
    %out_output12_u = irdl.base "!builtin.unranked_tensor"
    %out_output12 = irdl.any_of(%out_output12_r, %out_output12_u)
    %out_output13_r = irdl.base "!builtin.tensor"
    %out_output13_u = irdl.base "!builtin.unranked_tensor"
    %out_output13 = irdl.any_of(%out_output13_r, %out_output13_u)
    %out_output14_r = irdl.base "!builtin.tensor"
    %out_output14_u = irdl.base "!builtin.unranked_tensor"
    %out_output14 = irdl.any_of(%out_output14_r, %out_output14_u)
    %out_output15_r = irdl.base "!builtin.tensor"
    %out_output15_u = irdl.base "!builtin.unranked_tensor"
    %out_output15 = irdl.any_of(%out_output15_r, %out_output15_u)
    %out_output16_r = irdl.base "!builtin.tensor"
    %out_output16_u = irdl.base "!builtin.unranked_tensor"
    %out_output16 = irdl.any_of(%out_output16_r, %out_output16_u)
    %out_output17_r = irdl.base "!builtin.tensor"
    %out_output17_u = irdl.base "!builtin.unranked_tensor"
    %out_output17 = irdl.any_of(%out_output17_r, %out_output17_u)
    %out_output18_r = irdl.base "!builtin.tensor"
    %out_output18_u = irdl.base "!builtin.unranked_tensor"
    %out_output18 = irdl.any_of(%out_output18_r, %out_output18_u)
    %out_output19_r = irdl.base "!builtin.tensor"
    %out_output19_u = irdl.base "!builtin.unranked_tensor"
    %out_output19 = irdl.any_of(%out_output19_r, %out_output19_u)
    %out_output20_r = irdl.base "!builtin.tensor"
    %out_output20_u = irdl.base "!builtin.unranked_tensor"
    %out_output20 = irdl.any_of(%out_output20_r, %out_output20_u)
    %out_output21_r = irdl.base "!builtin.tensor"
    %out_output21_u = irdl.base "!builtin.unranked_tensor"
    %out_output21 = irdl.any_of(%out_output21_r, %out_output21_u)
    %out_output22_r = irdl.base "!builtin.tensor"
    %out_output22_u = irdl.base "!builtin.unranked_tensor"
    %out_output22 = irdl.any_of(%out_output22_r, %out_output22_u)
    %out_output23_r = irdl.base "!builtin.tensor"
    %out_output23_u = irdl.base "!builtin.unranked_tensor"
    %out_output23 = irdl.any_of(%out_output23_r, %out_output23_u)
    %out_output24_r = irdl.base "!builtin.tensor"
    %out_output24_u = irdl.base "!builtin.unranked_tensor"
    %out_output24 = irdl.any_of(%out_output24_r, %out_output24_u)
    %out_output25_r = irdl.base "!builtin.tensor"
    %out_output25_u = irdl.base "!builtin.unranked_tensor"
    %out_output25 = irdl.any_of(%out_output25_r, %out_output25_u)
    %out_output26_r = irdl.base "!builtin.tensor"
    %out_output26_u = irdl.base "!builtin.unranked_tensor"
    %out_output26 = irdl.any_of(%out_output26_r, %out_output26_u)
    %out_output27_r = irdl.base "!builtin.tensor"
    %out_output27_u = irdl.base "!builtin.unranked_tensor"
    %out_output27 = irdl.any_of(%out_output27_r, %out_output27_u)
    %out_output28_r = irdl.base "!builtin.tensor"
    %out_output28_u = irdl.base "!builtin.unranked_tensor"
    %out_output28 = irdl.any_of(%out_output28_r, %out_output28_u)
    %out_output29_r = irdl.base "!builtin.tensor"
    %out_output29_u = irdl.base "!builtin.unranked_tensor"
    %out_output29 = irdl.any_of(%out_output29_r, %out_output29_u)
    %out_output30_r = irdl.base "!builtin.tensor"
    %out_output30_u = irdl.base "!builtin.unranked_tensor"
    %out_output30 = irdl.any_of(%out_output30_r, %out_output30_u)
    %out_output31_r = irdl.base "!builtin.tensor"
    %out_output31_u = irdl.base "!builtin.unranked_tensor"
    %out_output31 = irdl.any_of(%out_output31_r, %out_output31_u)
    %out_output_rest_r = irdl.base "!builtin.tensor"
    %out_output_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_output_rest = irdl.any_of(%out_output_rest_r, %out_output_rest_u)
    %attr_f = irdl.base "#builtin.symbol_ref"
    irdl.operands(args0: optional %in_args0, args1: optional %in_args1, args2: optional %in_args2, args3: optional %in_args3, args4: optional %in_args4, args5: optional %in_args5, args6: optional %in_args6, args7: optional %in_args7, args8: optional %in_args8, args9: optional %in_args9, args10: optional %in_args10, args11: optional %in_args11, args12: optional %in_args12, args13: optional %in_args13, args14: optional %in_args14, args15: optional %in_args15, args16: optional %in_args16, args17: optional %in_args17, args18: optional %in_args18, args19: optional %in_args19, args20: optional %in_args20, args21: optional %in_args21, args22: optional %in_args22, args23: optional %in_args23, args24: optional %in_args24, args25: optional %in_args25, args26: optional %in_args26, args27: optional %in_args27, args28: optional %in_args28, args29: optional %in_args29, args30: optional %in_args30, args31: optional %in_args31, args_rest: variadic %in_args_rest, ctrl_in: variadic %ctrl)
    irdl.results(output0: optional %out_output0, output1: optional %out_output1, output2: optional %out_output2, output3: optional %out_output3, output4: optional %out_output4, output5: optional %out_output5, output6: optional %out_output6, output7: optional %out_output7, output8: optional %out_output8, output9: optional %out_output9, output10: optional %out_output10, output11: optional %out_output11, output12: optional %out_output12, output13: optional %out_output13, output14: optional %out_output14, output15: optional %out_output15, output16: optional %out_output16, output17: optional %out_output17, output18: optional %out_output18, output19: optional %out_output19, output20: optional %out_output20, output21: optional %out_output21, output22: optional %out_output22, output23: optional %out_output23, output24: optional %out_output24, output25: optional %out_output25, output26: optional %out_output26, output27: optional %out_output27, output28: optional %out_output28, output29: optional %out_output29, output30: optional %out_output30, output31: optional %out_output31, output_rest: variadic %out_output_rest, ctrl: %ctrl)
    irdl.attributes {"f" = %attr_f}
  }

  // GE type StreamActive on DNN_VM_RTS
  irdl.operation @stream_active {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type StreamSwitch on DNN_VM_RTS
  irdl.operation @stream_switch {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type StreamMerge on DNN_VM_RTS
  irdl.operation @stream_merge {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    %out_value_index_r = irdl.base "!builtin.tensor"
    %out_value_index_u = irdl.base "!builtin.unranked_tensor"
    %out_value_index = irdl.any_of(%out_value_index_r, %out_value_index_u)
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, value_index: optional %out_value_index, ctrl: %ctrl)
  }

  // GE type LabelSet on DNN_VM_RTS
  irdl.operation @label_set {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type LabelGotoEx on DNN_VM_RTS
  irdl.operation @label_goto_ex {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type LabelSwitchByIndex on DNN_VM_RTS
  irdl.operation @label_switch_by_index {
    %ctrl = irdl.base @ascend::@ctrl
    %in_index_r = irdl.base "!builtin.tensor"
    %in_index_u = irdl.base "!builtin.unranked_tensor"
    %in_index = irdl.any_of(%in_index_r, %in_index_u)
    irdl.operands(index: %in_index, ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type Send on DNN_VM_RTS
  irdl.operation @send {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type Recv on DNN_VM_RTS
  irdl.operation @recv {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type SendNotify on DNN_VM_RTS
  irdl.operation @send_notify {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type RecvNotify on DNN_VM_RTS
  irdl.operation @recv_notify {
    %ctrl = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
  }

  // GE type PointFromInputs on DNN_VM_GE_LOCAL
  irdl.operation @point_from_inputs {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y0_r = irdl.base "!builtin.tensor"
    %out_y0_u = irdl.base "!builtin.unranked_tensor"
    %out_y0 = irdl.any_of(%out_y0_r, %out_y0_u)
    %out_y1_r = irdl.base "!builtin.tensor"
    %out_y1_u = irdl.base "!builtin.unranked_tensor"
    %out_y1 = irdl.any_of(%out_y1_r, %out_y1_u)
    %out_y2_r = irdl.base "!builtin.tensor"
    %out_y2_u = irdl.base "!builtin.unranked_tensor"
    %out_y2 = irdl.any_of(%out_y2_r, %out_y2_u)
    %out_y3_r = irdl.base "!builtin.tensor"
    %out_y3_u = irdl.base "!builtin.unranked_tensor"
    %out_y3 = irdl.any_of(%out_y3_r, %out_y3_u)
    %out_y4_r = irdl.base "!builtin.tensor"
    %out_y4_u = irdl.base "!builtin.unranked_tensor"
    %out_y4 = irdl.any_of(%out_y4_r, %out_y4_u)
    %out_y5_r = irdl.base "!builtin.tensor"
    %out_y5_u = irdl.base "!builtin.unranked_tensor"
    %out_y5 = irdl.any_of(%out_y5_r, %out_y5_u)
    %out_y6_r = irdl.base "!builtin.tensor"
    %out_y6_u = irdl.base "!builtin.unranked_tensor"
    %out_y6 = irdl.any_of(%out_y6_r, %out_y6_u)
    %out_y7_r = irdl.base "!builtin.tensor"
    %out_y7_u = irdl.base "!builtin.unranked_tensor"
    %out_y7 = irdl.any_of(%out_y7_r, %out_y7_u)
    %out_y8_r = irdl.base "!builtin.tensor"
    %out_y8_u = irdl.base "!builtin.unranked_tensor"
    %out_y8 = irdl.any_of(%out_y8_r, %out_y8_u)
    %out_y9_r = irdl.base "!builtin.tensor"
    %out_y9_u = irdl.base "!builtin.unranked_tensor"
    %out_y9 = irdl.any_of(%out_y9_r, %out_y9_u)
    %out_y10_r = irdl.base "!builtin.tensor"
    %out_y10_u = irdl.base "!builtin.unranked_tensor"
    %out_y10 = irdl.any_of(%out_y10_r, %out_y10_u)
    %out_y11_r = irdl.base "!builtin.tensor"
    %out_y11_u = irdl.base "!builtin.unranked_tensor"
    %out_y11 = irdl.any_of(%out_y11_r, %out_y11_u)
    %out_y12_r = irdl.base "!builtin.tensor"
    %out_y12_u = irdl.base "!builtin.unranked_tensor"
    %out_y12 = irdl.any_of(%out_y12_r, %out_y12_u)
    %out_y13_r = irdl.base "!builtin.tensor"
    %out_y13_u = irdl.base "!builtin.unranked_tensor"
    %out_y13 = irdl.any_of(%out_y13_r, %out_y13_u)
    %out_y14_r = irdl.base "!builtin.tensor"
    %out_y14_u = irdl.base "!builtin.unranked_tensor"
    %out_y14 = irdl.any_of(%out_y14_r, %out_y14_u)
    %out_y15_r = irdl.base "!builtin.tensor"
    %out_y15_u = irdl.base "!builtin.unranked_tensor"
    %out_y15 = irdl.any_of(%out_y15_r, %out_y15_u)
    %out_y16_r = irdl.base "!builtin.tensor"
    %out_y16_u = irdl.base "!builtin.unranked_tensor"
    %out_y16 = irdl.any_of(%out_y16_r, %out_y16_u)
    %out_y17_r = irdl.base "!builtin.tensor"
    %out_y17_u = irdl.base "!builtin.unranked_tensor"
    %out_y17 = irdl.any_of(%out_y17_r, %out_y17_u)
    %out_y18_r = irdl.base "!builtin.tensor"
    %out_y18_u = irdl.base "!builtin.unranked_tensor"
    %out_y18 = irdl.any_of(%out_y18_r, %out_y18_u)
    %out_y19_r = irdl.base "!builtin.tensor"
    %out_y19_u = irdl.base "!builtin.unranked_tensor"
    %out_y19 = irdl.any_of(%out_y19_r, %out_y19_u)
    %out_y20_r = irdl.base "!builtin.tensor"
    %out_y20_u = irdl.base "!builtin.unranked_tensor"
    %out_y20 = irdl.any_of(%out_y20_r, %out_y20_u)
    %out_y21_r = irdl.base "!builtin.tensor"
    %out_y21_u = irdl.base "!builtin.unranked_tensor"
    %out_y21 = irdl.any_of(%out_y21_r, %out_y21_u)
    %out_y22_r = irdl.base "!builtin.tensor"
    %out_y22_u = irdl.base "!builtin.unranked_tensor"
    %out_y22 = irdl.any_of(%out_y22_r, %out_y22_u)
    %out_y23_r = irdl.base "!builtin.tensor"
    %out_y23_u = irdl.base "!builtin.unranked_tensor"
    %out_y23 = irdl.any_of(%out_y23_r, %out_y23_u)
    %out_y24_r = irdl.base "!builtin.tensor"
    %out_y24_u = irdl.base "!builtin.unranked_tensor"
    %out_y24 = irdl.any_of(%out_y24_r, %out_y24_u)
    %out_y25_r = irdl.base "!builtin.tensor"
    %out_y25_u = irdl.base "!builtin.unranked_tensor"
    %out_y25 = irdl.any_of(%out_y25_r, %out_y25_u)
    %out_y26_r = irdl.base "!builtin.tensor"
    %out_y26_u = irdl.base "!builtin.unranked_tensor"
    %out_y26 = irdl.any_of(%out_y26_r, %out_y26_u)
    %out_y27_r = irdl.base "!builtin.tensor"
    %out_y27_u = irdl.base "!builtin.unranked_tensor"
    %out_y27 = irdl.any_of(%out_y27_r, %out_y27_u)
    %out_y28_r = irdl.base "!builtin.tensor"
    %out_y28_u = irdl.base "!builtin.unranked_tensor"
    %out_y28 = irdl.any_of(%out_y28_r, %out_y28_u)
    %out_y29_r = irdl.base "!builtin.tensor"
    %out_y29_u = irdl.base "!builtin.unranked_tensor"
    %out_y29 = irdl.any_of(%out_y29_r, %out_y29_u)
    %out_y30_r = irdl.base "!builtin.tensor"
    %out_y30_u = irdl.base "!builtin.unranked_tensor"
    %out_y30 = irdl.any_of(%out_y30_r, %out_y30_u)
    %out_y31_r = irdl.base "!builtin.tensor"
    %out_y31_u = irdl.base "!builtin.unranked_tensor"
    %out_y31 = irdl.any_of(%out_y31_r, %out_y31_u)
    %out_y_rest_r = irdl.base "!builtin.tensor"
    %out_y_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_y_rest = irdl.any_of(%out_y_rest_r, %out_y_rest_u)
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y0: optional %out_y0, y1: optional %out_y1, y2: optional %out_y2, y3: optional %out_y3, y4: optional %out_y4, y5: optional %out_y5, y6: optional %out_y6, y7: optional %out_y7, y8: optional %out_y8, y9: optional %out_y9, y10: optional %out_y10, y11: optional %out_y11, y12: optional %out_y12, y13: optional %out_y13, y14: optional %out_y14, y15: optional %out_y15, y16: optional %out_y16, y17: optional %out_y17, y18: optional %out_y18, y19: optional %out_y19, y20: optional %out_y20, y21: optional %out_y21, y22: optional %out_y22, y23: optional %out_y23, y24: optional %out_y24, y25: optional %out_y25, y26: optional %out_y26, y27: optional %out_y27, y28: optional %out_y28, y29: optional %out_y29, y30: optional %out_y30, y31: optional %out_y31, y_rest: variadic %out_y_rest, ctrl: %ctrl)
  }

  // GE type Shape on DNN_VM_AICPU
  irdl.operation @shape {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Rank on DNN_VM_AICPU
  irdl.operation @rank {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Size on DNN_VM_AICPU
  irdl.operation @size {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type PhonyConcat on DNN_VM_GE_LOCAL
  irdl.operation @phony_concat {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type PhonySplit on DNN_VM_GE_LOCAL
  irdl.operation @phony_split {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y0_r = irdl.base "!builtin.tensor"
    %out_y0_u = irdl.base "!builtin.unranked_tensor"
    %out_y0 = irdl.any_of(%out_y0_r, %out_y0_u)
    %out_y1_r = irdl.base "!builtin.tensor"
    %out_y1_u = irdl.base "!builtin.unranked_tensor"
    %out_y1 = irdl.any_of(%out_y1_r, %out_y1_u)
    %out_y2_r = irdl.base "!builtin.tensor"
    %out_y2_u = irdl.base "!builtin.unranked_tensor"
    %out_y2 = irdl.any_of(%out_y2_r, %out_y2_u)
    %out_y3_r = irdl.base "!builtin.tensor"
    %out_y3_u = irdl.base "!builtin.unranked_tensor"
    %out_y3 = irdl.any_of(%out_y3_r, %out_y3_u)
    %out_y4_r = irdl.base "!builtin.tensor"
    %out_y4_u = irdl.base "!builtin.unranked_tensor"
    %out_y4 = irdl.any_of(%out_y4_r, %out_y4_u)
    %out_y5_r = irdl.base "!builtin.tensor"
    %out_y5_u = irdl.base "!builtin.unranked_tensor"
    %out_y5 = irdl.any_of(%out_y5_r, %out_y5_u)
    %out_y6_r = irdl.base "!builtin.tensor"
    %out_y6_u = irdl.base "!builtin.unranked_tensor"
    %out_y6 = irdl.any_of(%out_y6_r, %out_y6_u)
    %out_y7_r = irdl.base "!builtin.tensor"
    %out_y7_u = irdl.base "!builtin.unranked_tensor"
    %out_y7 = irdl.any_of(%out_y7_r, %out_y7_u)
    %out_y8_r = irdl.base "!builtin.tensor"
    %out_y8_u = irdl.base "!builtin.unranked_tensor"
    %out_y8 = irdl.any_of(%out_y8_r, %out_y8_u)
    %out_y9_r = irdl.base "!builtin.tensor"
    %out_y9_u = irdl.base "!builtin.unranked_tensor"
    %out_y9 = irdl.any_of(%out_y9_r, %out_y9_u)
    %out_y10_r = irdl.base "!builtin.tensor"
    %out_y10_u = irdl.base "!builtin.unranked_tensor"
    %out_y10 = irdl.any_of(%out_y10_r, %out_y10_u)
    %out_y11_r = irdl.base "!builtin.tensor"
    %out_y11_u = irdl.base "!builtin.unranked_tensor"
    %out_y11 = irdl.any_of(%out_y11_r, %out_y11_u)
    %out_y12_r = irdl.base "!builtin.tensor"
    %out_y12_u = irdl.base "!builtin.unranked_tensor"
    %out_y12 = irdl.any_of(%out_y12_r, %out_y12_u)
    %out_y13_r = irdl.base "!builtin.tensor"
    %out_y13_u = irdl.base "!builtin.unranked_tensor"
    %out_y13 = irdl.any_of(%out_y13_r, %out_y13_u)
    %out_y14_r = irdl.base "!builtin.tensor"
    %out_y14_u = irdl.base "!builtin.unranked_tensor"
    %out_y14 = irdl.any_of(%out_y14_r, %out_y14_u)
    %out_y15_r = irdl.base "!builtin.tensor"
    %out_y15_u = irdl.base "!builtin.unranked_tensor"
    %out_y15 = irdl.any_of(%out_y15_r, %out_y15_u)
    %out_y16_r = irdl.base "!builtin.tensor"
    %out_y16_u = irdl.base "!builtin.unranked_tensor"
    %out_y16 = irdl.any_of(%out_y16_r, %out_y16_u)
    %out_y17_r = irdl.base "!builtin.tensor"
    %out_y17_u = irdl.base "!builtin.unranked_tensor"
    %out_y17 = irdl.any_of(%out_y17_r, %out_y17_u)
    %out_y18_r = irdl.base "!builtin.tensor"
    %out_y18_u = irdl.base "!builtin.unranked_tensor"
    %out_y18 = irdl.any_of(%out_y18_r, %out_y18_u)
    %out_y19_r = irdl.base "!builtin.tensor"
    %out_y19_u = irdl.base "!builtin.unranked_tensor"
    %out_y19 = irdl.any_of(%out_y19_r, %out_y19_u)
    %out_y20_r = irdl.base "!builtin.tensor"
    %out_y20_u = irdl.base "!builtin.unranked_tensor"
    %out_y20 = irdl.any_of(%out_y20_r, %out_y20_u)
    %out_y21_r = irdl.base "!builtin.tensor"
    %out_y21_u = irdl.base "!builtin.unranked_tensor"
    %out_y21 = irdl.any_of(%out_y21_r, %out_y21_u)
    %out_y22_r = irdl.base "!builtin.tensor"
    %out_y22_u = irdl.base "!builtin.unranked_tensor"
    %out_y22 = irdl.any_of(%out_y22_r, %out_y22_u)
    %out_y23_r = irdl.base "!builtin.tensor"
    %out_y23_u = irdl.base "!builtin.unranked_tensor"
    %out_y23 = irdl.any_of(%out_y23_r, %out_y23_u)
    %out_y24_r = irdl.base "!builtin.tensor"
    %out_y24_u = irdl.base "!builtin.unranked_tensor"
    %out_y24 = irdl.any_of(%out_y24_r, %out_y24_u)
    %out_y25_r = irdl.base "!builtin.tensor"
    %out_y25_u = irdl.base "!builtin.unranked_tensor"
    %out_y25 = irdl.any_of(%out_y25_r, %out_y25_u)
    %out_y26_r = irdl.base "!builtin.tensor"
    %out_y26_u = irdl.base "!builtin.unranked_tensor"
    %out_y26 = irdl.any_of(%out_y26_r, %out_y26_u)
    %out_y27_r = irdl.base "!builtin.tensor"
    %out_y27_u = irdl.base "!builtin.unranked_tensor"
    %out_y27 = irdl.any_of(%out_y27_r, %out_y27_u)
    %out_y28_r = irdl.base "!builtin.tensor"
    %out_y28_u = irdl.base "!builtin.unranked_tensor"
    %out_y28 = irdl.any_of(%out_y28_r, %out_y28_u)
    %out_y29_r = irdl.base "!builtin.tensor"
    %out_y29_u = irdl.base "!builtin.unranked_tensor"
    %out_y29 = irdl.any_of(%out_y29_r, %out_y29_u)
    %out_y30_r = irdl.base "!builtin.tensor"
    %out_y30_u = irdl.base "!builtin.unranked_tensor"
    %out_y30 = irdl.any_of(%out_y30_r, %out_y30_u)
    %out_y31_r = irdl.base "!builtin.tensor"
    %out_y31_u = irdl.base "!builtin.unranked_tensor"
    %out_y31 = irdl.any_of(%out_y31_r, %out_y31_u)
    %out_y_rest_r = irdl.base "!builtin.tensor"
    %out_y_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_y_rest = irdl.any_of(%out_y_rest_r, %out_y_rest_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y0: optional %out_y0, y1: optional %out_y1, y2: optional %out_y2, y3: optional %out_y3, y4: optional %out_y4, y5: optional %out_y5, y6: optional %out_y6, y7: optional %out_y7, y8: optional %out_y8, y9: optional %out_y9, y10: optional %out_y10, y11: optional %out_y11, y12: optional %out_y12, y13: optional %out_y13, y14: optional %out_y14, y15: optional %out_y15, y16: optional %out_y16, y17: optional %out_y17, y18: optional %out_y18, y19: optional %out_y19, y20: optional %out_y20, y21: optional %out_y21, y22: optional %out_y22, y23: optional %out_y23, y24: optional %out_y24, y25: optional %out_y25, y26: optional %out_y26, y27: optional %out_y27, y28: optional %out_y28, y29: optional %out_y29, y30: optional %out_y30, y31: optional %out_y31, y_rest: variadic %out_y_rest, ctrl: %ctrl)
  }

  // GE type Cmo on DNN_VM_RTS
  irdl.operation @cmo {
    %ctrl = irdl.base @ascend::@ctrl
    %in_src_r = irdl.base "!builtin.tensor"
    %in_src_u = irdl.base "!builtin.unranked_tensor"
    %in_src = irdl.any_of(%in_src_r, %in_src_u)
    %attr_max_size = irdl.base "#builtin.integer"
    irdl.operands(src: %in_src, ctrl_in: variadic %ctrl)
    irdl.results(ctrl: %ctrl)
    irdl.attributes {"max_size" = %attr_max_size}
  }

  // GE type Add on AIcoreEngine
  irdl.operation @add {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Sub on AIcoreEngine
  irdl.operation @sub {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Mul on AIcoreEngine
  irdl.operation @mul {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type RealDiv on AIcoreEngine
  irdl.operation @real_div {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type MatMul on AIcoreEngine
  irdl.operation @mat_mul {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_bias_r = irdl.base "!builtin.tensor"
    %in_bias_u = irdl.base "!builtin.unranked_tensor"
    %in_bias = irdl.any_of(%in_bias_r, %in_bias_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, bias: optional %in_bias, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type BatchMatMul on AIcoreEngine
  irdl.operation @batch_mat_mul {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_bias_r = irdl.base "!builtin.tensor"
    %in_bias_u = irdl.base "!builtin.unranked_tensor"
    %in_bias = irdl.any_of(%in_bias_r, %in_bias_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x1: %in_x1, x2: %in_x2, bias: optional %in_bias, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Conv2D on AIcoreEngine
  irdl.operation @conv2d {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_filter_r = irdl.base "!builtin.tensor"
    %in_filter_u = irdl.base "!builtin.unranked_tensor"
    %in_filter = irdl.any_of(%in_filter_r, %in_filter_u)
    %in_bias_r = irdl.base "!builtin.tensor"
    %in_bias_u = irdl.base "!builtin.unranked_tensor"
    %in_bias = irdl.any_of(%in_bias_r, %in_bias_u)
    %in_offset_w_r = irdl.base "!builtin.tensor"
    %in_offset_w_u = irdl.base "!builtin.unranked_tensor"
    %in_offset_w = irdl.any_of(%in_offset_w_r, %in_offset_w_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, filter: %in_filter, bias: optional %in_bias, offset_w: optional %in_offset_w, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Relu on AIcoreEngine
  irdl.operation @relu {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type Gelu on AIcoreEngine
  irdl.operation @gelu {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type Softmax on AIcoreEngine
  irdl.operation @softmax {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type LayerNorm on AIcoreEngine
  irdl.operation @layer_norm {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_gamma_r = irdl.base "!builtin.tensor"
    %in_gamma_u = irdl.base "!builtin.unranked_tensor"
    %in_gamma = irdl.any_of(%in_gamma_r, %in_gamma_u)
    %in_beta_r = irdl.base "!builtin.tensor"
    %in_beta_u = irdl.base "!builtin.unranked_tensor"
    %in_beta = irdl.any_of(%in_beta_r, %in_beta_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    %out_mean_r = irdl.base "!builtin.tensor"
    %out_mean_u = irdl.base "!builtin.unranked_tensor"
    %out_mean = irdl.any_of(%out_mean_r, %out_mean_u)
    %out_variance_r = irdl.base "!builtin.tensor"
    %out_variance_u = irdl.base "!builtin.unranked_tensor"
    %out_variance = irdl.any_of(%out_variance_r, %out_variance_u)
    irdl.operands(x: %in_x, gamma: %in_gamma, beta: %in_beta, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, mean: %out_mean, variance: %out_variance, ctrl: %ctrl)
  }

  // GE type Cast on AIcoreEngine
  irdl.operation @cast {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Reshape on DNN_VM_GE_LOCAL
  irdl.operation @reshape {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_shape_r = irdl.base "!builtin.tensor"
    %in_shape_u = irdl.base "!builtin.unranked_tensor"
    %in_shape = irdl.any_of(%in_shape_r, %in_shape_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, shape: %in_shape, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Transpose on AIcoreEngine
  irdl.operation @transpose {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_perm_r = irdl.base "!builtin.tensor"
    %in_perm_u = irdl.base "!builtin.unranked_tensor"
    %in_perm = irdl.any_of(%in_perm_r, %in_perm_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, perm: %in_perm, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type ConcatV2 on AIcoreEngine
  irdl.operation @concat_v2 {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %in_concat_dim_r = irdl.base "!builtin.tensor"
    %in_concat_dim_u = irdl.base "!builtin.unranked_tensor"
    %in_concat_dim = irdl.any_of(%in_concat_dim_r, %in_concat_dim_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, concat_dim: %in_concat_dim, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Concat on AIcoreEngine
  irdl.operation @concat {
    %ctrl = irdl.base @ascend::@ctrl
    %in_concat_dim_r = irdl.base "!builtin.tensor"
    %in_concat_dim_u = irdl.base "!builtin.unranked_tensor"
    %in_concat_dim = irdl.any_of(%in_concat_dim_r, %in_concat_dim_u)
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(concat_dim: %in_concat_dim, x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Split on AIcoreEngine
  irdl.operation @split {
    %ctrl = irdl.base @ascend::@ctrl
    %in_split_dim_r = irdl.base "!builtin.tensor"
    %in_split_dim_u = irdl.base "!builtin.unranked_tensor"
    %in_split_dim = irdl.any_of(%in_split_dim_r, %in_split_dim_u)
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(split_dim: %in_split_dim, x: %in_x, ctrl_in: variadic %ctrl)
    irdl.results(y: variadic %out_y, ctrl: %ctrl)
  }

  // GE type SplitV on AIcoreEngine
  irdl.operation @split_v {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_size_splits_r = irdl.base "!builtin.tensor"
    %in_size_splits_u = irdl.base "!builtin.unranked_tensor"
    %in_size_splits = irdl.any_of(%in_size_splits_r, %in_size_splits_u)
    %in_split_dim_r = irdl.base "!builtin.tensor"
    %in_split_dim_u = irdl.base "!builtin.unranked_tensor"
    %in_split_dim = irdl.any_of(%in_split_dim_r, %in_split_dim_u)
    %out_y0_r = irdl.base "!builtin.tensor"
    %out_y0_u = irdl.base "!builtin.unranked_tensor"
    %out_y0 = irdl.any_of(%out_y0_r, %out_y0_u)
    %out_y1_r = irdl.base "!builtin.tensor"
    %out_y1_u = irdl.base "!builtin.unranked_tensor"
    %out_y1 = irdl.any_of(%out_y1_r, %out_y1_u)
    %out_y2_r = irdl.base "!builtin.tensor"
    %out_y2_u = irdl.base "!builtin.unranked_tensor"
    %out_y2 = irdl.any_of(%out_y2_r, %out_y2_u)
    %out_y3_r = irdl.base "!builtin.tensor"
    %out_y3_u = irdl.base "!builtin.unranked_tensor"
    %out_y3 = irdl.any_of(%out_y3_r, %out_y3_u)
    %out_y4_r = irdl.base "!builtin.tensor"
    %out_y4_u = irdl.base "!builtin.unranked_tensor"
    %out_y4 = irdl.any_of(%out_y4_r, %out_y4_u)
    %out_y5_r = irdl.base "!builtin.tensor"
    %out_y5_u = irdl.base "!builtin.unranked_tensor"
    %out_y5 = irdl.any_of(%out_y5_r, %out_y5_u)
    %out_y6_r = irdl.base "!builtin.tensor"
    %out_y6_u = irdl.base "!builtin.unranked_tensor"
    %out_y6 = irdl.any_of(%out_y6_r, %out_y6_u)
    %out_y7_r = irdl.base "!builtin.tensor"
    %out_y7_u = irdl.base "!builtin.unranked_tensor"
    %out_y7 = irdl.any_of(%out_y7_r, %out_y7_u)
    %out_y8_r = irdl.base "!builtin.tensor"
    %out_y8_u = irdl.base "!builtin.unranked_tensor"
    %out_y8 = irdl.any_of(%out_y8_r, %out_y8_u)
    %out_y9_r = irdl.base "!builtin.tensor"
    %out_y9_u = irdl.base "!builtin.unranked_tensor"
    %out_y9 = irdl.any_of(%out_y9_r, %out_y9_u)
    %out_y10_r = irdl.base "!builtin.tensor"
    %out_y10_u = irdl.base "!builtin.unranked_tensor"
    %out_y10 = irdl.any_of(%out_y10_r, %out_y10_u)
    %out_y11_r = irdl.base "!builtin.tensor"
    %out_y11_u = irdl.base "!builtin.unranked_tensor"
    %out_y11 = irdl.any_of(%out_y11_r, %out_y11_u)
    %out_y12_r = irdl.base "!builtin.tensor"
    %out_y12_u = irdl.base "!builtin.unranked_tensor"
    %out_y12 = irdl.any_of(%out_y12_r, %out_y12_u)
    %out_y13_r = irdl.base "!builtin.tensor"
    %out_y13_u = irdl.base "!builtin.unranked_tensor"
    %out_y13 = irdl.any_of(%out_y13_r, %out_y13_u)
    %out_y14_r = irdl.base "!builtin.tensor"
    %out_y14_u = irdl.base "!builtin.unranked_tensor"
    %out_y14 = irdl.any_of(%out_y14_r, %out_y14_u)
    %out_y15_r = irdl.base "!builtin.tensor"
    %out_y15_u = irdl.base "!builtin.unranked_tensor"
    %out_y15 = irdl.any_of(%out_y15_r, %out_y15_u)
    %out_y16_r = irdl.base "!builtin.tensor"
    %out_y16_u = irdl.base "!builtin.unranked_tensor"
    %out_y16 = irdl.any_of(%out_y16_r, %out_y16_u)
    %out_y17_r = irdl.base "!builtin.tensor"
    %out_y17_u = irdl.base "!builtin.unranked_tensor"
    %out_y17 = irdl.any_of(%out_y17_r, %out_y17_u)
    %out_y18_r = irdl.base "!builtin.tensor"
    %out_y18_u = irdl.base "!builtin.unranked_tensor"
    %out_y18 = irdl.any_of(%out_y18_r, %out_y18_u)
    %out_y19_r = irdl.base "!builtin.tensor"
    %out_y19_u = irdl.base "!builtin.unranked_tensor"
    %out_y19 = irdl.any_of(%out_y19_r, %out_y19_u)
    %out_y20_r = irdl.base "!builtin.tensor"
    %out_y20_u = irdl.base "!builtin.unranked_tensor"
    %out_y20 = irdl.any_of(%out_y20_r, %out_y20_u)
    %out_y21_r = irdl.base "!builtin.tensor"
    %out_y21_u = irdl.base "!builtin.unranked_tensor"
    %out_y21 = irdl.any_of(%out_y21_r, %out_y21_u)
    %out_y22_r = irdl.base "!builtin.tensor"
    %out_y22_u = irdl.base "!builtin.unranked_tensor"
    %out_y22 = irdl.any_of(%out_y22_r, %out_y22_u)
    %out_y23_r = irdl.base "!builtin.tensor"
    %out_y23_u = irdl.base "!builtin.unranked_tensor"
    %out_y23 = irdl.any_of(%out_y23_r, %out_y23_u)
    %out_y24_r = irdl.base "!builtin.tensor"
    %out_y24_u = irdl.base "!builtin.unranked_tensor"
    %out_y24 = irdl.any_of(%out_y24_r, %out_y24_u)
    %out_y25_r = irdl.base "!builtin.tensor"
    %out_y25_u = irdl.base "!builtin.unranked_tensor"
    %out_y25 = irdl.any_of(%out_y25_r, %out_y25_u)
    %out_y26_r = irdl.base "!builtin.tensor"
    %out_y26_u = irdl.base "!builtin.unranked_tensor"
    %out_y26 = irdl.any_of(%out_y26_r, %out_y26_u)
    %out_y27_r = irdl.base "!builtin.tensor"
    %out_y27_u = irdl.base "!builtin.unranked_tensor"
    %out_y27 = irdl.any_of(%out_y27_r, %out_y27_u)
    %out_y28_r = irdl.base "!builtin.tensor"
    %out_y28_u = irdl.base "!builtin.unranked_tensor"
    %out_y28 = irdl.any_of(%out_y28_r, %out_y28_u)
    %out_y29_r = irdl.base "!builtin.tensor"
    %out_y29_u = irdl.base "!builtin.unranked_tensor"
    %out_y29 = irdl.any_of(%out_y29_r, %out_y29_u)
    %out_y30_r = irdl.base "!builtin.tensor"
    %out_y30_u = irdl.base "!builtin.unranked_tensor"
    %out_y30 = irdl.any_of(%out_y30_r, %out_y30_u)
    %out_y31_r = irdl.base "!builtin.tensor"
    %out_y31_u = irdl.base "!builtin.unranked_tensor"
    %out_y31 = irdl.any_of(%out_y31_r, %out_y31_u)
    %out_y_rest_r = irdl.base "!builtin.tensor"
    %out_y_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_y_rest = irdl.any_of(%out_y_rest_r, %out_y_rest_u)
    irdl.operands(x: %in_x, size_splits: %in_size_splits, split_dim: %in_split_dim, ctrl_in: variadic %ctrl)
    irdl.results(y0: optional %out_y0, y1: optional %out_y1, y2: optional %out_y2, y3: optional %out_y3, y4: optional %out_y4, y5: optional %out_y5, y6: optional %out_y6, y7: optional %out_y7, y8: optional %out_y8, y9: optional %out_y9, y10: optional %out_y10, y11: optional %out_y11, y12: optional %out_y12, y13: optional %out_y13, y14: optional %out_y14, y15: optional %out_y15, y16: optional %out_y16, y17: optional %out_y17, y18: optional %out_y18, y19: optional %out_y19, y20: optional %out_y20, y21: optional %out_y21, y22: optional %out_y22, y23: optional %out_y23, y24: optional %out_y24, y25: optional %out_y25, y26: optional %out_y26, y27: optional %out_y27, y28: optional %out_y28, y29: optional %out_y29, y30: optional %out_y30, y31: optional %out_y31, y_rest: variadic %out_y_rest, ctrl: %ctrl)
  }

  // GE type ReduceSum on AIcoreEngine
  irdl.operation @reduce_sum {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_axes_r = irdl.base "!builtin.tensor"
    %in_axes_u = irdl.base "!builtin.unranked_tensor"
    %in_axes = irdl.any_of(%in_axes_r, %in_axes_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, axes: %in_axes, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type Gather on AIcoreEngine
  irdl.operation @gather {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x_r = irdl.base "!builtin.tensor"
    %in_x_u = irdl.base "!builtin.unranked_tensor"
    %in_x = irdl.any_of(%in_x_r, %in_x_u)
    %in_indices_r = irdl.base "!builtin.tensor"
    %in_indices_u = irdl.base "!builtin.unranked_tensor"
    %in_indices = irdl.any_of(%in_indices_r, %in_indices_u)
    %out_y_r = irdl.base "!builtin.tensor"
    %out_y_u = irdl.base "!builtin.unranked_tensor"
    %out_y = irdl.any_of(%out_y_r, %out_y_u)
    irdl.operands(x: %in_x, indices: %in_indices, ctrl_in: variadic %ctrl)
    irdl.results(y: %out_y, ctrl: %ctrl)
  }

  // GE type AddN on AIcoreEngine
  irdl.operation @add_n {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: variadic %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type * on AIcoreEngine
  irdl.operation @op {
    %ctrl = irdl.base @ascend::@ctrl
    %in_x0_r = irdl.base "!builtin.tensor"
    %in_x0_u = irdl.base "!builtin.unranked_tensor"
    %in_x0 = irdl.any_of(%in_x0_r, %in_x0_u)
    %in_x1_r = irdl.base "!builtin.tensor"
    %in_x1_u = irdl.base "!builtin.unranked_tensor"
    %in_x1 = irdl.any_of(%in_x1_r, %in_x1_u)
    %in_x2_r = irdl.base "!builtin.tensor"
    %in_x2_u = irdl.base "!builtin.unranked_tensor"
    %in_x2 = irdl.any_of(%in_x2_r, %in_x2_u)
    %in_x3_r = irdl.base "!builtin.tensor"
    %in_x3_u = irdl.base "!builtin.unranked_tensor"
    %in_x3 = irdl.any_of(%in_x3_r, %in_x3_u)
    %in_x4_r = irdl.base "!builtin.tensor"
    %in_x4_u = irdl.base "!builtin.unranked_tensor"
    %in_x4 = irdl.any_of(%in_x4_r, %in_x4_u)
    %in_x5_r = irdl.base "!builtin.tensor"
    %in_x5_u = irdl.base "!builtin.unranked_tensor"
    %in_x5 = irdl.any_of(%in_x5_r, %in_x5_u)
    %in_x6_r = irdl.base "!builtin.tensor"
    %in_x6_u = irdl.base "!builtin.unranked_tensor"
    %in_x6 = irdl.any_of(%in_x6_r, %in_x6_u)
    %in_x7_r = irdl.base "!builtin.tensor"
    %in_x7_u = irdl.base "!builtin.unranked_tensor"
    %in_x7 = irdl.any_of(%in_x7_r, %in_x7_u)
    %in_x8_r = irdl.base "!builtin.tensor"
    %in_x8_u = irdl.base "!builtin.unranked_tensor"
    %in_x8 = irdl.any_of(%in_x8_r, %in_x8_u)
    %in_x9_r = irdl.base "!builtin.tensor"
    %in_x9_u = irdl.base "!builtin.unranked_tensor"
    %in_x9 = irdl.any_of(%in_x9_r, %in_x9_u)
    %in_x10_r = irdl.base "!builtin.tensor"
    %in_x10_u = irdl.base "!builtin.unranked_tensor"
    %in_x10 = irdl.any_of(%in_x10_r, %in_x10_u)
    %in_x11_r = irdl.base "!builtin.tensor"
    %in_x11_u = irdl.base "!builtin.unranked_tensor"
    %in_x11 = irdl.any_of(%in_x11_r, %in_x11_u)
    %in_x12_r = irdl.base "!builtin.tensor"
    %in_x12_u = irdl.base "!builtin.unranked_tensor"
    %in_x12 = irdl.any_of(%in_x12_r, %in_x12_u)
    %in_x13_r = irdl.base "!builtin.tensor"
    %in_x13_u = irdl.base "!builtin.unranked_tensor"
    %in_x13 = irdl.any_of(%in_x13_r, %in_x13_u)
    %in_x14_r = irdl.base "!builtin.tensor"
    %in_x14_u = irdl.base "!builtin.unranked_tensor"
    %in_x14 = irdl.any_of(%in_x14_r, %in_x14_u)
    %in_x15_r = irdl.base "!builtin.tensor"
    %in_x15_u = irdl.base "!builtin.unranked_tensor"
    %in_x15 = irdl.any_of(%in_x15_r, %in_x15_u)
    %in_x16_r = irdl.base "!builtin.tensor"
    %in_x16_u = irdl.base "!builtin.unranked_tensor"
    %in_x16 = irdl.any_of(%in_x16_r, %in_x16_u)
    %in_x17_r = irdl.base "!builtin.tensor"
    %in_x17_u = irdl.base "!builtin.unranked_tensor"
    %in_x17 = irdl.any_of(%in_x17_r, %in_x17_u)
    %in_x18_r = irdl.base "!builtin.tensor"
    %in_x18_u = irdl.base "!builtin.unranked_tensor"
    %in_x18 = irdl.any_of(%in_x18_r, %in_x18_u)
    %in_x19_r = irdl.base "!builtin.tensor"
    %in_x19_u = irdl.base "!builtin.unranked_tensor"
    %in_x19 = irdl.any_of(%in_x19_r, %in_x19_u)
    %in_x20_r = irdl.base "!builtin.tensor"
    %in_x20_u = irdl.base "!builtin.unranked_tensor"
    %in_x20 = irdl.any_of(%in_x20_r, %in_x20_u)
    %in_x21_r = irdl.base "!builtin.tensor"
    %in_x21_u = irdl.base "!builtin.unranked_tensor"
    %in_x21 = irdl.any_of(%in_x21_r, %in_x21_u)
    %in_x22_r = irdl.base "!builtin.tensor"
    %in_x22_u = irdl.base "!builtin.unranked_tensor"
    %in_x22 = irdl.any_of(%in_x22_r, %in_x22_u)
    %in_x23_r = irdl.base "!builtin.tensor"
    %in_x23_u = irdl.base "!builtin.unranked_tensor"
    %in_x23 = irdl.any_of(%in_x23_r, %in_x23_u)
    %in_x24_r = irdl.base "!builtin.tensor"
    %in_x24_u = irdl.base "!builtin.unranked_tensor"
    %in_x24 = irdl.any_of(%in_x24_r, %in_x24_u)
    %in_x25_r = irdl.base "!builtin.tensor"
    %in_x25_u = irdl.base "!builtin.unranked_tensor"
    %in_x25 = irdl.any_of(%in_x25_r, %in_x25_u)
    %in_x26_r = irdl.base "!builtin.tensor"
    %in_x26_u = irdl.base "!builtin.unranked_tensor"
    %in_x26 = irdl.any_of(%in_x26_r, %in_x26_u)
    %in_x27_r = irdl.base "!builtin.tensor"
    %in_x27_u = irdl.base "!builtin.unranked_tensor"
    %in_x27 = irdl.any_of(%in_x27_r, %in_x27_u)
    %in_x28_r = irdl.base "!builtin.tensor"
    %in_x28_u = irdl.base "!builtin.unranked_tensor"
    %in_x28 = irdl.any_of(%in_x28_r, %in_x28_u)
    %in_x29_r = irdl.base "!builtin.tensor"
    %in_x29_u = irdl.base "!builtin.unranked_tensor"
    %in_x29 = irdl.any_of(%in_x29_r, %in_x29_u)
    %in_x30_r = irdl.base "!builtin.tensor"
    %in_x30_u = irdl.base "!builtin.unranked_tensor"
    %in_x30 = irdl.any_of(%in_x30_r, %in_x30_u)
    %in_x31_r = irdl.base "!builtin.tensor"
    %in_x31_u = irdl.base "!builtin.unranked_tensor"
    %in_x31 = irdl.any_of(%in_x31_r, %in_x31_u)
    %in_x_rest_r = irdl.base "!builtin.tensor"
    %in_x_rest_u = irdl.base "!builtin.unranked_tensor"
    %in_x_rest = irdl.any_of(%in_x_rest_r, %in_x_rest_u)
    %out_y0_r = irdl.base "!builtin.tensor"
    %out_y0_u = irdl.base "!builtin.unranked_tensor"
    %out_y0 = irdl.any_of(%out_y0_r, %out_y0_u)
    %out_y1_r = irdl.base "!builtin.tensor"
    %out_y1_u = irdl.base "!builtin.unranked_tensor"
    %out_y1 = irdl.any_of(%out_y1_r, %out_y1_u)
    %out_y2_r = irdl.base "!builtin.tensor"
    %out_y2_u = irdl.base "!builtin.unranked_tensor"
    %out_y2 = irdl.any_of(%out_y2_r, %out_y2_u)
    %out_y3_r = irdl.base "!builtin.tensor"
    %out_y3_u = irdl.base "!builtin.unranked_tensor"
    %out_y3 = irdl.any_of(%out_y3_r, %out_y3_u)
    %out_y4_r = irdl.base "!builtin.tensor"
    %out_y4_u = irdl.base "!builtin.unranked_tensor"
    %out_y4 = irdl.any_of(%out_y4_r, %out_y4_u)
    %out_y5_r = irdl.base "!builtin.tensor"
    %out_y5_u = irdl.base "!builtin.unranked_tensor"
    %out_y5 = irdl.any_of(%out_y5_r, %out_y5_u)
    %out_y6_r = irdl.base "!builtin.tensor"
    %out_y6_u = irdl.base "!builtin.unranked_tensor"
    %out_y6 = irdl.any_of(%out_y6_r, %out_y6_u)
    %out_y7_r = irdl.base "!builtin.tensor"
    %out_y7_u = irdl.base "!builtin.unranked_tensor"
    %out_y7 = irdl.any_of(%out_y7_r, %out_y7_u)
    %out_y8_r = irdl.base "!builtin.tensor"
    %out_y8_u = irdl.base "!builtin.unranked_tensor"
    %out_y8 = irdl.any_of(%out_y8_r, %out_y8_u)
    %out_y9_r = irdl.base "!builtin.tensor"
    %out_y9_u = irdl.base "!builtin.unranked_tensor"
    %out_y9 = irdl.any_of(%out_y9_r, %out_y9_u)
    %out_y10_r = irdl.base "!builtin.tensor"
    %out_y10_u = irdl.base "!builtin.unranked_tensor"
    %out_y10 = irdl.any_of(%out_y10_r, %out_y10_u)
    %out_y11_r = irdl.base "!builtin.tensor"
    %out_y11_u = irdl.base "!builtin.unranked_tensor"
    %out_y11 = irdl.any_of(%out_y11_r, %out_y11_u)
    %out_y12_r = irdl.base "!builtin.tensor"
    %out_y12_u = irdl.base "!builtin.unranked_tensor"
    %out_y12 = irdl.any_of(%out_y12_r, %out_y12_u)
    %out_y13_r = irdl.base "!builtin.tensor"
    %out_y13_u = irdl.base "!builtin.unranked_tensor"
    %out_y13 = irdl.any_of(%out_y13_r, %out_y13_u)
    %out_y14_r = irdl.base "!builtin.tensor"
    %out_y14_u = irdl.base "!builtin.unranked_tensor"
    %out_y14 = irdl.any_of(%out_y14_r, %out_y14_u)
    %out_y15_r = irdl.base "!builtin.tensor"
    %out_y15_u = irdl.base "!builtin.unranked_tensor"
    %out_y15 = irdl.any_of(%out_y15_r, %out_y15_u)
    %out_y16_r = irdl.base "!builtin.tensor"
    %out_y16_u = irdl.base "!builtin.unranked_tensor"
    %out_y16 = irdl.any_of(%out_y16_r, %out_y16_u)
    %out_y17_r = irdl.base "!builtin.tensor"
    %out_y17_u = irdl.base "!builtin.unranked_tensor"
    %out_y17 = irdl.any_of(%out_y17_r, %out_y17_u)
    %out_y18_r = irdl.base "!builtin.tensor"
    %out_y18_u = irdl.base "!builtin.unranked_tensor"
    %out_y18 = irdl.any_of(%out_y18_r, %out_y18_u)
    %out_y19_r = irdl.base "!builtin.tensor"
    %out_y19_u = irdl.base "!builtin.unranked_tensor"
    %out_y19 = irdl.any_of(%out_y19_r, %out_y19_u)
    %out_y20_r = irdl.base "!builtin.tensor"
    %out_y20_u = irdl.base "!builtin.unranked_tensor"
    %out_y20 = irdl.any_of(%out_y20_r, %out_y20_u)
    %out_y21_r = irdl.base "!builtin.tensor"
    %out_y21_u = irdl.base "!builtin.unranked_tensor"
    %out_y21 = irdl.any_of(%out_y21_r, %out_y21_u)
    %out_y22_r = irdl.base "!builtin.tensor"
    %out_y22_u = irdl.base "!builtin.unranked_tensor"
    %out_y22 = irdl.any_of(%out_y22_r, %out_y22_u)
    %out_y23_r = irdl.base "!builtin.tensor"
    %out_y23_u = irdl.base "!builtin.unranked_tensor"
    %out_y23 = irdl.any_of(%out_y23_r, %out_y23_u)
    %out_y24_r = irdl.base "!builtin.tensor"
    %out_y24_u = irdl.base "!builtin.unranked_tensor"
    %out_y24 = irdl.any_of(%out_y24_r, %out_y24_u)
    %out_y25_r = irdl.base "!builtin.tensor"
    %out_y25_u = irdl.base "!builtin.unranked_tensor"
    %out_y25 = irdl.any_of(%out_y25_r, %out_y25_u)
    %out_y26_r = irdl.base "!builtin.tensor"
    %out_y26_u = irdl.base "!builtin.unranked_tensor"
    %out_y26 = irdl.any_of(%out_y26_r, %out_y26_u)
    %out_y27_r = irdl.base "!builtin.tensor"
    %out_y27_u = irdl.base "!builtin.unranked_tensor"
    %out_y27 = irdl.any_of(%out_y27_r, %out_y27_u)
    %out_y28_r = irdl.base "!builtin.tensor"
    %out_y28_u = irdl.base "!builtin.unranked_tensor"
    %out_y28 = irdl.any_of(%out_y28_r, %out_y28_u)
    %out_y29_r = irdl.base "!builtin.tensor"
    %out_y29_u = irdl.base "!builtin.unranked_tensor"
    %out_y29 = irdl.any_of(%out_y29_r, %out_y29_u)
    %out_y30_r = irdl.base "!builtin.tensor"
    %out_y30_u = irdl.base "!builtin.unranked_tensor"
    %out_y30 = irdl.any_of(%out_y30_r, %out_y30_u)
    %out_y31_r = irdl.base "!builtin.tensor"
    %out_y31_u = irdl.base "!builtin.unranked_tensor"
    %out_y31 = irdl.any_of(%out_y31_r, %out_y31_u)
    %out_y_rest_r = irdl.base "!builtin.tensor"
    %out_y_rest_u = irdl.base "!builtin.unranked_tensor"
    %out_y_rest = irdl.any_of(%out_y_rest_r, %out_y_rest_u)
    %attr_type = irdl.base "#builtin.string"
    irdl.operands(x0: optional %in_x0, x1: optional %in_x1, x2: optional %in_x2, x3: optional %in_x3, x4: optional %in_x4, x5: optional %in_x5, x6: optional %in_x6, x7: optional %in_x7, x8: optional %in_x8, x9: optional %in_x9, x10: optional %in_x10, x11: optional %in_x11, x12: optional %in_x12, x13: optional %in_x13, x14: optional %in_x14, x15: optional %in_x15, x16: optional %in_x16, x17: optional %in_x17, x18: optional %in_x18, x19: optional %in_x19, x20: optional %in_x20, x21: optional %in_x21, x22: optional %in_x22, x23: optional %in_x23, x24: optional %in_x24, x25: optional %in_x25, x26: optional %in_x26, x27: optional %in_x27, x28: optional %in_x28, x29: optional %in_x29, x30: optional %in_x30, x31: optional %in_x31, x_rest: variadic %in_x_rest, ctrl_in: variadic %ctrl)
    irdl.results(y0: optional %out_y0, y1: optional %out_y1, y2: optional %out_y2, y3: optional %out_y3, y4: optional %out_y4, y5: optional %out_y5, y6: optional %out_y6, y7: optional %out_y7, y8: optional %out_y8, y9: optional %out_y9, y10: optional %out_y10, y11: optional %out_y11, y12: optional %out_y12, y13: optional %out_y13, y14: optional %out_y14, y15: optional %out_y15, y16: optional %out_y16, y17: optional %out_y17, y18: optional %out_y18, y19: optional %out_y19, y20: optional %out_y20, y21: optional %out_y21, y22: optional %out_y22, y23: optional %out_y23, y24: optional %out_y24, y25: optional %out_y25, y26: optional %out_y26, y27: optional %out_y27, y28: optional %out_y28, y29: optional %out_y29, y30: optional %out_y30, y31: optional %out_y31, y_rest: variadic %out_y_rest, ctrl: %ctrl)
    irdl.attributes {"type" = %attr_type}
  }

  // GE type Switch on DNN_VM_GE_LOCAL
  irdl.operation @switch {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_pred_r = irdl.base "!builtin.tensor"
    %in_pred_u = irdl.base "!builtin.unranked_tensor"
    %in_pred = irdl.any_of(%in_pred_r, %in_pred_u)
    irdl.operands(data: %same0, pred: %in_pred, ctrl_in: variadic %ctrl)
    irdl.results(output_false: %same0, output_true: %same0, ctrl: %ctrl)
  }

  // GE type RefSwitch on DNN_VM_GE_LOCAL
  irdl.operation @ref_switch {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    %in_pred_r = irdl.base "!builtin.tensor"
    %in_pred_u = irdl.base "!builtin.unranked_tensor"
    %in_pred = irdl.any_of(%in_pred_r, %in_pred_u)
    irdl.operands(data: %same0, pred: %in_pred, ctrl_in: variadic %ctrl)
    irdl.results(output_false: %same0, output_true: %same0, ctrl: %ctrl)
  }

  // GE type LoopCond on DNN_VM_GE_LOCAL
  irdl.operation @loop_cond {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type Enter on DNN_VM_GE_LOCAL
  irdl.operation @enter {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type NextIteration on DNN_VM_GE_LOCAL
  irdl.operation @next_iteration {
    %ctrl = irdl.base @ascend::@ctrl
    %same0_r = irdl.base "!builtin.tensor"
    %same0_u = irdl.base "!builtin.unranked_tensor"
    %same0 = irdl.any_of(%same0_r, %same0_u)
    irdl.operands(x: %same0, ctrl_in: variadic %ctrl)
    irdl.results(y: %same0, ctrl: %ctrl)
  }

  // GE type SwitchN on DNN_VM_GE_LOCAL
  irdl.operation @switch_n {
    %ctrl = irdl.base @ascend::@ctrl
    %in_data_r = irdl.base "!builtin.tensor"
    %in_data_u = irdl.base "!builtin.unranked_tensor"
    %in_data = irdl.any_of(%in_data_r, %in_data_u)
    %in_pred_value_r = irdl.base "!builtin.tensor"
    %in_pred_value_u = irdl.base "!builtin.unranked_tensor"
    %in_pred_value = irdl.any_of(%in_pred_value_r, %in_pred_value_u)
    %out_output_r = irdl.base "!builtin.tensor"
    %out_output_u = irdl.base "!builtin.unranked_tensor"
    %out_output = irdl.any_of(%out_output_r, %out_output_u)
    irdl.operands(data: %in_data, pred_value: %in_pred_value, ctrl_in: variadic %ctrl)
    irdl.results(output: variadic %out_output, ctrl: %ctrl)
  }
}
