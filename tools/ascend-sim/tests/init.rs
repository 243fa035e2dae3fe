//! Before aclInit every call is ACL_ERROR_UNINITIALIZE; aclInit works once per process.
//! (A binary of its own: the other tests share an initialised simulator.)

mod common;
use common::*;
use std::ptr::null_mut;

#[test]
fn calls_before_init_and_after_finalize_are_refused() {
    let s = sim();
    let mut n = 0;
    assert_eq!(unsafe { (s.acl.aclrtGetDeviceCount)(&mut n) }, 100001);
    assert!(s.msg().contains("aclInit has not been called"));
    assert_eq!(unsafe { (s.acl.aclrtSetDevice)(0) }, 100001);
    // Configuration is allowed before init.
    s.configure("device_count=3;max_streams=2");
    assert_eq!(unsafe { (s.acl.aclInit)(std::ptr::null()) }, 0);
    assert_eq!(unsafe { (s.acl.aclInit)(std::ptr::null()) }, 100002);
    s.msg();
    s.ok(unsafe { (s.acl.aclrtGetDeviceCount)(&mut n) });
    assert_eq!(n, 3);
    s.set_device(0);
    let mut st = null_mut();
    s.ok(unsafe { (s.acl.aclrtCreateStream)(&mut st) });
    assert_eq!(unsafe { (s.acl.aclrtCreateStream)(&mut st) }, 207008);
    s.msg();
    s.ok(unsafe { (s.acl.aclFinalize)() });
    assert_eq!(unsafe { (s.acl.aclrtSetDevice)(0) }, 100001);
    assert_eq!(unsafe { (s.acl.aclInit)(std::ptr::null()) }, 100002);
    s.msg();
}
