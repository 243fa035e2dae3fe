//! Indexing and filling, on raw element bytes (any dtype, nothing rounded):
//! * Gather(x, indices) (axis 0, or attr `axis`) / GatherV2(x, indices, axis): y dims =
//!   `x.dims[..axis] + indices.dims + x.dims[axis + 1..]`; an index outside `[0, dim)` is an
//!   error (negative ones count from the end when `negative_index_support` is set);
//!   `batch_dims` must be 0;
//! * Pad(x, paddings) / PadV2(x, paddings, constant_values): paddings [rank, 2], >= 0;
//! * Tile(x, multiples); Fill(dims, value); ZerosLike(x); OnesLike(x).

use crate::kernel::{Op, Result};
use crate::layout::{product, strides, walk};
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, encode, Domain, Values};

pub(crate) fn gather(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let (x, idx, axis) = if op.name == "GatherV2" {
        let [x, i, a] = op.inputs_n(inputs, ["x", "indices", "axis"])?;
        let axis = op.int_scalar(&a)?;
        (x, i, axis)
    } else {
        let [x, i] = op.inputs_n(inputs, ["x", "indices"])?;
        (x, i, op.attr_int("axis", 0)?)
    };
    op.output_count(outputs, 1, 1)?;
    if op.attr_int("batch_dims", 0)? != 0 {
        return Err(op.invalid("attribute `batch_dims`: only 0 is supported"));
    }
    let negative_ok = op.attr_bool("negative_index_support", false)?;
    let ax = op.axis(axis, x.rank(), "axis")?;
    let dim = x.dims[ax];
    let indices = op.int_values(&idx)?;
    let picks = indices
        .iter()
        .map(|&i| {
            let j = if i < 0 && negative_ok {
                i + dim as i64
            } else {
                i
            };
            usize::try_from(j).ok().filter(|&j| j < dim).ok_or_else(|| {
                op.invalid(format!(
                    "input 1 (indices): index {i} out of range [0, {dim}) on axis {ax}"
                ))
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    let mut dims = x.dims[..ax].to_vec();
    dims.extend(&idx.dims);
    dims.extend(&x.dims[ax + 1..]);
    op.expect_output(outputs, 0, x.dtype, &dims)?;
    let outer = product(&x.dims[..ax]);
    let inner = product(&x.dims[ax + 1..]) * x.dtype.size();
    let mut bytes = Vec::with_capacity(outer * picks.len() * inner);
    for o in 0..outer {
        for &j in &picks {
            let start = (o * dim + j) * inner;
            bytes.extend_from_slice(&x.bytes[start..start + inner]);
        }
    }
    op.write_bytes(outputs, 0, x.dtype, &dims, &bytes)
}

pub(crate) fn pad(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let ins = op.inputs_optional(inputs, &["x", "paddings", "constant_values"], 2)?;
    op.output_count(outputs, 1, 1)?;
    let (x, p) = (&ins[0], &ins[1]);
    let pads = op.int_values(p)?;
    if p.dims != [x.rank(), 2] || pads.iter().any(|&v| v < 0) {
        return Err(op.invalid(format!(
            "input 1 (paddings) dims {:?} values {pads:?}: expected [{}, 2] non-negative",
            p.dims,
            x.rank()
        )));
    }
    let fill: Vec<u8> = match ins.get(2) {
        Some(c) => {
            op.same_dtype(&[x, c])?;
            if c.count != 1 {
                return Err(op.invalid("input 2 (constant_values) must hold one value"));
            }
            c.bytes.to_vec()
        }
        None => vec![0; x.dtype.size()],
    };
    let dims: Vec<usize> = (0..x.rank())
        .map(|d| {
            x.dims[d]
                .checked_add(pads[2 * d] as usize)
                .and_then(|v| v.checked_add(pads[2 * d + 1] as usize))
                .ok_or_else(|| op.invalid(format!("input 1 (paddings) {pads:?}: output too large")))
        })
        .collect::<Result<_>>()?;
    let size = x.dtype.size();
    let os = strides(&dims);
    let base: usize = (0..x.rank()).map(|d| pads[2 * d] as usize * os[d]).sum();
    let xs = strides(&x.dims);
    let out = op.output(outputs, 0, x.dtype, &dims)?;
    for c in out.chunks_exact_mut(size) {
        c.copy_from_slice(&fill);
    }
    walk(&x.dims, [&xs, &os], |[i, o]| {
        let at = (base + o) * size;
        out[at..at + size].copy_from_slice(&x.bytes[i * size..(i + 1) * size]);
    });
    Ok(())
}

pub(crate) fn tile(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, m] = op.inputs_n(inputs, ["x", "multiples"])?;
    op.output_count(outputs, 1, 1)?;
    let mult = op.ints_per_dim(&m, x.rank())?;
    let mut walk_dims = Vec::new();
    let mut read = Vec::new();
    let xs = strides(&x.dims);
    let mut dims = Vec::new();
    for d in 0..x.rank() {
        let k = usize::try_from(mult[d]).map_err(|_| {
            op.invalid(format!(
                "input 1 (multiples): negative multiple {}",
                mult[d]
            ))
        })?;
        let n = x.dims[d]
            .checked_mul(k)
            .ok_or_else(|| op.invalid("input 1 (multiples): output too large"))?;
        dims.push(n);
        walk_dims.extend([k, x.dims[d]]);
        read.extend([0, xs[d]]);
    }
    let size = x.dtype.size();
    let out = op.output(outputs, 0, x.dtype, &dims)?;
    let mut chunks = out.chunks_exact_mut(size);
    walk(&walk_dims, [&read], |[i]| {
        if let Some(c) = chunks.next() {
            c.copy_from_slice(&x.bytes[i * size..(i + 1) * size]);
        }
    });
    Ok(())
}

pub(crate) fn fill(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [d, v] = op.inputs_n(inputs, ["dims", "value"])?;
    op.output_count(outputs, 1, 1)?;
    let want = op.int_values(&d)?;
    let (_, dims) = op.output_desc(outputs, 0)?;
    if want.len() != dims.len()
        || want
            .iter()
            .zip(&dims)
            .any(|(&w, &g)| usize::try_from(w) != Ok(g))
    {
        return Err(op.invalid(format!(
            "input 0 (dims) {want:?} differ from output dims {dims:?}"
        )));
    }
    if v.count != 1 {
        return Err(op.invalid(format!(
            "input 1 (value) must hold one value, got {}",
            v.count
        )));
    }
    let out = op.output(outputs, 0, v.dtype, &dims)?;
    for c in out.chunks_exact_mut(v.dtype.size()) {
        c.copy_from_slice(v.bytes);
    }
    Ok(())
}

fn like(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    one: bool,
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let mut elem = vec![0u8; x.dtype.size()];
    if one {
        let v = match domain(x.dtype) {
            Domain::F32 => Values::F32(vec![1.0]),
            Domain::F64 => Values::F64(vec![1.0]),
            Domain::Int => Values::Int(vec![1]),
            Domain::Bool => Values::Bool(vec![true]),
        };
        encode(&v, x.dtype, &mut elem).map_err(|e| op.invalid(e))?;
    }
    let out = op.output(outputs, 0, x.dtype, &x.dims)?;
    for c in out.chunks_exact_mut(x.dtype.size()) {
        c.copy_from_slice(&elem);
    }
    Ok(())
}

pub(crate) fn zeros_like(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    like(op, inputs, outputs, false)
}

pub(crate) fn ones_like(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    like(op, inputs, outputs, true)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    fn x23() -> Owned {
        f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    #[test]
    fn gather_rows_and_columns() {
        let idx = i32s(&[3], &[1, 0, 1]);
        let y = run1("Gather", &[], &[x23(), idx.clone()], DType::F32, &[3, 3]);
        assert_eq!(y.f32(), [4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let idx2 = i64s(&[2, 1], &[2, 0]);
        let y = run1(
            "GatherV2",
            &[],
            &[x23(), idx2, i32s(&[], &[-1])],
            DType::F32,
            &[2, 2, 1],
        );
        assert_eq!(y.f32(), [3.0, 1.0, 6.0, 4.0]);
        let e = fails(
            "Gather",
            &[],
            &[x23(), i32s(&[1], &[2])],
            &[(DType::F32, vec![1, 3])],
        );
        assert!(
            e.contains("`Gather`: input 1 (indices): index 2 out of range [0, 2) on axis 0"),
            "{e}"
        );
        let e = fails(
            "Gather",
            &[],
            &[x23(), i32s(&[1], &[-1])],
            &[(DType::F32, vec![1, 3])],
        );
        assert!(e.contains("index -1 out of range"), "{e}");
        let neg = [("negative_index_support", boolean(true))];
        assert_eq!(
            run1(
                "Gather",
                &neg,
                &[x23(), i32s(&[1], &[-1])],
                DType::F32,
                &[1, 3]
            )
            .f32(),
            [4.0, 5.0, 6.0]
        );
        let e = fails(
            "Gather",
            &[],
            &[x23(), f32s(&[1], &[0.0])],
            &[(DType::F32, vec![1, 3])],
        );
        assert!(
            e.contains("input 1 (indices) must be an integer tensor"),
            "{e}"
        );
    }

    #[test]
    fn pad_tile_fill_like() {
        let x = f32s(&[1, 2], &[1.0, 2.0]);
        let p = i32s(&[2, 2], &[1, 0, 0, 1]);
        assert_eq!(
            run1("Pad", &[], &[x.clone(), p.clone()], DType::F32, &[2, 3]).f32(),
            [0.0, 0.0, 0.0, 1.0, 2.0, 0.0]
        );
        let y = run1(
            "PadV2",
            &[],
            &[x.clone(), p, f32s(&[], &[9.0])],
            DType::F32,
            &[2, 3],
        );
        assert_eq!(y.f32(), [9.0, 9.0, 9.0, 1.0, 2.0, 9.0]);
        let e = fails(
            "Pad",
            &[],
            &[x.clone(), i32s(&[2, 2], &[-1, 0, 0, 0])],
            &[(DType::F32, vec![0, 2])],
        );
        assert!(e.contains("expected [2, 2] non-negative"), "{e}");
        let y = run1(
            "Tile",
            &[],
            &[x.clone(), i32s(&[2], &[2, 2])],
            DType::F32,
            &[2, 4],
        );
        assert_eq!(y.f32(), [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
        let y = run1(
            "Fill",
            &[],
            &[i64s(&[2], &[2, 1]), i32s(&[], &[7])],
            DType::I32,
            &[2, 1],
        );
        assert_eq!(y.i64(), [7, 7]);
        let e = fails(
            "Fill",
            &[],
            &[i64s(&[1], &[3]), i32s(&[], &[7])],
            &[(DType::I32, vec![2])],
        );
        assert!(
            e.contains("input 0 (dims) [3] differ from output dims [2]"),
            "{e}"
        );
        assert_eq!(
            run1("ZerosLike", &[], &[x.clone()], DType::F32, &[1, 2]).f32(),
            [0.0, 0.0]
        );
        assert_eq!(
            run1("OnesLike", &[], &[x], DType::F32, &[1, 2]).f32(),
            [1.0, 1.0]
        );
        assert_eq!(
            run1("OnesLike", &[], &[bf16s(&[1], &[5.0])], DType::BF16, &[1]).f32(),
            [1.0]
        );
        assert_eq!(
            run1("OnesLike", &[], &[bools(&[1], &[false])], DType::Bool, &[1]).bools(),
            [true]
        );
    }
}
