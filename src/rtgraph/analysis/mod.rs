//! The decisions of the runtime passes, as pure functions over the execute graph (tests
//! check them without MLIR): GE's `bg_condition.cc` policies for If/Case frames and
//! `placed_lowering_result.cc`'s copy table.

pub mod chain_conflict;
pub mod guarders;
pub mod placement;

use super::model::{Graph, Kind, Module, NodeId};

/// Every `cond` node of the module: (graph index, node).
pub fn conds(module: &Module) -> Vec<(usize, NodeId)> {
    module
        .graphs
        .iter()
        .enumerate()
        .flat_map(|(g, graph)| {
            graph
                .nodes
                .iter()
                .filter(|n| matches!(n.kind, Kind::Cond { .. }))
                .map(move |n| (g, n.id))
        })
        .collect()
}

/// The branch frames of `cond` (graph indexes, in branch order) and their inner
/// NetOutputs, or why the frame is malformed.
pub fn branch_frames(
    module: &Module,
    graph: &Graph,
    cond: NodeId,
) -> Result<Vec<(usize, NodeId)>, String> {
    let node = graph.node(cond).ok_or("no such cond node")?;
    let Kind::Cond { branches, op_type } = &node.kind else {
        return Err(format!("`{}` is not a cond", node.name));
    };
    if branches.is_empty() {
        return Err(format!("{op_type} `{}` has no branch", node.name));
    }
    branches
        .iter()
        .map(|b| {
            let index = module
                .graph_index(b)
                .ok_or_else(|| format!("{op_type} `{}`: no branch graph `{b}`", node.name))?;
            let out = module.graphs[index]
                .first(|k| matches!(k, Kind::InnerNetOutput))
                .ok_or_else(|| {
                    format!(
                        "{op_type} `{}`: branch `{b}` has no ascend_rt.inner_netoutput",
                        node.name
                    )
                })?;
            if out.inputs.len() != node.outputs as usize {
                return Err(format!(
                    "{op_type} `{}`: branch `{b}` returns {} values, the node has {} outputs",
                    node.name,
                    out.inputs.len(),
                    node.outputs
                ));
            }
            Ok((index, out.id))
        })
        .collect()
}
