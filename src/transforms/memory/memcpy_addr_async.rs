//! `--memcpy-addr-async`: MemcpyAddrAsyncPass (spec 3.1.6, notes B.18).
//!
//! Zero-copy address passing: a `MemcpyAddrAsync` between a user Data and a StreamMerge
//! (found through subgraph boundaries), between a Const (or, with `offline=true`, a Data)
//! and the root graph output, and between a RefData and an HCCL op when the feature map
//! cannot be refreshed (`feature-map-refreshable=false`). Decisions:
//! [`crate::analysis::memory::memcpy_addr_async`].

use super::{
    MemoryPass, Stage, FEATURE_MAP_REFRESHABLE_OPTION, OFFLINE_OPTION, REMARKS_OPTION, ROOT_OPTION,
};
use crate::{
    ir::external_pass::PassId,
    pipeline::{OptionSpec, PassOptions},
};
use melior::pass::Pass;

/// Options of the pass.
pub const OPTIONS: &[OptionSpec] = &[
    ROOT_OPTION,
    REMARKS_OPTION,
    FEATURE_MAP_REFRESHABLE_OPTION,
    OFFLINE_OPTION,
];

static ID: PassId = PassId::new();

/// Registry constructor.
pub fn create(options: &PassOptions) -> Result<Pass, String> {
    Ok(options.build_pass(
        MemoryPass::from_options(options, Stage::MemcpyAddrAsync)?,
        &ID,
    ))
}

super::patterns::memory_pass_patterns!(
    Stage::MemcpyAddrAsync,
    "memcpy-addr-async",
    populate_memcpy_addr_async_patterns,
    "MemcpyAddrAsyncPass"
);
