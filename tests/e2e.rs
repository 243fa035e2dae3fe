//! End to end: a graph compiled by `--ge-compile`, lowered to task lists and run on the
//! bundled simulator under many seeded schedules must give outputs and variables
//! bit-identical to the reference interpreter running the graph as written.
//!
//! Needs the simulator library (`cargo build -p ascend-sim`, `target/debug/libascendcl.so`).
//!
//! Sizes: every graph is kept at 1k–2k ops with small tensors, so the whole file runs in
//! well under three minutes in a debug build on two cores (see `SCHEDULES` and `OPS`).

use ge_mlir::{
    lowering::{lower_module, model::TaskModel},
    pipeline::{PassStatistics, Pipeline},
    runtime::{
        compare::check_run,
        executor::{run_model, RunOptions, RunResult},
        reference::{run_reference, ReferenceOptions, ReferenceResult},
    },
};
use melior::{ir::Module, Context};

/// Seeded schedules per compiled graph, spread over the simulator's schedule modes.
const SCHEDULES: u32 = 16;
const MODES: [&str; 4] = ["uniform", "reverse", "max-overlap", "delay-stream:1"];

/// The options a graph is compiled with: GE's defaults, and a tiny task limit per stream
/// so the stream allocator splits every stream many times (more streams, more events).
const COMPILES: [&str; 2] = ["", "max-task-normal=6"];

fn sim_built() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/debug");
    assert!(
        dir.join("libascendcl.so").exists() || std::env::var_os("GE_SIM_LIB_DIR").is_some(),
        "the simulator is not built: run `cargo build -p ascend-sim` first"
    );
}

fn compile(context: &Context, module: &mut Module, options: &str) {
    let flag = if options.is_empty() {
        "ge-compile".to_owned()
    } else {
        format!("ge-compile={options}")
    };
    let manager = ge_mlir::ir::pass_manager::module_pass_manager(context);
    Pipeline::from_flags(&[flag])
        .unwrap()
        .add_to(&manager, &PassStatistics::default())
        .unwrap();
    manager
        .run(module)
        .unwrap_or_else(|e| panic!("--ge-compile={options} fails: {e}"));
}

fn lower(module: &Module) -> TaskModel {
    lower_module(module).unwrap_or_else(|errors| {
        let text: Vec<String> = errors
            .iter()
            .map(|e| format!("{}: {}", e.location, e.message))
            .collect();
        panic!("lowering fails:\n{}", text.join("\n"))
    })
}

/// What one graph is run with on both sides.
#[derive(Clone)]
struct Setup {
    ranks: u32,
    iterations: u32,
    seed: u64,
}

impl Setup {
    fn reference(&self) -> ReferenceOptions {
        ReferenceOptions {
            ranks: self.ranks,
            iterations: self.iterations,
            seed: self.seed,
            ..ReferenceOptions::default()
        }
    }

    fn run(&self, schedule: u32) -> RunOptions {
        RunOptions {
            ranks: self.ranks,
            iterations: self.iterations,
            seed: self.seed,
            sim_seed: u64::from(schedule),
            schedule_mode: Some(MODES[schedule as usize % MODES.len()].to_owned()),
            ..RunOptions::default()
        }
    }
}

fn assert_same(what: &str, reference: &[ReferenceResult], run: &RunResult) {
    let found = check_run(reference, run);
    assert!(
        found.is_empty(),
        "{what}: {} mismatches, first: {}",
        found.len(),
        found
            .iter()
            .take(5)
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The whole check for one graph: the reference before and after each compile agree, and
/// every schedule of the lowered model matches it bit for bit.
fn check_graph(name: &str, source: &Source, setup: &Setup, min_split_streams: u32) {
    sim_built();
    let mut streams = Vec::new();
    for options in COMPILES {
        let context = ge_mlir::dialect::new_context();
        let mut module = source.parse(&context, name);
        let reference = run_reference(&module, &setup.reference())
            .unwrap_or_else(|e| panic!("{name}: reference: {e}"));
        compile(&context, &mut module, options);
        let compiled = run_reference(&module, &setup.reference())
            .unwrap_or_else(|e| panic!("{name}: reference after compile: {e}"));
        assert!(
            compiled == reference,
            "{name}: the reference changes under --ge-compile={options}"
        );
        let model = lower(&module);
        streams.push(model.stream_num);
        for schedule in 0..SCHEDULES {
            let run = run_model(&model, &setup.run(schedule)).unwrap_or_else(|e| {
                panic!("{name} --ge-compile={options}: schedule {schedule}: {e}")
            });
            assert_same(
                &format!("{name} --ge-compile={options} schedule {schedule}"),
                &reference,
                &run,
            );
        }
    }
    eprintln!("{name}: streams per compile {streams:?}");
    if min_split_streams > 0 {
        assert!(
            streams[1] >= min_split_streams && streams[1] > streams[0],
            "{name}: the split compile should use many more streams: {streams:?}"
        );
    }
}

/// A graph's text.
enum Source {
    Ge(String),
    Mlir(String),
}

impl Source {
    fn parse<'c>(&self, context: &'c Context, name: &str) -> Module<'c> {
        match self {
            Source::Ge(text) => ge_mlir::syntax::import::import_ge(context, text, name)
                .unwrap_or_else(|e| panic!("{e}")),
            Source::Mlir(text) => Module::parse(context, text)
                .unwrap_or_else(|| panic!("{name}: the generated MLIR does not parse")),
        }
    }
}

/// The bundled example with its gradient MatMul shaped to multiply (see the reference's
/// unit tests: as shipped, `MatMul(act, w)` is [32, 64] x [64, 64] declared [64, 64]).
fn allreduce_step() -> String {
    let ge = include_str!("../examples/allreduce_step.ge");
    ge.replace(
        "grad = MatMul(act, w) : f32[64, 64]",
        "grad = MatMul(x, act) {transpose_x1 = true} : f32[64, 64]",
    )
}

#[test]
fn allreduce_step_matches_the_reference_on_two_ranks() {
    let setup = Setup {
        ranks: 2,
        iterations: 3,
        seed: 7,
    };
    check_graph("allreduce_step.ge", &Source::Ge(allreduce_step()), &setup, 0);
}

/// `ge-gen`'s graph of `family` at about `ops` ops.
fn generated(family: &str, ops: u32, seed: u64) -> Source {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ge-gen"))
        .args(["--family", family, "--ops", &ops.to_string(), "--seed", &seed.to_string()])
        .args(["--format", "mlir"])
        .output()
        .expect("ge-gen runs");
    assert!(
        out.status.success(),
        "ge-gen --family {family}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Source::Mlir(String::from_utf8(out.stdout).expect("ge-gen prints UTF-8"))
}

fn check_family(family: &str, ops: u32, setup: &Setup, min_split_streams: u32) {
    let name = format!("ge-gen --family {family} --ops {ops}");
    check_graph(&name, &generated(family, ops, 1), setup, min_split_streams);
}

const ONE_RANK: Setup = Setup {
    ranks: 1,
    iterations: 2,
    seed: 3,
};

#[test]
fn transformer_matches_the_reference() {
    check_family("transformer", 1000, &ONE_RANK, 8);
}

#[test]
fn resnet_matches_the_reference() {
    check_family("resnet", 1000, &ONE_RANK, 8);
}

#[test]
fn wide_dag_matches_the_reference() {
    check_family("wide-dag", 1000, &ONE_RANK, 8);
}

#[test]
fn control_flow_matches_the_reference() {
    check_family("control-flow", 1000, &ONE_RANK, 8);
}
