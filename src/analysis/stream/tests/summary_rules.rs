//! The summary (GetStreamAllocationSummary-like JSON), the table and Graphviz text.

use super::util::*;
use crate::analysis::stream::*;

fn sample() -> (B, Allocation) {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let h = b.n("h", "HcomAllReduce", HCCL);
    let m = b.op("m", AIC);
    let c = b.op("c", AIC);
    b.label(a, "A");
    b.chain(&[x, a, h, c]);
    b.d(a, m);
    b.d(m, c);
    let r = b.run();
    (b, r)
}

#[test]
fn summary_json_shape() {
    let (b, r) = sample();
    let j = r.summary_json(&b.sg);
    assert_eq!(j["graph"], "g");
    assert_eq!(j["main_stream_num"], r.logical.main_stream_num);
    let streams = j["logical_streams"]["g"].as_array().unwrap();
    assert_eq!(streams.len() as i64, r.logical.main_stream_num);
    let first = &streams[0];
    for key in [
        "logical_stream_id",
        "engines",
        "node_count",
        "user_stream_label",
        "is_assigned_by_user_stream_pass",
        "attached_stream_ids",
        "physical_stream_num",
        "hccl_followed_stream_num",
        "rules",
    ] {
        assert!(first.get(key).is_some(), "missing {key} in {first}");
    }
    let events = j["events"].as_array().unwrap();
    assert_eq!(events.len() as u32, r.event_num);
    let ids: Vec<u64> = events.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(j["event_stats"]["inserted"], r.stats.inserted);
    assert_eq!(
        j["planned_sync_nodes"].as_array().unwrap().len(),
        r.planned.len()
    );
    // Round trip through text.
    let text = serde_json::to_string_pretty(&j).unwrap();
    let back: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back, j);
}

#[test]
fn summary_table_lists_streams_and_counts() {
    let (b, r) = sample();
    let t = r.summary_table(&b.sg);
    assert!(t.starts_with("stream"), "{t}");
    assert_eq!(
        t.lines().count() as i64,
        1 + r.logical.main_stream_num + 1,
        "{t}"
    );
    assert!(t.contains("events: "), "{t}");
    assert!(t.contains("independent-engine:1"), "{t}");
}

#[test]
fn graphviz_has_streams_events_and_activation() {
    let mut b = B::new();
    let act = b.n("act", "StreamActive", RTS);
    let l = b.op("l\"q", AIC);
    b.label(l, "L");
    b.a(act).active_label_list = vec!["L".into()];
    b.c(act, l);
    let (b2, r2) = sample();
    let d = r2.to_dot(&b2.sg);
    assert!(d.starts_with("digraph \"g\" {"), "{d}");
    assert!(d.contains("subgraph cluster_s0"));
    assert!(d.contains("style=dashed"));
    let r = b.run();
    let d = r.to_dot(&b.sg);
    assert!(d.contains("label=\"active\""), "{d}");
    assert!(d.contains("l\\\"q"), "quotes are escaped: {d}");
    assert!(d.trim_end().ends_with('}'));
}

/// Rule names used in attributes match the JSON (serde) names.
#[test]
fn rule_names_match_serde_names() {
    for r in [
        StreamRule::DependencyReuse,
        StreamRule::IneffectiveMultiStream,
        StreamRule::InputPartition,
    ] {
        assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
    }
    for o in [
        EventOrigin::SubgraphEntry,
        EventOrigin::AttachedToNetOutput,
        EventOrigin::LoopBack,
    ] {
        assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
    }
    for m in [
        Removal::BySendEvents,
        Removal::ByStreamActivate,
        Removal::Transitive,
    ] {
        assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
    }
}
