//! GE `CtrlNodeConflict::SolveCtrlNodeSubGraphConflict` (notes B.19 step 2, spec 3.3.4): the
//! control-flow rules that run before the symbol-level check, on every node of a top
//! static graph (nested subgraphs included).
//!
//! * `If` / `StatelessIf` (then, else) and `Case` / `StatelessCase` (every branch): in each
//!   branch, with the branch's own symbols, a NetOutput input is isolated when its symbol
//!   holds an output of a Data of the branch, of a Const-like or Variable-like node, or of a
//!   node with `ref_var_src_var_name` — or when an earlier NetOutput input already has the
//!   same symbol. All isolated inputs of a branch share one multi-input Identity placed
//!   before the NetOutput.
//! * `While` / `StatelessWhile`: in the body, a Data whose only consumer is the NetOutput at
//!   another parent index is "changed", at the same index a bypass. Unless the body is a
//!   single Data -> NetOutput, or one input/output with more than one node in between (GE's
//!   symbol-count test), one Identity goes before the NetOutput for every non-bypass output
//!   not already fed by a copy; then one Identity goes after the changed Datas.
//!
//! GE lists `If`, `StatelessIf`, `Case`, `StatelessCase`, `While`, `StatelessWhile` by name
//! (not `_If` / `_While`), so the types are matched by name here too.

use std::collections::{HashMap, HashSet};

use super::super::model::{GraphId, InPort, MemError, MemGraph, NodeId, Placement};
use super::super::plan::{Edit, Plan, Rule};
use super::super::symbols::{Anchor, SymbolId, Symbols};
use super::{anchor_text, skip_insert_in, Namer};

/// Runs the control-flow rules on every node of top graph `graph`.
pub(super) fn solve(
    g: &mut MemGraph,
    plan: &mut Plan,
    namer: &mut Namer,
    graph: GraphId,
) -> Result<(), MemError> {
    for n in g.all_nodes_of(graph) {
        if g.node(n).removed {
            continue;
        }
        for sub in branches(g, n)? {
            branch(g, plan, namer, n, sub)?;
        }
        if is_while(g, n) {
            while_body(g, plan, namer, n)?;
        }
    }
    Ok(())
}

/// Whether [`solve`] would insert anything in top graph `graph` (`g` normalized). Read
/// only: up to its first insertion `solve` reads the graph as it is, so the first rule that
/// would fire here is the one that fires there.
pub(super) fn would_insert(g: &MemGraph, graph: GraphId) -> Result<bool, MemError> {
    for n in g.all_nodes_of(graph) {
        if g.node(n).removed {
            continue;
        }
        for sub in branches(g, n)? {
            let isolate = branch_isolates(g, sub);
            if !isolate.is_empty() {
                check_connected(g, isolate.iter().map(|(c, _)| *c))?;
                return Ok(true);
            }
        }
        if is_while(g, n) {
            let body = while_parts(g, n)?;
            let outputs = output_anchors(g, &body)?;
            if !outputs.is_empty() {
                check_connected(g, outputs.iter().copied())?;
                return Ok(true);
            }
            if !body.changed.is_empty() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The branches CtrlNodeConflict checks on node `n`: an If's then and else, every branch of
/// a Case, none otherwise.
fn branches(g: &MemGraph, n: NodeId) -> Result<Vec<GraphId>, MemError> {
    match g.node(n).ty.as_str() {
        "If" | "StatelessIf" => {
            let subs = &g.node(n).subgraphs;
            if subs.len() < 2 {
                return Err(MemError::at(g, n, "an If needs a then and an else branch"));
            }
            Ok(subs[..2].to_vec())
        }
        "Case" | "StatelessCase" => Ok(g.node(n).subgraphs.to_vec()),
        _ => Ok(Vec::new()),
    }
}

fn is_while(g: &MemGraph, n: NodeId) -> bool {
    matches!(g.node(n).ty.as_str(), "While" | "StatelessWhile")
}

/// The error [`insert_multi`] gives for an anchor whose input is not connected.
fn check_connected(g: &MemGraph, anchors: impl Iterator<Item = InPort>) -> Result<(), MemError> {
    for c in anchors {
        if g.src(c.node, c.index).is_none() {
            return Err(MemError::at(
                g,
                c.node,
                format!("input {} is not connected", c.index),
            ));
        }
    }
    Ok(())
}

/// GE `CheckOneSubGraphConflict` + `SolveNodesConflict` for one branch.
fn branch(
    g: &mut MemGraph,
    plan: &mut Plan,
    namer: &mut Namer,
    parent: NodeId,
    sub: GraphId,
) -> Result<(), MemError> {
    g.normalize();
    let isolate = branch_isolates(g, sub);
    if isolate.is_empty() {
        return Ok(());
    }
    let what: Vec<String> = isolate
        .iter()
        .map(|(c, why)| format!("{} {why}", anchor_text(g, Anchor::In(*c))))
        .collect();
    let reason = format!(
        "{} %{} branch @{}: {} (CtrlNodeConflict)",
        g.node(parent).ty,
        g.node(parent).name,
        g.graph(sub).name,
        what.join("; ")
    );
    let anchors: Vec<InPort> = isolate.into_iter().map(|(c, _)| c).collect();
    insert_multi(g, plan, namer, sub, &anchors, reason)
}

/// The NetOutput inputs of branch `sub` CtrlNodeConflict isolates, each with the reason.
fn branch_isolates(g: &MemGraph, sub: GraphId) -> Vec<(InPort, &'static str)> {
    let Some(no) = g.graph(sub).net_output else {
        return Vec::new();
    };
    let symbols = Symbols::build(g, sub);
    let mut from_source: HashMap<SymbolId, bool> = HashMap::new();
    let mut seen: HashSet<SymbolId> = HashSet::new();
    let mut isolate: Vec<(InPort, &'static str)> = Vec::new();
    for j in 0..g.node(no).inputs.len() as u32 {
        let c = InPort { node: no, index: j };
        let Some(s) = symbols.symbol_of_in(c) else {
            continue;
        };
        let sourced = *from_source
            .entry(s)
            .or_insert_with(|| symbol_from_source(g, &symbols, s, sub));
        if sourced {
            isolate.push((c, "comes from a Data, Const, Variable or ref-variable node"));
        } else if !seen.insert(s) {
            isolate.push((c, "shares its memory with an earlier output"));
        }
    }
    isolate
}

/// Whether a symbol of a branch holds an output GE will not let a branch return directly.
fn symbol_from_source(g: &MemGraph, symbols: &Symbols, s: SymbolId, sub: GraphId) -> bool {
    symbols.anchors(s).any(|a| {
        let Anchor::Out(p) = a else { return false };
        let node = g.node(p.node);
        let sem = node.sem;
        (sem.data_like && node.graph == sub)
            || sem.const_like
            || sem.var_like
            || node.outputs.iter().any(|o| o.ref_var_src.is_some())
    })
}

/// What CtrlNodeConflict reads of a While's body (GE `GetWhileBodyDataToNetoutputNodes`).
struct WhileParts {
    w: NodeId,
    body: GraphId,
    net_output: NodeId,
    /// Datas whose only consumer is the NetOutput at another parent index.
    changed: Vec<NodeId>,
    /// NetOutput inputs fed straight by the Data of the same parent index.
    bypass: HashSet<u32>,
}

fn while_parts(g: &MemGraph, w: NodeId) -> Result<WhileParts, MemError> {
    let Some(&body) = g.node(w).subgraphs.get(1) else {
        return Err(MemError::at(g, w, "a While needs a body subgraph"));
    };
    let Some(no) = g.graph(body).net_output else {
        return Err(MemError::at(g, w, "the While body has no NetOutput"));
    };
    let mut changed = Vec::new();
    let mut bypass = HashSet::new();
    for &d in &g.graph(body).order {
        let node = g.node(d);
        let (true, Some(pi)) = (node.sem.data_like && !node.sem.var_like, node.parent_index) else {
            continue;
        };
        let consumers = g.consumers(d, 0);
        let [c] = consumers else { continue };
        if !g.node(c.node).sem.net_output {
            continue;
        }
        let Some(oi) = g.node(c.node).inputs[c.index as usize].parent_index else {
            continue;
        };
        if pi != oi {
            changed.push(d);
        } else {
            bypass.insert(c.index);
        }
    }
    Ok(WhileParts {
        w,
        body,
        net_output: no,
        changed,
        bypass,
    })
}

/// The body outputs that get their own Identity (none when the body needs none).
fn output_anchors(g: &MemGraph, parts: &WhileParts) -> Result<Vec<InPort>, MemError> {
    let no = parts.net_output;
    if !need_output_identity(g, parts.w, parts.body, no)? {
        return Ok(Vec::new());
    }
    Ok((0..g.node(no).inputs.len() as u32)
        .filter(|j| !parts.bypass.contains(j))
        .map(|j| InPort { node: no, index: j })
        .filter(|&c| !skip_insert_in(g, c))
        .collect())
}

/// GE `SolveWhileConflict` for one While.
fn while_body(
    g: &mut MemGraph,
    plan: &mut Plan,
    namer: &mut Namer,
    w: NodeId,
) -> Result<(), MemError> {
    g.normalize();
    let parts = while_parts(g, w)?;
    let body = parts.body;
    let anchors = output_anchors(g, &parts)?;
    if !anchors.is_empty() {
        let reason = format!(
            "While %{} body @{}: its outputs get their own memory so the next iteration's \
             inputs are not overwritten (CtrlNodeConflict)",
            g.node(w).name,
            g.graph(body).name
        );
        insert_multi(g, plan, namer, body, &anchors, reason)?;
    }
    // GE InsertInputIdentity: the changed Datas' (current) consumers.
    let changed = parts.changed;
    let anchors: Vec<InPort> = changed
        .iter()
        .filter_map(|&d| g.consumers(d, 0).first().copied())
        .collect();
    if !anchors.is_empty() {
        let names: Vec<String> = changed
            .iter()
            .map(|&d| format!("%{}", g.node(d).name))
            .collect();
        let reason = format!(
            "While %{} body @{}: {} reach the body output at another index (CtrlNodeConflict)",
            g.node(w).name,
            g.graph(body).name,
            names.join(", ")
        );
        insert_multi(g, plan, namer, body, &anchors, reason)?;
    }
    Ok(())
}

/// GE `IsWhileNeedInsertIdentityAtOutput`.
fn need_output_identity(
    g: &MemGraph,
    w: NodeId,
    body: GraphId,
    no: NodeId,
) -> Result<bool, MemError> {
    if g.node(no).inputs.len() != 1 {
        return Ok(true);
    }
    let data = g
        .graph(body)
        .order
        .iter()
        .copied()
        .find(|&d| g.node(d).sem.data_like && !g.node(d).sem.var_like)
        .ok_or_else(|| MemError::at(g, w, "the While body has no Data"))?;
    if g.src(no, 0).is_none() {
        return Err(MemError::at(
            g,
            no,
            "the While body output 0 is not connected",
        ));
    }
    if g.node(data).outputs.len() != 1 {
        return Ok(true);
    }
    Ok(Symbols::build(g, body).count() == 2)
}

/// GE `SolveNodesConflict`: one Identity with one port per anchor, placed before the last
/// anchor's node; `_cannot_be_deleted`.
fn insert_multi(
    g: &mut MemGraph,
    plan: &mut Plan,
    namer: &mut Namer,
    graph: GraphId,
    anchors: &[InPort],
    reason: String,
) -> Result<(), MemError> {
    let mut links = Vec::with_capacity(anchors.len());
    for &c in anchors {
        let src = g.src(c.node, c.index).ok_or_else(|| {
            MemError::at(g, c.node, format!("input {} is not connected", c.index))
        })?;
        links.push((src, vec![c]));
    }
    let last = anchors
        .last()
        .expect("callers pass at least one anchor")
        .node;
    let name = namer.name(g, anchors[0]);
    let edit = Edit::InsertMultiIdentity {
        new: Plan::next_id(g),
        name,
        graph,
        links,
        placement: Placement::Before(last),
        cannot_be_deleted: true,
    };
    plan.push(g, edit, Rule::LayoutCtrlNode, reason)?;
    g.normalize();
    Ok(())
}
