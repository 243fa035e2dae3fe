// RUN: ge-opt --split-input-file --verify-diagnostics --verify-tasks %s
// RUN: not ge-opt --verify-tasks %S/Inputs/bad-wait.mlir 2>&1 | FileCheck %s --check-prefix=LOC
//
// Every verifier error of --verify-tasks, each at the op it is about.
// LOC: bad-wait.mlir:4:5: error: verify-tasks: event 0 is waited but never recorded on another stream

// A wait whose event no other stream records.
module {
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 1 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
  func.func @stream1() attributes {stream_id = 1 : i64, activated = false} {
    // expected-error @+1 {{event 0 is waited but never recorded on another stream}}
    "ascend_task.event_wait"() {node = "r", event = 0 : i64} : () -> ()
    "ascend_task.event_reset"() {node = "r", event = 0 : i64} : () -> ()
    func.return
  }
}

// -----

// An event id at or above event_num.
module {
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 1 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    // expected-error @+1 {{event 3 is out of range (event_num 1)}}
    "ascend_task.event_record"() {node = "s", event = 3 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
  func.func @stream1() attributes {stream_id = 1 : i64, activated = false} {
    // expected-error @+1 {{event 3 is out of range (event_num 1)}}
    "ascend_task.event_wait"() {node = "r", event = 3 : i64} : () -> ()
    // expected-error @+1 {{event 3 is out of range (event_num 1)}}
    "ascend_task.event_reset"() {node = "r", event = 3 : i64} : () -> ()
    func.return
  }
}

// -----

// A reset before the stream waits for the event.
module {
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 1 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.event_record"() {node = "s", event = 0 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
  func.func @stream1() attributes {stream_id = 1 : i64, activated = false} {
    // expected-error @+1 {{event 0 is reset before this stream waits for it}}
    "ascend_task.event_reset"() {node = "r", event = 0 : i64} : () -> ()
    "ascend_task.event_wait"() {node = "r", event = 0 : i64} : () -> ()
    func.return
  }
}

// -----

// A goto to a label set on another stream, and a switch to a label never set.
module {
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 2 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    // expected-error @+1 {{label 0 is set on stream 1, not on this stream 0}}
    "ascend_task.label_goto"() {node = "g", label = 0 : i64} : () -> ()
    // expected-error @+1 {{label 1 is never set}}
    "ascend_task.label_switch_by_index"() {node = "sw", index = ["ws", 0, 4, tensor<i32>], labels = array<i64: 1>} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
  func.func @stream1() attributes {stream_id = 1 : i64, activated = false} {
    "ascend_task.label_set"() {node = "l", label = 0 : i64} : () -> ()
    func.return
  }
}

// -----

// A label id out of range, set twice.
module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 1 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.label_set"() {node = "l", label = 0 : i64} : () -> ()
    // expected-error @+1 {{label 0 is set twice}}
    "ascend_task.label_set"() {node = "l2", label = 0 : i64} : () -> ()
    // expected-error @+1 {{label 5 is out of range (label_num 1)}}
    "ascend_task.label_set"() {node = "l3", label = 5 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}

// -----

// A switch index that is not an int32 scalar.
module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 1 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.label_set"() {node = "l", label = 0 : i64} : () -> ()
    // expected-error @+1 {{the switch index must be an int32/uint32 scalar}}
    "ascend_task.label_switch_by_index"() {node = "sw", index = ["ws", 0, 4, tensor<f32>], labels = array<i64: 0>} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}

// -----

// Activations of a stream that does not exist and of a HEAD stream.
module {
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    // expected-error @+1 {{activates stream 7, which does not exist}}
    "ascend_task.stream_active"() {node = "a", stream = 7 : i64} : () -> ()
    // expected-error @+1 {{activates stream 1, which is bound as a HEAD stream (activated = false)}}
    "ascend_task.stream_active"() {node = "a", stream = 1 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
  func.func @stream1() attributes {stream_id = 1 : i64, activated = false} {

    func.return
  }
}

// -----

// A stream marked activated that nothing activates.
module {
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
  // expected-error @+1 {{stream 1 is marked activated but no task activates it}}
  func.func @stream1() attributes {stream_id = 1 : i64, activated = true} {

    func.return
  }
}

// -----

// Addresses outside the workspace, an unknown input, an operand too small for its tensor.
module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    // expected-error @+1 {{input 0: bytes [1000, 1064) lie outside the workspace (1024 bytes)}}
    "ascend_task.kernel"() {op_type = "Relu", node = "k", attrs = {}, ins = [["ws", 1000, 64, tensor<16xf32>]], outs = [["ws", 0, 64, tensor<16xf32>]]} : () -> ()
    // expected-error @+1 {{source: model input 3 does not exist}}
    "ascend_task.memcpy_async"() {node = "c", src = ["input:3", 0, 64, tensor<16xf32>], dst = ["ws", 0, 64, tensor<16xf32>]} : () -> ()
    // expected-error @+1 {{output 0: 32 bytes cannot hold its tensor of 64 bytes}}
    "ascend_task.kernel"() {op_type = "Relu", node = "k2", attrs = {}, ins = [["ws", 0, 64, tensor<16xf32>]], outs = [["ws", 64, 32, tensor<16xf32>]]} : () -> ()
    // expected-error @+1 {{memset: bytes [1020, 1028) lie outside the workspace (1024 bytes)}}
    "ascend_task.memset"() {node = "z", dst = ["ws", 1020, 8], value = 0 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}

// -----

// A task attribute of the wrong kind (the reader's error; a missing one is IRDL's).
module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    // expected-error @+1 {{read-tasks: ascend_task.kernel: `outs` must be an array of operands}}
    "ascend_task.kernel"() {op_type = "Relu", node = "k", attrs = {}, ins = [], outs = 3 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}

// -----

// An operand that is not [region, offset, size, type].
module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    // expected-error @+1 {{read-tasks: ascend_task.memcpy_async: `src`: the region must be}}
    "ascend_task.memcpy_async"() {node = "c", src = ["l2", 0, 64, tensor<16xf32>], dst = ["ws", 0, 64, tensor<16xf32>]} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}

// -----

// stream_num that does not match the streams, and no MODEL_END_GRAPH.
module {
  // expected-error @+2 {{stream_num is 2 but the model has 1 streams}}
  // expected-error @+1 {{the model has 0 MODEL_END_GRAPH tasks, expected 1}}
  "ascend_task.model"() {name = "m", stream_num = 2 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 0 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    func.return
  }
}
