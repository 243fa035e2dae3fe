//! MarkSameAddrPass (spec 3.1.7): `--mark-same-addr`.
//!
//! In dynamic+static memory reuse mode the physical addresses of a static graph's feature
//! map may change between runs, but `StreamSwitch` and `LabelSwitchByIndex` read their
//! inputs by physical address. GE therefore marks the *producer* of such an input: the first
//! output (in output order, then consumer order) that feeds one of them gets
//! `_alloc_fixed_addr = <output name>` and `_alloc_fixed_addr_index = <output index>`, and
//! the allocator keeps that output at a fixed address. The spec's wording ("mark the
//! StreamSwitch") is loose; GE's code marks the producer, and so does this pass.
//!
//! As in GE: only the root graph's own nodes are visited (`GetDirectNode`), a dynamic root is
//! skipped, and running the pass is choosing the mode (GE schedules it only then). A node
//! already marked with the same index is left alone; an unnamed output is named
//! `__output<i>` (GE's generated name).

use super::model::{MemError, MemGraph, NodeId, Origin, ROOT};
use super::plan::{Edit, IntAttr, Plan, Rule, StrAttr};

/// The output of `n` that must keep a fixed address: the first one read by a node that
/// reads a fixed physical address (GE `IsNextNodeExpected`).
pub fn fixed_address_output(g: &MemGraph, n: NodeId) -> Option<u32> {
    g.node(n).outputs.iter().enumerate().find_map(|(o, out)| {
        out.consumers
            .iter()
            .any(|c| g.node(c.node).sem.fixed_address)
            .then_some(o as u32)
    })
}

/// Plan `--mark-same-addr` on `g` (left in the planned state).
pub fn plan_mark_same_addr(g: &mut MemGraph) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::MarkSameAddr, g);
    if !super::layout::top_static_graphs(g).contains(&ROOT) {
        return Ok(plan);
    }
    for n in g.graph(ROOT).order.clone() {
        plan.stats.nodes_visited += 1;
        let Some(o) = fixed_address_output(g, n) else {
            continue;
        };
        if g.node(n).fixed_addr_output == Some(o) {
            continue;
        }
        let node = g.node(n);
        let output_name = match node.outputs[o as usize].name {
            Some(s) => g.sym_str(s).to_string(),
            None => format!("__output{o}"),
        };
        let reader = node.outputs[o as usize]
            .consumers
            .iter()
            .find(|c| g.node(c.node).sem.fixed_address)
            .map(|c| g.node(c.node).name.clone())
            .unwrap_or_default();
        let reason = format!(
            "output {o} of %{} is read by %{reader} through a fixed physical address: keep it at \
             a fixed address (dynamic+static memory reuse)",
            node.name
        );
        plan.push(
            g,
            Edit::SetStrAttr {
                node: n,
                attr: StrAttr::FixedAddr,
                value: output_name,
            },
            Rule::MarkSameAddr,
            reason.clone(),
        )?;
        plan.push(
            g,
            Edit::SetIntAttr {
                node: n,
                attr: IntAttr::FixedAddrIndex,
                value: i64::from(o),
            },
            Rule::MarkSameAddr,
            reason,
        )?;
    }
    Ok(plan)
}
