//! A petgraph view of one function (one GE graph), and the module's subgraph tree.
//!
//! Nodes are added in program order: one per function argument, one per op of the body,
//! `func.return` (GE's NetOutput) last among the ops. So a node's index *is* its position
//! in a topological order (SSA program order is topological), and analyses can number by
//! `NodeIndex::index()` without sorting. The view is a snapshot: rebuild it after
//! rewriting.

use super::{
    error::IrError,
    ops::{is_ctrl, producer, str_attr, OpKey, Producer},
    prim,
};
use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike, FlatSymbolRefAttribute},
    block::BlockLike,
    operation::OperationLike,
    Attribute, BlockRef, Module, OperationRef, RegionLike,
};
use petgraph::{
    graph::{DiGraph, NodeIndex},
    Direction,
};
use std::collections::{BinaryHeap, HashMap};

/// What a node of the view stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Function argument `index` (a GE graph input, read by one `ascend.data`).
    Arg(usize),
    /// An op of the body.
    Op,
    /// `func.return`: GE's NetOutput.
    Return,
}

/// A node of the view.
#[derive(Clone, Copy, Debug)]
pub struct GraphNode<'c, 'a> {
    pub kind: NodeKind,
    /// The op (`None` for arguments).
    pub op: Option<OperationRef<'c, 'a>>,
}

/// An edge of the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// Producer output `out_port` -> consumer data input `in_port`.
    Data { out_port: u32, in_port: u32 },
    /// A control edge (the target consumes the source's control token).
    Ctrl,
}

/// The petgraph view of one `func.func`.
pub struct FuncGraph<'c, 'a> {
    func: OperationRef<'c, 'a>,
    name: String,
    graph: DiGraph<GraphNode<'c, 'a>, EdgeKind>,
    by_op: HashMap<OpKey, NodeIndex>,
    num_args: usize,
    ret: Option<NodeIndex>,
}

impl<'c, 'a> FuncGraph<'c, 'a> {
    /// Builds the view of `func` (a `func.func`; a declaration gives an empty view).
    pub fn build(func: OperationRef<'c, 'a>) -> Result<Self, IrError> {
        if func.name().as_string_ref().as_str() != Ok("func.func") {
            return Err(IrError::Structure(format!(
                "expected a func.func, got `{}`",
                func.name().as_string_ref().as_str().unwrap_or("?")
            )));
        }
        let name = str_attr(func, "sym_name").unwrap_or("").to_string();
        let mut view = FuncGraph {
            func,
            name,
            graph: DiGraph::new(),
            by_op: HashMap::new(),
            num_args: 0,
            ret: None,
        };
        let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
            return Ok(view);
        };
        let ops = prim::block_ops(block);
        view.num_args = block.argument_count();
        view.graph.reserve_nodes(view.num_args + ops.len());
        for index in 0..view.num_args {
            view.graph.add_node(GraphNode {
                kind: NodeKind::Arg(index),
                op: None,
            });
        }
        for op in &ops {
            let is_return = op.name().as_string_ref().as_str() == Ok("func.return");
            let kind = if is_return {
                NodeKind::Return
            } else {
                NodeKind::Op
            };
            let n = view.graph.add_node(GraphNode {
                kind,
                op: Some(*op),
            });
            view.by_op.insert(OpKey::of(*op), n);
            if is_return {
                view.ret = Some(n);
            }
        }
        for op in &ops {
            let to = view.by_op[&OpKey::of(*op)];
            for (in_port, value) in op.operands().enumerate() {
                let (from, out_port) = match producer(value) {
                    Producer::Arg { index } if index < view.num_args => (NodeIndex::new(index), 0),
                    Producer::Op { op: p, result } => match view.by_op.get(&OpKey::of(p)) {
                        Some(&n) => (n, result),
                        None => continue, // defined outside this body
                    },
                    Producer::Arg { .. } => continue,
                };
                let kind = if is_ctrl(value) {
                    EdgeKind::Ctrl
                } else {
                    EdgeKind::Data {
                        out_port: out_port as u32,
                        in_port: in_port as u32,
                    }
                };
                view.graph.add_edge(from, to, kind);
            }
        }
        Ok(view)
    }

    /// The petgraph graph (for petgraph algorithms and [`Reachability`](crate::analysis::reachability::Reachability)).
    pub fn graph(&self) -> &DiGraph<GraphNode<'c, 'a>, EdgeKind> {
        &self.graph
    }

    pub fn func(&self) -> OperationRef<'c, 'a> {
        self.func
    }

    /// The function's symbol name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// The node of `op`, if it is a top-level op of this body.
    pub fn node(&self, op: OperationRef) -> Option<NodeIndex> {
        self.by_op.get(&OpKey::of(op)).copied()
    }

    /// The op of node `n` (`None` for arguments).
    pub fn op(&self, n: NodeIndex) -> Option<OperationRef<'c, 'a>> {
        self.graph.node_weight(n).and_then(|w| w.op)
    }

    pub fn kind(&self, n: NodeIndex) -> Option<NodeKind> {
        self.graph.node_weight(n).map(|w| w.kind)
    }

    /// The node of function argument `index`.
    pub fn arg(&self, index: usize) -> Option<NodeIndex> {
        (index < self.num_args).then(|| NodeIndex::new(index))
    }

    /// The NetOutput node.
    pub fn return_node(&self) -> Option<NodeIndex> {
        self.ret
    }

    /// Program order, which is a topological order: node indices ascending.
    pub fn program_order(&self) -> impl Iterator<Item = NodeIndex> {
        (0..self.graph.node_count()).map(NodeIndex::new)
    }

    /// Data predecessors of `n` as (in_port, source, out_port), by in_port.
    pub fn data_inputs(&self, n: NodeIndex) -> Vec<(u32, NodeIndex, u32)> {
        let mut out: Vec<_> = self
            .graph
            .edges_directed(n, Direction::Incoming)
            .filter_map(|e| match *e.weight() {
                EdgeKind::Data { out_port, in_port } => {
                    Some((in_port, petgraph::visit::EdgeRef::source(&e), out_port))
                }
                EdgeKind::Ctrl => None,
            })
            .collect();
        out.sort_unstable_by_key(|(in_port, ..)| *in_port);
        out
    }

    /// Control predecessors of `n`, by index.
    pub fn ctrl_inputs(&self, n: NodeIndex) -> Vec<NodeIndex> {
        let mut out: Vec<_> = self
            .graph
            .edges_directed(n, Direction::Incoming)
            .filter(|e| *e.weight() == EdgeKind::Ctrl)
            .map(|e| petgraph::visit::EdgeRef::source(&e))
            .collect();
        out.sort_unstable();
        out
    }
}

/// Kahn's topological order of any directed graph, lowest index first among the ready
/// nodes (so on a program-ordered view it returns program order). `None` on a cycle.
pub fn kahn_order<N, E>(graph: &DiGraph<N, E>) -> Option<Vec<NodeIndex>> {
    let n = graph.node_count();
    let mut indegree: Vec<usize> = vec![0; n];
    for e in graph.raw_edges() {
        indegree[e.target().index()] += 1;
    }
    let mut ready: BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&i| indegree[i] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(NodeIndex::new(i));
        for succ in graph.neighbors_directed(NodeIndex::new(i), Direction::Outgoing) {
            indegree[succ.index()] -= 1;
            if indegree[succ.index()] == 0 {
                ready.push(std::cmp::Reverse(succ.index()));
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// GE's subgraph attributes, in GE's subgraph order (If: then, else; While: cond, body;
/// Case: branches; PartitionedCall: f). MLIR sorts attributes by name, which would put
/// `else_branch` first, so the order comes from here. Other symbol attributes naming a
/// function follow, by name.
/// TODO(table): read this from the op table's subgraph column once it has one.
const SUBGRAPH_ATTRS: &[&str] = &[
    "then_branch",
    "else_branch",
    "cond",
    "body",
    "branches",
    "f",
];

/// One subgraph reference of an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgraphRef {
    /// The attribute (`then_branch`, `branches`, ...).
    pub attr: String,
    /// Position inside an array attribute (`branches`), 0 otherwise.
    pub position: usize,
    /// The referenced function.
    pub symbol: String,
}

/// The symbols an attribute names: a flat symbol ref, or an array of them.
///
/// Kinds are tested with `is_*` before converting: melior's failing `try_from` prints the
/// whole attribute into its error, which for a `dense<...>` value costs more than the rest
/// of the walk.
fn symbols_in(attr: Attribute) -> Vec<String> {
    if attr.is_flat_symbol_ref() {
        if let Ok(sym) = FlatSymbolRefAttribute::try_from(attr) {
            return super::symbol_value(sym)
                .map(str::to_string)
                .into_iter()
                .collect();
        }
    }
    if !attr.is_array() {
        return Vec::new();
    }
    if let Ok(array) = ArrayAttribute::try_from(attr) {
        // Lists of numbers (offsets, memory types) are common and name no symbol: look at
        // the first element before collecting anything.
        if !array.element(0).is_ok_and(|a| a.is_flat_symbol_ref()) {
            return Vec::new();
        }
        let all: Vec<String> = (0..array.len())
            .filter_map(|i| array.element(i).ok())
            .filter(|a| a.is_flat_symbol_ref())
            .filter_map(|a| FlatSymbolRefAttribute::try_from(a).ok())
            .filter_map(|s| super::symbol_value(s).map(str::to_string))
            .collect();
        if all.len() == array.len() {
            return all;
        }
    }
    Vec::new()
}

/// The subgraphs `op` references: symbol attributes naming a function for which
/// `is_function` holds, in GE's subgraph order.
pub fn subgraph_refs(op: OperationRef, is_function: impl Fn(&str) -> bool) -> Vec<SubgraphRef> {
    let mut named: Vec<(usize, String, Vec<String>)> = op
        .attributes()
        .filter_map(|(name, attr)| {
            // Symbols first: most attributes name none, and this runs for every op.
            let symbols = symbols_in(attr);
            if symbols.is_empty() {
                return None;
            }
            let name = name.as_string_ref().as_str().ok()?.to_string();
            symbols.iter().all(|s| is_function(s)).then(|| {
                let rank = SUBGRAPH_ATTRS
                    .iter()
                    .position(|a| *a == name)
                    .unwrap_or(SUBGRAPH_ATTRS.len());
                (rank, name, symbols)
            })
        })
        .collect();
    named.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    named
        .into_iter()
        .flat_map(|(_, attr, symbols)| {
            symbols
                .into_iter()
                .enumerate()
                .map(move |(position, symbol)| SubgraphRef {
                    attr: attr.clone(),
                    position,
                    symbol,
                })
        })
        .collect()
}

/// Where a subgraph hangs: its parent graph, the op referencing it, and the reference.
#[derive(Clone, Debug)]
pub struct ParentLink<'c, 'a> {
    /// Index of the parent graph in the tree.
    pub graph: usize,
    pub op: OperationRef<'c, 'a>,
    pub attr: String,
    pub position: usize,
}

/// One graph of the tree.
#[derive(Clone, Debug)]
pub struct SubgraphEntry<'c, 'a> {
    pub name: String,
    pub func: OperationRef<'c, 'a>,
    pub parent: Option<ParentLink<'c, 'a>>,
    /// Child graphs, in parent-op program order then GE subgraph order.
    pub children: Vec<usize>,
    /// 0 for the root.
    pub depth: usize,
}

/// The module's graphs as GE sees them: the root graph and its subgraphs, each with the
/// parent op that owns it. Index 0 is the root.
pub struct SubgraphTree<'c, 'a> {
    entries: Vec<SubgraphEntry<'c, 'a>>,
    by_name: HashMap<String, usize>,
    unreferenced: Vec<String>,
}

impl<'c, 'a> SubgraphTree<'c, 'a> {
    /// Builds the tree below the function `root` (usually `main`). A function referenced
    /// twice (two parents, or a cycle) is an error: a GE subgraph has exactly one parent.
    pub fn build(module: &'a Module<'c>, root: &str) -> Result<Self, IrError> {
        Self::build_in(module.body(), root).map_err(|(e, _)| e)
    }

    /// [`SubgraphTree::build`] for a module given as its operation (what a pass holds).
    /// A [`IrError::MissingRoot`] is best located at [`missing_root`]'s op.
    pub fn build_from_op(module: OperationRef<'c, 'a>, root: &str) -> Result<Self, IrError> {
        Self::build_from_op_at(module, root).map_err(|(e, _)| e)
    }

    /// [`SubgraphTree::build_from_op`], with the op that references a subgraph it may not
    /// (a second parent, the root graph) next to the error, to locate it there.
    pub fn build_from_op_at(
        module: OperationRef<'c, 'a>,
        root: &str,
    ) -> Result<Self, (IrError, Option<OperationRef<'c, 'a>>)> {
        let body = module
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| {
                (
                    IrError::Structure("the module has no body".to_string()),
                    None,
                )
            })?;
        Self::build_in(body, root)
    }

    /// Builds the tree over the functions of the module body `body`.
    fn build_in(
        body: BlockRef<'c, 'a>,
        root: &str,
    ) -> Result<Self, (IrError, Option<OperationRef<'c, 'a>>)> {
        // Keyed by MLIR's own copy of each name (no copy per function of a module that
        // may have a hundred thousand).
        let ops = prim::block_ops(body);
        let mut funcs: HashMap<&'c str, OperationRef<'c, 'a>> = HashMap::with_capacity(ops.len());
        for op in ops {
            if op.name().as_string_ref().as_str() == Ok("func.func") {
                if let Some(name) = str_attr(op, "sym_name") {
                    funcs.insert(name, op);
                }
            }
        }
        let root_func = *funcs
            .get(root)
            .ok_or_else(|| (IrError::MissingRoot(missing_root(body, root).1), None))?;
        let mut tree = SubgraphTree {
            entries: vec![SubgraphEntry {
                name: root.to_string(),
                func: root_func,
                parent: None,
                children: Vec::new(),
                depth: 0,
            }],
            by_name: HashMap::with_capacity(funcs.len()),
            unreferenced: Vec::new(),
        };
        tree.by_name.insert(root.to_string(), 0);
        let mut next = 0;
        while next < tree.entries.len() {
            let (func, depth) = (tree.entries[next].func, tree.entries[next].depth);
            let body = func.region(0).ok().and_then(|r| r.first_block());
            for op in body.map(prim::block_ops).unwrap_or_default() {
                for r in subgraph_refs(op, |s| funcs.contains_key(s)) {
                    if let Some(&seen) = tree.by_name.get(&r.symbol) {
                        let user = super::ops::display_name(op);
                        let error = IrError::Structure(match &tree.entries[seen].parent {
                            Some(p) => format!(
                                "subgraph @{} is referenced by `{}` and by `{user}`; a GE \
                                 subgraph has one parent",
                                r.symbol,
                                super::ops::display_name(p.op)
                            ),
                            None => format!(
                                "@{} is the root graph and cannot be a subgraph of `{user}`",
                                r.symbol
                            ),
                        });
                        return Err((error, Some(op)));
                    }
                    let child = tree.entries.len();
                    tree.by_name.insert(r.symbol.clone(), child);
                    tree.entries.push(SubgraphEntry {
                        name: r.symbol.clone(),
                        func: funcs[r.symbol.as_str()],
                        parent: Some(ParentLink {
                            graph: next,
                            op,
                            attr: r.attr,
                            position: r.position,
                        }),
                        children: Vec::new(),
                        depth: depth + 1,
                    });
                    tree.entries[next].children.push(child);
                }
            }
            next += 1;
        }
        let mut unreferenced: Vec<String> = funcs
            .keys()
            .filter(|name| !tree.by_name.contains_key(**name))
            .map(|name| name.to_string())
            .collect();
        unreferenced.sort();
        tree.unreferenced = unreferenced;
        Ok(tree)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&SubgraphEntry<'c, 'a>> {
        self.entries.get(index)
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Children before their parent, siblings in subgraph order (post-order): the order to
    /// process subgraphs so inner results are known when the parent is handled.
    pub fn innermost_first(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.entries.len());
        // Iterative post-order: (node, next child to visit).
        let mut stack = vec![(0usize, 0usize)];
        while let Some((node, child)) = stack.pop() {
            if let Some(&c) = self.entries[node].children.get(child) {
                stack.push((node, child + 1));
                stack.push((c, 0));
            } else {
                order.push(node);
            }
        }
        order
    }

    /// Parents before their children (pre-order), siblings in subgraph order.
    pub fn outermost_first(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.entries.len());
        let mut stack = vec![0usize];
        while let Some(node) = stack.pop() {
            order.push(node);
            stack.extend(self.entries[node].children.iter().rev());
        }
        order
    }

    /// Functions of the module that are neither the root nor one of its subgraphs, by name.
    pub fn unreferenced(&self) -> &[String] {
        &self.unreferenced
    }
}

/// What to say when the module whose body is `body` has no function `@root`: the op to
/// point at, its first function (a module without an explicit `module {` line sits at line 0
/// of the file, which shows the user nothing) or `None` when it has none, and the message,
/// naming the functions it does have.
pub fn missing_root<'c, 'a>(
    body: BlockRef<'c, 'a>,
    root: &str,
) -> (Option<OperationRef<'c, 'a>>, String) {
    const SHOWN: usize = 5;
    let funcs: Vec<OperationRef<'c, 'a>> = prim::block_ops(body)
        .into_iter()
        .filter(|op| op.name().as_string_ref().as_str() == Ok("func.func"))
        .collect();
    let mut names: Vec<String> = funcs
        .iter()
        .take(SHOWN)
        .map(|f| format!("@{}", str_attr(*f, "sym_name").unwrap_or("?")))
        .collect();
    if funcs.len() > SHOWN {
        names.push(format!("and {} more", funcs.len() - SHOWN));
    }
    let has = if names.is_empty() {
        "it has no function".to_string()
    } else {
        format!("it has {}", names.join(", "))
    };
    (
        funcs.first().copied(),
        format!("no function @{root} in the module, the root graph ({has})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        dialect::new_context,
        ir::{
            ops::node_name,
            test_util::{func, op, parse, segment_attrs},
        },
    };

    fn branch(name: &str, inner: &str) -> String {
        format!(
            r#"
func.func private @{name}(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %d:2 = "ascend.data"(%a) {{name = "{name}_d"}} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  {inner}
  return %d#0 : tensor<4xf32>
}}"#
        )
    }

    /// An `ascend.if` on a `tensor<i1>` condition with one `tensor<4xf32>` input and result.
    fn if_op(name: &str, then: &str, els: &str, cond: &str, input: &str) -> String {
        let segments = segment_attrs(
            "ascend.if",
            &["tensor<i1>", "tensor<4xf32>"],
            0,
            &["tensor<4xf32>"],
        );
        format!(
            r#"%{name}:2 = "ascend.if"({cond}, {input}) {{name = "{name}", then_branch = @{then}, else_branch = @{els}{segments}}} : (tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)"#
        )
    }

    fn module_text(else_inner: &str) -> String {
        let inner_if = format!(
            r#"%k = "arith.constant"() {{value = dense<true> : tensor<i1>}} : () -> tensor<i1>
  {}"#,
            if_op("inner", "tt", "te", "%k", "%d#0")
        );
        let if1_segments = segment_attrs(
            "ascend.if",
            &["tensor<i1>", "tensor<4xf32>"],
            1,
            &["tensor<4xf32>"],
        );
        let g_segments = segment_attrs("ascend.op", &["tensor<4xf32>"], 0, &["tensor<4xf32>"]);
        [
            format!(
                r#"
func.func @main(%arg0: tensor<i1>, %arg1: tensor<4xf32>) -> tensor<4xf32> {{
  %c:2 = "ascend.data"(%arg0) {{name = "c"}} : (tensor<i1>) -> (tensor<i1>, !ascend.ctrl)
  %x:2 = "ascend.data"(%arg1) {{name = "x"}} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %r:2 = "ascend.if"(%c#0, %x#0, %x#1) {{name = "if1", then_branch = @then1, else_branch = @else1{if1_segments}}} : (tensor<i1>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  %g:2 = "ascend.op"(%r#0) {{name = "g", type = "PartitionedCall", f = @pc{g_segments}}} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %g#0 : tensor<4xf32>
}}"#
            ),
            branch("then1", &inner_if),
            branch("else1", else_inner),
            branch("tt", ""),
            branch("te", ""),
            branch("pc", ""),
            branch("orphan", ""),
        ]
        .concat()
    }

    #[test]
    fn view_has_args_ops_return_and_kinded_edges() {
        let context = new_context();
        let module = parse(&context, &module_text(""));
        let view = FuncGraph::build(func(&module, "main")).unwrap();
        assert_eq!(view.name(), "main");
        assert_eq!(view.node_count(), 7);
        let kinds: Vec<NodeKind> = view
            .program_order()
            .map(|n| view.kind(n).unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                NodeKind::Arg(0),
                NodeKind::Arg(1),
                NodeKind::Op,
                NodeKind::Op,
                NodeKind::Op,
                NodeKind::Op,
                NodeKind::Return
            ]
        );
        let if1 = view.node(op(&module, "if1")).unwrap();
        let (c, x) = (
            view.node(op(&module, "c")).unwrap(),
            view.node(op(&module, "x")).unwrap(),
        );
        assert_eq!(view.data_inputs(if1), [(0, c, 0), (1, x, 0)]);
        assert_eq!(view.ctrl_inputs(if1), [x]);
        assert_eq!(view.data_inputs(c), [(0, view.arg(0).unwrap(), 0)]);
        let ret = view.return_node().unwrap();
        assert_eq!(
            view.data_inputs(ret),
            [(0, view.node(op(&module, "g")).unwrap(), 0)]
        );
        assert_eq!(
            view.op(ret)
                .map(|o| o.name().as_string_ref().as_str().unwrap().to_string()),
            Some("func.return".into())
        );
        assert_eq!(view.graph().edge_count(), 7);
        let kahn = kahn_order(view.graph()).unwrap();
        assert_eq!(kahn, view.program_order().collect::<Vec<_>>());
        assert!(FuncGraph::build(op(&module, "x")).is_err());
    }

    #[test]
    fn the_view_feeds_the_reachability_index() {
        use crate::analysis::reachability::Reachability;
        let context = new_context();
        let module = parse(&context, &module_text(""));
        let view = FuncGraph::build(func(&module, "main")).unwrap();
        let reach = Reachability::new(view.graph()).unwrap();
        let node = |name| view.node(op(&module, name)).unwrap();
        assert!(reach.reaches(node("x"), node("g")));
        assert!(reach.reaches(view.arg(0).unwrap(), view.return_node().unwrap()));
        assert!(!reach.ordered(node("c"), node("x")));
        assert!(reach.ordered(node("g"), node("c")));
    }

    #[test]
    fn kahn_detects_cycles() {
        let mut g: DiGraph<(), ()> = DiGraph::new();
        let (a, b, c) = (g.add_node(()), g.add_node(()), g.add_node(()));
        g.add_edge(a, b, ());
        g.add_edge(c, a, ());
        assert_eq!(kahn_order(&g), Some(vec![c, a, b]));
        g.add_edge(b, c, ());
        assert_eq!(kahn_order(&g), None);
    }

    #[test]
    fn subgraph_refs_follow_ge_order() {
        let context = new_context();
        let module = parse(&context, &module_text(""));
        let refs = subgraph_refs(op(&module, "if1"), |_| true);
        let names: Vec<(&str, &str)> = refs
            .iter()
            .map(|r| (r.attr.as_str(), r.symbol.as_str()))
            .collect();
        assert_eq!(names, [("then_branch", "then1"), ("else_branch", "else1")]);
        assert!(subgraph_refs(op(&module, "if1"), |s| s != "else1").len() == 1);
        let g = subgraph_refs(op(&module, "g"), |_| true);
        assert_eq!(
            g,
            [SubgraphRef {
                attr: "f".into(),
                position: 0,
                symbol: "pc".into()
            }]
        );
        assert!(subgraph_refs(op(&module, "x"), |_| true).is_empty());
    }

    #[test]
    fn subgraph_tree_orders_innermost_first() {
        let context = new_context();
        let module = parse(&context, &module_text(""));
        let tree = SubgraphTree::build(&module, "main").unwrap();
        let names = |order: Vec<usize>| -> Vec<String> {
            order
                .into_iter()
                .map(|i| tree.get(i).unwrap().name.clone())
                .collect()
        };
        assert_eq!(
            names(tree.innermost_first()),
            ["tt", "te", "then1", "else1", "pc", "main"]
        );
        assert_eq!(
            names(tree.outermost_first()),
            ["main", "then1", "tt", "te", "else1", "pc"]
        );
        assert_eq!(tree.unreferenced(), ["orphan"]);
        let tt = tree.get(tree.index_of("tt").unwrap()).unwrap();
        let link = tt.parent.as_ref().unwrap();
        assert_eq!(node_name(link.op), Some("inner"));
        assert_eq!(tree.get(link.graph).unwrap().name, "then1");
        assert_eq!(
            (link.attr.as_str(), link.position, tt.depth),
            ("then_branch", 0, 2)
        );
        assert!(tree.get(0).unwrap().parent.is_none());
        assert!(SubgraphTree::build(&module, "nope").is_err());
    }

    #[test]
    fn a_subgraph_with_two_parents_is_an_error() {
        let context = new_context();
        let second_parent = format!(
            r#"%k = "arith.constant"() {{value = dense<true> : tensor<i1>}} : () -> tensor<i1>
  {}"#,
            if_op("again", "tt", "orphan", "%k", "%d#0")
        );
        let module = parse(&context, &module_text(&second_parent));
        let error = SubgraphTree::build(&module, "main")
            .err()
            .expect("two parents");
        assert!(error.to_string().contains("@tt"), "{error}");
    }
}
