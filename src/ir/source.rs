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
