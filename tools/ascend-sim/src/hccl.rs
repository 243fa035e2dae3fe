//! HCCL: communicators and the collectives' arithmetic.
//!
//! One communicator group spans the ranks of one `HcclCommInitAll` (or of one root info).
//! The k-th collective a rank's stream reaches on a group meets the k-th of every other
//! rank: it starts when all have reached it, reads every send buffer then and writes every
//! receive buffer when it ends. Reductions run in rank order 0, 1, ..., so results are
//! the same on every run.

use std::collections::VecDeque;

use half::{bf16, f16};

use crate::cost::CollectiveShape;
use crate::handles::Id;
use crate::scheduler::Work;
use crate::sim::Sim;
use crate::task::{CollectiveOp, CollectiveTask, ReduceOp};

/// `HcclResult` codes.
pub const HCCL_SUCCESS: i32 = 0;
pub const HCCL_E_PARA: i32 = 1;
pub const HCCL_E_PTR: i32 = 2;
pub const HCCL_E_MEMORY: i32 = 3;
pub const HCCL_E_INTERNAL: i32 = 4;
pub const HCCL_E_NOT_SUPPORT: i32 = 5;
pub const HCCL_E_NOT_FOUND: i32 = 6;
pub const HCCL_E_UNAVAIL: i32 = 7;

/// `HcclDataType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HcclType {
    I8,
    I16,
    I32,
    F16,
    F32,
    I64,
    U64,
    U8,
    U16,
    U32,
    F64,
    BF16,
}

impl HcclType {
    pub fn from_code(c: i32) -> Option<HcclType> {
        use HcclType::*;
        Some(match c {
            0 => I8,
            1 => I16,
            2 => I32,
            3 => F16,
            4 => F32,
            5 => I64,
            6 => U64,
            7 => U8,
            8 => U16,
            9 => U32,
            10 => F64,
            11 => BF16,
            _ => return None,
        })
    }

    pub fn size(self) -> u64 {
        use HcclType::*;
        match self {
            I8 | U8 => 1,
            I16 | U16 | F16 | BF16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }
}

pub fn reduce_op(c: i32) -> Option<ReduceOp> {
    Some(match c {
        0 => ReduceOp::Sum,
        1 => ReduceOp::Prod,
        2 => ReduceOp::Max,
        3 => ReduceOp::Min,
        _ => return None,
    })
}

#[derive(Debug)]
pub struct Group {
    pub nranks: u32,
    /// Device of each rank (`None`: not joined yet, root-info groups).
    pub devices: Vec<Option<u32>>,
    /// Per rank, the streams whose head collective has arrived, oldest first.
    pub arrivals: Vec<VecDeque<Id>>,
}

#[derive(Debug, Clone, Copy)]
pub struct Comm {
    pub group: usize,
    pub rank: u32,
    pub dev: u32,
}

macro_rules! reduce_ints {
    ($t:ty, $bufs:expr, $op:expr) => {{
        let size = std::mem::size_of::<$t>();
        let n = $bufs[0].len() / size;
        let get = |b: &[u8], i: usize| {
            <$t>::from_le_bytes(b[i * size..(i + 1) * size].try_into().unwrap())
        };
        let mut out = Vec::with_capacity(n * size);
        for i in 0..n {
            let mut acc = get(&$bufs[0], i);
            for b in &$bufs[1..] {
                let x = get(b, i);
                acc = match $op {
                    ReduceOp::Sum => acc.wrapping_add(x),
                    ReduceOp::Prod => acc.wrapping_mul(x),
                    ReduceOp::Max => acc.max(x),
                    ReduceOp::Min => acc.min(x),
                };
            }
            out.extend_from_slice(&acc.to_le_bytes());
        }
        out
    }};
}

/// Floats reduce in the element type's own arithmetic, rank by rank (f16 and bf16 are
/// rounded after every step, as an accumulation in that type is).
macro_rules! reduce_floats {
    ($t:ty, $bufs:expr, $op:expr, $to:expr, $from:expr) => {{
        let size = std::mem::size_of::<$t>();
        let n = $bufs[0].len() / size;
        let get = |b: &[u8], i: usize| {
            <$t>::from_le_bytes(b[i * size..(i + 1) * size].try_into().unwrap())
        };
        let mut out = Vec::with_capacity(n * size);
        for i in 0..n {
            let mut acc = get(&$bufs[0], i);
            for b in &$bufs[1..] {
                let (a, x) = ($to(acc), $to(get(b, i)));
                acc = $from(match $op {
                    ReduceOp::Sum => a + x,
                    ReduceOp::Prod => a * x,
                    ReduceOp::Max => a.max(x),
                    ReduceOp::Min => a.min(x),
                });
            }
            out.extend_from_slice(&acc.to_le_bytes());
        }
        out
    }};
}

/// Element-wise reduction of equally long buffers in rank order.
pub fn reduce(dtype: HcclType, op: ReduceOp, bufs: &[&[u8]]) -> Vec<u8> {
    use HcclType::*;
    match dtype {
        I8 => reduce_ints!(i8, bufs, op),
        U8 => reduce_ints!(u8, bufs, op),
        I16 => reduce_ints!(i16, bufs, op),
        U16 => reduce_ints!(u16, bufs, op),
        I32 => reduce_ints!(i32, bufs, op),
        U32 => reduce_ints!(u32, bufs, op),
        I64 => reduce_ints!(i64, bufs, op),
        U64 => reduce_ints!(u64, bufs, op),
        F32 => reduce_floats!(f32, bufs, op, |x: f32| x, |x: f32| x),
        F64 => reduce_floats!(f64, bufs, op, |x: f64| x, |x: f64| x),
        F16 => reduce_floats!(f16, bufs, op, f16::to_f32, f16::from_f32),
        BF16 => reduce_floats!(bf16, bufs, op, bf16::to_f32, bf16::from_f32),
    }
}

impl Sim {
    /// The bytes every rank's receive buffer gets, and the collective's nominal duration.
    pub(crate) fn collective_effects(
        &self,
        tasks: &[CollectiveTask],
    ) -> Result<(u64, Work), String> {
        let first = &tasks[0];
        for t in &tasks[1..] {
            if t.op != first.op || t.count != first.count || t.dtype != first.dtype {
                return Err(format!(
                    "collective mismatch on communicator group {}: rank {} issued {} ({:?}, count {}, {:?}) \
                     but rank {} issued {} ({:?}, count {}, {:?})",
                    first.group,
                    first.rank,
                    first.op.name(),
                    first.op,
                    first.count,
                    first.dtype,
                    t.rank,
                    t.op.name(),
                    t.op,
                    t.count,
                    t.dtype
                ));
            }
        }
        let n = tasks.len() as u64;
        let mut sorted: Vec<&CollectiveTask> = tasks.iter().collect();
        sorted.sort_by_key(|t| t.rank);
        let bytes = first.count * first.dtype.size();
        let read = |t: &CollectiveTask, addr: u64, len: u64| -> Result<Vec<u8>, String> {
            self.mem
                .read("", addr, len)
                .map(<[u8]>::to_vec)
                .map_err(|e| {
                    format!(
                        "{} rank {}: {}",
                        t.op.name(),
                        t.rank,
                        e.msg.trim_start_matches(": ")
                    )
                })
        };
        let p = self.cfg.device;
        let mut writes = Vec::with_capacity(tasks.len());
        let ns = match first.op {
            CollectiveOp::AllReduce(op) => {
                let sends = sorted
                    .iter()
                    .map(|t| read(t, t.send, bytes))
                    .collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&[u8]> = sends.iter().map(Vec::as_slice).collect();
                let out = reduce(first.dtype, op, &refs);
                for t in &sorted {
                    writes.push((t.recv, out.clone()));
                }
                p.collective_ns(CollectiveShape::AllReduce, n as u32, bytes)
            }
            CollectiveOp::Broadcast { root } => {
                let Some(r) = sorted.iter().find(|t| t.rank == root) else {
                    return Err(format!(
                        "HcclBroadcast: root {root} is not a rank of the communicator"
                    ));
                };
                let data = read(r, r.send, bytes)?;
                for t in &sorted {
                    writes.push((t.recv, data.clone()));
                }
                p.collective_ns(CollectiveShape::Broadcast, n as u32, bytes)
            }
            CollectiveOp::AllGather => {
                let mut out = Vec::with_capacity((bytes * n) as usize);
                for t in &sorted {
                    out.extend(read(t, t.send, bytes)?);
                }
                for t in &sorted {
                    writes.push((t.recv, out.clone()));
                }
                p.collective_ns(CollectiveShape::Gather, n as u32, bytes * n)
            }
            CollectiveOp::ReduceScatter(op) => {
                let sends = sorted
                    .iter()
                    .map(|t| read(t, t.send, bytes * n))
                    .collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&[u8]> = sends.iter().map(Vec::as_slice).collect();
                let out = reduce(first.dtype, op, &refs);
                for t in &sorted {
                    let off = (t.rank as u64 * bytes) as usize;
                    writes.push((t.recv, out[off..off + bytes as usize].to_vec()));
                }
                p.collective_ns(CollectiveShape::Gather, n as u32, bytes * n)
            }
        };
        Ok((ns, Work::Collective { writes }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_in_rank_order() {
        let a: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let b: Vec<u8> = [2.0f32, 3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let sum = reduce(HcclType::F32, ReduceOp::Sum, &[&a, &b]);
        assert_eq!(
            sum,
            [3.5f32, 1.0]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
        );
        let max = reduce(HcclType::F32, ReduceOp::Max, &[&a, &b]);
        assert_eq!(
            max,
            [2.0f32, 3.0]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
        );
        let i8s = reduce(HcclType::I8, ReduceOp::Sum, &[&[100u8], &[100u8]]);
        assert_eq!(i8s, vec![200u8]); // wraps: 100 + 100 = -56 as i8
        let h: Vec<u8> = f16::from_f32(1.0).to_le_bytes().to_vec();
        let p = reduce(HcclType::F16, ReduceOp::Prod, &[&h, &h, &h]);
        assert_eq!(f16::from_le_bytes([p[0], p[1]]).to_f32(), 1.0);
        let mn = reduce(
            HcclType::I64,
            ReduceOp::Min,
            &[&(-5i64).to_le_bytes(), &7i64.to_le_bytes()],
        );
        assert_eq!(i64::from_le_bytes(mn.try_into().unwrap()), -5);
    }
}
