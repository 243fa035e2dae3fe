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

super::patterns::memory_pass_patterns!(
    Stage::AtomicAddrClean,
    "atomic-addr-clean",
    populate_atomic_addr_clean_patterns,
    "AtomicAddrCleanPass"
);
