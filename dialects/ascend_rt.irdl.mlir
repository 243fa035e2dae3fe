// The `ascend_rt` dialect: GE's runtime v2 execute graph (gert's lowering result), built
// by `--lower-to-rt` from a compiled `ascend` module and rewritten by the runtime passes
// (`--rt-chain-conflict`, `--rt-subgraph-guarders`, `--rt-placement-copies`); see
// dialects/README.md. Graphs are `func.func`s (the root public, branch frames private,
// named by the `branches` of their `cond`); values are `!ascend_rt.tensor` holders.
// Hand-written; src/dialect/context.rs embeds and loads it.
irdl.dialect @ascend_rt {
  // a tensor holder of the execute graph (shape and address)
  irdl.type @tensor
  // a model input (user memory: no guarder)
  irdl.operation @data {
    %t = irdl.base @ascend_rt::@tensor
    %name = irdl.any
    %index = irdl.any
    irdl.results(output: %t)
    irdl.attributes {"name" = %name, "index" = %index}
  }
  // a weight (model memory: no guarder)
  irdl.operation @const {
    %t = irdl.base @ascend_rt::@tensor
    %name = irdl.any
    irdl.results(output: %t)
    irdl.attributes {"name" = %name}
  }
  // a kernel launch of GE op `type`; `placement` (host, hbm, p2p) where its outputs live
  irdl.operation @node {
    %t = irdl.base @ascend_rt::@tensor
    %name = irdl.any
    %type = irdl.any
    irdl.operands(inputs: variadic %t)
    irdl.results(outputs: variadic %t)
    irdl.attributes {"name" = %name, "type" = %type}
  }
  // a guarder (FreeMemory, ...): releases input `release_index`, after the tensor's other readers
  irdl.operation @guarder {
    %t = irdl.base @ascend_rt::@tensor
    %type = irdl.any
    %release_index = irdl.any
    irdl.operands(inputs: variadic %t)
    irdl.attributes {"type" = %type, "release_index" = %release_index}
  }
  // If / Case: input 0 the condition, the rest fed to each branch's inner_data
  irdl.operation @cond {
    %t = irdl.base @ascend_rt::@tensor
    %name = irdl.any
    %type = irdl.any
    %branches = irdl.any
    irdl.operands(cond: %t, inputs: variadic %t)
    irdl.results(outputs: variadic %t)
    irdl.attributes {"name" = %name, "type" = %type, "branches" = %branches}
  }
  // a branch input: parent input `index` + 1 (optional `guarder_outside`: the parent's guarder type)
  irdl.operation @inner_data {
    %t = irdl.base @ascend_rt::@tensor
    %index = irdl.any
    irdl.results(output: %t)
    irdl.attributes {"index" = %index}
  }
  // a branch's outputs, by position: the parent's outputs
  irdl.operation @inner_netoutput {
    %t = irdl.base @ascend_rt::@tensor
    irdl.operands(inputs: variadic %t)
  }
  // the root graph's outputs
  irdl.operation @netoutput {
    %t = irdl.base @ascend_rt::@tensor
    irdl.operands(inputs: variadic %t)
  }
  // zero-cost pass-through: input k is output k (conflicting branch outputs)
  irdl.operation @point_from_inputs {
    %t = irdl.base @ascend_rt::@tensor
    %name = irdl.any
    irdl.operands(inputs: variadic %t)
    irdl.results(outputs: variadic %t)
    irdl.attributes {"name" = %name}
  }
  // plus-ref pass-through: input k is output k, one more reference on each
  irdl.operation @identity_addr {
    %t = irdl.base @ascend_rt::@tensor
    %name = irdl.any
    irdl.operands(inputs: variadic %t)
    irdl.results(outputs: variadic %t)
    irdl.attributes {"name" = %name}
  }
}
