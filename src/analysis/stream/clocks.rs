//! Happens-before over streams, with vector clocks (beyond GE).
//!
//! Nodes on one stream run in order; a sync u→v makes v wait for u. The happens-before
//! relation is the transitive closure of both. Streams are few, so each node gets a vector
//! clock: for every stream, the latest position on it that must run before the node.
//! `GetAllNodes` order is a topological order of stream order plus every sync we plan
//! before the split (syncs follow graph edges, subgraph entries point into a subgraph that
//! comes right after its parent, subgraph exits point to the parent's later consumers), so
//! one pass computes all clocks in O(nodes × streams + syncs × streams) time. Memory stays
//! O((streams + live senders) × streams): only the running clock of each stream and a
//! snapshot per sender whose syncs are not yet consumed are kept.
//!
//! A sync u→v is *redundant* when v already waits for u without it. In a DAG all redundant
//! edges can be dropped at once (the transitive-reduction argument: each has another path,
//! and replacing dropped edges by their paths terminates because those paths span strictly
//! shorter topological intervals); duplicates of one pair are resolved by keeping the first.

use super::events::{EventOrigin, Side, SyncTable};
use super::model::*;

/// Which syncs take part: live, main stream on both sides, not a loop back edge, and
/// planned before the split unless `all_phases`.
fn takes_part(table: &SyncTable, i: usize, stream: &[StreamId], all_phases: bool) -> bool {
    let r = &table.recs[i];
    r.removed.is_none()
        && (all_phases || r.phase == 0)
        && r.origin != EventOrigin::LoopBack
        && r.send_side == Side::Main
        && r.recv_side == Side::Main
        && stream[r.send] >= 0
        && stream[r.recv] >= 0
}

struct Walk {
    streams: usize,
    pos: Vec<u32>,
}

impl Walk {
    fn new(order: &[NodeId], stream: &[StreamId], nodes: usize) -> Self {
        let streams = stream
            .iter()
            .copied()
            .max()
            .map_or(0, |m| (m + 1).max(0) as usize);
        let mut count = vec![0u32; streams];
        let mut pos = vec![0u32; nodes];
        for &n in order {
            if let Ok(s) = usize::try_from(stream[n]) {
                pos[n] = count[s];
                count[s] += 1;
            }
        }
        Walk { streams, pos }
    }
}

/// Runs the clock walk; `at_node(v, incoming, clocks)` sees, for each incoming sync index,
/// the sender's clock, and the clock of v's stream predecessor.
fn walk(
    order: &[NodeId],
    stream: &[StreamId],
    table: &SyncTable,
    all_phases: bool,
    mut at_node: impl FnMut(NodeId, &[(usize, &[u32])], &[u32], &Walk),
) {
    let w = Walk::new(order, stream, stream.len());
    let s_count = w.streams;
    let mut running: Vec<Vec<u32>> = vec![vec![0; s_count]; s_count];
    let mut pending: Vec<u32> = vec![0; stream.len()];
    for (i, r) in table.recs.iter().enumerate() {
        if takes_part(table, i, stream, all_phases) {
            pending[r.send] += 1;
        }
    }
    let mut snaps: Vec<Option<Box<[u32]>>> = vec![None; stream.len()];
    let mut incoming: Vec<usize> = Vec::new();
    for &v in order {
        let Ok(s) = usize::try_from(stream[v]) else {
            continue;
        };
        incoming.clear();
        incoming.extend(
            table
                .recvs(v)
                .iter()
                .copied()
                .filter(|&i| takes_part(table, i, stream, all_phases)),
        );
        {
            let inc: Vec<(usize, &[u32])> = incoming
                .iter()
                .map(|&i| (i, snaps[table.recs[i].send].as_deref().unwrap_or(&[])))
                .collect();
            at_node(v, &inc, &running[s], &w);
        }
        // Merge into v's clock (in place on its stream's running clock).
        for &i in &incoming {
            let u = table.recs[i].send;
            if let Some(snap) = snaps[u].as_deref() {
                let run = &mut running[s];
                for (a, &b) in run.iter_mut().zip(snap.iter()) {
                    if b > *a {
                        *a = b;
                    }
                }
            }
            pending[u] -= 1;
            if pending[u] == 0 {
                snaps[u] = None;
            }
        }
        running[s][s] = w.pos[v] + 1;
        if pending[v] > 0 {
            snaps[v] = Some(running[s].clone().into_boxed_slice());
        }
    }
}

/// Live main-stream syncs planned before the split that are implied by stream order plus
/// the other syncs; dropping all of them at once keeps the happens-before relation.
pub fn redundant_syncs(order: &[NodeId], stream: &[StreamId], table: &SyncTable) -> Vec<usize> {
    redundant(order, stream, table, false)
}

/// The same over every phase: pass the physical streams, and the split events take part
/// (a check that the final event set is the transitive reduction on the physical streams).
pub fn redundant_syncs_physical(
    order: &[NodeId],
    physical: &[StreamId],
    table: &SyncTable,
) -> Vec<usize> {
    redundant(order, physical, table, true)
}

/// Which stream edges `pre → n` (consecutive nodes of one logical stream, where the split
/// cuts) are implied by the other edges: some sync into `n` comes from a node that already
/// runs after `pre`. The walk is on the logical streams with the syncs planned before the
/// split, the relation the split must keep. Dropping the events of every implied cut at
/// once keeps it (a transitive-reduction argument over the logical happens-before graph,
/// whose edges are stream order and syncs; the cut edges are among the stream edges).
pub fn implied_cuts(
    order: &[NodeId],
    stream: &[StreamId],
    table: &SyncTable,
    cuts: &[(NodeId, NodeId)],
) -> Vec<bool> {
    let mut at: FastMap<NodeId, Vec<usize>> = FastMap::default();
    for (i, &(_, n)) in cuts.iter().enumerate() {
        at.entry(n).or_default().push(i);
    }
    let mut out = vec![false; cuts.len()];
    walk(order, stream, table, false, |v, inc, _, w| {
        let Some(list) = at.get(&v) else {
            return;
        };
        for &i in list {
            let pre = cuts[i].0;
            let Ok(s) = usize::try_from(stream[pre]) else {
                continue;
            };
            let need = w.pos[pre] + 1;
            out[i] = inc
                .iter()
                .any(|&(_, clock)| clock.get(s).is_some_and(|&c| c >= need));
        }
    });
    out
}

fn redundant(
    order: &[NodeId],
    stream: &[StreamId],
    table: &SyncTable,
    all_phases: bool,
) -> Vec<usize> {
    let mut out = Vec::new();
    walk(order, stream, table, all_phases, |_, inc, base, w| {
        for (k, &(i, _)) in inc.iter().enumerate() {
            let u = table.recs[i].send;
            let su = stream[u] as usize;
            let need = w.pos[u] + 1;
            let mut implied = base.get(su).is_some_and(|&b| b >= need);
            for (j, &(i2, clock)) in inc.iter().enumerate() {
                if implied {
                    break;
                }
                if j == k {
                    continue;
                }
                let u2 = table.recs[i2].send;
                if u2 == u {
                    // A duplicate of the same pair: the first one stays.
                    implied = j < k;
                } else {
                    implied = clock.get(su).is_some_and(|&c| c >= need);
                }
            }
            if implied {
                out.push(i);
            }
        }
    });
    out
}

/// Dependencies `(u, v)` (u before v) that stream order plus the live syncs do not cover.
/// Nodes without a stream impose nothing. With `all_phases` the split events count too
/// (pass the physical streams then).
pub fn uncovered(
    order: &[NodeId],
    stream: &[StreamId],
    table: &SyncTable,
    deps: &[(NodeId, NodeId)],
    all_phases: bool,
) -> Vec<(NodeId, NodeId)> {
    let mut by_dst: Vec<Vec<NodeId>> = vec![Vec::new(); stream.len()];
    for &(u, v) in deps {
        if stream[u] >= 0 && stream[v] >= 0 {
            by_dst[v].push(u);
        }
    }
    let mut out = Vec::new();
    walk(order, stream, table, all_phases, |v, inc, base, w| {
        for &u in &by_dst[v] {
            let su = stream[u] as usize;
            let need = w.pos[u] + 1;
            let covered = (su == stream[v] as usize && w.pos[u] < w.pos[v])
                || base.get(su).is_some_and(|&b| b >= need)
                || inc
                    .iter()
                    .any(|&(_, c)| c.get(su).is_some_and(|&x| x >= need));
            if !covered {
                out.push((u, v));
            }
        }
    });
    out
}
