//! Parsing MLIR source files with real file names, so that every location and diagnostic
//! reads `file:line:col` (melior's `Module::parse` has no way to name the buffer).

use melior::{
    ir::{block::BlockArgument, Location, Module, ValueLike},
    Context, StringRef,
};

/// Parses (and, as MLIR's parser does, verifies) the file at `path`. Returns `None` after
/// the parser has reported its errors through the context's diagnostic handlers.
///
/// Handles textual and bytecode files; top-level operations other than a single
/// `builtin.module` are wrapped in a fresh module, like `mlir-opt` does.
pub fn parse_file<'c>(context: &'c Context, path: &str) -> Option<Module<'c>> {
    let path = StringRef::new(path);
    // SAFETY: the context is live; a null result (parse failure) maps to `None`, a
    // non-null module is owned by the returned `Module`.
    unsafe {
        Module::from_option_raw(mlir_sys::mlirModuleCreateParseFromFile(
            context.to_raw(),
            path.to_raw(),
        ))
    }
}

/// Sets the location of a block argument (melior only exposes its type setter).
pub fn set_block_argument_location(argument: BlockArgument<'_, '_>, location: Location<'_>) {
    // SAFETY: both handles are live objects of the same context.
    unsafe { mlir_sys::mlirBlockArgumentSetLocation(argument.to_raw(), location.to_raw()) }
}

/// Prints `op` with `flags` into raw bytes.
///
/// MLIR's C API streams the printed text through an unbuffered callback, one call per
/// token. melior's `to_string_with_flags` routes every call through `fmt::Formatter` with a
/// UTF-8 check; on a million-op module that costs a third of the whole parse+print time.
/// Appending to a byte buffer keeps `ge-opt` as fast as `mlir-opt`'s own printer.
pub fn print_operation(
    op: melior::ir::OperationRef<'_, '_>,
    flags: &melior::ir::operation::OperationPrintingFlags,
) -> Vec<u8> {
    unsafe extern "C" fn append(chunk: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the `Vec<u8>` passed below, alive and exclusively borrowed for
        // the duration of the print call; `chunk` points to `length` readable bytes.
        unsafe {
            let buffer = &mut *(data as *mut Vec<u8>);
            if chunk.length > 0 {
                buffer.extend_from_slice(std::slice::from_raw_parts(
                    chunk.data as *const u8,
                    chunk.length,
                ));
            }
        }
    }
    let mut buffer = Vec::new();
    // SAFETY: `op` and `flags` are live; the callback only touches `buffer`, which outlives
    // the call.
    unsafe {
        mlir_sys::mlirOperationPrintWithFlags(
            op.to_raw(),
            flags.to_raw(),
            Some(append),
            &mut buffer as *mut Vec<u8> as *mut std::ffi::c_void,
        );
    }
    buffer
}
