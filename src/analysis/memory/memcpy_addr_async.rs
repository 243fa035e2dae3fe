//! MemcpyAddrAsyncPass (spec 3.1.6, ge-behaviour-notes B.18): `--memcpy-addr-async`.
//!
//! With zero copy, a user buffer's address is handed to the model instead of its bytes. Some
//! consumers cannot take such a borrowed address directly; a `MemcpyAddrAsync` node between
//! them passes it on. Over every node of a static root graph (subgraphs included):
//! 1. a `StreamMerge` input fed by a user `Data`: the copy goes on the edge where the user
//!    Data is found, looking through subgraph boundaries (a subgraph Data stands for the
//!    parent's input; inside a known-shape `PartitionedCall`, `_is_unknown_shape = false`,
//!    the copy stays inside, unless that Data references a variable);
//! 2. the root NetOutput fed directly by a `Const` / `Constant` (always), or by a Data-like
//!    node when a copy is forced (`offline`: GE's offline build, single-op or heterogeneous
//!    mode); empty tensors (a zero dimension) are left alone;
//! 3. an HCCL op (which cannot refresh its addresses) reading a `RefData`, when the feature
//!    map cannot be refreshed (`ge.featureBaseRefreshable` unset).
//!
//! A dynamic root is skipped, as GE does. The runtime's zero-copy capability is assumed.
//! Copies are named `<producer>_MemcpyAddrAsync_<n>` and inserted by unlinking the edge
//! (no control edges move). Re-running finds every such edge already behind a copy.
//!
//! Choices: GE follows a user Data up through If/While/Case outputs with an index it reads
//! from the wrong node; here the search stops at control-flow outputs. GE keeps its search
//! state in members that are never reset between StreamMerges; here each input is searched
//! afresh.

use super::model::{InPort, MemError, MemGraph, NodeId, Origin, OutPort, ROOT};
use super::plan::{CopyType, Edit, Plan, Rule};

/// The GE options the pass reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemcpyAddrOptions {
    /// A Data feeding the root NetOutput is copied too (offline / single-op / heterogeneous).
    pub offline: bool,
    /// `ge.featureBaseRefreshable = 1`: HCCL ops may read RefData directly.
    pub feature_map_refreshable: bool,
}

/// A user Data (GE `DATA`, not RefData).
fn is_user_data(g: &MemGraph, n: NodeId) -> bool {
    let s = g.node(n).sem;
    s.data_like && !s.var_like
}

/// Plan `--memcpy-addr-async` on `g` (left in the planned state).
pub fn plan_memcpy_addr_async(g: &mut MemGraph, opts: MemcpyAddrOptions) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::MemcpyAddrAsync, g);
    if !super::layout::top_static_graphs(g).contains(&ROOT) {
        return Ok(plan);
    }
    let mut counter = 0u32;
    for n in g.all_nodes() {
        if g.node(n).removed {
            continue;
        }
        plan.stats.nodes_visited += 1;
        let sem = g.node(n).sem;
        if sem.stream_merge {
            for i in 0..g.node(n).inputs.len() as u32 {
                stream_merge_input(g, &mut plan, &mut counter, InPort { node: n, index: i })?;
            }
        }
        if sem.net_output && g.node(n).graph == ROOT {
            for j in 0..g.node(n).inputs.len() as u32 {
                net_output_input(
                    g,
                    &mut plan,
                    &mut counter,
                    InPort { node: n, index: j },
                    opts,
                )?;
            }
        }
        if sem.hccl && !opts.feature_map_refreshable {
            for i in 0..g.node(n).inputs.len() as u32 {
                let c = InPort { node: n, index: i };
                let Some(src) = g.src(n, i) else { continue };
                let p = g.node(src.node).sem;
                if p.data_like && p.var_like {
                    let reason = format!(
                        "HCCL op %{} cannot refresh its addresses and the feature map is fixed: \
                         RefData %{} reaches it through a MemcpyAddrAsync",
                        g.node(n).name,
                        g.node(src.node).name
                    );
                    insert(
                        g,
                        &mut plan,
                        &mut counter,
                        src,
                        c,
                        Rule::MemcpyAddrHcclRefData,
                        reason,
                    )?;
                }
            }
        }
    }
    g.normalize();
    Ok(plan)
}

/// Rule 1 for one StreamMerge input: find the user Data behind it and copy on that edge.
fn stream_merge_input(
    g: &mut MemGraph,
    plan: &mut Plan,
    counter: &mut u32,
    merge_in: InPort,
) -> Result<(), MemError> {
    let Some(mut src) = g.src(merge_in.node, merge_in.index) else {
        return Ok(());
    };
    let mut edge = (src, merge_in);
    let mut through = Vec::new();
    for _ in 0..=g.graphs.len() {
        let d = src.node;
        if !is_user_data(g, d) {
            return Ok(());
        }
        let Some(parent) = g.parent_of(d) else {
            break; // a root Data: copy on the current edge
        };
        let Some(idx) = g.node(d).parent_index else {
            return Ok(());
        };
        if g.node(parent).sem.known_shape_call {
            if g.node(d).outputs.iter().any(|o| o.ref_var_src.is_some()) {
                return Ok(());
            }
            break; // copy inside the known-shape call, on the current edge
        }
        let Some(outer) = g.src(parent, idx) else {
            return Ok(());
        };
        through.push(g.node(parent).name.clone());
        src = outer;
        edge = (
            outer,
            InPort {
                node: parent,
                index: idx,
            },
        );
    }
    let (p, c) = edge;
    let via = if through.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = through.iter().map(|n| format!("%{n}")).collect();
        format!(" (through {})", names.join(", "))
    };
    let reason = format!(
        "user Data %{} feeds StreamMerge %{}{via}: its address is passed on by a \
         MemcpyAddrAsync (zero copy)",
        g.node(p.node).name,
        g.node(merge_in.node).name
    );
    insert(g, plan, counter, p, c, Rule::MemcpyAddrStreamMerge, reason)
}

/// Rule 2 for one root NetOutput input.
fn net_output_input(
    g: &mut MemGraph,
    plan: &mut Plan,
    counter: &mut u32,
    c: InPort,
    opts: MemcpyAddrOptions,
) -> Result<(), MemError> {
    let Some(src) = g.src(c.node, c.index) else {
        return Ok(());
    };
    let node = g.node(src.node);
    let is_const = matches!(node.ty.as_str(), "Const" | "Constant");
    let forced_data = node.sem.data_like && opts.offline;
    if !is_const && !forced_data {
        return Ok(());
    }
    let empty = g
        .out_tensor(src)
        .dims
        .as_ref()
        .is_some_and(|d| d.contains(&0));
    if empty {
        return Ok(());
    }
    let reason = if is_const {
        format!(
            "Const %{} feeds the graph output directly: the output gets its own buffer through \
             a MemcpyAddrAsync",
            node.name
        )
    } else {
        format!(
            "Data %{} feeds the graph output directly and this build must copy it (offline): \
             MemcpyAddrAsync",
            node.name
        )
    };
    insert(g, plan, counter, src, c, Rule::MemcpyAddrNetOutput, reason)
}

fn insert(
    g: &mut MemGraph,
    plan: &mut Plan,
    counter: &mut u32,
    producer: OutPort,
    consumer: InPort,
    rule: Rule,
    reason: String,
) -> Result<(), MemError> {
    if g.src(consumer.node, consumer.index) != Some(producer) {
        return Ok(()); // already rewired by an earlier copy
    }
    let name = g.fresh_name(&format!(
        "{}_MemcpyAddrAsync_{}",
        g.node(producer.node).name,
        counter
    ));
    *counter += 1;
    let edit = Edit::InsertCopy {
        new: Plan::next_id(g),
        name,
        ty: CopyType::MemcpyAddrAsync,
        producer,
        consumer,
    };
    plan.push(g, edit, rule, reason)?;
    Ok(())
}
