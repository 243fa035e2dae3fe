//! The `.ge` text format: a concise, GE-flavoured graph language for hand-written tests.
//!
//! `lexer` (logos) -> `parser` (lalrpop, `grammar/ascend.lalrpop`) -> `ast` -> `import`
//! (semantic checks, then an MLIR module in the `ascend` dialect); `print` goes back from
//! MLIR to canonical `.ge`. Every error is a located [`GeDiagnostics`] rendered with ariadne.
//! The format reference is `grammar/README.md`.

pub mod ast;
pub mod diagnostics;
pub mod floats;
pub mod import;
pub mod lexer;
pub mod parser;
pub mod print;
pub mod types;

pub use diagnostics::{Diagnostic, GeDiagnostics};
pub use import::{import_ge, import_ge_bytes, import_ge_bytes_with_table, import_ge_with_table};
pub use print::{print_ge, try_print_ge};
