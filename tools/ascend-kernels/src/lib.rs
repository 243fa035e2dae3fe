//! The numeric kernels of the GE op types ge-mlir executes, shared by the device simulator
//! (`tools/ascend-sim`, behind `aclopExecuteV2`) and the reference interpreter
//! (`ge_mlir::runtime::reference`). One implementation for both sides is what makes a
//! bit-for-bit comparison meaningful: a mismatch can only come from the schedule, the memory
//! plan or the task lists, never from two kernels rounding differently.
//!
//! This crate links no MLIR and no ACL: it works on byte buffers with a dtype and a shape.
//!
//! Contract (fixed; the simulator and the interpreter are written against it):
//! * [`execute`] runs op `op_type` on `inputs`, writing every byte of every output;
//! * outputs arrive with their dtype and dims set (from the compiled graph), and their
//!   byte length is at least `dims.product() * dtype.size()`;
//! * an op type without a kernel is [`KernelError::NotFound`] (the simulator maps it to
//!   `ACL_ERROR_OP_NOT_FOUND`); wrong arity, dtype or shape is [`KernelError::Invalid`];
//! * kernels are deterministic and single-threaded: the same inputs give the same bytes.

// Tests pass literal tensors as `&[x.clone()]` throughout; from_ref would only add noise.
#![cfg_attr(test, allow(clippy::cloned_ref_to_slice_refs))]

pub mod types;

mod binary;
mod cast;
mod combine;
mod conv;
mod cost;
mod elementwise;
mod index;
mod kernel;
mod layout;
mod lrn;
mod matmul;
mod norm;
mod opaque;
mod pool;
mod reduce;
mod registry;
mod shape;
mod slice;
mod state;
#[cfg(test)]
mod testutil;
mod values;

pub use types::{element_count, AttrValue, Attrs, DType, TensorMut, TensorRef};

/// Why a kernel could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelError {
    /// No kernel for this op type (`ACL_ERROR_OP_NOT_FOUND`, 100024).
    NotFound(String),
    /// The op exists but these inputs, outputs or attributes are not valid for it.
    Invalid(String),
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelError::NotFound(op) => write!(f, "no kernel for op type `{op}`"),
            KernelError::Invalid(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for KernelError {}

/// What a kernel costs, for the simulator's timing model.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// Arithmetic operations (a multiply-add counts 2).
    pub flops: f64,
    /// Bytes read plus bytes written.
    pub bytes: f64,
}

/// Runs `op_type` (GE's type name: `MatMul`, `Add`, `HcomAllReduce` is *not* a kernel: the
/// simulator's HCCL does collectives) on `inputs`, writing `outputs`: the
/// `dims.product() * dtype.size()` leading bytes of each (slack past them is left alone).
/// Every output is validated before any is written, so an `Err` leaves them untouched.
pub fn execute(
    op_type: &str,
    attrs: &Attrs,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<(), KernelError> {
    let kernel =
        registry::lookup(op_type).ok_or_else(|| KernelError::NotFound(op_type.to_owned()))?;
    let op = kernel::Op {
        name: op_type,
        attrs,
    };
    kernel(&op, inputs, outputs)
}

/// Whether [`execute`] has a kernel for `op_type`.
pub fn has_kernel(op_type: &str) -> bool {
    registry::lookup(op_type).is_some()
}

/// Every op type [`execute`] has a kernel for, sorted.
pub fn kernel_types() -> Vec<&'static str> {
    registry::names()
}

/// The cost of running `op_type` on these tensors (defined for every op type, kernel or not:
/// an unknown op costs its bytes).
pub fn cost(op_type: &str, inputs: &[TensorRef<'_>], outputs: &[TensorMut<'_>]) -> Cost {
    cost::cost(op_type, inputs, outputs)
}

/// The `--opaque-kernels` fallback: every output byte (the `dims.product() * dtype.size()`
/// leading bytes, or the whole buffer when the dims are invalid) is a deterministic hash of
/// the op type, the output index and all input bytes. Not a computation, only a stand-in that
/// still lets the schedule be checked (a read of stale bytes still changes the result).
pub fn opaque(op_type: &str, inputs: &[TensorRef<'_>], outputs: &mut [TensorMut<'_>]) {
    opaque::opaque(op_type, inputs, outputs)
}

/// Deterministic contents for a tensor nobody supplied: a user input without `--input`, a
/// Variable's initial value. `seed` and `name` pick the stream of values; floats are drawn
/// from [-1, 1), integers from [0, 8), bools from {0, 1}. Both the runtime and the
/// reference interpreter call this, so they start from the same bytes.
pub fn seeded_fill(seed: u64, name: &str, dtype: DType, dims: &[i64]) -> Vec<u8> {
    opaque::seeded_fill(seed, name, dtype, dims)
}

#[cfg(test)]
mod tests;
