// A kernel task whose placement is none of "host", "hbm", "p2p" (or absent).
module {
  "ascend_task.model"() {name = "m", stream_num = 1 : i64, event_num = 0 : i64, notify_num = 0 : i64, label_num = 0 : i64, memory_size = 1024 : i64, weight_size = 0 : i64, var_size = 0 : i64} : () -> ()
  func.func @stream0() attributes {stream_id = 0 : i64, activated = false} {
    "ascend_task.kernel"() {attrs = {}, ins = [["ws", 0, 96, tensor<4x6xf32>]], node = "r", op_type = "Relu", outs = [["ws", 512, 96, tensor<4x6xf32>]], placement = "hbm2"} : () -> ()
    "ascend_task.model_end_graph"() : () -> ()
    func.return
  }
}
