//! `--hccl-memcpy`: HcclMemcpyPass (spec 3.1.1, notes B.15).
//!
//! Inputs of ops with `_input_mutable` (HcomAllReduce, HcomBroadcast, ...) are overwritten in
//! place. A Const/Variable input always gets an Identity; another input gets one only when a
//! sibling consumer of the same tensor runs later (shape-only readers exempt); otherwise the
//! op is marked `_skip_rw_conflict` so `--mem-rw-conflict` leaves it alone. A broadcast
//! variable is written back with an `Assign`. Decisions:
//! [`crate::analysis::memory::hccl_memcpy`].

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
    Ok(options.build_pass(MemoryPass::from_options(options, Stage::HcclMemcpy)?, &ID))
}

/// The pass's analysis on `module` (root function `root`, default options): its decisions,
/// not yet applied.
pub fn analyse<'c, 'a>(
    module: melior::ir::OperationRef<'c, 'a>,
    root: &str,
) -> Result<super::patterns::MemoryDecisions<'c, 'a>, crate::ir::LocatedError<'c>> {
    super::patterns::MemoryDecisions::analyse(module, root, Stage::HcclMemcpy, "hccl-memcpy")
}

/// Adds the patterns that apply HcclMemcpyPass's `decisions` ([`analyse`]) to `set`, for
/// MLIR's walk driver (program order). The pass itself is [`analyse`] + these patterns.
pub fn populate_hccl_memcpy_patterns<'c, 'p>(
    set: &mut crate::ir::PatternSet<'c, 'p>,
    decisions: super::patterns::MemoryDecisions<'c, 'p>,
) {
    super::patterns::populate_memory_patterns(set, decisions)
}
