// Tests --help, --list-passes and --emit-irdl: the pass table, the pointer to upstream
// passes, and the embedded IRDL (identical to the shipped file).
// RUN: ge-opt --help | FileCheck %s --check-prefix=HELP
// RUN: ge-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: ge-opt --emit-irdl > %t.irdl
// RUN: diff %t.irdl %irdl

// HELP: Usage: ge-opt [OPTIONS] [INPUT]
// HELP: --pass-pipeline <PIPELINE>
// HELP: --split-input-file[=<MARKER>]
// HELP: --verify-diagnostics
// HELP: Passes (in command-line order
// HELP-NEXT: --ascend-topo-order - Number every ascend op
// HELP-NEXT: start-id=<long> - topo_id of the first ascend op of each function (default: 0)

// LIST: Passes:
// LIST-NEXT: --ascend-topo-order
// LIST-NEXT: start-id=<long>
// LIST: Upstream MLIR passes (canonicalize, cse, symbol-dce, ...) are available through --pass-pipeline
