//! The layout pass's analysis API (B.19): the conflict query in-place reuse asks after a
//! merge, the skip rules, and the top static graphs.

use super::support::{run_checked, B};
use crate::analysis::memory::layout::{
    is_graph_exist_mem_conflict_symbol, plan_mem_layout_conflict, skip_insert_in, skip_insert_out,
    top_static_graphs, LayoutFacts, LayoutOptions,
};
use crate::analysis::memory::model::{
    DType, InPort, MemGraph, NodeId, Origin, OutPort, TensorDesc, ROOT,
};
use crate::analysis::memory::symbols::{Anchor, Symbols};

/// Every port of every node gets `f32[4]` (static, so copies may be inserted).
fn typed(g: &mut MemGraph) {
    let t = g.intern_tensor(TensorDesc::new(DType::F32, Some(vec![4])));
    for node in &mut g.nodes {
        node.inputs.iter_mut().for_each(|x| x.tensor = t);
        node.outputs.iter_mut().for_each(|x| x.tensor = t);
    }
}

/// `k = Const; r = Relu(k); return r`.
fn const_relu_out() -> (B, NodeId, NodeId, NodeId) {
    let mut b = B::new();
    let k = b.src("k", "Const");
    let r = b.reader("r", 1);
    b.e(k, 0, r, 0);
    let no = b.net_output(ROOT, &[(r, 0)]);
    typed(&mut b.g);
    (b, k, r, no)
}

#[test]
fn merging_an_input_into_its_output_can_create_a_conflict_symbol() {
    let (b, k, r, _) = const_relu_out();
    let g = &b.g;
    let opts = LayoutOptions::default();
    let mut symbols = Symbols::build(g, ROOT);
    assert!(!is_graph_exist_mem_conflict_symbol(g, ROOT, &symbols, opts).unwrap());
    // In-place reuse of r (output 0 reuses input 0): the Const would become a graph output.
    let facts = LayoutFacts::new(g, ROOT, opts);
    let preview = symbols
        .preview_merge(Anchor::output(r, 0), Anchor::input(r, 0))
        .unwrap();
    let merged: Vec<Anchor> = preview.anchors().collect();
    assert!(!facts
        .find_conflicts(g, &symbols, &merged)
        .unwrap()
        .is_empty());
    let s = symbols
        .merge(Anchor::output(r, 0), Anchor::input(r, 0))
        .unwrap();
    assert!(facts.symbol_has_conflict(g, &symbols, s).unwrap());
    assert!(is_graph_exist_mem_conflict_symbol(g, ROOT, &symbols, opts).unwrap());
    assert!(symbols.same_symbol(Anchor::output(k, 0), Anchor::output(r, 0)));
}

#[test]
fn copies_are_not_doubled_and_unknown_shapes_are_left_alone() {
    let mut b = B::new();
    let a = b.src("a", "Relu");
    let i = b.op("i", "Identity", &["x"], &["y"]);
    let c = b.reader("c", 1);
    b.e(a, 0, i, 0);
    b.e(i, 0, c, 0);
    typed(&mut b.g);
    let c_in = InPort { node: c, index: 0 };
    assert!(
        skip_insert_in(&b.g, c_in),
        "fed by a copy with one consumer"
    );
    assert!(
        skip_insert_out(&b.g, OutPort { node: a, index: 0 }),
        "its one consumer is a copy"
    );
    let d = b.reader("d", 1);
    b.e(i, 0, d, 0);
    assert!(!skip_insert_in(&b.g, c_in), "the copy is shared now");
    let mut u = b.g.clone();
    let unknown = u.intern_tensor(TensorDesc::new(DType::F32, Some(vec![-1])));
    u.node_mut(c).inputs[0].tensor = unknown;
    assert!(skip_insert_in(&u, c_in), "unknown shape");
}

#[test]
fn a_dynamic_root_is_checked_through_its_static_subgraphs() {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let p = b.op("p", "PartitionedCall", &["args0"], &["output0"]);
    b.e(x, 0, p, 0);
    let f = b.g.add_subgraph("f", p);
    let d = b.g.add_subgraph_data(f, "f_x", 0);
    let k = b.src_in(f, "f_k", "Const");
    let r = b.reader_in(f, "f_r", 1);
    b.e(d, 0, r, 0);
    b.net_output(f, &[(k, 0)]);
    b.net_output(ROOT, &[(p, 0)]);
    typed(&mut b.g);
    assert_eq!(top_static_graphs(&b.g), [ROOT]);
    // a static root returns a Const through the call (the call's output is the subgraph's
    // NetOutput input, the Const's symbol): the root's output gets a copy
    let (plan, after) = run_checked(&b.g, |g| {
        plan_mem_layout_conflict(g, LayoutOptions::default())
    });
    assert_eq!(plan.stats.identities_inserted, 1, "{:#?}", plan.steps);
    let root_out = after.graph(ROOT).net_output.unwrap();
    let src = after.src(root_out, 0).unwrap().node;
    assert_eq!(after.node(src).origin, Some(Origin::MemLayoutConflict));
    // a dynamic root: only f is a top graph, where returning a Const is allowed
    let mut dynamic = b.g.clone();
    dynamic.graph_mut(ROOT).unknown_shape = true;
    assert_eq!(top_static_graphs(&dynamic), [f]);
    let (plan, _) = run_checked(&dynamic, |g| {
        plan_mem_layout_conflict(g, LayoutOptions::default())
    });
    assert!(plan.is_empty(), "{:#?}", plan.steps);
}

#[test]
fn every_copy_is_undeletable_and_named_after_its_consumer() {
    let (b, _, _, no) = const_relu_out();
    let mut g = b.g.clone();
    let k2 = g.add_node(ROOT, "k2", "Const", &[], &["y"]);
    typed(&mut g);
    // return k2 directly as a second output
    let t = g.node(no).inputs[0].tensor;
    g.node_mut(no)
        .inputs
        .push(crate::analysis::memory::model::Input {
            tensor: t,
            ..Default::default()
        });
    g.graph_mut(ROOT).order.retain(|&n| n != no);
    g.graph_mut(ROOT).order.push(no);
    g.connect(k2, 0, no, 1);
    let (plan, after) = run_checked(&g, |g| {
        plan_mem_layout_conflict(g, LayoutOptions::default())
    });
    assert_eq!(plan.steps.len(), 1);
    let copy = after
        .nodes
        .iter()
        .find(|n| n.origin == Some(Origin::MemLayoutConflict))
        .unwrap();
    assert_eq!(&*copy.name, "identity_1_main_NetOutput_MemLayoutConflict_0");
    assert!(copy.sem.cannot_be_deleted);
    assert!(copy
        .reason
        .as_deref()
        .unwrap()
        .contains("user_out_and_immutable_out_checker"));
}
