//! Replaying a memory [`Plan`] on the IR.
//!
//! A plan is an ordered list of explicit edits (see [`crate::analysis::memory::plan`]); each
//! is replayed with the `ir` helpers through one [`Rewriter`], in order, because later steps
//! name nodes created by earlier ones (node ids are handed out in step order). The steps
//! run as rewrite patterns under MLIR's walk driver ([`super::patterns`], which keeps that
//! order); MLIR's greedy driver would reorder them. The plain loop over the steps stays
//! selectable (`GE_MLIR_REPLAY=loop`, [`ReplayDriver`]) to compare the two.
//!
//! * Insertions go through [`insert_before_input`] / [`insert_after_output`] (GE's
//!   `InsertNodeBefore` / `InsertNodeAfter`), which move control edges as GE does. The plan
//!   lists the control edges it expects to move; the replay checks that the IR moved exactly
//!   those, so the model and the IR cannot drift apart silently.
//! * Every inserted op gets `name`, `ascend.reason` (the step's reason),
//!   `ascend.inserted_by` (the pass flag) and, for SubgraphPass copies only,
//!   `_cannot_be_deleted = true` (GE marks only those; notes F.9).
//! * The While-body copy with several inputs (GE's multi-input Identity) is the generic op
//!   `ascend.op {type = "Identity"}`: the table's Identity has one input. It is placed after
//!   the last Data it reads; consumers that came earlier in the block move below it, with
//!   everything that depends on them, so SSA dominance holds.
//! * Removals follow the plan literally: relink output 0 (if the plan says so), add the
//!   plan's control edges, drop the node's remaining edges, erase.
//!
//! Not representable, hence skipped (and dropped from the model, which then matches the IR
//! again): a control edge into NetOutput, since `func.return` takes no control operands.

use super::{
    attr_batch::AttrBatch,
    model_from_ir::{IrModel, LocatedError, INSERTED_BY, REASON},
};
use crate::{
    analysis::memory::{
        model::{InPort, NodeId, OutPort, Placement},
        plan::{Edit, Plan, Step},
    },
    dialect::semantics,
    ir::{
        diagnostics::emit_remark,
        insert_after_output, insert_before_input,
        ops::{self, OpKey, Use, GENERIC_OP, GENERIC_TYPE_ATTR, NAME_ATTR},
        Rewriter,
    },
};
use melior::ir::{
    block::BlockLike, operation::OperationLike, Attribute, OperationRef, Type, Value, ValueLike,
};
use std::collections::HashSet;

/// What a replay did, for the pass statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyStats {
    /// Ops created.
    pub created: u64,
    /// Ops erased.
    pub erased: u64,
    /// Control edges the plan asked for that the IR cannot hold (into NetOutput).
    pub skipped_ctrl: u64,
}

/// Replays `plan` on the IR behind `m` (whose graph is already in the planned state) with
/// `rw`. With `remarks`, every created op is announced by a remark at its location.
pub fn apply_plan<'c, 'a>(
    m: &mut IrModel<'c, 'a>,
    plan: &Plan,
    rw: &Rewriter<'c, '_>,
    remarks: bool,
) -> Result<ApplyStats, LocatedError<'c>> {
    replay(m, plan, rw, remarks, None)
}

/// [`apply_plan`], with the attribute edits on existing nodes queued in `batch` (written at
/// its flush) instead of set one by one; structural edits are replayed at once.
pub fn apply_plan_batched<'c, 'a>(
    m: &mut IrModel<'c, 'a>,
    plan: &Plan,
    rw: &Rewriter<'c, '_>,
    remarks: bool,
    batch: &mut AttrBatch<'c>,
) -> Result<ApplyStats, LocatedError<'c>> {
    replay(m, plan, rw, remarks, Some(batch))
}

fn replay<'c, 'a>(
    m: &mut IrModel<'c, 'a>,
    plan: &Plan,
    rw: &Rewriter<'c, '_>,
    remarks: bool,
    batch: Option<&mut AttrBatch<'c>>,
) -> Result<ApplyStats, LocatedError<'c>> {
    check_first_new(m, plan)?;
    let stats = match replay_driver() {
        ReplayDriver::Patterns => super::patterns::replay_with_patterns(m, plan, remarks, batch)?,
        ReplayDriver::Loop => {
            let mut replay = Replay::new(m, *rw, plan.pass, remarks, batch);
            for step in &plan.steps {
                replay.step(step)?;
            }
            replay.stats
        }
    };
    finish(m, plan, remarks);
    Ok(stats)
}

/// How a plan is put on the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayDriver {
    /// Rewrite patterns run by MLIR's walk driver ([`super::patterns`]): the default.
    Patterns,
    /// The plain loop over the steps, kept to compare outputs and costs with the patterns:
    /// `GE_MLIR_REPLAY=loop` in the environment selects it.
    Loop,
}

/// The driver `GE_MLIR_REPLAY` selects (read once per process).
pub fn replay_driver() -> ReplayDriver {
    static DRIVER: std::sync::OnceLock<ReplayDriver> = std::sync::OnceLock::new();
    *DRIVER.get_or_init(|| match std::env::var("GE_MLIR_REPLAY").as_deref() {
        Ok("loop") => ReplayDriver::Loop,
        _ => ReplayDriver::Patterns,
    })
}

/// A plan applies to the model it was made on: its first new node is the model's next id.
pub(super) fn check_first_new<'c>(
    m: &IrModel<'c, '_>,
    plan: &Plan,
) -> Result<(), LocatedError<'c>> {
    if m.ops.len() != plan.first_new as usize {
        return Err(LocatedError::at(
            m.module,
            format!(
                "{}: internal error: the plan expects {} nodes before it, the IR has {}",
                plan.pass,
                plan.first_new,
                m.ops.len()
            ),
        ));
    }
    Ok(())
}

/// After the steps: the plan's notes as remarks, and the model made to describe the IR.
pub(super) fn finish(m: &mut IrModel, plan: &Plan, remarks: bool) {
    if !plan.steps.is_empty() {
        m.forget_streams();
    }
    if remarks {
        for note in &plan.notes {
            let location = m.location(Some(note.node));
            emit_remark(location, &format!("{}: {}", plan.pass, note.message), &[]);
        }
    }
    // The model may hold control edges into NetOutput that the IR cannot; drop them so the
    // model describes the IR exactly (GraphLint runs on it after the pipeline).
    let g = &mut m.graph;
    for gid in 0..g.graphs.len() {
        if let Some(no) = g.graphs[gid].net_output {
            for s in g.node(no).ctrl_in.clone() {
                g.remove_ctrl(s, no);
            }
        }
    }
}

/// Applies steps of one plan with one rewriter (the loop's, or a pattern callback's).
pub(super) struct Replay<'m, 'c, 'a, 'r> {
    m: &'m mut IrModel<'c, 'a>,
    rw: Rewriter<'c, 'r>,
    pass: &'static str,
    remarks: bool,
    pub(super) stats: ApplyStats,
    batch: Option<&'m mut AttrBatch<'c>>,
}

impl<'m, 'c, 'a, 'r> Replay<'m, 'c, 'a, 'r> {
    pub(super) fn new(
        m: &'m mut IrModel<'c, 'a>,
        rw: Rewriter<'c, 'r>,
        pass: &'static str,
        remarks: bool,
        batch: Option<&'m mut AttrBatch<'c>>,
    ) -> Self {
        Replay {
            m,
            rw,
            pass,
            remarks,
            stats: ApplyStats::default(),
            batch,
        }
    }
}

impl<'c, 'a> Replay<'_, 'c, 'a, '_> {
    fn error(&self, node: Option<NodeId>, message: impl Into<String>) -> LocatedError<'c> {
        LocatedError {
            location: self.m.location(node),
            message: format!("{}: {}", self.pass, message.into()),
        }
    }

    fn ir_error(&self, node: Option<NodeId>, e: crate::ir::IrError) -> LocatedError<'c> {
        self.error(node, format!("cannot apply the plan: {e}"))
    }

    fn op(&self, n: NodeId) -> Result<OperationRef<'c, 'a>, LocatedError<'c>> {
        self.m.op(n).ok_or_else(|| {
            self.error(
                None,
                format!("internal error: node {} has no op in the IR", n.0),
            )
        })
    }

    fn is_net_output(&self, n: NodeId) -> bool {
        self.m.graph.node(n).sem.net_output
    }

    fn value(&self, p: OutPort) -> Result<Value<'c, 'a>, LocatedError<'c>> {
        let op = self.op(p.node)?;
        ops::data_results(op)
            .get(p.index as usize)
            .copied()
            .ok_or_else(|| {
                self.error(
                    Some(p.node),
                    format!("internal error: no data output {}", p.index),
                )
            })
    }

    fn check_new(&self, new: NodeId) -> Result<(), LocatedError<'c>> {
        if new.0 as usize != self.m.ops.len() {
            return Err(self.error(
                None,
                format!(
                    "internal error: step creates node {} but the next id is {}",
                    new.0,
                    self.m.ops.len()
                ),
            ));
        }
        Ok(())
    }

    /// The attributes every inserted op carries.
    fn attrs(
        &self,
        name: &str,
        reason: &str,
        cannot_be_deleted: bool,
    ) -> Vec<(&'static str, Attribute<'c>)> {
        let ctx = self.rw.context();
        let mut attrs = vec![
            (NAME_ATTR, ops::string_attribute(ctx, name)),
            (REASON, ops::string_attribute(ctx, reason)),
            (INSERTED_BY, ops::string_attribute(ctx, self.pass)),
        ];
        if cannot_be_deleted {
            attrs.push((
                semantics::attr::CANNOT_BE_DELETED,
                ops::bool_attribute(ctx, true),
            ));
        }
        attrs
    }

    fn created(&mut self, new: NodeId, op: OperationRef<'c, 'a>, step: &Step) {
        debug_assert_eq!(new.0 as usize, self.m.ops.len());
        self.m.ops.push(Some(op));
        self.stats.created += 1;
        if self.remarks {
            let kind = ops::ge_type(op).unwrap_or("node");
            let name = ops::node_name(op).unwrap_or("?");
            emit_remark(
                op.location(),
                &format!(
                    "{}: inserted {kind} '{name}' ({} {:?}): {}",
                    self.pass,
                    step.rule.id(),
                    step.rule,
                    step.reason
                ),
                &[],
            );
        }
    }

    /// With `remarks`, announces a step that changed `op` without creating one.
    fn remark(&self, op: OperationRef<'c, 'a>, step: &Step) {
        if self.remarks {
            emit_remark(
                op.location(),
                &format!(
                    "{}: {} ({} {:?})",
                    self.pass,
                    step.reason,
                    step.rule.id(),
                    step.rule
                ),
                &[],
            );
        }
    }

    /// Checks that the IR moved exactly the control edges the plan expected; `actual` are
    /// the ops now joined to the new op, `expected` the model nodes.
    fn check_moved(
        &self,
        new_op: OperationRef<'c, 'a>,
        actual: Vec<OperationRef<'c, 'a>>,
        expected: &[NodeId],
        at: NodeId,
    ) -> Result<(), LocatedError<'c>> {
        let actual: HashSet<OpKey> = actual.into_iter().map(OpKey::of).collect();
        let mut wanted = HashSet::new();
        for &n in expected {
            if !self.is_net_output(n) {
                wanted.insert(OpKey::of(self.op(n)?));
            }
        }
        if actual != wanted {
            return Err(self.error(
                Some(at),
                format!(
                    "internal error: inserting '{}' moved {} control edges, the plan expected {}",
                    ops::display_name(new_op),
                    actual.len(),
                    wanted.len()
                ),
            ));
        }
        Ok(())
    }

    fn add_ctrl(&mut self, from: NodeId, to: NodeId) -> Result<(), LocatedError<'c>> {
        if self.is_net_output(to) {
            self.stats.skipped_ctrl += 1;
            return Ok(());
        }
        let (a, b) = (self.op(from)?, self.op(to)?);
        ops::add_ctrl_edge(&self.rw, a, b).map_err(|e| self.ir_error(Some(to), e))?;
        Ok(())
    }

    pub(super) fn step(&mut self, step: &Step) -> Result<(), LocatedError<'c>> {
        match &step.edit {
            Edit::SetAttr { node, attr } => {
                let op = self.op(*node)?;
                match self.batch.as_deref_mut() {
                    Some(b) => b.set(*node, attr.name(), ops::bool_attribute(b.context(), true)),
                    None => ops::set_bool_attr(&self.rw, op, attr.name(), true),
                }
            }
            Edit::SetIntAttr { node, attr, value } => {
                let op = self.op(*node)?;
                match self.batch.as_deref_mut() {
                    Some(b) => b.set_int(*node, attr.name(), *value),
                    None => ops::set_int_attr(&self.rw, op, attr.name(), *value),
                }
                self.remark(op, step);
            }
            Edit::SetStrAttr { node, attr, value } => {
                let op = self.op(*node)?;
                match self.batch.as_deref_mut() {
                    Some(b) => b.set(
                        *node,
                        attr.name(),
                        ops::string_attribute(b.context(), value),
                    ),
                    None => ops::set_str_attr(&self.rw, op, attr.name(), value),
                }
            }
            Edit::InsertCopy {
                new,
                name,
                ty,
                producer,
                consumer,
            } => {
                self.check_new(*new)?;
                let p = self.op(producer.node)?;
                let c = self.op(consumer.node)?;
                let value = self.value(*producer)?;
                let attrs = self.attrs(name, &step.reason, false);
                let built = ops::build_op(
                    p.location(),
                    ty.ge_type(),
                    &[value],
                    &[],
                    &[value.r#type()],
                    &attrs,
                )
                .map_err(|e| self.ir_error(Some(producer.node), e))?;
                let op = self.rw.insert_after(p, built);
                let out = ops::data_results(op).first().copied().ok_or_else(|| {
                    self.error(Some(producer.node), "internal error: copy has no output")
                })?;
                let operand = self.operand(c, *consumer)?;
                self.rw
                    .set_operand(c, operand, out)
                    .map_err(|e| self.ir_error(Some(consumer.node), e))?;
                self.created(*new, op, step);
            }
            Edit::InsertIdentityBefore {
                new,
                name,
                consumer,
                ctrl_moved,
                cannot_be_deleted,
            } => {
                self.check_new(*new)?;
                let c = self.op(consumer.node)?;
                let attrs = self.attrs(name, &step.reason, *cannot_be_deleted);
                let operand = self.operand(c, *consumer)?;
                let op = insert_before_input(&self.rw, c, operand, "Identity", &attrs)
                    .map_err(|e| self.ir_error(Some(consumer.node), e))?;
                let moved = ops::ctrl_predecessors(op);
                let expected: &[NodeId] = if self.is_net_output(consumer.node) {
                    &[]
                } else {
                    ctrl_moved
                };
                self.check_moved(op, moved, expected, consumer.node)?;
                self.created(*new, op, step);
            }
            Edit::InsertIdentityAfter {
                new,
                name,
                producer,
                consumers,
                ctrl_moved,
                cannot_be_deleted,
            } => {
                self.check_new(*new)?;
                let p = self.op(producer.node)?;
                let uses = self.uses(consumers)?;
                let attrs = self.attrs(name, &step.reason, *cannot_be_deleted);
                let op = insert_after_output(
                    &self.rw,
                    p,
                    producer.index as usize,
                    "Identity",
                    &attrs,
                    &uses,
                )
                .map_err(|e| self.ir_error(Some(producer.node), e))?;
                let moved = ops::ctrl_successors(op);
                self.check_moved(op, moved, ctrl_moved, producer.node)?;
                self.created(*new, op, step);
            }
            Edit::InsertMultiIdentity {
                new,
                name,
                graph,
                links,
                placement,
                cannot_be_deleted,
            } => {
                self.check_new(*new)?;
                let op = self.multi_identity(
                    name,
                    &step.reason,
                    *graph,
                    links,
                    *placement,
                    *cannot_be_deleted,
                )?;
                self.created(*new, op, step);
            }
            Edit::RemoveIdentity {
                node,
                bypass,
                new_ctrl,
            } => self.remove(*node, *bypass, new_ctrl)?,
            Edit::Rewire { consumer, to } => {
                let value = self.value(*to)?;
                let c = self.op(consumer.node)?;
                let operand = self.operand(c, *consumer)?;
                self.rw
                    .set_operand(c, operand, value)
                    .map_err(|e| self.ir_error(Some(consumer.node), e))?;
            }
            Edit::AddCtrl { from, to } => self.add_ctrl(*from, *to)?,
            Edit::InsertAtomicClean {
                new,
                name,
                graph,
                ctrl_to,
            } => {
                self.check_new(*new)?;
                let block = *self.m.blocks.get(graph.0 as usize).ok_or_else(|| {
                    self.error(None, format!("internal error: no graph {}", graph.0))
                })?;
                let location = block
                    .parent_operation()
                    .map_or(self.m.module.location(), |f| f.location());
                let attrs = self.attrs(name, &step.reason, false);
                let built = ops::build_op(location, "AtomicAddrClean", &[], &[], &[], &attrs)
                    .map_err(|e| self.ir_error(None, e))?;
                let op = self.rw.insert_at_start(block, built);
                self.created(*new, op, step);
                for &t in ctrl_to {
                    self.add_ctrl(*new, t)?;
                }
            }
            Edit::InsertAssign {
                new,
                name,
                var,
                value,
                ctrl_to,
            } => {
                self.check_new(*new)?;
                let (var_op, value_op) = (self.op(var.node)?, self.op(value.node)?);
                let (v, x) = (self.value(*var)?, self.value(*value)?);
                let attrs = self.attrs(name, &step.reason, false);
                let built = ops::build_op(
                    value_op.location(),
                    "Assign",
                    &[v, x],
                    &[],
                    &[v.r#type()],
                    &attrs,
                )
                .map_err(|e| self.ir_error(Some(value.node), e))?;
                let anchor = match ops::is_before_in_block(var_op, value_op) {
                    Some(false) => var_op,
                    _ => value_op,
                };
                let op = self.rw.insert_after(anchor, built);
                self.created(*new, op, step);
                for &t in ctrl_to {
                    self.add_ctrl(*new, t)?;
                }
            }
        }
        Ok(())
    }

    fn uses(&self, consumers: &[InPort]) -> Result<Vec<Use<'c, 'a>>, LocatedError<'c>> {
        consumers
            .iter()
            .map(|c| {
                let owner = self.op(c.node)?;
                Ok(Use {
                    owner,
                    operand: self.operand(owner, *c)?,
                })
            })
            .collect()
    }

    /// The operand of `op` behind the model's input port `p`: its input slot, which is
    /// the operand number unless the op leaves a slot unconnected.
    fn operand(&self, op: OperationRef<'c, 'a>, p: InPort) -> Result<usize, LocatedError<'c>> {
        ops::operand_of_slot(op, p.index as usize).ok_or_else(|| {
            self.error(
                Some(p.node),
                format!("internal error: input slot {} is unconnected", p.index),
            )
        })
    }

    fn multi_identity(
        &mut self,
        name: &str,
        reason: &str,
        graph: crate::analysis::memory::model::GraphId,
        links: &[(OutPort, Vec<InPort>)],
        placement: Placement,
        cannot_be_deleted: bool,
    ) -> Result<OperationRef<'c, 'a>, LocatedError<'c>> {
        let block = *self
            .m
            .blocks
            .get(graph.0 as usize)
            .ok_or_else(|| self.error(None, format!("internal error: no graph {}", graph.0)))?;
        let mut inputs = Vec::with_capacity(links.len());
        for (src, _) in links {
            inputs.push(self.value(*src)?);
        }
        let types: Vec<Type> = inputs.iter().map(|v| v.r#type()).collect();
        let mut attrs = self.attrs(name, reason, cannot_be_deleted);
        attrs.push((
            GENERIC_TYPE_ATTR,
            ops::string_attribute(self.rw.context(), "Identity"),
        ));
        let anchor_node = match placement {
            Placement::After(n) | Placement::Before(n) => Some(n),
            Placement::Head => None,
        };
        let location = self.m.location(anchor_node);
        let built = ops::build_op(location, GENERIC_OP, &inputs, &[], &types, &attrs)
            .map_err(|e| self.ir_error(anchor_node, e))?;
        // After every op it reads, and (for `Before`) right before the anchor.
        let latest = links
            .iter()
            .filter_map(|(src, _)| self.m.op(src.node))
            .reduce(|a, b| match ops::is_before_in_block(a, b) {
                Some(true) => b,
                _ => a,
            });
        let op = match (placement, latest) {
            (Placement::Before(n), _) => self.rw.insert_before(self.op(n)?, built),
            (_, Some(l)) => self.rw.insert_after(l, built),
            (_, None) => self.rw.insert_at_start(block, built),
        };
        let results = ops::data_results(op);
        for (i, (_, consumers)) in links.iter().enumerate() {
            for c in consumers {
                let owner = self.op(c.node)?;
                let operand = self.operand(owner, *c)?;
                self.rw
                    .set_operand(owner, operand, results[i])
                    .map_err(|e| self.ir_error(Some(c.node), e))?;
            }
        }
        self.sink_users_below(op);
        Ok(op)
    }

    /// Restores dominance after `op` was placed below some of its users: those users, and
    /// every op after them that depends on one of them, move right below `op` in their
    /// relative order.
    fn sink_users_below(&self, op: OperationRef<'c, 'a>) {
        let mut earliest: Option<OperationRef> = None;
        for r in op.results() {
            for (user, _) in uses_of(r.into()) {
                if ops::is_before_in_block(user, op) == Some(true)
                    && earliest.is_none_or(|e| ops::is_before_in_block(user, e) == Some(true))
                {
                    earliest = Some(user);
                }
            }
        }
        let Some(first) = earliest else { return };
        let mut cone: HashSet<OpKey> = HashSet::new();
        let mut moved = Vec::new();
        let mut cursor = Some(first);
        while let Some(cur) = cursor {
            if cur == op {
                break;
            }
            let depends = cur.operands().any(|v| match ops::producer(v).op() {
                Some(p) => p == op || cone.contains(&OpKey::of(p)),
                None => false,
            });
            if depends {
                cone.insert(OpKey::of(cur));
                moved.push(cur);
            }
            cursor = cur.next_in_block();
        }
        let mut anchor = op;
        for m in moved {
            self.rw.move_after(m, anchor);
            anchor = m;
        }
    }

    fn remove(
        &mut self,
        node: NodeId,
        bypass: bool,
        new_ctrl: &[(NodeId, NodeId)],
    ) -> Result<(), LocatedError<'c>> {
        let x = self.op(node)?;
        if bypass {
            let through = ops::data_operands(x).first().copied();
            let out = ops::data_results(x).first().copied();
            if let (Some(value), Some(out)) = (through, out) {
                for u in ops::uses(out) {
                    self.rw
                        .set_operand(u.owner, u.operand, value)
                        .map_err(|e| self.ir_error(Some(node), e))?;
                }
            }
        }
        for &(a, b) in new_ctrl {
            self.add_ctrl(a, b)?;
        }
        if let Some(token) = ops::ctrl_result(x) {
            for s in ops::ctrl_successors(x) {
                let kept: Vec<Value> = ops::ctrl_operands(s)
                    .into_iter()
                    .filter(|v| *v != token)
                    .collect();
                ops::set_operands(&self.rw, s, &ops::data_operands(s), &kept)
                    .map_err(|e| self.ir_error(Some(node), e))?;
            }
        }
        self.rw.erase(x).map_err(|e| self.ir_error(Some(node), e))?;
        self.m.ops[node.0 as usize] = None;
        self.stats.erased += 1;
        Ok(())
    }
}

/// Every use of `value` as (owner, operand number).
fn uses_of<'c, 'a>(value: Value<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, usize)> {
    ops::uses(value)
        .into_iter()
        .map(|u| (u.owner, u.operand))
        .collect()
}
