//! Filling the memory passes' [`MemGraph`] from an `ascend` module.
//!
//! One [`Graph`](crate::analysis::memory::model::Graph) per GE graph: the root function
//! (`@main` unless a pass option names another) first, then its subgraphs parent before
//! child ([`SubgraphTree::outermost_first`]), so a node's `subgraphs` list follows GE's
//! subgraph order. Inside a graph, nodes follow block order, which is a topological order of
//! data and control edges (SSA).
//!
//! * Node: every `ascend` op, by its `name` attribute and GE type; `func.return` is the
//!   graph's NetOutput (named `NetOutput` in the root, `<func>_NetOutput` in a subgraph).
//! * [`Sem`] flags come from [`semantics`]: table traits (a `FrameworkOp` also gets the
//!   traits of its `original_type` that GE reads through `GetOriginalType`: Cmo, RefSwitch)
//!   and GE attribute overrides; `_kernel_atomic` ([`semantics::is_kernel_atomic`]) and
//!   `_no_task` are per-op attributes. Planners never compare type names.
//! * Dynamic shapes: a graph has an unknown shape when a data operand or result of one of
//!   its ops is an unranked or dynamically shaped tensor (GE's graph unknown flag). A node
//!   is "dynamic" (GE's `NodeUtils::IsDynamicShape`) when the *root* graph is: its
//!   `_dynamic_shape_partitioned` attribute, or, without one, when any graph has an unknown
//!   shape (GE's partitioner sets the attribute then). So a static subgraph of a dynamic
//!   model is a known graph whose nodes are dynamic, as in GE (B.16's While rows).
//! * Port names: [`semantics::input_names`] / [`semantics::output_names`] (so GE's ref rule,
//!   "an input named like an output", sees the table's names); `reference = false` on an op
//!   turns its refs off, as in [`semantics::ref_input_of_output`].
//! * Edges: data operand `i` fed by result `k` of a node is the edge `k -> i`, appended in
//!   block order, which is GE's edge order of a freshly built graph. Control operands are
//!   control edges. A subgraph Data's operand is function argument `i`: its
//!   `_parent_node_index` is `i` plus the parent inputs the parent keeps (If's `cond`, Case's
//!   `branch_index`), as GE counts every parent input; NetOutput input `j` carries parent
//!   index `j`.
//! * `origin` / `reason` are read back from `ascend.inserted_by` / `ascend.reason`.
//! * Other GE attributes read per op: `_special_input_size`, `ref_var_src_var_name`,
//!   `original_type`, `atomic_input_index` / `sub_node_workspace_info` (presence),
//!   `_input_memory_type` / `_output_memory_type` (one runtime memory type per port),
//!   `reuse_input_index` (an int, or one int per output, -1 = none: GE's `reuse_input` tensor
//!   attribute), `_output_reuse_input` and `_address_unrefreshable` (ours).
//! * Tensor descs: every data port gets the [`TensorDesc`] of its MLIR type (element type as
//!   GE dtype, dims with `-1` for a dynamic one, `None` when unranked), interned once per
//!   distinct MLIR type (types are uniqued, so the type's pointer is the cache key). A node
//!   has an unknown shape when any of its data ports has.
//!
//! Cost: the semantics answers depend only on an op's shape (row, GE type, value counts,
//! segment sizes) unless the op carries one of [`PER_OP_ATTRS`]; they are cached per shape
//! (a unit test checks the cache against per-op answers). At 100k ops the build is ~0.2 s.
//!
//! Ops are mapped to [`NodeId`]s by [`OpKey`] while building; [`IrModel::ops`] maps back.
//! The map is an [`OpKeyMap`], hashed by address: the parser allocates a block's ops in
//! order and producers are mostly recent ops, so inserting every op and looking up every
//! operand's producer stays in a few hot cache lines of the map (with a mixing hash, each
//! was a cache miss at a million ops: the map's inserts alone were ~2.5% of the pass's
//! profile at 1M, and they no longer show in it).

use super::plan_attrs::read_stream_info;
use crate::analysis::memory::mem_plan::StreamInfo;
use crate::{
    analysis::{
        fast_hash::FastMap,
        interner::{Interned, Interner},
        memory::model::{
            Atomic, DType, GraphId, MemGraph, NodeId, Origin, Sem, Sym, TensorDesc, TensorId, ROOT,
            UNKNOWN_DIM,
        },
    },
    dialect::{op_table, semantics, Arity, AttrValue, OpView, Trait},
    ir::{
        graph::missing_root,
        ops::{self, OpKey, OpKeyMap, Producer},
        IrError, SubgraphTree,
    },
};
use melior::ir::{
    block::BlockLike,
    operation::OperationLike,
    r#type::{DimSize, IntegerType, RankedTensorType, ShapedTypeLike, TypeLike},
    BlockRef, Location, OperationRef, RegionLike, Type, Value, ValueLike,
};
use std::{cell::OnceCell, rc::Rc};

/// The attribute naming the pass that inserted an op (a pass flag).
pub const INSERTED_BY: &str = "ascend.inserted_by";
/// The attribute explaining why an op was inserted.
pub const REASON: &str = "ascend.reason";
/// GE's type for an op imported from a framework; `original_type` names what it is.
const FRAMEWORK_OP: &str = "FrameworkOp";
/// GE: on the root graph, the graph was partitioned for dynamic shapes
/// (`ATTR_NAME_DYNAMIC_SHAPE_PARTITIONED`); every node is then "dynamic" for GE.
pub const DYNAMIC_SHAPE_PARTITIONED: &str = "_dynamic_shape_partitioned";
/// GE: the op generates no task.
pub const NO_TASK: &str = "_no_task";
/// GE: `atomic_input_index` (presence matters).
pub const ATOMIC_INPUT_INDEX: &str = "atomic_input_index";
/// GE: the atomic workspace info (`EXT_ATTR_ATOMIC_WORKSPACE_INFO`; presence matters).
pub const ATOMIC_WORKSPACE_INFO: &str = "sub_node_workspace_info";
/// GE: memory type per input (`ATTR_NAME_INPUT_MEM_TYPE_LIST`).
pub const INPUT_MEMORY_TYPE: &str = "_input_memory_type";
/// GE: memory type per output (`ATTR_NAME_OUTPUT_MEM_TYPE_LIST`).
pub const OUTPUT_MEMORY_TYPE: &str = "_output_memory_type";
/// GE: the output tensor desc's `reuse_input_index` (with `reuse_input = true`); here an int
/// (output 0) or an int list (one per output, -1 = none).
pub const REUSE_INPUT_INDEX: &str = "reuse_input_index";
/// GE `ATTR_NAME_OUTPUT_REUSE_INPUT`: no-padding continuous outputs reuse input 0.
pub const OUTPUT_REUSE_INPUT: &str = "_output_reuse_input";
/// GE `INPLACE_SUPPORT_INPUT_INDEX` on output 0 (InplaceSupportCheckPass).
pub const INPLACE_SUPPORT_INPUT_INDEX: &str = "_inplace_support_input_index";
/// GE `ATTR_NAME_IS_UNKNOWN_SHAPE` (`false` on a known-shape PartitionedCall).
pub const IS_UNKNOWN_SHAPE: &str = "_is_unknown_shape";
/// GE `ATTR_DYNAMIC_SHAPE_FIXED_ADDR_INDEX` (MarkSameAddrPass).
pub const FIXED_ADDR_INDEX: &str = "_alloc_fixed_addr_index";
/// Ours: the op's kernel cannot refresh IO addresses (GE: the custom kernel lib).
pub const ADDRESS_UNREFRESHABLE: &str = "_address_unrefreshable";

pub use crate::ir::LocatedError;

/// The model of a module plus the way back from model ids to ops.
pub struct IrModel<'c, 'a> {
    pub graph: MemGraph,
    /// `NodeId` -> its op (`func.return` for a NetOutput); `None` once erased.
    pub ops: Vec<Option<OperationRef<'c, 'a>>>,
    /// `GraphId` -> the function's body block.
    pub blocks: Vec<BlockRef<'c, 'a>>,
    /// The module operation (for errors not about one node).
    pub module: OperationRef<'c, 'a>,
    /// GE's `NodeUtils::IsDynamicShape` of every node (a property of the root graph).
    dynamic: bool,
    /// The streams and events read from the ops ([`Self::stream_info`]), once per model:
    /// after stream-alloc, the passes that ask (mem-inplace, mem-assign, verify-mem-plan)
    /// change no stream attribute and no node id, so the answer holds until the nodes are
    /// renumbered.
    streams: OnceCell<Rc<StreamInfo>>,
}

impl<'c, 'a> IrModel<'c, 'a> {
    /// The op of node `n`, if it exists (a node planned but not yet applied has none).
    pub fn op(&self, n: NodeId) -> Option<OperationRef<'c, 'a>> {
        self.ops.get(n.0 as usize).copied().flatten()
    }

    /// The location of node `n`, or of the module.
    pub fn location(&self, n: Option<NodeId>) -> Location<'c> {
        n.and_then(|n| self.op(n)).unwrap_or(self.module).location()
    }

    /// Builds the model of `module` (a `builtin.module`) rooted at function `root`.
    pub fn build(module: OperationRef<'c, 'a>, root: &str) -> Result<Self, LocatedError<'c>> {
        let tree = SubgraphTree::build_from_op_at(module, root).map_err(|(e, user)| {
            let at = match &e {
                IrError::MissingRoot(_) => module
                    .region(0)
                    .ok()
                    .and_then(|r| r.first_block())
                    .and_then(|body| missing_root(body, root).0),
                _ => user,
            };
            LocatedError::at(at.unwrap_or(module), e.to_string())
        })?;
        let mut builder = Builder {
            model: IrModel {
                graph: MemGraph::new(root),
                ops: Vec::new(),
                blocks: Vec::new(),
                module,
                dynamic: false,
                streams: OnceCell::new(),
            },
            by_op: OpKeyMap::default(),
            shapes: FastMap::default(),
            tensors: FastMap::default(),
            types: Interner::default(),
        };
        builder.reserve(&tree);
        let mut partitioned = None;
        for entry in tree.outermost_first() {
            let Some(e) = tree.get(entry) else { continue };
            let (gid, skip) = match &e.parent {
                None => {
                    partitioned = ops::bool_attr(e.func, DYNAMIC_SHAPE_PARTITIONED);
                    (ROOT, 0)
                }
                Some(link) => {
                    let parent =
                        builder
                            .by_op
                            .get(&OpKey::of(link.op))
                            .copied()
                            .ok_or_else(|| {
                                LocatedError::at(
                                    link.op,
                                    "the parent of a subgraph is not a GE node",
                                )
                            })?;
                    let gid = builder.model.graph.add_subgraph(&e.name, parent);
                    (gid, kept_inputs(link.op))
                }
            };
            let block = e
                .func
                .region(0)
                .ok()
                .and_then(|r| r.first_block())
                .ok_or_else(|| {
                    LocatedError::at(e.func, format!("graph @{} has no body", e.name))
                })?;
            if block.next_in_region().is_some() {
                return Err(LocatedError::at(
                    e.func,
                    format!(
                        "graph @{} has several blocks; a GE graph is one block",
                        e.name
                    ),
                ));
            }
            builder.model.blocks.push(block);
            builder.graph(gid, &e.name, block, skip)?;
        }
        // GE's `NodeUtils::IsDynamicShape(node)` is a property of the root graph, not of
        // the node: `_dynamic_shape_partitioned` on it, which GE's partitioner sets when
        // any graph holds a dynamic shape (what we assume when the root does not say).
        let g = &mut builder.model.graph;
        let dynamic = partitioned.unwrap_or_else(|| g.graphs.iter().any(|x| x.unknown_shape));
        for node in &mut g.nodes {
            node.sem.unknown_shape = dynamic;
        }
        builder.model.dynamic = dynamic;
        Ok(builder.model)
    }

    /// The model without its IR handles, to hand to the next pass
    /// ([`crate::pipeline::ModelShare`]). Only a model equal to what [`Self::build`] would
    /// read from the IR now may be detached: just built, after attribute-only plans, or
    /// after [`Self::renumber_as_ir`] matched. The name search state is reset, as a fresh
    /// read would have it.
    pub fn detach(mut self, root: &str) -> DetachedModel {
        self.graph.reset_name_search();
        DetachedModel {
            keys: self.ops.iter().map(|op| op.map(OpKey::of)).collect(),
            graph: self.graph,
            root: root.to_owned(),
            module: OpKey::of(self.module),
            dynamic: self.dynamic,
            streams: self.streams.into_inner(),
        }
    }

    /// The model a previous pass detached, on `module` as it is now: each graph's ops are
    /// found again by walking its function's block, and must be the very ops the model
    /// was detached with, in the model's order. `None` (read the IR instead) when the
    /// module, the root or any op differs.
    pub fn reattach(
        detached: DetachedModel,
        module: OperationRef<'c, 'a>,
        root: &str,
    ) -> Option<Self> {
        if detached.root != root || detached.module != OpKey::of(module) {
            return None;
        }
        let blocks = graph_blocks(&detached.graph, module)?;
        let graphs = &detached.graph.graphs;
        let mut model_ops = vec![None; detached.keys.len()];
        for (graph, &block) in graphs.iter().zip(&blocks) {
            let mut order = graph.order.iter();
            let mut cur = block.first_operation();
            while let Some(op) = cur {
                cur = op.next_in_block();
                let n = order.next()?.0 as usize;
                if detached.keys.get(n).copied().flatten() != Some(OpKey::of(op)) {
                    return None;
                }
                model_ops[n] = Some(op);
            }
            if order.next().is_some() {
                return None;
            }
        }
        Some(IrModel {
            graph: detached.graph,
            ops: model_ops,
            blocks,
            module,
            dynamic: detached.dynamic,
            streams: detached.streams.map(OnceCell::from).unwrap_or_default(),
        })
    }

    /// The model a previous pass detached, on `module` after a step that inserted ops with
    /// neither data operands nor data results and changed nothing else a node is read
    /// from but control operands: `stream-alloc` (Send/Recv, SendNotify/RecvNotify and
    /// StreamActive ops; stream attributes, which no node field holds). The model's own
    /// ops must all be there, in their graphs and in their order; each inserted op is read
    /// as [`Self::build`] reads any op, every control edge is read again from the operands
    /// in block order (the order a fresh read adds them in), and the nodes are renumbered
    /// in block order ([`Self::renumber_as_ir`]). So the result is what reading the IR
    /// gives, without reading the model's own ops again. `None` (read the IR instead) when
    /// anything else differs.
    pub fn reattach_after_control_inserts(
        detached: DetachedModel,
        module: OperationRef<'c, 'a>,
        root: &str,
    ) -> Option<Self> {
        if detached.root != root
            || detached.module != OpKey::of(module)
            || detached.keys.len() != detached.graph.nodes.len()
        {
            return None;
        }
        let blocks = graph_blocks(&detached.graph, module)?;
        let first_new = detached.keys.len();
        let mut by_op = OpKeyMap::default();
        by_op.reserve(first_new);
        let mut kept = 0;
        for (n, key) in detached.keys.iter().enumerate() {
            if let Some(key) = key {
                by_op.insert(*key, NodeId(n as u32));
                kept += 1;
            }
        }
        let mut builder = Builder {
            model: IrModel {
                graph: detached.graph,
                ops: vec![None; first_new],
                blocks: blocks.clone(),
                module,
                dynamic: detached.dynamic,
                // Read again: the step changed stream attributes.
                streams: OnceCell::new(),
            },
            by_op,
            shapes: FastMap::default(),
            tensors: FastMap::default(),
            types: Interner::default(),
        };
        for node in &mut builder.model.graph.nodes {
            node.ctrl_in = Default::default();
            node.ctrl_out = Default::default();
        }
        let mut found = 0;
        for (gi, block) in blocks.iter().enumerate() {
            let gid = GraphId(gi as u32);
            let mut next = block.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                let id = match builder.by_op.get(&OpKey::of(op)).copied() {
                    Some(id) if (id.0 as usize) < first_new => {
                        let slot = &mut builder.model.ops[id.0 as usize];
                        if slot.is_some() || builder.model.graph.node(id).graph != gid {
                            return None;
                        }
                        *slot = Some(op);
                        found += 1;
                        id
                    }
                    Some(_) => return None,
                    None => {
                        let data_free = ops::is_ascend_op(op)
                            && !semantics::is_net_output(&op)
                            && ops::num_data_operands(op) == 0
                            && ops::data_results(op).is_empty();
                        if !data_free {
                            return None;
                        }
                        builder.node(gid, op).ok()?
                    }
                };
                builder.ctrl_edges(id, op).ok()?;
            }
        }
        if found != kept {
            return None;
        }
        let mut model = builder.model;
        model.renumber_as_ir(first_new).1.then_some(model)
    }

    /// After a plan that created nodes `first_new..` was replayed, makes the model what
    /// [`IrModel::build`] would read from the IR now, without reading it: each graph's
    /// order is taken from its block (walked once: an op is either the next node of the
    /// graph as built, in id order, or one of the few created nodes, found in a small map),
    /// the nodes are renumbered in that order ([`MemGraph::renumber`]) and every node gets
    /// the model's dynamic flag. Returns the new id of every old node (`u32::MAX`: dropped)
    /// and whether the walk matched the IR; when it did not (an op moved, a node missing),
    /// the model is unusable and the caller builds it again.
    pub fn renumber_as_ir(&mut self, first_new: usize) -> (Vec<u32>, bool) {
        self.forget_streams();
        let order_matched = self.orders_from_ir(first_new);
        let new_of = self.graph.renumber();
        let mut ops = vec![None; self.graph.nodes.len()];
        for (old, &new) in new_of.iter().enumerate() {
            if new != u32::MAX {
                ops[new as usize] = self.ops.get(old).copied().flatten();
            }
        }
        self.ops = ops;
        for node in &mut self.graph.nodes {
            node.sem.unknown_shape = self.dynamic;
        }
        let matched = order_matched && self.matches_ir();
        (new_of, matched)
    }

    /// The streams and events of the model's ops (empty when no op has a `stream_id`), read
    /// from the IR at the first call ([`read_stream_info`]).
    pub fn stream_info(&self) -> Rc<StreamInfo> {
        self.streams
            .get_or_init(|| Rc::new(read_stream_info(self)))
            .clone()
    }

    /// Drops the streams read by [`Self::stream_info`]: nodes were created or renumbered.
    pub fn forget_streams(&mut self) {
        self.streams = OnceCell::new();
    }

    /// Sets every graph's order to its block's op order (see [`Self::renumber_as_ir`]);
    /// `false` when an op is neither the next built node nor a created one.
    fn orders_from_ir(&mut self, first_new: usize) -> bool {
        self.graph.normalize();
        let created: OpKeyMap<NodeId> = (first_new..self.ops.len())
            .filter(|&i| !self.graph.nodes[i].removed)
            .filter_map(|i| self.ops[i].map(|op| (OpKey::of(op), NodeId(i as u32))))
            .collect();
        if self.blocks.len() != self.graph.graphs.len() {
            return false;
        }
        for (gi, block) in self.blocks.iter().enumerate() {
            let graph = &self.graph.graphs[gi];
            let mut built: Vec<NodeId> = graph
                .order
                .iter()
                .copied()
                .filter(|n| (n.0 as usize) < first_new)
                .collect();
            built.sort_unstable();
            let mut order = Vec::with_capacity(graph.order.len());
            let mut k = 0;
            let mut next = block.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                let key = OpKey::of(op);
                let expected = built.get(k).and_then(|&n| self.ops[n.0 as usize]);
                if expected.is_some_and(|e| OpKey::of(e) == key) {
                    order.push(built[k]);
                    k += 1;
                } else if let Some(&n) = created.get(&key) {
                    order.push(n);
                } else {
                    return false;
                }
            }
            if k != built.len() || order.len() != graph.order.len() {
                return false;
            }
            self.graph.graph_mut(GraphId(gi as u32)).order = order;
        }
        true
    }

    /// Whether every graph's node order is its block's op order.
    fn matches_ir(&self) -> bool {
        if self.blocks.len() != self.graph.graphs.len() {
            return false;
        }
        for (graph, block) in self.graph.graphs.iter().zip(&self.blocks) {
            let mut order = graph.order.iter();
            let mut next = block.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                let same = order
                    .next()
                    .and_then(|&n| self.ops[n.0 as usize])
                    .is_some_and(|m| OpKey::of(m) == OpKey::of(op));
                if !same {
                    return false;
                }
            }
            if order.next().is_some() {
                return false;
            }
        }
        true
    }
}

/// Each graph's body block in `module`, found by the function names of `graph`'s graphs;
/// `None` when one is missing.
fn graph_blocks<'c, 'a>(
    graph: &MemGraph,
    module: OperationRef<'c, 'a>,
) -> Option<Vec<BlockRef<'c, 'a>>> {
    let body = module.region(0).ok()?.first_block()?;
    let mut by_name: FastMap<&str, usize> = FastMap::default();
    for (i, g) in graph.graphs.iter().enumerate() {
        by_name.insert(g.name.as_str(), i);
    }
    let mut blocks: Vec<Option<BlockRef<'c, 'a>>> = vec![None; graph.graphs.len()];
    let mut next = body.first_operation();
    while let Some(func) = next {
        next = func.next_in_block();
        if let Some(&i) = ops::str_attr(func, "sym_name").and_then(|n| by_name.get(n)) {
            blocks[i] = func.region(0).ok().and_then(|r| r.first_block());
        }
    }
    blocks.into_iter().collect()
}

/// A memory model between two passes: the graph, and the identity (address) of the op
/// behind each node, so the next pass can check that it finds the same ops.
pub struct DetachedModel {
    graph: MemGraph,
    keys: Vec<Option<OpKey>>,
    root: String,
    module: OpKey,
    dynamic: bool,
    streams: Option<Rc<StreamInfo>>,
}

struct Builder<'c, 'a> {
    model: IrModel<'c, 'a>,
    by_op: OpKeyMap<NodeId>,
    shapes: FastMap<ShapeKey, Rc<Shape>>,
    /// MLIR type (uniqued, so its pointer) -> interned tensor desc.
    tensors: FastMap<usize, TensorId>,
    /// One copy of each GE type name for all the nodes of this build, found by the address
    /// of the op table row's or the MLIR attribute's text; freed with the last model that
    /// holds it.
    types: Interner<'c>,
}

impl<'c, 'a> Builder<'c, 'a> {
    /// Sizes the graph list, the node arena, the op table and the op map for every graph and op of
    /// `tree` up front (one cheap walk): growing them by doubling copied the whole arena
    /// several times and, at a million ops, kept the old and the new copy alive at once.
    fn reserve(&mut self, tree: &SubgraphTree<'c, 'a>) {
        let mut count = 0;
        for e in (0..tree.len()).filter_map(|i| tree.get(i)) {
            let body = e.func.region(0).ok().and_then(|r| r.first_block());
            let mut next = body.and_then(|b| b.first_operation());
            while let Some(op) = next {
                count += 1;
                next = op.next_in_block();
            }
        }
        // Planners insert nodes (copies, a few percent of the graph): room for an eighth
        // more, or the first insertion would copy the whole arena to one twice its size.
        // Room never written costs no memory.
        let room = count + count / 8;
        self.model.graph.graphs.reserve(tree.len());
        self.model.blocks.reserve(tree.len());
        self.model.graph.nodes.reserve(room);
        self.model.ops.reserve(room);
        self.by_op.reserve(count);
    }

    fn graph(
        &mut self,
        gid: GraphId,
        name: &str,
        block: BlockRef<'c, 'a>,
        skip: u32,
    ) -> Result<(), LocatedError<'c>> {
        let is_sub = gid != ROOT;
        let mut unknown = false;
        // Room for the graph's nodes at once: a million nodes grown by doubling would be
        // copied about twice over.
        let mut count = 0;
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            count += 1;
        }
        self.model.graph.nodes.reserve(count);
        self.model.ops.reserve(count);
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let id = if semantics::is_net_output(&op) {
                self.net_output(gid, name, op)?
            } else if ops::is_ascend_op(op) {
                self.node(gid, op)?
            } else {
                return Err(LocatedError::at(
                    op,
                    format!(
                        "`{}` is not a GE node (only ascend ops and func.return may appear in a graph)",
                        op.name().as_string_ref().as_str().unwrap_or("?")
                    ),
                ));
            };
            unknown |= self.model.graph.node(id).sem.unknown_shape;
            self.edges(id, op, is_sub.then_some(skip))?;
        }
        self.model.graph.graph_mut(gid).unknown_shape = unknown;
        Ok(())
    }

    fn push(&mut self, id: NodeId, op: OperationRef<'c, 'a>) {
        debug_assert_eq!(id.0 as usize, self.model.ops.len());
        self.model.ops.push(Some(op));
        self.by_op.insert(OpKey::of(op), id);
    }

    fn net_output(
        &mut self,
        gid: GraphId,
        graph_name: &str,
        op: OperationRef<'c, 'a>,
    ) -> Result<NodeId, LocatedError<'c>> {
        // A graph's outputs are data values (the `.ge` importer says the same of `return ^x`):
        // a returned control token has no tensor, and the model's NetOutput inputs are data.
        if let Some(j) = op.operands().position(ops::is_ctrl) {
            return Err(LocatedError::at(
                op,
                format!(
                    "`func.return` of graph `{graph_name}` returns a control token (operand \
                    {j}); a graph's outputs are data values: put the control edge on a node \
                    instead"
                ),
            ));
        }
        let g = &mut self.model.graph;
        let name = if gid == ROOT {
            "NetOutput".to_string()
        } else {
            format!("{graph_name}_NetOutput")
        };
        let inputs = vec![""; op.operand_count()];
        let id = g.add_node(gid, &name, "NetOutput", &inputs, &[]);
        let is_sub = gid != ROOT;
        let tensors: Vec<TensorId> = op.operands().map(|v| self.tensor_id(v.r#type())).collect();
        let g = &mut self.model.graph;
        let unknown = tensors.iter().any(|&t| g.tensor(t).is_unknown_shape());
        let node = g.node_mut(id);
        node.sem.net_output = true;
        node.sem.unknown_shape = unknown;
        for (j, input) in node.inputs.iter_mut().enumerate() {
            input.tensor = tensors[j];
            if is_sub {
                input.parent_index = Some(j as u32);
            }
        }
        g.graph_mut(gid).net_output = Some(id);
        self.push(id, op);
        Ok(id)
    }

    fn node(&mut self, gid: GraphId, op: OperationRef<'c, 'a>) -> Result<NodeId, LocatedError<'c>> {
        let name = ops::node_name(op).ok_or_else(|| {
            LocatedError::at(op, "a GE node needs a `name` attribute (a UTF-8 string)")
        })?;
        let ty = ops::ge_type(op).ok_or_else(|| {
            LocatedError::at(op, "the op is not in the op table and has no GE `type`")
        })?;
        let n_in = ops::num_data_operands(op);
        let data_results = ops::data_results(op);
        let (semantic, port) = per_op_attrs(op);
        let per_op = semantic || port;
        let shape = match (semantic, shape_key(op, n_in, data_results.len())) {
            (false, Some(key)) => match self.shapes.get(&key) {
                Some(shape) => shape.clone(),
                None => {
                    let ty = self.types.of_fixed(ty);
                    let shape = Rc::new(shape_of(&mut self.model.graph, op, ty, &data_results));
                    self.shapes.insert(key, shape.clone());
                    shape
                }
            },
            _ => {
                let ty = self.types.of_fixed(ty);
                Rc::new(shape_of(&mut self.model.graph, op, ty, &data_results))
            }
        };

        let operands = ops::data_operands(op);
        let in_tensors: Vec<TensorId> = operands
            .iter()
            .map(|v| self.tensor_id(v.r#type()))
            .collect();
        let out_tensors: Vec<TensorId> = data_results
            .iter()
            .map(|v| self.tensor_id(v.r#type()))
            .collect();
        let g = &mut self.model.graph;
        let unknown = in_tensors
            .iter()
            .chain(&out_tensors)
            .any(|&t| g.tensor(t).is_unknown_shape());
        let mut sem = shape.sem;
        sem.unknown_shape = unknown;
        let id = g.add_node_syms(
            gid,
            name,
            shape.ty.clone(),
            sem,
            &shape.inputs,
            &shape.outputs,
        );
        let node = g.node_mut(id);
        match &shape.slots {
            Some(slots) => {
                for (&slot, &t) in slots.iter().zip(&in_tensors) {
                    node.inputs[slot].tensor = t;
                }
            }
            None => {
                for (input, &t) in node.inputs.iter_mut().zip(&in_tensors) {
                    input.tensor = t;
                }
            }
        }
        for (output, &t) in node.outputs.iter_mut().zip(&out_tensors) {
            output.tensor = t;
        }
        if !shape.atomic_outputs.is_empty() || per_op {
            let atomic = Atomic {
                input: op.has_attribute(ATOMIC_INPUT_INDEX),
                outputs: shape.atomic_outputs.clone(),
                workspace: op.has_attribute(ATOMIC_WORKSPACE_INFO),
            };
            if atomic != Atomic::default() {
                node.atomic = Some(Box::new(atomic));
            }
        }
        if per_op {
            // What only per-op attributes say (absent on an op answered from the cache).
            let in_mem = memory_types(op, INPUT_MEMORY_TYPE);
            let out_mem = memory_types(op, OUTPUT_MEMORY_TYPE);
            let reuse = reuse_input_indices(op);
            for (i, input) in node.inputs.iter_mut().enumerate() {
                input.special_input_size = semantics::special_input_size(&op, i);
                input.mem_type = in_mem.get(i).copied().unwrap_or(0);
            }
            let ref_vars: Vec<Option<String>> = (0..node.outputs.len())
                .map(|o| semantics::ref_var_src_var_name(&op, o))
                .collect();
            node.fixed_addr_output =
                ops::int_attr(op, FIXED_ADDR_INDEX).and_then(|i| u32::try_from(i).ok());
            let inplace = ops::int_attr(op, INPLACE_SUPPORT_INPUT_INDEX);
            if let (Some(out), Some(i)) = (node.outputs.first_mut(), inplace) {
                out.inplace_input = u32::try_from(i).ok();
            }
            for (o, output) in node.outputs.iter_mut().enumerate() {
                output.mem_type = out_mem.get(o).copied().unwrap_or(0);
                output.reuse_input = reuse.get(o).and_then(|&i| u32::try_from(i).ok());
            }
            for (o, var) in ref_vars.into_iter().enumerate() {
                if let Some(var) = var {
                    let var = g.sym(&var);
                    g.node_mut(id).outputs[o].ref_var_src = Some(var);
                }
            }
            let node = g.node_mut(id);
            node.original_type = ops::str_attr(op, semantics::attr::ORIGINAL_TYPE).map(Box::from);
            node.origin = ops::str_attr(op, INSERTED_BY).and_then(Origin::from_pass_name);
            node.reason = ops::str_attr(op, REASON).map(Box::from);
        }
        self.push(id, op);
        Ok(id)
    }

    /// The interned tensor desc of an MLIR type (cached by the uniqued type).
    fn tensor_id(&mut self, ty: Type) -> TensorId {
        let key = ty.to_raw().ptr as usize;
        if let Some(&id) = self.tensors.get(&key) {
            return id;
        }
        let id = self.model.graph.intern_tensor(tensor_desc(ty));
        self.tensors.insert(key, id);
        id
    }

    /// Data and control edges into `id` (its producers are already in the model: block
    /// order is topological).
    fn edges(
        &mut self,
        id: NodeId,
        op: OperationRef<'c, 'a>,
        subgraph_skip: Option<u32>,
    ) -> Result<(), LocatedError<'c>> {
        let n_data = if semantics::is_net_output(&op) {
            op.operand_count()
        } else {
            ops::num_data_operands(op)
        };
        // More input slots than data operands: the op leaves a slot unconnected, and edges
        // go to the operands' slots (an unconnected slot has no source).
        let slots = (self.model.graph.node(id).inputs.len() > n_data)
            .then(|| ops::input_slots(op))
            .flatten();
        for (i, value) in op.operands().take(n_data).enumerate() {
            match ops::producer(value) {
                Producer::Arg { index } => {
                    if !self.model.graph.node(id).sem.data_like || i != 0 {
                        return Err(self.argument_read(id, op, index));
                    }
                    if let Some(skip) = subgraph_skip {
                        self.model.graph.node_mut(id).parent_index = Some(index as u32 + skip);
                    }
                }
                Producer::Op { op: p, result } => {
                    let src = self.producer_node(op, p)?;
                    let slot = slots.as_ref().map_or(i, |s| s[i]);
                    self.model
                        .graph
                        .connect(src, result as u32, id, slot as u32);
                }
            }
        }
        self.ctrl_edges(id, op)
    }

    /// The control edges of `op` (node `id`): one per control operand, in operand order
    /// (a fresh read, and [`IrModel::reattach_after_control_inserts`], add them so).
    fn ctrl_edges(&mut self, id: NodeId, op: OperationRef<'c, 'a>) -> Result<(), LocatedError<'c>> {
        if semantics::is_net_output(&op) {
            return Ok(());
        }
        for value in op.operands().skip(ops::num_data_operands(op)) {
            match ops::producer(value) {
                Producer::Arg { index } => return Err(self.argument_read(id, op, index)),
                Producer::Op { op: p, .. } => {
                    let src = self.producer_node(op, p)?;
                    self.model.graph.add_ctrl(src, id);
                }
            }
        }
        Ok(())
    }

    /// The node of `producer`, which an operand of `op` reads.
    fn producer_node(
        &self,
        op: OperationRef<'c, 'a>,
        producer: OperationRef<'c, 'a>,
    ) -> Result<NodeId, LocatedError<'c>> {
        self.by_op
            .get(&OpKey::of(producer))
            .copied()
            .ok_or_else(|| {
                LocatedError::at(op, "an operand is not produced by a node of this graph")
            })
    }

    /// The error for node `id` reading function argument `index` (only a Data node may).
    fn argument_read(
        &self,
        id: NodeId,
        op: OperationRef<'c, 'a>,
        index: usize,
    ) -> LocatedError<'c> {
        LocatedError::at(
            op,
            format!(
                "function argument {index} is read by `{}`; only a Data node may read a graph \
                 input",
                self.model.graph.node(id).name
            ),
        )
    }
}

/// How many leading data inputs a parent op keeps for itself (If's `cond`, Case's
/// `branch_index`: its leading single groups); the rest are the subgraph's arguments. GE's
/// `_parent_node_index` counts every input of the parent, so argument `i` of a subgraph is
/// parent input `i + kept`. A generic op passes all its inputs.
fn kept_inputs(parent: OperationRef) -> u32 {
    match semantics::op_def(&parent) {
        Some(def) if !def.is_generic() => def
            .inputs
            .iter()
            .take_while(|g| g.arity == Arity::Single)
            .count() as u32,
        _ => 0,
    }
}

/// `names` fitted to `count` ports; unnamed ports are `""`. With `named == false` every
/// port is unnamed (no ref relation can form).
fn port_names(mut names: Vec<String>, count: usize, named: bool) -> Vec<String> {
    if !named {
        return vec![String::new(); count];
    }
    names.resize(count, String::new());
    names
}

/// GE's view of a data value's type: dtype from the element type, dims (`-1` dynamic) or
/// `None` (unranked). A non-tensor type is a scalar of its own element type.
pub fn tensor_desc(ty: Type) -> TensorDesc {
    if !ty.is_tensor() {
        return TensorDesc::new(dtype_of(ty), Some(Vec::new()));
    }
    // `is_ranked_tensor` first: a failing `try_from` prints the type into its error.
    if !ty.is_ranked_tensor() {
        return TensorDesc::new(unranked_dtype(ty), None);
    }
    let Ok(ranked) = RankedTensorType::try_from(ty) else {
        return TensorDesc::default();
    };
    let dims = (0..ranked.rank())
        .map(|i| match ranked.dim_size(i) {
            Ok(DimSize::Static(n)) => i64::try_from(n).unwrap_or(UNKNOWN_DIM),
            _ => UNKNOWN_DIM,
        })
        .collect();
    TensorDesc::new(dtype_of(ranked.element()), Some(dims))
}

/// GE dtype of an MLIR element type.
fn dtype_of(ty: Type) -> DType {
    if ty.is_f16() {
        DType::F16
    } else if ty.is_f32() {
        DType::F32
    } else if ty.is_f64() {
        DType::F64
    } else if ty.is_bf16() {
        DType::BF16
    } else if ty.is_integer() {
        let Ok(int) = IntegerType::try_from(ty) else {
            return DType::Other;
        };
        match (int.width(), int.is_unsigned()) {
            (1, _) => DType::Bool,
            (8, false) => DType::I8,
            (16, false) => DType::I16,
            (32, false) => DType::I32,
            (64, false) => DType::I64,
            (8, true) => DType::U8,
            (16, true) => DType::U16,
            (32, true) => DType::U32,
            (64, true) => DType::U64,
            _ => DType::Other,
        }
    } else {
        DType::Other
    }
}

/// The dtype of an unranked tensor (`tensor<*xf32>`), read from its text: the C API's element
/// accessor for unranked tensors has no safe wrapper, and unranked types are rare (the
/// caller caches per type).
fn unranked_dtype(ty: Type) -> DType {
    let text = ty.to_string();
    let element = text
        .strip_prefix("tensor<*x")
        .and_then(|rest| rest.strip_suffix('>'))
        .unwrap_or("");
    match element {
        "f16" => DType::F16,
        "f32" => DType::F32,
        "f64" => DType::F64,
        "bf16" => DType::BF16,
        "i1" => DType::Bool,
        "i8" | "si8" => DType::I8,
        "i16" | "si16" => DType::I16,
        "i32" | "si32" => DType::I32,
        "i64" | "si64" => DType::I64,
        "ui8" => DType::U8,
        "ui16" => DType::U16,
        "ui32" => DType::U32,
        "ui64" => DType::U64,
        _ => DType::Other,
    }
}

/// What the op table and the op's attributes say about an op, except what depends on its
/// values' types (`unknown_shape`) or its per-op-only attributes.
struct Shape {
    /// Shared by every node of the type ([`Builder::types`]).
    ty: Interned,
    sem: Sem,
    inputs: Vec<Option<Sym>>,
    outputs: Vec<Option<Sym>>,
    atomic_outputs: Vec<u32>,
    /// The input slot of each data operand when the op leaves a slot unconnected (the
    /// segment sizes are part of the cache key); `None` when operand `i` is slot `i`.
    slots: Option<Vec<usize>>,
}

/// Attributes that change what the semantics layer (or this builder) answers for one op:
/// GE's overrides and ours. An op carrying none of them is answered like every other op
/// of its shape (op, generic `type`, value counts, segment sizes), from a cache: asking the
/// semantics layer ~20 questions per op was most of the model's build time on big graphs.
pub const PER_OP_ATTRS: &[&str] = &[
    semantics::attr::INPUT_NAMES,
    semantics::attr::OUTPUT_NAMES,
    semantics::attr::INPUT_MUTABLE,
    semantics::attr::REFERENCE,
    semantics::attr::ATOMIC_OUTPUT_INDEX,
    semantics::attr::IS_ATOMIC_NODE,
    semantics::attr::CONTINUOUS_INPUT,
    semantics::attr::CONTINUOUS_OUTPUT,
    semantics::attr::NOPADDING_CONTINUOUS_INPUT,
    semantics::attr::NOPADDING_CONTINUOUS_OUTPUT,
    semantics::attr::SKIP_RW_CONFLICT,
    semantics::attr::CANNOT_BE_DELETED,
    semantics::attr::SPECIAL_INPUT_SIZE,
    semantics::attr::REF_VAR_SRC_VAR_NAME,
    semantics::attr::ORIGINAL_TYPE,
    semantics::attr::ENGINE,
    INSERTED_BY,
    REASON,
    semantics::attr::KERNEL_ATOMIC,
    NO_TASK,
    ATOMIC_INPUT_INDEX,
    ATOMIC_WORKSPACE_INFO,
    INPUT_MEMORY_TYPE,
    OUTPUT_MEMORY_TYPE,
    REUSE_INPUT_INDEX,
    OUTPUT_REUSE_INPUT,
    ADDRESS_UNREFRESHABLE,
    INPLACE_SUPPORT_INPUT_INDEX,
    IS_UNKNOWN_SHAPE,
    FIXED_ADDR_INDEX,
];

/// The part of [`PER_OP_ATTRS`] that only describes ports or bookkeeping (memory types,
/// reuse and in-place indices, ref variable names, atomic presence flags, origin): read
/// from the op itself, they leave the cached shape answers valid. Passes that mark many
/// ops (in-place candidates, reuse indices) would otherwise push most ops off the cache.
pub const PORT_ATTRS: &[&str] = &[
    semantics::attr::SPECIAL_INPUT_SIZE,
    semantics::attr::REF_VAR_SRC_VAR_NAME,
    INSERTED_BY,
    REASON,
    ATOMIC_INPUT_INDEX,
    ATOMIC_WORKSPACE_INFO,
    INPUT_MEMORY_TYPE,
    OUTPUT_MEMORY_TYPE,
    REUSE_INPUT_INDEX,
    INPLACE_SUPPORT_INPUT_INDEX,
    FIXED_ADDR_INDEX,
];

/// Which per-op attributes `op` carries: (some that change its shape answers, some that
/// only its ports read). One pass over the op's attributes.
fn per_op_attrs(op: OperationRef) -> (bool, bool) {
    let (mut semantic, mut port) = (false, false);
    ops::for_each_attribute_name(op, |n| {
        if PORT_ATTRS.iter().any(|a| a.as_bytes() == n) {
            port = true;
        } else if PER_OP_ATTRS.iter().any(|a| a.as_bytes() == n) {
            semantic = true;
        }
    });
    (semantic, port)
}

/// The cache key of an op's shape: its table row, generic `type`, value counts and segment
/// sizes. Attributes are keyed by identity ([`ops::attr_identity`]: MLIR uniques them), so
/// a lookup allocates nothing.
type ShapeKey = (usize, usize, usize, usize, usize, usize);

fn shape_key(op: OperationRef, n_in: usize, n_out: usize) -> Option<ShapeKey> {
    let def = ops::op_def(op)?;
    Some((
        def as *const _ as usize,
        ops::attr_identity(op, ops::GENERIC_TYPE_ATTR),
        n_in,
        n_out,
        ops::attr_identity(op, semantics::attr::OPERAND_SEGMENT_SIZES),
        ops::attr_identity(op, semantics::attr::RESULT_SEGMENT_SIZES),
    ))
}

/// Asks the semantics layer about `op` (table traits and GE attribute overrides).
fn shape_of(g: &mut MemGraph, op: OperationRef, ty: Interned, data_results: &[Value]) -> Shape {
    let def = semantics::semantic_def(&op);
    let t = |tr: Trait| def.is_some_and(|d| d.has_trait(tr));
    let attr_flag = |name: &str| ops::bool_attr(op, name).unwrap_or(false);
    let refs_on = ops::bool_attr(op, semantics::attr::REFERENCE) != Some(false);
    let slots = ops::input_slots(op);
    let n_in = match &slots {
        Some(slots) => slots.last().map_or(0, |&s| s + 1),
        None => ops::num_data_operands(op),
    };
    let mut sym = |name: &String| (!name.is_empty()).then(|| g.sym(name));
    let inputs = port_names(semantics::input_names(&op), n_in, true)
        .iter()
        .map(&mut sym)
        .collect();
    let outputs = port_names(semantics::output_names(&op), data_results.len(), refs_on)
        .iter()
        .map(&mut sym)
        .collect();
    // GE's `GetOriginalType`: a FrameworkOp stands for its `original_type`.
    let original = (ty == FRAMEWORK_OP)
        .then(|| ops::str_attr(op, semantics::attr::ORIGINAL_TYPE))
        .flatten()
        .and_then(|t| op_table().semantics_for_ge_type(t));
    let ot = |tr: Trait| original.is_some_and(|d| d.has_trait(tr));
    let sem = Sem {
        const_like: t(Trait::ConstLike),
        var_like: t(Trait::VarLike),
        data_like: t(Trait::DataLike),
        data: t(Trait::GraphInput),
        while_family: t(Trait::WhileFamily),
        conditional: t(Trait::Conditional),
        partitioned_call: t(Trait::PartitionedCall),
        reshape: t(Trait::Reshape),
        broadcast: t(Trait::Broadcast),
        assign: t(Trait::Assign),
        cmo: t(Trait::Cmo) || ot(Trait::Cmo),
        ref_switch: ot(Trait::RefSwitch),
        shape_only: t(Trait::ShapeOnly),
        identity_like: t(Trait::IdentityLike),
        assign_like: t(Trait::AssignLike),
        hccl: t(Trait::Hccl),
        kernel_atomic: semantics::is_kernel_atomic(&op),
        stream_merge: t(Trait::StreamMerge),
        net_output: false,
        phony: t(Trait::Phony),
        atomic_clean: t(Trait::AtomicClean),
        switch_like: t(Trait::ControlSwitch),
        loop_cond: t(Trait::LoopCond),
        input_mutable: semantics::is_input_mutable(&op),
        skip_rw_conflict: semantics::skip_rw_conflict(&op),
        cannot_be_deleted: semantics::cannot_be_deleted(&op),
        reference: ops::bool_attr(op, semantics::attr::REFERENCE) == Some(true),
        continuous_input: semantics::is_continuous_input(&op),
        continuous_output: semantics::is_continuous_output(&op),
        nopad_continuous_input: semantics::is_nopadding_continuous_input(&op),
        nopad_continuous_output: semantics::is_nopadding_continuous_output(&op),
        unknown_shape: false,
        no_task: attr_flag(NO_TASK),
        fixed_address: t(Trait::FixedAddress),
        address_unrefreshable: attr_flag(ADDRESS_UNREFRESHABLE),
        // The op table has no Merge row; StreamMerge has its trait.
        merge: t(Trait::StreamMerge) || Sem::of_type(&ty).merge,
        output_reuse_input: attr_flag(OUTPUT_REUSE_INPUT),
        copy_like: t(Trait::CopyLike),
        known_shape_call: t(Trait::PartitionedCall)
            && ops::bool_attr(op, IS_UNKNOWN_SHAPE) == Some(false),
    };
    Shape {
        ty,
        sem,
        inputs,
        outputs,
        slots,
        atomic_outputs: semantics::atomic_outputs(&op)
            .into_iter()
            .map(|o| o as u32)
            .collect(),
    }
}

/// A per-port int list attribute (`_input_memory_type`, `_output_memory_type`).
fn memory_types(op: OperationRef, name: &str) -> Vec<i64> {
    match op.attr(name) {
        Some(AttrValue::List(items)) => items.iter().map(|v| v.as_int().unwrap_or(0)).collect(),
        _ => Vec::new(),
    }
}

/// `reuse_input_index`: an int (output 0) or one int per output; -1 = none.
fn reuse_input_indices(op: OperationRef) -> Vec<i64> {
    match op.attr(REUSE_INPUT_INDEX) {
        Some(AttrValue::Int(i)) => vec![i],
        Some(v) => v.as_ints().unwrap_or_default(),
        None => Vec::new(),
    }
}
