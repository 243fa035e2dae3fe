//! Ops that combine several inputs elementwise without arithmetic of their own: Select /
//! SelectV2 (bytes copied), AddN (summed in input order) and BiasAdd (a broadcast Add).

use crate::binary::{broadcast_dims, compute, Binary};
use crate::kernel::{Input, Op, Result};
use crate::layout::{broadcast_shape, broadcast_strides, walk};
use crate::types::{TensorMut, TensorRef};
use crate::values::Values;

/// Select(condition, x1, x2) / SelectV2: `condition ? x1 : x2`, bytes copied. As TF's
/// Select, a rank-1 condition whose length is x1's first dim picks whole rows; otherwise the
/// three shapes broadcast (SelectV2).
pub(crate) fn select(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [c, a, b] = op.inputs_n(inputs, ["condition", "x1", "x2"])?;
    op.output_count(outputs, 1, 1)?;
    let dtype = op.same_dtype(&[&a, &b])?;
    let Values::Bool(cond) = c.values() else {
        return Err(op.invalid(format!(
            "input 0 (condition) must be bool, got {:?}",
            c.dtype
        )));
    };
    let ab = broadcast_dims(op, &a, &b)?;
    let mut cdims = c.dims.clone();
    if cdims.len() == 1 && ab.len() > 1 && cdims[0] == ab[0] {
        cdims.extend(std::iter::repeat_n(1, ab.len() - 1));
    }
    let out = broadcast_shape(&cdims, &ab).ok_or_else(|| {
        op.invalid(format!(
            "input 0 (condition) dims {:?} do not broadcast to {ab:?}",
            c.dims
        ))
    })?;
    op.expect_output(outputs, 0, dtype, &out)?;
    let size = dtype.size();
    let (sc, sa, sb) = (
        broadcast_strides(&cdims, &out),
        broadcast_strides(&a.dims, &out),
        broadcast_strides(&b.dims, &out),
    );
    let mut bytes = Vec::with_capacity(crate::layout::product(&out) * size);
    walk(&out, [&sc, &sa, &sb], |[i, j, k]| {
        let src = if cond[i] {
            &a.bytes[j * size..]
        } else {
            &b.bytes[k * size..]
        };
        bytes.extend_from_slice(&src[..size]);
    });
    op.write_bytes(outputs, 0, dtype, &out, &bytes)
}

/// AddN(x...): the sum of N same-shaped tensors, added in input order.
pub(crate) fn add_n(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let xs = op.inputs_variadic(inputs, "x", 1)?;
    op.output_count(outputs, 1, 1)?;
    let refs: Vec<&Input<'_>> = xs.iter().collect();
    let dtype = op.same_dtype(&refs)?;
    for x in &xs[1..] {
        if x.dims != xs[0].dims {
            return Err(op.invalid(format!(
                "{} dims {:?}, expected {:?} like input 0",
                x.label(),
                x.dims,
                xs[0].dims
            )));
        }
    }
    let mut acc = xs[0].values();
    for x in &xs[1..] {
        acc = match (acc, x.values()) {
            (Values::F32(s), Values::F32(v)) => {
                Values::F32(s.iter().zip(&v).map(|(a, b)| a + b).collect())
            }
            (Values::F64(s), Values::F64(v)) => {
                Values::F64(s.iter().zip(&v).map(|(a, b)| a + b).collect())
            }
            (Values::Int(s), Values::Int(v)) => {
                Values::Int(s.iter().zip(&v).map(|(a, b)| a.wrapping_add(*b)).collect())
            }
            _ => return Err(op.invalid(format!("dtype {dtype:?} is not supported"))),
        };
    }
    if matches!(acc, Values::Bool(_)) {
        return Err(op.invalid(format!("dtype {dtype:?} is not supported")));
    }
    op.write(outputs, 0, dtype, &xs[0].dims, &acc)
}

/// BiasAdd(x, bias): `bias` (rank 1) added along the channel dim: the last for
/// `data_format` "NHWC" (GE's default), dim 1 for "NCHW".
pub(crate) fn bias_add(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, bias] = op.inputs_n(inputs, ["x", "bias"])?;
    op.output_count(outputs, 1, 1)?;
    op.same_dtype(&[&x, &bias])?;
    let format = op.attr_str("data_format", "NHWC")?;
    let channel = match format {
        "NHWC" | "NDHWC" | "ND" => x.rank().checked_sub(1),
        "NCHW" | "NCDHW" => (x.rank() >= 2).then_some(1),
        other => return Err(op.invalid(format!("attribute `data_format` {other:?} not supported"))),
    }
    .ok_or_else(|| {
        op.invalid(format!(
            "input 0 (x) of rank {} has no channel dim",
            x.rank()
        ))
    })?;
    if bias.dims != [x.dims[channel]] {
        return Err(op.invalid(format!(
            "input 1 (bias) dims {:?}, expected [{}] (dim {channel} of x)",
            bias.dims, x.dims[channel]
        )));
    }
    let mut bdims = vec![1; x.rank()];
    bdims[channel] = x.dims[channel];
    let shaped = Input {
        dims: bdims,
        ..bias.clone()
    };
    let y = compute(op, &x, &shaped, &x.dims, Binary::Add)?;
    op.write(outputs, 0, x.dtype, &x.dims, &y)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    #[test]
    fn select_rows_and_broadcast() {
        let c = bools(&[2], &[true, false]);
        let a = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let b = f32s(&[2, 2], &[5.0, 6.0, 7.0, 8.0]);
        assert_eq!(
            run1(
                "Select",
                &[],
                &[c, a.clone(), b.clone()],
                DType::F32,
                &[2, 2]
            )
            .f32(),
            [1.0, 2.0, 7.0, 8.0]
        );
        let c = bools(&[2, 2], &[true, false, false, true]);
        assert_eq!(
            run1("SelectV2", &[], &[c, a, b], DType::F32, &[2, 2]).f32(),
            [1.0, 6.0, 7.0, 4.0]
        );
    }

    #[test]
    fn add_n_and_bias_add() {
        let a = f32s(&[2], &[1.0, 2.0]);
        assert_eq!(
            run1(
                "AddN",
                &[],
                &[a.clone(), a.clone(), a.clone()],
                DType::F32,
                &[2]
            )
            .f32(),
            [3.0, 6.0]
        );
        let e = fails(
            "AddN",
            &[],
            &[a, f32s(&[1], &[1.0])],
            &[(DType::F32, vec![2])],
        );
        assert!(e.contains("input 1 (x) dims [1], expected [2]"), "{e}");
        let x = f32s(&[1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let bias = f32s(&[2], &[10.0, 20.0]);
        assert_eq!(
            run1(
                "BiasAdd",
                &[],
                &[x.clone(), bias.clone()],
                DType::F32,
                &[1, 2, 2]
            )
            .f32(),
            [11.0, 22.0, 13.0, 24.0]
        );
        let nchw = [("data_format", string("NCHW"))];
        assert_eq!(
            run1("BiasAdd", &nchw, &[x, bias], DType::F32, &[1, 2, 2]).f32(),
            [11.0, 12.0, 23.0, 24.0]
        );
    }
}
