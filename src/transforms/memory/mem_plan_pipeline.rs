//! `--ge-mem-plan-pipeline`: the static-plan passes in GE's order on one model.
//!
//! inplace-support-check, mem-layout-conflict, mem-inplace, mem-assign, set-io-offset: the
//! same decisions, remarks and output IR as running the five flags in that order (a lit
//! test diffs the two on generated graphs of every family), but
//! * the module is read into a model once, not five times: each stage's analysis runs on
//!   the model as the previous stage left it (the planners update the model as they plan;
//!   `--mem-inplace` records its reuses in it), which is what re-reading the IR would give;
//! * attribute writes on existing ops are queued in one [`AttrBatch`] and written at the
//!   end, one attribute-dictionary update per op instead of one per attribute and pass;
//! * MLIR verifies the module once, after the pipeline, instead of after every pass.
//!
//! Two points re-synchronise the model with the IR, each only when needed:
//! * when `--mem-layout-conflict` inserted copies, the model's new nodes sit at the end of
//!   the node list while the IR has them in program order, and the later stages' orders
//!   (symbols, lifetimes, GE's `GetAllNodes` order) follow node order: the model is
//!   renumbered in program order
//!   ([`renumber_as_ir`](super::model_from_ir::IrModel::renumber_as_ir): the order of
//!   each block, walked once, checked op by op); should an op not be where the model can
//!   say, the queued attributes are written and the model is read again;
//! * `--set-io-offset` reads the plan's offsets and its own lists from the IR, so when the
//!   root graph has a node marked `_is_connected_to_data` / `_is_connected_to_netoutput`,
//!   the queue is written before it runs.
//!
//! Statistics are the five passes' counters under this pass (counters of the same name,
//! `num-nodes-visited`, add up).

use super::{
    attr_batch::AttrBatch, build_model, check_module, keep_model, mem_assign::MemAssign,
    mem_inplace::MemInplace, set_io_offset::SetIoOffset, shared_or_built, MemoryPass, Stage,
    ROOT_OPTION,
};
use crate::{
    ir::{
        external_pass::{as_op_ref, PassFailed, PassId, RustPass},
        IrRewriter,
    },
    pipeline::{ModelShare, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::operation::{OperationLike, OperationRefMut},
    pass::Pass,
};

/// Options of the pipeline: the union of the five passes' options, which is exactly
/// mem-inplace's set (a unit test below keeps it so).
pub const OPTIONS: &[OptionSpec] = super::mem_inplace::OPTIONS;

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = MemPlanPipeline {
        flag: options.info().flag,
        root: options.string(ROOT_OPTION.name)?.to_string(),
        support: MemoryPass::stage_of(
            options,
            Stage::InplaceSupportCheck,
            "inplace-support-check",
        )?,
        layout: MemoryPass::stage_of(options, Stage::LayoutConflict, "mem-layout-conflict")?,
        inplace: MemInplace::new(options, "mem-inplace")?,
        assign: MemAssign::new(options, "mem-assign")?,
        io_offset: SetIoOffset::new(options, "set-io-offset")?,
        rereads: options.statistic(
            "num-model-rereads",
            "Times the model was read from the IR again (renumbering failed to match it)",
        ),
        share: options.model_share(),
    };
    Ok(options.build_pass(pass, &ID))
}

#[derive(Clone)]
struct MemPlanPipeline {
    flag: &'static str,
    root: String,
    support: MemoryPass,
    layout: MemoryPass,
    inplace: MemInplace,
    assign: MemAssign,
    io_offset: SetIoOffset,
    rereads: Statistic,
    share: ModelShare,
}

impl MemPlanPipeline {
    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        let mut model = shared_or_built(&self.share, module, &self.root, "inplace-support-check")?;
        let rewriter = IrRewriter::for_op(module);
        let rw = rewriter.rewriter();
        let mut batch = AttrBatch::new(module.context());
        // At most four writes per node: an in-place index, a reuse index, the output and
        // the input offsets (the memory kinds of outputs outside the workspace are rare).
        batch.reserve(4 * model.graph.nodes.len());

        self.support.plan_and_apply(&mut model, &rw, &mut batch)?;
        let first_new = model.graph.nodes.len();
        if self.layout.plan_and_apply(&mut model, &rw, &mut batch)? {
            let (new_of, matched) = model.renumber_as_ir(first_new);
            batch.renumber(&new_of);
            if !matched {
                // The IR's order could not be matched: read the model again.
                self.rereads.add(1);
                batch.flush(&model, &rw);
                model = build_model(module, &self.root, "mem-inplace")?;
            }
        }
        let candidates = model
            .graph
            .nodes
            .iter()
            .any(|n| !n.removed && n.outputs.iter().any(|o| o.inplace_input.is_some()));
        if candidates {
            self.inplace.run_stage(&mut model, &mut batch)?;
        }
        self.assign.run_stage(&model, &rw, &mut batch)?;
        if self.io_offset.concerned(module) {
            batch.flush(&model, &rw);
            self.io_offset.run_stage(&model, &rw)?;
        }
        batch.flush(&model, &rw);
        if self.share.feeds_next() {
            // What the IR reads back as, for `--verify-mem-plan` after it, say.
            keep_model(&self.share, model, &self.root);
            return Ok(());
        }
        // The model is freed here, on the pass's thread (not a detached one that could
        // outlive a host process's exit; see `--stream-alloc`).
        drop(std::mem::take(&mut model.graph));
        Ok(())
    }
}

impl RustPass for MemPlanPipeline {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}

#[cfg(test)]
mod tests {
    use super::OPTIONS;
    use crate::transforms::memory::{
        inplace_support_check, mem_assign, mem_inplace, mem_layout_conflict, set_io_offset,
    };

    #[test]
    fn options_are_the_union_of_the_five_passes() {
        let passes = [
            inplace_support_check::OPTIONS,
            mem_layout_conflict::OPTIONS,
            mem_inplace::OPTIONS,
            mem_assign::OPTIONS,
            set_io_offset::OPTIONS,
        ];
        for option in passes.iter().flat_map(|options| options.iter()) {
            assert!(
                OPTIONS.iter().any(|o| o.name == option.name),
                "{}",
                option.name
            );
        }
        for option in OPTIONS {
            assert!(
                passes
                    .iter()
                    .flat_map(|o| o.iter())
                    .any(|o| o.name == option.name),
                "{}",
                option.name
            );
        }
    }
}
