//! Stream allocation in the IR: the `stream-alloc` pass, one file per role.
//!
//! * [`model_from_ir`]: the frozen [`StreamGraph`](crate::analysis::stream::StreamGraph)
//!   from a module (graphs, nodes, engines, edges, GE attributes);
//! * [`stream_alloc`]: the pass (options, registry constructor, idempotence);
//! * [`apply`]: the single write-back of an allocation (attributes, StreamActive, Send/Recv);
//! * [`report`]: the JSON / table summary and Graphviz.
//!
//! The decisions themselves live in [`crate::analysis::stream`], pure Rust.

pub mod apply;
pub mod model_from_ir;
pub mod report;
pub mod stream_alloc;

#[cfg(test)]
mod tests;
