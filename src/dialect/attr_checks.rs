//! Checks of attribute values that IRDL cannot state, shared by the `.mlir` path
//! ([`super::verify`], after parsing) and the `.ge` importer (on the lowered attribute), so
//! both formats apply one rule:
//!
//! * a subgraph attribute (`then_branch`, `f`, ...) holds one symbol, a subgraph list
//!   attribute (Case's `branches`) a non-empty flat list of symbols: `[[@t]]` or `[]` used
//!   to pass, and the passes then saw a Case without branches;
//! * a Const-like op's `value` is an elements attribute (`dense<...>`) of exactly the
//!   op's result type: a `dense<f32[2]>` value on an `f32[1000]` result, or a string, used to
//!   pass and describe a tensor the value does not hold;
//! * the attributes the passes read have their type ([`typed_attr_problem`]): a flag is
//!   `true`/`false` (or GE's 0/1), a stream or event id an integer in range, an offset list
//!   integers from -1 up. Read leniently, `_input_mutable = "false"` and `= 3` both meant
//!   true, `stream_id = "x"` and `event_id = -2` were ignored.

use super::semantics::attr;
use super::{OpDef, Trait};
use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike, IntegerAttribute},
    Attribute, Type,
};

/// Flags the passes read: `true`/`false`, or 0/1.
const FLAGS: &[&str] = &[
    attr::INPUT_MUTABLE,
    attr::REFERENCE,
    attr::IS_ATOMIC_NODE,
    attr::KERNEL_ATOMIC,
    attr::CONTINUOUS_INPUT,
    attr::CONTINUOUS_OUTPUT,
    attr::NOPADDING_CONTINUOUS_INPUT,
    attr::NOPADDING_CONTINUOUS_OUTPUT,
    attr::SKIP_RW_CONFLICT,
    attr::CANNOT_BE_DELETED,
    attr::RTS_LABEL_NODE,
    attr::IS_LOOP_ACTIVE,
    attr::SUBGRAPH_FIRST_ACTIVE,
];

/// Integer attributes the passes read, with their least valid value: stream ids (-1 is
/// GE's "no stream", a source node's logical stream), event and notify ids.
const INTS: &[(&str, i64)] = &[
    ("stream_id", -1),
    ("_logic_stream_id", -1),
    (attr::EVENT_ID, 0),
    ("notify_id", 0),
];

/// Offset lists `--verify-mem-plan` and the lowering read back: -1 is "no offset".
const OFFSET_LISTS: &[&str] = &["output_offset", "input_offset"];

/// Why `value`, the value of an op attribute `name`, has the wrong type for what the
/// passes read from it; `None` when it is fine or `name` is not one of them.
pub fn typed_attr_problem(name: &str, value: Attribute) -> Option<String> {
    if FLAGS.contains(&name) {
        return match int_value(value) {
            _ if value.is_bool() => None,
            Some(0 | 1) => None,
            _ => Some(format!("`{name}` must be `true` or `false`, got `{value}`")),
        };
    }
    if let Some(&(_, min)) = INTS.iter().find(|(n, _)| *n == name) {
        return match int_value(value) {
            Some(v) if v >= min => None,
            Some(v) => Some(format!(
                "`{name}` must be an integer of at least {min}, got {v}"
            )),
            None => Some(format!("`{name}` must be an integer, got `{value}`")),
        };
    }
    if OFFSET_LISTS.contains(&name) {
        let want = format!("`{name}` must be a list of byte offsets (integers, -1 for none)");
        let Ok(list) = ArrayAttribute::try_from(value) else {
            return Some(format!("{want}, got `{value}`"));
        };
        return (0..list.len())
            .filter_map(|i| list.element(i).ok())
            .find(|e| int_value(*e).is_none_or(|v| v < -1))
            .map(|e| format!("{want}, got the element `{e}`"));
    }
    None
}

/// `memory_size` of a function: the workspace bytes, an integer from 0 up.
pub fn memory_size_problem(value: Attribute) -> Option<String> {
    match int_value(value) {
        Some(v) if v >= 0 => None,
        _ => Some(format!(
            "`memory_size` must be the workspace size in bytes (an integer from 0 up), got \
             `{value}`"
        )),
    }
}

/// The value of an integer (not boolean) attribute.
fn int_value(value: Attribute) -> Option<i64> {
    if value.is_bool() || !value.is_integer() {
        return None;
    }
    IntegerAttribute::try_from(value).ok().map(|i| i.value())
}

/// Why `attr`, the value of subgraph attribute `name` of an op of `def`, is malformed;
/// `None` when it is fine or `name` is not a subgraph attribute.
pub fn subgraph_attr_problem(def: &OpDef, name: &str, attr: Attribute) -> Option<String> {
    if def.row.subgraph_attrs.iter().any(|a| a == name) {
        return (!attr.is_flat_symbol_ref()).then(|| {
            format!(
                "`{name}` of {} must be one graph symbol (`@g`), got `{attr}`",
                def.ge_type
            )
        });
    }
    if !def.row.subgraph_list_attrs.iter().any(|a| a == name) {
        return None;
    }
    let want = format!(
        "`{name}` of {} must be a non-empty list of graph symbols (`[@g0, @g1]`)",
        def.ge_type
    );
    let Ok(list) = ArrayAttribute::try_from(attr) else {
        return Some(format!("{want}, got `{attr}`"));
    };
    if list.is_empty() {
        return Some(format!("{want}, got an empty list"));
    }
    (0..list.len())
        .filter_map(|i| list.element(i).ok())
        .find(|e| !e.is_flat_symbol_ref())
        .map(|e| format!("{want}, got the element `{e}`"))
}

/// Why `value` does not fit a Const-like op of `def` whose data result is `result`; `None`
/// when it does, or the op is not Const-like.
pub fn const_value_problem(def: &OpDef, value: Attribute, result: Option<Type>) -> Option<String> {
    if !def.has_trait(Trait::ConstLike) {
        return None;
    }
    if !value.is_elements() {
        return Some(format!(
            "`value` of {} must be a tensor value (`dense<...>`), got `{value}`",
            def.ge_type
        ));
    }
    let have = value.r#type();
    match result {
        Some(want) if want != have => Some(format!(
            "`value` of {} is a {have} but the op's result is a {want}: a Const's value \
             must have exactly its result type",
            def.ge_type
        )),
        _ => None,
    }
}
