//! The passes: `--lower-to-tasks` (compiled module → `ascend_task` module) and
//! `--verify-tasks` (checks task IR). Both are module passes; the decisions are in
//! `lower.rs` and `verify.rs`, this file only moves them in and out of the IR.

use super::{
    emit::emit_model,
    lower::lower_op,
    read::{read_op, ReadModel},
    verify::{verify_model, Finding, Place},
};
use crate::{
    ir::{
        external_pass::{as_op_ref, emit_error, PassFailed, PassId, RustPass},
        source::parse_module_in,
        IrRewriter, LocatedError,
    },
    pipeline::{OptionKind, OptionSpec, PassOptions, Statistic},
};
use melior::{
    ir::{
        operation::{OperationLike, OperationRefMut},
        BlockLike, Location, OperationRef, RegionLike,
    },
    pass::Pass,
};

/// `root`: the function that is the root graph.
pub const ROOT_OPTION: OptionSpec = OptionSpec {
    name: "root",
    kind: OptionKind::String,
    default: "main",
    help: "the function that is the root graph (else the module's only public function)",
};

pub const LOWER_OPTIONS: &[OptionSpec] = &[ROOT_OPTION];
pub const VERIFY_OPTIONS: &[OptionSpec] = &[];

static LOWER_ID: PassId = PassId::new();
static VERIFY_ID: PassId = PassId::new();

/// Registry constructor of `--lower-to-tasks`.
pub fn create_lower(options: &PassOptions) -> Result<Pass, String> {
    let pass = LowerToTasks {
        flag: options.info().flag,
        root: options.string(ROOT_OPTION.name)?.to_string(),
        tasks: options.statistic("num-tasks", "Number of tasks emitted"),
    };
    Ok(options.build_pass(pass, &LOWER_ID))
}

/// Registry constructor of `--verify-tasks`.
pub fn create_verify(options: &PassOptions) -> Result<Pass, String> {
    let pass = VerifyTasks {
        flag: options.info().flag,
        checked: options.statistic("num-tasks-checked", "Number of tasks checked"),
    };
    Ok(options.build_pass(pass, &VERIFY_ID))
}

fn emit_all(errors: Vec<LocatedError>) -> PassFailed {
    for e in errors {
        emit_error(e.location, &e.message);
    }
    PassFailed
}

fn check_module(module: OperationRef, flag: &str) -> Result<(), PassFailed> {
    if module.name().as_string_ref().as_str() == Ok("builtin.module") {
        return Ok(());
    }
    emit_error(
        module.location(),
        &format!("{flag}: must run on the builtin.module (it replaces the whole model)"),
    );
    Err(PassFailed)
}

#[derive(Clone)]
struct LowerToTasks {
    flag: &'static str,
    root: String,
    tasks: Statistic,
}

impl RustPass for LowerToTasks {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let module = as_op_ref(&operation);
        check_module(module, self.flag)?;
        let model = lower_op(module, &self.root).map_err(emit_all)?;
        let findings = verify_model(&model);
        if !findings.is_empty() {
            for f in findings {
                emit_error(
                    module.location(),
                    &format!(
                        "{}: the lowered model fails verify-tasks: {}",
                        self.flag, f.message
                    ),
                );
            }
            return Err(PassFailed);
        }
        self.tasks
            .add(model.streams.iter().map(|s| s.tasks.len() as u64).sum());
        let text = emit_model(&model);
        let Some(lowered) = parse_module_in(module.context(), &text) else {
            emit_error(
                module.location(),
                &format!(
                    "{}: the emitted task IR does not parse (a lowering bug)",
                    self.flag
                ),
            );
            return Err(PassFailed);
        };
        replace_body(module, lowered.body().first_operation());
        Ok(())
    }
}

/// Moves the ops from `first` on (the lowered module's body) into `module`'s body and
/// erases what was there.
fn replace_body<'c>(module: OperationRef<'c, '_>, first: Option<OperationRef<'c, '_>>) {
    let Some(block) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return;
    };
    let mut old = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        old.push(op);
    }
    let Some(&last) = old.last() else { return };
    let rewriter = IrRewriter::for_op(module);
    let rw = rewriter.rewriter();
    let mut anchor = last;
    let mut next = first;
    while let Some(op) = next {
        next = op.next_in_block();
        rw.move_after(op, anchor);
        anchor = op;
    }
    for op in old {
        // A function has no SSA uses; erasing it erases its body.
        let _ = rw.erase(op);
    }
}

#[derive(Clone)]
struct VerifyTasks {
    flag: &'static str,
    checked: Statistic,
}

/// The location a finding is about.
fn place_location<'c>(read: &ReadModel<'c>, place: Place) -> Location<'c> {
    match place {
        Place::Model => Some(read.model_loc),
        Place::Stream(s) => read.stream_locs.get(s).copied(),
        Place::Task(s, t) => read.task_locs.get(s).and_then(|l| l.get(t)).copied(),
        Place::Weight(i) => read.weight_locs.get(i).copied(),
        Place::Variable(i) => read.variable_locs.get(i).copied(),
        Place::Output(i) => read.output_locs.get(i).copied(),
    }
    .unwrap_or(read.model_loc)
}

impl RustPass for VerifyTasks {
    fn run(&mut self, operation: OperationRefMut<'_, '_>) -> Result<(), PassFailed> {
        let module = as_op_ref(&operation);
        check_module(module, self.flag)?;
        let read = read_op(module).map_err(emit_all)?;
        self.checked.add(
            read.model
                .streams
                .iter()
                .map(|s| s.tasks.len() as u64)
                .sum(),
        );
        let findings: Vec<Finding> = verify_model(&read.model);
        for f in &findings {
            emit_error(
                place_location(&read, f.place),
                &format!("{}: {}", self.flag, f.message),
            );
        }
        if findings.is_empty() {
            Ok(())
        } else {
            Err(PassFailed)
        }
    }
}
