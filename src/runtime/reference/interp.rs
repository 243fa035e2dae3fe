//! One rank's interpreter: runs a graph of the [`Program`] op by op in program order, each
//! value in its own buffer, Variables in slots that keep their value across graphs and
//! iterations.

use super::collective::Comm;
use super::program::{Func, Kind, Op, Program};
use super::ReferenceError;
use crate::lowering::model::TensorDesc;
use crate::runtime::tensor::HostTensor;
use ascend_kernels::{types::element_count, DType, KernelError, TensorMut, TensorRef};
use std::rc::Rc;

/// A value while a graph runs.
#[derive(Clone, Debug)]
enum Val {
    /// A tensor in a buffer of its own (immutable once made, so copies may share it).
    Tensor(Rc<HostTensor>),
    /// A Variable's slot: whoever reads it reads the variable's value at that moment, and a
    /// ref output written through it writes the variable.
    Var(usize),
}

/// The state of one rank across iterations.
pub struct Rank<'p> {
    program: &'p Program,
    rank: u32,
    comm: &'p Comm,
    vars: Vec<HostTensor>,
    opaque_kernels: bool,
    while_limit: u64,
}

impl<'p> Rank<'p> {
    pub fn new(
        program: &'p Program,
        rank: u32,
        comm: &'p Comm,
        vars: Vec<HostTensor>,
        opaque_kernels: bool,
        while_limit: u64,
    ) -> Self {
        Rank {
            program,
            rank,
            comm,
            vars,
            opaque_kernels,
            while_limit,
        }
    }

    /// The variables' values now, by slot.
    pub fn into_variables(self) -> Vec<HostTensor> {
        self.vars
    }

    /// One run of the root graph: the model inputs in index order, the outputs in order.
    pub fn run_root(&mut self, inputs: &[HostTensor]) -> Result<Vec<HostTensor>, ReferenceError> {
        let program = self.program;
        let root = &program.funcs[program.root];
        let mut args: Vec<Option<Val>> = vec![None; root.arg_descs.len()];
        for (decl, tensor) in program.inputs.iter().zip(inputs) {
            args[decl.arg] = Some(Val::Tensor(Rc::new(tensor.clone())));
        }
        let args = args
            .into_iter()
            .enumerate()
            .map(|(i, a)| {
                a.ok_or_else(|| ReferenceError::MissingInput {
                    node: format!("@{}", root.name),
                    message: format!("graph argument {i} is read by no Data node"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let results = self.run_func(program.root, args, &format!("@{}", root.name))?;
        Ok(results.iter().map(|v| self.read(v).clone()).collect())
    }

    fn read<'s>(&'s self, v: &'s Val) -> &'s HostTensor {
        match v {
            Val::Tensor(t) => t,
            Val::Var(i) => &self.vars[*i],
        }
    }

    /// A value in a buffer of its own: a Variable read now.
    fn snapshot(&self, v: &Val) -> Val {
        match v {
            Val::Tensor(_) => v.clone(),
            Val::Var(i) => Val::Tensor(Rc::new(self.vars[*i].clone())),
        }
    }

    /// Runs graph `f` on `args` (the caller `node`'s inputs); its results are snapshots: a
    /// subgraph's outputs get buffers of their own at its boundary, as SubgraphPass's copies
    /// give them on the device.
    fn run_func(
        &mut self,
        f: usize,
        args: Vec<Val>,
        caller: &str,
    ) -> Result<Vec<Val>, ReferenceError> {
        let program = self.program;
        let func = &program.funcs[f];
        self.check_args(func, &args, caller)?;
        let mut env: Vec<Option<Val>> = vec![None; func.value_count];
        for (i, a) in args.into_iter().enumerate() {
            env[i] = Some(a);
        }
        for op in &func.ops {
            self.run_op(op, &mut env)?;
        }
        Ok(func
            .returns
            .iter()
            .map(|&v| self.snapshot(env[v].as_ref().expect("SSA: defined before use")))
            .collect())
    }

    fn run_op(&mut self, op: &Op, env: &mut [Option<Val>]) -> Result<(), ReferenceError> {
        let input = |env: &[Option<Val>], i: usize| -> Val {
            env[op.inputs[i]]
                .clone()
                .expect("SSA: an operand is defined before its use")
        };
        match &op.kind {
            Kind::Alias => env[op.outputs[0]] = Some(input(env, 0)),
            Kind::Const(bytes) => {
                env[op.outputs[0]] = Some(Val::Tensor(Rc::new(HostTensor {
                    desc: op.output_descs[0].clone(),
                    bytes: bytes.clone(),
                })))
            }
            Kind::Variable(slot) => env[op.outputs[0]] = Some(Val::Var(*slot)),
            Kind::Copy => {
                for (i, (&out, desc)) in op.outputs.iter().zip(&op.output_descs).enumerate() {
                    let src = input(env, i);
                    let value = {
                        let t = self.read(&src);
                        check_size(op, &format!("input {i}"), t.bytes.len(), desc)?;
                        match &src {
                            Val::Tensor(rc) if rc.desc == *desc => Val::Tensor(rc.clone()),
                            _ => Val::Tensor(Rc::new(HostTensor {
                                desc: desc.clone(),
                                bytes: t.bytes.clone(),
                            })),
                        }
                    };
                    env[out] = Some(value);
                }
            }
            Kind::Concat => {
                let values: Vec<Val> = (0..op.inputs.len()).map(|i| input(env, i)).collect();
                let parts: Vec<&[u8]> = values
                    .iter()
                    .map(|v| self.read(v).bytes.as_slice())
                    .collect();
                let joined = concat_outputs(op, &parts)?;
                env[op.outputs[0]] = Some(Val::Tensor(Rc::new(joined)));
            }
            Kind::Split => {
                let src = input(env, 0);
                let values = split_outputs(op, &self.read(&src).bytes)?;
                for (&out, v) in op.outputs.iter().zip(values) {
                    env[out] = Some(Val::Tensor(Rc::new(v)));
                }
            }
            Kind::Kernel {
                attrs,
                refs,
                written,
            } => self.run_kernel(op, attrs, refs, written, env)?,
            Kind::Collective {
                collective,
                reduction,
                root_rank,
            } => {
                let inputs: Vec<HostTensor> = (0..op.inputs.len())
                    .map(|i| self.read(&input(env, i)).clone())
                    .collect();
                let outputs = self.comm.exchange(
                    self.rank,
                    op,
                    *collective,
                    *reduction,
                    *root_rank,
                    inputs,
                )?;
                for (&out, t) in op.outputs.iter().zip(outputs) {
                    env[out] = Some(Val::Tensor(Rc::new(t)));
                }
            }
            Kind::If {
                then_branch,
                else_branch,
            } => {
                let pred = predicate(self.read(&input(env, 0)));
                let branch = if pred { *then_branch } else { *else_branch };
                let args = (1..op.inputs.len()).map(|i| input(env, i)).collect();
                let results = self.run_func(branch, args, &op.node)?;
                bind_results(op, env, results, &self.program.funcs[branch])?;
            }
            Kind::Case { branches } => {
                let index = case_index(op, self.read(&input(env, 0)), branches.len())?;
                let branch = branches[index];
                let args = (1..op.inputs.len()).map(|i| input(env, i)).collect();
                let results = self.run_func(branch, args, &op.node)?;
                bind_results(op, env, results, &self.program.funcs[branch])?;
            }
            Kind::While { cond, body } => {
                let mut vars: Vec<Val> = (0..op.inputs.len()).map(|i| input(env, i)).collect();
                let mut iterations = 0u64;
                loop {
                    let c = self.run_func(*cond, vars.clone(), &op.node)?;
                    let Some(first) = c.first() else {
                        return Err(node_error(op, "the cond subgraph returns nothing".into()));
                    };
                    if !predicate(self.read(first)) {
                        break;
                    }
                    iterations += 1;
                    if iterations > self.while_limit {
                        return Err(ReferenceError::WhileBound {
                            node: op.node.clone(),
                            limit: self.while_limit,
                        });
                    }
                    let next = self.run_func(*body, vars, &op.node)?;
                    if next.len() != op.inputs.len() {
                        return Err(node_error(
                            op,
                            format!(
                                "the body returns {} values for {} loop variables",
                                next.len(),
                                op.inputs.len()
                            ),
                        ));
                    }
                    vars = next;
                }
                let vars = vars.iter().map(|v| self.snapshot(v)).collect();
                bind_results(op, env, vars, &self.program.funcs[*body])?;
            }
            Kind::Call { f } => {
                let args = (0..op.inputs.len()).map(|i| input(env, i)).collect();
                let results = self.run_func(*f, args, &op.node)?;
                bind_results(op, env, results, &self.program.funcs[*f])?;
            }
        }
        Ok(())
    }

    fn run_kernel(
        &mut self,
        op: &Op,
        attrs: &ascend_kernels::Attrs,
        refs: &[Option<usize>],
        written: &[usize],
        env: &mut [Option<Val>],
    ) -> Result<(), ReferenceError> {
        let values: Vec<Val> = op
            .inputs
            .iter()
            .map(|&v| env[v].clone().expect("SSA: defined before use"))
            .collect();
        let mut out_descs: Vec<TensorDesc> = op.output_descs.clone();
        for &w in written {
            let Some(v) = values.get(w) else {
                return Err(node_error(
                    op,
                    format!("input {w} (written by the kernel) is missing"),
                ));
            };
            out_descs.push(self.read(v).desc.clone());
        }
        let mut buffers = {
            let inputs: Vec<TensorRef> = values
                .iter()
                .map(|v| {
                    let t = self.read(v);
                    TensorRef {
                        dtype: t.desc.dtype,
                        dims: &t.desc.dims,
                        data: &t.bytes,
                    }
                })
                .collect();
            compute_kernel(op, attrs, &inputs, &out_descs, self.opaque_kernels)?
        };
        let extra = buffers.split_off(op.outputs.len());
        for (o, bytes) in buffers.into_iter().enumerate() {
            let desc = &op.output_descs[o];
            let target = refs
                .get(o)
                .copied()
                .flatten()
                .and_then(|i| match values.get(i) {
                    Some(Val::Var(slot)) => Some(*slot),
                    _ => None,
                });
            let value = match target {
                Some(slot) => {
                    self.write_variable(op, slot, bytes)?;
                    Val::Var(slot)
                }
                None => tensor(desc, bytes),
            };
            env[op.outputs[o]] = Some(value);
        }
        for (&w, bytes) in written.iter().zip(extra) {
            if let Val::Var(slot) = values[w] {
                self.write_variable(op, slot, bytes)?;
            }
        }
        Ok(())
    }

    fn write_variable(
        &mut self,
        op: &Op,
        slot: usize,
        bytes: Vec<u8>,
    ) -> Result<(), ReferenceError> {
        let var = &mut self.vars[slot];
        if var.bytes.len() != bytes.len() {
            return Err(node_error(
                op,
                format!(
                    "writes {} bytes into Variable `{}` of {} bytes",
                    bytes.len(),
                    self.program.variables[slot].name,
                    var.bytes.len()
                ),
            ));
        }
        var.bytes = bytes;
        Ok(())
    }
}

fn tensor(desc: &TensorDesc, bytes: Vec<u8>) -> Val {
    Val::Tensor(Rc::new(HostTensor {
        desc: desc.clone(),
        bytes,
    }))
}

/// PhonyConcat: the inputs' bytes back to back, as the one output.
pub(crate) fn concat_outputs(op: &Op, parts: &[&[u8]]) -> Result<HostTensor, ReferenceError> {
    let bytes = parts.concat();
    let desc = &op.output_descs[0];
    check_size(op, "the joined inputs", bytes.len(), desc)?;
    Ok(HostTensor {
        desc: desc.clone(),
        bytes,
    })
}

/// PhonySplit: consecutive slices of the input, one per output.
pub(crate) fn split_outputs(op: &Op, whole: &[u8]) -> Result<Vec<HostTensor>, ReferenceError> {
    let mut at = 0usize;
    op.output_descs
        .iter()
        .map(|desc| {
            let n = desc.bytes() as usize;
            let part = whole.get(at..at + n).ok_or_else(|| {
                node_error(
                    op,
                    format!(
                        "the outputs need more than the input's {} bytes",
                        whole.len()
                    ),
                )
            })?;
            at += n;
            Ok(HostTensor {
                desc: desc.clone(),
                bytes: part.to_vec(),
            })
        })
        .collect()
}

/// Runs `op`'s kernel (`ascend_kernels::execute`, or `opaque` when there is none and
/// `opaque_kernels` is on) on `inputs` into fresh zeroed buffers of `out_descs`. Shared with
/// the execute-graph executor, so both run a kernel node the same way.
pub(crate) fn compute_kernel(
    op: &Op,
    attrs: &ascend_kernels::Attrs,
    inputs: &[TensorRef],
    out_descs: &[TensorDesc],
    opaque_kernels: bool,
) -> Result<Vec<Vec<u8>>, ReferenceError> {
    let mut buffers: Vec<Vec<u8>> = out_descs
        .iter()
        .map(|d| vec![0u8; d.bytes() as usize])
        .collect();
    let mut outputs: Vec<TensorMut> = out_descs
        .iter()
        .zip(buffers.iter_mut())
        .map(|(d, b)| TensorMut {
            dtype: d.dtype,
            dims: &d.dims,
            data: b,
        })
        .collect();
    match ascend_kernels::execute(&op.ge_type, attrs, inputs, &mut outputs) {
        Ok(()) => {}
        Err(KernelError::NotFound(_)) if opaque_kernels => {
            ascend_kernels::opaque(&op.ge_type, inputs, &mut outputs)
        }
        Err(KernelError::NotFound(_)) => {
            return Err(ReferenceError::NoKernel {
                node: op.node.clone(),
                op_type: op.ge_type.clone(),
            })
        }
        Err(KernelError::Invalid(message)) => {
            return Err(ReferenceError::Kernel {
                node: op.node.clone(),
                op_type: op.ge_type.clone(),
                message,
            })
        }
    }
    drop(outputs);
    Ok(buffers)
}

pub(crate) fn node_error(op: &Op, message: String) -> ReferenceError {
    ReferenceError::Node {
        node: op.node.clone(),
        op_type: op.ge_type.clone(),
        message,
    }
}

pub(crate) fn check_size(
    op: &Op,
    what: &str,
    len: usize,
    desc: &TensorDesc,
) -> Result<(), ReferenceError> {
    if len as u64 == desc.bytes() {
        return Ok(());
    }
    Err(node_error(
        op,
        format!(
            "{what} has {len} bytes, the output {:?} {:?} needs {}",
            desc.dtype,
            desc.dims,
            desc.bytes()
        ),
    ))
}

impl Rank<'_> {
    fn check_args(&self, func: &Func, args: &[Val], caller: &str) -> Result<(), ReferenceError> {
        if args.len() < func.arg_descs.len() {
            return Err(ReferenceError::MissingInput {
                node: caller.to_owned(),
                message: format!(
                    "@{} reads {} arguments, `{caller}` passes {}",
                    func.name,
                    func.arg_descs.len(),
                    args.len()
                ),
            });
        }
        if args.len() > func.arg_descs.len() {
            return Err(ReferenceError::Node {
                node: caller.to_owned(),
                op_type: String::new(),
                message: format!(
                    "passes {} values to @{}, which has {} arguments",
                    args.len(),
                    func.name,
                    func.arg_descs.len()
                ),
            });
        }
        for (i, (a, desc)) in args.iter().zip(&func.arg_descs).enumerate() {
            let t = self.read(a);
            if t.bytes.len() as u64 != desc.bytes() || t.desc.dtype != desc.dtype {
                return Err(ReferenceError::Node {
                    node: caller.to_owned(),
                    op_type: String::new(),
                    message: format!(
                        "argument {i} of @{} is {:?} {:?}, the caller passes {:?} {:?}",
                        func.name, desc.dtype, desc.dims, t.desc.dtype, t.desc.dims
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Binds a subgraph's results to the op's outputs (GE: the subgraph's NetOutput input `i`
/// is the parent's output `i`).
fn bind_results(
    op: &Op,
    env: &mut [Option<Val>],
    results: Vec<Val>,
    func: &Func,
) -> Result<(), ReferenceError> {
    if results.len() < op.outputs.len() {
        return Err(node_error(
            op,
            format!(
                "@{} returns {} values for {} outputs",
                func.name,
                results.len(),
                op.outputs.len()
            ),
        ));
    }
    for ((&out, desc), v) in op.outputs.iter().zip(&op.output_descs).zip(results) {
        if let Val::Tensor(t) = &v {
            check_size(
                op,
                &format!("a result of @{}", func.name),
                t.bytes.len(),
                desc,
            )?;
        }
        env[out] = Some(v);
    }
    Ok(())
}

/// The branch an If (or a While's cond) takes. A scalar (rank 0) is true when nonzero (for
/// floats: not ±0.0, so NaN is true); a tensor of rank ≥ 1 is true when it has elements
/// (GE's CondPass turns a non-scalar cond into "size != 0").
pub fn predicate(t: &HostTensor) -> bool {
    if !t.desc.dims.is_empty() {
        return element_count(&t.desc.dims) > 0;
    }
    let b = &t.bytes;
    match t.desc.dtype {
        DType::F32 => f32::from_le_bytes(b[..4].try_into().unwrap()) != 0.0,
        DType::F64 => f64::from_le_bytes(b[..8].try_into().unwrap()) != 0.0,
        DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f32() != 0.0,
        DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f32() != 0.0,
        _ => b.iter().any(|&x| x != 0),
    }
}

/// A Case's branch: the index scalar, clamped as GE's LabelSwitchByIndex does (an index out
/// of `0..n`, a negative one included, takes the last branch).
pub(crate) fn case_index(op: &Op, t: &HostTensor, n: usize) -> Result<usize, ReferenceError> {
    let b = &t.bytes;
    let index: i128 = match t.desc.dtype {
        DType::I32 => i32::from_le_bytes(b[..4].try_into().unwrap()).into(),
        DType::I64 => i64::from_le_bytes(b[..8].try_into().unwrap()).into(),
        DType::U32 => u32::from_le_bytes(b[..4].try_into().unwrap()).into(),
        DType::U64 => u64::from_le_bytes(b[..8].try_into().unwrap()).into(),
        DType::I8 => (b[0] as i8).into(),
        DType::U8 | DType::Bool => b[0].into(),
        DType::I16 => i16::from_le_bytes([b[0], b[1]]).into(),
        DType::U16 => u16::from_le_bytes([b[0], b[1]]).into(),
        other => {
            return Err(node_error(
                op,
                format!("the branch index is {other:?}, not an integer"),
            ))
        }
    };
    if element_count(&t.desc.dims) != 1 {
        return Err(node_error(
            op,
            format!(
                "the branch index has shape {:?}, not one element",
                t.desc.dims
            ),
        ));
    }
    Ok(if index < 0 || index >= n as i128 {
        n - 1
    } else {
        index as usize
    })
}
