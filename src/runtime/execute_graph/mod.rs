//! Runs the runtime v2 execute graph (`--lower-to-rt` and its three passes, the
//! `ascend_rt` dialect) as gert's executor would, and checks the memory discipline the
//! passes set up while it runs.
//!
//! A node runs once the nodes it depends on ran, by gert's rules ([`schedule`]: its
//! inputs' producers; for a guarder, every other reader of its tensor or of a view of it,
//! the graph's outputs excepted; for a `CopyD2H`, its source's `SyncStream`), in node
//! order or in a seeded random order; a `cond` reads its predicate on the host and runs
//! the branch frame it picks. Values live in the buffers of [`buffers`]: a kernel output
//! gets a buffer of its own with one reference, `IdentityAddr` adds one, each `FreeMemory`
//! guarder gives one back when it runs, and the memory is released (and poisoned) at
//! zero. A root output reaches the caller through its `EnsureTensorAtOutMemory` copy. Kernels are the reference interpreter's (`ascend_kernels`), looked up by node
//! name in the compiled `ascend` module the execute graph was lowered from; the copies
//! the placement pass inserts move bytes between placements.
//!
//! What the run proves, each an error at the node with the other node named:
//! * no tensor is read after its memory was released (CalcSubgraphGuardersPolicy hands a
//!   branch's outputs to the parent's guarders; without it the branch frees them first);
//! * nothing is released twice, no guarder frees a view, and every counted buffer is
//!   released by the end (a plus-ref nobody gives back leaks);
//! * every kernel reads its inputs at its own placement, the `cond` its predicate on the
//!   host and the root `netoutput` at its placement, with the tensors' placements as they
//!   are at run time (a branch output's included, which the placement pass cannot see);
//! * a device-to-host copy reads only what a `SyncStream` synchronised.
//!
//! Every order a random schedule picks is one gert's rules allow, so a fault any of them
//! finds is the graph's. With those, the outputs are compared bit for bit with the
//! reference interpreter by the caller (`ge-run --execute-graph --check --schedules K`).
//!
//! Variables are model memory: one buffer per Variable for the whole run (every
//! iteration), written in place by a kernel whose ref output (GE's ref rule) or extra
//! written input (ApplyMomentum's `accum`) is on it, as the reference writes its slot.
//! Collectives run on one rank (the reference's rendezvous with a world of one).
//!
//! A `PartitionedCall` is no node: the lowering inlines its callee (gert's
//! `LoweringPartitionedCall`), whose ops the executor finds by name through the call.
//!
//! Not run here: `While` (the execute graph keeps it as a kernel without frames), refused
//! at the node.

pub mod buffers;
mod frame;
pub mod schedule;
#[cfg(test)]
mod tests;

use crate::lowering::model::Input;
use crate::rtgraph::{
    lower::lower_module,
    model::{Module as RtModule, Placement},
    passes::{
        chain_conflict::solve_chain_conflicts, guarders::move_subgraph_guarders,
        placement::insert_placement_copies,
    },
};
use crate::runtime::reference::ReferenceError;
use crate::runtime::reference::{
    initial_variables, program::read_program, rank_inputs, ReferenceOptions,
};
use crate::runtime::tensor::HostTensor;
use buffers::LifetimeFault;
use melior::ir::Module;

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct ExecuteGraphOptions {
    /// The root graph; `None` is `main`.
    pub root: Option<String>,
    /// The model inputs in index order; the rest are seeded as the reference seeds them.
    pub inputs: Vec<HostTensor>,
    pub seed: u64,
    /// An op without a kernel runs `ascend_kernels::opaque`.
    pub opaque_kernels: bool,
    /// `None`: ready nodes run in node order ([`schedule::Schedule::Priority`]);
    /// `Some(seed)`: in a seeded random order.
    pub schedule: Option<u64>,
    /// Runs of the root graph, the Variables keeping their values (0 is one run).
    pub iterations: u32,
}

/// What a run did, summed over its iterations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecuteGraphStats {
    /// Kernel nodes run (copies and SyncStream included).
    pub kernels: u64,
    /// Nodes without a value (Send, Recv, labels, ...), skipped.
    pub no_value: u64,
    /// `cond` nodes run.
    pub conds: u64,
    /// Placement copies run (CopyH2D, CopyD2H, MakeSureTensorAtDevice).
    pub copies: u64,
    pub syncs: u64,
    /// Counted buffers allocated and released, references added by `IdentityAddr`.
    pub allocations: u64,
    pub releases: u64,
    pub plus_refs: u64,
    /// The most kernel-output bytes held at once.
    pub peak_bytes: u64,
    /// The branch frames the conds took, in the order they ran.
    pub branches_taken: Vec<String>,
}

impl std::fmt::Display for ExecuteGraphStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} kernels ({} copies, {} SyncStream), {} cond, {} nodes without a value; \
             {} buffers allocated and {} released, {} plus-refs, peak {} bytes held",
            self.kernels,
            self.copies,
            self.syncs,
            self.conds,
            self.no_value,
            self.allocations,
            self.releases,
            self.plus_refs,
            self.peak_bytes
        )?;
        if !self.branches_taken.is_empty() {
            write!(f, "; branches taken: @{}", self.branches_taken.join(", @"))?;
        }
        Ok(())
    }
}

/// The outputs of a run (the root `netoutput`'s inputs, in order) and what it did.
#[derive(Debug, Clone)]
pub struct ExecuteGraphRun {
    pub outputs: Vec<HostTensor>,
    pub stats: ExecuteGraphStats,
}

/// What went wrong, at which node.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecError {
    /// The graph (function) of the node.
    pub graph: String,
    /// The node (`` `name` `` or its kind for unnamed guarders and outputs).
    pub node: String,
    /// Boxed: errors travel up every frame, and most runs have none.
    pub fault: Box<Fault>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    Lifetime(LifetimeFault),
    /// Input `input` is at `found` but the node reads it at `needed`.
    Placement {
        input: usize,
        needed: Placement,
        found: Placement,
        made_by: String,
    },
    /// A device-to-host copy of memory no `SyncStream` synchronised.
    Unsynced {
        made_by: String,
    },
    /// Counted buffers nobody released: (made by, references left).
    Leak(Vec<(String, u32)>),
    /// A node this executor does not run.
    Unsupported(String),
    /// An execute graph that does not fit its `ascend` module.
    Malformed(String),
    /// The kernel or the reference's reading of the module failed.
    Reference(ReferenceError),
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "execute graph @{}, {}: ", self.graph, self.node)?;
        match self.fault.as_ref() {
            Fault::Lifetime(l) => write!(f, "{l}"),
            Fault::Placement {
                input,
                needed,
                found,
                made_by,
            } => write!(
                f,
                "reads input {input} (the output of {made_by}) on {needed}, but it is on \
                 {found} and no copy moves it"
            ),
            Fault::Unsynced { made_by } => write!(
                f,
                "copies the output of {made_by} to the host before a SyncStream on its \
                 producer"
            ),
            Fault::Leak(held) => {
                let shown: Vec<String> = held
                    .iter()
                    .take(5)
                    .map(|(who, refs)| format!("{who} ({refs} reference(s) left)"))
                    .collect();
                write!(
                    f,
                    "{} buffer(s) never released: {}{}",
                    held.len(),
                    shown.join(", "),
                    if held.len() > 5 { ", ..." } else { "" }
                )
            }
            Fault::Unsupported(m) | Fault::Malformed(m) => write!(f, "{m}"),
            Fault::Reference(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ExecError {}

/// Which of the execute-graph passes to apply after `--lower-to-rt` (all by default; fewer
/// only to show what the run catches without them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtPasses {
    pub chain_conflict: bool,
    pub subgraph_guarders: bool,
    pub placement_copies: bool,
}

impl Default for RtPasses {
    fn default() -> Self {
        RtPasses {
            chain_conflict: true,
            subgraph_guarders: true,
            placement_copies: true,
        }
    }
}

/// The execute graph of a compiled module: `--lower-to-rt`, then the passes of `passes`
/// in the pipeline's order (`--rt-chain-conflict`, `--rt-subgraph-guarders`,
/// `--rt-placement-copies`), as `ge-opt` would apply them.
pub fn build_execute_graph(
    module: &Module<'_>,
    root: &str,
    passes: RtPasses,
) -> Result<RtModule, String> {
    let mut rt = lower_module(module.as_operation(), root).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| e.message)
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    if passes.chain_conflict {
        solve_chain_conflicts(&mut rt).map_err(|e| format!("rt-chain-conflict: {e}"))?;
    }
    if passes.subgraph_guarders {
        move_subgraph_guarders(&mut rt).map_err(|e| format!("rt-subgraph-guarders: {e}"))?;
    }
    if passes.placement_copies {
        insert_placement_copies(&mut rt);
    }
    Ok(rt)
}

/// The model inputs of `module`'s root graph `root` in index order, as `ge-run --input`
/// names and checks them.
pub fn model_inputs(module: &Module<'_>, root: &str) -> Result<Vec<Input>, ExecError> {
    let program = read_program(module, root).map_err(|e| ExecError {
        graph: root.to_owned(),
        node: "the module".to_owned(),
        fault: Box::new(Fault::Reference(e)),
    })?;
    Ok(program
        .inputs
        .iter()
        .enumerate()
        .map(|(k, decl)| Input {
            index: k as u32,
            node: decl.node.clone(),
            desc: decl.desc.clone(),
        })
        .collect())
}

/// Runs `rt`, the execute graph of the compiled `module`, `options.iterations` times.
pub fn run_execute_graph(
    module: &Module<'_>,
    rt: &RtModule,
    options: &ExecuteGraphOptions,
) -> Result<ExecuteGraphRun, ExecError> {
    let root = options.root.as_deref().unwrap_or("main");
    let at_module = |fault: Fault| ExecError {
        graph: root.to_owned(),
        node: "the module".to_owned(),
        fault: Box::new(fault),
    };
    let program = read_program(module, root).map_err(|e| at_module(Fault::Reference(e)))?;
    let reference = ReferenceOptions {
        inputs: vec![options.inputs.clone()],
        seed: options.seed,
        ..ReferenceOptions::default()
    };
    let inputs =
        rank_inputs(&program, &reference, 0).map_err(|e| at_module(Fault::Reference(e)))?;
    let schedule = schedule::Schedule::new(options.schedule);
    let variables = initial_variables(&program, options.seed);
    frame::Executor::new(
        &program,
        rt,
        inputs,
        options.opaque_kernels,
        schedule,
        variables,
    )
    .run(root, options.iterations)
}
