//! The host order of a dynamic-memory run with control flow: each stream's task list
//! followed as the device would (labels, gotos, switches, stream activations), one
//! *segment* at a time. A segment ends when every stream that still runs is blocked,
//! and at least one of them at a `LabelSwitchByIndex` whose index the host has not read
//! yet (GE's dynamic runtime reads an If / Case / While condition on the host likewise);
//! the executor then synchronises that stream, reads the index, [`Cursor::decide`]s, and
//! the next segment goes on from there.
//!
//! Within a segment the streams' task lists are interleaved one task per stream per
//! round, a wait only after the record it waits for (the event latch simulated on the
//! host), a stream run only after the `StreamActive` that starts it; a stream that runs
//! past its last task is idle and may be activated again (a loop body's stream, each
//! trip), as on the device.
//!
//! [`Cursor::reachable_reads`] is the static side: the workspace bytes some task may
//! still read from the streams' current positions (over the label edges, and through
//! every stream a reachable `StreamActive` may start), which keeps a value alive across a
//! control decision.

use super::plan::{at, plan_accesses, TaskRef};
use crate::lowering::model::{Region, Task, TaskModel};
use std::collections::{HashMap, HashSet, VecDeque};

/// A linearized record whose wait comes later: the record and the segment it ran in.
pub type Record = (TaskRef, usize);

/// One segment's host order and its pairs.
#[derive(Debug, Default)]
pub struct Linear {
    pub order: Vec<TaskRef>,
    /// Wait → the record it waits for, with the segment that record ran in.
    pub waits_for: HashMap<TaskRef, Record>,
    /// An activated stream's first task → the `StreamActive` that started it.
    pub started_by: HashMap<TaskRef, Record>,
    /// Streams blocked at a `LabelSwitchByIndex` the host must decide, at that task.
    pub pending: Vec<TaskRef>,
    /// Every stream is idle: the run is over.
    pub finished: bool,
}

/// The memory a task reads ([`plan_accesses`]' reads), as (region, start, end).
pub fn reads(task: &Task) -> Vec<(Region, u64, u64)> {
    plan_accesses(task)
        .into_iter()
        .filter(|a| !a.write && a.size > 0)
        .map(|a| (a.addr.region, a.addr.offset, a.addr.offset + a.size))
        .collect()
}

/// Where each stream is, across segments.
#[derive(Debug)]
pub struct Cursor<'m> {
    model: &'m TaskModel,
    /// (stream, label) → the task index of its `LabelSet`.
    labels: HashMap<(usize, u32), usize>,
    pos: Vec<usize>,
    running: Vec<bool>,
    latch: HashMap<u32, Record>,
    notifies: HashMap<u32, VecDeque<Record>>,
    /// Activated stream → the `StreamActive` (and its segment) its first task waits for.
    activation: HashMap<usize, Record>,
    /// Decided switches → the task index to go on at.
    decisions: HashMap<TaskRef, usize>,
    segment: usize,
}

impl<'m> Cursor<'m> {
    pub fn new(model: &'m TaskModel) -> Result<Self, String> {
        let mut labels = HashMap::new();
        for (s, stream) in model.streams.iter().enumerate() {
            for (i, task) in stream.tasks.iter().enumerate() {
                match task {
                    Task::LabelSet { label, .. } if labels.insert((s, *label), i).is_some() => {
                        return Err(format!(
                            "{}: label {label} is set twice on stream {s}",
                            at(model, (s, i))
                        ));
                    }
                    Task::StreamSwitch { .. } => {
                        return Err(format!(
                            "{}: dynamic memory mode follows labels and stream activations, \
                             not stream switches (use --memory=static)",
                            at(model, (s, i))
                        ));
                    }
                    _ => {}
                }
            }
        }
        for (s, stream) in model.streams.iter().enumerate() {
            for (i, task) in stream.tasks.iter().enumerate() {
                let targets: &[u32] = match task {
                    Task::LabelGoto { label, .. } => std::slice::from_ref(label),
                    Task::LabelSwitchByIndex { labels, .. } => labels,
                    _ => &[],
                };
                if let Some(l) = targets.iter().find(|&&l| !labels.contains_key(&(s, l))) {
                    return Err(format!(
                        "{}: label {l} is not set on stream {s}",
                        at(model, (s, i))
                    ));
                }
                if matches!(task, Task::LabelSwitchByIndex { labels, .. } if labels.is_empty()) {
                    return Err(format!("{}: a switch without labels", at(model, (s, i))));
                }
            }
        }
        Ok(Self {
            model,
            labels,
            pos: vec![0; model.streams.len()],
            running: model.streams.iter().map(|s| !s.activated).collect(),
            latch: HashMap::new(),
            notifies: HashMap::new(),
            activation: HashMap::new(),
            decisions: HashMap::new(),
            segment: 0,
        })
    }

    /// The pending switch `task` goes to `labels[index]`, the last label when `index` is
    /// out of range (the device's rule).
    pub fn decide(&mut self, task: TaskRef, index: u32) -> Result<(), String> {
        let Task::LabelSwitchByIndex { labels, .. } = &self.model.streams[task.0].tasks[task.1]
        else {
            return Err(format!("{}: not a label switch", at(self.model, task)));
        };
        let label = labels
            .get(index as usize)
            .or(labels.last())
            .copied()
            .expect("checked at construction");
        self.decisions.insert(task, self.labels[&(task.0, label)]);
        Ok(())
    }

    /// The next segment (see the module documentation).
    pub fn next_segment(&mut self) -> Result<Linear, String> {
        let model = self.model;
        let n = model.streams.len();
        let seg = self.segment;
        self.segment += 1;
        let mut linear = Linear::default();
        let mut seen: HashSet<TaskRef> = HashSet::new();
        loop {
            let mut progressed = false;
            for s in 0..n {
                let tasks = &model.streams[s].tasks;
                if self.running[s] && self.pos[s] >= tasks.len() {
                    self.running[s] = false;
                }
                if !self.running[s] {
                    continue;
                }
                let here = (s, self.pos[s]);
                let mut next = self.pos[s] + 1;
                match &tasks[here.1] {
                    Task::EventWait { event, .. } => {
                        let Some(&record) = self.latch.get(event) else {
                            continue;
                        };
                        linear.waits_for.insert(here, record);
                    }
                    Task::EventRecord { event, .. } => {
                        // A latch already set stays set by its first record: a wait may
                        // pass on that one alone.
                        self.latch.entry(*event).or_insert((here, seg));
                    }
                    Task::EventReset { event, .. } => {
                        self.latch.remove(event);
                    }
                    Task::NotifyRecord { notify, .. } => {
                        self.notifies
                            .entry(*notify)
                            .or_default()
                            .push_back((here, seg));
                    }
                    Task::NotifyWait { notify, .. } => {
                        let Some(record) =
                            self.notifies.get_mut(notify).and_then(VecDeque::pop_front)
                        else {
                            continue;
                        };
                        linear.waits_for.insert(here, record);
                    }
                    Task::StreamActive { stream, .. } => {
                        let target = *stream as usize;
                        if target >= n {
                            return Err(format!(
                                "{}: stream {target} out of range",
                                at(model, here)
                            ));
                        }
                        if self.running[target]
                            && self.pos[target] < model.streams[target].tasks.len()
                        {
                            return Err(format!(
                                "{}: stream {target} is activated while it still runs",
                                at(model, here)
                            ));
                        }
                        self.running[target] = true;
                        self.pos[target] = 0;
                        self.activation.insert(target, (here, seg));
                    }
                    Task::LabelGoto { label, .. } => next = self.labels[&(s, *label)],
                    Task::LabelSwitchByIndex { .. } => match self.decisions.remove(&here) {
                        Some(target) => next = target,
                        None => {
                            if !linear.pending.contains(&here) {
                                linear.pending.push(here);
                            }
                            continue;
                        }
                    },
                    _ => {}
                }
                if !seen.insert(here) {
                    return Err(format!(
                        "{}: runs twice between two control decisions (a loop without a \
                         switch?)",
                        at(model, here)
                    ));
                }
                if here.1 == 0 {
                    if let Some(active) = self.activation.remove(&s) {
                        linear.started_by.insert(here, active);
                    }
                }
                linear.order.push(here);
                self.pos[s] = next;
                progressed = true;
            }
            if progressed {
                continue;
            }
            let blocked: Vec<TaskRef> = (0..n)
                .filter(|&s| self.running[s])
                .map(|s| (s, self.pos[s]))
                .collect();
            if blocked.is_empty() {
                linear.finished = true;
                return Ok(linear);
            }
            if !linear.pending.is_empty() {
                return Ok(linear);
            }
            let names: Vec<String> = blocked.iter().map(|&t| at(model, t)).collect();
            return Err(format!(
                "no host order exists: every unfinished stream waits for something nobody \
                 records first ({})",
                names.join("; ")
            ));
        }
    }

    /// Workspace byte ranges some task may still read from where the streams are,
    /// sorted and merged.
    pub fn reachable_reads(&self) -> Vec<(u64, u64)> {
        let model = self.model;
        let n = model.streams.len();
        let mut visited: Vec<Vec<bool>> = model
            .streams
            .iter()
            .map(|s| vec![false; s.tasks.len()])
            .collect();
        let mut work: Vec<TaskRef> = (0..n)
            .filter(|&s| self.running[s] && self.pos[s] < model.streams[s].tasks.len())
            .map(|s| (s, self.pos[s]))
            .collect();
        let mut ranges = Vec::new();
        while let Some((s, i)) = work.pop() {
            if visited[s][i] {
                continue;
            }
            visited[s][i] = true;
            let task = &model.streams[s].tasks[i];
            ranges.extend(
                reads(task)
                    .into_iter()
                    .filter(|r| r.0 == Region::Workspace)
                    .map(|r| (r.1, r.2)),
            );
            let len = model.streams[s].tasks.len();
            let mut push = |t: TaskRef| {
                if t.1 < model.streams[t.0].tasks.len() {
                    work.push(t);
                }
            };
            match task {
                Task::LabelGoto { label, .. } => push((s, self.labels[&(s, *label)])),
                Task::LabelSwitchByIndex { labels, .. } => {
                    for l in labels {
                        push((s, self.labels[&(s, *l)]));
                    }
                }
                Task::StreamActive { stream, .. } => {
                    push((*stream as usize, 0));
                    push((s, i + 1));
                }
                _ if i + 1 < len => push((s, i + 1)),
                _ => {}
            }
        }
        merge_ranges(ranges)
    }
}

/// Sorted, overlapping and touching ranges joined.
pub fn merge_ranges(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Whether [start, end) meets one of the merged `ranges`.
pub fn meets(ranges: &[(u64, u64)], start: u64, end: u64) -> bool {
    let i = ranges.partition_point(|&(_, e)| e <= start);
    ranges.get(i).is_some_and(|&(s, _)| s < end)
}
