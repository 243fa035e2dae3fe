//! `--ge-memory-pipeline`: passes 1-5 in GE's order, then GraphLint.
//!
//! hccl-memcpy, hccl-continuous-memcpy, subgraph-isolate, atomic-addr-clean,
//! mem-rw-conflict, graph-lint: the same decisions as running the six flags in that order,
//! with two differences that make the alias the fast way to run them all:
//! * the module is turned into a model once, not six times; the plans of all five passes
//!   are computed on it and replayed on the IR in order; the lint runs on the final model
//!   (which the replay keeps equal to the IR);
//! * the five passes repeat until a whole round plans nothing
//!   ([`crate::analysis::memory::plan_pipeline`]): a later pass can undo what an earlier one
//!   isolated (SplitIdentity dissolving an Identity that kept a Const away from a
//!   continuous input), GE runs the sequence once. A planner that has seen every edit it
//!   can see since its own last run is not run again (it is idempotent, so it would plan
//!   nothing): the confirming round usually runs only the two HCCL planners.
//!
//! Across separate passes, each pass re-reads edge order from the IR (program order, MLIR
//! has no other); inside the alias, edges keep GE's append order between passes.

use super::{
    MemoryPass, Stage, CLEAN_SEPARATELY_OPTION, MAX_WARNINGS_OPTION, REMARKS_OPTION, ROOT_OPTION,
};
use crate::{
    ir::external_pass::PassId,
    pipeline::{OptionSpec, PassOptions},
};
use melior::pass::Pass;

/// Options of the pipeline.
pub const OPTIONS: &[OptionSpec] = &[
    ROOT_OPTION,
    REMARKS_OPTION,
    CLEAN_SEPARATELY_OPTION,
    MAX_WARNINGS_OPTION,
];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(MemoryPass::from_options(options, Stage::Pipeline)?, &ID))
}
