//! Every `ge-gen` family at ~1k ops, with default options and with many split streams:
//! `--ge-compile` then the lowering analysis in process, the verifier passes, emit → read
//! gives the same model, and `ge-opt --ge-compile-and-lower` (the pass) prints IR that
//! reads back to that model too.

use ge_mlir::{
    dialect::new_context,
    lowering::{emit_model, lower_module, read_task_model, verify_model},
};
use melior::ir::Module;
use std::{path::PathBuf, process::Command};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ge-lower-families-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool).args(args).output().expect("tool runs");
    assert!(
        out.status.success(),
        "{tool} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn check_family(family: &str, options: &str) {
    let ge_gen = env!("CARGO_BIN_EXE_ge-gen");
    let ge_opt = env!("CARGO_BIN_EXE_ge-opt");
    let tag = format!("{family}{}", options.replace(['=', ','], "_"));
    let ge = temp(&format!("{tag}.ge"));
    std::fs::write(
        &ge,
        run(
            ge_gen,
            &["--family", family, "--ops", "1000", "--format", "ge"],
        ),
    )
    .unwrap();
    let ge = ge.to_str().unwrap();
    let compile = format!("--ge-compile{options}");
    let compiled = run(ge_opt, &[&compile, ge]);
    let lower = format!("--ge-compile-and-lower{options}");
    let lowered = run(ge_opt, &[&lower, ge]);

    let context = new_context();
    let module = Module::parse(&context, &compiled).expect("compiled IR parses");
    let model = lower_module(&module).unwrap_or_else(|e| panic!("{tag}: {e:?}"));
    let findings = verify_model(&model);
    assert!(findings.is_empty(), "{tag}: {findings:?}");
    assert!(model.streams.iter().map(|s| s.tasks.len()).sum::<usize>() > 100);

    let text = emit_model(&model);
    let emitted = Module::parse(&context, &text).expect("emitted IR parses");
    let read = read_task_model(&emitted).unwrap_or_else(|e| panic!("{tag}: {e:?}"));
    assert!(read == model, "{tag}: emit -> read changed the model");

    let printed = Module::parse(&context, &lowered).expect("the pass's output parses");
    let from_pass = read_task_model(&printed).unwrap_or_else(|e| panic!("{tag}: {e:?}"));
    assert!(
        from_pass == model,
        "{tag}: the pass's printed model differs"
    );
}

#[test]
fn transformer_lowers_and_round_trips() {
    check_family("transformer", "");
    check_family("transformer", "=max-task-normal=8");
}

#[test]
fn resnet_lowers_and_round_trips() {
    check_family("resnet", "");
    check_family("resnet", "=max-task-normal=8");
}

#[test]
fn wide_dag_lowers_and_round_trips() {
    check_family("wide-dag", "");
    check_family("wide-dag", "=max-task-normal=8");
}

#[test]
fn control_flow_lowers_and_round_trips() {
    check_family("control-flow", "");
    // GE's streams for the While bodies' input copies: one activated stream per loop.
    check_family("control-flow", "=subgraph-entry-parent=false");
}

/// With many split streams, tasks of two subgraphs (or of a subgraph and the root) share
/// streams; those streams mirror the nodes' labels, and the model still verifies and
/// round-trips.
#[test]
fn control_flow_with_streams_shared_across_subgraphs_lowers_and_round_trips() {
    check_family("control-flow", "=max-task-normal=8");
}
