//! Where the simulator tells the detector what happens: every hook returns at once when
//! `race=0`.

use smallvec::SmallVec;

use super::{Arg, Names, PendingHccl, TaskRecord};
use crate::errors::SimResult;
use crate::handles::Id;
use crate::sim::Sim;
use crate::task::{CollectiveOp, CollectiveTask, CopySource, Task};

const NONE: u32 = u32::MAX;

/// The device ranges a task touches: (address, bytes, is a write).
pub fn task_accesses(task: &Task) -> SmallVec<[(u64, u64, bool); 4]> {
    let mut v = SmallVec::new();
    match task {
        Task::Kernel(k) => {
            v.extend(k.inputs.iter().map(|o| (o.addr, o.len, false)));
            v.extend(k.outputs.iter().map(|o| (o.addr, o.len, true)));
        }
        Task::CopyToDevice { dst, src, len, .. } => {
            match src {
                CopySource::Device(s) | CopySource::Pinned { addr: s, .. } => {
                    v.push((*s, *len, false))
                }
                CopySource::Host(_) => {}
            }
            v.push((*dst, *len, true));
        }
        Task::CopyToHost { src, len, .. } => v.push((*src, *len, false)),
        Task::Memset { dst, len, .. } => v.push((*dst, *len, true)),
        Task::LabelSwitch { index_addr, .. } => v.push((*index_addr, 4, false)),
        Task::Switch { left, right, .. } => {
            v.push((*left, 4, false));
            v.push((*right, 4, false));
        }
        Task::Collective(c) => {
            // AllGather and ReduceScatter buffers scale with the rank count, which the
            // task does not carry: only the per-rank part is tracked.
            let bytes = c.count * c.dtype.size();
            v.push((c.send, bytes, false));
            v.push((c.recv, bytes, true));
        }
        _ => {}
    }
    v
}

/// The accesses of `task` (its `task_accesses`) with the role of each: a kernel's inputs
/// then outputs, a copy's source and destination, and so on.
fn task_args(task: &Task, acc: &[(u64, u64, bool)]) -> SmallVec<[Arg; 4]> {
    let inputs = match task {
        Task::Kernel(k) => k.inputs.len(),
        _ => 0,
    };
    acc.iter()
        .enumerate()
        .map(|(n, &(addr, len, write))| {
            let (role, index) = match task {
                Task::Kernel(_) if n < inputs => ("input", n),
                Task::Kernel(_) => ("output", n - inputs),
                Task::CopyToDevice { .. } | Task::CopyToHost { .. } | Task::Memset { .. } => {
                    (if write { "destination" } else { "source" }, 0)
                }
                Task::LabelSwitch { .. } | Task::Switch { .. } => ("index", n),
                // Part `p` of a collective node sends input `p` and receives output `p`;
                // a Broadcast works in place on the output (the executor copies the
                // input there first), so both of its accesses are output `p`. Without
                // `geSimSetHcclTask` the pair is unknown: the HCCL call's own buffers.
                Task::Collective(c) => match c.part {
                    Some(p) => (
                        if write || matches!(c.op, CollectiveOp::Broadcast { .. }) {
                            "output"
                        } else {
                            "input"
                        },
                        p as usize,
                    ),
                    None if write => ("receive buffer", 0),
                    None => ("send buffer", 0),
                },
                _ => ("operand", n),
            };
            Arg {
                lo: addr,
                hi: addr.saturating_add(len),
                write,
                role,
                index: index as u32,
            }
        })
        .collect()
}

impl Sim {
    /// A task of stream `s` starts (collectives: each rank's part).
    pub fn race_start(&mut self, s: Id, task: &Task, from_queue: bool) {
        if !self.race.enabled {
            return;
        }
        let label = self.streams[&s].label.clone();
        let i = self.race.task_start(s, &label, from_queue);
        match task {
            Task::Wait { ev, .. } => self.race.wait(*ev, s),
            Task::NotifyWait { notify } => self.race.notify_wait(*notify, s),
            _ => {}
        }
        let acc = task_accesses(task);
        if acc.is_empty() {
            return;
        }
        let (op, node) = match task {
            Task::Kernel(k) => (k.op, k.node),
            Task::CopyToDevice { node, .. } => (NONE, *node),
            Task::Collective(c) => (self.collective_op(c), c.node),
            _ => (NONE, NONE),
        };
        let t = self.race.task_record(TaskRecord {
            stream: s,
            kind: task.kind(),
            op,
            node,
            args: task_args(task, &acc),
        });
        let names = Names {
            ops: &self.op_names,
        };
        for (addr, len, write) in acc {
            self.race.access(i, t, addr, len, write, &names);
        }
    }

    /// `geSimSetTaskName`: `name` is the node of the next kernel, device copy or
    /// collective issued on `stream`.
    pub fn set_task_name(&mut self, cur: Option<u32>, stream: Id, name: &str) -> SimResult<()> {
        let s = self.resolve_stream(cur, stream, "geSimSetTaskName")?;
        let n = self.race.intern_name(name);
        self.race.pending_name.insert(s, n);
        Ok(())
    }

    /// `geSimSetHcclTask`: the next collective issued on `stream` is input/output pair
    /// `part` of a node of op type `op_type` (empty: keep the HCCL call's name).
    pub fn set_hccl_task(
        &mut self,
        cur: Option<u32>,
        stream: Id,
        op_type: &str,
        part: u32,
    ) -> SimResult<()> {
        let s = self.resolve_stream(cur, stream, "geSimSetHcclTask")?;
        let op_type = if op_type.is_empty() {
            NONE
        } else {
            self.intern_op(op_type)
        };
        self.race
            .pending_hccl
            .insert(s, PendingHccl { op_type, part });
        Ok(())
    }

    /// The op a collective's reports and trace slice name: its node's op type when
    /// `geSimSetHcclTask` gave one (`HcomAllReduce`), else the HCCL call
    /// (`HcclAllReduce`).
    pub fn collective_op(&mut self, c: &CollectiveTask) -> u32 {
        if (c.op_type as usize) < self.op_names.len() {
            c.op_type
        } else {
            self.intern_op(c.op.name())
        }
    }

    pub fn race_record(&mut self, ev: Id, s: Id) {
        if !self.race.enabled {
            return;
        }
        let label = self.events.get(&ev).map_or_else(
            || format!("{ev:#x}"),
            |e| format!("event #{} of device {}", e.number, e.dev),
        );
        self.race.record(ev, &label, s);
    }

    pub fn race_join(&mut self, from: Id, to: Id) {
        if !self.race.enabled {
            return;
        }
        let fl = self
            .streams
            .get(&from)
            .map_or_else(String::new, |s| s.label.clone());
        let tl = self
            .streams
            .get(&to)
            .map_or_else(String::new, |s| s.label.clone());
        self.race.join_streams(from, &fl, to, &tl);
    }

    /// A successful synchronize: the host knows everything these streams did.
    pub fn race_host_sync(&mut self, streams: &[Id]) {
        if !self.race.enabled {
            return;
        }
        for &s in streams {
            self.race.host_join_stream(s);
        }
    }

    /// `aclrtMallocHost` returned `[base, base+len)`: shadow memory the host has written
    /// (its own stores are invisible here, and come before any copy it issues from it).
    pub fn race_host_alloc(&mut self, base: u64, len: u64) {
        if !self.race.enabled {
            return;
        }
        self.race.allocate(base, len);
        self.race_host_access(base, len, true);
    }

    pub fn race_host_access(&mut self, addr: u64, len: u64, write: bool) {
        if !self.race.enabled {
            return;
        }
        let names = Names {
            ops: &self.op_names,
        };
        self.race.host_access(addr, len, write, &names);
    }

    /// Before `aclrtFree(base)`: a queued or running task that still uses the range is a
    /// report; afterwards the range is freed shadow memory.
    pub fn race_free(&mut self, base: u64, len: u64) {
        if !self.race.enabled {
            return;
        }
        let hit = |t: &Task| {
            task_accesses(t)
                .iter()
                .any(|&(a, l, _)| a < base + len && a + l > base)
        };
        let mut users = Vec::new();
        for st in self.streams.values() {
            let running_model = st
                .model
                .and_then(|m| self.models.get(&m))
                .is_some_and(|m| m.running_on.is_some());
            let pending = st.queue.iter().any(hit)
                || (running_model
                    && st.active
                    && st.program[st.pc.min(st.program.len())..].iter().any(hit));
            if pending {
                users.push(st.label.clone());
            }
        }
        for u in users {
            self.race.free_in_use(
                base,
                len,
                serde_json::json!({"stream": u, "kind": "queued task"}),
            );
        }
        self.race.free(base, len);
    }
}
