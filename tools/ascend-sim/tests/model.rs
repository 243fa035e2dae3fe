//! Model runtime instances through the C ABI: capture between BuildBegin and BuildEnd,
//! replay per ExecuteAsync, labels and a loop, HEAD and DEFAULT streams, activation.

mod common;
use common::*;
use std::ptr::null_mut;

fn label(s: &Sim) -> P {
    let mut l = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateLabel)(&mut l) });
    l
}

fn label_list(s: &Sim, labels: &[P]) -> P {
    let mut l = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateLabelList)(labels.as_ptr(), labels.len(), &mut l) });
    l
}

fn begin(s: &Sim) -> P {
    let mut ri = null_mut();
    s.ok(unsafe { (s.acl.aclmdlRIBuildBegin)(&mut ri, 0) });
    ri
}

/// A loop on one HEAD stream: the body shifts a 5-word register left by one word, then
/// LabelSwitchByIndex reads word 0 and jumps back to the body (1) or out (0).
#[test]
fn a_label_loop_runs_until_its_index_says_stop_and_replays() {
    let (_g, s) = Sim::lock("");
    let reg = s.malloc(20);
    let st = s.stream();
    let exec = s.stream();
    let (body, exit) = (label(s), label(s));
    let list = label_list(s, &[exit, body]);
    let ri = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, st, HEAD) });
    s.ok(unsafe { (s.acl.aclrtSetLabel)(body, st) });
    s.d2d_async(reg, reg.wrapping_byte_add(4), 16, st);
    s.ok(unsafe { (s.acl.aclrtSwitchLabelByIndex)(reg, 2, list, st) });
    s.ok(unsafe { (s.acl.aclrtSetLabel)(exit, st) });
    s.ok(unsafe { (s.acl.aclmdlRIEndTask)(ri, st) });
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri, null_mut()) });
    for (start, iterations) in [
        ([1, 1, 1, 0, 0], 3u64),
        ([1, 1, 1, 1, 0], 4),
        ([0, 0, 0, 0, 0], 1),
    ] {
        s.h2d(reg, &i32s(&start));
        s.configure("clear_report=1");
        s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri, exec) });
        s.ok(s.sync(exec));
        let rep = s.report();
        assert_eq!(
            rep["tasks_by_kind"]["memcpy"], iterations,
            "{start:?}: {rep}"
        );
        assert_eq!(rep["tasks_by_kind"]["label_switch"], iterations);
        assert_eq!(rep["tasks_by_kind"]["model_execute"], 1);
        assert_eq!(rep["tasks_by_kind"]["end_graph"], 1);
    }
    // Tasks issued to a built model's stream are refused.
    s.d2d_async_expect(s, reg, st, 107005);
    s.ok(unsafe { (s.acl.aclmdlRIDestroy)(ri) });
}

trait Expect {
    fn d2d_async_expect(&self, s: &Sim, buf: P, st: P, code: i32);
}

impl Expect for Sim {
    fn d2d_async_expect(&self, s: &Sim, buf: P, st: P, code: i32) {
        let r = unsafe { (s.acl.aclrtMemcpyAsync)(buf, 4, buf.wrapping_byte_add(4), 4, D2D, st) };
        assert_eq!(r, code);
        assert!(!s.msg().is_empty());
    }
}

#[test]
fn a_label_must_be_set_on_the_stream_that_jumps_to_it() {
    let (_g, s) = Sim::lock("");
    let idx = s.malloc(4);
    let (a, b) = (s.stream(), s.stream());
    let l = label(s);
    let list = label_list(s, &[l]);
    let ri = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, a, HEAD) });
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, b, HEAD) });
    s.ok(unsafe { (s.acl.aclrtSetLabel)(l, b) });
    s.ok(unsafe { (s.acl.aclrtSwitchLabelByIndex)(idx, 1, list, a) });
    assert_eq!(unsafe { (s.acl.aclmdlRIBuildEnd)(ri, null_mut()) }, 107000);
    let m = s.msg();
    assert!(m.contains("which is set on device 0 stream 1"), "{m}");
    // Labels exist only inside a model.
    let c = s.stream();
    assert_eq!(unsafe { (s.acl.aclrtSetLabel)(l, c) }, 107005);
    s.msg();
    assert_eq!(unsafe { (s.acl.aclmdlRIBindStream)(ri, c, 5) }, 100000);
    s.msg();
}

/// HEAD stream h copies A to X, then activates DEFAULT stream d, which copies X to Y: d
/// runs only when activated, and each run replays from a clean state.
#[test]
fn default_streams_run_when_activated() {
    let (_g, s) = Sim::lock("");
    let (a, x, y) = (s.malloc(64), s.malloc(64), s.malloc(64));
    let (h, d, exec) = (s.stream(), s.stream(), s.stream());
    let ri = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, h, HEAD) });
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, d, DEFAULT) });
    s.d2d_async(x, a, 64, h);
    s.ok(unsafe { (s.acl.aclrtActiveStream)(d, h) });
    s.ok(unsafe { (s.acl.aclmdlRIEndTask)(ri, h) });
    s.d2d_async(y, x, 64, d);
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri, null_mut()) });
    for v in [5u8, 6] {
        s.h2d(a, &[v; 64]);
        s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri, exec) });
        s.ok(s.sync(exec));
        assert_eq!(s.d2h(y, 64), vec![v; 64]);
    }
    let rep = s.report();
    assert_eq!(rep["tasks_by_kind"]["stream_active"], 2);
    assert_eq!(rep["tasks_by_kind"]["model_execute"], 2);
}

/// A While-like shape: h activates body stream b, waits for b's event, resets it, and
/// activates b again; each activation of b shifts a register once. Activating b while it
/// still runs is an error of the run.
#[test]
fn a_stream_can_be_activated_again_once_idle_but_not_while_running() {
    let (_g, s) = Sim::lock("");
    let reg = s.malloc(16);
    let (h, b, exec) = (s.stream(), s.stream(), s.stream());
    let e = s.event();
    let ri = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, h, HEAD) });
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, b, DEFAULT) });
    for _ in 0..2 {
        s.ok(unsafe { (s.acl.aclrtActiveStream)(b, h) });
        s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(h, e) });
        s.ok(unsafe { (s.acl.aclrtResetEvent)(e, h) });
    }
    s.d2d_async(reg, reg.wrapping_byte_add(4), 12, b);
    s.ok(unsafe { (s.acl.aclrtRecordEvent)(e, b) });
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri, null_mut()) });
    s.h2d(reg, &i32s(&[1, 2, 3, 4]));
    s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri, exec) });
    s.ok(s.sync(exec));
    assert_eq!(s.d2h(reg, 8), i32s(&[3, 4]));

    // The same body activated twice in a row, with no wait between.
    let (h2, b2, _) = (s.stream(), s.stream(), ());
    let ri2 = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri2, h2, HEAD) });
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri2, b2, DEFAULT) });
    s.ok(unsafe { (s.acl.aclrtActiveStream)(b2, h2) });
    s.ok(unsafe { (s.acl.aclrtActiveStream)(b2, h2) });
    let big = s.malloc(1 << 20);
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(big, 1 << 20, 0, 1 << 20, b2) });
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri2, null_mut()) });
    s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri2, exec) });
    assert_eq!(s.sync(exec), 507011);
    let m = s.msg();
    assert!(m.contains("activated while it is still running"), "{m}");
}

#[test]
fn stream_switch_activates_only_when_the_condition_holds() {
    let (_g, s) = Sim::lock("");
    let (l, r, out) = (s.malloc(4), s.malloc(4), s.malloc(4));
    let (h, t, exec) = (s.stream(), s.stream(), s.stream());
    let ri = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, h, HEAD) });
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, t, DEFAULT) });
    s.ok(unsafe {
        (s.acl.aclrtSwitchStream)(l, 4 /* LESS */, r, 0, t, null_mut(), h)
    });
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(out, 4, 9, 4, t) });
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri, null_mut()) });
    for (lv, rv, expect) in [(5, 3, 0u8), (2, 3, 9u8)] {
        s.h2d(out, &[0; 4]);
        s.h2d(l, &i32s(&[lv]));
        s.h2d(r, &i32s(&[rv]));
        s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri, exec) });
        s.ok(s.sync(exec));
        assert_eq!(s.d2h(out, 4), vec![expect; 4], "{lv} < {rv}");
    }
    assert_eq!(
        unsafe { (s.acl.aclrtSwitchStream)(l, 9, r, 0, t, null_mut(), h) },
        100000
    );
    s.msg();
}

#[test]
fn a_model_blocked_forever_returns_instead_of_hanging() {
    let (_g, s) = Sim::lock("");
    let (h, exec) = (s.stream(), s.stream());
    let e = s.event();
    let ri = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri, h, HEAD) });
    s.ok(unsafe { (s.acl.aclrtStreamWaitEvent)(h, e) });
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri, null_mut()) });
    s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri, exec) });
    assert_eq!(
        unsafe { (s.acl.aclrtSynchronizeStreamWithTimeout)(exec, 5000) },
        507046
    );
    let m = s.msg();
    assert!(
        m.contains("device 0 stream 0 waits for event #0") && m.contains("runs a model"),
        "{m}"
    );
    // A model that loops forever stops at the watchdog.
    let reg = s.malloc(4);
    s.h2d(reg, &i32s(&[0]));
    let st = s.stream();
    let top = label(s);
    let list = label_list(s, &[top]);
    let ri2 = begin(s);
    s.ok(unsafe { (s.acl.aclmdlRIBindStream)(ri2, st, HEAD) });
    s.ok(unsafe { (s.acl.aclrtSetLabel)(top, st) });
    s.ok(unsafe { (s.acl.aclrtSwitchLabelByIndex)(reg, 1, list, st) });
    s.ok(unsafe { (s.acl.aclmdlRIBuildEnd)(ri2, null_mut()) });
    s.configure("watchdog_tasks=10000");
    let exec2 = s.stream();
    s.ok(unsafe { (s.acl.aclmdlRIExecuteAsync)(ri2, exec2) });
    assert_eq!(s.sync(exec2), 507046);
    assert!(s.msg().contains("gave up after 10000 tasks"));
}
