//! Edit helpers shared by the planners: GE's `InsertNodeBefore` / `InsertNodeAfter` with
//! their control-edge moves (ge-behaviour-notes B.12, pitfall F.8) and the HcomBroadcast
//! write-back Assign (B.15).

use super::model::{InPort, MemError, MemGraph, NodeId, OutPort};
use super::plan::{Edit, Plan, Rule};

/// GE `InsertNodeBefore(consumer)`: a new Identity takes over `c`; the consumer's in-control
/// edges move onto it, except those from AtomicAddrClean/MemSet (the clean must still
/// precede the consumer itself).
pub(crate) fn insert_identity_before(
    g: &mut MemGraph,
    plan: &mut Plan,
    c: InPort,
    name: String,
    cannot_be_deleted: bool,
    rule: Rule,
    reason: String,
) -> Result<NodeId, MemError> {
    if g.src(c.node, c.index).is_none() {
        return Err(MemError::at(
            g,
            c.node,
            format!("input {} is not connected", c.index),
        ));
    }
    let ctrl_moved: Vec<NodeId> = g
        .node(c.node)
        .ctrl_in
        .iter()
        .copied()
        .filter(|&s| !g.node(s).sem.atomic_clean)
        .collect();
    let edit = Edit::InsertIdentityBefore {
        new: Plan::next_id(g),
        name,
        consumer: c,
        ctrl_moved,
        cannot_be_deleted,
    };
    created(plan.push(g, edit, rule, reason)?)
}

/// GE `InsertNodeAfter(producer, consumers)`: a new Identity fed by `p` takes over
/// `consumers`; the producer's out-control edges move onto it unless the producer is a
/// Switch/RefSwitch/SwitchN.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_identity_after(
    g: &mut MemGraph,
    plan: &mut Plan,
    p: OutPort,
    consumers: Vec<InPort>,
    name: String,
    cannot_be_deleted: bool,
    rule: Rule,
    reason: String,
) -> Result<NodeId, MemError> {
    let ctrl_moved = if g.node(p.node).sem.switch_like {
        Vec::new()
    } else {
        g.node(p.node).ctrl_out.to_vec()
    };
    let edit = Edit::InsertIdentityAfter {
        new: Plan::next_id(g),
        name,
        producer: p,
        consumers,
        ctrl_moved,
        cannot_be_deleted,
    };
    created(plan.push(g, edit, rule, reason)?)
}

fn created(n: Option<NodeId>) -> Result<NodeId, MemError> {
    n.ok_or_else(|| MemError::global("insertion edit created no node"))
}

/// B.15 / 3.1.2: after isolating input `i` of an HcomBroadcast fed by a variable, write the
/// broadcast result back with `Assign(ref = var, value = broadcast:i)`, control-linked before
/// every consumer of that broadcast output and every control successor of the broadcast —
/// unless an `Assign` already reads the variable.
pub(crate) fn broadcast_write_back(
    g: &mut MemGraph,
    plan: &mut Plan,
    var: OutPort,
    hccl_in: InPort,
    rule: Rule,
) -> Result<(), MemError> {
    let h = hccl_in.node;
    if !g.node(h).sem.broadcast || !g.node(var.node).sem.var_like {
        return Ok(());
    }
    if g.consumers(var.node, var.index)
        .iter()
        .any(|c| g.node(c.node).sem.assign)
    {
        return Ok(());
    }
    if hccl_in.index as usize >= g.node(h).outputs.len() {
        return Err(MemError::at(
            g,
            h,
            format!(
                "HcomBroadcast has no output {} to write back",
                hccl_in.index
            ),
        ));
    }
    let value = OutPort {
        node: h,
        index: hccl_in.index,
    };
    let mut ctrl_to: Vec<NodeId> = g
        .consumers(h, hccl_in.index)
        .iter()
        .map(|c| c.node)
        .collect();
    ctrl_to.extend(g.node(h).ctrl_out.iter().copied());
    let mut seen = std::collections::HashSet::new();
    ctrl_to.retain(|n| seen.insert(*n));
    let name = g.fresh_name(&format!("{}_Assign_{}", g.node(h).name, hccl_in.index));
    let reason = format!(
        "%{} broadcasts into a copy of variable %{}; write the result back",
        g.node(h).name,
        g.node(var.node).name
    );
    let edit = Edit::InsertAssign {
        new: Plan::next_id(g),
        name,
        var,
        value,
        ctrl_to,
    };
    plan.push(g, edit, rule, reason)?;
    Ok(())
}
