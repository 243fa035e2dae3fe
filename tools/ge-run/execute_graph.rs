//! `ge-run --execute-graph`: the compiled graph as GE's runtime v2 execute graph, run on the
//! host by `ge_mlir::runtime::execute_graph` (reference counts, guarders, placements), and
//! with `--check` compared with the reference interpreter bit for bit.

use crate::compile::{Session, Source};
use crate::{Cli, DeviceArg};
use clap::ValueEnum;
use ge_mlir::{
    rtgraph::model::{Kind, Module as RtModule},
    runtime::{
        compare::compare_bitwise,
        execute_graph::{
            build_execute_graph, model_inputs, run_execute_graph, ExecuteGraphOptions, RtPasses,
        },
        executor::{HostMutation, MemoryMode},
        tensor::HostTensor,
    },
};

/// An execute-graph pass `--rt-skip` leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RtSkip {
    /// --rt-chain-conflict (PointFromInputs for branch outputs fed from different sources)
    ChainConflict,
    /// --rt-subgraph-guarders (a branch's outputs guarded by the parent)
    SubgraphGuarders,
    /// --rt-placement-copies (CopyH2D, SyncStream + CopyD2H, MakeSureTensorAtDevice)
    PlacementCopies,
}

/// The options that mean nothing for a host run of the execute graph, named so the user
/// knows they were not silently dropped.
fn refused_options(cli: &Cli) -> Vec<&'static str> {
    let mut refused = Vec::new();
    let mut refuse = |given: bool, name: &'static str| {
        if given {
            refused.push(name);
        }
    };
    refuse(cli.ranks > 1, "--ranks");
    refuse(!cli.models.is_empty() || cli.loads > 1, "--models/--loads");
    refuse(cli.zero_copy.is_some(), "--zero-copy");
    refuse(
        cli.trace.is_some() || cli.timeline.is_some(),
        "--trace/--timeline",
    );
    refuse(cli.report, "--report");
    refuse(cli.memory != MemoryMode::Static, "--memory");
    refuse(cli.mutate_host != HostMutation::None, "--mutate-host");
    refuse(cli.output_dir.is_some(), "--output-dir");
    refuse(matches!(cli.device, DeviceArg::Ascend), "--device ascend");
    refuse(
        !cli.sim_config.is_empty() || cli.race_check.is_some(),
        "--sim-config/--race-check",
    );
    refused
}

/// What the execute graph is made of.
fn summary(rt: &RtModule) -> String {
    let nodes = rt.graphs.iter().flat_map(|g| &g.nodes);
    let count = |f: &dyn Fn(&Kind) -> bool| nodes.clone().filter(|n| f(&n.kind)).count();
    format!(
        "execute graph: {} graphs, {} nodes ({} kernels, {} guarders, {} cond, {} plus-refs, \
         {} PointFromInputs)",
        rt.graphs.len(),
        nodes.clone().count(),
        count(&|k| matches!(k, Kind::Kernel { .. })),
        count(&|k| matches!(k, Kind::Guarder { .. })),
        count(&|k| matches!(k, Kind::Cond { .. })),
        count(&|k| matches!(k, Kind::IdentityAddr)),
        count(&|k| matches!(k, Kind::PointFromInputs)),
    )
}

pub fn run(cli: &Cli, source: &Source) -> Result<(), String> {
    let refused = refused_options(cli);
    if !refused.is_empty() {
        return Err(format!(
            "--execute-graph runs the execute graph on the host; it does not take {}",
            refused.join(", ")
        ));
    }
    let session = Session::new();
    let module = session.compiled(source, cli.pipeline_options.as_deref())?;
    let model_inputs = model_inputs(&module, "main").map_err(|e| e.to_string())?;
    let inputs = crate::read_inputs(cli, &model_inputs)?;
    let passes = RtPasses {
        chain_conflict: !cli.rt_skip.contains(&RtSkip::ChainConflict),
        subgraph_guarders: !cli.rt_skip.contains(&RtSkip::SubgraphGuarders),
        placement_copies: !cli.rt_skip.contains(&RtSkip::PlacementCopies),
    };
    let rt = build_execute_graph(&module, "main", passes)
        .map_err(|e| format!("cannot build the execute graph of `{}`: {e}", source.path))?;
    println!("{}", summary(&rt));
    let expected = if cli.check {
        Some(crate::reference(&session, source, cli, inputs.clone())?)
    } else {
        None
    };
    let mut checked_outputs = 0;
    for k in 0..cli.schedules {
        let schedule = schedule_seed(cli, k);
        let options = ExecuteGraphOptions {
            seed: cli.seed,
            opaque_kernels: cli.opaque_kernels,
            schedule,
            iterations: cli.iterations,
            inputs: inputs.first().cloned().unwrap_or_default(),
            ..ExecuteGraphOptions::default()
        };
        let name = match schedule {
            None => format!("schedule {k} (priority order)"),
            Some(seed) => format!("schedule {k} (seed {seed})"),
        };
        let at = |message: String| {
            if cli.schedules > 1 {
                format!("{name}: {message}")
            } else {
                message
            }
        };
        let run = run_execute_graph(&module, &rt, &options).map_err(|e| at(e.to_string()))?;
        println!("{}", at(format!("run: {}", run.stats)));
        let outputs = run.outputs;
        if let Some(expected) = &expected {
            check(&outputs, &expected[0].outputs).map_err(at)?;
            checked_outputs = outputs.len();
        }
    }
    if expected.is_some() {
        let schedules = match cli.schedules {
            1 => String::new(),
            k => format!(" in each of {k} schedules"),
        };
        println!(
            "execute graph: {checked_outputs} outputs match the reference bit for bit{schedules}"
        );
    }
    Ok(())
}

/// Schedule 0 runs ready nodes in node order (one fixed priority); schedule k ≥ 1 in the
/// random order seeded with `--sim-seed` + k.
fn schedule_seed(cli: &Cli, k: u32) -> Option<u64> {
    (k > 0).then(|| cli.sim_seed.wrapping_add(u64::from(k)))
}

/// `outputs` against the reference's, bit for bit.
fn check(outputs: &[HostTensor], expected: &[HostTensor]) -> Result<(), String> {
    let mut mismatches = Vec::new();
    for (k, actual) in outputs.iter().enumerate() {
        let what = format!("output {k}");
        match expected.get(k) {
            Some(e) => {
                if let Err(m) = compare_bitwise(&what, e, actual) {
                    mismatches.push(m.to_string());
                }
            }
            None => mismatches.push(format!("{what}: the reference has no such output")),
        }
    }
    if expected.len() != outputs.len() {
        mismatches.push(format!(
            "{} outputs, the reference has {}",
            outputs.len(),
            expected.len()
        ));
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "--check: the execute graph differs from the reference:\n  {}",
            mismatches.join("\n  ")
        ))
    }
}
