//! Property tests over hundreds of seeded random graphs (root graph plus If / Case-like /
//! PartitionedCall / While subgraphs): every planner is idempotent and replayable, the whole
//! pipeline is idempotent, GraphLint finds no W18888 the pipeline should have resolved, and
//! every Identity the RW pass left in the graph is needed by the matrix.

use super::support::{dump, run_checked, Rng, B};
use crate::analysis::memory::atomic_addr_clean::{plan_atomic_addr_clean, AtomicOptions};
use crate::analysis::memory::graph_lint::{input_types, lint, LintRw};
use crate::analysis::memory::hccl_continuous_memcpy::plan_hccl_continuous_memcpy;
use crate::analysis::memory::hccl_memcpy::plan_hccl_memcpy;
use crate::analysis::memory::model::{Atomic, GraphId, MemGraph, NodeId, Origin, OutPort, ROOT};
use crate::analysis::memory::plan::{apply, Edit, Rule};
use crate::analysis::memory::rw_conflict::{near_subgraph, plan_rw_conflict};
use crate::analysis::memory::rw_types::{decide, mark_subgraphs, Conflict, OutputRw};
use crate::analysis::memory::subgraph_isolate::plan_subgraph_isolate;
use crate::analysis::memory::{plan_pipeline, plan_pipeline_every_round};
use std::collections::HashMap;

const SEEDS: u64 = 400;

struct Gen {
    rng: Rng,
    b: B,
    count: usize,
}

impl Gen {
    fn name(&mut self, base: &str) -> String {
        self.count += 1;
        format!("{base}{}", self.count)
    }

    fn pick(&mut self, avail: &[OutPort]) -> OutPort {
        avail[self.rng.below(avail.len())]
    }

    /// Add one op to `gr`, fed from `avail`; returns its outputs.
    fn op(&mut self, gr: GraphId, avail: &mut Vec<OutPort>, depth: u32) {
        let kind = self.rng.below(if depth < 2 { 17 } else { 13 });
        let (ty, ins, outs): (&str, Vec<&str>, Vec<&str>) = match kind {
            0 if gr == ROOT => ("Data", vec![], vec!["y"]),
            1 => ("Const", vec![], vec!["y"]),
            2 if gr == ROOT => ("Variable", vec![], vec!["y"]),
            3 => ("Add", vec!["x1", "x2"], vec!["y"]),
            4 | 0 | 2 => ("Relu", vec!["x"], vec!["y"]),
            5 => ("Assign", vec!["ref", "value"], vec!["ref"]),
            6 => ("HcomAllReduce", vec!["x"], vec!["y"]),
            7 => ("Identity", vec!["x"], vec!["y"]),
            8 => ("Shape", vec!["x"], vec!["y"]),
            9 => ("Special", vec!["x"], vec!["y"]),
            10 => ("ScatterAdd", vec!["x"], vec!["y"]),
            11 => ("ConcatD", vec!["x1", "x2"], vec!["y"]),
            12 => ("HcomBroadcast", vec!["x"], vec!["y"]),
            13 | 14 => return self.control(gr, avail, depth, kind == 13),
            15 => return self.call(gr, avail, depth),
            _ => return self.while_op(gr, avail, depth),
        };
        if avail.is_empty() && !ins.is_empty() {
            let name = self.name("c");
            let c = self.b.src_in(gr, &name, "Const");
            avail.push(OutPort { node: c, index: 0 });
        }
        let name = self.name(&ty.to_lowercase());
        let n = self.b.op_in(gr, &name, ty, &ins, &outs);
        let sem = &mut self.b.g.node_mut(n).sem;
        match ty {
            "HcomAllReduce" | "HcomBroadcast" => {
                sem.input_mutable = true;
                sem.hccl = true;
            }
            "ConcatD" => sem.continuous_input = true,
            _ => {}
        }
        if ty == "Special" {
            self.b.g.node_mut(n).inputs[0].special_input_size = 32;
        }
        if ty == "ScatterAdd" {
            self.b.g.node_mut(n).atomic = Some(Box::new(Atomic {
                outputs: vec![0],
                ..Atomic::default()
            }));
        }
        for i in 0..ins.len() {
            let s = self.pick(avail);
            self.b.e(s.node, s.index, n, i as u32);
        }
        self.finish(gr, n, avail);
    }

    fn finish(&mut self, gr: GraphId, n: NodeId, avail: &mut Vec<OutPort>) {
        if self.rng.chance(12) {
            let order = self.b.g.graph(gr).order.clone();
            let from = order[self.rng.below(order.len())];
            if from != n {
                self.b.ctrl(from, n);
            }
        }
        for o in 0..self.b.g.node(n).outputs.len() as u32 {
            avail.push(OutPort { node: n, index: o });
        }
    }

    fn ensure_avail(&mut self, gr: GraphId, avail: &mut Vec<OutPort>) {
        if avail.is_empty() {
            let name = self.name("c");
            let c = self.b.src_in(gr, &name, "Const");
            avail.push(OutPort { node: c, index: 0 });
        }
    }

    fn feed(&mut self, n: NodeId, k: usize, first: u32, avail: &[OutPort]) {
        for i in 0..k {
            let s = self.pick(avail);
            self.b.e(s.node, s.index, n, first + i as u32);
        }
    }

    /// A subgraph with Datas for parent inputs `first..first+k`, a few ops, and `m` outputs.
    fn body(&mut self, sg: GraphId, first: u32, k: usize, m: usize, depth: u32, bypass: bool) {
        let gname = self.b.g.graph(sg).name.clone();
        let mut avail = Vec::new();
        let mut datas = Vec::new();
        for i in 0..k {
            let d = self
                .b
                .g
                .add_subgraph_data(sg, &format!("{gname}_arg{i}"), first + i as u32);
            datas.push(d);
            avail.push(OutPort { node: d, index: 0 });
        }
        for _ in 0..self.rng.below(4) {
            self.op(sg, &mut avail, depth + 1);
        }
        let mut srcs = Vec::new();
        for j in 0..m {
            if bypass
                && j < datas.len()
                && self.rng.chance(30)
                && self.b.g.consumers(datas[j], 0).is_empty()
            {
                srcs.push((datas[j], 0));
            } else {
                let s = self.pick(&avail);
                srcs.push((s.node, s.index));
            }
        }
        self.b.net_output(sg, &srcs);
    }

    fn control(&mut self, gr: GraphId, avail: &mut Vec<OutPort>, depth: u32, is_if: bool) {
        let k = 1 + self.rng.below(2);
        let m = 1 + self.rng.below(2);
        let ty = if is_if { "If" } else { "Case" };
        let ins: Vec<String> = (0..=k).map(|i| format!("x{i}")).collect();
        let outs: Vec<String> = (0..m).map(|i| format!("y{i}")).collect();
        let ins: Vec<&str> = ins.iter().map(String::as_str).collect();
        let outs: Vec<&str> = outs.iter().map(String::as_str).collect();
        let name = self.name(&ty.to_lowercase());
        self.ensure_avail(gr, avail);
        let n = self.b.op_in(gr, &name, ty, &ins, &outs);
        self.feed(n, k + 1, 0, avail);
        for br in 0..2 {
            let sg = self.b.g.add_subgraph(&format!("{name}_b{br}"), n);
            self.body(sg, 1, k, m, depth, false);
        }
        self.finish(gr, n, avail);
    }

    fn call(&mut self, gr: GraphId, avail: &mut Vec<OutPort>, depth: u32) {
        let k = 1 + self.rng.below(2);
        let m = 1 + self.rng.below(2);
        let ins: Vec<String> = (0..k).map(|i| format!("x{i}")).collect();
        let outs: Vec<String> = (0..m).map(|i| format!("y{i}")).collect();
        let ins: Vec<&str> = ins.iter().map(String::as_str).collect();
        let outs: Vec<&str> = outs.iter().map(String::as_str).collect();
        let name = self.name("call");
        self.ensure_avail(gr, avail);
        let n = self.b.op_in(gr, &name, "PartitionedCall", &ins, &outs);
        self.feed(n, k, 0, avail);
        let sg = self.b.g.add_subgraph(&format!("{name}_f"), n);
        self.body(sg, 0, k, m, depth, false);
        self.finish(gr, n, avail);
    }

    fn while_op(&mut self, gr: GraphId, avail: &mut Vec<OutPort>, depth: u32) {
        let k = 1 + self.rng.below(2);
        let names: Vec<String> = (0..k).map(|i| format!("x{i}")).collect();
        let onames: Vec<String> = (0..k).map(|i| format!("y{i}")).collect();
        let ins: Vec<&str> = names.iter().map(String::as_str).collect();
        let outs: Vec<&str> = onames.iter().map(String::as_str).collect();
        let name = self.name("while");
        self.ensure_avail(gr, avail);
        let n = self.b.op_in(gr, &name, "While", &ins, &outs);
        if self.rng.chance(20) {
            self.b.g.node_mut(n).sem.unknown_shape = true;
        }
        self.feed(n, k, 0, avail);
        let cond = self.b.g.add_subgraph(&format!("{name}_cond"), n);
        self.body(cond, 0, k, 1, depth, false);
        let body = self.b.g.add_subgraph(&format!("{name}_body"), n);
        self.body(body, 0, k, k, depth, true);
        self.finish(gr, n, avail);
    }
}

fn generate(seed: u64) -> MemGraph {
    let mut gen = Gen {
        rng: Rng::new(seed),
        b: B::new(),
        count: 0,
    };
    let mut avail = Vec::new();
    let n = 6 + gen.rng.below(20);
    for _ in 0..n {
        gen.op(ROOT, &mut avail, 0);
    }
    if gen.rng.chance(40) {
        gen.b
            .op(&format!("loop_cond{}", seed), "LoopCond", &[], &[]);
    }
    let outs = 1 + gen.rng.below(3);
    let srcs: Vec<(NodeId, u32)> = (0..outs)
        .map(|_| {
            let s = avail[gen.rng.below(avail.len())];
            (s.node, s.index)
        })
        .collect();
    gen.b.net_output(ROOT, &srcs);
    gen.b.g
}

/// Whether the RW pass visits `n` with B.11 (B.8 skip rules).
fn visited_by_rw(g: &MemGraph, n: NodeId) -> bool {
    !(g.in_while_subgraph(n)
        || g.is_subgraph_data(n)
        || g.is_subgraph_net_output(n)
        || g.node(n).sem.cannot_be_deleted)
}

#[test]
fn every_planner_is_idempotent_and_replayable_on_random_graphs() {
    for seed in 0..SEEDS {
        let g = generate(seed);
        g.check_consistency()
            .unwrap_or_else(|e| panic!("seed {seed}: generator: {e}"));
        run_checked(&g, plan_hccl_memcpy);
        run_checked(&g, plan_hccl_continuous_memcpy);
        run_checked(&g, plan_subgraph_isolate);
        run_checked(&g, |g| plan_atomic_addr_clean(g, AtomicOptions::default()));
        let mut probe = g.clone();
        if plan_rw_conflict(&mut probe).is_ok() {
            run_checked(&g, plan_rw_conflict);
        }
    }
}

#[test]
fn pipeline_properties_on_random_graphs() {
    let mut ok = 0;
    let mut invalid = 0;
    let mut inserted_rw = 0;
    for seed in 0..SEEDS {
        let g0 = generate(seed);
        let mut g = g0.clone();
        let plans = match plan_pipeline(&mut g, AtomicOptions::default()) {
            Ok(p) => p,
            Err(e) => {
                // Only a genuinely contradictory graph may fail, and the error is located.
                assert!(
                    e.message.contains("invalid RW combination"),
                    "seed {seed}: {e}"
                );
                assert!(e.node.is_some(), "seed {seed}: unlocated error");
                invalid += 1;
                continue;
            }
        };
        ok += 1;
        g.check_consistency()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));

        // Replaying the plans on the input gives the planned graph. On the way, each
        // Identity the RW pass put before a subgraph NetOutput (B.5) is judged on the graph
        // as it was just before that step: GE marks the subgraph boundaries before it walks
        // the nodes (B.8), and our fixpoint rounds mark them again at each round's start, so
        // the walk after it (a split Identity, a copy before the parent's consumer) may
        // change what the final graph would say.
        let mut replay = g0.clone();
        let mut needed_before_its_step: HashMap<NodeId, bool> = HashMap::new();
        for p in &plans {
            for (k, step) in p.steps.iter().enumerate() {
                let Edit::InsertIdentityAfter {
                    new,
                    producer,
                    consumers,
                    ..
                } = &step.edit
                else {
                    continue;
                };
                let (Rule::SubgraphOutputWritable, [no]) = (step.rule, consumers.as_slice()) else {
                    continue;
                };
                let mut before = replay.clone();
                let mut prefix = p.clone();
                prefix.steps.truncate(k);
                apply(&mut before, &prefix)
                    .unwrap_or_else(|e| panic!("seed {seed}: apply a prefix of {}: {e}", p.pass));
                let (rw, _) = mark_subgraphs(&before)
                    .unwrap_or_else(|e| panic!("seed {seed}: marking before a B.5 step: {e}"));
                let parent = before.parent_of(no.node).unwrap();
                let pi = before.node(no.node).inputs[no.index as usize]
                    .parent_index
                    .unwrap();
                let needed = rw.output_type(&before, producer.node, producer.index)
                    == OutputRw::Writeable
                    && !rw.judge_optimizable_by_parent(&before, parent, pi);
                needed_before_its_step.insert(*new, needed);
            }
            apply(&mut replay, p).unwrap_or_else(|e| panic!("seed {seed}: apply {}: {e}", p.pass));
        }
        assert_eq!(dump(&replay), dump(&g), "seed {seed}");

        // The pipeline is idempotent.
        let mut again = g.clone();
        for p in plan_pipeline(&mut again, AtomicOptions::default()).expect("second run") {
            assert!(
                p.is_empty(),
                "seed {seed}: {} not idempotent: {:#?}\n{}",
                p.pass,
                p.steps,
                dump(&g)
            );
        }

        let (rw, _) = mark_subgraphs(&g).expect("marking the result");

        // GraphLint: no W18888 on an edge the matrix says the pipeline should have isolated.
        let lint_types = input_types(&g);
        for w in lint(&g) {
            let p = w.producer;
            if !visited_by_rw(&g, p.node) {
                continue;
            }
            for c in g.consumers(p.node, p.index) {
                if c.node != w.writer || lint_types.get(c.node, c.index) != LintRw::Writable {
                    continue;
                }
                if g.node(c.node).sem.skip_rw_conflict {
                    continue;
                }
                let verdict = decide(
                    rw.output_type(&g, p.node, p.index),
                    rw.input_type(&g, c.node, c.index),
                );
                assert_ne!(
                    verdict,
                    Conflict::InsertIdentity,
                    "seed {seed}: {} survived on an edge the matrix isolates\n{}",
                    w.message,
                    dump(&g)
                );
            }
        }

        // Every RW Identity left in the graph is needed.
        for (i, node) in g.nodes.iter().enumerate() {
            if node.removed || node.origin != Some(Origin::RwConflict) {
                continue;
            }
            inserted_rw += 1;
            let id = NodeId(i as u32);
            let p = g.src(id, 0).expect("an RW Identity has its input");
            let cs = g.consumers(id, 0);
            assert_eq!(
                cs.len(),
                1,
                "seed {seed}: RW Identity {} has {} consumers",
                node.name,
                cs.len()
            );
            let c = cs[0];
            let needed = if g.is_subgraph_net_output(c.node) {
                needed_before_its_step.get(&id) == Some(&true)
            } else {
                decide(
                    rw.output_type(&g, p.node, p.index),
                    rw.input_type(&g, c.node, c.index),
                ) == Conflict::InsertIdentity
                    || near_subgraph(&g, id)
            };
            assert!(
                needed,
                "seed {seed}: unnecessary Identity {} ({:?})\n{}",
                node.name,
                node.reason,
                dump(&g)
            );
        }
    }
    eprintln!(
        "pipeline: {ok} graphs ok, {invalid} contradictory, {inserted_rw} RW identities checked"
    );
    assert!(
        ok as u64 >= SEEDS * 8 / 10,
        "too many failing seeds: {invalid}"
    );
    assert!(inserted_rw > 50, "the generator must exercise insertions");
}

/// The pipeline skips a planner that has seen every edit it can see since its last run
/// (`PipelineState`); that must change nothing: same plans (steps, rules, reasons,
/// statistics), same final model, same errors as running every planner in every round.
/// The graphs are the generator's, and the same with layout attributes (continuous and P2P
/// inputs wake hccl-continuous-memcpy up).
#[test]
fn pipeline_skipping_fresh_planners_changes_nothing() {
    let (mut multi_round, mut with_edits) = (0, 0);
    for seed in 0..SEEDS {
        for decorated in [false, true] {
            let mut g0 = generate(seed);
            if decorated {
                decorate_layout(&mut g0, seed);
            }
            let (mut fast, mut every) = (g0.clone(), g0.clone());
            let got = plan_pipeline(&mut fast, AtomicOptions::default());
            let want = plan_pipeline_every_round(&mut every, AtomicOptions::default());
            let (got, want) = match (got, want) {
                (Ok(got), Ok(want)) => (got, want),
                (Err(a), Err(b)) => {
                    assert_eq!((a.node, a.message), (b.node, b.message), "seed {seed}");
                    continue;
                }
                (a, b) => panic!("seed {seed}: {:?} vs {:?}", a.err(), b.err()),
            };
            let summary = |plans: &[crate::analysis::memory::plan::Plan]| {
                plans
                    .iter()
                    .map(|p| (p.pass, p.first_new, p.steps.clone(), p.stats.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                summary(&got),
                summary(&want),
                "seed {seed} decorated {decorated}"
            );
            assert_eq!(
                dump(&fast),
                dump(&every),
                "seed {seed} decorated {decorated}"
            );
            if want.len() > 5 {
                multi_round += 1;
            }
            if want.iter().any(|p| !p.is_empty()) {
                with_edits += 1;
            }
        }
    }
    eprintln!("pipeline skipping: {multi_round} multi-round runs, {with_edits} with edits");
    assert!(
        multi_round > 5,
        "the generator must exercise a second round that plans"
    );
}

/// Every port a static `f32[4]`: the layout rules never copy a port of unknown shape.
fn static_f32_ports(g: &mut MemGraph) {
    use crate::analysis::memory::model::{DType, TensorDesc};
    let t = g.intern_tensor(TensorDesc::new(DType::F32, Some(vec![4])));
    for node in g.nodes.iter_mut() {
        node.inputs.iter_mut().for_each(|x| x.tensor = t);
        node.outputs.iter_mut().for_each(|x| x.tensor = t);
    }
}

/// Random layout attributes on a generated graph: every port a static `f32[4]` (so copies
/// can be inserted), and some nodes continuous, no-padding, in special memory, or unable to
/// refresh their addresses.
fn decorate_layout(g: &mut MemGraph, seed: u64) {
    use crate::analysis::memory::model::mem_type;
    static_f32_ports(g);
    let mut rng = Rng::new(seed ^ 0x5eed);
    for i in 0..g.nodes.len() {
        let node = &mut g.nodes[i];
        // Control-flow ops pass memory through; GE never gives them layout attributes.
        if node.sem.net_output || node.sem.data_like || !node.subgraphs.is_empty() {
            continue;
        }
        let s = &mut node.sem;
        s.continuous_input |= rng.chance(10);
        s.continuous_output |= rng.chance(8);
        s.nopad_continuous_input |= rng.chance(8);
        s.nopad_continuous_output |= rng.chance(6);
        s.output_reuse_input |= rng.chance(30);
        s.address_unrefreshable |= rng.chance(5);
        s.fixed_address |= rng.chance(3);
        for x in node.inputs.iter_mut() {
            if rng.chance(8) {
                x.mem_type = if rng.chance(50) {
                    mem_type::P2P_DDR
                } else {
                    mem_type::P2P_HBM
                };
            }
        }
        for x in node.outputs.iter_mut() {
            if rng.chance(8) {
                x.mem_type = if rng.chance(50) {
                    mem_type::P2P_DDR
                } else {
                    mem_type::P2P_HBM
                };
            }
        }
    }
}

#[test]
fn layout_planner_is_idempotent_and_replayable_on_random_graphs() {
    use crate::analysis::memory::layout::{plan_mem_layout_conflict, LayoutOptions};
    let options = [
        LayoutOptions::default(),
        LayoutOptions {
            feature_map_refreshable: true,
            ..LayoutOptions::default()
        },
        LayoutOptions {
            physical_memory_refreshable: true,
            offline: true,
            ..LayoutOptions::default()
        },
    ];
    let mut inserted = 0;
    let mut failures = Vec::new();
    for seed in 0..SEEDS {
        let mut g = generate(seed);
        decorate_layout(&mut g, seed);
        for opts in options {
            let mut after = g.clone();
            let plan = plan_mem_layout_conflict(&mut after, opts)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            after.check_consistency().unwrap();
            let mut replay = g.clone();
            apply(&mut replay, &plan).unwrap();
            assert_eq!(dump(&replay), dump(&after), "seed {seed}: replay differs");
            inserted += plan.stats.identities_inserted;
            let mut again = after.clone();
            let second = plan_mem_layout_conflict(&mut again, opts).unwrap();
            if !second.is_empty() {
                failures.push(format!("seed {seed} {opts:?}: {}", second.steps[0].reason));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} not idempotent:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        inserted > 500,
        "only {inserted} copies: the generator does not exercise the pass"
    );
}

/// The in-place dry run asks whether CtrlNodeConflict would insert anything, reading the
/// graph instead of running the rules on a copy: on random graphs (some outputs reusing an
/// input, as the dry run records them) both answers agree, errors included.
#[test]
fn ctrl_node_dry_run_reads_what_the_rules_would_do_on_random_graphs() {
    use crate::analysis::memory::layout::{
        ctrl_node_rules_insert_on_copy, ctrl_node_subgraph_has_conflict,
    };
    let mut conflicts = 0;
    for seed in 0..SEEDS {
        let mut g = generate(seed);
        let mut rng = Rng::new(seed ^ 0xd1ce);
        for i in 0..g.nodes.len() {
            let node = &mut g.nodes[i];
            if node.inputs.is_empty() || node.sem.net_output || !node.subgraphs.is_empty() {
                continue;
            }
            for o in node.outputs.iter_mut() {
                if rng.chance(30) {
                    o.reuse_input = Some(0);
                }
            }
        }
        g.normalize();
        let oracle = ctrl_node_rules_insert_on_copy(g.clone(), ROOT).map_err(|e| e.message);
        let read = ctrl_node_subgraph_has_conflict(&g, ROOT).map_err(|e| e.message);
        assert_eq!(read, oracle, "seed {seed}");
        conflicts += usize::from(oracle == Ok(true));
    }
    assert!(
        conflicts > SEEDS as usize / 10 && conflicts < SEEDS as usize,
        "the generator must give both answers: {conflicts} of {SEEDS}"
    );
}

/// The dry run's While output rule on its own: a body whose first output is computed from
/// its Data and whose second is the Data of the same index passed straight through. No
/// Data reaches another index (nothing "changed"), the body has two outputs, so only the
/// identity before the NetOutput's first input would be inserted.
#[test]
fn ctrl_node_dry_run_sees_a_while_body_that_only_needs_its_output_copied() {
    use crate::analysis::memory::layout::{
        ctrl_node_rules_insert_on_copy, ctrl_node_subgraph_has_conflict,
    };
    let mut b = B::new();
    let x0 = b.src("x0", "Relu");
    let x1 = b.src("x1", "Relu");
    let w = b.op("w", "While", &["x0", "x1"], &["y0", "y1"]);
    b.e(x0, 0, w, 0);
    b.e(x1, 0, w, 1);
    let cond = b.g.add_subgraph("w_cond", w);
    let c0 = b.g.add_subgraph_data(cond, "c0", 0);
    b.net_output(cond, &[(c0, 0)]);
    let body = b.g.add_subgraph("w_body", w);
    let d0 = b.g.add_subgraph_data(body, "d0", 0);
    let d1 = b.g.add_subgraph_data(body, "d1", 1);
    let r = b.op_in(body, "r", "Relu", &["x"], &["y"]);
    b.e(d0, 0, r, 0);
    b.net_output(body, &[(r, 0), (d1, 0)]);
    b.net_output(ROOT, &[(w, 0)]);
    let mut g = b.g;
    static_f32_ports(&mut g);
    g.normalize();
    assert_eq!(
        ctrl_node_rules_insert_on_copy(g.clone(), ROOT).ok(),
        Some(true)
    );
    assert_eq!(ctrl_node_subgraph_has_conflict(&g, ROOT).ok(), Some(true));
}

/// The conflict search visits only the anchor pairs whose attribute sets meet a rule; on
/// random decorated graphs every symbol of the root gets the decisions (or the error) of
/// the search that visits every pair but those of two inert anchors. The attributes taken
/// from the table the layout pass builds once per graph decide as those asked per anchor.
#[test]
fn conflict_search_over_meeting_pairs_decides_as_over_all_pairs() {
    use crate::analysis::memory::layout::{LayoutFacts, LayoutOptions};
    use crate::analysis::memory::symbols::Symbols;
    let (mut symbols_seen, mut decided, mut large) = (0, 0, 0);
    for seed in 0..SEEDS {
        let mut g = generate(seed);
        decorate_layout(&mut g, seed);
        g.normalize();
        let symbols = Symbols::build(&g, ROOT);
        let opts = match seed % 3 {
            0 => LayoutOptions::default(),
            1 => LayoutOptions {
                feature_map_refreshable: true,
                ..LayoutOptions::default()
            },
            _ => LayoutOptions {
                physical_memory_refreshable: true,
                offline: true,
                ..LayoutOptions::default()
            },
        };
        let facts = LayoutFacts::new(&g, ROOT, opts);
        let table = facts.attr_table(&g, &symbols);
        for id in 0..symbols.anchor_ids() as u32 {
            let a = symbols.anchor_at(id);
            assert_eq!(
                symbols.symbol_of(a),
                symbols.symbol_of_id(id),
                "seed {seed}"
            );
        }
        for s in symbols.ge_order(&g) {
            let anchors: Vec<_> = symbols.anchors(s).collect();
            let fast = facts
                .find_conflicts(&g, &symbols, &anchors)
                .map(|c| c.decisions().to_vec())
                .map_err(|e| e.message);
            let types: Vec<_> = symbols.ids_of(s).map(|id| table[id as usize]).collect();
            let tabled = facts
                .find_conflicts_typed(&g, &symbols, &anchors, &types)
                .map(|c| c.decisions().to_vec())
                .map_err(|e| e.message);
            assert_eq!(
                tabled, fast,
                "seed {seed}: the attribute table decides otherwise"
            );
            let all = facts
                .find_conflicts_all_pairs(&g, &symbols, &anchors)
                .map_err(|e| e.message);
            assert_eq!(
                fast,
                all,
                "seed {seed}, symbol of {} anchors",
                anchors.len()
            );
            symbols_seen += 1;
            decided += usize::from(fast.is_ok_and(|d| !d.is_empty()));
            large += usize::from(anchors.len() > 6);
        }
    }
    assert!(
        decided > 100 && large > 100,
        "the generator must give symbols with decisions ({decided}) and with many anchors \
         ({large}) among {symbols_seen}"
    );
}

/// `fresh_name` resumes each base's suffix search where it last stopped: on random
/// sequences of requests (bases that already exist with and without suffixes, names that
/// are used or dropped, nodes added by hand) it returns what the search from suffix 1 over
/// every name so far returns.
#[test]
fn fresh_name_resuming_per_base_names_as_searching_from_one() {
    let mut rng = Rng::new(0xf4e5);
    let mut resumed_past_one = 0;
    for round in 0..40 {
        let mut g = MemGraph::new("main");
        let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
        let bases = ["a", "b", "a_1", "copy"];
        for _ in 0..200 {
            let base = bases[rng.below(bases.len())];
            if rng.chance(15) {
                // A node added by hand, maybe with a suffixed name nobody asked for.
                let name = format!("{base}_{}", rng.below(6));
                g.add_node(ROOT, &name, "Relu", &["x"], &["y"]);
                names.insert(name);
                continue;
            }
            let want = if names.contains(base) {
                (1..)
                    .map(|k| format!("{base}_{k}"))
                    .find(|c| !names.contains(c))
                    .unwrap()
            } else {
                base.to_string()
            };
            let got = g.fresh_name(base);
            assert_eq!(got, want, "round {round}, base {base}");
            resumed_past_one += usize::from(got.ends_with("_3"));
            if rng.chance(80) {
                g.add_node(ROOT, &got, "Relu", &["x"], &["y"]);
                names.insert(got);
            }
        }
    }
    assert!(
        resumed_past_one > 20,
        "suffixes must grow: {resumed_past_one}"
    );
}
