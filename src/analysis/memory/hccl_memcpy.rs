//! HcclMemcpyPass (spec 3.1.1, ge-behaviour-notes B.15): `--hccl-memcpy`.
//!
//! An op with `_input_mutable` (HcomAllReduce, HcomBroadcast, ...) overwrites its inputs in
//! place. For each input of such an op H:
//! 1. a Const/Constant/Variable-family producer is always isolated by an Identity (HcomBroadcast
//!    of a variable also gets a write-back Assign);
//! 2. a producer output with a single consumer needs nothing;
//! 3. otherwise, an Identity is inserted when some other consumer of that output runs *after*
//!    H in topological order (it would read the overwritten bytes). Consumers that only read
//!    the shape (`Shape`, `Rank`, or a `Reshape` feeding only those) and Identities this pass
//!    inserted are ignored. When no consumer runs later, H is marked `_skip_rw_conflict` so
//!    the general pass leaves it alone.
//!
//! Choices (documented deviations): every graph (root and subgraphs) is processed, each on its
//! own topological order — the graph's order as given (MLIR block order), where GE re-sorts
//! first (its sort may order independent siblings differently); unconnected inputs are skipped (GE fails on them); RefData counts as
//! a variable for rule 1 (GE's `IsVariableNode` list omits it, but a RefData is a variable to
//! the user). GE recognises "an Identity this pass inserted" by a copied topo id; we use the
//! node's origin. The spec prose says "sibling ID smaller" — the code (and these notes) insert
//! when the sibling runs later, which is the case that corrupts the reader.

use super::edits::{broadcast_write_back, insert_identity_before};
use super::model::{InPort, MemError, MemGraph, NodeId, Origin, ROOT};
use super::plan::{BoolAttr, Edit, Plan, Rule};

/// Plan `--hccl-memcpy` on `g` (left in the planned state).
pub fn plan_hccl_memcpy(g: &mut MemGraph) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::HcclMemcpy, g);
    let topo = g.topo_index();
    let mut graphs = vec![ROOT];
    graphs.extend(g.all_subgraphs());
    for gid in graphs {
        if g.graph(gid).order.len() < 2 {
            continue;
        }
        for h in g.graph(gid).order.clone() {
            plan.stats.nodes_visited += 1;
            if g.node(h).sem.input_mutable {
                mutable_input_process(g, &mut plan, &topo, h)?;
            }
        }
    }
    g.normalize();
    Ok(plan)
}

/// `Shape`/`Rank`, or a `Reshape` whose consumers are all `Shape`/`Rank` (GE's
/// `IsShapeComputingBranch`; a Reshape with no consumer counts, as in GE).
pub fn is_shape_computing_branch(g: &MemGraph, n: NodeId) -> bool {
    let node = g.node(n);
    if node.sem.shape_only {
        return true;
    }
    node.sem.reshape
        && node
            .outputs
            .iter()
            .flat_map(|o| o.consumers.iter())
            .all(|c| g.node(c.node).sem.shape_only)
}

fn mutable_input_process(
    g: &mut MemGraph,
    plan: &mut Plan,
    topo: &[u32],
    h: NodeId,
) -> Result<(), MemError> {
    for i in 0..g.node(h).inputs.len() as u32 {
        let Some(src) = g.src(h, i) else {
            continue;
        };
        let hin = InPort { node: h, index: i };
        let p = g.node(src.node);
        let hname = g.node(h).name.clone();
        if p.sem.const_like || p.sem.var_like {
            let kind = if p.sem.const_like {
                "constant"
            } else {
                "variable"
            };
            let reason = format!("{kind} %{} -> scope-writable input {i} of %{hname}", p.name);
            let name = g.fresh_name(&format!("{hname}_HcclMemcpyPass_Identity{i}"));
            insert_identity_before(g, plan, hin, name, false, Rule::HcclConstVar, reason)?;
            broadcast_write_back(g, plan, src, hin, Rule::HcclBroadcastAssign)?;
            continue;
        }
        if g.consumers(src.node, src.index).len() == 1 {
            continue;
        }
        let later = later_sibling(g, topo, src.node, src.index, hin);
        match later {
            Some(s) => {
                let reason = format!(
                    "%{}:{} is read by %{} after %{hname} overwrites it (input {i})",
                    g.node(src.node).name,
                    src.index,
                    g.node(s).name
                );
                let name = g.fresh_name(&format!("{hname}_HcclMemcpyPass_Identity{i}"));
                insert_identity_before(g, plan, hin, name, false, Rule::HcclSiblingLater, reason)?;
                broadcast_write_back(g, plan, src, hin, Rule::HcclBroadcastAssign)?;
            }
            None => {
                if !g.node(h).sem.skip_rw_conflict {
                    let reason = format!(
                        "every other reader of %{}:{} runs before %{hname}",
                        g.node(src.node).name,
                        src.index
                    );
                    plan.push(
                        g,
                        Edit::SetAttr {
                            node: h,
                            attr: BoolAttr::SkipRwConflict,
                        },
                        Rule::HcclSkipMark,
                        reason,
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// GE's `NeedInsertIdentity`: the first other consumer of `src:o` that runs after the HCCL op.
fn later_sibling(g: &MemGraph, topo: &[u32], src: NodeId, o: u32, hin: InPort) -> Option<NodeId> {
    let h_topo = topo[hin.node.0 as usize];
    g.consumers(src, o).iter().find_map(|&s| {
        if s == hin {
            return None;
        }
        let sn = g.node(s.node);
        if sn.origin == Some(Origin::HcclMemcpy) || is_shape_computing_branch(g, s.node) {
            return None;
        }
        // Nodes created after the order was taken have no topo id; they are this pass's
        // own insertions (handled above) or placed next to existing nodes.
        let st = topo.get(s.node.0 as usize).copied().unwrap_or(u32::MAX);
        (st != u32::MAX && st > h_topo).then_some(s.node)
    })
}
