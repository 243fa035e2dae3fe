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

/// `flags` with MLIR's verification before printing turned off (`assumeVerified`).
///
/// Without it, MLIR's printer verifies the whole op again before printing, to fall back on
/// the generic form when the IR is invalid: a third full verification in a pass run (after
/// the parse and after the last pass), a tenth of a million-op run. Only for IR that was
/// verified since its last change.
pub fn assume_verified(
    flags: melior::ir::operation::OperationPrintingFlags,
) -> melior::ir::operation::OperationPrintingFlags {
    // SAFETY: `flags` is a live printing-flags object owned by the caller's value, which
    // this returns; the call only sets one of its fields.
    unsafe { mlir_sys::mlirOpPrintingFlagsAssumeVerified(flags.to_raw()) };
    flags
}

/// Sets the location of a block argument (melior only exposes its type setter).
pub fn set_block_argument_location(argument: BlockArgument<'_, '_>, location: Location<'_>) {
    // SAFETY: both handles are live objects of the same context.
    unsafe { mlir_sys::mlirBlockArgumentSetLocation(argument.to_raw(), location.to_raw()) }
}

extern "C" {
    /// `src/ir/capi_ext.cpp`: prints an op and a newline through a buffered stream on `fd`;
    /// 0 or the OS error number.
    fn geOperationPrintToFd(
        op: mlir_sys::MlirOperation,
        flags: mlir_sys::MlirOpPrintingFlags,
        fd: std::os::raw::c_int,
    ) -> std::os::raw::c_int;
}

/// Prints `op` with `flags`, then a newline, to the open file `fd`, as mlir-opt prints.
///
/// MLIR's C API streams the printed text through an unbuffered callback, one call per
/// token; melior's `to_string_with_flags` routes each through `fmt::Formatter` with a UTF-8
/// check, and the caller then holds (and copies) the whole text before writing it. For a
/// million-op module that is hundreds of MB and a large share of the whole run; a buffered
/// `raw_fd_ostream` on the output file avoids both.
pub fn print_operation_to_fd(
    op: melior::ir::OperationRef<'_, '_>,
    flags: &melior::ir::operation::OperationPrintingFlags,
    fd: std::os::fd::BorrowedFd<'_>,
) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `op` and `flags` are live; `fd` is an open descriptor borrowed for the call,
    // which neither closes nor keeps it.
    let error = unsafe { geOperationPrintToFd(op.to_raw(), flags.to_raw(), fd.as_raw_fd()) };
    match error {
        0 => Ok(()),
        errno => Err(std::io::Error::from_raw_os_error(errno)),
    }
}

/// Parses (and verifies) `source` as a module in the context `context` belongs to: what a
/// pass holds is a `ContextRef`, and melior's `Module::parse` wants a `&Context`. The
/// lowering uses it to build its output module from text. `None` after the parser has
/// reported its errors.
pub fn parse_module_in<'c>(context: melior::ContextRef<'c>, source: &str) -> Option<Module<'c>> {
    let source = StringRef::new(source);
    // SAFETY: `context` is live for 'c; the source is only read during the call; a null
    // result (parse failure) maps to `None`, a non-null module is owned by the result.
    unsafe {
        Module::from_option_raw(mlir_sys::mlirModuleCreateParse(
            context.to_ref().to_raw(),
            source.to_raw(),
        ))
    }
}
