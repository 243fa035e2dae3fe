//! The execute graph: graphs of nodes in execution order, edges by (node, output).

use std::fmt;

/// A node, unique within its graph (not reused after removal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// An out-anchor: output `output` of `node`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Endpoint {
    pub node: NodeId,
    pub output: u32,
}

/// Where a tensor's memory is (GE's `TensorPlacement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Placement {
    Host,
    Hbm,
    P2p,
}

impl Placement {
    pub fn parse(text: &str) -> Option<Placement> {
        match text {
            "host" => Some(Placement::Host),
            "hbm" => Some(Placement::Hbm),
            "p2p" => Some(Placement::P2p),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Host => "host",
            Placement::Hbm => "hbm",
            Placement::P2p => "p2p",
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a node is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A model input.
    Data {
        index: i64,
    },
    /// A weight.
    Const,
    /// A kernel of GE op type `op_type` (copies and SyncStream too).
    Kernel {
        op_type: String,
    },
    /// Releases input `release_index`; it runs after every other reader of that tensor in
    /// its graph (gert's `AddDependencyToGuarder`; `runtime::execute_graph::schedule`).
    Guarder {
        guarder_type: String,
        release_index: i64,
    },
    /// If / Case over the branch frames `branches`.
    Cond {
        op_type: String,
        branches: Vec<String>,
    },
    /// A branch input (parent input `index + 1`), `guarder_outside`: the parent guards it.
    InnerData {
        index: i64,
        guarder_outside: Option<String>,
    },
    InnerNetOutput,
    NetOutput,
    PointFromInputs,
    IdentityAddr,
}

impl Kind {
    /// The op name in the `ascend_rt` dialect.
    pub fn op_name(&self) -> &'static str {
        match self {
            Kind::Data { .. } => "ascend_rt.data",
            Kind::Const => "ascend_rt.const",
            Kind::Kernel { .. } => "ascend_rt.node",
            Kind::Guarder { .. } => "ascend_rt.guarder",
            Kind::Cond { .. } => "ascend_rt.cond",
            Kind::InnerData { .. } => "ascend_rt.inner_data",
            Kind::InnerNetOutput => "ascend_rt.inner_netoutput",
            Kind::NetOutput => "ascend_rt.netoutput",
            Kind::PointFromInputs => "ascend_rt.point_from_inputs",
            Kind::IdentityAddr => "ascend_rt.identity_addr",
        }
    }

    /// Pass-throughs whose output k is input k: the number of outputs is the inputs'.
    pub fn is_pass_through(&self) -> bool {
        matches!(self, Kind::PointFromInputs | Kind::IdentityAddr)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub id: NodeId,
    pub kind: Kind,
    /// GE's node name (empty for guarders and outputs).
    pub name: String,
    pub inputs: Vec<Endpoint>,
    pub outputs: u32,
    /// Where the outputs live (kernels, data, consts); `None`: not said.
    pub placement: Option<Placement>,
    /// Nodes of the same graph this one runs after besides its inputs' producers: the
    /// compute graph's control edges, which gert keeps as execute-graph dependencies
    /// (`after = ["name", ...]` in `ascend_rt`).
    pub after: Vec<NodeId>,
}

/// One graph (GE's execute graph or a branch frame), nodes in execution order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    pub name: String,
    /// The root graph (public function) rather than a branch frame.
    pub root: bool,
    pub nodes: Vec<Node>,
    next_id: u32,
}

impl Graph {
    pub fn new(name: impl Into<String>, root: bool) -> Self {
        Graph {
            name: name.into(),
            root,
            nodes: Vec::new(),
            next_id: 0,
        }
    }

    fn fresh(&mut self) -> NodeId {
        let id = NodeId(self.next_id);
        self.next_id += 1;
        id
    }

    /// Appends a node; returns its id.
    pub fn push(
        &mut self,
        kind: Kind,
        name: impl Into<String>,
        inputs: Vec<Endpoint>,
        outputs: u32,
    ) -> NodeId {
        let id = self.fresh();
        self.nodes.push(Node {
            id,
            kind,
            name: name.into(),
            inputs,
            outputs,
            placement: None,
            after: Vec::new(),
        });
        id
    }

    /// Inserts a node right before `before` (at the end when `before` is gone).
    pub fn insert_before(
        &mut self,
        before: NodeId,
        kind: Kind,
        name: impl Into<String>,
        inputs: Vec<Endpoint>,
        outputs: u32,
    ) -> NodeId {
        let at = self.position(before).unwrap_or(self.nodes.len());
        let id = self.fresh();
        self.nodes.insert(
            at,
            Node {
                id,
                kind,
                name: name.into(),
                inputs,
                outputs,
                placement: None,
                after: Vec::new(),
            },
        );
        id
    }

    /// Inserts a node right after `after`.
    pub fn insert_after(
        &mut self,
        after: NodeId,
        kind: Kind,
        name: impl Into<String>,
        inputs: Vec<Endpoint>,
        outputs: u32,
    ) -> NodeId {
        let at = self.position(after).map_or(self.nodes.len(), |p| p + 1);
        let id = self.fresh();
        self.nodes.insert(
            at,
            Node {
                id,
                kind,
                name: name.into(),
                inputs,
                outputs,
                placement: None,
                after: Vec::new(),
            },
        );
        id
    }

    pub fn remove(&mut self, id: NodeId) {
        self.nodes.retain(|n| n.id != id);
    }

    pub fn position(&self, id: NodeId) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    pub fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }

    /// The first node of `kind`'s variant (GE's `FindFirstNodeMatchType`).
    pub fn first(&self, matches: impl Fn(&Kind) -> bool) -> Option<&Node> {
        self.nodes.iter().find(|n| matches(&n.kind))
    }

    /// Every (consumer, input index) reading `from`.
    pub fn uses(&self, from: Endpoint) -> Vec<(NodeId, usize)> {
        self.nodes
            .iter()
            .flat_map(|n| {
                n.inputs
                    .iter()
                    .enumerate()
                    .filter(move |(_, e)| **e == from)
                    .map(move |(k, _)| (n.id, k))
            })
            .collect()
    }

    /// The graph's output node (inner or root).
    pub fn net_output(&self) -> Option<&Node> {
        self.first(|k| matches!(k, Kind::InnerNetOutput | Kind::NetOutput))
    }
}

/// A module: the root graph and the branch frames.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Module {
    pub graphs: Vec<Graph>,
}

impl Module {
    pub fn graph(&self, name: &str) -> Option<&Graph> {
        self.graphs.iter().find(|g| g.name == name)
    }

    pub fn graph_index(&self, name: &str) -> Option<usize> {
        self.graphs.iter().position(|g| g.name == name)
    }
}
