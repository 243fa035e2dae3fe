//! Physical split (notes C.8): a physical stream holds at most `max_task` tasks minus GE's
//! reserve of 27 (the *usable* limit); when a node would pass it, the node and the rest of
//! its logical stream move to a new physical stream, with an event from the previous node.
//!
//! Tasks are counted as GE counts them and as `--lower-to-tasks` emits them, per physical
//! stream: a node's own tasks (`_node_sqe_num`; else for HCCL ops `_hccl_task_num` (main) or
//! `_hccl_attached_task_num` (attached); else the view's `task_count`, default 1; a
//! control-flow node's `task_count` is its labels and boundary copies, filled by the IR
//! layer); every Send one task (EVENT_RECORD), every Recv two (EVENT_WAIT, EVENT_RESET), a
//! notify one each; a StreamActive one per stream it activates; and for each subgraph, per
//! stream its nodes use other than its parent's, one StreamActive and a join (EVENT_WAIT +
//! EVENT_RESET) on the parent's stream and one EVENT_RECORD on that stream.
//! [`split_streams`] decides with these counts and leaves one slot for the Send a later split
//! adds; [`physical_task_counts`] recounts the final assignment, and a stream over the
//! usable limit is an error, never a result, unless it holds a single split point.
//!
//! A limit too small for a node, GE's way: GE neither clamps nor fails. Its
//! `NeedSpiltNewStream` (`task count + kReservedTaskNum > max`) never splits at the first
//! node of a stream, so a node larger than the usable limit gets a stream of its own, over
//! the limit; under a limit at or below the reserve the test holds for every node, and each
//! split point opens a stream (one node per stream). We do the same: such a stream holds
//! one split point ([`overfull_streams`] tells it from a stream a split could have made
//! smaller, which is the error).
//!
//! Where a split lands, beyond GE (the README's "Design decisions" says why):
//! * A stream opened inside a subgraph belongs to that subgraph: when the walk leaves the
//!   subgraph, its logical stream goes back to the physical stream it had on entry. GE's
//!   rule (every later node of the logical stream moves) would put the rest of one branch
//!   and the other branches of an If/Case on one stream that their labels do not skip.
//! * The split event comes from the last node of the same graph (a node inside a nested
//!   subgraph counts as its control-flow ancestor in that graph). When the graph has none
//!   on the stream, no event is needed: the new stream is activated at the subgraph's start,
//!   after the parent's inputs. So no event ever joins two exclusive branches (whose Send
//!   would never run when only the receiving branch does), and splitting at the first node
//!   of a subgraph, which GE allows, is no deadlock.
//! * The subgraphs of a control-flow node that do not fit beside it on its stream each get
//!   a stream of their own from their first node, with the activations and joins reserved
//!   on the node's stream. A PartitionedCall whose body would not fit a stream of its own
//!   is the exception: its body continues on the call's stream and splits where that fills
//!   up, keeping room there for the first split's activation and join (a further split
//!   of the body's own nodes has its three reserved at the call). Moving such a body gains
//!   nothing, and down a chain of nested calls a fresh stream per body would open one per
//!   level (GE inlines calls before it splits).
//! * A node with subgraphs may be a split point (its labels go with it; GE exempts it
//!   because there it has no tasks of its own). RTS label nodes and `_subgraph_first_active`
//!   nodes stay exempt as in GE; such a node that does not fit stays on its stream.
//! * When a split point carries `_continuous_stream_label`, GE counts the split node twice in
//!   the new stream's counter; we count it once. A group whose first node already opens
//!   its stream does not move again (GE would move it to one more stream).

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
    /// The subgraph each stream opened inside a subgraph belongs to (the lowering activates
    /// it at that subgraph's start and joins it at its end).
    pub split_owner: BTreeMap<StreamId, GraphId>,
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

/// A node's own tasks on its main stream (`attached`: on each attached stream), syncs
/// aside: the assigned count, else the view's `task_count` (default 1) on the main stream
/// and one on an attached stream.
fn own_tasks(node: &Node, attached: bool) -> i64 {
    match assigned_tasks(node, attached) {
        a if a > 0 => a,
        _ if attached => 1,
        _ => node.attrs().task_count.unwrap_or(1),
    }
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
                t.items.push((main, own_tasks(node, false)));
            }
            for &s in &attached[n] {
                t.items.push((s, own_tasks(node, true)));
            }
            let side_stream = |side: Side| -> Option<StreamId> {
                match side {
                    Side::Main => (main != INVALID_STREAM).then_some(main),
                    Side::Attached => attached[n].first().copied(),
                    Side::AttachedStream(s) | Side::Physical(s) => Some(s),
                }
            };
            let sends = table.sends(n).iter().map(|&i| (table.recs[i].send_side, 1));
            let recvs = table.recvs(n).iter().map(|&i| {
                let wait = match table.recs[i].kind {
                    super::events::SyncKind::Event => 2,
                    super::events::SyncKind::Notify => 1,
                };
                (table.recs[i].recv_side, wait)
            });
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

/// The node placed on a logical stream just before the first entry of `head` in `placed`
/// (that stream's nodes in walk order), if any. The head of a split is the node being
/// placed or the first of its continuous group, so it sits near the end: searching from
/// the end keeps a stream of n nodes with k splits at O(k) rather than O(n k) (the search
/// from the front was 1 s of a 1M-op control-flow compile). A node's entries on one stream
/// are adjacent (they are pushed in one step), so stepping back over them finds the first.
fn node_before(placed: &[NodeId], head: NodeId) -> Option<NodeId> {
    let mut at = placed.iter().rposition(|&m| m == head)?;
    while at > 0 && placed[at - 1] == head {
        at -= 1;
    }
    at.checked_sub(1).map(|i| placed[i])
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
    tighten: i64,
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
    // `tighten`: a retry's margin when the final recount found a stream over its limit.
    // At or under GE's reserve the usable limit is not positive and every node that may
    // start a stream starts one (GE's `NeedSpiltNewStream` holds for each of them).
    let usable = usable_tasks(max) - tighten;
    let streams = usize::try_from(*stream_num).unwrap_or(0);
    // Subgraph boundaries: a control-flow node's stream gets, per stream of its subgraphs
    // other than its own, an activation and a join (counted with the node, so its split
    // decision includes them); that stream gets the join's record.
    add_boundary_tasks(sg, stream, &mut tasks);
    // CollectTaskSize: reserve a task per physical stream an activated stream becomes.
    let mut total: BTreeMap<StreamId, i64> = BTreeMap::new();
    for &(s, t) in &tasks.items {
        *total.entry(s).or_insert(0) += t;
    }
    // Each physical stream keeps a slot for a split's Send, and a new one starts with the
    // split's Recv (2 tasks): what one physical stream holds of a logical one.
    let per_stream = (usable - 3).max(1);
    let real_num = |s: &StreamId| {
        total
            .get(s)
            .map_or(0, |&t| (t + per_stream - 1) / per_stream)
    };
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

    // Lookahead: the tasks of the exempt nodes (never split points) that directly follow
    // each node on its logical stream, so that a split happens before such a run when the
    // run would not fit.
    let is_exempt = |n: NodeId| is_exempt(sg.node(n));
    // With it, the slot each node keeps for the Send of a later split: one, except on the
    // last node of its logical stream (no later split follows it).
    let mut exempt_after = vec![0i64; tasks.items.len()];
    {
        let mut run: BTreeMap<StreamId, i64> = BTreeMap::new();
        for &n in order.iter().rev() {
            let exempt = is_exempt(n);
            let range = tasks.start[n]..tasks.start[n + 1];
            for (&(s, t), after) in tasks.items[range.clone()]
                .iter()
                .zip(&mut exempt_after[range])
            {
                let slot = i64::from(run.contains_key(&s));
                let r = run.entry(s).or_insert(0);
                *after = *r + slot;
                *r = if exempt { *r + t } else { 0 };
            }
        }
    }
    let (own, subtree) = subtree_tasks(sg, &tasks);
    // Activation and join slots reserved on a control-flow node's stream for the streams its
    // subgraphs will open, not yet used.
    let mut boundary_left: BTreeMap<NodeId, i64> = BTreeMap::new();
    // The calls whose bodies continue on their stream (too big for a stream of their own).
    let mut continuing: BTreeSet<NodeId> = BTreeSet::new();
    // (subgraph, logical stream) pairs whose first node opens a stream of the subgraph: the
    // subgraphs of a control-flow node that do not fit beside it each get their own.
    let mut fresh: BTreeSet<(GraphId, StreamId)> = BTreeSet::new();
    let per_split_stream = (usable - 4).max(1);
    res.split_streams = vec![BTreeSet::new(); streams];
    let mut walk = Walk {
        counter: vec![0; streams],
        last_on: vec![None; streams],
        latest: (0..streams as i64).collect(),
        scopes: Vec::new(),
        undo: Vec::new(),
        opened_by: BTreeMap::new(),
        in_scope: Vec::new(),
    };
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
        walk.enter(sg, node.graph);
        let range = tasks.start[n]..tasks.start[n + 1];
        for (&(s, mut t), &after) in tasks.items[range.clone()].iter().zip(&exempt_after[range]) {
            let Ok(si) = usize::try_from(s) else {
                continue;
            };
            // A control-flow node whose subgraphs will not fit beside it on this stream
            // reserves the activation and join of each stream they will open.
            // A PartitionedCall whose body would not fit a stream of its own continues on
            // the caller's stream and splits where that fills up: moving it gains nothing,
            // and down a chain of nested calls it would open a stream per level. The first
            // split in the body lands on this stream while it has room for its three tasks
            // here (`boundary` below); each further one (a body of its own larger than a
            // stream) gets its three reserved now.
            let call_too_big = s == logical_main[n]
                && node.is(NodeKind::CALL)
                && node
                    .subgraphs()
                    .iter()
                    .any(|&g| subtree[g].get(&s).copied().unwrap_or(0) + 2 > usable);
            if call_too_big {
                let reserve: i64 = node
                    .subgraphs()
                    .iter()
                    .map(|&g| 3 * (own[g].get(&s).copied().unwrap_or(0) / per_split_stream))
                    .sum();
                t += reserve;
                boundary_left.insert(n, reserve);
                continuing.insert(n);
            }
            if s == logical_main[n] && !node.subgraphs().is_empty() && !call_too_big && si < streams
            {
                let inner: i64 = node
                    .subgraphs()
                    .iter()
                    .map(|&g| subtree[g].get(&s).copied().unwrap_or(0))
                    .sum();
                let cur = walk.latest[si] as usize;
                if walk.counter[cur] + t + inner + 1 > usable {
                    let reserve: i64 = node
                        .subgraphs()
                        .iter()
                        .map(|&g| {
                            // Its own stream from its first node, and more when it does not
                            // fit one (which then starts with a Recv and keeps a Send's slot).
                            let tg = subtree[g].get(&s).copied().unwrap_or(0);
                            let more = (tg + 2 - usable).max(0);
                            3 * (1 + (more + per_split_stream - 1) / per_split_stream)
                        })
                        .sum();
                    t += reserve;
                    boundary_left.insert(n, reserve);
                    for &g in node.subgraphs() {
                        fresh.insert((g, s));
                    }
                }
            }
            if si >= streams {
                return Err(StreamError::new(
                    ErrorKind::Split,
                    format!("stream {s} is beyond the stream count"),
                )
                .at(&node.name));
            }
            let for_attached = logical_main[n] != s;
            let cur = walk.latest[si];
            let cur_i = cur as usize;
            let first = walk.counter[cur_i] == 0;
            on_stream[si].push(n);
            if let Some(l) = &node.attrs().continuous_stream_label {
                continuous.entry(l.clone()).or_default().push(n);
            }
            let exempt = is_exempt(n);
            // Room for the exempt nodes that follow and the slot for a later split's Send.
            // An exempt node that does not fit stays, as in GE; the final recount decides.
            // Such a call, and a node of its body on the call's very stream, keep room for
            // the three tasks a split in the body adds to that stream (the new stream's
            // activation and join).
            let in_call_on_cur = sg
                .graph(node.graph)
                .parent
                .is_some_and(|p| continuing.contains(&p) && stream[p] == cur);
            let boundary = if call_too_big || in_call_on_cur { 3 } else { 0 };
            let overflows = walk.counter[cur_i] + t + after + boundary > usable;
            let forced = fresh.remove(&(node.graph, s));
            // A continuous group that already opens this stream gains nothing by moving
            // again (GE would move it, leaving a stream of one Recv and a second Send
            // on the node before the group).
            let group_opens = node
                .attrs()
                .continuous_stream_label
                .as_ref()
                .is_some_and(|l| {
                    continuous.get(l).and_then(|g| g.first()) == walk.opened_by.get(&cur)
                });
            // A node without tasks here (a NetOutput with no syncs) moves nothing: no split point.
            let empty = t == 0;
            if !first && (overflows || forced) && !exempt && !group_opens && !empty {
                last_stream += 1;
                let new = last_stream;
                walk.open(new);
                let mut recv = n;
                let mut head = n;
                walk.counter[new as usize] = t;
                if let Some(l) = &node.attrs().continuous_stream_label {
                    let group = continuous.get(l).cloned().unwrap_or_default();
                    for &m in &group {
                        set_stream(stream, attached, &logical_attached, m, s, new, for_attached);
                        if m != n {
                            let moved = tasks.get(m, s).unwrap_or(0);
                            walk.counter[new as usize] += moved;
                            walk.counter[cur_i] -= moved;
                        }
                    }
                    let Some(&h) = group.first() else {
                        return Err(StreamError::new(
                            ErrorKind::Split,
                            format!("continuous stream label `{l}` has no nodes"),
                        )
                        .at(&node.name));
                    };
                    head = h;
                    recv = h;
                }
                let before_head = node_before(&on_stream[si], head);
                if head != n && before_head.is_none() {
                    let l = node
                        .attrs()
                        .continuous_stream_label
                        .as_deref()
                        .unwrap_or("");
                    return Err(StreamError::new(
                        ErrorKind::Split,
                        format!("cannot split stream {s} before the first node of continuous stream label `{l}`"),
                    )
                    .at(&node.name));
                }
                // The sender: the last earlier node on the old stream, as seen from the
                // receiver's graph (none there: the activation orders the new stream).
                let send = before_head
                    .filter(|_| head != n)
                    .or(walk.last_on[cur_i])
                    .and_then(|m| lift_into(sg, m, sg.node(head).graph));
                res.split_streams[si].insert(new);
                res.physical_to_logical.insert(new, s);
                res.split_first_node.insert(new, n);
                walk.opened_by.insert(new, head);
                if node.graph != 0 {
                    res.split_owner.insert(new, node.graph);
                }
                walk.point(si, new, node.graph);
                // A stream opened inside a subgraph is one more stream of it: activated
                // and joined on its parent's stream, recording the join at its end.
                if let Some(parent) = sg.graph(node.graph).parent {
                    match boundary_left.get_mut(&parent) {
                        // The room `boundary` kept on the call's stream.
                        _ if in_call_on_cur => walk.counter[cur_i] += 3,
                        Some(left) if *left >= 3 => *left -= 3,
                        _ => {
                            if let Some(c) = usize::try_from(stream[parent])
                                .ok()
                                .and_then(|i| walk.counter.get_mut(i))
                            {
                                *c += 3;
                            }
                        }
                    }
                    walk.counter[new as usize] += 1;
                }
                if let Some(send) = send {
                    let (ss, rs) = if for_attached {
                        (Side::Physical(cur), Side::Physical(new))
                    } else {
                        (Side::Main, Side::Main)
                    };
                    // An attached sender must be the very node that ran on the old stream.
                    if !for_attached || Some(send) == walk.last_on[cur_i] {
                        table.add(
                            super::events::SyncKind::Event,
                            send,
                            recv,
                            ss,
                            rs,
                            EventOrigin::StreamSplit,
                            1,
                        );
                        let send_stream = if for_attached { cur } else { stream[send] };
                        if let Some(c) = walk.counter.get_mut(send_stream as usize) {
                            *c += 1;
                        }
                        walk.counter[new as usize] += 2;
                    }
                }
            } else {
                walk.counter[cur_i] += t;
            }
            let phys = walk.latest[si];
            set_stream(
                stream,
                attached,
                &logical_attached,
                n,
                s,
                phys,
                for_attached,
            );
            walk.last_on[phys as usize] = Some(n);
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
    for p in &act.planned {
        res.physical_to_logical.entry(p.stream).or_insert(p.stream);
    }
    res.applied = true;
    Ok(res)
}

/// Per graph and logical stream: the tasks of the graph's own nodes, and those of the
/// graph and its nested ones (what a parent's stream must host or hand to streams of the
/// subgraph); both empty for the root. Each graph's sums go into its parent's in reverse
/// `graph_order` (a graph comes after its parent's), so the cost is linear in nodes and
/// graphs: adding each node to every ancestor was quadratic in the nesting depth (20,000
/// nested PartitionedCalls took minutes).
#[allow(clippy::type_complexity)]
fn subtree_tasks(
    sg: &StreamGraph,
    tasks: &Tasks,
) -> (Vec<BTreeMap<StreamId, i64>>, Vec<BTreeMap<StreamId, i64>>) {
    let mut own: Vec<BTreeMap<StreamId, i64>> = vec![BTreeMap::new(); sg.graphs().len()];
    for (n, node) in sg.nodes().iter().enumerate() {
        if node.graph != 0 {
            for &(s, t) in tasks.of(n) {
                *own[node.graph].entry(s).or_insert(0) += t;
            }
        }
    }
    let mut sums = own.clone();
    for &g in sg.graph_order().iter().rev() {
        let Some(p) = sg.graph(g).parent else {
            continue;
        };
        let pg = sg.node(p).graph;
        if g == 0 || pg == 0 {
            continue;
        }
        let child = std::mem::take(&mut sums[g]);
        for (&s, &t) in &child {
            *sums[pg].entry(s).or_insert(0) += t;
        }
        sums[g] = child;
    }
    (own, sums)
}

/// GE never splits a stream at an RTS label node or a `_subgraph_first_active` node.
fn is_exempt(node: &Node) -> bool {
    node.attrs().subgraph_first_active || node.is(NodeKind::RTS_LABEL)
}

/// The physical streams over the usable limit that a split could still have made smaller:
/// those holding two or more split points (a node with tasks of its own, or the nodes of
/// one `_continuous_stream_label`, that is not exempt). A stream holding one is GE's own result
/// for a node larger than a stream (the first node of a stream never splits), and every
/// stream is one under a limit at or below GE's reserve: accepted, as GE accepts them.
pub fn overfull_streams(
    sg: &StreamGraph,
    stream: &[StreamId],
    attached: &[Vec<StreamId>],
    table: &SyncTable,
    counts: &BTreeMap<StreamId, i64>,
    usable: i64,
) -> Vec<(StreamId, i64)> {
    let over: BTreeMap<StreamId, i64> = counts
        .iter()
        .filter(|(_, &t)| t > usable)
        .map(|(&s, &t)| (s, t))
        .collect();
    if over.is_empty() {
        return Vec::new();
    }
    let mut points: BTreeMap<StreamId, BTreeSet<Result<NodeId, &str>>> = BTreeMap::new();
    for (n, node) in sg.nodes().iter().enumerate() {
        // Syncs of its own, not the split's events (an empty node that stayed on a stream
        // may become a split's sender).
        let syncs = table
            .sends(n)
            .iter()
            .chain(table.recvs(n))
            .any(|&i| table.recs[i].origin != EventOrigin::StreamSplit);
        let empty = |attached| {
            !node.is(NodeKind::STREAM_ACTIVE) && !syncs && own_tasks(node, attached) == 0
        };
        if is_exempt(node) {
            continue;
        }
        let unit = match &node.attrs().continuous_stream_label {
            Some(l) => Err(l.as_str()),
            None => Ok(n),
        };
        let on = std::iter::once((stream[n], false)).chain(attached[n].iter().map(|&s| (s, true)));
        for (s, att) in on {
            if over.contains_key(&s) && !empty(att) {
                points.entry(s).or_default().insert(unit);
            }
        }
    }
    over.into_iter()
        .filter(|(s, _)| points.get(s).is_some_and(|p| p.len() > 1))
        .collect()
}

/// GE's usable tasks per stream: the limit less `kReservedTaskNum`.
pub fn usable_tasks(max_task: i64) -> i64 {
    max_task.saturating_sub(RESERVED_TASK_NUM)
}

/// The split walk's state: counters and last nodes per physical stream, the physical
/// stream of each logical one, and the graph scopes whose splits end with them.
struct Walk {
    counter: Vec<i64>,
    last_on: Vec<Option<NodeId>>,
    latest: Vec<StreamId>,
    /// The graphs from the root to the current node's, each with the undo-log length at
    /// its entry.
    scopes: Vec<(GraphId, usize)>,
    /// `(logical, physical before)` per split made inside a subgraph.
    undo: Vec<(usize, StreamId)>,
    /// The first node of each stream a split opened (a continuous group's head).
    opened_by: BTreeMap<StreamId, NodeId>,
    /// Per graph, whether it is on `scopes`.
    in_scope: Vec<bool>,
}

impl Walk {
    /// Moves the scope chain to `graph`: the graphs left restore their logical streams.
    /// Costs the graphs entered and left, not the depth (a return from the bottom of a
    /// chain of nested calls leaves one graph).
    fn enter(&mut self, sg: &StreamGraph, graph: GraphId) {
        if self.scopes.last().is_some_and(|&(g, _)| g == graph) {
            return;
        }
        if self.in_scope.len() < sg.graphs().len() {
            self.in_scope.resize(sg.graphs().len(), false);
        }
        // The graphs to enter, up to the nearest one already on the chain.
        let mut entered = Vec::new();
        let mut g = Some(graph);
        while let Some(x) = g.filter(|&x| !self.in_scope[x]) {
            entered.push(x);
            g = sg.graph(x).parent.map(|p| sg.node(p).graph);
        }
        while let Some(&(top, mark)) = self.scopes.last() {
            if Some(top) == g {
                break;
            }
            self.scopes.pop();
            self.in_scope[top] = false;
            while self.undo.len() > mark {
                if let Some((si, old)) = self.undo.pop() {
                    self.latest[si] = old;
                }
            }
        }
        for &x in entered.iter().rev() {
            self.scopes.push((x, self.undo.len()));
            self.in_scope[x] = true;
        }
    }
    fn open(&mut self, new: StreamId) {
        let i = new as usize;
        if self.counter.len() <= i {
            self.counter.resize(i + 1, 0);
            self.last_on.resize(i + 1, None);
        }
    }
    /// Logical stream `si` continues on `new` for the rest of `graph` (of the whole walk
    /// for the root).
    fn point(&mut self, si: usize, new: StreamId, graph: GraphId) {
        if graph != 0 {
            self.undo.push((si, self.latest[si]));
        }
        self.latest[si] = new;
    }
}

/// `m` as seen from graph `g`: itself, or the ancestor of `m` in `g` (the control-flow node
/// whose subgraph holds it); `None` when `m` is not inside `g`.
fn lift_into(sg: &StreamGraph, mut m: NodeId, g: GraphId) -> Option<NodeId> {
    loop {
        let mg = sg.node(m).graph;
        if mg == g {
            return Some(m);
        }
        m = sg.graph(mg).parent?;
    }
}

/// Adds to each control-flow node the activation and join tasks its subgraphs' other
/// streams cost on its stream (so its split decision includes them), and each join's
/// record to the last node of the subgraph on that stream.
fn add_boundary_tasks(sg: &StreamGraph, stream: &[StreamId], tasks: &mut Tasks) {
    for (p, node) in sg.nodes().iter().enumerate() {
        if node.subgraphs().is_empty() || stream[p] == INVALID_STREAM {
            continue;
        }
        for &g in node.subgraphs() {
            let mut last: BTreeMap<StreamId, NodeId> = BTreeMap::new();
            for &m in &sg.graph(g).nodes {
                let s = stream[m];
                if s != INVALID_STREAM && s != stream[p] && !sg.node(m).is_data_like() {
                    last.insert(s, m);
                }
            }
            for (s, m) in last {
                if let Some(t) = tasks.get(p, stream[p]) {
                    tasks.set(p, stream[p], t + 3);
                }
                if let Some(t) = tasks.get(m, s) {
                    tasks.set(m, s, t + 1);
                }
            }
        }
    }
}

/// Tasks per physical stream of a final assignment, as `--lower-to-tasks` emits them (see
/// the module doc): the nodes' own tasks, one per Send and notify, two per Recv, the
/// StreamActive reserve, and each subgraph's activation and join for every stream it uses
/// other than its parent's.
#[allow(clippy::too_many_arguments)]
pub fn physical_task_counts(
    sg: &StreamGraph,
    stream: &[StreamId],
    attached: &[Vec<StreamId>],
    logical_attached: &[Vec<StreamId>],
    table: &SyncTable,
    act: &Activation,
) -> BTreeMap<StreamId, i64> {
    let mut out: BTreeMap<StreamId, i64> = BTreeMap::new();
    let mut add = |s: StreamId, t: i64| {
        if s != INVALID_STREAM && t != 0 {
            *out.entry(s).or_insert(0) += t;
        }
    };
    for (n, node) in sg.nodes().iter().enumerate() {
        let main = stream[n];
        if node.is(NodeKind::STREAM_ACTIVE) {
            let k = act.active_streams.get(&n).map_or(0, |l| l.len() as i64);
            add(main, k);
        } else if main != INVALID_STREAM {
            add(main, own_tasks(node, false));
        }
        for &s in &attached[n] {
            add(s, own_tasks(node, true));
        }
        if node.subgraphs().is_empty() || main == INVALID_STREAM {
            continue;
        }
        for &g in node.subgraphs() {
            let others: BTreeSet<StreamId> = sg
                .graph(g)
                .nodes
                .iter()
                .filter(|&&m| !sg.node(m).is_data_like())
                .map(|&m| stream[m])
                .filter(|&s| s != INVALID_STREAM && s != main)
                .collect();
            for s in others {
                add(main, 3);
                add(s, 1);
            }
        }
    }
    for (i, p) in act.planned.iter().enumerate() {
        let k = act
            .active_streams
            .get(&(sg.nodes().len() + i))
            .map_or(0, |l| l.len() as i64);
        add(p.stream, k);
    }
    for (_, r) in table.alive() {
        let resolve = |n: NodeId, side: Side| side.physical(n, stream, attached, logical_attached);
        let wait = match r.kind {
            super::events::SyncKind::Event => 2,
            super::events::SyncKind::Notify => 1,
        };
        add(resolve(r.send, r.send_side), 1);
        add(resolve(r.recv, r.recv_side), wait);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::node_before;

    #[test]
    fn the_node_before_a_split_head_is_the_one_before_its_first_entry() {
        assert_eq!(node_before(&[4, 7, 9], 9), Some(7));
        assert_eq!(node_before(&[4, 7, 9], 7), Some(4));
        // The head opens the stream: no sender on it.
        assert_eq!(node_before(&[4, 7, 9], 4), None);
        assert_eq!(node_before(&[4, 7, 9], 5), None);
        // A node placed twice on one stream (main and attached) counts from its first entry.
        assert_eq!(node_before(&[4, 7, 9, 9], 9), Some(7));
        assert_eq!(node_before(&[9, 9], 9), None);
    }
}
