//! The reference interpreter: the oracle every lowered, scheduled run is compared against.
//!
//! It runs the graph *as written* (an `ascend` module before `--ge-compile`, or the same
//! module after it: the copies the passes insert preserve values, and the ops they add for
//! streams, events, labels and atomic cleaning have no value effect), op by op in program
//! order, each value in its own buffer, with the very kernels the simulator runs
//! (`ascend_kernels::execute`). Nothing of the memory plan or the streams is used, so a
//! difference from a device run can only come from the schedule, the plan or the tasks.
//!
//! Semantics, per op:
//! * Data (root graph): model input `index`, given or seeded by the rule of
//!   [`crate::runtime::tensor`]; in a subgraph: the parent's input (shared, a Variable too).
//! * Const: its `value` (a splat expanded). Variable: one slot per node name across all
//!   graphs, starting from its `value` if it has one, else seeded, kept across graphs and
//!   iterations; a reader reads its value when it runs.
//! * Identity / Memcpy / ReadVariableOp / Reshape and the other copies: a copy.
//! * A kernel op: `ascend_kernels::execute` (or `opaque` with `opaque_kernels` when no
//!   kernel exists). An output that references an input (GE's ref rule, the op table's
//!   names) writes that input's Variable when it holds one (Assign, AssignAdd,
//!   ApplyMomentum); ApplyMomentum's kernel also writes `accum`, its second output.
//! * If (scalar predicate nonzero, a non-scalar one non-empty), Case (index clamped to the
//!   last branch), While (cond, then body, bounded by `while_limit`), PartitionedCall: the
//!   subgraphs' results get buffers of their own.
//! * Hcom collectives: a rendezvous of all ranks, reduced in rank order.
//! * Send / Recv / notifies / StreamActive / labels / AtomicAddrClean / NoOp: no value
//!   effect (control operands only order, and program order already respects them).

mod attrs;
pub(crate) mod collective;
pub(crate) mod interp;
pub(crate) mod program;
#[cfg(test)]
mod tests;

pub use attrs::dense_bytes;
pub use collective::reduce_into;
pub use interp::predicate;
pub use program::{extra_written_inputs, parse_reduction};

use crate::lowering::model::TensorDesc;
use crate::runtime::tensor::{input_seed_name, variable_seed_name, HostTensor};
use melior::ir::Module;
use program::Program;

/// How to run the reference.
#[derive(Debug, Clone)]
pub struct ReferenceOptions {
    /// The root graph; `None` is `main`.
    pub root: Option<String>,
    /// Per rank, the model inputs in index order; inputs not given (a shorter or missing
    /// list) are seeded: `seeded_fill(seed + rank, input_seed_name(node), ..)`.
    pub inputs: Vec<Vec<HostTensor>>,
    pub seed: u64,
    /// Runs of the root graph; Variables carry over, the outputs are the last run's.
    pub iterations: u32,
    pub ranks: u32,
    /// An op without a kernel runs `ascend_kernels::opaque` instead of failing.
    pub opaque_kernels: bool,
    /// The most body runs of one While before the run fails.
    pub while_limit: u64,
}

impl Default for ReferenceOptions {
    fn default() -> Self {
        ReferenceOptions {
            root: None,
            inputs: Vec::new(),
            seed: 0,
            iterations: 1,
            ranks: 1,
            opaque_kernels: false,
            while_limit: 1_000_000,
        }
    }
}

/// One rank's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceResult {
    /// The root graph's outputs of the last iteration, in `func.return` order.
    pub outputs: Vec<HostTensor>,
    /// Every Variable after the last iteration, by node name (sorted).
    pub variables: Vec<(String, HostTensor)>,
}

/// Why the reference could not run.
#[derive(Debug, Clone, PartialEq)]
pub enum ReferenceError {
    /// The module is not something the interpreter can run (no root graph, a dynamic
    /// shape, a non-ascend op, ...).
    Module(String),
    /// An op that cannot run as it is written.
    Node {
        node: String,
        op_type: String,
        message: String,
    },
    /// No kernel for the op (and `opaque_kernels` is off).
    NoKernel { node: String, op_type: String },
    /// The kernel refused its inputs, outputs or attributes.
    Kernel {
        node: String,
        op_type: String,
        message: String,
    },
    /// A While ran its body `limit` times and its cond still held.
    WhileBound { node: String, limit: u64 },
    /// A graph reads an input nobody gives it.
    MissingInput { node: String, message: String },
    /// A model input given in the options does not fit the graph.
    Input {
        rank: u32,
        index: usize,
        message: String,
    },
    /// The ranks disagree at a collective, or one never reaches it.
    Collective { node: String, message: String },
    /// Another rank failed (its error is the one reported).
    PeerFailed { rank: u32 },
    /// An error on one rank of a multi-rank run.
    OnRank {
        rank: u32,
        error: Box<ReferenceError>,
    },
}

impl ReferenceError {
    fn module(message: impl Into<String>) -> Self {
        ReferenceError::Module(message.into())
    }
}

impl std::fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let typed = |op_type: &str| {
            if op_type.is_empty() {
                String::new()
            } else {
                format!(" ({op_type})")
            }
        };
        match self {
            ReferenceError::Module(m) => write!(f, "reference: {m}"),
            ReferenceError::Node {
                node,
                op_type,
                message,
            } => write!(f, "reference: node `{node}`{}: {message}", typed(op_type)),
            ReferenceError::NoKernel { node, op_type } => write!(
                f,
                "reference: node `{node}`: no kernel for op type `{op_type}` \
                 (--opaque-kernels runs a stand-in)"
            ),
            ReferenceError::Kernel {
                node,
                op_type,
                message,
            } => write!(f, "reference: node `{node}` ({op_type}): kernel: {message}"),
            ReferenceError::WhileBound { node, limit } => write!(
                f,
                "reference: While `{node}` still loops after {limit} iterations"
            ),
            ReferenceError::MissingInput { node, message } => {
                write!(f, "reference: missing input at `{node}`: {message}")
            }
            ReferenceError::Input {
                rank,
                index,
                message,
            } => write!(
                f,
                "reference: model input {index} of rank {rank}: {message}"
            ),
            ReferenceError::Collective { node, message } => {
                write!(f, "reference: collective `{node}`: {message}")
            }
            ReferenceError::PeerFailed { rank } => write!(f, "reference: rank {rank} failed"),
            ReferenceError::OnRank { rank, error } => write!(f, "rank {rank}: {error}"),
        }
    }
}

impl std::error::Error for ReferenceError {}

/// Runs `module`'s root graph `options.iterations` times on every rank.
pub fn run_reference(
    module: &Module<'_>,
    options: &ReferenceOptions,
) -> Result<Vec<ReferenceResult>, ReferenceError> {
    let root = options.root.as_deref().unwrap_or("main");
    let program = program::read_program(module, root)?;
    run_program(&program, options)
}

fn run_program(
    program: &Program,
    options: &ReferenceOptions,
) -> Result<Vec<ReferenceResult>, ReferenceError> {
    if options.ranks == 0 {
        return Err(ReferenceError::module("ranks must be at least 1"));
    }
    let inputs: Vec<Vec<HostTensor>> = (0..options.ranks)
        .map(|r| rank_inputs(program, options, r))
        .collect::<Result<_, _>>()?;
    let initial = initial_variables(program, options.seed);
    let comm = collective::Comm::new(options.ranks as usize);
    let run_rank = |rank: u32| -> Result<ReferenceResult, ReferenceError> {
        let mut interp = interp::Rank::new(
            program,
            rank,
            &comm,
            initial.clone(),
            options.opaque_kernels,
            options.while_limit,
        );
        let mut outputs = Vec::new();
        let mut result = Ok(());
        for _ in 0..options.iterations {
            match interp.run_root(&inputs[rank as usize]) {
                Ok(o) => outputs = o,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        comm.leave(rank, result.is_err());
        result?;
        let mut variables: Vec<(String, HostTensor)> = program
            .variables
            .iter()
            .map(|v| v.name.clone())
            .zip(interp.into_variables())
            .collect();
        variables.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(ReferenceResult { outputs, variables })
    };
    if options.ranks == 1 {
        return Ok(vec![run_rank(0)?]);
    }
    let results: Vec<Result<ReferenceResult, ReferenceError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..options.ranks)
            .map(|r| {
                let run_rank = &run_rank;
                s.spawn(move || run_rank(r))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ReferenceError::module(
                        "a rank's interpreter thread panicked",
                    ))
                })
            })
            .collect()
    });
    // Report the first rank's own error, not the "a peer failed" of the ranks it stopped.
    let primary = results.iter().enumerate().find_map(|(r, res)| match res {
        Err(ReferenceError::PeerFailed { .. }) | Ok(_) => None,
        Err(e) => Some((r, e.clone())),
    });
    if let Some((rank, error)) = primary {
        return Err(ReferenceError::OnRank {
            rank: rank as u32,
            error: Box::new(error),
        });
    }
    results.into_iter().collect()
}

/// Rank `rank`'s model inputs: the given ones (checked against the graph), the rest seeded.
pub(crate) fn rank_inputs(
    program: &Program,
    options: &ReferenceOptions,
    rank: u32,
) -> Result<Vec<HostTensor>, ReferenceError> {
    let given = options.inputs.get(rank as usize);
    program
        .inputs
        .iter()
        .enumerate()
        .map(|(k, decl)| match given.and_then(|g| g.get(k)) {
            Some(t) => {
                if t.desc.dtype != decl.desc.dtype || t.desc.dims != decl.desc.dims {
                    return Err(ReferenceError::Input {
                        rank,
                        index: k,
                        message: format!(
                            "Data `{}` is {:?} {:?}, the given tensor {:?} {:?}",
                            decl.node, decl.desc.dtype, decl.desc.dims, t.desc.dtype, t.desc.dims
                        ),
                    });
                }
                if t.bytes.len() as u64 != t.desc.bytes() {
                    return Err(ReferenceError::Input {
                        rank,
                        index: k,
                        message: format!(
                            "{} bytes for a tensor of {}",
                            t.bytes.len(),
                            t.desc.bytes()
                        ),
                    });
                }
                Ok(t.clone())
            }
            None => Ok(seeded(
                options.seed.wrapping_add(u64::from(rank)),
                &input_seed_name(&decl.node),
                &decl.desc,
            )),
        })
        .collect()
}

/// Every Variable's value before the first iteration, by slot: its `value` when it has one,
/// else seeded with `seed` (shared with the execute-graph executor, so both start alike).
pub(crate) fn initial_variables(program: &Program, seed: u64) -> Vec<HostTensor> {
    program
        .variables
        .iter()
        .map(|v| match &v.init {
            Some(bytes) => HostTensor {
                desc: v.desc.clone(),
                bytes: bytes.clone(),
            },
            None => seeded(seed, &variable_seed_name(&v.name), &v.desc),
        })
        .collect()
}

fn seeded(seed: u64, name: &str, desc: &TensorDesc) -> HostTensor {
    HostTensor {
        desc: desc.clone(),
        bytes: ascend_kernels::seeded_fill(seed, name, desc.dtype, &desc.dims),
    }
}
