//! A terse builder for test graphs.

use crate::analysis::stream::*;
use crate::transforms::stream::model_from_ir::kind_of_ge_type;

pub const AIC: &str = "AIcoreEngine";
pub const CPU: &str = "DNN_VM_AICPU";
pub const VEC: &str = "VectorEngine";
pub const HCCL: &str = "DNN_HCCL";
pub const LOCAL: &str = "DNN_VM_GE_LOCAL";
pub const RTS: &str = "DNN_VM_RTS";

/// Adds a node whose kind comes from the op table by its GE type, as the IR layer does.
pub fn add(sg: &mut StreamGraph, g: GraphId, name: &str, ty: &str, engine: &str) -> NodeId {
    let n = sg.add_node(g, name, ty, engine);
    sg.set_kind(n, kind_of_ge_type(ty));
    n
}

pub struct B {
    pub sg: StreamGraph,
}

impl B {
    pub fn new() -> Self {
        B {
            sg: StreamGraph::new("g"),
        }
    }
    /// A node in the root graph.
    pub fn n(&mut self, name: &str, ty: &str, engine: &str) -> NodeId {
        add(&mut self.sg, 0, name, ty, engine)
    }
    /// A compute node of `engine` in the root graph.
    pub fn op(&mut self, name: &str, engine: &str) -> NodeId {
        self.n(name, "Op", engine)
    }
    pub fn data(&mut self, name: &str) -> NodeId {
        self.n(name, "Data", LOCAL)
    }
    /// A node in graph `g`.
    pub fn ng(&mut self, g: GraphId, name: &str, ty: &str, engine: &str) -> NodeId {
        add(&mut self.sg, g, name, ty, engine)
    }
    pub fn d(&mut self, a: NodeId, b: NodeId) {
        self.sg.add_data_edge(a, b);
    }
    pub fn c(&mut self, a: NodeId, b: NodeId) {
        self.sg.add_ctrl_edge(a, b);
    }
    /// Data edges along a path.
    pub fn chain(&mut self, nodes: &[NodeId]) {
        for w in nodes.windows(2) {
            self.d(w[0], w[1]);
        }
    }
    pub fn a(&mut self, n: NodeId) -> &mut NodeAttrs {
        self.sg.attrs_mut(n)
    }
    pub fn label(&mut self, n: NodeId, l: &str) {
        self.a(n).stream_label = Some(l.to_string());
    }
    pub fn run(&self) -> Allocation {
        self.run_with(&StreamOptions::default())
    }
    pub fn run_with(&self, opts: &StreamOptions) -> Allocation {
        match allocate(&self.sg, &EngineTable::ge_default(), opts) {
            Ok(a) => a,
            Err(e) => panic!("allocation failed: {e}"),
        }
    }
    pub fn err_with(&self, opts: &StreamOptions) -> StreamError {
        match allocate(&self.sg, &EngineTable::ge_default(), opts) {
            Ok(_) => panic!("allocation unexpectedly succeeded"),
            Err(e) => e,
        }
    }
}

/// Logical stream of a node.
pub fn ls(a: &Allocation, n: NodeId) -> StreamId {
    a.logical.stream[n]
}

/// Rule behind a node's stream.
pub fn rule(a: &Allocation, n: NodeId) -> StreamRule {
    a.logical.decision(n).rule
}

/// Live syncs as (sender, receiver) pairs, by id.
pub fn live(a: &Allocation) -> Vec<(NodeId, NodeId)> {
    let mut v: Vec<(u32, NodeId, NodeId)> = a
        .syncs
        .alive()
        .map(|(_, r)| (r.id, r.send, r.recv))
        .collect();
    v.sort();
    v.into_iter().map(|(_, s, r)| (s, r)).collect()
}

/// Options with one change.
pub fn opts(key: &str, value: &str) -> StreamOptions {
    let mut o = StreamOptions::default();
    if let Err(e) = o.set(key, value) {
        panic!("{e}");
    }
    o
}
