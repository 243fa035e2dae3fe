//! InplaceSupportCheckPass (B.17): the accepted case and one test per rejection reason.

use super::support::{run_checked, B};
use crate::analysis::memory::inplace_support::{
    check_input, inplace_candidate, plan_inplace_support_check, Rejection,
};
use crate::analysis::memory::model::{DType, MemGraph, NodeId, TensorDesc, ROOT};
use crate::analysis::memory::plan::{Edit, IntAttr};

fn f32x4(g: &mut MemGraph) -> crate::analysis::memory::model::TensorId {
    g.intern_tensor(TensorDesc::new(DType::F32, Some(vec![4])))
}

/// Gives every port of `n` the tensor `f32[4]`.
fn typed(g: &mut MemGraph, n: NodeId) {
    let t = f32x4(g);
    let node = g.node_mut(n);
    node.inputs.iter_mut().for_each(|x| x.tensor = t);
    node.outputs.iter_mut().for_each(|x| x.tensor = t);
}

/// `p = Relu(...)` (a non-source producer) feeding `n = reader(p)`.
fn chain() -> (B, NodeId, NodeId) {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let p = b.reader("p", 1);
    b.e(x, 0, p, 0);
    let n = b.reader("n", 1);
    b.e(p, 0, n, 0);
    typed(&mut b.g, p);
    typed(&mut b.g, n);
    (b, p, n)
}

#[test]
fn a_sole_consumer_of_a_computed_value_with_equal_type_is_marked() {
    let (b, _, n) = chain();
    assert_eq!(check_input(&b.g, n, 0), Ok(()));
    let (plan, after) = run_checked(&b.g, plan_inplace_support_check);
    assert_eq!(after.node(n).outputs[0].inplace_input, Some(0));
    let marked: Vec<NodeId> = plan
        .steps
        .iter()
        .map(|s| match s.edit {
            Edit::SetIntAttr {
                node,
                attr: IntAttr::InplaceSupportInputIndex,
                value: 0,
            } => node,
            ref e => panic!("unexpected edit {e:?}"),
        })
        .collect();
    assert_eq!(marked, [n], "p reads a Data: not marked");
    assert_eq!(plan.stats.attrs_set, 1);
}

#[test]
fn a_node_with_several_outputs_is_not_a_candidate() {
    let (mut b, p, _) = chain();
    let m = b.op("m", "Split", &["x"], &["y0", "y1"]);
    b.e(p, 0, m, 0);
    assert_eq!(inplace_candidate(&b.g, m), (None, vec![]));
}

#[test]
fn source_producers_are_rejected() {
    for ty in [
        "Data",
        "RefData",
        "Const",
        "Constant",
        "Variable",
        "VariableV2",
    ] {
        let mut b = B::new();
        let s = b.src("s", ty);
        let n = b.reader("n", 1);
        b.e(s, 0, n, 0);
        assert_eq!(
            check_input(&b.g, n, 0),
            Err(Rejection::SourceProducer),
            "{ty}"
        );
    }
}

#[test]
fn a_producer_with_two_consumers_is_rejected() {
    let (mut b, p, n) = chain();
    let other = b.reader("other", 1);
    b.e(p, 0, other, 0);
    assert_eq!(check_input(&b.g, n, 0), Err(Rejection::SharedProducer));
    // the same node reading it twice counts twice (GE counts edges)
    let mut b = B::new();
    let x = b.src("x", "Data");
    let p = b.reader("p", 1);
    b.e(x, 0, p, 0);
    let twice = b.reader("twice", 2);
    b.e(p, 0, twice, 0);
    b.e(p, 0, twice, 1);
    assert_eq!(check_input(&b.g, twice, 0), Err(Rejection::SharedProducer));
}

#[test]
fn a_dtype_mismatch_is_rejected() {
    let (mut b, _, n) = chain();
    let half =
        b.g.intern_tensor(TensorDesc::new(DType::F16, Some(vec![4])));
    b.g.node_mut(n).outputs[0].tensor = half;
    assert_eq!(check_input(&b.g, n, 0), Err(Rejection::DtypeMismatch));
}

#[test]
fn a_shape_mismatch_is_rejected_and_unknown_dims_compare_as_written() {
    let (mut b, _, n) = chain();
    let t =
        b.g.intern_tensor(TensorDesc::new(DType::F32, Some(vec![2, 2])));
    b.g.node_mut(n).outputs[0].tensor = t;
    assert_eq!(check_input(&b.g, n, 0), Err(Rejection::ShapeMismatch));
    let dynamic =
        b.g.intern_tensor(TensorDesc::new(DType::F32, Some(vec![-1])));
    b.g.node_mut(n).outputs[0].tensor = dynamic;
    b.g.node_mut(n).inputs[0].tensor = dynamic;
    assert_eq!(
        check_input(&b.g, n, 0),
        Ok(()),
        "GE compares the dims vectors"
    );
}

#[test]
fn the_first_qualifying_input_wins_and_earlier_rejections_are_noted() {
    let mut b = B::new();
    let k = b.src("k", "Const");
    let p = b.reader("p", 1);
    let q = b.reader("q", 1);
    let n = b.reader("n", 3);
    b.e(k, 0, n, 0);
    b.e(k, 0, p, 0);
    b.e(k, 0, q, 0);
    b.e(p, 0, n, 1);
    b.e(q, 0, n, 2);
    let (i, rejected) = inplace_candidate(&b.g, n);
    assert_eq!(i, Some(1));
    assert_eq!(rejected, vec![(0, Rejection::SourceProducer)]);
    let (plan, _) = run_checked(&b.g, plan_inplace_support_check);
    assert!(plan.notes.iter().any(|note| note.node == n
        && note.message.contains("input 0 of %n")
        && note.message.contains("source")));
}

#[test]
fn a_stale_index_is_overwritten_and_a_current_one_kept() {
    let (mut b, _, n) = chain();
    b.g.node_mut(n).outputs[0].inplace_input = Some(0);
    let (plan, _) = run_checked(&b.g, plan_inplace_support_check);
    assert!(plan.is_empty(), "already marked");
    b.g.node_mut(n).outputs[0].inplace_input = Some(3);
    let (plan, after) = run_checked(&b.g, plan_inplace_support_check);
    assert_eq!(plan.steps.len(), 1);
    assert_eq!(after.node(n).outputs[0].inplace_input, Some(0));
}

#[test]
fn subgraph_nodes_are_checked_too() {
    let mut b = B::new();
    let x = b.src("x", "Relu");
    let pc = b.op("pc", "PartitionedCall", &["args0"], &["output0"]);
    b.e(x, 0, pc, 0);
    let f = b.g.add_subgraph("f", pc);
    let d = b.g.add_subgraph_data(f, "f_x", 0);
    let p = b.reader_in(f, "f_p", 1);
    let n = b.reader_in(f, "f_n", 1);
    b.e(d, 0, p, 0);
    b.e(p, 0, n, 0);
    b.net_output(f, &[(n, 0)]);
    let (_, after) = run_checked(&b.g, plan_inplace_support_check);
    assert_eq!(after.node(n).outputs[0].inplace_input, Some(0));
    assert_eq!(
        after.node(p).outputs[0].inplace_input,
        None,
        "reads a subgraph Data"
    );
    assert_eq!(after.graph(ROOT).order.len(), 2);
}
