//! Beyond GE: a subgraph's entry node onto the parent stream.
//!
//! In a subgraph, GE's input partition (the subgraph's Data and Const nodes) has no stream,
//! so an engine subgraph fed only by it has no producer to reuse in `AssignByDependency` and
//! opens a stream of its own whenever its engine is not the first of the graph's engine
//! blocks. SubgraphPass puts an RTS copy right after every While body's Data nodes, so each
//! While body asks for one more stream: a chain of N loops needs N streams, above the
//! device's limit for large N. `OptimizeIneffectiveMultiStream` does not move such a node,
//! because it has no input on another stream to sit behind.
//!
//! This rule is that pass with the subgraph's start as the missing input: a node whose every
//! producer (data and control) has no stream, whose consumers all run on the parent's stream
//! S, and whose earliest consumer is the graph's first node on S, moves onto S. It then sits
//! directly before that consumer, which waited for it anyway. What precedes it on S is the
//! parent graph up to the control-flow node and earlier sibling subgraphs (a While's cond,
//! an If's other branch), and no task of a subgraph starts before the parent stream reaches
//! the control-flow node (its label or first-active StreamActive), so the move adds no
//! ordering that was not already there, and the events are derived from the final streams
//! as for every other node. It saves a stream and the events into and out of it.
//!
//! Off with the option `subgraph-entry-parent=false` (GE's streams).

use super::model::*;

/// A node to move onto the parent stream, and its earliest consumer there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct EntryMove {
    pub node: NodeId,
    pub consumer: NodeId,
}

/// The moves for graph `g` whose parent node is on stream `parent`, given the streams so
/// far (`stream`), the global topological ids (`topo`) and which nodes the rule must leave
/// alone (`pinned`: labels, `NewStreamId`, `_parallel_group`). A graph with a labelled node
/// on the parent stream is left as GE leaves it, as `OptimizeIneffectiveMultiStream` does
/// with label streams. Moves are returned in graph order; each one is already taken into
/// account for the next (the first node on S changes).
pub(super) fn entry_moves(
    sg: &StreamGraph,
    g: GraphId,
    parent: StreamId,
    stream: &[StreamId],
    topo: &[usize],
    labelled: impl Fn(NodeId) -> bool,
    pinned: impl Fn(NodeId) -> bool,
) -> Vec<EntryMove> {
    let mut moves = Vec::new();
    if parent == INVALID_STREAM {
        return moves;
    }
    let nodes = &sg.graph(g).nodes;
    let on_parent = |n: &&NodeId| stream[**n] == parent;
    if nodes.iter().filter(on_parent).any(|&n| labelled(n)) {
        return moves;
    }
    let Some(mut first) = nodes.iter().filter(on_parent).map(|&n| topo[n]).min() else {
        return moves;
    };
    for &n in nodes {
        let node = sg.node(n);
        let cur = stream[n];
        if cur == INVALID_STREAM
            || cur == parent
            || pinned(n)
            || !node.subgraphs().is_empty()
            || node.in_all().any(|p| stream[p] != INVALID_STREAM)
        {
            continue;
        }
        let mut earliest: Option<NodeId> = None;
        let mut all_on_parent = true;
        for c in node.out_all().filter(|&c| stream[c] != INVALID_STREAM) {
            if stream[c] != parent {
                all_on_parent = false;
                break;
            }
            if earliest.is_none_or(|e| topo[c] < topo[e]) {
                earliest = Some(c);
            }
        }
        let Some(consumer) = earliest.filter(|_| all_on_parent) else {
            continue;
        };
        if topo[consumer] == first && topo[n] < first {
            moves.push(EntryMove { node: n, consumer });
            first = topo[n];
        }
    }
    moves
}
