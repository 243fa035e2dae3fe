//! Stream activation (notes C.5 step 2, C.9, C.8 `UpdateActiveStreams`).
//!
//! A `StreamActive`/`StreamSwitch` node wakes other streams; which ones is its
//! `_active_stream_list`, derived here from stream labels (`SetActiveStreamsByLabel`),
//! subgraph streams (`SetActiveStreamsForSubgraphs`), StreamSwitch branches (new
//! `StreamActive` nodes are *planned*, not created: the IR pass creates them at the end),
//! training loops (`SetActiveStreamsForLoop`) and physical splits (`UpdateActiveStreams`).
//!
//! Activators are keyed by node id; planned StreamActive nodes get keys `n, n+1, ...` after
//! the `n` nodes of the view.
//!
//! Deviation from GE, on purpose: when a StreamSwitch gets new StreamActive nodes after the
//! split, GE overwrites its active list with the new nodes' streams only, dropping the ones
//! planned before the split; we append them.

use super::events::{EventOrigin, Side, SyncKind, SyncTable};
use super::model::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A StreamActive node the allocation wants after a StreamSwitch (C.9).
#[derive(Clone, Debug, Serialize)]
pub struct PlannedActive {
    /// `<switch>_StreamActive_<i>`.
    pub name: String,
    pub switch: NodeId,
    pub graph: GraphId,
    /// The branch label it activates.
    pub label: String,
    /// Its own (new) stream.
    pub stream: StreamId,
    /// Consumers of the switch's control edges that move onto the new node.
    pub moved_ctrl_targets: Vec<NodeId>,
}

/// Activation state and results.
#[derive(Clone, Debug, Default)]
pub struct Activation {
    n: usize,
    /// Streams of the nodes carrying each `_stream_label`.
    pub labeled_streams: BTreeMap<String, BTreeSet<StreamId>>,
    /// Label → nodes that activate it.
    pub specific_labels: BTreeMap<String, BTreeSet<NodeId>>,
    /// Streams activated by something specific (not by the loop).
    pub specific_streams: BTreeSet<StreamId>,
    /// Stream → nodes that activate it by label.
    pub specific_stream_nodes: BTreeMap<StreamId, BTreeSet<NodeId>>,
    /// `_active_stream_list` per activator key.
    pub active_streams: BTreeMap<usize, Vec<StreamId>>,
    /// `_active_label_list` per activator key (rewritten for StreamSwitch).
    pub active_labels: BTreeMap<usize, Vec<String>>,
    /// First-active StreamActive node per subgraph.
    pub first_active: BTreeMap<GraphId, NodeId>,
    pub planned: Vec<PlannedActive>,
    switch_set_labels: BTreeMap<NodeId, BTreeSet<String>>,
    switch_new_labels: BTreeMap<NodeId, BTreeSet<String>>,
}

fn act_err(node: &str, msg: impl Into<String>) -> StreamError {
    StreamError::new(ErrorKind::Activation, msg).at(node)
}

impl Activation {
    /// Key of planned StreamActive `i`.
    pub fn planned_key(&self, i: usize) -> usize {
        self.n + i
    }

    /// `SetActiveStreamsByLabel` then `SetActiveStreamsForSubgraphs`.
    pub fn pre_process(
        sg: &StreamGraph,
        order: &[NodeId],
        stream: &[StreamId],
        attached: &[Vec<StreamId>],
        labels: &[Label],
    ) -> Self {
        let mut a = Activation {
            n: sg.nodes().len(),
            ..Default::default()
        };
        for &id in order {
            if let Some(l) = labels[id].as_deref().filter(|l| !l.is_empty()) {
                if stream[id] != INVALID_STREAM {
                    a.labeled_streams
                        .entry(l.to_string())
                        .or_default()
                        .insert(stream[id]);
                }
            }
        }
        for &id in order {
            let list = &sg.node(id).attrs().active_label_list;
            if list.is_empty() {
                continue;
            }
            let mut streams = Vec::new();
            for l in list {
                a.specific_labels.entry(l.clone()).or_default().insert(id);
                for &s in a.labeled_streams.get(l).into_iter().flatten() {
                    streams.push(s);
                    a.specific_streams.insert(s);
                    a.specific_stream_nodes.entry(s).or_default().insert(id);
                }
            }
            a.active_streams.insert(id, streams);
            a.active_labels.insert(id, list.clone());
        }
        for &g in sg.graph_order().iter().skip(1) {
            let mut streams = BTreeSet::new();
            let mut first = None;
            for &id in &sg.graph(g).nodes {
                if labels[id].as_deref().is_some_and(|l| !l.is_empty()) {
                    continue;
                }
                streams.extend(
                    std::iter::once(stream[id])
                        .chain(attached[id].iter().copied())
                        .filter(|&s| s != INVALID_STREAM),
                );
                if sg.node(id).attrs().subgraph_first_active {
                    first = Some(id);
                }
            }
            let Some(first) = first else {
                continue;
            };
            a.first_active.insert(g, first);
            streams.remove(&stream[first]);
            let list = a.active_streams.entry(first).or_default();
            for s in streams {
                list.push(s);
                a.specific_streams.insert(s);
            }
        }
        a
    }

    /// `UpdateActiveStreamsForSwitchNode` for every StreamSwitch (C.9). New StreamActive
    /// nodes get brand-new streams from `stream_num`.
    pub fn update_switch_nodes(
        &mut self,
        sg: &StreamGraph,
        order: &[NodeId],
        labels: &[Label],
        stream_num: &mut i64,
        after_split: bool,
    ) -> Result<(), StreamError> {
        for &id in order {
            if sg.node(id).is(NodeKind::STREAM_SWITCH) {
                self.update_switch(sg, id, labels, stream_num, after_split)?;
            }
        }
        Ok(())
    }

    fn update_switch(
        &mut self,
        sg: &StreamGraph,
        switch: NodeId,
        labels: &[Label],
        stream_num: &mut i64,
        after_split: bool,
    ) -> Result<(), StreamError> {
        let name = &sg.node(switch).name;
        let original = self.active_labels.get(&switch).cloned().unwrap_or_default();
        if original.is_empty() {
            return Err(act_err(name, "StreamSwitch has no _active_label_list"));
        }
        let mut new_labels = Vec::new();
        let mut created = Vec::new();
        for (i, label) in original.iter().enumerate() {
            let Some(streams) = self.labeled_streams.get(label) else {
                if self
                    .switch_new_labels
                    .get(&switch)
                    .is_some_and(|s| s.contains(label))
                {
                    new_labels.push(label.clone());
                    continue;
                }
                return Err(act_err(name, format!("cannot find stream label `{label}`")));
            };
            let set = self.switch_set_labels.entry(switch).or_default();
            if streams.len() <= 1 || set.contains(label) {
                new_labels.push(label.clone());
                continue;
            }
            set.insert(label.clone());
            let active_name = format!("{name}_StreamActive_{i}");
            let moved: Vec<NodeId> = sg
                .node(switch)
                .ctrl_out()
                .iter()
                .copied()
                .filter(|&c| labels[c].as_deref().unwrap_or("") == label)
                .collect();
            let key = self.planned_key(self.planned.len());
            self.active_labels.insert(key, vec![label.clone()]);
            self.active_streams
                .insert(key, streams.iter().copied().collect());
            self.switch_new_labels
                .entry(switch)
                .or_default()
                .insert(active_name.clone());
            let stream = *stream_num;
            *stream_num += 1;
            self.specific_streams.insert(stream);
            created.push(stream);
            self.planned.push(PlannedActive {
                name: active_name.clone(),
                switch,
                graph: sg.node(switch).graph,
                label: label.clone(),
                stream,
                moved_ctrl_targets: moved,
            });
            new_labels.push(active_name);
        }
        self.active_labels.insert(switch, new_labels);
        if !created.is_empty() {
            let list = self.active_streams.entry(switch).or_default();
            if !after_split {
                list.clear();
            }
            list.extend(created);
        }
        Ok(())
    }

    /// `SetActiveStreamsForLoop` (C.9): the first loop-active node without labels activates
    /// every stream not activated specifically; the last node of each such stream sends an
    /// event to the StreamSwitch before the loop-active node. After a split only streams
    /// that were split (and the new ones) get that event.
    #[allow(clippy::too_many_arguments)]
    pub fn set_for_loop(
        &mut self,
        sg: &StreamGraph,
        order: &[NodeId],
        stream: &[StreamId],
        stream_num: i64,
        split_streams: Option<&[BTreeSet<StreamId>]>,
        syncs: &mut SyncTable,
        phase: u8,
    ) -> Result<(), StreamError> {
        // GE walks every node for the last one of each stream first; only the first
        // loop-active node without its own labels uses that, so find it first (most graphs
        // have none, and the walk then costs one pass over the nodes).
        let Some(id) = order.iter().copied().find(|&id| {
            sg.node(id).attrs().is_loop_active
                && self.active_labels.get(&id).is_none_or(|l| l.is_empty())
        }) else {
            return Ok(());
        };
        let loop_streams: Vec<StreamId> = (0..stream_num)
            .filter(|s| !self.specific_streams.contains(s))
            .collect();
        // Per stream id (dense: ids are 0..stream_num): in the loop set, its last node in
        // `order`, and whether a StreamSwitch is on it.
        let streams = usize::try_from(stream_num).unwrap_or(0);
        let mut in_loop = vec![false; streams];
        for &s in &loop_streams {
            in_loop[s as usize] = true;
        }
        let mut last: Vec<Option<NodeId>> = vec![None; streams];
        let mut has_switch = vec![false; streams];
        for &n in order {
            let Some(si) = usize::try_from(stream[n])
                .ok()
                .filter(|&si| si < streams && in_loop[si])
            else {
                continue;
            };
            last[si] = Some(n);
            if sg.node(n).is(NodeKind::STREAM_SWITCH) {
                has_switch[si] = true;
            }
        }
        let node = sg.node(id);
        let pre_switch = find_switch_before(sg, id);
        self.active_streams.insert(id, loop_streams);
        for (si, last_node) in last.iter().enumerate() {
            let Some(last_node) = *last_node else {
                continue;
            };
            if split_streams.is_some_and(|split| si < split.len() && split[si].is_empty()) {
                continue;
            }
            if has_switch[si] || sg.graph(sg.node(last_node).graph).parent.is_some() {
                continue;
            }
            let Some(sw) = pre_switch else {
                return Err(act_err(
                    &node.name,
                    "no StreamSwitch within two control hops before the loop-active node",
                ));
            };
            syncs.add(
                SyncKind::Event,
                last_node,
                sw,
                Side::Main,
                Side::Main,
                EventOrigin::LoopBack,
                phase,
            );
        }
        Ok(())
    }

    /// `UpdateActiveStreams` after a physical split (C.8).
    #[allow(clippy::too_many_arguments)]
    pub fn update_after_split(
        &mut self,
        sg: &StreamGraph,
        order: &[NodeId],
        labels: &[Label],
        stream: &[StreamId],
        stream_num: &mut i64,
        split_streams: &[BTreeSet<StreamId>],
        split_first_node: &BTreeMap<StreamId, NodeId>,
        syncs: &mut SyncTable,
    ) -> Result<(), StreamError> {
        // UpdateLabelStreams.
        for (i, new) in split_streams.iter().enumerate() {
            if new.is_empty() {
                continue;
            }
            let i = i as StreamId;
            if self.specific_streams.contains(&i) {
                self.specific_streams.extend(new.iter().copied());
            }
            if let Some((_, set)) = self
                .labeled_streams
                .iter_mut()
                .find(|(_, set)| set.contains(&i))
            {
                set.extend(new.iter().copied());
            }
        }
        self.update_switch_nodes(sg, order, labels, stream_num, true)?;
        // UpdateActiveStreamsForActiveNode for every other activator, planned ones included.
        let keys: Vec<usize> = self.active_streams.keys().copied().collect();
        for key in keys {
            if key < self.n && sg.node(key).is(NodeKind::STREAM_SWITCH) {
                continue;
            }
            let graph = if key < self.n {
                sg.node(key).graph
            } else {
                self.planned[key - self.n].graph
            };
            let list = self.active_streams[&key].clone();
            let mut new_list = list.clone();
            for logical in list {
                let Some(new) = usize::try_from(logical)
                    .ok()
                    .and_then(|l| split_streams.get(l))
                else {
                    return Err(act_err(
                        &self.key_name(sg, key),
                        format!("active stream {logical} is out of range before the split"),
                    ));
                };
                for s in new {
                    if split_first_node
                        .get(s)
                        .is_some_and(|&f| sg.node(f).graph == graph)
                    {
                        new_list.push(*s);
                    }
                }
            }
            self.active_streams.insert(key, new_list);
        }
        // UpdateActiveStreamsForSubgraphs.
        let activated: BTreeSet<StreamId> =
            self.active_streams.values().flatten().copied().collect();
        for (&s, &first) in split_first_node {
            let g = sg.node(first).graph;
            if sg.graph(g).parent.is_none()
                || labels[first].as_deref().is_some_and(|l| !l.is_empty())
            {
                continue;
            }
            let Some(&active) = self.first_active.get(&g) else {
                continue;
            };
            if activated.contains(&s) {
                continue;
            }
            self.specific_streams.insert(s);
            if s == stream[active] {
                continue;
            }
            let list = self.active_streams.entry(active).or_default();
            let mut set: BTreeSet<StreamId> = list.iter().copied().collect();
            set.insert(s);
            *list = set.into_iter().collect();
        }
        self.set_for_loop(
            sg,
            order,
            stream,
            *stream_num,
            Some(split_streams),
            syncs,
            1,
        )?;
        self.check_no_self_activation(sg, stream)
    }

    /// `CheckStreamActived`: no node activates its own stream.
    pub fn check_no_self_activation(
        &self,
        sg: &StreamGraph,
        stream: &[StreamId],
    ) -> Result<(), StreamError> {
        for (&key, list) in &self.active_streams {
            let own = if key < self.n {
                stream[key]
            } else {
                self.planned[key - self.n].stream
            };
            if list.contains(&own) {
                return Err(act_err(
                    &self.key_name(sg, key),
                    format!("cannot activate its own stream {own}"),
                ));
            }
        }
        Ok(())
    }

    /// Name of an activator key.
    pub fn key_name(&self, sg: &StreamGraph, key: usize) -> String {
        if key < self.n {
            sg.node(key).name.to_string()
        } else {
            self.planned[key - self.n].name.clone()
        }
    }
}

/// `FindSwitchNodeBeforeLoopActiveNode`: a StreamSwitch one or two control hops back.
fn find_switch_before(sg: &StreamGraph, active: NodeId) -> Option<NodeId> {
    for &p in sg.node(active).ctrl_in() {
        if sg.node(p).is(NodeKind::STREAM_SWITCH) {
            return Some(p);
        }
        for &pp in sg.node(p).ctrl_in() {
            if sg.node(pp).is(NodeKind::STREAM_SWITCH) {
                return Some(pp);
            }
        }
    }
    None
}
