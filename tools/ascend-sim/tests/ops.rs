//! aclopExecuteV2 through the C ABI: descriptors, buffers, attributes, OP_NOT_FOUND, the
//! opaque-kernel mode and the report.

mod common;
use common::*;
use std::ptr::null_mut;

struct Op {
    descs: Vec<P>,
    bufs: Vec<P>,
}

fn operand(s: &Sim, dims: &[i64], addr: P, size: usize) -> (P, P) {
    let d = unsafe { (s.acl.aclCreateTensorDesc)(0, dims.len() as i32, dims.as_ptr(), 2) };
    assert!(!d.is_null(), "{}", s.msg());
    let b = unsafe { (s.acl.aclCreateDataBuffer)(addr, size) };
    assert!(!b.is_null());
    (d, b)
}

fn op(s: &Sim, dims: &[i64], addrs: &[(P, usize)]) -> Op {
    let (descs, bufs) = addrs.iter().map(|&(a, n)| operand(s, dims, a, n)).unzip();
    Op { descs, bufs }
}

fn execute(s: &Sim, ty: &str, ins: &Op, outs: &Op, attr: P, stream: P) -> i32 {
    let ty = c(ty);
    unsafe {
        (s.acl.aclopExecuteV2)(
            ty.as_ptr(),
            ins.descs.len() as i32,
            ins.descs.as_ptr(),
            ins.bufs.as_ptr(),
            outs.descs.len() as i32,
            outs.descs.as_ptr(),
            outs.bufs.as_ptr(),
            attr,
            stream,
        )
    }
}

#[test]
fn an_op_without_a_kernel_is_op_not_found_naming_it() {
    let (_g, s) = Sim::lock("");
    let (x, y) = (s.malloc(16), s.malloc(16));
    let st = s.stream();
    let ins = op(s, &[4], &[(x, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    assert_eq!(
        execute(s, "NoSuchOpType", &ins, &outs, null_mut(), st),
        100024
    );
    let m = s.msg();
    assert!(m.contains("`NoSuchOpType`"), "{m}");
}

#[test]
fn opaque_mode_runs_a_stand_in_and_counts_it() {
    let (_g, s) = Sim::lock("opaque_kernels=1;trace=1");
    let (x, y) = (s.malloc(16), s.malloc(16));
    s.h2d(x, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    let st = s.stream();
    let ins = op(s, &[4], &[(x, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    let attr = unsafe { (s.acl.aclopCreateAttr)() };
    let (name, text) = (c("mode"), c("fast"));
    s.ok(unsafe { (s.acl.aclopSetAttrInt)(attr, c("axis").as_ptr(), -1) });
    s.ok(unsafe { (s.acl.aclopSetAttrFloat)(attr, c("alpha").as_ptr(), 0.5) });
    s.ok(unsafe { (s.acl.aclopSetAttrBool)(attr, c("keep").as_ptr(), 1) });
    s.ok(unsafe { (s.acl.aclopSetAttrString)(attr, name.as_ptr(), text.as_ptr()) });
    s.ok(unsafe { (s.acl.aclopSetAttrListInt)(attr, c("perm").as_ptr(), 2, [1i64, 0].as_ptr()) });
    s.ok(execute(s, "NoSuchOpType", &ins, &outs, attr, st));
    s.ok(execute(s, "NoSuchOpType", &ins, &outs, attr, st));
    s.ok(s.sync(st));
    let rep = s.report();
    assert_eq!(rep["opaque_kernels"], 2, "{rep}");
    assert_eq!(rep["opaque_by_op"]["NoSuchOpType"], 2);
    assert_eq!(rep["tasks_by_kind"]["kernel"], 2);
    let trace = rep["trace"].as_array().unwrap();
    assert_eq!(trace[0]["name"], "NoSuchOpType");
    assert_eq!(trace[0]["kind"], "kernel");
    assert!(trace[1]["start_ns"].as_u64() >= trace[0]["end_ns"].as_u64());
    unsafe { (s.acl.aclopDestroyAttr)(attr) };
}

#[test]
fn operand_errors_name_the_operand() {
    let (_g, s) = Sim::lock("opaque_kernels=1");
    let (x, y) = (s.malloc(16), s.malloc(16));
    let st = s.stream();
    // The buffer is shorter than the descriptor needs.
    let ins = op(s, &[8], &[(x, 16)]);
    let outs = op(s, &[4], &[(y, 16)]);
    assert_eq!(execute(s, "Relu", &ins, &outs, null_mut(), st), 100000);
    assert!(s
        .msg()
        .contains("input 0: the buffer holds 16 bytes but its desc"));
    // The buffer lies outside every allocation.
    let ins = op(s, &[4], &[(x.wrapping_byte_add(4096), 16)]);
    assert_eq!(execute(s, "Relu", &ins, &outs, null_mut(), st), 100000);
    assert!(s.msg().contains("is not inside one live allocation"));
    // A destroyed descriptor.
    let ins = op(s, &[4], &[(x, 16)]);
    unsafe { (s.acl.aclDestroyTensorDesc)(ins.descs[0]) };
    assert_eq!(execute(s, "Relu", &ins, &outs, null_mut(), st), 107017);
    assert!(s.msg().contains("was destroyed"));
    // A stream handle where a desc belongs.
    let bad = Op {
        descs: vec![st],
        bufs: ins.bufs.clone(),
    };
    assert_eq!(execute(s, "Relu", &bad, &outs, null_mut(), st), 107017);
    assert!(s.msg().contains("is a stream, not a tensor desc"));
    // Bad descriptor arguments.
    let dims = [-1i64];
    assert!(unsafe { (s.acl.aclCreateTensorDesc)(0, 1, dims.as_ptr(), 2) }.is_null());
    assert!(s.msg().contains("static shapes"));
    assert!(unsafe { (s.acl.aclCreateTensorDesc)(5, 0, null_mut(), 2) }.is_null());
    assert!(s.msg().contains("data type 5"));
    // Freed between issue and run: the sync names the op and the operand.
    let ins = op(s, &[4], &[(x, 16)]);
    s.ok(execute(s, "Relu", &ins, &outs, null_mut(), st));
    s.ok(unsafe { (s.acl.aclrtFree)(x) });
    assert_eq!(s.sync(st), 507015);
    let m = s.msg();
    assert!(
        m.contains("kernel `Relu` input 0") && m.contains("use after free"),
        "{m}"
    );
}
