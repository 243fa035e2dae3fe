//! LRN(x), local response normalisation across channels, as GE's op proto defines it
//! (TensorFlow's form): attrs `depth_radius` = 5, `bias` = 1.0, `alpha` = 1.0, `beta` = 0.5,
//! `norm_region` = "ACROSS_CHANNELS" (the only region computed here), `data_format` =
//! "NCHW" (channels are dim 1; "NHWC": the last dim).
//!
//! `y[c] = x[c] / (bias + alpha * sum(x[c'] ^ 2 for |c' - c| <= depth_radius)) ^ beta`.
//! ONNX's LRN divides its alpha by `size` and has `depth_radius = (size - 1) / 2`; GE's
//! ONNX parser does that conversion, so the kernel sees GE's attributes. Computed in the
//! input's compute domain (f32 for f16/bf16), the window summed in channel order, rounded
//! once on store.

use crate::kernel::{Op, Result};
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, Domain, Real, Values};

/// The geometry of one LRN: `outer` blocks of `channels` x `inner` elements.
struct Geometry {
    outer: usize,
    channels: usize,
    inner: usize,
    radius: usize,
}

fn lrn_values<T: Real>(x: &[T], g: &Geometry, bias: T, alpha: T, beta: T) -> Vec<T> {
    let mut y = vec![T::zero(); x.len()];
    let block = g.channels * g.inner;
    for o in 0..g.outer {
        let base = o * block;
        for c in 0..g.channels {
            let lo = c.saturating_sub(g.radius);
            let hi = (c + g.radius).min(g.channels - 1);
            for i in 0..g.inner {
                let mut sum = T::zero();
                for k in lo..=hi {
                    let v = x[base + k * g.inner + i];
                    sum = sum + v * v;
                }
                let at = base + c * g.inner + i;
                y[at] = x[at] / (bias + alpha * sum).powf(beta);
            }
        }
    }
    y
}

pub(crate) fn lrn(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let region = op.attr_str("norm_region", "ACROSS_CHANNELS")?;
    if region != "ACROSS_CHANNELS" {
        return Err(op.invalid(format!(
            "norm_region \"{region}\" is not supported (ACROSS_CHANNELS only)"
        )));
    }
    let rank = x.rank();
    let axis = match op.attr_str("data_format", "NCHW")? {
        "NCHW" if rank >= 2 => 1,
        "NHWC" if rank >= 2 => rank - 1,
        f => {
            return Err(op.invalid(format!(
                "input 0 (x) dims {:?} with data_format \"{f}\": expected NCHW or NHWC and \
                 rank >= 2",
                x.dims
            )))
        }
    };
    let radius = op.attr_int("depth_radius", 5)?;
    let radius = usize::try_from(radius)
        .map_err(|_| op.invalid(format!("depth_radius {radius} is negative")))?;
    let (bias, alpha, beta) = (
        op.attr_float("bias", 1.0)?,
        op.attr_float("alpha", 1.0)?,
        op.attr_float("beta", 0.5)?,
    );
    op.expect_output(outputs, 0, x.dtype, &x.dims)?;
    if x.count == 0 {
        return op.write_bytes(outputs, 0, x.dtype, &x.dims, &[]);
    }
    let g = Geometry {
        outer: x.dims[..axis].iter().product(),
        channels: x.dims[axis],
        inner: x.dims[axis + 1..].iter().product(),
        radius,
    };
    let y = match (domain(x.dtype), x.values()) {
        (Domain::F32, Values::F32(v)) => Values::F32(lrn_values(&v, &g, bias, alpha, beta)),
        (Domain::F64, Values::F64(v)) => Values::F64(lrn_values(
            &v,
            &g,
            f64::from(bias),
            f64::from(alpha),
            f64::from(beta),
        )),
        _ => {
            return Err(op.invalid(format!(
                "input 0 (x): dtype {:?} is not supported (float only)",
                x.dtype
            )))
        }
    };
    op.write(outputs, 0, x.dtype, &x.dims, &y)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    /// The definition, written out for one position: channels `c - r ..= c + r`.
    fn by_hand(x: &[f32], c: usize, r: usize, bias: f32, alpha: f32, beta: f32) -> f32 {
        let lo = c.saturating_sub(r);
        let hi = (c + r).min(x.len() - 1);
        let sum: f32 = x[lo..=hi].iter().map(|v| v * v).sum();
        x[c] / (bias + alpha * sum).powf(beta)
    }

    #[test]
    fn lrn_across_channels_nchw() {
        // N=1, C=4, H=1, W=2: each column normalised over its channel window.
        let v = [1.0, -2.0, 3.0, 0.5, -1.5, 4.0, 2.0, 1.0];
        let x = f32s(&[1, 4, 1, 2], &v);
        let attrs = [
            ("depth_radius", int(1)),
            ("bias", float(2.0)),
            ("alpha", float(0.1)),
            ("beta", float(0.75)),
        ];
        let y = run1("LRN", &attrs, &[x], DType::F32, &[1, 4, 1, 2]).f32();
        for w in 0..2 {
            let col: Vec<f32> = (0..4).map(|c| v[c * 2 + w]).collect();
            for c in 0..4 {
                let want = by_hand(&col, c, 1, 2.0, 0.1, 0.75);
                assert_eq!(y[c * 2 + w], want, "c {c} w {w}: {y:?}");
            }
        }
    }

    #[test]
    fn lrn_defaults_and_nhwc() {
        // Defaults: radius 5 covers all 3 channels, bias 1, alpha 1, beta 0.5.
        let v = [1.0, 2.0, 2.0];
        let want: Vec<f32> = v.iter().map(|x| x / 10f32.sqrt()).collect();
        let y = run1("LRN", &[], &[f32s(&[1, 3], &v)], DType::F32, &[1, 3]).f32();
        assert_eq!(y, want);
        let nhwc = [("data_format", string("NHWC"))];
        let y = run1(
            "LRN",
            &nhwc,
            &[f32s(&[1, 1, 3], &v)],
            DType::F32,
            &[1, 1, 3],
        )
        .f32();
        assert_eq!(y, want);
        let h = run1("LRN", &[], &[f16s(&[1, 3], &v)], DType::F16, &[1, 3]).f16();
        assert!(
            h.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-3),
            "{h:?}"
        );
    }

    #[test]
    fn lrn_errors() {
        let x = f32s(&[1, 2], &[1.0, 2.0]);
        let out = [(DType::F32, vec![1, 2])];
        let within = [("norm_region", string("WITHIN_CHANNEL"))];
        let e = fails("LRN", &within, &[x.clone()], &out);
        assert!(
            e.contains("norm_region \"WITHIN_CHANNEL\" is not supported"),
            "{e}"
        );
        let e = fails("LRN", &[("depth_radius", int(-1))], &[x.clone()], &out);
        assert!(e.contains("depth_radius -1 is negative"), "{e}");
        let e = fails(
            "LRN",
            &[],
            &[f32s(&[2], &[1.0, 2.0])],
            &[(DType::F32, vec![2])],
        );
        assert!(e.contains("expected NCHW or NHWC and rank >= 2"), "{e}");
        let e = fails(
            "LRN",
            &[],
            &[i32s(&[1, 2], &[1, 2])],
            &[(DType::I32, vec![1, 2])],
        );
        assert!(e.contains("not supported (float only)"), "{e}");
    }
}
