//! The passes apply their decisions as rewrite patterns under MLIR's walk driver; the plain
//! loop over the decisions stays selectable (`GE_MLIR_REPLAY=loop`). Both must print the
//! same module, byte for byte, for every pass that rewrites and for `--ge-compile`, on
//! every generated family (small graphs here; `tools/compare-replay.sh` runs the larger
//! ones and main's binary).

use std::process::Command;

const FAMILIES: &[&str] = &["resnet", "transformer", "wide-dag", "control-flow"];

/// The pass pipelines compared: every pass with patterns, the fused memory passes that
/// replay plans too, and the whole compile.
const PIPELINES: &[&[&str]] = &[
    &["--mem-rw-conflict"],
    &["--hccl-memcpy"],
    &["--hccl-continuous-memcpy"],
    &["--subgraph-isolate"],
    &["--atomic-addr-clean"],
    &["--mem-layout-conflict"],
    &["--memcpy-addr-async"],
    &["--inplace-support-check"],
    &["--mark-same-addr"],
    &["--ge-memory-pipeline"],
    &["--ge-mem-plan-pipeline"],
    &["--stream-alloc"],
    &["--stream-alloc=max-task-normal=64"],
    &["--ge-compile"],
];

fn generate(family: &str, ops: u32, path: &std::path::Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_ge-gen"))
        .args([
            "--family",
            family,
            "--ops",
            &ops.to_string(),
            "--format",
            "mlir",
        ])
        .arg("-o")
        .arg(path)
        .output()
        .expect("ge-gen runs");
    assert!(out.status.success(), "ge-gen --family {family} failed");
}

fn ge_opt(args: &[&str], input: &std::path::Path, driver: Option<&str>) -> (bool, Vec<u8>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ge-opt"));
    command.args(args).arg(input);
    match driver {
        Some(d) => command.env("GE_MLIR_REPLAY", d),
        None => command.env_remove("GE_MLIR_REPLAY"),
    };
    let out = command.output().expect("ge-opt runs");
    let mut bytes = out.stdout;
    bytes.extend_from_slice(&out.stderr);
    (out.status.success(), bytes)
}

#[test]
fn patterns_and_loop_print_the_same_module() {
    let dir = std::env::temp_dir().join(format!("ge-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut compared = 0;
    for family in FAMILIES {
        let input = dir.join(format!("{family}.mlir"));
        generate(family, 400, &input);
        for args in PIPELINES {
            let (ok_patterns, patterns) = ge_opt(args, &input, None);
            let (ok_loop, looped) = ge_opt(args, &input, Some("loop"));
            assert_eq!(
                ok_patterns, ok_loop,
                "{args:?} on {family}: exit status differs"
            );
            assert!(
                patterns == looped,
                "{args:?} on {family}: the patterns print another module than the loop"
            );
            compared += usize::from(ok_patterns);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Most pipelines succeed on the generated graphs: the comparison is not of two errors.
    assert!(
        compared >= FAMILIES.len() * PIPELINES.len() / 2,
        "{compared} succeeded"
    );
}
