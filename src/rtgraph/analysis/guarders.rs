//! GE's `CalcSubgraphGuardersPolicy` (`runtime/v2/graph_builder/bg_condition.cc`): the
//! lifetime of tensors that leave an If/Case branch.
//!
//! For each branch and each inner NetOutput input k, `FindGuarder` on its source (through
//! a `PointFromInputs`, which only passes its input's pointer on):
//! * an `inner_data` marked `guarder_outside`: the parent guards that input; the tensor
//!   passes straight through the branch, so the parent output k becomes a new tensor to
//!   guard: a guarder on the parent output and a plus-ref (`IdentityAddr`) in the branch;
//! * a source with a guarder in the branch (the guarder's `release_index` input is this
//!   value): that guarder is removed, the parent output k gets the guarder; when the same
//!   guarded value feeds several outputs, the second and later get a plus-ref;
//! * no guarder: remembered, for alignment.
//!
//! Then for every guarded index, each branch that does not guard it gets a plus-ref on its
//! source, so every branch hands the parent one reference it can release. Unlike GE (which
//! walks (index, type) pairs and would align an index guarded with two types twice, the
//! second time with a moved-from entry), an index is aligned once.

use super::branch_frames;
use crate::rtgraph::model::{Endpoint, Graph, Kind, Module, NodeId};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A plus-ref: the inner NetOutput's input `netoutput_input`, fed by `src`, goes through an
/// `IdentityAddr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PlusRef {
    pub src: Endpoint,
    pub netoutput_input: u32,
}

/// What to do in one branch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchGuarders {
    pub graph: usize,
    pub netoutput: Option<NodeId>,
    pub plus_refs: Vec<PlusRef>,
    pub removed_guarders: Vec<NodeId>,
    /// The output indexes this branch guards.
    pub guarded: BTreeSet<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardersPolicy {
    /// Guarders to create on the parent's outputs: (output index, guarder type).
    pub parent_guarders: BTreeSet<(u32, String)>,
    pub branches: Vec<BranchGuarders>,
}

/// GE's `FindGuarder`: whether `src` is guarded, by which in-graph guarder (none when the
/// guarder is outside, on the parent), and the guarder's type.
pub fn find_guarder(
    graph: &Graph,
    src: Endpoint,
) -> Result<Option<(Option<NodeId>, String)>, String> {
    if let Some(Kind::InnerData {
        guarder_outside: Some(t),
        ..
    }) = graph.node(src.node).map(|n| &n.kind)
    {
        if !is_free_node(t) {
            return Err(format!(
                "guarder_outside `{t}` of an inner_data is not a FreeMemory guarder type"
            ));
        }
        return Ok(Some((None, t.clone())));
    }
    for (consumer, input) in graph.uses(src) {
        if let Some(Kind::Guarder {
            guarder_type,
            release_index,
        }) = graph.node(consumer).map(|n| &n.kind)
        {
            if *release_index == input as i64 {
                return Ok(Some((Some(consumer), guarder_type.clone())));
            }
        }
    }
    Ok(None)
}

/// The value behind `src`: a `PointFromInputs` (the chain-conflict pass's, which runs
/// first) passes its input's pointer through, so its output lives and dies with that
/// input, whose guarder is the one to move.
pub fn through_point_from_inputs(graph: &Graph, src: Endpoint) -> Endpoint {
    match graph.node(src.node) {
        Some(node) if node.kind == Kind::PointFromInputs => {
            match node.inputs.get(src.output as usize) {
                Some(&input) => through_point_from_inputs(graph, input),
                None => src,
            }
        }
        _ => src,
    }
}

/// GE's `IsFreeNode`: the guarder types that free memory.
pub fn is_free_node(guarder_type: &str) -> bool {
    matches!(
        guarder_type,
        "FreeMemory" | "FreeMemoryHoldAddr" | "FreeFixedFeatureMemory" | "FreeBatchHbm"
    )
}

pub fn calc_subgraph_guarders_policy(
    module: &Module,
    graph: usize,
    cond: NodeId,
) -> Result<GuardersPolicy, String> {
    let frames = branch_frames(module, &module.graphs[graph], cond)?;
    let mut parent_guarders = BTreeSet::new();
    let mut branches = Vec::new();
    let mut unguarded: Vec<BTreeMap<u32, PlusRef>> = Vec::new();
    for &(g, out) in &frames {
        let frame = &module.graphs[g];
        let net = frame.node(out).expect("found by branch_frames");
        let mut policy = BranchGuarders {
            graph: g,
            netoutput: Some(out),
            ..Default::default()
        };
        let mut seen: HashSet<Endpoint> = HashSet::new();
        let mut plain = BTreeMap::new();
        for (k, &src) in net.inputs.iter().enumerate() {
            let edge = PlusRef {
                src,
                netoutput_input: k as u32,
            };
            let value = through_point_from_inputs(frame, src);
            match find_guarder(frame, value).map_err(|e| format!("branch `{}`: {e}", frame.name))? {
                Some((in_graph, guarder_type)) => {
                    parent_guarders.insert((k as u32, guarder_type));
                    policy.guarded.insert(k as u32);
                    match in_graph {
                        Some(guarder) => {
                            if !seen.insert(value) {
                                policy.plus_refs.push(edge);
                            }
                            if !policy.removed_guarders.contains(&guarder) {
                                policy.removed_guarders.push(guarder);
                            }
                        }
                        None => policy.plus_refs.push(edge),
                    }
                }
                None => {
                    plain.insert(k as u32, edge);
                }
            }
        }
        branches.push(policy);
        unguarded.push(plain);
    }
    let guarded_indexes: BTreeSet<u32> = parent_guarders.iter().map(|(k, _)| *k).collect();
    for k in guarded_indexes {
        for (policy, plain) in branches.iter_mut().zip(&unguarded) {
            if policy.guarded.contains(&k) {
                continue;
            }
            if let Some(edge) = plain.get(&k) {
                policy.plus_refs.push(*edge);
            }
        }
    }
    Ok(GuardersPolicy {
        parent_guarders,
        branches,
    })
}
