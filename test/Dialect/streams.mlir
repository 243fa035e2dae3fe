// RUN: ge-opt %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%S/../../dialects/ascend.irdl.mlir %s | FileCheck %s

// Stream, label and event ops (no data, or data only as switch inputs), the runtime's
// PointFromInputs, shape-only ops and the no-padding Phony ops.

// CHECK-LABEL: func.func @streams
func.func @streams(%arg0: tensor<i32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) {
  %i:2 = "ascend.data"(%arg0) {name = "iter"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %a:2 = "ascend.data"(%arg1) {name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.data"(%arg2) {name = "b"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  // CHECK: "ascend.stream_active"() {active_stream_list = [1, 2], name = "active"} : () -> !ascend.ctrl
  %act = "ascend.stream_active"() {name = "active", active_stream_list = [1, 2]} : () -> !ascend.ctrl
  // CHECK: "ascend.stream_switch"({{.*}}){{.*}} : (tensor<i32>, tensor<i32>, !ascend.ctrl) -> !ascend.ctrl
  %sw = "ascend.stream_switch"(%i#0, %i#0, %act) {name = "switch", switch_condition = 0 : i64, true_branch_stream = 2 : i64} : (tensor<i32>, tensor<i32>, !ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.stream_merge"({{.*}}) -> (tensor<4xf32>, tensor<i32>, !ascend.ctrl)
  %mg:3 = "ascend.stream_merge"(%a#0, %b#0, %sw) {name = "merge", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, tensor<i32>, !ascend.ctrl)
  // CHECK: "ascend.label_set"() {_label_index = 0 : i64, name = "label0"}
  %ls = "ascend.label_set"() {name = "label0", _label_index = 0 : i64} : () -> !ascend.ctrl
  // CHECK: "ascend.label_goto_ex"
  %lg = "ascend.label_goto_ex"(%ls) {name = "goto", _label_index = 1 : i64} : (!ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.label_switch_by_index"
  %lw = "ascend.label_switch_by_index"(%i#0, %lg) {name = "lswitch", _label_switch_list = [0, 1]} : (tensor<i32>, !ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.send"(%{{.*}}#2) {event_id = 0 : i64, name = "main_Send_0"} : (!ascend.ctrl) -> !ascend.ctrl
  %sd = "ascend.send"(%mg#2) {name = "main_Send_0", event_id = 0 : i64} : (!ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.recv"
  %rv = "ascend.recv"(%sd) {name = "main_Recv_0", event_id = 0 : i64} : (!ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.send_notify"
  %sn = "ascend.send_notify"() {name = "main_Send_Notify_0", notify_id = 0 : i64} : () -> !ascend.ctrl
  // CHECK: "ascend.recv_notify"
  %rn = "ascend.recv_notify"(%sn) {name = "main_Recv_Notify_0", notify_id = 0 : i64} : (!ascend.ctrl) -> !ascend.ctrl
  // CHECK: "ascend.point_from_inputs"
  %pf:3 = "ascend.point_from_inputs"(%a#0, %i#0) {name = "pfi", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>, !ascend.ctrl)
  // CHECK: "ascend.shape"
  %sh:2 = "ascend.shape"(%a#0) {name = "shape"} : (tensor<4xf32>) -> (tensor<1xi64>, !ascend.ctrl)
  // CHECK: "ascend.rank"
  %rk:2 = "ascend.rank"(%a#0) {name = "rank"} : (tensor<4xf32>) -> (tensor<i32>, !ascend.ctrl)
  // CHECK: "ascend.size"
  %sz:2 = "ascend.size"(%a#0) {name = "size"} : (tensor<4xf32>) -> (tensor<i64>, !ascend.ctrl)
  // CHECK: "ascend.phony_concat"({{.*}}) -> (tensor<8xf32>, !ascend.ctrl)
  %pc:2 = "ascend.phony_concat"(%a#0, %b#0) {name = "pconcat", concat_dim = [0], N = [2], operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<8xf32>, !ascend.ctrl)
  // CHECK: "ascend.phony_split"({{.*}}) -> (tensor<2xf32>, tensor<6xf32>, !ascend.ctrl)
  %ps:3 = "ascend.phony_split"(%pc#0) {name = "psplit", resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<8xf32>) -> (tensor<2xf32>, tensor<6xf32>, !ascend.ctrl)
  // Cache maintenance: one input, no data result, a required `max_size`.
  // CHECK: "ascend.cmo"(%{{.*}}#0) {max_size = 16 : i64, name = "cmo"} : (tensor<4xf32>) -> !ascend.ctrl
  %cmo = "ascend.cmo"(%a#0) {name = "cmo", max_size = 16 : i64} : (tensor<4xf32>) -> !ascend.ctrl
  return
}
