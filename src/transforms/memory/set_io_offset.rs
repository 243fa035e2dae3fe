//! `--set-io-offset`: GE's SetInputOutputOffsetPass (spec 3.1.8). Appends
//! `_zero_copy_basic_offset` / `_zero_copy_relative_offset` pairs for nodes marked
//! `_is_connected_to_data` / `_is_connected_to_netoutput`, with GE's fusion-input,
//! HCOM-input, Concat-output and HCOM-output cases. Reads the plan's `output_offset` /
//! `input_offset` (run `--mem-assign` first). Like GE it appends to lists already there,
//! so a second run adds the pairs again. Only the root graph's nodes are concerned, so a
//! root without marked nodes is left alone without building the model. With `remarks=true` every pair (and every pair
//! skipped because an offset is outside the workspace) is announced by a remark.
//! Decisions: [`crate::analysis::memory::io_offset`].

use super::{
    check_module, keep_model,
    model_from_ir::{DetachedModel, IrModel},
    plan_attrs::{has_marked_op, IrOffsets},
    shared_or_built, REMARKS_OPTION, ROOT_OPTION,
};
use crate::{
    analysis::memory::{
        io_offset::{plan_io_offsets, IoAttrs, Offsets},
        model::NodeId,
    },
    dialect::OpView,
    ir::{
        diagnostics::emit_remark,
        external_pass::{as_op_ref, emit_error, mark_unchanged, PassFailed, PassId, RustPass},
        ops, IrRewriter, Rewriter,
    },
    pipeline::{ModelShare, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::operation::{OperationLike, OperationRefMut},
    pass::Pass,
};
use std::collections::BTreeMap;

/// GE `ATTR_NAME_NODE_CONNECT_INPUT`.
pub const CONNECT_INPUT: &str = "_is_connected_to_data";
/// GE `ATTR_NAME_NODE_CONNECT_OUTPUT`.
pub const CONNECT_OUTPUT: &str = "_is_connected_to_netoutput";
/// GE `ATTR_ZERO_COPY_BASIC_OFFSET`.
pub const ZERO_COPY_BASIC_OFFSET: &str = "_zero_copy_basic_offset";
/// GE `ATTR_ZERO_COPY_RELATIVE_OFFSET`.
pub const ZERO_COPY_RELATIVE_OFFSET: &str = "_zero_copy_relative_offset";
/// GE `ATTR_NAME_OUTPUT_OFFSET_FOR_BUFFER_FUSION`.
pub const OUTPUT_OFFSET_FOR_BUFFER_FUSION: &str = "_output_offset_for_buffer_fusion";

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[ROOT_OPTION, REMARKS_OPTION];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(SetIoOffset::new(options, options.info().flag)?, &ID))
}

impl SetIoOffset {
    /// Reads the options and registers the statistics; errors and remarks name `flag`.
    pub fn new(options: &PassOptions, flag: &'static str) -> Result<Self, String> {
        Ok(SetIoOffset {
            flag,
            root: options.string(ROOT_OPTION.name)?.to_string(),
            remarks: options.bool(REMARKS_OPTION.name)?,
            visited: options.statistic("num-nodes-visited", "Number of connected nodes visited"),
            pairs: options.statistic(
                "num-offsets-set",
                "Number of zero-copy offset pairs appended",
            ),
            skipped: options.statistic(
                "num-offsets-skipped",
                "Number of pairs skipped: an offset outside the workspace",
            ),
            share: options.model_share(),
        })
    }

    /// Whether the root graph has a node this pass is about (without one, nothing to do).
    pub(super) fn concerned(&self, module: melior::ir::OperationRef) -> bool {
        has_marked_op(module, Some(&self.root), &[CONNECT_INPUT, CONNECT_OUTPUT])
    }
}

/// The pass, also a stage of `--ge-mem-plan-pipeline` (then `flag` is `set-io-offset`).
#[derive(Clone)]
pub struct SetIoOffset {
    flag: &'static str,
    root: String,
    remarks: bool,
    visited: Statistic,
    pairs: Statistic,
    skipped: Statistic,
    share: ModelShare,
}

impl Offsets for IrOffsets {
    fn output(&self, n: NodeId) -> &[i64] {
        &self.outputs[n.0 as usize]
    }
    fn input(&self, n: NodeId) -> &[i64] {
        &self.inputs[n.0 as usize]
    }
}

impl SetIoOffset {
    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        // Most graphs mark no node: nothing to build a model for (one handed on passes
        // through unchanged).
        if !self.concerned(module) {
            if let Some(shared) = self.share.take::<DetachedModel>() {
                self.share.keep(shared);
            }
            mark_unchanged();
            return Ok(());
        }
        let model = shared_or_built(&self.share, module, &self.root, self.flag)?;
        let rewriter = IrRewriter::for_op(module);
        self.run_stage(&model, &rewriter.rewriter())?;
        // Only attributes were written: the model is unchanged.
        keep_model(&self.share, model, &self.root);
        Ok(())
    }

    /// Plans on `model`, reading the plan's offsets from the IR (written and flushed by
    /// `--mem-assign`), and appends the pairs to the ops through `rw`.
    pub(super) fn run_stage<'c>(
        &self,
        model: &IrModel<'c, '_>,
        rw: &Rewriter<'c, '_>,
    ) -> Result<(), PassFailed> {
        let offsets = IrOffsets::read(model);
        let attrs = |n: NodeId| -> IoAttrs {
            let Some(op) = model.op(n) else {
                return IoAttrs::default();
            };
            let ints = |name: &str| op.attr(name).and_then(|a| a.as_ints()).unwrap_or_default();
            IoAttrs {
                connect_input: ints(CONNECT_INPUT),
                connect_output: ints(CONNECT_OUTPUT),
                input_mem_types: ints(super::model_from_ir::INPUT_MEMORY_TYPE),
                no_task: ops::bool_attr(op, super::model_from_ir::NO_TASK) == Some(true),
                buffer_fusion_offsets: op.has_attribute(OUTPUT_OFFSET_FOR_BUFFER_FUSION),
            }
        };
        let plan = plan_io_offsets(&model.graph, &offsets, &attrs).map_err(|e| {
            emit_error(
                model.location(e.node),
                &format!("{}: {}", self.flag, e.message),
            );
            PassFailed
        })?;
        self.visited.add(plan.nodes_visited as u64);
        self.pairs.add(plan.pairs.len() as u64);
        self.skipped.add(plan.skipped.len() as u64);

        // Append per target, in GE's order.
        let mut by_target: BTreeMap<NodeId, Vec<(i64, i64)>> = BTreeMap::new();
        for p in &plan.pairs {
            by_target
                .entry(p.target)
                .or_default()
                .push((p.basic, p.relative));
        }
        let context = model.module.context();
        for (target, pairs) in by_target {
            let Some(op) = model.op(target) else { continue };
            let list = |name: &str| op.attr(name).and_then(|a| a.as_ints()).unwrap_or_default();
            let mut basic = list(ZERO_COPY_BASIC_OFFSET);
            let mut relative = list(ZERO_COPY_RELATIVE_OFFSET);
            for (b, r) in pairs {
                basic.push(b);
                relative.push(r);
            }
            ops::set_attr(
                rw,
                op,
                ZERO_COPY_BASIC_OFFSET,
                ops::int_list_attr(context, &basic),
            );
            ops::set_attr(
                rw,
                op,
                ZERO_COPY_RELATIVE_OFFSET,
                ops::int_list_attr(context, &relative),
            );
        }
        if self.remarks {
            for p in &plan.pairs {
                emit_remark(
                    model.location(Some(p.target)),
                    &format!("{}: {}", self.flag, p.reason),
                    &[],
                );
            }
            for s in &plan.skipped {
                emit_remark(
                    model.location(Some(s.from)),
                    &format!("{}: {}: skipped: {}", self.flag, s.rule.as_str(), s.reason),
                    &[],
                );
            }
        }
        Ok(())
    }
}

impl RustPass for SetIoOffset {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}
