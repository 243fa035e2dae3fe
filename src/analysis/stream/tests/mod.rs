//! Unit tests, one per rule, named after the rule and citing the section of
//! `ge-behaviour-notes.md` they check; property tests over random DAGs; a scaling check.

mod activation_rules;
mod event_rules;
mod logical_rules;
mod partition_rules;
mod props;
mod split_props;
mod split_rules;
mod subgraph_entry_rules;
mod summary_rules;
mod util;
