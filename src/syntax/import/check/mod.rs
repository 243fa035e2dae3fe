//! Semantic checks of a parsed `.ge` file. Produces everything `emit` needs (resolved
//! inputs, MLIR types and attributes, segment sizes, a topological order), or every error
//! found, each located and, where one helps, with a hint.

mod groups;
mod order;
mod subgraphs;
mod suggest;

use super::{
    lower_attr::{Lowering, SymbolUse},
    table_hooks,
};
use crate::dialect::{
    attr_checks, slots,
    subgraph_rule::{SubgraphCall, SubgraphRule},
    ArityError, Group, OpDef, OpTable,
};
use crate::syntax::{
    ast::{self, AttrValueKind, Input, OpTypeKind, Span},
    diagnostics::Diagnostic,
    types,
};
use groups::{arity_range, same_type_violations, ValueRef};
use melior::{
    ir::{Attribute, Type},
    Context,
};
use order::topological_order;
use std::collections::HashMap;
use suggest::nearest;

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
    /// The function's own attributes (`graph g attributes {...}`), in source order.
    pub attrs: Vec<(String, Attribute<'c>)>,
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
    /// `(attribute, symbol)` per subgraph the node calls (the attributes its rule names).
    subgraphs: Vec<(String, SymbolUse)>,
    /// How the node calls its subgraphs: the rule the `.mlir` verifier applies too.
    subgraph_call: Option<SubgraphCall>,
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
    /// How the node calls subgraphs (the rule the `.mlir` verifier applies too).
    subgraph_rule: Option<SubgraphRule<'t>>,
    results: Option<Vec<Type<'c>>>,
    attrs: Option<Vec<(String, Attribute<'c>)>>,
    symbols: Vec<(String, SymbolUse)>,
    data_in: Option<Vec<(usize, usize)>>,
    ctrl_in: Option<Vec<usize>>,
    arg_index: Option<usize>,
    /// Slots left unconnected (`?`), as positions among the data inputs, with their spans.
    unconnected: Vec<(usize, Span)>,
    segments: (Option<Vec<i32>>, Option<Vec<i32>>),
}

struct PartialGraph<'c, 't> {
    attrs: Option<Vec<(String, Attribute<'c>)>>,
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

/// Function attributes that the graph's header already spells (name, signature,
/// visibility) or that `.ge` has no syntax for.
fn graph_reserved(key: &str) -> Option<&'static str> {
    match key {
        "sym_name" => Some("the graph name is the function's `sym_name`"),
        "function_type" => Some("the importer derives the signature from Data nodes and `return`"),
        "sym_visibility" => Some("the root graph is public, every other graph private"),
        "arg_attrs" | "res_attrs" => Some("argument and result attributes have no `.ge` syntax"),
        _ => None,
    }
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
        .map(|p| {
            let rule = p.subgraph_rule;
            CheckedNode {
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
                subgraphs: match rule {
                    Some(rule) => p
                        .symbols
                        .into_iter()
                        .filter(|(k, _)| rule.names_subgraphs(k))
                        .collect(),
                    None => Vec::new(),
                },
                subgraph_call: rule.map(|r| r.call),
            }
        })
        .collect();
    let arg_types = g.args.iter().map(|&n| nodes[n].results[0]).collect();
    let results = g.results.unwrap_or_default();
    let result_types = results.iter().map(|&(n, k)| nodes[n].results[k]).collect();
    CheckedGraph {
        attrs: g.attrs.unwrap_or_default(),
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
                if let Some(Input::Data { span, .. } | Input::Unconnected { span }) = n
                    .inputs
                    .iter()
                    .find(|i| matches!(i, Input::Data { .. } | Input::Unconnected { .. }))
                {
                    self.diags.push(
                        Diagnostic::new("a Data node takes no data inputs", *span, "not allowed here")
                            .with_hint("its value is graph input `index`; only control inputs (`^n`) may be given"),
                    );
                }
            }
            nodes[i].data_in = data_in;
            nodes[i].ctrl_in = ctrl_in;
            nodes[i].unconnected = n
                .inputs
                .iter()
                .filter(|x| !matches!(x, Input::Control { .. }))
                .enumerate()
                .filter_map(|(k, x)| match x {
                    Input::Unconnected { span } => Some((k, *span)),
                    _ => None,
                })
                .collect();
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
        let mut symbols = Vec::new();
        let attrs = self.attr_list(&g.attrs, graph_reserved, &mut symbols);
        for (key, value) in attrs.iter().flatten() {
            let problem = (key == "memory_size")
                .then(|| attr_checks::memory_size_problem(*value))
                .flatten();
            if let (Some(problem), Some(a)) = (problem, g.attrs.iter().find(|a| &a.key.text == key))
            {
                self.diags.push(Diagnostic::new(
                    format!("graph `{}`: {problem}", g.name.text),
                    a.value.span,
                    "this value",
                ));
            }
        }
        PartialGraph {
            attrs,
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
        if let Some(lowered) = attrs.as_ref() {
            self.attr_values(n, op, lowered, results.as_deref());
        }
        let is_data = matches!(op, Some(OpKind::Known(d)) if table_hooks::is_data_like(d));
        let arg_index = if is_data { self.data_index(n) } else { None };
        let subgraph_rule = match (op, &n.op_type.kind) {
            (Some(OpKind::Known(def)), _) => Some(SubgraphRule::new(def, def)),
            (Some(OpKind::Generic), OpTypeKind::Generic(t)) => self.table.generic().map(|row| {
                SubgraphRule::new(row, self.table.semantics_for_ge_type(t).unwrap_or(row))
            }),
            _ => None,
        };
        Partial {
            op,
            subgraph_rule,
            results,
            attrs,
            symbols,
            data_in: None,
            ctrl_in: None,
            arg_index,
            unconnected: Vec::new(),
            segments: (None, None),
        }
    }

    /// The attribute values IRDL cannot check, by the rule the `.mlir` path applies
    /// ([`crate::dialect::attr_checks`]): subgraph symbols, a Const's value.
    fn attr_values(
        &mut self,
        n: &ast::Node,
        kind: Option<OpKind>,
        lowered: &[(String, Attribute<'c>)],
        results: Option<&[Type<'c>]>,
    ) {
        let def = match (kind, &n.op_type.kind) {
            (Some(OpKind::Known(def)), _) => Some(def),
            (Some(OpKind::Generic), OpTypeKind::Generic(t)) => self.table.semantics_for_ge_type(t),
            _ => None,
        };
        for (key, attr) in lowered {
            let problem = match def {
                Some(def) if key == "value" => attr_checks::const_value_problem(
                    def,
                    *attr,
                    results.and_then(|r| r.first().copied()),
                ),
                Some(def) => attr_checks::subgraph_attr_problem(def, key, *attr),
                None => None,
            }
            .or_else(|| attr_checks::typed_attr_problem(key, *attr));
            if let Some(problem) = problem {
                let span = n
                    .attrs
                    .iter()
                    .find(|a| &a.key.text == key)
                    .map_or(n.name.span, |a| a.value.span);
                self.diags.push(Diagnostic::new(
                    format!("`{}`: {problem}", n.name.text),
                    span,
                    "this value",
                ));
            }
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
        let reserved = |key: &str| {
            RESERVED
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, why)| *why)
                .or_else(|| {
                    (generic && key == "type")
                        .then_some("the quoted op type is the generic op's `type` attribute")
                })
        };
        let mut out = self.attr_list(&n.attrs, reserved, symbols)?;
        if generic {
            if let OpTypeKind::Generic(t) = &n.op_type.kind {
                let ctx = self.lowering.context();
                out.push((
                    "type".into(),
                    melior::ir::attribute::StringAttribute::new(ctx, t).into(),
                ));
            }
        }
        Some(out)
    }

    /// Lowers a written attribute list: no key twice, none that `reserved` explains as
    /// set by the importer, every subgraph symbol defined in the file.
    fn attr_list(
        &mut self,
        attrs: &[ast::Attr],
        reserved: impl Fn(&str) -> Option<&'static str>,
        symbols: &mut Vec<(String, SymbolUse)>,
    ) -> Option<Vec<(String, Attribute<'c>)>> {
        let mut out = Vec::with_capacity(attrs.len() + 1);
        let mut ok = true;
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for a in attrs {
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
            if let Some(why) = reserved(key) {
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
                Input::Unconnected { span } => {
                    if let Some(c) = first_ctrl {
                        self.diags.push(
                            Diagnostic::new(
                                "unconnected input after a control input",
                                *span,
                                "unconnected slot",
                            )
                            .with_secondary(c, "control input")
                            .with_hint("control inputs (`^n`) come after all data inputs"),
                        );
                        data = None;
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
                Input::Unconnected { span } => {
                    self.diags.push(
                        Diagnostic::new("unconnected output on `return`", *span, "not allowed here")
                            .with_hint("every graph output is a value; `?` only marks an optional input of a node"),
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
        if p.arg_index.is_none() && matches!(def, d if table_hooks::is_data_like(d)) {
            // Its `index` was already reported as the error: counting its inputs now would
            // add a misleading "takes 1 data inputs, got 0" before it.
            return None;
        }
        if p.arg_index.is_some() {
            // A Data op's one data operand is its function argument, of its result type.
            types = results.first().copied().into_iter().collect();
        }
        let data_inputs: Vec<&Input> = n
            .inputs
            .iter()
            .filter(|i| matches!(i, Input::Data { .. }))
            .collect();
        let operands = if !p.unconnected.is_empty() && p.arg_index.is_none() {
            self.slot_operand_segments(n, p, def, &types, ctrl)
        } else {
            match def.operand_segments(&types, ctrl) {
                Ok(s) => Some(s),
                Err(e) => {
                    let d = match e {
                        ArityError::MixedTypes {
                            group,
                            first,
                            other,
                        } => {
                            let at =
                                |i: usize| data_inputs.get(i).map_or(n.op_type.span, |x| x.span());
                            Diagnostic::new(format!("type mismatch: inputs of `{}` in variadic group `{group}` differ", n.name.text), at(other), format!("this input is {}", show(types[other])))
                            .with_secondary(at(first), format!("this one is {}", show(types[first])))
                            .with_note("IRDL binds one type per variadic group, so all its values must have the same type")
                        }
                        _ => self.count_error(
                            n,
                            def,
                            "input",
                            &def.inputs,
                            types.len(),
                            n.op_type.span,
                        ),
                    };
                    self.diags.push(d);
                    None
                }
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

    /// The operand segment sizes of a node that leaves slots unconnected (`?`), by the rule
    /// the `.mlir` verifier applies ([`slots::slot_segments`]); errors at the slot to blame.
    fn slot_operand_segments(
        &mut self,
        n: &ast::Node,
        p: &Partial<'c, 't>,
        def: &OpDef,
        types: &[Type<'c>],
        ctrl: usize,
    ) -> Option<Option<Vec<i32>>> {
        let total = types.len() + p.unconnected.len();
        let mut values = types.iter();
        let by_slot: Vec<Option<Type<'c>>> = (0..total)
            .map(|k| {
                if p.unconnected.iter().any(|&(u, _)| u == k) {
                    None
                } else {
                    values.next().copied()
                }
            })
            .collect();
        match slots::slot_segments(def, &by_slot) {
            Ok(sizes) => {
                let mut sizes: Vec<i32> = sizes.into_iter().map(|s| s as i32).collect();
                sizes.push(ctrl as i32);
                Some(Some(sizes))
            }
            Err((at, message)) => {
                let data_inputs: Vec<&Input> = n
                    .inputs
                    .iter()
                    .filter(|x| !matches!(x, Input::Control { .. }))
                    .collect();
                let span = at
                    .and_then(|k| data_inputs.get(k))
                    .map_or(n.op_type.span, |x| x.span());
                self.diags.push(Diagnostic::new(
                    format!("bad inputs for `{}`: {message}", n.name.text),
                    span,
                    "this slot",
                ));
                None
            }
        }
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
}

/// The index attribute's span, else the node name's.
fn index_span(n: &ast::Node) -> Span {
    n.attrs
        .iter()
        .find(|a| a.key.text == "index")
        .map_or(n.name.span, |a| a.value.span)
}
