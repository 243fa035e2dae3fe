irdl.dialect @ascend {
  irdl.type @ctrl
  irdl.operation @add {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %t, y: %t, ctrl_in: variadic %c)
    irdl.results(z: %t, ctrl: %c)
  }
  irdl.operation @if {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    %s = irdl.base "#builtin.symbol_ref"
    irdl.operands(cond: %t, ins: variadic %t, ctrl_in: variadic %c)
    irdl.results(outs: variadic %t, ctrl: %c)
    irdl.attributes { "then_branch" = %s, "else_branch" = %s }
  }
}
