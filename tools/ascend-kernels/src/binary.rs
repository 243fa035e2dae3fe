//! Two-input elementwise ops with numpy broadcasting (arithmetic, comparisons, logic),
//! plus Select, AddN and BiasAdd. Both inputs have one dtype; the output has it too, or is
//! `bool` for comparisons. Integers wrap as two's complement; an integer division or modulo
//! by zero is an error (there is no integer NaN to return).

use crate::kernel::{Input, Op, Result};
use crate::layout::{broadcast_shape, broadcast_strides, walk};
use crate::types::{DType, TensorMut, TensorRef};
use crate::values::{Real, Values};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binary {
    Add,
    Sub,
    Mul,
    /// RealDiv and Div: true division for floats, truncating division for integers.
    Div,
    /// Floor division (floats: floor(x / y); integers: rounds toward negative infinity).
    FloorDiv,
    /// Remainder with the sign of the divisor (TF FloorMod).
    FloorMod,
    Maximum,
    Minimum,
    Pow,
    SquaredDifference,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compare {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Logic {
    And,
    Or,
}

impl Binary {
    fn float<T: Real>(self, a: T, b: T) -> T {
        match self {
            Binary::Add => a + b,
            Binary::Sub => a - b,
            Binary::Mul => a * b,
            Binary::Div => a / b,
            Binary::FloorDiv => (a / b).floor(),
            Binary::FloorMod => {
                let r = a % b;
                if r != T::zero() && ((r < T::zero()) != (b < T::zero())) {
                    r + b
                } else {
                    r
                }
            }
            // NaN propagates: a NaN on either side gives NaN.
            Binary::Maximum => {
                if a.is_nan() || a > b {
                    a
                } else {
                    b
                }
            }
            Binary::Minimum => {
                if a.is_nan() || a < b {
                    a
                } else {
                    b
                }
            }
            Binary::Pow => a.powf(b),
            Binary::SquaredDifference => (a - b) * (a - b),
        }
    }

    /// `Err` text for a division by zero or a negative integer power.
    fn int(self, a: i128, b: i128) -> std::result::Result<i128, &'static str> {
        let nonzero = |b: i128| {
            if b == 0 {
                Err("integer division by zero")
            } else {
                Ok(b)
            }
        };
        Ok(match self {
            Binary::Add => a.wrapping_add(b),
            Binary::Sub => a.wrapping_sub(b),
            Binary::Mul => a.wrapping_mul(b),
            Binary::Div => a.wrapping_div(nonzero(b)?),
            Binary::FloorDiv => a.wrapping_div_euclid(nonzero(b)?) - floor_fix(a, b),
            Binary::FloorMod => {
                let r = a.wrapping_rem(nonzero(b)?);
                if r != 0 && ((r < 0) != (b < 0)) {
                    r + b
                } else {
                    r
                }
            }
            Binary::Maximum => a.max(b),
            Binary::Minimum => a.min(b),
            Binary::Pow => {
                if b < 0 {
                    return Err("integer to a negative power");
                }
                wrapping_pow(a, b as u128)
            }
            Binary::SquaredDifference => a.wrapping_sub(b).wrapping_mul(a.wrapping_sub(b)),
        })
    }
}

/// `div_euclid` rounds toward negative infinity for positive divisors; for negative ones
/// it rounds up when there is a remainder, so floor needs one less.
fn floor_fix(a: i128, b: i128) -> i128 {
    i128::from(b < 0 && a.wrapping_rem(b) != 0)
}

fn wrapping_pow(mut base: i128, mut exp: u128) -> i128 {
    let mut acc: i128 = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    acc
}

impl Compare {
    fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Compare::Equal => a == b,
            Compare::NotEqual => a != b,
            Compare::Less => a < b,
            Compare::LessEqual => a <= b,
            Compare::Greater => a > b,
            Compare::GreaterEqual => a >= b,
        }
    }
}

/// `f` over the numpy broadcast of `a` (dims `ad`) and `b` (dims `bd`) to `out`.
pub(crate) fn zip_broadcast<A: Copy, B: Copy, R>(
    a: &[A],
    ad: &[usize],
    b: &[B],
    bd: &[usize],
    out: &[usize],
    mut f: impl FnMut(A, B) -> R,
) -> Vec<R> {
    if ad == out && bd == out {
        return a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect();
    }
    let sa = broadcast_strides(ad, out);
    let sb = broadcast_strides(bd, out);
    let mut r = Vec::with_capacity(crate::layout::product(out));
    walk(out, [&sa, &sb], |[i, j]| r.push(f(a[i], b[j])));
    r
}

/// The broadcast dims of two inputs, or an error naming both shapes.
pub(crate) fn broadcast_dims(op: &Op<'_>, a: &Input<'_>, b: &Input<'_>) -> Result<Vec<usize>> {
    broadcast_shape(&a.dims, &b.dims).ok_or_else(|| {
        op.invalid(format!(
            "{} dims {:?} and {} dims {:?} do not broadcast",
            a.label(),
            a.dims,
            b.label(),
            b.dims
        ))
    })
}

fn two_inputs<'t>(op: &Op<'_>, inputs: &[TensorRef<'t>]) -> Result<[Input<'t>; 2]> {
    let [a, b] = op.inputs_n(inputs, ["x1", "x2"])?;
    op.same_dtype(&[&a, &b])?;
    Ok([a, b])
}

/// Add, Sub, Mul, RealDiv, Maximum, ...: output of the inputs' dtype.
pub(crate) fn binary(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    f: Binary,
) -> Result<()> {
    let [a, b] = two_inputs(op, inputs)?;
    op.output_count(outputs, 1, 1)?;
    let out = broadcast_dims(op, &a, &b)?;
    let y = compute(op, &a, &b, &out, f)?;
    op.write(outputs, 0, a.dtype, &out, &y)
}

/// The values of `f(a, b)` broadcast to `out` (shared with the Assign* kernels).
pub(crate) fn compute(
    op: &Op<'_>,
    a: &Input<'_>,
    b: &Input<'_>,
    out: &[usize],
    f: Binary,
) -> Result<Values> {
    Ok(match (a.values(), b.values()) {
        (Values::F32(x), Values::F32(y)) => {
            Values::F32(zip_broadcast(&x, &a.dims, &y, &b.dims, out, |p, q| {
                f.float(p, q)
            }))
        }
        (Values::F64(x), Values::F64(y)) => {
            Values::F64(zip_broadcast(&x, &a.dims, &y, &b.dims, out, |p, q| {
                f.float(p, q)
            }))
        }
        (Values::Int(x), Values::Int(y)) => {
            let mut failure = None;
            let v = zip_broadcast(&x, &a.dims, &y, &b.dims, out, |p, q| {
                f.int(p, q).unwrap_or_else(|e| {
                    failure = Some(e);
                    0
                })
            });
            if let Some(e) = failure {
                return Err(op.invalid(format!("{e} ({} / {})", a.label(), b.label())));
            }
            Values::Int(v)
        }
        _ => {
            return Err(op.invalid(format!(
                "dtype {:?} is not supported (numbers only)",
                a.dtype
            )))
        }
    })
}

/// Equal, Less, ...: bool output.
pub(crate) fn compare(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    f: Compare,
) -> Result<()> {
    let [a, b] = two_inputs(op, inputs)?;
    op.output_count(outputs, 1, 1)?;
    let out = broadcast_dims(op, &a, &b)?;
    let r = match (a.values(), b.values()) {
        (Values::F32(x), Values::F32(y)) => {
            zip_broadcast(&x, &a.dims, &y, &b.dims, &out, |p, q| f.test(p, q))
        }
        (Values::F64(x), Values::F64(y)) => {
            zip_broadcast(&x, &a.dims, &y, &b.dims, &out, |p, q| f.test(p, q))
        }
        (Values::Int(x), Values::Int(y)) => {
            zip_broadcast(&x, &a.dims, &y, &b.dims, &out, |p, q| f.test(p, q))
        }
        (Values::Bool(x), Values::Bool(y)) => {
            zip_broadcast(&x, &a.dims, &y, &b.dims, &out, |p, q| f.test(p, q))
        }
        _ => return Err(op.invalid(format!("dtype {:?} is not supported", a.dtype))),
    };
    op.write(outputs, 0, DType::Bool, &out, &Values::Bool(r))
}

/// LogicalAnd, LogicalOr: bool inputs and output.
pub(crate) fn logic(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    f: Logic,
) -> Result<()> {
    let [a, b] = two_inputs(op, inputs)?;
    op.output_count(outputs, 1, 1)?;
    let out = broadcast_dims(op, &a, &b)?;
    let (Values::Bool(x), Values::Bool(y)) = (a.values(), b.values()) else {
        return Err(op.invalid(format!("inputs must be bool, got {:?}", a.dtype)));
    };
    let r = zip_broadcast(&x, &a.dims, &y, &b.dims, &out, |p, q| match f {
        Logic::And => p && q,
        Logic::Or => p || q,
    });
    op.write(outputs, 0, DType::Bool, &out, &Values::Bool(r))
}

/// LogicalNot.
pub(crate) fn logical_not(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let Values::Bool(v) = x.values() else {
        return Err(op.invalid(format!("input 0 (x) must be bool, got {:?}", x.dtype)));
    };
    let r = Values::Bool(v.into_iter().map(|b| !b).collect());
    op.write(outputs, 0, DType::Bool, &x.dims, &r)
}

/// Select(condition, x1, x2) / SelectV2: `condition ? x1 : x2`, bytes copied. As TF's
/// Select, a rank-1 condition whose length is x1's first dim picks whole rows; otherwise the
/// three shapes broadcast (SelectV2).
pub(crate) fn select(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [c, a, b] = op.inputs_n(inputs, ["condition", "x1", "x2"])?;
    op.output_count(outputs, 1, 1)?;
    let dtype = op.same_dtype(&[&a, &b])?;
    let Values::Bool(cond) = c.values() else {
        return Err(op.invalid(format!(
            "input 0 (condition) must be bool, got {:?}",
            c.dtype
        )));
    };
    let ab = broadcast_dims(op, &a, &b)?;
    let mut cdims = c.dims.clone();
    if cdims.len() == 1 && ab.len() > 1 && cdims[0] == ab[0] {
        cdims.extend(std::iter::repeat_n(1, ab.len() - 1));
    }
    let out = broadcast_shape(&cdims, &ab).ok_or_else(|| {
        op.invalid(format!(
            "input 0 (condition) dims {:?} do not broadcast to {ab:?}",
            c.dims
        ))
    })?;
    let size = dtype.size();
    let (sc, sa, sb) = (
        broadcast_strides(&cdims, &out),
        broadcast_strides(&a.dims, &out),
        broadcast_strides(&b.dims, &out),
    );
    let mut bytes = Vec::with_capacity(crate::layout::product(&out) * size);
    walk(&out, [&sc, &sa, &sb], |[i, j, k]| {
        let src = if cond[i] {
            &a.bytes[j * size..]
        } else {
            &b.bytes[k * size..]
        };
        bytes.extend_from_slice(&src[..size]);
    });
    op.write_bytes(outputs, 0, dtype, &out, &bytes)
}

/// AddN(x...): the sum of N same-shaped tensors, added in input order.
pub(crate) fn add_n(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let xs = op.inputs_variadic(inputs, "x", 1)?;
    op.output_count(outputs, 1, 1)?;
    let refs: Vec<&Input<'_>> = xs.iter().collect();
    let dtype = op.same_dtype(&refs)?;
    for x in &xs[1..] {
        if x.dims != xs[0].dims {
            return Err(op.invalid(format!(
                "{} dims {:?}, expected {:?} like input 0",
                x.label(),
                x.dims,
                xs[0].dims
            )));
        }
    }
    let mut acc = xs[0].values();
    for x in &xs[1..] {
        acc = match (acc, x.values()) {
            (Values::F32(s), Values::F32(v)) => {
                Values::F32(s.iter().zip(&v).map(|(a, b)| a + b).collect())
            }
            (Values::F64(s), Values::F64(v)) => {
                Values::F64(s.iter().zip(&v).map(|(a, b)| a + b).collect())
            }
            (Values::Int(s), Values::Int(v)) => {
                Values::Int(s.iter().zip(&v).map(|(a, b)| a.wrapping_add(*b)).collect())
            }
            _ => return Err(op.invalid(format!("dtype {dtype:?} is not supported"))),
        };
    }
    if matches!(acc, Values::Bool(_)) {
        return Err(op.invalid(format!("dtype {dtype:?} is not supported")));
    }
    op.write(outputs, 0, dtype, &xs[0].dims, &acc)
}

/// BiasAdd(x, bias): `bias` (rank 1) added along the channel dim: the last for
/// `data_format` "NHWC" (GE's default), dim 1 for "NCHW".
pub(crate) fn bias_add(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x, bias] = op.inputs_n(inputs, ["x", "bias"])?;
    op.output_count(outputs, 1, 1)?;
    op.same_dtype(&[&x, &bias])?;
    let format = op.attr_str("data_format", "NHWC")?;
    let channel = match format {
        "NHWC" | "NDHWC" | "ND" => x.rank().checked_sub(1),
        "NCHW" | "NCDHW" => (x.rank() >= 2).then_some(1),
        other => return Err(op.invalid(format!("attribute `data_format` {other:?} not supported"))),
    }
    .ok_or_else(|| {
        op.invalid(format!(
            "input 0 (x) of rank {} has no channel dim",
            x.rank()
        ))
    })?;
    if bias.dims != [x.dims[channel]] {
        return Err(op.invalid(format!(
            "input 1 (bias) dims {:?}, expected [{}] (dim {channel} of x)",
            bias.dims, x.dims[channel]
        )));
    }
    let mut bdims = vec![1; x.rank()];
    bdims[channel] = x.dims[channel];
    let shaped = Input {
        dims: bdims,
        ..bias.clone()
    };
    let y = compute(op, &x, &shaped, &x.dims, Binary::Add)?;
    op.write(outputs, 0, x.dtype, &x.dims, &y)
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::types::DType;

    #[test]
    fn add_broadcasts_like_numpy() {
        let a = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let row = f32s(&[3], &[10.0, 20.0, 30.0]);
        let col = f32s(&[2, 1], &[100.0, 200.0]);
        assert_eq!(
            run1("Add", &[], &[a.clone(), row], DType::F32, &[2, 3]).f32(),
            [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]
        );
        assert_eq!(
            run1("Sub", &[], &[col.clone(), a.clone()], DType::F32, &[2, 3]).f32(),
            [99.0, 98.0, 97.0, 196.0, 195.0, 194.0]
        );
        let s = f32s(&[], &[2.0]);
        assert_eq!(
            run1("RealDiv", &[], &[a.clone(), s.clone()], DType::F32, &[2, 3]).f32(),
            [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
        );
        assert_eq!(
            run1("Mul", &[], &[s, col.clone()], DType::F32, &[2, 1]).f32(),
            [200.0, 400.0]
        );
        // [2,1] x [1,3] -> [2,3]
        let r13 = f32s(&[1, 3], &[1.0, 2.0, 3.0]);
        assert_eq!(
            run1("Mul", &[], &[col, r13], DType::F32, &[2, 3]).f32(),
            [100.0, 200.0, 300.0, 200.0, 400.0, 600.0]
        );
    }

    #[test]
    fn max_min_pow_and_floor_ops() {
        let a = f32s(&[3], &[1.0, -5.0, 7.0]);
        let b = f32s(&[3], &[2.0, -6.0, 2.0]);
        assert_eq!(
            run1("Maximum", &[], &[a.clone(), b.clone()], DType::F32, &[3]).f32(),
            [2.0, -5.0, 7.0]
        );
        assert_eq!(
            run1("Minimum", &[], &[a.clone(), b.clone()], DType::F32, &[3]).f32(),
            [1.0, -6.0, 2.0]
        );
        assert_eq!(
            run1("Pow", &[], &[a.clone(), b.clone()], DType::F32, &[3]).f32(),
            [1.0, 1.0 / 15625.0, 49.0]
        );
        assert_eq!(
            run1("FloorDiv", &[], &[a.clone(), b.clone()], DType::F32, &[3]).f32(),
            [0.0, 0.0, 3.0]
        );
        assert_eq!(
            run1("FloorMod", &[], &[a.clone(), b.clone()], DType::F32, &[3]).f32(),
            [1.0, -5.0, 1.0]
        );
        assert_eq!(
            run1("SquaredDifference", &[], &[a, b], DType::F32, &[3]).f32(),
            [1.0, 1.0, 25.0]
        );
    }

    #[test]
    fn integer_arithmetic_wraps_and_checks_zero() {
        let a = i32s(&[3], &[i32::MAX, -7, 7]);
        let one = i32s(&[], &[1]);
        assert_eq!(
            run1("Add", &[], &[a.clone(), one.clone()], DType::I32, &[3]).i64(),
            [i32::MIN as i64, -6, 8]
        );
        let two = i32s(&[], &[2]);
        assert_eq!(
            run1("Sub", &[], &[two.clone(), a.clone()], DType::I32, &[3]).i64(),
            [i32::MIN as i64 + 3, 9, -5]
        );
        assert_eq!(
            run1("Mul", &[], &[a.clone(), two.clone()], DType::I32, &[3]).i64(),
            [-2, -14, 14]
        );
        assert_eq!(
            run1("RealDiv", &[], &[a.clone(), two.clone()], DType::I32, &[3]).i64(),
            [i32::MAX as i64 / 2, -3, 3]
        );
        assert_eq!(
            run1("FloorDiv", &[], &[a.clone(), two.clone()], DType::I32, &[3]).i64(),
            [i32::MAX as i64 / 2, -4, 3]
        );
        let m2 = i32s(&[], &[-2]);
        assert_eq!(
            run1("FloorDiv", &[], &[a.clone(), m2.clone()], DType::I32, &[3]).i64(),
            [-(i32::MAX as i64 / 2) - 1, 3, -4]
        );
        assert_eq!(
            run1("FloorMod", &[], &[a.clone(), m2], DType::I32, &[3]).i64(),
            [-1, -1, -1]
        );
        assert_eq!(
            run1(
                "Pow",
                &[],
                &[two.clone(), i32s(&[], &[31])],
                DType::I32,
                &[]
            )
            .i64(),
            [i32::MIN as i64]
        );
        let u = u8s(&[2], &[250, 3]);
        assert_eq!(
            run1("Add", &[], &[u.clone(), u8s(&[], &[10])], DType::U8, &[2]).i64(),
            [4, 13]
        );
        let zero = i32s(&[], &[0]);
        let e = fails(
            "RealDiv",
            &[],
            &[a.clone(), zero.clone()],
            &[(DType::I32, vec![3])],
        );
        assert!(e.contains("`RealDiv`: integer division by zero"), "{e}");
        let e = fails("Pow", &[], &[a, i32s(&[], &[-1])], &[(DType::I32, vec![3])]);
        assert!(e.contains("negative power"), "{e}");
    }

    #[test]
    fn f16_add_rounds_once() {
        // 2048 + 1 is not an f16 (spacing 2 there): the exact f32 sum rounds to even, 2048.
        let a = f16s(&[2], &[2048.0, 2048.0]);
        let b = f16s(&[2], &[1.0, 3.0]);
        assert_eq!(
            run1("Add", &[], &[a, b], DType::F16, &[2]).f16(),
            [2048.0, 2052.0]
        );
    }

    #[test]
    fn f64_computes_in_f64() {
        let a = f64s(&[1], &[1.0]);
        let b = f64s(&[1], &[1e-17]);
        assert_eq!(run1("Add", &[], &[a, b], DType::F64, &[1]).f64(), [1.0]);
        let a = f64s(&[1], &[0.1]);
        let b = f64s(&[1], &[0.2]);
        assert_eq!(
            run1("Add", &[], &[a, b], DType::F64, &[1]).f64(),
            [0.1 + 0.2]
        );
    }

    #[test]
    fn comparisons_give_bool() {
        let a = f32s(&[3], &[1.0, 2.0, 3.0]);
        let b = f32s(&[], &[2.0]);
        let cases = [
            ("Equal", [false, true, false]),
            ("NotEqual", [true, false, true]),
            ("Less", [true, false, false]),
            ("LessEqual", [true, true, false]),
            ("Greater", [false, false, true]),
            ("GreaterEqual", [false, true, true]),
        ];
        for (op, want) in cases {
            assert_eq!(
                run1(op, &[], &[a.clone(), b.clone()], DType::Bool, &[3]).bools(),
                want,
                "{op}"
            );
        }
        let x = bools(&[2], &[true, false]);
        let y = bools(&[2], &[true, true]);
        assert_eq!(
            run1(
                "LogicalAnd",
                &[],
                &[x.clone(), y.clone()],
                DType::Bool,
                &[2]
            )
            .bools(),
            [true, false]
        );
        assert_eq!(
            run1("LogicalOr", &[], &[x.clone(), y], DType::Bool, &[2]).bools(),
            [true, true]
        );
        assert_eq!(
            run1("LogicalNot", &[], &[x], DType::Bool, &[2]).bools(),
            [false, true]
        );
    }

    #[test]
    fn select_rows_and_broadcast() {
        let c = bools(&[2], &[true, false]);
        let a = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let b = f32s(&[2, 2], &[5.0, 6.0, 7.0, 8.0]);
        assert_eq!(
            run1(
                "Select",
                &[],
                &[c, a.clone(), b.clone()],
                DType::F32,
                &[2, 2]
            )
            .f32(),
            [1.0, 2.0, 7.0, 8.0]
        );
        let c = bools(&[2, 2], &[true, false, false, true]);
        assert_eq!(
            run1("SelectV2", &[], &[c, a, b], DType::F32, &[2, 2]).f32(),
            [1.0, 6.0, 7.0, 4.0]
        );
    }

    #[test]
    fn add_n_and_bias_add() {
        let a = f32s(&[2], &[1.0, 2.0]);
        assert_eq!(
            run1(
                "AddN",
                &[],
                &[a.clone(), a.clone(), a.clone()],
                DType::F32,
                &[2]
            )
            .f32(),
            [3.0, 6.0]
        );
        let e = fails(
            "AddN",
            &[],
            &[a, f32s(&[1], &[1.0])],
            &[(DType::F32, vec![2])],
        );
        assert!(e.contains("input 1 (x) dims [1], expected [2]"), "{e}");
        let x = f32s(&[1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let bias = f32s(&[2], &[10.0, 20.0]);
        assert_eq!(
            run1(
                "BiasAdd",
                &[],
                &[x.clone(), bias.clone()],
                DType::F32,
                &[1, 2, 2]
            )
            .f32(),
            [11.0, 22.0, 13.0, 24.0]
        );
        let nchw = [("data_format", string("NCHW"))];
        assert_eq!(
            run1("BiasAdd", &nchw, &[x, bias], DType::F32, &[1, 2, 2]).f32(),
            [11.0, 12.0, 23.0, 24.0]
        );
    }

    #[test]
    fn binary_errors() {
        let a = f32s(&[2, 3], &[0.0; 6]);
        let b = f32s(&[2], &[0.0; 2]);
        let e = fails("Add", &[], &[a.clone(), b], &[(DType::F32, vec![2, 3])]);
        assert!(
            e.contains("input 0 (x1) dims [2, 3] and input 1 (x2) dims [2] do not broadcast"),
            "{e}"
        );
        let h = f16s(&[2, 3], &[0.0; 6]);
        let e = fails("Add", &[], &[a.clone(), h], &[(DType::F32, vec![2, 3])]);
        assert!(
            e.contains("input 1 (x2) has dtype F16, expected F32"),
            "{e}"
        );
        let e = fails(
            "Add",
            &[],
            &[a.clone(), a.clone()],
            &[(DType::F32, vec![3, 2])],
        );
        assert!(e.contains("output 0: dims [3, 2], expected [2, 3]"), "{e}");
        let e = fails("Add", &[], &[a], &[(DType::F32, vec![2, 3])]);
        assert!(e.contains("expects 2 inputs (x1, x2), got 1"), "{e}");
        let t = bools(&[1], &[true]);
        let e = fails("Add", &[], &[t.clone(), t], &[(DType::Bool, vec![1])]);
        assert!(e.contains("not supported"), "{e}");
    }
}
