//! The memory passes' plans applied as rewrite patterns under MLIR's walk driver.
//!
//! A memory pass decides on a frozen model (GE's graph-stability rule) and gets an ordered
//! [`Plan`]. Here the plan becomes a decisions table keyed by op ([`PlanDecisions`]): each
//! step is rooted at an op it changes, and the patterns of [`populate_plan_patterns`] —
//! one per op name among the roots, all sharing the table — replay the steps rooted at the
//! op the walk driver hands them ([`FrozenPatternSet::walk_and_apply`](crate::ir::pattern::FrozenPatternSet::walk_and_apply), post-order, each
//! block first to last: program order, nothing reordered).
//!
//! Which op roots a step: of the existing ops the step names (the node it marks, the
//! consumer whose input gets a copy, the producer whose output does, the Identity it
//! removes, the ends of a control edge), the one the walk reaches last; and never an op
//! before the root of the step before it. So
//! * the steps run in the plan's order (later steps name nodes earlier ones created, and
//!   two inserts at one point come out in plan order): the IR is the one the plain loop
//!   over the steps makes, byte for byte (`tests/replay_drivers.rs`);
//! * a step erases or moves only ops the walk has passed or stands on, which is what the
//!   walk driver allows (it keeps its place by the next op).
//!
//! A step that fails stops the replay; the error comes back to the pass after the walk.
//! Every step must have run when the walk ends (a root the walk did not reach is an
//! internal error, not a silent skip).
//!
//! The passes' `populate_<pass>_patterns` functions and the C API's
//! `geMlirPopulate<Pass>Patterns` hand the same patterns to another toolchain's pattern
//! set after running the analysis ([`MemoryDecisions`]).

use super::{
    apply_plan::{check_first_new, ApplyStats, Replay},
    attr_batch::AttrBatch,
    model_from_ir::{IrModel, LocatedError},
    plan_stage, Stage,
};
use crate::{
    analysis::memory::{
        atomic_addr_clean::AtomicOptions,
        layout::LayoutOptions,
        model::{MemError, MemGraph, NodeId, Placement},
        plan::{Edit, Plan},
    },
    ir::{
        ops::{self, OpKey, OpKeyMap},
        OpPattern, PatternSet, Rewriter,
    },
};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike};
use std::{
    borrow::{Borrow, BorrowMut},
    cell::RefCell,
    ops::Range,
    rc::Rc,
};

/// The steps of one plan keyed by the op that roots them.
pub struct PlanDecisions {
    /// Root op -> its steps (a range: roots never go back, so each root's steps are
    /// consecutive).
    roots: OpKeyMap<(u32, u32)>,
    /// The op names of the roots: one pattern each.
    root_names: Vec<String>,
}

impl PlanDecisions {
    /// Roots every step of `plan` (made on `m`, whose IR has not been changed since).
    pub fn new(m: &IrModel, plan: &Plan) -> Self {
        // The existing ops each step names.
        let named: Vec<Vec<OperationRef>> = plan
            .steps
            .iter()
            .map(|step| {
                step_nodes(&step.edit)
                    .into_iter()
                    .filter_map(|n| m.op(n))
                    .collect()
            })
            .collect();
        // Their places in the walk driver's order.
        let mut position: OpKeyMap<u32> = OpKeyMap::default();
        for op in named.iter().flatten() {
            position.insert(OpKey::of(*op), u32::MAX);
        }
        let mut next = 0u32;
        ops::walk_nested_post_order(m.module, &mut |op| {
            if let Some(p) = position.get_mut(&OpKey::of(op)) {
                *p = next;
            }
            next += 1;
        });
        let mut roots: OpKeyMap<(u32, u32)> = OpKeyMap::default();
        let mut root_names: Vec<String> = Vec::new();
        // (position, op) of the current root.
        let mut current: Option<(u32, OperationRef)> = None;
        for (i, ops) in named.iter().enumerate() {
            let own = ops
                .iter()
                .map(|op| (position[&OpKey::of(*op)], *op))
                .filter(|(p, _)| *p != u32::MAX)
                .max_by_key(|(p, _)| *p);
            let root = match (current, own) {
                (Some(c), Some(o)) if o.0 > c.0 => o,
                (Some(c), _) => c,
                (None, Some(o)) => o,
                // No existing op named yet and no root before: the first op of the walk.
                (None, None) => match first_nested(m.module) {
                    Some(op) => (0, op),
                    None => continue,
                },
            };
            current = Some(root);
            let i = i as u32;
            roots
                .entry(OpKey::of(root.1))
                .and_modify(|r| r.1 = i + 1)
                .or_insert((i, i + 1));
            let name = root.1.name();
            let name = name.as_string_ref().as_str().unwrap_or_default();
            if !root_names.iter().any(|n| n == name) {
                root_names.push(name.to_string());
            }
        }
        PlanDecisions { roots, root_names }
    }

    /// The steps rooted at `op` (empty when none are).
    pub fn steps_of(&self, op: OperationRef) -> Range<usize> {
        match self.roots.get(&OpKey::of(op)) {
            Some(&(start, end)) => start as usize..end as usize,
            None => 0..0,
        }
    }
}

/// The first op the walk driver visits under `module`.
fn first_nested<'c, 'a>(module: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut op = module.region(0).ok()?.first_block()?.first_operation()?;
    while let Some(inner) = op
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .and_then(|b| b.first_operation())
    {
        op = inner;
    }
    Some(op)
}

/// The nodes a step names (existing or created by an earlier step).
fn step_nodes(edit: &Edit) -> Vec<NodeId> {
    match edit {
        Edit::SetAttr { node, .. }
        | Edit::SetIntAttr { node, .. }
        | Edit::SetStrAttr { node, .. } => {
            vec![*node]
        }
        Edit::InsertCopy {
            producer, consumer, ..
        } => vec![producer.node, consumer.node],
        Edit::InsertIdentityBefore {
            consumer,
            ctrl_moved,
            ..
        } => std::iter::once(consumer.node)
            .chain(ctrl_moved.iter().copied())
            .collect(),
        Edit::InsertIdentityAfter {
            producer,
            consumers,
            ctrl_moved,
            ..
        } => std::iter::once(producer.node)
            .chain(consumers.iter().map(|c| c.node))
            .chain(ctrl_moved.iter().copied())
            .collect(),
        Edit::InsertMultiIdentity {
            links, placement, ..
        } => {
            let mut nodes: Vec<NodeId> = links
                .iter()
                .flat_map(|(src, consumers)| {
                    std::iter::once(src.node).chain(consumers.iter().map(|c| c.node))
                })
                .collect();
            if let Placement::After(n) | Placement::Before(n) = placement {
                nodes.push(*n);
            }
            nodes
        }
        Edit::RemoveIdentity { node, new_ctrl, .. } => std::iter::once(*node)
            .chain(new_ctrl.iter().flat_map(|&(a, b)| [a, b]))
            .collect(),
        Edit::Rewire { consumer, to } => vec![consumer.node, to.node],
        Edit::AddCtrl { from, to } => vec![*from, *to],
        Edit::InsertAtomicClean { ctrl_to, .. } => ctrl_to.clone(),
        Edit::InsertAssign {
            var,
            value,
            ctrl_to,
            ..
        } => [var.node, value.node]
            .into_iter()
            .chain(ctrl_to.iter().copied())
            .collect(),
    }
}

/// What the patterns of one plan share: the model (owned, or borrowed from a pass), the
/// plan, where attribute edits go, and the outcome so far.
pub struct PlanReplay<'b, 'c, M, P> {
    model: M,
    plan: P,
    remarks: bool,
    batch: Option<&'b mut AttrBatch<'c>>,
    stats: ApplyStats,
    /// Steps run so far.
    applied: usize,
    error: Option<LocatedError<'c>>,
}

impl<'b, 'c, M, P: Borrow<Plan>> PlanReplay<'b, 'c, M, P> {
    pub fn new(model: M, plan: P, remarks: bool, batch: Option<&'b mut AttrBatch<'c>>) -> Self {
        PlanReplay {
            model,
            plan,
            remarks,
            batch,
            stats: ApplyStats::default(),
            applied: 0,
            error: None,
        }
    }

    /// The outcome once the walk is over: the statistics, or the first error (also when a
    /// step never ran).
    pub fn outcome(&self, at: OperationRef<'c, '_>) -> Result<ApplyStats, LocatedError<'c>> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let plan = self.plan.borrow();
        if self.applied != plan.steps.len() {
            return Err(LocatedError::at(
                at,
                format!(
                    "{}: internal error: the walk applied {} of the plan's {} steps",
                    plan.pass,
                    self.applied,
                    plan.steps.len()
                ),
            ));
        }
        Ok(self.stats)
    }
}

/// The steps a pattern callback runs, whatever owns the model.
pub trait ApplySteps<'c> {
    /// Runs `steps` with the callback's rewriter; `false` when nothing ran (an earlier
    /// error stops the replay).
    fn apply_steps(&mut self, steps: Range<usize>, rw: &Rewriter<'c, '_>) -> bool;
}

impl<'b, 'c, 'a, M, P> ApplySteps<'c> for PlanReplay<'b, 'c, M, P>
where
    'c: 'a,
    M: BorrowMut<IrModel<'c, 'a>>,
    P: Borrow<Plan>,
{
    fn apply_steps(&mut self, steps: Range<usize>, rw: &Rewriter<'c, '_>) -> bool {
        if self.error.is_some() || steps.is_empty() {
            return false;
        }
        let plan = self.plan.borrow();
        let mut replay = Replay::new(
            self.model.borrow_mut(),
            *rw,
            plan.pass,
            self.remarks,
            self.batch.as_deref_mut(),
        );
        replay.stats = self.stats;
        let count = steps.len();
        let result = plan.steps[steps]
            .iter()
            .try_for_each(|step| replay.step(step));
        self.stats = replay.stats;
        match result {
            Ok(()) => {
                self.applied += count;
                true
            }
            Err(e) => {
                self.error = Some(e);
                true
            }
        }
    }
}

/// Adds the patterns that apply `decisions` through `target` to `set`: one per root op
/// name, benefit 1.
pub fn populate_plan_patterns<'c, 'p, T>(
    set: &mut PatternSet<'c, 'p>,
    decisions: PlanDecisions,
    target: Rc<RefCell<T>>,
) where
    T: ApplySteps<'c> + 'p,
{
    let decisions = Rc::new(decisions);
    for name in &decisions.root_names {
        let (decisions, target) = (decisions.clone(), target.clone());
        set.push(OpPattern::new(name, 1, move |op, rw| {
            let steps = decisions.steps_of(op);
            !steps.is_empty() && RefCell::borrow_mut(&target).apply_steps(steps, rw)
        }));
    }
}

/// Replays `plan` on the IR behind `m` with the walk driver (see the module docs).
pub(super) fn replay_with_patterns<'c, 'a>(
    m: &mut IrModel<'c, 'a>,
    plan: &Plan,
    remarks: bool,
    batch: Option<&mut AttrBatch<'c>>,
) -> Result<ApplyStats, LocatedError<'c>> {
    if plan.steps.is_empty() {
        return Ok(ApplyStats::default());
    }
    let module = m.module;
    let decisions = PlanDecisions::new(m, plan);
    let target = Rc::new(RefCell::new(PlanReplay::new(m, plan, remarks, batch)));
    let mut set = PatternSet::in_context(module.context());
    populate_plan_patterns(&mut set, decisions, target.clone());
    set.freeze().walk_and_apply(module);
    let outcome = RefCell::borrow(&target).outcome(module);
    outcome
}

/// The analysis of one memory pass on a module, owned, for a toolchain that applies the
/// decisions with its own pattern set and driver: the model and the pass's plan.
pub struct MemoryDecisions<'c, 'a> {
    model: IrModel<'c, 'a>,
    plan: Plan,
}

impl<'c, 'a> MemoryDecisions<'c, 'a> {
    /// Runs pass `flag`'s analysis (`stage`, a one-plan stage, default options) on `module`
    /// with root function `root`. Nothing is changed yet; errors name `flag`.
    pub fn analyse(
        module: OperationRef<'c, 'a>,
        root: &str,
        stage: Stage,
        flag: &str,
    ) -> Result<Self, LocatedError<'c>> {
        Self::analyse_with(module, root, flag, |g| {
            plan_stage(
                stage,
                g,
                AtomicOptions::default(),
                LayoutOptions::default(),
                false,
            )
        })
    }

    /// [`Self::analyse`] with the planner `plan` (a configured pass's).
    pub(super) fn analyse_with(
        module: OperationRef<'c, 'a>,
        root: &str,
        flag: &str,
        plan: impl FnOnce(&mut MemGraph) -> Result<Vec<Plan>, MemError>,
    ) -> Result<Self, LocatedError<'c>> {
        let prefixed = |e: LocatedError<'c>| LocatedError {
            location: e.location,
            message: format!("{flag}: {}", e.message),
        };
        let mut model = IrModel::build(module, root).map_err(prefixed)?;
        let plans = plan(&mut model.graph).map_err(|e| LocatedError {
            location: model.location(e.node),
            message: format!("{flag}: {}", e.message),
        })?;
        let mut plans = plans.into_iter();
        match (plans.next(), plans.next()) {
            (Some(plan), None) => {
                check_first_new(&model, &plan)?;
                Ok(MemoryDecisions { model, plan })
            }
            _ => Err(LocatedError::at(
                module,
                format!("{flag}: not one plan; apply its stages' patterns in turn"),
            )),
        }
    }

    /// The plan the patterns will replay.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}

/// Adds the patterns of `decisions` to `set` (they own the decisions). An error while
/// they run is reported as an MLIR error at the op it is about.
pub fn populate_memory_patterns<'c, 'p>(
    set: &mut PatternSet<'c, 'p>,
    decisions: MemoryDecisions<'c, 'p>,
) {
    let table = PlanDecisions::new(&decisions.model, &decisions.plan);
    let target = Rc::new(RefCell::new(Reporting {
        replay: PlanReplay::new(decisions.model, decisions.plan, false, None),
        reported: false,
    }));
    populate_plan_patterns(set, table, target);
}

/// An owned replay that reports its error where it happens (no pass is there to).
struct Reporting<'c, 'a> {
    replay: PlanReplay<'c, 'c, IrModel<'c, 'a>, Plan>,
    reported: bool,
}

impl<'c, 'a> ApplySteps<'c> for Reporting<'c, 'a> {
    fn apply_steps(&mut self, steps: Range<usize>, rw: &Rewriter<'c, '_>) -> bool {
        let changed = self.replay.apply_steps(steps, rw);
        if let (Some(e), false) = (&self.replay.error, self.reported) {
            crate::ir::external_pass::emit_error(e.location, &e.message);
            self.reported = true;
        }
        changed
    }
}

/// Defines a one-plan memory pass's `analyse` and `populate_<pass>_patterns`. Every such pass
/// is its stage's analysis followed by the shared memory patterns, so the pair is written once
/// here and each pass file names only its stage, flag and pass.
macro_rules! memory_pass_patterns {
    ($stage:expr, $flag:literal, $populate:ident, $pass:literal) => {
        /// The pass's analysis on `module` (root function `root`, default options): its
        /// decisions, not yet applied.
        pub fn analyse<'c, 'a>(
            module: melior::ir::OperationRef<'c, 'a>,
            root: &str,
        ) -> Result<
            $crate::transforms::memory::patterns::MemoryDecisions<'c, 'a>,
            $crate::ir::LocatedError<'c>,
        > {
            $crate::transforms::memory::patterns::MemoryDecisions::analyse(
                module, root, $stage, $flag,
            )
        }

        #[doc = concat!(
            "Adds the patterns that apply ", $pass, "'s `decisions` ([`analyse`]) to `set`, ",
            "for MLIR's walk driver (program order). The pass itself is [`analyse`] + these ",
            "patterns."
        )]
        pub fn $populate<'c, 'p>(
            set: &mut $crate::ir::PatternSet<'c, 'p>,
            decisions: $crate::transforms::memory::patterns::MemoryDecisions<'c, 'p>,
        ) {
            $crate::transforms::memory::patterns::populate_memory_patterns(set, decisions)
        }
    };
}
pub(crate) use memory_pass_patterns;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        analysis::memory::{
            model::Origin,
            plan::{BoolAttr, Rule},
        },
        dialect::new_context,
        ir::{ops::node_name, IrRewriter},
        syntax::import::import_ge,
        transforms::memory::apply_plan::Replay as LoopReplay,
    };

    const CHAIN: &str = "graph main {\n  x = Data() {index = 0} : f32[4]\n  \
        a = Relu(x) : f32[4]\n  b = Relu(a) : f32[4]\n  c = Relu(b) : f32[4]\n}\n";

    /// A plan marking `order`'s nodes `reference`, in that order.
    fn marks(m: &mut IrModel, order: &[&str]) -> Plan {
        let mut plan = Plan::new(Origin::RwConflict, &m.graph);
        for name in order {
            let node = m.graph.find(name).unwrap();
            let edit = Edit::SetAttr {
                node,
                attr: BoolAttr::Reference,
            };
            plan.push(&mut m.graph, edit, Rule::MarkRef, format!("mark {name}"))
                .unwrap();
        }
        plan
    }

    fn steps_at(m: &IrModel, d: &PlanDecisions, name: &str) -> Range<usize> {
        d.steps_of(m.op(m.graph.find(name).unwrap()).unwrap())
    }

    #[test]
    fn a_step_is_rooted_at_its_op_or_at_the_root_of_the_step_before() {
        let context = new_context();
        let module = import_ge(&context, CHAIN, "t.ge").unwrap();
        let mut m = IrModel::build(module.as_operation(), "main").unwrap();
        // In program order: each step at its own op.
        let plan = marks(&mut m, &["a", "b", "c"]);
        let d = PlanDecisions::new(&m, &plan);
        assert_eq!(steps_at(&m, &d, "a"), 0..1);
        assert_eq!(steps_at(&m, &d, "b"), 1..2);
        assert_eq!(steps_at(&m, &d, "c"), 2..3);
        // A step whose op the walk has passed waits at the root before it: plan order holds.
        let plan = marks(&mut m, &["b", "a", "c", "a"]);
        let d = PlanDecisions::new(&m, &plan);
        assert_eq!(steps_at(&m, &d, "a"), 0..0);
        assert_eq!(steps_at(&m, &d, "b"), 0..2);
        assert_eq!(steps_at(&m, &d, "c"), 2..4);
        assert_eq!(d.root_names, ["ascend.relu"]);
    }

    #[test]
    fn the_walk_runs_every_step_once_in_plan_order() {
        let context = new_context();
        let module = import_ge(&context, CHAIN, "t.ge").unwrap();
        let mut m = IrModel::build(module.as_operation(), "main").unwrap();
        let plan = marks(&mut m, &["c", "a", "b"]);
        let stats = replay_with_patterns(&mut m, &plan, false, None).unwrap();
        assert_eq!(stats, ApplyStats::default());
        for name in ["a", "b", "c"] {
            let op = m.op(m.graph.find(name).unwrap()).unwrap();
            assert_eq!(node_name(op), Some(name));
            assert_eq!(ops::bool_attr(op, "reference"), Some(true), "{name}");
        }
        // The loop gives the same module.
        let loop_module = import_ge(&context, CHAIN, "t.ge").unwrap();
        let mut lm = IrModel::build(loop_module.as_operation(), "main").unwrap();
        let plan = marks(&mut lm, &["c", "a", "b"]);
        let rewriter = IrRewriter::for_op(loop_module.as_operation());
        let mut replay = LoopReplay::new(&mut lm, rewriter.rewriter(), plan.pass, false, None);
        for step in &plan.steps {
            replay.step(step).unwrap();
        }
        assert_eq!(
            module.as_operation().to_string(),
            loop_module.as_operation().to_string()
        );
    }

    #[test]
    fn a_step_the_walk_never_reaches_is_an_error() {
        let context = new_context();
        let module = import_ge(&context, CHAIN, "t.ge").unwrap();
        let mut m = IrModel::build(module.as_operation(), "main").unwrap();
        let plan = marks(&mut m, &["a", "b"]);
        let replay: PlanReplay<'_, '_, &mut IrModel, &Plan> =
            PlanReplay::new(&mut m, &plan, false, None);
        let error = replay.outcome(module.as_operation()).unwrap_err();
        assert!(
            error.message.contains("applied 0 of the plan's 2 steps"),
            "{}",
            error.message
        );
    }
}
