//! The lowering analysis: a compiled module (after `--ge-compile`) to a [`TaskModel`].
//!
//! Nodes are visited in GE's global order (`GetAllNodes`: a node, then its subgraphs' nodes,
//! then the next node), and each node's tasks are appended to the list of its `stream_id`,
//! so every stream's list is the global order filtered by stream, as GE's
//! `GenModelTaskDef` concatenates it.
//!
//! Addresses: every data value gets the [`Operand`] its bytes live at. A value the plan
//! placed in the workspace (`output_offset >= 0`) lives there; root Data values are model
//! inputs, Variables and Consts get their own aligned slot in the variable / weight
//! region, a ref output (or an output the plan left out, `-1`) is the memory of the input
//! it references, and a node without a task that the plan gave a buffer of its own (a
//! Reshape before the plan fix) gets a copy task so that its consumer still reads the bytes
//! its producer wrote. Consumers read their producer's address.

use super::{
    control_flow,
    homes::{Homes, SyncFate},
    ir_read::{self, desc_of_type, int_list, kernel_attrs},
    model::*,
};
use crate::{
    dialect::{op_table, semantics, Trait},
    ir::{ops, LocatedError},
};
use melior::ir::{
    block::BlockArgument, operation::OperationLike, BlockLike, Module, OperationRef, RegionLike,
    Value, ValueLike,
};
use std::collections::{HashMap, HashSet};

/// Alignment of the weight and variable slots (GE aligns every memory block to 512 bytes).
pub const SLOT_ALIGN: u64 = 512;

/// Rounds `n` up to the slot alignment.
pub fn align(n: u64) -> u64 {
    n.div_ceil(SLOT_ALIGN) * SLOT_ALIGN
}

/// Inputs a kernel writes although the op table names them as plain inputs (their write
/// must reach the input's memory): the kernels' contract lists them as extra outputs after
/// the op's own outputs (`ApplyMomentum`: outputs = [var, accum]).
pub fn written_inputs(ge_type: &str) -> &'static [usize] {
    match ge_type {
        "ApplyMomentum" => &[1],
        _ => &[],
    }
}

/// What the lowering does with a node. Asked of the op table's traits, never of the type
/// name, so every GE type a row answers for (its aliases included) lowers like its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Data,
    Const,
    Variable,
    Send,
    Recv,
    SendNotify,
    RecvNotify,
    Copy,
    Memset,
    Hccl,
    StreamActive,
    /// Label and stream-switch nodes already in the graph: the lowering sinks functional
    /// control flow itself and refuses them.
    SinkedControl,
    /// If / Case / While / PartitionedCall.
    Functional,
    /// A task-less alias or a kernel (decided by the table's task count).
    Other,
}

impl Role {
    pub(crate) fn of(ge_type: &str) -> Role {
        let Some(def) = op_table().semantics_for_ge_type(ge_type) else {
            return Role::Other;
        };
        let has = |t: Trait| def.has_trait(t);
        // Order matters: RefData is data-like and var-like, and a graph input.
        let roles = [
            (has(Trait::DataLike), Role::Data),
            (has(Trait::ConstLike), Role::Const),
            (has(Trait::VarLike), Role::Variable),
            (has(Trait::Send), Role::Send),
            (has(Trait::Recv), Role::Recv),
            (has(Trait::SendNotify), Role::SendNotify),
            (has(Trait::RecvNotify), Role::RecvNotify),
            (has(Trait::CopyLike), Role::Copy),
            (has(Trait::AtomicClean), Role::Memset),
            (has(Trait::Hccl), Role::Hccl),
            (has(Trait::StreamActive), Role::StreamActive),
            (
                has(Trait::RtsLabel) || has(Trait::StreamSwitch),
                Role::SinkedControl,
            ),
            (
                has(Trait::Conditional) || has(Trait::WhileFamily) || has(Trait::PartitionedCall),
                Role::Functional,
            ),
        ];
        roles
            .into_iter()
            .find_map(|(yes, role)| yes.then_some(role))
            .unwrap_or(Role::Other)
    }
}

/// Lowers the module's `main` graph (see [`lower_op`]).
pub fn lower_module<'c>(module: &Module<'c>) -> Result<TaskModel, Vec<LocatedError<'c>>> {
    lower_op(module.as_operation(), "main")
}

/// Lowers the compiled module `module` (the `builtin.module`) whose root graph is the
/// function `root` (or the module's only public function when no function has that name).
pub fn lower_op<'c>(
    module: OperationRef<'c, '_>,
    root: &str,
) -> Result<TaskModel, Vec<LocatedError<'c>>> {
    let mut funcs = HashMap::new();
    let mut public = Vec::new();
    if let Some(block) = module.region(0).ok().and_then(|r| r.first_block()) {
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.name().as_string_ref().as_str() != Ok("func.func") {
                continue;
            }
            if let Some(name) = ops::str_attr(op, "sym_name") {
                if ops::str_attr(op, "sym_visibility") != Some("private") {
                    public.push(name.to_string());
                }
                funcs.insert(name.to_string(), op);
            }
        }
    }
    let root_name = if funcs.contains_key(root) {
        root.to_string()
    } else if public.len() == 1 {
        public[0].clone()
    } else {
        return Err(vec![LocatedError::at(
            module,
            format!("lower-to-tasks: no root graph `{root}` in the module"),
        )]);
    };
    let root_func = funcs[&root_name];
    let mut lowering = Lowering::new(funcs, root_func, root_name.clone());
    let event_num = &mut lowering.model.event_num;
    lowering.homes = Homes::build(root_func, &lowering.funcs, stream_id, || {
        *event_num += 1;
        *event_num - 1
    });
    lowering.lower_graph(root_func, None);
    lowering.finish()
}

/// What a subgraph's Data nodes read: the parent node's data inputs, from `first` on (If
/// and Case pass their predicate / branch index to no subgraph).
pub(crate) struct ParentInputs {
    pub operands: Vec<Operand>,
    pub first: usize,
    /// The parent node's stream: where copies into the subgraph's inputs go.
    pub stream: u32,
}

/// The state of one lowering.
pub(crate) struct Lowering<'c, 'a> {
    pub funcs: HashMap<String, OperationRef<'c, 'a>>,
    root: OperationRef<'c, 'a>,
    /// Where each data value's bytes are, by the value's raw handle.
    addrs: HashMap<usize, Operand>,
    pub model: TaskModel,
    pub errors: Vec<LocatedError<'c>>,
    /// Where each stream lives in the tree of graph instances, and how compiled syncs
    /// across instances are routed.
    pub homes: Homes,
    /// The graph instance being lowered (0: the root).
    pub instance: u32,
    /// Values that get fresh workspace bytes when the plan gives them none and they
    /// reference no input (subgraph outputs the plan leaves in the parent's memory).
    own_if_unplanned: HashSet<usize>,
}

/// The stream of `op` (`stream_id`; 0 when it has none, like GE's sources).
fn stream_id(op: OperationRef) -> u32 {
    ops::int_attr(op, "stream_id").unwrap_or(0).max(0) as u32
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

impl<'c, 'a> Lowering<'c, 'a> {
    fn new(
        funcs: HashMap<String, OperationRef<'c, 'a>>,
        root: OperationRef<'c, 'a>,
        name: String,
    ) -> Self {
        let count = |attr| ops::int_attr(root, attr).unwrap_or(0).max(0) as u32;
        let stream_num = count("stream_num").max(1);
        let model = TaskModel {
            name,
            stream_num,
            event_num: count("event_num"),
            notify_num: count("notify_num"),
            label_num: 0,
            memory_size: ops::int_attr(root, "memory_size").unwrap_or(0).max(0) as u64,
            weight_size: 0,
            var_size: 0,
            weights: Vec::new(),
            variables: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            streams: (0..stream_num)
                .map(|id| StreamTasks {
                    id,
                    activated: false,
                    tasks: Vec::new(),
                })
                .collect(),
        };
        Lowering {
            funcs,
            root,
            addrs: HashMap::new(),
            model,
            errors: Vec::new(),
            homes: Homes::default(),
            instance: 0,
            own_if_unplanned: HashSet::new(),
        }
    }

    fn finish(mut self) -> Result<TaskModel, Vec<LocatedError<'c>>> {
        if let Some(first) = self.model.streams.first_mut() {
            first.tasks.push(Task::ModelEndGraph);
        }
        self.model.stream_num = self.model.streams.len() as u32;
        if self.errors.is_empty() {
            Ok(self.model)
        } else {
            Err(self.errors)
        }
    }

    pub fn error(&mut self, op: OperationRef<'c, '_>, message: impl Into<String>) {
        self.errors.push(LocatedError::at(
            op,
            format!("lower-to-tasks: {}", message.into()),
        ));
    }

    /// Appends `task` to stream `stream`'s list.
    pub fn push(&mut self, stream: u32, task: Task) {
        while self.model.streams.len() <= stream as usize {
            let id = self.model.streams.len() as u32;
            self.model.streams.push(StreamTasks {
                id,
                activated: false,
                tasks: Vec::new(),
            });
        }
        self.model.streams[stream as usize].tasks.push(task);
    }

    /// A fresh event id (above the compiled IR's `event_num`, which grows).
    pub fn new_event(&mut self) -> u32 {
        self.model.event_num += 1;
        self.model.event_num - 1
    }

    /// A fresh label id.
    pub fn new_label(&mut self) -> u32 {
        self.model.label_num += 1;
        self.model.label_num - 1
    }

    /// Fresh workspace bytes for a value the lowering adds (a normalised predicate).
    pub fn new_workspace(&mut self, size: u64) -> u64 {
        let offset = align(self.model.memory_size);
        self.model.memory_size = offset + align(size.max(1));
        offset
    }

    /// The address of a data value already lowered.
    pub fn addr_of(&self, value: Value) -> Option<Operand> {
        self.addrs.get(&key(value)).cloned()
    }

    /// Gives `value` (a subgraph output) fresh workspace bytes if its producer's plan
    /// leaves it out and it references no input: GE plans a While body's computed
    /// outputs in the loop variables' memory, which the lowering writes with its own
    /// copies after the body (GE's loop-variable memcpy).
    pub fn own_buffer_if_unplanned(&mut self, value: Value) {
        self.own_if_unplanned.insert(key(value));
    }

    pub fn set_addr(&mut self, value: Value, operand: Operand) {
        self.addrs.insert(key(value), operand);
    }

    /// The operands of `op`'s data inputs, in order.
    pub fn input_operands(&mut self, op: OperationRef<'c, 'a>) -> Option<Vec<Operand>> {
        if let Some(m) = ops::unconnected_message(op) {
            self.error(
                op,
                format!(
                    "{m}: a task's operand list is positional and has no empty entry, so the \
                     kernel would read a later input in its place"
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        for (i, value) in ops::data_operands(op).into_iter().enumerate() {
            match self.addr_of(value) {
                Some(operand) => out.push(operand),
                None => {
                    // A producer that failed has reported its error already.
                    if self.errors.is_empty() {
                        self.error(
                            op,
                            format!("input {i} has no address (its producer was not lowered)"),
                        );
                    }
                    return None;
                }
            }
        }
        Some(out)
    }

    /// The stream of `op` (`stream_id`; 0 when it has none, like GE's sources).
    pub fn stream_of(&self, op: OperationRef) -> u32 {
        stream_id(op)
    }

    /// The workspace operand output `k` of `op` has in the plan, if any.
    pub fn planned_output(
        &mut self,
        op: OperationRef<'c, 'a>,
        k: usize,
        value: Value,
    ) -> Option<Result<Operand, ()>> {
        let offsets = int_list(op, "output_offset").unwrap_or_default();
        let offset = *offsets.get(k)?;
        if offset < 0 {
            return None;
        }
        Some(match desc_of_type(value.r#type()) {
            Ok(desc) => Ok(Operand {
                addr: Addr {
                    region: Region::Workspace,
                    offset: offset as u64,
                },
                size: desc.bytes(),
                desc,
            }),
            Err(e) => {
                self.error(op, format!("output {k}: {e}"));
                Err(())
            }
        })
    }

    /// The operand for output `k` at `addr` of the value's own type.
    fn operand_at(
        &mut self,
        op: OperationRef<'c, 'a>,
        value: Value,
        addr: Addr,
    ) -> Option<Operand> {
        match desc_of_type(value.r#type()) {
            Ok(desc) => Some(Operand {
                addr,
                size: desc.bytes(),
                desc,
            }),
            Err(e) => {
                self.error(op, e);
                None
            }
        }
    }

    /// Lowers one graph in GE order; `parent` is what its Data nodes read (none for the
    /// root).
    pub fn lower_graph(&mut self, func: OperationRef<'c, 'a>, parent: Option<&ParentInputs>) {
        let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
            return;
        };
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            self.lower_node(op, parent);
        }
    }

    pub fn lower_node(&mut self, op: OperationRef<'c, 'a>, parent: Option<&ParentInputs>) {
        let op_name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        if op_name == "func.return" {
            if parent.is_none() {
                self.root_outputs(op);
            }
            return;
        }
        let Some(ge_type) = ops::ge_type(op).map(str::to_string) else {
            self.error(op, format!("`{op_name}` is not a GE node"));
            return;
        };
        let name = ops::node_name(op).unwrap_or("").to_string();
        let stream = self.stream_of(op);
        match Role::of(&ge_type) {
            Role::Data => self.lower_data(op, parent, &name, stream),
            Role::Const => self.lower_const(op, &name),
            Role::Variable => self.lower_variable(op, &name),
            Role::Send => {
                if let Some(event) = self.sync_event(op) {
                    self.push(stream, Task::EventRecord { node: name, event });
                }
            }
            Role::Recv => {
                if let Some(event) = self.sync_event(op) {
                    self.push(
                        stream,
                        Task::EventWait {
                            node: name.clone(),
                            event,
                        },
                    );
                    self.push(stream, Task::EventReset { node: name, event });
                }
            }
            Role::SendNotify | Role::RecvNotify
                if self.homes.fate(self.instance, op) == SyncFate::Crossing =>
            {
                self.error(
                    op,
                    "a notify between two graph instances (a subgraph and its parent, or two \
                     subgraphs) is not lowered: it would fire once per trip of a loop but be \
                     waited once",
                );
            }
            Role::SendNotify => {
                if let Some(notify) = self.notify_id(op) {
                    self.push(stream, Task::NotifyRecord { node: name, notify });
                }
            }
            Role::RecvNotify => {
                if let Some(notify) = self.notify_id(op) {
                    self.push(stream, Task::NotifyWait { node: name, notify });
                }
            }
            Role::Copy => self.lower_copy(op, &name, stream),
            Role::Memset => self.lower_memset(op, &name, stream),
            Role::Hccl => self.lower_hccl(op, &ge_type, &name, stream),
            Role::StreamActive => {
                for target in int_list(op, "active_stream_list").unwrap_or_default() {
                    let target = target.max(0) as u32;
                    self.mark_activated(target);
                    self.push(
                        stream,
                        Task::StreamActive {
                            node: name.clone(),
                            stream: target,
                        },
                    );
                }
            }
            Role::SinkedControl => {
                self.error(
                    op,
                    format!(
                        "`{ge_type}` nodes in the compiled graph are not lowered: the lowering \
                         itself sinks functional control flow to labels"
                    ),
                );
            }
            Role::Functional => control_flow::lower_functional(self, op, &ge_type, &name, stream),
            _ if semantics::task_num(&op) == 0 => self.lower_alias(op, &name, stream),
            _ => self.lower_kernel(op, &ge_type, &name, stream),
        }
    }

    pub fn mark_activated(&mut self, stream: u32) {
        while self.model.streams.len() <= stream as usize {
            let id = self.model.streams.len() as u32;
            self.model.streams.push(StreamTasks {
                id,
                activated: false,
                tasks: Vec::new(),
            });
        }
        self.model.streams[stream as usize].activated = true;
    }

    fn id_attr(&mut self, op: OperationRef<'c, 'a>, attr: &str) -> Option<u32> {
        match ops::int_attr(op, attr).and_then(|v| u32::try_from(v).ok()) {
            Some(id) => Some(id),
            None => {
                self.error(op, format!("no `{attr}`"));
                None
            }
        }
    }

    /// The event a compiled Send/Recv records or waits for here, or `None` when the pair
    /// is routed elsewhere ([`Homes`]) or the op has no id (an error).
    fn sync_event(&mut self, op: OperationRef<'c, 'a>) -> Option<u32> {
        match self.homes.fate(self.instance, op) {
            SyncFate::Keep | SyncFate::Crossing => self.id_attr(op, "event_id"),
            SyncFate::Renamed(event) => Some(event),
            SyncFate::Dropped => None,
        }
    }

    fn notify_id(&mut self, op: OperationRef<'c, 'a>) -> Option<u32> {
        if ops::int_attr(op, "notify_id").is_some() {
            self.id_attr(op, "notify_id")
        } else {
            self.id_attr(op, "event_id")
        }
    }

    fn lower_data(
        &mut self,
        op: OperationRef<'c, 'a>,
        parent: Option<&ParentInputs>,
        name: &str,
        stream: u32,
    ) {
        let Some(value) = ops::data_results(op).into_iter().next() else {
            return;
        };
        let source = match parent {
            None => {
                let index = ops::int_attr(op, "index").unwrap_or(self.model.inputs.len() as i64);
                let Ok(desc) = desc_of_type(value.r#type()) else {
                    self.error(op, "the input has no static shape or no ACL data type");
                    return;
                };
                let index = index.max(0) as u32;
                self.model.inputs.push(Input {
                    index,
                    node: name.to_string(),
                    desc: desc.clone(),
                });
                Operand {
                    addr: Addr {
                        region: Region::Input(index),
                        offset: 0,
                    },
                    size: desc.bytes(),
                    desc,
                }
            }
            Some(parent) => {
                let arg = ops::data_operands(op)
                    .into_iter()
                    .next()
                    .and_then(|v| BlockArgument::try_from(v).ok())
                    .map(|a| a.argument_number());
                let Some(operand) = arg
                    .and_then(|a| parent.operands.get(a + parent.first))
                    .cloned()
                else {
                    self.error(op, "the subgraph input has no parent input");
                    return;
                };
                operand
            }
        };
        // A Data the plan placed elsewhere than what it reads gets the bytes copied there.
        match self.planned_output(op, 0, value) {
            Some(Ok(planned)) if planned.addr != source.addr => {
                // A subgraph's copy runs on its parent's stream, before the subgraph's
                // streams are activated.
                let stream = parent.map_or(stream, |p| p.stream);
                self.push(
                    stream,
                    Task::MemcpyAsync {
                        node: name.to_string(),
                        src: source,
                        dst: planned.clone(),
                    },
                );
                self.set_addr(value, planned);
            }
            Some(Err(())) => {}
            _ => self.set_addr(value, source),
        }
    }

    fn lower_const(&mut self, op: OperationRef<'c, 'a>, name: &str) {
        let Some(value) = ops::data_results(op).into_iter().next() else {
            return;
        };
        let desc = match desc_of_type(value.r#type()) {
            Ok(d) => d,
            Err(e) => return self.error(op, e),
        };
        let bytes = match op
            .attribute("value")
            .map_err(|_| "the Const has no `value`".to_string())
            .and_then(|a| ir_read::dense_bytes(a, &desc))
        {
            Ok(b) => b,
            Err(e) => return self.error(op, e),
        };
        let offset = self.model.weight_size;
        self.model.weight_size = align(offset + desc.bytes());
        self.model.weights.push(Weight {
            node: name.to_string(),
            offset,
            desc: desc.clone(),
            bytes,
        });
        self.set_addr(
            value,
            Operand {
                addr: Addr {
                    region: Region::Weight,
                    offset,
                },
                size: desc.bytes(),
                desc,
            },
        );
    }

    fn lower_variable(&mut self, op: OperationRef<'c, 'a>, name: &str) {
        let Some(value) = ops::data_results(op).into_iter().next() else {
            return;
        };
        let desc = match desc_of_type(value.r#type()) {
            Ok(d) => d,
            Err(e) => return self.error(op, e),
        };
        let init = match op.attribute("value") {
            Ok(a) => match ir_read::dense_bytes(a, &desc) {
                Ok(b) => Some(b),
                Err(e) => return self.error(op, e),
            },
            Err(_) => None,
        };
        let offset = self.model.var_size;
        self.model.var_size = align(offset + desc.bytes());
        self.model.variables.push(Variable {
            node: name.to_string(),
            offset,
            desc: desc.clone(),
            init,
        });
        self.set_addr(
            value,
            Operand {
                addr: Addr {
                    region: Region::Variable,
                    offset,
                },
                size: desc.bytes(),
                desc,
            },
        );
    }

    /// The addresses of `op`'s outputs: the plan's workspace offset, else the memory of the
    /// input the output references (ref outputs, outputs the plan leaves at `-1`).
    pub fn output_operands(
        &mut self,
        op: OperationRef<'c, 'a>,
        inputs: &[Operand],
    ) -> Option<Vec<Operand>> {
        let mut out = Vec::new();
        for (k, value) in ops::data_results(op).into_iter().enumerate() {
            let ref_input = semantics::ref_input_of_output(&op, k);
            let operand = match self.planned_output(op, k, value) {
                Some(Ok(planned)) => planned,
                Some(Err(())) => return None,
                None if ref_input.is_none() && self.own_if_unplanned.contains(&key(value)) => {
                    let desc = match desc_of_type(value.r#type()) {
                        Ok(d) => d,
                        Err(e) => {
                            self.error(op, format!("output {k}: {e}"));
                            return None;
                        }
                    };
                    let offset = self.new_workspace(desc.bytes());
                    Operand {
                        addr: Addr {
                            region: Region::Workspace,
                            offset,
                        },
                        size: desc.bytes(),
                        desc,
                    }
                }
                None => {
                    let Some(input) = ref_input.and_then(|i| inputs.get(i)) else {
                        self.error(
                            op,
                            format!("output {k} has no workspace offset and references no input"),
                        );
                        return None;
                    };
                    let addr = input.addr;
                    self.operand_at(op, value, addr)?
                }
            };
            self.set_addr(value, operand.clone());
            out.push(operand);
        }
        Some(out)
    }

    fn lower_kernel(&mut self, op: OperationRef<'c, 'a>, ge_type: &str, name: &str, stream: u32) {
        let Some(inputs) = self.input_operands(op) else {
            return;
        };
        let Some(mut outputs) = self.output_operands(op, &inputs) else {
            return;
        };
        for &i in written_inputs(ge_type) {
            if let Some(input) = inputs.get(i) {
                outputs.push(input.clone());
            }
        }
        let placement = match crate::rtgraph::lower::kernel_placement(op) {
            Ok(p) => p,
            Err(m) => {
                self.error(op, m);
                return;
            }
        };
        self.push(
            stream,
            Task::Kernel {
                op_type: ge_type.to_string(),
                node: name.to_string(),
                attrs: kernel_attrs(op),
                inputs,
                outputs,
                placement,
            },
        );
    }

    /// Identity / Memcpy: one copy per input-output pair (SubgraphPass's Memcpy nodes copy
    /// several values).
    fn lower_copy(&mut self, op: OperationRef<'c, 'a>, name: &str, stream: u32) {
        let Some(inputs) = self.input_operands(op) else {
            return;
        };
        let Some(outputs) = self.output_operands(op, &inputs) else {
            return;
        };
        for (src, dst) in inputs.into_iter().zip(outputs) {
            self.push(
                stream,
                Task::MemcpyAsync {
                    node: name.to_string(),
                    src,
                    dst,
                },
            );
        }
    }

    /// A node without a task (Reshape, NoOp, phony ops): its outputs are its inputs'
    /// memory. Where the plan gave an output a buffer of its own, a copy moves the bytes
    /// there, so a consumer reads what the producer wrote.
    fn lower_alias(&mut self, op: OperationRef<'c, 'a>, name: &str, stream: u32) {
        let Some(inputs) = self.input_operands(op) else {
            return;
        };
        for (k, value) in ops::data_results(op).into_iter().enumerate() {
            let Some(source) = inputs.get(k.min(inputs.len().saturating_sub(1))).cloned() else {
                self.error(
                    op,
                    format!("output {k} of a node without a task has no input to alias"),
                );
                return;
            };
            let planned = match self.planned_output(op, k, value) {
                Some(Ok(p)) => Some(p),
                Some(Err(())) => return,
                None => None,
            };
            let Some(aliased) = self.operand_at(op, value, source.addr) else {
                return;
            };
            match planned {
                Some(planned) if planned.addr != source.addr => {
                    self.push(
                        stream,
                        Task::MemcpyAsync {
                            node: name.to_string(),
                            src: Operand {
                                addr: source.addr,
                                size: planned.size.min(source.size),
                                desc: planned.desc.clone(),
                            },
                            dst: planned.clone(),
                        },
                    );
                    self.set_addr(value, planned);
                }
                _ => self.set_addr(value, aliased),
            }
        }
    }

    fn lower_memset(&mut self, op: OperationRef<'c, 'a>, name: &str, stream: u32) {
        // The outputs it cleans: the atomic outputs of the nodes it is a control
        // predecessor of, at their planned workspace offsets (the nodes come later in the
        // order, so their offsets are read from the plan, not from lowered values).
        for succ in ops::ctrl_successors(op) {
            let atomic = semantics::atomic_outputs(&succ);
            let results = ops::data_results(succ);
            for k in atomic {
                let Some(value) = results.get(k) else {
                    continue;
                };
                let value = *value;
                // An atomic output outside the workspace (a ref output into a
                // Variable) keeps its value: the clean zeroes feature-map memory only.
                if let Some(Ok(planned)) = self.planned_output(succ, k, value) {
                    self.push(
                        stream,
                        Task::Memset {
                            node: name.to_string(),
                            dst: planned.addr,
                            size: planned.size,
                            value: 0,
                        },
                    );
                }
            }
        }
    }

    fn lower_hccl(&mut self, op: OperationRef<'c, 'a>, ge_type: &str, name: &str, stream: u32) {
        let collective = match ge_type {
            "HcomAllReduce" => Collective::AllReduce,
            "HcomBroadcast" => Collective::Broadcast,
            "HcomAllGather" => Collective::AllGather,
            "HcomReduceScatter" => Collective::ReduceScatter,
            other => {
                return self.error(
                    op,
                    format!("`{other}` is an HCCL op the lowering has no collective task for"),
                );
            }
        };
        let reduction = match ops::str_attr(op, "reduction").unwrap_or("sum") {
            "sum" => Reduction::Sum,
            "prod" => Reduction::Prod,
            "max" => Reduction::Max,
            "min" => Reduction::Min,
            other => {
                return self.error(op, format!("unknown reduction `{other}`"));
            }
        };
        let Some(inputs) = self.input_operands(op) else {
            return;
        };
        let Some(outputs) = self.output_operands(op, &inputs) else {
            return;
        };
        self.push(
            stream,
            Task::Hccl {
                node: name.to_string(),
                collective,
                group: ops::str_attr(op, "group")
                    .unwrap_or("hccl_world_group")
                    .to_string(),
                reduction,
                root_rank: ops::int_attr(op, "root_rank").unwrap_or(0).max(0) as u32,
                inputs,
                outputs,
            },
        );
    }

    fn root_outputs(&mut self, ret: OperationRef<'c, 'a>) {
        for (index, value) in ret.operands().enumerate() {
            let Some(operand) = self.addr_of(value) else {
                if self.errors.is_empty() {
                    self.error(ret, format!("graph output {index} has no address"));
                }
                continue;
            };
            let source = ops::producer(value)
                .op()
                .map(|p| {
                    let k = ops::data_results(p)
                        .iter()
                        .position(|r| *r == value)
                        .unwrap_or(0);
                    format!("{}:{k}", ops::display_name(p))
                })
                .unwrap_or_else(|| format!("arg:{index}"));
            self.model.outputs.push(Output {
                index: index as u32,
                source,
                operand,
            });
        }
        let _ = self.root;
    }
}
