//! GE's engine partition checked against a plain transcription of GE's `MarkClusters`
//! (a DFS over every cluster below the child, no pruning, no budget): the pruned search in
//! `partition.rs` must give the same subgraphs, producers and consumers on random graphs
//! built to make merges conflict (few engines, labels, long-range edges, fan-out nodes).

use super::props::Rng;
use super::util::*;
use crate::analysis::stream::logical::effective_labels;
use crate::analysis::stream::partition::{partition_graph, EngineSubgraph, Partition};
use crate::analysis::stream::*;
use std::collections::BTreeSet;

/// A graph where merges often close cycles: two or three engines, fan-out hubs, edges
/// reaching far back, a few labels and user labels, data sources.
fn conflict_graph(seed: u64) -> StreamGraph {
    let mut rng = Rng::new(seed);
    let mut sg = StreamGraph::new("g");
    let n = 5 + rng.below(120);
    let engines: &[&str] = if rng.chance(50) {
        &[AIC, HCCL]
    } else {
        &[AIC, HCCL, CPU]
    };
    let mut nodes: Vec<NodeId> = Vec::new();
    for i in 0..n {
        if i < 2 || rng.chance(5) {
            nodes.push(add(&mut sg, 0, &format!("d{i}"), "Data", LOCAL));
            continue;
        }
        let engine = engines[rng.below(engines.len())];
        let v = add(&mut sg, 0, &format!("n{i}"), "Op", engine);
        if rng.chance(6) {
            sg.attrs_mut(v).stream_label = Some(format!("L{}", rng.below(2)));
        }
        if rng.chance(4) {
            sg.attrs_mut(v).user_stream_label = Some(format!("U{}", rng.below(2)));
        }
        let hub = nodes[rng.below(nodes.len().min(4))];
        if rng.chance(30) {
            sg.add_data_edge(hub, v);
        }
        for _ in 0..=rng.below(3) {
            let window = if rng.chance(20) { nodes.len() } else { 6 };
            let lo = nodes.len().saturating_sub(window);
            let p = nodes[lo + rng.below(nodes.len() - lo)];
            if rng.chance(80) {
                sg.add_data_edge(p, v);
            } else {
                sg.add_ctrl_edge(p, v);
            }
        }
        nodes.push(v);
    }
    sg
}

/// The partition as plain data: per subgraph its engine, labels, nodes, producers and
/// consumers.
type Shape = Vec<(String, String, String, Vec<NodeId>, Vec<usize>, Vec<usize>)>;

fn shape(p: &Partition) -> Shape {
    p.subgraphs
        .iter()
        .map(|s: &EngineSubgraph| {
            (
                s.engine.to_string(),
                s.stream_label.to_string(),
                s.user_stream_label.to_string(),
                s.nodes.clone(),
                s.pld_producers.clone(),
                s.end_consumers.clone(),
            )
        })
        .collect()
}

#[test]
fn pruned_search_matches_ge_mark_clusters() {
    let mut merged = 0usize;
    let mut refused = BTreeSet::new();
    for seed in 0..600u64 {
        let sg = conflict_graph(seed);
        let (labels, users) = effective_labels(&sg);
        let pos = sg.positions();
        let ours = partition_graph(&sg, 0, &labels, &users, &pos, usize::MAX);
        let ge = reference_partition(&sg, 0, &labels, &users, &pos, usize::MAX);
        assert_eq!(shape(&ours), shape(&ge), "seed {seed}");
        assert_eq!(ours.node_subgraph, ge.node_subgraph, "seed {seed}");
        let compute = sg.nodes().iter().filter(|n| !n.is_data_like()).count();
        merged += compute - ours.subgraphs.len();
        // Seeds where two same-engine, same-label neighbours stay apart (a cycle refused).
        for s in &ours.subgraphs {
            for &c in &s.end_consumers {
                let o = &ours.subgraphs[c];
                if o.engine == s.engine && o.stream_label == s.stream_label {
                    refused.insert(seed);
                }
            }
        }
    }
    // The comparison is not vacuous: many merges, and many refused for a cycle.
    assert!(merged > 5000, "{merged}");
    assert!(refused.len() > 100, "{}", refused.len());
}

/// With a search budget of one cluster the partition still is one GE accepts: no cycle
/// between subgraphs, one engine per subgraph unless a user label joins them.
#[test]
fn a_tiny_search_budget_still_gives_an_acyclic_partition() {
    for seed in 0..300u64 {
        let sg = conflict_graph(seed);
        let (labels, users) = effective_labels(&sg);
        let pos = sg.positions();
        let p = partition_graph(&sg, 0, &labels, &users, &pos, 1);
        // Kahn's algorithm over the End→PlaceHolder pairs.
        let k = p.subgraphs.len();
        let mut indegree = vec![0usize; k];
        for s in &p.subgraphs {
            for &c in &s.end_consumers {
                indegree[c] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..k).filter(|&i| indegree[i] == 0).collect();
        let mut seen = 0;
        while let Some(i) = ready.pop() {
            seen += 1;
            for &c in &p.subgraphs[i].end_consumers {
                indegree[c] -= 1;
                if indegree[c] == 0 {
                    ready.push(c);
                }
            }
        }
        assert_eq!(seen, k, "seed {seed}: the subgraphs form a cycle");
        for s in &p.subgraphs {
            if s.user_stream_label.is_empty() {
                assert!(
                    s.nodes.iter().all(|&n| *sg.node(n).engine == *s.engine),
                    "seed {seed}"
                );
            }
        }
    }
}

// A transcription of the allocator's partition before the pruned search (GE's algorithm
// with BTreeSet clusters), kept as the reference.

/// Engine name a node is clustered under: custom device ops ride with AI Core
/// (`GenClusterEngineName` in second-partitioning mode).
fn cluster_engine(engine: &str) -> &str {
    if engine == "DNN_VM_CUSTOM" {
        "AIcoreEngine"
    } else {
        engine
    }
}

struct Cluster<'a> {
    engine: &'a str,
    label: &'a str,
    user_label: &'a str,
    data: bool,
    nodes: Vec<usize>,
    ins: BTreeSet<usize>,
    outs: BTreeSet<usize>,
}

/// Partitions graph `g`. `labels[n]`/`user_labels[n]` are the effective labels per node;
/// `pos[n]` is each node's index in its graph (see [`StreamGraph::positions`]).
pub fn reference_partition<'a>(
    sg: &'a StreamGraph,
    g: GraphId,
    labels: &'a [Label],
    user_labels: &'a [Label],
    pos: &[usize],
    budget: usize,
) -> Partition<'a> {
    let order = &sg.graph(g).nodes;
    let k = order.len();
    let local = |n: NodeId| -> Option<usize> { (sg.node(n).graph == g).then(|| pos[n]) };
    // `slot[i]` is the cluster node i's original cluster now lives in (GE's aliasing of
    // `clusters_[big] = clusters_[small]`); `find` follows it.
    let mut slot: Vec<usize> = (0..k).collect();
    let mut clusters: Vec<Cluster> = Vec::with_capacity(k);
    for (i, &n) in order.iter().enumerate() {
        let node = sg.node(n);
        let no_input = node.data_in().is_empty() && node.ctrl_in().is_empty();
        let data = no_input && node.is_data_like();
        let mut ins = BTreeSet::new();
        for p in node.in_all() {
            if let Some(pi) = local(p) {
                if pi < i {
                    ins.insert(pi);
                }
            }
        }
        clusters.push(Cluster {
            engine: if data {
                ""
            } else {
                cluster_engine(&node.engine)
            },
            label: labels[n].as_deref().unwrap_or(""),
            user_label: user_labels[n].as_deref().unwrap_or(""),
            data,
            nodes: vec![i],
            ins,
            outs: BTreeSet::new(),
        });
    }
    for i in 0..k {
        let ins: Vec<usize> = clusters[i].ins.iter().copied().collect();
        for p in ins {
            clusters[p].outs.insert(i);
        }
    }

    let mut search = Search {
        stamp: vec![0; k],
        now: 0,
        stack: Vec::new(),
    };
    let mut parents: Vec<usize> = Vec::new();
    for child in 0..k {
        // Cluster `child` is untouched when we reach it (merges only involve smaller ids).
        parents.clear();
        parents.extend(clusters[child].ins.iter().copied());
        parents.sort_by_key(|&p| clusters[p].outs.len());
        let mut merged = child;
        for &p in &parents {
            if mergeable(&mut clusters, &mut search, p, merged, child, budget) {
                merged = merge(&mut clusters, &mut slot, p, merged);
            }
        }
    }

    // Resolve each node's final cluster.
    let find = |slot: &Vec<usize>, mut i: usize| {
        while slot[i] != i {
            i = slot[i];
        }
        i
    };
    let mut cluster_of = vec![0usize; k];
    for (i, c) in cluster_of.iter_mut().enumerate() {
        *c = find(&slot, i);
    }
    // SortSubGraphs: rank by first appearance in topological order.
    let mut rank_of_cluster = vec![usize::MAX; k];
    let mut subgraphs: Vec<EngineSubgraph> = Vec::new();
    let mut node_subgraph = Vec::with_capacity(k);
    for (i, &n) in order.iter().enumerate() {
        let c = cluster_of[i];
        if clusters[c].data {
            node_subgraph.push((n, None));
            continue;
        }
        if rank_of_cluster[c] == usize::MAX {
            rank_of_cluster[c] = subgraphs.len();
            subgraphs.push(EngineSubgraph {
                graph: g,
                rank: subgraphs.len(),
                engine: clusters[c].engine,
                stream_label: labels[n].as_deref().unwrap_or(""),
                user_stream_label: user_labels[n].as_deref().unwrap_or(""),
                nodes: Vec::new(),
                pld_producers: Vec::new(),
                end_consumers: Vec::new(),
            });
        }
        let r = rank_of_cluster[c];
        subgraphs[r].nodes.push(n);
        node_subgraph.push((n, Some(r)));
    }
    // End/PlaceHolder pairs for every cross-partition edge (data then control, input order).
    let sub_of = |n: NodeId| -> Option<usize> { local(n).and_then(|i| node_subgraph[i].1) };
    for (i, &n) in order.iter().enumerate() {
        let Some(dst) = node_subgraph[i].1 else {
            continue;
        };
        for p in sg.node(n).in_all() {
            let src_cluster = local(p).map(|pi| cluster_of[pi]);
            if src_cluster == Some(cluster_of[i]) {
                continue;
            }
            if let Some(src) = sub_of(p) {
                subgraphs[dst].pld_producers.push(src);
                subgraphs[src].end_consumers.push(dst);
            }
        }
    }
    Partition {
        subgraphs,
        node_subgraph,
    }
}

/// Scratch state of the cycle search, reused across calls (no allocation per search).
struct Search {
    stamp: Vec<u32>,
    now: u32,
    stack: Vec<usize>,
}

/// `IsMergeable(parent, child, upper_bound)`.
fn mergeable(
    clusters: &mut [Cluster],
    search: &mut Search,
    parent: usize,
    child: usize,
    upper: usize,
    budget: usize,
) -> bool {
    let (pc, cc) = (&clusters[parent], &clusters[child]);
    if pc.nodes.is_empty() || cc.nodes.is_empty() || pc.data || cc.data {
        return false;
    }
    let same_user = !pc.user_label.is_empty() && pc.user_label == cc.user_label;
    if !same_user && (pc.engine != cc.engine || pc.label != cc.label) {
        return false;
    }
    clusters[child].ins.remove(&parent);
    clusters[parent].outs.remove(&child);
    let second = has_second_path(clusters, search, parent, child, upper, budget);
    clusters[parent].outs.insert(child);
    clusters[child].ins.insert(parent);
    !second
}

/// `HasSecondPath`: is `dst` reachable from `src` through clusters below `upper`, with the
/// direct edge removed? Gives up (answers yes) after `budget` visited clusters.
fn has_second_path(
    clusters: &[Cluster],
    search: &mut Search,
    src: usize,
    dst: usize,
    upper: usize,
    budget: usize,
) -> bool {
    if clusters[src].outs.is_empty() || clusters[dst].ins.is_empty() {
        return false;
    }
    search.now = search.now.wrapping_add(1);
    if search.now == 0 {
        search.stamp.fill(0);
        search.now = 1;
    }
    let now = search.now;
    search.stack.clear();
    search.stack.push(src);
    let mut visited = 0usize;
    while let Some(c) = search.stack.pop() {
        if search.stamp[c] == now {
            continue;
        }
        search.stamp[c] = now;
        visited += 1;
        if visited > budget {
            return true;
        }
        for &o in &clusters[c].outs {
            if o == dst {
                return true;
            }
            if o < upper {
                search.stack.push(o);
            }
        }
    }
    false
}

/// `MergeTwoClusters`: the larger index joins the smaller; returns the survivor.
fn merge(clusters: &mut [Cluster], slot: &mut [usize], parent: usize, child: usize) -> usize {
    let (small, big) = if parent < child {
        (parent, child)
    } else {
        (child, parent)
    };
    clusters[child].ins.remove(&parent);
    clusters[parent].outs.remove(&child);
    let big_nodes = std::mem::take(&mut clusters[big].nodes);
    let big_ins = std::mem::take(&mut clusters[big].ins);
    let big_outs = std::mem::take(&mut clusters[big].outs);
    for &i in &big_ins {
        clusters[i].outs.remove(&big);
        if i != small {
            clusters[i].outs.insert(small);
        }
    }
    for &o in &big_outs {
        clusters[o].ins.remove(&big);
        if o != small {
            clusters[o].ins.insert(small);
        }
    }
    clusters[small].nodes.extend(big_nodes);
    clusters[small]
        .ins
        .extend(big_ins.into_iter().filter(|&i| i != small));
    clusters[small]
        .outs
        .extend(big_outs.into_iter().filter(|&o| o != small));
    slot[big] = small;
    small
}

/// A Data fanned out to n Relus summed by a chain of Adds: everything merges into one
/// cluster, which opens again for every Add of the chain. Only its first opening reads
/// its in-lists (which keep the entries of edges merges removed); later ones read the
/// edges that may have lost their listing, so the reads stay linear (they were n^2 / 2:
/// 40k Relus took 1.8 s of `--stream-alloc`).
#[test]
fn a_cluster_absorbing_a_long_chain_reads_its_in_list_in_linear_total() {
    let n = 2000;
    let mut sg = StreamGraph::new("g");
    let x = add(&mut sg, 0, "x", "Data", LOCAL);
    let relus: Vec<NodeId> = (0..n)
        .map(|i| {
            let r = add(&mut sg, 0, &format!("r{i}"), "Relu", AIC);
            sg.add_data_edge(x, r);
            r
        })
        .collect();
    sum_chain(&mut sg, &relus);
    let (ours, reads) = partition_counting_reads(&sg);
    assert_eq!(ours.len(), 1, "everything merges into one cluster");
    assert!(reads < 10 * n, "{reads} in-list entries read for {n} Relus");
}

/// A Data read by n HCCL ops, each feeding an AI Core op, joined by a chain of AI Core
/// Adds: the chain and the AI Core ops merge into one cluster, which keeps a live in-edge
/// from every HCCL cluster and opens again for every Add. Only in-edges that may have lost
/// their listing are read again, so the reads stay linear (they were n^2 / 4 with every
/// in-edge read at each opening: 20k branches took 17 s of `--ge-compile`).
#[test]
fn a_cluster_fed_by_many_clusters_reads_only_unlisted_in_edges_again() {
    let n = 2000;
    let mut sg = StreamGraph::new("g");
    let x = add(&mut sg, 0, "x", "Data", LOCAL);
    let tails: Vec<NodeId> = (0..n)
        .map(|i| {
            let h = add(&mut sg, 0, &format!("h{i}"), "HcomAllReduce", HCCL);
            sg.add_data_edge(x, h);
            let b = add(&mut sg, 0, &format!("b{i}"), "Relu", AIC);
            sg.add_data_edge(h, b);
            b
        })
        .collect();
    sum_chain(&mut sg, &tails);
    let (ours, reads) = partition_counting_reads(&sg);
    let (labels, users) = effective_labels(&sg);
    let ge = reference_partition(&sg, 0, &labels, &users, &sg.positions(), usize::MAX);
    assert_eq!(ours, shape(&ge));
    assert!(
        reads < 10 * n,
        "{reads} in-edge entries read for {n} branches"
    );
}

/// Sums `terms` with a chain of AI Core Adds (`s1 = t0 + t1`, `s2 = s1 + t2`, ...).
fn sum_chain(sg: &mut StreamGraph, terms: &[NodeId]) {
    let mut sum = terms[0];
    for (i, &t) in terms.iter().enumerate().skip(1) {
        let s = add(sg, 0, &format!("s{i}"), "Add", AIC);
        sg.add_data_edge(sum, s);
        sg.add_data_edge(t, s);
        sum = s;
    }
}

/// The partition of graph 0 of `sg` (as plain data) and the in-edge entries `heat` read.
fn partition_counting_reads(sg: &StreamGraph) -> (Shape, usize) {
    use crate::analysis::stream::partition::HEAT_READS;
    let (labels, users) = effective_labels(sg);
    let pos = sg.positions();
    HEAT_READS.with(|r| r.set(0));
    let ours = partition_graph(sg, 0, &labels, &users, &pos, usize::MAX);
    (shape(&ours), HEAT_READS.with(|r| r.get()))
}
