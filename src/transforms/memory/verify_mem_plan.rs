//! `--verify-mem-plan`: checks the static memory plan written on the IR (`output_offset`,
//! `input_offset`, `memory_size`), SOMAS-style: coverage, consistency of shared memory,
//! 512-byte alignment, bounds, contiguity of continuous groups, no overlap of tensors live
//! at the same time, and cross-stream reuse only after an ordering path. Each violation is
//! an error at the op it is about (with a note at the other op); the pass fails if there is
//! any. It changes nothing. Decisions: [`crate::analysis::memory::mem_verify`].
//! Options: `root=<func>`.

use super::{
    check_module,
    plan_attrs::{func_of, IrOffsets, MEMORY_SIZE},
    shared_or_built, ROOT_OPTION,
};
use crate::{
    analysis::memory::mem_verify::{verify_plan, PlanView},
    ir::{
        diagnostics::emit_remark,
        external_pass::{as_op_ref, emit_error, mark_unchanged, PassFailed, PassId, RustPass},
        ops,
    },
    pipeline::{ModelShare, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::operation::{OperationLike, OperationRefMut},
    pass::Pass,
};

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[ROOT_OPTION];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    let pass = VerifyMemPlan {
        flag: options.info().flag,
        root: options.string(ROOT_OPTION.name)?.to_string(),
        checked: options.statistic("num-objects-checked", "Number of memory objects checked"),
        violations: options.statistic("num-violations", "Number of plan violations"),
        share: options.model_share(),
    };
    Ok(options.build_pass(pass, &ID))
}

#[derive(Clone)]
struct VerifyMemPlan {
    flag: &'static str,
    root: String,
    checked: Statistic,
    violations: Statistic,
    share: ModelShare,
}

impl VerifyMemPlan {
    fn run_on_module(&self, module: melior::ir::OperationRef) -> Result<(), PassFailed> {
        check_module(module, self.flag)?;
        // The graph may come from the planner (it is what the IR reads back as); the plan
        // itself, the offsets and the size, is always read from the IR.
        let model = shared_or_built(&self.share, module, &self.root, self.flag)?;
        // A checker: the IR is as it found it, so MLIR need not verify it again.
        mark_unchanged();
        let g = &model.graph;
        let offsets = IrOffsets::read(&model);
        let root_func = func_of(&model, 0);
        let memory_size = root_func.and_then(|f| ops::int_attr(f, MEMORY_SIZE));
        let placed = offsets
            .outputs
            .iter()
            .chain(&offsets.inputs)
            .any(|list| list.iter().any(|&o| o >= 0));
        let missing_size = placed && memory_size.is_none();
        if missing_size {
            // Without it the bounds check would be skipped and any offset accepted.
            emit_error(
                root_func.map_or(module.location(), |f| f.location()),
                &format!(
                    "{}: the root graph has workspace offsets but no integer `memory_size` \
                     (the workspace size --mem-assign writes): the plan's bounds cannot be \
                     checked",
                    self.flag
                ),
            );
        }
        let view = PlanView {
            outputs: &offsets.outputs,
            inputs: &offsets.inputs,
            memory_size,
        };
        let symbols = crate::analysis::memory::mem_plan::plan_symbols(g);
        let streams = model.stream_info();
        let report = verify_plan(g, &symbols, &streams, &view).map_err(|e| {
            emit_error(
                model.location(e.node),
                &format!("{}: {}", self.flag, e.message),
            );
            PassFailed
        })?;
        self.checked.add(report.symbols_checked as u64);
        self.violations
            .add((report.findings.len() + report.omitted) as u64);
        for f in &report.findings {
            let message = format!("{}: {}", self.flag, f.message);
            emit_error(model.location(Some(f.node)), &message);
            // The C API cannot attach notes to an error: the other op gets a remark.
            if let Some((other, note)) = &f.other {
                emit_remark(
                    model.location(Some(*other)),
                    &format!("{}: {note}", self.flag),
                    &[],
                );
            }
        }
        if report.omitted > 0 {
            emit_error(
                module.location(),
                &format!(
                    "{}: {} more violations not shown",
                    self.flag, report.omitted
                ),
            );
        }
        if report.is_ok() && !missing_size {
            Ok(())
        } else {
            Err(PassFailed)
        }
    }
}

impl RustPass for VerifyMemPlan {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        self.run_on_module(as_op_ref(&operation))
    }
}
