//! Dynamic memory mode end to end: every `ge-gen` family at about 1k ops (control flow
//! included: If, PartitionedCall and While followed on the host), compiled with
//! GE's defaults and with a task limit that splits it into 10–20 streams (the MIF masks
//! bound a run to 64), lowered, runs under several seeded schedules with the race detector on, in both memory
//! modes; the outputs and variables are bit-identical between the modes (and the static
//! run matches the reference interpreter), the detector finds nothing in either, and the
//! dynamic allocators recycle every block.
//!
//! Needs the simulator library (`cargo build -p ascend-sim`).

use ge_mlir::{
    lowering::{lower_module, model::TaskModel},
    pipeline::{PassStatistics, Pipeline},
    runtime::{
        compare::check_run,
        executor::{
            run_model, DynamicMemoryReport, HostMutation, MemoryMode, RunOptions, RunResult,
        },
        reference::{run_reference, ReferenceOptions},
    },
};

const SCHEDULES: u32 = 3;
const MODES: [&str; 4] = ["uniform", "reverse", "max-overlap", "delay-stream:1"];

fn sim_built() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/debug");
    assert!(
        dir.join("libascendcl.so").exists() || std::env::var_os("GE_SIM_LIB_DIR").is_some(),
        "the simulator is not built: run `cargo build -p ascend-sim` first"
    );
}

fn generated(family: &str, ops: u32) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ge-gen"))
        .args(["--family", family, "--ops", &ops.to_string(), "--seed", "1"])
        .output()
        .expect("ge-gen runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// ResNet at one 32x32 image (as tests/e2e.rs shrinks it).
fn shrink_resnet(mlir: &str) -> String {
    let spatial = |d: i64| match d {
        224 => 32,
        56 => 8,
        28 => 4,
        14 => 2,
        7 => 1,
        other => other,
    };
    let mut out = String::with_capacity(mlir.len());
    let mut rest = mlir;
    while let Some(at) = rest.find("tensor<") {
        let (head, tail) = rest.split_at(at + "tensor<".len());
        out.push_str(head);
        let end = tail.find('>').unwrap_or(tail.len());
        let (ty, after) = tail.split_at(end);
        let mut parts: Vec<String> = ty.split('x').map(str::to_owned).collect();
        let dims: Vec<i64> = parts[..parts.len() - 1]
            .iter()
            .map_while(|p| p.parse().ok())
            .collect();
        if dims.len() == parts.len() - 1 && dims.first() == Some(&8) {
            parts[0] = "1".into();
            if dims.len() == 4 && dims[2] == dims[3] {
                parts[2] = spatial(dims[2]).to_string();
                parts[3] = spatial(dims[3]).to_string();
            }
        }
        out.push_str(&parts.join("x"));
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Compiled with `options` and lowered; with the reference interpreter's result.
fn compile(
    text: &str,
    options: &str,
) -> (TaskModel, Vec<ge_mlir::runtime::reference::ReferenceResult>) {
    let context = ge_mlir::dialect::new_context();
    let mut module = melior::ir::Module::parse(&context, text).expect("ge-gen's MLIR parses");
    let reference = run_reference(
        &module,
        &ReferenceOptions {
            seed: 3,
            ..ReferenceOptions::default()
        },
    )
    .unwrap();
    let flag = if options.is_empty() {
        "ge-compile".to_owned()
    } else {
        format!("ge-compile={options}")
    };
    let manager = ge_mlir::ir::pass_manager::module_pass_manager(&context);
    Pipeline::from_flags(&[flag])
        .unwrap()
        .add_to(&manager, &PassStatistics::default())
        .unwrap();
    manager.run(&mut module).unwrap();
    let model = lower_module(&module)
        .unwrap_or_else(|e| panic!("lowering: {:?}", e.first().map(|e| &e.message)));
    (model, reference)
}

fn run(model: &TaskModel, memory: MemoryMode, schedule: u32) -> Result<RunResult, String> {
    run_mutated(model, memory, schedule, HostMutation::None)
}

fn run_mutated(
    model: &TaskModel,
    memory: MemoryMode,
    schedule: u32,
    host_mutation: HostMutation,
) -> Result<RunResult, String> {
    let options = RunOptions {
        host_mutation,
        seed: 3,
        sim_seed: u64::from(schedule),
        schedule_mode: Some(MODES[schedule as usize % MODES.len()].to_owned()),
        sim_config: vec!["race=1".to_owned()],
        memory,
        ..RunOptions::default()
    };
    let result = run_model(model, &options).map_err(|e| e.to_string())?;
    let report = result.report.as_ref().expect("the simulator reports");
    assert!(report.race_checked());
    let races = report.races();
    if !races.is_empty() {
        return Err(format!(
            "{} race(s), first: {}",
            races.len(),
            ge_mlir::runtime::executor::SimReport::describe_race(&races[0])
        ));
    }
    Ok(result)
}

/// Both modes under every schedule: race-free, the same bits, every block recycled.
/// Returns the dynamic memory report of schedule 0 per compile.
fn check_family(name: &str, text: &str, compiles: &[&str]) -> Vec<DynamicMemoryReport> {
    sim_built();
    let mut reports = Vec::new();
    for &options in compiles {
        let (model, reference) = compile(text, options);
        let what = format!(
            "{name} --ge-compile={options} ({} streams)",
            model.stream_num
        );
        for schedule in 0..SCHEDULES {
            let fixed = run(&model, MemoryMode::Static, schedule)
                .unwrap_or_else(|e| panic!("{what}: static, schedule {schedule}: {e}"));
            assert!(
                check_run(&reference, &fixed).is_empty(),
                "{what}: static schedule {schedule} vs the reference"
            );
            let dynamic = run(&model, MemoryMode::Dynamic, schedule)
                .unwrap_or_else(|e| panic!("{what}: dynamic, schedule {schedule}: {e}"));
            assert_eq!(
                dynamic.ranks, fixed.ranks,
                "{what}: dynamic schedule {schedule} differs from static"
            );
            let memory = &dynamic.memory[0];
            assert!(
                memory.allocations > 0 && memory.buffers > 0,
                "{what}: {memory}"
            );
            assert!(memory.peak_device_bytes > 0, "{what}: {memory}");
            if schedule == 0 {
                eprintln!("{what}: {memory}");
                reports.push(memory.clone());
            }
        }
    }
    reports
}

#[test]
fn wide_dag_runs_the_same_in_both_memory_modes() {
    check_family(
        "wide-dag",
        &generated("wide-dag", 1000),
        &["", "max-task-normal=100"],
    );
}

#[test]
fn transformer_runs_the_same_in_both_memory_modes() {
    check_family(
        "transformer",
        &generated("transformer", 1000),
        &["", "max-task-normal=100"],
    );
}

#[test]
fn resnet_runs_the_same_in_both_memory_modes() {
    let text = shrink_resnet(&generated("resnet", 1000));
    check_family("resnet", &text, &["", "max-task-normal=100"]);
}

/// More streams than a MIF mask has bits: refused before anything runs.
#[test]
fn more_than_64_streams_are_refused() {
    sim_built();
    let (model, _) = compile(&generated("wide-dag", 1000), "max-task-normal=6");
    assert!(model.stream_num > 64);
    let error = run(&model, MemoryMode::Dynamic, 0).unwrap_err();
    assert!(
        error.contains("run-time memory supports 1 to 64"),
        "{error}"
    );
}

/// If, PartitionedCall and While (with nested calls) lowered to labels and stream
/// activations: the host reads every switch index and follows the path, each branch's
/// and trip's tensors are allocated and freed as it runs, and the result is the static
/// run's and the reference's, bit for bit, race-free.
#[test]
fn control_flow_runs_the_same_in_both_memory_modes() {
    let reports = check_family(
        "control-flow",
        &generated("control-flow", 1000),
        // The split counts tasks as GE does (waits and resets, labels, activations), so at
        // 100 this graph needs over 64 streams, more than a MIF mask holds; 200 gives ~30.
        &["", "max-task-normal=200"],
    );
    for report in reports {
        assert!(report.decisions > 0, "{report}");
    }
}

/// `wide-dag` with every `every`-th kernel placed on the host (`_placement = "host"`).
fn host_placed_wide_dag(every: usize) -> String {
    let text = generated("wide-dag", 1000);
    let mut out = String::with_capacity(text.len());
    for (k, piece) in text.split("{name = \"dag/").enumerate() {
        if k > 0 {
            out.push_str(if k % every == 0 {
                "{_placement = \"host\", name = \"dag/"
            } else {
                "{name = \"dag/"
            });
        }
        out.push_str(piece);
    }
    out
}

/// Kernels placed on the host among ~1k ops on 10-20 streams: under --memory=dynamic
/// they are computed on the host with their placement copies (SyncStream + CopyD2H of
/// their inputs, CopyH2D of their outputs from pinned memory freed by a guarder), the
/// rest on the device; the same bits as the static run (every kernel on the device) and
/// the reference, race-free, under every schedule.
#[test]
fn host_placed_kernels_run_the_same_in_both_memory_modes() {
    let reports = check_family(
        "wide-dag (host-placed)",
        &host_placed_wide_dag(9),
        &["", "max-task-normal=100"],
    );
    for report in reports {
        let host = report.host;
        assert!(host.kernels > 50, "{report}");
        assert!(host.syncs > 0 && host.d2h_copies >= host.syncs, "{report}");
        assert_eq!(host.guarded_frees, host.h2d_copies, "{report}");
    }
}

/// The same model with the FreeMemory guarder removed (pinned outputs freed as their
/// H2D copies are issued): the race detector reports the free and the copies' reads.
#[test]
fn a_host_output_freed_before_its_copy_ran_is_caught() {
    sim_built();
    let (model, _) = compile(&host_placed_wide_dag(9), "max-task-normal=100");
    run(&model, MemoryMode::Dynamic, 0).expect("the unmutated model is race-free");
    for schedule in 0..SCHEDULES {
        let error = run_mutated(
            &model,
            MemoryMode::Dynamic,
            schedule,
            HostMutation::FreeAtIssue,
        )
        .expect_err("a free before the copy ran is a race");
        assert!(
            error.contains("free-while-in-use") || error.contains("use-after-free"),
            "schedule {schedule}: {error}"
        );
    }
}
