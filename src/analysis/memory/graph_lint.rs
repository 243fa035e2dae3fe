//! GraphLint (spec 3.5, ge-behaviour-notes B.20): `--graph-lint`, warning W18888.
//!
//! For every output with two or more consumer edges, a writer (an input named like one of its
//! node's outputs) must be ordered, by a path of data or control edges, with every other
//! writer and every reader of that output; otherwise the result depends on scheduling.
//!
//! It must scale to a million ops, so there is no N x N connection matrix (GE's
//! `ConnectionMatrix` would need over 100 GB). Reachability is a [`Reach`] query; the built-in
//! [`DfsReach`] answers it with a depth-first search pruned by topological index (a node
//! after the target cannot lie on a path to it) and a visited-epoch array, caching the last
//! search so the queries of one writer share it. The lint asks only about pairs that share an
//! output, i.e. about the few ops that write a tensor somebody else reads.
//!
//! Differences from GE (documented choices): every unordered pair is reported, not only the
//! first one (GE stops at the first and its caller ignores the result); pairs are visited in
//! consumer edge order (GE iterates hash sets); a writable input of a nested control-flow op
//! propagates through every level of subgraphs (GE stops after one level).

use std::cell::{Cell, RefCell};

use super::model::{MemGraph, NodeId, OutPort};
use super::rw_types::ref_output_of_input;

/// The warning code GE reports.
pub const W18888: &str = "W18888";

/// Reachability through data and control edges inside one graph. `reaches(a, a)` is true.
pub trait Reach {
    fn reaches(&self, a: NodeId, b: NodeId) -> bool;
}

/// GraphLint's input RW type (`GraphLint::RWType`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LintRw {
    ReadOnly,
    Writable,
    /// Inputs of `Cmo` ops: neither read nor written for this check.
    CanIgnore,
}

/// One W18888 finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintWarning {
    /// The shared output.
    pub producer: OutPort,
    /// A node that writes the shared tensor.
    pub writer: NodeId,
    /// The other writer or reader with no path to or from `writer`.
    pub other: NodeId,
    /// Whether `other` is a writer too.
    pub other_is_writer: bool,
    /// `W18888: ...` text naming both nodes.
    pub message: String,
}

/// The lint's RW type of every input, stored flat (one allocation for the whole graph).
pub struct LintTypes {
    offsets: Vec<u32>,
    types: Vec<LintRw>,
}

impl LintTypes {
    /// Type of input `i` of `n`.
    pub fn get(&self, n: NodeId, i: u32) -> LintRw {
        self.types[(self.offsets[n.0 as usize] + i) as usize]
    }

    fn slot(&mut self, n: NodeId, i: u32) -> Option<&mut LintRw> {
        let start = self.offsets[n.0 as usize];
        let end = self.offsets[n.0 as usize + 1];
        let k = start + i;
        (k < end).then(|| &mut self.types[k as usize])
    }
}

/// The B.20 marking, in reverse `GetAllNodes` order: an input named like one of its node's
/// outputs is Writable, inputs of `Cmo` are CanIgnore, others ReadOnly; an input fed by a
/// subgraph Data is propagated to the parent's input (sticky Writable).
pub fn input_types(g: &MemGraph) -> LintTypes {
    let mut offsets = Vec::with_capacity(g.nodes.len() + 1);
    let mut total = 0u32;
    for n in &g.nodes {
        offsets.push(total);
        total += n.inputs.len() as u32;
    }
    offsets.push(total);
    let mut lt = LintTypes {
        offsets,
        types: vec![LintRw::ReadOnly; total as usize],
    };
    for n in g.all_nodes().into_iter().rev() {
        let node = g.node(n);
        if node.subgraphs.is_empty() {
            let cmo = node.effective_type() == "Cmo";
            for i in 0..node.inputs.len() as u32 {
                let t = if cmo {
                    LintRw::CanIgnore
                } else if ref_output_of_input(g, n, i).is_some() {
                    LintRw::Writable
                } else {
                    LintRw::ReadOnly
                };
                if let Some(slot) = lt.slot(n, i) {
                    *slot = t;
                }
            }
        }
        // Propagate to the parent op (sticky Writable); also from ops that own subgraphs, so
        // nested levels propagate (GE does this for ops without subgraphs only).
        let Some(parent) = g.parent_of(n) else {
            continue;
        };
        for (i, inp) in node.inputs.iter().enumerate() {
            let Some(src) = inp.src else {
                continue;
            };
            let d = g.node(src.node);
            if d.ty != "Data" {
                continue;
            }
            let Some(pi) = d.parent_index else {
                continue;
            };
            let cur = lt.get(n, i as u32);
            if let Some(slot) = lt.slot(parent, pi) {
                if *slot != LintRw::Writable {
                    *slot = cur;
                }
            }
        }
    }
    lt
}

/// Run GraphLint with the built-in reachability.
pub fn lint(g: &MemGraph) -> Vec<LintWarning> {
    let reach = DfsReach::new(g);
    lint_with(g, &reach)
}

/// Run GraphLint with any reachability oracle (e.g. chain/interval labels).
pub fn lint_with<R: Reach>(g: &MemGraph, reach: &R) -> Vec<LintWarning> {
    let types = input_types(g);
    let topo = g.topo_index();
    let mut warnings = Vec::new();
    for gr in &g.graphs {
        for &n in &gr.order {
            for (o, out) in g.node(n).outputs.iter().enumerate() {
                if out.consumers.len() < 2 {
                    continue;
                }
                let mut writers: Vec<NodeId> = Vec::new();
                let mut readers: Vec<NodeId> = Vec::new();
                for c in &out.consumers {
                    let list = match types.get(c.node, c.index) {
                        LintRw::Writable => &mut writers,
                        LintRw::ReadOnly => &mut readers,
                        LintRw::CanIgnore => continue,
                    };
                    if !list.contains(&c.node) {
                        list.push(c.node);
                    }
                }
                let producer = OutPort {
                    node: n,
                    index: o as u32,
                };
                for (k, &w) in writers.iter().enumerate() {
                    let mut others: Vec<(NodeId, bool)> =
                        writers[k + 1..].iter().map(|&x| (x, true)).collect();
                    others.extend(readers.iter().map(|&r| (r, false)));
                    // Query order that lets a cached search serve the next queries: targets
                    // after the writer from the farthest down, sources before it from the
                    // farthest up.
                    others.sort_by_key(|&(x, _)| {
                        let t = topo[x.0 as usize];
                        if t > topo[w.0 as usize] {
                            (0, u32::MAX - t)
                        } else {
                            (1, t)
                        }
                    });
                    for (x, is_writer) in others {
                        if x == w || reach.reaches(w, x) || reach.reaches(x, w) {
                            continue;
                        }
                        let kind = if is_writer { "other write" } else { "read" };
                        let message = format!(
                            "{W18888}: There is no control relation between write node %{} and {kind} node %{} (both use %{}:{}); the result depends on execution order",
                            g.node(w).name,
                            g.node(x).name,
                            g.node(n).name,
                            o
                        );
                        warnings.push(LintWarning {
                            producer,
                            writer: w,
                            other: x,
                            other_is_writer: is_writer,
                            message,
                        });
                    }
                }
            }
        }
    }
    warnings
}

/// A private, dependency-free [`Reach`]: DFS pruned by topological index, visited marks by
/// epoch, one cached forward and one cached backward search. Memory O(N); a query costs at
/// most the nodes between its endpoints in topological order, and repeated queries from one
/// source (or to one target) reuse the cached search.
pub struct DfsReach<'g> {
    g: &'g MemGraph,
    topo: Vec<u32>,
    fwd: Search,
    bwd: Search,
    last: Cell<(Option<NodeId>, Option<NodeId>)>,
}

struct Search {
    mark: RefCell<Vec<u32>>,
    epoch: Cell<u32>,
    /// (root, bound) of the cached search.
    cached: Cell<Option<(NodeId, u32)>>,
    stack: RefCell<Vec<NodeId>>,
}

impl Search {
    fn new(n: usize) -> Search {
        Search {
            mark: RefCell::new(vec![0; n]),
            epoch: Cell::new(0),
            cached: Cell::new(None),
            stack: RefCell::new(Vec::new()),
        }
    }

    fn is_marked(&self, n: NodeId) -> bool {
        self.mark.borrow()[n.0 as usize] == self.epoch.get()
    }
}

impl<'g> DfsReach<'g> {
    /// Build for `g` (normalised). O(N).
    pub fn new(g: &'g MemGraph) -> DfsReach<'g> {
        DfsReach {
            g,
            topo: g.topo_index(),
            fwd: Search::new(g.nodes.len()),
            bwd: Search::new(g.nodes.len()),
            last: Cell::new((None, None)),
        }
    }

    /// Mark everything reachable from `root` (forward) or reaching it (backward) without
    /// leaving the topological window `[bound, root]` / `[root, bound]`.
    fn search(&self, s: &Search, root: NodeId, bound: u32, forward: bool) {
        let epoch = s.epoch.get().wrapping_add(1);
        let mut mark = s.mark.borrow_mut();
        if epoch == 0 {
            mark.iter_mut().for_each(|m| *m = 0);
            s.epoch.set(1);
        } else {
            s.epoch.set(epoch);
        }
        let epoch = s.epoch.get();
        let mut stack = s.stack.borrow_mut();
        stack.clear();
        stack.push(root);
        mark[root.0 as usize] = epoch;
        let g = self.g;
        while let Some(n) = stack.pop() {
            let node = g.node(n);
            let mut visit = |m: NodeId| {
                let t = self.topo[m.0 as usize];
                let inside = if forward { t <= bound } else { t >= bound };
                if inside && t != u32::MAX && mark[m.0 as usize] != epoch {
                    mark[m.0 as usize] = epoch;
                    stack.push(m);
                }
            };
            if forward {
                node.outputs
                    .iter()
                    .flat_map(|o| o.consumers.iter())
                    .for_each(|c| visit(c.node));
                node.ctrl_out.iter().for_each(|&m| visit(m));
            } else {
                node.inputs
                    .iter()
                    .filter_map(|i| i.src)
                    .for_each(|p| visit(p.node));
                node.ctrl_in.iter().for_each(|&m| visit(m));
            }
        }
        s.cached.set(Some((root, bound)));
    }
}

impl Reach for DfsReach<'_> {
    fn reaches(&self, a: NodeId, b: NodeId) -> bool {
        if a == b {
            return true;
        }
        let g = self.g;
        let (ta, tb) = (self.topo[a.0 as usize], self.topo[b.0 as usize]);
        if g.node(a).graph != g.node(b).graph || ta >= tb || ta == u32::MAX || tb == u32::MAX {
            return false;
        }
        if let Some((root, bound)) = self.fwd.cached.get() {
            if root == a && tb <= bound {
                return self.fwd.is_marked(b);
            }
        }
        if let Some((root, bound)) = self.bwd.cached.get() {
            if root == b && ta >= bound {
                return self.bwd.is_marked(a);
            }
        }
        let (last_a, last_b) = self.last.get();
        self.last.set((Some(a), Some(b)));
        if last_b == Some(b) && last_a != Some(a) {
            self.search(&self.bwd, b, ta, false);
            self.bwd.is_marked(a)
        } else {
            self.search(&self.fwd, a, tb, true);
            self.fwd.is_marked(b)
        }
    }
}
