// A .mlir file that MLIR parses by its path is only checked while it streams through
// ge-opt (UTF-8, bracket nesting) and not kept in memory; a diagnostic that quotes the
// source reads the text again, so the quoted line and the caret are still there.
// RUN: not ge-opt %s --ge-memory-pipeline -o /dev/null 2>&1 | FileCheck %s
// The same text from standard input is held from the start: the same rendering.
// RUN: not ge-opt --ge-memory-pipeline -o /dev/null < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// With the text split into chunks (held as well), the line numbers stay those of the file.
// RUN: not ge-opt %s --split-input-file --ge-memory-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK: streamed-input.mlir:[[@LINE+7]]:10: error: ge-memory-pipeline: a GE node needs a `name` attribute
// CHECK-NEXT: {{^}}  %a:2 = "ascend.relu"(%arg0) : (tensor<4xf32>)
// CHECK-NEXT: {{^}}         ^
// STDIN: <stdin>:[[@LINE+4]]:10: error: ge-memory-pipeline: a GE node needs a `name` attribute
// STDIN-NEXT: {{^}}  %a:2 = "ascend.relu"(%arg0)
// SPLIT: streamed-input.mlir:[[@LINE+2]]:10: error: ge-memory-pipeline
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.relu"(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
