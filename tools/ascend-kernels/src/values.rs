//! Element values in the domain a kernel computes in, and their exact conversion from and
//! to tensor bytes.
//!
//! Numeric conventions (the same for every kernel):
//! * `f16` and `bf16` are widened to `f32` (exactly), computed in `f32`, and rounded once,
//!   to nearest-even, when the output element is stored;
//! * `f32` computes in `f32`, `f64` in `f64`;
//! * every integer type computes in `i128` with wrapping arithmetic and is truncated to its
//!   width on store, so results wrap as two's complement at the tensor's width;
//! * `bool` reads any non-zero byte as true and stores 0 or 1.

use std::num::Wrapping;

use half::{bf16, f16};

use crate::types::DType;

/// The values of a tensor in its compute domain.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
    Int(Vec<i128>),
    Bool(Vec<bool>),
}

/// Which [`Values`] variant a dtype computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    F32,
    F64,
    Int,
    Bool,
}

pub(crate) fn domain(dtype: DType) -> Domain {
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => Domain::F32,
        DType::F64 => Domain::F64,
        DType::Bool => Domain::Bool,
        DType::I8
        | DType::I16
        | DType::I32
        | DType::I64
        | DType::U8
        | DType::U16
        | DType::U32
        | DType::U64 => Domain::Int,
    }
}

fn le<const N: usize>(chunk: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(chunk);
    a
}

/// The values of `bytes` (exactly `count * dtype.size()` long) read as `dtype`.
pub(crate) fn decode(dtype: DType, bytes: &[u8]) -> Values {
    macro_rules! ints {
        ($t:ty, $n:literal) => {
            Values::Int(
                bytes
                    .chunks_exact($n)
                    .map(|c| <$t>::from_le_bytes(le(c)) as i128)
                    .collect(),
            )
        };
    }
    match dtype {
        DType::F32 => Values::F32(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(le(c)))
                .collect(),
        ),
        DType::F16 => Values::F32(
            bytes
                .chunks_exact(2)
                .map(|c| f16::from_le_bytes(le(c)).to_f32())
                .collect(),
        ),
        DType::BF16 => Values::F32(
            bytes
                .chunks_exact(2)
                .map(|c| bf16::from_le_bytes(le(c)).to_f32())
                .collect(),
        ),
        DType::F64 => Values::F64(
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(le(c)))
                .collect(),
        ),
        DType::Bool => Values::Bool(bytes.iter().map(|&b| b != 0).collect()),
        DType::I8 => ints!(i8, 1),
        DType::U8 => ints!(u8, 1),
        DType::I16 => ints!(i16, 2),
        DType::U16 => ints!(u16, 2),
        DType::I32 => ints!(i32, 4),
        DType::U32 => ints!(u32, 4),
        DType::I64 => ints!(i64, 8),
        DType::U64 => ints!(u64, 8),
    }
}

/// Stores `values` as `dtype` into `out` (exactly `len * dtype.size()` bytes). `Err` when the
/// values are not of `dtype`'s domain or their count does not match (a kernel bug or a
/// dtype the caller did not check).
pub(crate) fn encode(values: &Values, dtype: DType, out: &mut [u8]) -> Result<(), String> {
    let n = out.len() / dtype.size();
    let len = match values {
        Values::F32(v) => v.len(),
        Values::F64(v) => v.len(),
        Values::Int(v) => v.len(),
        Values::Bool(v) => v.len(),
    };
    if len != n || !out.len().is_multiple_of(dtype.size()) {
        return Err(format!("{len} values for {n} {dtype:?} elements"));
    }
    macro_rules! store {
        ($v:expr, $n:literal, $conv:expr) => {
            for (c, &x) in out.chunks_exact_mut($n).zip($v.iter()) {
                c.copy_from_slice(&$conv(x).to_le_bytes());
            }
        };
    }
    match (values, dtype) {
        (Values::F32(v), DType::F32) => store!(v, 4, |x: f32| x),
        (Values::F32(v), DType::F16) => store!(v, 2, f16::from_f32),
        (Values::F32(v), DType::BF16) => store!(v, 2, bf16::from_f32),
        (Values::F64(v), DType::F64) => store!(v, 8, |x: f64| x),
        (Values::Bool(v), DType::Bool) => store!(v, 1, u8::from),
        (Values::Int(v), DType::I8) => store!(v, 1, |x: i128| x as i8),
        (Values::Int(v), DType::U8) => store!(v, 1, |x: i128| x as u8),
        (Values::Int(v), DType::I16) => store!(v, 2, |x: i128| x as i16),
        (Values::Int(v), DType::U16) => store!(v, 2, |x: i128| x as u16),
        (Values::Int(v), DType::I32) => store!(v, 4, |x: i128| x as i32),
        (Values::Int(v), DType::U32) => store!(v, 4, |x: i128| x as u32),
        (Values::Int(v), DType::I64) => store!(v, 8, |x: i128| x as i64),
        (Values::Int(v), DType::U64) => store!(v, 8, |x: i128| x as u64),
        _ => return Err(format!("values of another domain than {dtype:?}")),
    }
    Ok(())
}

/// A number type kernels are written generically over: `f32`, `f64`, and `Wrapping<i128>`
/// for every integer dtype (so `+`, `-`, `*` wrap). Also what ndarray's matrix product
/// accepts.
pub(crate) trait Num:
    ndarray::LinalgScalar + PartialOrd + std::fmt::Debug + Send + Sync
{
    /// The values as `Self`, if they are of `Self`'s domain.
    fn from_values(v: Values) -> Option<Vec<Self>>;
    fn into_values(v: Vec<Self>) -> Values;
    /// An element count as `Self` (for means).
    fn from_count(n: usize) -> Self;
    /// Integer arithmetic (division truncates, by zero would panic).
    const INTEGER: bool = false;
}

impl Num for f32 {
    fn from_values(v: Values) -> Option<Vec<Self>> {
        match v {
            Values::F32(v) => Some(v),
            _ => None,
        }
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::F32(v)
    }
    fn from_count(n: usize) -> Self {
        n as f32
    }
}

impl Num for f64 {
    fn from_values(v: Values) -> Option<Vec<Self>> {
        match v {
            Values::F64(v) => Some(v),
            _ => None,
        }
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::F64(v)
    }
    fn from_count(n: usize) -> Self {
        n as f64
    }
}

impl Num for Wrapping<i128> {
    const INTEGER: bool = true;
    fn from_values(v: Values) -> Option<Vec<Self>> {
        match v {
            Values::Int(v) => Some(v.into_iter().map(Wrapping).collect()),
            _ => None,
        }
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::Int(v.into_iter().map(|w| w.0).collect())
    }
    fn from_count(n: usize) -> Self {
        Wrapping(n as i128)
    }
}

/// The float types (`f32` for f16/bf16/f32, `f64`), for kernels only floats make sense for.
pub(crate) trait Real: Num + num_traits::Float {
    fn erf(self) -> Self;
    /// A literal (exact for the constants the kernels use).
    fn lit(x: f64) -> Self;
    /// Float values of either float domain, converted to `Self` (f32 to f64 is exact; f64 to
    /// f32 rounds once). `None` for integer or bool values.
    fn from_any_float(v: Values) -> Option<Vec<Self>>;
}

impl Real for f32 {
    fn erf(self) -> Self {
        libm::erff(self)
    }
    fn lit(x: f64) -> Self {
        x as f32
    }
    fn from_any_float(v: Values) -> Option<Vec<Self>> {
        match v {
            Values::F32(v) => Some(v),
            Values::F64(v) => Some(v.into_iter().map(|x| x as f32).collect()),
            _ => None,
        }
    }
}

impl Real for f64 {
    fn erf(self) -> Self {
        libm::erf(self)
    }
    fn lit(x: f64) -> Self {
        x
    }
    fn from_any_float(v: Values) -> Option<Vec<Self>> {
        match v {
            Values::F32(v) => Some(v.into_iter().map(f64::from).collect()),
            Values::F64(v) => Some(v),
            _ => None,
        }
    }
}

/// Integer values of a tensor (shapes, axes, perms, indices), `None` if not an integer type.
pub(crate) fn ints(dtype: DType, bytes: &[u8]) -> Option<Vec<i128>> {
    match decode(dtype, bytes) {
        Values::Int(v) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(dtype: DType, v: Values) -> Values {
        let n = match &v {
            Values::F32(x) => x.len(),
            Values::F64(x) => x.len(),
            Values::Int(x) => x.len(),
            Values::Bool(x) => x.len(),
        };
        let mut bytes = vec![0u8; n * dtype.size()];
        encode(&v, dtype, &mut bytes).unwrap();
        decode(dtype, &bytes)
    }

    #[test]
    fn f16_and_bf16_round_to_nearest_even_on_store() {
        // 1 + 2^-11 is halfway between f16 1.0 and 1 + 2^-10: ties go to even (1.0).
        let tie = 1.0 + 2f32.powi(-11);
        let above = 1.0 + 2f32.powi(-11) + 2f32.powi(-20);
        assert_eq!(
            roundtrip(DType::F16, Values::F32(vec![tie, above])),
            Values::F32(vec![1.0, 1.0 + 2f32.powi(-10)])
        );
        let tie = 1.0 + 2f32.powi(-8);
        assert_eq!(
            roundtrip(DType::BF16, Values::F32(vec![tie, 70000.0])),
            Values::F32(vec![1.0, 70144.0])
        );
        // f16 overflows to infinity.
        assert_eq!(
            roundtrip(DType::F16, Values::F32(vec![70000.0])),
            Values::F32(vec![f32::INFINITY])
        );
    }

    #[test]
    fn ints_wrap_at_their_width() {
        assert_eq!(
            roundtrip(DType::I8, Values::Int(vec![127 + 1, -129, 255])),
            Values::Int(vec![-128, 127, -1])
        );
        assert_eq!(
            roundtrip(DType::U8, Values::Int(vec![256, -1])),
            Values::Int(vec![0, 255])
        );
        assert_eq!(
            roundtrip(DType::I32, Values::Int(vec![i32::MAX as i128 + 1])),
            Values::Int(vec![i32::MIN as i128])
        );
        assert_eq!(
            roundtrip(DType::U64, Values::Int(vec![-1])),
            Values::Int(vec![u64::MAX as i128])
        );
    }

    #[test]
    fn bools_read_nonzero_and_store_one() {
        assert_eq!(
            decode(DType::Bool, &[0, 1, 7]),
            Values::Bool(vec![false, true, true])
        );
        let mut out = [9u8; 2];
        encode(&Values::Bool(vec![true, false]), DType::Bool, &mut out).unwrap();
        assert_eq!(out, [1, 0]);
    }

    #[test]
    fn encode_rejects_other_domains_and_counts() {
        let mut out = [0u8; 4];
        assert!(encode(&Values::Int(vec![1]), DType::F32, &mut out).is_err());
        assert!(encode(&Values::F32(vec![1.0, 2.0]), DType::F32, &mut out).is_err());
    }
}
