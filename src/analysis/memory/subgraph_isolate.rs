//! SubgraphPass (spec 3.1.3, ge-behaviour-notes B.16): `--subgraph-isolate`.
//!
//! Control-flow subgraphs share addresses with their parent at the boundary; these rules put
//! an Identity ("Memcpy", always `_cannot_be_deleted`) where sharing would be wrong:
//!
//! | spec 3.1.3 row | rule here |
//! |---|---|
//! | While input shared by several consumers | [`Rule::SubgraphWhileSharedInput`] |
//! | body Data into a continuous-input op | [`Rule::SubgraphDataContinuous`] (any subgraph) |
//! | body Data -> NetOutput at the same index | bypass: no copy for it |
//! | other body inputs/outputs | [`Rule::SubgraphWhileBody`]: one multi-input Identity after the body Datas, one before the body NetOutput (and after the cond Datas of a dynamic While) |
//! | If/Case branch: one producer feeds several outputs | [`Rule::SubgraphCondOutputShared`] (known-shape graphs) |
//! | subgraph output from a Const (static parent graph), an atomic op, a continuous-output op, a Data (parent not While), a While (known graph, dynamic NetOutput) | [`Rule::SubgraphNetOutputInput`] |
//! | Const into a While | [`Rule::SubgraphWhileConstInput`] |
//!
//! Graphs are processed root first, then subgraphs parent-before-child, each in its order.
//! GE is not idempotent here (a second run adds another While-body copy); we recognise our
//! own copies: a body Data whose consumers are all SubgraphPass Identities, and a body
//! NetOutput input fed by a SubgraphPass Identity that feeds only the NetOutput, are already
//! isolated.

use std::collections::HashSet;

use super::edits::insert_identity_after;
use super::model::{GraphId, InPort, MemError, MemGraph, NodeId, Origin, OutPort, Placement, ROOT};
use super::plan::{Edit, Plan, Rule};
use super::rw_types::ref_input_of_output;

/// Plan `--subgraph-isolate` on `g` (left in the planned state).
pub fn plan_subgraph_isolate(g: &mut MemGraph) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::SubgraphIsolate, g);
    let mut graphs = vec![ROOT];
    graphs.extend(g.all_subgraphs());
    for gid in graphs {
        let is_sub = g.graph(gid).parent.is_some();
        for n in g.graph(gid).order.clone() {
            if g.node(n).removed {
                continue;
            }
            plan.stats.nodes_visited += 1;
            let node = g.node(n);
            if is_sub && node.sem.data {
                subgraph_input(g, &mut plan, gid, n)?;
            } else if is_sub && node.sem.net_output {
                subgraph_output(g, &mut plan, gid, n)?;
            } else if node.sem.while_family {
                while_inputs(g, &mut plan, n)?;
                while_body(g, &mut plan, n)?;
            } else if node.sem.conditional && !g.graph(gid).unknown_shape {
                separate_cond_outputs(g, &mut plan, n)?;
            }
        }
        g.normalize();
    }
    Ok(plan)
}

fn memcpy_after(
    g: &mut MemGraph,
    plan: &mut Plan,
    p: OutPort,
    consumers: Vec<InPort>,
    name: &str,
    rule: Rule,
    reason: String,
) -> Result<NodeId, MemError> {
    let name = g.fresh_name(name);
    insert_identity_after(g, plan, p, consumers, name, true, rule, reason)
}

/// Whether the op behind input `c` (or an op reached through ref outputs) needs continuous
/// input memory (GE's `TraverseRefChain` with the continuous-input judge).
pub fn input_continuous_required(g: &MemGraph, c: InPort) -> bool {
    // Most inputs are plain reads: answer those without the traversal's allocations.
    let s = g.node(c.node).sem;
    if s.continuous_input || s.nopad_continuous_input {
        return true;
    }
    let refs_on = (0..g.node(c.node).outputs.len() as u32)
        .any(|o| ref_input_of_output(g, c.node, o) == Some(c.index));
    if !refs_on {
        return false;
    }
    let mut stack = vec![c];
    let mut seen = HashSet::new();
    while let Some(cur) = stack.pop() {
        if !seen.insert(cur) {
            continue;
        }
        let s = g.node(cur.node).sem;
        if s.continuous_input || s.nopad_continuous_input {
            return true;
        }
        for o in 0..g.node(cur.node).outputs.len() as u32 {
            if ref_input_of_output(g, cur.node, o) == Some(cur.index) {
                stack.extend(g.consumers(cur.node, o).iter().copied());
            }
        }
    }
    false
}

/// Whether output `p` (or an output it references back through ref inputs) is a
/// continuous output (GE's `TraverseRefChainReverse`).
pub fn output_continuous_required(g: &MemGraph, p: OutPort) -> bool {
    let mut cur = Some(p);
    let mut steps = 0;
    while let Some(o) = cur {
        let s = g.node(o.node).sem;
        if s.continuous_output || s.nopad_continuous_output {
            return true;
        }
        steps += 1;
        if steps > g.nodes.len() {
            break;
        }
        cur = ref_input_of_output(g, o.node, o.index).and_then(|i| g.src(o.node, i));
    }
    false
}

/// The node that really produces subgraph Data `d`'s value, looking through PartitionedCall
/// boundaries in both directions (GE's `GetInNodeCrossPartionedCallNode`).
pub fn outer_source(g: &MemGraph, d: NodeId) -> Option<NodeId> {
    let mut cur = g.src(g.parent_of(d)?, g.node(d).parent_index?)?;
    for _ in 0..=g.nodes.len() {
        let node = g.node(cur.node);
        if g.is_subgraph_data(cur.node)
            && g.parent_of(cur.node)
                .is_some_and(|p| g.node(p).sem.partitioned_call)
        {
            cur = g.src(g.parent_of(cur.node)?, node.parent_index?)?;
        } else if node.sem.partitioned_call {
            let sg = *node.subgraphs.first()?;
            let no = g.graph(sg).net_output?;
            cur = g.src(no, cur.index)?;
        } else {
            return Some(cur.node);
        }
    }
    None
}

fn subgraph_input(
    g: &mut MemGraph,
    plan: &mut Plan,
    gid: GraphId,
    d: NodeId,
) -> Result<(), MemError> {
    let consumers = g.consumers(d, 0).to_vec();
    if let Some(&c) = consumers.iter().find(|&&c| input_continuous_required(g, c)) {
        let reason = format!(
            "subgraph input %{} feeds continuous input {} of %{}",
            g.node(d).name,
            c.index,
            g.node(c.node).name
        );
        let name = format!("{}_output_0_Memcpy", g.node(d).name);
        memcpy_after(
            g,
            plan,
            OutPort { node: d, index: 0 },
            consumers,
            &name,
            Rule::SubgraphDataContinuous,
            reason,
        )?;
    }
    let Some(idx) = g.node(d).parent_index else {
        return Err(MemError::at(
            g,
            d,
            "subgraph Data has no _parent_node_index",
        ));
    };
    // Only a While input needs its outer source: asked first, the walk up through every
    // enclosing PartitionedCall ran for each subgraph Data, quadratic in nesting depth.
    let parent = g.graph(gid).parent.expect("subgraph");
    if !g.node(parent).sem.while_family {
        return Ok(());
    }
    let Some(src_node) = outer_source(g, d) else {
        return Ok(());
    };
    if !g.node(src_node).sem.const_like {
        return Ok(());
    }
    let Some(p) = g.src(parent, idx) else {
        return Err(MemError::at(
            g,
            parent,
            format!("While input {idx} is not connected"),
        ));
    };
    let reason = format!(
        "constant %{} enters the loop %{} (input {idx}); the body may overwrite it",
        g.node(src_node).name,
        g.node(parent).name
    );
    let name = format!("{}_input_{idx}_Memcpy", g.node(parent).name);
    memcpy_after(
        g,
        plan,
        p,
        vec![InPort {
            node: parent,
            index: idx,
        }],
        &name,
        Rule::SubgraphWhileConstInput,
        reason,
    )?;
    Ok(())
}

fn subgraph_output(
    g: &mut MemGraph,
    plan: &mut Plan,
    gid: GraphId,
    no: NodeId,
) -> Result<(), MemError> {
    let parent = g.graph(gid).parent.expect("subgraph");
    let parent_graph_unknown = g.graph(g.node(parent).graph).unknown_shape;
    let parent_is_while = g.node(parent).sem.while_family;
    for j in 0..g.node(no).inputs.len() as u32 {
        let Some(src) = g.src(no, j) else {
            continue;
        };
        let pn = g.node(src.node);
        let why = if pn.sem.const_like && !parent_graph_unknown {
            Some("a constant (static parent graph)")
        } else if pn
            .atomic
            .as_ref()
            .is_some_and(|a| a.outputs.contains(&src.index))
        {
            Some("an atomic output")
        } else if output_continuous_required(g, src) {
            Some("a continuous output")
        } else if pn.sem.data && !parent_is_while {
            Some("a subgraph input (parent is not a While)")
        } else if !g.graph(gid).unknown_shape && g.node(no).sem.unknown_shape && pn.sem.while_family
        {
            Some("a While output (known graph, dynamic output)")
        } else {
            None
        };
        if let Some(why) = why {
            let reason = format!(
                "subgraph output {j} of {} comes from {why} %{}",
                g.graph(gid).name,
                pn.name
            );
            let name = format!("{}_input_{j}_Memcpy", g.node(no).name);
            memcpy_after(
                g,
                plan,
                src,
                vec![InPort { node: no, index: j }],
                &name,
                Rule::SubgraphNetOutputInput,
                reason,
            )?;
        }
    }
    Ok(())
}

fn while_inputs(g: &mut MemGraph, plan: &mut Plan, w: NodeId) -> Result<(), MemError> {
    for i in 0..g.node(w).inputs.len() as u32 {
        let Some(src) = g.src(w, i) else {
            continue;
        };
        if g.node(src.node).sem.var_like || g.consumers(src.node, src.index).len() <= 1 {
            continue;
        }
        let reason = format!(
            "%{}:{} feeds While %{} (input {i}) and other consumers",
            g.node(src.node).name,
            src.index,
            g.node(w).name
        );
        let name = format!("{}_input_{i}_Memcpy", g.node(w).name);
        memcpy_after(
            g,
            plan,
            src,
            vec![InPort { node: w, index: i }],
            &name,
            Rule::SubgraphWhileSharedInput,
            reason,
        )?;
    }
    Ok(())
}

fn is_our_copy(g: &MemGraph, n: NodeId) -> bool {
    let node = g.node(n);
    node.origin == Some(Origin::SubgraphIsolate) && node.sem.identity_like
}

/// Data of a loop subgraph that still needs the input memcpy: not a bypass Data (single
/// consumer = NetOutput at its own parent index) and not already isolated by our copy.
fn needs_input_memcpy(g: &MemGraph, d: NodeId, bypass: &mut HashSet<u32>) -> bool {
    let consumers = g.consumers(d, 0);
    let Some(idx) = g.node(d).parent_index else {
        return true;
    };
    if let [c] = consumers {
        let cn = g.node(c.node);
        if cn.sem.net_output && cn.inputs[c.index as usize].parent_index == Some(idx) {
            bypass.insert(c.index);
            return false;
        }
    }
    !already_copied(g, d)
}

/// A Data whose consumers are all SubgraphPass copies (a previous run isolated it).
fn already_copied(g: &MemGraph, d: NodeId) -> bool {
    let cs = g.consumers(d, 0);
    !cs.is_empty() && cs.iter().all(|c| is_our_copy(g, c.node))
}

fn insert_input_memcpy(
    g: &mut MemGraph,
    plan: &mut Plan,
    sg: GraphId,
    datas: &[NodeId],
    w: NodeId,
) -> Result<(), MemError> {
    if datas.is_empty() {
        return Ok(());
    }
    let links: Vec<(OutPort, Vec<InPort>)> = datas
        .iter()
        .map(|&d| (OutPort { node: d, index: 0 }, g.consumers(d, 0).to_vec()))
        .collect();
    let last = *datas
        .iter()
        .max_by_key(|d| g.graph(sg).order.iter().position(|x| x == *d))
        .expect("non-empty");
    let name = g.fresh_name(&format!("{}_input_Memcpy", g.graph(sg).name));
    let reason = format!(
        "loop %{} : inputs of {} must not alias the values outside",
        g.node(w).name,
        g.graph(sg).name
    );
    let edit = Edit::InsertMultiIdentity {
        new: Plan::next_id(g),
        name,
        graph: sg,
        links,
        placement: Placement::After(last),
        cannot_be_deleted: true,
    };
    plan.push(g, edit, Rule::SubgraphWhileBody, reason)?;
    Ok(())
}

fn while_body(g: &mut MemGraph, plan: &mut Plan, w: NodeId) -> Result<(), MemError> {
    let Some(&body) = g.node(w).subgraphs.get(1) else {
        return Err(MemError::at(g, w, "While has no body subgraph"));
    };
    if g.graph(body).unknown_shape {
        return Ok(());
    }
    if g.node(w).sem.unknown_shape {
        if let Some(&cond) = g.node(w).subgraphs.first() {
            let datas: Vec<NodeId> = g
                .graph(cond)
                .order
                .iter()
                .copied()
                .filter(|&d| g.node(d).sem.data)
                .filter(|&d| !already_copied(g, d))
                .collect();
            insert_input_memcpy(g, plan, cond, &datas, w)?;
        }
    }
    let mut bypass = HashSet::new();
    let mut datas = Vec::new();
    for d in g.graph(body).order.clone() {
        if g.node(d).sem.data && needs_input_memcpy(g, d, &mut bypass) {
            datas.push(d);
        }
    }
    let outs: Vec<NodeId> = g
        .graph(body)
        .order
        .iter()
        .copied()
        .filter(|&n| g.node(n).sem.net_output)
        .collect();
    let no = match outs[..] {
        [no] => no,
        [] => {
            return Err(MemError::at(
                g,
                w,
                format!("While body {} has no NetOutput", g.graph(body).name),
            ))
        }
        _ => {
            return Err(MemError::at(
                g,
                w,
                format!("While body {} has several NetOutputs", g.graph(body).name),
            ))
        }
    };
    // Decide the outputs to copy before the input copy rewires Data -> NetOutput edges.
    let mut outputs = Vec::new();
    for j in 0..g.node(no).inputs.len() as u32 {
        if bypass.contains(&j) {
            continue;
        }
        let Some(src) = g.src(no, j) else {
            continue;
        };
        let done = is_our_copy(g, src.node)
            && g.node(src.node)
                .outputs
                .iter()
                .flat_map(|o| o.consumers.iter())
                .all(|c| c.node == no);
        if !done {
            outputs.push(j);
        }
    }
    insert_input_memcpy(g, plan, body, &datas, w)?;
    let links: Vec<(OutPort, Vec<InPort>)> = outputs
        .into_iter()
        .filter_map(|j| {
            g.src(no, j)
                .map(|src| (src, vec![InPort { node: no, index: j }]))
        })
        .collect();
    if links.is_empty() {
        return Ok(());
    }
    let name = g.fresh_name(&format!("{}_output_Memcpy", g.graph(body).name));
    let reason = format!(
        "loop %{} : outputs of {} must get their own buffers for the next iteration",
        g.node(w).name,
        g.graph(body).name
    );
    let edit = Edit::InsertMultiIdentity {
        new: Plan::next_id(g),
        name,
        graph: body,
        links,
        placement: Placement::Before(no),
        cannot_be_deleted: true,
    };
    plan.push(g, edit, Rule::SubgraphWhileBody, reason)?;
    Ok(())
}

fn separate_cond_outputs(g: &mut MemGraph, plan: &mut Plan, n: NodeId) -> Result<(), MemError> {
    for sg in g.node(n).subgraphs.clone() {
        let Some(no) = g.graph(sg).net_output else {
            return Err(MemError::at(
                g,
                n,
                format!("branch {} has no NetOutput", g.graph(sg).name),
            ));
        };
        let mut seen = HashSet::new();
        for j in 0..g.node(no).inputs.len() as u32 {
            let Some(src) = g.src(no, j) else {
                continue;
            };
            if seen.insert(src.node) {
                continue;
            }
            let reason = format!(
                "%{} already feeds another output of branch {}; output {j} needs its own address",
                g.node(src.node).name,
                g.graph(sg).name
            );
            let name = format!("{}_output_{j}_Memcpy", g.node(src.node).name);
            memcpy_after(
                g,
                plan,
                src,
                vec![InPort { node: no, index: j }],
                &name,
                Rule::SubgraphCondOutputShared,
                reason,
            )?;
        }
    }
    Ok(())
}
