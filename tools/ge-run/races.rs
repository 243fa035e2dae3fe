//! Races found by the simulator's detector over `--schedules`, each reported once with the
//! first schedule (seed and mode) that showed it, and split in two: races the graph
//! itself leaves open (GraphLint's W18888 pairs: a variable written and read, or written
//! twice, by nodes with no control relation) are the model author's to fix and reported as
//! such, not as errors; every other race is one the compiler introduced, an error.

use std::collections::{BTreeSet, HashSet};

use ge_mlir::{
    lowering::model::TaskModel,
    runtime::executor::{RunOptions, SimReport},
};
use serde_json::Value;

/// An unordered node pair of a W18888 warning (`write node %a and read node %r`).
pub fn lint_pair(message: &str) -> Option<(String, String)> {
    let rest = message.strip_prefix("W18888: ")?;
    let after = rest.split_once("write node %")?.1;
    let (writer, rest) = after.split_once(' ')?;
    let other = rest.split_once(" node %")?.1;
    let other = other.split(' ').next()?;
    Some((writer.to_owned(), other.to_owned()))
}

#[derive(Default)]
pub struct RaceLog {
    /// Unordered pairs GraphLint reported, both ways round.
    graph_pairs: HashSet<(String, String)>,
    /// Races the compiler introduced (keys), each printed once.
    pub compiler: BTreeSet<String>,
    /// Races between a W18888 pair, each printed once.
    pub graph: BTreeSet<String>,
}

fn node(task: &Value) -> Option<&str> {
    task.get("node")?.as_str()
}

impl RaceLog {
    pub fn new(lint_pairs: &[(String, String)]) -> RaceLog {
        let mut graph_pairs = HashSet::new();
        for (a, b) in lint_pairs {
            graph_pairs.insert((a.clone(), b.clone()));
            graph_pairs.insert((b.clone(), a.clone()));
        }
        RaceLog {
            graph_pairs,
            ..RaceLog::default()
        }
    }

    /// Whether `race` is between the two nodes of a W18888 pair.
    fn is_graph_race(&self, race: &Value) -> bool {
        match (node(&race["first"]), node(&race["second"])) {
            (Some(a), Some(b)) => self.graph_pairs.contains(&(a.to_owned(), b.to_owned())),
            _ => false,
        }
    }

    /// Adds schedule `k`'s races, printing the new ones; returns whether the schedule had
    /// any race the compiler introduced and whether it had graph races.
    pub fn add(
        &mut self,
        k: u32,
        options: &RunOptions,
        report: &SimReport,
        model: &TaskModel,
    ) -> (bool, bool) {
        let (mut compiler, mut graph) = (false, false);
        for race in report.races() {
            let key = format!("{}|{}|{}", race["kind"], race["first"], race["second"]);
            let at = format!(
                "schedule {k} (sim seed {}, mode {})",
                options.sim_seed,
                options.schedule_mode.as_deref().unwrap_or("uniform")
            );
            if self.is_graph_race(&race) {
                graph = true;
                if self.graph.insert(key) {
                    println!(
                        "{at}: graph race (the graph leaves %{} and %{} unordered, GraphLint W18888; not introduced by the compiler): {}",
                        node(&race["first"]).unwrap_or("?"),
                        node(&race["second"]).unwrap_or("?"),
                        SimReport::describe_race_in(&race, model)
                    );
                }
            } else {
                compiler = true;
                if self.compiler.insert(key) {
                    println!("{at}: race: {}", SimReport::describe_race_in(&race, model));
                }
            }
        }
        (compiler, graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lint_messages_give_their_node_pair() {
        assert_eq!(
            lint_pair("W18888: There is no control relation between write node %a and read node %r (both use %v:0); the result depends on execution order"),
            Some(("a".to_owned(), "r".to_owned()))
        );
        assert_eq!(
            lint_pair("W18888: There is no control relation between write node %cf/a and other write node %cf/a2 (both use %v:0)"),
            Some(("cf/a".to_owned(), "cf/a2".to_owned()))
        );
        assert_eq!(lint_pair("W12345: something else"), None);
    }

    #[test]
    fn only_races_between_a_lint_pair_are_graph_races() {
        let log = RaceLog::new(&[("a".to_owned(), "r".to_owned())]);
        let race = |x: &str, y: &str| serde_json::json!({"kind": "write-after-read", "first": {"node": x}, "second": {"node": y}});
        assert!(log.is_graph_race(&race("r", "a")));
        assert!(log.is_graph_race(&race("a", "r")));
        assert!(!log.is_graph_race(&race("a", "b")));
        assert!(!log.is_graph_race(
            &serde_json::json!({"kind": "uninitialised-read", "first": null, "second": {"node": "r"}})
        ));
    }
}
