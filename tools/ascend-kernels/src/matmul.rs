//! MatMul / MatMulV2 (2-D, `transpose_x1`, `transpose_x2`) and BatchMatMul /
//! BatchMatMulV2 (rank >= 2, `adj_x1`, `adj_x2`, numpy broadcasting of the batch dims), each
//! with GE's optional `bias` input ([N], added to every row). Products go through ndarray's
//! `general_mat_mul` (matrixmultiply for floats: single-threaded, and for given shapes the
//! same summation order on every call); integers use wrapping `i128` arithmetic.

use std::num::Wrapping;

use ndarray::{linalg::general_mat_mul, ArrayView2, ArrayViewMut2};

use crate::kernel::{Input, Op, Result};
use crate::layout::{broadcast_shape, broadcast_strides, product, walk};
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, Domain, Num, Values};

/// The shape of one (batched) product.
struct Geometry {
    ta: bool,
    tb: bool,
    m: usize,
    k: usize,
    n: usize,
    a_batch: Vec<usize>,
    b_batch: Vec<usize>,
    out_batch: Vec<usize>,
}

impl Geometry {
    fn out_dims(&self) -> Vec<usize> {
        let mut d = self.out_batch.clone();
        d.extend([self.m, self.n]);
        d
    }
}

fn split_matrix(dims: &[usize]) -> (Vec<usize>, usize, usize) {
    let r = dims.len();
    (dims[..r - 2].to_vec(), dims[r - 2], dims[r - 1])
}

fn geometry(
    op: &Op<'_>,
    a: &Input<'_>,
    b: &Input<'_>,
    ta: bool,
    tb: bool,
    batched: bool,
) -> Result<Geometry> {
    for x in [a, b] {
        let ok = if batched {
            x.rank() >= 2
        } else {
            x.rank() == 2
        };
        if !ok {
            let want = if batched { "rank >= 2" } else { "rank 2" };
            return Err(op.invalid(format!("{} dims {:?}: expected {want}", x.label(), x.dims)));
        }
    }
    let (a_batch, ar, ac) = split_matrix(&a.dims);
    let (b_batch, br, bc) = split_matrix(&b.dims);
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let (k2, n) = if tb { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(op.invalid(format!(
            "contraction dims differ: input 0 (x1) {:?} (transposed: {ta}) gives K = {k}, \
             input 1 (x2) {:?} (transposed: {tb}) gives K = {k2}",
            a.dims, b.dims
        )));
    }
    let out_batch = broadcast_shape(&a_batch, &b_batch).ok_or_else(|| {
        op.invalid(format!(
            "batch dims {a_batch:?} of input 0 (x1) and {b_batch:?} of input 1 (x2) do not broadcast"
        ))
    })?;
    Ok(Geometry {
        ta,
        tb,
        m,
        k,
        n,
        a_batch,
        b_batch,
        out_batch,
    })
}

fn mat<T>(data: &[T], rows: usize, cols: usize, transpose: bool) -> Option<ArrayView2<'_, T>> {
    let v = ArrayView2::from_shape((rows, cols), data).ok()?;
    Some(if transpose { v.reversed_axes() } else { v })
}

fn batched_product<T: Num>(a: &[T], b: &[T], bias: Option<&[T]>, g: &Geometry) -> Option<Vec<T>> {
    let (mk, kn, mn) = (g.m * g.k, g.k * g.n, g.m * g.n);
    let batches = product(&g.out_batch);
    let mut out = vec![T::zero(); batches * mn];
    let sa = broadcast_strides(&g.a_batch, &g.out_batch);
    let sb = broadcast_strides(&g.b_batch, &g.out_batch);
    let (a_rows, a_cols) = if g.ta { (g.k, g.m) } else { (g.m, g.k) };
    let (b_rows, b_cols) = if g.tb { (g.n, g.k) } else { (g.k, g.n) };
    let mut failed = false;
    let mut chunks = out.chunks_mut(mn.max(1));
    walk(&g.out_batch, [&sa, &sb], |[i, j]| {
        let (Some(c), Some(av), Some(bv)) = (
            chunks.next(),
            a.get(i * mk..(i + 1) * mk)
                .and_then(|s| mat(s, a_rows, a_cols, g.ta)),
            b.get(j * kn..(j + 1) * kn)
                .and_then(|s| mat(s, b_rows, b_cols, g.tb)),
        ) else {
            failed = true;
            return;
        };
        let Ok(mut cv) = ArrayViewMut2::from_shape((g.m, g.n), c) else {
            failed = true;
            return;
        };
        general_mat_mul(T::one(), &av, &bv, T::zero(), &mut cv);
    });
    if failed && mn > 0 {
        return None;
    }
    if let Some(bias) = bias {
        for row in out.chunks_mut(g.n.max(1)) {
            for (y, &b) in row.iter_mut().zip(bias) {
                *y = *y + b;
            }
        }
    }
    Some(out)
}

fn run<T: Num>(
    op: &Op<'_>,
    a: &Input<'_>,
    b: &Input<'_>,
    bias: Option<&Input<'_>>,
    g: &Geometry,
) -> Result<Values> {
    let conv = |x: &Input<'_>| {
        T::from_values(x.values()).ok_or_else(|| {
            op.invalid(format!(
                "{} has dtype {:?}, expected {:?}",
                x.label(),
                x.dtype,
                a.dtype
            ))
        })
    };
    let (av, bv) = (conv(a)?, conv(b)?);
    let biasv = bias.map(conv).transpose()?;
    let y = batched_product(&av, &bv, biasv.as_deref(), g)
        .ok_or_else(|| op.invalid("internal error: matrix views do not fit the operands"))?;
    Ok(T::into_values(y))
}

fn matmul_common(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    batched: bool,
) -> Result<()> {
    let ins = op.inputs_optional(inputs, &["x1", "x2", "bias", "offset_w"], 2)?;
    if ins.len() == 4 {
        return Err(op.invalid("input 3 (offset_w): quantized products are not supported"));
    }
    op.output_count(outputs, 1, 1)?;
    let (a, b, bias) = (&ins[0], &ins[1], ins.get(2));
    op.same_dtype(&[a, b])?;
    let (ta, tb) = if batched {
        (
            op.attr_bool("adj_x1", false)?,
            op.attr_bool("adj_x2", false)?,
        )
    } else {
        // GE's names; TF graphs imported as-is carry transpose_a / transpose_b.
        let ta = op.attr_bool("transpose_a", false)?;
        let tb = op.attr_bool("transpose_b", false)?;
        (
            op.attr_bool("transpose_x1", ta)?,
            op.attr_bool("transpose_x2", tb)?,
        )
    };
    let g = geometry(op, a, b, ta, tb, batched)?;
    if let Some(bias) = bias {
        if bias.dims != [g.n] {
            return Err(op.invalid(format!(
                "input 2 (bias) dims {:?}, expected [{}]",
                bias.dims, g.n
            )));
        }
    }
    let y = match domain(a.dtype) {
        Domain::F32 => run::<f32>(op, a, b, bias, &g)?,
        Domain::F64 => run::<f64>(op, a, b, bias, &g)?,
        Domain::Int => run::<Wrapping<i128>>(op, a, b, bias, &g)?,
        Domain::Bool => return Err(op.invalid("bool products are not supported")),
    };
    op.write(outputs, 0, a.dtype, &g.out_dims(), &y)
}

pub(crate) fn matmul(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    matmul_common(op, inputs, outputs, false)
}

pub(crate) fn batch_matmul(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    matmul_common(op, inputs, outputs, true)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    fn a23() -> Owned {
        f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    fn b32() -> Owned {
        f32s(&[3, 2], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0])
    }

    #[test]
    fn matmul_by_hand() {
        // [[1,2,3],[4,5,6]] . [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
        assert_eq!(
            run1("MatMul", &[], &[a23(), b32()], DType::F32, &[2, 2]).f32(),
            [58.0, 64.0, 139.0, 154.0]
        );
        let bias = f32s(&[2], &[1.0, -1.0]);
        assert_eq!(
            run1("MatMulV2", &[], &[a23(), b32(), bias], DType::F32, &[2, 2]).f32(),
            [59.0, 63.0, 140.0, 153.0]
        );
    }

    #[test]
    fn matmul_transposes() {
        let at = f32s(&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let bt = f32s(&[2, 3], &[7.0, 9.0, 11.0, 8.0, 10.0, 12.0]);
        let want = [58.0, 64.0, 139.0, 154.0];
        let t1 = [("transpose_x1", boolean(true))];
        let t2 = [("transpose_x2", boolean(true))];
        let both = [
            ("transpose_x1", boolean(true)),
            ("transpose_x2", boolean(true)),
        ];
        assert_eq!(
            run1("MatMul", &t1, &[at.clone(), b32()], DType::F32, &[2, 2]).f32(),
            want
        );
        assert_eq!(
            run1("MatMul", &t2, &[a23(), bt.clone()], DType::F32, &[2, 2]).f32(),
            want
        );
        assert_eq!(
            run1("MatMul", &both, &[at, bt], DType::F32, &[2, 2]).f32(),
            want
        );
    }

    #[test]
    fn batch_matmul_broadcasts_batches_and_adjoints() {
        // x1 [2,1,2] (two row vectors), x2 [2,2] shared across the batch.
        let a = f32s(&[2, 1, 2], &[1.0, 2.0, 3.0, 4.0]);
        let b = f32s(&[2, 2], &[1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(
            run1(
                "BatchMatMul",
                &[],
                &[a.clone(), b.clone()],
                DType::F32,
                &[2, 1, 2]
            )
            .f32(),
            [201.0, 2010.0, 403.0, 4030.0]
        );
        let adj = [("adj_x2", boolean(true))];
        assert_eq!(
            run1(
                "BatchMatMulV2",
                &adj,
                &[a.clone(), b],
                DType::F32,
                &[2, 1, 2]
            )
            .f32(),
            [21.0, 2100.0, 43.0, 4300.0]
        );
        // Broadcast [2,1,1,2] against [3,2,1]: out [2,3,1,1].
        let b3 = f32s(&[3, 2, 1], &[1.0, 1.0, 1.0, -1.0, 0.0, 2.0]);
        let a4 = f32s(&[2, 1, 1, 2], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            run1("BatchMatMul", &[], &[a4, b3], DType::F32, &[2, 3, 1, 1]).f32(),
            [3.0, -1.0, 4.0, 7.0, -1.0, 8.0]
        );
        let adj1 = [("adj_x1", boolean(true))];
        let at = f32s(&[2, 2, 1], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            run1(
                "BatchMatMul",
                &adj1,
                &[at, f32s(&[2, 1], &[1.0, 1.0])],
                DType::F32,
                &[2, 1, 1]
            )
            .f32(),
            [3.0, 7.0]
        );
    }

    #[test]
    fn f16_and_int_products() {
        let a = f16s(&[1, 2], &[1.0, 1.0]);
        let b = f16s(&[2, 1], &[2048.0, 1.0]);
        // 2049 in f32, rounded once to f16 (ties to even): 2048.
        assert_eq!(
            run1("MatMul", &[], &[a, b], DType::F16, &[1, 1]).f16(),
            [2048.0]
        );
        let a = i32s(&[1, 2], &[i32::MAX, 1]);
        let b = i32s(&[2, 1], &[2, 2]);
        assert_eq!(run1("MatMul", &[], &[a, b], DType::I32, &[1, 1]).i64(), [0]);
    }

    #[test]
    fn matmul_errors() {
        let e = fails("MatMul", &[], &[a23(), a23()], &[(DType::F32, vec![2, 2])]);
        assert!(e.contains("`MatMul`: contraction dims differ"), "{e}");
        let e = fails("MatMul", &[], &[a23(), b32()], &[(DType::F32, vec![2, 3])]);
        assert!(e.contains("output 0: dims [2, 3], expected [2, 2]"), "{e}");
        let v = f32s(&[3], &[0.0; 3]);
        let e = fails("MatMul", &[], &[v, b32()], &[(DType::F32, vec![2, 2])]);
        assert!(e.contains("input 0 (x1) dims [3]: expected rank 2"), "{e}");
        let e = fails(
            "MatMul",
            &[],
            &[a23(), b32(), f32s(&[3], &[0.0; 3])],
            &[(DType::F32, vec![2, 2])],
        );
        assert!(e.contains("input 2 (bias) dims [3], expected [2]"), "{e}");
        let e = fails("MatMul", &[], &[a23()], &[(DType::F32, vec![2, 2])]);
        assert!(
            e.contains("expects 2 to 4 inputs (x1, x2, bias, offset_w), got 1"),
            "{e}"
        );
        let e = fails(
            "MatMul",
            &[("transpose_x1", string("yes"))],
            &[a23(), b32()],
            &[(DType::F32, vec![2, 2])],
        );
        assert!(e.contains("attribute `transpose_x1` must be a bool"), "{e}");
        let a = f32s(&[2, 1, 2], &[0.0; 4]);
        let b = f32s(&[3, 2, 2], &[0.0; 12]);
        let e = fails("BatchMatMul", &[], &[a, b], &[(DType::F32, vec![3, 1, 2])]);
        assert!(
            e.contains("batch dims [2] of input 0 (x1) and [3] of input 1 (x2) do not broadcast"),
            "{e}"
        );
    }
}
