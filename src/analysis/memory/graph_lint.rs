//! GraphLint (spec 3.5, ge-behaviour-notes B.20): `--graph-lint`, warning W18888.
//!
//! For every output with two or more consumer edges, a writer (an input named like one of its
//! node's outputs) must be ordered, by a path of data or control edges, with every other
//! writer and every reader of that output; otherwise the result depends on scheduling.
//!
//! It must scale to a million ops, so there is no N x N connection matrix (GE's
//! `ConnectionMatrix` would need over 100 GB). Reachability is a [`Reach`] query; the built-in
//! [`DfsReach`] answers it with interval labels that refute most unreachable pairs in O(1)
//! and a label- and topo-pruned DFS for the rest. The lint asks only about pairs that share
//! an output, i.e. about the few ops that write a tensor somebody else reads.
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
            let cmo = node.sem.cmo;
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
            if !d.sem.data {
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
    let mut warnings = Vec::new();
    // Distinct writers and readers of one output, in edge order. A node is listed once per
    // kind: `listed[node]` holds the output's stamp and which lists have it (bit 0 writers,
    // bit 1 readers), so an output with thousands of consumers (a learning rate read by
    // every optimizer update) costs linear time, not a scan of the list per edge.
    let mut listed: Vec<(u32, u8)> = vec![(0, 0); g.nodes.len()];
    let mut stamp = 0u32;
    let mut writers: Vec<NodeId> = Vec::new();
    let mut readers: Vec<NodeId> = Vec::new();
    for gr in &g.graphs {
        for &n in &gr.order {
            for (o, out) in g.node(n).outputs.iter().enumerate() {
                if out.consumers.len() < 2 {
                    continue;
                }
                stamp += 1;
                writers.clear();
                readers.clear();
                for c in &out.consumers {
                    let (list, bit) = match types.get(c.node, c.index) {
                        LintRw::Writable => (&mut writers, 1u8),
                        LintRw::ReadOnly => (&mut readers, 2u8),
                        LintRw::CanIgnore => continue,
                    };
                    let seen = &mut listed[c.node.0 as usize];
                    if seen.0 != stamp {
                        *seen = (stamp, 0);
                    }
                    if seen.1 & bit == 0 {
                        seen.1 |= bit;
                        list.push(c.node);
                    }
                }
                if writers.is_empty() {
                    continue;
                }
                let producer = OutPort {
                    node: n,
                    index: o as u32,
                };
                for (k, &w) in writers.iter().enumerate() {
                    let others = writers[k + 1..]
                        .iter()
                        .map(|&x| (x, true))
                        .chain(readers.iter().map(|&r| (r, false)));
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

/// A private, dependency-free [`Reach`] in the spirit of GRAIL (Yildirim et al., VLDB 2010):
/// two depth-first post-order interval labels per node, each `[min post-order number among
/// the node's descendants, own post-order number]`. If `a` reaches `b`, `b`'s interval lies
/// inside `a`'s in every labelling, so most negative queries cost O(1); the rest, and the
/// positive ones, run a DFS that only enters nodes whose labels still contain `b` and whose
/// topological index is below `b`'s. Memory is O(nodes + edges) (a CSR successor list, the
/// labels, a visited-epoch array); building is O(nodes + edges).
pub struct DfsReach<'g> {
    g: &'g MemGraph,
    topo: Vec<u32>,
    succ_start: Vec<u32>,
    succ: Vec<NodeId>,
    labels: [Vec<(u32, u32)>; 2],
    mark: RefCell<Vec<u32>>,
    epoch: Cell<u32>,
    stack: RefCell<Vec<NodeId>>,
}

impl<'g> DfsReach<'g> {
    /// Build for `g` (normalised).
    pub fn new(g: &'g MemGraph) -> DfsReach<'g> {
        let n = g.nodes.len();
        let topo = g.topo_index();
        let mut succ_start = Vec::with_capacity(n + 1);
        let mut succ = Vec::new();
        for node in &g.nodes {
            succ_start.push(succ.len() as u32);
            if node.removed {
                continue;
            }
            succ.extend(
                node.outputs
                    .iter()
                    .flat_map(|o| o.consumers.iter().map(|c| c.node)),
            );
            succ.extend(node.ctrl_out.iter().copied());
        }
        succ_start.push(succ.len() as u32);
        let mut r = DfsReach {
            g,
            topo,
            succ_start,
            succ,
            labels: [vec![(0, 0); n], vec![(0, 0); n]],
            mark: RefCell::new(vec![0; n]),
            epoch: Cell::new(0),
            stack: RefCell::new(Vec::new()),
        };
        for (k, reversed) in [false, true].into_iter().enumerate() {
            r.labels[k] = r.label(reversed);
        }
        r
    }

    fn children(&self, n: NodeId) -> &[NodeId] {
        let (a, b) = (
            self.succ_start[n.0 as usize],
            self.succ_start[n.0 as usize + 1],
        );
        &self.succ[a as usize..b as usize]
    }

    /// One post-order labelling: roots and children in order, or both reversed.
    fn label(&self, reversed: bool) -> Vec<(u32, u32)> {
        let n = self.g.nodes.len();
        let mut post = vec![u32::MAX; n];
        let mut next = 0u32;
        let mut stack: Vec<(NodeId, usize)> = Vec::new();
        for gr in &self.g.graphs {
            let roots: Box<dyn Iterator<Item = &NodeId>> = if reversed {
                Box::new(gr.order.iter().rev())
            } else {
                Box::new(gr.order.iter())
            };
            for &root in roots {
                if post[root.0 as usize] != u32::MAX {
                    continue;
                }
                post[root.0 as usize] = u32::MAX - 1; // on the stack
                stack.push((root, 0));
                while let Some(&mut (v, ref mut k)) = stack.last_mut() {
                    let ch = self.children(v);
                    if *k < ch.len() {
                        let c = if reversed {
                            ch[ch.len() - 1 - *k]
                        } else {
                            ch[*k]
                        };
                        *k += 1;
                        if post[c.0 as usize] == u32::MAX {
                            post[c.0 as usize] = u32::MAX - 1;
                            stack.push((c, 0));
                        }
                    } else {
                        post[v.0 as usize] = next;
                        next += 1;
                        stack.pop();
                    }
                }
            }
        }
        // low(v) = min post-order number over v's descendants: children first, i.e. in
        // reverse topological order.
        let mut lab: Vec<(u32, u32)> = post.iter().map(|&p| (p, p)).collect();
        for gr in &self.g.graphs {
            for &v in gr.order.iter().rev() {
                let low = self
                    .children(v)
                    .iter()
                    .map(|c| lab[c.0 as usize].0)
                    .fold(lab[v.0 as usize].0, u32::min);
                lab[v.0 as usize].0 = low;
            }
        }
        lab
    }

    /// Necessary condition for `a` reaching `b`: `b`'s intervals inside `a`'s.
    fn may_reach(&self, a: NodeId, b: NodeId) -> bool {
        self.labels.iter().all(|lab| {
            let (la, ra) = lab[a.0 as usize];
            let (lb, rb) = lab[b.0 as usize];
            la <= lb && rb <= ra
        })
    }
}

impl Reach for DfsReach<'_> {
    fn reaches(&self, a: NodeId, b: NodeId) -> bool {
        if a == b {
            return true;
        }
        let g = self.g;
        let (ta, tb) = (self.topo[a.0 as usize], self.topo[b.0 as usize]);
        if g.node(a).graph != g.node(b).graph || ta >= tb || tb == u32::MAX {
            return false;
        }
        if !self.may_reach(a, b) {
            return false;
        }
        let epoch = self.epoch.get().wrapping_add(1);
        let mut mark = self.mark.borrow_mut();
        if epoch == 0 {
            mark.iter_mut().for_each(|m| *m = 0);
            self.epoch.set(1);
        } else {
            self.epoch.set(epoch);
        }
        let epoch = self.epoch.get();
        let mut stack = self.stack.borrow_mut();
        stack.clear();
        stack.push(a);
        mark[a.0 as usize] = epoch;
        while let Some(v) = stack.pop() {
            for &c in self.children(v) {
                if c == b {
                    return true;
                }
                let i = c.0 as usize;
                if mark[i] != epoch && self.topo[i] < tb && self.may_reach(c, b) {
                    mark[i] = epoch;
                    stack.push(c);
                }
            }
        }
        false
    }
}
