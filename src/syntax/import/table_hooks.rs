//! What the importer asks the op table beyond the group API of this branch's `table.rs`.
//!
//! The full table (dialect branch) has the answers as columns; until it is merged, each hook
//! answers from GE's own conventions or not at all. At merge, the bodies become:
//! * `is_data_like`: `def.has_trait(Trait::DataLike)`
//! * `subgraph_attrs`: `def.subgraph_attr_names().collect()`
//! * `same_type_sets`: `&def.row.same_type`
//! * `required_attrs`: `def.row.required_attrs.keys().map(String::as_str).collect()`

use crate::dialect::OpDef;

/// GE's data-like node types: the node reads function argument `index`.
const DATA_LIKE: &[&str] = &["Data", "RefData"];

/// GE's attribute names for subgraph references (If, Case, While, PartitionedCall).
const SUBGRAPH_ATTRS: &[&str] = &[
    "then_branch",
    "else_branch",
    "branches",
    "cond",
    "body",
    "f",
];

/// Whether nodes of this op are graph inputs (`Data() {index = i}`).
pub fn is_data_like(def: &OpDef) -> bool {
    DATA_LIKE.contains(&def.ge_type.as_str())
}

/// Attributes of this op that name subgraphs (`@g` or a list of them).
pub fn subgraph_attrs(_def: &OpDef) -> Vec<&'static str> {
    SUBGRAPH_ATTRS.to_vec()
}

/// Sets of group names whose values must all have one type (e.g. `[["x", "y"]]` for Relu).
pub fn same_type_sets(_def: &OpDef) -> &[Vec<String>] {
    &[]
}

/// Attributes a node of this op must have.
pub fn required_attrs(_def: &OpDef) -> Vec<&str> {
    Vec::new()
}
