//! The `ascend` dialect: context set-up, IRDL loading and the op table.

pub mod context;
pub mod irdl_gen;
pub mod table;

pub use context::{new_context, IRDL_SOURCE};
pub use irdl_gen::generate_irdl;
pub use table::{op_table, Arity, ArityError, AttrKind, Group, OpDef, OpTable, Trait};
