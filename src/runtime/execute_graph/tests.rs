//! The execute-graph executor on compiled models: the same outputs as the reference, bit
//! for bit, with every passes' rule in place; and each fault it claims to catch, caught
//! when the pass that prevents it is left out or its work is undone by hand.

use super::buffers::LifetimeFault;
use super::*;
use crate::lowering::model::TensorDesc;
use crate::pipeline::{PassStatistics, Pipeline};
use crate::rtgraph::lower::ENSURE_AT_OUT_MEMORY;
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
    let (mut runs, expected) = run_schedules(ge, compile, passes, edit, inputs, &[None]);
    (runs.remove(0), expected)
}

/// [`run_on`] once per schedule of `schedules` (`None`: the priority order; `Some(seed)`:
/// a random one), on one build of the execute graph.
fn run_schedules(
    ge: &str,
    compile: bool,
    passes: RtPasses,
    edit: impl FnOnce(&mut RtModule),
    inputs: Vec<HostTensor>,
    schedules: &[Option<u64>],
) -> (Vec<Result<ExecuteGraphRun, ExecError>>, Vec<HostTensor>) {
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
    let runs = schedules
        .iter()
        .map(|&schedule| {
            let options = ExecuteGraphOptions {
                inputs: inputs.clone(),
                schedule,
                ..ExecuteGraphOptions::default()
            };
            run_execute_graph(&module, &rt, &options)
        })
        .collect();
    (runs, reference[0].outputs.clone())
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
fn while_loops_are_refused_at_the_node() {
    let ge = r#"
graph main {
  x = Data() {index = 0} : f32[4]
  i = Const() {value = dense<i32[]>(0)} : i32[]
  w = While(i, x) {cond = @c, body = @b} : (i32[], f32[4])
  return w:1
}

graph c {
  ci = Data() {index = 0} : i32[]
  cx = Data() {index = 1} : f32[4]
  three = Const() {value = dense<i32[]>(3)} : i32[]
  cl = "Less"(ci, three) : bool[]
  return cl
}

graph b {
  bi = Data() {index = 0} : i32[]
  bx = Data() {index = 1} : f32[4]
  one = Const() {value = dense<i32[]>(1)} : i32[]
  bi1 = Add(bi, one) : i32[]
  return bi1, bx
}
"#;
    let (e, _) = run_with(ge, RtPasses::default(), |_| {}, vec![f32t(&[1.0; 4])]);
    let e = e.unwrap_err();
    assert!(matches!(*e.fault, Fault::Unsupported(_)), "{e}");
    assert_eq!(e.node, "`w`");
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

/// The priority order, then twelve seeded random ones.
fn some_schedules() -> Vec<Option<u64>> {
    std::iter::once(None).chain((1..=12).map(Some)).collect()
}

#[test]
fn every_branch_under_random_schedules_gives_the_reference_outputs_bit_for_bit() {
    for (positive, k) in [(true, 0), (true, 1), (false, 0), (false, 1)] {
        let (runs, expected) = run_schedules(
            MODEL,
            true,
            RtPasses::default(),
            |_| {},
            inputs(positive, k),
            &some_schedules(),
        );
        for (schedule, run) in some_schedules().into_iter().zip(runs) {
            let run = run.unwrap_or_else(|e| panic!("schedule {schedule:?}: {e}"));
            assert_eq!(run.outputs, expected, "schedule {schedule:?}");
            let s = &run.stats;
            assert_eq!(s.allocations, s.releases, "schedule {schedule:?}: {s}");
        }
    }
}

#[test]
fn a_guarder_waits_for_the_readers_of_a_view_of_its_tensor() {
    // `v` is `r`'s memory: r's guarder must wait for `twice`, which reads only `v`.
    let ge = r#"
graph main {
  x = Data() {index = 0} : f32[8]
  shape = Const() {value = dense<i64[2]>[2, 4]} : i64[2]
  r = Relu(x) : f32[8]
  v = Reshape(r, shape) : f32[2, 4]
  twice = Add(v, v) : f32[2, 4]
  return twice
}
"#;
    let (runs, expected) = run_schedules(
        ge,
        true,
        RtPasses::default(),
        |_| {},
        vec![f32t(&[1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0])],
        &some_schedules(),
    );
    for (schedule, run) in some_schedules().into_iter().zip(runs) {
        let run = run.unwrap_or_else(|e| panic!("schedule {schedule:?}: {e}"));
        assert_eq!(run.outputs, expected, "schedule {schedule:?}");
    }
}

#[test]
fn without_ensure_tensor_at_out_memory_a_root_output_is_released_before_the_caller_has_it() {
    // gert orders no guarder after a NetOutput: the copy into the caller's memory is the
    // output's last reader. Reading the outputs directly leaves them to their guarders.
    let e = run_model(RtPasses::default(), |rt| {
        let g = rt.graph_index("main").unwrap();
        let graph = &mut rt.graphs[g];
        let ensure: Vec<(Endpoint, Endpoint)> = graph
            .nodes
            .iter()
            .filter(
                |n| matches!(&n.kind, Kind::Kernel { op_type } if op_type == ENSURE_AT_OUT_MEMORY),
            )
            .map(|n| {
                (
                    Endpoint {
                        node: n.id,
                        output: 0,
                    },
                    n.inputs[0],
                )
            })
            .collect();
        assert_eq!(ensure.len(), 2, "one per root output");
        let out = graph.net_output().unwrap().id;
        for input in &mut graph.node_mut(out).unwrap().inputs {
            if let Some((_, src)) = ensure.iter().find(|(e, _)| e == input) {
                *input = *src;
            }
        }
        for (e, _) in ensure {
            graph.remove(e.node);
        }
    })
    .unwrap_err();
    assert!(e.node.contains("ascend_rt.netoutput"), "{e}");
    assert!(
        matches!(
            e.fault.as_ref(),
            Fault::Lifetime(LifetimeFault::UseAfterRelease { released_by, .. })
                if released_by.contains("FreeMemory guarder")
        ),
        "{e}"
    );
}

#[test]
fn a_reader_its_guarder_does_not_wait_for_is_caught_by_a_random_schedule() {
    // `cond_if` reads `r` through a hand-made PointFromInputs, so r's guarder waits for the
    // pass-through but not for the cond; with the guarder moved to the end of @main the
    // priority order happens to run the cond first, and only some orders expose the race.
    let edit = |rt: &mut RtModule| {
        let (g, r) = find(rt, "main", |n| n.name == "r");
        let (_, cond) = find(rt, "main", |n| n.name == "cond_if");
        let graph = &mut rt.graphs[g];
        let r_out = Endpoint { node: r, output: 0 };
        let guarder = graph
            .nodes
            .iter()
            .find(|n| matches!(n.kind, Kind::Guarder { .. }) && n.inputs == [r_out])
            .unwrap()
            .clone();
        graph.remove(guarder.id);
        graph.push(guarder.kind, "", guarder.inputs, 0);
        let through = graph.insert_before(cond, Kind::PointFromInputs, "through", vec![r_out], 1);
        let inputs = &mut graph.node_mut(cond).unwrap().inputs;
        let k = inputs.iter().position(|e| *e == r_out).unwrap();
        inputs[k] = Endpoint {
            node: through,
            output: 0,
        };
    };
    let schedules = some_schedules();
    let (runs, expected) = run_schedules(
        MODEL,
        true,
        RtPasses::default(),
        edit,
        inputs(true, 0),
        &schedules,
    );
    let first = runs[0]
        .as_ref()
        .unwrap_or_else(|e| panic!("priority order: {e}"));
    assert_eq!(first.outputs, expected);
    let caught: Vec<&ExecError> = runs.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        !caught.is_empty(),
        "no random schedule ran the guarder before the cond"
    );
    for e in caught {
        assert_eq!(e.node, "`cond_if`", "{e}");
        assert!(
            matches!(
                e.fault.as_ref(),
                Fault::Lifetime(LifetimeFault::UseAfterRelease { made_by, .. })
                    if made_by.contains("`r`")
            ),
            "{e}"
        );
    }
}

#[test]
fn a_device_to_host_copy_waits_for_its_sync_stream_in_every_schedule() {
    let (runs, _) = run_schedules(
        MODEL,
        true,
        RtPasses::default(),
        |_| {},
        inputs(true, 0),
        &some_schedules(),
    );
    for run in runs {
        let run = run.unwrap_or_else(|e| panic!("{e}"));
        assert!(run.stats.syncs >= 1, "{}", run.stats);
    }
}

/// A Variable read by `scaled` and then updated in place by `assign`, the read ordered
/// before the write only by the control edge `^scaled`.
const TRAINING_STEP: &str = r#"
graph main {
  x = Data() {index = 0} : f32[4]
  w = Variable() : f32[4]
  one = Const() {value = dense<f32[4]>[1.0, 1.0, 1.0, 1.0]} : f32[4]
  scaled = Mul(x, w) : f32[4]
  next = Add(w, one) : f32[4]
  assign = Assign(w, next, ^scaled) : f32[4]
  return scaled
}
"#;

#[test]
fn variables_are_written_in_place_and_carry_over_iterations() {
    let context = crate::dialect::new_context();
    let mut module = crate::syntax::import::import_ge(&context, TRAINING_STEP, "t.ge").unwrap();
    let manager = crate::ir::pass_manager::module_pass_manager(&context);
    Pipeline::from_flags(&["ge-compile".to_owned()])
        .unwrap()
        .add_to(&manager, &PassStatistics::default())
        .unwrap();
    manager.run(&mut module).expect("--ge-compile succeeds");
    let rt = build_execute_graph(&module, "main", RtPasses::default()).unwrap();
    let x = f32t(&[1.0, 2.0, 3.0, 4.0]);
    for iterations in [1, 3] {
        let expected = run_reference(
            &module,
            &ReferenceOptions {
                inputs: vec![vec![x.clone()]],
                iterations,
                ..ReferenceOptions::default()
            },
        )
        .unwrap();
        for schedule in some_schedules() {
            let options = ExecuteGraphOptions {
                inputs: vec![x.clone()],
                schedule,
                iterations,
                ..ExecuteGraphOptions::default()
            };
            let run = run_execute_graph(&module, &rt, &options)
                .unwrap_or_else(|e| panic!("schedule {schedule:?}: {e}"));
            assert_eq!(
                run.outputs, expected[0].outputs,
                "{iterations} iteration(s), schedule {schedule:?}"
            );
        }
    }
}

#[test]
fn without_its_control_edge_a_random_schedule_reads_the_variable_after_its_update() {
    // The compute graph's `^scaled` is the only thing that orders the read of `w` before
    // `assign` writes it: dropped from the execute graph, some orders read the new value.
    let (runs, expected) = run_schedules(
        TRAINING_STEP,
        true,
        RtPasses::default(),
        |rt| {
            let (g, assign) = find(rt, "main", |n| n.name == "assign");
            let node = rt.graphs[g].node_mut(assign).unwrap();
            assert!(!node.after.is_empty(), "the lowering keeps ^scaled");
            node.after.clear();
        },
        vec![f32t(&[1.0, 2.0, 3.0, 4.0])],
        &some_schedules(),
    );
    let outputs: Vec<Vec<HostTensor>> = runs
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")).outputs)
        .collect();
    assert_eq!(outputs[0], expected, "node order reads w first");
    assert!(
        outputs.iter().any(|o| *o != expected),
        "no schedule ran the update before the read"
    );
}

#[test]
fn a_partitioned_call_is_inlined_and_runs_as_the_reference_does() {
    let ge = include_str!("../../../test/Runtime/Inputs/execute-graph-call.ge");
    let schedules = some_schedules();
    let check_lowering = |rt: &mut RtModule| {
        let main = rt.graph("main").unwrap();
        assert!(
            !main.nodes.iter().any(
                |n| matches!(&n.kind, Kind::Kernel { op_type } if op_type == "PartitionedCall")
            ),
            "the calls are inlined"
        );
        let bias = main.nodes.iter().find(|n| n.name == "bias").unwrap().id;
        for inlined in ["om", "ir", "id", "os"] {
            let node = main.nodes.iter().find(|n| n.name == inlined).unwrap();
            assert_eq!(node.after, [bias], "`{inlined}` waits for ^bias");
        }
    };
    let (runs, expected) = run_schedules(
        ge,
        true,
        RtPasses::default(),
        check_lowering,
        vec![f32t(&[1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0])],
        &schedules,
    );
    for (schedule, run) in schedules.into_iter().zip(runs) {
        let run = run.unwrap_or_else(|e| panic!("schedule {schedule:?}: {e}"));
        assert_eq!(run.outputs, expected, "schedule {schedule:?}");
        assert_eq!(run.stats.allocations, run.stats.releases);
    }
}
