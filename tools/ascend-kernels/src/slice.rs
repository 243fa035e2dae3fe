//! Slice(x, offsets, size) (size -1 takes the rest of the dim) and StridedSlice(x, begin,
//! end, strides) with attrs `begin_mask`, `end_mask`, `ellipsis_mask`, `new_axis_mask`,
//! `shrink_axis_mask` (TF semantics: negative indices count from the end, out-of-range
//! bounds are clamped, negative steps read backwards, stride 0 is an error). Bytes are
//! copied, so every dtype works.

use crate::kernel::{Input, Op, Result};
use crate::layout::strides;
use crate::types::{TensorMut, TensorRef};

/// Calls `f` with `base + sum(index[k] * read[k])` for every index of `dims`, row-major.
/// Strides are signed: a strided slice with a negative step reads backwards.
fn walk_signed(dims: &[usize], read: &[i64], base: i64, mut f: impl FnMut(i64)) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; dims.len()];
    let mut at = base;
    loop {
        f(at);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            at += read[d];
            if idx[d] < dims[d] {
                break;
            }
            at -= read[d] * dims[d] as i64;
            idx[d] = 0;
        }
    }
}

/// Copies the strided view of `x` (`dims`, per-dim element strides `read` from element
/// `base`) into output 0.
fn write_view(
    op: &Op<'_>,
    outputs: &mut [TensorMut<'_>],
    x: &Input<'_>,
    dims: &[usize],
    read: &[i64],
    base: i64,
) -> Result<()> {
    let size = x.dtype.size();
    let out = op.output(outputs, 0, x.dtype, dims)?;
    let mut chunks = out.chunks_exact_mut(size);
    let mut failed = false;
    walk_signed(dims, read, base, |at| {
        let src = usize::try_from(at)
            .ok()
            .and_then(|a| x.bytes.get(a * size..(a + 1) * size));
        match (chunks.next(), src) {
            (Some(c), Some(src)) => c.copy_from_slice(src),
            _ => failed = true,
        }
    });
    if failed {
        return Err(op.invalid("internal error: view reads outside input 0 (x)"));
    }
    Ok(())
}

pub(crate) fn slice(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, offsets, size] = op.inputs_n(inputs, ["x", "offsets", "size"])?;
    op.output_count(outputs, 1, 1)?;
    let (off, sz) = (
        op.ints_per_dim(&offsets, x.rank())?,
        op.ints_per_dim(&size, x.rank())?,
    );
    let mut dims = Vec::with_capacity(x.rank());
    let mut base = 0i64;
    let xs: Vec<i64> = strides(&x.dims).iter().map(|&s| s as i64).collect();
    for d in 0..x.rank() {
        let extent = x.dims[d] as i64;
        let o = off[d];
        let s = if sz[d] == -1 { extent - o } else { sz[d] };
        if o < 0 || s < 0 || o.checked_add(s).is_none_or(|end| end > extent) {
            return Err(op.invalid(format!(
                "dim {d}: offset {o} size {} out of range for extent {extent}",
                sz[d]
            )));
        }
        dims.push(s as usize);
        base += o * xs[d];
    }
    write_view(op, outputs, &x, &dims, &xs, base)
}

/// One output dim of a strided slice: where it starts in x and how it steps.
struct Stepped {
    start: i64,
    step: i64,
    len: usize,
}

fn stepped(begin: Option<i64>, end: Option<i64>, stride: i64, extent: i64) -> Stepped {
    // i128: user bounds and strides near the i64 limits must not overflow.
    let (stride, extent) = (i128::from(stride), i128::from(extent));
    let norm = |v: i64| {
        let v = i128::from(v);
        if v < 0 {
            v + extent
        } else {
            v
        }
    };
    let (lo, hi) = if stride > 0 {
        (0, extent)
    } else {
        (-1, extent - 1)
    };
    let b = begin.map_or(if stride > 0 { 0 } else { extent - 1 }, |v| {
        norm(v).clamp(lo, hi)
    });
    let e = end.map_or(if stride > 0 { extent } else { -1 }, |v| {
        norm(v).clamp(lo, hi)
    });
    let len = if stride > 0 {
        (e - b + stride - 1).div_euclid(stride)
    } else {
        (b - e - stride - 1).div_euclid(-stride)
    };
    // len <= extent, so these fit; a step is only followed when there are 2+ elements, and
    // then |step| < extent.
    let len = len.clamp(0, extent) as usize;
    Stepped {
        start: b as i64,
        step: if len > 1 { stride as i64 } else { 0 },
        len,
    }
}

pub(crate) fn strided_slice(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, b, e, s] = op.inputs_n(inputs, ["x", "begin", "end", "strides"])?;
    op.output_count(outputs, 1, 1)?;
    let (begin, end, step) = (op.int_values(&b)?, op.int_values(&e)?, op.int_values(&s)?);
    let n = begin.len();
    if end.len() != n || step.len() != n {
        return Err(op.invalid(format!(
            "begin, end and strides have {n}, {} and {} values",
            end.len(),
            step.len()
        )));
    }
    let mask = |name: &str| op.attr_int(name, 0);
    let (bm, em, elm, nam, sam) = (
        mask("begin_mask")?,
        mask("end_mask")?,
        mask("ellipsis_mask")?,
        mask("new_axis_mask")?,
        mask("shrink_axis_mask")?,
    );
    let bit = |m: i64, i: usize| i < 63 && (m >> i) & 1 == 1;
    let consuming = (0..n).filter(|&i| !bit(elm, i) && !bit(nam, i)).count();
    if consuming > x.rank() {
        return Err(op.invalid(format!(
            "{consuming} sliced dims for input 0 (x) of rank {}",
            x.rank()
        )));
    }
    let xs: Vec<i64> = strides(&x.dims).iter().map(|&s| s as i64).collect();
    let (mut dims, mut read, mut base) = (Vec::new(), Vec::new(), 0i64);
    let mut d = 0; // the next dim of x
    let mut saw_ellipsis = false;
    for i in 0..n {
        if bit(elm, i) {
            // Only the first ellipsis expands (to every dim the other entries leave).
            if !saw_ellipsis {
                saw_ellipsis = true;
                for _ in 0..x.rank() - consuming {
                    dims.push(x.dims[d]);
                    read.push(xs[d]);
                    d += 1;
                }
            }
            continue;
        }
        if bit(nam, i) {
            dims.push(1);
            read.push(0);
            continue;
        }
        let extent = x.dims[d] as i64;
        if bit(sam, i) {
            let j = if begin[i] < 0 {
                begin[i] + extent
            } else {
                begin[i]
            };
            if !(0..extent).contains(&j) {
                return Err(op.invalid(format!(
                    "shrink index {} out of range for dim {d} of extent {extent}",
                    begin[i]
                )));
            }
            base += j * xs[d];
            d += 1;
            continue;
        }
        if step[i] == 0 {
            return Err(op.invalid(format!("strides[{i}] is 0")));
        }
        let st = stepped(
            (!bit(bm, i)).then_some(begin[i]),
            (!bit(em, i)).then_some(end[i]),
            step[i],
            extent,
        );
        dims.push(st.len);
        if st.len > 0 {
            base += st.start * xs[d];
        }
        read.push(st.step * xs[d]);
        d += 1;
    }
    while d < x.rank() {
        dims.push(x.dims[d]);
        read.push(xs[d]);
        d += 1;
    }
    write_view(op, outputs, &x, &dims, &read, base)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    fn x23() -> Owned {
        f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    #[test]
    fn slice_with_rest_of_dim() {
        let y = run1(
            "Slice",
            &[],
            &[x23(), i32s(&[2], &[0, 1]), i32s(&[2], &[2, -1])],
            DType::F32,
            &[2, 2],
        );
        assert_eq!(y.f32(), [2.0, 3.0, 5.0, 6.0]);
        let e = fails(
            "Slice",
            &[],
            &[x23(), i32s(&[2], &[1, 1]), i32s(&[2], &[2, 1])],
            &[(DType::F32, vec![2, 1])],
        );
        assert!(
            e.contains("dim 0: offset 1 size 2 out of range for extent 2"),
            "{e}"
        );
        let e = fails(
            "Slice",
            &[],
            &[x23(), i32s(&[1], &[0]), i32s(&[2], &[1, 1])],
            &[(DType::F32, vec![1, 1])],
        );
        assert!(
            e.contains("input 1 (offsets) has 1 values for rank 2"),
            "{e}"
        );
    }

    #[test]
    fn strided_slice_masks_and_negative_steps() {
        let x = i32s(&[2, 4], &[0, 1, 2, 3, 4, 5, 6, 7]);
        let ss = |b: &[i32], e: &[i32], s: &[i32]| {
            let n = b.len() as i64;
            vec![x.clone(), i32s(&[n], b), i32s(&[n], e), i32s(&[n], s)]
        };
        // x[:, 1:4:2]
        let y = run1(
            "StridedSlice",
            &[("begin_mask", int(1)), ("end_mask", int(1))],
            &ss(&[0, 1], &[0, 4], &[1, 2]),
            DType::I32,
            &[2, 2],
        );
        assert_eq!(y.i64(), [1, 3, 5, 7]);
        // x[1, ::-1] (shrink axis 0)
        let y = run1(
            "StridedSlice",
            &[
                ("shrink_axis_mask", int(1)),
                ("begin_mask", int(2)),
                ("end_mask", int(2)),
            ],
            &ss(&[1, 0], &[2, 0], &[1, -1]),
            DType::I32,
            &[4],
        );
        assert_eq!(y.i64(), [7, 6, 5, 4]);
        // x[..., -2:] and x[:, None, 0]
        let y = run1(
            "StridedSlice",
            &[("ellipsis_mask", int(1))],
            &ss(&[0, -2], &[0, 100], &[1, 1]),
            DType::I32,
            &[2, 2],
        );
        assert_eq!(y.i64(), [2, 3, 6, 7]);
        let attrs = [
            ("begin_mask", int(1)),
            ("end_mask", int(1)),
            ("new_axis_mask", int(2)),
            ("shrink_axis_mask", int(4)),
        ];
        let y = run1(
            "StridedSlice",
            &attrs,
            &ss(&[0, 0, 0], &[0, 0, 1], &[1, 1, 1]),
            DType::I32,
            &[2, 1],
        );
        assert_eq!(y.i64(), [0, 4]);
        // Empty result when begin passes end.
        let y = run1(
            "StridedSlice",
            &[],
            &ss(&[0, 3], &[2, 1], &[1, 1]),
            DType::I32,
            &[2, 0],
        );
        assert!(y.data.is_empty());
        let e = fails(
            "StridedSlice",
            &[],
            &ss(&[0, 0], &[1, 1], &[1, 0]),
            &[(DType::I32, vec![1, 1])],
        );
        assert!(e.contains("strides[1] is 0"), "{e}");
        let e = fails(
            "StridedSlice",
            &[("shrink_axis_mask", int(1))],
            &ss(&[5, 0], &[6, 1], &[1, 1]),
            &[(DType::I32, vec![1])],
        );
        assert!(e.contains("shrink index 5 out of range"), "{e}");
    }
}
