//! HandleMemoryRWConflict: RW types (B.2-B.6), SplitIdentity (B.9), RemoveNoUseIdentity
//! (B.10), InsertIdentityAsNeeded skip cases (B.11), control-edge moves (B.12), errors.

use super::support::{inserted, run_checked, src_name, B};
use crate::analysis::memory::model::{MemGraph, NodeId, Origin, Sem, ROOT};
use crate::analysis::memory::plan::{BoolAttr, Edit, Rule};
use crate::analysis::memory::rw_conflict::plan_rw_conflict;
use crate::analysis::memory::rw_types::{
    mark_subgraphs, merge, single_node_input_type, single_node_output_type, InputRw, OutputRw,
};

fn rw_ids(g: &MemGraph) -> Vec<NodeId> {
    inserted(g, Origin::RwConflict)
}

// ----- B.2 - B.6 --------------------------------------------------------------------------

#[test]
fn mark_ref_relations_sets_reference_on_ref_nodes_only() {
    let mut b = B::new();
    let v = b.src("v", "Variable");
    let a = b.assign("a");
    let r = b.reader("r", 1);
    b.e(v, 0, a, 0);
    b.e(a, 0, r, 0);
    let (plan, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(after.node(a).sem.reference && !after.node(r).sem.reference);
    let marks: Vec<_> = plan
        .steps
        .iter()
        .filter(|s| s.rule == Rule::MarkRef)
        .collect();
    assert_eq!(marks.len(), 1);
    assert_eq!(
        marks[0].edit,
        Edit::SetAttr {
            node: a,
            attr: BoolAttr::Reference
        }
    );
}

#[test]
fn unnamed_ports_are_never_ref() {
    let mut b = B::new();
    let n = b.op("n", "Foo", &["", "x"], &["", "y"]);
    assert_eq!(single_node_input_type(&b.g, n, 0), InputRw::ReadOnly);
    assert_eq!(single_node_output_type(&b.g, n, 0), OutputRw::SoftRead);
}

#[test]
fn input_type_rules_in_order() {
    let mut b = B::new();
    let w = b.op("w", "While", &["x"], &["y"]);
    assert_eq!(single_node_input_type(&b.g, w, 0), InputRw::ReadOnly);
    let (rw, _) = mark_subgraphs(&b.g).unwrap();
    assert_eq!(
        rw.input_type(&b.g, w, 0),
        InputRw::ScopeWriteable,
        "While family"
    );
    let s = b.reader("s", 2);
    b.g.node_mut(s).inputs[1].special_input_size = 64;
    let (rw, _) = mark_subgraphs(&b.g).unwrap();
    assert_eq!(
        rw.input_type(&b.g, s, 1),
        InputRw::ScopeWriteable,
        "_special_input_size"
    );
    assert_eq!(rw.input_type(&b.g, s, 0), InputRw::ReadOnly);
    let m = b.assign("m");
    b.g.node_mut(m).sem.input_mutable = true;
    assert_eq!(
        single_node_input_type(&b.g, m, 1),
        InputRw::ScopeWriteable,
        "_input_mutable wins"
    );
    let pc = b.op("pc", "PhonyConcat", &["x"], &["x"]);
    assert_eq!(
        single_node_input_type(&b.g, pc, 0),
        InputRw::ReadOnly,
        "phony ref names"
    );
    let a = b.assign("a");
    assert_eq!(single_node_input_type(&b.g, a, 0), InputRw::Writeable);
    assert_eq!(single_node_input_type(&b.g, a, 1), InputRw::ReadOnly);
    let fw = b.op("fw", "FrameworkOp", &["data", "pred"], &["f", "t"]);
    b.g.node_mut(fw).original_type = Some("RefSwitch".into());
    b.g.node_mut(fw).sem = Sem::of_framework_op("RefSwitch");
    assert_eq!(
        single_node_input_type(&b.g, fw, 0),
        InputRw::Writeable,
        "RefSwitch input 0"
    );
    assert_eq!(single_node_input_type(&b.g, fw, 1), InputRw::ReadOnly);
    assert_eq!(single_node_output_type(&b.g, fw, 1), OutputRw::Writeable);
}

#[test]
fn output_type_rules_in_order() {
    let mut b = B::new();
    let v = b.src("v", "Variable");
    let d = b.src("d", "Data");
    let c = b.src("c", "Const");
    let p = b.src("p", "Relu");
    let r1 = b.reader("r1", 2);
    let r2 = b.reader("r2", 1);
    b.e(p, 0, r1, 0);
    b.e(p, 0, r1, 1); // two edges into one node count as two
    b.e(c, 0, r2, 0);
    assert_eq!(single_node_output_type(&b.g, v, 0), OutputRw::Writeable);
    assert_eq!(
        single_node_output_type(&b.g, d, 0),
        OutputRw::Writeable,
        "root Data"
    );
    assert_eq!(single_node_output_type(&b.g, c, 0), OutputRw::ReadOnlyConst);
    assert_eq!(
        single_node_output_type(&b.g, p, 0),
        OutputRw::ReadOnly,
        "edges are counted"
    );
    assert_eq!(single_node_output_type(&b.g, r2, 0), OutputRw::SoftRead);
    // A subgraph Data takes the parent producer's type.
    let pc = b.op("call", "PartitionedCall", &["x0"], &["y0"]);
    b.e(c, 0, pc, 0);
    let sg = b.g.add_subgraph("f", pc);
    let sd = b.g.add_subgraph_data(sg, "f_arg0", 0);
    b.net_output(sg, &[(sd, 0)]);
    assert_eq!(
        single_node_output_type(&b.g, sd, 0),
        OutputRw::ReadOnlyConst
    );
    let w = b.op("w", "While", &["x"], &["y"]);
    let (rw, _) = mark_subgraphs(&b.g).unwrap();
    assert_eq!(
        rw.output_type(&b.g, w, 0),
        OutputRw::SoftRead,
        "While family"
    );
}

#[test]
fn merge_follows_b6() {
    use InputRw::*;
    assert_eq!(merge([]), ReadOnly);
    assert_eq!(merge([ReadOnly, Writeable]), Writeable);
    assert_eq!(merge([Writeable, Writeable, ReadOnly]), Writeable);
    assert_eq!(
        merge([ScopeWriteable, ReadOnly, ScopeWriteable]),
        ScopeWriteable
    );
    assert_eq!(merge([Writeable, ScopeWriteable]), Invalid);
    assert_eq!(merge([ScopeWriteable, Writeable]), Invalid);
    assert_eq!(merge([Invalid, ReadOnly]), Invalid);
}

/// `If(x)` whose then-branch Data feeds `consumers` (built by the closure); the else branch
/// passes its input through a reader.
fn if_graph(
    build_then: impl Fn(&mut B, crate::analysis::memory::model::GraphId, NodeId),
) -> (MemGraph, NodeId) {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let r = b.reader("r", 1);
    let cond = b.src("cond", "Const");
    let f = b.op("if", "If", &["cond", "x"], &["y"]);
    b.e(cond, 0, f, 0);
    b.e(p, 0, f, 1);
    b.e(p, 0, r, 0);
    let t = b.g.add_subgraph("then", f);
    let td = b.g.add_subgraph_data(t, "then_x", 1);
    build_then(&mut b, t, td);
    let e = b.g.add_subgraph("else", f);
    let ed = b.g.add_subgraph_data(e, "else_x", 1);
    let er = b.reader_in(e, "else_r", 1);
    b.e(ed, 0, er, 0);
    b.net_output(e, &[(er, 0)]);
    (b.g, f)
}

#[test]
fn subgraph_input_type_is_merged_from_branch_data_consumers() {
    let (g, f) = if_graph(|b, t, td| {
        let a = b.scope_writer_in(t, "then_ar", 1);
        b.e(td, 0, a, 0);
        b.net_output(t, &[(a, 0)]);
    });
    let (rw, _) = mark_subgraphs(&g).unwrap();
    assert_eq!(rw.input_type(&g, f, 1), InputRw::ScopeWriteable);
    assert_eq!(
        rw.input_type(&g, f, 0),
        InputRw::ReadOnly,
        "no Data for index 0"
    );
    // p feeds the If and a reader: ReadOnly x ScopeWriteable -> copy in the root graph.
    let (_, after) = run_checked(&g, plan_rw_conflict);
    let ids = rw_ids(&after);
    assert_eq!(ids.len(), 1);
    assert_eq!(src_name(&after, f, 1), &*after.node(ids[0]).name);
}

#[test]
fn invalid_rw_combination_is_an_error_naming_the_node() {
    let (g, _) = if_graph(|b, t, td| {
        let a = b.assign_in(t, "then_assign");
        let s = b.scope_writer_in(t, "then_ar", 1);
        b.e(td, 0, a, 0);
        b.e(td, 0, s, 0);
        b.net_output(t, &[(a, 0)]);
    });
    let mut g2 = g.clone();
    let err = plan_rw_conflict(&mut g2).unwrap_err();
    assert!(
        err.message.contains("'if'") && err.message.contains("invalid RW combination"),
        "{}",
        err.message
    );
    assert!(err.message.contains("%p:0"), "{}", err.message);
    assert_eq!(err.node, g.find("if"));
}

#[test]
fn missing_parent_index_and_duplicate_index_are_errors() {
    let (mut g, _) = if_graph(|b, t, td| {
        b.net_output(t, &[(td, 0)]);
    });
    let d = g.find("then_x").unwrap();
    g.node_mut(d).parent_index = None;
    let err = plan_rw_conflict(&mut g.clone()).unwrap_err();
    assert!(
        err.message.contains("_parent_node_index"),
        "{}",
        err.message
    );
    let (mut g, _) = if_graph(|b, t, td| {
        let d2 = b.g.add_subgraph_data(t, "then_dup", 1);
        let r = b.reader_in(t, "then_r", 2);
        b.e(td, 0, r, 0);
        b.e(d2, 0, r, 1);
        b.net_output(t, &[(r, 0)]);
    });
    let err = plan_rw_conflict(&mut g).unwrap_err();
    assert!(err.message.contains("also used by"), "{}", err.message);
}

// ----- B.5 ---------------------------------------------------------------------------------

/// `If` whose then branch returns a writable output (an Assign on its Data).
fn if_returning_writable(consumer_scope_writes: bool) -> MemGraph {
    let (mut g, f) = if_graph(|b, t, td| {
        let v = b.src_in(t, "then_v", "Const");
        let a = b.assign_in(t, "then_assign");
        b.e(td, 0, a, 0);
        b.e(v, 0, a, 1);
        b.net_output(t, &[(a, 0)]);
    });
    let mut b = B {
        g: std::mem::take(&mut g),
    };
    let c = if consumer_scope_writes {
        b.scope_writer("after", 1)
    } else {
        b.reader("after", 1)
    };
    b.e(f, 0, c, 0);
    b.g
}

#[test]
fn writable_branch_output_is_isolated_when_the_parent_cannot_absorb_it() {
    let (plan, after) = run_checked(&if_returning_writable(true), plan_rw_conflict);
    let iso: Vec<_> = plan
        .steps
        .iter()
        .filter(|s| s.rule == Rule::SubgraphOutputWritable)
        .collect();
    assert_eq!(iso.len(), 1, "{:#?}", plan.steps);
    let no = after
        .graph(after.node(after.find("then_assign").unwrap()).graph)
        .net_output
        .unwrap();
    let id = after.src(no, 0).unwrap().node;
    assert_eq!(after.node(id).ty, "Identity");
    assert_eq!(src_name(&after, id, 0), "then_assign");
}

#[test]
fn writable_branch_output_read_only_by_readers_needs_no_copy() {
    let (plan, _) = run_checked(&if_returning_writable(false), plan_rw_conflict);
    assert!(plan
        .steps
        .iter()
        .all(|s| s.rule != Rule::SubgraphOutputWritable));
}

#[test]
fn partitioned_call_always_absorbs_writable_outputs() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let call = b.op("call", "PartitionedCall", &["x0"], &["y0"]);
    b.e(d, 0, call, 0);
    let sg = b.g.add_subgraph("f", call);
    let sd = b.g.add_subgraph_data(sg, "f_arg0", 0);
    let a = b.assign_in(sg, "f_assign");
    b.e(sd, 0, a, 0);
    b.net_output(sg, &[(a, 0)]);
    let s = b.scope_writer("s", 1);
    b.e(call, 0, s, 0);
    let (rw, iso) = mark_subgraphs(&b.g).unwrap();
    assert!(iso.is_empty());
    assert_eq!(
        rw.output_type(&b.g, call, 0),
        OutputRw::Writeable,
        "PartitionedCall passes W out"
    );
    assert_eq!(rw.input_type(&b.g, call, 0), InputRw::Writeable);
}

#[test]
fn branch_conflict_between_writable_and_shared_outputs_is_isolated() {
    // then returns an Assign (W); else returns a tensor it also reads (ReadOnly).
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let cond = b.src("cond", "Const");
    let f = b.op("if", "If", &["cond", "x"], &["y"]);
    b.e(cond, 0, f, 0);
    b.e(p, 0, f, 1);
    let t = b.g.add_subgraph("then", f);
    let td = b.g.add_subgraph_data(t, "then_x", 1);
    let a = b.assign_in(t, "then_assign");
    b.e(td, 0, a, 0);
    b.net_output(t, &[(a, 0)]);
    let e = b.g.add_subgraph("else", f);
    let ed = b.g.add_subgraph_data(e, "else_x", 1);
    let m = b.reader_in(e, "else_m", 1);
    let r = b.reader_in(e, "else_r", 1);
    b.e(ed, 0, m, 0);
    b.e(m, 0, r, 0);
    b.net_output(e, &[(m, 0)]);
    let out = b.reader("out", 1);
    b.e(f, 0, out, 0);
    let (plan, _) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(
        plan.steps
            .iter()
            .filter(|s| s.rule == Rule::SubgraphOutputWritable)
            .count(),
        1,
        "{:#?}",
        plan.steps
    );
}

// ----- B.11 skip cases ------------------------------------------------------------------

#[test]
fn skip_last_edge_when_all_edges_scope_write_one_node() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let s = b.scope_writer("s", 2);
    b.e(p, 0, s, 0);
    b.e(p, 0, s, 1);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    let ids = rw_ids(&after);
    assert_eq!(ids.len(), 1, "the last edge shares, the first gets a copy");
    assert_eq!(src_name(&after, s, 0), &*after.node(ids[0]).name);
    assert_eq!(src_name(&after, s, 1), "p");
}

#[test]
fn no_skip_when_scope_writers_are_different_nodes() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let s1 = b.scope_writer("s1", 1);
    let s2 = b.scope_writer("s2", 1);
    b.e(p, 0, s1, 0);
    b.e(p, 0, s2, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(rw_ids(&after).len(), 2);
}

#[test]
fn no_skip_when_another_edge_only_reads() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let r = b.reader("r", 1);
    let s = b.scope_writer("s", 1);
    b.e(p, 0, r, 0);
    b.e(p, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(rw_ids(&after).len(), 1);
    assert_ne!(src_name(&after, s, 0), "p");
}

#[test]
fn private_root_data_needs_no_copy_for_its_scope_writer() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let s = b.scope_writer("s", 1);
    b.e(d, 0, s, 0);
    let (plan, _) = run_checked(&b.g, plan_rw_conflict);
    assert!(plan.is_empty(), "{:#?}", plan.steps);
}

#[test]
fn ref_chain_back_to_a_private_root_data_needs_no_copy() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let a = b.assign("a");
    let s = b.scope_writer("s", 1);
    b.e(d, 0, a, 0);
    b.e(a, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(rw_ids(&after).is_empty());
}

#[test]
fn ref_chain_through_a_shared_anchor_needs_a_copy() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let a = b.assign("a");
    let r = b.reader("r", 1);
    let s = b.scope_writer("s", 1);
    b.e(d, 0, a, 0);
    b.e(d, 0, r, 0);
    b.e(a, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(rw_ids(&after).len(), 1);
    assert_ne!(src_name(&after, s, 0), "a");
}

#[test]
fn ref_chain_from_a_subgraph_data_needs_a_copy() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let call = b.op("call", "PartitionedCall", &["x0"], &["y0"]);
    b.e(d, 0, call, 0);
    let sg = b.g.add_subgraph("f", call);
    let sd = b.g.add_subgraph_data(sg, "f_arg0", 0);
    let a = b.assign_in(sg, "f_assign");
    let s = b.scope_writer_in(sg, "f_ar", 1);
    b.e(sd, 0, a, 0);
    b.e(a, 0, s, 0);
    b.net_output(sg, &[(s, 0)]);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(rw_ids(&after).len(), 1);
    assert_ne!(src_name(&after, s, 0), "f_assign");
}

#[test]
fn skip_rw_conflict_consumer_is_left_alone() {
    let mut b = B::new();
    let c = b.src("c", "Const");
    let s = b.scope_writer("s", 1);
    b.g.node_mut(s).sem.skip_rw_conflict = true;
    b.e(c, 0, s, 0);
    let (plan, _) = run_checked(&b.g, plan_rw_conflict);
    assert!(plan.is_empty());
}

#[test]
fn skip_rw_conflict_sibling_cancels_the_shared_edge() {
    // GE would let s:0 share because the ignored HCCL edge is not last; we copy it.
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let h = b.scope_writer("h", 1);
    b.g.node_mut(h).sem.skip_rw_conflict = true;
    let s = b.scope_writer("s", 1);
    b.e(p, 0, h, 0);
    b.e(p, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_ne!(src_name(&after, s, 0), "p");
    assert_eq!(src_name(&after, h, 0), "p");
}

#[test]
fn cannot_be_deleted_nodes_are_not_visited() {
    let mut b = B::new();
    let c = b.src("c", "Const");
    b.g.node_mut(c).sem.cannot_be_deleted = true;
    let a = b.assign("a");
    b.e(c, 0, a, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(
        rw_ids(&after).is_empty(),
        "Const x Writeable would insert, but the Const is skipped"
    );
}

#[test]
fn nodes_in_while_subgraphs_are_not_visited() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let w = b.op("w", "While", &["x0"], &["y0"]);
    b.e(d, 0, w, 0);
    let cond = b.g.add_subgraph("cond", w);
    let cd = b.g.add_subgraph_data(cond, "cond_x", 0);
    b.net_output(cond, &[(cd, 0)]);
    let body = b.g.add_subgraph("body", w);
    let bd = b.g.add_subgraph_data(body, "body_x", 0);
    let c = b.src_in(body, "body_c", "Const");
    let a = b.assign_in(body, "body_assign");
    b.e(c, 0, a, 0);
    b.e(bd, 0, a, 1);
    b.net_output(body, &[(a, 0)]);
    let (plan, _) = run_checked(&b.g, plan_rw_conflict);
    assert!(
        plan.steps.iter().all(|s| s.rule == Rule::MarkRef),
        "{:#?}",
        plan.steps
    );
}

// ----- B.12 control-edge moves -------------------------------------------------------------

#[test]
fn insert_before_moves_consumer_in_control_edges_except_atomic_clean() {
    let mut b = B::new();
    let c = b.src("c", "Const");
    let t = b.reader("t", 0);
    let clean = b.op("clean", "AtomicAddrClean", &[], &[]);
    let a = b.assign("a");
    b.e(c, 0, a, 0);
    b.ctrl(t, a);
    b.ctrl(clean, a);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    let id = rw_ids(&after)[0];
    assert_eq!(
        after.node(id).ctrl_in,
        vec![t],
        "t's edge moved onto the Identity"
    );
    assert_eq!(
        after.node(a).ctrl_in,
        vec![clean],
        "the clean keeps its edge"
    );
    assert!(after.node(a).ctrl_in.len() == 1 && after.node(t).ctrl_out == vec![id]);
}

#[test]
fn insert_after_moves_producer_out_control_edges() {
    let mut g = if_returning_writable(true);
    let a = g.find("then_assign").unwrap();
    let sg = g.node(a).graph;
    let late = g.add_node(sg, "then_late", "NoOp", &[], &[]);
    let no = g.graph(sg).net_output.unwrap();
    // keep NetOutput last
    let order = &mut g.graph_mut(sg).order;
    order.retain(|&n| n != no);
    order.push(no);
    g.add_ctrl(a, late);
    let (_, after) = run_checked(&g, plan_rw_conflict);
    let id = after.src(no, 0).unwrap().node;
    assert_eq!(after.node(id).ctrl_out, vec![late]);
    assert!(after.node(a).ctrl_out.is_empty());
}

// ----- B.9 SplitIdentity ---------------------------------------------------------------

#[test]
fn split_identity_readers_go_to_the_producer_writers_get_copies() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let x = b.op("x", "Identity", &["x"], &["y"]);
    let r = b.reader("r", 1);
    let s = b.scope_writer("s", 1);
    let before = b.reader("before", 0);
    let later = b.reader("later", 0);
    b.e(p, 0, x, 0);
    b.e(x, 0, r, 0);
    b.e(x, 0, s, 0);
    b.ctrl(before, x);
    b.ctrl(x, later);
    let (plan, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(plan.stats.identities_split >= 1);
    assert!(after.node(x).removed, "the shared Identity disappears");
    assert_eq!(src_name(&after, r, 0), "p");
    let copy = after.src(s, 0).unwrap().node;
    assert_eq!(after.node(copy).ty, "Identity");
    assert!(
        after.node(copy).name.starts_with("p_Identity"),
        "named after the tensor's producer"
    );
    assert_eq!(src_name(&after, copy, 0), "p");
    // control edges: readers inherit in-control, the producer inherits out-control.
    assert!(after.node(r).ctrl_in.contains(&before));
    assert!(after.node(p).ctrl_out.contains(&later));
    assert!(plan.stats.rounds <= 3);
}

#[test]
fn split_identity_writable_ref_writer_ends_on_the_producer() {
    // (ReadOnly, Writeable) needs no copy: after the split the Assign writes p directly.
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let x = b.op("x", "ReadVariableOp", &["x"], &["y"]);
    let r = b.reader("r", 1);
    let a = b.assign("a");
    b.e(p, 0, x, 0);
    b.e(x, 0, r, 0);
    b.e(x, 0, a, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(src_name(&after, r, 0), "p");
    assert_eq!(src_name(&after, a, 0), "p");
    assert!(rw_ids(&after).is_empty());
}

// ----- B.10 RemoveNoUseIdentity --------------------------------------------------------

fn identity_between(p_ty: &str, consumer: impl Fn(&mut B) -> NodeId) -> (MemGraph, NodeId) {
    let mut b = B::new();
    let p = b.src("p", p_ty);
    let x = b.op("x", "Identity", &["x"], &["y"]);
    let c = consumer(&mut b);
    b.e(p, 0, x, 0);
    b.e(x, 0, c, 0);
    (b.g, x)
}

#[test]
fn remove_no_use_identity_removes_a_copy_the_matrix_does_not_need() {
    let (g, x) = identity_between("Relu", |b| b.reader("c", 1));
    let (plan, after) = run_checked(&g, plan_rw_conflict);
    assert!(after.node(x).removed);
    assert_eq!(src_name(&after, after.find("c").unwrap(), 0), "p");
    assert!(plan
        .steps
        .iter()
        .any(|s| s.rule == Rule::RemoveNoUseIdentity));
}

#[test]
fn remove_no_use_identity_keeps_a_needed_copy() {
    let (g, x) = identity_between("Const", |b| b.assign("c"));
    let (plan, after) = run_checked(&g, plan_rw_conflict);
    assert!(!after.node(x).removed);
    assert!(plan.steps.iter().all(|s| s.rule == Rule::MarkRef));
}

#[test]
fn remove_no_use_identity_keeps_identity_before_stream_merge() {
    let (g, x) = identity_between("Relu", |b| b.op("c", "StreamMerge", &["x"], &["y"]));
    let (_, after) = run_checked(&g, plan_rw_conflict);
    assert!(!after.node(x).removed);
}

#[test]
fn remove_no_use_identity_keeps_identity_near_a_subgraph() {
    let (g, x) = identity_between("Relu", |b| {
        let call = b.op("c", "PartitionedCall", &["x0"], &["y0"]);
        let sg = b.g.add_subgraph("f", call);
        let d = b.g.add_subgraph_data(sg, "f_arg0", 0);
        b.net_output(sg, &[(d, 0)]);
        call
    });
    let (_, after) = run_checked(&g, plan_rw_conflict);
    assert!(!after.node(x).removed);
}

#[test]
fn remove_no_use_identity_keeps_identity_useful_for_rw_control() {
    let (mut g, x) = identity_between("Variable", |b| b.reader("c", 1));
    let v = g.find("p").unwrap();
    let a = g.add_node(ROOT, "a", "Assign", &["ref", "value"], &["ref"]);
    g.connect(v, 0, a, 0);
    g.add_ctrl(x, a);
    let (_, after) = run_checked(&g, plan_rw_conflict);
    assert!(!after.node(x).removed, "read first, then the Assign writes");
}

#[test]
fn dead_identity_is_removed() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let x = b.op("x", "Identity", &["x"], &["y"]);
    let s = b.scope_writer("s", 1);
    b.e(p, 0, x, 0);
    b.e(p, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(after.node(x).removed);
    assert_eq!(
        src_name(&after, s, 0),
        "p",
        "p is SoftRead once the dead Identity is gone"
    );
}

#[test]
fn converged_plan_takes_at_most_two_rounds_on_simple_graphs() {
    let (g, _, _) = {
        let mut b = B::new();
        let c = b.src("c", "Const");
        let a = b.assign("a");
        b.e(c, 0, a, 0);
        (b.g, c, a)
    };
    let (plan, _) = run_checked(&g, plan_rw_conflict);
    assert_eq!(
        plan.stats.rounds, 2,
        "one round of edits, one that proves the fixpoint"
    );
    let (plan, _) = run_checked(&B::new().g, plan_rw_conflict);
    assert_eq!(plan.stats.rounds, 1);
}

#[test]
fn origin_round_trips_through_the_pass_flag() {
    for o in Origin::ALL {
        assert_eq!(Origin::from_pass_name(o.pass_name()), Some(o));
    }
    assert_eq!(Origin::from_pass_name("canonicalize"), None);
}

// ----- unconnected ref inputs ---------------------------------------------------------------

/// An Assign whose ref input (slot 0) has no peer, value (slot 1) fed by a Data.
fn assign_with_unconnected_ref(b: &mut B) -> NodeId {
    let v = b.src("v", "Data");
    let a = b.assign("a");
    b.e(v, 0, a, 1);
    a
}

#[test]
fn unconnected_ref_input_keeps_its_writeable_ref_output() {
    let mut b = B::new();
    let a = assign_with_unconnected_ref(&mut b);
    let r = b.reader("r", 1);
    b.e(a, 0, r, 0);
    assert_eq!(b.g.src(a, 0), None);
    assert_eq!(single_node_output_type(&b.g, a, 0), OutputRw::Writeable);
    assert_eq!(single_node_input_type(&b.g, a, 1), InputRw::ReadOnly);
    let (rw, _) = mark_subgraphs(&b.g).unwrap();
    assert_eq!(rw.input_type(&b.g, a, 0), InputRw::Writeable);
    // W -> RO: nothing to isolate.
    let (plan, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(rw_ids(&after).is_empty(), "{:#?}", plan.steps);
}

#[test]
fn ref_chain_to_an_unconnected_ref_input_needs_a_copy() {
    let mut b = B::new();
    let a = assign_with_unconnected_ref(&mut b);
    let s = b.scope_writer("s", 1);
    b.e(a, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert_eq!(rw_ids(&after).len(), 1, "{}", super::support::dump(&after));
    assert_ne!(src_name(&after, s, 0), "a");
    // The copy sits on the edge into the scope-writer; the empty slot stays empty.
    assert_eq!(after.src(a, 0), None);
}

#[test]
fn same_chain_with_the_ref_input_connected_to_a_private_data_shares() {
    let mut b = B::new();
    let v = b.src("v", "Data");
    let d = b.src("d", "Data");
    let a = b.assign("a");
    let s = b.scope_writer("s", 1);
    b.e(d, 0, a, 0);
    b.e(v, 0, a, 1);
    b.e(a, 0, s, 0);
    let (_, after) = run_checked(&b.g, plan_rw_conflict);
    assert!(rw_ids(&after).is_empty());
}
