// Tests --mlir-timing (MLIR's execution time report, one line per pass) and
// --mlir-pass-statistics (the counters of our passes), both on stderr.
// RUN: ge-opt %s --pass-pipeline='builtin.module(canonicalize, ascend-topo-order)' --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: ge-opt %s --ascend-topo-order --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// Clones run on several functions in parallel still report one total.
// RUN: ge-opt %s --pass-pipeline='builtin.module(func.func(ascend-topo-order))' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// Two instances report separately, in pipeline order.
// RUN: ge-opt %s --ascend-topo-order --ascend-topo-order --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWICE
// No flag, no report.
// RUN: ge-opt %s --ascend-topo-order -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// TIME:      ... Execution time report ...
// TIME:      Total Execution Time:
// TIME:      Canonicalizer
// TIME-NEXT: AscendTopoOrder
// TIME:      Total

// STATS:      ... Pass statistics report ...
// STATS:      AscendTopoOrder (ascend-topo-order)
// STATS-NEXT:   (S) 3 num-ops-numbered - Number of ascend ops given a topo_id
// STATS-NEXT:   (S) 2 num-functions    - Number of functions numbered

// TWICE-COUNT-2: AscendTopoOrder (ascend-topo-order)

// QUIET-NOT: report
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.add"(%arg0, %arg0) {name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.add"(%a#0, %a#0) {name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %b#0 : tensor<4xf32>
}

func.func private @sub(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %s:2 = "ascend.add"(%arg0, %arg0) {name = "s"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %s#0 : tensor<4xf32>
}
