//! Softmax / SoftmaxV2 and LayerNorm, computed in the input's compute domain (f32 for
//! f16/bf16) and rounded once on store.
//!
//! * Softmax(x), attr `axes` (list, default [-1]; a scalar `axis` is also read):
//!   `exp(x - max) / sum(exp(x - max))` over the axes together.
//! * LayerNorm(x, gamma, beta), attrs `begin_norm_axis` = 0, `begin_params_axis` = 0,
//!   `epsilon` = 1e-7 (GE's defaults): mean and (biased) variance over dims
//!   `begin_norm_axis..`, `y = (x - mean) / sqrt(variance + epsilon) * gamma + beta`, gamma and
//!   beta of dims `x.dims[begin_params_axis..]`. Outputs y, mean, variance (the last two of dims
//!   `x.dims[..begin_norm_axis] + [1; rank - begin_norm_axis]`); y alone is accepted too.

use crate::kernel::{Input, Op, Result};
use crate::layout::{strides, walk};
use crate::reduce::{reduce_values, Reduce};
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, Domain, Real, Values};

fn softmax_values<T: Real>(x: &[T], dims: &[usize], flags: &[bool]) -> Option<Vec<T>> {
    let max = reduce_values(x, dims, flags, Reduce::Max)?;
    let kept: Vec<usize> = dims
        .iter()
        .zip(flags)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    let mut ks = strides(&kept);
    for (s, &r) in ks.iter_mut().zip(flags) {
        if r {
            *s = 0;
        }
    }
    let xs = strides(dims);
    let mut e = vec![T::zero(); x.len()];
    walk(dims, [&xs, &ks], |[i, k]| e[i] = (x[i] - max[k]).exp());
    let sum = reduce_values(&e, dims, flags, Reduce::Sum)?;
    walk(dims, [&xs, &ks], |[i, k]| e[i] = e[i] / sum[k]);
    Some(e)
}

pub(crate) fn softmax(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let axes = match op.attr_ints("axes")? {
        Some(a) => a,
        None => vec![op.attr_int("axis", -1)?],
    };
    let mut flags = vec![false; x.rank()];
    for &a in &axes {
        flags[op.axis(a, x.rank(), "axis")?] = true;
    }
    if x.count == 0 {
        return op.write_bytes(outputs, 0, x.dtype, &x.dims, &[]);
    }
    let y = match x.values() {
        Values::F32(v) => softmax_values(&v, &x.dims, &flags).map(Values::F32),
        Values::F64(v) => softmax_values(&v, &x.dims, &flags).map(Values::F64),
        _ => {
            return Err(op.invalid(format!(
                "input 0 (x): dtype {:?} is not supported (float only)",
                x.dtype
            )))
        }
    }
    .ok_or_else(|| op.invalid("internal error: empty softmax axis"))?;
    op.write(outputs, 0, x.dtype, &x.dims, &y)
}

struct Normed<T> {
    y: Vec<T>,
    mean: Vec<T>,
    var: Vec<T>,
}

fn layer_norm_values<T: Real>(x: &[T], inner: usize, gamma: &[T], beta: &[T], eps: T) -> Normed<T> {
    let rows = x.len().checked_div(inner).unwrap_or(0);
    let mut out = Normed {
        y: Vec::with_capacity(x.len()),
        mean: Vec::with_capacity(rows),
        var: Vec::with_capacity(rows),
    };
    let n = T::from_count(inner);
    let g = gamma.len().max(1);
    for (r, row) in x.chunks(inner.max(1)).enumerate() {
        let mean = row.iter().fold(T::zero(), |a, &v| a + v) / n;
        let var = row
            .iter()
            .fold(T::zero(), |a, &v| a + (v - mean) * (v - mean))
            / n;
        let denom = (var + eps).sqrt();
        for (j, &v) in row.iter().enumerate() {
            // gamma/beta cover a suffix of x's dims, so the flat index modulo their size
            // finds the parameter.
            let p = (r * inner + j) % g;
            out.y.push((v - mean) / denom * gamma[p] + beta[p]);
        }
        out.mean.push(mean);
        out.var.push(var);
    }
    out
}

fn run_layer_norm<T: Real>(
    op: &Op<'_>,
    x: &Input<'_>,
    gamma: &Input<'_>,
    beta: &Input<'_>,
    inner: usize,
    eps: f32,
) -> Result<[Values; 3]> {
    let conv = |t: &Input<'_>| {
        T::from_any_float(t.values()).ok_or_else(|| {
            op.invalid(format!(
                "{} must be a float tensor, got {:?}",
                t.label(),
                t.dtype
            ))
        })
    };
    let (xv, gv, bv) = (conv(x)?, conv(gamma)?, conv(beta)?);
    let r = layer_norm_values(&xv, inner, &gv, &bv, T::lit(eps as f64));
    Ok([
        T::into_values(r.y),
        T::into_values(r.mean),
        T::into_values(r.var),
    ])
}

pub(crate) fn layer_norm(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, gamma, beta] = op.inputs_n(inputs, ["x", "gamma", "beta"])?;
    let n_out = op.output_count(outputs, 1, 3)?;
    let rank = x.rank();
    let norm_axis = op.attr_int("begin_norm_axis", 0)?;
    let params_axis = op.attr_int("begin_params_axis", 0)?;
    let eps = op.attr_float("epsilon", 1e-7)?;
    let bna = op.axis(norm_axis, rank, "begin_norm_axis")?;
    let bpa = op.axis(params_axis, rank, "begin_params_axis")?;
    let params = &x.dims[bpa..];
    for p in [&gamma, &beta] {
        if p.dims != params {
            return Err(op.invalid(format!(
                "{} dims {:?}, expected {params:?} (x dims from begin_params_axis {bpa})",
                p.label(),
                p.dims
            )));
        }
    }
    let inner: usize = x.dims[bna..].iter().product();
    let [y, mean, var] = match domain(x.dtype) {
        Domain::F32 => run_layer_norm::<f32>(op, &x, &gamma, &beta, inner, eps)?,
        Domain::F64 => run_layer_norm::<f64>(op, &x, &gamma, &beta, inner, eps)?,
        _ => {
            return Err(op.invalid(format!(
                "input 0 (x): dtype {:?} is not supported (float only)",
                x.dtype
            )))
        }
    };
    let mut stat_dims = x.dims[..bna].to_vec();
    stat_dims.resize(rank, 1);
    op.write(outputs, 0, x.dtype, &x.dims, &y)?;
    if n_out > 1 {
        let dt = outputs[1].dtype;
        op.write(outputs, 1, dt, &stat_dims, &mean)?;
    }
    if n_out > 2 {
        let dt = outputs[2].dtype;
        op.write(outputs, 2, dt, &stat_dims, &var)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    #[test]
    fn softmax_last_axis_by_default() {
        let x = f32s(&[2, 2], &[0.0, 0.0, 1.0, 3.0]);
        let y = run1("Softmax", &[], &[x.clone()], DType::F32, &[2, 2]).f32();
        let e = 1.0 / (1.0 + 2f32.exp());
        assert_eq!(y[..2], [0.5, 0.5]);
        assert!(
            (y[2] - e).abs() < 1e-7 && (y[3] - (1.0 - e)).abs() < 1e-6,
            "{y:?}"
        );
        let ax0 = [("axes", ints(&[0]))];
        let y = run1("SoftmaxV2", &ax0, &[x.clone()], DType::F32, &[2, 2]).f32();
        let a = 1.0 / (1.0 + 1f32.exp());
        assert!(
            (y[0] - a).abs() < 1e-7 && (y[2] - (1.0 - a)).abs() < 1e-6,
            "{y:?}"
        );
        let both = [("axes", ints(&[0, 1]))];
        let y = run1("Softmax", &both, &[x], DType::F32, &[2, 2]).f32();
        assert!((y.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn softmax_f16_and_large_values() {
        // Large inputs do not overflow: the max is subtracted first.
        let x = f16s(&[2], &[10000.0, 10000.0]);
        assert_eq!(
            run1("Softmax", &[], &[x], DType::F16, &[2]).f16(),
            [0.5, 0.5]
        );
        let e = fails(
            "Softmax",
            &[("axes", ints(&[1]))],
            &[f32s(&[2], &[0.0; 2])],
            &[(DType::F32, vec![2])],
        );
        assert!(
            e.contains("`Softmax`: axis 1 out of range for rank 1"),
            "{e}"
        );
    }

    #[test]
    fn layer_norm_rows() {
        // Rows [1,2,3] and [2,4,6]: means 2 and 4, variances 2/3 and 8/3.
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 2.0, 4.0, 6.0]);
        let g = f32s(&[3], &[1.0, 2.0, 1.0]);
        let b = f32s(&[3], &[0.0, 0.0, 10.0]);
        let attrs = [
            ("begin_norm_axis", int(1)),
            ("begin_params_axis", int(-1)),
            ("epsilon", float(0.0)),
        ];
        let outs = run(
            "LayerNorm",
            &attrs,
            &[x, g, b],
            &[
                (DType::F32, vec![2, 3]),
                (DType::F32, vec![2, 1]),
                (DType::F32, vec![2, 1]),
            ],
        )
        .unwrap();
        let s = (1.5f32).sqrt(); // 1 / sqrt(2/3)
        let y = outs[0].f32();
        let want = [-s, 0.0, 10.0 + s, -s, 0.0, 10.0 + s];
        for (a, w) in y.iter().zip(want) {
            assert!((a - w).abs() < 1e-5, "{y:?}");
        }
        assert_eq!(outs[1].f32(), [2.0, 4.0]);
        let v = outs[2].f32();
        assert!((v[0] - 2.0 / 3.0).abs() < 1e-6 && (v[1] - 8.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn layer_norm_defaults_normalize_everything() {
        let x = f32s(&[2], &[1.0, 3.0]);
        let g = f32s(&[2], &[1.0, 1.0]);
        let b = f32s(&[2], &[0.0, 0.0]);
        let y = run1("LayerNorm", &[], &[x, g, b], DType::F32, &[2]).f32();
        // var 1, eps 1e-7: y = +-1/sqrt(1 + 1e-7).
        assert!(
            (y[0] + 1.0).abs() < 1e-6 && (y[1] - 1.0).abs() < 1e-6,
            "{y:?}"
        );
    }

    #[test]
    fn layer_norm_errors() {
        let x = f32s(&[2, 3], &[0.0; 6]);
        let g = f32s(&[2], &[1.0; 2]);
        let attrs = [("begin_norm_axis", int(1)), ("begin_params_axis", int(1))];
        let e = fails(
            "LayerNorm",
            &attrs,
            &[x.clone(), g.clone(), g],
            &[(DType::F32, vec![2, 3])],
        );
        assert!(e.contains("input 1 (gamma) dims [2], expected [3]"), "{e}");
        let g = f32s(&[3], &[1.0; 3]);
        let bad = [("begin_norm_axis", int(2))];
        let e = fails(
            "LayerNorm",
            &bad,
            &[x.clone(), g.clone(), g.clone()],
            &[(DType::F32, vec![2, 3])],
        );
        assert!(e.contains("begin_norm_axis 2 out of range"), "{e}");
        let e = fails(
            "LayerNorm",
            &attrs,
            &[x, g.clone(), g],
            &[(DType::F32, vec![2, 3]), (DType::F32, vec![2])],
        );
        assert!(e.contains("output 1: dims [2], expected [2, 1]"), "{e}");
    }
}
