//! Builders and checks shared by the tests.

use crate::analysis::memory::model::{GraphId, MemError, MemGraph, NodeId, Origin, ROOT};
use crate::analysis::memory::plan::{apply, Plan};

/// Thin builder over `MemGraph` for readable tests.
pub struct B {
    pub g: MemGraph,
}

impl B {
    pub fn new() -> B {
        B {
            g: MemGraph::new("main"),
        }
    }

    pub fn op_in(
        &mut self,
        gr: GraphId,
        name: &str,
        ty: &str,
        ins: &[&str],
        outs: &[&str],
    ) -> NodeId {
        self.g.add_node(gr, name, ty, ins, outs)
    }

    pub fn op(&mut self, name: &str, ty: &str, ins: &[&str], outs: &[&str]) -> NodeId {
        self.op_in(ROOT, name, ty, ins, outs)
    }

    /// A plain reader with `n` inputs `x0..` and one output `y`.
    pub fn reader_in(&mut self, gr: GraphId, name: &str, n: usize) -> NodeId {
        let ins: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let ins: Vec<&str> = ins.iter().map(String::as_str).collect();
        self.op_in(gr, name, "Add", &ins, &["y"])
    }

    pub fn reader(&mut self, name: &str, n: usize) -> NodeId {
        self.reader_in(ROOT, name, n)
    }

    pub fn src_in(&mut self, gr: GraphId, name: &str, ty: &str) -> NodeId {
        self.op_in(gr, name, ty, &[], &["y"])
    }

    pub fn src(&mut self, name: &str, ty: &str) -> NodeId {
        self.src_in(ROOT, name, ty)
    }

    /// `Assign(ref, value) -> ref`: input 0 is Writeable.
    pub fn assign_in(&mut self, gr: GraphId, name: &str) -> NodeId {
        self.op_in(gr, name, "Assign", &["ref", "value"], &["ref"])
    }

    pub fn assign(&mut self, name: &str) -> NodeId {
        self.assign_in(ROOT, name)
    }

    /// An op with `_input_mutable`: every input is ScopeWriteable.
    pub fn scope_writer_in(&mut self, gr: GraphId, name: &str, n: usize) -> NodeId {
        let id = self.reader_in(gr, name, n);
        let node = self.g.node_mut(id);
        node.ty = "HcomAllReduce".into();
        node.sem.input_mutable = true;
        node.sem.hccl = true;
        id
    }

    pub fn scope_writer(&mut self, name: &str, n: usize) -> NodeId {
        self.scope_writer_in(ROOT, name, n)
    }

    pub fn e(&mut self, a: NodeId, o: u32, b: NodeId, i: u32) {
        self.g.connect(a, o, b, i);
    }

    pub fn ctrl(&mut self, a: NodeId, b: NodeId) {
        self.g.add_ctrl(a, b);
    }

    pub fn net_output(&mut self, gr: GraphId, srcs: &[(NodeId, u32)]) -> NodeId {
        let name = format!("{}_NetOutput", self.g.graph(gr).name);
        let no = self.g.add_net_output(gr, &name, srcs.len());
        for (j, &(n, o)) in srcs.iter().enumerate() {
            self.g.connect(n, o, no, j as u32);
        }
        no
    }
}

/// A canonical text of the model (names, types, edges, control edges, attributes we set),
/// for comparing the planner's in-place result with `apply` of its plan.
pub fn dump(g: &MemGraph) -> String {
    let mut out = String::new();
    for gr in &g.graphs {
        out.push_str(&format!("graph {}\n", gr.name));
        for &n in &gr.order {
            let node = g.node(n);
            let ins: Vec<String> = node
                .inputs
                .iter()
                .map(|i| match i.src {
                    Some(s) => format!("{}:{}", g.node(s.node).name, s.index),
                    None => "-".into(),
                })
                .collect();
            let mut ctrl: Vec<String> = node
                .ctrl_in
                .iter()
                .map(|&s| g.node(s).name.to_string())
                .collect();
            ctrl.sort();
            out.push_str(&format!(
                "  {} {} ({}) ctrl[{}] skip={} ref={} keep={}\n",
                node.name,
                node.ty,
                ins.join(", "),
                ctrl.join(","),
                node.sem.skip_rw_conflict,
                node.sem.reference,
                node.sem.cannot_be_deleted
            ));
        }
    }
    out
}

/// Run `planner` on a copy of `g`; check the result is consistent, that `apply` of the plan
/// on another copy gives the same graph, and that a second run plans nothing. Returns the
/// plan and the resulting graph.
pub fn run_checked(
    g: &MemGraph,
    planner: impl Fn(&mut MemGraph) -> Result<Plan, MemError>,
) -> (Plan, MemGraph) {
    let mut after = g.clone();
    let plan = planner(&mut after).unwrap_or_else(|e| panic!("planner failed: {e}"));
    after
        .check_consistency()
        .unwrap_or_else(|e| panic!("inconsistent after plan: {e}\n{}", dump(&after)));
    let mut replay = g.clone();
    apply(&mut replay, &plan).expect("apply");
    assert_eq!(
        dump(&replay),
        dump(&after),
        "apply(plan) differs from the planned graph"
    );
    let mut again = after.clone();
    let second = planner(&mut again).expect("second run");
    assert!(
        second.is_empty(),
        "second run is not empty: {:#?}\n{}",
        second.steps,
        dump(&after)
    );
    (plan, after)
}

/// Live nodes inserted by `origin`.
pub fn inserted(g: &MemGraph, origin: Origin) -> Vec<NodeId> {
    (0..g.nodes.len() as u32)
        .map(NodeId)
        .filter(|&n| !g.node(n).removed && g.node(n).origin == Some(origin))
        .collect()
}

/// The producer node name feeding `n:i`.
pub fn src_name(g: &MemGraph, n: NodeId, i: u32) -> String {
    let s = g.src(n, i).expect("connected");
    g.node(s.node).name.to_string()
}

/// Tiny deterministic PRNG (xorshift64*), so the property tests need no crate.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}
