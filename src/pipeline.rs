//! The pass registry that `ge-opt` drives: one table, one row per pass.
//!
//! A row gives the pass's command-line flag (which is also its name inside
//! `--pass-pipeline`), a description, its options and a constructor. `ge-opt --help` and
//! `--list-passes` print the table; [`Pipeline`] resolves flags and pipeline text against
//! it. Adding a pass is adding a row to [`PASSES`]:
//!
//! ```ignore
//! PassInfo {
//!     flag: "ascend-my-pass",
//!     description: "One line that says what it decides",
//!     options: my_pass::OPTIONS,          // &[] when it has none
//!     create: my_pass::create,            // fn(&PassOptions) -> Result<Pass, String>
//! },
//! ```
//!
//! Why a table of our own instead of MLIR's pass registry: the C API cannot register an
//! external (Rust) pass under a pipeline name, so `mlirParsePassPipeline` can never see our
//! passes. [`Pipeline`] therefore splits pipeline text itself, hands runs of upstream
//! elements to MLIR's parser, and builds ours from this table.

pub mod aliases;
mod build;
pub mod options;
pub mod reference;
pub mod shared;
pub mod statistics;
pub mod text;

pub use build::{is_pass_flag, Pipeline, Step};
pub use options::{OptionKind, OptionSpec, OptionValue, PassOptions};
pub use shared::ModelShare;
pub use statistics::{PassStatistics, Statistic};

use crate::transforms::{memory, stream::stream_alloc, topo_order};
use melior::pass::Pass;

/// Builds the MLIR pass for one instance of a registered pass.
pub type PassConstructor = fn(&PassOptions) -> Result<Pass, String>;

/// One row of the registry.
#[derive(Debug)]
pub struct PassInfo {
    /// Command-line flag (`--ascend-topo-order`) and pipeline name (`ascend-topo-order`).
    pub flag: &'static str,
    /// One-line description, printed by `--help` / `--list-passes`.
    pub description: &'static str,
    /// The options the pass accepts (`--flag=k=v,k2=v2`, `flag{k=v k2=v2}`).
    pub options: &'static [OptionSpec],
    /// Builds the pass from resolved options.
    pub create: PassConstructor,
}

/// The registry. Keep rows sorted by flag.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        flag: "ascend-topo-order",
        description: "Number every ascend op of every function in topological (program) order: \
                      `topo_id` attribute",
        options: topo_order::OPTIONS,
        create: topo_order::create,
    },
    PassInfo {
        flag: "atomic-addr-clean",
        description: "GE AtomicAddrCleanPass: AtomicAddrClean nodes zeroing atomic outputs \
                      (one per loop-free graph, per atomic op in loops, per graph-output op)",
        options: memory::atomic_addr_clean::OPTIONS,
        create: memory::atomic_addr_clean::create,
    },
    PassInfo {
        flag: "ge-mem-plan-pipeline",
        description:
            "The static-plan memory passes in GE's order on one model (inplace-support-check, \
                      mem-layout-conflict, mem-inplace, mem-assign, set-io-offset): their output, \
                      attributes written once per op",
        options: memory::mem_plan_pipeline::OPTIONS,
        create: memory::mem_plan_pipeline::create,
    },
    PassInfo {
        flag: "ge-memory-pipeline",
        description: "The GE memory passes in order (hccl-memcpy, hccl-continuous-memcpy, \
                      subgraph-isolate, atomic-addr-clean, mem-rw-conflict), then graph-lint",
        options: memory::pipeline::OPTIONS,
        create: memory::pipeline::create,
    },
    PassInfo {
        flag: "graph-lint",
        description: "GE GraphLint: warn (W18888) about writers of a shared tensor that are not \
                      ordered with the other writers and readers",
        options: memory::graph_lint::OPTIONS,
        create: memory::graph_lint::create,
    },
    PassInfo {
        flag: "hccl-continuous-memcpy",
        description: "GE HcclContinuousMemcpyPass: isolate Data/Const/Variable and shared inputs \
                      of continuous-input and P2P-input ops",
        options: memory::hccl_continuous_memcpy::OPTIONS,
        create: memory::hccl_continuous_memcpy::create,
    },
    PassInfo {
        flag: "hccl-memcpy",
        description: "GE HcclMemcpyPass: isolate inputs that _input_mutable (HCCL) ops overwrite",
        options: memory::hccl_memcpy::OPTIONS,
        create: memory::hccl_memcpy::create,
    },
    PassInfo {
        flag: "inplace-support-check",
        description: "GE InplaceSupportCheckPass: mark single-output ops whose output may reuse \
                      an input (_inplace_support_input_index)",
        options: memory::inplace_support_check::OPTIONS,
        create: memory::inplace_support_check::create,
    },
    PassInfo {
        flag: "lower-to-rt",
        description:
            "Build GE's runtime v2 execute graph (ascend_rt) from a compiled model: kernels with \
                      FreeMemory guarders and placements, If/Case as cond nodes over branch \
                      frames (inner_data ... inner_netoutput)",
        options: crate::rtgraph::passes::lower::OPTIONS,
        create: crate::rtgraph::passes::lower::create,
    },
    PassInfo {
        flag: "lower-to-tasks",
        description: "Lower a compiled model (after ge-compile) to per-stream task lists: the \
                      module becomes an ascend_task model (weights, variables, inputs, outputs, \
                      one func per stream in GE's task order, control flow as labels and \
                      activations), checked by verify-tasks",
        options: crate::lowering::passes::LOWER_OPTIONS,
        create: crate::lowering::passes::create_lower,
    },
    PassInfo {
        flag: "mark-same-addr",
        description: "GE MarkSameAddrPass: keep the outputs read by StreamSwitch / \
                      LabelSwitchByIndex at a fixed address (_alloc_fixed_addr)",
        options: memory::mark_same_addr::OPTIONS,
        create: memory::mark_same_addr::create,
    },
    PassInfo {
        flag: "mem-assign",
        description: "GE's static memory plan: a workspace offset for every symbol, reusing \
                      memory by lifetime (streams respected), continuous groups, 512-byte \
                      alignment; output_offset/input_offset, memory_size",
        options: memory::mem_assign::OPTIONS,
        create: memory::mem_assign::create,
    },
    PassInfo {
        flag: "mem-inplace",
        description: "GE ProcessInplace: outputs marked _inplace_support_input_index reuse their \
                      input's memory unless a size, read, write or symbol (layout) conflict \
                      forbids it; reuse_input_index",
        options: memory::mem_inplace::OPTIONS,
        create: memory::mem_inplace::create,
    },
    PassInfo {
        flag: "mem-layout-conflict",
        description: "GE HandleMemoryLayoutConflict: Identity copies where anchors sharing one \
                      memory symbol have incompatible layout attributes (CtrlNodeConflict first)",
        options: memory::mem_layout_conflict::OPTIONS,
        create: memory::mem_layout_conflict::create,
    },
    PassInfo {
        flag: "mem-rw-conflict",
        description: "GE HandleMemoryRWConflict: Identity copies where a write would be seen by \
                      another reader (the RW decision matrix)",
        options: memory::mem_rw_conflict::OPTIONS,
        create: memory::mem_rw_conflict::create,
    },
    PassInfo {
        flag: "mem-symbols",
        description: "Debug: print GE's memory symbols (GetRefMapping: anchors sharing memory) \
                      as remarks, in GE's order",
        options: memory::mem_symbols::OPTIONS,
        create: memory::mem_symbols::create,
    },
    PassInfo {
        flag: "memcpy-addr-async",
        description: "GE MemcpyAddrAsyncPass: MemcpyAddrAsync for zero copy (user Data into \
                      StreamMerge, Const into the graph output, RefData into HCCL)",
        options: memory::memcpy_addr_async::OPTIONS,
        create: memory::memcpy_addr_async::create,
    },
    PassInfo {
        flag: "rt-chain-conflict",
        description:
            "GE CalcChainConflictSolvePolicy on the execute graph: a PointFromInputs before \
                      each branch's inner NetOutput for the If/Case outputs whose branches \
                      feed them from different sources",
        options: crate::rtgraph::passes::chain_conflict::OPTIONS,
        create: crate::rtgraph::passes::chain_conflict::create,
    },
    PassInfo {
        flag: "rt-placement-copies",
        description: "GE's placement copies on the execute graph: CopyH2D, SyncStream + CopyD2H, \
                      MakeSureTensorAtDevice between host, hbm and p2p tensors, each with a \
                      FreeMemory guarder",
        options: crate::rtgraph::passes::placement::OPTIONS,
        create: crate::rtgraph::passes::placement::create,
    },
    PassInfo {
        flag: "rt-subgraph-guarders",
        description:
            "GE CalcSubgraphGuardersPolicy on the execute graph: guarders of If/Case branch \
                      outputs moved to the parent, IdentityAddr plus-refs inside the branches, \
                      branches aligned on the guarded indexes",
        options: crate::rtgraph::passes::guarders::OPTIONS,
        create: crate::rtgraph::passes::guarders::create,
    },
    PassInfo {
        flag: "set-io-offset",
        description: "GE SetInputOutputOffsetPass: zero-copy basic/relative offsets for nodes \
                      connected to Data / NetOutput (fusion, HCOM and Concat cases)",
        options: memory::set_io_offset::OPTIONS,
        create: memory::set_io_offset::create,
    },
    PassInfo {
        flag: "stream-alloc",
        description: "GE multi-stream allocation: stream_id/_logic_stream_id on every op, \
                      Send/Recv events, activation, physical split; summary and Graphviz",
        options: stream_alloc::OPTIONS,
        create: stream_alloc::create,
    },
    PassInfo {
        flag: "subgraph-isolate",
        description: "GE SubgraphPass: Memcpy Identities isolating control-flow subgraph inputs \
                      and outputs",
        options: memory::subgraph_isolate::OPTIONS,
        create: memory::subgraph_isolate::create,
    },
    PassInfo {
        flag: "verify-mem-plan",
        description: "Check the static memory plan on the IR (SOMAS-like): coverage, shared \
                      memory at one address, alignment, bounds, contiguous groups, no overlap \
                      of live tensors, cross-stream reuse ordered",
        options: memory::verify_mem_plan::OPTIONS,
        create: memory::verify_mem_plan::create,
    },
    PassInfo {
        flag: "verify-tasks",
        description: "Check an ascend_task model: event/notify waits recorded on another stream, \
                      ids in range, label targets set on the same stream, activated streams \
                      exist, every address inside its region, operands hold their tensors",
        options: crate::lowering::passes::VERIFY_OPTIONS,
        create: crate::lowering::passes::create_verify,
    },
];

/// Looks a pass up by flag / pipeline name.
pub fn lookup(flag: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|info| info.flag == flag)
}

impl PassInfo {
    /// The pass's display name in IR dumps and timing reports: the flag in CamelCase
    /// (`ascend-topo-order` -> `AscendTopoOrder`).
    pub fn display_name(&self) -> String {
        self.flag
            .split(['-', '_'])
            .map(|word| {
                let mut chars = word.chars();
                match chars.next() {
                    Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                    None => String::new(),
                }
            })
            .collect()
    }
}

/// The pass table as printed by `ge-opt --help` and `--list-passes`.
pub fn pass_table() -> String {
    const WIDTH: usize = 40;
    let mut out = String::new();
    for info in PASSES {
        let flag = format!("--{}", info.flag);
        out.push_str(&format!("  {flag:<WIDTH$} - {}\n", info.description));
        for option in info.options {
            let spec = format!("  {}=<{}>", option.name, option.kind.name());
            out.push_str(&format!(
                "  {spec:<WIDTH$} - {} (default: {})\n",
                option.help,
                if option.default.is_empty() {
                    "\"\""
                } else {
                    option.default
                }
            ));
        }
    }
    for alias in aliases::ALIASES {
        let flag = format!("--{}", alias.flag);
        out.push_str(&format!("  {flag:<WIDTH$} - {}\n", alias.description));
        out.push_str(&format!(
            "  {:<WIDTH$} - options go to the passes that declare them\n",
            "  (pipeline alias)"
        ));
    }
    out
}

/// The text of `ge-opt --list-passes`.
pub fn list_passes_text() -> String {
    format!(
        "Passes:\n{}\nOptions: --<pass>=<opt>=<value>[,<opt>=<value>...] on the command line, \
         <pass>{{<opt>=<value> ...}} in a pipeline.\n\
         Upstream MLIR passes (canonicalize, cse, symbol-dce, ...) are available through \
         --pass-pipeline='builtin.module(...)', mixed freely with the passes above.\n",
        pass_table()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_unique_sorted_and_lowercase() {
        let flags: Vec<_> = PASSES.iter().map(|info| info.flag).collect();
        let mut sorted = flags.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(flags, sorted, "flags must be unique and sorted");
        for flag in flags {
            assert!(
                flag.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "bad flag {flag}"
            );
        }
    }

    #[test]
    fn every_default_parses_with_its_kind() {
        for info in PASSES {
            for option in info.options {
                assert!(
                    option.kind.parse(option.default).is_ok(),
                    "{}: default of {} does not parse",
                    info.flag,
                    option.name
                );
            }
        }
    }

    #[test]
    fn display_name_is_camel_case() {
        assert_eq!(
            lookup("ascend-topo-order").unwrap().display_name(),
            "AscendTopoOrder"
        );
    }

    #[test]
    fn list_mentions_every_pass_and_upstream() {
        let text = list_passes_text();
        for info in PASSES {
            assert!(text.contains(&format!("--{}", info.flag)));
        }
        assert!(text.contains("--pass-pipeline"));
    }
}
