//! The seeded discrete-event scheduler.
//!
//! ACL calls only append tasks. The device advances inside synchronize and query calls:
//! every stream whose head can run starts it at the current simulated time with a
//! jittered duration; the in-flight task that ends first completes next (a binary heap
//! keyed by end time). A stream is examined only when something that can unblock it
//! happens (its task ended, an event it waits for was recorded, ...): a worklist, no scan
//! over all streams per task.
//!
//! A kernel reads its inputs when it starts and writes its outputs when it ends, so two
//! unordered tasks on different streams that overlap in simulated time see each other's
//! effects only by chance — visibly.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use smallvec::SmallVec;

use crate::config::Mode;
use crate::errors::{SimError, RT_AICORE_EXCEPTION, RT_MODEL_EXECUTE};
use crate::handles::Id;
use crate::sim::{Blocked, Busy, EventMode, Sim};
use crate::task::{KernelTask, Task, TaskKind};

/// Trace name of a task that is no kernel (the kind's name is used).
pub const NO_NAME: u32 = u32::MAX;
/// A trace name with this bit set is an event record or wait: the low bits are the
/// event's number on its device (the trace's flow arrows pair them).
pub const EVENT_TAG: u32 = 1 << 31;

/// What a finished task still has to do to the device.
// In-flight tasks live in a reused slab, so the big kernel variant costs no allocation;
// boxing it would allocate once per kernel.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Work {
    None,
    Kernel {
        task: KernelTask,
        inputs: SmallVec<[Vec<u8>; 4]>,
        outputs: SmallVec<[Vec<u8>; 2]>,
    },
    WriteDevice {
        dst: u64,
        bytes: Vec<u8>,
    },
    WriteDeviceShared {
        dst: u64,
        bytes: Arc<[u8]>,
    },
    WriteHost {
        dst: u64,
        bytes: Vec<u8>,
    },
    Fill {
        dst: u64,
        len: u64,
        value: u8,
    },
    Record {
        ev: Id,
        version: u64,
    },
    Reset {
        ev: Id,
    },
    NotifyRecord {
        notify: Id,
    },
    Jump(usize),
    Activate(Id),
    Collective {
        writes: Vec<(u64, Vec<u8>)>,
    },
}

#[derive(Debug)]
pub struct InFlight {
    pub streams: SmallVec<[Id; 1]>,
    pub start: u64,
    pub end: u64,
    pub kind: TaskKind,
    pub name: u32,
    pub work: Work,
}

pub struct Scheduler {
    pub now: u64,
    rng: Pcg64Mcg,
    seq: u64,
    /// (end, tie, sequence, slot), smallest first.
    heap: BinaryHeap<Reverse<(u64, u64, u64, usize)>>,
    slab: Vec<Option<InFlight>>,
    free: Vec<usize>,
    pub worklist: VecDeque<Id>,
    /// Byte buffers of finished kernels, reused for the next snapshots.
    pool: Vec<Vec<u8>>,
}

/// How a `run` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Nothing in flight, nothing can start, and the goal is not reached.
    Stuck,
    /// The simulated-time bound passed first.
    TimedOut,
    /// The per-call task budget ran out (a model that never ends).
    Watchdog,
}

impl Scheduler {
    pub fn new(seed: u64) -> Scheduler {
        Scheduler {
            now: 0,
            rng: Pcg64Mcg::seed_from_u64(seed),
            seq: 0,
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            worklist: VecDeque::new(),
            pool: Vec::new(),
        }
    }

    pub fn reseed(&mut self, seed: u64) {
        self.rng = Pcg64Mcg::seed_from_u64(seed);
    }

    /// A uniform draw in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn in_flight(&self) -> usize {
        self.heap.len()
    }

    fn buffer(&mut self, len: usize) -> Vec<u8> {
        let mut b = self.pool.pop().unwrap_or_default();
        b.clear();
        b.resize(len, 0);
        b
    }

    fn recycle(&mut self, b: Vec<u8>) {
        if self.pool.len() < 64 {
            self.pool.push(b);
        }
    }
}

impl Sim {
    pub fn push_worklist(&mut self, s: Id) {
        if let Some(st) = self.streams.get_mut(&s) {
            if !st.in_worklist {
                st.in_worklist = true;
                self.sched.worklist.push_back(s);
            }
        }
    }

    fn run_error(&mut self, dev: u32, code: i32, msg: String) {
        self.device_errors.push((dev, SimError::new(code, msg)));
    }

    /// `nominal` scaled by the seeded jitter and the mode.
    fn jittered(&mut self, nominal: u64, stream_number: Option<u32>) -> u64 {
        let j = self.cfg.effective_jitter();
        let mut d = nominal as f64;
        if j > 0.0 {
            d *= 1.0 + j * (2.0 * self.sched.unit() - 1.0);
        }
        if let (Mode::DelayStream(n), Some(m)) = (self.cfg.mode, stream_number) {
            if n == m {
                d *= self.cfg.delay_factor;
            }
        }
        (d.round() as u64).max(1)
    }

    fn schedule(&mut self, f: InFlight) -> usize {
        let (start, end) = (f.start, f.end);
        let slot = match self.sched.free.pop() {
            Some(i) => {
                self.sched.slab[i] = Some(f);
                i
            }
            None => {
                self.sched.slab.push(Some(f));
                self.sched.slab.len() - 1
            }
        };
        self.sched.seq += 1;
        // Equal ends complete in start order; `reverse` completes the latest-started first
        // (and, by draining the worklist backwards, starts simultaneous tasks in reverse).
        let tie = if self.cfg.mode == Mode::Reverse {
            u64::MAX - start
        } else {
            start
        };
        self.sched
            .heap
            .push(Reverse((end, tie, self.sched.seq, slot)));
        slot
    }

    /// Why `task` (the head of stream `s`) cannot start now, if it cannot.
    fn blocked_by(&self, task: &Task) -> Option<Blocked> {
        match task {
            Task::Wait { ev, version } => {
                let e = self.events.get(ev)?;
                let ready = match e.mode {
                    EventMode::Ex => {
                        let v = version.unwrap_or(e.issued);
                        v == 0 || e.version_done(v)
                    }
                    _ => e.set,
                };
                (!ready).then_some(Blocked::Event(*ev))
            }
            Task::NotifyWait { notify } => {
                let n = self.notifies.get(notify)?;
                (!n.set).then_some(Blocked::Notify(*notify))
            }
            _ => None,
        }
    }

    /// Drains the worklist, starting every head that can start.
    pub fn drain_worklist(&mut self) {
        let reverse = self.cfg.mode == Mode::Reverse;
        loop {
            let next = if reverse {
                self.sched.worklist.pop_back()
            } else {
                self.sched.worklist.pop_front()
            };
            let Some(s) = next else { break };
            if let Some(st) = self.streams.get_mut(&s) {
                st.in_worklist = false;
                self.try_start(s);
            }
        }
    }

    /// Starts the head of stream `s` if it is idle and its head can run.
    fn try_start(&mut self, s: Id) {
        let st = &self.streams[&s];
        if st.busy != Busy::Idle {
            return;
        }
        let in_model = st
            .model
            .is_some_and(|m| self.models.get(&m).is_some_and(|m| m.built));
        let head = if in_model {
            if !st.active {
                return;
            }
            if st.pc >= st.program.len() {
                self.program_finished(s);
                return;
            }
            &st.program[st.pc]
        } else {
            match st.queue.front() {
                Some(t) => t,
                None => return,
            }
        };
        if let Some(b) = self.blocked_by(head) {
            let st = self.streams.get_mut(&s).expect("looked up above");
            if st.blocked != Some(b) {
                st.blocked = Some(b);
                match b {
                    Blocked::Event(e) => self.events.get_mut(&e).expect("checked").waiters.push(s),
                    Blocked::Notify(n) => {
                        self.notifies.get_mut(&n).expect("checked").waiters.push(s)
                    }
                    Blocked::Collective { .. } => {}
                }
            }
            return;
        }
        if let Task::Collective(c) = head {
            let (group, rank) = (c.group, c.rank);
            let st = self.streams.get_mut(&s).expect("looked up above");
            if !st.arrived {
                st.arrived = true;
                st.blocked = Some(Blocked::Collective { group, rank });
                self.groups[group].arrivals[rank as usize].push_back(s);
            }
            if self.groups[group].arrivals.iter().all(|q| !q.is_empty()) {
                self.launch_collective(group);
            }
            return;
        }
        let st = self.streams.get_mut(&s).expect("looked up above");
        st.blocked = None;
        let task = if in_model {
            st.program[st.pc].clone()
        } else {
            st.queue.pop_front().expect("head seen above")
        };
        self.start(s, task);
    }

    fn start(&mut self, s: Id, task: Task) {
        let (dev, number, in_model) = {
            let st = &self.streams[&s];
            (st.dev, st.number, st.model.is_some() && st.active)
        };
        self.race_start(s, &task, !in_model);
        if self.cfg.trace {
            let node = match &task {
                Task::Kernel(k) => k.node,
                Task::CopyToDevice { node, .. } => *node,
                _ => NO_NAME,
            };
            self.stats
                .task_started(s, node, crate::race::task_accesses(&task));
        }
        let p = self.cfg.device;
        let kind = task.kind();
        let mut name = NO_NAME;
        let (nominal, work) = match task {
            Task::Kernel(k) => {
                name = k.op;
                match self.kernel_start(k) {
                    Ok((ns, w)) => (ns, w),
                    Err(msg) => {
                        self.run_error(dev, RT_AICORE_EXCEPTION, msg);
                        (p.launch_ns, Work::None)
                    }
                }
            }
            Task::CopyToDevice { dst, src, len, .. } => match src {
                crate::task::CopySource::Host(bytes)
                | crate::task::CopySource::Pinned { bytes, .. } => {
                    (p.host_copy_ns(len), Work::WriteDeviceShared { dst, bytes })
                }
                crate::task::CopySource::Device(src) => {
                    match self.mem.read("aclrtMemcpyAsync (D2D) source", src, len) {
                        Ok(b) => {
                            let bytes = b.to_vec();
                            (p.d2d_ns(len), Work::WriteDevice { dst, bytes })
                        }
                        Err(e) => {
                            self.run_error(dev, RT_AICORE_EXCEPTION, e.msg);
                            (p.launch_ns, Work::None)
                        }
                    }
                }
            },
            Task::CopyToHost { dst, src, len } => {
                match self.mem.read("aclrtMemcpyAsync (D2H) source", src, len) {
                    Ok(b) => {
                        let bytes = b.to_vec();
                        (p.host_copy_ns(len), Work::WriteHost { dst, bytes })
                    }
                    Err(e) => {
                        self.run_error(dev, RT_AICORE_EXCEPTION, e.msg);
                        (p.launch_ns, Work::None)
                    }
                }
            }
            Task::Memset { dst, len, value } => (p.memset_ns(len), Work::Fill { dst, len, value }),
            Task::Record { ev, mut version } => {
                if let Some(e) = self.events.get(&ev) {
                    name = EVENT_TAG | (e.number & !EVENT_TAG);
                }
                if let Some(e) = self.events.get_mut(&ev) {
                    if e.mode == EventMode::Ex && version == 0 {
                        e.issued += 1;
                        version = e.issued;
                    }
                }
                (p.control_ns, Work::Record { ev, version })
            }
            Task::Wait { ev, .. } => {
                if let Some(e) = self.events.get(&ev) {
                    name = EVENT_TAG | (e.number & !EVENT_TAG);
                }
                if !self.events.contains_key(&ev) {
                    self.run_error(
                        dev,
                        RT_MODEL_EXECUTE,
                        format!(
                            "an event wait on {}: the event was destroyed",
                            self.streams[&s].label
                        ),
                    );
                }
                (p.control_ns, Work::None)
            }
            Task::Reset { ev } => (p.control_ns, Work::Reset { ev }),
            Task::NotifyRecord { notify } => (p.control_ns, Work::NotifyRecord { notify }),
            Task::NotifyWait { notify } => {
                match self.notifies.get_mut(&notify) {
                    Some(n) => n.set = false,
                    None => self.run_error(
                        dev,
                        RT_MODEL_EXECUTE,
                        format!(
                            "a notify wait on {}: the notify was destroyed",
                            self.streams[&s].label
                        ),
                    ),
                }
                (p.control_ns, Work::None)
            }
            Task::LabelSet { .. } | Task::EndGraph => (p.control_ns, Work::None),
            Task::LabelSwitch {
                index_addr,
                max,
                targets,
                ..
            } => match self
                .mem
                .read_i32("aclrtSwitchLabelByIndex index", index_addr)
            {
                Ok(i) => {
                    let n = targets.len().min(max.max(1) as usize);
                    let i = (i.max(0) as usize).min(n - 1);
                    (p.control_ns, Work::Jump(targets[i]))
                }
                Err(e) => {
                    self.run_error(dev, RT_MODEL_EXECUTE, e.msg);
                    (p.control_ns, Work::None)
                }
            },
            Task::Active { target } => (p.control_ns, Work::Activate(target)),
            Task::Switch {
                left,
                right,
                cond,
                target,
            } => {
                let l = self.mem.read_i32("aclrtSwitchStream left value", left);
                let r = self.mem.read_i32("aclrtSwitchStream right value", right);
                match (l, r) {
                    (Ok(l), Ok(r)) => {
                        let w = if cond.holds(l, r) {
                            Work::Activate(target)
                        } else {
                            Work::None
                        };
                        (p.control_ns, w)
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        self.run_error(dev, RT_MODEL_EXECUTE, e.msg);
                        (p.control_ns, Work::None)
                    }
                }
            }
            Task::ExecModel { model } => {
                self.start_model(s, model);
                return;
            }
            Task::Collective(_) => unreachable!("collectives start in launch_collective"),
        };
        let now = self.sched.now;
        let d = self.jittered(nominal, number);
        let slot = self.schedule(InFlight {
            streams: smallvec::smallvec![s],
            start: now,
            end: now + d,
            kind,
            name,
            work,
        });
        self.streams.get_mut(&s).expect("exists").busy = Busy::Timed(slot);
    }

    /// Snapshots a kernel's inputs and sizes its outputs; the duration comes from the cost
    /// model.
    fn kernel_start(&mut self, k: KernelTask) -> Result<(u64, Work), String> {
        let op = &self.op_names[k.op as usize];
        let mut inputs: SmallVec<[Vec<u8>; 4]> = SmallVec::new();
        for (i, o) in k.inputs.iter().enumerate() {
            let bytes = match self.mem.read("", o.addr, o.len) {
                Ok(b) => b,
                Err(e) => {
                    return Err(format!(
                        "kernel `{op}` input {i}: {}",
                        e.msg.trim_start_matches(": ")
                    ))
                }
            };
            let mut b = self.sched.buffer(0);
            b.extend_from_slice(bytes);
            inputs.push(b);
        }
        let mut outputs: SmallVec<[Vec<u8>; 2]> = SmallVec::new();
        for o in &k.outputs {
            let b = self.sched.buffer(o.len as usize);
            outputs.push(b);
        }
        let refs: SmallVec<[ascend_kernels::TensorRef<'_>; 4]> = k
            .inputs
            .iter()
            .zip(&inputs)
            .map(|(o, d)| ascend_kernels::TensorRef {
                dtype: o.desc.dtype,
                dims: &o.desc.dims,
                data: d,
            })
            .collect();
        let muts: SmallVec<[ascend_kernels::TensorMut<'_>; 2]> = k
            .outputs
            .iter()
            .zip(outputs.iter_mut())
            .map(|(o, d)| ascend_kernels::TensorMut {
                dtype: o.desc.dtype,
                dims: &o.desc.dims,
                data: d,
            })
            .collect();
        let cost = ascend_kernels::cost(op, &refs, &muts);
        let ns = self.cfg.device.kernel_ns(op, cost);
        drop(refs);
        drop(muts);
        Ok((
            ns,
            Work::Kernel {
                task: k,
                inputs,
                outputs,
            },
        ))
    }

    /// Runs a finished kernel on its snapshot and writes its outputs.
    fn kernel_end(
        &mut self,
        k: KernelTask,
        inputs: SmallVec<[Vec<u8>; 4]>,
        mut outputs: SmallVec<[Vec<u8>; 2]>,
    ) -> Result<(), String> {
        let op = Arc::clone(&self.op_names[k.op as usize]);
        let refs: SmallVec<[ascend_kernels::TensorRef<'_>; 4]> = k
            .inputs
            .iter()
            .zip(&inputs)
            .map(|(o, d)| ascend_kernels::TensorRef {
                dtype: o.desc.dtype,
                dims: &o.desc.dims,
                data: d,
            })
            .collect();
        let mut muts: SmallVec<[ascend_kernels::TensorMut<'_>; 2]> = k
            .outputs
            .iter()
            .zip(outputs.iter_mut())
            .map(|(o, d)| ascend_kernels::TensorMut {
                dtype: o.desc.dtype,
                dims: &o.desc.dims,
                data: d,
            })
            .collect();
        let result = if self.op_has_kernel[k.op as usize] {
            self.stats.kernels_run += 1;
            ascend_kernels::execute(&op, &k.attrs, &refs, &mut muts)
                .map_err(|e| format!("kernel `{op}` failed: {e}"))
        } else if self.cfg.opaque_kernels {
            ascend_kernels::opaque(&op, &refs, &mut muts);
            self.stats.count_opaque(&op);
            Ok(())
        } else {
            Err(format!(
                "kernel `{op}`: no kernel for this op type (ACL_ERROR_OP_NOT_FOUND)"
            ))
        };
        drop(refs);
        drop(muts);
        let mut write_err = None;
        if result.is_ok() {
            for (i, (o, d)) in k.outputs.iter().zip(&outputs).enumerate() {
                if let Err(e) = self.mem.write("", o.addr, d) {
                    write_err.get_or_insert(format!(
                        "kernel `{op}` output {i}: {}",
                        e.msg.trim_start_matches(": ")
                    ));
                }
            }
        }
        for b in inputs.into_iter().chain(outputs) {
            self.sched.recycle(b);
        }
        result.and(write_err.map_or(Ok(()), Err))
    }

    /// Completes the in-flight task in `slot`.
    fn complete(&mut self, slot: usize) {
        let f = self.sched.slab[slot].take().expect("heap and slab agree");
        self.sched.free.push(slot);
        let dev = self.streams.get(&f.streams[0]).map_or(0, |s| s.dev);
        let mut jump = None;
        match f.work {
            Work::None => {}
            Work::Kernel {
                task,
                inputs,
                outputs,
            } => {
                if let Err(msg) = self.kernel_end(task, inputs, outputs) {
                    self.run_error(dev, RT_AICORE_EXCEPTION, msg);
                }
            }
            Work::WriteDevice { dst, bytes } => {
                if let Err(e) = self.mem.write("aclrtMemcpyAsync destination", dst, &bytes) {
                    self.run_error(dev, RT_AICORE_EXCEPTION, e.msg);
                }
            }
            Work::WriteDeviceShared { dst, bytes } => {
                if let Err(e) = self
                    .mem
                    .write("aclrtMemcpyAsync (H2D) destination", dst, &bytes)
                {
                    self.run_error(dev, RT_AICORE_EXCEPTION, e.msg);
                }
            }
            Work::WriteHost { dst, bytes } => self.host_writes.push((dst, bytes)),
            Work::Fill { dst, len, value } => {
                if let Err(e) = self.mem.fill("aclrtMemsetAsync", dst, len, value) {
                    self.run_error(dev, RT_AICORE_EXCEPTION, e.msg);
                }
            }
            Work::Record { ev, version } => {
                self.race_record(ev, f.streams[0]);
                if let Some(e) = self.events.get_mut(&ev) {
                    if e.mode == EventMode::Ex {
                        e.finish_version(version);
                    } else {
                        e.set = true;
                    }
                    let waiters = std::mem::take(&mut e.waiters);
                    self.wake(waiters);
                }
            }
            Work::Reset { ev } => {
                if let Some(e) = self.events.get_mut(&ev) {
                    e.set = false;
                }
            }
            Work::NotifyRecord { notify } => {
                if self.race.enabled {
                    self.race.notify_record(notify, f.streams[0]);
                }
                if let Some(n) = self.notifies.get_mut(&notify) {
                    n.set = true;
                    let waiters = std::mem::take(&mut n.waiters);
                    self.wake(waiters);
                }
            }
            Work::Jump(pc) => jump = Some(pc),
            Work::Activate(target) => self.activate(f.streams[0], target),
            Work::Collective { writes } => {
                for (addr, bytes) in writes {
                    if let Err(e) = self.mem.write("collective receive buffer", addr, &bytes) {
                        let d = self.mem.device_of(addr).unwrap_or(dev);
                        self.run_error(d, RT_AICORE_EXCEPTION, e.msg);
                    }
                }
            }
        }
        for &s in &f.streams {
            if let Some(st) = self.streams.get_mut(&s) {
                st.busy = Busy::Idle;
                if st.model.is_some() && st.active {
                    st.pc = jump.unwrap_or(st.pc + 1);
                }
                self.stats
                    .task_done(s, &st.label, f.kind, f.name, f.start, f.end, self.cfg.trace);
            }
            self.push_worklist(s);
        }
    }

    /// Streams that waited for something that just happened look at their head again (and
    /// register anew if it still cannot start).
    fn wake(&mut self, waiters: Vec<Id>) {
        for w in waiters {
            if let Some(st) = self.streams.get_mut(&w) {
                st.blocked = None;
            }
            self.push_worklist(w);
        }
    }

    /// A STREAM_ACTIVE (or a taken STREAM_SWITCH) on stream `by` starts `target`.
    fn activate(&mut self, by: Id, target: Id) {
        let by_model = self.streams.get(&by).and_then(|s| s.model);
        let dev = self.streams.get(&by).map_or(0, |s| s.dev);
        let Some(t) = self.streams.get_mut(&target) else {
            self.run_error(
                dev,
                RT_MODEL_EXECUTE,
                format!("stream activation: target stream {target:#x} was destroyed"),
            );
            return;
        };
        if t.model.is_none() || t.model != by_model {
            let label = t.label.clone();
            self.run_error(
                dev,
                RT_MODEL_EXECUTE,
                format!("stream activation: {label} is not bound to the running model"),
            );
            return;
        }
        if t.active {
            let label = t.label.clone();
            self.run_error(
                dev,
                RT_MODEL_EXECUTE,
                format!("stream activation: {label} was activated while it is still running"),
            );
            return;
        }
        t.active = true;
        t.pc = 0;
        t.blocked = None;
        self.race_join(by, target);
        let Some(t) = self.streams.get_mut(&target) else {
            return;
        };
        let m = t.model.expect("checked");
        if let Some(m) = self.models.get_mut(&m) {
            m.active_streams += 1;
        }
        self.push_worklist(target);
    }

    /// A model stream ran past its last task: it is idle again.
    fn program_finished(&mut self, s: Id) {
        let st = self.streams.get_mut(&s).expect("exists");
        st.active = false;
        st.pc = 0;
        let Some(m) = st.model else { return };
        let Some(model) = self.models.get_mut(&m) else {
            return;
        };
        model.active_streams = model.active_streams.saturating_sub(1);
        if model.active_streams == 0 {
            self.finish_model(m);
        }
    }

    fn start_model(&mut self, exec: Id, m: Id) {
        let dev = self.streams[&exec].dev;
        let now = self.sched.now;
        let problem = match self.models.get(&m) {
            None => {
                Some("aclmdlRIExecuteAsync: the model RI was destroyed before it ran".to_owned())
            }
            Some(model) if model.running_on.is_some() => {
                Some("aclmdlRIExecuteAsync: the model RI is already running".to_owned())
            }
            Some(_) => None,
        };
        if let Some(msg) = problem {
            self.run_error(dev, RT_MODEL_EXECUTE, msg);
            let d = self.cfg.device.control_ns;
            let slot = self.schedule(InFlight {
                streams: smallvec::smallvec![exec],
                start: now,
                end: now + d,
                kind: TaskKind::ModelExecute,
                name: NO_NAME,
                work: Work::None,
            });
            self.streams.get_mut(&exec).expect("exists").busy = Busy::Timed(slot);
            return;
        }
        let model = self.models.get_mut(&m).expect("checked");
        model.running_on = Some(exec);
        model.runs += 1;
        let streams = model.streams.clone();
        let mut active = 0;
        for &s in &streams {
            if let Some(st) = self.streams.get_mut(&s) {
                st.pc = 0;
                st.blocked = None;
                st.arrived = false;
                st.active = st.bind_flag == crate::sim::BIND_HEAD;
                if st.active {
                    active += 1;
                }
            }
        }
        self.models.get_mut(&m).expect("checked").active_streams = active;
        if self.race.enabled {
            // The run starts after everything the execute task's stream did.
            for &s in &streams {
                if self.streams.get(&s).is_some_and(|st| st.active) {
                    self.race_join(exec, s);
                }
            }
        }
        let st = self.streams.get_mut(&exec).expect("exists");
        st.busy = Busy::Model(m);
        self.stats.model_started(exec, now);
        if active == 0 {
            self.finish_model(m);
            return;
        }
        for s in streams {
            self.push_worklist(s);
        }
    }

    fn finish_model(&mut self, m: Id) {
        let Some(model) = self.models.get_mut(&m) else {
            return;
        };
        let Some(exec) = model.running_on.take() else {
            return;
        };
        if self.race.enabled {
            // The execute task ends after every stream of the model.
            for s in model.streams.clone() {
                self.race_join(s, exec);
            }
        }
        let now = self.sched.now;
        if let Some(st) = self.streams.get_mut(&exec) {
            st.busy = Busy::Idle;
            self.stats
                .model_finished(exec, &st.label, now, self.cfg.trace);
        }
        self.push_worklist(exec);
    }

    /// Every rank has a collective at a stream head: the oldest arrival of each runs.
    fn launch_collective(&mut self, g: usize) {
        let streams: SmallVec<[Id; 8]> = self.groups[g]
            .arrivals
            .iter_mut()
            .map(|q| q.pop_front().expect("all ranks arrived"))
            .collect();
        let mut tasks = Vec::with_capacity(streams.len());
        for &s in &streams {
            let st = self.streams.get_mut(&s).expect("arrived streams exist");
            st.arrived = false;
            st.blocked = None;
            let in_model = st.model.is_some() && st.active;
            let t = if in_model {
                st.program[st.pc].clone()
            } else {
                st.queue.pop_front().expect("collective at head")
            };
            match t {
                Task::Collective(c) => tasks.push(c),
                _ => unreachable!("an arrived stream's head is its collective"),
            }
        }
        if self.cfg.trace {
            for (&s, t) in streams.iter().zip(&tasks) {
                let accesses = crate::race::task_accesses(&Task::Collective(t.clone()));
                self.stats.task_started(s, t.node, accesses);
            }
        }
        if self.race.enabled {
            let labelled: Vec<(Id, String)> = streams
                .iter()
                .map(|&s| (s, self.streams[&s].label.clone()))
                .collect();
            for (&s, t) in streams.iter().zip(&tasks) {
                let in_model = self.streams[&s].model.is_some();
                let task = Task::Collective(t.clone());
                // Each rank's part starts in its own stream order...
                self.race_start(s, &task, !in_model);
            }
            // ...and the collective joins them all.
            self.race.collective(&labelled);
        }
        let (nominal, work) = match self.collective_effects(&tasks) {
            Ok(x) => x,
            Err(msg) => {
                for &s in &streams {
                    let dev = self.streams[&s].dev;
                    self.run_error(dev, RT_AICORE_EXCEPTION, msg.clone());
                }
                (self.cfg.device.hccl_latency_ns, Work::None)
            }
        };
        let now = self.sched.now;
        let d = self.jittered(nominal, None);
        let name = self.collective_op(&tasks[0]);
        let slot = self.schedule(InFlight {
            streams: streams.iter().copied().collect(),
            start: now,
            end: now + d,
            kind: TaskKind::Hccl,
            name,
            work,
        });
        for s in streams {
            self.streams.get_mut(&s).expect("exists").busy = Busy::Timed(slot);
        }
    }

    /// Advances the device until `done` holds, nothing can progress, the simulated time
    /// passes `limit`, or the watchdog's task budget runs out.
    pub fn run(&mut self, done: &dyn Fn(&Sim) -> bool, limit: Option<u64>) -> Outcome {
        let mut completed = 0u64;
        loop {
            self.drain_worklist();
            if done(self) {
                return Outcome::Done;
            }
            let Some(&Reverse((end, _, _, slot))) = self.sched.heap.peek() else {
                return Outcome::Stuck;
            };
            if let Some(l) = limit {
                if end > l {
                    self.sched.now = self.sched.now.max(l);
                    return Outcome::TimedOut;
                }
            }
            self.sched.heap.pop();
            self.sched.now = self.sched.now.max(end);
            self.complete(slot);
            completed += 1;
            if completed > self.cfg.watchdog_tasks {
                return Outcome::Watchdog;
            }
        }
    }

    /// Every stream with work left and what it waits for (the message of a deadlock).
    pub fn blocked_report(&self) -> String {
        let mut ids: Vec<Id> = self
            .streams
            .iter()
            .filter(|(_, s)| !s.is_done())
            .map(|(&id, _)| id)
            .collect();
        ids.sort_unstable();
        let mut lines = Vec::new();
        for id in ids {
            let st = &self.streams[&id];
            let why = match (st.blocked, st.busy) {
                (Some(Blocked::Event(e)), _) => match self.events.get(&e) {
                    Some(ev) => format!(
                        "waits for event #{} of device {} (never set by a record that could still run)",
                        ev.number, ev.dev
                    ),
                    None => format!("waits for event {e:#x}, which was destroyed"),
                },
                (Some(Blocked::Notify(n)), _) => match self.notifies.get(&n) {
                    Some(nt) => format!("waits for notify #{} of device {}", nt.number, nt.dev),
                    None => format!("waits for notify {n:#x}, which was destroyed"),
                },
                (Some(Blocked::Collective { group, rank }), _) => {
                    let g = &self.groups[group];
                    let missing: Vec<String> = g
                        .arrivals
                        .iter()
                        .enumerate()
                        .filter(|(_, q)| q.is_empty())
                        .map(|(r, _)| r.to_string())
                        .collect();
                    format!(
                        "waits in a collective as rank {rank} of communicator group {group}; \
                         rank(s) {} never reached a matching collective",
                        missing.join(", ")
                    )
                }
                (None, Busy::Model(_)) => "runs a model whose streams cannot finish".to_owned(),
                (None, Busy::Timed(_)) => "has a task in flight".to_owned(),
                (None, Busy::Idle) => "has work it cannot start".to_owned(),
            };
            lines.push(format!("{} {why}", st.label));
        }
        if lines.is_empty() {
            "no stream is blocked".to_owned()
        } else {
            lines.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{parse, Config};

    fn sim(cfg: &str) -> Sim {
        let (cfg, _) = Config::default()
            .with(&parse(&format!("trace=1;{cfg}")).unwrap())
            .unwrap();
        let mut s = Sim::new(cfg);
        s.init().unwrap();
        s.set_device(0).unwrap();
        s
    }

    /// Two streams, each with `n` memsets of `bytes[i]`; runs to completion and returns
    /// the trace as (stream number, start, end) in completion order.
    fn run_two(s: &mut Sim, bytes: [u64; 2], n: usize) -> Vec<(u32, u64, u64)> {
        let buf = s.malloc(Some(0), 1 << 20, 0).unwrap();
        let streams = [
            s.create_stream(Some(0), 0, 0).unwrap(),
            s.create_stream(Some(0), 0, 0).unwrap(),
        ];
        for _ in 0..n {
            for (st, b) in streams.iter().zip(bytes) {
                s.memset_async(Some(0), buf, b, 0, b, *st).unwrap();
            }
        }
        for st in streams {
            s.sync_stream(Some(0), st, -1).unwrap();
        }
        let number = |id: Id| s.streams[&id].number.unwrap();
        s.stats
            .trace
            .iter()
            .map(|t| (number(t.stream), t.start, t.end))
            .collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule_and_another_seed_another() {
        let a = run_two(&mut sim("seed=3"), [4096, 4096], 20);
        let b = run_two(&mut sim("seed=3"), [4096, 4096], 20);
        let c = run_two(&mut sim("seed=4"), [4096, 4096], 20);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn the_earliest_end_completes_first_and_streams_overlap() {
        let t = run_two(&mut sim("jitter=0"), [1 << 20, 64], 1);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].0, 1, "the short task of stream 1 ends first");
        assert_eq!((t[0].1, t[1].1), (0, 0), "both started at time 0");
        assert!(t[1].2 > t[0].2);
    }

    #[test]
    fn jitter_stays_within_its_bounds() {
        let mut s = sim("jitter=0.25;seed=9");
        let t = run_two(&mut s, [64, 64], 200);
        let nominal = s.cfg.device.memset_ns(64) as f64;
        let mut distinct = std::collections::BTreeSet::new();
        for (_, start, end) in &t {
            let d = (end - start) as f64;
            assert!(
                d >= (nominal * 0.75).floor() && d <= (nominal * 1.25).ceil(),
                "{d} vs {nominal}"
            );
            distinct.insert(end - start);
        }
        assert!(distinct.len() > 50);
        // Each stream is in order: its tasks never overlap.
        for st in 0..2 {
            let mine: Vec<_> = t.iter().filter(|x| x.0 == st).collect();
            assert!(mine.windows(2).all(|w| w[1].1 >= w[0].2));
        }
    }

    #[test]
    fn reverse_mode_reverses_ties() {
        let t = run_two(&mut sim("jitter=0"), [64, 64], 1);
        let r = run_two(&mut sim("jitter=0;mode=reverse"), [64, 64], 1);
        assert_eq!((t[0].0, t[1].0), (0, 1));
        assert_eq!((r[0].0, r[1].0), (1, 0));
        assert_eq!(t[0].2, t[1].2, "a tie");
    }

    #[test]
    fn a_deadlock_is_reported_not_waited_for() {
        let mut s = sim("");
        let st = s.create_stream(Some(0), 0, 0).unwrap();
        let e = s
            .create_event(Some(0), EventMode::Flag { sync: true }, 1, "t")
            .unwrap();
        s.wait_event(Some(0), st, e).unwrap();
        let done = move |sim: &Sim| sim.streams[&st].is_done();
        assert_eq!(s.run(&done, None), Outcome::Stuck);
        assert!(s
            .blocked_report()
            .contains("device 0 stream 0 waits for event #0"));
        // Recording it on another stream unblocks the waiter (it was registered as one).
        let other = s.create_stream(Some(0), 0, 0).unwrap();
        s.record_event(Some(0), e, other).unwrap();
        assert_eq!(s.run(&done, None), Outcome::Done);
        assert!(s.sched.worklist.is_empty() && s.sched.in_flight() == 0);
    }
}
