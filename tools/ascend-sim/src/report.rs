//! What `geSimReport` says: simulated makespan, busy time per stream, task counts by kind,
//! kernels run, opaque-kernel uses and (with `trace=1`) every task's interval.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use smallvec::SmallVec;

use crate::handles::{Id, IdMap};
use crate::scheduler::{EVENT_TAG, NO_NAME};
use crate::task::{TaskKind, TASK_KINDS};

#[derive(Debug, Clone)]
pub struct TraceEntry {
    pub stream: Id,
    pub kind: TaskKind,
    pub name: u32,
    pub start: u64,
    pub end: u64,
    /// What the task was when it started (node name, device ranges).
    pub started: Started,
}

/// A task's node name (`geSimSetTaskName`, interned; `NO_NAME`: none) and the device ranges
/// it reads and writes, kept from its start to its end for the trace: the timeline names
/// each slice by node, and the live-bytes counter follows the ranges.
#[derive(Debug, Clone, Default)]
pub struct Started {
    pub node: u32,
    pub accesses: SmallVec<[(u64, u64, bool); 4]>,
}

#[derive(Debug, Default)]
pub struct Stats {
    pub first_start: Option<u64>,
    pub last_end: u64,
    /// stream -> (label, busy ns, tasks)
    pub busy: IdMap<(String, u64, u64)>,
    pub by_kind: [u64; TASK_KINDS],
    pub kernels_run: u64,
    pub opaque: BTreeMap<String, u64>,
    pub trace: Vec<TraceEntry>,
    /// Start times of model runs in progress, by exec stream.
    model_starts: IdMap<u64>,
    /// The running task of each stream (`trace=1` only).
    running: IdMap<Started>,
}

impl Stats {
    /// A task of stream `s` started (`trace=1`): its node and ranges wait for its end.
    pub fn task_started(&mut self, s: Id, node: u32, accesses: SmallVec<[(u64, u64, bool); 4]>) {
        self.running.insert(s, Started { node, accesses });
    }

    #[allow(clippy::too_many_arguments)]
    pub fn task_done(
        &mut self,
        s: Id,
        label: &str,
        kind: TaskKind,
        name: u32,
        start: u64,
        end: u64,
        trace: bool,
    ) {
        self.first_start = Some(self.first_start.map_or(start, |f| f.min(start)));
        self.last_end = self.last_end.max(end);
        let e = self
            .busy
            .entry(s)
            .or_insert_with(|| (label.to_owned(), 0, 0));
        e.1 += end - start;
        e.2 += 1;
        self.by_kind[kind as usize] += 1;
        if trace {
            let started = self.running.remove(&s).unwrap_or(Started {
                node: NO_NAME,
                accesses: SmallVec::new(),
            });
            self.trace.push(TraceEntry {
                stream: s,
                kind,
                name,
                start,
                end,
                started,
            });
        }
    }

    pub fn count_opaque(&mut self, op: &str) {
        match self.opaque.get_mut(op) {
            Some(n) => *n += 1,
            None => {
                self.opaque.insert(op.to_owned(), 1);
            }
        }
    }

    pub fn model_started(&mut self, exec: Id, now: u64) {
        self.model_starts.insert(exec, now);
    }

    /// A model run is one task of its exec stream, from its start to its last stream's end.
    pub fn model_finished(&mut self, exec: Id, label: &str, now: u64, trace: bool) {
        let start = self.model_starts.remove(&exec).unwrap_or(now);
        self.first_start = Some(self.first_start.map_or(start, |f| f.min(start)));
        self.last_end = self.last_end.max(now);
        let e = self
            .busy
            .entry(exec)
            .or_insert_with(|| (label.to_owned(), 0, 0));
        e.2 += 1;
        self.by_kind[TaskKind::ModelExecute as usize] += 1;
        if trace {
            self.trace.push(TraceEntry {
                stream: exec,
                kind: TaskKind::ModelExecute,
                name: NO_NAME,
                start,
                end: now,
                started: Started {
                    node: NO_NAME,
                    accesses: SmallVec::new(),
                },
            });
        }
    }

    /// `node_names`: the interned names of `geSimSetTaskName`.
    pub fn to_json(
        &self,
        op_names: &[std::sync::Arc<str>],
        node_names: &[std::sync::Arc<str>],
        now: u64,
    ) -> Value {
        let makespan = self.first_start.map_or(0, |f| self.last_end - f);
        let mut streams: Vec<(&Id, &(String, u64, u64))> = self.busy.iter().collect();
        streams.sort_by_key(|(id, _)| **id);
        let label = |id: Id| self.busy.get(&id).map_or("?", |b| b.0.as_str());
        let kinds: serde_json::Map<String, Value> = TaskKind::ALL
            .iter()
            .filter(|k| self.by_kind[**k as usize] > 0)
            .map(|k| (k.name().to_owned(), json!(self.by_kind[*k as usize])))
            .collect();
        let trace: Vec<Value> = self
            .trace
            .iter()
            .map(|t| {
                if t.name != NO_NAME && t.name & EVENT_TAG != 0 {
                    return json!({"stream": label(t.stream), "kind": t.kind.name(),
                                  "name": t.kind.name(), "event": t.name & !EVENT_TAG,
                                  "start_ns": t.start, "end_ns": t.end});
                }
                let name = match op_names.get(t.name as usize) {
                    Some(n) if t.name != NO_NAME => &**n,
                    _ => t.kind.name(),
                };
                let mut v = json!({"stream": label(t.stream), "kind": t.kind.name(), "name": name,
                       "start_ns": t.start, "end_ns": t.end});
                if let Some(node) = node_names.get(t.started.node as usize) {
                    v["node"] = json!(&**node);
                }
                let ranges = |write: bool| {
                    let r: Vec<Value> = t
                        .started
                        .accesses
                        .iter()
                        .filter(|a| a.2 == write)
                        .map(|a| json!([a.0, a.1]))
                        .collect();
                    r
                };
                if !t.started.accesses.is_empty() {
                    v["reads"] = Value::Array(ranges(false));
                    v["writes"] = Value::Array(ranges(true));
                }
                v
            })
            .collect();
        json!({
            "makespan_ns": makespan,
            "now_ns": now,
            "streams": streams.iter().map(|(_, (l, b, n))| json!({"stream": l, "busy_ns": b, "tasks": n})).collect::<Vec<_>>(),
            "tasks_by_kind": kinds,
            "kernels_run": self.kernels_run,
            "opaque_kernels": self.opaque.values().sum::<u64>(),
            "opaque_by_op": self.opaque,
            "trace": trace,
        })
    }
}
