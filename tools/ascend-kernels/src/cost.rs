//! The simulator's timing model input: arithmetic and memory traffic of one op. Only the
//! tensors are known (no attributes), so the counts are read off the shapes:
//! * MatMul / BatchMatMul: `2 * out_elements * K`, K from x1 (`x1` holds M*K per batch);
//! * Conv2D: `2 * out_elements * filter_elements / out_channels` (= IC/groups * KH * KW);
//! * pooling, reductions, softmax, layer norm: a few operations per input element;
//! * other elementwise ops: one per output element; pure data movement: none.
//!
//! Bytes are every input's and output's `elements * dtype size` (the buffer length when
//! the dims are invalid).

use crate::types::{element_count, TensorMut, TensorRef};
use crate::Cost;

fn logical_bytes(dims: &[i64], size: usize, len: usize) -> f64 {
    let valid = dims.iter().all(|&d| d >= 0);
    if valid {
        element_count(dims) as f64 * size as f64
    } else {
        len as f64
    }
}

const MOVES: &[&str] = &[
    "Reshape",
    "ExpandDims",
    "Squeeze",
    "Flatten",
    "Transpose",
    "TransposeD",
    "ConcatV2",
    "ConcatV2D",
    "Concat",
    "ConcatD",
    "Split",
    "SplitD",
    "SplitV",
    "SplitVD",
    "Shape",
    "Size",
    "Rank",
    "Identity",
    "Memcpy",
    "MemcpyAsync",
    "ReadVariableOp",
    "Snapshot",
    "StopGradient",
    "IdentityN",
    "Gather",
    "GatherV2",
    "Slice",
    "StridedSlice",
    "Pad",
    "PadV2",
    "Tile",
    "Fill",
    "ZerosLike",
    "OnesLike",
    "Assign",
    "AssignVariableOp",
    "Cast",
];

pub(crate) fn cost(op_type: &str, inputs: &[TensorRef<'_>], outputs: &[TensorMut<'_>]) -> Cost {
    let bytes = inputs
        .iter()
        .map(|t| logical_bytes(t.dims, t.dtype.size(), t.data.len()))
        .sum::<f64>()
        + outputs
            .iter()
            .map(|t| logical_bytes(t.dims, t.dtype.size(), t.data.len()))
            .sum::<f64>();
    let out0 = outputs
        .first()
        .map_or(0.0, |t| element_count(t.dims) as f64);
    let in0 = inputs.first().map_or(0.0, |t| element_count(t.dims) as f64);
    let flops = match op_type {
        "MatMul" | "MatMulV2" | "BatchMatMul" | "BatchMatMulV2" => {
            // x1 per batch is M x K (or K x M): K = last two dims' product / M.
            let m = outputs
                .first()
                .and_then(|t| t.dims.len().checked_sub(2).map(|i| t.dims[i]))
                .unwrap_or(0);
            let k = inputs.first().and_then(|t| {
                let r = t.dims.len().checked_sub(2)?;
                let mk = t.dims[r].checked_mul(t.dims[r + 1])?;
                mk.checked_div(m)
            });
            2.0 * out0 * k.unwrap_or(0).max(0) as f64
        }
        "Conv2D" => {
            let (f, y) = (inputs.get(1), outputs.first());
            let per = match (f, y) {
                (Some(f), Some(y)) if f.dims.len() == 4 && y.dims.len() == 4 => {
                    // OIHW filters pair with NCHW outputs, HWCN with NHWC.
                    let oc = if f.dims[0] == y.dims[1] {
                        f.dims[0]
                    } else {
                        f.dims[3]
                    };
                    (element_count(f.dims) as f64) / (oc.max(1) as f64)
                }
                _ => 0.0,
            };
            2.0 * out0 * per
        }
        "MaxPool" | "AvgPool" => in0,
        "Softmax" | "SoftmaxV2" => 5.0 * in0,
        "LayerNorm" => 8.0 * in0,
        // A square and an add per tap of a 5-channel window (the usual size; the cost
        // model sees no attributes), then the power and the division.
        "LRN" => 13.0 * in0,
        "ApplyMomentum" => 4.0 * out0,
        op if op.starts_with("Reduce") => in0,
        "AddN" => out0 * inputs.len().saturating_sub(1) as f64,
        op if MOVES.contains(&op) => 0.0,
        _ if crate::has_kernel(op_type) => out0,
        _ => 0.0,
    };
    Cost { flops, bytes }
}

#[cfg(test)]
mod tests {
    use crate::types::{DType, TensorMut, TensorRef};

    fn t<'a>(dims: &'a [i64], data: &'a [u8]) -> TensorRef<'a> {
        TensorRef {
            dtype: DType::F32,
            dims,
            data,
        }
    }

    #[test]
    fn matmul_and_conv_flops() {
        let (a, b) = (vec![0u8; 2 * 3 * 4], vec![0u8; 3 * 5 * 4]);
        let mut y = vec![0u8; 2 * 5 * 4];
        let outs = [TensorMut {
            dtype: DType::F32,
            dims: &[2, 5],
            data: &mut y,
        }];
        let c = crate::cost("MatMul", &[t(&[2, 3], &a), t(&[3, 5], &b)], &outs);
        assert_eq!(c.flops, 2.0 * 2.0 * 5.0 * 3.0);
        assert_eq!(c.bytes, (24 + 60 + 40) as f64);
        // Conv: N=1, OC=4, OH=OW=2, IC=3, K=3x3: 2 * 16 * 27.
        let (x, f) = (vec![0u8; 4 * 48], vec![0u8; 4 * 108]);
        let mut y = vec![0u8; 4 * 16];
        let outs = [TensorMut {
            dtype: DType::F32,
            dims: &[1, 4, 2, 2],
            data: &mut y,
        }];
        let c = crate::cost(
            "Conv2D",
            &[t(&[1, 3, 4, 4], &x), t(&[4, 3, 3, 3], &f)],
            &outs,
        );
        assert_eq!(c.flops, 2.0 * 16.0 * 27.0);
    }

    #[test]
    fn elementwise_moves_and_unknown_ops() {
        let a = vec![0u8; 16];
        let mut y = vec![0u8; 16];
        let outs = [TensorMut {
            dtype: DType::F32,
            dims: &[4],
            data: &mut y,
        }];
        assert_eq!(crate::cost("Relu", &[t(&[4], &a)], &outs).flops, 4.0);
        assert_eq!(crate::cost("Reshape", &[t(&[4], &a)], &outs).flops, 0.0);
        let c = crate::cost("HcomAllReduce", &[t(&[4], &a)], &outs);
        assert_eq!((c.flops, c.bytes), (0.0, 32.0));
    }
}
