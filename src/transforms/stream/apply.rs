//! Writes an [`Allocation`] into the IR, once, after every decision was made on the frozen
//! view (GE's graph-stability rule: `GenerateSyncEventNodes` runs last).
//!
//! What changes:
//! * every ascend op of the graph gets `stream_id` (physical, after the split) and
//!   `_logic_stream_id` (logical; -1 for data-like sources, which GE parks on stream 0),
//!   `_attached_stream_ids` / `_logic_attached_stream_ids` when it has attached streams
//!   (and, as GE's `SetAttachedStreamIds`, `_attached_resource_id` = the physical attached
//!   stream and `_attached_resource_is_valid` in each element of its
//!   `_attached_stream_info_list` that got a stream),
//!   `active_stream_list` when it activates streams (and `_active_label_list` when the
//!   allocation rewrote it), and `ascend.stream_reason = "<rule>: <why>"`;
//! * the StreamActive ops planned after StreamSwitch nodes are created right after their
//!   switch (control-linked from it) and take over the switch's control edges they own;
//! * Send / Recv (SendNotify / RecvNotify) ops are created in GE's order with GE's names,
//!   `event_id` (`notify_id`), `stream_id`, `_logic_stream_id` and a reason naming the rule
//!   (shared by all syncs of the rule, see `sync_reason`): a Send right after its node
//!   (consuming the node's control token, after earlier Sends of the same node), a Recv
//!   right before its node (which consumes the Recv's control token). Program order stays a
//!   topological order, so SSA dominance holds. NetOutput is `func.return`, which has no
//!   control token and takes no control operand: its Recvs and Sends (a split can make it
//!   the last node before a new physical stream) sit right before it, ordered by position
//!   only — it runs no task, so that is the same point of its stream;
//! * the root function gets the model's totals: `stream_num`, `event_num`, `notify_num`,
//!   and `ascend.physical_to_logical_stream` (entry `p` is physical stream `p`'s logical id).

use super::model_from_ir::{
    attr::{ATTACHED_STREAM_INFO_LIST, RESOURCE_ID, RESOURCE_IS_VALID},
    IrModel,
};
use crate::{
    analysis::stream::{model::FastMap, Allocation, EventOrigin, NodeId, StreamId, SyncKind},
    ir::{
        ops::{
            array_attr_value, attr_name, bool_attr_value, build_op_with_ctrl_type, ctrl_operands,
            ctrl_result, ctrl_type, data_operands, dict_with, i64_attr_value, int_list_attr,
            prefetch_ahead, set_attr, set_attrs, set_operands, str_attr_value, str_list_attr,
            OpTemplate, NAME_ATTR,
        },
        IrError, IrRewriter,
    },
};
use melior::{
    ir::{
        attribute::ArrayAttribute, operation::OperationLike, Attribute, Identifier, OperationRef,
        Value,
    },
    ContextRef,
};

/// Attribute names written here.
pub mod attr {
    pub const STREAM_ID: &str = "stream_id";
    pub const LOGIC_STREAM_ID: &str = "_logic_stream_id";
    pub const ATTACHED_STREAM_IDS: &str = "_attached_stream_ids";
    pub const LOGIC_ATTACHED_STREAM_IDS: &str = "_logic_attached_stream_ids";
    pub const ACTIVE_STREAM_LIST: &str = "active_stream_list";
    pub const ACTIVE_LABEL_LIST: &str = "_active_label_list";
    pub const EVENT_ID: &str = "event_id";
    pub const NOTIFY_ID: &str = "notify_id";
    pub const REASON: &str = "ascend.stream_reason";
    pub const STREAM_NUM: &str = "stream_num";
    pub const EVENT_NUM: &str = "event_num";
    pub const NOTIFY_NUM: &str = "notify_num";
    pub const PHYSICAL_TO_LOGICAL: &str = "ascend.physical_to_logical_stream";
}

/// The names of the attributes written on every op, made once.
struct AttrNames<'c> {
    stream_id: Identifier<'c>,
    logic_stream_id: Identifier<'c>,
    reason: Identifier<'c>,
    attached_stream_ids: Identifier<'c>,
    logic_attached_stream_ids: Identifier<'c>,
    active_stream_list: Identifier<'c>,
    active_label_list: Identifier<'c>,
}

impl<'c> AttrNames<'c> {
    fn new(context: ContextRef<'c>) -> Self {
        let name = |n| attr_name(context, n);
        AttrNames {
            stream_id: name(attr::STREAM_ID),
            logic_stream_id: name(attr::LOGIC_STREAM_ID),
            reason: name(attr::REASON),
            attached_stream_ids: name(attr::ATTACHED_STREAM_IDS),
            logic_attached_stream_ids: name(attr::LOGIC_ATTACHED_STREAM_IDS),
            active_stream_list: name(attr::ACTIVE_STREAM_LIST),
            active_label_list: name(attr::ACTIVE_LABEL_LIST),
        }
    }
}

/// What the write-back created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub sync_ops: usize,
    pub stream_active_ops: usize,
}

/// A located failure of the write-back (an IR invariant the view relied on did not hold).
pub type ApplyError<'c> = crate::ir::LocatedError<'c>;

/// Applies `alloc` (decided on `model.graph`) to the IR. `explain` writes the
/// `ascend.stream_reason` attributes.
pub fn apply<'c, 'a>(
    model: &IrModel<'c, 'a>,
    alloc: &Allocation,
    explain: bool,
) -> Result<Applied, ApplyError<'c>> {
    let root = model.funcs[0];
    let context = root.context();
    let rewriter = IrRewriter::for_op(root);
    let rw = rewriter.rewriter();
    let sg = &model.graph;
    let ctrl_ty = ctrl_type(context).map_err(|e| ApplyError {
        location: root.location(),
        message: format!("stream-alloc: {e}"),
    })?;
    let at = |op: OperationRef<'c, 'a>| {
        move |e: IrError| ApplyError {
            location: op.location(),
            message: format!("stream-alloc: cannot rewrite the IR: {e}"),
        }
    };
    // Stream ids repeat on every op: build each id attribute once.
    let top = alloc.stream_num.max(alloc.logical.stream_num).max(0);
    let ids: Vec<Attribute> = (-1..=top).map(|v| i64_attr_value(context, v)).collect();
    let int = |v: i64| match usize::try_from(v + 1).ok().and_then(|i| ids.get(i)) {
        Some(&a) => a,
        None => i64_attr_value(context, v),
    };

    // 1. Stream attributes on every node.
    let reasons: Vec<Attribute> = alloc
        .logical
        .decisions
        .iter()
        .map(|d| str_attr_value(context, &format!("{}: {}", d.rule.as_str(), d.detail)))
        .collect();
    // Every attribute of an op in one dictionary update (names made once).
    let names = AttrNames::new(context);
    let mut entries: Vec<(Identifier, Attribute)> = Vec::with_capacity(8);
    for (n, &op) in model.ops.iter().enumerate() {
        prefetch_ahead(&model.ops, n);
        if model.net_output[n] {
            continue;
        }
        entries.clear();
        entries.push((names.stream_id, int(alloc.stream[n])));
        entries.push((names.logic_stream_id, int(alloc.logical.stream[n])));
        if explain {
            let reason = reasons[alloc.logical.decision_of[n] as usize];
            entries.push((names.reason, reason));
        }
        if !alloc.attached[n].is_empty() {
            let physical = int_list_attr(context, &alloc.attached[n]);
            entries.push((names.attached_stream_ids, physical));
            let logical = int_list_attr(context, &alloc.logical.attached[n]);
            entries.push((names.logic_attached_stream_ids, logical));
        }
        if let Some(list) = alloc.activation.active_streams.get(&n) {
            entries.push((names.active_stream_list, int_list_attr(context, list)));
        }
        if let Some(labels) = alloc.activation.active_labels.get(&n) {
            if *labels != sg.node(n).attrs().active_label_list {
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                entries.push((names.active_label_list, str_list_attr(context, &labels)));
            }
        }
        set_attrs(&rw, op, &entries);
    }
    // GE's SetAttachedStreamIds: each element of `_attached_stream_info_list` that got a
    // stream records it (the physical id after the split) and is marked valid.
    for &(n, start) in &model.attached_lists {
        let op = model.ops[n];
        let reqs = &sg.node(n).attrs().attached;
        let Some(list) = op
            .attribute(ATTACHED_STREAM_INFO_LIST)
            .ok()
            .and_then(|a| ArrayAttribute::try_from(a).ok())
        else {
            continue;
        };
        let mut elements = Vec::with_capacity(list.len());
        for j in 0..list.len() {
            let Ok(element) = list.element(j) else {
                continue;
            };
            let r = start + j;
            let stream = reqs.get(r).filter(|req| req.required).and_then(|_| {
                let k = reqs[..r].iter().filter(|q| q.required).count();
                alloc.attached[n].get(k)
            });
            let element = match stream {
                Some(&s) => dict_with(
                    context,
                    element,
                    &[
                        (RESOURCE_ID, int(s)),
                        (RESOURCE_IS_VALID, bool_attr_value(context, true)),
                    ],
                )
                .unwrap_or(element),
                None => element,
            };
            elements.push(element);
        }
        set_attr(
            &rw,
            op,
            ATTACHED_STREAM_INFO_LIST,
            array_attr_value(context, &elements),
        );
    }

    let logical_of = |s: StreamId| -> StreamId {
        alloc
            .split
            .physical_to_logical
            .get(&s)
            .copied()
            .unwrap_or(s)
    };
    let mut applied = Applied::default();

    // 2. StreamActive ops after their StreamSwitch.
    let mut last_after: FastMap<NodeId, OperationRef<'c, 'a>> = FastMap::default();
    for (i, p) in alloc.activation.planned.iter().enumerate() {
        let switch = model.ops[p.switch];
        let token = ctrl_result(switch).ok_or_else(|| ApplyError {
            location: switch.location(),
            message: "stream-alloc: a StreamSwitch without a control result".into(),
        })?;
        let key = alloc.activation.planned_key(i);
        let streams = alloc
            .activation
            .active_streams
            .get(&key)
            .cloned()
            .unwrap_or_default();
        let labels: Vec<&str> = alloc
            .activation
            .active_labels
            .get(&key)
            .map(|v| v.iter().map(String::as_str).collect())
            .unwrap_or_else(|| vec![p.label.as_str()]);
        let mut attrs = vec![
            (NAME_ATTR, str_attr_value(context, &p.name)),
            (attr::STREAM_ID, int(p.stream)),
            (attr::LOGIC_STREAM_ID, int(logical_of(p.stream))),
            (attr::ACTIVE_STREAM_LIST, int_list_attr(context, &streams)),
            (attr::ACTIVE_LABEL_LIST, str_list_attr(context, &labels)),
        ];
        if explain {
            let why = format!(
                "stream-switch-active: activates label `{}` of `{}` on its own stream",
                p.label,
                sg.node(p.switch).name
            );
            attrs.push((attr::REASON, str_attr_value(context, &why)));
        }
        let op = build_op_with_ctrl_type(
            switch.location(),
            "StreamActive",
            &[],
            &[token],
            &[],
            &attrs,
            ctrl_ty,
        )
        .map_err(at(switch))?;
        let after = last_after.get(&p.switch).copied().unwrap_or(switch);
        let active = rw.insert_after(after, op);
        last_after.insert(p.switch, active);
        let new_token = ctrl_result(active).ok_or_else(|| ApplyError {
            location: switch.location(),
            message: "stream-alloc: built a StreamActive without a control result".into(),
        })?;
        for &t in &p.moved_ctrl_targets {
            let target = model.ops[t];
            let ctrl: Vec<Value> = ctrl_operands(target)
                .into_iter()
                .map(|v| if v == token { new_token } else { v })
                .collect();
            set_operands(&rw, target, &data_operands(target), &ctrl).map_err(at(target))?;
        }
        applied.stream_active_ops += 1;
    }

    // 3. Send / Recv ops, in GE's order. One template per kind resolves the op and its
    // attribute names once; event ids repeat (a Send and its Recv), so they are cached.
    let names = |id_attr: &'static str| {
        let mut v = vec![NAME_ATTR, id_attr, attr::STREAM_ID, attr::LOGIC_STREAM_ID];
        if explain {
            v.push(attr::REASON);
        }
        v
    };
    let template = |ty: &str, id_attr: &'static str| {
        OpTemplate::new(context, ty, &names(id_attr), ctrl_ty).map_err(at(root))
    };
    let templates = [
        template("Send", attr::EVENT_ID)?,
        template("Recv", attr::EVENT_ID)?,
        template("SendNotify", attr::NOTIFY_ID)?,
        template("RecvNotify", attr::NOTIFY_ID)?,
    ];
    let mut sync_ids: Vec<Option<Attribute>> = Vec::new();
    let mut last_send: FastMap<NodeId, OperationRef<'c, 'a>> = FastMap::default();
    // The first Send placed before a NetOutput: its Recvs go before that (wait, then signal).
    let mut first_send: FastMap<NodeId, OperationRef<'c, 'a>> = FastMap::default();
    let mut recv_tokens: Vec<(NodeId, Vec<Value<'c, 'a>>)> = Vec::new();
    let mut recv_slot: FastMap<NodeId, usize> = FastMap::default();
    let mut values: Vec<Attribute> = Vec::with_capacity(5);
    // One reason per (rule, kind, side): a handful of strings for any number of syncs.
    let mut sync_reasons: Vec<((EventOrigin, SyncKind, bool), Attribute)> = Vec::new();
    for p in &alloc.planned {
        let anchor = model.ops[p.anchor];
        let rec = &alloc.syncs.recs[p.sync];
        let id = p.id as usize;
        if sync_ids.len() <= id {
            sync_ids.resize(id + 1, None);
        }
        let id_attr = *sync_ids[id].get_or_insert_with(|| int(i64::from(p.id)));
        values.clear();
        values.extend([
            str_attr_value(context, &p.name),
            id_attr,
            int(p.stream),
            int(logical_of(p.stream)),
        ]);
        let sending = p.ty.starts_with("Send");
        if explain {
            let key = (rec.origin, rec.kind, sending);
            let reason = match sync_reasons.iter().find(|(k, _)| *k == key) {
                Some(&(_, reason)) => reason,
                None => {
                    let reason = str_attr_value(context, &sync_reason(key.0, key.1, sending));
                    sync_reasons.push((key, reason));
                    reason
                }
            };
            values.push(reason);
        }
        let template = &templates[match p.ty {
            "Send" => 0,
            "Recv" => 1,
            "SendNotify" => 2,
            _ => 3,
        }];
        let location = anchor.location();
        if sending && model.net_output[p.anchor] {
            // NetOutput (`func.return`) does no work and cannot be followed: its Sends go
            // right before it, in order, ordered by position only.
            let op = template.build(location, &[], &values).map_err(at(anchor))?;
            let send = rw.insert_before(anchor, op);
            first_send.entry(p.anchor).or_insert(send);
        } else if sending {
            let token = ctrl_result(anchor).ok_or_else(|| ApplyError {
                location,
                message: format!(
                    "stream-alloc: `{}` cannot be placed after `{}`, which has no control \
                     result",
                    p.name,
                    sg.node(p.anchor).name
                ),
            })?;
            let op = template
                .build(location, &[token], &values)
                .map_err(at(anchor))?;
            let after = last_send.get(&p.anchor).copied().unwrap_or(anchor);
            let send = rw.insert_after(after, op);
            last_send.insert(p.anchor, send);
        } else {
            let op = template.build(location, &[], &values).map_err(at(anchor))?;
            let before = first_send.get(&p.anchor).copied().unwrap_or(anchor);
            let recv = rw.insert_before(before, op);
            if !model.net_output[p.anchor] {
                let token = ctrl_result(recv).ok_or_else(|| ApplyError {
                    location,
                    message: "stream-alloc: built a Recv without a control result".into(),
                })?;
                let slot = *recv_slot.entry(p.anchor).or_insert_with(|| {
                    recv_tokens.push((p.anchor, Vec::new()));
                    recv_tokens.len() - 1
                });
                recv_tokens[slot].1.push(token);
            }
        }
        applied.sync_ops += 1;
    }
    for (n, tokens) in recv_tokens {
        let op = model.ops[n];
        let mut ctrl = ctrl_operands(op);
        ctrl.extend(tokens);
        set_operands(&rw, op, &data_operands(op), &ctrl).map_err(at(op))?;
    }

    // 4. Model totals on the root function.
    set_attr(&rw, root, attr::STREAM_NUM, int(alloc.stream_num));
    set_attr(&rw, root, attr::EVENT_NUM, int(i64::from(alloc.event_num)));
    set_attr(
        &rw,
        root,
        attr::NOTIFY_NUM,
        int(i64::from(alloc.notify_num)),
    );
    let physical: Vec<i64> = (0..alloc.stream_num)
        .map(|p| {
            alloc
                .split
                .physical_to_logical
                .get(&p)
                .copied()
                .unwrap_or(-1)
        })
        .collect();
    set_attr(
        &rw,
        root,
        attr::PHYSICAL_TO_LOGICAL,
        int_list_attr(context, &physical),
    );
    Ok(applied)
}

/// The `ascend.stream_reason` of a Send (`sending`) or Recv: the rule that made the sync and
/// how to find its peer. It names no node, so every sync of one rule shares one uniqued
/// string (a per-sync text would add a string to MLIR's global uniquer for each of the
/// hundreds of thousands of Send/Recv ops of a large graph). The ends stay in the IR — a
/// Send follows its node, a Recv precedes its node, the two share the id — and the summary
/// (`--stream-alloc-summary`) lists every sync with its send and recv nodes.
fn sync_reason(origin: EventOrigin, kind: SyncKind, sending: bool) -> String {
    let (what, id, peer) = match (kind, sending) {
        (SyncKind::Event, true) => ("event", "event_id", "Recv"),
        (SyncKind::Event, false) => ("event", "event_id", "Send"),
        (SyncKind::Notify, true) => ("notify", "notify_id", "RecvNotify"),
        (SyncKind::Notify, false) => ("notify", "notify_id", "SendNotify"),
    };
    format!(
        "{}: {what}; the {peer} with this {id} is its peer",
        origin.as_str()
    )
}
