//! Physical split (notes C.8): a logical stream holds at most `max_task` tasks minus GE's
//! reserve of 27; when a node would pass that, it and the rest of its logical stream move to
//! a new physical stream, with an event from the previous node.
//!
//! Task count of a node on a stream: `_node_sqe_num`; else for HCCL ops `_hccl_task_num`
//! (main) or `_hccl_attached_task_num` (attached); else the generated tasks (the view's
//! `task_count`, default 1). The Send/Recv nodes the allocation plans are counted with the
//! node they belong to (a Send 1 task, a Recv 2: wait and reset), so a node and its sync
//! nodes never split apart — a documented simplification of GE, which walks them as nodes.
//! StreamActive nodes reserve one task per physical stream each activated stream becomes.
//!
//! Deviation from GE, on purpose: a stream is not split at the first node of a subgraph
//! that directly follows its control-flow parent on the stream (see [`split_streams`]);
//! the split happens one node later, so that stream may hold one node's tasks more.
//!
//! Deviation from GE, on purpose: when a split point carries `_continuous_stream_label`, GE
//! counts the split node twice in the new stream's counter; we count it once.

use super::activation::Activation;
use super::events::{EventOrigin, Side, SyncTable};
use super::model::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What the split decided.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SplitResult {
    /// False when the runtime splits (unlimited stream depth) or the graph is dynamic.
    pub applied: bool,
    /// Single-stream mode above the normal limit: stream 0 is a huge stream.
    pub huge_stream: bool,
    /// The per-stream task limit used.
    pub max_task: i64,
    /// New physical ids per logical stream id.
    pub split_streams: Vec<BTreeSet<StreamId>>,
    /// Physical id → logical id, for every stream in use.
    pub physical_to_logical: BTreeMap<StreamId, StreamId>,
    /// First node of each new physical stream.
    pub split_first_node: BTreeMap<StreamId, NodeId>,
    /// Tasks per physical stream.
    pub stream_tasks: BTreeMap<StreamId, i64>,
}

/// GE's `GetAssignedTaskNum` without the Recv bonus (Recv nodes are counted below).
fn assigned_tasks(node: &Node, attached: bool) -> i64 {
    if let Some(n) = node.attrs().node_sqe_num {
        return n;
    }
    if node.is_hccl() {
        let v = if attached {
            node.attrs().hccl_attached_task_num
        } else {
            node.attrs().hccl_task_num
        };
        return v.unwrap_or(0);
    }
    0
}

/// Tasks per (node, logical stream), sync nodes included, in one flat table: node `n`'s
/// entries are `items[start[n]..start[n + 1]]`, sorted by stream.
struct Tasks {
    start: Vec<usize>,
    items: Vec<(StreamId, i64)>,
}

impl Tasks {
    fn build(
        sg: &StreamGraph,
        stream: &[StreamId],
        attached: &[Vec<StreamId>],
        table: &SyncTable,
    ) -> Self {
        let mut t = Tasks {
            start: Vec::with_capacity(sg.nodes().len() + 1),
            items: Vec::with_capacity(sg.nodes().len()),
        };
        for n in 0..sg.nodes().len() {
            let begin = t.items.len();
            t.start.push(begin);
            let node = sg.node(n);
            let main = stream[n];
            if main != INVALID_STREAM {
                let a = assigned_tasks(node, false);
                t.items.push((
                    main,
                    if a > 0 {
                        a
                    } else {
                        node.attrs().task_count.unwrap_or(1)
                    },
                ));
            }
            for &s in &attached[n] {
                let a = assigned_tasks(node, true);
                t.items.push((s, if a > 0 { a } else { 1 }));
            }
            let side_stream = |side: Side| -> Option<StreamId> {
                match side {
                    Side::Main => (main != INVALID_STREAM).then_some(main),
                    Side::Attached => attached[n].first().copied(),
                    Side::AttachedStream(s) | Side::Physical(s) => Some(s),
                }
            };
            let sends = table.sends(n).iter().map(|&i| (table.recs[i].send_side, 1));
            let recvs = table.recvs(n).iter().map(|&i| (table.recs[i].recv_side, 2));
            for (side, cost) in sends.chain(recvs) {
                let Some(s) = side_stream(side) else {
                    continue;
                };
                match t.items[begin..].iter_mut().find(|e| e.0 == s) {
                    Some(e) => e.1 += cost,
                    None => t.items.push((s, cost)),
                }
            }
            t.items[begin..].sort_by_key(|e| e.0);
        }
        t.start.push(t.items.len());
        t
    }
    fn of(&self, n: NodeId) -> &[(StreamId, i64)] {
        &self.items[self.start[n]..self.start[n + 1]]
    }
    fn get(&self, n: NodeId, s: StreamId) -> Option<i64> {
        self.of(n).iter().find(|e| e.0 == s).map(|e| e.1)
    }
    fn set(&mut self, n: NodeId, s: StreamId, v: i64) {
        let range = self.start[n]..self.start[n + 1];
        if let Some(e) = self.items[range].iter_mut().find(|e| e.0 == s) {
            e.1 = v;
        }
    }
}

/// Runs `AssignSingleStream` and `SplitStreams`; updates `stream`/`attached` to physical
/// ids, adds split events to `table` (phase 1) and updates activation lists.
#[allow(clippy::too_many_arguments)]
pub fn split_streams(
    sg: &StreamGraph,
    order: &[NodeId],
    labels: &[Label],
    opts: &StreamOptions,
    main_stream_num: i64,
    stream_num: &mut i64,
    stream: &mut [StreamId],
    attached: &mut [Vec<StreamId>],
    table: &mut SyncTable,
    act: &mut Activation,
) -> Result<SplitResult, StreamError> {
    let mut res = SplitResult {
        max_task: opts.max_task_normal,
        ..Default::default()
    };
    let mut tasks = Tasks::build(sg, stream, attached, table);
    // AssignSingleStream.
    if opts.single_stream {
        if main_stream_num > 1 {
            return Err(StreamError::new(
                ErrorKind::Split,
                format!("single-stream mode produced {main_stream_num} main streams, only one is supported"),
            ));
        }
        let estimate: i64 = tasks.items.iter().map(|e| e.1).sum::<i64>() + RESERVED_TASK_NUM;
        if estimate > opts.max_task_normal && opts.huge_stream_supported {
            res.huge_stream = true;
            res.max_task = opts.max_task_huge;
        }
    }
    let max = res.max_task;
    let streams = usize::try_from(*stream_num).unwrap_or(0);
    // CollectTaskSize: reserve a task per physical stream an activated stream becomes.
    let mut total: BTreeMap<StreamId, i64> = BTreeMap::new();
    for &(s, t) in &tasks.items {
        *total.entry(s).or_insert(0) += t;
    }
    let real_num = |s: &StreamId| total.get(s).map_or(0, |&t| (t + max - 1) / max);
    for &n in order {
        if sg.node(n).is(NodeKind::STREAM_ACTIVE) && stream[n] != INVALID_STREAM {
            let reserve: i64 = act
                .active_streams
                .get(&n)
                .into_iter()
                .flatten()
                .map(real_num)
                .sum();
            tasks.set(n, stream[n], reserve);
        }
    }

    res.split_streams = vec![BTreeSet::new(); streams];
    let mut counter = vec![0i64; streams];
    let mut pre_node: Vec<Option<NodeId>> = vec![None; streams];
    let mut added = vec![0usize; streams];
    let mut latest: Vec<StreamId> = (0..streams as i64).collect();
    let mut on_stream: Vec<Vec<NodeId>> = vec![Vec::new(); streams];
    let mut continuous: BTreeMap<String, Vec<NodeId>> = BTreeMap::new();
    let mut last_stream = *stream_num - 1;
    let logical_main: Vec<StreamId> = stream.to_vec();
    let logical_attached: Vec<Vec<StreamId>> = attached.to_vec();
    for s in 0..*stream_num {
        res.physical_to_logical.insert(s, s);
    }
    for &n in order {
        let node = sg.node(n);
        for &(s, t) in tasks.of(n) {
            let Ok(si) = usize::try_from(s) else {
                continue;
            };
            if si >= streams {
                return Err(StreamError::new(
                    ErrorKind::Split,
                    format!("stream {s} is beyond the stream count"),
                )
                .at(&node.name));
            }
            let for_attached = logical_main[n] != s;
            let first = counter[si] == 0;
            counter[si] += t;
            on_stream[si].push(n);
            if let Some(l) = &node.attrs().continuous_stream_label {
                continuous.entry(l.clone()).or_default().push(n);
            }
            // Beyond GE's exempt kinds: the first node of a subgraph right after its own
            // control-flow parent on this stream. GE splits there with an event sent after
            // the parent's own tasks; in this IR a Send after the parent waits for the
            // parent's end, which waits for its subgraphs: a deadlock. The split moves
            // to the next node instead.
            let exempt = !node.subgraphs().is_empty()
                || node.attrs().subgraph_first_active
                || node.is(NodeKind::RTS_LABEL)
                || pre_node[si].is_some_and(|p| sg.is_ancestor(p, n));
            if !first && counter[si] + RESERVED_TASK_NUM > max && !exempt {
                last_stream += 1;
                let mut send = pre_node[si];
                counter[si] = t;
                let mut recv = n;
                if let Some(l) = &node.attrs().continuous_stream_label {
                    let group = continuous.get(l).cloned().unwrap_or_default();
                    for &m in &group {
                        set_stream(
                            stream,
                            attached,
                            &logical_attached,
                            m,
                            s,
                            last_stream,
                            for_attached,
                        );
                        if m != n {
                            counter[si] += tasks.get(m, s).unwrap_or(0);
                        }
                    }
                    let Some(&head) = group.first() else {
                        return Err(StreamError::new(
                            ErrorKind::Split,
                            format!("continuous stream label `{l}` has no nodes"),
                        )
                        .at(&node.name));
                    };
                    let at = on_stream[si].iter().position(|&m| m == head);
                    match at {
                        Some(i) if i > 0 => send = Some(on_stream[si][i - 1]),
                        _ => {
                            return Err(StreamError::new(
                                ErrorKind::Split,
                                format!("cannot split stream {s} before the first node of continuous stream label `{l}`"),
                            )
                            .at(&node.name))
                        }
                    }
                    recv = head;
                }
                added[si] += 1;
                let pre_stream = latest[si];
                latest[si] = last_stream;
                res.split_streams[si].insert(last_stream);
                res.physical_to_logical.insert(last_stream, s);
                res.split_first_node.insert(last_stream, n);
                if let Some(send) = send {
                    let (ss, rs) = if for_attached {
                        (Side::Physical(pre_stream), Side::Physical(last_stream))
                    } else {
                        (Side::Main, Side::Main)
                    };
                    table.add(
                        super::events::SyncKind::Event,
                        send,
                        recv,
                        ss,
                        rs,
                        EventOrigin::StreamSplit,
                        1,
                    );
                }
            }
            if added[si] >= 1 {
                set_stream(
                    stream,
                    attached,
                    &logical_attached,
                    n,
                    s,
                    latest[si],
                    for_attached,
                );
            }
            pre_node[si] = Some(n);
        }
    }
    *stream_num = last_stream + 1;
    let max_streams = if res.huge_stream {
        opts.max_stream_huge
    } else {
        opts.max_stream_normal
    };
    if *stream_num > max_streams {
        return Err(StreamError::new(
            ErrorKind::TooManyStreams,
            format!(
                "{} streams needed after splitting at {max} tasks per stream, the limit is {max_streams}",
                *stream_num
            ),
        ));
    }
    act.update_after_split(
        sg,
        order,
        labels,
        stream,
        stream_num,
        &res.split_streams,
        &res.split_first_node,
        table,
    )?;
    for &n in order {
        for &(s, t) in tasks.of(n) {
            let phys = physical_of(stream, attached, &logical_attached, n, s, logical_main[n]);
            *res.stream_tasks.entry(phys).or_insert(0) += t;
        }
    }
    for p in &act.planned {
        res.physical_to_logical.entry(p.stream).or_insert(p.stream);
    }
    res.applied = true;
    Ok(res)
}

/// Sets node `n`'s stream that was logical `s` to `new`.
fn set_stream(
    stream: &mut [StreamId],
    attached: &mut [Vec<StreamId>],
    logical_attached: &[Vec<StreamId>],
    n: NodeId,
    s: StreamId,
    new: StreamId,
    for_attached: bool,
) {
    if for_attached {
        if let Some(i) = logical_attached[n].iter().position(|&a| a == s) {
            attached[n][i] = new;
        }
    } else {
        stream[n] = new;
    }
}

fn physical_of(
    stream: &[StreamId],
    attached: &[Vec<StreamId>],
    logical_attached: &[Vec<StreamId>],
    n: NodeId,
    s: StreamId,
    logical_main: StreamId,
) -> StreamId {
    if s == logical_main {
        stream[n]
    } else {
        logical_attached[n]
            .iter()
            .position(|&a| a == s)
            .map_or(s, |i| attached[n][i])
    }
}
