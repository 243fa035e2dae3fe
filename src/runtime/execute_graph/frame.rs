//! The frame interpreter: one graph's nodes in a schedule over gert's dependencies
//! ([`super::schedule`]), each guarder releasing when it runs.

use super::buffers::{BufId, Buffers, Owner};
use super::schedule::{dependencies, is_view, Ready, Schedule};
use super::{ExecError, ExecuteGraphRun, ExecuteGraphStats, Fault};
use crate::rtgraph::analysis::placement::{needed_at, CopyKind, SYNC_STREAM};
use crate::rtgraph::lower::ENSURE_AT_OUT_MEMORY;
use crate::rtgraph::model::{Endpoint, Kind as RtKind, Module as RtModule, Node, Placement};
use crate::runtime::reference::collective::Comm;
use crate::runtime::reference::interp::{
    case_index, check_size, compute_kernel, concat_outputs, predicate, split_outputs,
};
use crate::runtime::reference::program::{Kind as OpKind, Op, Program};
use crate::runtime::tensor::HostTensor;
use ascend_kernels::TensorRef;
use std::collections::HashMap;

/// Frames nest no deeper than this (a branch frame that runs itself would never end).
const MAX_FRAME_DEPTH: usize = 256;

pub struct Executor<'p> {
    program: &'p Program,
    rt: &'p RtModule,
    inputs: Vec<HostTensor>,
    opaque_kernels: bool,
    buffers: Buffers,
    stats: ExecuteGraphStats,
    /// Per program function, its ops by node name.
    ops: HashMap<&'p str, HashMap<&'p str, &'p Op>>,
    outputs: Vec<HostTensor>,
    depth: usize,
    schedule: Schedule,
    /// Per Variable slot of the program, its value until its buffer is made.
    variables: Vec<HostTensor>,
    /// Per Variable slot, its model buffer once a node read it (kept across iterations).
    variable_buffers: Vec<Option<BufId>>,
    /// The Variable slot a buffer holds.
    variable_of: HashMap<BufId, usize>,
    /// The world of one rank the collectives run in (the reference's rendezvous, which
    /// completes at once with a single rank).
    comm: Comm,
}

/// Where an error is.
struct At<'a> {
    graph: &'a str,
    node: &'a Node,
}

impl At<'_> {
    fn fault(&self, fault: Fault) -> ExecError {
        ExecError {
            graph: self.graph.to_owned(),
            node: label(self.node),
            fault: Box::new(fault),
        }
    }

    fn malformed(&self, message: String) -> ExecError {
        self.fault(Fault::Malformed(message))
    }
}

/// `` `name` `` for a named node, else what it is and its number (guarders, outputs).
fn label(node: &Node) -> String {
    match &node.kind {
        _ if !node.name.is_empty() => format!("`{}`", node.name),
        RtKind::Guarder { guarder_type, .. } => {
            format!("the {guarder_type} guarder #{}", node.id.0)
        }
        kind => format!("{} #{}", kind.op_name(), node.id.0),
    }
}

fn output(node: &Node, k: u32) -> Endpoint {
    Endpoint {
        node: node.id,
        output: k,
    }
}

/// The ops of function `f` by node name, then those of the functions its PartitionedCalls
/// call (the lowering inlines them into `f`'s graph, names kept and unique there).
fn ops_by_name<'p>(
    program: &'p Program,
    f: usize,
    into: &mut HashMap<&'p str, &'p Op>,
    depth: usize,
) {
    let func = &program.funcs[f];
    for op in &func.ops {
        into.entry(op.node.as_str()).or_insert(op);
    }
    if depth < MAX_FRAME_DEPTH {
        for op in &func.ops {
            if let OpKind::Call { f: callee } = op.kind {
                ops_by_name(program, callee, into, depth + 1);
            }
        }
    }
}

impl<'p> Executor<'p> {
    pub fn new(
        program: &'p Program,
        rt: &'p RtModule,
        inputs: Vec<HostTensor>,
        opaque_kernels: bool,
        schedule: Schedule,
        variables: Vec<HostTensor>,
    ) -> Self {
        let ops = (0..program.funcs.len())
            .map(|f| {
                let mut by_name = HashMap::new();
                ops_by_name(program, f, &mut by_name, 0);
                (program.funcs[f].name.as_str(), by_name)
            })
            .collect();
        Executor {
            program,
            rt,
            inputs,
            opaque_kernels,
            buffers: Buffers::default(),
            stats: ExecuteGraphStats::default(),
            ops,
            outputs: Vec::new(),
            depth: 0,
            schedule,
            variable_buffers: vec![None; variables.len()],
            variables,
            variable_of: HashMap::new(),
            comm: Comm::new(1),
        }
    }

    /// Runs the root graph `root` (or the execute graph's only root) `iterations` times,
    /// the Variables keeping their values from one to the next, and checks after each that
    /// every buffer was released.
    pub fn run(mut self, root: &str, iterations: u32) -> Result<ExecuteGraphRun, ExecError> {
        let rt = self.rt;
        let index = rt
            .graph_index(root)
            .or_else(|| rt.graphs.iter().position(|g| g.root))
            .ok_or_else(|| ExecError {
                graph: root.to_owned(),
                node: "the module".to_owned(),
                fault: Box::new(Fault::Malformed(format!(
                    "the execute graph has no root graph `{root}`"
                ))),
            })?;
        for _ in 0..iterations.max(1) {
            self.run_graph(index, &[])?;
            let leaks = self.buffers.leaks();
            if !leaks.is_empty() {
                return Err(ExecError {
                    graph: rt.graphs[index].name.clone(),
                    node: "the end of the run".to_owned(),
                    fault: Box::new(Fault::Leak(leaks)),
                });
            }
        }
        let b = &self.buffers;
        self.stats.allocations = b.allocations;
        self.stats.releases = b.releases;
        self.stats.plus_refs = b.plus_refs;
        self.stats.peak_bytes = b.peak_bytes;
        Ok(ExecuteGraphRun {
            outputs: self.outputs,
            stats: self.stats,
        })
    }

    /// Runs graph `index` with `args` as its `inner_data` (index k = args[k]); returns its
    /// (inner) netoutput's inputs. Nodes run when their dependencies ran ([`dependencies`]),
    /// in the schedule's order; a guarder releases when it runs.
    fn run_graph(&mut self, index: usize, args: &[BufId]) -> Result<Vec<BufId>, ExecError> {
        let rt = self.rt;
        let graph = &rt.graphs[index];
        let order = dependencies(graph).map_err(|(node, message)| {
            At {
                graph: &graph.name,
                node: &graph.nodes[node],
            }
            .malformed(message)
        })?;
        let mut ready = Ready::new(&order, &self.schedule);
        let mut env: HashMap<Endpoint, BufId> = HashMap::new();
        let mut result = None;
        while let Some(position) = ready.take(&mut self.schedule) {
            let node = &graph.nodes[position];
            let at = At {
                graph: &graph.name,
                node,
            };
            let ins = node
                .inputs
                .iter()
                .map(|e| {
                    env.get(e).copied().ok_or_else(|| {
                        at.malformed(format!(
                            "reads output {} of node #{}, which has no such output",
                            e.output, e.node.0
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            // A guarder checks its own input (release); an inner netoutput only hands its
            // inputs to the parent, where the reads that matter are checked.
            if !matches!(node.kind, RtKind::Guarder { .. } | RtKind::InnerNetOutput) {
                self.check_reads(&at, &ins)?;
            }
            match &node.kind {
                RtKind::Data { .. } => {
                    let tensor = self.model_input(&at)?;
                    let b = self.add(&at, tensor, Owner::Model);
                    env.insert(output(node, 0), b);
                }
                RtKind::Const => {
                    let op = self.op(&at)?;
                    let b = match &op.kind {
                        OpKind::Const(bytes) => {
                            let tensor = HostTensor {
                                desc: op.output_descs[0].clone(),
                                bytes: bytes.clone(),
                            };
                            self.add(&at, tensor, Owner::Model)
                        }
                        OpKind::Variable(slot) => self.variable_buffer(&at, *slot)?,
                        _ => {
                            return Err(at.malformed(format!(
                                "is a const, but `{}` is a {} in the ascend module",
                                op.node, op.ge_type
                            )))
                        }
                    };
                    env.insert(output(node, 0), b);
                }
                RtKind::InnerData { index, .. } => {
                    let b = usize::try_from(*index)
                        .ok()
                        .and_then(|i| args.get(i))
                        .ok_or_else(|| {
                            at.malformed(format!(
                                "stands for input {index} of a frame given {}",
                                args.len()
                            ))
                        })?;
                    env.insert(output(node, 0), *b);
                }
                RtKind::Kernel { op_type } => {
                    for (k, b) in self.run_kernel(&at, op_type, &ins)?.into_iter().enumerate() {
                        env.insert(output(node, k as u32), b);
                    }
                }
                RtKind::Guarder { release_index, .. } => {
                    let b = usize::try_from(*release_index)
                        .ok()
                        .and_then(|i| ins.get(i))
                        .ok_or_else(|| {
                            at.malformed(format!("releases input {release_index} of {}", ins.len()))
                        })?;
                    let by = format!("{} (@{})", label(node), graph.name);
                    self.buffers
                        .release(*b, &by)
                        .map_err(|l| at.fault(Fault::Lifetime(l)))?;
                }
                RtKind::Cond { branches, .. } => {
                    let outs = self.run_cond(&at, branches, &ins)?;
                    for (k, b) in outs.into_iter().enumerate() {
                        env.insert(output(node, k as u32), b);
                    }
                }
                RtKind::InnerNetOutput | RtKind::NetOutput => {
                    if graph.root {
                        self.outputs = ins
                            .iter()
                            .map(|&b| self.buffers.get(b).tensor.clone())
                            .collect();
                    }
                    result = Some(ins);
                }
                RtKind::PointFromInputs => {
                    for (k, b) in ins.into_iter().enumerate() {
                        env.insert(output(node, k as u32), b);
                    }
                }
                RtKind::IdentityAddr => {
                    for (k, b) in ins.into_iter().enumerate() {
                        self.buffers.add_ref(b);
                        env.insert(output(node, k as u32), b);
                    }
                }
            }
            ready.ran(position);
        }
        if let Some(stuck) = ready.stuck() {
            return Err(At {
                graph: &graph.name,
                node: &graph.nodes[stuck],
            }
            .malformed("never runs: its dependencies form a cycle".to_owned()));
        }
        result.ok_or_else(|| ExecError {
            graph: graph.name.clone(),
            node: "the end of the frame".to_owned(),
            fault: Box::new(Fault::Malformed("the graph has no netoutput".to_owned())),
        })
    }

    /// Every input still held, and where the node needs it.
    fn check_reads(&self, at: &At, ins: &[BufId]) -> Result<(), ExecError> {
        for (k, &b) in ins.iter().enumerate() {
            self.buffers
                .check_live(b)
                .map_err(|l| at.fault(Fault::Lifetime(l)))?;
            let found = self.buffers.get(b).placement;
            if let Some(needed) = needed_at(at.node, k) {
                if found != needed {
                    return Err(at.fault(Fault::Placement {
                        input: k,
                        needed,
                        found,
                        made_by: self.buffers.get(b).made_by.clone(),
                    }));
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, at: &At, tensor: HostTensor, owner: Owner) -> BufId {
        let placement = at.node.placement.unwrap_or(Placement::Hbm);
        let made_by = format!("{} (@{})", label(at.node), at.graph);
        self.buffers.add(tensor, placement, owner, made_by)
    }

    /// The op the node was lowered from, by node name in the function of its graph.
    fn op(&self, at: &At) -> Result<&'p Op, ExecError> {
        self.ops
            .get(at.graph)
            .and_then(|ops| ops.get(at.node.name.as_str()).copied())
            .ok_or_else(|| {
                at.malformed(format!(
                    "no op `{}` in @{} of the ascend module",
                    at.node.name, at.graph
                ))
            })
    }

    fn model_input(&self, at: &At) -> Result<HostTensor, ExecError> {
        self.program
            .inputs
            .iter()
            .zip(&self.inputs)
            .find(|(decl, _)| decl.node == at.node.name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| at.malformed(format!("no model input `{}`", at.node.name)))
    }

    /// A kernel node: a placement copy, a SyncStream, or the op of the ascend module.
    fn run_kernel(
        &mut self,
        at: &At,
        op_type: &str,
        ins: &[BufId],
    ) -> Result<Vec<BufId>, ExecError> {
        self.stats.kernels += 1;
        if op_type == SYNC_STREAM {
            self.stats.syncs += 1;
            for &b in ins {
                self.buffers.mark_synced(b);
            }
            return Ok(Vec::new());
        }
        if let Some(kind) = CopyKind::of_kernel(op_type) {
            return self.run_copy(at, kind, ins).map(|b| vec![b]);
        }
        if op_type == ENSURE_AT_OUT_MEMORY {
            // The copy into the caller's output tensor: the caller's memory, never freed here.
            let [src] = ins else {
                return Err(at.malformed(format!("{op_type} with {} inputs", ins.len())));
            };
            let tensor = self.buffers.get(*src).tensor.clone();
            return Ok(vec![self.add(at, tensor, Owner::Model)]);
        }
        let Some(op) = self
            .ops
            .get(at.graph)
            .and_then(|o| o.get(at.node.name.as_str()))
        else {
            if at.node.outputs == 0 {
                // Send, Recv, labels, StreamActive: ordering only, dropped by the reference.
                self.stats.kernels -= 1;
                self.stats.no_value += 1;
                return Ok(Vec::new());
            }
            return Err(at.malformed(format!(
                "no op `{}` in @{} of the ascend module",
                at.node.name, at.graph
            )));
        };
        if op.inputs.len() != ins.len() || op.outputs.len() != at.node.outputs as usize {
            return Err(at.malformed(format!(
                "has {} inputs and {} outputs, `{}` in the ascend module {} and {}",
                ins.len(),
                at.node.outputs,
                op.node,
                op.inputs.len(),
                op.outputs.len()
            )));
        }
        let owner = if is_view(&op.ge_type) {
            Owner::View(ins.to_vec())
        } else {
            Owner::Counted
        };
        let (refs, written): (&[Option<usize>], &[usize]) = match &op.kind {
            OpKind::Kernel { refs, written, .. } => (refs, written),
            _ => (&[], &[]),
        };
        let mut tensors = self.compute(at, op, ins)?;
        // ApplyMomentum's `accum` and friends: written into the input's Variable.
        let extra = tensors.split_off(op.output_descs.len());
        for (&w, t) in written.iter().zip(extra) {
            if let Some(&b) = ins.get(w) {
                self.write_variable(at, b, t)?;
            }
        }
        let mut outs = Vec::with_capacity(tensors.len());
        for (o, t) in tensors.into_iter().enumerate() {
            // A ref output on a Variable is the Variable (GE's ref rule): written in place.
            let target = refs
                .get(o)
                .copied()
                .flatten()
                .and_then(|i| ins.get(i).copied())
                .filter(|b| self.variable_of.contains_key(b));
            let b = match target {
                Some(b) => {
                    self.write_variable(at, b, t)?;
                    b
                }
                None => self.add(at, t, owner.clone()),
            };
            outs.push(b);
        }
        Ok(outs)
    }

    /// The model buffer of Variable `slot`, made from its value the first time.
    fn variable_buffer(&mut self, at: &At, slot: usize) -> Result<BufId, ExecError> {
        if let Some(b) = self.variable_buffers.get(slot).copied().flatten() {
            return Ok(b);
        }
        let tensor = self.variables.get(slot).cloned().ok_or_else(|| {
            at.malformed(format!(
                "reads Variable slot {slot}, which the module does not have"
            ))
        })?;
        let b = self.add(at, tensor, Owner::Model);
        self.variable_buffers[slot] = Some(b);
        self.variable_of.insert(b, slot);
        Ok(b)
    }

    /// Writes `tensor` into buffer `b` when it holds a Variable (a write to another input
    /// is the kernel's output only, as the reference runs it).
    fn write_variable(&mut self, at: &At, b: BufId, tensor: HostTensor) -> Result<(), ExecError> {
        let Some(&slot) = self.variable_of.get(&b) else {
            return Ok(());
        };
        let held = self.buffers.get(b).tensor.bytes.len();
        if held != tensor.bytes.len() {
            return Err(at.malformed(format!(
                "writes {} bytes into Variable `{}` of {held} bytes",
                tensor.bytes.len(),
                self.program.variables[slot].name
            )));
        }
        self.buffers.write_model(b, tensor.bytes);
        Ok(())
    }

    /// The op's output tensors, as the reference computes them.
    fn compute(&self, at: &At, op: &Op, ins: &[BufId]) -> Result<Vec<HostTensor>, ExecError> {
        let input = |k: usize| &self.buffers.get(ins[k]).tensor;
        let reference = |e| at.fault(Fault::Reference(e));
        let with = |desc: &crate::lowering::model::TensorDesc, bytes: Vec<u8>| HostTensor {
            desc: desc.clone(),
            bytes,
        };
        match &op.kind {
            OpKind::Alias | OpKind::Copy => op
                .output_descs
                .iter()
                .enumerate()
                .map(|(i, desc)| {
                    let t = input(i);
                    check_size(op, &format!("input {i}"), t.bytes.len(), desc)
                        .map_err(reference)?;
                    Ok(with(desc, t.bytes.clone()))
                })
                .collect(),
            OpKind::Concat => {
                let parts: Vec<&[u8]> = (0..ins.len()).map(|k| input(k).bytes.as_slice()).collect();
                Ok(vec![concat_outputs(op, &parts).map_err(reference)?])
            }
            OpKind::Split => split_outputs(op, &input(0).bytes).map_err(reference),
            OpKind::Kernel { attrs, written, .. } => {
                // Inputs the kernel also writes come back as extra outputs, after its own.
                let mut out_descs = op.output_descs.clone();
                for &w in written {
                    let t = ins
                        .get(w)
                        .map(|&b| &self.buffers.get(b).tensor)
                        .ok_or_else(|| {
                            at.malformed(format!("input {w} (written by the kernel) is missing"))
                        })?;
                    out_descs.push(t.desc.clone());
                }
                let refs: Vec<TensorRef> = (0..ins.len())
                    .map(|k| {
                        let t = input(k);
                        TensorRef {
                            dtype: t.desc.dtype,
                            dims: &t.desc.dims,
                            data: &t.bytes,
                        }
                    })
                    .collect();
                let buffers = compute_kernel(op, attrs, &refs, &out_descs, self.opaque_kernels)
                    .map_err(reference)?;
                Ok(out_descs
                    .iter()
                    .zip(buffers)
                    .map(|(d, b)| with(d, b))
                    .collect())
            }
            OpKind::Const(_) | OpKind::Variable(_) => Err(at.malformed(format!(
                "is a kernel, but `{}` is a {} in the ascend module",
                op.node, op.ge_type
            ))),
            OpKind::Collective {
                collective,
                reduction,
                root_rank,
            } => {
                let inputs = (0..ins.len()).map(|k| input(k).clone()).collect();
                self.comm
                    .exchange(0, op, *collective, *reduction, *root_rank, inputs)
                    .map_err(reference)
            }
            OpKind::While { .. }
            | OpKind::Call { .. }
            | OpKind::If { .. }
            | OpKind::Case { .. } => Err(at.fault(Fault::Unsupported(format!(
                "{} runs subgraphs, which the execute graph keeps as one kernel without \
                 frames; not run here",
                op.ge_type
            )))),
        }
    }

    /// CopyH2D (host → device), CopyD2H (device → host, after a SyncStream),
    /// MakeSureTensorAtDevice (hbm ↔ p2p): a counted copy at the node's placement.
    fn run_copy(&mut self, at: &At, kind: CopyKind, ins: &[BufId]) -> Result<BufId, ExecError> {
        let [src] = ins else {
            return Err(at.malformed(format!("{} with {} inputs", kind.kernel(), ins.len())));
        };
        let source = self.buffers.get(*src);
        let from_host = source.placement == Placement::Host;
        if from_host != (kind == CopyKind::HostToDevice) {
            return Err(at.malformed(format!(
                "{} reads the output of {}, which is on {}",
                kind.kernel(),
                source.made_by,
                source.placement
            )));
        }
        if kind.needs_sync_stream() && !source.synced {
            return Err(at.fault(Fault::Unsynced {
                made_by: source.made_by.clone(),
            }));
        }
        let tensor = source.tensor.clone();
        self.stats.copies += 1;
        Ok(self.add(at, tensor, Owner::Counted))
    }

    /// If / Case: the predicate (read on the host) picks the branch frame, which runs on
    /// the cond's inputs 1..; its netoutput's inputs are the cond's outputs.
    fn run_cond(
        &mut self,
        at: &At,
        branches: &[String],
        ins: &[BufId],
    ) -> Result<Vec<BufId>, ExecError> {
        let op = self.op(at)?;
        let Some(&pred) = ins.first() else {
            return Err(at.malformed("a cond without a predicate".to_owned()));
        };
        let pred = &self.buffers.get(pred).tensor;
        let func = match &op.kind {
            OpKind::If {
                then_branch,
                else_branch,
            } => {
                if predicate(pred) {
                    *then_branch
                } else {
                    *else_branch
                }
            }
            OpKind::Case { branches } => {
                let k = case_index(op, pred, branches.len())
                    .map_err(|e| at.fault(Fault::Reference(e)))?;
                branches[k]
            }
            _ => {
                return Err(at.malformed(format!(
                    "is a cond, but `{}` is a {} in the ascend module",
                    op.node, op.ge_type
                )))
            }
        };
        let name = &self.program.funcs[func].name;
        let graph = self
            .rt
            .graph_index(name)
            .filter(|_| branches.contains(name))
            .ok_or_else(|| {
                at.malformed(format!(
                    "takes branch @{name}, which is not one of its frames"
                ))
            })?;
        if self.depth >= MAX_FRAME_DEPTH {
            return Err(at.malformed(format!(
                "frames nest deeper than {MAX_FRAME_DEPTH} (a branch that runs itself?)"
            )));
        }
        self.stats.conds += 1;
        self.stats.branches_taken.push(name.clone());
        self.depth += 1;
        let outs = self.run_graph(graph, &ins[1..]);
        self.depth -= 1;
        let outs = outs?;
        if outs.len() < at.node.outputs as usize {
            return Err(at.malformed(format!(
                "has {} outputs, branch @{name} returns {}",
                at.node.outputs,
                outs.len()
            )));
        }
        Ok(outs)
    }
}
