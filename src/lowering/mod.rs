//! The final lowering: a compiled module (after `--ge-compile`) to per-stream task lists.
//!
//! * `model`: the lowered model as plain Rust ([`model::TaskModel`]), the runtime's input;
//! * `lower`: the analysis, compiled IR → model ([`lower_module`]), with `control_flow` for
//!   If / Case / While / PartitionedCall, `homes` for where streams live among the graph
//!   instances (streams the physical split shares between graphs), and `ir_read` for types, attributes and bytes;
//! * `emit`: the model as `ascend_task` MLIR; `read`: that MLIR back to the model
//!   ([`read_task_model`], the exact inverse);
//! * `verify`: checks on a model (events, ids, labels, activations, address bounds);
//! * `passes`: `--lower-to-tasks` and `--verify-tasks`.

pub mod control_flow;
pub mod emit;
mod homes;
pub mod ir_read;
pub mod lower;
pub mod model;
pub mod passes;
pub mod read;
#[cfg(test)]
mod tests;
pub mod verify;

pub use emit::emit_model;
pub use lower::{lower_module, lower_op};
pub use read::read_task_model;
pub use verify::verify_model;
