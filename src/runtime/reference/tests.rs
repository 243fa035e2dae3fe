//! Unit tests of the reference interpreter: small hand-written graphs with results computed
//! by hand, its errors, and the same answer before and after `--ge-compile`.

use super::*;
use crate::lowering::model::TensorDesc;
use ascend_kernels::DType;
use melior::ir::Module;

fn desc(dtype: DType, dims: &[i64]) -> TensorDesc {
    TensorDesc {
        dtype,
        dims: dims.to_vec(),
        format: 2,
    }
}

fn f32t(dims: &[i64], values: &[f32]) -> HostTensor {
    HostTensor {
        desc: desc(DType::F32, dims),
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

fn i32t(values: i32) -> HostTensor {
    HostTensor {
        desc: desc(DType::I32, &[]),
        bytes: values.to_le_bytes().to_vec(),
    }
}

fn floats(t: &HostTensor) -> Vec<f32> {
    assert_eq!(t.desc.dtype, DType::F32);
    t.bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn with_module<T>(ge: &str, f: impl FnOnce(&Module) -> T) -> T {
    let context = crate::dialect::new_context();
    let module = crate::syntax::import::import_ge(&context, ge, "test.ge")
        .unwrap_or_else(|e| panic!("test graph does not import:\n{e}"));
    f(&module)
}

fn run_ge(ge: &str, options: &ReferenceOptions) -> Result<Vec<ReferenceResult>, ReferenceError> {
    with_module(ge, |m| run_reference(m, options))
}

fn run_mlir(
    mlir: &str,
    options: &ReferenceOptions,
) -> Result<Vec<ReferenceResult>, ReferenceError> {
    let context = crate::dialect::new_context();
    let module = Module::parse(&context, mlir).expect("test IR parses");
    run_reference(&module, options)
}

fn with_inputs(inputs: Vec<HostTensor>) -> ReferenceOptions {
    ReferenceOptions {
        inputs: vec![inputs],
        ..ReferenceOptions::default()
    }
}

fn outputs(ge: &str, inputs: Vec<HostTensor>) -> Vec<Vec<f32>> {
    let r = run_ge(ge, &with_inputs(inputs)).unwrap_or_else(|e| panic!("{e}"));
    r[0].outputs.iter().map(floats).collect()
}

#[test]
fn elementwise_chain() {
    let ge = "graph main {
      x = Data() {index = 0} : f32[4]
      c = Const() {value = dense<f32[4]>(0.5)} : f32[4]
      a = Add(x, c) : f32[4]
      r = Relu(a) : f32[4]
      m = Mul(r, r) : f32[4]
      return m, a
    }";
    let out = outputs(ge, vec![f32t(&[4], &[1.0, -2.0, 3.0, -4.0])]);
    assert_eq!(out[0], [2.25, 0.0, 12.25, 0.0]);
    assert_eq!(out[1], [1.5, -1.5, 3.5, -3.5]);
}

#[test]
fn matmul_of_a_given_input_and_a_const() {
    let ge = "graph main {
      x = Data() {index = 0} : f32[2, 3]
      w = Const() {value = dense<f32[3, 2]>[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]} : f32[3, 2]
      y = MatMul(x, w) : f32[2, 2]
      return y
    }";
    let out = outputs(ge, vec![f32t(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]);
    assert_eq!(out[0], [4.0, 5.0, 10.0, 11.0]);
}

#[test]
fn control_edges_order_a_variable_write_between_two_reads() {
    // `before` must read the seeded value, `after` the assigned one: only the control
    // edges order them around the Assign.
    let ge = "graph main {
      v = Variable() : f32[2]
      c = Const() {value = dense<f32[2]>[7.0, 8.0]} : f32[2]
      before = Identity(v) : f32[2]
      set = Assign(v, c, ^before) : f32[2]
      after = Identity(v, ^set) : f32[2]
      return before, after
    }";
    let options = ReferenceOptions {
        seed: 5,
        ..ReferenceOptions::default()
    };
    let r = run_ge(ge, &options).unwrap();
    let initial = ascend_kernels::seeded_fill(5, &variable_seed_name("v"), DType::F32, &[2]);
    assert_eq!(r[0].outputs[0].bytes, initial);
    assert_eq!(floats(&r[0].outputs[1]), [7.0, 8.0]);
    assert_eq!(r[0].variables.len(), 1);
    assert_eq!(r[0].variables[0].0, "v");
    assert_eq!(floats(&r[0].variables[0].1), [7.0, 8.0]);
}

const IF_GRAPH: &str = "graph main {
  p = Data() {index = 0} : f32[]
  x = Data() {index = 1} : f32[2]
  y = If(p, x) {then_branch = @then, else_branch = @else} : f32[2]
  return y
}
graph then {
  a = Data() {index = 0} : f32[2]
  d = Add(a, a) : f32[2]
  return d
}
graph else {
  a = Data() {index = 0} : f32[2]
  n = Mul(a, a) : f32[2]
  return n
}";

#[test]
fn if_takes_both_branches_by_the_scalar_predicate() {
    let x = f32t(&[2], &[3.0, -1.0]);
    let run = |p: f32| outputs(IF_GRAPH, vec![f32t(&[], &[p]), x.clone()])[0].clone();
    assert_eq!(run(1.0), [6.0, -2.0]);
    assert_eq!(run(-0.5), [6.0, -2.0]);
    assert_eq!(run(f32::NAN), [6.0, -2.0]);
    assert_eq!(run(0.0), [9.0, 1.0]);
    assert_eq!(run(-0.0), [9.0, 1.0]);
}

#[test]
fn predicates_of_non_scalars_are_non_emptiness() {
    assert!(predicate(&f32t(&[2], &[0.0, 0.0])));
    assert!(!predicate(&f32t(&[0], &[])));
    assert!(predicate(&i32t(-3)));
    assert!(!predicate(&i32t(0)));
    let b = HostTensor {
        desc: desc(DType::Bool, &[]),
        bytes: vec![0],
    };
    assert!(!predicate(&b));
}

#[test]
fn case_picks_the_indexed_branch_and_clamps_out_of_range_to_the_last() {
    let ge = "graph main {
      k = Data() {index = 0} : i32[]
      x = Data() {index = 1} : f32[2]
      y = Case(k, x) {branches = [@b0, @b1, @b2]} : f32[2]
      return y
    }
    graph b0 {
      a = Data() {index = 0} : f32[2]
      r = Relu(a) : f32[2]
      return r
    }
    graph b1 {
      a = Data() {index = 0} : f32[2]
      r = Add(a, a) : f32[2]
      return r
    }
    graph b2 {
      a = Data() {index = 0} : f32[2]
      r = Mul(a, a) : f32[2]
      return r
    }";
    let x = f32t(&[2], &[3.0, -1.0]);
    let run = |k: i32| outputs(ge, vec![i32t(k), x.clone()])[0].clone();
    assert_eq!(run(0), [3.0, 0.0]);
    assert_eq!(run(1), [6.0, -2.0]);
    assert_eq!(run(2), [9.0, 1.0]);
    assert_eq!(run(7), [9.0, 1.0]);
    assert_eq!(run(-1), [9.0, 1.0]);
}

const WHILE_GRAPH: &str = "graph main {
  zero = Const() {value = dense<i32[]>(0)} : i32[]
  x = Data() {index = 0} : f32[2]
  w = While(zero, x) {cond = @cond, body = @body} : (i32[], f32[2])
  return w:1
}
graph cond {
  i = Data() {index = 0} : i32[]
  v = Data() {index = 1} : f32[2]
  limit = Const() {value = dense<i32[]>(3)} : i32[]
  left = Sub(limit, i) : i32[]
  p = Cast(left) {dst_type = 12} : bool[]
  return p
}
graph body {
  i = Data() {index = 0} : i32[]
  v = Data() {index = 1} : f32[2]
  one = Const() {value = dense<i32[]>(1)} : i32[]
  next = Add(i, one) : i32[]
  twice = Add(v, v) : f32[2]
  return next, twice
}";

#[test]
fn while_runs_its_body_until_the_counter_reaches_the_limit() {
    // Three iterations: x * 2^3.
    let out = outputs(WHILE_GRAPH, vec![f32t(&[2], &[1.5, -0.25])]);
    assert_eq!(out[0], [12.0, -2.0]);
}

#[test]
fn partitioned_call_runs_its_subgraph() {
    let ge = "graph main {
      x = Data() {index = 0} : f32[3]
      y = PartitionedCall(x) {f = @f} : f32[3]
      z = Sub(y, x) : f32[3]
      return z
    }
    graph f {
      a = Data() {index = 0} : f32[3]
      c = Const() {value = dense<f32[3]>(1.0)} : f32[3]
      s = Mul(a, a) : f32[3]
      t = Add(s, c) : f32[3]
      return t
    }";
    let out = outputs(ge, vec![f32t(&[3], &[2.0, -3.0, 0.5])]);
    // x*x + 1 - x
    assert_eq!(out[0], [3.0, 13.0, 0.75]);
}

#[test]
fn apply_momentum_updates_variables_over_three_iterations() {
    let ge = "graph main {
      w = Variable() : f32[2]
      accum = Variable() : f32[2]
      lr = Const() {value = dense<f32[]>(0.5)} : f32[]
      m = Const() {value = dense<f32[]>(0.25)} : f32[]
      g = Data() {index = 0} : f32[2]
      upd = ApplyMomentum(w, accum, lr, g, m) : f32[2]
      seen = Identity(w, ^upd) : f32[2]
      return seen
    }";
    let options = ReferenceOptions {
        inputs: vec![vec![f32t(&[2], &[1.0, -2.0])]],
        seed: 11,
        iterations: 3,
        ..ReferenceOptions::default()
    };
    let r = run_ge(ge, &options).unwrap();
    let start = |name: &str| {
        let bytes = ascend_kernels::seeded_fill(11, &variable_seed_name(name), DType::F32, &[2]);
        floats(&HostTensor {
            desc: desc(DType::F32, &[2]),
            bytes,
        })
    };
    let (mut w, mut accum) = (start("w"), start("accum"));
    let g = [1.0f32, -2.0];
    for _ in 0..3 {
        for k in 0..2 {
            accum[k] = accum[k] * 0.25 + g[k];
            w[k] -= 0.5 * accum[k];
        }
    }
    let vars: std::collections::HashMap<_, _> = r[0]
        .variables
        .iter()
        .map(|(n, t)| (n.as_str(), floats(t)))
        .collect();
    assert_eq!(vars["w"], w);
    assert_eq!(vars["accum"], accum);
    assert_eq!(floats(&r[0].outputs[0]), w);
}

const ALLREDUCE_GRAPH: &str = "graph main {
  x = Data() {index = 0} : f32[3]
  s = HcomAllReduce(x) {group = \"hccl_world_group\", reduction = \"sum\"} : f32[3]
  m = HcomAllReduce(x) {group = \"hccl_world_group\", reduction = \"max\"} : f32[3]
  y = Add(s, m) : f32[3]
  return s, y
}";

#[test]
fn allreduce_over_two_ranks() {
    let options = ReferenceOptions {
        ranks: 2,
        inputs: vec![
            vec![f32t(&[3], &[1.0, 20.0, -3.0])],
            vec![f32t(&[3], &[10.0, 2.0, -30.0])],
        ],
        ..ReferenceOptions::default()
    };
    let r = run_ge(ALLREDUCE_GRAPH, &options).unwrap();
    assert_eq!(r.len(), 2);
    for rank in &r {
        assert_eq!(floats(&rank.outputs[0]), [11.0, 22.0, -33.0]);
        assert_eq!(floats(&rank.outputs[1]), [21.0, 42.0, -36.0]);
    }
}

#[test]
fn ranks_without_inputs_are_seeded_apart() {
    let options = ReferenceOptions {
        ranks: 2,
        seed: 3,
        ..ReferenceOptions::default()
    };
    let r = run_ge(ALLREDUCE_GRAPH, &options).unwrap();
    let x = |rank: u64| {
        let bytes = ascend_kernels::seeded_fill(3 + rank, &input_seed_name("x"), DType::F32, &[3]);
        floats(&HostTensor {
            desc: desc(DType::F32, &[3]),
            bytes,
        })
    };
    let (a, b) = (x(0), x(1));
    assert_ne!(a, b);
    let sum: Vec<f32> = a.iter().zip(&b).map(|(p, q)| p + q).collect();
    assert_eq!(floats(&r[0].outputs[0]), sum);
    assert_eq!(r[0], r[1]);
}

#[test]
fn f16_sums_round_at_every_step_in_rank_order() {
    use half::f16;
    let bits = |v: f32| f16::from_f32(v).to_le_bytes().to_vec();
    // 2048 + 1 rounds back to 2048 in f16, twice; summed in f32 first it would be 2050.
    let mut acc = bits(2048.0);
    reduce_into(
        &mut acc,
        &bits(1.0),
        DType::F16,
        crate::lowering::model::Reduction::Sum,
    );
    reduce_into(
        &mut acc,
        &bits(1.0),
        DType::F16,
        crate::lowering::model::Reduction::Sum,
    );
    assert_eq!(acc, bits(2048.0));
    let mut acc = 5i32.to_le_bytes().to_vec();
    reduce_into(
        &mut acc,
        &(-9i32).to_le_bytes(),
        DType::I32,
        crate::lowering::model::Reduction::Min,
    );
    assert_eq!(acc, (-9i32).to_le_bytes());
}

#[test]
fn an_op_without_a_kernel_is_an_error_naming_node_and_type() {
    let ge = "graph main {
      x = Data() {index = 0} : f32[4]
      y = \"NoSuchOp\"(x) : f32[4]
      return y
    }";
    let e = run_ge(ge, &ReferenceOptions::default()).unwrap_err();
    assert_eq!(
        e,
        ReferenceError::NoKernel {
            node: "y".into(),
            op_type: "NoSuchOp".into()
        }
    );
    assert!(
        e.to_string().contains("`y`") && e.to_string().contains("NoSuchOp"),
        "{e}"
    );
    let opaque = ReferenceOptions {
        opaque_kernels: true,
        ..ReferenceOptions::default()
    };
    let a = run_ge(ge, &opaque).unwrap();
    assert_eq!(
        a,
        run_ge(ge, &opaque).unwrap(),
        "opaque stand-ins are deterministic"
    );
}

#[test]
fn a_while_that_never_ends_is_stopped_at_its_bound() {
    let ge = "graph main {
      x = Data() {index = 0} : f32[2]
      w = While(x) {cond = @cond, body = @body} : f32[2]
      return w
    }
    graph cond {
      v = Data() {index = 0} : f32[2]
      t = Const() {value = dense<bool[]>(true)} : bool[]
      return t
    }
    graph body {
      v = Data() {index = 0} : f32[2]
      r = Relu(v) : f32[2]
      return r
    }";
    let options = ReferenceOptions {
        while_limit: 50,
        ..ReferenceOptions::default()
    };
    let e = run_ge(ge, &options).unwrap_err();
    assert_eq!(
        e,
        ReferenceError::WhileBound {
            node: "w".into(),
            limit: 50
        }
    );
}

#[test]
fn missing_and_misfit_inputs_are_errors() {
    // Model input 0 has no Data node: only index 1 exists.
    let mlir = r#"
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %d:2 = "ascend.data"(%a) {name = "d", index = 1 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
      return %d#0 : tensor<2xf32>
    }"#;
    let e = run_mlir(mlir, &ReferenceOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ReferenceError::MissingInput { node, .. } if node == "d"),
        "{e:?}"
    );
    // A subgraph reads two arguments, its caller passes one.
    let mlir = r#"
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %d:2 = "ascend.data"(%a) {name = "d", index = 0 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
      %c:2 = "ascend.partitioned_call"(%d#0) {f = @f, name = "call", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
      return %c#0 : tensor<2xf32>
    }
    func.func private @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
      %a:2 = "ascend.data"(%x) {name = "fa", index = 0 : i64} : (tensor<2xf32>) -> (tensor<2xf32>, !ascend.ctrl)
      return %a#0 : tensor<2xf32>
    }"#;
    let e = run_mlir(mlir, &ReferenceOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ReferenceError::MissingInput { node, .. } if node == "call"),
        "{e:?}"
    );
    // A given input of the wrong shape.
    let ge = "graph main {
      x = Data() {index = 0} : f32[4]
      return x
    }";
    let e = run_ge(ge, &with_inputs(vec![f32t(&[2], &[1.0, 2.0])])).unwrap_err();
    assert!(matches!(e, ReferenceError::Input { index: 0, .. }), "{e:?}");
    // No such root graph.
    let options = ReferenceOptions {
        root: Some("nope".into()),
        ..ReferenceOptions::default()
    };
    let e = run_ge(ge, &options).unwrap_err();
    assert!(e.to_string().contains("@nope"), "{e}");
}

#[test]
fn a_rank_that_skips_a_collective_fails_the_run_instead_of_hanging() {
    // Rank 0 takes the branch with the AllReduce, rank 1 the one without.
    let ge = "graph main {
      p = Data() {index = 0} : f32[]
      x = Data() {index = 1} : f32[2]
      y = If(p, x) {then_branch = @then, else_branch = @else} : f32[2]
      return y
    }
    graph then {
      a = Data() {index = 0} : f32[2]
      s = HcomAllReduce(a) {group = \"hccl_world_group\", reduction = \"sum\"} : f32[2]
      return s
    }
    graph else {
      a = Data() {index = 0} : f32[2]
      r = Relu(a) : f32[2]
      return r
    }";
    let x = f32t(&[2], &[1.0, 2.0]);
    let options = ReferenceOptions {
        ranks: 2,
        inputs: vec![
            vec![f32t(&[], &[1.0]), x.clone()],
            vec![f32t(&[], &[0.0]), x],
        ],
        ..ReferenceOptions::default()
    };
    let e = run_ge(ge, &options).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("`s`") && text.contains("rank 1 finished"),
        "{text}"
    );
}

/// `examples/allreduce_step.ge` with its gradient MatMul given shapes that multiply: as
/// shipped, `grad = MatMul(act, w)` multiplies [32, 64] by [64, 64] into a declared
/// [64, 64], which no kernel computes; `x^T act` is the [64, 64] weight gradient.
pub(crate) fn allreduce_step() -> String {
    let ge = include_str!("../../../examples/allreduce_step.ge");
    let shipped = "grad = MatMul(act, w) : f32[64, 64]";
    if ge.contains(shipped) {
        ge.replace(
            shipped,
            "grad = MatMul(x, act) {transpose_x1 = true} : f32[64, 64]",
        )
    } else {
        ge.to_owned()
    }
}

/// Compiles `module` with `--ge-compile` (and `extra` options).
fn compile(context: &melior::Context, module: &mut Module, options: &str) {
    use crate::pipeline::{PassStatistics, Pipeline};
    let flag = if options.is_empty() {
        "ge-compile".to_owned()
    } else {
        format!("ge-compile={options}")
    };
    let manager = crate::ir::pass_manager::module_pass_manager(context);
    Pipeline::from_flags(&[flag])
        .unwrap()
        .add_to(&manager, &PassStatistics::default())
        .unwrap();
    manager.run(module).expect("--ge-compile succeeds");
}

fn same_before_and_after_compile(ge: &str, options: &ReferenceOptions, compile_options: &str) {
    let context = crate::dialect::new_context();
    let mut module = crate::syntax::import::import_ge(&context, ge, "test.ge").unwrap();
    let before = run_reference(&module, options).unwrap_or_else(|e| panic!("{e}"));
    compile(&context, &mut module, compile_options);
    let text = module.as_operation().to_string();
    assert!(text.contains("stream_id"), "the module was compiled");
    let after = run_reference(&module, options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(before, after);
}

#[test]
fn the_bundled_example_gives_the_same_answer_before_and_after_ge_compile() {
    let ge = allreduce_step();
    let options = ReferenceOptions {
        ranks: 2,
        iterations: 2,
        seed: 9,
        ..ReferenceOptions::default()
    };
    same_before_and_after_compile(&ge, &options, "");
}

#[test]
fn control_flow_gives_the_same_answer_before_and_after_ge_compile() {
    same_before_and_after_compile(WHILE_GRAPH, &ReferenceOptions::default(), "");
    same_before_and_after_compile(IF_GRAPH, &ReferenceOptions::default(), "single-stream=true");
    let vars = "graph main {
      w = Variable() : f32[2]
      accum = Variable() : f32[2]
      lr = Const() {value = dense<f32[]>(0.5)} : f32[]
      m = Const() {value = dense<f32[]>(0.25)} : f32[]
      g = Data() {index = 0} : f32[2]
      r = Relu(g) : f32[2]
      upd = ApplyMomentum(w, accum, lr, r, m) : f32[2]
      seen = Identity(w, ^upd) : f32[2]
      out = Add(seen, g) : f32[2]
      return out, r
    }";
    let options = ReferenceOptions {
        iterations: 3,
        ..ReferenceOptions::default()
    };
    same_before_and_after_compile(vars, &options, "");
}

#[test]
fn an_op_with_an_unconnected_input_slot_is_refused_not_misread() {
    // The kernel would take `off` (slot 3) for the bias (slot 2).
    let ge = "graph main {\n  x = Data() {index = 0} : f32[1, 1, 3, 3]\n  w = Data() {index = 1} : f32[1, 1, 1, 1]\n  off = Data() {index = 2} : i8[1]\n  c = Conv2D(x, w, ?, off) : f32[1, 1, 3, 3]\n  return c\n}\n";
    let e = run_ge(ge, &ReferenceOptions::default()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("`c` leaves input slot 2 unconnected"),
        "{text}"
    );
}
