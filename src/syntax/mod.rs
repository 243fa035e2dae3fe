//! The `.ge` text format. PLACEHOLDER: the syntax helper is writing the real module; this
//! file only fixes the two entry points `ge-opt` calls, and fails clearly until then. The
//! lead replaces it with the real module at merge.

use melior::{ir::Module, Context};
use std::fmt;

/// Errors of `.ge` import, rendered for the user by `Display`.
#[derive(Debug)]
pub struct GeDiagnostics {
    message: String,
}

impl fmt::Display for GeDiagnostics {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for GeDiagnostics {}

/// Imports `.ge` text into a module of the `ascend` dialect.
pub fn import_ge<'c>(
    _context: &'c Context,
    _source: &str,
    file_name: &str,
) -> Result<Module<'c>, GeDiagnostics> {
    Err(GeDiagnostics {
        message: format!("{file_name}: error: .ge input is not yet supported by this build"),
    })
}

/// Prints a module in `.ge` syntax.
pub fn print_ge(_module: &Module) -> String {
    "# error: --emit ge is not yet supported by this build\n".to_owned()
}
