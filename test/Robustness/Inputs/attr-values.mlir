// Inputs of attr-values.ge: the .mlir forms.
func.func @main() -> tensor<1000xf32> {
  %c:2 = "ascend.const"() {name = "c", value = dense<1.000000e+00> : tensor<2xf32>} : () -> (tensor<1000xf32>, !ascend.ctrl)
  return %c#0 : tensor<1000xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.data"(%arg1) {index = 1 : i64, name = "i"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %2:2 = "ascend.case"(%1#0, %0#0) {branches = [[@t]], name = "y", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %2#0 : tensor<4xf32>
}
func.func private @t(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "x"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %1:2 = "ascend.data"(%arg1) {index = 1 : i64, name = "i"} : (tensor<i32>) -> (tensor<i32>, !ascend.ctrl)
  %2:2 = "ascend.case"(%1#0, %0#0) {branches = [], name = "y", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<i32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %2#0 : tensor<4xf32>
}
func.func private @t(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "ascend.data"(%arg0) {index = 0 : i64, name = "a"} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %0#0 : tensor<4xf32>
}
