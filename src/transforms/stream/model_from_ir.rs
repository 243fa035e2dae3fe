//! Fills the frozen [`StreamGraph`] the stream allocation decides on from a module.
//!
//! What GE's allocator sees, read from the IR (dialects/README.md conventions):
//! * **graphs**: the root `func.func` (`@main` unless told otherwise), then its subgraphs,
//!   added in a pre-order walk: a graph, then each subgraph its ops name (op order, then
//!   the op's subgraph order from the op table — GE's subgraph instance order), each with
//!   its own subgraphs before the next sibling. The allocation visits them in GE's
//!   `GetAllSubgraphs` order, which it derives ([`StreamGraph::graph_order`]). A function
//!   named twice is an error (a GE subgraph has one parent); functions nobody names are
//!   not part of the graph.
//! * **nodes**: every `ascend` op in block order (program order is a topological order of
//!   data and control edges), plus `func.return` as GE's NetOutput (`Node_Output`, engine
//!   `DNN_VM_GE_LOCAL`, no task). Ops of other dialects are not GE nodes and are skipped,
//!   with their edges.
//! * **engines and types** come from [`semantics`] (op table, `engine` attribute override),
//!   and so does each node's [`NodeKind`] ([`node_kind`], from the row's traits): the
//!   passes never compare type names;
//!   task counts from the table's `task_num` unless `_node_sqe_num` / `_hccl_task_num`
//!   override them; HCCL and data-like nodes from the table's traits.
//! * **edges**: a data edge per data operand (consumer order, then input order, so every
//!   `data_in` is in GE input order; each producer's `data_out` is then sorted by output
//!   index, GE's anchor order), a control edge per `!ascend.ctrl` operand (deduplicated).
//! * **attributes** with GE's names, see `Caches::read_node`. A wrongly typed attribute is an
//!   error at the op, not a silent default.
//!
//! Besides the view, the build records what the pass needs to write back (the op of each
//! node, the function of each graph), whether the graph is dynamic-shape (any data value
//! with a dynamic or unranked shape: GE's unknown-shape graph), and the first op showing
//! that the module is already allocated (a Send/Recv/notify op, or `_logic_stream_id`).

use crate::{
    analysis::interner::{Interned, Interner},
    analysis::stream::{
        model::{AddressMap, AddressSet, FastMap},
        AttachedStreamReq, GraphId, NodeAttrs, NodeId, NodeKind, StreamGraph,
    },
    dialect::{op_table, semantics, OpDef, Trait},
    ir::{
        graph::missing_root,
        ops::{self, ctrl_type, OpKey},
    },
};
use melior::ir::{
    attribute::{
        ArrayAttribute, AttributeLike, BoolAttribute, DictionaryAttribute, IntegerAttribute,
        StringAttribute,
    },
    block::BlockLike,
    operation::{OperationLike, OperationResult},
    r#type::{RankedTensorType, ShapedTypeLike, TypeLike},
    Attribute, BlockRef, Location, OperationRef, RegionLike, ValueLike,
};
use std::collections::{HashMap, HashSet};

/// GE's NetOutput, which this IR spells `func.return`.
pub const NET_OUTPUT_TYPE: &str = "NetOutput";
/// GE's default NetOutput node name (`NODE_NAME_NET_OUTPUT`).
pub const NET_OUTPUT_NAME: &str = "Node_Output";
/// NetOutput's engine.
pub const NET_OUTPUT_ENGINE: &str = "DNN_VM_GE_LOCAL";
/// The group of the list forms of attached-stream requests.
pub const DEFAULT_STREAM_INFO_GROUP: &str = "_default_stream_info_group";

/// GE attribute names read here (besides those in [`semantics::attr`]).
pub mod attr {
    pub const ENABLE_INNER_PARALLEL: &str = "_enable_inner_parallel";
    pub const NEW_STREAM_ID: &str = "NewStreamId";
    pub const FUSION: &str = "fusion";
    pub const EVENT_MULTIPLEXING: &str = "_event_multiplexing";
    pub const ATTACHED_STREAM_INFO: &str = "_attached_stream_info";
    pub const ATTACHED_STREAM_INFO_LIST: &str = "_attached_stream_info_list";
    pub const DISABLE_ATTACHED: &str = "_disable_attached_resource";
    pub const BATCH_NUM: &str = "_batch_num";
    pub const SUBGRAPH_END_NODE: &str = "_subgraph_end_node";
    pub const FORCE_ATTACH_STREAM: &str = "_force_attach_stream";
    pub const THREAD_SCOPE_ID: &str = "_thread_scope_id";
    pub const FFTS_SUB_GRAPH: &str = "_ffts_sub_graph";
    pub const FFTS_PLUS_SUB_GRAPH: &str = "_ffts_plus_sub_graph";
    pub const HCCL_ATTACHED_TASK_NUM: &str = "_hccl_attached_task_num";
    pub const LOGIC_STREAM_ID: &str = "_logic_stream_id";
    /// The op attribute naming the group of the single named-attrs form.
    pub const GROUP: &str = "group";
    // Keys inside attached-stream dictionaries.
    pub const STREAM_KEY: &str = "_attached_stream_key";
    pub const STREAM_POLICY: &str = "_attached_stream_policy";
    pub const STREAM_DEPEND_VALUE_LIST: &str = "_attached_stream_depend_value_list";
    pub const RESOURCE_NAME: &str = "_attached_resource_name";
    pub const RESOURCE_REUSE_KEY: &str = "_attached_resource_reuse_key";
    pub const RESOURCE_FORCE_REUSE: &str = "_attached_resource_force_reuse";
    pub const RESOURCE_REQUIRED: &str = "_attached_resource_required_flag";
    /// Written back: the element's (physical) attached stream, and that it is valid.
    /// (GE's `ATTR_NAME_ATTACHED_RESOURCE_ID` / `_IS_VALID`; the literal names follow the
    /// other `_attached_resource_*` keys.)
    pub const RESOURCE_ID: &str = "_attached_resource_id";
    pub const RESOURCE_IS_VALID: &str = "_attached_resource_is_valid";
}

/// The view plus what the pass writes back to.
pub struct IrModel<'c, 'a> {
    pub graph: StreamGraph,
    /// The op of each node (`func.return` for NetOutput nodes).
    pub ops: Vec<OperationRef<'c, 'a>>,
    /// Whether node `n` is a NetOutput (`func.return`: no attributes, no control edges).
    pub net_output: Vec<bool>,
    /// The `func.func` of each graph.
    pub funcs: Vec<OperationRef<'c, 'a>>,
    /// Some data value has a dynamic or unranked shape.
    pub dynamic_shape: bool,
    /// The first op showing the module is already stream-allocated.
    pub allocated: Option<OperationRef<'c, 'a>>,
    /// The first ascend op without `_logic_stream_id`: with [`IrModel::allocated`], the
    /// module is only partly allocated (a hand-written Send, one stream id), which the pass
    /// can neither redo nor leave as it is.
    pub unallocated: Option<OperationRef<'c, 'a>>,
    /// Nodes carrying `_attached_stream_info_list`, with the index of its first element's
    /// request in the node's [`NodeAttrs::attached`] (the single form comes first): the
    /// write-back records each element's stream there, as GE does.
    pub attached_lists: Vec<(NodeId, usize)>,
}

impl<'c, 'a> IrModel<'c, 'a> {
    /// The location of node `name` (first match), else of the root function.
    pub fn location_of(&self, name: Option<&str>) -> Location<'c> {
        name.and_then(|name| self.graph.find(name))
            .map(|n| self.ops[n].location())
            .unwrap_or_else(|| self.funcs[0].location())
    }
}

/// A located failure to build the view.
pub type ModelError<'c> = crate::ir::LocatedError<'c>;

/// Builds the view of the graph rooted at function `root` of the module whose body is
/// `body`; `module_location` locates module-level errors.
pub fn build<'c, 'a>(
    body: BlockRef<'c, 'a>,
    module_location: Location<'c>,
    root: &str,
) -> Result<IrModel<'c, 'a>, ModelError<'c>> {
    let mut funcs: HashMap<&'c str, OperationRef<'c, 'a>> = HashMap::new();
    // Ops of every function: the tables sized by the node count are allocated once for the
    // whole module. Sized graph by graph, they would double (and be copied into fresh
    // memory) several times as the subgraphs after the root add their nodes.
    let mut total_ops = 0;
    let mut op = body.first_operation();
    while let Some(f) = op {
        if op_name(f) == "func.func" {
            if let Some(name) = string_value(f, "sym_name") {
                funcs.insert(name, f);
            }
            if let Some(block) = f.region(0).ok().and_then(|r| r.first_block()) {
                total_ops += op_count(block);
            }
        }
        op = f.next_in_block();
    }
    let root_func = *funcs.get(root).ok_or_else(|| {
        let (first, message) = missing_root(body, root);
        ModelError::new(
            first.map_or(module_location, |f| f.location()),
            format!("{message}; see option `root`"),
        )
    })?;
    let mut builder = Builder {
        model: IrModel {
            graph: StreamGraph::new(root),
            ops: Vec::new(),
            net_output: Vec::new(),
            funcs: Vec::new(),
            dynamic_shape: false,
            allocated: None,
            unallocated: None,
            attached_lists: Vec::new(),
        },
        local: AddressMap::default(),
        ctrl: ctrl_type(root_func.context()).ok(),
        caches: Caches::default(),
        all_named: true,
    };
    builder.model.graph.reserve_nodes(total_ops);
    builder.model.ops.reserve(total_ops);
    builder.model.net_output.reserve(total_ops);
    let mut referenced: HashSet<&str> = HashSet::from([root]);
    // Pre-order over graphs: (function, parent node; None for the root).
    let mut stack: Vec<(OperationRef<'c, 'a>, Option<NodeId>)> = vec![(root_func, None)];
    while let Some((func, parent)) = stack.pop() {
        let g = match parent {
            None => 0,
            Some(p) => {
                let name = string_value(func, "sym_name").unwrap_or_default();
                builder.model.graph.add_subgraph(name, p)
            }
        };
        let children = builder.graph(g, func)?;
        let mut pending = Vec::with_capacity(children.len());
        for (user, symbol) in children {
            let Some(&child) = funcs.get(symbol.as_str()) else {
                return Err(ModelError::new(
                    builder.model.ops[user].location(),
                    format!("subgraph @{symbol} is not a function of the module"),
                ));
            };
            let child_name = string_value(child, "sym_name").unwrap_or_default();
            if !referenced.insert(child_name) {
                return Err(ModelError::new(
                    builder.model.ops[user].location(),
                    format!(
                        "@{symbol} is already the root graph or a subgraph of another node; a \
                         GE subgraph has one parent"
                    ),
                ));
            }
            pending.push((child, Some(user)));
        }
        stack.extend(pending.into_iter().rev());
    }
    let mut model = builder.model;
    if builder.all_named {
        // Every name was checked above by identity (NetOutput's is made unique).
        model.graph.mark_names_unique();
    }
    Ok(model)
}

struct Builder<'c, 'a> {
    model: IrModel<'c, 'a>,
    /// Node of each op of the graph being built.
    local: AddressMap<OpKey, NodeId>,
    /// `!ascend.ctrl` (control operands are compared against it).
    ctrl: Option<melior::ir::Type<'c>>,
    caches: Caches<'c>,
    /// Every op so far had a `name` (so the names checked are all of them).
    all_named: bool,
}

/// Lookups by uniqued MLIR object (identifiers and types are uniqued per context, so their
/// address identifies them): the table row of an op name, whether an attribute name is one
/// the stream passes read, whether a type is dynamic. They keep string conversion and
/// hashing off the per-op path.
#[derive(Default)]
struct Caches<'c> {
    kinds: FastMap<usize, OpKind>,
    defs: FastMap<usize, Option<&'static OpDef>>,
    keys: FastMap<usize, Option<&'static str>>,
    dynamic: FastMap<usize, bool>,
    /// One shared copy of each distinct GE type and engine name.
    symbols: Interner<'c>,
}

/// What an op is to the view, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpKind {
    /// `func.return`: GE's NetOutput.
    Return,
    /// An `ascend` op: a GE node.
    Ascend,
    /// Another dialect's op: not a GE node.
    Other,
}

impl Caches<'_> {
    fn kind(&mut self, op: OperationRef) -> OpKind {
        *self
            .kinds
            .entry(op.name().to_raw().ptr as usize)
            .or_insert_with(|| {
                let name = op_name(op);
                if name == "func.return" {
                    OpKind::Return
                } else if name.starts_with("ascend.") {
                    OpKind::Ascend
                } else {
                    OpKind::Other
                }
            })
    }
}

/// What a node of op-table row `def` is to the stream passes: every question GE answers by
/// comparing type names is answered from the row's traits (see [`NodeKind`]).
pub fn node_kind(def: &OpDef) -> NodeKind {
    const MAP: &[(Trait, NodeKind)] = &[
        (Trait::Source, NodeKind::SOURCE),
        (Trait::DataLike, NodeKind::DATA),
        (Trait::ConstLike, NodeKind::CONST),
        (Trait::Hccl, NodeKind::HCCL),
        (Trait::AllReduce, NodeKind::ALL_REDUCE),
        (Trait::StreamSwitch, NodeKind::STREAM_SWITCH),
        (Trait::StreamActive, NodeKind::STREAM_ACTIVE),
        (Trait::RtsLabel, NodeKind::RTS_LABEL),
        (Trait::LoopEnter, NodeKind::LOOP_ENTER),
        (Trait::NextIteration, NodeKind::NEXT_ITERATION),
        (Trait::Case, NodeKind::CASE),
        (Trait::PartitionedCall, NodeKind::CALL),
    ];
    let mut kind = NodeKind::NONE;
    for &(t, k) in MAP {
        if def.has_trait(t) {
            kind |= k;
        }
    }
    kind
}

/// The kind of a node of GE type `ge_type`, by the op table (a generic op's type resolves
/// to its row or an alias); `NetOutput` (which this IR spells `func.return`) is
/// [`NodeKind::NET_OUTPUT`]. For views built without MLIR (tests, tools).
pub fn kind_of_ge_type(ge_type: &str) -> NodeKind {
    if ge_type == NET_OUTPUT_TYPE {
        return NodeKind::NET_OUTPUT;
    }
    op_table()
        .semantics_for_ge_type(ge_type)
        .map_or(NodeKind::NONE, node_kind)
}

/// Every attribute name [`Caches::read_node`] reads.
const KNOWN_KEYS: &[&str] = &[
    semantics::attr::NAME,
    semantics::attr::ENGINE,
    semantics::attr::TYPE,
    semantics::attr::STREAM_LABEL,
    semantics::attr::USER_STREAM_LABEL,
    attr::ENABLE_INNER_PARALLEL,
    attr::NEW_STREAM_ID,
    semantics::attr::PARALLEL_GROUP,
    attr::FUSION,
    semantics::attr::CONTINUOUS_STREAM_LABEL,
    attr::EVENT_MULTIPLEXING,
    attr::ATTACHED_STREAM_INFO,
    attr::ATTACHED_STREAM_INFO_LIST,
    attr::GROUP,
    attr::DISABLE_ATTACHED,
    attr::BATCH_NUM,
    semantics::attr::ACTIVE_LABEL_LIST,
    semantics::attr::IS_LOOP_ACTIVE,
    "_is_loop_active",
    semantics::attr::SUBGRAPH_FIRST_ACTIVE,
    "_subgraph_first_active",
    attr::SUBGRAPH_END_NODE,
    semantics::attr::RTS_LABEL_NODE,
    attr::FORCE_ATTACH_STREAM,
    attr::THREAD_SCOPE_ID,
    attr::FFTS_SUB_GRAPH,
    attr::FFTS_PLUS_SUB_GRAPH,
    semantics::attr::NODE_SQE_NUM,
    semantics::attr::HCCL_TASK_NUM,
    attr::HCCL_ATTACHED_TASK_NUM,
    attr::LOGIC_STREAM_ID,
];

impl<'c, 'a> Builder<'c, 'a> {
    /// Adds the nodes and edges of graph `g` (function `func`); returns the subgraph
    /// references of its nodes, in order: (node, symbol).
    fn graph(
        &mut self,
        g: GraphId,
        func: OperationRef<'c, 'a>,
    ) -> Result<Vec<(NodeId, String)>, ModelError<'c>> {
        let fname = string_value(func, "sym_name").unwrap_or_default();
        let region = func
            .region(0)
            .map_err(|_| ModelError::new(func.location(), format!("@{fname} has no body")))?;
        let Some(block) = region.first_block() else {
            return Err(ModelError::new(
                func.location(),
                format!("@{fname} is a declaration; a GE graph needs a body"),
            ));
        };
        if block.next_in_region().is_some() {
            return Err(ModelError::new(
                func.location(),
                format!("@{fname} has several blocks; a GE graph is a single-block function"),
            ));
        }
        self.model.funcs.push(func);
        // Everything sized by the node count is allocated once, at its final size: growing
        // by doubling would copy it into fresh memory at every step, and on a million-op
        // graph first touches of fresh pages are most of the build's time.
        let count = op_count(block);
        self.model.graph.reserve(g, count);
        self.model.ops.reserve(count);
        self.model.net_output.reserve(count);
        // Clearing a hash table writes all of its control bytes: after the root graph the
        // table has room for the root's ops, and clearing it again for each of thousands of
        // small subgraphs would cost (subgraphs x root size). A small graph gets a fresh one.
        if self.local.capacity() > 4 * count.max(64) {
            self.local = AddressMap::default();
        } else {
            self.local.clear();
        }
        self.local.reserve(count);
        let mut children = Vec::new();
        let first = self.model.ops.len();
        // Per node of this graph (index n - first): the last output index linked, and
        // whether its outputs were linked out of index order.
        let mut last_out: Vec<usize> = Vec::with_capacity(count);
        let mut unsorted: Vec<bool> = Vec::with_capacity(count);
        let mut unnamed = 0usize;
        // Names given by the `name` attribute (generated ones cannot repeat each other; a
        // clash between the two kinds is caught by the view's own validation).
        // Keyed by the address of the text: MLIR uniques string attributes, so equal names
        // are the same object (and nearby ops' names are nearby: see `AddressHasher`).
        let mut names = AddressSet::default();
        names.reserve(count);
        let mut op = block.first_operation();
        while let Some(o) = op {
            op = o.next_in_block();
            let kind = self.caches.kind(o);
            let is_return = kind == OpKind::Return;
            if kind == OpKind::Other {
                continue;
            }
            let n = if is_return {
                let mut node_name = NET_OUTPUT_NAME.to_string();
                while self.local_name_taken(g, &node_name) {
                    node_name.push('_');
                }
                let n = self
                    .model
                    .graph
                    .add_node(g, node_name, NET_OUTPUT_TYPE, NET_OUTPUT_ENGINE);
                self.model.graph.set_kind(n, NodeKind::NET_OUTPUT);
                let a = self.model.graph.attrs_mut(n);
                a.task_count = Some(0);
                a.data_like = Some(false);
                n
            } else {
                let node = self.caches.read_node(o)?;
                let node_name = match node.name {
                    Some(name) => {
                        if !names.insert(name.as_ptr() as usize) {
                            return Err(ModelError::new(
                                o.location(),
                                format!(
                                    "two nodes of graph `{fname}` are named `{name}`; GE \
                                     identifies nodes by name"
                                ),
                            ));
                        }
                        name.to_string()
                    }
                    None => {
                        unnamed += 1;
                        self.all_named = false;
                        format!("{}_{unnamed}", op_name(o).trim_start_matches("ascend."))
                    }
                };
                if node.allocated && self.model.allocated.is_none() {
                    self.model.allocated = Some(o);
                }
                if !node.has_logic_stream && self.model.unallocated.is_none() {
                    self.model.unallocated = Some(o);
                }
                let n = self
                    .model
                    .graph
                    .add_node(g, node_name, node.ge_type, node.engine);
                self.model.graph.set_kind(n, node.kind);
                if let Some(start) = node.list_start {
                    self.model.attached_lists.push((n, start));
                }
                self.model.graph.set_attrs(n, node.attrs);
                for symbol in node.subgraphs {
                    children.push((n, symbol));
                }
                n
            };
            self.model.ops.push(o);
            self.model.net_output.push(is_return);
            last_out.push(0);
            unsorted.push(false);
            self.local.insert(OpKey::of(o), n);
            if !self.model.dynamic_shape {
                self.model.dynamic_shape = o.results().any(|r| self.caches.is_dynamic(r.r#type()));
            }
            for value in o.operands() {
                let result = value
                    .is_operation_result()
                    .then(|| OperationResult::try_from(value).ok())
                    .flatten();
                let Some(result) = result else {
                    if !self.model.dynamic_shape && self.caches.is_dynamic(value.r#type()) {
                        self.model.dynamic_shape = true; // a graph input
                    }
                    continue;
                };
                let Some(&src) = self.local.get(&OpKey::of(result.owner())) else {
                    continue; // not a GE node (another dialect)
                };
                if Some(value.r#type()) == self.ctrl {
                    if !self.model.graph.node(n).ctrl_in().contains(&src) {
                        self.model.graph.add_ctrl_edge(src, n);
                    }
                    continue;
                }
                let index = result.result_number();
                if last_out[src - first] > index {
                    unsorted[src - first] = true;
                }
                last_out[src - first] = index;
                self.model.graph.add_data_edge(src, n);
            }
        }
        // GE orders a producer's consumers by output anchor first.
        for (i, _) in unsorted.iter().enumerate().filter(|(_, &u)| u) {
            let src = first + i;
            let keys = self.output_indices(src);
            self.model.graph.sort_data_out_by_key(src, &keys);
        }
        Ok(children)
    }

    /// The output index of each data edge of `src`, in the order of its `data_out`. The
    /// edges were added consumer by consumer, each consumer's operands in order, so the
    /// edges to one consumer are adjacent and its operands give their indices (only the
    /// rare producers linked out of index order need this).
    fn output_indices(&self, src: NodeId) -> Vec<usize> {
        let consumers = self.model.graph.node(src).data_out();
        let producer = OpKey::of(self.model.ops[src]);
        let mut keys = Vec::with_capacity(consumers.len());
        for (i, &c) in consumers.iter().enumerate() {
            if i > 0 && consumers[i - 1] == c {
                continue;
            }
            for value in self.model.ops[c].operands() {
                if Some(value.r#type()) == self.ctrl {
                    continue;
                }
                let result = value
                    .is_operation_result()
                    .then(|| OperationResult::try_from(value).ok())
                    .flatten();
                if let Some(result) = result {
                    if OpKey::of(result.owner()) == producer {
                        keys.push(result.result_number());
                    }
                }
            }
        }
        keys
    }

    fn local_name_taken(&self, g: GraphId, name: &str) -> bool {
        self.model
            .graph
            .graph(g)
            .nodes
            .iter()
            .any(|&n| &*self.model.graph.node(n).name == name)
    }
}

/// What one ascend op contributes to the view.
struct NodeInfo<'c> {
    name: Option<&'c str>,
    ge_type: Interned,
    engine: Interned,
    attrs: NodeAttrs,
    subgraphs: Vec<String>,
    allocated: bool,
    /// `_logic_stream_id` is set (every op of an allocated module has it).
    has_logic_stream: bool,
    /// Index of the first `_attached_stream_info_list` request in `attrs.attached`.
    list_start: Option<usize>,
    kind: NodeKind,
}

/// Reads one op: GE type and engine from the op table (as [`semantics::semantic_def`]
/// does: a generic op uses the row of its `type`), and the GE attributes the stream
/// passes read, each by GE's name (`_stream_label`, `_user_stream_label`,
/// `_enable_inner_parallel`, `NewStreamId`, `_parallel_group`, `fusion`,
/// `_continuous_stream_label`, `_event_multiplexing`, `_attached_stream_info[_list]`,
/// `_disable_attached_resource`, `_batch_num`, `_active_label_list`, `is_loop_active`,
/// `subgraph_first_active`, `_subgraph_end_node`, `_rts_label_node`,
/// `_force_attach_stream`, `_thread_scope_id`, `_ffts_sub_graph`, `_ffts_plus_sub_graph`,
/// `_node_sqe_num`, `_hccl_task_num`, `_hccl_attached_task_num`).
impl<'c> Caches<'c> {
    fn read_node(&mut self, op: OperationRef<'c, '_>) -> Result<NodeInfo<'c>, ModelError<'c>> {
        let base = *self
            .defs
            .entry(op.name().to_raw().ptr as usize)
            .or_insert_with(|| semantics::op_def(&op));
        let generic = base.is_some_and(|d| d.is_generic());
        let mut info = NodeInfo {
            name: None,
            ge_type: Interned::default(),
            engine: Interned::default(),
            attrs: NodeAttrs::default(),
            subgraphs: Vec::new(),
            allocated: false,
            has_logic_stream: false,
            list_start: None,
            kind: NodeKind::NONE,
        };
        let mut engine_override: Option<&'c str> = None;
        let mut generic_type: &'c str = "";
        let mut group: Option<String> = None;
        let mut single_info: Option<Attribute<'c>> = None;
        for (id, value) in op.attributes() {
            let known = *self
                .keys
                .entry(id.to_raw().ptr as usize)
                .or_insert_with(|| {
                    let name = id.as_string_ref();
                    let name = name.as_str().unwrap_or_default();
                    KNOWN_KEYS.iter().copied().find(|k| *k == name)
                });
            let Some(key) = known else {
                continue;
            };
            let a = &mut info.attrs;
            let bad = |what: &str| {
                ModelError::new(
                    op.location(),
                    format!("attribute `{key}` must be {what}, got {value}"),
                )
            };
            let text = || as_str(value).ok_or_else(|| bad("a string"));
            let string = || text().map(str::to_string);
            let non_empty = || string().map(|s| (!s.is_empty()).then_some(s));
            let int = || as_int(value).ok_or_else(|| bad("an integer"));
            // A node's task count: bounded so that a stream's sum cannot overflow.
            let tasks = || {
                as_int(value)
                    .filter(|n| (0..=i64::from(i32::MAX)).contains(n))
                    .ok_or_else(|| bad("a task count from 0 to 2147483647"))
            };
            let flag = || as_bool(value).ok_or_else(|| bad("a bool"));
            let strings = || as_strs(value).ok_or_else(|| bad("a string or a string list"));
            match key {
                semantics::attr::NAME => {
                    info.name = Some(
                        StringAttribute::try_from(value)
                            .ok()
                            .and_then(crate::ir::string_value)
                            .ok_or_else(|| bad("a UTF-8 string"))?,
                    )
                }
                semantics::attr::ENGINE => engine_override = Some(text()?),
                semantics::attr::TYPE if generic => generic_type = text()?,
                semantics::attr::STREAM_LABEL => a.stream_label = non_empty()?,
                semantics::attr::USER_STREAM_LABEL => a.user_stream_label = non_empty()?,
                attr::ENABLE_INNER_PARALLEL => a.enable_inner_parallel = flag()?,
                attr::NEW_STREAM_ID => a.new_stream_id = Some(int()?),
                semantics::attr::PARALLEL_GROUP => a.parallel_group = non_empty()?,
                attr::FUSION => a.fusion = Some(int()?),
                semantics::attr::CONTINUOUS_STREAM_LABEL => {
                    a.continuous_stream_label = non_empty()?
                }
                attr::EVENT_MULTIPLEXING => a.event_multiplexing = strings()?,
                attr::ATTACHED_STREAM_INFO => single_info = Some(value),
                attr::ATTACHED_STREAM_INFO_LIST => {
                    info.list_start = Some(0);
                    a.attached.extend(attached_v2(value).map_err(|m| bad(&m))?)
                }
                attr::GROUP => group = as_str(value).map(str::to_string),
                attr::DISABLE_ATTACHED => a.disable_attached = flag()?,
                attr::BATCH_NUM => a.batch_num = Some(int()?),
                semantics::attr::ACTIVE_LABEL_LIST => a.active_label_list = strings()?,
                semantics::attr::IS_LOOP_ACTIVE | "_is_loop_active" => a.is_loop_active = flag()?,
                semantics::attr::SUBGRAPH_FIRST_ACTIVE | "_subgraph_first_active" => {
                    a.subgraph_first_active = flag()?
                }
                attr::SUBGRAPH_END_NODE => a.subgraph_end_node = flag()?,
                semantics::attr::RTS_LABEL_NODE => a.rts_label_node = flag()?,
                attr::FORCE_ATTACH_STREAM => a.force_attach_stream = flag()?,
                attr::THREAD_SCOPE_ID => a.thread_scope = true,
                attr::FFTS_SUB_GRAPH | attr::FFTS_PLUS_SUB_GRAPH => {
                    a.ffts_subgraph = as_str(value).is_none_or(|s| !s.is_empty())
                }
                semantics::attr::NODE_SQE_NUM => a.node_sqe_num = Some(tasks()?),
                semantics::attr::HCCL_TASK_NUM => a.hccl_task_num = Some(tasks()?),
                attr::HCCL_ATTACHED_TASK_NUM => a.hccl_attached_task_num = Some(tasks()?),
                attr::LOGIC_STREAM_ID => {
                    info.allocated = true;
                    info.has_logic_stream = true;
                }
                _ => {}
            }
        }
        let def = match base {
            Some(b) if generic => Some(op_table().semantics_for_ge_type(generic_type).unwrap_or(b)),
            other => other,
        };
        let mut ge_type = generic_type;
        if let Some(def) = def {
            if !generic {
                ge_type = &def.ge_type;
            }
            info.engine = self.symbols.of_fixed(&def.engine);
            info.kind = node_kind(def);
            info.attrs.task_count = def.row.task_num.map(i64::from);
            if def.has_trait(Trait::Hccl) {
                info.attrs.hccl_kernel_lib = true;
            }
            if def.has_trait(Trait::Source) {
                info.attrs.data_like = Some(true);
            }
            info.allocated |= [
                Trait::Send,
                Trait::Recv,
                Trait::SendNotify,
                Trait::RecvNotify,
            ]
            .into_iter()
            .any(|t| def.has_trait(t));
            if !def.row.subgraph_attrs.is_empty() || !def.row.subgraph_list_attrs.is_empty() {
                info.subgraphs = semantics::subgraph_symbols(&op);
                info.attrs.task_count =
                    Some(control_flow_tasks(def, generic, op, info.subgraphs.len()));
            }
        }
        info.ge_type = if ge_type.is_empty() {
            self.symbols.of_text(&op_name(op))
        } else {
            self.symbols.of_fixed(ge_type)
        };
        if let Some(engine) = engine_override {
            info.engine = self.symbols.of_fixed(engine);
        }
        if let Some(value) = single_info {
            let reqs = attached_v1(value, group.as_deref()).map_err(|m| {
                ModelError::new(
                    op.location(),
                    format!("attribute `{}`: {m}", attr::ATTACHED_STREAM_INFO),
                )
            })?;
            // The single form comes first, as GE reads it first.
            if let Some(start) = info.list_start.as_mut() {
                *start += reqs.len();
            }
            info.attrs.attached.splice(0..0, reqs);
        }
        Ok(info)
    }

    /// A tensor whose shape is not fully known (GE: an unknown-shape node).
    fn is_dynamic(&mut self, ty: melior::ir::Type) -> bool {
        *self
            .dynamic
            .entry(ty.to_raw().ptr as usize)
            .or_insert_with(|| {
                ty.is_tensor()
                    && (!ty.is_ranked_tensor()
                        || RankedTensorType::try_from(ty).map_or(true, |t| !t.has_static_shape()))
            })
    }
}

/// `_attached_stream_info`: either one dictionary `{_attached_stream_policy = "group",
/// _attached_stream_key = K}` with the op's `group` attribute naming the group (the key is
/// shared across main streams), or a list of dictionaries `{_attached_stream_key = K,
/// _attached_stream_depend_value_list = "0,1"}` in the default group (the key is per main
/// stream).
fn attached_v1(value: Attribute, group: Option<&str>) -> Result<Vec<AttachedStreamReq>, String> {
    if let Some(dict) = as_dict(value) {
        let policy = dict_str(dict, attr::STREAM_POLICY)?.unwrap_or_default();
        if policy != "group" {
            return Err(format!(
                "`{}` must be \"group\" (the only policy GE supports)",
                attr::STREAM_POLICY
            ));
        }
        let group = group.ok_or("the op needs a `group` string attribute")?;
        let key = dict_str(dict, attr::STREAM_KEY)?
            .ok_or_else(|| format!("missing `{}`", attr::STREAM_KEY))?;
        return Ok(vec![AttachedStreamReq {
            group: group.to_string(),
            key,
            per_main_stream: false,
            required: true,
            depend_inputs: Vec::new(),
        }]);
    }
    let list = as_array(value).ok_or("expected a dictionary or a list of dictionaries")?;
    let mut out = Vec::new();
    for i in 0..list.len() {
        let dict = list
            .element(i)
            .ok()
            .and_then(as_dict)
            .ok_or("every element must be a dictionary")?;
        let key = dict_str(dict, attr::STREAM_KEY)?
            .ok_or_else(|| format!("missing `{}`", attr::STREAM_KEY))?;
        let depend = dict_str(dict, attr::STREAM_DEPEND_VALUE_LIST)?.unwrap_or_default();
        let depend_inputs = depend
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<usize>().map_err(|_| {
                    format!(
                        "`{}` must list input indices (\"0,2\"), got `{depend}`",
                        attr::STREAM_DEPEND_VALUE_LIST
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(AttachedStreamReq {
            group: DEFAULT_STREAM_INFO_GROUP.to_string(),
            key,
            per_main_stream: true,
            required: true,
            depend_inputs,
        });
    }
    Ok(out)
}

/// `_attached_stream_info_list` (V2): dictionaries `{_attached_resource_name = N,
/// _attached_resource_reuse_key = K, _attached_resource_force_reuse = B,
/// _attached_resource_required_flag = B}`. The reuse key is `K + N`, per main stream unless
/// `force_reuse`; `required` defaults to true.
fn attached_v2(value: Attribute) -> Result<Vec<AttachedStreamReq>, String> {
    let list = ArrayAttribute::try_from(value).map_err(|_| "a list of dictionaries".to_string())?;
    let mut out = Vec::new();
    for i in 0..list.len() {
        let dict = list
            .element(i)
            .ok()
            .and_then(as_dict)
            .ok_or("a list of dictionaries")?;
        let name = dict_str(dict, attr::RESOURCE_NAME)?
            .ok_or_else(|| format!("a list of dictionaries with `{}`", attr::RESOURCE_NAME))?;
        let reuse = dict_str(dict, attr::RESOURCE_REUSE_KEY)?.unwrap_or_default();
        let force = dict_bool(dict, attr::RESOURCE_FORCE_REUSE)?.unwrap_or(false);
        let required = dict_bool(dict, attr::RESOURCE_REQUIRED)?.unwrap_or(true);
        out.push(AttachedStreamReq {
            group: DEFAULT_STREAM_INFO_GROUP.to_string(),
            key: format!("{reuse}{name}"),
            per_main_stream: !force,
            required,
            depend_inputs: Vec::new(),
        });
    }
    Ok(out)
}

fn dict_str(dict: DictionaryAttribute, key: &str) -> Result<Option<String>, String> {
    match dict.element_by_name(key) {
        None => Ok(None),
        Some(v) => as_str(v)
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("`{key}` must be a string")),
    }
}

fn dict_bool(dict: DictionaryAttribute, key: &str) -> Result<Option<bool>, String> {
    match dict.element_by_name(key) {
        None => Ok(None),
        Some(v) => as_bool(v)
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a bool")),
    }
}

// Typed attribute readers. They test the kind first: melior's `TryFrom` prints the whole
// attribute into its error on a mismatch, far too slow for a per-op path.

fn as_str<'c>(a: Attribute<'c>) -> Option<&'c str> {
    a.is_string()
        .then(|| {
            StringAttribute::try_from(a)
                .ok()
                .and_then(crate::ir::string_value)
        })
        .flatten()
}

fn as_int(a: Attribute) -> Option<i64> {
    a.is_integer()
        .then(|| IntegerAttribute::try_from(a).ok().map(|i| i.value()))
        .flatten()
}

/// A bool, a unit attribute (true) or an integer (GE stores some flags as ints).
fn as_bool(a: Attribute) -> Option<bool> {
    if a.is_bool() {
        BoolAttribute::try_from(a).ok().map(|b| b.value())
    } else if a.is_unit() {
        Some(true)
    } else {
        as_int(a).map(|i| i != 0)
    }
}

/// A string list, or a single string as a one-element list.
fn as_strs(a: Attribute) -> Option<Vec<String>> {
    if let Some(s) = as_str(a) {
        return Some(vec![s.to_string()]);
    }
    let list = as_array(a)?;
    (0..list.len())
        .map(|i| list.element(i).ok().and_then(as_str).map(str::to_string))
        .collect()
}

fn as_array(a: Attribute) -> Option<ArrayAttribute> {
    a.is_array()
        .then(|| ArrayAttribute::try_from(a).ok())
        .flatten()
}

fn as_dict(a: Attribute) -> Option<DictionaryAttribute> {
    a.is_dictionary()
        .then(|| DictionaryAttribute::try_from(a).ok())
        .flatten()
}

/// How many ops `block` holds (a walk of its list: the ops are read right after anyway).
fn op_count(block: BlockRef) -> usize {
    let mut count = 0;
    let mut op = block.first_operation();
    while let Some(o) = op {
        count += 1;
        op = o.next_in_block();
    }
    count
}

/// The op's name, e.g. `ascend.add` (owned: MLIR hands out a temporary view).
fn op_name(op: OperationRef) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn string_value<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    let attr = op.attribute(name).ok()?;
    StringAttribute::try_from(attr)
        .ok()
        .and_then(crate::ir::string_value)
}

/// The tasks `--lower-to-tasks` puts on a functional control-flow node's own stream, for the
/// physical split's count (GE counts its label nodes and SubgraphPass copies as nodes):
/// the labels (If: switch, three LabelSets, a goto; Case of k > 1 branches: a switch, k + 1
/// LabelSets, k - 1 gotos; While: LabelSet cond and body, switch, goto, LabelSet exit), the
/// predicate's conversion to int32 unless it is an int32 scalar, and as a bound the copies
/// the memory plan may ask for at the boundaries (into each subgraph's inputs and out of
/// its outputs; a While also copies into and back to its loop variables): the plan runs
/// after the split, so the split counts each possible copy.
fn control_flow_tasks(def: &OpDef, generic: bool, op: OperationRef, subgraphs: usize) -> i64 {
    let kept = if generic {
        0
    } else {
        def.inputs
            .iter()
            .take_while(|g| g.arity == crate::dialect::Arity::Single)
            .count()
    };
    let operands = ops::num_data_operands(op);
    let args = operands.saturating_sub(kept) as i64;
    let outs = ops::data_results(op).len() as i64;
    let k = subgraphs as i64;
    let int32_scalar = || {
        ops::data_operands(op).first().is_some_and(|v| {
            let t = v.r#type().to_string();
            t == "tensor<i32>" || t == "tensor<ui32>"
        })
    };
    let boundary = k * (args + outs);
    if def.has_trait(Trait::WhileFamily) {
        5 + 1 + 2 * args + boundary
    } else if def.has_trait(Trait::Conditional) && def.has_trait(Trait::Case) {
        if k > 1 {
            2 * k + 1 + i64::from(!int32_scalar()) + boundary
        } else {
            boundary
        }
    } else if def.has_trait(Trait::Conditional) {
        5 + i64::from(!int32_scalar()) + boundary
    } else {
        boundary
    }
}
