irdl.dialect @ascend {
  irdl.type @ctrl
  irdl.operation @data {
    %x = irdl.any
    %y = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %x, ctrl_in: variadic %c)
    irdl.results(y: %y, ctrl: %c)
  }
  irdl.operation @const {
    %y = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %c)
    irdl.results(y: %y, ctrl: %c)
  }
  irdl.operation @add {
    %x1 = irdl.any
    %x2 = irdl.any
    %y = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x1: %x1, x2: %x2, ctrl_in: variadic %c)
    irdl.results(y: %y, ctrl: %c)
  }
  irdl.operation @identity {
    %x = irdl.any
    %y = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %x, ctrl_in: variadic %c)
    irdl.results(y: %y, ctrl: %c)
  }
  irdl.operation @add_n {
    %x = irdl.any
    %y = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: variadic %x, ctrl_in: variadic %c)
    irdl.results(y: %y, ctrl: %c)
  }
  irdl.operation @no_op {
    %c = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %c)
    irdl.results(ctrl: %c)
  }
  irdl.operation @atomic_addr_clean {
    %c = irdl.base @ascend::@ctrl
    irdl.operands(ctrl_in: variadic %c)
    irdl.results(ctrl: %c)
  }
  irdl.operation @switch {
    %d = irdl.any
    %p = irdl.any
    %f = irdl.any
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(data: %d, pred: %p, ctrl_in: variadic %c)
    irdl.results(output_false: %f, output_true: %t, ctrl: %c)
  }
  irdl.operation @if {
    %b = irdl.any
    %i0 = irdl.any
    %i1 = irdl.any
    %ir = irdl.any
    %o0 = irdl.any
    %o1 = irdl.any
    %or = irdl.any
    %c = irdl.base @ascend::@ctrl
    %then = irdl.base "#builtin.symbol_ref"
    %else = irdl.base "#builtin.symbol_ref"
    irdl.operands(cond: %b, input0: optional %i0, input1: optional %i1, input_rest: variadic %ir, ctrl_in: variadic %c)
    irdl.results(output0: optional %o0, output1: optional %o1, output_rest: variadic %or, ctrl: %c)
    irdl.attributes { "then_branch" = %then, "else_branch" = %else }
  }
  irdl.operation @op {
    %x0 = irdl.any
    %x1 = irdl.any
    %xr = irdl.any
    %y0 = irdl.any
    %y1 = irdl.any
    %yr = irdl.any
    %c = irdl.base @ascend::@ctrl
    %type = irdl.base "#builtin.string"
    irdl.operands(x0: optional %x0, x1: optional %x1, x_rest: variadic %xr, ctrl_in: variadic %c)
    irdl.results(y0: optional %y0, y1: optional %y1, y_rest: variadic %yr, ctrl: %c)
    irdl.attributes { "type" = %type }
  }
}
