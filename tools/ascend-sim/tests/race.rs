//! The race detector on hand-issued device calls (the `Sim` methods behind the ACL entry
//! points): each race kind is found, with both tasks and the event that would have
//! ordered them; properly evented producers and consumers, host-synchronised reuse and
//! re-activated loop streams are not reported.

use ascendcl::config::{parse, Config};
use ascendcl::handles::Id;
use ascendcl::sim::{EventMode, Sim, BIND_HEAD};
use ascendcl::task::{CollectiveOp, CopySource, ReduceOp};
use serde_json::Value;

fn sim(extra: &str) -> Sim {
    let (cfg, _) = Config::default()
        .with(&parse(&format!("race=1;{extra}")).unwrap())
        .unwrap();
    let mut s = Sim::new(cfg);
    s.init().unwrap();
    s.set_device(0).unwrap();
    s
}

const D: Option<u32> = Some(0);

fn races(s: &Sim) -> Vec<Value> {
    s.race.to_json().as_array().unwrap().clone()
}

fn kinds(s: &Sim) -> Vec<String> {
    races(s)
        .iter()
        .map(|r| r["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// A device-to-device copy `src -> dst` on `stream` (a reader of src, a writer of dst).
fn copy(s: &mut Sim, dst: u64, src: u64, len: u64, stream: Id) {
    s.memcpy_async_to_device(D, dst, len, CopySource::Device(src), len, stream)
        .unwrap();
}

fn event(s: &mut Sim) -> Id {
    s.create_event(D, EventMode::Flag { sync: true }, 1, "test")
        .unwrap()
}

/// Two buffers, host-initialised, and two streams.
fn setup(s: &mut Sim) -> (u64, u64, Id, Id) {
    let a = s.malloc(D, 4096, 0).unwrap();
    let b = s.malloc(D, 4096, 0).unwrap();
    s.memset(a, 4096, 1, 4096).unwrap();
    s.memset(b, 4096, 2, 4096).unwrap();
    let s1 = s.create_stream(D, 0, 0).unwrap();
    let s2 = s.create_stream(D, 0, 0).unwrap();
    (a, b, s1, s2)
}

#[test]
fn an_unordered_producer_and_consumer_is_a_read_after_write_naming_the_event() {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    let e = event(&mut s);
    s.memset_async(D, a, 4096, 7, 4096, s1).unwrap(); // producer
    s.record_event(D, e, s1).unwrap(); // recorded, but nobody waits
    copy(&mut s, b, a, 4096, s2); // consumer on another stream
    s.sync_device(D).unwrap();
    let r = races(&s);
    assert!(
        r.iter().any(|r| r["kind"] == "read-after-write"
            && r["first"]["kind"] == "memset"
            && r["second"]["kind"] == "memcpy"
            && r["ordering_event"] == "event #0 of device 0"
            && r["bytes"] == 4096),
        "{r:?}"
    );
}

#[test]
fn an_evented_producer_and_consumer_is_no_race() {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    let e = event(&mut s);
    s.memset_async(D, a, 4096, 7, 4096, s1).unwrap();
    s.record_event(D, e, s1).unwrap();
    s.wait_event(D, s2, e).unwrap();
    copy(&mut s, b, a, 4096, s2);
    s.reset_event(D, e, s2).unwrap();
    s.sync_device(D).unwrap();
    assert!(kinds(&s).is_empty(), "{:?}", races(&s));
}

#[test]
fn overwriting_what_another_stream_reads_is_a_write_after_read() {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    copy(&mut s, b, a, 4096, s1); // reads a
    s.memset_async(D, a, 4096, 0, 4096, s2).unwrap(); // overwrites a
    s.sync_device(D).unwrap();
    assert_eq!(kinds(&s), vec!["write-after-read"], "{:?}", races(&s));
}

#[test]
fn two_unordered_writers_are_a_write_after_write_reported_once() {
    let mut s = sim("");
    let (a, _, s1, s2) = setup(&mut s);
    for _ in 0..3 {
        s.memset_async(D, a, 4096, 3, 4096, s1).unwrap();
        s.memset_async(D, a, 4096, 4, 4096, s2).unwrap();
    }
    s.sync_device(D).unwrap();
    let r = races(&s);
    assert!(r.iter().all(|r| r["kind"] == "write-after-write"), "{r:?}");
    assert_eq!(
        r.len(),
        2,
        "one per direction of the same pair of streams: {r:?}"
    );
}

#[test]
fn host_synchronised_reuse_is_no_race() {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    s.memset_async(D, a, 4096, 7, 4096, s1).unwrap();
    s.sync_stream(D, s1, -1).unwrap();
    copy(&mut s, b, a, 4096, s2);
    s.sync_stream(D, s2, -1).unwrap();
    s.memset_async(D, a, 4096, 9, 4096, s1).unwrap();
    s.sync_device(D).unwrap();
    assert!(kinds(&s).is_empty(), "{:?}", races(&s));
}

#[test]
fn reading_never_written_memory_is_reported() {
    let mut s = sim("");
    let a = s.malloc(D, 256, 0).unwrap();
    let b = s.malloc(D, 256, 0).unwrap();
    let st = s.create_stream(D, 0, 0).unwrap();
    copy(&mut s, b, a, 256, st);
    s.sync_device(D).unwrap();
    assert_eq!(kinds(&s), vec!["uninitialised-read"]);
}

#[test]
fn freeing_memory_a_queued_task_uses_is_reported() {
    let mut s = sim("");
    let (a, b, s1, _) = setup(&mut s);
    let e = event(&mut s);
    // The stream waits for an event nobody recorded yet: the copy stays queued.
    s.wait_event(D, s1, e).unwrap();
    copy(&mut s, b, a, 4096, s1);
    s.free(a).unwrap();
    assert_eq!(kinds(&s), vec!["free-while-in-use"], "{:?}", races(&s));
}

#[test]
fn an_access_after_free_is_reported() {
    let mut s = sim("");
    let (a, _, s1, _) = setup(&mut s);
    s.free(a).unwrap();
    // The memory model refuses the copy's operands at issue; the host's synchronous
    // memset is refused too. A task recorded in a model is checked only when it runs,
    // so the detector sees the access: issue it to a model.
    let _ = s.memset(a, 16, 0, 16);
    let m = s.ri_build_begin(D, 0).unwrap();
    s.ri_bind(m, s1, BIND_HEAD).unwrap();
    s.memset_async(D, a, 16, 0, 16, s1).unwrap();
    s.ri_end_task(m, s1).unwrap();
    s.ri_build_end(m).unwrap();
    let exec = s.create_stream(D, 0, 0).unwrap();
    s.ri_execute(D, m, exec).unwrap();
    let _ = s.sync_stream(D, exec, -1);
    assert!(
        kinds(&s).contains(&"use-after-free".to_owned()),
        "{:?}",
        races(&s)
    );
}

#[test]
fn a_reactivated_loop_stream_is_ordered_by_its_activations() {
    // HEAD stream 1 writes a, activates stream 2 (reads a, writes b); after stream 2
    // ends, the model runs again: the second run's writes of a follow the first run's
    // reads through the execute stream.
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    let m = s.ri_build_begin(D, 0).unwrap();
    s.ri_bind(m, s1, BIND_HEAD).unwrap();
    s.ri_bind(m, s2, 0x7FFF_FFFF).unwrap();
    s.memset_async(D, a, 4096, 5, 4096, s1).unwrap();
    s.active_stream(D, s2, s1).unwrap();
    s.ri_end_task(m, s1).unwrap();
    copy(&mut s, b, a, 4096, s2);
    s.ri_build_end(m).unwrap();
    let exec = s.create_stream(D, 0, 0).unwrap();
    for _ in 0..3 {
        s.ri_execute(D, m, exec).unwrap();
        s.sync_stream(D, exec, -1).unwrap();
    }
    assert!(kinds(&s).is_empty(), "{:?}", races(&s));
}

#[test]
fn an_activated_stream_that_is_not_ordered_after_its_producer_races() {
    // The activation comes before the write on the activating stream: the activated
    // stream's read is not ordered after it.
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    let m = s.ri_build_begin(D, 0).unwrap();
    s.ri_bind(m, s1, BIND_HEAD).unwrap();
    s.ri_bind(m, s2, 0x7FFF_FFFF).unwrap();
    s.active_stream(D, s2, s1).unwrap();
    s.memset_async(D, a, 4096, 5, 4096, s1).unwrap();
    s.ri_end_task(m, s1).unwrap();
    copy(&mut s, b, a, 4096, s2);
    s.ri_build_end(m).unwrap();
    let exec = s.create_stream(D, 0, 0).unwrap();
    s.ri_execute(D, m, exec).unwrap();
    s.sync_stream(D, exec, -1).unwrap();
    let k = kinds(&s);
    assert!(
        k.contains(&"write-after-read".to_owned()) || k.contains(&"read-after-write".to_owned()),
        "{:?}",
        races(&s)
    );
}

#[test]
fn notifies_order_like_events() {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    let n = s.create_notify(D, 0).unwrap();
    s.memset_async(D, a, 4096, 7, 4096, s1).unwrap();
    s.record_notify(D, n, s1).unwrap();
    s.wait_notify(D, n, s2).unwrap();
    copy(&mut s, b, a, 4096, s2);
    s.sync_device(D).unwrap();
    assert!(kinds(&s).is_empty(), "{:?}", races(&s));
}

#[test]
fn the_detector_is_off_unless_asked() {
    let (cfg, _) = Config::default().with(&parse("race=0").unwrap()).unwrap();
    let mut s = Sim::new(cfg);
    s.init().unwrap();
    s.set_device(0).unwrap();
    let (a, _, s1, s2) = setup(&mut s);
    s.memset_async(D, a, 4096, 3, 4096, s1).unwrap();
    s.memset_async(D, a, 4096, 4, 4096, s2).unwrap();
    s.sync_device(D).unwrap();
    assert!(kinds(&s).is_empty());
}

/// Names the next task of `stream` as the executor does, through the methods behind the
/// simulator-only entry points (`geSimSetTaskName`, and `geSimSetHcclTask` for a
/// collective).
fn name_next(s: &mut Sim, stream: Id, node: &str, hccl: Option<(&str, u32)>) {
    s.set_task_name(D, stream, node).unwrap();
    if let Some((op_type, part)) = hccl {
        s.set_hccl_task(D, stream, op_type, part).unwrap();
    }
}

/// A one-rank collective `op` of 1024 f32 from `send` to `recv` on `stream`.
fn collective(s: &mut Sim, op: CollectiveOp, send: u64, recv: u64, stream: Id) {
    let comm = s.comm_init_all(&[0]).unwrap()[0];
    s.collective("HcclTest", comm, op, send, recv, 1024, 4, stream)
        .unwrap();
}

/// Every collective side of the races in `s`.
fn hccl_sides(s: &Sim) -> Vec<Value> {
    races(s)
        .iter()
        .flat_map(|r| [r["first"].clone(), r["second"].clone()])
        .filter(|t| t["kind"] == "hccl")
        .collect()
}

#[test]
fn a_collective_racing_with_a_copy_is_named_by_node_op_type_and_pair() {
    let mut s = sim("trace=1");
    let (a, b, s1, s2) = setup(&mut s);
    // Pair 1 of node `ar` writes b; a copy on another stream reads it unordered.
    name_next(&mut s, s1, "ar", Some(("HcomAllReduce", 1)));
    collective(&mut s, CollectiveOp::AllReduce(ReduceOp::Sum), a, b, s1);
    name_next(&mut s, s2, "reader", None);
    copy(&mut s, a, b, 4096, s2);
    s.sync_device(D).unwrap();
    let r = races(&s);
    // Whichever ran first, the collective's receive buffer is output 1 of `ar` and the
    // copy's source is named by its node, in the same race.
    let side = |t: &Value, node: &str, operand: &str| t["node"] == node && t["operand"] == operand;
    assert!(
        r.iter().any(|r| {
            let (f, s) = (&r["first"], &r["second"]);
            (side(f, "ar", "output 1") && side(s, "reader", "source"))
                || (side(s, "ar", "output 1") && side(f, "reader", "source"))
        }),
        "{r:?}"
    );
    let sides = hccl_sides(&s);
    assert!(!sides.is_empty(), "{r:?}");
    for t in &sides {
        assert_eq!(t["op"], "HcomAllReduce", "{r:?}");
        assert_eq!(t["node"], "ar", "{r:?}");
    }
    // The trace's collective slice carries the node's op type and name too.
    let stats = s.stats.to_json(&s.op_names, &s.race.names, s.sched.now);
    let trace = stats["trace"].as_array().unwrap();
    assert!(
        trace
            .iter()
            .any(|t| t["kind"] == "hccl" && t["name"] == "HcomAllReduce" && t["node"] == "ar"),
        "{trace:?}"
    );
    assert!(
        trace
            .iter()
            .any(|t| t["kind"] == "memcpy" && t["node"] == "reader"),
        "{trace:?}"
    );
}

#[test]
fn an_evented_collective_and_copy_do_not_race() {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    name_next(&mut s, s1, "ar", Some(("HcomAllReduce", 0)));
    collective(&mut s, CollectiveOp::AllReduce(ReduceOp::Sum), a, b, s1);
    let e = event(&mut s);
    s.record_event(D, e, s1).unwrap();
    s.wait_event(D, s2, e).unwrap();
    copy(&mut s, a, b, 4096, s2);
    s.sync_device(D).unwrap();
    assert!(kinds(&s).is_empty(), "{:?}", races(&s));
}

#[test]
fn a_named_broadcast_reads_and_writes_its_output() {
    let mut s = sim("");
    let (_, b, s1, s2) = setup(&mut s);
    // Broadcast works in place (the executor copies input j to output j first): its read
    // of b is output 0 as well.
    name_next(&mut s, s1, "bc", Some(("HcomBroadcast", 0)));
    collective(&mut s, CollectiveOp::Broadcast { root: 0 }, b, b, s1);
    s.memset_async(D, b, 4096, 9, 4096, s2).unwrap();
    s.sync_device(D).unwrap();
    let sides = hccl_sides(&s);
    assert!(!sides.is_empty(), "{:?}", races(&s));
    for t in sides {
        assert_eq!(t["operand"], "output 0");
        assert_eq!(t["node"], "bc");
        assert_eq!(t["op"], "HcomBroadcast");
    }
}

/// The collective on `s1` writing b, racing with a copy reading b on `s2`; `before`
/// issues whatever naming calls the test wants on `s1` first.
fn unnamed_race(before: impl FnOnce(&mut Sim, Id, u64)) -> Vec<Value> {
    let mut s = sim("");
    let (a, b, s1, s2) = setup(&mut s);
    before(&mut s, s1, a);
    collective(&mut s, CollectiveOp::AllReduce(ReduceOp::Sum), a, b, s1);
    copy(&mut s, a, b, 4096, s2);
    s.sync_device(D).unwrap();
    let sides = hccl_sides(&s);
    assert!(!sides.is_empty(), "{:?}", races(&s));
    sides
}

#[test]
fn a_collective_without_the_side_channel_keeps_the_hccl_call_and_its_buffers() {
    // Nothing named (a loader that does not know the extension): the old labels.
    for t in unnamed_race(|_, _, _| {}) {
        assert_eq!(t["op"], "HcclAllReduce");
        assert!(t["node"].is_null());
        assert!(
            t["operand"] == "receive buffer" || t["operand"] == "send buffer",
            "{t}"
        );
    }
    // A name alone: the node, but still the call and its buffers.
    for t in unnamed_race(|s, s1, _| s.set_task_name(D, s1, "ar").unwrap()) {
        assert_eq!(t["op"], "HcclAllReduce");
        assert_eq!(t["node"], "ar");
        assert!(t["operand"].as_str().unwrap().ends_with(" buffer"), "{t}");
    }
    // An empty op type keeps the call's name but gives the pair.
    for t in unnamed_race(|s, s1, _| s.set_hccl_task(D, s1, "", 2).unwrap()) {
        assert_eq!(t["op"], "HcclAllReduce");
        assert!(
            t["operand"] == "output 2" || t["operand"] == "input 2",
            "{t}"
        );
    }
}

#[test]
fn a_stale_or_rejected_name_does_not_name_a_later_collective() {
    // Meant for a collective, but a copy came first on the stream: dropped.
    for t in unnamed_race(|s, s1, a| {
        name_next(s, s1, "stale", Some(("HcomAllReduce", 3)));
        copy(s, a, a, 4, s1);
    }) {
        assert_eq!(t["op"], "HcclAllReduce");
        assert!(t["node"].is_null(), "{t}");
        assert!(t["operand"].as_str().unwrap().ends_with(" buffer"), "{t}");
    }
    // A collective the simulator rejects (an unknown data type) takes its names with it.
    for t in unnamed_race(|s, s1, a| {
        name_next(s, s1, "rejected", Some(("HcomAllReduce", 3)));
        let comm = s.comm_init_all(&[0]).unwrap()[0];
        let op = CollectiveOp::AllReduce(ReduceOp::Sum);
        assert!(s
            .collective("HcclTest", comm, op, a, a, 4, 999, s1)
            .is_err());
    }) {
        assert!(t["node"].is_null(), "{t}");
        assert!(t["operand"].as_str().unwrap().ends_with(" buffer"), "{t}");
    }
}

#[test]
fn naming_an_unknown_stream_is_an_error_not_a_panic() {
    let mut s = sim("");
    let bogus: Id = 0xdead_beef;
    assert!(s.set_task_name(D, bogus, "x").is_err());
    assert!(s.set_hccl_task(D, bogus, "HcomAllReduce", 0).is_err());
}

/// Pinned host memory (`aclrtMallocHost`) as an H2D copy's source: the copy reads it when
/// it runs, so freeing it while the copy is queued is a free in use and the copy's read
/// a use after free; freed after a synchronize, nothing is reported.
#[test]
fn a_pinned_copy_source_freed_before_the_copy_ran_is_caught() {
    for synchronise_first in [false, true] {
        let mut s = sim("");
        let (a, _, s1, _) = setup(&mut s);
        let host = 0x7000_0000_0000;
        s.race_host_alloc(host, 64);
        let bytes: std::sync::Arc<[u8]> = std::sync::Arc::from(vec![7u8; 64]);
        s.memcpy_async_to_device(D, a, 64, CopySource::Pinned { addr: host, bytes }, 64, s1)
            .unwrap();
        if synchronise_first {
            s.sync_stream(D, s1, -1).unwrap();
        }
        s.race_free(host, 64);
        s.sync_device(D).unwrap();
        let kinds = kinds(&s);
        if synchronise_first {
            assert!(kinds.is_empty(), "{kinds:?}");
        } else {
            assert!(kinds.contains(&"free-while-in-use".to_owned()), "{kinds:?}");
            assert!(kinds.contains(&"use-after-free".to_owned()), "{kinds:?}");
        }
    }
}

/// A synchronous D2H copy is a host read: before the host synchronised with the device
/// copy that writes its source, the two are unordered; after, they are not.
#[test]
fn a_d2h_read_before_the_writer_is_synchronised_is_a_race() {
    for synchronise_first in [false, true] {
        let mut s = sim("");
        let (a, b, s1, _) = setup(&mut s);
        copy(&mut s, b, a, 64, s1);
        if synchronise_first {
            s.sync_stream(D, s1, -1).unwrap();
        }
        s.memcpy_d2h(64, b, 64, "test").unwrap();
        s.sync_device(D).unwrap();
        let kinds = kinds(&s);
        if synchronise_first {
            assert!(kinds.is_empty(), "{kinds:?}");
        } else {
            assert!(!kinds.is_empty(), "an unordered host read of `b`");
        }
    }
}
