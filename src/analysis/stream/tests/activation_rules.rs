//! Activation rules (notes C.5 step 2, C.9).

use super::util::*;
use crate::analysis::stream::*;

/// C.5 SetActiveStreamsByLabel: an activator's list is the streams of its labels, in label
/// order.
#[test]
fn active_streams_by_label_c5() {
    let mut b = B::new();
    let act = b.n("act", "StreamActive", RTS);
    let l1 = b.op("l1", AIC);
    let l2 = b.op("l2", CPU);
    b.label(l1, "L1");
    b.label(l2, "L2");
    b.a(act).active_label_list = vec!["L2".into(), "L1".into()];
    b.c(act, l1);
    b.c(act, l2);
    let r = b.run();
    assert_eq!(
        r.activation.active_streams[&act],
        vec![ls(&r, l2), ls(&r, l1)]
    );
    assert!(r.activation.specific_streams.contains(&ls(&r, l1)));
    assert!(live(&r).is_empty(), "activation orders them");
}

/// C.5 SetActiveStreamsForSubgraphs: the subgraph's first-active node activates every other
/// unlabelled stream of the subgraph.
#[test]
fn subgraph_first_active_c5() {
    let mut b = B::new();
    let p = b.n("p", "PartitionedCall", AIC);
    let g = b.sg.add_subgraph("sub", p);
    let fa = b.ng(g, "fa", "StreamActive", RTS);
    let a1 = b.ng(g, "a1", "Op", AIC);
    let h = b.ng(g, "h", "HcomAllGather", HCCL);
    let lab = b.ng(g, "lab", "Op", CPU);
    b.label(lab, "Z");
    b.a(fa).subgraph_first_active = true;
    b.c(fa, a1);
    b.c(fa, h);
    b.c(fa, lab);
    let r = b.run();
    assert_eq!(r.activation.first_active.get(&g), Some(&fa));
    let mut expect = vec![ls(&r, a1), ls(&r, h)];
    expect.sort();
    assert_eq!(r.activation.active_streams[&fa], expect);
    assert!(!expect.contains(&ls(&r, fa)));
    assert!(
        !expect.contains(&ls(&r, lab)),
        "labelled streams are skipped"
    );
}

/// C.9 UpdateActiveStreamsForSwitchNode: a switch label spread over two streams gets a
/// planned `<switch>_StreamActive_<i>` on a brand-new stream; the switch activates it.
#[test]
fn stream_switch_plans_stream_active_c9() {
    let mut b = B::new();
    let x = b.op("x", AIC);
    let sw = b.n("sw", "StreamSwitch", RTS);
    let t1 = b.op("t1", AIC);
    let t2 = b.n("t2", "HcomAllReduce", HCCL);
    let f = b.op("f", CPU);
    b.d(x, sw);
    b.label(t1, "T");
    b.label(t2, "T");
    b.label(f, "F");
    b.a(sw).active_label_list = vec!["F".into(), "T".into()];
    for n in [t1, t2, f] {
        b.c(sw, n);
    }
    let r = b.run();
    assert_ne!(ls(&r, t1), ls(&r, t2), "HCCL overrides the inner label");
    let planned = &r.activation.planned;
    assert_eq!(planned.len(), 1);
    let pa = &planned[0];
    assert_eq!(
        (pa.name.as_str(), pa.label.as_str()),
        ("sw_StreamActive_1", "T")
    );
    assert_eq!(pa.moved_ctrl_targets, vec![t1, t2]);
    assert_eq!(pa.stream, r.logical.stream_num);
    assert_eq!(r.stream_num, r.logical.stream_num + 1);
    let key = r.activation.planned_key(0);
    let mut t_streams = vec![ls(&r, t1), ls(&r, t2)];
    t_streams.sort();
    assert_eq!(r.activation.active_streams[&key], t_streams);
    assert_eq!(r.activation.active_streams[&sw], vec![pa.stream]);
    assert_eq!(
        r.activation.active_labels[&sw],
        vec!["F".to_string(), "sw_StreamActive_1".to_string()]
    );
}

/// C.9: a StreamSwitch without an active label list is an error.
#[test]
fn stream_switch_without_labels_is_an_error_c9() {
    let mut b = B::new();
    b.n("sw", "StreamSwitch", RTS);
    let e = b.err_with(&StreamOptions::default());
    assert_eq!(
        (e.kind, e.node.as_deref()),
        (ErrorKind::Activation, Some("sw"))
    );
}

/// C.9 SetActiveStreamsForLoop: the loop-active node activates every stream not activated
/// specifically; the last node of each of those streams signals the StreamSwitch before it.
#[test]
fn loop_activation_and_events_c9() {
    let mut b = B::new();
    let act0 = b.n("act0", "StreamActive", RTS);
    let a = b.op("a", AIC);
    let h = b.n("h", "HcomAllReduce", HCCL);
    let sw = b.n("sw", "StreamSwitch", RTS);
    let la = b.n("la", "StreamActive", RTS);
    let b1 = b.op("b1", CPU);
    b.d(a, h);
    b.c(sw, la);
    b.c(sw, b1);
    b.label(sw, "SW");
    b.label(la, "LA");
    b.label(b1, "B");
    b.a(act0).active_label_list = vec!["SW".into(), "LA".into()];
    b.a(sw).active_label_list = vec!["B".into()];
    b.a(la).is_loop_active = true;
    let r = b.run();
    let mut expect = vec![ls(&r, act0), ls(&r, a), ls(&r, h)];
    expect.sort();
    assert_eq!(r.activation.active_streams[&la], expect);
    let mut loops: Vec<(NodeId, NodeId)> = r
        .syncs
        .alive()
        .filter(|(_, e)| e.origin == EventOrigin::LoopBack)
        .map(|(_, e)| (e.send, e.recv))
        .collect();
    loops.sort();
    assert_eq!(loops, vec![(act0, sw), (a, sw), (h, sw)]);
    assert_eq!(r.stats.loop_events, 3);
}

/// C.8 CheckStreamActived: a node may not activate its own stream.
#[test]
fn self_activation_is_an_error_c8() {
    let mut b = B::new();
    let act = b.n("act", "StreamActive", RTS);
    let l = b.n("l", "Op", RTS);
    b.label(act, "L");
    b.label(l, "L");
    b.a(act).active_label_list = vec!["L".into()];
    b.c(act, l);
    let e = b.err_with(&StreamOptions::default());
    assert_eq!(
        (e.kind, e.node.as_deref()),
        (ErrorKind::Activation, Some("act"))
    );
    assert!(e.message.contains("own stream"));
}
