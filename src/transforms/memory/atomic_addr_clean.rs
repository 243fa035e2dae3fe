//! `--atomic-addr-clean`: AtomicAddrCleanPass (spec 3.1.5, notes B.18).
//!
//! Atomic outputs must be zeroed first: one `AtomicAddrClean` at the head of a loop-free
//! graph with control edges to every atomic op, one per atomic op in a graph with a
//! `LoopCond`, and a separate one for an atomic op feeding the graph output. Option
//! `clean-separately` is GE's `ge.atomicCleanPolicy = 1` (no clean node at all). Decisions:
//! [`crate::analysis::memory::atomic_addr_clean`].

use super::{MemoryPass, Stage, REMARKS_OPTION, ROOT_OPTION};
use crate::{
    ir::external_pass::PassId,
    pipeline::{OptionSpec, PassOptions},
};
use melior::pass::Pass;

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[ROOT_OPTION, REMARKS_OPTION, super::CLEAN_SEPARATELY_OPTION];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(
        MemoryPass::from_options(options, Stage::AtomicAddrClean)?,
        &ID,
    ))
}

/// The pass's analysis on `module` (root function `root`, default options): its decisions,
/// not yet applied.
pub fn analyse<'c, 'a>(
    module: melior::ir::OperationRef<'c, 'a>,
    root: &str,
) -> Result<super::patterns::MemoryDecisions<'c, 'a>, crate::ir::LocatedError<'c>> {
    super::patterns::MemoryDecisions::analyse(
        module,
        root,
        Stage::AtomicAddrClean,
        "atomic-addr-clean",
    )
}

/// Adds the patterns that apply AtomicAddrCleanPass's `decisions` ([`analyse`]) to `set`, for
/// MLIR's walk driver (program order). The pass itself is [`analyse`] + these patterns.
pub fn populate_atomic_addr_clean_patterns<'c, 'p>(
    set: &mut crate::ir::PatternSet<'c, 'p>,
    decisions: super::patterns::MemoryDecisions<'c, 'p>,
) {
    super::patterns::populate_memory_patterns(set, decisions)
}
