//! Op-level helpers that know the `ascend` conventions:
//! data operands first, control operands (`!ascend.ctrl`) last; exactly one control result,
//! always the last result; `operandSegmentSizes` / `resultSegmentSizes` computed from the op
//! table; node names in the `name` attribute; GE's generic op `ascend.op` + `type`.
//!
//! Every mutating helper takes a [`Rewriter`], so it can run inside a pattern callback.

use super::{error::IrError, prim, rewriter::Rewriter};
use crate::dialect::{op_table, OpDef};
use melior::{
    ir::{
        attribute::{AttributeLike, BoolAttribute, IntegerAttribute, StringAttribute},
        block::BlockArgument,
        operation::{OperationBuilder, OperationLike, OperationResult},
        Attribute, Identifier, Location, Operation, OperationRef, Type, Value, ValueLike,
    },
    ContextRef,
};
use std::{cmp::Ordering, collections::HashMap};

/// The control token type.
pub const CTRL_TYPE: &str = "!ascend.ctrl";
/// The node-name attribute.
pub const NAME_ATTR: &str = "name";
/// GE's generic op and the attribute holding its GE type.
pub const GENERIC_OP: &str = "ascend.op";
pub const GENERIC_TYPE_ATTR: &str = "type";
pub const OPERAND_SEGMENTS: &str = "operandSegmentSizes";
pub const RESULT_SEGMENTS: &str = "resultSegmentSizes";
const DIALECT: &str = "ascend";

/// A stable identity for an op, usable as a map key inside one pass run (it is the op's
/// address: after an op is erased, a new op may reuse it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpKey(usize);

impl OpKey {
    pub fn of(op: OperationRef) -> Self {
        OpKey(prim::op_address(op))
    }
}

/// A map keyed by op identity (hashed by address: ops allocated together share cache
/// lines of the map, see [`AddressHasher`](crate::analysis::fast_hash::AddressHasher)).
pub type OpKeyMap<V> = crate::analysis::fast_hash::AddressMap<OpKey, V>;

/// The address of the uniqued attribute `name` of `op` (0 when absent): MLIR uniques
/// attributes per context, so two ops carry equal values exactly when the addresses match,
/// which makes it a cheap cache key.
pub fn attr_identity(op: OperationRef, name: &str) -> usize {
    op.attribute(name).map_or(0, |a| prim::attribute_address(a))
}

impl From<OperationRef<'_, '_>> for OpKey {
    fn from(op: OperationRef<'_, '_>) -> Self {
        OpKey::of(op)
    }
}

/// One use of a value: operand `operand` of `owner` (a GE in-anchor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use<'c, 'a> {
    pub owner: OperationRef<'c, 'a>,
    pub operand: usize,
}

/// Where a value comes from (a GE out-anchor, or a function argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Producer<'c, 'a> {
    Op {
        op: OperationRef<'c, 'a>,
        result: usize,
    },
    Arg {
        index: usize,
    },
}

impl<'c, 'a> Producer<'c, 'a> {
    /// The producing op, if the value is an op result.
    pub fn op(self) -> Option<OperationRef<'c, 'a>> {
        match self {
            Producer::Op { op, .. } => Some(op),
            Producer::Arg { .. } => None,
        }
    }
}

/// Where `value` comes from.
///
/// The kind is tested before converting: melior's failing `try_from` prints the value into
/// its error, and printing a block argument numbers the values of its whole function.
pub fn producer<'c, 'a>(value: Value<'c, 'a>) -> Producer<'c, 'a> {
    if value.is_operation_result() {
        if let Ok(result) = OperationResult::try_from(value) {
            return Producer::Op {
                op: result.owner(),
                result: result.result_number(),
            };
        }
    }
    Producer::Arg {
        index: BlockArgument::try_from(value)
            .map(|arg| arg.argument_number())
            .unwrap_or(0),
    }
}

/// Whether `op` belongs to the `ascend` dialect.
pub fn is_ascend_op(op: OperationRef) -> bool {
    op.name()
        .as_string_ref()
        .as_str()
        .is_ok_and(|name| name.starts_with("ascend."))
}

/// Whether `ty` is `!ascend.ctrl`. The control token is the dialect's only type (a unit
/// test guards this), so the dialect namespace decides without parsing or caching a type.
pub fn is_ctrl_type(ty: Type) -> bool {
    prim::type_in_dialect(ty, DIALECT)
}

/// Whether `value` is a control token.
pub fn is_ctrl(value: Value) -> bool {
    is_ctrl_type(value.r#type())
}

/// The `!ascend.ctrl` type of a context.
pub fn ctrl_type(context: ContextRef<'_>) -> Result<Type<'_>, IrError> {
    prim::parse_type(context, CTRL_TYPE).ok_or(IrError::DialectNotLoaded)
}

/// The number of data operands (control operands trail them).
pub fn num_data_operands(op: OperationRef) -> usize {
    let n = op.operand_count();
    (0..n)
        .rev()
        .find(|&i| op.operand(i).is_ok_and(|v| !is_ctrl(v)))
        .map_or(0, |last_data| last_data + 1)
}

/// GE's input slot of each data operand when `op` leaves a slot unconnected (an optional
/// group of size 0 before a later operand, see [`crate::dialect::slots`]); `None` when
/// operand `i` is slot `i`.
pub fn input_slots(op: OperationRef) -> Option<Vec<usize>> {
    crate::dialect::semantics::input_slots(&op)
}

/// How many input slots `op` has: one per data operand, plus its unconnected slots.
pub fn input_slot_count(op: OperationRef) -> usize {
    match input_slots(op) {
        Some(slots) => slots.last().map_or(0, |&s| s + 1),
        None => num_data_operands(op),
    }
}

/// The operand number of input slot `slot` of `op`; `None` when the slot is unconnected.
pub fn operand_of_slot(op: OperationRef, slot: usize) -> Option<usize> {
    match input_slots(op) {
        Some(slots) => slots.iter().position(|&s| s == slot),
        None => Some(slot),
    }
}

/// The slot of data operand `operand` of `op` (the inverse of [`operand_of_slot`]).
pub fn slot_of_operand(op: OperationRef, operand: usize) -> usize {
    input_slots(op)
        .and_then(|slots| slots.get(operand).copied())
        .unwrap_or(operand)
}

/// The unconnected input slots of `op` (empty for an op that leaves none).
pub fn unconnected_slots(op: OperationRef) -> Vec<usize> {
    input_slots(op).map_or_else(Vec::new, |s| crate::dialect::slots::holes(&s))
}

/// "`node` leaves input slot 2 unconnected" when `op` leaves any slot unconnected: the
/// start of the error of a consumer that takes inputs by position and cannot show an
/// empty slot.
pub fn unconnected_message(op: OperationRef) -> Option<String> {
    let holes = unconnected_slots(op);
    let (last, rest) = holes.split_last()?;
    let list = match rest {
        [] => format!("slot {last}"),
        _ => format!(
            "slots {} and {last}",
            rest.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Some(format!(
        "`{}` leaves input {list} unconnected",
        display_name(op)
    ))
}

/// The data operands, in order (GE's in-data anchors).
pub fn data_operands<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    op.operands().take(num_data_operands(op)).collect()
}

/// The control operands, in order (GE's in-control edges).
pub fn ctrl_operands<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    op.operands().skip(num_data_operands(op)).collect()
}

/// The control result (always the last result of an ascend op).
pub fn ctrl_result<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
    let last = op.result_count().checked_sub(1)?;
    let value: Value = op.result(last).ok()?.into();
    is_ctrl(value).then_some(value)
}

/// The data results, in order (GE's out-data anchors).
pub fn data_results<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let n = op.result_count() - usize::from(ctrl_result(op).is_some());
    op.results().take(n).map(Value::from).collect()
}

/// Every use of `value`, in program order (then operand order). MLIR keeps use lists
/// most-recent-first; passes need GE's deterministic edge order instead.
pub fn uses<'c, 'a>(value: Value<'c, 'a>) -> Vec<Use<'c, 'a>> {
    let mut raw = prim::raw_uses(value);
    if raw.len() > 1 {
        // Ops of one block compare by position; blocks by first appearance. Both are total
        // orders, so the comparator is one too.
        let mut block_rank = HashMap::new();
        for (owner, _) in &raw {
            let block = owner.block().map_or(0, prim::block_address);
            let next = block_rank.len();
            block_rank.entry(block).or_insert(next);
        }
        let rank = |op: OperationRef| block_rank[&op.block().map_or(0, prim::block_address)];
        raw.sort_by(|(a, i), (b, j)| {
            rank(*a).cmp(&rank(*b)).then_with(|| {
                if a == b {
                    i.cmp(j)
                } else if prim::is_before_in_block(*a, *b) == Some(true) {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            })
        });
    }
    raw.into_iter()
        .map(|(owner, operand)| Use { owner, operand })
        .collect()
}

/// The consumers of data output `output` of `op`, in program order.
pub fn data_uses<'c, 'a>(
    op: OperationRef<'c, 'a>,
    output: usize,
) -> Result<Vec<Use<'c, 'a>>, IrError> {
    let value = data_results(op)
        .get(output)
        .copied()
        .ok_or_else(|| IrError::NoSuchPort {
            node: display_name(op),
            what: "data output",
            index: output,
        })?;
    Ok(uses(value))
}

/// The sources of `op`'s in-control edges, in operand order.
pub fn ctrl_predecessors<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    ctrl_operands(op)
        .into_iter()
        .filter_map(|v| producer(v).op())
        .collect()
}

/// The targets of `op`'s out-control edges, in program order.
pub fn ctrl_successors<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let Some(ctrl) = ctrl_result(op) else {
        return Vec::new();
    };
    let mut out: Vec<OperationRef> = Vec::new();
    for u in uses(ctrl) {
        if out.last() != Some(&u.owner) {
            out.push(u.owner);
        }
    }
    out
}

/// Whether the control edge `from -> to` exists.
pub fn has_ctrl_edge(from: OperationRef, to: OperationRef) -> bool {
    ctrl_result(from).is_some_and(|c| ctrl_operands(to).contains(&c))
}

/// `a` comes before `b` in their block; `None` when they are in different blocks.
pub fn is_before_in_block<'c, 'a>(
    a: OperationRef<'c, 'a>,
    b: OperationRef<'c, 'a>,
) -> Option<bool> {
    prim::is_before_in_block(a, b)
}

/// The table row of an ascend op.
pub fn op_def(op: OperationRef) -> Option<&'static OpDef> {
    let name = op.name();
    op_table().by_op_name(name.as_string_ref().as_str().ok()?)
}

/// GE's type name: the table's `ge_type`, or the `type` attribute of the generic op.
pub fn ge_type<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    if op.name().as_string_ref().as_str() == Ok(GENERIC_OP) {
        return str_attr(op, GENERIC_TYPE_ATTR);
    }
    op_def(op).map(|def| def.ge_type.as_str())
}

/// The node name (`name` attribute).
pub fn node_name<'c>(op: OperationRef<'c, '_>) -> Option<&'c str> {
    str_attr(op, NAME_ATTR)
}

/// The node name, or the op name when it has none — for diagnostics.
pub fn display_name(op: OperationRef) -> String {
    match node_name(op) {
        Some(name) => name.to_string(),
        None => op
            .name()
            .as_string_ref()
            .as_str()
            .unwrap_or("?")
            .to_string(),
    }
}

// The readers test the kind with `is_*` first: melior's failing `try_from` prints the
// attribute into its error message, which is slow for large attributes.

/// The text of a string attribute: `""` for an empty one, `None` when its bytes are not
/// UTF-8. Use this, never melior's `StringAttribute::value`, which panics on both.
pub fn string_value<'c>(attr: StringAttribute<'c>) -> Option<&'c str> {
    std::str::from_utf8(prim::string_attr_bytes(attr)).ok()
}

/// The name a flat symbol reference names (same contract as [`string_value`]).
pub fn symbol_value<'c>(
    attr: melior::ir::attribute::FlatSymbolRefAttribute<'c>,
) -> Option<&'c str> {
    std::str::from_utf8(prim::symbol_ref_bytes(attr)).ok()
}

/// Whether `op`'s full name is `name`, compared as bytes (no `String`, no UTF-8 check).
pub fn is_op_named<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> bool {
    prim::string_ref_bytes(op.name().as_string_ref()) == name.as_bytes()
}

/// Calls `f` with the name of each of `op`'s attributes as bytes (no UTF-8 validation; see
/// `prim::string_ref_bytes`), in the op's attribute order.
pub fn for_each_attribute_name(op: OperationRef, mut f: impl FnMut(&[u8])) {
    for (name, _) in op.attributes() {
        f(prim::string_ref_bytes(name.as_string_ref()));
    }
}

/// A string attribute.
pub fn str_attr<'c>(op: OperationRef<'c, '_>, name: &str) -> Option<&'c str> {
    let attr = op.attribute(name).ok().filter(|a| a.is_string())?;
    StringAttribute::try_from(attr).ok().and_then(string_value)
}

/// An integer attribute (signless / signed, as GE stores them).
pub fn int_attr(op: OperationRef, name: &str) -> Option<i64> {
    let attr = op.attribute(name).ok().filter(|a| a.is_integer())?;
    IntegerAttribute::try_from(attr).ok().map(|i| i.value())
}

/// A bool attribute.
pub fn bool_attr(op: OperationRef, name: &str) -> Option<bool> {
    let attr = op.attribute(name).ok().filter(|a| a.is_bool())?;
    BoolAttribute::try_from(attr).ok().map(|b| b.value())
}

/// A string attribute value, e.g. for [`build_op`]'s `attrs`.
pub fn string_attribute<'c>(context: ContextRef<'c>, value: &str) -> Attribute<'c> {
    prim::string_attr(context, value)
}

/// A bool attribute value, e.g. for [`build_op`]'s `attrs`.
pub fn bool_attribute(context: ContextRef<'_>, value: bool) -> Attribute<'_> {
    prim::bool_attr(context, value)
}

/// Sets any attribute (in place, through the rewriter).
pub fn set_attr<'c>(
    rw: &Rewriter<'c, '_>,
    op: OperationRef<'c, '_>,
    name: &str,
    value: Attribute<'c>,
) {
    rw.set_attribute(op, name, value);
}

/// Sets several attributes of `op` at once (one new attribute dictionary instead of one per
/// attribute): for passes that write a few attributes on every op. Names are
/// [`attr_name`]s, made once.
pub fn set_attrs<'c>(
    rw: &Rewriter<'c, '_>,
    op: OperationRef<'c, '_>,
    entries: &[(Identifier<'c>, Attribute<'c>)],
) {
    rw.modify_in_place(op, || prim::set_attributes(op, entries));
}

/// How far ahead a walk that updates ops in order asks for the op, and then for its
/// attributes. A miss costs about as long as the work of a few [`set_attrs`] calls, so the
/// op is asked for twice that many ops ahead and its dictionary (which needs the op) half
/// as far.
const PREFETCH_OP_AHEAD: usize = 16;
const PREFETCH_ATTRS_AHEAD: usize = 8;

/// Before [`set_attrs`] on `ops[i]`, in a walk over `ops` in order: asks the CPU to load
/// the ops (and their attribute dictionaries) the walk reaches a few steps later. On a
/// million-op graph each op and each dictionary is otherwise a cache and TLB miss, paid in
/// turn; in cache (small graphs) the prefetches cost a few instructions.
pub fn prefetch_ahead(ops: &[OperationRef<'_, '_>], i: usize) {
    prefetch_ahead_with(i, |k| ops.get(k).copied());
}

/// [`prefetch_ahead`] for a walk whose `k`-th op is `op_at(k)` (`None`: none there).
pub fn prefetch_ahead_with<'c: 'a, 'a>(
    i: usize,
    op_at: impl Fn(usize) -> Option<OperationRef<'c, 'a>>,
) {
    if let Some(op) = op_at(i + PREFETCH_OP_AHEAD) {
        prim::prefetch_op(op, false);
    }
    if let Some(op) = op_at(i + PREFETCH_ATTRS_AHEAD) {
        prim::prefetch_op(op, true);
    }
}

/// An attribute name, made once for [`set_attrs`].
pub fn attr_name<'c>(context: ContextRef<'c>, name: &str) -> Identifier<'c> {
    prim::identifier(context, name)
}

pub fn set_str_attr(rw: &Rewriter, op: OperationRef, name: &str, value: &str) {
    let attr = prim::string_attr(op.context(), value);
    rw.set_attribute(op, name, attr);
}

pub fn set_int_attr(rw: &Rewriter, op: OperationRef, name: &str, value: i64) {
    let attr = prim::i64_attr(op.context(), value);
    rw.set_attribute(op, name, attr);
}

pub fn set_bool_attr(rw: &Rewriter, op: OperationRef, name: &str, value: bool) {
    let attr = prim::bool_attr(op.context(), value);
    rw.set_attribute(op, name, attr);
}

/// `[v0, v1, ...]` of `i64` integers (GE's ListInt attributes, e.g. `active_stream_list`).
pub fn int_list_attr<'c>(context: ContextRef<'c>, values: &[i64]) -> Attribute<'c> {
    let elements: Vec<Attribute> = values.iter().map(|&v| prim::i64_attr(context, v)).collect();
    prim::array_attr(context, &elements)
}

/// `["a", "b", ...]` (GE's ListStr attributes, e.g. `_active_label_list`).
pub fn str_list_attr<'c>(context: ContextRef<'c>, values: &[&str]) -> Attribute<'c> {
    let elements: Vec<Attribute> = values
        .iter()
        .map(|v| prim::string_attr(context, v))
        .collect();
    prim::array_attr(context, &elements)
}

/// `dict` with the entries `set` added or replaced (a dictionary attribute; `None` when
/// `dict` is not one).
pub fn dict_with<'c>(
    context: ContextRef<'c>,
    dict: Attribute<'c>,
    set: &[(&str, Attribute<'c>)],
) -> Option<Attribute<'c>> {
    let dict = melior::ir::attribute::DictionaryAttribute::try_from(dict).ok()?;
    let mut entries: Vec<(Identifier<'c>, Attribute<'c>)> =
        Vec::with_capacity(dict.len() + set.len());
    for i in 0..dict.len() {
        let (name, value) = dict.element(i).ok()?;
        let text = name.as_string_ref();
        if set.iter().any(|(n, _)| text.as_str() == Ok(*n)) {
            continue;
        }
        entries.push((name, value));
    }
    entries.extend(set.iter().map(|&(n, v)| (prim::identifier(context, n), v)));
    Some(prim::dictionary_attr(context, &entries))
}

/// An array attribute of `elements` in `context`.
pub fn array_attr_value<'c>(context: ContextRef<'c>, elements: &[Attribute<'c>]) -> Attribute<'c> {
    prim::array_attr(context, elements)
}

/// A bool attribute in `context`.
pub fn bool_attr_value(context: ContextRef<'_>, value: bool) -> Attribute<'_> {
    prim::bool_attr(context, value)
}

/// A string attribute in `context` (for attributes built once and set on many ops).
pub fn str_attr_value<'c>(context: ContextRef<'c>, value: &str) -> Attribute<'c> {
    prim::string_attr(context, value)
}

/// An `i64` attribute in `context`.
pub fn i64_attr_value(context: ContextRef<'_>, value: i64) -> Attribute<'_> {
    prim::i64_attr(context, value)
}

/// Removes an attribute; returns whether it was there.
pub fn remove_attr(rw: &Rewriter, op: OperationRef, name: &str) -> bool {
    rw.remove_attribute(op, name)
}

/// Checks that `data` holds no control token and `ctrl` only control tokens. The op's name
/// is only formatted for an error.
fn check_split(
    op_name: impl FnOnce() -> String,
    data: &[Value],
    ctrl: &[Value],
) -> Result<(), IrError> {
    if data.iter().any(|v| is_ctrl(*v)) {
        return Err(IrError::BadOperands {
            node: op_name(),
            reason: "a control token among the data operands",
        });
    }
    if ctrl.iter().any(|v| !is_ctrl(*v)) {
        return Err(IrError::BadOperands {
            node: op_name(),
            reason: "a data value among the control operands",
        });
    }
    Ok(())
}

/// Replaces the operands of `op` by `data` then `ctrl`, keeping `operandSegmentSizes` in
/// line with the op table. Validates first: on error the op is unchanged.
pub fn set_operands<'c>(
    rw: &Rewriter<'c, '_>,
    op: OperationRef<'c, '_>,
    data: &[Value<'c, '_>],
    ctrl: &[Value<'c, '_>],
) -> Result<(), IrError> {
    check_split(|| display_name(op), data, ctrl)?;
    let segments = match op_def(op) {
        // Same data count on an op that leaves a slot unconnected: the data keep their
        // slots (distributing them afresh would fill the unconnected slot).
        Some(_) if data.len() == num_data_operands(op) && input_slots(op).is_some() => {
            let mut sizes: Vec<i32> = crate::dialect::op_view::convert_attribute(
                op.attribute(OPERAND_SEGMENTS)
                    .map_err(|_| IrError::UnknownOp(display_name(op)))?,
            )
            .as_ints()
            .unwrap_or_default()
            .into_iter()
            .map(|s| s as i32)
            .collect();
            if let Some(last) = sizes.last_mut() {
                *last = ctrl.len() as i32;
            }
            Some(sizes)
        }
        Some(def) => {
            let types: Vec<Type> = data.iter().map(|v| v.r#type()).collect();
            def.operand_segments(&types, ctrl.len())
                .map_err(|error| IrError::Arity {
                    op: display_name(op),
                    what: "operands",
                    error,
                })?
        }
        None if op.has_attribute(OPERAND_SEGMENTS) => {
            return Err(IrError::UnknownOp(display_name(op)));
        }
        None => None,
    };
    let values: Vec<Value> = data.iter().chain(ctrl).copied().collect();
    let segments_attr = segments.map(|s| prim::dense_i32_array(op.context(), &s));
    rw.modify_in_place(op, || {
        prim::set_operands(op, &values);
        match segments_attr {
            Some(attr) => prim::set_attribute(op, OPERAND_SEGMENTS, attr),
            None => {
                prim::remove_attribute(op, OPERAND_SEGMENTS);
            }
        }
    });
    Ok(())
}

/// Adds the control edge `from -> to` (appended after `to`'s existing control operands, as
/// GE's `AddEdge` appends). Returns `false` when the edge already exists.
pub fn add_ctrl_edge<'c>(
    rw: &Rewriter<'c, '_>,
    from: OperationRef<'c, '_>,
    to: OperationRef<'c, '_>,
) -> Result<bool, IrError> {
    let token = ctrl_result(from).ok_or_else(|| IrError::NoCtrl(display_name(from)))?;
    if op_def(to).is_none() {
        return Err(IrError::NoCtrl(display_name(to)));
    }
    let mut ctrl = ctrl_operands(to);
    if ctrl.contains(&token) {
        return Ok(false);
    }
    if prim::is_before_in_block(from, to) != Some(true) {
        return Err(IrError::Dominance {
            from: display_name(from),
            to: display_name(to),
        });
    }
    ctrl.push(token);
    set_operands(rw, to, &data_operands(to), &ctrl)?;
    Ok(true)
}

/// Removes the control edge `from -> to`; returns whether it existed.
pub fn remove_ctrl_edge<'c>(
    rw: &Rewriter<'c, '_>,
    from: OperationRef<'c, '_>,
    to: OperationRef<'c, '_>,
) -> Result<bool, IrError> {
    let Some(token) = ctrl_result(from) else {
        return Ok(false);
    };
    let ctrl = ctrl_operands(to);
    if !ctrl.contains(&token) {
        return Ok(false);
    }
    let kept: Vec<Value> = ctrl.into_iter().filter(|v| *v != token).collect();
    set_operands(rw, to, &data_operands(to), &kept)?;
    Ok(true)
}

/// Resolves an MLIR op name (`ascend.identity`) or a GE type (`Identity`) to the table row
/// and the MLIR op name; unknown GE types become the generic op.
fn resolve(name: &str) -> Result<(&'static OpDef, bool), IrError> {
    let table = op_table();
    if name.starts_with("ascend.") {
        return table
            .by_op_name(name)
            .map(|def| (def, false))
            .ok_or_else(|| IrError::UnknownOp(name.to_string()));
    }
    if let Some(def) = table.by_ge_type(name) {
        return Ok((def, false));
    }
    table
        .by_op_name(GENERIC_OP)
        .map(|def| (def, true))
        .ok_or_else(|| IrError::UnknownOp(name.to_string()))
}

/// Builds (without inserting) an ascend op: `name` is an MLIR op name or a GE type (unknown
/// GE types become `ascend.op` with `type = name`). Adds the control result and the
/// segment-size attributes the table asks for; `result_types` are the data results only.
pub fn build_op<'c>(
    location: Location<'c>,
    name: &str,
    data: &[Value<'c, '_>],
    ctrl: &[Value<'c, '_>],
    result_types: &[Type<'c>],
    attrs: &[(&str, Attribute<'c>)],
) -> Result<Operation<'c>, IrError> {
    let ctrl_ty = ctrl_type(location.context())?;
    build_op_with_ctrl_type(location, name, data, ctrl, result_types, attrs, ctrl_ty)
}

/// [`build_op`] with the `!ascend.ctrl` type given, for passes that create many ops
/// (looking the type up parses it; take it once, e.g. from an existing control result).
pub fn build_op_with_ctrl_type<'c>(
    location: Location<'c>,
    name: &str,
    data: &[Value<'c, '_>],
    ctrl: &[Value<'c, '_>],
    result_types: &[Type<'c>],
    attrs: &[(&str, Attribute<'c>)],
    ctrl_ty: Type<'c>,
) -> Result<Operation<'c>, IrError> {
    if !is_ctrl_type(ctrl_ty) {
        return Err(IrError::BadOperands {
            node: name.to_string(),
            reason: "the control type given is not !ascend.ctrl",
        });
    }
    let (def, generic) = resolve(name)?;
    let op_name = def.op_name();
    check_split(|| op_name.clone(), data, ctrl)?;
    let ctx = location.context();
    let arity = |what, error| IrError::Arity {
        op: op_name.clone(),
        what,
        error,
    };
    let data_types: Vec<Type> = data.iter().map(|v| v.r#type()).collect();
    let operand_segments = def
        .operand_segments(&data_types, ctrl.len())
        .map_err(|e| arity("operands", e))?;
    let result_segments = def
        .result_segments(result_types)
        .map_err(|e| arity("results", e))?;

    let mut named = Vec::with_capacity(attrs.len() + 3);
    if generic {
        named.push((
            prim::identifier(ctx, GENERIC_TYPE_ATTR),
            prim::string_attr(ctx, name),
        ));
    }
    if let Some(sizes) = operand_segments {
        named.push((
            prim::identifier(ctx, OPERAND_SEGMENTS),
            prim::dense_i32_array(ctx, &sizes),
        ));
    }
    if let Some(sizes) = result_segments {
        named.push((
            prim::identifier(ctx, RESULT_SEGMENTS),
            prim::dense_i32_array(ctx, &sizes),
        ));
    }
    named.extend(attrs.iter().map(|(n, a)| (prim::identifier(ctx, n), *a)));

    let mut results = result_types.to_vec();
    results.push(ctrl_ty);
    let operands: Vec<Value> = data.iter().chain(ctrl).copied().collect();
    OperationBuilder::new(&op_name, location)
        .add_operands(&operands)
        .add_results(&results)
        .add_attributes(&named)
        .build()
        .map_err(|_| IrError::Build(op_name.clone()))
}

/// Builds many control-only ops of one kind (Send, Recv, StreamActive, ...): the table
/// row, the MLIR op name, the segment sizes and the attribute names are resolved once, so
/// each op costs only its attribute values. The ops have no data operands and no data
/// results (one `!ascend.ctrl` result), like [`build_op_with_ctrl_type`] called with empty
/// `data` and `result_types`.
pub struct OpTemplate<'c> {
    op_name: String,
    /// `type = <GE type>` for the generic op.
    generic: Option<(Identifier<'c>, Attribute<'c>)>,
    def: &'static OpDef,
    names: Vec<Identifier<'c>>,
    segments_name: Identifier<'c>,
    /// `operandSegmentSizes` by control operand count, for the usual counts.
    segments: Vec<Option<Attribute<'c>>>,
    ctrl_ty: Type<'c>,
}

impl<'c> OpTemplate<'c> {
    /// A template for op `name` (MLIR op name or GE type, as [`build_op`]) whose ops carry
    /// the attributes `attr_names`, in that order.
    pub fn new(
        context: ContextRef<'c>,
        name: &str,
        attr_names: &[&str],
        ctrl_ty: Type<'c>,
    ) -> Result<Self, IrError> {
        if !is_ctrl_type(ctrl_ty) {
            return Err(IrError::BadOperands {
                node: name.to_string(),
                reason: "the control type given is not !ascend.ctrl",
            });
        }
        let (def, generic) = resolve(name)?;
        let op_name = def.op_name();
        let arity = |error| IrError::Arity {
            op: op_name.clone(),
            what: "results",
            error,
        };
        if def.result_segments::<Type>(&[]).map_err(arity)?.is_some() {
            return Err(IrError::BadOperands {
                node: op_name.clone(),
                reason: "an op with result segments cannot be built from a template",
            });
        }
        let mut template = OpTemplate {
            generic: generic.then(|| {
                (
                    prim::identifier(context, GENERIC_TYPE_ATTR),
                    prim::string_attr(context, name),
                )
            }),
            def,
            names: attr_names
                .iter()
                .map(|n| prim::identifier(context, n))
                .collect(),
            segments_name: prim::identifier(context, OPERAND_SEGMENTS),
            segments: Vec::new(),
            ctrl_ty,
            op_name,
        };
        for ctrl in 0..4 {
            let attr = template.segments_for(context, ctrl)?;
            template.segments.push(attr);
        }
        Ok(template)
    }

    fn segments_for(
        &self,
        context: ContextRef<'c>,
        ctrl: usize,
    ) -> Result<Option<Attribute<'c>>, IrError> {
        let sizes = self
            .def
            .operand_segments::<Type>(&[], ctrl)
            .map_err(|error| IrError::Arity {
                op: self.op_name.clone(),
                what: "operands",
                error,
            })?;
        Ok(sizes.map(|s| prim::dense_i32_array(context, &s)))
    }

    /// An op at `location` with control operands `ctrl` and the attribute values `values`
    /// (one per name given to [`OpTemplate::new`]).
    pub fn build(
        &self,
        location: Location<'c>,
        ctrl: &[Value<'c, '_>],
        values: &[Attribute<'c>],
    ) -> Result<Operation<'c>, IrError> {
        if values.len() != self.names.len() {
            return Err(IrError::BadOperands {
                node: self.op_name.clone(),
                reason: "one attribute value per template attribute name is needed",
            });
        }
        check_split(|| self.op_name.clone(), &[], ctrl)?;
        let segments = match self.segments.get(ctrl.len()) {
            Some(&cached) => cached,
            None => self.segments_for(location.context(), ctrl.len())?,
        };
        let mut named: Vec<(Identifier<'c>, Attribute<'c>)> = Vec::with_capacity(values.len() + 2);
        named.extend(self.generic);
        named.extend(segments.map(|a| (self.segments_name, a)));
        named.extend(self.names.iter().copied().zip(values.iter().copied()));
        OperationBuilder::new(&self.op_name, location)
            .add_operands(ctrl)
            .add_results(&[self.ctrl_ty])
            .add_attributes(&named)
            .build()
            .map_err(|_| IrError::Build(self.op_name.clone()))
    }
}

/// Calls `f` on every op nested in `op` (not `op` itself) in the order MLIR's walk
/// pattern driver visits them: post-order (an op after the ops of its regions), the ops of
/// a block first to last. Passes that apply a frozen analysis through the walk driver use
/// it to know, before the walk, which op the driver reaches first.
pub fn walk_nested_post_order(op: OperationRef, f: &mut impl FnMut(OperationRef)) {
    use melior::ir::{block::BlockLike, RegionLike};
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut next = b.first_operation();
            while let Some(inner) = next {
                walk_nested_post_order(inner, f);
                f(inner);
                next = inner.next_in_block();
            }
            block = b.next_in_region();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        dialect::{new_context, IRDL_SOURCE},
        ir::{
            rewriter::IrRewriter,
            test_util::{func, i32_array, op, parse, summary},
        },
    };

    const MAIN: &str = r#"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %w:2 = "ascend.const"() {name = "w", flag = true, n = 7 : i64, value = dense<0.0> : tensor<4xf32>} : () -> (tensor<4xf32>, !ascend.ctrl)
  %c = "ascend.atomic_addr_clean"() {name = "clean"} : () -> !ascend.ctrl
  %a:2 = "ascend.add"(%x#0, %w#0, %c, %w#1) {name = "a"} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  %s:2 = "ascend.add_n"(%a#0, %x#0, %a#1) {name = "s", operandSegmentSizes = array<i32: 2, 1>} : (tensor<4xf32>, tensor<4xf32>, !ascend.ctrl) -> (tensor<4xf32>, !ascend.ctrl)
  %b:2 = "ascend.add"(%a#0, %s#0) {name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %b#0 : tensor<4xf32>
}
"#;

    #[test]
    fn ctrl_is_the_only_ascend_type() {
        // `is_ctrl_type` decides by dialect namespace; a second ascend type breaks that.
        assert_eq!(IRDL_SOURCE.matches("irdl.type @").count(), 1);
    }

    #[test]
    fn operands_split_into_data_and_ctrl() {
        let context = new_context();
        let module = parse(&context, MAIN);
        let a = op(&module, "a");
        assert_eq!(num_data_operands(a), 2);
        assert_eq!(data_operands(a).len(), 2);
        let preds: Vec<_> = ctrl_predecessors(a)
            .into_iter()
            .filter_map(node_name)
            .collect();
        assert_eq!(preds, ["clean", "w"]);
        assert_eq!(data_results(a).len(), 1);
        assert!(ctrl_result(a).is_some());
        assert_eq!(
            ctrl_result(op(&module, "clean")),
            op(&module, "clean").result(0).ok().map(Value::from)
        );
        let ret = crate::ir::test_util::body(func(&module, "main"))
            .pop()
            .unwrap();
        assert_eq!(ctrl_result(ret), None);
        assert_eq!(data_operands(ret).len(), 1);
        assert!(has_ctrl_edge(op(&module, "w"), a));
        assert!(!has_ctrl_edge(a, op(&module, "w")));
        let x = op(&module, "x");
        assert_eq!(producer(data_operands(x)[0]), Producer::Arg { index: 0 });
        assert_eq!(
            producer(data_operands(a)[1]),
            Producer::Op {
                op: op(&module, "w"),
                result: 0
            }
        );
    }

    #[test]
    fn uses_come_in_program_order() {
        let context = new_context();
        let module = parse(&context, MAIN);
        let users: Vec<_> = data_uses(op(&module, "a"), 0)
            .unwrap()
            .into_iter()
            .map(|u| (node_name(u.owner).unwrap(), u.operand))
            .collect();
        assert_eq!(users, [("s", 0), ("b", 0)]);
        let x_users: Vec<_> = data_uses(op(&module, "x"), 0)
            .unwrap()
            .into_iter()
            .map(|u| (node_name(u.owner).unwrap(), u.operand))
            .collect();
        assert_eq!(x_users, [("a", 0), ("s", 1)]);
        let succ: Vec<_> = ctrl_successors(op(&module, "w"))
            .into_iter()
            .filter_map(node_name)
            .collect();
        assert_eq!(succ, ["a"]);
        assert!(data_uses(op(&module, "a"), 1).is_err());
    }

    #[test]
    fn set_operands_recomputes_segment_sizes() {
        let context = new_context();
        let module = parse(&context, MAIN);
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let s = op(&module, "s");
        let x = data_results(op(&module, "x"))[0];
        let w = data_results(op(&module, "w"))[0];
        let tokens = [
            ctrl_result(op(&module, "w")).unwrap(),
            ctrl_result(op(&module, "clean")).unwrap(),
        ];
        set_operands(&rw, s, &[x, w, x], &tokens).unwrap();
        assert!(module.as_operation().verify());
        assert!(
            s.to_string()
                .contains("operandSegmentSizes = array<i32: 3, 2>"),
            "{s}"
        );
        assert!(summary(func(&module, "main")).contains("s = add_n(x, w, x) ^w ^clean"));

        // A ctrl token among data operands, or too few data operands: refused, unchanged.
        let before = s.to_string();
        assert!(matches!(
            set_operands(&rw, s, &[x, tokens[0]], &[]),
            Err(IrError::BadOperands { .. })
        ));
        let a = op(&module, "a");
        assert!(matches!(
            set_operands(&rw, a, &[x], &[]),
            Err(IrError::Arity { .. })
        ));
        assert_eq!(s.to_string(), before);
    }

    #[test]
    fn ctrl_edges_are_added_once_and_removed() {
        let context = new_context();
        let module = parse(&context, MAIN);
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let (x, b, s) = (op(&module, "x"), op(&module, "b"), op(&module, "s"));
        assert_eq!(add_ctrl_edge(&rw, x, b), Ok(true));
        assert_eq!(add_ctrl_edge(&rw, x, b), Ok(false));
        assert_eq!(add_ctrl_edge(&rw, s, b), Ok(true));
        assert!(summary(func(&module, "main")).contains("b = add(a, s) ^x ^s"));
        assert!(matches!(
            add_ctrl_edge(&rw, b, x),
            Err(IrError::Dominance { .. })
        ));
        assert_eq!(remove_ctrl_edge(&rw, x, b), Ok(true));
        assert_eq!(remove_ctrl_edge(&rw, x, b), Ok(false));
        assert!(summary(func(&module, "main")).contains("b = add(a, s) ^s"));
        // add_n keeps its segment sizes right when only control operands change.
        assert_eq!(add_ctrl_edge(&rw, x, s), Ok(true));
        assert!(s.to_string().contains("array<i32: 2, 2>"), "{s}");
        assert!(module.as_operation().verify());
    }

    #[test]
    fn unconnected_slots_keep_their_place_when_operands_are_rebuilt() {
        let context = new_context();
        let module = parse(
            &context,
            r#"
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %x:2 = "ascend.data"(%arg0) {name = "x", index = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  %c:2 = "ascend.conv2d"(%x#0, %x#0, %x#0) {name = "c", operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, !ascend.ctrl)
  return %c#0 : tensor<4xf32>
}
"#,
        );
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let (x, c) = (op(&module, "x"), op(&module, "c"));
        assert_eq!(input_slots(c), Some(vec![0, 1, 3]));
        assert_eq!(input_slot_count(c), 4);
        assert_eq!(unconnected_slots(c), vec![2]);
        assert_eq!(operand_of_slot(c, 3), Some(2));
        assert_eq!(operand_of_slot(c, 2), None);
        assert_eq!(slot_of_operand(c, 2), 3);
        assert_eq!(
            unconnected_message(c).as_deref(),
            Some("`c` leaves input slot 2 unconnected")
        );
        // A control edge rebuilds the operand list: the empty `bias` slot stays empty
        // (distributing three values afresh would fill it with `offset_w`).
        assert_eq!(add_ctrl_edge(&rw, x, c), Ok(true));
        assert!(c.to_string().contains("array<i32: 1, 1, 0, 1, 1>"), "{c}");
        assert_eq!(remove_ctrl_edge(&rw, x, c), Ok(true));
        assert!(c.to_string().contains("array<i32: 1, 1, 0, 1, 0>"), "{c}");
        // Without an unconnected slot nothing changes: operand i is slot i.
        assert_eq!(input_slots(x), None);
        assert_eq!(operand_of_slot(x, 0), Some(0));
        assert!(module.as_operation().verify());
    }

    #[test]
    fn build_op_resolves_names_and_adds_ctrl_and_segments() {
        let context = new_context();
        let module = parse(&context, MAIN);
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let a = op(&module, "a");
        let value = data_results(a)[0];
        let ty = value.r#type();
        let loc = Location::unknown(&context);
        let name = |n: &str| (NAME_ATTR, prim::string_attr(loc.context(), n));

        let by_type = build_op(loc, "Identity", &[value], &[], &[ty], &[name("i1")]).unwrap();
        let i1 = rw.insert_after(a, by_type);
        assert_eq!(i1.name().as_string_ref().as_str(), Ok("ascend.identity"));
        assert_eq!(ge_type(i1), Some("Identity"));
        assert_eq!(i1.result_count(), 2);

        let token = ctrl_result(a).unwrap();
        let sum = build_op(
            loc,
            "ascend.add_n",
            &[value, value],
            &[token],
            &[ty],
            &[name("n2")],
        )
        .unwrap();
        let n2 = rw.insert_after(i1, sum);
        assert!(n2
            .to_string()
            .contains("operandSegmentSizes = array<i32: 2, 1>"));

        let generic = build_op(loc, "MyCustomOp", &[value], &[], &[ty, ty], &[name("g")]).unwrap();
        let g = rw.insert_after(n2, generic);
        assert_eq!(g.name().as_string_ref().as_str(), Ok(GENERIC_OP));
        assert_eq!(ge_type(g), Some("MyCustomOp"));
        // The two results fill the first two slots; the other slots, the overflow group
        // and the ctrl result follow (width from the table, not hard-coded).
        let width = op_table().generic().unwrap().irdl_results().len();
        let mut expected = vec![0; width];
        (expected[0], expected[1], expected[width - 1]) = (1, 1, 1);
        let expected = format!("resultSegmentSizes = {}", i32_array(&expected));
        assert!(g.to_string().contains(&expected), "{g}\nwants {expected}");
        assert!(module.as_operation().verify(), "{}", module.as_operation());

        assert!(matches!(
            build_op(loc, "ascend.nope", &[], &[], &[], &[]),
            Err(IrError::UnknownOp(_))
        ));
        assert!(matches!(
            build_op(loc, "Identity", &[], &[], &[ty], &[]),
            Err(IrError::Arity { .. })
        ));
    }

    #[test]
    fn attributes_read_and_write() {
        let context = new_context();
        let module = parse(&context, MAIN);
        let rewriter = IrRewriter::new(&context);
        let rw = rewriter.rewriter();
        let w = op(&module, "w");
        assert_eq!(node_name(w), Some("w"));
        assert_eq!(bool_attr(w, "flag"), Some(true));
        assert_eq!(int_attr(w, "n"), Some(7));
        assert_eq!(str_attr(w, "n"), None);
        set_str_attr(&rw, w, "_stream_label", "s0");
        set_int_attr(&rw, w, "stream_id", 3);
        set_bool_attr(&rw, w, "_input_mutable", false);
        assert_eq!(str_attr(w, "_stream_label"), Some("s0"));
        assert_eq!(int_attr(w, "stream_id"), Some(3));
        assert_eq!(bool_attr(w, "_input_mutable"), Some(false));
        assert!(remove_attr(&rw, w, "stream_id"));
        assert!(!remove_attr(&rw, w, "stream_id"));
        assert_eq!(display_name(w), "w");
        assert_eq!(OpKey::of(w), OpKey::from(op(&module, "w")));
        assert_ne!(OpKey::of(w), OpKey::of(op(&module, "x")));
        assert_eq!(is_before_in_block(op(&module, "x"), w), Some(true));
        assert_eq!(is_before_in_block(w, op(&module, "x")), Some(false));
    }
}
