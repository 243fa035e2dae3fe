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
mod conv;
mod cost;
mod elementwise;
mod index;
mod kernel;
mod layout;
mod matmul;
mod norm;
mod opaque;
mod pool;
mod reduce;
mod registry;
mod shape;
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
/// simulator's HCCL does collectives) on `inputs`, writing `outputs`.
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

/// The `--opaque-kernels` fallback: every output byte is a deterministic hash of the op
/// type, the output index and all input bytes. Not a computation, only a stand-in that
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
mod tests {
    use super::*;
    use crate::testutil::*;

    #[test]
    fn unknown_ops_are_not_found() {
        let x = f32s(&[1], &[1.0]);
        let e = run("HcomAllReduce", &[], &[x], &[(DType::F32, vec![1])]).unwrap_err();
        assert_eq!(e, KernelError::NotFound("HcomAllReduce".into()));
        assert!(!has_kernel("HcomAllReduce"));
        assert!(!has_kernel("NoSuchOp"));
    }

    #[test]
    fn every_op_ge_gen_emits_has_a_kernel() {
        for op in [
            "Add",
            "Sub",
            "Mul",
            "RealDiv",
            "Relu",
            "Gelu",
            "Cast",
            "MatMul",
            "BatchMatMul",
            "LayerNorm",
            "Softmax",
            "Reshape",
            "Transpose",
            "ReduceSum",
            "Conv2D",
            "Assign",
            "ApplyMomentum",
            "Identity",
            "Memcpy",
            "MemcpyAsync",
            "ReadVariableOp",
        ] {
            assert!(has_kernel(op), "{op}");
            assert!(kernel_types().contains(&op), "{op}");
        }
    }

    fn seeded(name: &str, dims: &[i64]) -> Owned {
        Owned {
            dtype: DType::F32,
            dims: dims.to_vec(),
            data: seeded_fill(1, name, DType::F32, dims),
        }
    }

    #[test]
    fn kernels_are_deterministic_on_ge_gen_shapes() {
        // The transformer family's attention shapes and the resnet stem, twice each.
        let (q, k) = (seeded("q", &[4, 16, 64]), seeded("k", &[4, 64, 16]));
        let a = run1(
            "BatchMatMul",
            &[],
            &[q.clone(), k.clone()],
            DType::F32,
            &[4, 16, 16],
        );
        let b = run1("BatchMatMul", &[], &[q, k], DType::F32, &[4, 16, 16]);
        assert_eq!(a.data, b.data);
        let (x, w) = (seeded("x", &[64, 64]), seeded("w", &[64, 256]));
        let attrs = [("transpose_x1", boolean(true))];
        let a = run1(
            "MatMul",
            &attrs,
            &[x.clone(), w.clone()],
            DType::F32,
            &[64, 256],
        );
        assert_eq!(a, run1("MatMul", &attrs, &[x, w], DType::F32, &[64, 256]));
        let img = seeded("img", &[1, 3, 32, 32]);
        let f = seeded("f", &[8, 3, 7, 7]);
        let attrs = [
            ("data_format", string("NCHW")),
            ("strides", ints(&[1, 1, 4, 4])),
            ("pads", ints(&[3, 3, 3, 3])),
        ];
        let a = run1(
            "Conv2D",
            &attrs,
            &[img.clone(), f.clone()],
            DType::F32,
            &[1, 8, 8, 8],
        );
        assert_eq!(
            a,
            run1("Conv2D", &attrs, &[img, f], DType::F32, &[1, 8, 8, 8])
        );
    }

    #[test]
    fn conv_equals_a_direct_sum() {
        // A strided, padded, grouped conv against the textbook loop.
        let (n, c, h, w, oc, kh, kw, groups) = (2, 4, 5, 6, 6, 3, 2, 2);
        let x = seeded("cx", &[n, c, h, w]);
        let f = seeded("cf", &[oc, c / groups, kh, kw]);
        let (sh, sw, pt, pb, pl, pr) = (2, 1, 1, 0, 0, 1);
        let oh = (h + pt + pb - kh) / sh + 1;
        let ow = (w + pl + pr - kw) / sw + 1;
        let attrs = [
            ("data_format", string("NCHW")),
            ("strides", ints(&[1, 1, sh, sw])),
            ("pads", ints(&[pt, pb, pl, pr])),
            ("groups", int(groups)),
        ];
        let y = run1(
            "Conv2D",
            &attrs,
            &[x.clone(), f.clone()],
            DType::F32,
            &[n, oc, oh, ow],
        )
        .f32();
        let (xv, fv) = (x.f32(), f.f32());
        let icg = c / groups;
        let ocg = oc / groups;
        let mut max_err = 0f32;
        for ni in 0..n {
            for o in 0..oc {
                let g = o / ocg;
                for oy in 0..oh {
                    for ox in 0..ow {
                        let mut acc = 0f64;
                        for ci in 0..icg {
                            for ky in 0..kh {
                                for kx in 0..kw {
                                    let iy = oy * sh + ky - pt;
                                    let ix = ox * sw + kx - pl;
                                    if iy < 0 || iy >= h || ix < 0 || ix >= w {
                                        continue;
                                    }
                                    let xi = ((ni * c + g * icg + ci) * h + iy) * w + ix;
                                    let fi = ((o * icg + ci) * kh + ky) * kw + kx;
                                    acc += f64::from(xv[xi as usize]) * f64::from(fv[fi as usize]);
                                }
                            }
                        }
                        let yi = ((ni * oc + o) * oh + oy) * ow + ox;
                        max_err = max_err.max((y[yi as usize] - acc as f32).abs());
                    }
                }
            }
        }
        assert!(max_err < 1e-5, "{max_err}");
    }
}
