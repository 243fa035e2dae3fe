//! Memory conflict passes (spec sections 3.1.1-3.1.7, 3.2, 3.3, 3.5) as pure decision
//! engines over [`model::MemGraph`], and the memory symbols they share
//! ([`symbols`], GE's `GetRefMapping`).
//!
//! How an IR pass uses this module:
//! 1. Fill a [`model::MemGraph`] from the function(s): one [`model::Graph`] per func (root
//!    first), nodes in block order with their GE type, [`model::Sem`] flags (op table plus
//!    attributes), named inputs/outputs, data edges (consumer lists in GE's edge order),
//!    control edges, subgraph Data `parent_index`, NetOutput (`func.return`) inputs,
//!    `origin` from `ascend.inserted_by`. [`model::MemGraph::add_node`] & co. do the
//!    bookkeeping.
//! 2. Call a planner: [`hccl_memcpy::plan_hccl_memcpy`],
//!    [`hccl_continuous_memcpy::plan_hccl_continuous_memcpy`],
//!    [`subgraph_isolate::plan_subgraph_isolate`], [`atomic_addr_clean::plan_atomic_addr_clean`],
//!    [`rw_conflict::plan_rw_conflict`], or [`plan_pipeline`] for all five; and
//!    [`inplace_support::plan_inplace_support_check`],
//!    [`memcpy_addr_async::plan_memcpy_addr_async`], [`mark_same_addr::plan_mark_same_addr`],
//!    [`layout::plan_mem_layout_conflict`]. Each returns a
//!    [`plan::Plan`]: ordered [`plan::Step`]s, each an explicit [`plan::Edit`] with the spec
//!    [`plan::Rule`] and a human-readable `reason`, plus [`plan::Stats`]. The model is left in
//!    the planned state. Errors are [`model::MemError`]s located at a node.
//! 3. Replay the steps with rewrite patterns (new nodes get ids `first_new, first_new+1, ...`
//!    in step order); put `reason` into `ascend.reason` and the pass flag into
//!    `ascend.inserted_by` on every inserted op. [`plan::apply`] is the reference semantics.
//! 4. [`graph_lint::lint`] (or [`graph_lint::lint_with`] and a better [`graph_lint::Reach`])
//!    returns the W18888 findings to report as warnings.

pub mod atomic_addr_clean;
mod edits;
pub mod graph_lint;
pub mod hccl_continuous_memcpy;
pub mod hccl_memcpy;
pub mod inplace;
pub mod inplace_support;
pub mod io_offset;
pub mod layout;
pub mod mark_same_addr;
pub mod mem_plan;
pub mod mem_verify;
pub mod memcpy_addr_async;
pub mod model;
pub mod plan;
pub mod rw_conflict;
pub mod rw_types;
pub mod subgraph_isolate;
pub mod symbols;

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
