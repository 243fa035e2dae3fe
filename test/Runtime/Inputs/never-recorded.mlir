module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 1 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 0 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.event_wait"() {node = "r", event = 0 : i64} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}
