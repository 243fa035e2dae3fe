//! MemcpyAddrAsyncPass (B.18) and MarkSameAddrPass (3.1.7).

use super::support::{inserted, run_checked, B};
use crate::analysis::memory::mark_same_addr::{fixed_address_output, plan_mark_same_addr};
use crate::analysis::memory::memcpy_addr_async::{plan_memcpy_addr_async, MemcpyAddrOptions};
use crate::analysis::memory::model::{DType, MemGraph, NodeId, Origin, TensorDesc, ROOT};
use crate::analysis::memory::plan::{CopyType, Edit, Rule};

fn typed(g: &mut MemGraph, dims: Vec<i64>) {
    let t = g.intern_tensor(TensorDesc::new(DType::F32, Some(dims)));
    for node in &mut g.nodes {
        node.inputs.iter_mut().for_each(|x| x.tensor = t);
        node.outputs.iter_mut().for_each(|x| x.tensor = t);
    }
}

fn copies(g: &MemGraph) -> Vec<NodeId> {
    inserted(g, Origin::MemcpyAddrAsync)
}

fn run(g: &MemGraph, opts: MemcpyAddrOptions) -> (Vec<Rule>, MemGraph) {
    let (plan, after) = run_checked(g, |g| plan_memcpy_addr_async(g, opts));
    for s in &plan.steps {
        assert!(matches!(
            s.edit,
            Edit::InsertCopy {
                ty: CopyType::MemcpyAddrAsync,
                ..
            }
        ));
    }
    (plan.steps.iter().map(|s| s.rule).collect(), after)
}

#[test]
fn a_root_data_into_a_stream_merge_gets_a_copy_and_moves_no_control_edge() {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let c = b.src("c", "Const");
    let sm = b.op("sm", "StreamMerge", &["x0", "x1"], &["y", "value_index"]);
    b.e(x, 0, sm, 0);
    b.e(c, 0, sm, 1);
    b.ctrl(c, sm);
    typed(&mut b.g, vec![4]);
    let (rules, after) = run(&b.g, MemcpyAddrOptions::default());
    assert_eq!(rules, [Rule::MemcpyAddrStreamMerge]);
    let copy = copies(&after)[0];
    assert_eq!(after.src(sm, 0).map(|p| p.node), Some(copy));
    assert_eq!(after.src(copy, 0).map(|p| p.node), Some(x));
    assert_eq!(*after.node(sm).ctrl_in, [c], "control edges stay");
    assert!(after.node(copy).sem.copy_like);
}

/// `i = If(k, x)` whose then-branch feeds its Data to a StreamMerge.
fn if_with_merge(call_ty: &str, known: bool) -> (B, NodeId, NodeId, NodeId) {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let i = b.op("i", call_ty, &["x0"], &["y0"]);
    b.g.node_mut(i).sem.known_shape_call = known;
    b.e(x, 0, i, 0);
    let t = b.g.add_subgraph("t", i);
    let d = b.g.add_subgraph_data(t, "t_x", 0);
    let sm = b.op_in(t, "t_sm", "StreamMerge", &["x0"], &["y", "value_index"]);
    b.e(d, 0, sm, 0);
    b.net_output(t, &[(sm, 0)]);
    b.net_output(ROOT, &[(i, 0)]);
    typed(&mut b.g, vec![4]);
    (b, x, i, d)
}

#[test]
fn a_subgraph_data_is_traced_to_the_user_data_behind_the_parent() {
    let (b, x, i, _) = if_with_merge("PartitionedCall", false);
    let (_, after) = run(&b.g, MemcpyAddrOptions::default());
    let copy = copies(&after)[0];
    assert_eq!(after.node(copy).graph, ROOT);
    assert_eq!(after.src(i, 0).map(|p| p.node), Some(copy));
    assert_eq!(after.src(copy, 0).map(|p| p.node), Some(x));
}

#[test]
fn inside_a_known_shape_call_the_copy_stays_inside_unless_the_data_is_a_variable() {
    let (b, _, _, d) = if_with_merge("PartitionedCall", true);
    let (_, after) = run(&b.g, MemcpyAddrOptions::default());
    let copy = copies(&after)[0];
    assert_eq!(after.node(copy).graph, after.node(d).graph);
    assert_eq!(after.src(copy, 0).map(|p| p.node), Some(d));
    let (mut b, _, _, d) = if_with_merge("PartitionedCall", true);
    let v = b.g.sym("v");
    b.g.node_mut(d).outputs[0].ref_var_src = Some(v);
    let (rules, _) = run(&b.g, MemcpyAddrOptions::default());
    assert!(rules.is_empty());
}

#[test]
fn the_root_output_copies_consts_always_and_data_only_when_forced() {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let k = b.src("k", "Const");
    let r = b.reader("r", 1);
    b.e(x, 0, r, 0);
    b.net_output(ROOT, &[(k, 0), (x, 0), (r, 0)]);
    typed(&mut b.g, vec![4]);
    let (rules, _) = run(&b.g, MemcpyAddrOptions::default());
    assert_eq!(rules, [Rule::MemcpyAddrNetOutput], "the Const only");
    let forced = MemcpyAddrOptions {
        offline: true,
        ..MemcpyAddrOptions::default()
    };
    let (rules, _) = run(&b.g, forced);
    assert_eq!(rules.len(), 2, "the Const and the Data");
    let mut empty = b.g.clone();
    typed(&mut empty, vec![0, 4]);
    let (rules, _) = run(&empty, forced);
    assert!(rules.is_empty(), "empty tensors are never copied");
}

#[test]
fn hccl_reading_ref_data_gets_a_copy_unless_the_feature_map_is_refreshable() {
    let mut b = B::new();
    let rd = b.src("rd", "RefData");
    let h = b.scope_writer("h", 1);
    b.e(rd, 0, h, 0);
    typed(&mut b.g, vec![4]);
    let (rules, _) = run(&b.g, MemcpyAddrOptions::default());
    assert_eq!(rules, [Rule::MemcpyAddrHcclRefData]);
    let refreshable = MemcpyAddrOptions {
        feature_map_refreshable: true,
        ..MemcpyAddrOptions::default()
    };
    assert!(run(&b.g, refreshable).0.is_empty());
}

#[test]
fn a_dynamic_root_is_left_alone() {
    let mut b = B::new();
    let k = b.src("k", "Const");
    b.net_output(ROOT, &[(k, 0)]);
    typed(&mut b.g, vec![4]);
    b.g.graph_mut(ROOT).unknown_shape = true;
    assert!(run(&b.g, MemcpyAddrOptions::default()).0.is_empty());
    let (plan, _) = run_checked(&b.g, plan_mark_same_addr);
    assert!(plan.is_empty());
}

#[test]
fn the_producer_of_a_fixed_address_input_is_marked_once() {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let s = b.op("s", "SplitLike", &["x"], &["y0", "y1"]);
    b.e(x, 0, s, 0);
    let sw = b.op("sw", "StreamSwitch", &["x1", "x2"], &[]);
    b.e(s, 1, sw, 0);
    b.e(s, 1, sw, 1);
    let r = b.reader("r", 1);
    b.e(s, 0, r, 0);
    assert_eq!(fixed_address_output(&b.g, s), Some(1));
    assert_eq!(fixed_address_output(&b.g, r), None);
    let (plan, after) = run_checked(&b.g, plan_mark_same_addr);
    assert_eq!(plan.steps.len(), 2, "name and index");
    assert_eq!(after.node(s).fixed_addr_output, Some(1));
    let names: Vec<String> = plan
        .steps
        .iter()
        .filter_map(|st| match &st.edit {
            Edit::SetStrAttr { value, .. } => Some(value.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["y1"]);
}
