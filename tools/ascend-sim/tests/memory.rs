//! Device memory through the C ABI: alignment, rounding, bounds, poison, use after free,
//! capacity, copies of every kind.

mod common;
use common::*;
use std::ptr::null_mut;

#[test]
fn malloc_is_aligned_rounded_and_poisoned() {
    let (_g, s) = Sim::lock("");
    let a = s.malloc(1);
    let b = s.malloc(100);
    assert_eq!(a as u64 % 64, 0);
    assert_eq!(b as u64 % 64, 0);
    assert!(
        a as u64 >= 0x1000_0000_0000,
        "device addresses are fake, not host pointers"
    );
    // 1 byte occupies 32 + 32: the whole rounded size is addressable, one more byte is not.
    assert_eq!(
        s.d2h(a, 64),
        vec![0xA5; 64],
        "fresh memory holds the poison byte"
    );
    let mut buf = [0u8; 65];
    let r = unsafe { (s.acl.aclrtMemcpy)(buf.as_mut_ptr().cast(), 65, a, 65, D2H) };
    assert_eq!(r, 100000);
    let m = s.msg();
    assert!(
        m.contains("runs past the end") && m.contains("64 bytes (1 requested)"),
        "{m}"
    );
    // 100 -> 128 + 32 = 160.
    assert_eq!(s.d2h(b, 160).len(), 160);
    let r = unsafe {
        (s.acl.aclrtMemcpy)(
            buf.as_mut_ptr().cast(),
            65,
            b.wrapping_byte_add(150),
            11,
            D2H,
        )
    };
    assert_eq!(r, 100000, "{}", s.msg());
}

#[test]
fn use_after_free_and_double_free_are_reported() {
    let (_g, s) = Sim::lock("");
    let a = s.malloc(256);
    s.h2d(a, &[7u8; 256]);
    s.ok(unsafe { (s.acl.aclrtFree)(a) });
    let mut buf = [0u8; 4];
    let r = unsafe { (s.acl.aclrtMemcpy)(buf.as_mut_ptr().cast(), 4, a, 4, D2H) };
    assert_eq!(r, 100000);
    assert!(s.msg().contains("use after free"));
    assert_eq!(unsafe { (s.acl.aclrtFree)(a) }, 207002);
    assert!(s.msg().contains("not the start of a live allocation"));
    // A task issued before the free that runs after it fails at the sync, naming the range.
    let b = s.malloc(64);
    let c = s.malloc(64);
    let st = s.stream();
    s.d2d_async(c, b, 64, st);
    s.ok(unsafe { (s.acl.aclrtFree)(b) });
    assert_eq!(s.sync(st), 507015);
    let m = s.msg();
    assert!(m.contains("use after free") && m.contains("D2D"), "{m}");
}

#[test]
fn size_zero_capacity_and_policy() {
    let (_g, s) = Sim::lock("memory_bytes=4096");
    let mut p = null_mut();
    assert_eq!(unsafe { (s.acl.aclrtMalloc)(&mut p, 0, 0) }, 100000);
    assert!(s.msg().contains("size 0"));
    assert_eq!(unsafe { (s.acl.aclrtMalloc)(&mut p, 16, 9) }, 100000);
    s.msg();
    let a = s.malloc(4000); // 4000 -> 4032 of 4096
    assert_eq!(unsafe { (s.acl.aclrtMalloc)(&mut p, 64, 0) }, 207001);
    assert!(s.msg().contains("out of device memory"));
    s.ok(unsafe { (s.acl.aclrtFree)(a) });
    let _ = s.malloc(4000);
    assert_eq!(unsafe { (s.acl.aclrtMalloc)(null_mut(), 64, 0) }, 100000);
    assert!(s.msg().contains("devPtr is NULL"));
}

#[test]
fn copy_kinds_dest_max_and_memset() {
    let (_g, s) = Sim::lock("");
    let a = s.malloc(64);
    let b = s.malloc(64);
    let data: Vec<u8> = (0..64).collect();
    // DEFAULT (4) finds the direction from the addresses.
    s.ok(unsafe { (s.acl.aclrtMemcpy)(a, 64, data.as_ptr().cast(), 64, 4) });
    s.ok(unsafe { (s.acl.aclrtMemcpy)(b, 64, a, 64, 4) });
    assert_eq!(s.d2h(b, 64), data);
    // A kind that contradicts the pointers is refused, so a fake address is never read as
    // host memory.
    assert_eq!(unsafe { (s.acl.aclrtMemcpy)(a, 64, b, 64, H2D) }, 100000);
    assert!(s.msg().contains("does not match"));
    assert_eq!(
        unsafe { (s.acl.aclrtMemcpy)(a, 64, data.as_ptr().cast(), 64, 7) },
        100000
    );
    s.msg();
    assert_eq!(
        unsafe { (s.acl.aclrtMemcpy)(a, 16, data.as_ptr().cast(), 32, H2D) },
        100000
    );
    assert!(s.msg().contains("exceeds destMax"));
    let mut h = [0u8; 8];
    s.ok(unsafe { (s.acl.aclrtMemcpy)(h.as_mut_ptr().cast(), 8, data.as_ptr().cast(), 8, 0) });
    assert_eq!(&h, &data[..8]);
    s.ok(unsafe { (s.acl.aclrtMemset)(a, 64, 0x3C, 10) });
    assert_eq!(
        &s.d2h(a, 11)[..],
        &[0x3C, 0x3C, 0x3C, 0x3C, 0x3C, 0x3C, 0x3C, 0x3C, 0x3C, 0x3C, 10]
    );
    // Async: D2H lands in host memory when the stream is synchronized.
    let st = s.stream();
    s.ok(unsafe { (s.acl.aclrtMemsetAsync)(b, 64, 1, 64, st) });
    let mut out = vec![0u8; 64];
    s.ok(unsafe { (s.acl.aclrtMemcpyAsync)(out.as_mut_ptr().cast(), 64, b, 64, D2H, st) });
    s.ok(s.sync(st));
    assert_eq!(out, vec![1u8; 64]);
}

#[test]
fn host_memory_is_real() {
    let (_g, s) = Sim::lock("");
    let mut p = null_mut();
    s.ok(unsafe { (s.acl.aclrtMallocHost)(&mut p, 100) });
    assert!((p as u64) < 0x1000_0000_0000 || (p as u64) > 0x1000_0000_0000 + (8u64 << 40));
    unsafe { std::ptr::write_bytes(p.cast::<u8>(), 9, 100) };
    let d = s.malloc(100);
    s.ok(unsafe { (s.acl.aclrtMemcpy)(d, 100, p, 100, H2D) });
    assert_eq!(s.d2h(d, 100), vec![9u8; 100]);
    s.ok(unsafe { (s.acl.aclrtFreeHost)(p) });
    assert_eq!(unsafe { (s.acl.aclrtFreeHost)(p) }, 100000);
    s.msg();
}
