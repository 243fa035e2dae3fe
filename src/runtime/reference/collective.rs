//! HCCL collectives across the ranks of a reference run.
//!
//! Every rank interprets its own copy of the graph on its own thread; a collective is a
//! rendezvous: each rank runs up to it, deposits its inputs and waits until every rank has
//! arrived; the last one computes every rank's outputs from all inputs in rank order
//! (0..N, whoever arrived first), so the result does not depend on thread timing. A rank
//! that finishes or fails while others wait makes their wait an error, never a hang.

use super::program::Op;
use super::ReferenceError;
use crate::lowering::model::{Collective, Reduction};
use crate::runtime::tensor::HostTensor;
use ascend_kernels::DType;
use half::{bf16, f16};
use std::sync::{Condvar, Mutex};

/// The communicator of one reference run.
pub struct Comm {
    state: Mutex<State>,
    wake: Condvar,
}

struct Arrival {
    node: String,
    op_type: String,
    collective: Collective,
    reduction: Reduction,
    root_rank: u32,
    inputs: Vec<HostTensor>,
    output_descs: Vec<crate::lowering::model::TensorDesc>,
}

#[derive(Default)]
struct State {
    arrivals: Vec<Option<Arrival>>,
    results: Vec<Option<Vec<HostTensor>>>,
    /// Ranks whose run has ended (successfully or not).
    finished: Vec<bool>,
    /// A rank that failed (its own error is reported by it).
    failed: Option<u32>,
    /// The error of the last rendezvous, for every rank that took part in it.
    mismatch: Option<String>,
}

impl Comm {
    pub fn new(ranks: usize) -> Self {
        Comm {
            state: Mutex::new(State {
                arrivals: (0..ranks).map(|_| None).collect(),
                results: vec![None; ranks],
                finished: vec![false; ranks],
                failed: None,
                mismatch: None,
            }),
            wake: Condvar::new(),
        }
    }

    /// Rank `rank` reaches collective `op` with `inputs`; returns its outputs once every
    /// rank has reached its collective.
    pub fn exchange(
        &self,
        rank: u32,
        op: &Op,
        collective: Collective,
        reduction: Reduction,
        root_rank: u32,
        inputs: Vec<HostTensor>,
    ) -> Result<Vec<HostTensor>, ReferenceError> {
        let r = rank as usize;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.arrivals[r] = Some(Arrival {
            node: op.node.clone(),
            op_type: op.ge_type.clone(),
            collective,
            reduction,
            root_rank,
            inputs,
            output_descs: op.output_descs.clone(),
        });
        if state.arrivals.iter().all(Option::is_some) {
            let arrivals: Vec<Arrival> = state
                .arrivals
                .iter_mut()
                .map(|a| a.take().unwrap())
                .collect();
            match compute(&arrivals) {
                Ok(results) => {
                    for (slot, result) in state.results.iter_mut().zip(results) {
                        *slot = Some(result);
                    }
                }
                Err(message) => state.mismatch = Some(message),
            }
            self.wake.notify_all();
        }
        loop {
            if let Some(result) = state.results[r].take() {
                return Ok(result);
            }
            if let Some(message) = &state.mismatch {
                return Err(ReferenceError::Collective {
                    node: op.node.clone(),
                    message: message.clone(),
                });
            }
            if let Some(peer) = state.failed {
                return Err(ReferenceError::PeerFailed { rank: peer });
            }
            if let Some(peer) = state.finished.iter().position(|&f| f) {
                return Err(ReferenceError::Collective {
                    node: op.node.clone(),
                    message: format!(
                        "rank {rank} waits in it, but rank {peer} finished its run without \
                         reaching a collective"
                    ),
                });
            }
            state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Rank `rank`'s run has ended; `failed` when it ended with an error.
    pub fn leave(&self, rank: u32, failed: bool) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.finished[rank as usize] = true;
        if failed && state.failed.is_none() {
            state.failed = Some(rank);
        }
        self.wake.notify_all();
    }
}

/// Every rank's outputs of one collective, from every rank's arrival (indexed by rank).
fn compute(arrivals: &[Arrival]) -> Result<Vec<Vec<HostTensor>>, String> {
    let first = &arrivals[0];
    for (r, a) in arrivals.iter().enumerate().skip(1) {
        if a.collective != first.collective || a.inputs.len() != first.inputs.len() {
            return Err(format!(
                "rank 0 is in `{}` ({}) but rank {r} in `{}` ({})",
                first.node, first.op_type, a.node, a.op_type
            ));
        }
        for (i, (x, y)) in first.inputs.iter().zip(&a.inputs).enumerate() {
            if x.desc.dtype != y.desc.dtype || x.bytes.len() != y.bytes.len() {
                return Err(format!(
                    "input {i} is {:?} {:?} on rank 0 but {:?} {:?} on rank {r}",
                    x.desc.dtype, x.desc.dims, y.desc.dtype, y.desc.dims
                ));
            }
        }
    }
    let n = arrivals.len();
    let per_rank: Vec<Vec<Vec<u8>>> = match first.collective {
        Collective::AllReduce => {
            let reduced: Vec<Vec<u8>> = (0..first.inputs.len())
                .map(|i| reduce_over_ranks(arrivals, i, first.reduction))
                .collect::<Result<_, _>>()?;
            vec![reduced; n]
        }
        Collective::Broadcast => {
            let root = first.root_rank as usize;
            let source = arrivals
                .get(root)
                .ok_or_else(|| format!("root_rank {root} is not a rank (there are {n})"))?;
            let bytes: Vec<Vec<u8>> = source.inputs.iter().map(|t| t.bytes.clone()).collect();
            vec![bytes; n]
        }
        Collective::AllGather => {
            let gathered: Vec<Vec<u8>> = (0..first.inputs.len())
                .map(|i| {
                    arrivals
                        .iter()
                        .flat_map(|a| a.inputs[i].bytes.iter().copied())
                        .collect()
                })
                .collect();
            vec![gathered; n]
        }
        Collective::ReduceScatter => {
            let reduced = reduce_over_ranks(arrivals, 0, first.reduction)?;
            if reduced.len() % n != 0 {
                return Err(format!(
                    "{} bytes do not scatter evenly over {n} ranks",
                    reduced.len()
                ));
            }
            let chunk = reduced.len() / n;
            (0..n)
                .map(|r| vec![reduced[r * chunk..(r + 1) * chunk].to_vec()])
                .collect()
        }
    };
    arrivals
        .iter()
        .zip(per_rank)
        .map(|(a, outputs)| {
            if outputs.len() < a.output_descs.len() {
                return Err(format!(
                    "{} outputs for {} results",
                    outputs.len(),
                    a.output_descs.len()
                ));
            }
            a.output_descs
                .iter()
                .zip(outputs)
                .map(|(desc, bytes)| {
                    if bytes.len() as u64 != desc.bytes() {
                        return Err(format!(
                            "the result has {} bytes, the output {:?} {:?} {}",
                            bytes.len(),
                            desc.dtype,
                            desc.dims,
                            desc.bytes()
                        ));
                    }
                    Ok(HostTensor {
                        desc: desc.clone(),
                        bytes,
                    })
                })
                .collect()
        })
        .collect()
}

/// Input `i` of every rank reduced element by element in rank order 0..N.
fn reduce_over_ranks(arrivals: &[Arrival], i: usize, op: Reduction) -> Result<Vec<u8>, String> {
    let dtype = arrivals[0].inputs[i].desc.dtype;
    let mut acc = arrivals[0].inputs[i].bytes.clone();
    for a in &arrivals[1..] {
        reduce_into(&mut acc, &a.inputs[i].bytes, dtype, op);
    }
    Ok(acc)
}

/// `acc[k] = acc[k] op x[k]` for every element, in the element type's arithmetic (f16 and
/// bf16 computed in f32 and rounded back at each step; integers wrap; bools: sum and max
/// are "or", prod and min are "and").
pub fn reduce_into(acc: &mut [u8], x: &[u8], dtype: DType, op: Reduction) {
    macro_rules! num {
        ($t:ty, $n:expr, $add:expr, $mul:expr, $max:expr, $min:expr) => {
            for (a, b) in acc.chunks_exact_mut($n).zip(x.chunks_exact($n)) {
                let p = <$t>::from_le_bytes(a.try_into().unwrap());
                let q = <$t>::from_le_bytes(b.try_into().unwrap());
                let r: $t = match op {
                    Reduction::Sum => $add(p, q),
                    Reduction::Prod => $mul(p, q),
                    Reduction::Max => $max(p, q),
                    Reduction::Min => $min(p, q),
                };
                a.copy_from_slice(&r.to_le_bytes());
            }
        };
    }
    macro_rules! int {
        ($t:ty) => {
            num!(
                $t,
                std::mem::size_of::<$t>(),
                <$t>::wrapping_add,
                <$t>::wrapping_mul,
                std::cmp::max,
                std::cmp::min
            )
        };
    }
    macro_rules! float {
        ($t:ty) => {
            num!(
                $t,
                std::mem::size_of::<$t>(),
                |p: $t, q: $t| p + q,
                |p: $t, q: $t| p * q,
                <$t>::max,
                <$t>::min
            )
        };
    }
    macro_rules! half {
        ($t:ty) => {
            for (a, b) in acc.chunks_exact_mut(2).zip(x.chunks_exact(2)) {
                let p = <$t>::from_le_bytes([a[0], a[1]]).to_f32();
                let q = <$t>::from_le_bytes([b[0], b[1]]).to_f32();
                let r = match op {
                    Reduction::Sum => p + q,
                    Reduction::Prod => p * q,
                    Reduction::Max => p.max(q),
                    Reduction::Min => p.min(q),
                };
                a.copy_from_slice(&<$t>::from_f32(r).to_le_bytes());
            }
        };
    }
    match dtype {
        DType::F32 => float!(f32),
        DType::F64 => float!(f64),
        DType::F16 => half!(f16),
        DType::BF16 => half!(bf16),
        DType::I8 => int!(i8),
        DType::U8 => int!(u8),
        DType::I16 => int!(i16),
        DType::U16 => int!(u16),
        DType::I32 => int!(i32),
        DType::U32 => int!(u32),
        DType::I64 => int!(i64),
        DType::U64 => int!(u64),
        DType::Bool => {
            for (a, &b) in acc.iter_mut().zip(x) {
                let (p, q) = (*a != 0, b != 0);
                *a = match op {
                    Reduction::Sum | Reduction::Max => p || q,
                    Reduction::Prod | Reduction::Min => p && q,
                } as u8;
            }
        }
    }
}
