// The printer's errors are MLIR diagnostics at the op: `--verify-diagnostics` matches them
// like any pass error, and the run succeeds when each is expected.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --emit ge

func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{cannot print as .ge: `r` uses function argument 0 directly}}
  %r:2 = "ascend.relu"(%a) {name = "r"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %r#0 : tensor<2xf32>
}

// -----

func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x:2 = "ascend.data"(%a) {index = 0 : i64, name = "x"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  // expected-error @+1 {{node name `x` is used twice in @main}}
  %r:2 = "ascend.relu"(%x#0) {name = "x"} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
  return %r#0 : tensor<2xf32>
}
