//! Cross-stream synchronisation: GE's `InsertSyncEvents`, the three event optimisations,
//! renumbering, multi-dims reuse and `_event_multiplexing` (notes C.5–C.7).
//!
//! Events and notifies are records in a [`SyncTable`]; a removed record stays in the table
//! with the rule that removed it, so every decision can be explained. Ids are raw insertion
//! counters until [`renumber`] makes them continuous in GE's order: senders by node name
//! (byte order, then graph name), then the order within each sender.

use super::activation::Activation;
use super::model::*;
use super::sparse::SparseLists;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Event or notify (`ge.event=notify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyncKind {
    Event,
    Notify,
}

/// Which stream of a node a Send or Recv sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// The node's main stream.
    Main,
    /// The node's single attached stream.
    Attached,
    /// A given logical attached stream of the node.
    AttachedStream(StreamId),
    /// A given physical stream (split events of attached streams).
    Physical(StreamId),
}

impl Side {
    /// The physical stream this side of node `n` is on once the split has run: `stream` and
    /// `attached` are the physical assignment, `logical_attached` the attached streams before
    /// the split (an `AttachedStream` names one of those).
    pub fn physical(
        self,
        n: NodeId,
        stream: &[StreamId],
        attached: &[Vec<StreamId>],
        logical_attached: &[Vec<StreamId>],
    ) -> StreamId {
        match self {
            Side::Main => stream[n],
            Side::Attached => attached[n].first().copied().unwrap_or(stream[n]),
            Side::AttachedStream(s) => logical_attached[n]
                .iter()
                .position(|&a| a == s)
                .map_or(s, |i| attached[n][i]),
            Side::Physical(s) => s,
        }
    }
}

/// Why a sync exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventOrigin {
    DataEdge,
    ControlEdge,
    SubgraphEntry,
    SubgraphExit,
    AttachedDepend,
    #[serde(rename = "attached-to-netoutput")]
    AttachedToNetOutput,
    StreamSplit,
    LoopBack,
}

impl EventOrigin {
    /// Kebab-case name, as written into `ascend.reason`-style attributes.
    pub fn as_str(self) -> &'static str {
        match self {
            EventOrigin::DataEdge => "data-edge",
            EventOrigin::ControlEdge => "control-edge",
            EventOrigin::SubgraphEntry => "subgraph-entry",
            EventOrigin::SubgraphExit => "subgraph-exit",
            EventOrigin::AttachedDepend => "attached-depend",
            EventOrigin::AttachedToNetOutput => "attached-to-netoutput",
            EventOrigin::StreamSplit => "stream-split",
            EventOrigin::LoopBack => "loop-back",
        }
    }
}

/// Which rule removed a sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Removal {
    /// `OptimizeBySendEvents`: the sender already signals an earlier node of that stream.
    BySendEvents,
    /// `OptimizeByRecvEvents`: a later sender on the same stream signals the receiver.
    ByRecvEvents,
    /// `OptimizeByStreamActivate`: the activation chain already orders them.
    ByStreamActivate,
    /// Sends of a StreamSwitch are dropped.
    StreamSwitchSend,
    /// Beyond GE: implied by stream order plus the remaining events.
    Transitive,
}

impl Removal {
    pub fn as_str(self) -> &'static str {
        match self {
            Removal::BySendEvents => "by-send-events",
            Removal::ByRecvEvents => "by-recv-events",
            Removal::ByStreamActivate => "by-stream-activate",
            Removal::StreamSwitchSend => "stream-switch-send",
            Removal::Transitive => "transitive",
        }
    }
}

/// One event or notify between two nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SyncRec {
    pub id: u32,
    pub kind: SyncKind,
    pub send: NodeId,
    pub recv: NodeId,
    pub send_side: Side,
    pub recv_side: Side,
    pub origin: EventOrigin,
    pub removed: Option<Removal>,
    /// 0: planned with the logical streams; 1: added by the physical split.
    pub phase: u8,
}

/// All syncs plus each node's send and recv lists in insertion order.
#[derive(Clone, Debug, Default)]
pub struct SyncTable {
    pub recs: Vec<SyncRec>,
    /// Per node (most nodes have no sync).
    send: SparseLists<usize>,
    recv: SparseLists<usize>,
    next_event: u32,
    next_notify: u32,
}

impl SyncTable {
    pub fn new(nodes: usize) -> Self {
        SyncTable {
            recs: Vec::new(),
            send: SparseLists::new(nodes),
            recv: SparseLists::new(nodes),
            next_event: 0,
            next_notify: 0,
        }
    }

    /// Adds a sync with the next raw id of its kind; returns its index.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        kind: SyncKind,
        send: NodeId,
        recv: NodeId,
        send_side: Side,
        recv_side: Side,
        origin: EventOrigin,
        phase: u8,
    ) -> usize {
        let counter = match kind {
            SyncKind::Event => &mut self.next_event,
            SyncKind::Notify => &mut self.next_notify,
        };
        let id = *counter;
        *counter += 1;
        let idx = self.recs.len();
        self.recs.push(SyncRec {
            id,
            kind,
            send,
            recv,
            send_side,
            recv_side,
            origin,
            removed: None,
            phase,
        });
        self.send.push(send, idx);
        self.recv.push(recv, idx);
        idx
    }

    /// Marks a sync removed and takes it out of both nodes' lists.
    pub fn remove(&mut self, idx: usize, why: Removal) {
        let r = &mut self.recs[idx];
        if r.removed.is_some() {
            return;
        }
        r.removed = Some(why);
        let (s, d) = (r.send, r.recv);
        self.send.retain(s, |&i| i != idx);
        self.recv.retain(d, |&i| i != idx);
    }

    /// Live syncs sent by `node`, in order.
    pub fn sends(&self, node: NodeId) -> &[usize] {
        self.send.get(node)
    }
    /// Live syncs received by `node`, in order.
    pub fn recvs(&self, node: NodeId) -> &[usize] {
        self.recv.get(node)
    }
    /// Live syncs.
    pub fn alive(&self) -> impl Iterator<Item = (usize, &SyncRec)> {
        self.recs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.removed.is_none())
    }
    /// Number of distinct live ids of a kind (the event or notify count after numbering).
    pub fn id_count(&self, kind: SyncKind) -> u32 {
        let ids: BTreeSet<u32> = self
            .alive()
            .filter(|(_, r)| r.kind == kind)
            .map(|(_, r)| r.id)
            .collect();
        ids.len() as u32
    }
    /// Next raw id of a kind (the count GE keeps in `event_num_`).
    pub fn next_id(&self, kind: SyncKind) -> u32 {
        match kind {
            SyncKind::Event => self.next_event,
            SyncKind::Notify => self.next_notify,
        }
    }
    fn set_next_id(&mut self, kind: SyncKind, v: u32) {
        match kind {
            SyncKind::Event => self.next_event = v,
            SyncKind::Notify => self.next_notify = v,
        }
    }
    /// Makes the live ids of `kind` at or above `base` continuous from `base` again, in id
    /// order (after syncs numbered past `base` were removed); returns the next free id.
    pub fn compact_ids_from(&mut self, kind: SyncKind, base: u32) -> u32 {
        let mut ids: Vec<u32> = self
            .recs
            .iter()
            .filter(|r| r.removed.is_none() && r.kind == kind && r.id >= base)
            .map(|r| r.id)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for r in self.recs.iter_mut() {
            if r.removed.is_none() && r.kind == kind && r.id >= base {
                r.id = base + ids.partition_point(|&x| x < r.id) as u32;
            }
        }
        let next = base + ids.len() as u32;
        self.set_next_id(kind, next);
        next
    }

    /// Moves a record to the back of its sender's and receiver's lists (GE's `push_back`
    /// when an id is replaced).
    fn move_to_back(&mut self, idx: usize) {
        let r = &self.recs[idx];
        let (s, d) = (r.send, r.recv);
        self.send.retain(s, |&i| i != idx);
        self.send.push(s, idx);
        self.recv.retain(d, |&i| i != idx);
        self.recv.push(d, idx);
    }
}

/// What the passes need to read about the graph.
pub struct Ctx<'a> {
    pub sg: &'a StreamGraph,
    /// GE's `GetAllNodes` order.
    pub order: &'a [NodeId],
    /// Position in `order`: the global topological id.
    pub topo: &'a [usize],
    /// Effective stream labels.
    pub labels: &'a [Label],
    /// The last list [`Self::senders_by_name`] sorted: later calls ask for subsets of it
    /// (the senders left after removals), which filtering it gives in the same order.
    sorted_senders: std::cell::RefCell<Vec<NodeId>>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        sg: &'a StreamGraph,
        order: &'a [NodeId],
        topo: &'a [usize],
        labels: &'a [Label],
    ) -> Self {
        Ctx {
            sg,
            order,
            topo,
            labels,
            sorted_senders: Default::default(),
        }
    }
}

impl Ctx<'_> {
    /// Nodes skipped by event insertion: FFTS subgraph owners and everything inside them.
    pub fn in_ffts(&self) -> Vec<bool> {
        let mut skip = vec![false; self.sg.nodes().len()];
        for &n in self.order {
            let node = self.sg.node(n);
            let parent_skipped = self.sg.graph(node.graph).parent.is_some_and(|p| skip[p]);
            skip[n] = parent_skipped || node.attrs().ffts_subgraph;
        }
        skip
    }

    fn has_label(&self, n: NodeId) -> Option<&str> {
        self.labels[n].as_deref().filter(|l| !l.is_empty())
    }

    /// Senders in GE's `NodeCompareKey` order: node name, then graph name.
    /// The order is total (the node id breaks ties), so any sort gives the same list.
    fn senders_by_name(&self, nodes: impl Iterator<Item = NodeId>) -> Vec<NodeId> {
        let v: Vec<NodeId> = nodes.collect();
        let mut memo = self.sorted_senders.borrow_mut();
        // (Worth it for a large subset; a small list is cheaper to sort.)
        if v.len() <= memo.len() && v.len() > memo.len() / 16 {
            let mut wanted = vec![false; self.sg.nodes().len()];
            for &n in &v {
                wanted[n] = true;
            }
            let subset: Vec<NodeId> = memo.iter().copied().filter(|&n| wanted[n]).collect();
            if subset.len() == v.len() {
                return subset;
            }
        }
        // Sort the keys, not the ids: a comparison then reads two names, not two nodes.
        let mut keys: Vec<(&[u8], &[u8], NodeId)> = v
            .iter()
            .map(|&n| {
                let node = self.sg.node(n);
                let graph = &self.sg.graph(node.graph).name;
                (node.name.as_bytes(), graph.as_bytes(), n)
            })
            .collect();
        keys.sort_unstable();
        let sorted: Vec<NodeId> = keys.into_iter().map(|(_, _, n)| n).collect();
        if sorted.len() > memo.len() {
            memo.clone_from(&sorted);
        }
        sorted
    }
}

/// Counters reported in the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EventStats {
    /// Syncs inserted for edges and subgraph boundaries.
    pub inserted: usize,
    /// Edges that needed none because an activation orders them (label rule).
    pub skipped_by_activation: usize,
    pub removed_by_send_events: usize,
    pub removed_by_recv_events: usize,
    pub removed_by_stream_activate: usize,
    pub removed_stream_switch_sends: usize,
    /// What GE would keep after its three rules.
    pub after_ge_rules: usize,
    /// The minimum on the logical streams: the edges of the transitive reduction of the
    /// cross-stream ordering (stream order plus those syncs) that stream order does not
    /// give (equal to `after_ge_rules` when GE's rules already were minimal).
    pub minimal: usize,
    /// The same minimum on the physical streams: the split cuts logical streams, and each
    /// cut that nothing else orders needs an event. `minimal` plus those cuts.
    pub minimal_physical: usize,
    /// Removed as implied by stream order plus other events (0 when minimisation is off).
    pub removed_transitive: usize,
    pub attached_events: usize,
    pub loop_events: usize,
    /// Events the split inserted and kept.
    pub split_events: usize,
    /// Split events dropped because other events already order the cut (0 when
    /// minimisation is off; `minimal_physical` leaves them out either way).
    pub split_events_implied: usize,
}

/// `InsertOneEventInTwoNodes`.
#[allow(clippy::too_many_arguments)]
fn insert_one(
    ctx: &Ctx,
    stream: &[StreamId],
    act: &Activation,
    table: &mut SyncTable,
    stats: &mut EventStats,
    kind: SyncKind,
    src: NodeId,
    dst: NodeId,
    origin: EventOrigin,
) -> Result<(), StreamError> {
    let (s, d) = (stream[src], stream[dst]);
    if s == INVALID_STREAM || s == d {
        return Ok(());
    }
    let (sn, dn) = (ctx.sg.node(src), ctx.sg.node(dst));
    if sn.is(NodeKind::LOOP_ENTER) && !dn.is(NodeKind::STREAM_ACTIVE) {
        return Ok(());
    }
    if d == INVALID_STREAM {
        if dn.attrs().thread_scope {
            return Ok(());
        }
        return Err(StreamError::new(
            ErrorKind::InvalidStream,
            format!("has no stream but consumes `{}` (stream {s})", sn.name),
        )
        .at(&dn.name));
    }
    if let Some(label) = ctx.has_label(dst) {
        if let Some(activators) = act.specific_labels.get(label) {
            let ordered = activators.iter().any(|&a| {
                ctx.sg.node(a).graph == sn.graph && stream[a] == s && ctx.topo[src] <= ctx.topo[a]
            });
            if ordered {
                stats.skipped_by_activation += 1;
                return Ok(());
            }
        }
    }
    table.add(kind, src, dst, Side::Main, Side::Main, origin, 0);
    stats.inserted += 1;
    Ok(())
}

/// `InsertSyncEvents`: one sync per cross-stream data or control edge, then
/// `InsertEventsForSubgraph`.
pub fn insert_sync(
    ctx: &Ctx,
    stream: &[StreamId],
    act: &Activation,
    table: &mut SyncTable,
    stats: &mut EventStats,
    kind: SyncKind,
) -> Result<(), StreamError> {
    let skip = ctx.in_ffts();
    for &n in ctx.order {
        if skip[n] {
            continue;
        }
        let node = ctx.sg.node(n);
        for &dst in node.data_out() {
            insert_one(
                ctx,
                stream,
                act,
                table,
                stats,
                kind,
                n,
                dst,
                EventOrigin::DataEdge,
            )?;
        }
        for &dst in node.ctrl_out() {
            insert_one(
                ctx,
                stream,
                act,
                table,
                stats,
                kind,
                n,
                dst,
                EventOrigin::ControlEdge,
            )?;
        }
    }
    for &g in ctx.sg.graph_order().iter().skip(1) {
        let Some(parent) = ctx.sg.graph(g).parent else {
            continue;
        };
        let pa = &ctx.sg.node(parent).attrs();
        if pa.ffts_subgraph || pa.thread_scope || skip[parent] {
            continue;
        }
        for &n in &ctx.sg.graph(g).nodes {
            let node = ctx.sg.node(n);
            if stream[n] != INVALID_STREAM && node.in_all().next().is_none() {
                let producers: Vec<NodeId> = ctx.sg.node(parent).in_all().collect();
                for p in producers {
                    insert_one(
                        ctx,
                        stream,
                        act,
                        table,
                        stats,
                        kind,
                        p,
                        n,
                        EventOrigin::SubgraphEntry,
                    )?;
                }
            }
            if !node.attrs().subgraph_end_node {
                continue;
            }
            let consumers: Vec<NodeId> = ctx.sg.node(parent).out_all().collect();
            for c in consumers {
                insert_one(
                    ctx,
                    stream,
                    act,
                    table,
                    stats,
                    kind,
                    n,
                    c,
                    EventOrigin::SubgraphExit,
                )?;
            }
            break;
        }
    }
    Ok(())
}

/// Nodes per stream in `order` (GE's `stream_nodes`, -1 first).
pub fn stream_nodes(order: &[NodeId], stream: &[StreamId]) -> BTreeMap<StreamId, Vec<NodeId>> {
    let mut m: BTreeMap<StreamId, Vec<NodeId>> = BTreeMap::new();
    for &n in order {
        m.entry(stream[n]).or_default().push(n);
    }
    m
}

/// `OptimizeSyncEvents`: by send events, by recv events, by stream activation, then drop
/// the sends of StreamSwitch nodes.
pub fn optimize(
    ctx: &Ctx,
    stream: &[StreamId],
    act: &Activation,
    table: &mut SyncTable,
    stats: &mut EventStats,
) {
    let per_stream = stream_nodes(ctx.order, stream);
    // Lists change while we walk them: iterate over a copy kept in one reused buffer.
    let mut scratch: Vec<usize> = Vec::new();
    // Per-stream maps keyed by node, as arrays with a stamp per stream and walk (no
    // clearing): stamps start at 1, so the arrays start zeroed, and only the pages of nodes
    // with a sync are ever touched.
    let n = ctx.sg.nodes().len();
    let mut stamp = vec![0usize; n];
    let mut slot = vec![0usize; n];
    // OptimizeBySendEvents: one sync per (sender, receiving stream), the earliest receiver.
    for (k, nodes) in per_stream.values().enumerate() {
        let k = k + 1;
        for &r in nodes {
            scratch.clear();
            scratch.extend_from_slice(table.recvs(r));
            for &idx in &scratch {
                let sender = table.recs[idx].send;
                let seen = stamp[sender] == k;
                stamp[sender] = k;
                if seen {
                    table.remove(idx, Removal::BySendEvents);
                    stats.removed_by_send_events += 1;
                }
            }
        }
    }
    // OptimizeByRecvEvents: one sync per (sending stream, receiver), the latest sender.
    for (k, nodes) in per_stream.values().enumerate() {
        let k = per_stream.len() + 1 + k;
        for &s in nodes {
            scratch.clear();
            scratch.extend_from_slice(table.sends(s));
            for &idx in &scratch {
                let r = table.recs[idx].recv;
                if stamp[r] == k {
                    table.remove(slot[r], Removal::ByRecvEvents);
                    stats.removed_by_recv_events += 1;
                }
                stamp[r] = k;
                slot[r] = idx;
            }
        }
    }
    // OptimizeByStreamActivate.
    let senders = ctx.senders_by_name(
        ctx.order
            .iter()
            .copied()
            .filter(|&n| !table.sends(n).is_empty()),
    );
    for &s in &senders {
        scratch.clear();
        scratch.extend_from_slice(table.sends(s));
        for &idx in &scratch {
            let r = table.recs[idx].recv;
            if recv_activated_by_send(ctx, stream, act, s, r) {
                table.remove(idx, Removal::ByStreamActivate);
                stats.removed_by_stream_activate += 1;
            }
        }
    }
    for &s in &senders {
        if ctx.sg.node(s).is(NodeKind::STREAM_SWITCH) {
            for idx in table.sends(s).to_vec() {
                table.remove(idx, Removal::StreamSwitchSend);
                stats.removed_stream_switch_sends += 1;
            }
        }
    }
}

/// `IsRecvNodeActivatedBySendNode`: the receiver's labelled stream is activated through a
/// chain whose activator has an input ordered after the sender on the sender's stream (or
/// fed by the sender).
fn recv_activated_by_send(
    ctx: &Ctx,
    stream: &[StreamId],
    act: &Activation,
    send: NodeId,
    recv: NodeId,
) -> bool {
    if ctx.labels[recv].is_none() {
        return false;
    }
    let cur = stream[send];
    let send_graph = ctx.sg.node(send).graph;
    let mut frontier: BTreeSet<NodeId> = act
        .specific_stream_nodes
        .get(&stream[recv])
        .cloned()
        .unwrap_or_default();
    let mut visited: BTreeSet<NodeId> = BTreeSet::from([recv]);
    while !frontier.is_empty() {
        let mut next = BTreeSet::new();
        for &a in &frontier {
            let an = ctx.sg.node(a);
            if an.graph != send_graph {
                continue;
            }
            if visited.contains(&a) || an.attrs().is_loop_active {
                return false;
            }
            let after_next_iteration = !an.ctrl_in().is_empty()
                && an
                    .ctrl_in()
                    .iter()
                    .all(|&c| ctx.sg.node(c).is(NodeKind::NEXT_ITERATION));
            if after_next_iteration {
                continue;
            }
            visited.insert(a);
            for p in an.in_all() {
                if stream[p] == cur && ctx.topo[p] >= ctx.topo[send] {
                    return true;
                }
                if ctx.sg.node(p).in_all().any(|q| q == send) {
                    return true;
                }
            }
            if let Some(more) = act.specific_stream_nodes.get(&stream[a]) {
                next.extend(more.iter().copied());
            }
        }
        frontier = next;
    }
    false
}

/// `RefreshContinuousEvents`/`RefreshContinuousNotifies`: ids of the matching live syncs
/// become `start..` in sender-name order; returns the next free id.
pub fn renumber(
    ctx: &Ctx,
    table: &mut SyncTable,
    kind: SyncKind,
    start: u32,
    filter: impl Fn(&SyncRec) -> bool,
) -> u32 {
    let matches = |r: &SyncRec| r.removed.is_none() && r.kind == kind && filter(r);
    let senders = ctx.senders_by_name(
        ctx.order
            .iter()
            .copied()
            .filter(|&n| table.sends(n).iter().any(|&i| matches(&table.recs[i]))),
    );
    // Map old ids densely: an array when ids are small (the usual case), else a map
    // (user ids from `_event_multiplexing` may be large).
    let top = table
        .recs
        .iter()
        .filter(|r| matches(r))
        .map(|r| r.id as usize + 1)
        .max()
        .unwrap_or(0);
    let dense = top <= 2 * table.recs.len() + 1024;
    let mut array: Vec<u32> = vec![u32::MAX; if dense { top } else { 0 }];
    let mut sparse: FastMap<u32, u32> = FastMap::default();
    let mut next = start;
    for s in senders {
        for &i in table.sends(s) {
            let r = &table.recs[i];
            if !matches(r) {
                continue;
            }
            if dense {
                if array[r.id as usize] == u32::MAX {
                    array[r.id as usize] = next;
                    next += 1;
                }
            } else {
                sparse.entry(r.id).or_insert_with(|| {
                    next += 1;
                    next - 1
                });
            }
        }
    }
    for r in table.recs.iter_mut() {
        if matches(r) {
            r.id = if dense {
                array[r.id as usize]
            } else {
                sparse[&r.id]
            };
        }
    }
    table.set_next_id(kind, next);
    next
}

/// `ReuseEventForMultiDims` (C.7): branches of a multi-batch `Case` renumber the syncs whose
/// both ends are inside the branch from one shared base; the rest follow the maximum.
pub fn reuse_for_multi_dims(
    ctx: &Ctx,
    table: &mut SyncTable,
    kind: SyncKind,
) -> Result<(), StreamError> {
    let mut max_id = 0u32;
    let mut seen: BTreeMap<u32, u32> = BTreeMap::new();
    for &n in ctx.order {
        let node = ctx.sg.node(n);
        if !node.is(NodeKind::CASE) || node.attrs().batch_num.is_none() {
            continue;
        }
        let mut cur_max = max_id;
        for &g in node.subgraphs() {
            let mut cur = max_id;
            build_dim(ctx, table, kind, g, 0, &mut cur, &mut seen)?;
            cur_max = cur_max.max(cur);
        }
        max_id = cur_max;
    }
    if max_id == 0 {
        return Ok(());
    }
    let live = |t: &SyncTable, i: usize| t.recs[i].removed.is_none() && t.recs[i].kind == kind;
    // The other live ids follow in GE's order: by sender name, then by receiver name.
    let ends: [fn(&SyncTable, NodeId) -> &[usize]; 2] = [SyncTable::sends, SyncTable::recvs];
    for syncs_of in ends {
        let nodes = ctx.senders_by_name(
            ctx.order
                .iter()
                .copied()
                .filter(|&n| !syncs_of(table, n).is_empty()),
        );
        for n in nodes {
            for &i in syncs_of(table, n) {
                if live(table, i) {
                    let id = table.recs[i].id;
                    seen.entry(id).or_insert_with(|| {
                        max_id += 1;
                        max_id - 1
                    });
                }
            }
        }
    }
    for r in table.recs.iter_mut() {
        if r.removed.is_none() && r.kind == kind {
            r.id = seen[&r.id];
        }
    }
    table.set_next_id(kind, max_id);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn build_dim(
    ctx: &Ctx,
    table: &SyncTable,
    kind: SyncKind,
    g: GraphId,
    depth: u32,
    cur: &mut u32,
    seen: &mut BTreeMap<u32, u32>,
) -> Result<(), StreamError> {
    if depth > MAX_SUBGRAPH_DEPTH {
        return Err(StreamError::new(
            ErrorKind::NestingTooDeep,
            format!(
                "multi-dims event reuse: subgraph `{}` is nested deeper than {MAX_SUBGRAPH_DEPTH}",
                ctx.sg.graph(g).name
            ),
        ));
    }
    for &n in &ctx.sg.graph(g).nodes {
        let mut note = |i: usize, peer: NodeId| {
            let r = &table.recs[i];
            if r.kind == kind && ctx.sg.node(peer).graph == g && !seen.contains_key(&r.id) {
                seen.insert(r.id, *cur);
                *cur += 1;
            }
        };
        for &i in table.sends(n) {
            note(i, table.recs[i].recv);
        }
        for &i in table.recvs(n) {
            note(i, table.recs[i].send);
        }
        for &sub in ctx.sg.node(n).subgraphs() {
            build_dim(ctx, table, kind, sub, depth + 1, cur, seen)?;
        }
    }
    Ok(())
}

/// `_event_multiplexing` reuse, applied by GE only above `threshold` events: the listed
/// event between a node and its peer takes the user's id (offset past the current ids),
/// then ids are renumbered.
pub fn apply_event_multiplexing(ctx: &Ctx, table: &mut SyncTable) -> Result<(), StreamError> {
    if ctx
        .sg
        .nodes()
        .iter()
        .all(|n| n.attrs().event_multiplexing.is_empty())
    {
        return Ok(());
    }
    let mut by_name: FastMap<&str, NodeId> = FastMap::default();
    let mut entries: Vec<(NodeId, bool, String, u32)> = Vec::new();
    for &n in ctx.order {
        let node = ctx.sg.node(n);
        by_name.entry(&*node.name).or_insert(n);
        for raw in &node.attrs().event_multiplexing {
            let parts: Vec<&str> = raw.split(';').collect();
            let bad =
                |msg: String| StreamError::new(ErrorKind::EventMultiplexing, msg).at(&node.name);
            if parts.len() != 3 {
                return Err(bad(format!(
                    "_event_multiplexing item `{raw}` must have 3 `;`-separated fields"
                )));
            }
            let id: i64 = parts[2].trim().parse().map_err(|_| {
                bad(format!(
                    "_event_multiplexing item `{raw}`: event id is not an integer"
                ))
            })?;
            let id = u32::try_from(id).map_err(|_| {
                bad(format!(
                    "_event_multiplexing item `{raw}`: event id is out of range"
                ))
            })?;
            let send = match parts[0] {
                "SendTo" => true,
                "RecvFrom" => false,
                k => {
                    return Err(bad(format!(
                        "_event_multiplexing keyword `{k}` is not SendTo or RecvFrom"
                    )))
                }
            };
            entries.push((n, send, parts[1].to_string(), id));
        }
    }
    if entries.is_empty() {
        return Ok(());
    }
    let base = table.next_id(SyncKind::Event);
    // Send entries first, then recv entries (GE's two ReuseEvent phases).
    for phase_send in [true, false] {
        for (n, send, peer, id) in &entries {
            if *send != phase_send {
                continue;
            }
            let Some(&p) = by_name.get(peer.as_str()) else {
                return Err(StreamError::new(
                    ErrorKind::EventMultiplexing,
                    format!("_event_multiplexing peer `{peer}` does not exist"),
                )
                .at(&ctx.sg.node(*n).name));
            };
            let (s, r) = if *send { (*n, p) } else { (p, *n) };
            let found = table
                .recvs(r)
                .iter()
                .copied()
                .find(|&i| table.recs[i].send == s && table.recs[i].kind == SyncKind::Event);
            if let Some(i) = found {
                table.recs[i].id = base.checked_add(*id).ok_or_else(|| {
                    StreamError::new(
                        ErrorKind::EventMultiplexing,
                        format!("_event_multiplexing id {id} is too large"),
                    )
                    .at(&ctx.sg.node(*n).name)
                })?;
                table.move_to_back(i);
            }
        }
    }
    let next = renumber(ctx, table, SyncKind::Event, 0, |r| {
        r.send_side == Side::Main
    });
    renumber(ctx, table, SyncKind::Event, next, |r| {
        r.send_side != Side::Main
    });
    Ok(())
}

/// `InsertSyncEventsWithAttachedStream`: producers of the inputs an attached stream depends
/// on signal that attached stream. (GE also redirects a producer that is a variable to its
/// last reference writer; that refinement is not modelled.)
pub fn insert_attached(
    ctx: &Ctx,
    attached: &[Vec<StreamId>],
    table: &mut SyncTable,
    stats: &mut EventStats,
) -> Result<(), StreamError> {
    let skip = ctx.in_ffts();
    for &n in ctx.order {
        let node = ctx.sg.node(n);
        if skip[n] || node.attrs().attached.is_empty() {
            continue;
        }
        let mut depends: Vec<NodeId> = Vec::new();
        for req in &node.attrs().attached {
            for &i in &req.depend_inputs {
                let Some(&p) = node.data_in().get(i) else {
                    return Err(StreamError::new(
                        ErrorKind::InvalidGraph,
                        format!(
                            "attached stream depends on input {i}, but the node has {} inputs",
                            node.data_in().len()
                        ),
                    )
                    .at(&node.name));
                };
                let p = first_active_after(ctx, p).unwrap_or(p);
                if !depends.contains(&p) {
                    depends.push(p);
                }
            }
        }
        for src in depends {
            let sn = ctx.sg.node(src);
            // GE skips Data, Const and Constant producers; by trait that is every data-like
            // and const-like op (RefData, AippData, AnnData, ConstPlaceHolder too).
            if sn.kind.any(NodeKind::DATA | NodeKind::CONST) {
                continue;
            }
            for (who, list) in [(src, &attached[src]), (n, &attached[n])] {
                if list.len() > 1 {
                    return Err(StreamError::new(
                        ErrorKind::InvalidGraph,
                        format!("supports at most 1 attached stream, has {}", list.len()),
                    )
                    .at(&ctx.sg.node(who).name));
                }
            }
            let sa = attached[src].first().copied().unwrap_or(INVALID_STREAM);
            let da = attached[n].first().copied().unwrap_or(INVALID_STREAM);
            if sa == da {
                continue;
            }
            let (send_side, recv_side) = match (sa == INVALID_STREAM, da == INVALID_STREAM) {
                (true, false) => (Side::Main, Side::Attached),
                (false, false) => (Side::Attached, Side::Attached),
                _ => (Side::Attached, Side::Main),
            };
            table.add(
                SyncKind::Event,
                src,
                n,
                send_side,
                recv_side,
                EventOrigin::AttachedDepend,
                0,
            );
            stats.attached_events += 1;
        }
    }
    Ok(())
}

/// `GetDependNodesWithStreamAcitveInSubgraph`: a producer placed before the subgraph's
/// first-active StreamActive is replaced by that StreamActive.
fn first_active_after(ctx: &Ctx, p: NodeId) -> Option<NodeId> {
    let g = ctx.sg.node(p).graph;
    let active = ctx.sg.graph(g).nodes.iter().copied().find(|&m| {
        let node = ctx.sg.node(m);
        node.is(NodeKind::STREAM_ACTIVE) && node.attrs().subgraph_first_active
    })?;
    (ctx.topo[p] < ctx.topo[active]).then_some(active)
}

/// `CoverAllStreamByNetoutput`: the last node of every attached stream signals its graph's
/// NetOutput.
pub fn cover_attached_by_netoutput(
    ctx: &Ctx,
    attached: &[Vec<StreamId>],
    table: &mut SyncTable,
    stats: &mut EventStats,
) {
    let mut last: BTreeMap<StreamId, NodeId> = BTreeMap::new();
    for &n in ctx.order {
        for &a in &attached[n] {
            last.insert(a, n);
        }
    }
    for (a, n) in last {
        let g = ctx.sg.node(n).graph;
        let Some(out) = ctx
            .sg
            .graph(g)
            .nodes
            .iter()
            .copied()
            .find(|&m| ctx.sg.node(m).is(NodeKind::NET_OUTPUT))
        else {
            continue;
        };
        table.add(
            SyncKind::Event,
            n,
            out,
            Side::AttachedStream(a),
            Side::Main,
            EventOrigin::AttachedToNetOutput,
            0,
        );
        stats.attached_events += 1;
    }
}
