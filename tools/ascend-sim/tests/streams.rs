//! Streams, events and notifies through the C ABI: in-order queues, the three event
//! modes, record/wait ordering, overlap that corrupts visibly, deadlocks that return.

mod common;
use common::*;
use std::ptr::null_mut;

const MB: usize = 1 << 20;

/// Stream `p` copies `src` (1 MiB) to `x`; stream `c` first copies 1 MiB of scratch, then
/// copies the first 64 bytes of `x` to `y`. With `ordered`, `p` records an event after its
/// copy and `c` waits for it before its own. Returns y's bytes.
fn producer_consumer(s: &Sim, seed: u64, ordered: bool) -> Vec<u8> {
    s.configure(&format!("reset=1;seed={seed}"));
    s.set_device(0);
    let (src, x, y) = (s.malloc(MB), s.malloc(MB), s.malloc(64));
    let (scratch_a, scratch_b) = (s.malloc(MB), s.malloc(MB));
    s.ok(unsafe { (s.acl.aclrtMemset)(src, MB, 0x11, MB) });
    s.ok(unsafe { (s.acl.aclrtMemset)(x, MB, 0x00, MB) });
    let (p, c) = (s.stream(), s.stream());
    let e = s.event();
    s.d2d_async(x, src, MB, p);
    if ordered {
        s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, p) });
    }
    s.d2d_async(scratch_b, scratch_a, MB, c);
    if ordered {
        s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(c, e) });
        s.ok(unsafe { (s.acl.aclrtResetEvent)(e, c) });
    }
    s.d2d_async(y, x, 64, c);
    s.ok(s.sync(p));
    s.ok(s.sync(c));
    s.d2h(y, 64)
}

#[test]
fn unordered_overlap_differs_between_seeds_and_an_event_fixes_it() {
    let (_g, s) = Sim::lock("");
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40 {
        seen.insert(producer_consumer(s, seed, false)[0]);
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        vec![0x00, 0x11],
        "some seeds read before the write, some after"
    );
    for seed in 0..40 {
        assert_eq!(
            producer_consumer(s, seed, true),
            vec![0x11; 64],
            "seed {seed}"
        );
    }
}

#[test]
fn a_stream_is_in_order() {
    let (_g, s) = Sim::lock("mode=reverse");
    let (a, b) = (s.malloc(64), s.malloc(64));
    let st = s.stream();
    for v in 1..=20 {
        s.ok(unsafe { (s.acl.aclrtMemsetAsync)(a, 64, v, 64, st) });
        s.d2d_async(b, a, 64, st);
    }
    s.ok(s.sync(st));
    assert_eq!(s.d2h(b, 64), vec![20u8; 64]);
    let rep = s.report();
    assert_eq!(rep["tasks_by_kind"]["memset"], 20);
    assert_eq!(rep["tasks_by_kind"]["memcpy"], 20);
    assert!(rep["makespan_ns"].as_u64().unwrap() > 40 * 1500);
}

#[test]
fn streams_overlap_in_simulated_time() {
    let (_g, s) = Sim::lock("mode=max-overlap;trace=1");
    let bufs: Vec<P> = (0..4).map(|_| s.malloc(MB)).collect();
    let streams: Vec<P> = (0..4).map(|_| s.stream()).collect();
    for (b, st) in bufs.iter().zip(&streams) {
        s.ok(unsafe { (s.acl.aclrtMemsetAsync)(*b, MB, 1, MB, *st) });
    }
    for st in &streams {
        s.ok(s.sync(*st));
    }
    let rep = s.report();
    let trace = rep["trace"].as_array().unwrap();
    assert_eq!(trace.len(), 4);
    // No jitter: all four start at once and end together.
    assert!(trace
        .iter()
        .all(|t| t["start_ns"] == trace[0]["start_ns"] && t["end_ns"] == trace[0]["end_ns"]));
    assert_eq!(
        rep["makespan_ns"],
        trace[0]["end_ns"].as_u64().unwrap() - trace[0]["start_ns"].as_u64().unwrap()
    );
}

#[test]
fn delay_stream_mode_slows_one_stream() {
    let (_g, s) = Sim::lock("mode=delay-stream:1;jitter=0");
    let b = s.malloc(64);
    let (s0, s1) = (s.stream(), s.stream());
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(b, 64, 1, 64, s0) });
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(b, 64, 2, 64, s1) });
    s.ok(s.sync(s0));
    s.ok(s.sync(s1));
    let rep = s.report();
    let busy: Vec<u64> = rep["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["busy_ns"].as_u64().unwrap())
        .collect();
    assert_eq!(busy.len(), 2);
    assert_eq!(busy[1], busy[0] * 50, "{rep}");
    assert_eq!(s.d2h(b, 1), vec![2], "the slow stream wrote last");
}

#[test]
fn deadlock_returns_507046_naming_the_blocked_streams() {
    let (_g, s) = Sim::lock("");
    let (a, b) = (s.stream(), s.stream());
    let (e1, e2) = (s.event(), s.event());
    // a waits for e2, which b records only after waiting for e1, which a records after its wait.
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(a, e2) });
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e1, a) });
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(b, e1) });
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e2, b) });
    assert_eq!(s.sync(a), 507046);
    let m = s.msg();
    assert!(m.contains("deadlock"), "{m}");
    assert!(
        m.contains("device 0 stream 0 waits for event #1")
            && m.contains("device 0 stream 1 waits for event #0"),
        "{m}"
    );
    assert_eq!(s.msg(), "", "reading the message cleared it");
    assert_eq!(
        unsafe { (s.acl.aclrtSynchronizeEventWithTimeout)(e2, -1) },
        507047
    );
    assert!(s.msg().contains("waits for event"));
    assert_eq!(unsafe { (s.acl.aclrtSynchronizeDevice)() }, 507046);
    s.msg();
    let mut st = 0;
    s.ok(unsafe { (s.acl.aclrtStreamQuery)(a, &mut st) });
    assert_eq!(st, 1, "NOT_READY");
}

#[test]
fn timeouts_are_simulated_time_bounds() {
    let (_g, s) = Sim::lock("jitter=0");
    let big = s.malloc(1 << 30);
    let st = s.stream();
    // 1 GiB at 1.6 TB/s is about 0.67 ms.
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(big, 1 << 30, 0, 1 << 30, st) });
    assert_eq!(
        unsafe { (s.acl.aclrtSynchronizeStreamWithTimeout)(st, 0) },
        507046
    );
    assert!(s.msg().contains("timed out"));
    s.ok(unsafe { (s.acl.aclrtSynchronizeStreamWithTimeout)(st, 1) });
    assert_eq!(
        unsafe { (s.acl.aclrtSynchronizeStreamWithTimeout)(st, -5) },
        100000
    );
    s.msg();
}

#[test]
fn sync_events_are_latches_that_reset_clears() {
    let (_g, s) = Sim::lock("");
    let (a, b) = (s.stream(), s.stream());
    let e = s.event();
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, a) });
    s.ok(s.sync(a));
    let mut st = -1;
    s.ok(unsafe { (s.acl.aclrtQueryEventStatus)(e, &mut st) });
    assert_eq!(st, 1, "COMPLETE");
    // Set stays set: two waits pass.
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(b, e) });
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(b, e) });
    s.ok(unsafe { (s.acl.aclrtResetEvent)(e, b) });
    s.ok(s.sync(b));
    s.ok(unsafe { (s.acl.aclrtQueryEventStatus)(e, &mut st) });
    assert_eq!(st, 0, "NOT_READY after the reset");
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(b, e) });
    assert_eq!(s.sync(b), 507046);
    assert!(s.msg().contains("waits for event #0"));
    // Without the SYNC flag no stream may wait.
    let mut t = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateEventWithFlag)(&mut t, 0x8) });
    assert_eq!(unsafe { (s.acl.aclrtStreamWaitEvent)(a, t) }, 107000);
    assert!(s.msg().contains("without ACL_EVENT_SYNC"));
    assert_eq!(
        unsafe { (s.acl.aclrtCreateEventWithFlag)(&mut t, 0) },
        100000
    );
    assert_eq!(
        unsafe { (s.acl.aclrtCreateEventWithFlag)(&mut t, 0x1000) },
        100000
    );
    s.msg();
}

#[test]
fn plain_events_cannot_be_reset() {
    let (_g, s) = Sim::lock("");
    let a = s.stream();
    let mut e = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateEvent)(&mut e) });
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, a) });
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(a, e) });
    s.ok(s.sync(a));
    assert_eq!(unsafe { (s.acl.aclrtResetEvent)(e, a) }, 207000);
    assert!(s.msg().contains("undefined behaviour"));
}

#[test]
fn ex_events_follow_cuda_semantics() {
    let (_g, s) = Sim::lock("");
    let (p, c) = (s.stream(), s.stream());
    let mut e = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateEventExWithFlag)(&mut e, 1) });
    // Never recorded: complete.
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(c, e) });
    s.ok(s.sync(c));
    assert_eq!(unsafe { (s.acl.aclrtResetEvent)(e, c) }, 207000);
    assert!(s.msg().contains("cannot be reset"));
    let mut st = 0;
    assert_eq!(unsafe { (s.acl.aclrtQueryEventStatus)(e, &mut st) }, 207000);
    s.msg();
    // A wait is for the latest record issued before it, and each record replaces the last.
    let (src, x, y) = (s.malloc(MB), s.malloc(MB), s.malloc(64));
    s.ok(unsafe { (s.acl.aclrtMemset)(src, MB, 0x22, MB) });
    s.ok(unsafe { (s.acl.aclrtMemset)(x, MB, 0, MB) });
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, p) });
    s.d2d_async(x, src, MB, p);
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, p) });
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(c, e) });
    s.d2d_async(y, x, 64, c);
    s.ok(s.sync(c));
    assert_eq!(s.d2h(y, 64), vec![0x22; 64]);
    s.ok(unsafe { (s.acl.aclrtSynchronizeEvent)(e) });
}

#[test]
fn notifies_are_set_by_record_and_cleared_by_the_wait() {
    let (_g, s) = Sim::lock("");
    let (a, b) = (s.stream(), s.stream());
    let mut n = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateNotify)(&mut n, 0) });
    let (src, x, y) = (s.malloc(MB), s.malloc(MB), s.malloc(64));
    s.ok(unsafe { (s.acl.aclrtMemset)(src, MB, 0x33, MB) });
    s.ok(unsafe { (s.acl.aclrtMemset)(x, MB, 0, MB) });
    s.ok(unsafe { (s.acl.aclrtWaitAndResetNotify)(n, b, 0) });
    s.d2d_async(y, x, 64, b);
    s.d2d_async(x, src, MB, a);
    s.ok(unsafe { (s.acl.aclrtRecordNotify)(n, a) });
    s.ok(s.sync(b));
    assert_eq!(s.d2h(y, 64), vec![0x33; 64]);
    // The wait reset it: a second wait blocks for good.
    s.ok(unsafe { (s.acl.aclrtWaitAndResetNotify)(n, b, 0) });
    assert_eq!(s.sync(b), 507046);
    assert!(s.msg().contains("waits for notify #0"));
    assert_eq!(unsafe { (s.acl.aclrtCreateNotify)(&mut n, 5) }, 100000);
    s.msg();
}

#[test]
fn query_lets_simulated_time_pass_in_steps() {
    let (_g, s) = Sim::lock("jitter=0");
    let big = s.malloc(64 << 20);
    let st = s.stream();
    let e = s.event();
    // 64 MiB at 1.6 TB/s: about 42 us, more than one 10 us poll.
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(big, 64 << 20, 0, 64 << 20, st) });
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, st) });
    let mut status = -1;
    s.ok(unsafe { (s.acl.aclrtQueryEventStatus)(e, &mut status) });
    assert_eq!(status, 0);
    let mut polls = 1;
    loop {
        let mut q = -1;
        s.ok(unsafe { (s.acl.aclrtStreamQuery)(st, &mut q) });
        if q == 0 {
            break;
        }
        polls += 1;
        assert!(polls < 100);
    }
    assert!((4..=6).contains(&polls), "{polls} polls");
    s.ok(unsafe { (s.acl.aclrtQueryEventStatus)(e, &mut status) });
    assert_eq!(status, 1);
}
