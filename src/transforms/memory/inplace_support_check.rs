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

super::patterns::memory_pass_patterns!(
    Stage::InplaceSupportCheck,
    "inplace-support-check",
    populate_inplace_support_check_patterns,
    "InplaceSupportCheckPass"
);
