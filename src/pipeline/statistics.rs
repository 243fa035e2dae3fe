//! Pass statistics for our Rust passes (`--mlir-pass-statistics`).
//!
//! MLIR's own statistics cannot be declared through the C API (and the LLVM 22 packages
//! are built without statistics, so `mlir-opt --mlir-pass-statistics` prints an empty
//! report). Our passes therefore count into [`Statistic`]s, shared by the clones MLIR makes
//! of a pass, and `ge-opt` prints the report in MLIR's list format after the pipeline ran.

use super::PassInfo;
use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc, Mutex,
};

/// One counter of one pass instance.
#[derive(Clone, Debug)]
pub struct Statistic {
    name: &'static str,
    description: &'static str,
    value: Arc<AtomicU64>,
}

impl Statistic {
    /// Adds `amount` to the counter.
    pub fn add(&self, amount: u64) {
        self.value.fetch_add(amount, Ordering::Relaxed);
    }

    /// The current value.
    pub fn get(&self) -> u64 {
        self.value.load(Ordering::Relaxed)
    }

    /// The statistic's name (`num-ops-numbered`).
    pub fn name(&self) -> &'static str {
        self.name
    }
}

#[derive(Debug)]
struct Instance {
    info: &'static PassInfo,
    statistics: Vec<Statistic>,
}

/// The statistics of every pass instance of one pipeline, in pipeline order.
#[derive(Clone, Debug, Default)]
pub struct PassStatistics {
    instances: Arc<Mutex<Vec<Instance>>>,
}

impl PassStatistics {
    /// Records a new pass instance; returns its index.
    pub(super) fn add_instance(&self, info: &'static PassInfo) -> usize {
        let mut instances = self.lock();
        instances.push(Instance {
            info,
            statistics: Vec::new(),
        });
        instances.len() - 1
    }

    /// Registers (or returns the existing) counter `name` of instance `instance`.
    pub(super) fn register(
        &self,
        instance: usize,
        name: &'static str,
        description: &'static str,
    ) -> Statistic {
        let mut instances = self.lock();
        let fresh = Statistic {
            name,
            description,
            value: Arc::default(),
        };
        let Some(entry) = instances.get_mut(instance) else {
            // Options resolved outside a pipeline (unit tests): an unreported counter.
            return fresh;
        };
        if let Some(existing) = entry.statistics.iter().find(|stat| stat.name == name) {
            return existing.clone();
        }
        entry.statistics.push(fresh.clone());
        fresh
    }

    /// Every registered counter's name and description, in pipeline and registration
    /// order (the pass reference lists them).
    pub fn registered(&self) -> Vec<(String, String)> {
        self.lock()
            .iter()
            .flat_map(|instance| &instance.statistics)
            .map(|stat| (stat.name.to_owned(), stat.description.to_owned()))
            .collect()
    }

    /// The report in MLIR's list format; empty when no pass registered a statistic.
    pub fn render(&self) -> String {
        let instances = self.lock();
        let rule =
            "===-------------------------------------------------------------------------===";
        let mut out =
            format!("{rule}\n                         ... Pass statistics report ...\n{rule}\n");
        let mut any = false;
        for instance in instances.iter().filter(|i| !i.statistics.is_empty()) {
            any = true;
            out.push_str(&format!(
                "{} ({})\n",
                instance.info.display_name(),
                instance.info.flag
            ));
            let value_width = instance
                .statistics
                .iter()
                .map(|stat| stat.get().to_string().len())
                .max()
                .unwrap_or(1);
            let name_width = instance
                .statistics
                .iter()
                .map(|stat| stat.name.len())
                .max()
                .unwrap_or(1);
            for stat in &instance.statistics {
                out.push_str(&format!(
                    "  (S) {:>value_width$} {:<name_width$} - {}\n",
                    stat.get(),
                    stat.name,
                    stat.description
                ));
            }
        }
        if any {
            out
        } else {
            String::new()
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Instance>> {
        // A poisoned lock only means a pass panicked mid-count; the counts stay usable.
        self.instances
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
