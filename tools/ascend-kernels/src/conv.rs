//! Conv2D(x, filter, bias?, offset_w?) as GE's op proto: attrs `strides` and `pads`
//! (required; pads are [top, bottom, left, right]), `dilations` = [1, 1, 1, 1], `groups` = 1,
//! `data_format` = "NHWC" (strides and dilations are in that order too). With "NCHW" the
//! filter is [out_channels, in_channels / groups, kh, kw] (what ge-gen emits); with "NHWC" it
//! is HWCN, [kh, kw, in_channels / groups, out_channels]. `bias` is [out_channels].
//!
//! `out = (in + pad_a + pad_b - dilation * (k - 1) - 1) / stride + 1`. Computed as im2col
//! plus one matrix product per image and group (ndarray / matrixmultiply), in column chunks
//! so the patch matrix stays small; float dtypes only.

use ndarray::{linalg::general_mat_mul, s, Array2, ArrayView2, ArrayViewMut2};

use crate::kernel::{Input, Op, Result};
use crate::layout::permute;
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, Domain, Real, Values};

/// Most patch-matrix elements built at once (bounds memory on big images).
const COLS_LIMIT: usize = 1 << 22;

/// A validated convolution, in NCHW terms.
pub(crate) struct ConvGeometry {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub oc: usize,
    pub kh: usize,
    pub kw: usize,
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    /// top, bottom, left, right
    pub pads: [usize; 4],
    pub groups: usize,
    pub oh: usize,
    pub ow: usize,
}

/// The output extent of one spatial dim, `None` when the window does not fit.
pub(crate) fn out_extent(
    input: usize,
    pad: usize,
    k: usize,
    stride: usize,
    dilation: usize,
) -> Option<usize> {
    let span = dilation.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
    let padded = input.checked_add(pad)?;
    Some(padded.checked_sub(span)? / stride + 1)
}

fn positive(op: &Op<'_>, v: &[i64], name: &str, want: usize) -> Result<Vec<usize>> {
    if v.len() != want {
        return Err(op.invalid(format!("attribute `{name}` {v:?}: expected {want} values")));
    }
    v.iter()
        .map(|&x| {
            usize::try_from(x)
                .ok()
                .filter(|&x| x > 0 || name == "pads")
                .ok_or_else(|| op.invalid(format!("attribute `{name}` {v:?}: bad value {x}")))
        })
        .collect()
}

fn geometry(op: &Op<'_>, x: &Input<'_>, f: &Input<'_>, nchw: bool) -> Result<ConvGeometry> {
    if x.rank() != 4 || f.rank() != 4 {
        return Err(op.invalid(format!(
            "input 0 (x) dims {:?} and input 1 (filter) dims {:?}: expected rank 4",
            x.dims, f.dims
        )));
    }
    let d = &x.dims;
    let (n, c, h, w) = if nchw {
        (d[0], d[1], d[2], d[3])
    } else {
        (d[0], d[3], d[1], d[2])
    };
    let fd = &f.dims;
    let (oc, icg, kh, kw) = if nchw {
        (fd[0], fd[1], fd[2], fd[3])
    } else {
        (fd[3], fd[2], fd[0], fd[1])
    };
    let (hi, wi) = if nchw { (2, 3) } else { (1, 2) };
    let strides = positive(op, &op.attr_ints_required("strides")?, "strides", 4)?;
    let pads = positive(op, &op.attr_ints_required("pads")?, "pads", 4)?;
    let dil = positive(
        op,
        &op.attr_ints("dilations")?.unwrap_or(vec![1; 4]),
        "dilations",
        4,
    )?;
    let gval = op.attr_int("groups", 1)?;
    let groups = usize::try_from(gval)
        .ok()
        .filter(|&g| g > 0 && c % g == 0 && oc % g == 0 && c / g == icg)
        .ok_or_else(|| {
            op.invalid(format!(
                "groups {gval} does not fit {c} input channels, {oc} output channels and filter \
                 dims {fd:?} ({icg} channels per group)"
            ))
        })?;
    let (stride, dilation) = ((strides[hi], strides[wi]), (dil[hi], dil[wi]));
    let oh = out_extent(h, pads[0] + pads[1], kh, stride.0, dilation.0);
    let ow = out_extent(w, pads[2] + pads[3], kw, stride.1, dilation.1);
    let (Some(oh), Some(ow)) = (oh, ow) else {
        return Err(op.invalid(format!(
            "filter {kh}x{kw} (dilations {dilation:?}) does not fit input {h}x{w} with pads {pads:?}"
        )));
    };
    Ok(ConvGeometry {
        n,
        c,
        h,
        w,
        oc,
        kh,
        kw,
        stride,
        dilation,
        pads: [pads[0], pads[1], pads[2], pads[3]],
        groups,
        oh,
        ow,
    })
}

/// The input row (or column) a kernel tap reads, `None` in the padding.
fn source(
    o: usize,
    k: usize,
    stride: usize,
    dilation: usize,
    pad: usize,
    extent: usize,
) -> Option<usize> {
    (o * stride + k * dilation)
        .checked_sub(pad)
        .filter(|&i| i < extent)
}

/// NCHW convolution of `x` with an OIHW `filter`, plus `bias`: NCHW output.
pub(crate) fn conv_nchw<T: Real>(
    x: &[T],
    filter: &[T],
    bias: Option<&[T]>,
    g: &ConvGeometry,
) -> Vec<T> {
    let (icg, ocg) = (g.c / g.groups, g.oc / g.groups);
    let k = icg * g.kh * g.kw;
    let p = g.oh * g.ow;
    let mut out = vec![T::zero(); g.n * g.oc * p];
    if out.is_empty() {
        return out;
    }
    let chunk = (COLS_LIMIT / k.max(1)).clamp(1, p.max(1));
    for ni in 0..g.n {
        for gi in 0..g.groups {
            let wrows = &filter[gi * ocg * k..(gi + 1) * ocg * k];
            let Ok(wmat) = ArrayView2::from_shape((ocg, k), wrows) else {
                continue;
            };
            let obase = (ni * g.oc + gi * ocg) * p;
            let Ok(mut omat) =
                ArrayViewMut2::from_shape((ocg, p), &mut out[obase..obase + ocg * p])
            else {
                continue;
            };
            let mut p0 = 0;
            while p0 < p {
                let p1 = (p0 + chunk).min(p);
                let mut cols = Array2::<T>::zeros((k, p1 - p0));
                for ci in 0..icg {
                    let plane = &x[((ni * g.c) + gi * icg + ci) * g.h * g.w..][..g.h * g.w];
                    for ky in 0..g.kh {
                        for kx in 0..g.kw {
                            let row = (ci * g.kh + ky) * g.kw + kx;
                            for (j, pos) in (p0..p1).enumerate() {
                                let (oy, ox) = (pos / g.ow, pos % g.ow);
                                let iy = source(oy, ky, g.stride.0, g.dilation.0, g.pads[0], g.h);
                                let ix = source(ox, kx, g.stride.1, g.dilation.1, g.pads[2], g.w);
                                if let (Some(iy), Some(ix)) = (iy, ix) {
                                    cols[[row, j]] = plane[iy * g.w + ix];
                                }
                            }
                        }
                    }
                }
                let mut target = omat.slice_mut(s![.., p0..p1]);
                general_mat_mul(T::one(), &wmat, &cols, T::zero(), &mut target);
                p0 = p1;
            }
        }
    }
    if let Some(bias) = bias {
        for (i, plane) in out.chunks_mut(p).enumerate() {
            let b = bias[i % g.oc];
            for y in plane {
                *y = *y + b;
            }
        }
    }
    out
}

fn run<T: Real>(
    op: &Op<'_>,
    x: &Input<'_>,
    f: &Input<'_>,
    bias: Option<&Input<'_>>,
    g: &ConvGeometry,
    nchw: bool,
) -> Result<Values> {
    let conv = |t: &Input<'_>| {
        T::from_values(t.values()).ok_or_else(|| {
            op.invalid(format!(
                "{} has dtype {:?}, expected {:?}",
                t.label(),
                t.dtype,
                x.dtype
            ))
        })
    };
    let (mut xv, mut fv) = (conv(x)?, conv(f)?);
    let bv = bias.map(conv).transpose()?;
    if !nchw {
        xv = permute(&xv, &x.dims, &[0, 3, 1, 2]).0;
        fv = permute(&fv, &f.dims, &[3, 2, 0, 1]).0;
    }
    let mut y = conv_nchw(&xv, &fv, bv.as_deref(), g);
    if !nchw {
        y = permute(&y, &[g.n, g.oc, g.oh, g.ow], &[0, 2, 3, 1]).0;
    }
    Ok(T::into_values(y))
}

pub(crate) fn conv2d(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let ins = op.inputs_optional(inputs, &["x", "filter", "bias", "offset_w"], 2)?;
    if ins.len() == 4 || op.attr_int("offset_x", 0)? != 0 {
        return Err(op.invalid("quantized convolution (offset_w, offset_x) is not supported"));
    }
    op.output_count(outputs, 1, 1)?;
    let (x, f, bias) = (&ins[0], &ins[1], ins.get(2));
    op.same_dtype(&[x, f])?;
    let nchw = match op.attr_str("data_format", "NHWC")? {
        "NCHW" => true,
        "NHWC" => false,
        other => {
            return Err(op.invalid(format!(
                "attribute `data_format` {other:?}: expected \"NCHW\" or \"NHWC\""
            )))
        }
    };
    let g = geometry(op, x, f, nchw)?;
    if let Some(b) = bias {
        if b.dims != [g.oc] {
            return Err(op.invalid(format!(
                "input 2 (bias) dims {:?}, expected [{}]",
                b.dims, g.oc
            )));
        }
    }
    let y = match domain(x.dtype) {
        Domain::F32 => run::<f32>(op, x, f, bias, &g, nchw)?,
        Domain::F64 => run::<f64>(op, x, f, bias, &g, nchw)?,
        _ => {
            return Err(op.invalid(format!(
                "input 0 (x): dtype {:?} is not supported (float only)",
                x.dtype
            )))
        }
    };
    let dims = if nchw {
        vec![g.n, g.oc, g.oh, g.ow]
    } else {
        vec![g.n, g.oh, g.ow, g.oc]
    };
    op.write(outputs, 0, x.dtype, &dims, &y)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::{AttrValue, DType};

    fn nchw(strides: &[i64], pads: &[i64]) -> Vec<(&'static str, AttrValue)> {
        vec![
            ("data_format", string("NCHW")),
            ("strides", ints(strides)),
            ("pads", ints(pads)),
        ]
    }

    fn x33() -> Owned {
        f32s(
            &[1, 1, 3, 3],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        )
    }

    #[test]
    fn conv_valid_and_padded() {
        let w = f32s(&[1, 1, 2, 2], &[1.0, 0.0, 0.0, -1.0]); // x[i][j] - x[i+1][j+1]
        let y = run1(
            "Conv2D",
            &nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]),
            &[x33(), w.clone()],
            DType::F32,
            &[1, 1, 2, 2],
        );
        assert_eq!(y.f32(), [-4.0; 4]);
        // pads [1,0,1,0]: top and left only; output 3x3.
        let y = run1(
            "Conv2D",
            &nchw(&[1, 1, 1, 1], &[1, 0, 1, 0]),
            &[x33(), w],
            DType::F32,
            &[1, 1, 3, 3],
        );
        assert_eq!(
            y.f32(),
            [-1.0, -2.0, -3.0, -4.0, -4.0, -4.0, -7.0, -4.0, -4.0]
        );
        // 3x3 ones, pad 1, stride 2: sums of the 3x3 neighbourhoods of the corners.
        let ones = f32s(&[1, 1, 3, 3], &[1.0; 9]);
        let y = run1(
            "Conv2D",
            &nchw(&[1, 1, 2, 2], &[1, 1, 1, 1]),
            &[x33(), ones],
            DType::F32,
            &[1, 1, 2, 2],
        );
        assert_eq!(y.f32(), [12.0, 16.0, 24.0, 28.0]);
    }

    #[test]
    fn conv_dilation_bias_and_channels() {
        // Dilation 2 on a 3x3 input with a 2x2 filter reads the four corners.
        let w = f32s(&[1, 1, 2, 2], &[1.0, 1.0, 1.0, 1.0]);
        let mut a = nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]);
        a.push(("dilations", ints(&[1, 1, 2, 2])));
        let bias = f32s(&[1], &[0.5]);
        let y = run1("Conv2D", &a, &[x33(), w, bias], DType::F32, &[1, 1, 1, 1]);
        assert_eq!(y.f32(), [20.5]);
        // Two input channels, two output channels, 1x1 filter: a channel mix.
        let x = f32s(&[1, 2, 1, 2], &[1.0, 2.0, 10.0, 20.0]);
        let w = f32s(&[2, 2, 1, 1], &[1.0, 1.0, 1.0, -1.0]);
        let y = run1(
            "Conv2D",
            &nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]),
            &[x.clone(), w.clone()],
            DType::F32,
            &[1, 2, 1, 2],
        );
        assert_eq!(y.f32(), [11.0, 22.0, -9.0, -18.0]);
        // groups = 2: each output channel sees only its own input channel.
        let wg = f32s(&[2, 1, 1, 1], &[2.0, 3.0]);
        let mut a = nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]);
        a.push(("groups", int(2)));
        let y = run1("Conv2D", &a, &[x, wg], DType::F32, &[1, 2, 1, 2]);
        assert_eq!(y.f32(), [2.0, 4.0, 30.0, 60.0]);
    }

    #[test]
    fn conv_nhwc_matches_nchw() {
        // One image 2x2 with 2 channels, NHWC; HWCN filter 1x1x2x1 summing the channels.
        let x = f32s(&[1, 2, 2, 2], &[1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0]);
        let w = f32s(&[1, 1, 2, 1], &[1.0, 1.0]);
        let a = vec![
            ("strides", ints(&[1, 1, 1, 1])),
            ("pads", ints(&[0, 0, 0, 0])),
        ];
        let y = run1("Conv2D", &a, &[x, w], DType::F32, &[1, 2, 2, 1]);
        assert_eq!(y.f32(), [11.0, 22.0, 33.0, 44.0]);
    }

    #[test]
    fn conv_f16_rounds_once() {
        let x = f16s(&[1, 1, 1, 2], &[2048.0, 1.0]);
        let w = f16s(&[1, 1, 1, 2], &[1.0, 1.0]);
        let y = run1(
            "Conv2D",
            &nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]),
            &[x, w],
            DType::F16,
            &[1, 1, 1, 1],
        );
        assert_eq!(y.f16(), [2048.0]);
    }

    #[test]
    fn conv_errors() {
        let w = f32s(&[1, 1, 4, 4], &[0.0; 16]);
        let e = fails(
            "Conv2D",
            &nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]),
            &[x33(), w],
            &[(DType::F32, vec![1, 1, 1, 1])],
        );
        assert!(
            e.contains("`Conv2D`: filter 4x4 (dilations (1, 1)) does not fit input 3x3"),
            "{e}"
        );
        let w = f32s(&[1, 1, 2, 2], &[0.0; 4]);
        let e = fails(
            "Conv2D",
            &nchw(&[1, 1, 0, 1], &[0, 0, 0, 0]),
            &[x33(), w.clone()],
            &[(DType::F32, vec![1, 1, 2, 2])],
        );
        assert!(
            e.contains("attribute `strides` [1, 1, 0, 1]: bad value 0"),
            "{e}"
        );
        let e = fails(
            "Conv2D",
            &nchw(&[1, 1], &[0, 0, 0, 0]),
            &[x33(), w.clone()],
            &[(DType::F32, vec![1, 1, 2, 2])],
        );
        assert!(e.contains("expected 4 values"), "{e}");
        let mut a = nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]);
        a.push(("groups", int(2)));
        let e = fails(
            "Conv2D",
            &a,
            &[x33(), w.clone()],
            &[(DType::F32, vec![1, 1, 2, 2])],
        );
        assert!(e.contains("does not fit 1 input channels"), "{e}");
        let e = fails(
            "Conv2D",
            &[("data_format", string("NCHW"))],
            &[x33(), w.clone()],
            &[(DType::F32, vec![1, 1, 2, 2])],
        );
        assert!(e.contains("required attribute `strides` missing"), "{e}");
        let e = fails(
            "Conv2D",
            &nchw(&[1, 1, 1, 1], &[0, 0, 0, 0]),
            &[x33(), w],
            &[(DType::F32, vec![1, 1, 3, 3])],
        );
        assert!(
            e.contains("output 0: dims [1, 1, 3, 3], expected [1, 1, 2, 2]"),
            "{e}"
        );
    }
}
