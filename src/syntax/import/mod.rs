//! `.ge` -> MLIR: semantic checks with located diagnostics, then an `ascend` module.
//!
//! The import runs in three steps, each collecting every error it can before stopping:
//! 1. `check`: per graph, resolve op types against the op table, names, inputs, types and
//!    attributes; check Data indices, arity and the `return`.
//! 2. `check`: across graphs, subgraph references and their signatures; per graph, cycles and
//!    the topological order the ops are emitted in.
//! 3. `emit`: build `func.func`s with melior's `OperationBuilder` in generic form, then run
//!    the MLIR verifier (whose complaints, if any, are mapped back to `.ge` positions).

mod check;
pub use check::GENERIC_OP;
pub use table_hooks::is_data_like;
mod emit;
mod lower_attr;
mod mlir_diag;
mod table_hooks;

use super::{
    ast::Span,
    diagnostics::{offset_of, Diagnostic, GeDiagnostics},
    parser::parse_file,
};
use crate::dialect::{op_table, OpTable};
use melior::{
    ir::{operation::OperationLike, Module},
    Context,
};

/// Imports `.ge` text into a verified MLIR module, using the shipped op table.
pub fn import_ge<'c>(
    context: &'c Context,
    source: &str,
    file_name: &str,
) -> Result<Module<'c>, GeDiagnostics> {
    import_ge_with_table(context, source, file_name, op_table())
}

/// Imports `.ge` bytes (as read from a file); non-UTF-8 input is a located error.
pub fn import_ge_bytes<'c>(
    context: &'c Context,
    bytes: &[u8],
    file_name: &str,
) -> Result<Module<'c>, GeDiagnostics> {
    import_ge_bytes_with_table(context, bytes, file_name, op_table())
}

/// [`import_ge_bytes`] with an explicit op table.
pub fn import_ge_bytes_with_table<'c>(
    context: &'c Context,
    bytes: &[u8],
    file_name: &str,
    table: &OpTable,
) -> Result<Module<'c>, GeDiagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(source) => import_ge_with_table(context, source, file_name, table),
        Err(e) => {
            let at = e.valid_up_to();
            let lossy = String::from_utf8_lossy(bytes);
            let d = Diagnostic::new(
                format!("input is not valid UTF-8 (first bad byte at offset {at})"),
                Span::new(at, at + 1),
                format!("byte 0x{:02x}", bytes[at]),
            )
            .with_hint(".ge files are UTF-8 text");
            Err(GeDiagnostics::new(file_name, &lossy, vec![d]))
        }
    }
}

/// [`import_ge`] with an explicit op table (tests inject small tables).
pub fn import_ge_with_table<'c>(
    context: &'c Context,
    source: &str,
    file_name: &str,
    table: &OpTable,
) -> Result<Module<'c>, GeDiagnostics> {
    let fail = |diags: Vec<Diagnostic>| GeDiagnostics::new(file_name, source, diags);
    let file = parse_file(source).map_err(|d| fail(vec![d]))?;
    if file.graphs.is_empty() {
        let d = Diagnostic::new(
            "no graph in file",
            Span::new(0, 0),
            "expected `graph NAME { ... }`",
        )
        .with_hint("a .ge file holds one or more `graph NAME { ... }` blocks");
        return Err(fail(vec![d]));
    }
    let checked = check::check_file(context, table, &file).map_err(fail)?;
    let module = emit::emit_module(context, &file, &checked, source, file_name)
        .map_err(|d| fail(vec![d]))?;
    verify(context, &module, source, file_name)?;
    Ok(module)
}

/// Runs the MLIR verifier; maps its diagnostics back into the `.ge` source. The checks
/// above should make this unreachable, so a failure here is reported as an importer bug
/// with MLIR's own words.
fn verify(
    context: &Context,
    module: &Module<'_>,
    source: &str,
    file_name: &str,
) -> Result<(), GeDiagnostics> {
    let (ok, diags) = mlir_diag::capture(context, || module.as_operation().verify());
    if ok {
        return Ok(());
    }
    let mut out: Vec<Diagnostic> = diags
        .iter()
        .map(|d| {
            let at = d
                .line_col
                .map_or(0, |(line, col)| offset_of(source, line, col));
            Diagnostic::new(
                format!("MLIR verifier: {}", d.message),
                Span::new(at, at + 1),
                "the op built for this node",
            )
            .with_note("the .ge checks did not catch this: the op table may lack a rule (same_type, required attributes) for this op")
        })
        .collect();
    if out.is_empty() {
        out.push(Diagnostic::new(
            "MLIR verifier rejected the imported module",
            Span::new(0, 0),
            "here",
        ));
    }
    Err(GeDiagnostics::new(file_name, source, out))
}

#[cfg(test)]
mod tests;
