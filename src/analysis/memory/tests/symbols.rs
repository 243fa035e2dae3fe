//! Memory symbols (GE `GetRefMapping`): one test per relation, plus names, orders, merges.

use super::support::B;
use crate::analysis::memory::model::{MemGraph, NodeId, ROOT};
use crate::analysis::memory::symbols::{ref_input, Anchor, Symbols};

fn out(n: NodeId, o: u32) -> Anchor {
    Anchor::output(n, o)
}

fn inp(n: NodeId, i: u32) -> Anchor {
    Anchor::input(n, i)
}

/// The GE names of the anchors of `a`'s symbol, in list order.
fn members(g: &MemGraph, t: &Symbols, a: Anchor) -> Vec<String> {
    let s = t.symbol_of(a).expect("mapped");
    t.anchors(s).map(|x| x.ge_name(g)).collect()
}

fn name_of(g: &MemGraph, t: &Symbols, a: Anchor) -> String {
    t.name(g, t.symbol_of(a).expect("mapped"))
}

#[test]
fn a_data_edge_shares_the_producer_symbol_in_edge_order() {
    let mut b = B::new();
    let a = b.src("a", "Relu");
    let x = b.reader("x", 1);
    let y = b.reader("y", 1);
    b.e(a, 0, y, 0);
    b.e(a, 0, x, 0);
    let t = Symbols::build(&b.g, ROOT);
    assert_eq!(
        members(&b.g, &t, out(a, 0)),
        ["a_out_0", "x_in_0", "y_in_0"]
    );
    assert_eq!(name_of(&b.g, &t, inp(y, 0)), "a_out_0");
    assert!(!t.same_symbol(out(x, 0), out(a, 0)));
    assert_eq!(t.count(), 3, "a:0 with its readers, x:0, y:0");
}

#[test]
fn an_unconnected_input_has_its_own_symbol() {
    let mut b = B::new();
    let x = b.reader("x", 2);
    let a = b.src("a", "Relu");
    b.e(a, 0, x, 1);
    let t = Symbols::build(&b.g, ROOT);
    assert_eq!(members(&b.g, &t, inp(x, 0)), ["x_in_0"]);
    assert_eq!(name_of(&b.g, &t, inp(x, 1)), "a_out_0");
}

#[test]
fn a_ref_output_joins_the_input_it_is_named_like() {
    let mut b = B::new();
    let v = b.src("v", "Variable");
    let k = b.src("k", "Const");
    let asg = b.assign("asg");
    b.e(v, 0, asg, 0);
    b.e(k, 0, asg, 1);
    let r = b.reader("r", 1);
    b.e(asg, 0, r, 0);
    let t = Symbols::build(&b.g, ROOT);
    assert_eq!(ref_input(&b.g, asg, 0), Some(0));
    assert_eq!(
        members(&b.g, &t, out(v, 0)),
        ["v_out_0", "asg_in_0", "asg_out_0", "r_in_0"]
    );
    assert!(!t.same_symbol(out(k, 0), out(v, 0)));
}

#[test]
fn reuse_input_index_and_nopadding_reuse_share_the_input() {
    let mut b = B::new();
    let a = b.src("a", "Relu");
    let c = b.src("c", "Relu");
    let n = b.op("n", "Custom", &["x0", "x1"], &["y0", "y1"]);
    b.e(a, 0, n, 0);
    b.e(c, 0, n, 1);
    b.g.node_mut(n).outputs[1].reuse_input = Some(1);
    let t = Symbols::build(&b.g, ROOT);
    assert!(t.same_symbol(out(n, 1), out(c, 0)));
    assert!(!t.same_symbol(out(n, 0), out(a, 0)));

    // no-padding continuous + _output_reuse_input: every output is input 0's memory
    b.g.node_mut(n).outputs[1].reuse_input = None;
    b.g.node_mut(n).sem.nopad_continuous_output = true;
    b.g.node_mut(n).sem.output_reuse_input = true;
    let t = Symbols::build(&b.g, ROOT);
    assert!(t.same_symbol(out(n, 0), out(a, 0)));
    assert!(t.same_symbol(out(n, 1), out(a, 0)));
    // the flag alone (no continuous attribute) shares nothing
    b.g.node_mut(n).sem.nopad_continuous_output = false;
    let t = Symbols::build(&b.g, ROOT);
    assert!(!t.same_symbol(out(n, 0), out(a, 0)));
}

/// `c = If(k, a, v)` with branch `t` returning `relu(Data 1)` and branch `e` returning
/// `Data 2`. Returns (b, if, a, v, then relu).
fn if_graph() -> (B, NodeId, NodeId, NodeId, NodeId) {
    let mut b = B::new();
    let k = b.src("k", "Data");
    let a = b.src("a", "Relu");
    let v = b.src("v", "Variable");
    let c = b.op("c", "If", &["cond", "x0", "x1"], &["y0"]);
    b.e(k, 0, c, 0);
    b.e(a, 0, c, 1);
    b.e(v, 0, c, 2);
    let then_g = b.g.add_subgraph("t", c);
    let t1 = b.g.add_subgraph_data(then_g, "t_x1", 1);
    let _t2 = b.g.add_subgraph_data(then_g, "t_x2", 2);
    let relu = b.reader_in(then_g, "t_relu", 1);
    b.e(t1, 0, relu, 0);
    b.net_output(then_g, &[(relu, 0)]);
    let else_g = b.g.add_subgraph("e", c);
    let _e1 = b.g.add_subgraph_data(else_g, "e_x1", 1);
    let e2 = b.g.add_subgraph_data(else_g, "e_x2", 2);
    b.net_output(else_g, &[(e2, 0)]);
    let r = b.reader("r", 1);
    b.e(c, 0, r, 0);
    (b, c, a, v, relu)
}

#[test]
fn a_subgraph_data_shares_the_parent_input() {
    let (b, c, a, _, relu) = if_graph();
    let g = &b.g;
    let t = Symbols::build(g, ROOT);
    let t1 = g.find("t_x1").unwrap();
    let e1 = g.find("e_x1").unwrap();
    assert!(t.same_symbol(inp(t1, 0), out(a, 0)));
    assert!(
        t.same_symbol(out(t1, 0), out(a, 0)),
        "a subgraph Data passes through"
    );
    assert!(t.same_symbol(inp(relu, 0), out(a, 0)));
    assert!(t.same_symbol(out(e1, 0), inp(c, 1)));
    assert_eq!(ref_input(g, t1, 0), Some(0));
}

#[test]
fn every_branch_output_shares_the_parent_output() {
    let (b, c, a, v, relu) = if_graph();
    let g = &b.g;
    let t = Symbols::build(g, ROOT);
    // then: relu:0 -> If:0; else: Data x2 (= v) -> If:0: all one symbol with v
    assert!(t.same_symbol(out(relu, 0), out(c, 0)));
    assert!(t.same_symbol(out(v, 0), out(c, 0)));
    assert!(!t.same_symbol(out(a, 0), out(c, 0)));
    let tn = g.graph(g.node(relu).graph).net_output.unwrap();
    assert!(t.same_symbol(inp(tn, 0), out(c, 0)));
    // the union keeps the bigger symbol: v's (v, If:2, both Data x2 in/out)
    assert_eq!(name_of(g, &t, out(c, 0)), "v_out_0");
}

#[test]
fn a_while_is_one_symbol_from_input_to_output_but_not_its_predicate() {
    let mut b = B::new();
    let x = b.src("x", "Relu");
    let w = b.op("w", "While", &["x0"], &["y0"]);
    b.e(x, 0, w, 0);
    let cond = b.g.add_subgraph("cond", w);
    let cd = b.g.add_subgraph_data(cond, "cond_x0", 0);
    let lt = b.reader_in(cond, "cond_lt", 1);
    b.e(cd, 0, lt, 0);
    let cno = b.net_output(cond, &[(lt, 0)]);
    let body = b.g.add_subgraph("body", w);
    let bd = b.g.add_subgraph_data(body, "body_x0", 0);
    let inc = b.reader_in(body, "body_inc", 1);
    b.e(bd, 0, inc, 0);
    let bno = b.net_output(body, &[(inc, 0)]);
    let r = b.reader("r", 1);
    b.e(w, 0, r, 0);
    let t = Symbols::build(&b.g, ROOT);
    for a in [
        inp(w, 0),
        out(w, 0),
        out(cd, 0),
        inp(lt, 0),
        out(bd, 0),
        inp(inc, 0),
        out(inc, 0),
        inp(bno, 0),
        inp(r, 0),
    ] {
        assert!(t.same_symbol(a, out(x, 0)), "{}", a.ge_name(&b.g));
    }
    assert!(
        !t.same_symbol(out(lt, 0), out(x, 0)),
        "the predicate is not a While output"
    );
    assert!(t.same_symbol(inp(cno, 0), out(lt, 0)));
}

#[test]
fn a_partitioned_call_links_its_subgraph_both_ways() {
    let mut b = B::new();
    let x = b.src("x", "Relu");
    let p = b.op("p", "PartitionedCall", &["args0"], &["output0"]);
    b.e(x, 0, p, 0);
    let f = b.g.add_subgraph("f", p);
    let d = b.g.add_subgraph_data(f, "f_x", 0);
    let n = b.reader_in(f, "f_n", 1);
    b.e(d, 0, n, 0);
    b.net_output(f, &[(n, 0)]);
    let t = Symbols::build(&b.g, ROOT);
    assert!(t.same_symbol(out(d, 0), out(x, 0)));
    assert!(t.same_symbol(out(n, 0), out(p, 0)));
    assert!(
        !t.same_symbol(out(p, 0), out(x, 0)),
        "a call is not pass-through"
    );
}

#[test]
fn merge_inputs_share_one_symbol_and_only_v1_merge_passes_output_0() {
    for (ty, passes) in [("Merge", true), ("StreamMerge", false)] {
        let mut b = B::new();
        let a = b.src("a", "Relu");
        let c = b.src("c", "Relu");
        let r = b.reader("r", 1);
        b.e(c, 0, r, 0);
        let m = b.op("m", ty, &["x0", "x1"], &["y", "value_index"]);
        b.e(a, 0, m, 0);
        b.e(c, 0, m, 1);
        let t = Symbols::build(&b.g, ROOT);
        assert!(t.same_symbol(out(a, 0), out(c, 0)), "{ty}");
        assert!(t.same_symbol(inp(m, 0), out(c, 0)), "{ty}");
        assert_eq!(t.same_symbol(out(m, 0), out(a, 0)), passes, "{ty}");
        // the biggest producer symbol (c: c, r) survives and names the union
        assert_eq!(name_of(&b.g, &t, out(a, 0)), "c_out_0", "{ty}");
        assert_eq!(
            members(&b.g, &t, out(a, 0))[..4],
            ["c_out_0", "r_in_0", "a_out_0", "m_in_0"]
        );
    }
}

#[test]
fn a_subgraph_scope_does_not_link_its_own_boundary() {
    let (b, c, a, _, relu) = if_graph();
    let g = &b.g;
    let then_g = g.node(relu).graph;
    let t = Symbols::build(g, then_g);
    let t1 = g.find("t_x1").unwrap();
    assert_eq!(t.symbol_of(out(a, 0)), None, "outside the scope");
    assert_eq!(t.symbol_of(out(c, 0)), None);
    assert_eq!(
        members(g, &t, out(t1, 0)),
        ["t_x1_in_0", "t_x1_out_0", "t_relu_in_0"]
    );
    let tn = g.graph(then_g).net_output.unwrap();
    assert_eq!(
        members(g, &t, inp(tn, 0)),
        ["t_relu_out_0", "t_NetOutput_in_0"]
    );
}

#[test]
fn merging_keeps_the_bigger_symbol_and_a_tie_keeps_the_second() {
    let mut b = B::new();
    let a = b.src("a", "Relu");
    let c = b.src("c", "Relu");
    let d = b.src("d", "Relu");
    let r = b.reader("r", 1);
    b.e(d, 0, r, 0);
    let mut t = Symbols::build(&b.g, ROOT);
    // tie (1 and 1): the second named survives
    let p = t.preview_merge(out(a, 0), out(c, 0)).unwrap();
    assert_eq!(p.name().ge_name(&b.g), "c_out_0");
    let listed: Vec<String> = p.anchors().map(|x| x.ge_name(&b.g)).collect();
    assert_eq!(listed, ["c_out_0", "a_out_0"]);
    assert_eq!(p.len(), 2);
    let before = t.count();
    let s = t.merge(out(a, 0), out(c, 0)).unwrap();
    assert_eq!(t.name(&b.g, s), "c_out_0");
    assert_eq!(t.count(), before - 1);
    // the preview matched the merge
    assert_eq!(members(&b.g, &t, out(a, 0)), listed);
    // bigger wins: {c, a} (2) with {d, r} (2) -> tie -> d's; then 4 vs 1
    let s = t.merge(out(c, 0), inp(r, 0)).unwrap();
    assert_eq!(t.name(&b.g, s), "d_out_0");
    assert_eq!(
        members(&b.g, &t, out(a, 0)),
        ["d_out_0", "r_in_0", "c_out_0", "a_out_0"]
    );
    let s2 = t.merge(out(r, 0), out(a, 0)).unwrap();
    assert_eq!(s2, s, "the 4-anchor symbol absorbs the single one");
    // merging within one symbol changes nothing
    let p = t.preview_merge(out(a, 0), out(d, 0)).unwrap();
    assert!(p.absorbed.is_none());
    assert_eq!(t.merge(out(a, 0), out(d, 0)), Some(s));
    assert_eq!(t.len(s), 5);
}

#[test]
fn symbols_iterate_in_ge_map_order() {
    let mut b = B::new();
    let n = b.op(
        "n",
        "Custom",
        &[],
        &[
            "y0", "y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10",
        ],
    );
    let a = b.src("a_b", "Relu");
    let _ = (n, a);
    let t = Symbols::build(&b.g, ROOT);
    let names: Vec<String> = t
        .ge_order(&b.g)
        .into_iter()
        .map(|s| t.name(&b.g, s))
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "byte-wise order, as std::map<std::string>");
    assert_eq!(names[0], "a_b_out_0");
    assert_eq!(names[1], "n_out_0");
    assert_eq!(names[2], "n_out_1");
    assert_eq!(names[3], "n_out_10", "10 sorts before 2");
}

#[test]
fn anchors_outside_the_table_have_no_symbol() {
    let mut b = B::new();
    let a = b.src("a", "Relu");
    let t = Symbols::build(&b.g, ROOT);
    assert_eq!(t.symbol_of(out(a, 1)), None, "no such output");
    assert_eq!(t.symbol_of(inp(a, 0)), None, "no such input");
    let late = b.src("late", "Relu");
    assert_eq!(t.symbol_of(out(late, 0)), None, "created after the table");
    assert!(t.preview_merge(out(a, 0), out(late, 0)).is_none());
}
