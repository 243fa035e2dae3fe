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
//!
//! How: the allocation becomes a decisions table keyed by op ([`StreamDecisions`]: each
//! op's node, the StreamActives planned at a switch, the syncs anchored at a node), and the
//! [`Writer`]'s edits run as rewrite patterns rooted at the op they change, one per op name
//! ([`populate_stream_alloc_patterns`]), under MLIR's walk driver (program order). Each
//! op's edits are the ones the phases above make at it, in the same order; every insertion
//! is placed relative to its own node only (after it, after its last Send, before it,
//! before its first Send), and the control operands a StreamActive takes over belong to ops
//! after its switch, so the IR is the one the phase-by-phase loop makes
//! (`GE_MLIR_REPLAY=loop` runs that loop; `tests/replay_drivers.rs` compares the two).

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
            OpKey, OpKeyMap, OpTemplate, NAME_ATTR,
        },
        IrError, IrRewriter, OpPattern, PatternSet, Rewriter,
    },
    transforms::memory::apply_plan::{replay_driver, ReplayDriver},
};
use melior::{
    ir::{
        attribute::ArrayAttribute, operation::OperationLike, Attribute, Identifier, OperationRef,
        Type, Value,
    },
    ContextRef,
};
use std::{cell::RefCell, rc::Rc};

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
    let writer = Writer::new((model, alloc), explain)?;
    match replay_driver() {
        ReplayDriver::Loop => {
            let rewriter = IrRewriter::for_op(root);
            writer.apply_in_phases(&rewriter.rewriter())
        }
        ReplayDriver::Patterns => {
            let decisions = StreamDecisions::new(model, alloc);
            let writer = Rc::new(RefCell::new(writer));
            let mut set = PatternSet::in_context(root.context());
            populate_stream_alloc_patterns(&mut set, decisions, writer.clone());
            let module = root.parent_operation().unwrap_or(root);
            set.freeze().walk_and_apply(module);
            let writer = writer.borrow();
            writer.outcome(module)
        }
    }
}

/// The allocation keyed by the ops it changes.
pub struct StreamDecisions {
    /// Op -> its node.
    node_of: OpKeyMap<u32>,
    /// Node -> its `_attached_stream_info_list` start ([`IrModel::attached_lists`]).
    attached: FastMap<NodeId, usize>,
    /// The StreamActives planned at switch `n`: `active_index[active_start[n]..active_start[n + 1]]`.
    active_start: Vec<u32>,
    active_index: Vec<u32>,
    /// The syncs anchored at node `n`, in GE's order, the same way.
    sync_start: Vec<u32>,
    sync_index: Vec<u32>,
    /// The root function (model totals).
    root: OpKey,
    /// The op names of the nodes, and `func.func`: one pattern each.
    root_names: Vec<String>,
}

/// `items` grouped by `key(item)` (stable): (start of each of `n` groups, plus the end;
/// the items' indices).
fn group(n: usize, keys: impl Iterator<Item = usize> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for k in keys.clone() {
        start[k + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut index = vec![0u32; start[n] as usize];
    for (i, k) in keys.enumerate() {
        index[fill[k] as usize] = i as u32;
        fill[k] += 1;
    }
    (start, index)
}

impl StreamDecisions {
    pub fn new(model: &IrModel, alloc: &Allocation) -> Self {
        let n = model.ops.len();
        let mut node_of = OpKeyMap::default();
        node_of.reserve(n);
        // Op names are uniqued: one identifier per name.
        let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::new();
        let mut root_names = vec!["func.func".to_string()];
        for (i, &op) in model.ops.iter().enumerate() {
            node_of.insert(OpKey::of(op), i as u32);
            let name = op.name();
            if seen.insert(name.to_raw().ptr as usize) {
                if let Ok(text) = name.as_string_ref().as_str() {
                    if text != "func.func" {
                        root_names.push(text.to_string());
                    }
                }
            }
        }
        let (active_start, active_index) =
            group(n, alloc.activation.planned.iter().map(|p| p.switch));
        let (sync_start, sync_index) = group(n, alloc.planned.iter().map(|p| p.anchor));
        StreamDecisions {
            node_of,
            attached: model.attached_lists.iter().copied().collect(),
            active_start,
            active_index,
            sync_start,
            sync_index,
            root: OpKey::of(model.funcs[0]),
            root_names,
        }
    }

    fn range(start: &[u32], index: &[u32], n: usize) -> Vec<usize> {
        index[start[n] as usize..start[n + 1] as usize]
            .iter()
            .map(|&i| i as usize)
            .collect()
    }
}

/// Adds the patterns that apply the allocation behind `writer` (its edits keyed by
/// `decisions`) to `set`, for MLIR's walk driver.
pub fn populate_stream_alloc_patterns<'c, 'p, 'a, S>(
    set: &mut PatternSet<'c, 'p>,
    decisions: StreamDecisions,
    writer: Rc<RefCell<Writer<'c, 'a, S>>>,
) where
    S: WriteSource<'c, 'a> + 'p,
    'a: 'p,
{
    let decisions = Rc::new(decisions);
    for name in &decisions.root_names {
        let (decisions, writer) = (decisions.clone(), writer.clone());
        set.push(OpPattern::new(name, 1, move |op, rw| {
            writer.borrow_mut().at_op(&decisions, op, rw)
        }));
    }
}

/// The write-back: what is decided once (attribute values, templates) and what the edits
/// learn as they go (the last Send of a node, the Recv tokens of a node).
pub struct Writer<'c, 'a, S> {
    /// The model and the allocation (borrowed by the pass, owned by a host's patterns).
    source: S,
    state: WriteState<'c, 'a>,
}

/// Where a [`Writer`] reads the decisions.
pub trait WriteSource<'c, 'a> {
    fn model(&self) -> &IrModel<'c, 'a>;
    fn alloc(&self) -> &Allocation;
}

impl<'c, 'a> WriteSource<'c, 'a> for (&IrModel<'c, 'a>, &Allocation) {
    fn model(&self) -> &IrModel<'c, 'a> {
        self.0
    }
    fn alloc(&self) -> &Allocation {
        self.1
    }
}

impl<'c, 'a> WriteSource<'c, 'a> for (IrModel<'c, 'a>, Allocation) {
    fn model(&self) -> &IrModel<'c, 'a> {
        &self.0
    }
    fn alloc(&self) -> &Allocation {
        &self.1
    }
}

impl<'c, 'a, S: WriteSource<'c, 'a>> Writer<'c, 'a, S> {
    pub fn new(source: S, explain: bool) -> Result<Self, ApplyError<'c>> {
        let state = WriteState::new(source.model(), source.alloc(), explain)?;
        Ok(Writer { source, state })
    }

    /// The phases one after the other over the whole graph (`GE_MLIR_REPLAY=loop`).
    fn apply_in_phases(mut self, rw: &Rewriter<'c, '_>) -> Result<Applied, ApplyError<'c>> {
        let (model, alloc) = (self.source.model(), self.source.alloc());
        self.state.apply_in_phases(model, alloc, rw)
    }

    /// The edits at `op` (a pattern callback).
    fn at_op(
        &mut self,
        decisions: &StreamDecisions,
        op: OperationRef<'c, '_>,
        rw: &Rewriter<'c, '_>,
    ) -> bool {
        let (model, alloc) = (self.source.model(), self.source.alloc());
        self.state.at_op(model, alloc, decisions, op, rw)
    }

    /// After a walk: what was created, or the first error (also when an edit never ran).
    fn outcome(&self, module: OperationRef<'c, '_>) -> Result<Applied, ApplyError<'c>> {
        let (model, alloc) = (self.source.model(), self.source.alloc());
        self.state.outcome(model, alloc, module)
    }

    /// The writer for a host's pattern set: no pass reads its outcome, so its first error
    /// is reported as an MLIR error where it happens.
    pub fn reporting(mut self) -> Self {
        self.state.report_errors = true;
        self
    }
}

/// What the write-back decided once and learns as it goes.
struct WriteState<'c, 'a> {
    explain: bool,
    context: ContextRef<'c>,
    ctrl_ty: Type<'c>,
    /// `ids[v + 1]`: the attribute of stream id `v` (ids repeat on every op).
    ids: Vec<Attribute<'c>>,
    reasons: Vec<Attribute<'c>>,
    names: AttrNames<'c>,
    /// Send, Recv, SendNotify, RecvNotify.
    templates: [OpTemplate<'c>; 4],
    sync_ids: Vec<Option<Attribute<'c>>>,
    last_after: FastMap<NodeId, OperationRef<'c, 'a>>,
    last_send: FastMap<NodeId, OperationRef<'c, 'a>>,
    /// The first Send placed before a NetOutput: its Recvs go before that (wait, then signal).
    first_send: FastMap<NodeId, OperationRef<'c, 'a>>,
    recv_tokens: Vec<(NodeId, Vec<Value<'c, 'a>>)>,
    recv_slot: FastMap<NodeId, usize>,
    /// One reason per (rule, kind, side): a handful of strings for any number of syncs.
    sync_reasons: Vec<((EventOrigin, SyncKind, bool), Attribute<'c>)>,
    entries: Vec<(Identifier<'c>, Attribute<'c>)>,
    applied: Applied,
    /// Nodes, StreamActives and syncs written, for the check after a walk.
    done: (usize, usize, usize),
    error: Option<ApplyError<'c>>,
    /// Emit the first error as an MLIR error when it happens ([`Writer::reporting`]).
    report_errors: bool,
}

impl<'c, 'a> WriteState<'c, 'a> {
    fn new(
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        explain: bool,
    ) -> Result<Self, ApplyError<'c>> {
        let root = model.funcs[0];
        let context = root.context();
        let ctrl_ty = ctrl_type(context).map_err(|e| ApplyError {
            location: root.location(),
            message: format!("stream-alloc: {e}"),
        })?;
        // Stream ids repeat on every op: build each id attribute once.
        let top = alloc.stream_num.max(alloc.logical.stream_num).max(0);
        let ids: Vec<Attribute> = (-1..=top).map(|v| i64_attr_value(context, v)).collect();
        let reasons: Vec<Attribute> = alloc
            .logical
            .decisions
            .iter()
            .map(|d| str_attr_value(context, &format!("{}: {}", d.rule.as_str(), d.detail)))
            .collect();
        // One template per sync kind resolves the op and its attribute names once.
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
        Ok(WriteState {
            explain,
            context,
            ctrl_ty,
            ids,
            reasons,
            names: AttrNames::new(context),
            templates,
            sync_ids: Vec::new(),
            last_after: FastMap::default(),
            last_send: FastMap::default(),
            first_send: FastMap::default(),
            recv_tokens: Vec::new(),
            recv_slot: FastMap::default(),
            sync_reasons: Vec::new(),
            entries: Vec::with_capacity(8),
            applied: Applied::default(),
            done: (0, 0, 0),
            error: None,
            report_errors: false,
        })
    }

    fn int(&self, v: i64) -> Attribute<'c> {
        match usize::try_from(v + 1).ok().and_then(|i| self.ids.get(i)) {
            Some(&a) => a,
            None => i64_attr_value(self.context, v),
        }
    }

    fn logical_of(alloc: &Allocation, s: StreamId) -> StreamId {
        alloc
            .split
            .physical_to_logical
            .get(&s)
            .copied()
            .unwrap_or(s)
    }

    /// The phases one after the other over the whole graph (`GE_MLIR_REPLAY=loop`).
    fn apply_in_phases(
        &mut self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        rw: &Rewriter<'c, '_>,
    ) -> Result<Applied, ApplyError<'c>> {
        // 1. Stream attributes on every node.
        for n in 0..model.ops.len() {
            prefetch_ahead(&model.ops, n);
            self.node_attrs(model, alloc, rw, n);
        }
        for &(n, start) in &model.attached_lists {
            self.attached_list(model, alloc, rw, n, start);
        }
        // 2. StreamActive ops after their StreamSwitch.
        for i in 0..alloc.activation.planned.len() {
            self.stream_active(model, alloc, rw, i)?;
        }
        // 3. Send / Recv ops, in GE's order.
        for k in 0..alloc.planned.len() {
            self.sync(model, alloc, rw, k)?;
        }
        for slot in 0..self.recv_tokens.len() {
            self.take_recv_tokens(model, rw, slot)?;
        }
        // 4. Model totals on the root function.
        self.totals(model, alloc, rw);
        Ok(self.applied)
    }

    /// The edits at `op` (a pattern callback): its node's phases in order, or the totals on
    /// the root function.
    fn at_op(
        &mut self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        decisions: &StreamDecisions,
        op: OperationRef<'c, '_>,
        rw: &Rewriter<'c, '_>,
    ) -> bool {
        if self.error.is_some() {
            return false;
        }
        let key = OpKey::of(op);
        if key == decisions.root {
            self.totals(model, alloc, rw);
            return true;
        }
        let Some(&n) = decisions.node_of.get(&key) else {
            return false;
        };
        let n = n as usize;
        let result: Result<(), ApplyError<'c>> = (|| {
            self.node_attrs(model, alloc, rw, n);
            self.done.0 += 1;
            if let Some(&start) = decisions.attached.get(&n) {
                self.attached_list(model, alloc, rw, n, start);
            }
            for i in StreamDecisions::range(&decisions.active_start, &decisions.active_index, n) {
                self.stream_active(model, alloc, rw, i)?;
                self.done.1 += 1;
            }
            for k in StreamDecisions::range(&decisions.sync_start, &decisions.sync_index, n) {
                self.sync(model, alloc, rw, k)?;
                self.done.2 += 1;
            }
            if let Some(&slot) = self.recv_slot.get(&n) {
                self.take_recv_tokens(model, rw, slot)?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            if self.report_errors {
                crate::ir::external_pass::emit_error(e.location, &e.message);
            }
            self.error = Some(e);
        }
        true
    }

    /// After a walk: what was created, or the first error (also when an edit never ran).
    fn outcome(
        &self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        module: OperationRef<'c, '_>,
    ) -> Result<Applied, ApplyError<'c>> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let wanted = (
            model.ops.len(),
            alloc.activation.planned.len(),
            alloc.planned.len(),
        );
        if self.done != wanted {
            return Err(ApplyError {
                location: module.location(),
                message: format!(
                    "stream-alloc: internal error: the walk wrote {:?} of {:?} (nodes, \
                     StreamActives, syncs)",
                    self.done, wanted
                ),
            });
        }
        Ok(self.applied)
    }

    /// Phase 1 at node `n`: its stream attributes in one dictionary update.
    fn node_attrs(
        &mut self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        rw: &Rewriter<'c, '_>,
        n: NodeId,
    ) {
        if model.net_output[n] {
            return;
        }
        let mut entries = std::mem::take(&mut self.entries);
        entries.clear();
        entries.push((self.names.stream_id, self.int(alloc.stream[n])));
        entries.push((
            self.names.logic_stream_id,
            self.int(alloc.logical.stream[n]),
        ));
        if self.explain {
            let reason = self.reasons[alloc.logical.decision_of[n] as usize];
            entries.push((self.names.reason, reason));
        }
        if !alloc.attached[n].is_empty() {
            let physical = int_list_attr(self.context, &alloc.attached[n]);
            entries.push((self.names.attached_stream_ids, physical));
            let logical = int_list_attr(self.context, &alloc.logical.attached[n]);
            entries.push((self.names.logic_attached_stream_ids, logical));
        }
        if let Some(list) = alloc.activation.active_streams.get(&n) {
            entries.push((
                self.names.active_stream_list,
                int_list_attr(self.context, list),
            ));
        }
        if let Some(labels) = alloc.activation.active_labels.get(&n) {
            if *labels != model.graph.node(n).attrs().active_label_list {
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                entries.push((
                    self.names.active_label_list,
                    str_list_attr(self.context, &labels),
                ));
            }
        }
        set_attrs(rw, model.ops[n], &entries);
        self.entries = entries;
    }

    /// GE's SetAttachedStreamIds at node `n`: each element of `_attached_stream_info_list`
    /// that got a stream records it (the physical id after the split) and is marked valid.
    fn attached_list(
        &self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        rw: &Rewriter<'c, '_>,
        n: NodeId,
        start: usize,
    ) {
        let op = model.ops[n];
        let reqs = &model.graph.node(n).attrs().attached;
        let Some(list) = op
            .attribute(ATTACHED_STREAM_INFO_LIST)
            .ok()
            .and_then(|a| ArrayAttribute::try_from(a).ok())
        else {
            return;
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
                    self.context,
                    element,
                    &[
                        (RESOURCE_ID, self.int(s)),
                        (RESOURCE_IS_VALID, bool_attr_value(self.context, true)),
                    ],
                )
                .unwrap_or(element),
                None => element,
            };
            elements.push(element);
        }
        set_attr(
            rw,
            op,
            ATTACHED_STREAM_INFO_LIST,
            array_attr_value(self.context, &elements),
        );
    }

    /// Phase 2, planned StreamActive `i`: created after its switch (after the switch's
    /// earlier StreamActives), taking over the switch's control edges it owns.
    fn stream_active(
        &mut self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        rw: &Rewriter<'c, '_>,
        i: usize,
    ) -> Result<(), ApplyError<'c>> {
        let context = self.context;
        let p = &alloc.activation.planned[i];
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
            (attr::STREAM_ID, self.int(p.stream)),
            (
                attr::LOGIC_STREAM_ID,
                self.int(Self::logical_of(alloc, p.stream)),
            ),
            (attr::ACTIVE_STREAM_LIST, int_list_attr(context, &streams)),
            (attr::ACTIVE_LABEL_LIST, str_list_attr(context, &labels)),
        ];
        if self.explain {
            let why = format!(
                "stream-switch-active: activates label `{}` of `{}` on its own stream",
                p.label,
                model.graph.node(p.switch).name
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
            self.ctrl_ty,
        )
        .map_err(at(switch))?;
        let after = self.last_after.get(&p.switch).copied().unwrap_or(switch);
        let active = rw.insert_after(after, op);
        self.last_after.insert(p.switch, active);
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
            set_operands(rw, target, &data_operands(target), &ctrl).map_err(at(target))?;
        }
        self.applied.stream_active_ops += 1;
        Ok(())
    }

    /// Phase 3, planned sync `k`: a Send after its node (after the node's earlier Sends), a
    /// Recv before it, whose token the node takes at [`Self::take_recv_tokens`].
    fn sync(
        &mut self,
        model: &IrModel<'c, 'a>,
        alloc: &Allocation,
        rw: &Rewriter<'c, '_>,
        k: usize,
    ) -> Result<(), ApplyError<'c>> {
        let context = self.context;
        let p = &alloc.planned[k];
        let anchor = model.ops[p.anchor];
        let rec = &alloc.syncs.recs[p.sync];
        let id = p.id as usize;
        if self.sync_ids.len() <= id {
            self.sync_ids.resize(id + 1, None);
        }
        let id_attr = match self.sync_ids[id] {
            Some(a) => a,
            None => {
                let a = self.int(i64::from(p.id));
                self.sync_ids[id] = Some(a);
                a
            }
        };
        let mut values = Vec::with_capacity(5);
        values.extend([
            str_attr_value(context, &p.name),
            id_attr,
            self.int(p.stream),
            self.int(Self::logical_of(alloc, p.stream)),
        ]);
        let sending = p.ty.starts_with("Send");
        if self.explain {
            let key = (rec.origin, rec.kind, sending);
            let reason = match self.sync_reasons.iter().find(|(k, _)| *k == key) {
                Some(&(_, reason)) => reason,
                None => {
                    let reason = str_attr_value(context, &sync_reason(key.0, key.1, sending));
                    self.sync_reasons.push((key, reason));
                    reason
                }
            };
            values.push(reason);
        }
        let template = &self.templates[match p.ty {
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
            self.first_send.entry(p.anchor).or_insert(send);
        } else if sending {
            let token = ctrl_result(anchor).ok_or_else(|| ApplyError {
                location,
                message: format!(
                    "stream-alloc: `{}` cannot be placed after `{}`, which has no control \
                     result",
                    p.name,
                    model.graph.node(p.anchor).name
                ),
            })?;
            let op = template
                .build(location, &[token], &values)
                .map_err(at(anchor))?;
            let after = self.last_send.get(&p.anchor).copied().unwrap_or(anchor);
            let send = rw.insert_after(after, op);
            self.last_send.insert(p.anchor, send);
        } else {
            let op = template.build(location, &[], &values).map_err(at(anchor))?;
            let before = self.first_send.get(&p.anchor).copied().unwrap_or(anchor);
            let recv = rw.insert_before(before, op);
            if !model.net_output[p.anchor] {
                let token = ctrl_result(recv).ok_or_else(|| ApplyError {
                    location,
                    message: "stream-alloc: built a Recv without a control result".into(),
                })?;
                let slot = match self.recv_slot.get(&p.anchor) {
                    Some(&slot) => slot,
                    None => {
                        self.recv_tokens.push((p.anchor, Vec::new()));
                        self.recv_slot.insert(p.anchor, self.recv_tokens.len() - 1);
                        self.recv_tokens.len() - 1
                    }
                };
                self.recv_tokens[slot].1.push(token);
            }
        }
        self.applied.sync_ops += 1;
        Ok(())
    }

    /// The node of Recv slot `slot` takes its Recvs' tokens (after its own control operands).
    fn take_recv_tokens(
        &mut self,
        model: &IrModel<'c, 'a>,
        rw: &Rewriter<'c, '_>,
        slot: usize,
    ) -> Result<(), ApplyError<'c>> {
        let (n, tokens) = std::mem::take(&mut self.recv_tokens[slot]);
        let op = model.ops[n];
        let mut ctrl = ctrl_operands(op);
        ctrl.extend(tokens);
        set_operands(rw, op, &data_operands(op), &ctrl).map_err(at(op))
    }

    /// Phase 4: the model totals on the root function.
    fn totals(&self, model: &IrModel<'c, 'a>, alloc: &Allocation, rw: &Rewriter<'c, '_>) {
        let root = model.funcs[0];
        set_attr(rw, root, attr::STREAM_NUM, self.int(alloc.stream_num));
        set_attr(
            rw,
            root,
            attr::EVENT_NUM,
            self.int(i64::from(alloc.event_num)),
        );
        set_attr(
            rw,
            root,
            attr::NOTIFY_NUM,
            self.int(i64::from(alloc.notify_num)),
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
            rw,
            root,
            attr::PHYSICAL_TO_LOGICAL,
            int_list_attr(self.context, &physical),
        );
    }
}

/// The error mapper for IR failures at `op`.
fn at<'c>(op: OperationRef<'c, '_>) -> impl Fn(IrError) -> ApplyError<'c> {
    let location = op.location();
    move |e: IrError| ApplyError {
        location,
        message: format!("stream-alloc: cannot rewrite the IR: {e}"),
    }
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
