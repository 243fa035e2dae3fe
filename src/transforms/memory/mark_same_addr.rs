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

super::patterns::memory_pass_patterns!(
    Stage::MarkSameAddr,
    "mark-same-addr",
    populate_mark_same_addr_patterns,
    "MarkSameAddrPass"
);
