//! A simulated Ascend device behind the C ABI of CANN's `libascendcl.so` (the subset in
//! `include/ge_acl_subset.h`). ge-run loads it with the same loader code as the real
//! library. The only `unsafe` of the crate is in the C entry points, which check their
//! pointers and hand safe values to the device model.
