//! A simulated Ascend device behind the C ABI of CANN's `libascendcl.so` (the subset in
//! `include/ge_acl_subset.h`, HCCL included). ge-run loads it with the same loader code as
//! the real library. The only `unsafe` of the crate is in [`abi`], whose C entry points
//! check their pointers and hand safe values to the device model.
//!
//! See README.md for what is simulated and how.

pub mod abi;
pub mod config;
pub mod cost;
pub mod device;
pub mod errors;
pub mod handles;
pub mod hccl;
pub mod hccl_api;
pub mod memory;
pub mod model;
pub mod op;
pub mod race;
pub mod report;
pub mod scheduler;
pub mod sim;
pub mod task;
