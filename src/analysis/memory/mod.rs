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

/// Run the five conflict passes in GE's order on `g` (left in the final state) and return
/// their plans in execution order: hccl-memcpy, hccl-continuous-memcpy, subgraph-isolate,
/// atomic-addr-clean, mem-rw-conflict. GraphLint (`graph_lint::lint`) runs after them.
///
/// A later pass can re-expose what an earlier one isolates (SplitIdentity dissolving a user
/// Identity that kept a Const away from a continuous input, for instance), so the sequence is
/// repeated until a whole round plans nothing; GE runs it once. Every round after the first
/// that changes something appends five more plans. Reaching [`MAX_PIPELINE_ROUNDS`] without
/// a quiet round is an error.
///
/// A planner whose input has not changed in a way it can see since its own last run is not
/// run again: it would plan nothing (see `PipelineState` for the argument). The plans, the
/// final model and the statistics are those of running every planner in every round
/// (a property test compares both on random graphs).
pub fn plan_pipeline(
    g: &mut MemGraph,
    atomic: atomic_addr_clean::AtomicOptions,
) -> Result<Vec<Plan>, MemError> {
    let mut state = PipelineState::default();
    let mut plans = Vec::new();
    for round in 0..MAX_PIPELINE_ROUNDS {
        let mut batch = Vec::with_capacity(PIPELINE_PASSES);
        for pass in 0..PIPELINE_PASSES {
            if !state.must_run(pass) {
                continue;
            }
            let plan = run_pipeline_pass(g, pass, atomic)?;
            state.ran(pass, &plan);
            batch.push(plan);
        }
        let quiet = batch.iter().all(Plan::is_empty);
        if round == 0 || !quiet {
            // A skipped planner only ever occurs in a quiet round (see `PipelineState`), so a
            // batch that is kept has all five plans.
            debug_assert_eq!(batch.len(), PIPELINE_PASSES);
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

/// The planners of [`plan_pipeline`], in GE's order.
const PIPELINE_PASSES: usize = 5;
/// Index of mem-rw-conflict in [`run_pipeline_pass`].
const RW_CONFLICT: usize = 4;

fn run_pipeline_pass(
    g: &mut MemGraph,
    pass: usize,
    atomic: atomic_addr_clean::AtomicOptions,
) -> Result<Plan, MemError> {
    match pass {
        0 => hccl_memcpy::plan_hccl_memcpy(g),
        1 => hccl_continuous_memcpy::plan_hccl_continuous_memcpy(g),
        2 => subgraph_isolate::plan_subgraph_isolate(g),
        3 => atomic_addr_clean::plan_atomic_addr_clean(g, atomic),
        RW_CONFLICT => rw_conflict::plan_rw_conflict(g),
        _ => unreachable!("the pipeline has {PIPELINE_PASSES} passes"),
    }
}

/// Which planners of the pipeline may plan something if run now.
///
/// Every planner is idempotent: run on the model it just produced, it plans nothing (the
/// property tests check it for each planner on random graphs). A planner's decisions are a
/// function of the model only, so it can plan something again only if an edit made since
/// its own last run changed what it reads. A planner is therefore *stale* at the start and
/// whenever another planner applies an edit it can see, and *fresh* right after it runs; a
/// fresh planner would plan nothing and is skipped.
///
/// Which edits a planner can see: all of them, except mem-rw-conflict's own
/// `SetAttr { Reference }` (MarkRefRelations, B.2). That edit only sets `Sem::reference`,
/// which none of the four other planners reads, and mem-rw-conflict is fresh after its
/// own run. So when the passes before mem-rw-conflict insert nodes and mem-rw-conflict
/// only marks ref nodes (the usual case), the next round runs hccl-memcpy and
/// hccl-continuous-memcpy (they have not seen the later insertions); if both plan
/// nothing, the other three have seen every edit they can see, and the confirming round
/// ends without running them.
///
/// A round with a skipped planner plans nothing at all, so every kept round has its five
/// plans and statistics: round 0 runs everything, and by induction a round that is
/// followed by another was not quiet, so it ran all five. If `p` is skipped in round
/// `t > 0`, no visible edit happened since `p` ran in round `t - 1`. A planner before `p`
/// in round `t` can only make visible edits (the invisible kind comes from
/// mem-rw-conflict, the last one), so it planned nothing; a planner after `p` last ran
/// after `p` did, in round `t - 1`, so it is fresh too and skipped.
#[derive(Debug)]
struct PipelineState {
    stale: [bool; PIPELINE_PASSES],
}

impl Default for PipelineState {
    fn default() -> Self {
        PipelineState {
            stale: [true; PIPELINE_PASSES],
        }
    }
}

impl PipelineState {
    fn must_run(&self, pass: usize) -> bool {
        self.stale[pass]
    }

    /// `pass` ran and planned `plan` (already applied to the model).
    fn ran(&mut self, pass: usize, plan: &Plan) {
        self.stale[pass] = false;
        let visible = |step: &plan::Step| {
            pass != RW_CONFLICT
                || !matches!(
                    step.edit,
                    plan::Edit::SetAttr {
                        attr: plan::BoolAttr::Reference,
                        ..
                    }
                )
        };
        if plan.steps.iter().any(visible) {
            for (other, stale) in self.stale.iter_mut().enumerate() {
                *stale |= other != pass;
            }
        }
    }
}

/// [`plan_pipeline`] without skipping: every planner in every round (the reference the
/// property tests compare it with).
#[cfg(test)]
pub fn plan_pipeline_every_round(
    g: &mut MemGraph,
    atomic: atomic_addr_clean::AtomicOptions,
) -> Result<Vec<Plan>, MemError> {
    let mut plans = Vec::new();
    for round in 0..MAX_PIPELINE_ROUNDS {
        let batch = (0..PIPELINE_PASSES)
            .map(|pass| run_pipeline_pass(g, pass, atomic))
            .collect::<Result<Vec<_>, _>>()?;
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
