//! What the importer asks the op table beyond operand/result groups, in one place.

use crate::dialect::{OpDef, Trait};

/// Whether nodes of this op are graph inputs (`Data() {index = i}`): GE's data-like set.
pub fn is_data_like(def: &OpDef) -> bool {
    def.has_trait(Trait::DataLike)
}

/// Attributes of this op that name subgraphs (`@g`, or a list of them for Case).
pub fn subgraph_attrs(def: &OpDef) -> Vec<&str> {
    def.subgraph_attr_names().collect()
}

/// Sets of group names whose values must all have one type (e.g. `[["x", "y"]]` for Relu).
pub fn same_type_sets(def: &OpDef) -> &[Vec<String>] {
    &def.row.same_type
}

/// Attributes a node of this op must carry, besides its subgraph attributes.
pub fn required_attrs(def: &OpDef) -> Vec<&str> {
    def.row.required_attrs.keys().map(String::as_str).collect()
}
