// Tests that pass flags run in command-line order: the last --ascend-topo-order wins.
// RUN: ge-opt %s --ascend-topo-order=start-id=5 --ascend-topo-order | FileCheck %s --check-prefix=LAST0
// RUN: ge-opt %s --ascend-topo-order --ascend-topo-order=start-id=5 | FileCheck %s --check-prefix=LAST5
// Flags and other options may be interleaved freely.
// RUN: ge-opt --ascend-topo-order %s -o - --ascend-topo-order=start-id=5 | FileCheck %s --check-prefix=LAST5
// RUN: ge-opt %s --ascend-topo-order --ascend-topo-order=start-id=5 --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMPS

// LAST0: {name = "a", topo_id = 0 : i64}
// LAST5: {name = "a", topo_id = 5 : i64}
// DUMPS:      IR Dump After AscendTopoOrder (ascend-topo-order)
// DUMPS:      topo_id = 0 : i64
// DUMPS:      IR Dump After AscendTopoOrder (ascend-topo-order)
// DUMPS:      topo_id = 5 : i64
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
