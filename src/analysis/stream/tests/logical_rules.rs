//! Logical stream rules (notes C.1–C.4, C.12).

use super::util::*;
use crate::analysis::stream::*;

/// C.1/C.3 NodeStreamUpdate: data-like sources form GE's input partition and get no
/// stream; an attach engine (GE_LOCAL NetOutput) reuses its producer's stream.
#[test]
fn input_partition_data_has_no_stream_c1() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let o = b.n("out", "NetOutput", LOCAL);
    b.chain(&[x, a, o]);
    let r = b.run();
    assert_eq!(ls(&r, x), -1);
    assert_eq!(rule(&r, x), StreamRule::InputPartition);
    assert_eq!((ls(&r, a), ls(&r, o)), (0, 0));
    assert_eq!(rule(&r, a), StreamRule::DependencyNew);
    assert_eq!(rule(&r, o), StreamRule::DependencyReuse);
    assert_eq!(r.logical.main_stream_num, 1);
    assert!(live(&r).is_empty(), "one stream needs no event");
    // PostProcessOfSplitStreams puts stream-less nodes on stream 0.
    assert_eq!(r.stream[x], 0);
}

/// C.4 CouldReuse rules 5 and 6: aicore → aicpu (attach) → aicore stays on one stream; the
/// stream must be reused, so no event is inserted.
#[test]
fn dependency_reuse_through_attach_engine_c4() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let c = b.op("c", CPU);
    let d = b.op("d", AIC);
    b.chain(&[x, a, c, d]);
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, c), ls(&r, d)], [0, 0, 0]);
    assert_eq!(rule(&r, c), StreamRule::DependencyReuse);
    assert_eq!(rule(&r, d), StreamRule::DependencyReuse);
    assert!(
        r.logical.decision(d).detail.contains("`c`"),
        "{:?}",
        r.logical.decision(d)
    );
    assert!(live(&r).is_empty());
}

/// C.4 CouldReuse rule 4 (engine conflict): a producer with another aicore consumer
/// subgraph keeps its stream for that one; the aicpu consumer opens its own stream. (`m`
/// keeps the topology pass from moving `c` back between `a` and `d`.)
fn conflict_graph() -> (B, [NodeId; 3]) {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let m = b.op("m", AIC);
    let c = b.op("c", CPU);
    let d = b.op("d", AIC);
    b.d(x, a);
    b.d(a, m);
    b.d(a, c);
    b.d(c, d);
    b.d(a, d);
    (b, [a, c, d])
}

#[test]
fn dependency_engine_conflict_opens_new_stream_c4() {
    let (b, [a, c, d]) = conflict_graph();
    let r = b.run();
    // Engine blocks in byte order: AIcoreEngine (0) before DNN_VM_AICPU (1).
    assert_eq!([ls(&r, a), ls(&r, c), ls(&r, d)], [0, 1, 0]);
    assert_eq!(rule(&r, c), StreamRule::DependencyNew);
    assert_eq!(rule(&r, d), StreamRule::DependencyReuse);
    assert_eq!(live(&r), vec![(a, c), (c, d)]);
}

/// C.4 rule 4 counts End→PlaceHolder pairs, not subgraphs: `d` reads `a` twice, so `a`'s
/// consumer list is [c, d, d]. Both `d` entries are `d` itself, so `d` still reuses `a`'s
/// stream, and `c` (aicpu) still conflicts with the aicore consumer `d`.
#[test]
fn dependency_conflict_ignores_repeated_pairs_into_the_candidate_c4() {
    let (mut b, [a, c, d]) = conflict_graph();
    b.d(a, d);
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, c), ls(&r, d)], [0, 1, 0]);
    assert_eq!(rule(&r, c), StreamRule::DependencyNew);
    assert_eq!(rule(&r, d), StreamRule::DependencyReuse);
}

/// C.4 rule 4 with a hub: one aicore producer feeds many aicore consumer subgraphs (each
/// fenced off from it by an aicpu node, as in `conflict_graph`). None may reuse the hub's
/// stream: each has other aicore consumers of the hub beside it (GE checks all of them,
/// earlier ones included).
#[test]
fn dependency_conflict_with_a_wide_hub_c4() {
    let mut b = B::new();
    let x = b.data("x");
    let hub = b.op("hub", AIC);
    b.d(x, hub);
    let mut consumers = Vec::new();
    for i in 0..40 {
        let c = b.op(&format!("c{i}"), CPU);
        let d = b.op(&format!("d{i}"), AIC);
        b.d(hub, c);
        b.d(c, d);
        b.d(hub, d);
        consumers.push(d);
    }
    let r = b.run();
    for &d in &consumers {
        assert_eq!(
            rule(&r, d),
            StreamRule::DependencyNew,
            "{}",
            r.logical.decision(d).detail
        );
    }
}

/// C.4 rule 4 is skipped with `ge.exec.memoryOptimizationPolicy=MemoryPriority`.
#[test]
fn dependency_memory_priority_skips_conflict_c4() {
    let (b, [a, c, d]) = conflict_graph();
    let r = b.run_with(&opts("ge.exec.memoryOptimizationPolicy", "MemoryPriority"));
    assert_eq!([ls(&r, a), ls(&r, c), ls(&r, d)], [0, 0, 0]);
    assert!(live(&r).is_empty());
}

/// C.4 UpdateAssignedSubgraphs: engine blocks are numbered in byte order of the engine
/// name, so upper-case names come first whatever the topological order.
#[test]
fn dependency_engine_blocks_in_byte_order_c4() {
    let mut b = B::new();
    let x = b.data("x");
    let low = b.op("low", "aicore");
    let v = b.op("v", VEC);
    let a = b.op("a", AIC);
    for n in [low, v, a] {
        b.d(x, n);
    }
    let mut engines = EngineTable::ge_default();
    engines.insert(EngineConf {
        name: "aicore".into(),
        scheduler_id: "TS_1".into(),
        independent: false,
        attach: false,
        skip_assign_stream: false,
        compute_cost: 1,
    });
    let r = allocate(&b.sg, &engines, &StreamOptions::default()).unwrap();
    assert_eq!([ls(&r, a), ls(&r, v), ls(&r, low)], [0, 1, 2]);
}

/// C.4 AssignNewStream and F.2: `max_parallel_num` defaults to 1 (one dependency stream per
/// engine); `ge.streamMaxParallelNum` raises it and ids wrap around.
#[test]
fn dependency_max_parallel_num_c4() {
    let mut b = B::new();
    let x = b.data("x");
    let ns: Vec<NodeId> = (0..3).map(|i| b.op(&format!("a{i}"), AIC)).collect();
    for &n in &ns {
        b.d(x, n);
    }
    let r = b.run();
    assert_eq!(
        ns.iter().map(|&n| ls(&r, n)).collect::<Vec<_>>(),
        vec![0, 0, 0]
    );
    let r = b.run_with(&opts("ge.streamMaxParallelNum", "AIcoreEngine:2"));
    assert_eq!(
        ns.iter().map(|&n| ls(&r, n)).collect::<Vec<_>>(),
        vec![0, 1, 0]
    );
}

/// C.3 AssignByLabel: one stream per label; unlabelled neighbours do not reuse a labelled
/// stream (CouldReuse rule 2).
#[test]
fn assign_by_label_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let m = b.op("m", AIC);
    let c = b.op("c", AIC);
    b.label(a, "L");
    b.label(c, "L");
    b.chain(&[x, a, m, c]);
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, m), ls(&r, c)], [0, 1, 0]);
    assert_eq!(rule(&r, a), StreamRule::StreamLabel);
    assert_eq!(rule(&r, m), StreamRule::DependencyNew);
    assert_eq!(live(&r), vec![(a, m), (m, c)]);
}

/// C.3 IndependentStream and F.3: HCCL gets its own stream, overriding an inner label but
/// not a user label; ids are then made dense (RefreshContinuousStreams, C.2).
#[test]
fn independent_engine_overrides_label_not_user_label_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let h = b.n("h", "HcomAllReduce", HCCL);
    let h2 = b.n("h2", "HcomAllReduce", HCCL);
    let h3 = b.n("h3", "HcomAllReduce", HCCL);
    let a = b.op("a", AIC);
    b.label(h2, "L");
    b.a(h3).user_stream_label = Some("U".into());
    for n in [h, h2, h3] {
        b.d(x, n);
    }
    b.d(h, a);
    let r = b.run();
    // Label pass: L→0, U→1; independent: h→2, h2→3; AIC block → 4. Dense: 1,2,3,4 → 0..3.
    assert_eq!([ls(&r, h3), ls(&r, h), ls(&r, h2), ls(&r, a)], [0, 1, 2, 3]);
    assert_eq!(rule(&r, h), StreamRule::IndependentEngine);
    assert_eq!(rule(&r, h2), StreamRule::IndependentEngine);
    assert!(r.logical.decision(h2).detail.contains("label `L`"));
    assert_eq!(rule(&r, h3), StreamRule::StreamLabel);
    assert!(r.logical.decision(h3).detail.contains("_user_stream_label"));
    // An independent producer is never reused (C.4 rule 2).
    assert_eq!(rule(&r, a), StreamRule::DependencyNew);
    assert_eq!(r.logical.main_stream_num, 4);
}

/// C.1 TransUserStreamLabel with `_enable_inner_parallel`: the label becomes
/// `<user>_<inner>`.
#[test]
fn user_label_with_inner_parallel_c1() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let c = b.op("c", AIC);
    b.a(a).user_stream_label = Some("U".into());
    b.a(a).stream_label = Some("I".into());
    b.a(a).enable_inner_parallel = true;
    b.a(c).user_stream_label = Some("U".into());
    b.d(x, a);
    b.d(x, c);
    let r = b.run();
    assert_eq!(r.logical.labels[a].as_deref(), Some("U_I"));
    assert_ne!(ls(&r, a), ls(&r, c));
}

/// C.3 UpdateForMdeGroup (with our documented fix): a `NewStreamId` node keeps its own
/// stream, and the topology pass leaves it alone.
#[test]
fn mde_group_gets_own_stream_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let m = b.op("m", AIC);
    let c = b.op("c", AIC);
    b.a(m).new_stream_id = Some(1);
    b.chain(&[x, a, m, c]);
    let r = b.run();
    assert_eq!([ls(&r, m), ls(&r, a), ls(&r, c)], [0, 1, 1]);
    assert_eq!(rule(&r, m), StreamRule::MdeGroup);
    assert_eq!(live(&r).len(), 2);
}

/// C.2/C.4: in a subgraph the first engine stream is the parent's stream, and C.3
/// NodeStreamUpdate puts `_rts_label_node` nodes on the parent stream.
#[test]
fn subgraph_parent_stream_and_rts_label_node_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let p = b.n("p", "PartitionedCall", AIC);
    let o = b.n("out", "NetOutput", LOCAL);
    b.chain(&[x, a, p, o]);
    let g = b.sg.add_subgraph("sub", p);
    let l = b.ng(g, "label0", "LabelSet", RTS);
    let s1 = b.ng(g, "s1", "Op", AIC);
    b.a(l).rts_label_node = true;
    b.c(l, s1);
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, p), ls(&r, l), ls(&r, s1)], [0, 0, 0, 0]);
    assert_eq!(rule(&r, l), StreamRule::RtsLabelParent);
    assert_eq!(rule(&r, s1), StreamRule::ParentStream);
    assert_eq!(r.logical.main_stream_num, 1);
}

/// C.3 UpdateForParallelGroup: one new stream per group name; the HCOM "-1" group takes its
/// single input's stream, and with two inputs it is a normal group.
#[test]
fn parallel_group_and_hcom_minus_one_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    b.d(x, a);
    let mut hs = Vec::new();
    for (name, group) in [
        ("h1", "g1"),
        ("h2", "g1"),
        ("h3", "g2"),
        ("h4", "-1"),
        ("h5", "-1"),
    ] {
        let h = b.n(name, "HcomAllGather", HCCL);
        b.a(h).parallel_group = Some(group.into());
        b.d(a, h);
        hs.push(h);
    }
    b.d(x, hs[4]);
    let r = b.run();
    let s: Vec<StreamId> = hs.iter().map(|&h| ls(&r, h)).collect();
    assert_eq!(s[0], s[1]);
    assert_ne!(s[0], s[2]);
    assert_eq!(s[3], ls(&r, a), "group -1 with one input reuses it");
    assert_eq!(rule(&r, hs[3]), StreamRule::ParallelGroupInputReuse);
    assert_eq!(rule(&r, hs[0]), StreamRule::ParallelGroup);
    assert_eq!(rule(&r, hs[4]), StreamRule::ParallelGroup);
    assert!(![s[0], s[2], ls(&r, a)].contains(&s[4]));
}

fn allreduce_graph() -> (B, [NodeId; 4]) {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let ar = b.n("ar", "HcomAllReduce", HCCL);
    let c = b.op("c", AIC);
    let d = b.op("d", AIC);
    b.a(ar).fusion = Some(1);
    b.chain(&[x, a, ar, c, d]);
    (b, [a, ar, c, d])
}

/// C.3 OptimizeIneffectiveMultiStream: a lone AllReduce between two adjacent nodes of one
/// stream moves onto it (no parallelism lost, two events saved).
#[test]
fn ineffective_multi_stream_moves_lone_node_c3() {
    let (b, [a, ar, c, d]) = allreduce_graph();
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, ar), ls(&r, c), ls(&r, d)], [0, 0, 0, 0]);
    assert_eq!(rule(&r, ar), StreamRule::IneffectiveMultiStream);
    assert!(live(&r).is_empty());
}

/// C.3 OptimizeIneffectiveMultiStream negative: another node sits between the input and the
/// output on that stream, so the node stays and both events remain.
#[test]
fn ineffective_multi_stream_keeps_node_with_work_between_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let m = b.op("m", AIC);
    let h = b.n("h", "HcomAllReduce", HCCL);
    let d = b.op("d", AIC);
    b.chain(&[x, a, m, d]);
    b.d(a, h);
    b.d(h, d);
    let r = b.run();
    assert_eq!(rule(&r, h), StreamRule::IndependentEngine);
    assert_eq!(live(&r), vec![(a, h), (h, d)]);
}

/// C.3 AllReduceParallel: with `ge.hcomParallel` the successors of a fused AllReduce move to
/// a new stream; without it nothing moves (see the previous test).
#[test]
fn allreduce_parallel_moves_successors_c3() {
    let (b, [a, ar, c, d]) = allreduce_graph();
    let r = b.run_with(&opts("ge.hcomParallel", "true"));
    assert_eq!([ls(&r, ar), ls(&r, a), ls(&r, c), ls(&r, d)], [0, 1, 2, 2]);
    assert_eq!(rule(&r, c), StreamRule::AllReduceParallel);
    assert_eq!(rule(&r, ar), StreamRule::IndependentEngine);
    assert_eq!(live(&r), vec![(a, ar), (ar, c)]);
}

/// C.3 UpdateForSkippedEngine: A(s0) → Reshape(s1, GE_LOCAL) → B(s0) becomes all s0.
#[test]
fn skipped_engine_between_two_nodes_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let rs = b.n("reshape", "Reshape", LOCAL);
    let d = b.op("d", AIC);
    b.d(x, a);
    b.d(a, rs);
    b.d(rs, d);
    b.d(a, d);
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, rs), ls(&r, d)], [0, 0, 0]);
    assert_eq!(rule(&r, rs), StreamRule::SkippedEngineNeighbour);
    assert_eq!(r.logical.main_stream_num, 1);
    assert!(live(&r).is_empty());
}

/// C.3 UpdateForSkippedEngine: a skip-engine node whose producers have no stream gets none.
#[test]
fn skipped_engine_without_streamed_producer_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let rs = b.n("reshape", "Reshape", LOCAL);
    let a = b.op("a", AIC);
    b.chain(&[x, rs, a]);
    let r = b.run();
    assert_eq!([ls(&r, rs), ls(&r, a)], [-1, 0]);
    assert_eq!(rule(&r, rs), StreamRule::SkippedEngineNoStream);
    assert!(live(&r).is_empty());
}

/// C.3 single-stream mode: SingleStream, NodeStreamUpdate, UpdateForSkippedEngine.
#[test]
fn single_stream_mode_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let h = b.n("h", "HcomAllReduce", HCCL);
    let c = b.op("c", CPU);
    b.chain(&[x, a, h, c]);
    let r = b.run_with(&opts("ge.enableSingleStream", "true"));
    assert_eq!([ls(&r, a), ls(&r, h), ls(&r, c)], [0, 0, 0]);
    assert_eq!(rule(&r, h), StreamRule::SingleStream);
    assert!(live(&r).is_empty());
}

/// C.3 SingleStreamPass errors: a stream label (E10055) and an auto multistream mode
/// (E10056).
#[test]
fn single_stream_mode_errors_c3() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    b.d(x, a);
    let mut o = opts("ge.enableSingleStream", "true");
    o.set("ge.autoMultistreamParallelMode", "cv").unwrap();
    let e = b.err_with(&o);
    assert_eq!(e.kind.code(), "E10056");
    b.label(a, "L");
    let e = b.err_with(&opts("ge.enableSingleStream", "true"));
    assert_eq!(e.kind, ErrorKind::SingleStreamLabel);
    assert_eq!(e.kind.code(), "E10055");
    assert_eq!(e.node.as_deref(), Some("a"));
    assert!(
        e.to_string().contains("conflicts with stream label \"L\""),
        "{e}"
    );
}

/// C.2 step 4: attached streams come after the main ones; the same reuse key on the same
/// main stream shares one, another main stream gets another, `force_reuse` shares across.
#[test]
fn attached_streams_after_main_with_reuse_key_c2() {
    let mut b = B::new();
    let x = b.data("x");
    let h = b.n("h", "HcomAllReduce", HCCL);
    let a = b.op("a", AIC);
    let c = b.op("c", AIC);
    let f1 = b.op("f1", AIC);
    b.d(x, h);
    b.chain(&[x, a, c, f1]);
    let req = |per: bool| AttachedStreamReq {
        group: "g".into(),
        key: "k".into(),
        per_main_stream: per,
        required: true,
        depend_inputs: vec![],
    };
    for n in [h, a, c] {
        b.a(n).attached.push(req(true));
    }
    b.a(f1).attached.push(req(false));
    b.a(f1).attached.push(AttachedStreamReq {
        required: false,
        ..req(true)
    });
    let r = b.run();
    assert_eq!((ls(&r, h), ls(&r, a)), (0, 1));
    assert_eq!(r.logical.main_stream_num, 2);
    // Keys in byte order: "k" (force) < "k_stream_0" < "k_stream_1".
    assert_eq!(r.logical.attached[f1], vec![2]);
    assert_eq!(r.logical.attached[h], vec![3]);
    assert_eq!(r.logical.attached[a], vec![4]);
    assert_eq!(r.logical.attached[c], vec![4]);
    assert_eq!(r.logical.stream_num, 5);
    assert_eq!(r.logical.attached_streams.len(), 3);
}

/// C.12: a dynamic-shape graph is single-stream unless multi-stream is enabled, and then
/// engine-owned streams follow engine priority.
#[test]
fn dynamic_shape_streams_c12() {
    let mut b = B::new();
    let x = b.data("x");
    let h = b.n("h", "HcomAllReduce", HCCL);
    let a = b.op("a", AIC);
    let c = b.op("c", CPU);
    b.chain(&[x, h, a, c]);
    let r = b.run_with(&opts("dynamic-shape", "true"));
    assert_eq!([ls(&r, x), ls(&r, h), ls(&r, a), ls(&r, c)], [0, 0, 0, 0]);
    assert_eq!(rule(&r, a), StreamRule::DynamicSingleStream);
    let mut o = opts("dynamic-shape", "true");
    o.set("ENABLE_DYNAMIC_SHAPE_MULTI_STREAM", "1").unwrap();
    let r = b.run_with(&o);
    assert_eq!([ls(&r, x), ls(&r, a), ls(&r, h), ls(&r, c)], [0, 1, 2, 1]);
    assert_eq!(rule(&r, c), StreamRule::DynamicReuse);
    // Data sits on stream 0 in dynamic shape, so it signals the HCCL stream too.
    assert_eq!(live(&r), vec![(h, a), (x, h)]);
}

/// C.1: an engine missing from the configuration is an error naming the node.
#[test]
fn unknown_engine_is_an_error_c1() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", "NoSuchEngine");
    b.d(x, a);
    let e = b.err_with(&StreamOptions::default());
    assert_eq!(e.kind, ErrorKind::UnknownEngine);
    assert_eq!(e.node.as_deref(), Some("a"));
}

/// Options as GE users know them, and their errors.
#[test]
fn option_handling() {
    let m = StreamOptions::parse_max_parallel("DNN_HCCL:2, AIcoreEngine:3").unwrap();
    assert_eq!(m.get("DNN_HCCL"), Some(&2));
    assert_eq!(m.get("AIcoreEngine"), Some(&3));
    for bad in ["AIcoreEngine", "AIcoreEngine:0", ":2", "A:x"] {
        assert_eq!(
            StreamOptions::parse_max_parallel(bad).unwrap_err().kind,
            ErrorKind::InvalidOption,
            "{bad}"
        );
    }
    let mut o = StreamOptions::default();
    o.set("ge.event", "notify").unwrap();
    assert!(o.use_notify);
    o.set("max-task-normal", "64").unwrap();
    assert_eq!(o.max_task_normal, 64);
    assert!(o.set("ge.event", "bell").is_err());
    assert!(o.set("ge.enableSingleStream", "maybe").is_err());
    assert!(o.set("max-task-normal", "-3").is_err());
    assert!(o.set("no.such.option", "1").is_err());
    assert_eq!(o.max_parallel_of("DNN_HCCL"), 1);
}

/// The view must be a DAG in each graph's order, with unique names per graph.
#[test]
fn invalid_view_is_rejected() {
    let mut b = B::new();
    let a = b.op("a", AIC);
    let c = b.op("c", AIC);
    b.d(c, a);
    assert_eq!(
        b.err_with(&StreamOptions::default()).kind,
        ErrorKind::InvalidGraph
    );
    let mut b = B::new();
    b.op("a", AIC);
    b.op("a", AIC);
    let e = b.err_with(&StreamOptions::default());
    assert!(e.message.contains("duplicate"), "{e}");
}

/// The view keeps `all_nodes` and `graph_order` once asked; adding a node or a subgraph
/// afterwards must show in both (a stale order would drop the new nodes from every pass).
#[test]
fn orders_follow_nodes_and_subgraphs_added_after_a_first_query() {
    let mut sg = StreamGraph::new("g");
    let a = sg.add_node(0, "a", "If", "DNN_VM_RTS");
    assert_eq!(sg.all_nodes(), [a]);
    assert_eq!(sg.graph_order(), [0]);
    let t = sg.add_subgraph("T", a);
    let inner = sg.add_node(t, "inner", "Relu", "AIcoreEngine");
    assert_eq!(sg.all_nodes(), [a, inner]);
    assert_eq!(sg.graph_order(), [0, t]);
    let b = sg.add_node(0, "b", "Relu", "AIcoreEngine");
    assert_eq!(sg.all_nodes(), [a, inner, b]);
    let e = sg.add_subgraph("E", a);
    let other = sg.add_node(e, "other", "Relu", "AIcoreEngine");
    assert_eq!(sg.all_nodes(), [a, inner, other, b]);
    assert_eq!(sg.graph_order(), [0, e, t]);
}

/// C.2: graphs are assigned in GE's `GetAllSubgraphs` order, the order GE's topological
/// sort leaves: `AllGraphNodes` discovers a node's subgraphs in reverse instance order and
/// walks the first one's nodes first. `b(If: then T, else E)` with a call in `T` owning
/// `P`, then `c(While: cond C, body B)`: E, T, P, B, C.
#[test]
fn subgraphs_in_get_all_subgraphs_order_c2() {
    let mut b = B::new();
    let x = b.data("x");
    let bi = b.n("b", "If", LOCAL);
    let c = b.n("c", "While", LOCAL);
    b.chain(&[x, bi, c]);
    let t = b.sg.add_subgraph("T", bi);
    let e = b.sg.add_subgraph("E", bi);
    let call = b.ng(t, "call", "PartitionedCall", LOCAL);
    let p = b.sg.add_subgraph("P", call);
    let cc = b.sg.add_subgraph("C", c);
    let bb = b.sg.add_subgraph("B", c);
    let names: Vec<&str> =
        b.sg.graph_order()
            .iter()
            .map(|&g| b.sg.graph(g).name.as_str())
            .collect();
    assert_eq!(names, ["g", "E", "T", "P", "B", "C"]);
    assert_eq!(b.sg.graph_order(), [0, e, t, p, bb, cc]);
    // The order decides which subgraph opens the next stream first: an HCCL node in each
    // branch owns a new stream, E's before T's.
    let he = b.ng(e, "he", "HcomAllReduce", HCCL);
    let ht = b.ng(t, "ht", "HcomAllReduce", HCCL);
    let r = b.run();
    assert!(ls(&r, he) < ls(&r, ht), "{} {}", ls(&r, he), ls(&r, ht));
}
