//! Generates the pass reference (`dialects/ascend-passes.md`) from the registry, as
//! `mlir-tblgen -gen-pass-doc` does from pass definitions: every pass with its flag, GE
//! name, spec section, description, options (kind, default, help) and the statistics it
//! registers, then the pipeline aliases. The statistics are read by constructing each pass
//! with its default options, so the page lists what `--mlir-pass-statistics` will print. A
//! unit test fails when the committed page is stale (`GE_BLESS=1 cargo test --lib
//! pipeline::reference` rewrites it).

use super::{aliases::ALIASES, options::PassOptions, statistics::PassStatistics, PassInfo, PASSES};
use std::fmt::Write;

/// GE's name for each pass and where the specification describes it. Every registry row
/// must have an entry (a unit test checks), so a new pass cannot go undocumented.
pub const GE_ORIGIN: &[(&str, &str, &str)] = &[
    (
        "ascend-topo-order",
        "topological ids (GE's `topo_id`)",
        "ge-memory-conflict.md 3",
    ),
    (
        "atomic-addr-clean",
        "AtomicAddrCleanPass",
        "ge-memory-conflict.md 3.1.5",
    ),
    (
        "ge-mem-plan-pipeline",
        "MemConflictProc + the graph memory assigner",
        "ge-memory-conflict.md 3.3-3.4, behaviour notes B.17, B.19",
    ),
    (
        "ge-memory-pipeline",
        "the memory passes of OptimizeStage1/2",
        "ge-memory-conflict.md 3.1-3.2, 3.5",
    ),
    (
        "graph-lint",
        "GraphLint",
        "ge-memory-conflict.md 3.5, behaviour notes B.20",
    ),
    (
        "hccl-continuous-memcpy",
        "HcclContinuousMemcpyPass",
        "ge-memory-conflict.md 3.1.2",
    ),
    (
        "hccl-memcpy",
        "HcclMemcpyPass",
        "ge-memory-conflict.md 3.1.1, behaviour notes B.15",
    ),
    (
        "inplace-support-check",
        "InplaceSupportCheckPass",
        "ge-memory-conflict.md 3.1.4, behaviour notes B.17",
    ),
    (
        "lower-to-rt",
        "gert's lowering to the execute graph (FreeMemory guarders, If/Case frames, placements)",
        "ge-memory-conflict.md 4.1, 4.4, ge-runtime-acl-notes.md 4",
    ),
    (
        "lower-to-tasks",
        "TaskGenerator + DavinciModel's task sink (LabelAllocator for control flow)",
        "ge-runtime-acl-notes.md 3, ge-import-hccl-labels-notes.md 2",
    ),
    (
        "mark-same-addr",
        "MarkSameAddrPass",
        "ge-memory-conflict.md 3.1.7",
    ),
    (
        "mem-assign",
        "GraphMemoryAssigner (static plan)",
        "ge-memory-conflict.md 3.4",
    ),
    (
        "mem-inplace",
        "ProcessInplace",
        "ge-memory-conflict.md 3.4, behaviour notes B.17",
    ),
    (
        "mem-layout-conflict",
        "HandleMemoryLayoutConflict",
        "ge-memory-conflict.md 3.3, behaviour notes B.19",
    ),
    (
        "mem-rw-conflict",
        "HandleMemoryRWConflict",
        "ge-memory-conflict.md 3.2, behaviour notes B.3-B.14",
    ),
    (
        "mem-symbols",
        "GraphUtils::GetRefMapping",
        "ge-memory-conflict.md 3.3",
    ),
    (
        "memcpy-addr-async",
        "MemcpyAddrAsyncPass",
        "ge-memory-conflict.md 3.1.6, behaviour notes B.18",
    ),
    (
        "rt-chain-conflict",
        "CalcChainConflictSolvePolicy + AddPointFromForConflicts (bg_condition.cc)",
        "ge-memory-conflict.md 4.1.1, behaviour notes B.21",
    ),
    (
        "rt-placement-copies",
        "PlacedLoweringResult's copy table (placed_lowering_result.cc)",
        "ge-memory-conflict.md 4.4, ge-runtime-acl-notes.md 4",
    ),
    (
        "rt-subgraph-guarders",
        "CalcSubgraphGuardersPolicy + AddGuardersToParentNode + AddPlusCount (bg_condition.cc)",
        "ge-memory-conflict.md 4.1.2, behaviour notes B.21",
    ),
    (
        "set-io-offset",
        "SetInputOutputOffsetPass",
        "ge-memory-conflict.md 3.1.8",
    ),
    (
        "stream-alloc",
        "LogicalStreamAllocator + StreamAllocator",
        "ge-stream-allocation.md, behaviour notes C",
    ),
    (
        "subgraph-isolate",
        "SubgraphPass",
        "ge-memory-conflict.md 3.1.3, behaviour notes B.16",
    ),
    (
        "verify-mem-plan",
        "a SOMAS-like checker (no GE pass)",
        "ge-memory-conflict.md 3.4",
    ),
    (
        "verify-tasks",
        "a task-list checker (no GE pass)",
        "ge-runtime-acl-notes.md 3",
    ),
];

/// The header of the generated file.
pub const HEADER: &str = "<!-- Generated from the pass registry (src/pipeline.rs) by src/pipeline/reference.rs -- do not edit.\n     \
     Regenerate with: GE_BLESS=1 cargo test --lib pipeline::reference -->\n";

/// The statistics a pass registers when built with its default options.
fn statistics_of(info: &'static PassInfo) -> Result<Vec<(String, String)>, String> {
    let statistics = PassStatistics::default();
    let options = PassOptions::resolve(info, &[])?.with_statistics(statistics.clone());
    let _pass = (info.create)(&options)?;
    Ok(statistics.registered())
}

fn emit_pass(out: &mut String, info: &'static PassInfo) {
    let _ = writeln!(out, "### `--{}` ({})\n", info.flag, info.display_name());
    if let Some((_, ge, spec)) = GE_ORIGIN.iter().find(|(flag, _, _)| *flag == info.flag) {
        let _ = writeln!(out, "GE: {ge}. Specification: {spec}.\n");
    }
    let _ = writeln!(out, "{}\n", info.description);
    if !info.options.is_empty() {
        out.push_str("| option | kind | default | meaning |\n|---|---|---|---|\n");
        for option in info.options {
            let default = if option.default.is_empty() {
                "\"\""
            } else {
                option.default
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | `{default}` | {} |",
                option.name,
                option.kind.name(),
                option.help.replace('|', "\\|")
            );
        }
        out.push('\n');
    }
    match statistics_of(info) {
        Ok(stats) if !stats.is_empty() => {
            out.push_str("Statistics (`--mlir-pass-statistics`):\n\n");
            for (name, description) in stats {
                let _ = writeln!(out, "* `{name}`: {description}");
            }
            out.push('\n');
        }
        Ok(_) => out.push_str("Statistics: none.\n\n"),
        Err(error) => {
            let _ = writeln!(
                out,
                "Statistics: cannot build the pass with its defaults ({error}).\n"
            );
        }
    }
}

/// Renders the reference. Deterministic: passes in registry order, then the aliases.
pub fn generate_pass_reference() -> String {
    let mut out = String::from(HEADER);
    out.push_str(
        "\n# ge-mlir passes: reference\n\n\
         Every pass `ge-opt` registers, in registry order. On the command line a pass is \
         `--<flag>` and its options `--<flag>=<opt>=<value>,...`; inside \
         `--pass-pipeline='builtin.module(...)'` it is `<flag>{<opt>=<value> ...}`, mixed \
         freely with upstream MLIR passes.\n\n## Passes\n\n",
    );
    for info in PASSES {
        emit_pass(&mut out, info);
    }
    out.push_str("## Pipeline aliases\n\n");
    for alias in ALIASES {
        let _ = writeln!(out, "### `--{}`\n\n{}\n", alias.flag, alias.description);
        let passes: Vec<String> = alias.passes.iter().map(|p| format!("`{p}`")).collect();
        let _ = writeln!(
            out,
            "Runs, each as its own pass: {}. An option given to the alias goes to every pass \
             of the list that declares it.\n",
            passes.join(", ")
        );
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMITTED: &str = include_str!("../../dialects/ascend-passes.md");

    /// The committed reference must be what the registry generates. `GE_BLESS=1` rewrites it.
    #[test]
    fn committed_pass_reference_is_up_to_date() {
        let generated = generate_pass_reference();
        if std::env::var_os("GE_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dialects/ascend-passes.md");
            std::fs::write(path, &generated).expect("write dialects/ascend-passes.md");
            return;
        }
        assert!(
            generated == COMMITTED,
            "dialects/ascend-passes.md is stale: it differs from what the pass registry \
             generates. Regenerate it with `GE_BLESS=1 cargo test --lib pipeline::reference` \
             and commit it."
        );
    }

    #[test]
    fn every_pass_has_a_ge_origin_and_builds_with_its_defaults() {
        for info in PASSES {
            assert!(
                GE_ORIGIN.iter().any(|(flag, _, _)| *flag == info.flag),
                "no GE_ORIGIN entry for --{}",
                info.flag
            );
            statistics_of(info).unwrap_or_else(|e| panic!("--{}: {e}", info.flag));
        }
        for (flag, _, _) in GE_ORIGIN {
            assert!(
                PASSES.iter().any(|info| info.flag == *flag),
                "stale GE_ORIGIN entry {flag}"
            );
        }
    }

    #[test]
    fn reference_lists_options_defaults_and_statistics() {
        let doc = generate_pass_reference();
        assert!(
            doc.contains("### `--ascend-topo-order` (AscendTopoOrder)"),
            "{doc}"
        );
        assert!(doc.contains("| `start-id` | long | `0` |"), "{doc}");
        assert!(
            doc.contains("* `num-ops-numbered`: Number of ascend ops given a topo_id"),
            "{doc}"
        );
        assert!(doc.contains("### `--ge-compile`"), "{doc}");
    }
}
