//! Attribute writes collected per node and written once per op.
//!
//! Setting attributes one by one (`mlirOperationSetAttributeByName`) builds and uniques a
//! new attribute dictionary per call. The static-plan passes write one to four attributes on
//! most ops (`_inplace_support_input_index`, `reuse_input_index`, `output_offset`,
//! `input_offset`, ...), and the fused `--ge-mem-plan-pipeline` writes all of them: a batch
//! collects `(node, name, value)` and [`AttrBatch::flush`] makes one dictionary update per
//! op ([`ops::set_attrs`], the C-API extension of `src/ir/capi_ext.cpp`).
//!
//! A later write of the same name on the same node wins, as with one-by-one writes. Reads of
//! the IR between a write and the flush do not see the write: a stage that reads attributes
//! an earlier stage writes must flush first (the fused pipeline does, see
//! [`super::mem_plan_pipeline`]).

use super::model_from_ir::IrModel;
use crate::{
    analysis::memory::model::NodeId,
    ir::{ops, Rewriter},
};
use melior::{
    ir::{Attribute, Identifier},
    ContextRef,
};

/// Pending attribute writes on the nodes of one model.
pub struct AttrBatch<'c> {
    context: ContextRef<'c>,
    /// Names made once (`&'static str` pointer equality is not guaranteed: compare text).
    names: Vec<(&'static str, Identifier<'c>)>,
    /// `(node, name, value)` in write order.
    pending: Vec<(u32, Identifier<'c>, Attribute<'c>)>,
}

impl<'c> AttrBatch<'c> {
    pub fn new(context: ContextRef<'c>) -> Self {
        AttrBatch {
            context,
            names: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// The context attributes are made in.
    pub fn context(&self) -> ContextRef<'c> {
        self.context
    }

    /// The interned name `name` (a handful of distinct names per pass: a linear scan).
    fn name(&mut self, name: &'static str) -> Identifier<'c> {
        if let Some(&(_, id)) = self.names.iter().find(|(n, _)| *n == name) {
            return id;
        }
        let id = ops::attr_name(self.context, name);
        self.names.push((name, id));
        id
    }

    /// Room for `additional` more writes. A stage that knows a bound (a few writes per node)
    /// reserves it up front: room never written costs no memory, while growing a queue of a
    /// few million writes by doubling copies it and writes fresh pages twice over.
    pub fn reserve(&mut self, additional: usize) {
        self.pending.reserve(additional);
    }

    /// Sets `name = value` on node `n` at the next flush.
    pub fn set(&mut self, n: NodeId, name: &'static str, value: Attribute<'c>) {
        let id = self.name(name);
        self.pending.push((n.0, id, value));
    }

    /// Sets the integer `name = value` on node `n` at the next flush.
    pub fn set_int(&mut self, n: NodeId, name: &'static str, value: i64) {
        let value = ops::i64_attr_value(self.context, value);
        self.set(n, name, value);
    }

    /// Follows a renumbering of the model's nodes ([`IrModel::renumber_as_ir`]): `new_of`
    /// is the new id of every old node (`u32::MAX`: dropped, its writes too).
    pub fn renumber(&mut self, new_of: &[u32]) {
        for entry in &mut self.pending {
            entry.0 = new_of.get(entry.0 as usize).copied().unwrap_or(u32::MAX);
        }
        self.pending.retain(|e| e.0 != u32::MAX);
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Writes every pending attribute: one dictionary update per op, nodes in id order.
    /// Nodes without an op (erased) are skipped.
    pub fn flush(&mut self, model: &IrModel<'c, '_>, rw: &Rewriter<'c, '_>) {
        // Stages append in node order, so this is a merge of a few sorted runs; stable, so
        // the last write of a name on a node stays last.
        self.pending.sort_by_key(|&(n, _, _)| n);
        // Where each node's run of writes starts, so the walk can prefetch the ops (and
        // their dictionaries) of the nodes a few runs ahead (see [`ops::prefetch_ahead`]).
        let mut starts: Vec<u32> = Vec::new();
        for (i, entry) in self.pending.iter().enumerate() {
            if i == 0 || self.pending[i - 1].0 != entry.0 {
                starts.push(i as u32);
            }
        }
        let pending = &self.pending;
        let op_of_run = |r: usize| {
            let &start = starts.get(r)?;
            model.op(NodeId(pending[start as usize].0))
        };
        let mut entries: Vec<(Identifier<'c>, Attribute<'c>)> = Vec::new();
        for (r, &start) in starts.iter().enumerate() {
            ops::prefetch_ahead_with(r, op_of_run);
            let n = pending[start as usize].0;
            entries.clear();
            entries.extend(
                pending[start as usize..]
                    .iter()
                    .take_while(|e| e.0 == n)
                    .map(|&(_, name, value)| (name, value)),
            );
            if let Some(op) = model.op(NodeId(n)) {
                ops::set_attrs(rw, op, &entries);
            }
        }
        self.pending.clear();
    }
}
