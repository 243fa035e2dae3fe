//! Memory read/write conflict passes (spec sections 3.1.1-3.1.3, 3.1.5, 3.2, 3.5).

pub mod model;
pub mod plan;
pub mod rw_conflict;
pub mod rw_types;
