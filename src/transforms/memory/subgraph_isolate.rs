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

/// The pass's analysis on `module` (root function `root`, default options): its decisions,
/// not yet applied.
pub fn analyse<'c, 'a>(
    module: melior::ir::OperationRef<'c, 'a>,
    root: &str,
) -> Result<super::patterns::MemoryDecisions<'c, 'a>, crate::ir::LocatedError<'c>> {
    super::patterns::MemoryDecisions::analyse(
        module,
        root,
        Stage::SubgraphIsolate,
        "subgraph-isolate",
    )
}

/// Adds the patterns that apply SubgraphPass's `decisions` ([`analyse`]) to `set`, for
/// MLIR's walk driver (program order). The pass itself is [`analyse`] + these patterns.
pub fn populate_subgraph_isolate_patterns<'c, 'p>(
    set: &mut crate::ir::PatternSet<'c, 'p>,
    decisions: super::patterns::MemoryDecisions<'c, 'p>,
) {
    super::patterns::populate_memory_patterns(set, decisions)
}
