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

/// Run passes 1-5 of issue 3 in GE's order on `g` (left in the final state) and return
/// their plans: hccl-memcpy, hccl-continuous-memcpy, subgraph-isolate, atomic-addr-clean,
/// mem-rw-conflict. GraphLint (`graph_lint::lint`) runs after them.
pub fn plan_pipeline(
    g: &mut MemGraph,
    atomic: atomic_addr_clean::AtomicOptions,
) -> Result<Vec<Plan>, MemError> {
    Ok(vec![
        hccl_memcpy::plan_hccl_memcpy(g)?,
        hccl_continuous_memcpy::plan_hccl_continuous_memcpy(g)?,
        subgraph_isolate::plan_subgraph_isolate(g)?,
        atomic_addr_clean::plan_atomic_addr_clean(g, atomic)?,
        rw_conflict::plan_rw_conflict(g)?,
    ])
}
