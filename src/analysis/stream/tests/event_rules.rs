//! Event rules (notes C.5–C.7, C.10).

use super::util::*;
use crate::analysis::stream::*;

/// Three nodes on streams of their own labels.
fn labelled(b: &mut B, names: &[(&str, &str)]) -> Vec<NodeId> {
    names
        .iter()
        .map(|&(n, l)| {
            let id = b.op(n, AIC);
            b.label(id, l);
            id
        })
        .collect()
}

fn origin_of(r: &Allocation, s: NodeId, d: NodeId) -> EventOrigin {
    r.syncs
        .alive()
        .find(|(_, e)| e.send == s && e.recv == d)
        .map(|(_, e)| e.origin)
        .expect("event exists")
}

/// C.5 InsertOneEventInTwoNodes: a cross-stream data edge gets an event; a same-stream edge
/// gets none (the negative case).
#[test]
fn event_for_cross_stream_data_edge_only_c5() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "A"), ("c", "C")]);
    b.chain(&v);
    let r = b.run();
    assert_eq!(live(&r), vec![(v[1], v[2])]);
    assert_eq!(origin_of(&r, v[1], v[2]), EventOrigin::DataEdge);
    assert_eq!(r.stats.inserted, 1);
}

/// C.5: control edges are synchronised like data edges.
#[test]
fn event_for_control_edge_c5() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "B")]);
    b.c(v[0], v[1]);
    let r = b.run();
    assert_eq!(live(&r), vec![(v[0], v[1])]);
    assert_eq!(origin_of(&r, v[0], v[1]), EventOrigin::ControlEdge);
}

/// C.6 OptimizeBySendEvents: one event per (sender, receiving stream), to the earliest
/// receiver.
#[test]
fn optimize_by_send_events_c6() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("n", "S0"), ("r1", "S1"), ("r2", "S1")]);
    b.d(v[0], v[1]);
    b.d(v[0], v[2]);
    b.d(v[1], v[2]);
    let r = b.run();
    assert_eq!(r.stats.inserted, 2);
    assert_eq!(r.stats.removed_by_send_events, 1);
    assert_eq!(live(&r), vec![(v[0], v[1])]);
    let removed = r.syncs.recs.iter().find(|e| e.removed.is_some()).unwrap();
    assert_eq!(
        (removed.recv, removed.removed),
        (v[2], Some(Removal::BySendEvents))
    );
}

/// C.6 OptimizeByRecvEvents: one event per (sending stream, receiver), from the latest
/// sender.
#[test]
fn optimize_by_recv_events_c6() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("s1", "A"), ("s2", "A"), ("r", "B")]);
    b.d(v[0], v[1]);
    b.d(v[0], v[2]);
    b.d(v[1], v[2]);
    let r = b.run();
    assert_eq!(r.stats.removed_by_recv_events, 1);
    assert_eq!(live(&r), vec![(v[1], v[2])]);
}

/// C.6 OptimizeByStreamActivate: the receiver's stream is activated by a StreamActive whose
/// input is fed by the sender, so the event is dropped.
#[test]
fn optimize_by_stream_activate_c6() {
    let mut b = B::new();
    let x = b.op("X", AIC);
    b.label(x, "x");
    let p = b.op("P", AIC);
    let act = b.n("act", "StreamActive", RTS);
    let bn = b.op("Bn", AIC);
    b.label(bn, "L");
    b.a(act).active_label_list = vec!["L".into()];
    b.d(x, p);
    b.c(p, act);
    b.d(x, bn);
    let r = b.run();
    assert_eq!(r.stats.removed_by_stream_activate, 1);
    assert_eq!(live(&r), vec![(x, p)]);
    assert_eq!(r.activation.active_streams[&act], vec![ls(&r, bn)]);
}

/// C.5 InsertOneEventInTwoNodes: no event towards a labelled node whose activator sits on
/// the sender's stream after the sender.
#[test]
fn no_event_when_activator_orders_c5() {
    let mut b = B::new();
    let a = b.op("A", AIC);
    let act = b.n("act", "StreamActive", RTS);
    // Another engine, so `act` may reuse A's stream (no engine conflict, C.4 rule 4).
    let bn = b.op("Bn", CPU);
    b.label(bn, "L");
    b.a(act).active_label_list = vec!["L".into()];
    b.c(a, act);
    b.d(a, bn);
    let r = b.run();
    assert_eq!(ls(&r, a), ls(&r, act));
    assert_eq!(r.stats.skipped_by_activation, 1);
    assert!(live(&r).is_empty());
}

/// C.6: after the three rules every send of a StreamSwitch is dropped.
#[test]
fn stream_switch_sends_removed_c6() {
    let mut b = B::new();
    let sw = b.n("sw", "StreamSwitch", RTS);
    let t = b.op("t", AIC);
    let u = b.op("u", AIC);
    b.label(t, "T");
    b.label(u, "U");
    b.a(sw).active_label_list = vec!["T".into()];
    b.c(sw, t);
    b.d(sw, u);
    let r = b.run();
    assert_eq!(r.stats.skipped_by_activation, 1, "sw activates T itself");
    assert_eq!(r.stats.removed_stream_switch_sends, 1);
    assert!(live(&r).is_empty());
}

/// C.5: an Enter needs no event except towards a StreamActive.
#[test]
fn enter_events_only_to_stream_active_c5() {
    let mut b = B::new();
    let e = b.n("e", "Enter", AIC);
    let y = b.op("y", AIC);
    let act = b.n("act", "StreamActive", RTS);
    b.label(e, "E");
    b.label(y, "Y");
    b.label(act, "A");
    b.a(act).active_label_list = vec!["Y".into()];
    b.d(e, y);
    b.c(e, act);
    let r = b.run();
    assert_eq!(live(&r), vec![(e, act)]);
}

/// C.5: a stream-less (FFTS+) consumer is skipped; any other stream-less consumer of a
/// streamed node is an error naming it.
#[test]
fn consumer_without_stream_c5() {
    let mut b = B::new();
    let a = b.op("a", AIC);
    let p = b.n("p", "PartitionedCall", AIC);
    b.d(a, p);
    let g = b.sg.add_subgraph("sub", p);
    let q = b.ng(g, "q", "Op", AIC);
    let rt = b.ng(g, "rt", "Op", AIC);
    b.a(rt).rts_label_node = true;
    b.d(q, rt);
    b.run(); // rt takes p's stream: fine.
    let mut b = B::new();
    let a = b.op("a", AIC);
    let rt = b.op("rt", AIC);
    b.a(rt).rts_label_node = true; // on the root's default stream: -1
    b.d(a, rt);
    let e = b.err_with(&StreamOptions::default());
    assert_eq!(
        (e.kind, e.node.as_deref()),
        (ErrorKind::InvalidStream, Some("rt"))
    );
    b.a(rt).thread_scope = true;
    assert!(live(&b.run()).is_empty());
}

/// C.6 RefreshContinuousEvents: ids follow sender names in byte order, not insertion.
#[test]
fn renumber_by_sender_name_c6() {
    let mut b = B::new();
    let v = labelled(
        &mut b,
        &[("zeta", "A"), ("r1", "B"), ("alpha", "C"), ("r2", "D")],
    );
    b.d(v[0], v[1]);
    b.d(v[2], v[3]);
    let r = b.run();
    let id = |s: NodeId| r.syncs.alive().find(|(_, e)| e.send == s).unwrap().1.id;
    assert_eq!((id(v[2]), id(v[0])), (0, 1));
    assert_eq!(r.event_num, 2);
}

/// A chain alternating two labels inside `g`: `k` events.
fn alternating(b: &mut B, g: GraphId, tag: &str, k: usize) {
    let mut prev = None;
    for i in 0..=k {
        let n = b.ng(g, &format!("{tag}{i}"), "Op", AIC);
        b.label(n, if i % 2 == 0 { "X" } else { "Y" });
        if let Some(p) = prev {
            b.d(p, n);
        }
        prev = Some(n);
    }
}

/// C.7 ReuseEventForMultiDims: branches using 4, 5 and 3 events share ids 0..4; the event
/// outside the Case comes after; names repeat with `_Reuse_<k>` (C.10).
#[test]
fn reuse_event_for_multi_dims_c7() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("ra", "R1"), ("rb", "R2")]);
    b.d(v[0], v[1]);
    let case = b.n("case", "Case", RTS);
    b.a(case).batch_num = Some(3);
    for (i, k) in [4, 5, 3].into_iter().enumerate() {
        let g = b.sg.add_subgraph(&format!("branch{i}"), case);
        alternating(&mut b, g, &format!("b{i}_"), k);
    }
    let r = b.run();
    assert_eq!(r.event_num, 6);
    let ids_in = |g: usize| -> Vec<u32> {
        let mut v: Vec<u32> = r
            .syncs
            .alive()
            .filter(|(_, e)| b.sg.node(e.send).graph == g)
            .map(|(_, e)| e.id)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids_in(1), vec![0, 1, 2, 3]);
    assert_eq!(ids_in(2), vec![0, 1, 2, 3, 4]);
    assert_eq!(ids_in(3), vec![0, 1, 2]);
    assert_eq!(ids_in(0), vec![5]);
    let names: Vec<&str> = r.planned.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"g_Send_0"));
    assert!(names.contains(&"g_Send_0_Reuse_1"));
    assert!(names.contains(&"g_Send_0_Reuse_2"));
    assert!(names.contains(&"g_Recv_4"));
    assert!(!names.contains(&"g_Recv_4_Reuse_1"));
}

/// C.7: multi-dims reuse recurses at most 10 levels deep.
#[test]
fn multi_dims_nesting_limit_c7() {
    let mut b = B::new();
    let case = b.n("case", "Case", RTS);
    b.a(case).batch_num = Some(1);
    let mut parent = case;
    for i in 0..12 {
        let g = b.sg.add_subgraph(&format!("s{i}"), parent);
        parent = b.ng(g, &format!("p{i}"), "PartitionedCall", AIC);
    }
    let e = b.err_with(&StreamOptions::default());
    assert_eq!(e.kind, ErrorKind::NestingTooDeep);
}

/// C.5 step 6: above the threshold `_event_multiplexing` makes listed events share ids.
#[test]
fn event_multiplexing_c5() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "B"), ("c", "C"), ("e", "E")]);
    b.d(v[0], v[1]);
    b.d(v[2], v[3]);
    b.a(v[0]).event_multiplexing = vec!["SendTo;b;0".into()];
    b.a(v[3]).event_multiplexing = vec!["RecvFrom;c;0".into()];
    assert_eq!(b.run().event_num, 2, "below the threshold nothing happens");
    let o = opts("event-reuse-threshold", "1");
    let r = b.run_with(&o);
    assert_eq!(r.event_num, 1);
    assert!(r.syncs.alive().all(|(_, e)| e.id == 0));
    b.a(v[0]).event_multiplexing = vec!["SendTo;b;4000000000".into()];
    assert_eq!(
        b.run_with(&o).event_num,
        2,
        "large user ids renumber densely"
    );
    b.a(v[0]).event_multiplexing = vec!["SendTo;b;4294967295".into()];
    assert!(b.err_with(&o).message.contains("too large"));
    b.a(v[0]).event_multiplexing = vec!["SendTo;b".into()];
    assert_eq!(b.err_with(&o).kind, ErrorKind::EventMultiplexing);
    b.a(v[0]).event_multiplexing = vec!["SendTo;nobody;0".into()];
    assert!(b.err_with(&o).message.contains("nobody"));
    b.a(v[0]).event_multiplexing = vec!["SendTo;b;-2".into()];
    assert_eq!(b.err_with(&o).kind, ErrorKind::EventMultiplexing);
}

/// C.5 `ge.event=notify`: notifies instead of events, with notify node names (C.10).
#[test]
fn notify_mode_c5() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "B")]);
    b.d(v[0], v[1]);
    let r = b.run_with(&opts("ge.event", "notify"));
    assert_eq!((r.event_num, r.notify_num), (0, 1));
    let kinds: Vec<(&str, &str)> = r.planned.iter().map(|p| (p.ty, p.name.as_str())).collect();
    assert_eq!(
        kinds,
        vec![
            ("SendNotify", "g_Send_Notify_0"),
            ("RecvNotify", "g_Recv_Notify_0")
        ]
    );
}

/// Limits: more events or notifies than allowed is a clear error.
#[test]
fn event_and_notify_limits() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "B"), ("c", "C")]);
    b.chain(&v);
    let e = b.err_with(&opts("max-events", "1"));
    assert_eq!(e.kind, ErrorKind::TooManyEvents);
    assert!(e.message.contains("2 events needed, the limit is 1"), "{e}");
    let mut o = opts("ge.event", "notify");
    o.set("max-notifies", "1").unwrap();
    assert_eq!(b.err_with(&o).kind, ErrorKind::TooManyNotifies);
}

/// Beyond GE: A→C is implied by A→B→C; GE's rules keep it, the minimisation drops it, and
/// both counts are reported. With minimisation off GE's result stays.
#[test]
fn transitive_event_removed_beyond_ge() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("A", "x"), ("B", "y"), ("C", "z")]);
    b.d(v[0], v[1]);
    b.d(v[1], v[2]);
    b.d(v[0], v[2]);
    let r = b.run();
    assert_eq!(
        (
            r.stats.after_ge_rules,
            r.stats.minimal,
            r.stats.removed_transitive
        ),
        (3, 2, 1)
    );
    assert_eq!(live(&r), vec![(v[0], v[1]), (v[1], v[2])]);
    assert!(check(&b.sg, &r, &dependencies(&b.sg)).is_empty());
    let r = b.run_with(&opts("minimize-events", "false"));
    assert_eq!(
        (r.stats.after_ge_rules, r.stats.minimal, r.event_num),
        (3, 2, 3)
    );
    // Found on the logical streams and again on the physical ones (no split here).
    let problems = check(&b.sg, &r, &dependencies(&b.sg));
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.iter().all(|p| p.contains("A to C is implied")));
}

/// Beyond GE, negative: an event that is the only path stays.
#[test]
fn necessary_event_kept_beyond_ge() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("A", "x"), ("B", "y"), ("C", "x"), ("D", "y")]);
    b.d(v[0], v[1]);
    b.d(v[2], v[3]);
    let r = b.run();
    assert_eq!(r.stats.removed_transitive, 0);
    assert_eq!(live(&r).len(), 2);
}

/// C.5 InsertEventsForSubgraph: a subgraph node without inputs waits for the parent's
/// producers; the subgraph end node signals the parent's consumers.
#[test]
fn subgraph_entry_and_exit_events_c5() {
    let mut b = B::new();
    let a = b.op("a", AIC);
    b.label(a, "P");
    let p = b.n("p", "PartitionedCall", AIC);
    let o = b.op("o", AIC);
    b.label(o, "O");
    b.d(a, p);
    b.d(p, o);
    let g = b.sg.add_subgraph("sub", p);
    let n1 = b.ng(g, "n1", "Op", AIC);
    let n2 = b.ng(g, "n2", "Op", AIC);
    b.label(n1, "Q");
    b.label(n2, "Q");
    b.a(n2).subgraph_end_node = true;
    b.d(n1, n2);
    let r = b.run();
    assert_eq!([ls(&r, a), ls(&r, o), ls(&r, p), ls(&r, n1)], [0, 1, 2, 3]);
    assert_eq!(origin_of(&r, a, n1), EventOrigin::SubgraphEntry);
    assert_eq!(origin_of(&r, n2, o), EventOrigin::SubgraphExit);
    assert_eq!(live(&r).len(), 4);
    assert!(check(&b.sg, &r, &dependencies(&b.sg)).is_empty());
}

/// C.5 step 7 and 9: an attached stream waits for the producers it depends on, and its last
/// node signals the graph's NetOutput; Send/Recv nodes sit on the attached stream (C.10).
#[test]
fn attached_stream_events_c5() {
    let mut b = B::new();
    let x = b.data("x");
    let a = b.op("a", AIC);
    let m = b.op("m", "DNN_VM_AICPU");
    let o = b.n("out", "NetOutput", LOCAL);
    b.chain(&[x, a, m, o]);
    b.label(a, "A");
    b.a(m).attached.push(AttachedStreamReq {
        group: "g".into(),
        key: "k".into(),
        per_main_stream: true,
        required: true,
        depend_inputs: vec![0],
    });
    let r = b.run();
    let att = r.logical.attached[m][0];
    assert_eq!(att, r.logical.main_stream_num);
    assert_eq!(r.stats.attached_events, 2);
    let dep = r
        .syncs
        .alive()
        .find(|(_, e)| e.origin == EventOrigin::AttachedDepend)
        .unwrap()
        .1;
    assert_eq!((dep.send, dep.recv, dep.recv_side), (a, m, Side::Attached));
    let cover = r
        .syncs
        .alive()
        .find(|(_, e)| e.origin == EventOrigin::AttachedToNetOutput)
        .unwrap()
        .1;
    assert_eq!((cover.send, cover.recv), (m, o));
    let recv = r
        .planned
        .iter()
        .find(|p| p.sync == r.syncs.recs.iter().position(|e| e == dep).unwrap() && p.ty == "Recv")
        .unwrap();
    assert_eq!(recv.stream, r.attached[m][0]);
    assert!(r.event_num >= 3);
}

/// C.10: a Send follows its sender on the sender's stream, a Recv precedes its receiver on
/// the receiver's stream; as many Sends as Recvs.
#[test]
fn planned_send_recv_nodes_c10() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "B")]);
    b.d(v[0], v[1]);
    let r = b.run();
    assert_eq!(r.planned.len(), 2);
    let (s, rv) = (&r.planned[0], &r.planned[1]);
    assert_eq!(
        (s.ty, s.name.as_str(), s.anchor, s.stream),
        ("Send", "g_Send_0", v[0], ls(&r, v[0]))
    );
    assert_eq!(
        (rv.ty, rv.name.as_str(), rv.anchor, rv.stream),
        ("Recv", "g_Recv_0", v[1], ls(&r, v[1]))
    );
}

/// The checker is not vacuous: dropping a needed event is reported.
#[test]
fn check_reports_uncovered_dependency() {
    let mut b = B::new();
    let v = labelled(&mut b, &[("a", "A"), ("b", "B")]);
    b.d(v[0], v[1]);
    let mut r = b.run();
    assert!(check(&b.sg, &r, &dependencies(&b.sg)).is_empty());
    r.syncs.remove(0, Removal::Transitive);
    let problems = check(&b.sg, &r, &dependencies(&b.sg));
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("a -> b"), "{problems:?}");
}
