//! The C API of `include/ge-mlir-c/GeMlir.h`: register the passes, load the dialects,
//! create each pass, import `.ge` text.
//!
//! Every function takes and returns MLIR C API handles, so a C, C++ or Python host that
//! embeds MLIR (the one shared libMLIR.so) mixes them with its own.

use crate::plugin::{read_string, report};
use ge_mlir::dialect::context::{IRDL_SOURCE, TASK_IRDL_SOURCE};
use ge_mlir::pipeline::PASSES;
use melior::{ir::Module, utility::load_irdl_dialects, Context, ContextRef};
use mlir_sys::{
    MlirContext, MlirLogicalResult, MlirModule, MlirOperation, MlirPass, MlirRewritePatternSet,
    MlirStringCallback, MlirStringRef,
};
use std::ffi::c_void;

extern "C" {
    fn geMlirPluginRegisterAll();
    fn geMlirPluginCreatePass(
        row: usize,
        options: MlirStringRef,
        error: MlirStringCallback,
        user_data: *mut c_void,
    ) -> MlirPass;
}

/// Registers every pass and pipeline alias with MLIR's pass registry (idempotent), so
/// pipeline text parsed by MLIR (`mlirOpPassManagerAddPipeline`, `mlirParsePassPipeline`)
/// can name them.
#[no_mangle]
pub extern "C" fn geMlirRegisterPasses() {
    // SAFETY: a C++ function without preconditions (guarded by `std::call_once`).
    unsafe { geMlirPluginRegisterAll() }
}

fn success(ok: bool) -> MlirLogicalResult {
    MlirLogicalResult {
        value: i8::from(ok),
    }
}

/// The caller's context as a melior `ContextRef` (which never destroys it); borrow it as a
/// `&Context` with `to_ref`, which points into the `ContextRef` itself, so the
/// `ContextRef` must stay in a local of the caller.
///
/// # Safety
/// `context` must be a live context.
unsafe fn borrow_context<'a>(context: MlirContext) -> ContextRef<'a> {
    // SAFETY: guaranteed by the caller; a `ContextRef` does not own the context.
    unsafe { ContextRef::from_raw(context) }
}

/// Loads `irdl`, `func` and the `ascend` and `ascend_task` dialects (from the IRDL shipped in
/// `dialects/`) into `context`. A dialect already loaded (`mlir-opt --irdl-file`, an earlier
/// call) is left as it is. Fails only if the embedded IRDL does not load.
///
/// # Safety
/// `context` must be a live context, not running a pass manager.
#[no_mangle]
pub unsafe extern "C" fn geMlirLoadAscendDialect(context: MlirContext) -> MlirLogicalResult {
    // SAFETY: guaranteed by the caller.
    let context_ref = unsafe { borrow_context(context) };
    // SAFETY: `context_ref` lives to the end of the function.
    let context: &Context = unsafe { context_ref.to_ref() };
    // SAFETY: the handles and the context are live. `irdl` reads the definitions, `func`
    // holds the graphs.
    unsafe {
        for handle in [
            mlir_sys::mlirGetDialectHandle__irdl__(),
            mlir_sys::mlirGetDialectHandle__func__(),
        ] {
            mlir_sys::mlirDialectHandleLoadDialect(handle, context.to_raw());
        }
    }
    for (source, probe) in [
        (IRDL_SOURCE, "ascend.add"),
        (TASK_IRDL_SOURCE, "ascend_task.kernel"),
    ] {
        if context.is_registered_operation(probe) {
            continue;
        }
        let Some(module) = Module::parse(context, source) else {
            return success(false);
        };
        if !load_irdl_dialects(&module) {
            return success(false);
        }
    }
    success(true)
}

/// Imports `.ge` text into a verified module of `context` (which must have the dialects,
/// see [`geMlirLoadAscendDialect`]). On error returns a null module and hands the rendered
/// diagnostics (file:line:col, source excerpt) to `error`.
///
/// # Safety
/// `context` must be live; `source` and `file_name` valid string references; `error` a
/// valid callback or null.
#[no_mangle]
pub unsafe extern "C" fn geMlirImportGe(
    context: MlirContext,
    source: MlirStringRef,
    file_name: MlirStringRef,
    error: MlirStringCallback,
    user_data: *mut c_void,
) -> MlirModule {
    // SAFETY: guaranteed by the caller.
    let (context_ref, source, file_name) = unsafe {
        (
            borrow_context(context),
            read_string(source),
            read_string(file_name),
        )
    };
    // SAFETY: `context_ref` lives to the end of the function.
    let context: &Context = unsafe { context_ref.to_ref() };
    if !context.is_registered_operation("ascend.add") {
        report(
            error,
            user_data,
            "geMlirImportGe: the ascend dialect is not loaded (call geMlirLoadAscendDialect)",
        );
        return MlirModule {
            ptr: std::ptr::null_mut(),
        };
    }
    match ge_mlir::syntax::import::import_ge(context, &source, &file_name) {
        Ok(module) => {
            let raw = module.to_raw();
            // Ownership goes to the caller (`mlirModuleDestroy`).
            std::mem::forget(module);
            raw
        }
        Err(diagnostics) => {
            report(error, user_data, &diagnostics.render());
            MlirModule {
                ptr: std::ptr::null_mut(),
            }
        }
    }
}

fn create(
    flag: &str,
    options: &str,
    error: MlirStringCallback,
    user_data: *mut c_void,
) -> MlirPass {
    let Some(row) = PASSES.iter().position(|info| info.flag == flag) else {
        report(error, user_data, &format!("unknown pass '{flag}'"));
        return MlirPass {
            ptr: std::ptr::null_mut(),
        };
    };
    let text = MlirStringRef {
        data: options.as_ptr() as *const _,
        length: options.len(),
    };
    // SAFETY: `text` outlives the call; the callback contract is the caller's.
    unsafe { geMlirPluginCreatePass(row, text, error, user_data) }
}

/// Creates pass `name` (a registry flag: `mem-rw-conflict`) with `options` in pipeline
/// syntax (`max-task-normal=64 single-stream=true`). Returns a null pass, and the reason
/// through `error`, for an unknown name or bad options. The caller owns the pass until it
/// adds it to a pass manager (`mlirPassManagerAddOwnedPass`).
///
/// # Safety
/// `name` and `options` must be valid string references; `error` a valid callback or null.
#[no_mangle]
pub unsafe extern "C" fn geMlirCreatePass(
    name: MlirStringRef,
    options: MlirStringRef,
    error: MlirStringCallback,
    user_data: *mut c_void,
) -> MlirPass {
    // SAFETY: guaranteed by the caller.
    let (name, options) = unsafe { (read_string(name), read_string(options)) };
    create(&name, &options, error, user_data)
}

/// One `geMlirCreate<Name>Pass(void)` per registered pass, with default options.
macro_rules! create_functions {
    ($($function:ident => $flag:literal,)*) => {
        $(
            #[doc = concat!("Creates `", $flag, "` with its default options (owned by the caller).")]
            #[no_mangle]
            pub extern "C" fn $function() -> MlirPass {
                create($flag, "", None, std::ptr::null_mut())
            }
        )*
        /// (C function name, pass flag) of every per-pass create function.
        pub const CREATE_FUNCTIONS: &[(&str, &str)] = &[$((stringify!($function), $flag),)*];
    };
}

create_functions! {
    geMlirCreateAscendTopoOrderPass => "ascend-topo-order",
    geMlirCreateAtomicAddrCleanPass => "atomic-addr-clean",
    geMlirCreateGeMemPlanPipelinePass => "ge-mem-plan-pipeline",
    geMlirCreateGeMemoryPipelinePass => "ge-memory-pipeline",
    geMlirCreateGraphLintPass => "graph-lint",
    geMlirCreateHcclContinuousMemcpyPass => "hccl-continuous-memcpy",
    geMlirCreateHcclMemcpyPass => "hccl-memcpy",
    geMlirCreateInplaceSupportCheckPass => "inplace-support-check",
    geMlirCreateLowerToRtPass => "lower-to-rt",
    geMlirCreateLowerToTasksPass => "lower-to-tasks",
    geMlirCreateMarkSameAddrPass => "mark-same-addr",
    geMlirCreateMemAssignPass => "mem-assign",
    geMlirCreateMemInplacePass => "mem-inplace",
    geMlirCreateMemLayoutConflictPass => "mem-layout-conflict",
    geMlirCreateMemRwConflictPass => "mem-rw-conflict",
    geMlirCreateMemSymbolsPass => "mem-symbols",
    geMlirCreateMemcpyAddrAsyncPass => "memcpy-addr-async",
    geMlirCreateRtChainConflictPass => "rt-chain-conflict",
    geMlirCreateRtPlacementCopiesPass => "rt-placement-copies",
    geMlirCreateRtSubgraphGuardersPass => "rt-subgraph-guarders",
    geMlirCreateSetIoOffsetPass => "set-io-offset",
    geMlirCreateStreamAllocPass => "stream-alloc",
    geMlirCreateSubgraphIsolatePass => "subgraph-isolate",
    geMlirCreateVerifyMemPlanPass => "verify-mem-plan",
    geMlirCreateVerifyTasksPass => "verify-tasks",
}

/// Runs pass `flag`'s analysis on `module` and adds its patterns to the host's `set`;
/// errors become MLIR errors at their location.
///
/// # Safety
/// `context` is live, `module` a live `builtin.module` of it that outlives every apply of
/// `set`, `set` a live unfrozen pattern set of `context`.
unsafe fn populate(
    flag: &str,
    options: &str,
    context: MlirContext,
    module: MlirOperation,
    set: MlirRewritePatternSet,
) -> MlirLogicalResult {
    // SAFETY: guaranteed by the caller; the patterns hold the module's ops for as long as
    // the host keeps the set, which the contract bounds by the module's life.
    let (module, mut set) = unsafe {
        (
            melior::ir::OperationRef::<'static, 'static>::from_raw(module),
            ge_mlir::ir::PatternSet::<'static, 'static>::borrow_raw(set, context),
        )
    };
    match ge_mlir::transforms::populate_patterns(flag, options, module, &mut set) {
        Ok(()) => success(true),
        Err(e) => {
            ge_mlir::ir::external_pass::emit_error(e.location, &e.message);
            success(false)
        }
    }
}

/// Runs pass `name`'s analysis (with `options` in pipeline syntax) on `module` and adds the
/// rewrite patterns that apply its decisions to `set`, for `mlirWalkAndApplyPatterns`.
///
/// # Safety
/// See `GeMlir.h`.
#[no_mangle]
pub unsafe extern "C" fn geMlirPopulatePatterns(
    context: MlirContext,
    name: MlirStringRef,
    options: MlirStringRef,
    module: MlirOperation,
    set: MlirRewritePatternSet,
) -> MlirLogicalResult {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (name, options) = (read_string(name), read_string(options));
        populate(&name, &options, context, module, set)
    }
}

/// One `geMlirPopulate<Name>Patterns(context, module, set)` per pass with patterns, with
/// default options.
macro_rules! populate_functions {
    ($($function:ident => $flag:literal,)*) => {
        $(
            #[doc = concat!("Runs `", $flag, "`'s analysis on `module` and adds its patterns to `set`.")]
            ///
            /// # Safety
            /// See `GeMlir.h`.
            #[no_mangle]
            pub unsafe extern "C" fn $function(
                context: MlirContext,
                module: MlirOperation,
                set: MlirRewritePatternSet,
            ) -> MlirLogicalResult {
                // SAFETY: guaranteed by the caller.
                unsafe { populate($flag, "", context, module, set) }
            }
        )*
        /// (C function name, pass flag) of every per-pass populate function.
        pub const POPULATE_FUNCTIONS: &[(&str, &str)] = &[$((stringify!($function), $flag),)*];
    };
}

populate_functions! {
    geMlirPopulateAtomicAddrCleanPatterns => "atomic-addr-clean",
    geMlirPopulateHcclContinuousMemcpyPatterns => "hccl-continuous-memcpy",
    geMlirPopulateHcclMemcpyPatterns => "hccl-memcpy",
    geMlirPopulateInplaceSupportCheckPatterns => "inplace-support-check",
    geMlirPopulateMarkSameAddrPatterns => "mark-same-addr",
    geMlirPopulateMemLayoutConflictPatterns => "mem-layout-conflict",
    geMlirPopulateMemRwConflictPatterns => "mem-rw-conflict",
    geMlirPopulateMemcpyAddrAsyncPatterns => "memcpy-addr-async",
    geMlirPopulateStreamAllocPatterns => "stream-alloc",
    geMlirPopulateSubgraphIsolatePatterns => "subgraph-isolate",
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = include_str!("../include/ge-mlir-c/GeMlir.h");

    #[test]
    fn every_registered_pass_has_a_create_function_in_the_header() {
        let mut flags: Vec<_> = CREATE_FUNCTIONS.iter().map(|(_, flag)| *flag).collect();
        flags.sort_unstable();
        let mut registered: Vec<_> = PASSES.iter().map(|info| info.flag).collect();
        registered.sort_unstable();
        assert_eq!(
            flags, registered,
            "a pass without (or with a stale) create function"
        );
        for (function, _) in CREATE_FUNCTIONS {
            assert!(
                HEADER.contains(&format!("MlirPass {function}(void);")),
                "GeMlir.h does not declare {function}"
            );
        }
        let declared = HEADER.matches("MlirPass geMlirCreate").count();
        // The per-pass functions plus the generic geMlirCreatePass.
        assert_eq!(
            declared,
            CREATE_FUNCTIONS.len() + 1,
            "GeMlir.h declares extra passes"
        );
    }

    #[test]
    fn every_pass_with_patterns_has_a_populate_function_in_the_header() {
        let flags: Vec<_> = POPULATE_FUNCTIONS.iter().map(|(_, flag)| *flag).collect();
        assert_eq!(flags, ge_mlir::transforms::PATTERN_PASSES);
        for (function, flag) in POPULATE_FUNCTIONS {
            let info = ge_mlir::pipeline::lookup(flag).unwrap();
            assert_eq!(
                *function,
                format!("geMlirPopulate{}Patterns", info.display_name())
            );
            assert!(
                HEADER.contains(&format!(
                    "MlirLogicalResult {function}(MlirContext context, MlirOperation module,"
                )),
                "GeMlir.h does not declare {function}"
            );
        }
    }

    #[test]
    fn function_names_are_the_camel_case_flag() {
        for (function, flag) in CREATE_FUNCTIONS {
            let info = ge_mlir::pipeline::lookup(flag).unwrap();
            assert_eq!(
                *function,
                format!("geMlirCreate{}Pass", info.display_name())
            );
        }
    }
}
