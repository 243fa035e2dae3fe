//! Edit plans: what a memory pass decided, in the order it decided it.
//!
//! A planner mutates the [`MemGraph`] as it goes (later decisions depend on earlier edits,
//! exactly as in GE, which edits its graph in place) and records every edit as a [`Step`].
//! The IR layer replays the steps with rewrite patterns. Each step is explicit: it lists the
//! control edges to move or add, so the IR side needs no knowledge of GE's rules.
//!
//! New nodes: the k-th node-creating step of a plan creates `NodeId(plan.first_new + k)`; the
//! IR applier keeps a table from `NodeId` to operation and appends to it in step order.

use super::model::{GraphId, InPort, MemError, MemGraph, NodeId, Origin, OutPort, Placement};

/// A boolean GE attribute a pass sets on an existing node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BoolAttr {
    /// `reference` (MarkRefRelations, B.2).
    Reference,
    /// `_skip_rw_conflict` (HcclMemcpyPass, B.15).
    SkipRwConflict,
}

impl BoolAttr {
    /// The attribute name in the IR.
    pub fn name(self) -> &'static str {
        match self {
            BoolAttr::Reference => "reference",
            BoolAttr::SkipRwConflict => "_skip_rw_conflict",
        }
    }
}

/// An integer GE attribute a pass sets on an existing node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntAttr {
    /// `_inplace_support_input_index` on output 0 (InplaceSupportCheckPass, B.17).
    InplaceSupportInputIndex,
    /// `_alloc_fixed_addr_index` (MarkSameAddrPass, 3.1.7).
    FixedAddrIndex,
}

impl IntAttr {
    /// The attribute name in the IR.
    pub fn name(self) -> &'static str {
        match self {
            IntAttr::InplaceSupportInputIndex => "_inplace_support_input_index",
            IntAttr::FixedAddrIndex => "_alloc_fixed_addr_index",
        }
    }
}

/// A string GE attribute a pass sets on an existing node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StrAttr {
    /// `_alloc_fixed_addr` (GE `ATTR_DYNAMIC_SHAPE_FIXED_ADDR`, MarkSameAddrPass): the name
    /// of the output that must keep a fixed address.
    FixedAddr,
}

impl StrAttr {
    /// The attribute name in the IR.
    pub fn name(self) -> &'static str {
        match self {
            StrAttr::FixedAddr => "_alloc_fixed_addr",
        }
    }
}

/// The type of a copy node [`Edit::InsertCopy`] creates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CopyType {
    /// `MemcpyAddrAsync`: passes an address on (zero copy), B.18.
    MemcpyAddrAsync,
}

impl CopyType {
    /// The GE type.
    pub fn ge_type(self) -> &'static str {
        match self {
            CopyType::MemcpyAddrAsync => "MemcpyAddrAsync",
        }
    }
}

/// One graph edit. Inserted nodes are `Identity` unless stated otherwise; their input is
/// named `x`, their output `y`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Set a boolean attribute to true.
    SetAttr { node: NodeId, attr: BoolAttr },
    /// Set an integer attribute.
    SetIntAttr {
        node: NodeId,
        attr: IntAttr,
        value: i64,
    },
    /// Set a string attribute.
    SetStrAttr {
        node: NodeId,
        attr: StrAttr,
        value: String,
    },
    /// GE `RemoveEdge` + `AddEdge` around a new single-input copy of type `ty` (input `x`,
    /// output `y`): `consumer` reads the copy of `producer`. No control edge moves. Placed
    /// right after the producer.
    InsertCopy {
        new: NodeId,
        name: String,
        ty: CopyType,
        producer: OutPort,
        consumer: InPort,
    },
    /// GE `InsertNodeBefore(consumer)`: a new Identity `new` takes over `consumer`'s input
    /// edge (fed by the consumer's current producer). The control edges from `ctrl_moved`
    /// into the consumer move onto the Identity. Placed right before the consumer.
    InsertIdentityBefore {
        new: NodeId,
        name: String,
        consumer: InPort,
        ctrl_moved: Vec<NodeId>,
        cannot_be_deleted: bool,
    },
    /// GE `InsertNodeAfter(producer, consumers)`: a new Identity fed by `producer` takes
    /// over the listed consumer edges of that output. The control edges from the producer
    /// to `ctrl_moved` move onto the Identity. Placed right after the producer.
    InsertIdentityAfter {
        new: NodeId,
        name: String,
        producer: OutPort,
        consumers: Vec<InPort>,
        ctrl_moved: Vec<NodeId>,
        cannot_be_deleted: bool,
    },
    /// One Identity with k inputs/outputs (`x<i>`/`y<i>`): input i is fed by `links[i].0`
    /// and output i takes over the consumer edges `links[i].1` (SubgraphPass's While body
    /// memcpy). Placed at `placement`.
    InsertMultiIdentity {
        new: NodeId,
        name: String,
        graph: GraphId,
        links: Vec<(OutPort, Vec<InPort>)>,
        placement: Placement,
        cannot_be_deleted: bool,
    },
    /// Erase an Identity. If `bypass`, its output-0 consumers are first rewired to the
    /// producer of its input 0 (GE `IsolateNode(node, {0})`). Then the `new_ctrl` control
    /// edges are added and the node is erased together with its remaining edges.
    RemoveIdentity {
        node: NodeId,
        bypass: bool,
        new_ctrl: Vec<(NodeId, NodeId)>,
    },
    /// Point `consumer` at `to` instead of its current producer (appended to `to`'s list).
    Rewire { consumer: InPort, to: OutPort },
    /// Add the control edge `from -> to`.
    AddCtrl { from: NodeId, to: NodeId },
    /// A new `AtomicAddrClean` node (no data edges) at the head of `graph`, with control
    /// edges to `ctrl_to`.
    InsertAtomicClean {
        new: NodeId,
        name: String,
        graph: GraphId,
        ctrl_to: Vec<NodeId>,
    },
    /// A new `Assign` (inputs `ref`, `value`; output `ref`) fed by `var` and `value`, with
    /// control edges to `ctrl_to`. Placed right after the producer of `value`.
    InsertAssign {
        new: NodeId,
        name: String,
        var: OutPort,
        value: OutPort,
        ctrl_to: Vec<NodeId>,
    },
}

/// Spec rule a step implements (section ids of `ge-behaviour-notes.md`, 3.1.x of the spec).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rule {
    /// B.2 MarkRefRelations.
    MarkRef,
    /// B.5 subgraph NetOutput fed by a writable output that the parent cannot absorb.
    SubgraphOutputWritable,
    /// B.9 SplitIdentity.
    SplitIdentity,
    /// B.10 RemoveNoUseIdentity.
    RemoveNoUseIdentity,
    /// B.11 InsertIdentityAsNeeded.
    InsertAsNeeded,
    /// B.15 HcclMemcpyPass, Const/Variable input.
    HcclConstVar,
    /// B.15 HcclMemcpyPass, a sibling runs after the HCCL op.
    HcclSiblingLater,
    /// B.15 HcclMemcpyPass, no sibling after: mark `_skip_rw_conflict`.
    HcclSkipMark,
    /// B.15 HcomBroadcast write-back Assign.
    HcclBroadcastAssign,
    /// 3.1.2 continuous input fed by Data/Const/Variable or shared by continuous consumers.
    HcclContinuousInput,
    /// 3.1.2 P2P input fed by Data/Const/Variable.
    HcclP2pInput,
    /// B.16 subgraph Data feeding a continuous-input op.
    SubgraphDataContinuous,
    /// B.16 Const feeding a While input.
    SubgraphWhileConstInput,
    /// B.16 subgraph NetOutput input isolation (const / atomic / continuous / Data / While).
    SubgraphNetOutputInput,
    /// B.16 While input shared with other consumers.
    SubgraphWhileSharedInput,
    /// B.16 While body input/output memcpy (and dynamic While cond inputs).
    SubgraphWhileBody,
    /// B.16 If/Case branch output fed by a producer already feeding another output.
    SubgraphCondOutputShared,
    /// B.18 one clean at the head of a loop-free graph.
    AtomicCommonClean,
    /// B.18 one clean per atomic op in a loop graph.
    AtomicLoopClean,
    /// B.18 a separate clean for an atomic op feeding the graph output.
    AtomicOutputClean,
    /// B.17 InplaceSupportCheckPass: output 0 may reuse an input.
    InplaceSupport,
    /// B.19 a symbol-level layout conflict (a table pair and its checker).
    LayoutConflict,
    /// B.19 CtrlNodeConflict: If/Case branch outputs, While body outputs/inputs.
    LayoutCtrlNode,
    /// B.18 MemcpyAddrAsync: a user Data feeding a StreamMerge.
    MemcpyAddrStreamMerge,
    /// B.18 MemcpyAddrAsync: a Const (or, offline, a Data) feeding the root NetOutput.
    MemcpyAddrNetOutput,
    /// B.18 MemcpyAddrAsync: a RefData read by an HCCL op whose feature map is fixed.
    MemcpyAddrHcclRefData,
    /// 3.1.7 MarkSameAddrPass: the output read by a StreamSwitch / LabelSwitchByIndex.
    MarkSameAddr,
}

impl Rule {
    /// Spec section id.
    pub fn id(self) -> &'static str {
        use Rule::*;
        match self {
            MarkRef => "B.2",
            SubgraphOutputWritable => "B.5",
            SplitIdentity => "B.9",
            RemoveNoUseIdentity => "B.10",
            InsertAsNeeded => "B.11",
            HcclConstVar | HcclSiblingLater | HcclSkipMark | HcclBroadcastAssign => "B.15",
            HcclContinuousInput | HcclP2pInput => "3.1.2",
            SubgraphDataContinuous
            | SubgraphWhileConstInput
            | SubgraphNetOutputInput
            | SubgraphWhileSharedInput
            | SubgraphWhileBody
            | SubgraphCondOutputShared => "B.16",
            AtomicCommonClean | AtomicLoopClean | AtomicOutputClean => "B.18",
            InplaceSupport => "B.17",
            LayoutConflict | LayoutCtrlNode => "B.19",
            MemcpyAddrStreamMerge | MemcpyAddrNetOutput | MemcpyAddrHcclRefData => "B.18",
            MarkSameAddr => "3.1.7",
        }
    }
}

/// One recorded edit with its justification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub edit: Edit,
    pub rule: Rule,
    /// Human-readable cause, e.g. `const-output -> scope-writable input of %allreduce`.
    pub reason: String,
}

/// Counters for `--mlir-pass-statistics`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub nodes_visited: u64,
    pub identities_inserted: u64,
    pub identities_split: u64,
    pub identities_removed: u64,
    pub other_nodes_inserted: u64,
    pub attrs_set: u64,
    /// Rounds of the fixpoint loop (mem-rw-conflict only).
    pub rounds: u64,
}

/// A decision about a node that edits nothing (a rejected candidate, say), reported as a
/// remark with `remarks=true`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub node: NodeId,
    pub message: String,
}

/// The ordered edits of one pass run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The pass flag (`mem-rw-conflict`, ...).
    pub pass: &'static str,
    /// Node id of the first node this plan creates.
    pub first_new: u32,
    pub steps: Vec<Step>,
    pub stats: Stats,
    /// Decisions that edit nothing, for remarks.
    pub notes: Vec<Note>,
    origin: Origin,
}

impl Plan {
    /// An empty plan for `origin`'s pass over `g`.
    pub fn new(origin: Origin, g: &MemGraph) -> Plan {
        Plan {
            pass: origin.pass_name(),
            first_new: g.nodes.len() as u32,
            steps: Vec::new(),
            stats: Stats::default(),
            notes: Vec::new(),
            origin,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The next node id a creating edit must use.
    pub fn next_id(g: &MemGraph) -> NodeId {
        NodeId(g.nodes.len() as u32)
    }

    /// Apply `edit` to `g` and record it. Returns the node the edit created, if any.
    pub fn push(
        &mut self,
        g: &mut MemGraph,
        edit: Edit,
        rule: Rule,
        reason: String,
    ) -> Result<Option<NodeId>, MemError> {
        match &edit {
            Edit::InsertIdentityBefore { .. }
            | Edit::InsertIdentityAfter { .. }
            | Edit::InsertMultiIdentity { .. } => self.stats.identities_inserted += 1,
            Edit::InsertAtomicClean { .. }
            | Edit::InsertAssign { .. }
            | Edit::InsertCopy { .. } => self.stats.other_nodes_inserted += 1,
            Edit::RemoveIdentity { .. } => self.stats.identities_removed += 1,
            Edit::SetAttr { .. } | Edit::SetIntAttr { .. } | Edit::SetStrAttr { .. } => {
                self.stats.attrs_set += 1
            }
            Edit::Rewire { .. } | Edit::AddCtrl { .. } => {}
        }
        let step = Step { edit, rule, reason };
        let created = apply_step(g, &step, self.origin)?;
        self.steps.push(step);
        Ok(created)
    }
}

/// Replay `plan` on `g` (which must be in the state the plan was computed from).
pub fn apply(g: &mut MemGraph, plan: &Plan) -> Result<(), MemError> {
    if g.nodes.len() as u32 != plan.first_new {
        return Err(MemError::global(format!(
            "plan of {} expects {} nodes, model has {}",
            plan.pass,
            plan.first_new,
            g.nodes.len()
        )));
    }
    for step in &plan.steps {
        apply_step(g, step, plan.origin)?;
    }
    g.normalize();
    Ok(())
}

fn check_new(g: &MemGraph, new: NodeId) -> Result<(), MemError> {
    if new != Plan::next_id(g) {
        return Err(MemError::global(format!(
            "edit creates node {} but the next id is {}",
            new.0,
            g.nodes.len()
        )));
    }
    Ok(())
}

fn check_port(g: &MemGraph, p: OutPort) -> Result<(), MemError> {
    let live = (p.node.0 as usize) < g.nodes.len() && !g.node(p.node).removed;
    if !live || p.index as usize >= g.node(p.node).outputs.len() {
        return Err(MemError::global(format!(
            "edit names a missing output {p:?}"
        )));
    }
    Ok(())
}

fn check_in(g: &MemGraph, p: InPort) -> Result<(), MemError> {
    let live = (p.node.0 as usize) < g.nodes.len() && !g.node(p.node).removed;
    if !live || p.index as usize >= g.node(p.node).inputs.len() {
        return Err(MemError::global(format!(
            "edit names a missing input {p:?}"
        )));
    }
    Ok(())
}

fn mark_new(g: &mut MemGraph, n: NodeId, origin: Origin, reason: &str, cannot_be_deleted: bool) {
    let node = g.node_mut(n);
    node.origin = Some(origin);
    node.reason = Some(reason.into());
    node.sem.cannot_be_deleted = cannot_be_deleted;
}

/// A copy's port `k` (input and output) takes the tensor desc of the output it copies (GE
/// builds the Identity's descs from the producer's output desc; the memory type list and
/// `ref_var_src_var_name` are not copied).
fn copy_tensor(g: &mut MemGraph, src: OutPort, copy: NodeId, k: u32) {
    let t = g.node(src.node).outputs[src.index as usize].tensor;
    let node = g.node_mut(copy);
    node.inputs[k as usize].tensor = t;
    node.outputs[k as usize].tensor = t;
}

/// Apply one step; the single place that defines what each edit means.
fn apply_step(g: &mut MemGraph, step: &Step, origin: Origin) -> Result<Option<NodeId>, MemError> {
    match &step.edit {
        Edit::SetAttr { node, attr } => {
            let s = &mut g.node_mut(*node).sem;
            match attr {
                BoolAttr::Reference => s.reference = true,
                BoolAttr::SkipRwConflict => s.skip_rw_conflict = true,
            }
            Ok(None)
        }
        Edit::SetIntAttr { node, attr, value } => {
            match attr {
                IntAttr::InplaceSupportInputIndex => {
                    let out = g.node_mut(*node).outputs.get_mut(0).ok_or_else(|| {
                        MemError::global("_inplace_support_input_index on a node without outputs")
                    })?;
                    out.inplace_input = u32::try_from(*value).ok();
                }
                IntAttr::FixedAddrIndex => {
                    g.node_mut(*node).fixed_addr_output = u32::try_from(*value).ok();
                }
            }
            Ok(None)
        }
        // The name is derived from the index, which the model keeps.
        Edit::SetStrAttr { .. } => Ok(None),
        Edit::InsertCopy {
            new,
            name,
            ty,
            producer,
            consumer,
        } => {
            check_new(g, *new)?;
            check_port(g, *producer)?;
            check_in(g, *consumer)?;
            if g.src(consumer.node, consumer.index) != Some(*producer) {
                return Err(MemError::at(
                    g,
                    consumer.node,
                    "InsertCopy: the consumer is not fed by the producer",
                ));
            }
            let graph = g.node(producer.node).graph;
            let id = g.insert_node(
                graph,
                name,
                ty.ge_type(),
                &["x"],
                &["y"],
                Placement::After(producer.node),
            );
            mark_new(g, id, origin, &step.reason, false);
            copy_tensor(g, *producer, id, 0);
            g.set_src(InPort { node: id, index: 0 }, Some(*producer));
            g.set_src(*consumer, Some(OutPort { node: id, index: 0 }));
            Ok(Some(id))
        }
        Edit::InsertIdentityBefore {
            new,
            name,
            consumer,
            ctrl_moved,
            cannot_be_deleted,
        } => {
            check_new(g, *new)?;
            check_in(g, *consumer)?;
            let src = g.src(consumer.node, consumer.index).ok_or_else(|| {
                MemError::at(
                    g,
                    consumer.node,
                    format!("input {} is not connected", consumer.index),
                )
            })?;
            let graph = g.node(consumer.node).graph;
            let id = g.insert_node(
                graph,
                name,
                "Identity",
                &["x"],
                &["y"],
                Placement::Before(consumer.node),
            );
            mark_new(g, id, origin, &step.reason, *cannot_be_deleted);
            copy_tensor(g, src, id, 0);
            g.set_src(InPort { node: id, index: 0 }, Some(src));
            g.set_src(*consumer, Some(OutPort { node: id, index: 0 }));
            for &s in ctrl_moved {
                g.remove_ctrl(s, consumer.node);
                g.add_ctrl(s, id);
            }
            Ok(Some(id))
        }
        Edit::InsertIdentityAfter {
            new,
            name,
            producer,
            consumers,
            ctrl_moved,
            cannot_be_deleted,
        } => {
            check_new(g, *new)?;
            check_port(g, *producer)?;
            let graph = g.node(producer.node).graph;
            let id = g.insert_node(
                graph,
                name,
                "Identity",
                &["x"],
                &["y"],
                Placement::After(producer.node),
            );
            mark_new(g, id, origin, &step.reason, *cannot_be_deleted);
            copy_tensor(g, *producer, id, 0);
            g.set_src(InPort { node: id, index: 0 }, Some(*producer));
            for &c in consumers {
                check_in(g, c)?;
                if g.src(c.node, c.index) != Some(*producer) {
                    return Err(MemError::at(
                        g,
                        c.node,
                        "InsertIdentityAfter: consumer is not fed by the producer",
                    ));
                }
                g.set_src(c, Some(OutPort { node: id, index: 0 }));
            }
            for &t in ctrl_moved {
                g.remove_ctrl(producer.node, t);
                g.add_ctrl(id, t);
            }
            Ok(Some(id))
        }
        Edit::InsertMultiIdentity {
            new,
            name,
            graph,
            links,
            placement,
            cannot_be_deleted,
        } => {
            check_new(g, *new)?;
            let ins: Vec<String> = (0..links.len()).map(|i| format!("x{i}")).collect();
            let outs: Vec<String> = (0..links.len()).map(|i| format!("y{i}")).collect();
            let ins: Vec<&str> = ins.iter().map(String::as_str).collect();
            let outs: Vec<&str> = outs.iter().map(String::as_str).collect();
            let id = g.insert_node(*graph, name, "Identity", &ins, &outs, *placement);
            mark_new(g, id, origin, &step.reason, *cannot_be_deleted);
            for (i, (src, cons)) in links.iter().enumerate() {
                check_port(g, *src)?;
                copy_tensor(g, *src, id, i as u32);
                g.set_src(
                    InPort {
                        node: id,
                        index: i as u32,
                    },
                    Some(*src),
                );
                for &c in cons {
                    check_in(g, c)?;
                    g.set_src(
                        c,
                        Some(OutPort {
                            node: id,
                            index: i as u32,
                        }),
                    );
                }
            }
            Ok(Some(id))
        }
        Edit::RemoveIdentity {
            node,
            bypass,
            new_ctrl,
        } => {
            if *bypass {
                let src = g.src(*node, 0);
                for c in g.consumers(*node, 0).to_vec() {
                    g.set_src(c, src);
                }
            }
            for &(a, b) in new_ctrl {
                g.add_ctrl(a, b);
            }
            g.remove_node(*node)?;
            Ok(None)
        }
        Edit::Rewire { consumer, to } => {
            check_in(g, *consumer)?;
            check_port(g, *to)?;
            g.set_src(*consumer, Some(*to));
            Ok(None)
        }
        Edit::AddCtrl { from, to } => {
            g.add_ctrl(*from, *to);
            Ok(None)
        }
        Edit::InsertAtomicClean {
            new,
            name,
            graph,
            ctrl_to,
        } => {
            check_new(g, *new)?;
            let id = g.insert_node(*graph, name, "AtomicAddrClean", &[], &[], Placement::Head);
            mark_new(g, id, origin, &step.reason, false);
            g.add_ctrl_from_new(id, ctrl_to);
            Ok(Some(id))
        }
        Edit::InsertAssign {
            new,
            name,
            var,
            value,
            ctrl_to,
        } => {
            check_new(g, *new)?;
            check_port(g, *var)?;
            check_port(g, *value)?;
            let graph = g.node(value.node).graph;
            let id = g.insert_node(
                graph,
                name,
                "Assign",
                &["ref", "value"],
                &["ref"],
                Placement::After(value.node),
            );
            mark_new(g, id, origin, &step.reason, false);
            copy_tensor(g, *var, id, 0);
            let value_tensor = g.node(value.node).outputs[value.index as usize].tensor;
            g.node_mut(id).inputs[1].tensor = value_tensor;
            g.set_src(InPort { node: id, index: 0 }, Some(*var));
            g.set_src(InPort { node: id, index: 1 }, Some(*value));
            g.add_ctrl_from_new(id, ctrl_to);
            Ok(Some(id))
        }
    }
}
