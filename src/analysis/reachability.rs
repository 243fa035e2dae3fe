//! Reachability queries on a DAG of up to millions of nodes, without an N×N matrix.
//!
//! Passes ask "does A reach B" / "are A and B ordered" many times (stream allocation,
//! memory conflict checks). A transitive-closure matrix is O(N²) memory (125 GB of bits
//! for 1M nodes), so this index is built in O(k·(V+E)) time and O(k·V + E) memory and
//! answers each query with cheap label tests, falling back to a pruned search:
//!
//! 1. **Topological position**: nodes are renumbered in a topological order (also for
//!    memory locality); A can reach B only if A comes before B.
//! 2. **Interval labels** (GRAIL, Yildirim et al. 2010): for each of `k` DFS traversals
//!    with different child orders, every node gets `[low, post]`, where `post` is its
//!    post-order rank and `low` the smallest rank it can reach. If A reaches B, B's interval
//!    lies inside A's in every traversal; one traversal where it does not proves "no".
//! 3. **Tree cover**: the same traversals also record pre-order ranks. B inside A's
//!    DFS-tree subtree in any traversal (pre(A) ≤ pre(B) and post(B) ≤ post(A)) proves "yes".
//! 4. Otherwise a DFS from A that skips nodes after B, prunes nodes failing test 2, stops
//!    on test 3, and tries the successors closest to B first.

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

/// The default number of label traversals (more: fewer searches, more memory).
pub const DEFAULT_TRAVERSALS: usize = 3;

/// One node's label in one traversal.
#[derive(Clone, Copy, Default)]
struct Label {
    /// Smallest post-order rank reachable from the node.
    low: u32,
    post: u32,
    pre: u32,
}

/// What the labels alone say about "a reaches b".
enum Verdict {
    No,
    Yes,
    Maybe,
}

/// Per-query scratch: a generation-stamped visited set and a stack, reused across queries.
struct Scratch {
    stamp: Vec<u32>,
    generation: u32,
    stack: Vec<u32>,
}

/// The reachability index of one DAG. Queries take the graph's node indices
/// (`NodeIndexable::to_index`); internally nodes are numbered by topological position.
pub struct Reachability {
    /// Graph index -> topological position (`u32::MAX` for holes).
    position: Vec<u32>,
    /// Successors by position, in CSR form, each list ascending.
    offsets: Vec<u32>,
    targets: Vec<u32>,
    /// `labels[v * traversals + t]`: node-major, so one query reads one cache line per node.
    labels: Vec<Label>,
    traversals: usize,
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

    /// Builds the index with `traversals` (at least 1) label traversals.
    pub fn with_traversals<G>(graph: G, traversals: usize) -> Result<Self, NotADag>
    where
        G: IntoNeighbors + IntoNodeIdentifiers + NodeIndexable,
    {
        let traversals = traversals.max(1);
        let bound = graph.node_bound();
        assert!(
            bound < u32::MAX as usize,
            "reachability index is limited to 2^32 - 2 nodes"
        );
        // Successors by graph index, CSR. Holes (removed nodes of a StableGraph) are
        // left out of the index entirely.
        let mut exists = vec![false; bound];
        let mut offsets = vec![0u32; bound + 1];
        for id in graph.node_identifiers() {
            let v = graph.to_index(id);
            exists[v] = true;
            offsets[v + 1] = graph.neighbors(id).count() as u32;
        }
        for v in 0..bound {
            offsets[v + 1] += offsets[v];
        }
        let mut targets = vec![0u32; offsets[bound] as usize];
        let mut fill = offsets.clone();
        for id in graph.node_identifiers() {
            let v = graph.to_index(id);
            for s in graph.neighbors(id) {
                targets[fill[v] as usize] = graph.to_index(s) as u32;
                fill[v] += 1;
            }
        }
        drop(fill);

        // Kahn (FIFO) over existing nodes: the topological order.
        let mut indegree = vec![0u32; bound];
        for &t in &targets {
            indegree[t as usize] += 1;
        }
        let mut order: Vec<u32> = (0..bound as u32)
            .filter(|&v| exists[v as usize] && indegree[v as usize] == 0)
            .collect();
        let mut head = 0;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            for &s in &targets[offsets[v] as usize..offsets[v + 1] as usize] {
                indegree[s as usize] -= 1;
                if indegree[s as usize] == 0 {
                    order.push(s);
                }
            }
        }
        drop(indegree);
        let n = exists.iter().filter(|&&e| e).count();
        if order.len() != n {
            return Err(NotADag);
        }
        let mut position = vec![u32::MAX; bound];
        for (p, &v) in order.iter().enumerate() {
            position[v as usize] = p as u32;
        }

        // Renumber the successor lists by position, each sorted ascending.
        let mut new_offsets = Vec::with_capacity(n + 1);
        let mut new_targets = Vec::with_capacity(targets.len());
        new_offsets.push(0u32);
        for &v in &order {
            let v = v as usize;
            let start = new_targets.len();
            new_targets.extend(
                targets[offsets[v] as usize..offsets[v + 1] as usize]
                    .iter()
                    .map(|&s| position[s as usize]),
            );
            new_targets[start..].sort_unstable();
            new_offsets.push(new_targets.len() as u32);
        }
        let mut index = Reachability {
            position,
            offsets: new_offsets,
            targets: new_targets,
            labels: Vec::new(),
            traversals,
            scratch: RefCell::new(Scratch {
                stamp: vec![0; n],
                generation: 0,
                stack: Vec::new(),
            }),
        };
        index.label(n);
        Ok(index)
    }

    fn successors(&self, v: usize) -> &[u32] {
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Runs the `traversals` DFS passes over the renumbered DAG (nodes `0..n`).
    fn label(&mut self, n: usize) {
        let k = self.traversals;
        let mut rng = SplitMix(0x005E_ED6E_0A11);
        let mut labels = vec![Label::default(); n * k];
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
        for t in 0..k {
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
            if t >= 2 {
                for (v, s) in start.iter_mut().enumerate() {
                    let degree = self.offsets[v + 1] - self.offsets[v];
                    *s = if degree == 0 {
                        0
                    } else {
                        rng.below(degree as usize) as u32
                    };
                }
            }
            visited.fill(false);
            let (mut post_rank, mut pre_rank) = (0u32, 0u32);
            for &root in &roots {
                visited[root as usize] = true;
                labels[root as usize * k + t].pre = pre_rank;
                pre_rank += 1;
                stack.push((root, 0));
                while let Some(top) = stack.last_mut() {
                    let v = top.0 as usize;
                    let begin = self.offsets[v] as usize;
                    let degree = self.offsets[v + 1] as usize - begin;
                    if (top.1 as usize) < degree {
                        let i = top.1 as usize;
                        // Traversal 0: nearest successor first; 1: farthest first;
                        // later ones: a random rotation.
                        let slot = match t {
                            0 => i,
                            1 => degree - 1 - i,
                            _ => (start[v] as usize + i) % degree,
                        };
                        top.1 += 1;
                        let child = self.targets[begin + slot] as usize;
                        if !visited[child] {
                            // In a DAG a visited child is finished: there are no back edges.
                            visited[child] = true;
                            labels[child * k + t].pre = pre_rank;
                            pre_rank += 1;
                            stack.push((child as u32, 0));
                        }
                        continue;
                    }
                    stack.pop();
                    let low = self.targets[begin..begin + degree]
                        .iter()
                        .map(|&c| labels[c as usize * k + t].low)
                        .fold(post_rank, u32::min);
                    let label = &mut labels[v * k + t];
                    label.low = low;
                    label.post = post_rank;
                    post_rank += 1;
                }
            }
        }
        self.labels = labels;
    }

    /// The labels' verdict on "a reaches b" for positions `a < b`.
    fn verdict(&self, a: usize, b: usize) -> Verdict {
        let k = self.traversals;
        let (la, lb) = (
            &self.labels[a * k..a * k + k],
            &self.labels[b * k..b * k + k],
        );
        let mut in_tree = false;
        for (x, y) in la.iter().zip(lb) {
            if x.low > y.low || y.post > x.post {
                return Verdict::No;
            }
            // With post(b) <= post(a), pre(a) <= pre(b) makes b a DFS-tree descendant.
            in_tree |= x.pre <= y.pre;
        }
        if in_tree {
            Verdict::Yes
        } else {
            Verdict::Maybe
        }
    }

    /// Whether there is a path from node index `a` to node index `b` (every node reaches
    /// itself). Indices are the graph's `NodeIndexable::to_index` values; unknown indices
    /// reach nothing.
    pub fn reaches_index(&self, a: usize, b: usize) -> bool {
        let (Some(&a), Some(&b)) = (self.position.get(a), self.position.get(b)) else {
            return false;
        };
        if a == u32::MAX || b == u32::MAX {
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        if a >= b {
            return a == b;
        }
        match self.verdict(a, b) {
            Verdict::No => return false,
            Verdict::Yes => return true,
            Verdict::Maybe => {}
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
        while let Some(v) = scratch.stack.pop() {
            // Ascending successors: stop at b; pushing in order makes the one closest to b
            // the next to be explored.
            for &c in self.successors(v as usize) {
                let c = c as usize;
                if c >= b {
                    if c == b {
                        return true;
                    }
                    break;
                }
                if scratch.stamp[c] == generation {
                    continue;
                }
                scratch.stamp[c] = generation;
                match self.verdict(c, b) {
                    Verdict::No => {}
                    Verdict::Yes => return true,
                    Verdict::Maybe => scratch.stack.push(c as u32),
                }
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

    /// The node's position in the index's topological order (Kahn, FIFO).
    pub fn topo_position(&self, n: NodeIndex) -> Option<usize> {
        self.position
            .get(n.index())
            .filter(|&&p| p != u32::MAX)
            .map(|&p| p as usize)
    }

    /// The number of nodes indexed.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
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
        random_dag_ordered(rng, n, avg_degree, window, false)
    }

    /// `in_order`: node indices follow the hidden topological order (like a program-ordered
    /// FuncGraph); otherwise they are shuffled (worst case for memory locality).
    fn random_dag_ordered(
        rng: &mut SplitMix,
        n: usize,
        avg_degree: usize,
        window: usize,
        in_order: bool,
    ) -> DiGraph<(), ()> {
        let mut hidden: Vec<usize> = (0..n).collect();
        if !in_order {
            for i in (1..n).rev() {
                hidden.swap(i, rng.below(i + 1));
            }
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
            for (a, from_a) in truth.iter().enumerate() {
                for (b, &a_reaches_b) in from_a.iter().enumerate() {
                    let (na, nb) = (NodeIndex::new(a), NodeIndex::new(b));
                    assert_eq!(
                        index.reaches(na, nb),
                        a_reaches_b,
                        "case {case}: {a} -> {b}"
                    );
                    assert_eq!(index.ordered(na, nb), a_reaches_b || truth[b][a]);
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
        let runs = [
            (125_000usize, false),
            (250_000, false),
            (500_000, false),
            (1_000_000, false),
            (1_000_000, true),
        ];
        for (n, in_order) in runs {
            let g = random_dag_ordered(&mut rng, n, 2, 64, in_order);
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
                "n={n:>8} {} edges={:>8} build={:>7.1} ms ({:.0} ns/node) | {queries} random queries {:>6.1} ms ({positive} true) | {queries} near queries {:>6.1} ms ({near_positive} true)",
                if in_order { "ordered " } else { "shuffled" },
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
