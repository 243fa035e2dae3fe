//! Memory read/write conflict passes (spec sections 3.1.1-3.1.3, 3.1.5, 3.2, 3.5) as pure
//! decision engines over [`model::MemGraph`]. Each `plan_*` function decides and records an
//! edit plan ([`plan::Plan`]); the IR pass applies the plan with rewrite patterns.

pub mod atomic_addr_clean;
mod edits;
pub mod graph_lint;
pub mod hccl_continuous_memcpy;
pub mod hccl_memcpy;
pub mod model;
pub mod plan;
pub mod rw_conflict;
pub mod rw_types;
pub mod subgraph_isolate;

use model::{MemError, MemGraph};
use plan::Plan;

/// Upper bound on pipeline rounds (see [`plan_pipeline`]).
pub const MAX_PIPELINE_ROUNDS: usize = 4;

/// Run passes 1-5 of issue 3 in GE's order on `g` (left in the final state) and return
/// their plans in execution order: hccl-memcpy, hccl-continuous-memcpy, subgraph-isolate,
/// atomic-addr-clean, mem-rw-conflict. GraphLint (`graph_lint::lint`) runs after them.
///
/// A later pass can re-expose what an earlier one isolates (SplitIdentity dissolving a user
/// Identity that kept a Const away from a continuous input, for instance), so the sequence is
/// repeated until a whole round plans nothing; GE runs it once. Every round after the first
/// that changes something appends five more plans. Reaching [`MAX_PIPELINE_ROUNDS`] without
/// a quiet round is an error.
pub fn plan_pipeline(
    g: &mut MemGraph,
    atomic: atomic_addr_clean::AtomicOptions,
) -> Result<Vec<Plan>, MemError> {
    let mut plans = Vec::new();
    for round in 0..MAX_PIPELINE_ROUNDS {
        let batch = vec![
            hccl_memcpy::plan_hccl_memcpy(g)?,
            hccl_continuous_memcpy::plan_hccl_continuous_memcpy(g)?,
            subgraph_isolate::plan_subgraph_isolate(g)?,
            atomic_addr_clean::plan_atomic_addr_clean(g, atomic)?,
            rw_conflict::plan_rw_conflict(g)?,
        ];
        let quiet = batch.iter().all(Plan::is_empty);
        if round == 0 || !quiet {
            plans.extend(batch);
        }
        if quiet {
            return Ok(plans);
        }
    }
    Err(MemError::global(format!(
        "the memory pipeline did not settle in {MAX_PIPELINE_ROUNDS} rounds"
    )))
}

#[cfg(test)]
mod tests;
