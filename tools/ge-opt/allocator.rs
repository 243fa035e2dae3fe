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

#[cfg(test)]
mod tests {
    /// This process's `THP_enabled` (listed in /proc/self/status since Linux 6.6).
    fn thp_enabled() -> Option<String> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("THP_enabled:"))
            .map(|value| value.trim().to_owned())
    }

    /// The prctl is what turns huge pages off for the arenas mimalloc mapped before `main`;
    /// the option alone would not.
    #[test]
    fn the_defaults_turn_transparent_huge_pages_off_for_the_process() {
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() || thp_enabled().is_none() {
            return; // the user's setting wins, or the kernel does not report it
        }
        super::apply_defaults();
        assert_eq!(thp_enabled().as_deref(), Some("0"));
    }
}
