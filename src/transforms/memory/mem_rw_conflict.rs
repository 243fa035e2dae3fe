//! `--mem-rw-conflict`: HandleMemoryRWConflict (spec 3.2, notes B.1-B.14).
//!
//! Ref relations, input/output RW types, the 4x3 decision matrix, subgraph boundary marking
//! from the innermost subgraph out, SplitIdentity and RemoveNoUseIdentity, the skip of
//! `_skip_rw_conflict`; inserted Identities move control edges as GE does. An invalid RW
//! combination (a subgraph input both written and scope-written) is an error at the
//! consumer, not a crash. Decisions: [`crate::analysis::memory::rw_conflict`].

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
    Ok(options.build_pass(MemoryPass::from_options(options, Stage::RwConflict)?, &ID))
}

super::patterns::memory_pass_patterns!(
    Stage::RwConflict,
    "mem-rw-conflict",
    populate_mem_rw_conflict_patterns,
    "HandleMemoryRWConflict"
);
