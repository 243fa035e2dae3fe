//! When each node runs, and which nodes are ordered before which: the two facts a static
//! memory plan needs to decide that two tensors may share memory.
//!
//! * [`Timeline`]: every node's position in one topological order of the whole model, GE's
//!   `GetAllNodes` order (each graph in order, a node followed by the nodes of its
//!   subgraphs). A node with subgraphs *spans* its subgraphs: it starts at its own position
//!   and ends at the position of the last node nested in it, since its subgraphs run while it
//!   runs. An anchor of a node lives over that span.
//! * [`Order`]: "is every effect of `u` finished before `d` starts". Without streams (no op
//!   carries `stream_id`, or all carry the same one) the timeline is the execution order
//!   and the answer is "`u` ends before `d` starts". With several streams, ops of different
//!   streams run concurrently unless a path of data edges, control edges, stream order
//!   (consecutive ops of one stream in `GetAllNodes` order, across graphs, as the
//!   per-stream task lists run them) or events (a Send to the Recv of the same event id)
//!   orders them; the answer then comes from the crate's chain-label
//!   [`Reachability`] index over exactly those edges, never from an N×N matrix.
//!
//! Subgraphs in the reachability graph: a node `p` with subgraphs gets a virtual end node
//! `p_end`. `p` precedes every source of its subgraphs, every sink of its subgraphs precedes
//! `p_end`, and `p`'s data and control edges leave from `p_end`. Stream order leaves from
//! `p` itself: on its stream, `p`'s own tasks are followed by the next task of that stream
//! (often a node of its subgraphs), not by the end of subgraph nodes on other streams —
//! GE's task lists and the stream allocator's happens-before work that way, so the plan
//! must not assume more (it would reuse memory a subgraph on another stream still reads).
//! For the same reason a use by a node with subgraphs is over once `p` has run: the
//! subgraphs' accesses to that memory are uses by their own nodes, checked one by one.

use super::super::model::{GraphId, MemError, MemGraph, NodeId, ROOT};
use crate::analysis::reachability::Reachability;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::HashMap;

/// Streams and events of an allocated model (after `--stream-alloc`).
#[derive(Clone, Debug, Default)]
pub struct StreamInfo {
    /// Physical stream (`stream_id`) of each node, indexed by [`NodeId`]; `None`: no stream
    /// (the op carries none, or runs no task on one: [`StreamInfo::task_stream`]). Shorter
    /// than the node list means `None` for the rest.
    pub stream: Vec<Option<i64>>,
    /// Event (and notify) links: a Send and the Recv of the same id.
    pub events: Vec<(NodeId, NodeId)>,
}

impl StreamInfo {
    /// No streams at all: one execution order.
    pub fn none() -> StreamInfo {
        StreamInfo::default()
    }

    /// The stream whose order a node takes part in, from its `stream_id` and its
    /// `_logic_stream_id`. A node the stream allocator left without a logical stream (-1:
    /// GE's input partition, the Data and Const sources) carries `stream_id` 0 (a fresh
    /// OpDesc's), but it runs no task on stream 0 and no event leaves it (events skip an
    /// invalid source stream), so it orders nothing: `None`. Taking its `stream_id` would
    /// put it in stream 0's order, and its data edge to an op on another stream would then
    /// claim that everything before it on stream 0 ran before that op: a path the task
    /// lists do not have, through which the plan reused memory still read on stream 0.
    pub fn task_stream(stream_id: Option<i64>, logical: Option<i64>) -> Option<i64> {
        match logical {
            Some(l) if l < 0 => None,
            _ => stream_id,
        }
    }

    /// The stream of `n`.
    pub fn of(&self, n: NodeId) -> Option<i64> {
        self.stream.get(n.0 as usize).copied().flatten()
    }

    /// Whether at least two different streams occur: only then can ops run concurrently.
    pub fn is_multi_stream(&self) -> bool {
        let mut first = None;
        for s in self.stream.iter().flatten() {
            match first {
                None => first = Some(*s),
                Some(f) if f != *s => return true,
                Some(_) => {}
            }
        }
        false
    }
}

/// Positions of the nodes in GE's `GetAllNodes` order (see the module doc).
#[derive(Clone, Debug)]
pub struct Timeline {
    /// Position of each node (`u32::MAX` for removed nodes), indexed by [`NodeId`].
    pub begin: Vec<u32>,
    /// Last position a node covers: its own for a plain node, the last node nested in its
    /// subgraphs for a node with subgraphs.
    pub end: Vec<u32>,
    /// Number of positions.
    pub len: u32,
}

impl Timeline {
    /// The timeline of a normalised model.
    pub fn new(g: &MemGraph) -> Timeline {
        let mut t = Timeline {
            begin: vec![u32::MAX; g.nodes.len()],
            end: vec![u32::MAX; g.nodes.len()],
            len: 0,
        };
        // Iterative pre-order walk (graphs can nest deeply): (graph, next index in order).
        let mut stack: Vec<(GraphId, usize, Option<NodeId>)> = vec![(ROOT, 0, None)];
        while let Some(&mut (gid, ref mut i, owner)) = stack.last_mut() {
            let order = &g.graph(gid).order;
            if *i == order.len() {
                stack.pop();
                if let Some(p) = owner {
                    // `p`'s last subgraph is done when the stack returns to its graph with no
                    // further subgraph of `p` pending; `end` is refreshed after each one.
                    t.end[p.0 as usize] = t.len.saturating_sub(1).max(t.begin[p.0 as usize]);
                }
                continue;
            }
            let n = order[*i];
            *i += 1;
            t.begin[n.0 as usize] = t.len;
            t.end[n.0 as usize] = t.len;
            t.len += 1;
            // Push subgraphs in reverse so the first one is walked first.
            for &sg in g.node(n).subgraphs.iter().rev() {
                stack.push((sg, 0, Some(n)));
            }
        }
        t
    }

    /// The span `[begin, end]` of node `n`.
    pub fn span(&self, n: NodeId) -> (u32, u32) {
        (self.begin[n.0 as usize], self.end[n.0 as usize])
    }
}

/// Which node's effects are finished before which other node starts (see the module doc).
pub struct Order<'g> {
    g: &'g MemGraph,
    timeline: &'g Timeline,
    streams: &'g StreamInfo,
    /// Built only with several streams.
    reach: Option<Reachability>,
    /// Node with subgraphs -> index of its virtual end node in the reachability graph.
    end_node: HashMap<NodeId, usize>,
}

impl<'g> Order<'g> {
    /// The order of `g` under `streams`. Fails when the graph has a cycle.
    pub fn new(
        g: &'g MemGraph,
        timeline: &'g Timeline,
        streams: &'g StreamInfo,
    ) -> Result<Order<'g>, MemError> {
        let mut order = Order {
            g,
            timeline,
            streams,
            reach: None,
            end_node: HashMap::new(),
        };
        if streams.is_multi_stream() {
            order.build_reach()?;
        }
        Ok(order)
    }

    /// Whether several streams make the order partial.
    pub fn multi_stream(&self) -> bool {
        self.reach.is_some()
    }

    /// The streams the order was built with.
    pub fn streams(&self) -> &StreamInfo {
        self.streams
    }

    /// The key under which uses of one piece of memory are summarised: within one graph and
    /// one stream, the latest use is ordered after every other (stream order).
    pub fn lane(&self, n: NodeId) -> (GraphId, Option<i64>) {
        (self.g.node(n).graph, self.streams.of(n))
    }

    /// Whether `u` (the last use of some memory) is finished before `d` (a writer of new
    /// data at the same address) starts. Callers only ask when `u` ends before `d` starts
    /// on the timeline.
    pub fn before(&self, u: NodeId, d: NodeId) -> bool {
        let Some(reach) = &self.reach else {
            return true;
        };
        if u == d {
            return false;
        }
        let (su, sd) = (self.streams.of(u), self.streams.of(d));
        let same_lane = su.is_some() && su == sd && self.g.node(u).graph == self.g.node(d).graph;
        if same_lane && self.timeline.end[u.0 as usize] < self.timeline.begin[d.0 as usize] {
            return true;
        }
        // A node with subgraphs uses memory with its own tasks, at its start; what its
        // subgraphs do with the same memory are uses of their own nodes (anchors of the
        // same symbol), asked about separately.
        reach.reaches_index(u.0 as usize, d.0 as usize)
    }

    /// The reachability index of the node where `n`'s effects end.
    fn exit_index(&self, n: NodeId) -> usize {
        self.end_node.get(&n).copied().unwrap_or(n.0 as usize)
    }

    /// Names a node on a cycle of `graph` (the error path only: one more sort).
    fn cycle_error(&self, graph: &DiGraph<(), ()>) -> MemError {
        const WHAT: &str = "the graph with its stream order and events has a cycle through \
                            this node (an event or stream order contradicts a data or control \
                            edge)";
        let Err(cycle) = petgraph::algo::toposort(graph, None) else {
            return MemError::global(WHAT);
        };
        let index = cycle.node_id().index();
        let node = if index < self.g.nodes.len() {
            Some(NodeId(index as u32))
        } else {
            self.end_node
                .iter()
                .find(|&(_, &end)| end == index)
                .map(|(&owner, _)| owner)
        };
        match node {
            Some(node) => MemError::at(self.g, node, WHAT),
            None => MemError::global(WHAT),
        }
    }

    fn build_reach(&mut self) -> Result<(), MemError> {
        let g = self.g;
        let mut next = g.nodes.len();
        for (i, node) in g.nodes.iter().enumerate() {
            if !node.removed && !node.subgraphs.is_empty() {
                self.end_node.insert(NodeId(i as u32), next);
                next += 1;
            }
        }
        let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(next, g.nodes.len() * 3);
        for _ in 0..next {
            graph.add_node(());
        }
        let mut edge = |a: usize, b: usize| {
            graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        };
        for (i, node) in g.nodes.iter().enumerate() {
            if node.removed {
                continue;
            }
            let n = NodeId(i as u32);
            let exit = self.exit_index(n);
            for out in &node.outputs {
                for c in &out.consumers {
                    edge(exit, c.node.0 as usize);
                }
            }
            for t in &node.ctrl_out {
                edge(exit, t.0 as usize);
            }
            if exit != i {
                edge(i, exit);
                for &sg in &node.subgraphs {
                    for &m in &g.graph(sg).order {
                        let inner = g.node(m);
                        let has_pred = inner.inputs.iter().any(|x| x.src.is_some())
                            || !inner.ctrl_in.is_empty();
                        let has_succ = inner.out_data_edges() > 0 || !inner.ctrl_out.is_empty();
                        if !has_pred {
                            edge(i, m.0 as usize);
                        }
                        if !has_succ {
                            edge(self.exit_index(m), exit);
                        }
                    }
                }
            }
        }
        for &(send, recv) in &self.streams.events {
            edge(self.exit_index(send), recv.0 as usize);
        }
        // Stream order: consecutive nodes of a stream in GetAllNodes (timeline) order.
        let mut flattened: Vec<NodeId> = vec![NodeId(u32::MAX); self.timeline.len as usize];
        for (i, &at) in self.timeline.begin.iter().enumerate() {
            if let Some(slot) = flattened.get_mut(at as usize) {
                *slot = NodeId(i as u32);
            }
        }
        let mut last: HashMap<i64, NodeId> = HashMap::new();
        for &n in &flattened {
            if n.0 == u32::MAX || g.node(n).removed {
                continue;
            }
            if let Some(s) = self.streams.of(n) {
                if let Some(prev) = last.insert(s, n) {
                    edge(prev.0 as usize, n.0 as usize);
                }
            }
        }
        let reach = Reachability::new(&graph).map_err(|_| self.cycle_error(&graph))?;
        self.reach = Some(reach);
        Ok(())
    }
}
