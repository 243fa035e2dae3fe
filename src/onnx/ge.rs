//! Writing the imported graphs as `.ge` text, which the `.ge` importer
//! (`crate::syntax::import_ge`) then checks and builds into the MLIR module: one emitter
//! for both front ends, and `ge-translate --import-onnx --emit ge` shows what was built.

use super::{dtype::ge_name, tensor::Tensor};
use crate::dialect::op_table;
use ascend_kernels::DType;
use std::{collections::HashSet, fmt::Write, rc::Rc};

/// A value's type: element type and dims (`None`: unranked; `Some(None)` entries are
/// dynamic dimensions, `?`).
#[derive(Clone, Debug, PartialEq)]
pub struct TType {
    pub dtype: DType,
    pub dims: Option<Vec<Option<i64>>>,
}

impl TType {
    pub fn new(dtype: DType, dims: Option<Vec<Option<i64>>>) -> Self {
        TType { dtype, dims }
    }

    pub fn fixed(dtype: DType, dims: &[i64]) -> Self {
        TType::new(dtype, Some(dims.iter().map(|&d| Some(d)).collect()))
    }

    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(Vec::len)
    }

    /// The dims when all are known.
    pub fn static_dims(&self) -> Option<Vec<i64>> {
        self.dims.as_ref()?.iter().copied().collect()
    }

    pub fn is_static(&self) -> bool {
        self.static_dims().is_some()
    }

    pub fn with_dtype(&self, dtype: DType) -> Self {
        TType::new(dtype, self.dims.clone())
    }

    /// `f32[2, ?]`, `f32[]`, `f32[*]`.
    pub fn ge(&self) -> String {
        let dims = match &self.dims {
            None => "*".to_owned(),
            Some(dims) => dims
                .iter()
                .map(|d| d.map_or("?".to_owned(), |d| d.to_string()))
                .collect::<Vec<_>>()
                .join(", "),
        };
        format!("{}[{dims}]", ge_name(self.dtype))
    }
}

/// A value of the graph being built: where it comes from in `.ge` and its type; `konst`
/// holds its value when it is known at import time (Const and what folds from it).
#[derive(Clone, Debug)]
pub struct Val {
    /// `"node"` or `"node":k`.
    pub reference: String,
    pub ty: TType,
    pub konst: Option<Rc<Tensor>>,
}

/// An attribute value in `.ge` form.
#[derive(Clone, Debug)]
pub enum GeAttr {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Ints(Vec<i64>),
    Symbol(String),
    Dense(Rc<Tensor>),
}

/// `"text"`, escaped as the `.ge` lexer reads strings.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A float in the `.ge` float syntax (`1.5`, `1.0e-5`, `inf`, `nan`).
pub fn float_text(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let e = format!("{:e}", value as f32);
    let (mantissa, exponent) = e.split_once('e').unwrap_or((&e, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_owned()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}e{exponent}")
}

/// The MLIR element literal type of a dtype (`ui8`, `i1`, ...).
fn mlir_tensor_type(t: &Tensor) -> String {
    let dims: String = t.dims.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{dims}{}>", t.dtype.mlir())
}

/// A dense value as an MLIR attribute: hex bytes (exact for every dtype but i1), `[...]`
/// of `true`/`false` for bools.
pub fn dense_text(t: &Tensor) -> String {
    let ty = mlir_tensor_type(t);
    if t.elements() == 0 {
        return format!("dense<> : {ty}");
    }
    if t.dtype == DType::Bool {
        let elems: Vec<&str> = t
            .bytes
            .iter()
            .map(|&b| if b != 0 { "true" } else { "false" })
            .collect();
        return if t.dims.is_empty() {
            format!("dense<{}> : {ty}", elems[0])
        } else {
            format!(
                "dense<[{}]> : tensor<{}xi1>",
                elems.join(", "),
                t.elements()
            )
        };
    }
    let mut hex = String::with_capacity(t.bytes.len() * 2 + 2);
    hex.push_str("0x");
    for b in &t.bytes {
        let _ = write!(hex, "{b:02X}");
    }
    format!("dense<\"{hex}\"> : {ty}")
}

fn attr_text(value: &GeAttr) -> String {
    match value {
        GeAttr::Int(v) => v.to_string(),
        GeAttr::Float(v) => float_text(*v),
        GeAttr::Bool(v) => v.to_string(),
        GeAttr::Str(s) => quote(s),
        GeAttr::Ints(v) => format!(
            "[{}]",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ),
        GeAttr::Symbol(s) => format!("@{}", quote(s)),
        GeAttr::Dense(t) => format!("mlir{}", quote(&dense_text(t))),
    }
}

/// One graph being written.
pub struct GeGraph {
    pub name: String,
    lines: Vec<String>,
    used: HashSet<String>,
    data_count: usize,
    ret: Vec<String>,
    /// The first op that reads or makes a zero-size tensor (the caller turns it into the
    /// node's located error): the device allocates no memory for such tensors, so a
    /// kernel would be handed no buffer at all.
    pub zero_size: Option<String>,
}

impl GeGraph {
    pub fn new(name: &str) -> Self {
        GeGraph {
            name: name.to_owned(),
            lines: Vec::new(),
            used: HashSet::new(),
            data_count: 0,
            ret: Vec::new(),
            zero_size: None,
        }
    }

    /// A node name not used yet in this graph, `base` if free.
    pub fn unique(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "node" } else { base };
        let mut name = base.to_owned();
        let mut k = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(name.clone());
        name
    }

    /// Adds a node; returns one [`Val`] per result type. The op type is a table op when
    /// the op table names it, else the generic op.
    pub fn node(
        &mut self,
        name: &str,
        op_type: &str,
        inputs: &[&Val],
        attrs: &[(&str, GeAttr)],
        results: &[TType],
    ) -> Vec<Val> {
        let name = self.unique(name);
        if self.zero_size.is_none() && op_type != "Const" && op_type != "Data" {
            let empty = |t: &TType| t.dims.as_ref().is_some_and(|d| d.contains(&Some(0)));
            if let Some(t) = inputs
                .iter()
                .map(|v| &v.ty)
                .chain(results)
                .find(|t| empty(t))
            {
                self.zero_size = Some(format!(
                    "zero-size tensors ({}) are not supported: the device allocates no memory \
                     for them (GE op '{name}', {op_type})",
                    t.ge()
                ));
            }
        }
        let ty = match op_table().by_ge_type(op_type).filter(|d| !d.is_generic()) {
            Some(_) => op_type.to_owned(),
            None => quote(op_type),
        };
        let ins: Vec<&str> = inputs.iter().map(|v| v.reference.as_str()).collect();
        let mut line = format!("  {} = {ty}({})", quote(&name), ins.join(", "));
        if !attrs.is_empty() {
            let a: Vec<String> = attrs
                .iter()
                .map(|(k, v)| format!("{} = {}", quote(k), attr_text(v)))
                .collect();
            let _ = write!(line, " {{{}}}", a.join(", "));
        }
        let types: Vec<String> = results.iter().map(TType::ge).collect();
        let _ = write!(line, " : ({})", types.join(", "));
        self.lines.push(line);
        results
            .iter()
            .enumerate()
            .map(|(k, t)| Val {
                reference: if k == 0 {
                    quote(&name)
                } else {
                    format!("{}:{k}", quote(&name))
                },
                ty: t.clone(),
                konst: None,
            })
            .collect()
    }

    /// Adds one node with one result.
    pub fn node1(
        &mut self,
        name: &str,
        op_type: &str,
        inputs: &[&Val],
        attrs: &[(&str, GeAttr)],
        result: TType,
    ) -> Val {
        self.node(name, op_type, inputs, attrs, &[result])
            .pop()
            .expect("one result")
    }

    /// A Const node holding `value`.
    pub fn constant(&mut self, name: &str, value: Tensor) -> Val {
        let value = Rc::new(value);
        let ty = TType::fixed(value.dtype, &value.dims);
        let mut v = self.node1(
            name,
            "Const",
            &[],
            &[("value", GeAttr::Dense(value.clone()))],
            ty,
        );
        v.konst = Some(value);
        v
    }

    /// The next graph input (`Data {index = i}`).
    pub fn data(&mut self, name: &str, ty: TType) -> Val {
        let index = self.data_count as i64;
        self.data_count += 1;
        self.node1(name, "Data", &[], &[("index", GeAttr::Int(index))], ty)
    }

    pub fn output(&mut self, v: &Val) {
        self.ret.push(v.reference.clone());
    }

    pub fn text(&self) -> String {
        let mut out = format!("graph {} {{\n", quote(&self.name));
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        if !self.ret.is_empty() {
            let _ = writeln!(out, "  return {}", self.ret.join(", "));
        }
        out.push_str("}\n");
        out
    }
}
