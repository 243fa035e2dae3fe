//! ReduceSum / ReduceMean / ReduceMax / ReduceMin / ReduceProd (inputs x, axes; attrs
//! `keep_dims` = false, `noop_with_empty_axes` = true) and their `...D` forms (axes as the
//! `axes` attribute). As GE (and TF's Sum): empty axes leave x unchanged unless
//! `noop_with_empty_axes` is false, which reduces every dim; negative axes count from the
//! end; repeated axes count once. Elements are accumulated in row-major input order, in the
//! compute domain (f32 for f16/bf16).

use std::num::Wrapping;

use crate::kernel::{Op, Result};
use crate::layout::{strides, walk};
use crate::types::{TensorMut, TensorRef};
use crate::values::{domain, Domain, Num};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduce {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
}

/// NaN is the one value not equal to itself (false for integers).
fn is_nan<T: PartialOrd>(x: &T) -> bool {
    x.partial_cmp(x).is_none()
}

/// Reduces `x` (dims `dims`) over the dims flagged in `reduced`; the result has the kept
/// dims (reduced ones as 1). `None` when a Max/Min/integer Mean has no element to reduce.
pub(crate) fn reduce_values<T: Num>(
    x: &[T],
    dims: &[usize],
    reduced: &[bool],
    kind: Reduce,
) -> Option<Vec<T>> {
    let kept: Vec<usize> = dims
        .iter()
        .zip(reduced)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    let out_n: usize = kept.iter().product();
    let per: usize = dims
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| r)
        .map(|(&d, _)| d)
        .product();
    let mut os = strides(&kept);
    for (s, &r) in os.iter_mut().zip(reduced) {
        if r {
            *s = 0;
        }
    }
    let is = strides(dims);
    let init = match kind {
        Reduce::Sum | Reduce::Mean => T::zero(),
        Reduce::Prod => T::one(),
        Reduce::Max | Reduce::Min => {
            if per == 0 && out_n > 0 {
                return None;
            }
            T::zero()
        }
    };
    let mut acc = vec![init; out_n];
    let mut seen = vec![
        false;
        if matches!(kind, Reduce::Max | Reduce::Min) {
            out_n
        } else {
            0
        }
    ];
    walk(dims, [&is, &os], |[i, o]| {
        let v = x[i];
        let a = &mut acc[o];
        match kind {
            Reduce::Sum | Reduce::Mean => *a = *a + v,
            Reduce::Prod => *a = *a * v,
            Reduce::Max | Reduce::Min => {
                let better = if kind == Reduce::Max { v > *a } else { v < *a };
                if !seen[o] || (better && !is_nan(a)) || is_nan(&v) {
                    *a = v;
                    seen[o] = true;
                }
            }
        }
    });
    if kind == Reduce::Mean {
        if per == 0 && out_n > 0 && T::INTEGER {
            return None;
        }
        let n = T::from_count(per);
        for a in &mut acc {
            *a = *a / n;
        }
    }
    Some(acc)
}

/// The reduced-dim flags for `axes` over `rank` dims, or `None` for a no-op.
fn reduced_flags(
    op: &Op<'_>,
    axes: &[i64],
    rank: usize,
    noop_empty: bool,
) -> Result<Option<Vec<bool>>> {
    if axes.is_empty() {
        return Ok(if noop_empty {
            None
        } else {
            Some(vec![true; rank])
        });
    }
    let mut flags = vec![false; rank];
    for &a in axes {
        flags[op.axis(a, rank, "axis")?] = true;
    }
    Ok(Some(flags))
}

pub(crate) fn reduce(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    kind: Reduce,
) -> Result<()> {
    let attr_form = op.name.ends_with('D');
    let (x, axes) = if attr_form {
        let [x] = op.inputs_n(inputs, ["x"])?;
        (x, op.attr_ints_required("axes")?)
    } else {
        let [x, axes] = op.inputs_n(inputs, ["x", "axes"])?;
        let a = op.int_values(&axes)?;
        (x, a)
    };
    op.output_count(outputs, 1, 1)?;
    let keep = op.attr_bool("keep_dims", false)?;
    let noop_empty = op.attr_bool("noop_with_empty_axes", true)?;
    let Some(flags) = reduced_flags(op, &axes, x.rank(), noop_empty)? else {
        return op.write_bytes(outputs, 0, x.dtype, &x.dims, x.bytes);
    };
    let out_dims: Vec<usize> = x
        .dims
        .iter()
        .zip(&flags)
        .filter_map(|(&d, &r)| match (r, keep) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    fn go<T: Num>(
        op: &Op<'_>,
        x: &crate::kernel::Input<'_>,
        flags: &[bool],
        kind: Reduce,
    ) -> Result<crate::values::Values> {
        let v = T::from_values(x.values()).ok_or_else(|| op.invalid("internal error: domain"))?;
        let r = reduce_values(&v, &x.dims, flags, kind).ok_or_else(|| {
            op.invalid(format!(
                "{kind:?} over an empty axis of input 0 (x) dims {:?}",
                x.dims
            ))
        })?;
        Ok(T::into_values(r))
    }
    let y = match domain(x.dtype) {
        Domain::F32 => go::<f32>(op, &x, &flags, kind)?,
        Domain::F64 => go::<f64>(op, &x, &flags, kind)?,
        Domain::Int => go::<Wrapping<i128>>(op, &x, &flags, kind)?,
        // Max / Min over bools are any / all (ONNX's ReduceMax / ReduceMin from opset 20):
        // computed on 0 / 1 and mapped back.
        Domain::Bool if matches!(kind, Reduce::Max | Reduce::Min) => {
            let crate::values::Values::Bool(b) = x.values() else {
                return Err(op.invalid("internal error: domain"));
            };
            let v: Vec<Wrapping<i128>> = b.iter().map(|&t| Wrapping(i128::from(t))).collect();
            let r = reduce_values(&v, &x.dims, &flags, kind).ok_or_else(|| {
                op.invalid(format!(
                    "{kind:?} over an empty axis of input 0 (x) dims {:?}",
                    x.dims
                ))
            })?;
            crate::values::Values::Bool(r.iter().map(|w| w.0 != 0).collect())
        }
        Domain::Bool => return Err(op.invalid(format!("bool {kind:?} is not supported"))),
    };
    op.write(outputs, 0, x.dtype, &out_dims, &y)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    fn x23() -> Owned {
        f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    }

    #[test]
    fn bool_max_and_min_are_any_and_all() {
        let x = bools(&[2, 2], &[true, false, false, false]);
        let ax1 = i64s(&[1], &[1]);
        let max = run1(
            "ReduceMax",
            &[],
            &[x.clone(), ax1.clone()],
            DType::Bool,
            &[2],
        );
        assert_eq!(max.bools(), [true, false]);
        let min = run1(
            "ReduceMin",
            &[],
            &[x.clone(), ax1.clone()],
            DType::Bool,
            &[2],
        );
        assert_eq!(min.bools(), [false, false]);
        let all = bools(&[2, 2], &[true, true, false, true]);
        assert_eq!(
            run1("ReduceMin", &[], &[all, ax1.clone()], DType::Bool, &[2]).bools(),
            [true, false]
        );
        let message = fails("ReduceSum", &[], &[x, ax1], &[(DType::Bool, vec![2])]);
        assert!(message.contains("bool Sum"), "{message}");
    }

    #[test]
    fn reduce_sum_axes_and_keep_dims() {
        let ax0 = i64s(&[1], &[0]);
        assert_eq!(
            run1("ReduceSum", &[], &[x23(), ax0], DType::F32, &[3]).f32(),
            [5.0, 7.0, 9.0]
        );
        let ax_neg = i32s(&[1], &[-1]);
        let keep = [("keep_dims", boolean(true))];
        assert_eq!(
            run1(
                "ReduceSum",
                &keep,
                &[x23(), ax_neg.clone()],
                DType::F32,
                &[2, 1]
            )
            .f32(),
            [6.0, 15.0]
        );
        let all = i64s(&[2], &[0, 1]);
        assert_eq!(
            run1("ReduceSum", &[], &[x23(), all.clone()], DType::F32, &[]).f32(),
            [21.0]
        );
        assert_eq!(
            run1("ReduceSum", &keep, &[x23(), all], DType::F32, &[1, 1]).f32(),
            [21.0]
        );
        // Repeated axes count once.
        let rep = i64s(&[2], &[1, -1]);
        assert_eq!(
            run1("ReduceSum", &[], &[x23(), rep], DType::F32, &[2]).f32(),
            [6.0, 15.0]
        );
    }

    #[test]
    fn empty_axes_follow_noop_with_empty_axes() {
        let none = i64s(&[0], &[]);
        assert_eq!(
            run1(
                "ReduceSum",
                &[],
                &[x23(), none.clone()],
                DType::F32,
                &[2, 3]
            )
            .f32(),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        let all = [("noop_with_empty_axes", boolean(false))];
        assert_eq!(
            run1("ReduceSum", &all, &[x23(), none], DType::F32, &[]).f32(),
            [21.0]
        );
    }

    #[test]
    fn mean_max_min_prod() {
        let ax1 = i64s(&[1], &[1]);
        assert_eq!(
            run1("ReduceMean", &[], &[x23(), ax1.clone()], DType::F32, &[2]).f32(),
            [2.0, 5.0]
        );
        assert_eq!(
            run1("ReduceMax", &[], &[x23(), ax1.clone()], DType::F32, &[2]).f32(),
            [3.0, 6.0]
        );
        assert_eq!(
            run1("ReduceMin", &[], &[x23(), ax1.clone()], DType::F32, &[2]).f32(),
            [1.0, 4.0]
        );
        assert_eq!(
            run1("ReduceProd", &[], &[x23(), ax1.clone()], DType::F32, &[2]).f32(),
            [6.0, 120.0]
        );
        let nan = f32s(&[3], &[1.0, f32::NAN, 3.0]);
        assert!(
            run1("ReduceMax", &[], &[nan, i64s(&[1], &[0])], DType::F32, &[]).f32()[0].is_nan()
        );
        let attrs = [("axes", ints(&[0]))];
        assert_eq!(
            run1("ReduceSumD", &attrs, &[x23()], DType::F32, &[3]).f32(),
            [5.0, 7.0, 9.0]
        );
    }

    #[test]
    fn integer_reductions() {
        let x = i32s(&[2, 2], &[i32::MAX, 1, -7, 2]);
        let ax1 = i64s(&[1], &[1]);
        assert_eq!(
            run1(
                "ReduceSum",
                &[],
                &[x.clone(), ax1.clone()],
                DType::I32,
                &[2]
            )
            .i64(),
            [i32::MIN as i64, -5]
        );
        assert_eq!(
            run1(
                "ReduceMean",
                &[],
                &[x.clone(), ax1.clone()],
                DType::I32,
                &[2]
            )
            .i64(),
            [i32::MAX as i64 / 2 + 1, -2]
        );
        assert_eq!(
            run1("ReduceMax", &[], &[x, ax1], DType::I32, &[2]).i64(),
            [i32::MAX as i64, 2]
        );
    }

    #[test]
    fn f16_sums_in_f32() {
        // 2048 + 1 + 1 in f32 is 2050 (an f16); pairwise f16 adds would give 2048.
        let x = f16s(&[3], &[2048.0, 1.0, 1.0]);
        assert_eq!(
            run1("ReduceSum", &[], &[x, i64s(&[1], &[0])], DType::F16, &[]).f16(),
            [2050.0]
        );
    }

    #[test]
    fn reduce_errors() {
        let e = fails(
            "ReduceSum",
            &[],
            &[x23(), i64s(&[1], &[2])],
            &[(DType::F32, vec![2])],
        );
        assert!(
            e.contains("`ReduceSum`: axis 2 out of range for rank 2"),
            "{e}"
        );
        let e = fails(
            "ReduceSum",
            &[],
            &[x23(), f32s(&[1], &[0.0])],
            &[(DType::F32, vec![3])],
        );
        assert!(
            e.contains("input 1 (axes) must be an integer tensor"),
            "{e}"
        );
        let e = fails(
            "ReduceSum",
            &[],
            &[x23(), i64s(&[1], &[0])],
            &[(DType::F32, vec![1, 3])],
        );
        assert!(e.contains("dims [1, 3], expected [3]"), "{e}");
        let empty = f32s(&[0, 2], &[]);
        let e = fails(
            "ReduceMax",
            &[],
            &[empty, i64s(&[1], &[0])],
            &[(DType::F32, vec![2])],
        );
        assert!(e.contains("Max over an empty axis"), "{e}");
        let e = fails("ReduceSumD", &[], &[x23()], &[(DType::F32, vec![2])]);
        assert!(e.contains("required attribute `axes` missing"), "{e}");
    }
}
