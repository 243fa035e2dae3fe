//! `--subgraph-isolate`: SubgraphPass (spec 3.1.3, notes B.16).
//!
//! Address isolation at control-flow boundaries: every row of the spec's table (While inputs
//! shared by several consumers, body Data into continuous-input ops, Identity after body
//! Datas and before the body NetOutput except the Data->NetOutput bypass, If/Case outputs
//! sharing one source, subgraph outputs from Const / atomic / continuous-output ops and
//! Datas, Const inputs to While). Inserted nodes are `..._Memcpy` Identities marked
//! `_cannot_be_deleted`. Decisions: [`crate::analysis::memory::subgraph_isolate`].

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
        MemoryPass::from_options(options, Stage::SubgraphIsolate)?,
        &ID,
    ))
}

super::patterns::memory_pass_patterns!(
    Stage::SubgraphIsolate,
    "subgraph-isolate",
    populate_subgraph_isolate_patterns,
    "SubgraphPass"
);
