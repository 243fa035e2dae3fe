//! What the IR pass creates (notes C.10) and how the allocation is reported: a JSON summary
//! shaped like GE's `GetStreamAllocationSummary`, a human table and Graphviz text.

use super::events::{Side, SyncKind, SyncTable};
use super::model::*;
use super::Allocation;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A Send/Recv (or notify) node to create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlannedSync {
    /// `<root>_Send_<id>`, `<root>_Recv_<id>`, `..._Send_Notify_<id>`, with `_Reuse_<k>` on
    /// repeats.
    pub name: String,
    /// `Send`, `Recv`, `SendNotify` or `RecvNotify`.
    pub ty: &'static str,
    /// Graph of the anchor node; the new node goes there.
    pub graph: GraphId,
    /// Physical stream of the new node.
    pub stream: StreamId,
    /// A Send follows its anchor (control edge anchor→Send); a Recv precedes it
    /// (Recv→anchor).
    pub anchor: NodeId,
    /// `event_id` (or notify id) attribute.
    pub id: u32,
    /// Index of the sync in [`SyncTable::recs`].
    pub sync: usize,
}

/// `GenerateSyncEventNodes` for the planned syncs, in GE's order: per phase (before and
/// after the split, each with its own name table), per node in `GetAllNodes` order: Sends
/// on the main stream, on the single attached stream, on given streams; then Recvs in the
/// same order; then RecvNotify and SendNotify.
pub fn plan_sync_nodes(
    sg: &StreamGraph,
    order: &[NodeId],
    stream: &[StreamId],
    attached: &[Vec<StreamId>],
    logical_attached: &[Vec<StreamId>],
    table: &SyncTable,
) -> Vec<PlannedSync> {
    let root = sg.root_name();
    let mut out = Vec::new();
    for phase in [0u8, 1] {
        // A name is fixed by (node type, id); repeats get `_Reuse_<k>`.
        let mut names: FastMap<(&'static str, u32), u32> = FastMap::default();
        let mut name = |ty: &'static str, id: u32| -> String {
            let base = match ty {
                "Send" => format!("{root}_Send_{id}"),
                "Recv" => format!("{root}_Recv_{id}"),
                "SendNotify" => format!("{root}_Send_Notify_{id}"),
                _ => format!("{root}_Recv_Notify_{id}"),
            };
            let k = names.entry((ty, id)).or_insert(0);
            *k += 1;
            if *k == 1 {
                base
            } else {
                format!("{base}_Reuse_{}", *k - 1)
            }
        };
        for &n in order {
            if table.sends(n).is_empty() && table.recvs(n).is_empty() {
                continue;
            }
            let resolve = |side: Side| side.physical(n, stream, attached, logical_attached);
            let single_attached = logical_attached[n].len() == 1;
            for sending in [true, false] {
                let list = if sending {
                    table.sends(n)
                } else {
                    table.recvs(n)
                };
                let side_of = |i: usize| {
                    let r = &table.recs[i];
                    if sending {
                        r.send_side
                    } else {
                        r.recv_side
                    }
                };
                let events: Vec<usize> = list
                    .iter()
                    .copied()
                    .filter(|&i| {
                        table.recs[i].phase == phase && table.recs[i].kind == SyncKind::Event
                    })
                    .collect();
                let mut groups: Vec<usize> = events
                    .iter()
                    .copied()
                    .filter(|&i| side_of(i) == Side::Main)
                    .collect();
                if single_attached {
                    groups.extend(
                        events
                            .iter()
                            .copied()
                            .filter(|&i| side_of(i) == Side::Attached),
                    );
                }
                let mut explicit: BTreeMap<StreamId, Vec<usize>> = BTreeMap::new();
                for &i in &events {
                    if matches!(side_of(i), Side::AttachedStream(_) | Side::Physical(_)) {
                        explicit.entry(resolve(side_of(i))).or_default().push(i);
                    }
                }
                groups.extend(explicit.into_values().flatten());
                for i in groups {
                    let id = table.recs[i].id;
                    let ty = if sending { "Send" } else { "Recv" };
                    out.push(PlannedSync {
                        name: name(ty, id),
                        ty,
                        graph: sg.node(n).graph,
                        stream: resolve(side_of(i)),
                        anchor: n,
                        id,
                        sync: i,
                    });
                }
            }
            for sending in [false, true] {
                let list = if sending {
                    table.sends(n)
                } else {
                    table.recvs(n)
                };
                for &i in list {
                    let r = &table.recs[i];
                    if r.phase != phase || r.kind != SyncKind::Notify {
                        continue;
                    }
                    let ty = if sending { "SendNotify" } else { "RecvNotify" };
                    out.push(PlannedSync {
                        name: name(ty, r.id),
                        ty,
                        graph: sg.node(n).graph,
                        stream: stream[n],
                        anchor: n,
                        id: r.id,
                        sync: i,
                    });
                }
            }
        }
    }
    out
}

impl Allocation {
    /// The JSON summary (`GetStreamAllocationSummary`-like, plus events and statistics).
    pub fn summary_json(&self, sg: &StreamGraph) -> Value {
        let name = |n: NodeId| sg.node(n).name.clone();
        let lg = &self.logical;
        // Logical streams per graph, as GE's LogicalStreamAllocationInfo.
        let mut per_graph: BTreeMap<String, BTreeMap<StreamId, StreamAcc>> = BTreeMap::new();
        for (n, node) in sg.nodes().iter().enumerate() {
            let s = lg.stream[n];
            if s == INVALID_STREAM {
                continue;
            }
            let acc = per_graph
                .entry(sg.graph(node.graph).name.clone())
                .or_default()
                .entry(s)
                .or_default();
            acc.nodes += 1;
            if !node.engine.is_empty() {
                acc.engines.insert(node.engine.to_string());
            }
            if let Some(l) = &lg.labels[n] {
                acc.labels.insert(l.to_string());
            }
            if let Some(u) = &node.attrs().user_stream_label {
                acc.user_labels.insert(u.clone());
            }
            acc.attached.extend(lg.attached[n].iter().copied());
            *acc.rules.entry(lg.decision(n).rule.as_str()).or_insert(0) += 1;
        }
        let mut physical_of: BTreeMap<StreamId, Vec<StreamId>> = BTreeMap::new();
        for (&p, &l) in &self.split.physical_to_logical {
            physical_of.entry(l).or_default().push(p);
        }
        let logical_streams: BTreeMap<String, Value> = per_graph
            .into_iter()
            .map(|(g, streams)| {
                let list: Vec<Value> = streams
                    .into_iter()
                    .map(|(s, acc)| {
                        let phys = physical_of.get(&s).cloned().unwrap_or_else(|| vec![s]);
                        json!({
                            "logical_stream_id": s,
                            "engines": acc.engines,
                            "node_count": acc.nodes,
                            "stream_labels": acc.labels,
                            "user_stream_label": acc.user_labels.into_iter().next().unwrap_or_default(),
                            "is_assigned_by_user_stream_pass": false,
                            "attached_stream_ids": acc.attached,
                            "physical_stream_num": phys.len(),
                            "physical_stream_ids": phys,
                            "hccl_followed_stream_num": 0,
                            "rules": acc.rules,
                        })
                    })
                    .collect();
                (g, Value::Array(list))
            })
            .collect();
        let physical: Vec<Value> = self
            .split
            .physical_to_logical
            .iter()
            .map(|(&p, &l)| {
                json!({
                    "id": p,
                    "logical_id": l,
                    "tasks": self.split.stream_tasks.get(&p).copied().unwrap_or(0),
                    "huge": self.split.huge_stream && p == 0,
                })
            })
            .collect();
        let attached: Vec<Value> = lg
            .attached_streams
            .iter()
            .map(|a| {
                json!({
                    "id": a.id,
                    "graph": sg.graph(a.graph).name,
                    "group": a.group,
                    "reuse_key": a.key,
                    "nodes": a.nodes.iter().map(|&n| name(n)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let sync_json = |kind: SyncKind| -> Vec<Value> {
            let mut v: Vec<(u32, Value)> = self
                .syncs
                .alive()
                .filter(|(_, r)| r.kind == kind)
                .map(|(_, r)| {
                    (
                        r.id,
                        json!({
                            "id": r.id,
                            "send": name(r.send),
                            "recv": name(r.recv),
                            "send_side": r.send_side,
                            "recv_side": r.recv_side,
                            "origin": r.origin,
                            "phase": if r.phase == 0 { "logical" } else { "split" },
                        }),
                    )
                })
                .collect();
            v.sort_by_key(|(id, _)| *id);
            v.into_iter().map(|(_, j)| j).collect()
        };
        let activation: Vec<Value> = self
            .activation
            .active_streams
            .iter()
            .map(|(&k, list)| {
                json!({
                    "node": self.activation.key_name(sg, k),
                    "active_stream_list": list,
                    "active_label_list": self.activation.active_labels.get(&k).cloned().unwrap_or_default(),
                })
            })
            .collect();
        let planned_active: Vec<Value> = self
            .activation
            .planned
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "type": "StreamActive",
                    "after": name(p.switch),
                    "stream": p.stream,
                    "label": p.label,
                    "moved_ctrl_targets": p.moved_ctrl_targets.iter().map(|&n| name(n)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let planned: Vec<Value> = self
            .planned
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "type": p.ty,
                    "graph": sg.graph(p.graph).name,
                    "stream": p.stream,
                    "anchor": name(p.anchor),
                    "position": if p.ty.starts_with("Send") { "after" } else { "before" },
                    "id": p.id,
                })
            })
            .collect();
        json!({
            "graph": self.root,
            "main_stream_num": lg.main_stream_num,
            "logical_stream_num": lg.stream_num,
            "stream_num": self.stream_num,
            "event_num": self.event_num,
            "notify_num": self.notify_num,
            "huge_stream": self.split.huge_stream,
            "max_task_per_stream": self.split.max_task,
            "logical_streams": logical_streams,
            "physical_streams": physical,
            "attached_streams": attached,
            "events": sync_json(SyncKind::Event),
            "notifies": sync_json(SyncKind::Notify),
            "event_stats": self.stats,
            "activation": activation,
            "planned_stream_active": planned_active,
            "planned_sync_nodes": planned,
        })
    }

    /// A human-readable table: one line per logical stream, then the event counts.
    pub fn summary_table(&self, sg: &StreamGraph) -> String {
        let lg = &self.logical;
        let mut rows: BTreeMap<StreamId, StreamAcc> = BTreeMap::new();
        for (n, node) in sg.nodes().iter().enumerate() {
            let s = lg.stream[n];
            if s == INVALID_STREAM {
                continue;
            }
            let acc = rows.entry(s).or_default();
            acc.nodes += 1;
            if !node.engine.is_empty() {
                acc.engines.insert(node.engine.to_string());
            }
            if let Some(l) = &lg.labels[n] {
                acc.labels.insert(l.to_string());
            }
            *acc.rules.entry(lg.decision(n).rule.as_str()).or_insert(0) += 1;
        }
        let mut physical_of: BTreeMap<StreamId, Vec<StreamId>> = BTreeMap::new();
        for (&p, &l) in &self.split.physical_to_logical {
            physical_of.entry(l).or_default().push(p);
        }
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<8} {:<28} {:>7}  {:<16} {:<14} rules",
            "stream", "engines", "nodes", "label", "physical"
        );
        let join = |v: Vec<String>| v.join(",");
        for (s, acc) in &rows {
            let phys = physical_of.get(s).map_or(s.to_string(), |v| {
                join(v.iter().map(|p| p.to_string()).collect())
            });
            let rules = join(acc.rules.iter().map(|(r, c)| format!("{r}:{c}")).collect());
            let _ = writeln!(
                t,
                "{:<8} {:<28} {:>7}  {:<16} {:<14} {}",
                s,
                join(acc.engines.iter().cloned().collect()),
                acc.nodes,
                join(acc.labels.iter().cloned().collect()),
                phys,
                rules
            );
        }
        for a in &lg.attached_streams {
            let _ = writeln!(
                t,
                "{:<8} {:<28} {:>7}  attached key {}",
                a.id,
                "(attached)",
                a.nodes.len(),
                a.key
            );
        }
        let st = &self.stats;
        let _ = writeln!(
            t,
            "events: {} inserted, {} after GE's rules (send {}, recv {}, activate {}, switch {}), minimum {} logical / {} physical, {} final ids; notifies: {}; split events: {} ({} implied by others); loop events: {}; streams: {} main, {} physical",
            st.inserted,
            st.after_ge_rules,
            st.removed_by_send_events,
            st.removed_by_recv_events,
            st.removed_by_stream_activate,
            st.removed_stream_switch_sends,
            st.minimal,
            st.minimal_physical,
            self.event_num,
            self.notify_num,
            st.split_events,
            st.split_events_implied,
            st.loop_events,
            lg.main_stream_num,
            self.stream_num
        );
        t
    }

    /// Graphviz: one cluster per physical stream holding its nodes in order, events as red
    /// dashed edges, activations as blue dotted edges to the first node of each stream.
    pub fn to_dot(&self, sg: &StreamGraph) -> String {
        let order = sg.all_nodes();
        let mut per_stream: BTreeMap<StreamId, Vec<NodeId>> = BTreeMap::new();
        for &n in order {
            if self.logical.stream[n] != INVALID_STREAM {
                per_stream.entry(self.stream[n]).or_default().push(n);
            }
        }
        let q = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let mut d = String::new();
        let _ = writeln!(
            d,
            "digraph \"{}\" {{\n  rankdir=TB;\n  node [shape=box, fontsize=10];",
            q(&self.root)
        );
        for (s, nodes) in &per_stream {
            let logical = self.split.physical_to_logical.get(s).copied().unwrap_or(*s);
            let _ = writeln!(
                d,
                "  subgraph cluster_s{s} {{\n    label=\"stream {s} (logical {logical})\";"
            );
            for &n in nodes {
                let node = sg.node(n);
                let _ = writeln!(
                    d,
                    "    n{n} [label=\"{}\\n{}\"];",
                    q(&node.name),
                    q(&node.ty)
                );
            }
            for w in nodes.windows(2) {
                let _ = writeln!(d, "    n{} -> n{} [style=bold];", w[0], w[1]);
            }
            let _ = writeln!(d, "  }}");
        }
        for (_, r) in self.syncs.alive() {
            let color = if r.kind == SyncKind::Notify {
                "purple"
            } else {
                "red"
            };
            let _ = writeln!(
                d,
                "  n{} -> n{} [style=dashed, color={color}, label=\"{}{}\"];",
                r.send,
                r.recv,
                if r.kind == SyncKind::Notify { "n" } else { "e" },
                r.id
            );
        }
        for (&k, list) in &self.activation.active_streams {
            if k >= sg.nodes().len() {
                continue;
            }
            for s in list {
                if let Some(first) = per_stream.get(s).and_then(|v| v.first()) {
                    let _ = writeln!(
                        d,
                        "  n{k} -> n{first} [style=dotted, color=blue, label=\"active\"];"
                    );
                }
            }
        }
        d.push_str("}\n");
        d
    }
}

#[derive(Default)]
struct StreamAcc {
    nodes: usize,
    engines: BTreeSet<String>,
    labels: BTreeSet<String>,
    user_labels: BTreeSet<String>,
    attached: BTreeSet<StreamId>,
    rules: BTreeMap<&'static str, usize>,
}
