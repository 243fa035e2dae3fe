//! `--hccl-continuous-memcpy`: HcclContinuousMemcpyPass (spec 3.1.2).
//!
//! Inputs of ops that need one contiguous input block (`continuous_input`) cannot live in
//! a Data/Const/Variable buffer or be shared with another such consumer; P2P inputs cannot be
//! fed by a Data/Const/Variable either. Each gets an Identity. Decisions:
//! [`crate::analysis::memory::hccl_continuous_memcpy`].

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
        MemoryPass::from_options(options, Stage::HcclContinuousMemcpy)?,
        &ID,
    ))
}

super::patterns::memory_pass_patterns!(
    Stage::HcclContinuousMemcpy,
    "hccl-continuous-memcpy",
    populate_hccl_continuous_memcpy_patterns,
    "HcclContinuousMemcpyPass"
);
