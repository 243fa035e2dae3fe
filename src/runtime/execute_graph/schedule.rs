//! The order a frame's nodes run in: gert's dependencies, and a schedule over them.
//!
//! A node runs once every node it depends on ran:
//! * the producers of its inputs (the data edges) and the nodes of its `after` (the
//!   compute graph's control edges);
//! * for a guarder, every other reader of the tensor it releases, or of a view of it (a
//!   Reshape or Phony output, which is its input's memory: gert's lowering hands such an
//!   op's consumers the input's address holder itself), except the graph's (inner)
//!   netoutput and other guarders. gert's `ValueHolder::CreateNode` adds a control
//!   edge from each node it creates to the guarder of each guarded input
//!   (`AddDependencyToGuarder`, `exe_graph/lowering/value_holder.cc`) and skips
//!   `NetOutput` / `InnerNetOutput` (`IsGraphOutType`). A reader inside a branch frame is
//!   ordered through its `cond`, which reads the tensor as its input, as gert orders it
//!   through the branch's ancestor in the guarder's graph;
//! * for a `CopyD2H`, the `SyncStream` of its source's producer (`AddDependency(sync,
//!   copy)` in `lowering/placement/placed_lowering_result.cc`).
//!
//! `ascend_rt` prints neither kind of control edge: both follow from the data edges by
//! these rules, the rules gert makes them by.
//!
//! Among the ready nodes, [`Schedule::Priority`] runs the first in node order (one fixed
//! priority; gert's executor orders ready kernels by priority) and [`Schedule::Random`] a
//! seeded random one. Every order either picks is one gert's rules allow, so a fault found
//! in any of them is a fault of the graph, not of the schedule.

use crate::dialect::table::{op_table, Trait};
use crate::rtgraph::{
    analysis::placement::{CopyKind, SYNC_STREAM},
    model::{Endpoint, Graph, Kind, NodeId},
};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// How ready nodes are picked.
pub enum Schedule {
    /// The first ready node in node order.
    Priority,
    /// A ready node drawn from the seeded generator.
    Random(Box<Pcg64>),
}

impl Schedule {
    /// `None`: [`Schedule::Priority`]; `Some(seed)`: a random schedule.
    pub fn new(seed: Option<u64>) -> Self {
        match seed {
            None => Schedule::Priority,
            Some(seed) => Schedule::Random(Box::new(Pcg64::seed_from_u64(seed))),
        }
    }
}

/// The lowering's rule (`rtgraph::lower`): a Phony or Reshape op's outputs are its inputs'
/// memory, so they get no buffer (and no guarder) of their own.
pub fn is_view(ge_type: &str) -> bool {
    op_table()
        .by_ge_type(ge_type)
        .is_some_and(|d| d.has_trait(Trait::Phony) || d.has_trait(Trait::Reshape))
}

/// For each node (by position), the positions of the nodes it waits for; `Err((position,
/// message))` for an input that names no node of the graph.
pub fn dependencies(graph: &Graph) -> Result<Vec<Vec<usize>>, (usize, String)> {
    let position: HashMap<NodeId, usize> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id, i))
        .collect();
    let mut waits: Vec<Vec<usize>> = vec![Vec::new(); graph.nodes.len()];
    // Readers of each endpoint that order its guarder, and the SyncStreams of each producer.
    let mut readers: HashMap<Endpoint, Vec<usize>> = HashMap::new();
    let mut syncs: HashMap<NodeId, Vec<usize>> = HashMap::new();
    // A view's outputs -> the tensors whose memory they are (nodes come after their
    // producers, so a view's inputs are resolved before it).
    let mut memory_of: HashMap<NodeId, Vec<Endpoint>> = HashMap::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        let orders_guarder = !matches!(
            node.kind,
            Kind::Guarder { .. } | Kind::InnerNetOutput | Kind::NetOutput
        );
        let mut memory = Vec::new();
        for e in &node.inputs {
            let Some(&p) = position.get(&e.node) else {
                return Err((
                    i,
                    format!("reads node #{}, which is not in this graph", e.node.0),
                ));
            };
            waits[i].push(p);
            let seen = memory_of.get(&e.node).cloned().unwrap_or_else(|| vec![*e]);
            if orders_guarder {
                for &m in &seen {
                    readers.entry(m).or_default().push(i);
                }
            }
            memory.extend(seen);
        }
        if matches!(&node.kind, Kind::Kernel { op_type } if is_view(op_type)) {
            memory_of.insert(node.id, memory);
        }
        for before in &node.after {
            let Some(&p) = position.get(before) else {
                return Err((
                    i,
                    format!("runs after node #{}, which is not in this graph", before.0),
                ));
            };
            waits[i].push(p);
        }
        if matches!(&node.kind, Kind::Kernel { op_type } if op_type == SYNC_STREAM) {
            for e in &node.inputs {
                syncs.entry(e.node).or_default().push(i);
            }
        }
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        match &node.kind {
            Kind::Guarder { release_index, .. } => {
                let released = usize::try_from(*release_index)
                    .ok()
                    .and_then(|k| node.inputs.get(k));
                if let Some(e) = released {
                    let before = readers.get(e).into_iter().flatten();
                    waits[i].extend(before.filter(|&&r| r != i));
                }
            }
            Kind::Kernel { op_type }
                if CopyKind::of_kernel(op_type).is_some_and(|k| k.needs_sync_stream()) =>
            {
                for e in &node.inputs {
                    waits[i].extend(syncs.get(&e.node).into_iter().flatten());
                }
            }
            _ => {}
        }
    }
    for w in &mut waits {
        w.sort_unstable();
        w.dedup();
    }
    Ok(waits)
}

/// The nodes whose dependencies all ran, and what each node waits for.
pub struct Ready {
    /// Per node, how many of its dependencies have not run.
    pending: Vec<u32>,
    /// Per node, the nodes waiting for it.
    waiting_for: Vec<Vec<usize>>,
    /// Ready nodes: a min-heap by position (priority), or a pool drawn at random.
    heap: BinaryHeap<Reverse<usize>>,
    pool: Vec<usize>,
    random: bool,
    /// Nodes not run yet.
    left: usize,
}

impl Ready {
    pub fn new(waits: &[Vec<usize>], schedule: &Schedule) -> Self {
        let mut waiting_for = vec![Vec::new(); waits.len()];
        for (i, w) in waits.iter().enumerate() {
            for &p in w {
                waiting_for[p].push(i);
            }
        }
        let mut ready = Ready {
            pending: waits.iter().map(|w| w.len() as u32).collect(),
            waiting_for,
            heap: BinaryHeap::new(),
            pool: Vec::new(),
            random: matches!(schedule, Schedule::Random(_)),
            left: waits.len(),
        };
        for (i, w) in waits.iter().enumerate() {
            if w.is_empty() {
                ready.push(i);
            }
        }
        ready
    }

    fn push(&mut self, node: usize) {
        if self.random {
            self.pool.push(node);
        } else {
            self.heap.push(Reverse(node));
        }
    }

    /// The next node to run, or `None` when none is ready.
    pub fn take(&mut self, schedule: &mut Schedule) -> Option<usize> {
        match schedule {
            Schedule::Random(rng) if self.random && !self.pool.is_empty() => {
                let k = rng.random_range(0..self.pool.len());
                Some(self.pool.swap_remove(k))
            }
            _ => self.heap.pop().map(|Reverse(n)| n),
        }
    }

    /// `node` ran: the nodes waiting for it may become ready.
    pub fn ran(&mut self, node: usize) {
        self.left -= 1;
        for k in 0..self.waiting_for[node].len() {
            let next = self.waiting_for[node][k];
            self.pending[next] -= 1;
            if self.pending[next] == 0 {
                self.push(next);
            }
        }
    }

    /// Nodes that never became ready (a dependency cycle), if any: the first by position.
    pub fn stuck(&self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.pending.iter().position(|&p| p > 0)
    }
}
