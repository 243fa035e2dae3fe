//! Pipeline aliases: one flag that stands for a list of registered passes, like MLIR's
//! `PassPipelineRegistration`.
//!
//! An alias is expanded where flags and pipeline text are resolved, so each pass of the
//! list runs as its own MLIR pass (timing, statistics and `--mlir-print-ir-after-all`
//! name them one by one). Options given to the alias (`--ge-compile=single-stream=true`,
//! `ge-compile{root=g}`) go to every pass of the list that declares them; an option no
//! pass of the list declares is an error, as it would be for a single pass.

use super::{lookup, options::Assignment, PassInfo};

/// One alias: a flag and the passes it runs, in order.
#[derive(Debug)]
pub struct PipelineAlias {
    pub flag: &'static str,
    pub description: &'static str,
    /// Registered pass flags, in run order.
    pub passes: &'static [&'static str],
}

/// The aliases. Keep rows sorted by flag; no alias may share a pass's flag.
pub static ALIASES: &[PipelineAlias] = &[
    PipelineAlias {
        flag: "ge-compile",
        description: "GE's compile-time memory and stream passes in GE's order: \
                  ge-memory-pipeline (HCCL copies, SubgraphPass, AtomicAddrClean, RW \
                  conflicts, GraphLint), memcpy-addr-async, inplace-support-check, \
                  mark-same-addr, mem-layout-conflict (MemConflictProc), stream-alloc, then \
                  the static plan: mem-inplace, mem-assign, set-io-offset, verify-mem-plan",
        passes: &[
            "ge-memory-pipeline",
            "memcpy-addr-async",
            "inplace-support-check",
            "mark-same-addr",
            "mem-layout-conflict",
            "stream-alloc",
            "mem-inplace",
            "mem-assign",
            "set-io-offset",
            "verify-mem-plan",
        ],
    },
    PipelineAlias {
        flag: "ge-compile-and-lower",
        description: "ge-compile, then lower-to-tasks: a .ge graph to its per-stream task lists \
                      (the ascend_task model the runtime loads)",
        passes: &[
            "ge-memory-pipeline",
            "memcpy-addr-async",
            "inplace-support-check",
            "mark-same-addr",
            "mem-layout-conflict",
            "stream-alloc",
            "mem-inplace",
            "mem-assign",
            "set-io-offset",
            "verify-mem-plan",
            "lower-to-tasks",
        ],
    },
];

/// Looks an alias up by flag / pipeline name.
pub fn lookup_alias(flag: &str) -> Option<&'static PipelineAlias> {
    ALIASES.iter().find(|alias| alias.flag == flag)
}

impl PipelineAlias {
    /// The passes of the alias, each with the assignments it declares.
    pub fn expand(
        &self,
        assignments: &[Assignment],
    ) -> Result<Vec<(&'static PassInfo, Vec<Assignment>)>, String> {
        let passes: Vec<&'static PassInfo> = self
            .passes
            .iter()
            .map(|flag| {
                lookup(flag)
                    .ok_or_else(|| format!("alias '{}' names unknown pass '{flag}'", self.flag))
            })
            .collect::<Result<_, _>>()?;
        for (name, _) in assignments {
            let declared = passes
                .iter()
                .any(|info| info.options.iter().any(|option| option.name == name));
            if !declared {
                return Err(format!(
                    "pipeline '{}': no pass of it has an option '{name}'",
                    self.flag
                ));
            }
        }
        Ok(passes
            .into_iter()
            .map(|info| {
                let own = assignments
                    .iter()
                    .filter(|(name, _)| info.options.iter().any(|option| option.name == name))
                    .cloned()
                    .collect();
                (info, own)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PASSES;

    #[test]
    fn aliases_are_sorted_name_registered_passes_and_do_not_shadow_them() {
        let flags: Vec<_> = ALIASES.iter().map(|alias| alias.flag).collect();
        let mut sorted = flags.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(flags, sorted);
        for alias in ALIASES {
            assert!(
                lookup(alias.flag).is_none(),
                "{} shadows a pass",
                alias.flag
            );
            assert!(alias.expand(&[]).is_ok(), "{}", alias.flag);
        }
        assert!(PASSES.len() > ALIASES.len());
    }

    #[test]
    fn options_go_to_the_passes_that_declare_them() {
        let alias = lookup_alias("ge-compile").unwrap();
        let expanded = alias
            .expand(&[("single-stream".to_owned(), Some("true".to_owned()))])
            .unwrap();
        for (info, own) in &expanded {
            assert_eq!(
                own.len(),
                usize::from(info.flag == "stream-alloc"),
                "{}",
                info.flag
            );
        }
        let error = alias.expand(&[("bogus".to_owned(), None)]).unwrap_err();
        assert!(
            error.contains("no pass of it has an option 'bogus'"),
            "{error}"
        );
    }
}
