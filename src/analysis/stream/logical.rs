//! Logical stream assignment: GE's `LogicalStreamAllocator` (notes C.2–C.4).
//!
//! Graphs are assigned root first, then every subgraph in order, sharing one stream
//! counter. Per graph: engine partition ([`partition`](super::partition)), then the pass
//! chain in GE's order —
//! `UpdateForMdeGroup → AssignByLabel → IndependentStream → AssignByDependency →
//! NodeStreamUpdate → UpdateForParallelGroup → AllReduceParallel → UpdateForSkippedEngine`
//! — then the topology pass `OptimizeIneffectiveMultiStream`. Single-stream mode runs
//! `SingleStream → NodeStreamUpdate → UpdateForSkippedEngine`. Afterwards the used ids are
//! renumbered densely (`RefreshContinuousStreams`) and attached streams are numbered after
//! the main ones.
//!
//! Every node's final stream carries a [`Decision`] naming the rule that set it.
//!
//! Where GE has a quirk we keep what a user expects, and say so:
//! * `UpdateForMdeGroup` edits node streams that `NodeStreamUpdate` then overwrites, so in
//!   GE `NewStreamId` has no lasting effect. Here the MDE streams are re-applied right after
//!   `NodeStreamUpdate`, so nodes with `NewStreamId` really get their own stream.
//! * `AssignByDependency` decrements the stream counter for a subgraph graph even when it
//!   assigns nothing, which lets the next graph reuse an id that is already taken. Here the
//!   decrement only happens when the pass opened at least one engine block.
//! * GE iterates candidate and successor sets in pointer order; we use list (PlaceHolder)
//!   order and topological order.
//!
//! One rule goes beyond GE (option `subgraph-entry-parent`, default on): after the topology
//! pass, a subgraph node fed only by the subgraph's inputs moves onto the parent stream
//! right before its consumer (`subgraph_entry`), so While bodies' input copies do
//! not open one stream per loop.

use super::model::*;
use super::partition::{partition_graph, EngineSubgraph};
use super::subgraph_entry;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The rule that decided a node's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamRule {
    /// Not decided yet (never in a result).
    None,
    /// Data-like source node in GE's input partition: no stream.
    InputPartition,
    /// `UpdateForMdeGroup`: `NewStreamId` group.
    MdeGroup,
    /// `AssignByLabel`: `_stream_label` / `_user_stream_label`.
    StreamLabel,
    /// `IndependentStream`: engine owns its streams (HCCL).
    IndependentEngine,
    /// `AssignByDependency`: new stream for the engine.
    DependencyNew,
    /// `AssignByDependency`: reuses a predecessor subgraph's stream.
    DependencyReuse,
    /// `AssignByDependency` in a subgraph: the first engine stream is the parent's.
    ParentStream,
    /// `SingleStream`.
    SingleStream,
    /// `NodeStreamUpdate`: `_rts_label_node` goes on the parent stream.
    RtsLabelParent,
    /// `UpdateForParallelGroup`: one new stream per `_parallel_group`.
    ParallelGroup,
    /// `UpdateForParallelGroup`: HCOM group "-1" reuses its single input's stream.
    ParallelGroupInputReuse,
    /// `AllReduceParallel`: successor of an AllReduce moved to a new stream.
    AllReduceParallel,
    /// `UpdateForSkippedEngine`: all producers have no stream.
    SkippedEngineNoStream,
    /// `UpdateForSkippedEngine`: all neighbours share one stream.
    SkippedEngineNeighbour,
    /// `OptimizeIneffectiveMultiStream`: moved between adjacent nodes of another stream.
    IneffectiveMultiStream,
    /// Beyond GE: fed only by the subgraph's inputs, moved onto the parent stream right
    /// before its consumer (`subgraph_entry`).
    SubgraphEntryParent,
    /// Dynamic shape: single stream.
    DynamicSingleStream,
    /// Dynamic shape multi-stream: engine-owned stream.
    DynamicEngineStream,
    /// Dynamic shape multi-stream: forced onto the main stream.
    DynamicMainStream,
    /// Dynamic shape multi-stream: reuses a producer's stream.
    DynamicReuse,
    /// Dynamic shape multi-stream: stream label.
    DynamicLabel,
}

impl StreamRule {
    /// Kebab-case name, as written into `ascend.reason`-style attributes.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamRule::None => "none",
            StreamRule::InputPartition => "input-partition",
            StreamRule::MdeGroup => "mde-group",
            StreamRule::StreamLabel => "stream-label",
            StreamRule::IndependentEngine => "independent-engine",
            StreamRule::DependencyNew => "dependency-new",
            StreamRule::DependencyReuse => "dependency-reuse",
            StreamRule::ParentStream => "parent-stream",
            StreamRule::SingleStream => "single-stream",
            StreamRule::RtsLabelParent => "rts-label-parent",
            StreamRule::ParallelGroup => "parallel-group",
            StreamRule::ParallelGroupInputReuse => "parallel-group-input-reuse",
            StreamRule::AllReduceParallel => "allreduce-parallel",
            StreamRule::SkippedEngineNoStream => "skipped-engine-no-stream",
            StreamRule::SkippedEngineNeighbour => "skipped-engine-neighbour",
            StreamRule::IneffectiveMultiStream => "ineffective-multi-stream",
            StreamRule::SubgraphEntryParent => "subgraph-entry-parent",
            StreamRule::DynamicSingleStream => "dynamic-single-stream",
            StreamRule::DynamicEngineStream => "dynamic-engine-stream",
            StreamRule::DynamicMainStream => "dynamic-main-stream",
            StreamRule::DynamicReuse => "dynamic-reuse",
            StreamRule::DynamicLabel => "dynamic-label",
        }
    }
}

/// Why a node is on its stream: the rule plus a short explanation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub rule: StreamRule,
    pub detail: String,
}

/// An engine subgraph with its final stream, for the summary.
#[derive(Clone, Debug, Serialize)]
pub struct SubgraphInfo {
    pub graph: GraphId,
    pub first_node: NodeId,
    pub node_count: usize,
    pub stream: StreamId,
}

/// An attached stream and who uses it.
#[derive(Clone, Debug, Serialize)]
pub struct AttachedStreamInfo {
    pub id: StreamId,
    pub graph: GraphId,
    pub group: String,
    pub key: String,
    pub nodes: Vec<NodeId>,
}

/// The result of logical assignment.
#[derive(Clone, Debug)]
pub struct LogicalAssignment {
    /// Main logical stream per node (after `RefreshContinuousStreams`); -1 for none.
    pub stream: Vec<StreamId>,
    /// Attached logical streams per node.
    pub attached: Vec<Vec<StreamId>>,
    /// Distinct decisions; nodes index into this table (see [`Self::decision`]).
    pub decisions: Vec<Decision>,
    /// Index into `decisions` per node.
    pub decision_of: Vec<u32>,
    /// Effective `_stream_label` per node (after `TransUserStreamLabel`).
    pub labels: Vec<Label>,
    /// Main streams: ids `0..main_stream_num`.
    pub main_stream_num: i64,
    /// Main plus attached streams.
    pub stream_num: i64,
    pub subgraphs: Vec<SubgraphInfo>,
    pub attached_streams: Vec<AttachedStreamInfo>,
}

impl LogicalAssignment {
    /// The rule behind node `n`'s main stream.
    pub fn decision(&self, n: NodeId) -> &Decision {
        &self.decisions[self.decision_of[n] as usize]
    }
}

/// Effective labels: `TransUserStreamLabel` copies the user label over the inner one
/// (`<user>_<inner>` when `_enable_inner_parallel`).
pub fn effective_labels(sg: &StreamGraph) -> (Vec<Label>, Vec<Label>) {
    // Zeroed tables (`None` is all zeros) whose pages are only touched where a node has a
    // label: most nodes of a big graph have none.
    let mut labels: Vec<Label> = vec![None; sg.nodes().len()];
    let mut users: Vec<Label> = vec![None; sg.nodes().len()];
    for (id, n) in sg.nodes().iter().enumerate() {
        let a = n.attrs();
        match &a.user_stream_label {
            Some(user) => {
                let user: Box<str> = match (&a.stream_label, a.enable_inner_parallel) {
                    (Some(inner), true) => format!("{user}_{inner}").into(),
                    _ => user.as_str().into(),
                };
                labels[id] = Some(user.clone());
                users[id] = Some(user);
            }
            None => {
                if let Some(label) = &a.stream_label {
                    labels[id] = Some(label.as_str().into());
                }
            }
        }
    }
    (labels, users)
}

/// Decisions, interned: nodes and subgraphs hold an index.
struct Decisions {
    table: Vec<Decision>,
    constant: FastMap<(StreamRule, &'static str), u32>,
}

impl Decisions {
    fn new() -> Self {
        let mut d = Decisions {
            table: Vec::new(),
            constant: FastMap::default(),
        };
        d.fixed(StreamRule::None, "");
        d
    }
    /// A decision with its own text.
    fn add(&mut self, rule: StreamRule, detail: String) -> u32 {
        self.table.push(Decision { rule, detail });
        (self.table.len() - 1) as u32
    }
    /// A decision with a fixed text, shared by every node it applies to.
    fn fixed(&mut self, rule: StreamRule, detail: &'static str) -> u32 {
        let table = &mut self.table;
        *self.constant.entry((rule, detail)).or_insert_with(|| {
            table.push(Decision {
                rule,
                detail: detail.to_string(),
            });
            (table.len() - 1) as u32
        })
    }
}

/// One engine subgraph during the pass chain.
struct Sg<'a> {
    part: EngineSubgraph<'a>,
    conf: &'a EngineConf,
    max_parallel: i64,
    stream: StreamId,
    reused: Option<usize>,
    force_attach: bool,
    decision: u32,
}

struct State<'a> {
    sg: &'a StreamGraph,
    opts: &'a StreamOptions,
    engines: &'a EngineTable,
    labels: &'a [Label],
    users: &'a [Label],
    pos: &'a [usize],
    topo: Vec<usize>,
    stream: Vec<StreamId>,
    decision: Vec<u32>,
    dec: Decisions,
    next_stream: i64,
    subgraph_infos: Vec<SubgraphInfo>,
}

/// Takes the next stream id from a counter.
fn take(next: &mut i64) -> i64 {
    *next += 1;
    *next - 1
}

/// Runs logical assignment over the whole view.
pub fn assign_logical(
    sg: &StreamGraph,
    engines: &EngineTable,
    opts: &StreamOptions,
) -> Result<LogicalAssignment, StreamError> {
    let (labels, users) = effective_labels(sg);
    let n = sg.nodes().len();
    let order = sg.all_nodes();
    if opts.dynamic_shape {
        return assign_dynamic(sg, engines, opts, labels, order);
    }
    if opts.single_stream {
        if let Some(mode) = &opts.auto_multistream_mode {
            return Err(StreamError::new(
                ErrorKind::SingleStreamAutoMultistream,
                format!(
                    "option ge.enableSingleStream=true conflicts with ge.autoMultistreamParallelMode={mode}"
                ),
            ));
        }
    }
    let mut topo = vec![0usize; n];
    for (i, &id) in order.iter().enumerate() {
        topo[id] = i;
    }
    let pos = sg.positions();
    let mut st = State {
        sg,
        opts,
        engines,
        labels: &labels,
        users: &users,
        pos: &pos,
        topo,
        // A fresh OpDesc has stream id 0 (notes C.1).
        stream: vec![0; n],
        decision: vec![0; n],
        dec: Decisions::new(),
        next_stream: 0,
        subgraph_infos: Vec::new(),
    };
    for &g in sg.graph_order() {
        let default_stream = match sg.graph(g).parent {
            None => INVALID_STREAM,
            Some(p) => st.stream[p],
        };
        st.assign_graph(g, default_stream)?;
    }
    // RefreshContinuousStreams over every node.
    let used: BTreeSet<StreamId> = st.stream.iter().copied().filter(|&s| s >= 0).collect();
    let remap: BTreeMap<StreamId, StreamId> = used
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, i as i64))
        .collect();
    for s in st.stream.iter_mut() {
        if *s >= 0 {
            *s = remap[s];
        }
    }
    for info in st.subgraph_infos.iter_mut() {
        info.stream = remap.get(&info.stream).copied().unwrap_or(INVALID_STREAM);
    }
    let main_stream_num = remap.len() as i64;
    let (attached, attached_streams, stream_num) = assign_attached(sg, &st.stream, main_stream_num);
    let State {
        stream,
        decision,
        dec,
        subgraph_infos,
        ..
    } = st;
    Ok(LogicalAssignment {
        stream,
        attached,
        decisions: dec.table,
        decision_of: decision,
        labels,
        main_stream_num,
        stream_num,
        subgraphs: subgraph_infos,
        attached_streams,
    })
}

impl<'a> State<'a> {
    fn assign_graph(&mut self, g: GraphId, default_stream: StreamId) -> Result<(), StreamError> {
        let sg: &'a StreamGraph = self.sg;
        let engines: &'a EngineTable = self.engines;
        let part = partition_graph(
            sg,
            g,
            self.labels,
            self.users,
            self.pos,
            self.opts.partition_search_budget,
        );
        let mut sgs: Vec<Sg<'a>> = Vec::with_capacity(part.subgraphs.len());
        for p in part.subgraphs {
            let conf = engines.get(p.engine).ok_or_else(|| {
                StreamError::new(
                    ErrorKind::UnknownEngine,
                    format!("engine `{}` is not in the engine configuration", p.engine),
                )
                .at(&sg.node(p.nodes[0]).name)
            })?;
            let force_attach = p
                .nodes
                .iter()
                .any(|&n| sg.node(n).attrs().force_attach_stream);
            sgs.push(Sg {
                max_parallel: self.opts.max_parallel_of(p.engine),
                part: p,
                conf,
                stream: INVALID_STREAM,
                reused: None,
                force_attach,
                decision: 0,
            });
        }
        if self.opts.single_stream {
            self.single_stream_pass(&mut sgs, default_stream)?;
            self.node_stream_update(g, &sgs, default_stream)?;
            self.update_for_skipped_engine(&sgs);
        } else {
            let mde = self.update_for_mde_group(&sgs);
            self.assign_by_label(&mut sgs);
            self.independent_stream(&mut sgs);
            self.assign_by_dependency(&mut sgs, default_stream);
            self.node_stream_update(g, &sgs, default_stream)?;
            if !mde.is_empty() {
                let d = self.dec.fixed(StreamRule::MdeGroup, "NewStreamId group");
                for &(n, s) in &mde {
                    self.set(n, s, d);
                }
            }
            self.update_for_parallel_group(&sgs);
            self.all_reduce_parallel(g);
            self.update_for_skipped_engine(&sgs);
            self.optimize_ineffective_multi_stream(g);
            if self.opts.subgraph_entry_parent {
                self.subgraph_entry_parent(g, default_stream);
            }
        }
        for s in &sgs {
            self.subgraph_infos.push(SubgraphInfo {
                graph: g,
                first_node: s.part.nodes[0],
                node_count: s.part.nodes.len(),
                stream: s.stream,
            });
        }
        Ok(())
    }

    fn set(&mut self, n: NodeId, s: StreamId, decision: u32) {
        self.stream[n] = s;
        self.decision[n] = decision;
    }

    fn name(&self, n: NodeId) -> &'a str {
        &self.sg.node(n).name
    }

    /// `UpdateForMdeGroupPass`: nodes with `NewStreamId` and no `_parallel_group`, grouped by
    /// current stream (skipping -1); each distinct value in a group gets a new stream.
    fn update_for_mde_group(&mut self, sgs: &[Sg]) -> Vec<(NodeId, StreamId)> {
        let mut by_stream: BTreeMap<StreamId, Vec<NodeId>> = BTreeMap::new();
        for s in sgs {
            for &n in &s.part.nodes {
                let a = &self.sg.node(n).attrs();
                if a.parallel_group.is_none() && a.new_stream_id.is_some() {
                    by_stream.entry(self.stream[n]).or_default().push(n);
                }
            }
        }
        let mut out = Vec::new();
        for (stream, nodes) in by_stream {
            if stream == INVALID_STREAM {
                continue;
            }
            let mut groups: BTreeMap<i64, StreamId> = BTreeMap::new();
            for n in nodes {
                let v = self.sg.node(n).attrs().new_stream_id.unwrap_or_default();
                let next = &mut self.next_stream;
                let s = *groups.entry(v).or_insert_with(|| take(next));
                out.push((n, s));
            }
        }
        out
    }

    /// `AssignByLabelPass`.
    fn assign_by_label(&mut self, sgs: &mut [Sg]) {
        let mut label_streams: FastMap<&str, (StreamId, u32)> = FastMap::default();
        for s in sgs.iter_mut() {
            if s.part.stream_label.is_empty() {
                continue;
            }
            let (next, dec) = (&mut self.next_stream, &mut self.dec);
            let (stream, decision) =
                *label_streams.entry(s.part.stream_label).or_insert_with(|| {
                    let kind = if s.part.user_stream_label.is_empty() {
                        "_stream_label"
                    } else {
                        "_user_stream_label"
                    };
                    let d = dec.add(
                        StreamRule::StreamLabel,
                        format!("{kind} `{}`", s.part.stream_label),
                    );
                    (take(next), d)
                });
            s.stream = stream;
            s.decision = decision;
        }
    }

    /// `IndependentStreamPass`: one stream per (independent engine, label); overrides a
    /// label stream unless the label is a user label.
    fn independent_stream(&mut self, sgs: &mut [Sg]) {
        let mut engine_streams: FastMap<(&str, &str), (StreamId, u32)> = FastMap::default();
        for s in sgs.iter_mut() {
            let assigned_user = s.stream != INVALID_STREAM && !s.part.user_stream_label.is_empty();
            if assigned_user || !s.conf.independent {
                continue;
            }
            let (next, dec) = (&mut self.next_stream, &mut self.dec);
            let key = (s.part.engine, s.part.stream_label);
            let (stream, decision) = *engine_streams.entry(key).or_insert_with(|| {
                let detail = if key.1.is_empty() {
                    format!("engine {} owns its streams", key.0)
                } else {
                    format!("engine {} owns its streams (label `{}`)", key.0, key.1)
                };
                (take(next), dec.add(StreamRule::IndependentEngine, detail))
            });
            s.stream = stream;
            s.decision = decision;
        }
    }

    /// `AssignByDependencyPass` with `UpdateAssignedSubgraphs`/`UpdateReusedSubgraphs`.
    fn assign_by_dependency(&mut self, sgs: &mut [Sg<'a>], default_stream: StreamId) {
        let mut dep = Dependency::default();
        let ends = SameEngineEnds::count(sgs);
        // Distinct producers of the current subgraph in PlaceHolder order, each with its
        // number of End→PlaceHolder pairs into it; `slot` finds a producer's entry while
        // the list is built (a hub feeding thousands of subgraphs, or one subgraph fed by
        // thousands, stays linear).
        let mut candidates: Vec<(usize, u32)> = Vec::new();
        let mut slot: Vec<u32> = vec![u32::MAX; sgs.len()];
        for i in 0..sgs.len() {
            if sgs[i].stream != INVALID_STREAM {
                continue;
            }
            candidates.clear();
            for &p in &sgs[i].part.pld_producers {
                match slot[p] {
                    u32::MAX => {
                        slot[p] = candidates.len() as u32;
                        candidates.push((p, 1));
                    }
                    k => candidates[k as usize].1 += 1,
                }
            }
            for &(p, _) in &candidates {
                slot[p] = u32::MAX;
            }
            let memory_priority = self.opts.memory_priority;
            candidates.retain(|&(p, pairs)| could_reuse(sgs, &ends, i, p, pairs, memory_priority));
            // GetTopPrioritySubgraph: first candidate, replaced by any with a strictly lower
            // compute cost, starting from COST_10.
            let mut best: Option<usize> = candidates.first().map(|&(p, _)| p);
            let mut cost = 10;
            for &(c, _) in &candidates {
                if sgs[c].conf.compute_cost < cost {
                    cost = sgs[c].conf.compute_cost;
                    best = Some(c);
                }
            }
            match best {
                None => dep.assign_new(sgs, i, &mut self.dec),
                Some(p) => {
                    if sgs[p].stream == INVALID_STREAM {
                        dep.assign_new(sgs, p, &mut self.dec);
                    }
                    sgs[i].stream = sgs[p].stream;
                    let root = sgs[p].reused.unwrap_or(p);
                    sgs[i].reused = Some(root);
                    dep.reused.push((i, root));
                    let detail = format!(
                        "reuses the stream of the {} subgraph led by `{}`",
                        sgs[p].part.engine,
                        self.sg.node(sgs[p].part.nodes[0]).name
                    );
                    sgs[i].decision = self.dec.add(StreamRule::DependencyReuse, detail);
                }
            }
        }
        let Dependency {
            engine_count,
            assigned,
            reused,
            ..
        } = dep;
        // UpdateAssignedSubgraphs.
        let mut to_be_updated = INVALID_STREAM;
        if default_stream != INVALID_STREAM && !engine_count.is_empty() {
            self.next_stream -= 1;
            to_be_updated = self.next_stream;
        }
        let mut start: BTreeMap<&str, i64> = BTreeMap::new();
        for (engine, count) in &engine_count {
            start.insert(engine, self.next_stream);
            self.next_stream += count;
        }
        for &i in &assigned {
            let s = sgs[i].stream + start[sgs[i].part.engine];
            if s == to_be_updated {
                sgs[i].stream = default_stream;
                sgs[i].decision = self.dec.add(
                    StreamRule::ParentStream,
                    format!(
                        "first {} stream of the subgraph is the parent's stream",
                        sgs[i].part.engine
                    ),
                );
            } else {
                sgs[i].stream = s;
            }
        }
        for &(cur, root) in &reused {
            sgs[cur].stream = sgs[root].stream;
        }
    }

    /// `SingleStreamPass`.
    fn single_stream_pass(
        &mut self,
        sgs: &mut [Sg],
        default_stream: StreamId,
    ) -> Result<(), StreamError> {
        let stream = if default_stream == INVALID_STREAM {
            take(&mut self.next_stream)
        } else {
            default_stream
        };
        let d = self
            .dec
            .fixed(StreamRule::SingleStream, "ge.enableSingleStream=true");
        for s in sgs.iter_mut() {
            if s.stream != INVALID_STREAM {
                continue;
            }
            if !s.part.stream_label.is_empty() {
                return Err(StreamError::new(
                    ErrorKind::SingleStreamLabel,
                    format!(
                        "option ge.enableSingleStream=true conflicts with stream label \"{}\"; set ge.enableSingleStream to false",
                        s.part.stream_label
                    ),
                )
                .at(&self.sg.node(s.part.nodes[0]).name));
            }
            s.stream = stream;
            s.decision = d;
        }
        Ok(())
    }

    /// `NodeStreamUpdatePass`: subgraph streams onto nodes; `_rts_label_node` on the
    /// default stream; nodes outside any subgraph (input partition) get -1.
    fn node_stream_update(
        &mut self,
        g: GraphId,
        sgs: &[Sg],
        default_stream: StreamId,
    ) -> Result<(), StreamError> {
        for s in sgs {
            if !s.conf.skip_assign_stream && s.stream == INVALID_STREAM {
                return Err(StreamError::new(
                    ErrorKind::UnassignedSubgraph,
                    format!(
                        "subgraph of engine {} has not been assigned a stream",
                        s.part.engine
                    ),
                )
                .at(&self.sg.node(s.part.nodes[0]).name));
            }
        }
        let input = self.dec.fixed(
            StreamRule::InputPartition,
            "data-like source node: GE's input partition",
        );
        let sg = self.sg;
        for &n in &sg.graph(g).nodes {
            self.set(n, INVALID_STREAM, input);
        }
        let rts = self.dec.fixed(
            StreamRule::RtsLabelParent,
            "_rts_label_node runs on the parent stream",
        );
        for s in sgs {
            for &n in &s.part.nodes {
                if sg.node(n).attrs().rts_label_node {
                    self.set(n, default_stream, rts);
                } else {
                    self.set(n, s.stream, s.decision);
                }
            }
        }
        Ok(())
    }

    /// `UpdateForParallelGroupPass`.
    fn update_for_parallel_group(&mut self, sgs: &[Sg]) {
        let sg = self.sg;
        let mut by_stream: BTreeMap<StreamId, Vec<NodeId>> = BTreeMap::new();
        for s in sgs {
            for &n in &s.part.nodes {
                if sg.node(n).attrs().parallel_group.is_some() && self.users[n].is_none() {
                    by_stream.entry(self.stream[n]).or_default().push(n);
                }
            }
        }
        for (stream, nodes) in by_stream {
            if stream == INVALID_STREAM {
                continue;
            }
            let mut groups: FastMap<&str, (StreamId, u32)> = FastMap::default();
            for n in nodes {
                let group = sg.node(n).attrs().parallel_group.as_deref().unwrap_or("");
                if group == "-1" {
                    let ins = sg.node(n).data_in();
                    if ins.len() == 1 && self.stream[ins[0]] != INVALID_STREAM {
                        let producer = ins[0];
                        let d = self.dec.add(
                            StreamRule::ParallelGroupInputReuse,
                            format!(
                                "_parallel_group \"-1\": reuses the stream of its only input `{}`",
                                self.name(producer)
                            ),
                        );
                        self.set(n, self.stream[producer], d);
                        continue;
                    }
                }
                let (next, dec) = (&mut self.next_stream, &mut self.dec);
                let (s, d) = *groups.entry(group).or_insert_with(|| {
                    (
                        take(next),
                        dec.add(
                            StreamRule::ParallelGroup,
                            format!("_parallel_group `{group}`"),
                        ),
                    )
                });
                self.set(n, s, d);
            }
        }
    }

    /// `AllReduceParallelPass` (only with `ge.hcomParallel`).
    fn all_reduce_parallel(&mut self, g: GraphId) {
        if !self.opts.hcom_parallel {
            return;
        }
        let sg = self.sg;
        let mut succs: BTreeSet<(usize, NodeId)> = BTreeSet::new();
        let mut visited = FastSet::default();
        for &n in &sg.graph(g).nodes {
            let node = sg.node(n);
            if !node.is(NodeKind::ALL_REDUCE)
                || node.attrs().fusion.unwrap_or(-1) <= 0
                || self.users[n].is_some()
            {
                continue;
            }
            let label = self.labels[n].as_deref().unwrap_or("");
            let mut frontier = vec![n];
            visited.clear();
            while let Some(cur) = frontier.pop() {
                for &out in sg.node(cur).data_out() {
                    let out_label = self.labels[out].as_deref().unwrap_or("");
                    let parallel =
                        out_label == label || (!label.is_empty() && out_label.is_empty());
                    if parallel && visited.insert(out) {
                        succs.insert((self.topo[out], out));
                        frontier.push(out);
                    }
                }
            }
        }
        let d = self.dec.fixed(
            StreamRule::AllReduceParallel,
            "successor of a fused AllReduce (ge.hcomParallel)",
        );
        let mut remap: BTreeMap<StreamId, StreamId> = BTreeMap::new();
        for (_, n) in succs {
            let old = self.stream[n];
            if old == INVALID_STREAM {
                continue;
            }
            let next = &mut self.next_stream;
            let new = *remap.entry(old).or_insert_with(|| take(next));
            if !sg.node(n).is(NodeKind::ALL_REDUCE) {
                self.set(n, new, d);
            }
        }
    }

    /// `UpdateForSkippedEnginePass`.
    fn update_for_skipped_engine(&mut self, sgs: &[Sg]) {
        let sg = self.sg;
        let mut candidates: Vec<NodeId> = Vec::new();
        for s in sgs {
            if s.conf.skip_assign_stream && s.part.stream_label.is_empty() {
                for &n in &s.part.nodes {
                    if self.stream[n] != INVALID_STREAM {
                        candidates.push(n);
                    }
                }
            }
        }
        if candidates.is_empty() {
            return;
        }
        // In graph order, as GE walks the graph's nodes.
        candidates.sort_by_key(|&n| self.pos[n]);
        let none = self.dec.fixed(
            StreamRule::SkippedEngineNoStream,
            "skip engine and no producer has a stream",
        );
        let single = self.dec.fixed(
            StreamRule::SkippedEngineNeighbour,
            "skip engine: every neighbour is on one stream",
        );
        for n in candidates {
            let node = sg.node(n);
            if node.subgraphs().is_empty()
                && node.in_all().all(|p| self.stream[p] == INVALID_STREAM)
            {
                self.set(n, INVALID_STREAM, none);
            } else if node.out_all().next().is_some() {
                // The one valid stream among all neighbours, if there is exactly one.
                let mut only: Option<StreamId> = None;
                let mut several = false;
                for m in node.in_all().chain(node.out_all()) {
                    let s = self.stream[m];
                    if s == INVALID_STREAM {
                        continue;
                    }
                    match only {
                        None => only = Some(s),
                        Some(o) if o != s => several = true,
                        _ => {}
                    }
                }
                if let (Some(s), false) = (only, several) {
                    self.set(n, s, single);
                }
            }
        }
    }

    /// `OptimizeIneffectiveMultiStreamPass` (topology pass).
    fn optimize_ineffective_multi_stream(&mut self, g: GraphId) {
        let sg = self.sg;
        let nodes = &sg.graph(g).nodes;
        let mut label_streams: FastSet<StreamId> = FastSet::default();
        let has_label = |st: &Self, n: NodeId| st.labels[n].is_some() || st.users[n].is_some();
        // Topo ids per stream: a graph's nodes come in increasing topo id, so each list is
        // sorted and the sets are bulk-built (one insert per node is several times slower).
        let mut lists: BTreeMap<StreamId, Vec<usize>> = BTreeMap::new();
        for &n in nodes {
            let s = self.stream[n];
            if s == INVALID_STREAM {
                continue;
            }
            if has_label(self, n) {
                label_streams.insert(s);
            }
            lists.entry(s).or_default().push(self.topo[n]);
        }
        let mut ids: BTreeMap<StreamId, BTreeSet<usize>> = lists
            .into_iter()
            .map(|(s, list)| (s, list.into_iter().collect()))
            .collect();
        // (stream, nearest input topo id, nearest output topo id) per neighbour stream.
        let mut io: Vec<(StreamId, Option<usize>, Option<usize>)> = Vec::new();
        for &n in nodes {
            let node = sg.node(n);
            let cur = self.stream[n];
            if has_label(self, n)
                || node.attrs().new_stream_id.is_some()
                || node.attrs().parallel_group.is_some()
                || cur == INVALID_STREAM
            {
                continue;
            }
            if node
                .in_all()
                .chain(node.out_all())
                .any(|m| self.stream[m] == cur)
            {
                continue;
            }
            io.clear();
            let mut note = |s: StreamId, t: usize, input: bool| {
                let i = match io.iter().position(|e| e.0 == s) {
                    Some(i) => i,
                    None => {
                        io.push((s, None, None));
                        io.len() - 1
                    }
                };
                let e = &mut io[i];
                if input {
                    e.1 = Some(e.1.map_or(t, |x| x.max(t)));
                } else {
                    e.2 = Some(e.2.map_or(t, |x| x.min(t)));
                }
            };
            for p in node.in_all() {
                if self.stream[p] != INVALID_STREAM {
                    note(self.stream[p], self.topo[p], true);
                }
            }
            for c in node.out_all() {
                if self.stream[c] != INVALID_STREAM {
                    note(self.stream[c], self.topo[c], false);
                }
            }
            io.sort_by_key(|e| e.0);
            for &(s, input, output) in &io {
                if label_streams.contains(&s) {
                    continue;
                }
                let (Some(input), Some(output)) = (input, output) else {
                    continue;
                };
                let next = ids
                    .get(&s)
                    .and_then(|set| set.range(input + 1..).next().copied());
                if next == Some(output) {
                    let old = self.stream[n];
                    let find = |t: usize| {
                        node.in_all()
                            .chain(node.out_all())
                            .find(|&m| self.topo[m] == t)
                            .map_or("?", |m| self.name(m))
                    };
                    let detail = format!(
                        "moved between adjacent nodes `{}` and `{}` of another stream",
                        find(input),
                        find(output)
                    );
                    let d = self.dec.add(StreamRule::IneffectiveMultiStream, detail);
                    self.set(n, s, d);
                    if let Some(set) = ids.get_mut(&old) {
                        set.remove(&self.topo[n]);
                    }
                    ids.entry(s).or_default().insert(self.topo[n]);
                }
            }
        }
    }
}

impl State<'_> {
    /// Beyond GE, after the topology pass: [`super::subgraph_entry`].
    fn subgraph_entry_parent(&mut self, g: GraphId, parent: StreamId) {
        let sg = self.sg;
        let labelled = |n: NodeId| self.labels[n].is_some() || self.users[n].is_some();
        let pinned = |n: NodeId| {
            let a = sg.node(n).attrs();
            labelled(n) || a.new_stream_id.is_some() || a.parallel_group.is_some()
        };
        let moves =
            subgraph_entry::entry_moves(sg, g, parent, &self.stream, &self.topo, labelled, pinned);
        for m in moves {
            let detail = format!(
                "beyond GE: fed only by the subgraph's inputs, moved onto the parent stream \
                 right before `{}`",
                self.name(m.consumer)
            );
            let d = self.dec.add(StreamRule::SubgraphEntryParent, detail);
            self.set(m.node, parent, d);
        }
    }
}

/// Per subgraph, how many of its End consumers (one entry per End, as GE lists them) run
/// on its own engine: `CouldReuse` asks whether P feeds a same-engine subgraph other than
/// G, and scanning P's consumers for every G that P feeds is quadratic in P's fan-out.
struct SameEngineEnds(Vec<u32>);

impl SameEngineEnds {
    fn count(sgs: &[Sg]) -> Self {
        SameEngineEnds(
            sgs.iter()
                .map(|s| {
                    let same = |&&c: &&usize| sgs[c].part.engine == s.part.engine;
                    s.part.end_consumers.iter().filter(same).count() as u32
                })
                .collect(),
        )
    }

    /// Does `p` feed a subgraph on its own engine other than `g`? `pairs` = the
    /// End→PlaceHolder pairs from `p` into `g` (each pair is one entry of `p`'s consumers).
    fn others(&self, sgs: &[Sg], g: usize, p: usize, pairs: u32) -> bool {
        let into_g = if sgs[g].part.engine == sgs[p].part.engine {
            pairs
        } else {
            0
        };
        self.0[p] > into_g
    }
}

/// `CouldReuse(G, P)` of `AssignByDependencyPass` (notes C.4). `pairs` = the
/// End→PlaceHolder pairs from P into G.
fn could_reuse(
    sgs: &[Sg],
    ends: &SameEngineEnds,
    g: usize,
    p: usize,
    pairs: u32,
    memory_priority: bool,
) -> bool {
    let (gs, ps) = (&sgs[g], &sgs[p]);
    if gs.conf.scheduler_id != ps.conf.scheduler_id {
        return false;
    }
    if ps.conf.independent || !ps.part.stream_label.is_empty() {
        return false;
    }
    if gs.force_attach {
        return true;
    }
    if !memory_priority && ends.others(sgs, g, p, pairs) {
        return false;
    }
    if gs.part.engine == ps.part.engine || gs.conf.attach {
        return true;
    }
    matches!(ps.reused, Some(r) if sgs[r].part.engine == gs.part.engine)
}

/// Bookkeeping of `AssignByDependencyPass`: per-engine temporary ids.
#[derive(Default)]
struct Dependency<'a> {
    engine_next: BTreeMap<&'a str, i64>,
    engine_count: BTreeMap<&'a str, i64>,
    new_decision: FastMap<(&'a str, i64), u32>,
    assigned: Vec<usize>,
    reused: Vec<(usize, usize)>,
}

impl<'a> Dependency<'a> {
    /// `AssignNewStream`: the engine's next temporary id, wrapping at `max_parallel_num`.
    fn assign_new(&mut self, sgs: &mut [Sg<'a>], i: usize, dec: &mut Decisions) {
        let engine = sgs[i].part.engine;
        let mut id = self.engine_next.get(engine).copied().unwrap_or(0);
        if id >= sgs[i].max_parallel {
            id = 0;
        }
        sgs[i].stream = id;
        self.engine_next.insert(engine, id + 1);
        let c = self.engine_count.entry(engine).or_insert(0);
        *c = (*c).max(id + 1);
        self.assigned.push(i);
        let max = sgs[i].max_parallel;
        sgs[i].decision = *self.new_decision.entry((engine, id)).or_insert_with(|| {
            dec.add(
                StreamRule::DependencyNew,
                format!("new stream for engine {engine} (slot {id} of max_parallel_num {max})"),
            )
        });
    }
}

/// `AssignAttachedStreamPass` per graph, after the main streams: requests with the same
/// (group, key) share a stream; groups then keys in byte order.
fn assign_attached(
    sg: &StreamGraph,
    stream: &[StreamId],
    main_stream_num: i64,
) -> (Vec<Vec<StreamId>>, Vec<AttachedStreamInfo>, i64) {
    let mut attached = vec![Vec::new(); sg.nodes().len()];
    let mut infos = Vec::new();
    let mut next = main_stream_num;
    for &g in sg.graph_order() {
        let mut groups: BTreeMap<&str, BTreeMap<String, Vec<NodeId>>> = BTreeMap::new();
        for &n in &sg.graph(g).nodes {
            let a = &sg.node(n).attrs();
            if a.disable_attached {
                continue;
            }
            for req in a.attached.iter().filter(|r| r.required) {
                let key = if req.per_main_stream {
                    format!("{}_stream_{}", req.key, stream[n])
                } else {
                    req.key.clone()
                };
                groups
                    .entry(&req.group)
                    .or_default()
                    .entry(key)
                    .or_default()
                    .push(n);
            }
        }
        for (group, keys) in groups {
            for (key, nodes) in keys {
                for &n in &nodes {
                    attached[n].push(next);
                }
                infos.push(AttachedStreamInfo {
                    id: next,
                    graph: g,
                    group: group.to_string(),
                    key,
                    nodes,
                });
                next += 1;
            }
        }
    }
    (attached, infos, next)
}

/// Dynamic-shape assignment (notes C.12, not analysed in depth there; a documented
/// approximation): one stream unless `ENABLE_DYNAMIC_SHAPE_MULTI_STREAM`. With it, AI Core,
/// Vector, HCCL and DSA each own one stream, stream labels get their own streams, nodes of
/// other engines reuse their first producer's stream, and data, variables, constants,
/// NetOutput and control-flow nodes stay on stream 0. Streams are numbered by engine
/// priority (compute cost, then name), labels after.
fn assign_dynamic(
    sg: &StreamGraph,
    engines: &EngineTable,
    opts: &StreamOptions,
    labels: Vec<Label>,
    order: &[NodeId],
) -> Result<LogicalAssignment, StreamError> {
    let n = sg.nodes().len();
    let mut dec = Decisions::new();
    let mut stream = vec![0; n];
    let single = dec.fixed(
        StreamRule::DynamicSingleStream,
        "dynamic shape: single stream",
    );
    let mut decision = vec![single; n];
    let mut main_stream_num = i64::from(n > 0);
    if opts.dynamic_multi_stream {
        const OWNING: &[&str] = &["AIcoreEngine", "VectorEngine", "DNN_HCCL", "DSAEngine"];
        // GE's list: Data, Variable, Const(ant), ConstPlaceHolder, FileConstant, NetOutput;
        // by trait every source op (RefData too; FileConstant has no row in the table).
        let forced = |node: &Node| {
            !node.subgraphs().is_empty() || node.kind.any(NodeKind::SOURCE | NodeKind::NET_OUTPUT)
        };
        // Owning engines present, by priority.
        let mut owning: Vec<(u32, &str)> = Vec::new();
        for &id in order {
            let node = sg.node(id);
            if forced(node) || labels[id].is_some() {
                continue;
            }
            if let Some(&e) = OWNING.iter().find(|e| **e == &*node.engine) {
                if !owning.iter().any(|&(_, o)| o == e) {
                    let cost = engines.get(e).map_or(u32::MAX, |c| c.compute_cost);
                    owning.push((cost, e));
                }
            }
        }
        owning.sort();
        let engine_stream: BTreeMap<&str, i64> = owning
            .iter()
            .enumerate()
            .map(|(i, &(_, e))| (e, i as i64 + 1))
            .collect();
        let mut next = engine_stream.len() as i64 + 1;
        let mut label_stream: BTreeMap<&str, (i64, u32)> = BTreeMap::new();
        let main = dec.fixed(
            StreamRule::DynamicMainStream,
            "dynamic shape: kept on the main stream",
        );
        let mut engine_dec: BTreeMap<&str, u32> = BTreeMap::new();
        for &id in order {
            let node = sg.node(id);
            if forced(node) {
                stream[id] = 0;
                decision[id] = main;
            } else if let Some(l) = labels[id].as_deref() {
                let (s, d) = *label_stream.entry(l).or_insert_with(|| {
                    (
                        take(&mut next),
                        dec.add(
                            StreamRule::DynamicLabel,
                            format!("dynamic shape: stream label `{l}`"),
                        ),
                    )
                });
                stream[id] = s;
                decision[id] = d;
            } else if let Some(&s) = engine_stream.get(&*node.engine) {
                stream[id] = s;
                decision[id] = *engine_dec.entry(&*node.engine).or_insert_with(|| {
                    dec.add(
                        StreamRule::DynamicEngineStream,
                        format!("dynamic shape: engine {} owns a stream", node.engine),
                    )
                });
            } else if let Some(&p) = node.data_in().first() {
                stream[id] = stream[p];
                decision[id] = dec.add(
                    StreamRule::DynamicReuse,
                    format!("dynamic shape: reuses the stream of `{}`", sg.node(p).name),
                );
            } else {
                stream[id] = 0;
                decision[id] = main;
            }
        }
        // Dense renumbering keeping the order above.
        let used: BTreeSet<i64> = stream.iter().copied().collect();
        let remap: BTreeMap<i64, i64> = used
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i as i64))
            .collect();
        for s in stream.iter_mut() {
            *s = remap[s];
        }
        main_stream_num = remap.len() as i64;
    }
    let (attached, attached_streams, stream_num) = assign_attached(sg, &stream, main_stream_num);
    Ok(LogicalAssignment {
        stream,
        attached,
        decisions: dec.table,
        decision_of: decision,
        labels,
        main_stream_num,
        stream_num,
        subgraphs: Vec::new(),
        attached_streams,
    })
}
