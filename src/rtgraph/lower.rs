//! `--lower-to-rt`: a compiled `ascend` module → the runtime v2 execute graph, as gert's
//! lowering builds it for the parts the runtime passes need:
//! * root `Data` → `data` (user memory), `Const`/`Variable` → `const` (model memory): no
//!   guarder;
//! * every other op → a kernel `node` of its GE type, and one `FreeMemory` guarder per
//!   output it allocates (not for `Phony*` / `Reshape`, whose outputs are an input's
//!   memory);
//! * `If` / `Case` → `cond` over branch frames: each branch function's `Data` becomes
//!   `inner_data` (marked `guarder_outside` when the parent guards the input it stands
//!   for), its return `inner_netoutput`; the root's return is `netoutput`, reading one
//!   `EnsureTensorAtOutMemory` kernel per output (the copy to the caller's memory, as
//!   gert lowers a root `NetOutput`);
//! * placement: a node's `_placement` attribute (`host`, `hbm`, `p2p`) when it has one,
//!   else `host` for shape computations (`Shape`, `Rank`, `Size`: GE computes them on the
//!   host) and `hbm` for the rest; model inputs and weights are `hbm`. The `cond`'s
//!   predicate is read on the host (the placement pass copies it there). A branch's
//!   `inner_data` gets the placement of the cond input it stands for (when the parent
//!   knows it), so the placement pass can give a branch kernel its copy.
//!
//! * control edges of the compute graph → the node's `after` (gert keeps them as
//!   execute-graph dependencies); a `func.return`'s are dropped, as a frame ends only
//!   after all its nodes ran.
//!
//! * `PartitionedCall` → its callee's nodes in the caller's graph (gert's
//!   `LoweringPartitionedCall`): the callee's `Data` are the call's inputs, its return's
//!   inputs the call's results; the nodes keep their names (one the caller has already is an
//!   error at the call); a control edge into the call orders every inlined node, one from
//!   the call waits for all of them.
//!
//! `While` stays a kernel (its frames are not modelled here).

use super::analysis::placement::placement_of;
use super::model::{Endpoint, Graph, Kind, Module, NodeId, Placement};
use crate::{
    dialect::table::{op_table, OpDef, Trait},
    ir::{ops, LocatedError},
};
use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike, FlatSymbolRefAttribute},
    operation::OperationLike,
    BlockLike, BlockRef, OperationRef, RegionLike,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The attribute that places an op's outputs (ours; GE derives it from the engine).
pub const PLACEMENT_ATTR: &str = "_placement";

/// Where a kernel op runs: its `_placement` (`host`, `hbm`, `p2p`) when it has one, else
/// `host` for shape computations (GE computes `Shape`, `Rank`, `Size` on the host) and
/// `hbm` for the rest. `Err`: a `_placement` that is none of the three (the message).
/// Shared with `--lower-to-tasks`, which marks host kernels for `ge-run`.
pub fn kernel_placement(op: OperationRef) -> Result<Placement, String> {
    match ops::str_attr(op, PLACEMENT_ATTR) {
        Some(text) => Placement::parse(text)
            .ok_or_else(|| format!("{PLACEMENT_ATTR} `{text}` is not host, hbm or p2p")),
        None if has(def_of(op), Trait::ShapeOnly) => Ok(Placement::Host),
        None => Ok(Placement::Hbm),
    }
}

/// The kernel that hands a root output to the caller's output tensor (gert's
/// `LoweringNetOutput`, `engine/gelocal/netoutput_converter.cc`).
pub const ENSURE_AT_OUT_MEMORY: &str = "EnsureTensorAtOutMemory";

/// One `EnsureTensorAtOutMemory` per root output, as gert lowers the root `NetOutput`:
/// the kernel copies the tensor into the caller's output memory, so it is the tensor's
/// last reader (its guarder waits for it; gert orders no guarder after a `NetOutput`),
/// and the `netoutput` reads the copies, which are the caller's memory and have no
/// guarder. Placed at `hbm`, where gert's `NetOutput` takes its inputs, so the placement
/// pass gives it its copies as it gave the `netoutput`.
fn ensure_at_out_memory(graph: &mut Graph, outputs: Vec<Endpoint>) -> Vec<Endpoint> {
    outputs
        .into_iter()
        .enumerate()
        .map(|(k, e)| {
            let id = graph.push(
                Kind::Kernel {
                    op_type: ENSURE_AT_OUT_MEMORY.into(),
                },
                format!("{ENSURE_AT_OUT_MEMORY}_{k}"),
                vec![e],
                1,
            );
            graph.node_mut(id).expect("pushed").placement = Some(Placement::Hbm);
            Endpoint {
                node: id,
                output: 0,
            }
        })
        .collect()
}

/// Lowers the module whose root function is `root` (or its only public function).
pub fn lower_module<'c>(
    module: OperationRef<'c, '_>,
    root: &str,
) -> Result<Module, Vec<LocatedError<'c>>> {
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return Err(vec![LocatedError::at(
            module,
            "lower-to-rt: the module has no body",
        )]);
    };
    let mut funcs: BTreeMap<String, OperationRef<'c, '_>> = BTreeMap::new();
    let mut public = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() == Ok("func.func") {
            let name = ops::str_attr(op, "sym_name").unwrap_or("").to_string();
            if ops::str_attr(op, "sym_visibility") != Some("private") {
                public.push(name.clone());
            }
            funcs.insert(name, op);
        }
    }
    let root_name = if funcs.contains_key(root) {
        root.to_string()
    } else if public.len() == 1 {
        public[0].clone()
    } else {
        return Err(vec![LocatedError::at(
            module,
            format!(
                "lower-to-rt: no function `{root}` and {} public functions to choose from",
                public.len()
            ),
        )]);
    };
    let mut lowered = Module::default();
    let mut errors = Vec::new();
    // (function, what the cond that uses it as a branch knows of its inputs)
    let mut queue: Vec<(String, bool, ParentInputs)> =
        vec![(root_name, true, ParentInputs::default())];
    let mut seen = HashSet::new();
    while let Some((name, root, parent)) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(&func) = funcs.get(&name) else {
            errors.push(LocatedError::at(
                module,
                format!("lower-to-rt: no function `{name}` (a branch of some If/Case)"),
            ));
            continue;
        };
        match lower_graph(&funcs, func, &name, root, &parent) {
            Ok((graph, branches)) => {
                lowered.graphs.push(graph);
                queue.extend(branches.into_iter().map(|(b, g)| (b, false, g)));
            }
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(lowered)
    } else {
        Err(errors)
    }
}

fn def_of(op: OperationRef) -> Option<&'static OpDef> {
    let def = ops::op_def(op)?;
    if def.is_generic() {
        return ops::ge_type(op).and_then(|t| op_table().by_ge_type(t));
    }
    Some(def)
}

fn has(def: Option<&OpDef>, t: Trait) -> bool {
    def.is_some_and(|d| d.has_trait(t))
}

/// The branch functions of a conditional, in GE's subgraph order.
fn branches_of(op: OperationRef, def: &OpDef) -> Vec<String> {
    let mut out = Vec::new();
    for attr_name in def.subgraph_attr_names() {
        let Ok(attr) = op.attribute(attr_name) else {
            continue;
        };
        let mut push = |a: melior::ir::Attribute| {
            if a.is_flat_symbol_ref() {
                if let Some(s) = FlatSymbolRefAttribute::try_from(a)
                    .ok()
                    .and_then(ops::symbol_value)
                {
                    out.push(s.to_string());
                }
            }
        };
        if attr.is_array() {
            if let Ok(list) = ArrayAttribute::try_from(attr) {
                for i in 0..list.len() {
                    if let Ok(e) = list.element(i) {
                        push(e);
                    }
                }
            }
        } else {
            push(attr);
        }
    }
    out
}

/// What a branch frame's `inner_data` k learns from input k + 1 of the cond that runs it:
/// whether the parent guards it, and where it is (as gert's lowering hands a branch the
/// parent's lowering results, so a kernel in the branch gets its placement copy).
#[derive(Debug, Clone, Default)]
struct ParentInputs {
    guarded: HashSet<i64>,
    placement: HashMap<i64, Placement>,
}

type Lowered = (Graph, Vec<(String, ParentInputs)>);

fn lower_graph<'c, 'a>(
    funcs: &BTreeMap<String, OperationRef<'c, 'a>>,
    func: OperationRef<'c, 'a>,
    name: &str,
    root: bool,
    parent: &ParentInputs,
) -> Result<Lowered, Vec<LocatedError<'c>>> {
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return Err(vec![LocatedError::at(
            func,
            "lower-to-rt: a function without a body",
        )]);
    };
    let mut cx = GraphCx {
        funcs,
        graph: Graph::new(name, root),
        errors: Vec::new(),
        branches: Vec::new(),
        ids: HashMap::new(),
        aliases: HashMap::new(),
        inlined: HashMap::new(),
        guarded: HashSet::new(),
        root,
        parent,
    };
    lower_block(&mut cx, block, None);
    if cx.errors.is_empty() {
        Ok((cx.graph, cx.branches))
    } else {
        Err(cx.errors)
    }
}

/// PartitionedCalls nest no deeper than this when inlined (a callee that calls itself).
const MAX_INLINE_DEPTH: usize = 64;

/// A PartitionedCall being inlined: the callee's `Data {index = k}` is `args[k]`.
struct Inline {
    args: Vec<Endpoint>,
    depth: usize,
}

/// One graph being lowered.
struct GraphCx<'c, 'a, 'f> {
    funcs: &'f BTreeMap<String, OperationRef<'c, 'a>>,
    graph: Graph,
    errors: Vec<LocatedError<'c>>,
    branches: Vec<(String, ParentInputs)>,
    ids: HashMap<ops::OpKey, NodeId>,
    /// Results that are another node's output: an inlined call's results and its
    /// callee's Data.
    aliases: HashMap<(ops::OpKey, u32), Endpoint>,
    /// Per inlined call, the named nodes its body became.
    inlined: HashMap<ops::OpKey, Vec<NodeId>>,
    /// out-anchors with a guarder in this graph
    guarded: HashSet<Endpoint>,
    root: bool,
    parent: &'f ParentInputs,
}

impl<'c, 'a> GraphCx<'c, 'a, '_> {
    /// The execute-graph value of result `result` of `from`.
    fn endpoint(&self, from: OperationRef<'c, 'a>, result: usize) -> Option<Endpoint> {
        let key = ops::OpKey::of(from);
        if let Some(&e) = self.aliases.get(&(key, result as u32)) {
            return Some(e);
        }
        self.ids.get(&key).map(|&node| Endpoint {
            node,
            output: result as u32,
        })
    }

    /// The nodes `op`'s in-control edges name: a lowered op's node, or every node of an
    /// inlined call (the call is done when they are).
    fn control_edges(&mut self, op: OperationRef<'c, 'a>) -> Vec<NodeId> {
        let mut after = Vec::new();
        for pred in ops::ctrl_predecessors(op) {
            let key = ops::OpKey::of(pred);
            if let Some(nodes) = self.inlined.get(&key) {
                after.extend(nodes.iter().copied());
                continue;
            }
            match self.ids.get(&key) {
                Some(&p) if self.graph.node(p).is_some_and(|n| !n.name.is_empty()) => after.push(p),
                Some(_) => self.errors.push(LocatedError::at(
                    op,
                    "lower-to-rt: a control edge from an op without a name (the execute \
                     graph names the nodes a node runs after)",
                )),
                None => self.errors.push(LocatedError::at(
                    op,
                    "lower-to-rt: a control edge from an op that was not lowered",
                )),
            }
        }
        after.sort_unstable();
        after.dedup();
        after
    }

    /// gert's LoweringPartitionedCall: the callee's nodes are lowered into this graph, its
    /// Data are the call's inputs and its return's inputs the call's results. Its nodes
    /// keep their names, so a name the graph has already is an error at the call.
    fn inline_call(
        &mut self,
        call: OperationRef<'c, 'a>,
        def: Option<&OpDef>,
        name: &str,
        args: Vec<Endpoint>,
        depth: usize,
    ) {
        let at = |m: String| {
            LocatedError::at(call, format!("lower-to-rt: PartitionedCall `{name}` {m}"))
        };
        let callee = def.map(|d| branches_of(call, d)).unwrap_or_default();
        let Some(body) = callee
            .first()
            .and_then(|f| self.funcs.get(f))
            .and_then(|f| f.region(0).ok())
            .and_then(|r| r.first_block())
        else {
            self.errors.push(at(format!(
                "calls {callee:?}, which is no function with a body"
            )));
            return;
        };
        if depth >= MAX_INLINE_DEPTH {
            self.errors.push(at(format!(
                "nests calls deeper than {MAX_INLINE_DEPTH} (a function that calls itself?)"
            )));
            return;
        }
        let names: HashSet<String> = self.graph.nodes.iter().map(|n| n.name.clone()).collect();
        let first = self.graph.nodes.len();
        let before = self.control_edges(call);
        let results = lower_block(self, body, Some(&Inline { args, depth }));
        let mut nodes = Vec::new();
        for node in &mut self.graph.nodes[first..] {
            if node.name.is_empty() {
                continue;
            }
            if names.contains(&node.name) {
                self.errors.push(at(format!(
                    "inlines a node `{}` into @{}, which has a node of that name already",
                    node.name, self.graph.name
                )));
            }
            node.after.extend(before.iter().copied());
            nodes.push(node.id);
        }
        for (k, e) in results.unwrap_or_default().into_iter().enumerate() {
            self.aliases.insert((ops::OpKey::of(call), k as u32), e);
        }
        self.inlined.insert(ops::OpKey::of(call), nodes);
    }
}

/// Lowers the ops of `block` into `cx`'s graph; for an inlined callee (`inline`), returns
/// its return's inputs.
fn lower_block<'c, 'a>(
    cx: &mut GraphCx<'c, 'a, '_>,
    block: BlockRef<'c, 'a>,
    inline: Option<&Inline>,
) -> Option<Vec<Endpoint>> {
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let op_name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let def = def_of(op);
        let is_input = has(def, Trait::GraphInput) || has(def, Trait::DataLike);
        let mut inputs = Vec::new();
        // A Data reads its function argument (root) or the parent's input (branch): no
        // edge of the execute cx.graph.
        let operands = if is_input {
            Vec::new()
        } else {
            ops::data_operands(op)
        };
        if let Some(m) = ops::unconnected_message(op) {
            cx.errors.push(LocatedError::at(
                op,
                format!(
                    "lower-to-rt: {m}: the execute graph's kernel inputs are positional, \
                     with no empty entry"
                ),
            ));
        }
        for value in operands {
            match ops::producer(value) {
                ops::Producer::Op { op: from, result } => match cx.endpoint(from, result) {
                    Some(e) => inputs.push(e),
                    None => cx.errors.push(LocatedError::at(
                        op,
                        "lower-to-rt: an operand from an op that was not lowered",
                    )),
                },
                ops::Producer::Arg { .. } => cx.errors.push(LocatedError::at(
                    op,
                    "lower-to-rt: a function argument as operand (graphs take inputs through Data)",
                )),
            }
        }
        if op_name == "func.return" {
            if inline.is_some() {
                return Some(inputs);
            }
            if cx.root {
                let outs = ensure_at_out_memory(&mut cx.graph, inputs);
                cx.graph.push(Kind::NetOutput, "", outs, 0);
            } else {
                cx.graph.push(Kind::InnerNetOutput, "", inputs, 0);
            }
            continue;
        }
        if !ops::is_ascend_op(op) {
            cx.errors.push(LocatedError::at(
                op,
                format!("lower-to-rt: `{op_name}` is not an ascend op"),
            ));
            continue;
        }
        let ge_type = ops::ge_type(op).unwrap_or("?").to_string();
        let node_name = ops::node_name(op).unwrap_or("").to_string();
        let outputs = ops::data_results(op).len() as u32;
        let explicit = match ops::str_attr(op, PLACEMENT_ATTR) {
            None => None,
            Some(text) => match Placement::parse(text) {
                Some(p) => Some(p),
                None => {
                    cx.errors.push(LocatedError::at(
                        op,
                        format!("lower-to-rt: {PLACEMENT_ATTR} `{text}` is not host, hbm or p2p"),
                    ));
                    continue;
                }
            },
        };
        if let (true, Some(call)) = (is_input, inline) {
            // gert's LoweringPartitionedCallInput: the callee's Data is the call's input.
            let index = ops::int_attr(op, "index").unwrap_or(0);
            match usize::try_from(index).ok().and_then(|i| call.args.get(i)) {
                Some(&e) => {
                    cx.aliases.insert((ops::OpKey::of(op), 0), e);
                }
                None => cx.errors.push(LocatedError::at(
                    op,
                    format!(
                        "lower-to-rt: Data index {index} of a PartitionedCall body given {} inputs",
                        call.args.len()
                    ),
                )),
            }
            continue;
        }
        if has(def, Trait::PartitionedCall) {
            cx.inline_call(
                op,
                def,
                &node_name,
                inputs,
                inline.map_or(0, |c| c.depth + 1),
            );
            continue;
        }
        let id = if is_input {
            let index = ops::int_attr(op, "index").unwrap_or(0);
            if cx.root {
                let id = cx
                    .graph
                    .push(Kind::Data { index }, node_name, inputs, outputs);
                cx.graph.node_mut(id).expect("pushed").placement =
                    Some(explicit.unwrap_or(Placement::Hbm));
                id
            } else {
                let guarder_outside = cx
                    .parent
                    .guarded
                    .contains(&index)
                    .then(|| "FreeMemory".to_string());
                let id = cx.graph.push(
                    Kind::InnerData {
                        index,
                        guarder_outside,
                    },
                    node_name,
                    inputs,
                    outputs,
                );
                cx.graph.node_mut(id).expect("pushed").placement =
                    cx.parent.placement.get(&index).copied();
                id
            }
        } else if has(def, Trait::ConstLike) || has(def, Trait::VarLike) {
            let id = cx.graph.push(Kind::Const, node_name, inputs, outputs);
            cx.graph.node_mut(id).expect("pushed").placement =
                Some(explicit.unwrap_or(Placement::Hbm));
            id
        } else if has(def, Trait::Conditional) {
            let list = def.map(|d| branches_of(op, d)).unwrap_or_default();
            // branch input k is cond input k + 1
            let outer = ParentInputs {
                guarded: inputs
                    .iter()
                    .enumerate()
                    .skip(1)
                    .filter(|(_, e)| cx.guarded.contains(*e))
                    .map(|(k, _)| k as i64 - 1)
                    .collect(),
                placement: inputs
                    .iter()
                    .enumerate()
                    .skip(1)
                    .filter_map(|(k, &e)| Some((k as i64 - 1, placement_of(&cx.graph, e)?)))
                    .collect(),
            };
            for b in &list {
                cx.branches.push((b.clone(), outer.clone()));
            }
            cx.graph.push(
                Kind::Cond {
                    op_type: ge_type,
                    branches: list,
                },
                node_name,
                inputs,
                outputs,
            )
        } else {
            let placement = match kernel_placement(op) {
                Ok(p) => p,
                Err(m) => {
                    cx.errors
                        .push(LocatedError::at(op, format!("lower-to-rt: {m}")));
                    continue;
                }
            };
            let id = cx.graph.push(
                Kind::Kernel { op_type: ge_type },
                node_name,
                inputs,
                outputs,
            );
            cx.graph.node_mut(id).expect("pushed").placement = Some(placement);
            if !has(def, Trait::Phony) && !has(def, Trait::Reshape) {
                for k in 0..outputs {
                    let e = Endpoint {
                        node: id,
                        output: k,
                    };
                    cx.graph.push(
                        Kind::Guarder {
                            guarder_type: "FreeMemory".into(),
                            release_index: 0,
                        },
                        "",
                        vec![e],
                        0,
                    );
                    cx.guarded.insert(e);
                }
            }
            id
        };
        cx.ids.insert(ops::OpKey::of(op), id);
        let after = cx.control_edges(op);
        cx.graph.node_mut(id).expect("pushed").after = after;
    }
    None
}
