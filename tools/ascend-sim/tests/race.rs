//! The race detector on hand-issued device calls (the `Sim` methods behind the ACL entry
//! points): each race kind is found, with both tasks and the event that would have
//! ordered them; properly evented producers and consumers, host-synchronised reuse and
//! re-activated loop streams are not reported.

use ascendcl::config::{parse, Config};
use ascendcl::handles::Id;
use ascendcl::sim::{EventMode, Sim, BIND_HEAD};
use ascendcl::task::CopySource;
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
