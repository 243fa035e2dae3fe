//! Semantic checks of a parsed `.ge` file. Produces everything `emit` needs (resolved
//! inputs, MLIR types and attributes, segment sizes, a topological order), or every error
//! found, each located and, where one helps, with a hint.

use super::{
    lower_attr::{Lowering, SymbolUse},
    table_hooks,
};
use crate::dialect::{Arity, ArityError, Group, OpDef, OpTable};
use crate::syntax::{
    ast::{self, AttrValueKind, Input, OpTypeKind, Span},
    diagnostics::Diagnostic,
    types,
};
use melior::{
    ir::{Attribute, Type},
    Context,
};
use std::{
    cmp::Reverse,
    collections::{BinaryHeap, HashMap},
};

/// The MLIR name of the generic op.
pub const GENERIC_OP: &str = "ascend.op";

/// Attributes the importer sets itself; a user must not write them.
const RESERVED: &[(&str, &str)] = &[
    ("name", "the node name is the `name` attribute"),
    (
        "operandSegmentSizes",
        "the importer computes segment sizes from the op table",
    ),
    (
        "resultSegmentSizes",
        "the importer computes segment sizes from the op table",
    ),
];

pub struct CheckedFile<'c> {
    pub graphs: Vec<CheckedGraph<'c>>,
    /// The graph that becomes the public root function (`main`, else the first).
    pub root: usize,
}

pub struct CheckedGraph<'c> {
    pub nodes: Vec<CheckedNode<'c>>,
    /// Emission order: topological, stable by source order.
    pub order: Vec<usize>,
    pub arg_types: Vec<Type<'c>>,
    /// The Data node of each argument.
    pub arg_nodes: Vec<usize>,
    /// `(node, output)` per graph output.
    pub results: Vec<(usize, usize)>,
    pub result_types: Vec<Type<'c>>,
}

pub struct CheckedNode<'c> {
    pub op_name: String,
    /// Data result types (the control result is added by `emit`).
    pub results: Vec<Type<'c>>,
    /// Attributes in source order, `type` of the generic op included; without `name` and
    /// segment sizes.
    pub attrs: Vec<(String, Attribute<'c>)>,
    /// `(node, output)` per data input.
    pub data_in: Vec<(usize, usize)>,
    pub ctrl_in: Vec<usize>,
    /// For Data-like nodes: the function argument the op consumes.
    pub arg_index: Option<usize>,
    pub operand_segments: Option<Vec<i32>>,
    pub result_segments: Option<Vec<i32>>,
    /// `(attribute, symbol)` per subgraph the node calls (the table's subgraph attributes).
    subgraphs: Vec<(String, SymbolUse)>,
    /// For table ops: how many leading data inputs stay with the op (If's `cond`, Case's
    /// `branch_index`) before the rest are passed to the subgraphs. `None` for the generic
    /// op, whose subgraph convention is unknown.
    subgraph_skip: Option<usize>,
}

/// A node's data inputs `(node, output)` and control inputs; `None` when one failed.
type ResolvedInputs = (Option<Vec<(usize, usize)>>, Option<Vec<usize>>);

/// What a node's op type resolved to.
#[derive(Clone, Copy)]
enum OpKind<'t> {
    Known(&'t OpDef),
    Generic,
}

/// A node while checking: `None` parts failed and have been reported.
struct Partial<'c, 't> {
    op: Option<OpKind<'t>>,
    results: Option<Vec<Type<'c>>>,
    attrs: Option<Vec<(String, Attribute<'c>)>>,
    symbols: Vec<(String, SymbolUse)>,
    data_in: Option<Vec<(usize, usize)>>,
    ctrl_in: Option<Vec<usize>>,
    arg_index: Option<usize>,
    segments: (Option<Vec<i32>>, Option<Vec<i32>>),
}

struct PartialGraph<'c, 't> {
    nodes: Vec<Partial<'c, 't>>,
    args: Vec<usize>,
    results: Option<Vec<(usize, usize)>>,
}

struct Checker<'c, 't> {
    table: &'t OpTable,
    lowering: Lowering<'c>,
    diags: Vec<Diagnostic>,
    graph_index: HashMap<String, usize>,
}

pub fn check_file<'c>(
    context: &'c Context,
    table: &OpTable,
    file: &ast::File,
) -> Result<CheckedFile<'c>, Vec<Diagnostic>> {
    let mut cx = Checker {
        table,
        lowering: Lowering::new(context),
        diags: Vec::new(),
        graph_index: HashMap::new(),
    };
    if let Err(message) = cx.lowering.ctrl_type() {
        return Err(vec![Diagnostic::new(
            message,
            Span::new(0, 0),
            "while importing this file",
        )]);
    }
    for (i, g) in file.graphs.iter().enumerate() {
        if let Some(&first) = cx.graph_index.get(&g.name.text) {
            let first_span = file.graphs[first].name.span;
            cx.diags.push(
                Diagnostic::new(
                    format!("duplicate graph name `{}`", g.name.text),
                    g.name.span,
                    "defined again here",
                )
                .with_secondary(first_span, "first defined here")
                .with_hint("every graph of a file needs its own name"),
            );
        } else {
            cx.graph_index.insert(g.name.text.clone(), i);
        }
    }
    let partial: Vec<PartialGraph> = file.graphs.iter().map(|g| cx.graph(g)).collect();
    if !cx.diags.is_empty() {
        return Err(sorted(cx.diags));
    }
    let mut graphs: Vec<CheckedGraph> = partial.into_iter().map(|g| finish_graph(g)).collect();
    for (g, graph) in file.graphs.iter().zip(&graphs) {
        cx.check_subgraph_uses(file, g, graph, &graphs);
    }
    for (g, graph) in file.graphs.iter().zip(graphs.iter_mut()) {
        match topological_order(g, graph) {
            Ok(order) => graph.order = order,
            Err(d) => cx.diags.push(d),
        }
    }
    if !cx.diags.is_empty() {
        return Err(sorted(cx.diags));
    }
    let root = file
        .graphs
        .iter()
        .position(|g| g.name.text == "main")
        .unwrap_or(0);
    Ok(CheckedFile { graphs, root })
}

/// Reports in source order, as a reader goes through the file.
fn sorted(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| d.span.start);
    diags
}

/// Turns a fully checked partial graph into its final form (every part is present).
fn finish_graph<'c>(g: PartialGraph<'c, '_>) -> CheckedGraph<'c> {
    let nodes: Vec<CheckedNode> = g
        .nodes
        .into_iter()
        .map(|p| CheckedNode {
            op_name: match p.op {
                Some(OpKind::Known(def)) => def.op_name(),
                _ => GENERIC_OP.to_string(),
            },
            results: p.results.unwrap_or_default(),
            attrs: p.attrs.unwrap_or_default(),
            data_in: p.data_in.unwrap_or_default(),
            ctrl_in: p.ctrl_in.unwrap_or_default(),
            arg_index: p.arg_index,
            operand_segments: p.segments.0,
            result_segments: p.segments.1,
            subgraphs: match p.op {
                Some(OpKind::Known(def)) => {
                    let attrs = table_hooks::subgraph_attrs(def);
                    p.symbols
                        .into_iter()
                        .filter(|(k, _)| attrs.contains(&k.as_str()))
                        .collect()
                }
                _ => Vec::new(),
            },
            subgraph_skip: match p.op {
                Some(OpKind::Known(def)) => Some(
                    def.inputs
                        .iter()
                        .take_while(|g| g.arity == Arity::Single)
                        .count(),
                ),
                _ => None,
            },
        })
        .collect();
    let arg_types = g.args.iter().map(|&n| nodes[n].results[0]).collect();
    let results = g.results.unwrap_or_default();
    let result_types = results.iter().map(|&(n, k)| nodes[n].results[k]).collect();
    CheckedGraph {
        nodes,
        order: Vec::new(),
        arg_types,
        arg_nodes: g.args,
        results,
        result_types,
    }
}

/// `.ge` spelling of an MLIR type, for messages.
fn show(t: Type<'_>) -> String {
    types::ge_type(&t.to_string())
}

fn show_list(ts: &[Type<'_>]) -> String {
    match ts {
        [one] => show(*one),
        _ => format!(
            "({})",
            ts.iter().map(|t| show(*t)).collect::<Vec<_>>().join(", ")
        ),
    }
}

impl<'c, 't> Checker<'c, 't> {
    fn graph(&mut self, g: &ast::Graph) -> PartialGraph<'c, 't> {
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, n) in g.nodes.iter().enumerate() {
            if let Some(&first) = by_name.get(n.name.text.as_str()) {
                self.diags.push(
                    Diagnostic::new(
                        format!("duplicate node name `{}`", n.name.text),
                        n.name.span,
                        "defined again here",
                    )
                    .with_secondary(g.nodes[first].name.span, "first defined here")
                    .with_hint("node names must be unique within a graph"),
                );
            } else {
                by_name.insert(&n.name.text, i);
            }
        }
        let mut nodes: Vec<Partial> = g.nodes.iter().map(|n| self.node(n)).collect();
        for (i, n) in g.nodes.iter().enumerate() {
            let (data_in, ctrl_in) = self.inputs(g, &by_name, n);
            let is_data =
                matches!(nodes[i].op, Some(OpKind::Known(d)) if table_hooks::is_data_like(d));
            if is_data {
                if let Some(Input::Data { span, .. }) =
                    n.inputs.iter().find(|i| matches!(i, Input::Data { .. }))
                {
                    self.diags.push(
                        Diagnostic::new("a Data node takes no data inputs", *span, "not allowed here")
                            .with_hint("its value is graph input `index`; only control inputs (`^n`) may be given"),
                    );
                }
            }
            nodes[i].data_in = data_in;
            nodes[i].ctrl_in = ctrl_in;
        }
        let args = self.data_indices(g, &nodes);
        let results = g
            .ret
            .as_ref()
            .map_or(Some(Vec::new()), |ret| self.return_inputs(g, &by_name, ret));
        for (i, n) in g.nodes.iter().enumerate() {
            let segments = self.arity(n, &nodes[i], &nodes);
            nodes[i].segments = segments.unwrap_or_default();
        }
        PartialGraph {
            nodes,
            args,
            results,
        }
    }

    fn node(&mut self, n: &ast::Node) -> Partial<'c, 't> {
        let op = match &n.op_type.kind {
            OpTypeKind::Known(t) => match self.table.by_ge_type(t).filter(|d| !d.is_generic()) {
                Some(def) => Some(OpKind::Known(def)),
                None => {
                    self.diags.push(self.unknown_op(t, n.op_type.span));
                    None
                }
            },
            OpTypeKind::Generic(t) if t.is_empty() => {
                self.diags
                    .push(Diagnostic::new("empty op type", n.op_type.span, "here"));
                None
            }
            OpTypeKind::Generic(_) => Some(OpKind::Generic),
        };
        let mut results = Some(Vec::new());
        for t in &n.result_types {
            match self.lowering.ge_type(t) {
                Ok(t) => {
                    if let Some(r) = results.as_mut() {
                        r.push(t);
                    }
                }
                Err(d) => {
                    self.diags.push(d);
                    results = None;
                }
            }
        }
        let mut symbols = Vec::new();
        let attrs = self.attrs(n, matches!(op, Some(OpKind::Generic)), &mut symbols);
        let is_data = matches!(op, Some(OpKind::Known(d)) if table_hooks::is_data_like(d));
        let arg_index = if is_data { self.data_index(n) } else { None };
        Partial {
            op,
            results,
            attrs,
            symbols,
            data_in: None,
            ctrl_in: None,
            arg_index,
            segments: (None, None),
        }
    }

    fn unknown_op(&self, t: &str, span: Span) -> Diagnostic {
        let known = self
            .table
            .ops()
            .iter()
            .filter(|d| !d.is_generic())
            .map(|d| d.ge_type.as_str());
        let generic = format!("to use an op the table does not know, quote its type: `\"{t}\"(...)` is the generic op `{GENERIC_OP}`");
        let alias_of = self
            .table
            .semantics_for_ge_type(t)
            .filter(|d| !d.is_generic());
        let hint = match (alias_of, nearest(t, known)) {
            (Some(row), _) => format!(
                "GE treats `{t}` like `{}`: write `{}(...)`, or keep the GE type with the generic op: `\"{t}\"(...)`",
                row.ge_type, row.ge_type
            ),
            (None, Some(best)) => format!("did you mean `{best}`? Or, {generic}"),
            (None, None) => generic.replacen("to", "To", 1),
        };
        Diagnostic::new(
            format!("unknown op type `{t}`"),
            span,
            "not in the op table",
        )
        .with_hint(hint)
    }

    fn attrs(
        &mut self,
        n: &ast::Node,
        generic: bool,
        symbols: &mut Vec<(String, SymbolUse)>,
    ) -> Option<Vec<(String, Attribute<'c>)>> {
        let mut out = Vec::with_capacity(n.attrs.len() + 1);
        let mut ok = true;
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for a in &n.attrs {
            let key = a.key.text.as_str();
            if let Some(first) = seen.insert(key, a.key.span) {
                self.diags.push(
                    Diagnostic::new(
                        format!("duplicate attribute `{key}`"),
                        a.key.span,
                        "set again here",
                    )
                    .with_secondary(first, "first set here"),
                );
                ok = false;
                continue;
            }
            let reserved = RESERVED
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, why)| *why);
            let reserved = reserved.or_else(|| {
                (generic && key == "type")
                    .then_some("the quoted op type is the generic op's `type` attribute")
            });
            if let Some(why) = reserved {
                self.diags.push(
                    Diagnostic::new(
                        format!("attribute `{key}` is set by the importer"),
                        a.key.span,
                        "reserved",
                    )
                    .with_hint(why),
                );
                ok = false;
                continue;
            }
            let mut uses = Vec::new();
            match self.lowering.attr(&a.value, &mut uses) {
                Ok(attr) => out.push((key.to_string(), attr)),
                Err(d) => {
                    self.diags.push(d);
                    ok = false;
                }
            }
            for u in uses {
                if !self.graph_index.contains_key(&u.graph.text) {
                    let names = self.graph_index.keys().map(String::as_str);
                    let mut d = Diagnostic::new(
                        format!("dangling subgraph symbol `@{}`", u.graph.text),
                        u.span,
                        "no graph of this name in the file",
                    );
                    d = match nearest(&u.graph.text, names) {
                        Some(best) => d.with_hint(format!("did you mean `@{best}`?")),
                        None => d.with_hint(format!(
                            "add `graph {} {{ ... }}` to the file",
                            u.graph.text
                        )),
                    };
                    self.diags.push(d);
                    ok = false;
                }
                symbols.push((key.to_string(), u));
            }
        }
        if generic {
            if let OpTypeKind::Generic(t) = &n.op_type.kind {
                let ctx = self.lowering.context();
                out.push((
                    "type".into(),
                    melior::ir::attribute::StringAttribute::new(ctx, t).into(),
                ));
            }
        }
        ok.then_some(out)
    }

    /// The `index` of a Data node: required, a non-negative integer.
    fn data_index(&mut self, n: &ast::Node) -> Option<usize> {
        let Some(attr) = n.attrs.iter().find(|a| a.key.text == "index") else {
            self.diags.push(
                Diagnostic::new(
                    "Data node without `index`",
                    n.name.span,
                    "which graph input is this?",
                )
                .with_hint("write `Data() {index = 0}`: the node is graph input `index`"),
            );
            return None;
        };
        match attr.value.kind {
            AttrValueKind::Int(i) if i >= 0 && i < i128::from(u32::MAX) => Some(i as usize),
            _ => {
                self.diags.push(Diagnostic::new(
                    "Data `index` must be a non-negative integer",
                    attr.value.span,
                    "not a graph input position",
                ));
                None
            }
        }
    }

    /// Resolves the inputs of a node; `None` parts had errors.
    fn inputs(
        &mut self,
        g: &ast::Graph,
        by_name: &HashMap<&str, usize>,
        n: &ast::Node,
    ) -> ResolvedInputs {
        let mut data = Some(Vec::new());
        let mut ctrl = Some(Vec::new());
        let mut first_ctrl: Option<Span> = None;
        for input in &n.inputs {
            match input {
                Input::Data { .. } => {
                    if let Some(c) = first_ctrl {
                        self.diags.push(
                            Diagnostic::new(
                                "data input after a control input",
                                input.span(),
                                "data input",
                            )
                            .with_secondary(c, "control input")
                            .with_hint("control inputs (`^n`) come after all data inputs"),
                        );
                        data = None;
                    }
                    match self.resolve_data(g, by_name, input) {
                        Some(r) => {
                            if let Some(d) = data.as_mut() {
                                d.push(r);
                            }
                        }
                        None => data = None,
                    }
                }
                Input::Control { node, span } => {
                    first_ctrl.get_or_insert(*span);
                    match by_name.get(node.text.as_str()) {
                        Some(&i) => {
                            if let Some(c) = ctrl.as_mut() {
                                c.push(i);
                            }
                        }
                        None => {
                            self.diags
                                .push(self.undefined(g, by_name, &node.text, *span, ""));
                            ctrl = None;
                        }
                    }
                }
            }
        }
        (data, ctrl)
    }

    fn resolve_data(
        &mut self,
        g: &ast::Graph,
        by_name: &HashMap<&str, usize>,
        input: &Input,
    ) -> Option<(usize, usize)> {
        let Input::Data { node, index, span } = input else {
            return None;
        };
        let k = index.map_or(0, |(k, _)| k as usize);
        let shown = match index {
            Some((k, _)) => format!("{}:{k}", node.text),
            None => node.text.clone(),
        };
        let Some(&producer) = by_name.get(node.text.as_str()) else {
            self.diags
                .push(self.undefined(g, by_name, &shown, *span, &node.text));
            return None;
        };
        let outputs = g.nodes[producer].result_types.len();
        if k >= outputs {
            let label = match outputs {
                0 => format!("`{}` has no data outputs", node.text),
                1 => format!("`{}` has 1 output", node.text),
                n => format!("`{}` has {n} outputs (`:0` to `:{}`)", node.text, n - 1),
            };
            let mut d = Diagnostic::new(format!("undefined value `{shown}`"), *span, label)
                .with_secondary(g.nodes[producer].results_span, "its outputs");
            if outputs == 0 {
                d = d.with_hint(format!("for a control edge write `^{}`", node.text));
            }
            self.diags.push(d);
            return None;
        }
        Some((producer, k))
    }

    fn undefined(
        &self,
        g: &ast::Graph,
        by_name: &HashMap<&str, usize>,
        shown: &str,
        span: Span,
        name: &str,
    ) -> Diagnostic {
        let name = if name.is_empty() { shown } else { name };
        let mut d = Diagnostic::new(
            format!("undefined value `{shown}`"),
            span,
            format!("no node `{name}` in graph `{}`", g.name.text),
        );
        if let Some(best) = nearest(name, by_name.keys().copied()) {
            d = d.with_hint(format!("did you mean `{best}`?"));
        }
        d
    }

    fn return_inputs(
        &mut self,
        g: &ast::Graph,
        by_name: &HashMap<&str, usize>,
        ret: &ast::Return,
    ) -> Option<Vec<(usize, usize)>> {
        let mut out = Some(Vec::new());
        for input in &ret.inputs {
            match input {
                Input::Control { span, .. } => {
                    self.diags.push(
                        Diagnostic::new("control input on `return`", *span, "not allowed here")
                            .with_hint("a graph's outputs are data values; put the control edge on a node instead"),
                    );
                    out = None;
                }
                Input::Data { .. } => match self.resolve_data(g, by_name, input) {
                    Some(r) => {
                        if let Some(o) = out.as_mut() {
                            o.push(r);
                        }
                    }
                    None => out = None,
                },
            }
        }
        out
    }

    /// Data indices of a graph must be 0..n-1, each once; returns the node per index.
    fn data_indices(&mut self, g: &ast::Graph, nodes: &[Partial]) -> Vec<usize> {
        let mut by_index: Vec<Option<usize>> = Vec::new();
        for (i, p) in nodes.iter().enumerate() {
            let Some(index) = p.arg_index else { continue };
            if index >= by_index.len() {
                by_index.resize(index + 1, None);
            }
            if let Some(first) = by_index[index] {
                self.diags.push(
                    Diagnostic::new(
                        format!("duplicate Data index {index} in graph `{}`", g.name.text),
                        index_span(&g.nodes[i]),
                        "used again here",
                    )
                    .with_secondary(index_span(&g.nodes[first]), "first used here")
                    .with_hint("each graph input is read by exactly one Data node"),
                );
            } else {
                by_index[index] = Some(i);
            }
        }
        let missing: Vec<String> = by_index
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_none())
            .map(|(i, _)| i.to_string())
            .collect();
        if !missing.is_empty() {
            self.diags.push(
                Diagnostic::new(
                    format!(
                        "Data indices of graph `{}` have a gap: no Data node has index {}",
                        g.name.text,
                        missing.join(", ")
                    ),
                    g.name.span,
                    format!("inputs are 0..{}", by_index.len()),
                )
                .with_hint("Data indices are the graph's input positions and must be 0..n-1"),
            );
        }
        by_index.into_iter().flatten().collect()
    }

    /// Operand and result counts (and variadic group types) against the op table.
    #[allow(clippy::type_complexity)]
    fn arity(
        &mut self,
        n: &ast::Node,
        p: &Partial<'c, 't>,
        nodes: &[Partial<'c, 't>],
    ) -> Option<(Option<Vec<i32>>, Option<Vec<i32>>)> {
        let results = p.results.as_ref()?;
        let data_in = p.data_in.as_ref()?;
        let ctrl = p.ctrl_in.as_ref()?.len();
        let mut types = Vec::with_capacity(data_in.len());
        for &(producer, k) in data_in {
            types.push(*nodes[producer].results.as_ref()?.get(k)?);
        }
        let def = match p.op? {
            OpKind::Known(def) => def,
            OpKind::Generic => match self.table.generic() {
                Some(def) => def,
                None => return Some((None, None)),
            },
        };
        if p.arg_index.is_some() {
            // A Data op's one data operand is its function argument, of its result type.
            types = results.first().copied().into_iter().collect();
        }
        let data_inputs: Vec<&Input> = n
            .inputs
            .iter()
            .filter(|i| matches!(i, Input::Data { .. }))
            .collect();
        let operands = match def.operand_segments(&types, ctrl) {
            Ok(s) => Some(s),
            Err(e) => {
                let d = match e {
                    ArityError::MixedTypes {
                        group,
                        first,
                        other,
                    } => {
                        let at = |i: usize| data_inputs.get(i).map_or(n.op_type.span, |x| x.span());
                        Diagnostic::new(format!("type mismatch: inputs of `{}` in variadic group `{group}` differ", n.name.text), at(other), format!("this input is {}", show(types[other])))
                            .with_secondary(at(first), format!("this one is {}", show(types[first])))
                            .with_note("IRDL binds one type per variadic group, so all its values must have the same type")
                    }
                    _ => {
                        self.count_error(n, def, "input", &def.inputs, types.len(), n.op_type.span)
                    }
                };
                self.diags.push(d);
                None
            }
        };
        let result_segs = match def.result_segments(results) {
            Ok(s) => Some(s),
            Err(e) => {
                let d = match e {
                    ArityError::MixedTypes { group, first, other } => Diagnostic::new(
                        format!("type mismatch: results of `{}` in variadic group `{group}` differ", n.name.text),
                        n.results_span,
                        format!("results #{first} and #{other} have different types"),
                    )
                    .with_note("IRDL binds one type per variadic group, so all its values must have the same type"),
                    _ => self.count_error(n, def, "output", &def.outputs, results.len(), n.results_span),
                };
                self.diags.push(d);
                None
            }
        };
        let (operands, result_sizes) = (operands?, result_segs?);
        let sets = table_hooks::same_type_sets(def);
        for v in same_type_violations(
            def,
            sets,
            &types,
            results,
            operands.as_deref(),
            result_sizes.as_deref(),
        ) {
            let where_ = |x: ValueRef| match x {
                ValueRef::Input(i) => (
                    data_inputs.get(i).map_or(n.op_type.span, |x| x.span()),
                    format!("input {i}"),
                    types[i],
                ),
                ValueRef::Output(i) => (n.results_span, format!("output {i}"), results[i]),
            };
            let (at, what, have) = where_(v.other);
            let (first_at, first_what, want) = where_(v.first);
            self.diags.push(
                Diagnostic::new(
                    format!(
                        "type mismatch: {what} of `{}` is {} but {first_what} is {}",
                        n.name.text,
                        show(have),
                        show(want)
                    ),
                    at,
                    format!("this is {}", show(have)),
                )
                .with_secondary(first_at, format!("this is {}", show(want)))
                .with_note(format!(
                    "{} requires one type for {}",
                    def.ge_type,
                    v.set.join(", ")
                )),
            );
        }
        let present = |k: &str| {
            n.attrs.iter().any(|a| a.key.text == k)
                || k == "type" && matches!(n.op_type.kind, OpTypeKind::Generic(_))
        };
        let mut required = table_hooks::required_attrs(def);
        required.extend(table_hooks::subgraph_attrs(def));
        for key in required {
            if !present(key) {
                self.diags.push(
                    Diagnostic::new(
                        format!("`{}` needs attribute `{key}`", n.name.text),
                        n.name.span,
                        format!("{} requires `{key}`", def.ge_type),
                    )
                    .with_hint(format!("add `{{{key} = ...}}` to the node")),
                );
            }
        }
        Some((operands, result_sizes))
    }

    fn count_error(
        &self,
        n: &ast::Node,
        def: &OpDef,
        what: &str,
        groups: &[Group],
        got: usize,
        span: Span,
    ) -> Diagnostic {
        let (min, max) = arity_range(groups);
        let expected = match max {
            Some(max) if max == min => format!("{min}"),
            Some(max) => format!("{min} to {max}"),
            None => format!("at least {min}"),
        };
        let op = match &n.op_type.kind {
            OpTypeKind::Known(t) => t.clone(),
            OpTypeKind::Generic(t) => format!("\"{t}\""),
        };
        let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
        Diagnostic::new(
            format!(
                "wrong number of {what}s for `{}`: {op} takes {expected} data {what}s, got {got}",
                n.name.text
            ),
            span,
            format!("{got} {what}{}", if got == 1 { "" } else { "s" }),
        )
        .with_note(format!(
            "{} ({}) {what}s: {}",
            op,
            def.op_name(),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    }

    /// Operand and result types of ops with subgraphs against the subgraphs' signatures.
    ///
    /// A table op passes its data inputs after the leading single groups to each subgraph
    /// (If: all but `cond`; Case: all but `branch_index`; While, PartitionedCall: all), in
    /// order, as the subgraph's Data indices. A subgraph's outputs are the op's outputs,
    /// except a `cond` subgraph (While), which returns one predicate.
    fn check_subgraph_uses(
        &mut self,
        file: &ast::File,
        g: &ast::Graph,
        graph: &CheckedGraph<'c>,
        all: &[CheckedGraph<'c>],
    ) {
        for (i, node) in graph.nodes.iter().enumerate() {
            let Some(skip) = node.subgraph_skip else {
                continue;
            };
            if node.subgraphs.is_empty() {
                continue;
            }
            let n = &g.nodes[i];
            let data_inputs: Vec<&Input> = n
                .inputs
                .iter()
                .filter(|x| matches!(x, Input::Data { .. }))
                .collect();
            let skip = skip.min(node.data_in.len());
            let passed: Vec<Type> = node.data_in[skip..]
                .iter()
                .map(|&(p, k)| graph.nodes[p].results[k])
                .collect();
            let op = match &n.op_type.kind {
                OpTypeKind::Known(t) | OpTypeKind::Generic(t) => t.as_str(),
            };
            for (key, symbol) in &node.subgraphs {
                let Some(&si) = self.graph_index.get(&symbol.graph.text) else {
                    continue;
                };
                let (sub, sub_ast) = (&all[si], &file.graphs[si]);
                let sg = &sub_ast.name.text;
                if passed.len() != sub.arg_types.len() {
                    let mut d = Diagnostic::new(
                        format!(
                            "`{}` ({op}) passes {} inputs to graph `{sg}`, which takes {}",
                            n.name.text,
                            passed.len(),
                            sub.arg_types.len()
                        ),
                        symbol.span,
                        format!("`{key}` is called with {} inputs", passed.len()),
                    )
                    .with_secondary(
                        sub_ast.name.span,
                        format!("takes {} inputs (its Data nodes)", sub.arg_types.len()),
                    );
                    if skip > 0 {
                        d = d.with_note(format!("the first {skip} data input(s) of {op} stay with the op; the rest go to the subgraph"));
                    }
                    self.diags.push(d);
                } else {
                    for (j, (have, want)) in passed.iter().zip(&sub.arg_types).enumerate() {
                        if have != want {
                            let at = data_inputs
                                .get(skip + j)
                                .map_or(n.op_type.span, |x| x.span());
                            self.diags.push(
                                Diagnostic::new(
                                    format!("type mismatch: input {} of `{}` is {} but graph `{sg}` takes {} as input {j}", skip + j, n.name.text, show(*have), show(*want)),
                                    at,
                                    format!("this is {}", show(*have)),
                                )
                                .with_secondary(index_span(&sub_ast.nodes[sub.arg_nodes[j]]), format!("Data {j} of `{sg}` is {}", show(*want))),
                            );
                        }
                    }
                }
                let ret_span = sub_ast.ret.as_ref().map_or(sub_ast.close, |r| r.span);
                if key == "cond" {
                    if sub.result_types.len() != 1 {
                        self.diags.push(
                            Diagnostic::new(
                                format!(
                                    "`cond` graph `{sg}` of `{}` must return one value, returns {}",
                                    n.name.text,
                                    sub.result_types.len()
                                ),
                                symbol.span,
                                "the loop condition",
                            )
                            .with_secondary(ret_span, "returns here"),
                        );
                    }
                } else if node.results != sub.result_types {
                    self.diags.push(
                        Diagnostic::new(
                            format!(
                                "type mismatch: `{}` ({op}) has results {} but graph `{sg}` returns {}",
                                n.name.text,
                                show_list(&node.results),
                                show_list(&sub.result_types)
                            ),
                            n.results_span,
                            format!("`{key}` = @{sg} must return these"),
                        )
                        .with_secondary(ret_span, format!("`{sg}` returns {}", show_list(&sub.result_types))),
                    );
                }
            }
        }
    }
}

/// A data input or output of a node, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueRef {
    Input(usize),
    Output(usize),
}

/// A value whose type differs from the first value of its same-type set.
#[derive(Debug, PartialEq, Eq)]
struct SameTypeViolation<'d> {
    set: &'d [String],
    first: ValueRef,
    other: ValueRef,
}

/// Positions of each table group's values, from the IRDL segment sizes; without segment
/// sizes every group but at most one is single, and that one takes what is left.
fn group_positions<'g>(
    groups: &'g [Group],
    segments: Option<&[i32]>,
    n: usize,
) -> Vec<(&'g str, std::ops::Range<usize>)> {
    let mut out = Vec::with_capacity(groups.len());
    let mut next = 0usize;
    let mut sizes = segments.map(|s| s.iter().map(|&x| x.max(0) as usize));
    let singles = groups.iter().filter(|g| g.arity == Arity::Single).count();
    for g in groups {
        let size = match (&mut sizes, g.arity) {
            (Some(sizes), Arity::Slots(k)) => sizes.by_ref().take(k + 1).sum(),
            (Some(sizes), _) => sizes.next().unwrap_or(0),
            (None, Arity::Single) => 1,
            (None, _) => n.saturating_sub(singles),
        };
        let end = (next + size).min(n);
        out.push((g.name.as_str(), next.min(end)..end));
        next = end;
    }
    out
}

/// Checks the table's same-type sets (group names across inputs and outputs).
fn same_type_violations<'d, T: PartialEq>(
    def: &OpDef,
    sets: &'d [Vec<String>],
    inputs: &[T],
    outputs: &[T],
    input_segments: Option<&[i32]>,
    output_segments: Option<&[i32]>,
) -> Vec<SameTypeViolation<'d>> {
    let ins = group_positions(&def.inputs, input_segments, inputs.len());
    let outs = group_positions(&def.outputs, output_segments, outputs.len());
    let mut found = Vec::new();
    for set in sets {
        let mut members: Vec<(ValueRef, &T)> = Vec::new();
        for name in set {
            for (g, range) in &ins {
                if g == name {
                    members.extend(range.clone().map(|i| (ValueRef::Input(i), &inputs[i])));
                }
            }
            for (g, range) in &outs {
                if g == name {
                    members.extend(range.clone().map(|i| (ValueRef::Output(i), &outputs[i])));
                }
            }
        }
        if let Some(&(first, want)) = members.first() {
            if let Some(&(other, _)) = members.iter().find(|(_, t)| *t != want) {
                found.push(SameTypeViolation { set, first, other });
            }
        }
    }
    found
}

/// The index attribute's span, else the node name's.
fn index_span(n: &ast::Node) -> Span {
    n.attrs
        .iter()
        .find(|a| a.key.text == "index")
        .map_or(n.name.span, |a| a.value.span)
}

/// How many data values groups accept: `(min, max)`, `None` = unbounded.
fn arity_range(groups: &[Group]) -> (usize, Option<usize>) {
    groups
        .iter()
        .fold((0, Some(0)), |(min, max), g| match g.arity {
            Arity::Single => (min + 1, max.map(|m| m + 1)),
            Arity::Optional => (min, max.map(|m| m + 1)),
            Arity::Variadic | Arity::Slots(_) => (min, None),
        })
}

/// Kahn's algorithm over data and control edges, picking the ready node that comes first in
/// the source, so a file already in dependency order keeps its order. A leftover node means
/// a cycle; the error lists one cycle's nodes in edge order.
fn topological_order(g: &ast::Graph, graph: &CheckedGraph<'_>) -> Result<Vec<usize>, Diagnostic> {
    let n = graph.nodes.len();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pending = vec![0usize; n];
    for (i, node) in graph.nodes.iter().enumerate() {
        for p in node
            .data_in
            .iter()
            .map(|&(p, _)| p)
            .chain(node.ctrl_in.iter().copied())
        {
            users[p].push(i);
            pending[i] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| pending[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &u in &users[i] {
            pending[u] -= 1;
            if pending[u] == 0 {
                ready.push(Reverse(u));
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Walk predecessors inside the leftover set until a node repeats: that loop is a cycle.
    let start = (0..n).find(|&i| pending[i] > 0).unwrap_or(0);
    let preds = |i: usize| -> Option<usize> {
        let node = &graph.nodes[i];
        node.data_in
            .iter()
            .map(|&(p, _)| p)
            .chain(node.ctrl_in.iter().copied())
            .find(|&p| pending[p] > 0)
    };
    let mut path = vec![start];
    let mut at = start;
    let mut cycle = loop {
        let Some(p) = preds(at) else { break vec![at] };
        if let Some(pos) = path.iter().position(|&x| x == p) {
            let mut cycle = path[pos..].to_vec();
            cycle.reverse();
            break cycle;
        }
        path.push(p);
        at = p;
    };
    // Start the report at the cycle's first node in the source.
    if let Some(first) = cycle
        .iter()
        .enumerate()
        .min_by_key(|&(_, &n)| n)
        .map(|(i, _)| i)
    {
        cycle.rotate_left(first);
    }
    let names: Vec<&str> = cycle
        .iter()
        .map(|&i| g.nodes[i].name.text.as_str())
        .collect();
    let mut shown = names.join(" -> ");
    shown.push_str(" -> ");
    shown.push_str(names[0]);
    let mut d = Diagnostic::new(
        format!("cycle in graph `{}`: {shown}", g.name.text),
        g.nodes[cycle[0]].name.span,
        "this node depends on itself",
    )
    .with_hint("a graph must be acyclic over data and control edges (`^n` counts too)");
    for &i in &cycle[1..] {
        d = d.with_secondary(g.nodes[i].name.span, "on the cycle");
    }
    Err(d)
}

/// The candidate closest to `target` by edit distance, if close enough to be a typo.
fn nearest<'a>(target: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (target.chars().count() / 3).max(2);
    candidates
        .map(|c| (edit_distance(&target.to_lowercase(), &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= limit && d < target.chars().count())
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn nearest_finds_typos_only() {
        let names = ["Add", "AddN", "HcomAllReduce"];
        assert_eq!(nearest("Ad", names.iter().copied()), Some("Add"));
        assert_eq!(
            nearest("hcomallreduce", names.iter().copied()),
            Some("HcomAllReduce")
        );
        assert_eq!(nearest("Conv2D", names.iter().copied()), None);
    }

    #[test]
    fn same_type_sets_cover_inputs_and_outputs() {
        let table = OpTable::parse(
            "[[op]]\nmnemonic = \"n\"\nge_type = \"N\"\nengine = \"E\"\ninputs = [\"a\", \"x*\", \"k?\"]\noutputs = [\"y\"]\n",
        )
        .unwrap();
        let def = table.by_ge_type("N").unwrap();
        let sets = vec![vec!["x".to_string(), "y".to_string()]];
        let segments = def.operand_segments(&["i", "f", "f", "f"], 0).unwrap();
        assert_eq!(segments, Some(vec![1, 3, 0, 0]));
        let ok = same_type_violations(
            def,
            &sets,
            &["i", "f", "f", "f"],
            &["f"],
            segments.as_deref(),
            None,
        );
        assert!(ok.is_empty());
        let bad = same_type_violations(
            def,
            &sets,
            &["i", "f", "f", "f"],
            &["g"],
            segments.as_deref(),
            None,
        );
        assert_eq!(
            bad,
            vec![SameTypeViolation {
                set: &sets[0],
                first: ValueRef::Input(1),
                other: ValueRef::Output(0)
            }]
        );
        let single = OpTable::parse(
            "[[op]]\nmnemonic = \"r\"\nge_type = \"R\"\nengine = \"E\"\ninputs = [\"x\"]\noutputs = [\"y*\"]\n",
        )
        .unwrap();
        let def = single.by_ge_type("R").unwrap();
        let bad = same_type_violations(def, &sets, &["f"], &["f", "g"], None, None);
        assert_eq!(bad[0].other, ValueRef::Output(1));
    }

    #[test]
    fn arity_ranges() {
        let g = |s: &str, arity| Group {
            name: s.into(),
            arity,
        };
        assert_eq!(
            arity_range(&[g("a", Arity::Single), g("b", Arity::Optional)]),
            (1, Some(2))
        );
        assert_eq!(
            arity_range(&[g("a", Arity::Single), g("b", Arity::Slots(2))]),
            (1, None)
        );
    }
}
