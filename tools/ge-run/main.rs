//! `ge-run`: compile, lower and run a model on a device (the bundled simulator by
//! default), with `mlir-opt`-like habits: one input file, errors as
//! `ge-run: error: ...` with their location, exit status 1, never a panic.
//!
//! The work is in `ge_mlir::runtime::executor` (load and run a `TaskModel` through ACL)
//! and, for `--check`, `ge_mlir::runtime::reference` (the graph as written, op by op).
//! This file turns the command line into `RunOptions`, reads `--input` files, prints the
//! summary and writes `--output-dir` / `--trace`.

mod compile;
mod execute_graph;
mod multi;
mod npy;
mod races;
mod zero_copy;

use clap::{Parser, ValueEnum};
use compile::{InputKind, Session, Source};
use ge_mlir::{
    lowering::model::{Input, TaskModel},
    runtime::{
        compare::compare_bitwise,
        device::Device,
        executor::{
            check_input, run_model_with, seeded_input, task_kind, HostMutation, MemoryMode,
            RunOptions, RunResult, SimReport,
        },
        reference::{run_reference, ReferenceOptions},
        tensor::HostTensor,
    },
};
use indicatif::{ProgressBar, ProgressStyle};
use std::{
    collections::BTreeMap,
    io::IsTerminal,
    path::{Path, PathBuf},
    process::ExitCode,
};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DeviceArg {
    /// The bundled simulator (libascendcl.so next to ge-run, or $GE_SIM_LIB_DIR)
    Sim,
    /// An Ascend NPU through the system CANN (--acl-lib, $ASCEND_HOME_PATH/lib64, ...)
    Ascend,
}

/// Run a model on an Ascend device or the bundled simulator.
#[derive(Debug, Parser)]
#[command(name = "ge-run", version)]
struct Cli {
    /// A lowered model (`ascend_task` MLIR), or a graph (`.ge`, or `ascend` MLIR,
    /// compiled or not) that is first compiled (--ge-compile) and lowered (--lower-to-tasks)
    input: String,

    /// Options of --ge-compile for a graph input, as `ge-opt --ge-compile=<options>`
    #[arg(long, value_name = "OPTIONS")]
    pipeline_options: Option<String>,

    /// A model input from a .npy file (or an ONNX TensorProto `.pb`): `NAME=FILE` or
    /// `INDEX=FILE` (every rank), or
    /// `NAME@RANK=FILE` (one rank). Inputs not given are seeded (--seed)
    #[arg(long = "input", value_name = "NAME_OR_INDEX=FILE")]
    inputs: Vec<String>,

    /// Seed of the inputs and variables nobody supplied
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// Write every output of the last run (per rank, per schedule) as .npy here
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,

    /// Runs of the loaded model (variables stay on the device)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,

    /// Seed of the simulator's scheduler (schedule k uses S + k)
    #[arg(long, default_value_t = 0, value_name = "S")]
    sim_seed: u64,

    /// Fresh load and run per schedule, each with its own scheduler seed
    #[arg(long, default_value_t = 1, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    schedules: u32,

    /// The simulator's scheduling mode: uniform, reverse, max-overlap, delay-stream:N
    #[arg(long, value_name = "MODE")]
    schedule_mode: Option<String>,

    /// Devices, one rank each (collectives across them)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    ranks: u32,

    /// Where to run
    #[arg(long, value_enum, default_value = "sim")]
    device: DeviceArg,

    /// The directory of libascendcl.so (--device ascend; the only one tried when given)
    #[arg(long, value_name = "DIR")]
    acl_lib: Option<PathBuf>,

    /// Run op types without a kernel through a deterministic stand-in (not a computation)
    #[arg(long)]
    opaque_kernels: bool,

    /// Compare every output and variable bit for bit with the reference interpreter
    #[arg(long)]
    check: bool,

    /// Write the simulator's trace of the last schedule as Chrome trace JSON (a track per
    /// stream, flow arrows from event records to waits, a live workspace bytes counter)
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,

    /// After each schedule: makespan, critical-path lower bound, work/streams bound,
    /// makespan on one stream, speed-up, utilisation per stream and peak live workspace
    /// bytes against the plan's memory_size (simulator only)
    #[arg(long)]
    report: bool,

    /// The simulator's race detector: on by default under --check, `off` turns it off
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"])]
    race_check: Option<String>,

    /// Write the last schedule's timeline as an SVG picture (a row per stream, a box per
    /// task, event arrows)
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,

    /// More simulator settings, `key=value` (device limits such as max_streams=4)
    #[arg(long = "sim-config", value_name = "KEY=VALUE")]
    sim_config: Vec<String>,

    /// Where tensors live: `static` (the compiled plan's workspace) or `dynamic`
    /// (allocated per tensor at run time by GE's multi-stream allocators)
    #[arg(long, value_name = "static|dynamic", default_value = "static")]
    memory: MemoryMode,

    /// Tests only: remove one ordering of the host kernels' placement copies
    /// (--memory=dynamic): `free-at-issue` frees a pinned output as its H2D copy is issued
    /// (no FreeMemory guarder), `no-sync` reads device inputs without a SyncStream,
    /// `skip-h2d` copies no host output to the device (not even one a device task reads),
    /// `p2p-free-early` frees P2P memory without waiting for the streams that used it
    #[arg(
        long,
        value_name = "none|free-at-issue|no-sync|skip-h2d|p2p-free-early",
        default_value = "none"
    )]
    mutate_host: HostMutation,

    /// Bound of one run's synchronisation, in milliseconds
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    sync_timeout_ms: i32,

    /// More models for the same process, loaded after INPUT in turn (streams from one pool)
    #[arg(long, value_name = "FILE", num_args = 1..)]
    models: Vec<String>,

    /// Rounds of loading and running INPUT and --models (one process, one stream pool)
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    loads: u32,

    /// With --models / --loads: reuse pool streams across loads (on) or create a stream per
    /// request as GE's HEAD does (off)
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"], default_value = "on")]
    stream_reuse: String,

    /// Run on IO buffers bound to the model (zero copy) with GE's CheckIoReuseAddrs before
    /// each execution: `shared` gives an output that reuses an input that input's buffer,
    /// `separate` every output its own (refused when the model has such pairs)
    #[arg(long, value_name = "shared|separate", value_parser = ["shared", "separate"])]
    zero_copy: Option<String>,

    /// Run GE's runtime v2 execute graph instead of the task lists: the compiled graph
    /// through --lower-to-rt, --rt-chain-conflict, --rt-subgraph-guarders and
    /// --rt-placement-copies, executed on the host with gert's reference counts, guarders
    /// and placements (a use after release, a leak or a tensor at the wrong placement is an
    /// error at the node); --check compares the outputs with the reference
    #[arg(long)]
    execute_graph: bool,

    /// Tests only, with --execute-graph: leave out one of the execute graph's passes, to
    /// see what the run catches without it
    #[arg(long = "rt-skip", value_name = "PASS")]
    rt_skip: Vec<execute_graph::RtSkip>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if error.use_stderr() => {
            // clap's own `error: ...`, under the tool's name like every other error.
            eprint!("ge-run: {}", error.render());
            return ExitCode::FAILURE;
        }
        Err(help) => {
            let _ = help.print(); // --help, --version
            return ExitCode::SUCCESS;
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ge-run: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let source = Source::read(&cli.input)?;
    if cli.check && source.kind == InputKind::Lowered {
        return Err(format!(
            "--check needs the graph (a .ge file or an ascend module), but `{}` is a lowered \
             model",
            cli.input
        ));
    }
    if !cli.sim_config.is_empty() && matches!(cli.device, DeviceArg::Ascend) {
        return Err(
            "--sim-config configures the simulator; it has no meaning with --device ascend"
                .to_owned(),
        );
    }
    let race_check = matches!(cli.device, DeviceArg::Sim)
        && cli.race_check.as_deref().map_or(cli.check, |v| v == "on");
    if cli.mutate_host != HostMutation::None && cli.memory != MemoryMode::Dynamic {
        return Err(
            "--mutate-host changes the host kernels of --memory=dynamic (the static plan runs \
             every kernel on the device)"
                .to_owned(),
        );
    }
    if cli.execute_graph {
        return execute_graph::run(cli, &source);
    }
    if !cli.rt_skip.is_empty() {
        return Err("--rt-skip leaves out a pass of --execute-graph; give both".to_owned());
    }
    if !cli.models.is_empty() || cli.loads > 1 {
        return run_several(cli);
    }
    let session = Session::new();
    let model = session.task_model(&source, cli.pipeline_options.as_deref())?;
    let inputs = read_inputs(cli, &model.inputs)?;
    let mut options = base_options(cli);
    options.inputs = inputs.clone();
    options.trace = cli.trace.is_some() || cli.report || cli.timeline.is_some();
    if race_check {
        options.sim_config.push("race=1".to_owned());
    }
    options.memory = cli.memory;
    println!("{}", model_summary(&model));
    if let Some(plan) = &cli.zero_copy {
        return zero_copy::run_zero_copy(&model, &options, plan);
    }
    let reference = if cli.check {
        Some(reference(&session, &source, cli, inputs)?)
    } else {
        None
    };
    let progress = progress_bar(u64::from(cli.schedules) * u64::from(cli.iterations));
    let mut last_report = None;
    let mut races = races::RaceLog::new(&session.lint_pairs());
    for k in 0..cli.schedules {
        let options = RunOptions {
            sim_seed: cli.sim_seed.wrapping_add(u64::from(k)),
            schedule_mode: cli
                .schedule_mode
                .clone()
                .or_else(|| cycled_mode(k, cli.schedules, model.stream_num)),
            ..options.clone()
        };
        let result =
            run_model_with(&model, &options, &mut |_| progress.inc(1)).map_err(|error| {
                progress.abandon();
                if cli.schedules > 1 {
                    format!("schedule {k} (sim seed {}): {error}", options.sim_seed)
                } else {
                    error.to_string()
                }
            })?;
        progress.suspend(|| -> Result<(), String> {
            let mode_note = match (&cli.schedule_mode, options.schedule_mode.as_deref()) {
                (None, Some(mode)) if mode != "uniform" => format!(", {mode}"),
                _ => String::new(),
            };
            println!(
                "{}",
                schedule_summary(k, &options, &mode_note, &model, &result)
            );
            for memory in &result.memory {
                println!("schedule {k}: {memory}");
            }
            if let Some(dir) = &cli.output_dir {
                write_outputs(dir, k, cli, &model, &result)?;
            }
            let (mut compiler_race, mut graph_race) = (false, false);
            if let Some(report) = &result.report {
                (compiler_race, graph_race) = races.add(k, &options, report, &model);
                if cli.report {
                    print_timeline(k, &model, report);
                }
            }
            if let Some(reference) = &reference {
                match check(k, &model, &result, reference) {
                    Ok(()) => println!(
                        "schedule {k}: outputs and variables match the reference bit for bit"
                    ),
                    // The graph's own races make its results depend on the order: a
                    // difference then is the graph's, not the compiler's.
                    Err(e) if graph_race && !compiler_race => println!(
                        "schedule {k}: {} (the graph's own races allow it; not an error)",
                        e.trim_start_matches(&format!("--check: schedule {k} "))
                    ),
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        })?;
        last_report = result.report;
    }
    progress.finish_and_clear();
    if race_check {
        if !races.compiler.is_empty() {
            return Err(format!(
                "race check: the race detector found {} distinct race(s) in {} schedule(s) (listed above)",
                races.compiler.len(),
                cli.schedules
            ));
        }
        if races.graph.is_empty() {
            println!("race check: no races in {} schedule(s)", cli.schedules);
        } else {
            println!(
                "race check: {} race(s) the graph itself leaves open (GraphLint W18888), none introduced by the compiler, in {} schedule(s)",
                races.graph.len(),
                cli.schedules
            );
        }
    }
    if let Some(path) = &cli.timeline {
        let picture = last_report
            .as_ref()
            .and_then(SimReport::timeline_svg)
            .ok_or_else(|| {
                "--timeline: the device gave no trace (only the simulator records one)".to_owned()
            })?;
        std::fs::write(path, picture)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    if let Some(path) = &cli.trace {
        let trace = last_report
            .as_ref()
            .and_then(|r| r.chrome_trace_for(&model))
            .ok_or_else(|| {
                "--trace: the device gave no trace (only the simulator records one)".to_owned()
            })?;
        std::fs::write(path, trace)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}

/// The run options every mode shares, from the command line: no inputs, no trace, no race
/// detector, the static memory plan. Each mode adds what it needs.
fn base_options(cli: &Cli) -> RunOptions {
    RunOptions {
        device: match cli.device {
            DeviceArg::Sim => Device::Sim,
            DeviceArg::Ascend => Device::Ascend,
        },
        acl_lib_dir: cli.acl_lib.clone(),
        iterations: cli.iterations,
        ranks: cli.ranks,
        sim_seed: cli.sim_seed,
        schedule_mode: cli.schedule_mode.clone(),
        opaque_kernels: cli.opaque_kernels,
        seed: cli.seed,
        inputs: Vec::new(),
        sync_timeout_ms: cli.sync_timeout_ms,
        trace: false,
        sim_config: cli.sim_config.clone(),
        memory: MemoryMode::Static,
        host_mutation: cli.mutate_host,
    }
}

/// `--models` / `--loads`: several models in one process (multi.rs).
fn run_several(cli: &Cli) -> Result<(), String> {
    if cli.check
        || cli.report
        || cli.trace.is_some()
        || cli.output_dir.is_some()
        || !cli.inputs.is_empty()
    {
        return Err(
            "--models / --loads run several models for their streams (inputs seeded); \
             --check, --report, --trace, --output-dir and --input take one model"
                .to_owned(),
        );
    }
    if cli.memory != MemoryMode::Static {
        return Err(
            "--models / --loads run the static memory plan; --memory=dynamic takes one model"
                .to_owned(),
        );
    }
    let mut paths = vec![cli.input.as_str()];
    paths.extend(cli.models.iter().map(String::as_str));
    let options = base_options(cli);
    multi::run_multi(
        &paths,
        cli.pipeline_options.as_deref(),
        &options,
        cli.loads,
        cli.stream_reuse == "on",
    )
}

/// `--report`: the bounds of schedule `k`'s timeline and each model stream's utilisation.
fn print_timeline(k: u32, model: &TaskModel, report: &SimReport) {
    let Some(t) = report.timeline() else {
        println!("schedule {k}: report: the simulator gave no trace");
        return;
    };
    let speedup = if t.makespan > 0.0 {
        t.one_stream / t.makespan
    } else {
        1.0
    };
    println!(
        "schedule {k}: report: makespan {}; critical-path lower bound {}; work/streams bound {}; one stream {} (speed-up {speedup:.2}x)",
        micros(t.makespan),
        micros(t.critical_path),
        micros(t.work_over_streams),
        micros(t.one_stream)
    );
    let util: Vec<String> = report
        .streams
        .iter()
        .filter_map(|s| {
            let (d, n) = (s.device?, s.stream.filter(|&n| n < model.stream_num)?);
            let u = if t.makespan > 0.0 {
                100.0 * s.busy / t.makespan
            } else {
                0.0
            };
            Some(format!("r{d}.s{n} {u:.0}%"))
        })
        .collect();
    println!("schedule {k}: report: utilisation: {}", util.join(", "));
    for live in report.live_workspace(model) {
        let share = if model.memory_size > 0 {
            100.0 * live.peak as f64 / model.memory_size as f64
        } else {
            0.0
        };
        println!(
            "schedule {k}: report: device {}: peak live workspace {} B of the plan's memory_size {} B ({share:.0}%)",
            live.device, live.peak, model.memory_size
        );
    }
}

/// `--schedules K` without `--schedule-mode`: schedule 0 is the default (uniform jitter);
/// the others cycle through reverse, one delayed stream (a different one each round) and
/// maximum overlap, so K schedules cover every mode with different seeds.
fn cycled_mode(k: u32, schedules: u32, streams: u32) -> Option<String> {
    if schedules <= 1 {
        return None;
    }
    Some(match k % 4 {
        0 => "uniform".to_owned(),
        1 => "reverse".to_owned(),
        2 => format!("delay-stream:{}", (k / 4) % streams.max(1)),
        _ => "max-overlap".to_owned(),
    })
}

/// A bar on stderr for long runs; hidden when stderr is not a terminal or the run is short.
fn progress_bar(total: u64) -> ProgressBar {
    if total < 20 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed}") {
        bar.set_style(style);
    }
    bar
}

/// Every `--input`, read and checked against the model, by rank; the missing ones in
/// between are the seeded ones.
pub(crate) fn read_inputs(
    cli: &Cli,
    model_inputs: &[Input],
) -> Result<Vec<Vec<HostTensor>>, String> {
    let mut given: BTreeMap<(Option<u32>, usize), HostTensor> = BTreeMap::new();
    for spec in &cli.inputs {
        let bad = |why: &str| format!("--input `{spec}`: {why}");
        let (target, file) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected NAME_OR_INDEX=FILE"))?;
        let (name, rank) = match target.split_once('@') {
            Some((name, rank)) => {
                let rank: u32 = rank
                    .parse()
                    .map_err(|_| bad("the rank after `@` is not a number"))?;
                if rank >= cli.ranks {
                    return Err(bad(&format!(
                        "rank {rank}, but the run has {} ranks",
                        cli.ranks
                    )));
                }
                (name, Some(rank))
            }
            None => (target, None),
        };
        if name.is_empty() || file.is_empty() {
            return Err(bad("expected NAME_OR_INDEX=FILE"));
        }
        let position = model_inputs
            .iter()
            .position(|input| {
                name.parse::<u32>().is_ok_and(|index| index == input.index) || input.node == name
            })
            .ok_or_else(|| {
                let known: Vec<String> = model_inputs
                    .iter()
                    .map(|i| format!("{} `{}`", i.index, i.node))
                    .collect();
                bad(&format!(
                    "the model has no input `{name}` (inputs: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ))
            })?;
        // ONNX's test data is TensorProto files (`input_0.pb`); everything else is `.npy`.
        let tensor = if file.ends_with(".pb") {
            ge_mlir::onnx::read_tensor_proto(file)
        } else {
            npy::read(file)
        }
        .map_err(|e| bad(&e))?;
        check_input(model_inputs, position, &tensor).map_err(|e| bad(&e.to_string()))?;
        given.insert((rank, position), tensor);
    }
    if given.is_empty() {
        return Ok(Vec::new());
    }
    Ok((0..cli.ranks)
        .map(|rank| {
            (0..model_inputs.len())
                .map(|position| {
                    given
                        .get(&(Some(rank), position))
                        .or_else(|| given.get(&(None, position)))
                        .cloned()
                        .unwrap_or_else(|| seeded_input(model_inputs, position, cli.seed, rank))
                })
                .collect()
        })
        .collect())
}

fn model_summary(model: &TaskModel) -> String {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for task in model.streams.iter().flat_map(|s| &s.tasks) {
        *kinds.entry(task_kind(task)).or_default() += 1;
    }
    let total: usize = kinds.values().sum();
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    format!(
        "model `{}`: {} streams, {} tasks ({}), {} events, {} notifies, {} labels, \
         workspace {} B, weights {} B, variables {} B",
        model.name,
        model.stream_num,
        total,
        kinds.join(", "),
        model.event_num,
        model.notify_num,
        model.label_num,
        model.memory_size,
        model.weight_size,
        model.var_size
    )
}

fn micros(ns: f64) -> String {
    format!("{:.3} us", ns / 1000.0)
}

/// `mode_note`: `, <mode>` for a mode `--schedules` chose, else empty.
fn schedule_summary(
    k: u32,
    options: &RunOptions,
    mode_note: &str,
    model: &TaskModel,
    result: &RunResult,
) -> String {
    let Some(report) = &result.report else {
        return format!("schedule {k}: ran on the device (no simulated timing)");
    };
    let busy: Vec<String> = report
        .streams
        .iter()
        .filter_map(|s| {
            // The execute stream (created after the model's) only waits for the model.
            let (device, stream) = (s.device?, s.stream.filter(|&n| n < model.stream_num)?);
            let name = format!("s{stream}");
            let name = if options.ranks > 1 {
                format!("r{device}.{name}")
            } else {
                name
            };
            Some(format!("{name} {}", micros(s.busy)))
        })
        .collect();
    let tasks: Vec<String> = report
        .tasks_by_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let mut line = format!(
        "schedule {k} (sim seed {}{}): makespan {}; busy: {}; tasks run: {}",
        options.sim_seed,
        mode_note,
        micros(report.makespan),
        busy.join(", "),
        tasks.join(", ")
    );
    // The simulator's own count of P2P memory (aclrtMalloc policies 3-5).
    let p2p = &report.raw["p2p_memory"];
    if let Some(mallocs) = p2p["mallocs"].as_u64().filter(|&n| n > 0) {
        line += &format!(
            "; P2P memory: {mallocs} aclrtMalloc, peak {} B, {} B live",
            p2p["peak_bytes"].as_u64().unwrap_or(0),
            p2p["live_bytes"].as_u64().unwrap_or(0)
        );
    }
    if options.opaque_kernels {
        line += &format!(
            " [opaque kernels used: {} launches; values are stand-ins, not computations]",
            report.opaque_uses
        );
    }
    line
}

/// `output<index>_<source>.npy` (rank and schedule suffixes when there are several).
fn write_outputs(
    dir: &Path,
    k: u32,
    cli: &Cli,
    model: &TaskModel,
    result: &RunResult,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    for (rank, rank_result) in result.ranks.iter().enumerate() {
        for (output, tensor) in model.outputs.iter().zip(&rank_result.outputs) {
            let source: String = output
                .source
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut name = format!("output{}_{source}", output.index);
            if cli.ranks > 1 {
                name += &format!(".rank{rank}");
            }
            if cli.schedules > 1 {
                name += &format!(".schedule{k}");
            }
            let path = dir.join(format!("{name}.npy"));
            npy::write(&path, tensor)?;
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// The reference interpreter's results on the graph as written, per rank.
fn reference(
    session: &Session,
    source: &Source,
    cli: &Cli,
    inputs: Vec<Vec<HostTensor>>,
) -> Result<Vec<ge_mlir::runtime::reference::ReferenceResult>, String> {
    let module = session.parse(source)?;
    let options = ReferenceOptions {
        inputs,
        seed: cli.seed,
        iterations: cli.iterations,
        ranks: cli.ranks,
        opaque_kernels: cli.opaque_kernels,
        ..ReferenceOptions::default()
    };
    run_reference(&module, &options).map_err(|error| format!("--check: {error}"))
}

fn check(
    k: u32,
    model: &TaskModel,
    result: &RunResult,
    reference: &[ge_mlir::runtime::reference::ReferenceResult],
) -> Result<(), String> {
    let mut mismatches = Vec::new();
    for (rank, (run, expected)) in result.ranks.iter().zip(reference).enumerate() {
        let at = if result.ranks.len() > 1 {
            format!("rank {rank}, ")
        } else {
            String::new()
        };
        for (output, actual) in model.outputs.iter().zip(&run.outputs) {
            let what = format!("{at}output {} ({})", output.index, output.source);
            match expected.outputs.get(output.index as usize) {
                Some(expected) => {
                    if let Err(mismatch) = compare_bitwise(&what, expected, actual) {
                        mismatches.push(mismatch.to_string());
                    }
                }
                None => mismatches.push(format!("{what}: the reference has no such output")),
            }
        }
        for (name, actual) in &run.variables {
            let what = format!("{at}variable {name}");
            match expected.variables.iter().find(|(n, _)| n == name) {
                Some((_, expected)) => {
                    if let Err(mismatch) = compare_bitwise(&what, expected, actual) {
                        mismatches.push(mismatch.to_string());
                    }
                }
                None => mismatches.push(format!("{what}: the reference has no such variable")),
            }
        }
    }
    if mismatches.is_empty() {
        return Ok(());
    }
    Err(format!(
        "--check: schedule {k} differs from the reference:\n  {}",
        mismatches.join("\n  ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
