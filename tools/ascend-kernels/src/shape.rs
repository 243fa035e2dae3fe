//! Data movement that never looks at element values (bytes are copied, so every dtype works
//! and nothing is rounded): copies (Identity, Memcpy, ...), reshapes (Reshape, ExpandDims,
//! Squeeze, Flatten), Transpose, Concat / ConcatV2, Split / SplitV, and the shape queries
//! Shape / Size / Rank.

use crate::kernel::{Input, Op, Result};
use crate::layout::{product, strides, walk};
use crate::types::{DType, TensorMut, TensorRef};
use crate::values::Values;

/// Identity, Memcpy, MemcpyAsync, ReadVariableOp, Snapshot, StopGradient: y = x.
pub(crate) fn identity(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    op.write_bytes(outputs, 0, x.dtype, &x.dims, x.bytes)
}

/// IdentityN: output k = input k.
pub(crate) fn identity_n(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let xs = op.inputs_variadic(inputs, "x", 1)?;
    op.output_count(outputs, xs.len(), xs.len())?;
    for (k, x) in xs.iter().enumerate() {
        op.write_bytes(outputs, k, x.dtype, &x.dims, x.bytes)?;
    }
    Ok(())
}

/// The output's dims if it holds as many elements as `x` (the reshape family).
fn same_count_output(op: &Op<'_>, x: &Input<'_>, outputs: &[TensorMut<'_>]) -> Result<Vec<usize>> {
    let (_, dims) = op.output_desc(outputs, 0)?;
    if product(&dims) != x.count {
        return Err(op.invalid(format!(
            "output 0 dims {dims:?} hold {} elements, input 0 (x) dims {:?} hold {}",
            product(&dims),
            x.dims,
            x.count
        )));
    }
    Ok(dims)
}

/// Reshape(x, shape): bytes unchanged. The output's dims come from the graph; `shape` must
/// agree with them (-1 is the inferred dim, 0 copies x's dim, as GE's Reshape).
pub(crate) fn reshape(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let ins = op.inputs_optional(inputs, &["x", "shape"], 1)?;
    op.output_count(outputs, 1, 1)?;
    let x = &ins[0];
    let dims = same_count_output(op, x, outputs)?;
    if let Some(shape) = ins.get(1) {
        let want = op.int_values(shape)?;
        let ok = want.len() == dims.len()
            && want.iter().zip(&dims).enumerate().all(|(i, (&w, &d))| {
                w == -1 || usize::try_from(w) == Ok(d) || (w == 0 && x.dims.get(i) == Some(&d))
            });
        if !ok {
            return Err(op.invalid(format!(
                "input 1 (shape) {want:?} does not give output dims {dims:?}"
            )));
        }
    }
    op.write_bytes(outputs, 0, x.dtype, &dims, x.bytes)
}

/// ExpandDims(x, axis): a 1 inserted at `axis` (in -rank-1..=rank).
pub(crate) fn expand_dims(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, axis] = op.inputs_n(inputs, ["x", "axis"])?;
    op.output_count(outputs, 1, 1)?;
    let a = op.int_scalar(&axis)?;
    let at = op.axis(a, x.rank() + 1, "axis")?;
    let mut dims = x.dims.clone();
    dims.insert(at, 1);
    op.write_bytes(outputs, 0, x.dtype, &dims, x.bytes)
}

/// Squeeze(x), attr `axis` (list; empty or absent: every dim of size 1).
pub(crate) fn squeeze(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let axes = match op.attr_ints("axis")? {
        Some(a) => a,
        None => op.attr_ints("axes")?.unwrap_or_default(),
    };
    let mut drop = vec![axes.is_empty(); x.rank()];
    if axes.is_empty() {
        for (d, &n) in drop.iter_mut().zip(&x.dims) {
            *d = n == 1;
        }
    }
    for &a in &axes {
        let i = op.axis(a, x.rank(), "axis")?;
        if x.dims[i] != 1 {
            return Err(op.invalid(format!(
                "axis {a}: dim {} of input 0 (x) is not 1",
                x.dims[i]
            )));
        }
        drop[i] = true;
    }
    let dims: Vec<usize> = x
        .dims
        .iter()
        .zip(&drop)
        .filter(|(_, &d)| !d)
        .map(|(&n, _)| n)
        .collect();
    op.write_bytes(outputs, 0, x.dtype, &dims, x.bytes)
}

/// Flatten(x), attr `axis` = 1: dims [prod(dims[..axis]), prod(dims[axis..])].
pub(crate) fn flatten(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let a = op.attr_int("axis", 1)?;
    let at = op.axis(a, x.rank() + 1, "axis")?;
    let dims = vec![product(&x.dims[..at]), product(&x.dims[at..])];
    op.write_bytes(outputs, 0, x.dtype, &dims, x.bytes)
}

/// Transpose(x, perm): y dims[i] = x dims[perm[i]]. TransposeD takes `perm` as an attribute.
pub(crate) fn transpose(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let (x, perm) = if op.name == "TransposeD" {
        let [x] = op.inputs_n(inputs, ["x"])?;
        (x, op.attr_ints_required("perm")?)
    } else {
        let [x, p] = op.inputs_n(inputs, ["x", "perm"])?;
        let perm = op.int_values(&p)?;
        (x, perm)
    };
    op.output_count(outputs, 1, 1)?;
    let rank = x.rank();
    let mut seen = vec![false; rank];
    let mut axes = Vec::with_capacity(rank);
    for &p in &perm {
        let a = op.axis(p, rank, "perm entry")?;
        if std::mem::replace(&mut seen[a], true) {
            return Err(op.invalid(format!("perm {perm:?} repeats axis {a}")));
        }
        axes.push(a);
    }
    if axes.len() != rank {
        return Err(op.invalid(format!(
            "perm {perm:?} has {} entries for rank {rank}",
            perm.len()
        )));
    }
    let xs = strides(&x.dims);
    let dims: Vec<usize> = axes.iter().map(|&a| x.dims[a]).collect();
    let read: Vec<usize> = axes.iter().map(|&a| xs[a]).collect();
    let size = x.dtype.size();
    let out = op.output(outputs, 0, x.dtype, &dims)?;
    let mut chunks = out.chunks_exact_mut(size);
    walk(&dims, [&read], |[i]| {
        if let Some(c) = chunks.next() {
            c.copy_from_slice(&x.bytes[i * size..(i + 1) * size]);
        }
    });
    Ok(())
}

/// ConcatV2(x..., concat_dim) / Concat(concat_dim, x...) / ConcatV2D, ConcatD (attr
/// `concat_dim`): inputs of one dtype and equal dims except on the axis.
pub(crate) fn concat(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    op.output_count(outputs, 1, 1)?;
    let attr_form = op.name.ends_with('D');
    let dim_first = op.name.starts_with("Concat") && !op.name.starts_with("ConcatV2");
    let (xs, axis) = if attr_form {
        let xs = op.inputs_variadic(inputs, "x", 1)?;
        let a = op.attr_int("concat_dim", i64::MIN)?;
        if a == i64::MIN {
            return Err(op.invalid("required attribute `concat_dim` missing"));
        }
        (xs, a)
    } else {
        let all = op.inputs_variadic(inputs, "x", 2)?;
        let (d, xs) = if dim_first {
            (all[0].clone(), all[1..].to_vec())
        } else {
            (all[all.len() - 1].clone(), all[..all.len() - 1].to_vec())
        };
        let d = Input {
            name: "concat_dim",
            ..d
        };
        (xs, op.int_scalar(&d)?)
    };
    let first = &xs[0];
    let ax = op.axis(axis, first.rank(), "concat_dim")?;
    let refs: Vec<&Input<'_>> = xs.iter().collect();
    let dtype = op.same_dtype(&refs)?;
    let mut dims = first.dims.clone();
    dims[ax] = 0;
    for x in &xs {
        let same = x.rank() == first.rank()
            && x.dims
                .iter()
                .zip(&first.dims)
                .enumerate()
                .all(|(i, (a, b))| i == ax || a == b);
        if !same {
            return Err(op.invalid(format!(
                "{} dims {:?} differ from {:?} of {} off axis {ax}",
                x.label(),
                x.dims,
                first.dims,
                first.label()
            )));
        }
        dims[ax] += x.dims[ax];
    }
    let outer = product(&dims[..ax]);
    let inner = product(&dims[ax + 1..]) * dtype.size();
    let out = op.output(outputs, 0, dtype, &dims)?;
    let mut pos = 0;
    for o in 0..outer {
        for x in &xs {
            let n = x.dims[ax] * inner;
            out[pos..pos + n].copy_from_slice(&x.bytes[o * n..(o + 1) * n]);
            pos += n;
        }
    }
    Ok(())
}

/// Writes the pieces of `x` split on `ax` with the given sizes to outputs 0...
fn write_pieces(
    op: &Op<'_>,
    x: &Input<'_>,
    ax: usize,
    sizes: &[usize],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    op.output_count(outputs, sizes.len(), sizes.len())?;
    let outer = product(&x.dims[..ax]);
    let inner = product(&x.dims[ax + 1..]) * x.dtype.size();
    let row = x.dims[ax] * inner;
    let mut start = 0;
    for (k, &s) in sizes.iter().enumerate() {
        let mut dims = x.dims.clone();
        dims[ax] = s;
        let out = op.output(outputs, k, x.dtype, &dims)?;
        let n = s * inner;
        for o in 0..outer {
            out[o * n..(o + 1) * n].copy_from_slice(&x.bytes[o * row + start..o * row + start + n]);
        }
        start += n;
    }
    Ok(())
}

/// Split(split_dim, x) / SplitD(x) (attr `split_dim`), attr `num_split`: equal pieces.
pub(crate) fn split(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let (x, axis) = if op.name == "SplitD" {
        let [x] = op.inputs_n(inputs, ["x"])?;
        (x, op.attr_int("split_dim", 0)?)
    } else {
        let [d, x] = op.inputs_n(inputs, ["split_dim", "x"])?;
        let a = op.int_scalar(&d)?;
        (x, a)
    };
    let n = op.attr_int("num_split", outputs.len() as i64)?;
    let ax = op.axis(axis, x.rank(), "split_dim")?;
    let n = usize::try_from(n)
        .ok()
        .filter(|&n| n > 0 && x.dims[ax] % n == 0)
        .ok_or_else(|| {
            op.invalid(format!(
                "num_split {n} does not divide dim {} on axis {ax}",
                x.dims[ax]
            ))
        })?;
    write_pieces(op, &x, ax, &vec![x.dims[ax] / n; n], outputs)
}

/// SplitV(x, size_splits, split_dim) / SplitVD (attrs `size_splits`, `split_dim`): pieces
/// of the given sizes, one of which may be -1 (the rest).
pub(crate) fn split_v(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let (x, sizes, axis) = if op.name == "SplitVD" {
        let [x] = op.inputs_n(inputs, ["x"])?;
        (
            x,
            op.attr_ints_required("size_splits")?,
            op.attr_int("split_dim", 0)?,
        )
    } else {
        let [x, s, d] = op.inputs_n(inputs, ["x", "size_splits", "split_dim"])?;
        let sizes = op.int_values(&s)?;
        let a = op.int_scalar(&d)?;
        (x, sizes, a)
    };
    let ax = op.axis(axis, x.rank(), "split_dim")?;
    let total = x.dims[ax];
    let known: i64 = sizes.iter().filter(|&&s| s != -1).sum();
    let unknown = sizes.iter().filter(|&&s| s == -1).count();
    let bad = || {
        op.invalid(format!(
            "size_splits {sizes:?} do not split dim {total} on axis {ax}"
        ))
    };
    if unknown > 1 || sizes.iter().any(|&s| s < -1) {
        return Err(bad());
    }
    let rest = i64::try_from(total).map_err(|_| bad())? - known;
    if rest < 0 || (unknown == 0 && rest != 0) {
        return Err(bad());
    }
    let sizes: Vec<usize> = sizes
        .iter()
        .map(|&s| if s == -1 { rest as usize } else { s as usize })
        .collect();
    write_pieces(op, &x, ax, &sizes, outputs)
}

/// Shape(x) / Size(x) / Rank(x): integers in the output's dtype (int32 or int64).
fn shape_query(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    values: impl Fn(&Input<'_>) -> Vec<i128>,
    rank1: bool,
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let (dtype, _) = op.output_desc(outputs, 0)?;
    if !matches!(dtype, DType::I32 | DType::I64) {
        return Err(op.invalid(format!("output 0: dtype {dtype:?}, expected I32 or I64")));
    }
    let v = values(&x);
    let dims = if rank1 { vec![v.len()] } else { vec![] };
    op.write(outputs, 0, dtype, &dims, &Values::Int(v))
}

pub(crate) fn shape(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    shape_query(
        op,
        inputs,
        outputs,
        |x| x.dims.iter().map(|&d| d as i128).collect(),
        true,
    )
}

pub(crate) fn size(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    shape_query(op, inputs, outputs, |x| vec![x.count as i128], false)
}

pub(crate) fn rank(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    shape_query(op, inputs, outputs, |x| vec![x.rank() as i128], false)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    fn x23() -> Owned {
        f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    #[test]
    fn copies_keep_bytes() {
        for op in ["Identity", "Memcpy", "MemcpyAsync", "ReadVariableOp"] {
            assert_eq!(run1(op, &[], &[x23()], DType::F32, &[2, 3]), x23(), "{op}");
        }
        let outs = run(
            "IdentityN",
            &[],
            &[x23(), i32s(&[1], &[7])],
            &[(DType::F32, vec![2, 3]), (DType::I32, vec![1])],
        )
        .unwrap();
        assert_eq!(outs[1].i64(), [7]);
    }

    #[test]
    fn reshape_family() {
        let shape = i64s(&[3], &[3, -1, 1]);
        let y = run1("Reshape", &[], &[x23(), shape], DType::F32, &[3, 2, 1]);
        assert_eq!(y.data, x23().data);
        let e = fails(
            "Reshape",
            &[],
            &[x23(), i64s(&[2], &[3, 3])],
            &[(DType::F32, vec![3, 2])],
        );
        assert!(
            e.contains("input 1 (shape) [3, 3] does not give output dims [3, 2]"),
            "{e}"
        );
        let e = fails(
            "Reshape",
            &[],
            &[x23(), i64s(&[1], &[4])],
            &[(DType::F32, vec![4])],
        );
        assert!(e.contains("hold 4 elements"), "{e}");
        assert_eq!(
            run1(
                "ExpandDims",
                &[],
                &[x23(), i32s(&[], &[-1])],
                DType::F32,
                &[2, 3, 1]
            )
            .data,
            x23().data
        );
        let x = f32s(&[1, 2, 1], &[1.0, 2.0]);
        assert_eq!(
            run1("Squeeze", &[], &[x.clone()], DType::F32, &[2]).f32(),
            [1.0, 2.0]
        );
        assert_eq!(
            run1(
                "Squeeze",
                &[("axis", ints(&[0]))],
                &[x.clone()],
                DType::F32,
                &[2, 1]
            )
            .f32(),
            [1.0, 2.0]
        );
        let e = fails(
            "Squeeze",
            &[("axis", ints(&[1]))],
            &[x],
            &[(DType::F32, vec![1, 1])],
        );
        assert!(e.contains("dim 2 of input 0 (x) is not 1"), "{e}");
        let x = f32s(&[2, 1, 3], &[0.0; 6]);
        assert_eq!(
            run1("Flatten", &[], &[x], DType::F32, &[2, 3]).data.len(),
            24
        );
    }

    #[test]
    fn transpose_by_perm() {
        let perm = i32s(&[2], &[1, 0]);
        assert_eq!(
            run1("Transpose", &[], &[x23(), perm], DType::F32, &[3, 2]).f32(),
            [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
        // [2,2,2] with perm [0,2,1] swaps the inner matrices.
        let x = i32s(&[2, 2, 2], &[0, 1, 2, 3, 4, 5, 6, 7]);
        let y = run1(
            "Transpose",
            &[],
            &[x.clone(), i64s(&[3], &[0, 2, 1])],
            DType::I32,
            &[2, 2, 2],
        );
        assert_eq!(y.i64(), [0, 2, 1, 3, 4, 6, 5, 7]);
        let y = run1(
            "TransposeD",
            &[("perm", ints(&[2, 0, 1]))],
            &[x.clone()],
            DType::I32,
            &[2, 2, 2],
        );
        assert_eq!(y.i64(), [0, 2, 4, 6, 1, 3, 5, 7]);
        let e = fails(
            "Transpose",
            &[],
            &[x.clone(), i64s(&[3], &[0, 0, 1])],
            &[(DType::I32, vec![2, 2, 2])],
        );
        assert!(e.contains("repeats axis 0"), "{e}");
        let e = fails(
            "Transpose",
            &[],
            &[x, i64s(&[2], &[0, 1])],
            &[(DType::I32, vec![2, 2, 2])],
        );
        assert!(e.contains("has 2 entries for rank 3"), "{e}");
    }

    #[test]
    fn concat_both_forms() {
        let a = f32s(&[2, 1], &[1.0, 2.0]);
        let b = f32s(&[2, 2], &[3.0, 4.0, 5.0, 6.0]);
        let y = run1(
            "ConcatV2",
            &[],
            &[a.clone(), b.clone(), i32s(&[], &[-1])],
            DType::F32,
            &[2, 3],
        );
        assert_eq!(y.f32(), [1.0, 3.0, 4.0, 2.0, 5.0, 6.0]);
        let y = run1(
            "Concat",
            &[],
            &[i32s(&[], &[1]), a.clone(), b.clone()],
            DType::F32,
            &[2, 3],
        );
        assert_eq!(y.f32(), [1.0, 3.0, 4.0, 2.0, 5.0, 6.0]);
        let y = run1(
            "ConcatV2D",
            &[("concat_dim", int(0))],
            &[a.clone(), a.clone()],
            DType::F32,
            &[4, 1],
        );
        assert_eq!(y.f32(), [1.0, 2.0, 1.0, 2.0]);
        let e = fails(
            "ConcatV2",
            &[],
            &[a.clone(), b, i32s(&[], &[0])],
            &[(DType::F32, vec![4, 1])],
        );
        assert!(
            e.contains("input 1 (x) dims [2, 2] differ from [2, 1]"),
            "{e}"
        );
        let e = fails(
            "ConcatV2",
            &[],
            &[a.clone(), i32s(&[2, 1], &[1, 2]), i32s(&[], &[0])],
            &[(DType::F32, vec![4, 1])],
        );
        assert!(e.contains("has dtype I32, expected F32"), "{e}");
    }

    #[test]
    fn split_and_split_v() {
        let outs = run(
            "Split",
            &[("num_split", int(3))],
            &[i32s(&[], &[1]), x23()],
            &[
                (DType::F32, vec![2, 1]),
                (DType::F32, vec![2, 1]),
                (DType::F32, vec![2, 1]),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].f32(), [1.0, 4.0]);
        assert_eq!(outs[2].f32(), [3.0, 6.0]);
        let outs = run(
            "SplitV",
            &[],
            &[x23(), i64s(&[2], &[-1, 2]), i32s(&[], &[1])],
            &[(DType::F32, vec![2, 1]), (DType::F32, vec![2, 2])],
        )
        .unwrap();
        assert_eq!(outs[0].f32(), [1.0, 4.0]);
        assert_eq!(outs[1].f32(), [2.0, 3.0, 5.0, 6.0]);
        let e = fails(
            "Split",
            &[("num_split", int(4))],
            &[i32s(&[], &[1]), x23()],
            &vec![(DType::F32, vec![2, 1]); 4],
        );
        assert!(e.contains("num_split 4 does not divide dim 3"), "{e}");
        let e = fails(
            "SplitV",
            &[],
            &[x23(), i64s(&[2], &[1, 1]), i32s(&[], &[1])],
            &vec![(DType::F32, vec![2, 1]); 2],
        );
        assert!(e.contains("do not split dim 3"), "{e}");
    }

    #[test]
    fn shape_size_rank() {
        assert_eq!(run1("Shape", &[], &[x23()], DType::I64, &[2]).i64(), [2, 3]);
        assert_eq!(run1("Shape", &[], &[x23()], DType::I32, &[2]).i64(), [2, 3]);
        assert_eq!(run1("Size", &[], &[x23()], DType::I32, &[]).i64(), [6]);
        assert_eq!(run1("Rank", &[], &[x23()], DType::I64, &[]).i64(), [2]);
        let e = fails("Shape", &[], &[x23()], &[(DType::F32, vec![2])]);
        assert!(e.contains("expected I32 or I64"), "{e}");
    }
}
