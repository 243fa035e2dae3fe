//! HcclContinuousMemcpyPass (spec 3.1.2): `--hccl-continuous-memcpy`.
//!
//! An op whose inputs must be one contiguous block (`continuous_input`) cannot use the memory
//! of a Data, Const or Variable (fixed, separately allocated addresses), nor share a tensor
//! with another continuous-input consumer (both would need it at a different place). Such an
//! input gets an Identity (`_cannot_be_deleted`), so the copy lands in the contiguous block.
//! Likewise an input whose `_input_memory_type` is P2P must not be fed directly by a
//! Data/Const/Variable. An HcomBroadcast of a variable also gets a write-back Assign.
//!
//! Choice: unconnected inputs are skipped (GE fails on them).

use super::edits::{broadcast_write_back, insert_identity_before};
use super::model::{mem_type, InPort, MemError, MemGraph, NodeId, Origin, OutPort, ROOT};
use super::plan::{Plan, Rule};

/// Plan `--hccl-continuous-memcpy` on `g` (left in the planned state).
pub fn plan_hccl_continuous_memcpy(g: &mut MemGraph) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::HcclContinuousMemcpy, g);
    let mut graphs = vec![ROOT];
    graphs.extend(g.all_subgraphs());
    for gid in graphs {
        for n in g.graph(gid).order.clone() {
            plan.stats.nodes_visited += 1;
            continuous_input_process(g, &mut plan, n)?;
            p2p_input_process(g, &mut plan, n)?;
        }
    }
    g.normalize();
    Ok(plan)
}

/// GE's `IsDataNode` of this pass: Const/Constant, Data-like, Variable-like.
fn is_fixed_address(g: &MemGraph, n: NodeId) -> bool {
    let s = g.node(n).sem;
    s.const_like || s.data_like || s.var_like
}

fn multi_continuous_consumers(g: &MemGraph, src: OutPort) -> bool {
    g.consumers(src.node, src.index)
        .iter()
        .filter(|c| g.node(c.node).sem.continuous_input)
        .count()
        > 1
}

fn isolate(
    g: &mut MemGraph,
    plan: &mut Plan,
    c: InPort,
    src: OutPort,
    rule: Rule,
    why: &str,
) -> Result<(), MemError> {
    let reason = format!(
        "%{}:{} -> {why} input {} of %{}",
        g.node(src.node).name,
        src.index,
        c.index,
        g.node(c.node).name
    );
    let name = g.fresh_name(&format!(
        "{}_HcclContinuousMemcpyPass_Identity",
        g.node(src.node).name
    ));
    insert_identity_before(g, plan, c, name, true, rule, reason)?;
    broadcast_write_back(g, plan, src, c, Rule::HcclBroadcastAssign)
}

fn continuous_input_process(g: &mut MemGraph, plan: &mut Plan, n: NodeId) -> Result<(), MemError> {
    if !g.node(n).sem.continuous_input {
        return Ok(());
    }
    for i in 0..g.node(n).inputs.len() as u32 {
        let Some(src) = g.src(n, i) else {
            continue;
        };
        let c = InPort { node: n, index: i };
        if is_fixed_address(g, src.node) {
            isolate(
                g,
                plan,
                c,
                src,
                Rule::HcclContinuousInput,
                "fixed-address output into continuous",
            )?;
        } else if multi_continuous_consumers(g, src) {
            isolate(
                g,
                plan,
                c,
                src,
                Rule::HcclContinuousInput,
                "output shared by several continuous inputs; continuous",
            )?;
        }
    }
    Ok(())
}

fn p2p_input_process(g: &mut MemGraph, plan: &mut Plan, n: NodeId) -> Result<(), MemError> {
    for i in 0..g.node(n).inputs.len() as u32 {
        if !mem_type::is_p2p(g.node(n).inputs[i as usize].mem_type) {
            continue;
        }
        let Some(src) = g.src(n, i) else {
            continue;
        };
        if is_fixed_address(g, src.node) {
            isolate(
                g,
                plan,
                InPort { node: n, index: i },
                src,
                Rule::HcclP2pInput,
                "fixed-address output into P2P",
            )?;
        }
    }
    Ok(())
}
