//! Reachability queries on a DAG of up to millions of nodes, without an N×N matrix.
//!
//! Passes ask "does A reach B" / "are A and B ordered" many times (stream allocation,
//! memory conflict checks). A transitive-closure matrix is O(N²) memory (125 GB of bits
//! for 1M nodes), so this index is built in O(k·(V+E)) time and O(k·V + E) memory and
//! answers each query with cheap label tests, falling back to a pruned search:
//!
//! 1. **Topological position**: A can reach B only if A comes before B.
//! 2. **Interval labels** (GRAIL, Yildirim et al. 2010): for each of `k` DFS traversals
//!    with different child orders, every node gets `[low, post]`, where `post` is its
//!    post-order rank and `low` the smallest rank it can reach. If A reaches B, B's interval
//!    lies inside A's in every traversal; one traversal where it does not proves "no".
//! 3. **Tree cover**: in the first traversal, B inside A's DFS-tree subtree (pre-order
//!    interval) proves "yes".
//! 4. Otherwise a DFS from A that prunes every node failing tests 1–2 and stops early on
//!    test 3. On typical graphs it touches a handful of nodes.

use petgraph::{
    graph::NodeIndex,
    visit::{IntoNeighbors, IntoNodeIdentifiers, NodeIndexable},
};
use std::{cell::RefCell, fmt};

/// The graph has a cycle; reachability labels need a DAG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotADag;

impl fmt::Display for NotADag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the graph has a cycle")
    }
}

impl std::error::Error for NotADag {}

/// The default number of interval-label traversals (more: fewer searches, more memory).
pub const DEFAULT_TRAVERSALS: usize = 3;

/// Per-query scratch: a generation-stamped visited set and a stack, reused across queries.
struct Scratch {
    stamp: Vec<u32>,
    generation: u32,
    stack: Vec<u32>,
}

/// The reachability index of one DAG. Node ids are the graph's `NodeIndexable` indices.
pub struct Reachability {
    /// Successors in CSR form.
    offsets: Vec<u32>,
    targets: Vec<u32>,
    /// Position of each node in a topological order.
    topo: Vec<u32>,
    /// `labels[t * n + v] = (low, post)` of traversal `t`.
    labels: Vec<(u32, u32)>,
    traversals: usize,
    /// Pre-order number and last pre-order number in the subtree, first traversal.
    pre: Vec<u32>,
    last: Vec<u32>,
    scratch: RefCell<Scratch>,
}

/// splitmix64: a tiny deterministic PRNG for traversal orders (no external crate).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

impl Reachability {
    /// Builds the index with [`DEFAULT_TRAVERSALS`] label traversals.
    pub fn new<G>(graph: G) -> Result<Self, NotADag>
    where
        G: IntoNeighbors + IntoNodeIdentifiers + NodeIndexable,
    {
        Self::with_traversals(graph, DEFAULT_TRAVERSALS)
    }

    /// Builds the index with `traversals` (at least 1) interval-label traversals.
    pub fn with_traversals<G>(graph: G, traversals: usize) -> Result<Self, NotADag>
    where
        G: IntoNeighbors + IntoNodeIdentifiers + NodeIndexable,
    {
        let traversals = traversals.max(1);
        let n = graph.node_bound();
        assert!(
            n < u32::MAX as usize,
            "reachability index is limited to 2^32 - 1 nodes"
        );
        // CSR successor lists. Holes (removed nodes of a StableGraph) get none.
        let mut offsets = vec![0u32; n + 1];
        for id in graph.node_identifiers() {
            offsets[graph.to_index(id) + 1] = graph.neighbors(id).count() as u32;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut targets = vec![0u32; offsets[n] as usize];
        let mut fill = offsets.clone();
        for id in graph.node_identifiers() {
            let v = graph.to_index(id);
            for s in graph.neighbors(id) {
                targets[fill[v] as usize] = graph.to_index(s) as u32;
                fill[v] += 1;
            }
        }
        let mut index = Reachability {
            offsets,
            targets,
            topo: Vec::new(),
            labels: Vec::new(),
            traversals,
            pre: Vec::new(),
            last: Vec::new(),
            scratch: RefCell::new(Scratch {
                stamp: vec![0; n],
                generation: 0,
                stack: Vec::new(),
            }),
        };
        index.topo = index.topological_positions().ok_or(NotADag)?;
        index.label();
        Ok(index)
    }

    fn successors(&self, v: usize) -> &[u32] {
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Kahn's algorithm (FIFO): position of every node, or `None` on a cycle.
    fn topological_positions(&self) -> Option<Vec<u32>> {
        let n = self.offsets.len() - 1;
        let mut indegree = vec![0u32; n];
        for &t in &self.targets {
            indegree[t as usize] += 1;
        }
        let mut queue: Vec<u32> = (0..n as u32)
            .filter(|&v| indegree[v as usize] == 0)
            .collect();
        let mut position = vec![0u32; n];
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head] as usize;
            position[v] = head as u32;
            head += 1;
            for &s in self.successors(v) {
                indegree[s as usize] -= 1;
                if indegree[s as usize] == 0 {
                    queue.push(s);
                }
            }
        }
        (queue.len() == n).then_some(position)
    }

    /// Computes the interval labels of every traversal and the tree cover of the first.
    fn label(&mut self) {
        let n = self.offsets.len() - 1;
        let mut rng = SplitMix(0x5EED_6E_0A11);
        self.labels = vec![(0, 0); n * self.traversals];
        self.pre = vec![0; n];
        self.last = vec![0; n];
        let mut roots: Vec<u32> = {
            let mut has_pred = vec![false; n];
            for &t in &self.targets {
                has_pred[t as usize] = true;
            }
            (0..n as u32).filter(|&v| !has_pred[v as usize]).collect()
        };
        let mut visited = vec![false; n];
        // Per node: the child slot to start from (rotates child order between traversals).
        let mut start = vec![0u32; n];
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for t in 0..self.traversals {
            match t {
                0 => {}
                1 => roots.reverse(),
                _ => {
                    for i in (1..roots.len()).rev() {
                        let j = rng.below(i + 1);
                        roots.swap(i, j);
                    }
                }
            }
            for (v, s) in start.iter_mut().enumerate() {
                let degree = self.offsets[v + 1] - self.offsets[v];
                *s = match (t, degree) {
                    (_, 0) | (0, _) => 0,
                    (1, d) => d - 1, // with the reversal below: last child first
                    (_, d) => rng.below(d as usize) as u32,
                };
            }
            visited.fill(false);
            let (mut post_rank, mut pre_rank) = (0u32, 0u32);
            let labels = &mut self.labels[t * n..(t + 1) * n];
            for &root in &roots {
                visited[root as usize] = true;
                if t == 0 {
                    self.pre[root as usize] = pre_rank;
                    pre_rank += 1;
                }
                stack.push((root, 0));
                while let Some(top) = stack.last_mut() {
                    let v = top.0 as usize;
                    let begin = self.offsets[v] as usize;
                    let degree = self.offsets[v + 1] as usize - begin;
                    if (top.1 as usize) < degree {
                        let slot = if t == 1 {
                            (start[v] as usize + degree - top.1 as usize) % degree
                        } else {
                            (start[v] as usize + top.1 as usize) % degree
                        };
                        top.1 += 1;
                        let child = self.targets[begin + slot];
                        if !visited[child as usize] {
                            // In a DAG a visited child is finished: no back edges.
                            visited[child as usize] = true;
                            if t == 0 {
                                self.pre[child as usize] = pre_rank;
                                pre_rank += 1;
                            }
                            stack.push((child, 0));
                        }
                        continue;
                    }
                    stack.pop();
                    let low = self.targets[begin..begin + degree]
                        .iter()
                        .map(|&c| labels[c as usize].0)
                        .fold(post_rank, u32::min);
                    labels[v] = (low, post_rank);
                    post_rank += 1;
                    if t == 0 {
                        self.last[v] = pre_rank - 1;
                    }
                }
            }
        }
    }

    /// Whether every traversal's interval of `a` contains `b`'s (necessary for a ⇝ b).
    fn labels_contain(&self, a: usize, b: usize) -> bool {
        let n = self.offsets.len() - 1;
        (0..self.traversals).all(|t| {
            let (la, pa) = self.labels[t * n + a];
            let (lb, pb) = self.labels[t * n + b];
            la <= lb && pb <= pa
        })
    }

    /// Whether `b` is in `a`'s subtree of the first DFS forest (sufficient for a ⇝ b).
    fn tree_contains(&self, a: usize, b: usize) -> bool {
        self.pre[a] <= self.pre[b] && self.pre[b] <= self.last[a]
    }

    /// Whether there is a path from node index `a` to node index `b` (every node reaches
    /// itself). Indices are the graph's `NodeIndexable::to_index` values.
    pub fn reaches_index(&self, a: usize, b: usize) -> bool {
        let n = self.offsets.len() - 1;
        if a >= n || b >= n {
            return false;
        }
        if a == b {
            return true;
        }
        if self.topo[a] >= self.topo[b] || !self.labels_contain(a, b) {
            return false;
        }
        if self.tree_contains(a, b) {
            return true;
        }
        let mut scratch = self.scratch.borrow_mut();
        let scratch = &mut *scratch;
        if scratch.generation == u32::MAX {
            scratch.stamp.fill(0);
            scratch.generation = 0;
        }
        scratch.generation += 1;
        let generation = scratch.generation;
        scratch.stack.clear();
        scratch.stack.push(a as u32);
        scratch.stamp[a] = generation;
        let topo_b = self.topo[b];
        while let Some(v) = scratch.stack.pop() {
            for &c in self.successors(v as usize) {
                let c = c as usize;
                if c == b {
                    return true;
                }
                if scratch.stamp[c] == generation {
                    continue;
                }
                scratch.stamp[c] = generation;
                if self.topo[c] >= topo_b || !self.labels_contain(c, b) {
                    continue;
                }
                if self.tree_contains(c, b) {
                    return true;
                }
                scratch.stack.push(c as u32);
            }
        }
        false
    }

    /// Whether there is a path from `a` to `b` (every node reaches itself).
    pub fn reaches(&self, a: NodeIndex, b: NodeIndex) -> bool {
        self.reaches_index(a.index(), b.index())
    }

    /// Whether `a` and `b` are ordered by the graph (either reaches the other). Unordered
    /// nodes may run concurrently.
    pub fn ordered(&self, a: NodeIndex, b: NodeIndex) -> bool {
        self.reaches(a, b) || self.reaches(b, a)
    }

    /// The node's position in a topological order (Kahn, FIFO).
    pub fn topo_position(&self, n: NodeIndex) -> Option<usize> {
        self.topo.get(n.index()).map(|&p| p as usize)
    }

    /// The number of node indices covered.
    pub fn len(&self) -> usize {
        self.topo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::{graph::DiGraph, stable_graph::StableDiGraph};
    use std::time::Instant;

    /// A random DAG: nodes get random indices (so index order is not topological), edges
    /// go from an earlier to a later node of a hidden order, mostly within a window.
    fn random_dag(
        rng: &mut SplitMix,
        n: usize,
        avg_degree: usize,
        window: usize,
    ) -> DiGraph<(), ()> {
        let mut hidden: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            hidden.swap(i, rng.below(i + 1));
        }
        let mut g = DiGraph::with_capacity(n, n * avg_degree);
        for _ in 0..n {
            g.add_node(());
        }
        for i in 1..n {
            for _ in 0..rng.below(2 * avg_degree + 1) {
                let j = if rng.below(10) == 0 {
                    rng.below(i)
                } else {
                    i - 1 - rng.below(window.min(i))
                };
                g.add_edge(NodeIndex::new(hidden[j]), NodeIndex::new(hidden[i]), ());
            }
        }
        g
    }

    fn brute_force(g: &DiGraph<(), ()>) -> Vec<Vec<bool>> {
        let n = g.node_count();
        (0..n)
            .map(|a| {
                let mut seen = vec![false; n];
                let mut stack = vec![NodeIndex::new(a)];
                seen[a] = true;
                while let Some(v) = stack.pop() {
                    for s in g.neighbors(v) {
                        if !seen[s.index()] {
                            seen[s.index()] = true;
                            stack.push(s);
                        }
                    }
                }
                seen
            })
            .collect()
    }

    #[test]
    fn matches_brute_force_on_random_dags() {
        let mut rng = SplitMix(42);
        let mut checked = 0usize;
        for case in 0..400 {
            let n = 1 + rng.below(70);
            let degree = rng.below(4);
            let window = 1 + rng.below(12);
            let g = random_dag(&mut rng, n, degree, window);
            let truth = brute_force(&g);
            let traversals = 1 + case % 4;
            let index = Reachability::with_traversals(&g, traversals).unwrap();
            for a in 0..n {
                for b in 0..n {
                    let (na, nb) = (NodeIndex::new(a), NodeIndex::new(b));
                    assert_eq!(
                        index.reaches(na, nb),
                        truth[a][b],
                        "case {case}: {a} -> {b}"
                    );
                    assert_eq!(index.ordered(na, nb), truth[a][b] || truth[b][a]);
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked} pairs checked");
    }

    #[test]
    fn positions_are_topological_and_cycles_are_rejected() {
        let mut rng = SplitMix(7);
        let g = random_dag(&mut rng, 200, 3, 5);
        let index = Reachability::new(&g).unwrap();
        for e in g.raw_edges() {
            assert!(index.topo_position(e.source()) < index.topo_position(e.target()));
        }
        assert_eq!(index.len(), 200);
        let mut cyclic = g.clone();
        let (a, b) = (g.raw_edges()[0].source(), g.raw_edges()[0].target());
        cyclic.add_edge(b, a, ());
        assert!(Reachability::new(&cyclic).is_err());
        assert!(!index.reaches(a, NodeIndex::new(10_000)));
    }

    #[test]
    fn stable_graphs_with_holes_work() {
        let mut g: StableDiGraph<(), ()> = StableDiGraph::new();
        let n: Vec<NodeIndex> = (0..5).map(|_| g.add_node(())).collect();
        g.add_edge(n[0], n[1], ());
        g.add_edge(n[1], n[3], ());
        g.add_edge(n[2], n[4], ());
        g.add_edge(n[3], n[4], ());
        g.remove_node(n[2]);
        let index = Reachability::new(&g).unwrap();
        assert!(index.reaches(n[0], n[4]));
        assert!(!index.reaches(n[4], n[0]));
        assert!(!index.ordered(n[2], n[4]));
    }

    /// Micro benchmark (run: `cargo test --release --lib reachability_bench -- --ignored
    /// --nocapture`): build time must grow near-linearly up to 1M nodes.
    #[test]
    #[ignore]
    fn reachability_bench() {
        let mut rng = SplitMix(2024);
        let mut per_node = Vec::new();
        for n in [125_000usize, 250_000, 500_000, 1_000_000] {
            let g = random_dag(&mut rng, n, 2, 64);
            let t = Instant::now();
            let index = Reachability::new(&g).unwrap();
            let build = t.elapsed();
            let queries = 200_000;
            let pairs: Vec<(NodeIndex, NodeIndex)> = (0..queries)
                .map(|_| (NodeIndex::new(rng.below(n)), NodeIndex::new(rng.below(n))))
                .collect();
            let t = Instant::now();
            let positive = pairs.iter().filter(|(a, b)| index.reaches(*a, *b)).count();
            let random_q = t.elapsed();
            // Near pairs (close in topological order) are the hard ones.
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_unstable_by_key(|&v| index.topo_position(NodeIndex::new(v)));
            let near: Vec<(NodeIndex, NodeIndex)> = (0..queries)
                .map(|_| {
                    let i = rng.below(n - 200);
                    (
                        NodeIndex::new(order[i]),
                        NodeIndex::new(order[i + 1 + rng.below(199)]),
                    )
                })
                .collect();
            let t = Instant::now();
            let near_positive = near.iter().filter(|(a, b)| index.reaches(*a, *b)).count();
            let near_q = t.elapsed();
            println!(
                "n={n:>8} edges={:>8} build={:>7.1} ms ({:.0} ns/node) | {queries} random queries {:>6.1} ms ({positive} true) | {queries} near queries {:>6.1} ms ({near_positive} true)",
                g.edge_count(),
                build.as_secs_f64() * 1e3,
                build.as_secs_f64() * 1e9 / n as f64,
                random_q.as_secs_f64() * 1e3,
                near_q.as_secs_f64() * 1e3,
            );
            per_node.push(build.as_secs_f64() / n as f64);
        }
        // Near-linear: per-node build cost at 1M within 3x of the cost at 125k.
        assert!(per_node[3] < 3.0 * per_node[0], "{per_node:?}");
    }
}
