//! The rewriter handle every IR mutation goes through.
//!
//! Inside a pattern callback the handle wraps the driver's `PatternRewriter`, so the driver
//! hears about every insertion, erasure and in-place change (the greedy driver keeps raw
//! pointers in its worklist: erasing an op behind its back is a use-after-free). Outside a
//! pattern, [`IrRewriter`] owns a plain `IRRewriter` and hands out the same handle, so the
//! helpers in [`ops`](super::ops) and [`insert`](super::insert) work in both places.

use super::{error::IrError, ops::display_name, prim};
use melior::{
    ir::{operation::OperationLike, BlockRef, Operation, OperationRef, Value},
    Context, ContextRef, IrRewriter as MeliorIrRewriter, RewriterBase,
};

/// A non-owning rewriter handle; see the module docs.
#[derive(Clone, Copy)]
pub struct Rewriter<'c, 'r> {
    base: RewriterBase<'c, 'r>,
}

impl<'c, 'r> Rewriter<'c, 'r> {
    pub(crate) fn from_base(base: RewriterBase<'c, 'r>) -> Self {
        Self { base }
    }

    pub fn context(&self) -> ContextRef<'c> {
        self.base.context()
    }

    /// Inserts `op` right after `anchor` and returns it.
    pub fn insert_after<'a>(
        &self,
        anchor: OperationRef<'c, 'a>,
        op: Operation<'c>,
    ) -> OperationRef<'c, 'a> {
        self.base.set_insertion_point_after(anchor);
        let inserted = self.base.insert(op).to_raw();
        // SAFETY: the op now lives in `anchor`'s block, which is borrowed for 'a.
        unsafe { OperationRef::from_raw(inserted) }
    }

    /// Inserts `op` right before `anchor` and returns it.
    pub fn insert_before<'a>(
        &self,
        anchor: OperationRef<'c, 'a>,
        op: Operation<'c>,
    ) -> OperationRef<'c, 'a> {
        self.base.set_insertion_point_before(anchor);
        let inserted = self.base.insert(op).to_raw();
        // SAFETY: the op now lives in `anchor`'s block, which is borrowed for 'a.
        unsafe { OperationRef::from_raw(inserted) }
    }

    /// Inserts `op` at the start of `block` and returns it.
    pub fn insert_at_start<'a>(
        &self,
        block: BlockRef<'c, 'a>,
        op: Operation<'c>,
    ) -> OperationRef<'c, 'a> {
        self.base.set_insertion_point_to_start(block);
        let inserted = self.base.insert(op).to_raw();
        // SAFETY: the op now lives in `block`, which is borrowed for 'a.
        unsafe { OperationRef::from_raw(inserted) }
    }

    /// Erases `op`. Refuses (instead of leaving dangling uses) when a result is still used.
    pub fn erase(&self, op: OperationRef<'c, '_>) -> Result<(), IrError> {
        if op.results().any(|r| !prim::raw_uses(r.into()).is_empty()) {
            return Err(IrError::HasUses(display_name(op)));
        }
        self.base.erase_op(op);
        Ok(())
    }

    /// Replaces every use of `from` by `to`.
    pub fn replace_all_uses_with(&self, from: Value<'c, '_>, to: Value<'c, '_>) {
        self.base.replace_all_uses_with(from, to);
    }

    /// Replaces every use of `from` by `to`, except the uses by `except`.
    pub fn replace_all_uses_except(
        &self,
        from: Value<'c, '_>,
        to: Value<'c, '_>,
        except: OperationRef<'c, '_>,
    ) {
        self.base.replace_all_uses_except(from, to, except);
    }

    /// Replaces the results of `op` by `values` (one per result) and erases `op`.
    pub fn replace_op(
        &self,
        op: OperationRef<'c, '_>,
        values: &[Value<'c, '_>],
    ) -> Result<(), IrError> {
        if values.len() != op.result_count() {
            return Err(IrError::NoSuchPort {
                node: display_name(op),
                what: "result for replacement value",
                index: values.len(),
            });
        }
        self.base.replace_op_with_values(op, values);
        Ok(())
    }

    /// Runs `change` as an in-place modification of `op` (start / finalize notifications).
    pub fn modify_in_place<R>(&self, op: OperationRef<'c, '_>, change: impl FnOnce() -> R) -> R {
        self.base.start_op_modification(op);
        let result = change();
        self.base.finalize_op_modification(op);
        result
    }

    /// Sets operand `index` of `op` in place.
    pub fn set_operand(
        &self,
        op: OperationRef<'c, '_>,
        index: usize,
        value: Value<'c, '_>,
    ) -> Result<(), IrError> {
        if index >= op.operand_count() {
            return Err(IrError::NoSuchPort {
                node: display_name(op),
                what: "operand",
                index,
            });
        }
        self.modify_in_place(op, || prim::set_operand(op, index, value));
        Ok(())
    }

    /// Replaces all operands of `op` in place. Prefer [`ops::set_operands`](super::ops::set_operands),
    /// which also keeps `operandSegmentSizes` right.
    pub fn set_all_operands(&self, op: OperationRef<'c, '_>, values: &[Value<'c, '_>]) {
        self.modify_in_place(op, || prim::set_operands(op, values));
    }

    /// Sets attribute `name` of `op` in place.
    pub fn set_attribute(
        &self,
        op: OperationRef<'c, '_>,
        name: &str,
        attribute: melior::ir::Attribute<'c>,
    ) {
        self.modify_in_place(op, || prim::set_attribute(op, name, attribute));
    }

    /// Removes attribute `name` of `op`; returns whether it was there.
    pub fn remove_attribute(&self, op: OperationRef<'c, '_>, name: &str) -> bool {
        self.modify_in_place(op, || prim::remove_attribute(op, name))
    }

    /// Moves `op` right after `anchor` (same block or not).
    pub fn move_after(&self, op: OperationRef<'c, '_>, anchor: OperationRef<'c, '_>) {
        self.base.move_op_after(op, anchor);
    }

    /// Moves `op` right before `anchor`.
    pub fn move_before(&self, op: OperationRef<'c, '_>, anchor: OperationRef<'c, '_>) {
        self.base.move_op_before(op, anchor);
    }
}

/// An owned rewriter for code outside pattern callbacks (analyses that edit directly,
/// tests, the importer).
pub struct IrRewriter<'c> {
    inner: MeliorIrRewriter<'c>,
}

impl<'c> IrRewriter<'c> {
    pub fn new(context: &'c Context) -> Self {
        Self {
            inner: MeliorIrRewriter::new(context),
        }
    }

    /// A rewriter in `op`'s context. A pass holds ops and a `ContextRef`, never the
    /// `&Context` [`IrRewriter::new`] wants, so passes that edit outside pattern callbacks
    /// start here.
    pub fn for_op(op: OperationRef<'c, '_>) -> Self {
        Self {
            inner: MeliorIrRewriter::from_op(op),
        }
    }

    /// The handle the helpers take.
    pub fn rewriter(&self) -> Rewriter<'c, '_> {
        Rewriter::from_base(self.inner.as_rewriter_base())
    }
}
