//! GE's engine partition (`EnginePartitioner`, second-partitioning mode): groups the nodes of
//! one graph into engine subgraphs, the unit the logical stream passes assign.
//!
//! GE's algorithm, kept here:
//! * every node starts as a cluster; data-like nodes without inputs go to a separate input
//!   partition that never gets a stream;
//! * `MarkClusters`: for each child cluster in topological order, its parent clusters
//!   (sorted by out-degree, ties by index) merge into it when they have the same engine and
//!   stream label — or the same non-empty user stream label — and merging creates no cycle
//!   (`HasSecondPath`: is the child reachable from the parent other than by the direct edge);
//! * the subgraph list is ordered by the first node of each partition (`SortSubGraphs`);
//! * a cross-partition edge is an End→PlaceHolder pair; the pairs give each subgraph its
//!   producer and consumer subgraphs.
//!
//! GE answers `HasSecondPath` with a DFS over every cluster below the child's index, which
//! is quadratic when one cluster feeds many others that lead nowhere yet (a training graph:
//! the merged AllReduces feed one weight update each, and every new AllReduce asks again).
//! Here the search skips such dead ends without looking at them: a cluster is *open* once
//! it has an edge into a cluster already reached in the walk (or into the current child),
//! each cluster keeps the list of its open successors, and the DFS only follows those. A
//! closed cluster cannot be on a path into the child, so the answer is GE's, in time
//! proportional to the open region the search really crosses (see `ClusterGraph`).
//!
//! Two documented simplifications: (1) GE sorts parents with an unstable sort; we use a
//! stable one (identical for fewer than 17 parents, where libstdc++ uses insertion sort);
//! (2) the cycle search gives up after `budget` visited clusters and then refuses the merge,
//! which bounds the worst case and can only produce *more* subgraphs, never a cyclic
//! partition (on the generated benchmark graphs it never gives up). The `stable RDFS` mode
//! (`MarkClustersWithConsistantId`) and the cv-parallel engine switch are not modelled.

use super::model::{FastMap, GraphId, Label, NodeId, StreamGraph};
use super::sparse::SparseLists;

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

/// Per-node attributes of a cluster; a merged cluster keeps those of its survivor (the
/// smaller index), as GE's `MergeTwoClusters` keeps the smaller cluster.
/// Strings are interned (`*_id`, 0 for "", see [`Interner`]) so the merge test compares
/// integers and a cluster stays small.
struct Kind {
    engine_id: u32,
    label_id: u32,
    user_label_id: u32,
    data: bool,
}

/// Interns strings as small integers; "" is 0.
struct Interner<'a> {
    ids: FastMap<&'a str, u32>,
    /// The string of each id.
    names: Vec<&'a str>,
}

impl Default for Interner<'_> {
    fn default() -> Self {
        Interner {
            ids: FastMap::default(),
            names: vec![""],
        }
    }
}

impl<'a> Interner<'a> {
    fn id(&mut self, s: &'a str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let next = self.names.len() as u32;
        let names = &mut self.names;
        *self.ids.entry(s).or_insert_with(|| {
            names.push(s);
            next
        })
    }

    fn name(&self, id: u32) -> &'a str {
        self.names[id as usize]
    }
}

/// The cluster graph while `MarkClusters` runs.
///
/// A cluster is named by its smallest node index (GE's survivor). `alias` is GE's
/// `clusters_[big] = clusters_[small]` aliasing, resolved like a union–find. The edges
/// between live clusters are the keys of `edges` (with exact degree counters: GE sorts
/// parents by out-degree). Adjacency lists only say where to look: they start as each
/// node's own edges (one flat array, no allocation per node) plus what merges added, and an
/// entry counts only while its edge is in `edges`; so a merge redirects the edges of the
/// absorbed cluster and never searches its neighbours' lists.
///
/// While child `cur` is processed, a cluster is *open* when it has an edge into a cluster
/// whose index is at most `cur` (one the walk has reached, or the child itself): `hot`
/// counts those edges. Only open clusters can lie on a path into the child, so the cycle
/// search follows `open_outs[w]`, the open successors of `w`: an entry is added when a
/// successor opens (or an edge to an open cluster appears) and dropped when the search
/// finds it closed or its edge gone; the value in `edges` says whether the edge is listed.
/// Data clusters have no inputs, are never on a path between two clusters and never merge:
/// their edges are left out.
struct ClusterGraph<'a> {
    kind: Vec<Kind>,
    alias: Vec<u32>,
    /// Live edges → listed in the source's `open_outs`.
    edges: EdgeMap,
    out_deg: Vec<u32>,
    in_deg: Vec<u32>,
    /// Initial lists: node `i`'s are `outs[out_start[i]..out_start[i + 1]]` (and likewise
    /// for ins).
    out_start: Vec<u32>,
    outs: Vec<u32>,
    in_start: Vec<u32>,
    ins: Vec<u32>,
    /// Entries added by merges (most clusters get none, or lose theirs to a merge soon).
    more_outs: SparseLists<u32>,
    more_ins: SparseLists<u32>,
    /// The child being processed.
    cur: u32,
    hot: Vec<u32>,
    open_outs: SparseLists<u32>,
    /// Whether a cluster has opened once: its first opening lists every in-edge; later ones
    /// list only `unlisted`.
    opened: Vec<bool>,
    /// In-neighbours whose edge into the cluster may have been left unlisted since its
    /// first opening: added while it was closed, or dropped from `open_outs` because it was
    /// closed. (Re-reading every in-edge at each opening was quadratic for a cluster that
    /// absorbs a chain fed from many other clusters.)
    unlisted: SparseLists<u32>,
    /// A reusable buffer.
    scratch: Vec<u32>,
    /// The engine and label strings of `kind`.
    strings: Interner<'a>,
}

#[cfg(test)]
thread_local! {
    /// In-list entries read by `heat` on this thread: the work a test can bound.
    pub(crate) static HEAT_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The edge table, hashed by [`EdgeHasher`].
type EdgeMap = std::collections::HashMap<u64, bool, std::hash::BuildHasherDefault<EdgeHasher>>;

/// A hasher for [`key`]s whose bucket bits follow `from + to`: the edges the walk adds,
/// looks up and removes join nearby clusters, so on a million-node graph they touch nearby
/// buckets instead of a random cache line each; a cluster with many edges still spreads
/// them (each edge has its own sum), and the tag bits hashbrown reads from the top of the
/// hash are mixed from the whole key.
#[derive(Default, Clone, Copy)]
struct EdgeHasher(u64);

impl std::hash::Hasher for EdgeHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write_u64(&mut self, k: u64) {
        const TAG: u64 = 0xFE00_0000_0000_0000;
        let mixed = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let sum = (k >> 32) + (k & 0xFFFF_FFFF);
        // Two buckets per sum, picked by the mixed key, for the few edges sharing a sum.
        self.0 = (((sum << 1) | (mixed >> 40 & 1)) & !TAG) | (mixed & TAG);
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }
}

fn key(from: u32, to: u32) -> u64 {
    (u64::from(from) << 32) | u64::from(to)
}

impl<'a> ClusterGraph<'a> {
    /// The clusters of graph `g`'s nodes, one per node, with the edges between them.
    fn new(
        sg: &'a StreamGraph,
        g: GraphId,
        labels: &'a [Label],
        user_labels: &'a [Label],
        pos: &[usize],
    ) -> Self {
        let order = &sg.graph(g).nodes;
        let k = order.len();
        let mut cg = ClusterGraph {
            kind: Vec::with_capacity(k),
            alias: (0..k as u32).collect(),
            edges: EdgeMap::default(),
            out_deg: vec![0; k],
            in_deg: vec![0; k],
            out_start: vec![0; k + 1],
            outs: Vec::new(),
            in_start: Vec::with_capacity(k + 1),
            ins: Vec::with_capacity(k * 2),
            more_outs: SparseLists::new(k),
            more_ins: SparseLists::new(k),
            cur: 0,
            hot: vec![0; k],
            open_outs: SparseLists::new(k),
            opened: vec![false; k],
            unlisted: SparseLists::new(k),
            scratch: Vec::new(),
            strings: Interner::default(),
        };
        // The initial edges are at most the in-edges, and merges never add more than they
        // remove: the table never grows past this.
        cg.edges.reserve(
            order
                .iter()
                .map(|&n| sg.node(n).data_in().len() + sg.node(n).ctrl_in().len())
                .sum(),
        );
        for (i, &n) in order.iter().enumerate() {
            let node = sg.node(n);
            let no_input = node.data_in().is_empty() && node.ctrl_in().is_empty();
            let data = no_input && node.is_data_like();
            let engine = if data {
                ""
            } else {
                cluster_engine(&node.engine)
            };
            let strings = &mut cg.strings;
            cg.kind.push(Kind {
                engine_id: strings.id(engine),
                label_id: strings.id(labels[n].as_deref().unwrap_or("")),
                user_label_id: strings.id(user_labels[n].as_deref().unwrap_or("")),
                data,
            });
            cg.in_start.push(cg.ins.len() as u32);
            for p in node.in_all() {
                if sg.node(p).graph != g {
                    continue;
                }
                let pi = pos[p];
                if pi < i
                    && !cg.kind[pi].data
                    && cg.edges.insert(key(pi as u32, i as u32), false).is_none()
                {
                    cg.ins.push(pi as u32);
                    cg.out_deg[pi] += 1;
                    cg.in_deg[i] += 1;
                }
            }
        }
        cg.in_start.push(cg.ins.len() as u32);
        // Out lists from the in lists (a counting sort by source).
        for &p in &cg.ins {
            cg.out_start[p as usize + 1] += 1;
        }
        for i in 0..k {
            cg.out_start[i + 1] += cg.out_start[i];
        }
        cg.outs = vec![0; cg.ins.len()];
        let mut fill: Vec<u32> = cg.out_start[..k].to_vec();
        for i in 0..k {
            for j in cg.in_start[i]..cg.in_start[i + 1] {
                let p = cg.ins[j as usize] as usize;
                cg.outs[fill[p] as usize] = i as u32;
                fill[p] += 1;
            }
        }
        cg
    }

    fn find(&mut self, mut i: u32) -> u32 {
        let mut root = i;
        while self.alias[root as usize] != root {
            root = self.alias[root as usize];
        }
        while self.alias[i as usize] != root {
            let next = self.alias[i as usize];
            self.alias[i as usize] = root;
            i = next;
        }
        root
    }

    fn has_edge(&self, from: u32, to: u32) -> bool {
        self.edges.contains_key(&key(from, to))
    }

    fn is_open(&self, c: u32) -> bool {
        self.hot[c as usize] > 0
    }

    /// Every entry of `c`'s in list (initial then added; dead ones included), into the
    /// reusable `out`.
    fn in_entries(&self, c: u32, out: &mut Vec<u32>) {
        let c = c as usize;
        let first = &self.ins[self.in_start[c] as usize..self.in_start[c + 1] as usize];
        out.clear();
        out.extend_from_slice(first);
        out.extend_from_slice(self.more_ins.get(c));
    }

    /// Live in-neighbours of `c`, sorted, without repeats (dead entries are dropped).
    fn live_ins(&mut self, c: u32, out: &mut Vec<u32>) {
        let mut more = self.more_ins.take(c as usize);
        more.retain(|&i| self.has_edge(i, c));
        self.more_ins.put(c as usize, more);
        self.in_entries(c, out);
        out.retain(|&i| self.has_edge(i, c));
        out.sort_unstable();
        out.dedup();
    }

    /// Lists `to` among `from`'s open successors unless it is listed already.
    fn list(&mut self, from: u32, to: u32) {
        if let Some(listed) = self.edges.get_mut(&key(from, to)) {
            if !*listed {
                *listed = true;
                self.open_outs.push(from as usize, to);
            }
        }
    }

    /// One more edge from `c` into a reached cluster; on opening, `c` is listed by its
    /// in-neighbours.
    fn heat(&mut self, c: u32) {
        self.hot[c as usize] += 1;
        if self.hot[c as usize] != 1 {
            return;
        }
        // Every live unlisted in-edge gets listed, as when all in-edges were read: the
        // first time from the in-lists, then from `unlisted` (which holds each edge that
        // can have lost its listing since; listing never adds to it).
        let c_at = c as usize;
        if self.opened[c_at] {
            let mut pending = self.unlisted.take(c_at);
            #[cfg(test)]
            HEAT_READS.with(|r| r.set(r.get() + pending.len()));
            for &w in &pending {
                self.list(w, c);
            }
            pending.clear();
            self.unlisted.put(c_at, pending);
            return;
        }
        self.opened[c_at] = true;
        self.unlisted.release(c_at);
        let mut ins = std::mem::take(&mut self.scratch);
        self.in_entries(c, &mut ins);
        #[cfg(test)]
        HEAT_READS.with(|r| r.set(r.get() + ins.len()));
        for &w in &ins {
            self.list(w, c);
        }
        self.scratch = ins;
    }

    fn add_edge(&mut self, from: u32, to: u32) {
        if self.edges.insert(key(from, to), false).is_some() {
            return;
        }
        self.out_deg[from as usize] += 1;
        self.in_deg[to as usize] += 1;
        self.more_outs.push(from as usize, to);
        self.more_ins.push(to as usize, from);
        if self.is_open(to) {
            self.list(from, to);
        } else {
            self.unlisted.push(to as usize, from);
        }
        if to <= self.cur {
            self.heat(from);
        }
    }

    fn remove_edge(&mut self, from: u32, to: u32) -> bool {
        if self.edges.remove(&key(from, to)).is_none() {
            return false;
        }
        self.out_deg[from as usize] -= 1;
        self.in_deg[to as usize] -= 1;
        if to <= self.cur {
            self.hot[from as usize] -= 1;
        }
        true
    }

    /// `c`'s open successors; closed and dead entries are dropped on the way.
    fn open_successors(&mut self, c: u32) -> Vec<u32> {
        let mut list = self.open_outs.take(c as usize);
        list.retain(|&o| match self.edges.get_mut(&key(c, o)) {
            None => false,
            Some(listed) => {
                let open = self.hot[o as usize] > 0;
                if !open {
                    *listed = false;
                    self.unlisted.push(o as usize, c);
                }
                open
            }
        });
        list
    }

    /// Starts processing child `c`: its parents now have an edge into a reached cluster.
    fn reach(&mut self, c: u32, parents: &[u32]) {
        self.cur = c;
        for &p in parents {
            self.heat(p);
        }
    }

    /// `MergeTwoClusters(parent, child)`: the larger index joins the smaller; returns the
    /// survivor.
    fn merge(&mut self, parent: u32, child: u32) -> u32 {
        let (small, big) = (parent.min(child), parent.max(child));
        self.remove_edge(parent, child);
        let mut list = std::mem::take(&mut self.scratch);
        self.in_entries(big, &mut list);
        for &i in &list {
            if self.remove_edge(i, big) && i != small {
                self.add_edge(i, small);
            }
        }
        let b = big as usize;
        list.clear();
        list.extend_from_slice(
            &self.outs[self.out_start[b] as usize..self.out_start[b + 1] as usize],
        );
        list.extend_from_slice(self.more_outs.get(big as usize));
        self.more_outs.release(big as usize);
        for &o in &list {
            if self.remove_edge(big, o) && o != small {
                self.add_edge(small, o);
            }
        }
        self.scratch = list;
        self.more_ins.release(big as usize);
        self.open_outs.release(big as usize);
        self.unlisted.release(big as usize);
        self.alias[b] = small;
        small
    }
}

/// Partitions graph `g`. `labels[n]`/`user_labels[n]` are the effective labels per node;
/// `pos[n]` is each node's index in its graph (see [`StreamGraph::positions`]).
pub fn partition_graph<'a>(
    sg: &'a StreamGraph,
    g: GraphId,
    labels: &'a [Label],
    user_labels: &'a [Label],
    pos: &[usize],
    budget: usize,
) -> Partition<'a> {
    let order = &sg.graph(g).nodes;
    let k = order.len();
    let mut cg = ClusterGraph::new(sg, g, labels, user_labels, pos);
    let mut search = Search {
        stamp: vec![0; k],
        now: 0,
        stack: Vec::new(),
    };
    let mut parents: Vec<u32> = Vec::new();
    for child in 0..k as u32 {
        // Cluster `child` is untouched when we reach it (merges only involve smaller ids);
        // its parents reach it now, so they are open from here on.
        cg.live_ins(child, &mut parents);
        cg.reach(child, &parents);
        // GE's order: ascending out-degree, then index (a stable sort of the sorted set).
        parents.sort_by_key(|&p| cg.out_deg[p as usize]);
        let mut merged = child;
        for &p in &parents {
            if mergeable(&mut cg, &mut search, p, merged, child, budget) {
                merged = cg.merge(p, merged);
            }
        }
    }

    let cluster_of: Vec<u32> = (0..k as u32).map(|i| cg.find(i)).collect();
    // SortSubGraphs: rank by first appearance in topological order.
    // Rank + 1 of each cluster's subgraph, 0 before it has one (zeroed memory, touched
    // only at the clusters that survive).
    let mut rank_of_cluster = vec![0u32; k];
    let mut subgraphs: Vec<EngineSubgraph> = Vec::new();
    let mut node_subgraph = Vec::with_capacity(k);
    for (i, &n) in order.iter().enumerate() {
        let c = cluster_of[i] as usize;
        if cg.kind[c].data {
            node_subgraph.push((n, None));
            continue;
        }
        if rank_of_cluster[c] == 0 {
            rank_of_cluster[c] = subgraphs.len() as u32 + 1;
            subgraphs.push(EngineSubgraph {
                graph: g,
                rank: subgraphs.len(),
                engine: cg.strings.name(cg.kind[c].engine_id),
                stream_label: labels[n].as_deref().unwrap_or(""),
                user_stream_label: user_labels[n].as_deref().unwrap_or(""),
                nodes: Vec::new(),
                pld_producers: Vec::new(),
                end_consumers: Vec::new(),
            });
        }
        let r = rank_of_cluster[c] as usize - 1;
        subgraphs[r].nodes.push(n);
        node_subgraph.push((n, Some(r)));
    }
    // End/PlaceHolder pairs for every cross-partition edge (data then control, input order).
    let local = |n: NodeId| -> Option<usize> { (sg.node(n).graph == g).then(|| pos[n]) };
    for (i, &n) in order.iter().enumerate() {
        let Some(dst) = node_subgraph[i].1 else {
            continue;
        };
        for p in sg.node(n).in_all() {
            let Some(pi) = local(p) else {
                continue;
            };
            if cluster_of[pi] == cluster_of[i] {
                continue;
            }
            if let Some(src) = node_subgraph[pi].1 {
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
    stack: Vec<u32>,
}

/// `IsMergeable(parent, child, upper_bound)`.
fn mergeable(
    cg: &mut ClusterGraph,
    search: &mut Search,
    parent: u32,
    child: u32,
    upper: u32,
    budget: usize,
) -> bool {
    let (pc, cc) = (&cg.kind[parent as usize], &cg.kind[child as usize]);
    if pc.data || cc.data {
        return false;
    }
    let same_user = pc.user_label_id != 0 && pc.user_label_id == cc.user_label_id;
    if !same_user && (pc.engine_id != cc.engine_id || pc.label_id != cc.label_id) {
        return false;
    }
    !has_second_path(cg, search, parent, child, upper, budget)
}

/// `HasSecondPath`: is `dst` reachable from `src` other than by the direct edge? A DFS
/// from `src` over open clusters below `upper` (the child's index: later clusters cannot
/// lead back into the child). It gives up (answers yes) after `budget` visited clusters.
fn has_second_path(
    cg: &mut ClusterGraph,
    search: &mut Search,
    src: u32,
    dst: u32,
    upper: u32,
    budget: usize,
) -> bool {
    // Without the direct edge, `src` has no other successor or `dst` no other predecessor.
    if cg.out_deg[src as usize] <= 1 || cg.in_deg[dst as usize] <= 1 {
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
    search.stamp[src as usize] = now;
    let mut visited = 0usize;
    while let Some(c) = search.stack.pop() {
        visited += 1;
        if visited > budget {
            return true;
        }
        if c != src && cg.has_edge(c, dst) {
            return true;
        }
        let list = cg.open_successors(c);
        for &o in &list {
            if c == src && o == dst {
                continue; // the direct edge
            }
            if o == dst {
                cg.open_outs.put(c as usize, list);
                return true;
            }
            if o < upper && search.stamp[o as usize] != now {
                search.stamp[o as usize] = now;
                search.stack.push(o);
            }
        }
        cg.open_outs.put(c as usize, list);
    }
    false
}
