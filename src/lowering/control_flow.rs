//! Functional control flow (If, Case, While, PartitionedCall) sunk to labels and stream
//! activations, as GE's `LabelAllocator` and label makers do
//! (`ge-import-hccl-labels-notes.md` §2; the semantics are in `dialects/README.md`).
//!
//! Everything the node adds goes on the node's own stream S, at the node's place in the
//! global order, with the subgraphs' tasks in between (GetAllNodes: then before else, cond
//! before body):
//!
//! * **If** (labels then = n, else = n+1, leave = n+2): the predicate as an int32 scalar
//!   (a Cast or Size task, GE's CondPass), `LabelSwitchByIndex[else, then]`,
//!   `LabelSet(then)`, then-branch, `LabelGoto(leave)`, `LabelSet(else)`, else-branch,
//!   `LabelSet(leave)`.
//! * **Case** (k > 1 branches; last = n, branch i = n+1+i): `LabelSwitchByIndex[n+1..n+k]`,
//!   each branch `LabelSet(n+1+i)`, its tasks, `LabelGoto(n)` but the last, `LabelSet(n)`.
//!   One branch: the branch alone.
//! * **While** (cond = n, body = n+1, exit = n+2): copies of the inputs into the loop
//!   variables, `LabelSet(cond)`, cond, the predicate as int32,
//!   `LabelSwitchByIndex[exit, body]`, `LabelSet(body)`, body, copies of the body's outputs
//!   into the loop variables, `LabelGoto(cond)`, `LabelSet(exit)`.
//! * **PartitionedCall**: the subgraph alone.
//!
//! Each subgraph segment is: copies into its Data nodes where the plan placed them
//! elsewhere than the parent's input, one `StreamActive` per other stream of the subgraph
//! (GE's first-active StreamActive), the subgraph's tasks, then a join: every other stream
//! records a fresh event at its end that S waits for and resets (GE's
//! InsertEventsForSubgraph, end side), then copies of its outputs to the node's outputs
//! where they differ. The start side needs no event: the activation runs after S's
//! earlier tasks, which already wait for the node's inputs. A loop body's streams are
//! re-activated each iteration, record their join event once per iteration, and S waits
//! for and resets it in the same iteration.

use super::{
    ir_read::desc_of_type,
    lower::{Lowering, ParentInputs},
    model::*,
};
use crate::{dialect::semantics, ir::ops};
use melior::ir::{operation::OperationLike, BlockLike, OperationRef, RegionLike, Value, ValueLike};
use std::collections::BTreeSet;

/// GE types of the source nodes that carry `stream_id` 0 whatever stream reads them.
fn is_source(ge_type: &str) -> bool {
    matches!(
        ge_type,
        "Data"
            | "RefData"
            | "AippData"
            | "AnnData"
            | "Const"
            | "Constant"
            | "Variable"
            | "VariableV2"
    )
}

/// The ops of a function body, in order.
fn body_ops<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    if let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) {
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            out.push(op);
        }
    }
    out
}

/// The streams the ops of `func` itself (not its subgraphs) run on.
pub(crate) fn graph_streams(lw: &Lowering, func: OperationRef) -> BTreeSet<u32> {
    body_ops(func)
        .into_iter()
        .filter(|op| ops::ge_type(*op).is_some_and(|t| !is_source(t)))
        .map(|op| lw.stream_of(op))
        .collect()
}

/// Lowers a functional control-flow node and its subgraphs at the node's place in the
/// global order.
pub(crate) fn lower_functional<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    op: OperationRef<'c, 'a>,
    ge_type: &str,
    name: &str,
    stream: u32,
) {
    let Some(inputs) = lw.input_operands(op) else {
        return;
    };
    let mut subgraphs = Vec::new();
    for symbol in semantics::subgraph_symbols(&op) {
        match lw.funcs.get(&symbol) {
            Some(&f) => subgraphs.push(f),
            None => return lw.error(op, format!("subgraph `@{symbol}` is not in the module")),
        }
    }
    let node = Node {
        op,
        name: name.to_string(),
        stream,
    };
    match ge_type {
        "If" | "StatelessIf" => lower_if(lw, &node, &inputs, &subgraphs),
        "Case" | "StatelessCase" => lower_case(lw, &node, &inputs, &subgraphs),
        "While" | "StatelessWhile" => lower_while(lw, &node, &inputs, &subgraphs),
        _ => lower_call(lw, &node, &inputs, &subgraphs),
    }
}

/// The functional node being lowered.
struct Node<'c, 'a> {
    op: OperationRef<'c, 'a>,
    name: String,
    stream: u32,
}

/// The node's outputs: the plan's workspace offsets; an output the plan left out (`-1`)
/// takes `fallback(k)`.
fn node_outputs<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    fallback: impl Fn(usize) -> Option<Operand>,
) -> Option<Vec<Operand>> {
    let mut out = Vec::new();
    for (k, value) in ops::data_results(node.op).into_iter().enumerate() {
        let value: Value = value.into();
        let operand = match lw.planned_output(node.op, k, value) {
            Some(Ok(p)) => p,
            Some(Err(())) => return None,
            None => match fallback(k) {
                Some(f) => match desc_of_type(value.r#type()) {
                    Ok(desc) => Operand {
                        addr: f.addr,
                        size: desc.bytes(),
                        desc,
                    },
                    Err(e) => {
                        lw.error(node.op, e);
                        return None;
                    }
                },
                None => {
                    lw.error(
                        node.op,
                        format!("output {k} has no workspace offset and no source"),
                    );
                    return None;
                }
            },
        };
        out.push(operand);
    }
    Some(out)
}

fn set_outputs<'c, 'a>(lw: &mut Lowering<'c, 'a>, node: &Node<'c, 'a>, outputs: &[Operand]) {
    for (value, operand) in ops::data_results(node.op).into_iter().zip(outputs) {
        lw.set_addr(value.into(), operand.clone());
    }
}

/// Copies `src` into `dst` on `stream` unless they are the same bytes.
fn copy(lw: &mut Lowering, stream: u32, node: &str, src: &Operand, dst: &Operand) {
    if src.addr != dst.addr {
        lw.push(
            stream,
            Task::MemcpyAsync {
                node: node.to_string(),
                src: Operand {
                    addr: src.addr,
                    size: src.size.min(dst.size),
                    desc: dst.desc.clone(),
                },
                dst: dst.clone(),
            },
        );
    }
}

/// Lowers one subgraph as a segment of the parent's stream (see the module doc) and
/// returns the addresses of its outputs (its `func.return` operands).
fn lower_subgraph<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    func: OperationRef<'c, 'a>,
    parent: &ParentInputs,
) -> Option<Vec<Operand>> {
    let sub = ops::str_attr(func, "sym_name").unwrap_or("?").to_string();
    let streams: Vec<u32> = graph_streams(lw, func)
        .into_iter()
        .filter(|&s| s != node.stream)
        .collect();
    for &s in &streams {
        match lw.stream_owner.get(&s) {
            Some(owner) if *owner != sub => {
                let owner = owner.clone();
                lw.error(
                    node.op,
                    format!(
                        "subgraph `@{sub}` runs tasks on stream {s}, which also runs tasks of \
                         `{owner}`: an activated stream re-runs all its tasks, so a subgraph's \
                         streams (other than its parent's) must be its own"
                    ),
                );
                return None;
            }
            _ => {
                lw.stream_owner.insert(s, sub.clone());
            }
        }
    }
    let ops_list = body_ops(func);
    let is_data = |op: &OperationRef| {
        ops::ge_type(*op).is_some_and(|t| matches!(t, "Data" | "RefData" | "AippData" | "AnnData"))
    };
    // Data first: their copies must be done before the subgraph's streams start.
    for &op in ops_list.iter().filter(|op| is_data(op)) {
        lw.lower_node(op, Some(parent));
    }
    for &s in &streams {
        lw.mark_activated(s);
        lw.push(
            node.stream,
            Task::StreamActive {
                node: format!("{sub}/StreamActive"),
                stream: s,
            },
        );
    }
    let mut ret = None;
    for &op in ops_list.iter().filter(|op| !is_data(op)) {
        if op.name().as_string_ref().as_str() == Ok("func.return") {
            ret = Some(op);
        }
        lw.lower_node(op, Some(parent));
    }
    for &s in &streams {
        let event = lw.new_event();
        let end = format!("{sub}/SubgraphEnd");
        lw.push(
            s,
            Task::EventRecord {
                node: end.clone(),
                event,
            },
        );
        lw.push(
            node.stream,
            Task::EventWait {
                node: end.clone(),
                event,
            },
        );
        lw.push(node.stream, Task::EventReset { node: end, event });
    }
    let ret = ret?;
    let mut outs = Vec::new();
    for (k, value) in ret.operands().enumerate() {
        match lw.addr_of(value) {
            Some(o) => outs.push(o),
            None => {
                if lw.errors.is_empty() {
                    lw.error(node.op, format!("output {k} of `@{sub}` has no address"));
                }
                return None;
            }
        }
    }
    Some(outs)
}

/// The predicate or branch index at `value` as an int32 scalar: as it is, or through the
/// Cast / Size task GE's CondPass inserts, into fresh workspace bytes.
fn int32_index(lw: &mut Lowering, node: &Node, value: &Operand) -> Operand {
    let d = &value.desc;
    if d.dims.is_empty() && matches!(d.dtype, DType::I32 | DType::U32) {
        return value.clone();
    }
    let desc = TensorDesc {
        dtype: DType::I32,
        dims: Vec::new(),
        format: d.format,
    };
    let offset = lw.new_workspace(4);
    let out = Operand {
        addr: Addr {
            region: Region::Workspace,
            offset,
        },
        size: 4,
        desc,
    };
    let scalar = d.dims.iter().all(|&x| x == 1);
    let (op_type, suffix) = if scalar {
        ("Cast", "Cast")
    } else {
        ("Size", "Size")
    };
    let mut attrs = Attrs::default();
    attrs.0.push((
        if scalar { "dst_type" } else { "dtype" }.to_string(),
        AttrValue::Int(DType::I32.acl() as i64),
    ));
    lw.push(
        node.stream,
        Task::Kernel {
            op_type: op_type.to_string(),
            node: format!("{}/Cond{suffix}", node.name),
            attrs,
            inputs: vec![value.clone()],
            outputs: vec![out.clone()],
        },
    );
    out
}

fn label_set(lw: &mut Lowering, node: &Node, what: &str, label: u32) {
    lw.push(
        node.stream,
        Task::LabelSet {
            node: format!("{}/{what}LabelSet", node.name),
            label,
        },
    );
}

fn label_goto(lw: &mut Lowering, node: &Node, what: &str, label: u32) {
    lw.push(
        node.stream,
        Task::LabelGoto {
            node: format!("{}/{what}LabelGoto", node.name),
            label,
        },
    );
}

fn switch(lw: &mut Lowering, node: &Node, index: Operand, labels: Vec<u32>) {
    lw.push(
        node.stream,
        Task::LabelSwitchByIndex {
            node: format!("{}/LabelSwitch", node.name),
            index,
            labels,
        },
    );
}

/// A branch of an If/Case: lowered, then its outputs copied to the node's outputs.
fn branch<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    func: OperationRef<'c, 'a>,
    parent: &ParentInputs,
    outputs: &mut Option<Vec<Operand>>,
) {
    let Some(outs) = lower_subgraph(lw, node, func, parent) else {
        return;
    };
    if outputs.is_none() {
        *outputs = node_outputs(lw, node, |k| outs.get(k).cloned());
    }
    if let Some(targets) = outputs.as_ref() {
        for (src, dst) in outs.iter().zip(targets.clone()) {
            copy(
                lw,
                node.stream,
                &format!("{}/OutputCopy", node.name),
                src,
                &dst,
            );
        }
    }
}

fn lower_if<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    inputs: &[Operand],
    subgraphs: &[OperationRef<'c, 'a>],
) {
    let ([then_f, else_f], Some(pred)) = (subgraphs, inputs.first()) else {
        return lw.error(node.op, "an If needs a predicate and two branches");
    };
    let (then_l, else_l, leave_l) = (lw.new_label(), lw.new_label(), lw.new_label());
    let index = int32_index(lw, node, pred);
    switch(lw, node, index, vec![else_l, then_l]);
    let parent = ParentInputs {
        operands: inputs.to_vec(),
        first: 1,
        stream: node.stream,
    };
    let mut outputs = None;
    label_set(lw, node, "Then", then_l);
    branch(lw, node, *then_f, &parent, &mut outputs);
    label_goto(lw, node, "Then", leave_l);
    label_set(lw, node, "Else", else_l);
    branch(lw, node, *else_f, &parent, &mut outputs);
    label_set(lw, node, "Leave", leave_l);
    if let Some(outputs) = outputs {
        set_outputs(lw, node, &outputs);
    }
}

fn lower_case<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    inputs: &[Operand],
    subgraphs: &[OperationRef<'c, 'a>],
) {
    let Some(index) = inputs.first() else {
        return lw.error(node.op, "a Case needs a branch index");
    };
    if subgraphs.is_empty() {
        return lw.error(node.op, "a Case needs at least one branch");
    }
    let parent = ParentInputs {
        operands: inputs.to_vec(),
        first: 1,
        stream: node.stream,
    };
    let mut outputs = None;
    if subgraphs.len() == 1 {
        branch(lw, node, subgraphs[0], &parent, &mut outputs);
    } else {
        let last = lw.new_label();
        let labels: Vec<u32> = subgraphs.iter().map(|_| lw.new_label()).collect();
        let index = int32_index(lw, node, index);
        switch(lw, node, index, labels.clone());
        for (i, (&f, &label)) in subgraphs.iter().zip(&labels).enumerate() {
            label_set(lw, node, &format!("Branch{i}"), label);
            branch(lw, node, f, &parent, &mut outputs);
            if i + 1 < subgraphs.len() {
                label_goto(lw, node, &format!("Branch{i}"), last);
            }
        }
        label_set(lw, node, "Last", last);
    }
    if let Some(outputs) = outputs {
        set_outputs(lw, node, &outputs);
    }
}

fn lower_while<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    inputs: &[Operand],
    subgraphs: &[OperationRef<'c, 'a>],
) {
    let [cond_f, body_f] = subgraphs else {
        return lw.error(node.op, "a While needs a cond and a body");
    };
    // The loop variables: the While's outputs (GE: one symbol with its inputs and the
    // subgraphs' inputs and outputs); where the plan left one out, its input's memory.
    let Some(vars) = node_outputs(lw, node, |k| inputs.get(k).cloned()) else {
        return;
    };
    for (src, dst) in inputs.iter().zip(&vars) {
        copy(
            lw,
            node.stream,
            &format!("{}/InputCopy", node.name),
            src,
            dst,
        );
    }
    let (cond_l, body_l, exit_l) = (lw.new_label(), lw.new_label(), lw.new_label());
    let parent = ParentInputs {
        operands: vars.clone(),
        first: 0,
        stream: node.stream,
    };
    label_set(lw, node, "Cond", cond_l);
    let Some(cond_outs) = lower_subgraph(lw, node, *cond_f, &parent) else {
        return;
    };
    let Some(pred) = cond_outs.first() else {
        return lw.error(node.op, "the While's cond returns no predicate");
    };
    let index = int32_index(lw, node, pred);
    switch(lw, node, index, vec![exit_l, body_l]);
    label_set(lw, node, "Body", body_l);
    let Some(body_outs) = lower_subgraph(lw, node, *body_f, &parent) else {
        return;
    };
    if body_outs.len() != vars.len() {
        return lw.error(
            node.op,
            format!(
                "the While's body returns {} values for {} loop variables",
                body_outs.len(),
                vars.len()
            ),
        );
    }
    for (src, dst) in body_outs.iter().zip(&vars) {
        copy(
            lw,
            node.stream,
            &format!("{}/NextIteration", node.name),
            src,
            dst,
        );
    }
    label_goto(lw, node, "Body", cond_l);
    label_set(lw, node, "Exit", exit_l);
    set_outputs(lw, node, &vars);
}

fn lower_call<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    inputs: &[Operand],
    subgraphs: &[OperationRef<'c, 'a>],
) {
    let [f] = subgraphs else {
        return lw.error(node.op, "a PartitionedCall needs one subgraph");
    };
    let parent = ParentInputs {
        operands: inputs.to_vec(),
        first: 0,
        stream: node.stream,
    };
    let mut outputs = None;
    branch(lw, node, *f, &parent, &mut outputs);
    if let Some(outputs) = outputs {
        set_outputs(lw, node, &outputs);
    }
}
