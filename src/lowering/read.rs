//! Reading `ascend_task` MLIR back into a [`TaskModel`]: the exact inverse of `emit.rs`
//! (emit → read gives the same model; a test checks it on every generated family).
//!
//! Every problem is an error at the op it is in (a missing or ill-typed attribute, an
//! unknown op, two models), so hand-written or edited task IR gets `file:line:col`
//! diagnostics.

use super::{
    emit::TASK_OPS,
    ir_read::{attr_value, dense_bytes, parse_tensor_type, tensor_type_text},
    model::*,
};
use crate::ir::{ops, LocatedError};
use melior::ir::{
    attribute::{
        ArrayAttribute, AttributeLike, DenseElementsAttribute, DenseI64ArrayAttribute,
        DictionaryAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
    },
    operation::OperationLike,
    Attribute, BlockLike, Location, Module, OperationRef, RegionLike,
};

/// Reads the task model of `module` (the output of `--lower-to-tasks`).
pub fn read_task_model<'c>(module: &Module<'c>) -> Result<TaskModel, Vec<LocatedError<'c>>> {
    read_op(module.as_operation()).map(|r| r.model)
}

/// A model read from IR with the location of each of its parts, for the verifier.
pub(crate) struct ReadModel<'c> {
    pub model: TaskModel,
    pub model_loc: Location<'c>,
    /// Per stream (by position in `model.streams`): the function's location and each
    /// task's.
    pub stream_locs: Vec<Location<'c>>,
    pub task_locs: Vec<Vec<Location<'c>>>,
    pub output_locs: Vec<Location<'c>>,
    pub weight_locs: Vec<Location<'c>>,
    pub variable_locs: Vec<Location<'c>>,
}

struct Reader<'c> {
    errors: Vec<LocatedError<'c>>,
}

type R<T> = Result<T, ()>;

/// Reads the model from the `builtin.module` op `module`.
pub(crate) fn read_op<'c>(
    module: OperationRef<'c, '_>,
) -> Result<ReadModel<'c>, Vec<LocatedError<'c>>> {
    let mut r = Reader { errors: Vec::new() };
    let mut header: Option<(OperationRef<'c, '_>, TaskModel)> = None;
    let mut weights = Vec::new();
    let mut variables = Vec::new();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut streams: Vec<(StreamTasks, Location<'c>, Vec<Location<'c>>)> = Vec::new();
    let Some(block) = module.region(0).ok().and_then(|reg| reg.first_block()) else {
        return Err(vec![LocatedError::at(
            module,
            "read-tasks: the module has no body",
        )]);
    };
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let done: R<()> = match name.as_str() {
            "ascend_task.model" => r.model(op).and_then(|m| {
                if header.is_some() {
                    r.err(op, "a second `ascend_task.model`")
                } else {
                    header = Some((op, m));
                    Ok(())
                }
            }),
            "ascend_task.weight" => r.weight(op).map(|w| weights.push((w, op.location()))),
            "ascend_task.variable" => r.variable(op).map(|v| variables.push((v, op.location()))),
            "ascend_task.input" => r.input(op).map(|i| inputs.push(i)),
            "ascend_task.output" => r.output(op).map(|o| outputs.push((o, op.location()))),
            "func.func" => r.stream(op).map(|s| streams.push(s)),
            other => r.err(op, &format!("`{other}` is not part of a task model")),
        };
        let _ = done;
    }
    let Some((model_op, mut model)) = header else {
        r.errors.push(LocatedError::at(
            module,
            "read-tasks: no `ascend_task.model` op in the module",
        ));
        return Err(r.errors);
    };
    if !r.errors.is_empty() {
        return Err(r.errors);
    }
    streams.sort_by_key(|(s, _, _)| s.id);
    model.weights = weights.iter().map(|(w, _)| w.clone()).collect();
    model.variables = variables.iter().map(|(v, _)| v.clone()).collect();
    model.inputs = inputs;
    model.outputs = outputs.iter().map(|(o, _)| o.clone()).collect();
    let mut stream_locs = Vec::new();
    let mut task_locs = Vec::new();
    for (s, loc, locs) in streams {
        model.streams.push(s);
        stream_locs.push(loc);
        task_locs.push(locs);
    }
    Ok(ReadModel {
        model,
        model_loc: model_op.location(),
        stream_locs,
        task_locs,
        output_locs: outputs.into_iter().map(|(_, l)| l).collect(),
        weight_locs: weights.into_iter().map(|(_, l)| l).collect(),
        variable_locs: variables.into_iter().map(|(_, l)| l).collect(),
    })
}

impl<'c> Reader<'c> {
    fn err<T>(&mut self, op: OperationRef<'c, '_>, message: &str) -> R<T> {
        self.errors.push(LocatedError::at(
            op,
            format!(
                "read-tasks: {}: {message}",
                op.name().as_string_ref().as_str().unwrap_or("?")
            ),
        ));
        Err(())
    }

    fn attr(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<Attribute<'c>> {
        match op.attribute(name) {
            Ok(a) => Ok(a),
            Err(_) => self.err(op, &format!("missing attribute `{name}`")),
        }
    }

    fn int(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<i64> {
        let a = self.attr(op, name)?;
        match int_of(a) {
            Some(v) => Ok(v),
            None => self.err(op, &format!("`{name}` must be an integer")),
        }
    }

    fn uint(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<u64> {
        let v = self.int(op, name)?;
        u64::try_from(v).or_else(|_| self.err(op, &format!("`{name}` must not be negative")))
    }

    fn u32(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<u32> {
        let v = self.int(op, name)?;
        u32::try_from(v).or_else(|_| self.err(op, &format!("`{name}` must be in 0..2^32")))
    }

    fn string(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<String> {
        let a = self.attr(op, name)?;
        match str_of(a) {
            Some(s) => Ok(s),
            None => self.err(op, &format!("`{name}` must be a string")),
        }
    }

    fn bool(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<bool> {
        match ops::bool_attr(op, name) {
            Some(b) => Ok(b),
            None => self.err(op, &format!("`{name}` must be a bool")),
        }
    }

    fn desc(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<TensorDesc> {
        let a = self.attr(op, name)?;
        match desc_of(a) {
            Some(d) => Ok(d),
            None => self.err(op, &format!("`{name}` must be a static tensor type")),
        }
    }

    /// A tensor's bytes: a dense attribute of its own type (a splat expanded), or an `i8`
    /// tensor of the bytes (see `emit::bytes_attr`).
    fn bytes(&mut self, op: OperationRef<'c, '_>, name: &str, desc: &TensorDesc) -> R<Vec<u8>> {
        let a = self.attr(op, name)?;
        let own_type = a.r#type().to_string() == tensor_type_text(desc);
        let read = if own_type && desc.dtype != DType::Bool {
            dense_bytes(a, desc).ok()
        } else {
            bytes_of(a)
        };
        match read {
            Some(b) => Ok(b),
            None => self.err(
                op,
                &format!("`{name}` must be a dense tensor of the type's bytes or an i8 tensor"),
            ),
        }
    }

    fn operand(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<Operand> {
        let a = self.attr(op, name)?;
        match operand_of(a) {
            Ok(o) => Ok(o),
            Err(why) => self.err(op, &format!("`{name}`: {why}")),
        }
    }

    fn operands(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<Vec<Operand>> {
        let a = self.attr(op, name)?;
        let list = match a
            .is_array()
            .then(|| ArrayAttribute::try_from(a).ok())
            .flatten()
        {
            Some(l) => l,
            None => return self.err(op, &format!("`{name}` must be an array of operands")),
        };
        let mut out = Vec::new();
        for i in 0..list.len() {
            match list
                .element(i)
                .map_err(|_| "missing element".to_string())
                .and_then(operand_of)
            {
                Ok(o) => out.push(o),
                Err(why) => return self.err(op, &format!("`{name}` element {i}: {why}")),
            }
        }
        Ok(out)
    }

    fn model(&mut self, op: OperationRef<'c, '_>) -> R<TaskModel> {
        Ok(TaskModel {
            name: self.string(op, "name")?,
            stream_num: self.u32(op, "stream_num")?,
            event_num: self.u32(op, "event_num")?,
            notify_num: self.u32(op, "notify_num")?,
            label_num: self.u32(op, "label_num")?,
            memory_size: self.uint(op, "memory_size")?,
            weight_size: self.uint(op, "weight_size")?,
            var_size: self.uint(op, "var_size")?,
            weights: Vec::new(),
            variables: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            streams: Vec::new(),
        })
    }

    fn weight(&mut self, op: OperationRef<'c, '_>) -> R<Weight> {
        let desc = self.desc(op, "type")?;
        Ok(Weight {
            node: self.string(op, "node")?,
            offset: self.uint(op, "offset")?,
            bytes: self.bytes(op, "bytes", &desc)?,
            desc,
        })
    }

    fn variable(&mut self, op: OperationRef<'c, '_>) -> R<Variable> {
        let desc = self.desc(op, "type")?;
        Ok(Variable {
            node: self.string(op, "node")?,
            offset: self.uint(op, "offset")?,
            init: if op.has_attribute("init") {
                Some(self.bytes(op, "init", &desc)?)
            } else {
                None
            },
            desc,
        })
    }

    fn input(&mut self, op: OperationRef<'c, '_>) -> R<Input> {
        Ok(Input {
            index: self.u32(op, "index")?,
            node: self.string(op, "node")?,
            desc: self.desc(op, "type")?,
        })
    }

    fn output(&mut self, op: OperationRef<'c, '_>) -> R<Output> {
        Ok(Output {
            index: self.u32(op, "index")?,
            source: self.string(op, "source")?,
            operand: self.operand(op, "addr")?,
        })
    }

    fn stream(
        &mut self,
        func: OperationRef<'c, '_>,
    ) -> R<(StreamTasks, Location<'c>, Vec<Location<'c>>)> {
        let id = self.u32(func, "stream_id")?;
        let activated = self.bool(func, "activated")?;
        let mut tasks = Vec::new();
        let mut locs = Vec::new();
        let mut failed = false;
        if let Some(block) = func.region(0).ok().and_then(|reg| reg.first_block()) {
            let mut next = block.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
                if name == "func.return" {
                    continue;
                }
                match self.task(op, &name) {
                    Ok(t) => {
                        tasks.push(t);
                        locs.push(op.location());
                    }
                    Err(()) => failed = true,
                }
            }
        }
        if failed {
            return Err(());
        }
        Ok((
            StreamTasks {
                id,
                activated,
                tasks,
            },
            func.location(),
            locs,
        ))
    }

    fn task(&mut self, op: OperationRef<'c, '_>, name: &str) -> R<Task> {
        let Some(kind) = name
            .strip_prefix("ascend_task.")
            .filter(|k| TASK_OPS.contains(k))
        else {
            return self.err(op, "not a task op");
        };
        let node = if kind == "model_end_graph" {
            String::new()
        } else {
            self.string(op, "node")?
        };
        Ok(match kind {
            "kernel" => Task::Kernel {
                op_type: self.string(op, "op_type")?,
                node,
                attrs: self.kernel_attrs(op)?,
                inputs: self.operands(op, "ins")?,
                outputs: self.operands(op, "outs")?,
                placement: match ops::str_attr(op, "placement") {
                    None => Placement::Hbm,
                    Some(text) => match Placement::parse(text) {
                        Some(p) => p,
                        None => {
                            return self.err(
                                op,
                                &format!(
                                    "`placement` must be \"host\", \"hbm\" or \"p2p\" (or \
                                     absent), not `{text}`"
                                ),
                            )
                        }
                    },
                },
            },
            "event_record" => Task::EventRecord {
                node,
                event: self.u32(op, "event")?,
            },
            "event_wait" => Task::EventWait {
                node,
                event: self.u32(op, "event")?,
            },
            "event_reset" => Task::EventReset {
                node,
                event: self.u32(op, "event")?,
            },
            "notify_record" => Task::NotifyRecord {
                node,
                notify: self.u32(op, "notify")?,
            },
            "notify_wait" => Task::NotifyWait {
                node,
                notify: self.u32(op, "notify")?,
            },
            "memcpy_async" => Task::MemcpyAsync {
                node,
                src: self.operand(op, "src")?,
                dst: self.operand(op, "dst")?,
            },
            "memset" => {
                let a = self.attr(op, "dst")?;
                let Some((addr, size)) = region_span(a) else {
                    return self.err(op, "`dst` must be [region, offset, size]");
                };
                let value = self.int(op, "value")?;
                let Ok(value) = u8::try_from(value) else {
                    return self.err(op, "`value` must be a byte");
                };
                Task::Memset {
                    node,
                    dst: addr,
                    size,
                    value,
                }
            }
            "hccl" => {
                let collective = match self.string(op, "collective")?.as_str() {
                    "all_reduce" => Collective::AllReduce,
                    "broadcast" => Collective::Broadcast,
                    "all_gather" => Collective::AllGather,
                    "reduce_scatter" => Collective::ReduceScatter,
                    other => return self.err(op, &format!("unknown collective `{other}`")),
                };
                let reduction = match self.string(op, "reduction")?.as_str() {
                    "sum" => Reduction::Sum,
                    "prod" => Reduction::Prod,
                    "max" => Reduction::Max,
                    "min" => Reduction::Min,
                    other => return self.err(op, &format!("unknown reduction `{other}`")),
                };
                Task::Hccl {
                    node,
                    collective,
                    group: self.string(op, "group")?,
                    reduction,
                    root_rank: self.u32(op, "root_rank")?,
                    inputs: self.operands(op, "ins")?,
                    outputs: self.operands(op, "outs")?,
                }
            }
            "stream_active" => Task::StreamActive {
                node,
                stream: self.u32(op, "stream")?,
            },
            "stream_switch" => {
                let cond = self.int(op, "cond")?;
                let Ok(cond) = i32::try_from(cond) else {
                    return self.err(op, "`cond` must be an aclrtCondition");
                };
                Task::StreamSwitch {
                    node,
                    value: self.operand(op, "value")?,
                    cond,
                    target: self.operand(op, "target")?,
                    true_stream: self.u32(op, "true_stream")?,
                }
            }
            "label_set" => Task::LabelSet {
                node,
                label: self.u32(op, "label")?,
            },
            "label_goto" => Task::LabelGoto {
                node,
                label: self.u32(op, "label")?,
            },
            "label_switch_by_index" => {
                let a = self.attr(op, "labels")?;
                let labels = a
                    .is_dense_i64_array()
                    .then(|| DenseI64ArrayAttribute::try_from(a).ok())
                    .flatten()
                    .and_then(|l| {
                        (0..l.len())
                            .map(|i| l.element(i).ok().and_then(|v| u32::try_from(v).ok()))
                            .collect::<Option<Vec<u32>>>()
                    });
                let Some(labels) = labels else {
                    return self.err(op, "`labels` must be an array<i64> of label ids");
                };
                Task::LabelSwitchByIndex {
                    node,
                    index: self.operand(op, "index")?,
                    labels,
                }
            }
            _ => Task::ModelEndGraph,
        })
    }

    fn kernel_attrs(&mut self, op: OperationRef<'c, '_>) -> R<Attrs> {
        let a = self.attr(op, "attrs")?;
        let Some(dict) = a
            .is_dictionary()
            .then(|| DictionaryAttribute::try_from(a).ok())
            .flatten()
        else {
            return self.err(op, "`attrs` must be a dictionary");
        };
        let mut attrs = Attrs::default();
        for i in 0..dict.len() {
            let Ok((name, value)) = dict.element(i) else {
                continue;
            };
            let name = name.as_string_ref().as_str().unwrap_or("").to_string();
            match attr_value(value) {
                Some(v) => attrs.0.push((name, v)),
                None => {
                    return self.err(
                        op,
                        &format!("kernel attribute `{name}` has no aclopAttr form"),
                    )
                }
            }
        }
        Ok(attrs)
    }
}

fn int_of(a: Attribute) -> Option<i64> {
    a.is_integer()
        .then(|| IntegerAttribute::try_from(a).ok().map(|i| i.value()))
        .flatten()
}

fn str_of(a: Attribute) -> Option<String> {
    a.is_string()
        .then(|| {
            StringAttribute::try_from(a)
                .ok()
                .and_then(ops::string_value)
                .map(str::to_string)
        })
        .flatten()
}

fn desc_of(a: Attribute) -> Option<TensorDesc> {
    let t = a
        .is_type()
        .then(|| TypeAttribute::try_from(a).ok())
        .flatten()?;
    parse_tensor_type(&t.value().to_string())
}

fn bytes_of(a: Attribute) -> Option<Vec<u8>> {
    if !a.is_dense_elements() {
        return None;
    }
    let ty = a.r#type().to_string();
    let n: usize = ty
        .strip_prefix("tensor<")?
        .strip_suffix("xi8>")?
        .parse()
        .ok()?;
    let d = DenseElementsAttribute::try_from(a).ok()?;
    (0..n)
        .map(|i| d.i8_element(i).ok().map(|b| b as u8))
        .collect()
}

/// A region spelling (`ws`, `weight`, `var`, `input:K`, `output:K`).
pub fn parse_region(s: &str) -> Option<Region> {
    Some(match s {
        "ws" => Region::Workspace,
        "weight" => Region::Weight,
        "var" => Region::Variable,
        _ => {
            if let Some(k) = s.strip_prefix("input:") {
                Region::Input(k.parse().ok()?)
            } else {
                Region::Output(s.strip_prefix("output:")?.parse().ok()?)
            }
        }
    })
}

fn elements(a: Attribute) -> Option<Vec<Attribute>> {
    let list = a
        .is_array()
        .then(|| ArrayAttribute::try_from(a).ok())
        .flatten()?;
    (0..list.len()).map(|i| list.element(i).ok()).collect()
}

/// `[region, offset, size]`.
fn region_span(a: Attribute) -> Option<(Addr, u64)> {
    let e = elements(a)?;
    if e.len() != 3 {
        return None;
    }
    let region = parse_region(&str_of(e[0])?)?;
    let offset = u64::try_from(int_of(e[1])?).ok()?;
    let size = u64::try_from(int_of(e[2])?).ok()?;
    Some((Addr { region, offset }, size))
}

/// `[region, offset, size, type]` or `[region, offset, size, type, format]`.
fn operand_of(a: Attribute) -> Result<Operand, String> {
    let e = elements(a).ok_or("an operand must be [region, offset, size, type]")?;
    if e.len() != 4 && e.len() != 5 {
        return Err("an operand must be [region, offset, size, type]".into());
    }
    let region = str_of(e[0])
        .and_then(|s| parse_region(&s))
        .ok_or("the region must be \"ws\", \"weight\", \"var\", \"input:K\" or \"output:K\"")?;
    let offset = int_of(e[1])
        .and_then(|v| u64::try_from(v).ok())
        .ok_or("the offset must be a non-negative integer")?;
    let size = int_of(e[2])
        .and_then(|v| u64::try_from(v).ok())
        .ok_or("the size must be a non-negative integer")?;
    let mut desc = desc_of(e[3]).ok_or("the type must be a static tensor type")?;
    if e.len() == 5 {
        desc.format = int_of(e[4])
            .and_then(|v| i32::try_from(v).ok())
            .ok_or("the format must be an aclFormat number")?;
    }
    Ok(Operand {
        addr: Addr { region, offset },
        size,
        desc,
    })
}
