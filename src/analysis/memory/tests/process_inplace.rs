//! ProcessInplace (`inplace`) and SetInputOutputOffsetPass (`io_offset`) decisions on small
//! models: the verdicts the IR cannot express (one input offered to two outputs, an
//! unconnected input, unknown sizes), the merge as seen by the symbols, and GE's indexing
//! quirks of the zero-copy offsets.

use super::support::B;
use crate::analysis::memory::inplace::{plan_inplace, plan_inplace_on, Rejection};
use crate::analysis::memory::io_offset::{plan_io_offsets, IoAttrs, IoRule, Offsets};
use crate::analysis::memory::layout::LayoutOptions;
use crate::analysis::memory::mem_plan::StreamInfo;
use crate::analysis::memory::model::{DType, MemGraph, NodeId, TensorDesc, ROOT};
use crate::analysis::memory::symbols::{Anchor, Symbols};

fn typed(g: &mut MemGraph, dims: &[i64]) {
    let t = g.intern_tensor(TensorDesc::new(DType::F32, Some(dims.to_vec())));
    for node in &mut g.nodes {
        node.inputs.iter_mut().for_each(|x| x.tensor = t);
        node.outputs.iter_mut().for_each(|x| x.tensor = t);
    }
}

/// x -> a -> n (two outputs, both offered input 0) -> NetOutput.
fn two_outputs_one_input() -> (MemGraph, NodeId) {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let a = b.reader("a", 1);
    let n = b.op("n", "Split", &["x"], &["y0", "y1"]);
    b.e(x, 0, a, 0);
    b.e(a, 0, n, 0);
    b.net_output(ROOT, &[(n, 0), (n, 1)]);
    typed(&mut b.g, &[4]);
    b.g.node_mut(n).outputs[0].inplace_input = Some(0);
    b.g.node_mut(n).outputs[1].inplace_input = Some(0);
    (b.g, n)
}

#[test]
fn an_input_is_reused_by_one_output_only() {
    let (mut g, n) = two_outputs_one_input();
    let plan = plan_inplace(&mut g, LayoutOptions::default()).unwrap();
    assert_eq!(plan.candidates, 2);
    let verdicts: Vec<_> = plan.decisions.iter().map(|d| d.verdict.clone()).collect();
    assert_eq!(verdicts, [Ok(()), Err(Rejection::InputTaken)]);
    assert_eq!(plan.accepted().collect::<Vec<_>>(), [(n, 0, 0)]);
}

#[test]
fn an_accepted_reuse_merges_the_symbols_once_recorded() {
    let (mut g, n) = two_outputs_one_input();
    let before = Symbols::build(&g, ROOT);
    assert!(!before.same_symbol(Anchor::input(n, 0), Anchor::output(n, 0)));
    for (node, o, i) in plan_inplace(&mut g, LayoutOptions::default())
        .unwrap()
        .accepted()
        .collect::<Vec<_>>()
    {
        g.node_mut(node).outputs[o as usize].reuse_input = Some(i);
    }
    let after = Symbols::build(&g, ROOT);
    assert!(after.same_symbol(Anchor::input(n, 0), Anchor::output(n, 0)));
    assert!(!after.same_symbol(Anchor::input(n, 0), Anchor::output(n, 1)));
    // A second decision finds the input and output already shared.
    let again = plan_inplace(&mut g, LayoutOptions::default()).unwrap();
    assert_eq!(again.decisions[0].verdict, Err(Rejection::SameSymbol));
}

#[test]
fn an_unconnected_input_has_a_symbol_of_its_own_and_may_be_reused() {
    let mut b = B::new();
    let n = b.reader("n", 1);
    b.net_output(ROOT, &[(n, 0)]);
    typed(&mut b.g, &[4]);
    b.g.node_mut(n).outputs[0].inplace_input = Some(0);
    let plan = plan_inplace(&mut b.g, LayoutOptions::default()).unwrap();
    // An unconnected input still has a symbol of its own; nothing reads it as read-only
    // memory, so the reuse is accepted: GE would reuse an uninitialised buffer too.
    assert!(plan.decisions[0].verdict.is_ok());
}

#[test]
fn an_unknown_size_never_matches() {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let a = b.reader("a", 1);
    let n = b.reader("n", 1);
    b.e(x, 0, a, 0);
    b.e(a, 0, n, 0);
    b.net_output(ROOT, &[(n, 0)]);
    typed(&mut b.g, &[-1]);
    b.g.node_mut(n).outputs[0].inplace_input = Some(0);
    let plan = plan_inplace(&mut b.g, LayoutOptions::default()).unwrap();
    assert_eq!(
        plan.decisions[0].verdict,
        Err(Rejection::SizeMismatch {
            input: None,
            output: None
        })
    );
}

/// x -> a; a -> r (Reshape, `a`'s memory) -> m (offered input 0) -> NetOutput; and `a` ->
/// `other`, placed before `m` (`early`) or after it in node order.
fn reshape_alias(early: bool) -> (MemGraph, NodeId, NodeId) {
    let mut b = B::new();
    let x = b.src("x", "Data");
    let a = b.reader("a", 1);
    let r = b.op("r", "Reshape", &["x", "shape"], &["y"]);
    let (m, other) = if early {
        let other = b.reader("other", 1);
        (b.reader("m", 1), other)
    } else {
        let m = b.reader("m", 1);
        (m, b.reader("other", 1))
    };
    b.e(x, 0, a, 0);
    b.e(a, 0, r, 0);
    b.e(r, 0, m, 0);
    b.e(a, 0, other, 0);
    b.net_output(ROOT, &[(m, 0), (other, 0)]);
    typed(&mut b.g, &[4]);
    b.g.node_mut(m).outputs[0].inplace_input = Some(0);
    (b.g, m, other)
}

#[test]
fn a_reader_of_the_input_through_an_alias_after_the_node_forbids_the_reuse() {
    let (mut g, m, other) = reshape_alias(false);
    let plan = plan_inplace(&mut g, LayoutOptions::default()).unwrap();
    assert_eq!(plan.candidates, 1);
    assert_eq!(
        plan.decisions[0].verdict,
        Err(Rejection::ReadLater { reader: other })
    );
    assert!(plan.decisions[0]
        .describe(&g)
        .contains("`other` reads the same memory"));
    assert_eq!(plan.accepted().count(), 0, "{:?}", m);
}

#[test]
fn a_reader_of_the_input_that_ran_before_allows_the_reuse() {
    let (mut g, m, _) = reshape_alias(true);
    let plan = plan_inplace(&mut g, LayoutOptions::default()).unwrap();
    assert_eq!(plan.accepted().collect::<Vec<_>>(), [(m, 0, 0)]);
}

#[test]
fn with_streams_an_earlier_reader_must_also_be_ordered_before_the_node() {
    // `other` runs earlier in node order but on stream 1, with nothing ordering it before
    // `m` (stream 0): no reuse; an event from `other` to `m` orders them.
    for event in [false, true] {
        let (mut g, m, other) = reshape_alias(true);
        let mut stream = vec![Some(0); g.nodes.len()];
        stream[other.0 as usize] = Some(1);
        let streams = StreamInfo {
            stream,
            events: if event { vec![(other, m)] } else { Vec::new() },
        };
        let plan = plan_inplace_on(&mut g, LayoutOptions::default(), &streams).unwrap();
        let want = if event {
            Ok(())
        } else {
            Err(Rejection::ReadLater { reader: other })
        };
        assert_eq!(plan.decisions[0].verdict, want, "event: {event}");
    }
}

// ----- SetInputOutputOffsetPass ----------------------------------------------------------

struct Table {
    out: Vec<Vec<i64>>,
    inp: Vec<Vec<i64>>,
}

impl Offsets for Table {
    fn output(&self, n: NodeId) -> &[i64] {
        &self.out[n.0 as usize]
    }
    fn input(&self, n: NodeId) -> &[i64] {
        &self.inp[n.0 as usize]
    }
}

#[test]
fn an_hcom_output_pairs_go_to_the_output_node_at_the_connected_index() {
    // ar has two outputs: out0 -> r and NetOutput:0, out1 -> NetOutput:1. GE takes the
    // c-th node of GetOutDataNodes (r, NetOutput, NetOutput) with c = 1: the NetOutput.
    let mut b = B::new();
    let x = b.src("x", "Data");
    let ar = b.op("ar", "HcomAllToAll", &["x"], &["y0", "y1"]);
    b.g.node_mut(ar).sem.continuous_output = true;
    let r = b.reader("r", 1);
    b.e(x, 0, ar, 0);
    b.e(ar, 0, r, 0);
    let no = b.net_output(ROOT, &[(ar, 0), (ar, 1)]);
    let offsets = Table {
        out: vec![vec![-1], vec![0, 1024], vec![2048], vec![]],
        inp: vec![vec![], vec![-1], vec![0], vec![0, 1024]],
    };
    let attrs = |n: NodeId| IoAttrs {
        connect_output: if n == ar { vec![1] } else { vec![] },
        ..IoAttrs::default()
    };
    let plan = plan_io_offsets(&b.g, &offsets, &attrs).unwrap();
    let pairs: Vec<_> = plan
        .pairs
        .iter()
        .map(|p| (p.target, p.basic, p.relative, p.rule))
        .collect();
    assert_eq!(
        pairs,
        [
            (no, 1024, -1024, IoRule::HcomOutput),
            (no, 1024, 0, IoRule::HcomOutput)
        ]
    );
}

#[test]
fn buffer_fusion_holds_vacuously_without_inputs_as_in_ge() {
    let mut b = B::new();
    let c = b.op("c", "PhonyConcat", &[], &["y"]);
    b.net_output(ROOT, &[(c, 0)]);
    let offsets = Table {
        out: vec![vec![512], vec![]],
        inp: vec![vec![], vec![512]],
    };
    let attrs = |n: NodeId| IoAttrs {
        connect_output: if n == c { vec![0] } else { vec![] },
        no_task: n == c,
        ..IoAttrs::default()
    };
    let plan = plan_io_offsets(&b.g, &offsets, &attrs).unwrap();
    assert_eq!(plan.nodes_visited, 1);
    assert!(
        plan.pairs.is_empty(),
        "no input, so no pair, but no error either"
    );
}

/// `v (src_type) -> Assign.ref`, `x -> a -> Assign.value`, the output offered input 1.
fn assign_into(src_type: &str) -> (MemGraph, NodeId) {
    let mut b = B::new();
    let v = b.src("v", src_type);
    let x = b.src("x", "Data");
    let a = b.reader("a", 1);
    let n = b.assign("asg");
    b.e(x, 0, a, 0);
    b.e(v, 0, n, 0);
    b.e(a, 0, n, 1);
    b.net_output(ROOT, &[(n, 0)]);
    typed(&mut b.g, &[4]);
    b.g.node_mut(n).outputs[0].inplace_input = Some(1);
    (b.g, n)
}

/// A ref output of a variable is the variable (GE's VariableRefDeleteOpPass names it in
/// `ref_var_src_var_name`, and ProcessInplace drops the candidate): no reuse claim, so
/// `reuse_input_index` cannot disagree with its `output_offset = -1`.
#[test]
fn a_ref_output_of_a_variable_reuses_no_other_input() {
    for ty in ["Variable", "VariableV2", "RefData"] {
        let (mut g, n) = assign_into(ty);
        let plan = plan_inplace(&mut g, LayoutOptions::default()).unwrap();
        assert_eq!(plan.decisions.len(), 1, "{ty}");
        assert_eq!(plan.decisions[0].node, n);
        assert_eq!(
            plan.decisions[0].verdict,
            Err(Rejection::VariableOutput),
            "{ty}"
        );
        assert_eq!(plan.accepted().count(), 0);
    }
}

/// The rule is about variables only: a ref output of a Data (a subgraph's placeholder of
/// its parent's input is one) is not a variable, and is not refused for it.
#[test]
fn a_ref_output_of_a_data_is_not_a_variable_output() {
    let (mut g, _) = assign_into("Data");
    let plan = plan_inplace(&mut g, LayoutOptions::default()).unwrap();
    assert_ne!(plan.decisions[0].verdict, Err(Rejection::VariableOutput));
}
