//! `HandleMemoryRWConflict` (ge-behaviour-notes B.8-B.12): the decision engine of
//! `--mem-rw-conflict`.
//!
//! One round is GE's algorithm: mark ref relations (B.2), type the subgraph boundaries from
//! the innermost subgraph outwards (B.5, inserting an Identity where a writable output leaves
//! a branch whose parent cannot absorb the write), then walk a snapshot of all nodes:
//! SplitIdentity (B.9) and RemoveNoUseIdentity (B.10) for Identity/ReadVariableOp, and
//! InsertIdentityAsNeeded (B.11) for every node.
//!
//! Where GE's one-shot result is not a fixpoint of its own rules, we prefer the result a user
//! expects (a second run changes nothing) and document each choice:
//! * **Fixpoint.** Rounds repeat until one records no edit (at most [`MAX_ROUNDS`]). GE runs
//!   once; its SplitIdentity leaves chained copies that its own RemoveNoUseIdentity would
//!   remove on a second run. A graph that needs nothing costs one round; otherwise the last
//!   round is the proof that a rerun is empty.
//! * **Skip of the last scope-writer (B.11).** GE lets the last edge of an output keep the
//!   memory when every edge is a ScopeWriteable input of one node. We also count an edge into
//!   an Identity that only feeds that node's ScopeWriteable input (the copy GE inserted for an
//!   earlier edge) as "that node", and pick the last *direct* edge instead of the literal last
//!   edge (GE appends new edges, so its copies move behind the shared edge and a second GE run
//!   would copy it too). An edge to a `_skip_rw_conflict` node anywhere cancels the skip (GE
//!   only cancels it when that edge is last).
//! * **Dead identities first.** An Identity with no consumer is removed before the walk
//!   (RemoveNoUseIdentity removes it anyway), so no decision sees a consumer count that is
//!   about to drop.
//! * **Invalid types are errors.** GE treats WRONG_GRAPH as "do nothing" and only logs; here
//!   an edge whose output or input type is Invalid fails the pass with an error naming both
//!   nodes.
//! * RW-conflict Identities are *not* marked `_cannot_be_deleted` (GE's code; its design doc
//!   says otherwise, notes F.9).

use super::edits::{insert_identity_after, insert_identity_before};
use super::model::{InPort, MemError, MemGraph, NodeId, Origin, OutPort};
use super::plan::{BoolAttr, Edit, Plan, Rule};
use super::rw_types::{
    decide, is_ref_node, mark_subgraphs, ref_input_of_output, Conflict, InputRw, OutputRw, RwTypes,
};

/// Upper bound on fixpoint rounds; reaching it is reported as an error (a bug, not an input
/// problem, but never a panic).
pub const MAX_ROUNDS: u64 = 8;

/// Plan `--mem-rw-conflict` on `g`. `g` is left in the planned state (the plan's edits are
/// applied); on error it is in an unspecified intermediate state.
pub fn plan_rw_conflict(g: &mut MemGraph) -> Result<Plan, MemError> {
    g.normalize();
    let mut cx = Cx {
        plan: Plan::new(Origin::RwConflict, g),
        counter: 0,
    };
    cx.mark_refs(g)?;
    for round in 1..=MAX_ROUNDS {
        cx.plan.stats.rounds = round;
        let before = cx.plan.steps.len();
        cx.round(g)?;
        g.normalize();
        if cx.plan.steps.len() == before {
            return Ok(cx.plan);
        }
    }
    Err(MemError::global(format!(
        "mem-rw-conflict did not reach a fixpoint in {MAX_ROUNDS} rounds"
    )))
}

struct Cx {
    plan: Plan,
    counter: u64,
}

fn port_name(g: &MemGraph, n: NodeId, idx: u32) -> String {
    format!("%{}:{}", g.node(n).name, idx)
}

impl Cx {
    /// B.2: nodes with a ref input get `reference` = true.
    fn mark_refs(&mut self, g: &mut MemGraph) -> Result<(), MemError> {
        for n in g.all_nodes() {
            if !g.node(n).sem.reference && is_ref_node(g, n) {
                let reason = format!("%{} has an input named like an output", g.node(n).name);
                self.plan.push(
                    g,
                    Edit::SetAttr {
                        node: n,
                        attr: BoolAttr::Reference,
                    },
                    Rule::MarkRef,
                    reason,
                )?;
            }
        }
        Ok(())
    }

    fn round(&mut self, g: &mut MemGraph) -> Result<(), MemError> {
        // Dead identities go first: the subgraph marking below must not see a consumer
        // count that is about to drop.
        let snapshot = g.all_nodes();
        self.remove_dead_identities(g, &snapshot)?;
        let (rw, isolations) = mark_subgraphs(g)?;
        for iso in isolations {
            let p = iso.producer;
            let no = iso.net_output_input;
            let name = self.identity_name(g, p.node);
            let reason = format!(
                "writable output {} leaves subgraph {} as output {} of %{}, which cannot absorb the write",
                port_name(g, p.node, p.index),
                g.graph(g.node(no.node).graph).name,
                no.index,
                g.node(iso.parent).name
            );
            insert_identity_after(
                g,
                &mut self.plan,
                p,
                vec![no],
                name,
                false,
                Rule::SubgraphOutputWritable,
                reason,
            )?;
        }
        g.normalize();
        let snapshot = g.all_nodes();
        for n in snapshot {
            let node = g.node(n);
            if node.removed {
                continue;
            }
            self.plan.stats.nodes_visited += 1;
            if g.in_while_subgraph(n)
                || g.is_subgraph_data(n)
                || g.is_subgraph_net_output(n)
                || node.sem.cannot_be_deleted
            {
                continue;
            }
            if node.sem.identity_like {
                self.split_identity(g, &rw, n)?;
                if !g.node(n).removed {
                    self.remove_no_use_identity(g, Some(&rw), n)?;
                }
            }
            if !g.node(n).removed {
                self.insert_as_needed(g, &rw, n)?;
            }
        }
        Ok(())
    }

    /// GE names RW Identities `<producer>_Identity<N>` with a process-wide counter.
    fn identity_name(&mut self, g: &mut MemGraph, producer: NodeId) -> String {
        let base = format!("{}_Identity{}", g.node(producer).name, self.counter);
        self.counter += 1;
        g.fresh_name(&base)
    }

    fn add_ctrl(
        &mut self,
        g: &mut MemGraph,
        from: NodeId,
        to: NodeId,
        rule: Rule,
        reason: &str,
    ) -> Result<(), MemError> {
        if from != to && !g.has_ctrl(from, to) {
            self.plan
                .push(g, Edit::AddCtrl { from, to }, rule, reason.to_string())?;
        }
        Ok(())
    }

    /// GE `InsertNodeBefore(consumer)` of a fresh RW Identity named after `name_of` (the
    /// tensor's producer; for SplitIdentity the Identity's producer, as in GE).
    fn insert_before(
        &mut self,
        g: &mut MemGraph,
        c: InPort,
        name_of: NodeId,
        rule: Rule,
        reason: String,
    ) -> Result<NodeId, MemError> {
        let name = self.identity_name(g, name_of);
        insert_identity_before(g, &mut self.plan, c, name, false, rule, reason)
    }

    /// Control edges GE's `IsolateNode` adds when `x` disappears: every in-node (data or
    /// control) to every out-node (data or control), except pairs joined by a relinked data
    /// edge and pairs already linked.
    fn isolate_ctrl(
        g: &MemGraph,
        x: NodeId,
        relinked: &[(NodeId, NodeId)],
    ) -> Vec<(NodeId, NodeId)> {
        let node = g.node(x);
        let mut ins: Vec<NodeId> = node
            .inputs
            .iter()
            .filter_map(|i| i.src)
            .map(|s| s.node)
            .collect();
        ins.extend(node.ctrl_in.iter().copied());
        let mut outs: Vec<NodeId> = node
            .outputs
            .iter()
            .flat_map(|o| o.consumers.iter().map(|c| c.node))
            .collect();
        outs.extend(node.ctrl_out.iter().copied());
        dedup(&mut ins);
        dedup(&mut outs);
        let mut edges = Vec::new();
        for &a in &ins {
            for &b in &outs {
                if a != b
                    && a != x
                    && b != x
                    && !relinked.contains(&(a, b))
                    && !g.has_ctrl(a, b)
                    && !edges.contains(&(a, b))
                {
                    edges.push((a, b));
                }
            }
        }
        edges
    }

    /// Dead Identity/ReadVariableOp nodes (no consumer) that RemoveNoUseIdentity would remove,
    /// in reverse order so chains of them collapse.
    fn remove_dead_identities(
        &mut self,
        g: &mut MemGraph,
        snapshot: &[NodeId],
    ) -> Result<(), MemError> {
        for &n in snapshot.iter().rev() {
            let node = g.node(n);
            if node.removed
                || !node.sem.identity_like
                || node.out_data_edges() != 0
                || g.in_while_subgraph(n)
                || node.sem.cannot_be_deleted
            {
                continue;
            }
            self.remove_no_use_identity(g, None, n)?;
        }
        Ok(())
    }

    /// B.9: an Identity shared by several consumers gives no isolation between them.
    /// Writers (W/SW inputs) get a private Identity fed by the old one; readers read the
    /// Identity's producer directly and inherit its control edges.
    fn split_identity(
        &mut self,
        g: &mut MemGraph,
        rw: &RwTypes,
        x: NodeId,
    ) -> Result<(), MemError> {
        if g.node(x).consumer_count(0) <= 1 {
            return Ok(());
        }
        let Some(p) = g.src(x, 0) else {
            return Ok(());
        };
        self.plan.stats.identities_split += 1;
        let xname = g.node(x).name.clone();
        for c in g.consumers(x, 0).to_vec() {
            let t = rw.input_type(g, c.node, c.index);
            let cname = g.node(c.node).name.clone();
            if matches!(t, InputRw::Writeable | InputRw::ScopeWriteable) {
                let reason = format!(
                    "split shared %{xname}: {t} input {} gets a private copy",
                    port_name(g, c.node, c.index)
                );
                self.insert_before(g, c, p.node, Rule::SplitIdentity, reason)?;
            } else {
                let reason = format!(
                    "split shared %{xname}: {t} input %{cname}:{} reads %{} directly",
                    c.index,
                    g.node(p.node).name
                );
                self.plan.push(
                    g,
                    Edit::Rewire { consumer: c, to: p },
                    Rule::SplitIdentity,
                    reason.clone(),
                )?;
                for s in g.node(x).ctrl_in.clone() {
                    self.add_ctrl(g, s, c.node, Rule::SplitIdentity, &reason)?;
                }
                for tgt in g.node(x).ctrl_out.clone() {
                    self.add_ctrl(g, p.node, tgt, Rule::SplitIdentity, &reason)?;
                }
            }
        }
        if g.node(x).out_data_edges() == 0 {
            let new_ctrl = Self::isolate_ctrl(g, x, &[]);
            let reason = format!("split %{xname} has no consumer left");
            self.plan.push(
                g,
                Edit::RemoveIdentity {
                    node: x,
                    bypass: false,
                    new_ctrl,
                },
                Rule::SplitIdentity,
                reason,
            )?;
        }
        Ok(())
    }

    /// B.10: remove an Identity the matrix does not need, unless it is kept for a reason.
    /// Without `rw` only an Identity with no consumer can go.
    fn remove_no_use_identity(
        &mut self,
        g: &mut MemGraph,
        rw: Option<&RwTypes>,
        x: NodeId,
    ) -> Result<(), MemError> {
        let node = g.node(x);
        if node.inputs.iter().all(|i| i.src.is_none()) || node.out_data_edges() > 1 {
            return Ok(());
        }
        let first = node
            .outputs
            .iter()
            .flat_map(|o| o.consumers.iter())
            .next()
            .copied();
        if first.is_some_and(|c| g.node(c.node).sem.stream_merge) {
            return Ok(());
        }
        if near_subgraph(g, x) || useful_for_rw_control(g, x) {
            return Ok(());
        }
        let Some(p) = g.src(x, 0) else {
            return Ok(());
        };
        let first_consumer = g.consumers(x, 0).first().copied();
        let (verdict, detail) = match (first_consumer, rw) {
            (Some(_), None) => return Ok(()),
            (Some(c), Some(rw)) => {
                let out_t = rw.output_type(g, p.node, p.index);
                let in_t = rw.input_type(g, c.node, c.index);
                (
                    decide(out_t, in_t),
                    format!(
                        "{out_t} output {} -> {in_t} input {} needs no copy",
                        port_name(g, p.node, p.index),
                        port_name(g, c.node, c.index)
                    ),
                )
            }
            (None, _) => (Conflict::DoNothing, "it has no consumer".to_string()),
        };
        if verdict != Conflict::DoNothing {
            return Ok(());
        }
        let relinked: Vec<(NodeId, NodeId)> =
            g.consumers(x, 0).iter().map(|c| (p.node, c.node)).collect();
        let new_ctrl = Self::isolate_ctrl(g, x, &relinked);
        let reason = format!("remove %{}: {detail}", g.node(x).name);
        self.plan.push(
            g,
            Edit::RemoveIdentity {
                node: x,
                bypass: true,
                new_ctrl,
            },
            Rule::RemoveNoUseIdentity,
            reason,
        )?;
        Ok(())
    }

    /// B.11 for every output of `n`.
    fn insert_as_needed(
        &mut self,
        g: &mut MemGraph,
        rw: &RwTypes,
        n: NodeId,
    ) -> Result<(), MemError> {
        if g.node(n).out_data_edges() == 0 {
            return Ok(());
        }
        for o in 0..g.node(n).outputs.len() as u32 {
            let consumers = g.consumers(n, o).to_vec();
            if consumers.is_empty() {
                continue;
            }
            let t = rw.output_type(g, n, o);
            let shared = shared_edge(g, rw, n, o, t, &consumers);
            for c in consumers {
                if g.node(c.node).sem.skip_rw_conflict {
                    continue;
                }
                let it = rw.input_type(g, c.node, c.index);
                match decide(t, it) {
                    Conflict::DoNothing => {}
                    Conflict::WrongGraph => {
                        return Err(MemError::at(
                            g,
                            c.node,
                            format!(
                                "invalid RW combination on edge {} -> {}: output is {t}, input is {it}{}",
                                port_name(g, n, o),
                                port_name(g, c.node, c.index),
                                invalid_hint(g, c.node)
                            ),
                        ));
                    }
                    Conflict::InsertIdentity => {
                        if Some(c) == shared {
                            continue;
                        }
                        let reason = format!(
                            "{t} output {} -> {it} input {}",
                            port_name(g, n, o),
                            port_name(g, c.node, c.index)
                        );
                        self.insert_before(g, c, n, Rule::InsertAsNeeded, reason)?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn dedup(v: &mut Vec<NodeId>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|n| seen.insert(*n));
}

fn invalid_hint(g: &MemGraph, consumer: NodeId) -> &'static str {
    if g.node(consumer).subgraphs.is_empty() {
        ""
    } else {
        " (a subgraph input is both written and scope-written by its consumers)"
    }
}

/// GE's `CheckIdentityIsNearSubgraph`.
pub fn near_subgraph(g: &MemGraph, x: NodeId) -> bool {
    let node = g.node(x);
    let ins = node
        .inputs
        .iter()
        .filter_map(|i| i.src)
        .any(|s| g.is_subgraph_data(s.node) || !g.node(s.node).subgraphs.is_empty());
    let outs = node
        .outputs
        .iter()
        .flat_map(|o| o.consumers.iter())
        .any(|c| g.is_subgraph_net_output(c.node) || !g.node(c.node).subgraphs.is_empty());
    ins || outs
}

/// GE's `NodeUtils::IsIdentityUsefulForRWControl`: the Identity reads a variable and has a
/// control edge to an Assign-like op that also reads that variable (read first, then write).
pub fn useful_for_rw_control(g: &MemGraph, x: NodeId) -> bool {
    let node = g.node(x);
    if !node.sem.identity_like || node.ctrl_out.is_empty() || node.out_data_edges() == 0 {
        return false;
    }
    if node.inputs.iter().filter(|i| i.src.is_some()).count() != 1 {
        return false;
    }
    let Some(src) = g.src(x, 0) else {
        return false;
    };
    if !g.node(src.node).sem.var_like {
        return false;
    }
    node.ctrl_out.iter().any(|&t| {
        let tn = g.node(t);
        tn.sem.assign_like && tn.inputs.iter().any(|i| i.src == Some(src))
    })
}

/// B.11 step 1 for a Writeable output: walk back along ref outputs; the memory is private
/// when every anchor on the way has one consumer and the chain starts at a root Data or a
/// non-ref producer.
fn writable_chain_is_private(g: &MemGraph, n: NodeId, o: u32) -> bool {
    let (mut cur, mut out) = (n, o);
    for _ in 0..=g.nodes.len() {
        if g.node(cur).consumer_count(out) > 1 {
            return false;
        }
        if g.node(cur).sem.data_like {
            return g.node(cur).parent_index.is_none();
        }
        let Some(i) = ref_input_of_output(g, cur, out) else {
            return true;
        };
        let Some(OutPort { node, index }) = g.src(cur, i) else {
            return false;
        };
        cur = node;
        out = index;
    }
    false
}

/// The consumer edge of `n:o` that may keep the producer's memory (B.11 skip), if any: when
/// every edge is a ScopeWriteable input of one node X (or an Identity that only feeds X's
/// ScopeWriteable input), the last direct edge into X shares; the others are copied.
fn shared_edge(
    g: &MemGraph,
    rw: &RwTypes,
    n: NodeId,
    o: u32,
    t: OutputRw,
    consumers: &[InPort],
) -> Option<InPort> {
    let candidate = match t {
        OutputRw::ReadOnly => true,
        OutputRw::Writeable => writable_chain_is_private(g, n, o),
        _ => false,
    };
    if !candidate {
        return None;
    }
    let mut target = None;
    let mut last_direct = None;
    for &c in consumers {
        let cn = g.node(c.node);
        if cn.sem.skip_rw_conflict {
            return None;
        }
        let (x, direct) = match copy_target(g, rw, c) {
            Some(x) => (x, false),
            None if rw.input_type(g, c.node, c.index) == InputRw::ScopeWriteable => (c.node, true),
            None => return None,
        };
        if *target.get_or_insert(x) != x {
            return None;
        }
        if direct {
            last_direct = Some(c);
        }
    }
    last_direct
}

/// If `c` is input 0 of an Identity whose only consumer edge is a ScopeWriteable input of
/// node X, returns X.
fn copy_target(g: &MemGraph, rw: &RwTypes, c: InPort) -> Option<NodeId> {
    let id = g.node(c.node);
    if !id.sem.identity_like || c.index != 0 || id.inputs.len() != 1 || id.out_data_edges() != 1 {
        return None;
    }
    let next = *g.consumers(c.node, 0).first()?;
    (rw.input_type(g, next.node, next.index) == InputRw::ScopeWriteable).then_some(next.node)
}
