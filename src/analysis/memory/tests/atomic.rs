//! AtomicAddrCleanPass (B.18).

use super::support::{inserted, run_checked, B};
use crate::analysis::memory::atomic_addr_clean::{plan_atomic_addr_clean, AtomicOptions};
use crate::analysis::memory::model::{Atomic, MemGraph, NodeId, Origin};
use crate::analysis::memory::plan::Rule;

fn atomic_op(b: &mut B, name: &str) -> NodeId {
    let n = b.reader(name, 1);
    b.g.node_mut(n).atomic = Some(Box::new(Atomic {
        outputs: vec![0],
        ..Atomic::default()
    }));
    n
}

fn run(g: &MemGraph) -> (crate::analysis::memory::plan::Plan, MemGraph) {
    run_checked(g, |g| plan_atomic_addr_clean(g, AtomicOptions::default()))
}

fn cleans(g: &MemGraph) -> Vec<NodeId> {
    inserted(g, Origin::AtomicAddrClean)
}

/// d -> a1 -> r -> a2 -> out (NetOutput fed by r2 so no atomic op feeds the output).
fn two_atomic_ops(loop_graph: bool) -> (MemGraph, NodeId, NodeId, NodeId) {
    let mut b = B::new();
    let d = b.src("d", "Data");
    if loop_graph {
        b.op("loop_cond", "LoopCond", &[], &[]);
    }
    let a1 = atomic_op(&mut b, "a1");
    let r = b.reader("r", 1);
    let a2 = atomic_op(&mut b, "a2");
    let r2 = b.reader("r2", 1);
    b.e(d, 0, a1, 0);
    b.e(a1, 0, r, 0);
    b.e(r, 0, a2, 0);
    b.e(a2, 0, r2, 0);
    b.net_output(crate::analysis::memory::model::ROOT, &[(r2, 0)]);
    (b.g, d, a1, a2)
}

#[test]
fn loop_free_graph_gets_one_clean_at_the_head_linked_to_every_atomic_op() {
    let (g, _, a1, a2) = two_atomic_ops(false);
    let (plan, after) = run(&g);
    let cs = cleans(&after);
    assert_eq!(cs.len(), 1);
    let clean = cs[0];
    assert_eq!(
        after.graph(crate::analysis::memory::model::ROOT).order[0],
        clean,
        "at the head"
    );
    assert_eq!(after.node(clean).ty, "AtomicAddrClean");
    assert!(after.node(clean).ctrl_out.contains(&a1) && after.node(clean).ctrl_out.contains(&a2));
    assert_eq!(plan.steps[0].rule, Rule::AtomicCommonClean);
}

#[test]
fn loop_free_clean_also_precedes_the_successors_of_inputless_data() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let first = b.reader("first", 1);
    let a = atomic_op(&mut b, "a");
    b.e(d, 0, first, 0);
    b.e(first, 0, a, 0);
    let (_, after) = run(&b.g);
    let clean = cleans(&after)[0];
    assert!(
        after.node(clean).ctrl_out.contains(&first),
        "stream-start op linked"
    );
}

#[test]
fn loop_graph_gets_one_clean_per_atomic_op() {
    let (g, _, a1, a2) = two_atomic_ops(true);
    let (plan, after) = run(&g);
    let cs = cleans(&after);
    assert_eq!(cs.len(), 2);
    for (c, a) in cs.iter().zip([a1, a2]) {
        assert_eq!(after.node(*c).ctrl_out, vec![a]);
    }
    assert!(plan.steps.iter().all(|s| s.rule == Rule::AtomicLoopClean));
}

#[test]
fn atomic_op_feeding_the_output_gets_a_separate_clean() {
    let mut b = B::new();
    let d = b.src("d", "Data");
    let a1 = atomic_op(&mut b, "a1");
    let a2 = atomic_op(&mut b, "a2");
    let r = b.reader("r", 1);
    b.e(d, 0, a1, 0);
    b.e(d, 0, a2, 0);
    b.e(a1, 0, r, 0);
    b.net_output(crate::analysis::memory::model::ROOT, &[(a2, 0), (r, 0)]);
    let (plan, after) = run(&b.g);
    let cs = cleans(&after);
    assert_eq!(cs.len(), 2);
    let rules: Vec<Rule> = plan.steps.iter().map(|s| s.rule).collect();
    assert!(rules.contains(&Rule::AtomicOutputClean) && rules.contains(&Rule::AtomicCommonClean));
    let own = cs
        .iter()
        .copied()
        .find(|&c| after.node(c).ctrl_out == vec![a2])
        .expect("a2 has its own clean");
    let common = cs.into_iter().find(|&c| c != own).unwrap();
    assert!(after.node(common).ctrl_out.contains(&a1));
    assert!(
        !after.node(common).ctrl_out.contains(&a2),
        "the dispersed op is not linked again"
    );
}

#[test]
fn unknown_shape_graph_gets_no_clean() {
    let (mut g, ..) = two_atomic_ops(false);
    g.graph_mut(crate::analysis::memory::model::ROOT)
        .unknown_shape = true;
    let (plan, _) = run(&g);
    assert!(plan.is_empty());
}

#[test]
fn self_cleaning_atomic_ops_get_no_clean() {
    // feeding a _no_task op
    let (mut g, _, a1, a2) = two_atomic_ops(false);
    let r = g.find("r").unwrap();
    g.node_mut(r).sem.no_task = true;
    g.node_mut(a2).atomic = None;
    let (plan, _) = run(&g);
    assert!(plan.is_empty(), "{:#?}", plan.steps);
    // output references a variable
    let (mut g, _, a1b, a2b) = two_atomic_ops(false);
    let v = g.sym("v");
    g.node_mut(a1b).outputs[0].ref_var_src = Some(v);
    g.node_mut(a2b).outputs[0].ref_var_src = Some(v);
    let (plan, _) = run(&g);
    assert!(plan.is_empty());
    // the whole graph under ge.atomicCleanPolicy = 1
    let (g, ..) = two_atomic_ops(false);
    let mut g2 = g.clone();
    let plan = plan_atomic_addr_clean(
        &mut g2,
        AtomicOptions {
            clean_separately: true,
        },
    )
    .unwrap();
    assert!(plan.is_empty());
    let _ = a1;
}

#[test]
fn atomic_op_whose_outputs_all_feed_hccl_atomic_ops_is_skipped() {
    let mut b = B::new();
    let d = b.src("d", "Relu");
    let a = atomic_op(&mut b, "a");
    let h = b.scope_writer("h", 1);
    b.g.node_mut(h).sem.kernel_atomic = true;
    b.e(d, 0, a, 0);
    b.e(a, 0, h, 0);
    let (_, after) = run(&b.g);
    let cs = cleans(&after);
    assert_eq!(cs.len(), 1, "only the HCCL op is cleaned");
    let clean = cs[0];
    assert!(after.node(clean).ctrl_out.contains(&h));
    assert!(
        after.node(clean).ctrl_out.contains(&a),
        "linked as the HCCL op's input producer"
    );
}

#[test]
fn existing_head_clean_is_reused_for_new_atomic_ops() {
    let (g, _, _, _) = two_atomic_ops(false);
    let (_, mut after) = run(&g);
    let clean = cleans(&after)[0];
    let out = after
        .graph(crate::analysis::memory::model::ROOT)
        .net_output
        .unwrap();
    let r2 = after.src(out, 0).unwrap().node;
    let a3 = after.add_node(
        crate::analysis::memory::model::ROOT,
        "a3",
        "Add",
        &["x0"],
        &["y"],
    );
    after.node_mut(a3).atomic = Some(Box::new(Atomic {
        input: true,
        ..Atomic::default()
    }));
    after.connect(r2, 0, a3, 0);
    let order = &mut after.graph_mut(crate::analysis::memory::model::ROOT).order;
    order.retain(|&n| n != out);
    order.push(out);
    let (plan, after2) = run(&after);
    assert_eq!(cleans(&after2).len(), 1);
    assert_eq!(plan.steps.len(), 1);
    assert!(after2.node(clean).ctrl_out.contains(&a3));
}
