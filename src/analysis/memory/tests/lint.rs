//! GraphLint (B.20): W18888 warns about unordered writer/reader pairs on a shared output.

use super::support::B;
use crate::analysis::memory::graph_lint::{
    input_types, lint, lint_with, DfsReach, LintRw, Reach, W18888,
};
use crate::analysis::memory::model::{MemGraph, NodeId, ROOT};

/// p -> {assign (writes), r (reads)}; no order between them.
fn shared(b: &mut B) -> (NodeId, NodeId, NodeId) {
    let p = b.src("p", "Variable");
    let a = b.assign("assign");
    let r = b.reader("r", 1);
    b.e(p, 0, a, 0);
    b.e(p, 0, r, 0);
    (p, a, r)
}

#[test]
fn lint_warns_about_writer_and_reader_without_order() {
    let mut b = B::new();
    let (p, a, r) = shared(&mut b);
    let w = lint(&b.g);
    assert_eq!(w.len(), 1);
    assert_eq!(
        (w[0].writer, w[0].other, w[0].other_is_writer),
        (a, r, false)
    );
    assert_eq!(w[0].producer.node, p);
    assert!(w[0].message.starts_with(W18888));
    assert!(
        w[0].message.contains("%assign") && w[0].message.contains("%r"),
        "{}",
        w[0].message
    );
}

#[test]
fn lint_is_silent_when_ordered_by_a_control_edge() {
    let mut b = B::new();
    let (_, a, r) = shared(&mut b);
    b.ctrl(a, r);
    assert!(lint(&b.g).is_empty());
    // and the other way round: the reader runs first
    let mut b = B::new();
    let p = b.src("p", "Variable");
    let r = b.reader("r", 1);
    let a = b.assign("assign");
    b.e(p, 0, r, 0);
    b.e(p, 0, a, 0);
    assert_eq!(lint(&b.g).len(), 1);
    b.ctrl(r, a);
    assert!(lint(&b.g).is_empty());
}

#[test]
fn lint_is_silent_when_ordered_by_a_data_path() {
    let mut b = B::new();
    let (_, a, r) = shared(&mut b);
    // assign:0 -> mid -> r:1 (r needs a second input)
    b.g.node_mut(r).inputs.push(Default::default());
    let mid = b.reader("mid", 1);
    b.e(a, 0, mid, 0);
    b.e(mid, 0, r, 1);
    // keep the order topological: r after mid
    let order = &mut b.g.graph_mut(ROOT).order;
    order.retain(|&n| n != r);
    order.push(r);
    assert!(lint(&b.g).is_empty());
}

#[test]
fn lint_warns_about_two_writers_once() {
    let mut b = B::new();
    let p = b.src("p", "Variable");
    let a1 = b.assign("a1");
    let a2 = b.assign("a2");
    b.e(p, 0, a1, 0);
    b.e(p, 0, a2, 0);
    let w = lint(&b.g);
    assert_eq!(w.len(), 1, "one unordered pair, one warning");
    assert!(w[0].other_is_writer);
    assert!(w[0].message.contains("other write node"));
    b.ctrl(a1, a2);
    assert!(lint(&b.g).is_empty());
}

#[test]
fn lint_ignores_scope_writers_and_cmo_and_single_consumers() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let s = b.scope_writer("s", 1); // _input_mutable is not a name-ref writer for the lint
    let r = b.reader("r", 1);
    b.e(p, 0, s, 0);
    b.e(p, 0, r, 0);
    let q = b.src("q", "Variable");
    let cmo = b.op("cmo", "Cmo", &["x"], &["x"]);
    let r2 = b.reader("r2", 1);
    b.e(q, 0, cmo, 0);
    b.e(q, 0, r2, 0);
    let v = b.src("v", "Variable");
    let a = b.assign("a");
    b.e(v, 0, a, 0);
    assert!(lint(&b.g).is_empty());
    assert_eq!(input_types(&b.g).get(cmo, 0), LintRw::CanIgnore);
}

#[test]
fn writable_subgraph_input_propagates_to_the_parent_and_sticks() {
    let mut b = B::new();
    let p = b.src("p", "Variable");
    let f = b.op("if", "If", &["cond", "x"], &["y"]);
    let r = b.reader("r", 1);
    b.e(p, 0, f, 1);
    b.e(p, 0, r, 0);
    for (k, name) in ["then", "else"].iter().enumerate() {
        let sg = b.g.add_subgraph(name, f);
        let d = b.g.add_subgraph_data(sg, &format!("{name}_x"), 1);
        // then writes x, else only reads it: Writable sticks
        let c = if k == 0 {
            b.assign_in(sg, &format!("{name}_assign"))
        } else {
            b.reader_in(sg, &format!("{name}_r"), 1)
        };
        b.e(d, 0, c, 0);
        b.net_output(sg, &[(c, 0)]);
    }
    let types = input_types(&b.g);
    assert_eq!(types.get(f, 1), LintRw::Writable);
    let w = lint(&b.g);
    assert_eq!(w.len(), 1);
    assert_eq!((w[0].writer, w[0].other), (f, r));
}

#[test]
fn nested_writable_input_propagates_through_every_level() {
    let mut b = B::new();
    let p = b.src("p", "Variable");
    let outer = b.op("outer", "PartitionedCall", &["x0"], &["y0"]);
    let r = b.reader("r", 1);
    b.e(p, 0, outer, 0);
    b.e(p, 0, r, 0);
    let og = b.g.add_subgraph("outer_f", outer);
    let od = b.g.add_subgraph_data(og, "outer_x", 0);
    let inner = b.op_in(og, "inner", "PartitionedCall", &["x0"], &["y0"]);
    b.e(od, 0, inner, 0);
    b.net_output(og, &[(inner, 0)]);
    let ig = b.g.add_subgraph("inner_f", inner);
    let id = b.g.add_subgraph_data(ig, "inner_x", 0);
    let a = b.assign_in(ig, "inner_assign");
    b.e(id, 0, a, 0);
    b.net_output(ig, &[(a, 0)]);
    assert_eq!(input_types(&b.g).get(outer, 0), LintRw::Writable);
    assert_eq!(lint(&b.g).len(), 1);
}

#[test]
fn dfs_reach_answers_paths_through_data_and_control() {
    let mut b = B::new();
    let n: Vec<NodeId> = (0..6).map(|i| b.reader(&format!("n{i}"), 1)).collect();
    b.e(n[0], 0, n[1], 0);
    b.ctrl(n[1], n[3]);
    b.e(n[3], 0, n[5], 0);
    b.e(n[2], 0, n[4], 0);
    let reach = DfsReach::new(&b.g);
    assert!(reach.reaches(n[0], n[5]));
    assert!(reach.reaches(n[0], n[3]) && reach.reaches(n[1], n[5]));
    assert!(!reach.reaches(n[5], n[0]));
    assert!(!reach.reaches(n[0], n[4]) && !reach.reaches(n[2], n[5]));
    assert!(reach.reaches(n[2], n[4]) && reach.reaches(n[4], n[4]));
    // cached searches give the same answers in any order
    for &a in &n {
        for &c in &n {
            let fresh = DfsReach::new(&b.g);
            assert_eq!(reach.reaches(a, c), fresh.reaches(a, c), "{a:?} {c:?}");
        }
    }
}

/// A reachability oracle that counts queries (to show `lint_with` takes any oracle).
struct Counting<'a>(DfsReach<'a>, std::cell::Cell<u32>);

impl Reach for Counting<'_> {
    fn reaches(&self, a: NodeId, b: NodeId) -> bool {
        self.1.set(self.1.get() + 1);
        self.0.reaches(a, b)
    }
}

#[test]
fn lint_with_accepts_another_oracle() {
    let mut b = B::new();
    shared(&mut b);
    let c = Counting(DfsReach::new(&b.g), std::cell::Cell::new(0));
    assert_eq!(lint_with(&b.g, &c).len(), 1);
    assert!(c.1.get() >= 2);
}

/// A long chain with shared outputs every few nodes: no matrix, near-linear time.
fn big_graph(n: usize) -> MemGraph {
    let mut g = MemGraph::new("main");
    let mut prev = g.add_node(ROOT, "src", "Variable", &[], &["y"]);
    for i in 0..n {
        if i % 3 == 0 {
            // prev -> {assign (writer), next (reader)}; ordered by assign -> next ctrl
            let a = g.add_node(
                ROOT,
                &format!("a{i}"),
                "Assign",
                &["ref", "value"],
                &["ref"],
            );
            g.connect(prev, 0, a, 0);
            let r = g.add_node(ROOT, &format!("r{i}"), "Add", &["x"], &["y"]);
            g.connect(prev, 0, r, 0);
            if i % 300 != 0 {
                g.add_ctrl(a, r);
            }
            prev = r;
        } else {
            let r = g.add_node(ROOT, &format!("n{i}"), "Add", &["x"], &["y"]);
            g.connect(prev, 0, r, 0);
            prev = r;
        }
    }
    g
}

#[test]
fn lint_scales_without_a_connection_matrix() {
    let g = big_graph(60_000);
    let t = std::time::Instant::now();
    let w = lint(&g);
    assert_eq!(w.len(), 200, "one unordered pair every 300 nodes");
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
}

#[test]
#[ignore = "1M-node run; use `cargo test --release -- --ignored lint_million`"]
fn lint_million_nodes() {
    let g = big_graph(1_000_000);
    let t = std::time::Instant::now();
    let w = lint(&g);
    eprintln!("1M nodes: {} warnings in {:?}", w.len(), t.elapsed());
    assert_eq!(w.len(), 3334);
}
