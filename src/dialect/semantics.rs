//! The one query layer every pass uses to ask what an op means.
//!
//! Answers come from the op table (`dialects/ascend.ops.toml`) and are overridden per op by
//! attributes that carry GE's own names, so a graph imported from GE with, say,
//! `_input_mutable = true` on a custom op behaves exactly as in GE. Passes never compare op
//! names; the few GE rules that are name lists live in the table as traits.
//!
//! Every query takes an [`OpView`]: a melior `Operation`/`OperationRef`/`OperationRefMut`, or
//! a plain [`OpDesc`](super::op_view::OpDesc). Indices are GE indices: data inputs and
//! outputs only, control operands and the control result excluded.
//!
//! Overrides (GE attribute names; `engine`, `input_names`, `output_names` are ours):
//!
//! | attribute | query |
//! |---|---|
//! | `engine` (string) | [`engine`] |
//! | `_input_mutable` | [`is_input_mutable`] |
//! | `reference` | [`ref_input_of_output`] (`false` disables ref relations) |
//! | `atomic_output_index` (int list), `is_atomic_node` | [`atomic_outputs`] |
//! | `_kernel_atomic` (ours: GE asks the engine's kernel info store) | [`is_kernel_atomic`] |
//! | `continuous_input` / `continuous_output` | [`is_continuous_input`] / [`is_continuous_output`] |
//! | `_no_padding_continuous_input` / `_output` | [`is_nopadding_continuous_input`] / [`is_nopadding_continuous_output`] |
//! | `_skip_rw_conflict` | [`skip_rw_conflict`] |
//! | `_cannot_be_deleted` | [`cannot_be_deleted`] |
//! | `_stream_label` | [`stream_label`] |
//! | `_parallel_group` | [`parallel_group`] |
//! | `_special_input_size` (int, or int list per input) | [`special_input_size`] |
//! | `ref_var_src_var_name` (string for output 0, or string list per output) | [`ref_var_src_var_name`] |
//! | `input_names` / `output_names` (string lists) | GE value names, so refs work for `ascend.op` |
//! | `_node_sqe_num`, `_hccl_task_num` | [`task_num`] |

use super::{
    op_view::{is_ctrl_type, AttrValue, OpView},
    slots,
    table::{fold_segments, ge_value_names, op_table, Arity, Group, OpDef, Trait},
};
use melior::ir::{
    operation::{OperationLike, OperationResult},
    Value, ValueLike,
};

/// GE attribute names the queries read.
pub mod attr {
    pub const NAME: &str = "name";
    pub const TYPE: &str = "type";
    pub const ENGINE: &str = "engine";
    pub const INPUT_NAMES: &str = "input_names";
    pub const OUTPUT_NAMES: &str = "output_names";
    pub const INPUT_MUTABLE: &str = "_input_mutable";
    pub const REFERENCE: &str = "reference";
    pub const ATOMIC_OUTPUT_INDEX: &str = "atomic_output_index";
    pub const IS_ATOMIC_NODE: &str = "is_atomic_node";
    /// Ours: GE reads `OpInfo.isAtomic` from the engine's kernel info store, which a graph
    /// file does not carry; this attribute stands in for it per op.
    pub const KERNEL_ATOMIC: &str = "_kernel_atomic";
    pub const CONTINUOUS_INPUT: &str = "continuous_input";
    pub const CONTINUOUS_OUTPUT: &str = "continuous_output";
    pub const NOPADDING_CONTINUOUS_INPUT: &str = "_no_padding_continuous_input";
    pub const NOPADDING_CONTINUOUS_OUTPUT: &str = "_no_padding_continuous_output";
    pub const SKIP_RW_CONFLICT: &str = "_skip_rw_conflict";
    pub const CANNOT_BE_DELETED: &str = "_cannot_be_deleted";
    pub const STREAM_LABEL: &str = "_stream_label";
    pub const PARALLEL_GROUP: &str = "_parallel_group";
    pub const SPECIAL_INPUT_SIZE: &str = "_special_input_size";
    pub const REF_VAR_SRC_VAR_NAME: &str = "ref_var_src_var_name";
    pub const NODE_SQE_NUM: &str = "_node_sqe_num";
    pub const HCCL_TASK_NUM: &str = "_hccl_task_num";
    pub const ORIGINAL_TYPE: &str = "original_type";
    pub const USER_STREAM_LABEL: &str = "_user_stream_label";
    pub const RTS_LABEL_NODE: &str = "_rts_label_node";
    pub const ACTIVE_LABEL_LIST: &str = "_active_label_list";
    pub const ACTIVE_STREAM_LIST: &str = "active_stream_list";
    pub const IS_LOOP_ACTIVE: &str = "is_loop_active";
    pub const SUBGRAPH_FIRST_ACTIVE: &str = "subgraph_first_active";
    pub const CONTINUOUS_STREAM_LABEL: &str = "_continuous_stream_label";
    pub const EVENT_ID: &str = "event_id";
    pub const OPERAND_SEGMENT_SIZES: &str = "operandSegmentSizes";
    pub const RESULT_SEGMENT_SIZES: &str = "resultSegmentSizes";
}

/// The table row of the op itself (`ascend.op` for a generic op); `None` for non-ascend ops.
pub fn op_def<V: OpView + ?Sized>(op: &V) -> Option<&'static OpDef> {
    op.table_def()
}

/// The row whose semantic columns apply: the op's own row, or for a generic op the row of
/// its `type` (directly or as an alias), falling back to the generic row for unknown types.
pub fn semantic_def<V: OpView + ?Sized>(op: &V) -> Option<&'static OpDef> {
    let def = op_def(op)?;
    if !def.is_generic() {
        return Some(def);
    }
    let ge = op.attr(attr::TYPE)?;
    Some(
        ge.as_str()
            .and_then(|t| op_table().semantics_for_ge_type(t))
            .unwrap_or(def),
    )
}

/// GE's type name: the table's, or a generic op's `type` attribute.
pub fn ge_type<V: OpView + ?Sized>(op: &V) -> Option<String> {
    let def = op_def(op)?;
    if def.is_generic() {
        return op.attr(attr::TYPE)?.as_str().map(str::to_string);
    }
    Some(def.ge_type.clone())
}

/// Whether the op is GE's NetOutput, which this IR spells `func.return`.
pub fn is_net_output<V: OpView + ?Sized>(op: &V) -> bool {
    op.is_named("func.return")
}

/// The GE node name (`name` attribute).
pub fn node_name<V: OpView + ?Sized>(op: &V) -> Option<String> {
    op.attr(attr::NAME)?.as_str().map(str::to_string)
}

/// The GE engine: the `engine` attribute, else the table's.
pub fn engine<V: OpView + ?Sized>(op: &V) -> Option<String> {
    if let Some(e) = op
        .attr(attr::ENGINE)
        .and_then(|v| v.as_str().map(str::to_string))
    {
        return Some(e);
    }
    semantic_def(op).map(|d| d.engine.clone())
}

/// Whether the op has a trait (from the table; a generic op uses its type's row).
pub fn has_trait<V: OpView + ?Sized>(op: &V, t: Trait) -> bool {
    semantic_def(op).is_some_and(|d| d.has_trait(t))
}

/// A boolean attribute, or `default` when absent or not boolean-like.
fn flag<V: OpView + ?Sized>(op: &V, name: &str, default: bool) -> bool {
    op.attr(name).and_then(|v| v.as_bool()).unwrap_or(default)
}

/// How many values each table input group of this op holds.
fn input_counts<V: OpView + ?Sized>(op: &V, def: &OpDef) -> Vec<usize> {
    group_counts(
        op,
        &def.inputs,
        attr::OPERAND_SEGMENT_SIZES,
        op.data_operand_count(),
    )
}

/// How many values each table output group of this op holds.
fn output_counts<V: OpView + ?Sized>(op: &V, def: &OpDef) -> Vec<usize> {
    group_counts(
        op,
        &def.outputs,
        attr::RESULT_SEGMENT_SIZES,
        op.data_result_count(),
    )
}

/// Reads the segment sizes when present (dropping the trailing ctrl entry), otherwise
/// gives the non-single group (there is at most one) whatever the singles leave.
fn group_counts<V: OpView + ?Sized>(
    op: &V,
    groups: &[Group],
    segment_attr: &str,
    data_count: usize,
) -> Vec<usize> {
    if let Some(sizes) = op.attr(segment_attr).and_then(|v| v.as_ints()) {
        let sizes: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
        if let Some((_, data)) = sizes.split_last() {
            if let Some(counts) = fold_segments(groups, data) {
                return counts;
            }
        }
    }
    let singles = groups.iter().filter(|g| g.arity == Arity::Single).count();
    let mut spare = data_count.saturating_sub(singles);
    groups
        .iter()
        .map(|g| match g.arity {
            Arity::Single => 1,
            Arity::Optional => {
                let n = spare.min(1);
                spare -= n;
                n
            }
            Arity::Variadic | Arity::Slots(_) => std::mem::take(&mut spare),
        })
        .collect()
}

/// GE's names of the op's input slots: `input_names` if given, else the table's. With an
/// unconnected slot ([`input_slots`]) there is one name per slot, the unconnected ones
/// included; otherwise one per data operand.
pub fn input_names<V: OpView + ?Sized>(op: &V) -> Vec<String> {
    if let Some(names) = op.attr(attr::INPUT_NAMES).and_then(|v| v.as_strs()) {
        return names;
    }
    match op_def(op) {
        Some(def) => match segment_sizes(op, def) {
            Some(sizes) if slots::may_have_holes(&def.inputs, &sizes) => {
                slots::slot_names(&def.inputs, &sizes)
            }
            _ => ge_value_names(&def.inputs, &input_counts(op, def)),
        },
        None => Vec::new(),
    }
}

/// The op's `operandSegmentSizes` without the trailing control entry, when it has them.
fn segment_sizes<V: OpView + ?Sized>(op: &V, def: &OpDef) -> Option<Vec<usize>> {
    def.inputs
        .iter()
        .any(|g| g.arity != Arity::Single)
        .then_some(())?;
    let sizes = op.attr(attr::OPERAND_SEGMENT_SIZES)?.as_ints()?;
    let (_, data) = sizes.split_last()?;
    Some(data.iter().map(|&s| s.max(0) as usize).collect())
}

/// Why the op leaves an input slot unconnected that may not be (a slot of a group that is
/// not optional); `None` when it leaves none or only optional ones. The `.mlir` verifier
/// and the `.ge` importer apply this one rule ([`slots::slot_segments`] words it the same).
pub fn unconnected_slot_problem<V: OpView + ?Sized>(op: &V) -> Option<String> {
    let def = op_def(op)?;
    let sizes = segment_sizes(op, def)?;
    if !slots::may_have_holes(&def.inputs, &sizes) {
        return None;
    }
    slots::hole_problem(def, &sizes)
}

/// GE's input slot of each data operand when the op leaves a slot unconnected (an optional
/// group of size 0 before a later operand, see [`slots`]); `None` when operand `i` is slot
/// `i`, as for every op without one.
pub fn input_slots<V: OpView + ?Sized>(op: &V) -> Option<Vec<usize>> {
    let def = op_def(op)?;
    let sizes = segment_sizes(op, def)?;
    if !slots::may_have_holes(&def.inputs, &sizes) {
        return None;
    }
    slots::operand_slots(&def.inputs, &sizes).filter(|s| slots::has_holes(s))
}

/// GE's names of the op's data outputs: `output_names` if given, else the table's.
pub fn output_names<V: OpView + ?Sized>(op: &V) -> Vec<String> {
    if let Some(names) = op.attr(attr::OUTPUT_NAMES).and_then(|v| v.as_strs()) {
        return names;
    }
    match op_def(op) {
        Some(def) => ge_value_names(&def.outputs, &output_counts(op, def)),
        None => Vec::new(),
    }
}

/// GE's ref rule (MarkRefRelations): output `out_idx` references the input with the same
/// name. `reference = false` on the op turns ref relations off.
pub fn ref_input_of_output<V: OpView + ?Sized>(op: &V, out_idx: usize) -> Option<usize> {
    if !flag(op, attr::REFERENCE, true) {
        return None;
    }
    let outputs = output_names(op);
    let name = outputs.get(out_idx)?;
    input_names(op).iter().position(|n| n == name)
}

/// The inverse of [`ref_input_of_output`]: the output that references input `in_idx`.
pub fn ref_output_of_input<V: OpView + ?Sized>(op: &V, in_idx: usize) -> Option<usize> {
    if !flag(op, attr::REFERENCE, true) {
        return None;
    }
    let inputs = input_names(op);
    let name = inputs.get(in_idx)?;
    output_names(op).iter().position(|n| n == name)
}

/// Whether any output references an input (GE sets `reference = true` on such nodes).
pub fn is_reference<V: OpView + ?Sized>(op: &V) -> bool {
    (0..output_names(op).len()).any(|i| ref_input_of_output(op, i).is_some())
}

/// A `FrameworkOp` wrapping TensorFlow's `RefSwitch` (`original_type`): GE treats its input 0
/// as written and its outputs as writeable (B.3 3d, B.4 2e). Framework ops arrive as generic
/// ops, so this is the one GE rule the table cannot express as a trait.
pub fn is_framework_ref_switch<V: OpView + ?Sized>(op: &V) -> bool {
    ge_type(op).as_deref() == Some("FrameworkOp")
        && op
            .attr(attr::ORIGINAL_TYPE)
            .is_some_and(|v| v.as_str() == Some("RefSwitch"))
}

/// `_input_mutable`: every input is scope-writeable (SW), e.g. HcomAllReduce.
pub fn is_input_mutable<V: OpView + ?Sized>(op: &V) -> bool {
    let default = semantic_def(op).is_some_and(|d| d.row.input_mutable);
    flag(op, attr::INPUT_MUTABLE, default)
}

/// Outputs written atomically (`atomic_output_index`), which must be zeroed first.
/// `is_atomic_node = false` clears the table's list.
pub fn atomic_outputs<V: OpView + ?Sized>(op: &V) -> Vec<usize> {
    if !flag(op, attr::IS_ATOMIC_NODE, true) {
        return Vec::new();
    }
    if let Some(list) = op.attr(attr::ATOMIC_OUTPUT_INDEX).and_then(|v| v.as_ints()) {
        return list
            .into_iter()
            .filter_map(|i| usize::try_from(i).ok())
            .collect();
    }
    semantic_def(op)
        .map(|d| d.row.atomic_outputs.clone())
        .unwrap_or_default()
}

/// The op's kernel reports it atomic (GE's `OpInfo.isAtomic`): the table's `kernel_atomic`
/// column, overridden by `_kernel_atomic`. Independent of [`atomic_outputs`]: GE asks the
/// kernel (`CheckAtomicFromOpsKernel`) and the op's attributes (`IsAtomicOp`) separately.
pub fn is_kernel_atomic<V: OpView + ?Sized>(op: &V) -> bool {
    let default = semantic_def(op).is_some_and(|d| d.row.kernel_atomic);
    flag(op, attr::KERNEL_ATOMIC, default)
}

/// `continuous_input`: all inputs must sit in one contiguous block.
pub fn is_continuous_input<V: OpView + ?Sized>(op: &V) -> bool {
    let default = semantic_def(op).is_some_and(|d| d.row.continuous_input);
    flag(op, attr::CONTINUOUS_INPUT, default)
}

/// `continuous_output`: all outputs sit in one contiguous block.
pub fn is_continuous_output<V: OpView + ?Sized>(op: &V) -> bool {
    let default = semantic_def(op).is_some_and(|d| d.row.continuous_output);
    flag(op, attr::CONTINUOUS_OUTPUT, default)
}

/// `_no_padding_continuous_input`.
pub fn is_nopadding_continuous_input<V: OpView + ?Sized>(op: &V) -> bool {
    let default = semantic_def(op).is_some_and(|d| d.row.nopadding_continuous_input);
    flag(op, attr::NOPADDING_CONTINUOUS_INPUT, default)
}

/// `_no_padding_continuous_output`.
pub fn is_nopadding_continuous_output<V: OpView + ?Sized>(op: &V) -> bool {
    let default = semantic_def(op).is_some_and(|d| d.row.nopadding_continuous_output);
    flag(op, attr::NOPADDING_CONTINUOUS_OUTPUT, default)
}

/// `_skip_rw_conflict` (set by HcclMemcpyPass, B.15).
pub fn skip_rw_conflict<V: OpView + ?Sized>(op: &V) -> bool {
    flag(op, attr::SKIP_RW_CONFLICT, false)
}

/// `_cannot_be_deleted` (SubgraphPass copies, B.16).
pub fn cannot_be_deleted<V: OpView + ?Sized>(op: &V) -> bool {
    flag(op, attr::CANNOT_BE_DELETED, false)
}

/// `_stream_label`, if non-empty.
pub fn stream_label<V: OpView + ?Sized>(op: &V) -> Option<String> {
    non_empty_str(op, attr::STREAM_LABEL)
}

/// `_parallel_group`, if non-empty.
pub fn parallel_group<V: OpView + ?Sized>(op: &V) -> Option<String> {
    non_empty_str(op, attr::PARALLEL_GROUP)
}

fn non_empty_str<V: OpView + ?Sized>(op: &V, name: &str) -> Option<String> {
    op.attr(name)?
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `_special_input_size` of data input `in_idx` (0 when unset). GE keeps it on the input
/// tensor desc; here it is an int (all inputs) or an int list (one per input).
pub fn special_input_size<V: OpView + ?Sized>(op: &V, in_idx: usize) -> i64 {
    match op.attr(attr::SPECIAL_INPUT_SIZE) {
        Some(AttrValue::Int(i)) => i,
        Some(v) => v
            .as_ints()
            .and_then(|list| list.get(in_idx).copied())
            .unwrap_or(0),
        None => 0,
    }
}

/// `ref_var_src_var_name` of data output `out_idx`: the variable this output aliases. A
/// string applies to output 0; a string list gives one name per output (empty = none).
pub fn ref_var_src_var_name<V: OpView + ?Sized>(op: &V, out_idx: usize) -> Option<String> {
    let value = op.attr(attr::REF_VAR_SRC_VAR_NAME)?;
    let name = match value {
        AttrValue::Str(s) if out_idx == 0 => s,
        other => other.as_strs()?.get(out_idx)?.clone(),
    };
    (!name.is_empty()).then_some(name)
}

/// Tasks this op puts on its stream (C.8): `_node_sqe_num`, else `_hccl_task_num` for HCCL
/// ops, else the table's `task_num`, else 1.
pub fn task_num<V: OpView + ?Sized>(op: &V) -> u32 {
    let read = |name| {
        op.attr(name)
            .and_then(|v| v.as_int())
            .and_then(|i| u32::try_from(i).ok())
    };
    if let Some(n) = read(attr::NODE_SQE_NUM) {
        return n;
    }
    if has_trait(op, Trait::Hccl) {
        if let Some(n) = read(attr::HCCL_TASK_NUM) {
            return n;
        }
    }
    semantic_def(op).and_then(|d| d.row.task_num).unwrap_or(1)
}

/// The subgraph symbols of the op in GE's subgraph order (If: then, else; Case: branches in
/// order; While: cond, body; PartitionedCall: f). Missing attributes are skipped.
pub fn subgraph_symbols<V: OpView + ?Sized>(op: &V) -> Vec<String> {
    let Some(def) = semantic_def(op) else {
        return Vec::new();
    };
    let mut symbols = Vec::new();
    for name in &def.row.subgraph_attrs {
        if let Some(s) = op
            .attr(name)
            .and_then(|v| v.as_symbol().map(str::to_string))
        {
            symbols.push(s);
        }
    }
    for name in &def.row.subgraph_list_attrs {
        if let Some(list) = op.attr(name).and_then(|v| v.as_symbols()) {
            symbols.extend(list);
        }
    }
    symbols
}

/// Whether the op owns subgraphs (If, Case, While, PartitionedCall, ...).
pub fn has_subgraphs<V: OpView + ?Sized>(op: &V) -> bool {
    !subgraph_symbols(op).is_empty()
}

/// The data operands (everything that is not `!ascend.ctrl`), in GE input order.
pub fn data_operands<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Vec<Value<'c, 'a>> {
    op.operands()
        .filter(|v| !is_ctrl_type(v.r#type()))
        .collect()
}

/// The control operands: the producers of incoming control edges.
pub fn ctrl_operands<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Vec<Value<'c, 'a>> {
    op.operands().filter(|v| is_ctrl_type(v.r#type())).collect()
}

/// The data results, in GE output order.
pub fn data_results<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Vec<OperationResult<'c, 'a>> {
    op.results().filter(|v| !is_ctrl_type(v.r#type())).collect()
}

/// The control result (always the last result of an ascend op); `None` for other ops.
pub fn ctrl_result<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Option<OperationResult<'c, 'a>> {
    let count = op.result_count();
    let last = op.result(count.checked_sub(1)?).ok()?;
    is_ctrl_type(last.r#type()).then_some(last)
}

#[cfg(test)]
#[path = "semantics_tests.rs"]
mod tests;
