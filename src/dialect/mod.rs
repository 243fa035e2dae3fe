//! The `ascend` dialect: context set-up, IRDL loading, the op table and the semantics
//! queries passes use.

pub mod attr_checks;
pub mod context;
pub mod doc_gen;
pub mod irdl_gen;
pub mod op_view;
pub mod semantics;
pub mod slots;
pub mod subgraph_rule;
pub mod table;
pub mod verify;

pub use context::{new_context, IRDL_SOURCE};
pub use irdl_gen::generate_irdl;
pub use op_view::{AttrValue, OpDesc, OpView};
pub use table::{op_table, Arity, ArityError, AttrKind, Group, OpDef, OpTable, Trait};
pub use verify::verify_subgraphs;
