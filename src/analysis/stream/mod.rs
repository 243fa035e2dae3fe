//! Stream allocation: GE's multi-stream decision engine on a frozen view.
//!
//! GE decides everything first and mutates the graph once at the end (spec 5.3, "graph
//! stability"). So does this module: the IR layer fills a [`StreamGraph`], [`allocate`]
//! returns an [`Allocation`] — every node's stream and the rule behind it, the events and
//! notifies with their ids, the split map, the activation lists, and the Send/Recv/
//! StreamActive nodes to create with GE's names — and the IR pass applies it.
//!
//! Order of work, as in GE (`LogicalStreamAllocator::Assign`, then
//! `StreamAllocator::InsertSyncNodesByLogicStream` and `SplitStreamAndRefreshTaskDef`):
//! 1. [`logical`]: engine partition and the logical pass chain, dense renumbering,
//!    attached streams;
//! 2. [`activation`]: active stream lists by label and for subgraphs;
//! 3. [`events`]: a sync per cross-stream edge, GE's three optimisations, then (beyond GE)
//!    [`clocks`] drops syncs implied by stream order plus the rest; renumbering, multi-dims
//!    reuse, `_event_multiplexing`, attached-stream events;
//! 4. StreamSwitch StreamActive nodes and loop activation;
//! 5. [`split`]: physical split and the activation updates it needs;
//! 6. [`summary`]: the Send/Recv nodes to create, the JSON summary, a table, Graphviz.
//!
//! # For the IR pass
//!
//! Fill a [`StreamGraph`]: the root `func.func` first, then every subgraph with
//! [`StreamGraph::add_subgraph`] (a node's subgraphs in instance order; the passes visit
//! them in GE's `GetAllSubgraphs` order, [`StreamGraph::graph_order`]); nodes with [`StreamGraph::add_node`] in topological order per graph
//! (name, GE type, engine from the op table); data edges with
//! [`StreamGraph::add_data_edge`] in (output index, use) order, control edges with
//! [`StreamGraph::add_ctrl_edge`]; and the attributes of [`NodeAttrs`] that the op
//! carries. Build [`StreamOptions`] with [`StreamOptions::set`] from `key=value` pass
//! options (GE's names). Then [`allocate`] and apply the [`Allocation`]:
//! * `stream[n]` / `attached[n]`: the physical `stream_id` (and attached ids) to write;
//!   `logical.stream[n]` is `_logic_stream_id`; `logical.decision(n)` is the rule and text
//!   for an `ascend.reason`-style attribute;
//! * `planned`: the Send/Recv (or notify) ops to create, in order, each with its name,
//!   stream, `event_id`, and the node it follows (Send) or precedes (Recv);
//! * `activation.active_streams` / `active_labels`: `_active_stream_list` /
//!   `_active_label_list` per node (keys `>= n` are `activation.planned` StreamActive ops
//!   to create after their StreamSwitch, taking over `moved_ctrl_targets`);
//! * `split.physical_to_logical`, `stream_num`, `event_num`, `notify_num` for the model;
//! * [`Allocation::summary_json`], [`Allocation::summary_table`], [`Allocation::to_dot`].
//!
//! ```
//! use ge_mlir::analysis::stream::*;
//! let mut g = StreamGraph::new("g");
//! let x = g.add_node(0, "x", "Data", "DNN_VM_GE_LOCAL");
//! g.set_kind(x, NodeKind::SOURCE); // the IR layer takes kinds from the op table
//! let a = g.add_node(0, "a", "Conv2D", "AIcoreEngine");
//! let h = g.add_node(0, "h", "HcomAllReduce", "DNN_HCCL");
//! let b = g.add_node(0, "b", "Relu", "AIcoreEngine");
//! let c = g.add_node(0, "c", "Add", "AIcoreEngine");
//! g.add_data_edge(x, a);
//! g.add_data_edge(a, h);
//! g.add_data_edge(a, b);
//! g.add_data_edge(h, c);
//! g.add_data_edge(b, c);
//! let r = allocate(&g, &EngineTable::ge_default(), &StreamOptions::default()).unwrap();
//! assert_ne!(r.stream[h], r.stream[a]); // HCCL owns its stream
//! assert_eq!(r.logical.decision(h).rule, StreamRule::IndependentEngine);
//! assert_eq!(r.event_num, 2); // a → h and h → c
//! assert_eq!(r.planned[0].name, "g_Send_0");
//! ```

pub mod activation;
pub mod clocks;
pub mod events;
pub mod logical;
pub mod model;
pub mod partition;
mod sparse;
pub mod split;
mod subgraph_entry;
pub mod summary;

#[cfg(test)]
mod tests;

pub use activation::{Activation, PlannedActive};
pub use events::{EventOrigin, EventStats, Removal, Side, SyncKind, SyncRec, SyncTable};
pub use logical::{Decision, LogicalAssignment, StreamRule};
pub use model::*;
pub use split::SplitResult;
pub use summary::PlannedSync;

use events::Ctx;

/// Everything the allocation decided.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// Root graph name (GE names Send/Recv nodes after it).
    pub root: String,
    /// Logical streams, attached streams and the rule behind each node's stream.
    pub logical: LogicalAssignment,
    /// Physical main stream per node after the split. Nodes without a stream (data-like
    /// sources) are on stream 0, as GE's `PostProcessOfSplitStreams` leaves them; their
    /// logical stream stays -1.
    pub stream: Vec<StreamId>,
    /// Physical attached streams per node.
    pub attached: Vec<Vec<StreamId>>,
    /// Every event and notify, removed ones included (with the rule that removed them).
    pub syncs: SyncTable,
    pub activation: Activation,
    pub split: SplitResult,
    /// Physical streams in total (main, attached, split, planned StreamActive).
    pub stream_num: i64,
    /// Event ids are `0..event_num`.
    pub event_num: u32,
    /// Notify ids are `0..notify_num`.
    pub notify_num: u32,
    pub stats: EventStats,
    /// Send/Recv nodes to create, in GE's order and with GE's names.
    pub planned: Vec<PlannedSync>,
}

/// Runs the whole allocation on a frozen view.
pub fn allocate(
    sg: &StreamGraph,
    engines: &EngineTable,
    opts: &StreamOptions,
) -> Result<Allocation, StreamError> {
    sg.validate()?;
    let logical = logical::assign_logical(sg, engines, opts)?;
    let order = sg.all_nodes();
    let mut topo = vec![0usize; order.len()];
    for (i, &n) in order.iter().enumerate() {
        topo[n] = i;
    }
    let ctx = Ctx::new(sg, order, &topo, &logical.labels);
    let mut stream = logical.stream.clone();
    let mut attached = logical.attached.clone();
    let mut act = Activation::pre_process(sg, order, &stream, &attached, &logical.labels);
    let mut table = SyncTable::new(sg.nodes().len());
    let mut stats = EventStats::default();
    let kind = if opts.use_notify {
        SyncKind::Notify
    } else {
        SyncKind::Event
    };

    events::insert_sync(&ctx, &stream, &act, &mut table, &mut stats, kind)?;
    events::optimize(&ctx, &stream, &act, &mut table, &mut stats);
    stats.after_ge_rules = table.alive().count();
    let redundant = clocks::redundant_syncs(order, &stream, &table);
    stats.minimal = stats.after_ge_rules - redundant.len();
    if opts.minimize_events {
        stats.removed_transitive = redundant.len();
        for i in redundant {
            table.remove(i, Removal::Transitive);
        }
    }
    events::renumber(&ctx, &mut table, SyncKind::Notify, 0, |_| true);
    let next = events::renumber(&ctx, &mut table, SyncKind::Event, 0, |r| {
        r.send_side == Side::Main
    });
    events::renumber(&ctx, &mut table, SyncKind::Event, next, |r| {
        r.send_side != Side::Main
    });
    events::reuse_for_multi_dims(&ctx, &mut table, SyncKind::Event)?;
    if opts.use_notify {
        events::reuse_for_multi_dims(&ctx, &mut table, SyncKind::Notify)?;
    }
    if table.next_id(SyncKind::Event) > opts.event_reuse_threshold {
        events::apply_event_multiplexing(&ctx, &mut table)?;
    }
    events::insert_attached(&ctx, &attached, &mut table, &mut stats)?;

    let mut stream_num = logical.stream_num;
    act.update_switch_nodes(sg, order, &logical.labels, &mut stream_num, false)?;
    let before = table.recs.len();
    act.set_for_loop(sg, order, &stream, stream_num, None, &mut table, 0)?;
    stats.loop_events += table.recs.len() - before;
    events::cover_attached_by_netoutput(&ctx, &attached, &mut table, &mut stats);

    let split = if opts.dynamic_shape || opts.unlimited_stream_depth {
        let mut s = SplitResult {
            max_task: opts.max_task_normal,
            ..Default::default()
        };
        for id in 0..stream_num {
            s.physical_to_logical.insert(id, id);
        }
        s
    } else {
        let before = table.recs.len();
        let base = table.next_id(SyncKind::Event);
        // The walk decides on its own counts; the final recount (what the lowering emits)
        // decides. A stream over its limit retries the walk with that margin less.
        let saved = (
            stream.clone(),
            attached.clone(),
            table.clone(),
            act.clone(),
            stream_num,
        );
        let mut tighten = 0;
        let s = loop {
            let s = split::split_streams(
                sg,
                order,
                &logical.labels,
                opts,
                logical.main_stream_num,
                &mut stream_num,
                &mut stream,
                &mut attached,
                &mut table,
                &mut act,
                tighten,
            )?;
            let counts = split::physical_task_counts(
                sg,
                &stream,
                &attached,
                &logical.attached,
                &table,
                &act,
            );
            let usable = split::usable_tasks(s.max_task);
            let excess = split::overfull_streams(sg, &stream, &attached, &table, &counts, usable)
                .iter()
                .map(|&(_, t)| t - usable)
                .max()
                .unwrap_or(0);
            if excess <= 0 || tighten >= 8 || usable - tighten - excess < 4 {
                break s;
            }
            tighten += excess;
            (stream, attached, table, act, stream_num) = saved.clone();
        };
        prune_implied_cuts(
            order,
            &logical.stream,
            &mut table,
            before,
            base,
            opts,
            &mut stats,
        );
        for r in &table.recs[before..] {
            match (r.origin, r.removed) {
                (EventOrigin::StreamSplit, None) => stats.split_events += 1,
                (EventOrigin::LoopBack, None) => stats.loop_events += 1,
                _ => {}
            }
        }
        s
    };
    let mut split = split;
    if split.applied {
        // The final recount, as `--lower-to-tasks` emits the tasks: a stream over its usable
        // limit that a split could have made smaller is an error, never a result.
        split.stream_tasks =
            split::physical_task_counts(sg, &stream, &attached, &logical.attached, &table, &act);
        let usable = split::usable_tasks(split.max_task);
        let overfull =
            split::overfull_streams(sg, &stream, &attached, &table, &split.stream_tasks, usable);
        if let Some(&(s, t)) = overfull.first() {
            let culprit = order.iter().rev().find(|&&n| stream[n] == s);
            let e = StreamError::new(
                ErrorKind::Split,
                format!(
                    "physical stream {s} would hold {t} tasks, more than the {usable} a stream of \
                     {} tasks holds beside GE's {RESERVED_TASK_NUM} reserved ones: no split \
                     point fits (labels, first-active nodes and subgraph boundaries add tasks \
                     to their parent's stream)",
                    split.max_task
                ),
            );
            return Err(match culprit {
                Some(&n) => e.at(&sg.node(n).name),
                None => e,
            });
        }
    }
    let cuts = table
        .recs
        .iter()
        .filter(|r| r.origin == EventOrigin::StreamSplit && is_main_cut(r))
        .count();
    stats.minimal_physical = stats.minimal + cuts - stats.split_events_implied;
    // PostProcessOfSplitStreams.
    for s in stream.iter_mut() {
        if *s == INVALID_STREAM {
            *s = 0;
        }
    }
    stream_num = stream_num.max(1);
    let max_streams = if split.huge_stream {
        opts.max_stream_huge
    } else {
        opts.max_stream_normal
    };
    if stream_num > max_streams {
        return Err(StreamError::new(
            ErrorKind::TooManyStreams,
            format!("{stream_num} streams needed, the limit is {max_streams}"),
        ));
    }
    let event_num = table.next_id(SyncKind::Event);
    let notify_num = table.next_id(SyncKind::Notify);
    if event_num > opts.max_events {
        return Err(StreamError::new(
            ErrorKind::TooManyEvents,
            format!(
                "{event_num} events needed, the limit is {}",
                opts.max_events
            ),
        ));
    }
    if notify_num > opts.max_notifies {
        return Err(StreamError::new(
            ErrorKind::TooManyNotifies,
            format!(
                "{notify_num} notifies needed, the limit is {}",
                opts.max_notifies
            ),
        ));
    }
    let planned =
        summary::plan_sync_nodes(sg, order, &stream, &attached, &logical.attached, &table);
    Ok(Allocation {
        root: sg.root_name().to_string(),
        logical,
        stream,
        attached,
        syncs: table,
        activation: act,
        split,
        stream_num,
        event_num,
        notify_num,
        stats,
        planned,
    })
}

/// A split event between main streams: the cut of a logical stream (attached streams are
/// cut too, but their order is not part of the happens-before the minimum counts).
fn is_main_cut(r: &SyncRec) -> bool {
    r.phase == 1 && r.send_side == Side::Main && r.recv_side == Side::Main
}

/// Beyond GE: the split events whose cut other events already order (the first node of the
/// new physical stream waits for a node that runs after the cut's last node) are counted
/// and, with `minimize_events`, dropped; the ids numbered from `base` stay continuous.
#[allow(clippy::too_many_arguments)]
fn prune_implied_cuts(
    order: &[NodeId],
    logical: &[StreamId],
    table: &mut SyncTable,
    from: usize,
    base: u32,
    opts: &StreamOptions,
    stats: &mut EventStats,
) {
    let cuts: Vec<usize> = (from..table.recs.len())
        .filter(|&i| {
            let r = &table.recs[i];
            r.origin == EventOrigin::StreamSplit && r.removed.is_none() && is_main_cut(r)
        })
        .collect();
    if cuts.is_empty() {
        return;
    }
    let pairs: Vec<(NodeId, NodeId)> = cuts
        .iter()
        .map(|&i| (table.recs[i].send, table.recs[i].recv))
        .collect();
    let implied = clocks::implied_cuts(order, logical, table, &pairs);
    stats.split_events_implied = implied.iter().filter(|&&b| b).count();
    if !opts.minimize_events || stats.split_events_implied == 0 {
        return;
    }
    for (&i, _) in cuts.iter().zip(&implied).filter(|(_, &b)| b) {
        table.remove(i, Removal::Transitive);
    }
    stats.removed_transitive += stats.split_events_implied;
    table.compact_ids_from(SyncKind::Event, base);
}

/// The dependencies GE synchronises: every data and control edge, plus subgraph entries
/// and exits. Used by the property tests and by `--verify` style checks.
pub fn dependencies(sg: &StreamGraph) -> Vec<(NodeId, NodeId)> {
    let mut deps = Vec::new();
    for (id, n) in sg.nodes().iter().enumerate() {
        for d in n.out_all() {
            deps.push((id, d));
        }
    }
    for g in sg.graphs().iter().skip(1) {
        let Some(parent) = g.parent else {
            continue;
        };
        let p = sg.node(parent);
        for &n in &g.nodes {
            if sg.node(n).in_all().next().is_none() {
                deps.extend(p.in_all().map(|i| (i, n)));
            }
        }
        if let Some(&end) = g
            .nodes
            .iter()
            .find(|&&n| sg.node(n).attrs().subgraph_end_node)
        {
            deps.extend(p.out_all().map(|o| (end, o)));
        }
    }
    deps
}

/// Checks an allocation: every dependency whose ends are on different streams is covered by
/// stream order plus syncs (on the logical streams, and on the physical streams with the
/// split events), no sync is implied by the rest (neither on the logical streams before the
/// split nor on the physical streams after it, split events included: the event count is
/// the transitive-reduction minimum), and no sync joins two nodes of one stream.
/// Dependencies that GE orders by activation instead of events are not checked: those into
/// specifically activated streams, out of a StreamSwitch, and out of an Enter.
/// Returns human-readable problems (empty when sound and minimal).
pub fn check(sg: &StreamGraph, alloc: &Allocation, deps: &[(NodeId, NodeId)]) -> Vec<String> {
    let order = sg.all_nodes();
    let stream = &alloc.logical.stream;
    let act = &alloc.activation;
    let deps: Vec<(NodeId, NodeId)> = deps
        .iter()
        .copied()
        .filter(|&(u, v)| {
            !act.specific_streams.contains(&stream[v])
                && !sg
                    .node(u)
                    .kind
                    .any(NodeKind::STREAM_SWITCH | NodeKind::LOOP_ENTER)
        })
        .collect();
    let deps = &deps[..];
    let mut problems = Vec::new();
    for (u, v) in clocks::uncovered(order, stream, &alloc.syncs, deps, false) {
        problems.push(format!(
            "dependency {} -> {} (streams {} -> {}) is not covered",
            sg.node(u).name,
            sg.node(v).name,
            stream[u],
            stream[v]
        ));
    }
    for i in clocks::redundant_syncs(order, stream, &alloc.syncs) {
        let r = &alloc.syncs.recs[i];
        problems.push(format!(
            "event {} from {} to {} is implied by the others",
            r.id,
            sg.node(r.send).name,
            sg.node(r.recv).name
        ));
    }
    for (_, r) in alloc.syncs.alive() {
        if r.phase == 0
            && r.send_side == Side::Main
            && r.recv_side == Side::Main
            && stream[r.send] == stream[r.recv]
        {
            problems.push(format!(
                "event {} joins two nodes of stream {}",
                r.id, stream[r.send]
            ));
        }
    }
    // The physical streams with the split events must order the same dependencies. Nodes
    // without a logical stream impose nothing (they sit on stream 0 only nominally).
    let physical: Vec<StreamId> = (0..stream.len())
        .map(|n| {
            if stream[n] == INVALID_STREAM {
                INVALID_STREAM
            } else {
                alloc.stream[n]
            }
        })
        .collect();
    for i in clocks::redundant_syncs_physical(order, &physical, &alloc.syncs) {
        let r = &alloc.syncs.recs[i];
        problems.push(format!(
            "event {} from {} to {} is implied by the others on the physical streams",
            r.id,
            sg.node(r.send).name,
            sg.node(r.recv).name
        ));
    }
    // Dependencies across a subgraph boundary (into a subgraph from its parent's inputs, out
    // of it to its parent's consumers) reduce to dependencies of the control-flow parent,
    // which are checked: the lowering activates a subgraph's other streams after the
    // parent's inputs are ready and joins them before the parent's consumers run, and the
    // event clocks model neither activation nor join.
    let deps: Vec<(NodeId, NodeId)> = deps
        .iter()
        .copied()
        .filter(|&(u, v)| sg.node(u).graph == sg.node(v).graph)
        .collect();
    let deps = &deps[..];
    for (u, v) in clocks::uncovered(order, &physical, &alloc.syncs, deps, true) {
        problems.push(format!(
            "dependency {} -> {} (physical streams {} -> {}) is not covered after the split",
            sg.node(u).name,
            sg.node(v).name,
            physical[u],
            physical[v]
        ));
    }
    problems
}
