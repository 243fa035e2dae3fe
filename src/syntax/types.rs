//! `.ge` tensor types and their MLIR spelling.
//!
//! `f32[4, 8]` is `tensor<4x8xf32>`, `f16[?, 8]` is `tensor<?x8xf16>`, `f32[]` is the scalar
//! `tensor<f32>` and `f32[*]` the unranked `tensor<*xf32>`. Both directions go through MLIR's
//! textual type syntax, which is stable and covers unranked tensors (melior has no builder
//! for those).

use super::{ast::TensorType, floats::FloatKind};

/// `.ge` dtype names and MLIR element types. The first spelling of an MLIR type is what the
/// printer writes (`bool`, not `i1`).
const DTYPES: &[(&str, &str)] = &[
    ("f16", "f16"),
    ("f32", "f32"),
    ("f64", "f64"),
    ("bf16", "bf16"),
    ("bool", "i1"),
    ("i1", "i1"),
    ("i8", "i8"),
    ("i16", "i16"),
    ("i32", "i32"),
    ("i64", "i64"),
    ("u8", "ui8"),
    ("u16", "ui16"),
    ("u32", "ui32"),
    ("u64", "ui64"),
];

/// The MLIR element type of a `.ge` dtype.
pub fn mlir_element(dtype: &str) -> Option<&'static str> {
    DTYPES.iter().find(|(ge, _)| *ge == dtype).map(|(_, m)| *m)
}

/// The canonical `.ge` dtype of an MLIR element type.
pub fn ge_dtype(element: &str) -> Option<&'static str> {
    DTYPES
        .iter()
        .find(|(_, m)| *m == element)
        .map(|(ge, _)| *ge)
}

/// All dtype names, for "expected one of" hints.
pub fn dtype_names() -> impl Iterator<Item = &'static str> {
    DTYPES.iter().map(|(ge, _)| *ge)
}

/// What kind of scalar an element type holds (drives dense literal checks and printing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    Float(FloatKind),
    Bool,
    /// Integer of this many bits, signless (`i8`..) or unsigned (`u8`..).
    Int {
        bits: u32,
        unsigned: bool,
    },
}

impl Element {
    pub fn of_mlir(element: &str) -> Option<Element> {
        Some(match element {
            "f16" => Element::Float(FloatKind::F16),
            "bf16" => Element::Float(FloatKind::BF16),
            "f32" => Element::Float(FloatKind::F32),
            "f64" => Element::Float(FloatKind::F64),
            "i1" => Element::Bool,
            _ => {
                let (unsigned, digits) = match element.strip_prefix("ui") {
                    Some(d) => (true, d),
                    None => (false, element.strip_prefix('i')?),
                };
                let bits = digits
                    .parse()
                    .ok()
                    .filter(|b| [8, 16, 32, 64].contains(b))?;
                Element::Int { bits, unsigned }
            }
        })
    }

    /// The range of an integer element (signless integers are read as signed).
    pub fn int_range(self) -> Option<(i128, i128)> {
        match self {
            Element::Int {
                bits,
                unsigned: true,
            } => Some((0, (1i128 << bits) - 1)),
            Element::Int {
                bits,
                unsigned: false,
            } => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            _ => None,
        }
    }
}

/// The MLIR spelling of a `.ge` tensor type, or a message saying what is wrong with it.
pub fn mlir_tensor(ty: &TensorType) -> Result<String, String> {
    let element = mlir_element(&ty.dtype).ok_or_else(|| format!("unknown dtype `{}`", ty.dtype))?;
    Ok(match &ty.dims {
        None => format!("tensor<*x{element}>"),
        Some(dims) => {
            let mut text = String::from("tensor<");
            for dim in dims {
                match dim {
                    Some(d) => text.push_str(&d.to_string()),
                    None => text.push('?'),
                }
                text.push('x');
            }
            text.push_str(element);
            text.push('>');
            text
        }
    })
}

/// A builtin tensor type split into its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorParts<'t> {
    /// `None` for unranked.
    pub dims: Option<Vec<Option<i64>>>,
    pub element: &'t str,
}

/// Splits MLIR's spelling of a tensor type without encoding (`tensor<2x?xf32>`).
pub fn split_tensor(text: &str) -> Option<TensorParts<'_>> {
    let body = text.strip_prefix("tensor<")?.strip_suffix('>')?;
    if body.contains([',', '<', '>']) {
        return None; // an encoding or a parametric element type
    }
    let mut parts: Vec<&str> = body.split('x').collect();
    let element = parts.pop()?;
    if let [only] = parts.as_slice() {
        if *only == "*" {
            return Some(TensorParts {
                dims: None,
                element,
            });
        }
    }
    let dims = parts
        .iter()
        .map(|p| match *p {
            "?" => Some(None),
            d => d.parse::<i64>().ok().map(Some),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(TensorParts {
        dims: Some(dims),
        element,
    })
}

/// The `.ge` spelling of an MLIR type if the format has one (`f32[4, 8]`), else `None`.
pub fn ge_tensor(mlir: &str) -> Option<String> {
    let parts = split_tensor(mlir)?;
    let dtype = ge_dtype(parts.element)?;
    Some(match parts.dims {
        None => format!("{dtype}[*]"),
        Some(dims) => {
            let dims: Vec<String> = dims
                .iter()
                .map(|d| d.map_or_else(|| "?".to_string(), |d| d.to_string()))
                .collect();
            format!("{dtype}[{}]", dims.join(", "))
        }
    })
}

/// Any MLIR type in `.ge` syntax: the tensor form, else the `mlir"..."` escape.
pub fn ge_type(mlir: &str) -> String {
    ge_tensor(mlir).unwrap_or_else(|| format!("mlir{}", super::print::quote(mlir)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::Span;

    fn tt(dtype: &str, dims: Option<Vec<Option<i64>>>) -> TensorType {
        TensorType {
            dtype: dtype.into(),
            dtype_span: Span::default(),
            dims,
            span: Span::default(),
        }
    }

    #[test]
    fn ge_to_mlir() {
        assert_eq!(
            mlir_tensor(&tt("f32", Some(vec![Some(4), Some(8)]))).unwrap(),
            "tensor<4x8xf32>"
        );
        assert_eq!(
            mlir_tensor(&tt("u8", Some(vec![None]))).unwrap(),
            "tensor<?xui8>"
        );
        assert_eq!(
            mlir_tensor(&tt("bool", Some(vec![]))).unwrap(),
            "tensor<i1>"
        );
        assert_eq!(mlir_tensor(&tt("bf16", None)).unwrap(), "tensor<*xbf16>");
        assert!(mlir_tensor(&tt("f31", None)).is_err());
    }

    #[test]
    fn mlir_to_ge() {
        assert_eq!(ge_tensor("tensor<4x8xf32>").unwrap(), "f32[4, 8]");
        assert_eq!(ge_tensor("tensor<?x8xf16>").unwrap(), "f16[?, 8]");
        assert_eq!(ge_tensor("tensor<i1>").unwrap(), "bool[]");
        assert_eq!(ge_tensor("tensor<*xui64>").unwrap(), "u64[*]");
        assert_eq!(ge_tensor("tensor<0xi8>").unwrap(), "i8[0]");
        assert_eq!(ge_tensor("tensor<4xf32, #enc>"), None);
        assert_eq!(ge_tensor("tensor<4xcomplex<f32>>"), None);
        assert_eq!(ge_tensor("memref<4xf32>"), None);
        assert_eq!(ge_tensor("tensor<4xindex>"), None);
        assert_eq!(ge_type("!ascend.ctrl"), "mlir\"!ascend.ctrl\"");
    }

    #[test]
    fn elements() {
        assert_eq!(
            Element::of_mlir("ui16"),
            Some(Element::Int {
                bits: 16,
                unsigned: true
            })
        );
        assert_eq!(Element::of_mlir("i1"), Some(Element::Bool));
        assert_eq!(Element::of_mlir("i7"), None);
        assert_eq!(
            Element::of_mlir("i8").unwrap().int_range(),
            Some((-128, 127))
        );
    }
}
