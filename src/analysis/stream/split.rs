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
    if let Some(n) = node.attrs.node_sqe_num {
        return n;
    }
    if node.is_hccl() {
        let v = if attached {
            node.attrs.hccl_attached_task_num
        } else {
            node.attrs.hccl_task_num
        };
        return v.unwrap_or(0);
    }
    0
}

/// Tasks of every (logical stream → count) a node occupies, sync nodes included.
fn node_tasks(
    sg: &StreamGraph,
    n: NodeId,
    stream: &[StreamId],
    attached: &[Vec<StreamId>],
    table: &SyncTable,
) -> BTreeMap<StreamId, i64> {
    let node = sg.node(n);
    let mut m = BTreeMap::new();
    let main = stream[n];
    if main != INVALID_STREAM {
        let a = assigned_tasks(node, false);
        let own = if a > 0 {
            a
        } else {
            node.attrs.task_count.unwrap_or(1)
        };
        m.insert(main, own);
    }
    for &s in &attached[n] {
        let a = assigned_tasks(node, true);
        m.insert(s, if a > 0 { a } else { 1 });
    }
    let side_stream = |side: Side| -> Option<StreamId> {
        match side {
            Side::Main => (main != INVALID_STREAM).then_some(main),
            Side::Attached => attached[n].first().copied(),
            Side::AttachedStream(s) | Side::Physical(s) => Some(s),
        }
    };
    for &i in table.sends(n) {
        if let Some(s) = side_stream(table.recs[i].send_side) {
            *m.entry(s).or_insert(0) += 1;
        }
    }
    for &i in table.recvs(n) {
        if let Some(s) = side_stream(table.recs[i].recv_side) {
            *m.entry(s).or_insert(0) += 2;
        }
    }
    m
}

/// Runs `AssignSingleStream` and `SplitStreams`; updates `stream`/`attached` to physical
/// ids, adds split events to `table` (phase 1) and updates activation lists.
#[allow(clippy::too_many_arguments)]
pub fn split_streams(
    sg: &StreamGraph,
    order: &[NodeId],
    labels: &[Option<String>],
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
    let tasks: Vec<BTreeMap<StreamId, i64>> = (0..sg.nodes().len())
        .map(|n| node_tasks(sg, n, stream, attached, table))
        .collect();
    // AssignSingleStream.
    if opts.single_stream {
        if main_stream_num > 1 {
            return Err(StreamError::new(
                ErrorKind::Split,
                format!("single-stream mode produced {main_stream_num} main streams, only one is supported"),
            ));
        }
        let estimate: i64 = tasks.iter().flat_map(|m| m.values()).sum::<i64>() + RESERVED_TASK_NUM;
        if estimate > opts.max_task_normal && opts.huge_stream_supported {
            res.huge_stream = true;
            res.max_task = opts.max_task_huge;
        }
    }
    let max = res.max_task;
    let streams = usize::try_from(*stream_num).unwrap_or(0);
    // CollectTaskSize: reserve a task per physical stream an activated stream becomes.
    let mut total: BTreeMap<StreamId, i64> = BTreeMap::new();
    for m in &tasks {
        for (&s, &t) in m {
            *total.entry(s).or_insert(0) += t;
        }
    }
    let real_num = |s: &StreamId| total.get(s).map_or(0, |&t| (t + max - 1) / max);
    let mut tasks = tasks;
    for &n in order {
        if sg.node(n).ty == "StreamActive" && stream[n] != INVALID_STREAM {
            let reserve: i64 = act
                .active_streams
                .get(&n)
                .into_iter()
                .flatten()
                .map(real_num)
                .sum();
            tasks[n].insert(stream[n], reserve);
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
        for (&s, &t) in &tasks[n] {
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
            if let Some(l) = &node.attrs.continuous_stream_label {
                continuous.entry(l.clone()).or_default().push(n);
            }
            let exempt = !node.subgraphs().is_empty()
                || node.attrs.subgraph_first_active
                || matches!(
                    node.ty.as_str(),
                    "LabelSet" | "LabelGotoEx" | "LabelSwitchByIndex"
                );
            if !first && counter[si] + RESERVED_TASK_NUM > max && !exempt {
                last_stream += 1;
                let mut send = pre_node[si];
                counter[si] = t;
                let mut recv = n;
                if let Some(l) = &node.attrs.continuous_stream_label {
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
                            counter[si] += tasks[m].get(&s).copied().unwrap_or(0);
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
        for (&s, &t) in &tasks[n] {
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
