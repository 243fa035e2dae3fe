//! `--graph-lint`: GraphLint (spec 3.5, notes B.20), warning W18888.
//!
//! For every output with two or more consumer edges, every writer/writer and writer/reader
//! pair with no path between them (data or control) is reported as a warning at the writer
//! naming both ops, with a note at the other op. The pass changes nothing.
//!
//! Scale: no N x N connection matrix. Reachability is asked only for pairs that share an
//! output, through interval labels (two depth-first post-order labellings refute most
//! unreachable pairs in O(1)) and a label- and topo-pruned search for the rest:
//! O(nodes + edges) memory and build time
//! ([`crate::analysis::memory::graph_lint::DfsReach`]).
//!
//! The warnings are MLIR-style diagnostics (`file:line:col: warning: W18888: ...`, `note:`)
//! that `--verify-diagnostics` checks; they go through [`crate::ir::diagnostics`] because the
//! C API can only emit errors. Warnings do not fail the run. The first `max-warnings`
//! (default 10) are printed in full, the rest as one warning at the root graph that counts
//! them (`max-warnings=0` prints every one); `num-warnings` counts them all.

use super::{MemoryPass, Stage, MAX_WARNINGS_OPTION, ROOT_OPTION};
use crate::{
    ir::external_pass::PassId,
    pipeline::{OptionKind, OptionSpec, PassOptions},
};
use melior::pass::Pass;

/// Options of the pass (`remarks` is accepted for symmetry; the lint inserts nothing).
pub const OPTIONS: &[OptionSpec] = &[
    ROOT_OPTION,
    OptionSpec {
        name: "remarks",
        kind: OptionKind::Bool,
        default: "false",
        help: "accepted for symmetry with the other memory passes (the lint inserts nothing)",
    },
    MAX_WARNINGS_OPTION,
];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(MemoryPass::from_options(options, Stage::Lint)?, &ID))
}
