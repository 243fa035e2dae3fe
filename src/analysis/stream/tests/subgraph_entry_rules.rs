//! Beyond GE: a subgraph node fed only by the subgraph's inputs joins the parent stream
//! (`subgraph_entry`), and stays where GE puts it when any condition fails.

use super::util::*;
use crate::analysis::stream::*;

/// A While `w` in the root graph fed by `x`; its body holds Data `bi`, `bx` → RTS copy →
/// `bi1` (Add), `br` (Relu). Returns (builder, body graph, copy, bi1, br, w).
fn while_with_body_copy() -> (B, GraphId, NodeId, NodeId, NodeId, NodeId) {
    let mut b = B::new();
    let x = b.data("x");
    let w = b.n("w", "While", LOCAL);
    let y = b.op("y", AIC);
    b.chain(&[x, w, y]);
    let c = b.sg.add_subgraph("cond", w);
    let ci = b.ng(c, "ci", "Data", LOCAL);
    let cl = b.ng(c, "cl", "Less", AIC);
    b.d(ci, cl);
    let body = b.sg.add_subgraph("body", w);
    let bi = b.ng(body, "bi", "Data", LOCAL);
    let bx = b.ng(body, "bx", "Data", LOCAL);
    let copy = b.ng(body, "copy", "Identity", RTS);
    let bi1 = b.ng(body, "bi1", "Add", AIC);
    let br = b.ng(body, "br", "Relu", AIC);
    b.d(bi, copy);
    b.d(bx, copy);
    b.d(copy, bi1);
    b.d(copy, br);
    (b, body, copy, bi1, br, w)
}

#[test]
fn while_body_input_copy_joins_the_parent_stream() {
    let (b, _, copy, bi1, br, w) = while_with_body_copy();
    let r = b.run();
    assert_eq!([ls(&r, w), ls(&r, copy), ls(&r, bi1), ls(&r, br)], [0; 4]);
    assert_eq!(rule(&r, copy), StreamRule::SubgraphEntryParent);
    assert!(
        r.logical.decision(copy).detail.contains("`bi1`"),
        "{}",
        r.logical.decision(copy).detail
    );
    assert_eq!(r.logical.main_stream_num, 1);
    assert!(live(&r).is_empty(), "{:?}", live(&r));
}

/// GE's streams with the option off: the copy opens the RTS block's stream and signals its
/// consumers.
#[test]
fn option_off_keeps_ges_new_stream() {
    let (b, _, copy, bi1, _, _) = while_with_body_copy();
    let r = b.run_with(&opts("subgraph-entry-parent", "false"));
    assert_eq!(rule(&r, copy), StreamRule::DependencyNew);
    assert_ne!(ls(&r, copy), ls(&r, bi1));
    assert_eq!(r.logical.main_stream_num, 2);
    assert_eq!(live(&r), [(copy, bi1)]);
}

/// The growth the rule removes: a chain of loops, one body copy each, needs one stream per
/// loop in GE and one stream in all with the rule.
#[test]
fn chained_loops_do_not_add_a_stream_each() {
    let mut b = B::new();
    let mut prev = b.data("x");
    let loops = 12;
    for k in 0..loops {
        let w = b.n(&format!("w{k}"), "While", LOCAL);
        b.d(prev, w);
        let body = b.sg.add_subgraph(&format!("body{k}"), w);
        let d = b.ng(body, &format!("b{k}/d"), "Data", LOCAL);
        let copy = b.ng(body, &format!("b{k}/copy"), "Identity", RTS);
        let op = b.ng(body, &format!("b{k}/op"), "Relu", AIC);
        b.chain(&[d, copy, op]);
        let y = b.op(&format!("y{k}"), AIC);
        b.d(w, y);
        prev = y;
    }
    assert_eq!(b.run().logical.main_stream_num, 1);
    let ge = b.run_with(&opts("subgraph-entry-parent", "false"));
    assert_eq!(ge.logical.main_stream_num, 1 + loops);
}

/// Not moved: one consumer runs on another stream (HCCL owns its streams), so the copy
/// would not save its stream's events.
#[test]
fn consumer_on_another_stream_keeps_the_copy_apart() {
    let (mut b, body, copy, bi1, _, _) = while_with_body_copy();
    let h = b.ng(body, "h", "HcomAllReduce", HCCL);
    b.d(copy, h);
    let r = b.run();
    assert_eq!(rule(&r, copy), StreamRule::DependencyNew);
    assert_ne!(ls(&r, copy), ls(&r, bi1));
    assert_ne!(ls(&r, copy), ls(&r, h));
}

/// Not moved: an earlier node of the graph (fed only by a Const) is already first on the
/// parent stream, so the copy could not sit right before its consumer.
#[test]
fn earlier_node_on_the_parent_stream_keeps_the_copy_apart() {
    let mut b = B::new();
    let x = b.data("x");
    let p = b.n("p", "PartitionedCall", AIC);
    b.d(x, p);
    let g = b.sg.add_subgraph("sub", p);
    let d = b.ng(g, "d", "Data", LOCAL);
    let k = b.ng(g, "k", "Const", LOCAL);
    let early = b.ng(g, "early", "Relu", AIC);
    let copy = b.ng(g, "copy", "Identity", RTS);
    let r1 = b.ng(g, "r", "Relu", AIC);
    b.chain(&[k, early]);
    b.chain(&[d, copy, r1]);
    let r = b.run();
    assert_eq!(ls(&r, early), ls(&r, p));
    assert_eq!(rule(&r, copy), StreamRule::DependencyNew);
    assert_ne!(ls(&r, copy), ls(&r, p));
}

/// Not moved: a node with a stream label, and any node of a graph whose parent stream
/// carries a label (label streams are left alone, as the topology pass leaves them).
#[test]
fn labels_keep_ges_streams() {
    let (mut b, _, copy, _, _, _) = while_with_body_copy();
    b.label(copy, "L");
    let r = b.run();
    assert_eq!(rule(&r, copy), StreamRule::StreamLabel);

    let (mut b, _, copy, bi1, _, _) = while_with_body_copy();
    b.label(bi1, "M");
    let r = b.run();
    assert_ne!(rule(&r, copy), StreamRule::SubgraphEntryParent);
}

/// Not moved: the root graph has no parent stream.
#[test]
fn root_graph_copy_keeps_its_stream() {
    let mut b = B::new();
    let x = b.data("x");
    let copy = b.n("copy", "Identity", RTS);
    let r1 = b.op("r", AIC);
    b.chain(&[x, copy, r1]);
    let r = b.run();
    assert_eq!(rule(&r, copy), StreamRule::DependencyNew);
    assert_ne!(ls(&r, copy), ls(&r, r1));
}

/// Not moved: a producer of the node has a stream (here a control edge from an HCCL op),
/// so it is not fed only by the subgraph's inputs.
#[test]
fn producer_with_a_stream_keeps_the_rule_out() {
    let mut b = B::new();
    let x = b.data("x");
    let p = b.n("p", "PartitionedCall", AIC);
    b.d(x, p);
    let g = b.sg.add_subgraph("sub", p);
    let d = b.ng(g, "d", "Data", LOCAL);
    let h = b.ng(g, "h", "HcomAllReduce", HCCL);
    let copy = b.ng(g, "copy", "Identity", RTS);
    let r1 = b.ng(g, "r", "Relu", AIC);
    b.d(d, h);
    b.c(h, copy);
    b.chain(&[d, copy, r1]);
    let r = b.run();
    assert_ne!(rule(&r, copy), StreamRule::SubgraphEntryParent);
    assert_ne!(ls(&r, copy), ls(&r, p));
    // Without the control edge the same copy moves.
    let mut b = B::new();
    let x = b.data("x");
    let p = b.n("p", "PartitionedCall", AIC);
    b.d(x, p);
    let g = b.sg.add_subgraph("sub", p);
    let d = b.ng(g, "d", "Data", LOCAL);
    let copy = b.ng(g, "copy", "Identity", RTS);
    let r1 = b.ng(g, "r", "Relu", AIC);
    b.chain(&[d, copy, r1]);
    let r = b.run();
    assert_eq!(rule(&r, copy), StreamRule::SubgraphEntryParent);
    assert_eq!(ls(&r, copy), ls(&r, p));
}
