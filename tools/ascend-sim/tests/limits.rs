//! Every resource limit returns its real code; bad handles, devices and enums are errors
//! with messages; the error message is per thread and cleared by reading.

mod common;
use common::*;
use std::ptr::null_mut;

#[test]
fn stream_limit_counts_the_default_stream() {
    let (_g, s) = Sim::lock("max_streams=4");
    let mut n = 0;
    s.ok(unsafe { (s.acl.aclrtGetStreamAvailableNum)(&mut n) });
    assert_eq!(n, 3);
    let streams: Vec<P> = (0..3).map(|_| s.stream()).collect();
    let mut st = null_mut();
    assert_eq!(unsafe { (s.acl.aclrtCreateStream)(&mut st) }, 207008);
    assert!(s.msg().contains("no stream left"));
    s.ok(unsafe { (s.acl.aclrtDestroyStream)(streams[0]) });
    s.ok(unsafe { (s.acl.aclrtCreateStream)(&mut st) });
    // Destroyed handles are recognised.
    assert_eq!(
        unsafe { (s.acl.aclrtSynchronizeStream)(streams[0]) },
        107017
    );
    assert!(s.msg().contains("stream handle") && s.msg().is_empty());
    assert_eq!(
        unsafe { (s.acl.aclrtCreateStreamWithConfig)(&mut st, 9, 0) },
        100000
    );
    assert_eq!(
        unsafe { (s.acl.aclrtCreateStreamWithConfig)(&mut st, 0, 0x400) },
        100000
    );
    assert_eq!(
        unsafe { (s.acl.aclrtCreateStreamWithConfig)(null_mut(), 0, 0) },
        100000
    );
    s.msg();
}

#[test]
fn event_notify_and_task_limits() {
    let (_g, s) = Sim::lock("max_events=2;max_notifies=1;max_tasks_per_stream=8");
    let _e = (s.event(), s.event());
    let mut e = null_mut();
    assert_eq!(
        unsafe { (s.acl.aclrtCreateEventWithFlag)(&mut e, 1) },
        207007
    );
    assert!(s.msg().contains("no event left"));
    let mut avail = 9;
    s.ok(unsafe { (s.acl.aclrtGetEventAvailNum)(&mut avail) });
    assert_eq!(avail, 0);
    let mut n = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateNotify)(&mut n, 0) });
    assert_eq!(unsafe { (s.acl.aclrtCreateNotify)(&mut n, 0) }, 207009);
    assert!(s.msg().contains("no notify left"));
    let buf = s.malloc(64);
    let st = s.stream();
    for _ in 0..8 {
        s.ok(unsafe { (s.acl.aclrtMemsetAsync)(buf, 64, 0, 64, st) });
    }
    assert_eq!(
        unsafe { (s.acl.aclrtMemsetAsync)(buf, 64, 0, 64, st) },
        507002
    );
    assert!(s.msg().contains("8 unfinished tasks"));
    s.ok(s.sync(st));
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(buf, 64, 0, 64, st) });
    s.ok(s.sync(st));
}

#[test]
fn devices_and_foreign_handles() {
    let (_g, s) = Sim::lock("device_count=2");
    let mut n = 0;
    s.ok(unsafe { (s.acl.aclrtGetDeviceCount)(&mut n) });
    assert_eq!(n, 2);
    assert_eq!(unsafe { (s.acl.aclrtSetDevice)(2) }, 107001);
    assert!(s.msg().contains("device 2 does not exist"));
    let st0 = s.stream();
    let e0 = s.event();
    s.set_device(1);
    // A stream of device 0 while device 1 is current.
    let buf = s.malloc(64);
    assert_eq!(
        unsafe { (s.acl.aclrtMemsetAsync)(buf, 64, 0, 64, st0) },
        107003
    );
    assert!(s
        .msg()
        .contains("belongs to device 0, but the current device is 1"));
    let st1 = s.stream();
    assert_eq!(unsafe { (s.acl.aclrtRecordEvent)(e0, st1) }, 107003);
    assert!(s.msg().contains("event #0 belongs to device 0"));
    // Device 1's addresses are its own range.
    assert!(buf as u64 >= 0x1000_0000_0000 + (1 << 40));
    // Reset releases the device's objects.
    s.ok(unsafe { (s.acl.aclrtResetDevice)(1) });
    assert_eq!(unsafe { (s.acl.aclrtSynchronizeStream)(st1) }, 107017);
    s.msg();
    let mut p = null_mut();
    assert_eq!(
        unsafe { (s.acl.aclrtMalloc)(&mut p, 64, 0) },
        107002,
        "no current device after its reset"
    );
    assert!(s.msg().contains("aclrtSetDevice"));
}

#[test]
fn the_error_message_is_per_thread_and_cleared_by_reading() {
    let (_g, s) = Sim::lock("");
    let mut p = null_mut();
    assert_eq!(unsafe { (s.acl.aclrtMalloc)(&mut p, 0, 0) }, 100000);
    let other = std::thread::spawn(|| sim().msg()).join().unwrap();
    assert_eq!(
        other, "",
        "another thread does not see this thread's message"
    );
    let first = s.msg();
    assert!(first.contains("size 0"));
    assert_eq!(s.msg(), "");
    // A thread without a current device.
    let code = std::thread::spawn(|| {
        let mut st = null_mut();
        unsafe { (sim().acl.aclrtCreateStream)(&mut st) }
    })
    .join()
    .unwrap();
    assert_eq!(code, 107002);
}

#[test]
fn repeat_init_and_bad_configuration() {
    let (_g, s) = Sim::lock("");
    assert_eq!(unsafe { (s.acl.aclInit)(std::ptr::null()) }, 100002);
    assert!(s.msg().contains("once per process"));
    for bad in [
        "mode=sideways",
        "jitter=2",
        "max_streams=0",
        "nonsense=1",
        "seed",
    ] {
        assert_eq!(
            unsafe { (s.acl.geSimConfigure)(c(bad).as_ptr()) },
            100000,
            "{bad}"
        );
        assert!(!s.msg().is_empty());
    }
    assert_eq!(
        unsafe { (s.acl.geSimConfigure)(c("device_count=4").as_ptr()) },
        100000
    );
    assert!(s.msg().contains("reset=1"));
}
