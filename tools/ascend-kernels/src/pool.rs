//! MaxPool / AvgPool(x): attrs `ksize` and `strides` (4 values in `data_format` order),
//! `padding` "SAME" or "VALID", `data_format` = "NHWC" (GE's default) or "NCHW". As TF:
//! VALID gives `(in - k) / stride + 1`, SAME gives `ceil(in / stride)` with the padding split
//! `total / 2` before and the rest after; padded positions are ignored (Max never sees them,
//! Avg divides by the number of real elements in the window). Float dtypes; Max also
//! takes integers of up to 32 bits.

use crate::kernel::{Op, Result};
use crate::layout::permute;
use crate::types::{TensorMut, TensorRef};
use crate::values::{Real, Values};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pool {
    Max,
    Avg,
}

struct Window {
    k: usize,
    stride: usize,
    pad_before: usize,
    out: usize,
}

fn window(op: &Op<'_>, input: usize, k: usize, stride: usize, same: bool) -> Result<Window> {
    if same {
        let out = input.div_ceil(stride);
        let total = ((out.max(1) - 1) * stride + k).saturating_sub(input);
        Ok(Window {
            k,
            stride,
            pad_before: total / 2,
            out,
        })
    } else {
        let out = input
            .checked_sub(k)
            .map(|r| r / stride + 1)
            .ok_or_else(|| {
                op.invalid(format!(
                    "window {k} does not fit input extent {input} (VALID)"
                ))
            })?;
        Ok(Window {
            k,
            stride,
            pad_before: 0,
            out,
        })
    }
}

/// A validated pooling: layout, extents and the two windows.
struct Plan {
    nchw: bool,
    dims: Vec<usize>,
    planes: usize,
    nc: (usize, usize),
    hw: (usize, usize),
    wy: Window,
    wx: Window,
    kind: Pool,
}

impl Plan {
    /// Pools `v` (in the input's layout), giving the output in the same layout.
    fn apply<T: Real>(&self, v: Vec<T>) -> Vec<T> {
        let v = if self.nchw {
            v
        } else {
            permute(&v, &self.dims, &[0, 3, 1, 2]).0
        };
        let y = pool_nchw(&v, self);
        if self.nchw {
            y
        } else {
            let (n, c) = self.nc;
            permute(&y, &[n, c, self.wy.out, self.wx.out], &[0, 2, 3, 1]).0
        }
    }
}

fn pool_nchw<T: Real>(x: &[T], plan: &Plan) -> Vec<T> {
    let (planes, (h, w), wy, wx, kind) = (plan.planes, plan.hw, &plan.wy, &plan.wx, plan.kind);
    let mut out = Vec::with_capacity(planes * wy.out * wx.out);
    for plane in x.chunks_exact(h * w).take(planes) {
        for oy in 0..wy.out {
            for ox in 0..wx.out {
                let mut acc: Option<T> = None;
                let mut n = 0usize;
                for ky in 0..wy.k {
                    let Some(iy) = (oy * wy.stride + ky)
                        .checked_sub(wy.pad_before)
                        .filter(|&i| i < h)
                    else {
                        continue;
                    };
                    for kx in 0..wx.k {
                        let Some(ix) = (ox * wx.stride + kx)
                            .checked_sub(wx.pad_before)
                            .filter(|&i| i < w)
                        else {
                            continue;
                        };
                        let v = plane[iy * w + ix];
                        n += 1;
                        acc = Some(match (acc, kind) {
                            (None, _) => v,
                            (Some(a), Pool::Max) => {
                                if v > a || v.is_nan() {
                                    v
                                } else {
                                    a
                                }
                            }
                            (Some(a), Pool::Avg) => a + v,
                        });
                    }
                }
                let a = acc.unwrap_or_else(T::nan);
                out.push(if kind == Pool::Avg {
                    a / T::from_count(n.max(1))
                } else {
                    a
                });
            }
        }
    }
    out
}

pub(crate) fn pool(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    kind: Pool,
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    if x.rank() != 4 {
        return Err(op.invalid(format!("input 0 (x) dims {:?}: expected rank 4", x.dims)));
    }
    let nchw = match op.attr_str("data_format", "NHWC")? {
        "NCHW" => true,
        "NHWC" => false,
        other => {
            return Err(op.invalid(format!(
                "attribute `data_format` {other:?}: expected \"NCHW\" or \"NHWC\""
            )))
        }
    };
    let same = match op.attr_str("padding", "VALID")? {
        "SAME" => true,
        "VALID" => false,
        other => {
            return Err(op.invalid(format!(
                "attribute `padding` {other:?}: expected \"SAME\" or \"VALID\""
            )))
        }
    };
    let four = |name: &str| -> Result<Vec<usize>> {
        let v = op.attr_ints_required(name)?;
        let ok: Option<Vec<usize>> = v
            .iter()
            .map(|&k| usize::try_from(k).ok().filter(|&k| k > 0))
            .collect();
        ok.filter(|v| v.len() == 4).ok_or_else(|| {
            op.invalid(format!(
                "attribute `{name}` {v:?}: expected 4 positive values"
            ))
        })
    };
    let (ksize, strides) = (four("ksize")?, four("strides")?);
    let (hi, wi) = if nchw { (2, 3) } else { (1, 2) };
    let d = &x.dims;
    let (n, c, h, w) = if nchw {
        (d[0], d[1], d[2], d[3])
    } else {
        (d[0], d[3], d[1], d[2])
    };
    let wy = window(op, h, ksize[hi], strides[hi], same)?;
    let wx = window(op, w, ksize[wi], strides[wi], same)?;
    let plan = Plan {
        nchw,
        dims: d.clone(),
        planes: n * c,
        nc: (n, c),
        hw: (h, w),
        wy,
        wx,
        kind,
    };
    let dims = if nchw {
        vec![n, c, plan.wy.out, plan.wx.out]
    } else {
        vec![n, plan.wy.out, plan.wx.out, c]
    };
    op.expect_output(outputs, 0, x.dtype, &dims)?;
    let y = match x.values() {
        Values::F32(v) => Values::F32(plan.apply(v)),
        Values::F64(v) => Values::F64(plan.apply(v)),
        // Integer MaxPool (TF's and ONNX's int8 / uint8 ...): picking a maximum is exact in
        // f64 for integers of up to 32 bits; an empty window cannot occur for them (the
        // window always overlaps the input).
        Values::Int(v) if kind == Pool::Max && x.dtype.size() <= 4 => {
            let y = plan.apply(v.iter().map(|&i| i as f64).collect());
            Values::Int(y.into_iter().map(|f| f as i128).collect())
        }
        _ => {
            return Err(op.invalid(format!(
                "input 0 (x): dtype {:?} is not supported (float; Max: integers up to 32 bits)",
                x.dtype
            )))
        }
    };
    op.write(outputs, 0, x.dtype, &dims, &y)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::{AttrValue, DType};

    fn attrs(k: i64, s: i64, padding: &str) -> Vec<(&'static str, AttrValue)> {
        vec![
            ("data_format", string("NCHW")),
            ("ksize", ints(&[1, 1, k, k])),
            ("strides", ints(&[1, 1, s, s])),
            ("padding", string(padding)),
        ]
    }

    fn x33() -> Owned {
        f32s(
            &[1, 1, 3, 3],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        )
    }

    #[test]
    fn integer_max_pool_is_exact_and_avg_stays_float_only() {
        let x = u8s(&[1, 1, 2, 2], &[1, 255, 7, 3]);
        let y = run1(
            "MaxPool",
            &attrs(2, 1, "VALID"),
            &[x.clone()],
            DType::U8,
            &[1, 1, 1, 1],
        );
        assert_eq!(y.data, [255]);
        let big = i32s(&[1, 1, 1, 2], &[i32::MAX, i32::MIN]);
        let y = run1(
            "MaxPool",
            &attrs(1, 1, "VALID"),
            &[big],
            DType::I32,
            &[1, 1, 1, 2],
        );
        assert_eq!(
            y.data,
            [i32::MAX.to_le_bytes(), i32::MIN.to_le_bytes()].concat()
        );
        let message = fails(
            "AvgPool",
            &attrs(2, 1, "VALID"),
            &[x],
            &[(DType::U8, vec![1, 1, 1, 1])],
        );
        assert!(message.contains("not supported"), "{message}");
    }

    #[test]
    fn max_and_avg_valid() {
        assert_eq!(
            run1(
                "MaxPool",
                &attrs(2, 1, "VALID"),
                &[x33()],
                DType::F32,
                &[1, 1, 2, 2]
            )
            .f32(),
            [5.0, 6.0, 8.0, 9.0]
        );
        assert_eq!(
            run1(
                "AvgPool",
                &attrs(2, 1, "VALID"),
                &[x33()],
                DType::F32,
                &[1, 1, 2, 2]
            )
            .f32(),
            [3.0, 4.0, 6.0, 7.0]
        );
    }

    #[test]
    fn same_padding_excludes_pad_from_average() {
        // SAME, k=2, s=2 on 3x3: out 2x2, total pad 1 (0 before, 1 after).
        assert_eq!(
            run1(
                "MaxPool",
                &attrs(2, 2, "SAME"),
                &[x33()],
                DType::F32,
                &[1, 1, 2, 2]
            )
            .f32(),
            [5.0, 6.0, 8.0, 9.0]
        );
        assert_eq!(
            run1(
                "AvgPool",
                &attrs(2, 2, "SAME"),
                &[x33()],
                DType::F32,
                &[1, 1, 2, 2]
            )
            .f32(),
            [3.0, 4.5, 7.5, 9.0]
        );
        // SAME, k=3, s=1: pad 1 each side; the corner averages 4 values.
        let y = run1(
            "AvgPool",
            &attrs(3, 1, "SAME"),
            &[x33()],
            DType::F32,
            &[1, 1, 3, 3],
        )
        .f32();
        assert_eq!(y[0], 3.0);
        assert_eq!(y[4], 5.0);
    }

    #[test]
    fn nhwc_default_and_errors() {
        let x = f32s(&[1, 2, 2, 2], &[1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0]);
        let a = vec![
            ("ksize", ints(&[1, 2, 2, 1])),
            ("strides", ints(&[1, 1, 1, 1])),
        ];
        assert_eq!(
            run1("MaxPool", &a, &[x.clone()], DType::F32, &[1, 1, 1, 2]).f32(),
            [4.0, -1.0]
        );
        let e = fails(
            "MaxPool",
            &attrs(4, 1, "VALID"),
            &[x33()],
            &[(DType::F32, vec![1, 1, 1, 1])],
        );
        assert!(
            e.contains("`MaxPool`: window 4 does not fit input extent 3"),
            "{e}"
        );
        let e = fails(
            "MaxPool",
            &attrs(2, 1, "FULL"),
            &[x33()],
            &[(DType::F32, vec![1, 1, 2, 2])],
        );
        assert!(e.contains("attribute `padding` \"FULL\""), "{e}");
        let e = fails(
            "AvgPool",
            &[("ksize", ints(&[2, 2]))],
            &[x],
            &[(DType::F32, vec![1, 1, 1, 2])],
        );
        assert!(
            e.contains("attribute `ksize` [2, 2]: expected 4 positive values"),
            "{e}"
        );
    }
}
