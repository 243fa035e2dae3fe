//! Host tensors: what users pass in and get out (`.npy` files), what the executor copies
//! to and from the device, and what the reference interpreter computes.

use crate::lowering::model::TensorDesc;

/// A tensor in host memory: its description and exactly `desc.bytes()` bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTensor {
    pub desc: TensorDesc,
    pub bytes: Vec<u8>,
}

/// Seeds of the values nobody supplied, the same for the runtime and the reference
/// interpreter (both call `ascend_kernels::seeded_fill` with these names):
/// * a Variable starts as `seeded_fill(seed, &variable_seed_name(node), ..)` on every rank
///   (data-parallel replicas start equal);
/// * model input `k` without `--input`, on rank `r`, is
///   `seeded_fill(seed + r, &input_seed_name(node), ..)`.
pub fn variable_seed_name(node: &str) -> String {
    format!("var:{node}")
}

/// See [`variable_seed_name`].
pub fn input_seed_name(node: &str) -> String {
    format!("input:{node}")
}
