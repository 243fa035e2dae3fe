// An input path that can be read only once (a pipe: `/dev/stdin` here, `<(cmd)` in bash) is
// read into memory and parsed from there: parsing it again by its path would read nothing
// and print an empty module without a word.
// RUN: cat %s | ge-opt /dev/stdin --ascend-topo-order | FileCheck %s
// RUN: cat %s | not ge-opt /dev/stdin --ge-memory-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: func.func @main
// CHECK: "ascend.relu"(%arg0) {topo_id = 0 : i64}
// ERR: /dev/stdin:[[@LINE+3]]:10: error: ge-memory-pipeline: a GE node needs a `name` attribute
// ERR-NEXT: "ascend.relu"(%arg0) : (tensor<4xf32>)
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a:2 = "ascend.relu"(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %a#0 : tensor<4xf32>
}
