//! Functional control flow (If, Case, While, PartitionedCall) sunk to labels and stream
//! activations, as GE's `LabelAllocator` and label makers do
//! (`ge-import-hccl-labels-notes.md` §2; the semantics are in `dialects/README.md`).
//!
//! Everything the node adds goes on the node's own stream S, at the node's place in the
//! global order, with the subgraphs' tasks in between (GetAllNodes: then before else, cond
//! before body):
//!
//! * **If** (labels then = n, else = n+1, leave = n+2): the predicate as an int32 scalar
//!   (a Size task or Casts: GE's CondPass, except that a float or wide integer goes
//!   through bool first, see `predicate_index`), `LabelSwitchByIndex[else, then]`,
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
//! elsewhere than the parent's input, one `StreamActive` per stream whose every task is in
//! that subgraph (GE's first-active StreamActive), the subgraph's tasks, then a join:
//! every such stream records a fresh event at its end that S waits for and resets (GE's
//! InsertEventsForSubgraph, end side), then copies of its outputs to the node's outputs
//! where they differ. The start side needs no event: the activation runs after S's
//! earlier tasks, which already wait for the node's inputs. A loop body's streams are
//! re-activated each iteration, record their join event once per iteration, and S waits
//! for and resets it in the same iteration.
//!
//! **Shared streams.** When the physical split leaves a stream `s` (not S) with tasks of
//! the node's subgraphs *and* of other graphs (two branches, a cond and its body, or a
//! subgraph and its parent), activating `s` would re-run all of its tasks. Such a stream
//! *mirrors* the node instead (which streams do is `homes.rs`' analysis): it gets its own
//! copy of the node's labels, set and jumped to at the same places as on S, and events
//! tie it to S: `s` records *arrival* when it reaches the node (S waits before the node's
//! first task); before each `LabelSwitchByIndex` S signals `s`, which then switches on
//! the same index; each segment starts with a signal from S to `s` and ends with a join
//! from `s` to S (in every branch and every loop trip, whether `s` has tasks there or
//! not); after a While's exit label `s` joins S once more (its last switch read the
//! index); at the node's end S *releases* `s`, which waits for that before its own later
//! tasks. So `s` runs each of its subgraph tasks exactly when S runs that subgraph, after
//! the segment's inputs; S leaves the node only after `s` is done with it; and `s` goes on
//! only after the whole node is done (the compiled order puts `s`'s later tasks after
//! every task of the node, on whatever stream).

use super::{
    homes::op_key,
    ir_read::desc_of_type,
    lower::{Lowering, ParentInputs},
    model::*,
};
use crate::{dialect::semantics, ir::ops};
use melior::ir::{operation::OperationLike, BlockLike, OperationRef, RegionLike, ValueLike};

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
    let instance = lw.instance;
    let Some(children) = (0..subgraphs.len())
        .map(|i| lw.homes.child(instance, op, i))
        .collect::<Option<Vec<u32>>>()
    else {
        return lw.error(op, "the node is nested too deeply to be lowered");
    };
    let mirrored = lw.homes.mirrored(instance, stream, &children);
    let node = Node {
        op,
        name: name.to_string(),
        stream,
        children,
        mirrored,
    };
    let key = (instance, op_key(op));
    for event in lw.homes.wait_before.get(&key).cloned().unwrap_or_default() {
        wait(lw, node.stream, &format!("{name}/Enter"), event);
    }
    // Every mirroring stream reports that it reached the node: what ran before the node
    // on it runs before anything of the node's subgraphs.
    for &s in &node.mirrored {
        signal(lw, s, node.stream, &format!("{name}/Arrive"));
    }
    match ge_type {
        "If" | "StatelessIf" => lower_if(lw, &node, &inputs, &subgraphs),
        "Case" | "StatelessCase" => lower_case(lw, &node, &inputs, &subgraphs),
        "While" | "StatelessWhile" => lower_while(lw, &node, &inputs, &subgraphs),
        _ => lower_call(lw, &node, &inputs, &subgraphs),
    }
    // ... and waits for the node's end before its own later tasks, which the compiled
    // order puts after everything of the node.
    for &s in &node.mirrored {
        signal(lw, node.stream, s, &format!("{name}/Release"));
    }
    for event in lw.homes.record_after.get(&key).cloned().unwrap_or_default() {
        lw.push(
            node.stream,
            Task::EventRecord {
                node: format!("{name}/Leave"),
                event,
            },
        );
    }
}

/// The functional node being lowered.
struct Node<'c, 'a> {
    op: OperationRef<'c, 'a>,
    name: String,
    stream: u32,
    /// The graph instance of each subgraph.
    children: Vec<u32>,
    /// The other streams that mirror the node's labels (see `homes.rs`).
    mirrored: Vec<u32>,
}

/// A fresh event recorded on `from` and waited for and reset on `to`.
fn signal(lw: &mut Lowering, from: u32, to: u32, node: &str) {
    let event = lw.new_event();
    lw.push(
        from,
        Task::EventRecord {
            node: node.to_string(),
            event,
        },
    );
    wait(lw, to, node, event);
}

fn wait(lw: &mut Lowering, stream: u32, node: &str, event: u32) {
    lw.push(
        stream,
        Task::EventWait {
            node: node.to_string(),
            event,
        },
    );
    lw.push(
        stream,
        Task::EventReset {
            node: node.to_string(),
            event,
        },
    );
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
        lw.set_addr(value, operand.clone());
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

/// Lowers subgraph `index` of the node as a segment of the parent's stream (see the
/// module doc) and returns the addresses of its outputs (its `func.return` operands).
fn lower_subgraph<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    index: usize,
    func: OperationRef<'c, 'a>,
    parent: &ParentInputs,
) -> Option<Vec<Operand>> {
    let sub = ops::str_attr(func, "sym_name").unwrap_or("?").to_string();
    let child = node.children[index];
    let activated = lw.homes.activated_at(child, node.stream);
    let outer = lw.instance;
    lw.instance = child;
    let ops_list = body_ops(func);
    let is_data = |op: &OperationRef| {
        ops::ge_type(*op).is_some_and(|t| matches!(t, "Data" | "RefData" | "AippData" | "AnnData"))
    };
    // A computed output the plan leaves in the parent's memory (a While body's value of a
    // loop variable, GE's shared symbol) gets bytes of its own; the parent copies it on.
    if let Some(ret) = ops_list.last().filter(|op| is_return(op)) {
        for value in ret.operands() {
            lw.own_buffer_if_unplanned(value);
        }
    }
    // Data first: their copies must be done before the subgraph's streams start.
    for &op in ops_list.iter().filter(|op| is_data(op)) {
        lw.lower_node(op, Some(parent));
    }
    let start = format!("{sub}/Start");
    for &s in &node.mirrored {
        signal(lw, node.stream, s, &start);
    }
    for &s in &activated {
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
        if is_return(&op) {
            ret = Some(op);
        }
        lw.lower_node(op, Some(parent));
    }
    let end = format!("{sub}/SubgraphEnd");
    for &s in activated.iter().chain(&node.mirrored) {
        signal(lw, s, node.stream, &end);
    }
    lw.instance = outer;
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

fn is_return(op: &OperationRef) -> bool {
    op.name().as_string_ref().as_str() == Ok("func.return")
}

/// A Case's branch index at `value` as an int32 scalar: as it is, or through the Cast /
/// Size task GE's CondPass inserts, into fresh workspace bytes.
fn int32_index(lw: &mut Lowering, node: &Node, value: &Operand) -> Operand {
    let d = &value.desc;
    if d.dims.is_empty() && matches!(d.dtype, DType::I32 | DType::U32) {
        return value.clone();
    }
    if d.dims.iter().all(|&x| x == 1) {
        cast_task(lw, node, "CondCast", value, DType::I32)
    } else {
        size_task(lw, node, value)
    }
}

/// An If's or a While's predicate at `value` as an int32 scalar that is non-zero exactly
/// when the predicate is true (a scalar: non-zero; a tensor of rank >= 1: non-empty), the
/// meaning of GE's and TF's If and the reference interpreter's.
///
/// Deliberately not GE's CondPass for floats and wide integers: CondPass casts any scalar
/// predicate straight to int32, which truncates 0.5 to 0 and drops the high bits of an
/// int64 2^32, so such a predicate would take the else branch (or leave the loop). Here a
/// scalar that is neither int32 nor bool is first cast to bool (non-zero -> true, NaN
/// included), then to int32; int32 passes as it is (LabelSwitchByIndex sends any non-zero
/// index, negative ones too, to the last target) and bool is cast once.
fn predicate_index(lw: &mut Lowering, node: &Node, value: &Operand) -> Operand {
    let d = &value.desc;
    let scalar = d.dims.iter().all(|&x| x == 1);
    if !scalar || matches!(d.dtype, DType::I32 | DType::U32 | DType::Bool) {
        return int32_index(lw, node, value);
    }
    let truth = cast_task(lw, node, "CondCastBool", value, DType::Bool);
    cast_task(lw, node, "CondCast", &truth, DType::I32)
}

/// A workspace scalar of `dtype` in fresh bytes.
fn scalar_operand(lw: &mut Lowering, dtype: DType, format: i32) -> Operand {
    let size = dtype.size() as u64;
    let offset = lw.new_workspace(size);
    Operand {
        addr: Addr {
            region: Region::Workspace,
            offset,
        },
        size,
        desc: TensorDesc {
            dtype,
            dims: Vec::new(),
            format,
        },
    }
}

/// A `Cast` of `value` to a `dtype` scalar on the node's stream, named `<node>/<suffix>`.
fn cast_task(
    lw: &mut Lowering,
    node: &Node,
    suffix: &str,
    value: &Operand,
    dtype: DType,
) -> Operand {
    let out = scalar_operand(lw, dtype, value.desc.format);
    let mut attrs = Attrs::default();
    attrs
        .0
        .push(("dst_type".to_string(), AttrValue::Int(dtype.acl() as i64)));
    push_kernel(lw, node, "Cast", suffix, attrs, value, &out);
    out
}

/// `Size` of a non-scalar `value` (its element count as int32), GE's CondPass for a
/// tensor predicate or index.
fn size_task(lw: &mut Lowering, node: &Node, value: &Operand) -> Operand {
    let out = scalar_operand(lw, DType::I32, value.desc.format);
    let mut attrs = Attrs::default();
    attrs
        .0
        .push(("dtype".to_string(), AttrValue::Int(DType::I32.acl() as i64)));
    push_kernel(lw, node, "Size", "CondSize", attrs, value, &out);
    out
}

fn push_kernel(
    lw: &mut Lowering,
    node: &Node,
    op_type: &str,
    suffix: &str,
    attrs: Attrs,
    input: &Operand,
    output: &Operand,
) {
    lw.push(
        node.stream,
        Task::Kernel {
            op_type: op_type.to_string(),
            node: format!("{}/{suffix}", node.name),
            attrs,
            inputs: vec![input.clone()],
            outputs: vec![output.clone()],
            placement: crate::lowering::model::Placement::Hbm,
        },
    );
}

/// One label per stream taking part in the node: the node's stream first, then every
/// mirroring stream (a label is set and jumped to on one stream).
struct Labels(Vec<(u32, u32)>);

fn labels(lw: &mut Lowering, node: &Node) -> Labels {
    Labels(
        std::iter::once(node.stream)
            .chain(node.mirrored.iter().copied())
            .map(|s| (s, lw.new_label()))
            .collect(),
    )
}

fn label_set(lw: &mut Lowering, node: &Node, what: &str, labels: &Labels) {
    for &(stream, label) in &labels.0 {
        lw.push(
            stream,
            Task::LabelSet {
                node: format!("{}/{what}LabelSet", node.name),
                label,
            },
        );
    }
}

fn label_goto(lw: &mut Lowering, node: &Node, what: &str, labels: &Labels) {
    for &(stream, label) in &labels.0 {
        lw.push(
            stream,
            Task::LabelGoto {
                node: format!("{}/{what}LabelGoto", node.name),
                label,
            },
        );
    }
}

/// `LabelSwitchByIndex` on every stream taking part, over `targets`' labels of that
/// stream. A mirroring stream reads the index once the node's stream has it (an event
/// per stream and switch, so per loop trip).
fn switch(lw: &mut Lowering, node: &Node, index: Operand, targets: &[&Labels]) {
    let what = format!("{}/LabelSwitch", node.name);
    for (i, &s) in node.mirrored.iter().enumerate() {
        signal(lw, node.stream, s, &what);
        lw.push(
            s,
            Task::LabelSwitchByIndex {
                node: what.clone(),
                index: index.clone(),
                labels: targets.iter().map(|l| l.0[i + 1].1).collect(),
            },
        );
    }
    lw.push(
        node.stream,
        Task::LabelSwitchByIndex {
            node: what,
            index,
            labels: targets.iter().map(|l| l.0[0].1).collect(),
        },
    );
}

/// A branch of an If/Case: lowered, then its outputs copied to the node's outputs.
fn branch<'c, 'a>(
    lw: &mut Lowering<'c, 'a>,
    node: &Node<'c, 'a>,
    index: usize,
    func: OperationRef<'c, 'a>,
    parent: &ParentInputs,
    outputs: &mut Option<Vec<Operand>>,
) {
    let Some(outs) = lower_subgraph(lw, node, index, func, parent) else {
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
    let (then_l, else_l, leave_l) = (labels(lw, node), labels(lw, node), labels(lw, node));
    let index = predicate_index(lw, node, pred);
    switch(lw, node, index, &[&else_l, &then_l]);
    let parent = ParentInputs {
        operands: inputs.to_vec(),
        first: 1,
        stream: node.stream,
    };
    let mut outputs = None;
    label_set(lw, node, "Then", &then_l);
    branch(lw, node, 0, *then_f, &parent, &mut outputs);
    label_goto(lw, node, "Then", &leave_l);
    label_set(lw, node, "Else", &else_l);
    branch(lw, node, 1, *else_f, &parent, &mut outputs);
    label_set(lw, node, "Leave", &leave_l);
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
        branch(lw, node, 0, subgraphs[0], &parent, &mut outputs);
    } else {
        let last = labels(lw, node);
        let branches: Vec<Labels> = subgraphs.iter().map(|_| labels(lw, node)).collect();
        let index = int32_index(lw, node, index);
        switch(lw, node, index, &branches.iter().collect::<Vec<_>>());
        for (i, (&f, l)) in subgraphs.iter().zip(&branches).enumerate() {
            label_set(lw, node, &format!("Branch{i}"), l);
            branch(lw, node, i, f, &parent, &mut outputs);
            if i + 1 < subgraphs.len() {
                label_goto(lw, node, &format!("Branch{i}"), &last);
            }
        }
        label_set(lw, node, "Last", &last);
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
    let (cond_l, body_l, exit_l) = (labels(lw, node), labels(lw, node), labels(lw, node));
    let parent = ParentInputs {
        operands: vars.clone(),
        first: 0,
        stream: node.stream,
    };
    label_set(lw, node, "Cond", &cond_l);
    let Some(cond_outs) = lower_subgraph(lw, node, 0, *cond_f, &parent) else {
        return;
    };
    let Some(pred) = cond_outs.first() else {
        return lw.error(node.op, "the While's cond returns no predicate");
    };
    let index = predicate_index(lw, node, pred);
    switch(lw, node, index, &[&exit_l, &body_l]);
    label_set(lw, node, "Body", &body_l);
    let Some(body_outs) = lower_subgraph(lw, node, 1, *body_f, &parent) else {
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
    label_goto(lw, node, "Body", &cond_l);
    label_set(lw, node, "Exit", &exit_l);
    // A mirroring stream's last switch read the index: the node ends after it.
    for &s in &node.mirrored {
        signal(lw, s, node.stream, &format!("{}/Exit", node.name));
    }
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
    branch(lw, node, 0, *f, &parent, &mut outputs);
    if let Some(outputs) = outputs {
        set_outputs(lw, node, &outputs);
    }
}
