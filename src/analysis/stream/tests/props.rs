//! Property tests over random graphs (a tiny in-test PRNG, fixed seeds) and a scaling check.
//!
//! Properties: allocation succeeds; every cross-stream dependency is covered by an event or
//! implied by stream order plus events, before and after the split; no event is implied by
//! the others (none is dead); event and notify ids are continuous from 0; Sends and Recvs
//! pair up; results are deterministic; GE's count is never below the minimum.

use super::util::*;
use crate::analysis::stream::*;
use std::collections::BTreeSet;

/// xorshift64*: small, deterministic, good enough for graph shapes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const ENGINES: &[&str] = &[AIC, AIC, AIC, CPU, VEC, HCCL, LOCAL];

/// Adds `count` random nodes to graph `g`, edges only to earlier nodes of `g` within
/// `window`. Returns the new nodes.
fn random_nodes(
    sg: &mut StreamGraph,
    rng: &mut Rng,
    g: GraphId,
    count: usize,
    tag: &str,
    window: usize,
    sources: bool,
) -> Vec<NodeId> {
    let mut nodes: Vec<NodeId> = Vec::with_capacity(count);
    for i in 0..count {
        if sources && i < 2 {
            let n = add(sg, g, &format!("{tag}data{i}"), "Data", LOCAL);
            nodes.push(n);
            continue;
        }
        let engine = ENGINES[rng.below(ENGINES.len())];
        let ty = if engine == HCCL {
            "HcomAllReduce"
        } else {
            "Op"
        };
        let n = add(sg, g, &format!("{tag}n{i}"), ty, engine);
        if rng.chance(12) {
            sg.attrs_mut(n).stream_label = Some(format!("L{}", rng.below(3)));
        }
        if engine == HCCL {
            sg.attrs_mut(n).fusion = Some(rng.below(2) as i64);
            if rng.chance(15) {
                sg.attrs_mut(n).parallel_group = Some(if rng.chance(50) {
                    "-1".into()
                } else {
                    "pg".into()
                });
            }
        }
        if !nodes.is_empty() {
            let lo = nodes.len().saturating_sub(window);
            for _ in 0..=rng.below(3) {
                let p = nodes[lo + rng.below(nodes.len() - lo)];
                sg.add_data_edge(p, n);
            }
            if rng.chance(10) {
                let p = nodes[lo + rng.below(nodes.len() - lo)];
                sg.add_ctrl_edge(p, n);
            }
        }
        nodes.push(n);
    }
    nodes
}

/// A random root graph, sometimes with a PartitionedCall subgraph.
fn random_graph(seed: u64) -> StreamGraph {
    let mut rng = Rng::new(seed);
    let mut sg = StreamGraph::new("g");
    let n = 2 + rng.below(40);
    let nodes = random_nodes(&mut sg, &mut rng, 0, n, "", 8, true);
    if rng.chance(40) {
        let p = add(&mut sg, 0, "call", "PartitionedCall", AIC);
        sg.add_data_edge(nodes[rng.below(nodes.len())], p);
        let g = sg.add_subgraph("sub", p);
        let count = 1 + rng.below(8);
        let inner = random_nodes(&mut sg, &mut rng, g, count, "s_", 4, false);
        if let Some(&last) = inner.last() {
            sg.attrs_mut(last).subgraph_end_node = true;
        }
        let c = add(&mut sg, 0, "after", "Op", AIC);
        sg.add_data_edge(p, c);
    }
    let out = add(&mut sg, 0, "out", "NetOutput", LOCAL);
    let total = sg.graph(0).nodes.len();
    for &m in &sg.graph(0).nodes.clone()[total.saturating_sub(4)..total - 1] {
        sg.add_data_edge(m, out);
    }
    sg
}

fn random_options(seed: u64) -> StreamOptions {
    let mut rng = Rng::new(seed ^ 0xABCD);
    let mut o = StreamOptions::default();
    o.max_parallel.insert(AIC.into(), 1 + rng.below(3) as i64);
    o.hcom_parallel = rng.chance(30);
    o.memory_priority = rng.chance(20);
    o.use_notify = rng.chance(15);
    if rng.chance(30) {
        // Small limits that still hold a node with its Sends and Recvs (a Recv is two
        // tasks) beside the Send and Recv of a split.
        o.max_task_normal = 45 + rng.below(8) as i64;
    }
    o
}

fn continuous(ids: impl Iterator<Item = u32>, count: u32) -> bool {
    let set: BTreeSet<u32> = ids.collect();
    set.len() as u32 == count && set.iter().copied().eq(0..count)
}

#[test]
fn random_graphs_are_covered_minimal_and_deterministic() {
    for seed in 0..400u64 {
        let sg = random_graph(seed);
        let o = random_options(seed);
        let r = match allocate(&sg, &EngineTable::ge_default(), &o) {
            Ok(r) => r,
            Err(e) => panic!("seed {seed}: {e}"),
        };
        let deps = dependencies(&sg);
        let problems = check(&sg, &r, &deps);
        assert!(problems.is_empty(), "seed {seed}: {problems:?}");
        assert!(
            continuous(
                r.syncs
                    .alive()
                    .filter(|(_, e)| e.kind == SyncKind::Event)
                    .map(|(_, e)| e.id),
                r.event_num
            ),
            "seed {seed}: event ids not continuous"
        );
        assert!(
            continuous(
                r.syncs
                    .alive()
                    .filter(|(_, e)| e.kind == SyncKind::Notify)
                    .map(|(_, e)| e.id),
                r.notify_num
            ),
            "seed {seed}: notify ids not continuous"
        );
        let sends = r
            .planned
            .iter()
            .filter(|p| p.ty.starts_with("Send"))
            .count();
        assert_eq!(
            sends * 2,
            r.planned.len(),
            "seed {seed}: Send/Recv mismatch"
        );
        assert!(r.stats.after_ge_rules >= r.stats.minimal);
        assert!(
            (0..sg.nodes().len()).all(|n| r.logical.decision(n).rule != StreamRule::None),
            "seed {seed}"
        );
        assert!(
            r.stream.iter().all(|&s| (0..r.stream_num).contains(&s)),
            "seed {seed}"
        );
        let again = allocate(&sg, &EngineTable::ge_default(), &o).unwrap();
        assert_eq!(
            again.summary_json(&sg),
            r.summary_json(&sg),
            "seed {seed}: not deterministic"
        );
        // GE's own result (no minimisation) is sound as well, only not minimal.
        let mut ge = o.clone();
        ge.minimize_events = false;
        let rg = allocate(&sg, &EngineTable::ge_default(), &ge).unwrap();
        let order = sg.all_nodes();
        assert!(
            clocks::uncovered(order, &rg.logical.stream, &rg.syncs, &deps, false).is_empty(),
            "seed {seed}: GE's events do not cover"
        );
        assert_eq!(rg.stats.minimal, r.stats.minimal);
    }
}

/// Random graphs give some streams and events at all (the test above is not vacuous).
#[test]
fn random_graphs_exercise_streams_and_events() {
    let (mut multi, mut events, mut removed) = (0, 0, 0);
    for seed in 0..200u64 {
        let sg = random_graph(seed);
        let r = allocate(&sg, &EngineTable::ge_default(), &random_options(seed)).unwrap();
        multi += usize::from(r.logical.main_stream_num > 1);
        events += r.event_num as usize + r.notify_num as usize;
        removed += r.stats.removed_transitive;
    }
    assert!(multi > 100, "{multi}");
    assert!(events > 300, "{events}");
    assert!(removed > 0, "{removed}");
}

/// A layered graph of `n` nodes with local edges, the shape of real networks.
pub fn big_graph(n: usize, seed: u64) -> StreamGraph {
    let mut rng = Rng::new(seed);
    let mut sg = StreamGraph::new("big");
    let nodes = random_nodes(&mut sg, &mut rng, 0, n, "", 16, true);
    let out = add(&mut sg, 0, "out", "NetOutput", LOCAL);
    sg.add_data_edge(nodes[nodes.len() - 1], out);
    sg
}

/// Scaling check: allocation time grows near-linearly. Run with
/// `cargo test --release --lib scaling -- --ignored --nocapture`.
#[test]
#[ignore]
fn scaling_near_linear() {
    let o = StreamOptions {
        max_stream_normal: 1 << 20,
        max_events: u32::MAX,
        ..Default::default()
    };
    let mut times = Vec::new();
    for n in [10_000usize, 100_000, 1_000_000] {
        let sg = big_graph(n, 7);
        let t = std::time::Instant::now();
        let r = allocate(&sg, &EngineTable::ge_default(), &o).unwrap();
        let dt = t.elapsed().as_secs_f64();
        println!(
            "n={n:>8}  {dt:8.3}s  streams {} main / {} physical  events {} (GE rules {}, minimal {})",
            r.logical.main_stream_num, r.stream_num, r.event_num, r.stats.after_ge_rules, r.stats.minimal
        );
        times.push(dt);
    }
    let growth = (times[2] / times[1]).log10();
    println!("growth exponent 100k→1M: {growth:.3}");
    assert!(growth < 1.2, "allocation grows like n^{growth:.2}");
}
