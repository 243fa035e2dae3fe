//! The plan of a dynamic-memory run, one segment of the host order (`flow`) at a time:
//! which buffer each access lands in, where each buffer is allocated, made known to
//! other streams, and freed.
//!
//! * **Values.** A workspace write starts a value; a read reads the latest writes of its
//!   bytes in host order (see `Writes`). Writes read together are one buffer, laid out
//!   as in the static plan. The write → buffer map lives across segments, so a value
//!   made before a control decision (a parent input, a loop variable) keeps its buffer
//!   after it.
//! * **Within a segment** a buffer is allocated at its first access, on that access's
//!   stream (its birth stream), made known to every other stream using it in the segment
//!   right away (`AccessMemCrossStream` → `WanderFrom`), and freed on each stream after
//!   its last access there.
//! * **Across a decision** a buffer stays allocated when some task that may still run
//!   (over the label edges from where each stream stands, [`Cursor::reachable_reads`])
//!   reads bytes it holds the latest value of, or a model output is there: its birth
//!   stream keeps it (skips its free), and a stream using it in a later segment wanders
//!   it in again at its first access there. It is freed on its birth stream at the end
//!   of the first segment after which no reachable task reads it: a subgraph's own
//!   tensors are allocated and freed per branch taken and per loop trip (a trip's value
//!   lives until the next trip overwrote its bytes, or the loop is left).
//! * **Events.** Every record → wait pair (and `StreamActive` → the activated stream's
//!   first task) is one logical event, the same one on every trip (GE's `SendEvents` /
//!   `WaitEvents`; `EVENT_RESET` tasks go). A pair that spans a decision sends at the
//!   wait (the record already ran; recording later only orders more). Around the run,
//!   GE's three sync stages: first (main → each sub stream), last (each sub stream →
//!   main), then last-resource-clean.
//! * Model outputs in the workspace are read on the main stream after the last stage,
//!   then freed.
//!
//! Writes of one buffer made in different segments must land inside the buffer's first
//! layout; two buffers that a later read joins cannot be merged once allocated, and are
//! refused.

use super::{
    flow::{meets, merge_ranges, Cursor, Record},
    plan::{
        at, plan_accesses, Access, Buffer, BufferId, LogicalEvent, Place, Step, TaskRef, Writes,
    },
};
use crate::lowering::model::{Region, Task, TaskModel};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The logical events of a rank, the same ones on every run.
#[derive(Debug, Clone, Default)]
pub struct EventTable {
    pub events: Vec<LogicalEvent>,
    pairs: HashMap<(TaskRef, TaskRef), usize>,
    stages: HashMap<(usize, usize), usize>,
}

impl EventTable {
    fn add(&mut self, src: usize, dst: usize) -> usize {
        self.events.push(LogicalEvent { src, dst });
        self.events.len() - 1
    }

    fn pair(&mut self, record: TaskRef, wait: TaskRef) -> usize {
        if let Some(&e) = self.pairs.get(&(record, wait)) {
            return e;
        }
        let e = self.add(record.0, wait.0);
        self.pairs.insert((record, wait), e);
        e
    }

    fn stage(&mut self, src: usize, dst: usize) -> usize {
        if let Some(&e) = self.stages.get(&(src, dst)) {
            return e;
        }
        let e = self.add(src, dst);
        self.stages.insert((src, dst), e);
        e
    }
}

/// One segment's steps and what the host does after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub steps: Vec<Step>,
    /// The switches to decide (none in the last segment), each with where its index is.
    pub switches: Vec<(TaskRef, Place)>,
    /// Where each model output is read (the last segment only).
    pub outputs: Option<Vec<Place>>,
}

/// Buffer bytes allocated and not yet freed on every stream holding them.
#[derive(Debug, Default)]
struct LiveBytes {
    holders: Vec<usize>,
    live: u64,
    peak: u64,
}

impl LiveBytes {
    fn apply(&mut self, steps: &[Step], buffers: &[Buffer]) {
        self.holders.resize(buffers.len(), 0);
        for step in steps {
            match *step {
                Step::Alloc { buffer, .. } => {
                    self.holders[buffer] = 1;
                    self.live += buffers[buffer].size;
                    self.peak = self.peak.max(self.live);
                }
                Step::Wander { buffer, .. } => self.holders[buffer] += 1,
                Step::Free { buffer, .. } => {
                    self.holders[buffer] -= 1;
                    if self.holders[buffer] == 0 {
                        self.live -= buffers[buffer].size;
                    }
                }
                _ => {}
            }
        }
    }
}

/// See the module documentation.
pub struct Planner<'m> {
    model: &'m TaskModel,
    cursor: Cursor<'m>,
    writes: Writes,
    /// Write id → its buffer, from the end of the segment that made it.
    buffer_of: Vec<Option<BufferId>>,
    pub buffers: Vec<Buffer>,
    /// Buffers alive past the last segment, held by their birth stream.
    kept: BTreeSet<BufferId>,
    live: LiveBytes,
    segment: usize,
}

fn launchable(task: &Task) -> bool {
    matches!(
        task,
        Task::Kernel { .. } | Task::MemcpyAsync { .. } | Task::Memset { .. } | Task::Hccl { .. }
    )
}

impl<'m> Planner<'m> {
    pub fn new(model: &'m TaskModel) -> Result<Self, String> {
        if model.streams.is_empty() {
            return Err("the model has no streams".to_owned());
        }
        Ok(Self {
            model,
            cursor: Cursor::new(model)?,
            writes: Writes::default(),
            buffer_of: Vec::new(),
            buffers: Vec::new(),
            kept: BTreeSet::new(),
            live: LiveBytes::default(),
            segment: 0,
        })
    }

    /// The most buffer bytes live at once in host order so far (unrounded).
    pub fn peak_live_bytes(&self) -> u64 {
        self.live.peak
    }

    /// See [`Cursor::decide`].
    pub fn decide(&mut self, task: TaskRef, index: u32) -> Result<(), String> {
        self.cursor.decide(task, index)
    }

    /// Every write made in this segment joined to its buffer: an old one when a read
    /// joined it to a value of an earlier segment, else a new one as wide as its members.
    fn assign(&mut self) -> Result<(), String> {
        let total = self.writes.parent.len();
        self.buffer_of.resize(total, None);
        // Groups in the order of their first write, so buffers are numbered that way.
        let mut group_of: HashMap<usize, usize> = HashMap::new();
        let mut groups: Vec<(Vec<BufferId>, Vec<usize>)> = Vec::new();
        for id in 0..total {
            let root = self.writes.find(id);
            let g = *group_of.entry(root).or_insert_with(|| {
                groups.push(Default::default());
                groups.len() - 1
            });
            let group = &mut groups[g];
            match self.buffer_of[id] {
                Some(b) if !group.0.contains(&b) => group.0.push(b),
                Some(_) => {}
                None => group.1.push(id),
            }
        }
        for (olds, news) in groups {
            let (s, e) = news.iter().fold((u64::MAX, 0), |(s, e), &id| {
                let r = self.writes.range[id];
                (s.min(r.0), e.max(r.1))
            });
            let b = match olds[..] {
                [] if news.is_empty() => continue,
                [] => {
                    self.buffers.push(Buffer {
                        size: (e - s).max(1),
                        static_offset: s,
                        birth: 0,
                    });
                    self.buffers.len() - 1
                }
                [b] => {
                    let buffer = &self.buffers[b];
                    if !news.is_empty()
                        && (s < buffer.static_offset || e > buffer.static_offset + buffer.size)
                    {
                        return Err(format!(
                            "workspace bytes [{s}, {e}) are written after a control decision \
                             as part of the value at [{}, {}), which is already allocated \
                             smaller (use --memory=static)",
                            buffer.static_offset,
                            buffer.static_offset + buffer.size
                        ));
                    }
                    b
                }
                _ => {
                    let spans: Vec<String> = olds
                        .iter()
                        .map(|&b| {
                            let buffer = &self.buffers[b];
                            format!(
                                "[{}, {})",
                                buffer.static_offset,
                                buffer.static_offset + buffer.size
                            )
                        })
                        .collect();
                    return Err(format!(
                        "a read after a control decision joins values allocated apart ({}); \
                         dynamic memory mode cannot merge live buffers (use --memory=static)",
                        spans.join(", ")
                    ));
                }
            };
            for id in news {
                self.buffer_of[id] = Some(b);
            }
        }
        Ok(())
    }

    fn place(&self, access: &Access, mark: Option<usize>) -> Place {
        match mark {
            Some(id) => {
                let buffer = self.buffer_of[id].expect("assigned");
                Place::Buffer {
                    buffer,
                    offset: access.addr.offset - self.buffers[buffer].static_offset,
                }
            }
            None => Place::Static(access.addr),
        }
    }

    /// Where a pending switch reads its index: one value holding all of its bytes.
    fn index_place(&self, task: TaskRef) -> Result<Place, String> {
        let Task::LabelSwitchByIndex { index, .. } = &self.model.streams[task.0].tasks[task.1]
        else {
            unreachable!("only switches are pending")
        };
        if index.addr.region != Region::Workspace {
            return Ok(Place::Static(index.addr));
        }
        let (start, end) = (index.addr.offset, index.addr.offset + index.size.max(1));
        match self.writes.overlapping(start, end)[..] {
            [(s, e, id)] if s <= start && e >= end => {
                let buffer = self.buffer_of[id].expect("assigned");
                Ok(Place::Buffer {
                    buffer,
                    offset: start - self.buffers[buffer].static_offset,
                })
            }
            _ => Err(format!(
                "{}: its index at workspace [{start}, {end}) is not one value written before it",
                at(self.model, task)
            )),
        }
    }

    /// The buffers holding the latest value of bytes in `ranges`.
    fn holding(&mut self, ranges: &[(u64, u64)]) -> BTreeSet<BufferId> {
        let entries: Vec<(u64, u64, usize)> = self
            .writes
            .latest
            .iter()
            .map(|(&s, &(e, id))| (s, e, id))
            .collect();
        entries
            .into_iter()
            .filter(|&(s, e, _)| meets(ranges, s, e))
            .filter_map(|(_, _, id)| self.buffer_of[id])
            .collect()
    }

    /// The next segment's steps (see the module documentation).
    pub fn next_segment(&mut self, table: &mut EventTable) -> Result<Segment, String> {
        let model = self.model;
        let n = model.streams.len();
        let seg = self.segment;
        self.segment += 1;
        let linear = self.cursor.next_segment()?;
        // Pass 1: the write each access lands in, in host order; in the last segment the
        // model outputs last, as reads on the main stream.
        let mut landed: Vec<Vec<Option<usize>>> = Vec::with_capacity(linear.order.len());
        for &(s, i) in &linear.order {
            let marks = plan_accesses(&model.streams[s].tasks[i])
                .iter()
                .map(|a| self.writes.land(a))
                .collect();
            landed.push(marks);
        }
        let output_accesses: Vec<Access> = model
            .outputs
            .iter()
            .map(|o| Access {
                addr: o.operand.addr,
                size: o.operand.desc.bytes().max(1),
                write: false,
            })
            .collect();
        let output_marks: Vec<Option<usize>> = if linear.finished {
            output_accesses
                .iter()
                .map(|a| self.writes.land(a))
                .collect()
        } else {
            Vec::new()
        };
        let buffers_before = self.buffers.len();
        self.assign()?;
        let old: BTreeSet<BufferId> = std::mem::take(&mut self.kept);
        // What stays allocated past this segment.
        let kept_now = if linear.finished {
            BTreeSet::new()
        } else {
            let mut reach = self.cursor.reachable_reads();
            reach.extend(
                output_accesses
                    .iter()
                    .filter(|a| a.addr.region == Region::Workspace)
                    .map(|a| (a.addr.offset, a.addr.offset + a.size)),
            );
            let reach = merge_ranges(reach);
            let mut holding = self.holding(&reach);
            holding.retain(|&b| b >= buffers_before || old.contains(&b));
            holding
        };
        let switches = linear
            .pending
            .iter()
            .map(|&t| self.index_place(t).map(|p| (t, p)))
            .collect::<Result<Vec<_>, _>>()?;
        // Places, first accesses and per-stream last accesses.
        let outputs_at = linear.order.len();
        let mut places: Vec<Vec<Place>> = Vec::with_capacity(outputs_at);
        let mut first: BTreeMap<BufferId, (usize, usize)> = BTreeMap::new();
        let mut first_on: BTreeMap<(BufferId, usize), usize> = BTreeMap::new();
        let mut streams_of: BTreeMap<BufferId, Vec<usize>> = BTreeMap::new();
        let mut last: BTreeMap<(BufferId, usize), usize> = BTreeMap::new();
        let mut note = |place: &Place, p: usize, s: usize| {
            if let Place::Buffer { buffer, .. } = *place {
                first.entry(buffer).or_insert((p, s));
                first_on.entry((buffer, s)).or_insert(p);
                let on = streams_of.entry(buffer).or_default();
                if !on.contains(&s) {
                    on.push(s);
                }
                last.insert((buffer, s), p);
            }
        };
        for (p, &(s, i)) in linear.order.iter().enumerate() {
            let list: Vec<Place> = plan_accesses(&model.streams[s].tasks[i])
                .iter()
                .zip(&landed[p])
                .map(|(a, &m)| self.place(a, m))
                .collect();
            list.iter().for_each(|place| note(place, p, s));
            places.push(list);
        }
        let outputs: Vec<Place> = output_accesses
            .iter()
            .zip(&output_marks)
            .map(|(a, &m)| self.place(a, m))
            .collect();
        outputs.iter().for_each(|place| note(place, outputs_at, 0));
        for (&b, &(_, s)) in &first {
            if b >= buffers_before {
                self.buffers[b].birth = s;
            } else if !old.contains(&b) {
                return Err(format!(
                    "the value at workspace offset {} is used after it was freed",
                    self.buffers[b].static_offset
                ));
            }
        }
        // Allocation steps per position: new buffers allocated and wandered to every
        // stream using them here; old ones wandered to a stream at its first access.
        let mut allocs_at: BTreeMap<usize, Vec<Step>> = BTreeMap::new();
        for (&b, &(p, s)) in &first {
            if b < buffers_before {
                continue;
            }
            let list = allocs_at.entry(p).or_default();
            list.push(Step::Alloc {
                buffer: b,
                stream: s,
            });
            for &dst in streams_of[&b].iter().filter(|&&d| d != s) {
                list.push(Step::Wander {
                    buffer: b,
                    src: s,
                    dst,
                });
            }
        }
        for (&(b, s), &p) in &first_on {
            let birth = self.buffers[b].birth;
            if b < buffers_before && s != birth {
                allocs_at.entry(p).or_default().push(Step::Wander {
                    buffer: b,
                    src: birth,
                    dst: s,
                });
            }
        }
        let keeps = |b: BufferId| old.contains(&b) || kept_now.contains(&b);
        let mut frees_at: BTreeMap<usize, Vec<Step>> = BTreeMap::new();
        for (&(b, s), &p) in &last {
            if s == self.buffers[b].birth && keeps(b) {
                continue;
            }
            frees_at.entry(p).or_default().push(Step::Free {
                buffer: b,
                stream: s,
            });
        }
        // Pass 2: the steps.
        let mut releases: HashMap<TaskRef, Vec<TaskRef>> = HashMap::new();
        for (&wait, &(record, rseg)) in linear.waits_for.iter().chain(&linear.started_by) {
            if rseg == seg {
                releases.entry(record).or_default().push(wait);
            }
        }
        releases.values_mut().for_each(|w| w.sort_unstable());
        let mut steps = Vec::new();
        let used: Vec<bool> = model.streams.iter().map(|s| !s.tasks.is_empty()).collect();
        if seg == 0 {
            for s in (1..n).filter(|&s| used[s]) {
                let event = table.stage(0, s);
                steps.push(Step::Send { event });
                steps.push(Step::Wait { event });
            }
        }
        let wait_for = |steps: &mut Vec<Step>, table: &mut EventTable, r: Record, here| {
            let event = table.pair(r.0, here);
            if r.1 != seg {
                steps.push(Step::Send { event });
            }
            steps.push(Step::Wait { event });
        };
        for (p, &here) in linear.order.iter().enumerate() {
            if let Some(&r) = linear.started_by.get(&here) {
                wait_for(&mut steps, table, r, here);
            }
            steps.extend(allocs_at.remove(&p).into_iter().flatten());
            let task = &model.streams[here.0].tasks[here.1];
            match task {
                _ if launchable(task) => steps.push(Step::Launch {
                    task: here,
                    places: std::mem::take(&mut places[p]),
                }),
                Task::EventRecord { .. }
                | Task::NotifyRecord { .. }
                | Task::StreamActive { .. } => {
                    for &wait in releases.get(&here).into_iter().flatten() {
                        steps.push(Step::Send {
                            event: table.pair(here, wait),
                        });
                    }
                }
                Task::EventWait { .. } | Task::NotifyWait { .. } => {
                    wait_for(&mut steps, table, linear.waits_for[&here], here);
                }
                _ => {}
            }
            steps.extend(frees_at.remove(&p).into_iter().flatten());
        }
        let deferred = |buffers: &[Buffer]| -> Vec<Step> {
            old.iter()
                .filter(|b| !kept_now.contains(b))
                .map(|&b| Step::Free {
                    buffer: b,
                    stream: buffers[b].birth,
                })
                .collect()
        };
        let outputs = if linear.finished {
            for s in (1..n).filter(|&s| used[s]) {
                let event = table.stage(s, 0);
                steps.push(Step::Send { event });
                steps.push(Step::Wait { event });
            }
            steps.extend(allocs_at.remove(&outputs_at).into_iter().flatten());
            steps.push(Step::ReadOutputs);
            steps.extend(frees_at.remove(&outputs_at).into_iter().flatten());
            steps.extend(deferred(&self.buffers));
            steps.push(Step::LastResourceClean);
            Some(outputs)
        } else {
            steps.extend(deferred(&self.buffers));
            None
        };
        self.kept = kept_now;
        self.live.apply(&steps, &self.buffers);
        Ok(Segment {
            steps,
            switches,
            outputs,
        })
    }
}
