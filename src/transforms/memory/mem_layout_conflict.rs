//! `--mem-layout-conflict`: HandleMemoryLayoutConflict (spec 3.3, notes B.19).
//!
//! Symbol-level memory layout conflicts: anchors sharing one memory symbol with
//! incompatible attributes (user input/output, immutable, unrefreshable, continuous,
//! no-padding continuous, special memory types) get an `Identity` (`_cannot_be_deleted`)
//! before the input or after the output GE's table and checkers choose; If/Case branches
//! and While bodies are handled first (CtrlNodeConflict). Each copy's `ascend.reason` names
//! the attribute pair, the anchors and the checker. Options mirror GE's:
//! `feature-map-refreshable`, `physical-memory-refreshable`, `offline`. Decisions:
//! [`crate::analysis::memory::layout`].

use super::{
    MemoryPass, Stage, FEATURE_MAP_REFRESHABLE_OPTION, OFFLINE_OPTION,
    PHYSICAL_MEMORY_REFRESHABLE_OPTION, REMARKS_OPTION, ROOT_OPTION,
};
use crate::{
    ir::external_pass::PassId,
    pipeline::{OptionSpec, PassOptions},
};
use melior::pass::Pass;

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[
    ROOT_OPTION,
    REMARKS_OPTION,
    FEATURE_MAP_REFRESHABLE_OPTION,
    PHYSICAL_MEMORY_REFRESHABLE_OPTION,
    OFFLINE_OPTION,
];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(
        MemoryPass::from_options(options, Stage::LayoutConflict)?,
        &ID,
    ))
}

super::patterns::memory_pass_patterns!(
    Stage::LayoutConflict,
    "mem-layout-conflict",
    populate_mem_layout_conflict_patterns,
    "HandleMemoryLayoutConflict"
);
