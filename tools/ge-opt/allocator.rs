//! ge-opt's mimalloc defaults, set at the start of `main` (the one FFI call of the binary).
//!
//! Measured side by side on the 1M-op graph of every benchmark family (2026-11-30, README,
//! Performance): with mimalloc's own defaults the kernel spent up to a fifth of a run
//! clearing pages: 2 MB transparent huge pages at first touch, and pages mimalloc had
//! handed back to the OS 10 ms after a free and then faulted in again. Keeping freed memory
//! and using 4 KB pages made whole runs 6–15 % faster (parse+print alone too) and the
//! passes 10–18 %, for up to 15 % more peak memory; a 10k-op pass takes 3–4 ms more.
//! `MIMALLOC_PURGE_DELAY` and `MIMALLOC_ALLOW_THP` in the environment override these
//! defaults.

extern "C" {
    fn ge_mimalloc_defaults();
}

/// Applies the defaults (call it first thing in `main`: memory mapped before it keeps the
/// old settings' purging, though not their huge pages).
pub fn apply_defaults() {
    // SAFETY: the C function only sets mimalloc options and calls prctl; it takes no
    // pointers and may run at any time.
    unsafe { ge_mimalloc_defaults() }
}
