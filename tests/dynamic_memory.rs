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
    let module = melior::ir::Module::parse(&context, text).expect("ge-gen's MLIR parses");
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
    (lowered(&context, module, &[flag]), reference)
}

/// `module` through the passes of `flags`, lowered.
fn lowered(
    context: &melior::Context,
    mut module: melior::ir::Module,
    flags: &[String],
) -> TaskModel {
    let manager = ge_mlir::ir::pass_manager::module_pass_manager(context);
    Pipeline::from_flags(flags)
        .unwrap()
        .add_to(&manager, &PassStatistics::default())
        .unwrap();
    manager.run(&mut module).unwrap();
    lower_module(&module)
        .unwrap_or_else(|e| panic!("lowering: {:?}", e.first().map(|e| &e.message)))
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

/// `wide-dag` with every `every`-th kernel placed `p2p` and every `host_every`-th on the
/// host (host wins where both fall).
fn mixed_placed_wide_dag(every: usize, host_every: usize) -> String {
    let text = generated("wide-dag", 1000);
    let mut out = String::with_capacity(text.len());
    for (k, piece) in text.split("{name = \"dag/").enumerate() {
        if k > 0 {
            out.push_str(if k % host_every == 0 {
                "{_placement = \"host\", name = \"dag/"
            } else if k % every == 0 {
                "{_placement = \"p2p\", name = \"dag/"
            } else {
                "{name = \"dag/"
            });
        }
        out.push_str(piece);
    }
    out
}

/// P2P- and host-placed kernels among ~1k ops on 10-20 streams: P2P buffers, HBM <-> P2P
/// copies, host kernels reading host outputs in place; the same bits as the static run
/// and the reference, race-free, under every schedule.
#[test]
fn p2p_and_host_placed_kernels_run_the_same_in_both_memory_modes() {
    let reports = check_family(
        "wide-dag (p2p- and host-placed)",
        &mixed_placed_wide_dag(5, 11),
        &["", "max-task-normal=100"],
    );
    for report in reports {
        let p2p = report.p2p;
        assert!(p2p.buffers > 50, "{report}");
        assert!(p2p.hbm_to_p2p > 0 && p2p.p2p_to_hbm > 0, "{report}");
        assert_eq!(
            p2p.guarded_frees,
            p2p.buffers + p2p.hbm_to_p2p + p2p.p2p_to_hbm,
            "{report}"
        );
        assert!(report.host.kernels > 30, "{report}");
    }
}

/// The P2P model with P2P memory freed at the plan's last `Free`, without the guarder's
/// events: a copy or kernel still queued on some stream touches freed memory, on every
/// schedule.
#[test]
fn p2p_memory_freed_before_its_users_ran_is_caught() {
    sim_built();
    let (model, _) = compile(&mixed_placed_wide_dag(5, 11), "max-task-normal=100");
    run(&model, MemoryMode::Dynamic, 0).expect("the unmutated model runs");
    for schedule in 0..SCHEDULES {
        let error = run_mutated(
            &model,
            MemoryMode::Dynamic,
            schedule,
            HostMutation::P2pFreeEarly,
        )
        .expect_err("P2P memory freed while in use");
        assert!(
            error.contains("use after free")
                || error.contains("use-after-free")
                || error.contains("free-while-in-use"),
            "schedule {schedule}: {error}"
        );
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

/// `test/Runtime/Inputs/recycle-third-stream.mlir`.
fn recycle_third_stream() -> TaskModel {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test/Runtime/Inputs/recycle-third-stream.mlir");
    let context = ge_mlir::dialect::new_context();
    let text = std::fs::read_to_string(path).unwrap();
    let module = melior::ir::Module::parse(&context, &text).expect("the model parses");
    ge_mlir::lowering::read_task_model(&module).expect("a lowered model")
}

/// The cross-stream recycle case of issue 20 at task level
/// (`test/Runtime/Inputs/recycle-third-stream.mlir`): a page born on stream 1 and read on
/// streams 0 and 2. The executor's host order issues stream 0's wait for stream 2's
/// event *after* stream 0 recorded its event to stream 1, and before stream 1 waits for
/// that one; GE's wait-time merge would then hand stream 2's clear on to stream 1, which
/// re-uses the page for `y` while `z2` on stream 2 may still read it (the race detector
/// reports a write-after-read of `y` and `z2`). With the mask taken at the record, the
/// page stays occupied until last-resource-clean: race-free, and the outputs are the
/// static run's, under every schedule mode.
#[test]
fn a_page_is_not_reused_while_a_third_stream_may_read_it() {
    use ge_mlir::runtime::executor::dynamic::plan::{self, Step};
    sim_built();
    let model = recycle_third_stream();
    // The host order the case needs (else the test would pass for nothing): between the
    // first and the last launch, stream 0's wait for 2 -> 0 comes before stream 1's wait
    // for 0 -> 1, which was sent (recorded) before both.
    let dynamic_plan = plan::build(&model).unwrap();
    let steps = &dynamic_plan.steps;
    let launches: Vec<usize> = (0..steps.len())
        .filter(|&k| matches!(steps[k], Step::Launch { .. }))
        .collect();
    let (first, last) = (launches[0], *launches.last().unwrap());
    let between = |kind: fn(&Step) -> Option<usize>, src: usize, dst: usize| -> usize {
        (first..last)
            .find(|&k| {
                kind(&steps[k]).is_some_and(|e| {
                    let e = dynamic_plan.events[e];
                    (e.src, e.dst) == (src, dst)
                })
            })
            .unwrap_or_else(|| panic!("no step {src} -> {dst} between the launches"))
    };
    let wait = |s: &Step| match *s {
        Step::Wait { event } => Some(event),
        _ => None,
    };
    let send = |s: &Step| match *s {
        Step::Send { event } => Some(event),
        _ => None,
    };
    let (send_01, wait_20, wait_01) = (
        between(send, 0, 1),
        between(wait, 2, 0),
        between(wait, 0, 1),
    );
    assert!(
        send_01 < wait_20 && wait_20 < wait_01,
        "host order: send 0->1 at {send_01}, wait 2->0 at {wait_20}, wait 0->1 at {wait_01}"
    );
    for schedule in 0..2 * MODES.len() as u32 {
        let fixed = run(&model, MemoryMode::Static, schedule)
            .unwrap_or_else(|e| panic!("static, schedule {schedule}: {e}"));
        let dynamic = run(&model, MemoryMode::Dynamic, schedule)
            .unwrap_or_else(|e| panic!("dynamic, schedule {schedule}: {e}"));
        assert_eq!(dynamic.ranks, fixed.ranks, "schedule {schedule}");
        // x1, z0, w1, z2, y.
        assert_eq!(dynamic.memory[0].buffers, 5, "{}", dynamic.memory[0]);
    }
}

/// Why ResNet in dynamic mode holds more tensor bytes at once than its static plan
/// (README, "Dynamic memory mode"): the static plan puts the output of every op that
/// `inplace-support-check` / `mem-inplace` accepted (`reuse_input_index`: ReLUs,
/// convolutions, adds) on its input, while the dynamic mode, as GE's `AllocOutputMemory`
/// (`runtime/v2/graph_builder/bg_memory.cc`), gives an output its input's memory only
/// for a reference op (`ATTR_NAME_REFERENCE`) and allocates every other output anew, so
/// an in-place op holds its input and its output at once. Without the in-place passes
/// the static plan needs what the dynamic mode holds, and the dynamic plan is the same.
#[test]
fn in_place_outputs_are_allocated_anew_in_dynamic_mode() {
    use ge_mlir::runtime::executor::dynamic::plan;
    let text = generated("resnet", 1000);
    let context = ge_mlir::dialect::new_context();
    let compiled = |passes: &[&str]| {
        let module = melior::ir::Module::parse(&context, &text).expect("ge-gen's MLIR parses");
        let flags: Vec<String> = passes.iter().map(|&p| p.to_owned()).collect();
        let model = lowered(&context, module, &flags);
        assert_eq!(model.stream_num, 1, "{passes:?}");
        let live = plan::build(&model).unwrap().peak_live_bytes;
        (model.memory_size, live)
    };
    // --ge-compile's passes, with and without the in-place candidates.
    let mut passes = ge_mlir::pipeline::aliases::lookup_alias("ge-compile")
        .expect("the ge-compile alias")
        .passes
        .to_vec();
    assert!(passes.contains(&"inplace-support-check"));
    let (in_place_size, in_place_live) = compiled(&passes);
    passes.retain(|&p| p != "inplace-support-check");
    let (plain_size, plain_live) = compiled(&passes);
    eprintln!(
        "resnet 1k: static {in_place_size} B with in-place outputs, {plain_size} B without; \
         dynamic max-live {in_place_live} B / {plain_live} B"
    );
    assert_eq!(
        in_place_live, plain_live,
        "the dynamic plan ignores reuse_input_index"
    );
    assert!(
        plain_live <= plain_size,
        "on one stream the dynamic mode holds no more than a plan without in-place outputs"
    );
    assert!(
        in_place_size < plain_size && in_place_live > in_place_size,
        "the in-place outputs are what the static plan saves"
    );
}

/// A device for the allocators alone: fresh addresses, nothing to synchronise.
#[derive(Default)]
struct BumpDevice {
    next: u64,
}

impl ge_mlir::runtime::memory::DeviceMemory for BumpDevice {
    fn malloc(&mut self, bytes: u64) -> Result<Option<u64>, ge_mlir::runtime::memory::MemError> {
        self.next += bytes;
        Ok(Some(self.next - bytes + (1 << 40)))
    }
    fn free(&mut self, _: u64) -> Result<(), ge_mlir::runtime::memory::MemError> {
        Ok(())
    }
    fn synchronize(&mut self, _: usize) -> Result<(), ge_mlir::runtime::memory::MemError> {
        Ok(())
    }
}

/// The teeth of the task-level test above, without the simulator: the plan's host steps
/// of `recycle-third-stream.mlir` through GE's allocators, once as they are and once
/// with every wait merging the sender's occupy mask as it is at the wait (GE's
/// `MergeClearedFrom`, emulated by handing `wait_event` the sender's view at that time).
/// The wait-time merge hands `x1`'s page to `y` (the re-use the race detector reported
/// on 5a7aa3f's allocator); the record-time mask does not. If the host order or the
/// allocators changed so that the wait-time merge no longer re-used the page, the case
/// would prove nothing any more, and this fails.
#[test]
fn the_wait_time_merge_would_hand_x1s_page_to_y() {
    use ge_mlir::runtime::{
        executor::dynamic::plan::{self, Step},
        memory::{
            events::{last_wait_events, send_event, wait_event},
            GertEvent, MultiStreamMemory, ScalableConfig,
        },
    };
    let model = recycle_third_stream();
    let plan = plan::build(&model).unwrap();
    let buffer_at = |offset: u64| {
        plan.buffers
            .iter()
            .position(|b| b.static_offset == offset)
            .unwrap()
    };
    let (x1, y) = (buffer_at(0), buffer_at(16384));
    let replay = |wait_time_merge: bool| -> (u64, u64) {
        let mut memory = MultiStreamMemory::new(
            BumpDevice::default(),
            plan.stream_num,
            ScalableConfig::for_device(None),
        )
        .unwrap();
        let mut events: Vec<GertEvent> = plan
            .events
            .iter()
            .enumerate()
            .map(|(logic_id, e)| GertEvent {
                logic_id,
                src_stream: e.src,
                dst_stream: e.dst,
                ..GertEvent::default()
            })
            .collect();
        let mut blocks = vec![None; plan.buffers.len()];
        let mut addrs = vec![0; plan.buffers.len()];
        for step in &plan.steps {
            match *step {
                Step::Alloc { buffer, stream } => {
                    let block = memory.malloc(stream, plan.buffers[buffer].size).unwrap();
                    addrs[buffer] = memory.block(block).unwrap().addr();
                    blocks[buffer] = Some(block);
                }
                Step::Wander { buffer, src, dst } => memory
                    .wander_from(blocks[buffer].unwrap(), src, dst)
                    .unwrap(),
                Step::Free { buffer, stream } => {
                    memory.free(stream, blocks[buffer].unwrap()).unwrap()
                }
                Step::Send { event } => send_event(&mut memory, &mut events[event]).unwrap(),
                Step::Wait { event } => {
                    let ev = &mut events[event];
                    if wait_time_merge {
                        for sent in &mut ev.space.block_free_by_src_stream {
                            let block = sent.version_block.block;
                            if memory.block(block).unwrap().version() == sent.version_block.version
                            {
                                sent.src_view = memory.occupy_view(block, ev.src_stream).unwrap();
                            }
                        }
                    }
                    wait_event(&mut memory, ev).unwrap();
                }
                Step::LastResourceClean => last_wait_events(&mut memory).unwrap(),
                Step::Launch { .. } | Step::ReadOutputs => {}
            }
        }
        assert_eq!(memory.finalize().unwrap().leaked_blocks, 0);
        (addrs[x1], addrs[y])
    };
    let (x1_addr, y_addr) = replay(true);
    assert_eq!(
        x1_addr, y_addr,
        "the wait-time merge re-uses x1's page for y"
    );
    let (x1_addr, y_addr) = replay(false);
    assert_ne!(x1_addr, y_addr, "the record-time mask keeps x1's page");
}
