//! The plan of a dynamic-memory run: the lowered [`TaskModel`]'s tasks in one host order,
//! with each workspace tensor allocated on its producer's stream before its first access
//! and freed on each stream after its last access there.
//!
//! * **Host order.** The streams' task lists interleaved one task per stream per round,
//!   a wait only after the record it waits for (the event latch simulated on the host),
//!   a stream activated only after its `StreamActive` (GE's dynamic runtime likewise
//!   launches in a topological order).
//! * **Tensors.** The static plan packs tensors into one workspace, so an offset is not
//!   a tensor. A workspace *write* (a kernel, copy, memset or collective output) starts a
//!   value; a *read* reads the latest writes of its bytes in host order (in a race-free
//!   model that is the write it is ordered after). Writes that one read sees together
//!   are one buffer (laid out as in the static plan); bytes read before anyone wrote them
//!   get a buffer of their own. Each buffer is allocated at its first access, on that
//!   access's stream (its birth stream), made known to every other stream that uses it
//!   right away (`AccessMemCrossStream` → `WanderFrom`; the birth stream's free cannot
//!   come first), and freed on each stream after its last access there.
//! * **Events.** Every record → wait pair (and `StreamActive` → first task of the
//!   activated stream) becomes one logical event (GE's `SendEvents` / `WaitEvents`),
//!   recorded once per run on an event that is never reset; `EVENT_RESET` tasks go.
//!   Around them, GE's three sync stages: first (main → each sub stream), last (each sub
//!   stream → main), then last-resource-clean.
//! * Model outputs in the workspace are read on the main stream after the last stage,
//!   then freed.
//!
//! Device-side control flow (labels, stream switches) cannot run this way: launches are
//! direct, so the plan refuses it and names the task.

use crate::lowering::model::{Addr, Region, Task, TaskModel};
use crate::runtime::executor::load::{task_kind, task_node};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// A buffer's number in the plan.
pub type BufferId = usize;
/// (stream, task index) in the model.
pub type TaskRef = (usize, usize);

/// Where one access of a task lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A region the static way (weights, variables, model inputs and outputs).
    Static(Addr),
    /// `offset` bytes into a run-time buffer.
    Buffer { buffer: BufferId, offset: u64 },
}

/// A run-time buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    pub size: u64,
    /// Its offset in the static plan (for reports).
    pub static_offset: u64,
    pub birth: usize,
}

/// One logical event from `src` to `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogicalEvent {
    pub src: usize,
    pub dst: usize,
}

/// One host step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Alloc {
        buffer: BufferId,
        stream: usize,
    },
    /// `AccessMemCrossStream`: `dst` will use `buffer` born on `src`.
    Wander {
        buffer: BufferId,
        src: usize,
        dst: usize,
    },
    /// A task's launch; `places` follow [`accesses`]' order.
    Launch {
        task: TaskRef,
        places: Vec<Place>,
    },
    Send {
        event: usize,
    },
    Wait {
        event: usize,
    },
    Free {
        buffer: BufferId,
        stream: usize,
    },
    /// Synchronise the main stream and read the model outputs.
    ReadOutputs,
    /// `LastWaitEvents`' memory part.
    LastResourceClean,
}

/// See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicPlan {
    pub stream_num: usize,
    pub buffers: Vec<Buffer>,
    pub events: Vec<LogicalEvent>,
    pub steps: Vec<Step>,
    /// Where each model output is read, by position in `TaskModel::outputs`.
    pub outputs: Vec<Place>,
    /// The most buffer bytes live at once in host order.
    pub peak_live_bytes: u64,
}

/// One memory access of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub addr: Addr,
    pub size: u64,
    pub write: bool,
}

/// The memory a launched task touches, reads first: kernel inputs then outputs, a
/// copy's source then destination, a memset's destination, a collective's inputs then
/// outputs. Other tasks: none.
pub fn accesses(task: &Task) -> Vec<Access> {
    let read = |o: &crate::lowering::model::Operand| Access {
        addr: o.addr,
        size: o.size,
        write: false,
    };
    let write = |o: &crate::lowering::model::Operand| Access {
        addr: o.addr,
        size: o.size,
        write: true,
    };
    match task {
        Task::Kernel {
            inputs, outputs, ..
        }
        | Task::Hccl {
            inputs, outputs, ..
        } => inputs
            .iter()
            .map(read)
            .chain(outputs.iter().map(write))
            .collect(),
        Task::MemcpyAsync { src, dst, .. } => vec![
            Access {
                size: src.size.min(dst.size),
                ..read(src)
            },
            write(dst),
        ],
        Task::Memset { dst, size, .. } => vec![Access {
            addr: *dst,
            size: *size,
            write: true,
        }],
        _ => Vec::new(),
    }
}

fn at(model: &TaskModel, (s, i): TaskRef) -> String {
    let task = &model.streams[s].tasks[i];
    let node = task_node(task);
    if node.is_empty() {
        format!("stream {s}, task {i} ({})", task_kind(task))
    } else {
        format!("stream {s}, task {i} ({} `{node}`)", task_kind(task))
    }
}

/// What the host order pairs up.
#[derive(Debug, Default)]
struct Linear {
    order: Vec<TaskRef>,
    /// Record (or notify record, or StreamActive) → the waits it releases.
    releases: HashMap<TaskRef, Vec<TaskRef>>,
    /// Wait → the record it waits for.
    waits_for: HashMap<TaskRef, TaskRef>,
    /// Activated stream → the StreamActive that starts it.
    activated_by: HashMap<usize, TaskRef>,
}

fn linearize(model: &TaskModel) -> Result<Linear, String> {
    let n = model.streams.len();
    let mut pos = vec![0usize; n];
    let mut started: Vec<bool> = model.streams.iter().map(|s| !s.activated).collect();
    let mut latch: HashMap<u32, TaskRef> = HashMap::new();
    let mut notifies: HashMap<u32, VecDeque<TaskRef>> = HashMap::new();
    let mut linear = Linear::default();
    loop {
        let mut progressed = false;
        let mut unfinished = false;
        for s in 0..n {
            let tasks = &model.streams[s].tasks;
            if !started[s] || pos[s] >= tasks.len() {
                continue;
            }
            unfinished = true;
            let here = (s, pos[s]);
            match &tasks[pos[s]] {
                Task::EventWait { event, .. } => {
                    let Some(&record) = latch.get(event) else {
                        continue;
                    };
                    linear.releases.entry(record).or_default().push(here);
                    linear.waits_for.insert(here, record);
                }
                Task::EventRecord { event, .. } => {
                    // A latch already set stays set by its first record: a wait may pass
                    // on that one alone.
                    latch.entry(*event).or_insert(here);
                }
                Task::EventReset { event, .. } => {
                    latch.remove(event);
                }
                Task::NotifyRecord { notify, .. } => {
                    notifies.entry(*notify).or_default().push_back(here);
                }
                Task::NotifyWait { notify, .. } => {
                    let Some(record) = notifies.get_mut(notify).and_then(VecDeque::pop_front)
                    else {
                        continue;
                    };
                    linear.releases.entry(record).or_default().push(here);
                    linear.waits_for.insert(here, record);
                }
                Task::StreamActive { stream, .. } => {
                    let target = *stream as usize;
                    if target >= n {
                        return Err(format!("{}: stream {target} out of range", at(model, here)));
                    }
                    if started[target] || linear.activated_by.contains_key(&target) {
                        return Err(format!(
                            "{}: stream {target} is activated more than once; dynamic memory \
                             mode launches each stream's tasks once per run (use --memory=static)",
                            at(model, here)
                        ));
                    }
                    started[target] = true;
                    linear.activated_by.insert(target, here);
                    linear.releases.entry(here).or_default().push((target, 0));
                }
                Task::StreamSwitch { .. }
                | Task::LabelSet { .. }
                | Task::LabelGoto { .. }
                | Task::LabelSwitchByIndex { .. } => {
                    return Err(format!(
                        "{}: dynamic memory mode launches tasks directly on their streams, so \
                         device-side control flow (labels, stream switches) needs --memory=static",
                        at(model, here)
                    ));
                }
                _ => {}
            }
            linear.order.push(here);
            pos[s] += 1;
            progressed = true;
        }
        if !unfinished {
            return Ok(linear);
        }
        if !progressed {
            let blocked: Vec<String> = (0..n)
                .filter(|&s| started[s] && pos[s] < model.streams[s].tasks.len())
                .map(|s| at(model, (s, pos[s])))
                .collect();
            return Err(format!(
                "no host order exists: every unfinished stream waits for something nobody \
                 records first ({})",
                blocked.join("; ")
            ));
        }
    }
}

/// Latest writes per workspace byte, and the union of writes read together.
#[derive(Debug, Default)]
struct Writes {
    /// start → (end, write id), disjoint.
    latest: BTreeMap<u64, (u64, usize)>,
    parent: Vec<usize>,
    range: Vec<(u64, u64)>,
}

impl Writes {
    fn new_write(&mut self, start: u64, end: u64) -> usize {
        self.parent.push(self.parent.len());
        self.range.push((start, end));
        self.parent.len() - 1
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) -> usize {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[b] = a;
        }
        a
    }

    /// Entries overlapping [start, end), as (start, end, id).
    fn overlapping(&self, start: u64, end: u64) -> Vec<(u64, u64, usize)> {
        let first = self
            .latest
            .range(..=start)
            .next_back()
            .map_or(start, |(&s, _)| s);
        self.latest
            .range(first..end)
            .filter(|(&s, &(e, _))| s < end && e > start)
            .map(|(&s, &(e, id))| (s, e, id))
            .collect()
    }

    /// The buffer (some member write) a read of [start, end) lands in.
    fn read(&mut self, start: u64, end: u64) -> usize {
        let seen = self.overlapping(start, end);
        let mut members: Vec<usize> = seen.iter().map(|&(_, _, id)| id).collect();
        // Bytes nobody wrote yet: a write of their own, so the read has memory.
        let mut cursor = start;
        let mut holes = Vec::new();
        for &(s, e, _) in &seen {
            if s > cursor {
                holes.push((cursor, s));
            }
            cursor = cursor.max(e);
        }
        if cursor < end {
            holes.push((cursor, end));
        }
        for (s, e) in holes {
            let id = self.new_write(s, e);
            self.latest.insert(s, (e, id));
            members.push(id);
        }
        let first = members[0];
        members
            .into_iter()
            .fold(first, |root, m| self.union(root, m))
    }

    /// A new value over [start, end).
    fn write(&mut self, start: u64, end: u64) -> usize {
        for (s, e, id) in self.overlapping(start, end) {
            self.latest.remove(&s);
            if s < start {
                self.latest.insert(s, (start, id));
            }
            if e > end {
                self.latest.insert(end, (e, id));
            }
        }
        let id = self.new_write(start, end);
        self.latest.insert(start, (end, id));
        id
    }
}

/// Builds the plan of `model` (see the module documentation).
pub fn build(model: &TaskModel) -> Result<DynamicPlan, String> {
    let n = model.streams.len();
    if n == 0 {
        return Err("the model has no streams".to_owned());
    }
    let linear = linearize(model)?;
    // Pass 1: the write each access lands in, in host order; the model outputs last, as
    // reads on the main stream.
    let mut writes = Writes::default();
    let mut landed: Vec<Vec<Option<usize>>> = Vec::with_capacity(linear.order.len() + 1);
    for &(s, i) in &linear.order {
        let task = &model.streams[s].tasks[i];
        let mut marks = Vec::new();
        for access in accesses(task) {
            marks.push(match access.addr.region {
                Region::Workspace if access.size > 0 => {
                    let (start, end) = (access.addr.offset, access.addr.offset + access.size);
                    Some(if access.write {
                        writes.write(start, end)
                    } else {
                        writes.read(start, end)
                    })
                }
                _ => None,
            });
        }
        landed.push(marks);
    }
    let output_marks: Vec<Option<usize>> = model
        .outputs
        .iter()
        .map(|o| match o.operand.addr.region {
            Region::Workspace => {
                let size = o.operand.desc.bytes().max(1);
                Some(writes.read(o.operand.addr.offset, o.operand.addr.offset + size))
            }
            _ => None,
        })
        .collect();
    // Buffers: one per union, as wide as its members.
    let mut buffer_of: HashMap<usize, BufferId> = HashMap::new();
    let mut hull: Vec<(u64, u64)> = Vec::new();
    for id in 0..writes.parent.len() {
        let root = writes.find(id);
        let (s, e) = writes.range[id];
        let b = *buffer_of.entry(root).or_insert_with(|| {
            hull.push((s, e));
            hull.len() - 1
        });
        hull[b] = (hull[b].0.min(s), hull[b].1.max(e));
    }
    let place_of = |writes: &mut Writes, access: &Access, mark: Option<usize>| match mark {
        Some(id) => {
            let buffer = buffer_of[&writes.find(id)];
            Place::Buffer {
                buffer,
                offset: access.addr.offset - hull[buffer].0,
            }
        }
        None => Place::Static(access.addr),
    };
    // Per access position: the places; per buffer: first access, per-stream last access.
    // Position `order.len()` is the output read on the main stream.
    let outputs_at = linear.order.len();
    let mut places: Vec<Vec<Place>> = Vec::with_capacity(linear.order.len());
    for (p, &(s, i)) in linear.order.iter().enumerate() {
        let task = &model.streams[s].tasks[i];
        let list = accesses(task)
            .iter()
            .zip(&landed[p])
            .map(|(a, &m)| place_of(&mut writes, a, m))
            .collect();
        places.push(list);
    }
    let outputs: Vec<Place> = model
        .outputs
        .iter()
        .zip(&output_marks)
        .map(|(o, &m)| {
            let access = Access {
                addr: o.operand.addr,
                size: o.operand.desc.bytes(),
                write: false,
            };
            place_of(&mut writes, &access, m)
        })
        .collect();
    let buffer_count = hull.len();
    let mut first: Vec<Option<(usize, usize)>> = vec![None; buffer_count];
    let mut streams_of: Vec<Vec<usize>> = vec![Vec::new(); buffer_count];
    let mut last: HashMap<(BufferId, usize), usize> = HashMap::new();
    let mut note = |buffer: BufferId, p: usize, s: usize| {
        first[buffer].get_or_insert((p, s));
        if !streams_of[buffer].contains(&s) {
            streams_of[buffer].push(s);
        }
        last.insert((buffer, s), p);
    };
    for (p, list) in places.iter().enumerate() {
        for place in list {
            if let Place::Buffer { buffer, .. } = *place {
                note(buffer, p, linear.order[p].0);
            }
        }
    }
    for place in &outputs {
        if let Place::Buffer { buffer, .. } = *place {
            note(buffer, outputs_at, 0);
        }
    }
    let buffers: Vec<Buffer> = (0..buffer_count)
        .map(|b| Buffer {
            size: (hull[b].1 - hull[b].0).max(1),
            static_offset: hull[b].0,
            birth: first[b].map_or(0, |(_, s)| s),
        })
        .collect();
    let mut allocs_at: HashMap<usize, Vec<BufferId>> = HashMap::new();
    for (b, f) in first.iter().enumerate() {
        if let Some((p, _)) = f {
            allocs_at.entry(*p).or_default().push(b);
        }
    }
    let mut frees_at: BTreeMap<usize, Vec<(BufferId, usize)>> = BTreeMap::new();
    for (&(b, s), &p) in &last {
        frees_at.entry(p).or_default().push((b, s));
    }
    frees_at.values_mut().for_each(|list| list.sort_unstable());
    // Pass 2: the steps.
    let mut events: Vec<LogicalEvent> = Vec::new();
    let mut event_of_pair: HashMap<(TaskRef, TaskRef), usize> = HashMap::new();
    let mut steps = Vec::new();
    let stage = |steps: &mut Vec<Step>, events: &mut Vec<LogicalEvent>, src, dst| {
        events.push(LogicalEvent { src, dst });
        steps.push(Step::Send {
            event: events.len() - 1,
        });
        steps.push(Step::Wait {
            event: events.len() - 1,
        });
    };
    let used: Vec<bool> = (0..n)
        .map(|s| linear.order.iter().any(|&(t, _)| t == s))
        .collect();
    for s in (1..n).filter(|&s| used[s]) {
        stage(&mut steps, &mut events, 0, s);
    }
    let alloc_steps = |steps: &mut Vec<Step>, p: usize| {
        for &b in allocs_at.get(&p).into_iter().flatten() {
            let birth = buffers[b].birth;
            steps.push(Step::Alloc {
                buffer: b,
                stream: birth,
            });
            for &s in streams_of[b].iter().filter(|&&s| s != birth) {
                steps.push(Step::Wander {
                    buffer: b,
                    src: birth,
                    dst: s,
                });
            }
        }
    };
    for (p, &(s, i)) in linear.order.iter().enumerate() {
        let here = (s, i);
        if i == 0 {
            if let Some(&active) = linear.activated_by.get(&s) {
                let event = event_of_pair[&(active, here)];
                steps.push(Step::Wait { event });
            }
        }
        alloc_steps(&mut steps, p);
        match &model.streams[s].tasks[i] {
            Task::Kernel { .. }
            | Task::MemcpyAsync { .. }
            | Task::Memset { .. }
            | Task::Hccl { .. } => {
                steps.push(Step::Launch {
                    task: here,
                    places: std::mem::take(&mut places[p]),
                });
            }
            Task::EventRecord { .. } | Task::NotifyRecord { .. } | Task::StreamActive { .. } => {
                for &wait in linear.releases.get(&here).into_iter().flatten() {
                    events.push(LogicalEvent {
                        src: s,
                        dst: wait.0,
                    });
                    event_of_pair.insert((here, wait), events.len() - 1);
                    steps.push(Step::Send {
                        event: events.len() - 1,
                    });
                }
            }
            Task::EventWait { .. } | Task::NotifyWait { .. } => {
                let record = linear.waits_for[&here];
                steps.push(Step::Wait {
                    event: event_of_pair[&(record, here)],
                });
            }
            _ => {}
        }
        for &(b, stream) in frees_at.get(&p).into_iter().flatten() {
            steps.push(Step::Free { buffer: b, stream });
        }
    }
    for s in (1..n).filter(|&s| used[s]) {
        stage(&mut steps, &mut events, s, 0);
    }
    alloc_steps(&mut steps, outputs_at);
    steps.push(Step::ReadOutputs);
    for &(b, stream) in frees_at.get(&outputs_at).into_iter().flatten() {
        steps.push(Step::Free { buffer: b, stream });
    }
    steps.push(Step::LastResourceClean);
    let peak_live_bytes = peak_live(&steps, &buffers, &streams_of);
    Ok(DynamicPlan {
        stream_num: n,
        buffers,
        events,
        steps,
        outputs,
        peak_live_bytes,
    })
}

/// The most buffer bytes allocated and not yet freed on every stream, in host order.
fn peak_live(steps: &[Step], buffers: &[Buffer], streams_of: &[Vec<usize>]) -> u64 {
    let mut holders: Vec<usize> = vec![0; buffers.len()];
    let (mut live, mut peak) = (0u64, 0u64);
    for step in steps {
        match *step {
            Step::Alloc { buffer, .. } => {
                holders[buffer] = streams_of[buffer].len();
                live += buffers[buffer].size;
                peak = peak.max(live);
            }
            Step::Free { buffer, .. } => {
                holders[buffer] -= 1;
                if holders[buffer] == 0 {
                    live -= buffers[buffer].size;
                }
            }
            _ => {}
        }
    }
    peak
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowering::model::{Attrs, DType, Operand, StreamTasks, TensorDesc};

    fn ws(offset: u64, bytes: u64) -> Operand {
        Operand {
            addr: Addr {
                region: Region::Workspace,
                offset,
            },
            size: bytes,
            desc: TensorDesc {
                dtype: DType::F32,
                dims: vec![bytes as i64 / 4],
                format: 2,
            },
        }
    }

    fn kernel(node: &str, inputs: Vec<Operand>, outputs: Vec<Operand>) -> Task {
        Task::Kernel {
            op_type: "Relu".into(),
            node: node.into(),
            attrs: Attrs::default(),
            inputs,
            outputs,
        }
    }

    fn model(streams: Vec<Vec<Task>>) -> TaskModel {
        TaskModel {
            name: "m".into(),
            stream_num: streams.len() as u32,
            event_num: 4,
            notify_num: 0,
            label_num: 0,
            memory_size: 1024,
            weight_size: 0,
            var_size: 0,
            weights: vec![],
            variables: vec![],
            inputs: vec![],
            outputs: vec![],
            streams: streams
                .into_iter()
                .enumerate()
                .map(|(id, tasks)| StreamTasks {
                    id: id as u32,
                    activated: false,
                    tasks,
                })
                .collect(),
        }
    }

    fn record(event: u32) -> Task {
        Task::EventRecord {
            node: String::new(),
            event,
        }
    }

    fn wait(event: u32) -> Task {
        Task::EventWait {
            node: String::new(),
            event,
        }
    }

    /// s0: a = k0(); record e0; wait e1; c = k2(b).  s1: wait e0; b = k1(a); record e1.
    fn two_streams() -> TaskModel {
        model(vec![
            vec![
                kernel("k0", vec![], vec![ws(0, 64)]),
                record(0),
                wait(1),
                kernel("k2", vec![ws(64, 64)], vec![ws(0, 64)]),
            ],
            vec![
                wait(0),
                kernel("k1", vec![ws(0, 64)], vec![ws(64, 64)]),
                record(1),
                Task::EventReset {
                    node: String::new(),
                    event: 0,
                },
            ],
        ])
    }

    #[test]
    fn a_cross_stream_tensor_is_born_on_its_producer_and_wandered_at_once() {
        let plan = build(&two_streams()).unwrap();
        // a, b, and c (which re-uses a's offset but is a new value: its own buffer).
        assert_eq!(plan.buffers.len(), 3);
        assert_eq!(plan.buffers[0].birth, 0);
        assert_eq!(plan.buffers[1].birth, 1);
        // Two record/wait pairs, the first stage (0 -> 1) and the last (1 -> 0).
        assert_eq!(plan.events.len(), 4);
        let alloc_a = plan
            .steps
            .iter()
            .position(|s| {
                *s == Step::Alloc {
                    buffer: 0,
                    stream: 0,
                }
            })
            .unwrap();
        assert_eq!(
            plan.steps[alloc_a + 1],
            Step::Wander {
                buffer: 0,
                src: 0,
                dst: 1
            }
        );
        // a is freed on both streams, each after its last use there.
        let free_a0 = plan
            .steps
            .iter()
            .position(|s| {
                *s == Step::Free {
                    buffer: 0,
                    stream: 0,
                }
            })
            .unwrap();
        let free_a1 = plan
            .steps
            .iter()
            .position(|s| {
                *s == Step::Free {
                    buffer: 0,
                    stream: 1,
                }
            })
            .unwrap();
        let launch_k1 = plan
            .steps
            .iter()
            .position(|s| matches!(s, Step::Launch { task: (1, 1), .. }))
            .unwrap();
        assert!(free_a0 < launch_k1 && launch_k1 < free_a1);
        assert_eq!(plan.steps.last(), Some(&Step::LastResourceClean));
        // Every buffer is allocated once and freed once per stream that uses it.
        let allocs = plan
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Alloc { .. }))
            .count();
        let frees = plan
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Free { .. }))
            .count();
        assert_eq!((allocs, frees), (3, 5));
        assert_eq!(plan.peak_live_bytes, 128);
    }

    #[test]
    fn writes_read_together_are_one_buffer_in_their_static_layout() {
        let m = model(vec![vec![
            kernel("lo", vec![], vec![ws(0, 32)]),
            kernel("hi", vec![], vec![ws(32, 32)]),
            kernel("all", vec![ws(0, 64)], vec![ws(128, 64)]),
        ]]);
        let plan = build(&m).unwrap();
        assert_eq!(plan.buffers.len(), 2);
        assert_eq!(
            (plan.buffers[0].size, plan.buffers[0].static_offset),
            (64, 0)
        );
        let places: Vec<&Vec<Place>> = plan
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Launch { places, .. } => Some(places),
                _ => None,
            })
            .collect();
        assert_eq!(
            places[1][0],
            Place::Buffer {
                buffer: 0,
                offset: 32
            }
        );
        assert_eq!(
            places[2][0],
            Place::Buffer {
                buffer: 0,
                offset: 0
            }
        );
    }

    #[test]
    fn control_flow_and_impossible_orders_are_refused() {
        let mut m = two_streams();
        m.streams[1].tasks.insert(
            0,
            Task::LabelSet {
                node: "l".into(),
                label: 0,
            },
        );
        let error = build(&m).unwrap_err();
        assert!(
            error.contains("stream 1, task 0 (LABEL_SET `l`)") && error.contains("--memory=static"),
            "{error}"
        );
        let m = model(vec![vec![wait(3), kernel("k", vec![], vec![ws(0, 4)])]]);
        let error = build(&m).unwrap_err();
        assert!(
            error.contains("no host order") && error.contains("stream 0, task 0 (EVENT_WAIT)"),
            "{error}"
        );
    }
}
