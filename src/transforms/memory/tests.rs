//! Tests of the IR integration: the model read from the IR, the replay of plans on the IR
//! (the IR after replay reads back as exactly the planned model), and a seeded property
//! test over generated `.ge` graphs with control flow.

use super::{apply_plan::apply_plan, model_from_ir::IrModel};
use crate::{
    analysis::interner::Interned,
    analysis::memory::{
        atomic_addr_clean::AtomicOptions,
        graph_lint::lint,
        hccl_continuous_memcpy::plan_hccl_continuous_memcpy,
        hccl_memcpy::plan_hccl_memcpy,
        model::{MemError, MemGraph, NodeId, Origin},
        plan::Plan,
        plan_pipeline,
        rw_conflict::plan_rw_conflict,
        subgraph_isolate::plan_subgraph_isolate,
    },
    dialect::new_context,
    ir::IrRewriter,
    syntax::import_ge,
};
use melior::{
    ir::{operation::OperationLike, Module},
    Context,
};
use std::collections::BTreeMap;

fn import<'c>(context: &'c Context, text: &str) -> Module<'c> {
    match import_ge(context, text, "test.ge") {
        Ok(module) => module,
        Err(e) => panic!("test graph does not import: {e}\n{text}"),
    }
}

/// Everything about a model that the IR must carry, keyed by node name, independent of node
/// ids and of the order of consumer lists (GE appends; the IR reads program order).
fn describe(g: &MemGraph) -> BTreeMap<String, String> {
    let name = |n: NodeId| g.node(n).name.to_string();
    let mut out = BTreeMap::new();
    for node in g.nodes.iter().filter(|n| !n.removed) {
        let mut sem = node.sem;
        sem.unknown_shape = false; // inserted nodes get it from their types only in the IR
        let inputs: Vec<String> = node
            .inputs
            .iter()
            .map(|x| {
                format!(
                    "{:?}<-{:?}@{:?}:{}/{}",
                    x.name.map(|s| g.sym_str(s).to_string()),
                    x.src.map(|s| (name(s.node), s.index)),
                    x.parent_index,
                    g.tensor(x.tensor),
                    x.mem_type
                )
            })
            .collect();
        let outputs: Vec<String> = node
            .outputs
            .iter()
            .map(|o| {
                let mut cs: Vec<(String, u32)> = o
                    .consumers
                    .iter()
                    .map(|c| (name(c.node), c.index))
                    .collect();
                cs.sort();
                format!(
                    "{:?}:{}/{}/{:?}/{:?}->{cs:?}",
                    o.name.map(|s| g.sym_str(s).to_string()),
                    g.tensor(o.tensor),
                    o.mem_type,
                    o.reuse_input,
                    o.ref_var_src.map(|s| g.sym_str(s).to_string())
                ) + &format!("/inplace={:?}", o.inplace_input)
            })
            .collect();
        let mut ctrl_in: Vec<String> = node.ctrl_in.iter().map(|&n| name(n)).collect();
        ctrl_in.sort();
        let mut ctrl_out: Vec<String> = node.ctrl_out.iter().map(|&n| name(n)).collect();
        ctrl_out.sort();
        let subgraphs: Vec<&str> = node
            .subgraphs
            .iter()
            .map(|&s| g.graph(s).name.as_str())
            .collect();
        out.insert(
            node.name.to_string(),
            format!(
                "{} in {} {sem:?} in={inputs:?} out={outputs:?} ctrl_in={ctrl_in:?} \
                 ctrl_out={ctrl_out:?} sub={subgraphs:?} parent={:?} origin={:?} reason={:?} \
                 atomic={:?} fixed_addr={:?}",
                node.ty,
                g.graph(node.graph).name,
                node.parent_index,
                node.origin,
                node.reason,
                node.atomic,
                node.fixed_addr_output,
            ),
        );
    }
    out
}

fn assert_same(planned: &MemGraph, read_back: &MemGraph, what: &str) {
    let (a, b) = (describe(planned), describe(read_back));
    if a != b {
        let mut diff = String::new();
        for (k, v) in &a {
            match b.get(k) {
                Some(w) if w == v => {}
                Some(w) => diff.push_str(&format!("  {k}\n    planned: {v}\n    IR:      {w}\n")),
                None => diff.push_str(&format!("  {k} missing in the IR\n")),
            }
        }
        for k in b.keys().filter(|k| !a.contains_key(*k)) {
            diff.push_str(&format!("  {k} only in the IR\n"));
        }
        panic!("{what}: the IR does not read back as the planned model:\n{diff}");
    }
}

type Planner = fn(&mut MemGraph) -> Result<Vec<Plan>, MemError>;

/// The static-plan passes (attribute marks, layout copies, zero-copy copies).
fn layout_stages() -> Vec<(&'static str, Planner)> {
    use crate::analysis::memory::{
        inplace_support::plan_inplace_support_check,
        layout::{plan_mem_layout_conflict, LayoutOptions},
        mark_same_addr::plan_mark_same_addr,
        memcpy_addr_async::{plan_memcpy_addr_async, MemcpyAddrOptions},
    };
    vec![
        ("inplace-support-check", |g| {
            Ok(vec![plan_inplace_support_check(g)?])
        }),
        ("mem-layout-conflict", |g| {
            Ok(vec![plan_mem_layout_conflict(g, LayoutOptions::default())?])
        }),
        ("memcpy-addr-async", |g| {
            let opts = MemcpyAddrOptions {
                offline: true,
                feature_map_refreshable: false,
            };
            Ok(vec![plan_memcpy_addr_async(g, opts)?])
        }),
        ("mark-same-addr", |g| Ok(vec![plan_mark_same_addr(g)?])),
    ]
}

fn stages() -> Vec<(&'static str, Planner)> {
    vec![
        ("hccl-memcpy", |g| Ok(vec![plan_hccl_memcpy(g)?])),
        ("hccl-continuous-memcpy", |g| {
            Ok(vec![plan_hccl_continuous_memcpy(g)?])
        }),
        ("subgraph-isolate", |g| Ok(vec![plan_subgraph_isolate(g)?])),
        ("atomic-addr-clean", |g| {
            Ok(vec![
                crate::analysis::memory::atomic_addr_clean::plan_atomic_addr_clean(
                    g,
                    AtomicOptions::default(),
                )?,
            ])
        }),
        ("mem-rw-conflict", |g| Ok(vec![plan_rw_conflict(g)?])),
        ("pipeline", |g| plan_pipeline(g, AtomicOptions::default())),
    ]
}

/// Plans with `planner` on the model of `text`, replays on the IR, checks the IR verifies
/// and reads back as the planned model. Returns the number of plan steps, or the planner's
/// error message.
fn plan_and_replay(text: &str, what: &str, planner: Planner) -> Result<usize, String> {
    let context = new_context();
    let module = import(&context, text);
    let op = module.as_operation();
    let mut model = IrModel::build(op, "main").map_err(|e| e.message)?;
    let plans = planner(&mut model.graph).map_err(|e| e.message)?;
    let rewriter = IrRewriter::for_op(op);
    for plan in &plans {
        if let Err(e) = apply_plan(&mut model, plan, &rewriter.rewriter(), false) {
            panic!("{what}: replay failed: {}\n{text}", e.message);
        }
    }
    assert!(
        op.verify(),
        "{what}: the IR does not verify after replay:\n{op}"
    );
    model.graph.normalize();
    let back = IrModel::build(op, "main").expect("the result reads back");
    assert_same(&model.graph, &back.graph, what);
    // What the lint sees on the planned model is what it sees on the IR.
    // Unordered pairs: which one is reported as "the writer" follows consumer order.
    let key = |g: &MemGraph, w: &crate::analysis::memory::graph_lint::LintWarning| {
        let (a, b) = (g.node(w.writer).name.clone(), g.node(w.other).name.clone());
        if a < b {
            (a, b)
        } else {
            (b, a)
        }
    };
    let mut l1: Vec<_> = lint(&model.graph)
        .iter()
        .map(|w| key(&model.graph, w))
        .collect();
    let mut l2: Vec<_> = lint(&back.graph)
        .iter()
        .map(|w| key(&back.graph, w))
        .collect();
    l1.sort();
    l2.sort();
    assert_eq!(l1, l2, "{what}: lint differs between model and IR");
    Ok(plans.iter().map(|p| p.steps.len()).sum())
}

/// Runs `planner` on the IR twice (reading the IR back in between): the second run must
/// plan nothing.
fn idempotent_on_ir(text: &str, what: &str, planner: Planner) {
    let context = new_context();
    let module = import(&context, text);
    let op = module.as_operation();
    for round in 0..2 {
        let mut model = IrModel::build(op, "main").expect("reads");
        let plans = match planner(&mut model.graph) {
            Ok(plans) => plans,
            Err(_) => return, // an invalid graph: nothing to compare
        };
        let steps: usize = plans.iter().map(|p| p.steps.len()).sum();
        if round == 1 {
            let listing: Vec<String> = plans
                .iter()
                .flat_map(|p| p.steps.iter().map(|s| format!("{} {:?}", p.pass, s.edit)))
                .collect();
            assert_eq!(steps, 0, "{what}: second run plans {listing:#?}\n{op}");
        }
        let rewriter = IrRewriter::for_op(op);
        for plan in &plans {
            apply_plan(&mut model, plan, &rewriter.rewriter(), false).expect("replays");
        }
    }
}

const BASIC: &str = r#"
graph main {
  x = Data() {index = 0} : f32[4]
  k = Data() {index = 1} : i32[]
  c = Const() {value = dense<f32[4]>(1.0)} : f32[4]
  v = Variable() : f32[4]
  a = Assign(c, x, ^v) : f32[4]
  p = Relu(a) : f32[4]
  ar = HcomAllReduce(p) {group = "g", reduction = "sum"} : f32[4]
  f = If(k, p, x) {then_branch = @t, else_branch = @e} : f32[4]
  return ar, f
}
graph t {
  a = Data() {index = 0} : f32[4]
  b = Data() {index = 1} : f32[4]
  w = Assign(a, b) : f32[4]
  return w
}
graph e {
  a = Data() {index = 0} : f32[4]
  b = Data() {index = 1} : f32[4]
  return b
}
"#;

#[test]
fn the_model_reads_nodes_edges_flags_and_subgraphs() {
    let context = new_context();
    let module = import(&context, BASIC);
    let model = IrModel::build(module.as_operation(), "main").unwrap();
    let g = &model.graph;
    assert_eq!(g.graphs.len(), 3);
    assert_eq!(
        g.graphs
            .iter()
            .map(|gr| gr.name.as_str())
            .collect::<Vec<_>>(),
        ["main", "t", "e"]
    );
    let n = |name: &str| g.find(name).unwrap_or_else(|| panic!("no node {name}"));
    // Types and flags come from the op table.
    assert!(g.node(n("c")).sem.const_like);
    assert!(g.node(n("v")).sem.var_like);
    assert!(g.node(n("ar")).sem.input_mutable && g.node(n("ar")).sem.hccl);
    assert_eq!(g.node(n("ar")).ty, "HcomAllReduce");
    // Assign's input `ref` is named like its output: a ref relation.
    let a = g.node(n("a"));
    assert_eq!(a.inputs[0].name, a.outputs[0].name);
    assert!(a.inputs[0].name.is_some());
    // Edges and control edges.
    assert_eq!(g.src(n("a"), 0).map(|s| s.node), Some(n("c")));
    assert_eq!(a.ctrl_in, vec![n("v")]);
    assert_eq!(g.consumers(n("p"), 0).len(), 2);
    // The root NetOutput has no parent indices; a branch Data's `_parent_node_index`
    // counts the If's `cond` (input 0): argument 0 is parent input 1.
    let root_out = g
        .graph(crate::analysis::memory::model::ROOT)
        .net_output
        .unwrap();
    assert_eq!(g.node(root_out).inputs.len(), 2);
    assert_eq!(g.node(root_out).inputs[0].parent_index, None);
    let t = &g.graphs[1];
    let t_data: Vec<_> = t
        .order
        .iter()
        .filter(|&&d| g.node(d).ty == "Data")
        .map(|&d| g.node(d).parent_index)
        .collect();
    assert_eq!(t_data, [Some(1), Some(2)]);
    let t_out = t.net_output.unwrap();
    assert_eq!(g.node(t_out).inputs[0].parent_index, Some(0));
    assert_eq!(g.node(n("f")).subgraphs.len(), 2);
    assert_eq!(g.parent_of(t.order[0]), Some(n("f")));
    // The model maps back to the ops.
    assert_eq!(model.ops.len(), g.nodes.len());
    assert_eq!(
        crate::ir::ops::node_name(model.op(n("ar")).unwrap()),
        Some("ar")
    );
    assert!(!g.graphs[0].unknown_shape);
}

#[test]
fn the_model_reads_tensor_descs_memory_types_and_layout_flags() {
    use crate::analysis::memory::model::{mem_type, DType, TensorDesc};
    let context = new_context();
    let module = import(
        &context,
        r#"
graph main {
  x = Data() {index = 0} : f16[2, ?]
  k = Const() {value = dense<i32[3]>(1)} : i32[3]
  u = Data() {index = 1} : f32[*]
  b = Data() {index = 2} : bool[]
  p = "PhonyConcat"(k, k) {_no_padding_continuous_input = true, _output_reuse_input = true, _input_memory_type = [17, 2], _output_memory_type = [64], reuse_input_index = [1], ref_var_src_var_name = "k"} : i32[6]
  s = StreamSwitch(b, b) : ()
  c = "Custom"(u) {_address_unrefreshable = true} : u8[5]
  return x, p, c
}
"#,
    );
    let model = IrModel::build(module.as_operation(), "main").unwrap();
    let g = &model.graph;
    let n = |name: &str| g.find(name).unwrap_or_else(|| panic!("no node {name}"));
    let out = |name: &str| g.tensor(g.node(n(name)).outputs[0].tensor).clone();
    assert_eq!(out("x"), TensorDesc::new(DType::F16, Some(vec![2, -1])));
    assert!(out("x").is_unknown_shape() && out("x").byte_size().is_none());
    assert_eq!(
        out("k").byte_size(),
        Some(64),
        "12 bytes -> (12 + 63) / 32 * 32"
    );
    assert_eq!(out("u"), TensorDesc::new(DType::F32, None));
    assert_eq!(out("b"), TensorDesc::new(DType::Bool, Some(vec![])));
    assert_eq!(out("b").byte_size(), Some(64), "(1 + 63) / 32 * 32");
    assert_eq!(
        TensorDesc::new(DType::F32, Some(vec![0, 3])).byte_size(),
        Some(32),
        "empty"
    );
    assert_eq!(
        TensorDesc::new(DType::F32, Some(vec![8])).byte_size(),
        Some(64),
        "32 + 32"
    );
    assert_eq!(out("c").dtype, DType::U8);
    // a data input's desc is its operand's type; the root NetOutput's inputs too
    let p = g.node(n("p"));
    assert_eq!(g.tensor(p.inputs[1].tensor), &out("k"));
    let root_out = g.graphs[0].net_output.unwrap();
    assert_eq!(
        g.tensor(g.node(root_out).inputs[1].tensor).dims.as_deref(),
        Some(&[6][..])
    );
    // Shapes are per tensor; GE's node-level IsDynamicShape is the model's partition flag,
    // which a graph holding an unknown shape implies when the root does not say.
    assert!(out("x").is_unknown_shape() && !out("k").is_unknown_shape());
    assert!(g.node(n("x")).sem.unknown_shape && g.node(n("k")).sem.unknown_shape);
    // per-port memory types, reuse index, ref variable, flags
    assert_eq!(p.inputs[0].mem_type, mem_type::P2P_DDR);
    assert_eq!(p.inputs[1].mem_type, mem_type::HBM);
    assert_eq!(p.outputs[0].mem_type, mem_type::TS);
    assert!(
        mem_type::is_special(p.inputs[0].mem_type) && !mem_type::is_special(p.inputs[1].mem_type)
    );
    assert_eq!(p.outputs[0].reuse_input, Some(1));
    assert_eq!(p.outputs[0].ref_var_src.map(|s| g.sym_str(s)), Some("k"));
    assert!(p.sem.nopad_continuous_input && p.sem.output_reuse_input);
    assert!(g.node(n("s")).sem.fixed_address && !g.node(n("c")).sem.fixed_address);
    assert!(g.node(n("c")).sem.address_unrefreshable);
    assert!(!g.node(n("x")).sem.address_unrefreshable);
}

#[test]
fn origin_reason_and_unknown_shape_are_read_back() {
    let context = new_context();
    let module = import(
        &context,
        r#"
graph main {
  x = Data() {index = 0} : f32[?]
  i = Identity(x) {ascend.inserted_by = "subgraph-isolate", ascend.reason = "why", _cannot_be_deleted = true} : f32[?]
  return i
}
"#,
    );
    let model = IrModel::build(module.as_operation(), "main").unwrap();
    let g = &model.graph;
    let i = g.node(g.find("i").unwrap());
    assert_eq!(i.origin, Some(Origin::SubgraphIsolate));
    assert_eq!(i.reason.as_deref(), Some("why"));
    assert!(i.sem.cannot_be_deleted && i.sem.unknown_shape);
    assert!(g.graphs[0].unknown_shape);
}

#[test]
fn every_stage_replays_exactly_on_basic() {
    for (name, planner) in stages().into_iter().chain(layout_stages()) {
        let steps = plan_and_replay(BASIC, name, planner).unwrap();
        if matches!(name, "mem-rw-conflict" | "pipeline" | "mem-layout-conflict") {
            assert!(steps > 0, "{name} planned nothing on BASIC");
        }
        idempotent_on_ir(BASIC, name, planner);
    }
}

// ----- the property test ----------------------------------------------------------------

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Random `.ge` programs: every value is `f32[4]`; ops from the memory passes' world (refs,
/// HCCL, identities, shape readers, atomic ops, If / While / PartitionedCall subgraphs,
/// control edges).
struct GeGen {
    rng: Rng,
    graphs: Vec<String>,
    next_graph: usize,
}

const T: &str = "f32[4]";

impl GeGen {
    fn graph(&mut self, name: &str, inputs: usize, outputs: usize, depth: u32) {
        let mut body = String::new();
        let mut avail: Vec<String> = Vec::new();
        let mut nodes: Vec<String> = Vec::new();
        let mut count = 0;
        let mut fresh = |base: &str| {
            count += 1;
            format!("{base}{count}")
        };
        for i in 0..inputs {
            let d = format!("d{i}");
            body.push_str(&format!("  {d} = Data() {{index = {i}}} : {T}\n"));
            avail.push(d.clone());
            nodes.push(d);
        }
        let root = depth == 0;
        if root {
            let k = "k".to_string();
            body.push_str(&format!("  {k} = Data() {{index = {inputs}}} : i32[]\n"));
            nodes.push(k);
        }
        if avail.is_empty() || self.rng.chance(50) {
            let c = fresh("c");
            body.push_str(&format!(
                "  {c} = Const() {{value = dense<{T}>(1.0)}} : {T}\n"
            ));
            avail.push(c.clone());
            nodes.push(c);
        }
        let ops = 3 + self.rng.below(10);
        for _ in 0..ops {
            let pick = |g: &mut GeGen, avail: &[String]| avail[g.rng.below(avail.len())].clone();
            let kind = self.rng.below(if depth < 2 { 19 } else { 15 });
            let n = fresh("n");
            let line = match kind {
                0 => format!("Const() {{value = dense<{T}>(2.0)}} : {T}"),
                1 if root => format!("Variable() : {T}"),
                1 | 2 => format!("Relu({}) : {T}", pick(self, &avail)),
                3 => format!("Add({}, {}) : {T}", pick(self, &avail), pick(self, &avail)),
                4 => format!(
                    "Assign({}, {}) : {T}",
                    pick(self, &avail),
                    pick(self, &avail)
                ),
                5 | 6 => format!(
                    "HcomAllReduce({}) {{group = \"g\", reduction = \"sum\"}} : {T}",
                    pick(self, &avail)
                ),
                7 => format!(
                    "HcomBroadcast({}) {{group = \"g\", root_rank = 0}} : {T}",
                    pick(self, &avail)
                ),
                8 | 9 => format!("Identity({}) : {T}", pick(self, &avail)),
                10 => {
                    let s = format!("Shape({}) : i64[1]", pick(self, &avail));
                    body.push_str(&format!("  {n} = {s}\n"));
                    nodes.push(n);
                    continue;
                }
                11 => {
                    let idx = fresh("idx");
                    let upd = fresh("upd");
                    body.push_str(&format!(
                        "  {idx} = Const() {{value = dense<i32[2]>[0, 1]}} : i32[2]\n"
                    ));
                    body.push_str(&format!(
                        "  {upd} = Const() {{value = dense<f32[2]>(1.0)}} : f32[2]\n"
                    ));
                    nodes.push(idx.clone());
                    nodes.push(upd.clone());
                    format!("ScatterAdd({}, {idx}, {upd}) : {T}", pick(self, &avail))
                }
                12 => format!("ReadVariableOp({}) : {T}", pick(self, &avail)),
                13 => format!(
                    "Gelu({}) {{continuous_input = true}} : {T}",
                    pick(self, &avail)
                ),
                14 => format!("Mul({}, {}) : {T}", pick(self, &avail), pick(self, &avail)),
                15 | 16 => {
                    // If with two branches of 2 inputs / 1 output. The condition is a Data of
                    // the root, or a Const in a subgraph.
                    let cond = if root {
                        "k".to_string()
                    } else {
                        let kc = fresh("kc");
                        body.push_str(&format!(
                            "  {kc} = Const() {{value = dense<i32[]>(0)}} : i32[]\n"
                        ));
                        nodes.push(kc.clone());
                        kc
                    };
                    let (then_g, else_g) = (self.sub_name(), self.sub_name());
                    self.graph(&then_g, 2, 1, depth + 1);
                    self.graph(&else_g, 2, 1, depth + 1);
                    format!(
                        "If({cond}, {}, {}) {{then_branch = @{then_g}, else_branch = @{else_g}}} : {T}",
                        pick(self, &avail),
                        pick(self, &avail)
                    )
                }
                17 => {
                    let f = self.sub_name();
                    self.graph(&f, 1, 1, depth + 1);
                    format!("PartitionedCall({}) {{f = @{f}}} : {T}", pick(self, &avail))
                }
                _ => {
                    let (cond, body_g) = (self.sub_name(), self.sub_name());
                    self.graphs.push(format!(
                        "graph {cond} {{\n  a = Data() {{index = 0}} : {T}\n  b = Data() {{index = 1}} : {T}\n  l = \"Less\"(a, b) : bool[]\n  return l\n}}\n"
                    ));
                    self.graph(&body_g, 2, 2, depth + 1);
                    let (a, b) = (pick(self, &avail), pick(self, &avail));
                    body.push_str(&format!(
                        "  {n} = While({a}, {b}) {{body = @{body_g}, cond = @{cond}}} : ({T}, {T})\n"
                    ));
                    avail.push(n.clone());
                    avail.push(format!("{n}:1"));
                    nodes.push(n);
                    continue;
                }
            };
            // A control edge from an earlier node now and then.
            let ctrl = if !nodes.is_empty() && self.rng.chance(15) {
                format!(" ^{}", nodes[self.rng.below(nodes.len())])
            } else {
                String::new()
            };
            let line = match (ctrl.is_empty(), line.find(')')) {
                (false, Some(close)) => {
                    let sep = if line[..close].ends_with('(') {
                        ""
                    } else {
                        ","
                    };
                    format!("{}{sep}{}{}", &line[..close], ctrl, &line[close..])
                }
                _ => line,
            };
            body.push_str(&format!("  {n} = {line}\n"));
            avail.push(n.clone());
            nodes.push(n);
        }
        let rets: Vec<String> = if root {
            let k = 1 + self.rng.below(3);
            (0..k)
                .map(|_| avail[self.rng.below(avail.len())].clone())
                .collect()
        } else {
            (0..outputs)
                .map(|_| avail[self.rng.below(avail.len())].clone())
                .collect()
        };
        body.push_str(&format!("  return {}\n", rets.join(", ")));
        self.graphs.push(format!("graph {name} {{\n{body}}}\n"));
    }

    fn sub_name(&mut self) -> String {
        self.next_graph += 1;
        format!("g{}", self.next_graph)
    }

    fn program(seed: u64) -> String {
        let mut g = GeGen {
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            graphs: Vec::new(),
            next_graph: 0,
        };
        g.graph("main", 2, 0, 0);
        // The root first: the importer takes `main` as root anyway; keep it readable.
        let main = g.graphs.pop().expect("main");
        let mut text = main;
        for sub in g.graphs {
            text.push('\n');
            text.push_str(&sub);
        }
        text
    }
}

/// Hundreds of seeded graphs: for every stage and the whole pipeline, the replayed IR
/// verifies, reads back as the planned model (nodes, edges, control edges, attributes), and
/// the lint sees the same; a second run on the IR plans nothing.
#[test]
fn generated_graphs_replay_exactly_and_are_idempotent() {
    const SEEDS: u64 = 150;
    let mut planned_steps = 0;
    let mut invalid = 0;
    for seed in 0..SEEDS {
        let text = GeGen::program(seed);
        // The static-plan passes on every other seed: their rules are exercised by their own
        // tests; here they only need to replay exactly, and the full set doubles the time.
        let extra = if seed % 2 == 0 {
            layout_stages()
        } else {
            Vec::new()
        };
        for (name, planner) in stages().into_iter().chain(extra) {
            let what = format!("seed {seed}, {name}");
            match plan_and_replay(&text, &what, planner) {
                Ok(steps) => planned_steps += steps,
                Err(message) => {
                    // Only an invalid RW combination may stop a planner.
                    assert!(
                        message.contains("invalid RW combination"),
                        "{what}: {message}\n{text}"
                    );
                    invalid += 1;
                    continue;
                }
            }
            idempotent_on_ir(&text, &what, planner);
        }
    }
    // The generator must exercise the passes, not produce empty plans.
    assert!(planned_steps > 1000, "only {planned_steps} steps planned");
    assert!(invalid < SEEDS as usize, "{invalid} invalid runs");
}

/// GE type names belong to the models that hold them, not to the process: one copy per
/// type within a build, and none left once the models are dropped — even for `type`
/// attributes no other graph uses (a long-lived host fed ever new types must not grow).
#[test]
fn type_names_are_shared_per_build_and_freed_with_the_models() {
    let graph = |ty: &str| {
        format!(
            "graph main {{\n  x = Data() {{index = 0}} : f32[4]\n  y = \"{ty}\"(x) : f32[4]\n  \
             z = \"{ty}\"(y) : f32[4]\n  return z\n}}\n"
        )
    };
    let context = new_context();
    let one = import(&context, &graph("OnlyInModuleOne"));
    let two = import(&context, &graph("OnlyInModuleTwo"));
    let a = IrModel::build(one.as_operation(), "main").unwrap();
    let b = IrModel::build(two.as_operation(), "main").unwrap();
    let ty = |m: &IrModel, name: &str| m.graph.node(m.graph.find(name).unwrap()).ty.clone();
    assert_eq!(ty(&a, "y"), "OnlyInModuleOne");
    assert_eq!(ty(&b, "z"), "OnlyInModuleTwo");
    assert!(
        Interned::same_copy(&ty(&a, "y"), &ty(&a, "z")),
        "one copy per build"
    );
    let names = [ty(&a, "y"), ty(&b, "y"), ty(&a, "x"), ty(&b, "x")];
    let weak: Vec<_> = names.iter().map(Interned::downgrade).collect();
    drop(names);
    drop(a);
    assert!(weak[0].upgrade().is_none() && weak[2].upgrade().is_none());
    assert_eq!(
        weak[1].upgrade().as_deref(),
        Some("OnlyInModuleTwo"),
        "b still holds it"
    );
    drop(b);
    assert!(
        weak.iter().all(|w| w.upgrade().is_none()),
        "a name outlived its models"
    );
}

/// The per-shape cache of the model builder answers exactly what asking the semantics
/// layer per op answers: forcing every op onto the per-op path (an `engine` attribute, one
/// of the per-op attributes) gives the same model.
#[test]
fn the_shape_cache_agrees_with_per_op_answers() {
    for seed in 0..40 {
        let text = GeGen::program(seed);
        let context = new_context();
        let module = import(&context, &text);
        let op = module.as_operation();
        let cached = describe(&IrModel::build(op, "main").unwrap().graph);
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        use melior::ir::{BlockLike, RegionLike};
        let mut func = module.body().first_operation();
        while let Some(f) = func {
            let body = f.region(0).ok().and_then(|r| r.first_block());
            let mut next = body.and_then(|b| b.first_operation());
            while let Some(o) = next {
                if crate::ir::ops::is_ascend_op(o) {
                    crate::ir::ops::set_str_attr(&rw, o, "engine", "AIcoreEngine");
                }
                next = o.next_in_block();
            }
            func = f.next_in_block();
        }
        let direct = describe(&IrModel::build(op, "main").unwrap().graph);
        assert_eq!(cached, direct, "seed {seed}");
    }
}

/// Unconnected slots: Conv2D without `bias` (slot 2) but with `offset_w`, a generic ref op
/// with its ref input (slot 0) unconnected, read by a scope-writer (which gets a copy).
const UNCONNECTED: &str = r#"
graph main {
  x = Data() {index = 0} : f32[1, 4, 8, 8]
  w = Data() {index = 1} : f32[8, 4, 3, 3]
  off = Data() {index = 2} : i8[8]
  v = Data() {index = 3} : f32[4]
  c = Conv2D(x, w, ?, off) : f32[1, 8, 6, 6]
  r = "MyRefOp"(?, v) {input_names = ["ref", "value"], output_names = ["ref"]} : f32[4]
  ar = HcomAllReduce(r) {group = "g", reduction = "sum"} : f32[4]
  return c, ar
}
"#;

#[test]
fn the_model_numbers_inputs_by_slot_and_leaves_unconnected_slots_without_a_source() {
    let context = new_context();
    let module = import(&context, UNCONNECTED);
    let model = IrModel::build(module.as_operation(), "main").unwrap();
    let g = &model.graph;
    let n = |name: &str| g.find(name).unwrap_or_else(|| panic!("no node {name}"));
    let c = g.node(n("c"));
    assert_eq!(c.inputs.len(), 4);
    let names: Vec<_> = c
        .inputs
        .iter()
        .map(|i| i.name.map(|s| g.sym_str(s).to_string()))
        .collect();
    assert_eq!(
        names,
        [Some("x"), Some("filter"), Some("bias"), Some("offset_w")].map(|s| s.map(String::from))
    );
    assert_eq!(g.src(n("c"), 2), None);
    assert_eq!(g.src(n("c"), 3).map(|s| s.node), Some(n("off")));
    let r = g.node(n("r"));
    assert_eq!(r.inputs.len(), 2);
    assert_eq!(g.src(n("r"), 0), None);
    assert_eq!(g.src(n("r"), 1).map(|s| s.node), Some(n("v")));
    // The unconnected ref input keeps its ref relation (by name).
    assert_eq!(r.inputs[0].name, r.outputs[0].name);
}

#[test]
fn every_stage_replays_exactly_with_unconnected_slots() {
    for (what, planner) in stages().into_iter().chain(layout_stages()) {
        plan_and_replay(UNCONNECTED, what, planner).unwrap_or_else(|e| panic!("{what}: {e}"));
        idempotent_on_ir(UNCONNECTED, what, planner);
    }
    let rw = stages()
        .into_iter()
        .find(|(name, _)| *name == "mem-rw-conflict")
        .expect("the rw stage");
    let steps = plan_and_replay(UNCONNECTED, rw.0, rw.1).unwrap();
    assert!(steps > 0, "the scope-writer of the ref chain gets a copy");
}

/// Runs the pass `flags` on `module` through ge-opt's pipeline (each pass alone: no model
/// shared).
fn run_passes(context: &Context, module: &mut Module, flags: &[&str]) {
    let manager = crate::ir::pass_manager::module_pass_manager(context);
    crate::pipeline::Pipeline::from_flags(flags)
        .and_then(|p| {
            p.share_models(false)
                .add_to(&manager, &crate::pipeline::PassStatistics::default())
        })
        .expect("the pipeline builds");
    manager.run(module).expect("the passes run");
}

/// The model as a fresh read gives it, node by node and graph by graph, ids included.
fn exact(g: &MemGraph) -> (Vec<String>, Vec<String>) {
    (
        g.nodes.iter().map(|n| format!("{n:?}")).collect(),
        g.graphs.iter().map(|x| format!("{x:?}")).collect(),
    )
}

/// A StreamSwitch whose label spans two streams (stream-alloc creates a StreamActive that
/// takes over its control edges, and Send/Recv pairs at the join), beside an If whose
/// branch holds an HCCL op (events inside a subgraph).
const STREAMS_GRAPH: &str = r#"
graph main {
  x = Data() {index = 0} : i32[]
  y = Data() {index = 1} : f32[4]
  sw = StreamSwitch(x, x) {_active_label_list = ["T"]} : ()
  t1 = Relu(y, ^sw) {_stream_label = "T"} : f32[4]
  t2 = HcomAllReduce(y, ^sw) {_stream_label = "T", group = "g", reduction = "sum"} : f32[4]
  z = Add(t1, t2) : f32[4]
  c = If(x, z) {then_branch = @t, else_branch = @e} : f32[4]
  w = Relu(c) : f32[4]
  return w
}

graph t {
  d = Data() {index = 0} : f32[4]
  r = Relu(d) : f32[4]
  h = HcomAllReduce(d) {group = "g", reduction = "sum"} : f32[4]
  s = Add(r, h) : f32[4]
  return s
}

graph e {
  d = Data() {index = 0} : f32[4]
  return d
}
"#;

/// The model handed through stream-alloc (its Send/Recv and StreamActive ops read in,
/// every control edge read again, nodes renumbered) is exactly what reading the IR after
/// stream-alloc gives.
#[test]
fn a_model_handed_through_stream_alloc_is_the_fresh_read() {
    let context = new_context();
    let mut module = import(&context, STREAMS_GRAPH);
    let before = IrModel::build(module.as_operation(), "main").unwrap();
    let nodes_before = before.graph.nodes.len();
    let detached = before.detach("main");
    run_passes(&context, &mut module, &["stream-alloc"]);
    let fresh = IrModel::build(module.as_operation(), "main").unwrap();
    let created = fresh.graph.nodes.len() - nodes_before;
    let types: Vec<&str> = fresh.graph.nodes[..]
        .iter()
        .map(|n| n.ty.as_str())
        .filter(|t| matches!(*t, "Send" | "Recv" | "StreamActive"))
        .collect();
    assert!(
        types.contains(&"Send") && types.contains(&"Recv") && types.contains(&"StreamActive"),
        "the graph exercises every kind of inserted op: {types:?}"
    );
    assert_eq!(created, types.len());
    let handed = IrModel::reattach_after_control_inserts(detached, module.as_operation(), "main")
        .expect("stream-alloc's changes are read into the model");
    assert_eq!(exact(&handed.graph), exact(&fresh.graph));
    for (n, op) in handed.ops.iter().enumerate() {
        let op = op.expect("every node has its op");
        assert_eq!(
            crate::ir::ops::OpKey::of(op),
            crate::ir::ops::OpKey::of(fresh.ops[n].unwrap())
        );
    }
}

/// An inserted op that carries data (a copy) is not what the hand-through reads: it gives
/// up, and the pass after reads the IR.
#[test]
fn a_model_is_not_handed_through_an_inserted_data_op() {
    let context = new_context();
    let text = "graph main {\n  x = Data() {index = 0} : f32[4]\n  c = Const() {value = \
                dense<f32[4]>(1.0)} : f32[4]\n  a = Assign(c, x) : f32[4]\n  return a\n}\n";
    let mut module = import(&context, text);
    let detached = IrModel::build(module.as_operation(), "main")
        .unwrap()
        .detach("main");
    run_passes(&context, &mut module, &["mem-rw-conflict"]);
    let fresh = IrModel::build(module.as_operation(), "main").unwrap();
    assert!(
        fresh.graph.find("c_Identity0").is_some(),
        "an Identity was inserted"
    );
    assert!(
        IrModel::reattach_after_control_inserts(detached, module.as_operation(), "main").is_none()
    );
}

/// A model of another module, or with another root, is never handed through.
#[test]
fn a_model_is_handed_through_on_its_own_module_and_root_only() {
    let context = new_context();
    let one = import(&context, STREAMS_GRAPH);
    let two = import(&context, STREAMS_GRAPH);
    let detached = || {
        IrModel::build(one.as_operation(), "main")
            .unwrap()
            .detach("main")
    };
    assert!(
        IrModel::reattach_after_control_inserts(detached(), two.as_operation(), "main").is_none()
    );
    assert!(IrModel::reattach_after_control_inserts(detached(), one.as_operation(), "t").is_none());
    assert!(
        IrModel::reattach_after_control_inserts(detached(), one.as_operation(), "main").is_some()
    );
}

/// The streams read from the ops are kept with the model while its nodes keep their ids
/// (handed to the next pass with it) and read again once the nodes are renumbered.
#[test]
fn stream_info_is_kept_with_the_model_until_its_nodes_are_renumbered() {
    let context = new_context();
    let mut module = import(&context, STREAMS_GRAPH);
    run_passes(&context, &mut module, &["stream-alloc"]);
    let model = IrModel::build(module.as_operation(), "main").unwrap();
    let first = model.stream_info();
    assert!(!first.events.is_empty(), "the Send/Recv pairs are read");
    assert!(std::rc::Rc::ptr_eq(&first, &model.stream_info()));
    let mut model = IrModel::reattach(model.detach("main"), module.as_operation(), "main")
        .expect("the same module");
    assert!(std::rc::Rc::ptr_eq(&first, &model.stream_info()), "kept");
    let nodes = model.graph.nodes.len();
    assert!(model.renumber_as_ir(nodes).1);
    let again = model.stream_info();
    assert!(!std::rc::Rc::ptr_eq(&first, &again), "read again");
    assert_eq!(first.stream, again.stream);
    assert_eq!(first.events, again.events);
}
