//! SubgraphPass (B.16): every row of the spec's 3.1.3 table.

use super::support::{inserted, run_checked, src_name, B};
use crate::analysis::memory::model::{Atomic, GraphId, MemGraph, NodeId, Origin, ROOT};
use crate::analysis::memory::plan::Rule;
use crate::analysis::memory::subgraph_isolate::plan_subgraph_isolate;

fn copies(g: &MemGraph) -> Vec<NodeId> {
    inserted(g, Origin::SubgraphIsolate)
}

#[test]
fn every_copy_is_marked_cannot_be_deleted() {
    let (mut b, _, _, x1) = while_graph("Const", plain_body);
    let r = b.reader("r", 1);
    b.e(x1, 0, r, 0);
    let (_, after) = run_checked(&b.g, plan_subgraph_isolate);
    let cs = copies(&after);
    assert_eq!(cs.len(), 4, "shared input, const input, body in, body out");
    assert!(cs
        .iter()
        .all(|&c| after.node(c).sem.cannot_be_deleted && after.node(c).ty == "Identity"));
}

fn rules(plan: &crate::analysis::memory::plan::Plan) -> Vec<Rule> {
    plan.steps.iter().map(|s| s.rule).collect()
}

/// `While(x0, x1)` with a cond subgraph and a body built by `body` (gets the body graph
/// and its two Datas). The While input producers are returned.
fn while_graph(
    x0_ty: &str,
    body: impl Fn(&mut B, GraphId, NodeId, NodeId),
) -> (B, NodeId, NodeId, NodeId) {
    let mut b = B::new();
    let x0 = b.src("x0", x0_ty);
    let x1 = b.src("x1", "Relu");
    let w = b.op("w", "While", &["x0", "x1"], &["y0", "y1"]);
    b.e(x0, 0, w, 0);
    b.e(x1, 0, w, 1);
    let cond = b.g.add_subgraph("cond", w);
    let c0 = b.g.add_subgraph_data(cond, "cond_x0", 0);
    let c1 = b.g.add_subgraph_data(cond, "cond_x1", 1);
    let lt = b.reader_in(cond, "cond_lt", 2);
    b.e(c0, 0, lt, 0);
    b.e(c1, 0, lt, 1);
    b.net_output(cond, &[(lt, 0)]);
    let bg = b.g.add_subgraph("body", w);
    let d0 = b.g.add_subgraph_data(bg, "body_x0", 0);
    let d1 = b.g.add_subgraph_data(bg, "body_x1", 1);
    body(&mut b, bg, d0, d1);
    (b, w, x0, x1)
}

/// body_x0 -> add -> NetOutput:0; body_x1 -> NetOutput:1 (the bypass).
fn plain_body(b: &mut B, bg: GraphId, d0: NodeId, d1: NodeId) {
    let add = b.reader_in(bg, "body_add", 2);
    b.e(d0, 0, add, 0);
    b.e(d0, 0, add, 1);
    b.net_output(bg, &[(add, 0), (d1, 0)]);
}

#[test]
fn while_input_shared_with_other_consumers_is_isolated() {
    let (mut b, w, _, x1) = while_graph("Relu", plain_body);
    let r = b.reader("r", 1);
    b.e(x1, 0, r, 0);
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(rules(&plan).contains(&Rule::SubgraphWhileSharedInput));
    let id = after.src(w, 1).unwrap().node;
    assert_eq!(&*after.node(id).name, "w_input_1_Memcpy");
    assert!(after.node(id).sem.cannot_be_deleted);
    assert_eq!(src_name(&after, r, 0), "x1");
}

#[test]
fn variable_input_of_while_is_not_isolated() {
    let (mut b, w, x0, _) = while_graph("Variable", plain_body);
    let r = b.reader("r", 1);
    b.e(x0, 0, r, 0);
    let (_, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert_eq!(src_name(&after, w, 0), "x0");
}

#[test]
fn const_input_to_while_is_isolated() {
    let (b, w, _, _) = while_graph("Const", plain_body);
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(
        rules(&plan).contains(&Rule::SubgraphWhileConstInput),
        "{:#?}",
        plan.steps
    );
    assert_eq!(
        &*after.node(after.src(w, 0).unwrap().node).name,
        "w_input_0_Memcpy"
    );
}

#[test]
fn while_body_gets_input_and_output_memcpy_except_the_bypass() {
    let (b, _, _, _) = while_graph("Relu", plain_body);
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert_eq!(
        rules(&plan),
        vec![Rule::SubgraphWhileBody, Rule::SubgraphWhileBody]
    );
    let body = after
        .graphs
        .iter()
        .position(|gr| gr.name == "body")
        .unwrap();
    let body = GraphId(body as u32);
    let inp = after.find("body_input_Memcpy").unwrap();
    let out = after.find("body_output_Memcpy").unwrap();
    // body_x1 -> NetOutput:1 at the same index is the bypass: one input, one output only.
    assert_eq!(after.node(inp).inputs.len(), 1, "only body_x0 is copied");
    assert_eq!(src_name(&after, inp, 0), "body_x0");
    let no = after.graph(body).net_output.unwrap();
    assert_eq!(after.node(out).inputs.len(), 1);
    assert_eq!(src_name(&after, no, 0), "body_output_Memcpy");
    assert_eq!(src_name(&after, no, 1), "body_x1");
    assert_eq!(src_name(&after, out, 0), "body_add");
    assert!(after.node(inp).sem.cannot_be_deleted && after.node(out).sem.cannot_be_deleted);
}

#[test]
fn while_body_data_straight_to_netoutput_at_same_index_is_bypassed() {
    let (b, _, _, _) = while_graph("Relu", |b, bg, d0, d1| {
        b.net_output(bg, &[(d0, 0), (d1, 0)]);
    });
    let (plan, _) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(plan.is_empty(), "{:#?}", plan.steps);
}

#[test]
fn while_body_data_to_netoutput_at_another_index_is_copied() {
    let (b, _, _, _) = while_graph("Relu", |b, bg, d0, d1| {
        b.net_output(bg, &[(d1, 0), (d0, 0)]);
    });
    let (_, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert_eq!(
        after
            .node(after.find("body_input_Memcpy").unwrap())
            .inputs
            .len(),
        2
    );
    assert_eq!(
        after
            .node(after.find("body_output_Memcpy").unwrap())
            .inputs
            .len(),
        2
    );
}

#[test]
fn dynamic_while_also_copies_cond_inputs() {
    let (mut b, w, _, _) = while_graph("Relu", plain_body);
    b.g.node_mut(w).sem.unknown_shape = true;
    let (_, after) = run_checked(&b.g, plan_subgraph_isolate);
    let c = after.find("cond_input_Memcpy").expect("cond memcpy");
    assert_eq!(after.node(c).inputs.len(), 2);
}

#[test]
fn unknown_shape_body_is_left_alone() {
    let (mut b, w, _, _) = while_graph("Relu", plain_body);
    let body = b.g.node(w).subgraphs[1];
    b.g.graph_mut(body).unknown_shape = true;
    let (plan, _) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(plan.is_empty());
}

/// `If(x)` with then/else branches built by the closures.
fn if_graph(
    then: impl Fn(&mut B, GraphId, NodeId),
    els: impl Fn(&mut B, GraphId, NodeId),
) -> (B, NodeId) {
    let mut b = B::new();
    let cond = b.src("cond", "Relu");
    let x = b.src("x", "Relu");
    let f = b.op("if", "If", &["cond", "x"], &["y0", "y1"]);
    b.e(cond, 0, f, 0);
    b.e(x, 0, f, 1);
    let t = b.g.add_subgraph("then", f);
    let td = b.g.add_subgraph_data(t, "then_x", 1);
    then(&mut b, t, td);
    let e = b.g.add_subgraph("else", f);
    let ed = b.g.add_subgraph_data(e, "else_x", 1);
    els(&mut b, e, ed);
    (b, f)
}

fn two_readers(b: &mut B, gr: GraphId, d: NodeId) {
    let name = b.g.graph(gr).name.clone();
    let r0 = b.reader_in(gr, &format!("{name}_r0"), 1);
    let r1 = b.reader_in(gr, &format!("{name}_r1"), 1);
    b.e(d, 0, r0, 0);
    b.e(d, 0, r1, 0);
    b.net_output(gr, &[(r0, 0), (r1, 0)]);
}

#[test]
fn if_branch_with_one_producer_feeding_two_outputs_is_separated() {
    let (b, _) = if_graph(
        |b, t, d| {
            let r = b.reader_in(t, "then_r", 1);
            b.e(d, 0, r, 0);
            b.net_output(t, &[(r, 0), (r, 0)]);
        },
        two_readers,
    );
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert_eq!(rules(&plan), vec![Rule::SubgraphCondOutputShared]);
    let id = after.find("then_r_output_1_Memcpy").unwrap();
    let no = after.graph(after.node(id).graph).net_output.unwrap();
    assert_eq!(src_name(&after, no, 0), "then_r");
    assert_eq!(src_name(&after, no, 1), "then_r_output_1_Memcpy");
}

#[test]
fn if_in_unknown_shape_graph_is_left_alone() {
    let (mut b, _) = if_graph(
        |b, t, d| {
            let r = b.reader_in(t, "then_r", 1);
            b.e(d, 0, r, 0);
            b.net_output(t, &[(r, 0), (r, 0)]);
        },
        two_readers,
    );
    b.g.graph_mut(ROOT).unknown_shape = true;
    let (plan, _) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(plan.is_empty());
}

fn then_output(kind: &'static str) -> impl Fn(&mut B, GraphId, NodeId) {
    move |b: &mut B, t: GraphId, d: NodeId| {
        let r = b.reader_in(t, "then_r", 1);
        b.e(d, 0, r, 0);
        let p = match kind {
            "const" => b.src_in(t, "then_p", "Const"),
            "atomic" => {
                let p = b.reader_in(t, "then_p", 0);
                b.g.node_mut(p).atomic = Some(Box::new(Atomic {
                    outputs: vec![0],
                    ..Atomic::default()
                }));
                p
            }
            "continuous" => {
                let p = b.reader_in(t, "then_p", 0);
                b.g.node_mut(p).sem.continuous_output = true;
                p
            }
            "continuous-through-ref" => {
                let p = b.reader_in(t, "then_cont", 0);
                b.g.node_mut(p).sem.nopad_continuous_output = true;
                let a = b.assign_in(t, "then_p");
                b.e(p, 0, a, 0);
                a
            }
            _ => unreachable!(),
        };
        b.net_output(t, &[(r, 0), (p, 0)]);
    }
}

fn check_output_row(kind: &'static str) {
    let (b, _) = if_graph(then_output(kind), two_readers);
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert_eq!(
        rules(&plan),
        vec![Rule::SubgraphNetOutputInput],
        "{kind}: {:#?}",
        plan.steps
    );
    let no = after
        .graph(after.node(after.find("then_r").unwrap()).graph)
        .net_output
        .unwrap();
    assert_eq!(
        src_name(&after, no, 1),
        "then_NetOutput_input_1_Memcpy",
        "{kind}"
    );
    assert_eq!(src_name(&after, no, 0), "then_r");
}

#[test]
fn subgraph_output_from_const_in_static_graph_is_isolated() {
    check_output_row("const");
}

#[test]
fn subgraph_output_from_atomic_op_is_isolated() {
    check_output_row("atomic");
}

#[test]
fn subgraph_output_from_continuous_output_op_is_isolated() {
    check_output_row("continuous");
    check_output_row("continuous-through-ref");
}

#[test]
fn subgraph_output_from_const_in_dynamic_parent_graph_is_not_isolated() {
    let (mut b, _) = if_graph(then_output("const"), two_readers);
    b.g.graph_mut(ROOT).unknown_shape = true;
    let (plan, _) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(plan.is_empty(), "{:#?}", plan.steps);
}

#[test]
fn subgraph_output_straight_from_data_is_isolated_unless_parent_is_while() {
    let (b, _) = if_graph(
        |b, t, d| {
            b.net_output(t, &[(d, 0), (d, 0)]);
        },
        two_readers,
    );
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    // The If (root graph) is handled first: output 1 is a second use of the Data. Then the
    // branch's NetOutput isolates output 0, which comes straight from its Data.
    assert_eq!(
        rules(&plan),
        vec![Rule::SubgraphCondOutputShared, Rule::SubgraphNetOutputInput],
        "{:#?}",
        plan.steps
    );
    let no = after
        .graph(after.node(after.find("then_x").unwrap()).graph)
        .net_output
        .unwrap();
    assert_eq!(src_name(&after, no, 0), "then_NetOutput_input_0_Memcpy");
    // With a While parent the Data -> NetOutput edge stays (it is the loop's bypass).
    let (b, _, _, _) = while_graph("Relu", |b, bg, d0, d1| {
        b.net_output(bg, &[(d0, 0), (d1, 0)]);
    });
    let (plan, _) = run_checked(&b.g, plan_subgraph_isolate);
    assert!(plan.is_empty());
}

#[test]
fn subgraph_data_into_continuous_input_op_gets_a_copy_for_all_consumers() {
    let (b, _) = if_graph(
        |b, t, d| {
            let c = b.reader_in(t, "then_concat", 1);
            b.g.node_mut(c).sem.continuous_input = true;
            let r = b.reader_in(t, "then_r", 1);
            b.e(d, 0, c, 0);
            b.e(d, 0, r, 0);
            b.net_output(t, &[(c, 0), (r, 0)]);
        },
        two_readers,
    );
    let (plan, after) = run_checked(&b.g, plan_subgraph_isolate);
    assert_eq!(rules(&plan), vec![Rule::SubgraphDataContinuous]);
    let id = after.find("then_x_output_0_Memcpy").unwrap();
    assert_eq!(
        src_name(&after, after.find("then_concat").unwrap(), 0),
        &*after.node(id).name
    );
    assert_eq!(
        src_name(&after, after.find("then_r").unwrap(), 0),
        &*after.node(id).name
    );
}

#[test]
fn missing_body_is_an_error() {
    let mut b = B::new();
    let x = b.src("x", "Relu");
    let w = b.op("w", "While", &["x"], &["y"]);
    b.e(x, 0, w, 0);
    let err = plan_subgraph_isolate(&mut b.g).unwrap_err();
    assert!(
        err.message.contains("'w'") && err.message.contains("body"),
        "{}",
        err.message
    );
}
