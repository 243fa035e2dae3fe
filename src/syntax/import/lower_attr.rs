//! Lowering `.ge` types and attribute values to MLIR (the table in grammar/README.md).
//!
//! Values are built with melior's attribute builders rather than by printing and re-parsing
//! MLIR text: that keeps literal checks (range, element count, dtype) in our own located
//! diagnostics, and lets `inf`/`nan`/`f16` elements through exactly.

use super::mlir_diag::{capture, first_message};
use crate::driver::source::{find_excess_nesting, MAX_MLIR_NESTING};
use crate::syntax::{
    ast::{
        AttrValue, AttrValueKind, DenseElems, Name, Scalar, ScalarKind, Span, TensorType,
        Type as GeType,
    },
    diagnostics::Diagnostic,
    floats::FloatKind,
    types::{self, Element},
};
use melior::{
    ir::{
        attribute::{
            ArrayAttribute, BoolAttribute, DenseElementsAttribute, FlatSymbolRefAttribute,
            FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
        },
        r#type::IntegerType,
        Attribute, Type,
    },
    Context,
};
use std::collections::HashMap;

/// Builds MLIR types and attributes for one import, caching parsed types by spelling.
pub struct Lowering<'c> {
    context: &'c Context,
    types: HashMap<String, Type<'c>>,
}

/// A `@graph` reference found while lowering an attribute (checked against the file's graphs
/// by the caller, which knows them).
#[derive(Clone, Debug)]
pub struct SymbolUse {
    pub graph: Name,
    /// The whole `@name` value.
    pub span: Span,
}

impl<'c> Lowering<'c> {
    pub fn new(context: &'c Context) -> Self {
        Lowering {
            context,
            types: HashMap::new(),
        }
    }

    pub fn context(&self) -> &'c Context {
        self.context
    }

    fn parse_type(&mut self, text: &str) -> Result<Type<'c>, String> {
        if let Some(t) = self.types.get(text) {
            return Ok(*t);
        }
        check_nesting(text)?;
        let (parsed, diags) = capture(self.context, || Type::parse(self.context, text));
        let t = parsed.ok_or_else(|| first_message(&diags, "not a valid MLIR type"))?;
        self.types.insert(text.to_string(), t);
        Ok(t)
    }

    /// The `!ascend.ctrl` type; an error if the context lacks the `ascend` dialect.
    pub fn ctrl_type(&mut self) -> Result<Type<'c>, String> {
        self.parse_type("!ascend.ctrl")
            .map_err(|e| format!("the `ascend` dialect is not loaded in this MLIR context ({e})"))
    }

    pub fn tensor_type(&mut self, ty: &TensorType) -> Result<Type<'c>, Diagnostic> {
        let text = types::mlir_tensor(ty).map_err(|message| {
            let names: Vec<&str> = types::dtype_names().collect();
            Diagnostic::new(message, ty.dtype_span, "not a dtype")
                .with_hint(format!("dtypes are {}", names.join(", ")))
        })?;
        self.parse_type(&text)
            .map_err(|m| Diagnostic::new(format!("invalid type: {m}"), ty.span, "here"))
    }

    pub fn ge_type(&mut self, ty: &GeType) -> Result<Type<'c>, Diagnostic> {
        match ty {
            GeType::Tensor(t) => self.tensor_type(t),
            GeType::Raw { text, span } => self.parse_type(text).map_err(|m| {
                Diagnostic::new(
                    format!("invalid MLIR type: {m}"),
                    *span,
                    "in this `mlir\"...\"` type",
                )
            }),
        }
    }

    /// Lowers one attribute value; `@graph` references are appended to `symbols`.
    pub fn attr(
        &mut self,
        value: &AttrValue,
        symbols: &mut Vec<SymbolUse>,
    ) -> Result<Attribute<'c>, Diagnostic> {
        let ctx = self.context;
        Ok(match &value.kind {
            AttrValueKind::Int(v) => {
                let v = i64::try_from(*v).map_err(|_| {
                    Diagnostic::new(
                        "integer attribute out of range",
                        value.span,
                        "does not fit i64",
                    )
                })?;
                IntegerAttribute::new(IntegerType::new(ctx, 64).into(), v).into()
            }
            AttrValueKind::Float(text) => {
                let v = float_literal(FloatKind::F32, text, value.span)?;
                FloatAttribute::new(ctx, Type::float32(ctx), v).into()
            }
            AttrValueKind::Bool(b) => BoolAttribute::new(ctx, *b).into(),
            AttrValueKind::Str(s) => StringAttribute::new(ctx, s).into(),
            AttrValueKind::List(items) => {
                let items = items
                    .iter()
                    .map(|item| self.attr(item, symbols))
                    .collect::<Result<Vec<_>, _>>()?;
                ArrayAttribute::new(ctx, &items).into()
            }
            AttrValueKind::Symbol(name) => {
                symbols.push(SymbolUse {
                    graph: name.clone(),
                    span: value.span,
                });
                FlatSymbolRefAttribute::new(ctx, &name.text).into()
            }
            AttrValueKind::Type(t) => TypeAttribute::new(self.tensor_type(t)?).into(),
            AttrValueKind::Dense { ty, elems } => self.dense(ty, elems, value.span)?,
            AttrValueKind::Raw(text) => {
                check_nesting(text).map_err(|m| {
                    Diagnostic::new(
                        format!("invalid MLIR attribute: {m}"),
                        value.span,
                        "in this `mlir\"...\"` attribute",
                    )
                })?;
                let (parsed, diags) = capture(ctx, || Attribute::parse(ctx, text));
                parsed.ok_or_else(|| {
                    Diagnostic::new(
                        format!(
                            "invalid MLIR attribute: {}",
                            first_message(&diags, "parse failed")
                        ),
                        value.span,
                        "in this `mlir\"...\"` attribute",
                    )
                })?
            }
        })
    }

    fn dense(
        &mut self,
        ty: &TensorType,
        elems: &DenseElems,
        span: Span,
    ) -> Result<Attribute<'c>, Diagnostic> {
        let shape: Option<Vec<i64>> = ty.dims.as_ref().and_then(|d| d.iter().copied().collect());
        let Some(shape) = shape else {
            return Err(Diagnostic::new(
                "a dense value needs a static shape",
                ty.span,
                "unranked or dynamic",
            )
            .with_hint("write every dimension, e.g. `dense<f32[2, 3]>(0.0)`"));
        };
        let mlir_type = self.tensor_type(ty)?;
        let element = types::mlir_element(&ty.dtype)
            .and_then(Element::of_mlir)
            .ok_or_else(|| {
                Diagnostic::new("unsupported dense element type", ty.dtype_span, "here")
            })?;
        let count = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
            .ok_or_else(|| Diagnostic::new("dense value too large", ty.span, "here"))?;
        let scalars: &[Scalar] = match elems {
            DenseElems::Splat(s) => std::slice::from_ref(s),
            DenseElems::List(list) => {
                if list.len() != count {
                    return Err(Diagnostic::new(
                        format!(
                            "dense value has {} elements but `{}` holds {count}",
                            list.len(),
                            types::mlir_tensor(ty).unwrap_or_default()
                        ),
                        span,
                        "wrong element count",
                    )
                    .with_hint("list every element in row-major order, or write one value in parentheses for a splat"));
                }
                list
            }
        };
        let ctx = self.context;
        let splat = matches!(elems, DenseElems::Splat(_));
        Ok(match element {
            Element::Float(kind) => {
                let values = scalars
                    .iter()
                    .map(|s| float_scalar(kind, s))
                    .collect::<Result<Vec<f64>, _>>()?;
                let element_type = mlir_element_type(self, &ty.dtype)?;
                if splat {
                    DenseElementsAttribute::splat(
                        mlir_type,
                        FloatAttribute::new(ctx, element_type, values[0]).into(),
                    )
                } else {
                    match kind {
                        FloatKind::F32 => {
                            let v: Vec<f32> = values.iter().map(|&v| v as f32).collect();
                            DenseElementsAttribute::f32_values(mlir_type, &v)
                        }
                        FloatKind::F64 => DenseElementsAttribute::f64_values(mlir_type, &values),
                        FloatKind::F16 | FloatKind::BF16 => {
                            let mut buffer = Vec::with_capacity(values.len() * 2);
                            for v in &values {
                                buffer.extend_from_slice(&(kind.encode(*v) as u16).to_le_bytes());
                            }
                            DenseElementsAttribute::raw_buffer(mlir_type, &buffer)
                        }
                    }
                }
                .into()
            }
            Element::Bool => {
                let values = scalars
                    .iter()
                    .map(|s| match s.kind {
                        ScalarKind::Bool(b) => Ok(b),
                        _ => Err(Diagnostic::new(
                            "expected `true` or `false`",
                            s.span,
                            "in a bool tensor",
                        )),
                    })
                    .collect::<Result<Vec<bool>, _>>()?;
                if splat {
                    DenseElementsAttribute::bool_splat(mlir_type, values[0])
                } else {
                    let v: Vec<i32> = values.iter().map(|&b| i32::from(b)).collect();
                    DenseElementsAttribute::bool_values(mlir_type, &v)
                }
                .into()
            }
            Element::Int { bits, unsigned } => {
                let (lo, hi) = element.int_range().unwrap_or((0, 0));
                let values = scalars
                    .iter()
                    .map(|s| match s.kind {
                        ScalarKind::Int(v) if (lo..=hi).contains(&v) => Ok(v),
                        ScalarKind::Int(_) => Err(Diagnostic::new(
                            format!("value out of range for `{}`", ty.dtype),
                            s.span,
                            format!("must be in {lo}..={hi}"),
                        )),
                        _ => Err(Diagnostic::new(
                            "expected an integer",
                            s.span,
                            format!("in a `{}` tensor", ty.dtype),
                        )),
                    })
                    .collect::<Result<Vec<i128>, _>>()?;
                let element_type = mlir_element_type(self, &ty.dtype)?;
                if splat {
                    // Two's complement bits: `IntegerAttribute` takes an i64 bit pattern.
                    let attr = IntegerAttribute::new(element_type, values[0] as i64);
                    DenseElementsAttribute::splat(mlir_type, attr.into())
                } else {
                    int_values(mlir_type, bits, unsigned, &values)
                }
                .into()
            }
        })
    }
}

fn mlir_element_type<'c>(lowering: &mut Lowering<'c>, dtype: &str) -> Result<Type<'c>, Diagnostic> {
    let text = types::mlir_element(dtype).unwrap_or("none");
    lowering
        .parse_type(text)
        .map_err(|m| Diagnostic::new(m, Span::default(), "element type"))
}

fn int_values<'c>(
    ty: Type<'c>,
    bits: u32,
    unsigned: bool,
    values: &[i128],
) -> DenseElementsAttribute<'c> {
    // Each cast is exact: the values were range-checked against this element type.
    match (bits, unsigned) {
        (8, false) => DenseElementsAttribute::i8_values(ty, &cast(values, |v| v as i8)),
        (16, false) => DenseElementsAttribute::i16_values(ty, &cast(values, |v| v as i16)),
        (32, false) => DenseElementsAttribute::i32_values(ty, &cast(values, |v| v as i32)),
        (8, true) => DenseElementsAttribute::u8_values(ty, &cast(values, |v| v as u8)),
        (16, true) => DenseElementsAttribute::u16_values(ty, &cast(values, |v| v as u16)),
        (32, true) => DenseElementsAttribute::u32_values(ty, &cast(values, |v| v as u32)),
        (_, true) => DenseElementsAttribute::u64_values(ty, &cast(values, |v| v as u64)),
        (_, false) => DenseElementsAttribute::i64_values(ty, &cast(values, |v| v as i64)),
    }
}

fn cast<T>(values: &[i128], f: impl Fn(i128) -> T) -> Vec<T> {
    values.iter().map(|&v| f(v)).collect()
}

fn float_literal(kind: FloatKind, text: &str, span: Span) -> Result<f64, Diagnostic> {
    let v = kind
        .parse(text)
        .ok_or_else(|| Diagnostic::new("invalid float literal", span, "here"))?;
    let finite_text = !matches!(text.trim_start_matches('-'), "inf" | "nan");
    if finite_text && v.is_infinite() {
        return Err(Diagnostic::new(
            format!("float literal out of range for {kind:?}").to_lowercase(),
            span,
            "overflows to infinity",
        )
        .with_hint("write `inf` or `-inf` for infinities"));
    }
    Ok(v)
}

fn float_scalar(kind: FloatKind, s: &Scalar) -> Result<f64, Diagnostic> {
    match &s.kind {
        ScalarKind::Float(text) => float_literal(kind, text, s.span),
        ScalarKind::Int(i) => float_literal(kind, &i.to_string(), s.span),
        ScalarKind::Bool(_) => Err(Diagnostic::new(
            "expected a number",
            s.span,
            "in a float tensor",
        )),
    }
}

/// The bracket depth `.mlir` input may have ([`find_excess_nesting`]), for the text of a
/// `mlir"..."` escape before MLIR's parser, which recurses once per level, reads it.
fn check_nesting(text: &str) -> Result<(), String> {
    match find_excess_nesting(text) {
        None => Ok(()),
        Some((line, column)) => Err(format!(
            "nested deeper than {MAX_MLIR_NESTING} levels of brackets at line {line}, column \
             {column} of the escape (MLIR's parser would overflow its stack)"
        )),
    }
}
