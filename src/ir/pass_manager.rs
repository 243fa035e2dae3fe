//! Pass-manager features that melior 0.27 does not wrap: anchoring a pass manager on
//! `builtin.module`, appending textual pipeline elements to an op pass manager, timing.

use melior::{
    pass::{OperationPassManager, PassManager},
    Context, StringRef,
};
use mlir_sys::MlirStringRef;
use std::ffi::c_void;

/// Creates a pass manager anchored on `builtin.module` (what `mlir-opt` uses), so that
/// `nested_under("func.func")` has the usual meaning.
pub fn module_pass_manager(context: &Context) -> PassManager<'_> {
    let anchor = StringRef::new("builtin.module");
    // SAFETY: the context is live; the returned pass manager borrows it via `PassManager`'s
    // lifetime and is destroyed by its `Drop`.
    unsafe {
        PassManager::from_raw(mlir_sys::mlirPassManagerCreateOnOperation(
            context.to_raw(),
            anchor.to_raw(),
        ))
    }
}

/// Appends the pipeline elements `elements` (e.g. `canonicalize, func.func(cse)`, *without*
/// an anchor) to `manager`. Returns MLIR's error message on failure.
pub fn add_pipeline(manager: OperationPassManager<'_, '_>, elements: &str) -> Result<(), String> {
    let mut message = String::new();
    let text = StringRef::new(elements);
    // SAFETY: `collect` only appends to the `String` passed as user data, which outlives
    // the call; the string ref points to `elements`, alive for the call.
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            text.to_raw(),
            Some(collect),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else if message.is_empty() {
        Err(format!("failed to parse pass pipeline '{elements}'"))
    } else {
        Err(message.trim_end().to_owned())
    }
}

/// Enables MLIR's pass timing; the report is printed to stderr when `manager` is dropped.
pub fn enable_timing(manager: &PassManager<'_>) {
    // SAFETY: the pass manager is live.
    unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) }
}

/// Whether MLIR verifies the IR after every pass (on by default, as in mlir-opt's
/// `--verify-each`). The input is verified when parsed either way.
pub fn enable_verifier(manager: &PassManager<'_>, enable: bool) {
    // SAFETY: the pass manager is live.
    unsafe { mlir_sys::mlirPassManagerEnableVerifier(manager.to_raw(), enable) }
}

unsafe extern "C" fn collect(text: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `&mut String` given by `add_pipeline`; `text` is valid for the
    // duration of the callback.
    let message = unsafe { &mut *(data as *mut String) };
    let bytes = unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) };
    message.push_str(&String::from_utf8_lossy(bytes));
}
