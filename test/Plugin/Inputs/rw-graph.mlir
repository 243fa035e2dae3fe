// matrix-w-w.ge (test/Transforms/Memory) as ge-opt imports it: a Variable written by Assign.
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
    %1:2 = "ascend.variable"() {name = "v"} : () -> (tensor<4xf32>, !ascend.ctrl)
    %2:2 = "ascend.assign"(%1#0, %0#0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
    return %2#0 : tensor<4xf32>
  }
}

