//! The final lowering: a compiled module (after `--ge-compile`) to per-stream task lists.
//!
//! * `model`: the lowered model as plain Rust ([`model::TaskModel`]);
//! * the `--lower-to-tasks` pass builds it from the IR and writes it as the `ascend_task`
//!   dialect; a reader turns that MLIR back into a [`model::TaskModel`] for the runtime;
//! * a verifier checks task IR (events, address bounds, ids, operand types).

pub mod model;
