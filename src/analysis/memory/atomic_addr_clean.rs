//! AtomicAddrCleanPass (spec 3.1.5, ge-behaviour-notes B.18): `--atomic-addr-clean`.
//!
//! An atomic op accumulates into its output, so the output must be zeroed before the op runs.
//! * A loop-free graph gets one `AtomicAddrClean` at its head with a control edge to every
//!   atomic op (and, as in GE, to the ops that may start a stream: the successors of inputless
//!   Data/Variable nodes, and the producers feeding HCCL atomic ops), so the clean runs first.
//! * A graph with a `LoopCond` gets one clean per atomic op, so each iteration re-zeroes.
//! * An atomic op feeding the graph output directly gets its own clean (zero copy may move
//!   its output away from the common block).
//! * Unknown-shape graphs get none (the kernel cleans), nor do atomic ops that clean
//!   themselves: those feeding a `_no_task` op, those whose output references a variable
//!   (`ref_var_src_var_name`), all of them under `clean_separately` (GE option
//!   `ge.atomicCleanPolicy` = 1), and ops whose every output feeds an HCCL atomic op.
//!
//! Choices: "feeds the graph output" is read from the edges (GE reads the
//! `_is_connect_netoutput` attribute set by an earlier pass); an atomic op with no outputs is
//! cleaned (GE's all-outputs-feed-HCCL test is vacuously true for it). Idempotence: an atomic
//! op with a control edge from an existing clean is covered; uncovered common ops are linked
//! to the graph's existing head clean if there is one, and the stream-start links are only
//! added when the head clean is created.

use std::collections::HashSet;

use super::model::{GraphId, MemError, MemGraph, NodeId, Origin, ROOT};
use super::plan::{Edit, Plan, Rule};

/// Options of `--atomic-addr-clean`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtomicOptions {
    /// GE's `ge.atomicCleanPolicy` = 1: every atomic op cleans itself, no node is inserted.
    pub clean_separately: bool,
}

/// Plan `--atomic-addr-clean` on `g` (left in the planned state).
pub fn plan_atomic_addr_clean(g: &mut MemGraph, opts: AtomicOptions) -> Result<Plan, MemError> {
    g.normalize();
    let mut plan = Plan::new(Origin::AtomicAddrClean, g);
    let mut graphs = vec![ROOT];
    graphs.extend(g.all_subgraphs());
    for gid in graphs {
        run_graph(g, &mut plan, gid, opts)?;
    }
    g.normalize();
    Ok(plan)
}

/// GE's `CheckAtomicFromOpsKernel`: the kernel says atomic, and no input comes from a Data.
fn is_hcom_atomic(g: &MemGraph, n: NodeId) -> bool {
    let node = g.node(n);
    node.sem.kernel_atomic
        && !node
            .inputs
            .iter()
            .filter_map(|i| i.src)
            .any(|s| g.node(s.node).sem.data_like)
}

fn has_atomic_attrs(g: &MemGraph, n: NodeId) -> bool {
    g.node(n)
        .atomic
        .as_ref()
        .is_some_and(|a| a.input || !a.outputs.is_empty() || a.workspace)
}

/// GE's `IsNeedCleanNode`.
fn needs_clean(g: &MemGraph, n: NodeId, opts: AtomicOptions) -> bool {
    if !opts.clean_separately && is_hcom_atomic(g, n) {
        return true;
    }
    if !has_atomic_attrs(g, n) || opts.clean_separately {
        return false;
    }
    let node = g.node(n);
    let to_no_task = node
        .outputs
        .iter()
        .flat_map(|o| o.consumers.iter())
        .any(|c| g.node(c.node).sem.no_task);
    let ref_variable = node.outputs.iter().any(|o| o.ref_var_src.is_some());
    !(to_no_task || ref_variable)
}

/// GE's `IsAllConnectHcclNode`: every output has an HCCL atomic consumer (the HCCL op
/// cleans its inputs itself). False for an op without outputs.
fn all_outputs_feed_hccl(g: &MemGraph, n: NodeId) -> bool {
    let node = g.node(n);
    !node.outputs.is_empty()
        && node
            .outputs
            .iter()
            .all(|o| o.consumers.iter().any(|c| is_hcom_atomic(g, c.node)))
}

/// GE's `CheckSkipInsertInLoopGraph`: only atomic outputs, each feeding an HCCL atomic op.
fn skip_in_loop(g: &MemGraph, n: NodeId) -> bool {
    let Some(a) = g.node(n).atomic.as_deref() else {
        return false;
    };
    !a.input
        && !a.outputs.is_empty()
        && !a.workspace
        && a.outputs
            .iter()
            .all(|&o| g.consumers(n, o).iter().any(|c| is_hcom_atomic(g, c.node)))
}

fn covered(g: &MemGraph, n: NodeId) -> bool {
    g.node(n)
        .ctrl_in
        .iter()
        .any(|&s| g.node(s).sem.atomic_clean)
}

fn feeds_net_output(g: &MemGraph, n: NodeId) -> bool {
    g.node(n)
        .outputs
        .iter()
        .flat_map(|o| o.consumers.iter())
        .any(|c| g.node(c.node).sem.net_output)
}

fn clean_name(g: &mut MemGraph, gid: GraphId, suffix: &str) -> String {
    let prefix = if g.graph(gid).parent.is_some() {
        format!("{}_", g.graph(gid).name)
    } else {
        String::new()
    };
    g.fresh_name(&format!("{prefix}atomic_addr_clean{suffix}"))
}

fn names(g: &MemGraph, ns: &[NodeId]) -> String {
    ns.iter()
        .map(|&n| format!("%{}", g.node(n).name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn run_graph(
    g: &mut MemGraph,
    plan: &mut Plan,
    gid: GraphId,
    opts: AtomicOptions,
) -> Result<(), MemError> {
    let order = g.graph(gid).order.clone();
    plan.stats.nodes_visited += order.len() as u64;
    let atomic: Vec<NodeId> = order
        .iter()
        .copied()
        .filter(|&n| needs_clean(g, n, opts))
        .collect();
    if atomic.is_empty() || g.graph(gid).unknown_shape {
        return Ok(());
    }
    let hcom: Vec<NodeId> = atomic
        .iter()
        .copied()
        .filter(|&n| is_hcom_atomic(g, n))
        .collect();
    let is_loop = order.iter().any(|&n| g.node(n).sem.loop_cond);
    if is_loop {
        for &n in &atomic {
            if skip_in_loop(g, n) || all_outputs_feed_hccl(g, n) || covered(g, n) {
                continue;
            }
            let name = clean_name(g, gid, "");
            let reason = format!(
                "atomic %{} in a loop graph is re-zeroed every iteration",
                g.node(n).name
            );
            let edit = Edit::InsertAtomicClean {
                new: Plan::next_id(g),
                name,
                graph: gid,
                ctrl_to: vec![n],
            };
            plan.push(g, edit, Rule::AtomicLoopClean, reason)?;
        }
        return Ok(());
    }
    // Producers feeding HCCL atomic ops: every clean precedes them too (LinkToHcomPeerInNode).
    let mut hcom_peers: Vec<NodeId> = Vec::new();
    for &h in &hcom {
        for s in g.node(h).inputs.iter().filter_map(|i| i.src) {
            if !hcom_peers.contains(&s.node) {
                hcom_peers.push(s.node);
            }
        }
    }
    let mut common = Vec::new();
    let mut dispersed = Vec::new();
    for &n in &atomic {
        if all_outputs_feed_hccl(g, n) {
            continue;
        }
        if feeds_net_output(g, n) && !hcom.contains(&n) {
            dispersed.push(n);
            if covered(g, n) {
                continue;
            }
            let mut ctrl_to = vec![n];
            ctrl_to.extend(hcom_peers.iter().copied().filter(|p| *p != n));
            let name = clean_name(g, gid, "_dispersed");
            let reason = format!(
                "atomic %{} feeds the graph output; zero copy may move its output, so it gets its own clean",
                g.node(n).name
            );
            let edit = Edit::InsertAtomicClean {
                new: Plan::next_id(g),
                name,
                graph: gid,
                ctrl_to,
            };
            plan.push(g, edit, Rule::AtomicOutputClean, reason)?;
        } else {
            common.push(n);
        }
    }
    let uncovered: Vec<NodeId> = common.iter().copied().filter(|&n| !covered(g, n)).collect();
    if uncovered.is_empty() {
        return Ok(());
    }
    let common_set: HashSet<NodeId> = common.iter().copied().collect();
    let existing = order.iter().copied().find(|&c| {
        g.node(c).sem.atomic_clean && g.node(c).ctrl_out.iter().any(|t| common_set.contains(t))
    });
    if let Some(clean) = existing {
        for n in uncovered {
            let reason = format!(
                "atomic %{} joins the head clean %{}",
                g.node(n).name,
                g.node(clean).name
            );
            plan.push(
                g,
                Edit::AddCtrl { from: clean, to: n },
                Rule::AtomicCommonClean,
                reason,
            )?;
        }
        return Ok(());
    }
    let mut ctrl_to = uncovered.clone();
    let mut linked: HashSet<NodeId> = ctrl_to.iter().copied().collect();
    for p in &hcom_peers {
        if linked.insert(*p) {
            ctrl_to.push(*p);
        }
    }
    // LinkToPotentialPrecedenceNode: the successors of inputless Data/Variable may start a
    // stream; the clean must precede them. Self-cleaning atomic ops are left alone.
    let dispersed: HashSet<NodeId> = dispersed.into_iter().collect();
    for &src in &order {
        let s = g.node(src);
        let inputless = s.inputs.iter().all(|i| i.src.is_none()) && s.ctrl_in.is_empty();
        if !(s.sem.data_like || s.sem.var_like) || !inputless {
            continue;
        }
        let mut seconds: Vec<NodeId> = s
            .outputs
            .iter()
            .flat_map(|o| o.consumers.iter().map(|c| c.node))
            .collect();
        seconds.extend(s.ctrl_out.iter().copied());
        for t in seconds {
            let tn = g.node(t);
            let self_cleaning = has_atomic_attrs(g, t) && !needs_clean(g, t, opts);
            if dispersed.contains(&t) || tn.sem.net_output || self_cleaning || !linked.insert(t) {
                continue;
            }
            ctrl_to.push(t);
        }
    }
    let name = clean_name(g, gid, "");
    let reason = format!(
        "one clean at the head of loop-free graph {} zeroes {}",
        g.graph(gid).name,
        names(g, &uncovered)
    );
    let edit = Edit::InsertAtomicClean {
        new: Plan::next_id(g),
        name,
        graph: gid,
        ctrl_to,
    };
    plan.push(g, edit, Rule::AtomicCommonClean, reason)?;
    Ok(())
}
