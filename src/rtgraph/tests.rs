//! The analyses and rewrites on hand-built execute graphs (no MLIR): GE's rules, each with
//! a case that fires and one that must not.

use super::{
    analysis::{
        chain_conflict::calc_chain_conflict_solve_policy,
        guarders::{calc_subgraph_guarders_policy, find_guarder, PlusRef},
        placement::{plan_copies, CopyKind},
    },
    emit::emit_module,
    model::{Endpoint, Graph, Kind, Module, NodeId, Placement},
    passes::{
        chain_conflict::solve_chain_conflicts, guarders::move_subgraph_guarders,
        placement::insert_placement_copies,
    },
};
use std::collections::BTreeSet;

fn e(node: NodeId, output: u32) -> Endpoint {
    Endpoint { node, output }
}

fn inner_data(g: &mut Graph, index: i64, outside: bool) -> NodeId {
    g.push(
        Kind::InnerData {
            index,
            guarder_outside: outside.then(|| "FreeMemory".to_string()),
        },
        format!("d{index}"),
        vec![],
        1,
    )
}

fn kernel(g: &mut Graph, op: &str, inputs: Vec<Endpoint>) -> NodeId {
    g.push(
        Kind::Kernel { op_type: op.into() },
        op.to_lowercase(),
        inputs,
        1,
    )
}

fn guard(g: &mut Graph, v: Endpoint) -> NodeId {
    g.push(
        Kind::Guarder {
            guarder_type: "FreeMemory".into(),
            release_index: 0,
        },
        "",
        vec![v],
        0,
    )
}

/// A root with one cond of `outputs` outputs over the given branch frames.
fn with_cond(branches: Vec<Graph>, outputs: u32) -> (Module, NodeId) {
    let mut root = Graph::new("main", true);
    let p = root.push(Kind::Data { index: 0 }, "p", vec![], 1);
    let x = root.push(Kind::Data { index: 1 }, "x", vec![], 1);
    let y = root.push(Kind::Data { index: 2 }, "y", vec![], 1);
    let c = root.push(
        Kind::Cond {
            op_type: "If".into(),
            branches: branches.iter().map(|b| b.name.clone()).collect(),
        },
        "cond",
        vec![e(p, 0), e(x, 0), e(y, 0)],
        outputs,
    );
    let outs = (0..outputs).map(|k| e(c, k)).collect();
    root.push(Kind::NetOutput, "", outs, 0);
    let mut module = Module { graphs: vec![root] };
    module.graphs.extend(branches);
    (module, c)
}

fn branch(name: &str, build: impl FnOnce(&mut Graph) -> Vec<Endpoint>) -> Graph {
    let mut g = Graph::new(name, false);
    let outs = build(&mut g);
    g.push(Kind::InnerNetOutput, "", outs, 0);
    g
}

/// The spec's example: output 0 from input 0 in `then`, input 1 in `else`; output 1 from
/// input 1 in both.
fn spec_example() -> (Module, NodeId) {
    let then = branch("then", |g| {
        let d0 = inner_data(g, 0, false);
        let d1 = inner_data(g, 1, false);
        vec![e(d0, 0), e(d1, 0)]
    });
    let other = branch("else", |g| {
        let _d0 = inner_data(g, 0, false);
        let d1 = inner_data(g, 1, false);
        vec![e(d1, 0), e(d1, 0)]
    });
    with_cond(vec![then, other], 2)
}

#[test]
fn chain_conflict_finds_the_index_whose_branches_disagree() {
    let (module, c) = spec_example();
    let policy = calc_chain_conflict_solve_policy(&module, 0, c).unwrap();
    assert_eq!(policy.conflict_indexes, BTreeSet::from([0]));
    assert_eq!(policy.all_same_indexes, BTreeSet::from([1]));
    assert_eq!(policy.sources[0], BTreeSet::from([0, 1]));
}

#[test]
fn chain_conflict_counts_a_non_inner_data_source_as_minus_one() {
    // both branches compute output 0: {-1}, neither conflict nor all-same;
    // output 1 is a kernel in one branch and inner_data 0 in the other: conflict
    let then = branch("then", |g| {
        let d0 = inner_data(g, 0, false);
        let r = kernel(g, "Relu", vec![e(d0, 0)]);
        vec![e(r, 0), e(r, 0)]
    });
    let other = branch("else", |g| {
        let d0 = inner_data(g, 0, false);
        let n = kernel(g, "Neg", vec![e(d0, 0)]);
        vec![e(n, 0), e(d0, 0)]
    });
    let (module, c) = with_cond(vec![then, other], 2);
    let policy = calc_chain_conflict_solve_policy(&module, 0, c).unwrap();
    assert_eq!(policy.conflict_indexes, BTreeSet::from([1]));
    assert!(policy.all_same_indexes.is_empty());
    assert_eq!(policy.sources[0], BTreeSet::from([-1]));
}

#[test]
fn chain_conflict_inserts_one_point_from_inputs_per_branch_and_is_idempotent() {
    let (mut module, _) = spec_example();
    assert_eq!(solve_chain_conflicts(&mut module).unwrap(), 2);
    for branch in &module.graphs[1..] {
        let pfi = branch.first(|k| *k == Kind::PointFromInputs).unwrap();
        assert_eq!(pfi.inputs.len(), 1);
        assert_eq!(pfi.outputs, 1);
        let net = branch.net_output().unwrap();
        assert_eq!(net.inputs[0], e(pfi.id, 0));
        assert_ne!(
            net.inputs[1].node, pfi.id,
            "the all-same index is left alone"
        );
        // right before the NetOutput
        let at = branch.position(pfi.id).unwrap();
        assert_eq!(branch.nodes[at + 1].id, net.id);
    }
    assert_eq!(solve_chain_conflicts(&mut module).unwrap(), 0);
}

#[test]
fn chain_conflict_leaves_agreeing_branches_alone() {
    let then = branch("then", |g| vec![e(inner_data(g, 1, false), 0)]);
    let other = branch("else", |g| vec![e(inner_data(g, 1, false), 0)]);
    let (mut module, _) = with_cond(vec![then, other], 1);
    let before = module.clone();
    assert_eq!(solve_chain_conflicts(&mut module).unwrap(), 0);
    assert_eq!(module, before);
}

#[test]
fn malformed_frames_are_errors_naming_the_cond_and_branch() {
    let then = branch("then", |g| vec![e(inner_data(g, 0, false), 0)]);
    let mut other = Graph::new("else", false);
    inner_data(&mut other, 0, false);
    let (module, c) = with_cond(vec![then.clone(), other], 1);
    let error = calc_chain_conflict_solve_policy(&module, 0, c).unwrap_err();
    assert!(
        error.contains("branch `else` has no ascend_rt.inner_netoutput"),
        "{error}"
    );
    let (module, c) = with_cond(vec![then], 2);
    let error = calc_subgraph_guarders_policy(&module, 0, c).unwrap_err();
    assert!(
        error.contains("returns 1 values, the node has 2 outputs"),
        "{error}"
    );
    let (mut module, c) = spec_example();
    if let Kind::Cond { branches, .. } = &mut module.graphs[0].node_mut(c).unwrap().kind {
        branches[1] = "nowhere".into();
    }
    let error = solve_chain_conflicts(&mut module).unwrap_err();
    assert!(error.contains("no branch graph `nowhere`"), "{error}");
}

/// `then` guards a kernel output it returns at 0; `else` returns inner_data 0 unguarded.
fn guarded_then() -> (Module, NodeId) {
    let then = branch("then", |g| {
        let d0 = inner_data(g, 0, false);
        let r = kernel(g, "Relu", vec![e(d0, 0)]);
        guard(g, e(r, 0));
        vec![e(r, 0)]
    });
    let other = branch("else", |g| vec![e(inner_data(g, 0, false), 0)]);
    with_cond(vec![then, other], 1)
}

#[test]
fn an_in_branch_guarder_moves_to_the_parent_and_the_other_branch_aligns() {
    let (module, c) = guarded_then();
    let policy = calc_subgraph_guarders_policy(&module, 0, c).unwrap();
    assert_eq!(
        policy.parent_guarders,
        BTreeSet::from([(0, "FreeMemory".to_string())])
    );
    let then = &policy.branches[0];
    assert_eq!(then.removed_guarders.len(), 1);
    assert!(then.plus_refs.is_empty(), "the first use needs no plus-ref");
    let other = &policy.branches[1];
    assert!(other.removed_guarders.is_empty());
    let d0 = module.graphs[2].nodes[0].id;
    assert_eq!(
        other.plus_refs,
        [PlusRef {
            src: e(d0, 0),
            netoutput_input: 0
        }]
    );
}

#[test]
fn the_guarder_rewrite_moves_guarders_adds_plus_refs_and_is_idempotent() {
    let (mut module, c) = guarded_then();
    assert_eq!(move_subgraph_guarders(&mut module).unwrap(), (1, 1));
    let root = &module.graphs[0];
    let g = root
        .first(|k| matches!(k, Kind::Guarder { .. }))
        .expect("a guarder on the parent");
    assert_eq!(g.inputs, [e(c, 0)]);
    assert_eq!(root.nodes[root.position(c).unwrap() + 1].id, g.id);
    let then = &module.graphs[1];
    assert!(then.first(|k| matches!(k, Kind::Guarder { .. })).is_none());
    let other = &module.graphs[2];
    let ia = other.first(|k| *k == Kind::IdentityAddr).unwrap();
    assert_eq!(other.net_output().unwrap().inputs, [e(ia.id, 0)]);
    assert_eq!(move_subgraph_guarders(&mut module).unwrap(), (0, 0));
}

#[test]
fn a_guarder_is_found_through_the_point_from_inputs_the_chain_conflict_pass_put_first() {
    // `guarded_then` has a conflict at output 0 (a kernel in `then`, inner_data 0 in
    // `else`), so the chain-conflict pass puts a PointFromInputs before each inner
    // NetOutput. Relu's guarder must still move to the parent: left in `then`, it would
    // free the tensor the parent receives once the branch's own readers ran.
    let (mut module, c) = guarded_then();
    assert_eq!(solve_chain_conflicts(&mut module).unwrap(), 2);
    let policy = calc_subgraph_guarders_policy(&module, 0, c).unwrap();
    assert_eq!(
        policy.parent_guarders,
        BTreeSet::from([(0, "FreeMemory".to_string())])
    );
    assert_eq!(policy.branches[0].removed_guarders.len(), 1);
    assert!(policy.branches[0].plus_refs.is_empty());
    assert_eq!(policy.branches[1].plus_refs.len(), 1, "else aligns");
    assert_eq!(move_subgraph_guarders(&mut module).unwrap(), (1, 1));
    let then = &module.graphs[1];
    assert!(then.first(|k| matches!(k, Kind::Guarder { .. })).is_none());
}

#[test]
fn one_guarded_value_behind_two_point_from_inputs_is_one_reference_and_a_plus_ref() {
    let then = branch("then", |g| {
        let d0 = inner_data(g, 0, false);
        let r = kernel(g, "Relu", vec![e(d0, 0)]);
        guard(g, e(r, 0));
        let p = g.push(Kind::PointFromInputs, "p", vec![e(r, 0), e(r, 0)], 2);
        vec![e(p, 0), e(p, 1)]
    });
    let (module, c) = with_cond(vec![then], 2);
    let policy = calc_subgraph_guarders_policy(&module, 0, c).unwrap();
    assert_eq!(policy.branches[0].removed_guarders.len(), 1);
    assert_eq!(policy.branches[0].plus_refs.len(), 1, "the second output");
}

#[test]
fn a_tensor_guarded_outside_passing_through_gets_a_plus_ref() {
    let then = branch("then", |g| vec![e(inner_data(g, 0, true), 0)]);
    let other = branch("else", |g| vec![e(inner_data(g, 0, true), 0)]);
    let (module, c) = with_cond(vec![then, other], 1);
    let policy = calc_subgraph_guarders_policy(&module, 0, c).unwrap();
    assert_eq!(policy.parent_guarders.len(), 1);
    for b in &policy.branches {
        assert_eq!(b.plus_refs.len(), 1);
        assert!(b.removed_guarders.is_empty());
    }
}

#[test]
fn one_guarded_value_at_two_outputs_gets_a_plus_ref_for_the_second() {
    let then = branch("then", |g| {
        let d0 = inner_data(g, 0, false);
        let r = kernel(g, "Relu", vec![e(d0, 0)]);
        guard(g, e(r, 0));
        vec![e(r, 0), e(r, 0)]
    });
    let other = branch("else", |g| {
        let d0 = inner_data(g, 0, false);
        let a = kernel(g, "Neg", vec![e(d0, 0)]);
        guard(g, e(a, 0));
        let b = kernel(g, "Abs", vec![e(d0, 0)]);
        guard(g, e(b, 0));
        vec![e(a, 0), e(b, 0)]
    });
    let (module, c) = with_cond(vec![then, other], 2);
    let policy = calc_subgraph_guarders_policy(&module, 0, c).unwrap();
    assert_eq!(policy.parent_guarders.len(), 2);
    assert_eq!(policy.branches[0].removed_guarders.len(), 1, "removed once");
    assert_eq!(
        policy.branches[0]
            .plus_refs
            .iter()
            .map(|r| r.netoutput_input)
            .collect::<Vec<_>>(),
        [1]
    );
    assert_eq!(policy.branches[1].removed_guarders.len(), 2);
    assert!(policy.branches[1].plus_refs.is_empty());
}

#[test]
fn a_guarder_releasing_another_input_does_not_guard_the_value() {
    let mut g = Graph::new("b", false);
    let d0 = inner_data(&mut g, 0, false);
    let r = kernel(&mut g, "Relu", vec![e(d0, 0)]);
    let other = kernel(&mut g, "Neg", vec![e(d0, 0)]);
    g.push(
        Kind::Guarder {
            guarder_type: "FreeMemory".into(),
            release_index: 0,
        },
        "",
        vec![e(other, 0), e(r, 0)],
        0,
    );
    assert!(find_guarder(&g, e(r, 0)).unwrap().is_none());
    assert!(find_guarder(&g, e(other, 0)).unwrap().is_some());
    let mut bad = Graph::new("b", false);
    let d = bad.push(
        Kind::InnerData {
            index: 0,
            guarder_outside: Some("Nonsense".into()),
        },
        "d",
        vec![],
        1,
    );
    let error = find_guarder(&bad, e(d, 0)).unwrap_err();
    assert!(error.contains("`Nonsense`"), "{error}");
}

#[test]
fn unguarded_branches_need_no_guarders() {
    let then = branch("then", |g| vec![e(inner_data(g, 0, false), 0)]);
    let other = branch("else", |g| vec![e(inner_data(g, 1, false), 0)]);
    let (mut module, _) = with_cond(vec![then, other], 1);
    let before = module.clone();
    assert_eq!(move_subgraph_guarders(&mut module).unwrap(), (0, 0));
    assert_eq!(module, before);
}

#[test]
fn the_copy_table_is_ges() {
    use Placement::*;
    assert_eq!(CopyKind::of(Host, Host), None);
    assert_eq!(CopyKind::of(Hbm, Hbm), None);
    assert_eq!(CopyKind::of(P2p, P2p), None);
    assert_eq!(CopyKind::of(Host, Hbm), Some(CopyKind::HostToDevice));
    assert_eq!(CopyKind::of(Host, P2p), Some(CopyKind::HostToDevice));
    assert_eq!(CopyKind::of(Hbm, Host), Some(CopyKind::DeviceToHost));
    assert_eq!(CopyKind::of(P2p, Host), Some(CopyKind::DeviceToHost));
    assert_eq!(CopyKind::of(Hbm, P2p), Some(CopyKind::DeviceToDevice));
    assert_eq!(CopyKind::of(P2p, Hbm), Some(CopyKind::DeviceToDevice));
    assert!(CopyKind::DeviceToHost.needs_sync_stream());
    assert!(!CopyKind::HostToDevice.needs_sync_stream());
}

fn placed(g: &mut Graph, op: &str, inputs: Vec<Endpoint>, at: Placement) -> NodeId {
    let id = kernel(g, op, inputs);
    g.node_mut(id).unwrap().placement = Some(at);
    id
}

#[test]
fn copies_are_planned_per_output_and_destination() {
    let mut g = Graph::new("main", true);
    let x = g.push(Kind::Data { index: 0 }, "x", vec![], 1);
    let shape = placed(&mut g, "Shape", vec![e(x, 0)], Placement::Host);
    let reshape = placed(
        &mut g,
        "Reshape",
        vec![e(x, 0), e(shape, 0)],
        Placement::Hbm,
    );
    let again = placed(
        &mut g,
        "Reshape",
        vec![e(x, 0), e(shape, 0)],
        Placement::Hbm,
    );
    let host = placed(
        &mut g,
        "Add",
        vec![e(reshape, 0), e(shape, 0)],
        Placement::Host,
    );
    let p2p = placed(&mut g, "Neg", vec![e(reshape, 0)], Placement::P2p);
    let back = placed(&mut g, "Abs", vec![e(p2p, 0)], Placement::Host);
    let plan = plan_copies(&g);
    let summary: Vec<(NodeId, Placement, Placement, usize)> = plan
        .iter()
        .map(|c| (c.src.node, c.from, c.to, c.consumers.len()))
        .collect();
    use Placement::*;
    assert_eq!(
        summary,
        [
            // Shape's host output feeds two device Reshapes: one copy
            (shape, Host, Hbm, 2),
            (reshape, Hbm, Host, 1),
            (reshape, Hbm, P2p, 1),
            (p2p, P2p, Host, 1),
        ]
    );
    // Shape reads no data: x needs no copy to the host; host Add reads host Shape as is
    assert!(plan.iter().all(|c| c.src.node != x));
    let _ = (again, host, back);
}

#[test]
fn the_copy_rewrite_inserts_ges_nodes_with_guarders() {
    let mut g = Graph::new("main", true);
    let x = g.push(Kind::Data { index: 0 }, "x", vec![], 1);
    let shape = placed(&mut g, "Shape", vec![e(x, 0)], Placement::Host);
    let fill = placed(&mut g, "Fill", vec![e(shape, 0)], Placement::Hbm);
    let to_p2p = placed(&mut g, "Neg", vec![e(fill, 0)], Placement::P2p);
    let on_host = placed(
        &mut g,
        "Abs",
        vec![e(fill, 0), e(to_p2p, 0)],
        Placement::Host,
    );
    g.push(Kind::NetOutput, "", vec![e(on_host, 0)], 0);
    let mut module = Module { graphs: vec![g] };
    assert_eq!(insert_placement_copies(&mut module), 5);
    let g = &module.graphs[0];
    let types: Vec<String> = g
        .nodes
        .iter()
        .map(|n| match &n.kind {
            Kind::Kernel { op_type } => op_type.clone(),
            Kind::Guarder { .. } => "guard".into(),
            other => other.op_name().trim_start_matches("ascend_rt.").into(),
        })
        .collect();
    assert_eq!(
        types,
        [
            "data",
            "Shape",
            "CopyH2D",
            "guard",
            "Fill",
            "SyncStream",
            "CopyD2H",
            "guard",
            "MakeSureTensorAtDevice",
            "guard",
            "Neg",
            "SyncStream",
            "CopyD2H",
            "guard",
            "Abs",
            // the model output is hbm: Abs's host output goes back
            "CopyH2D",
            "guard",
            "netoutput"
        ]
    );
    // consumers read the copies
    let fill_node = g.node(fill).unwrap();
    assert_eq!(
        g.node(fill_node.inputs[0].node).unwrap().kind,
        Kind::Kernel {
            op_type: "CopyH2D".into()
        }
    );
    // nothing left to copy
    let mut again = module.clone();
    assert_eq!(insert_placement_copies(&mut again), 0);
    assert!(emit_module(&module).contains("\"ascend_rt.node\""));
}

#[test]
fn a_cond_reads_its_predicate_on_the_host() {
    let (module, c) = spec_example();
    let plan = plan_copies(&module.graphs[0]);
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].consumers, [(c, 0)]);
    assert_eq!(plan[0].kind, CopyKind::DeviceToHost);
}
