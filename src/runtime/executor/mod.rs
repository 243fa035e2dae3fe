//! The executor: loads a [`TaskModel`] onto one device per rank through ACL and runs it
//! (`dialects/execution.md`): every rank driven by one host thread with `aclrtSetDevice(r)`, one
//! communicator from `HcclCommInitAll` when the model has collectives, `iterations` runs
//! of the recorded model (variables stay on the device), outputs read after each run and
//! variables after the last.

mod collective;
pub mod dynamic;
pub mod load;
pub mod multi;
pub mod report;
pub mod zero_copy;

use crate::{
    lowering::model::{Input, Task, TaskModel},
    runtime::{
        device::{self, Device},
        error::RuntimeError,
        tensor::{input_seed_name, HostTensor},
    },
};
pub use dynamic::{host::HostMutation, DynamicMemoryReport, MemoryMode};
pub use load::{task_kind, task_node};
use load::{LoadContext, RankModel};
pub use multi::{run_models, MultiRunResult};
pub use report::{SimReport, StreamBusy};
use std::path::PathBuf;
pub use zero_copy::{run_model_zero_copy, IoBufferPlan, ZeroCopyResult};

/// How to run a model.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub device: Device,
    /// `--acl-lib DIR`: where `libascendcl.so` is (the only directory tried when given).
    pub acl_lib_dir: Option<PathBuf>,
    /// Runs of the loaded model (at least 1).
    pub iterations: u32,
    /// Devices, one rank each (at least 1).
    pub ranks: u32,
    /// The simulator's scheduling seed (`geSimConfigure("seed=...")`).
    pub sim_seed: u64,
    /// The simulator's scheduling mode (`uniform`, `delay-stream:N`, `reverse`,
    /// `max-overlap`); `None`: its default.
    pub schedule_mode: Option<String>,
    /// Run op types without a kernel through the opaque stand-in.
    pub opaque_kernels: bool,
    /// Seed of the values nobody supplied: inputs and variables (tensor.rs).
    pub seed: u64,
    /// Per rank, the model inputs by index (`inputs[r][k]` is input `k` of rank `r`);
    /// missing ones (a shorter list, or a missing rank) are seeded as tensor.rs says.
    pub inputs: Vec<Vec<HostTensor>>,
    /// `aclrtSynchronizeStreamWithTimeout` bound of one run.
    pub sync_timeout_ms: i32,
    /// Ask the simulator to record a trace ([`SimReport::chrome_trace`]).
    pub trace: bool,
    /// More `key=value` simulator settings (device limits: `max_streams`, `max_events`,
    /// `max_notifies`, `memory_bytes`, `max_tasks_per_stream`, ...), passed as given.
    pub sim_config: Vec<String>,
    /// `--memory`: the static plan's workspace (default) or run-time allocation per
    /// tensor ([`dynamic`]).
    pub memory: MemoryMode,
    /// `--mutate-host`: an ordering of the host kernels' placement copies removed on
    /// purpose (dynamic mode; the race detector must catch it).
    pub host_mutation: HostMutation,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            device: Device::Sim,
            acl_lib_dir: None,
            iterations: 1,
            ranks: 1,
            sim_seed: 0,
            schedule_mode: None,
            opaque_kernels: false,
            seed: 0,
            inputs: Vec::new(),
            sync_timeout_ms: 60_000,
            trace: false,
            sim_config: Vec::new(),
            memory: MemoryMode::Static,
            host_mutation: HostMutation::None,
        }
    }
}

impl RunOptions {
    /// The `geSimConfigure` string of these options. Every run resets the simulator and
    /// sends the whole configuration, so a run never inherits settings of an earlier one.
    pub fn sim_config_string(&self) -> String {
        // reset=1: the simulator drops every object of an earlier run and takes its
        // defaults before the keys below.
        let mut parts = vec![
            "reset=1".to_owned(),
            "clear_report=1".to_owned(),
            format!("seed={}", self.sim_seed),
        ];
        if self.ranks > 8 {
            parts.push(format!("device_count={}", self.ranks));
        }
        if let Some(mode) = &self.schedule_mode {
            parts.push(format!("mode={mode}"));
        }
        parts.push(format!("opaque_kernels={}", u8::from(self.opaque_kernels)));
        parts.push(format!("trace={}", u8::from(self.trace)));
        parts.extend(self.sim_config.iter().cloned());
        parts.join(";")
    }
}

/// What one rank produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RankResult {
    /// The model outputs of the last run, by position in `TaskModel::outputs`.
    pub outputs: Vec<HostTensor>,
    /// Every variable after the last run, by name.
    pub variables: Vec<(String, HostTensor)>,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub ranks: Vec<RankResult>,
    /// The simulator's report of the last run; `None` on a real device.
    pub report: Option<SimReport>,
    /// Per rank, what dynamic memory mode did (empty in static mode).
    pub memory: Vec<DynamicMemoryReport>,
}

/// Model input `position` (of a model's `inputs`) of rank `rank` when nobody supplied it
/// (tensor.rs).
pub fn seeded_input(inputs: &[Input], position: usize, seed: u64, rank: u32) -> HostTensor {
    let input = &inputs[position];
    HostTensor {
        desc: input.desc.clone(),
        bytes: ascend_kernels::seeded_fill(
            seed.wrapping_add(u64::from(rank)),
            &input_seed_name(&input.node),
            input.desc.dtype,
            &input.desc.dims,
        ),
    }
}

/// Every rank's inputs: the supplied ones, checked against the model, and seeded ones.
fn rank_inputs(
    model: &TaskModel,
    options: &RunOptions,
) -> Result<Vec<Vec<HostTensor>>, RuntimeError> {
    if options.inputs.len() > options.ranks as usize {
        return Err(RuntimeError::Input(format!(
            "inputs for {} ranks, but the run has {}",
            options.inputs.len(),
            options.ranks
        )));
    }
    (0..options.ranks)
        .map(|rank| {
            let given = options
                .inputs
                .get(rank as usize)
                .map_or(&[][..], Vec::as_slice);
            if given.len() > model.inputs.len() {
                return Err(RuntimeError::Input(format!(
                    "{} inputs given for rank {rank}, but the model has {}",
                    given.len(),
                    model.inputs.len()
                )));
            }
            (0..model.inputs.len())
                .map(|position| match given.get(position) {
                    Some(tensor) => {
                        check_input(&model.inputs, position, tensor).map(|()| tensor.clone())
                    }
                    None => Ok(seeded_input(&model.inputs, position, options.seed, rank)),
                })
                .collect()
        })
        .collect()
}

/// A supplied input must have the model input's element type, shape and byte count.
pub fn check_input(
    inputs: &[Input],
    position: usize,
    tensor: &HostTensor,
) -> Result<(), RuntimeError> {
    let input = &inputs[position];
    let want = &input.desc;
    if tensor.desc.dtype != want.dtype || tensor.desc.dims != want.dims {
        return Err(RuntimeError::Input(format!(
            "input {} (`{}`) is {} {:?}, but the model takes {} {:?}",
            input.index,
            input.node,
            tensor.desc.dtype.mlir(),
            tensor.desc.dims,
            want.dtype.mlir(),
            want.dims
        )));
    }
    if tensor.bytes.len() as u64 != want.bytes() {
        return Err(RuntimeError::Input(format!(
            "input {} (`{}`) has {} bytes, but {} {:?} is {} bytes",
            input.index,
            input.node,
            tensor.bytes.len(),
            want.dtype.mlir(),
            want.dims,
            want.bytes()
        )));
    }
    Ok(())
}

fn has_collectives(model: &TaskModel) -> bool {
    model
        .streams
        .iter()
        .flat_map(|stream| &stream.tasks)
        .any(|task| matches!(task, Task::Hccl { .. }))
}

/// Loads and runs `model` as `options` say.
pub fn run_model(model: &TaskModel, options: &RunOptions) -> Result<RunResult, RuntimeError> {
    run_model_with(model, options, &mut |_| {})
}

/// [`run_model`], calling `on_iteration(k)` after run `k` completes (a progress bar).
pub fn run_model_with(
    model: &TaskModel,
    options: &RunOptions,
    on_iteration: &mut dyn FnMut(u32),
) -> Result<RunResult, RuntimeError> {
    if options.memory == MemoryMode::Dynamic {
        return dynamic::run_model_with(model, options, on_iteration);
    }
    if options.iterations == 0 || options.ranks == 0 {
        return Err(RuntimeError::Input(
            "iterations and ranks must be at least 1".to_owned(),
        ));
    }
    let inputs = rank_inputs(model, options)?;
    let runtime = device::open(options.device, options.acl_lib_dir.as_deref())?;
    let _session = runtime.session();
    let acl = &runtime.acl;
    acl.sim_configure(&options.sim_config_string())?;
    let hccl = if has_collectives(model) {
        Some(runtime.hccl()?)
    } else {
        None
    };
    for rank in 0..options.ranks {
        acl.set_device(rank as i32)?;
    }
    let comms = match &hccl {
        Some(hccl) => hccl.init_all(options.ranks)?,
        None => Vec::new(),
    };
    let mut loaded: Vec<RankModel> = Vec::new();
    let result = (|| {
        for rank in 0..options.ranks {
            acl.set_device(rank as i32)?;
            let cx = LoadContext {
                acl,
                hccl: hccl.as_ref().zip(comms.get(rank as usize)),
                rank,
                seed: options.seed,
            };
            let rank_model =
                RankModel::load(model, &cx).map_err(|e| rank_context(e, rank, options))?;
            loaded.push(rank_model);
        }
        let mut outputs = vec![Vec::new(); options.ranks as usize];
        for iteration in 0..options.iterations {
            let run_context = |error: RuntimeError, rank: u32| {
                error.at(|| {
                    let run = format!("run {} of model `{}`", iteration + 1, model.name);
                    if options.ranks > 1 {
                        format!("rank {rank}, {run}")
                    } else {
                        run
                    }
                })
            };
            for rank_model in &loaded {
                acl.set_device(rank_model.rank as i32)?;
                rank_model
                    .start(model, &inputs[rank_model.rank as usize])
                    .map_err(|e| run_context(e, rank_model.rank))?;
            }
            for rank_model in &loaded {
                acl.set_device(rank_model.rank as i32)?;
                rank_model
                    .synchronize(options.sync_timeout_ms)
                    .map_err(|e| run_context(e, rank_model.rank))?;
                outputs[rank_model.rank as usize] = rank_model.read_outputs(model)?;
            }
            on_iteration(iteration);
        }
        let mut ranks = Vec::new();
        for (rank_model, outputs) in loaded.iter().zip(outputs) {
            acl.set_device(rank_model.rank as i32)?;
            ranks.push(RankResult {
                outputs,
                variables: rank_model.read_variables(model)?,
            });
        }
        let report = acl
            .sim_report()
            .map(|text| SimReport::parse(&text))
            .transpose()?;
        Ok(RunResult {
            ranks,
            report,
            memory: Vec::new(),
        })
    })();
    // Release every rank on its own device, then drop the communicators and reset the
    // devices so the next run starts clean; on an error path the first error stands.
    let mut release = Ok(());
    for rank_model in loaded {
        let rank = rank_model.rank;
        let outcome = acl
            .set_device(rank as i32)
            .and_then(|()| rank_model.release());
        if release.is_ok() {
            release = outcome;
        }
    }
    drop(comms);
    for rank in 0..options.ranks {
        let outcome = acl.reset_device(rank as i32);
        if release.is_ok() {
            release = outcome;
        }
    }
    let result = result?;
    release?;
    Ok(result)
}

fn rank_context(error: RuntimeError, rank: u32, options: &RunOptions) -> RuntimeError {
    if options.ranks > 1 {
        error.at(|| format!("rank {rank}"))
    } else {
        error
    }
}

/// `--schedules K`: `K` fresh loads and runs, schedule `k` with simulator seed
/// `options.sim_seed + k`. Stops at the first failure, naming the schedule.
pub fn run_schedules(
    model: &TaskModel,
    options: &RunOptions,
    schedules: u32,
    on_run: &mut dyn FnMut(u32, u32),
) -> Result<Vec<RunResult>, (u32, RuntimeError)> {
    (0..schedules.max(1))
        .map(|k| {
            let options = RunOptions {
                sim_seed: options.sim_seed.wrapping_add(u64::from(k)),
                ..options.clone()
            };
            run_model_with(model, &options, &mut |iteration| on_run(k, iteration))
                .map_err(|error| (k, error))
        })
        .collect()
}
