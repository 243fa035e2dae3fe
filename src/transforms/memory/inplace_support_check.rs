//! `--inplace-support-check`: InplaceSupportCheckPass (spec 3.1.4, notes B.17).
//!
//! Sets `_inplace_support_input_index = i` on every single-output op whose input `i` (the
//! first that qualifies) it may overwrite: the input's producer is not a Data/Const/Variable
//! source, feeds only this input, and has the output's dtype and shape. With `remarks=true`
//! every mark and every rejected input is reported. Decisions:
//! [`crate::analysis::memory::inplace_support`].

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
    Ok(options.build_pass(
        MemoryPass::from_options(options, Stage::InplaceSupportCheck)?,
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
        Stage::InplaceSupportCheck,
        "inplace-support-check",
    )
}

/// Adds the patterns that apply InplaceSupportCheckPass's `decisions` ([`analyse`]) to `set`, for
/// MLIR's walk driver (program order). The pass itself is [`analyse`] + these patterns.
pub fn populate_inplace_support_check_patterns<'c, 'p>(
    set: &mut crate::ir::PatternSet<'c, 'p>,
    decisions: super::patterns::MemoryDecisions<'c, 'p>,
) {
    super::patterns::populate_memory_patterns(set, decisions)
}
