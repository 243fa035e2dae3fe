//! Physical split rules (notes C.8).

use super::util::*;
use crate::analysis::stream::*;
use std::collections::BTreeSet;

/// A Data followed by an aicore chain `n1..=nk`, one task each.
fn chain(k: usize) -> (B, Vec<NodeId>) {
    let mut b = B::new();
    let x = b.data("x");
    let mut v = vec![x];
    for i in 1..=k {
        v.push(b.op(&format!("n{i}"), AIC));
    }
    b.chain(&v);
    (b, v)
}

fn phys(r: &Allocation, v: &[NodeId]) -> Vec<StreamId> {
    v.iter().map(|&n| r.stream[n]).collect()
}

fn split_pairs(r: &Allocation) -> Vec<(NodeId, NodeId)> {
    r.syncs
        .alive()
        .filter(|(_, e)| e.origin == EventOrigin::StreamSplit)
        .map(|(_, e)| (e.send, e.recv))
        .collect()
}

/// C.8 NeedSpiltNewStream: split when the stream would pass its usable limit (max less 27),
/// never at a stream's first node; the previous node signals the first node of the new
/// stream; split ids map to the logical one. Counted as the lowering emits: one slot stays
/// free for the split's Send, and the new stream starts with its Recv (wait and reset).
#[test]
fn split_at_task_limit_c8() {
    let (b, v) = chain(10);
    let r = b.run_with(&opts("max-task-normal", "35"));
    assert_eq!(phys(&r, &v[1..]), vec![0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    assert_eq!(split_pairs(&r), vec![(v[7], v[8])]);
    assert_eq!(r.stats.split_events, 1);
    assert_eq!(r.stream_num, 2);
    assert_eq!(
        r.split.split_streams[0].iter().copied().collect::<Vec<_>>(),
        vec![1]
    );
    assert!(r.split.physical_to_logical.values().all(|&l| l == 0));
    // 7 nodes and the Send: the usable 8; then the Recv's 2 tasks and 3 nodes.
    assert_eq!(r.split.stream_tasks.get(&0), Some(&8));
    assert_eq!(r.split.stream_tasks.get(&1), Some(&5));
    let ids: Vec<u32> = r.syncs.alive().map(|(_, e)| e.id).collect();
    assert_eq!(ids, vec![0]);
    assert_eq!(r.planned.iter().filter(|p| p.ty == "Send").count(), 1);
    assert!(check(&b.sg, &r, &dependencies(&b.sg)).is_empty());
}

/// GE's rule under a limit too small for a node (`NeedSpiltNewStream` holds for every node
/// but the first of a stream): one node per stream, not an error; the allocation stays
/// sound. A node larger than the usable limit gets a stream of its own, over the limit,
/// and the nodes around it stay within it.
#[test]
fn a_limit_too_small_for_a_node_gives_one_node_per_stream() {
    let (b, v) = chain(10);
    for limit in ["6", "27", "30"] {
        let r = b.run_with(&opts("max-task-normal", limit));
        let p = phys(&r, &v[1..]);
        // At 30 (3 usable) the first stream holds n1, n2 and the Send.
        let skip = usize::from(limit == "30");
        assert!(
            p.windows(2).skip(skip).all(|w| w[0] < w[1]),
            "{limit}: {p:?}"
        );
        assert_eq!(r.stream_num, 10 - skip as i64, "{limit}");
        assert!(check(&b.sg, &r, &dependencies(&b.sg)).is_empty(), "{limit}");
    }
    let (mut b, v) = chain(5);
    b.a(v[3]).task_count = Some(9);
    let r = b.run_with(&opts("max-task-normal", "35"));
    let big = r.stream[v[3]];
    assert!(phys(&r, &v[1..]).iter().filter(|&&s| s == big).count() == 1);
    for (&s, &t) in &r.split.stream_tasks {
        assert!(s == big || t <= 8, "stream {s}: {t} tasks");
    }
    assert!(r.split.stream_tasks[&big] > 8);
}

/// Negative: a stream over its usable limit with two split points is what a split could
/// have made smaller, which the final recount reports (the allocation's error); one split
/// point over the limit is GE's own result.
#[test]
fn overfull_streams_are_those_a_split_could_shrink() {
    let (b, v) = chain(4);
    let r = b.run_with(&opts("max-task-normal", "35"));
    let mut counts = std::collections::BTreeMap::new();
    counts.insert(0, 12);
    let one_stream = vec![0; r.stream.len()];
    let over = split::overfull_streams(&b.sg, &one_stream, &r.attached, &r.syncs, &counts, 8);
    assert_eq!(over, vec![(0, 12)]);
    // The same count on a stream holding one node is accepted.
    let mut alone = vec![1; r.stream.len()];
    alone[v[2]] = 0;
    let over = split::overfull_streams(&b.sg, &alone, &r.attached, &r.syncs, &counts, 8);
    assert!(over.is_empty(), "{over:?}");
}

/// C.8 negative: under the limit nothing splits; the default limit is GE's stub 1024.
#[test]
fn no_split_under_limit_c8() {
    let (b, v) = chain(10);
    let r = b.run();
    assert!(phys(&r, &v[1..]).iter().all(|&s| s == 0));
    assert_eq!((r.stream_num, r.split.max_task), (1, 1024));
    assert!(split_pairs(&r).is_empty());
}

/// C.8: task counts come from `_node_sqe_num`, then `_hccl_task_num`, then the generated
/// tasks; a Recv costs 2 tasks and a Send 1 on its stream.
#[test]
fn task_counting_c8() {
    let (mut b, v) = chain(3);
    b.a(v[1]).node_sqe_num = Some(2);
    b.a(v[2]).task_count = Some(5);
    let h = b.n("h", "HcomAllReduce", HCCL);
    b.a(h).hccl_task_num = Some(7);
    b.d(v[3], h);
    let r = b.run();
    let main = ls(&r, v[1]);
    // n1 2 + n2 5 + n3 1 + the Send of n3→h 1; h: 7 + its Recv 2.
    assert_eq!(r.split.stream_tasks.get(&main), Some(&9));
    assert_eq!(r.split.stream_tasks.get(&ls(&r, h)), Some(&9));
}

/// C.8: label nodes are never split points: the split happens before a run of them that
/// would not fit (keeping the Send's slot).
#[test]
fn split_exempt_node_kinds_c8() {
    for ty in ["LabelSet", "LabelGotoEx"] {
        let mut b = B::new();
        let x = b.data("x");
        let mut v = vec![x];
        for i in 1..=9 {
            let n = b.n(
                &format!("n{i}"),
                if (6..=8).contains(&i) { ty } else { "Op" },
                AIC,
            );
            b.d(v[i - 1], n);
            v.push(n);
        }
        let r = b.run_with(&opts("max-task-normal", "35"));
        let p = phys(&r, &v[1..=9]);
        // n5 would leave the three label nodes no room beside the Send's slot: the split
        // comes at n5, and the run stays together.
        assert_eq!(&p[..4], &[0, 0, 0, 0], "{ty}");
        assert!(
            p[4..].iter().all(|&s| s == p[4]) && p[4] != 0,
            "{ty}: {p:?}"
        );
        assert!(
            r.split.stream_tasks.values().all(|&t| t <= 8),
            "{ty}: {:?}",
            r.split.stream_tasks
        );
    }
}

/// A call with a chain of `len` ops in its body between `n1` and `after`: (builder, call,
/// body graph, body ops, after).
fn call_with_body(len: usize) -> (B, NodeId, GraphId, Vec<NodeId>, NodeId) {
    let mut b = B::new();
    let x = b.data("x");
    let n1 = b.op("n1", AIC);
    b.d(x, n1);
    let call = b.n("call", "PartitionedCall", AIC);
    b.d(n1, call);
    let g = b.sg.add_subgraph("sub", call);
    let d = b.ng(g, "arg", "Data", LOCAL);
    let mut prev = d;
    let mut inner = Vec::new();
    for i in 0..len {
        let m = b.ng(g, &format!("s{i}"), "Op", AIC);
        b.d(prev, m);
        prev = m;
        inner.push(m);
    }
    b.a(prev).subgraph_end_node = true;
    let after = b.op("after", AIC);
    b.d(call, after);
    (b, call, g, inner, after)
}

/// Beyond GE: a node with subgraphs may be a split point (its labels go with it), and a
/// stream opened inside a subgraph belongs to it: after the subgraph, the logical stream
/// continues on the stream it had before, and the split event comes from a node of the
/// subgraph itself. A body that fits a stream of its own but not beside its caller gets one.
#[test]
fn a_split_inside_a_subgraph_stays_in_the_subgraph() {
    let (b, call, g, inner, after) = call_with_body(9);
    // 38 tasks: 11 usable.
    let r = b.run_with(&opts("max-task-normal", "38"));
    let s_call = r.stream[call];
    let opened: Vec<StreamId> = inner
        .iter()
        .map(|&m| r.stream[m])
        .filter(|&s| s != s_call)
        .collect();
    assert_eq!(
        opened.len(),
        inner.len(),
        "the body has a stream of its own"
    );
    assert!(opened
        .iter()
        .all(|s| r.split.split_owner.get(s) == Some(&g)));
    assert_eq!(
        r.stream[after], s_call,
        "the parent graph continues on its stream"
    );
    for (a, e) in split_pairs(&r) {
        assert_eq!(
            b.sg.node(a).graph,
            g,
            "{} -> {}",
            b.sg.node(a).name,
            b.sg.node(e).name
        );
    }
    assert!(
        r.split.stream_tasks.values().all(|&t| t <= 11),
        "{:?}",
        r.split.stream_tasks
    );
}

/// A call whose body does not fit a stream of its own continues on its caller's stream and
/// splits where that fills up (moving the body would gain nothing); the streams it opens
/// still belong to the body, and none passes the limit.
#[test]
fn a_call_body_larger_than_a_stream_continues_on_the_callers_stream() {
    let (b, call, g, inner, _) = call_with_body(250);
    // 127 tasks: 100 usable.
    let r = b.run_with(&opts("max-task-normal", "127"));
    let s_call = r.stream[call];
    assert_eq!(
        r.stream[inner[0]], s_call,
        "the body starts on the call's stream"
    );
    let opened: BTreeSet<StreamId> = inner
        .iter()
        .map(|&m| r.stream[m])
        .filter(|&s| s != s_call)
        .collect();
    assert!(opened.len() >= 2, "{opened:?}");
    assert!(opened
        .iter()
        .all(|s| r.split.split_owner.get(s) == Some(&g)));
    assert!(
        r.split.stream_tasks.values().all(|&t| t <= 100),
        "{:?}",
        r.split.stream_tasks
    );
}

/// A chain of nested calls (`../shared/repro/robustness` F2b) needs about as many streams
/// as its tasks fill, not one per nesting level once the first stream is full (the rule
/// that gives a body a fresh stream would open one for each nested call).
#[test]
fn nested_calls_fill_streams_instead_of_opening_one_per_level() {
    let depth = 400;
    let mut b = B::new();
    let x = b.data("x");
    let first = b.op("first", AIC);
    b.d(x, first);
    let mut graph = 0;
    let mut input = first;
    for level in 0..depth {
        let call = b.ng(graph, &format!("call{level}"), "PartitionedCall", AIC);
        b.d(input, call);
        graph = b.sg.add_subgraph(&format!("g{level}"), call);
        input = b.ng(graph, &format!("arg{level}"), "Data", LOCAL);
    }
    let last = b.ng(graph, "last", "Op", AIC);
    b.d(input, last);
    // 91 tasks: 64 usable.
    let r = b.run_with(&opts("max-task-normal", "91"));
    let tasks: i64 = r.split.stream_tasks.values().sum();
    let streams = r.split.stream_tasks.len() as i64;
    assert!(
        r.split.stream_tasks.values().all(|&t| t <= 64),
        "{:?}",
        r.split.stream_tasks
    );
    assert!(
        streams <= 2 * (tasks / 64 + 1),
        "{streams} streams for {tasks} tasks at 64 per stream"
    );
}

/// C.8 AssignSingleStream: in single-stream mode above the normal limit a huge stream is
/// used if supported, else the stream is split.
#[test]
fn huge_stream_in_single_stream_mode_c8() {
    let (b, v) = chain(40);
    let mut o = opts("ge.enableSingleStream", "true");
    o.set("max-task-normal", "35").unwrap();
    o.set("max-task-huge", "100").unwrap();
    let r = b.run_with(&o);
    assert!(r.split.huge_stream);
    assert_eq!((r.stream_num, r.split.max_task), (1, 100));
    assert!(phys(&r, &v[1..]).iter().all(|&s| s == 0));
    o.set("huge-stream", "false").unwrap();
    let r = b.run_with(&o);
    assert!(!r.split.huge_stream);
    assert!(r.stream_num > 1);
}

/// C.8: with the runtime's unlimited stream depth GE does not split.
#[test]
fn unlimited_depth_does_not_split_c8() {
    let (b, _) = chain(10);
    let mut o = opts("max-task-normal", "35");
    o.set("unlimited-stream-depth", "true").unwrap();
    let r = b.run_with(&o);
    assert_eq!(r.stream_num, 1);
    assert!(!r.split.applied);
}

/// C.8 limits: more streams than the runtime allows is a clear error.
#[test]
fn too_many_streams_after_split_c8() {
    let (b, _) = chain(20);
    let mut o = opts("max-task-normal", "35");
    o.set("max-stream-normal", "2").unwrap();
    let e = b.err_with(&o);
    assert_eq!(e.kind, ErrorKind::TooManyStreams);
    assert!(e.message.contains("limit is 2"), "{e}");
}

/// C.8 UpdateActiveStreams: an activator of a stream that splits also activates the new
/// physical streams (same graph). StreamActive reserves a task per physical stream each
/// activated stream becomes (estimated on the usable limit; GE's estimate ignores the
/// 27-task reserve) and is counted with one task per stream it finally activates.
#[test]
fn activation_updated_after_split_c8() {
    let mut b = B::new();
    let act = b.n("act", "StreamActive", RTS);
    b.a(act).active_label_list = vec!["L".into()];
    let mut prev = None;
    let mut body = Vec::new();
    for i in 0..9 {
        let n = b.op(&format!("l{i}"), AIC);
        b.label(n, "L");
        if let Some(p) = prev {
            b.d(p, n);
        } else {
            b.c(act, n);
        }
        prev = Some(n);
        body.push(n);
    }
    let r = b.run_with(&opts("max-task-normal", "35"));
    let logical = ls(&r, body[0]);
    let new: Vec<StreamId> = r.split.split_streams[logical as usize]
        .iter()
        .copied()
        .collect();
    assert_eq!(new.len(), 1);
    let mut expect = vec![logical];
    expect.extend(&new);
    assert_eq!(r.activation.active_streams[&act], expect);
    // One StreamActive task per stream it activates, as the lowering emits them.
    assert_eq!(r.split.stream_tasks.get(&r.stream[act]), Some(&2));
}

/// An aicore chain `n1..=nk` where every link also runs through an HCCL node on its own
/// stream: `n_i → h_i → n_{i+1}`, so the events already order each link.
fn chain_with_detours(k: usize) -> (B, Vec<NodeId>) {
    let mut b = B::new();
    let mut v = vec![b.data("x")];
    let mut detour: Option<NodeId> = None;
    for i in 1..=k {
        let n = b.op(&format!("n{i}"), AIC);
        b.d(v[i - 1], n);
        if let Some(h) = detour {
            b.d(h, n);
        }
        v.push(n);
        detour = (i < k).then(|| {
            // A labelled stream: GE's OptimizeIneffectiveMultiStream would otherwise move
            // each h_i onto the aicore stream, between its neighbours.
            let h = b.n(&format!("h{i}"), "HcomAllReduce", HCCL);
            b.label(h, "comm");
            b.d(n, h);
            h
        });
    }
    (b, v)
}

/// Beyond GE, minimal events on the physical streams: a cut that other events already
/// order needs no split event. Here every link of the split stream is ordered through the
/// HCCL stream, so the split adds no event and the final count is the minimum both on the
/// logical and on the physical streams.
#[test]
fn split_event_implied_by_other_events_is_dropped() {
    let (b, v) = chain_with_detours(10);
    let o = opts("max-task-normal", "45");
    let r = b.run_with(&o);
    let streams: std::collections::BTreeSet<StreamId> =
        v[1..].iter().map(|&n| r.stream[n]).collect();
    assert!(streams.len() > 1, "the aicore stream is split: {streams:?}");
    assert!(split_pairs(&r).is_empty(), "{:?}", split_pairs(&r));
    assert_eq!(r.stats.split_events, 0);
    // Both the aicore and the HCCL stream are split; every cut is ordered by the other.
    let cuts: usize = r.split.split_streams.iter().map(|s| s.len()).sum();
    assert!(cuts > streams.len() - 1);
    assert_eq!(r.stats.split_events_implied, cuts);
    assert_eq!(r.stats.minimal_physical, r.stats.minimal);
    assert_eq!(r.event_num as usize, r.stats.minimal_physical);
    assert!(check(&b.sg, &r, &dependencies(&b.sg)).is_empty());
    // Event ids stay continuous after the drop.
    let mut ids: Vec<u32> = r.syncs.alive().map(|(_, e)| e.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..r.event_num).collect::<Vec<_>>());
    // GE keeps the split events; the minimum does not count them.
    let mut ge = o.clone();
    ge.minimize_events = false;
    let g = b.run_with(&ge);
    assert_eq!(split_pairs(&g).len(), g.stats.split_events_implied);
    assert!(g.stats.split_events_implied > 0);
    assert!(g.event_num as usize > g.stats.minimal_physical);
}

/// The negative case: with nothing else ordering the cuts, each one needs its event, and
/// the physical minimum counts them.
#[test]
fn necessary_split_events_are_kept_and_counted() {
    let (b, _) = chain(20);
    let r = b.run_with(&opts("max-task-normal", "35"));
    assert_eq!(r.stats.split_events, 3);
    assert_eq!(r.stats.split_events_implied, 0);
    assert_eq!(r.stats.minimal, 0);
    assert_eq!(r.stats.minimal_physical, 3);
    assert_eq!(r.event_num, 3);
}
