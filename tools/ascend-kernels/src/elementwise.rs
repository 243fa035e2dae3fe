//! One-input elementwise ops: activations and math functions. Output dtype and dims equal
//! the input's. Floats compute in the input's compute domain (`f32` for f16/bf16/f32);
//! the integer forms exist only where they are exact (Neg, Abs, Square, Relu, Relu6, Sign),
//! and wrap as two's complement.

use std::f64::consts::PI;

use crate::kernel::{Op, Result};
use crate::types::{TensorMut, TensorRef};
use crate::values::{Real, Values};

/// Which function a one-input kernel applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unary {
    Relu,
    Relu6,
    LeakyRelu,
    /// GE's Gelu as the Ascend kernel computes it: the tanh approximation
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    Gelu,
    Sigmoid,
    Tanh,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Square,
    Abs,
    Neg,
    Erf,
    Reciprocal,
    Floor,
    Ceil,
    Sign,
}

impl Unary {
    fn float<T: Real>(self, x: T, slope: T) -> T {
        let zero = T::zero();
        let one = T::one();
        match self {
            Unary::Relu => relu(x),
            Unary::Relu6 => {
                let r = relu(x);
                if r > T::lit(6.0) {
                    T::lit(6.0)
                } else {
                    r
                }
            }
            Unary::LeakyRelu => {
                if x < zero {
                    x * slope
                } else {
                    x
                }
            }
            Unary::Gelu => {
                let c = T::lit((2.0 / PI).sqrt());
                let inner = c * (x + T::lit(0.044715) * x * x * x);
                T::lit(0.5) * x * (one + inner.tanh())
            }
            Unary::Sigmoid => one / (one + (-x).exp()),
            Unary::Tanh => x.tanh(),
            Unary::Exp => x.exp(),
            Unary::Log => x.ln(),
            Unary::Sqrt => x.sqrt(),
            Unary::Rsqrt => one / x.sqrt(),
            Unary::Square => x * x,
            Unary::Abs => x.abs(),
            Unary::Neg => -x,
            Unary::Erf => x.erf(),
            Unary::Reciprocal => one / x,
            Unary::Floor => x.floor(),
            Unary::Ceil => x.ceil(),
            Unary::Sign => {
                if x > zero {
                    one
                } else if x < zero {
                    -one
                } else {
                    x
                }
            }
        }
    }

    /// The integer form, `None` where the op is float-only.
    fn int(self, x: i128) -> Option<i128> {
        Some(match self {
            Unary::Relu => x.max(0),
            Unary::Relu6 => x.clamp(0, 6),
            Unary::Square => x.wrapping_mul(x),
            Unary::Abs => x.wrapping_abs(),
            Unary::Neg => x.wrapping_neg(),
            Unary::Sign => x.signum(),
            _ => return None,
        })
    }
}

/// Relu that keeps NaN (NaN is not below zero) and maps -0 to +0.
fn relu<T: Real>(x: T) -> T {
    if x > T::zero() || x.is_nan() {
        x
    } else {
        T::zero()
    }
}

fn map_float<T: Real>(v: Vec<T>, f: Unary, slope: f64) -> Vec<T> {
    let slope = T::lit(slope);
    v.into_iter().map(|x| f.float(x, slope)).collect()
}

/// The kernel of every [`Unary`] op: input `x`, output `y` of the same dtype and dims.
pub(crate) fn unary(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
    f: Unary,
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    // LeakyRelu: GE's `negative_slope` (default 0.0); TF graphs carry `alpha`.
    let slope = match op.attrs.get("negative_slope") {
        Some(_) => op.attr_float("negative_slope", 0.0)?,
        None => op.attr_float("alpha", 0.0)?,
    } as f64;
    let y = match x.values() {
        Values::F32(v) => Values::F32(map_float(v, f, slope)),
        Values::F64(v) => Values::F64(map_float(v, f, slope)),
        Values::Int(v) if f.int(0).is_some() => {
            Values::Int(v.into_iter().filter_map(|x| f.int(x)).collect())
        }
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

    #[test]
    fn relu_and_friends() {
        let x = f32s(&[5], &[-2.0, -0.0, 0.5, 7.0, f32::NAN]);
        let y = run1("Relu", &[], &[x.clone()], DType::F32, &[5]);
        let y = y.f32();
        assert_eq!(&y[..4], &[0.0, 0.0, 0.5, 7.0]);
        assert!(y[4].is_nan());
        assert_eq!(
            run1("Relu6", &[], &[x.clone()], DType::F32, &[5]).f32()[..4],
            [0.0, 0.0, 0.5, 6.0]
        );
        let attrs = [("negative_slope", float(0.1))];
        assert_eq!(
            run1("LeakyRelu", &attrs, &[x], DType::F32, &[5]).f32()[..4],
            [-0.2, 0.0, 0.5, 7.0]
        );
    }

    #[test]
    fn gelu_is_the_tanh_approximation() {
        let x = f32s(&[3], &[0.0, 1.0, -2.0]);
        let y = run1("Gelu", &[], &[x], DType::F32, &[3]).f32();
        // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) by hand.
        assert_eq!(y[0], 0.0);
        assert!((y[1] - 0.841_192).abs() < 1e-6, "{}", y[1]);
        assert!((y[2] + 0.045_402_3).abs() < 1e-6, "{}", y[2]);
    }

    #[test]
    fn math_functions() {
        let x = f32s(&[2], &[1.0, 4.0]);
        let cases: [(&str, [f32; 2]); 8] = [
            ("Exp", [1f32.exp(), 4f32.exp()]),
            ("Log", [0.0, 4f32.ln()]),
            ("Sqrt", [1.0, 2.0]),
            ("Rsqrt", [1.0, 0.5]),
            ("Square", [1.0, 16.0]),
            ("Neg", [-1.0, -4.0]),
            ("Reciprocal", [1.0, 0.25]),
            (
                "Sigmoid",
                [1.0 / (1.0 + (-1f32).exp()), 1.0 / (1.0 + (-4f32).exp())],
            ),
        ];
        for (op, want) in cases {
            assert_eq!(
                run1(op, &[], &[x.clone()], DType::F32, &[2]).f32(),
                want,
                "{op}"
            );
        }
        let e = run1("Erf", &[], &[f32s(&[1], &[0.5])], DType::F32, &[1]).f32();
        assert!((e[0] - 0.520_499_9).abs() < 1e-6);
        let t = run1("Tanh", &[], &[f32s(&[1], &[0.5])], DType::F32, &[1]).f32();
        assert_eq!(t[0], 0.5f32.tanh());
    }

    #[test]
    fn f16_computes_in_f32_and_rounds_once() {
        // Square(1 + 2^-10) = 1 + 2^-9 + 2^-20 in f32, rounded once to f16: 1 + 2^-9.
        let x = f16s(&[1], &[1.0 + 2f32.powi(-10)]);
        let y = run1("Square", &[], &[x], DType::F16, &[1]);
        assert_eq!(y.f16(), vec![1.0 + 2f32.powi(-9)]);
        let x = bf16s(&[1], &[3.0]);
        assert_eq!(run1("Neg", &[], &[x], DType::BF16, &[1]).f32(), vec![-3.0]);
    }

    #[test]
    fn integer_forms_wrap() {
        let x = i32s(&[3], &[i32::MIN, -3, 4]);
        assert_eq!(
            run1("Neg", &[], &[x.clone()], DType::I32, &[3]).i64(),
            vec![i32::MIN as i64, 3, -4]
        );
        assert_eq!(
            run1("Abs", &[], &[x.clone()], DType::I32, &[3]).i64(),
            vec![i32::MIN as i64, 3, 4]
        );
        assert_eq!(
            run1("Relu", &[], &[x.clone()], DType::I32, &[3]).i64(),
            vec![0, 0, 4]
        );
        let err = run("Exp", &[], &[x], &[(DType::I32, vec![3])]).unwrap_err();
        assert!(err.to_string().contains("Exp"), "{err}");
    }

    #[test]
    fn errors_name_the_op_and_operand() {
        let x = f32s(&[2], &[1.0, 2.0]);
        let e = run(
            "Relu",
            &[],
            &[x.clone(), x.clone()],
            &[(DType::F32, vec![2])],
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("`Relu`: expects 1 inputs (x), got 2"),
            "{e}"
        );
        let e = run("Relu", &[], &[x.clone()], &[(DType::F16, vec![2])]).unwrap_err();
        assert!(
            e.to_string().contains("output 0: dtype F16, expected F32"),
            "{e}"
        );
        let e = run("Relu", &[], &[x.clone()], &[(DType::F32, vec![3])]).unwrap_err();
        assert!(e.to_string().contains("dims [3], expected [2]"), "{e}");
        let short = Owned {
            dtype: DType::F32,
            dims: vec![4],
            data: vec![0; 8],
        };
        let e = run("Relu", &[], &[short], &[(DType::F32, vec![4])]).unwrap_err();
        assert!(e.to_string().contains("needs 16 bytes, got 8"), "{e}");
        let e = run_with_len("Relu", &[], &[x.clone()], DType::F32, &[2], 4).unwrap_err();
        assert!(e.to_string().contains("buffer has 4"), "{e}");
        let attrs = [("negative_slope", string("steep"))];
        let e = run("LeakyRelu", &attrs, &[x], &[(DType::F32, vec![2])]).unwrap_err();
        assert!(
            e.to_string()
                .contains("attribute `negative_slope` must be a float"),
            "{e}"
        );
    }
}
