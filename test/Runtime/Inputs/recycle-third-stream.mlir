// A page born on stream 1 and read on streams 0 and 2, written so that the dynamic
// executor's round-robin host order (flow.rs) reaches the case GE's wait-time merge
// gets wrong (issue 20): stream 0 records e2 (0 -> 1) carrying its recycle entry of
// `x1`, then waits e3 (2 -> 0) and so learns stream 2's clear of `x1`; stream 1 waits e2
// only after that (the label is a no-op that holds it back one host round). Merging
// stream 0's mask as it is at that wait tells stream 1 nobody uses `x1` any more, and
// `y` (stream 1) re-uses its page while `z2` (stream 2) may still read it: nothing orders
// `z2` before `y`. Merging stream 0's mask as it was at e2's record keeps the page.
// Offsets are distinct, so the static plan is race-free too.
module {
  "ascend_task.model"() {name = "recycle", stream_num = 3 : i64, event_num = 4 : i64, notify_num = 0 : i64, label_num = 1 : i64, memory_size = 20480 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  "ascend_task.input"() {index = 0 : i64, node = "x", type = tensor<1024xf32>} : () -> ()
  "ascend_task.output"() {addr = ["ws", 4096, 4096, tensor<1024xf32>], index = 0 : i64, source = "z0:0"} : () -> ()
  "ascend_task.output"() {addr = ["ws", 8192, 4096, tensor<1024xf32>], index = 1 : i64, source = "w1:0"} : () -> ()
  "ascend_task.output"() {addr = ["ws", 12288, 4096, tensor<1024xf32>], index = 2 : i64, source = "z2:0"} : () -> ()
  "ascend_task.output"() {addr = ["ws", 16384, 4096, tensor<1024xf32>], index = 3 : i64, source = "y:0"} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.event_wait"() {node = "z0_Recv_0", event = 0 : i64} : () -> ()
    "ascend_task.kernel"() {attrs = {}, ins = [["ws", 0, 4096, tensor<1024xf32>]], node = "z0", op_type = "Relu", outs = [["ws", 4096, 4096, tensor<1024xf32>]]} : () -> ()
    "ascend_task.event_record"() {node = "z0_Send_2", event = 2 : i64} : () -> ()
    "ascend_task.event_wait"() {node = "z0_Recv_3", event = 3 : i64} : () -> ()
    func.return
  }
  func.func @stream1() attributes {stream_id = 1 : i64, activated = false} {
    "ascend_task.kernel"() {attrs = {}, ins = [["input:0", 0, 4096, tensor<1024xf32>]], node = "x1", op_type = "Relu", outs = [["ws", 0, 4096, tensor<1024xf32>]]} : () -> ()
    "ascend_task.event_record"() {node = "x1_Send_0", event = 0 : i64} : () -> ()
    "ascend_task.event_record"() {node = "x1_Send_1", event = 1 : i64} : () -> ()
    "ascend_task.kernel"() {attrs = {}, ins = [["ws", 0, 4096, tensor<1024xf32>]], node = "w1", op_type = "Relu", outs = [["ws", 8192, 4096, tensor<1024xf32>]]} : () -> ()
    "ascend_task.label_set"() {node = "hold", label = 0 : i64} : () -> ()
    "ascend_task.event_wait"() {node = "y_Recv_2", event = 2 : i64} : () -> ()
    "ascend_task.kernel"() {attrs = {}, ins = [["input:0", 0, 4096, tensor<1024xf32>]], node = "y", op_type = "Relu", outs = [["ws", 16384, 4096, tensor<1024xf32>]]} : () -> ()
    func.return
  }
  func.func @stream2() attributes {stream_id = 2 : i64, activated = false} {
    "ascend_task.event_wait"() {node = "z2_Recv_1", event = 1 : i64} : () -> ()
    "ascend_task.kernel"() {attrs = {}, ins = [["ws", 0, 4096, tensor<1024xf32>]], node = "z2", op_type = "Relu", outs = [["ws", 12288, 4096, tensor<1024xf32>]]} : () -> ()
    "ascend_task.event_record"() {node = "z2_Send_3", event = 3 : i64} : () -> ()
    func.return
  }
}
