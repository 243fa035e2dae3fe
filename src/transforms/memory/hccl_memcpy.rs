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

super::patterns::memory_pass_patterns!(
    Stage::HcclMemcpy,
    "hccl-memcpy",
    populate_hccl_memcpy_patterns,
    "HcclMemcpyPass"
);
