//! Output back-ends. The families drive a [`crate::builder::Builder`], which hands every
//! graph and node to a [`Sink`] as soon as it exists: nothing is buffered, so output size is
//! unbounded while memory stays flat.

use std::io::{self, Write};
use std::rc::Rc;

use crate::ops::OpType;
use crate::types::Ty;

/// A reference to one result (data or control) of an emitted node.
#[derive(Clone, Debug)]
pub struct Val {
    /// Node id; also the MLIR SSA name (`%<id>`).
    pub id: u32,
    /// Result index; the control result is the last one.
    pub idx: u32,
    pub ty: Ty,
    /// Node name, needed by `.ge`, which refers to nodes by name.
    pub name: Rc<str>,
}

/// An attribute value; the variants are those the families need.
#[derive(Clone, Debug)]
pub enum Attr {
    Int(i64),
    /// A float literal spelled so it is valid in both syntaxes (`0.125`, `1.0e-05`).
    Float(&'static str),
    Bool(bool),
    /// A string without characters that need escaping.
    Str(&'static str),
    Ints(Vec<i64>),
    Sym(String),
    /// `dense` splat of the float/int literal, of the given type.
    Splat(&'static str, Ty),
    /// A rank-1 dense integer constant.
    DenseInts(Vec<i64>, Ty),
}

/// One node, as handed to a sink.
pub struct OpRecord<'a> {
    pub id: u32,
    pub op: &'static OpType,
    pub name: &'a str,
    /// For `Data` nodes: the function argument the node consumes (MLIR operand; `.ge` leaves
    /// it implicit in the `index` attribute).
    pub arg: Option<usize>,
    pub data: &'a [Val],
    pub ctrl: &'a [Val],
    /// Sorted by key (MLIR dictionary order), `name` excluded.
    pub attrs: &'a [(&'static str, Attr)],
    /// Data result types (the control result is implicit).
    pub outs: &'a [Ty],
}

pub trait Sink {
    fn begin_graph(
        &mut self,
        name: &str,
        private: bool,
        args: &[Ty],
        results: &[Ty],
    ) -> io::Result<()>;
    fn op(&mut self, rec: &OpRecord<'_>) -> io::Result<()>;
    fn end_graph(&mut self, returns: &[Val]) -> io::Result<()>;
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Counts ops without writing; used to size a family to the requested op count.
#[derive(Default)]
pub struct CountSink;

impl Sink for CountSink {
    fn begin_graph(&mut self, _: &str, _: bool, _: &[Ty], _: &[Ty]) -> io::Result<()> {
        Ok(())
    }
    fn op(&mut self, _: &OpRecord<'_>) -> io::Result<()> {
        Ok(())
    }
    fn end_graph(&mut self, _: &[Val]) -> io::Result<()> {
        Ok(())
    }
}

fn join<T>(
    w: &mut dyn Write,
    items: impl IntoIterator<Item = T>,
    mut f: impl FnMut(&mut dyn Write, T) -> io::Result<()>,
) -> io::Result<()> {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            w.write_all(b", ")?;
        }
        f(w, item)?;
    }
    Ok(())
}

/// Writes MLIR: `func.func` in custom form, ascend ops in generic form (dialects/README.md).
pub struct MlirSink<W: Write> {
    w: W,
}

impl<W: Write> MlirSink<W> {
    pub fn new(w: W) -> Self {
        MlirSink { w }
    }

    fn attr(w: &mut dyn Write, a: &Attr) -> io::Result<()> {
        match a {
            Attr::Int(i) => write!(w, "{i} : i64"),
            Attr::Float(f) => write!(w, "{f} : f32"),
            Attr::Bool(b) => write!(w, "{b}"),
            Attr::Str(s) => write!(w, "\"{s}\""),
            Attr::Ints(v) => {
                w.write_all(b"[")?;
                join(w, v, |w, i| write!(w, "{i} : i64"))?;
                w.write_all(b"]")
            }
            Attr::Sym(s) => write!(w, "@{s}"),
            Attr::Splat(lit, ty) => write!(w, "dense<{lit}> : {}", ty.mlir),
            Attr::DenseInts(v, ty) => {
                w.write_all(b"dense<[")?;
                join(w, v, |w, i| write!(w, "{i}"))?;
                write!(w, "]> : {}", ty.mlir)
            }
        }
    }

    fn segments(w: &mut dyn Write, key: &str, sizes: &[i32]) -> io::Result<()> {
        write!(w, ", {key} = array<i32: ")?;
        join(w, sizes, |w, s| write!(w, "{s}"))?;
        w.write_all(b">")
    }
}

impl<W: Write> Sink for MlirSink<W> {
    fn begin_graph(
        &mut self,
        name: &str,
        private: bool,
        args: &[Ty],
        results: &[Ty],
    ) -> io::Result<()> {
        let vis = if private { "private " } else { "" };
        write!(self.w, "func.func {vis}@{name}(")?;
        join(&mut self.w, args.iter().enumerate(), |w, (i, t)| {
            write!(w, "%arg{i}: {}", t.mlir)
        })?;
        self.w.write_all(b") -> (")?;
        join(&mut self.w, results, |w, t| w.write_all(t.mlir.as_bytes()))?;
        self.w.write_all(b") {\n")
    }

    fn op(&mut self, r: &OpRecord<'_>) -> io::Result<()> {
        let w = &mut self.w;
        write!(w, "  %{}:{} = \"{}\"(", r.id, r.outs.len() + 1, r.op.mlir)?;
        if let Some(a) = r.arg {
            write!(w, "%arg{a}")?;
        }
        for (i, v) in r.data.iter().chain(r.ctrl).enumerate() {
            let sep = if i > 0 || r.arg.is_some() { ", " } else { "" };
            write!(w, "{sep}%{}#{}", v.id, v.idx)?;
        }
        write!(w, ") {{name = \"{}\"", r.name)?;
        for (k, a) in r.attrs {
            write!(w, ", {k} = ")?;
            Self::attr(w, a)?;
        }
        let (operand_sizes, result_sizes) = segment_sizes(r)?;
        if let Some(sizes) = operand_sizes {
            Self::segments(w, "operandSegmentSizes", &sizes)?;
        }
        if let Some(sizes) = result_sizes {
            Self::segments(w, "resultSegmentSizes", &sizes)?;
        }
        w.write_all(b"} : (")?;
        let arg_tys = r.arg.map(|_| r.outs[0]);
        let in_tys = arg_tys
            .into_iter()
            .chain(r.data.iter().chain(r.ctrl).map(|v| v.ty));
        join(w, in_tys, |w, t| w.write_all(t.mlir.as_bytes()))?;
        w.write_all(b") -> (")?;
        for t in r.outs {
            write!(w, "{}, ", t.mlir)?;
        }
        w.write_all(b"!ascend.ctrl)\n")
    }

    fn end_graph(&mut self, returns: &[Val]) -> io::Result<()> {
        if returns.is_empty() {
            return self.w.write_all(b"  return\n}\n");
        }
        self.w.write_all(b"  return ")?;
        join(&mut self.w, returns, |w, v| {
            write!(w, "%{}#{}", v.id, v.idx)
        })?;
        self.w.write_all(b" : ")?;
        join(&mut self.w, returns, |w, v| {
            w.write_all(v.ty.mlir.as_bytes())
        })?;
        self.w.write_all(b"\n}\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Writes the `.ge` text format (notes/ge-format.md) in its canonical form.
pub struct GeSink<W: Write> {
    w: W,
    first_graph: bool,
}

impl<W: Write> GeSink<W> {
    pub fn new(w: W) -> Self {
        GeSink {
            w,
            first_graph: true,
        }
    }

    fn attr(w: &mut dyn Write, a: &Attr) -> io::Result<()> {
        match a {
            Attr::Int(i) => write!(w, "{i}"),
            Attr::Float(f) => w.write_all(f.as_bytes()),
            Attr::Bool(b) => write!(w, "{b}"),
            Attr::Str(s) => write!(w, "\"{s}\""),
            Attr::Ints(v) => {
                w.write_all(b"[")?;
                join(w, v, |w, i| write!(w, "{i}"))?;
                w.write_all(b"]")
            }
            Attr::Sym(s) => write!(w, "@{s}"),
            Attr::Splat(lit, ty) => write!(w, "dense<{}>({lit})", ty.ge),
            // The canonical `.ge` form (what `ge-opt --emit ge` prints) writes a dense value
            // whose elements are all equal as a splat.
            Attr::DenseInts(v, ty) if v.windows(2).all(|p| p[0] == p[1]) && !v.is_empty() => {
                write!(w, "dense<{}>({})", ty.ge, v[0])
            }
            Attr::DenseInts(v, ty) => {
                write!(w, "dense<{}>[", ty.ge)?;
                join(w, v, |w, i| write!(w, "{i}"))?;
                w.write_all(b"]")
            }
        }
    }

    fn value(w: &mut dyn Write, v: &Val) -> io::Result<()> {
        if v.idx == 0 {
            w.write_all(v.name.as_bytes())
        } else {
            write!(w, "{}:{}", v.name, v.idx)
        }
    }
}

impl<W: Write> Sink for GeSink<W> {
    fn begin_graph(&mut self, name: &str, _: bool, _: &[Ty], _: &[Ty]) -> io::Result<()> {
        if !self.first_graph {
            self.w.write_all(b"\n")?;
        }
        self.first_graph = false;
        writeln!(self.w, "graph {name} {{")
    }

    fn op(&mut self, r: &OpRecord<'_>) -> io::Result<()> {
        let w = &mut self.w;
        write!(w, "  {} = {}(", r.name, r.op.ge)?;
        join(w, r.data, |w, v| Self::value(w, v))?;
        for (i, c) in r.ctrl.iter().enumerate() {
            let sep = if i > 0 || !r.data.is_empty() {
                ", "
            } else {
                ""
            };
            write!(w, "{sep}^{}", c.name)?;
        }
        w.write_all(b")")?;
        if !r.attrs.is_empty() {
            w.write_all(b" {")?;
            join(w, r.attrs, |w, (k, a)| {
                write!(w, "{k} = ")?;
                Self::attr(w, a)
            })?;
            w.write_all(b"}")?;
        }
        w.write_all(b" : ")?;
        match r.outs {
            [t] => w.write_all(t.ge.as_bytes())?,
            outs => {
                w.write_all(b"(")?;
                join(w, outs, |w, t| w.write_all(t.ge.as_bytes()))?;
                w.write_all(b")")?;
            }
        }
        w.write_all(b"\n")
    }

    fn end_graph(&mut self, returns: &[Val]) -> io::Result<()> {
        if !returns.is_empty() {
            self.w.write_all(b"  return ")?;
            join(&mut self.w, returns, |w, v| Self::value(w, v))?;
            self.w.write_all(b"\n")?;
        }
        self.w.write_all(b"}\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// One segment-size attribute, `None` when the op needs none.
type Segments = Option<Vec<i32>>;

/// The segment-size attributes of one op, computed by the dialect's own op table (the same
/// code the importer and the passes use), so generated IR always matches the IRDL.
fn segment_sizes(r: &OpRecord<'_>) -> io::Result<(Segments, Segments)> {
    let def = ge_mlir::dialect::op_table()
        .by_op_name(r.op.mlir)
        .ok_or_else(|| io::Error::other(format!("op `{}` is not in the op table", r.op.mlir)))?;
    let arity = |e: ge_mlir::dialect::ArityError| {
        io::Error::other(format!(
            "ge-gen internal error: `{}` {}: {e}",
            r.name, r.op.mlir
        ))
    };
    let arg_ty = r.arg.map(|_| r.outs[0].mlir.as_str());
    let in_tys: Vec<&str> = arg_ty
        .into_iter()
        .chain(r.data.iter().map(|v| v.ty.mlir.as_str()))
        .collect();
    let out_tys: Vec<&str> = r.outs.iter().map(|t| t.mlir.as_str()).collect();
    let operands = def.operand_segments(&in_tys, r.ctrl.len()).map_err(arity)?;
    let results = def.result_segments(&out_tys).map_err(arity)?;
    Ok((operands, results))
}
