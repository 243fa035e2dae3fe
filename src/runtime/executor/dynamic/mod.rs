//! Dynamic memory mode (`ge-run --memory=dynamic`): each workspace tensor is allocated on
//! its producer's stream when it is produced and freed after its last use, through GE's
//! run-time allocators ([`crate::runtime::memory`]), instead of living at its offset of
//! the static plan's workspace. Tasks are launched directly on their streams (GE's
//! dynamic-shape runtime does not capture a model), in the host order of [`flow`], with
//! the operands' addresses resolved at launch.
//!
//! One rank's run: the first sync stage, then per task its allocations (with an
//! `AccessMemCrossStream` for every other stream that uses the tensor), the launch or
//! event step (`SendEvents` / `WaitEvents` carrying recycle state), the frees of what it
//! used last; the last sync stage; the outputs read on the main stream; the
//! last-resource-clean stage. Control flow (If, Case, While, PartitionedCall lowered to
//! labels and stream activations) is followed on the host, one [`segment`] at a time:
//! at a `LabelSwitchByIndex` the host synchronises the switch's stream, reads the index
//! (as GE's dynamic runtime reads a condition), and plans the path taken. The memory
//! state persists across iterations (the pools
//! cache, as GE's do); at the end every block must have been recycled, else the run
//! fails, and every device allocation is freed.
//!
//! Weights, variables and the model's input and output buffers stay as the static path
//! places them.

pub mod device;
pub mod flow;
pub mod forward;
pub mod host;
pub mod p2p;
pub mod plan;
pub mod segment;
#[cfg(test)]
mod test_models;

use crate::{
    lowering::model::{Addr, Region, Task, TaskModel},
    runtime::{
        acl::{
            Acl, DataBuffer, DeviceBuffer, DevicePtr, Event, OpAttr, TensorDescHandle, EVENT_SYNC,
        },
        device as runtime_device,
        error::RuntimeError,
        executor::{
            collective, has_collectives, load::initial_value, rank_inputs, RankResult, RunOptions,
            RunResult, SimReport,
        },
        hccl::{Comm, Hccl},
        memory::{
            events::{last_wait_events, send_event, wait_event},
            BlockId, EventAllocator, GertEvent, MemError, MultiStreamMemory, ScalableConfig,
        },
        tensor::HostTensor,
    },
};
pub use device::AclDeviceMemory;
use host::{HostKernels, HostMutation};
use p2p::P2pMemory;
use plan::{Buffer, Place, Step};
use segment::{EventTable, Planner};
use std::{collections::HashMap, sync::Arc};

/// `--memory`: where tensors live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryMode {
    /// The static plan's workspace (the default).
    #[default]
    Static,
    /// Allocated and freed at run time, per stream.
    Dynamic,
}

impl MemoryMode {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryMode::Static => "static",
            MemoryMode::Dynamic => "dynamic",
        }
    }
}

impl std::str::FromStr for MemoryMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "static" => Ok(MemoryMode::Static),
            "dynamic" => Ok(MemoryMode::Dynamic),
            other => Err(format!(
                "unknown memory mode `{other}` (expected `static` or `dynamic`)"
            )),
        }
    }
}

/// What one rank's dynamic memory did over the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DynamicMemoryReport {
    pub rank: u32,
    /// The most device memory the allocators held at once (their `aclrtMalloc`s).
    pub peak_device_bytes: u64,
    /// The most bytes of blocks handed out at once (page-rounded).
    pub peak_block_bytes: u64,
    /// The plan's most buffer bytes live at once in host order (unrounded).
    pub plan_peak_live_bytes: u64,
    /// The static plan's workspace.
    pub static_memory_size: u64,
    pub buffers: usize,
    pub logical_events: usize,
    pub allocations: u64,
    pub device_mallocs: u64,
    pub birth_recycles: u64,
    pub borrow_recycles: u64,
    pub local_recycles: u64,
    pub stale_messages: u64,
    /// Steps of allocation-failure recovery taken.
    pub recoveries: u64,
    /// Switch indexes the host read in the last run.
    pub decisions: u64,
    /// The host kernels and their placement copies, over every run.
    pub host: host::HostStats,
    /// P2P placement: buffers and HBM <-> P2P copies, over every run.
    pub p2p: p2p::P2pStats,
}

impl std::fmt::Display for DynamicMemoryReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "dynamic memory (rank {}): peak device {} B (static plan workspace {} B, \
             host-order max-live {} B, blocks {} B); {} buffers, {} allocations, {} aclrtMalloc, \
             recycles birth {} / borrow {} / local {}, {} stale messages, {} logical events, \
             {} recovery steps, {} control decisions",
            self.rank,
            self.peak_device_bytes,
            self.static_memory_size,
            self.plan_peak_live_bytes,
            self.peak_block_bytes,
            self.buffers,
            self.allocations,
            self.device_mallocs,
            self.birth_recycles,
            self.borrow_recycles,
            self.local_recycles,
            self.stale_messages,
            self.logical_events,
            self.recoveries,
            self.decisions
        )?;
        let h = &self.host;
        if h.kernels > 0 {
            write!(
                f,
                "; {} host kernels: {} SyncStream + {} CopyD2H, {} CopyH2D, {} pinned buffers \
                 freed by their guarder",
                h.kernels, h.syncs, h.d2h_copies, h.h2d_copies, h.guarded_frees
            )?;
            if h.host_reads > 0 || h.unshipped > 0 {
                write!(
                    f,
                    "; host to host: {} inputs read in pinned memory, {} outputs not copied \
                     to the device, {} pinned buffers freed after their last host reader",
                    h.host_reads, h.unshipped, h.host_frees
                )?;
            }
        }
        let p = &self.p2p;
        if p.buffers > 0 || p.hbm_to_p2p > 0 || p.p2p_to_hbm > 0 {
            write!(
                f,
                "; p2p: {} buffers in P2P memory, {} aclrtMalloc P2P, {} HBM->P2P + {} \
                 P2P->HBM copies, {} allocations freed by their guarder",
                p.buffers, p.p2p_mallocs, p.hbm_to_p2p, p.p2p_to_hbm, p.guarded_frees
            )?;
        }
        Ok(())
    }
}

fn mem_error(error: MemError, what: impl FnOnce() -> String) -> RuntimeError {
    RuntimeError::Other(format!("--memory=dynamic: {}: {error}", what()))
}

/// A region of the static kind (weights, variables, a model input or output).
struct StaticRegion {
    buffer: Option<DeviceBuffer>,
    size: u64,
}

impl StaticRegion {
    fn allocate(acl: &Arc<Acl>, size: u64, what: &str) -> Result<Self, RuntimeError> {
        let buffer = if size == 0 {
            None
        } else {
            Some(
                acl.malloc(size)
                    .map_err(|e| e.at(|| format!("allocating {what} ({size} bytes)")))?,
            )
        };
        Ok(Self { buffer, size })
    }
}

/// One rank loaded for dynamic runs.
struct DynamicRank {
    rank: u32,
    acl: Arc<Acl>,
    memory: MultiStreamMemory<AclDeviceMemory>,
    events: EventAllocator<Event>,
    /// The logical events, the same on every run; their memory part.
    table: EventTable,
    gert: Vec<GertEvent>,
    /// This run's buffers (as its segments planned them) and their blocks.
    buffers: Vec<Buffer>,
    blocks: Vec<Option<BlockId>>,
    attrs: HashMap<(usize, usize), OpAttr>,
    handles: Vec<(TensorDescHandle, DataBuffer)>,
    regions: HashMap<Region, StaticRegion>,
    /// The last segment's steps after `Step::ReadOutputs`, and where the outputs are.
    after_outputs: Vec<Step>,
    outputs: Vec<Place>,
    /// The last run's plan: its host-order max-live bytes and control decisions.
    plan_peak_live_bytes: u64,
    decisions: u64,
    /// Kernels placed on the host, with their placement copies ([`host`]).
    host: HostKernels,
    /// Buffers of `p2p` kernels and the HBM <-> P2P copies ([`p2p`]).
    p2p: P2pMemory,
    timeout_ms: i32,
}

/// More control decisions than this in one run is taken for a loop that never ends.
const MAX_DECISIONS: u64 = 1 << 20;

impl DynamicRank {
    fn load(
        model: &TaskModel,
        acl: &Arc<Acl>,
        rank: u32,
        seed: u64,
        timeout_ms: i32,
        host: HostKernels,
    ) -> Result<Self, RuntimeError> {
        let mut regions = HashMap::new();
        regions.insert(
            Region::Weight,
            StaticRegion::allocate(acl, model.weight_size, "the weights")?,
        );
        regions.insert(
            Region::Variable,
            StaticRegion::allocate(acl, model.var_size, "the variables")?,
        );
        for input in &model.inputs {
            let what = format!("model input {} (`{}`)", input.index, input.node);
            regions.insert(
                Region::Input(input.index),
                StaticRegion::allocate(acl, input.desc.bytes(), &what)?,
            );
        }
        for output in &model.outputs {
            let what = format!("model output {} (`{}`)", output.index, output.source);
            let size = output.operand.size.max(output.operand.desc.bytes());
            regions.insert(
                Region::Output(output.index),
                StaticRegion::allocate(acl, size, &what)?,
            );
        }
        let stream_num = model.streams.len();
        let mut streams = Vec::new();
        for id in 0..stream_num {
            streams.push(
                acl.create_stream(0, 0)
                    .map_err(|e| e.at(|| format!("creating stream {id}")))?,
            );
        }
        let device = AclDeviceMemory::new(acl, streams, timeout_ms);
        let memory = MultiStreamMemory::new(device, stream_num, ScalableConfig::for_device(None))
            .map_err(|e| mem_error(e, || format!("model `{}`", model.name)))?;
        let mut attrs = HashMap::new();
        for (s, stream) in model.streams.iter().enumerate() {
            for (i, task) in stream.tasks.iter().enumerate() {
                if let Task::Kernel { attrs: a, .. } = task {
                    attrs.insert((s, i), acl.create_attr(&a.0)?);
                }
            }
        }
        let mut loaded = DynamicRank {
            rank,
            acl: Arc::clone(acl),
            memory,
            events: EventAllocator::default(),
            table: EventTable::default(),
            gert: Vec::new(),
            buffers: Vec::new(),
            blocks: Vec::new(),
            attrs,
            handles: Vec::new(),
            regions,
            after_outputs: Vec::new(),
            outputs: Vec::new(),
            plan_peak_live_bytes: 0,
            decisions: 0,
            p2p: P2pMemory::new(host.mutation == HostMutation::P2pFreeEarly),
            host,
            timeout_ms,
        };
        loaded.fill_constants(model, seed)?;
        Ok(loaded)
    }

    fn resolve(&self, addr: Addr, size: u64) -> Result<DevicePtr, RuntimeError> {
        let region = self.regions.get(&addr.region).ok_or_else(|| {
            RuntimeError::Model(format!(
                "an address in {:?}, which the model does not have",
                addr.region
            ))
        })?;
        match addr.offset.checked_add(size) {
            Some(end) if end <= region.size => Ok(region
                .buffer
                .as_ref()
                .map_or(DevicePtr::NULL, DeviceBuffer::ptr)
                .offset(addr.offset)),
            _ => Err(RuntimeError::Model(format!(
                "{size} bytes at offset {} are outside {:?} ({} bytes)",
                addr.offset, addr.region, region.size
            ))),
        }
    }

    fn place(&self, place: Place, size: u64) -> Result<DevicePtr, RuntimeError> {
        match place {
            Place::Static(addr) => self.resolve(addr, size),
            Place::Buffer { buffer, offset } if self.p2p.is_p2p(buffer) => {
                let (ptr, len) = self.p2p.ptr(buffer).ok_or_else(|| {
                    RuntimeError::Other(format!(
                        "--memory=dynamic: P2P buffer {buffer} used but not allocated"
                    ))
                })?;
                if offset + size > len {
                    return Err(RuntimeError::Other(format!(
                        "--memory=dynamic: {size} bytes at offset {offset} are outside P2P buffer {buffer} ({len} bytes)"
                    )));
                }
                Ok(ptr.offset(offset))
            }
            Place::Buffer { buffer, offset } => {
                let block = self.blocks[buffer].ok_or_else(|| {
                    RuntimeError::Other(format!(
                        "--memory=dynamic: buffer {buffer} used but not allocated"
                    ))
                })?;
                let record = self
                    .memory
                    .block(block)
                    .map_err(|e| mem_error(e, || format!("buffer {buffer}")))?;
                if offset + size > record.size() {
                    return Err(RuntimeError::Other(format!(
                        "--memory=dynamic: {size} bytes at offset {offset} are outside buffer {buffer} ({} bytes)",
                        record.size()
                    )));
                }
                Ok(DevicePtr(record.addr() as usize).offset(offset))
            }
        }
    }

    fn fill_constants(&mut self, model: &TaskModel, seed: u64) -> Result<(), RuntimeError> {
        for weight in &model.weights {
            let at = || format!("weight `{}`", weight.node);
            let addr = Addr {
                region: Region::Weight,
                offset: weight.offset,
            };
            let dst = self
                .resolve(addr, weight.bytes.len() as u64)
                .map_err(|e| e.at(at))?;
            self.acl
                .copy_to_device(dst, weight.bytes.len() as u64, &weight.bytes)
                .map_err(|e| e.at(at))?;
        }
        for variable in &model.variables {
            let at = || format!("variable `{}`", variable.node);
            let bytes = initial_value(variable, seed);
            let addr = Addr {
                region: Region::Variable,
                offset: variable.offset,
            };
            let dst = self
                .resolve(addr, bytes.len() as u64)
                .map_err(|e| e.at(at))?;
            self.acl
                .copy_to_device(dst, bytes.len() as u64, &bytes)
                .map_err(|e| e.at(at))?;
        }
        Ok(())
    }

    /// Events for every logical event the segments named so far (the allocator only
    /// grows, up to GE's 4096).
    fn ensure_events(&mut self) -> Result<(), RuntimeError> {
        let acl = Arc::clone(&self.acl);
        self.events
            .acquire_events(self.table.events.len(), || {
                acl.create_event_ex(EVENT_SYNC)
                    .map_err(|e| MemError::Device(e.to_string()))
            })
            .map_err(|e| mem_error(e, || "the event allocator".to_owned()))?;
        for (logic_id, e) in self.table.events.iter().enumerate().skip(self.gert.len()) {
            self.gert.push(GertEvent {
                logic_id,
                src_stream: e.src,
                dst_stream: e.dst,
                ..GertEvent::default()
            });
        }
        Ok(())
    }

    /// Input copies and every step before the output read: segment by segment, each
    /// switch's index read on the host between them.
    fn issue(
        &mut self,
        model: &TaskModel,
        hccl: Option<(&Arc<Hccl>, &Comm)>,
        inputs: &[HostTensor],
        timeout_ms: i32,
    ) -> Result<(), RuntimeError> {
        for (input, tensor) in model.inputs.iter().zip(inputs) {
            let addr = Addr {
                region: Region::Input(input.index),
                offset: 0,
            };
            let dst = self.resolve(addr, tensor.bytes.len() as u64)?;
            self.acl
                .copy_to_device(dst, tensor.bytes.len() as u64, &tensor.bytes)
                .map_err(|e| e.at(|| format!("model input {} (`{}`)", input.index, input.node)))?;
        }
        let plan_error = |e: String| {
            RuntimeError::Model(format!("--memory=dynamic: model `{}`: {e}", model.name))
        };
        let mut planner = Planner::new(model).map_err(plan_error)?;
        self.buffers.clear();
        self.blocks.clear();
        self.decisions = 0;
        self.p2p.begin_run();
        loop {
            let segment = planner.next_segment(&mut self.table).map_err(plan_error)?;
            self.ensure_events()?;
            self.buffers.clone_from(&planner.buffers);
            self.blocks.resize(self.buffers.len(), None);
            if let Some(outputs) = segment.outputs {
                let at = segment
                    .steps
                    .iter()
                    .position(|s| *s == Step::ReadOutputs)
                    .expect("the last segment reads the outputs");
                let mut steps = segment.steps;
                self.after_outputs = steps.split_off(at + 1);
                self.run_steps(model, hccl, &steps, &outputs)?;
                self.outputs = outputs;
                self.plan_peak_live_bytes = planner.peak_live_bytes();
                return Ok(());
            }
            let indexes: Vec<Place> = segment.switches.iter().map(|&(_, p)| p).collect();
            self.run_steps(model, hccl, &segment.steps, &indexes)?;
            for (task, place) in segment.switches {
                self.decisions += 1;
                if self.decisions > MAX_DECISIONS {
                    return Err(plan_error(format!(
                        "more than {MAX_DECISIONS} control decisions in one run (a loop that \
                         never ends?)"
                    )));
                }
                let index = self
                    .read_index(model, task, place, timeout_ms)
                    .map_err(|e| {
                        e.at(|| format!("the index of stream {}, task {}", task.0, task.1))
                    })?;
                planner.decide(task, index).map_err(plan_error)?;
            }
        }
    }

    /// One segment's steps, with the host → host analysis of them ([`forward`]);
    /// `device_reads`: the places read outside launches (outputs, switch indexes).
    fn run_steps(
        &mut self,
        model: &TaskModel,
        hccl: Option<(&Arc<Hccl>, &Comm)>,
        steps: &[Step],
        device_reads: &[Place],
    ) -> Result<(), RuntimeError> {
        let forwarding = forward::analyse(model, steps, device_reads, |task| match task {
            Task::Kernel { op_type, .. } => !host::reads_no_data(op_type),
            _ => true,
        });
        self.host.begin_segment(forwarding);
        self.p2p.begin_segment(model, steps).map_err(|e| {
            RuntimeError::Model(format!("--memory=dynamic: model `{}`: {e}", model.name))
        })?;
        for (p, step) in steps.iter().enumerate() {
            self.host.at_step(p);
            self.step(model, hccl, step)?;
            self.host.after_step(p)?;
        }
        self.host.end_segment()
    }

    /// A switch's index: its stream synchronised (the index's producer is ordered before
    /// the switch on it), then four bytes copied to the host.
    fn read_index(
        &mut self,
        model: &TaskModel,
        task: plan::TaskRef,
        place: Place,
        timeout_ms: i32,
    ) -> Result<u32, RuntimeError> {
        let Task::LabelSwitchByIndex { index, .. } = &model.streams[task.0].tasks[task.1] else {
            unreachable!("only switches are decided")
        };
        if index.size < 4 {
            return Err(RuntimeError::Model(format!(
                "a switch index of {} bytes (expected a 32-bit scalar)",
                index.size
            )));
        }
        self.acl
            .synchronize_stream(&self.memory.device().streams[task.0], timeout_ms)?;
        let src = self.place(place, 4)?;
        let bytes = self.acl.copy_to_host(src, 4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Waits for the main stream, reads the outputs, runs the remaining steps.
    fn finish(
        &mut self,
        model: &TaskModel,
        timeout_ms: i32,
    ) -> Result<Vec<HostTensor>, RuntimeError> {
        let main = &self.memory.device().streams[0];
        self.acl.synchronize_stream(main, timeout_ms)?;
        // The last sync stage ordered every stream before the main one, so each guarder's
        // event is complete (drain still waits for each) and its pinned memory is freed.
        self.host.drain(&self.acl, timeout_ms)?;
        let mut outputs = Vec::new();
        for (output, &place) in model.outputs.iter().zip(&self.outputs) {
            let desc = output.operand.desc.clone();
            let at = || format!("model output {} (`{}`)", output.index, output.source);
            let src = self.place(place, desc.bytes()).map_err(|e| e.at(at))?;
            let bytes = self
                .acl
                .copy_to_host(src, desc.bytes())
                .map_err(|e| e.at(at))?;
            outputs.push(HostTensor { desc, bytes });
        }
        for step in std::mem::take(&mut self.after_outputs) {
            self.step(model, None, &step)?;
        }
        // The outputs' frees recorded their P2P buffers' last events: wait for them.
        self.p2p.drain(&self.acl, timeout_ms)?;
        let mut result = Ok(());
        for (desc, buffer) in self.handles.drain(..) {
            for outcome in [desc.release(), buffer.release()] {
                if result.is_ok() {
                    result = outcome;
                }
            }
        }
        result.map(|()| outputs)
    }

    fn step(
        &mut self,
        model: &TaskModel,
        hccl: Option<(&Arc<Hccl>, &Comm)>,
        step: &Step,
    ) -> Result<(), RuntimeError> {
        match *step {
            Step::Alloc { buffer, .. } if self.p2p.is_p2p(buffer) => {
                let size = self.buffers[buffer].size;
                self.p2p
                    .alloc(&self.acl, buffer, size)
                    .map_err(|e| e.at(|| format!("P2P buffer {buffer} ({size} bytes)")))?;
            }
            Step::Alloc { buffer, stream } => {
                let size = self.buffers[buffer].size;
                let block = self.memory.malloc(stream, size).map_err(|e| {
                    mem_error(e, || {
                        format!(
                            "buffer {buffer} ({size} bytes, static offset {})",
                            self.buffers[buffer].static_offset
                        )
                    })
                })?;
                self.blocks[buffer] = Some(block);
            }
            Step::Wander { buffer, .. } if self.p2p.is_p2p(buffer) => self.p2p.wander(buffer),
            Step::Wander { buffer, src, dst } => {
                let block = self.blocks[buffer].expect("allocated before");
                self.memory
                    .wander_from(block, src, dst)
                    .map_err(|e| mem_error(e, || format!("buffer {buffer}")))?;
            }
            Step::Free { buffer, stream } if self.p2p.is_p2p(buffer) => {
                let acl = Arc::clone(&self.acl);
                self.p2p
                    .free(&acl, buffer, &self.memory.device().streams[stream])?;
            }
            Step::Free { buffer, stream } => {
                let block = self.blocks[buffer].expect("allocated before");
                self.memory
                    .free(stream, block)
                    .map_err(|e| mem_error(e, || format!("buffer {buffer} on stream {stream}")))?;
            }
            Step::Send { event } => {
                let e = self.table.events[event];
                send_event(&mut self.memory, &mut self.gert[event])
                    .map_err(|err| mem_error(err, || format!("SendEvents {event}")))?;
                let stream = &self.memory.device().streams[e.src];
                self.acl.record_event(&self.events_slice()[event], stream)?;
            }
            Step::Wait { event } => {
                let e = self.table.events[event];
                let stream = &self.memory.device().streams[e.dst];
                self.acl
                    .stream_wait_event(stream, &self.events_slice()[event])?;
                wait_event(&mut self.memory, &mut self.gert[event])
                    .map_err(|err| mem_error(err, || format!("WaitEvents {event}")))?;
            }
            Step::Launch { task, ref places } => {
                let t = &model.streams[task.0].tasks[task.1];
                self.launch(task, t, places, hccl).map_err(|error| {
                    error.at(|| {
                        format!(
                            "stream {}, task {} ({} `{}`)",
                            task.0,
                            task.1,
                            super::task_kind(t),
                            super::task_node(t)
                        )
                    })
                })?;
            }
            Step::ReadOutputs => {}
            Step::LastResourceClean => {
                last_wait_events(&mut self.memory)
                    .map_err(|e| mem_error(e, || "LastWaitEvents".to_owned()))?;
            }
        }
        Ok(())
    }

    /// The events the allocator created at load.
    fn events_slice(&self) -> &[Event] {
        self.events.events()
    }

    fn launch(
        &mut self,
        task: (usize, usize),
        t: &Task,
        places: &[Place],
        hccl: Option<(&Arc<Hccl>, &Comm)>,
    ) -> Result<(), RuntimeError> {
        let accesses = plan::accesses(t);
        let ptrs = accesses
            .iter()
            .zip(places)
            .map(|(a, &p)| self.place(p, a.size))
            .collect::<Result<Vec<_>, _>>()?;
        let acl = Arc::clone(&self.acl);
        let stream = &self.memory.device().streams[task.0];
        match t {
            Task::Kernel {
                op_type,
                node,
                attrs,
                inputs,
                outputs,
                placement: crate::lowering::model::Placement::Host,
            } => self.host.launch(
                &acl,
                stream,
                (op_type, node),
                attrs,
                (inputs, outputs),
                &ptrs,
                self.timeout_ms,
            )?,
            Task::Kernel {
                op_type,
                node,
                inputs,
                outputs,
                placement,
                ..
            } => {
                // Inputs not at the kernel's placement (HBM <-> P2P): copied in first.
                let mut ptrs = ptrs;
                let mut copies = Vec::new();
                for (k, operand) in inputs.iter().enumerate() {
                    let at = match places[k] {
                        Place::Buffer { buffer, .. } if self.p2p.is_p2p(buffer) => {
                            crate::lowering::model::Placement::P2p
                        }
                        _ => crate::lowering::model::Placement::Hbm,
                    };
                    if at != *placement && operand.size > 0 {
                        let copy = self.p2p.copy_in(
                            &acl,
                            stream,
                            node,
                            ptrs[k],
                            operand.size,
                            *placement,
                        )?;
                        ptrs[k] = copy.ptr();
                        copies.push(copy);
                    }
                }
                let mut handles = Vec::new();
                for (operand, &ptr) in inputs.iter().chain(outputs).zip(&ptrs) {
                    let desc = acl.create_tensor_desc(
                        operand.desc.dtype.acl(),
                        &operand.desc.dims,
                        operand.desc.format,
                    )?;
                    let buffer = acl.create_data_buffer(ptr, operand.size)?;
                    handles.push((desc, buffer));
                }
                if !node.is_empty() {
                    acl.sim_set_task_name(stream, node)?;
                }
                let pairs: Vec<(&TensorDescHandle, &DataBuffer)> =
                    handles.iter().map(|(d, b)| (d, b)).collect();
                let (ins, outs) = pairs.split_at(inputs.len());
                acl.op_execute(op_type, ins, outs, &self.attrs[&task], stream)?;
                self.handles.extend(handles);
                self.p2p.after(&acl, stream, copies)?;
            }
            Task::MemcpyAsync { src, dst, node } => {
                if !node.is_empty() {
                    acl.sim_set_task_name(stream, node)?;
                }
                acl.memcpy_async(ptrs[1], dst.size, ptrs[0], src.size.min(dst.size), stream)?
            }
            Task::Memset { size, value, .. } => {
                acl.memset_async(ptrs[0], *size, i32::from(*value), *size, stream)?
            }
            Task::Hccl {
                node,
                collective,
                reduction,
                root_rank,
                inputs,
                outputs,
                ..
            } => {
                let Some((hccl, comm)) = hccl else {
                    return Err(RuntimeError::Other(
                        "an HCCL task but no communicator".to_owned(),
                    ));
                };
                let (ins, outs) = ptrs.split_at(inputs.len());
                let call = collective::Call::new(node, *collective, *reduction, *root_rank);
                collective::issue(
                    (&acl, hccl, comm),
                    stream,
                    call,
                    (inputs, ins),
                    (outputs, outs),
                )?;
            }
            _ => {}
        }
        Ok(())
    }

    fn read_variables(&self, model: &TaskModel) -> Result<Vec<(String, HostTensor)>, RuntimeError> {
        model
            .variables
            .iter()
            .map(|variable| {
                let desc = variable.desc.clone();
                let addr = Addr {
                    region: Region::Variable,
                    offset: variable.offset,
                };
                let src = self.resolve(addr, desc.bytes())?;
                let bytes = self.acl.copy_to_host(src, desc.bytes())?;
                Ok((variable.node.clone(), HostTensor { desc, bytes }))
            })
            .collect()
    }

    fn report(&self, model: &TaskModel, peak_device_bytes: u64) -> DynamicMemoryReport {
        let stats = self.memory.stats();
        DynamicMemoryReport {
            rank: self.rank,
            peak_device_bytes,
            peak_block_bytes: stats.peak_live_bytes,
            plan_peak_live_bytes: self.plan_peak_live_bytes,
            static_memory_size: model.memory_size,
            buffers: self.buffers.len(),
            logical_events: self.table.events.len(),
            allocations: stats.mallocs + stats.borrowed_allocs,
            device_mallocs: self.memory.device().mallocs,
            birth_recycles: stats.birth_recycles,
            borrow_recycles: stats.borrow_recycles,
            local_recycles: stats.local_recycles,
            stale_messages: stats.stale_messages,
            recoveries: self.memory.retry_log().total(),
            decisions: self.decisions,
            host: self.host.stats,
            p2p: self.p2p.stats,
        }
    }

    /// Every block recycled and every allocation freed; then streams, events, regions.
    fn release(mut self) -> Result<u64, RuntimeError> {
        let mut result = Ok(());
        let mut keep = |outcome: Result<(), RuntimeError>| {
            if result.is_ok() {
                result = outcome;
            }
        };
        let mut peak = 0;
        match self.memory.finalize() {
            Ok(report) => {
                peak = report.peak_device_bytes;
                if report.leaked_blocks > 0 {
                    keep(Err(RuntimeError::Other(format!(
                        "--memory=dynamic: {} block(s) were not recycled by the end of the run",
                        report.leaked_blocks
                    ))));
                }
            }
            Err(e) => keep(Err(mem_error(e, || "releasing run-time memory".to_owned()))),
        }
        for (_, attr) in self.attrs.drain() {
            keep(attr.release());
        }
        for (desc, buffer) in self.handles.drain(..) {
            keep(desc.release());
            keep(buffer.release());
        }
        for event in std::mem::take(&mut self.events).into_events() {
            keep(event.release());
        }
        keep(self.memory.device_mut().release());
        for (_, region) in self.regions.drain() {
            if let Some(buffer) = region.buffer {
                keep(buffer.release());
            }
        }
        result.map(|()| peak)
    }
}

/// [`super::run_model_with`] in dynamic memory mode.
pub fn run_model_with(
    model: &TaskModel,
    options: &RunOptions,
    on_iteration: &mut dyn FnMut(u32),
) -> Result<RunResult, RuntimeError> {
    if options.iterations == 0 || options.ranks == 0 {
        return Err(RuntimeError::Input(
            "iterations and ranks must be at least 1".to_owned(),
        ));
    }
    let decides = model
        .streams
        .iter()
        .flat_map(|s| &s.tasks)
        .any(|t| matches!(t, Task::LabelSwitchByIndex { .. }));
    if decides && has_collectives(model) && options.ranks > 1 {
        return Err(RuntimeError::Model(format!(
            "--memory=dynamic: model `{}`: control flow and collectives on {} ranks: the host \
             reads each switch index on one rank at a time, which a collective waiting for \
             the other ranks would block (use --memory=static)",
            model.name, options.ranks
        )));
    }
    let syncing_host_kernel = model
        .streams
        .iter()
        .flat_map(|s| &s.tasks)
        .find_map(|t| match t {
            Task::Kernel {
                op_type,
                node,
                inputs,
                placement: crate::lowering::model::Placement::Host,
                ..
            } if host::plan_host_kernel(op_type, inputs.len()).sync_stream => Some(node),
            _ => None,
        });
    if let Some(node) = syncing_host_kernel {
        if has_collectives(model) && options.ranks > 1 {
            return Err(RuntimeError::Model(format!(
                "--memory=dynamic: model `{}`: the host kernel `{node}` reads device data and \
                 the model has collectives on {} ranks: its SyncStream on one rank would wait \
                 for a collective the other ranks have not issued yet (use --memory=static)",
                model.name, options.ranks
            )));
        }
    }
    let inputs = rank_inputs(model, options)?;
    let runtime = runtime_device::open(options.device, options.acl_lib_dir.as_deref())?;
    let _session = runtime.session();
    let acl = &runtime.acl;
    acl.sim_configure(&options.sim_config_string())?;
    let hccl = if has_collectives(model) {
        Some(runtime.hccl()?)
    } else {
        None
    };
    for rank in 0..options.ranks {
        acl.set_device(rank as i32)?;
    }
    let comms = match &hccl {
        Some(hccl) => hccl.init_all(options.ranks)?,
        None => Vec::new(),
    };
    let mut loaded: Vec<DynamicRank> = Vec::new();
    let result = (|| {
        for rank in 0..options.ranks {
            acl.set_device(rank as i32)?;
            let at = |e: RuntimeError| {
                if options.ranks > 1 {
                    e.at(|| format!("rank {rank}"))
                } else {
                    e
                }
            };
            loaded.push(
                DynamicRank::load(
                    model,
                    acl,
                    rank,
                    options.seed,
                    options.sync_timeout_ms,
                    HostKernels::new(options.host_mutation, options.opaque_kernels),
                )
                .map_err(at)?,
            );
        }
        let mut outputs = vec![Vec::new(); options.ranks as usize];
        for iteration in 0..options.iterations {
            let run_context = |error: RuntimeError, rank: u32| {
                error.at(|| {
                    let run = format!("run {} of model `{}`", iteration + 1, model.name);
                    if options.ranks > 1 {
                        format!("rank {rank}, {run}")
                    } else {
                        run
                    }
                })
            };
            for rank_model in &mut loaded {
                let rank = rank_model.rank;
                acl.set_device(rank as i32)?;
                let cx = hccl.as_ref().zip(comms.get(rank as usize));
                rank_model
                    .issue(model, cx, &inputs[rank as usize], options.sync_timeout_ms)
                    .map_err(|e| run_context(e, rank))?;
            }
            for rank_model in &mut loaded {
                let rank = rank_model.rank;
                acl.set_device(rank as i32)?;
                outputs[rank as usize] = rank_model
                    .finish(model, options.sync_timeout_ms)
                    .map_err(|e| run_context(e, rank))?;
            }
            on_iteration(iteration);
        }
        let mut ranks = Vec::new();
        for (rank_model, outputs) in loaded.iter().zip(outputs) {
            acl.set_device(rank_model.rank as i32)?;
            ranks.push(RankResult {
                outputs,
                variables: rank_model.read_variables(model)?,
            });
        }
        let report = acl
            .sim_report()
            .map(|text| SimReport::parse(&text))
            .transpose()?;
        Ok(RunResult {
            ranks,
            report,
            memory: Vec::new(),
        })
    })();
    let mut release = Ok(());
    let mut memory = Vec::new();
    for rank_model in loaded {
        let rank = rank_model.rank;
        let mut report = rank_model.report(model, 0);
        let outcome = acl
            .set_device(rank as i32)
            .and_then(|()| rank_model.release());
        match outcome {
            Ok(peak) => {
                report.peak_device_bytes = peak;
                memory.push(report);
            }
            Err(e) => {
                if release.is_ok() {
                    release = Err(e);
                }
            }
        }
    }
    drop(comms);
    for rank in 0..options.ranks {
        let outcome = acl.reset_device(rank as i32);
        if release.is_ok() {
            release = outcome;
        }
    }
    let mut result = result?;
    release?;
    result.memory = memory;
    Ok(result)
}
