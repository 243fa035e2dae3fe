//! Indexing and filling, on raw element bytes (any dtype, nothing rounded):
//! * Gather(x, indices) (axis 0, or attr `axis`) / GatherV2(x, indices, axis): y dims =
//!   `x.dims[..axis] + indices.dims + x.dims[axis + 1..]`; an index outside `[0, dim)` is an
//!   error (negative ones count from the end when `negative_index_support` is set);
//!   `batch_dims` must be 0;
//! * Slice(x, offsets, size): size -1 takes the rest of the dim;
//! * StridedSlice(x, begin, end, strides), attrs `begin_mask`, `end_mask`, `ellipsis_mask`,
//!   `new_axis_mask`, `shrink_axis_mask` (TF semantics: negative indices count from the end,
//!   out-of-range bounds are clamped, stride 0 is an error);
//! * Pad(x, paddings) / PadV2(x, paddings, constant_values): paddings [rank, 2], >= 0;
//! * Tile(x, multiples); Fill(dims, value); ZerosLike(x); OnesLike(x).

use crate::kernel::{Input, Op, Result};
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

fn per_dim(op: &Op<'_>, t: &Input<'_>, rank: usize) -> Result<Vec<i64>> {
    let v = op.int_values(t)?;
    if v.len() != rank {
        return Err(op.invalid(format!(
            "{} has {} values for rank {rank}",
            t.label(),
            v.len()
        )));
    }
    Ok(v)
}

pub(crate) fn slice(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, offsets, size] = op.inputs_n(inputs, ["x", "offsets", "size"])?;
    op.output_count(outputs, 1, 1)?;
    let (off, sz) = (
        per_dim(op, &offsets, x.rank())?,
        per_dim(op, &size, x.rank())?,
    );
    let mut dims = Vec::with_capacity(x.rank());
    let mut base = 0i64;
    let xs: Vec<i64> = strides(&x.dims).iter().map(|&s| s as i64).collect();
    for d in 0..x.rank() {
        let extent = x.dims[d] as i64;
        let o = off[d];
        let s = if sz[d] == -1 { extent - o } else { sz[d] };
        if o < 0 || s < 0 || o + s > extent {
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
    let norm = |v: i64| if v < 0 { v + extent } else { v };
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
    Stepped {
        start: b,
        step: stride,
        len: len.max(0) as usize,
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
        .map(|d| x.dims[d] + pads[2 * d] as usize + pads[2 * d + 1] as usize)
        .collect();
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
    let mult = per_dim(op, &m, x.rank())?;
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
