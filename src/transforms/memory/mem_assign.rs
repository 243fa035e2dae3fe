//! `--mem-assign`: the static memory plan (GE's graph memory assigner, spec 3.1.8 / 3.3 /
//! 3.4 context): every workspace symbol gets an offset, reusing memory by lifetime.
//!
//! Decisions: [`crate::analysis::memory::mem_plan`] (kinds, continuous groups, best-fit
//! placement, streams). Written (see [`super::plan_attrs`]): `output_offset` and
//! `input_offset` on every op (and `func.return`), `ascend.output_memory` on ops with an
//! output outside the workspace, `memory_size` and `output_reuse_input_mem_indexes` on the
//! root function. In-place reuse decided by `--mem-inplace` is visible here because it is
//! recorded as `reuse_input_index` on the op, which merges the symbols.
//!
//! Beyond GE: a remark at the root function reports the plan's peak against the max-live
//! lower bound and the no-reuse upper bound; the same numbers are pass statistics.
//! Options: `root=<func>`.

use super::{
    attr_batch::AttrBatch,
    check_module, keep_model,
    model_from_ir::IrModel,
    plan_attrs::{
        func_of, INPUT_OFFSET, MEMORY_SIZE, OUTPUT_MEMORY, OUTPUT_OFFSET,
        OUTPUT_REUSE_INPUT_MEM_INDEXES,
    },
    shared_or_built, ROOT_OPTION,
};
use crate::analysis::fast_hash::FastMap;
use crate::{
    analysis::memory::{
        mem_plan::{plan_memory, MemKind, MemPlan},
        model::NodeId,
        symbols::{Anchor, Symbols},
    },
    ir::{
        diagnostics::emit_remark,
        external_pass::{as_op_ref, emit_error, PassFailed, PassId, RustPass},
        ops::{self, Producer},
        IrRewriter, Rewriter,
    },
    pipeline::{ModelShare, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::{
        operation::{OperationLike, OperationRefMut},
        Attribute,
    },
    pass::Pass,
};

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[ROOT_OPTION];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(MemAssign::new(options, options.info().flag)?, &ID))
}

impl MemAssign {
    /// Reads the options and registers the statistics; errors and the remark name `flag`.
    pub fn new(options: &PassOptions, flag: &'static str) -> Result<Self, String> {
        let stat = |name, description| options.statistic(name, description);
        Ok(MemAssign {
            flag,
            root: options.string(ROOT_OPTION.name)?.to_string(),
            stats: Stats {
                symbols: stat("num-symbols", "Number of memory symbols"),
                blocks: stat("num-blocks", "Number of workspace blocks placed"),
                groups: stat(
                    "num-continuous-groups",
                    "Number of continuous groups laid out",
                ),
                outside: stat(
                    "num-symbols-outside",
                    "Number of symbols in user, constant, variable or run-time memory",
                ),
                workspace: stat(
                    "workspace-bytes",
                    "Bytes of workspace the plan needs (its peak)",
                ),
                lower: stat(
                    "lower-bound-bytes",
                    "Max-live lower bound: most bytes live at one time",
                ),
                upper: stat(
                    "upper-bound-bytes",
                    "No-reuse upper bound: the sum of the block sizes",
                ),
                rejections: stat(
                    "num-cross-stream-rejections",
                    "Free regions not reused because another stream was not ordered before",
                ),
            },
            share: options.model_share(),
        })
    }
}

#[derive(Clone)]
struct Stats {
    symbols: Statistic,
    blocks: Statistic,
    groups: Statistic,
    outside: Statistic,
    workspace: Statistic,
    lower: Statistic,
    upper: Statistic,
    rejections: Statistic,
}

/// The pass, also a stage of `--ge-mem-plan-pipeline` (then `flag` is `mem-assign`).
#[derive(Clone)]
pub struct MemAssign {
    flag: &'static str,
    root: String,
    stats: Stats,
    share: ModelShare,
}

impl MemAssign {
    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        let model = shared_or_built(&self.share, module, &self.root, self.flag)?;
        let mut batch = AttrBatch::new(module.context());
        let rewriter = IrRewriter::for_op(module);
        let rw = rewriter.rewriter();
        self.run_stage(&model, &rw, &mut batch)?;
        batch.flush(&model, &rw);
        // The plan lives in attributes only: the model is unchanged.
        keep_model(&self.share, model, &self.root);
        Ok(())
    }

    /// Plans on `model`; the per-op attributes go to `batch`, the root function's are set
    /// at once (through `rw`); then the statistics and the remark.
    pub(super) fn run_stage<'c>(
        &self,
        model: &IrModel<'c, '_>,
        rw: &Rewriter<'c, '_>,
        batch: &mut AttrBatch<'c>,
    ) -> Result<(), PassFailed> {
        let g = &model.graph;
        let symbols = crate::analysis::memory::mem_plan::plan_symbols(g);
        let streams = model.stream_info();
        let plan = plan_memory(g, &symbols, &streams).map_err(|e| {
            emit_error(
                model.location(e.node),
                &format!("{}: {}", self.flag, e.message),
            );
            PassFailed
        })?;
        write_plan(model, &symbols, &plan, rw, batch);
        self.report(model, &symbols, &plan);
        Ok(())
    }

    fn report(&self, model: &IrModel, symbols: &Symbols, plan: &MemPlan) {
        let s = &self.stats;
        s.symbols.add(symbols.count() as u64);
        s.blocks.add(plan.blocks as u64);
        s.groups.add(plan.groups as u64);
        s.outside.add(
            symbols
                .iter()
                .filter(|x| plan.kind[x.0 as usize] != MemKind::Workspace)
                .count() as u64,
        );
        s.workspace.add(plan.workspace_size as u64);
        s.lower.add(plan.lower_bound as u64);
        s.upper.add(plan.upper_bound as u64);
        s.rejections.add(plan.cross_stream_rejections);
        let at = func_of(model, 0).map_or(model.module.location(), |f| f.location());
        let upper = if plan.upper_bound == 0 {
            1.0
        } else {
            plan.workspace_size as f64 / plan.upper_bound as f64
        };
        emit_remark(
            at,
            &format!(
                "{}: workspace {} bytes in {} blocks; max-live lower bound {} bytes (peak {:.3}x), \
                 no-reuse upper bound {} bytes (peak {:.3}x){}",
                self.flag,
                plan.workspace_size,
                plan.blocks,
                plan.lower_bound,
                plan.ratio_to_lower_bound(),
                plan.upper_bound,
                upper,
                if plan.multi_stream {
                    format!(
                        "; {} cross-stream reuses refused for want of an ordering path",
                        plan.cross_stream_rejections
                    )
                } else {
                    String::new()
                }
            ),
            &[],
        );
    }
}

/// Writes the plan's attributes (see the module doc).
fn write_plan<'c>(
    model: &IrModel<'c, '_>,
    symbols: &Symbols,
    plan: &MemPlan,
    rw: &Rewriter<'c, '_>,
    batch: &mut AttrBatch<'c>,
) {
    let g = &model.graph;
    let context = batch.context();
    // An output and an input offset list per node (memory kinds are rare).
    batch.reserve(2 * g.nodes.len());
    // Offset lists repeat (a block's offset is shared by its anchors): build each once,
    // looked up by slice from one reused buffer (no allocation for a list seen before).
    let mut cache: FastMap<Vec<i64>, Attribute> = FastMap::default();
    let mut list = |values: &[i64]| match cache.get(values) {
        Some(&attr) => attr,
        None => {
            let attr = ops::int_list_attr(context, values);
            cache.insert(values.to_vec(), attr);
            attr
        }
    };
    let mut offsets: Vec<i64> = Vec::new();
    for (i, node) in g.nodes.iter().enumerate() {
        let n = NodeId(i as u32);
        let Some(op) = model.op(n) else { continue };
        if node.removed {
            continue;
        }
        if !node.outputs.is_empty() {
            offsets.clear();
            offsets.extend(
                (0..node.outputs.len() as u32)
                    .map(|o| plan.anchor_offset(symbols, Anchor::output(n, o))),
            );
            let outside = offsets.iter().any(|&x| x < 0);
            batch.set(n, OUTPUT_OFFSET, list(&offsets));
            if outside {
                let kinds: Vec<&str> = (0..node.outputs.len() as u32)
                    .map(|o| plan.anchor_kind(symbols, Anchor::output(n, o)).name())
                    .collect();
                batch.set(n, OUTPUT_MEMORY, ops::str_list_attr(context, &kinds));
            } else if op.has_attribute(OUTPUT_MEMORY) {
                ops::remove_attr(rw, op, OUTPUT_MEMORY);
            }
        }
        if !node.inputs.is_empty() {
            offsets.clear();
            offsets.extend(
                (0..node.inputs.len() as u32)
                    .map(|k| plan.anchor_offset(symbols, Anchor::input(n, k))),
            );
            batch.set(n, INPUT_OFFSET, list(&offsets));
        }
    }
    let Some(root) = func_of(model, 0) else {
        return;
    };
    ops::set_int_attr(rw, root, MEMORY_SIZE, plan.workspace_size);
    let pairs: Vec<String> = plan
        .outputs_reusing_inputs(g, symbols)
        .into_iter()
        .map(|(data, j)| format!("{},{j}", user_input_index(model, data)))
        .collect();
    if pairs.is_empty() {
        ops::remove_attr(rw, root, OUTPUT_REUSE_INPUT_MEM_INDEXES);
    } else {
        ops::set_str_attr(rw, root, OUTPUT_REUSE_INPUT_MEM_INDEXES, &pairs.join("|"));
    }
}

/// The model input a root Data reads: the function argument it is fed by.
fn user_input_index(model: &IrModel, data: NodeId) -> i64 {
    model
        .op(data)
        .and_then(|op| op.operand(0).ok())
        .and_then(|v| match ops::producer(v) {
            Producer::Arg { index } => Some(index as i64),
            _ => None,
        })
        .or_else(|| model.op(data).and_then(|op| ops::int_attr(op, "index")))
        .unwrap_or(-1)
}

impl RustPass for MemAssign {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}
