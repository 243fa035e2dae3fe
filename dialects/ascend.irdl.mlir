// Hand-written on the `syntax` branch for its lit tests (data, add, if, op); the IRDL
// generated from the table on the `dialect` branch supersedes this file at merge.
irdl.dialect @ascend {
  irdl.type @ctrl
  irdl.operation @data {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %t, ctrl_in: variadic %c)
    irdl.results(y: %t, ctrl: %c)
  }
  irdl.operation @add {
    %t = irdl.any
    %c = irdl.base @ascend::@ctrl
    irdl.operands(x: %t, y: %t, ctrl_in: variadic %c)
    irdl.results(z: %t, ctrl: %c)
  }
  irdl.operation @if {
    %cond = irdl.any
    %in0 = irdl.any
    %in1 = irdl.any
    %in_rest = irdl.any
    %out0 = irdl.any
    %out1 = irdl.any
    %out_rest = irdl.any
    %c = irdl.base @ascend::@ctrl
    %then = irdl.base "#builtin.symbol_ref"
    %else = irdl.base "#builtin.symbol_ref"
    irdl.operands(cond: %cond, input0: optional %in0, input1: optional %in1, input_rest: variadic %in_rest, ctrl_in: variadic %c)
    irdl.results(output0: optional %out0, output1: optional %out1, output_rest: variadic %out_rest, ctrl: %c)
    irdl.attributes { "then_branch" = %then, "else_branch" = %else }
  }
  irdl.operation @op {
    %x0 = irdl.any
    %x1 = irdl.any
    %x_rest = irdl.any
    %y0 = irdl.any
    %y1 = irdl.any
    %y_rest = irdl.any
    %c = irdl.base @ascend::@ctrl
    %type = irdl.base "#builtin.string"
    irdl.operands(x0: optional %x0, x1: optional %x1, x_rest: variadic %x_rest, ctrl_in: variadic %c)
    irdl.results(y0: optional %y0, y1: optional %y1, y_rest: variadic %y_rest, ctrl: %c)
    irdl.attributes { "type" = %type }
  }
}
