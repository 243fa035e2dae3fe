//! Capturing MLIR's own diagnostics (from parsing an `mlir"..."` escape or from the verifier)
//! so they become `.ge` diagnostics instead of text on stderr.

use melior::{ir::Location, Context};
use std::{cell::RefCell, rc::Rc};

/// One MLIR diagnostic: its text (notes appended) and its file position if it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirDiag {
    pub message: String,
    /// `(line, column)`, 1-based, when the location is (or wraps) a `FileLineColLoc`.
    pub line_col: Option<(usize, usize)>,
}

/// Runs `f` with a handler that records every diagnostic the context emits and keeps it
/// off stderr.
pub fn capture<T>(context: &Context, f: impl FnOnce() -> T) -> (T, Vec<MlirDiag>) {
    let seen: Rc<RefCell<Vec<MlirDiag>>> = Rc::default();
    let sink = Rc::clone(&seen);
    let id = context.attach_diagnostic_handler(move |diagnostic| {
        let mut message = diagnostic.to_string();
        for i in 0..diagnostic.note_count() {
            if let Ok(note) = diagnostic.note(i) {
                message.push_str("; note: ");
                message.push_str(&note.to_string());
            }
        }
        sink.borrow_mut().push(MlirDiag {
            message,
            line_col: file_line_col(diagnostic.location()),
        });
        true
    });
    let result = f();
    context.detach_diagnostic_handler(id);
    let diags = seen.borrow().clone();
    (result, diags)
}

/// Digs a file position out of name, call-site and fused locations.
fn file_line_col(location: Location<'_>) -> Option<(usize, usize)> {
    if location.is_file_line_col_range() {
        Some((
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column(),
        ))
    } else if location.is_name() {
        file_line_col(location.name_child_location())
    } else if location.is_call_site() {
        file_line_col(location.call_site_callee())
    } else if location.is_fused() {
        (0..location.fused_num_locations()).find_map(|i| file_line_col(location.fused_location(i)))
    } else {
        None
    }
}

/// The first message of a capture, or a fallback when MLIR said nothing.
pub fn first_message(diags: &[MlirDiag], fallback: &str) -> String {
    diags
        .first()
        .map_or_else(|| fallback.to_string(), |d| d.message.clone())
}
