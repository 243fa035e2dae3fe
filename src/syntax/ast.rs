//! The `.ge` syntax tree, as the parser produces it: no name resolution, no types checked,
//! spans (byte offsets into the source) everywhere a diagnostic may need to point.

/// A byte range of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// A whole file: one or more graphs.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub graphs: Vec<Graph>,
}

/// `graph NAME { NODE* (return ...)? }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub name: Name,
    /// `attributes {...}`: the function's own attributes (e.g. `_dynamic_shape_partitioned`).
    pub attrs: Vec<Attr>,
    pub nodes: Vec<Node>,
    pub ret: Option<Return>,
    /// The `graph` keyword.
    pub keyword: Span,
    /// The closing brace (where a missing `return` is reported).
    pub close: Span,
}

/// A node, graph, attribute or symbol name: an identifier or a quoted string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// `NAME = TYPE(INPUTS) {ATTRS}? : RESULT_TYPES`.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: Name,
    pub op_type: OpType,
    pub inputs: Vec<Input>,
    pub attrs: Vec<Attr>,
    pub result_types: Vec<Type>,
    /// The result type list (for result-count diagnostics).
    pub results_span: Span,
    /// The whole statement.
    pub span: Span,
}

/// The op type of a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpTypeKind {
    /// A bare CamelCase identifier, looked up in the op table by GE type name.
    Known(String),
    /// A quoted type: the generic op `ascend.op` with `type = "..."`.
    Generic(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpType {
    pub kind: OpTypeKind,
    pub span: Span,
}

/// One input of a node or of `return`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// `n` (output 0) or `n:k` (output k).
    Data {
        node: Name,
        index: Option<(u32, Span)>,
        span: Span,
    },
    /// `^n`: a control edge from node `n`.
    Control { node: Name, span: Span },
    /// `?`: an input slot left unconnected (an optional input before a connected one).
    Unconnected { span: Span },
}

impl Input {
    pub fn span(&self) -> Span {
        match self {
            Input::Data { span, .. }
            | Input::Control { span, .. }
            | Input::Unconnected { span } => *span,
        }
    }

    /// The node the input names; `None` for an unconnected slot.
    pub fn node(&self) -> Option<&Name> {
        match self {
            Input::Data { node, .. } | Input::Control { node, .. } => Some(node),
            Input::Unconnected { .. } => None,
        }
    }
}

/// `return v1, v2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Return {
    pub inputs: Vec<Input>,
    pub span: Span,
}

/// `key = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub key: Name,
    pub value: AttrValue,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AttrValue {
    pub kind: AttrValueKind,
    pub span: Span,
}

/// Attribute values; see grammar/README.md for their MLIR mapping.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValueKind {
    Int(i128),
    /// The literal text (`1.5`, `-inf`, `nan`).
    Float(String),
    Bool(bool),
    Str(String),
    List(Vec<AttrValue>),
    /// `@g`: a graph (subgraph) symbol.
    Symbol(Name),
    Type(TensorType),
    Dense {
        ty: TensorType,
        elems: DenseElems,
    },
    /// `mlir"..."`: any MLIR attribute in MLIR syntax.
    Raw(String),
}

/// The elements of a `dense<...>` value.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseElems {
    /// `(v)`: every element is `v`.
    Splat(Scalar),
    /// `[v1, v2, ...]`: all elements, row-major.
    List(Vec<Scalar>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub kind: ScalarKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ScalarKind {
    Int(i128),
    Float(String),
    Bool(bool),
}

/// A result or attribute type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Tensor(TensorType),
    /// `mlir"..."`: any MLIR type in MLIR syntax.
    Raw {
        text: String,
        span: Span,
    },
}

impl Type {
    pub fn span(&self) -> Span {
        match self {
            Type::Tensor(t) => t.span,
            Type::Raw { span, .. } => *span,
        }
    }
}

/// `DTYPE[DIMS]`: `f32[4, 8]`, `f16[?, 8]`, `f32[]` (scalar), `f32[*]` (unranked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    pub dtype: String,
    pub dtype_span: Span,
    /// `None` for unranked; `Some(None)` entries are dynamic dimensions.
    pub dims: Option<Vec<Option<i64>>>,
    pub span: Span,
}
