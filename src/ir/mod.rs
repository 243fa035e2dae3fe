//! The FFI wrapper layer: the only module of the crate allowed to use `unsafe`.
//!
//! Passes are written against this safe surface:
//! * [`pattern`]: "a pass = analyses + patterns" — [`PatternSet`]s of Rust closures run by
//!   MLIR's greedy ([`apply_greedily`]) or walk ([`walk_and_apply`]) driver and freed after
//!   use (melior's own helpers leak ~2.6 KB per apply).
//! * [`rewriter`]: the [`Rewriter`] handle every IR mutation goes through: inside a pattern
//!   callback (so the driver is notified) or outside one ([`IrRewriter`]).
//! * [`ops`]: op-level helpers that know the `ascend` conventions (trailing control
//!   operands, one control result, segment sizes from the op table, names, attributes).
//! * [`insert`]: GE-faithful node insertion and removal (`InsertNodeBefore`,
//!   `InsertNodeAfter`, `IsolateNode` + `RemoveNode`) including their control-edge moves.
//! * [`graph`]: a petgraph view of one function ([`FuncGraph`], nodes in program order)
//!   and the module's [`SubgraphTree`]. Reachability over a view lives in
//!   [`crate::analysis::reachability`].
//!
//! * [`external_pass`], [`pass_manager`], [`source`]: Rust passes in MLIR pass managers,
//!   upstream pipeline text, timing, and parsing a named buffer (for `ge-opt`).
//!
//! Every `unsafe` block lives in this folder, each with a
//! `// SAFETY:` comment. The lifetimes follow melior: an `OperationRef` is a handle that
//! stays valid until its op is erased; erasing goes through [`Rewriter::erase`], which
//! refuses ops that still have uses.

pub mod diagnostics;
mod error;
pub mod external_pass;
pub mod graph;
pub mod insert;
pub mod ops;
pub mod pass_manager;
pub mod pattern;
mod prim;
pub mod rewriter;
pub mod source;
#[cfg(test)]
mod test_util;

pub use error::{IrError, LocatedError};
pub use graph::{
    kahn_order, subgraph_refs, EdgeKind, FuncGraph, GraphNode, NodeKind, ParentLink, SubgraphEntry,
    SubgraphRef, SubgraphTree,
};
pub use insert::{bypass_and_erase, insert_after_output, insert_before_input};
pub use ops::{string_value, symbol_value, OpKey, Producer, Use};
pub use pattern::{
    apply_greedily, walk_and_apply, FrozenPatternSet, GreedyConfig, OpPattern, PatternError,
    PatternSet,
};
pub use rewriter::{IrRewriter, Rewriter};
