//! Property tests of the physical split (proptest) over random graphs with multi-batch
//! `Case` nodes and partitioned calls, random task counts and random task limits:
//! * no physical stream holds more than the usable limit (the limit less GE's 27 reserved
//!   tasks) unless it holds one split point, counted independently here from what the allocation plans: each node's tasks
//!   on its physical stream, one task per planned Send, two per Recv (wait and reset), one
//!   per stream a StreamActive activates, and per subgraph and stream it uses other than
//!   its parent's an activation and a join on the parent's stream and a record on that one;
//! * no live event joins two subgraphs of one control-flow node (branches that never run
//!   together);
//! * the allocation stays sound: every dependency is covered on the physical streams
//!   (checked on graphs without subgraphs, whose activations the event clocks do not
//!   model).
//!
//! Limits run from 1 (under GE's 27 reserved tasks: one node per stream) to 69. A stream
//! may pass its limit only as GE's rule lets it: holding a single split point (a node
//! larger than a stream; every node under a tiny limit). No case fails with a split error.

use super::util::*;
use crate::analysis::stream::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The shape of one random graph.
#[derive(Clone, Debug)]
struct Shape {
    /// Per root node: engine index, task count, producer offsets (1-based, back from it).
    root: Vec<(usize, i64, Vec<usize>)>,
    /// Per Case: the branches, each a list of (engine index, task count) in a chain.
    cases: Vec<Vec<Vec<(usize, i64)>>>,
    /// A partitioned call with a chain of (engine index, task count).
    call: Vec<(usize, i64)>,
    max_task: i64,
}

const ENGINES: &[&str] = &[AIC, AIC, AIC, VEC, CPU];

fn shape() -> impl Strategy<Value = Shape> {
    let node = (
        0..ENGINES.len(),
        1i64..4,
        prop::collection::vec(1usize..4, 1..3),
    );
    let sub_node = (0..ENGINES.len(), 1i64..4);
    (
        prop::collection::vec(node, 2..30),
        prop::collection::vec(
            prop::collection::vec(prop::collection::vec(sub_node.clone(), 1..14), 2..4),
            0..3,
        ),
        prop::collection::vec(sub_node, 0..8),
        1i64..70,
    )
        .prop_map(|(root, cases, call, max_task)| Shape {
            root,
            cases,
            call,
            max_task,
        })
}

/// Builds the graph: Data, the random root nodes, then each Case (fed by the last root
/// node, its branches chains on the Case's inputs), the call, and a consumer of each.
fn build(s: &Shape) -> StreamGraph {
    let mut sg = StreamGraph::new("g");
    let x = add(&mut sg, 0, "x", "Data", LOCAL);
    let idx = add(&mut sg, 0, "idx", "Data", LOCAL);
    let mut nodes = vec![x];
    for (i, (e, t, ins)) in s.root.iter().enumerate() {
        let n = add(&mut sg, 0, &format!("n{i}"), "Op", ENGINES[*e]);
        sg.attrs_mut(n).task_count = Some(*t);
        for &back in ins {
            let p = nodes[nodes.len().saturating_sub(back)];
            sg.add_data_edge(p, n);
        }
        nodes.push(n);
    }
    let subgraph = |sg: &mut StreamGraph, parent: NodeId, name: &str, chain: &[(usize, i64)]| {
        let g = sg.add_subgraph(name, parent);
        let d = add(sg, g, &format!("{name}_d"), "Data", LOCAL);
        let mut prev = d;
        for (j, (e, t)) in chain.iter().enumerate() {
            let m = add(sg, g, &format!("{name}_{j}"), "Op", ENGINES[*e]);
            sg.attrs_mut(m).task_count = Some(*t);
            sg.add_data_edge(prev, m);
            prev = m;
        }
        sg.attrs_mut(prev).subgraph_end_node = true;
    };
    let mut last = *nodes.last().unwrap_or(&x);
    for (c, branches) in s.cases.iter().enumerate() {
        let case = add(&mut sg, 0, &format!("case{c}"), "Case", LOCAL);
        sg.attrs_mut(case).batch_num = Some(branches.len() as i64);
        sg.add_data_edge(idx, case);
        sg.add_data_edge(last, case);
        for (b, chain) in branches.iter().enumerate() {
            subgraph(&mut sg, case, &format!("case{c}_b{b}"), chain);
        }
        let after = add(&mut sg, 0, &format!("after{c}"), "Op", AIC);
        sg.add_data_edge(case, after);
        last = after;
    }
    if !s.call.is_empty() {
        let call = add(&mut sg, 0, "call", "PartitionedCall", LOCAL);
        sg.add_data_edge(last, call);
        subgraph(&mut sg, call, "callee", &s.call);
        let after = add(&mut sg, 0, "after_call", "Op", AIC);
        sg.add_data_edge(call, after);
        last = after;
    }
    let out = add(&mut sg, 0, "out", "NetOutput", LOCAL);
    sg.add_data_edge(last, out);
    sg
}

/// Tasks per physical stream, recounted from the allocation's results (not from the
/// split's own counters).
fn recount(sg: &StreamGraph, r: &Allocation) -> BTreeMap<StreamId, i64> {
    let mut out: BTreeMap<StreamId, i64> = BTreeMap::new();
    let on = |n: NodeId| r.logical.stream[n] != INVALID_STREAM;
    for (n, node) in sg.nodes().iter().enumerate() {
        if !on(n) {
            continue;
        }
        let t = if node.is(NodeKind::STREAM_ACTIVE) {
            r.activation
                .active_streams
                .get(&n)
                .map_or(0, |l| l.len() as i64)
        } else {
            node.attrs().task_count.unwrap_or(1)
        };
        *out.entry(r.stream[n]).or_insert(0) += t;
        for &g in node.subgraphs() {
            let others: BTreeSet<StreamId> = sg
                .graph(g)
                .nodes
                .iter()
                .filter(|&&m| on(m))
                .map(|&m| r.stream[m])
                .chain(r.planned.iter().filter(|p| p.graph == g).map(|p| p.stream))
                .filter(|&s| s != r.stream[n])
                .collect();
            for s in others {
                *out.entry(r.stream[n]).or_insert(0) += 3;
                *out.entry(s).or_insert(0) += 1;
            }
        }
    }
    for p in &r.planned {
        let t = match p.ty {
            "Recv" => 2,
            _ => 1,
        };
        *out.entry(p.stream).or_insert(0) += t;
    }
    out
}

/// The subgraph of `ancestor` that holds `n`, if `n` is inside one.
fn branch_of(sg: &StreamGraph, ancestor: NodeId, mut n: NodeId) -> Option<GraphId> {
    loop {
        let g = sg.node(n).graph;
        let p = sg.graph(g).parent?;
        if p == ancestor {
            return Some(g);
        }
        n = p;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261202),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_physical_stream_over_its_limit(s in shape()) {
        let sg = build(&s);
        let mut o = StreamOptions::default();
        o.set("max-task-normal", &s.max_task.to_string()).unwrap();
        let r = match allocate(&sg, &EngineTable::ge_default(), &o) {
            Ok(r) => r,
            Err(e) => {
                // Never a split error: under any limit GE's rule has an answer.
                prop_assert!(matches!(e.kind, ErrorKind::TooManyStreams), "unexpected error {e:?}");
                return Ok(());
            }
        };
        let usable = s.max_task - RESERVED_TASK_NUM;
        for (stream, tasks) in recount(&sg, &r) {
            if tasks <= usable {
                continue;
            }
            // Over the limit only as GE is: a stream with one split point (a node with
            // tasks of its own or syncs there), which no split can make smaller.
            let points: Vec<&str> = sg
                .nodes()
                .iter()
                .enumerate()
                .filter(|&(n, node)| {
                    r.logical.stream[n] != INVALID_STREAM
                        && r.stream[n] == stream
                        && (node.attrs().task_count.unwrap_or(1) > 0
                            || !r.syncs.sends(n).is_empty()
                            || !r.syncs.recvs(n).is_empty())
                })
                .map(|(_, node)| &node.name[..])
                .collect();
            prop_assert!(
                points.len() == 1,
                "stream {stream} holds {tasks} > {usable} tasks: {points:?}"
            );
        }
        // No event between two subgraphs of one node.
        for (_, e) in r.syncs.alive() {
            for (p, node) in sg.nodes().iter().enumerate() {
                if node.subgraphs().len() < 2 {
                    continue;
                }
                if let (Some(a), Some(b)) = (branch_of(&sg, p, e.send), branch_of(&sg, p, e.recv)) {
                    prop_assert!(
                        a == b,
                        "event {} joins {} and {}, in two branches of {}",
                        e.id,
                        sg.node(e.send).name,
                        sg.node(e.recv).name,
                        node.name
                    );
                }
            }
        }
        // Coverage is asserted on graphs without subgraphs: with them the root's order can
        // run through a control-flow node's activation of its subgraph streams, which the
        // event clocks of `check` do not model (a known gap of the check).
        if s.cases.is_empty() && s.call.is_empty() {
            let problems: Vec<String> = check(&sg, &r, &dependencies(&sg))
                .into_iter()
                .filter(|p| p.contains("not covered"))
                .collect();
            prop_assert!(problems.is_empty(), "{problems:?}");
        }
    }
}

/// The case of the report: a multi-batch Case under a small limit. Every physical stream
/// stays within the limit, the branches get streams of their own, and no event joins two
/// branches.
#[test]
fn multi_batch_case_under_a_small_limit() {
    let s = Shape {
        root: (0..6).map(|_| (0, 1, vec![1])).collect(),
        cases: vec![(0..3).map(|_| vec![(0, 1); 12]).collect()],
        call: Vec::new(),
        max_task: 42,
    };
    let sg = build(&s);
    let mut o = StreamOptions::default();
    o.set("max-task-normal", "42").unwrap();
    let r = allocate(&sg, &EngineTable::ge_default(), &o).unwrap();
    let counts = recount(&sg, &r);
    assert!(counts.values().all(|&t| t <= 15), "{counts:?}");
    assert_eq!(counts, r.split.stream_tasks);
    let case = sg.find("case0").unwrap();
    for (_, e) in r.syncs.alive() {
        let (a, b) = (branch_of(&sg, case, e.send), branch_of(&sg, case, e.recv));
        assert!(
            a.is_none() || b.is_none() || a == b,
            "{} -> {}",
            sg.node(e.send).name,
            sg.node(e.recv).name
        );
    }
    // Each branch's streams other than the Case's are its own.
    let mut owner: BTreeMap<StreamId, GraphId> = BTreeMap::new();
    for &g in sg.node(case).subgraphs() {
        for &m in &sg.graph(g).nodes {
            let st = r.stream[m];
            if r.logical.stream[m] == INVALID_STREAM || st == r.stream[case] {
                continue;
            }
            assert_eq!(*owner.entry(st).or_insert(g), g, "stream {st}");
        }
    }
    assert!(!owner.is_empty(), "the branches were split");
}
