//! The frozen view stream allocation decides on (GE's graph-stability rule, spec 5.3).
//!
//! The IR layer fills a [`StreamGraph`] once — graphs in GE's order, nodes in topological
//! order per graph, the attributes GE reads, data and control edges — and hands it to
//! [`allocate`](super::allocate) together with [`StreamOptions`]. Nothing here knows MLIR:
//! the allocation is pure Rust and the IR is mutated once, at the end, from the result.
//!
//! Node ids are dense indices; the *global topological id* GE compares (`OpDesc::GetId`)
//! is the position in [`StreamGraph::all_nodes`], a pre-order walk where a node's subgraphs
//! follow the node (GE's `GetAllNodes` order).

use crate::analysis::interner::Interned;
use smallvec::SmallVec;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Index of a node in [`StreamGraph::nodes`].
pub type NodeId = usize;
/// Index of a graph in [`StreamGraph::graphs`]; 0 is the root.
pub type GraphId = usize;
/// A node's effective stream label (see `logical::effective_labels`), `None` when it has
/// none.
pub type Label = Option<Box<str>>;
/// A stream id; [`INVALID_STREAM`] (-1) means "no stream" as in GE.
pub type StreamId = i64;
/// GE's `kInvalidStream`.
pub const INVALID_STREAM: StreamId = -1;
/// GE's `kReservedTaskNum`: 7 DFX (profiling) tasks + 20 spare slots per stream.
pub const RESERVED_TASK_NUM: i64 = 27;
/// GE's `kEventReuseThreshold`: above it the `_event_multiplexing` reuse applies.
pub const EVENT_REUSE_THRESHOLD: u32 = 65500;
/// GE's `kMaxNotifyNum`.
pub const MAX_NOTIFY_NUM: u32 = 1024;
/// GE's `kMaxSubgraphDepth` for multi-dims event reuse.
pub const MAX_SUBGRAPH_DEPTH: u32 = 10;

/// One attached-stream request of a node (`_attached_stream_info` /
/// `_attached_stream_info_list`). Nodes whose requests compute the same key share a stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttachedStreamReq {
    /// Group name (`DEFAULT_STREAM_INFO_GROUP` for the list forms, the op's `group` for the
    /// single named-attrs form). Groups are assigned in byte order of their name.
    pub group: String,
    /// The reuse key before GE appends the main stream: `reuse_key + name` for the V2 list
    /// form, `reuse_key` for the older forms.
    pub key: String,
    /// When true the key gets `"_stream_<main stream>"` appended, so requests only share a
    /// stream when their nodes share a main stream (GE's default; `force_reuse` clears it).
    pub per_main_stream: bool,
    /// Only required requests get a stream (V2 `required` flag; the older forms are always
    /// required).
    pub required: bool,
    /// Data-input indices the attached stream depends on
    /// (`_attached_stream_depend_value_list`): each producer sends an event to the attached
    /// stream of this node.
    pub depend_inputs: Vec<usize>,
}

/// The attributes GE's stream passes read from an op. All optional; the defaults are what
/// an op without the attribute means.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeAttrs {
    /// `_stream_label`.
    pub stream_label: Option<String>,
    /// `_user_stream_label` (overrides the inner label, see `TransUserStreamLabel`).
    pub user_stream_label: Option<String>,
    /// `_enable_inner_parallel`: the user label becomes `<user>_<inner>`.
    pub enable_inner_parallel: bool,
    /// `NewStreamId` (MDE group).
    pub new_stream_id: Option<i64>,
    /// `_parallel_group`.
    pub parallel_group: Option<String>,
    /// HCOM `fusion` attribute (AllReduceParallel applies when > 0).
    pub fusion: Option<i64>,
    /// `_continuous_stream_label`: nodes that must stay on one physical stream.
    pub continuous_stream_label: Option<String>,
    /// `_event_multiplexing`: `"SendTo;<peer>;<id>"` / `"RecvFrom;<peer>;<id>"`.
    pub event_multiplexing: Vec<String>,
    /// Attached-stream requests.
    pub attached: Vec<AttachedStreamReq>,
    /// `_disable_attached_resource`.
    pub disable_attached: bool,
    /// `_batch_num` on a `Case`: multi-dims branches, only one runs at a time.
    pub batch_num: Option<i64>,
    /// `_active_label_list`.
    pub active_label_list: Vec<String>,
    /// `_is_loop_active`.
    pub is_loop_active: bool,
    /// `_subgraph_first_active`.
    pub subgraph_first_active: bool,
    /// `_subgraph_end_node`.
    pub subgraph_end_node: bool,
    /// `_rts_label_node`: placed on the parent (default) stream.
    pub rts_label_node: bool,
    /// `_force_attach_stream`.
    pub force_attach_stream: bool,
    /// `_thread_scope_id` present (an FFTS+ node).
    pub thread_scope: bool,
    /// `_ffts_sub_graph` / `_ffts_plus_sub_graph` present: the node and its subgraphs are
    /// skipped by event insertion.
    pub ffts_subgraph: bool,
    /// `_node_sqe_num`.
    pub node_sqe_num: Option<i64>,
    /// `_hccl_task_num`.
    pub hccl_task_num: Option<i64>,
    /// `_hccl_attached_task_num`.
    pub hccl_attached_task_num: Option<i64>,
    /// Tasks the node generates on its main stream when nothing above says otherwise (GE
    /// counts generated task defs). `None` means 1 for a node with a stream.
    pub task_count: Option<i64>,
    /// The kernel lib is `ops_kernel_info_hccl` (HCCL ops are also recognised by type).
    pub hccl_kernel_lib: bool,
    /// Data-like op (Data, Const, Variable, ...): with no inputs it joins GE's input
    /// partition and gets no stream. `None` derives it from the node's kind.
    pub data_like: Option<bool>,
}

/// What [`Node::attrs`] answers for a node without attributes (most nodes: the attributes
/// are boxed only when a node has one, which keeps a node small on million-op graphs).
static NO_ATTRS: NodeAttrs = NodeAttrs {
    stream_label: None,
    user_stream_label: None,
    enable_inner_parallel: false,
    new_stream_id: None,
    parallel_group: None,
    fusion: None,
    continuous_stream_label: None,
    event_multiplexing: Vec::new(),
    attached: Vec::new(),
    disable_attached: false,
    batch_num: None,
    active_label_list: Vec::new(),
    is_loop_active: false,
    subgraph_first_active: false,
    subgraph_end_node: false,
    rts_label_node: false,
    force_attach_stream: false,
    thread_scope: false,
    ffts_subgraph: false,
    node_sqe_num: None,
    hccl_task_num: None,
    hccl_attached_task_num: None,
    task_count: None,
    hccl_kernel_lib: false,
    data_like: None,
};

/// The edges of one kind at one side of a node: most nodes have one or two, held inline
/// (a million-op graph would otherwise allocate four heap blocks per node, and on a fresh
/// heap every page they land on costs a fault).
pub(crate) type EdgeList = SmallVec<[NodeId; 2]>;

/// A node of the frozen view. Kept small and with one heap block (the name): a
/// million-op graph holds a million of them.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: Box<str>,
    /// GE op type (`HcomAllReduce`, `StreamSwitch`, ...), for names and reports only: the
    /// passes ask [`Node::kind`]. Shared between the nodes of one type (see
    /// [`StreamGraph::add_node`]).
    pub ty: Interned,
    /// What the node is, for every question GE answers by comparing type names.
    pub kind: NodeKind,
    /// Engine name as in engine_conf.json (`AIcoreEngine`, `DNN_HCCL`, ...). May be empty
    /// for data-like source nodes. Shared like [`Self::ty`].
    pub engine: Interned,
    pub graph: GraphId,
    /// `None` when the node has no attribute (see [`Node::attrs`]); shared between nodes
    /// whose attributes all come from the op table (see [`StreamGraph::set_attrs`]).
    attrs: Option<Arc<NodeAttrs>>,
    pub(crate) subgraphs: Vec<GraphId>,
    pub(crate) data_in: EdgeList,
    pub(crate) data_out: EdgeList,
    pub(crate) ctrl_in: EdgeList,
    pub(crate) ctrl_out: EdgeList,
}

impl Node {
    /// The GE attributes the stream passes read.
    pub fn attrs(&self) -> &NodeAttrs {
        self.attrs.as_deref().unwrap_or(&NO_ATTRS)
    }
    /// Subgraphs owned by this node, in instance order.
    pub fn subgraphs(&self) -> &[GraphId] {
        &self.subgraphs
    }
    /// Data producers, one entry per input edge, in input order.
    pub fn data_in(&self) -> &[NodeId] {
        &self.data_in
    }
    /// Data consumers, one entry per edge, in output order.
    pub fn data_out(&self) -> &[NodeId] {
        &self.data_out
    }
    pub fn ctrl_in(&self) -> &[NodeId] {
        &self.ctrl_in
    }
    pub fn ctrl_out(&self) -> &[NodeId] {
        &self.ctrl_out
    }
    /// Data then control producers (GE's `GetInAllNodes`/`GetInNodes`).
    pub fn in_all(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.data_in.iter().chain(self.ctrl_in.iter()).copied()
    }
    /// Data then control consumers (GE's `GetOutAllNodes`).
    pub fn out_all(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.data_out.iter().chain(self.ctrl_out.iter()).copied()
    }
    /// Whether the node is data-like for partitioning (GE's `IsDataLike`): the explicit
    /// attribute, else a [`NodeKind::SOURCE`].
    pub fn is_data_like(&self) -> bool {
        self.attrs()
            .data_like
            .unwrap_or_else(|| self.kind.is(NodeKind::SOURCE))
    }
    /// GE's `IsHcclOp`: HCCL kernel lib or an HCCL collective.
    pub fn is_hccl(&self) -> bool {
        self.attrs().hccl_kernel_lib || self.kind.is(NodeKind::HCCL)
    }
    pub fn is(&self, kind: NodeKind) -> bool {
        self.kind.is(kind)
    }
}

/// What a node is, for the questions GE answers by comparing type names (`StreamSwitch`,
/// `Enter`, `NetOutput`, ...). A set of flags: the IR layer fills it from the op table's
/// traits (`transforms::stream::model_from_ir::node_kind`), so the decisions never look at
/// type names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodeKind(u32);

impl NodeKind {
    pub const NONE: NodeKind = NodeKind(0);
    /// A graph input or constant (Data, RefData, Const, Constant, Variable, ...): GE's
    /// `IsDataLike` for the input partition; kept on the main stream in dynamic shape.
    pub const SOURCE: NodeKind = NodeKind(1);
    /// GE's data-like set (Data, RefData, AippData, AnnData).
    pub const DATA: NodeKind = NodeKind(1 << 1);
    /// Const, Constant, ConstPlaceHolder.
    pub const CONST: NodeKind = NodeKind(1 << 2);
    /// An HCCL collective (`hccl_op_types`).
    pub const HCCL: NodeKind = NodeKind(1 << 3);
    /// HcomAllReduce: the seed of AllReduceParallel.
    pub const ALL_REDUCE: NodeKind = NodeKind(1 << 4);
    pub const STREAM_SWITCH: NodeKind = NodeKind(1 << 5);
    pub const STREAM_ACTIVE: NodeKind = NodeKind(1 << 6);
    /// LabelSet, LabelGotoEx, LabelSwitchByIndex: never a split point.
    pub const RTS_LABEL: NodeKind = NodeKind(1 << 7);
    /// Enter, RefEnter: a loop entry (no event to anything but a StreamActive).
    pub const LOOP_ENTER: NodeKind = NodeKind(1 << 8);
    /// NextIteration, RefNextIteration.
    pub const NEXT_ITERATION: NodeKind = NodeKind(1 << 9);
    /// Case (and StatelessCase): with `_batch_num` its branches are multi-dims.
    pub const CASE: NodeKind = NodeKind(1 << 10);
    /// The graph's NetOutput.
    pub const NET_OUTPUT: NodeKind = NodeKind(1 << 11);
    /// PartitionedCall (and StatefulPartitionedCall): one subgraph that always runs, no
    /// labels (the physical split lets its body continue the caller's stream).
    pub const CALL: NodeKind = NodeKind(1 << 12);

    /// Whether every flag of `other` is set.
    pub fn is(self, other: NodeKind) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }
    /// Whether any flag of `other` is set.
    pub fn any(self, other: NodeKind) -> bool {
        self.0 & other.0 != 0
    }
}

impl std::ops::BitOr for NodeKind {
    type Output = NodeKind;
    fn bitor(self, rhs: NodeKind) -> NodeKind {
        NodeKind(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for NodeKind {
    fn bitor_assign(&mut self, rhs: NodeKind) {
        self.0 |= rhs.0;
    }
}

/// A graph: the root or a subgraph of a control-flow node.
#[derive(Clone, Debug)]
pub struct Graph {
    pub name: String,
    pub parent: Option<NodeId>,
    /// Nodes in topological order.
    pub nodes: Vec<NodeId>,
}

/// The frozen view of a root graph and its subgraphs.
#[derive(Clone, Debug)]
pub struct StreamGraph {
    graphs: Vec<Graph>,
    nodes: Vec<Node>,
    /// The attribute sets given to many nodes (see [`Self::set_attrs`]).
    shared_attrs: Vec<Arc<NodeAttrs>>,
    /// The importer checked that names are unique per graph ([`Self::mark_names_unique`]).
    names_unique: bool,
    /// [`Self::all_nodes`] and [`Self::graph_order`] of a graph with subgraphs, made on
    /// first use (the passes ask for them a few times each; on a million-op graph each
    /// walk reads every node) and dropped when a node or a subgraph is added.
    all_nodes: OnceLock<Vec<NodeId>>,
    graph_order: OnceLock<Vec<GraphId>>,
}

impl StreamGraph {
    /// A view holding only an empty root graph.
    pub fn new(root_name: &str) -> Self {
        StreamGraph {
            graphs: vec![Graph {
                name: root_name.to_string(),
                parent: None,
                nodes: Vec::new(),
            }],
            nodes: Vec::new(),
            shared_attrs: Vec::new(),
            names_unique: false,
            all_nodes: OnceLock::new(),
            graph_order: OnceLock::new(),
        }
    }

    /// Forgets the cached orders: the graph structure changed.
    fn structure_changed(&mut self) {
        self.all_nodes.take();
        self.graph_order.take();
    }

    /// Records that the importer has checked that node names are unique per graph, so
    /// [`Self::validate`] need not hash every name again (on a million-op graph that is a
    /// million random accesses into a table that does not fit in cache). The IR importer
    /// can do it cheaply: MLIR uniques string attributes, so two `name` attributes are
    /// equal exactly when they are the same object. Adding a node clears it.
    pub fn mark_names_unique(&mut self) {
        self.names_unique = true;
    }

    /// Adds a subgraph owned by `parent`; a node's subgraphs are added in instance order.
    /// The passes visit graphs in GE's `GetAllSubgraphs` order ([`Self::graph_order`]),
    /// which does not depend on the order subgraphs are added in.
    pub fn add_subgraph(&mut self, name: &str, parent: NodeId) -> GraphId {
        let id = self.graphs.len();
        self.graphs.push(Graph {
            name: name.to_string(),
            parent: Some(parent),
            nodes: Vec::new(),
        });
        self.nodes[parent].subgraphs.push(id);
        self.structure_changed();
        id
    }

    /// Makes room for `nodes` more nodes, all of them in graph `graph`: an importer
    /// that knows the size of what it reads saves the doubling reallocations (each one
    /// copies the nodes into fresh memory).
    pub fn reserve(&mut self, graph: GraphId, nodes: usize) {
        self.reserve_nodes(nodes);
        self.graphs[graph].nodes.reserve(nodes);
    }

    /// Makes room for `nodes` more nodes in all (for an importer that counts the whole
    /// module before it reads graph by graph).
    pub fn reserve_nodes(&mut self, nodes: usize) {
        self.nodes.reserve(nodes);
    }

    /// Appends a node to `graph`; call in topological order. `ty` and `engine` take an
    /// [`Interned`] so that an importer can share one copy of each distinct value between
    /// all nodes (see [`crate::analysis::interner`]); a `&str` makes a copy of its own.
    pub fn add_node(
        &mut self,
        graph: GraphId,
        name: impl Into<Box<str>>,
        ty: impl Into<Interned>,
        engine: impl Into<Interned>,
    ) -> NodeId {
        let id = self.nodes.len();
        self.names_unique = false;
        self.structure_changed();
        self.nodes.push(Node {
            name: name.into(),
            ty: ty.into(),
            kind: NodeKind::NONE,
            engine: engine.into(),
            graph,
            attrs: None,
            subgraphs: Vec::new(),
            data_in: EdgeList::new(),
            data_out: EdgeList::new(),
            ctrl_in: EdgeList::new(),
            ctrl_out: EdgeList::new(),
        });
        self.graphs[graph].nodes.push(id);
        id
    }

    /// Adds a data edge (one per consumed value).
    pub fn add_data_edge(&mut self, src: NodeId, dst: NodeId) {
        self.nodes[src].data_out.push(dst);
        self.nodes[dst].data_in.push(src);
    }

    /// Adds a control edge.
    pub fn add_ctrl_edge(&mut self, src: NodeId, dst: NodeId) {
        self.nodes[src].ctrl_out.push(dst);
        self.nodes[dst].ctrl_in.push(src);
    }

    /// Reorders the data consumers of `src` by `keys` (stably): `keys[i]` belongs to the
    /// i-th edge in the current order. An importer that adds edges consumer by consumer
    /// (so every `data_in` is in input order) uses it to put each producer's `data_out` in
    /// GE's order: output index first, then link order. Returns `false` (and changes
    /// nothing) when `keys` does not have one key per edge.
    pub fn sort_data_out_by_key<K: Ord + Copy>(&mut self, src: NodeId, keys: &[K]) -> bool {
        let out = &mut self.nodes[src].data_out;
        if keys.len() != out.len() {
            return false;
        }
        let mut pairs: Vec<(K, NodeId)> = keys.iter().copied().zip(out.iter().copied()).collect();
        pairs.sort_by_key(|&(k, _)| k);
        for (slot, (_, n)) in out.iter_mut().zip(pairs) {
            *slot = n;
        }
        true
    }

    /// Sets what node `node` is (see [`NodeKind`]).
    pub fn set_kind(&mut self, node: NodeId, kind: NodeKind) {
        self.nodes[node].kind = kind;
    }

    /// Sets every attribute of `node` (a node without any stays small). Attributes that
    /// only restate the op table (the task count, data-like, HCCL kernel lib: a `Const`'s,
    /// say) are the same on many nodes, and those nodes share one copy.
    pub fn set_attrs(&mut self, node: NodeId, attrs: NodeAttrs) {
        if attrs == NO_ATTRS {
            self.nodes[node].attrs = None;
            return;
        }
        let from_table = NodeAttrs {
            task_count: attrs.task_count,
            hccl_kernel_lib: attrs.hccl_kernel_lib,
            data_like: attrs.data_like,
            ..NO_ATTRS.clone()
        };
        if attrs != from_table {
            self.nodes[node].attrs = Some(Arc::new(attrs));
            return;
        }
        let shared = match self.shared_attrs.iter().find(|a| ***a == attrs) {
            Some(a) => a.clone(),
            None => {
                let a = Arc::new(attrs);
                self.shared_attrs.push(a.clone());
                a
            }
        };
        self.nodes[node].attrs = Some(shared);
    }

    pub fn attrs_mut(&mut self, node: NodeId) -> &mut NodeAttrs {
        Arc::make_mut(self.nodes[node].attrs.get_or_insert_with(Default::default))
    }
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// Whether `n` lies (transitively) inside a subgraph of `ancestor`.
    pub fn is_ancestor(&self, ancestor: NodeId, n: NodeId) -> bool {
        let mut parent = self.graphs[self.nodes[n].graph].parent;
        while let Some(p) = parent {
            if p == ancestor {
                return true;
            }
            parent = self.graphs[self.nodes[p].graph].parent;
        }
        false
    }

    pub fn graph(&self, id: GraphId) -> &Graph {
        &self.graphs[id]
    }
    pub fn graphs(&self) -> &[Graph] {
        &self.graphs
    }
    pub fn root_name(&self) -> &str {
        &self.graphs[0].name
    }
    /// Finds a node by name (first match in node order).
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| &*n.name == name)
    }

    /// Each node's index in its own graph's order.
    pub fn positions(&self) -> Vec<usize> {
        let mut pos = vec![0; self.nodes.len()];
        for g in &self.graphs {
            for (i, &n) in g.nodes.iter().enumerate() {
                pos[n] = i;
            }
        }
        pos
    }

    /// All nodes in GE's `GetAllNodes` order: each graph's nodes in order, a node's
    /// subgraphs' nodes right after it. The position is the node's global topological id.
    pub fn all_nodes(&self) -> &[NodeId] {
        if self.graphs.len() == 1 {
            // No node owns a subgraph: the root's own order.
            return &self.graphs[0].nodes;
        }
        self.all_nodes.get_or_init(|| {
            let mut out = Vec::with_capacity(self.nodes.len());
            // Explicit stack of (graph, next index) so deep nesting cannot overflow.
            let mut stack: Vec<(GraphId, usize)> = vec![(0, 0)];
            while let Some((g, i)) = stack.pop() {
                let Some(&n) = self.graphs[g].nodes.get(i) else {
                    continue;
                };
                out.push(n);
                stack.push((g, i + 1));
                for &sg in self.nodes[n].subgraphs.iter().rev() {
                    stack.push((sg, 0));
                }
            }
            out
        })
    }

    /// The root, then every subgraph in GE's `GetAllSubgraphs` order. GE's topological sort
    /// resets the root's subgraph list to the order `AllGraphNodes` discovers them: a deque
    /// of nodes, root nodes first; popping a node appends its subgraphs in *reverse*
    /// instance order and puts each one's nodes at the front (so the first instance's nodes
    /// are walked first, as in [`Self::all_nodes`]). For `b(If: then T, else E)` whose `T`
    /// holds a call with subgraph `P`, followed by `c(While: cond C, body B)`, that is
    /// `E, T, P, B, C`. A graph always comes after the graph of its parent node.
    pub fn graph_order(&self) -> &[GraphId] {
        if self.graphs.len() == 1 {
            return &[0];
        }
        self.graph_order.get_or_init(|| {
            let mut out = Vec::with_capacity(self.graphs.len());
            out.push(0);
            let mut candidates: std::collections::VecDeque<NodeId> =
                self.graphs[0].nodes.iter().copied().collect();
            while let Some(n) = candidates.pop_front() {
                for &g in self.nodes[n].subgraphs.iter().rev() {
                    out.push(g);
                    for &m in self.graphs[g].nodes.iter().rev() {
                        candidates.push_front(m);
                    }
                }
            }
            out
        })
    }

    /// Checks what the allocation relies on: edges stay inside one graph and point forward
    /// in the graph's order, node names are unique per graph, every subgraph is reachable.
    pub fn validate(&self) -> Result<(), StreamError> {
        let mut pos = vec![usize::MAX; self.nodes.len()];
        for g in &self.graphs {
            if self.names_unique {
                for (i, &n) in g.nodes.iter().enumerate() {
                    pos[n] = i;
                }
                continue;
            }
            let mut names: FastMap<&str, NodeId> = FastMap::default();
            names.reserve(g.nodes.len());
            for (i, &n) in g.nodes.iter().enumerate() {
                pos[n] = i;
                if names.insert(&self.nodes[n].name, n).is_some() {
                    return Err(StreamError::new(
                        ErrorKind::InvalidGraph,
                        format!("duplicate node name in graph `{}`", g.name),
                    )
                    .at(&self.nodes[n].name));
                }
            }
        }
        for (id, n) in self.nodes.iter().enumerate() {
            for &src in n.data_in.iter().chain(&n.ctrl_in) {
                let s = &self.nodes[src];
                if s.graph != n.graph {
                    return Err(StreamError::new(
                        ErrorKind::InvalidGraph,
                        format!("edge from `{}` crosses graphs", s.name),
                    )
                    .at(&n.name));
                }
                if pos[src] >= pos[id] {
                    return Err(StreamError::new(
                        ErrorKind::InvalidGraph,
                        format!(
                            "edge from `{}` does not follow the topological order of graph `{}`",
                            s.name, self.graphs[n.graph].name
                        ),
                    )
                    .at(&n.name));
                }
            }
        }
        let reached = self.all_nodes().len();
        if reached != self.nodes.len() {
            return Err(StreamError::new(
                ErrorKind::InvalidGraph,
                format!(
                    "{} node(s) are in graphs not reachable from the root",
                    self.nodes.len() - reached
                ),
            ));
        }
        Ok(())
    }
}

/// One engine of engine_conf.json plus its `compute_cost` (engine priority).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConf {
    pub name: String,
    pub scheduler_id: String,
    /// Owns its streams (HCCL): never reused by dependency.
    pub independent: bool,
    /// May ride on a predecessor's stream of another engine.
    pub attach: bool,
    /// `skip_assign_stream`: nodes may end up without a stream.
    pub skip_assign_stream: bool,
    /// Lower is preferred when choosing which predecessor's stream to reuse.
    pub compute_cost: u32,
}

/// The engine configuration, keyed by engine name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineTable {
    engines: BTreeMap<String, EngineConf>,
}

impl EngineTable {
    /// GE's engine_conf.json (scheduler `TS_1`) and engine priorities (notes C.1).
    pub fn ge_default() -> Self {
        // (name, independent, attach, skip, cost)
        const ROWS: &[(&str, bool, bool, bool, u32)] = &[
            ("DNN_VM_CUSTOM", false, false, false, 0),
            ("AIcoreEngine", false, false, false, 1),
            ("ffts_plus", false, true, true, 1),
            ("VectorEngine", false, false, false, 2),
            ("DSAEngine", false, false, false, 2),
            ("DNN_VM_RTS", false, true, false, 2),
            ("DNN_HCCL", true, false, false, 2),
            ("DNN_VM_AICPU_FFTS_PLUS", false, true, false, 2),
            ("DNN_VM_AICPU_ASCEND_FFTS_PLUS", false, true, false, 2),
            ("DNN_VM_RTS_FFTS_PLUS", false, true, false, 2),
            ("DNN_VM_AICPU", false, true, false, 3),
            ("DNN_VM_AICPU_ASCEND", false, true, false, 4),
            ("DNN_VM_DVPP", false, true, false, 5),
            ("DNN_VM_GE_LOCAL", false, true, true, 9),
            ("DNN_VM_HOST_CPU", false, true, true, 10),
        ];
        let engines = ROWS
            .iter()
            .map(|&(name, independent, attach, skip, cost)| {
                (
                    name.to_string(),
                    EngineConf {
                        name: name.to_string(),
                        scheduler_id: "TS_1".to_string(),
                        independent,
                        attach,
                        skip_assign_stream: skip,
                        compute_cost: cost,
                    },
                )
            })
            .collect();
        EngineTable { engines }
    }

    pub fn get(&self, name: &str) -> Option<&EngineConf> {
        self.engines.get(name)
    }

    /// Adds or replaces an engine.
    pub fn insert(&mut self, conf: EngineConf) {
        self.engines.insert(conf.name.clone(), conf);
    }
}

impl Default for EngineTable {
    fn default() -> Self {
        Self::ge_default()
    }
}

/// Options as GE users know them (`ge.*`), plus the limits GE gets from the runtime.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamOptions {
    /// `ge.enableSingleStream`.
    pub single_stream: bool,
    /// `ge.hcomParallel`.
    pub hcom_parallel: bool,
    /// `ge.streamMaxParallelNum`, parsed (`"ENGINE:N,..."`); engines not listed get 1.
    pub max_parallel: BTreeMap<String, i64>,
    /// `ge.exec.memoryOptimizationPolicy == "MemoryPriority"`: no engine-conflict check.
    pub memory_priority: bool,
    /// `ge.autoMultistreamParallelMode` (only checked against single-stream mode).
    pub auto_multistream_mode: Option<String>,
    /// `ge.event == "notify"`: synchronise with notifies instead of events.
    pub use_notify: bool,
    /// Max tasks per normal stream (`rtGetMaxStreamAndTask(NORMAL)`; GE stub 1024).
    pub max_task_normal: i64,
    /// Max tasks per huge stream (GE stub 8192).
    pub max_task_huge: i64,
    /// Max streams (normal; GE stub 1024).
    pub max_stream_normal: i64,
    /// Max streams when a huge stream is used (GE stub 8192).
    pub max_stream_huge: i64,
    /// Whether the runtime supports huge streams.
    pub huge_stream_supported: bool,
    /// `FEATURE_TYPE_PERSISTENT_STREAM_UNLIMITED_DEPTH`: the runtime splits, GE does not.
    pub unlimited_stream_depth: bool,
    /// The graph is dynamic-shape (unknown shape): single stream unless enabled below.
    pub dynamic_shape: bool,
    /// `ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1`.
    pub dynamic_multi_stream: bool,
    /// Event id limit (hardware; A2/A3: 65536).
    pub max_events: u32,
    /// Notify limit (GE's `kMaxNotifyNum`).
    pub max_notifies: u32,
    /// Above this event count the `_event_multiplexing` reuse applies (GE: 65500).
    pub event_reuse_threshold: u32,
    /// Beyond GE: drop events implied by stream order plus the other events.
    pub minimize_events: bool,
    /// Beyond GE: a subgraph node fed only by the subgraph's inputs joins the parent
    /// stream before its consumer (`subgraph_entry`), instead of a stream of its own.
    pub subgraph_entry_parent: bool,
    /// Bound on the cycle search of the engine partitioner (see `partition`).
    pub partition_search_budget: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            single_stream: false,
            hcom_parallel: false,
            max_parallel: BTreeMap::new(),
            memory_priority: false,
            auto_multistream_mode: None,
            use_notify: false,
            max_task_normal: 1024,
            max_task_huge: 8192,
            max_stream_normal: 1024,
            max_stream_huge: 8192,
            huge_stream_supported: true,
            unlimited_stream_depth: false,
            dynamic_shape: false,
            dynamic_multi_stream: false,
            max_events: 65536,
            max_notifies: MAX_NOTIFY_NUM,
            event_reuse_threshold: EVENT_REUSE_THRESHOLD,
            minimize_events: true,
            subgraph_entry_parent: true,
            partition_search_budget: 4096,
        }
    }
}

impl StreamOptions {
    /// Parses `ge.streamMaxParallelNum`: `"ENGINE:N,ENGINE:N"`, N ≥ 1.
    pub fn parse_max_parallel(text: &str) -> Result<BTreeMap<String, i64>, StreamError> {
        let mut out = BTreeMap::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || {
                StreamError::new(
                    ErrorKind::InvalidOption,
                    format!(
                        "ge.streamMaxParallelNum: `{item}` is not ENGINE:N with N a positive integer"
                    ),
                )
            };
            let (engine, n) = item.rsplit_once(':').ok_or_else(bad)?;
            let n: i64 = n.trim().parse().map_err(|_| bad())?;
            if engine.trim().is_empty() || n < 1 {
                return Err(bad());
            }
            out.insert(engine.trim().to_string(), n);
        }
        Ok(out)
    }

    /// Sets one option by its GE name (or our own name for the limits), so a pass registry
    /// can forward `key=value` pairs unchanged.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), StreamError> {
        let boolean = |v: &str| -> Result<bool, StreamError> {
            match v {
                "true" | "1" => Ok(true),
                "false" | "0" | "" => Ok(false),
                _ => Err(StreamError::new(
                    ErrorKind::InvalidOption,
                    format!("option {key}: `{v}` is not true or false"),
                )),
            }
        };
        let int = |v: &str| -> Result<i64, StreamError> {
            // Bounded so that task and event arithmetic over a million nodes cannot overflow.
            v.parse::<i64>()
                .ok()
                .filter(|&n| n > 0 && n <= i64::from(i32::MAX))
                .ok_or_else(|| {
                    StreamError::new(
                        ErrorKind::InvalidOption,
                        format!("option {key}: `{v}` is not a positive integer up to 2147483647"),
                    )
                })
        };
        let narrow = |n: i64| -> Result<u32, StreamError> {
            u32::try_from(n).map_err(|_| {
                StreamError::new(
                    ErrorKind::InvalidOption,
                    format!("option {key}: {n} is out of range"),
                )
            })
        };
        match key {
            "ge.enableSingleStream" | "single-stream" => self.single_stream = boolean(value)?,
            "ge.hcomParallel" | "hcom-parallel" => self.hcom_parallel = boolean(value)?,
            "ge.streamMaxParallelNum" | "max-parallel" => {
                self.max_parallel = Self::parse_max_parallel(value)?
            }
            "ge.exec.memoryOptimizationPolicy" => self.memory_priority = value == "MemoryPriority",
            "ge.autoMultistreamParallelMode" => {
                self.auto_multistream_mode = (!value.is_empty()).then(|| value.to_string())
            }
            "ge.event" | "event" => match value {
                "notify" => self.use_notify = true,
                "event" | "" => self.use_notify = false,
                _ => {
                    return Err(StreamError::new(
                        ErrorKind::InvalidOption,
                        format!("option {key}: `{value}` is not event or notify"),
                    ))
                }
            },
            "max-task-normal" => self.max_task_normal = int(value)?,
            "max-task-huge" => self.max_task_huge = int(value)?,
            "max-stream-normal" => self.max_stream_normal = int(value)?,
            "max-stream-huge" => self.max_stream_huge = int(value)?,
            "huge-stream" => self.huge_stream_supported = boolean(value)?,
            "unlimited-stream-depth" => self.unlimited_stream_depth = boolean(value)?,
            "dynamic-shape" => self.dynamic_shape = boolean(value)?,
            "ENABLE_DYNAMIC_SHAPE_MULTI_STREAM" | "dynamic-multi-stream" => {
                self.dynamic_multi_stream = boolean(value)?
            }
            "max-events" => self.max_events = narrow(int(value)?)?,
            "max-notifies" => self.max_notifies = narrow(int(value)?)?,
            "event-reuse-threshold" => self.event_reuse_threshold = narrow(int(value)?)?,
            "minimize-events" => self.minimize_events = boolean(value)?,
            "subgraph-entry-parent" => self.subgraph_entry_parent = boolean(value)?,
            _ => {
                return Err(StreamError::new(
                    ErrorKind::InvalidOption,
                    format!("unknown stream allocation option `{key}`"),
                ))
            }
        }
        Ok(())
    }

    /// `max_parallel_num` of an engine (GE default 1).
    pub fn max_parallel_of(&self, engine: &str) -> i64 {
        self.max_parallel.get(engine).copied().unwrap_or(1)
    }
}

/// What went wrong; `code()` gives GE's error code where GE has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidGraph,
    InvalidOption,
    /// E10055: single-stream mode and a stream label.
    SingleStreamLabel,
    /// E10056: single-stream mode and `ge.autoMultistreamParallelMode`.
    SingleStreamAutoMultistream,
    UnknownEngine,
    /// A non-skip engine subgraph got no stream (INTERNAL_ERROR in GE).
    UnassignedSubgraph,
    /// A consumer of a node with a stream has none.
    InvalidStream,
    EventMultiplexing,
    NestingTooDeep,
    TooManyEvents,
    TooManyNotifies,
    TooManyStreams,
    Split,
    Activation,
}

impl ErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::SingleStreamLabel => "E10055",
            ErrorKind::SingleStreamAutoMultistream => "E10056",
            ErrorKind::InvalidOption => "PARAM_INVALID",
            ErrorKind::EventMultiplexing => "PARAM_INVALID",
            _ => "FAILED",
        }
    }
}

/// An allocation error, naming the node it is about when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamError {
    pub kind: ErrorKind,
    pub message: String,
    pub node: Option<String>,
}

impl StreamError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        StreamError {
            kind,
            message: message.into(),
            node: None,
        }
    }
    /// Attaches the node name the error is about.
    pub fn at(mut self, node: &str) -> Self {
        self.node = Some(node.to_string());
        self
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(n) => write!(f, "[{}] node `{}`: {}", self.kind.code(), n, self.message),
            None => write!(f, "[{}] {}", self.kind.code(), self.message),
        }
    }
}

impl std::error::Error for StreamError {}

/// A fast hasher for the internal maps keyed by ids and names (no DoS concern: the keys
/// come from the compiler's own graph): a folded 128-bit multiply per 8 bytes, and for
/// integers (one multiply, and every output bit depends on every input bit: hashbrown
/// takes the bucket from the low bits and the tag from the high ones, and keys such as
/// `(from << 32) | to` must not collide on either).
#[derive(Default, Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Fnv {
    fn mix(&mut self, v: u64) {
        let m = u128::from(self.0 ^ v) * 0x9E37_79B9_7F4A_7C15_u128;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write_u64(&mut self, v: u64) {
        self.mix(v);
    }
    fn write_u32(&mut self, v: u32) {
        self.mix(u64::from(v));
    }
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64);
    }
    /// Bytes (names): eight at a time through the integer mix, the tail padded.
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        self.mix(u64::from_le_bytes(w) ^ ((bytes.len() as u64) << 56));
    }
}

// Maps keyed by the addresses of objects MLIR allocates in program order (ops, uniqued
// strings): see `AddressHasher`.
pub(crate) use crate::analysis::fast_hash::{AddressMap, AddressSet};

/// A `HashMap` with [`Fnv`].
pub(crate) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

/// A `HashSet` with [`Fnv`].
pub(crate) type FastSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<Fnv>>;
