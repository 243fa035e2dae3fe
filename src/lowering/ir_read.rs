//! Reading the compiled `ascend` IR for the lowering: tensor types as [`TensorDesc`]s,
//! attributes as kernel [`AttrValue`]s, Const values as bytes, and the plan's offset lists.
//!
//! Types are read from their printed form (`tensor<32x64xf32>`): it is what both the
//! compiled IR and the task IR spell, and one small parser serves the lowering and the
//! reader alike.

use super::model::{AttrValue, Attrs, DType, TensorDesc};
use crate::{ir::ops, syntax::floats::FloatKind};
use melior::ir::{
    attribute::{
        ArrayAttribute, AttributeLike, BoolAttribute, DenseElementsAttribute,
        DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
    },
    operation::OperationLike,
    Attribute, OperationRef, Type,
};

/// `aclFormat` ND: every tensor of a compiled graph unless it says otherwise.
pub const FORMAT_ND: i32 = 2;

/// Parses `tensor<AxBxT>` / `tensor<T>` into a descriptor; `None` for dynamic or unranked
/// shapes and element types the kernels have no `aclDataType` for.
pub fn parse_tensor_type(text: &str) -> Option<TensorDesc> {
    let body = text.strip_prefix("tensor<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = body.split('x').collect();
    let element = parts.pop()?;
    let dims = parts
        .iter()
        .map(|d| d.parse::<i64>().ok().filter(|&d| d >= 0))
        .collect::<Option<Vec<i64>>>()?;
    Some(TensorDesc {
        dtype: DType::from_mlir(element)?,
        dims,
        format: FORMAT_ND,
    })
}

/// The MLIR spelling of a descriptor's type (the inverse of [`parse_tensor_type`]).
pub fn tensor_type_text(desc: &TensorDesc) -> String {
    let mut s = String::from("tensor<");
    for d in &desc.dims {
        s.push_str(&d.to_string());
        s.push('x');
    }
    s.push_str(desc.dtype.mlir());
    s.push('>');
    s
}

/// The descriptor of an MLIR type, or why it has none.
pub fn desc_of_type(ty: Type) -> Result<TensorDesc, String> {
    let text = ty.to_string();
    parse_tensor_type(&text)
        .ok_or_else(|| format!("type `{text}` has no static shape or no ACL data type"))
}

/// An integer list attribute (`[-1, 512]` as an array of integers, or a dense i64 array).
pub fn int_list(op: OperationRef, name: &str) -> Option<Vec<i64>> {
    let attr = op.attribute(name).ok()?;
    if attr.is_array() {
        let list = ArrayAttribute::try_from(attr).ok()?;
        return (0..list.len())
            .map(|i| {
                let e = list.element(i).ok()?;
                e.is_integer()
                    .then(|| IntegerAttribute::try_from(e).ok().map(|v| v.value()))
                    .flatten()
            })
            .collect();
    }
    if attr.is_dense_i64_array() {
        let list = DenseI64ArrayAttribute::try_from(attr).ok()?;
        return (0..list.len()).map(|i| list.element(i).ok()).collect();
    }
    None
}

/// A string list attribute (`ascend.output_memory = ["variable"]`).
pub fn str_list(op: OperationRef, name: &str) -> Option<Vec<String>> {
    let attr = op.attribute(name).ok().filter(|a| a.is_array())?;
    let list = ArrayAttribute::try_from(attr).ok()?;
    (0..list.len())
        .map(|i| {
            let e = list.element(i).ok().filter(|e| e.is_string())?;
            StringAttribute::try_from(e)
                .ok()
                .and_then(ops::string_value)
                .map(str::to_string)
        })
        .collect()
}

/// Attributes that are the compiler's bookkeeping, not the kernel's: plan and stream
/// decisions, segment sizes, names, subgraph symbols.
fn is_internal_attr(name: &str) -> bool {
    name.starts_with('_')
        || name.starts_with("ascend.")
        || matches!(
            name,
            "name"
                | "type"
                | "engine"
                | "index"
                | "value"
                | "stream_id"
                | "event_id"
                | "notify_id"
                | "input_offset"
                | "output_offset"
                | "operandSegmentSizes"
                | "resultSegmentSizes"
                | "reuse_input_index"
                | "output_reuse_input_mem_indexes"
                | "reference"
                | "memory_size"
                | "stream_num"
                | "event_num"
                | "notify_num"
                | "then_branch"
                | "else_branch"
                | "branches"
                | "cond"
                | "body"
                | "f"
                | "topo_id"
        )
}

/// The op's kernel attributes sorted by name (the order of an MLIR dictionary, so the task
/// IR reads back the same list): every non-internal attribute `aclopSetAttr*` can carry
/// (others, e.g. dictionaries, are left out).
pub fn kernel_attrs(op: OperationRef) -> Attrs {
    let mut attrs = Attrs::default();
    for (name, attr) in op.attributes() {
        let Ok(name) = name.as_string_ref().as_str() else {
            continue;
        };
        if is_internal_attr(name) {
            continue;
        }
        if let Some(value) = attr_value(attr) {
            attrs.0.push((name.to_string(), value));
        }
    }
    attrs.0.sort_by(|a, b| a.0.cmp(&b.0));
    attrs
}

/// One MLIR attribute as a kernel attribute value.
pub fn attr_value(attr: Attribute) -> Option<AttrValue> {
    if attr.is_bool() {
        return BoolAttribute::try_from(attr)
            .ok()
            .map(|b| AttrValue::Bool(b.value()));
    }
    if attr.is_unit() {
        return Some(AttrValue::Bool(true));
    }
    if attr.is_integer() {
        let v = IntegerAttribute::try_from(attr).ok()?.value();
        return Some(if attr.r#type().to_string() == "i1" {
            AttrValue::Bool(v != 0)
        } else {
            AttrValue::Int(v)
        });
    }
    if attr.is_float() {
        return FloatAttribute::try_from(attr)
            .ok()
            .map(|f| AttrValue::Float(f.value() as f32));
    }
    if attr.is_string() {
        return StringAttribute::try_from(attr)
            .ok()
            .and_then(ops::string_value)
            .map(|s| AttrValue::String(s.to_string()));
    }
    if attr.is_type() {
        let ty = TypeAttribute::try_from(attr).ok()?.value().to_string();
        return DType::from_mlir(&ty).map(AttrValue::DataType);
    }
    if attr.is_dense_i64_array() {
        let list = DenseI64ArrayAttribute::try_from(attr).ok()?;
        return (0..list.len())
            .map(|i| list.element(i).ok())
            .collect::<Option<Vec<_>>>()
            .map(AttrValue::ListInt);
    }
    if attr.is_dense_elements() {
        return dense_list(attr);
    }
    if attr.is_array() {
        let list = ArrayAttribute::try_from(attr).ok()?;
        let items: Vec<AttrValue> = (0..list.len())
            .map(|i| list.element(i).ok().and_then(attr_value))
            .collect::<Option<_>>()?;
        return list_of(items);
    }
    None
}

/// A homogeneous list of scalar values as a list attribute (an empty array reads as an
/// empty string list).
fn list_of(items: Vec<AttrValue>) -> Option<AttrValue> {
    if items.iter().all(|v| matches!(v, AttrValue::Int(_))) && !items.is_empty() {
        return Some(AttrValue::ListInt(
            items
                .iter()
                .filter_map(|v| match v {
                    AttrValue::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
        ));
    }
    if items.iter().all(|v| matches!(v, AttrValue::Bool(_))) && !items.is_empty() {
        return Some(AttrValue::ListBool(
            items
                .iter()
                .filter_map(|v| match v {
                    AttrValue::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect(),
        ));
    }
    if items.iter().all(|v| matches!(v, AttrValue::Float(_))) && !items.is_empty() {
        return Some(AttrValue::ListFloat(
            items
                .iter()
                .filter_map(|v| match v {
                    AttrValue::Float(f) => Some(*f),
                    _ => None,
                })
                .collect(),
        ));
    }
    if items.iter().all(|v| matches!(v, AttrValue::String(_))) {
        return Some(AttrValue::ListString(
            items
                .into_iter()
                .filter_map(|v| match v {
                    AttrValue::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
        ));
    }
    None
}

/// A dense elements attribute as a list: floats, bools or integers.
fn dense_list(attr: Attribute) -> Option<AttrValue> {
    let desc = parse_tensor_type(&attr.r#type().to_string())?;
    let d = DenseElementsAttribute::try_from(attr).ok()?;
    let n = desc.dims.iter().product::<i64>() as usize;
    Some(match desc.dtype {
        DType::F32 => AttrValue::ListFloat(
            (0..n)
                .map(|i| d.f32_element(i).ok())
                .collect::<Option<_>>()?,
        ),
        DType::F64 => AttrValue::ListFloat(
            (0..n)
                .map(|i| d.f64_element(i).ok().map(|v| v as f32))
                .collect::<Option<_>>()?,
        ),
        DType::Bool => AttrValue::ListBool(
            (0..n)
                .map(|i| d.bool_element(i).ok())
                .collect::<Option<_>>()?,
        ),
        _ => AttrValue::ListInt(
            (0..n)
                .map(|i| element_bytes(&d, desc.dtype, i).map(|b| int_of_le(&b, desc.dtype)))
                .collect::<Option<_>>()?,
        ),
    })
}

/// The little-endian bytes of element `i` of a dense attribute of element type `dtype`.
/// A splat answers every index with its one value.
fn element_bytes(d: &DenseElementsAttribute, dtype: DType, i: usize) -> Option<Vec<u8>> {
    Some(match dtype {
        DType::F32 => d.f32_element(i).ok()?.to_le_bytes().to_vec(),
        DType::F64 => d.f64_element(i).ok()?.to_le_bytes().to_vec(),
        DType::I8 => d.i8_element(i).ok()?.to_le_bytes().to_vec(),
        DType::I16 => d.i16_element(i).ok()?.to_le_bytes().to_vec(),
        DType::I32 => d.i32_element(i).ok()?.to_le_bytes().to_vec(),
        DType::I64 => d.i64_element(i).ok()?.to_le_bytes().to_vec(),
        DType::U8 => d.u8_element(i).ok()?.to_le_bytes().to_vec(),
        DType::U16 => d.u16_element(i).ok()?.to_le_bytes().to_vec(),
        DType::U32 => d.u32_element(i).ok()?.to_le_bytes().to_vec(),
        DType::U64 => d.u64_element(i).ok()?.to_le_bytes().to_vec(),
        DType::Bool => vec![d.bool_element(i).ok()? as u8],
        // The C API has no accessor for 16-bit floats.
        DType::F16 | DType::BF16 => return None,
    })
}

fn int_of_le(bytes: &[u8], dtype: DType) -> i64 {
    let mut buf = [0u8; 8];
    buf[..bytes.len()].copy_from_slice(bytes);
    let raw = i64::from_le_bytes(buf);
    let bits = dtype.size() * 8;
    let signed = matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64);
    if bits < 64 && signed {
        (raw << (64 - bits)) >> (64 - bits)
    } else {
        raw
    }
}

/// The bytes a Const's `value` holds, splats expanded to every element.
pub fn dense_bytes(attr: Attribute, desc: &TensorDesc) -> Result<Vec<u8>, String> {
    if !attr.is_dense_elements() {
        return Err("the Const's `value` is not a dense elements attribute".into());
    }
    let d = DenseElementsAttribute::try_from(attr)
        .map_err(|_| "the Const's `value` is not a dense elements attribute".to_string())?;
    let n = desc.dims.iter().product::<i64>() as usize;
    if matches!(desc.dtype, DType::F16 | DType::BF16) {
        return half_bytes(attr, &d, desc.dtype, n);
    }
    if d.is_splat() {
        // One read, then copies: element by element through the C API is slow for the
        // large constant fills of the generated graphs.
        let one = element_bytes(&d, desc.dtype, 0)
            .ok_or_else(|| format!("cannot read a `{}` Const value", desc.dtype.mlir()))?;
        return Ok(one.repeat(n));
    }
    let mut out = Vec::with_capacity(n * desc.dtype.size());
    for i in 0..n {
        let bytes = element_bytes(&d, desc.dtype, i).ok_or_else(|| {
            format!(
                "cannot read element {i} of a `{}` Const value",
                desc.dtype.mlir()
            )
        })?;
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

/// The bytes of an `f16`/`bf16` dense attribute. The C API has no accessor for 16-bit
/// floats: a splat is read as its float value and encoded, other values from MLIR's
/// printed form (the hex blob, or the decimal list).
fn half_bytes(
    attr: Attribute,
    d: &DenseElementsAttribute,
    dtype: DType,
    n: usize,
) -> Result<Vec<u8>, String> {
    let kind = if dtype == DType::F16 {
        FloatKind::F16
    } else {
        FloatKind::BF16
    };
    let encode = |v: f64| (kind.encode(kind.round(v)) as u16).to_le_bytes();
    if d.is_splat() {
        let v = FloatAttribute::try_from(d.splat_value())
            .map_err(|_| "a 16-bit float splat that is not a float".to_string())?
            .value();
        return Ok(encode(v).repeat(n));
    }
    let text = attr.to_string();
    let bad = || "cannot read the 16-bit float Const value".to_string();
    let body = text.strip_prefix("dense<").ok_or_else(bad)?;
    let body = &body[..body.rfind("> :").ok_or_else(bad)?];
    let bytes: Vec<u8> =
        if let Some(hex) = body.strip_prefix("\"0x").and_then(|b| b.strip_suffix('"')) {
            (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                .collect::<Option<_>>()
                .ok_or_else(bad)?
        } else {
            let mut out = Vec::new();
            for item in body
                .split(['[', ']', ','])
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                let bits = match item.strip_prefix("0x").or_else(|| item.strip_prefix("0X")) {
                    Some(hex) => u16::from_str_radix(hex, 16)
                        .map_err(|_| bad())?
                        .to_le_bytes(),
                    None => encode(item.parse::<f64>().map_err(|_| bad())?),
                };
                out.extend_from_slice(&bits);
            }
            out
        };
    if bytes.len() != n * 2 {
        return Err(bad());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_types_parse_and_print() {
        let d = parse_tensor_type("tensor<32x64xf32>").unwrap();
        assert_eq!(d.dims, vec![32, 64]);
        assert_eq!(d.dtype, DType::F32);
        assert_eq!(tensor_type_text(&d), "tensor<32x64xf32>");
        let s = parse_tensor_type("tensor<i1>").unwrap();
        assert!(s.dims.is_empty());
        assert_eq!(tensor_type_text(&s), "tensor<i1>");
        assert!(parse_tensor_type("tensor<?x4xf32>").is_none());
        assert!(parse_tensor_type("tensor<*xf32>").is_none());
        assert!(parse_tensor_type("tensor<4xcomplex<f32>>").is_none());
    }

    #[test]
    fn narrow_ints_sign_extend() {
        assert_eq!(int_of_le(&[0xff], DType::I8), -1);
        assert_eq!(int_of_le(&[0xff], DType::U8), 255);
        assert_eq!(int_of_le(&(-5i32).to_le_bytes(), DType::I32), -5);
    }
}
