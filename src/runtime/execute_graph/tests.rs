//! The execute-graph executor on compiled models: the same outputs as the reference, bit
//! for bit, with every passes' rule in place; and each fault it claims to catch, caught
//! when the pass that prevents it is left out or its work is undone by hand.

use super::buffers::LifetimeFault;
use super::*;
use crate::lowering::model::TensorDesc;
use crate::pipeline::{PassStatistics, Pipeline};
use crate::rtgraph::model::{Endpoint, Kind, Module as RtModule};
use crate::runtime::reference::{run_reference, ReferenceOptions};
use ascend_kernels::DType;

/// If over a Relu the parent reads again after the cond, Case over the If's output, and a
/// host Shape (the model of `test/RtGraph/lower-to-rt.ge`, with the If's output also read
/// by the parent).
const MODEL: &str = r#"
graph main {
  x = Data() {index = 0} : f32[8]
  k = Data() {index = 1} : i32[]
  axes = Const() {value = dense<i64[1]>[0]} : i64[1]
  pred = ReduceSum(x, axes) {keep_dims = false} : f32[]
  r = Relu(x) : f32[8]
  s = Shape(x) : i32[1]
  cond_if = If(pred, r) {then_branch = @then, else_branch = @else} : f32[8]
  sel = Case(k, cond_if) {branches = [@b0, @b1]} : f32[8]
  twice = Add(cond_if, sel) : f32[8]
  return twice, s
}

graph then {
  a = Data() {index = 0} : f32[8]
  n = Relu(a) : f32[8]
  m = Mul(n, a) : f32[8]
  return m
}

graph else {
  a = Data() {index = 0} : f32[8]
  return a
}

graph b0 {
  a = Data() {index = 0} : f32[8]
  s = Add(a, a) : f32[8]
  return s
}

graph b1 {
  a = Data() {index = 0} : f32[8]
  return a
}
"#;

fn f32t(values: &[f32]) -> HostTensor {
    HostTensor {
        desc: TensorDesc {
            dtype: DType::F32,
            dims: vec![values.len() as i64],
            format: 2,
        },
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

fn i32t(value: i32) -> HostTensor {
    HostTensor {
        desc: TensorDesc {
            dtype: DType::I32,
            dims: vec![],
            format: 2,
        },
        bytes: value.to_le_bytes().to_vec(),
    }
}

/// `x` sums to a non-zero (then) or an exactly zero (else) predicate; `k` picks b0 or b1
/// (or, out of range, the last).
fn inputs(then: bool, k: i32) -> Vec<HostTensor> {
    let x: Vec<f32> = (0..8)
        .map(|i| {
            let v = (i / 2) as f32 + 0.5;
            if then || i % 2 == 1 {
                v
            } else {
                -v
            }
        })
        .collect();
    vec![f32t(&x), i32t(k)]
}

/// Imports and compiles `ge`, builds its execute graph with `passes`, lets `edit` change
/// it, and runs it on `inputs`; also returns the reference's outputs.
fn run_with(
    ge: &str,
    passes: RtPasses,
    edit: impl FnOnce(&mut RtModule),
    inputs: Vec<HostTensor>,
) -> (Result<ExecuteGraphRun, ExecError>, Vec<HostTensor>) {
    run_on(ge, true, passes, edit, inputs)
}

/// [`run_with`], on the graph as written when `compile` is false.
fn run_on(
    ge: &str,
    compile: bool,
    passes: RtPasses,
    edit: impl FnOnce(&mut RtModule),
    inputs: Vec<HostTensor>,
) -> (Result<ExecuteGraphRun, ExecError>, Vec<HostTensor>) {
    let context = crate::dialect::new_context();
    let mut module = crate::syntax::import::import_ge(&context, ge, "test.ge")
        .unwrap_or_else(|e| panic!("test graph does not import:\n{e}"));
    if compile {
        let manager = crate::ir::pass_manager::module_pass_manager(&context);
        Pipeline::from_flags(&["ge-compile".to_owned()])
            .unwrap()
            .add_to(&manager, &PassStatistics::default())
            .unwrap();
        manager.run(&mut module).expect("--ge-compile succeeds");
    }
    let reference = run_reference(
        &module,
        &ReferenceOptions {
            inputs: vec![inputs.clone()],
            ..ReferenceOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut rt = build_execute_graph(&module, "main", passes).unwrap();
    edit(&mut rt);
    let options = ExecuteGraphOptions {
        inputs,
        ..ExecuteGraphOptions::default()
    };
    let run = run_execute_graph(&module, &rt, &options);
    (run, reference[0].outputs.clone())
}

fn run_model(
    passes: RtPasses,
    edit: impl FnOnce(&mut RtModule),
) -> Result<ExecuteGraphRun, ExecError> {
    run_with(MODEL, passes, edit, inputs(true, 0)).0
}

#[test]
fn every_branch_gives_the_reference_outputs_bit_for_bit_and_releases_everything() {
    for (positive, k) in [(true, 0), (true, 1), (false, 0), (false, 1), (true, 7)] {
        let (run, expected) = run_with(MODEL, RtPasses::default(), |_| {}, inputs(positive, k));
        let run = run.unwrap_or_else(|e| panic!("then={positive} k={k}: {e}"));
        assert_eq!(run.outputs, expected, "then={positive} k={k}");
        let s = &run.stats;
        assert_eq!(s.conds, 2);
        let branches = [
            if positive { "then" } else { "else" },
            if k == 0 { "b0" } else { "b1" },
        ];
        assert_eq!(s.branches_taken, branches, "then={positive} k={k}");
        assert_eq!(s.allocations, s.releases, "{s}");
        assert!(
            s.copies >= 2,
            "the predicate and Shape's output cross placements: {s}"
        );
        assert!(s.syncs >= 1, "{s}");
        assert!(s.peak_bytes > 0);
    }
}

#[test]
fn without_the_subgraph_guarders_a_branch_frees_what_the_parent_still_reads() {
    let passes = RtPasses {
        subgraph_guarders: false,
        ..RtPasses::default()
    };
    let e = run_model(passes, |_| {}).unwrap_err();
    let Fault::Lifetime(LifetimeFault::UseAfterRelease {
        made_by,
        released_by,
    }) = e.fault.as_ref()
    else {
        panic!("{e}");
    };
    assert_eq!(e.graph, "main", "{e}");
    assert!(made_by.contains("@then"), "{e}");
    assert!(
        released_by.contains("FreeMemory guarder") && released_by.contains("@then"),
        "{e}"
    );
    assert!(e.to_string().contains("after"), "{e}");
}

#[test]
fn without_the_placement_copies_the_cond_reads_its_predicate_on_the_device() {
    let passes = RtPasses {
        placement_copies: false,
        ..RtPasses::default()
    };
    let e = run_model(passes, |_| {}).unwrap_err();
    assert_eq!(e.node, "`cond_if`", "{e}");
    assert!(
        matches!(
            *e.fault,
            Fault::Placement {
                input: 0,
                needed: Placement::Host,
                found: Placement::Hbm,
                ..
            }
        ),
        "{e}"
    );
}

/// The node of `graph` named `name`.
fn find(
    rt: &RtModule,
    graph: &str,
    matches: impl Fn(&crate::rtgraph::model::Node) -> bool,
) -> (usize, crate::rtgraph::model::NodeId) {
    let g = rt.graph_index(graph).unwrap();
    let id = rt.graphs[g]
        .nodes
        .iter()
        .find(|n| matches(n))
        .unwrap_or_else(|| panic!("no such node in @{graph}"))
        .id;
    (g, id)
}

#[test]
fn a_device_to_host_copy_before_its_sync_stream_is_caught() {
    let e = run_model(RtPasses::default(), |rt| {
        let (g, sync) = find(
            rt,
            "main",
            |n| matches!(&n.kind, Kind::Kernel { op_type } if op_type == "SyncStream"),
        );
        rt.graphs[g].remove(sync);
    })
    .unwrap_err();
    assert!(matches!(*e.fault, Fault::Unsynced { .. }), "{e}");
    assert!(e.node.contains("CopyD2H"), "{e}");
}

#[test]
fn a_plus_ref_nobody_gives_back_leaks() {
    let e = run_model(RtPasses::default(), |rt| {
        // One more IdentityAddr on the then-branch's result.
        let (g, out) = find(rt, "then", |n| matches!(n.kind, Kind::InnerNetOutput));
        let graph = &mut rt.graphs[g];
        let src = graph.node(out).unwrap().inputs[0];
        let plus = graph.insert_before(out, Kind::IdentityAddr, "extra_ref", vec![src], 1);
        graph.node_mut(out).unwrap().inputs[0] = Endpoint {
            node: plus,
            output: 0,
        };
    })
    .unwrap_err();
    let Fault::Leak(held) = e.fault.as_ref() else {
        panic!("{e}")
    };
    assert_eq!(held.len(), 1, "{e}");
    assert!(held[0].0.contains("@then"), "{e}");
}

#[test]
fn a_second_guarder_on_one_tensor_is_a_double_release() {
    let e = run_model(RtPasses::default(), |rt| {
        let (g, guarder) = find(rt, "main", |n| matches!(n.kind, Kind::Guarder { .. }));
        let graph = &mut rt.graphs[g];
        let node = graph.node(guarder).unwrap().clone();
        graph.insert_after(guarder, node.kind, "", node.inputs, 0);
    })
    .unwrap_err();
    assert!(
        matches!(
            *e.fault,
            Fault::Lifetime(LifetimeFault::DoubleRelease { .. })
        ),
        "{e}"
    );
}

#[test]
fn a_guarder_on_a_reshape_view_is_refused() {
    let ge = r#"
graph main {
  x = Data() {index = 0} : f32[8]
  shape = Const() {value = dense<i64[2]>[2, 4]} : i64[2]
  r = Relu(x) : f32[8]
  v = Reshape(r, shape) : f32[2, 4]
  return v
}
"#;
    let (ok, expected) = run_with(ge, RtPasses::default(), |_| {}, vec![f32t(&[1.0; 8])]);
    let ok = ok.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ok.outputs, expected);
    let (e, _) = run_with(
        ge,
        RtPasses::default(),
        |rt| {
            let (g, v) = find(rt, "main", |n| n.name == "v");
            rt.graphs[g].insert_after(
                v,
                Kind::Guarder {
                    guarder_type: "FreeMemory".into(),
                    release_index: 0,
                },
                "",
                vec![Endpoint { node: v, output: 0 }],
                0,
            );
        },
        vec![f32t(&[1.0; 8])],
    );
    let e = e.unwrap_err();
    assert!(
        matches!(
            *e.fault,
            Fault::Lifetime(LifetimeFault::ReleasesView { .. })
        ),
        "{e}"
    );
}

#[test]
fn while_loops_and_variables_are_refused_at_the_node() {
    let ge = r#"
graph main {
  x = Data() {index = 0} : f32[8]
  v = Variable() : f32[8]
  y = Add(x, v) : f32[8]
  return y
}
"#;
    let (e, _) = run_with(ge, RtPasses::default(), |_| {}, vec![f32t(&[1.0; 8])]);
    let e = e.unwrap_err();
    assert!(matches!(*e.fault, Fault::Unsupported(_)), "{e}");
    assert_eq!(e.node, "`v`");
}

#[test]
fn a_branch_that_hands_back_its_input_gives_the_parent_a_plus_ref_to_release() {
    // Uncompiled, `else` returns its input itself (SubgraphPass would copy it): the parent
    // guards that input, so CalcSubgraphGuardersPolicy puts an IdentityAddr in `else` and a
    // guarder on the If's output, and the run releases both references.
    let (run, expected) = run_on(MODEL, false, RtPasses::default(), |_| {}, inputs(false, 1));
    let run = run.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.outputs, expected);
    assert_eq!(run.stats.branches_taken, ["else", "b1"]);
    assert!(run.stats.plus_refs >= 1, "{}", run.stats);
    assert_eq!(run.stats.allocations, run.stats.releases);
    // The `then` path of the same graph, where the chain-conflict pass put a
    // PointFromInputs between `m` and the inner NetOutput: the guarder of `m` is found
    // through it and moved to the parent, or `m` is freed as `then` ends.
    let (run, expected) = run_on(MODEL, false, RtPasses::default(), |_| {}, inputs(true, 1));
    let run = run.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.outputs, expected);
    assert_eq!(run.stats.allocations, run.stats.releases);
    let (e, _) = run_on(
        MODEL,
        false,
        RtPasses {
            subgraph_guarders: false,
            ..RtPasses::default()
        },
        |_| {},
        inputs(true, 1),
    );
    let e = e.expect_err("the run without the policy fails");
    assert!(
        matches!(
            *e.fault,
            Fault::Lifetime(LifetimeFault::UseAfterRelease { .. })
        ),
        "{e}"
    );
}
