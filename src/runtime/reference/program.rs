//! The module read once into plain Rust: every graph's ops in program order, each operand
//! and result a number, each op's meaning decided from the op table's semantics queries.
//!
//! Reading MLIR once up front keeps the interpreter free of MLIR handles, so the ranks of
//! a multi-rank run can interpret the same program from their own threads (melior's
//! handles are neither `Send` nor `Sync`), and an unsupported construct is reported before
//! anything runs.

use super::attrs::dense_bytes;
use super::ReferenceError;
use crate::dialect::op_view::is_ctrl_type;
use crate::dialect::semantics;
use crate::dialect::{OpView, Trait};
use crate::lowering::ir_read::kernel_attrs;
use crate::lowering::model::{Collective, Reduction, TensorDesc};
use ascend_kernels::{Attrs, DType};
use melior::ir::{
    attribute::{IntegerAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike, TypeLike},
    BlockRef, Module, OperationRef, RegionLike, Type, Value, ValueLike,
};
use std::collections::{BTreeMap, HashMap};

/// A value of one graph: its block arguments first, then op results in program order.
pub type ValueId = usize;

/// The whole module.
#[derive(Debug)]
pub struct Program {
    pub funcs: Vec<Func>,
    /// The root graph's index in `funcs`.
    pub root: usize,
    /// Every Variable of the module by node name (one slot per name, shared by every graph).
    pub variables: Vec<VariableDecl>,
    /// The model inputs in index order: the root graph's Data nodes.
    pub inputs: Vec<InputDecl>,
}

#[derive(Debug)]
pub struct VariableDecl {
    pub name: String,
    pub desc: TensorDesc,
    /// The Variable's `value` attribute, when it has one (the lowering's
    /// `Variable::init`); otherwise it starts seeded.
    pub init: Option<Vec<u8>>,
}

#[derive(Debug)]
pub struct InputDecl {
    pub node: String,
    pub desc: TensorDesc,
    /// The root block argument the Data node reads.
    pub arg: ValueId,
}

/// One graph (`func.func`).
#[derive(Debug)]
pub struct Func {
    pub name: String,
    pub arg_descs: Vec<TensorDesc>,
    pub value_count: usize,
    pub ops: Vec<Op>,
    /// `func.return`'s operands (GE's NetOutput inputs).
    pub returns: Vec<ValueId>,
    pub return_descs: Vec<TensorDesc>,
}

/// One op with a value effect (ops without one are dropped while reading).
#[derive(Debug)]
pub struct Op {
    pub node: String,
    pub ge_type: String,
    pub kind: Kind,
    pub inputs: Vec<ValueId>,
    pub outputs: Vec<ValueId>,
    pub output_descs: Vec<TensorDesc>,
}

/// What an op does to values.
#[derive(Debug)]
pub enum Kind {
    /// Data / RefData: its output *is* its argument (a subgraph input shares the parent's
    /// value, a Variable passed down included).
    Alias,
    Const(Vec<u8>),
    /// A Variable: its output is the variable slot itself, read where it is used.
    Variable(usize),
    /// Identity, Memcpy, Reshape, ...: output `i` gets a copy of input `i`'s bytes (a
    /// Reshape's shape input is not copied).
    Copy,
    /// PhonyConcat: the output is the inputs' bytes back to back.
    Concat,
    /// PhonySplit: the outputs are consecutive slices of the input.
    Split,
    Kernel {
        attrs: Attrs,
        /// Per output, the input it references (GE's ref rule): the kernel's result is
        /// written into that input's variable when it holds one.
        refs: Vec<Option<usize>>,
        /// Inputs the kernel also writes beyond its outputs, passed as extra outputs
        /// (ApplyMomentum's `accum`).
        written: Vec<usize>,
    },
    Collective {
        collective: Collective,
        reduction: Reduction,
        root_rank: u32,
    },
    If {
        then_branch: usize,
        else_branch: usize,
    },
    Case {
        branches: Vec<usize>,
    },
    While {
        cond: usize,
        body: usize,
    },
    Call {
        f: usize,
    },
}

/// Inputs a kernel writes besides its ref outputs, passed to it as extra outputs after its
/// own (the kernel contract of `ascend_kernels`: ApplyMomentum takes outputs `[var, accum]`).
pub fn extra_written_inputs(ge_type: &str) -> &'static [usize] {
    match ge_type {
        "ApplyMomentum" => &[1],
        _ => &[],
    }
}

/// Reads `module` with `root` as the root graph.
pub fn read_program(module: &Module<'_>, root: &str) -> Result<Program, ReferenceError> {
    let mut funcs_by_name: BTreeMap<String, OperationRef> = BTreeMap::new();
    let mut op = module.body().first_operation();
    while let Some(f) = op {
        if f.name().as_string_ref().as_str() == Ok("func.func") {
            let name = f
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())
                .and_then(crate::ir::string_value)
                .map(str::to_owned)
                .ok_or_else(|| ReferenceError::module("a func.func without a sym_name"))?;
            funcs_by_name.insert(name, f);
        }
        op = f.next_in_block();
    }
    if !funcs_by_name.contains_key(root) {
        return Err(ReferenceError::module(format!(
            "the module has no graph @{root} (graphs: {})",
            funcs_by_name.keys().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    let index: HashMap<String, usize> = funcs_by_name
        .keys()
        .enumerate()
        .map(|(i, n)| (n.clone(), i))
        .collect();
    let mut reader = Reader {
        index: &index,
        variables: Vec::new(),
        variable_index: HashMap::new(),
    };
    let mut funcs = Vec::with_capacity(funcs_by_name.len());
    for (name, f) in &funcs_by_name {
        funcs.push(reader.read_func(name, *f)?);
    }
    let root_index = index[root];
    let inputs = model_inputs(&funcs[root_index], funcs_by_name[root])?;
    Ok(Program {
        funcs,
        root: root_index,
        variables: reader.variables,
        inputs,
    })
}

/// The root graph's Data nodes by their `index`: 0..n, each once.
fn model_inputs(func: &Func, f: OperationRef) -> Result<Vec<InputDecl>, ReferenceError> {
    let block = entry_block(f, &func.name)?;
    let mut by_index: BTreeMap<i64, InputDecl> = BTreeMap::new();
    let mut op = block.first_operation();
    let mut position = 0usize;
    while let Some(o) = op {
        op = o.next_in_block();
        if !semantics::has_trait(&o, Trait::DataLike) {
            continue;
        }
        let node = node_name(&o);
        let Some(arg) = o.operand(0).ok().and_then(|v| block_arg_number(v, block)) else {
            return Err(ReferenceError::MissingInput {
                node,
                message: "a root Data node must read a graph argument".into(),
            });
        };
        let index = o
            .attribute(attr_index())
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map_or(position as i64, |i| i.value());
        position += 1;
        let decl = InputDecl {
            node: node.clone(),
            desc: func.arg_descs[arg].clone(),
            arg,
        };
        if let Some(other) = by_index.insert(index, decl) {
            return Err(ReferenceError::MissingInput {
                node,
                message: format!("Data index {index} is also the index of `{}`", other.node),
            });
        }
    }
    let mut inputs = Vec::with_capacity(by_index.len());
    for (expected, (index, decl)) in by_index.into_iter().enumerate() {
        if index != expected as i64 {
            return Err(ReferenceError::MissingInput {
                node: decl.node,
                message: format!(
                    "model input {expected} has no Data node (the next one has index {index})"
                ),
            });
        }
        inputs.push(decl);
    }
    Ok(inputs)
}

fn attr_index() -> &'static str {
    "index"
}

struct Reader<'i> {
    index: &'i HashMap<String, usize>,
    variables: Vec<VariableDecl>,
    variable_index: HashMap<String, usize>,
}

impl Reader<'_> {
    fn read_func(&mut self, name: &str, f: OperationRef) -> Result<Func, ReferenceError> {
        let block = entry_block(f, name)?;
        let mut ids: HashMap<usize, ValueId> = HashMap::new();
        let mut arg_descs = Vec::new();
        for i in 0..block.argument_count() {
            let arg = block
                .argument(i)
                .map_err(|e| ReferenceError::module(e.to_string()))?;
            let value: Value = arg.into();
            ids.insert(raw_key(value), i);
            arg_descs.push(tensor_desc(
                value.r#type(),
                &format!("argument {i} of @{name}"),
            )?);
        }
        let mut func = Func {
            name: name.to_owned(),
            arg_descs,
            value_count: block.argument_count(),
            ops: Vec::new(),
            returns: Vec::new(),
            return_descs: Vec::new(),
        };
        let mut op = block.first_operation();
        while let Some(o) = op {
            op = o.next_in_block();
            let op_name = o.name().as_string_ref().as_str().unwrap_or("").to_owned();
            let lookup = |v: Value, ids: &HashMap<usize, ValueId>| {
                ids.get(&raw_key(v)).copied().ok_or_else(|| {
                    ReferenceError::module(format!(
                        "an operand of `{}` in @{name} is defined outside the graph",
                        node_name(&o)
                    ))
                })
            };
            if op_name == "func.return" {
                for v in o.operands() {
                    if is_ctrl_type(v.r#type()) {
                        continue;
                    }
                    func.returns.push(lookup(v, &ids)?);
                    func.return_descs
                        .push(tensor_desc(v.r#type(), &format!("a result of @{name}"))?);
                }
                continue;
            }
            if !op_name.starts_with("ascend.") {
                return Err(ReferenceError::module(format!(
                    "`{op_name}` in @{name} is not an ascend op"
                )));
            }
            let node = node_name(&o);
            if let Some(m) = crate::ir::ops::unconnected_message(o) {
                return Err(ReferenceError::module(format!(
                    "{m} in @{name}: the reference kernels take their inputs by position"
                )));
            }
            let mut inputs = Vec::new();
            for v in semantics::data_operands(&o) {
                inputs.push(lookup(v, &ids)?);
            }
            let mut outputs = Vec::new();
            let mut output_descs = Vec::new();
            for r in semantics::data_results(&o) {
                let value: Value = r.into();
                let id = func.value_count;
                func.value_count += 1;
                ids.insert(raw_key(value), id);
                outputs.push(id);
                output_descs.push(tensor_desc(
                    value.r#type(),
                    &format!("an output of `{node}` in @{name}"),
                )?);
            }
            let ge_type = semantics::ge_type(&o).unwrap_or_else(|| op_name.clone());
            let Some(kind) = self.kind(&o, &node, &ge_type, &output_descs)? else {
                continue;
            };
            func.ops.push(Op {
                node,
                ge_type,
                kind,
                inputs,
                outputs,
                output_descs,
            });
        }
        Ok(func)
    }

    /// The op's value effect; `None` for ops with none (events, labels, stream
    /// activation, AtomicAddrClean: ordering only).
    fn kind(
        &mut self,
        o: &OperationRef,
        node: &str,
        ge_type: &str,
        output_descs: &[TensorDesc],
    ) -> Result<Option<Kind>, ReferenceError> {
        let has = |t| semantics::has_trait(o, t);
        let no_effect = [
            Trait::Send,
            Trait::Recv,
            Trait::SendNotify,
            Trait::RecvNotify,
            Trait::StreamActive,
            Trait::RtsLabel,
            Trait::AtomicClean,
            Trait::Cmo,
        ];
        if no_effect.into_iter().any(has) || ge_type == "NoOp" {
            return Ok(None);
        }
        if has(Trait::DataLike) {
            return Ok(Some(Kind::Alias));
        }
        if has(Trait::ConstLike) {
            let bytes = value_bytes(o, node, ge_type, &output_descs[0])?.ok_or_else(|| {
                ReferenceError::Node {
                    node: node.to_owned(),
                    op_type: ge_type.to_owned(),
                    message: "a Const without `value`".into(),
                }
            })?;
            return Ok(Some(Kind::Const(bytes)));
        }
        if has(Trait::VarLike) {
            let init = value_bytes(o, node, ge_type, &output_descs[0])?;
            return Ok(Some(Kind::Variable(self.variable(
                node,
                &output_descs[0],
                init,
            )?)));
        }
        if has(Trait::IdentityLike) || has(Trait::CopyLike) || has(Trait::Reshape) {
            return Ok(Some(Kind::Copy));
        }
        if ge_type == "IdentityN" {
            return Ok(Some(Kind::Copy));
        }
        if has(Trait::Phony) {
            return Ok(Some(if ge_type == "PhonySplit" {
                Kind::Split
            } else {
                Kind::Concat
            }));
        }
        if has(Trait::Hccl) {
            return self.collective(o, node, ge_type).map(Some);
        }
        let symbols = semantics::subgraph_symbols(o);
        if !symbols.is_empty() || has(Trait::Conditional) || has(Trait::WhileFamily) {
            let f = symbols
                .iter()
                .map(|s| {
                    self.index
                        .get(s)
                        .copied()
                        .ok_or_else(|| ReferenceError::Node {
                            node: node.to_owned(),
                            op_type: ge_type.to_owned(),
                            message: format!("subgraph @{s} is not in the module"),
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let want = |n: usize| -> Result<(), ReferenceError> {
                if f.len() == n {
                    Ok(())
                } else {
                    Err(ReferenceError::Node {
                        node: node.to_owned(),
                        op_type: ge_type.to_owned(),
                        message: format!("expected {n} subgraphs, found {}", f.len()),
                    })
                }
            };
            let kind = if has(Trait::Case) {
                if f.is_empty() {
                    want(1)?;
                }
                Kind::Case { branches: f }
            } else if has(Trait::Conditional) {
                want(2)?;
                Kind::If {
                    then_branch: f[0],
                    else_branch: f[1],
                }
            } else if has(Trait::WhileFamily) {
                want(2)?;
                Kind::While {
                    cond: f[0],
                    body: f[1],
                }
            } else {
                want(1)?;
                Kind::Call { f: f[0] }
            };
            return Ok(Some(kind));
        }
        let refs = (0..output_descs.len())
            .map(|i| semantics::ref_input_of_output(o, i))
            .collect();
        Ok(Some(Kind::Kernel {
            attrs: kernel_attrs(*o),
            refs,
            written: extra_written_inputs(ge_type).to_vec(),
        }))
    }

    fn variable(
        &mut self,
        node: &str,
        desc: &TensorDesc,
        init: Option<Vec<u8>>,
    ) -> Result<usize, ReferenceError> {
        if let Some(&i) = self.variable_index.get(node) {
            if self.variables[i].init.is_none() {
                self.variables[i].init = init;
            }
            if self.variables[i].desc != *desc {
                return Err(ReferenceError::module(format!(
                    "Variable `{node}` is declared with two types ({:?} {:?} and {:?} {:?})",
                    self.variables[i].desc.dtype,
                    self.variables[i].desc.dims,
                    desc.dtype,
                    desc.dims
                )));
            }
            return Ok(i);
        }
        self.variables.push(VariableDecl {
            name: node.to_owned(),
            desc: desc.clone(),
            init,
        });
        self.variable_index
            .insert(node.to_owned(), self.variables.len() - 1);
        Ok(self.variables.len() - 1)
    }

    fn collective(
        &self,
        o: &OperationRef,
        node: &str,
        ge_type: &str,
    ) -> Result<Kind, ReferenceError> {
        let err = |message: String| ReferenceError::Node {
            node: node.to_owned(),
            op_type: ge_type.to_owned(),
            message,
        };
        let collective = match ge_type {
            "HcomAllReduce" => Collective::AllReduce,
            "HcomBroadcast" => Collective::Broadcast,
            "HcomAllGather" => Collective::AllGather,
            "HcomReduceScatter" => Collective::ReduceScatter,
            other => return Err(err(format!("no collective semantics for `{other}`"))),
        };
        let reduction = match o
            .attr("reduction")
            .and_then(|v| v.as_str().map(str::to_owned))
        {
            None => Reduction::Sum,
            Some(r) => {
                parse_reduction(&r).ok_or_else(|| err(format!("unknown reduction `{r}`")))?
            }
        };
        let root_rank = o
            .attr("root_rank")
            .and_then(|v| v.as_int())
            .unwrap_or(0)
            .try_into()
            .map_err(|_| err("a negative root_rank".into()))?;
        Ok(Kind::Collective {
            collective,
            reduction,
            root_rank,
        })
    }
}

/// The bytes of the op's `value` attribute for a tensor of `desc`; `None` without one.
fn value_bytes(
    o: &OperationRef,
    node: &str,
    ge_type: &str,
    desc: &TensorDesc,
) -> Result<Option<Vec<u8>>, ReferenceError> {
    let Ok(value) = o.attribute("value") else {
        return Ok(None);
    };
    let count = ascend_kernels::types::element_count(&desc.dims);
    dense_bytes(value, desc.dtype, count)
        .map(Some)
        .map_err(|message| ReferenceError::Node {
            node: node.to_owned(),
            op_type: ge_type.to_owned(),
            message,
        })
}

/// GE's `reduction` attribute of a collective (`sum`, `prod`, `max`, `min`).
pub fn parse_reduction(text: &str) -> Option<Reduction> {
    Some(match text.to_ascii_lowercase().as_str() {
        "sum" => Reduction::Sum,
        "prod" => Reduction::Prod,
        "max" => Reduction::Max,
        "min" => Reduction::Min,
        _ => return None,
    })
}

fn entry_block<'c, 'a>(
    f: OperationRef<'c, 'a>,
    name: &str,
) -> Result<BlockRef<'c, 'a>, ReferenceError> {
    f.region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| ReferenceError::module(format!("graph @{name} has no body")))
}

fn node_name(o: &OperationRef) -> String {
    semantics::node_name(o)
        .unwrap_or_else(|| o.name().as_string_ref().as_str().unwrap_or("?").to_owned())
}

fn raw_key(v: Value) -> usize {
    v.to_raw().ptr as usize
}

fn block_arg_number(v: Value, block: BlockRef) -> Option<usize> {
    (0..block.argument_count()).find(|&i| {
        block
            .argument(i)
            .is_ok_and(|a| raw_key(a.into()) == raw_key(v))
    })
}

/// A static tensor type as a [`TensorDesc`]; anything else is an error naming `what`.
pub fn tensor_desc(ty: Type, what: &str) -> Result<TensorDesc, ReferenceError> {
    let unsupported = |why: &str| ReferenceError::module(format!("{what}: {why} type `{ty}`"));
    if !ty.is_ranked_tensor() {
        return Err(unsupported("unranked or non-tensor"));
    }
    let ranked = RankedTensorType::try_from(ty).map_err(|_| unsupported("unreadable"))?;
    if !ranked.has_static_shape() {
        return Err(unsupported("dynamically shaped"));
    }
    let dims = (0..ranked.rank())
        .map(|i| match ranked.dim_size(i) {
            Ok(melior::ir::r#type::DimSize::Static(n)) => Ok(n as i64),
            _ => Err(unsupported("dynamically shaped")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let dtype = DType::from_mlir(&ranked.element().to_string())
        .ok_or_else(|| unsupported("unsupported element"))?;
    Ok(TensorDesc {
        dtype,
        dims,
        format: 2,
    })
}
