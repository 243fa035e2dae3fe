//! The plan of a dynamic-memory run without control decisions, whole: the steps of
//! [`super::segment`]'s one segment (used by tests and by the allocator benchmark), and
//! the pieces every segment shares: the memory a task accesses, and which writes a read
//! sees (`Writes`).

use super::segment::{EventTable, Planner};
use crate::lowering::model::{Addr, Region, Task, TaskModel};
use crate::runtime::executor::load::{task_kind, task_node};
use std::collections::BTreeMap;

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

/// [`accesses`], and a `LabelSwitchByIndex`'s read of its index (the host reads it).
pub fn plan_accesses(task: &Task) -> Vec<Access> {
    let mut out = accesses(task);
    if let Task::LabelSwitchByIndex { index, .. } = task {
        out.push(Access {
            addr: index.addr,
            size: index.size.max(1),
            write: false,
        });
    }
    out
}

pub(super) fn at(model: &TaskModel, (s, i): TaskRef) -> String {
    let task = &model.streams[s].tasks[i];
    let node = task_node(task);
    if node.is_empty() {
        format!("stream {s}, task {i} ({})", task_kind(task))
    } else {
        format!("stream {s}, task {i} ({} `{node}`)", task_kind(task))
    }
}

/// Latest writes per workspace byte, and the union of writes read together.
#[derive(Debug, Default)]
pub(super) struct Writes {
    /// start → (end, write id), disjoint.
    pub latest: BTreeMap<u64, (u64, usize)>,
    pub parent: Vec<usize>,
    pub range: Vec<(u64, u64)>,
}

impl Writes {
    fn new_write(&mut self, start: u64, end: u64) -> usize {
        self.parent.push(self.parent.len());
        self.range.push((start, end));
        self.parent.len() - 1
    }

    pub fn find(&mut self, mut x: usize) -> usize {
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
    pub fn overlapping(&self, start: u64, end: u64) -> Vec<(u64, u64, usize)> {
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

    /// The write a workspace access lands in (a new one for a write); none elsewhere.
    pub fn land(&mut self, access: &Access) -> Option<usize> {
        if access.addr.region != Region::Workspace || access.size == 0 {
            return None;
        }
        let (start, end) = (access.addr.offset, access.addr.offset + access.size);
        Some(if access.write {
            self.write(start, end)
        } else {
            self.read(start, end)
        })
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

/// The plan of a model whose host order needs no control decision; a model that does
/// (a `LabelSwitchByIndex`) is refused with the switch named.
pub fn build(model: &TaskModel) -> Result<DynamicPlan, String> {
    let mut planner = Planner::new(model)?;
    let mut table = EventTable::default();
    let segment = planner.next_segment(&mut table)?;
    if let Some(&(task, _)) = segment.switches.first() {
        return Err(format!(
            "{}: the host reads this switch's index at run time; a whole plan cannot be \
             built before the run",
            at(model, task)
        ));
    }
    Ok(DynamicPlan {
        stream_num: model.streams.len(),
        peak_live_bytes: planner.peak_live_bytes(),
        buffers: planner.buffers,
        events: table.events,
        steps: segment.steps,
        outputs: segment.outputs.expect("the last segment reads the outputs"),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_models;
    use super::*;
    use crate::lowering::model::Operand;

    fn ws(offset: u64, bytes: u64) -> Operand {
        test_models::ws(offset, bytes)
    }

    fn kernel(node: &str, inputs: Vec<Operand>, outputs: Vec<Operand>) -> Task {
        test_models::relu(
            node,
            crate::lowering::model::Placement::Hbm,
            inputs,
            outputs,
        )
    }

    fn model(streams: Vec<Vec<Task>>) -> TaskModel {
        test_models::model(streams, 4)
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
    fn impossible_orders_are_refused() {
        let m = model(vec![vec![wait(3), kernel("k", vec![], vec![ws(0, 4)])]]);
        let error = build(&m).unwrap_err();
        assert!(
            error.contains("no host order") && error.contains("stream 0, task 0 (EVENT_WAIT)"),
            "{error}"
        );
    }

    fn label(label: u32) -> Task {
        Task::LabelSet {
            node: String::new(),
            label,
        }
    }

    fn launched(steps: &[Step]) -> Vec<TaskRef> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Launch { task, .. } => Some(*task),
                _ => None,
            })
            .collect()
    }

    /// A goto skips the tasks before its label; a label is a no-op.
    #[test]
    fn labels_and_gotos_are_followed_on_the_host() {
        let m = model(vec![vec![
            kernel("a", vec![], vec![ws(0, 64)]),
            Task::LabelGoto {
                node: String::new(),
                label: 7,
            },
            kernel("skipped", vec![], vec![ws(64, 64)]),
            label(7),
            kernel("b", vec![ws(0, 64)], vec![ws(128, 64)]),
        ]]);
        let plan = build(&m).unwrap();
        assert_eq!(launched(&plan.steps), vec![(0, 0), (0, 4)]);
        assert_eq!(plan.buffers.len(), 2);
        let mut m = m;
        m.streams[0].tasks[1] = Task::LabelGoto {
            node: String::new(),
            label: 8,
        };
        let error = build(&m).unwrap_err();
        assert!(error.contains("label 8 is not set on stream 0"), "{error}");
    }

    /// `x = k0(); loop: i = cond(x); switch i [exit, body]; body: t = k1(x); x = k2(t);
    /// goto loop; exit: y = k3(x)`, three trips. The loop variable keeps one buffer
    /// across the decisions; each trip's temporary is a buffer of its own, freed once the
    /// next trip overwrote it (or the loop was left); everything is freed by the end.
    #[test]
    fn a_loop_is_planned_one_trip_per_segment() {
        let m = model(vec![vec![
            kernel("x0", vec![], vec![ws(0, 64)]),
            label(0),
            kernel("cond", vec![ws(0, 64)], vec![ws(256, 4)]),
            Task::LabelSwitchByIndex {
                node: String::new(),
                index: ws(256, 4),
                labels: vec![2, 1],
            },
            label(1),
            kernel("t", vec![ws(0, 64)], vec![ws(64, 64)]),
            kernel("x", vec![ws(64, 64)], vec![ws(0, 64)]),
            Task::LabelGoto {
                node: String::new(),
                label: 0,
            },
            label(2),
            kernel("y", vec![ws(0, 64)], vec![ws(128, 64)]),
        ]]);
        let error = build(&m).unwrap_err();
        assert!(
            error.contains("stream 0, task 3 (STREAM_LABEL_SWITCH_BY_INDEX)"),
            "{error}"
        );
        let mut planner = Planner::new(&m).unwrap();
        let mut table = EventTable::default();
        let mut all = Vec::new();
        let mut trips = 0;
        let outputs = loop {
            let segment = planner.next_segment(&mut table).unwrap();
            all.extend(segment.steps.iter().cloned());
            if let Some(outputs) = segment.outputs {
                break outputs;
            }
            assert_eq!(segment.switches.len(), 1);
            let (task, place) = segment.switches[0];
            assert_eq!(task, (0, 3));
            // The index is the latest `cond` output, allocated and not freed.
            let Place::Buffer { buffer, offset: 0 } = place else {
                panic!("{place:?}")
            };
            assert!(all.contains(&Step::Alloc { buffer, stream: 0 }));
            assert!(!all.contains(&Step::Free { buffer, stream: 0 }));
            trips += 1;
            planner.decide(task, u32::from(trips <= 3)).unwrap();
        };
        assert!(outputs.is_empty());
        assert_eq!(trips, 4);
        let kernels = launched(&all);
        assert_eq!(kernels.iter().filter(|&&t| t == (0, 5)).count(), 3);
        assert_eq!(kernels.last(), Some(&(0, 9)));
        // x0, 4 conds, 3 t, 3 x, y: each allocated once and freed once.
        let allocs = all
            .iter()
            .filter(|s| matches!(s, Step::Alloc { .. }))
            .count();
        let frees = all
            .iter()
            .filter(|s| matches!(s, Step::Free { .. }))
            .count();
        assert_eq!((allocs, frees), (12, 12));
        assert_eq!(planner.buffers.len(), 12);
        // At most two trips' values (64 B each) and two indexes are live at once.
        assert!(
            planner.peak_live_bytes() <= 2 * 3 * 64 + 2 * 4,
            "{}",
            planner.peak_live_bytes()
        );
        // An index out of range takes the last label (the body here): a fourth trip.
        let mut planner = Planner::new(&m).unwrap();
        let segment = planner.next_segment(&mut table).unwrap();
        planner.decide(segment.switches[0].0, 9).unwrap();
        let segment = planner.next_segment(&mut table).unwrap();
        assert!(launched(&segment.steps).contains(&(0, 5)));
    }

    /// A stream may be activated again once idle, but a task runs once between two
    /// control decisions (a loop trip is one decision each); activating a stream that
    /// still runs is refused.
    #[test]
    fn activations_of_a_running_stream_and_repeats_without_decision_are_refused() {
        let mut m = model(vec![
            vec![
                Task::StreamActive {
                    node: String::new(),
                    stream: 1,
                },
                record(0),
                wait(1),
                Task::StreamActive {
                    node: String::new(),
                    stream: 1,
                },
            ],
            vec![kernel("k", vec![], vec![ws(0, 4)]), record(1)],
        ]);
        m.streams[1].activated = true;
        let error = build(&m).unwrap_err();
        assert!(
            error.contains(
                "stream 1, task 0 (KERNEL `k`): runs twice between two control decisions"
            ),
            "{error}"
        );
        m.streams[0].tasks.remove(2);
        m.streams[1].tasks.insert(0, wait(0));
        m.streams[1].tasks.insert(1, wait(5));
        let error = build(&m).unwrap_err();
        assert!(error.contains("activated while it still runs"), "{error}");
    }
}
