//! Loading one rank of a [`TaskModel`] onto its device, as GE's DavinciModel does
//! (`dialects/execution.md`, "Loading a model"): memory regions, streams, events, notifies, labels,
//! the model runtime instance with every stream bound HEAD or DEFAULT, and every task
//! issued through its ACL call on resolved addresses (region base + offset).

use super::collective;
use crate::{
    lowering::model::{Addr, Operand, Region, Task, TaskModel},
    runtime::{
        acl::{
            Acl, DataBuffer, DeviceBuffer, DevicePtr, Event, Label, LabelList, ModelRI, Notify,
            OpAttr, Stream, TensorDescHandle, BIND_DEFAULT, BIND_HEAD, EVENT_SYNC,
            STREAM_PERSISTENT,
        },
        error::RuntimeError,
        hccl::{Comm, Hccl},
        tensor::{variable_seed_name, HostTensor},
    },
};
use std::{collections::HashMap, sync::Arc};

/// GE's name of a task type (`runtime_model_ge.h`), for reports and error locations.
pub fn task_kind(task: &Task) -> &'static str {
    match task {
        Task::Kernel { .. } => "KERNEL",
        Task::EventRecord { .. } => "EVENT_RECORD",
        Task::EventWait { .. } => "EVENT_WAIT",
        Task::EventReset { .. } => "EVENT_RESET",
        Task::NotifyRecord { .. } => "NOTIFY_RECORD",
        Task::NotifyWait { .. } => "NOTIFY_WAIT",
        Task::MemcpyAsync { .. } => "MEMCPY_ASYNC",
        Task::Memset { .. } => "MEMSET",
        Task::Hccl { .. } => "HCCL",
        Task::StreamActive { .. } => "STREAM_ACTIVE",
        Task::StreamSwitch { .. } => "STREAM_SWITCH",
        Task::LabelSet { .. } => "LABEL_SET",
        Task::LabelGoto { .. } => "LABEL_GOTO",
        Task::LabelSwitchByIndex { .. } => "STREAM_LABEL_SWITCH_BY_INDEX",
        Task::ModelEndGraph => "MODEL_END_GRAPH",
    }
}

/// The GE node a task comes from (empty for none).
pub fn task_node(task: &Task) -> &str {
    match task {
        Task::Kernel { node, .. }
        | Task::EventRecord { node, .. }
        | Task::EventWait { node, .. }
        | Task::EventReset { node, .. }
        | Task::NotifyRecord { node, .. }
        | Task::NotifyWait { node, .. }
        | Task::MemcpyAsync { node, .. }
        | Task::Memset { node, .. }
        | Task::Hccl { node, .. }
        | Task::StreamActive { node, .. }
        | Task::StreamSwitch { node, .. }
        | Task::LabelSet { node, .. }
        | Task::LabelGoto { node, .. }
        | Task::LabelSwitchByIndex { node, .. } => node,
        Task::ModelEndGraph => "",
    }
}

pub mod bind;

/// A device region: its buffer (none when empty) and size; `external`: a user buffer bound
/// in its place (zero copy, `bind.rs`), which tasks and copies then address instead.
struct RegionMemory {
    buffer: Option<DeviceBuffer>,
    size: u64,
    external: Option<DevicePtr>,
}

impl RegionMemory {
    fn allocate(acl: &Arc<Acl>, size: u64, what: &str) -> Result<Self, RuntimeError> {
        let buffer = if size == 0 {
            None
        } else {
            Some(
                acl.malloc(size)
                    .map_err(|error| error.at(|| format!("allocating {what} ({size} bytes)")))?,
            )
        };
        Ok(Self {
            buffer,
            size,
            external: None,
        })
    }

    fn base(&self) -> DevicePtr {
        if let Some(ptr) = self.external {
            return ptr;
        }
        self.buffer
            .as_ref()
            .map_or(DevicePtr::NULL, DeviceBuffer::ptr)
    }
}

/// Everything one rank's loaded model holds on its device. Released in the reverse order
/// of creation by [`RankModel::release`]; dropped (errors ignored) on an error path.
pub struct RankModel {
    pub rank: u32,
    acl: Arc<Acl>,
    // Field order is drop order: the model first, memory last.
    model: Option<ModelRI>,
    label_lists: Vec<LabelList>,
    op_descs: Vec<TensorDescHandle>,
    op_buffers: Vec<DataBuffer>,
    op_attrs: Vec<OpAttr>,
    labels: Vec<Label>,
    events: Vec<Event>,
    notifies: Vec<Notify>,
    streams: Vec<Stream>,
    exec_stream: Option<Stream>,
    workspace: RegionMemory,
    weights: RegionMemory,
    variables: RegionMemory,
    inputs: HashMap<u32, RegionMemory>,
    outputs: HashMap<u32, RegionMemory>,
    /// The device word holding 0 that every LABEL_GOTO switches on.
    zero_word: Option<DeviceBuffer>,
}

/// Seed and options the load needs beyond the model.
pub struct LoadContext<'a> {
    pub acl: &'a Arc<Acl>,
    pub hccl: Option<(&'a Arc<Hccl>, &'a Comm)>,
    pub rank: u32,
    pub seed: u64,
}

impl RankModel {
    /// Loads `model` on the current device (the caller ran `aclrtSetDevice(rank)`).
    pub fn load(model: &TaskModel, cx: &LoadContext<'_>) -> Result<Self, RuntimeError> {
        Self::load_on_streams(model, cx, None)
    }

    /// [`Self::load`] on `streams` (one per model stream, from a stream pool) instead of
    /// streams of its own; [`Self::release_keeping_streams`] hands them back.
    pub fn load_on_streams(
        model: &TaskModel,
        cx: &LoadContext<'_>,
        streams: Option<Vec<Stream>>,
    ) -> Result<Self, RuntimeError> {
        let acl = cx.acl;
        let mut inputs = HashMap::new();
        for input in &model.inputs {
            let what = format!("model input {} (`{}`)", input.index, input.node);
            inputs.insert(
                input.index,
                RegionMemory::allocate(acl, input.desc.bytes(), &what)?,
            );
        }
        let mut outputs = HashMap::new();
        for output in &model.outputs {
            let what = format!("model output {} (`{}`)", output.index, output.source);
            let size = output.operand.size.max(output.operand.desc.bytes());
            outputs.insert(output.index, RegionMemory::allocate(acl, size, &what)?);
        }
        let mut loaded = RankModel {
            rank: cx.rank,
            acl: Arc::clone(acl),
            model: None,
            label_lists: Vec::new(),
            op_descs: Vec::new(),
            op_buffers: Vec::new(),
            op_attrs: Vec::new(),
            labels: Vec::new(),
            events: Vec::new(),
            notifies: Vec::new(),
            streams: Vec::new(),
            exec_stream: None,
            workspace: RegionMemory::allocate(acl, model.memory_size, "the workspace")?,
            weights: RegionMemory::allocate(acl, model.weight_size, "the weights")?,
            variables: RegionMemory::allocate(acl, model.var_size, "the variables")?,
            inputs,
            outputs,
            zero_word: None,
        };
        loaded.fill_constants(model, cx.seed)?;
        if let Some(streams) = streams {
            if streams.len() != model.stream_num as usize {
                return Err(RuntimeError::Model(format!(
                    "{} streams given for a model of stream_num {}",
                    streams.len(),
                    model.stream_num
                )));
            }
            loaded.streams = streams;
        }
        loaded.create_resources(model)?;
        loaded.build(model, cx)?;
        Ok(loaded)
    }

    /// H2D copies of every weight and every variable's initial value.
    fn fill_constants(&mut self, model: &TaskModel, seed: u64) -> Result<(), RuntimeError> {
        for weight in &model.weights {
            let addr = Addr {
                region: Region::Weight,
                offset: weight.offset,
            };
            let at = || format!("weight `{}`", weight.node);
            if weight.bytes.len() as u64 != weight.desc.bytes() {
                return Err(RuntimeError::Model(format!(
                    "{}: {} bytes for a {:?} {:?} tensor ({} bytes)",
                    at(),
                    weight.bytes.len(),
                    weight.desc.dtype,
                    weight.desc.dims,
                    weight.desc.bytes()
                )));
            }
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
            if bytes.len() as u64 != variable.desc.bytes() {
                return Err(RuntimeError::Model(format!(
                    "{}: an initial value of {} bytes for {} bytes",
                    at(),
                    bytes.len(),
                    variable.desc.bytes()
                )));
            }
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

    fn create_resources(&mut self, model: &TaskModel) -> Result<(), RuntimeError> {
        let acl = &self.acl;
        if model.streams.len() != model.stream_num as usize {
            return Err(RuntimeError::Model(format!(
                "stream_num is {} but the model lists {} streams",
                model.stream_num,
                model.streams.len()
            )));
        }
        for (position, stream) in model.streams.iter().enumerate() {
            if stream.id as usize != position {
                return Err(RuntimeError::Model(format!(
                    "stream {position} of the list has id {}",
                    stream.id
                )));
            }
        }
        for id in self.streams.len() as u32..model.stream_num {
            self.streams.push(
                acl.create_stream(0, STREAM_PERSISTENT)
                    .map_err(|e| e.at(|| format!("creating stream {id}")))?,
            );
        }
        for id in 0..model.event_num {
            self.events.push(
                acl.create_event(EVENT_SYNC)
                    .map_err(|e| e.at(|| format!("creating event {id}")))?,
            );
        }
        for id in 0..model.notify_num {
            self.notifies.push(
                acl.create_notify()
                    .map_err(|e| e.at(|| format!("creating notify {id}")))?,
            );
        }
        for id in 0..model.label_num {
            self.labels.push(
                acl.create_label()
                    .map_err(|e| e.at(|| format!("creating label {id}")))?,
            );
        }
        self.exec_stream = Some(
            acl.create_stream(0, 0)
                .map_err(|e| e.at(|| "creating the execute stream".to_owned()))?,
        );
        Ok(())
    }

    /// BuildBegin, bind, issue every task, BuildEnd.
    fn build(&mut self, model: &TaskModel, cx: &LoadContext<'_>) -> Result<(), RuntimeError> {
        let acl = Arc::clone(&self.acl);
        let ri = acl.model_build_begin()?;
        for (stream, tasks) in self.streams.iter().zip(&model.streams) {
            let flag = if tasks.activated {
                BIND_DEFAULT
            } else {
                BIND_HEAD
            };
            acl.model_bind_stream(&ri, stream, flag)
                .map_err(|e| e.at(|| format!("binding stream {}", tasks.id)))?;
        }
        self.model = Some(ri);
        for tasks in &model.streams {
            for (index, task) in tasks.tasks.iter().enumerate() {
                self.issue(tasks.id, task, cx).map_err(|error| {
                    error.at(|| {
                        let node = task_node(task);
                        if node.is_empty() {
                            format!("stream {}, task {index} ({})", tasks.id, task_kind(task))
                        } else {
                            format!(
                                "stream {}, task {index} ({} `{node}`)",
                                tasks.id,
                                task_kind(task)
                            )
                        }
                    })
                })?;
            }
        }
        let ri = self.model.as_ref().expect("built above");
        acl.model_build_end(ri)
    }

    fn stream(&self, id: u32) -> Result<&Stream, RuntimeError> {
        self.streams.get(id as usize).ok_or_else(|| {
            RuntimeError::Model(format!(
                "stream {id} out of range (stream_num {})",
                self.streams.len()
            ))
        })
    }

    fn event(&self, id: u32) -> Result<&Event, RuntimeError> {
        self.events.get(id as usize).ok_or_else(|| {
            RuntimeError::Model(format!(
                "event {id} out of range (event_num {})",
                self.events.len()
            ))
        })
    }

    fn notify(&self, id: u32) -> Result<&Notify, RuntimeError> {
        self.notifies.get(id as usize).ok_or_else(|| {
            RuntimeError::Model(format!(
                "notify {id} out of range (notify_num {})",
                self.notifies.len()
            ))
        })
    }

    fn label_list(&mut self, ids: &[u32]) -> Result<usize, RuntimeError> {
        let labels = ids
            .iter()
            .map(|&id| {
                self.labels.get(id as usize).ok_or_else(|| {
                    RuntimeError::Model(format!(
                        "label {id} out of range (label_num {})",
                        self.labels.len()
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let list = self.acl.create_label_list(&labels)?;
        self.label_lists.push(list);
        Ok(self.label_lists.len() - 1)
    }

    fn zero_word(&mut self) -> Result<DevicePtr, RuntimeError> {
        if self.zero_word.is_none() {
            let word = self.acl.malloc(4)?;
            self.acl.memset(word.ptr(), 4, 0, 4)?;
            self.zero_word = Some(word);
        }
        Ok(self
            .zero_word
            .as_ref()
            .map(DeviceBuffer::ptr)
            .unwrap_or_default())
    }

    /// The device address of `addr` for an access of `size` bytes, checked against its
    /// region.
    pub fn resolve(&self, addr: Addr, size: u64) -> Result<DevicePtr, RuntimeError> {
        let (region, name) = match addr.region {
            Region::Workspace => (Some(&self.workspace), "the workspace".to_owned()),
            Region::Weight => (Some(&self.weights), "the weights".to_owned()),
            Region::Variable => (Some(&self.variables), "the variables".to_owned()),
            Region::Input(k) => (self.inputs.get(&k), format!("model input {k}")),
            Region::Output(k) => (self.outputs.get(&k), format!("model output {k}")),
        };
        let Some(region) = region else {
            return Err(RuntimeError::Model(format!(
                "an address in {name}, which the model does not have"
            )));
        };
        match addr.offset.checked_add(size) {
            Some(end) if end <= region.size => Ok(region.base().offset(addr.offset)),
            _ => Err(RuntimeError::Model(format!(
                "{size} bytes at offset {} are outside {name} ({} bytes)",
                addr.offset, region.size
            ))),
        }
    }

    fn operand(&self, operand: &Operand) -> Result<DevicePtr, RuntimeError> {
        self.resolve(operand.addr, operand.size)
    }

    fn issue(
        &mut self,
        stream_id: u32,
        task: &Task,
        cx: &LoadContext<'_>,
    ) -> Result<(), RuntimeError> {
        let acl = Arc::clone(&self.acl);
        let stream = self.stream(stream_id)?;
        match task {
            Task::Kernel {
                op_type,
                attrs,
                inputs,
                outputs,
                node,
                ..
            } => {
                let ins = self.kernel_operands(inputs)?;
                let outs = self.kernel_operands(outputs)?;
                let attr = acl.create_attr(&attrs.0)?;
                let stream = self.stream(stream_id)?;
                if !node.is_empty() {
                    acl.sim_set_task_name(stream, node)?;
                }
                acl.op_execute(op_type, &pairs(&ins), &pairs(&outs), &attr, stream)?;
                for (desc, buffer) in ins.into_iter().chain(outs) {
                    self.op_descs.push(desc);
                    self.op_buffers.push(buffer);
                }
                self.op_attrs.push(attr);
            }
            Task::EventRecord { event, .. } => acl.record_event(self.event(*event)?, stream)?,
            Task::EventWait { event, .. } => acl.stream_wait_event(stream, self.event(*event)?)?,
            Task::EventReset { event, .. } => acl.reset_event(self.event(*event)?, stream)?,
            Task::NotifyRecord { notify, .. } => {
                acl.record_notify(self.notify(*notify)?, stream)?
            }
            Task::NotifyWait { notify, .. } => {
                acl.wait_and_reset_notify(self.notify(*notify)?, stream, 0)?
            }
            Task::MemcpyAsync { src, dst, node } => {
                let (from, to) = (self.operand(src)?, self.operand(dst)?);
                if !node.is_empty() {
                    acl.sim_set_task_name(stream, node)?;
                }
                acl.memcpy_async(to, dst.size, from, src.size.min(dst.size), stream)?
            }
            Task::Memset {
                dst, size, value, ..
            } => {
                let to = self.resolve(*dst, *size)?;
                acl.memset_async(to, *size, i32::from(*value), *size, stream)?
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
                let Some((hccl, comm)) = cx.hccl else {
                    return Err(RuntimeError::Other(
                        "an HCCL task but no communicator".to_owned(),
                    ));
                };
                let sends = inputs
                    .iter()
                    .map(|o| self.operand(o))
                    .collect::<Result<Vec<_>, _>>()?;
                let recvs = outputs
                    .iter()
                    .map(|o| self.operand(o))
                    .collect::<Result<Vec<_>, _>>()?;
                let call = collective::Call::new(node, *collective, *reduction, *root_rank);
                collective::issue(
                    (&acl, hccl, comm),
                    self.stream(stream_id)?,
                    call,
                    (inputs, &sends),
                    (outputs, &recvs),
                )?;
            }
            Task::StreamActive { stream: target, .. } => {
                acl.active_stream(self.stream(*target)?, stream)?
            }
            Task::StreamSwitch {
                value,
                cond,
                target,
                true_stream,
                ..
            } => {
                let (left, right) = (self.operand(value)?, self.operand(target)?);
                acl.switch_stream(left, *cond, right, self.stream(*true_stream)?, stream)?
            }
            Task::LabelSet { label, .. } => {
                let label = self.labels.get(*label as usize).ok_or_else(|| {
                    RuntimeError::Model(format!(
                        "label {label} out of range (label_num {})",
                        self.labels.len()
                    ))
                })?;
                acl.set_label(label, stream)?
            }
            Task::LabelGoto { label, .. } => {
                let word = self.zero_word()?;
                let list = self.label_list(&[*label])?;
                acl.switch_label_by_index(
                    word,
                    1,
                    &self.label_lists[list],
                    self.stream(stream_id)?,
                )?
            }
            Task::LabelSwitchByIndex { index, labels, .. } => {
                if labels.is_empty() {
                    return Err(RuntimeError::Model(
                        "a label switch without labels".to_owned(),
                    ));
                }
                let word = self.operand(index)?;
                let list = self.label_list(labels)?;
                acl.switch_label_by_index(
                    word,
                    labels.len() as u32,
                    &self.label_lists[list],
                    self.stream(stream_id)?,
                )?
            }
            Task::ModelEndGraph => {
                let ri = self.model.as_ref().expect("issued after BuildBegin");
                acl.model_end_task(ri, stream)?
            }
        }
        Ok(())
    }

    fn kernel_operands(
        &self,
        operands: &[Operand],
    ) -> Result<Vec<(TensorDescHandle, DataBuffer)>, RuntimeError> {
        operands
            .iter()
            .map(|operand| {
                let ptr = self.operand(operand)?;
                let desc = self.acl.create_tensor_desc(
                    operand.desc.dtype.acl(),
                    &operand.desc.dims,
                    operand.desc.format,
                )?;
                let buffer = self.acl.create_data_buffer(ptr, operand.size)?;
                Ok((desc, buffer))
            })
            .collect()
    }

    /// One iteration's host side: H2D copies into the input buffers, then
    /// `aclmdlRIExecuteAsync` on the execute stream (the caller synchronises).
    pub fn start(&self, model: &TaskModel, inputs: &[HostTensor]) -> Result<(), RuntimeError> {
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
        let ri = self.model.as_ref().expect("a loaded model");
        self.acl.model_execute_async(ri, self.exec_stream())
    }

    pub fn synchronize(&self, timeout_ms: i32) -> Result<(), RuntimeError> {
        self.acl.synchronize_stream(self.exec_stream(), timeout_ms)
    }

    fn exec_stream(&self) -> &Stream {
        self.exec_stream.as_ref().expect("created at load")
    }

    /// D2H copies of every model output, by position in `model.outputs`.
    pub fn read_outputs(&self, model: &TaskModel) -> Result<Vec<HostTensor>, RuntimeError> {
        model
            .outputs
            .iter()
            .map(|output| {
                let desc = output.operand.desc.clone();
                let at = || format!("model output {} (`{}`)", output.index, output.source);
                let src = self
                    .resolve(output.operand.addr, desc.bytes())
                    .map_err(|e| e.at(at))?;
                let bytes = self
                    .acl
                    .copy_to_host(src, desc.bytes())
                    .map_err(|e| e.at(at))?;
                Ok(HostTensor { desc, bytes })
            })
            .collect()
    }

    /// D2H copies of every variable.
    pub fn read_variables(
        &self,
        model: &TaskModel,
    ) -> Result<Vec<(String, HostTensor)>, RuntimeError> {
        model
            .variables
            .iter()
            .map(|variable| {
                let desc = variable.desc.clone();
                let at = || format!("variable `{}`", variable.node);
                let addr = Addr {
                    region: Region::Variable,
                    offset: variable.offset,
                };
                let src = self.resolve(addr, desc.bytes()).map_err(|e| e.at(at))?;
                let bytes = self
                    .acl
                    .copy_to_host(src, desc.bytes())
                    .map_err(|e| e.at(at))?;
                Ok((variable.node.clone(), HostTensor { desc, bytes }))
            })
            .collect()
    }

    /// [`Self::release`], except the model streams, returned unbound (the model runtime
    /// instance destroyed first) for a stream pool. When the instance cannot be destroyed
    /// the streams stay bound and are dropped instead (an empty list).
    pub fn release_keeping_streams(mut self) -> (Result<(), RuntimeError>, Vec<Stream>) {
        let unbound = self.model.take().map_or(Ok(()), ModelRI::release);
        let streams = if unbound.is_ok() {
            std::mem::take(&mut self.streams)
        } else {
            Vec::new()
        };
        let rest = self.release();
        (unbound.and(rest), streams)
    }

    /// Destroys everything in order, reporting the first failure.
    pub fn release(mut self) -> Result<(), RuntimeError> {
        let mut result = Ok(());
        let mut keep = |outcome: Result<(), RuntimeError>| {
            if result.is_ok() {
                result = outcome;
            }
        };
        if let Some(model) = self.model.take() {
            keep(model.release());
        }
        self.label_lists.drain(..).for_each(|h| keep(h.release()));
        self.op_buffers.drain(..).for_each(|h| keep(h.release()));
        self.op_descs.drain(..).for_each(|h| keep(h.release()));
        self.op_attrs.drain(..).for_each(|h| keep(h.release()));
        self.labels.drain(..).for_each(|h| keep(h.release()));
        self.events.drain(..).for_each(|h| keep(h.release()));
        self.notifies.drain(..).for_each(|h| keep(h.release()));
        self.streams.drain(..).for_each(|h| keep(h.release()));
        if let Some(stream) = self.exec_stream.take() {
            keep(stream.release());
        }
        let regions = [&mut self.workspace, &mut self.weights, &mut self.variables]
            .into_iter()
            .chain(self.inputs.values_mut())
            .chain(self.outputs.values_mut());
        for region in regions {
            if let Some(buffer) = region.buffer.take() {
                keep(buffer.release());
            }
        }
        if let Some(word) = self.zero_word.take() {
            keep(word.release());
        }
        result
    }
}

fn pairs(list: &[(TensorDescHandle, DataBuffer)]) -> Vec<(&TensorDescHandle, &DataBuffer)> {
    list.iter().map(|(d, b)| (d, b)).collect()
}

/// A variable's initial bytes: its `init`, else the shared seeded fill (tensor.rs).
pub fn initial_value(variable: &crate::lowering::model::Variable, seed: u64) -> Vec<u8> {
    variable.init.clone().unwrap_or_else(|| {
        ascend_kernels::seeded_fill(
            seed,
            &variable_seed_name(&variable.node),
            variable.desc.dtype,
            &variable.desc.dims,
        )
    })
}
