// The `ascend_task` dialect: a lowered model (per-stream task lists), see dialects/README.md.
// Hand-written (the ops are few and fixed); src/dialect/context.rs embeds and loads it.
irdl.dialect @ascend_task {
  // the model's counts and sizes
  irdl.operation @model {
    %name = irdl.any
    %stream_num = irdl.any
    %event_num = irdl.any
    %notify_num = irdl.any
    %label_num = irdl.any
    %memory_size = irdl.any
    %weight_size = irdl.any
    %var_size = irdl.any
    irdl.attributes {"name" = %name, "stream_num" = %stream_num, "event_num" = %event_num, "notify_num" = %notify_num, "label_num" = %label_num, "memory_size" = %memory_size, "weight_size" = %weight_size, "var_size" = %var_size}
  }
  // a Const's bytes in the weight region
  irdl.operation @weight {
    %node = irdl.any
    %offset = irdl.any
    %type = irdl.any
    %bytes = irdl.any
    irdl.attributes {"node" = %node, "offset" = %offset, "type" = %type, "bytes" = %bytes}
  }
  // a Variable's slot in the variable region (optional `init` bytes)
  irdl.operation @variable {
    %node = irdl.any
    %offset = irdl.any
    %type = irdl.any
    irdl.attributes {"node" = %node, "offset" = %offset, "type" = %type}
  }
  // model input `index`
  irdl.operation @input {
    %index = irdl.any
    %node = irdl.any
    %type = irdl.any
    irdl.attributes {"index" = %index, "node" = %node, "type" = %type}
  }
  // model output `index` and where its bytes are
  irdl.operation @output {
    %index = irdl.any
    %source = irdl.any
    %addr = irdl.any
    irdl.attributes {"index" = %index, "source" = %source, "addr" = %addr}
  }
  // MODEL_TASK_KERNEL: one aclopExecuteV2 (optional `placement`: "host" computed on the host, "p2p" outputs in P2P memory)
  irdl.operation @kernel {
    %op_type = irdl.any
    %node = irdl.any
    %attrs = irdl.any
    %ins = irdl.any
    %outs = irdl.any
    irdl.attributes {"op_type" = %op_type, "node" = %node, "attrs" = %attrs, "ins" = %ins, "outs" = %outs}
  }
  // MODEL_TASK_EVENT_RECORD
  irdl.operation @event_record {
    %node = irdl.any
    %event = irdl.any
    irdl.attributes {"node" = %node, "event" = %event}
  }
  // MODEL_TASK_EVENT_WAIT
  irdl.operation @event_wait {
    %node = irdl.any
    %event = irdl.any
    irdl.attributes {"node" = %node, "event" = %event}
  }
  // MODEL_TASK_EVENT_RESET
  irdl.operation @event_reset {
    %node = irdl.any
    %event = irdl.any
    irdl.attributes {"node" = %node, "event" = %event}
  }
  // MODEL_TASK_NOTIFY_RECORD
  irdl.operation @notify_record {
    %node = irdl.any
    %notify = irdl.any
    irdl.attributes {"node" = %node, "notify" = %notify}
  }
  // MODEL_TASK_NOTIFY_WAIT
  irdl.operation @notify_wait {
    %node = irdl.any
    %notify = irdl.any
    irdl.attributes {"node" = %node, "notify" = %notify}
  }
  // MODEL_TASK_MEMCPY_ASYNC (device to device)
  irdl.operation @memcpy_async {
    %node = irdl.any
    %src = irdl.any
    %dst = irdl.any
    irdl.attributes {"node" = %node, "src" = %src, "dst" = %dst}
  }
  // a memset of `dst` = [region, offset, size]
  irdl.operation @memset {
    %node = irdl.any
    %dst = irdl.any
    %value = irdl.any
    irdl.attributes {"node" = %node, "dst" = %dst, "value" = %value}
  }
  // MODEL_TASK_HCCL: one collective
  irdl.operation @hccl {
    %node = irdl.any
    %collective = irdl.any
    %group = irdl.any
    %reduction = irdl.any
    %root_rank = irdl.any
    %ins = irdl.any
    %outs = irdl.any
    irdl.attributes {"node" = %node, "collective" = %collective, "group" = %group, "reduction" = %reduction, "root_rank" = %root_rank, "ins" = %ins, "outs" = %outs}
  }
  // MODEL_TASK_STREAM_ACTIVE
  irdl.operation @stream_active {
    %node = irdl.any
    %stream = irdl.any
    irdl.attributes {"node" = %node, "stream" = %stream}
  }
  // MODEL_TASK_STREAM_SWITCH
  irdl.operation @stream_switch {
    %node = irdl.any
    %value = irdl.any
    %cond = irdl.any
    %target = irdl.any
    %true_stream = irdl.any
    irdl.attributes {"node" = %node, "value" = %value, "cond" = %cond, "target" = %target, "true_stream" = %true_stream}
  }
  // MODEL_TASK_LABEL_SET
  irdl.operation @label_set {
    %node = irdl.any
    %label = irdl.any
    irdl.attributes {"node" = %node, "label" = %label}
  }
  // MODEL_TASK_LABEL_GOTO (LabelGotoEx)
  irdl.operation @label_goto {
    %node = irdl.any
    %label = irdl.any
    irdl.attributes {"node" = %node, "label" = %label}
  }
  // MODEL_TASK_STREAM_LABEL_SWITCH_BY_INDEX
  irdl.operation @label_switch_by_index {
    %node = irdl.any
    %index = irdl.any
    %labels = irdl.any
    irdl.attributes {"node" = %node, "index" = %index, "labels" = %labels}
  }
  // MODEL_TASK_MODEL_END_GRAPH
  irdl.operation @model_end_graph {
  }
}
