//! Cast(x), attr `dst_type` (an ACL/GE dtype number; when absent the output's dtype is
//! used, and when present it must agree with it). Conversions, each rounding at most once:
//! * float -> float: round to nearest-even (f64 -> f16/bf16 goes through f32 with
//!   round-to-odd, which keeps it a single correct rounding);
//! * int -> float: nearest (exact below 2^53, then as the f64 conversion);
//! * float -> int: truncation toward zero, saturating at the target's range, NaN -> 0
//!   (Rust's `as`);
//! * int -> int: two's complement wrap to the target width;
//! * anything -> bool: `x != 0` (NaN is true); bool -> anything: 0 or 1.

use half::{bf16, f16};

use crate::kernel::{Op, Result};
use crate::types::{DType, TensorMut, TensorRef};
use crate::values::{decode, Values};

/// `x` rounded to f32 with round-to-odd: an inexact result gets its last bit set, so a
/// second rounding to a format with at most 22 significant bits is still correct.
fn f64_to_f32_odd(x: f64) -> f32 {
    let r = x as f32;
    if !r.is_finite() || f64::from(r) == x {
        return r;
    }
    let mut bits = r.to_bits();
    if f64::from(r).abs() > x.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// A source element, as exactly as it is known.
#[derive(Clone, Copy)]
enum Src {
    F32(f32),
    F64(f64),
    Int(i128),
    Bool(bool),
}

impl Src {
    fn as_f64(self) -> f64 {
        match self {
            Src::F32(x) => f64::from(x),
            Src::F64(x) => x,
            Src::Int(i) => i as f64,
            Src::Bool(b) => f64::from(u8::from(b)),
        }
    }

    fn to_f32(self) -> f32 {
        match self {
            Src::F32(x) => x,
            Src::F64(x) => x as f32,
            Src::Int(i) => i as f32,
            Src::Bool(b) => f32::from(u8::from(b)),
        }
    }

    /// The value as an f32 that rounds correctly to f16/bf16.
    fn to_f32_for_half(self) -> f32 {
        match self {
            Src::F32(x) => x,
            Src::F64(x) => f64_to_f32_odd(x),
            Src::Int(i) => f64_to_f32_odd(i as f64),
            Src::Bool(b) => f32::from(u8::from(b)),
        }
    }

    fn is_nonzero(self) -> bool {
        match self {
            Src::F32(x) => x != 0.0,
            Src::F64(x) => x != 0.0,
            Src::Int(i) => i != 0,
            Src::Bool(b) => b,
        }
    }
}

fn write_elem(src: Src, dst: DType, out: &mut [u8]) {
    macro_rules! int {
        ($t:ty) => {{
            let v: $t = match src {
                Src::F32(x) => x as $t,
                Src::F64(x) => x as $t,
                Src::Int(i) => i as $t,
                Src::Bool(b) => <$t>::from(b),
            };
            out.copy_from_slice(&v.to_le_bytes());
        }};
    }
    match dst {
        DType::F32 => out.copy_from_slice(&src.to_f32().to_le_bytes()),
        DType::F64 => out.copy_from_slice(&src.as_f64().to_le_bytes()),
        DType::F16 => out.copy_from_slice(&f16::from_f32(src.to_f32_for_half()).to_le_bytes()),
        DType::BF16 => out.copy_from_slice(&bf16::from_f32(src.to_f32_for_half()).to_le_bytes()),
        DType::Bool => out[0] = u8::from(src.is_nonzero()),
        DType::I8 => int!(i8),
        DType::U8 => int!(u8),
        DType::I16 => int!(i16),
        DType::U16 => int!(u16),
        DType::I32 => int!(i32),
        DType::U32 => int!(u32),
        DType::I64 => int!(i64),
        DType::U64 => int!(u64),
    }
}

pub(crate) fn cast(
    op: &Op<'_>,
    inputs: &[TensorRef<'_>],
    outputs: &mut [TensorMut<'_>],
) -> Result<()> {
    let [x] = op.inputs_n(inputs, ["x"])?;
    op.output_count(outputs, 1, 1)?;
    let (out_dtype, _) = op.output_desc(outputs, 0)?;
    let dst = match op.attrs.get("dst_type") {
        None => out_dtype,
        Some(crate::types::AttrValue::DataType(d)) => *d,
        Some(_) => {
            let code = op.attr_int("dst_type", 0)?;
            i32::try_from(code)
                .ok()
                .and_then(DType::from_acl)
                .ok_or_else(|| {
                    op.invalid(format!(
                        "attribute `dst_type` {code} is not a supported dtype"
                    ))
                })?
        }
    };
    let out = op.output(outputs, 0, dst, &x.dims)?;
    let srcs: Vec<Src> = match decode(x.dtype, x.bytes) {
        Values::F32(v) => v.into_iter().map(Src::F32).collect(),
        Values::F64(v) => v.into_iter().map(Src::F64).collect(),
        Values::Int(v) => v.into_iter().map(Src::Int).collect(),
        Values::Bool(v) => v.into_iter().map(Src::Bool).collect(),
    };
    for (s, chunk) in srcs.into_iter().zip(out.chunks_exact_mut(dst.size())) {
        write_elem(s, dst, chunk);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::f64_to_f32_odd;
    use crate::testutil::*;
    use crate::types::DType;

    fn cast_to(x: Owned, dst: DType) -> Owned {
        let dims = x.dims.clone();
        run1(
            "Cast",
            &[("dst_type", int(dst.acl() as i64))],
            &[x],
            dst,
            &dims,
        )
    }

    #[test]
    fn float_conversions_round_once() {
        let x = f32s(&[3], &[1.0 + 2f32.powi(-11), 65520.0, -0.1]);
        assert_eq!(
            cast_to(x.clone(), DType::F16).f16(),
            [1.0, f32::INFINITY, half::f16::from_f32(-0.1).to_f32()]
        );
        let h = f16s(&[1], &[0.333]);
        let back = cast_to(h.clone(), DType::F32).f32();
        assert_eq!(back, h.f16());
        // f64 just above an f16 tie must round up (a truncating conversion would not).
        let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(
            cast_to(f64s(&[1], &[above_tie]), DType::F16).f16(),
            [1.0 + 2f32.powi(-10)]
        );
        assert_eq!(
            cast_to(f64s(&[1], &[1.0 + 2f64.powi(-11)]), DType::F16).f16(),
            [1.0]
        );
        assert_eq!(cast_to(f32s(&[1], &[3.0]), DType::BF16).f32(), [3.0]);
        assert_eq!(
            f64_to_f32_odd(1.0 + 2f64.powi(-30)).to_bits(),
            1f32.to_bits() | 1
        );
    }

    #[test]
    fn int_and_bool_conversions() {
        let x = f32s(&[5], &[-1.7, 2.9, 1e20, f32::NAN, 0.0]);
        assert_eq!(
            cast_to(x.clone(), DType::I32).i64(),
            [-1, 2, i32::MAX as i64, 0, 0]
        );
        assert_eq!(
            cast_to(x.clone(), DType::Bool).bools(),
            [true, true, true, true, false]
        );
        let i = i32s(&[3], &[300, -1, 0]);
        assert_eq!(cast_to(i.clone(), DType::U8).i64(), [44, 255, 0]);
        assert_eq!(cast_to(i.clone(), DType::Bool).bools(), [true, true, false]);
        assert_eq!(cast_to(i.clone(), DType::F16).f16(), [300.0, -1.0, 0.0]);
        assert_eq!(cast_to(i, DType::I64).i64(), [300, -1, 0]);
        let b = bools(&[2], &[true, false]);
        assert_eq!(cast_to(b.clone(), DType::F32).f32(), [1.0, 0.0]);
        assert_eq!(cast_to(b, DType::I32).i64(), [1, 0]);
        let big = i64s(&[1], &[(1 << 24) + 1]);
        assert_eq!(cast_to(big, DType::F32).f32(), [16777216.0]);
    }

    #[test]
    fn cast_errors() {
        let x = f32s(&[1], &[1.0]);
        let e = fails(
            "Cast",
            &[("dst_type", int(5))],
            &[x.clone()],
            &[(DType::F32, vec![1])],
        );
        assert!(
            e.contains("`Cast`: attribute `dst_type` 5 is not a supported dtype"),
            "{e}"
        );
        let e = fails(
            "Cast",
            &[("dst_type", int(1))],
            &[x.clone()],
            &[(DType::F32, vec![1])],
        );
        assert!(e.contains("output 0: dtype F32, expected F16"), "{e}");
        let e = fails(
            "Cast",
            &[("dst_type", string("f16"))],
            &[x],
            &[(DType::F16, vec![1])],
        );
        assert!(e.contains("attribute `dst_type` must be an int"), "{e}");
        // Without dst_type the output's dtype decides.
        let y = run1("Cast", &[], &[f32s(&[1], &[2.5])], DType::I32, &[1]);
        assert_eq!(y.i64(), [2]);
    }
}
