//! HCCL through `libhccl.so` (a second name for the simulator library: the loader maps the
//! one file once, so communicators see the ACL devices and memory).

mod common;
use common::*;
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::ptr::null_mut;
use std::sync::OnceLock;

type CollFn = unsafe extern "C" fn(P, P, u64, i32, i32, P, P) -> i32;

struct Hccl {
    init_all: unsafe extern "C" fn(u32, *const i32, *mut P) -> i32,
    all_reduce: CollFn,
    reduce_scatter: CollFn,
    broadcast: unsafe extern "C" fn(P, u64, i32, u32, P, P) -> i32,
    all_gather: unsafe extern "C" fn(P, P, u64, i32, P, P) -> i32,
    rank_size: unsafe extern "C" fn(P, *mut u32) -> i32,
    rank_id: unsafe extern "C" fn(P, *mut u32) -> i32,
    get_root_info: unsafe extern "C" fn(*mut u8) -> i32,
    init_root_info: unsafe extern "C" fn(u32, *const u8, u32, *mut P) -> i32,
    destroy: unsafe extern "C" fn(P) -> i32,
}

fn hccl() -> &'static Hccl {
    static H: OnceLock<Hccl> = OnceLock::new();
    H.get_or_init(|| {
        let _ = sim(); // libascendcl.so first, as ge-run opens it
        let path = lib_path("libhccl.so");
        let lib = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_LOCAL) }.expect("libhccl.so");
        let lib: &'static Library = Box::leak(Box::new(lib));
        unsafe {
            Hccl {
                init_all: *lib.get(b"HcclCommInitAll\0").unwrap(),
                all_reduce: *lib.get(b"HcclAllReduce\0").unwrap(),
                reduce_scatter: *lib.get(b"HcclReduceScatter\0").unwrap(),
                broadcast: *lib.get(b"HcclBroadcast\0").unwrap(),
                all_gather: *lib.get(b"HcclAllGather\0").unwrap(),
                rank_size: *lib.get(b"HcclGetRankSize\0").unwrap(),
                rank_id: *lib.get(b"HcclGetRankId\0").unwrap(),
                get_root_info: *lib.get(b"HcclGetRootInfo\0").unwrap(),
                init_root_info: *lib.get(b"HcclCommInitRootInfo\0").unwrap(),
                destroy: *lib.get(b"HcclCommDestroy\0").unwrap(),
            }
        }
    })
}

const FP32: i32 = 4;
const INT32: i32 = 2;
const SUM: i32 = 0;
const MAX: i32 = 2;

struct Rank {
    send: P,
    recv: P,
    stream: P,
}

/// Sets up `n` ranks on devices 0..n, each with a send buffer holding `send(r)` and a
/// receive buffer of `recv_len` bytes, and one communicator across them.
fn ranks(
    s: &Sim,
    n: usize,
    send: impl Fn(usize) -> Vec<u8>,
    recv_len: usize,
) -> (Vec<Rank>, Vec<P>) {
    let mut out = Vec::new();
    for r in 0..n {
        s.set_device(r as i32);
        let data = send(r);
        let sb = s.malloc(data.len());
        s.h2d(sb, &data);
        out.push(Rank {
            send: sb,
            recv: s.malloc(recv_len),
            stream: s.stream(),
        });
    }
    let devices: Vec<i32> = (0..n as i32).collect();
    let mut comms = vec![null_mut(); n];
    assert_eq!(
        unsafe { (hccl().init_all)(n as u32, devices.as_ptr(), comms.as_mut_ptr()) },
        0,
        "{}",
        s.msg()
    );
    (out, comms)
}

fn finish(s: &Sim, ranks: &[Rank]) {
    for (r, rank) in ranks.iter().enumerate() {
        s.set_device(r as i32);
        s.ok(s.sync(rank.stream));
    }
}

#[test]
fn all_reduce_across_2_and_4_ranks() {
    let (_g, s) = Sim::lock("");
    for n in [2usize, 4] {
        s.configure("reset=1");
        let (rs, comms) = ranks(s, n, |r| f32s(&[r as f32 + 0.5, -(r as f32), 1.0]), 12);
        for (r, rank) in rs.iter().enumerate() {
            s.set_device(r as i32);
            let rc = unsafe {
                (hccl().all_reduce)(rank.send, rank.recv, 3, FP32, SUM, comms[r], rank.stream)
            };
            assert_eq!(rc, 0, "{}", s.msg());
        }
        finish(s, &rs);
        let total: f32 = (0..n).map(|r| r as f32 + 0.5).sum();
        let neg: f32 = (0..n).map(|r| -(r as f32)).sum();
        for (r, rank) in rs.iter().enumerate() {
            s.set_device(r as i32);
            assert_eq!(
                to_f32s(&s.d2h(rank.recv, 12)),
                vec![total, neg, n as f32],
                "rank {r} of {n}"
            );
        }
        let mut size = 0;
        let mut id = 0;
        assert_eq!(unsafe { (hccl().rank_size)(comms[n - 1], &mut size) }, 0);
        assert_eq!(unsafe { (hccl().rank_id)(comms[n - 1], &mut id) }, 0);
        assert_eq!((size, id), (n as u32, n as u32 - 1));
        assert_eq!(s.report()["tasks_by_kind"]["hccl"], n as u64);
    }
}

#[test]
fn broadcast_all_gather_and_reduce_scatter() {
    let (_g, s) = Sim::lock("");
    let (rs, comms) = ranks(
        s,
        3,
        |r| i32s(&[r as i32 * 10, r as i32 * 10 + 1, 7, -(r as i32)]),
        48,
    );
    for (r, rank) in rs.iter().enumerate() {
        s.set_device(r as i32);
        s.ok(unsafe { (hccl().all_gather)(rank.send, rank.recv, 4, INT32, comms[r], rank.stream) });
    }
    finish(s, &rs);
    s.set_device(2);
    assert_eq!(
        s.d2h(rs[2].recv, 48),
        i32s(&[0, 1, 7, 0, 10, 11, 7, -1, 20, 21, 7, -2])
    );
    // Reduce-scatter of the gathered 12 words (the same on every rank) with MAX: rank r
    // gets words 4r..4r+4 (every rank's copy is equal, so the max is the word).
    for (r, rank) in rs.iter().enumerate() {
        s.set_device(r as i32);
        s.ok(unsafe {
            (hccl().reduce_scatter)(rank.recv, rank.send, 4, INT32, MAX, comms[r], rank.stream)
        });
    }
    finish(s, &rs);
    s.set_device(1);
    assert_eq!(s.d2h(rs[1].send, 16), i32s(&[10, 11, 7, -1]));
    for (r, rank) in rs.iter().enumerate() {
        s.set_device(r as i32);
        s.ok(unsafe { (hccl().broadcast)(rank.send, 4, INT32, 2, comms[r], rank.stream) });
    }
    finish(s, &rs);
    for (r, rank) in rs.iter().enumerate() {
        s.set_device(r as i32);
        assert_eq!(s.d2h(rank.send, 16), i32s(&[20, 21, 7, -2]), "rank {r}");
    }
}

#[test]
fn a_rank_that_never_arrives_is_a_deadlock_not_a_hang() {
    let (_g, s) = Sim::lock("");
    let (rs, comms) = ranks(s, 2, |_| f32s(&[1.0]), 4);
    s.set_device(0);
    s.ok(unsafe {
        (hccl().all_reduce)(rs[0].send, rs[0].recv, 1, FP32, SUM, comms[0], rs[0].stream)
    });
    assert_eq!(s.sync(rs[0].stream), 507046);
    let m = s.msg();
    assert!(
        m.contains("rank 0 of communicator group 0") && m.contains("rank(s) 1 never reached"),
        "{m}"
    );
    // Mismatched collectives fail the run on both ranks.
    s.set_device(1);
    s.ok(unsafe {
        (hccl().all_reduce)(rs[1].send, rs[1].recv, 1, FP32, MAX, comms[1], rs[1].stream)
    });
    assert_eq!(s.sync(rs[1].stream), 507015);
    assert!(s.msg().contains("collective mismatch"));
}

#[test]
fn hccl_argument_errors_have_hccl_codes() {
    let (_g, s) = Sim::lock("");
    let (rs, comms) = ranks(s, 2, |_| f32s(&[1.0, 2.0]), 8);
    s.set_device(0);
    let h = hccl();
    assert_eq!(
        unsafe { (h.all_reduce)(null_mut(), rs[0].recv, 2, FP32, SUM, comms[0], rs[0].stream) },
        2
    );
    assert_eq!(
        unsafe { (h.all_reduce)(rs[0].send, rs[0].recv, 2, FP32, 9, comms[0], rs[0].stream) },
        1
    );
    s.msg();
    assert_eq!(
        unsafe { (h.all_reduce)(rs[0].send, rs[0].recv, 2, 99, SUM, comms[0], rs[0].stream) },
        5
    );
    s.msg();
    // Too many elements for the buffer: the range is named.
    assert_eq!(
        unsafe {
            (h.all_reduce)(
                rs[0].send,
                rs[0].recv,
                64,
                FP32,
                SUM,
                comms[0],
                rs[0].stream,
            )
        },
        1
    );
    assert!(s.msg().contains("runs past the end"));
    // Rank 1's stream is on device 1.
    assert_eq!(
        unsafe { (h.all_reduce)(rs[0].send, rs[0].recv, 2, FP32, SUM, comms[0], rs[1].stream) },
        1
    );
    assert!(s.msg().contains("belongs to device 1"));
    assert_eq!(unsafe { (h.destroy)(comms[0]) }, 0);
    assert_eq!(
        unsafe { (h.all_reduce)(rs[0].send, rs[0].recv, 2, FP32, SUM, comms[0], rs[0].stream) },
        1
    );
    assert!(s.msg().contains("destroyed"));
}

#[test]
fn root_info_communicators() {
    let (_g, s) = Sim::lock("");
    let h = hccl();
    let mut info = vec![0u8; 4108];
    s.ok(unsafe { (h.get_root_info)(info.as_mut_ptr()) });
    let mut rs = Vec::new();
    let mut comms = Vec::new();
    for r in 0..2u32 {
        s.set_device(r as i32);
        let mut c = null_mut();
        s.ok(unsafe { (h.init_root_info)(2, info.as_ptr(), r, &mut c) });
        comms.push(c);
        let sb = s.malloc(4);
        s.h2d(sb, &i32s(&[r as i32 + 3]));
        rs.push((sb, s.malloc(4), s.stream()));
    }
    for (r, &(sb, rb, st)) in rs.iter().enumerate() {
        s.set_device(r as i32);
        s.ok(unsafe { (h.all_reduce)(sb, rb, 1, INT32, SUM, comms[r], st) });
    }
    for (r, &(_, rb, st)) in rs.iter().enumerate() {
        s.set_device(r as i32);
        s.ok(s.sync(st));
        assert_eq!(s.d2h(rb, 4), i32s(&[7]));
    }
}
