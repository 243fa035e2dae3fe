//! HcclMemcpyPass (B.15) and HcclContinuousMemcpyPass (3.1.2).

use super::support::{inserted, run_checked, src_name, B};
use crate::analysis::memory::hccl_continuous_memcpy::plan_hccl_continuous_memcpy;
use crate::analysis::memory::hccl_memcpy::plan_hccl_memcpy;
use crate::analysis::memory::model::{NodeId, Origin};
use crate::analysis::memory::plan::Rule;
use crate::analysis::memory::rw_conflict::plan_rw_conflict;

fn hccl_ids(g: &crate::analysis::memory::model::MemGraph) -> Vec<NodeId> {
    inserted(g, Origin::HcclMemcpy)
}

#[test]
fn const_input_of_allreduce_is_always_isolated() {
    let mut b = B::new();
    let c = b.src("c", "Const");
    let h = b.scope_writer("allreduce", 1);
    b.e(c, 0, h, 0);
    let (plan, after) = run_checked(&b.g, plan_hccl_memcpy);
    let ids = hccl_ids(&after);
    assert_eq!(ids.len(), 1);
    assert_eq!(
        &*after.node(ids[0]).name,
        "allreduce_HcclMemcpyPass_Identity0"
    );
    assert_eq!(plan.steps[0].rule, Rule::HcclConstVar);
    assert!(plan.steps[0]
        .reason
        .contains("constant %c -> scope-writable input 0 of %allreduce"));
}

#[test]
fn variable_into_broadcast_gets_identity_and_write_back_assign() {
    let mut b = B::new();
    let v = b.src("v", "Variable");
    let h = b.op("bc", "HcomBroadcast", &["x"], &["y"]);
    b.g.node_mut(h).sem.input_mutable = true;
    let r = b.reader("r", 1);
    let late = b.reader("late", 0);
    b.e(v, 0, h, 0);
    b.e(h, 0, r, 0);
    b.ctrl(h, late);
    let (_, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert_eq!(hccl_ids(&after).len(), 2);
    let a = after.find("bc_Assign_0").expect("write-back Assign");
    assert_eq!(src_name(&after, a, 0), "v");
    assert_eq!(src_name(&after, a, 1), "bc");
    let mut ctrl = after.node(a).ctrl_out.clone();
    ctrl.sort();
    assert_eq!(
        ctrl,
        vec![r, late],
        "Assign precedes the broadcast's consumers"
    );
}

#[test]
fn existing_assign_on_the_variable_suppresses_write_back() {
    let mut b = B::new();
    let v = b.src("v", "Variable");
    let h = b.op("bc", "HcomBroadcast", &["x"], &["y"]);
    b.g.node_mut(h).sem.input_mutable = true;
    let a = b.assign("a");
    b.e(v, 0, a, 0);
    b.e(v, 0, h, 0);
    let (plan, _) = run_checked(&b.g, plan_hccl_memcpy);
    assert!(plan
        .steps
        .iter()
        .all(|s| s.rule != Rule::HcclBroadcastAssign));
}

#[test]
fn single_consumer_producer_needs_nothing() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let h = b.scope_writer("h", 1);
    b.e(p, 0, h, 0);
    let (plan, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert!(plan.is_empty());
    assert!(!after.node(h).sem.skip_rw_conflict);
}

#[test]
fn sibling_later_in_topo_order_needs_identity() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let h = b.scope_writer("h", 1);
    let s = b.reader("s", 1); // runs after h: would read overwritten bytes
    b.e(p, 0, h, 0);
    b.e(p, 0, s, 0);
    let (plan, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert_eq!(hccl_ids(&after).len(), 1);
    assert_eq!(plan.steps[0].rule, Rule::HcclSiblingLater);
    assert!(!after.node(h).sem.skip_rw_conflict);
}

#[test]
fn sibling_earlier_in_topo_order_marks_skip_rw_conflict() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let s = b.reader("s", 1); // runs before h: reads first, then h writes
    let h = b.scope_writer("h", 1);
    b.e(p, 0, s, 0);
    b.e(p, 0, h, 0);
    let (plan, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert!(hccl_ids(&after).is_empty());
    assert_eq!(plan.steps.len(), 1);
    assert_eq!(plan.steps[0].rule, Rule::HcclSkipMark);
    assert!(after.node(h).sem.skip_rw_conflict);
    // ... and HandleMemoryRWConflict leaves the marked op alone.
    let (rw, _) = run_checked(&after, plan_rw_conflict);
    assert!(rw.is_empty(), "{:#?}", rw.steps);
}

#[test]
fn shape_only_sibling_is_exempt() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let h = b.scope_writer("h", 1);
    let shape = b.op("shape", "Shape", &["x"], &["y"]);
    let reshape = b.op("reshape", "Reshape", &["x", "shape"], &["y"]);
    let rank = b.op("rank", "Rank", &["x"], &["y"]);
    b.e(p, 0, h, 0);
    b.e(p, 0, shape, 0);
    b.e(p, 0, reshape, 0);
    b.e(reshape, 0, rank, 0);
    let (_, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert!(
        hccl_ids(&after).is_empty(),
        "shape computations do not read the bytes"
    );
    assert!(after.node(h).sem.skip_rw_conflict);
}

#[test]
fn reshape_feeding_a_real_reader_is_not_exempt() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let h = b.scope_writer("h", 1);
    let reshape = b.op("reshape", "Reshape", &["x", "shape"], &["y"]);
    let r = b.reader("r", 1);
    b.e(p, 0, h, 0);
    b.e(p, 0, reshape, 0);
    b.e(reshape, 0, r, 0);
    let (_, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert_eq!(hccl_ids(&after).len(), 1);
}

#[test]
fn identity_inserted_for_an_earlier_hccl_op_is_ignored_as_a_sibling() {
    // p feeds h1 (isolated because h2 runs later) and h2; the Identity made for h1 does not
    // force a copy for h2, which is marked instead.
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let h1 = b.scope_writer("h1", 1);
    let h2 = b.scope_writer("h2", 1);
    b.e(p, 0, h1, 0);
    b.e(p, 0, h2, 0);
    let (_, after) = run_checked(&b.g, plan_hccl_memcpy);
    assert_eq!(hccl_ids(&after).len(), 1);
    assert_ne!(src_name(&after, h1, 0), "p");
    assert_eq!(src_name(&after, h2, 0), "p");
    assert!(after.node(h2).sem.skip_rw_conflict);
}

#[test]
fn graphs_with_fewer_than_two_nodes_are_skipped() {
    let mut b = B::new();
    b.scope_writer("h", 0);
    let (plan, _) = run_checked(&b.g, plan_hccl_memcpy);
    assert!(plan.is_empty());
}

// ----- HcclContinuousMemcpyPass ----------------------------------------------------------

fn continuous(b: &mut B, name: &str, n: usize) -> NodeId {
    let c = b.reader(name, n);
    b.g.node_mut(c).sem.continuous_input = true;
    c
}

#[test]
fn continuous_input_from_data_const_or_variable_is_isolated() {
    for ty in ["Data", "Const", "Variable"] {
        let mut b = B::new();
        let d = b.src("d", ty);
        let p = b.src("p", "Relu");
        let c = continuous(&mut b, "c", 2);
        b.e(d, 0, c, 0);
        b.e(p, 0, c, 1);
        let (plan, after) = run_checked(&b.g, plan_hccl_continuous_memcpy);
        let ids = inserted(&after, Origin::HcclContinuousMemcpy);
        assert_eq!(ids.len(), 1, "{ty}");
        assert!(after.node(ids[0]).sem.cannot_be_deleted);
        assert_eq!(
            &*after.node(ids[0]).name,
            "d_HcclContinuousMemcpyPass_Identity"
        );
        assert_eq!(src_name(&after, c, 1), "p");
        assert_eq!(plan.steps[0].rule, Rule::HcclContinuousInput);
    }
}

#[test]
fn output_shared_by_two_continuous_consumers_is_isolated_once() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let c1 = continuous(&mut b, "c1", 1);
    let c2 = continuous(&mut b, "c2", 1);
    b.e(p, 0, c1, 0);
    b.e(p, 0, c2, 0);
    let (_, after) = run_checked(&b.g, plan_hccl_continuous_memcpy);
    assert_eq!(inserted(&after, Origin::HcclContinuousMemcpy).len(), 1);
    assert_ne!(src_name(&after, c1, 0), "p");
    assert_eq!(src_name(&after, c2, 0), "p");
}

#[test]
fn p2p_input_from_variable_is_isolated() {
    let mut b = B::new();
    let v = b.src("v", "Variable");
    let p = b.src("p", "Relu");
    let h = b.op("send", "HcomSend", &["x", "y"], &[]);
    b.g.node_mut(h).inputs[0].mem_type = crate::analysis::memory::model::mem_type::P2P_DDR;
    b.g.node_mut(h).inputs[1].mem_type = crate::analysis::memory::model::mem_type::P2P_DDR;
    b.e(v, 0, h, 0);
    b.e(p, 0, h, 1);
    let (plan, after) = run_checked(&b.g, plan_hccl_continuous_memcpy);
    assert_eq!(inserted(&after, Origin::HcclContinuousMemcpy).len(), 1);
    assert_eq!(plan.steps[0].rule, Rule::HcclP2pInput);
    assert_eq!(src_name(&after, h, 1), "p");
}

#[test]
fn continuous_input_from_a_private_computed_tensor_needs_nothing() {
    let mut b = B::new();
    let p = b.src("p", "Relu");
    let c = continuous(&mut b, "c", 1);
    b.e(p, 0, c, 0);
    let (plan, _) = run_checked(&b.g, plan_hccl_continuous_memcpy);
    assert!(plan.is_empty());
}
