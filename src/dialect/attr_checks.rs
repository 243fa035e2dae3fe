//! Checks of attribute values that IRDL cannot state, shared by the `.mlir` path
//! ([`super::verify`], after parsing) and the `.ge` importer (on the lowered attribute), so
//! both formats apply one rule:
//!
//! * a subgraph attribute (`then_branch`, `f`, ...) holds one symbol, a subgraph list
//!   attribute (Case's `branches`) a non-empty flat list of symbols: `[[@t]]` or `[]` used
//!   to pass, and the passes then saw a Case without branches;
//! * a Const-like op's `value` is an elements attribute (`dense<...>`) of exactly the
//!   op's result type: a `dense<f32[2]>` value on an `f32[1000]` result, or a string, used to
//!   pass and describe a tensor the value does not hold.

use super::{OpDef, Trait};
use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike},
    Attribute, Type,
};

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
