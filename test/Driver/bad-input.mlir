// Tests that bad command lines and bad inputs give clean errors and exit 1, never a
// crash, and that empty input is an empty module (as in mlir-opt).
// RUN: not ge-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not ge-opt %s --emit=llvm 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not ge-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: printf 'module {}\n// \xff\xfe\n' > %t.latin1.mlir
// RUN: not ge-opt %t.latin1.mlir 2>&1 | FileCheck %s --check-prefix=UTF8
// RUN: printf '\xc3' | not ge-opt 2>&1 | FileCheck %s --check-prefix=UTF8-STDIN
// RUN: printf '' | ge-opt | FileCheck %s --check-prefix=EMPTY
// RUN: printf '' > %t.empty.mlir
// RUN: ge-opt %t.empty.mlir --ascend-topo-order | FileCheck %s --check-prefix=EMPTY
// RUN: ge-opt %t.empty.mlir --split-input-file | FileCheck %s --check-prefix=EMPTY
// RUN: printf 'func.func @f( {' | not ge-opt 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not ge-opt %s -o 2>&1 | FileCheck %s --check-prefix=NOVALUE
// MLIR's own parser fails silently on the custom form of an IRDL op; ge-opt names it.
// RUN: printf 'func.func @f(%%%%a: tensor<f32>) {\n  %%%%0:2 = ascend.relu(%%%%a) : (tensor<f32>) -> (tensor<f32>, !ascend.ctrl)\n  return\n}\n' > %t.custom.mlir
// RUN: not ge-opt %t.custom.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: printf '// -----\n  %%%%0 = ascend.relu\n' | not ge-opt --split-input-file 2>&1 | FileCheck %s --check-prefix=CUSTOM-SPLIT
// Nesting so deep that MLIR's recursive parser would overflow the stack: an error instead.
// RUN: python3 -c "print('func.func @f() attributes {a = ' + '[' * 60000 + ']' * 60000 + '} {\\n  return\\n}')" > %t.deep.mlir
// RUN: not ge-opt %t.deep.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: python3 -c "print('graph main {\\n  k = \\\"X\\\"() {a = ' + '[' * 60000 + ']' * 60000 + '} : ()\\n}')" > %t.deep.ge
// RUN: not ge-opt %t.deep.ge -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP-GE

// FLAG: error: unexpected argument '--no-such-flag' found
// FLAG: ge-opt --list-passes
// EMIT: error: invalid value 'llvm' for '--emit <EMIT>'
// MISSING: ge-opt: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// UTF8: latin1.mlir:2:4: error: input is not valid UTF-8
// UTF8-STDIN: <stdin>:1:1: error: input is not valid UTF-8
// EMPTY: module {
// EMPTY-NEXT: }
// SYNTAX: <stdin>:1:14: error: expected non-function type
// NOVALUE: error: a value is required for '-o <FILE>'
// CUSTOM: custom.mlir:2:10: error: custom assembly form of 'ascend.relu' cannot be parsed: ops of the IRDL-defined dialect only have the generic form "ascend.relu"(...)
// CUSTOM-SPLIT: <stdin>:2:8: error: custom assembly form of 'ascend.relu'
// DEEP: deep.mlir:1:1031: error: nested deeper than 1000 levels of brackets (MLIR's parser would overflow its stack)
// DEEP-GE: deep.ge:2:274: error: nested deeper than 256 levels

// An empty or non-UTF-8 string attribute (MLIR strings may hold any bytes) is data, not a
// crash: melior's string accessors panic on both, ours do not.
// RUN: printf 'func.func @main() {\n  %%%%0 = "ascend.no_op"() {name = "\\FF"} : () -> !ascend.ctrl\n  %%%%1 = "ascend.no_op"() {name = ""} : () -> !ascend.ctrl\n  return\n}\n' > %t.strings.mlir
// RUN: not ge-opt %t.strings.mlir --emit=ge 2>&1 | FileCheck %s --check-prefix=STRINGS-GE
// RUN: not ge-opt %t.strings.mlir --ge-memory-pipeline 2>&1 | FileCheck %s --check-prefix=STRINGS-MEM
// RUN: not ge-opt %t.strings.mlir --stream-alloc 2>&1 | FileCheck %s --check-prefix=STRINGS-STREAM
// The empty name alone prints: `.ge` quotes it.
// RUN: printf 'func.func @main() {\n  %%%%1 = "ascend.no_op"() {name = ""} : () -> !ascend.ctrl\n  return\n}\n' > %t.empty.mlir
// RUN: ge-opt %t.empty.mlir --emit=ge | FileCheck %s --check-prefix=EMPTY-GE
// STRINGS-GE: strings.mlir:2:8: error: cannot print as .ge: node name "\FF" is not UTF-8 (printed as `no_op_0`)
// STRINGS-GE-NOT: = NoOp()
// EMPTY-GE: {{^}}  "" = NoOp() : ()
// STRINGS-MEM: strings.mlir:2:8: error: ge-memory-pipeline: a GE node needs a `name` attribute (a UTF-8 string)
// STRINGS-STREAM: strings.mlir:2:8: error: stream-alloc: attribute `name` must be a UTF-8 string, got "\FF"
