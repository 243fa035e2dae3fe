/*===-- ge-mlir-c/GeMlir.h - ge-mlir's C API --------------------------------===*\
|*                                                                            *|
|* The ascend dialect and the GE memory-conflict and multi-stream passes of    *|
|* ge-mlir, for C, C++ or Python programs that embed MLIR 22. Library:        *|
|* libge_mlir_c.so (target/<profile>/), which is also a pass plugin for        *|
|* stock mlir-opt (--load-pass-plugin).                                        *|
|*                                                                            *|
|* The library uses the process's one shared libMLIR.so. On Debian the MLIR C  *|
|* API itself ships as static archives: link a program with                    *|
|*   -lge_mlir_c -lMLIRCAPIIR -lMLIR -lLLVM -lstdc++                          *|
|* (see test/Plugin/capi-compile.test).                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef GE_MLIR_C_GEMLIR_H
#define GE_MLIR_C_GEMLIR_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Rewrite.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every pass and pipeline alias (ge-compile, ...) with MLIR's pass
/// registry, options included, so that pipeline text MLIR parses
/// (mlirOpPassManagerAddPipeline, mlirParsePassPipeline) can name them.
/// Idempotent.
MLIR_CAPI_EXPORTED void geMlirRegisterPasses(void);

/// Loads irdl, func and the ascend and ascend_task dialects (the IRDL of dialects/)
/// into `context`. Dialects already loaded are kept. Call it before parsing or
/// importing, outside a running pass manager.
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirLoadAscendDialect(MlirContext context);

/// Imports `.ge` text into a verified module of `context` (dialects loaded by
/// geMlirLoadAscendDialect). `fileName` names the source in locations. On
/// error returns a null module (mlirModuleIsNull) and hands the rendered
/// diagnostics to `error` (may be NULL). The caller owns the module.
MLIR_CAPI_EXPORTED MlirModule geMlirImportGe(MlirContext context, MlirStringRef source,
                                             MlirStringRef fileName,
                                             MlirStringCallback error, void *userData);

/// Creates pass `name` (`mem-rw-conflict`) with `options` in pipeline syntax
/// (`max-task-normal=64 single-stream=true`). Returns a null pass
/// (its ptr is NULL) and the reason through `error` for an unknown
/// name or bad options. The caller owns the pass until it is added to a pass
/// manager (mlirPassManagerAddOwnedPass / mlirOpPassManagerAddOwnedPass).
MLIR_CAPI_EXPORTED MlirPass geMlirCreatePass(MlirStringRef name, MlirStringRef options,
                                             MlirStringCallback error, void *userData);

/* One create function per registered pass (default options). */

/// `ascend-topo-order` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateAscendTopoOrderPass(void);
/// `atomic-addr-clean` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateAtomicAddrCleanPass(void);
/// `ge-mem-plan-pipeline` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateGeMemPlanPipelinePass(void);
/// `ge-memory-pipeline` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateGeMemoryPipelinePass(void);
/// `graph-lint` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateGraphLintPass(void);
/// `hccl-continuous-memcpy` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateHcclContinuousMemcpyPass(void);
/// `hccl-memcpy` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateHcclMemcpyPass(void);
/// `inplace-support-check` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateInplaceSupportCheckPass(void);
/// `lower-to-rt` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateLowerToRtPass(void);
/// `lower-to-tasks` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateLowerToTasksPass(void);
/// `mark-same-addr` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMarkSameAddrPass(void);
/// `mem-assign` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMemAssignPass(void);
/// `mem-inplace` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMemInplacePass(void);
/// `mem-layout-conflict` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMemLayoutConflictPass(void);
/// `mem-rw-conflict` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMemRwConflictPass(void);
/// `mem-symbols` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMemSymbolsPass(void);
/// `memcpy-addr-async` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateMemcpyAddrAsyncPass(void);
/// `rt-chain-conflict` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateRtChainConflictPass(void);
/// `rt-placement-copies` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateRtPlacementCopiesPass(void);
/// `rt-subgraph-guarders` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateRtSubgraphGuardersPass(void);
/// `set-io-offset` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateSetIoOffsetPass(void);
/// `stream-alloc` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateStreamAllocPass(void);
/// `subgraph-isolate` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateSubgraphIsolatePass(void);
/// `verify-mem-plan` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateVerifyMemPlanPass(void);
/// `verify-tasks` with its default options.
MLIR_CAPI_EXPORTED MlirPass geMlirCreateVerifyTasksPass(void);

/* The passes as rewrite patterns. Each runs its pass's analysis on `module` (a
 * builtin.module of `context`, unchanged by the call) and adds to `set` (from
 * mlirRewritePatternSetCreate) the patterns that apply the decisions, each rooted at an op
 * it changes. Apply them with the walk driver (mlirWalkAndApplyPatterns on the module,
 * after mlirFreezeRewritePattern): it visits ops in program order, as the steps need; the
 * greedy driver would reorder them. The patterns hold the module's ops: apply them to that
 * module, unchanged since the call, once. Errors (of the analysis, or while the patterns
 * run) are MLIR errors at their location; a failed call adds nothing. */

/// The patterns of pass `name` with `options` in pipeline syntax (as geMlirCreatePass).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulatePatterns(MlirContext context,
                                                            MlirStringRef name,
                                                            MlirStringRef options,
                                                            MlirOperation module,
                                                            MlirRewritePatternSet set);
/// `atomic-addr-clean`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateAtomicAddrCleanPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `hccl-continuous-memcpy`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateHcclContinuousMemcpyPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `hccl-memcpy`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateHcclMemcpyPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `inplace-support-check`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateInplaceSupportCheckPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `mark-same-addr`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateMarkSameAddrPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `mem-layout-conflict`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateMemLayoutConflictPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `mem-rw-conflict`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateMemRwConflictPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `memcpy-addr-async`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateMemcpyAddrAsyncPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `stream-alloc`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateStreamAllocPatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);
/// `subgraph-isolate`'s patterns (default options).
MLIR_CAPI_EXPORTED MlirLogicalResult geMlirPopulateSubgraphIsolatePatterns(MlirContext context, MlirOperation module,
                                                             MlirRewritePatternSet set);

#ifdef __cplusplus
}
#endif

#endif // GE_MLIR_C_GEMLIR_H
