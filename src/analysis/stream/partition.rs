//! GE's engine partition (`EnginePartitioner`, second-partitioning mode): groups the nodes of
//! one graph into engine subgraphs, the unit the logical stream passes assign.
//!
//! GE's algorithm, kept here:
//! * every node starts as a cluster; data-like nodes without inputs go to a separate input
//!   partition that never gets a stream;
//! * `MarkClusters`: for each child cluster in topological order, its parent clusters
//!   (sorted by out-degree, ties by index) merge into it when they have the same engine and
//!   stream label — or the same non-empty user stream label — and merging creates no cycle
//!   (`HasSecondPath`, a DFS bounded by the child's index);
//! * the subgraph list is ordered by the first node of each partition (`SortSubGraphs`);
//! * a cross-partition edge is an End→PlaceHolder pair; the pairs give each subgraph its
//!   producer and consumer subgraphs.
//!
//! Two documented simplifications: (1) GE sorts parents with an unstable sort; we use a
//! stable one (identical for fewer than 17 parents, where libstdc++ uses insertion sort);
//! (2) the cycle search gives up after `budget` visited clusters and then refuses the merge,
//! which keeps the partition near-linear on huge graphs and can only produce *more*
//! subgraphs, never a cyclic partition. The `stable RDFS` mode
//! (`MarkClustersWithConsistantId`) and the cv-parallel engine switch are not modelled.

use super::model::{GraphId, NodeId, StreamGraph};
use std::collections::BTreeSet;

/// One engine subgraph of a graph. Strings borrow from the view and the label tables.
#[derive(Clone, Debug)]
pub struct EngineSubgraph<'a> {
    pub graph: GraphId,
    /// Position in the graph's subgraph list (GE's rank, starting at 0 here).
    pub rank: usize,
    pub engine: &'a str,
    /// Effective `_stream_label` of the first node ("" when none).
    pub stream_label: &'a str,
    /// `_user_stream_label` of the first node ("" when none).
    pub user_stream_label: &'a str,
    /// Nodes in topological order.
    pub nodes: Vec<NodeId>,
    /// Producer subgraphs, one entry per PlaceHolder in input order (may repeat).
    pub pld_producers: Vec<usize>,
    /// Consumer subgraphs, one entry per End (may repeat).
    pub end_consumers: Vec<usize>,
}

/// The partition of one graph.
#[derive(Clone, Debug, Default)]
pub struct Partition<'a> {
    /// Subgraphs in GE's list order; indices in `pld_producers`/`end_consumers` refer here.
    pub subgraphs: Vec<EngineSubgraph<'a>>,
    /// Subgraph index per node of the graph (None: the input partition).
    pub node_subgraph: Vec<(NodeId, Option<usize>)>,
}

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
pub fn partition_graph<'a>(
    sg: &'a StreamGraph,
    g: GraphId,
    labels: &'a [Option<String>],
    user_labels: &'a [Option<String>],
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
