//! `--mem-inplace`: GE's ProcessInplace (spec 3.4, notes B.17): outputs marked by
//! `--inplace-support-check` (`_inplace_support_input_index`) reuse their input's memory
//! unless a size, read, write or symbol conflict forbids it (a read conflict includes a
//! reader of the input's memory, through an alias, that is not ordered before the node). An accepted reuse is written
//! as GE's `reuse_input_index` on the op (an int for a single-output op, else one entry per
//! output, -1 = none), which every later pass reads as "this output shares that input's
//! symbol": `--mem-assign` then gives both one offset. With `remarks=true` each candidate's
//! verdict is a remark at its op. Options: `root`, `remarks`, and the layout checkers'
//! `feature-map-refreshable`, `physical-memory-refreshable`, `offline`.
//! Decisions: [`crate::analysis::memory::inplace`].

use super::{
    attr_batch::AttrBatch,
    check_module, keep_model,
    model_from_ir::{IrModel, INPLACE_SUPPORT_INPUT_INDEX, REUSE_INPUT_INDEX},
    plan_attrs::has_marked_op,
    shared_or_built, FEATURE_MAP_REFRESHABLE_OPTION, OFFLINE_OPTION,
    PHYSICAL_MEMORY_REFRESHABLE_OPTION, REMARKS_OPTION, ROOT_OPTION,
};
use crate::{
    analysis::memory::{
        inplace::{plan_inplace_on, InplacePlan},
        layout::LayoutOptions,
        model::NodeId,
    },
    ir::{
        diagnostics::emit_remark,
        external_pass::{as_op_ref, emit_error, mark_unchanged, PassFailed, PassId, RustPass},
        ops, IrRewriter,
    },
    pipeline::{ModelShare, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::operation::{OperationLike, OperationRefMut},
    pass::Pass,
};
use std::collections::BTreeMap;

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[
    ROOT_OPTION,
    REMARKS_OPTION,
    FEATURE_MAP_REFRESHABLE_OPTION,
    PHYSICAL_MEMORY_REFRESHABLE_OPTION,
    OFFLINE_OPTION,
];

static ID: PassId = PassId::new();

/// The rejection kinds counted, with their statistic names.
const REJECTIONS: [(&str, &str); 10] = [
    ("size", "num-rejected-size"),
    ("read-only-input", "num-rejected-read-only-input"),
    ("read-later", "num-rejected-read-later"),
    ("continuous-output", "num-rejected-continuous-output"),
    ("variable-output", "num-rejected-variable-output"),
    ("same-symbol", "num-rejected-same-symbol"),
    ("layout-conflict", "num-rejected-layout-conflict"),
    ("input-taken", "num-rejected-input-taken"),
    (
        "ctrl-subgraph-conflict",
        "num-rejected-ctrl-subgraph-conflict",
    ),
    ("no-symbol", "num-rejected-no-symbol"),
];

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(MemInplace::new(options, options.info().flag)?, &ID))
}

/// The pass, also a stage of `--ge-mem-plan-pipeline` (then `flag` is `mem-inplace`).
#[derive(Clone)]
pub struct MemInplace {
    flag: &'static str,
    root: String,
    remarks: bool,
    layout: LayoutOptions,
    candidates: Statistic,
    accepted: Statistic,
    rejected: Vec<Statistic>,
    share: ModelShare,
}

impl MemInplace {
    /// Reads the options (the row must declare the layout options) and registers the
    /// statistics; errors and remarks name `flag`.
    pub fn new(options: &PassOptions, flag: &'static str) -> Result<Self, String> {
        Ok(MemInplace {
            flag,
            root: options.string(ROOT_OPTION.name)?.to_string(),
            remarks: options.bool(REMARKS_OPTION.name)?,
            layout: LayoutOptions {
                feature_map_refreshable: options.bool(FEATURE_MAP_REFRESHABLE_OPTION.name)?,
                physical_memory_refreshable: options
                    .bool(PHYSICAL_MEMORY_REFRESHABLE_OPTION.name)?,
                offline: options.bool(OFFLINE_OPTION.name)?,
            },
            candidates: options.statistic("num-candidates", "Number of in-place candidates"),
            accepted: options.statistic("num-inplace", "Number of outputs reusing an input"),
            rejected: REJECTIONS
                .iter()
                .map(|&(_, name)| options.statistic(name, "Number of candidates rejected so"))
                .collect(),
            share: options.model_share(),
        })
    }

    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        // No candidate anywhere: nothing to decide, no model to build (one handed on
        // passes through unchanged).
        if !has_marked_op(module, None, &[INPLACE_SUPPORT_INPUT_INDEX]) {
            if let Some(shared) = self.share.take() {
                self.share
                    .keep::<super::model_from_ir::DetachedModel>(shared);
            }
            mark_unchanged();
            return Ok(());
        }
        let mut model = shared_or_built(&self.share, module, &self.root, self.flag)?;
        let mut batch = AttrBatch::new(module.context());
        self.run_stage(&mut model, &mut batch)?;
        if batch.is_empty() {
            // No reuse accepted: nothing written.
            mark_unchanged();
        }
        let rewriter = IrRewriter::for_op(module);
        batch.flush(&model, &rewriter.rewriter());
        // The accepted reuses are in the model as the written attributes read back.
        keep_model(&self.share, model, &self.root);
        Ok(())
    }

    /// Decides on `model`, queues `reuse_input_index` in `batch`, records the accepted
    /// reuses in the model (as reading the written IR back would), and emits the remarks.
    pub(super) fn run_stage<'c>(
        &self,
        model: &mut IrModel<'c, '_>,
        batch: &mut AttrBatch<'c>,
    ) -> Result<(), PassFailed> {
        let streams = model.stream_info();
        let plan = plan_inplace_on(&mut model.graph, self.layout, &streams).map_err(|e| {
            emit_error(
                model.location(e.node),
                &format!("{}: {}", self.flag, e.message),
            );
            PassFailed
        })?;
        self.count(&plan);
        write(model, &plan, batch);
        if self.remarks {
            for d in &plan.decisions {
                emit_remark(
                    model.location(Some(d.node)),
                    &format!("{}: {}", self.flag, d.describe(&model.graph)),
                    &[],
                );
            }
        }
        Ok(())
    }

    fn count(&self, plan: &InplacePlan) {
        self.candidates.add(plan.candidates as u64);
        for d in &plan.decisions {
            match &d.verdict {
                Ok(()) => self.accepted.add(1),
                Err(r) => {
                    if let Some(k) = REJECTIONS.iter().position(|&(kind, _)| kind == r.kind()) {
                        self.rejected[k].add(1);
                    }
                }
            }
        }
    }
}

/// GE `SetReuseInput`: `reuse_input_index` on each node with an accepted reuse (queued in
/// `batch`), and the same reuse on the model's output.
fn write<'c>(model: &mut IrModel<'c, '_>, plan: &InplacePlan, batch: &mut AttrBatch<'c>) {
    let mut by_node: BTreeMap<NodeId, Vec<(u32, u32)>> = BTreeMap::new();
    for (n, o, i) in plan.accepted() {
        by_node.entry(n).or_default().push((o, i));
    }
    let context = batch.context();
    for (n, reuses) in by_node {
        if model.op(n).is_none() {
            continue;
        }
        let node = model.graph.node_mut(n);
        for &(o, i) in &reuses {
            node.outputs[o as usize].reuse_input = Some(i);
        }
        let list: Vec<i64> = node
            .outputs
            .iter()
            .map(|o| o.reuse_input.map_or(-1, i64::from))
            .collect();
        if list.len() == 1 {
            batch.set_int(n, REUSE_INPUT_INDEX, list[0]);
        } else {
            batch.set(n, REUSE_INPUT_INDEX, ops::int_list_attr(context, &list));
        }
    }
}

impl RustPass for MemInplace {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}
