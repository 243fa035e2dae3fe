//! `--mark-same-addr`: MarkSameAddrPass (spec 3.1.7).
//!
//! Dynamic+static memory reuse: the producer of a `StreamSwitch` / `LabelSwitchByIndex`
//! input gets `_alloc_fixed_addr` (the output's name) and `_alloc_fixed_addr_index`, so the
//! allocator keeps that output at a fixed physical address. Root graph only; a dynamic root
//! is skipped. Decisions: [`crate::analysis::memory::mark_same_addr`].

use super::{MemoryPass, Stage, REMARKS_OPTION, ROOT_OPTION};
use crate::{
    ir::external_pass::PassId,
    pipeline::{OptionSpec, PassOptions},
};
use melior::pass::Pass;

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[ROOT_OPTION, REMARKS_OPTION];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(MemoryPass::from_options(options, Stage::MarkSameAddr)?, &ID))
}

/// The pass's analysis on `module` (root function `root`, default options): its decisions,
/// not yet applied.
pub fn analyse<'c, 'a>(
    module: melior::ir::OperationRef<'c, 'a>,
    root: &str,
) -> Result<super::patterns::MemoryDecisions<'c, 'a>, crate::ir::LocatedError<'c>> {
    super::patterns::MemoryDecisions::analyse(module, root, Stage::MarkSameAddr, "mark-same-addr")
}

/// Adds the patterns that apply MarkSameAddrPass's `decisions` ([`analyse`]) to `set`, for
/// MLIR's walk driver (program order). The pass itself is [`analyse`] + these patterns.
pub fn populate_mark_same_addr_patterns<'c, 'p>(
    set: &mut crate::ir::PatternSet<'c, 'p>,
    decisions: super::patterns::MemoryDecisions<'c, 'p>,
) {
    super::patterns::populate_memory_patterns(set, decisions)
}
