//! Transformations over the `ascend` dialect. Each pass is one file and one row of
//! [`crate::pipeline::PASSES`].

pub mod memory;
pub mod stream;
pub mod topo_order;

use crate::{
    ir::{LocatedError, PatternSet},
    pipeline::PassOptions,
};
use melior::ir::OperationRef;

/// The passes whose decisions can be handed to another toolchain as rewrite patterns:
/// every memory pass that makes one plan, and `stream-alloc`.
pub const PATTERN_PASSES: &[&str] = &[
    "atomic-addr-clean",
    "hccl-continuous-memcpy",
    "hccl-memcpy",
    "inplace-support-check",
    "mark-same-addr",
    "mem-layout-conflict",
    "mem-rw-conflict",
    "memcpy-addr-async",
    "stream-alloc",
    "subgraph-isolate",
];

/// Runs pass `flag`'s analysis on `module` with `options` (pipeline syntax) and adds the
/// patterns that apply its decisions to `set` (they own the decisions): for a host that
/// runs them with MLIR's walk driver. Errors (unknown pass, bad options, a failed
/// analysis) come back located; the module is unchanged then.
pub fn populate_patterns<'c, 'a>(
    flag: &str,
    options: &str,
    module: OperationRef<'c, 'a>,
    set: &mut PatternSet<'c, 'a>,
) -> Result<(), LocatedError<'c>> {
    let at = |message: String| LocatedError::at(module, message);
    if !PATTERN_PASSES.contains(&flag) {
        return Err(at(format!(
            "'{flag}' has no patterns (passes with patterns: {})",
            PATTERN_PASSES.join(", ")
        )));
    }
    if flag == "stream-alloc" {
        let decisions = stream::stream_alloc::analyse(module, options)?;
        return stream::stream_alloc::populate_stream_alloc_patterns(set, decisions);
    }
    let info = crate::pipeline::lookup(flag).ok_or_else(|| at(format!("unknown pass '{flag}'")))?;
    let assignments = crate::pipeline::options::parse_assignments(options).map_err(at)?;
    let options = PassOptions::resolve(info, &assignments).map_err(at)?;
    let stage = memory::Stage::of_flag(flag).ok_or_else(|| at(format!("unknown pass '{flag}'")))?;
    let pass = memory::MemoryPass::from_options(&options, stage).map_err(at)?;
    memory::patterns::populate_memory_patterns(set, pass.analyse(module)?);
    Ok(())
}
