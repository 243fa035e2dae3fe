//! Passes written in Rust, run by MLIR's pass manager as "external passes".
//!
//! melior's `create_external` hands a pass an immutable `OperationRef`, yet a
//! transformation must mutate the operation it runs on. MLIR guarantees that a pass owns
//! the operation it is run on for the duration of `run`, so converting the reference to
//! an `OperationRefMut` there is sound; that conversion (and `mlirEmitError`, which melior
//! does not wrap) is the only `unsafe` a pass needs, and it lives here.

use melior::{
    ir::{operation::OperationRefMut, r#type::TypeId, Location, OperationRef},
    pass::{create_external, ExternalPass, Pass, RunExternalPass},
    ContextRef,
};
use std::ffi::CString;

/// A pass written in Rust.
///
/// `run` receives the operation the pass is scheduled on (a `builtin.module` when the pass
/// sits at the top level of a pipeline, a `func.func` when nested under `func.func(...)`).
/// It returns `Err(PassFailed)` after emitting at least one error with [`emit_error`];
/// the pass manager then stops the pipeline.
///
/// Passes are cloned by MLIR when it runs nested pipelines on several threads, hence
/// `Clone + Send`; shared state (statistics) must be thread-safe.
pub trait RustPass: Clone + Send + 'static {
    /// Runs the pass on `operation`.
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed>;
}

/// Marker returned by a failing [`RustPass::run`]; the diagnostics carry the reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassFailed;

/// A unique, 8-byte aligned address from which MLIR derives a pass's `TypeID`.
///
/// Declare one `static` per pass kind: `static ID: PassId = PassId::new();`. The field
/// keeps the type non-zero-sized: distinct zero-sized statics may share an address, which
/// would give two passes the same `TypeID`.
#[repr(align(8))]
pub struct PassId(#[allow(dead_code)] u8);

impl PassId {
    /// Creates an anchor; only meaningful when stored in a `static`.
    pub const fn new() -> Self {
        Self(0)
    }
}

impl Default for PassId {
    fn default() -> Self {
        Self::new()
    }
}

/// Adapts a [`RustPass`] to melior's external-pass callbacks.
#[derive(Clone)]
struct Adapter<P>(P);

impl<'c, P: RustPass> RunExternalPass<'c> for Adapter<P> {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        // SAFETY: MLIR hands the pass exclusive ownership of `operation` while it runs
        // (the pass manager never runs two passes on the same operation concurrently).
        let operation = unsafe { OperationRefMut::from_raw(operation.to_raw()) };
        UNCHANGED.with(|flag| flag.set(false));
        if self.0.run(operation).is_err() {
            pass.signal_failure();
        } else if UNCHANGED.with(|flag| flag.replace(false)) {
            // SAFETY: `pass` is the live handle of the pass being run.
            unsafe { geExternalPassMarkAllAnalysesPreserved(pass.to_raw()) }
        }
    }
}

thread_local! {
    /// Set by [`mark_unchanged`] during a pass's `run`.
    static UNCHANGED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

extern "C" {
    /// `src/ir/capi_ext.cpp`: `markAllAnalysesPreserved()` on an external pass.
    fn geExternalPassMarkAllAnalysesPreserved(pass: mlir_sys::MlirExternalPass);
}

/// Called by a pass, during its `run`, when it left the IR exactly as it found it (a
/// checker, a lint, a pass that found nothing to do): MLIR then skips the verification it
/// runs after each pass, as it does for a C++ pass that preserved all analyses. Calling it
/// after changing the IR would let a broken module through unverified.
pub fn mark_unchanged() {
    UNCHANGED.with(|flag| flag.set(true));
}

/// Whether the pass being run has called [`mark_unchanged`] so far.
pub(crate) fn marked_unchanged() -> bool {
    UNCHANGED.with(|flag| flag.get())
}

/// Sets or clears what [`mark_unchanged`] sets, for the pass being run: the pipeline's
/// chains of our passes (`pipeline::shared`) defer MLIR's verification to the chain's last
/// pass, and make that one verify when an earlier pass of the chain changed the IR.
pub(crate) fn set_unchanged(unchanged: bool) {
    UNCHANGED.with(|flag| flag.set(unchanged));
}

/// Wraps `pass` into an MLIR pass.
///
/// * `name`: the pass name shown in IR dumps and timing reports (`AscendTopoOrder`);
/// * `argument`: the pipeline / command-line name (`ascend-topo-order`);
/// * the pass is op-agnostic: it can be scheduled on any operation.
pub fn create_pass<P: RustPass>(
    pass: P,
    id: &'static PassId,
    name: &str,
    argument: &str,
    description: &str,
) -> Pass {
    create_external(
        Adapter(pass),
        TypeId::create(id),
        name,
        argument,
        description,
        "",
        &[],
    )
}

/// Emits an error diagnostic at `location` through the context's diagnostic engine, so
/// it reaches the driver's handler (and `--verify-diagnostics`) like any MLIR error.
///
/// The C API can only emit errors; interior NUL bytes in `message` are replaced.
pub fn emit_error(location: Location<'_>, message: &str) {
    let message = CString::new(message.replace('\0', "\u{fffd}"))
        .unwrap_or_else(|_| CString::from(c"error message contained NUL"));
    // SAFETY: `location` is a live location of a live context; the message is a valid
    // NUL-terminated string that outlives the call.
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// The operation a pass runs on, as a plain `OperationRef` (what the IR helpers take),
/// borrowed from the pass's `OperationRefMut`.
pub fn as_op_ref<'c, 'a>(operation: &'a OperationRefMut<'c, '_>) -> OperationRef<'c, 'a> {
    // SAFETY: the same live op; the shared reference borrows the mutable one for 'a, so no
    // mutation through `operation` can happen while the returned reference is used.
    unsafe { OperationRef::from_raw(operation.to_raw()) }
}

/// Builds the attribute `value : i<bits>` from a `ContextRef` (what a pass holds; melior
/// builds types only from a `&Context`).
pub fn integer_attribute<'c>(
    context: melior::ContextRef<'c>,
    bits: u32,
    value: i64,
) -> melior::ir::Attribute<'c> {
    // SAFETY: the context is live for 'c; the type and attribute are uniqued in it.
    unsafe {
        // `to_ref` borrows the `ContextRef` itself; only the raw handle is kept.
        let raw_context = context.to_ref().to_raw();
        let r#type = mlir_sys::mlirIntegerTypeGet(raw_context, bits);
        melior::ir::Attribute::from_raw(mlir_sys::mlirIntegerAttrGet(r#type, value))
    }
}
