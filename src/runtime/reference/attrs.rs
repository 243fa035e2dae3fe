//! A Const's (or an initialised Variable's) `value` as the bytes it holds.
//!
//! Kernel attributes come from the lowering's own conversion
//! (`crate::lowering::ir_read::kernel_attrs`), so both sides hand every kernel the very
//! same list; the bytes of constants are read here independently of the lowering's reader
//! (`ir_read::dense_bytes`), so a mistake in either shows up as a mismatch.

use ascend_kernels::DType;
use half::{bf16, f16};
use melior::ir::{
    attribute::{AttributeLike, DenseElementsAttribute, FloatAttribute},
    Attribute,
};

/// The bytes of a Const's `value` for a tensor of `dtype` with `count` elements: a splat is
/// expanded to every element, a full list must have exactly `count`.
pub fn dense_bytes(attr: Attribute<'_>, dtype: DType, count: usize) -> Result<Vec<u8>, String> {
    if !attr.is_dense_elements() {
        return Err(format!(
            "`value` is not a dense elements attribute: {}",
            short(&attr.to_string())
        ));
    }
    let dense = DenseElementsAttribute::try_from(attr).map_err(|e| e.to_string())?;
    let (stored, splat) = if dense.is_splat() {
        (1, true)
    } else {
        (dense.len(), false)
    };
    if !splat && stored != count {
        return Err(format!(
            "`value` holds {stored} elements, the result type {count}"
        ));
    }
    let mut one = Vec::with_capacity(stored * dtype.size());
    for i in 0..stored {
        element_bytes(&dense, i, splat, dtype, &mut one)?;
    }
    Ok(if splat { one.repeat(count) } else { one })
}

/// Appends element `i` (or the splat value) as `dtype`'s little-endian bytes.
fn element_bytes(
    d: &DenseElementsAttribute<'_>,
    i: usize,
    splat: bool,
    dtype: DType,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    fn e<T>(r: Result<T, melior::Error>) -> Result<T, String> {
        r.map_err(|e| e.to_string())
    }
    match dtype {
        DType::F32 => out.extend(e(d.f32_element(i))?.to_le_bytes()),
        DType::F64 => out.extend(e(d.f64_element(i))?.to_le_bytes()),
        DType::F16 | DType::BF16 => {
            // The C API has no f16/bf16 element accessor; the splat value is a float
            // attribute, a full list is read from its printed form.
            let half = if splat {
                let v = FloatAttribute::try_from(d.splat_value())
                    .map_err(|e| e.to_string())?
                    .value();
                Half::Value(v)
            } else {
                printed_half(d, i)?
            };
            let bits = match (half, dtype) {
                (Half::Bits(b), _) => b,
                (Half::Value(v), DType::F16) => f16::from_f64(v).to_bits(),
                (Half::Value(v), _) => bf16::from_f64(v).to_bits(),
            };
            out.extend(bits.to_le_bytes());
        }
        DType::Bool => out.push(e(d.bool_element(i))? as u8),
        DType::I8 => out.extend(e(d.i8_element(i))?.to_le_bytes()),
        DType::U8 => out.extend(e(d.u8_element(i))?.to_le_bytes()),
        DType::I16 => out.extend(e(d.i16_element(i))?.to_le_bytes()),
        DType::U16 => out.extend(e(d.u16_element(i))?.to_le_bytes()),
        DType::I32 => out.extend(e(d.i32_element(i))?.to_le_bytes()),
        DType::U32 => out.extend(e(d.u32_element(i))?.to_le_bytes()),
        DType::I64 => out.extend(e(d.i64_element(i))?.to_le_bytes()),
        DType::U64 => out.extend(e(d.u64_element(i))?.to_le_bytes()),
    }
    Ok(())
}

/// A 16-bit float element: a value, or the bit pattern MLIR printed in hex.
#[derive(Clone, Copy)]
enum Half {
    Value(f64),
    Bits(u16),
}

/// Element `i` of a non-splat f16/bf16 list from the attribute's text
/// (`dense<[[1.0, 2.5], ...]> : tensor<..xf16>`). MLIR prints each float so that it
/// parses back to the same value (or as its bit pattern), so this is exact; the whole-tensor
/// hex form is refused.
fn printed_half(d: &DenseElementsAttribute<'_>, i: usize) -> Result<Half, String> {
    let text = d.to_string();
    let body = text
        .strip_prefix("dense<")
        .and_then(|rest| rest.rsplit_once("> :"))
        .map(|(body, _)| body)
        .ok_or_else(|| format!("unreadable dense attribute {}", short(&text)))?;
    if body.starts_with('"') {
        return Err("f16/bf16 constants in hex form are not supported".into());
    }
    let token = body
        .split(['[', ']', ','])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .nth(i)
        .ok_or_else(|| format!("element {i} missing in {}", short(&text)))?;
    if let Some(hex) = token.strip_prefix("0x") {
        if let Ok(bits) = u16::from_str_radix(hex, 16) {
            return Ok(Half::Bits(bits));
        }
    }
    token
        .parse::<f64>()
        .map(Half::Value)
        .map_err(|_| format!("unreadable float `{token}`"))
}

fn short(text: &str) -> String {
    if text.chars().count() > 80 {
        format!("{}...", text.chars().take(77).collect::<String>())
    } else {
        text.to_owned()
    }
}
