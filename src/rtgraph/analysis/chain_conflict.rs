//! GE's `CalcChainConflictSolvePolicy` (`runtime/v2/graph_builder/bg_condition.cc`): for
//! each output index k of an If/Case, the set of sources over all branches, a source being
//! the feeding `inner_data`'s index or -1 for anything else. More than one source: k is a
//! conflict index (the branches would hand the parent different addresses for one output;
//! GE puts a `PointFromInputs` before each branch's inner NetOutput for every conflict
//! index). Exactly one inner_data index: k is "all same" and needs nothing.

use super::branch_frames;
use crate::rtgraph::model::{Kind, Module, NodeId};
use std::collections::BTreeSet;

/// The policy of one cond node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainConflictPolicy {
    /// Per branch, in order: (graph index, its inner NetOutput).
    pub netoutputs: Vec<(usize, NodeId)>,
    pub conflict_indexes: BTreeSet<u32>,
    pub all_same_indexes: BTreeSet<u32>,
    /// Per output index, the sources over the branches (for diagnostics and tests).
    pub sources: Vec<BTreeSet<i64>>,
}

pub fn calc_chain_conflict_solve_policy(
    module: &Module,
    graph: usize,
    cond: NodeId,
) -> Result<ChainConflictPolicy, String> {
    let parent = &module.graphs[graph];
    let netoutputs = branch_frames(module, parent, cond)?;
    let outputs = parent.node(cond).map_or(0, |n| n.outputs) as usize;
    let mut sources = vec![BTreeSet::new(); outputs];
    for &(branch, out) in &netoutputs {
        let frame = &module.graphs[branch];
        let out = frame.node(out).expect("found by branch_frames");
        for (k, edge) in out.inputs.iter().enumerate() {
            let source = match frame.node(edge.node).map(|n| &n.kind) {
                Some(Kind::InnerData { index, .. }) => *index,
                _ => -1,
            };
            sources[k].insert(source);
        }
    }
    let mut conflict_indexes = BTreeSet::new();
    let mut all_same_indexes = BTreeSet::new();
    for (k, set) in sources.iter().enumerate() {
        if set.len() > 1 {
            conflict_indexes.insert(k as u32);
        } else if set.first().is_some_and(|&s| s != -1) {
            all_same_indexes.insert(k as u32);
        }
    }
    Ok(ChainConflictPolicy {
        netoutputs,
        conflict_indexes,
        all_same_indexes,
        sources,
    })
}
